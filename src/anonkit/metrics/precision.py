"""ARX's level-based quality models: Precision (``MetricMDPrecision``, ``MetricMDNMPrecision``),
Height (``MetricMDHeight``) and Sweeney's Prec as a loss (spec §2.2; ARX compatibility §2.4).

They measure how far up its hierarchy every QI is generalized. A full-domain release counts the
transformation's levels exactly as ARX does (conventions in :mod:`~anonkit.metrics.arx`); a local
recoding counts every class's level, an interval or set at the level of the lowest common ancestor
of the leaves it covers (:func:`~anonkit.metrics.coverage.hierarchy_class_levels`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from anonkit.metrics.arx import aggregate_attributes, gs_factors, transformation_levels
from anonkit.metrics.classes import released_sizes
from anonkit.metrics.coverage import hierarchy_class_levels
from anonkit.release import Release
from anonkit.table import Table


def _level_sums(
    table: Table, release: Release, j: int, transform: np.ndarray | None, class_levels: np.ndarray | None = None
) -> tuple[float, float]:
    """(Σ over released records of level/height, #released) for QI ``j``, grouped by level so that
    a full-domain release computes ``released·level/height`` exactly as ARX does. ``class_levels``:
    the classes' hierarchy levels (default:
    :func:`~anonkit.metrics.coverage.hierarchy_class_levels`, CUSTOM values at the LCA of their
    leaves)."""
    h = table.hierarchies[j]
    sizes = released_sizes(release)
    kept = float(sizes.sum())
    if h.height == 0:
        return 0.0, kept
    if transform is not None:
        return kept * (float(transform[j]) / h.height), kept
    if class_levels is None:
        class_levels = hierarchy_class_levels(table, release)[0]
    by_level = np.bincount(class_levels[:, j], weights=sizes, minlength=h.height + 1)
    total = 0.0
    for level in np.flatnonzero(by_level):
        total += float(by_level[level]) * (float(level) / h.height)
    return total, kept


def precision_per_attribute(
    table: Table, release: Release, *, monotonic: bool = True, gs: float = 0.5
) -> dict[str, float]:
    """ARX's Precision per QI (Sweeney's Prec as a loss).

    Non-monotonic (``MetricMDNMPrecision``): ``(Σ_released level/height·gFactor +
    #suppressed·sFactor) / N``. Monotonic (``MetricMDPrecision``): suppression ignored, i.e.
    ``level/height·gFactor`` of the transformation (for other releases the average over all
    records, suppressed ones at the root).

    A CUSTOM value (interval or set) counts with the level of the lowest common ancestor of the
    leaves it covers (:func:`~anonkit.metrics.coverage.hierarchy_class_levels`): the hierarchy
    level a global recoding would need to publish it.
    """
    g_factor, s_factor = gs_factors(gs)
    t = transformation_levels(table, release)
    n = float(table.n_records)
    n_sup = float(release.n_suppressed)
    class_levels = hierarchy_class_levels(table, release)[0]
    out: dict[str, float] = {}
    for j, (name, h) in enumerate(zip(table.qi, table.hierarchies, strict=True)):
        if h.height == 0:
            out[name] = 0.0 if monotonic else (n_sup * s_factor) / n
            continue
        if monotonic:
            if t is not None:
                out[name] = float(t[j]) / h.height * g_factor
            else:
                total, _ = _level_sums(table, release, j, None, class_levels)
                out[name] = (total + n_sup) / n * g_factor
        else:
            total, _ = _level_sums(table, release, j, t, class_levels)
            out[name] = (total * g_factor + n_sup * s_factor) / n
    return out


def precision(
    table: Table,
    release: Release,
    *,
    monotonic: bool = True,
    gs: float = 0.5,
    weights: Mapping[str, float] | Sequence[float] | None = None,
) -> float:
    """ARX's Precision: the (weighted) arithmetic mean of :func:`precision_per_attribute`."""
    values = precision_per_attribute(table, release, monotonic=monotonic, gs=gs)
    return float(aggregate_attributes(table, values, weights, "arithmetic"))


def prec_loss(table: Table, release: Release) -> float:
    """Sweeney's Prec as a loss, ``(1/d) Σ_A level_A/height_A`` (spec §2.2).

    For a full-domain release the levels of the transformation (suppression is not counted); for
    other releases each QI's level averaged over the released records (1 when none is released),
    a CUSTOM value (interval or set) at the level of the lowest common ancestor of the leaves it
    covers (:func:`~anonkit.metrics.coverage.hierarchy_class_levels`).
    """
    d = len(table.qi)
    if d == 0:
        return 0.0
    t = transformation_levels(table, release)
    class_levels = hierarchy_class_levels(table, release)[0]
    total = 0.0
    for j, h in enumerate(table.hierarchies):
        if h.height == 0:
            continue
        if t is not None:
            total += t[j] / h.height
        elif release.n_released == 0:
            total += 1.0
        else:
            s, kept = _level_sums(table, release, j, None, class_levels)
            total += s / kept
    return total / d


def height(table: Table, release: Release) -> float:
    """ARX's Height (``MetricMDHeight``): the sum of the transformation's levels. For other
    releases the average over released records of the sum of their levels (the sum of the heights
    when nothing is released), a CUSTOM value (interval or set) at the level of the lowest common
    ancestor of the leaves it covers (:func:`~anonkit.metrics.coverage.hierarchy_class_levels`)."""
    t = transformation_levels(table, release)
    if t is not None:
        return float(t.sum())
    sizes = released_sizes(release)
    if sizes.sum() == 0:
        return float(sum(table.heights))
    class_levels = hierarchy_class_levels(table, release)[0]
    return float((class_levels.sum(axis=1) * sizes).sum() / sizes.sum())
