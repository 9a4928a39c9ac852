"""What keeps ``anonkit ui`` private: loopback only, a per-start secret token on every request, bounded
uploads, nothing loaded from outside.

The rules, and why:

* **Loopback only** (:func:`check_host`): the application shows raw microdata to whoever opens it, so it
  listens on ``127.0.0.1`` unless the person starting it names another address with ``--host``.
* **A secret token on every request** (:class:`TokenGate`, an ASGI middleware around the Shiny app, as
  Jupyter does): other users of the machine, and web pages the browser visits, can reach a loopback
  port. The token (``secrets.token_urlsafe``, new at every start) comes in the URL the command prints
  and opens; the first request that carries it is answered with a redirect to the same page without it
  and an ``HttpOnly; SameSite=Strict`` cookie, which every later request (HTTP and websocket) must carry.
  Anything else is answered ``403``. The ``Host`` header must name the address listened on (no DNS
  rebinding).
* **Bounded uploads**: a request body above :data:`DEFAULT_MAX_UPLOAD` bytes is refused (``413``).
* **Nothing from outside**: every response carries a Content-Security-Policy that lets the page load
  only from this server (Shiny ships its JavaScript and CSS in its wheel), and no referrer.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode

from anonkit.errors import InputError

__all__ = ["DEFAULT_HOST", "DEFAULT_MAX_UPLOAD", "LOOPBACK_NAMES", "TOKEN_PARAM", "TokenGate", "check_host",
           "is_loopback", "new_token"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: the address ``anonkit ui`` listens on unless ``--host`` names another
DEFAULT_HOST = "127.0.0.1"
#: the largest request body (an uploaded table) the application accepts, in bytes
DEFAULT_MAX_UPLOAD = 512 * 1024 * 1024
#: the query parameter that carries the token on the first request
TOKEN_PARAM = "token"
#: host names that always mean this machine
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})

#: what a page may load: this server only (inline code is Shiny's own, in the page it renders)
CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; "
                           "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; "
                           "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
_HEADERS = [(b"content-security-policy", CONTENT_SECURITY_POLICY.encode()), (b"referrer-policy", b"no-referrer"),
            (b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
            (b"cache-control", b"no-store")]


def new_token() -> str:
    """A fresh secret for one start of the application (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) is this machine only."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_host(host: str, *, given: bool) -> str:
    """The address to listen on: a loopback address always; another only when the person starting the
    application named it (``--host``), since anyone who can reach it and learns the token sees the data."""
    if not host or not host.strip():
        raise InputError("give an address to listen on", key="--host", value=host)
    if not is_loopback(host) and not given:
        raise InputError("the application listens on this machine only (127.0.0.1); to listen on another "
                         "address name it with --host", key="--host", value=host)
    return host


def _cookie_name(port: int) -> str:
    # cookies are per host, not per port: two applications on one machine keep their own
    return f"anonkit-ui-{port}"


def _headers(scope: Scope) -> dict[bytes, bytes]:
    return {k.lower(): v for k, v in scope.get("headers", [])}


class TokenGate:
    """The ASGI middleware described in the module docstring, around ``app`` (the Shiny application)."""

    def __init__(self, app: ASGIApp, token: str, *, port: int, host: str = DEFAULT_HOST,
                 max_upload: int = DEFAULT_MAX_UPLOAD) -> None:
        self.app, self.token, self.port, self.host, self.max_upload = app, token, port, host, max_upload
        self.cookie = _cookie_name(port)

    # ------------------------------------------------------------------ checks
    def _same(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def _cookie_ok(self, headers: dict[bytes, bytes]) -> bool:
        raw = headers.get(b"cookie", b"").decode("latin-1")
        jar = SimpleCookie()
        try:
            jar.load(raw)
        except Exception:  # a malformed cookie header is no token
            return False
        morsel = jar.get(self.cookie)
        return self._same(morsel.value if morsel is not None else None)

    def _host_ok(self, headers: dict[bytes, bytes]) -> bool:
        host = headers.get(b"host", b"").decode("latin-1")
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        return bool(name) and (is_loopback(name) or name == self.host)

    # ------------------------------------------------------------------ ASGI
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        in_url = next((v for k, v in query if k == TOKEN_PARAM), None)
        if not self._host_ok(headers) or not (self._cookie_ok(headers) or self._same(in_url)):
            await self._refuse(kind, send, 403, b"forbidden: open the address anonkit ui printed (with its token)")
            return
        if kind == "http" and in_url is not None:  # first open: the token moves from the URL into a cookie
            await self._redirect_with_cookie(scope, query, send)
            return
        if kind == "http":
            length = headers.get(b"content-length")
            if length is not None and (not length.isdigit() or int(length) > self.max_upload):
                await self._refuse(kind, send, 413, b"the upload is larger than the application accepts")
                return
            receive = self._bounded(receive)
            send = self._with_headers(send)
        await self.app(scope, receive, send)

    def _bounded(self, receive: Receive) -> Receive:
        seen = 0

        async def bounded() -> Message:
            nonlocal seen
            message = await receive()
            if message.get("type") == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_upload:
                    return {"type": "http.disconnect"}
            return message

        return bounded

    @staticmethod
    def _with_headers(send: Send) -> Send:
        async def sending(message: Message) -> None:
            if message.get("type") == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []), *(h for h in _HEADERS if h[0] not in names)]
            await send(message)

        return sending

    async def _redirect_with_cookie(self, scope: Scope, query: list[tuple[str, str]], send: Send) -> None:
        rest = urlencode([(k, v) for k, v in query if k != TOKEN_PARAM])
        location = (scope.get("root_path", "") + scope.get("path", "/")) + (f"?{rest}" if rest else "")
        cookie = f"{self.cookie}={self.token}; Path=/; HttpOnly; SameSite=Strict"
        await send({"type": "http.response.start", "status": 303,
                    "headers": [(b"location", location.encode("latin-1")), (b"set-cookie", cookie.encode("latin-1")),
                                (b"content-length", b"0"), *_HEADERS]})
        await send({"type": "http.response.body", "body": b""})

    @staticmethod
    async def _refuse(kind: str, send: Send, status: int, body: bytes) -> None:
        if kind == "websocket":  # closing before accepting: the server answers the handshake with 403
            await send({"type": "websocket.close", "code": 1008})
            return
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(body)).encode()), *_HEADERS]})
        await send({"type": "http.response.body", "body": body})
