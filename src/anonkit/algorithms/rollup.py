"""Roll-up of equivalence classes from a finer, already computed transformation.

The classes of a node ``Y`` are unions of the classes of any node ``X ≤ Y`` (componentwise): each
X-class maps to one Y-class by generalizing its codes from X's levels to Y's. So instead of
re-grouping all distinct tuples, ``Y`` is computed from the (usually far fewer) classes of the
cached ``X`` with the fewest classes; sizes and sensitive histograms are summed with one
``np.bincount`` each (architecture guide: "roll a finer node's classes up to a coarser one").

A node with no cached node below is grouped from the distinct tuples. Its grouping (the class of every
distinct tuple and the classes' codes) depends on the table and the levels alone, so it is kept per
table (:class:`ScratchGroupings`) for the next search of that table (a warm ``anonymize()`` on an
unchanged input, a job's reruns): a search walks the same paths again and finds the groupings grouped.
"""

from __future__ import annotations

import functools
import math
import operator
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from anonkit._kernels import KEY_LIMIT, NUMBA_BELOW, group_columns, node_grouping, roll_kernel, tiered
from anonkit.models import Criterion
from anonkit.stats import (
    BUILT_IN_NEEDS,
    ClassStats,
    class_stats_for,
    content_memo,
    hierarchy_content,
    histogram_attributes,
    model_needs,
    table_memo,
)
from anonkit.table import Table

#: bytes of scratch groupings :class:`ScratchGroupings` keeps per table (the least recently used dropped
#: beyond): a search of Adult groups about a dozen nodes from scratch, 0.2 MB each
SCRATCH_MEMO_BYTES = 32 << 20


class Grouping:
    """One node's grouping of the distinct tuples (see :class:`ScratchGroupings`), read-only arrays."""

    __slots__ = ("codes", "n_classes", "nbytes", "stats", "tc")

    def __init__(self, tc: np.ndarray, n_classes: int, codes: np.ndarray) -> None:
        tc.flags.writeable = False
        codes.flags.writeable = False
        self.tc, self.n_classes, self.codes = tc, n_classes, codes
        #: the classes' statistics by the histograms they hold (:meth:`RollupCache._stats_key`)
        self.stats: dict[tuple[str, ...], ClassStats] = {}
        self.nbytes = tc.nbytes + codes.nbytes


class ScratchGroupings:
    """The groupings of the nodes a table's searches computed from scratch: per levels, the class of
    every distinct tuple, the number of classes and their ``(C × d)`` codes — functions of the table's
    distinct tuples, hierarchies and the levels alone (:func:`~anonkit.stats.table_memo` keeps one per
    table and hierarchies), so any search of the table may take them instead of grouping again — and
    the statistics built on them for searches whose statistics depend on the table alone (the records'
    counts as weights, built-in needs: :meth:`RollupCache._stats_key`). The arrays are read-only (shared
    by every node made from them). Least recently used first out beyond ``budget`` bytes."""

    def __init__(self, budget: int = SCRATCH_MEMO_BYTES) -> None:
        self.budget = budget
        self.used = 0
        self.entries: OrderedDict[tuple[int, ...], Grouping] = OrderedDict()
        #: lookups answered (for tests)
        self.hits = 0

    def get(self, levels: tuple[int, ...]) -> Grouping | None:
        hit = self.entries.get(levels)
        if hit is not None:
            self.entries.move_to_end(levels)
            self.hits += 1
        return hit

    def put(self, levels: tuple[int, ...], grouping: Grouping) -> None:
        if grouping.nbytes <= self.budget:
            self.entries[levels] = grouping
            self.used += grouping.nbytes
            self._evict()

    def keep_stats(self, grouping: Grouping, key: tuple[str, ...], stats: ClassStats) -> None:
        """Keep ``stats`` (made read-only) with ``grouping`` (if it is still kept)."""
        arrays = [stats.sizes, *stats.hist.values()]
        for a in arrays:
            a.flags.writeable = False
        grouping.stats[key] = stats
        size = sum(a.nbytes for a in arrays)
        grouping.nbytes += size
        if any(g is grouping for g in self.entries.values()):
            self.used += size
            self._evict()

    def _evict(self) -> None:
        while self.used > self.budget and self.entries:
            _, old = self.entries.popitem(last=False)
            self.used -= old.nbytes


def scratch_groupings(table: Table) -> ScratchGroupings:
    """The table's :class:`ScratchGroupings` (one per encoded table and hierarchies)."""
    table.distinct  # noqa: B018 (the memo is kept on it: computed first, so the first search keeps its own)
    return table_memo(table, ("rollup-scratch",), ScratchGroupings)


class _Lineage:
    """How a rolled-up node's classes follow from the scratch node's: the roll-up's map (base class →
    this class) and the base's lineage, composed into one map (scratch class → this class) on first use
    only. A search rolls up thousands of nodes and reads the tuples' classes of the one it releases, so
    composing every map eagerly (a gather over all scratch classes per node) was wasted; the chain holds
    the small per-step maps, never the nodes' statistics."""

    __slots__ = ("_below", "_ids", "_step")

    def __init__(self, step: np.ndarray, below: _Lineage | None) -> None:
        self._step: np.ndarray | None = step
        self._below = below
        self._ids: np.ndarray | None = None

    def ids(self) -> np.ndarray:
        if self._ids is None:
            assert self._step is not None
            self._ids = self._step if self._below is None else self._step[self._below.ids()]
            self._step = self._below = None
        return self._ids

    @property
    def nbytes(self) -> int:
        return (self._ids if self._ids is not None else self._step).nbytes  # type: ignore[union-attr]


@dataclass
class NodeClasses:
    """The classes of one transformation: per class its codes and statistics, and (computed on
    demand, from the node it was rolled up from) the class of every distinct tuple."""

    levels: tuple[int, ...]
    n_classes: int
    codes: np.ndarray  # (C × d) node code of every QI per class
    stats: ClassStats
    _tuple_class: np.ndarray | None = None
    _base_tuple_class: np.ndarray | None = None  # the scratch node's tuple classes (shared)
    _lineage: _Lineage | None = None  # scratch class → this node's class, on demand

    @property
    def tuple_class(self) -> np.ndarray:
        if self._tuple_class is None:
            assert self._base_tuple_class is not None and self._lineage is not None
            self._tuple_class = self._lineage.ids()[self._base_tuple_class]
        return self._tuple_class

    @property
    def nbytes(self) -> int:
        own = self.codes.nbytes + self.stats.sizes.nbytes + sum(h.nbytes for h in self.stats.hist.values())
        return own + (self._lineage.nbytes if self._lineage is not None else 0)


class RollupCache:
    """Class data of recently computed nodes, to roll coarser nodes up from (LRU, ``capacity``)."""

    def __init__(self, table: Table, weight: np.ndarray | None = None, budget_bytes: int = 256 << 20,
                 models: Sequence[Criterion] | None = None) -> None:
        self.table = table
        self.weight = weight
        #: the models judged on the classes: only what they need is built and rolled up (all
        #: histograms without them)
        self.models = None if models is None else [m for m in models if m.qis is None]
        self.budget = budget_bytes
        self.used = 0
        self.entries: OrderedDict[tuple[int, ...], NodeClasses] = OrderedDict()
        self._up: dict[tuple[int, int, int], np.ndarray] = {}
        self.rolled = 0
        self.computed = 0
        d = len(table.qi)
        self._keys = np.zeros((0, d), dtype=np.int64)
        self._classes = np.zeros(0, dtype=np.int64)
        self._alive = np.zeros(0, dtype=bool)
        self._row: dict[tuple[int, ...], int] = {}
        self._levels_at: list[tuple[int, ...]] = []  # the levels of every row of _keys
        self._n = 0
        #: rows (levels, classes) given a row number but not yet written to the matrices: written when a
        #: scan or an eviction reads them (:meth:`_flush`), so a search whose nodes all find a direct
        #: predecessor never builds them
        self._pending: list[tuple[tuple[int, ...], int]] = []
        #: the cached nodes by their levels as one mixed-radix number (radix: each hierarchy's height + 1),
        #: so a direct predecessor's key is the node's minus one stride (:meth:`_predecessor`)
        self._by_key: dict[int, NodeClasses] = {}
        strides, stride = [], 1
        for h in reversed(table.hierarchies):
            strides.append(stride)
            stride *= h.height + 1
        self._strides = tuple(reversed(strides))

    @functools.cached_property
    def _maps_up(self) -> tuple[np.ndarray, list[list[list[int]]], list[list[int]]]:
        """Every :meth:`_map` (attribute ``j``, level ``a`` up to level ``b``) in one array, where each
        starts (``at[j][a][b]``), and the nodes per level (``size[j][b]``): a roll-up then indexes
        them instead of gathering and concatenating its maps; a level without nodes counts 1, as in
        :func:`~anonkit._kernels.roll_classes`. A function of the table's hierarchies' codes alone: kept per
        table (:func:`~anonkit.stats.table_memo`, read-only) for its next search, and shared by the tables
        over hierarchies with the same codes (:func:`~anonkit.stats.content_memo`: a new frame per call)."""
        def shared() -> tuple[np.ndarray, list[list[list[int]]], list[list[int]]]:  # (the key read on a table's miss)
            return content_memo(("rollup-maps-up", hierarchy_content(self.table.hierarchies)), self._build_maps_up)

        return table_memo(self.table, ("rollup-maps-up",), shared)

    def _build_maps_up(self) -> tuple[np.ndarray, list[list[list[int]]], list[list[int]]]:
        blocks, at, size, start = [], [], [], 0
        for j, h in enumerate(self.table.hierarchies):
            at.append([[0] * (h.height + 1) for _ in range(h.height + 1)])
            size.append([max(h.size(level), 1) for level in range(h.height + 1)])
            for a in range(h.height + 1):
                for b in range(a, h.height + 1):
                    block = self._map(j, a, b)
                    at[j][a][b] = start
                    blocks.append(block)
                    start += len(block)
        flat = np.concatenate(blocks).astype(np.int64) if blocks else np.zeros(0, dtype=np.int64)
        flat.flags.writeable = False
        return flat, at, size

    def _map(self, j: int, a: int, b: int) -> np.ndarray:
        """Codes at level ``a`` of attribute ``j`` → codes at level ``b ≥ a``."""
        key = (j, a, b)
        if key not in self._up:
            h = self.table.hierarchies[j]
            out = np.zeros(h.size(a), dtype=np.int64)
            out[h.maps[a]] = h.maps[b]
            self._up[key] = out
        return self._up[key]

    def classes(self, levels: tuple[int, ...]) -> NodeClasses:
        hit = self.entries.get(levels)
        if hit is not None:
            self.entries.move_to_end(levels)
            return hit
        key = sum(map(operator.mul, levels, self._strides))
        base = self._predecessor(levels, key)
        if base is None and (self._n or self._pending):
            self._flush()
            i = int(tiered(fewest_below_py, fewest_below_np, self._keys, self._classes, self._alive, self._n,
                           np.array(levels, dtype=np.int64)))
            if i >= 0:
                base = self.entries[self._levels_at[i]]
        node = self._compute(levels) if base is None else self._roll(base, levels)
        self.entries[levels] = node
        self._by_key[key] = node
        self._index(levels, node.n_classes)
        self.used += node.nbytes
        while self.used > self.budget and len(self.entries) > 1:
            gone, old = self.entries.popitem(last=False)
            self.used -= old.nbytes
            self._flush()
            self._alive[self._row[gone]] = False
            del self._row[gone]
            del self._by_key[sum(map(operator.mul, gone, self._strides))]
        return node

    def _predecessor(self, levels: tuple[int, ...], key: int) -> NodeClasses | None:
        """The cached direct predecessor (one level lower on one attribute) with the fewest classes:
        a lattice search usually has one, and looking it up is cheaper than scanning every cached node.
        Any cached node below gives the same classes in the same order (ids follow the first
        appearance among the distinct tuples), so the choice changes only the speed. ``key``: the
        levels' mixed-radix number (:attr:`_by_key`); one level lower on attribute ``j`` is one
        stride less (no digit borrows: the level is at least 1 and at most the height)."""
        best = None
        by_key = self._by_key
        for level, stride in zip(levels, self._strides, strict=True):
            if level:
                hit = by_key.get(key - stride)
                if hit is not None and (best is None or hit.n_classes < best.n_classes):
                    best = hit
        return best

    def _index(self, levels: tuple[int, ...], n_classes: int) -> None:
        """Keep the cached levels as a matrix so finding a base is one vectorized comparison: the row is
        numbered now, written by :meth:`_flush` when read."""
        self._row[levels] = self._n + len(self._pending)
        self._levels_at.append(levels)
        self._pending.append((levels, n_classes))

    def _flush(self) -> None:
        """Write the pending rows (:meth:`_index`) to the matrices, grown as needed."""
        pending = self._pending
        if not pending:
            return
        m = self._n + len(pending)
        if m > len(self._keys):
            grow = len(self._keys)
            while grow < m:
                grow = max(64, 2 * grow)
            keys = np.zeros((grow, self._keys.shape[1]), dtype=np.int64)
            keys[: self._n] = self._keys[: self._n]
            classes = np.zeros(grow, dtype=np.int64)
            classes[: self._n] = self._classes[: self._n]
            alive = np.zeros(grow, dtype=bool)
            alive[: self._n] = self._alive[: self._n]
            self._keys, self._classes, self._alive = keys, classes, alive
        self._keys[self._n:m] = [levels for levels, _ in pending]
        self._classes[self._n:m] = [n for _, n in pending]
        self._alive[self._n:m] = True
        self._n = m
        pending.clear()

    def _compute(self, levels: tuple[int, ...]) -> NodeClasses:
        """The node grouped from the distinct tuples, its grouping (and, when they depend on the table
        alone, its statistics) taken from the table's :class:`ScratchGroupings` when a search of the
        table grouped it before: the same arrays a new grouping gives (a function of the table and the
        levels)."""
        self.computed += 1
        t = self.table
        memo = self._scratch
        grouping = memo.get(levels)
        sizes = None
        if grouping is None:
            grouping, sizes = self._group(levels)
            memo.put(levels, grouping)
        key = self._stats_key
        kept = grouping.stats.get(key) if key is not None else None
        if kept is not None:  # a statistics object of its own (its caches are the search's), the same arrays
            stats = ClassStats(kept.sizes, dict(kept.hist), kept.domains)
        else:
            if sizes is not None and self.weight is None and self.models is not None:
                # Table.stats without tuple weights, the sizes summed by the grouping's pass
                d = t.distinct
                stats = class_stats_for(self.models, grouping.tc, grouping.n_classes, weights=d.counts,
                                        sensitive=d.pairs, domains=t.domains,
                                        sources={**t.sources, "node": (t, levels)}, sizes=sizes)
            else:
                stats = t.stats(grouping.tc, grouping.n_classes, self.weight, models=self.models, levels=levels)
            if key is not None:
                memo.keep_stats(grouping, key, stats)
        return NodeClasses(levels, grouping.n_classes, grouping.codes, stats, _tuple_class=grouping.tc)

    def _group(self, levels: tuple[int, ...]) -> tuple[Grouping, np.ndarray | None]:
        """The node's grouping of the distinct tuples — the class of every tuple (:meth:`Table.tuple_classes`'
        ids) and the classes' codes (their first tuple's generalized codes) — and, when its pass summed them,
        the classes' sizes (the tuples' counts summed as :func:`~anonkit.stats.class_stats_for` sums them).
        Where ``tuple_classes`` groups in one pass (:func:`~anonkit._kernels.node_ids`: fewer than
        ``NUMBA_BELOW`` tuples, an int64 key space), :func:`~anonkit._kernels.node_grouping` gives the same
        ids, the codes and the sizes in one pass; elsewhere the codes are gathered from each class's first
        tuple (:meth:`_class_codes`) and the sizes left to the statistics (``None``)."""
        t = self.table
        d = t.distinct
        if t.qi and d.size < NUMBA_BELOW:
            flat, base = t._flat_maps
            hs = t.hierarchies
            offsets = np.array([base[j] + lv * hs[j].n_leaves for j, lv in enumerate(levels)], dtype=np.int64)
            sizes = np.array([hs[j].size(lv) for j, lv in enumerate(levels)], dtype=np.int64)
            fused = node_grouping(d.matrix, flat, offsets, sizes, d.counts)
            if fused is not None:
                tc, n_classes, codes, class_sizes = fused
                return Grouping(tc, n_classes, codes), class_sizes
        tc, n_classes = t.tuple_classes(levels)
        first = np.full(n_classes, -1, dtype=np.int64)
        rev = np.arange(len(tc) - 1, -1, -1)
        first[tc[rev]] = rev
        codes = self._class_codes(levels, first) if t.qi else np.zeros((n_classes, 0), dtype=np.int64)
        return Grouping(tc, n_classes, codes), None

    @functools.cached_property
    def _scratch(self) -> ScratchGroupings:
        return scratch_groupings(self.table)

    @functools.cached_property
    def _stats_key(self) -> tuple[str, ...] | None:
        """The histograms the statistics of a node hold, when they are a function of the table and the
        levels alone: the records' counts as weights (no pre-suppressed record zeroed), the models given
        and needing only sizes and histograms (no registered need, whose builder reads other sources).
        ``None``: the statistics are built by every search."""
        if self.weight is not None or self.models is None or model_needs(self.models) - BUILT_IN_NEEDS:
            return None
        return tuple(sorted(histogram_attributes(self.models)))

    def _class_codes(self, levels: tuple[int, ...], first: np.ndarray) -> np.ndarray:
        """``(C × d)`` int64 node codes of the classes whose first tuples are ``first``: the tuples'
        leaf codes read through every hierarchy's lookup array at once (the table's maps concatenated,
        each attribute's block at its level), one gather instead of two per attribute."""
        t = self.table
        flat, base = t._flat_maps
        offsets = np.array([base[j] + levels[j] * h.n_leaves for j, h in enumerate(t.hierarchies)], dtype=np.int64)
        return flat[t.distinct.tuples[first] + offsets]

    def _roll(self, base: NodeClasses, levels: tuple[int, ...]) -> NodeClasses:
        st = base.stats
        if st.extra and not st.rollable():  # a need that does not add up over merged classes: built again
            return self._compute(levels)
        self.rolled += 1
        d = len(levels)
        flat, at, size = self._maps_up
        # the histograms and the additive needs, side by side: one roll-up adds them all
        columns = {**st.hist, **{f"need:{n}": v.reshape(-1, 1) for n, v in st.extra.items()}} if st.extra else st.hist
        attrs = list(columns)
        widths = [columns[a].shape[1] for a in attrs]
        if len(attrs) == 1:
            hist = columns[attrs[0]]
        else:
            hist = np.concatenate([columns[a] for a in attrs], axis=1) if attrs else np.empty((base.n_classes, 0))
        sizes = [size[j][levels[j]] for j in range(d)]  # each at least 1 (:attr:`_maps_up`)
        radix = math.prod(sizes)
        if not d or radix >= KEY_LIMIT:
            return self._roll_numpy(base, levels)
        offsets = np.array([at[j][base.levels[j]][levels[j]] for j in range(d)], dtype=np.int64)
        ids, n_classes, codes, new_sizes, new_hist = roll_kernel(
            base.codes, flat, offsets, np.array(sizes, dtype=np.int64), radix, st.sizes, hist)
        out_hist, out_extra, at = {}, {}, 0
        for a, w in zip(attrs, widths, strict=True):
            if a.startswith("need:"):
                out_extra[a[5:]] = new_hist[:, at]
            else:
                out_hist[a] = new_hist[:, at : at + w]
            at += w
        stats = st.with_counts(new_sizes, out_hist, out_extra)
        return self._node(base, levels, ids, n_classes, codes, stats)

    def _node(
        self, base: NodeClasses, levels: tuple[int, ...], ids: np.ndarray, n_classes: int, codes: np.ndarray,
        stats: ClassStats,
    ) -> NodeClasses:
        if base._lineage is None:  # base computed from scratch
            root_tc, lineage = base._tuple_class, _Lineage(ids, None)
        else:
            root_tc, lineage = base._base_tuple_class, _Lineage(ids, base._lineage)
        return NodeClasses(levels, n_classes, codes, stats, _base_tuple_class=root_tc, _lineage=lineage)

    def _roll_numpy(self, base: NodeClasses, levels: tuple[int, ...]) -> NodeClasses:
        """The same roll-up with numpy, for key spaces beyond an int64."""
        t = self.table
        cols = [self._map(j, base.levels[j], levels[j])[base.codes[:, j]] for j in range(len(levels))]
        sizes = [t.hierarchies[j].size(levels[j]) for j in range(len(levels))]
        ids, n_classes = group_columns(cols, sizes)
        st = base.stats
        new_sizes = np.bincount(ids, weights=st.sizes, minlength=n_classes)
        hist = {}
        for attr, h in st.hist.items():
            s = h.shape[1]
            flat = (ids[:, None] * s + np.arange(s)).ravel()
            hist[attr] = np.bincount(flat, weights=h.ravel(), minlength=n_classes * s).reshape(n_classes, s)
        extra = {n: np.bincount(ids, weights=v, minlength=n_classes) for n, v in st.extra.items()}
        first = np.full(n_classes, -1, dtype=np.int64)
        rev = np.arange(len(ids) - 1, -1, -1)
        first[ids[rev]] = rev
        codes = np.stack([c[first] for c in cols], axis=1) if cols else np.zeros((n_classes, 0), dtype=np.int64)
        return self._node(base, levels, ids, n_classes, codes, st.with_counts(new_sizes, hist, extra))


def fewest_below_np(keys: np.ndarray, classes: np.ndarray, alive: np.ndarray, n: int, levels: np.ndarray) -> int:
    """The first of the ``n`` rows of ``keys`` (cached levels) that is alive and at or below ``levels``
    on every attribute with the fewest ``classes``; −1 when none is."""
    below = (keys[:n] <= levels).all(axis=1) & alive[:n]
    if not below.any():
        return -1
    return int(np.flatnonzero(below)[np.argmin(classes[:n][below])])


def fewest_below_py(keys: np.ndarray, classes: np.ndarray, alive: np.ndarray, n: int, levels: np.ndarray) -> int:
    """:func:`fewest_below_np` one row at a time (compiled by numba): the first row with the fewest
    classes, as ``argmin`` takes it."""
    best = -1
    for i in range(n):
        if not alive[i] or (best >= 0 and classes[i] >= classes[best]):
            continue
        ok = True
        for j in range(levels.shape[0]):
            if keys[i, j] > levels[j]:
                ok = False
                break
        if ok:
            best = i
    return best
