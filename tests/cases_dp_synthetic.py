"""Bad-input catalogue, DP synthetic data: ``algorithm: {name: dp-synthetic, method: mst|aim, epsilon, delta,
domain: {...}}`` (issue 29 item 2).

Before the algorithm existed every config here was refused as an unknown algorithm; each words list
names what is wrong now. The domain is declared, never read from the data, so a column without a
declaration, a data value outside its declaration (never clipped), a missing value, and every
malformed declaration are refused before any work; so are a budget out of range, δ ≥ 1/n, an
unknown method, AIM's options with MST, AIM's rounds that cannot pay for the one-way marginals, a
differential-privacy model whose ε or δ differs from the algorithm's, and a new-id or weight column
(a synthetic row is no person; a household column is dropped as its role says, never synthesized).
"""

from __future__ import annotations

from bad_input_kit import HEADER, TOY, C, drop, edit_toy, put, write

DOMAIN = {
    "ZIPCode": {"categories": [47677, 47602, 47678, 47905, 47909, 47906, 47605, 47673, 47607]},
    "Age": {"bounds": [20, 60], "bins": 4, "integer": True},
    "Salary": {"bounds": [0, 12], "bins": 4, "integer": True},
    "Disease": {"categories": ["gastric ulcer", "gastritis", "stomach cancer", "colitis", "flu", "bronchitis",
                               "pneumonia"]},
}
BASE = {"name": "dp-synthetic", "epsilon": 1.0, "delta": 1e-3, "domain": DOMAIN}
#: the toy table's nine rows 200 times (1,800 records): large enough for SafePub's k of the model's (ε, δ)
ROWS = ["47677;29;3;gastric ulcer", "47602;22;4;gastritis", "47678;27;5;stomach cancer", "47905;43;6;gastritis",
        "47909;52;11;flu", "47906;47;8;bronchitis", "47605;30;7;bronchitis", "47673;36;9;pneumonia",
        "47607;32;10;stomach cancer"]
LARGE = (write(TOY, HEADER + "\n" + "\n".join(ROWS * 200) + "\n"),)


def synth(**options: object) -> tuple[object, ...]:
    """The toy config under dp-synthetic with ``options`` over :data:`BASE`."""
    return (put("algorithm", {**BASE, **options}),)


def column(name: str, declared: object) -> tuple[object, ...]:
    """The toy config under dp-synthetic with column ``name`` declared as ``declared``."""
    return (put("algorithm", {**BASE, "domain": {**DOMAIN, name: declared}}),)


def without(name: str) -> tuple[object, ...]:
    return (put("algorithm", {**BASE, "domain": {k: v for k, v in DOMAIN.items() if k != name}}),)


def case(case_id: str, words: str | tuple[str, ...], cfg: tuple[object, ...], **kw: object) -> object:
    return C(f"dp-synthetic-{case_id}", 2, words, cfg=cfg, **kw)


CASES = [
    # the domain: declared for every column, never read from the data
    case("no-domain", ("declare every synthesized column's domain", "algorithm.domain"),
         (put("algorithm", {k: v for k, v in BASE.items() if k != "domain"}),)),
    case("empty-domain", ("declare every synthesized column's domain",), synth(domain={})),
    case("column-without-domain", ("needs a declared domain", "Disease", "algorithm.domain.Disease"),
         without("Disease")),
    case("numeric-column-without-domain", ("needs a declared domain", "Salary"), without("Salary")),
    case("domain-of-unknown-column", ("not synthesized", "Height"), column("Height", {"bounds": [0, 2]})),
    case("value-above-bounds", ("outside the bounds", "Age", "52"), column("Age", {"bounds": [20, 50], "bins": 3})),
    case("value-below-bounds", ("outside the bounds", "Age", "29"), column("Age", {"bounds": [30, 60], "bins": 3})),
    case("value-not-a-category", ("not one of the declared categories", "Disease", "flu"),
         column("Disease", {"categories": ["gastric ulcer", "gastritis", "stomach cancer", "bronchitis",
                                           "pneumonia"]})),
    case("zip-not-a-category", ("not one of the declared categories", "ZIPCode", "47607"),
         column("ZIPCode", {"categories": [47677, 47602, 47678, 47905, 47909, 47906, 47605, 47673]})),
    case("text-in-a-numeric-column", ("not a number", "Disease"), column("Disease", {"bounds": [0, 10]})),
    case("fraction-in-integer-column", ("not a whole number", "Salary", "3.5"), synth(),
         files=(edit_toy("47677;29;3;", "47677;29;3.5;"),)),
    case("missing-value", ("needs a value in every record", "Salary"), synth(),
         files=(edit_toy("47905;43;6;gastritis", "47905;43;;gastritis"),)),
    # the declaration's shape
    case("bins-zero", ("bins must be", "algorithm.domain.Age.bins"), column("Age", {"bounds": [20, 60], "bins": 0})),
    case("bins-negative", ("bins must be",), column("Age", {"bounds": [20, 60], "bins": -3})),
    case("bins-fraction", ("bins must be",), column("Age", {"bounds": [20, 60], "bins": 2.5})),
    case("bins-too-many", ("bins must be", "1000"), column("Age", {"bounds": [20, 60], "bins": 5000})),
    case("bounds-reversed", ("lo < hi", "algorithm.domain.Age.bounds"), column("Age", {"bounds": [60, 20]})),
    case("bounds-equal", ("lo < hi",), column("Age", {"bounds": [40, 40]})),
    case("bounds-one-number", ("bounds must be [lo, hi]",), column("Age", {"bounds": [20]})),
    case("bounds-three-numbers", ("bounds must be [lo, hi]",), column("Age", {"bounds": [20, 40, 60]})),
    case("bounds-text", ("finite number",), column("Age", {"bounds": ["twenty", 60]})),
    case("bounds-infinite", ("finite number",), column("Age", {"bounds": [20, float("inf")]})),
    case("bounds-boolean", ("finite number",), column("Age", {"bounds": [False, 60]})),
    case("categories-empty", ("non-empty",), column("Disease", {"categories": []})),
    case("categories-not-a-list", ("non-empty",), column("Disease", {"categories": "flu"})),
    case("category-twice", ("listed twice", "flu"), column("Disease", {"categories": ["flu", "gastritis", "flu"]})),
    case("category-twice-as-text", ("listed twice", "47677"),
         column("ZIPCode", {"categories": [47677, "47677", 47602]})),
    case("categories-and-bounds", ("exactly one of categories or bounds",),
         column("Age", {"categories": [29], "bounds": [20, 60]})),
    case("neither-categories-nor-bounds", ("exactly one of categories or bounds",), column("Age", {"bins": 4})),
    case("unknown-domain-key", ("not a domain key", "algorithm.domain.Age.width"),
         column("Age", {"bounds": [20, 60], "width": 10})),
    case("bins-with-categories", ("goes with bounds",), column("Disease", {"categories": ["flu"], "bins": 2})),
    case("integer-with-categories", ("goes with bounds",), column("Disease", {"categories": ["flu"], "integer": True})),
    case("integer-not-boolean", ("integer must be true or false",),
         column("Age", {"bounds": [20, 60], "integer": "yes"})),
    case("integer-bins-without-whole-numbers", ("holds none", "use fewer bins"),
         column("Age", {"bounds": [20, 22], "bins": 5, "integer": True})),
    case("column-domain-not-a-mapping", ("domain",), column("Age", 5)),
    case("domain-a-list", ("domain",), synth(domain=["Age", "Salary"])),
    # the budget and the method
    case("epsilon-zero", ("epsilon", "greater than 0"), synth(epsilon=0)),
    case("epsilon-negative", ("epsilon", "greater than 0"), synth(epsilon=-1.0)),
    case("epsilon-infinite", ("epsilon",), synth(epsilon=float("inf"))),
    case("epsilon-missing", ("epsilon", "needs this option"),
         (put("algorithm", {k: v for k, v in BASE.items() if k != "epsilon"}),)),
    case("delta-missing", ("delta", "needs this option"),
         (put("algorithm", {k: v for k, v in BASE.items() if k != "delta"}),)),
    case("delta-zero", ("delta", "greater than 0"), synth(delta=0)),
    case("delta-one", ("delta", "less than 1"), synth(delta=1.0)),
    case("delta-at-least-one-over-n", ("not below 1/n = 1/9", "algorithm.delta"), synth(delta=0.2)),
    case("unknown-method", ("method", "pategan"), synth(method="pategan")),
    case("max-model-size-with-mst", ("option of method aim", "algorithm.max_model_size"), synth(max_model_size=10.0)),
    case("rounds-with-mst", ("option of method aim", "algorithm.rounds"), synth(method="mst", rounds=40)),
    case("aim-rounds-too-few", ("rounds must exceed the 4 synthesized columns", "algorithm.rounds"),
         synth(method="aim", rounds=4)),
    case("aim-model-size-zero", ("max_model_size", "greater than 0"), synth(method="aim", max_model_size=0)),
    case("rows-zero", ("rows", "greater than or equal to 1"), synth(rows=0)),
    case("iterations-zero", ("iterations",), synth(iterations=0)),
    case("seeded-not-boolean", ("seeded",), synth(seeded="yes")),
    case("unknown-option", ("'bins' is not an option of dp-synthetic",), synth(bins=4)),
    case("differential-privacy-other-epsilon", ("give the same values", "epsilon 2"),
         (*synth(delta=1e-4), put("privacy", [{"model": "differential-privacy", "epsilon": 2.0, "delta": 1e-4}])),
         files=LARGE),
    case("differential-privacy-other-delta", ("give the same values", "delta 1e-05"),
         (*synth(delta=1e-4), put("privacy", [{"model": "differential-privacy", "epsilon": 1.0, "delta": 1e-5}])),
         files=LARGE),
    # no id or weight column: a synthetic row is no person
    case("new-id-column", ("no new-id column", "ZIPCode"),
         (*without("ZIPCode"), put("attributes.ZIPCode", {"role": "new-id"}))),
    case("weight-column", ("no weight column", "Salary"),
         (*without("Salary"), put("attributes.Salary", {"role": "weight"}))),
    case("identifier-given-a-domain", ("not synthesized", "ZIPCode"),
         (*synth(), put("attributes.ZIPCode", {"role": "identifier"}))),
    case("drop-a-column-from-the-domain", ("needs a declared domain", "ZIPCode"),
         (*synth(), drop("algorithm.domain.ZIPCode"))),
]
