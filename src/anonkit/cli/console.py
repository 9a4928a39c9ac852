"""Where the command line writes: the two consoles, JSON output and the one-line error.

Every printer writes through :data:`out` and :data:`err` read as attributes of this module at call
time (``console.out.print``), so a test can swap a console (a wider one, say) for every printer at once.
"""

from __future__ import annotations

import json
import math

import typer
from rich.console import Console
from rich.markup import escape

from anonkit._secrets import mask_secrets

#: standard error: errors, warnings, notes, alerts and the progress display
err = Console(stderr=True)
#: standard output: the tables and lines a command reports
out = Console()


def jsonable(obj: object) -> object:
    """``obj`` as JSON can hold it: every string masked (no password or token reaches a printed JSON
    object), NaN as null, infinities as ``"inf"``/``"-inf"``, numpy scalars as Python numbers."""
    if isinstance(obj, str):
        return mask_secrets(obj)  # no password or token reaches a printed JSON object
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else (None if math.isnan(obj) else ("inf" if obj > 0 else "-inf"))
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v) for v in obj]
    if hasattr(obj, "item"):
        return jsonable(obj.item())  # numpy scalars
    return obj


def json_text(obj: object) -> str:
    """``obj`` as one line of JSON (see :func:`jsonable`)."""
    return json.dumps(jsonable(obj))


def print_json(obj: object) -> None:
    """``obj`` as one line of JSON on standard output (see :func:`jsonable`)."""
    print(json_text(obj))


def fail(exc: BaseException, code: int) -> None:
    """Print ``exc`` as the one ``error:`` line on standard error and exit with ``code``."""
    err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)
