"""Bad-input catalogue, population models and research subsets (issue 27): k-map, estimated k-map,
δ-presence and ``input.subset``.

Before these existed, every model name below was an unknown model and ``input.subset`` an unknown
key; each case now names what is wrong in one line: a population model without a population, an
algorithm that cannot count it, a subset that selects nothing or rows the input does not have, a
subset file whose row is no input row, bad parameters.
"""

from __future__ import annotations

from bad_input_kit import C, add_model, put, write

KMAP = {"model": "k-map", "k": 2}
PRESENCE = {"model": "delta-presence", "dmax": 0.9}
ROWS = put("input.subset", {"rows": [1, 2, 3, 4, 5]})
HEADER = "ZIPCode;Age;Salary;Disease\n"

CASES = [
    # a population model needs a population
    C("kmap-without-subset", 2, ("2-map", "counts the population", "input.subset"), cfg=(add_model(KMAP),)),
    C("presence-without-subset", 2, ("presence", "input.subset"), cfg=(add_model(PRESENCE),)),
    # only full-domain algorithms count the population per class
    C("presence-kaca", 2, ("kaca", "cannot enforce"),
      cfg=(ROWS, add_model(PRESENCE), put("algorithm", {"name": "kaca"}))),
    # parameters
    C("kmap-k-zero", 2, ("privacy.1", "k"), cfg=(ROWS, add_model({"model": "k-map", "k": 0}))),
    C("kmap-k-text", 2, ("privacy.1", "k"), cfg=(ROWS, add_model({"model": "k-map", "k": "3"}))),
    C("kmap-unknown-key", 2, ("privacy.1", "estimator"),
      cfg=(ROWS, add_model({"model": "k-map", "k": 3, "estimator": "poisson"}))),
    C("presence-dmax-above-1", 2, ("dmax",), cfg=(ROWS, add_model({"model": "delta-presence", "dmax": 1.5}))),
    C("presence-dmin-negative", 2, ("dmin",),
      cfg=(ROWS, add_model({"model": "delta-presence", "dmax": 0.5, "dmin": -0.1}))),
    C("presence-dmin-above-dmax", 2, ("dmin", "above dmax"),
      cfg=(ROWS, add_model({"model": "delta-presence", "dmax": 0.2, "dmin": 0.5}))),
    C("presence-no-dmax", 2, ("dmax",), cfg=(ROWS, add_model({"model": "delta-presence"}))),
    C("estimated-no-population-size", 2, ("population_size",),
      cfg=(add_model({"model": "estimated-k-map", "k": 3}),)),
    C("estimated-bad-estimator", 2, ("estimator",),
      cfg=(add_model({"model": "estimated-k-map", "k": 3, "population_size": 100, "estimator": "gauss"}),)),
    C("estimated-significance-above-1", 2, ("significance",),
      cfg=(add_model({"model": "estimated-k-map", "k": 3, "population_size": 100, "significance": 2.0}),)),
    C("estimated-population-below-records", 2, ("population_size", "smaller than the records"),
      cfg=(add_model({"model": "estimated-k-map", "k": 3, "population_size": 5}),)),
    # input.subset's shape
    C("subset-empty-mapping", 2, ("input.subset", "exactly one"), cfg=(put("input.subset", {}),)),
    C("subset-two-ways", 2, ("input.subset", "exactly one"),
      cfg=(put("input.subset", {"rows": [1], "where": {"Age": ["29"]}}),)),
    C("subset-unknown-key", 2, ("input.subset", "columns"), cfg=(put("input.subset", {"columns": ["Age"]}),)),
    C("subset-rows-zero", 2, ("input.subset.rows",), cfg=(put("input.subset", {"rows": [0, 1]}),)),
    C("subset-rows-empty", 2, ("input.subset.rows",), cfg=(put("input.subset", {"rows": []}),)),
    C("subset-rows-text", 2, ("input.subset.rows",), cfg=(put("input.subset", {"rows": ["1"]}),)),
    C("subset-separator-without-path", 2, ("separator", "subset file"),
      cfg=(put("input.subset", {"rows": [1], "separator": ";"}),)),
    # input.subset against the data
    C("subset-row-beyond", 2, ("row 10", "beyond", "9 rows"), cfg=(put("input.subset", {"rows": [1, 10]}),)),
    C("subset-row-twice", 2, ("given twice",), cfg=(put("input.subset", {"rows": [2, 2]}),)),
    C("subset-where-unknown-column", 2, ("unknown column", "Town"),
      cfg=(put("input.subset", {"where": {"Town": ["x"]}}),)),
    C("subset-where-selects-nothing", 2, ("selects no row",),
      cfg=(put("input.subset", {"where": {"Disease": ["measles"]}}),)),
    C("subset-file-missing", 2, ("sub.csv",), cfg=(put("input.subset", {"path": "sub.csv"}),)),
    C("subset-file-row-not-in-input", 2, ("matches no row", "row 2"),
      cfg=(put("input.subset", {"path": "sub.csv", "separator": ";"}),),
      files=(write("sub.csv", HEADER + "47677;29;3;gastric ulcer\n47677;30;3;gastric ulcer\n"),)),
    C("subset-file-row-twice", 2, ("matches no row", "row 2"),
      cfg=(put("input.subset", {"path": "sub.csv", "separator": ";"}),),
      files=(write("sub.csv", HEADER + "47677;29;3;gastric ulcer\n47677;29;3;gastric ulcer\n"),)),
    C("subset-file-other-columns", 2, ("columns are not the input's",),
      cfg=(put("input.subset", {"path": "sub.csv", "separator": ";"}),),
      files=(write("sub.csv", "ZIPCode;Age;Salary\n47677;29;3\n"),)),
    C("subset-file-empty", 2, ("sub.csv",),
      cfg=(put("input.subset", {"path": "sub.csv", "separator": ";"}),), files=(write("sub.csv", ""),)),
    # models that cannot be met exit 1
    C("kmap-k-above-population", 1, ("cannot be met",), cfg=(ROWS, add_model({"model": "k-map", "k": 10}))),
    C("presence-dmax-below-share", 1, ("cannot be met",),
      cfg=(ROWS, add_model({"model": "delta-presence", "dmax": 0.1}), put("algorithm.levels.ZIPCode", 0))),
]
