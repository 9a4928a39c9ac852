"""``anonkit ui`` is private by construction: the token on every request (HTTP and websocket), loopback
unless ``--host``, the Host header, bounded uploads, nothing loaded from outside, the private folder
(0700, removed on exit). The real application runs in a subprocess; the middleware alone runs in
memory through httpx."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

pytest.importorskip("shiny")

from anonkit.errors import InputError
from anonkit.ui.security import TokenGate, check_host, is_loopback
from ui_browser import browser, command, settle, started

DATA = Path(__file__).parent / "data" / "ui_clinic.csv"


@pytest.fixture(scope="module")
def app(tmp_path_factory):  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp("ui-private")
    old = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(tmp)
    try:
        with started() as running:
            running.tmp = tmp  # type: ignore[attr-defined]
            yield running
    finally:
        if old is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = old


def test_http_needs_the_token(app) -> None:  # type: ignore[no-untyped-def]
    assert httpx.get(app.base).status_code == 403
    assert httpx.get(app.base + "?token=wrong").status_code == 403
    assert httpx.get(app.base + "lib/shiny-1.8.0/shiny.js").status_code == 403  # assets too
    assert httpx.get(app.base, cookies={f"anonkit-ui-{app.base.rsplit(':', 1)[1].strip('/')}": "wrong"}).status_code \
        == 403
    first = httpx.get(app.url)  # control: the printed address opens it
    assert first.status_code == 303 and "token" not in first.headers["location"]
    cookie = first.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    with httpx.Client(cookies=first.cookies) as client:
        page = client.get(app.base)
        assert page.status_code == 200 and "anonkit" in page.text
        assert "default-src 'self'" in page.headers["content-security-policy"]


def test_foreign_host_header_is_refused(app) -> None:  # type: ignore[no-untyped-def]
    # DNS rebinding: a page of another site resolving its name to 127.0.0.1 sends its own Host
    assert httpx.get(app.url, headers={"Host": "evil.example"}).status_code == 403
    assert httpx.get(app.url).status_code == 303


def test_websocket_needs_the_token(app) -> None:  # type: ignore[no-untyped-def]
    import websockets
    from websockets.exceptions import InvalidStatus

    ws_url = app.base.replace("http://", "ws://") + "websocket/"
    cookies = httpx.get(app.url).cookies

    async def attempt(headers: dict[str, str]) -> int:
        try:
            async with websockets.connect(ws_url, additional_headers=headers, open_timeout=10):
                return 101
        except InvalidStatus as exc:
            return exc.response.status_code

    assert asyncio.run(attempt({})) == 403
    assert asyncio.run(attempt({"Cookie": "anonkit-ui-1=nope"})) == 403
    name, value = next(iter(cookies.items()))
    assert asyncio.run(attempt({"Cookie": f"{name}={value}"})) == 101  # control


def test_private_folder_is_0700_and_removed_on_exit(tmp_path) -> None:  # type: ignore[no-untyped-def]
    env_tmp = tmp_path / "tmp"
    env_tmp.mkdir()
    old = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(env_tmp)
    try:
        with started(str(DATA)):
            folders = list(env_tmp.glob("anonkit-ui-*"))
            assert len(folders) == 1
            assert stat.S_IMODE(folders[0].stat().st_mode) == 0o700
    finally:
        if old is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = old
    assert not list(env_tmp.glob("anonkit-ui-*"))


def test_non_loopback_needs_host() -> None:
    for host in ("0.0.0.0", "192.0.2.1", "example.org"):
        with pytest.raises(InputError, match="--host"):
            check_host(host, given=False)
        assert check_host(host, given=True) == host  # named by the person starting it
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        assert is_loopback(host) and check_host(host, given=False) == host


def test_serve_refuses_non_loopback_before_binding() -> None:
    from anonkit.ui.server import serve

    with pytest.raises(InputError, match="this machine only"):
        serve(host="0.0.0.0", port=0, open_browser=False)


def test_cli_reports_an_address_it_cannot_bind_in_one_line() -> None:
    # 192.0.2.1 (TEST-NET-1) is not this machine's: named with --host it is allowed, and fails to bind
    done = subprocess.run(command("--port", "0", "--no-browser", "--host", "192.0.2.1"), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot listen on 192.0.2.1"), done.stderr


def _gate(max_upload: int = 100) -> TokenGate:
    async def inner(scope, receive, send):  # type: ignore[no-untyped-def]
        body = b""
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"got %d" % len(body)})

    return TokenGate(inner, "secret", port=1, max_upload=max_upload)


def test_upload_size_is_bounded() -> None:
    async def post(size: int) -> int:
        transport = httpx.ASGITransport(app=_gate())
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1",
                                     cookies={"anonkit-ui-1": "secret"}) as client:
            r = await client.post("/upload", content=b"x" * size)
            return r.status_code

    assert asyncio.run(post(100)) == 200
    assert asyncio.run(post(101)) == 413


def test_every_response_stays_local(app) -> None:  # type: ignore[no-untyped-def]
    """The browser loads the page and every step; every request goes to the application, and no HTML or
    CSS it received names an outside address to load (src, href, url(), @import)."""
    requested: list[str] = []
    bodies: dict[str, str] = {}
    with browser() as b:
        page = b.new_page()
        page.on("request", lambda r: requested.append(r.url))

        def keep(response) -> None:  # type: ignore[no-untyped-def]
            kind = response.headers.get("content-type", "")
            if any(t in kind for t in ("html", "css", "javascript")):
                with contextlib.suppress(Exception):  # a redirect has no body
                    bodies[response.url] = response.text()

        page.on("response", keep)
        page.goto(app.url)
        settle(page)
        for tab in ("2. Hierarchies", "3. Privacy", "4. Run", "5. Results", "6. Export", "1. Data"):
            page.get_by_role("tab", name=tab).click()
            settle(page)
    origin = app.base.rstrip("/")
    outside = [u for u in requested if not (u.startswith(origin) or u.startswith(("data:", "blob:")))]
    assert not outside, outside
    assert len(bodies) > 10  # the page, Shiny's scripts and styles were all seen
    loads = re.compile(r"""(?:src|href)\s*=\s*["']\s*(?:https?:)?//|url\(\s*["']?\s*(?:https?:)?//|@import\s+["']?"""
                       r"""(?:url\()?\s*["']?(?:https?:)?//""", re.I)
    found = {u: loads.findall(t) for u, t in bodies.items() if not u.endswith(".js")}
    assert not {u: f for u, f in found.items() if f}, found
    # control: the pattern finds an outside font the way a CDN link would name it
    assert loads.findall('<link href="https://fonts.googleapis.com/css">') and loads.findall("url(//cdn.x/y.woff)")


def test_help_lists_the_flags() -> None:
    done = subprocess.run([sys.executable, "-m", "anonkit", "ui", "--help"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0
    for flag in ("--port", "--host", "--no-browser"):
        assert flag in done.stdout
