"""What the reference pages must hold, collected from the code independently of the generators in
docs/hooks/: every command and option of the CLI, every config key (walking the config's pydantic
classes), every algorithm with its options and every privacy model with its parameters.

``missing(text, names)`` lists the names a page does not show as code (`` `name` ``)."""

from __future__ import annotations

import sys
import typing
from pathlib import Path

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / "docs" / "hooks"


def rendered(page: str) -> str:
    """The Markdown of ``docs/<page>`` with its generated parts expanded, as the build makes it."""
    if str(HOOKS) not in sys.path:
        sys.path.insert(0, str(HOOKS))
    import anonkit_docs

    return anonkit_docs.expand((ROOT / "docs" / page).read_text(encoding="utf-8"))


def missing(text: str, names: list[str]) -> list[str]:
    """The names ``text`` does not show as inline code."""
    return [n for n in names if f"`{n}`" not in text]


def cli_entries(command: object = None, path: tuple[str, ...] = ("anonkit",)) -> dict[str, list[str]]:
    """``"anonkit CMD" → its option names`` for every command and sub-command of the app."""
    if command is None:
        import typer.main

        from anonkit.cli import app

        command = typer.main.get_command(app)
    out = {" ".join(path): [o for p in command.params if p.param_type_name == "option" and not p.hidden  # type: ignore[attr-defined]
                            for o in (*p.opts, *p.secondary_opts)]}
    for name, sub in (getattr(command, "commands", None) or {}).items():
        if not getattr(sub, "hidden", False):
            out.update(cli_entries(sub, (*path, name)))
    return out


def _models_in(annotation: object) -> list[type[BaseModel]]:
    """The pydantic classes an annotation holds (through unions, lists, Annotated, Optional)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for a in typing.get_args(annotation) for m in _models_in(a)]


def _walk(cls: type[BaseModel], prefix: str, out: set[str]) -> None:
    for name, f in cls.model_fields.items():
        key = prefix + (f.alias or name)
        out.add(key)
        origin = typing.get_origin(f.annotation)
        inner = _models_in(f.annotation)
        if name == "attributes" and prefix == "":
            inner_prefix = "attributes.NAME."
        elif origin is list and inner:
            inner_prefix = key + "[]."
        else:
            inner_prefix = key + "."
        for sub in inner:
            _walk(sub, inner_prefix, out)


def config_keys() -> list[str]:
    """Every key a config can hold, by its path (``input.separator``, ``privacy[].k``, …)."""
    from anonkit._config_input import ATTRIBUTE_CLASSES, INPUT_CLASSES
    from anonkit.algorithms.registry import algorithms
    from anonkit.config import Config
    from anonkit.hierarchy.builder_params import BUILDER_SPECS

    out: set[str] = set()
    _walk(Config, "", out)
    for cls in INPUT_CLASSES.values():
        _walk(cls, "input.", out)
    for cls in ATTRIBUTE_CLASSES:
        _walk(cls, "attributes.NAME.", out)
    for cls in BUILDER_SPECS.values():
        _walk(cls, "attributes.NAME.hierarchy.", out)
    if "bins" in BUILDER_SPECS:  # a sensitive attribute's categories built from the data
        _walk(BUILDER_SPECS["bins"], "attributes.NAME.categories.", out)
    for algo in algorithms().values():
        out.update(f"algorithm.{f.alias or o}" for o, f in algo.options.model_fields.items())
    return sorted(out)


def algorithm_entries() -> list[str]:
    from anonkit.algorithms.registry import algorithms

    options = {f.alias or o for a in algorithms().values() for o, f in a.options.model_fields.items()}
    return list(algorithms()) + sorted(options)


def model_entries() -> list[str]:
    from anonkit.models.registry import models

    names = [f"model: {s.tag}" for s in models().values()]
    return names + sorted({p.config_key for s in models().values() for p in s.params if p.in_config})
