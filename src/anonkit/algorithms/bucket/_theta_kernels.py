"""The compiled loops of :mod:`~anonkit.algorithms.bucket.theta_cut`: the bucket repair (swap or
merge) and the noise repair, each a numba kernel written as plain Python (``_name_py``, compiled on
first use by :func:`anonkit._kernels.compiled`, cached on disk). ``theta_cut.repair`` and
``theta_cut.noise`` run them uncompiled below ``theta_cut.PYTHON_BELOW`` units, where loading numba
would cost more than the loop: the same function either way, so the same buckets
(``tests/test_angelization.py`` holds the two runs equal).

The rules they implement (the pass test, the swap objective and its tie-breaks, the merge, the
choice of fake units) are stated in :mod:`~anonkit.algorithms.bucket.theta_cut`'s docstring.
"""

from __future__ import annotations

import numpy as np

from anonkit._kernels import compiled


def _repair_py(
    perm: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    codes: np.ndarray,
    ids: np.ndarray,
    n_cat: int,
    theta: float,
    dneed: int,
    mode: int,
    X: np.ndarray,
    R: np.ndarray,
    anc: np.ndarray,
    share: np.ndarray,
    heights: np.ndarray,
) -> tuple[np.ndarray, int, int, bool]:
    """The repair loop (see the module docstring); modifies ``perm``, ``lo`` and ``hi`` in place and
    returns the mask of the buckets left, the swaps, the merges and whether every bucket passes."""
    tol = 1e-12
    nb = lo.shape[0]
    p = X.shape[1]
    q = R.shape[1]
    hist = np.zeros((nb, max(n_cat, 1)), dtype=np.int64)
    s1 = np.zeros(nb)
    s2 = np.zeros(nb)
    size = np.zeros(nb, dtype=np.int64)
    for b in range(nb):
        for t in range(lo[b], hi[b]):
            c = codes[perm[t]]
            hist[b, c] += 1
            s1[b] += c
            s2[b] += c * c
        size[b] = hi[b] - lo[b]
    nxt = np.empty(nb, dtype=np.int64)
    prv = np.empty(nb, dtype=np.int64)
    for b in range(nb):
        nxt[b] = b + 1 if b + 1 < nb else -1
        prv[b] = b - 1
    alive = np.ones(nb, dtype=np.bool_)
    feas = np.zeros((max(n_cat, 1), max(n_cat, 1)), dtype=np.bool_)
    pvar = np.zeros((max(n_cat, 1), max(n_cat, 1)))
    # per bucket side (0: the failing bucket, 1: the next): smallest, its position, second smallest,
    # largest, its position, second largest — numeric QIs then rank QIs
    xmn = np.zeros((2, p))
    xmn2 = np.zeros((2, p))
    xmx = np.zeros((2, p))
    xmx2 = np.zeros((2, p))
    xamn = np.zeros((2, p), dtype=np.int64)
    xamx = np.zeros((2, p), dtype=np.int64)
    rmn = np.zeros((2, q), dtype=np.int64)
    rmn2 = np.zeros((2, q), dtype=np.int64)
    rmx = np.zeros((2, q), dtype=np.int64)
    rmx2 = np.zeros((2, q), dtype=np.int64)
    ramn = np.zeros((2, q), dtype=np.int64)
    ramx = np.zeros((2, q), dtype=np.int64)
    big = 9223372036854775807
    swaps = 0
    merges = 0
    ok = True
    b = 0
    while b >= 0:
        n1 = size[b]
        d1 = 0
        for c in range(n_cat):
            if hist[b, c] > 0:
                d1 += 1
        var1 = s2[b] / n1 - (s1[b] / n1) ** 2
        if var1 >= theta - tol and d1 >= dneed:
            b = nxt[b]
            continue
        c2 = nxt[b]
        if c2 >= 0 and mode == 0:
            n2 = size[c2]
            d2 = 0
            for c in range(n_cat):
                if hist[c2, c] > 0:
                    d2 += 1
            found = False
            for ci in range(n_cat):
                for cj in range(n_cat):
                    feas[ci, cj] = False
                    if ci == cj or hist[b, ci] == 0 or hist[c2, cj] == 0:
                        continue
                    a1 = s1[b] - ci + cj
                    a2 = s2[b] - ci * ci + cj * cj
                    v1 = a2 / n1 - (a1 / n1) ** 2
                    b1 = s1[c2] - cj + ci
                    b2 = s2[c2] - cj * cj + ci * ci
                    v2 = b2 / n2 - (b1 / n2) ** 2
                    if v1 < theta - tol or v2 < theta - tol:
                        continue
                    if dneed > 0:
                        e1 = d1 - (1 if hist[b, ci] == 1 else 0) + (1 if hist[b, cj] == 0 else 0)
                        e2 = d2 - (1 if hist[c2, cj] == 1 else 0) + (1 if hist[c2, ci] == 0 else 0)
                        if e1 < dneed or e2 < dneed:
                            continue
                    feas[ci, cj] = True
                    pvar[ci, cj] = min(v1, v2)
                    found = True
            if found:
                # extremes of both buckets
                for side in range(2):
                    bb = b if side == 0 else c2
                    for a in range(p):
                        xmn[side, a] = np.inf
                        xmn2[side, a] = np.inf
                        xmx[side, a] = -np.inf
                        xmx2[side, a] = -np.inf
                        xamn[side, a] = -1
                        xamx[side, a] = -1
                    for a in range(q):
                        rmn[side, a] = big
                        rmn2[side, a] = big
                        rmx[side, a] = -1
                        rmx2[side, a] = -1
                        ramn[side, a] = -1
                        ramx[side, a] = -1
                    for t in range(lo[bb], hi[bb]):
                        u = perm[t]
                        for a in range(p):
                            x = X[u, a]
                            if x < xmn[side, a]:
                                xmn2[side, a] = xmn[side, a]
                                xmn[side, a] = x
                                xamn[side, a] = t
                            elif x < xmn2[side, a]:
                                xmn2[side, a] = x
                            if x > xmx[side, a]:
                                xmx2[side, a] = xmx[side, a]
                                xmx[side, a] = x
                                xamx[side, a] = t
                            elif x > xmx2[side, a]:
                                xmx2[side, a] = x
                        for a in range(q):
                            r = R[u, a]
                            if r < rmn[side, a]:
                                rmn2[side, a] = rmn[side, a]
                                rmn[side, a] = r
                                ramn[side, a] = t
                            elif r < rmn2[side, a]:
                                rmn2[side, a] = r
                            if r > rmx[side, a]:
                                rmx2[side, a] = rmx[side, a]
                                rmx[side, a] = r
                                ramx[side, a] = t
                            elif r > rmx2[side, a]:
                                rmx2[side, a] = r
                best = np.inf
                best_var = -np.inf
                best_t1 = -1
                best_t2 = -1
                for t1 in range(lo[b], hi[b]):
                    i = perm[t1]
                    ci = codes[i]
                    for t2 in range(lo[c2], hi[c2]):
                        j = perm[t2]
                        cj = codes[j]
                        if not feas[ci, cj]:
                            continue
                        cost = 0.0
                        for side in range(2):
                            out_t = t1 if side == 0 else t2
                            inn = j if side == 0 else i
                            ncp = 0.0
                            for a in range(p):
                                x = X[inn, a]
                                m_lo = xmn2[side, a] if out_t == xamn[side, a] else xmn[side, a]
                                m_hi = xmx2[side, a] if out_t == xamx[side, a] else xmx[side, a]
                                if x < m_lo:
                                    m_lo = x
                                if x > m_hi:
                                    m_hi = x
                                ncp += m_hi - m_lo
                            for a in range(q):
                                r = R[inn, a]
                                r_lo = rmn2[side, a] if out_t == ramn[side, a] else rmn[side, a]
                                r_hi = rmx2[side, a] if out_t == ramx[side, a] else rmx[side, a]
                                if r < r_lo:
                                    r_lo = r
                                if r > r_hi:
                                    r_hi = r
                                if r_lo == r_hi:
                                    continue
                                got = 1.0
                                for level in range(1, heights[a] + 1):
                                    node = anc[a, level, r_lo]
                                    if node == anc[a, level, r_hi]:
                                        got = share[a, level, node]
                                        break
                                ncp += got
                            cost += (n1 if side == 0 else n2) * ncp
                        mv = pvar[ci, cj]
                        better = False
                        if cost < best - tol * max(1.0, abs(best) if best < np.inf else 1.0):
                            better = True
                        elif cost <= best + tol * max(1.0, abs(best)):
                            if mv > best_var + tol:
                                better = True
                            elif mv >= best_var - tol:
                                bi = ids[perm[best_t1]]
                                bj = ids[perm[best_t2]]
                                if ids[i] < bi or (ids[i] == bi and ids[j] < bj):
                                    better = True
                        if better:
                            best = cost
                            best_var = mv
                            best_t1 = t1
                            best_t2 = t2
                i = perm[best_t1]
                j = perm[best_t2]
                ci = codes[i]
                cj = codes[j]
                perm[best_t1] = j
                perm[best_t2] = i
                hist[b, ci] -= 1
                hist[b, cj] += 1
                hist[c2, cj] -= 1
                hist[c2, ci] += 1
                s1[b] += cj - ci
                s2[b] += cj * cj - ci * ci
                s1[c2] += ci - cj
                s2[c2] += ci * ci - cj * cj
                swaps += 1
                b = c2
                continue
        if c2 < 0:
            c2 = b
            b = prv[b]
            if b < 0:
                ok = False
                break
        # b absorbs the next bucket c2 (adjacent positions) and is judged again
        hi[b] = hi[c2]
        for c in range(n_cat):
            hist[b, c] += hist[c2, c]
        s1[b] += s1[c2]
        s2[b] += s2[c2]
        size[b] += size[c2]
        nxt[b] = nxt[c2]
        if nxt[c2] >= 0:
            prv[nxt[c2]] = b
        alive[c2] = False
        merges += 1
    return alive, swaps, merges, ok


def repair_kernel():  # type: ignore[no-untyped-def]
    """The repair loop compiled by numba (on first use)."""
    return compiled(_repair_py)


def _noise_py(hist: np.ndarray, theta: float, dneed: int, available: np.ndarray) -> tuple[np.ndarray, bool]:
    tol = 1e-12
    nb, n_cat = hist.shape
    fakes = np.zeros((nb, n_cat), dtype=np.int64)
    counts = np.zeros(n_cat, dtype=np.int64)
    all_ok = True
    for b in range(nb):
        n = 0
        s1 = 0.0
        s2 = 0.0
        d = 0
        for c in range(n_cat):
            counts[c] = hist[b, c]
            n += counts[c]
            s1 += c * counts[c]
            s2 += c * c * counts[c]
            if counts[c] > 0:
                d += 1
        cap = 64 + 4 * n
        added = 0
        while True:
            var = s2 / n - (s1 / n) ** 2 if n > 0 else 0.0
            if n > 0 and var >= theta - tol and d >= dneed:
                break
            if added >= cap:
                break
            need_new = d < dneed
            best_c = -1
            best_v = -np.inf
            for c in range(n_cat):
                if not available[c] or (need_new and counts[c] > 0):
                    continue
                v = (s2 + c * c) / (n + 1) - ((s1 + c) / (n + 1)) ** 2
                if v > best_v + tol:
                    best_v = v
                    best_c = c
            if best_c < 0:
                added = cap
                break
            if counts[best_c] == 0:
                d += 1
            counts[best_c] += 1
            fakes[b, best_c] += 1
            n += 1
            s1 += best_c
            s2 += best_c * best_c
            added += 1
        if added >= cap:
            all_ok = False
            for c in range(n_cat):
                fakes[b, c] = 0
    return fakes, all_ok


def noise_kernel():  # type: ignore[no-untyped-def]
    """The noise loop compiled by numba (on first use)."""
    return compiled(_noise_py)
