"""MDAV through the tree of bounds and the centroid snapshot (issue 30, item 2): on random small tables
(duplicates, ties, missing values; numeric, categorical with and without hierarchies, mixed) the
groups of ``_mdav_index`` equal the distinct-tuple scan's (``_mdav_tuples``, itself held equal to the
record-by-record reference in tests/test_mdav_fast.py), in the numpy tier and compiled by numba, with
tiny leaves and fan-outs so that every level prunes; every search returns what brute force over the
live tuples gives; the k-d order is a permutation with whole leaves."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit import Schema, Table
from anonkit._kernels import use_numba
from anonkit.algorithms.cluster._mdav_drift import centroid_farthest
from anonkit.algorithms.cluster._mdav_index import Index, kd_order, mdav_groups_index
from anonkit.algorithms.cluster._mdav_tuples import mdav_groups_tuples, nearest_of
from anonkit.algorithms.cluster.mdav import INDEX_FROM, _grouping, _Space, mdav, mdav_groups
from anonkit.models import KAnonymity
from mdav_tables import random_table

SLOW = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
TABLES = {
    "seed": st.integers(0, 10**6),
    "n": st.integers(1, 90),
    "numeric": st.sampled_from([0, 2, 3]),
    "categorical": st.booleans(),
    "levels": st.sampled_from([1, 2, 3, 1000]),
    "missing": st.booleans(),
}


@pytest.fixture(params=[False, True], ids=["numpy", "numba"])
def tier(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """Every test in both tiers of the searches (:func:`anonkit._kernels.tiered`)."""
    before = use_numba()
    use_numba(request.param)
    yield request.param
    use_numba(before)


def space_of(seed: int, n: int, numeric: int, categorical: bool, levels: int, missing: bool,
             standardize: str = "zscore") -> _Space:
    table = random_table(seed, n, numeric=numeric, categorical=categorical, levels=levels, missing=missing)
    return _Space(table, np.flatnonzero(~table.presuppressed), standardize)


@settings(max_examples=10, deadline=None, suppress_health_check=SLOW)
@given(**TABLES, k=st.integers(1, 6), leaf=st.sampled_from([1, 2, 3]), fan=st.sampled_from([2, 3]),
       standardize=st.sampled_from(["zscore", "minmax"]))
def test_index_groups_equal_the_tuple_scan(seed: int, n: int, numeric: int, categorical: bool, levels: int,
                                           missing: bool, k: int, leaf: int, fan: int, standardize: str,
                                           tier: bool) -> None:
    space = space_of(seed, n, numeric, categorical, levels, missing, standardize)
    assert mdav_groups_index(space, k, leaf=leaf, fan=fan).tolist() == mdav_groups_tuples(space, k).tolist()


def brute(ix: Index, query: np.ndarray, cat: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    live = np.flatnonzero(ix.t.count > 0)
    return live, ix.exact(live, query, cat)


@settings(max_examples=12, deadline=None, suppress_health_check=SLOW)
@given(**TABLES, k=st.integers(1, 5), removals=st.integers(0, 8), pick=st.integers(0, 10**6))
def test_searches_equal_brute_force(seed: int, n: int, numeric: int, categorical: bool, levels: int, missing: bool,
                                    k: int, removals: int, pick: int, tier: bool) -> None:
    """After some removals (boxes and value sets shrunk), the farthest tuple from the centroid and
    from a tuple, and the k nearest records, are brute force's."""
    space = space_of(seed, n, numeric, categorical, levels, missing)
    ix = Index(space, 2, 2)
    rng = np.random.default_rng(pick)
    for _ in range(removals):
        live = np.flatnonzero(ix.t.count > 0)
        if len(live) <= 1:
            break
        r = int(rng.choice(live))
        ix.remove(np.array([r]), np.array([int(rng.integers(1, ix.t.count[r] + 1))]))
    live = np.flatnonzero(ix.t.count > 0)
    if not len(live):
        return
    query, cat = ix.centroid()
    pos, d = brute(ix, query, cat)
    tied = pos[d == d.max()]
    expected = int(tied[np.argmin(ix.t.head[tied])])
    assert ix.farthest(query, cat) == expected
    assert centroid_farthest(ix, np.fmax.reduce(np.abs(ix.ZT), axis=0, initial=0.0), None)[0] == expected
    r = int(rng.choice(live))
    cat_r = [space.delta2_row(i, int(c[r])) for i, c in enumerate(ix.t.C)]
    pos, d = brute(ix, ix.ZT[r], cat_r)
    tied = pos[d == d.max()]
    assert ix.farthest(ix.ZT[r].copy(), cat_r) == int(tied[np.argmin(ix.t.head[tied])])
    if ix.t.m > k:
        rows, extra = nearest_of(ix.t, pos, d, int(np.searchsorted(pos, r)), k)
        got = ix.nearest(r, k)
        assert (got[0].tolist(), got[1].tolist()) == (pos[rows].tolist(), extra.tolist())


def test_centroid_snapshot_is_reused_and_stays_exact(tier: bool) -> None:
    """A snapshot taken at one round serves the next rounds (the drift bound keeps the walk short and
    exact): the farthest tuples over a run equal brute force's, and the snapshot is not rebuilt every
    round."""
    space = space_of(3, 400, 2, True, 1000, False)
    ix = Index(space)
    zmax = np.fmax.reduce(np.abs(ix.ZT), axis=0, initial=0.0)
    snap, snaps = None, set()
    for _ in range(30):
        query, cat = ix.centroid()
        pos, d = brute(ix, query, cat)
        tied = pos[d == d.max()]
        xr, snap = centroid_farthest(ix, zmax, snap)
        snaps.add(id(snap))
        assert xr == int(tied[np.argmin(ix.t.head[tied])])
        ix.remove(*ix.nearest(xr, 3))
    assert len(snaps) < 10


@settings(max_examples=15, deadline=None)
@given(u=st.integers(1, 200), d=st.integers(1, 4), leaf=st.integers(1, 9), seed=st.integers(0, 1000))
def test_kd_order_is_a_permutation_with_compact_leaves(u: int, d: int, leaf: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, (u, d)).astype(np.float64)
    order = kd_order(X, np.ones(d), leaf)
    assert sorted(order.tolist()) == list(range(u))
    # the first split is on the widest coordinate: the first half's values never exceed the second's
    if u > leaf and np.ptp(X[:, 0]) > 0 and d == 1:
        mid = -(-u // (2 * leaf)) * leaf
        assert X[order[:mid], 0].max() <= X[order[mid:], 0].min()


def test_mdav_takes_the_index_from_its_threshold_and_keeps_the_reference_groups() -> None:
    """``mdav`` routes a table of INDEX_FROM records with two numeric QIs through the index, and its
    groups are the record-by-record reference's (a control below the threshold takes the scan)."""
    rng = np.random.default_rng(5)
    n = INDEX_FROM
    frame = pd.DataFrame({"a": rng.integers(0, 40, n).astype(str), "b": rng.integers(0, 9, n).astype(str),
                          "c": rng.choice(["x", "y", "z"], n)})
    table = Table(frame, Schema.of(quasi=["a", "b", "c"], types={"a": "numeric", "b": "numeric"}))
    space = _Space(table, np.arange(n), "zscore")
    assert _grouping(space) is mdav_groups_index
    rel = mdav(table, [KAnonymity(25)], output="intervals")
    assert rel.record_group.tolist() == mdav_groups(space, 25).tolist()
    small = _Space(table, np.arange(n - 1), "zscore")
    assert _grouping(small) is mdav_groups_tuples
