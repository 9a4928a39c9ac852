"""Divergences between discrete distributions (spec §0.3), vectorized over leading axes.

Both functions take ``p`` and ``q`` of shape ``(S,)`` or ``(N, S)`` (anything NumPy broadcasts
over the last axis) and reduce over the last axis. Logarithms are base 2; ``0 · log 0 = 0``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from anonkit.errors import InputError


def kl(p: ArrayLike, q: ArrayLike) -> np.ndarray | float:
    """Kullback–Leibler divergence ``KL(p‖q) = Σ_{p_i > 0} p_i log2(p_i / q_i)`` (base 2).

    ``inf`` where some ``p_i > 0`` has ``q_i = 0``.
    """
    p, q = np.broadcast_arrays(np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64))
    pos = p > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(pos, p * (np.log2(np.where(pos, p, 1.0)) - np.log2(q)), 0.0)
    out = terms.sum(axis=-1)
    return float(out) if out.ndim == 0 else out


def jsd(p: ArrayLike, q: ArrayLike) -> np.ndarray | float:
    """Jensen–Shannon divergence, base 2 and *not* square-rooted, so it lies in ``[0, 1]``.

    ``JSD(p, q) = ½ KL(p‖m) + ½ KL(q‖m)`` with ``m = (p + q) / 2``. (SciPy's ``jensenshannon``
    returns the square root in base e; this is its square with ``base=2``.)
    """
    p, q = np.broadcast_arrays(np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64))
    m = 0.5 * (p + q)
    out = 0.5 * (_kl_to_mix(p, m) + _kl_to_mix(q, m))
    out = np.clip(out, 0.0, 1.0)  # rounding only; the exact value is in [0, 1]
    return float(out) if out.ndim == 0 else out


def _kl_to_mix(p: np.ndarray, m: np.ndarray) -> np.ndarray:
    """KL(p‖m) where ``m ≥ p / 2`` (so ``m > 0`` wherever ``p > 0``)."""
    pos = p > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(pos, p * np.log2(np.where(pos, p, 1.0) / np.where(pos, m, 1.0)), 0.0)
    return terms.sum(axis=-1)


def check_jsd_bound(J: float, *, key: str = "J") -> float:
    """``J`` as a float: a bound on the base-2 JSD, so a number in ``[0, 1]`` (1 bounds nothing);
    an :class:`~anonkit.errors.InputError` naming ``key`` otherwise."""
    value = float(J)
    if not (np.isfinite(value) and 0 <= value <= 1):
        raise InputError(f"J must be a number in [0, 1] (base-2 JSD), got {J!r}", key=key)
    return value
