"""Batch cloaking: a whole stream as numpy arrays, through one numba kernel (:mod:`~anonkit.location._batch_kernel`).

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

from anonkit.errors import InputError
from anonkit.location._batch_kernel import kernel
from anonkit.location.cloak import summary
from anonkit.location.index import Grid
from anonkit.location.messages import ON_FAIL, Area, Forwarded, Message, Policy

__all__ = ["BatchResult", "batch_arrays", "cloak_batch"]


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
    out = kernel()(t, sid, ix, iy, is_request, kk, amin, delay, hold, 1 if per_row else 0, depth, dense,
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
