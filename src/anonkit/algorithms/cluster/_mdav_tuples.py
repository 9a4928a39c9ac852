"""MDAV on the distinct quasi-identifier tuples, each with its records (issue 30: no quadratic cost in
the records).

Records holding the same tuple are at the same distance from everything, so MDAV's rounds only need
the distinct tuples and how many records each still has. A tuple keeps its records' positions in
ascending order and gives them up front first: every tie in MDAV goes to the lowest record index, so
whatever MDAV takes from a tuple — the seed (the lowest remaining record of the farthest tuple),
its duplicates, or the lowest indices among several tuples tied at the threshold distance — is a
prefix of that tuple's remaining records. The groups are therefore exactly those of the record-by-
record loop (:func:`anonkit.algorithms.cluster.mdav.mdav_groups`, kept as the reference and held equal
by tests/test_mdav_fast.py), at O(distinct tuples) per round instead of O(records).

The centroid's numeric mean is the correctly rounded sum of the remaining known values divided by
their number (:func:`exact_mean` in the reference, whose :func:`exact_sum` adds the mantissas per exponent as
integers — ``math.fsum``'s bits without a Python float per value; an exact integer sum here), so it does not
depend on the order of summation and both paths compute the same bits.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from anonkit._kernels import tiered

#: every finite float is an integer multiple of 2**-1074 (the smallest subnormal)
_ULP_EXPONENT = 1074


def missing_one(term: np.ndarray) -> np.ndarray:
    """δ² = 1 where a value is missing on either side (spec §0.3), in place."""
    term[np.isnan(term)] = 1.0
    return term


#: biased exponents from which :func:`exact_sum` leaves the sum to ``math.fsum`` (non-finite values, and
#: terms from 2**960 up, where ``fsum``'s own overflow rules apply)
_EXACT_EXPONENT_BELOW = 1023 + 960
_HALF = 26  # a 53-bit mantissa is summed as two halves below 2**27: int64 sums exact up to 2**36 terms


def _bucket_sums_py(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Per biased exponent ``e`` (subnormals at 1) from the smallest present (the third value, ``-1`` when a
    value is non-finite or huge, see :data:`_EXACT_EXPONENT_BELOW`), the exact sums of the signed mantissas'
    high and low halves of ``values`` (``value = mantissa · 2**(e − 1075)``, read from its bits)."""
    high = np.zeros(2048, dtype=np.int64)
    low = np.zeros(2048, dtype=np.int64)
    bits = values.view(np.int64)
    first, last = 2048, 0
    for i in range(bits.shape[0]):
        b = bits[i]
        e = (b >> 52) & 0x7FF
        if e >= _EXACT_EXPONENT_BELOW:
            return high, low, -1
        w = b & ((1 << 52) - 1)
        if e > 0:
            w |= 1 << 52
        else:
            e = 1
        if b < 0:
            w = -w
        high[e] += w >> _HALF
        low[e] += w & ((1 << _HALF) - 1)
        first = min(first, e)
        last = max(last, e)
    return high[first:last + 1], low[first:last + 1], first


def _bucket_sums_np(values: np.ndarray) -> tuple[None, None, float]:
    """The numpy tier of :func:`_bucket_sums_py` (a short run never loads numba): the sum itself, by
    ``math.fsum``."""
    return None, None, math.fsum(values.tolist())


def exact_sum(values: np.ndarray) -> float:
    """The correctly rounded sum of float64 ``values``, what ``math.fsum`` returns: the signed 53-bit
    mantissas summed exactly per exponent (:func:`_bucket_sums_py`, compiled once the run's numpy work has
    paid for loading numba, :func:`anonkit._kernels.tiered`) and the per-exponent sums combined as Python
    integers; ``math.fsum`` until then, and for non-finite or huge values."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    high, low, first = tiered(_bucket_sums_py, _bucket_sums_np, values)
    if high is None:
        return float(first)  # the numpy tier's fsum
    if first < 0 or not len(high):
        return math.fsum(values.tolist())
    total = sum(((h << _HALF) + lo) << e for e, (h, lo) in enumerate(zip(high.tolist(), low.tolist(), strict=True)))
    # total · 2**(first − 1075), correctly rounded (as fsum): a quotient of integers is
    return float(total << (first - 1075)) if first >= 1075 else total / (1 << (1075 - first))


def exact_mean(values: np.ndarray) -> float:
    """The correctly rounded sum of ``values`` divided by their number (NaN when empty)."""
    return exact_sum(values) / len(values) if len(values) else math.nan


def _as_integer(value: float) -> int:
    """``value · 2**1074`` exactly, as an integer."""
    mantissa, exponent = math.frexp(value)
    whole, shift = int(mantissa * (1 << 53)), exponent - 53 + _ULP_EXPONENT
    return whole << shift if shift >= 0 else whole >> -shift  # a subnormal: its low bits are zeros


class _Sums:
    """Exact sums of every numeric QI's known values over the remaining records."""

    def __init__(self, values: list[np.ndarray], counts: np.ndarray) -> None:
        self.scaled = [[None if math.isnan(v) else _as_integer(v) for v in z.tolist()] for z in values]
        self.total = [sum(c * s for c, s in zip(counts.tolist(), col, strict=True) if s is not None)
                      for col in self.scaled]
        self.known = [int(counts[~np.isnan(z)].sum()) for z in values]

    def take(self, tuples: np.ndarray, taken: np.ndarray) -> None:
        """Remove ``taken[j]`` records of tuple ``tuples[j]``."""
        for i, col in enumerate(self.scaled):
            for t, c in zip(tuples.tolist(), taken.tolist(), strict=True):
                if col[t] is not None:
                    self.total[i] -= c * col[t]
                    self.known[i] -= c

    def mean(self, i: int) -> float:
        """The mean of numeric QI ``i`` over the remaining known values: the correctly rounded sum
        divided by their number, as :func:`exact_mean`."""
        if not self.known[i]:
            return math.nan
        return (self.total[i] / (1 << _ULP_EXPONENT)) / self.known[i]


class Tuples:
    """The remaining distinct tuples: values (``Z``, ``C``), ids, records left, lowest record left."""

    def __init__(self, space: Any) -> None:
        m = space.Z.shape[1] if space.Z.shape[0] else space.C.shape[1]
        keys = np.concatenate([space.Z.view(np.int64), space.C.astype(np.int64)]).T
        _, first, inverse, counts = np.unique(keys, axis=0, return_index=True, return_inverse=True,
                                              return_counts=True)
        self.order = np.argsort(inverse.reshape(-1), kind="stable")  # records of every tuple, ascending
        self.offset = np.concatenate([[0], np.cumsum(counts)])[:-1]
        self.taken = np.zeros(len(counts), dtype=np.int64)  # records given up so far, per tuple id
        self.ids = np.arange(len(counts))
        self.count = counts.astype(np.int64)
        self.head = self.order[self.offset]  # lowest remaining record of every tuple
        self.Z = [z[first] for z in space.Z]
        self.C = [c[first] for c in space.C]
        self.sums = _Sums(self.Z, self.count)
        self.m = m

    def permute(self, perm: np.ndarray) -> None:
        """Put the (not yet used) tuples in ``perm``'s order, renumbered ``0 … u − 1``."""
        self.offset, self.taken, self.count, self.head = (a[perm] for a in (self.offset, self.taken, self.count,
                                                                            self.head))
        self.Z = [z[perm] for z in self.Z]
        self.C = [c[perm] for c in self.C]
        self.sums.scaled = [[col[j] for j in perm.tolist()] for col in self.sums.scaled]

    def records(self, rows: np.ndarray, extra: np.ndarray) -> np.ndarray:
        """The next ``extra[j]`` remaining records of tuple ``rows[j]`` (positions in the remaining)."""
        start = self.offset[self.ids[rows]] + self.taken[self.ids[rows]]
        within = np.arange(int(extra.sum())) - np.repeat(np.cumsum(extra) - extra, extra)
        return self.order[np.repeat(start, extra) + within]

    def take_fixed(self, pos: np.ndarray, extra: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Take ``extra[j]`` records of tuple ``pos[j]`` where tuples keep their positions (the index and
        combination paths, which never drop a tuple): the records taken, and which tuples have records left."""
        members = self.records(pos, extra)
        self.taken[pos] += extra
        self.count[pos] -= extra
        self.m -= int(extra.sum())
        self.sums.take(pos, extra)
        left = self.count[pos] > 0
        self.head[pos[left]] = self.order[self.offset[pos[left]] + self.taken[pos[left]]]
        return members, left

    def remove(self, rows: np.ndarray, extra: np.ndarray) -> np.ndarray:
        """Take ``extra[j]`` records from remaining tuple ``rows[j]``; drop emptied tuples and return the
        mask of the remaining tuples kept."""
        members = self.records(rows, extra)
        ids = self.ids[rows]
        self.taken[ids] += extra
        self.count[rows] -= extra
        self.m -= int(extra.sum())
        self.sums.take(ids, extra)
        left = self.count[rows] > 0
        self.head[rows[left]] = self.order[self.offset[ids[left]] + self.taken[ids[left]]]
        keep = self.count > 0
        if not keep.all():
            self.ids, self.count, self.head = self.ids[keep], self.count[keep], self.head[keep]
            self.Z = [z[keep] for z in self.Z]
            self.C = [c[keep] for c in self.C]
        self.last = members
        return keep

    def first_max(self, dist: np.ndarray) -> int:
        """The remaining tuple farthest by ``dist`` (ties: the one holding the lowest record)."""
        tied = np.flatnonzero(dist == dist.max())
        return int(tied[np.argmin(self.head[tied])])


def _centroid_dist(space: Any, tuples: Tuples) -> np.ndarray:
    """Squared distance of every remaining tuple to the centroid of the remaining records."""
    out = np.zeros(len(tuples.ids))
    for i, z in enumerate(tuples.Z):
        term = (z - tuples.sums.mean(i)) ** 2
        out += missing_one(term) if space.missing[i] else term
    for i, c in enumerate(tuples.C):
        share = np.bincount(c, weights=tuples.count, minlength=space.sizes[i]) / tuples.m
        out += ((1.0 - share) ** 2).take(c)
    return out


def _record_dist(space: Any, tuples: Tuples, r: int) -> np.ndarray:
    """Squared distance of every remaining tuple to remaining tuple ``r``."""
    out = np.zeros(len(tuples.ids))
    for i, z in enumerate(tuples.Z):
        term = (z - z[r]) ** 2
        out += missing_one(term) if space.missing[i] else term
    for i, c in enumerate(tuples.C):
        out += space.delta2_row(i, int(c[r])).take(c)
    return out


def nearest_of(tuples: Tuples, rows: np.ndarray, dist: np.ndarray, seed: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The seed's lowest record and the ``k − 1`` other records nearest to it (ties: lowest record
    index), among the remaining tuples ``rows`` (every tuple within the ``k − 1``-th nearest record
    distance must be there) at distances ``dist``; ``seed`` indexes ``rows``. Returns (indices into
    ``rows``, records taken from each)."""
    need = k - 1
    if need == 0:
        return np.array([seed]), np.array([1])
    others = tuples.count[rows].copy()
    others[seed] -= 1
    live = np.flatnonzero(others > 0)
    near = live[np.argpartition(dist[live], need - 1)[:need]] if len(live) > need else live
    near = near[np.argsort(dist[near], kind="stable")]
    thr = dist[near[np.searchsorted(np.cumsum(others[near]), need)]]
    below = np.flatnonzero((dist < thr) & (others > 0))
    tied = np.flatnonzero((dist == thr) & (others > 0))
    rest = need - int(others[below].sum())
    # the lowest `rest` record indices of the tied tuples: at most `rest` from each, after the seed
    skip = (tied == seed).astype(np.int64)
    avail = np.minimum(others[tied], rest)
    ids = tuples.ids[rows[tied]]
    start = tuples.offset[ids] + tuples.taken[ids] + skip
    within = np.arange(int(avail.sum())) - np.repeat(np.cumsum(avail) - avail, avail)
    cand = tuples.order[np.repeat(start, avail) + within]
    owner = np.repeat(np.arange(len(tied)), avail)
    chosen = owner[np.argsort(cand, kind="stable")[:rest]]
    extra = np.zeros(len(rows), dtype=np.int64)
    extra[below] = others[below]
    extra[tied] += np.bincount(chosen, minlength=len(tied))
    extra[seed] += 1
    picked = np.flatnonzero(extra)
    return picked, extra[picked]


def _nearest(tuples: Tuples, dist: np.ndarray, seed: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`nearest_of` over all remaining tuples (all of them when at most ``k`` records remain)."""
    if tuples.m <= k:
        return np.arange(len(tuples.ids)), tuples.count.copy()
    return nearest_of(tuples, np.arange(len(tuples.ids)), dist, seed, k)


def mdav_groups_tuples(space: Any, k: int) -> np.ndarray:
    """Group id of every record of ``space`` (in its order), groups numbered as formed: the groups of
    :func:`anonkit.algorithms.cluster.mdav.mdav_groups`, computed on the distinct tuples."""
    m = space.Z.shape[1] if space.Z.shape[0] else space.C.shape[1]
    group = np.full(m, -1, dtype=np.int64)
    if m == 0:
        return group
    tuples = Tuples(space)
    n_groups = 0

    def take(rows: np.ndarray, extra: np.ndarray) -> np.ndarray:
        nonlocal n_groups
        keep = tuples.remove(rows, extra)
        group[tuples.last] = n_groups
        n_groups += 1
        return keep

    while tuples.m >= 3 * k:
        xr = tuples.first_max(_centroid_dist(space, tuples))
        dr = _record_dist(space, tuples, xr)
        keep = take(*_nearest(tuples, dr, xr, k))
        xs = tuples.first_max(dr[keep])
        take(*_nearest(tuples, _record_dist(space, tuples, xs), xs, k))
    if tuples.m >= 2 * k:
        xr = tuples.first_max(_centroid_dist(space, tuples))
        take(*_nearest(tuples, _record_dist(space, tuples, xr), xr, k))
    if tuples.m:
        take(np.arange(len(tuples.ids)), tuples.count.copy())
    return group
