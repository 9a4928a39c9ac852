"""Starting and stopping the application: the private folder, the token, the socket, the browser.

:func:`serve` makes a private folder (``tempfile.mkdtemp``: mode 0700) and points the process's
temporary files at it (Shiny keeps uploads in temporary files), binds the socket (refusing a
non-loopback address not asked for, :func:`~anonkit.ui.security.check_host`), prints the address with
its token, opens the browser unless told not to, serves until stopped (Ctrl-C), and removes the
folder on every way out.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import sys
import tempfile
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path

from anonkit.errors import InputError
from anonkit.ui.security import DEFAULT_HOST, DEFAULT_MAX_UPLOAD, TOKEN_PARAM, TokenGate, check_host, new_token

__all__ = ["DEFAULT_PORT", "bind", "serve", "url_of"]

#: the port ``anonkit ui`` listens on unless ``--port`` names another (0: any free port)
DEFAULT_PORT = 8501


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (one line naming the address when it cannot be had)."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}; choose another --port",
                         key="--port", value=port) from None
    sock.listen(128)
    return sock


def url_of(host: str, port: int, token: str) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}/?{TOKEN_PARAM}={token}"


def serve(data: str | None = None, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, host_given: bool = False,
          open_browser: bool = True, max_upload: int = DEFAULT_MAX_UPLOAD,
          say: Callable[[str], None] | None = None) -> None:
    """Run the application until interrupted (see the module docstring)."""
    import uvicorn

    from anonkit.ui.app import make_app

    check_host(host, given=host_given)
    if data is not None and not Path(data).is_file():
        raise InputError("no such file", file=data)
    say = say or (lambda line: print(line, flush=True))
    sock = bind(host, port)
    # SIGTERM unwinds (so the private folder is removed below) instead of ending the process where it
    # stands: from before the folder exists, so no SIGTERM can leave it behind. uvicorn takes SIGTERM over
    # while it runs, stops, and raises it again under this handler.
    previous = signal.signal(signal.SIGTERM, _unwind) if threading.current_thread() is threading.main_thread() \
        else None
    private = Path(tempfile.mkdtemp(prefix="anonkit-ui-"))
    before = tempfile.tempdir
    tempfile.tempdir = str(private)  # uploads and every other temporary file stay in the private folder
    try:
        real_port = sock.getsockname()[1]
        token = new_token()
        app = TokenGate(make_app(private, data), token, port=real_port, host=host, max_upload=max_upload)
        url = url_of(host, real_port, token)
        config = uvicorn.Config(app, log_level="warning", lifespan="off", ws="websockets-sansio"
                                if _has_sansio() else "auto")
        server = uvicorn.Server(config)
        say(f"anonkit ui: open {url}")
        say("(the address holds this start's secret token; press Ctrl-C to stop: the data opened is removed)")
        if open_browser:
            threading.Timer(0.8, lambda: _open(url)).start()
        server.run(sockets=[sock])
    except Stopped:  # SIGTERM: a normal stop (exit 0); Ctrl-C propagates as KeyboardInterrupt (exit 130)
        pass
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        tempfile.tempdir = before
        with contextlib.suppress(OSError):
            sock.close()
        shutil.rmtree(private, ignore_errors=True)


class Stopped(SystemExit):
    """SIGTERM arrived: the server stopped as asked (the private folder is removed on the way out). A
    ``SystemExit`` so that asyncio's loop lets it through (it logs and swallows plain exceptions)."""


def _unwind(signum: int, frame: object) -> None:
    raise Stopped(0)


def _has_sansio() -> bool:
    import importlib.util

    return importlib.util.find_spec("uvicorn.protocols.websockets.websockets_sansio_impl") is not None


def _open(url: str) -> None:
    with contextlib.suppress(Exception):  # no browser on this machine: the printed address is enough
        webbrowser.open(url)


if __name__ == "__main__":  # pragma: no cover - python -m anonkit.ui.server DATA
    serve(sys.argv[1] if len(sys.argv) > 1 else None, open_browser=False)
