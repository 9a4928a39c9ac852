"""The verdicts an exploration adds to its runs: which meet the thresholds, which are Pareto-optimal."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["meets", "pareto_front"]

#: slack on a threshold comparison, for risks such as 1/5 computed in floating point
_SLACK = 1e-12


def pareto_front(loss: ArrayLike, risk: ArrayLike, eligible: ArrayLike | None = None) -> np.ndarray:
    """Which points are on the Pareto front of ``(loss, risk)``, both minimized.

    A point is on the front when no other eligible point is at least as good on both and strictly
    better on one. Equal points do not dominate each other (all are on the front when one is).
    Points that are not ``eligible`` (default: every point) or have a missing (NaN) value are never
    on it and dominate nothing. One sort: O(n log n).
    """
    x = np.asarray(loss, dtype=np.float64).ravel()
    y = np.asarray(risk, dtype=np.float64).ravel()
    if x.shape != y.shape:
        raise ValueError("loss and risk need one value per run")
    ok = ~(np.isnan(x) | np.isnan(y))
    if eligible is not None:
        ok &= np.asarray(eligible, dtype=bool).ravel()
    out = np.zeros(x.size, dtype=bool)
    idx = np.flatnonzero(ok)
    if idx.size == 0:
        return out
    order = idx[np.lexsort((y[idx], x[idx]))]  # by loss, then risk
    xs, ys = x[order], y[order]
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])  # one group per distinct loss
    group = np.cumsum(np.r_[True, xs[1:] != xs[:-1]]) - 1
    best = ys[starts]  # the lowest risk of each loss group (sorted first)
    before = np.r_[np.inf, np.minimum.accumulate(best)[:-1]]  # lowest risk at a strictly lower loss
    # a point is dominated by a point of its group with lower risk, or by any point of lower loss
    # with a risk at most its own
    out[order] = (ys == best[group]) & (ys < before[group])
    return out


def meets(satisfied: ArrayLike, risk: ArrayLike, limit: float | None) -> np.ndarray:
    """Runs whose models hold and whose risk is at most ``limit`` (none when there is no limit)."""
    sat = np.asarray(satisfied, dtype=bool).ravel()
    r = np.asarray(risk, dtype=np.float64).ravel()
    if limit is None:
        return np.zeros(sat.size, dtype=bool)
    with np.errstate(invalid="ignore"):
        return sat & (r <= limit + _SLACK)
