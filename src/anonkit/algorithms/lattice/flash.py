"""Flash (Kohlmayer, Prasser, Eckert, Kemper, Kuhn, PASSAT 2012; spec §5.3): globally optimal
full-domain generalization, as ARX's default algorithm.

Traversal: nodes are visited height by height in Flash's *strategy* order — (i) height / maximum
height, (ii) mean of ``level/height``, (iii) ``1 − mean(distinct values at the level / distinct
values at level 0)``, lower first. From each untagged node a path is built greedily upward (always
the first untagged direct successor in strategy order) and binary-searched; every check tags by
monotonicity, and the untagged successors of a failing node are queued. With non-monotonic models
the traversal has nothing to tag upward, so Flash goes straight to the lower-bound-ordered optimum
search (``_search``), which checks what it must — the role ARX's second phase plays.

Lattices larger than ``heuristic_threshold`` transformations are not searched optimally: Flash
then falls back to the best-effort ``lightning`` heuristic and says so in the result.
"""

from __future__ import annotations

import heapq

import numpy as np

from anonkit.algorithms.lattice._search import Search
from anonkit.algorithms.lattice._space import DEFAULT_HEURISTIC_THRESHOLD, UNKNOWN
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table


def strategy_keys(search: Search) -> dict[tuple[int, ...], tuple[float, float, float]]:
    """Flash's ordering key of every node."""
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
    return {tuple(int(x) for x in row): (float(a), float(b), float(c))
            for row, a, b, c in zip(levels, k1, k2, k3, strict=True)}


def classify(search: Search) -> None:
    """Flash's traversal with predictive tagging (only meaningful for monotonic models)."""
    lat = search.lattice
    state = search.start()
    keys = strategy_keys(search)

    def untagged(node: tuple[int, ...]) -> bool:
        return int(state.status[lat.id(node)]) == UNKNOWN

    by_height: dict[int, list[tuple[int, ...]]] = {}
    for node in lat.iter_nodes():
        by_height.setdefault(lat.height(node), []).append(node)
    for h in sorted(by_height):
        for start in sorted(by_height[h], key=lambda n: (keys[n], n)):
            if not untagged(start):
                continue
            queue = [(keys[start], start)]
            while queue:
                _, head = heapq.heappop(queue)
                if not untagged(head):
                    continue
                path = [head]
                while True:
                    nxt = [s for s in lat.successors(path[-1]) if untagged(s)]
                    if not nxt:
                        break
                    path.append(min(nxt, key=lambda n: (keys[n], n)))
                lo, hi = 0, len(path) - 1
                while lo <= hi:
                    mid = (lo + hi) // 2
                    node = path[mid]
                    if search.check(node):
                        hi = mid - 1
                    else:
                        for succ in lat.successors(node):
                            if untagged(succ):
                                heapq.heappush(queue, (keys[succ], succ))
                        lo = mid + 1


def flash(
    table: Table,
    models: list[Criterion],
    *,
    max_suppression: float = 0.0,
    metric: object = None,
    heuristic_threshold: int = DEFAULT_HEURISTIC_THRESHOLD,
    time_limit: float = 30.0,
    step_limit: int | None = None,
) -> Release:
    """Globally optimal full-domain generalization (ARX's default), see the module docstring."""
    search = Search(table, models, max_suppression=max_suppression, metric=metric)
    if search.lattice.size > heuristic_threshold:
        from anonkit.algorithms.lattice.lightning import lightning

        rel = lightning(table, models, max_suppression=max_suppression, metric=metric, time_limit=time_limit,
                        step_limit=step_limit)
        rel.algorithm = "flash"
        rel.extra["fallback"] = (
            f"the lattice has {search.lattice.size:,} transformations, more than heuristic_threshold "
            f"({heuristic_threshold:,}): best-effort lightning search, not guaranteed optimal"
        )
        rel.message += "; " + rel.extra["fallback"]
        return rel
    if search.fully_monotone:
        classify(search)
    return search.release("flash", search.optimum())
