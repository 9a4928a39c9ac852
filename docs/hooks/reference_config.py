"""The config reference, generated at build time from the config's own declarations.

Every key is read from where the config is declared: the strict pydantic sections of
``anonkit.config`` (``Config``, ``OutputConfig``, ``AuditConfig``, …), ``input:`` one class per format
and ``attributes:`` one class per role (``anonkit._config_input``), the privacy models' entries
generated from their ``@privacy_model`` declarations and the search metrics
(``anonkit._config_models``), the hierarchy builders' parameters
(``anonkit.hierarchy.builder_params``) and the algorithms' options (their ``@algorithm``
declarations). A key's description is the ``#:`` comment above its field, else its declaration's
description. Each key is listed by its full path (``input.separator``, ``privacy[].k``,
``attributes.NAME.hierarchy.width``, ``algorithm.metric.gs``); ``tests/test_docs.py`` fails when
one has no entry.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
import types
import typing
from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined


# ------------------------------------------------------------------------------- reading the classes
@cache
def _comments(cls: type) -> dict[str, str]:
    """The ``#:`` comment above each field of ``cls`` (its bases' too), by field name."""
    found: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if klass.__module__ in ("builtins", "pydantic.main") or klass is BaseModel:
            continue
        try:
            source = textwrap.dedent(inspect.getsource(klass))
        except (OSError, TypeError):
            continue
        lines = source.splitlines()
        tree = ast.parse(source)
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for node in body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                above, i = [], node.lineno - 2
                while i >= 0 and lines[i].strip().startswith("#:"):
                    above.insert(0, lines[i].strip()[2:].strip())
                    i -= 1
                if above:
                    found[node.target.id] = " ".join(above)
    return found


def rst_to_markdown(text: str) -> str:
    """Docstring markup as Markdown: ``x`` and :role:`x` become `x`."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text)
    return text.replace("``", "`")


def _doc(cls: type, *, own: bool = False) -> str:
    """The class's docstring as Markdown; with ``own``, only a docstring the class itself wrote."""
    if own and not vars(cls).get("__doc__"):
        return ""
    doc = inspect.getdoc(cls) or ""
    return "" if doc.startswith("A base class for creating Pydantic models") else rst_to_markdown(doc)


def _type_text(annotation: Any) -> str:
    """An annotation in words: ``one of a, b``, ``text``, ``whole number``, ``list of text``…"""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _type_text(args[0])
    if origin is typing.Literal:
        return "one of " + ", ".join(f"`{a}`" for a in args)
    if origin in (typing.Union, types.UnionType):
        parts = [_type_text(a) for a in args if a is not type(None)]
        return " or ".join(dict.fromkeys(parts))
    if origin in (list, tuple):
        return f"list of {_type_text(args[0])}" if args else "list"
    if origin is dict:
        return "mapping"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "mapping (below)"
    words = {str: "text", int: "whole number", float: "number", bool: "`true` or `false`", dict: "mapping"}
    return words.get(annotation, getattr(annotation, "__name__", str(annotation)))


def _bounds(field: Any) -> str:
    marks = []
    for m in field.metadata:
        for attr, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
            value = getattr(m, attr, None)
            if value is not None:
                marks.append(f"{sign} {value}")
    return f" ({', '.join(marks)})" if marks else ""


def _default(field: Any) -> str:
    if field.is_required():
        return "required"
    value = field.default
    if value is PydanticUndefined:
        factory = field.default_factory
        if factory is None:
            return "—"
        value = factory()
        if isinstance(value, BaseModel):
            return "see below"
    if value is None:
        return "—"
    return f"`{value}`"


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def fields(cls: type[BaseModel], *, skip: tuple[str, ...] = ()) -> list[tuple[str, str, str, str]]:
    """``(key, type, default, description)`` of every field of ``cls``, by its config name (alias)."""
    notes = _comments(cls)
    out = []
    for name, field in cls.model_fields.items():
        key = field.alias or name
        if key in skip:
            continue
        desc = rst_to_markdown(notes.get(name) or field.description or "")
        out.append((key, _type_text(field.annotation) + _bounds(field), _default(field), desc))
    return out


def _table(prefix: str, rows: list[tuple[str, str, str, str]], extra: dict[str, str] | None = None) -> list[str]:
    head = ["| key | takes | default | what it is |", "| --- | --- | --- | --- |"]
    body = []
    for key, kind, default, desc in rows:
        more = (extra or {}).get(key, "")
        text = " — ".join(x for x in (desc, more) if x)
        body.append(f"| `{prefix}{key}` | {_cell(kind)} | {_cell(default)} | {_cell(text)} |")
    return [*head, *body, ""]


# --------------------------------------------------------------------------------------- the sections
def _top() -> list[str]:
    from anonkit.config import Config

    lines = ["## The whole config", "", _doc(Config), ""]
    return lines + _table("", fields(Config))


def _input() -> list[str]:
    from anonkit._config_input import INPUT_CLASSES, InputConfig

    takers: dict[str, list[str]] = {}
    for tag, cls in INPUT_CLASSES.items():
        if tag == "any":
            continue
        for key, *_ in fields(cls):
            takers.setdefault(key, []).append(tag)
    common = {key for key, *_ in fields(InputConfig)}
    extra = {k: "Taken by: " + ", ".join(v) + "." for k, v in takers.items() if k not in common}
    rows, seen = [], set()
    for cls in INPUT_CLASSES.values():
        for row in fields(cls):
            if row[0] not in seen:
                seen.add(row[0])
                rows.append(row)
    lines = ["## `input`", "", _doc(InputConfig), "",
             "The format comes from `input.format`, else from the path's suffix; a key another format takes "
             "is refused naming the key.", ""]
    from anonkit._config_input import SubsetConfig

    return [*lines, *_table("input.", rows, extra), *_subset(SubsetConfig)]


def _subset(cls: type[BaseModel]) -> list[str]:
    """The keys of ``input.subset`` (the research records of a population: k-map, δ-presence)."""
    return ["### `input.subset`", "", _doc(cls), "", *_table("input.subset.", fields(cls))]


def _attributes() -> list[str]:
    from anonkit._config_input import ATTRIBUTE_CLASSES

    lines = ["## `attributes`", "",
             "One entry per column of the input, `NAME: {role: …, …}`. Each role takes only its own keys.", ""]
    rows, takers = [], {}
    for cls in ATTRIBUTE_CLASSES:
        roles = typing.get_args(cls.model_fields["role"].annotation)
        for row in fields(cls):
            takers.setdefault(row[0], []).append(roles[0])
            if row[0] not in [r[0] for r in rows]:
                rows.append(row)
    roles = [a for cls in ATTRIBUTE_CLASSES for a in typing.get_args(cls.model_fields["role"].annotation)]
    rows = [(k, "one of " + ", ".join(f"`{r}`" for r in roles), d, desc) if k == "role" else (k, t, d, desc)
            for k, t, d, desc in rows]
    extra = {k: "Roles: " + ", ".join(v) + "." for k, v in takers.items() if k != "role"}
    lines += _table("attributes.NAME.", rows, extra)
    lines += _built_categories()
    lines += ["| role | what it means |", "| --- | --- |"]
    for cls in ATTRIBUTE_CLASSES:
        names = typing.get_args(cls.model_fields["role"].annotation)
        lines.append(f"| {', '.join(f'`{n}`' for n in names)} | {_cell(cls.label)} |")
    return [*lines, ""]


def _built_categories() -> list[str]:
    """The keys of ``categories: {builder: bins, …}`` (a sensitive numeric attribute cut into ordered
    bins), when the config takes a builder there."""
    from anonkit._config_input import SensitiveAttribute
    from anonkit.hierarchy.builder_params import BUILDER_SPECS, BuilderSpec

    annotation = SensitiveAttribute.model_fields["categories"].annotation
    takes_builder = any(isinstance(a, type) and issubclass(a, BuilderSpec) for a in _flat_args(annotation))
    if not takes_builder or "bins" not in BUILDER_SPECS:
        return []
    return ["### `attributes.NAME.categories` built by `bins`", "",
            "A sensitive numeric attribute's categories cut from the data: `categories: {builder: bins, …}`.", "",
            *_table("attributes.NAME.categories.", fields(BUILDER_SPECS["bins"]))]


def _flat_args(annotation: Any) -> list[Any]:
    args = typing.get_args(annotation)
    return [annotation] if not args else [x for a in args for x in _flat_args(a)]


def _builders() -> list[str]:
    from anonkit.hierarchy.builder_params import BUILDER_SPECS

    lines = ["## `attributes.NAME.hierarchy`", "",
             "A file in ARX's CSV format (a path relative to the config), or a builder: "
             "`hierarchy: {builder: NAME, …}` with the builder's keys below.", ""]
    for name, cls in BUILDER_SPECS.items():
        doc = _doc(cls, own=True)
        lines += [f"### `builder: {name}`", "", doc, ""] if doc else [f"### `builder: {name}`", ""]
        lines += _table("attributes.NAME.hierarchy.", fields(cls))
    return lines


def _privacy() -> list[str]:
    from anonkit._config_models import MODEL_ENTRIES, PriorConfig

    lines = ["## `privacy`", "",
             "A list of models, every one of which the release must meet: `privacy: [{model: NAME, …}, …]`. "
             "See [the models](models.md) for what each guarantees.", ""]
    for entry in MODEL_ENTRIES:
        spec = entry.spec
        descs = {p.config_key: p.doc for p in spec.params}
        rows = [(k, t, d, desc or descs.get(k, "")) for k, t, d, desc in fields(entry)]
        lines += [f"### `model: {spec.tag}`", "", f"{spec.label}: {spec.summary}.", ""]
        lines += _table("privacy[].", rows)
    lines += ["### `privacy[].prior`", "", _doc(PriorConfig), ""]
    lines += _table("privacy[].prior.", fields(PriorConfig))
    return lines


def _algorithm() -> list[str]:
    from anonkit._config_models import METRIC_ENTRIES
    from anonkit.algorithms.registry import algorithms
    from anonkit.config import AlgorithmConfig

    lines = ["## `algorithm`", "", _doc(AlgorithmConfig), ""]
    lines += _table("algorithm.", fields(AlgorithmConfig))
    lines += ["### `algorithm.metric`", "",
              "The quality model a search optimizes: `{name: NAME, …}` or just the name (`metric: dm`).", ""]
    rows, seen = [], set()
    for cls in METRIC_ENTRIES:
        for key, kind, default, desc in fields(cls):
            if key == "name":
                kind, default, desc = "one of the names above", "`loss`", "the metric"
            if key not in seen:
                seen.add(key)
                rows.append((key, kind, default, desc))
    names = [n for cls in METRIC_ENTRIES for n in typing.get_args(cls.model_fields["name"].annotation)]
    lines += ["Names: " + ", ".join(f"`{n}`" for n in names) + ".", ""]
    lines += _table("algorithm.metric.", rows)
    options: dict[str, list[str]] = {}
    for name, algo in algorithms().items():
        for option, f in algo.options.model_fields.items():
            options.setdefault(f.alias or option, []).append(name)
    lines += ["### The algorithms' options", "",
              "Each algorithm takes its own options beside `name` (types, ranges and defaults in "
              "[the algorithms table](algorithms.md)); an option of another algorithm is refused.", "",
              "| key | taken by |", "| --- | --- |"]
    for option in sorted(options):
        lines.append(f"| `algorithm.{option}` | {', '.join(f'`{a}`' for a in options[option])} |")
    return [*lines, ""]


def _simple(title: str, cls: type[BaseModel], prefix: str) -> list[str]:
    return [f"## `{title}`", "", _doc(cls), "", *_table(prefix, fields(cls))]


def config_markdown() -> str:
    """The whole config reference."""
    from anonkit.config import (
        AuditConfig,
        AuditThresholds,
        MeasuresConfig,
        OutputConfig,
        PostAnalyticsConfig,
        SparkConfig,
    )

    lines = [*_top(), *_input(), *_attributes(), *_builders(), *_privacy(), *_algorithm(),
             *_simple("output", OutputConfig, "output."),
             *_simple("post_analytics", PostAnalyticsConfig, "post_analytics."),
             *_simple("audit", AuditConfig, "audit."),
             *_simple("audit.thresholds", AuditThresholds, "audit.thresholds."),
             *_simple("spark", SparkConfig, "spark."),
             *_simple("measures", MeasuresConfig, "measures.")]
    return "\n".join(lines)
