"""Incognito (LeFevre, DeWitt, Ramakrishnan, SIGMOD 2005; spec §5.2): globally optimal full-domain
generalization by a bottom-up search over the lattices of growing quasi-identifier subsets.

Round ``i`` works on every ``i``-subset ``S`` of the quasi-identifiers (input column order). Its
candidate nodes are those whose projections on every ``(i − 1)``-subset of ``S`` were anonymous in
the previous round (*subset property*). A breadth-first search in height order starts from the
candidate roots (no candidate direct predecessor); a node not yet marked is checked; an anonymous
node marks its generalizations anonymous without checks (*generalization property*; failing
checks also mark their specializations, which is equally sound), a failing node enqueues its
direct generalizations. The last round is the full lattice, checked through the ``Search`` so the
tags are the shared search state; nodes pruned by the subset property are tagged not anonymous
there. The optimum is then found by the lower-bound-ordered search of ``_search``.

A projection is judged on its own classes (the records grouped by the subset's generalized
values), not by setting the other attributes to their top level, since a hierarchy's top need not
be a single value. Anonymity requirements on attribute subsets (``KAnonymity(attributes=…)``) are
left out of projections: leaving out a model only makes a projection easier to pass, which keeps
the pruning sound.

When is the subset property sound? Every projected class is a union of full classes. Write ``P``
for a projected class and ``C ⊆ P`` for a full class.

* Without suppression (limit 0) it holds for every model monotonic under generalization: a full
  node is anonymous only if all its classes pass, and such models pass on unions of passing
  classes, so every projected class passes.
* With suppression it needs models that a class passes whenever a part of it passes (class size
  for k-anonymity, distinct sensitive values for distinct l-diversity): then a record released
  by the full node (``C`` passes) is released by the projection (``P ⊇ C`` passes), so the
  projection suppresses no more records than the full node. It fails for t-closeness, β-likeness
  and entropy or recursive l-diversity: a passing class merged with a failing one may fail. For
  k-anonymity: ``|P| < k`` implies ``|C| < k`` for every ``C ⊆ P``.

If the subset property is not sound (suppression with a model of the second kind), only the last
round runs (no subset pruning).

With non-monotonic models, predictive tagging by all models is unsound: as Flash does, the rounds
then classify by the monotonic models alone (``Search.traversal_state``; a node failing them
fails everything, so it is pruned, and so is a node with a projection failing them where the
subset property holds for them), and the optimum search checks the remaining candidates against
all models. Without any monotonic model Incognito goes straight to that search.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Sequence

import numpy as np

from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression
from anonkit.algorithms.lattice._search import Search
from anonkit.algorithms.lattice._space import (
    ANONYMOUS,
    INFERRED_ANONYMOUS,
    INFERRED_NOT_ANONYMOUS,
    UNKNOWN,
    Lattice,
    SearchState,
)
from anonkit.algorithms.lattice.ola import k_minimal_nodes, minimal_mask
from anonkit.algorithms.spec import algorithm
from anonkit.algorithms.transform import presuppressed_weight
from anonkit.models import Criterion, DistinctLDiversity, KAnonymity
from anonkit.release import Release
from anonkit.table import Table

Node = tuple[int, ...]
Subset = tuple[int, ...]

#: models that pass on a class whenever they pass on a part of it (see the module docstring)
SUPERSET_CLOSED = (KAnonymity, DistinctLDiversity)


def projection_models(search: Search) -> list[Criterion]:
    """The models projections are judged by: those of the traversal (all models when every one is
    monotonic, else the monotonic ones), without requirements on attribute subsets."""
    return [m for m in search.models if m.qis is None and search.monotone(m)]


def subset_property_sound(search: Search) -> bool:
    """Whether a projection failing :func:`projection_models` proves that the full node fails
    them (module docstring)."""
    if not search.has_traversal:
        return False
    models = projection_models(search)
    if search.limit == 0:
        return all(m.monotonic_generalization for m in models)
    return all(isinstance(m, SUPERSET_CLOSED) for m in models)


class Projections:
    """Anonymity of generalizations restricted to subsets of the quasi-identifiers."""

    def __init__(self, search: Search, models: Sequence[Criterion] | None = None) -> None:
        self.table = search.table
        #: by default :func:`projection_models`; models on attribute subsets are always left out
        self.models = projection_models(search) if models is None else [m for m in models if m.qis is None]
        self.limit = search.limit
        self.weight = presuppressed_weight(search.table) if search.table.presuppressed.any() else None
        self.checked = 0

    def anonymous(self, subset: Subset, node: Node) -> bool:
        """Whether the records grouped by the QIs ``subset`` at levels ``node`` satisfy the models
        with at most ``limit`` records in failing classes."""
        self.checked += 1
        table = self.table
        levels = [0] * len(table.qi)
        for j, level in zip(subset, node, strict=True):
            levels[j] = level
        tc, n_classes = table.tuple_classes(levels, list(subset))
        stats = table.stats(tc, n_classes, self.weight, models=self.models)
        ok = stats.sizes > 0
        alive = np.flatnonzero(ok)
        current = stats.subset(alive)
        for m in self.models:
            if not alive.size:
                break
            passed = m.passes(current)
            if not passed.all():
                ok[alive[~passed]] = False
                alive = alive[passed]
                current = current.subset(passed)
        return int(stats.sizes[~ok].sum()) <= self.limit


def _bfs(lattice: Lattice, state: SearchState, candidate: np.ndarray, check: Callable[[Node], bool]) -> None:
    """Incognito's breadth-first search over the candidate nodes, in height order."""
    heights = lattice.levels.sum(axis=1)
    queue = [(int(heights[nid]), int(nid)) for nid in np.flatnonzero(minimal_mask(lattice, candidate))]
    heapq.heapify(queue)
    queued = {nid for _, nid in queue}
    while queue:
        _, nid = heapq.heappop(queue)
        if int(state.status[nid]) != UNKNOWN:
            continue  # marked by the generalization property (or tagged otherwise)
        node = lattice.node(nid)
        if check(node):
            continue  # the check marked its generalizations anonymous
        for succ in lattice.successors(node):
            sid = lattice.id(succ)
            if candidate[sid] and sid not in queued:
                queued.add(sid)
                heapq.heappush(queue, (int(heights[sid]), sid))


def _candidates(
    lattice: Lattice, subset: Subset, previous: dict[Subset, tuple[Lattice, SearchState]]
) -> np.ndarray:
    """Nodes of ``subset``'s lattice whose every projection one attribute smaller is anonymous."""
    levels = lattice.levels
    cand = np.ones(lattice.size, dtype=bool)
    if len(subset) <= 1:
        return cand
    for drop in range(len(subset)):
        keep = [p for p in range(len(subset)) if p != drop]
        sub_lat, sub_state = previous[tuple(subset[p] for p in keep)]
        ids = (levels[:, keep] - sub_lat.min) @ sub_lat.strides
        cand &= np.isin(sub_state.status[ids], (ANONYMOUS, INFERRED_ANONYMOUS))
    return cand


def classify(search: Search, *, prune_subsets: bool = True) -> dict[str, int]:
    """Incognito's rounds; leaves every node of the full lattice tagged. Returns counts."""
    lat = search.lattice
    d = lat.d
    state = search.traversal_state
    proj = Projections(search)
    previous: dict[Subset, tuple[Lattice, SearchState]] = {}
    pruned = 0
    first_round = min(1, d) if prune_subsets else d
    for size in range(first_round, d + 1):
        current: dict[Subset, tuple[Lattice, SearchState]] = {}
        for subset in itertools.combinations(range(d), size):
            if size == d:
                sub_lat, sub_state = lat, state
            else:
                sub_lat = Lattice([lat.names[j] for j in subset], [int(lat.min[j]) for j in subset],
                                  [int(lat.max[j]) for j in subset])
                sub_state = SearchState(sub_lat)
            cand = _candidates(sub_lat, subset, previous) if size > first_round else np.ones(sub_lat.size, bool)
            if size == d:
                mask = ~cand & (state.status == UNKNOWN)
                state.status[mask] = INFERRED_NOT_ANONYMOUS
                state.stats.inferred += int(mask.sum())
                pruned = int((~cand).sum())
                _bfs(lat, state, cand, search.classify_check)
            else:
                def check(node: Node, subset: Subset = subset, sub_state: SearchState = sub_state) -> bool:
                    ok = proj.anonymous(subset, node)
                    sub_state.tag(node, ok, infer=True)
                    return ok

                sub_state.status[~cand] = INFERRED_NOT_ANONYMOUS
                _bfs(sub_lat, sub_state, cand, check)
            current[subset] = (sub_lat, sub_state)
        previous = current
    return {"subset_checks": proj.checked, "pruned_by_subsets": pruned}


@algorithm("incognito", family="lattice", summary="globally optimal full-domain generalization by Incognito's "
           "bottom-up search over attribute subsets", engines=("local", "spark"))
def incognito(
    table: Table,
    models: Sequence[Criterion],
    *,
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
    metric: object = None,
) -> Release:
    """Globally optimal full-domain generalization by Incognito, see the module docstring. The
    release's ``extra`` counts the projection checks (``subset_checks``) and the nodes pruned by
    the subset property (``pruned_by_subsets``); with monotonic models it lists the k-minimal
    transformations (``k_minimal``)."""
    search = Search(table, list(models), max_suppression=max_suppression, metric=metric)
    counts: dict[str, int] = {}
    if search.has_traversal:
        counts = classify(search, prune_subsets=subset_property_sound(search))
    if not search.fully_monotone:
        return search.release("incognito", search.optimum(), **counts)
    minimal = k_minimal_nodes(search)
    return search.release("incognito", search.optimum(), k_minimal=minimal, **counts)
