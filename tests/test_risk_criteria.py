"""Whole-release risk criteria (issue 27): average-risk, sample-uniqueness, population-uniqueness.

Each is judged on the release as a whole (``scope="release"``), enforced by the full-domain searches
after the class models (ARX's sample-based criteria: the smallest classes suppressed, a binary search
over the prefix), refused by the other algorithms before any work, and recomputed by the verifier.

ARX goldens (TestAnonymizationRiskBased, Adult, 9 QIs, suppression 4 %): cases 0, 2, 4, 5 give ARX's
transformation and loss string exactly (applied with ``fixed`` here; the searches, which take 20–35 s
each without pruning, are in the slow set). Cases 1 and 3 (Loss metric) give ARX's transformation
but a lower Loss (0.16043761385307476 and 0.1605272451931603 for ARX's 0.1606952725863784 and
0.16078200456326086): among classes of equal size ARX suppresses the one with the smaller
information loss first (its ``HashGroupifyDistribution`` orders ties by the metric for every metric
but the size-based ones); anonkit orders ties by their first record, as ARX does for the others.
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
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.metrics import SearchMetric, score
from anonkit.models import AverageRisk, KAnonymity, PopulationUniquenessRisk, SampleUniquenessRisk
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


# ---------------------------------------------------------------------------------- ARX goldens
#: TestAnonymizationRiskBased (Adult, 9 QIs, suppression 4 %): model, metric, ARX's loss, transformation
GOLDENS = [
    ("0-average-risk", AverageRisk(0.01), ENT_NM, 314637.8461904862, [1, 0, 1, 1, 3, 2, 2, 1, 1]),
    ("2-dankar", PopulationUniquenessRisk(0.0001, "dankar", region="usa"), ENT_NM, 144298.1603344462,
     [0, 0, 1, 1, 1, 2, 1, 0, 0]),
    ("4-pitman", PopulationUniquenessRisk(0.0001, "pitman", region="usa"), ENT_NM, 144298.1603344462,
     [0, 0, 1, 1, 1, 2, 1, 0, 0]),
    ("5-snb", PopulationUniquenessRisk(0.0001, "snb", region="usa"), LOSS, 0.17599055898432758,
     [0, 3, 0, 0, 2, 1, 1, 1, 0]),
]
#: the Loss cases whose ties ARX breaks by class loss (module docstring): ARX's transformation, our loss
TIES = [
    ("1-sample-uniqueness", SampleUniquenessRisk(0.01), 0.1606952725863784, 0.16043761385307476,
     [0, 3, 0, 0, 1, 1, 1, 1, 0]),
    ("3-zayatz", PopulationUniquenessRisk(0.0001, "zayatz", region="usa"), 0.16078200456326086, 0.1605272451931603,
     [0, 3, 0, 0, 1, 1, 1, 1, 0]),
]


@pytest.mark.parametrize("case", GOLDENS, ids=[g[0] for g in GOLDENS])
def test_arx_golden_at_arx_transformation(adult9: Table, case: tuple) -> None:
    _, model, metric, golden, levels = case
    release = fixed(adult9, [model], levels=levels, max_suppression=0.04)
    assert release.satisfied
    assert score(adult9, release, metric) == golden


@pytest.mark.parametrize("case", TIES, ids=[g[0] for g in TIES])
def test_arx_tie_cases_keep_arx_transformation_anonymous(adult9: Table, case: tuple) -> None:
    _, model, arx, ours, levels = case
    release = fixed(adult9, [model], levels=levels, max_suppression=0.04)
    assert release.satisfied and score(adult9, release, LOSS) == ours < arx


#: the goldens the search runs (no pruning with these criteria: 16–31 s each on 2 cores); the others'
#: transformations and loss strings are checked at ARX's levels above (``fixed``), which is fast
SEARCHED = ("0-average-risk", "2-dankar")


@pytest.mark.slow
@pytest.mark.parametrize("case", [g for g in GOLDENS if g[0] in SEARCHED], ids=list(SEARCHED))
def test_arx_golden_flash_finds_arx_optimum(adult9: Table, case: tuple) -> None:
    _, model, metric, golden, levels = case
    release = flash(adult9, [model], max_suppression=0.04, metric=metric)
    assert list(release.transformation.values()) == levels
    assert score(adult9, release, metric) == golden
