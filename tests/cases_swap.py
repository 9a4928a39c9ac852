"""Bad-input catalogue, the swapping methods (issue 28, item 4): rank swapping, targeted record
swapping of households, shuffling.

Before these existed, ``rank-swap``, ``record-swap`` and ``shuffle`` were unknown algorithms; each case
now names what is wrong in one line, before anything is written: a rank window outside (0, 100], a
column that cannot be ranked (categorical without an order, a value outside the declared order, a
date), unknown, repeated or unpublished columns, record swapping without households or with a
geography or similar column that differs within a household, a swap rate outside [0, 1], risk
options that do not go together, shuffling without predictors, with missing values, or of a column
that is also a predictor.
"""

from __future__ import annotations

from pathlib import Path

from bad_input_kit import TOY, C, put, with_name_column

#: the toy's nine records in six households, with a region and a district per household and its size
HOUSEHOLDS = ["H1", "H1", "H2", "H3", "H3", "H4", "H5", "H5", "H6"]
REGIONS = ["north", "north", "north", "south", "south", "south", "east", "east", "east"]
DISTRICTS = ["n1", "n1", "n2", "s1", "s1", "s2", "e1", "e1", "e2"]
SIZES = ["2", "2", "1", "2", "2", "1", "2", "2", "1"]


def with_households(tmp: Path) -> None:
    """The toy table with Household, Region, District and Size columns (one value per household)."""
    lines = (tmp / TOY).read_text().splitlines()
    out = [lines[0] + ";Household;Region;District;Size"]
    out += [f"{line};{h};{r};{d};{s}" for line, h, r, d, s in zip(lines[1:], HOUSEHOLDS, REGIONS, DISTRICTS, SIZES,
                                                                   strict=True)]
    (tmp / TOY).write_text("\n".join(out) + "\n")


def cell(row: int, column: int, value: str):  # type: ignore[no-untyped-def]
    """Set one cell of the (household) toy: data row ``row`` (1-based), column index ``column``."""

    def prepare(tmp: Path) -> None:
        lines = (tmp / TOY).read_text().splitlines()
        parts = lines[row].split(";")
        parts[column] = value
        lines[row] = ";".join(parts)
        (tmp / TOY).write_text("\n".join(lines) + "\n")

    return prepare


HOUSEHOLD_ROLES = (put("attributes.Household", {"role": "household"}), put("attributes.Region", {"role": "quasi"}),
                   put("attributes.District", {"role": "quasi"}), put("attributes.Size", {"role": "insensitive"}))


def rank(**options: object):  # type: ignore[no-untyped-def]
    return put("algorithm", {"name": "rank-swap", "columns": ["Age"], **options})


def record(**options: object):  # type: ignore[no-untyped-def]
    return put("algorithm", {"name": "record-swap", "hierarchy": ["Region", "District"], "similar": ["Size"],
                             **options})


def shuffled(**options: object):  # type: ignore[no-untyped-def]
    return put("algorithm", {"name": "shuffle", "columns": ["Salary"], "predictors": ["Age"], **options})


def swap_case(id: str, words: tuple[str, ...], *changes, files=()) -> C:  # type: ignore[no-untyped-def,valid-type]
    """A record-swap case over the household toy."""
    return C(id, 2, words, cfg=(*HOUSEHOLD_ROLES, *changes), files=(with_households, *files))


CASES = [
    # ------------------------------------------------------------------ rank swapping: p
    C("rank-swap-p-zero", 2, ("algorithm.p", "greater than 0"), cfg=(rank(p=0),)),
    C("rank-swap-p-negative", 2, ("algorithm.p", "greater than 0"), cfg=(rank(p=-5),)),
    C("rank-swap-p-above-100", 2, ("algorithm.p", "less than or equal to 100"), cfg=(rank(p=150),)),
    C("rank-swap-p-text", 2, ("algorithm.p",), cfg=(rank(p="5%"),)),
    C("rank-swap-p-list", 2, ("algorithm.p",), cfg=(rank(p=[5]),)),
    # ------------------------------------------------------------------ rank swapping: columns
    C("rank-swap-unknown-column", 2, ("not a column of the input", "Income"), cfg=(rank(columns=["Income"]),)),
    C("rank-swap-column-twice", 2, ("named twice", "Age"), cfg=(rank(columns=["Age", "Age"]),)),
    C("rank-swap-no-column", 2, ("at least one column",), cfg=(rank(columns=[]),)),
    C("rank-swap-columns-not-a-list", 2, ("algorithm.columns",), cfg=(rank(columns="Age"),)),
    C("rank-swap-categorical-column", 2, ("rank-swap ranks values", "categorical without an order", "Disease"),
      cfg=(rank(columns=["Disease"]),)),
    C("rank-swap-ordinal-without-order", 2, ("ranks an ordinal column by its order", "declare order", "Disease"),
      cfg=(put("attributes.Disease", {"role": "sensitive", "type": "ordinal"}), rank(columns=["Disease"]))),
    C("rank-swap-date-column", 2, ("rank-swap ranks values", "date without an order", "Day"),
      cfg=(put("attributes.Day", {"role": "quasi", "type": "date", "format": "%Y-%m-%d"}),
           rank(columns=["Day"])),
      files=(lambda tmp: (tmp / TOY).write_text("\n".join(
          line + (";Day" if i == 0 else f";2020-01-0{i}") for i, line in enumerate((tmp / TOY).read_text()
                                                                                  .splitlines())) + "\n"),)),
    C("rank-swap-identifier-column", 2, ("not published", "Name"),
      cfg=(put("attributes.Name", {"role": "identifier"}), rank(columns=["Name"])), files=(with_name_column,)),
    C("rank-swap-household-column", 2, ("survey household column is not perturbed", "Household"),
      cfg=(*HOUSEHOLD_ROLES, put("attributes.Household", {"role": "household", "publish": "renumbered"}),
           rank(columns=["Household"])), files=(with_households,)),
    C("rank-swap-pram-option", 2, ("'matrix' is not an option of rank-swap",), cfg=(rank(matrix={}),)),
    C("rank-swap-unknown-option", 2, ("'top_percent' is not an option of rank-swap",), cfg=(rank(top_percent=5),)),
    C("rank-swap-whole-release-model", 2, ("average", "whole release", "not rank-swap"),
      cfg=(rank(), lambda cfg: cfg["privacy"].append({"model": "average-risk", "threshold": 0.5}))),
    # ------------------------------------------------------------------ record swapping: households
    C("record-swap-without-household", 2, ("swaps households", "role: household"),
      cfg=(put("algorithm", {"name": "record-swap", "hierarchy": ["ZIPCode"]}),)),
    swap_case("record-swap-no-hierarchy-option", ("algorithm.hierarchy",),
              lambda cfg: cfg.__setitem__("algorithm", {"name": "record-swap"})),
    swap_case("record-swap-empty-hierarchy", ("hierarchy", "geographic columns"), record(hierarchy=[])),
    swap_case("record-swap-hierarchy-not-a-list", ("algorithm.hierarchy",), record(hierarchy="Region")),
    swap_case("record-swap-unknown-hierarchy-column", ("not a column of the input", "County"),
              record(hierarchy=["Region", "County"])),
    swap_case("record-swap-hierarchy-twice", ("named twice", "Region"), record(hierarchy=["Region", "Region"])),
    swap_case("record-swap-household-as-geography", ("survey household column", "Household"),
              put("attributes.Household", {"role": "household", "publish": "renumbered"}),
              record(hierarchy=["Household"])),
    swap_case("record-swap-geography-split-household", ("one value per household", "District"),
              record(), files=(cell(2, 6, "n9"),)),
    swap_case("record-swap-similar-split-household", ("one value per household", "Size"),
              record(), files=(cell(2, 7, "3"),)),
    swap_case("record-swap-unknown-similar", ("not a column of the input", "Rooms"), record(similar=["Rooms"])),
    swap_case("record-swap-similar-is-geography", ("geographic column", "cannot also be", "District"),
              record(similar=["District"])),
    swap_case("record-swap-risk-variable-is-geography", ("geographic column", "cannot also be", "Region"),
              record(risk_variables=["Region"])),
    swap_case("record-swap-unknown-risk-variable", ("not a column of the input", "Job"),
              record(risk_variables=["Job"])),
    # ------------------------------------------------------------------ record swapping: rate and risk
    swap_case("record-swap-swaprate-above-one", ("algorithm.swaprate", "less than or equal to 1"),
              record(swaprate=1.5)),
    swap_case("record-swap-swaprate-negative", ("algorithm.swaprate", "greater than or equal to 0"),
              record(swaprate=-0.1)),
    swap_case("record-swap-swaprate-text", ("algorithm.swaprate",), record(swaprate="5%")),
    swap_case("record-swap-k-zero", ("algorithm.k", "greater than or equal to 1"), record(k=0)),
    swap_case("record-swap-k-fraction", ("algorithm.k",), record(k=2.5)),
    swap_case("record-swap-unknown-risk", ("algorithm.risk", "k-anonymity", "household"), record(risk="suda")),
    swap_case("record-swap-threshold-with-k-anonymity", ("risk_threshold applies", "individual or household"),
              record(risk_threshold=0.1)),
    swap_case("record-swap-individual-without-threshold", ("risk: individual needs risk_threshold",),
              record(risk="individual")),
    swap_case("record-swap-negative-threshold", ("algorithm.risk_threshold",),
              record(risk="household", risk_threshold=-0.5)),
    swap_case("record-swap-noise-option", ("'level' is not an option of record-swap",), record(level=10)),
    # ------------------------------------------------------------------ shuffling
    C("shuffle-categorical-column", 2, ("shuffle regenerates numbers", "categorical", "Disease"),
      cfg=(shuffled(columns=["Disease"]),)),
    C("shuffle-unknown-column", 2, ("not a column of the input", "Income"), cfg=(shuffled(columns=["Income"]),)),
    C("shuffle-no-column", 2, ("at least one confidential column",), cfg=(shuffled(columns=[]),)),
    C("shuffle-column-twice", 2, ("named twice", "Salary"), cfg=(shuffled(columns=["Salary", "Salary"]),)),
    C("shuffle-no-predictor", 2, ("predictors", "at least one"), cfg=(shuffled(predictors=[]),)),
    C("shuffle-unknown-predictor", 2, ("not a column of the input", "Region", "algorithm.predictors"),
      cfg=(shuffled(predictors=["Region"]),)),
    C("shuffle-predictor-shuffled", 2, ("cannot also be shuffled", "Salary"),
      cfg=(shuffled(predictors=["Age", "Salary"]),)),
    C("shuffle-predictors-not-a-list", 2, ("algorithm.predictors",), cfg=(shuffled(predictors="Age"),)),
    C("shuffle-missing-value", 2, ("a value in every released record", "Salary"), cfg=(shuffled(),),
      files=(lambda tmp: (tmp / TOY).write_text((tmp / TOY).read_text().replace(";3;", ";;")),)),
    C("shuffle-identifier-predictor", 2, ("not published", "Name"),
      cfg=(put("attributes.Name", {"role": "identifier"}), shuffled(predictors=["Name"])), files=(with_name_column,)),
    C("shuffle-rank-option", 2, ("'p' is not an option of shuffle",), cfg=(shuffled(p=5),)),
]
