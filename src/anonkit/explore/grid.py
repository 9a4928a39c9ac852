"""The grid of an exploration: ``--vary`` parsed, every combination planned and checked before any run.

A varied key is a numeric parameter of the config's privacy models (``k`` of every model that has
one — k-anonymity, θ-sensitivity —, ``l`` and ``c`` of l-diversity, ``t``, ``beta``, ``delta``,
``J``, ``lambda``) or an option of every algorithm of the grid (``max_suppression``, …; ``anonkit
algorithms`` lists them). A key that is both (``k`` of k-anonymity and of stack-and-deal) varies
the models, and the option too when the config gives it (so the two never disagree).

The grid is the cartesian product of the varied values, for every algorithm. Each algorithm takes
the config's ``algorithm`` options it has (another algorithm's options are left out and noted).
"""

from __future__ import annotations

import itertools
import math
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real

from pydantic import BaseModel, ValidationError

from anonkit.algorithms import registry
from anonkit.algorithms.common import check_models, check_references
from anonkit.algorithms.feasibility import impossible
from anonkit.algorithms.spec import Algorithm
from anonkit.config import Config, ModelConfig
from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.runner.knowledge import resolve_background_knowledge
from anonkit.table import Table

__all__ = [
    "Number",
    "Planned",
    "check_vary",
    "model_keys",
    "option_keys",
    "parse_algorithms",
    "parse_vary",
    "plan",
    "precheck",
    "vary_keys",
]

Number = int | float

#: the config classes of the privacy models (``privacy:`` entries)
_MODEL_CLASSES: tuple[type[BaseModel], ...] = typing.get_args(typing.get_args(ModelConfig)[0])


@dataclass(frozen=True)
class Planned:
    """One run of the grid: the algorithm, the varied values, the models and options they give."""

    algorithm: Algorithm
    params: dict[str, Number]
    models: list[Criterion]
    options: dict[str, object] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The varied values as ``k=5 t=0.2`` (empty when nothing is varied)."""
        return " ".join(f"{k}={_text(v)}" for k, v in self.params.items())

    @property
    def what(self) -> str:
        """The run as a progress bar shows it: ``flash k=5``."""
        return f"{self.algorithm.name} {self.label}".strip()


def _text(v: Number) -> str:
    return str(v) if isinstance(v, int) else f"{v:g}"


# ---------------------------------------------------------------------- which keys exist
def _numeric(annotation: object) -> bool:
    """Whether a field holds a number (``int``, ``float``, possibly ``| None``), not a flag."""
    args = typing.get_args(annotation) or (annotation,)
    kinds = [a for a in args if a is not type(None)]
    return bool(kinds) and all(a in (int, float) for a in kinds)


def _entry_keys(entry: BaseModel | type[BaseModel]) -> dict[str, str]:
    """``config key → field`` of the numeric parameters of a privacy entry (or class); on an entry
    only those it gives a value (``c`` of recursive l-diversity only)."""
    cls = entry if isinstance(entry, type) else type(entry)
    out = {}
    for name, f in cls.model_fields.items():
        if _numeric(f.annotation) and (isinstance(entry, type) or getattr(entry, name) is not None):
            out[f.alias or name] = name
    return out


def model_keys(config: Config | None = None) -> list[str]:
    """The model parameters a grid can vary: of ``config``'s privacy models (default: of every model)."""
    entries: Sequence[BaseModel | type[BaseModel]] = _MODEL_CLASSES if config is None else config.privacy
    return list(dict.fromkeys(k for e in entries for k in _entry_keys(e)))


def option_keys(spec: Algorithm) -> dict[str, str]:
    """``config key → parameter`` of the numeric options of ``spec`` (aliases such as ``lambda``)."""
    return {f.alias or n: n for n, f in spec.options.model_fields.items() if _numeric(f.annotation)}


def vary_keys() -> list[str]:
    """Every key ``--vary`` knows: the models' numeric parameters, then the algorithms' numeric options."""
    keys = model_keys()
    for spec in registry.algorithms().values():
        keys += [k for k in option_keys(spec) if k not in keys]
    return keys


# ---------------------------------------------------------------------- --vary
def _number(text: str, key: str) -> Number:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"--vary {key}: {text!r} is not a number", key="--vary", value=text) from None
    if not math.isfinite(value):
        raise InputError(f"--vary {key}: {text!r} is not a finite number", key="--vary", value=text)
    return value


def parse_vary(items: Sequence[str], config: Config | None = None,
               algorithms: Sequence[str] | None = None) -> dict[str, list[Number]]:
    """``["k=2,5,10", "t=0.1,0.2"]`` → ``{"k": [2, 5, 10], "t": [0.1, 0.2]}``.

    Whole numbers stay ``int``. With ``config`` (and ``algorithms``, default the config's) every key
    is also checked against that grid (:func:`check_vary`).

    Raises
    ------
    InputError
        One line naming the item: no ``=``, an unknown key, a key given twice, an empty list or
        value, a value that is not a finite number or is given twice.
    """
    out: dict[str, list[Number]] = {}
    for item in items:
        key, eq, values = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise InputError("--vary needs KEY=V1,V2,… (e.g. k=2,5,10)", key="--vary", value=item)
        if key in out:
            raise InputError(f"--vary {key} is given twice; list every value once: {key}=V1,V2,…", key="--vary",
                             value=item)
        texts = [t.strip() for t in values.split(",")]
        if texts == [""]:
            raise InputError(f"--vary {key}: no values; give {key}=V1,V2,…", key="--vary", value=item)
        if "" in texts:
            raise InputError(f"--vary {key}: an empty value between commas", key="--vary", value=item)
        out[key] = [_number(t, key) for t in texts]
    return check_vary(out, config, algorithms)


def check_vary(vary: Mapping[str, Sequence[object]], config: Config | None = None,
               algorithms: Sequence[str] | None = None) -> dict[str, list[Number]]:
    """``vary`` checked (known keys, non-empty lists of distinct finite numbers) and, with ``config``,
    every key applying to the grid (:func:`plan` does the rest); a plain dict of lists."""
    known = vary_keys()
    out: dict[str, list[Number]] = {}
    for key, values in vary.items():
        if key not in known:
            raise InputError(f"unknown --vary key {key!r}; known: {', '.join(known)}", key="--vary", value=key)
        if isinstance(values, str | bytes) or not isinstance(values, Sequence) or len(values) == 0:
            raise InputError(f"--vary {key}: give a non-empty list of numbers", key="--vary", value=key)
        numbers: list[Number] = []
        for v in values:
            if isinstance(v, bool) or not isinstance(v, Real) or not math.isfinite(v):
                raise InputError(f"--vary {key}: {v!r} is not a finite number", key="--vary", value=v)
            number = int(v) if isinstance(v, Integral) else float(v)
            if number in numbers:
                raise InputError(f"--vary {key}: the value {number!r} is given twice", key="--vary", value=number)
            numbers.append(number)
        out[key] = numbers
    if config is not None:
        _check_targets(out, config, _specs(config, algorithms))
    return out


def parse_algorithms(text: str | Sequence[str] | None) -> list[str] | None:
    """``"flash,mondrian"`` (or several ``--algorithms`` values) → ``["flash", "mondrian"]``, each known
    and given once; ``None`` for nothing given (the config's algorithm)."""
    if text is None:
        return None
    items = [text] if isinstance(text, str) else list(text)
    names = [n.strip() for item in items for n in item.split(",")]
    if not names or "" in names:
        raise InputError("--algorithms needs names separated by commas (e.g. flash,mondrian)", key="--algorithms",
                         value=",".join(items))
    for name in names:
        try:
            registry.get(name)
        except InputError as exc:
            raise InputError(exc.message, key="--algorithms") from None
    twice = [n for i, n in enumerate(names) if n in names[:i]]
    if twice:
        raise InputError(f"--algorithms names {twice[0]} twice", key="--algorithms", value=twice[0])
    return names


def _specs(config: Config, algorithms: Sequence[str] | None) -> list[Algorithm]:
    """The grid's algorithms (default: the config's), each once."""
    if not algorithms:
        return [config.algorithm.spec]
    out: list[Algorithm] = []
    for name in algorithms:
        try:
            spec = registry.get(name)
        except InputError as exc:
            raise InputError(exc.message, key="--algorithms") from None
        if spec not in out:
            out.append(spec)
    return out


def _check_targets(vary: Mapping[str, list[Number]], config: Config, specs: list[Algorithm]) -> None:
    """Every key is a parameter of the config's models or an option of every algorithm of the grid."""
    params = model_keys(config)
    for key in vary:
        if key in params:
            continue
        lacking = [s for s in specs if key not in option_keys(s)]
        if len(lacking) == len(specs):
            has = ", ".join(params) or "none"
            raise InputError(
                f"--vary {key}: no privacy model of the config has {key!r} (their parameters: {has}) and it is not an "
                f"option of {', '.join(s.name for s in specs)}", key="--vary", value=key,
            )
        if lacking:
            s = lacking[0]
            raise InputError(
                f"--vary {key}: {key!r} is not an option of {s.name} (its numeric options: "
                f"{', '.join(option_keys(s)) or 'none'}); leave {s.name} out of --algorithms", key="--vary", value=key,
            )


# ---------------------------------------------------------------------- the grid
def _models(config: Config, params: Mapping[str, Number], label: str) -> list[Criterion]:
    """The config's models with the varied parameters set (each entry validated as the config is)."""
    out = []
    for i, entry in enumerate(config.privacy):
        keys = _entry_keys(entry)
        update = {k: v for k, v in params.items() if k in keys}
        if update:
            try:
                entry = type(entry).model_validate({**entry.model_dump(by_alias=True), **update})
            except ValidationError as exc:
                err = exc.errors()[0]
                where = ".".join(str(p) for p in err["loc"])
                msg = err["msg"].removeprefix("Value error, ")
                raise InputError(f"--vary {label}: {msg}", key=f"privacy.{i}.{where}" if where else f"privacy.{i}",
                                 value=err.get("input")) from None
        try:
            out.append(entry.build())
        except InputError as exc:
            raise InputError(f"--vary {label}: {exc.message}", key=f"privacy.{i}.{exc.key or ''}".rstrip(".")) from None
    return out


def _base_options(config: Config, spec: Algorithm) -> tuple[dict[str, object], list[str]]:
    """The config's algorithm options that ``spec`` has, and the names of those it has not."""
    given = config.algorithm.options()
    if spec.name == config.algorithm.spec.name:
        return given, []
    fields = spec.options.model_fields
    return {k: v for k, v in given.items() if k in fields}, [k for k in given if k not in fields]


def plan(config: Config, vary: Mapping[str, Sequence[Number]], algorithms: Sequence[str] | None = None
         ) -> tuple[list[Planned], list[str]]:
    """Every run of the grid, checked without the data: the keys, the models each combination gives
    and the algorithm options; and notes (the config's options an algorithm does not take).

    Raises
    ------
    InputError
        The first combination that cannot run, naming the key and value.
    """
    vary = check_vary(vary, config, algorithms)
    specs = _specs(config, algorithms)
    params = model_keys(config)
    combos = [dict(zip(vary, values, strict=True)) for values in itertools.product(*vary.values())]
    models = [_models(config, c, " ".join(f"{k}={_text(v)}" for k, v in c.items())) for c in combos]
    runs: list[Planned] = []
    notes: list[str] = []
    for spec in specs:
        base, dropped = _base_options(config, spec)
        if dropped:
            notes.append(f"{spec.name} does not take the config's option(s) {', '.join(dropped)}: left out")
        keys = option_keys(spec)
        for combo, ms in zip(combos, models, strict=True):
            options = dict(base)
            for k, v in combo.items():
                if k in keys and (k not in params or keys[k] in base):
                    options[keys[k]] = v
            try:
                options = spec.validate(options, where="algorithm.")
            except InputError as exc:
                label = " ".join(f"{k}={_text(v)}" for k, v in combo.items())
                raise InputError(f"--vary {label}: {exc.message}", key=exc.key) from None
            runs.append(Planned(spec, combo, ms, options))
    return runs, notes


def precheck(table: Table, run: Planned) -> None:
    """What :func:`anonkit.anonymize` refuses before it runs, checked for ``run`` on the encoded
    ``table``: a person column and the algorithm, background-knowledge models it cannot enforce,
    classes larger than the table, the algorithm's own input checks.

    Raises
    ------
    InputError
        Naming the run (algorithm and varied values) and what is wrong.
    """
    spec = run.algorithm
    try:
        if "person" in spec.needs and table.person is None:
            raise InputError(f"{spec.name} publishes one row per person and needs a person column", key="attributes")
        if table.person is not None and not spec.persons:
            takers = ", ".join(a.name for a in registry.algorithms().values() if a.persons) or "none yet"
            raise InputError(f"{spec.name} counts records, not persons; with a person column use an algorithm that "
                             f"counts persons ({takers})", key="--algorithms")
        models, _ = resolve_background_knowledge(list(run.models), spec)
        check_references(table, models)
        given = {id(m) for m in models}
        if spec.implies is not None:
            models = spec.implies(table, models, run.options)
        check_models(table, [m for m in models if id(m) in given])  # the given models it keeps, as the runner does
        impossible(table, models, spec, run.options)  # a proof is a run that fails, not an error
    except InputError as exc:
        where = f"{spec.name} ({run.label})" if run.label else spec.name
        raise InputError(f"{where}: {exc.message}", key=exc.key, column=exc.column, value=exc.value) from None
