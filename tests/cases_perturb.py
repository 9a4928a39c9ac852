"""Bad-input catalogue, perturbative methods (issue 28, item 4): PRAM and additive noise.

Before these existed, ``pram`` and ``add-noise`` were unknown algorithms; each case now names what
is wrong in one line, before anything is written: a transition matrix that is not stochastic or is
over the wrong categories, a matrix for a column not perturbed, PRAM on a numeric column, noise on a
categorical or sensitive column, a noise level that is not positive, options of another method,
unknown or repeated columns, strata that are unknown or perturbed themselves.
"""

from __future__ import annotations

from bad_input_kit import C, add_model, put, with_name_column

DISEASES = ["bronchitis", "flu", "gastric ulcer", "gastritis", "pneumonia", "stomach cancer"]


def identity(**rows: dict[str, float]) -> dict[str, dict[str, float]]:
    """The identity matrix over the toy's diseases, with the given rows replaced."""
    out: dict[str, dict[str, float]] = {d: {d: 1.0} for d in DISEASES}
    out.update(rows)
    return out


def pram(**options: object):  # type: ignore[no-untyped-def]
    return put("algorithm", {"name": "pram", "columns": ["Disease"], **options})


def noise(**options: object):  # type: ignore[no-untyped-def]
    return put("algorithm", {"name": "add-noise", "columns": ["Age", "ZIPCode"], **options})


INSENSITIVE_SALARY = put("attributes.Salary", {"role": "insensitive"})

CASES = [
    # ------------------------------------------------------------------ PRAM: the given matrix
    C("pram-matrix-row-sum", 2, ("matrix", "flu", "sums to 0.9", "not 1"),
      cfg=(pram(matrix={"Disease": identity(flu={"flu": 0.8, "gastritis": 0.1})}),)),
    C("pram-matrix-row-above-one", 2, ("matrix", "flu", "sums to 1.5"),
      cfg=(pram(matrix={"Disease": identity(flu={"flu": 1.0, "gastritis": 0.5})}),)),
    C("pram-matrix-negative", 2, ("probability", "[0, 1]", "-0.2"),
      cfg=(pram(matrix={"Disease": identity(flu={"gastritis": -0.2, "flu": 1.2})}),)),
    C("pram-matrix-probability-above-one", 2, ("probability", "[0, 1]"),
      cfg=(pram(matrix={"Disease": identity(flu={"flu": 1.5})}),)),
    C("pram-matrix-unknown-row", 2, ("measles", "not a category"),
      cfg=(pram(matrix={"Disease": identity(measles={"measles": 1.0})}),)),
    C("pram-matrix-unknown-target", 2, ("flu", "measles", "not a category"),
      cfg=(pram(matrix={"Disease": identity(flu={"flu": 0.5, "measles": 0.5})}),)),
    C("pram-matrix-missing-row", 2, ("no row", "pneumonia"),
      cfg=(pram(matrix={"Disease": {d: {d: 1.0} for d in DISEASES if d != "pneumonia"}}),)),
    C("pram-matrix-for-unperturbed-column", 2, ("not perturbed", "ZIPCode"),
      cfg=(pram(matrix={"Disease": identity(), "ZIPCode": {"47677": {"47677": 1.0}}}),)),
    C("pram-matrix-not-a-mapping", 2, ("algorithm.matrix",), cfg=(pram(matrix=5),)),
    C("pram-matrix-row-not-a-mapping", 2, ("algorithm.matrix",), cfg=(pram(matrix={"Disease": {"flu": 1.0}}),)),
    C("pram-matrix-probability-text", 2, ("algorithm.matrix",),
      cfg=(pram(matrix={"Disease": identity(flu={"flu": "1"})}),)),
    C("pram-matrix-numeric-category-keys", 2, ("algorithm.matrix", "string"),
      cfg=(put("algorithm", {"name": "pram", "columns": ["Age"], "matrix": {"Age": {29: {29: 1.0}}}}),)),
    # ------------------------------------------------------------------ PRAM: columns and strata
    C("pram-numeric-column", 2, ("pram changes categories", "numeric", "Salary"),
      cfg=(pram(columns=["Salary"]),)),
    C("pram-unknown-column", 2, ("not a column of the input", "Diagnosis"), cfg=(pram(columns=["Diagnosis"]),)),
    C("pram-column-twice", 2, ("named twice", "Disease"), cfg=(pram(columns=["Disease", "Disease"]),)),
    C("pram-no-column", 2, ("at least one column",), cfg=(pram(columns=[]),)),
    C("pram-columns-not-a-list", 2, ("algorithm.columns",), cfg=(pram(columns="Disease"),)),
    C("pram-identifier-column", 2, ("not published", "Name"),
      cfg=(put("attributes.Name", {"role": "identifier"}), pram(columns=["Name"])), files=(with_name_column,)),
    C("pram-strata-unknown", 2, ("not a column of the input", "Region", "algorithm.by"), cfg=(pram(by=["Region"]),)),
    C("pram-strata-perturbed", 2, ("strata column", "cannot also be perturbed", "Disease"),
      cfg=(pram(by=["Disease"]),)),
    C("pram-strata-not-a-list", 2, ("algorithm.by",), cfg=(pram(by="ZIPCode"),)),
    # ------------------------------------------------------------------ PRAM: parameters
    C("pram-pd-above-one", 2, ("algorithm.pd",), cfg=(pram(pd=1.5),)),
    C("pram-pd-negative", 2, ("algorithm.pd",), cfg=(pram(pd=-0.1),)),
    C("pram-alpha-zero", 2, ("algorithm.alpha",), cfg=(pram(alpha=0),)),
    C("pram-alpha-text", 2, ("algorithm.alpha",), cfg=(pram(alpha="0.5"),)),
    C("pram-invariant-text", 2, ("algorithm.invariant",), cfg=(pram(invariant="yes"),)),
    C("pram-noise-option", 2, ("'level' is not an option of pram", "add-noise"), cfg=(pram(level=50),)),
    C("pram-whole-release-model", 2, ("average", "whole release", "not pram"),
      cfg=(pram(), add_model({"model": "average-risk", "threshold": 0.5}))),
    # ------------------------------------------------------------------ noise: columns
    C("noise-categorical-column", 2, ("adds noise to numbers", "categorical", "Disease"),
      cfg=(noise(columns=["Disease"]),)),
    C("noise-sensitive-column", 2, ("sensitive attribute", "insensitive", "Salary"),
      cfg=(noise(columns=["Salary"]),)),
    C("noise-text-insensitive-column", 2, ("adds noise to numbers", "categorical", "Salary"),
      cfg=(put("attributes.Salary", {"role": "insensitive"}), noise(columns=["Salary"])),
      files=(lambda tmp: (tmp / "test2.csv").write_text((tmp / "test2.csv").read_text().replace(";3;", ";low;")),)),
    C("noise-unknown-column", 2, ("not a column of the input", "Income"), cfg=(noise(columns=["Income"]),)),
    C("noise-column-twice", 2, ("named twice", "Age"), cfg=(noise(columns=["Age", "Age"]),)),
    C("noise-no-column", 2, ("at least one column",), cfg=(noise(columns=[]),)),
    C("noise-identifier-column", 2, ("not published", "Name"),
      cfg=(put("attributes.Name", {"role": "identifier"}), noise(columns=["Name"])), files=(with_name_column,)),
    C("noise-one-value", 2, ("at least two values", "Salary"),
      cfg=(INSENSITIVE_SALARY, noise(columns=["Salary"])),
      files=(lambda tmp: (tmp / "test2.csv").write_text(
          "\n".join(line if i < 2 else ";".join([*line.split(";")[:2], "", line.split(";")[3]])
                    for i, line in enumerate((tmp / "test2.csv").read_text().splitlines())) + "\n"),)),
    # ------------------------------------------------------------------ noise: level and method
    C("noise-negative-level", 2, ("algorithm.level", "greater than 0"), cfg=(noise(level=-10),)),
    C("noise-zero-level", 2, ("algorithm.level", "greater than 0"), cfg=(noise(level=0),)),
    C("noise-level-text", 2, ("algorithm.level",), cfg=(noise(level="50%"),)),
    C("noise-unknown-method", 2, ("algorithm.method", "additive", "correlated2"), cfg=(noise(method="gaussian"),)),
    C("noise-delta-with-additive", 2, ("delta applies", "correlated2"), cfg=(noise(delta=0.2),)),
    C("noise-level-with-correlated2", 2, ("correlated2", "drop level"), cfg=(noise(method="correlated2", level=50),)),
    C("noise-delta-one", 2, ("algorithm.delta",), cfg=(noise(method="correlated2", delta=1),)),
    C("noise-delta-zero", 2, ("algorithm.delta",), cfg=(noise(method="correlated2", delta=0),)),
    C("noise-correlated-one-column", 2, ("correlated", "at least two"),
      cfg=(noise(method="correlated", columns=["Age"]),)),
    C("noise-pram-option", 2, ("'by' is not an option of add-noise", "pram"), cfg=(noise(by=["ZIPCode"]),)),
    C("noise-matrix-option", 2, ("'matrix' is not an option of add-noise",), cfg=(noise(matrix={}),)),
]
