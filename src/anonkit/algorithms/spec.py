"""The declaration of an algorithm: one :func:`algorithm` decorator beside its code.

Every algorithm is a function ``run(table, models, *, option=default, …) -> Release``. The decorator
declares, once, what the config, the pipeline, the CLI, the experiments and the common test suite
need to know about it:

* its config **name**, its **family** (``lattice``: full-domain generalization; ``search``:
  best-first search; ``partition``; ``cluster``; ``bucket``) and a one-line **summary**;
* its **options**: the keyword-only parameters of the function, with their types, ranges
  (``Annotated[int, Field(ge=1)]``) and defaults — written once, in the signature; the decorator
  turns them into a pydantic model (:attr:`Algorithm.options`) that validates the config and every
  Python call, with errors naming the key;
* which privacy models it **enforces** while it anonymizes (the others it only judges afterwards:
  their failing classes are suppressed), what it **needs** (``priors``: the adversary's background
  knowledge; ``numeric-qi``: numeric quasi-identifiers; ``person``: a person column), whether it
  handles **persons** (several records per person, counted as people: without it a person column
  is refused), and what it **publishes** (one table, or several linked ``tables`` by name);
* whether it is **randomized** (the pipeline then passes its ``seed``), and how to explain its
  failures (``precheck``, ``explain``: algorithm-specific reasons in one line);
* the models its options **imply** (``implies(table, models, options)`` returns the complete list
  the release guarantees and the verifier checks: angelization turns ``k`` and its ``lambda`` into
  θ-sensitive k-anonymity);
* how the independent verifier reads what it publishes when that is not one row per record
  (``verifier(table, release, models)``: the per-person tables of the 1:M algorithms, with the
  schema and the private link they are judged under; the verdict comes from :mod:`anonkit.verifier`
  or :mod:`anonkit.verify_buckets`, never from the algorithm's own bookkeeping).

Parameters the pipeline provides rather than the user (:data:`RUNTIME`: ``seed``, ``priors``,
``metric``) are not options. The registry (:mod:`anonkit.algorithms.registry`) collects the
declarations; adding an algorithm is one module with one decorated function.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Annotated, Any, Literal  # noqa: F401  (evaluated annotations)

from pydantic import BaseModel, ConfigDict, ValidationError, create_model, model_validator

from anonkit._values import plain_scalars
from anonkit.errors import InputError
from anonkit.stats import NODE_NEEDS

if TYPE_CHECKING:
    from anonkit.models import Criterion
    from anonkit.release import Release
    from anonkit.table import Table
    from anonkit.verifier import Verification

Family = Literal["lattice", "search", "partition", "cluster", "bucket", "suppress", "perturb", "synth"]
#: the order families are listed in (``suppress``: cell suppression; ``perturb``: perturbative methods,
#: whose published values are not truthful by design — issue 28; ``synth``: synthetic tables drawn from a
#: model, no row a record — issue 29)
FAMILIES: tuple[str, ...] = ("lattice", "search", "partition", "cluster", "bucket", "suppress", "perturb", "synth")
#: parameters the pipeline provides (never options): the run's seed, the adversary's priors and the
#: quality metric a search optimizes
RUNTIME = frozenset({"seed", "priors", "metric"})
#: ``enforces`` value: every model judged on class statistics (all but record-level models)
CLASS_MODELS = "class models"
#: the families whose algorithms judge full-domain nodes through
#: :func:`anonkit.algorithms.transform.evaluate_node`, which enforces whole-release models (a share of
#: the release's records: average risk, sample and population uniqueness) after the class models
WHOLE_RELEASE_FAMILIES = frozenset({"lattice"})
#: what a family's progress bar counts, unless the declaration says otherwise
FAMILY_PROGRESS = {"lattice": "searching the lattice (checked transformations)"}
#: the families whose published rows are no records (``synth``: rows drawn from a model): no class, no
#: generalization, no search score describes them, so the summary, the audit, the printer, the report and
#: the UI show none of the class figures (:attr:`Algorithm.class_figures`) and say why (:data:`NO_CLASS_FIGURES`)
RECORDLESS_FAMILIES = frozenset({"synth"})
#: why a release of a :data:`RECORDLESS_FAMILIES` family has no class figures (one line, for every reader)
NO_CLASS_FIGURES = ("the class figures (smallest class, prosecutor, journalist and marketer risk, records at risk, "
                    "uniqueness, record linkage, GCP, the search score, classes, generalization) do not apply: no "
                    "published row is a record, so there are no classes; its privacy is judged by the "
                    "nearest-neighbour attacks, its utility by the one- and two-way marginals (TVD)")

class Options(BaseModel):
    """The base of every options model: unknown keys are refused and values are taken strictly (a
    whole number for a number is fine, ``"10"`` or ``True`` for a number is not); numpy scalars
    count as the Python numbers they hold."""

    model_config = ConfigDict(extra="forbid", strict=True, arbitrary_types_allowed=True, populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _plain_numbers(cls, data: Any) -> Any:
        return plain_scalars(data)


Precheck = Callable[["Table", list["Criterion"], Mapping[str, object]], "str | None"]
Explain = Callable[["Table", list["Criterion"], "Release", Mapping[str, object]], "str | None"]
Implies = Callable[["Table", list["Criterion"], Mapping[str, object]], list["Criterion"]]
TablesVerifier = Callable[["Table", "Release", list["Criterion"]], "Verification"]
#: options checked together (one excludes another, one needs another), given the validated options
OptionsCheck = Callable[[Mapping[str, object], str], None]


@dataclass(frozen=True)
class Algorithm:
    """An algorithm's declaration (see the module docstring)."""

    name: str
    family: Family
    summary: str
    run: Callable[..., Release]
    enforces: frozenset[str] | str = CLASS_MODELS
    needs: frozenset[str] = frozenset()
    tables: tuple[str, ...] = ()
    persons: bool = False
    randomized: bool = False
    default: bool = False
    reconstructed: bool = False
    progress: str | None = None
    bk_test: str | None = None
    precheck: Precheck | None = None
    explain: Explain | None = None
    implies: Implies | None = None
    verifier: TablesVerifier | None = None
    #: ``check(options, where)``: options that must be given together or apart, refused (InputError naming
    #: the key, prefixed by ``where``) when the options are validated, before any work
    check: OptionsCheck | None = None
    on_failure: str = "raise algorithm.max_suppression or relax the models"
    label: str | None = None
    #: the engines that run it (:mod:`anonkit.engines`): ``local``, and ``spark`` when its release is a
    #: function of counts Spark can compute (the lattice searches, strict Mondrian)
    engines: frozenset[str] = frozenset({"local"})
    #: an engine on which the algorithm runs its own way rather than through the engine's encode →
    #: run → publish calls, as ``{engine: "module:function"}`` (Mondrian on Spark cuts on Spark); the
    #: runner imports the function when a run asks for that engine
    runners: Mapping[str, str] = field(default_factory=dict, compare=False)
    docs: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    #: the decorated function (validating its options), set by :func:`algorithm`
    entry: Callable[..., Release] | None = field(default=None, compare=False, repr=False)

    # ------------------------------------------------------------------ facts
    @property
    def class_figures(self) -> bool:
        """Whether the release's rows are records grouped in classes, so the class figures (risk,
        uniqueness, GCP, the score, the generalization) describe it: ``False`` for a family of
        :data:`RECORDLESS_FAMILIES` (a synthetic table), declared once by the family."""
        return self.family not in RECORDLESS_FAMILIES

    @property
    def no_model_lever(self) -> str:
        """Why no change of the privacy models can fix this algorithm's release and what to change instead
        (one clause, read by the verdict's advice and the fixes), for an algorithm that enforces no model."""
        if not self.class_figures:
            return (f"{self.name} draws a synthetic table under its own privacy budget and enforces no model on "
                    "classes, so a stronger model changes nothing; lower its epsilon or synthesize fewer or coarser "
                    "columns")
        return (f"{self.name} enforces no privacy model (the audit judges its release), so a stronger model changes "
                "nothing; change its own options or publish the columns that single people out coarsened or "
                "perturbed too")

    @property
    def publishes(self) -> str:
        """``table`` or ``tables`` (linked, named :attr:`tables`)."""
        return "tables" if self.tables else "table"

    @property
    def display(self) -> str:
        """The name papers and reports use (the config name unless a label is declared)."""
        return self.label or self.name

    def enforces_model(self, model: Criterion) -> bool:
        """Whether this algorithm enforces ``model`` (rather than only judging it afterwards)."""
        only = getattr(model, "enforced_by", None)  # a model only its own algorithms enforce (SafePub's DP)
        if only is not None:
            return self.name in only
        if model.spec.record_level:
            return model.name in self.enforces if not isinstance(self.enforces, str) else False
        if model.spec.scope == "release" or model.spec.needs & NODE_NEEDS:
            return self.family in WHOLE_RELEASE_FAMILIES and self.enforces == CLASS_MODELS
        return self.enforces == CLASS_MODELS or model.name in self.enforces

    def refuse_unenforced(self, models: Iterable[Criterion]) -> None:
        """Refuse, before any work, a whole-release model (judged on the release as a whole) or a
        model judging a statistic of the full-domain node (:data:`anonkit.stats.NODE_NEEDS`) this
        algorithm cannot enforce: judged class by class afterwards it would suppress everything."""
        for m in models:
            only = getattr(m, "enforced_by", None)
            if only is not None and self.name not in only:
                raise InputError(f"{m.name} is enforced only by {', '.join(only)} (it samples the records), not "
                                 f"{self.name}: choose algorithm {only[0]}", key="algorithm.name")
            node = bool(m.spec.needs & NODE_NEEDS)
            if (m.spec.scope == "release" or node) and not self.enforces_model(m):
                takers = ", ".join(a.name for a in declared() if a.enforces_model(m))
                what = "at its full-domain transformation" if node else "on the whole release"
                raise InputError(f"{m.name} is judged {what} and enforced only by the full-domain "
                                 f"searches ({takers}), not {self.name}: choose one of them", key="algorithm.name")

    @cached_property
    def parameters(self) -> dict[str, inspect.Parameter]:
        """The function's keyword-only parameters (options and runtime inputs)."""
        return {p.name: p for p in inspect.signature(self.run).parameters.values() if p.kind == p.KEYWORD_ONLY}

    @cached_property
    def runtime(self) -> frozenset[str]:
        """The runtime inputs (:data:`RUNTIME`) this algorithm takes."""
        return frozenset(RUNTIME & set(self.parameters))

    @cached_property
    def options(self) -> type[BaseModel]:
        """A pydantic model of the options: names, types, ranges and defaults from the signature."""
        fields: dict[str, Any] = {}
        for name, p in self.parameters.items():
            if name in RUNTIME:
                continue
            annotation = p.annotation
            if isinstance(annotation, str):
                annotation = eval(annotation, inspect.unwrap(self.run).__globals__)
            fields[name] = (annotation, ... if p.default is inspect.Parameter.empty else p.default)
        model = create_model(f"{self.run.__name__}_options", __base__=Options, **fields)  # type: ignore[call-overload]
        return model  # type: ignore[no-any-return]

    def option_docs(self) -> list[dict[str, object]]:
        """Every option: name, type (as text), default (``None`` when required) and description."""
        schema = self.options.model_json_schema()
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        out = []
        for name, info in self.options.model_fields.items():
            prop = props.get(info.alias or name, {})
            out.append({
                "name": info.alias or name,
                "type": _type_text(prop, schema.get("$defs", {})),
                "default": None if (info.alias or name) in required else info.default,
                "required": (info.alias or name) in required,
                "description": prop.get("description") or self.docs.get(name, ""),
            })
        return out

    # ------------------------------------------------------------------ validation
    def validate(self, given: Mapping[str, object], *, where: str = "") -> dict[str, object]:
        """The options ``given`` (no runtime inputs), validated: converted values, only those given.

        Raises
        ------
        InputError
            An unknown option (the message lists this algorithm's options) or a bad value (naming
            the key, prefixed by ``where``, e.g. ``algorithm.``).
        """
        aliases = {f.alias: n for n, f in self.options.model_fields.items() if f.alias}
        given = {aliases.get(k, k): v for k, v in given.items()}  # a config key (``lambda``) → its parameter
        unknown = [k for k in given if k not in self.options.model_fields]
        if unknown:
            allowed = ", ".join(f.alias or n for n, f in self.options.model_fields.items()) or "none"
            owners = [a.name for a in declared() if unknown[0] in a.options.model_fields]
            elsewhere = f"; it is an option of {', '.join(owners)}" if owners else ""
            raise InputError(f"{unknown[0]!r} is not an option of {self.name} (its options: {allowed}){elsewhere}",
                             key=f"{where}{unknown[0]}")
        try:
            parsed = self.options.model_validate(dict(given))
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = str(err["loc"][0]) if err["loc"] else ""
            loc = self.options.model_fields[loc].alias or loc if loc in self.options.model_fields else loc
            msg = err["msg"]
            if err["type"] == "literal_error":
                msg = f"got {err.get('input')!r}; " + msg.replace("Input should be", "allowed:")
            elif err["type"] == "missing":
                msg = f"{self.name} needs this option"
            else:
                msg = f"got {err.get('input')!r}; {msg[0].lower()}{msg[1:]}"
            raise InputError(f"{self.name} option {loc!r}: {msg}", key=f"{where}{loc}") from None
        options = {k: getattr(parsed, k) for k in parsed.model_fields_set}
        if self.check is not None:
            self.check(options, where)
        return options

    def __call__(self, table: Table, models: Iterable[Criterion], **kwargs: object) -> Release:
        """Run with validated options (runtime inputs pass through)."""
        runtime = {k: kwargs.pop(k) for k in list(kwargs) if k in RUNTIME}
        extra = [k for k in runtime if k not in self.runtime]
        if extra:
            raise InputError(f"{self.name} does not take {extra[0]!r}", key=extra[0])
        return self.run(table, list(models), **self.validate(kwargs), **runtime)


def algorithm(
    name: str,
    *,
    family: Family,
    summary: str,
    enforces: Iterable[str] | str = CLASS_MODELS,
    needs: Iterable[str] = (),
    tables: Iterable[str] = (),
    persons: bool = False,
    randomized: bool = False,
    default: bool = False,
    reconstructed: bool = False,
    progress: str | None = None,
    bk_test: str | None = None,
    precheck: Precheck | None = None,
    explain: Explain | None = None,
    implies: Implies | None = None,
    verifier: TablesVerifier | None = None,
    check: OptionsCheck | None = None,
    on_failure: str | None = None,
    label: str | None = None,
    engines: Iterable[str] = ("local",),
    runners: Mapping[str, str] | None = None,
) -> Callable[[Callable[..., Release]], Callable[..., Release]]:
    """Declare the decorated function as the algorithm ``name`` (see the module docstring).

    The function returned validates its options on every call (:meth:`Algorithm.validate`) and
    carries the declaration as ``.spec``.
    """

    def declare(run: Callable[..., Release]) -> Callable[..., Release]:
        spec = Algorithm(
            name=name,
            family=family,
            summary=" ".join(summary.split()),
            run=run,
            enforces=enforces if isinstance(enforces, str) else frozenset(enforces),
            needs=frozenset(needs),
            tables=tuple(tables),
            persons=persons,
            randomized=randomized,
            default=default,
            reconstructed=reconstructed,
            progress=progress if progress is not None else FAMILY_PROGRESS.get(family),
            bk_test=bk_test,
            precheck=precheck,
            explain=explain,
            implies=implies,
            verifier=verifier,
            check=check,
            on_failure=on_failure or Algorithm.on_failure,
            label=label,
            engines=frozenset(engines),
            runners=dict(runners or {}),
            docs=_parameter_docs(run.__doc__ or ""),
        )
        if randomized and "seed" not in spec.parameters:
            raise TypeError(f"{name}: a randomized algorithm takes a keyword-only 'seed'")

        @functools.wraps(run)
        def validated(table: Table, models: Iterable[Criterion], **kwargs: object) -> Release:
            return spec(table, models, **kwargs)

        validated.spec = spec  # type: ignore[attr-defined]
        object.__setattr__(spec, "entry", validated)
        _DECLARED[name] = spec
        return validated

    return declare


#: every algorithm declared so far, by name (the registry imports every family, so after its walk all
#: of them; a declaration reads the others here, never through the registry above it)
_DECLARED: dict[str, Algorithm] = {}


#: the registry's walk of every family (:func:`anonkit.algorithms.registry.algorithms`), handed down by the
#: registry when it loads: the registry imports a family only when asked, so a list of the others walks first
_WALK: list[Callable[[], object]] = []


def walk_all(walk: Callable[[], object]) -> None:
    """Let :func:`declared` walk every family first (the registry calls it once, at import)."""
    _WALK[:] = [walk]


def declared() -> list[Algorithm]:
    """Every algorithm, in the registry's order: the registry walks the families first (it loads them
    lazily, :mod:`anonkit.algorithms.registry`), so a message naming the algorithms that take a model or
    an option names all of them whatever a job has loaded."""
    for walk in _WALK:
        walk()
    return list(_DECLARED.values())


def in_order(specs: list[Algorithm]) -> None:
    """Put :func:`declared` in the registry's order (the registry calls it after its walk)."""
    rest = [a for a in _DECLARED.values() if a not in specs]
    _DECLARED.clear()
    _DECLARED.update((a.name, a) for a in [*specs, *rest])


def _parameter_docs(doc: str) -> dict[str, str]:
    """``name: description`` of a numpy-style ``Parameters`` section (first sentence of each)."""
    text = inspect.cleandoc(doc)
    section = re.search(r"Parameters\n-+\n(.*?)(?:\n\n[A-Z][a-z]+\n-+\n|\Z)", text, re.S)
    if not section:
        return {}
    out: dict[str, str] = {}
    current: list[str] = []
    names: list[str] = []
    for line in section.group(1).splitlines():
        if line and not line.startswith(" "):
            for n in names:
                out[n] = " ".join(current).split(". ")[0].rstrip(".")
            names = [n.strip() for n in line.split(":")[0].split(",")]
            current = []
        else:
            current.append(line.strip())
    for n in names:
        out[n] = " ".join(current).split(". ")[0].rstrip(".")
    return out


def _type_text(prop: dict, defs: dict) -> str:
    """A JSON-schema property as a short type text: ``strict | relaxed``, ``number in [0, 1]``…"""
    if "$ref" in prop:
        prop = defs.get(prop["$ref"].rsplit("/", 1)[-1], {})
    if "enum" in prop:
        return " | ".join(str(v) for v in prop["enum"])
    if "const" in prop:
        return str(prop["const"])
    if "anyOf" in prop:
        parts = [_type_text(p, defs) for p in prop["anyOf"]]
        return " | ".join(p for p in parts if p != "null") + (" (or none)" if "null" in parts else "")
    kind = {"integer": "whole number", "number": "number", "boolean": "true | false", "string": "text",
            "object": "mapping", "array": "list", "null": "null"}.get(prop.get("type", ""), prop.get("type", "value"))
    lo = prop.get("minimum", prop.get("exclusiveMinimum"))
    hi = prop.get("maximum", prop.get("exclusiveMaximum"))
    if lo is not None and hi is not None:
        left = "(" if "exclusiveMinimum" in prop else "["
        right = ")" if "exclusiveMaximum" in prop else "]"
        return f"{kind} in {left}{lo:g}, {hi:g}{right}"
    if lo is not None:
        return f"{kind} {'>' if 'exclusiveMinimum' in prop else '≥'} {lo:g}"
    if hi is not None:
        return f"{kind} {'<' if 'exclusiveMaximum' in prop else '≤'} {hi:g}"
    return kind
