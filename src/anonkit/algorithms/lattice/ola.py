"""OLA, Optimal Lattice Anonymization (El Emam et al., JAMIA 2009; spec §4.10): globally optimal
full-domain generalization by binary search over sub-lattices.

``Kmin(B, T)`` works on the sub-lattice of the nodes between a bottom ``B`` and a top ``T``
(componentwise). While it spans more than two heights, every node ``N`` at its middle height is
judged (from its tag, or checked and tagged): anonymous → ``Kmin(B, N)``, otherwise ``Kmin(N, T)``.
With two heights left, ``B`` is judged and, if it fails, ``T``. Every check tags by monotonicity
(predictive tagging, shared with the other lattice algorithms through the ``Search``). As in
anonbench, visited ``(B, T)`` pairs are memoized and a sub-lattice whose nodes are all tagged
already is skipped.

When ``Kmin(bottom, top)`` returns, every node is tagged: a node below the middle height lies
below an anonymous middle node (then ``Kmin(B, ·)`` covers it) or below a failing one (then it is
tagged failing); symmetrically above. So the k-minimal nodes — anonymous, with no anonymous direct
predecessor — are read off the tags. This is the set OLA's bookkeeping collects (the node ``N``
of each two-height step, dropping collected nodes above it), without the order dependence of that
bookkeeping (a node collected as some ``T`` may have an anonymous predecessor outside ``[B, T]``).

The optimum is then searched with the lower-bound-ordered search of ``_search``, which for a
monotone metric considers only the k-minimal nodes (spec §4.10 "Result"). With non-monotonic
models, predictive tagging by all models is unsound: as Flash does, the traversal then classifies
the lattice by the monotonic models alone (a node failing them fails everything, so it is pruned)
and the optimum search checks the remaining candidates against all models (ARX's second phase).
Without any monotonic model there is nothing to traverse and OLA goes straight to that search.
"""

from __future__ import annotations

import numpy as np

from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression
from anonkit.algorithms.lattice._search import Search
from anonkit.algorithms.lattice._space import (
    ANONYMOUS,
    INFERRED_ANONYMOUS,
    INFERRED_NOT_ANONYMOUS,
    NOT_ANONYMOUS,
    UNKNOWN,
    Lattice,
)
from anonkit.algorithms.spec import algorithm
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table

Node = tuple[int, ...]
ANON = (ANONYMOUS, INFERRED_ANONYMOUS)
FAIL = (NOT_ANONYMOUS, INFERRED_NOT_ANONYMOUS)


def minimal_mask(lattice: Lattice, member: np.ndarray) -> np.ndarray:
    """The members of the boolean node set ``member`` (by id) none of whose direct predecessors
    is a member."""
    levels = lattice.levels
    ids = np.arange(lattice.size)
    out = member.copy()
    for j, stride in enumerate(lattice.strides):
        has_pred = levels[:, j] > lattice.min[j]
        pred = np.where(has_pred, ids - stride, 0)
        out &= ~(has_pred & member[pred])
    return out


def k_minimal_nodes(search: Search) -> list[Node]:
    """The anonymous nodes none of whose direct predecessors is anonymous, read off the search's
    tags (every node must be tagged), in id order."""
    return k_minimal(search.lattice, search.start().status)


def k_minimal(lat: Lattice, status: np.ndarray) -> list[Node]:
    """The k-minimal nodes of a classified lattice (``status`` per node id, e.g. a release's
    :attr:`~anonkit.release.SearchStats.status`), in id order."""
    anon = np.isin(status, ANON)
    return [lat.node(int(i)) for i in np.flatnonzero(minimal_mask(lat, anon))]


def classify(search: Search) -> None:
    """OLA's traversal ``Kmin(bottom, top)`` over :attr:`Search.traversal_state`; tags every node."""
    lat = search.lattice
    status = search.traversal_state.status
    levels = lat.levels
    heights = levels.sum(axis=1)
    by_height = {int(h): np.flatnonzero(heights == h) for h in np.unique(heights)}
    visited: set[tuple[int, int]] = set()
    untagged = {"levels": levels, "stale": True}

    def judge(nid: int) -> bool:
        if status[nid] == UNKNOWN:
            untagged["stale"] = True
            return search.classify_id(nid)
        return int(status[nid]) in ANON

    def all_tagged(b: np.ndarray, t: np.ndarray) -> bool:
        if untagged["stale"]:
            untagged["levels"] = levels[status == UNKNOWN]
            untagged["stale"] = False
        u = untagged["levels"]
        return not ((u >= b) & (u <= t)).all(axis=1).any()

    def kmin(bottom: int, top: int) -> None:
        if (bottom, top) in visited:
            return
        visited.add((bottom, top))
        if int(status[top]) in FAIL or int(status[bottom]) in ANON:
            return  # everything in between is tagged already
        b, t = levels[bottom], levels[top]
        if all_tagged(b, t):
            return
        hb, ht = int(heights[bottom]), int(heights[top])
        if ht - hb > 1:
            ids = by_height[hb + (ht - hb) // 2]
            sub = levels[ids]
            for nid in ids[((sub >= b) & (sub <= t)).all(axis=1)].tolist():
                if judge(nid):
                    kmin(bottom, nid)
                else:
                    kmin(nid, top)
        elif not judge(bottom):
            judge(top)

    kmin(lat.id(lat.bottom), lat.id(lat.top))


@algorithm("ola", family="lattice", summary="globally optimal full-domain generalization by OLA's binary search "
           "on sub-lattices (k-minimal transformations)", engines=("local", "spark"))
def ola(
    table: Table,
    models: list[Criterion],
    *,
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
    metric: object = None,
) -> Release:
    """Globally optimal full-domain generalization by OLA's sub-lattice binary search, see the
    module docstring. With monotonic models the release's ``notes['k_minimal']`` lists the
    k-minimal transformations (level tuples in input column order)."""
    search = Search(table, models, max_suppression=max_suppression, metric=metric)
    if search.has_traversal:
        classify(search)
    if not search.fully_monotone:
        return search.release("ola", search.optimum())
    minimal = k_minimal_nodes(search)
    return search.release("ola", search.optimum(), k_minimal=minimal)
