"""The declaration of a privacy model: one :func:`privacy_model` decorator beside its class.

Like an algorithm's ``@algorithm`` (:mod:`anonkit.algorithms.spec`), the decorator declares, once,
what every face needs to know about a model:

* its **name** (``Criterion.name``, what algorithms' ``enforces`` lists), its **config name** (the
  ``model:`` of a ``privacy:`` entry) and, for a variant, the family it belongs to (``model:
  l-diversity`` with ``variant: entropy`` is ``entropy-l-diversity``);
* its **parameters** (:class:`Param`): kind (a count, a number, a flag, a choice, a column, a list of
  columns), range or choices, default, the key the config writes it under, and one line of doc.
  The Python constructor (``KAnonymity(5)``) checks its arguments through them
  (:meth:`ModelSpec.check`, called by ``Criterion.__post_init__``) and the config's ``privacy:``
  entry classes are generated from them (:mod:`anonkit._config_models`), so a range is written
  once and both faces refuse the same values, naming the key;
* the **statistics** it judges (:data:`NEEDS`: class sizes, a sensitive histogram, the reference
  distribution, categories, or the records themselves: ``record_level``, judged from each record's
  prior rather than from class statistics);
* its **monotonicity** under generalization (possibly only for some parameter value:
  :class:`When`) and under suppression (ARX's ``Mono(G)``/``Mono(S)``), which a lattice search may
  prune on only where it holds.

The model's check on class statistics is the class's ``passes``/``achieved``. The registry
(:mod:`anonkit.models.registry`) lists every declaration and describes them as JSON.

Faces differ only where Python and YAML differ: the config is strict YAML (``k: 3.0`` is refused,
as YAML writes whole numbers without a point), while Python takes ``KAnonymity(5.0)`` as 5 and numpy
numbers as the numbers they hold; ``True`` for a number is refused by both.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from anonkit import stats as _stats
from anonkit.errors import InputError
from anonkit.stats import NEEDS

if TYPE_CHECKING:
    from anonkit.models.base import Criterion

Kind = Literal["count", "number", "flag", "choice", "column", "columns"]



class _Required:
    """The default of a parameter that has none."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


# ---------------------------------------------------------------------------------- the Python checks
def check_positive(name: str, value: object, *, integer: bool = False, upper: float | None = None) -> float:
    """A model parameter, validated and returned as a plain ``float`` (``int`` with ``integer``).

    Strict, as the config is: a number (a Python or numpy number, not ``True`` and not ``"5"``),
    finite, positive, whole with ``integer`` (``5.0`` is taken as 5) and at most ``upper``. A
    boolean is refused because ``KAnonymity(True)`` would otherwise be 1-anonymity, which protects
    nobody. The error names the parameter and the value."""
    return Param(name, "count" if integer else "number", gt=None if integer else 0, ge=1 if integer else None,
                 le=upper).check(value)  # type: ignore[return-value]


def check_name(name: str, value: object) -> str:
    """A column name a model refers to: text (a number here is usually a parameter given in the
    attribute's place)."""
    return Param(name, "column").check(value)  # type: ignore[return-value]


def check_flag(name: str, value: object) -> bool:
    """A yes/no parameter: ``True`` or ``False`` (not ``"no"``, which Python would take for true)."""
    return Param(name, "flag").check(value)  # type: ignore[return-value]


def check_choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    """One of ``allowed`` (text)."""
    return Param(name, "choice", choices=allowed).check(value)  # type: ignore[return-value]


def _kind_name(value: object) -> str:
    return f"{type(value).__name__} {value!r}"


# ---------------------------------------------------------------------------------- a parameter
@dataclass(frozen=True)
class Param:
    """One parameter of a privacy model, as data.

    ``name`` is the constructor's argument; ``key`` the config key (default ``name``; the sensitive
    attribute is ``attribute``, λ is ``lambda``); ``api`` the name Python errors give (default
    ``name``). Numbers have bounds ``gt``/``ge``/``le``; a ``count`` is a whole number. ``words``
    maps the config's words to the value (β-likeness's ``variant: enhanced`` is ``enhanced=True``).
    ``in_config=False``: the config gives it elsewhere (the prior's ``bandwidth`` inside ``prior:``).
    ``note`` ends the Python message (``(base-2 JSD)``)."""

    name: str
    kind: Kind
    default: Any = REQUIRED
    gt: float | None = None
    ge: float | None = None
    le: float | None = None
    choices: tuple[str, ...] = ()
    key: str | None = None
    api: str | None = None
    doc: str = ""
    note: str = ""
    words: dict[str, Any] | None = None
    in_config: bool = True

    @property
    def config_key(self) -> str:
        return self.key or self.name

    @property
    def api_name(self) -> str:
        return self.api or self.name

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    # ------------------------------------------------------------------ text
    def text(self) -> str:
        """What the parameter takes, as the errors and ``describe`` say it."""
        if self.kind == "flag":
            return "True or False"
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind == "column":
            return "a column name (text)"
        if self.kind == "columns":
            return "a list of quasi-identifier names"
        whole = self.kind == "count"
        noun = "whole number" if whole else "number"
        if self.ge == 0 and self.le is not None and self.gt is None:
            return f"a {noun} in [0, {self.le:g}]"
        positive = self.gt == 0 or (whole and self.ge == 1)
        lower = "" if positive else (f" ≥ {self.ge:g}" if self.ge is not None else
                                     f" > {self.gt:g}" if self.gt is not None else "")
        upper = f" at most {float(self.le)}" if self.le is not None else ""
        return f"a {'positive ' if positive else ''}{noun}{lower}{upper}"

    # ------------------------------------------------------------------ the Python face
    def check(self, value: object) -> object:
        """``value`` checked and normalized (a whole float → ``int`` for a count, numpy → Python);
        an :class:`InputError` naming :attr:`api_name` otherwise."""
        if self.default is None and value is None:
            return None
        name, wanted = self.api_name, self.text() + self.note
        if self.kind in ("count", "number"):
            if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
                raise InputError(f"{name} must be {wanted}, got {_kind_name(value)}", key=name)
            number = float(value)
            ok = (math.isfinite(number) and (self.gt is None or number > self.gt)
                  and (self.ge is None or number >= self.ge) and (self.le is None or number <= self.le)
                  and (self.kind == "number" or number.is_integer()))
            if not ok:
                raise InputError(f"{name} must be {wanted}, got {value!r}", key=name)
            return int(number) if self.kind == "count" else number
        if self.kind == "flag":
            if not isinstance(value, bool | np.bool_):
                raise InputError(f"{name} must be {wanted}, got {_kind_name(value)}", key=name)
            return bool(value)
        if self.kind == "choice":
            if not isinstance(value, str) or value not in self.choices:
                raise InputError(f"{name} must be {wanted}, got {value!r}", key=name)
            return value
        if self.kind == "column":
            if not isinstance(value, str) or not value:
                raise InputError(f"{name} must be {wanted}, got {_kind_name(value)}", key=name)
            return value
        return self._check_columns(value)

    def _check_columns(self, value: object) -> tuple[str, ...]:
        name = self.api_name
        if isinstance(value, str) or not isinstance(value, Iterable):
            raise InputError(f"{name} must be {self.text()}, got {_kind_name(value)}", key=name)
        names = tuple(Param(name, "column").check(a) for a in value)
        if not names:
            raise InputError(f"{name} must name at least one quasi-identifier (None: all of them)", key=name)
        return names  # type: ignore[return-value]

    # ------------------------------------------------------------------ the config face
    def config_annotation(self) -> object:
        """The type the config's pydantic field takes (strict: ``int``, ``float``, ``bool``, …)."""
        if self.words is not None:
            return Literal[tuple(self.words)]
        if self.default is None and self.kind in ("count", "number", "choice"):  # optional: null is the default
            return dataclasses.replace(self, default=REQUIRED).config_annotation() | None
        return {"count": int, "number": float, "flag": bool, "column": str, "columns": list[str] | None,
                "choice": Literal[self.choices] if self.choices else str}[self.kind]

    def config_default(self) -> object:
        """The config's default (``...``: required), in the config's words."""
        if self.required:
            return ...
        if self.words is not None:
            return next(w for w, v in self.words.items() if v == self.default)
        return self.default

    def config_bounds(self) -> dict[str, object]:
        """The pydantic ``Field`` constraints: the bounds, and at least one name in a list."""
        bounds = {k: v for k, v in (("gt", self.gt), ("ge", self.ge), ("le", self.le)) if v is not None}
        return {**bounds, "min_length": 1} if self.kind == "columns" else bounds

    def describe(self) -> dict[str, object]:
        """The parameter as a JSON-able mapping (``anonkit models --json``)."""
        return {
            "name": self.name,
            "key": self.config_key if self.in_config else None,
            "kind": self.kind,
            "type": self.text(),
            "choices": list(self.words or self.choices) or None,
            "required": self.required,
            "default": None if self.required else self.config_default(),
            "description": self.doc,
        }


@dataclass(frozen=True)
class When:
    """A property that holds only when a parameter has a value (entropy l-diversity is monotonic
    under generalization with the Shannon estimator only)."""

    param: str
    value: object

    def holds(self, model: object) -> bool:
        return bool(getattr(model, self.param) == self.value)

    def text(self) -> str:
        return f"when {self.param} is {self.value}"


# ---------------------------------------------------------------------------------- a model
@dataclass(frozen=True)
class ModelSpec:
    """A privacy model's declaration (see the module docstring)."""

    name: str
    cls: type
    label: str
    summary: str
    params: tuple[Param, ...]
    needs: frozenset[str]
    monotonic_generalization: bool | When = True
    monotonic_suppression: bool = True
    record_level: bool = False
    config_name: str | None = None
    variant_of: str | None = None
    variant: str | None = None
    #: ``class``: judged class by class; ``release``: judged on the whole release (a share of its
    #: records, an estimate from its class sizes), after the class models, by ``release_passes``
    scope: Literal["class", "release"] = "class"
    #: groups of optional parameters of which exactly one must be given (``population``, ``region``
    #: or ``sampling_fraction``); the first of a group is the one named when none is
    one_of: tuple[tuple[str, ...], ...] = ()
    #: the parameters by name
    by_name: dict[str, Param] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {p.name: p for p in self.params})
        known = [*NEEDS, *_stats.CLASS_NEED_BUILDERS]  # the built-in statistics and those registered
        unknown = sorted(set(self.needs) - set(known))
        if unknown:
            raise TypeError(f"{self.name}: unknown needs {unknown}; known: {', '.join(known)}")
        if self.record_level != ("records" in self.needs):
            raise TypeError(f"{self.name}: record_level is declared by needs=('records', …)")
        for group in self.one_of:
            loose = [g for g in group if g not in self.by_name or self.by_name[g].required]
            if loose:
                raise TypeError(f"{self.name}: one_of names {loose}, which are not optional parameters")

    @property
    def tag(self) -> str:
        """The config's ``model:`` for this model."""
        return self.config_name or self.name

    def param(self, name: str) -> Param:
        return self.by_name[name]

    def check(self, model: Criterion) -> None:
        """Check and normalize every parameter of ``model`` (in the constructor's order)."""
        for f in dataclasses.fields(model):  # type: ignore[arg-type]
            if f.name in self.by_name:
                object.__setattr__(model, f.name, self.by_name[f.name].check(getattr(model, f.name)))
        for group in self.one_of:
            given = [g for g in group if getattr(model, g) is not None]
            if len(given) != 1:
                names = ", ".join(group[:-1]) + f" or {group[-1]}"
                got = f" (got {', '.join(given)})" if given else ""
                raise InputError(f"{self.name} needs exactly one of {names}{got}",
                                 key=self.by_name[given[-1] if given else group[0]].api_name)

    def monotonic_under_generalization(self, model: object) -> bool:
        m = self.monotonic_generalization
        return m.holds(model) if isinstance(m, When) else bool(m)

    def describe(self) -> dict[str, object]:
        """The model as a JSON-able mapping (``anonkit models --json``)."""
        gen = self.monotonic_generalization
        return {
            "name": self.name,
            "config": {"model": self.tag, **({"or": {"model": self.variant_of, "variant": self.variant}}
                                             if self.variant_of else {})},
            "label": self.label,
            "summary": self.summary,
            "params": [p.describe() for p in self.params],
            "needs": sorted(self.needs),
            "record_level": self.record_level,
            "scope": self.scope,
            "one_of": [list(g) for g in self.one_of],
            "monotonic": {"generalization": gen.text() if isinstance(gen, When) else gen,
                          "suppression": self.monotonic_suppression},
        }


#: every declaration, in the order the modules were imported (the registry orders them)
DECLARED: list[ModelSpec] = []


def privacy_model(
    name: str,
    *,
    label: str,
    summary: str,
    params: Iterable[Param],
    needs: Iterable[str],
    monotonic_generalization: bool | When = True,
    monotonic_suppression: bool = True,
    config_name: str | None = None,
    variant_of: str | None = None,
    variant: str | None = None,
    scope: Literal["class", "release"] = "class",
    one_of: Iterable[tuple[str, ...]] = (),
) -> Callable[[type], type]:
    """Declare the decorated ``Criterion`` dataclass as the privacy model ``name`` (see the module
    docstring). Every constructor argument must be a declared parameter and the reverse, so no
    argument goes unchecked."""

    def declare(cls: type) -> type:
        spec = ModelSpec(name=name, cls=cls, label=label, summary=" ".join(summary.split()), params=tuple(params),
                         needs=frozenset(needs), monotonic_generalization=monotonic_generalization,
                         monotonic_suppression=monotonic_suppression, record_level="records" in set(needs),
                         config_name=config_name, variant_of=variant_of, variant=variant, scope=scope,
                         one_of=tuple(tuple(g) for g in one_of))
        fields = {f.name for f in dataclasses.fields(cls)}
        if fields != set(spec.by_name):
            raise TypeError(f"{name}: the declared parameters {sorted(spec.by_name)} are not the constructor's "
                            f"{sorted(fields)}")
        cls.spec = spec  # type: ignore[attr-defined]
        cls.name = name  # type: ignore[attr-defined]
        DECLARED.append(spec)
        return cls

    return declare
