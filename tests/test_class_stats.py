"""Class statistics are built in one place from what the models declare they need
(:func:`anonkit.stats.class_stats_for`).

* the builder computes exactly what the needs ask: sizes always, a histogram only for the attribute
  of a model that declares ``histogram``, a registered extra need only when a model declares it;
* every construction site that moved to it gives the numbers (and dtypes) of its old hand-made
  construction, on random data (hypothesis);
* a new model with a new need (a toy per-class population count, δ-presence-like) plugs in with one
  model class, its declaration and one :func:`register_class_need` — a test-local model, not shipped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import anonkit.stats
from anonkit.errors import InputError
from anonkit.models import (
    BackgroundKnowledge,
    DistinctLDiversity,
    KAnonymity,
    TCloseness,
    ThetaSensitivity,
)
from anonkit.models import spec as model_spec
from anonkit.models.base import Criterion
from anonkit.models.spec import Param, privacy_model
from anonkit.stats import (
    CLASS_NEED_BUILDERS,
    ClassInputs,
    ClassStats,
    SensitiveDomain,
    build_domain,
    class_stats,
    class_stats_for,
    model_needs,
    register_class_need,
)


def _domain(name: str, s: int) -> SensitiveDomain:
    labels = np.array([f"v{j}" for j in range(s)], dtype=object)
    return SensitiveDomain(name, labels, np.full(s, 1.0 / s))


@st.composite
def rows(draw, max_attrs: int = 2):
    """Random rows: their class, a weight, and codes of up to ``max_attrs`` sensitive attributes."""
    n_classes = draw(st.integers(1, 8))
    n = draw(st.integers(0, 40))
    cls = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)), dtype=np.int64)
    weights = np.array(draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)), dtype=np.int64)
    attrs = {}
    for a in range(draw(st.integers(1, max_attrs))):
        s = draw(st.integers(1, 5))
        codes = np.array(draw(st.lists(st.integers(0, s - 1), min_size=n, max_size=n)), dtype=np.int32)
        attrs[f"S{a}"] = (s, codes)
    return cls, n_classes, weights, attrs


# ------------------------------------------------------------------------------ what the needs ask
def test_k_anonymity_alone_builds_no_histogram() -> None:
    cls = np.array([0, 0, 1, 2, 2, 2])
    codes = np.array([0, 1, 1, 0, 0, 1], dtype=np.int32)
    stats = class_stats_for([KAnonymity(2)], cls, 3, sensitive={"S": (None, codes, None)},
                            domains={"S": _domain("S", 2)})
    assert stats.hist == {} and stats.extra == {}
    assert stats.sizes.tolist() == [2.0, 1.0, 3.0] and stats.sizes.dtype == np.float64
    assert model_needs([KAnonymity(2)]) == {"sizes"}


def test_t_closeness_builds_its_attribute_only() -> None:
    cls = np.array([0, 0, 1, 1])
    a = np.array([0, 1, 1, 1], dtype=np.int32)
    b = np.array([2, 2, 0, 1], dtype=np.int32)
    domains = {"A": _domain("A", 2), "B": _domain("B", 3)}
    sensitive = {"A": (None, a, None), "B": (None, b, None)}
    stats = class_stats_for([KAnonymity(2), TCloseness("A", 0.5)], cls, 2, sensitive=sensitive, domains=domains)
    assert list(stats.hist) == ["A"]
    assert stats.hist["A"].tolist() == [[1, 1], [0, 2]]
    both = class_stats_for([DistinctLDiversity("B", 2), TCloseness("A", 0.5)], cls, 2, sensitive=sensitive,
                           domains=domains)
    assert list(both.hist) == ["A", "B"]  # the order of ``sensitive``
    assert both.hist["B"].tolist() == [[0, 0, 2], [1, 1, 0]]


def test_every_histogram_model_gets_its_histogram() -> None:
    """Every shipped model about an attribute declares ``histogram``: the builder builds it for each."""
    cls = np.array([0, 1, 1])
    codes = np.array([0, 1, 0], dtype=np.int32)
    dom = _domain("S", 2)
    dom = SensitiveDomain("S", dom.labels, dom.reference, category=np.array([0, 1]), category_labels=("lo", "hi"))
    for m in (ThetaSensitivity("S", 2), BackgroundKnowledge("S", 0.3), DistinctLDiversity("S", 2)):
        stats = class_stats_for([m], cls, 2, sensitive={"S": (None, codes, None)}, domains={"S": dom})
        assert stats.hist["S"].tolist() == [[1, 0], [1, 1]], m


def test_a_missing_histogram_is_refused_and_a_sizes_model_is_not() -> None:
    cls = np.array([0, 1])
    with pytest.raises(InputError, match="needs a sensitive attribute"):
        class_stats_for([TCloseness("S", 0.5)], cls, 2)
    assert class_stats_for([KAnonymity(1)], cls, 2).sizes.tolist() == [1.0, 1.0]  # control


# ------------------------------------------------------------------------------ the sites, old vs new
@settings(max_examples=60)
@given(rows())
def test_full_builder_equals_class_stats(data) -> None:
    """The generic builder (tables, the verifier, local recoding) and the needs builder agree when the
    models need every attribute, with or without weights and with row lists."""
    cls, n_classes, weights, attrs = data
    domains = {a: _domain(a, s) for a, (s, _) in attrs.items()}
    pairs = {a: (np.arange(len(cls)), codes, weights.astype(float)) for a, (_, codes) in attrs.items()}
    old = class_stats(cls, n_classes, weights, pairs, domains)
    models = [DistinctLDiversity(a, 1) for a in attrs]
    new = class_stats_for(models, cls, n_classes, weights=weights, sensitive=pairs, domains=domains)
    _same(old, new, dtypes=len(cls) > 0)  # the needs builder's histograms are float64 even for no rows
    ident = {a: (None, codes, weights.astype(float)) for a, (_, codes) in attrs.items()}
    _same(old, class_stats_for(models, cls, n_classes, weights=weights, sensitive=ident, domains=domains),
          dtypes=len(cls) > 0)


@settings(max_examples=60)
@given(rows())
def test_spark_verdicts_site(data) -> None:
    """engines/_spark_classes._verdicts: sizes and one histogram per protected attribute, weighted."""
    cls, n_final, weight, attrs = data
    assume(len(cls) > 0)  # a Spark partition has rows (its first names it); no rows would give int64 sizes
    domains = {a: _domain(a, s) for a, (s, _) in attrs.items()}
    names = list(attrs)
    codes = np.stack([attrs[a][1] for a in names]) if names else np.zeros((0, len(cls)), dtype=np.int32)
    sizes = np.bincount(cls, weights=weight, minlength=n_final)  # the old construction, verbatim
    hist = {}
    for a, name in enumerate(names):
        S = domains[name].size
        hist[name] = np.bincount(cls * S + codes[a], weights=weight, minlength=n_final * S)
        hist[name] = hist[name].reshape(n_final, S).astype(np.float64)
    old = ClassStats(sizes.astype(np.float64), hist, domains)
    models = [KAnonymity(1), *(DistinctLDiversity(a, 1) for a in names)]
    new = class_stats_for(models, cls, n_final, weights=weight, domains=domains,
                          sensitive={name: (None, codes[a], weight) for a, name in enumerate(names)})
    _same(old, new)
    assert np.array_equal(sizes, new.sizes) and sizes.dtype == new.sizes.dtype  # the sizes it returns


@settings(max_examples=60)
@given(rows(max_attrs=1), st.booleans())
def test_sizes_only_sites(data, weighted) -> None:
    """verifier._model_result, search._release, local._subset_fixpoint, transform: k-anonymity on
    a grouping, sizes only (weighted by float or int weights, or unweighted)."""
    cls, n, weights, _ = data
    m = KAnonymity(2)
    w = weights.astype(float) if weighted else None
    domains = {"S": _domain("S", 2)}
    for old in (
        ClassStats(np.bincount(cls, weights=w, minlength=n).astype(float), {}, domains),  # verifier
        ClassStats(np.bincount(cls, weights=w, minlength=n).astype(float), {}, {}),  # _release, local
    ):
        new = class_stats_for((m,), cls, n, weights=w, domains=old.domains or None)
        _same(old, new)
        assert np.array_equal(m.passes(old), m.passes(new))
    kept = weights.astype(float)  # transform: float weights, the sizes as bincount gives them
    old_sizes = np.bincount(cls, weights=kept, minlength=n)
    new = class_stats_for((m,), cls, n, weights=kept)
    assert np.array_equal(old_sizes, new.sizes) and new.hist == {}
    assert old_sizes.dtype == new.sizes.dtype or len(cls) == 0  # no tuples: bincount gave int64, now float64
    old_ok = m.passes(ClassStats(old_sizes, {}, {})) | (old_sizes == 0)
    assert np.array_equal(old_ok, m.passes(new) | (new.sizes == 0))


@settings(max_examples=60)
@given(rows(), st.data())
def test_derived_sites(data, draw) -> None:
    """rollup (``with_counts``) and cluster._merge (``with_counts`` sharing the arrays, then ``subset``)."""
    cls, n, _, attrs = data
    domains = {a: _domain(a, s) for a, (s, _) in attrs.items()}
    pairs = {a: (np.arange(len(cls)), codes, None) for a, (_, codes) in attrs.items()}
    base = class_stats(cls, n, None, pairs, domains)
    sizes = base.sizes.copy()
    hist = {a: h.astype(np.float64) for a, h in base.hist.items()}
    _same(ClassStats(sizes, hist, base.domains), base.with_counts(sizes, hist))  # rollup
    whole = base.with_counts(sizes, hist)
    ids = np.array(draw.draw(st.lists(st.integers(0, n - 1), max_size=n)), dtype=np.int64)
    sizes[0] += 7  # a merge updates the shared arrays in place: the subset sees it
    for h in hist.values():
        h[0] += 1
    _same(ClassStats(sizes[ids], {a: h[ids] for a, h in hist.items()}, domains), whole.subset(ids))


def test_cluster_merge_sees_in_place_updates() -> None:
    """The merger's view of every class is its live arrays, as before."""
    base = class_stats(np.array([0, 1, 1]), 2, None, {"S": (np.arange(3), np.array([0, 1, 1]), None)},
                       {"S": _domain("S", 2)})
    sizes, hist = base.sizes.copy(), {"S": base.hist["S"].astype(np.float64)}
    whole = base.with_counts(sizes, hist)
    sizes[1] = 9.0
    assert whole.subset(np.array([1])).sizes.tolist() == [9.0]


def _same(old: ClassStats, new: ClassStats, *, dtypes: bool = True) -> None:
    assert np.array_equal(old.sizes, new.sizes) and (old.sizes.dtype == new.sizes.dtype or not dtypes)
    assert list(old.hist) == list(new.hist)
    for a in old.hist:
        assert np.array_equal(old.hist[a], new.hist[a]) and (old.hist[a].dtype == new.hist[a].dtype or not dtypes), a
        assert new.hist[a].dtype == np.float64
    assert old.domains == new.domains


def test_the_library_builds_the_same_domains() -> None:
    """A domain from :func:`build_domain` passes through the builder untouched (the same object)."""
    domain, codes = build_domain("S", np.array(["a", "b", "a"], dtype=object))
    domains = {"S": domain}
    stats = class_stats_for([TCloseness("S", 0.5)], np.array([0, 0, 1]), 2, sensitive={"S": (None, codes, None)},
                            domains=domains)
    assert stats.domains is domains and stats.hist["S"].tolist() == [[1, 1], [1, 0]]


# ------------------------------------------------------------------------------ a new need plugs in
@pytest.fixture
def population_model(monkeypatch):
    """A δ-presence-like toy: a class passes when its records are at most ``delta`` of the population
    records in it. The model is its class, its declaration (``needs=("sizes", "population")``) and one
    registration of how the population count per class is built; nothing else changes."""
    monkeypatch.setattr(model_spec, "DECLARED", [])  # the shipped registry stays as it is
    monkeypatch.setattr("anonkit.stats.CLASS_NEED_BUILDERS", dict(CLASS_NEED_BUILDERS))

    def population(inputs: ClassInputs) -> np.ndarray:
        return np.bincount(inputs.sources["population"], minlength=inputs.n_classes).astype(np.float64)

    register_class_need("population", population)

    @privacy_model("toy-presence", label="toy δ-presence", summary="records are at most delta of the population",
                   params=(Param("delta", "number", gt=0, le=1, doc="the largest share"),),
                   needs=("sizes", "population"))
    @dataclass(frozen=True)
    class ToyPresence(Criterion):
        delta: float

        def passes(self, stats: ClassStats) -> np.ndarray:
            return stats.sizes <= self.delta * stats.need("population")

        def achieved(self, stats: ClassStats) -> float:
            return float((stats.sizes / stats.need("population")).max())

    return ToyPresence


def test_a_new_need_plugs_in_with_one_declaration(population_model) -> None:
    cls = np.array([0, 0, 1])
    population_class = np.array([0, 0, 0, 0, 1, 1, 1])  # 4 population records in class 0, 3 in class 1
    stats = class_stats_for([KAnonymity(1), population_model(0.5)], cls, 2, sources={"population": population_class})
    assert stats.need("population").tolist() == [4.0, 3.0] and stats.hist == {}
    assert population_model(0.5).passes(stats).tolist() == [True, True]
    assert population_model(0.4).passes(stats).tolist() == [False, True]
    assert population_model(0.5).passes(stats.subset(np.array([1]))).tolist() == [True]  # subsets carry it
    # a model set without it builds no population count, and reading it then is refused (fail closed)
    plain = class_stats_for([KAnonymity(1)], cls, 2, sources={"population": population_class})
    assert plain.extra == {}
    with pytest.raises(InputError, match="lack 'population'"):
        population_model(0.5).passes(plain)


def test_a_need_is_registered_once_and_an_unregistered_need_is_refused(population_model) -> None:
    with pytest.raises(TypeError, match="already declared"):
        register_class_need("population", lambda inputs: np.zeros(inputs.n_classes))
    with pytest.raises(TypeError, match="already declared"):
        register_class_need("histogram", lambda inputs: np.zeros(inputs.n_classes))
    del anonkit.stats.CLASS_NEED_BUILDERS["population"]  # the fixture's copy: undone after the test
    with pytest.raises(TypeError, match="no builder for the class statistic 'population'"):
        class_stats_for([population_model(0.5)], np.array([0]), 1)


def test_the_built_in_needs_are_the_declared_vocabulary() -> None:
    """Every need a model may declare today is answered by the builder (no declared need goes unbuilt)."""
    from anonkit.stats import BUILT_IN_NEEDS

    assert set(model_spec.NEEDS) == BUILT_IN_NEEDS
    from anonkit.models import registry

    for spec in registry.models().values():
        assert spec.needs <= BUILT_IN_NEEDS | set(CLASS_NEED_BUILDERS), spec.name


# ------------------------------------------------------------------ algorithms build what models need
def _adult_small(n: int = 600):  # type: ignore[no-untyped-def]
    import pandas as pd

    from anonkit import Schema
    from anonkit.hierarchy.builders import intervals

    frame = pd.read_csv(anonkit.stats.__file__.replace("stats.py", "datasets/data/adult.csv"), sep=";", dtype=str)
    frame = frame.head(n)[["age", "sex", "race", "occupation", "education"]]
    schema = Schema.of(quasi=["age", "sex", "race"], sensitive=["occupation", "education"],
                       hierarchies={"age": intervals(frame["age"], width=5, levels=4, name="age")})
    return frame, schema


@pytest.mark.parametrize("algorithm", ["flash", "ola", "incognito", "datafly", "lightning", "mondrian", "kaca"])
def test_an_algorithm_builds_only_the_histograms_its_models_need(algorithm: str, monkeypatch) -> None:
    """k-anonymity alone over a table with two sensitive attributes: the search and its roll-ups build
    no histogram; with l-diversity of one attribute, only that one's (the verifier, which judges the
    release independently, is not counted)."""
    import anonkit.verifier
    from anonkit import anonymize

    seen: list[set[str]] = []
    original = anonkit.stats.ClassStats.__init__

    def spy(self, *a, **k):  # type: ignore[no-untyped-def]
        original(self, *a, **k)
        seen.append(set(self.hist))

    frame, schema = _adult_small()
    monkeypatch.setattr(anonkit.stats.ClassStats, "__init__", spy)
    real_verify = anonkit.verifier.verify

    def quiet_verify(*a, **k):  # type: ignore[no-untyped-def]
        monkeypatch.setattr(anonkit.stats.ClassStats, "__init__", original)
        try:
            return real_verify(*a, **k)
        finally:
            monkeypatch.setattr(anonkit.stats.ClassStats, "__init__", spy)

    import anonkit.runner.anonymize as api
    monkeypatch.setattr(api, "verify", quiet_verify, raising=False)
    for models, allowed in (([KAnonymity(3)], set()),
                            ([KAnonymity(3), DistinctLDiversity("occupation", 2)], {"occupation"})):
        seen.clear()
        result = anonymize(frame, schema, models, algorithm=algorithm, seed=1)
        assert result.summary["satisfied"] and seen, algorithm
        assert set().union(*seen) <= allowed, (algorithm, models, seen)


@pytest.fixture
def counted_population(monkeypatch):
    """A δ-presence-like toy whose need is a count that adds up over merged classes (``additive``):
    the population records of each class, from a count per distinct tuple."""
    monkeypatch.setattr(model_spec, "DECLARED", [])
    monkeypatch.setattr("anonkit.stats.CLASS_NEED_BUILDERS", dict(CLASS_NEED_BUILDERS))
    monkeypatch.setattr("anonkit.stats.ADDITIVE_NEEDS", set(anonkit.stats.ADDITIVE_NEEDS))

    def population(inputs: ClassInputs) -> np.ndarray:
        return np.bincount(inputs.class_of, weights=inputs.sources["population-count"], minlength=inputs.n_classes)

    register_class_need("population-count", population, additive=True)

    @privacy_model("toy-presence-count", label="toy δ-presence (counts)", summary="at most delta of the population",
                   params=(Param("delta", "number", gt=0, le=1, doc="the largest share"),),
                   needs=("sizes", "population-count"))
    @dataclass(frozen=True)
    class CountedPresence(Criterion):
        delta: float

        def passes(self, stats: ClassStats) -> np.ndarray:
            return stats.sizes <= self.delta * stats.need("population-count")

        def achieved(self, stats: ClassStats) -> float:
            return float((stats.sizes / stats.need("population-count")).max())

    return CountedPresence


def test_an_additive_need_rolls_up_like_the_histograms(counted_population) -> None:
    """The lattice's roll-up carries an additive need: every node rolled up from another has the
    population count it would have built from scratch (a need that does not add up is rebuilt)."""
    from anonkit import Table
    from anonkit.algorithms.rollup import RollupCache

    frame, schema = _adult_small(400)
    table = Table(frame, schema)
    rng = np.random.default_rng(0)
    table.sources["population-count"] = rng.integers(1, 9, len(table.distinct.counts)).astype(np.float64)
    models = [KAnonymity(2), counted_population(0.9)]
    cache = RollupCache(table, models=models)
    heights = [h.height for h in table.hierarchies]
    nodes = [(0, 0, 0), (1, 0, 0), (2, 1, 0), (3, 1, 1), tuple(heights)]
    for levels in nodes:
        node = cache.classes(levels)
        tc, n_classes = table.tuple_classes(list(levels))
        fresh = table.stats(tc, n_classes, models=models)
        assert np.array_equal(node.stats.need("population-count"), fresh.need("population-count")), levels
        assert node.stats.hist == {} and np.array_equal(node.stats.sizes, fresh.sizes)
    assert cache.rolled == len(nodes) - 1
    anonkit.stats.ADDITIVE_NEEDS.discard("population-count")  # now it does not add up: rebuilt, not rolled
    rebuilt = RollupCache(table, models=models)
    for levels in nodes:
        rebuilt.classes(levels)
    assert rebuilt.rolled == 0 and rebuilt.computed == len(nodes)
