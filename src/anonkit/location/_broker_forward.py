"""Delivery of cloaked requests to the location-based service: an HTTP POST to a URL (retried with
backoff), one JSON line appended to a file, or an in-process callable.

Forwarding runs in background tasks fed by a bounded queue, so a slow or failing service never blocks
the broker's intake: a failure is retried with backoff (a URL only), then reported, never raised to the
intake. Only public records (``Forwarded.public()``) are ever put on the queue, each as a
:class:`~._broker_spool.Delivery`; the outcome of each (accepted by the service, or not after the
attempts) goes to the ``on_done`` callback, which sets the request's status. A URL gets the delivery's
random key as the ``Idempotency-Key`` header (the same on a redelivery after a restart), so the service
can drop a duplicate; the body is the public record alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import os
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

from anonkit.errors import InputError
from anonkit.location._broker_spool import Delivery

log = logging.getLogger("anonkit.broker")

#: attempts to deliver one cloaked request to a URL before it is counted as a forward error
FORWARD_ATTEMPTS = 4
#: the first retry waits this long (seconds); each later one twice as long as the one before
FORWARD_BACKOFF = 0.2
#: seconds one POST to the service may take
FORWARD_TIMEOUT = 10.0
#: concurrent deliveries to a URL (a file is written by one task, in release order)
FORWARD_WORKERS = 8
#: cloaked requests waiting for delivery; beyond it a release is not queued and reads ``failed``
QUEUE_LIMIT = 100_000
#: seconds the shutdown waits for the forward queue to drain
FLUSH_TIMEOUT = 30.0
#: the HTTP header that carries a delivery's key (the IETF draft "The Idempotency-Key HTTP Header Field")
KEY_HEADER = "Idempotency-Key"

Sink = Callable[[dict[str, Any]], Awaitable[None] | None]


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
    callable (in-process sink). Each outcome goes to ``on_done(delivery, accepted)``; nothing is raised
    to the intake."""

    def __init__(self, target: str | Path | Sink, on_done: Callable[[Delivery, bool], None]) -> None:
        self.target = target
        self.on_done = on_done
        self.queue: asyncio.Queue[Delivery] | None = None
        self.retries = 0
        self._busy: dict[str, Delivery] = {}  # request id → delivery in the hands of a worker
        self._tasks: list[asyncio.Task[None]] = []
        self._client: httpx.AsyncClient | None = None
        self._close: Callable[[], None] | None = None
        self._send: Callable[[Delivery], Awaitable[None]] | None = None

    def full(self) -> bool:
        """Whether the queue holds :data:`QUEUE_LIMIT` deliveries (a release must not be queued)."""
        return self.queue is not None and self.queue.full()

    async def start(self) -> None:
        self.queue = asyncio.Queue(QUEUE_LIMIT)
        workers = 1
        if callable(self.target):
            sink = self.target

            async def send(delivery: Delivery) -> None:
                result = sink(dict(delivery.message))
                if inspect.isawaitable(result):
                    await result

        elif isinstance(self.target, str) and _is_url(self.target):
            self._client = httpx.AsyncClient(timeout=FORWARD_TIMEOUT)
            client, url = self._client, self.target
            workers = FORWARD_WORKERS

            async def send(delivery: Delivery) -> None:
                response = await client.post(url, json=delivery.message, headers={KEY_HEADER: delivery.key})
                response.raise_for_status()

        else:
            write, self._close = _file_sink(Path(self.target))

            async def send(delivery: Delivery) -> None:
                write(delivery.message)

        self._send = send
        self._tasks = [asyncio.create_task(self._work(), name=f"anonkit-forward-{i}") for i in range(workers)]

    def put(self, delivery: Delivery) -> None:
        """Queue ``delivery`` (the caller checked :meth:`full` first, in the same step)."""
        assert self.queue is not None
        self.queue.put_nowait(delivery)

    async def _work(self) -> None:
        assert self.queue is not None and self._send is not None
        while True:
            delivery = await self.queue.get()
            self._busy[delivery.id] = delivery
            try:
                accepted = await self._deliver(delivery)
            except BaseException:
                self.queue.task_done()
                raise  # cancelled by stop(): the delivery stays in _busy, which stop() reports
            del self._busy[delivery.id]
            try:
                self.on_done(delivery, accepted)
            except Exception:  # e.g. the journal's disk is full: logged, the worker goes on
                log.exception("recording a delivery's outcome failed")
            finally:
                self.queue.task_done()

    async def _deliver(self, delivery: Delivery) -> bool:
        """Whether the service accepted ``delivery`` (a URL: up to :data:`FORWARD_ATTEMPTS` attempts)."""
        assert self._send is not None
        retry = self._client is not None  # only a URL is retried: a file or a callable fails at once
        delay = FORWARD_BACKOFF
        for attempt in range(1, FORWARD_ATTEMPTS + 1):
            try:
                await self._send(delivery)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                refused = isinstance(exc, httpx.HTTPStatusError) and exc.response.status_code < 500
                if not retry or refused or attempt == FORWARD_ATTEMPTS:
                    log.warning("forwarding failed after %d attempt(s): %s", attempt, _one_line(exc))
                    return False
                self.retries += 1
                await asyncio.sleep(delay)
                delay *= 2
            else:
                return True
        return False  # not reached: the last attempt returns

    async def stop(self, timeout: float | None = None) -> list[Delivery]:
        """Wait (up to ``timeout`` seconds, default :data:`FLUSH_TIMEOUT`) until every queued delivery
        is done, then stop; returns the deliveries that were not (in the queue or cut off in flight)."""
        left: list[Delivery] = []
        if self.queue is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.queue.join(), FLUSH_TIMEOUT if timeout is None else timeout)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []
        left.extend(self._busy.values())
        self._busy.clear()
        while self.queue is not None and not self.queue.empty():
            left.append(self.queue.get_nowait())
        if self._client is not None:
            await self._client.aclose()
        if self._close is not None:
            self._close()
        return left


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

