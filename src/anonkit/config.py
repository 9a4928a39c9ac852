"""The YAML configuration, validated with pydantic.

Errors name the key (as a dotted path such as ``privacy.0.k``) and say what is allowed; they are
raised as :class:`~anonkit.errors.InputError`. Paths are relative to the config file.

The config is strict (fail closed: a value anonkit is unsure of is refused, never guessed): a number
is a number (not ``true``, not ``"5"``), finite, and whole where it counts; a key that does not apply
to its model, l-diversity variant, metric, attribute role or input format is refused naming what it
applies to (each is a class of its own: :mod:`anonkit._config_models`, :mod:`anonkit._config_input`);
the YAML is bounded in depth and in size with its aliases expanded (:mod:`anonkit._config_yaml`).
Shape::

    input: {path: adult.csv, separator: ";"}          # or {dataset: adult}
    attributes:
      age: {role: quasi, hierarchy: adult_hierarchy_age.csv}
      occupation: {role: sensitive}
      # several records per person (paper D): one person column, categories on the sensitive one
      # patient: {role: person}
      # diagnosis: {role: sensitive, categories: categories.csv}   # or {Flu: Low, Cancer: Severe, …}
    privacy:
      - {model: k-anonymity, k: 5}
      - {model: t-closeness, attribute: occupation, t: 0.2, distance: equal}
      # background knowledge (spec §1.7, §3): only with algorithm uhra, bka-js or k-primacy
      - {model: background-knowledge, attribute: occupation, J: 0.8, prior: kernel}
      # θ-sensitive k-anonymity (spec §1.5): needs categories on the attribute
      - {model: theta-sensitivity, attribute: diagnosis, k: 4, lambda: 0.5}
    algorithm: {name: fixed, levels: {age: 2}, max_suppression: 0.02,   # see `anonkit algorithms`
                metric: {name: loss, gs: 0.5, aggregate: geometric}}     # or metric: dm
    output: {path: out.csv, suppressed: drop}         # or: mark
    seed: 0
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import ConfigDict, Field, ValidationError, field_validator, model_validator

from anonkit._config_input import (
    ATTRIBUTE_CLASSES,
    INPUT_CLASSES,
    ROLE_NAMES,
    AttributeConfig,
    AttributeSpec,
    BuilderConfig,
    InputConfig,
    InputSpec,
)
from anonkit._config_models import (
    METRIC_ENTRIES,
    MODEL_ENTRIES,
    MODEL_NAMES,
    BackgroundKnowledgeConfig,
    BetaLikenessConfig,
    DeltaDisclosureConfig,
    DistinctLConfig,
    EntropyLConfig,
    FrequencyLConfig,
    KAnonymityConfig,
    LossMetric,
    MetricConfig,
    MetricSpec,
    ModelConfig,
    PriorConfig,
    RecursiveLConfig,
    Strict,
    TClosenessConfig,
    ThetaSensitivityConfig,
)
from anonkit._config_yaml import MAX_CONFIG_DEPTH, MAX_CONFIG_NODES, check_shape, read_yaml, read_yaml_keys
from anonkit.algorithms import registry
from anonkit.algorithms.spec import Algorithm
from anonkit.analytics.post import DEFAULT_RHO
from anonkit.engines import DEFAULT_PARTITION_ROWS
from anonkit.errors import InputError
from anonkit.io import FORMAT_NAMES, check_format
from anonkit.io.registry import formats_taking
from anonkit.metrics import check_skipped
from anonkit.models import Criterion
from anonkit.release import MAX_SEED
from anonkit.risk.thresholds import (
    DEFAULT_ATTACK_RISK,
    DEFAULT_AVERAGE_RISK,
    DEFAULT_HIGHEST_RISK,
    DEFAULT_POPULATION_UNIQUENESS,
)

__all__ = [
    "MAX_CONFIG_DEPTH", "MAX_CONFIG_NODES", "AlgorithmConfig", "AttributeConfig", "AuditConfig", "AuditThresholds",
    "BackgroundKnowledgeConfig", "BetaLikenessConfig", "BuilderConfig", "Config", "DeltaDisclosureConfig",
    "DistinctLConfig", "EntropyLConfig", "FrequencyLConfig", "InputConfig", "KAnonymityConfig", "MeasuresConfig",
    "MetricConfig", "ModelConfig", "OutputConfig", "PostAnalyticsConfig", "PriorConfig", "RecursiveLConfig",
    "SparkConfig",
    "TClosenessConfig", "ThetaSensitivityConfig", "check_shape", "load_config", "parse_config", "read_yaml",
]

_Strict = Strict


class AlgorithmConfig(Strict):
    """``name`` (default: the registry's default algorithm, Flash), ``metric`` (the quality model a
    search optimizes and the summary's ``score`` reports; ``metric: dm`` is short for ``{name: dm}``)
    and the algorithm's own options, as its declaration gives them (``anonkit algorithms`` lists every
    algorithm with its options, their types, ranges and defaults; an option of another algorithm is an
    error naming the key)."""

    model_config = ConfigDict(extra="allow")
    name: str | None = None
    metric: MetricSpec = Field(default_factory=LossMetric)

    @property
    def spec(self) -> Algorithm:
        """The declaration of the algorithm named (an InputError naming the known ones otherwise)."""
        return registry.get(self.name)

    def options(self) -> dict[str, Any]:
        """The options given, validated by the algorithm's declaration (errors name the key)."""
        return self.spec.validate(dict(self.model_extra or {}), where="algorithm.")


class OutputConfig(_Strict):
    path: str | None = None
    format: Literal[FORMAT_NAMES] | None = None  # type: ignore[valid-type]  # the io registry's names
    separator: str = ","
    encoding: str = "utf-8"
    table: str | None = None
    suppressed: Literal["drop", "mark"] = "drop"
    neutralise: bool = True
    #: the private list of fake (noise) records, never published; default beside the output
    manifest: str | None = None
    #: an output SQL table that exists: ``fail`` refuses it, ``replace`` replaces it atomically (files are replaced)
    if_exists: Literal["fail", "replace"] = "fail"
    #: Excel: the sheet to write (default Sheet1)
    sheet: str | None = None
    #: engine: spark: write the Parquet directory in Hive-style sub-directories by these columns
    partition_by: list[str] | None = None

    @model_validator(mode="after")
    def _keys_fit_the_format(self) -> OutputConfig:
        misfit = output_key_misfit(self, self.path)
        if misfit is not None:
            raise ValueError(misfit)
        return self


#: the output keys only some formats read: key → those formats (the others take every format)
OUTPUT_KEYS_FOR: dict[str, tuple[str, ...]] = {key: formats_taking(key) for key in ("separator", "encoding", "table",
                                                                                       "sheet")}


def output_key_misfit(out: OutputConfig, location: str | None) -> str | None:
    """Why a key the config gives under ``output:`` does not apply to the format the output at ``location``
    is written in (``output.format``, else the path's suffix), or None. A location whose format cannot be
    told (a Spark directory, an unknown suffix) is judged where it is written."""
    if location is None:
        return None
    try:
        fmt = check_format(location, out.format)
    except InputError:
        return None
    for key, formats in OUTPUT_KEYS_FOR.items():
        if key in out.model_fields_set and fmt not in formats:
            return (f"'{key}' does not apply to {fmt} output (the format comes from output.format, else from the "
                    f"path's suffix); it applies to {' and '.join(formats)} output only")
    return None


class SparkConfig(_Strict):
    """``spark:``: the Spark session of ``engine: spark`` (:mod:`anonkit.engines.spark`)."""

    #: ``spark.master``: ``local[*]`` (this machine's cores), ``local[2]``, ``spark://host:7077``, ``yarn``…
    master: str = "local[*]"
    #: further Spark settings, e.g. ``{spark.driver.memory: 2g, spark.sql.shuffle.partitions: 64}``
    conf: dict[str, str | int | float | bool] = Field(default_factory=dict)
    #: Mondrian: partitions are cut on Spark until each holds at most this many records
    partition_rows: int = Field(DEFAULT_PARTITION_ROWS, ge=1)


class PostAnalyticsConfig(_Strict):
    """``post_analytics: {critical: [S, …], rho: 0.8, inject_fake: false, seed: 0, manifest: FILE}``
    (paper C §5, spec §4.4): after the anonymization, the leakage of every attribute before and
    after, and the classes in which a critical attribute's most frequent value reaches ``rho``
    (vulnerable to inference); with ``inject_fake`` the fewest fake records that bring those shares
    below ``rho`` are added to the release, and listed in a private ``manifest`` (default: beside the
    output, ``NAME.fakes.csv``) that is never published."""

    critical: list[str] = Field(min_length=1)
    rho: float = Field(DEFAULT_RHO, gt=0, le=1)
    inject_fake: bool = False
    seed: int = Field(0, ge=0, le=MAX_SEED, strict=True)
    manifest: str | None = None


#: ``audit.thresholds.individual_risk``: the highest Benedetti–Franconi individual risk (sdcMicro's measure on
#: survey data with weights) the audit accepts. 0.15 is sdcMicro's own default threshold for individual risk
#: (``localSupp(obj, threshold = 0.15)`` suppresses the records above it), so a release anonkit passes is one
#: sdcMicro's usual workflow would leave alone; it lies between the 0.2 highest prosecutor risk (1/5) and the
#: 0.1 attack risk, and the weights make it an estimate of the population's risk, not the sample's.
DEFAULT_INDIVIDUAL_RISK = 0.15


class AuditThresholds(_Strict):
    """``audit: {thresholds: …}``: what the audit's verdicts compare against (each a share in [0, 1]).

    ``highest_risk`` bounds every record's prosecutor and journalist re-identification risk (and
    defines the records at risk), ``average_risk`` the average prosecutor, journalist and marketer
    risk, ``population_uniqueness`` the estimated share of population uniques, ``attack_risk`` the
    risk estimate of every attack simulation (its upper 95 % bound is reported beside it),
    ``individual_risk`` every record's individual risk (sdcMicro's Benedetti–Franconi estimate, judged
    only when the schema has a ``weight`` or ``household`` column: :data:`DEFAULT_INDIVIDUAL_RISK`)."""

    highest_risk: float = Field(DEFAULT_HIGHEST_RISK, gt=0, le=1)
    average_risk: float = Field(DEFAULT_AVERAGE_RISK, gt=0, le=1)
    population_uniqueness: float = Field(DEFAULT_POPULATION_UNIQUENESS, ge=0, le=1)
    attack_risk: float = Field(DEFAULT_ATTACK_RISK, ge=0, le=1)
    individual_risk: float = Field(DEFAULT_INDIVIDUAL_RISK, gt=0, le=1)


class AuditConfig(_Strict):
    """``audit: {population: N, population_table: FILE, control: FILE, thresholds: {…}, attacks: […],
    seed: 0}``: the risk models and attack simulations run on the release (``anonkit audit`` or after
    ``anonkit anonymize``).

    ``population`` is the size of the population the input was sampled from (default: the input is
    the whole population); ``population_table`` a table of that population (journalist and
    marketer risk are then counted against it); ``control`` records of the same population that are
    not in the release (the held-out control set of the singling-out, linkability and inference
    attacks); ``attacks`` the attacks to run (default: every one that applies); ``targets`` the
    records those three attacks sample; ``required: true`` refuses to write a release one of whose
    verdicts fails."""

    population: int | None = Field(None, ge=1, strict=True)
    population_table: str | None = None
    control: str | None = None
    thresholds: AuditThresholds = Field(default_factory=AuditThresholds)
    attacks: list[str] | None = None
    targets: int = Field(2000, ge=1, strict=True)
    seed: int = Field(0, ge=0, le=MAX_SEED, strict=True)
    #: refuse to write the release when a verdict fails (fail closed on the audit too)
    required: bool = False


class MeasuresConfig(_Strict):
    """``measures: {skip: [record_linkage]}``: the optional measures the run's summary leaves out
    (:data:`anonkit.metrics.OPTIONAL_MEASURES`, each with why it is optional; ``anonkit models`` does not
    list them, this docstring and the configuration reference do). Every default measure is always
    computed; naming one, an unknown measure or one twice is refused in one line listing the known ones.
    The summary names each skipped measure with its reason (``skipped_measures``), and the printed
    summary shows it as "not computed (measures.skip)"."""

    skip: tuple[str, ...] = ()

    @field_validator("skip", mode="before")
    @classmethod
    def _known(cls, value: object) -> tuple[str, ...]:
        try:
            return check_skipped(value, "measures.skip")
        except InputError as exc:
            raise ValueError(exc.message) from None


class Config(_Strict):
    """The whole config. Every input column needs a role under ``attributes`` unless
    ``default_role`` (``insensitive`` or ``quasi``) gives the unlisted ones one (fail closed: an
    unclassified column is never published by accident)."""

    input: InputSpec
    attributes: dict[str, AttributeSpec]
    default_role: Literal["insensitive", "quasi"] | None = None
    privacy: list[ModelConfig] = Field(min_length=1)
    algorithm: AlgorithmConfig = Field(default_factory=AlgorithmConfig)
    output: OutputConfig = Field(default_factory=OutputConfig)
    post_analytics: PostAnalyticsConfig | None = None
    audit: AuditConfig | None = None
    seed: int = Field(0, ge=0, le=MAX_SEED, strict=True)
    #: where the row-level work runs: this process (``local``) or Apache Spark (``spark``, the ``spark`` extra)
    engine: Literal["local", "spark"] = "local"
    spark: SparkConfig | None = None
    #: ``measures: {skip: [record_linkage]}``: optional measures left out of the summary
    measures: MeasuresConfig = Field(default_factory=MeasuresConfig)

    @model_validator(mode="after")
    def _some_quasi(self) -> Config:
        if self.default_role != "quasi" and not any(
            a.role in ("quasi", "qi", "quasi-identifier") for a in self.attributes.values()
        ):
            raise ValueError("at least one attribute needs role 'quasi'")
        return self

    @model_validator(mode="after")
    def _engine_keys(self) -> Config:
        if self.engine != "spark":
            if self.spark is not None:
                raise ValueError("'spark' settings need engine: spark")
            if self.input.path is None and self.input.dataset is None:
                raise ValueError("input.table without input.path names a Spark table: set engine: spark, "
                                 "or give input.path")
            if self.output.partition_by:
                raise ValueError("output.partition_by applies to engine: spark")
        return self

    def models(self) -> list[Criterion]:
        return [m.build() for m in self.privacy]


# ---------------------------------------------------------------------------------------- errors
#: per section holding a union: the position of the union's tag in an error's location, the tags, and
#: the classes (with the name messages give them) that hold each key
def _section(loc: list[Any]) -> tuple[int, str] | None:
    """``(position of the tag, section)`` when ``loc`` passes through one of the config's unions."""
    if loc[:1] == ["input"] and len(loc) > 1 and loc[1] in INPUT_CLASSES:
        return 1, "input"
    if loc[:1] == ["privacy"] and len(loc) > 2 and isinstance(loc[1], int) and loc[2] in _MODEL_TAGS:
        return 2, "privacy"
    if loc[:1] == ["attributes"] and len(loc) > 2 and loc[2] in ROLE_NAMES:
        return 2, "attributes"
    if loc[:2] == ["algorithm", "metric"] and len(loc) > 2 and loc[2] in _METRIC_TAGS:
        return 2, "metric"
    return None


_MODEL_TAGS = {m.spec.tag: m for m in MODEL_ENTRIES}
_METRIC_TAGS = {n: m for m in METRIC_ENTRIES for n in m.model_fields["name"].annotation.__args__}  # type: ignore[union-attr]
_ROLE_TAGS = {r: a for a in ATTRIBUTE_CLASSES for r in a.model_fields["role"].annotation.__args__}  # type: ignore[union-attr]


def _keys(cls: type) -> set[str]:
    return {f.alias or n for n, f in cls.model_fields.items()}  # type: ignore[attr-defined]


def _not_applying(section: str, tag: str, key: str) -> str | None:
    """Why ``key`` is refused under ``tag`` of ``section``: what it applies to (None: to nothing)."""
    if section == "input":
        owners = sorted({c.label for c in INPUT_CLASSES.values() if key in _keys(c) and c.label != "input"})
        here = INPUT_CLASSES[tag].label
        if owners and tag != "any":
            return (f"{key!r} does not apply to {here}; it applies to {' and '.join(owners)} only "
                    "(the format comes from input.format, else from the path's suffix)")
        return None
    if section == "privacy":
        owners = [m.label for m in MODEL_ENTRIES if key in _keys(m)]
        here = _MODEL_TAGS[tag].label
        return f"{key!r} does not apply to {here}; it applies to {_only(owners)}" if owners else None
    if section == "attributes":
        owners = [a.label for a in ATTRIBUTE_CLASSES if key in _keys(a)]
        here = _ROLE_TAGS[tag].label
        return f"{key!r} does not apply to {here}; it applies to {_only(owners)}" if owners else None
    owners = sorted({n for n, m in _METRIC_TAGS.items() if key in _keys(m)})
    return f"{key!r} does not apply to metric {tag}; it applies to metric {_only(owners)}" if owners else None


def _only(owners: list[str]) -> str:
    return owners[0] + " only" if len(owners) == 1 else ", ".join(owners)


def _not_text(value: object, written: str | None = None) -> str:
    """Why a value that should be text is not: what YAML made of it, and to quote it."""
    kind = ("the boolean" if isinstance(value, bool) else "nothing (null)" if value is None
            else "the number" if isinstance(value, int | float) else "a " + type(value).__name__)
    shown = "" if value is None else f" {value!r}"
    if written is not None:
        return f"YAML read {written!r} as {kind}{shown}, not as text: quote it ('{written}')"
    return (f"got {kind}{shown}, not text (YAML reads yes/no/on/off/true/false as booleans, null and ~ as "
            "nothing, bare digits as numbers): quote it")


def _unknown_tag(err: Any, loc: list[Any]) -> str:
    """An unknown model, role or metric (the union's tag): what is allowed; ``loc`` gains the tag's key."""
    given = err.get("ctx", {}).get("tag")
    if loc[:1] == ["privacy"]:
        loc.append("model")
        return f"unknown model {given!r}; allowed: {', '.join(MODEL_NAMES)}"
    if loc[:1] == ["attributes"]:
        loc.append("role")
        return f"got {given!r}; allowed: {', '.join(repr(r) for r in ROLE_NAMES)}"
    if loc[:2] == ["algorithm", "metric"]:
        loc.append("name")
        return f"unknown metric {given!r}; allowed: {', '.join(_METRIC_TAGS)}"
    return f"got {given!r}; allowed: {err.get('ctx', {}).get('expected_tags', '')}"


#: pydantic's errors about a number (or a flag): the type, finiteness and range
_NUMBER_ERRORS = ("int_type", "float_type", "finite_number", "bool_type", "int_from_float", "greater_than",
                  "greater_than_equal", "less_than", "less_than_equal")


def _not_the_number(kind: str, given: object, msg: str) -> str:
    """Why a value is not the number (or flag) the key takes, and what to write."""
    wanted = {"int_type": "a whole number", "float_type": "a number", "finite_number": "a finite number",
              "bool_type": "true or false"}.get(kind)
    msg = f"got {given!r}; " + (f"give {wanted}" if wanted else f"{msg[0].lower()}{msg[1:]}")
    if kind in ("int_type", "float_type") and isinstance(given, bool):
        msg += " (a yes/no is not a number)"
    elif kind in ("int_type", "float_type") and isinstance(given, str):
        msg += " (text is not a number: write the number without quotes)"
    return msg


def _format_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = list(err["loc"])
    found = _section(loc)
    tag = None
    if found is not None:
        tag = loc.pop(found[0])
    key = loc[-1] if loc else None
    msg = err["msg"]
    kind = err["type"]
    if kind == "extra_forbidden":
        why = _not_applying(found[1], str(tag), str(key)) if found is not None and tag is not None else None
        msg = why or f"unknown key {key!r}"
    elif kind == "union_tag_invalid":
        msg = _unknown_tag(err, loc)
    elif kind == "union_tag_not_found":
        name = err.get("ctx", {}).get("discriminator", "").strip("'")
        loc.append(name)
        msg = f"required key {name!r} is missing"
    elif kind == "literal_error" and found is not None and found[1] == "privacy" and key == "variant":
        msg = (f"variant {err.get('input')!r} contradicts model {tag}; drop 'variant', or write model: "
               f"l-diversity with variant: {err.get('input')}")
    elif kind == "literal_error":
        msg = f"got {err.get('input')!r}; " + msg.replace("Input should be", "allowed:")
    elif kind == "missing":
        msg = f"required key {key!r} is missing"
    elif kind == "value_error":
        msg = msg.removeprefix("Value error, ")
        if msg.startswith("l-diversity variant"):
            loc.append("variant")
    elif kind in ("model_type", "model_attributes_type", "dict_type"):
        given = err.get("input")
        msg = f"got {type(given).__name__} {given!r}; give a mapping of keys to values"
    elif kind == "string_type" and (err.get("input") is None or isinstance(err.get("input"), bool | int | float)):
        msg = _not_text(err.get("input"))
    elif kind in _NUMBER_ERRORS:
        msg = _not_the_number(kind, err.get("input"), msg)
    if loc and loc[-1] == "[key]":
        loc.pop()
        msg = f"the key {loc.pop()!r} is not text: {_not_text(err.get('input'))}"
    where = ".".join(str(p) for p in loc)
    extra = f" (and {len(exc.errors()) - 1} more problem(s))" if len(exc.errors()) > 1 else ""
    return f"config key '{where}': {msg}{extra}" if where else f"config: {msg}{extra}"


def _column_names(data: dict, odd_keys: list[tuple[object, str, int]]) -> None:
    """Refuse an attribute whose name YAML did not read as text (``yes:`` is ``True``, ``007:`` is 7,
    ``null:`` is None), naming it as written and saying to quote it."""
    attributes = data.get("attributes")
    if not isinstance(attributes, dict):
        return
    for name in attributes:
        if isinstance(name, str):
            continue
        written = next(((text, line) for value, text, line in odd_keys
                        if value == name and type(value) is type(name)), None)
        at = f" (line {written[1]})" if written else ""
        raise InputError(f"config key 'attributes': the column name{at} is not text: "
                         + _not_text(name, written[0] if written else None))


def parse_config(data: Any, *, source: str | None = None, _odd_keys: list | None = None) -> Config:
    """Validate a config mapping; errors name the key and what is allowed.

    The data is bounded first (:func:`~anonkit._config_yaml.check_shape`: depth, size, no value
    containing itself), so no config hangs or exhausts the recursion limit."""
    if not isinstance(data, dict):
        raise InputError("config must be a mapping of keys to values", file=source)
    try:
        check_shape(data)
        _column_names(data, _odd_keys or [])
    except InputError as exc:
        raise InputError(exc.message, file=source) from None
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        raise InputError(_format_error(exc), file=source) from None
    except InputError as exc:  # a model's own parameter check
        raise InputError(str(exc), file=source) from None
    try:
        config.algorithm.options()  # the algorithm and its options, checked now
    except InputError as exc:
        raise InputError(exc.message, key=exc.key, file=source) from None
    for i, model in enumerate(config.privacy):  # each model checks its own parameters, once
        try:
            model.build()
        except InputError as exc:
            key = next((p.config_key for p in model.spec.params if exc.key == p.api_name and p.in_config), exc.key)
            where = f"privacy.{i}" + (f".{key}" if key else "")
            raise InputError(f"config key '{where}': {exc.message}", file=source) from None
    return config


def load_config(path: str | Path) -> Config:
    """Read and validate a YAML config file."""
    p = Path(path)
    try:
        data, odd_keys = read_yaml_keys(p.read_text(encoding="utf-8"), source=str(p))
    except FileNotFoundError:
        raise InputError("config file not found", file=str(p)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read config: {exc}", file=str(p)) from None
    except yaml.YAMLError as exc:
        raise InputError(f"config is not valid YAML: {' '.join(str(exc).split())}", file=str(p)) from None
    return parse_config(data, source=str(p), _odd_keys=odd_keys)
