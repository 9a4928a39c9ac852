"""The CLI reference, generated from the ``anonkit`` Typer app at build time, so it cannot drift.

Every command (and every sub-command of a group such as ``anonkit experiment``) gets a heading
``anonkit NAME``, its help text, its usage, its arguments and every option with what it takes, its
default and its help. Nothing here is written by hand: a new command or option appears on the next
build, and ``tests/test_docs.py`` fails when one has no entry.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def app_command() -> Any:
    """The root command of ``anonkit`` (Typer's Click-compatible command object)."""
    import typer.main

    from anonkit.cli import app

    return typer.main.get_command(app)


def walk(command: Any, path: tuple[str, ...] = ("anonkit",)) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command under ``command`` (itself first, then its sub-commands in their listed order),
    as ``(path, command)``; a group without a callback of its own is listed too (its help)."""
    yield path, command
    subs = getattr(command, "commands", None) or {}
    for name, sub in subs.items():
        if getattr(sub, "hidden", False):
            continue
        yield from walk(sub, (*path, name))


def _cell(text: object) -> str:
    """Text for one markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _takes(param: Any) -> str:
    """What an option takes: nothing for a flag, else its type (``text``, ``integer``, choices…)."""
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return "flag"
    shown = None
    display = getattr(param, "display_type", None)
    if callable(display):
        try:
            shown = display()
        except TypeError:  # an older Typer: display_type takes the context
            shown = None
    kind = getattr(getattr(param, "type", None), "name", None)
    words = {"str": "text", "text": "text", "int": "whole number", "integer": "whole number", "float": "number",
             "path": "path", "bool": "true or false"}
    name = str(shown or kind or "text")
    return words.get(name.lower(), name)


def _default(param: Any) -> str:
    default = getattr(param, "default", None)
    if getattr(param, "is_flag", False):
        return "off" if not default else "on"
    if default is None or default == () or default == []:
        return "—"
    return f"`{default}`"


def _usage(path: tuple[str, ...], command: Any) -> str:
    pieces = []
    for p in command.params:
        if getattr(p, "hidden", False):
            continue
        if p.param_type_name == "argument":
            name = p.name.upper()
            pieces.append(name if p.required else f"[{name}]")
    if getattr(command, "commands", None):
        pieces.append("COMMAND")
    return " ".join([*path, "[OPTIONS]", *pieces])


def command_markdown(path: tuple[str, ...], command: Any, level: int = 2) -> str:
    """One command's entry: heading, help, usage, arguments and options."""
    lines = [f"{'#' * level} `{' '.join(path)}`", ""]
    help_text = (command.help or "").strip()
    if help_text:
        lines += [help_text.replace("\b\n", "").strip(), ""]
    lines += ["```text", _usage(path, command), "```", ""]
    arguments = [p for p in command.params if p.param_type_name == "argument" and not getattr(p, "hidden", False)]
    options = [p for p in command.params if p.param_type_name == "option" and not getattr(p, "hidden", False)]
    if arguments:
        lines += ["| argument | required | what it is |", "| --- | --- | --- |"]
        for p in arguments:
            required = "yes" if p.required else "no"
            lines.append(f"| `{p.name.upper()}` | {required} | {_cell(getattr(p, 'help', '') or '')} |")
        lines.append("")
    if options:
        lines += ["| option | takes | default | what it does |", "| --- | --- | --- | --- |"]
        for p in options:
            names = ", ".join(f"`{o}`" for o in [*p.opts, *p.secondary_opts])
            lines.append(f"| {names} | {_takes(p)} | {_cell(_default(p))} | {_cell(getattr(p, 'help', '') or '')} |")
        lines.append("")
    subs = getattr(command, "commands", None) or {}
    if subs:
        lines += ["| command | what it does |", "| --- | --- |"]
        for name, sub in subs.items():
            first = (sub.help or "").strip().split("\n")[0]
            lines.append(f"| `{' '.join((*path, name))}` | {_cell(first)} |")
        lines.append("")
    return "\n".join(lines)


def cli_markdown() -> str:
    """The whole CLI reference: every command of ``anonkit``, in ``--help`` order."""
    out = []
    for path, command in walk(app_command()):
        level = 2 if len(path) <= 2 else 3
        out.append(command_markdown(path, command, level))
    return "\n".join(out)
