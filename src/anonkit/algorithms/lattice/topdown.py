"""Top-down best-effort search of the full-domain lattice (ARX's ``BEST_EFFORT_TOP_DOWN``,
``LIGHTNINGTopDownAlgorithm``: Lightning run downward), for lattices too large to classify completely.

The search, as ARX's source defines it:

1. **Start** by checking the top node (every node's most general transformation) and queue it.
2. **Best-first, downward.** Take the queued node of lowest score (the metric's value with its failing
   classes suppressed: failing nodes are ranked too) that has not been expanded, and *expand* it: check
   each of its direct specializations (one attribute one level down) not expanded yet and queue it.
   Ties on the score go to the lower node, then the lexicographically smaller transformation (ARX's
   queue leaves ties to its heap).
3. **Stop** at the first of: the wall-clock ``time_limit``, ``step_limit`` checks (a node is checked
   once), or an empty queue — then every node was checked and the result is the optimum.

Nothing is pruned (a lower bound cannot prune downward: it only grows upward), and no status is
inferred (ARX disables predictive tagging for its heuristics): the search walks from the top towards
the region of low scores, so it suits problems whose good transformations are general (a strict model,
a low suppression limit). The result is the best anonymous node checked: the lowest score, then the
lowest level (ARX's ``trackOptimum``), near-ties decided on the exact score as Flash decides them.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Mapping, Sequence
from typing import Annotated

from pydantic import Field

from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression
from anonkit.algorithms.lattice._heuristic import STOP_DONE, STOP_STEPS, STOP_TIME, Checker, budget_reason
from anonkit.algorithms.lattice._search import Search
from anonkit.algorithms.lattice._space import DEFAULT_TIME_LIMIT
from anonkit.algorithms.spec import algorithm
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table

Node = tuple[int, ...]


def search_top_down(checker: Checker) -> None:
    """Run the top-down search on ``checker`` (module docstring); the result is ``checker.chosen()``."""
    lattice = checker.lattice
    top = lattice.top
    first = checker.check(top)
    if first is None:
        return
    queue: list[tuple[object, int, Node]] = [(first[1], checker.height(top), top)]
    expanded: set[Node] = set()
    while queue:
        _, _, node = heapq.heappop(queue)
        if node in expanded:
            continue
        for pred in lattice.predecessors(node):
            if pred in expanded:
                continue
            known = checker.check(pred)
            if known is None:
                return
            heapq.heappush(queue, (known[1], checker.height(pred), pred))
        expanded.add(node)
        if checker.must_stop():
            return
    checker.stopped = STOP_DONE


def _explain(table: Table, models: list[Criterion], release: Release, options: Mapping[str, object]) -> str | None:
    if release.satisfied:
        return None
    return budget_reason("top-down", release.notes.get("stopped"), int(release.notes.get("steps", 0)))


@algorithm("top-down", family="lattice", summary="best-effort top-down full-domain search (ARX's "
           "BEST_EFFORT_TOP_DOWN) within a time and step limit", explain=_explain, label="Top-down")
def top_down(
    table: Table,
    models: Sequence[Criterion],
    *,
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
    metric: object = None,
    time_limit: Annotated[float, Field(gt=0)] | None = DEFAULT_TIME_LIMIT,
    step_limit: Annotated[int, Field(ge=1)] | None = None,
) -> Release:
    """Best-effort top-down best-first search (ARX's top-down Lightning), see the module docstring.

    Parameters
    ----------
    max_suppression:
        Share of the records the models may suppress.
    time_limit:
        Wall-clock seconds after which the search stops (none: no limit).
    step_limit:
        Node checks after which the search stops (none: no limit; ARX's tests use 1,000).

    Returns
    -------
    Release
        The best anonymous transformation checked (``satisfied`` false, with the top node's release,
        if none was). ``notes`` hold ``heuristic`` (True), ``steps`` (checks made) and ``stopped``
        (``"time"``, ``"steps"`` or ``"done"``: every node was checked, so the result is optimal).
    """
    started = time.perf_counter()
    search = Search(table, models, max_suppression=max_suppression, metric=metric)
    checker = Checker(search, time_limit, step_limit)
    search_top_down(checker)
    node = checker.chosen()
    stopped = checker.stopped or STOP_DONE
    rel = search.release("top-down", node, heuristic=True, steps=checker.steps, stopped=stopped)
    rel.params.update(time_limit=time_limit, step_limit=step_limit)
    rel.seconds = time.perf_counter() - started
    why = {STOP_TIME: "stopped at the time limit", STOP_STEPS: "stopped at the step limit"}.get(stopped)
    if node is None and why is not None:
        rel.message = str(budget_reason("top-down", stopped, checker.steps))
    elif why is None:
        rel.message += f"; top-down search (every node checked, {checker.steps} checks: optimal)"
    else:
        rel.message += f"; best-effort top-down search ({why} after {checker.steps} checks), not guaranteed optimal"
    return rel


__all__ = ["search_top_down", "top_down"]
