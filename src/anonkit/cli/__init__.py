"""The ``anonkit`` command line: ``anonymize`` a table from a YAML config, ``check`` any table.

Exit codes: 0 success; 1 the privacy models cannot be met (nothing is written); 2 bad input (a one-line
error naming the column, value and row, or the config key); 130 interrupted.

A thin layer: each command (one module per group: ``anonymize``, ``check`` with ``analyze``,
``risk`` (sdcMicro's per-record survey risk), ``location`` with ``cloak`` and ``broker``, ``algorithms``,
``models``, ``audit``, ``report``, ``explore``, ``experiments``) parses its flags, calls the job and prints;
``printers/`` holds what is printed for people, ``console`` where it goes (and the one-line error),
``running`` the interruptible job and its progress display, ``helptext`` how ``--help`` reads (wrapped
between words at 80 columns, every command that is registered here included). Importing this package
loads no pandas, numpy or numba: every command imports its job when it runs. ``anonkit --help`` (and
``anonkit`` alone) imports no command at all (issue 30: at most 0.15 CPU-s): :data:`COMMANDS` names
them as text, the help lists them from their docstrings read in their sources, byte for byte what the
whole command line prints (``tests/test_fixed_costs.py``); :data:`app` registers them on first use.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, NoReturn

import typer

from anonkit.cli.helptext import MARKUP_MODE, HelpGroup, help_only_group

#: the commands, in the order ``anonkit --help`` lists them: the name and ``"module:attribute"``, a
#: function (a command) or a :class:`typer.Typer` (a group of sub-commands). Declared as text so that
#: ``anonkit --help`` lists them without importing them (:func:`anonkit.cli.helptext.help_only_group`);
#: :data:`app` imports and registers every one.
COMMANDS: tuple[tuple[str, str], ...] = (
    ("init", "anonkit.cli.init:init"),
    ("anonymize", "anonkit.cli.anonymize:anonymize"),
    ("check", "anonkit.cli.check:check"),
    ("analyze", "anonkit.cli.check:analyze"),
    ("risk", "anonkit.cli.risk:risk_command"),
    ("cloak", "anonkit.cli.location:cloak"),
    ("broker", "anonkit.cli.location:broker"),
    ("algorithms", "anonkit.cli.algorithms:list_algorithms"),
    ("models", "anonkit.cli.models:list_models"),
    ("audit", "anonkit.cli.audit:audit_command"),
    ("evaluate", "anonkit.cli.evaluate:evaluate_command"),
    ("report", "anonkit.cli.report:report_command"),
    ("explore", "anonkit.cli.explore:explore_command"),
    ("ui", "anonkit.cli.ui:ui_command"),
    ("experiment", "anonkit.cli.experiments:experiment_app"),
)
#: the command lines that print ``anonkit``'s own help (nothing, or ``--help`` alone): answered by
#: :func:`help_only_group` without importing a command
TOP_HELP = ((), ("--help",))


def _print_version(asked: bool) -> None:
    """``--version``: print ``anonkit VERSION`` and exit 0 before any command runs."""
    if asked:
        from anonkit._version import __version__

        print(f"anonkit {__version__}")
        raise typer.Exit(0)


def _options(
    version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_print_version,
                                          help="Print anonkit's version and exit.")] = False,
) -> None:
    """The options of ``anonkit`` itself (before any command)."""


def _root() -> typer.Typer:
    """``anonkit`` itself, without its commands: its help, its options."""
    root = typer.Typer(
        cls=HelpGroup,  # --help wrapped between words at 80 columns, flags without <bool> (cli/helptext.py)
        rich_markup_mode=MARKUP_MODE,
        add_completion=False,
        no_args_is_help=True,
        help="anonkit: privacy-preserving publishing of microdata.",
        pretty_exceptions_enable=False,
    )
    root.callback()(_options)
    return root


def _target(target: str) -> Any:
    """The object a ``"module:attribute"`` string of :data:`COMMANDS` names (imported; the strings are
    where ``tests/test_architecture.py`` counts these imports)."""
    import pkgutil

    return pkgutil.resolve_name(target)


def _app() -> typer.Typer:
    """The whole command line: :func:`_root` with every command of :data:`COMMANDS` registered (made once)."""
    built = globals().get("app")
    if built is None:
        built = _root()
        for name, target in COMMANDS:
            command = _target(target)
            if isinstance(command, typer.Typer):
                built.add_typer(command, name=name)
            else:
                built.command(name)(command)
        globals()["app"] = built
    return built


def __getattr__(name: str) -> Any:
    """``anonkit.cli.app`` made on first use, so that ``anonkit --help`` imports no command. Any other
    missing name is an ``AttributeError``: ``from anonkit.cli import console`` then imports the
    submodule (building the app there would import every command inside that import: a cycle)."""
    if name == "app":
        return _app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _one_command(argv: tuple[str, ...]) -> typer.Typer | None:
    """The command line with the one command ``argv`` names (its first word) registered, else ``None``
    (no command named first: ``--version``, a typo, which click answers from the whole command line).
    Building click's commands costs by the command (their options' types and help): the bundled job
    registers ``anonymize`` alone (~0.03 CPU-s less than all fifteen), and a command runs, parses and
    prints its help and errors as it does in :data:`app` (``tests/test_fixed_cost_paths.py``)."""
    target = dict(COMMANDS).get(argv[0]) if argv else None
    if target is None:
        return None
    root = _root()
    command = _target(target)
    if isinstance(command, typer.Typer):
        root.add_typer(command, name=argv[0])
    else:
        root.command(argv[0])(command)
    return root


def main() -> None:
    """Console-script entry point."""
    try:
        argv = tuple(sys.argv[1:])
        group = help_only_group(_root(), COMMANDS) if argv in TOP_HELP else None
        if group is not None:
            group()
        else:
            (_one_command(argv) or _app())()
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
