"""Mondrian's encoding of the quasi-identifiers: the code matrix the cut kernels read and its geometry.

Every QI becomes one row of an int32 code matrix ``X`` (one column per record): a numeric (or date)
QI the rank of its value among the table's distinct values (a missing value one more value above all
others), a categorical QI the position of its leaf in depth-first order of its hierarchy (with a
virtual root above the top level), so that the leaves below any node are a range and a group's
lowest common ancestor is that of its smallest and largest position. Rows for the sensitive
attributes the models judge ride along below the QIs.

A partition's *state* is, per QI, ``(A, B)``: numeric, the lowest and highest rank; categorical, the
level and node of the lowest common ancestor. Its *normalized width* (:meth:`Encoding.widths`) —
numeric: the range of its values over the table's range; categorical: the leaves below its node over
the hierarchy's leaves — orders the QIs a cut tries. The local Mondrian, the 1:M baseline and
Mondrian on Spark share this one encoding, so their widths, states and cuts are the same floats and
integers.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from anonkit.table import Table


class Encoding:
    """The active records as the kernels see them (see the module docstring): ``X`` (``d`` QI rows, then
    one row per attribute of ``hist_attrs``), ``kinds`` (0 numeric, 1 categorical), the geometry of every
    QI, and ``lookup[j]``: a leaf code's code in row ``j`` of ``X``."""

    def __init__(self, table: Table, active: np.ndarray | None, hist_attrs: list[str]) -> None:
        d = len(table.qi)
        n = table.n if active is None else len(active)

        def rows(a: np.ndarray) -> np.ndarray:
            return a if active is None else a[active]

        def column(j: int) -> tuple[np.ndarray, np.ndarray | None]:
            name = table.qi[j]
            return rows(table.codes[:, j]), rows(table.numeric[name]) if name in table.numeric else None

        kinds = np.array([0 if q in table.numeric else 1 for q in table.qi], dtype=np.int64)
        self.X = np.empty((d + len(hist_attrs), n), dtype=np.int32)
        self._describe(kinds, table.hierarchies, column)
        for a, name in enumerate(hist_attrs):
            self.X[d + a] = rows(table.sensitive_codes[name])

    @classmethod
    def from_columns(
        cls, kinds: np.ndarray, hierarchies: list, column: Callable[[int], tuple[np.ndarray, np.ndarray | None]]
    ) -> Encoding:
        """The encoding's geometry without the code matrix (``X`` is ``None``), from every QI's leaf
        codes and numeric values (``column(j)``; repeated entries change nothing, so the distinct
        values of a column suffice): what a distributed engine computes once for the whole table.
        ``lookup[j]`` gives a leaf code's row-``j`` code of ``X``."""
        enc = cls.__new__(cls)
        enc.X = None
        enc._describe(np.asarray(kinds, dtype=np.int64), hierarchies, column)
        return enc

    def _describe(self, kinds: np.ndarray, hierarchies: list, column: Callable) -> None:
        """The geometry of every QI (``column(j)``: its leaf codes and numeric values, ``None`` for a
        categorical QI), and row ``j`` of ``X`` when there is one."""
        d = len(kinds)
        self.d = d
        self.kinds = kinds
        self.values: list[np.ndarray] = []  # numeric: the value of every rank
        self.ranges = np.zeros(d)  # numeric: the table's range
        self.share: list[np.ndarray] = []  # categorical: leaves below (level, node) / leaves, flattened
        self.leaves = np.ones(d, dtype=np.int64)
        self.nodes: list[np.ndarray] = []  # categorical: number of nodes on every level
        self.lookup: list[np.ndarray] = []  # leaf code → code in X (numeric: rank; categorical: position)
        blocks, offsets, at = [], np.zeros(d, dtype=np.int64), 0
        for j in range(d):
            h = hierarchies[j]
            codes, numbers = column(j)
            nl = h.n_leaves
            if self.kinds[j] == 0:
                vals = np.full(nl, np.nan)
                vals[codes] = numbers
                seen = np.zeros(nl, dtype=bool)
                seen[codes] = True
                uniq, inv = np.unique(vals[seen], return_inverse=True)
                rank = np.zeros(nl, dtype=np.int32)
                rank[seen] = inv.reshape(-1)
                if self.X is not None:
                    self.X[j] = rank[codes]
                self.lookup.append(rank)
                finite = uniq[np.isfinite(uniq)]
                span = float(finite[-1] - finite[0]) if finite.size else 0.0
                if finite.size < uniq.size:  # a missing value: one more value, beyond the range
                    uniq = uniq.copy()
                    uniq[np.isnan(uniq)] = (finite[-1] + max(span, 1.0)) if finite.size else 0.0
                    span = float(uniq[-1] - uniq[0])
                self.values.append(uniq)
                self.ranges[j] = span
                self.share.append(np.zeros(0))
                self.nodes.append(np.zeros(0, dtype=np.int64))
                continue
            # the hierarchy plus a virtual root above its top level (which may hold several nodes),
            # so that every partition has a lowest common ancestor; leaves in depth-first order
            maps = np.vstack([h.maps, np.zeros((1, nl), dtype=np.int32)]).astype(np.int64)
            dfs = np.lexsort(maps)  # by the path from the root (primary key last): subtrees are ranges
            pos = np.empty(nl, dtype=np.int32)
            pos[dfs] = np.arange(nl, dtype=np.int32)
            if self.X is not None:
                self.X[j] = pos[codes]
            self.lookup.append(pos)
            maps = maps[:, dfs]
            self.leaves[j] = nl
            offsets[j] = at
            blocks.append(maps.reshape(-1))
            at += maps.size
            counts = [np.bincount(level, minlength=int(level.max()) + 1) for level in maps]
            share = np.zeros(maps.shape)
            for lv, c in enumerate(counts):
                share[lv, : len(c)] = c / nl
            self.share.append(share.reshape(-1))
            self.nodes.append(np.array([len(c) for c in counts], dtype=np.int64))
            self.values.append(np.zeros(0))
        self.maps = np.concatenate(blocks) if blocks else np.zeros(1, dtype=np.int64)
        self.offsets = offsets
        self.max_nodes = max([int(x.max()) for x in self.nodes if x.size] + [1])

    def widths(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """Normalized width of every partition and QI; −1 where the QI holds a single value."""
        W = np.full(A.shape, -1.0)
        for j in range(self.d):
            a, b = A[:, j], B[:, j]
            if self.kinds[j] == 0:
                if self.ranges[j] > 0:
                    v = self.values[j]
                    W[:, j] = np.where(b > a, (v[b] - v[a]) / self.ranges[j], -1.0)
            else:
                W[:, j] = np.where(a > 0, self.share[j][a * self.leaves[j] + b], -1.0)
        return W

    def max_children(self, cols: np.ndarray, A: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        """An upper bound on the children of each cut (2 for numeric QIs)."""
        out = np.full(len(cols), 2, dtype=np.int64)
        for j in np.unique(cols):
            if self.kinds[j] == 1:
                sel = cols == j
                out[sel] = np.minimum(self.nodes[j][A[sel, j] - 1], sizes[sel])
        return out


    def levels(self, j: int) -> np.ndarray:
        """Categorical QI ``j``'s lookup ``(levels × leaves)``: the node of every leaf position on every
        level (the virtual root last)."""
        nl = int(self.leaves[j])
        levels = len(self.nodes[j])
        return self.maps[self.offsets[j]: self.offsets[j] + levels * nl].reshape(levels, nl)

    def state(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The partitions' state ``(A, B)`` from the lowest and highest code of every QI (``lo``, ``hi``:
        partitions × QIs), as the ``apply`` kernel computes it from the rows: numeric, the ranks;
        categorical, level and node of the lowest common ancestor of the first and the last leaf (in
        the hierarchy with its virtual root). What a distributed engine computes from aggregates."""
        A, B = lo.copy(), hi.copy()
        for j in np.flatnonzero(self.kinds == 1):
            M = self.levels(j)
            a, b = M[:, lo[:, j]], M[:, hi[:, j]]
            lv = np.argmax(a == b, axis=0)  # the virtual root always meets
            A[:, j] = lv
            B[:, j] = M[lv, lo[:, j]]
        return A, B
