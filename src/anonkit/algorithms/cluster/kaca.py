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
  l-diversity…), 2 when no model needs more than 1 record and none is a k-anonymity model; the
  other models (l-diversity, t-closeness…) are only judged afterwards: ECs failing them are
  suppressed whole by :func:`~anonkit.algorithms.local.partition_release`;
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
k = 5: about 2 s).

``extra['whd']`` is the total WHD distortion of the release (suppressed records count 1 each),
``extra['modification_rate']`` the share of modified QI cells (spec §2.4).
"""

from __future__ import annotations

import heapq
import time
from typing import Literal

import numpy as np

from anonkit.algorithms.local import partition_release
from anonkit.algorithms.transform import suppression_limit
from anonkit.errors import InputError
from anonkit.metrics.utility import modification_rate, whd, whd_step_weights
from anonkit.models import Criterion, KAnonymity
from anonkit.release import Release
from anonkit.table import Table

#: above this many distinct leaves in use, an attribute's LCA rows are computed per merge instead of
#: being looked up in a precomputed (leaves × leaves) matrix
_MATRIX_LIMIT = 1024
#: relative tolerance under which two distances count as tied
_TIE = 1e-9
#: largest joint node space of a block of attributes (see :func:`_blocks`)
_BLOCK = 4096


def required_size(models: list[Criterion]) -> int:
    """The class size clustering aims for: the largest minimum class size of the models on all QIs
    (``k`` of k-anonymity, ``l`` of l-diversity…), 2 if that is 1 and no k-anonymity model is given."""
    sizes = [int(m.minimum_class_size()) for m in models if m.qis is None]
    k = max(sizes, default=1)
    if k <= 1 and not any(isinstance(m, KAnonymity) for m in models):
        k = 2
    return max(k, 1)


def check_references(table: Table, models: list[Criterion]) -> None:
    """Raise an :class:`InputError` when a model names an attribute of the wrong role (unlike the
    lattice algorithms, a model needing more records than the table has is no error here: the
    release then suppresses everything and reports ``satisfied`` false)."""
    for m in models:
        if m.attribute is not None and m.attribute not in table.sensitive:
            raise InputError(f"{m.name} refers to an attribute that is not sensitive", column=m.attribute)
        for q in m.qis or ():
            if q not in table.qi:
                raise InputError(f"{m.name} refers to an attribute that is not a quasi-identifier", column=q)


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
        self.groups = [maps[lv][leaves] for lv in range(height + 1)]  # ancestor code per used leaf and level
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
        self.leaf_lca: np.ndarray | None = None  # (u × u) LCA level of two used leaves
        self.cost_matrix: np.ndarray | None = None  # (nodes × nodes) cost of the CCG of two nodes
        if u <= _MATRIX_LIMIT:
            m = np.full((u, u), height, dtype=np.int16)
            for lv in range(height - 1, -1, -1):
                g = self.groups[lv]
                m[g[:, None] == g[None, :]] = lv
            self.leaf_lca = m
            if self.n_nodes <= _MATRIX_LIMIT:
                lca = np.maximum(m[np.ix_(self.node_rep, self.node_rep)], self.node_level[:, None])
                self.cost_matrix = cost[np.maximum(lca, self.node_level[None, :])]

    def _leaf_row(self, a: int) -> np.ndarray:
        """LCA level of used leaf ``a`` with every used leaf."""
        if self.leaf_lca is not None:
            return self.leaf_lca[a]
        row = np.full(len(self.groups[0]), self.height, dtype=np.int16)
        for lv in range(self.height - 1, -1, -1):
            g = self.groups[lv]
            row[g == g[a]] = lv
        return row

    def cost_row(self, node: int) -> np.ndarray:
        """WHD cost of the CCG of ``node`` with every node."""
        if self.cost_matrix is not None:
            return self.cost_matrix[node]
        lca = np.maximum(self._leaf_row(int(self.node_rep[node]))[self.node_rep], self.node_level)
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


def kaca(
    table: Table,
    models: list[Criterion],
    *,
    weights: Literal["uniform", "height"] = "uniform",
    beta: float = 1.0,
    seed: int | None = None,
    max_suppression: float = 0.0,
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
    """
    started = time.perf_counter()
    models = list(models)
    check_references(table, models)
    suppression_limit(max_suppression, table.n)  # validates
    if weights not in ("uniform", "height"):
        raise InputError(f"unknown WHD weights {weights!r}; allowed: uniform, height", key="weights")
    if weights == "height" and not beta >= 1:
        raise InputError(f"beta must be at least 1, got {beta!r}", key="beta")
    k = required_size(models)
    check_single_root(table, list(range(len(table.qi))))
    live, first = live_tuples(table)
    tuple_class, merges = _cluster(table, live, first, k, weights, beta, seed)
    record_class = tuple_class[table.distinct.inverse]
    params = {"k": k, "weights": weights, "beta": beta, "seed": seed, "max_suppression": max_suppression}

    def build(rc: np.ndarray) -> Release:
        return partition_release(
            table,
            rc,
            models,
            algorithm="kaca",
            max_suppression=max_suppression,
            numeric="hierarchy",
            categorical="lca",
            started=started,
            params=params,
        )

    rel = build(record_class)
    rel.extra["k"] = k
    rel.extra["merges"] = merges
    rel.extra["whd"] = whd(table, rel, weights=weights, beta=beta).total
    rel.extra["modification_rate"] = modification_rate(table, rel)
    rel.seconds = time.perf_counter() - started
    return rel


def _cluster(
    table: Table, live: np.ndarray, first: np.ndarray, k: int, weights: str, beta: float, seed: int | None
) -> tuple[np.ndarray, int]:
    """EC id of every distinct tuple (−1 for tuples not taking part) and the number of merges."""
    dist_t = table.distinct
    out = np.full(dist_t.size, -1, dtype=np.int64)
    E = len(live)
    d = len(table.qi)
    if E == 0:
        return out, 0
    if d == 0:
        out[live] = 0
        return out, 0
    # ------------------------------------------------------------------ per-EC state, slots in creation order
    cap = 2 * E
    attrs: list[_Attribute] = []
    node = np.zeros((d, cap), dtype=np.intp)  # each EC's generalized node per attribute
    for j, h in enumerate(table.hierarchies):
        leaves, local = np.unique(dist_t.tuples[live, j], return_inverse=True)
        attrs.append(_Attribute(h.maps, h.height, leaves, _cost_table(h.height, weights, beta)))
        node[j, :E] = attrs[j].leaf_node[0][local.reshape(-1)]
    blocks = _blocks(attrs)
    node_cost = [a.node_cost.tolist() for a in attrs]
    strides = []
    for blk in blocks:
        st = np.ones(len(blk), dtype=np.intp)
        for i in range(len(blk) - 2, -1, -1):
            st[i] = st[i + 1] * attrs[blk[i + 1]].n_nodes
        strides.append(st)
    spaces = np.array([int(np.prod([attrs[j].n_nodes for j in blk])) for blk in blocks], dtype=np.intp)
    joint = np.zeros((len(blocks), cap), dtype=np.intp)  # each EC's node tuple within each block
    for b, blk in enumerate(blocks):
        for i, j in enumerate(blk):
            joint[b, :E] += node[j, :E] * strides[b][i]
    size = np.zeros(cap, dtype=np.float64)
    size[:E] = dist_t.counts[live]
    S = np.zeros(cap, dtype=np.float64)  # Σ_j cost of the EC's node: d × its tuple WHD (0 at first)
    firsts = np.zeros(cap, dtype=np.int64)
    firsts[:E] = first
    gid = np.zeros(cap, dtype=np.int64)
    gid[:E] = np.arange(E)
    slot_of = np.full(cap, -1, dtype=np.int64)
    slot_of[:E] = np.arange(E)
    parent = np.full(cap, -1, dtype=np.int64)
    dead = np.zeros(cap, dtype=bool)
    rowbufs = [np.append(np.zeros(int(sp)), np.inf) for sp in spaces]
    ccg_buf = np.zeros(cap, dtype=np.float64)
    tmp_buf = np.zeros(cap, dtype=np.float64)
    top, alive, next_gid = E, E, E

    # ------------------------------------------------------------------ the ECs still too small
    rng = np.random.default_rng(seed) if seed is not None else None
    heap: list[tuple[float, int, int]] = []
    small: list[int] = []
    pos: dict[int, int] = {}

    def add_small(g: int, s: int) -> None:
        if rng is None:
            heapq.heappush(heap, (float(size[s]), int(firsts[s]), g))
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

    for s in np.flatnonzero(size[:E] < k).tolist():
        add_small(s, s)

    merges = 0
    while alive > 1:
        g = pick()
        if g is None:
            break
        c = int(slot_of[g])
        # d × tuple WHD of the CCG of C with every EC, one gather per block of attributes
        view = slice(0, top)
        ccg = ccg_buf[view]
        tmp = tmp_buf[view]
        for b, blk in enumerate(blocks):
            row = attrs[blk[0]].cost_row(int(node[blk[0], c]))
            for j in blk[1:]:
                row = np.add.outer(row, attrs[j].cost_row(int(node[j, c]))).reshape(-1)
            rowbufs[b][:-1] = row  # the last entry (+inf) is where dead slots point
            rowbufs[b].take(joint[b, view], out=ccg if b == 0 else tmp, mode="clip")  # clip: no buffering
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
        # merge C and C' into a new EC at slot ``top``
        t = top
        for j, a in enumerate(attrs):
            node[j, t] = a.ccg(int(node[j, c]), int(node[j, e]))
        for b, blk in enumerate(blocks):
            joint[b, t] = sum(int(node[j, t]) * int(strides[b][i]) for i, j in enumerate(blk))
        S[t] = sum(node_cost[j][node[j, t]] for j in range(d))
        size[t] = size[c] + size[e]
        dead[t] = False
        firsts[t] = min(firsts[c], firsts[e])
        ge = int(gid[e])
        gid[t] = next_gid
        slot_of[next_gid] = t
        parent[g] = parent[ge] = next_gid
        drop_small(ge)
        for s in (c, e):  # dead slots: infinite distance from now on (size 1 keeps it +inf, not NaN)
            dead[s] = True
            size[s] = 1.0
            S[s] = 0.0
            joint[:, s] = spaces
        top += 1
        alive -= 1
        merges += 1
        if size[t] < k:
            add_small(next_gid, t)
        next_gid += 1
        if 4 * (top - alive) > alive and top > 64:  # compact: live slots to the front, creation order kept
            keep = np.flatnonzero(~dead[:top])
            n_keep = len(keep)
            for arr in (node, joint):
                arr[:, :n_keep] = arr[:, keep]
            for arr1 in (size, S, firsts, gid, dead):
                arr1[:n_keep] = arr1[keep]
            slot_of[gid[:n_keep]] = np.arange(n_keep)
            top = n_keep
    # ------------------------------------------------------------------ resolve the final ECs
    root = np.arange(next_gid, dtype=np.int64)
    has = parent[:next_gid] >= 0
    root[has] = parent[:next_gid][has]
    while True:
        nxt = root[root]
        if np.array_equal(nxt, root):
            break
        root = nxt
    out[live] = root[:E]
    return out, merges
