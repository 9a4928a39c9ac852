"""Every declared parameter refuses its bad values on every face (scikit-learn's check_param_validation idea).

The bad values are derived from the declarations, not written by hand: for every privacy model's
parameter (:mod:`anonkit.models.registry`) and every algorithm option (the fields of its
declaration's options model, :mod:`anonkit.algorithms.registry`), a value out of range, of the wrong
type, not among the choices, a boolean for a number, NaN… Each must be refused by the YAML config
(:func:`anonkit.config.parse_config`, naming the key) and by the Python API (the model's constructor,
naming the parameter; the algorithm's function, naming the option) with an
:class:`~anonkit.errors.InputError`. A good value of every parameter is the control: accepted by both.

A new parameter or option is covered the day it is declared; one whose declaration is too loose for
these values fails here.
"""

from __future__ import annotations

import copy
import math
import types as types_module
import typing
from collections.abc import Iterator
from typing import Any

import annotated_types
import pytest
from pydantic.fields import FieldInfo

from anonkit.algorithms import registry as algorithms
from anonkit.config import parse_config
from anonkit.errors import InputError
from anonkit.models import registry as models
from anonkit.models.spec import ModelSpec, Param

#: a config that parses (nothing is read: parse_config checks the config only)
BASE: dict[str, Any] = {
    "input": {"path": "t.csv"},
    "attributes": {"Age": {"role": "quasi"}, "ZIPCode": {"role": "quasi"}, "Disease": {"role": "sensitive"}},
    "privacy": [{"model": "k-anonymity", "k": 2}],
}


# ------------------------------------------------------------------------------ values from a declaration
def good_value(p: Param) -> object:
    """A value ``p`` takes, from its declaration (its default when it has one)."""
    if not p.required:
        return p.default
    if p.kind == "count":
        return int(max(p.ge or 1, 1)) + 1 if p.le is None or p.le >= 2 else int(p.le)
    if p.kind == "number":
        return p.le / 2 if p.le is not None else 1.5
    if p.kind == "column":
        return "Disease"
    if p.kind == "columns":
        return ["Age"]
    return p.choices[0] if p.kind == "choice" else True


def bad_numbers(whole: bool, gt: float | None, ge: float | None, le: float | None) -> list[object]:
    """Numbers (and non-numbers) a number with these bounds refuses: a boolean, text, nothing, NaN,
    each bound crossed, a fraction for a whole number, infinity when there is an upper bound."""
    out: list[object] = [True, False, "2", None, math.nan]
    if gt is not None:
        out.append(gt)
    if ge is not None:
        out.append(ge - 1 if whole else ge - 0.5)
    if le is not None:
        out += [le + 1 if whole else le + 0.5, math.inf]
    if whole:
        out += [2.5, math.inf]
    return out


def bad_values(p: Param, face: str) -> list[object]:
    """Values ``p`` refuses on ``face`` (``config`` or ``python``): derived from its declaration."""
    if face == "config" and p.words is not None:
        return ["no-such-word", True, 1, None]
    if p.kind in ("count", "number"):  # a model's number is finite
        out = bad_numbers(p.kind == "count", p.gt, p.ge, p.le)
        return out if math.inf in out else [*out, math.inf]
    if p.kind == "flag":
        return ["yes", "no", 1, 0, None]
    if p.kind == "choice":
        return ["no-such-choice", p.choices[0].upper(), 1, True, None]
    if p.kind == "column":
        return [5, True, None, ["Disease"], ""]
    return ["Age", [], [5], 5, True]  # columns


def _chosen(spec: ModelSpec) -> set[str]:
    """The parameters a minimal good entry gives: the required ones and the first of each one-of group
    (the declaration's ``one_of``: exactly one of them must be given)."""
    return {p.name for p in spec.params if p.required} | {group[0] for group in spec.one_of}


def _good(p: Param) -> object:
    return good_value(Param(p.name, p.kind, ge=p.ge, gt=p.gt, le=p.le, choices=p.choices, doc=p.doc)) \
        if not p.required and p.default is None else good_value(p)


def model_entry(spec: ModelSpec) -> dict[str, object]:
    """A ``privacy:`` entry of ``spec`` with a good value of every parameter :func:`_chosen` names."""
    entry: dict[str, object] = {"model": spec.tag}
    for p in spec.params:
        if p.name in _chosen(spec) and p.in_config:
            entry[p.config_key] = _good(p)
    return entry


def model_args(spec: ModelSpec) -> dict[str, object]:
    """Constructor arguments of ``spec`` with a good value of every parameter :func:`_chosen` names."""
    return {p.name: _good(p) for p in spec.params if p.name in _chosen(spec)}


def _not_given(spec: ModelSpec, param: str, bad: object) -> bool:
    """``None`` for a one-of parameter that is not the group's chosen one means "not given": good."""
    return bad is None and any(param in g and param != g[0] for g in spec.one_of)


def _config_cases() -> Iterator[tuple[str, str, str, object]]:
    """``(model, config key path, param, bad value)`` for every model parameter the config gives."""
    for spec in models.models().values():
        for p in spec.params:
            if p.in_config and p.name != "prior":
                for bad in bad_values(p, "config"):
                    if not _not_given(spec, p.name, bad):
                        yield spec.name, p.config_key, p.name, bad
            elif p.name == "bandwidth":  # inside prior: {kind: kernel, bandwidth: B}; null there is the default
                for bad in bad_values(p, "config"):
                    if bad is not None:
                        yield spec.name, "prior.bandwidth", p.name, bad


def _python_cases() -> Iterator[tuple[str, str, object]]:
    for spec in models.models().values():
        for p in spec.params:
            for bad in bad_values(p, "python"):
                if not _not_given(spec, p.name, bad):
                    yield spec.name, p.name, bad


def _put(entry: dict, path: str, value: object) -> None:
    *parents, last = path.split(".")
    node = entry
    for part in parents:
        node = node.setdefault(part, {"kind": "kernel"})
    node[last] = value


def _with_model(entry: dict) -> dict:
    config = copy.deepcopy(BASE)
    config["privacy"].append(entry)
    return config


# ------------------------------------------------------------------------------ privacy models
@pytest.mark.parametrize(("model", "path", "param", "bad"), list(_config_cases()), ids=repr)
def test_the_config_refuses_a_bad_model_parameter(model: str, path: str, param: str, bad: object) -> None:
    entry = model_entry(models.get(model))
    _put(entry, path, bad)
    with pytest.raises(InputError) as info:
        parse_config(_with_model(entry))
    assert f"privacy.1.{path}" in str(info.value), str(info.value)


@pytest.mark.parametrize(("model", "param", "bad"), list(_python_cases()), ids=repr)
def test_the_constructor_refuses_a_bad_model_parameter(model: str, param: str, bad: object) -> None:
    spec = models.get(model)
    p = spec.param(param)
    with pytest.raises(InputError) as info:
        spec.cls(**{**model_args(spec), param: bad})
    assert info.value.key == p.api_name
    assert p.api_name in str(info.value)


@pytest.mark.parametrize("model", list(models.models()))
def test_good_model_parameters_pass_on_both_faces(model: str) -> None:
    """The control: a good value of every parameter (each optional one given explicitly) passes."""
    spec = models.get(model)
    entry = model_entry(spec)
    chosen = _chosen(spec)
    for p in spec.params:
        if p.in_config and not p.required and p.name != "prior" and p.name not in chosen:
            entry[p.config_key] = p.config_default()
    built = parse_config(_with_model(entry)).models()[1]
    assert built == spec.cls(**{p.name: _good(p) if p.name in chosen else good_value(p) for p in spec.params})
    assert type(built).spec is spec and built.name == spec.name


def test_every_model_is_declared_and_described() -> None:
    described = models.describe_all()
    assert [d["name"] for d in described] == list(models.ORDER)
    for d in described:
        spec = models.get(str(d["name"]))
        assert [q["name"] for q in d["params"]] == [p.name for p in spec.params]  # type: ignore[union-attr]
        assert d["record_level"] == ("records" in d["needs"])  # type: ignore[operator]
    assert models.get("background-knowledge").record_level and not models.get("k-anonymity").record_level
    assert models.get("recursive-l-diversity") is models.get("recursive-cl-diversity")
    with pytest.raises(InputError, match="unknown model"):
        models.get("k-anon")


# ------------------------------------------------------------------------------ algorithm options
def _constraints(annotation: object, metadata: list) -> tuple[set[type], tuple, dict[str, float], bool]:
    """``(types, choices, bounds, nullable)`` of an option: its annotation with ``Optional``,
    ``Annotated`` and ``Literal`` unwrapped, and the bounds of its field and of nested fields."""
    types: set[type] = set()
    choices: tuple = ()
    bounds: dict[str, float] = {}
    nullable = False
    stack: list[tuple[object, list]] = [(annotation, list(metadata))]
    while stack:
        ann, meta = stack.pop()
        for m in meta:
            if isinstance(m, FieldInfo):
                stack.append((None, list(m.metadata)))
            for name in ("gt", "ge", "lt", "le"):
                if isinstance(m, getattr(annotated_types, name.capitalize())):
                    bounds[name] = getattr(m, name)
        origin = typing.get_origin(ann)
        if ann is None:
            continue
        if origin is typing.Annotated:
            base, *extra = typing.get_args(ann)
            stack.append((base, extra))
        elif origin is typing.Literal:
            choices += typing.get_args(ann)
        elif origin in (typing.Union, types_module.UnionType):
            stack.extend((a, []) for a in typing.get_args(ann))
        elif ann is type(None):
            nullable = True
        else:
            types.add(origin or ann)  # type: ignore[arg-type]
    return types, choices, bounds, nullable


def option_bad_values(annotation: object, metadata: list) -> list[object]:
    """Values an option refuses, from its annotation and constraints (``None`` unless it is optional)."""
    types, choices, bounds, nullable = _constraints(annotation, metadata)
    if choices:
        out: list[object] = ["no-such-choice", 1, True]
    elif types & {int, float}:
        out = bad_numbers(float not in types, bounds.get("gt"), bounds.get("ge"), bounds.get("le"))
    elif types == {bool}:
        out = ["yes", 1]
    elif types == {str}:
        out = [5, True]
    else:  # mappings and lists
        out = ["text", True, 5]
    return [v for v in out if v is not None] + ([] if nullable else [None])


def _option_cases() -> Iterator[tuple[str, str, object]]:
    for a in algorithms.algorithms().values():
        for name, f in a.options.model_fields.items():
            for bad in option_bad_values(f.annotation, f.metadata):
                yield a.name, f.alias or name, bad


def _required_options(name: str) -> dict[str, object]:
    if name == "safepub":  # one transformation is required (levels, degree or steps)
        return {"degree": "medium"}
    if name == "dp-synthetic":  # the budget and every column's declared domain are required
        return {"epsilon": 1.0, "delta": 1e-6, "domain": {"Age": {"bounds": [0, 100]}}}
    return {"levels": {"Age": 0, "ZIPCode": 0}} if name == "fixed" else {}


@pytest.mark.parametrize(("algorithm", "key", "bad"), list(_option_cases()), ids=repr)
def test_both_faces_refuse_a_bad_algorithm_option(algorithm: str, key: str, bad: object) -> None:
    config = copy.deepcopy(BASE)
    config["algorithm"] = {"name": algorithm, **_required_options(algorithm), key: bad}
    with pytest.raises(InputError) as info:
        parse_config(config)
    assert f"algorithm.{key}" in str(info.value), str(info.value)
    run = algorithms.get_algorithm(algorithm)
    with pytest.raises(InputError) as info:
        run(None, [], **{**_required_options(algorithm), key: bad})  # refused before any work
    assert info.value.key == key, str(info.value)


@pytest.mark.parametrize("algorithm", list(algorithms.algorithms()))
def test_every_option_default_passes_on_both_faces(algorithm: str) -> None:
    """The control: every option given explicitly at its default (or a good value) is accepted."""
    spec = algorithms.get(algorithm)
    given = {f.alias or n: f.default for n, f in spec.options.model_fields.items() if not f.is_required()}
    given.update(_required_options(algorithm))
    config = copy.deepcopy(BASE)
    config["algorithm"] = {"name": algorithm, **given}
    assert parse_config(config).algorithm.options().keys() == spec.validate(given).keys()
