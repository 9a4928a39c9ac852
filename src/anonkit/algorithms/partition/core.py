"""Mondrian's core (spec §5.4): the rules of a cut and the top-down loop, shared by every Mondrian.

:func:`~anonkit.algorithms.partition.mondrian.mondrian` (local, strict or relaxed), the 1:M baseline
(:mod:`~anonkit.algorithms.partition.kl_diversity`) and Mondrian on Spark
(:mod:`anonkit.engines.spark_mondrian`, strict) make their cuts through these public functions, so the
three cannot drift apart:

* **who takes part** — :func:`min_class_size` (``k``: the largest class size the models imply),
  :func:`protected_attributes` (the sensitive attributes whose histograms the models judge) and
  :func:`table_passes` (the whole table must satisfy the models, else nothing is released:
  :data:`WHOLE_TABLE_FAILS`);
* **the cut choice** — a partition of fewer than ``2k`` records is final (:func:`uncuttable`); the
  others try their QIs widest normalized first, the first QI among equals, and take the first
  *allowable* cut (:func:`choose_cuts`): at least two non-empty children of ``k`` records each
  (:func:`allowable`) that all satisfy every model (:func:`cuts_pass`; from the rows:
  :func:`model_accept`);
* **the cut itself** — from the rows by the compiled kernels inside :func:`cut`, or from a
  partition's histogram of codes by :func:`histogram_cut` (strict mode: numeric QIs at the
  ``⌊|P|/2⌋``-th smallest value, categorical ones one level below the lowest common ancestor): the
  same children either way;
* **the partition stepping** — :func:`cut`, breadth first over the code matrix of an
  :class:`~anonkit.algorithms.partition.encoding.Encoding`, on one thread or two.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

from anonkit.algorithms.common import checkpoint
from anonkit.algorithms.partition._cut_kernels import kernels
from anonkit.algorithms.partition.encoding import Encoding
from anonkit.models import Criterion
from anonkit.stats import ClassStats

#: the message of a release when the whole table fails the models (no cut is ever tried)
WHOLE_TABLE_FAILS = "the models cannot be met: the whole table fails them, so nothing can be released"

#: ``accept(X, starts, ends, child offsets, children, child sizes, child labels) -> ok``: whether each
#: proposed cut (of the partitions ``starts[i]:ends[i]`` of the permuted rows into ``nchild[i]``
#: children, row ``r`` in child ``lab[r]``) is allowed, beyond every child holding ``kmin`` rows
Accept = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
#: ``extra(X, starts, ends, child offsets, children, child labels) -> {need: one value per child}``: class
#: statistics of the proposed children beyond sizes and histograms (the population inside each child's
#: published region, :mod:`anonkit.algorithms.partition.regions`)
Extra = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], dict[str, np.ndarray]]

#: :func:`~anonkit.algorithms.partition.mondrian.mondrian` runs its loop on two threads
#: (``cut(..., threads=2)``) from this many active records up; below it the work is too small to
#: repay starting threads (measured in ``benchmarks/bench_mondrian.py --threads``)
PARALLEL_ROWS = 200_000
#: a thread hands half of its partitions to an idle one only while they hold this many rows to cut
_SPLIT_ROWS = 65_536
#: the hand-over to the threads happens at the first depth from this one with several partitions
_HAND_OVER_DEPTH = 0


# ---------------------------------------------------------------------------------------- the rules
def min_class_size(models: Sequence[Criterion]) -> int:
    """``k``: the largest class size the models imply (at least 1); no child of a cut is smaller."""
    return max([int(m.minimum_class_size()) for m in models] + [1])


def protected_attributes(models: Sequence[Criterion]) -> list[str]:
    """The sensitive attributes the models judge by their histograms, sorted: the rows of the code
    matrix below the QIs, and the histograms every judged class carries."""
    return sorted({m.attribute for m in models if m.attribute is not None})


def classes_pass(stats: ClassStats, models: Sequence[Criterion]) -> np.ndarray:
    """Whether every class of ``stats`` satisfies every model."""
    good = np.ones(len(stats.sizes), dtype=bool)
    for m in models:
        good &= m.passes(stats)
    return good


def table_passes(n: int, hist: dict[str, np.ndarray], domains: dict, models: Sequence[Criterion], kmin: int,
                 extra: dict[str, np.ndarray] | None = None) -> bool:
    """Whether the whole table — ``n`` records, ``hist[a]`` (1 × domain) the histogram of every
    protected attribute, ``extra`` further statistics of it — may be released at all: at least
    ``kmin`` records, satisfying every model. When it may not, Mondrian tries no cut and releases
    nothing (:data:`WHOLE_TABLE_FAILS`)."""
    root = ClassStats(np.array([float(n)]), hist, domains, extra=dict(extra or {}))
    return not (n < kmin or not all(bool(m.passes(root)[0]) for m in models))


def uncuttable(sizes: np.ndarray, kmin: int) -> np.ndarray:
    """Which partitions are final at once: no cut can leave ``kmin`` records on both sides."""
    return sizes < 2 * kmin


def allowable(nchild: np.ndarray, cmin: np.ndarray, kmin: int) -> np.ndarray:
    """Which proposed cuts pass the size rule: two children or more, the smallest of ``kmin`` records."""
    return (nchild >= 2) & (cmin >= kmin)


def offsets(counts: np.ndarray) -> np.ndarray:
    """``[0, c0, c0 + c1, …]``: where each item's block starts (and the total last)."""
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def cuts_pass(sizes: np.ndarray, hist: dict[str, np.ndarray], domains: dict, models: Sequence[Criterion],
              nchild: np.ndarray, extra: dict[str, np.ndarray] | None = None) -> np.ndarray:
    """Whether all children of every proposed cut satisfy every model: ``sizes``, ``hist`` and
    ``extra`` (one row per child) hold the children of the cuts in order, ``nchild[i]`` of them for
    cut ``i``."""
    good = classes_pass(ClassStats(sizes, hist, domains, extra=dict(extra or {})), models)
    return np.logical_and.reduceat(good, offsets(nchild)[:-1])


def choose_cuts(W: np.ndarray, attempt: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> None:
    """Mondrian's cut choice: every partition (row of ``W``, its normalized widths, −1 for a QI that
    holds one value; changed in place) tries its QIs widest first — the first QI among equals
    (``argmax``) — until a cut is allowed or none is left. ``attempt(partitions, qis)`` proposes the
    cut of every listed partition on its QI, keeps the allowed ones and returns which were; a failed
    QI's width becomes −1, so the next round tries the next widest."""
    pend = np.arange(len(W))
    for _ in range(W.shape[1]):
        cols = np.argmax(W[pend], axis=1)
        pend, cols = pend[W[pend, cols] > 0], cols[W[pend, cols] > 0]
        if not len(pend):
            break
        ok = attempt(pend, cols)
        W[pend[~ok], cols[~ok]] = -1.0
        pend = pend[~ok]


def model_accept(d: int, hist_attrs: list[str], domains: dict, models: Sequence[Criterion],
                 extra: Extra | None = None) -> Accept:
    """The :data:`Accept` of the privacy models for :func:`cut`: every child of a cut satisfies every
    model on its size and the histograms of ``hist_attrs`` (rows ``d``, ``d + 1``… of the code
    matrix), counted by a kernel, and on the statistics ``extra`` gives. Thread-safe: it allocates
    its own memory (and so must ``extra``)."""
    K = kernels()

    def accept(X: np.ndarray, ps: np.ndarray, pe: np.ndarray, coff: np.ndarray, nchild: np.ndarray,
               csize: np.ndarray, lab: np.ndarray) -> np.ndarray:
        if not models:
            return np.ones(len(ps), dtype=bool)
        c2 = offsets(nchild)
        idx = np.repeat(coff, nchild) + (np.arange(int(c2[-1])) - np.repeat(c2[:-1], nchild))
        sizes = csize[idx].astype(np.float64)
        hist = {}
        for a, name in enumerate(hist_attrs):
            h = np.zeros((len(sizes), domains[name].size))
            K["hist"](X, d + a, ps, pe, c2[:-1], lab, h)
            hist[name] = h
        more = None if extra is None else extra(X, ps, pe, c2[:-1], nchild, lab)
        return cuts_pass(sizes, hist, domains, models, nchild, more)

    return accept


def histogram_cut(enc: Encoding, j: int, level: int, codes: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Strict Mondrian's cut of one partition on QI ``j`` from its histogram — its distinct codes of
    row ``j`` (sorted) and their record counts — as the ``propose`` kernel cuts its rows: numeric, the
    records up to the ``⌊|P|/2⌋``-th smallest rank (1-based) go left, the rest right; categorical
    (``level`` the level of the partition's lowest common ancestor), one child per node one level
    below it, in node order. The child of every code, numbered without empty children."""
    if enc.kinds[j] == 0:
        m = int(counts.sum()) // 2
        t = int(np.searchsorted(np.cumsum(counts), m, side="left"))  # the m-th smallest rank (1-based)
        child = (codes > int(codes[t])).astype(np.int64)
    else:
        node = enc.levels(j)[level - 1, codes]
        child = np.searchsorted(np.unique(node), node)  # sorted, as the kernel orders children
    nkids = int(child.max()) + 1
    present = np.bincount(child, weights=counts, minlength=nkids) > 0  # all on the left: one child
    return (np.cumsum(present) - 1)[child]


# ---------------------------------------------------------------------------------------- the loop
def cut(enc: Encoding, X: np.ndarray, perm: np.ndarray, kmin: int, accept: Accept, record_class: np.ndarray,
        *, relaxed: bool = False, threads: int = 1) -> int:
    """Mondrian's top-down loop (spec §5.4), shared by the local Mondrian, the 1:M baseline and Mondrian
    on Spark's bottom levels: every partition of the rows ``perm`` (of the encoded columns ``X``, whose
    first ``enc.d`` rows are the QIs; further rows ride along) is cut
    on its widest normalized QI (the next widest when a cut fails) into children of at least ``kmin``
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

    def __init__(self, enc: Encoding, kmin: int, accept: Accept, relaxed: bool, n: int,
                 shared: _Loop | None = None) -> None:
        self.K = kernels()
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
        coff = offsets(nchild)
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
        small = uncuttable(sizes, kmin)
        if small.any():
            fin = np.flatnonzero(small)
            emit(depth, 0, perm, starts[fin], ends[fin])
            big = np.flatnonzero(~small)
            starts, ends, A, B, sizes = starts[big], ends[big], A[big], B[big], sizes[big]
        # the cut choice; every allowed cut's children in nkids
        nkids = np.zeros(len(starts), dtype=np.int64)

        def attempt(pend: np.ndarray, cols: np.ndarray) -> np.ndarray:
            ps, pe, pA, pB = starts[pend], ends[pend], A[pend], B[pend]
            coff = offsets(enc.max_children(cols, pA, sizes[pend]))
            csize = np.zeros(int(coff[-1]), dtype=np.int64)
            nchild, cmin = np.zeros(len(pend), dtype=np.int64), np.zeros(len(pend), dtype=np.int64)
            K["propose"](X, ps, pe, cols, *self.geometry, pA, pB, self.relaxed, coff, self.lab, csize, nchild, cmin,
                         self.cnt, self.slot, self.present)
            ok = allowable(nchild, cmin, kmin)
            sel = np.flatnonzero(ok)
            if len(sel):
                ok[sel] = self.accept(X, ps[sel], pe[sel], coff[sel], nchild[sel], csize, self.lab)
            nkids[pend[ok]] = nchild[ok]
            return ok

        choose_cuts(enc.widths(A, B), attempt)
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
    before = np.concatenate([[0], np.cumsum(np.where(uncuttable(sizes, kmin), 0, sizes))])  # rows to cut before each
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
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="mondrian-cut")
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
