"""Lightning, the best-effort bottom-up lattice search, and Flash's fallback to it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anonkit import load_adult
from anonkit.algorithms.common import suppression_limit
from anonkit.algorithms.lattice import lightning as lightning_module
from anonkit.algorithms.lattice.flash import flash
from anonkit.algorithms.lattice.lightning import lightning
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.metrics import SearchMetric
from anonkit.models import DistinctLDiversity, EntropyLDiversity, KAnonymity, RecursiveCLDiversity
from anonkit.release import Release
from anonkit.schema import Schema
from anonkit.table import Table
from anonkit.verifier import verify


@pytest.fixture(scope="module")
def adult() -> Table:
    """Adult with 8 quasi-identifiers (all but occupation) and occupation sensitive."""
    frame, h = load_adult()
    qis = [c for c in frame.columns if c != "occupation"]
    return Table(frame, Schema.of(quasi=qis, sensitive=["occupation"], hierarchies={q: h[q] for q in qis},
                                  default_role="insensitive"))


@pytest.fixture(scope="module")
def adult4() -> Table:
    """A small lattice (2·5·2·3 = 60 transformations): sex, age, race, marital-status."""
    frame, h = load_adult()
    qis = ["sex", "age", "race", "marital-status"]
    return Table(frame, Schema.of(quasi=qis, sensitive=["occupation"], hierarchies={q: h[q] for q in qis},
                                  default_role="insensitive"))


def assert_valid(table: Table, rel: Release, models: list, s: float) -> None:
    """The release is anonymous: the verifier agrees and the suppression stays within the limit."""
    assert rel.satisfied
    assert rel.n_suppressed <= suppression_limit(s, table.n)
    reference = {c: table.frame[c] for c in table.sensitive}
    result = verify(rel.to_frame(), table.schema, models, reference=reference)
    assert result.ok, result.summary()


K5 = [KAnonymity(5)]


@pytest.fixture(scope="module")
def k5_flash(adult: Table) -> Release:
    return flash(adult, K5, max_suppression=0.02)


@pytest.fixture(scope="module")
def k5_lightning(adult: Table) -> Release:
    return lightning(adult, K5, max_suppression=0.02, time_limit=300.0)


def test_adult_k5_anonymous_and_not_better_than_flash(adult: Table, k5_flash: Release, k5_lightning: Release) -> None:
    rel = k5_lightning
    assert rel.algorithm == "lightning"
    assert_valid(adult, rel, K5, 0.02)
    assert rel.notes["heuristic"] is True
    assert rel.notes["stopped"] in ("time", "steps", "exhausted")
    assert rel.notes["steps"] > 0
    assert rel.search.score >= k5_flash.search.score
    assert "not guaranteed optimal" in rel.message
    assert rel.params["time_limit"] == 300.0 and rel.params["step_limit"] is None
    # not cut short, with a monotonic model: on this lattice it reaches Flash's optimum
    assert rel.notes["stopped"] == "exhausted"
    assert rel.search.score == k5_flash.search.score


def test_step_limit(adult: Table) -> None:
    rel = lightning(adult, K5, max_suppression=0.02, step_limit=5)
    assert rel.notes["stopped"] == "steps"
    assert rel.notes["steps"] == 5
    # the greedy dive has not reached an anonymous node yet
    assert rel.satisfied is False
    assert "no transformation" in rel.message
    assert "stopped at the step limit after 5 checks" in rel.message


def test_dive_finds_a_solution_within_the_height(adult: Table, k5_flash: Release) -> None:
    """The greedy dive from the bottom meets an anonymous node after at most height + 1 checks."""
    height = sum(adult.heights)
    rel = lightning(adult, K5, max_suppression=0.02, step_limit=height + 1)
    assert rel.notes["stopped"] == "steps"
    assert_valid(adult, rel, K5, 0.02)
    assert rel.search.score >= k5_flash.search.score


def test_zero_budget_gives_no_solution(adult4: Table) -> None:
    for kwargs, why in (({"step_limit": 0}, "steps"), ({"time_limit": 0.0}, "time")):
        rel = lightning(adult4, K5, **kwargs)
        assert rel.satisfied is False
        assert rel.notes["stopped"] == why
        assert rel.notes["steps"] == 0
        assert rel.notes["heuristic"] is True


def test_time_limit_mid_search(adult: Table, k5_flash: Release) -> None:
    rel = lightning(adult, K5, max_suppression=0.02, time_limit=0.2)
    assert rel.notes["stopped"] in ("time", "exhausted")
    if rel.notes["stopped"] == "time":
        assert "stopped at the time limit" in rel.message
    if rel.satisfied:
        assert_valid(adult, rel, K5, 0.02)
        assert rel.search.score >= k5_flash.search.score


def test_flash_falls_back_to_lightning(adult: Table, k5_flash: Release, k5_lightning: Release) -> None:
    rel = flash(adult, K5, max_suppression=0.02, heuristic_threshold=100)
    assert rel.algorithm == "flash"
    assert "lightning" in rel.search.fallback
    assert "4,320" in rel.search.fallback
    assert rel.search.fallback in rel.message
    assert rel.notes["heuristic"] is True
    assert_valid(adult, rel, K5, 0.02)
    assert rel.search.score >= k5_flash.search.score
    assert rel.transformation == k5_lightning.transformation
    # below the threshold, no fallback
    assert k5_flash.search.fallback is None and "heuristic" not in k5_flash.notes


def test_flash_fallback_passes_the_step_limit(adult: Table) -> None:
    rel = flash(adult, K5, max_suppression=0.02, heuristic_threshold=100, step_limit=3)
    assert rel.notes["stopped"] == "steps" and rel.notes["steps"] == 3


def test_deterministic(adult: Table, k5_lightning: Release) -> None:
    again = lightning(adult, K5, max_suppression=0.02, time_limit=300.0)
    assert again.transformation == k5_lightning.transformation
    assert again.search.score == k5_lightning.search.score
    assert again.notes["steps"] == k5_lightning.notes["steps"]
    assert again.notes["stopped"] == k5_lightning.notes["stopped"]
    assert np.array_equal(again.record_class, k5_lightning.record_class)
    a = lightning(adult, K5, max_suppression=0.02, step_limit=40)
    b = lightning(adult, K5, max_suppression=0.02, step_limit=40)
    assert (a.transformation, a.search.score, a.satisfied) == (b.transformation, b.search.score, b.satisfied)


MONOTONE_CASES = [
    (K5, 0.0, SearchMetric("loss")),
    ([KAnonymity(10)], 0.0, SearchMetric("entropy")),
    ([KAnonymity(5)], 0.01, SearchMetric("entropy")),
    ([KAnonymity(5)], 0.01, SearchMetric("dm*")),
    ([KAnonymity(3)], 0.0, SearchMetric("precision")),
    ([KAnonymity(20)], 0.0, SearchMetric("height")),
    ([KAnonymity(5)], 0.0, SearchMetric("loss", aggregate="rank")),
    ([DistinctLDiversity("occupation", 3)], 0.0, SearchMetric("aecs")),
    ([KAnonymity(4), DistinctLDiversity("occupation", 2)], 0.0, SearchMetric("dm")),
]


@pytest.mark.parametrize(("models", "s", "metric"), MONOTONE_CASES)
def test_finds_flash_optimum_on_small_lattice(adult4: Table, models, s, metric) -> None:
    """Monotonic models and metric, not cut short: the optimum, with the same tie rule as Flash."""
    best = flash(adult4, models, max_suppression=s, metric=metric)
    rel = lightning(adult4, models, max_suppression=s, metric=metric, time_limit=None)
    assert rel.notes["stopped"] == "exhausted"
    assert rel.params["time_limit"] is None
    assert rel.satisfied == best.satisfied
    assert rel.search.score == best.search.score
    assert rel.transformation == best.transformation
    if rel.satisfied:
        assert_valid(adult4, rel, models, s)


@pytest.mark.parametrize(
    ("models", "s", "metric"),
    [
        (K5, 0.02, SearchMetric("loss")),
        ([KAnonymity(5)], 0.03, SearchMetric("entropy", monotonic=False)),
        ([EntropyLDiversity("occupation", 3)], 0.02, SearchMetric("dm")),
        ([RecursiveCLDiversity("occupation", 3.0, 2)], 0.05, SearchMetric("loss")),
    ],
)
def test_non_monotonic_settings_stay_sound(adult4: Table, models, s, metric) -> None:
    """Non-monotonic metric or models: maybe not optimal, but anonymous and never better than Flash."""
    best = flash(adult4, models, max_suppression=s, metric=metric)
    rel = lightning(adult4, models, max_suppression=s, metric=metric)
    assert rel.notes["stopped"] == "exhausted"
    assert rel.satisfied == best.satisfied
    if rel.satisfied:
        assert_valid(adult4, rel, models, s)
        assert rel.search.score >= best.search.score


def test_no_solution(adult4: Table) -> None:
    models = [DistinctLDiversity("occupation", 15)]  # occupation has only 14 values
    assert flash(adult4, models).satisfied is False
    rel = lightning(adult4, models)
    assert rel.satisfied is False
    assert rel.notes["stopped"] == "exhausted"
    assert "no transformation" in rel.message
    assert rel.n_suppressed == adult4.n  # nothing failing is ever published


def test_unmaterialized_bookkeeping_matches(adult4: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """Above MAX_NODES the run keeps its own records; on a small lattice both ways agree."""
    expected = [lightning(adult4, m, max_suppression=s, metric=x) for m, s, x in MONOTONE_CASES[:4]]
    monkeypatch.setattr(lightning_module, "MAX_NODES", 0)
    for (m, s, x), want in zip(MONOTONE_CASES[:4], expected, strict=True):
        got = lightning(adult4, m, max_suppression=s, metric=x)
        assert got.transformation == want.transformation
        assert got.search.score == want.search.score
        assert got.notes["stopped"] == "exhausted"


def test_huge_lattice(monkeypatch: pytest.MonkeyPatch) -> None:
    """3^16 ≈ 43 million transformations: no materialization, a solution within the budget."""
    rng = np.random.default_rng(7)
    d, n = 16, 400
    names = [f"q{j}" for j in range(d)]
    values = ["a", "b", "c", "d"]
    frame = pd.DataFrame({q: rng.choice(values, size=n) for q in names})
    h = Hierarchy([[v, "ab" if v in "ab" else "cd", "*"] for v in values])
    table = Table(frame, Schema.of(quasi=names, hierarchies=dict.fromkeys(names, h)))
    models = [KAnonymity(3)]
    rel = lightning(table, models, max_suppression=0.05, step_limit=200, time_limit=120.0)
    assert rel.notes["stopped"] == "steps"
    assert rel.notes["steps"] == 200
    assert_valid(table, rel, models, 0.05)
    assert math.isfinite(rel.search.score)
    again = lightning(table, models, max_suppression=0.05, step_limit=200, time_limit=120.0)
    assert again.transformation == rel.transformation
    fallback = flash(table, models, max_suppression=0.05, step_limit=30, time_limit=120.0)
    assert fallback.search.fallback is not None and fallback.notes["steps"] == 30


@pytest.mark.parametrize(
    "kwargs",
    [{"time_limit": -1.0}, {"time_limit": float("nan")}, {"time_limit": "10"}, {"step_limit": -1},
     {"step_limit": 2.5}, {"step_limit": True}, {"time_limit": True}],
)  # fmt: skip
def test_bad_limits(adult4: Table, kwargs) -> None:
    with pytest.raises(InputError, match=f"lightning option '{next(iter(kwargs))}'"):
        lightning(adult4, K5, **kwargs)


def test_numpy_limits(adult4: Table) -> None:
    rel = lightning(adult4, K5, time_limit=np.float64(60.0), step_limit=np.int64(2))
    assert rel.notes["steps"] == 2 and rel.notes["stopped"] == "steps"
