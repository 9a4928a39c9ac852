"""PRAM's transition matrices: sdcMicro's estimated matrix, invariance, a given matrix checked.

sdcMicro's ``pram`` (R/pram.R, ``calcTransitionMatrix``), read, not copied: for ``L`` categories it
draws each diagonal entry ``P[i, i]`` uniformly from ``[pd, 1]`` and spreads the rest evenly over the
row (``(1 − P[i, i]) / (L − 1)``); with the observed distribution ``π`` of the stratum it forms the
backward matrix ``Q[k, j] = P[j, k] π_j / Σ_i π_i P[i, k]`` and the invariant matrix ``R = P Q``
(``π R = π``: the margins are kept in expectation); the matrix applied is ``α R + (1 − α) I``, still
invariant. anonkit draws the diagonal from the run's seed (numpy), category by category in sorted
order, so the same seed gives the same matrices.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from anonkit.errors import InputError

#: how far a row of a given matrix may sum from 1
ROW_SUM_TOLERANCE = 1e-9
#: the most categories a PRAM'd column may have (its matrix is published in the summary, one row a category)
MAX_CATEGORIES = 100


def random_matrix(n_categories: int, pd: float, rng: np.random.Generator) -> np.ndarray:
    """sdcMicro's starting matrix: diagonal uniform in ``[pd, 1]``, the rest of each row spread evenly."""
    L = n_categories
    if L == 1:
        return np.ones((1, 1))
    diag = rng.uniform(pd, 1.0, size=L)
    p = np.repeat(((1 - diag) / (L - 1))[:, None], L, axis=1)
    p[np.arange(L), np.arange(L)] = diag
    return p


def invariant_matrix(p: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """``R = P Q`` with the backward matrix ``Q`` for ``π`` (see the module docstring): ``π R = π``. A
    category no record reaches (``Σ_i π_i P[i, k] = 0``) keeps its row of ``Q`` as the identity's."""
    L = len(pi)
    reach = pi @ p
    q = np.eye(L)
    ok = reach > 0
    q[ok] = (p.T[ok] * pi[None, :]) / reach[ok, None]
    r = p @ q
    return r / r.sum(axis=1, keepdims=True)


def mixed(r: np.ndarray, alpha: float) -> np.ndarray:
    """``α R + (1 − α) I`` (sdcMicro's ``alpha``)."""
    return alpha * r + (1 - alpha) * np.eye(len(r))


def given_matrix(given: Mapping[str, Mapping[str, float]], categories: Sequence[str], *, key: str,
                 column: str) -> np.ndarray:
    """A matrix from the config (``{from: {to: probability}}``, a missing ``to`` is 0) over the
    column's ``categories``: every category has a row, no other category appears, every entry is in
    ``[0, 1]`` and every row sums to 1."""
    index = {c: i for i, c in enumerate(categories)}
    missing = [c for c in categories if c not in given]
    if missing:
        raise InputError(f"the PRAM matrix has no row for the category {missing[0]!r}: give a row for each of the "
                         f"column's categories ({', '.join(categories[:10])}{', …' if len(categories) > 10 else ''})",
                         column=column, key=key)
    p = np.zeros((len(categories), len(categories)))
    for a, row in given.items():
        if a not in index:
            raise InputError(f"the PRAM matrix has a row for {a!r}, which is not a category of the column",
                             column=column, key=f"{key}.{a}")
        for b, prob in row.items():
            if b not in index:
                raise InputError(f"the PRAM matrix sends {a!r} to {b!r}, which is not a category of the column",
                                 column=column, key=f"{key}.{a}.{b}")
            if not 0 <= prob <= 1:
                raise InputError(f"a transition probability must be in [0, 1], got {prob!r}", column=column,
                                 key=f"{key}.{a}.{b}", value=prob)
            p[index[a], index[b]] = prob
        total = float(p[index[a]].sum())
        if abs(total - 1) > ROW_SUM_TOLERANCE:
            raise InputError(f"the PRAM matrix row {a!r} sums to {total:.6g}, not 1: a row holds the probabilities "
                             "of every published category", column=column, key=f"{key}.{a}")
    return p
