"""Whole-release risk criteria (issue 27): average-risk, sample-uniqueness, population-uniqueness.

Each is judged on the release as a whole (``scope="release"``), enforced by the full-domain searches
after the class models (ARX's sample-based criteria: the smallest classes suppressed, a binary search
over the prefix), refused by the other algorithms before any work, and recomputed by the verifier.

ARX goldens (TestAnonymizationRiskBased, Adult, 9 QIs, suppression 4 %): all six cases give ARX's
transformation and loss string exactly (applied at ARX's levels here; the searches, which take 5–35 s
each without pruning, are in the slow set). Cases 1 and 3 (Loss) depend on ARX's tie rule: among
classes of equal size ARX suppresses first the one with the smaller information loss under the search
metric (``HashGroupifyDistribution``'s comparator: size, then ``Metric.getInformationLoss(transformation,
class)``, then the first record; the size-based metrics skip the middle key), which
``anonkit.algorithms.transform.release_order`` follows. Ordered by first record alone, cases 1 and 3
score 0.16043761385307476 and 0.1605272451931603, below ARX's 0.1606952725863784 and
0.16078200456326086 (kept below as the control that the rule is what makes the difference).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit import Schema, Table, anonymize
from anonkit.algorithms.lattice.fixed import fixed
from anonkit.algorithms.lattice.flash import flash
from anonkit.algorithms.transform import SIZE_ORDERED_METRICS, evaluate_node, release_node, release_order
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.metrics import SearchMetric, score
from anonkit.models import AverageRisk, KAnonymity, KMap, PopulationUniquenessRisk, SampleUniquenessRisk
from anonkit.models.risk_criteria import enforce_release, size_threshold
from anonkit.risk import population_uniqueness, sample_uniqueness
from anonkit.stats import class_stats
from anonkit.verifier import verify

ENT_NM = SearchMetric("entropy", monotonic=False)
LOSS = SearchMetric("loss")


def stats_of(sizes: list[int]):  # type: ignore[no-untyped-def]
    cls = np.repeat(np.arange(len(sizes)), sizes)
    return class_stats(cls, len(sizes), None, {}, {})


# ---------------------------------------------------------------------------------- the values
def test_average_risk_is_classes_over_records() -> None:
    s = stats_of([1, 3, 4])
    assert AverageRisk(0.5).achieved(s) == pytest.approx(3 / 8)
    assert AverageRisk(0.375).release_passes(s) and not AverageRisk(0.37).release_passes(s)
    assert AverageRisk(0.5).passes(s).all() and not AverageRisk(0.3).passes(s).any()


def test_average_risk_relaxed_counts_records_below_the_size_threshold() -> None:
    s = stats_of([1, 3, 4])  # 1 record in a class smaller than 2 (risk 1 > 0.5)
    assert AverageRisk(0.5, highest_risk=0.5, records_at_risk=0.125).release_passes(s)
    assert not AverageRisk(0.5, highest_risk=0.5, records_at_risk=0.1).release_passes(s)
    assert size_threshold(0.5) == 2 and size_threshold(0.3) == 4
    assert size_threshold(0.333) == 3 and size_threshold(0.33) == 4  # ARX's 1 % tolerance


def test_sample_uniqueness_reuses_the_risk_module() -> None:
    sizes = [1, 1, 2, 5]
    s = stats_of(sizes)
    assert SampleUniquenessRisk(1.0).achieved(s) == sample_uniqueness(np.array(sizes)) == pytest.approx(2 / 9)
    assert SampleUniquenessRisk(0.23).release_passes(s) and not SampleUniquenessRisk(0.2).release_passes(s)


@pytest.mark.parametrize("estimator", ["pitman", "zayatz", "snb", "dankar"])
def test_population_uniqueness_is_the_risk_module_estimate(estimator: str) -> None:
    sizes = [1] * 30 + [2] * 20 + [3] * 10 + [7] * 5
    s = stats_of(sizes)
    m = PopulationUniquenessRisk(0.5, estimator, population=2000)
    est = population_uniqueness(np.array(sizes), population=2000, model=estimator,  # type: ignore[arg-type]
                                solver=__import__("anonkit.risk", fromlist=["SolverConfig"]).SolverConfig(
                                    iterations_per_try=15))
    assert m.achieved(s) == pytest.approx(est.fraction or 0.0)
    assert m.release_passes(s) == (0 < (est.fraction or 0.0) <= 0.5)


def test_population_uniqueness_without_sample_uniques_passes() -> None:
    assert PopulationUniquenessRisk(0.0, population=1000).release_passes(stats_of([2, 3, 4]))


def test_an_empty_release_satisfies_every_risk_criterion() -> None:
    empty = stats_of([])
    for m in (AverageRisk(0.01), SampleUniquenessRisk(0.0), PopulationUniquenessRisk(0.0, region="usa")):
        assert m.release_passes(empty) and m.achieved(empty) == 0.0


@pytest.mark.parametrize("kwargs, key", [
    ({"threshold": 0.1}, "population"),
    ({"threshold": 0.1, "population": 100, "region": "usa"}, "region"),
    ({"threshold": 0.1, "sampling_fraction": 0.0}, "sampling_fraction"),
    ({"threshold": 1.5, "population": 100}, "threshold"),
    ({"threshold": 0.1, "population": 100, "estimator": "poisson"}, "estimator"),
])
def test_population_uniqueness_refuses_bad_parameters(kwargs: dict, key: str) -> None:
    with pytest.raises(InputError) as err:
        PopulationUniquenessRisk(**kwargs)
    assert err.value.key == key


def test_average_risk_relaxed_defaults_bound_nothing() -> None:
    s = stats_of([1, 3, 4])
    assert AverageRisk(0.5) == AverageRisk(0.5, highest_risk=1.0, records_at_risk=0.0)
    assert AverageRisk(0.5).release_passes(s) and not AverageRisk(0.5, highest_risk=0.5).release_passes(s)


# ---------------------------------------------------------------------------------- the enforcement
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=30), st.floats(0.0, 0.6))
def test_binary_search_finds_the_smallest_prefix_for_monotone_models(sizes: list[int], t: float) -> None:
    """Suppressing the smallest classes first only lowers sample uniqueness, so ARX's binary search
    finds the shortest prefix that makes it hold (without a budget)."""
    ordered = np.sort(np.array(sizes, dtype=np.float64))
    m = SampleUniquenessRisk(t)
    cut = enforce_release([m], ordered, float("inf"))
    holds = [not ordered[p:].size or m.holds(ordered[p:]) for p in range(len(ordered) + 1)]
    assert cut == holds.index(True)


def small_table(rows: list[tuple[int, int]]) -> tuple[pd.DataFrame, Schema]:
    frame = pd.DataFrame(rows, columns=["a", "b"]).astype(str)
    h = {c: Hierarchy([[str(v), f"g{v // 2}", "*"] for v in range(8)]) for c in ("a", "b")}
    return frame, Schema.of(quasi=["a", "b"], hierarchies=h)


MODELS = [AverageRisk(0.3), SampleUniquenessRisk(0.05), PopulationUniquenessRisk(0.05, population=400),
          AverageRisk(0.4, highest_risk=0.5, records_at_risk=0.1)]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), min_size=6, max_size=60),
       st.sampled_from(MODELS), st.sampled_from([0.0, 0.1, 0.5]))
def test_every_flash_release_passes_the_independent_verifier(rows: list, model: object, supp: float) -> None:
    frame, schema = small_table(rows)
    try:
        result = anonymize(frame, schema, [model, KAnonymity(1)], algorithm="flash", max_suppression=supp)
    except Exception as exc:  # the models may not be met on a tiny table: refused, never released
        assert type(exc).__name__ == "UnsatisfiableError"
        return
    v = verify(result.frame, schema, [model])
    assert v.ok, v.summary()
    published = result.frame[result.frame["a"] != "*"]
    sizes = published.groupby(["a", "b"]).size().to_numpy()
    if isinstance(model, SampleUniquenessRisk) and sizes.size:  # recounted here, from the text
        assert (sizes == 1).sum() / sizes.sum() <= model.threshold
    if isinstance(model, AverageRisk) and sizes.size:
        assert sizes.size / sizes.sum() <= model.threshold


def test_flash_suppresses_the_smallest_classes_to_meet_sample_uniqueness() -> None:
    rows = [(0, 0)] * 5 + [(2, 2)] * 5 + [(4, 4), (6, 6)]  # two uniques at the bottom node
    frame, schema = small_table(rows)
    strict = anonymize(frame, schema, [SampleUniquenessRisk(0.0)], algorithm="fixed", levels={"a": 0, "b": 0},
                       max_suppression=0.2)
    assert strict.summary["suppressed"] == 2 and strict.verification.ok
    with pytest.raises(Exception, match=r"cannot|suppress"):  # control: without room to suppress, refused
        anonymize(frame, schema, [SampleUniquenessRisk(0.0)], algorithm="fixed", levels={"a": 0, "b": 0},
                  max_suppression=0.1)


def test_the_verifier_fails_a_release_over_the_threshold() -> None:
    frame = pd.DataFrame({"a": ["1", "2", "3", "3"], "b": ["x", "x", "x", "x"]})
    schema = Schema.of(quasi=["a", "b"])
    assert not verify(frame, schema, [SampleUniquenessRisk(0.4)]).ok
    assert verify(frame, schema, [SampleUniquenessRisk(0.5)]).ok
    assert not verify(frame, schema, [AverageRisk(0.7)]).ok and verify(frame, schema, [AverageRisk(0.75)]).ok


def test_algorithms_that_cannot_enforce_refuse_before_any_work() -> None:
    frame, schema = small_table([(i % 8, i % 3) for i in range(20)])
    with pytest.raises(InputError, match=r"whole release.*not mondrian") as err:
        anonymize(frame, schema, [KAnonymity(2), AverageRisk(0.5)], algorithm="mondrian")
    assert err.value.key == "algorithm.name"
    anonymize(frame, schema, [KAnonymity(2), AverageRisk(0.5)], algorithm="flash")  # control


def test_declarations_say_scope_and_monotonicity() -> None:
    from anonkit.models.registry import get

    for name in ("average-risk", "sample-uniqueness", "population-uniqueness"):
        d = get(name).describe()
        assert d["scope"] == "release" and d["monotonic"]["suppression"] is False
    assert get("population-uniqueness").describe()["monotonic"]["generalization"] is False
    assert get("k-anonymity").describe()["scope"] == "class"


# ---------------------------------------------------------------------------------- ARX's tie rule
def tie_table() -> Table:
    """At levels (0, 1): one class of 6 records, then four unique records: two whose ``b`` is ``high``
    (6 leaves of 8: a larger Loss) before two whose ``b`` is ``low`` (2 leaves of 8)."""
    rows = [("0", "0")] * 6 + [("2", "4"), ("3", "5"), ("4", "0"), ("5", "1")]
    frame = pd.DataFrame(rows, columns=["a", "b"])
    a = Hierarchy([[str(v), f"g{v // 2}", "*"] for v in range(8)])
    b = Hierarchy([[str(v), "low" if v < 2 else "high", "*"] for v in range(8)])
    return Table(frame, Schema.of(quasi=["a", "b"], hierarchies={"a": a, "b": b}))


TIE_LEVELS = (0, 1)


def first_rows(table: Table, tc: np.ndarray, classes: np.ndarray) -> list[int]:
    """The first row of each class, in the order given."""
    record_class = tc[table.distinct.inverse]
    return [int(np.flatnonzero(record_class == c)[0]) for c in classes]


def tie_order(table: Table, metric: SearchMetric | None) -> list[int]:
    tc, n = table.tuple_classes(TIE_LEVELS)
    sizes = np.bincount(tc, weights=table.distinct.counts, minlength=n)
    return first_rows(table, tc, release_order(table, tc, np.arange(n), sizes, TIE_LEVELS, metric))


def test_release_order_breaks_size_ties_by_class_loss_then_first_record() -> None:
    """ARX's comparator: size, then the class's loss under the search metric, then the first record."""
    table = tie_table()
    assert tie_order(table, LOSS) == [8, 9, 6, 7, 0]  # the low uniques (smaller Loss) first
    assert tie_order(table, None) == [6, 7, 8, 9, 0]  # control: without a metric, by first record
    for name in ("ambiguity", "entropy-loss"):  # ARX compares these models' class loss too
        assert tie_order(table, SearchMetric(name)) == [8, 9, 6, 7, 0], name
    for name in sorted(SIZE_ORDERED_METRICS):  # ARX's list of models whose class loss is its size
        assert tie_order(table, SearchMetric(name)) == [6, 7, 8, 9, 0], name


@pytest.mark.parametrize("aggregate", ["geometric", "sum", "max", "arithmetic", "rank"])
def test_every_loss_aggregate_orders_by_class_loss(aggregate: str) -> None:
    assert tie_order(tie_table(), SearchMetric("loss", aggregate=aggregate)) == [8, 9, 6, 7, 0]


def test_a_gs_factor_of_one_leaves_entropy_loss_ties_to_the_first_record() -> None:
    """ARX's entropy-based loss of a released class is ``gFactor · count · IL``: 0 for every class at gs 1."""
    assert tie_order(tie_table(), SearchMetric("entropy-loss", gs=1.0)) == [6, 7, 8, 9, 0]


def suppressed_rows(table: Table, metric: SearchMetric | None) -> list[int]:
    ev = evaluate_node(table, TIE_LEVELS, [SampleUniquenessRisk(0.25)], 0.2, metric=metric)
    assert ev.anonymous and ev.suppressed == 2  # 4 uniques of 10 records → 2 of 8: the same count either way
    return [int(r) for r in np.flatnonzero(~ev.class_ok[ev.tuple_class[table.distinct.inverse]])]


def test_the_tie_rule_decides_which_unique_a_criterion_suppresses() -> None:
    table = tie_table()
    assert suppressed_rows(table, LOSS) == [8, 9]
    assert suppressed_rows(table, None) == [6, 7]  # control
    assert suppressed_rows(table, SearchMetric("entropy")) == [6, 7]  # a size-ordered metric


def test_a_population_tuple_without_records_has_no_first_record() -> None:
    """With a research subset and k-map, the population's tuples no record has are distinct tuples
    of count 0; ordering the classes must not need a record for them (it raised before)."""
    from anonkit.models.population import attach_population

    rows = [(a, b) for a in range(8) for b in range(4)]
    frame = pd.DataFrame(rows, columns=["a", "b"]).astype(str)
    _, schema = small_table(rows)
    table = Table(frame.iloc[::2].reset_index(drop=True), schema)
    attach_population(table, frame)
    assert table.distinct.size > len(np.unique(table.distinct.inverse))
    ev = evaluate_node(table, (0, 0), [KMap(1), SampleUniquenessRisk(0.05)], 0.5, metric=LOSS)
    assert not ev.anonymous and ev.suppressed == table.n_records  # every class a unique: all go, over the limit
    ev = evaluate_node(table, (1, 2), [KMap(1), SampleUniquenessRisk(0.05)], 0.5, metric=LOSS)
    assert ev.anonymous and ev.suppressed == 0  # control


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), min_size=2, max_size=40),
       st.sampled_from([None, LOSS, SearchMetric("ambiguity"), SearchMetric("loss", aggregate="rank")]))
def test_release_order_is_a_permutation_by_size(rows: list, metric: SearchMetric | None) -> None:
    frame, schema = small_table(rows)
    table = Table(frame, schema)
    tc, n = table.tuple_classes((1, 0))
    sizes = np.bincount(tc, weights=table.distinct.counts, minlength=n)
    alive = np.flatnonzero(sizes > 0)
    order = release_order(table, tc, alive, sizes[alive], (1, 0), metric)
    assert sorted(order.tolist()) == list(range(len(alive)))
    assert (np.diff(sizes[alive][order]) >= 0).all()


# ---------------------------------------------------------------------------------- ARX goldens
#: TestAnonymizationRiskBased (Adult, 9 QIs, suppression 4 %): model, metric, ARX's loss, transformation
GOLDENS = [
    ("0-average-risk", AverageRisk(0.01), ENT_NM, 314637.8461904862, [1, 0, 1, 1, 3, 2, 2, 1, 1]),
    ("1-sample-uniqueness", SampleUniquenessRisk(0.01), LOSS, 0.1606952725863784, [0, 3, 0, 0, 1, 1, 1, 1, 0]),
    ("2-dankar", PopulationUniquenessRisk(0.0001, "dankar", region="usa"), ENT_NM, 144298.1603344462,
     [0, 0, 1, 1, 1, 2, 1, 0, 0]),
    ("3-zayatz", PopulationUniquenessRisk(0.0001, "zayatz", region="usa"), LOSS, 0.16078200456326086,
     [0, 3, 0, 0, 1, 1, 1, 1, 0]),
    ("4-pitman", PopulationUniquenessRisk(0.0001, "pitman", region="usa"), ENT_NM, 144298.1603344462,
     [0, 0, 1, 1, 1, 2, 1, 0, 0]),
    ("5-snb", PopulationUniquenessRisk(0.0001, "snb", region="usa"), LOSS, 0.17599055898432758,
     [0, 3, 0, 0, 2, 1, 1, 1, 0]),
]
#: cases 1 and 3 ordered by first record only (no metric, as ``fixed`` evaluates): a lower Loss than ARX's
BY_RECORD = {"1-sample-uniqueness": 0.16043761385307476, "3-zayatz": 0.1605272451931603}


@pytest.mark.parametrize("case", GOLDENS, ids=[g[0] for g in GOLDENS])
def test_arx_golden_at_arx_transformation(adult9: Table, case: tuple) -> None:
    name, model, metric, golden, levels = case
    ev = evaluate_node(adult9, levels, [model], 0.04, metric=metric)
    release = release_node(adult9, ev, algorithm="fixed")
    assert release.satisfied and verify(release.to_frame(), adult9.schema, [model]).ok
    assert score(adult9, release, metric) == golden
    plain = fixed(adult9, [model], levels=levels, max_suppression=0.04)  # no metric: first record breaks ties
    assert plain.n_suppressed == release.n_suppressed  # the criteria read class sizes only: the same count
    assert score(adult9, plain, metric) == BY_RECORD.get(name, golden)


#: the records ARX 3.9 suppresses at its optimum (``DataHandle.isOutlier`` of its output, rows from 0, built
#: from the mirror in /tmp/arx27): how many, their sum, and the first 16 hex digits of the SHA-256 of the
#: sorted rows joined by commas
ARX_SUPPRESSED_ROWS = {"1-sample-uniqueness": (1059, 16132237, "522213147ced7987"),
                       "3-zayatz": (1062, 16186845, "e747057aafc2396a")}


@pytest.mark.parametrize("name", sorted(ARX_SUPPRESSED_ROWS))
def test_arx_suppresses_the_same_records(adult9: Table, name: str) -> None:
    """The tie rule gives ARX's suppressed records row for row, not only its loss; by first record
    the same number of records goes, but about 450 of them are others."""
    import hashlib

    _, model, metric, _, levels = next(g for g in GOLDENS if g[0] == name)

    def digest(rows: np.ndarray) -> tuple[int, int, str]:
        text = ",".join(str(int(r)) for r in np.sort(rows))
        return len(rows), int(rows.sum()), hashlib.sha256(text.encode()).hexdigest()[:16]

    ours = release_node(adult9, evaluate_node(adult9, levels, [model], 0.04, metric=metric), algorithm="fixed")
    assert digest(np.flatnonzero(ours.record_class < 0)) == ARX_SUPPRESSED_ROWS[name]
    plain = fixed(adult9, [model], levels=levels, max_suppression=0.04)
    count, _, sha = digest(np.flatnonzero(plain.record_class < 0))
    assert count == ARX_SUPPRESSED_ROWS[name][0] and sha != ARX_SUPPRESSED_ROWS[name][2]  # control


#: the goldens the search runs (no pruning with these criteria: 5–35 s each on 2 cores); the others'
#: transformations and loss strings are checked at ARX's levels above, which is fast
SEARCHED = ("0-average-risk", "1-sample-uniqueness", "2-dankar")
def _searched() -> list:
    out = []
    for g in GOLDENS:
        if g[0] not in SEARCHED:
            continue
        out.append(pytest.param(g, id=g[0]))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("case", _searched())
def test_arx_golden_flash_finds_arx_optimum(adult9: Table, case: tuple) -> None:
    _, model, metric, golden, levels = case
    release = flash(adult9, [model], max_suppression=0.04, metric=metric)
    assert list(release.transformation.values()) == levels
    assert score(adult9, release, metric) == golden
