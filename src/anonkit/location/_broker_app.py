"""The broker's FastAPI application: endpoints, bearer-token checks, body limits, error bodies.

* Every call but ``/openapi.json`` needs a bearer token (:mod:`._broker_auth`): a subject's for
  ``POST /updates`` and ``POST /requests`` (it moves only that subject) and for reading its own
  requests, the operator's for ``POST /subjects``, ``/health``, ``/metrics`` and any request. A call
  without a valid token is a 401 before its body is looked at.
* A body larger than :data:`~._broker_api.MAX_BODY_BYTES` is a 413 before it is read (from its
  ``Content-Length``; a chunked body is counted as it arrives and cut off at the limit), and a body
  that does not arrive within ``body_timeout`` seconds is a 408 (:class:`_Limits`).
* An error never echoes the body: a 422 lists each error's ``type``, ``loc`` (names cut to
  :data:`LOC_CHARS` characters) and ``msg``, never pydantic's ``input``; so a non-finite number
  (``NaN``, ``Infinity``, ``1e400``) is a plain 422, not an unserialisable answer (500).
* No page loads anything from elsewhere: the interactive ``/docs`` and ``/redoc`` pages (which load
  their scripts from a CDN) are not served; the OpenAPI document is.
"""

# no ``from __future__ import annotations``: FastAPI reads the endpoints' annotations, which name
# dependencies defined inside create_app, so they must be evaluated where they are written

import asyncio
import contextlib
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from anonkit.errors import InputError
from anonkit.location import Area, Policy
from anonkit.location._broker_api import (
    MAX_BODY_BYTES,
    Health,
    RequestIn,
    RequestOut,
    SubjectIn,
    SubjectOut,
    UpdateIn,
    UpdateOut,
)
from anonkit.location._broker_auth import Tokens
from anonkit.location._broker_defaults import DEFAULT_MAX_SKEW
from anonkit.location._broker_forward import Sink, _check_forward, log
from anonkit.location._broker_journal import Journal
from anonkit.location._broker_metrics import metrics
from anonkit.location._broker_state import RECORD_LIMIT, Broker

#: seconds between two sweeps (``Cloaker.advance(now)``: deadlines of temporal requests pass)
DEFAULT_SWEEP_INTERVAL = 0.1
#: seconds a request's body may take to arrive, from its first read (more: 408)
DEFAULT_BODY_TIMEOUT = 10.0
#: the longest name of a body field an error repeats (a 1 MB unknown key is not echoed)
LOC_CHARS = 64

_bearer = HTTPBearer(auto_error=False, description="A subject's token (POST /subjects) or the operator's.")
#: the bearer credentials of a call (None without an Authorization: Bearer header); module-level so
#: that FastAPI resolves the annotation
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]

_REASONS = {"outside_area": "outside_area", "policy": "policy", "clock_skew": "clock_skew"}


class _Limits:
    """ASGI middleware: a body larger than ``max_body`` bytes is a 413 (from ``Content-Length``
    before any byte is read, else as soon as the count passes it); a body slower than ``timeout``
    seconds in all is a 408. Both come from the receive channel as an ``HTTPException``, which
    FastAPI passes on unchanged."""

    def __init__(self, app: Any, max_body: int, timeout: float, counts: Any) -> None:
        self.app = app
        self.max_body = max_body
        self.timeout = timeout
        self.counts = counts

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = next((v for k, v in scope["headers"] if k == b"content-length"), None)
        if length is not None and (not length.strip().isdigit() or int(length) > self.max_body):
            self.counts["rejected_too_large"] += 1
            response = JSONResponse({"detail": f"the body is larger than {self.max_body} bytes"}, status_code=413,
                                    headers={"connection": "close"})
            await response(scope, receive, send)
            return
        received = 0
        done = False
        deadline: float | None = None

        async def limited() -> dict:
            nonlocal received, done, deadline
            if done:
                return await receive()
            if deadline is None:
                deadline = asyncio.get_running_loop().time() + self.timeout
            try:
                async with asyncio.timeout_at(deadline):  # no task per read, unlike wait_for
                    message = await receive()
            except TimeoutError:
                raise HTTPException(408, f"the body did not arrive within {self.timeout:g} s",
                                    headers={"connection": "close"}) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    self.counts["rejected_too_large"] += 1
                    raise HTTPException(413, f"the body is larger than {self.max_body} bytes",
                                        headers={"connection": "close"})
                done = not message.get("more_body", False)
            else:
                done = True
            return message

        await self.app(scope, limited, send)


def _loc(part: object) -> object:
    return part[:LOC_CHARS] + "…" if isinstance(part, str) and len(part) > LOC_CHARS else part


def create_app(area: Area, policy: Policy, forward: str | os.PathLike[str] | Sink, *, operator_token: str,
               clock: Callable[[], float] | None = None, simulation: bool = False,
               max_skew: float = DEFAULT_MAX_SKEW, state: str | os.PathLike[str] | None = None,
               sweep_interval: float = DEFAULT_SWEEP_INTERVAL, max_body: int = MAX_BODY_BYTES,
               body_timeout: float = DEFAULT_BODY_TIMEOUT) -> FastAPI:
    """The broker's FastAPI application (served by :func:`~anonkit.location.broker.serve`; tests run
    it on loopback with :func:`~anonkit.location.broker.running`).

    Parameters
    ----------
    area, policy:
        The service's area and the cloaking policy; a request may only be stricter than the policy.
    forward:
        Where cloaked requests go: an ``http(s)://`` URL (POSTed as JSON), a file path (one JSON
        line appended per request) or a callable taking the public record (an in-process sink).
    operator_token:
        The operator's bearer token (at least 32 characters); subjects' tokens derive from it.
    clock:
        The broker's wall clock in seconds (default: Unix seconds that never go backwards).
    simulation:
        Take the time from the bodies' ``t`` instead of a clock (required, never backwards, at most
        ``max_skew`` ahead of the latest); no clock may be given then.
    max_skew:
        Seconds a body's ``t`` may differ from the clock (or, simulated, step ahead).
    state:
        A folder for the request journal and the spool (queued requests are sent again after a crash,
        pending ones read as ``lost``); ``None``: neither (statuses and the queue live in memory only).
    sweep_interval, max_body, body_timeout:
        Seconds between two sweeps; the largest body in bytes; seconds a body may take to arrive.
    """
    target = _check_forward(forward)
    for name, value in (("sweep_interval", sweep_interval), ("body_timeout", body_timeout)):
        if not (isinstance(value, int | float) and value > 0 and math.isfinite(value)):
            raise InputError(f"{name} must be a positive number", key=name, value=value)
    if isinstance(max_body, bool) or not isinstance(max_body, int) or max_body < 1:
        raise InputError("max_body must be a positive whole number of bytes", key="max_body", value=max_body)
    tokens = Tokens(operator_token)
    journal = Journal(Path(state), RECORD_LIMIT, spool=True) if state is not None else None
    try:
        broker = Broker(area, policy, target, tokens, clock=clock, simulation=simulation, max_skew=max_skew,
                        journal=journal)
    except BaseException:
        if journal is not None:
            journal.close()
        raise

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        await broker.forwarder.start()
        broker.requeue()  # what the spool held when the broker last stopped, before any new request
        sweeper = asyncio.create_task(_sweep(broker, sweep_interval), name="anonkit-sweeper")
        try:
            yield
        finally:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
            async with broker.lock:
                broker.close()
            broker.stopped(await broker.forwarder.stop())

    app = FastAPI(
        title="anonkit location broker",
        version=_version(),
        summary="A trusted broker that cloaks location-based service requests (spatial and temporal k-anonymity).",
        description=("Clients post position updates and requests with their bearer token; cloaked requests (t, "
                     "x0, y0, x1, y1, t0, t1, payload) are forwarded to the service. A subject id or an exact "
                     "position never leaves the broker."),
        lifespan=lifespan, docs_url=None, redoc_url=None, swagger_ui_oauth2_redirect_url=None,
    )
    app.state.broker = broker
    app.add_middleware(_Limits, max_body=max_body, timeout=body_timeout, counts=broker.counts)
    def unauthorized(what: str) -> HTTPException:
        broker.counts["rejected_unauthorized"] += 1
        return HTTPException(401, f"this call needs {what} as 'Authorization: Bearer TOKEN'",
                             headers={"WWW-Authenticate": "Bearer"})

    def forbidden(message: str) -> HTTPException:
        broker.counts["rejected_forbidden"] += 1
        return HTTPException(403, message)

    def operator(credentials: Credentials) -> None:
        if credentials is None or not tokens.is_operator(credentials.credentials):
            raise unauthorized("the operator's token")

    def subject(credentials: Credentials) -> str:
        name = None if credentials is None else tokens.subject(credentials.credentials)
        if name is None:
            raise unauthorized("a subject's token")
        return name

    def reader(credentials: Credentials) -> str | None:
        """The owner key of a subject's token, or None for the operator's."""
        if credentials is not None:
            if tokens.is_operator(credentials.credentials):
                return None
            name = tokens.subject(credentials.credentials)
            if name is not None:
                return tokens.owner(name)
        raise unauthorized("the requester's token (or the operator's)")

    def same(body: UpdateIn, name: str) -> None:
        if body.subject is not None and str(body.subject) != name:
            raise forbidden("the token is another subject's: a subject may only report itself")

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"type": str(e.get("type", "invalid")), "loc": [_loc(p) for p in e.get("loc", ())],
                   "msg": str(e.get("msg", ""))[:500]} for e in exc.errors()]
        reasons = {_REASONS.get(e["type"], "invalid") for e in errors}
        for reason in reasons:
            broker.counts[f"rejected_{reason}"] += 1
        return JSONResponse({"detail": errors}, status_code=422)

    intake = {401: {"description": "no valid subject token"},
              403: {"description": "the token is another subject's"},
              409: {"description": "simulation clock: t is before the broker's time (times must not go backwards)"},
              413: {"description": "the body is too large"},
              503: {"description": "the broker is shutting down"}}
    operator_only = {401: {"description": "no operator token"}}

    @app.post("/subjects", response_model=SubjectOut, responses=operator_only, tags=["operations"],
              summary="Register a subject: its bearer token (operator only)", dependencies=[Depends(operator)])
    async def post_subject(body: SubjectIn) -> SubjectOut:
        name = str(body.subject)
        return SubjectOut(subject=name, token=tokens.issue(name))

    async def timed(kind: str, call: Any, body: Any, name: str) -> Any:
        """The caller's own message (``same``) handled under the broker's lock, its latency observed."""
        same(body, name)
        start = time.perf_counter()
        async with broker.lock:
            out = call(body, name)
        broker.latency[kind].observe(time.perf_counter() - start)
        return out

    @app.post("/updates", response_model=UpdateOut, responses=intake, tags=["intake"],
              summary="Record the caller's position")
    async def post_update(body: UpdateIn, name: Annotated[str, Depends(subject)]) -> UpdateOut:
        return await timed("updates", broker.update, body, name)

    @app.post("/requests", response_model=RequestOut, response_model_exclude_none=True,
              responses={**intake, 429: {"description": "too many of the caller's requests are pending"}},
              tags=["intake"], summary="Submit a service request (cloaked before it is forwarded)")
    async def post_request(body: RequestIn, name: Annotated[str, Depends(subject)]) -> RequestOut:
        return await timed("requests", broker.request, body, name)

    @app.get("/requests/{request_id}", response_model=RequestOut, response_model_exclude_none=True,
             responses={401: {"description": "no valid token"},
                        404: {"description": "unknown, long finished, or another subject's request"}},
             tags=["intake"], summary="A request's status (its requester's, or the operator's)")
    async def get_request(request_id: str, owner: Annotated[str | None, Depends(reader)]) -> RequestOut:
        out = broker.status(request_id, owner)
        if out is None:
            raise HTTPException(404, "no request of yours with this id (unknown, or finished long ago)")
        return out

    @app.get("/health", response_model=Health, responses=operator_only, tags=["operations"],
             summary="Liveness and load (operator only)", dependencies=[Depends(operator)])
    async def health() -> Health:
        return broker.health()

    @app.get("/metrics", response_class=PlainTextResponse, responses=operator_only, tags=["operations"],
             summary="Counters in the Prometheus text format (operator only)", dependencies=[Depends(operator)])
    async def get_metrics() -> PlainTextResponse:
        return PlainTextResponse(metrics(broker), media_type="text/plain; version=0.0.4; charset=utf-8")

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
