"""Give back suppressed cells the release does not need: a pass after the heuristic.

sdcMicro's heuristic (and ours, :mod:`._heuristic`) suppresses greedily, so a cell suppressed early
can turn out unnecessary once later cells gave its record other partners. This pass tries every
suppressed cell once — the most important attribute first (the suppression order read backwards),
records in the caller's order — and restores its value when every requirement still holds:

* the record itself, with the value back, still has ``fk ≥ k`` on every requirement's keys;
* every record that matched it before and no longer does (it holds another value there) keeps
  ``fk − 1 ≥ k``.

Restoring a value only removes matches (a ``*`` matches anything, a value only itself), so these two
checks are exact and the pass never breaks what the heuristic reached; it only lowers the cell count.
A requirement is ``(columns, k)``: the key combinations (sdcMicro's ``combs``) and all keys.

The work is on the distinct patterns with their record counts, not on the records (records of one
pattern have the same ``fk`` on every requirement): a try scans the live patterns once per requirement
(:func:`_try_py`, compiled by numba), and a restore moves one record from its pattern to the pattern
with the value back, lowering the ``fk`` of the patterns it stops matching by one — an update, never a
recount. Within the pass over one column only that column's cells change, so a (pattern, value) that
fails once fails for the rest of the pass (its lost partners only grow, every ``fk`` only falls) and
is not tried again. The cells restored are those of the record-by-record pass, in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonkit import interrupt
from anonkit._kernels import compiled, first_rows, group_columns
from anonkit.algorithms.suppress._heuristic import fk_by_masks


def _try_py(pat: np.ndarray, cnt: np.ndarray, fk: np.ndarray, n_pat: int, p: int, c: int, v: int,
            inreq: np.ndarray, ks: np.ndarray, touching: np.ndarray, gone: np.ndarray) -> bool:
    """Whether a record of pattern ``p`` may take ``v`` back in column ``c`` (module docstring): for
    every requirement in ``touching``, the live patterns matching ``p`` on its other columns and holding
    another known value in ``c`` are the ones lost. When it may, their ``fk`` falls by one and
    ``gone[t]`` holds the records lost on requirement ``touching[t]``."""
    d = pat.shape[1]
    for phase in range(2):  # 0: check every requirement, 1: apply
        for t in range(touching.shape[0]):
            i = touching[t]
            lost = 0.0
            low = np.inf
            for q in range(n_pat):
                w = pat[q, c]
                if cnt[q] <= 0 or w < 0 or w == v:
                    continue
                ok = True
                for j in range(d):
                    a = pat[p, j]
                    b = pat[q, j]
                    if j != c and inreq[i, j] and a >= 0 and b >= 0 and a != b:
                        ok = False
                        break
                if ok:
                    if phase == 1:
                        fk[i, q] -= 1.0
                    else:
                        lost += cnt[q]
                        low = min(low, fk[i, q])
            if phase == 0:
                if fk[i, p] - lost < ks[i] or low - 1.0 < ks[i]:
                    return False
                gone[t] = lost
    return True


class _Patterns:
    """The distinct patterns (room for one new pattern per cell), their live record counts and their
    ``fk`` on every requirement; ``pid`` the pattern of every record."""

    def __init__(self, patterns: np.ndarray, reqs: list[tuple[np.ndarray, float]], room: int) -> None:
        d = patterns.shape[1]
        columns = [patterns[:, j] + 1 for j in range(d)]  # -1 (a *) becomes 0
        pid, u = group_columns(columns, [int(col.max()) + 1 for col in columns])
        self.pid = pid.astype(np.int64)
        unique = patterns[first_rows(self.pid, u)]
        counts = np.bincount(self.pid, minlength=u)
        self.pat = np.zeros((u + room, d), dtype=np.int64)
        self.pat[:u] = unique
        self.cnt = np.zeros(u + room, dtype=np.int64)
        self.cnt[:u] = counts
        self.fk = np.zeros((len(reqs), u + room), dtype=np.float64)
        for i, (cols, _k) in enumerate(reqs):
            self.fk[i, :u] = fk_by_masks(unique[:, cols], counts.astype(np.float64))
        self.n = u
        self.index = {unique[j].tobytes(): j for j in range(u)}

    def move(self, r: int, c: int, v: int, touching: np.ndarray, gone: np.ndarray) -> None:
        """Record ``r`` takes ``v`` back in column ``c``: its new pattern's ``fk`` is its old one less
        the records it lost (the same on the requirements not holding ``c``)."""
        p = int(self.pid[r])
        row = self.pat[p].copy()
        row[c] = v
        q = self.index.setdefault(row.tobytes(), self.n)
        if q == self.n:
            self.pat[q] = row
            self.n += 1
        self.fk[:, q] = self.fk[:, p]
        self.fk[touching, q] -= gone
        self.cnt[p] -= 1
        self.cnt[q] += 1
        self.pid[r] = q


def restore_cells(patterns: np.ndarray, codes: np.ndarray, requirements: Sequence[tuple[Sequence[int], int]],
                  order: np.ndarray, rows: np.ndarray) -> int:
    """Restore (in place) the suppressed cells of ``patterns`` (``-1``; the records' values in
    ``codes``, ``-1`` for a missing cell, which is never restored) that no requirement needs; returns
    the cells restored. ``order`` is the suppression order, ``rows`` the records in the order tried."""
    n, d = patterns.shape
    if n == 0:
        return 0
    reqs = [(np.asarray(cols, dtype=np.int64), float(k)) for cols, k in requirements if k > 1]
    inreq = np.zeros((len(reqs), d), dtype=np.bool_)
    for i, (cols, _k) in enumerate(reqs):
        inreq[i, cols] = True
    ks = np.array([k for _cols, k in reqs], dtype=np.float64)
    rows = np.asarray(rows, dtype=np.int64)
    room = int(((patterns[rows] < 0) & (codes[rows] >= 0)).sum())
    if room == 0:
        return 0
    state = _Patterns(patterns, reqs, room)
    try_ = compiled(_try_py)
    restored = 0
    for c in order[::-1].tolist():
        interrupt.check()
        touching = np.array([i for i in range(len(reqs)) if inreq[i, c]], dtype=np.int64)
        gone = np.zeros(len(touching), dtype=np.float64)
        tried = rows[(patterns[rows, c] < 0) & (codes[rows, c] >= 0)]  # only record r's cell changes on r's turn
        failed: set[tuple[int, int]] = set()
        for r in tried.tolist():
            v, p = int(codes[r, c]), int(state.pid[r])
            if (p, v) in failed:
                continue
            if try_(state.pat, state.cnt, state.fk, state.n, p, c, v, inreq, ks, touching, gone):
                state.move(r, c, v, touching, gone)
                patterns[r, c] = v
                restored += 1
            else:
                failed.add((p, v))
    return restored
