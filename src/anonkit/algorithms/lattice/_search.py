"""What every lattice algorithm shares: checking nodes with predictive tagging, and finding the
optimum among the anonymous nodes with lower-bound pruning.

Soundness (issue: "a non-monotonic model or metric must still give the true optimum"):

* A model is *monotone* here when it is monotonic under generalization and, if records may be
  suppressed, under suppression too (each model declares both, ARX compatibility §2.1).
* When every model is monotone, a check tags all generalizations of an anonymous node anonymous
  and all specializations of a failing node not anonymous (predictive tagging).
* Otherwise only one inference is sound: if the monotone models *alone* already suppress more
  than the limit at a node, that node and all its specializations fail (adding models only adds
  failing classes). Nothing is inferred upward.
* The optimum is searched among all nodes not known to fail, in the order of a lower bound of the
  metric that depends on the levels only (see ``_score``); the search stops when the bound exceeds
  the best exact score. Unknown nodes are checked lazily on the way. When the models and the
  metric are both monotone, only minimal anonymous nodes are candidates.
* Ties (equal exact scores) go to the lower node (sum of levels), then to the lexicographically
  smaller transformation. ARX does not specify its tie rule (its tests never assert the
  transformation, ARX compatibility notes §2.9 item 7), so this one is ours.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, check_models, report_progress, suppression_limit
from anonkit.algorithms.lattice._score import NodeScorer
from anonkit.algorithms.lattice._space import (
    ANONYMOUS,
    INFERRED_ANONYMOUS,
    INFERRED_NOT_ANONYMOUS,
    NOT_ANONYMOUS,
    UNKNOWN,
    Lattice,
    SearchState,
)
from anonkit.algorithms.rollup import RollupCache
from anonkit.algorithms.transform import NodeEvaluation, evaluate_node, presuppressed_weight, release_node
from anonkit.errors import InputError
from anonkit.metrics import SearchMetric, score
from anonkit.models import Criterion
from anonkit.release import Release, SearchStats
from anonkit.table import Table


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
        self.limit = suppression_limit(float(max_suppression), table.n) if limit is None else int(limit)
        self.max_suppression = float(max_suppression) if limit is None else self.limit / table.n
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
        self.state: SearchState | None = None
        self.scorer = NodeScorer(table, self.metric, self.max_suppression)
        self.fully_monotone = all(self.monotone(m) for m in self.models)
        self._exact: dict[int, object] = {}
        self._monotone_state: SearchState | None = None
        #: score anonymous nodes as they are checked (cheap then: their classes are at hand)
        self.score_on_check = True
        weight = presuppressed_weight(table)
        self.cache = RollupCache(table, weight if table.presuppressed.any() else None)

    def monotone(self, m: Criterion) -> bool:
        return m.monotonic_generalization and (m.monotonic_suppression or self.max_suppression == 0.0)

    def start(self) -> SearchState:
        if self.state is None:
            self.state = SearchState(self.lattice)
        return self.state

    # ------------------------------------------------------------------ checks
    def evaluate(self, node: tuple[int, ...]) -> NodeEvaluation:
        return evaluate_node(self.table, node, self.models, limit=self.limit, monotone=self.monotone, cache=self.cache)

    def check(self, node: tuple[int, ...]) -> bool:
        """Is ``node`` anonymous? Checks it unless its status is known; tags; scores it if anonymous."""
        state = self.start()
        nid = self.lattice.id(node)
        known = state.anonymous(nid)
        if known is not None:
            return known
        self._check(node, nid)
        return bool(state.anonymous(nid))

    def _check(self, node: tuple[int, ...], nid: int) -> None:
        state = self.start()
        ev = self.evaluate(node)
        state.stats.checked += 1
        if state.stats.checked % 16 == 0:
            report_progress(state.stats.checked, self.lattice.size)
        state.tag(node, ev.anonymous, infer=self.fully_monotone)
        if not self.fully_monotone:
            mono_ok = ev.monotone_suppressed <= ev.limit
            self.monotone_state.tag(node, mono_ok, infer=True)
            if not mono_ok:
                state.infer_not_anonymous_below(node)
        if ev.anonymous and self.score_on_check:
            value = self.scorer.exact(ev)
            state.score[nid] = _as_float(value)
            self._exact[nid] = value
            state.stats.scored += 1

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
        ts = self.traversal_state
        nid = self.lattice.id(node)
        known = ts.anonymous(nid)
        if known is None:
            if self.start().anonymous(nid) is None:
                self._check(node, nid)
            else:  # the full verdict is known (inferred), the monotone one is not yet
                self._mono_only(node)
            known = ts.anonymous(nid)
        return bool(known)

    def _mono_only(self, node: tuple[int, ...]) -> None:
        ev = self.evaluate(node)
        self.start().stats.checked += 1
        self.monotone_state.tag(node, ev.monotone_suppressed <= ev.limit, infer=True)

    @property
    def has_traversal(self) -> bool:
        """Whether a classifying traversal can infer anything (some model is monotone)."""
        return self.fully_monotone or any(self.monotone(m) and m.qis is None for m in self.models)

    def exact_score(self, nid: int) -> object:
        """The exact score of an anonymous node (evaluating it if it was only inferred)."""
        if nid in self._exact:
            return self._exact[nid]
        node = self.lattice.node(nid)
        if self.scorer.exact_bound:
            value = self.scorer.lower_bound(node)
        else:
            ev = self.evaluate(node)
            if not ev.anonymous:  # pragma: no cover - would be a tagging bug
                raise AssertionError(f"node {node} was inferred anonymous but is not")
            value = self.scorer.exact(ev)
            self.start().stats.scored += 1
        self._exact[nid] = value
        self.start().score[nid] = _as_float(value)
        return value

    # ------------------------------------------------------------------ optimum
    def optimum(self) -> tuple[int, ...] | None:
        """The best anonymous node (see the module docstring for pruning and ties)."""
        state = self.start()
        levels = self.lattice.levels
        failed = np.isin(state.status, (NOT_ANONYMOUS, INFERRED_NOT_ANONYMOUS))
        if self._monotone_state is not None:
            failed |= np.isin(self._monotone_state.status, (NOT_ANONYMOUS, INFERRED_NOT_ANONYMOUS))
        cand = np.flatnonzero(~failed)
        if self.fully_monotone and self.scorer.monotone and cand.size:
            cand = self._minimal(cand)
        heights = levels[cand].sum(axis=1)
        bounds = self.scorer.lower_bounds(levels[cand])
        order = sorted(range(len(cand)), key=lambda i: (bounds[i], int(heights[i]), int(cand[i])))
        best_key: tuple | None = None
        seen: list[tuple[object, int, int]] = []  # (fast score, height, id) of every anonymous candidate
        for i in order:
            nid = int(cand[i])
            if best_key is not None and clearly_worse(bounds[i], best_key[0]):
                break
            status = int(state.status[nid])
            if status == UNKNOWN:
                if not self.check(self.lattice.node(nid)):
                    continue
            elif status in (NOT_ANONYMOUS, INFERRED_NOT_ANONYMOUS):
                continue  # tagged while this loop ran
            key = (self.exact_score(nid), int(heights[i]), nid)
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

    def _minimal(self, cand: np.ndarray) -> np.ndarray:
        """The candidates none of whose direct predecessors is a candidate."""
        lat = self.lattice
        is_cand = np.zeros(lat.size, dtype=bool)
        is_cand[cand] = True
        levels = lat.levels[cand]
        strides = np.ones(lat.d, dtype=np.int64)
        for j in range(lat.d - 2, -1, -1):
            strides[j] = strides[j + 1] * lat.span[j + 1]
        minimal = np.ones(len(cand), dtype=bool)
        for j in range(lat.d):
            has_pred = levels[:, j] > lat.min[j]
            pred = cand - strides[j]
            minimal &= ~(has_pred & is_cand[np.where(has_pred, pred, 0)])
        return cand[minimal]

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
        rel.search = SearchStats(
            score=list(value) if isinstance(value, tuple) else float(value),
            counts=state.counts(),
            lattice=self.lattice,
            status=state.status.copy(),
            traversal_status=self.traversal_state.status.copy(),
        )
        rel.notes.update(extra)
        return rel


#: scores closer than this may be ordered differently by the fast and the exact computation
TOLERANCE = 1e-9


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


def _as_float(value: object) -> float:
    return float(value[0]) if isinstance(value, tuple) and value else float(value)  # type: ignore[arg-type]


__all__ = ["ANONYMOUS", "INFERRED_ANONYMOUS", "Lattice", "Search", "as_metric"]
