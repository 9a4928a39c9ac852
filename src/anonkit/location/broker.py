"""The trusted location broker as an HTTP service (``anonkit broker``).

Clients post position updates and service requests as JSON; the broker keeps one
:class:`~anonkit.location.Cloaker` and forwards each cloaked request — only the fields of
:meth:`Forwarded.public() <anonkit.location.Forwarded.public>` (``t, x0, y0, x1, y1, t0, t1,
payload``) — to the location-based service: an HTTP POST to a URL, or one JSON line appended to a
file. A subject, an exact position, a request id, the cloaking method or the anonymity reached never
leave the broker. The API, its decisions and how to get the OpenAPI document are in ``docs/broker.md``.

The module needs the ``broker`` extra (FastAPI, uvicorn, httpx); only ``anonkit broker`` (and the
benchmark) import it, so the core package imports without them.

Concurrency: the service is one asyncio event loop. Every access to the cloaker (intake, the
sweeper that lets deadlines pass, shutdown) holds one :class:`asyncio.Lock` and never awaits inside
it, because the core is not thread-safe. Forwarding runs in background tasks fed by a queue, so a
slow or failing service never blocks the intake: a failure is retried with backoff, then counted.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import copy
import inspect
import json
import logging
import math
import multiprocessing
import os
import secrets
import signal
import socket
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import httpx
import uvicorn
import uvicorn.config
from fastapi import FastAPI, HTTPException, Request
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field

from anonkit.errors import InputError
from anonkit.location import Area, Cloaker, Forwarded, Message, Policy

__all__ = [
    "PUBLIC_FIELDS",
    "create_app",
    "loopback_load",
    "running",
    "serve",
]

log = logging.getLogger("anonkit.broker")

#: the only fields that ever leave the broker, in this order (``Forwarded.public()``)
PUBLIC_FIELDS = ("t", "x0", "y0", "x1", "y1", "t0", "t1", "payload")
#: seconds between two sweeps (``Cloaker.advance(now)``: deadlines of temporal requests pass)
DEFAULT_SWEEP_INTERVAL = 0.1
#: attempts to deliver one cloaked request to a URL before it is counted as a forward error
FORWARD_ATTEMPTS = 4
#: the first retry waits this long (seconds); each later one twice as long as the one before
FORWARD_BACKOFF = 0.2
#: seconds one POST to the service may take
FORWARD_TIMEOUT = 10.0
#: concurrent deliveries to a URL (a file is written by one task, in release order)
FORWARD_WORKERS = 8
#: cloaked requests waiting for delivery; beyond it a release is counted as a forward error
QUEUE_LIMIT = 100_000
#: finished requests whose status ``GET /requests/{id}`` still answers (the oldest are forgotten)
RECORD_LIMIT = 100_000
#: seconds the shutdown waits for the forward queue to drain
FLUSH_TIMEOUT = 30.0
#: the longest payload accepted (characters)
MAX_PAYLOAD = 65_536
#: upper bounds (seconds) of the processing-time histogram's buckets
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

Status = Literal["forwarded", "pending", "held", "dropped"]
Finite = Annotated[float, Field(allow_inf_nan=False)]
Subject = Annotated[str, Field(min_length=1, max_length=256)] | int
Sink = Callable[[dict[str, Any]], Awaitable[None] | None]


# ---------------------------------------------------------------------------- the API's bodies
class UpdateIn(BaseModel):
    """A subject's position at time ``t`` (default: the broker's clock)."""

    model_config = ConfigDict(extra="forbid")

    subject: Subject = Field(description="The subject's id (text or integer; 7 and \"7\" are one subject). "
                                         "Never leaves the broker.")
    x: Finite = Field(description="Exact position; must lie in the broker's area. Never leaves the broker.")
    y: Finite = Field(description="Exact position; must lie in the broker's area. Never leaves the broker.")
    t: Finite | None = Field(None, ge=0, description="Time in seconds on the broker's clock (Unix seconds); "
                                                    "default: now. Must not be before the broker's time.")


class RequestIn(UpdateIn):
    """A service request at the requester's position; also updates the requester's position."""

    payload: str = Field("", max_length=MAX_PAYLOAD, description="Forwarded to the service as given.")
    k: int | None = Field(None, ge=1, description="Subjects the cloaked box (or interval) must hold, the "
                                                  "requester included (default: the broker's --k).")
    max_area: Finite | None = Field(None, gt=0, description="The largest box the requester accepts "
                                                           "(default: the broker's --max-area).")
    max_delay: Finite | None = Field(None, ge=0, description="The longest wait (seconds) for temporal cloaking "
                                                            "(default: the broker's --max-delay).")
    on_fail: Literal["hold", "drop"] | None = Field(None, description="What happens when no cloaking serves "
                                                                      "the request (default: --on-fail).")


class Box(BaseModel):
    x0: float
    y0: float
    x1: float
    y1: float


class Interval(BaseModel):
    t0: float
    t1: float


class UpdateOut(BaseModel):
    t: float = Field(description="The time the update was recorded at.")


class RequestOut(BaseModel):
    """What the requester learns about its own request (never another subject's)."""

    id: str = Field(description="An unguessable id for GET /requests/{id}.")
    status: Status = Field(description="forwarded: cloaked and queued for the service; pending: waiting for "
                                       "temporal cloaking; held / dropped: no cloaking served it (never "
                                       "forwarded).")
    t: float = Field(description="The time the request was recorded at.")
    box: Box | None = Field(None, description="The cloaked box sent to the service (when forwarded).")
    interval: Interval | None = Field(None, description="The cloaked time interval sent (when forwarded).")
    deadline: float | None = Field(None, description="When a pending request is held or dropped at the latest.")


class Health(BaseModel):
    ok: bool
    subjects: int = Field(description="Distinct subjects seen.")
    pending: int = Field(description="Requests waiting for temporal cloaking.")
    queued: int = Field(description="Cloaked requests waiting for delivery to the service.")
    time: float = Field(description="The broker's time (seconds).")


# ---------------------------------------------------------------------------- sinks
def _file_sink(path: Path) -> tuple[Sink, Callable[[], None]]:
    """Append one JSON line per record to ``path`` (flushed each time, under a lock)."""
    handle = path.open("a", encoding="utf-8")
    lock = threading.Lock()

    def write(record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        with lock:
            handle.write(line + "\n")
            handle.flush()

    def close() -> None:
        with lock:
            handle.close()

    return write, close


class _Forwarder:
    """Delivers public records from a queue: to a URL (POST, retried with backoff), a file, or a
    callable (in-process sink). Errors are counted and logged, never raised to the intake."""

    def __init__(self, target: str | Path | Sink) -> None:
        self.target = target
        self.queue: asyncio.Queue[dict[str, Any]] | None = None
        self.delivered = 0
        self.errors = 0
        self.retries = 0
        self._tasks: list[asyncio.Task[None]] = []
        self._client: httpx.AsyncClient | None = None
        self._close: Callable[[], None] | None = None
        self._send: Callable[[dict[str, Any]], Awaitable[None]] | None = None

    @property
    def queued(self) -> int:
        return 0 if self.queue is None else self.queue.qsize()

    async def start(self) -> None:
        self.queue = asyncio.Queue(QUEUE_LIMIT)
        workers = 1
        if callable(self.target):
            sink = self.target

            async def send(record: dict[str, Any]) -> None:
                result = sink(record)
                if inspect.isawaitable(result):
                    await result

        elif isinstance(self.target, str) and _is_url(self.target):
            self._client = httpx.AsyncClient(timeout=FORWARD_TIMEOUT)
            client, url = self._client, self.target
            workers = FORWARD_WORKERS

            async def send(record: dict[str, Any]) -> None:
                response = await client.post(url, json=record)
                response.raise_for_status()

        else:
            write, self._close = _file_sink(Path(self.target))

            async def send(record: dict[str, Any]) -> None:
                write(record)

        self._send = send
        self._tasks = [asyncio.create_task(self._work(), name=f"anonkit-forward-{i}") for i in range(workers)]

    def put(self, record: dict[str, Any]) -> None:
        assert self.queue is not None
        try:
            self.queue.put_nowait(record)
        except asyncio.QueueFull:
            self.errors += 1
            log.error("forward queue full (%d): a cloaked request was not delivered", QUEUE_LIMIT)

    async def _work(self) -> None:
        assert self.queue is not None and self._send is not None
        while True:
            record = await self.queue.get()
            try:
                await self._deliver(record)
            finally:
                self.queue.task_done()

    async def _deliver(self, record: dict[str, Any]) -> None:
        assert self._send is not None
        retry = self._client is not None  # only a URL is retried: a file or a callable fails at once
        delay = FORWARD_BACKOFF
        for attempt in range(1, FORWARD_ATTEMPTS + 1):
            try:
                await self._send(record)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                refused = isinstance(exc, httpx.HTTPStatusError) and exc.response.status_code < 500
                if not retry or refused or attempt == FORWARD_ATTEMPTS:
                    self.errors += 1
                    log.warning("forwarding failed after %d attempt(s): %s", attempt, _one_line(exc))
                    return
                self.retries += 1
                await asyncio.sleep(delay)
                delay *= 2
            else:
                self.delivered += 1
                return

    async def stop(self, timeout: float = FLUSH_TIMEOUT) -> None:
        """Wait (up to ``timeout`` seconds) until every queued record is delivered, then stop."""
        if self.queue is not None:
            try:
                await asyncio.wait_for(self.queue.join(), timeout)
            except TimeoutError:
                lost = self.queue.qsize()
                self.errors += lost
                log.error("shutdown: %d cloaked request(s) could not be delivered in %g s", lost, timeout)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []
        if self._client is not None:
            await self._client.aclose()
        if self._close is not None:
            self._close()


def _is_url(text: str) -> bool:
    return text.lower().startswith(("http://", "https://"))


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _check_forward(forward: str | os.PathLike[str] | Sink) -> str | Path | Sink:
    """The forward target, checked: an http(s) URL, a writable file path, or a callable."""
    if callable(forward):
        return forward
    text = os.fspath(forward)
    if isinstance(text, bytes):
        text = text.decode()
    if _is_url(text):
        try:
            url = httpx.URL(text)
        except Exception:
            raise InputError("--forward is not a valid URL", key="forward", value=text) from None
        if not url.host:
            raise InputError("--forward URL has no host", key="forward", value=text)
        return text
    if "://" in text:
        raise InputError("--forward must be an http(s) URL or a file path", key="forward", value=text)
    if not text.strip():
        raise InputError("--forward must not be empty", key="forward", value=text)
    path = Path(text).expanduser()
    if path.is_dir():
        raise InputError("--forward is a directory, not a file", key="forward", value=text)
    if not path.parent.is_dir():
        raise InputError("--forward's folder does not exist", key="forward", value=text)
    if path.exists() and not os.access(path, os.W_OK):
        raise InputError("--forward is not writable", key="forward", value=text)
    return path


# ---------------------------------------------------------------------------- the broker's state
@dataclass(slots=True)
class _Record:
    id: str
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


class Broker:
    """The broker's state: the cloaker, the requests' statuses, the counters and the forwarder.

    Every method that touches the cloaker is called with :attr:`lock` held (by the endpoints, the
    sweeper and the shutdown) and does not await. A request is known by its number in the cloaker
    (:attr:`Cloaker.requests` before it is pushed, :attr:`Forwarded.request` when released) and by
    an unguessable id outside; the cloaker's :attr:`~Cloaker.held` and :attr:`~Cloaker.dropped`
    lists, read from where they were last read, say which pending requests failed.
    """

    def __init__(self, area: Area, policy: Policy, forward: str | Path | Sink, *,
                 clock: Callable[[], float] | None = None) -> None:
        self.area = area
        self.policy = policy
        self.cloaker = Cloaker(area, policy)
        self.forwarder = _Forwarder(forward)
        self.clock = clock if clock is not None else _unix_clock()
        self.lock = asyncio.Lock()
        self.closing = False
        self.pending: dict[int, _Record] = {}  # request number → record, until forwarded, held or dropped
        self.finished: OrderedDict[str, _Record] = OrderedDict()
        self._ids: dict[str, int] = {}  # id → number of a pending request
        self._seen_held = 0
        self._seen_dropped = 0
        self.counts: Counter[str] = Counter()
        self.latency = {name: _Histogram(LATENCY_BUCKETS) for name in ("updates", "requests")}

    # -------------------------------------------------------------- time
    @property
    def time(self) -> float:
        """The latest time given to the cloaker (−inf before the first message)."""
        return self.cloaker.now

    def now(self) -> float:
        return max(self.clock(), self.time)

    def _time_of(self, t: float | None) -> float:
        if t is None:
            return self.now()
        if t < self.time:
            self.counts["rejected_out_of_order"] += 1
            raise HTTPException(409, f"t {t!r} is before the broker's time {self.time!r}: times must not go "
                                     f"backwards")
        return t

    def _check_position(self, x: float, y: float) -> None:
        a = self.area
        for name, value, lo, hi in (("x", x, a.x0, a.x1), ("y", y, a.y0, a.y1)):
            if not lo <= value < hi:
                raise RequestValidationError([{
                    "type": "outside_area", "loc": ("body", name), "input": value,
                    "msg": f"{name} {value!r} is outside the area ({lo!r} ≤ {name} < {hi!r})",
                }])

    # -------------------------------------------------------------- intake (lock held)
    def update(self, body: UpdateIn) -> UpdateOut:
        self._check_open()
        self._check_position(body.x, body.y)
        t = self._time_of(body.t)
        self._push(Message(t, str(body.subject), body.x, body.y, "update"))
        self.counts["updates"] += 1
        return UpdateOut(t=t)

    def request(self, body: RequestIn) -> RequestOut:
        self._check_open()
        self._check_position(body.x, body.y)
        t = self._time_of(body.t)
        message = Message(t, str(body.subject), body.x, body.y, "request", payload=body.payload, k=body.k,
                          max_area=body.max_area, max_delay=body.max_delay, on_fail=body.on_fail)
        number = self.cloaker.requests
        max_delay = self.policy.max_delay if body.max_delay is None else body.max_delay
        record = _Record(id=secrets.token_urlsafe(12), t=t, status="pending", message=message,
                         k=self.policy.k if body.k is None else body.k, deadline=t + max_delay)
        self.pending[number] = record
        self._ids[record.id] = number
        try:
            self._push(message)
        finally:
            if self.cloaker.requests == number:  # refused: the cloaker never saw it
                self.pending.pop(number, None)
                self._ids.pop(record.id, None)
        self.counts["requests"] += 1
        return record.out()

    def sweep(self) -> None:
        """Let time pass to the clock: pending requests whose deadline passed are held or dropped."""
        now = self.clock()
        if now > self.time:
            self._released(self.cloaker.advance(now))
            self._failed()

    def close(self) -> None:
        """End of the stream (shutdown): every request still pending is held or dropped."""
        self.closing = True
        self._released(self.cloaker.close())
        self._failed()

    def _check_open(self) -> None:
        if self.closing:
            self.counts["rejected_closing"] += 1
            raise HTTPException(503, "the broker is shutting down")

    def _push(self, message: Message) -> None:
        try:
            released = self.cloaker.push(message)
        except InputError as exc:  # the checks above make this unlikely; name the field when known
            key = exc.key if exc.key in ("t", "k", "max_area", "max_delay", "on_fail") else None
            raise RequestValidationError([{
                "type": "value_error", "loc": ("body", key) if key else ("body",), "msg": str(exc),
                "input": getattr(message, key) if key else None,
            }]) from None
        self._released(released)
        self._failed()

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
            self.forwarder.put(public)
            self.counts["served"] += 1
            self.counts[f"served_{_method(fwd)}"] += 1
            record.box = (public["x0"], public["y0"], public["x1"], public["y1"])
            record.interval = (public["t0"], public["t1"])
            self._finish(fwd.request, "forwarded")

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
        if status != "forwarded":
            self.counts[status] += 1
        self.finished[record.id] = record
        while len(self.finished) > RECORD_LIMIT:
            self.finished.popitem(last=False)

    def status(self, rid: str) -> RequestOut | None:
        number = self._ids.get(rid)
        record = self.pending.get(number) if number is not None else self.finished.get(rid)
        return None if record is None else record.out()

    # -------------------------------------------------------------- reports
    def health(self) -> Health:
        return Health(ok=not self.closing, subjects=self.cloaker.subjects, pending=len(self.pending),
                      queued=self.forwarder.queued, time=self.now())

    def metrics(self) -> str:
        c, f = self.counts, self.forwarder
        lines: list[str] = []

        def metric(name: str, kind: str, text: str, samples: list[tuple[str, float]]) -> None:
            lines.append(f"# HELP anonkit_broker_{name} {text}")
            lines.append(f"# TYPE anonkit_broker_{name} {kind}")
            lines.extend(f"anonkit_broker_{name}{labels} {_number(value)}" for labels, value in samples)

        metric("updates_total", "counter", "Position updates accepted.", [("", c["updates"])])
        metric("requests_total", "counter", "Requests accepted.", [("", c["requests"])])
        metric("served_total", "counter", "Requests cloaked and released for forwarding, by cloaking method.",
               [(f'{{method="{m}"}}', c[f"served_{m}"]) for m in _METHODS])
        metric("held_total", "counter", "Requests held: no cloaking served them (never forwarded).",
               [("", c["held"])])
        metric("dropped_total", "counter", "Requests dropped: no cloaking served them (never forwarded).",
               [("", c["dropped"])])
        metric("refused_total", "counter", "Releases that failed the broker's own check (never forwarded).",
               [("", c["refused"])])
        metric("pending", "gauge", "Requests waiting for temporal cloaking.", [("", len(self.pending))])
        metric("subjects", "gauge", "Subjects with a known position.", [("", self.cloaker.subjects)])
        metric("rejected_total", "counter", "Calls refused, by reason.",
               [(f'{{reason="{r}"}}', c[f"rejected_{r}"])
                for r in ("invalid", "outside_area", "out_of_order", "closing")])
        metric("forwarded_total", "counter", "Cloaked requests delivered to the service.", [("", f.delivered)])
        metric("forward_errors_total", "counter", "Cloaked requests that could not be delivered.", [("", f.errors)])
        metric("forward_retries_total", "counter", "Delivery attempts retried.", [("", f.retries)])
        metric("forward_queue", "gauge", "Cloaked requests waiting for delivery.", [("", f.queued)])
        lines.append("# HELP anonkit_broker_request_seconds Time the broker took to handle a call, by endpoint.")
        lines.append("# TYPE anonkit_broker_request_seconds histogram")
        for name, h in self.latency.items():
            cumulative = 0
            for bound, count in zip((*h.buckets, math.inf), h.counts, strict=True):
                cumulative += count
                le = "+Inf" if bound == math.inf else _number(bound)
                lines.append(f'anonkit_broker_request_seconds_bucket{{endpoint="{name}",le="{le}"}} {cumulative}')
            lines.append(f'anonkit_broker_request_seconds_sum{{endpoint="{name}"}} {_number(h.sum)}')
            lines.append(f'anonkit_broker_request_seconds_count{{endpoint="{name}"}} {h.count}')
        return "\n".join(lines) + "\n"


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


def _number(value: float) -> str:
    if isinstance(value, float):
        if math.isinf(value):
            return "+Inf" if value > 0 else "-Inf"
        return repr(value)
    return str(value)


def _unix_clock() -> Callable[[], float]:
    """Unix seconds that never go backwards: the wall clock at start plus monotonic time since."""
    wall, mono = time.time(), time.monotonic()
    return lambda: wall + (time.monotonic() - mono)


# ---------------------------------------------------------------------------- the application
def create_app(area: Area, policy: Policy, forward: str | os.PathLike[str] | Sink, *,
               clock: Callable[[], float] | None = None,
               sweep_interval: float = DEFAULT_SWEEP_INTERVAL) -> FastAPI:
    """The broker's FastAPI application (served by :func:`serve`; tests run it on loopback).

    Parameters
    ----------
    area, policy:
        The service's area and the cloaking policy (as for :class:`~anonkit.location.Cloaker`).
    forward:
        Where cloaked requests go: an ``http(s)://`` URL (POSTed as JSON), a file path (one JSON
        line appended per request) or a callable taking the public record (an in-process sink).
    clock:
        The broker's clock in seconds (default: Unix seconds that never go backwards).
    sweep_interval:
        Seconds between two sweeps that let deadlines pass.
    """
    target = _check_forward(forward)
    if not (sweep_interval > 0 and math.isfinite(sweep_interval)):
        raise InputError("sweep_interval must be a positive number", key="sweep_interval", value=sweep_interval)
    broker = Broker(area, policy, target, clock=clock)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        await broker.forwarder.start()
        sweeper = asyncio.create_task(_sweep(broker, sweep_interval), name="anonkit-sweeper")
        try:
            yield
        finally:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
            async with broker.lock:
                broker.close()
            await broker.forwarder.stop()

    app = FastAPI(
        title="anonkit location broker",
        version=_version(),
        summary="A trusted broker that cloaks location-based service requests (spatial and temporal k-anonymity).",
        description=("Clients post position updates and requests; cloaked requests (t, x0, y0, x1, y1, t0, t1, "
                     "payload) are forwarded to the service. A subject id or an exact position never leaves "
                     "the broker."),
        lifespan=lifespan,
    )
    app.state.broker = broker

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Any:
        outside = any(e.get("type") == "outside_area" for e in exc.errors())
        broker.counts["rejected_outside_area" if outside else "rejected_invalid"] += 1
        return await request_validation_exception_handler(request, exc)

    conflict = {409: {"description": "t is before the broker's time (times must not go backwards)"},
                503: {"description": "the broker is shutting down"}}

    @app.post("/updates", response_model=UpdateOut, responses=conflict, tags=["intake"],
              summary="Record a subject's position")
    async def post_update(body: UpdateIn) -> UpdateOut:
        start = time.perf_counter()
        async with broker.lock:
            out = broker.update(body)
        broker.latency["updates"].observe(time.perf_counter() - start)
        return out

    @app.post("/requests", response_model=RequestOut, response_model_exclude_none=True, responses=conflict,
              tags=["intake"], summary="Submit a service request (cloaked before it is forwarded)")
    async def post_request(body: RequestIn) -> RequestOut:
        start = time.perf_counter()
        async with broker.lock:
            out = broker.request(body)
        broker.latency["requests"].observe(time.perf_counter() - start)
        return out

    @app.get("/requests/{request_id}", response_model=RequestOut, response_model_exclude_none=True,
             responses={404: {"description": "unknown (or long finished) request id"}}, tags=["intake"],
             summary="A request's status")
    async def get_request(request_id: str) -> RequestOut:
        out = broker.status(request_id)
        if out is None:
            raise HTTPException(404, f"no request with id {request_id!r} (unknown, or finished long ago)")
        return out

    @app.get("/health", response_model=Health, tags=["operations"], summary="Liveness and load")
    async def health() -> Health:
        return broker.health()

    @app.get("/metrics", response_class=PlainTextResponse, tags=["operations"],
             summary="Counters in the Prometheus text format")
    async def metrics() -> PlainTextResponse:
        return PlainTextResponse(broker.metrics(), media_type="text/plain; version=0.0.4; charset=utf-8")

    return app


async def _sweep(broker: Broker, interval: float) -> None:
    while True:
        await asyncio.sleep(interval)
        try:
            async with broker.lock:
                broker.sweep()
        except asyncio.CancelledError:
            raise
        except Exception:  # a failing sweep must not end the sweeper
            log.exception("sweep failed")


def _version() -> str:
    from anonkit import __version__

    return __version__


# ---------------------------------------------------------------------------- serving
class _Server(uvicorn.Server):
    """A uvicorn server that reports its address once it accepts connections."""

    def __init__(self, config: uvicorn.Config, ready: Callable[[str, int], None] | None) -> None:
        super().__init__(config)
        self._ready = ready
        self.address: tuple[str, int] | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if sockets:
            host, port = sockets[0].getsockname()[:2]
            self.address = (host, port)
            log.info("anonkit broker listening on http://%s:%d (Ctrl-C to stop)", f"[{host}]" if ":" in host else host,
                     port)
            if self._ready is not None and not self.should_exit:
                self._ready(host, port)


def _parse_listen(listen: str) -> tuple[str, int]:
    host, sep, port_text = listen.strip().rpartition(":")
    host = host.strip("[]")
    if not sep or not host:
        raise InputError("--listen must be HOST:PORT, e.g. 127.0.0.1:8700", key="listen", value=listen)
    try:
        port = int(port_text)
    except ValueError:
        raise InputError("--listen's port must be a whole number", key="listen", value=listen) from None
    if not 0 <= port <= 65535:
        raise InputError("--listen's port must be between 0 and 65535", key="listen", value=listen)
    return host, port


def _bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket. Its protocol is IPPROTO_TCP (not 0) so that asyncio sets TCP_NODELAY on
    the connections it accepts; without it every response waits ~40 ms for a delayed ACK."""
    sock = None
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             proto=socket.IPPROTO_TCP)[0]
        sock = socket.socket(family, kind, proto)
        if os.name == "posix":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        if sock is not None:
            sock.close()
        reason = exc.strerror or str(exc)
        raise InputError(f"cannot listen on {host}:{port}: {reason}", key="listen", value=f"{host}:{port}") from None
    sock.set_inheritable(True)
    return sock


def _config(app: FastAPI, log_level: str) -> uvicorn.Config:
    logging_config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    logging_config["loggers"][log.name] = {"handlers": ["default"], "level": log_level.upper(), "propagate": False}
    return uvicorn.Config(app, log_level=log_level, log_config=logging_config, access_log=False, lifespan="on",
                          timeout_graceful_shutdown=10, server_header=False)


def serve(listen: str, forward: str, area: Area, policy: Policy, *,
          ready: Callable[[str, int], None] | None = None) -> None:
    """Run the broker on ``listen`` ("HOST:PORT"; port 0 picks a free one) until Ctrl-C.

    Blocks. On Ctrl-C (or SIGTERM) the intake stops, calls in flight finish, pending requests are
    resolved (held or dropped), the forward queue is flushed, and :class:`KeyboardInterrupt` is
    raised (the CLI exits 130). ``ready(host, port)`` is called once connections are accepted.
    Raises :class:`~anonkit.errors.InputError` for a bad ``listen`` or ``forward``, or an address
    that cannot be bound.
    """
    host, port = _parse_listen(listen)
    app = create_app(area, policy, forward)
    sock = _bind(host, port)
    try:
        _Server(_config(app, "info"), ready).run(sockets=[sock])
    finally:
        sock.close()


@contextlib.contextmanager
def running(app: FastAPI, host: str = "127.0.0.1", *, timeout: float = 30.0) -> Iterator[str]:
    """Serve ``app`` on a free port of ``host`` from a background thread; yields its base URL.

    On exit the server shuts down gracefully (the lifespan's shutdown flushes the forward queue).
    """
    sock = _bind(host, 0)
    started = threading.Event()
    server = _Server(_config(app, "warning"), lambda h, p: started.set())
    failure: list[BaseException] = []

    def run() -> None:
        try:
            server.run(sockets=[sock])
        except BaseException as exc:  # SystemExit on a failed startup
            failure.append(exc)
        finally:
            started.set()

    thread = threading.Thread(target=run, name="anonkit-broker", daemon=True)
    thread.start()
    try:
        if not started.wait(timeout) or server.address is None:
            raise RuntimeError(f"the broker did not start: {failure[0] if failure else 'timeout'}")
        url_host = f"[{host}]" if ":" in host else host
        yield f"http://{url_host}:{server.address[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout)
        sock.close()


# ---------------------------------------------------------------------------- load test
#: the load test's city: a square of this side (metres) with a uniform population
LOAD_SIDE = 10_000.0
#: the load test's k
LOAD_K = 5


def _load_server(conn: Any, path: str, area: tuple[float, float, float, float], k: int) -> None:
    """The load test's broker process: serve on a free loopback port until SIGINT."""
    with contextlib.suppress(KeyboardInterrupt):
        serve("127.0.0.1:0", path, Area(*area), Policy(k=k), ready=lambda host, port: conn.send(port))
    conn.close()


def loopback_load(requests: int = 20_000, subjects: int = 1_000, *, seed: int = 0, concurrency: int = 32,
                  process: bool = True) -> dict[str, Any]:
    """Drive a broker on loopback with a real HTTP client and measure it.

    The broker (k = :data:`LOAD_K`, spatial cloaking, a file sink in a temporary folder) runs in a
    child process (``process=True``; else a thread of this one) on a free loopback port. Every
    subject first posts its position (not timed); then ``requests`` requests from random subjects,
    each a few metres from its last position, are sent by ``concurrency`` concurrent httpx clients
    over keep-alive connections.

    Returns a dict: ``requests``, ``subjects``, ``concurrency``, ``seconds`` (the requests' wall
    time), ``throughput`` (requests/s), ``p50_ms``, ``p95_ms``, ``p99_ms``, ``max_ms`` (client-seen
    latency), ``statuses`` (forwarded/pending/held/dropped counts from the responses), ``errors``
    (non-200 responses), ``lines`` (JSON lines the sink received) and ``leaks`` (sink lines holding
    a subject id or a key other than the public fields: must be 0).
    """
    import random
    import tempfile

    import numpy as np

    if requests < 1 or subjects < 1 or concurrency < 1:
        raise InputError("requests, subjects and concurrency must be at least 1")
    rng = random.Random(seed)
    area = (0.0, 0.0, LOAD_SIDE, LOAD_SIDE)
    top = math.nextafter(LOAD_SIDE, 0.0)  # the area is half-open

    def step(v: float) -> float:
        return min(max(v + rng.uniform(-20.0, 20.0), 0.0), top)

    start = {f"subject-{i:06d}": (rng.uniform(0, top), rng.uniform(0, top)) for i in range(subjects)}
    positions = dict(start)
    names = list(positions)
    plan = []
    for _ in range(requests):
        name = rng.choice(names)
        x, y = positions[name]
        x, y = step(x), step(y)
        positions[name] = (x, y)
        plan.append({"subject": name, "x": x, "y": y, "payload": f"poi?q={rng.randrange(100)}"})

    with tempfile.TemporaryDirectory(prefix="anonkit-broker-load-") as folder:
        sink = os.path.join(folder, "forwarded.jsonl")
        with contextlib.ExitStack() as stack:
            if process:
                base = stack.enter_context(_load_process(sink, area, LOAD_K))
            else:
                app = create_app(Area(*area), Policy(k=LOAD_K), sink)
                base = stack.enter_context(running(app))
            latencies, statuses, errors, seconds = asyncio.run(
                _drive(base, start, plan, concurrency))
        lines = Path(sink).read_text(encoding="utf-8").splitlines()
    leaks = 0
    for line in lines:
        record = json.loads(line)
        if tuple(record) != PUBLIC_FIELDS or "subject-" in line:
            leaks += 1
    ms = np.asarray(latencies) * 1000.0
    return {
        "requests": requests, "subjects": subjects, "concurrency": concurrency,
        "mode": "process" if process else "thread",
        "seconds": seconds, "throughput": requests / seconds,
        "p50_ms": float(np.percentile(ms, 50)), "p95_ms": float(np.percentile(ms, 95)),
        "p99_ms": float(np.percentile(ms, 99)), "max_ms": float(ms.max()),
        "statuses": dict(statuses), "errors": errors, "lines": len(lines), "leaks": leaks,
    }


@contextlib.contextmanager
def _load_process(sink: str, area: tuple[float, float, float, float], k: int) -> Iterator[str]:
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe(duplex=False)
    worker = context.Process(target=_load_server, args=(child, sink, area, k), name="anonkit-broker-load",
                             daemon=True)
    worker.start()
    child.close()
    try:
        if not parent.poll(60):
            raise RuntimeError("the load test's broker did not start in 60 s")
        port = parent.recv()
        yield f"http://127.0.0.1:{port}"
    finally:
        if worker.is_alive() and worker.pid is not None:
            os.kill(worker.pid, signal.SIGINT)  # graceful: the forward queue is flushed
        worker.join(60)
        if worker.is_alive():
            worker.kill()
            worker.join()
        parent.close()


async def _drive(base: str, positions: dict[str, tuple[float, float]], plan: list[dict[str, Any]],
                 concurrency: int) -> tuple[list[float], Counter[str], int, float]:
    """``concurrency`` workers, each with its own keep-alive connection (one httpx client per worker:
    httpx's shared pool costs O(connections) per request, which would dominate what is measured)."""
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    errors = 0
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    async with contextlib.AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(httpx.AsyncClient(base_url=base, limits=limits, timeout=60.0))
                   for _ in range(concurrency)]
        updates = iter(positions.items())

        async def warm(client: httpx.AsyncClient) -> None:
            for name, (x, y) in updates:
                response = await client.post("/updates", json={"subject": name, "x": x, "y": y})
                response.raise_for_status()

        await asyncio.gather(*(warm(c) for c in clients))
        work = iter(plan)

        async def drive(client: httpx.AsyncClient) -> None:
            nonlocal errors
            for body in work:
                begin = time.perf_counter()
                response = await client.post("/requests", json=body)
                latencies.append(time.perf_counter() - begin)
                if response.status_code == 200:
                    statuses[response.json()["status"]] += 1
                else:
                    errors += 1

        start = time.perf_counter()
        await asyncio.gather(*(drive(c) for c in clients))
        seconds = time.perf_counter() - start
    return latencies, statuses, errors, seconds
