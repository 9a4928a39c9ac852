"""What ARX's best-effort searches over the full-domain lattice share (the top-down search and the
genetic algorithm): checking a node once within a budget, keeping every node's score, tracking the
best anonymous node and deciding near-ties on the exact score.

A *check* evaluates a node's classes against the models (ARX's ``TransformationChecker.check``),
each node at most once (ARX keeps every checked node: ``StorageStrategy.ALL``); the budget counts
checks (ARX's step semantics ``CHECKS``) and wall-clock seconds. A node's score is the metric's value
with its failing classes suppressed, for anonymous and failing nodes alike (ARX's searches rank both
by it). No predictive tagging: like ARX's heuristics (``setAnonymityPropertyPredictable(false)``)
every node a heuristic ranks is checked.
"""

from __future__ import annotations

import math
import time

import numpy as np

from anonkit.algorithms.common import report_progress
from anonkit.algorithms.lattice._search import Search, clearly_worse
from anonkit.algorithms.lattice._space import MAX_NODES
from anonkit.algorithms.transform import release_node
from anonkit.metrics import score

Node = tuple[int, ...]

#: why a heuristic search ended
STOP_TIME, STOP_STEPS, STOP_DONE = "time", "steps", "done"


class Checker:
    """Checks nodes of ``search``'s lattice within a time and step budget (module docstring)."""

    def __init__(self, search: Search, time_limit: float | None, step_limit: int | None) -> None:
        self.search = search
        self.lattice = search.lattice
        self.scorer = search.scorer
        self.deadline = math.inf if time_limit is None else time.perf_counter() + float(time_limit)
        self.step_limit = step_limit
        self.steps = 0
        self.stopped: str | None = None
        #: every node checked: (anonymous, score with its failing classes suppressed)
        self.seen: dict[Node, tuple[bool, object]] = {}
        #: ``(score, height, node)`` of every anonymous node checked, and the best of them
        self.candidates: list[tuple[object, int, Node]] = []
        self.best: tuple[object, int, Node] | None = None
        self._materialized = self.lattice.size <= MAX_NODES
        self._base = int(self.lattice.min.sum())

    def height(self, node: Node) -> int:
        return sum(node) - self._base

    def must_stop(self) -> bool:
        """True (and :attr:`stopped` set) once the time is up or the step limit is reached."""
        if self.stopped is not None:
            return True
        if time.perf_counter() >= self.deadline:
            self.stopped = STOP_TIME
        elif self.step_limit is not None and self.steps >= self.step_limit:
            self.stopped = STOP_STEPS
        return self.stopped is not None

    def check(self, node: Node) -> tuple[bool, object] | None:
        """The node's verdict and score: from memory, or checked (a step). None when the budget
        forbids a new check."""
        known = self.seen.get(node)
        if known is not None:
            return known
        if self.must_stop():
            return None
        ev = self.search.evaluate(node)
        state = self.search.start()
        state.stats.checked += 1
        self.steps += 1
        if self.steps % 16 == 0:
            report_progress(self.steps, self.step_limit or self.lattice.size)
        if self._materialized:
            state.tag_id(self.lattice.id(node), ev.anonymous, infer=False)
        value = self.scorer.exact(ev)
        state.stats.scored += 1
        out = (bool(ev.anonymous), value)
        self.seen[node] = out
        if ev.anonymous:
            key = (value, self.height(node), node)
            self.candidates.append(key)
            # ARX's trackOptimum: a lower score, or an equal one at a lower level (then the first found)
            if self.best is None or key[:2] < self.best[:2]:
                self.best = key
        return out

    def chosen(self) -> Node | None:
        """The best anonymous node checked. The fast scores may differ from the exact (ARX) ones in
        the last rounding step, so candidates not clearly worse than the best are decided on the
        exact score, then the height, then the node (as Flash decides ties)."""
        return exact_choice(self.search, self.candidates, self.best)


def exact_choice(search: Search, candidates: list[tuple], best: tuple | None) -> Node | None:
    """Of the ``(fast score, height, node)`` candidates, the node a search returns: the ``best`` one
    unless others are not clearly worse by the fast score (which may differ from the exact, ARX, score in
    the last rounding step); those are decided on the exact score, then the height, then the node."""
    if best is None:
        return None
    near = [k for k in candidates if not clearly_worse(k[0], best[0])]
    if len(near) == 1:
        return best[2]
    table, metric = search.table, search.metric
    exact = []
    for _fast, height, node in near:
        rel = release_node(table, search.evaluate(node), algorithm="search")
        exact.append((score(table, rel, metric), height, node))
    return min(exact)[2]


def as_number(value: object) -> float:
    """A score as one number (ARX's ``relativeTo``: the mean of a ``rank`` vector)."""
    if isinstance(value, tuple | list):
        return float(np.mean(value)) if len(value) else 0.0
    return float(value)  # type: ignore[arg-type]


def budget_reason(name: str, stopped: str | None, steps: int) -> str | None:
    """One line for a search cut short by its budget before it found an anonymous transformation
    (one may exist, so "the models cannot be met" would be wrong); None otherwise."""
    if stopped not in (STOP_TIME, STOP_STEPS):
        return None
    option = "time_limit" if stopped == STOP_TIME else "step_limit"
    return (f"the {name} search stopped at its {option.replace('_', ' ')} after {steps:,} checks before it "
            f"found an anonymous transformation (one may exist): raise algorithm.{option}, or use flash on a "
            "smaller lattice")


__all__ = ["STOP_DONE", "STOP_STEPS", "STOP_TIME", "Checker", "as_number", "budget_reason"]
