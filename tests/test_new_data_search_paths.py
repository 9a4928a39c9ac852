"""Twin tests of what Flash's search does on a table of *new data* (issue 30, session 11 round 2: the records
differ, so nothing kept per table or by content can hit and every node with no cached node below is grouped
from the distinct tuples):

* the one-pass grouping of such a node (:func:`~anonkit._kernels.node_grouping`: the tuples' classes, the
  classes' codes and their sizes), on both tiers, against what it replaced — :func:`~anonkit._kernels.node_ids`'
  ids, the codes gathered from each class's first tuple and ``np.bincount``'s sizes, bit for bit;
* :meth:`~anonkit.algorithms.rollup.RollupCache._compute` taking that pass (its sizes given to
  :func:`~anonkit.stats.class_stats_for`) only when the statistics are the table's own (no tuple weights),
  with the same arrays as :meth:`Table.tuple_classes` and :meth:`Table.stats`; and Flash's releases equal to
  those of the path it replaced.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest

from anonkit import Schema, Table
from anonkit import _kernels as K
from anonkit.algorithms import rollup
from anonkit.algorithms.lattice.flash import flash
from anonkit.algorithms.rollup import RollupCache
from anonkit.hierarchy import Hierarchy
from anonkit.models import DistinctLDiversity, KAnonymity

AGES = [str(20 + a) for a in range(37)]
ZIPS = [f"z{i}" for i in range(29)]


@pytest.fixture
def tier() -> Iterator[None]:
    """Restore the process's tier after a test that sets it."""
    was = K.use_numba()
    yield
    K.use_numba(was)


def _hierarchies() -> dict[str, Hierarchy]:
    return {
        "age": Hierarchy([[a, f"b{(int(a) - 20) // 3}", f"h{(int(a) - 20) // 12}", "*"] for a in AGES], name="age"),
        "zip": Hierarchy([[z, f"p{i // 3}", f"h{i // 9}", "*"] for i, z in enumerate(ZIPS)], name="zip"),
        "sex": Hierarchy([["m", "*"], ["f", "*"], ["x", "*"]], name="sex"),
    }


def _table(seed: int, n: int = 3000) -> Table:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "age": [str(x) for x in rng.choice(np.array(AGES, dtype=object), n)],
        "zip": [str(x) for x in rng.choice(np.array(ZIPS, dtype=object), n)],
        "sex": [str(x) for x in rng.choice(np.array(["m", "f", "x"], dtype=object), n, p=[0.5, 0.45, 0.05])],
        "disease": [str(x) for x in rng.choice(np.array(["flu", "hiv", "cold", "none"], dtype=object), n)],
    })
    schema = Schema.of(quasi=["age", "zip", "sex"], sensitive=["disease"], hierarchies=_hierarchies())
    return Table(frame, schema)


# ---------------------------------------------------------------------------------------- the kernel
def _replaced(cols: np.ndarray, flat: np.ndarray, offsets: np.ndarray, sizes: np.ndarray, radix: int,
              weights: np.ndarray) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """What the search did before the one-pass grouping: ``node_ids``' ids, each class's codes gathered from
    its first tuple, the sizes by ``np.bincount``."""
    ids, g = K.compiled(K._node_ids_py)(cols, flat, offsets, sizes, radix)
    first = np.array([int(np.flatnonzero(ids == c)[0]) for c in range(g)], dtype=np.int64)
    codes = flat[np.ascontiguousarray(cols.T)[first].astype(np.int64) + offsets].reshape(g, len(offsets))
    return ids, g, codes, np.bincount(ids, weights=weights, minlength=g).astype(np.float64)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("space", ["lookup", "hashed"])
@pytest.mark.parametrize("kernel", ["compiled", "numpy"])
def test_node_grouping_is_what_it_replaced(seed: int, space: str, kernel: str) -> None:
    """Both tiers of the one-pass grouping give ``node_ids``' ids (first-appearance order), the classes'
    codes read from their first tuples and the sizes with ``np.bincount``'s bits (weights with fractions:
    a sum in another order shows in the last bits), on a small key space (a lookup array) and a large one
    (the hash table). Catches codes read at the leaves or another attribute's block, a size summed as a
    count or out of row order, ids numbered otherwise, the hashed path's probing or first rows wrong."""
    rng = np.random.default_rng(seed)
    d, m, leaves = 4, 700 + 37 * seed, 300
    sizes = rng.integers(2, 6 if space == "lookup" else 280, d).astype(np.int64)
    flat = np.concatenate([rng.integers(0, s, leaves) for s in sizes]).astype(np.int64)
    offsets = np.arange(d, dtype=np.int64) * leaves
    cols = rng.integers(0, leaves, (d, m // 3)).astype(np.int32)[:, rng.integers(0, m // 3, m)]  # rows repeated
    cols = np.ascontiguousarray(cols)
    radix = int(np.prod(sizes))
    assert (radix <= 4 * m + 4096) == (space == "lookup")
    weights = rng.random(m) * 7.0
    want = _replaced(cols, flat, offsets, sizes, radix, weights)
    run = K.compiled(K._grouping_py) if kernel == "compiled" else K._grouping_np
    got = run(cols, flat, offsets, sizes, radix, weights)
    assert got[1] == want[1] and 1 < want[1] < m
    for a, b in zip([got[0], *got[2:]], [want[0], *want[2:]], strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("jit", [True, False])
def test_node_grouping_ids_are_node_ids(tier: None, jit: bool) -> None:
    """:func:`~anonkit._kernels.node_grouping` (as the search calls it, on either tier) gives
    :func:`~anonkit._kernels.node_ids`' ids, and ``None`` where it does (a key space beyond an int64).
    Catches the tiers' dispatch swapped to another kernel or the overflow check dropped."""
    K.use_numba(jit)
    table = _table(1)
    d = table.distinct
    flat, base = table._flat_maps
    for levels in [(0, 0, 0), (1, 0, 1), (2, 1, 0), (3, 3, 1)]:
        hs = table.hierarchies
        offsets = np.array([base[j] + lv * hs[j].n_leaves for j, lv in enumerate(levels)], dtype=np.int64)
        sizes = np.array([hs[j].size(lv) for j, lv in enumerate(levels)], dtype=np.int64)
        ids, g = K.node_ids(d.matrix, flat, offsets, sizes)
        got = K.node_grouping(d.matrix, flat, offsets, sizes, d.counts)
        assert got is not None and got[1] == g and got[0].tobytes() == ids.tobytes()
    huge = np.full(3, 2**21, dtype=np.int64)
    assert K.node_grouping(d.matrix, flat, np.zeros(3, dtype=np.int64), huge, d.counts) is None


# ---------------------------------------------------------------------------------------- the roll-up cache
def _fresh(table: Table, levels: tuple[int, ...], weight: np.ndarray | None, models: list) -> tuple:
    """A node grouped and counted as before the one-pass grouping: ``Table.tuple_classes``, the first tuples'
    codes, ``Table.stats``."""
    tc, n = table.tuple_classes(list(levels))
    first = np.array([int(np.flatnonzero(tc == c)[0]) for c in range(n)], dtype=np.int64)
    codes = np.stack([h.maps[lv][table.distinct.tuples[first, j]] for j, (h, lv) in
                      enumerate(zip(table.hierarchies, levels, strict=True))], axis=1).astype(np.int64)
    return tc, n, codes, table.stats(tc, n, weight, models=models, levels=levels)


@pytest.mark.parametrize("jit", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_computed_nodes_are_the_tables_own(monkeypatch: pytest.MonkeyPatch, tier: None, weighted: bool,
                                           jit: bool) -> None:
    """A node grouped from scratch on a new table has the classes, codes, sizes and histograms of
    ``Table.tuple_classes`` and ``Table.stats``; the grouping's sizes are taken only without tuple weights
    (with them the sizes are summed again over the weights). Catches the weight check dropped (the
    unweighted sizes of a weighted search), sizes or histograms taken from another node, and the one-pass
    grouping not taken (counted), on both tiers."""
    K.use_numba(jit)
    table = _table(2)
    models = [KAnonymity(3), DistinctLDiversity("disease", 2)]
    weight = None
    if weighted:
        weight = table.distinct.counts.copy()
        weight[::5] = 0.0
    calls: list[bool] = []
    real = rollup.class_stats_for

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(kwargs.get("sizes") is not None)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(rollup, "class_stats_for", counting)
    cache = RollupCache(table, weight, models=models)
    for levels in [(0, 0, 1), (0, 3, 0), (3, 0, 0), (2, 2, 0)]:  # none below another: each grouped anew
        node = cache.classes(levels)
        tc, n, codes, stats = _fresh(table, levels, weight, models)
        assert node.n_classes == n and node.tuple_class.tobytes() == tc.tobytes()
        assert node.codes.dtype == np.int64 and node.codes.tobytes() == codes.tobytes()
        assert node.stats.sizes.tobytes() == stats.sizes.tobytes()
        assert node.stats.hist.keys() == stats.hist.keys() == {"disease"}
        assert node.stats.hist["disease"].tobytes() == stats.hist["disease"].tobytes()
    assert cache.computed == 4 and cache.rolled == 0
    assert calls == ([] if weighted else [True] * 4)


@pytest.mark.parametrize("jit", [True, False])
def test_flash_releases_equal_the_replaced_path(monkeypatch: pytest.MonkeyPatch, tier: None, jit: bool) -> None:
    """Flash on new tables gives, with the one-pass grouping, the releases (transformation, suppressed
    records, score, every node's status) of the path it replaced (forced by raising the grouping's tuple
    bound to none: ``tuple_classes``, a gather, ``Table.stats``), on a k-anonymity and an l-diversity search.
    Catches any of the pass's arrays wrong where the search reads them, on both tiers."""
    K.use_numba(jit)
    calls: list[int] = []
    real = rollup.node_grouping

    def counting(*args: object) -> object:
        calls.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(rollup, "node_grouping", counting)
    for seed in (3, 4):
        for models in ([KAnonymity(4)], [KAnonymity(2), DistinctLDiversity("disease", 3)]):
            fast = flash(_table(seed), models, max_suppression=0.04)
            n_fast = len(calls)
            monkeypatch.setattr(rollup, "NUMBA_BELOW", 0)
            slow = flash(_table(seed), models, max_suppression=0.04)
            monkeypatch.setattr(rollup, "NUMBA_BELOW", K.NUMBA_BELOW)
            assert n_fast > 0 and len(calls) == n_fast  # the pass ran, then not at all
            calls.clear()
            assert fast.transformation == slow.transformation and fast.n_suppressed == slow.n_suppressed
            assert fast.search is not None and slow.search is not None
            assert fast.search.score == slow.search.score
            assert fast.search.status.tobytes() == slow.search.status.tobytes()
