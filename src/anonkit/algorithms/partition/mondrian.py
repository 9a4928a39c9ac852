"""Mondrian multidimensional partitioning (LeFevre, DeWitt, Ramakrishnan, ICDE 2006; spec §5.4).

The records are cut recursively. A partition ``P`` tries its quasi-identifiers in order of
*normalized width* (numeric: the range of ``P``'s values over the table's range; categorical: the
leaves below ``P``'s node — the lowest common ancestor of its values — over the hierarchy's leaves;
ties: the first QI) and takes the first *allowable* cut:

* numeric QI, strict mode: the frequency-set median ``v`` — the first value whose cumulative count
  reaches ``⌊|P|/2⌋`` — gives ``left = {x ≤ v}`` and ``right = {x > v}``;
* numeric QI, relaxed mode: the records are ordered by value (ties by record order) and split into
  halves of ``⌊|P|/2⌋`` and ``⌈|P|/2⌉`` records, so records equal to the median may go either way;
* categorical QI ("basic Mondrian"): the records are grouped by the child, one level below ``P``'s
  node, of the node their value falls under; empty children do not exist.

A cut is allowable when it yields at least two non-empty children, each with at least ``k`` records
(``k`` = the largest ``minimum_class_size`` of the models, the largest k of the k-anonymity models
among them) and each satisfying every model (``Criterion.passes`` on the children's statistics).
A partition without an allowable cut becomes a final group. The whole table must satisfy the models
itself, otherwise nothing can be released and the result is a single (suppressed) class. In relaxed
mode, final groups that would be published alike (overlapping halves can produce them) become one
class (``partition_release`` merges them). Records suppressed up front (``Table.presuppressed``)
take no part. A missing value of a numeric QI counts as one more value above all others.

Implementation: the partitions of one depth are processed together, breadth first. Every partition
is a contiguous block of columns of a code matrix with one row per QI (numeric: value ranks;
categorical: leaf positions in depth-first order of the hierarchy, so every node's leaves are a
range and a group's lowest common ancestor is that of its smallest and largest position) and per
sensitive attribute the models need. A cut re-orders the block stably into its children, so every
kernel reads memory sequentially. The median comes from radix selection on the ranks (O(|P|), no
sort). The models judge all candidate children of a depth in one vectorized call. Work per depth is
O(n); there are O(log n) depths. Everything is deterministic.

Two cores: from ``PARALLEL_ROWS`` (200,000) active records up, the depths below the first with several
partitions run on two threads, each cutting its own groups of partitions (disjoint ranges of rows)
with the GIL-free kernels, and handing half of its partitions to the other thread when that one runs
out of work. Partitions are independent once cut and the final ones are numbered after both threads
finish, in the single loop's order, so the result is the same, record for record, as on one thread
(see :func:`cut`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Literal

import numpy as np

from anonkit._kernels import usable_cores
from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression, checkpoint
from anonkit.algorithms.local import partition_release
from anonkit.algorithms.spec import algorithm
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.stats import ClassStats
from anonkit.table import Table

Mode = Literal["strict", "relaxed"]

# ---------------------------------------------------------------------------------------- kernels
# Plain Python functions compiled with numba on first use (``_kernels()``), as in anonkit._kernels.
#
# Shared arguments: ``X`` the (w × n) int32 code matrix, one row per QI (numeric: value rank;
# categorical: position of the leaf in depth-first order of its hierarchy, so that the leaves below
# any node are consecutive) and then one per sensitive attribute the models need; partitions given
# by ``starts``/``ends`` (column ranges of ``X``); ``kinds[j]`` 0 for a numeric QI, 1 for a
# categorical one; ``A``/``B`` the (P × d) partition state (numeric: lowest and highest rank;
# categorical: level and node of the lowest common ancestor); ``maps`` every categorical
# hierarchy's lookup arrays by leaf position, flattened (``maps[off[j] + level * leaves[j] + pos]``);
# ``lab`` the child of every record.


def _propose_py(
    X, starts, ends, cols, kinds, maps, off, leaves, A, B, relaxed, coff, lab, csize, nchild, cmin, cnt, slot, present
):
    """Cut every partition ``p`` on QI ``cols[p]``: writes ``lab`` for its records, the sizes of its
    children at ``csize[coff[p]:]``, how many there are (``nchild``) and the smallest (``cmin``)."""
    for p in range(starts.shape[0]):
        s = starts[p]
        e = ends[p]
        j = cols[p]
        x = X[j]
        size = e - s
        base = coff[p]
        if kinds[j] == 0:
            # radix selection of the m-th smallest rank (1-based): narrow [lo, hi] bucket by bucket
            m = size // 2
            lo = np.int64(A[p, j])
            hi = np.int64(B[p, j])
            less = np.int64(0)
            eq = np.int64(0)
            width = max(np.int64(64), min(np.int64(65536), 2 * size))
            while True:
                shift = 0
                while ((hi - lo) >> shift) >= width:
                    shift += 1
                nb = ((hi - lo) >> shift) + 1
                for i in range(s, e):
                    v = np.int64(x[i])
                    if lo <= v <= hi:
                        cnt[(v - lo) >> shift] += 1
                acc = less
                t = 0
                while acc + cnt[t] < m:
                    acc += cnt[t]
                    t += 1
                eq = cnt[t]
                for u in range(nb):
                    cnt[u] = 0
                less = acc
                lo = lo + (np.int64(t) << shift)
                hi = min(hi, lo + (np.int64(1) << shift) - 1)
                if shift == 0:
                    break
            median = lo
            if relaxed:
                need = m - less  # records equal to the median that go left, in record order
                for i in range(s, e):
                    v = x[i]
                    if v < median:
                        lab[i] = 0
                    elif v > median:
                        lab[i] = 1
                    elif need > 0:
                        lab[i] = 0
                        need -= 1
                    else:
                        lab[i] = 1
                left = m
            else:
                for i in range(s, e):
                    lab[i] = 0 if x[i] <= median else 1
                left = less + eq
            csize[base] = left
            csize[base + 1] = size - left
            nchild[p] = 2 if 0 < left < size else 1
            cmin[p] = min(left, size - left)
        else:
            at = off[j] + (A[p, j] - 1) * leaves[j]
            k = 0
            for i in range(s, e):
                c = maps[at + x[i]]
                lab[i] = c
                if cnt[c] == 0:
                    present[k] = c
                    k += 1
                cnt[c] += 1
            kids = np.sort(present[:k])
            smallest = size
            for r in range(k):
                c = kids[r]
                slot[c] = r
                csize[base + r] = cnt[c]
                smallest = min(smallest, cnt[c])
            for i in range(s, e):
                lab[i] = slot[lab[i]]
            for r in range(k):
                cnt[kids[r]] = 0
                slot[kids[r]] = -1
            nchild[p] = k
            cmin[p] = smallest


def _apply_py(
    X, Xn, perm, permn, starts, ends, nchild, coff, kinds, maps, off, leaves, lab, cstart, cend, cA, cB, cur, dest
):
    """Move the records of every partition ``p`` into its ``nchild[p]`` children (stable, into
    ``Xn``/``permn``) and compute the children's state (rows ``coff[p]:`` of ``cA``/``cB``)."""
    w = X.shape[0]
    d = cA.shape[1]
    for p in range(starts.shape[0]):
        s = starts[p]
        e = ends[p]
        c = nchild[p]
        base = coff[p]
        for r in range(c):
            cur[r] = 0
        for i in range(s, e):
            cur[lab[i]] += 1
        row = s
        for r in range(c):
            cstart[base + r] = row
            row += cur[r]
            cend[base + r] = row
            cur[r] = 0
        # where every record goes (stable); two children, the common case, without a memory chain
        if c == 2:
            o0 = cstart[base]
            o1 = cstart[base + 1]
            for i in range(s, e):
                one = np.int64(lab[i])
                dest[i] = o0 + one * (o1 - o0)
                o0 += 1 - one
                o1 += one
        else:
            for r in range(c):
                cur[r] = cstart[base + r]
            for i in range(s, e):
                o = cur[lab[i]]
                cur[lab[i]] = o + 1
                dest[i] = o
            for r in range(c):
                cur[r] = 0
        for i in range(s, e):
            permn[dest[i]] = perm[i]
        for i0 in range(s, e, 2048):  # in blocks, so that dest stays in cache across the rows
            i1 = min(i0 + 2048, e)
            for u in range(w):
                x = X[u]
                y = Xn[u]
                for i in range(i0, i1):
                    y[dest[i]] = x[i]
        for r in range(c):
            cs = cstart[base + r]
            ce = cend[base + r]
            q = base + r
            for u in range(d):
                y = Xn[u]
                lo = y[cs]
                hi = lo
                for i in range(cs + 1, ce):
                    v = y[i]
                    lo = min(lo, v)
                    hi = max(hi, v)
                if kinds[u] == 0:
                    cA[q, u] = lo
                    cB[q, u] = hi
                else:  # the lowest common ancestor of the first and the last leaf is everybody's
                    lv = 0
                    while True:
                        at = off[u] + lv * leaves[u]
                        if maps[at + lo] == maps[at + hi]:
                            break
                        lv += 1
                    cA[q, u] = lv
                    cB[q, u] = maps[at + lo]


def _hist_py(X, row, starts, ends, coff, lab, hist):
    """Sensitive histogram (row ``row`` of ``X``) of every candidate child."""
    x = X[row]
    for p in range(starts.shape[0]):
        base = coff[p]
        for i in range(starts[p], ends[p]):
            hist[base + lab[i], x[i]] += 1.0


def _assign_py(perm, starts, ends, record_class, first_id):
    """Class ``first_id + p`` for the records of final partition ``p``."""
    for p in range(starts.shape[0]):
        for i in range(starts[p], ends[p]):
            record_class[perm[i]] = first_id + p


_COMPILED: dict | None = None


def _kernels() -> dict:
    global _COMPILED
    if _COMPILED is None:
        import numba as nb

        jit = nb.njit(cache=True, nogil=True)
        _COMPILED = {
            "propose": jit(_propose_py),
            "apply": jit(_apply_py),
            "hist": jit(_hist_py),
            "assign": jit(_assign_py),
        }
    return _COMPILED


# ---------------------------------------------------------------------------------------- encoding
class _Encoded:
    """The active records as the kernels see them (see the comment above the kernels)."""

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
    ) -> _Encoded:
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


# ---------------------------------------------------------------------------------------- algorithm
@algorithm("mondrian", family="partition", summary="top-down multidimensional partitioning (strict or relaxed) "
           "with every model as the split condition; numeric quasi-identifiers become intervals", label="Mondrian",
           engines=("local", "spark"))
def mondrian(
    table: Table,
    models: list[Criterion],
    *,
    mode: Mode = "strict",
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
) -> Release:
    """Mondrian multidimensional k-anonymity, extended to every model (see the module docstring).

    Parameters
    ----------
    mode:
        ``strict`` partitions (no value on both sides of a cut) or ``relaxed`` ones (a cut value's
        records may be split to balance the halves).
    max_suppression:
        Share of the records the models may suppress.

    ``notes["partitions"]`` is the number of final partitions. In relaxed mode, partitions that would
    be published alike (the same intervals and nodes: overlapping halves can produce them) are one
    class of the release, so it may have fewer classes than partitions.
    """
    started = time.perf_counter()
    models = list(models)
    params = {"mode": mode}
    record_class = np.zeros(table.n, dtype=np.int64)
    record_class, partitions = _partition(table, models, mode, record_class)
    rel = partition_release(
        table,
        record_class,
        models,
        algorithm="mondrian",
        max_suppression=max_suppression,
        started=started,
        params=params,
    )
    rel.notes["partitions"] = partitions
    if rel.n_classes == 0 and partitions == 1:
        rel.message = "the models cannot be met: the whole table fails them, so nothing can be released"
    return rel


def _partition(table: Table, models: list[Criterion], mode: str, record_class: np.ndarray) -> tuple[np.ndarray, int]:
    """Fill in the class of every record (pre-suppressed ones: any); return it with the number of
    final partitions. The whole table is one class when it fails the models."""
    kmin = max([int(m.minimum_class_size()) for m in models] + [1])
    hist_attrs = sorted({m.attribute for m in models if m.attribute is not None})
    pre = table.presuppressed.any()
    active = np.flatnonzero(~table.presuppressed) if pre else None
    n = table.n if active is None else len(active)
    if n == 0:
        return record_class, 0
    root = ClassStats(
        np.array([float(n)]),
        {
            a: np.bincount(
                table.sensitive_codes[a] if active is None else table.sensitive_codes[a][active],
                minlength=table.domains[a].size,
            )[None, :].astype(float)
            for a in hist_attrs
        },
        table.domains,
    )
    if n < kmin or not all(bool(m.passes(root)[0]) for m in models):
        return record_class, 1  # one class, which the models fail: nothing is released

    K = _kernels()
    enc = _Encoded(table, active, hist_attrs)
    perm = np.arange(n, dtype=np.int64) if active is None else active.astype(np.int64)

    def accept(X: np.ndarray, ps: np.ndarray, pe: np.ndarray, coff: np.ndarray, nchild: np.ndarray,
               csize: np.ndarray, lab: np.ndarray) -> np.ndarray:
        if not models:
            return np.ones(len(ps), dtype=bool)
        return _children_pass(K, X, enc.d, hist_attrs, table, models, ps, pe, coff, nchild, csize, lab)

    n_final = cut(enc, enc.X, perm, kmin, accept, record_class, relaxed=mode == "relaxed", threads=_cores())
    return record_class, n_final


#: ``accept(X, starts, ends, child offsets, children, child sizes, child labels) -> ok``: whether each
#: proposed cut (of the partitions ``starts[i]:ends[i]`` of the permuted rows into ``nchild[i]``
#: children, row ``r`` in child ``lab[r]``) is allowed, beyond every child holding ``kmin`` rows
Accept = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]

#: :func:`mondrian` runs its loop on two threads (``cut(..., threads=2)``) from this many active
#: records up; below it the work is too small to repay starting threads (measured in
#: ``benchmarks/bench_mondrian.py --threads``)
PARALLEL_ROWS = 200_000
#: a thread hands half of its partitions to an idle one only while they hold this many rows to cut
_SPLIT_ROWS = 65_536
#: the hand-over to the threads happens at the first depth from this one with several partitions
_HAND_OVER_DEPTH = 0


def cut(enc: _Encoded, X: np.ndarray, perm: np.ndarray, kmin: int, accept: Accept, record_class: np.ndarray,
        *, relaxed: bool = False, threads: int = 1) -> int:
    """Mondrian's top-down loop (spec §5.4), shared by :func:`mondrian` and the 1:M baseline
    (:mod:`~anonkit.algorithms.partition.kl_diversity`): every partition of the rows ``perm`` (of the
    encoded columns ``X``, whose first ``enc.d`` rows are the QIs; further rows ride along) is cut on
    its widest normalized QI (the next widest when a cut fails) into children of at least ``kmin``
    rows that ``accept`` allows, until no cut is allowed; the final partitions' ids go to
    ``record_class[perm rows]``, numbered by depth, then (at one depth) partitions too small to cut
    before those without an allowable cut, then by position. Returns the number of final partitions.

    ``threads`` > 1 (and at least :data:`PARALLEL_ROWS` rows): from the first depth with several
    partitions, the rest of the loop runs on a pool of ``threads`` threads. The partitions go to the
    threads in ``threads`` groups of consecutive partitions with about equal rows (those too small
    to cut count for nothing); at each depth, a thread whose group still holds :data:`_SPLIT_ROWS`
    rows to cut hands the second half of it to a thread that has run out of work. Partitions are
    independent once cut, and a group owns a range of the rows (of ``X``, its work copy, ``perm``,
    the labels) that no other touches, so the groups make exactly the cuts of the single loop; the
    kernels release the GIL (``nogil``). Final partitions are numbered after every group is done, in
    the order above, so ``record_class`` is the same for any ``threads`` and any timing. ``accept``
    is then called from several threads at once and must be thread-safe (no shared scratch
    memory). An interrupt (:func:`~anonkit.interrupt.request`) stops every thread at its next depth;
    the calling thread, waiting, notices it within 0.1 s.
    """
    n = len(perm)
    loop = _Loop(enc, kmin, accept, relaxed, n)
    perm = perm.astype(np.int64)
    bufs = (X, np.empty_like(X), perm, np.empty_like(perm))
    K = loop.K
    n_final = 0

    def emit(depth: int, phase: int, perm: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> None:
        nonlocal n_final
        K["assign"](perm, starts, ends, record_class, n_final)
        n_final += len(starts)

    # the root: the whole table as the one child of itself
    one = np.ones(1, dtype=np.int64)
    starts, ends, A, B = loop.split(bufs, np.zeros(1, dtype=np.int64), one * n, one)
    bufs = _swap(bufs)
    parallel = threads > 1 and n >= PARALLEL_ROWS
    depth = 0
    while len(starts):
        checkpoint()
        if parallel and depth >= _HAND_OVER_DEPTH:
            bounds = _groups(starts, ends, threads, kmin)
            if bounds is not None:
                return _parallel(loop, (bufs, starts, ends, A, B), depth, bounds, threads, record_class, n_final)
        bufs, starts, ends, A, B = loop.depth(bufs, starts, ends, A, B, depth, emit)
        depth += 1
    return n_final


def _swap(bufs: tuple) -> tuple:
    X, Xn, perm, permn = bufs
    return Xn, X, permn, perm


class _Loop:
    """One run of Mondrian's loop over some partitions: the kernels' scratch memory (its own) and
    the per-row arrays ``lab``/``dest`` (shared: every run writes only the rows of its partitions)."""

    def __init__(self, enc: _Encoded, kmin: int, accept: Accept, relaxed: bool, n: int,
                 shared: _Loop | None = None) -> None:
        self.K = _kernels()
        self.enc, self.kmin, self.accept, self.relaxed = enc, kmin, accept, relaxed
        self.lab = np.zeros(n, dtype=np.int32) if shared is None else shared.lab
        self.dest = np.empty(n, dtype=np.int64) if shared is None else shared.dest
        size = max(65536, enc.max_nodes + 1)
        self.cnt = np.zeros(size, dtype=np.int64)
        self.slot = np.full(size, -1, dtype=np.int64)
        self.present = np.zeros(size, dtype=np.int64)
        self.geometry = (enc.kinds, enc.maps, enc.offsets, enc.leaves)

    def fork(self) -> _Loop:
        """A run for other partitions of the same rows: own scratch, shared per-row arrays."""
        return _Loop(self.enc, self.kmin, self.accept, self.relaxed, 0, shared=self)

    def split(self, bufs: tuple, starts: np.ndarray, ends: np.ndarray, nchild: np.ndarray) -> tuple:
        """Move the partitions' records into their children (labelled in ``lab``) in the other
        buffers; the children's bounds and state."""
        X, Xn, perm, permn = bufs
        d = self.enc.d
        coff = _offsets(nchild)
        total = int(coff[-1])
        cstart, cend = np.empty(total, dtype=np.int64), np.empty(total, dtype=np.int64)
        cA, cB = np.empty((total, d), dtype=np.int64), np.empty((total, d), dtype=np.int64)
        self.K["apply"](X, Xn, perm, permn, starts, ends, nchild, coff, *self.geometry, self.lab, cstart, cend, cA, cB,
                        self.cnt, self.dest)
        return cstart, cend, cA, cB

    def depth(self, bufs: tuple, starts: np.ndarray, ends: np.ndarray, A: np.ndarray, B: np.ndarray, depth: int,
              emit: Callable) -> tuple:
        """One depth: every partition is cut or final (``emit(depth, phase, perm, starts, ends)``,
        phase 0 for partitions too small to cut, 1 for those without an allowable cut); the
        buffers, bounds and state of the children."""
        K, enc, kmin, X, perm = self.K, self.enc, self.kmin, bufs[0], bufs[2]
        sizes = ends - starts
        small = sizes < 2 * kmin  # no cut can leave k records on both sides
        if small.any():
            fin = np.flatnonzero(small)
            emit(depth, 0, perm, starts[fin], ends[fin])
            big = np.flatnonzero(~small)
            starts, ends, A, B, sizes = starts[big], ends[big], A[big], B[big], sizes[big]
        # try the QIs widest first (argmax: the first QI among equals); a failed QI's width → −1
        W = enc.widths(A, B)
        nkids = np.zeros(len(starts), dtype=np.int64)
        pend = np.arange(len(starts))
        for _ in range(enc.d):
            cols = np.argmax(W[pend], axis=1)
            pend, cols = pend[W[pend, cols] > 0], cols[W[pend, cols] > 0]
            if not len(pend):
                break
            ps, pe, pA, pB = starts[pend], ends[pend], A[pend], B[pend]
            coff = _offsets(enc.max_children(cols, pA, sizes[pend]))
            csize = np.zeros(int(coff[-1]), dtype=np.int64)
            nchild, cmin = np.zeros(len(pend), dtype=np.int64), np.zeros(len(pend), dtype=np.int64)
            K["propose"](X, ps, pe, cols, *self.geometry, pA, pB, self.relaxed, coff, self.lab, csize, nchild, cmin,
                         self.cnt, self.slot, self.present)
            ok = (nchild >= 2) & (cmin >= kmin)
            sel = np.flatnonzero(ok)
            if len(sel):
                ok[sel] = self.accept(X, ps[sel], pe[sel], coff[sel], nchild[sel], csize, self.lab)
            nkids[pend[ok]] = nchild[ok]
            W[pend[~ok], cols[~ok]] = -1.0
            pend = pend[~ok]
        fin = np.flatnonzero(nkids == 0)
        emit(depth, 1, perm, starts[fin], ends[fin])
        go = np.flatnonzero(nkids > 0)
        if not len(go):
            return bufs, starts[go], ends[go], A[go], B[go]
        starts, ends, A, B = self.split(bufs, starts[go], ends[go], nkids[go])
        return _swap(bufs), starts, ends, A, B


def _groups(starts: np.ndarray, ends: np.ndarray, groups: int, kmin: int, min_rows: int = 0) -> np.ndarray | None:
    """Boundaries (into ``starts``; first 0, last ``len(starts)``) of at most ``groups`` runs of
    consecutive partitions with about equal rows to cut (partitions too small to cut count for
    nothing: they are final at once), every run with some; ``None`` unless there are two runs and
    ``min_rows`` rows to cut in all."""
    if len(starts) < 2:
        return None
    sizes = ends - starts
    before = np.concatenate([[0], np.cumsum(np.where(sizes < 2 * kmin, 0, sizes))])  # rows to cut before each
    total = int(before[-1])
    if total == 0 or total < min_rows:
        return None
    # each share's boundary before or after the partition across it, whichever is nearer
    share = total * np.arange(1, groups) / groups
    i = np.searchsorted(before[1:], share, side="left")
    at = np.where(share - before[i] < before[i + 1] - share, i, i + 1)
    # no run without rows to cut: boundaries strictly inside, one per distinct rows-before
    at = at[(before[at] > 0) & (before[at] < total)]
    at = at[np.unique(before[at], return_index=True)[1]]
    return np.concatenate([[0], at, [len(starts)]]) if len(at) else None


class _Pool:
    """The threads of :func:`_parallel`: which tasks are under way, and the first failure."""

    def __init__(self, threads: int) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.threads = threads
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="mondrian")
        self.lock = threading.Lock()
        self.futures: list = []
        self.busy = 0  # tasks submitted and not finished
        self.stop = threading.Event()  # a task failed, or the caller gave up: every task returns

    def submit(self, fn: Callable, *calls: tuple) -> None:
        """Run ``fn(*args)`` for every ``args`` of ``calls``."""
        with self.lock:
            self.busy += len(calls)
            self.futures.extend(self.executor.submit(self._task, fn, *args) for args in calls)

    def _task(self, fn: Callable, *args):
        try:
            return fn(*args)
        except BaseException:
            self.stop.set()
            raise
        finally:
            with self.lock:
                self.busy -= 1

    def idle(self) -> bool:
        """Whether a thread has (or is about to have) nothing to do."""
        return self.busy < self.threads

    def results(self) -> list:
        """Every task's result once all are done (tasks may add tasks), checking for an interrupt every
        0.1 s; a task's failure is raised (the other tasks stop at their next depth)."""
        from concurrent.futures import wait

        try:
            while True:
                with self.lock:
                    futures, busy = list(self.futures), self.busy
                for f in futures:
                    if f.done() and f.exception() is not None:
                        raise f.exception()
                if not busy:
                    break
                wait(futures, timeout=0.1, return_when="FIRST_EXCEPTION")
                checkpoint()
        except BaseException:
            self.stop.set()
            raise
        return [f.result() for f in futures]  # (a task's future is done just after it counts as finished)

    def close(self) -> None:
        self.stop.set()
        self.executor.shutdown(wait=False, cancel_futures=True)


def _parallel(loop: _Loop, state: tuple, depth: int, bounds: np.ndarray, threads: int, record_class: np.ndarray,
              n_final: int) -> int:
    """The rest of :func:`cut` from ``depth`` on, the partitions in the groups ``bounds`` on
    ``threads`` threads (see :func:`cut`); the final partitions then numbered as the single loop
    numbers them, by depth, phase and position."""
    pool = _Pool(threads)

    def run(bufs: tuple, s: np.ndarray, e: np.ndarray, A: np.ndarray, B: np.ndarray, dep: int) -> list[tuple]:
        sub, out = loop.fork(), []

        def emit(dep: int, phase: int, perm: np.ndarray, fs: np.ndarray, fe: np.ndarray) -> None:
            if len(fs):
                out.append((dep, phase, int(fs[0]), perm, fs, fe))

        while len(s):
            checkpoint()
            if pool.stop.is_set():
                break
            if pool.idle():  # the second half of the partitions to a thread without work
                half = _groups(s, e, 2, loop.kmin, _SPLIT_ROWS)
                if half is not None:
                    h = int(half[1])
                    pool.submit(run, (bufs, s[h:], e[h:], A[h:], B[h:], dep))
                    s, e, A, B = s[:h], e[:h], A[:h], B[:h]
            bufs, s, e, A, B = sub.depth(bufs, s, e, A, B, dep, emit)
            dep += 1
        return out

    def assign(items: list[tuple]) -> None:
        for first, (_, _, _, perm, fs, fe) in items:
            loop.K["assign"](perm, fs, fe, record_class, first)

    bufs, starts, ends, A, B = state
    try:
        runs = zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)
        pool.submit(run, *[(bufs, starts[a:b], ends[a:b], A[a:b], B[a:b], depth) for a, b in runs])
        # groups hold disjoint ranges of rows: (depth, phase, first row) orders the final partitions
        finals = sorted((f for out in pool.results() for f in out), key=lambda f: f[:3])
        counts = np.array([len(f[4]) for f in finals], dtype=np.int64)
        firsts = n_final + np.concatenate([[0], np.cumsum(counts)])
        items = list(zip(firsts[:-1].tolist(), finals, strict=True))
        rows = np.cumsum([int((f[5] - f[4]).sum()) for f in finals])
        half = int(np.searchsorted(rows, rows[-1] / 2)) + 1 if len(rows) else 0
        pool.submit(assign, (items[:half],), (items[half:],))
        pool.results()
        return int(firsts[-1])
    finally:
        pool.close()


def _cores() -> int:
    """Threads for Mondrian's loop: the cores this process may use, at most 2."""
    return min(2, usable_cores())


def _offsets(counts: np.ndarray) -> np.ndarray:
    """``[0, c0, c0 + c1, …]``: where each item's block starts (and the total last)."""
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def _children_pass(K, X, d, hist_attrs, table, models, starts, ends, coff, nchild, csize, lab) -> np.ndarray:
    """Whether all children of every proposed cut satisfy every model."""
    c2 = _offsets(nchild)
    idx = np.repeat(coff, nchild) + (np.arange(int(c2[-1])) - np.repeat(c2[:-1], nchild))
    sizes = csize[idx].astype(np.float64)
    hist = {}
    for a, name in enumerate(hist_attrs):
        h = np.zeros((len(sizes), table.domains[name].size))
        K["hist"](X, d + a, starts, ends, c2[:-1], lab, h)
        hist[name] = h
    stats = ClassStats(sizes, hist, table.domains)
    good = np.ones(len(sizes), dtype=bool)
    for m in models:
        good &= m.passes(stats)
    return np.logical_and.reduceat(good, c2[:-1])
