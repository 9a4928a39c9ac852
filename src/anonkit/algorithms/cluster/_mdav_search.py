"""The compiled tier of :class:`anonkit.algorithms.cluster._mdav_index.Index`'s searches: depth-first
walks of the tree of bounds, written as plain loops for numba (:func:`anonkit._kernels.tiered`).

The tree is implicit: level ``L``'s node ``s`` is global node ``level_off[L] + s``; its children are
nodes ``s·fan … (s+1)·fan − 1`` of level ``L − 1``, a leaf's (level 0) are tuples ``s·leaf …``. A
node's bounds are those of the numpy tier (``Index.bounds``: its box, missing flags and value sets,
widened by ``margin``); a tuple's distance is computed term by term in the tuple path's order
(``(z − q)·(z − q)``, a missing term 1, then the non-numeric terms), so it is the same float.

:func:`farthest_py`: every live tuple at the largest distance (a node is skipped when its upper
bound is below the best distance found). :func:`nearest_py`: every live tuple within ``U``, the
smallest distance by which the tuples found hold ``k`` records (a node is skipped when its lower
bound exceeds the ``U`` of the moment; ``U`` only shrinks, and the tuples kept are filtered by the
final ``U``, which bounds the ``k − 1``-th nearest other record's distance). Both visit the most
promising child first (farthest: highest upper bound; nearest: lowest lower bound)."""

from __future__ import annotations

import numpy as np

from anonkit._kernels import compiled


def _bounds_py(g, query, qnan, cat, lo, hi, nan, set_vals, set_off, set_cnt, margin, tiny):  # type: ignore[no-untyped-def]
    """Lower and upper bound of the distance of any tuple of global node ``g``."""
    lb = 0.0
    ub = 0.0
    for i in range(lo.shape[1]):
        if qnan[i]:
            lb += 1.0
            ub += 1.0
            continue
        a = lo[g, i] - query[i]
        b = hi[g, i] - query[i]
        tl, tu = np.inf, -np.inf
        if lo[g, i] <= hi[g, i]:
            tl = a * a if a > 0 else (b * b if b < 0 else 0.0)
            tu = max(a * a, b * b)
        if nan[g, i]:
            tl, tu = min(tl, 1.0), max(tu, 1.0)
        lb += tl
        ub += tu
    q = (set_off.shape[0] - 1) // lo.shape[0] if lo.shape[0] else 0
    for j in range(q):
        seg = g * q + j
        cmin, cmax = np.inf, -np.inf
        for e in range(set_off[seg], set_off[seg + 1]):
            if set_cnt[e] <= 0:
                continue
            cmin = min(cmin, cat[set_vals[e]])
            cmax = max(cmax, cat[set_vals[e]])
        lb += cmin
        ub += cmax
    return lb * (1.0 - margin) - tiny, ub * (1.0 + margin) + tiny


def _dist_py(t, query, cat, zt, ct, missing):  # type: ignore[no-untyped-def]
    """Tuple ``t``'s distance, term by term in the tuple path's order (``ct``: value ids into ``cat``)."""
    d = 0.0
    for i in range(zt.shape[1]):
        x = zt[t, i] - query[i]
        term = x * x
        if missing[i] and np.isnan(term):
            term = 1.0
        d += term
    for j in range(ct.shape[1]):
        d += cat[ct[t, j]]
    return d


def _expand_py(level, first, last, sign, threshold, query, qnan, cat, level_off, lo, hi, nan, records,  # type: ignore[no-untyped-def]
               set_vals, set_off, set_cnt, margin, tiny, stack_level, stack_node, stack_bound, depth):
    """Push the live nodes ``first … last − 1`` of ``level`` that can matter, most promising last (on
    top): ``sign`` 1 keys on the upper bound (farthest, kept when ``≥ threshold``), −1 on the lower
    bound (nearest, kept when ``≤ threshold``); returns the new depth."""
    base = depth
    for s in range(first, last):
        g = level_off[level] + s
        if records[g] <= 0:
            continue
        lb, ub = _bounds_py(g, query, qnan, cat, lo, hi, nan, set_vals, set_off, set_cnt, margin, tiny)
        key = ub if sign > 0 else -lb
        if (sign > 0 and ub < threshold) or (sign < 0 and lb > threshold):
            continue
        at = depth  # insertion sort on the key, ascending, among this expansion's pushes
        while at > base and stack_bound[at - 1] * sign > key:
            stack_level[at], stack_node[at] = stack_level[at - 1], stack_node[at - 1]
            stack_bound[at] = stack_bound[at - 1]
            at -= 1
        stack_level[at], stack_node[at], stack_bound[at] = level, s, key * sign
        depth += 1
    return depth


def farthest_py(query, qnan, cat, leaf, fan, top, level_off, level_size, lo, hi, nan, records,  # type: ignore[no-untyped-def]
                set_vals, set_off, set_cnt, zt, ct, count, missing, margin, tiny):
    """``(positions, distances)`` of the live tuples at the largest distance (module docstring)."""
    cap = (top + 2) * fan
    stack_level = np.empty(cap, dtype=np.int64)
    stack_node = np.empty(cap, dtype=np.int64)
    stack_bound = np.empty(cap, dtype=np.float64)
    out = np.empty(16, dtype=np.int64)
    n_out = 0
    best = -np.inf
    depth = _expand_py(top, 0, level_size[top], 1, best, query, qnan, cat, level_off, lo, hi, nan, records,
                       set_vals, set_off, set_cnt, margin, tiny, stack_level, stack_node, stack_bound, 0)
    while depth > 0:
        depth -= 1
        if stack_bound[depth] < best:
            continue
        level, node = stack_level[depth], stack_node[depth]
        if level > 0:
            first = node * fan
            depth = _expand_py(level - 1, first, min(first + fan, level_size[level - 1]), 1, best, query, qnan, cat,
                               level_off, lo, hi, nan, records, set_vals, set_off, set_cnt, margin, tiny, stack_level,
                               stack_node, stack_bound, depth)
            continue
        for t in range(node * leaf, min(node * leaf + leaf, zt.shape[0])):
            if count[t] <= 0:
                continue
            d = _dist_py(t, query, cat, zt, ct, missing)
            if d < best:
                continue
            if d > best:
                best, n_out = d, 0
            if n_out == out.shape[0]:
                out = np.concatenate((out, np.empty_like(out)))
            out[n_out] = t
            n_out += 1
    return out[:n_out], np.full(n_out, best)


def nearest_py(k, query, qnan, cat, leaf, fan, top, level_off, level_size, lo, hi, nan, records,  # type: ignore[no-untyped-def]
               set_vals, set_off, set_cnt, zt, ct, count, missing, margin, tiny):
    """``(positions, distances)`` of the live tuples within ``U`` (module docstring)."""
    cap = (top + 2) * fan
    stack_level = np.empty(cap, dtype=np.int64)
    stack_node = np.empty(cap, dtype=np.int64)
    stack_bound = np.empty(cap, dtype=np.float64)
    out = np.empty(64, dtype=np.int64)
    out_d = np.empty(64, dtype=np.float64)
    n_out = 0
    reach = np.inf
    near_d = np.empty(k + 1, dtype=np.float64)  # the nearest distances found, ascending, with their records
    near_c = np.empty(k + 1, dtype=np.int64)
    n_near = 0
    depth = _expand_py(top, 0, level_size[top], -1, reach, query, qnan, cat, level_off, lo, hi, nan, records,
                       set_vals, set_off, set_cnt, margin, tiny, stack_level, stack_node, stack_bound, 0)
    while depth > 0:
        depth -= 1
        if stack_bound[depth] > reach:
            continue
        level, node = stack_level[depth], stack_node[depth]
        if level > 0:
            first = node * fan
            depth = _expand_py(level - 1, first, min(first + fan, level_size[level - 1]), -1, reach, query, qnan,
                               cat, level_off, lo, hi, nan, records, set_vals, set_off, set_cnt, margin, tiny,
                               stack_level, stack_node, stack_bound, depth)
            continue
        for t in range(node * leaf, min(node * leaf + leaf, zt.shape[0])):
            if count[t] <= 0:
                continue
            d = _dist_py(t, query, cat, zt, ct, missing)
            if d > reach:
                continue
            at = n_near
            while at > 0 and near_d[at - 1] > d:
                near_d[at], near_c[at] = near_d[at - 1], near_c[at - 1]
                at -= 1
            near_d[at], near_c[at] = d, count[t]
            n_near += 1
            held = 0
            for e in range(n_near):
                held += near_c[e]
                if held >= k:
                    reach, n_near = near_d[e], e + 1
                    break
            if n_out == out.shape[0]:
                out = np.concatenate((out, np.empty_like(out)))
                out_d = np.concatenate((out_d, np.empty_like(out_d)))
            out[n_out], out_d[n_out] = t, d
            n_out += 1
    keep = out_d[:n_out] <= reach
    return out[:n_out][keep], out_d[:n_out][keep]


def refresh_py(leaves, leaf, fan, level_off, level_size, zt, count, lo, hi, nan):  # type: ignore[no-untyped-def]
    """Recompute the boxes of ``leaves`` (sorted) from their live tuples, then of their ancestors from
    their children (an emptied node's box is empty: ``+inf``/``−inf``, no missing value)."""
    nodes = leaves.copy()
    n = nodes.shape[0]
    for level in range(level_size.shape[0]):
        if level:
            m = 0
            for e in range(n):  # the parents, sorted and deduplicated
                parent = nodes[e] // fan
                if m == 0 or nodes[m - 1] != parent:
                    nodes[m] = parent
                    m += 1
            n = m
        for e in range(n):
            g = level_off[level] + nodes[e]
            lo[g, :] = np.inf
            hi[g, :] = -np.inf
            nan[g, :] = False
            if level == 0:
                for t in range(nodes[e] * leaf, min(nodes[e] * leaf + leaf, zt.shape[0])):
                    if count[t] <= 0:
                        continue
                    for i in range(zt.shape[1]):
                        if np.isnan(zt[t, i]):
                            nan[g, i] = True
                        else:
                            lo[g, i] = min(lo[g, i], zt[t, i])
                            hi[g, i] = max(hi[g, i], zt[t, i])
                continue
            first = nodes[e] * fan
            for c in range(first, min(first + fan, level_size[level - 1])):
                h = level_off[level - 1] + c
                for i in range(zt.shape[1]):
                    lo[g, i] = min(lo[g, i], lo[h, i])
                    hi[g, i] = max(hi[g, i], hi[h, i])
                    nan[g, i] = nan[g, i] or nan[h, i]
    return n


_HELPERS = ("_bounds", "_dist", "_expand")


def bind() -> None:
    """Rebind the helpers to their compiled versions, so that the kernels compile calling them."""
    names = globals()
    for name in _HELPERS:
        names[name + "_py"] = compiled(names[name + "_py"])
