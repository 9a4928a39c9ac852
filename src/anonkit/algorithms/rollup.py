"""Roll-up of equivalence classes from a finer, already computed transformation.

The classes of a node ``Y`` are unions of the classes of any node ``X ≤ Y`` (componentwise): each
X-class maps to one Y-class by generalizing its codes from X's levels to Y's. So instead of
re-grouping all distinct tuples, ``Y`` is computed from the (usually far fewer) classes of the
cached ``X`` with the fewest classes; sizes and sensitive histograms are summed with one
``np.bincount`` each (architecture guide: "roll a finer node's classes up to a coarser one").
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from anonkit._kernels import group_columns, roll_classes
from anonkit.models import Criterion
from anonkit.stats import ClassStats
from anonkit.table import Table


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
        self._n = 0

    @functools.cached_property
    def _maps_up(self) -> tuple[np.ndarray, list[list[list[int]]], list[list[int]]]:
        """Every :meth:`_map` (attribute ``j``, level ``a`` up to level ``b``) in one array, where each
        starts (``at[j][a][b]``), and the nodes per level (``size[j][b]``): a roll-up then indexes
        them instead of gathering and concatenating its maps."""
        blocks, at, size, start = [], [], [], 0
        for j, h in enumerate(self.table.hierarchies):
            at.append([[0] * (h.height + 1) for _ in range(h.height + 1)])
            size.append([h.size(level) for level in range(h.height + 1)])
            for a in range(h.height + 1):
                for b in range(a, h.height + 1):
                    block = self._map(j, a, b)
                    at[j][a][b] = start
                    blocks.append(block)
                    start += len(block)
        flat = np.concatenate(blocks).astype(np.int64) if blocks else np.zeros(0, dtype=np.int64)
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
        base = self._predecessor(levels)
        if base is None and self._n:
            below = (self._keys[: self._n] <= np.asarray(levels)).all(axis=1) & self._alive[: self._n]
            if below.any():
                i = int(np.flatnonzero(below)[np.argmin(self._classes[: self._n][below])])
                base = self.entries[tuple(int(x) for x in self._keys[i])]
        node = self._compute(levels) if base is None else self._roll(base, levels)
        self.entries[levels] = node
        self._index(levels, node.n_classes)
        self.used += node.nbytes
        while self.used > self.budget and len(self.entries) > 1:
            key, old = self.entries.popitem(last=False)
            self.used -= old.nbytes
            self._alive[self._row[key]] = False
            del self._row[key]
        return node

    def _predecessor(self, levels: tuple[int, ...]) -> NodeClasses | None:
        """The cached direct predecessor (one level lower on one attribute) with the fewest classes:
        a lattice search usually has one, and looking it up is cheaper than scanning every cached node.
        Any cached node below gives the same classes in the same order (ids follow the first
        appearance among the distinct tuples), so the choice changes only the speed."""
        best = None
        for j, level in enumerate(levels):
            if level:
                hit = self.entries.get((*levels[:j], level - 1, *levels[j + 1:]))
                if hit is not None and (best is None or hit.n_classes < best.n_classes):
                    best = hit
        return best

    def _index(self, levels: tuple[int, ...], n_classes: int) -> None:
        """Keep the cached levels as a matrix so finding a base is one vectorized comparison."""
        if self._n == len(self._keys):
            grow = max(64, 2 * len(self._keys))
            keys = np.zeros((grow, len(levels)), dtype=np.int64)
            keys[: self._n] = self._keys[: self._n]
            classes = np.zeros(grow, dtype=np.int64)
            classes[: self._n] = self._classes[: self._n]
            alive = np.zeros(grow, dtype=bool)
            alive[: self._n] = self._alive[: self._n]
            self._keys, self._classes, self._alive = keys, classes, alive
        self._keys[self._n] = levels
        self._classes[self._n] = n_classes
        self._alive[self._n] = True
        self._row[levels] = self._n
        self._n += 1

    def _compute(self, levels: tuple[int, ...]) -> NodeClasses:
        self.computed += 1
        t = self.table
        tc, n_classes = t.tuple_classes(levels)
        stats = t.stats(tc, n_classes, self.weight, models=self.models, levels=levels)
        first = np.full(n_classes, -1, dtype=np.int64)
        rev = np.arange(len(tc) - 1, -1, -1)
        first[tc[rev]] = rev
        codes = self._class_codes(levels, first) if t.qi else np.zeros((n_classes, 0), dtype=np.int64)
        return NodeClasses(levels, n_classes, codes, stats, _tuple_class=tc)

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
        if not st.rollable():  # a need that does not add up over merged classes: built again
            return self._compute(levels)
        self.rolled += 1
        d = len(levels)
        flat, at, size = self._maps_up
        offsets = np.array([at[j][base.levels[j]][levels[j]] for j in range(d)], dtype=np.int64)
        sizes = np.array([size[j][levels[j]] for j in range(d)], dtype=np.int64)
        # the histograms and the additive needs, side by side: one roll-up adds them all
        columns = {**st.hist, **{f"need:{n}": v.reshape(-1, 1) for n, v in st.extra.items()}} if st.extra else st.hist
        attrs = list(columns)
        widths = [columns[a].shape[1] for a in attrs]
        if len(attrs) == 1:
            hist = columns[attrs[0]]
        else:
            hist = np.concatenate([columns[a] for a in attrs], axis=1) if attrs else np.zeros((base.n_classes, 0))
        rolled = roll_classes(base.codes, flat, offsets, sizes, st.sizes, hist) if d else None
        if rolled is None:
            return self._roll_numpy(base, levels)
        ids, n_classes, codes, new_sizes, new_hist = rolled
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
