"""ARX's conventions shared by its quality models and the lattice scorer (ARX compatibility §2.4, §2.9).

The ARX quality models (Loss, non-uniform entropy, DM, DM*, AECS, Precision, Height; in
:mod:`~anonkit.metrics.loss`, :mod:`~anonkit.metrics.entropy`, :mod:`~anonkit.metrics.classes`
and :mod:`~anonkit.metrics.precision`) follow ARX's implementation
(``org.deidentifier.arx.metric.v2``) so that a full-domain release scores what ARX reports for the
same transformation. This module holds what they have in common:

* the gs-factor ``g`` gives ``gFactor = 1 if g ≤ 0.5 else 1 − 2(g − 0.5)`` and
  ``sFactor = 2g if g < 0.5 else 1`` (:func:`gs_factors`);
* per-attribute Loss and entropy values are floored to 10 decimals (ARX's ``Metric.round``,
  :func:`arx_round`);
* ``N`` is the number of input records (suppressed ones included);
* attribute weights default to the schema's (0.5 each) and are normalized by the largest
  (:func:`attribute_weights`); per-attribute values are combined as ARX's aggregate functions do
  (:func:`aggregate_values`).

Full-domain releases (``release.transformation`` set) are scored exactly as ARX does: a suppressed
record still counts with the node it had at the transformation (:func:`effective_levels`). For
other releases (local recoding) each released record counts with its own class's node and a
suppressed record as fully generalized (the hierarchy root); each measure's docstring says what
that means for it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np

from anonkit._kernels import first_rows, tiered
from anonkit.errors import InputError
from anonkit.release import MEASURE_ROWS_UP_TO, Release, measured_once
from anonkit.stats import table_memo, tuples_in_first_appearance
from anonkit.table import Table

Aggregate = Literal["sum", "max", "arithmetic", "geometric", "rank"]
AGGREGATES: tuple[str, ...] = ("sum", "max", "arithmetic", "geometric", "rank")


def gs_factors(gs: float) -> tuple[float, float]:
    """ARX's ``(gFactor, sFactor)`` for a generalization/suppression factor ``gs`` in ``[0, 1]``."""
    gs = float(gs)
    if not 0.0 <= gs <= 1.0:
        raise InputError(f"gs must lie in [0, 1], got {gs!r}", key="gs")
    s_factor = 2.0 * gs if gs < 0.5 else 1.0
    g_factor = 1.0 if gs <= 0.5 else 1.0 - 2.0 * (gs - 0.5)
    return g_factor, s_factor


def arx_round(value: float) -> float:
    """ARX's ``Metric.round``: keep 10 decimals, rounding down (``floor(x·10¹⁰)/10¹⁰``)."""
    return math.floor(value * 1e10) / 1e10


def seq_sum(values: np.ndarray) -> float:
    """Left-to-right sum (what a Java ``for`` loop does), not numpy's pairwise sum."""
    values = np.asarray(values, dtype=np.float64)
    return float(np.cumsum(values)[-1]) if values.size else 0.0


def attribute_weights(table: Table, weights: Mapping[str, float] | Sequence[float] | None = None) -> np.ndarray:
    """QI weights normalized by the largest (ARX); all 1 when every weight is 0.

    ``weights`` maps QI names to weights (missing ones default to the schema's weight) or lists
    one weight per QI; ``None`` takes the schema's weights (0.5 each unless configured).
    """
    d = len(table.qi)
    if weights is None:
        w = np.array([float(table.schema[q].weight) for q in table.qi], dtype=np.float64)
    elif isinstance(weights, Mapping):
        unknown = [k for k in weights if k not in table.qi]
        if unknown:
            raise InputError(f"weight given for {unknown[0]!r}, which is not a quasi-identifier", key="weights")
        w = np.array([float(weights.get(q, table.schema[q].weight)) for q in table.qi], dtype=np.float64)
    else:
        w = np.asarray(list(weights), dtype=np.float64)
        if w.shape != (d,):
            raise InputError(f"weights must list {d} values, one per quasi-identifier", key="weights")
    if (w < 0).any():
        raise InputError("weights must not be negative", key="weights")
    top = float(w.max()) if d else 0.0
    return np.ones(d) if top == 0.0 else w / top


def aggregate_values(values: Sequence[float], weights: Sequence[float], aggregate: str) -> float | tuple[float, ...]:
    """Combine per-attribute values as ARX's ``AggregateFunction`` does.

    * ``sum``: Σ vᵢ·wᵢ; ``max``: max vᵢ·wᵢ (at least 0); ``arithmetic``: Σ (vᵢ/n)·wᵢ;
    * ``geometric``: Π ((vᵢ + 1)·wᵢ)^{1/n} − 1 — as ARX's ``ILMultiDimensionalGeometricMean``
      implements it (the weight multiplies ``vᵢ + 1``; with equal weights, the default, this is
      the same as Π (vᵢ·wᵢ + 1)^{1/n} − 1);
    * ``rank``: the vector of vᵢ·wᵢ sorted in descending order, compared lexicographically — ARX's
      ``ILMultiDimensionalRank`` (``compareTo`` compares the sorted vectors component by component
      with ``Double.compare``; ``toString`` prints them with ``Arrays.toString``).

    ``weights`` are the QI weights normalized by the largest (:func:`attribute_weights`, as ARX's
    ``AbstractMetricMultiDimensional.initializeInternal``). They change the rank optimum, not only
    its values: half of ARX's TestUtilityMetricsLoss cases set ``setAttributeWeight(column i, i + 1)``.
    """
    v = [float(x) for x in values]
    w = [float(x) for x in weights]
    n = len(v)
    if aggregate == "sum":
        total = 0.0
        for x, y in zip(v, w, strict=True):
            total += x * y
        return total if math.isfinite(total) else float(np.finfo(np.float64).max)
    if aggregate == "max":
        best = 0.0
        for x, y in zip(v, w, strict=True):
            best = max(best, x * y)
        return best
    if aggregate == "arithmetic":
        total = 0.0
        for x, y in zip(v, w, strict=True):
            total += (x / n) * y
        return total
    if aggregate == "geometric":
        prod = 1.0
        for x, y in zip(v, w, strict=True):
            prod *= math.pow((x + 1.0) * y, 1.0 / n)
        return prod - 1.0 if n else 0.0
    if aggregate == "rank":
        return tuple(sorted((x * y for x, y in zip(v, w, strict=True)), reverse=True))
    raise InputError(f"unknown aggregate {aggregate!r}; allowed: {', '.join(AGGREGATES)}", key="aggregate")


def aggregate_attributes(
    table: Table,
    values: Mapping[str, float],
    weights: Mapping[str, float] | Sequence[float] | None,
    aggregate: str,
) -> float | tuple[float, ...]:
    """:func:`aggregate_values` of per-QI ``values`` (in QI order) with the normalized
    :func:`attribute_weights` of ``weights``: what :func:`~anonkit.metrics.loss`,
    :func:`~anonkit.metrics.entropy` and :func:`~anonkit.metrics.precision` report."""
    return aggregate_values(list(values.values()), attribute_weights(table, weights), aggregate)


def transformation_levels(table: Table, release: Release) -> np.ndarray | None:
    """The full-domain levels of ``release`` (input QI order), or None for other releases."""
    if release.transformation is None:
        return None
    return np.array([int(release.transformation[q]) for q in table.qi], dtype=np.int64)


def effective_levels(table: Table, release: Release) -> np.ndarray:
    """``(n × d)`` level of every record: its class's, or for a suppressed record the
    transformation's (full-domain) or the hierarchy height (otherwise)."""
    levels = release.record_levels()
    t = transformation_levels(table, release)
    if t is not None:
        levels[release.suppressed] = t
    return levels


def leaf_tally(table: Table, j: int) -> tuple[np.ndarray, np.ndarray]:
    """QI ``j``'s records per leaf (weighted by :attr:`Table.weights`, as floats: whole numbers, so
    exact) and each leaf's rank of first appearance (−1: absent), suppressed records included: the
    ``j``-th of :func:`leaf_tallies`, shared inside :func:`~anonkit.release.measuring` by every measure
    that reads a full-domain release through its leaves (the entropy, the published texts). The rank
    orders the leaves as their first records do (its only use: the entropy's sums run over the leaves
    in that order); it is the first record, or the first distinct tuple where :func:`leaf_tallies`
    counts the tuples."""
    return leaf_tallies(table)[j]


def leaf_tallies(table: Table) -> list[tuple[np.ndarray, np.ndarray]]:
    """:func:`leaf_tally` of every quasi-identifier, in one pass over the records for all of them
    (:func:`_leaf_tallies`) or, when the table's distinct tuples are numbered in order of their first
    record (:func:`tuple_tallies_apply`), over the distinct tuples (:func:`_tuple_tallies`: fewer rows),
    computed once per summary and kept with the encoded table (:func:`~anonkit.stats.table_memo`: a
    function of its codes and weights alone, read-only)."""
    key = ("leaf_tallies",)
    return measured_once(key, (table,), lambda: table_memo(
        table, key, lambda: _tuple_tallies(table) if tuple_tallies_apply(table) else _leaf_tallies(table)))


def tuple_tallies_apply(table: Table) -> bool:
    """Whether :func:`_tuple_tallies` gives :func:`_leaf_tallies`' counts and leaf order: every row one
    record (no :attr:`Table.weights`: the tuples' counts are whole numbers of records, summed exactly),
    and the distinct tuples numbered in order of their first record — asked as
    :meth:`Release.counted <anonkit.release.Release.counted>` asks it, under its key, on a table it
    measures (at most :data:`~anonkit.release.MEASURE_ROWS_UP_TO` rows), so a run reads its answer
    instead of another pass; a larger table keeps the pass over its records."""
    if table.weights is not None or not table.qi or table.n > MEASURE_ROWS_UP_TO or "distinct" not in table.__dict__:
        return False
    return tuples_in_first_appearance(table)


def _tuple_tallies(table: Table) -> list[tuple[np.ndarray, np.ndarray]]:
    """:func:`_leaf_tallies` over the distinct tuples (:attr:`Table.distinct`), each weighted by its
    records, for a table :func:`tuple_tallies_apply` to. Why the same figures: a leaf's records are the
    sum of its tuples' counts (whole numbers: every sum exact, in any order); its first record is the
    first record of the first tuple holding it (a tuple numbered earlier starts earlier), so the leaves
    ranked by their first tuple are ranked as by their first record, and a leaf is absent (−1) from both
    alike. The rank is the tuple's number, not the record's (:func:`leaf_tally`)."""
    d = table.distinct
    return _tallies(table, np.ascontiguousarray(d.tuples), np.asarray(d.counts, dtype=np.float64))


def _leaf_tallies(table: Table) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every QI's ``(records per leaf, first record per leaf)``: on the kernel tier one pass over the
    ``n × d`` codes for all QIs (:func:`_tally_kernel`), on the numpy tier a ``bincount`` and a
    :func:`~anonkit._kernels.first_rows` per QI (:func:`_tally_np`); both add each leaf's weights in
    record order and give the same arrays (:func:`~anonkit._kernels.tiered`). A code outside its
    hierarchy's leaves (never in an encoded table) stops the kernel and is left to the per-column
    numpy code, which refuses it as it always did."""
    weights = np.zeros(0) if table.weights is None else np.asarray(table.weights, dtype=np.float64)
    return _tallies(table, table.codes, weights)


def _tallies(table: Table, codes: np.ndarray, weights: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every QI's ``(rows per leaf weighted by weights, first row per leaf)`` of the ``codes`` rows
    (:func:`_leaf_tallies`: the records; :func:`_tuple_tallies`: the distinct tuples), read-only."""
    nls = np.array([h.n_leaves for h in table.hierarchies], dtype=np.int64)
    counts, first, ok = tiered(_tally_kernel, _tally_np, codes, weights, nls)
    if not ok:
        w = weights if len(weights) else None
        return [_tally_column(codes[:, j], w, int(nl)) for j, nl in enumerate(nls)]
    out = []
    for j, nl in enumerate(nls):
        a, f = counts[j, :nl].copy(), first[j, :nl].copy()
        a.flags.writeable = f.flags.writeable = False
        out.append((a, f))
    return out


def _tally_column(codes: np.ndarray, weights: np.ndarray | None, nl: int) -> tuple[np.ndarray, np.ndarray]:
    """One QI's records per leaf and first record per leaf (read-only)."""
    a = np.bincount(codes, weights=weights, minlength=nl).astype(np.float64)
    first = first_rows(codes, nl)
    a.flags.writeable = first.flags.writeable = False
    return a, first


def _tally_np(codes: np.ndarray, weights: np.ndarray, nls: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """:func:`_tally_kernel` in numpy: per QI a ``bincount`` (weights added in record order) and the
    first rows (a code outside its hierarchy's leaves is refused by :func:`~anonkit._kernels.first_rows`)."""
    d = len(nls)
    width = int(nls.max()) if d else 0
    counts = np.zeros((d, width), dtype=np.float64)
    first = np.full((d, width), -1, dtype=np.int64)
    for j in range(d):
        nl = int(nls[j])
        counts[j, :nl], first[j, :nl] = _tally_column(codes[:, j], weights if len(weights) else None, nl)
    return counts, first, True


def _tally_kernel(codes: np.ndarray, weights: np.ndarray, nls: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Records per leaf (each record's weight added in record order; 1 each without ``weights``) and
    each leaf's first record, of every QI, in one pass over the ``n × d`` codes (compiled by numba:
    :func:`~anonkit._kernels.tiered`). ``ok`` false, and the pass stopped, at a code outside
    ``[0, nls[j])``: nothing is written outside the arrays."""
    n, d = codes.shape
    width = 0
    for j in range(d):
        width = max(width, nls[j])
    counts = np.zeros((d, width), dtype=np.float64)
    first = np.full((d, width), -1, dtype=np.int64)
    weighted = weights.shape[0] > 0
    for i in range(n):
        w = weights[i] if weighted else 1.0
        for j in range(d):
            c = codes[i, j]
            if c < 0 or c >= nls[j]:
                return counts, first, False
            counts[j, c] += w
            if first[j, c] < 0:
                first[j, c] = i
    return counts, first, True


def one_level(table: Table, release: Release) -> np.ndarray | None:
    """The transformation's levels when ``release`` is a full-domain one whose every class sits at
    them (a record's published node is then its leaf's ancestor at that level, whatever its class:
    measures can count leaves instead of records, and Loss and NCP gather every class's node at that
    level at once); None otherwise, and for a release that is not :attr:`~anonkit.release.Release.truthful`.
    Answered once per summary and release (:func:`~anonkit.release.measured_once`: the measures ask it
    per quasi-identifier; the release does not change while measured), read-only."""
    return measured_once(("one_level",), (table, release), lambda: _one_level(table, release))


def _one_level(table: Table, release: Release) -> np.ndarray | None:
    """:func:`one_level` computed: a function of the release's levels and truthfulness alone."""
    if not release.truthful:  # a perturbed or synthetic record's class is not its leaf's ancestor
        return None
    t = transformation_levels(table, release)
    if t is None or not bool((release.class_levels == t).all()):
        return None
    t.flags.writeable = False
    return t


def tuple_counts(table: Table, mask: np.ndarray) -> np.ndarray:
    """Records selected by ``mask`` per distinct QI tuple."""
    d = table.distinct
    w = None if table.weights is None else table.weights[mask]
    return np.bincount(d.inverse[mask], weights=w, minlength=d.size).astype(np.float64)
