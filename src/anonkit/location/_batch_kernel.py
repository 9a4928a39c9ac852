"""The compiled loop of :mod:`~anonkit.location.batch`: the whole stream in one numba kernel.

:func:`kernel` returns ``_run_py`` compiled by numba (on first use, cached on disk) — the
semantics of :class:`~anonkit.location.cloak.Cloaker` over arrays; the module docstring of
:mod:`~anonkit.location.batch` lists its state and steps. The helpers (``_slot``, ``_delete``, ``_add``,
``_get``, ``_push``, ``_pop``, ``_unlink``) are plain Python; :func:`kernel` binds their numba versions
to the names the kernel calls before compiling it, so numba is imported only when a batch runs (and
the kernel can also be run as plain Python to debug it).
"""

from __future__ import annotations

import numpy as np

from anonkit._kernels import compiled

_MIX = np.uint64(0x9E3779B97F4A7C15)
# pending-request fields (columns of the kernel's int64 table)
_REQ, _ROW, _DEPTH, _CX, _CY, _K, _HOLD, _NEXT, _OFF, _CAP, _CNT, _ALIVE = range(12)
_NF = 12


def _slot_py(keys: np.ndarray, key: np.int64, shift: np.uint64, mask: np.int64) -> np.int64:
    """Where ``key`` is in the linear-probing table, or the empty slot where it would go."""
    j = np.int64((np.uint64(key) * _MIX) >> shift) & mask
    while True:
        kj = keys[j]
        if kj == key or kj == -1:
            return j
        j = (j + 1) & mask


def _delete_py(keys: np.ndarray, vals: np.ndarray, i: np.int64, shift: np.uint64, mask: np.int64) -> None:
    """Empty slot ``i`` and shift back the entries of its probe run (no tombstones)."""
    j = i
    while True:
        j = (j + 1) & mask
        kj = keys[j]
        if kj == -1:
            break
        home = np.int64((np.uint64(kj) * _MIX) >> shift) & mask
        if ((j - home) & mask) >= ((j - i) & mask):
            keys[i] = kj
            vals[i] = vals[j]
            i = j
    keys[i] = -1
    vals[i] = 0


def _add_py(d: np.int64, cx: np.int64, cy: np.int64, delta: np.int64, dd: np.int64, off: np.ndarray,
            dense: np.ndarray, hk: np.ndarray, hv: np.ndarray, shift: np.uint64, mask: np.int64) -> None:
    """Add ``delta`` to the subject count of cell ``(cx, cy)`` at depth ``d``."""
    if d <= dd:
        dense[off[d] + (cx << d) + cy] += delta
        return
    key = (((cx << d) | cy) << 5) | d
    j = _slot(hk, key, shift, mask)
    if hk[j] == key:
        hv[j] += delta
        if hv[j] == 0:
            _delete(hk, hv, j, shift, mask)
    else:
        hk[j] = key
        hv[j] = delta


def _get_py(d: np.int64, cx: np.int64, cy: np.int64, dd: np.int64, off: np.ndarray, dense: np.ndarray,
            hk: np.ndarray, hv: np.ndarray, shift: np.uint64, mask: np.int64) -> np.int64:
    """The subject count of cell ``(cx, cy)`` at depth ``d``."""
    if d <= dd:
        return np.int64(dense[off[d] + (cx << d) + cy])
    key = (((cx << d) | cy) << 5) | d
    j = _slot(hk, key, shift, mask)
    if hk[j] == key:
        return np.int64(hv[j])
    return np.int64(0)


def _push_py(hd: np.ndarray, hs: np.ndarray, hr: np.ndarray, n: np.int64, dead: float, slot: np.int64,
             req: np.int64) -> None:
    """Push ``(dead, req) → slot`` on the deadline heap of ``n`` entries (capacity checked by the caller)."""
    i = n
    while i > 0:
        p = (i - 1) >> 1
        if hd[p] < dead or (hd[p] == dead and hr[p] < req):
            break
        hd[i] = hd[p]
        hs[i] = hs[p]
        hr[i] = hr[p]
        i = p
    hd[i] = dead
    hs[i] = slot
    hr[i] = req


def _pop_py(hd: np.ndarray, hs: np.ndarray, hr: np.ndarray, n: np.int64) -> None:
    """Remove the top of the heap of ``n`` entries."""
    n -= 1
    dead, slot, req = hd[n], hs[n], hr[n]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and (hd[c + 1] < hd[c] or (hd[c + 1] == hd[c] and hr[c + 1] < hr[c])):
            c += 1
        if dead < hd[c] or (dead == hd[c] and req < hr[c]):
            break
        hd[i] = hd[c]
        hs[i] = hs[c]
        hr[i] = hr[c]
        i = c
    if n > 0:
        hd[i] = dead
        hs[i] = slot
        hr[i] = req


_slot = _slot_py
_delete = _delete_py
_add = _add_py
_get = _get_py
_push = _push_py
_pop = _pop_py


def _unlink_py(p: np.ndarray, slot: np.int64, mk: np.ndarray, mv: np.ndarray, mshift: np.uint64,
               mmask: np.int64) -> np.int64:
    """Take pending ``slot`` out of its cell's list; returns 1 when the cell's map entry was removed."""
    d = p[slot, _DEPTH]
    key = (((p[slot, _CX] << d) | p[slot, _CY]) << 5) | d
    j = _slot(mk, key, mshift, mmask)
    head = mv[j]
    if head == slot:
        nxt = p[slot, _NEXT]
        if nxt == -1:
            _delete(mk, mv, j, mshift, mmask)
            return np.int64(1)
        mv[j] = nxt
        return np.int64(0)
    prev = head
    while p[prev, _NEXT] != slot:
        prev = p[prev, _NEXT]
    p[prev, _NEXT] = p[slot, _NEXT]
    return np.int64(0)


_unlink = _unlink_py


def _run_py(t, sid, ix, iy, isreq, kk, amin, mdelay, hold, stride, D, DD, t_back, S, n_req, hbits):
    n = t.shape[0]
    # the index: dense count arrays for depths 0..DD, a hash for DD+1..D
    off = np.zeros(DD + 2, dtype=np.int64)
    for d in range(DD + 1):
        off[d + 1] = off[d] + (np.int64(1) << np.int64(2 * d))
    dense = np.zeros(off[DD + 1], dtype=np.int32)
    hcap = np.int64(1) << np.int64(hbits)
    hmask = hcap - 1
    hshift = np.uint64(64 - hbits)
    hk = np.full(hcap, -1, dtype=np.int64)
    hv = np.zeros(hcap, dtype=np.int64)
    posx = np.full(S, -1, dtype=np.int64)
    posy = np.full(S, -1, dtype=np.int64)
    # the visits of the last t_back: a ring of rows
    lcap = np.int64(1024)
    ring = np.empty(lcap, dtype=np.int64)
    lhead = np.int64(0)
    lsize = np.int64(0)
    # pending requests: a table of slots, a free list, the per-cell lists (hash key → first slot)
    pcap = np.int64(64)
    P = np.zeros((pcap, _NF), dtype=np.int64)
    PF = np.zeros((pcap, 2), dtype=np.float64)  # t_req, deadline
    free = np.empty(pcap, dtype=np.int64)
    for j in range(pcap):
        free[j] = pcap - 1 - j
    nfree = pcap
    npend = np.int64(0)
    pend_depth = np.zeros(D + 1, dtype=np.int64)
    mbits = np.int64(6)
    mk = np.full(np.int64(1) << mbits, -1, dtype=np.int64)
    mv = np.zeros(np.int64(1) << mbits, dtype=np.int64)
    mcount = np.int64(0)
    vcap = np.int64(256)
    vs = np.empty(vcap, dtype=np.int64)
    vt = np.empty(vcap, dtype=np.float64)
    vused = np.int64(0)
    hcap2 = np.int64(64)
    HD = np.empty(hcap2, dtype=np.float64)
    HS = np.empty(hcap2, dtype=np.int64)
    HR = np.empty(hcap2, dtype=np.int64)
    hn = np.int64(0)
    # scratch of a temporal request's first scan
    mark = np.full(S, -1, dtype=np.int64)
    latest = np.empty(S, dtype=np.float64)
    touched = np.empty(S, dtype=np.int64)
    scan = np.int64(0)
    rel = np.empty(64, dtype=np.int64)
    # outputs
    f_row = np.empty(n_req, dtype=np.int64)
    f_t0 = np.empty(n_req, dtype=np.float64)
    f_t1 = np.empty(n_req, dtype=np.float64)
    f_depth = np.empty(n_req, dtype=np.int8)
    f_cx = np.empty(n_req, dtype=np.int32)
    f_cy = np.empty(n_req, dtype=np.int32)
    f_method = np.empty(n_req, dtype=np.uint8)
    f_anon = np.empty(n_req, dtype=np.int32)
    nf = np.int64(0)
    x_row = np.empty(n_req, dtype=np.int64)
    x_hold = np.empty(n_req, dtype=np.uint8)
    nx = np.int64(0)
    req_no = np.int64(0)

    for i in range(n):
        now = t[i]
        # 1. deadlines before now: held or dropped
        while hn > 0 and HD[0] < now:
            slot = HS[0]
            rq = HR[0]
            _pop(HD, HS, HR, hn)
            hn -= 1
            if P[slot, _ALIVE] == 1 and P[slot, _REQ] == rq:
                mcount -= _unlink(P, slot, mk, mv, np.uint64(64 - mbits), (np.int64(1) << mbits) - 1)
                pend_depth[P[slot, _DEPTH]] -= 1
                npend -= 1
                P[slot, _ALIVE] = 0
                free[nfree] = slot
                nfree += 1
                x_row[nx] = P[slot, _ROW]
                x_hold[nx] = P[slot, _HOLD]
                nx += 1
        # 2. forget visits before now - t_back
        lo = now - t_back
        while lsize > 0 and t[ring[lhead]] < lo:
            lhead = (lhead + 1) & (lcap - 1)
            lsize -= 1
        # 3. move the subject
        s = sid[i]
        nxl = np.int64(ix[i])
        nyl = np.int64(iy[i])
        ox = posx[s]
        oy = posy[s]
        if ox < 0:
            for d in range(D + 1):
                sh = D - d
                _add(d, nxl >> sh, nyl >> sh, 1, DD, off, dense, hk, hv, hshift, hmask)
        elif ox != nxl or oy != nyl:
            for d in range(D, -1, -1):
                sh = D - d
                if (ox >> sh) == (nxl >> sh) and (oy >> sh) == (nyl >> sh):
                    break
                _add(d, ox >> sh, oy >> sh, -1, DD, off, dense, hk, hv, hshift, hmask)
                _add(d, nxl >> sh, nyl >> sh, 1, DD, off, dense, hk, hv, hshift, hmask)
        posx[s] = nxl
        posy[s] = nyl
        # 4. the visit
        if lsize == lcap:
            bigger = np.empty(2 * lcap, dtype=np.int64)
            for j in range(lsize):
                bigger[j] = ring[(lhead + j) & (lcap - 1)]
            ring = bigger
            lcap = 2 * lcap
            lhead = 0
        ring[(lhead + lsize) & (lcap - 1)] = i
        lsize += 1
        # 5. feed the pending requests of the visit's cells
        if npend > 0:
            nrel = 0
            mshift = np.uint64(64 - mbits)
            mmask = (np.int64(1) << mbits) - 1
            for d in range(D + 1):
                if pend_depth[d] == 0:
                    continue
                sh = D - d
                key = ((((nxl >> sh) << d) | (nyl >> sh)) << 5) | d
                j = _slot(mk, key, mshift, mmask)
                if mk[j] != key:
                    continue
                q = mv[j]
                while q != -1:
                    o = P[q, _OFF]
                    c = P[q, _CNT]
                    found = False
                    for e in range(c):
                        if vs[o + e] == s:
                            vt[o + e] = now
                            found = True
                            break
                    if not found:
                        vs[o + c] = s
                        vt[o + c] = now
                        P[q, _CNT] = c + 1
                        if c + 1 >= P[q, _K]:
                            if nrel == rel.shape[0]:
                                more = np.empty(2 * nrel, dtype=np.int64)
                                more[:nrel] = rel
                                rel = more
                            rel[nrel] = q
                            nrel += 1
                    q = P[q, _NEXT]
            # release in order of request number
            for a in range(1, nrel):
                q = rel[a]
                b = a - 1
                while b >= 0 and P[rel[b], _REQ] > P[q, _REQ]:
                    rel[b + 1] = rel[b]
                    b -= 1
                rel[b + 1] = q
            for a in range(nrel):
                q = rel[a]
                o = P[q, _OFF]
                c = P[q, _CNT]
                t0 = PF[q, 0]
                for e in range(c):
                    if vt[o + e] < t0:
                        t0 = vt[o + e]
                f_row[nf] = P[q, _ROW]
                f_t0[nf] = t0
                f_t1[nf] = now
                f_depth[nf] = P[q, _DEPTH]
                f_cx[nf] = P[q, _CX]
                f_cy[nf] = P[q, _CY]
                f_method[nf] = 1
                f_anon[nf] = c
                nf += 1
                mcount -= _unlink(P, q, mk, mv, mshift, mmask)
                pend_depth[P[q, _DEPTH]] -= 1
                npend -= 1
                P[q, _ALIVE] = 0
                free[nfree] = q
                nfree += 1
        # 6. the request
        if not isreq[i]:
            continue
        r = req_no
        req_no += 1
        pi = i * stride
        K = kk[pi]
        am = amin[pi]
        served = False
        c = _get(0, 0, 0, DD, off, dense, hk, hv, hshift, hmask)
        if c >= K:
            d = 0
            while d < D:
                sh = D - d - 1
                c2 = _get(d + 1, nxl >> sh, nyl >> sh, DD, off, dense, hk, hv, hshift, hmask)
                if c2 < K:
                    break
                d += 1
                c = c2
            if d >= am:
                sh = D - d
                f_row[nf] = i
                f_t0[nf] = now
                f_t1[nf] = now
                f_depth[nf] = d
                f_cx[nf] = nxl >> sh
                f_cy[nf] = nyl >> sh
                f_method[nf] = 0
                f_anon[nf] = c
                nf += 1
                served = True
        if served:
            continue
        if mdelay[pi] <= 0 or am > D:
            x_row[nx] = i
            x_hold[nx] = 1 if hold[pi] else 0
            nx += 1
            continue
        sh = D - am
        cx = nxl >> sh
        cy = nyl >> sh
        scan += 1
        nt = 0
        for j in range(lsize):
            r = ring[(lhead + j) & (lcap - 1)]
            if (ix[r] >> sh) == cx and (iy[r] >> sh) == cy:
                s2 = sid[r]
                if mark[s2] != scan:
                    mark[s2] = scan
                    touched[nt] = s2
                    nt += 1
                latest[s2] = t[r]
        if nt >= K:
            vals = np.empty(nt, dtype=np.float64)
            for j in range(nt):
                vals[j] = latest[touched[j]]
            vals.sort()
            t0 = min(now, vals[nt - K])
            anon = 0
            for j in range(nt):
                if vals[j] >= t0:
                    anon += 1
            f_row[nf] = i
            f_t0[nf] = t0
            f_t1[nf] = now
            f_depth[nf] = am
            f_cx[nf] = cx
            f_cy[nf] = cy
            f_method[nf] = 1
            f_anon[nf] = anon
            nf += 1
            continue
        # wait: a pending slot with room for K visitors
        if nfree == 0:
            P2 = np.zeros((2 * pcap, _NF), dtype=np.int64)
            P2[:pcap] = P
            P = P2
            PF2 = np.zeros((2 * pcap, 2), dtype=np.float64)
            PF2[:pcap] = PF
            PF = PF2
            free = np.empty(2 * pcap, dtype=np.int64)
            for j in range(pcap):
                free[j] = 2 * pcap - 1 - j
            nfree = pcap
            pcap = 2 * pcap
        nfree -= 1
        q = free[nfree]
        if P[q, _CAP] < K:
            while vused + K > vcap:
                vs2 = np.empty(2 * vcap, dtype=np.int64)
                vs2[:vused] = vs[:vused]
                vs = vs2
                vt2 = np.empty(2 * vcap, dtype=np.float64)
                vt2[:vused] = vt[:vused]
                vt = vt2
                vcap = 2 * vcap
            P[q, _OFF] = vused
            P[q, _CAP] = K
            vused += K
        o = P[q, _OFF]
        for j in range(nt):
            vs[o + j] = touched[j]
            vt[o + j] = latest[touched[j]]
        P[q, _CNT] = nt
        P[q, _REQ] = r
        P[q, _ROW] = i
        P[q, _DEPTH] = am
        P[q, _CX] = cx
        P[q, _CY] = cy
        P[q, _K] = K
        P[q, _HOLD] = 1 if hold[pi] else 0
        P[q, _ALIVE] = 1
        PF[q, 0] = now
        PF[q, 1] = now + mdelay[pi]
        # the cell's list (grow the map first: at most half full)
        if 2 * (mcount + 1) > (np.int64(1) << mbits):
            nbits = mbits + 1
            mk2 = np.full(np.int64(1) << nbits, -1, dtype=np.int64)
            mv2 = np.zeros(np.int64(1) << nbits, dtype=np.int64)
            for j in range(np.int64(1) << mbits):
                if mk[j] != -1:
                    j2 = _slot(mk2, mk[j], np.uint64(64 - nbits), (np.int64(1) << nbits) - 1)
                    mk2[j2] = mk[j]
                    mv2[j2] = mv[j]
            mk = mk2
            mv = mv2
            mbits = nbits
        key = (((cx << am) | cy) << 5) | am
        j = _slot(mk, key, np.uint64(64 - mbits), (np.int64(1) << mbits) - 1)
        if mk[j] == key:
            P[q, _NEXT] = mv[j]
        else:
            mk[j] = key
            P[q, _NEXT] = -1
            mcount += 1
        mv[j] = q
        pend_depth[am] += 1
        npend += 1
        if hn == hcap2:
            HD2 = np.empty(2 * hcap2, dtype=np.float64)
            HD2[:hn] = HD
            HD = HD2
            HS2 = np.empty(2 * hcap2, dtype=np.int64)
            HS2[:hn] = HS
            HS = HS2
            HR2 = np.empty(2 * hcap2, dtype=np.int64)
            HR2[:hn] = HR
            HR = HR2
            hcap2 = 2 * hcap2
        _push(HD, HS, HR, hn, PF[q, 1], q, P[q, _REQ])
        hn += 1

    # 7. the end of the stream: every pending request, by number
    left = np.empty(npend, dtype=np.int64)
    m = 0
    for q in range(pcap):
        if P[q, _ALIVE] == 1:
            left[m] = q
            m += 1
    order = np.argsort(P[left, _REQ])
    for a in range(m):
        q = left[order[a]]
        x_row[nx] = P[q, _ROW]
        x_hold[nx] = P[q, _HOLD]
        nx += 1
    return f_row, f_t0, f_t1, f_depth, f_cx, f_cy, f_method, f_anon, nf, x_row, x_hold, nx


_HELPERS = ("_slot", "_delete", "_add", "_get", "_push", "_pop", "_unlink")


def kernel():  # type: ignore[no-untyped-def]
    """The numba kernel (compiled on first use, cached on disk) with its numba helpers bound."""
    names = globals()
    for name in _HELPERS:
        names[name] = compiled(names[name + "_py"])
    return compiled(_run_py)
