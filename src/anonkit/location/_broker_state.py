"""The broker's state: one cloaker, the requests' statuses, the counters, the clock rules.

Every method that touches the cloaker is called with :attr:`Broker.lock` held (by the endpoints, the
sweeper and the shutdown) and does not await, because the cloaking core is not thread-safe.

The rules a caller cannot bend (issue 23):

* **The policy is the server's.** A request's ``k`` may only be larger than the broker's, its
  ``max_area`` and ``max_delay`` only smaller; a weaker value is a 422 naming the field (refused, not
  raised silently, so a client learns that it cannot buy precision with its neighbours' privacy).
* **The clock is the server's.** With the wall clock a body's ``t`` is only checked (within
  ``max_skew`` seconds of the broker's clock) and the message is stamped with the broker's clock, so
  no caller can move the broker's time for everyone. With the simulation clock the bodies' ``t`` are
  the time: required, never backwards (409), and never more than ``max_skew`` ahead of the latest.
* **A subject moves only itself**: the endpoints pass the subject their bearer token names.
* **A status never claims what did not happen.** A cloaked request released to the forward queue
  reads ``queued`` (its message in the spool first, when there is a state folder) until the service
  has accepted it (``forwarded``) or not after the retries (``failed``); a release the queue has no
  room for, or whose spool line cannot be written, reads ``failed`` at once. The counters follow the
  same outcomes (``forwarded_total``, ``forward_errors_total``, ``forward_queue``).
"""

from __future__ import annotations

import asyncio
import bisect
import math
import secrets
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import HTTPException
from fastapi.exceptions import RequestValidationError

from anonkit.errors import InputError
from anonkit.location import Area, Cloaker, Forwarded, Message, Policy
from anonkit.location._broker_api import (
    PUBLIC_FIELDS,
    Box,
    Health,
    Interval,
    RequestIn,
    RequestOut,
    Status,
    UpdateIn,
    UpdateOut,
)
from anonkit.location._broker_auth import Tokens
from anonkit.location._broker_defaults import DEFAULT_MAX_SKEW
from anonkit.location._broker_forward import Sink, _Forwarder, log
from anonkit.location._broker_journal import Journal
from anonkit.location._broker_spool import Delivery

#: finished requests whose status ``GET /requests/{id}`` still answers (the oldest are forgotten)
RECORD_LIMIT = 100_000
#: requests of one subject that may wait for temporal cloaking at once (more: 429)
MAX_PENDING_PER_SUBJECT = 16
#: upper bounds (seconds) of the processing-time histogram's buckets
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


@dataclass(slots=True)
class _Record:
    id: str
    owner: str
    t: float
    status: Status
    message: Message
    k: int
    deadline: float | None = None
    box: tuple[float, float, float, float] | None = None
    interval: tuple[float, float] | None = None

    def out(self) -> RequestOut:
        return RequestOut(
            id=self.id, status=self.status, t=self.t,
            box=None if self.box is None else Box(x0=self.box[0], y0=self.box[1], x1=self.box[2], y1=self.box[3]),
            interval=None if self.interval is None else Interval(t0=self.interval[0], t1=self.interval[1]),
            deadline=self.deadline if self.status == "pending" else None,
        )


class _Histogram:
    def __init__(self, buckets: tuple[float, ...]) -> None:
        self.buckets = buckets
        self.counts = [0] * (len(buckets) + 1)
        self.sum = 0.0
        self.count = 0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.buckets, value)] += 1
        self.sum += value
        self.count += 1


def invalid(field: str, message: str, kind: str = "value_error") -> RequestValidationError:
    """A 422 naming one body field (never echoing the body)."""
    return RequestValidationError([{"type": kind, "loc": ("body", field), "msg": message}])


class Broker:
    """The broker's state: the cloaker, the requests' statuses, the counters and the forwarder.

    A request is known by its number in the cloaker (:attr:`Cloaker.requests` before it is pushed,
    :attr:`Forwarded.request` when released) and by an unguessable id outside; the cloaker's
    :attr:`~Cloaker.held` and :attr:`~Cloaker.dropped` lists, read from where they were last read,
    say which pending requests failed.
    """

    def __init__(self, area: Area, policy: Policy, forward: str | Path | Sink, tokens: Tokens, *,
                 clock: Callable[[], float] | None = None, simulation: bool = False,
                 max_skew: float = DEFAULT_MAX_SKEW, journal: Journal | None = None) -> None:
        if not (isinstance(max_skew, int | float) and math.isfinite(max_skew) and max_skew >= 0):
            raise InputError("--max-skew must be a non-negative number of seconds", key="max-skew", value=max_skew)
        if simulation and clock is not None:
            raise InputError("a simulation clock takes its time from the messages: give no clock", key="clock")
        self.area = area
        self.policy = policy
        self.tokens = tokens
        self.cloaker = Cloaker(area, policy)
        self.forwarder = _Forwarder(forward, self.delivered)
        self.simulation = simulation
        self.max_skew = float(max_skew)
        self.clock = None if simulation else clock if clock is not None else unix_clock()
        self.journal = journal
        self.spool = journal.spool if journal is not None else None
        self.queued = 0  # requests whose status is queued (in the forward queue or in a worker's hands)
        self.lock = asyncio.Lock()
        self.closing = False
        self.pending: dict[int, _Record] = {}  # request number → record, until forwarded, held or dropped
        self.finished: OrderedDict[str, _Record] = OrderedDict()
        self.restored = journal.restored if journal is not None else OrderedDict()
        self._ids: dict[str, int] = {}  # id → number of a pending request
        self._pending_of: Counter[str] = Counter()  # subject → its pending requests
        self._seen_held = 0
        self._seen_dropped = 0
        self.counts: Counter[str] = Counter()
        self.latency = {name: _Histogram(LATENCY_BUCKETS) for name in ("updates", "requests")}
        if journal is not None:
            self.counts["lost"] = journal.lost
        self._max_area = policy.max_area if policy.max_area is not None else area.width * area.height

    # -------------------------------------------------------------- time
    @property
    def time(self) -> float:
        """The latest time given to the cloaker (−inf before the first message)."""
        return self.cloaker.now

    def now(self) -> float | None:
        """The broker's time: the clock's (never before the latest message's), or with the simulation
        clock the latest message's (``None`` before the first)."""
        if self.clock is None:
            return self.time if math.isfinite(self.time) else None
        return max(self.clock(), self.time)

    def _time_of(self, t: float | None) -> float:
        if self.clock is not None:
            now = self.now()
            assert now is not None
            if t is not None and abs(t - now) > self.max_skew:
                raise invalid("t", f"t is {abs(t - now):.3g} s from the broker's clock ({now!r}), more than the "
                                   f"allowed skew of {self.max_skew:g} s: send no t, or set your clock",
                              "clock_skew")
            return now
        if t is None:
            raise invalid("t", "t is required: the broker runs on a simulation clock", "missing")
        if t < self.time:
            self.counts["rejected_out_of_order"] += 1
            raise HTTPException(409, f"t {t!r} is before the broker's time {self.time!r}: times must not go "
                                     f"backwards")
        if math.isfinite(self.time) and t - self.time > self.max_skew:
            raise invalid("t", f"t {t!r} is more than {self.max_skew:g} s after the broker's time {self.time!r} "
                               "(the simulation clock's largest step, --max-skew)", "clock_skew")
        return t

    def _check_position(self, x: float, y: float) -> None:
        a = self.area
        for name, value, lo, hi in (("x", x, a.x0, a.x1), ("y", y, a.y0, a.y1)):
            if not lo <= value < hi:
                raise invalid(name, f"{name} {value!r} is outside the area ({lo!r} ≤ {name} < {hi!r})",
                              "outside_area")

    def _check_policy(self, body: RequestIn) -> None:
        """A request may be stricter than the policy, never weaker (refused with the field's name)."""
        p = self.policy
        if body.k is not None and body.k < p.k:
            raise invalid("k", f"k {body.k} is below the broker's k of {p.k}: a request may ask for more "
                               "privacy, never less (send no k for the broker's)", "policy")
        if body.max_area is not None and body.max_area > self._max_area:
            raise invalid("max_area", f"max_area {body.max_area!r} is above the broker's {self._max_area!r}: a "
                                      "request may only narrow it", "policy")
        if body.max_delay is not None and body.max_delay > p.max_delay:
            raise invalid("max_delay", f"max_delay {body.max_delay!r} is above the broker's {p.max_delay!r}: a "
                                       "request may only shorten it", "policy")

    # -------------------------------------------------------------- intake (lock held)
    def update(self, body: UpdateIn, subject: str) -> UpdateOut:
        self._check_open()
        self._check_position(body.x, body.y)
        t = self._time_of(body.t)
        self._push(Message(t, subject, body.x, body.y, "update"))
        self.counts["updates"] += 1
        return UpdateOut(t=t)

    def request(self, body: RequestIn, subject: str) -> RequestOut:
        self._check_open()
        self._check_position(body.x, body.y)
        self._check_policy(body)
        t = self._time_of(body.t)
        if self._pending_of[subject] >= MAX_PENDING_PER_SUBJECT:
            self.counts["rejected_too_many_pending"] += 1
            raise HTTPException(429, f"this subject already has {MAX_PENDING_PER_SUBJECT} requests waiting for "
                                     "temporal cloaking; wait for one to finish")
        message = Message(t, subject, body.x, body.y, "request", payload=body.payload, k=body.k,
                          max_area=body.max_area, max_delay=body.max_delay, on_fail=body.on_fail)
        number = self.cloaker.requests
        max_delay = self.policy.max_delay if body.max_delay is None else body.max_delay
        record = _Record(id=secrets.token_urlsafe(12), owner=self.tokens.owner(subject), t=t, status="pending",
                         message=message, k=self.policy.k if body.k is None else body.k, deadline=t + max_delay)
        self.pending[number] = record
        self._ids[record.id] = number
        self._pending_of[subject] += 1
        try:
            self._push(message)
        finally:
            if self.cloaker.requests == number:  # refused: the cloaker never saw it
                self.pending.pop(number, None)
                self._ids.pop(record.id, None)
                self._drop_pending_of(subject)
        self.counts["requests"] += 1
        if record.status == "pending" and self.journal is not None:
            self.journal.write(record.id, record.owner, "pending", t)
        return record.out()

    def sweep(self) -> None:
        """Let time pass to the clock: pending requests whose deadline passed are held or dropped."""
        if self.clock is None:
            return  # a simulation's time passes only with its messages
        now = self.clock()
        if now > self.time:
            self._released(self.cloaker.advance(now))
            self._failed()

    def close(self) -> None:
        """End of the stream (shutdown): every request still pending is held, dropped or queued (the
        journal stays open for the deliveries' outcomes until :meth:`stopped`)."""
        self.closing = True
        self._released(self.cloaker.close())
        self._failed()

    def requeue(self) -> None:
        """At start-up (the forwarder started): queue again what the spool held when the broker last
        stopped without delivering it (at least once: the service may have received some of it)."""
        if self.journal is None:
            return
        for delivery in self.journal.recovered:
            if self.forwarder.full():
                self.delivered(delivery, False, queued=False)
                continue
            self.forwarder.put(delivery)
            self.queued += 1
            self.counts["recovered"] += 1
        if self.journal.recovered:
            log.info("%d cloaked request(s) from the spool queued again", len(self.journal.recovered))
        self.journal.recovered = []

    def stopped(self, left: list[Delivery]) -> None:
        """After the forward queue's drain: what was not delivered stays ``queued`` in the spool (sent
        at the next start) or, without a state folder, reads ``failed``; then the journal closes."""
        if self.spool is not None:
            if left:
                log.warning("shutdown: %d cloaked request(s) not yet accepted by the service stay queued in "
                            "the spool; the next start sends them", len(left))
        else:
            for delivery in left:
                self.delivered(delivery, False)
            if left:
                log.error("shutdown: %d cloaked request(s) could not be delivered", len(left))
        if self.journal is not None:
            self.journal.close()

    def _check_open(self) -> None:
        if self.closing:
            self.counts["rejected_closing"] += 1
            raise HTTPException(503, "the broker is shutting down")

    def _push(self, message: Message) -> None:
        try:
            released = self.cloaker.push(message)
        except InputError as exc:  # the checks above make this unlikely; name the field when known
            key = exc.key if exc.key in ("t", "k", "max_area", "max_delay", "on_fail") else None
            raise RequestValidationError([{"type": "value_error", "loc": ("body", key) if key else ("body",),
                                           "msg": str(exc)}]) from None
        self._released(released)
        self._failed()

    def _drop_pending_of(self, subject: str) -> None:
        self._pending_of[subject] -= 1
        if self._pending_of[subject] <= 0:
            del self._pending_of[subject]

    # -------------------------------------------------------------- releases and statuses
    def _released(self, released: list[Forwarded]) -> None:
        for fwd in released:
            record = self.pending.get(fwd.request)
            public = fwd.public()
            if record is None or not _sound(public, fwd, record):
                # fail closed: a release the broker cannot match to a request, whose box or interval
                # misses the requester, or below the request's k is never sent
                self.counts["refused"] += 1
                log.error("a release failed the broker's check and was not forwarded")
                if record is not None:
                    self._finish(fwd.request, "dropped")
                continue
            self.counts["served"] += 1
            self.counts[f"served_{_method(fwd)}"] += 1
            record.box = (public["x0"], public["y0"], public["x1"], public["y1"])
            record.interval = (public["t0"], public["t1"])
            delivery = Delivery(record.id, secrets.token_urlsafe(16), public, record.owner, record.t)
            self._finish(fwd.request, "queued" if self._enqueue(delivery) else "failed")

    def _enqueue(self, delivery: Delivery) -> bool:
        """Spool then queue ``delivery``; ``False`` (never sent) when the queue is full or the spool line
        cannot be written: the status must not say queued for a message that could be lost."""
        if self.forwarder.full():
            log.error("forward queue full: a cloaked request was not queued (status failed)")
            return False
        if self.spool is not None:
            try:
                self.spool.add(delivery)
            except OSError as exc:
                log.error("cannot write the spool (%s): a cloaked request was not queued (status failed)",
                          exc.strerror or exc)
                return False
        self.forwarder.put(delivery)
        self.queued += 1
        return True

    def delivered(self, delivery: Delivery, accepted: bool, *, queued: bool = True) -> None:
        """The outcome of a delivery (a forward worker's callback; no await, so no lock is needed):
        ``forwarded`` or ``failed`` in memory, then in the journal, then ``done`` in the spool."""
        status: Status = "forwarded" if accepted else "failed"
        if queued:
            self.queued -= 1
        self.counts[status] += 1
        record = self.finished.get(delivery.id)
        if record is not None and record.status == "queued":
            record.status = status
        elif delivery.id in self.restored:
            self.restored[delivery.id] = (delivery.owner, status, delivery.t)
        if self.journal is not None:
            self.journal.write(delivery.id, delivery.owner, status, delivery.t)
            if self.spool is not None:
                self.spool.done(delivery.id, status)
            if self.journal.due():
                self.journal.compact(self._entries())

    def _failed(self) -> None:
        """Mark the requests the cloaker held or dropped since the last look."""
        held, dropped = self.cloaker.held, self.cloaker.dropped
        for number, _ in held[self._seen_held:]:
            self._finish(number, "held")
        for number in dropped[self._seen_dropped:]:
            self._finish(number, "dropped")
        self._seen_held, self._seen_dropped = len(held), len(dropped)

    def _finish(self, number: int, status: Status) -> None:
        record = self.pending.pop(number, None)
        if record is None:
            return
        record.status = status
        self._ids.pop(record.id, None)
        self._drop_pending_of(record.message.subject)
        if status != "queued":
            self.counts[status] += 1
        self.finished[record.id] = record
        while len(self.finished) > RECORD_LIMIT:
            self.finished.popitem(last=False)
        if self.journal is not None:
            # a request finished inside its own call is journalled once, by the call, with this status;
            # one that waited was journalled as pending and now gets its last status
            self.journal.write(record.id, record.owner, status, record.t)
            if self.journal.due():
                self.journal.compact(self._entries())

    def _entries(self) -> dict[str, tuple[str, str, float | None]]:
        entries: OrderedDict[str, tuple[str, str, float | None]] = OrderedDict(self.restored)
        for rid, r in (*self.finished.items(), *((r.id, r) for r in self.pending.values())):
            entries.pop(rid, None)
            entries[rid] = (r.owner, r.status, r.t)
        while len(entries) > RECORD_LIMIT:
            entries.popitem(last=False)
        return entries

    def status(self, rid: str, owner: str | None) -> RequestOut | None:
        """The status of request ``rid`` for its owner (``owner`` its key), or for the operator
        (``owner=None``); ``None`` when unknown or not the caller's (the same answer: no oracle)."""
        number = self._ids.get(rid)
        record = self.pending.get(number) if number is not None else self.finished.get(rid)
        if record is not None:
            return record.out() if owner is None or secrets.compare_digest(owner, record.owner) else None
        entry = self.restored.get(rid)
        if entry is None or (owner is not None and not secrets.compare_digest(owner, entry[0])):
            return None
        return RequestOut(id=rid, status=entry[1], t=entry[2])  # type: ignore[arg-type]

    # -------------------------------------------------------------- reports
    def health(self) -> Health:
        return Health(ok=not self.closing, subjects=self.cloaker.subjects, pending=len(self.pending),
                      queued=self.queued, time=self.now())


_METHODS = ("spatial", "temporal")


def _method(fwd: Forwarded) -> str:
    return fwd.method if fwd.method in _METHODS else "other"


def _sound(public: dict[str, Any], fwd: Forwarded, record: _Record) -> bool:
    """The broker's own check of a release: the box holds the requester, the interval its time, and
    the anonymity reached is at least the request's k; and only the public fields leave."""
    m = record.message
    return (tuple(public) == PUBLIC_FIELDS
            and public["x0"] <= m.x <= public["x1"] and public["y0"] <= m.y <= public["y1"]
            and public["t0"] <= m.t <= public["t1"] and fwd.anonymity >= record.k
            and public["payload"] == m.payload)


def unix_clock() -> Callable[[], float]:
    """Unix seconds that never go backwards: the wall clock at start plus monotonic time since."""
    wall, mono = time.time(), time.monotonic()
    return lambda: wall + (time.monotonic() - mono)
