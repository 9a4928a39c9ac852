"""Evaluate one full-domain transformation: classes, models, suppression (ARX compatibility §2.3).

This is the end-to-end path every lattice algorithm reuses: generalize each quasi-identifier to its
level through the hierarchy lookup arrays (on the distinct tuples, not the records), compute the
classes and their statistics, judge them with every model, and suppress the failing classes whole.
A node is *anonymous* when the suppressed records stay within ``⌊max_suppression · n⌋``.

Anonymity requirements on quasi-identifier subsets (``KAnonymity(k, attributes=…)``) are judged on
the classes of that subset over the records still released; suppressing a failing subset class can
shrink another subset class below its bound, so the suppression is iterated to a fixpoint.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from anonkit._kernels import CHUNK_ROWS
from anonkit.algorithms._node_kernels import (
    fused_models,
    fused_plan,
    judge_fused,
    judge_sizes,
    monotone_flags,
    sizes_plan,
)
from anonkit.algorithms.common import suppression_limit, suppression_verdict
from anonkit.algorithms.rollup import RollupCache
from anonkit.metrics import SearchMetric
from anonkit.metrics.arx import attribute_weights, gs_factors
from anonkit.models import Criterion
from anonkit.models.risk_criteria import enforce_release
from anonkit.release import Release, full_domain_release
from anonkit.stats import ClassStats, class_stats_for
from anonkit.table import Table
from anonkit.verifier import register_estimators

register_estimators()  # the population-uniqueness estimator the whole-release models call


@dataclass
class NodeEvaluation:
    """The outcome of one transformation."""

    levels: tuple[int, ...]
    #: class of every distinct tuple (:attr:`tuple_class`), or what makes it on first use: a search
    #: checks hundreds of nodes and needs it of the one it releases only
    tuples: np.ndarray | Callable[[], np.ndarray]
    n_classes: int
    class_ok: np.ndarray  # per class: released (True) or suppressed (False)
    class_sizes: np.ndarray
    suppressed: int  # records suppressed because their class failed
    limit: int
    anonymous: bool
    #: records the ``monotone`` models alone would suppress (see :func:`evaluate_node`)
    monotone_suppressed: int = 0
    #: ``(C × d)`` node code of every QI per class, when known (roll-up cache)
    class_codes: np.ndarray | None = None
    #: whether every model was judged; ``False``: stopped once settled as failing (``settle`` in
    #: :func:`evaluate_node`), ``class_ok`` and ``suppressed`` then cover the models judged so far
    complete: bool = True

    @property
    def tuple_class(self) -> np.ndarray:
        """The class of every distinct tuple."""
        if callable(self.tuples):
            self.tuples = self.tuples()
        return self.tuples


def presuppressed_weight(table: Table) -> np.ndarray:
    """Tuple counts with the tuples of records suppressed up front (missing values) set to 0."""
    d = table.distinct
    if not table.presuppressed.any():
        return d.counts
    tuple_pre = np.zeros(d.size, dtype=bool)
    tuple_pre[d.inverse[table.presuppressed]] = True
    return np.where(tuple_pre, 0.0, d.counts)


def evaluate_node(
    table: Table,
    levels: list[int] | tuple[int, ...] | np.ndarray,
    models: list[Criterion],
    max_suppression: float | None = None,
    *,
    limit: int | None = None,
    monotone: Callable[[Criterion], bool] | None = None,
    cache: RollupCache | None = None,
    metric: SearchMetric | None = None,
    settle: bool = False,
    plan: ModelPlan | None = None,
) -> NodeEvaluation:
    """Classes of the transformation ``levels`` and which of them survive the models.

    The node is anonymous when the suppressed records stay within ``limit`` records, or within
    ``⌊max_suppression · n⌋`` when the limit is given as a share (give exactly one).

    With ``monotone``, the models it selects are applied first and the records they alone would
    suppress are reported as ``monotone_suppressed`` (a lattice search infers from it).

    ``metric`` is the search's quality model: the whole-release models break ties between classes
    of equal size by it, as ARX does (:func:`release_order`); ``None`` orders them by first record.

    With ``settle``, the evaluation stops as soon as the node is settled as failing: once the classes
    failed so far hold more records than the limit, no later model can bring them back (every model
    only ever suppresses), so the node is not anonymous whatever the rest say — ARX's check stops there
    too. Such an evaluation is marked ``complete=False``: its ``class_ok`` and ``suppressed`` cover the
    models judged so far (``suppressed`` and ``monotone_suppressed`` are then lower bounds above the
    limit, so a search's verdicts, by both, are those of the whole evaluation). A search that reads a
    failing node's classes (lightning ranks them) asks for the whole one.

    ``plan``: :func:`model_plan` of ``models`` and ``monotone``, when the caller (a search, at every node)
    computed it once: everything the evaluation derives from the models alone (the judging order, the flags…).
    """
    levels = tuple(map(int, levels))
    d = table.distinct
    weight = d.counts
    if cache is not None:
        node = cache.classes(levels)
        n_classes, stats, codes = node.n_classes, node.stats, node.codes
        tc: np.ndarray | Callable[[], np.ndarray] = lambda: node.tuple_class  # noqa: E731 (on first use)
        weight = cache.weight if cache.weight is not None else d.counts
    else:
        tc, n_classes = table.tuple_classes(levels)
        codes = None
        weight = presuppressed_weight(table)
        stats = table.stats(tc, n_classes, weight if table.presuppressed.any() else None,
                            models=[m for m in models if m.qis is None], levels=levels)
    if limit is None:
        limit = suppression_limit(0.0 if max_suppression is None else max_suppression, table.n_records)
    if plan is None:
        plan = model_plan(models, monotone)
    ok, mono_suppressed, settled = _judge_classes(stats, plan.order, monotone, limit if settle else None, plan)
    if settled:
        gone = int(stats.sizes[~ok].sum())
        return NodeEvaluation(levels, tc, n_classes, ok, stats.sizes, gone, limit, False,
                              gone if mono_suppressed is None else mono_suppressed, codes, complete=False)
    judged_suppressed = None  # the records the class models suppress, while ``ok`` is theirs alone
    if mono_suppressed is None:
        mono_suppressed = judged_suppressed = int(stats.sizes[~ok].sum())
    subset_models = plan.subset
    if subset_models:
        if callable(tc):
            tc = tc()
        groupings = []
        for m in subset_models:
            idx = [table.qi.index(q) for q in m.qis or ()]
            groupings.append((m, *table.tuple_classes(levels, idx)))
        while True:
            changed = False
            kept_weight = weight * ok[tc]
            for m, sub, n_sub in groupings:
                sub_stats = class_stats_for((m,), sub, n_sub, weights=kept_weight)
                sub_ok = m.passes(sub_stats) | (sub_stats.sizes == 0)
                bad_tuples = ~sub_ok[sub] & (kept_weight > 0)
                if bad_tuples.any():
                    ok[tc[bad_tuples]] = False
                    changed = True
            if not changed:
                break
    sizes = stats.sizes
    if subset_models or plan.whole_release:
        tc = _enforce_whole_release(table, tc, sizes, ok, models, limit, levels, metric)
        judged_suppressed = None  # ``ok`` may have changed: summed again
    # without subset or whole-release models ``ok`` is the class models' alone: the same sum as above
    suppressed = int(sizes[~ok].sum()) if judged_suppressed is None else judged_suppressed
    anonymous = suppressed <= limit and not (plan.judges_empty and empty_classes_fail(stats, models))
    return NodeEvaluation(
        levels, tc, n_classes, ok, sizes, suppressed, limit, anonymous, mono_suppressed, codes
    )


def empty_classes_fail(stats: ClassStats, models: list[Criterion]) -> bool:
    """Whether a class without records fails a model that judges such classes (δ-presence with
    ``dmin > 0``: a class of population records only has no record to suppress, so the node fails)."""
    judging = [m for m in models if getattr(m, "judges_empty_classes", False)]
    if not judging:
        return False
    empty = np.flatnonzero(stats.sizes == 0)
    if not empty.size:
        return False
    sub = stats.subset(empty)
    return any(not bool(m.passes(sub).all()) for m in judging)


@dataclass(frozen=True)
class ModelPlan:
    """What :func:`evaluate_node` derives from the models (and which of them are monotone) alone, the same at
    every node: a search builds it once (:func:`model_plan`) instead of at each of its hundreds of checks."""

    #: the class models in judging order (:func:`judging_order`)
    order: Sequence[Criterion]
    #: per model of ``order``, whether it is monotone (:func:`~anonkit.algorithms._node_kernels.monotone_flags`)
    mono: list[bool]
    #: :func:`~anonkit.algorithms._node_kernels.sizes_plan` of ``order`` and ``mono``
    ks: list[float] | None
    #: the models on a subset of the quasi-identifiers
    subset: list[Criterion]
    #: whether a model judges the whole release
    whole_release: bool
    #: whether a model judges classes without records (:func:`empty_classes_fail` has something to ask)
    judges_empty: bool
    #: :func:`~anonkit.algorithms._node_kernels.fused_models` of ``order``
    fused: tuple[np.ndarray, np.ndarray, str] | None


def model_plan(models: Sequence[Criterion], monotone: Callable[[Criterion], bool] | None = None) -> ModelPlan:
    """The :class:`ModelPlan` of ``models`` and ``monotone``: each field is what :func:`evaluate_node` and
    :func:`_judge_classes` computed from these two at every node, so an evaluation given it judges exactly as
    one that derives them again."""
    ordered = judging_order(models, monotone)
    mono = monotone_flags(ordered, monotone)
    return ModelPlan(ordered, mono, sizes_plan(ordered, mono), [m for m in models if m.qis is not None],
                     any(m.whole_release for m in models),
                     any(getattr(m, "judges_empty_classes", False) for m in models), fused_models(ordered))


def judging_order(models: Sequence[Criterion], monotone: Callable[[Criterion], bool] | None = None) -> list[Criterion]:
    """The class models in the order :func:`evaluate_node` judges them: the ``monotone`` ones first (all
    are, without it), then within each the models of the sizes before those of a sensitive attribute —
    the cheap checks first, and those whose failures a search may infer from."""
    is_mono = monotone or (lambda _m: True)
    return sorted(_class_models(list(models)), key=lambda m: (not is_mono(m), m.attribute is not None))


def _judge_classes(stats: ClassStats, ordered: Sequence[Criterion], monotone: Callable[[Criterion], bool] | None,
                   settle_above: int | None, plan: ModelPlan | None = None) -> tuple[np.ndarray, int | None, bool]:
    """Judge the classes by the class models in ``ordered``, each on the classes the ones before it left:
    (released per class, the records the monotone models alone suppress — ``None`` when every model is
    monotone —, whether it stopped settled: the failed classes held more than ``settle_above`` records).
    k-anonymity with distinct l-diversity and equal-distance t-closeness are judged in one compiled pass
    with the same results (:mod:`~anonkit.algorithms._node_kernels`), and k-anonymity alone on the sizes
    array at once (:func:`~anonkit.algorithms._node_kernels.judge_sizes`). ``plan``: :func:`model_plan` of
    ``ordered`` and ``monotone``, whose flags and sizes plan it then reads instead of deriving them."""
    if plan is None:
        mono = monotone_flags(ordered, monotone)
        ks = sizes_plan(ordered, mono)
    else:
        mono, ks = plan.mono, plan.ks
    if ks is not None:
        return judge_sizes(stats.sizes, ks, settle_above)
    fused = fused_plan(ordered, stats) if plan is None else fused_plan(ordered, stats, plan.fused)
    if fused is not None:
        return judge_fused(stats, fused, mono, settle_above)
    ok = stats.sizes > 0
    alive = np.flatnonzero(ok)
    current: ClassStats | None = stats if alive.size == ok.size else None  # the survivors' statistics, when built
    is_mono = monotone or (lambda _m: True)
    mono_suppressed = None
    failed = 0.0  # records of the classes failed so far (none of an empty class)
    for m in ordered:
        if mono_suppressed is None and not is_mono(m):
            mono_suppressed = int(stats.sizes[~ok].sum())
        if not alive.size:
            break
        if current is None and _sizes_only(m):  # judged on the survivors' sizes: no histogram copied
            passed = m.passes(ClassStats(stats.sizes[alive], domains=stats.domains))
        else:
            current = stats.subset(alive) if current is None else current
            passed = m.passes(current)
        if not passed.all():  # narrow to the survivors; otherwise keep the statistics built
            failed += float(stats.sizes[alive[~passed]].sum())
            ok[alive[~passed]] = False
            alive = alive[passed]
            if settle_above is not None and failed > settle_above:  # no later model releases a class again
                return ok, mono_suppressed, True
            current = None if current is None else current.subset(passed)
    return ok, mono_suppressed, False


def _sizes_only(model: Criterion) -> bool:
    """Whether ``model`` declares that it judges the class sizes alone (k-anonymity): it is then
    handed the sizes of the surviving classes without their histograms, which are copied only for a
    model that reads them."""
    return type(model).spec.needs <= _SIZES


_SIZES = frozenset({"sizes"})


def _class_models(models: list[Criterion]) -> list[Criterion]:
    """The models judged class by class on all quasi-identifiers (not on a subset, not on the whole release)."""
    return [m for m in models if m.qis is None and not m.whole_release]


Classes = np.ndarray | Callable[[], np.ndarray]


def _enforce_whole_release(table: Table, tc: Classes, sizes: np.ndarray, ok: np.ndarray, models: list[Criterion],
                           limit: int, levels: tuple[int, ...], metric: SearchMetric | None) -> Classes:
    """Judge the whole-release models (``scope="release"``) on the classes the class models left
    released, and suppress (in ``ok``) the smallest classes until they hold, as ARX enforces its
    sample-based criteria: in :func:`release_order`, a binary search over the suppressed prefix
    within what the limit leaves (:func:`~anonkit.models.risk_criteria.enforce_release`).
    Returns ``tc`` (made when the order needed it). A node whose models still fail is refused by
    the caller's count only if it exceeds the limit, so a failing final prefix suppresses every class."""
    models = [m for m in models if m.whole_release]
    if not models:
        return tc
    alive = np.flatnonzero(ok & (sizes > 0))
    released = sizes[alive]
    if all(m.holds(released) for m in models if released.size):  # type: ignore[attr-defined]
        return tc
    if callable(tc):
        tc = tc()
    order = release_order(table, tc, alive, released, levels, metric)
    budget = limit - float(sizes[~ok].sum())
    cut = enforce_release(models, released[order], budget)
    ok[alive[order[:cut]]] = False
    rest = alive[order[cut:]]
    if rest.size and not all(m.holds(sizes[rest]) for m in models):  # type: ignore[attr-defined]
        ok[rest] = False  # fail closed: ARX's search may stop on a prefix that fails a non-monotonic model
    return tc


#: the search metrics under which equal-sized classes go by their first record: those on
#: ``HashGroupifyDistribution``'s list (a class's loss is its size), KL divergence (whose class loss ARX
#: defines as its size: the same order) and SSE (an analysis in ARX, never a search metric)
SIZE_ORDERED_METRICS = frozenset({"entropy", "dm", "dm*", "aecs", "precision", "height", "kl-divergence", "sse"})


def release_order(table: Table, tc: np.ndarray, alive: np.ndarray, sizes: np.ndarray, levels: tuple[int, ...],
                  metric: SearchMetric | None) -> np.ndarray:
    """The order in which the whole-release models suppress the classes ``alive`` (of ``sizes``),
    as ARX's ``HashGroupifyDistribution`` sorts them: by size, then by the search metric's
    information loss of the class (``Metric.getInformationLoss(transformation, entry)``) for the
    metrics whose loss of a class is not its size (Loss, ambiguity, entropy-based loss), then by the
    class's first record (ARX's ``representative``). A class's metric loss is computed as ARX does:
    Loss, ``count · share`` per QI combined by the aggregate (``compareTo`` of the aggregate; rank:
    the descending vector); ambiguity, ``Π (share · #rows) · count``; entropy-based loss,
    ``gFactor · count · clip(log10 Π share / log10 Π #rows + 1)``. ARX sorts with these keys and
    no hash order, so the order is ARX's exactly."""
    d = table.distinct
    never = np.iinfo(np.int64).max  # a population tuple no record has (``attach_population``) has no first record
    first_record = np.full(d.size, never, dtype=np.int64)
    np.minimum.at(first_record, d.inverse, np.arange(len(d.inverse), dtype=np.int64))
    first = np.full(int(tc.max()) + 1 if tc.size else 0, never, dtype=np.int64)
    np.minimum.at(first, tc, first_record)
    keys = [] if metric is None or metric.name in SIZE_ORDERED_METRICS else _loss_keys(
        table, tc, alive, sizes, levels, metric)
    return np.lexsort((first[alive], *reversed(keys), sizes))


def _loss_keys(table: Table, tc: np.ndarray, alive: np.ndarray, sizes: np.ndarray, levels: tuple[int, ...],
               metric: SearchMetric) -> list[np.ndarray]:
    """ARX's information loss of each class in ``alive`` under ``metric`` as sort keys, most
    significant first (see :func:`release_order`)."""
    rep = np.empty(int(tc.max()) + 1, dtype=np.int64)
    rep[tc] = np.arange(tc.size)  # one distinct tuple of every class: they share the class's nodes
    tuples = table.distinct.tuples[rep[alive]]
    shares = [h.domain_share(lv)[h.maps[lv][tuples[:, j]]]
              for j, (h, lv) in enumerate(zip(table.hierarchies, levels, strict=True))]
    count = sizes.astype(np.float64)
    if metric.name == "ambiguity":
        product = np.ones(len(alive))
        for j, h in enumerate(table.hierarchies):
            product = product * (shares[j] * float(h.n_leaves))
        return [product * count]
    if metric.name == "entropy-loss":
        max_il = 1.0
        for h in table.hierarchies:
            max_il *= float(h.n_leaves)
        max_il = float(np.log10(max_il))
        if max_il == 0.0 or not np.isfinite(max_il):
            return []
        product = np.ones(len(alive))
        for s in shares:
            product = product * s
        loss = np.clip(np.log10(product) / max_il + 1.0, 0.0, 1.0)
        return [gs_factors(metric.gs)[0] * (count * loss)]
    return _aggregate_keys([count * s for s in shares], attribute_weights(table), metric.aggregate)


def _aggregate_keys(values: list[np.ndarray], weights: np.ndarray, aggregate: str) -> list[np.ndarray]:
    """ARX's aggregate (``ILMultiDimensional*.getAggregate``) of the per-QI values of every class,
    in Java's order of operations."""
    n = len(values)
    total = np.zeros(len(values[0]) if n else 0)
    if aggregate == "rank":  # compared component by component, largest first
        ranked = -np.sort(-np.column_stack([v * w for v, w in zip(values, weights, strict=True)]), axis=1)
        return [ranked[:, i] for i in range(n)]
    if aggregate == "geometric":
        total = total + 1.0
        for v, w in zip(values, weights, strict=True):
            total = total * np.power(v * w + 1.0, 1.0 / n)
        return [total - 1.0]
    for v, w in zip(values, weights, strict=True):
        if aggregate == "max":
            total = np.maximum(total, v * w)
        elif aggregate == "arithmetic":
            total = total + (v / n) * w
        else:
            total = total + v * w
    return [total]


def release_node(
    table: Table, ev: NodeEvaluation, *, algorithm: str, seconds: float = 0.0, **params: object
) -> Release:
    """The :class:`Release` of an evaluated node: failing classes are suppressed, never published.

    Every class's published number (−1: suppressed) is looked up once per class, then read by the distinct
    tuples and by the records: the same numbers as per tuple ``keep[c] ? new_id[c] : −1`` (:func:`published_ids`).
    Without records suppressed up front, the classes the records reach are the classes the distinct tuples
    reach (:attr:`Table.distinct` numbers the records' own tuples densely: every tuple holds a record), so which
    released classes hold a record is read over the tuples, not the records (:func:`_reached_classes`)."""
    d = table.distinct
    keep_class = ev.class_ok
    tuple_class = published_ids(keep_class)[ev.tuple_class]  # every distinct tuple's published class
    record_class = tuple_class[d.inverse]  # one gather for the records
    pre = table.presuppressed.any()
    if pre:
        record_class[table.presuppressed] = -1
    # classes emptied by pre-suppression get dropped by renumbering the survivors (a chunk at a time)
    present = _reached_classes(record_class if pre else tuple_class, int(keep_class.sum()))
    if not present.all():
        remap = np.append(np.cumsum(present) - 1, -1)  # class −1 stays −1 (index −1: the last entry)
        for start in range(0, len(record_class), CHUNK_ROWS):
            record_class[start:start + CHUNK_ROWS] = remap[record_class[start:start + CHUNK_ROWS]]
    n_classes = int(present.sum())
    satisfied, message = suppression_verdict(ev.suppressed, ev.limit, released_classes=1)
    return full_domain_release(
        table,
        list(ev.levels),
        record_class,
        n_classes,
        algorithm=algorithm,
        satisfied=satisfied,
        message=message,
        params=dict(params),
        seconds=seconds,
    )


def published_ids(keep_class: np.ndarray) -> np.ndarray:
    """Every class's number among the released classes (int64; −1: suppressed): ``keep_class``'s running count
    less one where it is set. Read through a class per tuple it is ``where(keep[tc], new_id[tc], −1)``, the
    lookup done once per class instead of once per tuple."""
    return np.where(keep_class, np.cumsum(keep_class) - 1, -1).astype(np.int64)


def _reached_classes(ids: np.ndarray, n_classes: int) -> np.ndarray:
    """Which of the ``n_classes`` released classes some entry of ``ids`` (class numbers, −1: none) names
    (a chunk at a time)."""
    present = np.zeros(n_classes, dtype=bool)
    for start in range(0, len(ids), CHUNK_ROWS):
        part = ids[start:start + CHUNK_ROWS]
        present[part[part >= 0]] = True
    return present
