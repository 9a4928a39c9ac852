"""Batch cloaking: a whole stream as numpy arrays, through one numba kernel.

:func:`cloak_batch` gives exactly what :class:`~anonkit.location.cloak.Cloaker` gives message by
message (``tests/test_location_core.py`` compares them): the same cells, intervals, anonymity, held
and dropped requests, in the same order. The kernel keeps the same state — subjects' leaf cells, the
subject counts of every cell (dense arrays for the shallow levels, an open-addressing hash table for
the deep ones), the visits of the last ``t_back``, the pending temporal requests indexed by cell, a
deadline heap — and follows the same steps for every message: expire the deadlines before its time,
forget visits older than ``t − t_back``, move the subject (O(levels whose cell changes)), feed the
pending requests of its cells, then cloak the request (O(depth)).

Memory: O(subjects) for the index (the dense levels stop where they would hold more cells than a few
per subject, the hash holds one entry per subject and deep level), plus the visits of the last
``t_back`` and the pending requests; and the arrays in and out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from anonkit._kernels import compiled
from anonkit.errors import InputError
from anonkit.location.cloak import summary
from anonkit.location.index import Grid
from anonkit.location.messages import ON_FAIL, Area, Forwarded, Message, Policy

__all__ = ["BatchResult", "batch_arrays", "cloak_batch"]

_MIX = np.uint64(0x9E3779B97F4A7C15)
# pending-request fields (columns of the kernel's int64 table)
_REQ, _ROW, _DEPTH, _CX, _CY, _K, _HOLD, _NEXT, _OFF, _CAP, _CNT, _ALIVE = range(12)
_NF = 12


@dataclass(frozen=True)
class BatchResult:
    """The forwarded requests (one entry per array position, in release order) and the failures.

    ``row`` is the request's row in the input, ``request`` its number among the requests; ``t`` the
    forward time (= ``t1``); ``method`` 0 spatial, 1 temporal; ``depth`` the cell's quadtree depth.
    ``held`` / ``dropped`` are request numbers (``held_row`` / ``dropped_row`` their rows), in the
    order they were decided.
    """

    row: np.ndarray
    request: np.ndarray
    t: np.ndarray
    x0: np.ndarray
    y0: np.ndarray
    x1: np.ndarray
    y1: np.ndarray
    t0: np.ndarray
    t1: np.ndarray
    method: np.ndarray
    anonymity: np.ndarray
    depth: np.ndarray
    held: np.ndarray
    held_row: np.ndarray
    dropped: np.ndarray
    dropped_row: np.ndarray
    requests: int
    cell_areas: np.ndarray

    def __len__(self) -> int:
        return int(self.row.shape[0])

    def stats(self) -> dict:
        """The same statistics as :meth:`Cloaker.stats <anonkit.location.cloak.Cloaker.stats>`."""
        temporal = self.method == 1
        delays = self.t - self.t_request
        return summary(self.requests, int((~temporal).sum()), int(temporal.sum()), self.held.size,
                       self.dropped.size, 0, self.cell_areas[self.depth], delays,
                       int(self.anonymity.min()) if len(self) else None)

    @property
    def t_request(self) -> np.ndarray:
        """Each forwarded request's own time (its delay is ``t − t_request``)."""
        return self._t_request  # type: ignore[attr-defined,no-any-return]

    def forwarded(self, payload: Sequence[str] | np.ndarray | None = None) -> list[Forwarded]:
        """The rows as :class:`Forwarded` (``payload`` per input row; empty when not given)."""
        out = []
        for j in range(len(self)):
            r = int(self.row[j])
            out.append(Forwarded(
                float(self.t[j]), float(self.x0[j]), float(self.y0[j]), float(self.x1[j]), float(self.y1[j]),
                float(self.t0[j]), float(self.t1[j]), "" if payload is None else str(payload[r]),
                int(self.request[j]), "temporal" if self.method[j] else "spatial", int(self.anonymity[j]),
            ))
        return out


def batch_arrays(messages: Iterable[Message]) -> dict[str, np.ndarray]:
    """The columns of a message list as the arrays :func:`cloak_batch` takes (``t``, ``subject``,
    ``x``, ``y``, ``is_request``, the per-request overrides ``k`` (0: the policy's), ``max_area``,
    ``max_delay`` (NaN: the policy's), ``on_fail`` (None: the policy's) and ``payload``)."""
    msgs = list(messages)
    return {
        "t": np.array([m.t for m in msgs], dtype=np.float64),
        "subject": np.array([m.subject for m in msgs], dtype=object),
        "x": np.array([m.x for m in msgs], dtype=np.float64),
        "y": np.array([m.y for m in msgs], dtype=np.float64),
        "is_request": np.array([m.kind == "request" for m in msgs], dtype=bool),
        "k": np.array([0 if m.k is None else m.k for m in msgs], dtype=np.int64),
        "max_area": np.array([math.nan if m.max_area is None else m.max_area for m in msgs], dtype=np.float64),
        "max_delay": np.array([math.nan if m.max_delay is None else m.max_delay for m in msgs], dtype=np.float64),
        "on_fail": np.array([m.on_fail for m in msgs], dtype=object),
        "payload": np.array([m.payload for m in msgs], dtype=object),
    }


def cloak_batch(
    t: np.ndarray,
    subject: np.ndarray | Sequence[object],
    x: np.ndarray,
    y: np.ndarray,
    is_request: np.ndarray,
    area: Area,
    policy: Policy | None = None,
    *,
    k: np.ndarray | None = None,
    max_area: np.ndarray | None = None,
    max_delay: np.ndarray | None = None,
    on_fail: np.ndarray | Sequence[str | None] | None = None,
) -> BatchResult:
    """Cloak a whole stream given as arrays (one entry per message, in time order).

    ``subject`` may hold any hashable labels; ``is_request`` marks requests (the rest are updates).
    The optional per-message arrays override the policy for requests: ``k`` (≤ 0: the policy's),
    ``max_area`` and ``max_delay`` (NaN: the policy's), ``on_fail`` (``"hold"``/``"drop"``, None:
    the policy's). The semantics are :class:`~anonkit.location.cloak.Cloaker`'s, ending with
    :meth:`~anonkit.location.cloak.Cloaker.close`.

    Raises
    ------
    InputError
        Arrays of different lengths, non-finite or decreasing times, positions outside the area, bad
        overrides (naming the row, 0-based).
    """
    policy = Policy() if policy is None else policy
    if not isinstance(policy, Policy):
        raise InputError(f"the policy must be a Policy, not {type(policy).__name__}", key="policy")
    grid = Grid(area, policy.min_side)
    t = np.ascontiguousarray(t, dtype=np.float64)
    x = np.ascontiguousarray(x, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    is_request = np.ascontiguousarray(is_request, dtype=np.bool_)
    n = t.shape[0]
    subject_arr = subject if isinstance(subject, np.ndarray) else np.asarray(list(subject), dtype=object)
    for name, arr in (("subject", subject_arr), ("x", x), ("y", y), ("is_request", is_request)):
        if arr.shape[0] != n:
            raise InputError(f"the arrays must have one entry per message: {name} has {arr.shape[0]}, t has {n}",
                             key=name)
    _check_rows(t, x, y, area)
    sid, uniques = pd.factorize(subject_arr) if n else (np.empty(0, np.int64), [])
    sid = np.ascontiguousarray(sid, dtype=np.int64)
    if (sid < 0).any():
        raise InputError("a subject is missing", key="subject", value=int(np.argmax(sid < 0)))
    n_subjects = len(uniques)
    ix, iy = grid.leaves(x, y)

    # the per-request parameters: one entry per row with overrides, else one for all (stride 0)
    per_row = any(v is not None for v in (k, max_area, max_delay, on_fail))
    m = n if per_row else 1
    kk = _override_int(k, m, policy.k, "k")
    area_limit = _override_float(max_area, m, policy.max_area, "max_area", positive=True)
    delay = _override_float(max_delay, m, policy.max_delay, "max_delay", positive=False)
    hold = _override_hold(on_fail, m, policy.on_fail)
    amin = np.empty(m, dtype=np.int64)
    for value in np.unique(area_limit):
        amin[area_limit == value] = grid.depth_for_area(None if np.isinf(value) else float(value))
    del area_limit

    depth = grid.depth
    dense = min(depth, max(4, math.ceil(math.log(max(n_subjects, 1), 4)) + 1))
    sparse_entries = 2 * max(n_subjects, 1) * max(depth - dense, 0)
    hbits = max(4, (sparse_entries - 1).bit_length())
    n_req = int(is_request.sum())
    out = _kernel()(t, sid, ix, iy, is_request, kk, amin, delay, hold, 1 if per_row else 0, depth, dense,
                    float(policy.t_back), max(n_subjects, 1), n_req, hbits)
    f_row, f_t0, f_t1, f_depth, f_cx, f_cy, f_method, f_anon, nf, x_row, x_hold, nx = out
    f_row, f_t0, f_t1 = f_row[:nf], f_t0[:nf], f_t1[:nf]
    f_depth, f_cx, f_cy = f_depth[:nf].astype(np.int64), f_cx[:nf].astype(np.int64), f_cy[:nf].astype(np.int64)
    number = np.cumsum(is_request, dtype=np.int64) - 1  # request number of each row
    bx0, by0, bx1, by1 = grid.boxes(f_depth, f_cx, f_cy)
    x_row, x_hold = x_row[:nx], x_hold[:nx].astype(bool)
    res = BatchResult(
        row=f_row, request=number[f_row], t=f_t1.copy(), x0=bx0, y0=by0, x1=bx1, y1=by1, t0=f_t0, t1=f_t1,
        method=f_method[:nf].copy(), anonymity=f_anon[:nf].astype(np.int64), depth=f_depth,
        held=number[x_row[x_hold]], held_row=x_row[x_hold], dropped=number[x_row[~x_hold]],
        dropped_row=x_row[~x_hold], requests=n_req,
        cell_areas=np.array([grid.cell_area(d) for d in range(depth + 1)]),
    )
    object.__setattr__(res, "_t_request", t[f_row])
    return res


def _check_rows(t: np.ndarray, x: np.ndarray, y: np.ndarray, area: Area) -> None:
    for name, arr in (("t", t), ("x", x), ("y", y)):
        bad = ~np.isfinite(arr)
        if bad.any():
            r = int(np.argmax(bad))
            raise InputError(f"{name} must be a finite number", key=name, value=arr[r], row=r)
    if t.size > 1:
        back = np.diff(t) < 0
        if back.any():
            r = int(np.argmax(back)) + 1
            raise InputError(f"messages must be in time order: t = {t[r]!r} is earlier than {t[r - 1]!r}",
                             key="t", value=t[r], row=r)
    outside = ~((x >= area.x0) & (x < area.x1) & (y >= area.y0) & (y < area.y1))
    if outside.any():
        r = int(np.argmax(outside))
        raise InputError(f"the position ({x[r]!r}, {y[r]!r}) is outside the area", key="x, y", row=r)


def _override_int(values: np.ndarray | None, n: int, default: int, name: str) -> np.ndarray:
    out = np.full(n, default, dtype=np.int64)
    if values is not None:
        v = np.asarray(values)
        if v.shape[0] != n:
            raise InputError(f"the arrays must have one entry per message: {name} has {v.shape[0]}", key=name)
        if not np.issubdtype(v.dtype, np.integer):
            raise InputError(f"{name} must be whole numbers", key=name)
        given = v > 0
        out[given] = v[given]
    return out


def _override_float(values: np.ndarray | None, n: int, default: float | None, name: str, *,
                    positive: bool) -> np.ndarray:
    """Per-row values, the default where NaN; ``None`` (no limit) is +inf."""
    out = np.full(n, np.inf if default is None else float(default), dtype=np.float64)
    if values is not None:
        v = np.asarray(values, dtype=np.float64)
        if v.shape[0] != n:
            raise InputError(f"the arrays must have one entry per message: {name} has {v.shape[0]}", key=name)
        given = ~np.isnan(v)
        bad = given & (~np.isfinite(v) | (v < 0) | ((v == 0) & positive))
        if bad.any():
            r = int(np.argmax(bad))
            raise InputError(f"{name} must be a {'positive' if positive else 'non-negative'} finite number",
                             key=name, value=v[r], row=r)
        out[given] = v[given]
    return out


def _override_hold(values: np.ndarray | Sequence[str | None] | None, n: int, default: str) -> np.ndarray:
    out = np.full(n, default == "hold", dtype=np.bool_)
    if values is not None:
        v = list(values)
        if len(v) != n:
            raise InputError(f"the arrays must have one entry per message: on_fail has {len(v)}", key="on_fail")
        for r, value in enumerate(v):
            if value is None or (isinstance(value, float) and math.isnan(value)):
                continue
            if value not in ON_FAIL:
                raise InputError("on_fail must be 'hold' or 'drop'", key="on_fail", value=value, row=r)
            out[r] = value == "hold"
    return out


# ---------------------------------------------------------------------------------------------- kernel
# The helpers below are plain Python; ``_kernel`` binds their numba versions to the names the kernel
# calls (``_slot``, ``_delete``, ``_add``, ``_get``, ``_push``, ``_pop``) before compiling it, so numba
# is imported only when a batch runs (and the kernel can also be run as plain Python to debug it).


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


def _kernel():  # type: ignore[no-untyped-def]
    """The numba kernel (compiled on first use, cached on disk) with its numba helpers bound."""
    names = globals()
    for name in _HELPERS:
        names[name] = compiled(names[name + "_py"])
    return compiled(_run_py)
