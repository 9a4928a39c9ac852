"""Lightning: a best-effort, bottom-up best-first search of the full-domain lattice (ARX's
``BEST_EFFORT_BOTTOM_UP``; Prasser, Bild, Eicher, Spengler, Kuhn, Transactions on Data Privacy 9(2),
2016; ARX compatibility §2.2), for lattices too large to classify completely.

The search, as implemented here (our own design in the spirit of the paper):

1. **Dive.** Check the bottom node, then walk greedily upward — always to the unchecked direct
   generalization of lowest lower bound — until an anonymous node is met. With monotonic models
   this yields a solution after at most ``height + 1`` checks (the top is anonymous whenever any
   node is), so even a short budget returns something.
2. **Best-first.** Every checked node, anonymous or not, waits on a frontier ordered by its score
   with its failing classes suppressed (ARX's information loss of a transformation, which ARX's
   Lightning ranks by too); a node known to fail by predictive tagging waits with its level-only
   lower bound (``NodeScorer.lower_bound``). Ties go to the lower node, then to the
   lexicographically smaller transformation. The best node is *expanded*: each of its direct
   generalizations not seen yet is checked and put on the frontier. Anonymous nodes are expanded
   too — with a suppression limit a generalization may score better (at 100 % suppression every
   node is anonymous, and the bottom, which suppresses everything, is rarely the best). Every
   ``height``-th expansion continues as a greedy climb through the best new generalization (ARX's
   depth-first step), so the search also reaches high regions of a large lattice early.
3. **Pruning.** A node whose lower bound is clearly worse than the best score found (beyond
   rounding, :func:`~anonkit.algorithms.lattice._search.clearly_worse`) is neither checked nor
   expanded: the bound never decreases under generalization, so neither it nor anything above it
   can win or tie. With monotonic models *and* metric, a node known anonymous only by tagging is
   skipped too (it scores no better than the checked anonymous node below it). The ``rank``
   aggregate is not pruned (as in Flash: a tolerance makes lexicographic "clearly worse"
   intransitive).
4. **Stop** at the first of: the wall-clock ``time_limit``, ``step_limit`` checks (evaluations of a
   node, each counted once), or an empty frontier (``"exhausted"``).

Guarantees (what the tests hold it to, against Flash):

* **Exhausted ⇒ optimal.** Every node whose lower bound is not clearly worse than the final best
  score is reached: its specializations have no larger bounds, so a chain of unpruned nodes leads
  to it from the bottom, and every unpruned node on the frontier is eventually expanded. So when
  the search is not cut short its result has Flash's optimal score (within the 10⁻⁹ relative
  rounding tolerance of the lattice search; equal scores are decided as Flash decides them, by
  the exact score, then the lower, then the lexicographically smaller node), for any models and
  any metric. Without a bound that prunes (DM, DM*, AECS, ``rank``) exhausting may mean checking
  up to the whole lattice.
* **A solution when one exists**: with monotonic models after at most ``height + 1`` checks
  (unless the time limit strikes first); with any models whenever the search is exhausted
  (nothing is pruned before a solution is known, so the whole lattice is searched).
* **A certified gap when cut short.** The optimum is never below ``notes["lower_bound"]``: the
  smaller of the score found and the smallest lower bound among the frontier nodes not yet
  expanded (any node not reached lies above one of them, or is pruned or dominated), the score
  itself when exhausted. So the result exceeds the optimum by at most ``score − lower_bound``;
  ``None`` when the metric has no level-only bound (DM, DM*, AECS) and the search was cut short.

The search is deterministic: the same input and limits give the same checks in the same order
(unless the time limit stops it, which depends on the machine).

Lattices above :data:`~anonkit.algorithms.lattice._space.MAX_NODES` transformations cannot be
materialized for predictive tagging; there the run keeps its own records of the nodes it has
checked, with upward tagging through direct specializations when every model is monotonic.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Mapping, Sequence
from typing import Annotated

from pydantic import Field

from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression
from anonkit.algorithms.lattice._heuristic import exact_choice
from anonkit.algorithms.lattice._search import TOLERANCE, Search
from anonkit.algorithms.lattice._space import DEFAULT_TIME_LIMIT, MAX_NODES
from anonkit.algorithms.spec import algorithm
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table

Node = tuple[int, ...]
Key = tuple[object, int, Node]

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
        #: the best anonymous node as (fast score, height, node), and every candidate scored
        self.best: Key | None = None
        self.candidates: list[Key] = []
        #: the frontier (key, height, node) and the key each queued node has
        self.frontier: list[Key] = []
        self.keys: dict[Node, object] = {}
        self.seen: set[Node] = set()  # checked, or settled by tagging
        self.expanded: set[Node] = set()
        #: a greedy climb after every ``stepping``-th expansion (ARX: the top's level)
        self.stepping = max(self.lattice.max_height, 1)
        #: small lattices use the search's state (predictive tagging); huge ones our own records
        self.materialized = self.lattice.size <= MAX_NODES
        self._status: dict[Node, bool] = {}
        self._exact: dict[Node, object] = {}
        self._bounds: dict[Node, object] = {}
        self._base = int(self.lattice.min.sum())
        #: bounds above this are clearly worse than the best score (None: nothing is pruned yet)
        self._threshold: float | None = None
        # an anonymous node reached only by tagging cannot beat the checked node below it
        self.skip_inferred = search.fully_monotone and self.scorer.monotone

    # ------------------------------------------------------------------ node facts
    def known(self, node: Node) -> bool | None:
        """The node's status if a check or predictive tagging settled it, else None."""
        if self.materialized:
            return self.search.start().anonymous(self.lattice.id(node))
        if node in self._status:
            return self._status[node]
        if self.search.fully_monotone and any(self._status.get(p) for p in self.lattice.predecessors(node)):
            self._status[node] = True  # above an anonymous node
            return True
        return None

    def bound(self, node: Node) -> object:
        """The node's level-only lower bound (from the search's table of every node when materialized)."""
        value = self._bounds.get(node)
        if value is None:
            value = self.search.bound(self.lattice.id(node)) if self.materialized else self.scorer.lower_bound(node)
            self._bounds[node] = value
        return value

    def height(self, node: Node) -> int:
        return sum(node) - self._base

    def pruned(self, node: Node) -> bool:
        """Whether the node's lower bound is clearly worse than the best score (so it cannot win or tie)."""
        return self._threshold is not None and self.bound(node) > self._threshold  # type: ignore[operator]

    def evaluate(self, node: Node) -> tuple[bool, object]:
        """Check ``node`` (status unknown): one step. Returns (anonymous, score with its failing
        classes suppressed)."""
        stats = self.search.start().stats
        if self.materialized:
            before = stats.checked
            ev = self.search.check_evaluate(node)
            self.steps += stats.checked - before
            if ev.anonymous:
                return True, self.search.exact_score(self.lattice.id(node))
        else:
            ev = self.search.evaluate(node)
            stats.checked += 1
            self.steps += 1
            self._status[node] = ev.anonymous
        value = self.scorer.exact(ev)
        stats.scored += 1
        if ev.anonymous:
            self._exact[node] = value
        return ev.anonymous, value

    def inferred_exact(self, node: Node) -> object:
        """The exact score of a node known anonymous by tagging only (a check unless level-only)."""
        if self.materialized:
            stats = self.search.start().stats
            before = stats.checked
            value = self.search.exact_score(self.lattice.id(node))
            self.steps += stats.checked - before
            return value
        if self.scorer.exact_bound:
            return self.scorer.lower_bound(node)
        ev = self.search.evaluate(node)
        self.search.start().stats.checked += 1
        self.steps += 1
        if not ev.anonymous:  # pragma: no cover - would be a tagging bug
            raise AssertionError(f"node {node} was inferred anonymous but is not")
        return self.scorer.exact(ev)

    # ------------------------------------------------------------------ budget
    def time_up(self) -> bool:
        if time.perf_counter() >= self.deadline:
            self.stopped = STOP_TIME
            return True
        return False

    def may_check(self) -> bool:
        """False (and ``stopped`` set) when the time is up or one more check would exceed the steps."""
        if self.time_up():
            return False
        if self.step_limit is not None and self.steps >= self.step_limit:
            self.stopped = STOP_STEPS
            return False
        return True

    # ------------------------------------------------------------------ search
    def push(self, node: Node, key: object) -> None:
        self.keys[node] = key
        heapq.heappush(self.frontier, (key, self.height(node), node))

    def offer(self, node: Node, value: object) -> None:
        key = (value, self.height(node), node)
        self.candidates.append(key)
        if self.best is None or key < self.best:
            self.best = key
            if not isinstance(value, tuple):  # lexicographic scores are not pruned (module docstring)
                best = float(value)  # type: ignore[arg-type]
                self._threshold = best + TOLERANCE * max(1.0, abs(best))  # clearly_worse(bound, best)

    def settle(self, node: Node) -> bool | None:
        """Settle a node not seen yet: check it (a step) unless tagging settles it, record it as a
        candidate when anonymous and queue it. Returns its status, or None when the budget stops."""
        known = self.known(node)
        if known is True and self.skip_inferred:
            self.seen.add(node)  # dominated by the checked anonymous node below it: never queued
            return True
        if known is False:
            if self.time_up():
                return None
            self.seen.add(node)
            self.push(node, self.bound(node))
            return False
        if not self.may_check():
            return None
        anonymous, value = self.evaluate(node) if known is None else (True, self.inferred_exact(node))
        self.seen.add(node)
        if anonymous:
            self.offer(node, value)
        self.push(node, value)
        return anonymous

    def expand(self, node: Node) -> tuple[bool, Node | None]:
        """Settle every direct generalization of ``node`` not seen or pruned. Returns whether it
        completed (False: the budget stopped it) and the best of its generalizations still to expand."""
        succ = self.lattice.successors(node)
        for s in succ:
            if s not in self.seen and not self.pruned(s) and self.settle(s) is None:
                return False, None
        self.expanded.add(node)
        options = [(self.keys[s], self.height(s), s) for s in succ
                   if s in self.keys and s not in self.expanded and not self.pruned(s)]
        return True, (min(options)[2] if options else None)

    def dive(self) -> None:
        """Greedy walk up from the bottom, by lower bound, until an anonymous node (or the top, or the budget)."""
        node = self.lattice.bottom
        while True:
            status = self.settle(node)
            if status is None or status:
                return
            options = [(self.bound(s), self.height(s), s) for s in self.lattice.successors(node)
                       if s not in self.seen]
            if not options:
                return
            node = min(options)[2]

    def run(self) -> Node | None:
        self.dive()
        if self.stopped is not None:
            return self.chosen()
        if self.best is None and self.search.fully_monotone and self.known(self.lattice.top) is False:
            self.stopped = STOP_EXHAUSTED  # the top fails, so every node fails
            self.frontier.clear()
            return None
        expansions = 0
        while self.frontier:
            _, _, node = self.frontier[0]
            if node in self.expanded or self.pruned(node):
                heapq.heappop(self.frontier)
                continue
            if self.time_up():
                break
            heapq.heappop(self.frontier)
            done, nxt = self.expand(node)
            if not done:
                self.push(node, self.keys[node])  # still to expand
                break
            expansions += 1
            if expansions % self.stepping == 0:
                while nxt is not None and not self.pruned(nxt):  # ARX's depth-first step
                    done, nxt = self.expand(nxt)
                    if not done:
                        break
                if self.stopped is not None:
                    break
        else:
            self.stopped = STOP_EXHAUSTED
        return self.chosen()

    def chosen(self) -> Node | None:
        """The best candidate. The fast scores may differ from the reported (ARX-exact) ones in the
        last rounding step, so candidates not clearly worse than the best are decided on the exact
        score, as Flash decides them."""
        return exact_choice(self.search, self.candidates, self.best)

    def frontier_bound(self) -> object | None:
        """The smallest lower bound of the frontier nodes not expanded yet (the bottom's before any
        check): every node not reached lies above one of them (module docstring). None when
        exhausted."""
        if self.stopped == STOP_EXHAUSTED:
            return None
        if not self.seen:
            return self.bound(self.lattice.bottom)
        values = [self.bound(n) for _, _, n in self.frontier if n not in self.expanded]
        return min(values) if values else None  # type: ignore[type-var]


def _lower_bound(frontier: object | None, found: object | None, exhausted: bool) -> float | list[float] | None:
    """The optimum's certified lower bound: the score found when exhausted, else the smaller of the
    frontier's bound and the score found; None when unknown (no level-only bound, e.g. DM)."""
    if exhausted:
        return found  # type: ignore[return-value]
    values = [tuple(v) if isinstance(v, list) else v for v in (frontier, found) if v is not None]
    if not values:
        return None
    low = min(values)  # type: ignore[type-var]
    if isinstance(low, tuple | list):
        return [float(x) for x in low]
    return float(low) if math.isfinite(low) else None  # type: ignore[arg-type]


def cut_short_reason(notes: Mapping[str, object]) -> str | None:
    """One line for a search stopped by its budget before it found an anonymous transformation (one may
    exist, so "the models cannot be met" would be wrong), from the release's ``notes``; None otherwise."""
    stopped = notes.get("stopped")
    if stopped not in (STOP_TIME, STOP_STEPS):
        return None
    option = "time_limit" if stopped == STOP_TIME else "step_limit"
    return (f"the lightning search stopped at its {option.replace('_', ' ')} after {notes.get('steps', 0):,} checks "
            f"before it found an anonymous transformation (one may exist): raise algorithm.{option}, or use flash "
            "on a smaller lattice")


def _explain(table: Table, models: list[Criterion], release: Release, options: Mapping[str, object]) -> str | None:
    return cut_short_reason(release.notes) if not release.satisfied else None


@algorithm("lightning", family="lattice", summary="best-effort greedy full-domain search (ARX's Lightning) "
           "within a time and step limit", engines=("local", "spark"), explain=_explain)
def lightning(
    table: Table,
    models: Sequence[Criterion],
    *,
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
    metric: object = None,
    time_limit: Annotated[float, Field(ge=0)] | None = DEFAULT_TIME_LIMIT,
    step_limit: Annotated[int, Field(ge=0)] | None = None,
) -> Release:
    """Best-effort bottom-up best-first search (ARX's Lightning), see the module docstring.

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
        if none was found). ``extra`` holds ``heuristic`` (True), ``steps`` (checks made),
        ``stopped`` (``"time"``, ``"steps"`` or ``"exhausted"``: then the result is optimal) and
        ``lower_bound`` (the optimum's score is at least this; None when unknown).
    """
    started = time.perf_counter()
    search = Search(table, models, max_suppression=max_suppression, metric=metric)
    deadline = math.inf if time_limit is None else started + float(time_limit)
    run = _Lightning(search, deadline, None if step_limit is None else int(step_limit))
    node = run.run()
    stopped = run.stopped or STOP_EXHAUSTED
    rel = search.release("lightning", node, heuristic=True, steps=run.steps, stopped=stopped)
    found = rel.search.score if node is not None else None
    rel.notes["lower_bound"] = _lower_bound(run.frontier_bound(), found, stopped == STOP_EXHAUSTED)
    if node is not None and not rel.satisfied:  # pragma: no cover - a candidate is always anonymous
        raise AssertionError(f"lightning chose {node}, which is not anonymous")
    rel.params.update(time_limit=time_limit, step_limit=step_limit)
    why = {STOP_TIME: "stopped at the time limit", STOP_STEPS: "stopped at the step limit"}.get(
        stopped, "frontier exhausted"
    )
    if node is None and stopped != STOP_EXHAUSTED:
        rel.message = str(cut_short_reason(rel.notes))
    elif stopped == STOP_EXHAUSTED:
        rel.message += f"; lightning search ({why} after {run.steps} checks: optimal)"
    else:
        rel.message += f"; best-effort lightning search ({why} after {run.steps} checks), not guaranteed optimal"
    return rel


__all__ = ["lightning"]
