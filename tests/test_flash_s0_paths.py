"""Twin tests of Flash's faster search on the small S0 configurations (issue 30 item 3): each shortcut
against what it replaces, on a slice of Adult.

* the groupings (and table-only statistics) of the nodes grouped from scratch, kept per table
  (:class:`~anonkit.algorithms.rollup.ScratchGroupings`): a second search of the table takes them and
  finds the same release, statuses and counts as a search of a fresh table; a kept node is the node a
  fresh grouping gives, and searches with other weights or other histograms build their own statistics;
* the lattice's levels, the bounds and the priority order kept per table: the arrays a fresh table
  gives, for every metric and lattice bounds asked;
* a dropped search freed at once (nothing kept per table refers back to it);
* the cached node below with the fewest classes found by a compiled scan
  (:func:`~anonkit.algorithms.rollup.fewest_below_py`): the numpy rule's row, ties to the first.
"""

from __future__ import annotations

import numpy as np
import pytest

from anonkit import Schema, Table, _kernels, load_adult
from anonkit.algorithms import get_algorithm
from anonkit.algorithms.lattice._search import Search, priority_order, strategy_order
from anonkit.algorithms.lattice._space import mixed_radix_levels
from anonkit.algorithms.rollup import RollupCache, fewest_below_np, fewest_below_py, scratch_groupings
from anonkit.metrics import SearchMetric
from anonkit.models import DistinctLDiversity, KAnonymity

QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]


@pytest.fixture(scope="module")
def adult() -> tuple[object, dict]:
    frame, hierarchies = load_adult()
    return frame.head(2500).reset_index(drop=True), hierarchies


def _table(adult: tuple[object, dict], sensitive: tuple[str, ...] = ()) -> Table:
    frame, hierarchies = adult
    schema = Schema.of(quasi=QIS, sensitive=list(sensitive), hierarchies={q: hierarchies[q] for q in QIS})
    return Table(frame[QIS + list(sensitive)], schema)  # type: ignore[index]


def _outcome(rel: object) -> tuple:
    s = rel.search  # type: ignore[attr-defined]
    return (dict(rel.transformation), s.score, dict(s.counts), s.status.tobytes(),  # type: ignore[attr-defined]
            s.traversal_status.tobytes(), rel.n_suppressed, rel.class_sizes().tobytes())  # type: ignore[attr-defined]


@pytest.mark.parametrize("jit", [False, True])
def test_a_second_search_takes_the_kept_groupings_and_finds_the_same(adult, jit: bool) -> None:  # type: ignore[no-untyped-def]
    """Flash twice on one table (the second takes every scratch grouping the first kept) and once on a
    fresh table: the same optimum, score, statuses, counts and release."""
    _kernels.use_numba(jit)
    try:
        flash = get_algorithm("flash")
        for models, limit in (([KAnonymity(5)], 0.0), ([KAnonymity(5)], 0.02), ([KAnonymity(3)], 0.0)):
            table = _table(adult)
            first = flash(table, models, max_suppression=limit)
            memo = scratch_groupings(table)
            kept, hits = len(memo.entries), memo.hits
            assert kept > 0
            second = flash(table, models, max_suppression=limit)
            assert memo.hits - hits >= kept  # every scratch node of the second search was kept
            fresh = flash(_table(adult), models, max_suppression=limit)
            assert _outcome(first) == _outcome(second) == _outcome(fresh)
    finally:
        _kernels.use_numba(False)


def _same_node(got: object, table: Table, levels: tuple[int, ...], weight: np.ndarray | None, models: list) -> None:
    tc, n = table.tuple_classes(levels)
    want = table.stats(tc, n, weight, models=models, levels=levels)
    assert got.n_classes == n and np.array_equal(got.tuple_class, tc)  # type: ignore[attr-defined]
    stats = got.stats  # type: ignore[attr-defined]
    assert np.array_equal(stats.sizes, want.sizes) and stats.hist.keys() == want.hist.keys()
    assert all(np.array_equal(stats.hist[a], want.hist[a]) for a in want.hist)
    first = np.array([np.flatnonzero(tc == c)[0] for c in range(n)])
    codes = np.stack([h.maps[lv][table.distinct.columns[j][first]]
                      for j, (h, lv) in enumerate(zip(table.hierarchies, levels, strict=True))], axis=1)
    assert np.array_equal(got.codes, codes)  # type: ignore[attr-defined]


def test_kept_groupings_are_fresh_groupings_and_statistics_follow_the_search(adult) -> None:  # type: ignore[no-untyped-def]
    """Nodes taken from the kept groupings equal fresh ones; a cache with other weights, or models
    needing a histogram, builds its own statistics on the kept grouping (read-only arrays)."""
    table = _table(adult, sensitive=("occupation",))
    nodes = [(0, 2, 0, 1, 1, 1, 1), (1, 3, 1, 2, 2, 2, 1), (0, 1, 1, 0, 2, 1, 0)]
    k_only = [KAnonymity(4)]
    for levels in nodes:  # grouped and kept
        _same_node(RollupCache(table, models=k_only)._compute(levels), table, levels, None, k_only)
    memo = scratch_groupings(table)
    assert all(levels in memo.entries for levels in nodes)
    assert all(not g.tc.flags.writeable and not g.codes.flags.writeable for g in memo.entries.values())
    weight = np.where(np.arange(table.distinct.size) % 3 == 0, 0.0, table.distinct.counts)
    with_hist = [KAnonymity(4), DistinctLDiversity("occupation", 2)]
    for models, w in ((k_only, None), (k_only, weight), (with_hist, None), (with_hist, weight), (k_only, None)):
        hits = memo.hits
        for levels in nodes:
            _same_node(RollupCache(table, w, models=models)._compute(levels), table, levels, w, models)
        assert memo.hits - hits == len(nodes)


def test_kept_groupings_stay_within_their_budget(adult) -> None:  # type: ignore[no-untyped-def]
    """Beyond its budget the least recently used grouping goes; one larger than the budget is not kept."""
    table = _table(adult)
    memo = scratch_groupings(table)
    cache = RollupCache(table, models=[KAnonymity(2)])
    coarse = [(1, 4, 1, 2, 3, 2, 2), (1, 4, 1, 2, 3, 2, 1), (1, 4, 1, 2, 3, 1, 2), (1, 4, 1, 2, 2, 2, 2)]
    cache._compute(coarse[0])
    memo.budget = int(2.5 * memo.used)  # room for two such groupings
    for levels in coarse[1:]:
        cache._compute(levels)
    assert memo.used <= memo.budget and list(memo.entries) == coarse[2:]
    cache._compute((0,) * 7)  # a grouping of every distinct tuple: larger than the budget
    assert list(memo.entries) == coarse[2:]


def test_levels_bounds_and_priority_kept_per_table_are_fresh_ones(adult) -> None:  # type: ignore[no-untyped-def]
    """Searches of one table with other metrics and lattice bounds read the kept arrays only for their own
    metric and bounds: each equal to what a fresh table builds, read-only."""
    table = _table(adult)
    top = {q: h.height for q, h in zip(table.qi, table.hierarchies, strict=True)}
    cases = [
        dict(metric=SearchMetric()),
        dict(metric=SearchMetric(aggregate="arithmetic")),
        dict(metric=SearchMetric(gs=0.2)),
        dict(metric=SearchMetric(name="entropy")),
        dict(metric=SearchMetric(), max_levels={**top, "age": 2}),
        dict(metric=SearchMetric(), min_levels={"sex": 1}),
        dict(metric=SearchMetric()),
    ]
    for case in cases:
        kept = Search(table, [KAnonymity(3)], **case)  # type: ignore[arg-type]
        fresh = Search(_table(adult), [KAnonymity(3)], **case)  # type: ignore[arg-type]
        lat = kept.lattice
        assert not lat.levels.flags.writeable and not kept.bounds.flags.writeable
        np.testing.assert_array_equal(lat.levels, mixed_radix_levels(lat.min, lat.max))
        np.testing.assert_array_equal(kept.bounds, fresh.scorer.lower_bound_table(fresh.lattice.levels))
        np.testing.assert_array_equal(kept.order, priority_order(fresh.bounds, strategy_order(fresh)))
        np.testing.assert_array_equal(kept.priority, fresh.priority)
    again = Search(table, [KAnonymity(5)])
    assert again.bounds is Search(table, [KAnonymity(2)]).bounds  # kept, not rebuilt


@pytest.mark.parametrize("seed", range(6))
def test_the_compiled_scan_finds_the_numpy_rules_base(seed: int) -> None:
    """The first alive row at or below the levels with the fewest classes, ties to the first row (few
    distinct class counts make ties common)."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(1, 60)), int(rng.integers(1, 6))
    keys = rng.integers(0, 3, (n + 5, d)).astype(np.int64)
    classes = rng.integers(1, 4, n + 5).astype(np.int64)
    alive = rng.random(n + 5) < 0.8
    for _ in range(20):
        levels = rng.integers(0, 4, d).astype(np.int64)
        want = fewest_below_np(keys, classes, alive, n, levels)
        assert fewest_below_py(keys, classes, alive, n, levels) == want
        assert _kernels.compiled(fewest_below_py)(keys, classes, alive, n, levels) == want


def test_a_search_is_freed_when_dropped(adult) -> None:  # type: ignore[no-untyped-def]
    """What a search keeps per table refers to the table alone: no reference cycle keeps a dropped search
    (and its cache of classes) alive until the garbage collector runs."""
    import gc
    import weakref

    table = _table(adult)
    enabled = gc.isenabled()
    gc.disable()
    try:
        search = Search(table, [KAnonymity(3)])
        search.lattice.levels  # noqa: B018 (read through the per-table memo)
        search.priority  # noqa: B018
        gone = weakref.ref(search)
        del search
        assert gone() is None
    finally:
        if enabled:
            gc.enable()
