"""Twin tests of Flash's cheaper per-node work (issue 30 item 3): each shortcut against what it replaces.

* k-anonymity alone judged on the whole size array (:func:`~anonkit.algorithms._node_kernels.judge_sizes`)
  against the general model-by-model loop of :func:`~anonkit.algorithms.transform._judge_classes`;
* a node's suppressed records taken from the class models' sum when nothing after them changes a verdict,
  summed again when subset or whole-release models suppress more;
* the roll-up cache's direct predecessor found by mixed-radix key against the levels-tuple rule, also after
  the least recently used nodes were evicted;
* Flash's path built by a tiered kernel (numpy, the Python loop numba compiles, and the compiled one)
  against the greedy rule it replaced.
"""

from __future__ import annotations

import numpy as np
import pytest

from anonkit import Schema, Table, _kernels, load_adult
from anonkit.algorithms import _node_kernels as N
from anonkit.algorithms import transform as T
from anonkit.algorithms.lattice._space import UNKNOWN, Lattice
from anonkit.algorithms.lattice.flash import path_np, path_py
from anonkit.algorithms.rollup import RollupCache
from anonkit.models import AverageRisk, DistinctLDiversity, KAnonymity

QIS = ["sex", "age", "race", "marital-status", "education"]


@pytest.fixture(scope="module")
def table() -> Table:
    frame, hierarchies = load_adult()
    frame = frame.head(1500).reset_index(drop=True)
    schema = Schema.of(quasi=QIS, hierarchies={q: hierarchies[q] for q in QIS})
    return Table(frame[QIS], schema)


def _general(sizes: np.ndarray, ks: list[int], settle: int | None) -> tuple:
    """The general loop of ``_judge_classes`` (the sizes path switched off)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(T, "sizes_plan", lambda *_a: None)
        return T._judge_classes(T.ClassStats(sizes), [KAnonymity(k) for k in ks], None, settle)


@pytest.mark.parametrize("seed", range(40))
def test_k_alone_on_the_sizes_equals_the_general_path(seed: int) -> None:
    """Random class sizes (empty classes, sizes on ``k``, weights that are not whole numbers), one to three
    k-anonymity models, with and without settling (limits around the failed records): the same released
    classes, monotone count and settling as the model-by-model loop."""
    rng = np.random.default_rng(seed)
    c = int(rng.integers(0, 80))
    sizes = rng.integers(0, 9, c).astype(np.float64)
    if seed % 3 == 1:
        sizes = sizes * rng.choice([0.3, 0.7, 1.1], c)
    ks = [int(k) for k in rng.integers(1, 8, int(rng.integers(1, 4)))]
    ordered = [KAnonymity(k) for k in ks]
    failed = float(sizes[(sizes > 0) & (sizes < max(ks))].sum())
    for settle in (None, 0, int(failed) - 1, int(failed), int(failed) + 1, int(rng.integers(0, 40))):
        want = _general(sizes, ks, settle)
        got = T._judge_classes(T.ClassStats(sizes), ordered, None, settle)
        assert N.sizes_plan(ordered, [True] * len(ks)) == [float(k) for k in ks]
        assert np.array_equal(got[0], want[0]) and got[1:] == want[1:], (sizes, ks, settle)


def test_k_on_its_bound_and_settling_at_the_limit() -> None:
    """Classes of exactly ``k`` pass; the node settles only once the failed records exceed the limit;
    empty classes are neither released nor counted as failed."""
    sizes = np.array([3.0, 2.0, 0.0, 1.0, 5.0])
    for settle, settled in ((None, False), (2, True), (3, False)):
        ok, mono, done = T._judge_classes(T.ClassStats(sizes), [KAnonymity(3)], None, settle)
        assert ok.tolist() == [True, False, False, False, True] and mono is None and done is settled
        assert (ok, mono, done)[2] == _general(sizes, [3], settle)[2]


def test_the_sizes_path_takes_only_monotone_k_on_every_attribute() -> None:
    """k on a subset, another model, or k declared non-monotone by the search take the general path."""
    k = KAnonymity(2)
    assert N.sizes_plan([k, KAnonymity(4)], [True, True]) == [2.0, 4.0]
    for ordered, mono in (([KAnonymity(2, ("sex",))], [True]), ([k, DistinctLDiversity("s", 2)], [True, True]),
                          ([k], [False]), ([], [])):
        assert N.sizes_plan(ordered, mono) is None


def test_suppressed_records_follow_the_models_after_the_class_models(table: Table) -> None:
    """Without subset or whole-release models a node's suppressed records are the class models' own; with a
    k on a subset or an average-risk bound suppressing more, they are counted again (the released classes'
    complement, always)."""
    cases = [[KAnonymity(3)], [KAnonymity(2), KAnonymity(12, ("sex", "age"))], [KAnonymity(2), AverageRisk(0.05)]]
    for models in cases:
        more = 0
        for levels in ((0, 1, 0, 1, 1), (1, 2, 1, 1, 2), (0, 0, 0, 0, 0), (1, 3, 1, 2, 3)):
            ev = T.evaluate_node(table, levels, models, limit=table.n_records, cache=RollupCache(table, models=models))
            assert ev.suppressed == int(ev.class_sizes[~ev.class_ok].sum())
            plain = T.evaluate_node(table, levels, models[:1], limit=table.n_records)
            more += ev.suppressed > plain.suppressed
        assert more > 0 or len(models) == 1  # the later models did suppress more somewhere


def _predecessor_by_tuple(cache: RollupCache, levels: tuple[int, ...]) -> object:
    best = None
    for j, level in enumerate(levels):
        if level:
            hit = cache.entries.get((*levels[:j], level - 1, *levels[j + 1:]))
            if hit is not None and (best is None or hit.n_classes < best.n_classes):
                best = hit
    return best


def test_the_predecessor_by_key_is_the_predecessor_by_levels(table: Table) -> None:
    """Every node of the lattice, with a random half of them cached under a budget that evicts: the
    predecessor the mixed-radix keys find is the one the level tuples find, and the key index holds exactly
    the cached nodes."""
    rng = np.random.default_rng(3)
    lat = Lattice(table.qi, [0] * len(QIS), [h.height for h in table.hierarchies])
    nodes = [tuple(row) for row in lat.levels.tolist()]
    cache = RollupCache(table, models=[KAnonymity(2)], budget_bytes=200_000)
    for i in rng.permutation(len(nodes))[: len(nodes) // 2].tolist():
        cache.classes(nodes[i])
    assert len(cache.entries) < len(nodes) // 2  # some were evicted
    assert sorted(map(id, cache._by_key.values())) == sorted(map(id, cache.entries.values()))
    for levels in nodes:
        key = sum(a * b for a, b in zip(levels, cache._strides, strict=True))
        assert cache._predecessor(levels, key) is _predecessor_by_tuple(cache, levels)


def _path_by_rule(head: int, status: np.ndarray, priority: np.ndarray, lat: Lattice) -> list[int]:
    """The greedy rule Flash's Python loop followed."""
    levels, strides, top = lat.levels, lat.strides.tolist(), lat.max.tolist()
    path = [head]
    while True:
        nxt = -1
        row = levels[path[-1]].tolist()
        for j in range(lat.d):
            succ = path[-1] + strides[j]
            if row[j] < top[j] and status[succ] == UNKNOWN and (nxt < 0 or priority[succ] < priority[nxt]):
                nxt = succ
        if nxt < 0:
            return path
        path.append(nxt)


@pytest.mark.parametrize("seed", range(8))
def test_the_path_kernels_follow_flashs_rule(seed: int) -> None:
    """Random lattices (some bounds above level 0), statuses and priorities: numpy, the Python loop and
    its compiled form build the path the greedy rule builds, from every head."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 5))
    mins = rng.integers(0, 2, d)
    lat = Lattice([f"q{j}" for j in range(d)], mins.tolist(), (mins + rng.integers(0, 4, d)).tolist())
    status = np.where(rng.random(lat.size) < 0.6, UNKNOWN, rng.integers(1, 5, lat.size)).astype(np.int8)
    priority = rng.permutation(lat.size).astype(np.int64)
    maxs, strides = lat.max.astype(np.int64), lat.strides
    out = np.empty(lat.max_height + 1, dtype=np.int64)
    for head in range(lat.size):
        want = _path_by_rule(head, status, priority, lat)
        for kernel in (path_np, path_py, _kernels.compiled(path_py)):
            n = kernel(head, status, priority, lat.levels, maxs, strides, out)
            assert out[:n].tolist() == want


def test_the_scan_reads_the_rows_written_on_demand(table: Table) -> None:
    """A node without a cached direct predecessor is rolled up from a node two levels below found by the
    scan (its row still pending until then); after random insertions and evictions the matrices hold every
    cached node's levels and classes, alive exactly while cached, in insertion order."""
    cache = RollupCache(table, models=[KAnonymity(2)])
    cache.classes((0, 0, 0, 0, 0))
    cache.classes((0, 2, 0, 0, 0))
    assert (cache.computed, cache.rolled) == (1, 1)
    chain = [(0, 0, 0, 0, 0), (0, 1, 0, 0, 0), (0, 2, 0, 0, 0), (0, 3, 0, 0, 0)]
    cache = RollupCache(table, models=[KAnonymity(2)], budget_bytes=1)  # each node evicts the one before
    for levels in chain:
        cache.classes(levels)
    cache._flush()
    assert list(cache.entries) == chain[-1:] and cache._alive[: cache._n].tolist() == [False] * 3 + [True]
    rng = np.random.default_rng(5)
    lat = Lattice(table.qi, [0] * len(QIS), [h.height for h in table.hierarchies])
    nodes = [tuple(row) for row in lat.levels.tolist()]
    cache = RollupCache(table, models=[KAnonymity(2)], budget_bytes=150_000)
    order: list[tuple[int, ...]] = []
    for i in rng.permutation(len(nodes))[:120].tolist():
        if nodes[i] not in cache.entries:
            order.append(nodes[i])
        cache.classes(nodes[i])
    cache._flush()
    assert cache._n == len(order) and not cache._pending
    assert cache._keys[: cache._n].tolist() == [list(levels) for levels in order]
    assert cache._alive[: cache._n].tolist() == [levels in cache.entries for levels in order]
    assert all(cache._classes[cache._row[lv]] == node.n_classes for lv, node in cache.entries.items())


def test_the_roll_up_maps_are_kept_per_table(table: Table) -> None:
    """Two caches of one table share the roll-up maps (read-only), equal to a fresh build."""
    table.distinct  # noqa: B018 (the per-table memo is kept on it)
    a, b = RollupCache(table, models=[KAnonymity(2)]), RollupCache(table)
    assert a._maps_up is b._maps_up and not a._maps_up[0].flags.writeable
    fresh = RollupCache(table)._build_maps_up()
    assert np.array_equal(fresh[0], a._maps_up[0]) and fresh[1:] == a._maps_up[1:]
