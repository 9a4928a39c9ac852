"""ARX's Loss (``MetricMDNMLoss``): the share of each attribute's domain the release leaves
open, with suppression charged by the gs-factor (ARX compatibility §2.4 and §2.9; spec §2.2).

:func:`loss_per_attribute` follows ARX's summation order, so a full-domain release scores the
doubles ARX reports; :func:`normalized_loss` is the per-attribute normalization it shares with the
lattice search's fast scorer (:mod:`anonkit.algorithms.lattice._score`). The conventions (gs
factors, rounding, weights, aggregation) are in :mod:`~anonkit.metrics.arx`; intervals and sets of
local recodings are measured with :mod:`~anonkit.metrics.coverage`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from anonkit.hierarchy import Hierarchy
from anonkit.metrics.arx import (
    Aggregate,
    aggregate_attributes,
    arx_round,
    gs_factors,
    one_level,
    seq_sum,
    transformation_levels,
    tuple_counts,
)
from anonkit.metrics.classes import released_sizes
from anonkit.metrics.coverage import custom_sizes, custom_widths, numeric_domain
from anonkit.release import CUSTOM, Release
from anonkit.table import Table


def normalized_loss(x: float, n: float, n_leaves: int, g_factor: float) -> float:
    """ARX's normalization of one QI's Loss sum ``x`` over ``n`` records (a hierarchy of
    ``n_leaves`` rows): ``max(0, (x − m)/(n − m))`` with ``m = gFactor·n/n_leaves`` (the sum when
    every record stays a leaf), 0 when ``n = m``, floored to 10 decimals (:func:`arx_round`)."""
    low = g_factor * n / n_leaves
    value = (x - low) / (n - low) if n != low else 0.0
    return arx_round(max(value, 0.0))


def _class_share(h: Hierarchy, levels: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """ARX domain share of each (level, node) pair (CUSTOM entries left at 0)."""
    out = np.zeros(len(levels), dtype=np.float64)
    for level in np.unique(levels):
        if level == CUSTOM:
            continue
        sel = levels == level
        out[sel] = h.domain_share(int(level))[nodes[sel]]
    return out


def _custom_share(table: Table, release: Release, j: int, sel: np.ndarray) -> np.ndarray:
    """Loss domain share of the CUSTOM values of QI ``j`` in the classes ``sel`` (see
    :func:`loss_per_attribute`)."""
    name = table.qi[j]
    nl = table.hierarchies[j].n_leaves
    if name in release.class_bounds:
        domain = numeric_domain(table, j)
        width = custom_widths(table, release, j, sel)
        share = width / domain if domain > 0 else np.zeros(len(width))
        return np.clip(share, 1.0 / nl, 1.0)
    return np.clip(custom_sizes(table, release, j, sel), 1.0, None) / nl


def loss_per_attribute(table: Table, release: Release, *, gs: float = 0.5) -> dict[str, float]:
    """ARX's Loss (``MetricMDNMLoss``) per quasi-identifier, normalized to ``[0, 1]``.

    Per QI: ``x = Σ_released share(node)·gFactor + Σ_suppressed (share + sFactor·(1 − share))``,
    share = #leaves below the node / #rows of the hierarchy (``DomainShareMaterialized``), a
    suppressed record's share taken at the transformation (the root for non-full-domain releases,
    which charges 1). Normalized ``max(0, (x − m)/(N − m))`` with ``m = gFactor·N/#rows``, floored
    to 10 decimals.

    CUSTOM values of local recodings: an interval's share is its width over the attribute's range
    (the NCP denominator, :func:`~anonkit.metrics.ncp_classes`), as ARX's ``DomainShareInterval`` measures
    intervals; it is floored at a leaf's share ``1/#rows`` (a one-value interval is the value
    itself, and no interval may cost less than publishing the value — the normalization above
    assumes shares ≥ ``1/#rows``) and capped at 1. A set's share is ``|set|/#rows`` (a
    materialized share, like a node's; one member = a leaf).
    """
    g_factor, s_factor = gs_factors(gs)
    n = float(table.n_records)
    sizes = released_sizes(release).astype(np.float64)
    # (no suppressed record: every tuple's count is 0, nothing is added; the records are not read)
    any_sup = release.n_suppressed > 0
    sup = tuple_counts(table, release.suppressed) if any_sup else None
    has_sup = None if sup is None else sup > 0
    t = transformation_levels(table, release)
    # every class at the transformation's levels: a class's share is its node's at that level, gathered
    # as _class_share gathers it level by level (the same doubles), without grouping the classes by level
    at = one_level(table, release)
    tuples = table.distinct.tuples
    out: dict[str, float] = {}
    for j, (name, h) in enumerate(zip(table.qi, table.hierarchies, strict=True)):
        x = 0.0
        if release.n_classes:
            if at is not None:
                share = h.domain_share(int(at[j]))[release.class_nodes[:, j]]
            else:
                share = _class_share(h, release.class_levels[:, j], release.class_nodes[:, j])
                custom = release.class_levels[:, j] == CUSTOM
                if custom.any():
                    share[custom] = _custom_share(table, release, j, custom)
            x += seq_sum(sizes * share * g_factor)
        if has_sup is not None and has_sup.any():
            cnt = sup[has_sup]
            if s_factor == 1.0 or t is None:
                x += seq_sum(cnt)
            else:
                s = cnt * h.domain_share(int(t[j]))[h.maps[t[j]][tuples[has_sup, j]]]
                x += seq_sum(s + s_factor * (cnt - s))
        out[name] = normalized_loss(x, n, h.n_leaves, g_factor)
    return out


def loss(
    table: Table,
    release: Release,
    *,
    gs: float = 0.5,
    aggregate: Aggregate = "geometric",
    weights: Mapping[str, float] | Sequence[float] | None = None,
) -> float | tuple[float, ...]:
    """ARX's Loss aggregated over the QIs (default: geometric mean, ARX's default; ``rank`` gives
    the descending vector of weighted values). See :func:`loss_per_attribute`."""
    values = loss_per_attribute(table, release, gs=gs)
    return aggregate_attributes(table, values, weights, aggregate)
