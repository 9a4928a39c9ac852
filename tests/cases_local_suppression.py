"""Bad-input catalogue, local suppression (issue 28, item 3): ``algorithm: {name: local-suppression, …}``
refuses in one line, before any work, what it cannot do — an importance list that is not every
quasi-identifier once, levels outside the hierarchies, the exact method on a table too large for it,
models it cannot enforce with wildcard cells (other models, k on some attributes, a second sensitive
attribute), a value that would read as a suppressed cell, a person column — and says "cannot be met"
(exit 1) when ``max_cells`` or the models cannot hold.

Before the algorithm existed every case was refused as an unknown algorithm, so none of these lines was said;
before strata, combs and households (items 1, 3, 7) each of those options was refused as "not an option".
"""

from __future__ import annotations

from bad_input_kit import HEADER, C, add_model, edit_toy, put, write

NAME = "local-suppression"


def _ls(**options: object):
    return put("algorithm", {"name": NAME, **options})


_BIG = write("test2.csv", HEADER + "\n" + "\n".join(
    f"4760{i % 8};{20 + i % 30};{i};flu" for i in range(70)) + "\n")
_FLAT = (put("attributes.ZIPCode", {"role": "quasi"}), put("attributes.Age", {"role": "quasi"}))
_AGES = "".join(f"{a};{'young' if a < 35 else 'old'};all\n" for a in (29, 22, 27, 43, 52, 47, 30, 36, 32))
DL = {"model": "l-diversity", "attribute": "Disease", "l": 2, "variant": "distinct"}

CASES = [
    # importance: every quasi-identifier once, most important first
    C("ls-importance-unknown", 2, ("importance", "not a quasi-identifier", "Salary"),
      cfg=(_ls(importance=["Age", "Salary"]),)),
    C("ls-importance-missing-qi", 2, ("importance", "every quasi-identifier once", "ZIPCode"),
      cfg=(_ls(importance=["Age"]),)),
    C("ls-importance-repeated", 2, ("importance", "every quasi-identifier once", "Age"),
      cfg=(_ls(importance=["Age", "Age", "ZIPCode"]),)),
    C("ls-importance-empty", 2, ("importance", "every quasi-identifier once"), cfg=(_ls(importance=[]),)),
    C("ls-importance-text", 2, ("importance",), cfg=(_ls(importance="Age"),)),
    C("ls-importance-number", 2, ("importance",), cfg=(_ls(importance=[1, 2]),)),
    # method and the exact variant's size
    C("ls-method-unknown", 2, ("method", "heuristic", "optimal"), cfg=(_ls(method="greedy"),)),
    C("ls-method-number", 2, ("method",), cfg=(_ls(method=1),)),
    C("ls-optimal-too-large", 2, ("optimal", "at most 64 records", "70", "method heuristic"),
      cfg=(_ls(method="optimal"), *_FLAT), files=(_BIG,)),
    C("ls-optimal-too-many-attributes", 2, ("optimal", "at most 4 quasi-identifiers", "5", "method heuristic"),
      cfg=(_ls(method="optimal"), *_FLAT, put("attributes.Salary", {"role": "quasi", "type": "categorical"}),
           put("attributes.Disease", {"role": "quasi"}), put("attributes.Extra", {"role": "quasi"})),
      files=(write("test2.csv", HEADER + ";Extra\n" + "".join(f"4767{i};{20 + i};{i};flu;x\n" for i in range(9))),)),
    # recoding first: levels as the fixed algorithm takes them
    C("ls-levels-unknown", 2, ("levels", "not a quasi-identifier", "Salary"), cfg=(_ls(levels={"Salary": 1}),)),
    C("ls-levels-too-high", 2, ("level must lie in [0, 2]", "Age"), cfg=(_ls(levels={"Age": 3}),)),
    C("ls-levels-negative", 2, ("level must lie in", "ZIPCode"), cfg=(_ls(levels={"ZIPCode": -1}),)),
    C("ls-levels-text", 2, ("levels",), cfg=(_ls(levels={"Age": "one"}),)),
    C("ls-levels-list", 2, ("levels",), cfg=(_ls(levels=[1, 2]),)),
    # max_cells and missing_cells
    C("ls-max-cells-negative", 2, ("max_cells", "greater than or equal to 0"), cfg=(_ls(max_cells=-1),)),
    C("ls-max-cells-share", 2, ("max_cells",), cfg=(_ls(max_cells=0.5),)),
    C("ls-max-cells-text", 2, ("max_cells",), cfg=(_ls(max_cells="ten"),)),
    C("ls-missing-cells-unknown", 2, ("missing_cells", "value", "wildcard"), cfg=(_ls(missing_cells="skip"),)),
    C("ls-max-suppression-not-an-option", 2, ("max_suppression", "not an option of local-suppression"),
      cfg=(_ls(max_suppression=0.1),)),
    C("ls-max-cells-exceeded", 1, ("cannot be met", "more than max_cells = 1", "algorithm.max_cells"),
      cfg=(_ls(max_cells=1),)),
    C("ls-max-cells-zero", 1, ("cannot be met", "max_cells = 0"), cfg=(_ls(max_cells=0),)),
    # models: what wildcard cells can be judged by
    C("ls-tcloseness", 2, (NAME, "not", "t-closeness", "choose another algorithm"),
      cfg=(_ls(), add_model({"model": "t-closeness", "attribute": "Disease", "t": 0.5}))),
    C("ls-entropy-l", 2, (NAME, "not", "entropy", "choose another algorithm"),
      cfg=(_ls(), add_model({"model": "l-diversity", "attribute": "Disease", "l": 2, "variant": "entropy"}))),
    C("ls-recursive-l", 2, (NAME, "not", "recursive"),
      cfg=(_ls(), add_model({"model": "l-diversity", "attribute": "Disease", "l": 2, "c": 2,
                                               "variant": "recursive"}))),
    C("ls-k-on-attributes", 2, (NAME, "k-anonymity on some attributes"),
      cfg=(_ls(), put("privacy", [{"model": "k-anonymity", "k": 2, "attributes": ["Age"]}]))),
    C("ls-two-sensitive", 2, (NAME, "a second sensitive attribute"),
      cfg=(_ls(), add_model(DL), add_model({"model": "l-diversity", "attribute": "Salary", "l": 2,
                                             "variant": "distinct"}))),
    C("ls-average-risk", 2, ("average", "local-suppression"),
      cfg=(_ls(), add_model({"model": "average-risk", "threshold": 0.5}))),
    C("ls-k-map", 2, ("2-map",), cfg=(_ls(), add_model({"model": "k-map", "k": 2}),
                                      put("input.subset", {"rows": [1, 2, 3, 4, 5]}))),
    C("ls-l-unreachable", 1, ("cannot be met", "Disease"), cfg=(_ls(), add_model({**DL, "l": 8}))),
    C("ls-k-too-large", 2, ("k", "only 9"), cfg=(_ls(), put("privacy.0.k", 12))),
    # the marker: a published value '*' would read as a suppressed cell
    C("ls-marker-in-data", 2, ("'*'", "suppressed cell", "Age"),
      cfg=(_ls(), put("attributes.Age.hierarchy", "h_age.csv")),
      files=(edit_toy(";29;", ";*;"), write("h_age.csv", _AGES.replace("29;", "*;")))),
    C("ls-marker-recoded-label", 2, ("'*'", "suppressed cell", "Age"),
      cfg=(_ls(levels={"Age": 1}), put("attributes.Age.hierarchy", "h_age.csv")),
      files=(write("h_age.csv", _AGES.replace("young", "*")),)),
    # a person column: records are counted one by one
    C("ls-person-column", 2, ("counts records, not persons",),
      cfg=(_ls(), put("attributes.Salary", {"role": "person"}))),
    # the options of other algorithms
    C("ls-mode-not-an-option", 2, ("'mode' is not an option of local-suppression",), cfg=(_ls(mode="strict"),)),
    C("ls-k-option", 2, ("'k' is not an option of local-suppression",), cfg=(_ls(k=3),)),
]

# ---------------------------------------------------------------- strata, key combinations, households (items 1, 3, 7)
_HH_ROWS = ("47677;29;3;gastric ulcer;1", "47602;22;4;gastritis;1", "47678;27;5;stomach cancer;1",
            "47905;43;6;gastritis;2", "47909;52;11;flu;2", "47906;47;8;bronchitis;2",
            "47605;30;7;bronchitis;3", "47673;36;9;pneumonia;3", "47607;32;10;stomach cancer;3")
_HH = write("test2.csv", HEADER + ";HH\n" + "\n".join(_HH_ROWS) + "\n")
_HH_ROLE = put("attributes.HH", {"role": "household"})
_REGION = write("test2.csv", HEADER + ";Region\n" + "\n".join(
    r.rsplit(";", 1)[0] + (";north" if i < 7 else ";south") for i, r in enumerate(_HH_ROWS)) + "\n")
_REGION_ROLE = put("attributes.Region", {"role": "insensitive"})

CASES += [
    # strata: published columns that are not keys
    C("ls-strata-unknown", 2, ("strata", "column the table does not have", "Region"), cfg=(_ls(strata=["Region"]),)),
    C("ls-strata-is-a-key", 2, ("'Age' is a quasi-identifier and a stratum", "remove it"),
      cfg=(_ls(strata=["Age"]),)),
    C("ls-strata-identifier", 2, ("stratum column is published unchanged", "identifier", "Salary"),
      cfg=(_ls(strata=["Salary"]), put("attributes.Salary", {"role": "identifier"}))),
    C("ls-strata-household", 2, ("stratum column", "household", "HH"),
      cfg=(_ls(strata=["HH"]), _HH_ROLE), files=(_HH,)),
    C("ls-strata-empty", 2, ("strata is empty",), cfg=(_ls(strata=[]),)),
    C("ls-strata-twice", 2, ("strata name a column twice", "Disease"), cfg=(_ls(strata=["Disease", "Disease"]),)),
    C("ls-strata-text", 2, ("option 'strata'", "valid list"), cfg=(_ls(strata="Disease"),)),
    C("ls-strata-number", 2, ("option 'strata'", "valid string"), cfg=(_ls(strata=[1]),)),
    C("ls-stratum-smaller-than-k", 1, ("stratum Disease=", "fewer than k = 3", "merge strata or lower k"),
      cfg=(_ls(strata=["Disease"]),)),
    C("ls-stratum-south-smaller-than-k", 1, ("stratum Region=south", "2 records", "fewer than k = 3"),
      cfg=(_ls(strata=["Region"]), _REGION_ROLE), files=(_REGION,)),
    C("ls-stratum-fewer-l-values", 1, ("stratum Region=", "distinct value", "fewer than l = 3", "merge strata"),
      cfg=(_ls(strata=["Region"]), _REGION_ROLE, put("privacy.0.k", 2), add_model({**DL, "l": 3})),
      files=(_REGION,)),
    # combs: sizes of key subsets, each with its k
    C("ls-combs-zero", 2, ("combs", "greater than or equal to 1"), cfg=(_ls(combs=[0]),)),
    C("ls-combs-too-large", 2, ("a size in combs must lie in [1, 2]", "3"), cfg=(_ls(combs=[3]),)),
    C("ls-combs-empty", 2, ("combs is empty",), cfg=(_ls(combs=[]),)),
    C("ls-combs-twice", 2, ("combs lists a size twice",), cfg=(_ls(combs=[1, 1]),)),
    C("ls-combs-text", 2, ("option 'combs'", "valid list"), cfg=(_ls(combs="all"),)),
    C("ls-combs-k-length", 2, ("combs_k gives 1 values for 2 sizes", "one k per size"),
      cfg=(_ls(combs=[1, 2], combs_k=[4]),)),
    C("ls-combs-k-longer", 2, ("combs_k gives 3 values for 1 sizes",), cfg=(_ls(combs=[1], combs_k=[4, 3, 2]),)),
    C("ls-combs-k-without-combs", 2, ("combs_k", "give combs too"), cfg=(_ls(combs_k=[4]),)),
    C("ls-combs-k-zero", 2, ("combs_k", "greater than or equal to 1"), cfg=(_ls(combs=[1], combs_k=[0]),)),
    C("ls-combs-k-above-records", 1, ("fewer than k = 12", "lower k"), cfg=(_ls(combs=[1], combs_k=[12]),)),
    C("ls-combs-optimal", 2, ("method optimal does not solve key combinations", "method heuristic"),
      cfg=(_ls(combs=[1], method="optimal"),)),
    # households kept together
    C("ls-households-unknown", 2, ("households", "independent", "together"), cfg=(_ls(households="merged"),)),
    C("ls-households-no-role", 2, ("households: together needs a column with role household",),
      cfg=(_ls(households="together", household_keys=["ZIPCode"]),)),
    C("ls-household-keys-without-together", 2, ("household_keys", "households: together"),
      cfg=(_ls(household_keys=["ZIPCode"]), _HH_ROLE), files=(_HH,)),
    C("ls-households-no-keys", 2, ("households: together needs household_keys",),
      cfg=(_ls(households="together"), _HH_ROLE), files=(_HH,)),
    C("ls-household-keys-not-qi", 2, ("household_keys", "not a quasi-identifier", "Disease"),
      cfg=(_ls(households="together", household_keys=["Disease"]), _HH_ROLE), files=(_HH,)),
    C("ls-household-keys-twice", 2, ("household_keys name an attribute twice", "ZIPCode"),
      cfg=(_ls(households="together", household_keys=["ZIPCode", "ZIPCode"]), _HH_ROLE), files=(_HH,)),
    C("ls-household-key-differs", 2, ("'ZIPCode' differs within a household", "not a household-level key"),
      cfg=(_ls(households="together", household_keys=["ZIPCode"]), _HH_ROLE), files=(_HH,)),
    C("ls-households-optimal", 2, ("method optimal does not solve households kept together",),
      cfg=(_ls(households="together", household_keys=["ZIPCode"], method="optimal"), _HH_ROLE),
      files=(_HH, edit_toy("47602", "47677"))),
]
