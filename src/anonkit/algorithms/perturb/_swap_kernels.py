"""The pairing loop of rank swapping (:func:`anonkit.algorithms.perturb.rank_swap.swap_ranks`) compiled
with numba, in O(m log m) instead of the numpy loop's O(m · window).

The pairing is the numpy loop's exactly, draw for draw: rank by rank from the lowest, a rank not yet
paired takes the ``r``-th unpaired rank above it within the window, ``r = rng.integers(count)`` for
``count`` such ranks (numba's ``Generator.integers`` is numpy's bounded-integer algorithm on the same
bit generator, so the generator's state after the loop is the numpy loop's too). The unpaired ranks are
counted and the ``r``-th found with a Fenwick tree over "still free" flags: every rank below the current
one is already out of the tree (paired, or passed over), so the free ranks in the window are a prefix
count and the ``r``-th a descent of the tree. ``tests/test_swap.py`` holds both loops equal.
"""

from __future__ import annotations

import numpy as np

from anonkit._kernels import compiled

#: the work (ranks × (1 + window / :data:`WINDOW_PER_STEP`)) from which the compiled loop is used in a process
#: that has not loaded numba: the list loop costs about 0.45 µs a rank plus moving a window of list entries per
#: pair (49,000 ranks with a 5 % window 30 ms, 100,000 77 ms, 200,000 0.22 s, 400,000 0.64 s, measured), loading
#: numba and the kernel from its disk cache about 0.35 s in a fresh process; below, no compiler start-up
COMPILED_WORK = 400_000
#: window entries moved per pair that cost about as much as one rank's step of the list loop
WINDOW_PER_STEP = 8_000


def compiled_pays(m: int, window: int) -> bool:
    """Whether the compiled loop pays for loading numba: ``m`` ranks with this ``window`` are at least
    :data:`COMPILED_WORK` work (5 % windows: from about 180,000 ranks; a whole-range window: from about 60,000)."""
    return m * (1 + window / WINDOW_PER_STEP) >= COMPILED_WORK


def pair_ranks(m: int, window: int, rng: np.random.Generator) -> np.ndarray:  # pragma: no cover - compiled
    """The partner of each of ``m`` ranks (itself when it found none): see the module docstring."""
    partner = np.arange(m)
    tree = np.zeros(m + 1, dtype=np.int64)  # 1-based Fenwick tree of the free flags
    for i in range(1, m + 1):
        tree[i] += 1
        up = i + (i & -i)
        if up <= m:
            tree[up] += tree[i]
    top = 1
    while top * 2 <= m:
        top *= 2
    free = np.ones(m, dtype=np.bool_)
    for j in range(m):
        if not free[j]:
            continue
        free[j] = False
        i = j + 1
        while i <= m:
            tree[i] -= 1
            i += i & -i
        hi = min(m, j + 1 + window)  # free ranks in [0, hi) are exactly those in (j, j + window]
        count = 0
        i = hi
        while i > 0:
            count += tree[i]
            i -= i & -i
        if count == 0:
            continue
        target = rng.integers(0, count) + 1
        pos = 0  # the largest position whose prefix count is below target: the partner is rank ``pos``
        step = top
        while step > 0:
            nxt = pos + step
            if nxt <= m and tree[nxt] < target:
                pos = nxt
                target -= tree[nxt]
            step //= 2
        k = pos
        partner[j] = k
        partner[k] = j
        free[k] = False
        i = k + 1
        while i <= m:
            tree[i] -= 1
            i += i & -i
    return partner


def pair_ranks_compiled(m: int, window: int, rng: np.random.Generator) -> np.ndarray:
    """:func:`pair_ranks`, compiled on first use."""
    return compiled(pair_ranks)(m, window, rng)  # type: ignore[no-any-return]
