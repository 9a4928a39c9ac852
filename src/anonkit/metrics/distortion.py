"""Distortion of the released values: weighted hierarchical distance (WHD, spec §2.3) and the
modification rate (spec §2.4).

WHD charges every record the (weighted) share of its hierarchy's steps its values were generalized
by, an interval or set of a local recoding at the level of the lowest common ancestor of the
leaves it covers (:func:`~anonkit.metrics.coverage.hierarchy_class_levels`); the modification rate
counts the QI cells whose published text differs from the original.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from anonkit.errors import InputError
from anonkit.metrics.coverage import hierarchy_class_levels
from anonkit.release import CUSTOM, Release
from anonkit.table import Table

#: WHD step weights (spec §2.3): ``uniform`` steps, or ``height`` steps of ``1/(j−1)^β``
WHDWeights = Literal["uniform", "height"]
DEFAULT_WHD_WEIGHTS: WHDWeights = "uniform"
DEFAULT_WHD_BETA = 1.0


def whd_step_weights(
    height: int, weights: WHDWeights = DEFAULT_WHD_WEIGHTS, beta: float = DEFAULT_WHD_BETA
) -> np.ndarray:
    """Weight of every generalization step ``ℓ → ℓ+1`` (anonkit levels, 0 = leaves) of a hierarchy.

    Spec §2.3 numbers levels from the root (root = 1, leaves = h = height + 1); the step from its
    level ``j`` to ``j − 1`` is our step ``ℓ = h − j``. ``uniform``: 1; ``height``: ``1/(j−1)^β``,
    i.e. ``1/(height − ℓ)^β`` (steps near the root cost more).
    """
    if weights == "uniform":
        return np.ones(height, dtype=np.float64)
    if weights == "height":
        if beta < 1:
            raise InputError(f"beta must be at least 1, got {beta!r}", key="beta")
        return 1.0 / np.power(np.arange(height, 0, -1, dtype=np.float64), beta)
    raise InputError(f"unknown WHD weights {weights!r}; allowed: uniform, height", key="weights")


def whd_cost(
    height: int,
    from_level: int,
    to_level: int,
    *,
    weights: WHDWeights = DEFAULT_WHD_WEIGHTS,
    beta: float = DEFAULT_WHD_BETA,
) -> float:
    """WHD of generalizing from ``from_level`` to ``to_level`` (anonkit levels, 0 = leaves)."""
    if not 0 <= from_level <= to_level <= height:
        raise InputError(
            "levels must satisfy 0 ≤ from_level ≤ to_level ≤ height",
            key="from_level" if not 0 <= from_level <= height else "to_level",
        )
    if height == 0:
        return 0.0
    w = whd_step_weights(height, weights, beta)
    return float(w[from_level:to_level].sum() / w.sum())


@dataclass(frozen=True)
class WHDResult:
    """Total distortion (Σ over input records of the tuple WHD) and its average per record."""

    total: float
    average: float


def whd(
    table: Table,
    release: Release,
    *,
    weights: WHDWeights = DEFAULT_WHD_WEIGHTS,
    beta: float = DEFAULT_WHD_BETA,
) -> WHDResult:
    """Weighted hierarchical distance (spec §2.3).

    Tuple WHD = average over the QIs of the WHD from the leaf to the released node; a suppressed
    record is fully generalized (WHD 1 per QI). Returns the sum over the input records and the
    average per record.

    A CUSTOM value (interval or set) is treated as generalized to the level of the lowest common
    ancestor of the leaves it covers (:func:`~anonkit.metrics.coverage.hierarchy_class_levels`):
    WHD is defined on hierarchy levels only, and that is the level a hierarchy would need to
    publish the value. (With the trivial ``{values} → *`` hierarchy any interval or set of two or
    more values costs 1.)
    """
    d = len(table.qi)
    if d == 0:
        return WHDResult(0.0, 0.0)
    sizes = release.class_sizes().astype(np.float64)
    per_class = np.zeros(release.n_classes, dtype=np.float64)
    class_levels = hierarchy_class_levels(table, release)[0]
    for j, h in enumerate(table.hierarchies):
        if h.height == 0:
            continue
        w = whd_step_weights(h.height, weights, beta)
        cost = np.concatenate([[0.0], np.cumsum(w)]) / w.sum()
        per_class += cost[class_levels[:, j]]
    total = float(sizes @ (per_class / d)) + release.n_suppressed * 1.0
    return WHDResult(total, total / table.n_records)


def modification_rate(table: Table, release: Release) -> float:
    """Share of QI cells whose released label differs from the original text (spec §2.4); every
    cell of a suppressed record counts as modified.

    A CUSTOM value is compared by its published label (:meth:`Release.class_labels`): ``[lo-hi]``
    and ``{a,b}`` always differ from a single value, a one-value interval (``lo == hi``) or
    one-member set is published as the value itself and counts as modified only if that text
    differs from the original's (e.g. ``25`` for an original ``25.0``, or a date interval, whose
    bounds are published as numbers).
    """
    d = len(table.qi)
    if d == 0:
        return 0.0
    rc = release.record_class
    kept = rc >= 0
    cls = rc[kept]
    modified = release.n_suppressed * d
    # rows that stand for several records (Table.weights) count as many cells
    w = np.ones(int(kept.sum()), dtype=np.int64) if table.weights is None else table.weights[kept]
    for j, h in enumerate(table.hierarchies):
        levels = release.class_levels[cls, j]
        nodes = release.class_nodes[cls, j]
        original = h.labels[0][table.codes[kept, j]]
        for level in np.unique(levels):
            if level == 0:
                continue  # a leaf's label is the original text
            sel = levels == level
            if level == CUSTOM:
                labels = release.class_labels(j)[cls[sel]]
                modified += int(w[sel][labels != original[sel]].sum())
                continue
            modified += int(w[sel][h.labels[int(level)][nodes[sel]] != original[sel]].sum())
    return modified / (table.n_records * d)
