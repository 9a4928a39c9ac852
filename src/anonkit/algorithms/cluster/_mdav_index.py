"""MDAV's farthest and nearest searches through a bounding-box tree over the distinct tuples (issue 30:
near-linear in practice with two or more numeric quasi-identifiers, or none).

:mod:`~anonkit.algorithms.cluster._mdav_tuples` scans every remaining distinct tuple at every round,
so ten times the distinct tuples cost about a hundred times the time. Here the distinct tuples are put
in a k-d order (:func:`kd_order`: each segment split at its middle on the coordinate of widest spread,
the splits aligned to whole leaves) and cut into *leaves* of :data:`LEAF` consecutive tuples, leaves
into nodes of :data:`FAN` leaves, and so on up to at most :data:`FAN` top nodes. Every node keeps the
records it still holds, the box of its live tuples' known numeric values (refreshed when a tuple
empties), whether it holds a missing value, and the set of values of every non-numeric QI it held.

A query's distance is MDAV's, ``Σ_numeric (z − q)² + Σ_other cat[value]`` (``cat``: the squared
distance of every value to the query's, or to the centroid's shares), with a missing value's term 1.
From a node's box and value sets come a lower and an upper bound of the distance of any of its
tuples, widened by a relative :data:`MARGIN` so that they hold for the rounded distances whatever
the order of the bound's own arithmetic. The searches walk down level by level, all candidates of a
level at once:

* *farthest*: the largest lower bound among live candidates is reached by some live tuple, so a
  node whose upper bound is below it holds no farthest tuple and is dropped;
* *k nearest*: the smallest ``U`` such that candidates with upper bound ``≤ U`` hold ``k`` records
  bounds the ``k − 1``-th nearest other record's distance, so a node whose lower bound exceeds ``U``
  is dropped.

At the leaves the survivors' distances are computed exactly as the tuple path computes them (same
terms, same order of addition), and the choice (ties: lowest record index) is the tuple path's own
(:func:`~anonkit.algorithms.cluster._mdav_tuples.nearest_of`). The groups are therefore exactly those
of :func:`~anonkit.algorithms.cluster._mdav_tuples.mdav_groups_tuples` and of the record-by-record
reference (tests/test_mdav_index.py, tests/test_mdav_fast.py). Nothing is quadratic but in the worst
case (every box overlapping every query, e.g. all tuples equidistant), where it degrades to the tuple
path's scan plus the bounds.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from anonkit._kernels import tiered, use_numba
from anonkit.algorithms.cluster import _mdav_search
from anonkit.algorithms.cluster._mdav_drift import centroid_farthest
from anonkit.algorithms.cluster._mdav_tuples import Tuples, missing_one, nearest_of

#: distinct tuples per leaf of the tree
LEAF = 16
#: children per inner node
FAN = 16
#: weight of a numeric coordinate's squared range against 1 for a non-numeric one in the k-d order
NUMERIC_SPLIT_WEIGHT = 1.0
#: relative widening of the bounds (far above the rounding error of a sum of a few hundred terms)
MARGIN = 1e-9
#: absolute widening of the bounds (for distances near zero)
TINY = 1e-300


@functools.cache
def _bind() -> None:
    """Compile the search kernels' helpers once (:func:`anonkit.algorithms.cluster._mdav_search.bind`)."""
    _mdav_search.bind()


def _ranges(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The concatenated ranges ``starts[j] … starts[j] + sizes[j] − 1``."""
    total = int(sizes.sum())
    return np.arange(total) + np.repeat(starts - (np.cumsum(sizes) - sizes), sizes)


def kd_order(X: np.ndarray, spread_weight: np.ndarray, leaf: int) -> np.ndarray:
    """A k-d order of the rows of ``X`` (rows × coordinates, no NaN): every segment of more than
    ``leaf`` rows is sorted on its coordinate of widest ``spread_weight``-ed spread (numeric: the
    squared range; 0/1 weights give a non-numeric coordinate 1 while it takes two values) and split
    at its first whole leaf past the middle; all segments of a level at once."""
    u, d = X.shape
    ranks = np.empty((u, d), dtype=np.int64)
    for j in range(d):
        ranks[np.argsort(X[:, j], kind="stable"), j] = np.arange(u)
    order = np.arange(u)
    cuts = np.array([0, u])
    while True:
        sizes = np.diff(cuts)
        if not (sizes > leaf).any():
            return order
        starts = cuts[:-1]
        xo = X[order]
        span = np.maximum.reduceat(xo, starts, axis=0) - np.minimum.reduceat(xo, starts, axis=0)
        spread = np.where(spread_weight > 0, span * span * spread_weight, (span > 0).astype(np.float64))
        dim = np.argmax(spread, axis=1)
        seg = np.repeat(np.arange(len(sizes)), sizes)
        key = seg * u + ranks[order, dim[seg]]
        order = order[np.argsort(key, kind="stable")]
        split = sizes > leaf
        mids = starts[split] + -(-sizes[split] // (2 * leaf)) * leaf
        cuts = np.union1d(cuts, mids)


class Index:
    """The remaining distinct tuples in k-d order with the tree of bounds (module docstring)."""

    def __init__(self, space: Any, leaf: int = LEAF, fan: int = FAN) -> None:
        t = Tuples(space)
        u = len(t.count)
        self.p, self.q = len(t.Z), len(t.C)
        X = np.zeros((u, self.p + self.q))
        weight = np.zeros(self.p + self.q)
        for i, z in enumerate(t.Z):
            known = ~np.isnan(z)
            X[:, i] = np.where(known, z, (np.min(z[known]) - 1.0) if known.any() else 0.0)
            weight[i] = NUMERIC_SPLIT_WEIGHT
        for i, c in enumerate(t.C):
            X[:, self.p + i] = c
        t.permute(kd_order(X, weight, leaf))
        self.t, self.space, self.leaf, self.fan = t, space, leaf, fan
        self.u = u
        self.ZT = np.stack(t.Z, axis=1) if self.p else np.zeros((u, 0))  # tuples × numeric QIs
        self.missing = np.array(space.missing[: self.p], dtype=bool)
        self.values = [np.bincount(c, weights=t.count, minlength=space.sizes[i]).astype(np.int64)
                       for i, c in enumerate(t.C)]
        # levels: 0 = leaves; node of every tuple, records, boxes
        self.node_of: list[np.ndarray] = []
        self.size: list[int] = []
        pos = np.arange(u)
        width = leaf
        while True:
            self.node_of.append(pos // width)
            self.size.append(-(-u // width))
            if self.size[-1] <= fan:
                break
            width *= fan
        self.top = len(self.size) - 1
        self.level_size = np.array(self.size, dtype=np.int64)
        self.level_off = np.concatenate([[0], np.cumsum(self.size)]).astype(np.int64)
        n_nodes = int(self.level_off[-1])
        # every level's arrays are views of one global array each (the compiled tier reads those)
        self.g_records = np.zeros(n_nodes, dtype=np.int64)
        self.g_lo = np.zeros((n_nodes, self.p))
        self.g_hi = np.zeros((n_nodes, self.p))
        self.g_nan = np.zeros((n_nodes, self.p), dtype=bool)
        views = [slice(int(self.level_off[v]), int(self.level_off[v + 1])) for v in range(len(self.size))]
        self.records = [self.g_records[v] for v in views]
        self.lo = [self.g_lo[v] for v in views]
        self.hi = [self.g_hi[v] for v in views]
        self.nan = [self.g_nan[v] for v in views]
        for level in range(len(self.size)):
            self.records[level][:] = np.bincount(self.node_of[level], weights=t.count, minlength=self.size[level])
            self.lo[level][:], self.hi[level][:], self.nan[level][:] = self._boxes(level, np.arange(self.size[level]))
        self.CT = np.stack(t.C, axis=1) if self.q else np.zeros((u, 0), dtype=np.intp)  # tuples × other QIs
        self._value_sets(space)
        self.CTo = self.CT + self.cat_offset[:-1]  # value ids into the concatenated per-value terms

    def _value_sets(self, space: Any) -> None:
        """Every node's values of every non-numeric QI (static): one list, node-major (global node ids)
        then QI, of value ids into the concatenated per-value terms (``cat_offset``)."""
        self.cat_offset = np.concatenate([[0], np.cumsum(space.sizes[: self.q])]).astype(np.int64)
        width = max(int(self.cat_offset[-1]), 1)
        keys = []
        for level in range(len(self.size)):
            node = np.repeat(self.node_of[level] + self.level_off[level], self.q)
            qi = np.tile(np.arange(self.q), self.u)
            keys.append((node * self.q + qi) * width + self.CT.reshape(-1) + self.cat_offset[qi])
        flat = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
        key, entry = np.unique(flat, return_inverse=True)
        self.set_vals = (key % width).astype(np.int64)
        self.set_off = np.searchsorted(key // width, np.arange(int(self.level_off[-1]) * self.q + 1)).astype(np.int64)
        # the live tuples holding every entry, and every tuple's entries (tuples × (levels · QIs))
        self.entry = entry.reshape(len(self.size), self.u, self.q).transpose(1, 0, 2).reshape(self.u, -1)
        self.set_cnt = np.bincount(self.entry.reshape(-1), minlength=len(key)).astype(np.int64)

    def _boxes(self, level: int, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The boxes of the live tuples' known numeric values of ``nodes`` (sorted) at ``level``: low,
        high (``+inf``/``−inf`` where none) and whether a live tuple is missing the value."""
        if level == 0:
            starts = nodes * self.leaf
            sizes = np.minimum(starts + self.leaf, self.u) - starts
            idx = _ranges(starts, sizes)
            z = self.ZT[idx]
            live = (self.t.count[idx] > 0)[:, None]
            known = ~np.isnan(z)
            lo_in = np.where(known & live, z, np.inf)
            hi_in = np.where(known & live, z, -np.inf)
            nan_in = ~known & live
        else:
            child = self.fan
            starts = nodes * child
            sizes = np.minimum(starts + child, self.size[level - 1]) - starts
            idx = _ranges(starts, sizes)
            lo_in, hi_in, nan_in = self.lo[level - 1][idx], self.hi[level - 1][idx], self.nan[level - 1][idx]
        cuts = np.cumsum(sizes) - sizes
        if not self.p:
            empty = np.zeros((len(nodes), 0))
            return empty, empty, empty.astype(bool)
        return (np.minimum.reduceat(lo_in, cuts, axis=0), np.maximum.reduceat(hi_in, cuts, axis=0),
                np.logical_or.reduceat(nan_in, cuts, axis=0))

    def _refresh(self, dead: np.ndarray) -> None:
        """Shrink the boxes of the leaves (and their ancestors) where tuples ``dead`` emptied."""
        nodes = np.unique(dead // self.leaf)
        for level in range(len(self.size)):
            if level:
                nodes = np.unique(nodes // self.fan)
            lo, hi, nan = self._boxes(level, nodes)
            self.lo[level][nodes], self.hi[level][nodes], self.nan[level][nodes] = lo, hi, nan

    def bounds(self, level: int, nodes: np.ndarray, query: np.ndarray,
               cat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper bounds of the distance of any tuple of ``nodes`` at ``level``: numeric
        ``query`` (NaN: every term 1) and ``cat`` (the concatenated per-value terms of the other QIs)."""
        lower = np.zeros(len(nodes))
        upper = np.zeros(len(nodes))
        if self.p:
            lo, hi, nan = self.lo[level][nodes], self.hi[level][nodes], self.nan[level][nodes]
            with np.errstate(invalid="ignore"):
                below, above = lo - query, hi - query
                tl = np.where(below > 0, below * below, np.where(above < 0, above * above, 0.0))
                tu = np.maximum(below * below, above * above)
            has = lo <= hi  # a known value
            tl = np.where(has, tl, np.inf)
            tu = np.where(has, tu, -np.inf)
            miss = nan | np.isnan(query)  # a term of 1 (only where the QI has missing values)
            tl = np.where(miss, np.minimum(tl, 1.0), tl)
            tu = np.where(miss, np.maximum(tu, 1.0), tu)
            qnan = np.isnan(query)
            tl[:, qnan] = 1.0
            tu[:, qnan] = 1.0
            lower += tl.sum(axis=1)
            upper += tu.sum(axis=1)
        if self.q:
            seg = ((nodes[:, None] + self.level_off[level]) * self.q + np.arange(self.q)).reshape(-1)
            starts, sizes = self.set_off[seg], self.set_off[seg + 1] - self.set_off[seg]
            idx = _ranges(starts, sizes)
            g = cat[self.set_vals[idx]]
            live = self.set_cnt[idx] > 0  # values no live tuple holds any more do not count
            cuts = np.cumsum(sizes) - sizes
            lower += np.minimum.reduceat(np.where(live, g, np.inf), cuts).reshape(len(nodes), self.q).sum(axis=1)
            upper += np.maximum.reduceat(np.where(live, g, -np.inf), cuts).reshape(len(nodes), self.q).sum(axis=1)
        return lower * (1.0 - MARGIN) - TINY, upper * (1.0 + MARGIN) + TINY

    def exact(self, pos: np.ndarray, query: np.ndarray, cat: list[np.ndarray]) -> np.ndarray:
        """The distance of tuples ``pos``, term by term in the tuple path's order."""
        out = np.zeros(len(pos))
        for i, z in enumerate(self.t.Z):
            term = (z[pos] - query[i]) ** 2
            out += missing_one(term) if self.missing[i] else term
        for i, c in enumerate(self.t.C):
            out += cat[i].take(c[pos])
        return out

    def _children(self, level: int, nodes: np.ndarray) -> np.ndarray:
        """The live children of ``nodes`` (at ``level − 1``; at level 0: the live tuples)."""
        if level == 0:
            starts = nodes * self.leaf
            idx = _ranges(starts, np.minimum(starts + self.leaf, self.u) - starts)
            return idx[self.t.count[idx] > 0]
        starts = nodes * self.fan
        idx = _ranges(starts, np.minimum(starts + self.fan, self.size[level - 1]) - starts)
        return idx[self.records[level - 1][idx] > 0]

    def _candidates(self, query: np.ndarray, flat: np.ndarray, keep: Any) -> np.ndarray:
        """The live tuples left after pruning every level with ``keep(lower, upper, records)``."""
        nodes = np.flatnonzero(self.records[self.top] > 0)
        for level in range(self.top, -1, -1):
            if level < self.top:
                nodes = self._children(level + 1, nodes)
            lower, upper = self.bounds(level, nodes, query, flat)
            nodes = nodes[keep(lower, upper, self.records[level][nodes])]
        return self._children(0, nodes)

    def _search_np(self, mode: int, k: int, query: np.ndarray, flat: np.ndarray,
                   cat: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The numpy tier of :func:`~anonkit.algorithms.cluster._mdav_search.search_py`: the
        candidates left by the bounds, level by level, with their exact distances (a superset of what
        the compiled tier returns, which the callers' choice makes no difference to)."""

        def nearest(lower: np.ndarray, upper: np.ndarray, records: np.ndarray) -> np.ndarray:
            ranked = np.argsort(upper, kind="stable")
            enough = np.searchsorted(np.cumsum(records[ranked]), k)
            reach = upper[ranked[enough]] if enough < len(ranked) else np.inf
            return lower <= reach

        pos = self._candidates(query, flat, nearest if mode else lambda lower, upper, _: upper >= lower.max())
        return pos, self.exact(pos, query, cat)

    def search(self, mode: int, k: int, query: np.ndarray, cat: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Tuples and their distances for a farthest (``mode`` 0) or k-nearest (1) query, through
        numba once the run's numpy work pays for it (:func:`anonkit._kernels.tiered`)."""
        flat = np.concatenate(cat) if cat else np.zeros(0)
        if use_numba():
            _bind()
        t = self.t
        args = (query, np.isnan(query), flat, self.leaf, self.fan, self.top, self.level_off, self.level_size,
                self.g_lo, self.g_hi, self.g_nan, self.g_records, self.set_vals, self.set_off, self.set_cnt, self.ZT,
                self.CTo, t.count, self.missing, MARGIN, TINY)

        def numpy_tier(*_: Any) -> tuple[np.ndarray, np.ndarray]:
            return self._search_np(mode, k, query, flat, cat)

        if mode == 0:
            return tiered(_mdav_search.farthest_py, numpy_tier, *args)  # type: ignore[no-any-return]
        return tiered(_mdav_search.nearest_py, numpy_tier, k, *args)  # type: ignore[no-any-return]

    def farthest(self, query: np.ndarray, cat: list[np.ndarray]) -> int:
        """The live tuple farthest from the query (ties: the one holding the lowest record)."""
        pos, d = self.search(0, 1, query, cat)
        tied = pos[d == d.max()]
        return int(tied[np.argmin(self.t.head[tied])])

    def nearest(self, r: int, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Tuple ``r``'s lowest record and the ``k − 1`` other remaining records nearest to it (ties:
        lowest record index), as (tuples, records taken from each)."""
        t = self.t
        if t.m <= k:
            pos = np.flatnonzero(t.count)
            return pos, t.count[pos].copy()
        query = self.ZT[r]
        cat = [self.space.delta2_row(i, int(c[r])) for i, c in enumerate(t.C)]
        pos, d = self.search(1, k, query, cat)
        if not (pos == r).any():
            pos, d = np.append(pos, r), np.append(d, self.exact(np.array([r]), query, cat))
        order = np.argsort(pos, kind="stable")
        pos, d = pos[order], d[order]
        rows, extra = nearest_of(t, pos, d, int(np.searchsorted(pos, r)), k)
        return pos[rows], extra

    def remove(self, pos: np.ndarray, extra: np.ndarray) -> np.ndarray:
        """Take ``extra[j]`` records of tuple ``pos[j]``; return the records taken."""
        t = self.t
        members, left = t.take_fixed(pos, extra)
        for level in range(len(self.size)):
            np.subtract.at(self.records[level], self.node_of[level][pos], extra)
        for i, c in enumerate(t.C):
            np.subtract.at(self.values[i], c[pos], extra)
        dead = pos[~left]
        if dead.size:
            if self.q:
                np.subtract.at(self.set_cnt, self.entry[dead].reshape(-1), 1)
            if self.p:
                if use_numba():
                    _bind()
                tiered(_mdav_search.refresh_py, lambda *_: self._refresh(dead), np.unique(dead // self.leaf),
                       self.leaf, self.fan, self.level_off, self.level_size, self.ZT, t.count, self.g_lo, self.g_hi,
                       self.g_nan)
        return members

    def centroid(self) -> tuple[np.ndarray, list[np.ndarray]]:
        """The centroid of the remaining records as a query: numeric means and the per-value terms."""
        t = self.t
        query = np.array([t.sums.mean(i) for i in range(self.p)], dtype=np.float64)
        return query, [(1.0 - v / t.m) ** 2 for v in self.values]


def mdav_groups_index(space: Any, k: int, *, leaf: int = LEAF, fan: int = FAN) -> np.ndarray:
    """Group id of every record of ``space`` (in its order), groups numbered as formed: the groups of
    :func:`anonkit.algorithms.cluster.mdav.mdav_groups`, through :class:`Index` (``leaf`` tuples a leaf,
    ``fan`` children a node)."""
    m = space.Z.shape[1] if space.Z.shape[0] else space.C.shape[1]
    group = np.full(m, -1, dtype=np.int64)
    if m == 0:
        return group
    ix = Index(space, leaf, fan)
    t = ix.t
    n_groups = 0

    def take(pos: np.ndarray, extra: np.ndarray) -> None:
        nonlocal n_groups
        group[ix.remove(pos, extra)] = n_groups
        n_groups += 1

    zmax = np.fmax.reduce(np.abs(ix.ZT), axis=0, initial=0.0)  # largest |z| per numeric QI (NaN apart)
    snap = None
    while t.m >= 3 * k:
        xr, snap = centroid_farthest(ix, zmax, snap)
        query = ix.ZT[xr].copy()
        cat = [space.delta2_row(i, int(c[xr])) for i, c in enumerate(t.C)]
        take(*ix.nearest(xr, k))
        xs = ix.farthest(query, cat)
        take(*ix.nearest(xs, k))
    if t.m >= 2 * k:
        take(*ix.nearest(centroid_farthest(ix, zmax, snap)[0], k))
    if t.m:
        pos = np.flatnonzero(t.count)
        take(pos, t.count[pos].copy())
    return group
