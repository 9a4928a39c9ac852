"""MDAV with exactly one numeric quasi-identifier (the common MDAV-generic case, e.g. Adult's age):
rounds cost O(categorical combinations), not O(distinct tuples).

The distinct tuples are sorted by their categorical values (a *combination*) and then by the numeric
value. Every distance MDAV takes is the numeric term ``(z − ·)²`` followed by the categorical terms,
added in that order, so within one combination it is a non-decreasing function of ``|z − ·|`` (a
rounded subtraction, square and sum of non-negative terms never decrease): the tuple farthest from
anything is at one end of its combination, and a combination's distance with a zero numeric term is
a lower bound for all its tuples. So a round evaluates the two ends of every combination (the
farthest tuple), and for the nearest records only the combinations whose lower bound is within the
``k − 1``-th nearest record distance; combinations that reach the maximum are evaluated whole, so
ties still go to the lowest record index. A missing numeric value is a combination of its own. The
groups are exactly those of :func:`anonkit.algorithms.cluster._mdav_tuples.mdav_groups_tuples`
(tests/test_mdav_fast.py holds all three paths equal).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonkit.algorithms.cluster._mdav_tuples import Tuples, missing_one, nearest_of


class _Combos:
    """The distinct tuples in (combination, numeric value) order, with their records."""

    def __init__(self, space: Any) -> None:
        t = Tuples(space)
        z = t.Z[0]
        keys = np.concatenate([np.stack(t.C) if t.C else np.zeros((0, len(z)), dtype=np.intp),
                               np.isnan(z)[None].astype(np.intp)]).T
        _, combo = np.unique(keys, axis=0, return_inverse=True)
        combo = combo.reshape(-1)
        perm = np.lexsort((z, combo))
        t.permute(perm)
        self.t = t
        self.combo = combo[perm]
        n_combos = int(self.combo.max()) + 1
        self.start = np.searchsorted(self.combo, np.arange(n_combos))
        self.end = np.searchsorted(self.combo, np.arange(n_combos), side="right")
        self.cC = [c[self.start] for c in t.C]  # every combination's categorical values
        self.alive = np.ones(len(z), dtype=bool)
        self.lo, self.hi = self.start.copy(), self.end - 1
        self.records = np.bincount(self.combo, weights=t.count, minlength=n_combos).astype(np.int64)
        self.values = [np.bincount(c, weights=t.count, minlength=space.sizes[i]).astype(np.int64)
                       for i, c in enumerate(t.C)]

    def positions(self, combos: np.ndarray) -> np.ndarray:
        """The remaining tuples of ``combos`` (their segments of the order, live entries only)."""
        start = self.start[combos]
        size = self.end[combos] - start
        idx = np.arange(int(size.sum())) + np.repeat(start - (np.cumsum(size) - size), size)
        return idx[self.alive[idx]]

    def live(self) -> np.ndarray:
        return np.flatnonzero(self.records > 0)

    def remove(self, pos: np.ndarray, extra: np.ndarray) -> np.ndarray:
        """Take ``extra[j]`` records of tuple ``pos[j]``; return the records taken."""
        t = self.t
        members, left = t.take_fixed(pos, extra)
        np.subtract.at(self.records, self.combo[pos], extra)
        for i, c in enumerate(t.C):
            np.subtract.at(self.values[i], c[pos], extra)
        dead = pos[~left]
        if dead.size:
            self.alive[dead] = False
            for c in np.unique(self.combo[dead]).tolist():
                rest = np.flatnonzero(self.alive[self.start[c] : self.end[c]])
                if rest.size:
                    self.lo[c], self.hi[c] = self.start[c] + rest[0], self.start[c] + rest[-1]
        return members


def _dist(space: Any, cb: _Combos, pos: np.ndarray, center: float, cat: list[np.ndarray]) -> np.ndarray:
    """The distance of tuples ``pos``: numeric term to ``center``, then ``cat[i][value]`` per QI, in
    the reference's order."""
    out = np.zeros(len(pos))
    term = (cb.t.Z[0][pos] - center) ** 2
    out += missing_one(term) if space.missing[0] else term
    for i, c in enumerate(cb.t.C):
        out += cat[i].take(c[pos])
    return out


def _farthest(space: Any, cb: _Combos, center: float, cat: list[np.ndarray]) -> int:
    """The remaining tuple farthest (ties: lowest record): the ends of every combination, then the
    whole of the combinations reaching the maximum."""
    combos = cb.live()
    ends = np.concatenate([cb.lo[combos], cb.hi[combos]])
    d = _dist(space, cb, ends, center, cat)
    top = np.unique(cb.combo[ends[d == d.max()]])
    pos = cb.positions(top)
    d = _dist(space, cb, pos, center, cat)
    tied = pos[d == d.max()]
    return int(tied[np.argmin(cb.t.head[tied])])


def _nearest(space: Any, cb: _Combos, r: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Tuple ``r``'s lowest record and the ``k − 1`` other remaining records nearest to it, from the
    combinations within reach (see the module docstring)."""
    t = cb.t
    cat = [space.delta2_row(i, int(c[r])) for i, c in enumerate(t.C)]
    combos = cb.live()
    bound = np.zeros(len(combos))
    for i, cc in enumerate(cb.cC):
        bound += cat[i].take(cc[combos])
    by_bound = combos[np.argsort(bound, kind="stable")]
    enough = int(np.searchsorted(np.cumsum(cb.records[by_bound]), k)) + 1
    first = np.union1d(by_bound[:enough], [cb.combo[r]])
    pos = cb.positions(first)
    d = _dist(space, cb, pos, t.Z[0][r], cat)
    others = t.count[pos] - (pos == r)
    ranked = np.argsort(d, kind="stable")
    cum = np.cumsum(others[ranked])
    reach = d[ranked[min(int(np.searchsorted(cum, k - 1)), len(ranked) - 1)]] if k > 1 else 0.0
    near = np.union1d(first, combos[bound <= reach])
    pos = cb.positions(near)
    d = _dist(space, cb, pos, t.Z[0][r], cat)
    rows, extra = nearest_of(t, pos, d, int(np.flatnonzero(pos == r)[0]), k)
    return pos[rows], extra


def mdav_groups_combos(space: Any, k: int) -> np.ndarray:
    """Group id of every record of ``space`` (one numeric QI): the groups of
    :func:`anonkit.algorithms.cluster.mdav.mdav_groups`, see the module docstring."""
    m = space.Z.shape[1]
    group = np.full(m, -1, dtype=np.int64)
    if m == 0:
        return group
    cb = _Combos(space)
    t = cb.t
    n_groups = 0

    def take(pos: np.ndarray, extra: np.ndarray) -> None:
        nonlocal n_groups
        group[cb.remove(pos, extra)] = n_groups
        n_groups += 1

    def centroid_farthest() -> int:
        cat = [(1.0 - v / t.m) ** 2 for v in cb.values]
        return _farthest(space, cb, t.sums.mean(0), cat)

    while t.m >= 3 * k:
        xr = centroid_farthest()
        take(*_nearest(space, cb, xr, k))
        cat = [space.delta2_row(i, int(c[xr])) for i, c in enumerate(t.C)]
        xs = _farthest(space, cb, float(t.Z[0][xr]), cat)
        take(*_nearest(space, cb, xs, k))
    if t.m >= 2 * k:
        take(*_nearest(space, cb, centroid_farthest(), k))
    if t.m:
        pos = np.flatnonzero(t.count)
        take(pos, t.count[pos].copy())
    return group
