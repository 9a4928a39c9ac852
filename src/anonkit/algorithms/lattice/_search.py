"""What every lattice algorithm shares: checking nodes with predictive tagging, pruning by the
metric's lower bound, and finding the optimum among the anonymous nodes.

Soundness (issue: "a non-monotonic model or metric must still give the true optimum"):

* A model is *monotone* here when it is monotonic under generalization and, if records may be
  suppressed, under suppression too (each model declares both, ARX compatibility §2.1).
* When every model is monotone, a check tags all generalizations of an anonymous node anonymous
  and all specializations of a failing node not anonymous (predictive tagging).
* Otherwise only one inference is sound: if the monotone models *alone* already suppress more
  than the limit at a node, that node and all its specializations fail (adding models only adds
  failing classes). Nothing is inferred upward.
* Every node has a lower bound of the metric that depends on its levels only (``_score``), never
  decreasing under generalization. The best anonymous node evaluated so far (:attr:`Search.best`)
  makes every node whose bound is *clearly* worse than its score irrelevant (it cannot be optimal,
  nor tie with the optimum): :meth:`Search.pruned`. A traversal may leave such nodes unknown.
* The optimum is searched among all nodes not known to fail, in the order of the lower bound; the
  search stops when the bound is clearly worse than the best exact score. Unknown nodes are checked
  on the way, and anonymous nodes known only by tagging are evaluated (each is a check). When the
  models and the metric are both monotone, only minimal anonymous nodes (no anonymous direct
  predecessor) are candidates, so nodes inferred anonymous are never evaluated.
* Ties (equal exact scores) go to the lower node (sum of levels), then to the lexicographically
  smaller transformation. ARX does not specify its tie rule (its tests never assert the
  transformation, ARX compatibility notes §2.9 item 7), so this one is ours. Pruning never touches
  a tie: only bounds worse than the best score by more than rounding noise prune.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence

import numpy as np

from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, check_models, report_progress, suppression_limit
from anonkit.algorithms.lattice._score import NodeScorer
from anonkit.algorithms.lattice._space import (
    ANONYMOUS,
    DEFAULT_HEURISTIC_THRESHOLD,
    INFERRED_ANONYMOUS,
    INFERRED_NOT_ANONYMOUS,
    NOT_ANONYMOUS,
    UNKNOWN,
    Lattice,
    SearchState,
    mixed_radix_levels,
)
from anonkit.algorithms.rollup import RollupCache
from anonkit.algorithms.transform import (
    ModelPlan,
    NodeEvaluation,
    evaluate_node,
    model_plan,
    presuppressed_weight,
    release_node,
)
from anonkit.errors import InputError
from anonkit.metrics import SearchMetric, score
from anonkit.metrics.arx import leaf_tallies, tuple_tallies_apply
from anonkit.models import Criterion
from anonkit.release import Release, SearchStats
from anonkit.stats import content_memo, hierarchy_content, table_memo
from anonkit.table import Table

#: lattices up to this many nodes keep their level matrix, bounds and priority order per table
#: (:func:`~anonkit.stats.table_memo`) for the next search of the table: those Flash searches optimally
#: by default (at most 8 MB of levels for ten attributes)
MEMO_NODES = DEFAULT_HEURISTIC_THRESHOLD


def as_metric(metric: SearchMetric | dict | object | None) -> SearchMetric:
    """A :class:`SearchMetric` from a metric, a mapping, a config object with ``search_metric()``, or None."""
    if metric is None:
        return SearchMetric()
    if isinstance(metric, SearchMetric):
        return metric
    if hasattr(metric, "search_metric"):
        return metric.search_metric()  # type: ignore[no-any-return]
    if isinstance(metric, dict):
        try:
            return SearchMetric(**metric)
        except (TypeError, ValueError) as exc:
            raise InputError(f"bad metric: {exc}", key="algorithm.metric") from None
    raise InputError(f"bad metric {metric!r}", key="algorithm.metric")


class Search:
    """A search over the full-domain lattice of ``table`` for the ``models``."""

    def __init__(
        self,
        table: Table,
        models: Sequence[Criterion],
        *,
        max_suppression: float = DEFAULT_MAX_SUPPRESSION,
        limit: int | None = None,
        metric: SearchMetric | dict | object | None = None,
        min_levels: dict[str, int] | None = None,
        max_levels: dict[str, int] | None = None,
    ) -> None:
        self.started = time.perf_counter()
        self.table = table
        self.models = list(models)
        check_models(table, self.models)
        #: the records the models may suppress (``limit``, or ``⌊max_suppression · n⌋``) and that limit
        #: as a share of the records
        self.limit = suppression_limit(float(max_suppression), table.n_records) if limit is None else int(limit)
        self.max_suppression = float(max_suppression) if limit is None else self.limit / table.n_records
        self.metric = as_metric(metric)
        mins, maxs = [], []
        for j, q in enumerate(table.qi):
            attr = table.schema[q]
            h = table.hierarchies[j]
            lo = (min_levels or {}).get(q, attr.min_level)
            hi = (max_levels or {}).get(q, attr.max_level if attr.max_level is not None else h.height)
            if not 0 <= lo <= hi <= h.height:
                raise InputError(f"levels must satisfy 0 ≤ min_level ≤ max_level ≤ {h.height}", column=q)
            mins.append(lo)
            maxs.append(hi)
        self.lattice = Lattice(table.qi, mins, maxs)
        if self.lattice.size <= MEMO_NODES:  # the level matrix, once per table and bounds (read-only), on first use
            # (a function of the table and the bounds alone, not of this search: no cycle keeps the search alive)
            self.lattice.levels_from(functools.partial(_kept_levels, table, self.lattice.min, self.lattice.max))
        self.state: SearchState | None = None
        self.scorer = NodeScorer(table, self.metric, self.max_suppression)
        self._monotone: dict[int, tuple[Criterion, bool]] = {}
        self.fully_monotone = all(self.monotone(m) for m in self.models)
        self._exact: dict[int, object] = {}
        self._monotone_state: SearchState | None = None
        #: ``(fast exact score, height, id)`` of the best anonymous node evaluated so far
        self.best: tuple | None = None
        self._bounds: np.ndarray | None = None
        self._priority: np.ndarray | None = None
        self._order: np.ndarray | None = None
        #: what every node's evaluation derives from the models alone (:func:`model_plan`: the judging order,
        #: the monotone flags…), once
        self._plan: ModelPlan | None = None
        self._pruned: np.ndarray | None = None
        self._pruned_for: tuple | None = None
        #: score anonymous nodes as they are checked (cheap then: their classes are at hand)
        self.score_on_check = True
        weight = presuppressed_weight(table)
        self.cache = RollupCache(table, weight if table.presuppressed.any() else None, models=self.models)

    def monotone(self, m: Criterion) -> bool:
        """Whether a node's failing ``m`` (alone) says its predecessors fail too; asked for every model at
        every node, so answered once per model (kept with the model, so an id is never reused)."""
        hit = self._monotone.get(id(m))
        if hit is None or hit[0] is not m:
            hit = self._monotone[id(m)] = (m, m.monotonic_generalization and (m.monotonic_suppression
                                                                               or self.max_suppression == 0.0))
        return hit[1]

    def start(self) -> SearchState:
        if self.state is None:
            self.state = SearchState(self.lattice)
        return self.state

    # ------------------------------------------------------------------ checks
    def evaluate(self, node: tuple[int, ...], *, settle: bool = False) -> NodeEvaluation:
        """The node's evaluation; ``settle``: stop once it is settled as failing (its verdicts, not its
        classes, are then known: see :func:`~anonkit.algorithms.transform.evaluate_node`)."""
        if self._plan is None:
            self._plan = model_plan(self.models, self.monotone)
        return evaluate_node(self.table, node, self.models, limit=self.limit, monotone=self.monotone, cache=self.cache,
                             metric=self.metric, settle=settle, plan=self._plan)

    def check(self, node: tuple[int, ...]) -> bool:
        """Is ``node`` anonymous? Checks it unless its status is known; tags; scores it if anonymous."""
        return self.check_id(self.lattice.id(node), node)

    def check_id(self, nid: int, node: tuple[int, ...] | None = None) -> bool:
        """:meth:`check` by node id."""
        state = self.start()
        known = state.anonymous(nid)
        if known is not None:
            return known
        self._check(self.lattice.node(nid) if node is None else node, nid)
        return bool(state.anonymous(nid))

    def check_evaluate(self, node: tuple[int, ...]) -> NodeEvaluation:
        """Check ``node``, whose status must be unknown, as :meth:`check` does (counted, tagged,
        scored if anonymous), and return its evaluation: for a search that also ranks the failing
        nodes by their score (lightning)."""
        return self._check(node, self.lattice.id(node), settle=False)

    def _check(self, node: tuple[int, ...], nid: int, *, settle: bool = True) -> NodeEvaluation:
        state = self.start()
        ev = self.evaluate(node, settle=settle)
        self._count_check()
        state.tag_id(nid, ev.anonymous, infer=self.fully_monotone)
        if not self.fully_monotone:
            mono_ok = ev.monotone_suppressed <= ev.limit
            self.monotone_state.tag_id(nid, mono_ok, infer=True)
            if not mono_ok:
                state.infer_not_anonymous_below(nid)
        if ev.anonymous and self.score_on_check:
            value = self.scorer.exact(ev)
            self._record(nid, value)
            state.stats.scored += 1
        return ev

    def _count_check(self) -> None:
        stats = self.start().stats
        stats.checked += 1
        if stats.checked % 16 == 0:
            report_progress(stats.checked, self.lattice.size)

    def _record(self, nid: int, value: object) -> None:
        """Keep the exact score of anonymous node ``nid`` and the best node so far."""
        self._exact[nid] = value
        self.start().score[nid] = _as_float(value)
        key = (value, self._height(nid), nid)
        if self.best is None or key < self.best:
            self.best = key

    def _height(self, nid: int) -> int:
        return int(self.lattice.levels[nid].sum())

    # ------------------------------------------------------------------ bounds and pruning
    @property
    def bounds(self) -> np.ndarray:
        """The metric's level-only lower bound of every node (``(N,)``, or ``(N × d)`` sorted
        vectors for the ``rank`` aggregate), see :meth:`NodeScorer.lower_bound`."""
        if self._bounds is None:
            build = lambda: _read_only(self.scorer.lower_bound_table(self.lattice.levels))  # noqa: E731
            # kept per table, and shared by value (a new table of the same content: a new frame per call)
            self._bounds = build() if self.lattice.size > MEMO_NODES else table_memo(
                self.table, ("lattice-bounds", *self._metric_key(), *self._lattice_key()),
                lambda: content_memo(self._bounds_key(), build))
        return self._bounds

    def _bounds_key(self) -> tuple:
        """Everything :attr:`bounds` depends on, by value (:func:`~anonkit.stats.content_memo`): the metric's
        settings and the attribute weights, the lattice's bounds, and the scorer's level tables and heights
        (:meth:`NodeScorer.level_key`) — :meth:`NodeScorer.lower_bound_table` reads nothing else."""
        return ("lattice-bounds", *self._metric_key(), *self._lattice_key(), self.scorer.level_key())

    def _lattice_key(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return tuple(self.lattice.min.tolist()), tuple(self.lattice.max.tolist())

    def _metric_key(self) -> tuple:
        """What the level-only bounds depend on besides the table and the lattice: the metric's
        settings and the attribute weights (:meth:`NodeScorer.lower_bound_table`)."""
        m = self.metric
        return m.name, float(m.gs), m.aggregate, bool(m.monotonic), tuple(self.scorer.weights.tolist())

    def bound(self, nid: int) -> object:
        b = self.bounds[nid]
        return tuple(float(x) for x in b) if b.ndim else float(b)

    @property
    def priority(self) -> np.ndarray:
        """Every node's position in the order of its lower bound, ties by Flash's strategy
        (:func:`strategy_rank`: height first). Without a level-only bound this is the strategy."""
        if self._priority is None:
            # a function of the bounds and the strategy order: once per table, metric and lattice (read-only),
            # and shared by value: keyed by what the bounds and the strategy order depend on
            self._order, self._priority = self._priority_arrays() if self.lattice.size > MEMO_NODES else table_memo(
                self.table, ("lattice-priority", *self._metric_key(), *self._lattice_key()),
                lambda: content_memo(("lattice-priority", self._bounds_key(), _strategy_key(self)[0]),
                                     self._priority_arrays))
        return self._priority

    def _priority_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        order = priority_order(self.bounds, strategy_order(self))
        return _read_only(order), _read_only(_ranks(order))

    @property
    def order(self) -> np.ndarray:
        """The node ids sorted by :attr:`priority`."""
        if self._order is None:
            self.priority  # noqa: B018 (sets both)
        assert self._order is not None
        return self._order

    def pruned_mask(self) -> np.ndarray | None:
        """The nodes whose lower bound is clearly worse than :attr:`best` (None before any).

        The ``rank`` aggregate is not pruned: with a tolerance, lexicographic "clearly worse" is not
        transitive (a node clearly worse than an early best may be within the tolerance of a later,
        better one on the first component), so a pruned node could tie with the optimum; hypothesis
        found such a case (k = 2, 0.3-closeness, gs 0, rank)."""
        if self.best is None or self.bounds.ndim == 2:
            return None
        if self._pruned_for is not self.best:
            self._pruned = bounds_clearly_worse(self.bounds, self.best[0])
            self._pruned_for = self.best
        return self._pruned

    def pruned(self, nid: int) -> bool:
        """Whether node ``nid`` cannot be (or tie with) the optimum, by its lower bound."""
        mask = self.pruned_mask()
        return bool(mask is not None and mask[nid])

    # ------------------------------------------------------------------ traversal interface
    @property
    def monotone_state(self) -> SearchState:
        """Classification by the monotone models alone (used when not every model is monotone):
        sound to tag in both directions, and a node failing it fails the full set of models."""
        if self._monotone_state is None:
            self._monotone_state = SearchState(self.lattice)
        return self._monotone_state

    @property
    def traversal_state(self) -> SearchState:
        """The classification a traversal (Flash, OLA) walks: the full one when every model is
        monotone, otherwise the monotone models' one."""
        return self.start() if self.fully_monotone else self.monotone_state

    def classify_check(self, node: tuple[int, ...]) -> bool:
        """Check ``node`` for a traversal: its anonymity under :attr:`traversal_state`."""
        return self.classify_id(self.lattice.id(node), node)

    def classify_id(self, nid: int, node: tuple[int, ...] | None = None) -> bool:
        """:meth:`classify_check` by node id."""
        ts = self.traversal_state
        known = ts.anonymous(nid)
        if known is None:
            node = self.lattice.node(nid) if node is None else node
            if self.start().anonymous(nid) is None:
                self._check(node, nid)
            else:  # the full verdict is known (inferred), the monotone one is not yet
                self._mono_only(node, nid)
            known = ts.anonymous(nid)
        return bool(known)

    def _mono_only(self, node: tuple[int, ...], nid: int) -> None:
        ev = self.evaluate(node, settle=True)
        self._count_check()
        mono_ok = ev.monotone_suppressed <= ev.limit
        self.monotone_state.tag_id(nid, mono_ok, infer=True)
        if not mono_ok:
            self.start().infer_not_anonymous_below(nid)

    @property
    def has_traversal(self) -> bool:
        """Whether a classifying traversal can infer anything (some model is monotone)."""
        return self.fully_monotone or any(self.monotone(m) and m.qis is None for m in self.models)

    def exact_score(self, nid: int) -> object:
        """The exact score of an anonymous node (evaluating it — a check — if it was only inferred)."""
        if nid in self._exact:
            return self._exact[nid]
        node = self.lattice.node(nid)
        if self.scorer.exact_bound:
            value = self.scorer.lower_bound(node)
        else:
            ev = self.evaluate(node)
            self._count_check()
            if not ev.anonymous:  # pragma: no cover - would be a tagging bug
                raise AssertionError(f"node {node} was inferred anonymous but is not")
            value = self.scorer.exact(ev)
            self.start().stats.scored += 1
        self._record(nid, value)
        return value

    # ------------------------------------------------------------------ optimum
    def optimum(self) -> tuple[int, ...] | None:
        """The best anonymous node (see the module docstring for pruning and ties)."""
        state = self.start()
        lat = self.lattice
        status = state.status
        mono = self._monotone_state.status if self._monotone_state is not None else None
        minimal_only = self.fully_monotone and self.scorer.monotone
        levels = lat.levels
        strides = lat.strides
        bounds = self.bounds
        heights = levels.sum(axis=1)
        best_key: tuple | None = None
        seen: list[tuple[object, int, int]] = []  # (fast score, height, id) of every candidate scored
        order = self.order
        open_ = ~np.isin(status[order], FAILED)  # (statuses only ever become known: filter once)
        if mono is not None:
            open_ &= ~np.isin(mono[order], FAILED)
        pruned = self.pruned_mask()
        if pruned is not None:
            open_ &= ~pruned[order]
        for nid in order[open_].tolist():
            bound = self.bound(nid) if bounds.ndim == 2 else float(bounds[nid])
            if self.best is not None and clearly_worse(bound, self.best[0]):
                break
            if mono is not None and mono[nid] in FAILED:
                continue
            st = int(status[nid])
            if st == UNKNOWN:
                if not self.check_id(nid):
                    continue
            elif st in FAILED:
                continue
            if minimal_only and any(
                levels[nid, j] > lat.min[j] and status[nid - strides[j]] in PASSED for j in range(lat.d)
            ):
                continue  # an anonymous direct predecessor scores no worse and is lower
            key = (self.exact_score(nid), int(heights[nid]), nid)
            seen.append(key)
            if best_key is None or key < best_key:
                best_key = key
        if best_key is None:
            return None
        # The fast scores may differ from the reported (ARX-exact) ones in the last rounding step
        # (10⁻¹⁰); every candidate that is not clearly worse is decided on the exact score.
        near = [k for k in seen if not clearly_worse(k[0], best_key[0])]
        if len(near) > 1:
            exact = []
            for _fast, height, nid in near:
                rel = release_node(self.table, self.evaluate(self.lattice.node(nid)), algorithm="search")
                exact.append((score(self.table, rel, self.metric), height, nid))
            best_key = min(exact)
        return self.lattice.node(best_key[2])

    # ------------------------------------------------------------------ result
    def release(self, algorithm: str, node: tuple[int, ...] | None, **extra: object) -> Release:
        """The release of ``node`` (or, when no node is anonymous, of the top node with everything
        failing suppressed and ``satisfied`` false)."""
        state = self.start()
        target = node if node is not None else self.lattice.top
        ev = self.evaluate(target)
        rel = release_node(
            self.table,
            ev,
            algorithm=algorithm,
            seconds=time.perf_counter() - self.started,
            max_suppression=self.max_suppression,
            metric=self.metric.name,
        )
        if node is None:
            rel.satisfied = False
            rel.message = "no transformation satisfies the models within the suppression limit"
        value = score(self.table, rel, self.metric)
        counts = state.counts()
        counts["pruned"] = self.pruned_count()
        rel.search = SearchStats(
            score=list(value) if isinstance(value, tuple) else float(value),
            counts=counts,
            lattice=self.lattice,
            status=state.status.copy(),
            traversal_status=self.traversal_state.status.copy(),
        )
        rel.notes.update(extra)
        return rel

    def pruned_count(self) -> int:
        """Nodes the traversal left unknown because their lower bound is clearly worse than the
        best score (0 when no bound was used)."""
        mask = self.pruned_mask() if self._bounds is not None else None
        if mask is None or not self.traversal_state.status.size:
            return 0
        return int((mask & (self.traversal_state.status == UNKNOWN)).sum())


def strategy_rank(search: Search) -> np.ndarray:
    """Position of every node (by id) in Flash's strategy order (ARX's ``FLASHStrategy``): (i)
    height / maximum height, (ii) mean of ``level/height``, (iii) ``1 − mean(distinct values at the
    level / distinct values at level 0)``, lower first; ties by id (lexicographic levels)."""
    return _ranks(strategy_order(search))


def _ranks(order: np.ndarray) -> np.ndarray:
    """The position of every id in ``order`` (a permutation): its inverse, without a sort."""
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank


def priority_order(bounds: np.ndarray, by_strategy: np.ndarray) -> np.ndarray:
    """The node ids in :attr:`Search.priority` order: by lower bound (``(N,)``, or ``(N × d)`` sorted
    vectors compared lexicographically), ties in Flash's strategy order ``by_strategy`` (the ids in
    :func:`strategy_order`). Stable sorts of the bound taken in strategy order: what a lexsort with
    the strategy rank as its last key gives, one sort fewer."""
    order = by_strategy
    columns = [bounds] if bounds.ndim == 1 else [bounds[:, j] for j in range(bounds.shape[1] - 1, -1, -1)]
    for column in columns:  # the least significant first; each sort keeps the order of its ties
        order = order[np.argsort(column[order], kind="stable")]
    return order


def strategy_order(search: Search) -> np.ndarray:
    """The node ids in Flash's strategy order (:func:`strategy_rank`), read-only: a function of the lattice's
    bounds, the hierarchies' codes and the leaves present in the table alone, so computed once per table and
    bounds (:func:`~anonkit.stats.table_memo`) and shared by the tables over the same hierarchies and leaves
    (:func:`~anonkit.stats.content_memo`, keyed by all three by value: a new frame on every call)."""
    lat, table = search.lattice, search.table
    bounds = (tuple(lat.min.tolist()), tuple(lat.max.tolist()))

    def shared() -> np.ndarray:
        key, leaves = _strategy_key(search)
        return content_memo(key, lambda: _order_by_strategy(lat, table.hierarchies, leaves))

    return table_memo(table, ("strategy", *bounds), shared)


def _strategy_key(search: Search) -> tuple[tuple, list[np.ndarray]]:
    """The key of :func:`strategy_order` in :func:`~anonkit.stats.content_memo` (the lattice's bounds, the
    hierarchies' codes and the leaves present, by value) and those leaves: once per table and bounds."""
    lat, table = search.lattice, search.table
    bounds = (tuple(lat.min.tolist()), tuple(lat.max.tolist()))

    def build() -> tuple[tuple, list[np.ndarray]]:
        leaves = _leaves_present(table)
        return ("strategy", *bounds, hierarchy_content(table.hierarchies), tuple(x.tobytes() for x in leaves)), leaves

    return table_memo(table, ("strategy-key", *bounds), build)


def _strategy_order(search: Search) -> np.ndarray:
    """:func:`strategy_order` of ``search`` built afresh (no memo)."""
    return _order_by_strategy(search.lattice, search.table.hierarchies, _leaves_present(search.table))


def _leaves_present(table: Table) -> list[np.ndarray]:
    """Per QI the leaf codes present in the table's distinct tuples, increasing. Where the summary counts the
    leaves over the tuples (:func:`~anonkit.metrics.arx.tuple_tallies_apply`) they are the leaves its tallies give
    a first tuple (``first ≥ 0``: absent exactly when no tuple holds one), tallied once for the search and the
    measures of the call (:func:`~anonkit.metrics.arx.leaf_tallies`, kept with the table); elsewhere each
    column's leaves are marked in a mask (not sorted: the tuples are many, the leaves few)."""
    if tuple_tallies_apply(table):
        return [np.flatnonzero(first >= 0) for _, first in leaf_tallies(table)]
    seen = [np.zeros(h.n_leaves, dtype=bool) for h in table.hierarchies]
    for mask, column in zip(seen, table.distinct.columns, strict=True):
        mask[column] = True
    return [np.flatnonzero(mask) for mask in seen]


def _order_by_strategy(lat: Lattice, hierarchies: Sequence, present: list[np.ndarray]) -> np.ndarray:
    levels = lat.levels
    heights = np.maximum(np.array([h.height for h in hierarchies], dtype=float), 1.0)
    share = np.zeros(levels.shape, dtype=float)
    for j, (h, leaves) in enumerate(zip(hierarchies, present, strict=True)):
        # each level maps the leaves present, and its distinct values are the nodes they reach
        per_level = np.array([np.count_nonzero(np.bincount(h.maps[lv][leaves], minlength=h.size(lv))) / len(leaves)
                              for lv in range(h.height + 1)])
        share[:, j] = per_level[levels[:, j]]
    k1 = (levels.sum(axis=1) - lat.min.sum()) / max(lat.max_height, 1)
    k2 = (levels / heights).mean(axis=1) if lat.d else np.zeros(len(levels))
    k3 = 1.0 - share.mean(axis=1) if lat.d else np.zeros(len(levels))
    order = np.lexsort((k3, k2, k1))  # stable: ties stay in id order
    order.flags.writeable = False
    return order


FAILED = (NOT_ANONYMOUS, INFERRED_NOT_ANONYMOUS)
PASSED = (ANONYMOUS, INFERRED_ANONYMOUS)

#: scores closer than this may be ordered differently by the fast and the exact computation
TOLERANCE = 1e-9


def bounds_clearly_worse(bounds: np.ndarray, best: object) -> np.ndarray:
    """:func:`clearly_worse` of every bound (a row of ``(N × d)`` sorted vectors for ``rank``)
    against the score ``best``, vectorized."""
    if bounds.ndim == 1:
        b = float(best)  # type: ignore[arg-type]
        with np.errstate(invalid="ignore"):  # −∞ − (−∞): not worse, as in clearly_worse
            return (bounds - b) > TOLERANCE * max(1.0, abs(b))
    ref = np.asarray(best, dtype=np.float64)
    if not ref.size:
        return np.zeros(bounds.shape[0], dtype=bool)
    differ = bounds != ref
    first = differ.argmax(axis=1)
    rows = np.arange(bounds.shape[0])
    gap = bounds[rows, first] - ref[first]
    return differ.any(axis=1) & (gap > TOLERANCE * np.maximum(1.0, np.abs(ref[first])))


def clearly_worse(a: object, b: object) -> bool:
    """Whether score ``a`` exceeds ``b`` by more than rounding noise. Vectors (the ``rank``
    aggregate) compare lexicographically: the first component where they differ decides, and a
    difference within the tolerance there is not clear."""
    if isinstance(a, tuple):
        for x, y in zip(a, b, strict=True):  # type: ignore[call-overload]
            if x != y:
                return bool(x - y > TOLERANCE * max(1.0, abs(y)))
        return False
    return bool(a - b > TOLERANCE * max(1.0, abs(b)))  # type: ignore[operator]


def _kept_levels(table: Table, mins: np.ndarray, maxs: np.ndarray) -> np.ndarray:
    """The level matrix of the lattice between ``mins`` and ``maxs``, kept per table (read-only) and shared
    by every table (:func:`~anonkit.stats.content_memo`): a function of the two bounds alone."""
    key = ("lattice-levels", tuple(mins.tolist()), tuple(maxs.tolist()))
    return table_memo(table, key, lambda: content_memo(key, lambda: _read_only(mixed_radix_levels(mins, maxs))))


def _read_only(values: np.ndarray) -> np.ndarray:
    """``values``, made read-only: an array a per-table memo shares between searches."""
    values.flags.writeable = False
    return values


def _as_float(value: object) -> float:
    return float(value[0]) if isinstance(value, tuple) and value else float(value)  # type: ignore[arg-type]


__all__ = ["ANONYMOUS", "INFERRED_ANONYMOUS", "Lattice", "Search", "as_metric", "priority_order", "strategy_order",
           "strategy_rank"]
