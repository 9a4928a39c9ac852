"""Serving the broker: the listening socket, uvicorn's configuration, the state folder, signals.

* It listens on :data:`DEFAULT_LISTEN` (127.0.0.1) unless told otherwise; another address is
  logged as a warning (put TLS in front of it).
* A connection must send a whole request head within ``idle_timeout`` seconds of opening (or of its
  previous response): an idle or trickling connection is closed (:class:`_Protocol`; uvicorn's own
  keep-alive timer only starts after a response). At most :data:`MAX_CONNECTIONS` calls are served
  at once (uvicorn answers 503 beyond).
* SIGINT (Ctrl-C) and SIGTERM both stop gracefully: the intake stops, calls in flight finish,
  pending requests are held, dropped or queued, the forward queue is drained (for at most
  ``FLUSH_TIMEOUT``; what is left stays queued in the spool for the next start). Then :func:`serve` raises
  :class:`KeyboardInterrupt` for SIGINT (the command exits 130) and returns for SIGTERM (exit 0, a
  requested stop), instead of uvicorn's re-raising of the signal (which killed the process: 143).
"""

from __future__ import annotations

import contextlib
import copy
import ipaddress
import os
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import uvicorn
import uvicorn.config
from fastapi import FastAPI
from uvicorn.protocols.http.h11_impl import H11Protocol

from anonkit.errors import InputError
from anonkit.location import Area, Policy
from anonkit.location._broker_app import create_app
from anonkit.location._broker_auth import TOKEN_FILE, operator_token
from anonkit.location._broker_defaults import DEFAULT_IDLE_TIMEOUT, DEFAULT_LISTEN, DEFAULT_MAX_SKEW
from anonkit.location._broker_forward import _check_forward, _is_url, log

#: calls served at once; uvicorn answers 503 beyond
MAX_CONNECTIONS = 1000
#: seconds the graceful stop waits for calls in flight
GRACEFUL_TIMEOUT = 10


class _Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request head: from the connection's opening
    (or its previous response) the client has ``timeout_keep_alive`` seconds to send a whole head,
    however it trickles the bytes; else the connection is closed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: Any = None
        self._awaiting: Any = None

    def _arm(self) -> None:
        self._disarm()
        self._awaiting = self.cycle
        self._head_timer = self.loop.call_later(self.timeout_keep_alive, self._expire)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _expire(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._head_timer is not None and self.cycle is not self._awaiting:
            self._disarm()  # a whole head arrived: a new request is under way

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


class _Server(uvicorn.Server):
    """A uvicorn server that reports its address once it accepts connections and remembers the
    signal that stopped it (without re-raising it)."""

    def __init__(self, config: uvicorn.Config, ready: Callable[[str, int], None] | None) -> None:
        super().__init__(config)
        self._ready = ready
        self.address: tuple[str, int] | None = None
        self.stopped_by: int | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if sockets:
            host, port = sockets[0].getsockname()[:2]
            self.address = (host, port)
            log.info("anonkit broker listening on http://%s:%d (Ctrl-C to stop)", f"[{host}]" if ":" in host else host,
                     port)
            if self._ready is not None and not self.should_exit:
                self._ready(host, port)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.stopped_by is None:
            self.stopped_by = sig
        super().handle_exit(sig, frame)
        captured = getattr(self, "_captured_signals", None)
        if isinstance(captured, list):
            captured.clear()  # serve() reports the stop itself


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


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


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


def _config(app: FastAPI, log_level: str, idle_timeout: float) -> uvicorn.Config:
    logging_config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    logging_config["loggers"][log.name] = {"handlers": ["default"], "level": log_level.upper(), "propagate": False}
    return uvicorn.Config(app, log_level=log_level, log_config=logging_config, access_log=False, lifespan="on",
                          http=_Protocol, timeout_keep_alive=idle_timeout,  # type: ignore[arg-type]
                          timeout_graceful_shutdown=GRACEFUL_TIMEOUT, limit_concurrency=MAX_CONNECTIONS,
                          server_header=False, date_header=False)


def _state_folder(state: str | os.PathLike[str] | None, forward: str) -> Path:
    """The folder of the operator token and the request journal: ``state``, else the forward file's."""
    if state is None:
        if _is_url(forward):
            raise InputError("--state is needed with a URL --forward: the folder for the operator token and the "
                             "request journal", key="state")
        return Path(forward).expanduser().resolve().parent
    folder = Path(os.fspath(state)).expanduser()
    if not folder.is_dir():
        raise InputError("--state must be an existing folder", key="state", value=os.fspath(state))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError("--state is not writable", key="state", value=os.fspath(state))
    return folder


def _number(value: float, flag: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0 or value == float("inf"):
        raise InputError(f"{flag} must be a non-negative number of seconds", key=flag.lstrip("-"), value=value)
    return float(value)


def serve(listen: str | None, forward: str, area: Area, policy: Policy, *,
          state: str | os.PathLike[str] | None = None, simulation: bool = False, max_skew: float | None = None,
          idle_timeout: float | None = None, ready: Callable[[str, int], None] | None = None) -> None:
    """Run the broker on ``listen`` ("HOST:PORT"; port 0 picks a free one; ``None``:
    :data:`DEFAULT_LISTEN`, loopback) until Ctrl-C or SIGTERM. ``max_skew`` and ``idle_timeout``
    default to :data:`DEFAULT_MAX_SKEW` and :data:`DEFAULT_IDLE_TIMEOUT`.

    Blocks. The operator token is read from ``<state>/anonkit-broker.token`` (written there, mode
    0600, when missing; ``state`` defaults to the forward file's folder); the request journal lives
    beside it. On Ctrl-C or SIGTERM the intake stops, calls in flight finish, pending requests are
    resolved (held, dropped or queued), the forward queue is drained (what the service has not accepted
    in time stays in the spool, sent at the next start); then Ctrl-C raises
    :class:`KeyboardInterrupt` (the CLI exits 130) and SIGTERM returns (exit 0). ``ready(host,
    port)`` is called once connections are accepted. Raises :class:`~anonkit.errors.InputError` for
    a bad argument, an address that cannot be bound, or a state folder another broker holds.
    """
    host, port = _parse_listen(DEFAULT_LISTEN if listen is None else listen)
    max_skew = DEFAULT_MAX_SKEW if max_skew is None else max_skew
    idle_timeout = DEFAULT_IDLE_TIMEOUT if idle_timeout is None else idle_timeout
    if not forward:
        raise InputError("--forward must not be empty", key="forward", value=forward)
    _check_forward(forward)
    idle = _number(idle_timeout, "--idle-timeout")
    if idle == 0:
        raise InputError("--idle-timeout must be positive", key="idle-timeout", value=idle_timeout)
    folder = _state_folder(state, forward)
    token_path = folder / TOKEN_FILE
    token, created = operator_token(token_path)
    skew = _number(max_skew, "--max-skew")
    sock = _bind(host, port)
    try:
        app = create_app(area, policy, forward, operator_token=token, simulation=simulation, max_skew=skew,
                         state=folder)
    except BaseException:
        sock.close()
        raise
    log.info("operator token %s %s (mode 0600)", "written to" if created else "read from", token_path)
    if not _is_loopback(host):
        log.warning("listening on %s, not a loopback address: put TLS in front of the broker", host)
    server = _Server(_config(app, "info", idle), ready)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    if server.stopped_by == signal.SIGINT:
        raise KeyboardInterrupt


@contextlib.contextmanager
def running(app: FastAPI, host: str = "127.0.0.1", *, timeout: float = 30.0,
            idle_timeout: float = DEFAULT_IDLE_TIMEOUT) -> Iterator[str]:
    """Serve ``app`` on a free port of ``host`` from a background thread; yields its base URL.

    On exit the server shuts down gracefully (the lifespan's shutdown drains the forward queue).
    """
    sock = _bind(host, 0)
    started = threading.Event()
    server = _Server(_config(app, "warning", idle_timeout), lambda h, p: started.set())
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
