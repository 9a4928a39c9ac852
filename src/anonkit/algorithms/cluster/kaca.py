"""KACA — k-anonymization by clustering in attribute hierarchies (Li, Wong, Fu, Pei, DaWaK 2006;
spec §4.9).

Every distinct quasi-identifier tuple starts as an equivalence class (EC) with its record count.
While some EC has fewer than ``k`` records, one such EC ``C1`` (generalized tuple ``q1``) is picked
and merged with the EC ``C2`` (tuple ``q2``, any size) at minimum distance

    ``dist(C1, C2) = |C1|·WHD(q1 → q12) + |C2|·WHD(q2 → q12)``, ``q12 = CCG(q1, q2)``,

where ``CCG`` is the closest common generalization (per attribute the lowest common ancestor in the
hierarchy) and WHD the tuple-level weighted hierarchical distance (spec §2.3: the average over the
QIs, ``uniform`` or ``height`` step weights). The merged EC is generalized to ``q12`` — which is
also the per-attribute LCA of all its records' values, what
:func:`~anonkit.algorithms.local.partition_release` publishes (``numeric="hierarchy"``).

Decisions (spec §4.9, §8 row 23):

* **pick order**: by default deterministic — the smallest EC first, then the one holding the
  smallest record id; with ``seed`` an EC of size < k is drawn uniformly at random (the paper's
  rule) from a ``numpy`` generator seeded with it;
* **ties** in distance (within a relative 1e-9): the EC created first wins; the initial ECs are
  created in the order of their first record, a merged EC after every EC that exists when it is
  formed;
* **k** is the largest minimum class size the models need (``KAnonymity(k)``, ``l`` of
  l-diversity…), 2 when no model needs more than 1 record and none is a k-anonymity model;
* **models a class of k records can fail** (l-diversity, t-closeness, β-likeness, δ-disclosure —
  every model on all QIs but k-anonymity): the paper does not say how to meet them. anonkit's
  extension (``failing="merge"``, the default; :mod:`anonkit.algorithms.cluster._merge`): once
  every EC has ``k`` records, an EC failing a model — judged on its size and sensitive histogram
  with the models' own ``passes`` — is merged with its nearest EC by the same distance
  ``dist(C1, C2)`` and the same CCG as above (any EC is a candidate; ties: the EC created first),
  the failing EC with the fewest records first (ties: the one holding the smallest record id),
  and again while the merged EC fails. ECs published with identical labels are one class of the
  release: when such a class fails, its smallest EC is merged with its nearest EC and the release
  is judged again, until nothing fails or one EC remains. Only then is anything suppressed: the
  single remaining EC when it still fails — unless suppressing the failing ECs of the clustering
  without these merges loses fewer records, which is then what is published (``merge_fallback``).
  The pick order of these merges is always the deterministic one (``seed`` only drives step 2).
  ``failing="suppress"`` suppresses failing ECs whole instead (no merges). ``notes``:
  ``model_merges`` (merges done for the models), ``merge_rounds``, ``merge_fallback``;
  ``merges`` counts all merges;
* **numeric QIs** are generalized in their hierarchy (KACA is hierarchy-based), like categorical
  ones; a QI without a hierarchy has the trivial ``{values} → *`` one (§0.2), so its values are
  either kept or fully generalized — give numeric QIs an interval hierarchy for useful results;
* when fewer than ``k`` records exist in total, everything ends in one EC that is too small and is
  suppressed (``satisfied`` false);
* records suppressed up front (missing values, ``missing="suppress"``) take no part;
* the values of every QI must share a root in its hierarchy (else :class:`InputError`);
* two ECs never end at the same nodes (a third EC already at the merged nodes would have been
  strictly closer), so the ECs are the release's classes; ECs that only share published labels
  are merged into one class by :func:`~anonkit.algorithms.local.partition_release`.

Efficiency: every EC is a vector of hierarchy *nodes* (one per QI; a node has a level and a
representative leaf, and the LCA level of two nodes is ``max(level₁, level₂, LCA level of the
leaves)``). Since ``dist·d = |C1|·(A − S1) + |C2|·(A − S2)`` with ``S`` the sum over the QIs of an
EC's WHD cost and ``A`` that of the CCG, one merge needs, per QI, the cost of the CCG of ``C1``'s
node with every node (a short row, looked up in a precomputed node × node table for hierarchies of
up to ``_MATRIX_LIMIT`` used leaves), gathered at every EC's node. QIs are packed into blocks whose
joint node space is at most ``_BLOCK`` (the rows combined by outer sums), so the pass over the ECs
is one ``take`` per block plus a few vector operations; dead ECs point to a ``+inf`` entry and are
compacted away (creation order kept) when they exceed a quarter of the live ones. Memory is
O(E·d) (no E×E matrix); time O(E²·blocks) for E distinct tuples (Adult, 19,502 tuples and 9 QIs,
k = 5: about 2 s). A merge for the models costs the same pass plus judging the merged EC on its
histogram (O(sensitive values)); each round of the release costs one
:func:`~anonkit.algorithms.local.partition_release` (two when something fails).

``notes['whd']`` is the total WHD distortion of the release (suppressed records count 1 each),
``notes['modification_rate']`` the share of modified QI cells (spec §2.4).
"""

from __future__ import annotations

import heapq
import time
from typing import Annotated

import numpy as np
from pydantic import Field

from anonkit.algorithms.cluster._merge import DEFAULT_FAILING, Failing, merge_until_pass, needs_merging
from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression, check_references, required_size
from anonkit.algorithms.local import partition_release
from anonkit.algorithms.spec import algorithm
from anonkit.errors import InputError
from anonkit.hierarchy import PairwiseLCA
from anonkit.metrics import modification_rate, whd, whd_step_weights
from anonkit.metrics.distortion import DEFAULT_WHD_BETA, DEFAULT_WHD_WEIGHTS, WHDWeights
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table

#: above this many distinct leaves in use, an attribute's LCA rows are computed per merge instead of
#: being looked up in a precomputed (leaves × leaves) matrix
_MATRIX_LIMIT = 1024
#: relative tolerance under which two distances count as tied
_TIE = 1e-9
#: largest joint node space of a block of attributes (see :func:`_blocks`)
_BLOCK = 4096


def check_single_root(table: Table, columns: list[int]) -> None:
    """Raise an :class:`InputError` when the values of a QI have no common ancestor (a hierarchy
    whose top level holds several nodes): a class mixing them could not be generalized."""
    for j in columns:
        h = table.hierarchies[j]
        codes = table.codes[~table.presuppressed, j]
        tops = np.unique(h.maps[h.height][codes])
        if len(tops) > 1:
            raise InputError(
                f"the hierarchy has {len(tops)} top nodes over the values in the data "
                f"({', '.join(map(str, h.labels[h.height][tops[:3]]))}…); clustering needs one root (add a '*' level)",
                column=table.qi[j],
            )


def live_tuples(table: Table) -> tuple[np.ndarray, np.ndarray]:
    """Distinct tuples not suppressed up front, in order of their first record, and those first
    record ids."""
    d = table.distinct
    first = np.full(d.size, table.n, dtype=np.int64)
    np.minimum.at(first, d.inverse, np.arange(table.n, dtype=np.int64))
    pre = np.zeros(d.size, dtype=bool)
    pre[d.inverse[table.presuppressed]] = True
    live = np.flatnonzero(~pre)
    live = live[np.argsort(first[live], kind="stable")]
    return live, first[live]


class _Attribute:
    """One QI's hierarchy restricted to the leaves in use and their ancestors (the *nodes* an EC can
    be generalized to): node levels, LCAs and the WHD cost of the CCG of two nodes."""

    def __init__(self, maps: np.ndarray, height: int, leaves: np.ndarray, cost: np.ndarray) -> None:
        self.height = height
        self.cost = cost  # WHD of generalizing a leaf to each level, cost[0] = 0
        u = len(leaves)
        self.lca = PairwiseLCA(maps, leaves, limit=_MATRIX_LIMIT)  # LCA level of two used leaves
        self.groups = self.lca.groups  # ancestor code per used leaf and level
        # node ids: level by level, the used ancestors in code order
        self.leaf_node = np.empty((height + 1, u), dtype=np.intp)  # node of every used leaf at each level
        levels, reps, base = [], [], 0
        for lv in range(height + 1):
            uniq, inv, first = _unique_first(self.groups[lv])
            self.leaf_node[lv] = base + inv
            levels.append(np.full(len(uniq), lv, dtype=np.int64))
            reps.append(first)
            base += len(uniq)
        self.n_nodes = base
        self.node_level = np.concatenate(levels)
        self.node_rep = np.concatenate(reps)  # a used leaf below every node
        self.node_cost = cost[self.node_level]
        self.cost_matrix: np.ndarray | None = None  # (nodes × nodes) cost of the CCG of two nodes
        if self.lca.matrix is not None and self.n_nodes <= _MATRIX_LIMIT:
            lca = np.maximum(self.lca.matrix[np.ix_(self.node_rep, self.node_rep)], self.node_level[:, None])
            self.cost_matrix = cost[np.maximum(lca, self.node_level[None, :])]

    def cost_row(self, node: int) -> np.ndarray:
        """WHD cost of the CCG of ``node`` with every node."""
        if self.cost_matrix is not None:
            return self.cost_matrix[node]
        lca = np.maximum(self.lca.row(int(self.node_rep[node]))[self.node_rep], self.node_level)
        return self.cost[np.maximum(lca, self.node_level[node])]

    def ccg(self, x: int, y: int) -> int:
        """The node of the CCG (lowest common ancestor) of nodes ``x`` and ``y``."""
        a, b = int(self.node_rep[x]), int(self.node_rep[y])
        lv = max(int(self.node_level[x]), int(self.node_level[y]))
        while self.groups[lv][a] != self.groups[lv][b]:
            lv += 1
        return int(self.leaf_node[lv, a])


def _unique_first(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted unique values, the inverse, and the first position of every unique value."""
    uniq, first, inv = np.unique(values, return_index=True, return_inverse=True)
    return uniq, inv.reshape(-1), first


def _blocks(attrs: list[_Attribute]) -> list[list[int]]:
    """Attributes packed into blocks whose joint node space stays small (≤ ``_BLOCK``): the distance
    pass then does one gather per block instead of one per attribute."""
    order = sorted(range(len(attrs)), key=lambda j: (attrs[j].n_nodes, j))
    blocks: list[list[int]] = []
    space = 0
    for j in order:
        n = attrs[j].n_nodes
        if blocks and space * n <= _BLOCK:
            blocks[-1].append(j)
            space *= n
        else:
            blocks.append([j])
            space = n
    return blocks


def _cost_table(height: int, weights: str, beta: float) -> np.ndarray:
    if height == 0:
        return np.zeros(1)
    w = whd_step_weights(height, weights, beta)  # type: ignore[arg-type]
    return np.concatenate([[0.0], np.cumsum(w)]) / w.sum()


@algorithm(
    "kaca",
    family="cluster",
    summary="k-anonymization by clustering in attribute hierarchies: merge each class smaller than k with "
    "its nearest by weighted hierarchical distance; classes failing l/t/β/δ are merged too",
    randomized=True,
)
def kaca(
    table: Table,
    models: list[Criterion],
    *,
    weights: WHDWeights = DEFAULT_WHD_WEIGHTS,
    beta: Annotated[float, Field(gt=0)] = DEFAULT_WHD_BETA,
    seed: int | None = None,
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
    failing: Failing = DEFAULT_FAILING,
) -> Release:
    """KACA clustering of the distinct QI tuples, see the module docstring.

    Parameters
    ----------
    weights, beta:
        WHD step weights (spec §2.3): ``uniform`` (default) or ``height`` (``1/(j−1)^β``, β ≥ 1).
    seed:
        ``None`` (default): deterministic pick order (smallest EC, then smallest record id); an
        integer: pick the EC to merge at random, reproducibly.
    max_suppression:
        Share of records that may be suppressed (classes failing a model) for ``satisfied``.
    failing:
        What happens to a class of at least ``k`` records that fails another model (l-diversity,
        t-closeness…): ``"merge"`` (default) merges it with its nearest EC until it holds (module
        docstring); ``"suppress"`` suppresses it (the behaviour without anonkit's extension).
    """
    started = time.perf_counter()
    models = list(models)
    check_references(table, models)
    if weights == "height" and not beta >= 1:
        raise InputError(f"beta must be at least 1 with height weights, got {beta!r}", key="beta")
    k = required_size(models)
    check_single_root(table, list(range(len(table.qi))))
    live, first = live_tuples(table)
    params = {
        "k": k, "weights": weights, "beta": beta, "seed": seed, "max_suppression": max_suppression,
        "failing": failing,
    }  # fmt: skip

    def build(rc: np.ndarray, judged: list[Criterion]) -> Release:
        return partition_release(
            table,
            rc,
            judged,
            algorithm="kaca",
            max_suppression=max_suppression,
            numeric="hierarchy",
            categorical="lca",
            started=started,
            params=params,
        )

    tuple_class = np.full(table.distinct.size, -1, dtype=np.int64)
    merges = 0
    if len(live) and len(table.qi):
        ecs = _Clustering(table, live, first, weights, beta)
        ecs.cluster(k, seed)
        merges = ecs.merges
        tuple_class[live] = ecs.roots()
        record_class = tuple_class[table.distinct.inverse]
        record_class[table.presuppressed] = -1
        if failing == "merge" and needs_merging(models):
            rel = merge_until_pass(table, models, ecs, record_class, ecs.capacity, build)
            merges = ecs.merges if not rel.notes["merge_fallback"] else merges
        else:
            rel = build(record_class, models)
    else:  # nothing to cluster, or no QI: one class (or none)
        tuple_class[live] = 0
        rel = build(tuple_class[table.distinct.inverse], models)
    rel.notes["k"] = k
    rel.notes["merges"] = merges
    for key, value in (("model_merges", 0), ("merge_rounds", 0), ("merge_fallback", False)):
        rel.notes.setdefault(key, value)
    rel.notes["whd"] = whd(table, rel, weights=weights, beta=beta).total
    rel.notes["modification_rate"] = modification_rate(table, rel)
    rel.seconds = time.perf_counter() - started
    return rel


class _Clustering:
    """KACA's ECs over the distinct tuples (see the module docstring, *Efficiency*): every EC has a
    stable id (the initial ECs ``0 … E−1`` in creation order, a merged EC the next free id) and a
    slot in the per-EC arrays (slots keep creation order and are compacted). Implements
    :class:`~anonkit.algorithms.cluster._merge.ClusterSpace`, so merging for the models uses the
    same distance and the same merge as the clustering."""

    def __init__(self, table: Table, live: np.ndarray, first: np.ndarray, weights: str, beta: float) -> None:
        dist_t = table.distinct
        E = len(live)
        d = len(table.qi)
        self.E, self.d = E, d
        cap = max(2 * E, 1)
        self.capacity = cap
        self.attrs: list[_Attribute] = []
        self.node = np.zeros((d, cap), dtype=np.intp)  # each EC's generalized node per attribute
        for j, h in enumerate(table.hierarchies):
            leaves, local = np.unique(dist_t.tuples[live, j], return_inverse=True)
            self.attrs.append(_Attribute(h.maps, h.height, leaves, _cost_table(h.height, weights, beta)))
            self.node[j, :E] = self.attrs[j].leaf_node[0][local.reshape(-1)]
        self.blocks = _blocks(self.attrs)
        self.node_cost = [a.node_cost.tolist() for a in self.attrs]
        self.strides = []
        for blk in self.blocks:
            st = np.ones(len(blk), dtype=np.intp)
            for i in range(len(blk) - 2, -1, -1):
                st[i] = st[i + 1] * self.attrs[blk[i + 1]].n_nodes
            self.strides.append(st)
        self.spaces = np.array(
            [int(np.prod([self.attrs[j].n_nodes for j in blk])) for blk in self.blocks], dtype=np.intp
        )
        self.joint = np.zeros((len(self.blocks), cap), dtype=np.intp)  # each EC's node tuple per block
        for b, blk in enumerate(self.blocks):
            for i, j in enumerate(blk):
                self.joint[b, :E] += self.node[j, :E] * self.strides[b][i]
        self.size = np.zeros(cap, dtype=np.float64)
        self.size[:E] = dist_t.counts[live]
        self.S = np.zeros(cap, dtype=np.float64)  # Σ_j cost of the EC's node: d × its tuple WHD (0 at first)
        self.firsts = np.zeros(cap, dtype=np.int64)
        self.firsts[:E] = first
        self.gid = np.zeros(cap, dtype=np.int64)
        self.gid[:E] = np.arange(E)
        self.slot_of = np.full(cap, -1, dtype=np.int64)
        self.slot_of[:E] = np.arange(E)
        self.parent = np.full(cap, -1, dtype=np.int64)
        self.dead = np.zeros(cap, dtype=bool)
        self.rowbufs = [np.append(np.zeros(int(sp)), np.inf) for sp in self.spaces]
        self.ccg_buf = np.zeros(cap, dtype=np.float64)
        self.tmp_buf = np.zeros(cap, dtype=np.float64)
        self.top, self._alive, self.next_gid = E, E, E
        self.merges = 0

    @property
    def alive(self) -> int:
        """Number of live ECs."""
        return self._alive

    def nearest(self, g: int) -> int:
        """The id of the live EC at minimum distance from EC ``g`` (ties: created first)."""
        c = int(self.slot_of[g])
        top, S, size = self.top, self.S, self.size
        # d × tuple WHD of the CCG of C with every EC, one gather per block of attributes
        view = slice(0, top)
        ccg = self.ccg_buf[view]
        tmp = self.tmp_buf[view]
        for b, blk in enumerate(self.blocks):
            row = self.attrs[blk[0]].cost_row(int(self.node[blk[0], c]))
            for j in blk[1:]:
                row = np.add.outer(row, self.attrs[j].cost_row(int(self.node[j, c]))).reshape(-1)
            self.rowbufs[b][:-1] = row  # the last entry (+inf) is where dead slots point
            # clip: no buffering
            self.rowbufs[b].take(self.joint[b, view], out=ccg if b == 0 else tmp, mode="clip")
            if b:
                ccg += tmp
        # dist = |C|·(ccg − S_C) + |C'|·(ccg − S_C'), in place (d × the spec's distance)
        np.subtract(ccg, S[view], out=tmp)
        tmp *= size[view]
        ccg -= S[c]
        ccg *= size[c]
        ccg += tmp
        ccg[c] = np.inf
        e = int(ccg.argmin())
        best = float(ccg[e])
        if e:  # the first EC within the tie tolerance
            e = int(np.argmax(ccg[: e + 1] <= best + _TIE * max(1.0, abs(best))))
        return int(self.gid[e])

    def merge(self, g: int, h: int) -> int:
        """Replace ECs ``g`` and ``h`` by one EC generalized to their CCG; return its id."""
        c, e = int(self.slot_of[g]), int(self.slot_of[h])
        node, joint, size, S = self.node, self.joint, self.size, self.S
        t = self.top
        for j, a in enumerate(self.attrs):
            node[j, t] = a.ccg(int(node[j, c]), int(node[j, e]))
        for b, blk in enumerate(self.blocks):
            joint[b, t] = sum(int(node[j, t]) * int(self.strides[b][i]) for i, j in enumerate(blk))
        S[t] = sum(self.node_cost[j][node[j, t]] for j in range(self.d))
        size[t] = size[c] + size[e]
        self.dead[t] = False
        self.firsts[t] = min(self.firsts[c], self.firsts[e])
        new = self.next_gid
        self.gid[t] = new
        self.slot_of[new] = t
        self.parent[g] = self.parent[h] = new
        for s in (c, e):  # dead slots: infinite distance from now on (size 1 keeps it +inf, not NaN)
            self.dead[s] = True
            size[s] = 1.0
            S[s] = 0.0
            joint[:, s] = self.spaces
        self.top += 1
        self._alive -= 1
        self.merges += 1
        self.next_gid += 1
        top, alive = self.top, self._alive
        if 4 * (top - alive) > alive and top > 64:  # compact: live slots to the front, creation order kept
            keep = np.flatnonzero(~self.dead[:top])
            n_keep = len(keep)
            for arr in (node, joint):
                arr[:, :n_keep] = arr[:, keep]
            for arr1 in (size, S, self.firsts, self.gid, self.dead):
                arr1[:n_keep] = arr1[keep]
            self.slot_of[self.gid[:n_keep]] = np.arange(n_keep)
            self.top = n_keep
        return new

    def cluster(self, k: int, seed: int | None) -> None:
        """Spec §4.9 step 2: merge ECs of fewer than ``k`` records with their nearest EC."""
        rng = np.random.default_rng(seed) if seed is not None else None
        heap: list[tuple[float, int, int]] = []
        small: list[int] = []
        pos: dict[int, int] = {}
        parent = self.parent

        def add_small(g: int) -> None:
            s = int(self.slot_of[g])
            if rng is None:
                heapq.heappush(heap, (float(self.size[s]), int(self.firsts[s]), g))
            else:
                pos[g] = len(small)
                small.append(g)

        def drop_small(g: int) -> None:  # only for the random pick; the heap skips dead entries
            i = pos.pop(g, None)
            if i is None:
                return
            last = small.pop()
            if last != g:
                small[i] = last
                pos[last] = i

        def pick() -> int | None:
            if rng is None:
                while heap:
                    _, _, g = heapq.heappop(heap)
                    if parent[g] < 0:
                        return g
                return None
            if not small:
                return None
            g = small[int(rng.integers(len(small)))]
            drop_small(g)
            return g

        for s in np.flatnonzero(self.size[: self.E] < k).tolist():
            add_small(s)
        while self._alive > 1:
            g = pick()
            if g is None:
                break
            h = self.nearest(g)
            t = self.merge(g, h)
            drop_small(h)
            if self.size[self.slot_of[t]] < k:
                add_small(t)

    def roots(self) -> np.ndarray:
        """The final EC id of every initial EC ``0 … E−1``."""
        n = self.next_gid
        root = np.arange(n, dtype=np.int64)
        has = self.parent[:n] >= 0
        root[has] = self.parent[:n][has]
        while True:
            nxt = root[root]
            if np.array_equal(nxt, root):
                break
            root = nxt
        return root[: self.E]
