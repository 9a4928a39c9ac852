"""Numba kernels of the background-knowledge algorithms (UHRA's t-k-Utility, k-primacy, BKA-JS).

Everything here works on one BK cluster at a time, on plain arrays:

* the records' QIs in the §0.3 space: ``X`` (``c × p`` numeric values divided by the attribute's range,
  NaN = missing) and ``C`` (``c × q`` local leaf codes), with ``anc[a, level, leaf]`` the ancestor of a
  leaf at each hierarchy level, ``heights[a]`` and ``miss[a]`` the local code of the missing value
  (−1 if none);
* ``sa`` the records' sensitive codes;
* the *closing test* of a group, from its sensitive histogram and size: size ≥ ``k``, every
  t-closeness bound (``kinds``: 1 equal, 2 ordered, 3 hierarchical EMD against ``tref``), and
  β-likeness against ``bref`` with per-value bounds ``bound`` (when ``use_beta``). The formulas are
  those of :mod:`anonkit.models.tcloseness` and :mod:`anonkit.models.likeness`, with the same 1e-12
  tolerance; the release is judged again by the models themselves afterwards.

The functions are plain Python (testable without numba) compiled on first use.
"""

from __future__ import annotations

import numpy as np

TOL = 1e-12


def _emd_hier_py(
    p: np.ndarray, q: np.ndarray, parents: np.ndarray, level_sizes: np.ndarray, height: int
) -> float:
    s = p.shape[0]
    extra = np.empty(s)
    for i in range(s):
        extra[i] = p[i] - q[i]
    n_children = s
    cost = 0.0
    for level in range(1, height + 1):
        n_nodes = level_sizes[level]
        pos = np.zeros(n_nodes)
        neg = np.zeros(n_nodes)
        for i in range(n_children):
            e = extra[i]
            par = parents[level - 1, i]
            if e > 0:
                pos[par] += e
            else:
                neg[par] -= e
        acc = 0.0
        for j in range(n_nodes):
            acc += min(pos[j], neg[j])
        cost += (level / height) * acc
        extra = pos - neg
        n_children = n_nodes
    return cost


def _passes_py(
    hist: np.ndarray,
    size: float,
    k: int,
    kinds: np.ndarray,
    ts: np.ndarray,
    tref: np.ndarray,
    parents: np.ndarray,
    level_sizes: np.ndarray,
    height: int,
    use_beta: bool,
    bound: np.ndarray,
    bref: np.ndarray,
) -> bool:
    if size < k or size <= 0:
        return False
    s = hist.shape[0]
    for m in range(kinds.shape[0]):
        kind = kinds[m]
        e = 0.0
        if kind == 1:
            for i in range(s):
                e += abs(hist[i] / size - tref[i])
            e *= 0.5
        elif kind == 2:
            if s > 1:
                cum = 0.0
                for i in range(s):
                    cum += hist[i] / size - tref[i]
                    e += abs(cum)
                e /= s - 1
        else:
            p = hist / size
            e = _emd_hier(p, tref, parents, level_sizes, height)
        if e > ts[m] + TOL:
            return False
    if use_beta:
        for i in range(s):
            q = bref[i]
            if q > 0:
                p_i = hist[i] / size
                if p_i > q and (p_i - q) / q > bound[i] + TOL:
                    return False
    return True


def _delta_cat_py(anc: np.ndarray, a: int, height: int, u: int, v: int, miss: int) -> float:
    """§0.3 δ between two leaves of categorical attribute ``a`` (LCA height over tree height)."""
    if u == v:
        return 0.0
    if u == miss or v == miss or height == 0:
        return 1.0
    for level in range(1, height + 1):
        if anc[a, level, u] == anc[a, level, v]:
            return level / height
    return 1.0


def _record_dist2_py(
    X: np.ndarray, C: np.ndarray, anc: np.ndarray, heights: np.ndarray, miss: np.ndarray, i: int, j: int
) -> float:
    d = 0.0
    for a in range(X.shape[1]):
        x, y = X[i, a], X[j, a]
        if np.isnan(x) or np.isnan(y):
            d += 1.0
        else:
            d += (x - y) * (x - y)
    for a in range(C.shape[1]):
        e = _delta_cat(anc, a, heights[a], C[i, a], C[j, a], miss[a])
        d += e * e
    return d


def _npn_py(
    X: np.ndarray,
    C: np.ndarray,
    anc: np.ndarray,
    heights: np.ndarray,
    miss: np.ndarray,
    start: int,
    rank: np.ndarray,
) -> np.ndarray:
    """Nearest-point-next order of the rows of ``X``/``C`` from ``start``; ties: lowest ``rank``."""
    u = X.shape[0] if X.shape[1] > 0 else C.shape[0]
    order = np.empty(u, dtype=np.int64)
    visited = np.zeros(u, dtype=np.bool_)
    cur = start
    for step in range(u):
        order[step] = cur
        visited[cur] = True
        best = -1
        bd = np.inf
        for j in range(u):
            if visited[j]:
                continue
            d = _record_dist2(X, C, anc, heights, miss, cur, j)
            if d < bd or (d == bd and rank[j] < rank[best]):
                bd = d
                best = j
        cur = best
    return order


def _centroid_dist2_py(
    X: np.ndarray,
    C: np.ndarray,
    miss: np.ndarray,
    r: int,
    g: int,
    size: np.ndarray,
    nsum: np.ndarray,
    nknown: np.ndarray,
    ccount: np.ndarray,
    coff: np.ndarray,
) -> float:
    """§0.3 squared distance of record ``r`` to the centroid of group ``g``: numeric mean of the
    known values; categorical δ = share of the group holding another value (1 for a missing value)."""
    d = 0.0
    for a in range(X.shape[1]):
        x = X[r, a]
        if np.isnan(x) or nknown[g, a] == 0:
            d += 1.0
        else:
            diff = x - nsum[g, a] / nknown[g, a]
            d += diff * diff
    for a in range(C.shape[1]):
        v = C[r, a]
        if v == miss[a]:
            d += 1.0
        else:
            e = 1.0 - ccount[g, coff[a] + v] / size[g]
            d += e * e
    return d


def _centroid_dist2_upto_py(
    X: np.ndarray,
    C: np.ndarray,
    miss: np.ndarray,
    r: int,
    g: int,
    size: np.ndarray,
    nsum: np.ndarray,
    nknown: np.ndarray,
    ccount: np.ndarray,
    coff: np.ndarray,
    limit: float,
) -> float:
    """:func:`_centroid_dist2_py`, stopping as soon as the partial sum exceeds ``limit``: the terms are
    added in the same order and are ≥ 0, and a rounded sum of non-negative terms never decreases, so
    a value above ``limit`` is returned exactly when the full distance is above it (then it is a lower
    bound, enough to lose every ``<`` and ``==`` comparison with ``limit``); otherwise it is the distance.
    One loop over all QIs with the bound in its condition (an early ``return`` inside the loops compiles
    to code about five times slower)."""
    d = 0.0
    p = X.shape[1]
    a = 0
    while a < p + C.shape[1] and d <= limit:
        if a < p:
            x = X[r, a]
            if np.isnan(x) or nknown[g, a] == 0:
                d += 1.0
            else:
                diff = x - nsum[g, a] / nknown[g, a]
                d += diff * diff
        else:
            b = a - p
            v = C[r, b]
            if v == miss[b]:
                d += 1.0
            else:
                e = 1.0 - ccount[g, coff[b] + v] / size[g]
                d += e * e
        a += 1
    return d


def _add_py(
    X: np.ndarray,
    C: np.ndarray,
    sa: np.ndarray,
    r: int,
    g: int,
    sign: float,
    size: np.ndarray,
    hist: np.ndarray,
    nsum: np.ndarray,
    nknown: np.ndarray,
    ccount: np.ndarray,
    coff: np.ndarray,
) -> None:
    size[g] += sign
    hist[g, sa[r]] += sign
    for a in range(X.shape[1]):
        x = X[r, a]
        if not np.isnan(x):
            nsum[g, a] += sign * x
            nknown[g, a] += sign
    for a in range(C.shape[1]):
        ccount[g, coff[a] + C[r, a]] += sign


def _best_group_py(
    X: np.ndarray,
    C: np.ndarray,
    miss: np.ndarray,
    r: int,
    n_groups: int,
    size: np.ndarray,
    nsum: np.ndarray,
    nknown: np.ndarray,
    ccount: np.ndarray,
    coff: np.ndarray,
) -> tuple[int, float]:
    """The group whose centroid is nearest to record ``r`` (ties: lowest id) and that distance; a group
    is only measured as far as it can still win (:func:`_centroid_dist2_upto_py`)."""
    best = -1
    bd = np.inf
    for g in range(n_groups):
        if size[g] <= 0:
            continue
        d = _centroid_dist2_upto(X, C, miss, r, g, size, nsum, nknown, ccount, coff, bd)
        if d < bd:
            bd = d
            best = g
    return best, bd


def _tk_utility_py(
    order: np.ndarray,
    tup: np.ndarray,
    rep: np.ndarray,
    X: np.ndarray,
    C: np.ndarray,
    miss: np.ndarray,
    coff: np.ndarray,
    n_codes: int,
    sa: np.ndarray,
    n_values: int,
    k: int,
    kinds: np.ndarray,
    ts: np.ndarray,
    tref: np.ndarray,
    parents: np.ndarray,
    level_sizes: np.ndarray,
    height: int,
    use_beta: bool,
    bound: np.ndarray,
    bref: np.ndarray,
    max_passes: int,
) -> tuple[np.ndarray, int, int, int]:
    """Phase 2 of UHRA on one cluster (spec §4.1 steps 2–4).

    ``order`` is the nearest-point-next order of the records; ``tup[r]`` the QI tuple of record ``r``
    and ``rep[t]`` one record holding tuple ``t`` (records of one tuple are at the same distance from
    every centroid). Returns ``(group, n_groups, passes, moves)``: the group of every record (−1:
    suppressed), the number of groups, refinement passes run and records moved.

    Refinement keeps, per QI tuple, the group with the nearest centroid (ties: lowest id) and its
    distance; a move changes two centroids, so every cached entry is updated against those two and
    recomputed over all groups only when its own nearest centroid moved away. The result is exactly
    that of scanning every group for every record.
    """
    c = order.shape[0]
    group = np.full(c, -1, dtype=np.int64)
    h = np.zeros(n_values)
    size_open = 0.0
    n_groups = 0
    open_start = 0
    # step 2: greedy grouping along the order
    for pos in range(c):
        r = order[pos]
        h[sa[r]] += 1.0
        size_open += 1.0
        group[r] = n_groups
        if _passes(h, size_open, k, kinds, ts, tref, parents, level_sizes, height, use_beta, bound, bref):
            n_groups += 1
            h[:] = 0.0
            size_open = 0.0
            open_start = pos + 1
    for pos in range(open_start, c):
        group[order[pos]] = -1
    if n_groups == 0:
        return group, 0, 0, 0
    size = np.zeros(n_groups)
    hist = np.zeros((n_groups, n_values))
    nsum = np.zeros((n_groups, X.shape[1]))
    nknown = np.zeros((n_groups, X.shape[1]))
    ccount = np.zeros((n_groups, n_codes))
    for r in range(c):
        if group[r] >= 0:
            _add(X, C, sa, r, group[r], 1.0, size, hist, nsum, nknown, ccount, coff)
    # step 3: leftovers, in order, into the nearest group that stays closed
    dist = np.empty(n_groups)
    for pos in range(open_start, c):
        r = order[pos]
        for g in range(n_groups):
            dist[g] = _centroid_dist2(X, C, miss, r, g, size, nsum, nknown, ccount, coff)
        ranked = np.argsort(dist, kind="mergesort")
        for gi in range(n_groups):
            g = ranked[gi]
            hist[g, sa[r]] += 1.0
            ok = _passes(hist[g], size[g] + 1.0, k, kinds, ts, tref, parents, level_sizes, height, use_beta, bound,
                         bref)
            hist[g, sa[r]] -= 1.0
            if ok:
                group[r] = g
                _add(X, C, sa, r, g, 1.0, size, hist, nsum, nknown, ccount, coff)
                break
    # step 4: refinement by strict improvement, never breaking the closing test
    u = rep.shape[0]
    best = np.full(u, -1, dtype=np.int64)
    bestd = np.zeros(u)
    dirty = np.ones(u, dtype=np.bool_)
    passes = 0
    moves = 0
    for _ in range(max_passes):
        passes += 1
        moved = False
        for r in range(c):
            ga = group[r]
            if ga < 0:
                continue
            t = tup[r]
            if dirty[t]:
                best[t], bestd[t] = _best_group(X, C, miss, rep[t], n_groups, size, nsum, nknown, ccount, coff)
                dirty[t] = False
            gb = best[t]
            if gb == ga or size[ga] - 1.0 < k:
                continue
            da = _centroid_dist2(X, C, miss, r, ga, size, nsum, nknown, ccount, coff)
            if not bestd[t] < da:
                continue
            s = sa[r]
            hist[ga, s] -= 1.0
            ok_a = _passes(hist[ga], size[ga] - 1.0, k, kinds, ts, tref, parents, level_sizes, height, use_beta,
                           bound, bref)
            hist[ga, s] += 1.0
            if not ok_a:
                continue
            hist[gb, s] += 1.0
            ok_b = _passes(hist[gb], size[gb] + 1.0, k, kinds, ts, tref, parents, level_sizes, height, use_beta,
                           bound, bref)
            hist[gb, s] -= 1.0
            if not ok_b:
                continue
            _add(X, C, sa, r, ga, -1.0, size, hist, nsum, nknown, ccount, coff)
            _add(X, C, sa, r, gb, 1.0, size, hist, nsum, nknown, ccount, coff)
            group[r] = gb
            moved = True
            moves += 1
            # two centroids moved: bring every cached nearest group up to date
            for t2 in range(u):
                if dirty[t2]:
                    continue
                for g in (ga, gb):
                    # the cached best needs its exact distance; another group only matters within bestd
                    limit = np.inf if g == best[t2] else bestd[t2]
                    d = _centroid_dist2_upto(X, C, miss, rep[t2], g, size, nsum, nknown, ccount, coff, limit)
                    if g == best[t2]:
                        if d <= bestd[t2]:
                            bestd[t2] = d
                        else:
                            dirty[t2] = True
                            break
                    elif d < bestd[t2] or (d == bestd[t2] and g < best[t2]):
                        best[t2] = g
                        bestd[t2] = d
        if not moved:
            break
    return group, n_groups, passes, moves


# ------------------------------------------------------------------ lazy compilation
_emd_hier = _emd_hier_py
_delta_cat = _delta_cat_py
_passes = _passes_py
_record_dist2 = _record_dist2_py
_centroid_dist2 = _centroid_dist2_py
_centroid_dist2_upto = _centroid_dist2_upto_py
_add = _add_py
_best_group = _best_group_py
_COMPILED: dict[str, object] = {}


def _compile() -> dict[str, object]:
    """Compile the kernels with numba once (cached on disk) and rebind the module globals, so the
    compiled functions call each other."""
    global _emd_hier, _delta_cat, _passes, _record_dist2, _centroid_dist2, _centroid_dist2_upto, _add, _best_group
    if not _COMPILED:
        import numba as nb

        jit = nb.njit(cache=True, nogil=True)
        _emd_hier = jit(_emd_hier_py)
        _delta_cat = jit(_delta_cat_py)
        _passes = jit(_passes_py)
        _record_dist2 = jit(_record_dist2_py)
        # the distances run once per (record, group) pair: inlined into their callers (about 10 % on Adult)
        inline = nb.njit(cache=True, nogil=True, inline="always")
        _centroid_dist2 = inline(_centroid_dist2_py)
        _centroid_dist2_upto = inline(_centroid_dist2_upto_py)
        _add = jit(_add_py)
        _best_group = jit(_best_group_py)
        _COMPILED.update(npn=jit(_npn_py), tk=jit(_tk_utility_py), passes=_passes)
    return _COMPILED


def npn_order(*args: object) -> np.ndarray:
    """Compiled :func:`_npn_py`."""
    return _compile()["npn"](*args)  # type: ignore[operator, no-any-return]


def tk_utility(*args: object) -> tuple[np.ndarray, int, int, int]:
    """Compiled :func:`_tk_utility_py`."""
    return _compile()["tk"](*args)  # type: ignore[operator, no-any-return]


def passes(*args: object) -> bool:
    """Compiled :func:`_passes_py` (the closing test)."""
    return bool(_compile()["passes"](*args))  # type: ignore[operator]
