"""The parameters of every hierarchy builder, declared once, as strict pydantic models.

A config builds a hierarchy from the data with ``{builder: NAME, key: value, …}``. Each builder's
model is derived from its function's signature — the names, which are required, the defaults — and
a small table of types and ranges (:data:`_TYPES`), so a key, a type or a range is checked when the
config is read, before any input is: a typo (``widht``), a missing required key, ``width: "five"``,
``fanout: true``, ``top: .inf`` or a negative width is a one-line error naming the key, and a wrong
key names the keys the builder takes. The rules a builder checks without the data (``bottom <
top``, the interval ``label``'s fields, granularities getting coarser, an explicit order listing a
value twice, a whole taxonomy) run here too, through the builder's own checks. What only the data
can tell (a value that is no number, a date format that does not read the column, more mask levels
than characters) stays with the builder.

The builders keep their behaviour: :func:`build` calls the function with exactly the keys the
config gave (validated), so a builder's defaults are written once, in its signature.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, create_model
from pydantic import model_validator as _model_validator
from pydantic_core import PydanticCustomError

from anonkit._values import cell_text, plain_scalars
from anonkit.errors import InputError
from anonkit.hierarchy._core import Hierarchy
from anonkit.hierarchy.builders import bins, dates, frequency, intervals, masking, nested, order, periods, ranges
from anonkit.hierarchy.builders.bins import check_edges
from anonkit.hierarchy.builders.dates import DATE_GRANULARITIES, check_granularities
from anonkit.hierarchy.builders.intervals import check_parameters


# ------------------------------------------------------------------------------------------ types
def _scalar(value: object) -> object:
    """A value of the column as YAML gives it: text or a number, never a yes/no or nothing."""
    if isinstance(value, bool) or value is None:
        raise ValueError(f"got {value!r}, not a value of the column (YAML reads yes/no/true/false as booleans, "
                         "null and ~ as nothing): quote it")
    if not isinstance(value, str | int | float):
        raise ValueError(f"got {type(value).__name__} {value!r}; give a value of the column (text or a number)")
    return value


def _one_granularity_as_list(value: object) -> object:
    """``granularities: year`` is the list ``[year]`` (the builder takes a single one as text too)."""
    return [value] if isinstance(value, str) else value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("give a label that is not blank (a blank cell reads as a missing value)")
    return value


def _taxonomy(value: object) -> object:
    """``nested``'s ``tree``: a non-empty mapping of parents to their children (its shape the builder checks)."""
    if not isinstance(value, dict):
        got = "nothing (null)" if value is None else type(value).__name__
        raise ValueError(f"got {got}; the taxonomy is a mapping of parents to their children "
                         "(e.g. {'*': {Europe: [France, Germany]}})")
    if not value:
        raise ValueError("the taxonomy is empty; give a mapping of parents to their children")
    return value


def _one_char(value: str) -> str:
    if len(value) != 1:
        raise ValueError(f"got {value!r}; give a single character")
    return value


Char = Annotated[str, AfterValidator(_one_char)]
Granularity = Literal[DATE_GRANULARITIES]  # type: ignore[valid-type]

#: per builder, the type (with its range) of every parameter its function takes by keyword, but
#: ``name`` (the attribute's, given by the pipeline); the config key of the data parameter of a
#: builder that takes no column (``nested``'s taxonomy, written under ``tree``) is listed too
_TYPES: dict[str, dict[str, Any]] = {
    "intervals": {
        "width": Annotated[float, Field(gt=0)],
        "levels": Annotated[int, Field(ge=2)] | None,
        "fanout": Annotated[int, Field(ge=2)],
        "bottom": float | None,
        "top": float | None,
        "start": float | None,
        "label": str,
    },
    "masking": {
        "levels": Annotated[int, Field(ge=1)] | None,
        "direction": Literal["right", "left"],
        "char": Char,
        "pad": Char | None,
    },
    "dates": {
        "granularities": Annotated[list[Granularity], BeforeValidator(_one_granularity_as_list), Field(min_length=1)],
        "format": Annotated[str, Field(min_length=1)] | None,
    },
    "order": {
        "sizes": Annotated[list[Annotated[int, Field(ge=1)]], Field(min_length=1)],
        "order": Annotated[list[Annotated[Any, AfterValidator(_scalar)]], Field(min_length=1)] | None,
        "numeric": bool | None,
        "label": Literal["set", "range"],
    },
    "nested": {
        "tree": Annotated[Any, AfterValidator(_taxonomy)],
    },
    "flat": {
        "top": Annotated[str, Field(min_length=1), AfterValidator(_not_blank)],
    },
    "ranges": {
        "method": Literal["width", "frequency"],
        "groups": Annotated[int, Field(ge=2)],
        "fanout": Annotated[int, Field(ge=2)],
        "levels": Annotated[int, Field(ge=2)] | None,
    },
    "periods": {
        "format": Annotated[str, Field(min_length=1)] | None,
    },
    "frequency": {
        "fanout": Annotated[int, Field(ge=2)],
        "levels": Annotated[int, Field(ge=1)] | None,
    },
    "bins": {
        "count": Annotated[int, Field(ge=2)],
        "method": Literal["frequency", "width"],
        "edges": Annotated[list[float], Field(min_length=2)] | None,
    },
}


# ------------------------------------------------------------------------------------------ checks
def _check_intervals(p: dict[str, Any]) -> None:
    check_parameters(width=p["width"], levels=p["levels"], fanout=p["fanout"], bottom=p["bottom"], top=p["top"],
                      label=p["label"], name=None)


def _check_dates(p: dict[str, Any]) -> None:
    check_granularities(p["granularities"], None)


def _check_order(p: dict[str, Any]) -> None:
    texts = [cell_text(v) for v in p["order"] or ()]
    twice = next((t for i, t in enumerate(texts) if t in texts[:i]), None)
    if twice is not None:
        raise InputError("the explicit order lists a value twice; list every value once, lowest first",
                         key="order", value=twice)


def _check_nested(p: dict[str, Any]) -> None:
    """The taxonomy needs no data: built now, a leaf listed twice or a group named as a leaf is refused."""
    try:
        nested(p["tree"])
    except InputError as exc:
        raise InputError(exc.message, key="tree", value=exc.value) from None


def _check_bins(p: dict[str, Any]) -> None:
    if p["edges"] is not None:
        check_edges(p["edges"], None)


#: the checks a builder makes of its parameters without the data, run on every parameter's value
#: (the given one, else the signature's default); an ``InputError`` names the key
_CHECKS: dict[str, Callable[[dict[str, Any]], None]] = {
    "intervals": _check_intervals, "dates": _check_dates, "order": _check_order, "nested": _check_nested,
    "bins": _check_bins,
}


# ------------------------------------------------------------------------------------------ models
@dataclass(frozen=True)
class _Function:
    """A builder's function and the config key giving its first parameter, when that is not the column."""

    call: Callable[..., Hierarchy]
    data_key: str | None = None


BUILDER_FUNCTIONS: dict[str, _Function] = {
    "intervals": _Function(intervals), "masking": _Function(masking), "dates": _Function(dates),
    "order": _Function(order), "nested": _Function(nested, data_key="tree"), "flat": _Function(Hierarchy.flat),
    # built from the data with nothing to choose (anonkit.start writes them for a new table)
    "ranges": _Function(ranges), "periods": _Function(periods), "frequency": _Function(frequency),
    "bins": _Function(bins),
}


class BuilderSpec(BaseModel):
    """``{builder: NAME, …}``: a hierarchy built from the data; the keys besides ``builder`` are the
    builder's parameters (:data:`BUILDER_SPECS` holds each builder's class). Strict, like the rest of
    the config: a key the builder does not take, a number written as text or a yes/no, infinity, a
    value out of range are refused, naming the key."""

    #: ``defer_build``: a builder's validator is made when a config first names that builder (issue 30: a
    #: config without builders makes none of them)
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, defer_build=True)
    builder: str
    #: the builder's name (the value of ``builder``)
    builder_name: ClassVar[str] = ""

    @_model_validator(mode="wrap")
    @classmethod
    def _checked(cls, data: Any, handler: Callable[[Any], BuilderSpec]) -> BuilderSpec:
        try:
            spec = handler(plain_scalars(data))
        except ValidationError as exc:
            raise _worded(exc, cls) from None
        check = _CHECKS.get(cls.builder_name)
        if check is not None:
            try:
                check({k: getattr(spec, k) for k in cls.parameters()})
            except InputError as exc:
                given = f" (value {_shown(exc.value)})" if exc.value is not None else ""
                raise ValidationError.from_exception_data(cls.__name__, [{
                    "type": PydanticCustomError("builder_parameter", "{message}", {"message": exc.message + given}),
                    "loc": (exc.key,) if exc.key else (), "input": getattr(spec, exc.key or "builder")}]) from None
        return spec

    @classmethod
    def parameters(cls) -> list[str]:
        """The keys the builder takes besides ``builder``, in its signature's order."""
        return [k for k in cls.model_fields if k != "builder"]

    @classmethod
    def takes(cls) -> str:
        """The keys the builder takes, as a message lists them (``width (required), levels, …``)."""
        return ", ".join(k + (" (required)" if cls.model_fields[k].is_required() else "") for k in cls.parameters())

    def params(self) -> dict[str, Any]:
        """The parameters the config gives (validated); the others keep the builder's defaults."""
        return {k: getattr(self, k) for k in self.parameters() if k in self.model_fields_set}


def _worded(exc: ValidationError, cls: type[BuilderSpec]) -> ValidationError:
    """``exc`` with an unknown key named first (a typo explains the required key it leaves missing,
    which is then not reported again) and worded with the keys the builder takes."""
    errors = exc.errors()
    unknown = [e for e in errors if e["type"] == "extra_forbidden"]
    meant = {k: difflib.get_close_matches(str(e["loc"][-1]), cls.parameters(), n=1) for e in unknown
             for k in [str(e["loc"][-1])]}
    out: list[Any] = []
    for e in unknown:
        key = str(e["loc"][-1])
        hint = f" (did you mean {meant[key][0]!r}?)" if meant[key] else ""
        out.append({"type": PydanticCustomError("builder_key", "{message}", {
            "message": f"unknown key {key!r} of the {cls.builder_name} builder{hint}; it takes: {cls.takes()}"}),
            "loc": e["loc"], "input": e["input"]})
    typoed = {m[0] for m in meant.values() if m}
    for e in errors:
        if e["type"] == "extra_forbidden":
            continue
        if e["type"] == "missing":
            key = str(e["loc"][-1])
            if key in typoed:
                continue
            message = f"the {cls.builder_name} builder needs {key!r}; it takes: {cls.takes()}"
            out.append({"type": PydanticCustomError("builder_missing", "{message}", {"message": message}),
                        "loc": e["loc"], "input": e["input"]})
        elif e["type"] in _WORDS:
            out.append({"type": PydanticCustomError("builder_value", "{message}", {
                "message": f"got {_shown(e['input'])}; {_WORDS[e['type']](e.get('ctx', {}))}"}),
                "loc": e["loc"], "input": e["input"]})
        else:
            out.append({k: e[k] for k in ("type", "loc", "input", "ctx") if k in e})
    return ValidationError.from_exception_data(exc.title, out)


def _shown(value: object, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters (an error stays one short line)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


#: how a length or list error reads (pydantic's own words say "after validation" or name no example)
_WORDS: dict[str, Callable[[dict[str, Any]], str]] = {
    "too_short": lambda ctx: f"give at least {ctx.get('min_length')} item(s)",
    "too_long": lambda ctx: f"give at most {ctx.get('max_length')} item(s)",
    "string_too_short": lambda ctx: "give some text, not an empty one",
    "list_type": lambda ctx: "give a list ([a, b, …])",
}


def _spec_class(builder: str) -> type[BuilderSpec]:
    """The model of ``builder``: a field per keyword parameter of its function (the data parameter
    under its config key), required when the signature gives no default, else with that default,
    of the type :data:`_TYPES` gives; the signature and the table must list the same names."""
    function = BUILDER_FUNCTIONS[builder]
    parameters = list(inspect.signature(function.call).parameters.values())
    keyword = {p.name: p.default for p in parameters if p.kind is p.KEYWORD_ONLY and p.name != "name"}
    if function.data_key is not None:
        keyword = {function.data_key: inspect.Parameter.empty, **keyword}
    types = _TYPES[builder]
    if list(types) != list(keyword):
        raise TypeError(f"the {builder} builder's parameters {list(keyword)} differ from their types {list(types)}")
    fields: dict[str, Any] = {
        key: (types[key], ... if default is inspect.Parameter.empty else default) for key, default in keyword.items()
    }
    cls = create_model(f"{builder.title()}Builder", __base__=BuilderSpec, __module__=__name__,
                       builder=(Literal[builder], ...), **fields)
    cls.builder_name = builder
    return cls


class _Specs(Mapping[str, type[BuilderSpec]]):
    """Every builder's model by its name, each made (:func:`_spec_class`) the first time it is looked up:
    reading a config costs only the builders it names (issue 30: the bundled job names none; making all
    ten, their signatures read, cost ~7 ms of every run). Iterating or listing the values makes them all."""

    def __init__(self) -> None:
        self._made: dict[str, type[BuilderSpec]] = {}

    def __getitem__(self, name: str) -> type[BuilderSpec]:
        made = self._made.get(name)
        if made is None:
            if name not in BUILDER_FUNCTIONS:
                raise KeyError(name)
            made = self._made[name] = _spec_class(name)
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(BUILDER_FUNCTIONS)

    def __len__(self) -> int:
        return len(BUILDER_FUNCTIONS)

    def __contains__(self, name: object) -> bool:
        return name in BUILDER_FUNCTIONS

    @property
    def made(self) -> tuple[str, ...]:
        """The builders whose model has been made so far, in the order they were."""
        return tuple(self._made)


#: every builder's model, by the name ``builder`` takes (made on first lookup)
BUILDER_SPECS: Mapping[str, type[BuilderSpec]] = _Specs()
BUILDER_NAMES: tuple[str, ...] = tuple(BUILDER_FUNCTIONS)


def build(spec: BuilderSpec, values: object, *, name: str | None = None,
          fallback: dict[str, Any] | None = None) -> Hierarchy:
    """The hierarchy ``spec`` builds over the column ``values`` (``nested``: over its ``tree``) with
    the parameters the spec gives, and ``fallback``'s for those it does not give."""
    function = BUILDER_FUNCTIONS[spec.builder_name]
    given = {**(fallback or {}), **spec.params()}
    if function.data_key is not None:
        return function.call(given.pop(function.data_key), name=name, **given)
    return function.call(values, name=name, **given)
