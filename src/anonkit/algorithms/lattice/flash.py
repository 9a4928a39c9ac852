"""Flash (Kohlmayer, Prasser, Eckert, Kemper, Kuhn, PASSAT 2012; spec §5.3): globally optimal
full-domain generalization, as ARX's default algorithm — classifying only the nodes the optimum
needs.

Traversal (Flash's binary phase): nodes are taken in *priority* order, lowest first; from each
node neither classified nor pruned a path is built greedily upward (always the unclassified direct
successor of lowest priority) and binary-searched; every check tags by monotonicity
(``_space``: an up or down closure from the checked node), and the unclassified, unpruned
successors of a failing node are queued by priority. The priority is the metric's level-only lower
bound (``_score``), ties by Flash's *strategy* — (i) height / maximum height, (ii) mean of
``level/height``, (iii) ``1 − mean(distinct values at the level / distinct values at level 0)`` —
so with a metric without such a bound (DM, DM*, AECS) this is ARX's traversal order. Ordering the
paths by the bound keeps them inside the region where the optimum can lie, where the failing nodes
must be classified: on ARX's six Adult benchmarks (``benchmarks/bench_lattice.py``) Flash checks
56–93 % of the transformations ARX's Flash checks, against 73–103 % in ARX's strategy order.

Pruning (ARX's "insufficient utility", with a bound ARX does not have: ARX bounds a node by its
classes, so only after checking it): once an anonymous node has been scored, a node whose lower
bound is clearly worse than the best score can neither be optimal nor tie with the optimum, nor can
its generalizations (the bound never decreases upward). Such a node never starts a path and is
never queued; it may still lie on a path and be checked there, where a failing verdict tags the
low-bound nodes below it. So the traversal classifies every node that is not pruned, and leaves
the pruned ones unknown.

The optimum search of ``_search`` then finishes the work of ARX's linear phase: in bound order it
scores the anonymous nodes the traversal only inferred (when suppression makes the metric
non-monotone), and checks against all models the nodes the monotonic models passed, until the
bound is clearly worse than the best score. With non-monotonic models the traversal classifies by
the monotonic models alone (a node failing them fails everything, so it is pruned).

Lattices larger than ``heuristic_threshold`` transformations are not searched optimally: Flash
then falls back to a best-effort heuristic — lightning (bottom-up, the default), top-down or the
genetic search (seed :data:`~anonkit.algorithms.lattice.genetic.FALLBACK_SEED`), as ``heuristic`` says —
within ``time_limit`` and ``step_limit``, and says which in the result (``search.fallback``, the
message and ``notes["heuristic_used"]``).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Mapping
from typing import Annotated, Literal

import numpy as np
from pydantic import Field

from anonkit._kernels import tiered
from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression
from anonkit.algorithms.lattice._heuristic import STOP_DONE
from anonkit.algorithms.lattice._search import PASSED, Search, strategy_rank
from anonkit.algorithms.lattice._space import DEFAULT_HEURISTIC_THRESHOLD, DEFAULT_TIME_LIMIT, UNKNOWN
from anonkit.algorithms.lattice.genetic import FALLBACK_SEED, genetic
from anonkit.algorithms.lattice.lightning import STOP_EXHAUSTED, lightning
from anonkit.algorithms.lattice.topdown import top_down
from anonkit.algorithms.spec import algorithm
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table


def classify(search: Search) -> None:
    """Flash's traversal with predictive tagging and pruning (module docstring), over
    :attr:`Search.traversal_state` (all models when they are monotonic, else the monotonic ones —
    whose failures prune the rest). Leaves unknown only nodes :meth:`Search.pruned` at the end.

    Each path is built by one tiered kernel (:func:`path_py`, :func:`path_np`: the same greedy choice)
    over the status array the checks tag in place; the binary search and the queue stay here."""
    lat = search.lattice
    status = search.traversal_state.status
    priority = search.priority
    levels = lat.levels
    strides_arr = lat.strides
    maxs = np.ascontiguousarray(lat.max, dtype=np.int64)
    strides = strides_arr.tolist()
    top = lat.max.tolist()
    d = lat.d
    work = np.empty(lat.max_height + 1, dtype=np.int64)

    def successors(nid: int) -> list[int]:
        row = levels[nid].tolist()
        return [nid + strides[j] for j in range(d) if row[j] < top[j]]

    for start in _open_starts(search):
        if _closed(search, status, start):
            continue
        queue = [(int(priority[start]), start)]
        while queue:
            _, head = heapq.heappop(queue)
            if _closed(search, status, head):
                continue
            n = tiered(path_py, path_np, head, status, priority, levels, maxs, strides_arr, work)
            path = work[:n].tolist()
            lo, hi = 0, n - 1
            while lo <= hi:
                mid = (lo + hi) // 2
                nid = path[mid]
                if status[nid] == UNKNOWN:
                    anonymous = search.classify_id(nid)
                    if not anonymous:
                        pruned = search.pruned_mask()
                        for succ in successors(nid):
                            if status[succ] == UNKNOWN and (pruned is None or not pruned[succ]):
                                heapq.heappush(queue, (int(priority[succ]), succ))
                else:
                    anonymous = int(status[nid]) in PASSED
                if anonymous:
                    hi = mid - 1
                else:
                    lo = mid + 1


def _closed(search: Search, status: np.ndarray, nid: int) -> bool:
    """Whether node ``nid`` is classified, or irrelevant to the optimum (pruned)."""
    if status[nid] != UNKNOWN:
        return True
    pruned = search.pruned_mask()
    return pruned is not None and bool(pruned[nid])


def path_np(head: int, status: np.ndarray, priority: np.ndarray, levels: np.ndarray, maxs: np.ndarray,
            strides: np.ndarray, out: np.ndarray) -> int:
    """Flash's path from ``head`` into ``out`` (its length returned): ``head``, then repeatedly the
    unknown direct successor (one level up on one attribute, within ``maxs``) of lowest ``priority``
    (a permutation's ranks: no ties), until the last node has none. A path climbs one level per node,
    so it holds at most the lattice's height + 1 nodes (``out``'s size)."""
    n, cur = 0, head
    while True:
        out[n] = cur
        n += 1
        succ = cur + strides[levels[cur] < maxs]
        succ = succ[status[succ] == UNKNOWN]
        if not succ.size:
            return n
        cur = int(succ[np.argmin(priority[succ])])


def path_py(head: int, status: np.ndarray, priority: np.ndarray, levels: np.ndarray, maxs: np.ndarray,
            strides: np.ndarray, out: np.ndarray) -> int:
    """:func:`path_np` one successor at a time (compiled by numba): the lowest priority among the
    unknown successors, compared strictly as the numpy ``argmin`` does (priorities are distinct)."""
    d = maxs.shape[0]
    n = 0
    cur = head
    while True:
        out[n] = cur
        n += 1
        nxt = -1
        for j in range(d):
            if levels[cur, j] < maxs[j]:
                succ = cur + strides[j]
                if status[succ] == UNKNOWN and (nxt < 0 or priority[succ] < priority[nxt]):
                    nxt = succ
        if nxt < 0:
            return n
        cur = nxt


#: how many nodes of the strategy order :func:`_open_starts` checks at once
START_CHUNK = 256


def _open_starts(search: Search) -> Iterator[int]:
    """The nodes of :attr:`Search.order` that may still start a path: those open (unknown and not
    pruned) when their chunk of the order is read, checked a chunk at a time in numpy rather than
    one by one in Python; once a check was made or the best node changed since (a path was walked from
    the last start given), the rest of the chunk is read again. A node closed then stays closed (a
    status is set once; the pruned set only grows, as the best score only falls), so whenever the
    chunk is read, the nodes it leaves out are closed at their turn too and Flash skips the same starts;
    each one given is checked again when its turn comes (reading again is only for speed: Flash's
    starts are few, and without it most nodes given are closed by then)."""
    order = search.order
    status = search.traversal_state.status
    stats = search.start().stats
    for at in range(0, order.size, START_CHUNK):
        rest = order[at:at + START_CHUNK]
        while rest.size:
            open_ = status[rest] == UNKNOWN
            pruned = search.pruned_mask()
            if pruned is not None:
                open_ &= ~pruned[rest]
            starts = np.flatnonzero(open_).tolist()
            checked, best = stats.checked, search.best
            for pos in starts:
                if stats.checked != checked or search.best is not best:  # something was classified: read again
                    rest = rest[pos:]
                    break
                yield int(rest[pos])
            else:
                break


def _explain_fallback(table: Table, models: list[Criterion], release: Release, options: Mapping[str, object]
                      ) -> str | None:
    """Why a heuristic fallback that was cut short found nothing (one may exist: not "cannot be met")."""
    from anonkit.algorithms.lattice._heuristic import budget_reason
    from anonkit.algorithms.lattice.lightning import cut_short_reason

    if release.satisfied:
        return None
    used = release.notes.get("heuristic_used", DEFAULT_HEURISTIC)
    if used == DEFAULT_HEURISTIC:
        return cut_short_reason(release.notes)
    return budget_reason(str(used), release.notes.get("stopped"), int(release.notes.get("steps", 0)))


#: the heuristics flash can fall back to above ``heuristic_threshold``, by their config names (the
#: first, lightning, is the default)
HEURISTICS = {a.spec.name: a for a in (lightning, top_down, genetic)}  # type: ignore[attr-defined]
DEFAULT_HEURISTIC: str = next(iter(HEURISTICS))
Heuristic = Literal[tuple(HEURISTICS)]  # type: ignore[valid-type]


@algorithm(
    "flash",
    family="lattice",
    engines=("local", "spark"),
    summary="globally optimal full-domain generalization, ARX's default (falls back to lightning above "
    "heuristic_threshold transformations)",
    default=True,
    label="Flash",
    explain=_explain_fallback,
)
def flash(
    table: Table,
    models: list[Criterion],
    *,
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
    metric: object = None,
    heuristic_threshold: Annotated[int, Field(ge=1)] = DEFAULT_HEURISTIC_THRESHOLD,
    heuristic: Heuristic = DEFAULT_HEURISTIC,
    time_limit: Annotated[float, Field(gt=0)] = DEFAULT_TIME_LIMIT,
    step_limit: Annotated[int, Field(ge=1)] | None = None,
) -> Release:
    """Globally optimal full-domain generalization (ARX's default), see the module docstring.

    Parameters
    ----------
    max_suppression:
        Share of the records the models may suppress.
    heuristic_threshold:
        Above this many transformations the lattice is searched by a heuristic instead.
    heuristic:
        The heuristic above the threshold: lightning (bottom-up), top-down or genetic.
    time_limit:
        Seconds the heuristic fallback may run.
    step_limit:
        Checks the heuristic fallback may make (none: no limit).
    """
    search = Search(table, models, max_suppression=max_suppression, metric=metric)
    if search.lattice.size > heuristic_threshold:
        return _fallback(table, models, search.lattice.size, heuristic_threshold, heuristic,
                         dict(max_suppression=max_suppression, metric=metric, time_limit=time_limit,
                              step_limit=step_limit))
    if search.has_traversal:
        classify(search)
    return search.release("flash", search.optimum())


def _fallback(table: Table, models: list[Criterion], size: int, threshold: int, heuristic: str,
              options: dict[str, object]) -> Release:
    """The heuristic's release, marked as flash's, with the choice and whether it is optimal said."""
    run = HEURISTICS[heuristic]
    if run is genetic:
        rel = genetic(table, models, seed=FALLBACK_SEED, **options)
        exhausted = False  # the generations end; nothing proves the optimum
    else:
        rel = run(table, models, **options)
        # lightning exhausted its frontier, or top-down checked every node: the optimum
        exhausted = rel.notes.get("stopped") in (STOP_EXHAUSTED, STOP_DONE)
    rel.algorithm = "flash"
    rel.notes["heuristic_used"] = heuristic
    assert rel.search is not None
    rel.search.fallback = (
        f"the lattice has {size:,} transformations, more than heuristic_threshold ({threshold:,}): "
        f"{heuristic} search, "
        + ("run to the end, optimal" if exhausted else "not guaranteed optimal" if run is genetic
           else "cut short by its limits, not guaranteed optimal")
    )
    rel.message += "; " + rel.search.fallback
    return rel


__all__ = ["classify", "flash", "strategy_rank"]
