"""Flash (Kohlmayer, Prasser, Eckert, Kemper, Kuhn, PASSAT 2012; spec §5.3): globally optimal
full-domain generalization, as ARX's default algorithm.

Traversal: nodes are visited height by height in Flash's *strategy* order — (i) height / maximum
height, (ii) mean of ``level/height``, (iii) ``1 − mean(distinct values at the level / distinct
values at level 0)``, lower first. From each untagged node a path is built greedily upward (always
the first untagged direct successor in strategy order) and binary-searched; every check tags by
monotonicity, and the untagged successors of a failing node are queued. With non-monotonic models
the traversal classifies the lattice by the monotonic models alone (a node failing them fails
everything, so it is pruned); the lower-bound-ordered optimum search (``_search``) then checks the
remaining candidates against all models — the role ARX's second phase plays.

Lattices larger than ``heuristic_threshold`` transformations are not searched optimally: Flash
then falls back to the best-effort ``lightning`` heuristic and says so in the result.
"""

from __future__ import annotations

import heapq
from typing import Annotated

import numpy as np
from pydantic import Field

from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression
from anonkit.algorithms.lattice._search import Search
from anonkit.algorithms.lattice._space import DEFAULT_HEURISTIC_THRESHOLD, DEFAULT_TIME_LIMIT, UNKNOWN
from anonkit.algorithms.spec import algorithm
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table


def strategy_rank(search: Search) -> np.ndarray:
    """Position of every node (by id) in Flash's strategy order; ties by id (lexicographic levels)."""
    lat, table = search.lattice, search.table
    d = table.distinct
    levels = lat.levels
    heights = np.maximum(np.array(table.heights, dtype=float), 1.0)
    share = np.zeros(levels.shape, dtype=float)
    for j, h in enumerate(table.hierarchies):
        col = d.columns[j]
        base = len(np.unique(col))
        per_level = np.array([len(np.unique(h.maps[lv][col])) / base for lv in range(h.height + 1)])
        share[:, j] = per_level[levels[:, j]]
    k1 = (levels.sum(axis=1) - lat.min.sum()) / max(lat.max_height, 1)
    k2 = (levels / heights).mean(axis=1) if lat.d else np.zeros(len(levels))
    k3 = 1.0 - share.mean(axis=1) if lat.d else np.zeros(len(levels))
    order = np.lexsort((np.arange(len(levels)), k3, k2, k1))
    rank = np.empty(len(levels), dtype=np.int64)
    rank[order] = np.arange(len(levels))
    return rank


def classify(search: Search) -> None:
    """Flash's traversal with predictive tagging, over :attr:`Search.traversal_state` (all models
    when they are monotonic, else the monotonic ones — whose failures prune the rest)."""
    lat = search.lattice
    state = search.traversal_state
    status = state.status
    rank = strategy_rank(search)
    levels = lat.levels
    strides = lat.strides
    top = lat.max

    def successors(nid: int) -> list[int]:
        row = levels[nid]
        return [nid + int(strides[j]) for j in range(lat.d) if row[j] < top[j]]

    heights = levels.sum(axis=1) - lat.min.sum()
    order = np.lexsort((rank, heights))  # by height, then strategy
    for start in order.tolist():
        if status[start] != UNKNOWN:
            continue
        queue = [(int(rank[start]), start)]
        while queue:
            _, head = heapq.heappop(queue)
            if status[head] != UNKNOWN:
                continue
            path = [head]
            while True:
                nxt = [x for x in successors(path[-1]) if status[x] == UNKNOWN]
                if not nxt:
                    break
                path.append(min(nxt, key=lambda x: rank[x]))
            lo, hi = 0, len(path) - 1
            while lo <= hi:
                mid = (lo + hi) // 2
                nid = path[mid]
                if search.classify_check(lat.node(nid)):
                    hi = mid - 1
                else:
                    for succ in successors(nid):
                        if status[succ] == UNKNOWN:
                            heapq.heappush(queue, (int(rank[succ]), succ))
                    lo = mid + 1


@algorithm(
    "flash",
    family="lattice",
    summary="globally optimal full-domain generalization, ARX's default (falls back to lightning above "
    "heuristic_threshold transformations)",
    default=True,
    label="Flash",
)
def flash(
    table: Table,
    models: list[Criterion],
    *,
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
    metric: object = None,
    heuristic_threshold: Annotated[int, Field(ge=1)] = DEFAULT_HEURISTIC_THRESHOLD,
    time_limit: Annotated[float, Field(gt=0)] = DEFAULT_TIME_LIMIT,
    step_limit: Annotated[int, Field(ge=1)] | None = None,
) -> Release:
    """Globally optimal full-domain generalization (ARX's default), see the module docstring.

    Parameters
    ----------
    max_suppression:
        Share of the records the models may suppress.
    heuristic_threshold:
        Above this many transformations the lattice is searched by lightning instead.
    time_limit:
        Seconds the lightning fallback may run.
    step_limit:
        Checks the lightning fallback may make (none: no limit).
    """
    search = Search(table, models, max_suppression=max_suppression, metric=metric)
    if search.lattice.size > heuristic_threshold:
        from anonkit.algorithms.lattice.lightning import lightning

        rel = lightning(table, models, max_suppression=max_suppression, metric=metric, time_limit=time_limit,
                        step_limit=step_limit)
        rel.algorithm = "flash"
        rel.search.fallback = (
            f"the lattice has {search.lattice.size:,} transformations, more than heuristic_threshold "
            f"({heuristic_threshold:,}): best-effort lightning search, not guaranteed optimal"
        )
        rel.message += "; " + rel.search.fallback
        return rel
    if search.has_traversal:
        classify(search)
    return search.release("flash", search.optimum())
