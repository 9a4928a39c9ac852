"""Re-identification risk of a :class:`~anonkit.release.Release` (ARX compatibility §2.5, spec §2.5).

Sample-based prosecutor risks follow ARX's ``RiskModelSampleRisks`` on the released records
(suppressed records are not published, so they carry no risk); record linkage is the UHRA metric
of spec §2.5, computed on the distinct QI tuples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonkit._kernels import group_columns
from anonkit.release import Release
from anonkit.table import Table


@dataclass(frozen=True)
class ProsecutorRisk:
    """Prosecutor re-identification risk of the released records.

    ``highest`` = 1/smallest class, ``lowest`` = 1/largest class, ``average`` = #classes /
    #released records (ARX's definition: the mean of 1/|class| over the records),
    ``records_at_risk`` = share of released records whose risk 1/|class| exceeds ``threshold``.
    All 0 when nothing is released.
    """

    highest: float
    average: float
    lowest: float
    records_at_risk: float
    threshold: float


def prosecutor_risk(table: Table, release: Release, *, threshold: float = 0.2) -> ProsecutorRisk:
    """Sample-based prosecutor risk (see :class:`ProsecutorRisk`)."""
    sizes = release.class_sizes()
    sizes = sizes[sizes > 0]
    released = int(sizes.sum())
    if released == 0:
        return ProsecutorRisk(0.0, 0.0, 0.0, 0.0, threshold)
    risk = 1.0 / sizes
    at_risk = float(sizes[risk > threshold].sum()) / released
    return ProsecutorRisk(
        highest=float(1.0 / sizes.min()),
        average=len(sizes) / released,
        lowest=float(1.0 / sizes.max()),
        records_at_risk=at_risk,
        threshold=threshold,
    )


def sample_uniqueness(table: Table, release: Release) -> float:
    """Share of the released records that are alone in their class (0 when nothing is released)."""
    sizes = release.class_sizes()
    released = int(sizes.sum())
    return float((sizes == 1).sum()) / released if released else 0.0


def linkage_candidates(table: Table, release: Release) -> np.ndarray:
    """For every distinct QI tuple, the number of released records whose generalized box contains it.

    A class contains a tuple when, for every QI, the tuple's leaf lies below the class's node
    (``hierarchy.maps[level][leaf] == node``). Classes are processed in groups sharing one level
    vector, each group joined with the tuples generalized to those levels (vectorized over tuples).
    """
    d = table.distinct
    out = np.zeros(d.size, dtype=np.float64)
    if release.n_classes == 0:
        return out
    sizes = release.class_sizes().astype(np.float64)
    present = sizes > 0
    levels = release.class_levels[present]
    nodes = release.class_nodes[present]
    sizes = sizes[present]
    if not table.qi:
        out[:] = sizes.sum()
        return out
    vectors, group = np.unique(levels, axis=0, return_inverse=True)
    group = group.ravel()
    for g, vec in enumerate(vectors):
        sel = group == g
        n_cls = int(sel.sum())
        cols, radix = [], []
        for j, h in enumerate(table.hierarchies):
            level = int(vec[j])
            gen = h.maps[level][d.tuples[:, j]].astype(np.int64)
            cols.append(np.concatenate([nodes[sel, j].astype(np.int64), gen]))
            radix.append(h.size(level))
        ids, m = group_columns(cols, radix)
        box = np.bincount(ids[:n_cls], weights=sizes[sel], minlength=m)
        out += box[ids[n_cls:]]
    return out


def record_linkage(table: Table, release: Release) -> float:
    """Record linkage RL in percent (spec §2.5, generalized output).

    Every original record ``r`` scores ``1/|C(r)|``, ``C(r)`` = the released records whose
    generalized box contains ``r``'s original QI values, when ``r`` itself is released (its own class
    always contains it) and 0 when it is suppressed; ``RL = 100·Σ score / n``. For a full-domain
    release ``C(r)`` is ``r``'s class, so RL = 100·#classes/n; a k-anonymous release without
    suppression has RL ≤ 100/k.
    """
    d = table.distinct
    kept = np.bincount(d.inverse[~release.suppressed], minlength=d.size).astype(np.float64)
    cand = linkage_candidates(table, release)
    use = (kept > 0) & (cand > 0)
    return 100.0 * float((kept[use] / cand[use]).sum()) / table.n
