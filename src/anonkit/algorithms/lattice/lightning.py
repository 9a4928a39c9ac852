"""Lightning: a best-effort, bottom-up greedy search of the full-domain lattice (ARX's
``BEST_EFFORT_BOTTOM_UP``; Prasser, Bild, Eicher, Spengler, Kuhn, Transactions on Data Privacy 9(2),
2016; ARX compatibility §2.2), for lattices too large to classify completely.

The search, as implemented here (our own design in the spirit of the paper):

1. **Dive.** Check the bottom node, then walk greedily upward — always to the most promising
   unchecked direct generalization — until an anonymous node is met. With monotonic models this
   yields a solution after at most ``height + 1`` checks, so even a short budget returns something.
2. **Best-first.** Every non-anonymous node checked on the way puts its direct generalizations on a
   frontier ordered by their score: the exact score for nodes already known to be anonymous, else
   the metric's level-only lower bound (``NodeScorer.lower_bound``); ties go to the lower node, then
   to the lexicographically smaller transformation. The most promising frontier node is checked
   next. An anonymous node is a solution candidate and is **not expanded**: for a monotonic metric
   its generalizations cannot score better. A non-anonymous node is expanded.
3. **Stop** at the first of: the wall-clock ``time_limit``, ``step_limit`` checks (evaluations of a
   node whose status predictive tagging had not already settled), or an exhausted frontier. The
   frontier also counts as exhausted when the best remaining lower bound exceeds the best score found:
   the level-only bounds never decrease under generalization, so nothing left can win.

Heuristic nature: the result is the best anonymous node *among those visited*. Nothing above an
anonymous node is visited, so with a metric that may improve under generalization (scores that
charge suppression, e.g. Loss, DM or non-monotonic entropy with a suppression limit) or with models
that are not monotonic, a better node may be missed; a time or step limit can cut the search
anywhere. When the search is not cut short and both the models and the metric are monotonic, every
minimal anonymous node is reached or provably dominated, so the optimum is found (with the tie rule
of :mod:`~anonkit.algorithms.lattice._search`). The search is deterministic: the same input gives
the same checks in the same order (unless the time limit stops it).

Lattices above :data:`~anonkit.algorithms.lattice._space.MAX_NODES` transformations cannot be
materialized for predictive tagging; there the nodes are checked one by one, with upward tagging from
the anonymous nodes found when every model is monotonic.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Sequence
from typing import Annotated

import numpy as np
from pydantic import Field

from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression
from anonkit.algorithms.lattice._search import Search
from anonkit.algorithms.lattice._space import ANONYMOUS, DEFAULT_TIME_LIMIT, MAX_NODES
from anonkit.algorithms.spec import algorithm
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table

Node = tuple[int, ...]

#: why the search ended
STOP_TIME, STOP_STEPS, STOP_EXHAUSTED = "time", "steps", "exhausted"


class _Lightning:
    """One run of the search (see the module docstring)."""

    def __init__(self, search: Search, deadline: float, step_limit: int | None) -> None:
        self.search = search
        self.lattice = search.lattice
        self.scorer = search.scorer
        self.deadline = deadline
        self.step_limit = step_limit
        self.steps = 0
        self.stopped: str | None = None
        self.best: Node | None = None
        self.best_key: tuple | None = None
        self.frontier: list[tuple[object, int, Node]] = []
        self.queued: set[Node] = set()  # ever put on the frontier (or visited by the dive)
        self.visited: set[Node] = set()
        #: small lattices use the search's state (predictive tagging); huge ones our own records
        self.materialized = self.lattice.size <= MAX_NODES
        self._status: dict[Node, bool] = {}
        self._exact: dict[Node, object] = {}
        self._anonymous_rows: list[Node] = []
        self._anonymous_matrix: np.ndarray | None = None
        # an anonymous node reached only by tagging cannot beat the checked node below it
        self.skip_inferred = search.fully_monotone and self.scorer.monotone

    # ------------------------------------------------------------------ node facts
    def known(self, node: Node) -> bool | None:
        """The node's status if a check or predictive tagging settled it, else None."""
        if self.materialized:
            return self.search.start().anonymous(self.lattice.id(node))
        if node in self._status:
            return self._status[node]
        if self.search.fully_monotone and self._anonymous_rows:
            if self._anonymous_matrix is None or len(self._anonymous_matrix) != len(self._anonymous_rows):
                self._anonymous_matrix = np.asarray(self._anonymous_rows, dtype=np.int64)
            if (self._anonymous_matrix <= np.asarray(node)).all(axis=1).any():
                return True
        return None

    def checked_anonymous(self, node: Node) -> bool:
        """Anonymous by a check of its own (so its exact score is at hand)."""
        if self.materialized:
            return int(self.search.start().status[self.lattice.id(node)]) == ANONYMOUS
        return node in self._exact

    def check(self, node: Node) -> bool:
        """Check ``node`` (one step when its status is not known yet)."""
        if self.materialized:
            state = self.search.start()
            before = state.stats.checked
            ok = self.search.check(node)
            self.steps += state.stats.checked - before
            return ok
        known = self.known(node)
        if known is not None:
            return known
        ev = self.search.evaluate(node)
        stats = self.search.start().stats
        stats.checked += 1
        self.steps += 1
        self._status[node] = ev.anonymous
        if ev.anonymous:
            self._exact[node] = self.scorer.exact(ev)
            stats.scored += 1
            self._anonymous_rows.append(node)
        return ev.anonymous

    def exact(self, node: Node) -> object:
        if self.materialized:
            return self.search.exact_score(self.lattice.id(node))
        if node not in self._exact:  # anonymous by tagging only
            ev = self.search.evaluate(node)
            if not ev.anonymous:  # pragma: no cover - would be a tagging bug
                raise AssertionError(f"node {node} was inferred anonymous but is not")
            self._exact[node] = self.scorer.exact(ev)
        return self._exact[node]

    def priority(self, node: Node) -> tuple[object, int, Node]:
        """Frontier order: score (exact if checked anonymous, else the lower bound), height, levels."""
        value = self.exact(node) if self.checked_anonymous(node) else self.scorer.lower_bound(node)
        return value, self.lattice.height(node), node

    # ------------------------------------------------------------------ budget
    def may_visit(self, node: Node) -> bool:
        """False (and ``stopped`` set) when the time is up or checking ``node`` would exceed the steps."""
        if time.perf_counter() >= self.deadline:
            self.stopped = STOP_TIME
            return False
        if self.step_limit is not None and self.steps >= self.step_limit and self.known(node) is None:
            self.stopped = STOP_STEPS
            return False
        return True

    # ------------------------------------------------------------------ search
    def visit(self, node: Node) -> bool:
        """Check ``node``; record it as a candidate if anonymous, else queue its generalizations."""
        self.visited.add(node)
        self.queued.add(node)
        was_known = self.known(node) is not None
        if self.check(node):
            if was_known and self.skip_inferred:
                return True
            key = (self.exact(node), self.lattice.height(node), node)
            if self.best_key is None or key < self.best_key:
                self.best_key, self.best = key, node
            return True
        for succ in self.lattice.successors(node):
            if succ not in self.queued:
                self.queued.add(succ)
                heapq.heappush(self.frontier, self.priority(succ))
        return False

    def dive(self) -> None:
        """Greedy walk up from the bottom until an anonymous node (or the top, or the budget)."""
        node = self.lattice.bottom
        if not self.may_visit(node):
            return
        while not self.visit(node):
            options = [self.priority(s) for s in self.lattice.successors(node) if s not in self.visited]
            if not options:
                return
            node = min(options)[2]
            if not self.may_visit(node):
                return

    def run(self) -> Node | None:
        self.dive()
        if self.stopped is not None:
            return self.best
        if self.best is None and self.search.fully_monotone and self.known(self.lattice.top) is False:
            self.stopped = STOP_EXHAUSTED  # the top fails, so every node fails
            return None
        while self.frontier:
            value, _, node = self.frontier[0]
            if node in self.visited:
                heapq.heappop(self.frontier)
                continue
            if self.best_key is not None and _exceeds(value, self.best_key[0]):
                break  # every remaining bound exceeds the best score
            if not self.may_visit(node):
                return self.best
            heapq.heappop(self.frontier)
            self.visit(node)
        self.stopped = STOP_EXHAUSTED
        return self.best


def _exceeds(bound: object, best: object) -> bool:
    return bool(bound > best)  # type: ignore[operator]


@algorithm("lightning", family="lattice", summary="best-effort greedy full-domain search (ARX's Lightning) "
           "within a time and step limit", engines=("local", "spark"))
def lightning(
    table: Table,
    models: Sequence[Criterion],
    *,
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
    metric: object = None,
    time_limit: Annotated[float, Field(ge=0)] | None = DEFAULT_TIME_LIMIT,
    step_limit: Annotated[int, Field(ge=0)] | None = None,
) -> Release:
    """Best-effort bottom-up greedy search (ARX's Lightning), see the module docstring.

    Parameters
    ----------
    table, models, max_suppression, metric:
        As for :func:`~anonkit.algorithms.lattice.flash.flash`.
    time_limit:
        Wall-clock seconds after which the search stops (None: no limit).
    step_limit:
        Number of node checks after which the search stops (None: no limit).

    Returns
    -------
    Release
        The best anonymous transformation found (``satisfied`` false, with the top node's release,
        if none was found). ``extra`` holds ``heuristic`` (True), ``steps`` (checks made) and
        ``stopped`` (``"time"``, ``"steps"`` or ``"exhausted"``).
    """
    started = time.perf_counter()
    search = Search(table, models, max_suppression=max_suppression, metric=metric)
    deadline = math.inf if time_limit is None else started + float(time_limit)
    run = _Lightning(search, deadline, None if step_limit is None else int(step_limit))
    node = run.run()
    stopped = run.stopped or STOP_EXHAUSTED
    rel = search.release("lightning", node, heuristic=True, steps=run.steps, stopped=stopped)
    if node is not None and not rel.satisfied:  # pragma: no cover - a candidate is always anonymous
        raise AssertionError(f"lightning chose {node}, which is not anonymous")
    rel.params.update(time_limit=time_limit, step_limit=step_limit)
    why = {STOP_TIME: "stopped at the time limit", STOP_STEPS: "stopped at the step limit"}.get(
        stopped, "frontier exhausted"
    )
    rel.message += f"; best-effort lightning search ({why} after {run.steps} checks), not guaranteed optimal"
    return rel


__all__ = ["lightning"]
