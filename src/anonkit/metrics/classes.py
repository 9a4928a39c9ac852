"""Measures of the equivalence classes' sizes (spec §2.2; ARX compatibility §2.4).

ARX's class-based quality models — discernibility DM (``MetricSDNMDiscernability``), DM*
(``MetricSDDiscernability``) and the average equivalence class size AECS (``MetricSDAECS``) —
count the classes the suppressed records form as ARX does (:func:`suppressed_class_sizes`), so a
full-domain release scores what ARX reports. Also here: the normalized average class size
``C_avg``, the released classes' size statistics and the suppression rate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonkit._kernels import group_columns
from anonkit.errors import InputError
from anonkit.metrics.arx import gs_factors, transformation_levels, tuple_counts
from anonkit.release import Release
from anonkit.table import Table


def discernibility(table: Table, release: Release) -> float:
    """DM (ARX ``MetricSDNMDiscernability``): Σ over released classes of |EC|² + n·|suppressed|."""
    sizes = released_sizes(release).astype(np.int64)
    return float(int((sizes * sizes).sum()) + table.n_records * release.n_suppressed)


def suppressed_class_sizes(table: Table, release: Release) -> np.ndarray:
    """Sizes of the classes the suppressed records form.

    Full-domain: the suppressed records grouped by their generalized QI codes at the
    transformation (the classes that failed). Otherwise: grouped by their original QI tuple.
    None without a suppressed record, read without a pass over the records
    (:attr:`~anonkit.release.Release.n_suppressed` is 0 only then: every row stands for at least one record).
    """
    if release.n_suppressed == 0:
        return np.zeros(0, dtype=np.int64)
    sup = tuple_counts(table, release.suppressed)
    keep = sup > 0
    if not keep.any():
        return np.zeros(0, dtype=np.int64)
    tuples = table.distinct.tuples[keep]
    t = transformation_levels(table, release)
    if t is None:
        t = np.zeros(len(table.qi), dtype=np.int64)
    if not table.qi:
        return np.array([int(sup.sum())], dtype=np.int64)
    cols = [h.maps[t[j]][tuples[:, j]] for j, h in enumerate(table.hierarchies)]
    ids, m = group_columns(cols, [h.size(int(t[j])) for j, h in enumerate(table.hierarchies)])
    return np.rint(np.bincount(ids, weights=sup[keep], minlength=m)).astype(np.int64)


def discernibility_star(table: Table, release: Release) -> float:
    """DM* (ARX ``MetricSDDiscernability``): Σ over all classes, suppressed ones included, of
    |class|² (no suppression penalty). See :func:`suppressed_class_sizes`."""
    sizes = released_sizes(release).astype(np.int64)
    sup = suppressed_class_sizes(table, release)
    return float(int((sizes * sizes).sum()) + int((sup * sup).sum()))


def aecs(table: Table, release: Release, *, gs: float = 0.5) -> float:
    """ARX's average equivalence class size (``MetricSDAECS``).

    ``N / (#released classes·sFactor + gFactor if any record is suppressed)``: all suppressed
    records form one extra class. ARX swaps the two factors on purpose; at gs = 0.5 both are 1 and
    this is ``N / (#classes + [any suppressed])``.
    """
    g_factor, s_factor = gs_factors(gs)
    groups = release.n_classes * s_factor
    if release.n_suppressed:
        groups += 1.0 * g_factor
    return table.n_records / groups if groups > 0 else float("inf")


def cavg(table: Table, release: Release, k: int) -> float:
    """Normalized average class size ``C_avg = (n_released / #EC) / k`` (spec §2.2)."""
    if k <= 0:
        raise InputError(f"k must be positive, got {k!r}", key="k")
    if release.n_classes == 0:
        return 0.0
    return release.n_released / release.n_classes / k


@dataclass(frozen=True)
class ClassSizeStats:
    """Minimum, average and maximum size of the released classes (0 when none)."""

    n_classes: int
    min: float
    avg: float
    max: float


def class_size_stats(table: Table, release: Release) -> ClassSizeStats:
    """Sizes of the released equivalence classes (in persons when there is a person column)."""
    sizes = release.class_people()
    if sizes.size == 0:
        return ClassSizeStats(0, 0.0, 0.0, 0.0)
    return ClassSizeStats(int(sizes.size), float(sizes.min()), float(sizes.mean()), float(sizes.max()))


def released_sizes(release: Release) -> np.ndarray:
    """Records per released class (:meth:`Release.class_sizes`), read from :meth:`Release.class_people`
    when the table has no person column. Why that is the same array: :meth:`Table.class_people` then
    returns the class sizes — the same ``bincount`` of the released records' classes (weighted by
    :attr:`Table.weights` and cast to int64 as :meth:`Release.class_sizes` casts them), the same values
    and dtype — so inside :func:`~anonkit.release.measuring` the measures that read sizes and those that
    read persons (the class statistics, the risks, the run's smallest class) share one count of the
    records instead of two. A copy, as both methods give."""
    if release.table.person is None:
        return release.class_people()
    return release.class_sizes()


def suppression_rate(table: Table, release: Release) -> float:
    """Suppressed records / input records."""
    return release.n_suppressed / table.n_records
