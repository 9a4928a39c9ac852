"""The leaves a published interval or set covers, and the hierarchy level it stands for (spec §2.1–2.5).

Local recodings may publish a QI of a class as a value outside its hierarchy
(``class_levels[c, j] == CUSTOM``): a numeric interval (``release.class_bounds``) or a set of
leaves (``release.class_sets``). Such a value *covers* the leaves of the hierarchy whose numeric
value lies in the closed interval, resp. the leaves of the set — plus, as a safety net for
inconsistent releases, the leaves of the class's own records (so a class always covers its
records). :func:`covered` computes the covered leaves of every class of one QI (a
:class:`Covered`); the utility measures (:mod:`~anonkit.metrics.ncp`,
:mod:`~anonkit.metrics.loss`, :mod:`~anonkit.metrics.entropy`) and record linkage
(:mod:`~anonkit.metrics.risk`) use it.

Measures that need a hierarchy level (WHD, Precision, Height, Prec) use the level of the lowest
common ancestor of the covered leaves (:func:`hierarchy_class_levels`, computed by
:func:`anonkit.hierarchy.lca.class_lca`); the others say in their docstring how they treat
intervals and sets. Releases without CUSTOM levels score exactly as before (the same code paths,
the same doubles). The numeric widths and leaf counts of CUSTOM values (:func:`custom_widths`,
:func:`custom_sizes`) and the numeric domain they are measured against (:func:`numeric_domain`)
are here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.hierarchy.lca import class_lca, depth_first_order
from anonkit.release import CUSTOM, Release
from anonkit.table import Table


def leaf_values(table: Table, j: int) -> np.ndarray:
    """The numeric value of every leaf of QI ``j``'s hierarchy (NaN where unknown).

    The value the data has for a leaf (``table.numeric``) where the leaf occurs in the data,
    otherwise the hierarchy's numeric bound of the leaf (when its leaves are numbers).
    """
    h = table.hierarchies[j]
    vals = np.full(h.n_leaves, np.nan)
    if h.bounds is not None:
        vals[:] = h.bounds[0][:, 0]
    name = table.qi[j]
    if name in table.numeric:
        v = table.numeric[name]
        ok = np.isfinite(v)
        vals[table.codes[ok, j]] = v[ok]
    return vals


def numeric_domain(table: Table, j: int) -> float:
    """Width of QI ``j``'s numeric domain, the NCP denominator (spec §2.1): the range of the
    hierarchy's numeric leaves when it has bounds, else the range of the data (else of the leaves'
    values); 0 when unknown."""
    h = table.hierarchies[j]
    name = table.qi[j]
    if h.bounds is not None:
        lo0, hi0 = h.bounds[0][:, 0].min(), h.bounds[0][:, 1].max()
        return float(hi0 - lo0)
    values = table.numeric[name] if name in table.numeric else leaf_values(table, j)
    return float(np.nanmax(values) - np.nanmin(values)) if np.isfinite(values).any() else 0.0


#: largest (classes × leaves) table :meth:`Covered.dense` builds
_DENSE_LIMIT = 1 << 24


@dataclass(frozen=True)
class Covered:
    """The leaves each CUSTOM class of one QI covers (see the module docstring).

    Class ``c`` covers the leaves at positions ``start[c]:stop[c]`` of ``order`` (intervals: the
    leaves sorted by numeric value, NaN last; empty for sets) and the leaves ``leaf`` of the pairs
    ``keys = class·n_leaves + leaf`` (sets: the members; both: a class's own leaves the rest misses).
    Arrays ``start``/``stop`` are indexed by class id (empty ranges for non-CUSTOM classes).
    Built by :func:`covered`; the measures of this package read it (sums over the covered leaves,
    membership tests, the covered leaves' lowest common ancestor), nothing outside it.
    """

    n_leaves: int
    order: np.ndarray
    rank: np.ndarray
    start: np.ndarray
    stop: np.ndarray
    keys: np.ndarray

    @property
    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The (class, leaf) pairs of ``keys``."""
        return np.divmod(self.keys, self.n_leaves)

    @cached_property
    def dense(self) -> np.ndarray | None:
        """``dense[class·n_leaves + leaf]``: whether the class covers the leaf (None when that
        table would be large)."""
        n_cls = len(self.start)
        if n_cls * self.n_leaves > _DENSE_LIMIT:
            return None
        out = np.zeros(n_cls * self.n_leaves, dtype=bool)
        length = np.maximum(self.stop - self.start, 0)
        if length.any():
            cls = np.repeat(np.arange(n_cls), length)
            pos = np.arange(int(length.sum())) - np.repeat(np.cumsum(length) - length, length)
            out[cls * self.n_leaves + self.order[np.repeat(self.start, length) + pos]] = True
        out[self.keys] = True
        return out

    def contains(self, cls: np.ndarray, leaf: np.ndarray) -> np.ndarray:
        """Whether class ``cls[i]`` covers leaf ``leaf[i]``."""
        cls = np.asarray(cls, dtype=np.int64)
        leaf = np.asarray(leaf, dtype=np.int64)
        if self.dense is not None:
            return self.dense[cls * self.n_leaves + leaf]
        r = self.rank[leaf]
        inside = (self.start[cls] <= r) & (r < self.stop[cls])
        if self.keys.size:
            k = cls * self.n_leaves + leaf
            pos = np.minimum(np.searchsorted(self.keys, k), self.keys.size - 1)
            inside |= self.keys[pos] == k
        return inside

    def total(self, weights: np.ndarray) -> np.ndarray:
        """Per class the sum of ``weights`` (one per leaf) over the leaves it covers."""
        w = np.asarray(weights, dtype=np.float64)
        prefix = np.concatenate([[0.0], np.cumsum(w[self.order])])
        out = prefix[self.stop] - prefix[self.start]
        if self.keys.size:
            cls, leaf = self.pairs
            out += np.bincount(cls, weights=w[leaf], minlength=len(out))
        return out

    def lca(self, h: Hierarchy) -> tuple[np.ndarray, np.ndarray]:
        """Per class the level and node of the lowest common ancestor of the covered leaves (level
        0 for a class covering nothing; the top level and node 0 for leaves without one).

        The leaves of a range stand in for it by the two whose depth-first positions are the
        smallest and the largest of the range (:func:`~anonkit.hierarchy.lca.depth_first_order`):
        their common ancestor is every covered leaf's. :func:`~anonkit.hierarchy.lca.class_lca`
        then takes them with the listed leaves."""
        cls, leaf = self.pairs
        ranged = np.flatnonzero(self.stop > self.start)
        if ranged.size:
            dfs = depth_first_order(h)
            position = np.empty(self.n_leaves, dtype=np.int64)
            position[dfs] = np.arange(self.n_leaves)
            first, last = _range_min_max(position[self.order], self.start[ranged], self.stop[ranged])
            cls = np.concatenate([cls, ranged, ranged])
            leaf = np.concatenate([leaf, dfs[first], dfs[last]])
        return class_lca(h, leaf, cls, len(self.start), strict=False)


def _range_min_max(values: np.ndarray, start: np.ndarray, stop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The smallest and the largest of ``values[start[i]:stop[i]]`` for every (non-empty) range,
    from a sparse table (``O(n log n)`` to build, two lookups a range)."""
    length = stop - start
    step = np.frexp(length.astype(np.float64))[1] - 1  # floor(log2(length)), exact for integers
    lows, highs = [values], [values]
    for k in range(1, int(step.max()) + 1):
        half = 1 << (k - 1)
        lows.append(np.minimum(lows[-1][:-half], lows[-1][half:]))
        highs.append(np.maximum(highs[-1][:-half], highs[-1][half:]))
    lo = np.empty(len(start), dtype=values.dtype)
    hi = np.empty(len(start), dtype=values.dtype)
    for k in np.unique(step):
        sel = step == k
        a, b = start[sel], stop[sel] - (1 << int(k))
        lo[sel] = np.minimum(lows[k][a], lows[k][b])
        hi[sel] = np.maximum(highs[k][a], highs[k][b])
    return lo, hi


def covered(table: Table, release: Release, j: int) -> Covered:
    """The leaves every CUSTOM class of QI ``j`` covers (see :class:`Covered`)."""
    h = table.hierarchies[j]
    name = table.qi[j]
    nl = h.n_leaves
    n_cls = release.n_classes
    levels = release.class_levels[:, j]
    custom = np.flatnonzero(levels == CUSTOM)
    start = np.zeros(n_cls, dtype=np.int64)
    stop = np.zeros(n_cls, dtype=np.int64)
    pair_cls = np.zeros(0, dtype=np.int64)
    pair_leaf = np.zeros(0, dtype=np.int64)
    if name in release.class_bounds:
        vals = leaf_values(table, j)
        order = np.argsort(vals, kind="stable")  # NaN last
        known = vals[order[: int(np.count_nonzero(~np.isnan(vals)))]]
        b = np.asarray(release.class_bounds[name], dtype=np.float64)[custom]
        start[custom] = np.searchsorted(known, b[:, 0], side="left")
        stop[custom] = np.maximum(np.searchsorted(known, b[:, 1], side="right"), start[custom])
        rank = np.empty(nl, dtype=np.int64)
        rank[order] = np.arange(nl)
    elif name in release.class_sets:
        order = rank = np.arange(nl, dtype=np.int64)
        sets = release.class_sets[name]
        members = [np.asarray(sets[c], dtype=np.int64) for c in custom]
        pair_cls = np.repeat(custom, [len(m) for m in members]).astype(np.int64)
        pair_leaf = np.concatenate(members) if members else pair_leaf
    elif custom.size:
        raise InputError(f"class levels mark {name!r} as custom but no bounds or sets are given", key="release")
    else:
        order = rank = np.arange(nl, dtype=np.int64)
    keys = np.unique(pair_cls * nl + pair_leaf)
    # the leaves of each CUSTOM class's own records, where the interval or set misses them
    rc = release.record_class
    kept = np.flatnonzero(rc >= 0)
    kept = kept[levels[rc[kept]] == CUSTOM]
    own = np.unique(rc[kept].astype(np.int64) * nl + table.codes[kept, j])
    own_cls, own_leaf = np.divmod(own, nl)
    r = rank[own_leaf]
    hit = ((start[own_cls] <= r) & (r < stop[own_cls])) | np.isin(own, keys)
    keys = np.union1d(keys, own[~hit])
    return Covered(nl, order, rank, start, stop, keys)


def hierarchy_class_levels(table: Table, release: Release) -> tuple[np.ndarray, np.ndarray]:
    """``(C × d)`` hierarchy level and node of every class and QI, a CUSTOM value (interval or
    set) replaced by the lowest common ancestor of the leaves it covers (see the module
    docstring). For a release without CUSTOM levels: ``release.class_levels`` and
    ``release.class_nodes`` themselves."""
    levels, nodes = release.class_levels, release.class_nodes
    custom = levels == CUSTOM
    if not custom.any():
        return levels, nodes
    levels, nodes = levels.copy(), nodes.copy()
    for j, h in enumerate(table.hierarchies):
        sel = custom[:, j]
        if sel.any():
            lv, nd = covered(table, release, j).lca(h)
            levels[sel, j] = lv[sel]
            nodes[sel, j] = nd[sel]
    return levels, nodes


def custom_widths(table: Table, release: Release, j: int, sel: np.ndarray) -> np.ndarray:
    """Numeric width of the CUSTOM values of QI ``j`` in the classes ``sel`` (a mask).

    An interval: ``hi − lo`` of its class bounds (the class's data range if a bound is not
    finite). A set: the range of its members' numeric values (0 for one member or none known).
    """
    name = table.qi[j]
    n_cls = release.n_classes
    cls = np.flatnonzero(sel)
    if name in release.class_bounds:
        b = np.asarray(release.class_bounds[name], dtype=np.float64)[cls]
        width = b[:, 1] - b[:, 0]
        bad = ~np.isfinite(width)
        if bad.any():
            lo = np.full(n_cls, np.nan)
            hi = np.full(n_cls, np.nan)
            rc = release.record_class
            kept = rc >= 0
            values = table.numeric[name] if name in table.numeric else leaf_values(table, j)[table.codes[:, j]]
            np.fmin.at(lo, rc[kept], values[kept])
            np.fmax.at(hi, rc[kept], values[kept])
            width[bad] = np.nan_to_num(hi - lo, nan=0.0)[cls[bad]]
        return np.maximum(width, 0.0)
    vals = leaf_values(table, j)
    sets = release.class_sets[name]
    lo = np.full(n_cls, np.nan)
    hi = np.full(n_cls, np.nan)
    for c in cls:
        v = vals[np.asarray(sets[c], dtype=np.int64)]
        v = v[np.isfinite(v)]
        if v.size:
            lo[c], hi[c] = v.min(), v.max()
    return np.nan_to_num(hi - lo, nan=0.0)[cls]


def custom_sizes(table: Table, release: Release, j: int, sel: np.ndarray) -> np.ndarray:
    """Number of leaves of the CUSTOM values of QI ``j`` in the classes ``sel``: the size of the
    published set, or for an interval the number of leaves it covers."""
    name = table.qi[j]
    cls = np.flatnonzero(sel)
    if name in release.class_sets and name not in release.class_bounds:
        sets = release.class_sets[name]
        return np.array([len(np.unique(sets[c])) for c in cls], dtype=np.float64)
    return covered(table, release, j).total(np.ones(table.hierarchies[j].n_leaves))[cls]
