"""Bad-input catalogue, microaggregation (issue 28, item 4: sdcMicro's ``microaggregation``).

Before ``microaggregation`` existed, every one of these configs was refused for naming an unknown
algorithm; each case now names what is wrong in one line, before anything is written: an unknown
method or aggregate, a group size below 2 or above the records (or a stratum's records), a column that
is not numeric, sensitive, unknown, repeated or not published, a missing value in a column to
aggregate or stratify by, strata that are unknown or aggregated themselves, ``clusters`` for a method
that does not cluster, options of other methods, whole-release models.
"""

from __future__ import annotations

from bad_input_kit import C, add_model, put, with_name_column


def micro(**options: object):  # type: ignore[no-untyped-def]
    return put("algorithm", {"name": "microaggregation", "columns": ["Age", "ZIPCode"], **options})


INSENSITIVE_SALARY = put("attributes.Salary", {"role": "insensitive"})
INSENSITIVE_DISEASE = put("attributes.Disease", {"role": "insensitive"})


def _blank_salary(tmp):  # type: ignore[no-untyped-def]
    """The toy with the Salary of its third record missing."""
    lines = (tmp / "test2.csv").read_text().splitlines()
    cells = lines[3].split(";")
    lines[3] = ";".join([*cells[:2], "", cells[3]])
    (tmp / "test2.csv").write_text("\n".join(lines) + "\n")


def _text_salary(tmp):  # type: ignore[no-untyped-def]
    (tmp / "test2.csv").write_text((tmp / "test2.csv").read_text().replace(";3;", ";low;"))


CASES = [
    # ------------------------------------------------------------------ method, aggregate, k
    C("micro-unknown-method", 2, ("algorithm.method", "mdav", "clustpppca"), cfg=(micro(method="kmeans"),)),
    C("micro-sdcmicro-method-not-offered", 2, ("algorithm.method", "rmd"), cfg=(micro(method="mcdpca"),)),
    C("micro-method-not-text", 2, ("algorithm.method",), cfg=(micro(method=3),)),
    C("micro-k-one", 2, ("algorithm.k", "greater than or equal to 2"), cfg=(micro(k=1),)),
    C("micro-k-zero", 2, ("algorithm.k", "greater than or equal to 2"), cfg=(micro(k=0),)),
    C("micro-k-negative", 2, ("algorithm.k",), cfg=(micro(k=-3),)),
    C("micro-k-fraction", 2, ("algorithm.k",), cfg=(micro(k=2.5),)),
    C("micro-k-text", 2, ("algorithm.k",), cfg=(micro(k="three"),)),
    C("micro-k-above-records", 2, ("at least k = 10", "there are 9", "lower k"), cfg=(micro(k=10),)),
    C("micro-unknown-aggr", 2, ("algorithm.aggr", "mean", "onestep"), cfg=(micro(aggr="trim"),)),
    C("micro-aggr-onemedian", 2, ("algorithm.aggr", "median"), cfg=(micro(aggr="onemedian"),)),
    C("micro-aggr-number", 2, ("algorithm.aggr",), cfg=(micro(aggr=1),)),
    # ------------------------------------------------------------------ columns to aggregate
    C("micro-categorical-column", 2, ("numbers", "categorical", "Disease"), cfg=(micro(columns=["Disease"]),)),
    C("micro-sensitive-column", 2, ("sensitive attribute", "insensitive", "Salary"),
      cfg=(micro(columns=["Salary"]),)),
    C("micro-text-insensitive-column", 2, ("numbers", "categorical", "Salary"),
      cfg=(INSENSITIVE_SALARY, micro(columns=["Salary"])), files=(_text_salary,)),
    C("micro-unknown-column", 2, ("not a column of the input", "Income"), cfg=(micro(columns=["Income"]),)),
    C("micro-column-twice", 2, ("named twice", "Age"), cfg=(micro(columns=["Age", "Age"]),)),
    C("micro-no-column", 2, ("at least one column",), cfg=(micro(columns=[]),)),
    C("micro-columns-not-a-list", 2, ("algorithm.columns",), cfg=(micro(columns="Age"),)),
    C("micro-identifier-column", 2, ("not published", "Name"),
      cfg=(put("attributes.Name", {"role": "identifier"}), micro(columns=["Name"])), files=(with_name_column,)),
    C("micro-missing-value", 2, ("needs a value in every record", "missing: suppress", "Salary"),
      cfg=(INSENSITIVE_SALARY, micro(columns=["Age", "Salary"])), files=(_blank_salary,)),
    # ------------------------------------------------------------------ strata
    C("micro-strata-unknown", 2, ("not a column of the input", "Region", "algorithm.strata"),
      cfg=(micro(strata=["Region"]),)),
    C("micro-strata-aggregated", 2, ("strata column", "cannot also be aggregated", "Age"),
      cfg=(micro(strata=["Age"]),)),
    C("micro-strata-twice", 2, ("named twice", "Disease"), cfg=(micro(strata=["Disease", "Disease"]),)),
    C("micro-strata-not-a-list", 2, ("algorithm.strata",), cfg=(micro(strata="Disease"),)),
    C("micro-strata-identifier", 2, ("not published", "Name", "algorithm.strata"),
      cfg=(put("attributes.Name", {"role": "identifier"}), micro(strata=["Name"])), files=(with_name_column,)),
    C("micro-stratum-below-k", 2, ("at least k = 3", "in the stratum Disease=", "merge strata"),
      cfg=(micro(strata=["Disease"]),)),
    C("micro-strata-missing-value", 2, ("needs a value in every record", "Salary", "algorithm.strata"),
      cfg=(INSENSITIVE_SALARY, micro(strata=["Salary"], k=2)), files=(_blank_salary,)),
    # ------------------------------------------------------------------ other options
    C("micro-clusters-not-clustering", 2, ("clusters applies to", "influence", "drop clusters"),
      cfg=(micro(method="pca", clusters=4),)),
    C("micro-clusters-one", 2, ("algorithm.clusters",), cfg=(micro(method="influence", clusters=1),)),
    C("micro-clusters-text", 2, ("algorithm.clusters",), cfg=(micro(method="clustpppca", clusters="many"),)),
    C("micro-noise-option", 2, ("'level' is not an option of microaggregation",), cfg=(micro(level=50),)),
    C("micro-pram-strata-name", 2, ("'by' is not an option of microaggregation",), cfg=(micro(by=["Disease"]),)),
    C("micro-sdcmicro-measure-name", 2, ("'measure' is not an option of microaggregation",),
      cfg=(micro(measure="mean"),)),
    C("micro-whole-release-model", 2, ("average", "whole release", "not microaggregation"),
      cfg=(micro(), add_model({"model": "average-risk", "threshold": 0.5}))),
]
