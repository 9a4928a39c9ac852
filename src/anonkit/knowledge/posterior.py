"""The adversary's posterior belief about a record's sensitive value after seeing its group (§1.7).

A *group* is an equivalence class: the adversary knows which records are in it (their priors, one
row each) and the multiset of sensitive values it holds, but not who holds which.

* :func:`omega_posterior` — the Ω-estimate of Li, Li & Zhang (ICDE 2009): fast, approximate.
* :func:`exact_posterior` — enumerate every distinct assignment of the group's multiset of values to
  its records, weighted by the product of the records' priors (groups of at most 8 records).
* :func:`group_is_bk_safe` — ``JSD(prior, posterior) ≤ J`` for every record of the group.
"""

from __future__ import annotations

from itertools import permutations
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from anonkit.knowledge.divergence import jsd

#: Largest group :func:`exact_posterior` enumerates (8! = 40,320 assignments).
EXACT_MAX = 8

PosteriorMethod = Literal["omega", "exact"]


def _histogram(sa_counts: np.ndarray, g: int) -> np.ndarray:
    total = sa_counts.sum()
    row = sa_counts / total if total > 0 else np.full(len(sa_counts), 1.0 / len(sa_counts))
    return np.tile(row, (g, 1))


def omega_posterior(priors: ArrayLike, sa_counts: ArrayLike) -> np.ndarray:
    """Ω-estimate posterior of every record of a group.

    Parameters
    ----------
    priors:
        ``(g × S)`` prior of each of the group's ``g`` records.
    sa_counts:
        ``(S,)`` number of records of the group holding each sensitive value.

    Returns
    -------
    ``(g × S)``: ``ω(r, s) = n_s(G) · P(s|r) / Σ_{r'∈G} P(s|r')`` (0 where the denominator is 0),
    normalized per row. A row whose ω are all 0 (the record's prior excludes every value the group
    holds) gets the group's sensitive histogram.
    """
    p = np.atleast_2d(np.asarray(priors, dtype=np.float64))
    n = np.asarray(sa_counts, dtype=np.float64)
    if n.shape != (p.shape[1],):
        raise ValueError(f"sa_counts must have shape ({p.shape[1]},), got {n.shape}")
    den = p.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        omega = np.where(den > 0, n * p / np.where(den > 0, den, 1.0), 0.0)
    rows = omega.sum(axis=1, keepdims=True)
    out = np.where(rows > 0, omega / np.where(rows > 0, rows, 1.0), 0.0)
    empty = rows[:, 0] <= 0
    if empty.any():
        out[empty] = _histogram(n, int(empty.sum()))
    return out


def exact_posterior(priors: ArrayLike, sa_values: ArrayLike) -> np.ndarray:
    """Exact posterior by enumerating the distinct assignments of ``sa_values`` to the records.

    Each assignment ``a`` (a distinct permutation of the multiset ``sa_values``) has weight
    ``Π_r P(a(r) | r)``; the posterior of record ``r`` is the weight share of the assignments giving
    it each value. If every assignment has weight 0 (the priors contradict the group), all
    assignments count equally, i.e. each record gets the group's histogram.

    Raises
    ------
    ValueError
        More than :data:`EXACT_MAX` records, or ``len(sa_values)`` differs from the number of priors.
    """
    p = np.atleast_2d(np.asarray(priors, dtype=np.float64))
    values = np.asarray(sa_values, dtype=np.int64).reshape(-1)
    g, s = p.shape
    if g > EXACT_MAX:
        raise ValueError(f"exact posterior enumerates groups of at most {EXACT_MAX} records, got {g}")
    if len(values) != g:
        raise ValueError(f"need one sensitive value per record: {g} priors, {len(values)} values")
    if values.size and (values.min() < 0 or values.max() >= s):
        raise ValueError(f"sensitive codes must lie in [0, {s})")
    if g == 0:
        return p.copy()
    assign = np.unique(np.array(list(permutations(values.tolist())), dtype=np.int64), axis=0)  # (A × g)
    weights = p[np.arange(g), assign].prod(axis=1)  # (A,)
    if weights.sum() <= 0:
        weights = np.ones(len(assign))
    out = np.zeros((g, s))
    for r in range(g):
        out[r] = np.bincount(assign[:, r], weights=weights, minlength=s)
    return out / weights.sum()


def group_is_bk_safe(priors: ArrayLike, sa_counts: ArrayLike, J: float, posterior: PosteriorMethod = "omega") -> bool:
    """Whether ``JSD(prior(r), posterior(r)) ≤ J`` for every record ``r`` of the group (§1.7).

    ``posterior="exact"`` rebuilds the multiset from ``sa_counts`` (which must then sum to the number
    of records) and enumerates it (groups of at most 8 records).
    """
    p = np.atleast_2d(np.asarray(priors, dtype=np.float64))
    counts = np.asarray(sa_counts)
    if posterior == "omega":
        post = omega_posterior(p, counts)
    elif posterior == "exact":
        if not np.allclose(counts, np.round(counts)) or round(float(counts.sum())) != p.shape[0]:
            raise ValueError("exact posterior needs integer sa_counts summing to the number of records")
        values = np.repeat(np.arange(len(counts)), np.round(counts).astype(np.int64))
        post = exact_posterior(p, values)
    else:
        raise ValueError(f"unknown posterior {posterior!r}; allowed: 'omega', 'exact'")
    return bool(np.all(np.asarray(jsd(p, post)) <= J + 1e-12))


def omega_posterior_groups(priors: ArrayLike, group_of: ArrayLike, sa_codes: ArrayLike) -> np.ndarray:
    """Ω-estimate posterior of every record of a whole release at once.

    ``priors`` is ``(n × S)`` (one row per record), ``group_of[i]`` the group of record ``i`` and
    ``sa_codes[i]`` its sensitive code. Equal to calling :func:`omega_posterior` group by group.
    """
    p = np.atleast_2d(np.asarray(priors, dtype=np.float64))
    gid = np.asarray(group_of, dtype=np.int64)
    codes = np.asarray(sa_codes, dtype=np.int64)
    n, s = p.shape
    if gid.shape != (n,) or codes.shape != (n,):
        raise ValueError("group_of and sa_codes need one entry per prior row")
    _, gid = np.unique(gid, return_inverse=True)
    k = int(gid.max()) + 1 if n else 0
    counts = np.zeros((k, s))
    np.add.at(counts, (gid, codes), 1.0)
    den = np.zeros((k, s))
    np.add.at(den, gid, p)
    dg = den[gid]
    with np.errstate(divide="ignore", invalid="ignore"):
        omega = np.where(dg > 0, counts[gid] * p / np.where(dg > 0, dg, 1.0), 0.0)
    rows = omega.sum(axis=1, keepdims=True)
    out = np.where(rows > 0, omega / np.where(rows > 0, rows, 1.0), 0.0)
    empty = rows[:, 0] <= 0
    if empty.any():
        hist = counts[gid[empty]]
        out[empty] = hist / hist.sum(axis=1, keepdims=True)
    return out
