"""Bad-input catalogue, SafePub's (ε, δ)-differential privacy (issue 29): the model
``{model: differential-privacy, epsilon, delta}`` and the algorithm ``safepub``.

Before the model existed every config here was refused as an unknown model; each words list names
what is wrong now: a budget out of range, a δ that allows publishing a whole record (δ ≥ 1/n on the
toy table's rows), the model with an algorithm that does not sample, a suppression limit (SafePub
has none), a transformation given twice or not at all, a search without a budget.
"""

from __future__ import annotations

from bad_input_kit import HEADER, TOY, C, put, write

DP = {"model": "differential-privacy", "epsilon": 2.0, "delta": 1e-6}


def dp(**params: object) -> tuple[object, ...]:
    """The toy config with only the differential-privacy model (``params`` over :data:`DP`)."""
    return (put("privacy", [{**DP, **params}]),)


def safepub(**options: object) -> tuple[object, ...]:
    """The toy config under SafePub, data-independent at ZIPCode 3 / Age 1 unless ``options`` say otherwise."""
    return (*dp(), put("algorithm", {"name": "safepub", **options}))


LEVELS = {"levels": {"ZIPCode": 3, "Age": 1}}
#: the toy table's nine rows 200 times (1,800 records): large enough for k (132 at ε 2, δ 1e-6) and δ < 1/n,
#: so a refusal below comes from the option it names, not from the proof that k exceeds the records
ROWS = ["47677;29;3;gastric ulcer", "47602;22;4;gastritis", "47678;27;5;stomach cancer", "47905;43;6;gastritis",
        "47909;52;11;flu", "47906;47;8;bronchitis", "47605;30;7;bronchitis", "47673;36;9;pneumonia",
        "47607;32;10;stomach cancer"]
LARGE = (write(TOY, HEADER + "\n" + "\n".join(ROWS * 200) + "\n"),)


def big(case_id: str, words: tuple[str, ...], **options: object) -> object:
    """A case over :data:`LARGE` under SafePub with ``options`` (exit 2: bad input, nothing run)."""
    return C(case_id, 2, words, cfg=safepub(**options), files=LARGE)


SEARCH = {"steps": 5, "search_budget": 0.5}

CASES = [
    # the budget
    C("dp-epsilon-zero", 2, ("epsilon",), cfg=(*dp(epsilon=0.0), put("algorithm", {"name": "safepub", **LEVELS}))),
    C("dp-epsilon-negative", 2, ("epsilon",), cfg=(*dp(epsilon=-1.0), put("algorithm", {"name": "safepub", **LEVELS}))),
    C("dp-epsilon-text", 2, ("epsilon",), cfg=(*dp(epsilon="two"), put("algorithm", {"name": "safepub", **LEVELS}))),
    C("dp-epsilon-inf", 2, ("epsilon",),
      cfg=(*dp(epsilon=float("inf")), put("algorithm", {"name": "safepub", **LEVELS}))),
    C("dp-epsilon-bool", 2, ("epsilon",), cfg=(*dp(epsilon=True), put("algorithm", {"name": "safepub", **LEVELS}))),
    C("dp-epsilon-missing", 2, ("epsilon",), cfg=(put("privacy", [{"model": "differential-privacy", "delta": 1e-6}]),
                                                  put("algorithm", {"name": "safepub", **LEVELS}))),
    C("dp-delta-zero", 2, ("delta",), cfg=(*dp(delta=0.0), put("algorithm", {"name": "safepub", **LEVELS}))),
    C("dp-delta-negative", 2, ("delta",), cfg=(*dp(delta=-1e-6), put("algorithm", {"name": "safepub", **LEVELS}))),
    C("dp-delta-one", 2, ("delta",), cfg=(*dp(delta=1.0), put("algorithm", {"name": "safepub", **LEVELS}))),
    C("dp-delta-above-one", 2, ("delta",), cfg=(*dp(delta=2.0), put("algorithm", {"name": "safepub", **LEVELS}))),
    C("dp-delta-missing", 2, ("delta",), cfg=(put("privacy", [{"model": "differential-privacy", "epsilon": 1.0}]),
                                              put("algorithm", {"name": "safepub", **LEVELS}))),
    C("dp-delta-not-below-1-over-n", 2, ("delta", "1/n"),
      cfg=(*dp(delta=0.4), put("algorithm", {"name": "safepub", **LEVELS}))),
    C("dp-search-budget-not-a-model-key", 2, ("search_budget",), cfg=(*dp(search_budget=1.0),
                                                                      put("algorithm", {"name": "safepub", **LEVELS}))),
    # the model with an algorithm that does not sample
    C("dp-with-fixed", 2, ("differential-privacy", "safepub", "algorithm.name"), cfg=dp()),
    C("dp-with-flash", 2, ("differential-privacy", "safepub"), cfg=(*dp(), put("algorithm", {"name": "flash"}))),
    C("dp-with-mondrian", 2, ("differential-privacy", "safepub"), cfg=(*dp(), put("algorithm", {"name": "mondrian"}))),
    C("dp-with-ola", 2, ("differential-privacy", "safepub"), cfg=(*dp(), put("algorithm", {"name": "ola"}))),
    C("dp-with-local-suppression", 2, ("differential-privacy", "safepub"),
      cfg=(*dp(), put("algorithm", {"name": "local-suppression"}))),
    C("safepub-without-dp", 2, ("safepub", "differential-privacy"),
      cfg=(put("algorithm", {"name": "safepub", **LEVELS}),)),
    # suppression: SafePub has no limit (every class smaller than k is suppressed)
    C("safepub-max-suppression", 2, ("max_suppression", "not an option of safepub"),
      cfg=safepub(**LEVELS, max_suppression=0.1)),
    C("safepub-max-suppression-zero", 2, ("max_suppression",), cfg=safepub(**LEVELS, max_suppression=0.0)),
    # the transformation: exactly one of levels, degree, steps
    C("safepub-degree-unknown", 2, ("degree",), cfg=safepub(degree="very-high")),
    # the data-dependent search
    C("safepub-budget-negative", 2, ("search_budget",), cfg=safepub(steps=5, search_budget=-1.0)),
    C("safepub-steps-zero", 2, ("steps",), cfg=safepub(steps=0, search_budget=1.0)),
    C("safepub-steps-text", 2, ("steps",), cfg=safepub(steps="ten", search_budget=1.0)),
    C("safepub-seeded-text", 2, ("seeded",), cfg=safepub(**LEVELS, seeded="yes")),
    # the toy table (9 records) is too small for any class of k (ε 2, δ 1e-6: k 132): refused before any work
    C("safepub-toy-too-small", 2, ("needs classes of 132 records", "only 9"), cfg=safepub(**LEVELS)),
    # options that go together, refused when the options are validated (before any work; on a table large
    # enough for k, so these and not "k > n" are what is refused)
    big("safepub-no-transformation", ("exactly one of levels, degree", "algorithm.levels")),
    big("safepub-levels-and-degree", ("exactly one of", "got levels and degree", "algorithm.degree"),
        **LEVELS, degree="low"),
    big("safepub-levels-and-steps", ("exactly one of", "got levels and steps"), **LEVELS, **SEARCH),
    big("safepub-degree-and-steps", ("exactly one of", "got degree and steps", "algorithm.steps"),
        degree="high", **SEARCH),
    big("safepub-all-three", ("got levels and degree and steps",), **LEVELS, degree="high", **SEARCH),
    big("safepub-budget-without-steps", ("search_budget is spent only by the data-dependent search",
                                         "algorithm.search_budget"), **LEVELS, search_budget=0.5),
    big("safepub-budget-with-degree", ("search_budget", "give steps, or drop it"), degree="medium",
        search_budget=0.5),
    big("safepub-steps-without-budget", ("needs a search_budget above 0", "algorithm.search_budget"), steps=5),
    big("safepub-steps-zero-budget", ("needs a search_budget above 0",), steps=5, search_budget=0.0),
    big("safepub-budget-equals-epsilon", ("search_budget must be below epsilon (2)",), steps=5, search_budget=2.0),
    big("safepub-budget-above-epsilon", ("search_budget must be below epsilon",), steps=5, search_budget=3.5),
    big("safepub-budget-infinite", ("search_budget", "finite"), steps=5, search_budget=float("inf")),
    big("safepub-budget-text", ("search_budget",), steps=5, search_budget="half"),
    big("safepub-steps-fraction", ("steps",), steps=2.5, search_budget=0.5),
    big("safepub-steps-too-many", ("steps", "100000"), steps=100_001, search_budget=0.5),
    big("safepub-steps-negative", ("steps",), steps=-3, search_budget=0.5),
    big("safepub-degree-number", ("degree",), degree=0.5),
    # the levels, checked against the quasi-identifiers before the proofs that the models cannot be met
    big("safepub-levels-unknown-column", ("not a quasi-identifier", "Salary"), levels={"ZIPCode": 3, "Salary": 1}),
    big("safepub-levels-misspelt-column", ("not a quasi-identifier", "Zipcode"), levels={"Zipcode": 3}),
    big("safepub-levels-above-height", ("level must lie in [0, 5]", "ZIPCode"), levels={"ZIPCode": 6, "Age": 1}),
    big("safepub-levels-negative", ("level must lie in [0, 2]", "Age"), levels={"ZIPCode": 3, "Age": -1}),
    big("safepub-levels-list-short", ("levels must list 2 values", "got 1"), levels=[3]),
    big("safepub-levels-list-long", ("levels must list 2 values", "got 3"), levels=[3, 1, 0]),
    big("safepub-levels-list-out-of-range", ("level must lie in [0, 2]",), levels=[3, 7]),
    big("safepub-levels-text", ("levels",), levels="medium"),
    big("safepub-levels-value-text", ("levels",), levels={"ZIPCode": "3", "Age": 1}),
    big("safepub-levels-value-bool", ("levels",), levels={"ZIPCode": True, "Age": 1}),
    # the search's metric: ARX scores the data-dependent search by Loss only
    big("safepub-search-metric-dm", ("scores transformations by loss only, not dm", "algorithm.metric"), **SEARCH,
        metric="dm"),
    big("safepub-search-metric-entropy", ("scores transformations by loss only",), **SEARCH,
        metric={"name": "entropy"}),
    # δ against the large table's 1,800 records: refused below 1/n as on the toy table
    C("safepub-large-delta-not-below-1-over-n", 2, ("1/n = 1/1800",),
      cfg=(*dp(delta=1e-3), put("algorithm", {"name": "safepub", **LEVELS})), files=LARGE),
]
