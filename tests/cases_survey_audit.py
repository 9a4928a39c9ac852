"""Bad-input catalogue, sdcMicro's survey risk in the audit, ``anonkit check`` and the individual-risk criterion
(issue 28, items 1 and 2).

``anonkit check --weight/--household/--suda2`` refuses, before any other figure is computed, a weight column that
is missing from the table, not a number, below 1, empty or infinite (naming the row), a weight or household column
that is a quasi-identifier, the same column as both, and a household id that is missing. The config refuses an
``audit.thresholds.individual_risk`` outside (0, 1] or not a number. The ``individual-risk`` model's cases: no
weight role, a threshold out of range,
missing or not a number, a key that does not apply, Mondrian (whose cuts cannot sum the weights).
"""

from __future__ import annotations

from pathlib import Path

from bad_input_kit import TOY, C, Case, add_model, put

ROWS = 9
WEIGHTS = [f"{1.5 * i:g}" for i in range(1, ROWS + 1)]
HOUSEHOLDS = [f"h{(i + 1) // 2}" for i in range(1, ROWS + 1)]


def survey(*, weight: list[str] | None = None, household: list[str] | None = None, name: str = TOY):
    """The toy table with ``HH`` and ``W`` columns in front (``name``: the file written; a list replaces cells)."""
    weight = weight or WEIGHTS
    household = household or HOUSEHOLDS

    def prepare(tmp: Path) -> None:
        lines = (tmp / TOY).read_text().splitlines()
        out = ["HH;W;" + lines[0]] + [f"{household[i]};{weight[i]};{line}" for i, line in enumerate(lines[1:])]
        (tmp / name).write_text("\n".join(out) + "\n")

    return prepare


def weight_cell(at: int, cell: str):
    w = list(WEIGHTS)
    w[at] = cell
    return survey(weight=w, name="s.csv")


def household_cell(at: int, cell: str):
    h = list(HOUSEHOLDS)
    h[at] = cell
    return survey(household=h, name="s.csv")


S = (survey(name="s.csv"),)
CHECK = ("{tmp}/s.csv", "--separator", ";", "--qi", "ZIPCode,Age")


def check_case(id: str, words: tuple[str, ...], *args: str, files: tuple = S) -> Case:
    return C(id, 2, words, files=files, check=(*CHECK, *args))


CHECK_CASES = [
    check_case("survey-check-weight-unknown-column", ("weight column is not in the table", "Wx"), "--weight", "Wx"),
    check_case("survey-check-weight-text-column", ("not a number >= 1", "column 'Disease'", "row 1"),
               "--weight", "Disease"),
    check_case("survey-check-weight-household-ids", ("not a number >= 1", "'HH'"), "--weight", "HH"),
    check_case("survey-check-weight-below-one", ("not a number >= 1", "row 3"), "--weight", "W",
               files=(weight_cell(2, "0.5"),)),
    check_case("survey-check-weight-zero", ("not a number >= 1", "row 1"), "--weight", "W",
               files=(weight_cell(0, "0"),)),
    check_case("survey-check-weight-negative", ("not a number >= 1", "row 9"), "--weight", "W",
               files=(weight_cell(8, "-3"),)),
    check_case("survey-check-weight-empty", ("not a number >= 1", "row 5"), "--weight", "W",
               files=(weight_cell(4, ""),)),
    check_case("survey-check-weight-infinite", ("not a number >= 1", "row 6"), "--weight", "W",
               files=(weight_cell(5, "inf"),)),
    check_case("survey-check-weight-nan", ("not a number >= 1", "row 7"), "--weight", "W",
               files=(weight_cell(6, "nan"),)),
    check_case("survey-check-weight-comma-decimal", ("not a number >= 1", "row 2"), "--weight", "W",
               files=(weight_cell(1, "1,5"),)),
    check_case("survey-check-weight-is-a-quasi-identifier", ("--weight names a quasi-identifier", "Age"),
               "--weight", "Age"),
    check_case("survey-check-weight-text-before-suda2", ("not a number >= 1", "row 4"), "--weight", "W",
               "--household", "HH", "--suda2", files=(weight_cell(3, "abc"),)),
    check_case("survey-check-household-unknown-column", ("household column is not in the table", "House"),
               "--household", "House"),
    check_case("survey-check-household-is-a-quasi-identifier", ("--household names a quasi-identifier",
                                                                "ZIPCode"), "--household", "ZIPCode"),
    check_case("survey-check-household-missing-id", ("household id is missing", "row 4", "HH"),
               "--household", "HH", files=(household_cell(3, ""),)),
    check_case("survey-check-household-blank-id", ("household id is missing", "row 8"),
               "--household", "HH", files=(household_cell(7, "   "),)),
    check_case("survey-check-weight-and-household-same-column", ("name the same column", "W"),
               "--weight", "W", "--household", "W"),
    C("survey-check-weight-without-qi", 2, ("no quasi-identifier",), files=S,
      check=("{tmp}/s.csv", "--separator", ";", "--qi", "", "--weight", "W")),
]

AUDIT_CASES = [  # before the threshold existed each was an "unknown key": the words below are the range's
    C(f"survey-audit-threshold-{label}", 2, ("audit.thresholds.individual_risk", words),
      cfg=(put("audit", {"thresholds": {"individual_risk": value}}),))
    for label, value, words in (("zero", 0, "greater than 0"), ("above-one", 1.5, "less than or equal to 1"),
                                ("negative", -0.1, "greater than 0"), ("text", "high", "give a number"),
                                ("flag", True, "give a number"), ("list", [0.1], "give a number"),
                                ("infinite", float("inf"), "finite number"))
]

SURVEY_CFG = (survey(),)
WEIGHT_ROLES = (put("attributes.W", {"role": "weight"}), put("attributes.HH", {"role": "household"}))


def risk_model(**keys: object):
    return add_model({"model": "individual-risk", **keys})


MODEL_CASES = [
    C("survey-individual-risk-without-weight-role", 2, ("individual-risk needs a sampling weight", "role: weight"),
      cfg=(risk_model(threshold=0.2), put("attributes.W", {"role": "insensitive"}),
           put("attributes.HH", {"role": "household"})), files=SURVEY_CFG),
    C("survey-individual-risk-no-survey-columns", 2, ("individual-risk needs a sampling weight",),
      cfg=(risk_model(threshold=0.2),)),
    C("survey-individual-risk-threshold-zero", 2, ("threshold",), cfg=(*WEIGHT_ROLES, risk_model(threshold=0)),
      files=SURVEY_CFG),
    C("survey-individual-risk-threshold-above-one", 2, ("threshold",),
      cfg=(*WEIGHT_ROLES, risk_model(threshold=1.5)), files=SURVEY_CFG),
    C("survey-individual-risk-threshold-missing", 2, ("threshold",), cfg=(*WEIGHT_ROLES, risk_model()),
      files=SURVEY_CFG),
    C("survey-individual-risk-threshold-text", 2, ("threshold",), cfg=(*WEIGHT_ROLES, risk_model(threshold="low")),
      files=SURVEY_CFG),
    C("survey-individual-risk-threshold-flag", 2, ("threshold",), cfg=(*WEIGHT_ROLES, risk_model(threshold=True)),
      files=SURVEY_CFG),
    C("survey-individual-risk-with-mondrian", 2, ("individual-risk", "mondrian", "flash"),
      cfg=(*WEIGHT_ROLES, risk_model(threshold=0.2), put("algorithm", {"name": "mondrian"})), files=SURVEY_CFG),
    C("survey-individual-risk-weight-identifier", 2, ("individual-risk needs a sampling weight",),
      cfg=(put("attributes.W", {"role": "identifier"}), put("attributes.HH", {"role": "household"}),
           risk_model(threshold=0.2)), files=SURVEY_CFG),
    C("survey-individual-risk-attribute-does-not-apply", 2, ("attribute", "does not apply"),
      cfg=(*WEIGHT_ROLES, risk_model(threshold=0.2, attribute="Disease")), files=SURVEY_CFG),
]

#: the criterion's cases join once the model is registered (the lead's integration of models/individual_risk.py)
CASES = [*CHECK_CASES, *AUDIT_CASES, *MODEL_CASES]
