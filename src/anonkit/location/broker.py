"""The trusted location broker as an HTTP service (``anonkit broker``).

Subjects post position updates and service requests as JSON, each with its bearer token; the broker
keeps one :class:`~anonkit.location.Cloaker` and forwards each cloaked request — only the fields of
:meth:`Forwarded.public() <anonkit.location.Forwarded.public>` (``t, x0, y0, x1, y1, t0, t1,
payload``) — to the location-based service: an HTTP POST to a URL, or one JSON line appended to a
file. A subject, an exact position, a request id, the cloaking method or the anonymity reached never
leave the broker. The API, its decisions and its security rules are in ``docs/broker.md``.

The module needs the ``broker`` extra (FastAPI, uvicorn, httpx); only ``anonkit broker`` (and the
benchmark) import it, so the core package imports without them. It is split by what each part holds:

* :mod:`._broker_api` the bodies and their limits; :mod:`._broker_auth` the operator's and the
  subjects' tokens; :mod:`._broker_state` the cloaker, the statuses and the clock rules;
  :mod:`._broker_journal` the request journal; :mod:`._broker_spool` the queued requests on disk
  (sent again after a crash); :mod:`._broker_metrics` the Prometheus text;
  :mod:`._broker_forward` the delivery to the service; :mod:`._broker_app` the FastAPI application;
  :mod:`._broker_serve` the socket, uvicorn, the state folder and the signals;
* this module: the public names and the loopback load test (:func:`loopback_load`).

Concurrency: the service is one asyncio event loop. Every access to the cloaker (intake, the
sweeper that lets deadlines pass, shutdown) holds one :class:`asyncio.Lock` and never awaits inside
it, because the core is not thread-safe. Forwarding runs in background tasks fed by a queue, so a
slow or failing service never blocks the intake: a failure is retried with backoff, then counted. A
released request reads ``queued`` until the service accepts it (``forwarded``) or not (``failed``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import multiprocessing
import os
import secrets
import signal
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from anonkit.errors import InputError
from anonkit.location import Area, Policy
from anonkit.location._broker_api import MAX_BODY_BYTES, MAX_PAYLOAD, PUBLIC_FIELDS
from anonkit.location._broker_app import DEFAULT_BODY_TIMEOUT, DEFAULT_SWEEP_INTERVAL, create_app
from anonkit.location._broker_auth import TOKEN_FILE, Tokens
from anonkit.location._broker_defaults import DEFAULT_IDLE_TIMEOUT, DEFAULT_LISTEN, DEFAULT_MAX_SKEW
from anonkit.location._broker_serve import running, serve
from anonkit.location._broker_state import unix_clock

__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_IDLE_TIMEOUT",
    "DEFAULT_LISTEN",
    "DEFAULT_MAX_SKEW",
    "DEFAULT_SWEEP_INTERVAL",
    "MAX_BODY_BYTES",
    "MAX_PAYLOAD",
    "PUBLIC_FIELDS",
    "Tokens",
    "create_app",
    "loopback_load",
    "running",
    "serve",
    "unix_clock",
]


# ---------------------------------------------------------------------------- load test
#: the load test's city: a square of this side (metres) with a uniform population
LOAD_SIDE = 10_000.0
#: the load test's k
LOAD_K = 5


def _load_server(conn: Any, path: str, area: tuple[float, float, float, float], k: int) -> None:
    """The load test's broker process: serve on a free loopback port until SIGINT (its operator token
    is written beside the sink file)."""
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
    latency), ``statuses`` (queued/pending/held/dropped counts from the responses), ``errors``
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
                operator = Path(folder, TOKEN_FILE).read_text(encoding="utf-8").strip()
            else:
                operator = secrets.token_urlsafe(32)
                app = create_app(Area(*area), Policy(k=LOAD_K), sink, operator_token=operator)
                base = stack.enter_context(running(app))
            tokens = Tokens(operator)
            headers = {name: {"authorization": f"Bearer {tokens.issue(name)}"} for name in start}
            latencies, statuses, errors, seconds = asyncio.run(
                _drive(base, start, plan, concurrency, headers))
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
            os.kill(worker.pid, signal.SIGINT)  # graceful: the forward queue is drained
        worker.join(60)
        if worker.is_alive():
            worker.kill()
            worker.join()
        parent.close()


async def _drive(base: str, positions: dict[str, tuple[float, float]], plan: list[dict[str, Any]],
                 concurrency: int, headers: dict[str, dict[str, str]]) -> tuple[list[float], Counter[str], int, float]:
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
                response = await client.post("/updates", json={"x": x, "y": y}, headers=headers[name])
                response.raise_for_status()

        await asyncio.gather(*(warm(c) for c in clients))
        work = iter(plan)

        async def drive(client: httpx.AsyncClient) -> None:
            nonlocal errors
            for body in work:
                begin = time.perf_counter()
                response = await client.post("/requests", json=body, headers=headers[body["subject"]])
                latencies.append(time.perf_counter() - begin)
                if response.status_code == 200:
                    statuses[response.json()["status"]] += 1
                else:
                    errors += 1

        start = time.perf_counter()
        await asyncio.gather(*(drive(c) for c in clients))
        seconds = time.perf_counter() - start
    return latencies, statuses, errors, seconds
