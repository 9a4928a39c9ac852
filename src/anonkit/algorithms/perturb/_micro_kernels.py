"""The loops of ``rmd`` (:func:`anonkit.algorithms.perturb._micro_methods.rmd`) and ``mdav``
(:func:`anonkit.algorithms.perturb._micro_methods.mdav`) compiled with numba: every round reads every remaining
record once (the seed, then its nearest), so the O(m²/k) work is one pass a round instead of numpy's several
array copies. Their groups are the numpy loops' exactly (ties: lowest record index, for the seed and for the
nearest); ``tests/test_microaggregation.py`` holds ``rmd``'s equal, ``tests/test_perturb_speed_paths.py``
``mdav``'s (:func:`mdav_numeric` against :func:`anonkit.algorithms.cluster.mdav.mdav_groups`). MDAV's centroid
is the correctly rounded sum over the count, as ``mdav_groups`` computes it: here the sum is kept exactly as
``math.fsum``'s non-overlapping expansion of partial sums, each taken record subtracted from it, and rounded
with ``fsum``'s final step (half to even) each round."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from anonkit._kernels import compiled


def rmd_rounds(z: np.ndarray, md: np.ndarray, k: int, rounds: int) -> np.ndarray:  # pragma: no cover - compiled
    """``rounds`` groups, each the remaining record of largest ``md`` and its ``k − 1`` nearest remaining
    records (squared Euclidean distance over the rows of ``z``); the rest is group ``rounds``."""
    m, p = z.shape
    alive = np.ones(m, dtype=np.bool_)
    group = np.full(m, rounds, dtype=np.int64)
    best_d = np.empty(k, dtype=np.float64)
    best_i = np.empty(k, dtype=np.int64)
    for g in range(rounds):
        s, top = -1, -np.inf
        for i in range(m):
            if alive[i] and md[i] > top:
                s, top = i, md[i]
        count = 0
        for i in range(m):
            if not alive[i]:
                continue
            d = 0.0
            for j in range(p):
                diff = z[i, j] - z[s, j]
                d += diff * diff
            if count == k and not d < best_d[k - 1]:
                continue
            pos = count if count < k else k - 1
            while pos > 0 and d < best_d[pos - 1]:  # strict: an equal distance keeps the lower index first
                best_d[pos] = best_d[pos - 1]
                best_i[pos] = best_i[pos - 1]
                pos -= 1
            best_d[pos] = d
            best_i[pos] = i
            if count < k:
                count += 1
        for t in range(count):
            group[best_i[t]] = g
            alive[best_i[t]] = False
    return group


#: room for the partial sums of one column's exact sum (a non-overlapping expansion of doubles: at most one
#: partial per bit of the double exponent range, in practice a handful)
_PARTIALS = 2100


def _add_exact(partials: np.ndarray, count: int, x: float) -> int:  # pragma: no cover - compiled
    """Add ``x`` exactly to the non-overlapping expansion ``partials[:count]`` (Shewchuk's grow-expansion, as
    ``math.fsum`` accumulates); the new count."""
    i = 0
    for j in range(count):
        y = partials[j]
        if abs(x) < abs(y):
            x, y = y, x
        hi = x + y
        lo = y - (hi - x)
        if lo != 0.0:
            partials[i] = lo
            i += 1
        x = hi
    partials[i] = x
    return i + 1


def _rounded(partials: np.ndarray, count: int) -> float:  # pragma: no cover - compiled
    """The expansion's sum correctly rounded (half to even), ``math.fsum``'s final step."""
    if count == 0:
        return 0.0
    n = count - 1
    hi = partials[n]
    lo = 0.0
    while n > 0:
        x = hi
        y = partials[n - 1]
        n -= 1
        hi = x + y
        lo = y - (hi - x)
        if lo != 0.0:
            break
    if n > 0 and ((lo < 0.0 and partials[n - 1] < 0.0) or (lo > 0.0 and partials[n - 1] > 0.0)):
        y = lo * 2.0
        x = hi + y
        if y == x - hi:
            hi = x
    return hi


def _distances(w: np.ndarray, n: int, centre: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """``out[:n]``: squared distance of the first ``n`` columns of ``w`` (p × m) to ``centre``, summed over the
    rows in order (numpy's ``out += (z − c) ** 2`` row by row, bit for bit)."""
    for i in range(n):
        out[i] = 0.0
    for c in range(w.shape[0]):
        for i in range(n):
            d = w[c, i] - centre[c]
            out[i] += d * d


def _first_max(dist: np.ndarray, n: int) -> int:  # pragma: no cover - compiled
    best = 0
    for i in range(1, n):
        if dist[i] > dist[best]:
            best = i
    return best


def _take_nearest(w: np.ndarray, rem: np.ndarray, n: int, dist: np.ndarray, seed: int, k: int,
                  group: np.ndarray, g: int, partials: np.ndarray, counts: np.ndarray) -> int:  # pragma: no cover
    """Group ``g``: position ``seed`` and the ``k − 1`` positions nearest to it (ties: lowest position), taken
    out of the first ``n`` positions (``w``, ``rem``, ``dist`` compacted, the exact sums reduced); the new ``n``."""
    chosen = np.zeros(n, dtype=np.bool_)
    chosen[seed] = True
    best_d = np.empty(k - 1, dtype=np.float64)
    best_i = np.empty(k - 1, dtype=np.int64)
    count = 0
    for i in range(n if k > 1 else 0):
        if i == seed:
            continue
        d = dist[i]
        if count == k - 1 and not d < best_d[k - 2]:
            continue
        pos = count if count < k - 1 else k - 2
        while pos > 0 and d < best_d[pos - 1]:  # strict: an equal distance keeps the lower position first
            best_d[pos] = best_d[pos - 1]
            best_i[pos] = best_i[pos - 1]
            pos -= 1
        best_d[pos] = d
        best_i[pos] = i
        if count < k - 1:
            count += 1
    for t in range(count):
        chosen[best_i[t]] = True
    kept = 0
    for i in range(n):
        if chosen[i]:
            group[rem[i]] = g
            for c in range(w.shape[0]):
                counts[c] = _add_exact(partials[c], counts[c], -w[c, i])
        else:
            for c in range(w.shape[0]):
                w[c, kept] = w[c, i]
            rem[kept] = rem[i]
            dist[kept] = dist[i]
            kept += 1
    return kept


def mdav_numeric(z: np.ndarray, k: int) -> np.ndarray:  # pragma: no cover - compiled
    """MDAV's groups of the columns of ``z`` (p × m, finite numbers, no missing value), numbered as formed:
    :func:`anonkit.algorithms.cluster.mdav.mdav_groups` round for round (the centroid the correctly rounded
    sum over the count, kept as an exact expansion that each taken record is subtracted from; ties to the
    lowest record index)."""
    p, m = z.shape
    group = np.full(m, -1, dtype=np.int64)
    if m == 0:
        return group
    w = z.copy()
    rem = np.arange(m)
    partials = np.zeros((p, _PARTIALS), dtype=np.float64)
    counts = np.zeros(p, dtype=np.int64)
    for c in range(p):
        for i in range(m):
            counts[c] = _add_exact(partials[c], counts[c], w[c, i])
    centre = np.empty(p, dtype=np.float64)
    dist = np.empty(m, dtype=np.float64)
    n, g = m, 0
    while n >= 2 * k:
        for c in range(p):
            centre[c] = _rounded(partials[c], counts[c]) / n
        _distances(w, n, centre, dist)
        xr = _first_max(dist, n)
        for c in range(p):
            centre[c] = w[c, xr]
        _distances(w, n, centre, dist)
        last = n < 3 * k
        n = _take_nearest(w, rem, n, dist, xr, k, group, g, partials, counts)
        g += 1
        if last:
            break
        xs = _first_max(dist, n)
        for c in range(p):
            centre[c] = w[c, xs]
        _distances(w, n, centre, dist)
        n = _take_nearest(w, rem, n, dist, xs, k, group, g, partials, counts)
        g += 1
    for i in range(n):
        group[rem[i]] = g
    return group


@functools.cache
def _mdav_kernel() -> Callable[[np.ndarray, int], np.ndarray]:
    """:func:`mdav_numeric` compiled, once: its helpers are compiled first and bound in its globals, which numba
    reads when it compiles the caller."""
    for helper in (_add_exact, _rounded, _distances, _first_max, _take_nearest):
        globals()[helper.__name__] = compiled(helper)
    return compiled(mdav_numeric)  # type: ignore[no-any-return]


def mdav_compiled(z: np.ndarray, k: int) -> np.ndarray:
    """:func:`mdav_numeric`, compiled on first use."""
    return _mdav_kernel()(np.ascontiguousarray(z, dtype=np.float64), k)


def rmd_compiled(z: np.ndarray, md: np.ndarray, k: int, rounds: int) -> np.ndarray:
    """:func:`rmd_rounds`, compiled on first use."""
    return compiled(rmd_rounds)(np.ascontiguousarray(z, dtype=np.float64), np.ascontiguousarray(md, dtype=np.float64),
                                k, rounds)
