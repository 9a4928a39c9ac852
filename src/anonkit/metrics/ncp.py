"""Normalized certainty penalty (NCP) and global certainty penalty (GCP) of a release (spec §2.1).

NCP charges every released class and QI the share of the attribute's domain its published value
spans: #leaves below the node over #leaves for categorical QIs, the interval's width over the
domain's for numeric and date QIs. GCP averages it over the records, a suppressed record charged
1 per attribute. Local recodings publish intervals and sets (CUSTOM values); their widths and leaf
counts come from :mod:`~anonkit.metrics.coverage`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonkit.hierarchy import Hierarchy
from anonkit.metrics.arx import one_level
from anonkit.metrics.classes import released_sizes
from anonkit.metrics.coverage import custom_sizes, custom_widths, numeric_domain
from anonkit.release import CUSTOM, Release, measured_once
from anonkit.table import Table


def ncp_classes(table: Table, release: Release) -> np.ndarray:
    """``(C × d)`` NCP of every released class and QI (spec §2.1).

    Categorical QIs: 0 at a leaf (level 0), else #leaves below the node / #leaves of the hierarchy.
    Numeric and date QIs: width of the node's numeric interval (``hierarchy.bounds``) over the
    width of the hierarchy's leaf range — the attribute's domain, as |A| is for categorical QIs
    (spec §2.1's example divides by the domain 20–60, not by the data's 25–60); when the hierarchy
    has no numeric bounds, the class's data range over the table's data range. A zero domain width
    gives 0.

    CUSTOM values of local recodings (see :mod:`~anonkit.metrics.coverage`):

    * an interval (numeric QI): its width ``hi − lo`` (``release.class_bounds``) over the *same*
      denominator as the attribute's hierarchy nodes — the hierarchy's leaf range when it has
      numeric bounds, else the data range — so both kinds of class are on one scale. For an
      attribute without a hierarchy the trivial ``{values} → *`` one has bounds when all values
      are numbers, and its leaf range *is* the data range (spec §5.4: ranges 25 and 20);
    * a set of a categorical QI: ``|set| / |A|`` (|A| = #leaves of the hierarchy), 0 for a single
      value; a set of a numeric QI: the range of its members' values over the domain (the numeric
      rule, spec §2.1);
    * an interval of a categorical QI (only when a caller builds one): #leaves it covers / |A|.
    """
    C, d = release.class_levels.shape
    out = np.zeros((C, d), dtype=np.float64)
    if C == 0:
        return out
    rc = release.record_class
    # every class at the transformation's levels (:func:`~anonkit.metrics.arx.one_level`): a QI's nodes
    # are all at one level, so its widths and leaf counts are gathered at that level at once, the same
    # values the loop over the classes' levels gathers level by level; no CUSTOM value
    at = one_level(table, release)
    for j, (name, h) in enumerate(zip(table.qi, table.hierarchies, strict=True)):
        levels = release.class_levels[:, j]
        nodes = release.class_nodes[:, j]
        if at is not None and (name not in table.numeric or h.bounds is not None):
            out[:, j] = _one_level_ncp(table, h, j, int(at[j]), nodes)
            continue
        custom = levels == CUSTOM
        if name in table.numeric:
            domain = numeric_domain(table, j)
            if h.bounds is not None:
                width = np.zeros(C, dtype=np.float64)
                for level in np.unique(levels):
                    if level == CUSTOM:
                        continue
                    sel = levels == level
                    b = h.bounds[int(level)][nodes[sel]]
                    width[sel] = b[:, 1] - b[:, 0]
            else:
                values = table.numeric[name]
                kept = rc >= 0
                lo = np.full(C, np.nan)
                hi = np.full(C, np.nan)
                np.fmin.at(lo, rc[kept], values[kept])
                np.fmax.at(hi, rc[kept], values[kept])
                width = np.nan_to_num(hi - lo, nan=0.0)
            if custom.any():
                width[custom] = custom_widths(table, release, j, custom)
            out[:, j] = width / domain if domain > 0 else 0.0
        else:
            counts = np.zeros(C, dtype=np.float64)
            for level in np.unique(levels):
                if level == CUSTOM:
                    continue
                sel = levels == level
                counts[sel] = h.leaf_counts(int(level))[nodes[sel]]
            out[:, j] = np.where(levels == 0, 0.0, counts / h.n_leaves)
            if custom.any():
                size = custom_sizes(table, release, j, custom)
                out[custom, j] = np.where(size <= 1, 0.0, size / h.n_leaves)
    return out


def _one_level_ncp(table: Table, h: Hierarchy, j: int, level: int, nodes: np.ndarray) -> np.ndarray | float:
    """:func:`ncp_classes`'s column ``j`` when every class publishes a node of ``level`` (a numeric QI:
    one whose hierarchy has bounds): the node's interval width over the domain's, or its leaves over the
    hierarchy's (0 at the leaves)."""
    if table.qi[j] in table.numeric:
        domain = numeric_domain(table, j)
        b = h.bounds[level][nodes]  # type: ignore[index]
        return (b[:, 1] - b[:, 0]).astype(np.float64) / domain if domain > 0 else 0.0
    if level == 0:
        return 0.0
    return h.leaf_counts(level)[nodes].astype(np.float64) / h.n_leaves


def ncp_records(table: Table, release: Release, *, weights: Sequence[float] | None = None) -> np.ndarray:
    """NCP of every input record: Σ_A w_A·NCP_A of its class; a suppressed record is charged
    1 per attribute (Σ_A w_A). Weights default to 1."""
    d = len(table.qi)
    w = np.ones(d) if weights is None else np.asarray(weights, dtype=np.float64)
    per_class = ncp_classes(table, release) @ w if release.n_classes else np.zeros(0)
    rc = release.record_class
    out = np.full(table.n, float(w.sum()))
    kept = rc >= 0
    out[kept] = per_class[rc[kept]]
    return out


def gcp(table: Table, release: Release, *, include_suppressed: bool = True) -> float:
    """Global certainty penalty in ``[0, 1]`` (spec §2.1).

    ``include_suppressed=True``: Σ over all records of their NCP, suppressed records charged 1 per
    attribute, divided by ``d·n``. ``False``: the GCP of the released records only (divided by
    ``d·n_released``; NaN when nothing is released). The released records' sum is one figure for both
    (:func:`~anonkit.release.measured_once`: the summary's ``gcp`` and ``gcp_released`` share it).
    """
    d = len(table.qi)
    if d == 0:
        return 0.0
    # (the released records' NCP sum, the same for both variants: computed once per summary)
    released = measured_once(("gcp released sum",), (table, release), lambda: _released_ncp(table, release))
    if include_suppressed:
        return (released + release.n_suppressed * d) / (d * table.n_records)
    if release.n_released == 0:
        return float("nan")
    return released / (d * release.n_released)


def _released_ncp(table: Table, release: Release) -> float:
    """Σ over the released records of their NCP summed over the QIs (:func:`gcp`'s numerator)."""
    sizes = released_sizes(release).astype(np.float64)
    return float(sizes @ ncp_classes(table, release).sum(axis=1)) if release.n_classes else 0.0
