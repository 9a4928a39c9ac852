"""sdcMicro's local-suppression heuristic, on distinct patterns with counts (no n × n work).

A *pattern* is a row of quasi-identifier codes where ``-1`` marks a suppressed cell (a wildcard).
Two patterns are *compatible* when they agree on every column both leave unsuppressed; a record's
``fk`` is the number of records whose pattern is compatible with its own (its own included): what
sdcMicro's ``freqCalc`` counts with ``alpha = 1`` and what the release promises (``fk ≥ k``).

The heuristic (sdcMicro's ``suppSubset`` with ``cpp_calcSuppInds``), pass by pass until every record
has ``fk ≥ k`` (and, for distinct l-diversity, at least ``l`` distinct sensitive values among its
compatible records):

1. the records failing are taken in order of risk: smallest ``fk`` first (sdcMicro orders by its
   individual risk, a decreasing function of ``fk`` when there are no survey weights), ties in an
   order drawn from the run's seed (sdcMicro takes them in its sorted data's order);
2. for each such record, the *nearest* patterns are those at the smallest positive distance (the
   number of columns both leave unsuppressed and on which they differ);
3. the record's cell is suppressed in the first column, in suppression order (the ``importance``
   list read backwards: sdcMicro suppresses the key variable of the highest importance number
   first), in which some nearest pattern holds a different, unsuppressed value.

Two departures from sdcMicro, both never suppressing more: a record whose ``fk`` already reaches
``k`` when its turn comes (earlier suppressions of the same pass gave it partners) is left alone
(sdcMicro suppresses every record found failing at the start of the pass); and ``fk`` is counted on
the whole table, not on sdcMicro's reduced copy that keeps only ``k`` records of every larger group
(which undercounts ``fk`` of records compatible with those groups). Records of one pattern are
interchangeable: the one that moves is the first of its pattern (a linked list per pattern, whose
initial order the caller draws from the seed), so the result is deterministic for a seed.

The kernels are plain Python compiled by numba on first use (:func:`anonkit._kernels.compiled`).
"""

from __future__ import annotations

import numpy as np

from anonkit import interrupt
from anonkit._kernels import compiled, group_columns


def _fk_all_py(pat: np.ndarray, cnt: np.ndarray, sens: np.ndarray, n_pat: int, n_sens: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """``fk`` and the distinct sensitive values among compatible records, of every pattern."""
    d = pat.shape[1]
    fk = np.zeros(n_pat, dtype=np.float64)
    distinct = np.zeros(n_pat, dtype=np.int64)
    stamp = np.full(max(n_sens, 1), -1, dtype=np.int64)
    for p in range(n_pat):
        if cnt[p] <= 0:
            continue
        for q in range(n_pat):
            if cnt[q] <= 0:
                continue
            ok = True
            for c in range(d):
                a = pat[p, c]
                b = pat[q, c]
                if a >= 0 and b >= 0 and a != b:
                    ok = False
                    break
            if ok:
                fk[p] += cnt[q]
                s = sens[q]
                if s >= 0 and stamp[s] != p:
                    stamp[s] = p
                    distinct[p] += 1
    return fk, distinct


def fk_by_masks(pat: np.ndarray, cnt: np.ndarray) -> np.ndarray:
    """``fk`` of every pattern, as :func:`_fk_all_py` counts it, in numpy: patterns grouped by their
    set of suppressed columns, and for each pair of such sets the patterns joined on the columns both
    keep (a join per pair of sets, not a comparison per pair of patterns)."""
    n, d = pat.shape
    fk = np.zeros(n, dtype=np.float64)
    if n == 0:
        return fk
    star = pat < 0
    bits, inverse = np.unique(star, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    members = [np.flatnonzero(inverse == i) for i in range(len(bits))]
    sizes = [int(pat[:, j].max()) + 1 for j in range(d)]
    for ia, a in enumerate(members):
        for ib, b in enumerate(members):
            common = np.flatnonzero(~bits[ia] & ~bits[ib])
            if common.size == 0:
                fk[a] += cnt[b].sum()
                continue
            rows = np.concatenate([a, b])
            ids, m = group_columns([pat[rows, j] for j in common], [sizes[j] for j in common])
            sums = np.bincount(ids[len(a):], weights=cnt[b], minlength=m)
            fk[a] += sums[ids[:len(a)]]
    return fk


def _suppress_one_py(p: int, pat: np.ndarray, cnt: np.ndarray, sens: np.ndarray, n_pat: int, order: np.ndarray,
                     k: float, l_min: int, dist: np.ndarray, stamp: np.ndarray) -> int:
    """Suppress one cell of a record of pattern ``p`` when it still fails: returns the column
    suppressed, ``-1`` when the record already passes, ``-2`` when no column can be chosen."""
    d = pat.shape[1]
    fk = 0.0
    distinct = 0
    min_dist = d
    for q in range(n_pat):
        dist[q] = -1
        if cnt[q] <= 0:
            continue
        m = 0
        for c in range(d):
            a = pat[p, c]
            b = pat[q, c]
            if a >= 0 and b >= 0 and a != b:
                m += 1
        dist[q] = m
        if m == 0:
            fk += cnt[q]
            s = sens[q]
            if s >= 0 and stamp[s] != p:
                stamp[s] = p
                distinct += 1
        elif m < min_dist:
            min_dist = m
    for s in range(stamp.shape[0]):
        stamp[s] = -1
    if fk >= k and distinct >= l_min:
        return -1
    for i in range(order.shape[0]):
        c = order[i]
        a = pat[p, c]
        if a < 0:
            continue
        for q in range(n_pat):
            if dist[q] == min_dist and pat[q, c] >= 0 and pat[q, c] != a:
                return c
    return -2


def _pass_py(pat: np.ndarray, cnt: np.ndarray, sens: np.ndarray, n_pat: int, order: np.ndarray, k: float,
             l_min: int, failing: np.ndarray, head: np.ndarray, nxt: np.ndarray, cells: np.ndarray,
             n_sens: int) -> tuple[int, int]:
    """One pass over the ``failing`` patterns (in order): every record of each is suppressed one
    cell (unless it passes by then) and moved to its new pattern (appended when new). Returns the new
    number of patterns and the cells suppressed (``-1`` for cells when no column could be chosen)."""
    d = pat.shape[1]
    dist = np.empty(pat.shape[0], dtype=np.int64)
    stamp = np.full(max(n_sens, 1), -1, dtype=np.int64)
    done = 0
    for i in range(failing.shape[0]):
        p = failing[i]
        while cnt[p] > 0:
            c = _suppress_one(p, pat, cnt, sens, n_pat, order, k, l_min, dist, stamp)
            if c == -1:
                break
            if c == -2:
                return n_pat, -1
            target = -1
            for q in range(n_pat):
                if sens[q] != sens[p]:
                    continue
                same = True
                for j in range(d):
                    want = -1 if j == c else pat[p, j]
                    if pat[q, j] != want:
                        same = False
                        break
                if same:
                    target = q
                    break
            if target < 0:
                target = n_pat
                for j in range(d):
                    pat[target, j] = pat[p, j]
                pat[target, c] = -1
                sens[target] = sens[p]
                cnt[target] = 0
                head[target] = -1
                n_pat += 1
            r = head[p]
            head[p] = nxt[r]
            nxt[r] = head[target]
            head[target] = r
            cnt[p] -= 1
            cnt[target] += 1
            cells[c] += 1
            done += 1
    return n_pat, done


_suppress_one = _suppress_one_py  # rebound to the compiled kernel by _kernels() before the pass compiles


def _kernels():  # type: ignore[no-untyped-def]
    global _suppress_one
    _suppress_one = compiled(_suppress_one_py)
    return compiled(_fk_all_py), compiled(_pass_py)


def suppress_heuristic(tuples: np.ndarray, counts: np.ndarray, sens: np.ndarray, n_sens: int, order: np.ndarray,
                       k: int, l_min: int = 0, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """sdcMicro's heuristic (module docstring) on distinct rows ``tuples`` (codes ≥ 0) with record
    ``counts`` and a sensitive code per row (``-1``: none); ``order`` the columns in suppression order;
    ``seed`` orders the failing patterns of equal ``fk``.

    Returns the pattern of every record, grouped by input row (``(sum(counts) × d)``: the records of
    row ``i`` are ``counts[i]`` consecutive rows, in row order), and the cells suppressed per column.
    """
    fk_all, one_pass = _kernels()
    n_rows, d = tuples.shape
    n = int(counts.sum())
    cap = n_rows + n * max(d, 1) + 1
    pat = np.full((cap, d), -1, dtype=np.int64)
    pat[:n_rows] = tuples
    cnt = np.zeros(cap, dtype=np.float64)
    cnt[:n_rows] = counts
    s = np.full(cap, -1, dtype=np.int64)
    s[:n_rows] = sens
    # records of row i: a linked list starting at head[i]
    head = np.full(cap, -1, dtype=np.int64)
    nxt = np.full(n, -1, dtype=np.int64)
    start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    for i in range(n_rows):
        rec = np.arange(start[i], start[i + 1])
        if rec.size:
            head[i] = rec[0]
            nxt[rec[:-1]] = rec[1:]
    cells = np.zeros(d, dtype=np.int64)
    n_pat = n_rows
    rng = np.random.default_rng(seed)
    while True:
        interrupt.check()
        live = cnt[:n_pat] > 0
        if l_min:
            fk, distinct = fk_all(pat, cnt, s, n_pat, n_sens)
        else:  # k alone: the joins per pair of suppressed-column sets (no pattern × pattern loop)
            fk, distinct = np.zeros(n_pat), np.zeros(n_pat, dtype=np.int64)
            fk[live] = fk_by_masks(pat[:n_pat][live], cnt[:n_pat][live])
        bad = np.flatnonzero(live & ((fk < k) | (distinct < l_min)))
        if bad.size == 0:
            break
        bad = rng.permutation(bad)
        failing = bad[np.argsort(fk[bad], kind="stable")].astype(np.int64)
        n_pat, done = one_pass(pat, cnt, s, n_pat, order.astype(np.int64), float(k), int(l_min), failing, head,
                               nxt, cells, n_sens)
        if done <= 0:  # nothing left to suppress: the caller proved feasibility first, so never here
            raise RuntimeError("local suppression made no progress")
    owner = np.empty(n, dtype=np.int64)
    for p in np.flatnonzero(cnt[:n_pat] > 0):
        r = head[p]
        while r >= 0:
            owner[r] = p
            r = nxt[r]
    return pat[owner], cells
