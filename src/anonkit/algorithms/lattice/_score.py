"""Fast scores and lower bounds of lattice nodes, on distinct tuples.

The search ranks nodes by ARX's quality models (ARX compatibility §2.4). Two things per node:

* a **lower bound** that depends on the levels only (no classes needed), valid whatever gets
  suppressed: Loss charges a suppressed record at least what a generalized one costs
  (``share + sFactor·(1 − share) ≥ gFactor·share``), so the loss without suppression bounds it
  from below; the main term of non-uniform entropy is level-only and the suppression term is
  ≥ 0; monotonic entropy, monotonic precision and height are level-only and exact; DM, DM* and
  AECS have no level-only bound (−∞).
* the **exact score** from a node evaluation, vectorized over the distinct tuples.

The reported score of the final optimum is recomputed with :func:`anonkit.metrics.score`, which
follows ARX's summation order to the last bit; the fast scores here may differ in the last ulp,
which only matters for ties closer than 10⁻¹⁰ (documented tie rule: then the lower, then the
lexicographically smaller transformation wins).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from anonkit.algorithms.transform import NodeEvaluation
from anonkit.metrics import SearchMetric, aggregate_values, arx_round, attribute_weights, gs_factors
from anonkit.metrics.loss import normalized_loss
from anonkit.metrics.payout import PAYOUT, node_payout
from anonkit.metrics.quality import QUALITY_MODELS, node_quality
from anonkit.stats import table_memo
from anonkit.table import Table

NEG_INF = float("-inf")


def _frozen(values: np.ndarray) -> np.ndarray:
    values.flags.writeable = False
    return values


class NodeScorer:
    """Scores and bounds of full-domain nodes for one table and one search metric."""

    def __init__(self, table: Table, metric: SearchMetric, max_suppression: float) -> None:
        self.table = table
        self.metric = metric
        self.g, self.s = gs_factors(metric.gs)
        self.weights = attribute_weights(table)
        d = table.distinct
        self.n = float(table.n_records)
        pre = np.zeros(d.size, dtype=bool)
        if table.presuppressed.any():
            pre[d.inverse[table.presuppressed]] = True
        self.pre = pre
        self.counts = d.counts
        self.heights = np.array(table.heights, dtype=np.int64)
        name = metric.name
        # level-only tables, one array per QI indexed by level: Loss without suppression per level,
        # −Σ_v a_v log2(a_v/b) per level (bits, ≥ 0); the same for every search of this table under this
        # metric (the queries on one encoded input): built once (the tuples' shares per level, which only
        # the scoring of tuples reads, on first use: :attr:`_share`)
        self._loss_bound, self._ent_main = table_memo(
            table, ("scorer-levels", metric.name, self.g, self.n), self._level_tables)
        #: the score never decreases under generalization for this setting (so only minimal
        #: anonymous nodes can be optimal when the models are monotonic too)
        level_only = name == "height" or (name in ("entropy", "precision") and metric.monotonic)
        # (records suppressed up front for missing values make suppression-aware metrics
        # non-monotone even without a suppression limit)
        self.monotone = level_only or name == "dm*" or (max_suppression == 0.0 and not pre.any() and name != PAYOUT)
        #: the lower bound equals the exact score
        self.exact_bound = level_only

    def _level_tables(self) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """The scorer's level-only tables (see :meth:`__init__`), read-only.

        Loss's level sums ``Σ_t count_t · share(level, leaf_t)`` are taken one level at a time in one
        buffer of the distinct tuples' size, reused: the gather writes each tuple's share into it, the
        product overwrites it, and its pairwise sum is numpy's sum of that row of the ``(levels × tuples)``
        product (a contiguous row of a 2-D array is summed as the same 1-D array is: the same bits,
        ``tests/test_fresh_search_paths.py``). No ``(levels × tuples)`` array is made: on a new table
        making them (and their fresh pages) cost twice the arithmetic."""
        table, name, d = self.table, self.metric.name, self.table.distinct
        loss_bound: list[np.ndarray] = []
        ent_main: list[np.ndarray] = []
        buf = np.empty(d.size, dtype=np.float64) if name == "loss" else None
        constant: dict[float, np.floating] = {}  # the sums of uniform levels, shared by all QIs of this call
        for j, h in enumerate(table.hierarchies):
            col = d.columns[j]
            if buf is not None:
                sums = loss_level_sums(self.counts, col, h, buf, constant)
                loss_bound.append(_frozen(np.array([normalized_loss(self.g * float(x), self.n, h.n_leaves, self.g)
                                                    for x in sums])))
            if name == "entropy":
                a = np.bincount(col, weights=self.counts, minlength=h.n_leaves)
                present = a > 0
                vals = []
                for level in range(h.height + 1):
                    b = np.bincount(h.maps[level], weights=a, minlength=h.size(level))[h.maps[level]]
                    vals.append(float(-(a[present] * (np.log(a[present] / b[present]) / math.log(2.0))).sum()))
                ent_main.append(_frozen(np.array(vals)))
        return loss_bound, ent_main

    def level_key(self) -> tuple:
        """The level tables and heights :meth:`lower_bound_table` reads, by value (the bounds' memo key,
        beside the metric's settings and weights: :meth:`~anonkit.algorithms.lattice._search.Search._bounds_key`)."""
        return (tuple(a.tobytes() for a in self._loss_bound), tuple(a.tobytes() for a in self._ent_main),
                tuple(self.heights.tolist()), np.array([self.g, self.s], dtype=np.float64).tobytes(),
                np.asarray(self.weights, dtype=np.float64).tobytes())  # (floats by their bits: −0.0 is not 0.0)

    @property
    def _share(self) -> list[list[np.ndarray]]:
        """Per QI and level the domain share of every distinct tuple's value (read-only rows), for Loss's
        score of a node from its tuples (:meth:`exact` without class codes); kept per table on first use."""
        return table_memo(self.table, ("scorer-shares",), self._tuple_shares)

    def _tuple_shares(self) -> list[list[np.ndarray]]:
        d = self.table.distinct
        out = []
        for j, h in enumerate(self.table.hierarchies):
            # each leaf's share per level looked up once, then one gather over the distinct tuples for all levels
            lut = np.stack([h.domain_share(level)[h.maps[level]] for level in range(h.height + 1)])
            shares = np.take(lut, d.columns[j], axis=1)  # (a fancy index on axis 1 is 3× slower)
            shares.flags.writeable = False
            out.append(list(shares))
        return out

    @functools.cached_property
    def _share_lookup(self) -> tuple[np.ndarray, list[list[int]]]:
        """Every QI's :meth:`~anonkit.hierarchy.Hierarchy.domain_share` at every level in one float64 array
        (its values copied: the same doubles), and where QI ``j``'s level ``lv`` starts in it
        (``at[j][lv]``): a node's shares of all QIs are then one gather (:meth:`_class_losses`). Built once
        per scorer from the hierarchies alone (a few hundred values on Adult)."""
        blocks: list[np.ndarray] = []
        at: list[list[int]] = []
        start = 0
        for h in self.table.hierarchies:
            row = []
            for level in range(h.height + 1):
                share = h.domain_share(level)
                row.append(start)
                blocks.append(share)
                start += len(share)
            at.append(row)
        flat = np.concatenate(blocks).astype(np.float64, copy=False) if blocks else np.zeros(0)
        return flat, at

    # ------------------------------------------------------------------ helpers
    def _aggregate(self, values: list[float], how: str) -> float | tuple[float, ...]:
        return aggregate_values(values, self.weights, how)

    def _loss(self, j: int, share: np.ndarray, kept: np.ndarray, sup: np.ndarray | None, n_sup: float) -> float:
        """ARX's Loss of QI ``j`` (``MetricMDNMLoss``) from rows (distinct tuples or classes) with
        domain shares ``share`` holding ``kept`` released and ``sup`` suppressed records (``n_sup``
        in all): ``gFactor·Σ kept·share + Σ sup·(share + sFactor·(1 − share))``, normalized as
        :func:`~anonkit.metrics.loss.normalized_loss`. Without suppression (``n_sup = 0``) the sum
        is the level's lower bound. Numpy's pairwise sums, not ARX's order: see the module
        docstring."""
        x = self.g * float((kept * share).sum())
        if n_sup:
            x += float((sup * (share + self.s * (1.0 - share))).sum())
        return normalized_loss(x, self.n, self.table.hierarchies[j].n_leaves, self.g)

    def _class_losses(self, levels: tuple[int, ...], codes: np.ndarray, kept: np.ndarray, sup: np.ndarray,
                      n_sup: float) -> list[float]:
        """:meth:`_loss` of every QI on a node's classes (``codes``: ``(C × d)``), the sums of all QIs
        taken at once as the rows of one ``(d × C)`` array of shares: numpy sums each contiguous row
        pairwise as it sums a 1-D array, so every value is :meth:`_loss`'s own, bit for bit
        (``tests/test_s0_paths.py``), with 2 array operations per node instead of 2 per QI. The shares are
        gathered at once from :attr:`_share_lookup` (the same doubles as each level's ``domain_share``)
        into a C-ordered ``(d × C)`` array: contiguous rows, summed as before."""
        hs = self.table.hierarchies
        flat, at = self._share_lookup
        # row j: flat[at[j][lv] + codes[:, j]] = domain_share(lv)[codes[:, j]], the same doubles (one gather)
        offsets = np.array([at[j][lv] for j, lv in enumerate(levels)], dtype=np.int64)
        shares = flat.take(np.add(codes.T, offsets[:, None], order="C"))
        x = (kept * shares).sum(axis=1)
        extra = (sup * (shares + self.s * (1.0 - shares))).sum(axis=1) if n_sup else None
        out = []
        for j in range(len(levels)):
            v = self.g * float(x[j])
            if extra is not None:
                v += float(extra[j])
            out.append(normalized_loss(v, self.n, hs[j].n_leaves, self.g))
        return out

    # ------------------------------------------------------------------ bounds
    def lower_bound(self, levels: tuple[int, ...] | np.ndarray) -> float | tuple[float, ...]:
        """A value no transformation at ``levels`` can score below, from the levels alone."""
        name, g = self.metric.name, self.g
        if name == "height":
            return float(sum(int(x) for x in levels))
        if name == "loss":
            vals = [float(self._loss_bound[j][lv]) for j, lv in enumerate(levels)]
            return self._aggregate(vals, self.metric.aggregate)
        if name == "entropy":
            vals = [arx_round(float(self._ent_main[j][lv]) * g) for j, lv in enumerate(levels)]
            return self._aggregate(vals, "sum")
        if name == "precision":
            vals = []
            for j, lv in enumerate(levels):
                frac = float(lv) / self.heights[j] if self.heights[j] else 0.0
                vals.append(frac * g if self.metric.monotonic else min(frac * g, self.s) if self.heights[j] else 0.0)
            return self._aggregate(vals, "arithmetic")
        return NEG_INF

    def lower_bounds(self, levels: np.ndarray) -> list[float | tuple[float, ...]]:
        return [self.lower_bound(row) for row in levels]

    def lower_bound_table(self, levels: np.ndarray) -> np.ndarray:
        """:meth:`lower_bound` of every row of the ``(N × d)`` level matrix at once, with the same
        floating-point operations in the same order (so the same values): an ``(N,)`` array, or for
        the ``rank`` aggregate an ``(N × d)`` array of the sorted vectors."""
        name, g = self.metric.name, self.g
        levels = np.asarray(levels, dtype=np.int64)
        n_rows = levels.shape[0]
        if name == "height":
            return levels.sum(axis=1).astype(np.float64)
        if name == "loss":
            cols = [self._loss_bound[j][levels[:, j]] for j in range(levels.shape[1])]
            return _aggregate_columns(cols, self.weights, self.metric.aggregate, n_rows)
        if name == "entropy":
            cols = [np.floor(self._ent_main[j][levels[:, j]] * g * 1e10) / 1e10 for j in range(levels.shape[1])]
            return _aggregate_columns(cols, self.weights, "sum", n_rows)
        if name == "precision":
            cols = []
            for j in range(levels.shape[1]):
                if self.heights[j]:
                    frac = levels[:, j].astype(np.float64) / float(self.heights[j])
                    cols.append(frac * g if self.metric.monotonic else np.minimum(frac * g, self.s))
                else:
                    cols.append(np.zeros(n_rows))
            return _aggregate_columns(cols, self.weights, "arithmetic", n_rows)
        return np.full(n_rows, NEG_INF)

    # ------------------------------------------------------------------ exact
    def exact(self, ev: NodeEvaluation) -> float | tuple[float, ...]:
        """The node's score with its failing classes suppressed (ARX's scoring of a node)."""
        if self.metric.name == PAYOUT:  # ARX's publisher payout (metrics/payout.py)
            return node_payout(self.table, ev.levels, ev.tuple_class, ev.class_ok, ev.class_sizes, self.metric)
        if self.metric.name in QUALITY_MODELS:  # ARX's single-dimensional models (metrics/quality.py)
            return node_quality(self.metric.name, self.table, ev.levels, ev.tuple_class, ev.class_ok, ev.class_sizes,
                                gs=self.metric.gs)
        if ev.class_codes is not None and not self.pre.any() and self.metric.name in ("loss", "entropy", "precision"):
            return self._exact_classes(ev)
        name, g, s = self.metric.name, self.g, self.s
        kept_tuple = ev.class_ok[ev.tuple_class] & ~self.pre
        kept_w = np.where(kept_tuple, self.counts, 0.0)
        sup_w = self.counts - kept_w
        n_sup = float(sup_w.sum())
        if name == "height":
            return float(sum(ev.levels))
        if name == "loss":
            vals = [self._loss(j, self._share[j][lv], kept_w, sup_w, n_sup) for j, lv in enumerate(ev.levels)]
            return self._aggregate(vals, self.metric.aggregate)
        if name == "entropy":
            vals = []
            for j, lv in enumerate(ev.levels):
                value = float(self._ent_main[j][lv]) * g
                if not self.metric.monotonic and n_sup:
                    h = self.table.hierarchies[j]
                    c = np.bincount(h.maps[lv][self.table.distinct.columns[j]], weights=sup_w, minlength=h.size(lv))
                    c = c[c > 0]
                    value += float(-(c * (np.log(c / n_sup) / math.log(2.0))).sum()) * s
                vals.append(arx_round(value))
            return self._aggregate(vals, "sum")
        if name == "precision":
            vals = []
            kept = self.n - n_sup
            for j, lv in enumerate(ev.levels):
                frac = float(lv) / self.heights[j] if self.heights[j] else 0.0
                vals.append(frac * g if self.metric.monotonic else (kept * frac * g + n_sup * s) / self.n)
            return self._aggregate(vals, "arithmetic")
        sizes = ev.class_sizes
        if name == "dm*":
            if not self.pre.any():
                return float((sizes * sizes).sum())
            # suppressed records form groups by their generalized codes, pre-suppressed ones included
            kept_sizes = np.where(ev.class_ok, sizes, 0.0)
            sup_by_class = np.bincount(ev.tuple_class, weights=sup_w, minlength=ev.n_classes)
            return float((kept_sizes * kept_sizes).sum() + (sup_by_class * sup_by_class).sum())
        kept_sizes = sizes[ev.class_ok]
        if name == "dm":
            return float((kept_sizes * kept_sizes).sum() + self.n * n_sup)
        # aecs
        groups = float(np.count_nonzero(kept_sizes)) * s + (g if n_sup else 0.0)
        return self.n / groups if groups > 0 else float("inf")

    def _exact_classes(self, ev: NodeEvaluation) -> float | tuple[float, ...]:
        """:meth:`exact` on the classes (far fewer than tuples), for Loss, entropy and precision."""
        name, g, s = self.metric.name, self.g, self.s
        sizes = ev.class_sizes
        ok = ev.class_ok
        kept = np.where(ok, sizes, 0.0)
        sup = sizes - kept
        n_sup = float(sup.sum())
        codes = ev.class_codes
        assert codes is not None
        vals = []
        if name == "loss":
            return self._aggregate(self._class_losses(ev.levels, codes, kept, sup, n_sup), self.metric.aggregate)
        if name == "entropy":
            for j, lv in enumerate(ev.levels):
                value = float(self._ent_main[j][lv]) * g
                if not self.metric.monotonic and n_sup:
                    c = np.bincount(codes[:, j], weights=sup, minlength=self.table.hierarchies[j].size(lv))
                    c = c[c > 0]
                    value += float(-(c * (np.log(c / n_sup) / math.log(2.0))).sum()) * s
                vals.append(arx_round(value))
            return self._aggregate(vals, "sum")
        keep_n = self.n - n_sup
        for j, lv in enumerate(ev.levels):
            frac = float(lv) / self.heights[j] if self.heights[j] else 0.0
            vals.append(frac * g if self.metric.monotonic else (keep_n * frac * g + n_sup * s) / self.n)
        return self._aggregate(vals, "arithmetic")


def loss_level_sums(counts: np.ndarray, col: np.ndarray, h: object, buf: np.ndarray,
                    constant: dict[float, np.floating] | None = None) -> list[np.floating]:
    """``Σ_t counts[t] · share(level, col[t])`` for every level of hierarchy ``h`` (Loss without suppression),
    each summed as numpy sums the level's row of the ``(levels × tuples)`` product (pairwise, the same bits),
    in ``buf`` (one float64 per tuple), reused level after level for the products.

    A *uniform* level, where every leaf's node has the same share ``c > 0`` (a root, and levels of equal-width
    groups: 16 of Adult's 24 levels), needs no gather: the gathered row would be ``c`` in every slot, so
    ``counts · c`` is the same products, summed in the same order — the same bits, whichever column ``col``
    is. So it is the same sum for every QI with that share, and ``constant`` (one caller's, over the QIs of
    one table: never kept across tables) holds it per share once summed. (``c > 0``: equal positive doubles
    have equal bits, so the row is ``c``'s bits everywhere.)"""
    sums: list[np.floating] = []
    memo: dict[float, np.floating] = {} if constant is None else constant
    for level in range(h.height + 1):  # type: ignore[attr-defined]
        lut = h.domain_share(level)[h.maps[level]]  # type: ignore[attr-defined]
        c = float(lut[0]) if lut.size else 0.0
        if c > 0.0 and bool((lut == c).all()):
            hit = memo.get(c)
            if hit is None:
                np.multiply(counts, c, out=buf)
                hit = memo[c] = buf.sum()
            sums.append(hit)
            continue
        # (the gather into a new array: numpy's ``take`` into ``out`` with int32 indices costs twice as much)
        np.multiply(counts, lut.take(col), out=buf)
        sums.append(buf.sum())
    return sums


def _aggregate_columns(cols: list[np.ndarray], weights: np.ndarray, how: str, n_rows: int) -> np.ndarray:
    """:func:`~anonkit.metrics.aggregate_values` applied to every row of the columns ``cols`` (one
    array per attribute), operation for operation."""
    w = [float(x) for x in weights]
    n = len(cols)
    if how == "sum":
        total = np.zeros(n_rows)
        for x, y in zip(cols, w, strict=True):
            total = total + x * y
        return np.where(np.isfinite(total), total, float(np.finfo(np.float64).max))
    if how == "max":
        best = np.zeros(n_rows)
        for x, y in zip(cols, w, strict=True):
            best = np.maximum(best, x * y)
        return best
    if how == "arithmetic":
        total = np.zeros(n_rows)
        for x, y in zip(cols, w, strict=True):
            total = total + (x / n) * y
        return total
    if how == "geometric":
        if not n:
            return np.zeros(n_rows)
        prod = np.ones(n_rows)
        for x, y in zip(cols, w, strict=True):
            prod = prod * np.power((x + 1.0) * y, 1.0 / n)
        return prod - 1.0
    if how == "rank":
        if not n:
            return np.zeros((n_rows, 0))
        return -np.sort(-np.stack([x * y for x, y in zip(cols, w, strict=True)], axis=1), axis=1)
    return np.asarray([aggregate_values([float(c[i]) for c in cols], w, how) for i in range(n_rows)])
