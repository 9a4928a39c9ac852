"""Spatial and temporal cloaking (Gruteser & Grunwald, MobiSys 2003; paper B §4.3; spec §4.11).

A trusted broker sits between subjects and a location-based service. It knows every subject's
current position (from updates and requests) and forwards each request with its position replaced
by a quadtree cell of the area holding at least k subjects (*spatial cloaking*), or, when no such
cell is small enough, with its time replaced by an interval during which at least k distinct
subjects visited a fixed cell (*temporal cloaking*). A request neither can serve within its limits
is held or dropped, never forwarded uncloaked.

:func:`spatial_cloak` and :func:`temporal_cloak` are the spec's functions on explicit data;
:class:`Cloaker` is the broker's state, updated message by message at O(depth) per message;
:func:`cloak` runs it over a stream.

Decisions (the spec leaves them open or the paper is not available)
-------------------------------------------------------------------
* **Cells.** The area may be a rectangle; its quadtree cells halve both sides. The resolution floor
  ``min_side`` bounds the depth: no cell whose shorter side is below it is published.
* **max_area.** Spatial cloaking descends as far as k allows; if that cell is larger than the
  request's ``max_area`` spatial cloaking fails (a coarser cell would be larger still).
* **Temporal cell.** Temporal cloaking works on the *largest* quadtree cell containing the requester
  whose area is at most ``max_area`` (the whole area when ``max_area`` is ``None``): the largest cell
  the user accepts collects visitors fastest, so it gives the shortest delay. It is no deeper than the
  resolution floor; when even the leaves exceed ``max_area`` the request fails.
* **Visits.** A visit is the position of any message (update or request) in the cell at its time.
  The request is released at the first ``t_end ≥ t_req`` at which ≥ k distinct subjects (requester
  included) visited the cell during ``[t_req − t_back, t_end]``; the published interval is
  ``[min(t_req, τ), t_end]`` where ``τ`` is the earliest most-recent visit among the k most recent
  distinct visitors (spec §4.11). The ``min`` with ``t_req`` is ours: a requester who revisits the
  cell before the release would otherwise push ``τ`` past the request's own time, and the interval
  must contain it.
* **Deadline.** A request waits until ``t_req + max_delay`` included; when a message (or
  :meth:`Cloaker.advance`) at a later time arrives, or the stream ends, it is held or dropped.
  ``max_delay = 0`` means no temporal cloaking.
* **Order.** Messages with equal timestamps are taken in stream order. What one message releases is
  returned in order of request number, pending requests before the message's own request.
* **Subjects** stay at their last reported position until they report another (there is no expiry).
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections import deque
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from anonkit.errors import InputError
from anonkit.location.index import Grid, QuadIndex, morton
from anonkit.location.messages import KINDS, ON_FAIL, Area, Forwarded, Message, OnFail, Policy

__all__ = ["Cloaker", "cloak", "spatial_cloak", "temporal_cloak"]


# ---------------------------------------------------------------------------------------------- pure


def spatial_cloak(
    x: float,
    y: float,
    positions: np.ndarray,
    area: Area,
    k: int,
    *,
    min_side: float | None = None,
    max_area: float | None = None,
) -> tuple[float, float, float, float] | None:
    """Spec §4.11's spatial cloaking on explicit positions: the box ``(x0, y0, x1, y1)`` or ``None``.

    From the whole area, descend into the quadrant holding the requester ``(x, y)`` while it holds
    ≥ k of ``positions`` (an ``(n, 2)`` array, the requester included; positions outside the area are
    not counted) and is not below the resolution floor. ``None`` when the area holds fewer than k, or
    the resulting cell is larger than ``max_area``. O(depth · n).
    """
    grid = Grid(area, min_side)
    if not area.contains(x, y):
        raise InputError("the requester is outside the area", value=(x, y))
    pts = np.asarray(positions, dtype=np.float64).reshape(-1, 2)
    px, py = pts[:, 0], pts[:, 1]
    inside = (px >= area.x0) & (px < area.x1) & (py >= area.y0) & (py < area.y1)
    if int(inside.sum()) < k:
        return None
    ix, iy = grid.leaf(x, y)
    d = 0
    while d < grid.depth:
        s = grid.depth - d - 1
        bx0, by0, bx1, by1 = grid.box(d + 1, ix >> s, iy >> s)
        sub = inside & (px >= bx0) & (px < bx1) & (py >= by0) & (py < by1)
        if int(sub.sum()) < k:
            break
        inside = sub
        d += 1
    if max_area is not None and grid.cell_area(d) > max_area:
        return None
    s = grid.depth - d
    return grid.box(d, ix >> s, iy >> s)


def temporal_cloak(
    t_req: float,
    visits: Sequence[tuple[float, Hashable]],
    k: int,
    t_back: float = 0.0,
    *,
    max_delay: float | None = None,
) -> tuple[float, float] | None:
    """Spec §4.11's temporal cloaking of one cell: the interval ``(t0, t1)`` or ``None``.

    ``visits`` are ``(time, subject)`` of the cell, the requester's own visit at ``t_req`` included
    by the caller (ties at equal times are taken in the given order). The request is released at
    the first ``t1 ≥ t_req`` at which ≥ k distinct subjects visited during ``[t_req − t_back, t1]``;
    ``t0`` is the earliest most-recent visit among the k most recent distinct visitors, or ``t_req``
    if earlier. ``None`` when that never happens (or only after ``t_req + max_delay``).

    Example (spec): request at 10, visits u2@4, u3@12, u4@15, k = 3: ``t_back = 0`` → (10, 15);
    ``t_back = 10`` → (4, 12).
    """
    lo = t_req - t_back
    seq = sorted(((t, s) for t, s in visits if t >= lo), key=lambda v: v[0])
    latest: dict[Hashable, float] = {}
    i = 0
    while i < len(seq) and seq[i][0] <= t_req:
        latest[seq[i][1]] = seq[i][0]
        i += 1
    t1 = t_req
    while len(latest) < k and i < len(seq):
        t1, s = seq[i]
        latest[s] = t1
        i += 1
    if len(latest) < k or (max_delay is not None and t1 > t_req + max_delay):
        return None
    return min(t_req, _kth_largest(latest.values(), k)), t1


def _kth_largest(values: Iterable[float], k: int) -> float:
    return heapq.nlargest(k, values)[-1]


# ---------------------------------------------------------------------------------------------- broker


@dataclass(slots=True)
class _Pending:
    """A request waiting for temporal cloaking."""

    number: int
    msg: Message
    t: float
    deadline: float
    depth: int
    cell: tuple[int, int]
    code: int
    k: int
    on_fail: OnFail
    latest: dict[Hashable, float] = field(default_factory=dict)


class Cloaker:
    """The trusted broker's state: subjects' current positions, indexed, and pending requests.

    Feed it messages in time order with :meth:`push`; each call returns the requests released by
    that message (cloaked). :meth:`advance` lets time pass without a message; :meth:`close` ends the
    stream. Requests that no cloaking serves within their limits are held (:attr:`held`) or dropped
    (:attr:`dropped`), never forwarded. See the module's decisions.

    Cost: O(depth) per message for the spatial index; temporal cloaking adds a scan of the visits of
    the last ``t_back`` when a request falls back to it and O(pending depths) per message while
    requests wait. Memory: O(subjects × depth) + the visits of the last ``t_back`` + the pending
    requests (+ the held and dropped request numbers and the temporal delays, for the statistics).
    """

    def __init__(self, area: Area, policy: Policy | None = None) -> None:
        policy = Policy() if policy is None else policy
        if not isinstance(policy, Policy):
            raise InputError(f"the policy must be a Policy, not {type(policy).__name__}", key="policy")
        self.area = area
        self.policy = policy
        self.grid = Grid(area, policy.min_side)
        self.index = QuadIndex(self.grid.depth)
        self.held: list[tuple[int, Message]] = []
        self.dropped: list[int] = []
        self._now = -math.inf
        self._requests = 0
        self._visits: deque[tuple[float, Hashable, int]] = deque()
        self._pending: dict[int, _Pending] = {}
        self._by_cell: dict[tuple[int, int, int], list[_Pending]] = {}
        self._depths: dict[int, int] = {}  # depth → pending requests on cells of that depth
        self._deadlines: list[tuple[float, int]] = []
        # statistics: served boxes by depth (cells of one depth have one area), temporal delays
        self._served_depth = [0] * (self.grid.depth + 1)
        self._spatial = 0
        self._temporal = 0
        self._delays = array("d")
        self._k_achieved: int | None = None
        self._depth_for_area: dict[float | None, int] = {}

    # ------------------------------------------------------------------ public

    @property
    def now(self) -> float:
        """The time of the last message (or :meth:`advance`)."""
        return self._now

    @property
    def requests(self) -> int:
        """Requests seen so far (the next request's number)."""
        return self._requests

    @property
    def subjects(self) -> int:
        """Subjects with a known position."""
        return len(self.index)

    def pending(self) -> list[int]:
        """The numbers of the requests waiting for temporal cloaking."""
        return sorted(self._pending)

    def push(self, msg: Message) -> list[Forwarded]:
        """Take one message; return every request it releases (see the class)."""
        t = float(msg.t)
        if not t >= self._now:  # also refuses NaN
            raise InputError(f"messages must be in time order: t = {t!r} is earlier than {self._now!r}",
                             key="t", value=t)
        if msg.kind not in KINDS:
            raise InputError("unknown kind; use 'update' or 'request'", key="kind", value=msg.kind)
        x, y = msg.x, msg.y
        if not self.area.contains(x, y):
            raise InputError(f"the position ({x!r}, {y!r}) is outside the area", key="x, y", value=msg.subject)
        is_request = msg.kind == "request"
        if is_request:
            self._check_overrides(msg)
        self._now = t
        if self._deadlines and self._deadlines[0][0] < t:
            self._expire(t)
        visits = self._visits
        lo = t - self.policy.t_back
        while visits and visits[0][0] < lo:
            visits.popleft()
        ix, iy = self.grid.leaf(x, y)
        code = morton(ix, iy)
        self.index.move(msg.subject, code)
        visits.append((t, msg.subject, code))
        out = self._feed(msg.subject, code, t) if self._pending else []
        if is_request:
            fwd = self._request(msg, t, ix, iy, code)
            if fwd is not None:
                out.append(fwd)
        return out

    def advance(self, t: float) -> list[Forwarded]:
        """Let time pass to ``t`` with no message: pending requests whose deadline is before ``t``
        are held or dropped. Returns what is released (nothing: only a visit releases a request)."""
        if not t >= self._now:
            raise InputError(f"time cannot go back: t = {t!r} is earlier than {self._now!r}", key="t", value=t)
        self._now = t
        if self._deadlines and self._deadlines[0][0] < t:
            self._expire(t)
        lo = t - self.policy.t_back
        while self._visits and self._visits[0][0] < lo:
            self._visits.popleft()
        return []

    def close(self) -> list[Forwarded]:
        """End of the stream: every pending request is held or dropped (by number)."""
        for number in sorted(self._pending):
            self._fail_pending(self._pending[number])
        self._deadlines.clear()
        return []

    def stats(self) -> dict:
        """Requests served, held, dropped and pending; the median and 95th percentile of the served
        boxes' areas and delays (forward time − request time); the smallest anonymity of a served
        request (``k_achieved``, None when none was served)."""
        areas = np.repeat(np.array([self.grid.cell_area(d) for d in range(self.grid.depth + 1)]),
                          self._served_depth)
        delays = np.concatenate([np.zeros(self._spatial), np.frombuffer(self._delays, dtype=np.float64)])
        return summary(self._requests, self._spatial, self._temporal, len(self.held), len(self.dropped),
                       len(self._pending), areas, delays, self._k_achieved)

    # ------------------------------------------------------------------ internals

    def _check_overrides(self, msg: Message) -> None:
        k = msg.k
        if k is not None and (isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1):
            raise InputError("a request's k must be a whole number of at least 1", key="k", value=k)
        for name in ("max_area", "max_delay"):
            v = getattr(msg, name)
            if v is not None and not (math.isfinite(v) and v >= 0 and (v > 0 or name == "max_delay")):
                raise InputError(f"a request's {name} must be a {'positive' if name == 'max_area' else 'non-negative'}"
                                 " finite number", key=name, value=v)
        if msg.on_fail is not None and msg.on_fail not in ON_FAIL:
            raise InputError("a request's on_fail must be 'hold' or 'drop'", key="on_fail", value=msg.on_fail)

    def _area_depth(self, max_area: float | None) -> int:
        d = self._depth_for_area.get(max_area)
        if d is None:
            d = self._depth_for_area[max_area] = self.grid.depth_for_area(max_area)
        return d

    def _request(self, msg: Message, t: float, ix: int, iy: int, code: int) -> Forwarded | None:
        policy = self.policy
        number = self._requests
        self._requests += 1
        k = policy.k if msg.k is None else int(msg.k)
        amin = self._area_depth(policy.max_area if msg.max_area is None else msg.max_area)
        found = self.index.descend(code, k)
        depth = self.grid.depth
        if found is not None and found[0] >= amin:
            d, count = found
            s = depth - d
            x0, y0, x1, y1 = self.grid.box(d, ix >> s, iy >> s)
            self._served(d, count, None)
            return Forwarded(t, x0, y0, x1, y1, t, t, msg.payload, number, "spatial", count)
        max_delay = policy.max_delay if msg.max_delay is None else msg.max_delay
        on_fail = policy.on_fail if msg.on_fail is None else msg.on_fail
        if max_delay <= 0 or amin > depth:
            self._fail(number, msg, on_fail)
            return None
        s = depth - amin
        cx, cy = ix >> s, iy >> s
        cell = code >> 2 * s
        latest: dict[Hashable, float] = {}
        for vt, subject, vcode in self._visits:
            if vcode >> 2 * s == cell:
                latest[subject] = vt
        if len(latest) >= k:
            t0 = min(t, _kth_largest(latest.values(), k))
            anonymity = sum(1 for v in latest.values() if v >= t0)
            return self._temporal_forward(number, t, msg, amin, cx, cy, t0, t, anonymity)
        p = _Pending(number, msg, t, t + max_delay, amin, (cx, cy), cell, k, on_fail, latest)
        self._pending[number] = p
        self._by_cell.setdefault((amin, cell), []).append(p)
        self._depths[amin] = self._depths.get(amin, 0) + 1
        heapq.heappush(self._deadlines, (p.deadline, number))
        return None

    def _feed(self, subject: Hashable, code: int, t: float) -> list[Forwarded]:
        """A visit at ``t``: the pending requests on its cells count it; those reaching k are released."""
        released: list[_Pending] = []
        depth = self.grid.depth
        for d in self._depths:
            waiting = self._by_cell.get((d, code >> 2 * (depth - d)))
            if waiting:
                for p in waiting:
                    p.latest[subject] = t
                    if len(p.latest) >= p.k:
                        released.append(p)
        out = []
        for p in sorted(released, key=lambda q: q.number):
            self._remove(p)
            t0 = min(p.t, min(p.latest.values()))
            out.append(self._temporal_forward(p.number, p.t, p.msg, p.depth, *p.cell, t0, t, len(p.latest)))
        return out

    def _temporal_forward(self, number: int, t_req: float, msg: Message, d: int, cx: int, cy: int, t0: float,
                          t1: float, anonymity: int) -> Forwarded:
        x0, y0, x1, y1 = self.grid.box(d, cx, cy)
        self._served(d, anonymity, t1 - t_req)
        return Forwarded(t1, x0, y0, x1, y1, t0, t1, msg.payload, number, "temporal", anonymity)

    def _served(self, d: int, anonymity: int, delay: float | None) -> None:
        self._served_depth[d] += 1
        if delay is None:
            self._spatial += 1
        else:
            self._temporal += 1
            self._delays.append(delay)
        if self._k_achieved is None or anonymity < self._k_achieved:
            self._k_achieved = anonymity

    def _remove(self, p: _Pending) -> None:
        del self._pending[p.number]
        key = (p.depth, p.code)
        waiting = self._by_cell[key]
        waiting.remove(p)
        if not waiting:
            del self._by_cell[key]
        left = self._depths[p.depth] - 1
        if left:
            self._depths[p.depth] = left
        else:
            del self._depths[p.depth]

    def _expire(self, t: float) -> None:
        heap = self._deadlines
        while heap and heap[0][0] < t:
            _, number = heapq.heappop(heap)
            p = self._pending.get(number)
            if p is not None:
                self._fail_pending(p)

    def _fail_pending(self, p: _Pending) -> None:
        self._remove(p)
        self._fail(p.number, p.msg, p.on_fail)

    def _fail(self, number: int, msg: Message, on_fail: OnFail) -> None:
        if on_fail == "hold":
            self.held.append((number, msg))
        else:
            self.dropped.append(number)


def summary(requests: int, spatial: int, temporal: int, held: int, dropped: int, pending: int,
            areas: np.ndarray, delays: np.ndarray, k_achieved: int | None) -> dict:
    """The statistics of a run (shared by :meth:`Cloaker.stats` and the batch result)."""

    def spread(values: np.ndarray) -> dict[str, float | None]:
        if values.size == 0:
            return {"median": None, "p95": None}
        return {"median": float(np.percentile(values, 50)), "p95": float(np.percentile(values, 95))}

    return {
        "requests": int(requests),
        "served": int(spatial + temporal),
        "held": int(held),
        "dropped": int(dropped),
        "pending": int(pending),
        "spatial": int(spatial),
        "temporal": int(temporal),
        "area": spread(areas),
        "delay": spread(delays),
        "k_achieved": None if k_achieved is None else int(k_achieved),
    }


def cloak(
    messages: Iterable[Message],
    area: Area,
    policy: Policy | None = None,
    *,
    cloaker: Cloaker | None = None,
) -> Iterator[Forwarded]:
    """Cloak a stream of messages: the forwarded requests, in the order the broker releases them.

    Pass ``cloaker`` to read its :meth:`~Cloaker.stats`, :attr:`~Cloaker.held` and
    :attr:`~Cloaker.dropped` afterwards (``area`` and ``policy`` are then its own). The stream's end
    holds or drops every request still waiting.
    """
    c = cloaker if cloaker is not None else Cloaker(area, policy)
    for msg in messages:
        yield from c.push(msg)
    yield from c.close()
