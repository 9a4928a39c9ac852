"""The loop of ``rmd`` (:func:`anonkit.algorithms.perturb._micro_methods.rmd`) compiled with numba:
every round reads every remaining record once (the seed, then its nearest), so the O(m²/k) work is one
pass a round instead of numpy's several array copies. Its groups are the numpy loop's exactly (ties:
lowest record index, for the seed and for the nearest); ``tests/test_microaggregation.py`` holds them
equal."""

from __future__ import annotations

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


def rmd_compiled(z: np.ndarray, md: np.ndarray, k: int, rounds: int) -> np.ndarray:
    """:func:`rmd_rounds`, compiled on first use."""
    return compiled(rmd_rounds)(np.ascontiguousarray(z, dtype=np.float64), np.ascontiguousarray(md, dtype=np.float64),
                                k, rounds)
