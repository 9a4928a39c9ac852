"""The ``anonkit`` command line: ``anonymize`` a table from a YAML config, ``check`` any table.

Exit codes: 0 success; 1 the privacy models cannot be met (nothing is written); 2 bad input (a one-line
error naming the column, value and row, or the config key); 130 interrupted.

A thin layer: each command (one module per group: ``anonymize``, ``check`` with ``analyze``,
``location`` with ``cloak`` and ``broker``, ``algorithms``, ``models``, ``audit``, ``report``, ``explore``,
``experiments``) parses its flags, calls the job and prints; ``printers/`` holds what is printed for
people, ``console`` where it goes (and the one-line error), ``running`` the interruptible job and its
progress display, ``helptext`` how ``--help`` reads (wrapped between words at 80 columns, every command
that is registered here included). Importing this package loads no pandas, numpy or numba: every command imports its
job when it runs.
"""

from __future__ import annotations

import sys
from typing import Annotated, NoReturn

import typer

from anonkit.cli import (
    algorithms,
    anonymize,
    audit,
    check,
    evaluate,
    experiments,
    explore,
    init,
    location,
    models,
    report,
    ui,
)
from anonkit.cli.helptext import MARKUP_MODE, HelpGroup

app = typer.Typer(
    cls=HelpGroup,  # --help wrapped between words at 80 columns, flags without <bool> (cli/helptext.py)
    rich_markup_mode=MARKUP_MODE,
    add_completion=False,
    no_args_is_help=True,
    help="anonkit: privacy-preserving publishing of microdata.",
    pretty_exceptions_enable=False,
)


def _print_version(asked: bool) -> None:
    """``--version``: print ``anonkit VERSION`` and exit 0 before any command runs."""
    if asked:
        from anonkit._version import __version__

        print(f"anonkit {__version__}")
        raise typer.Exit(0)


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_print_version,
                                          help="Print anonkit's version and exit.")] = False,
) -> None:
    """The options of ``anonkit`` itself (before any command)."""


# the commands, in the order ``anonkit --help`` lists them
app.command("init")(init.init)
app.command()(anonymize.anonymize)
app.command()(check.check)
app.command()(check.analyze)
app.command()(location.cloak)
app.command()(location.broker)
app.command("algorithms")(algorithms.list_algorithms)
app.command("models")(models.list_models)
app.command("audit")(audit.audit_command)
app.command("evaluate")(evaluate.evaluate_command)
app.command("report")(report.report_command)
app.command("explore")(explore.explore_command)
app.command("ui")(ui.ui_command)
app.add_typer(experiments.experiment_app, name="experiment")


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:  # before a job started (imports, config): nothing was written
        print("interrupted: nothing was written", file=sys.stderr)
        _leave(130)
    except SystemExit as done:
        if done.code is None or isinstance(done.code, int):
            _leave(done.code or 0)
        raise
    _leave(0)


def _leave(code: int) -> NoReturn:
    """End the process with ``code`` once every output is complete, without tearing the interpreter
    down: a short run spends 0.15–0.2 s freeing modules and objects it will never use again. The
    exit handlers still run (``atexit``) and the standard streams are flushed; the files a command
    writes were closed and moved into place before it returned. With PySpark loaded the interpreter
    exits normally (its JVM gateway shuts down on the way)."""
    if "pyspark" in sys.modules:
        sys.exit(code)
    import atexit
    import contextlib
    import os

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: what the normal exit would meet too
            stream.flush()
    os._exit(code)
