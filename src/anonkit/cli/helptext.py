"""How ``--help`` reads: plain text wrapped between whole words at the terminal's width (at most 80
columns), a flag shown as ``--json`` (no ``<bool>``), and a command list giving each command's whole
summary.

Typer's rich help drew the options in a boxed table: every flag read ``--json <bool>``, the
commands' summaries kept the docstrings' line breaks, and a narrow column cut words with ``…``.
Click's plain help (``rich_markup_mode=None``) shows flags as click does; this module adds the two
things it lacks: a wrap that never breaks a word (a word longer than the line stays whole on its
own line, a hyphenated flag or file name is never split at its hyphen) and a command list that
wraps each summary instead of cutting it with ``...``. :class:`HelpGroup` installs both for every
command registered on it, so a new command reads the same without declaring anything.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

#: Typer's help renderer for every ``anonkit`` app: None is click's plain formatter (see above)
MARKUP_MODE = None
#: the widest the option (or command) column of a definition list grows before its text starts below
TERM_COLUMN_MAX = 30
#: spaces between a definition list's two columns
COLUMN_GAP = 2
#: the narrowest a definition's text column gets, however long the option names are
TEXT_COLUMN_MIN = 20


def wrap(text: str, width: int, indent: str = "", hang: str = "") -> list[str]:
    """``text`` as lines of at most ``width`` characters, broken only between words: each paragraph
    (blank-line separated) refilled, paragraphs separated by an empty line; each paragraph's first
    line starts with ``indent``, the others with ``hang``. A word longer than the line is kept whole
    on a line of its own (the only case a line is longer), and a word is never broken at a hyphen,
    so ``--population-table`` or ``NAME-qit.csv`` stay copyable."""
    wrapper = textwrap.TextWrapper(width=max(width, 1), initial_indent=indent, subsequent_indent=hang,
                                   break_long_words=False, break_on_hyphens=False)
    lines: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        words = " ".join(paragraph.split())
        if not words:
            continue
        if lines:
            lines.append("")
        lines.extend(wrapper.wrap(words))
    return lines


def summary(command: Any) -> str:
    """A command's summary in a command list: its ``short_help`` when it declares one, else its help's
    first paragraph, on one line (the list wraps it; nothing is cut)."""
    text = command.short_help or inspect.cleandoc(command.help or "").partition("\f")[0].split("\n\n")[0]
    return " ".join(text.split())


class HelpFormatter(typer.Context.formatter_class):  # type: ignore[misc,name-defined]
    """Click's help formatter with :func:`wrap` for prose and definition lists."""

    def write_text(self, text: str) -> None:
        """A paragraph of prose at the current indentation, wrapped between words."""
        indent = " " * self.current_indent
        for line in wrap(text, self.width - self.current_indent):
            self.write(f"{indent}{line}\n" if line else "\n")

    def write_dl(self, rows: Sequence[tuple[str, str]], col_max: int = TERM_COLUMN_MAX,
                 col_spacing: int = COLUMN_GAP) -> None:
        """Terms (options, commands) and their definitions in two columns: a term longer than
        ``col_max`` has its definition start on the next line; definitions wrap between words."""
        rows = list(rows)
        if not rows:
            return
        indent = " " * self.current_indent
        term_width = min(max(len(term) for term, _ in rows), col_max)
        text_at = self.current_indent + term_width + col_spacing
        text_width = max(self.width - text_at, TEXT_COLUMN_MIN)
        for term, definition in rows:
            lines = wrap(definition, text_width)
            if not lines:
                self.write(f"{indent}{term}\n")
                continue
            if len(term) <= term_width:
                self.write(f"{indent}{term:<{term_width + col_spacing}}{lines[0]}\n")
                lines = lines[1:]
            else:
                self.write(f"{indent}{term}\n")
            for line in lines:
                self.write(f"{' ' * text_at}{line}\n" if line else "\n")


class HelpContext(typer.Context):
    """A context whose help is written by :class:`HelpFormatter`."""

    formatter_class = HelpFormatter


class HelpGroup(TyperGroup):
    """A command group whose help, and every registered command's help, reads as this module says;
    its command list shows each command's whole :func:`summary`, wrapped."""

    context_class = HelpContext

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for command in (self.commands or {}).values():
            if issubclass(HelpContext, command.context_class):  # the default context: give it this help
                command.context_class = HelpContext

    def format_commands(self, ctx: typer.Context, formatter: Any) -> None:
        """The commands, each with its whole summary (click's list cut summaries with ``...``)."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, summary(command)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def declared_help(target: str) -> str | None:
    """The help a command target (``"module:attribute"``) declares, read from its module's source
    without importing the module: a function's docstring (cleaned, as Typer takes it), or the
    ``help=`` text of a ``typer.Typer(…)`` assigned to the name. ``None`` when the source cannot say
    (no source file, no such name, help that is not a plain string): the caller then imports."""
    import ast
    import importlib.util

    module, _, attribute = target.partition(":")
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    with open(spec.origin, encoding="utf-8") as source:
        tree = ast.parse(source.read(), spec.origin)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == attribute:
            return None if node.decorator_list else ast.get_docstring(node)
        named = isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attribute
                                                      for t in node.targets)
        if named and isinstance(node.value, ast.Call):  # type: ignore[union-attr]
            given = [k.value for k in node.value.keywords if k.arg == "help"]  # type: ignore[union-attr]
            if len(given) == 1 and isinstance(given[0], ast.Constant) and isinstance(given[0].value, str):
                return inspect.cleandoc(given[0].value)
    return None


def help_only_group(group: typer.Typer, commands: Sequence[tuple[str, str]]) -> Any:
    """``group`` (``anonkit`` without its commands) as the command whose ``--help`` lists ``commands``
    (name, ``"module:attribute"``) in order, each with the help its source declares
    (:func:`declared_help`), without importing one: a stand-in command per name, which only the help
    reads. The help is the whole command line's byte for byte (``tests/test_fixed_costs.py``).
    ``None`` when a command's help cannot be read so: the caller then loads the whole command line."""
    root = typer.main.get_command(group)
    for name, target in commands:
        text = declared_help(target)
        if text is None:
            return None
        root.add_command(TyperCommand(name=name, help=text, rich_markup_mode=MARKUP_MODE))  # type: ignore[attr-defined]
    return root
