"""Mondrian's row kernels: the cut of a depth's partitions over the code matrix, compiled with numba.

Plain Python functions compiled on first use (:func:`kernels`), as in :mod:`anonkit._kernels`; they
release the GIL (``nogil``) so that :func:`anonkit.algorithms.partition.core.cut` can run them on two
threads over disjoint ranges of rows. Only the partition package calls them: the rest of anonkit
goes through :mod:`~anonkit.algorithms.partition.core`.
"""

from __future__ import annotations

import numpy as np

# The kernels' shared arguments: ``X`` the (w × n) int32 code matrix, one row per QI (numeric: value rank;
# categorical: position of the leaf in depth-first order of its hierarchy, so that the leaves below
# any node are consecutive) and then one per sensitive attribute the models need; partitions given
# by ``starts``/``ends`` (column ranges of ``X``); ``kinds[j]`` 0 for a numeric QI, 1 for a
# categorical one; ``A``/``B`` the (P × d) partition state (numeric: lowest and highest rank;
# categorical: level and node of the lowest common ancestor); ``maps`` every categorical
# hierarchy's lookup arrays by leaf position, flattened (``maps[off[j] + level * leaves[j] + pos]``);
# ``lab`` the child of every record.


def _propose_py(
    X, starts, ends, cols, kinds, maps, off, leaves, A, B, relaxed, coff, lab, csize, nchild, cmin, cnt, slot, present
):
    """Cut every partition ``p`` on QI ``cols[p]``: writes ``lab`` for its records, the sizes of its
    children at ``csize[coff[p]:]``, how many there are (``nchild``) and the smallest (``cmin``)."""
    for p in range(starts.shape[0]):
        s = starts[p]
        e = ends[p]
        j = cols[p]
        x = X[j]
        size = e - s
        base = coff[p]
        if kinds[j] == 0:
            # radix selection of the m-th smallest rank (1-based): narrow [lo, hi] bucket by bucket
            m = size // 2
            lo = np.int64(A[p, j])
            hi = np.int64(B[p, j])
            less = np.int64(0)
            eq = np.int64(0)
            width = max(np.int64(64), min(np.int64(65536), 2 * size))
            while True:
                shift = 0
                while ((hi - lo) >> shift) >= width:
                    shift += 1
                nb = ((hi - lo) >> shift) + 1
                for i in range(s, e):
                    v = np.int64(x[i])
                    if lo <= v <= hi:
                        cnt[(v - lo) >> shift] += 1
                acc = less
                t = 0
                while acc + cnt[t] < m:
                    acc += cnt[t]
                    t += 1
                eq = cnt[t]
                for u in range(nb):
                    cnt[u] = 0
                less = acc
                lo = lo + (np.int64(t) << shift)
                hi = min(hi, lo + (np.int64(1) << shift) - 1)
                if shift == 0:
                    break
            median = lo
            if relaxed:
                need = m - less  # records equal to the median that go left, in record order
                for i in range(s, e):
                    v = x[i]
                    if v < median:
                        lab[i] = 0
                    elif v > median:
                        lab[i] = 1
                    elif need > 0:
                        lab[i] = 0
                        need -= 1
                    else:
                        lab[i] = 1
                left = m
            else:
                for i in range(s, e):
                    lab[i] = 0 if x[i] <= median else 1
                left = less + eq
            csize[base] = left
            csize[base + 1] = size - left
            nchild[p] = 2 if 0 < left < size else 1
            cmin[p] = min(left, size - left)
        else:
            at = off[j] + (A[p, j] - 1) * leaves[j]
            k = 0
            for i in range(s, e):
                c = maps[at + x[i]]
                lab[i] = c
                if cnt[c] == 0:
                    present[k] = c
                    k += 1
                cnt[c] += 1
            kids = np.sort(present[:k])
            smallest = size
            for r in range(k):
                c = kids[r]
                slot[c] = r
                csize[base + r] = cnt[c]
                smallest = min(smallest, cnt[c])
            for i in range(s, e):
                lab[i] = slot[lab[i]]
            for r in range(k):
                cnt[kids[r]] = 0
                slot[kids[r]] = -1
            nchild[p] = k
            cmin[p] = smallest


def _apply_py(
    X, Xn, perm, permn, starts, ends, nchild, coff, kinds, maps, off, leaves, lab, cstart, cend, cA, cB, cur, dest
):
    """Move the records of every partition ``p`` into its ``nchild[p]`` children (stable, into
    ``Xn``/``permn``) and compute the children's state (rows ``coff[p]:`` of ``cA``/``cB``)."""
    w = X.shape[0]
    d = cA.shape[1]
    for p in range(starts.shape[0]):
        s = starts[p]
        e = ends[p]
        c = nchild[p]
        base = coff[p]
        for r in range(c):
            cur[r] = 0
        for i in range(s, e):
            cur[lab[i]] += 1
        row = s
        for r in range(c):
            cstart[base + r] = row
            row += cur[r]
            cend[base + r] = row
            cur[r] = 0
        # where every record goes (stable); two children, the common case, without a memory chain
        if c == 2:
            o0 = cstart[base]
            o1 = cstart[base + 1]
            for i in range(s, e):
                one = np.int64(lab[i])
                dest[i] = o0 + one * (o1 - o0)
                o0 += 1 - one
                o1 += one
        else:
            for r in range(c):
                cur[r] = cstart[base + r]
            for i in range(s, e):
                o = cur[lab[i]]
                cur[lab[i]] = o + 1
                dest[i] = o
            for r in range(c):
                cur[r] = 0
        for i in range(s, e):
            permn[dest[i]] = perm[i]
        for i0 in range(s, e, 2048):  # in blocks, so that dest stays in cache across the rows
            i1 = min(i0 + 2048, e)
            for u in range(w):
                x = X[u]
                y = Xn[u]
                for i in range(i0, i1):
                    y[dest[i]] = x[i]
        for r in range(c):
            cs = cstart[base + r]
            ce = cend[base + r]
            q = base + r
            for u in range(d):
                y = Xn[u]
                lo = y[cs]
                hi = lo
                for i in range(cs + 1, ce):
                    v = y[i]
                    lo = min(lo, v)
                    hi = max(hi, v)
                if kinds[u] == 0:
                    cA[q, u] = lo
                    cB[q, u] = hi
                else:  # the lowest common ancestor of the first and the last leaf is everybody's
                    lv = 0
                    while True:
                        at = off[u] + lv * leaves[u]
                        if maps[at + lo] == maps[at + hi]:
                            break
                        lv += 1
                    cA[q, u] = lv
                    cB[q, u] = maps[at + lo]


def _hist_py(X, row, starts, ends, coff, lab, hist):
    """Sensitive histogram (row ``row`` of ``X``) of every candidate child."""
    x = X[row]
    for p in range(starts.shape[0]):
        base = coff[p]
        for i in range(starts[p], ends[p]):
            hist[base + lab[i], x[i]] += 1.0


def _assign_py(perm, starts, ends, record_class, first_id):
    """Class ``first_id + p`` for the records of final partition ``p``."""
    for p in range(starts.shape[0]):
        for i in range(starts[p], ends[p]):
            record_class[perm[i]] = first_id + p


_COMPILED: dict | None = None


def kernels() -> dict:
    """The compiled kernels by name (``propose``, ``apply``, ``hist``, ``assign``), compiled (or
    loaded from numba's cache) on the first call; one dict for the process, so that a test may
    watch a kernel by replacing its entry."""
    global _COMPILED
    if _COMPILED is None:
        import numba as nb

        jit = nb.njit(cache=True, nogil=True)
        _COMPILED = {
            "propose": jit(_propose_py),
            "apply": jit(_apply_py),
            "hist": jit(_hist_py),
            "assign": jit(_assign_py),
        }
    return _COMPILED

