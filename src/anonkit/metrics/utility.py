"""Information-loss and utility measures of a :class:`~anonkit.release.Release` (spec §2.1–2.4).

Every measure is a function ``(table, release, **params)``. The ARX quality models (Loss,
non-uniform entropy, DM, DM*, AECS, Precision, Height) follow ARX's implementation
(``org.deidentifier.arx.metric.v2``; ARX compatibility §2.4 and §2.9) so that a full-domain release
scores what ARX reports for the same transformation:

* the gs-factor ``g`` gives ``gFactor = 1 if g ≤ 0.5 else 1 − 2(g − 0.5)`` and
  ``sFactor = 2g if g < 0.5 else 1`` (:func:`gs_factors`);
* per-attribute Loss and entropy values are floored to 10 decimals (ARX's ``Metric.round``);
* ``N`` is the number of input records (suppressed ones included);
* attribute weights default to the schema's (0.5 each) and are normalized by the largest.

Full-domain releases (``release.transformation`` set) are scored exactly as ARX does: a suppressed
record still counts with the node it had at the transformation. For other releases (local
recoding) each released record counts with its own class's node and a suppressed record as fully
generalized (the hierarchy root); each function's docstring says what that means for it.

Local recodings may publish a QI of a class as a value outside its hierarchy
(``class_levels[c, j] == CUSTOM``): a numeric interval (``release.class_bounds``) or a set of
leaves (``release.class_sets``). Such a value *covers* the leaves of the hierarchy whose numeric
value lies in the closed interval, resp. the leaves of the set — plus, as a safety net for
inconsistent releases, the leaves of the class's own records (so a class always covers its
records). Measures that need a hierarchy level (WHD, Precision, Height, Prec) use the level of the
lowest common ancestor of the covered leaves (:func:`hierarchy_class_levels`); the others say in
their docstring how they treat intervals and sets. Releases without CUSTOM levels score exactly as
before (the same code paths, the same doubles).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from anonkit._kernels import group_columns
from anonkit.hierarchy import Hierarchy
from anonkit.release import CUSTOM, Release
from anonkit.table import Table

Aggregate = Literal["sum", "max", "arithmetic", "geometric", "rank"]
AGGREGATES: tuple[str, ...] = ("sum", "max", "arithmetic", "geometric", "rank")

_LOG2 = math.log(2.0)


# ---------------------------------------------------------------------------------------- helpers
def gs_factors(gs: float) -> tuple[float, float]:
    """ARX's ``(gFactor, sFactor)`` for a generalization/suppression factor ``gs`` in ``[0, 1]``."""
    gs = float(gs)
    if not 0.0 <= gs <= 1.0:
        raise ValueError(f"gs must lie in [0, 1], got {gs!r}")
    s_factor = 2.0 * gs if gs < 0.5 else 1.0
    g_factor = 1.0 if gs <= 0.5 else 1.0 - 2.0 * (gs - 0.5)
    return g_factor, s_factor


def arx_round(value: float) -> float:
    """ARX's ``Metric.round``: keep 10 decimals, rounding down (``floor(x·10¹⁰)/10¹⁰``)."""
    return math.floor(value * 1e10) / 1e10


def _log2(x: np.ndarray) -> np.ndarray:
    # ARX computes log2 as Math.log(x) / Math.log(2); do the same for identical rounding
    return np.log(x) / _LOG2


def _seq_sum(values: np.ndarray) -> float:
    """Left-to-right sum (what a Java ``for`` loop does), not numpy's pairwise sum."""
    values = np.asarray(values, dtype=np.float64)
    return float(np.cumsum(values)[-1]) if values.size else 0.0


def attribute_weights(table: Table, weights: Mapping[str, float] | Sequence[float] | None = None) -> np.ndarray:
    """QI weights normalized by the largest (ARX); all 1 when every weight is 0.

    ``weights`` maps QI names to weights (missing ones default to the schema's weight) or lists
    one weight per QI; ``None`` takes the schema's weights (0.5 each unless configured).
    """
    d = len(table.qi)
    if weights is None:
        w = np.array([float(table.schema[q].weight) for q in table.qi], dtype=np.float64)
    elif isinstance(weights, Mapping):
        unknown = [k for k in weights if k not in table.qi]
        if unknown:
            raise ValueError(f"weight given for {unknown[0]!r}, which is not a quasi-identifier")
        w = np.array([float(weights.get(q, table.schema[q].weight)) for q in table.qi], dtype=np.float64)
    else:
        w = np.asarray(list(weights), dtype=np.float64)
        if w.shape != (d,):
            raise ValueError(f"weights must list {d} values, one per quasi-identifier")
    if (w < 0).any():
        raise ValueError("weights must not be negative")
    top = float(w.max()) if d else 0.0
    return np.ones(d) if top == 0.0 else w / top


def aggregate_values(values: Sequence[float], weights: Sequence[float], aggregate: str) -> float | tuple[float, ...]:
    """Combine per-attribute values as ARX's ``AggregateFunction`` does.

    * ``sum``: Σ vᵢ·wᵢ; ``max``: max vᵢ·wᵢ (at least 0); ``arithmetic``: Σ (vᵢ/n)·wᵢ;
    * ``geometric``: Π ((vᵢ + 1)·wᵢ)^{1/n} − 1 — as ARX's ``ILMultiDimensionalGeometricMean``
      implements it (the weight multiplies ``vᵢ + 1``; with equal weights, the default, this is
      the same as Π (vᵢ·wᵢ + 1)^{1/n} − 1);
    * ``rank``: the vector of vᵢ·wᵢ sorted in descending order, compared lexicographically — ARX's
      ``ILMultiDimensionalRank`` (``compareTo`` compares the sorted vectors component by component
      with ``Double.compare``; ``toString`` prints them with ``Arrays.toString``).

    ``weights`` are the QI weights normalized by the largest (:func:`attribute_weights`, as ARX's
    ``AbstractMetricMultiDimensional.initializeInternal``). They change the rank optimum, not only
    its values: half of ARX's TestUtilityMetricsLoss cases set ``setAttributeWeight(column i, i + 1)``.
    """
    v = [float(x) for x in values]
    w = [float(x) for x in weights]
    n = len(v)
    if aggregate == "sum":
        total = 0.0
        for x, y in zip(v, w, strict=True):
            total += x * y
        return total if math.isfinite(total) else float(np.finfo(np.float64).max)
    if aggregate == "max":
        best = 0.0
        for x, y in zip(v, w, strict=True):
            best = max(best, x * y)
        return best
    if aggregate == "arithmetic":
        total = 0.0
        for x, y in zip(v, w, strict=True):
            total += (x / n) * y
        return total
    if aggregate == "geometric":
        prod = 1.0
        for x, y in zip(v, w, strict=True):
            prod *= math.pow((x + 1.0) * y, 1.0 / n)
        return prod - 1.0 if n else 0.0
    if aggregate == "rank":
        return tuple(sorted((x * y for x, y in zip(v, w, strict=True)), reverse=True))
    raise ValueError(f"unknown aggregate {aggregate!r}; allowed: {', '.join(AGGREGATES)}")


def transformation_levels(table: Table, release: Release) -> np.ndarray | None:
    """The full-domain levels of ``release`` (input QI order), or None for other releases."""
    if release.transformation is None:
        return None
    return np.array([int(release.transformation[q]) for q in table.qi], dtype=np.int64)


def effective_levels(table: Table, release: Release) -> np.ndarray:
    """``(n × d)`` level of every record: its class's, or for a suppressed record the
    transformation's (full-domain) or the hierarchy height (otherwise)."""
    levels = release.record_levels()
    t = transformation_levels(table, release)
    if t is not None:
        levels[release.suppressed] = t
    return levels


def _tuple_counts(table: Table, mask: np.ndarray) -> np.ndarray:
    """Records selected by ``mask`` per distinct QI tuple."""
    d = table.distinct
    return np.bincount(d.inverse[mask], minlength=d.size).astype(np.float64)


def _class_share(h: Hierarchy, levels: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """ARX domain share of each (level, node) pair (CUSTOM entries left at 0)."""
    out = np.zeros(len(levels), dtype=np.float64)
    for level in np.unique(levels):
        if level == CUSTOM:
            continue
        sel = levels == level
        out[sel] = h.domain_share(int(level))[nodes[sel]]
    return out


def _custom_share(table: Table, release: Release, j: int, sel: np.ndarray) -> np.ndarray:
    """Loss domain share of the CUSTOM values of QI ``j`` in the classes ``sel`` (see
    :func:`loss_per_attribute`)."""
    name = table.qi[j]
    nl = table.hierarchies[j].n_leaves
    if name in release.class_bounds:
        domain = _numeric_domain(table, j)
        width = _custom_widths(table, release, j, sel)
        share = width / domain if domain > 0 else np.zeros(len(width))
        return np.clip(share, 1.0 / nl, 1.0)
    return np.clip(_custom_sizes(table, release, j, sel), 1.0, None) / nl


# ---------------------------------------------------------------------------------------- local recoding
def _leaf_values(table: Table, j: int) -> np.ndarray:
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


def _numeric_domain(table: Table, j: int) -> float:
    """Width of QI ``j``'s numeric domain, the NCP denominator (spec §2.1): the range of the
    hierarchy's numeric leaves when it has bounds, else the range of the data (else of the leaves'
    values); 0 when unknown."""
    h = table.hierarchies[j]
    name = table.qi[j]
    if h.bounds is not None:
        lo0, hi0 = h.bounds[0][:, 0].min(), h.bounds[0][:, 1].max()
        return float(hi0 - lo0)
    values = table.numeric[name] if name in table.numeric else _leaf_values(table, j)
    return float(np.nanmax(values) - np.nanmin(values)) if np.isfinite(values).any() else 0.0


#: largest (classes × leaves) table :meth:`_Covered.dense` builds
_DENSE_LIMIT = 1 << 24


@dataclass(frozen=True)
class _Covered:
    """The leaves each CUSTOM class of one QI covers (see the module docstring).

    Class ``c`` covers the leaves at positions ``start[c]:stop[c]`` of ``order`` (intervals: the
    leaves sorted by numeric value, NaN last; empty for sets) and the leaves ``leaf`` of the pairs
    ``keys = class·n_leaves + leaf`` (sets: the members; both: a class's own leaves the rest misses).
    Arrays ``start``/``stop`` are indexed by class id (empty ranges for non-CUSTOM classes).
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
        0 for a class covering nothing)."""
        n_cls = len(self.start)
        level = np.full(n_cls, h.height, dtype=np.int64)
        node = np.zeros(n_cls, dtype=np.int64)
        cls, leaf = self.pairs
        ranged = np.flatnonzero(self.stop > self.start)
        empty = (self.stop <= self.start) & (np.bincount(cls, minlength=n_cls) == 0)
        level[empty] = 0
        done = empty.copy()
        big = np.iinfo(np.int64).max
        for lv in range(h.height + 1):
            lo = np.full(n_cls, big, dtype=np.int64)
            hi = np.full(n_cls, -1, dtype=np.int64)
            if ranged.size:
                seq = h.maps[lv][self.order].astype(np.int64)
                changes = np.concatenate([[0], np.cumsum(seq[1:] != seq[:-1])])
                s, e = self.start[ranged], self.stop[ranged]
                first = seq[s]
                lo[ranged] = first
                hi[ranged] = np.where(changes[e - 1] == changes[s], first, big)
            if cls.size:
                g = h.maps[lv][leaf].astype(np.int64)
                np.minimum.at(lo, cls, g)
                np.maximum.at(hi, cls, g)
            single = (lo == hi) & ~done
            level[single] = lv
            node[single] = lo[single]
            done |= single
            if done.all():
                break
        return level, node


def _covered(table: Table, release: Release, j: int) -> _Covered:
    """The leaves every CUSTOM class of QI ``j`` covers (see :class:`_Covered`)."""
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
        vals = _leaf_values(table, j)
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
        raise ValueError(f"class levels mark {name!r} as custom but no bounds or sets are given")
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
    return _Covered(nl, order, rank, start, stop, keys)


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
            lv, nd = _covered(table, release, j).lca(h)
            levels[sel, j] = lv[sel]
            nodes[sel, j] = nd[sel]
    return levels, nodes


def _custom_widths(table: Table, release: Release, j: int, sel: np.ndarray) -> np.ndarray:
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
            values = table.numeric[name] if name in table.numeric else _leaf_values(table, j)[table.codes[:, j]]
            np.fmin.at(lo, rc[kept], values[kept])
            np.fmax.at(hi, rc[kept], values[kept])
            width[bad] = np.nan_to_num(hi - lo, nan=0.0)[cls[bad]]
        return np.maximum(width, 0.0)
    vals = _leaf_values(table, j)
    sets = release.class_sets[name]
    lo = np.full(n_cls, np.nan)
    hi = np.full(n_cls, np.nan)
    for c in cls:
        v = vals[np.asarray(sets[c], dtype=np.int64)]
        v = v[np.isfinite(v)]
        if v.size:
            lo[c], hi[c] = v.min(), v.max()
    return np.nan_to_num(hi - lo, nan=0.0)[cls]


def _custom_sizes(table: Table, release: Release, j: int, sel: np.ndarray) -> np.ndarray:
    """Number of leaves of the CUSTOM values of QI ``j`` in the classes ``sel``: the size of the
    published set, or for an interval the number of leaves it covers."""
    name = table.qi[j]
    cls = np.flatnonzero(sel)
    if name in release.class_sets and name not in release.class_bounds:
        sets = release.class_sets[name]
        return np.array([len(np.unique(sets[c])) for c in cls], dtype=np.float64)
    return _covered(table, release, j).total(np.ones(table.hierarchies[j].n_leaves))[cls]


# ---------------------------------------------------------------------------------------- NCP / GCP
def ncp_classes(table: Table, release: Release) -> np.ndarray:
    """``(C × d)`` NCP of every released class and QI (spec §2.1).

    Categorical QIs: 0 at a leaf (level 0), else #leaves below the node / #leaves of the hierarchy.
    Numeric and date QIs: width of the node's numeric interval (``hierarchy.bounds``) over the
    width of the hierarchy's leaf range — the attribute's domain, as |A| is for categorical QIs
    (spec §2.1's example divides by the domain 20–60, not by the data's 25–60); when the hierarchy
    has no numeric bounds, the class's data range over the table's data range. A zero domain width
    gives 0.

    CUSTOM values of local recodings (see the module docstring):

    * an interval (numeric QI): its width ``hi − lo`` (``release.class_bounds``) over the *same*
      denominator as the attribute's hierarchy nodes — the hierarchy's leaf range when it has
      numeric bounds, else the data range — so both kinds of class are on one scale. For an
      attribute without a hierarchy the trivial ``{values} → *`` one has bounds when all values
      are numbers, and its leaf range *is* the data range (spec §5.4: ranges 25 and 20);
    * a set of a categorical QI: ``|set| / |A|`` (|A| = #leaves of the hierarchy), 0 for a single
      value; a set of a numeric QI: the range of its members' values over the domain (the numeric
      rule, spec §2.1);
    * an interval of a categorical QI (only when a caller builds one): #leaves it covers / |A|.
    """
    C, d = release.class_levels.shape
    out = np.zeros((C, d), dtype=np.float64)
    if C == 0:
        return out
    rc = release.record_class
    kept = rc >= 0
    for j, (name, h) in enumerate(zip(table.qi, table.hierarchies, strict=True)):
        levels = release.class_levels[:, j]
        nodes = release.class_nodes[:, j]
        custom = levels == CUSTOM
        if name in table.numeric:
            domain = _numeric_domain(table, j)
            if h.bounds is not None:
                width = np.zeros(C, dtype=np.float64)
                for level in np.unique(levels):
                    if level == CUSTOM:
                        continue
                    sel = levels == level
                    b = h.bounds[int(level)][nodes[sel]]
                    width[sel] = b[:, 1] - b[:, 0]
            else:
                values = table.numeric[name]
                lo = np.full(C, np.nan)
                hi = np.full(C, np.nan)
                np.fmin.at(lo, rc[kept], values[kept])
                np.fmax.at(hi, rc[kept], values[kept])
                width = np.nan_to_num(hi - lo, nan=0.0)
            if custom.any():
                width[custom] = _custom_widths(table, release, j, custom)
            out[:, j] = width / domain if domain > 0 else 0.0
        else:
            counts = np.zeros(C, dtype=np.float64)
            for level in np.unique(levels):
                if level == CUSTOM:
                    continue
                sel = levels == level
                counts[sel] = h.leaf_counts(int(level))[nodes[sel]]
            out[:, j] = np.where(levels == 0, 0.0, counts / h.n_leaves)
            if custom.any():
                size = _custom_sizes(table, release, j, custom)
                out[custom, j] = np.where(size <= 1, 0.0, size / h.n_leaves)
    return out


def ncp_records(table: Table, release: Release, *, weights: Sequence[float] | None = None) -> np.ndarray:
    """NCP of every input record: Σ_A w_A·NCP_A of its class; a suppressed record is charged
    1 per attribute (Σ_A w_A). Weights default to 1."""
    d = len(table.qi)
    w = np.ones(d) if weights is None else np.asarray(weights, dtype=np.float64)
    per_class = ncp_classes(table, release) @ w if release.n_classes else np.zeros(0)
    rc = release.record_class
    out = np.full(table.n, float(w.sum()))
    kept = rc >= 0
    out[kept] = per_class[rc[kept]]
    return out


def gcp(table: Table, release: Release, *, include_suppressed: bool = True) -> float:
    """Global certainty penalty in ``[0, 1]`` (spec §2.1).

    ``include_suppressed=True``: Σ over all records of their NCP, suppressed records charged 1 per
    attribute, divided by ``d·n``. ``False``: the GCP of the released records only (divided by
    ``d·n_released``; NaN when nothing is released).
    """
    d = len(table.qi)
    if d == 0:
        return 0.0
    sizes = release.class_sizes().astype(np.float64)
    released = float(sizes @ ncp_classes(table, release).sum(axis=1)) if release.n_classes else 0.0
    if include_suppressed:
        return (released + release.n_suppressed * d) / (d * table.n)
    if release.n_released == 0:
        return float("nan")
    return released / (d * release.n_released)


# ---------------------------------------------------------------------------------------- ARX Loss
def loss_per_attribute(table: Table, release: Release, *, gs: float = 0.5) -> dict[str, float]:
    """ARX's Loss (``MetricMDNMLoss``) per quasi-identifier, normalized to ``[0, 1]``.

    Per QI: ``x = Σ_released share(node)·gFactor + Σ_suppressed (share + sFactor·(1 − share))``,
    share = #leaves below the node / #rows of the hierarchy (``DomainShareMaterialized``), a
    suppressed record's share taken at the transformation (the root for non-full-domain releases,
    which charges 1). Normalized ``max(0, (x − m)/(N − m))`` with ``m = gFactor·N/#rows``, floored
    to 10 decimals.

    CUSTOM values of local recodings: an interval's share is its width over the attribute's range
    (the NCP denominator, :func:`ncp_classes`), as ARX's ``DomainShareInterval`` measures
    intervals; it is floored at a leaf's share ``1/#rows`` (a one-value interval is the value
    itself, and no interval may cost less than publishing the value — the normalization above
    assumes shares ≥ ``1/#rows``) and capped at 1. A set's share is ``|set|/#rows`` (a
    materialized share, like a node's; one member = a leaf).
    """
    g_factor, s_factor = gs_factors(gs)
    n = float(table.n)
    sizes = release.class_sizes().astype(np.float64)
    sup = _tuple_counts(table, release.suppressed)
    has_sup = sup > 0
    t = transformation_levels(table, release)
    tuples = table.distinct.tuples
    out: dict[str, float] = {}
    for j, (name, h) in enumerate(zip(table.qi, table.hierarchies, strict=True)):
        x = 0.0
        if release.n_classes:
            share = _class_share(h, release.class_levels[:, j], release.class_nodes[:, j])
            custom = release.class_levels[:, j] == CUSTOM
            if custom.any():
                share[custom] = _custom_share(table, release, j, custom)
            x += _seq_sum(sizes * share * g_factor)
        if has_sup.any():
            cnt = sup[has_sup]
            if s_factor == 1.0 or t is None:
                x += _seq_sum(cnt)
            else:
                s = cnt * h.domain_share(int(t[j]))[h.maps[t[j]][tuples[has_sup, j]]]
                x += _seq_sum(s + s_factor * (cnt - s))
        low = g_factor * n / h.n_leaves
        value = (x - low) / (n - low) if n != low else 0.0
        out[name] = arx_round(max(value, 0.0))
    return out


def loss(
    table: Table,
    release: Release,
    *,
    gs: float = 0.5,
    aggregate: Aggregate = "geometric",
    weights: Mapping[str, float] | Sequence[float] | None = None,
) -> float | tuple[float, ...]:
    """ARX's Loss aggregated over the QIs (default: geometric mean, ARX's default; ``rank`` gives
    the descending vector of weighted values). See :func:`loss_per_attribute`."""
    values = loss_per_attribute(table, release, gs=gs)
    return aggregate_values(list(values.values()), attribute_weights(table, weights), aggregate)


# ---------------------------------------------------------------------------------------- entropy
def entropy_per_attribute(
    table: Table, release: Release, *, monotonic: bool = True, gs: float = 0.5
) -> dict[str, float]:
    """ARX's non-uniform entropy per QI, in bits, floored to 10 decimals.

    ``gFactor·Σ_records log2(b/a)``, ``a`` = count of the record's value in the whole input, ``b`` =
    count in the whole input of the node it is generalized to (``MetricMDNUEntropyPrecomputed``;
    for a full-domain release this is ``Σ_v a_v·log2(b/a_v)`` over the values). Suppressed records
    count at the transformation (full-domain; the root otherwise), so the monotonic variant ignores
    suppression. The non-monotonic variant (``MetricMDNUNMEntropyPrecomputed``) adds
    ``−sFactor·Σ c·log2(c/S)`` over the suppressed records, ``c`` = suppressed records per
    generalized value, ``S`` = suppressed records. The sums run in ARX's order (values by first
    appearance; the suppression term in the slot order of ARX's hash map), so full-domain results
    are the same doubles ARX reports.

    CUSTOM values of local recodings: an interval or a set is a generalized value like a node;
    its ``b`` is the number of input records whose value falls in it (a value in the closed
    interval, resp. a member of the set — the leaves it covers, see the module docstring), so
    ``b ≥ a`` and the term is ≤ 0 as for nodes.
    """
    g_factor, s_factor = gs_factors(gs)
    levels = effective_levels(table, release)
    sup = release.suppressed
    n_sup = int(sup.sum())
    t = transformation_levels(table, release)
    out: dict[str, float] = {}
    for j, (name, h) in enumerate(zip(table.qi, table.hierarchies, strict=True)):
        codes = table.codes[:, j].astype(np.int64)
        nl = h.n_leaves
        a = np.bincount(codes, minlength=nl).astype(np.float64)
        # records per (level, leaf); ARX walks values in dictionary order = first appearance in data
        key = levels[:, j] * nl + codes
        custom = levels[:, j] == CUSTOM
        if custom.any():
            # a CUSTOM value (interval or set) is a generalized value of its own: key it by its class
            rc = release.record_class.astype(np.int64)
            key = np.where(custom, (h.height + 1 + rc) * nl + codes, key)
        pairs, first, cnt = np.unique(key, return_index=True, return_counts=True)
        order = np.argsort(first, kind="stable")
        pairs, first, cnt = pairs[order], first[order], cnt[order].astype(np.float64)
        node_counts = [np.bincount(h.maps[level][codes], minlength=h.size(level)) for level in range(h.height + 1)]
        offsets = np.concatenate([[0], np.cumsum([len(c) for c in node_counts])])
        flat = np.concatenate(node_counts).astype(np.float64)
        if custom.any():
            leaf = codes[first]
            lev = np.maximum(levels[first, j], 0)
            b = flat[offsets[lev] + h.maps[lev, leaf]]
            inside = custom[first]
            # b of a CUSTOM value = the input records whose value it covers
            b[inside] = _covered(table, release, j).total(a)[rc[first[inside]]]
        else:
            lev, leaf = np.divmod(pairs, nl)
            b = flat[offsets[lev] + h.maps[lev, leaf]]
        aa = a[leaf]
        raw = _seq_sum(cnt * _log2(aa / b))  # ≤ 0, as ARX accumulates it
        result = raw * g_factor
        if not monotonic and n_sup and t is not None:
            # (without a transformation every suppressed record sits at the root: the term is 0)
            for c in _suppressed_value_counts(h, codes, sup, int(t[j])):
                result += c * (math.log(c / n_sup) / _LOG2) * s_factor
        out[name] = arx_round(-result if result != 0.0 else result)
    return out


def _fmix32(h: int) -> int:
    """MurmurHash3's 32-bit finalizer (what hppc hashes int keys with)."""
    h &= 0xFFFFFFFF
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    return h ^ (h >> 16)


def _hppc_slot_order(keys: Sequence[int]) -> list[int]:
    """Iteration order of an hppc-0.6 ``IntIntOpenHashMap`` after inserting ``keys`` in this order.

    ARX sums the non-monotonic entropy's suppression term over such a map, so the order of the
    floating-point additions (and, rarely, the last digit kept by the 10-decimal floor) depends on
    it. Emulated per the research note /work/notes/arx_semantics.md §6: 16 slots, load factor 0.75,
    slot = fmix32(key ^ fmix32(17 + nlz(capacity))) & (capacity − 1), linear probing; growing
    doubles the capacity and re-inserts the old slots from the highest index down.
    """

    def slot_of(key: int, table: list[int | None]) -> int:
        cap = len(table)
        pert = _fmix32(17 + (32 - cap.bit_length()))
        slot = _fmix32(key ^ pert) & (cap - 1)
        while table[slot] is not None:
            slot = (slot + 1) & (cap - 1)
        return slot

    table: list[int | None] = [None] * 16
    resize_at = max(2, math.ceil(16 * 0.75)) - 1
    for assigned, key in enumerate(keys):  # keys are distinct
        table[slot_of(key, table)] = key
        if assigned == resize_at:
            old = table
            table = [None] * (2 * len(old))
            for k in reversed(old):
                if k is not None:
                    table[slot_of(k, table)] = k
            resize_at = max(2, math.ceil(len(table) * 0.75)) - 1
    return [k for k in table if k is not None]


def _arx_value_codes(h: Hierarchy, codes: np.ndarray, level: int) -> np.ndarray:
    """ARX's dictionary code of every node of ``level`` (−1 for nodes without data).

    ARX numbers a column's values by first appearance in the data, then registers the labels of the
    hierarchy rows whose leaf occurs in the data (file order, levels left to right); a label is one
    code whatever its level.
    """
    uniq, first = np.unique(codes, return_index=True)
    label_code: dict[str, int] = {}
    for leaf in uniq[np.argsort(first, kind="stable")]:
        label_code.setdefault(h.labels[0][leaf], len(label_code))
    out = np.full(h.size(level), -1, dtype=np.int64)
    for leaf in uniq:  # leaf codes are hierarchy-file rows, in file order
        for lv in range(h.height + 1):
            code = label_code.setdefault(h.labels[lv][h.maps[lv, leaf]], len(label_code))
            if lv == level:
                out[h.maps[level, leaf]] = code
    return out


def _suppressed_value_counts(h: Hierarchy, codes: np.ndarray, sup: np.ndarray, level: int) -> list[float]:
    """Suppressed records per generalized value of one QI, in the order ARX adds them up."""
    gen = h.maps[level][codes[sup]].astype(np.int64)
    counts = np.bincount(gen, minlength=h.size(level))
    nodes, first = np.unique(gen, return_index=True)
    nodes = nodes[np.argsort(first, kind="stable")]  # insertion order: first appearance
    dict_code = _arx_value_codes(h, codes, level)
    by_code = {int(dict_code[v]): float(counts[v]) for v in nodes}
    return [by_code[k] for k in _hppc_slot_order([int(dict_code[v]) for v in nodes])]


def entropy(
    table: Table,
    release: Release,
    *,
    monotonic: bool = True,
    gs: float = 0.5,
    weights: Mapping[str, float] | Sequence[float] | None = None,
) -> float:
    """ARX's non-uniform entropy: the weighted sum of :func:`entropy_per_attribute`."""
    values = entropy_per_attribute(table, release, monotonic=monotonic, gs=gs)
    return float(aggregate_values(list(values.values()), attribute_weights(table, weights), "sum"))


# ---------------------------------------------------------------------------------------- class-based
def discernibility(table: Table, release: Release) -> float:
    """DM (ARX ``MetricSDNMDiscernability``): Σ over released classes of |EC|² + n·|suppressed|."""
    sizes = release.class_sizes().astype(np.int64)
    return float(int((sizes * sizes).sum()) + table.n * release.n_suppressed)


def suppressed_class_sizes(table: Table, release: Release) -> np.ndarray:
    """Sizes of the classes the suppressed records form.

    Full-domain: the suppressed records grouped by their generalized QI codes at the
    transformation (the classes that failed). Otherwise: grouped by their original QI tuple.
    """
    sup = _tuple_counts(table, release.suppressed)
    keep = sup > 0
    if not keep.any():
        return np.zeros(0, dtype=np.int64)
    tuples = table.distinct.tuples[keep]
    t = transformation_levels(table, release)
    if t is None:
        t = np.zeros(len(table.qi), dtype=np.int64)
    if not table.qi:
        return np.array([int(sup.sum())], dtype=np.int64)
    cols = [h.maps[t[j]][tuples[:, j]] for j, h in enumerate(table.hierarchies)]
    ids, m = group_columns(cols, [h.size(int(t[j])) for j, h in enumerate(table.hierarchies)])
    return np.rint(np.bincount(ids, weights=sup[keep], minlength=m)).astype(np.int64)


def discernibility_star(table: Table, release: Release) -> float:
    """DM* (ARX ``MetricSDDiscernability``): Σ over all classes, suppressed ones included, of
    |class|² (no suppression penalty). See :func:`suppressed_class_sizes`."""
    sizes = release.class_sizes().astype(np.int64)
    sup = suppressed_class_sizes(table, release)
    return float(int((sizes * sizes).sum()) + int((sup * sup).sum()))


def aecs(table: Table, release: Release, *, gs: float = 0.5) -> float:
    """ARX's average equivalence class size (``MetricSDAECS``).

    ``N / (#released classes·sFactor + gFactor if any record is suppressed)``: all suppressed
    records form one extra class. ARX swaps the two factors on purpose; at gs = 0.5 both are 1 and
    this is ``N / (#classes + [any suppressed])``.
    """
    g_factor, s_factor = gs_factors(gs)
    groups = release.n_classes * s_factor
    if release.n_suppressed:
        groups += 1.0 * g_factor
    return table.n / groups if groups > 0 else float("inf")


def cavg(table: Table, release: Release, k: int) -> float:
    """Normalized average class size ``C_avg = (n_released / #EC) / k`` (spec §2.2)."""
    if k <= 0:
        raise ValueError(f"k must be positive, got {k!r}")
    if release.n_classes == 0:
        return 0.0
    return release.n_released / release.n_classes / k


@dataclass(frozen=True)
class ClassSizeStats:
    """Minimum, average and maximum size of the released classes (0 when none)."""

    n_classes: int
    min: float
    avg: float
    max: float


def class_size_stats(table: Table, release: Release) -> ClassSizeStats:
    """Sizes of the released equivalence classes."""
    sizes = release.class_sizes()
    if sizes.size == 0:
        return ClassSizeStats(0, 0.0, 0.0, 0.0)
    return ClassSizeStats(int(sizes.size), float(sizes.min()), float(sizes.mean()), float(sizes.max()))


def suppression_rate(table: Table, release: Release) -> float:
    """Suppressed records / input records."""
    return release.n_suppressed / table.n


# ---------------------------------------------------------------------------------------- level-based
def _level_sums(
    table: Table, release: Release, j: int, transform: np.ndarray | None, class_levels: np.ndarray | None = None
) -> tuple[float, float]:
    """(Σ over released records of level/height, #released) for QI ``j``, grouped by level so that
    a full-domain release computes ``released·level/height`` exactly as ARX does. ``class_levels``:
    the classes' hierarchy levels (default: :func:`hierarchy_class_levels`, CUSTOM values at the
    LCA of their leaves)."""
    h = table.hierarchies[j]
    sizes = release.class_sizes()
    kept = float(sizes.sum())
    if h.height == 0:
        return 0.0, kept
    if transform is not None:
        return kept * (float(transform[j]) / h.height), kept
    if class_levels is None:
        class_levels = hierarchy_class_levels(table, release)[0]
    by_level = np.bincount(class_levels[:, j], weights=sizes, minlength=h.height + 1)
    total = 0.0
    for level in np.flatnonzero(by_level):
        total += float(by_level[level]) * (float(level) / h.height)
    return total, kept


def precision_per_attribute(
    table: Table, release: Release, *, monotonic: bool = True, gs: float = 0.5
) -> dict[str, float]:
    """ARX's Precision per QI (Sweeney's Prec as a loss).

    Non-monotonic (``MetricMDNMPrecision``): ``(Σ_released level/height·gFactor +
    #suppressed·sFactor) / N``. Monotonic (``MetricMDPrecision``): suppression ignored, i.e.
    ``level/height·gFactor`` of the transformation (for other releases the average over all
    records, suppressed ones at the root).

    A CUSTOM value (interval or set) counts with the level of the lowest common ancestor of the
    leaves it covers (:func:`hierarchy_class_levels`): the hierarchy level a global recoding would
    need to publish it.
    """
    g_factor, s_factor = gs_factors(gs)
    t = transformation_levels(table, release)
    n = float(table.n)
    n_sup = float(release.n_suppressed)
    class_levels = hierarchy_class_levels(table, release)[0]
    out: dict[str, float] = {}
    for j, (name, h) in enumerate(zip(table.qi, table.hierarchies, strict=True)):
        if h.height == 0:
            out[name] = 0.0 if monotonic else (n_sup * s_factor) / n
            continue
        if monotonic:
            if t is not None:
                out[name] = float(t[j]) / h.height * g_factor
            else:
                total, _ = _level_sums(table, release, j, None, class_levels)
                out[name] = (total + n_sup) / n * g_factor
        else:
            total, _ = _level_sums(table, release, j, t, class_levels)
            out[name] = (total * g_factor + n_sup * s_factor) / n
    return out


def precision(
    table: Table,
    release: Release,
    *,
    monotonic: bool = True,
    gs: float = 0.5,
    weights: Mapping[str, float] | Sequence[float] | None = None,
) -> float:
    """ARX's Precision: the (weighted) arithmetic mean of :func:`precision_per_attribute`."""
    values = precision_per_attribute(table, release, monotonic=monotonic, gs=gs)
    return float(aggregate_values(list(values.values()), attribute_weights(table, weights), "arithmetic"))


def prec_loss(table: Table, release: Release) -> float:
    """Sweeney's Prec as a loss, ``(1/d) Σ_A level_A/height_A`` (spec §2.2).

    For a full-domain release the levels of the transformation (suppression is not counted); for
    other releases each QI's level averaged over the released records (1 when none is released),
    a CUSTOM value (interval or set) at the level of the lowest common ancestor of the leaves it
    covers (:func:`hierarchy_class_levels`).
    """
    d = len(table.qi)
    if d == 0:
        return 0.0
    t = transformation_levels(table, release)
    class_levels = hierarchy_class_levels(table, release)[0]
    total = 0.0
    for j, h in enumerate(table.hierarchies):
        if h.height == 0:
            continue
        if t is not None:
            total += t[j] / h.height
        elif release.n_released == 0:
            total += 1.0
        else:
            s, kept = _level_sums(table, release, j, None, class_levels)
            total += s / kept
    return total / d


def height(table: Table, release: Release) -> float:
    """ARX's Height (``MetricMDHeight``): the sum of the transformation's levels. For other
    releases the average over released records of the sum of their levels (the sum of the heights
    when nothing is released), a CUSTOM value (interval or set) at the level of the lowest common
    ancestor of the leaves it covers (:func:`hierarchy_class_levels`)."""
    t = transformation_levels(table, release)
    if t is not None:
        return float(t.sum())
    sizes = release.class_sizes()
    if sizes.sum() == 0:
        return float(sum(table.heights))
    class_levels = hierarchy_class_levels(table, release)[0]
    return float((class_levels.sum(axis=1) * sizes).sum() / sizes.sum())


# ---------------------------------------------------------------------------------------- WHD
def whd_step_weights(height: int, weights: Literal["uniform", "height"] = "uniform", beta: float = 1.0) -> np.ndarray:
    """Weight of every generalization step ``ℓ → ℓ+1`` (anonkit levels, 0 = leaves) of a hierarchy.

    Spec §2.3 numbers levels from the root (root = 1, leaves = h = height + 1); the step from its
    level ``j`` to ``j − 1`` is our step ``ℓ = h − j``. ``uniform``: 1; ``height``: ``1/(j−1)^β``,
    i.e. ``1/(height − ℓ)^β`` (steps near the root cost more).
    """
    if weights == "uniform":
        return np.ones(height, dtype=np.float64)
    if weights == "height":
        if beta < 1:
            raise ValueError(f"beta must be at least 1, got {beta!r}")
        return 1.0 / np.power(np.arange(height, 0, -1, dtype=np.float64), beta)
    raise ValueError(f"unknown WHD weights {weights!r}; allowed: uniform, height")


def whd_cost(
    height: int,
    from_level: int,
    to_level: int,
    *,
    weights: Literal["uniform", "height"] = "uniform",
    beta: float = 1.0,
) -> float:
    """WHD of generalizing from ``from_level`` to ``to_level`` (anonkit levels, 0 = leaves)."""
    if not 0 <= from_level <= to_level <= height:
        raise ValueError("levels must satisfy 0 ≤ from_level ≤ to_level ≤ height")
    if height == 0:
        return 0.0
    w = whd_step_weights(height, weights, beta)
    return float(w[from_level:to_level].sum() / w.sum())


@dataclass(frozen=True)
class WHDResult:
    """Total distortion (Σ over input records of the tuple WHD) and its average per record."""

    total: float
    average: float


def whd(
    table: Table,
    release: Release,
    *,
    weights: Literal["uniform", "height"] = "uniform",
    beta: float = 1.0,
) -> WHDResult:
    """Weighted hierarchical distance (spec §2.3).

    Tuple WHD = average over the QIs of the WHD from the leaf to the released node; a suppressed
    record is fully generalized (WHD 1 per QI). Returns the sum over the input records and the
    average per record.

    A CUSTOM value (interval or set) is treated as generalized to the level of the lowest common
    ancestor of the leaves it covers (:func:`hierarchy_class_levels`): WHD is defined on hierarchy
    levels only, and that is the level a hierarchy would need to publish the value. (With the
    trivial ``{values} → *`` hierarchy any interval or set of two or more values costs 1.)
    """
    d = len(table.qi)
    if d == 0:
        return WHDResult(0.0, 0.0)
    sizes = release.class_sizes().astype(np.float64)
    per_class = np.zeros(release.n_classes, dtype=np.float64)
    class_levels = hierarchy_class_levels(table, release)[0]
    for j, h in enumerate(table.hierarchies):
        if h.height == 0:
            continue
        w = whd_step_weights(h.height, weights, beta)
        cost = np.concatenate([[0.0], np.cumsum(w)]) / w.sum()
        per_class += cost[class_levels[:, j]]
    total = float(sizes @ (per_class / d)) + release.n_suppressed * 1.0
    return WHDResult(total, total / table.n)


# ---------------------------------------------------------------------------------------- modification rate
def modification_rate(table: Table, release: Release) -> float:
    """Share of QI cells whose released label differs from the original text (spec §2.4); every
    cell of a suppressed record counts as modified.

    A CUSTOM value is compared by its published label (:meth:`Release.class_labels`): ``[lo-hi]``
    and ``{a,b}`` always differ from a single value, a one-value interval (``lo == hi``) or
    one-member set is published as the value itself and counts as modified only if that text
    differs from the original's (e.g. ``25`` for an original ``25.0``, or a date interval, whose
    bounds are published as numbers).
    """
    d = len(table.qi)
    if d == 0:
        return 0.0
    rc = release.record_class
    kept = rc >= 0
    cls = rc[kept]
    modified = release.n_suppressed * d
    for j, h in enumerate(table.hierarchies):
        levels = release.class_levels[cls, j]
        nodes = release.class_nodes[cls, j]
        original = h.labels[0][table.codes[kept, j]]
        for level in np.unique(levels):
            if level == 0:
                continue  # a leaf's label is the original text
            sel = levels == level
            if level == CUSTOM:
                labels = release.class_labels(j)[cls[sel]]
                modified += int((labels != original[sel]).sum())
                continue
            modified += int((h.labels[int(level)][nodes[sel]] != original[sel]).sum())
    return modified / (table.n * d)
