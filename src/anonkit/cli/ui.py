"""``anonkit ui``: start the browser application on this machine and open it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from anonkit.cli import console
from anonkit.errors import InputError

#: the address and port (mirrors anonkit.ui.security.DEFAULT_HOST and anonkit.ui.server.DEFAULT_PORT, which
#: are not imported here so that ``anonkit --help`` does not load the application)
_HOST_HELP = "Listen on this address (default 127.0.0.1: this machine only). Another address lets anyone who " \
             "reaches it and has the token see the data."


def ui_command(
    data: Annotated[Path | None, typer.Argument(help="A table to open at start (any format anonkit reads).")] = None,
    port: Annotated[int, typer.Option("--port", help="Port to listen on (0: any free port).", min=0,
                                      max=65535)] = 8501,
    host: Annotated[str | None, typer.Option("--host", help=_HOST_HELP)] = None,
    no_browser: Annotated[bool, typer.Option("--no-browser", help="Do not open a browser; print the address.")] = False,
) -> None:
    """Open the whole workflow in a browser: data, hierarchies, privacy, run, results, export."""
    try:
        from anonkit.ui.security import DEFAULT_HOST
        from anonkit.ui.server import serve
    except ImportError as exc:  # the ui extra is not installed
        console.fail(InputError(f"the browser application needs the ui extra: pip install 'anonkit[ui]' ({exc.name} "
                                "is missing)"), 2)
        return
    try:
        serve(None if data is None else str(data), host=host or DEFAULT_HOST, port=port, host_given=host is not None,
              open_browser=not no_browser)
    except InputError as exc:
        console.fail(exc, 2)
    except KeyboardInterrupt:  # Ctrl-C: stopped, the private folder removed (SIGTERM ends with 0)
        raise typer.Exit(130) from None
