"""The YAML configuration, validated with pydantic.

Errors name the key (as a dotted path such as ``privacy.0.k``) and say what is allowed; they are
raised as :class:`~anonkit.errors.InputError`. Paths are relative to the config file. Shape::

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
                metric: {name: loss, gs: 0.5, aggregate: geometric}}
    output: {path: out.csv, suppressed: drop}         # or: mark
    seed: 0
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from anonkit.algorithms import registry
from anonkit.algorithms.spec import Algorithm
from anonkit.analytics.post import DEFAULT_RHO
from anonkit.engines import DEFAULT_PARTITION_ROWS
from anonkit.errors import InputError
from anonkit.metrics import SearchMetric
from anonkit.models import (
    BackgroundKnowledge,
    BetaLikeness,
    Criterion,
    DeltaDisclosure,
    DistinctLDiversity,
    EntropyLDiversity,
    FrequencyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    TCloseness,
    ThetaSensitivity,
)
from anonkit.models.theta import DEFAULT_LAMBDA
from anonkit.release import MAX_SEED
from anonkit.risk.thresholds import (
    DEFAULT_ATTACK_RISK,
    DEFAULT_AVERAGE_RISK,
    DEFAULT_HIGHEST_RISK,
    DEFAULT_POPULATION_UNIQUENESS,
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class InputConfig(_Strict):
    path: str | None = None
    dataset: Literal["adult"] | None = None
    format: Literal["csv", "parquet", "sqlite", "postgresql", "excel", "duckdb"] | None = None
    separator: str = ","
    encoding: str = "utf-8"
    table: str | None = None
    query: str | None = None
    na_values: list[str] | None = None
    missing: Literal["value", "suppress", "error"] = "value"
    strip: bool = True
    #: a person whose quasi-identifiers differ between rows: an error, or their first row's values
    person_qi: Literal["error", "first"] = "error"
    #: Excel: the sheet to read (default: the first worksheet)
    sheet: str | None = None
    #: Excel: the sheet's row (1-based) holding the column names; default: the first row holding a value
    header_row: int | None = Field(None, ge=1)
    #: CSV/Parquet read in batches of this many rows into codes (anonkit.io.batches); 0: whole; default: in
    #: batches above 8 MB (CSV, Parquet) or 125,000 rows (Parquet)
    batch_rows: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _one_source(self) -> InputConfig:
        if self.path is None and self.dataset is None and self.table is not None:
            return self  # a table of the Spark catalog (engine: spark)
        if (self.path is None) == (self.dataset is None):
            raise ValueError("give exactly one of 'path' or 'dataset'")
        return self


class BuilderConfig(BaseModel):
    """A hierarchy built from the data (``anonkit.hierarchy.builders``); other keys are the builder's
    parameters, e.g. ``{builder: intervals, width: 5, fanout: 2, top: 80}``."""

    model_config = ConfigDict(extra="allow")
    builder: Literal["intervals", "masking", "dates", "order", "nested", "flat"]

    def params(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class AttributeConfig(_Strict):
    role: Literal[
        "identifier", "id", "person", "individual", "quasi", "qi", "quasi-identifier", "sensitive", "insensitive",
        "other",
    ]
    #: ``None``: inferred from the data (all values numbers → numeric, else categorical)
    type: Literal["categorical", "ordinal", "numeric", "date"] | None = None
    hierarchy: str | BuilderConfig | None = None
    order: list[str] | None = None
    min_level: int = Field(0, ge=0)
    max_level: int | None = Field(None, ge=0)
    weight: float = Field(0.5, ge=0)
    #: sensitive value → category (a mapping, or a CSV file of two columns, value and category, with
    #: a header row), and the categories from lowest to highest (default: paper D's five)
    categories: dict[str, str] | str | None = None
    category_order: list[str] | None = Field(None, min_length=1)

    @field_validator("categories", mode="before")
    @classmethod
    def _category_text(cls, v: Any) -> Any:
        if isinstance(v, dict):
            bad = [k for k, c in v.items() if not isinstance(c, str | int | float) or isinstance(c, bool)]
            if bad:
                raise ValueError(f"the category of {bad[0]!r} must be a name, not {type(v[bad[0]]).__name__}")
            return {str(k): str(c) for k, c in v.items()}
        if v is not None and not isinstance(v, str):
            raise ValueError("give a mapping of values to categories or a CSV file name")
        return v

    @model_validator(mode="after")
    def _categories_on_sensitive(self) -> AttributeConfig:
        if self.categories is not None and self.role != "sensitive":
            raise ValueError("'categories' applies to a sensitive attribute only")
        if self.category_order is not None and self.categories is None:
            raise ValueError("'category_order' needs 'categories'")
        if self.category_order is not None and len(set(self.category_order)) < len(self.category_order):
            raise ValueError("'category_order' lists a category twice")
        return self

    @field_validator("hierarchy", mode="before")
    @classmethod
    def _known_builder(cls, v: Any) -> Any:
        if isinstance(v, dict):
            builders = BuilderConfig.model_fields["builder"].annotation.__args__  # type: ignore[union-attr]
            if "builder" not in v:
                raise ValueError("a built hierarchy needs 'builder' (one of " + ", ".join(builders) + ")")
            if v["builder"] not in builders:
                raise ValueError(f"unknown builder {v['builder']!r}; allowed: {', '.join(builders)}")
        elif v is not None and not isinstance(v, str):
            raise ValueError("give a hierarchy file name or a mapping with 'builder'")
        return v


class KAnonymityConfig(_Strict):
    model: Literal["k-anonymity"]
    k: int = Field(ge=1)
    attributes: list[str] | None = None

    def build(self) -> Criterion:
        return KAnonymity(self.k, tuple(self.attributes) if self.attributes else None)


class LDiversityConfig(_Strict):
    model: Literal["l-diversity", "distinct-l-diversity", "entropy-l-diversity", "recursive-l-diversity",
                   "frequency-l-diversity"]
    attribute: str
    l: float = Field(gt=0)  # noqa: E741
    variant: Literal["distinct", "entropy", "recursive", "frequency"] | None = None
    c: float | None = Field(None, gt=0)
    estimator: Literal["shannon", "grassberger"] = "shannon"

    def _variant(self) -> str:
        implied = {"distinct-l-diversity": "distinct", "entropy-l-diversity": "entropy",
                   "recursive-l-diversity": "recursive", "frequency-l-diversity": "frequency"}.get(self.model)
        return self.variant or implied or "distinct"

    @model_validator(mode="after")
    def _check(self) -> LDiversityConfig:
        if self._variant() == "recursive" and self.c is None:
            raise ValueError("recursive l-diversity needs 'c'")
        return self

    def build(self) -> Criterion:
        v = self._variant()
        if v == "distinct":
            return DistinctLDiversity(self.attribute, self.l)
        if v == "entropy":
            return EntropyLDiversity(self.attribute, self.l, self.estimator)
        if v == "frequency":
            return FrequencyLDiversity(self.attribute, self.l)
        return RecursiveCLDiversity(self.attribute, float(self.c or 0), int(self.l))


class TClosenessConfig(_Strict):
    model: Literal["t-closeness"]
    attribute: str
    t: float = Field(gt=0, le=1)
    distance: Literal["equal", "ordered", "hierarchical"] = "equal"

    def build(self) -> Criterion:
        return TCloseness(self.attribute, self.t, self.distance)


class BetaLikenessConfig(_Strict):
    model: Literal["beta-likeness"]
    attribute: str
    beta: float = Field(gt=0)
    variant: Literal["basic", "enhanced"] = "basic"

    def build(self) -> Criterion:
        return BetaLikeness(self.attribute, self.beta, enhanced=self.variant == "enhanced")


class DeltaDisclosureConfig(_Strict):
    model: Literal["delta-disclosure"]
    attribute: str
    delta: float = Field(gt=0)

    def build(self) -> Criterion:
        return DeltaDisclosure(self.attribute, self.delta)


class ThetaSensitivityConfig(_Strict):
    """``{model: theta-sensitivity, attribute: S, k: 4, lambda: 0.5, distinct: false}`` (spec §1.5;
    paper D): every class has ≥ ``k`` persons and the variance of its category codes reaches
    ``θ = λ · V_full(k)``; ``distinct`` also asks for ``min(k, C)`` distinct categories. The
    attribute needs ``categories``."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    model: Literal["theta-sensitivity"]
    attribute: str
    k: int = Field(ge=1)
    lam: float = Field(DEFAULT_LAMBDA, gt=0, le=1, alias="lambda")
    distinct: bool = False

    def build(self) -> Criterion:
        return ThetaSensitivity(self.attribute, self.k, self.lam, self.distinct)


class PriorConfig(_Strict):
    """Where the adversary's priors ``P(S | QI)`` come from (spec §3).

    * ``{kind: kernel, bandwidth: B, external: FILE}`` — the §3.2 kernel estimate (product
      Epanechnikov kernel, ``bandwidth`` per normalized QI), from the input itself or, with
      ``external``, from another data file holding the same quasi-identifiers and the sensitive
      attribute (read like the input; ``separator`` overrides the input's);
    * ``{kind: classifier, external: FILE}`` — a classifier's ``predict_proba`` (§3 (c)), fitted on
      the input or on ``external``;
    * ``{kind: matrix, path: FILE}`` — priors the user supplies, a table with one column per
      sensitive value (named by the value; values not given get probability 0; every row sums to 1)
      and either one column per quasi-identifier (named by it; one row per distinct QI tuple of the
      input, matched as text) or no QI column at all (then one row per input record, in input order).

    Paths are relative to the config file.
    """

    kind: Literal["kernel", "classifier", "matrix"]
    bandwidth: float | None = Field(None, gt=0)
    external: str | None = None
    path: str | None = None
    separator: str | None = None

    @model_validator(mode="after")
    def _fits_kind(self) -> PriorConfig:
        if self.kind == "matrix":
            if self.path is None:
                raise ValueError("prior kind 'matrix' needs 'path' (the prior table)")
            for key in ("bandwidth", "external"):
                if getattr(self, key) is not None:
                    raise ValueError(f"'{key}' does not apply to prior kind 'matrix'")
        else:
            if self.path is not None:
                raise ValueError(f"'path' applies to prior kind 'matrix' only, not {self.kind} (use 'external')")
            if self.bandwidth is not None and self.kind != "kernel":
                raise ValueError("'bandwidth' applies to prior kind 'kernel' only")
            if self.separator is not None and self.external is None:
                raise ValueError("'separator' applies to an 'external' file only")
        return self


class BackgroundKnowledgeConfig(_Strict):
    """``{model: background-knowledge, attribute: S, J: 0.8, prior: kernel, test: auto, posterior: omega}``
    (spec §1.7; paper A, UHRA): every class keeps the adversary's Jensen–Shannon divergence ≤ ``J``.

    ``prior`` is ``kernel`` (default) or ``classifier``, or a mapping (:class:`PriorConfig`).
    ``test``: ``pairwise`` (every two priors of a class within ``J``, §4.1), ``posterior`` (every
    record's prior–posterior JSD within ``J``, §1.7) or ``auto`` (the algorithm's own guarantee).
    ``posterior``: ``omega`` (Ω-estimate) or ``exact`` (enumeration, classes of ≤ 8 records).
    Only algorithms uhra, bka-js and k-primacy enforce this model.
    """

    model: Literal["background-knowledge"]
    attribute: str
    J: float
    prior: PriorConfig = Field(default_factory=lambda: PriorConfig(kind="kernel"))
    test: Literal["auto", "pairwise", "posterior"] = "auto"
    posterior: Literal["omega", "exact"] = "omega"

    @field_validator("prior", mode="before")
    @classmethod
    def _prior_shorthand(cls, v: Any) -> Any:
        if isinstance(v, str):
            if v == "matrix":
                raise ValueError("prior 'matrix' needs a file: write prior: {kind: matrix, path: FILE}")
            if v not in ("kernel", "classifier"):
                raise ValueError(f"unknown prior {v!r}; allowed: 'kernel', 'classifier' or a mapping with 'kind'")
            return {"kind": v}
        return v

    def build(self) -> Criterion:
        return BackgroundKnowledge(
            self.attribute,
            self.J,
            prior=self.prior.kind,
            **({} if self.prior.bandwidth is None else {"bandwidth": self.prior.bandwidth}),
            test=self.test,
            posterior=self.posterior,
        )


ModelConfig = Annotated[
    KAnonymityConfig
    | LDiversityConfig
    | TClosenessConfig
    | BetaLikenessConfig
    | DeltaDisclosureConfig
    | BackgroundKnowledgeConfig
    | ThetaSensitivityConfig,
    Field(discriminator="model"),
]


class MetricConfig(_Strict):
    name: Literal["loss", "entropy", "dm", "dm*", "aecs", "precision", "height"] = "loss"
    gs: float = Field(0.5, ge=0, le=1)
    aggregate: Literal["sum", "max", "arithmetic", "geometric", "rank"] = "geometric"
    monotonic: bool = True

    def search_metric(self) -> SearchMetric:
        return SearchMetric(self.name, self.gs, self.aggregate, self.monotonic)


class AlgorithmConfig(BaseModel):
    """``name`` (default: the registry's default algorithm, Flash), ``metric`` (the quality model a
    search optimizes and the summary's ``score`` reports) and the algorithm's own options, as its
    declaration gives them (``anonkit algorithms`` lists every algorithm with its options, their
    types, ranges and defaults; an option of another algorithm is an error naming the key)."""

    model_config = ConfigDict(extra="allow")
    name: str | None = None
    metric: MetricConfig = Field(default_factory=MetricConfig)

    @property
    def spec(self) -> Algorithm:
        """The declaration of the algorithm named (an InputError naming the known ones otherwise)."""
        return registry.get(self.name)

    def options(self) -> dict[str, Any]:
        """The options given, validated by the algorithm's declaration (errors name the key)."""
        return self.spec.validate(dict(self.model_extra or {}), where="algorithm.")


class OutputConfig(_Strict):
    path: str | None = None
    format: Literal["csv", "parquet", "sqlite", "postgresql", "excel", "duckdb"] | None = None
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


class AuditThresholds(_Strict):
    """``audit: {thresholds: …}``: what the audit's verdicts compare against (each a share in [0, 1]).

    ``highest_risk`` bounds every record's prosecutor and journalist re-identification risk (and
    defines the records at risk), ``average_risk`` the average prosecutor, journalist and marketer
    risk, ``population_uniqueness`` the estimated share of population uniques, ``attack_risk`` the
    risk estimate of every attack simulation (its upper 95 % bound is reported beside it)."""

    highest_risk: float = Field(DEFAULT_HIGHEST_RISK, gt=0, le=1)
    average_risk: float = Field(DEFAULT_AVERAGE_RISK, gt=0, le=1)
    population_uniqueness: float = Field(DEFAULT_POPULATION_UNIQUENESS, ge=0, le=1)
    attack_risk: float = Field(DEFAULT_ATTACK_RISK, ge=0, le=1)


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


class Config(_Strict):
    """The whole config. Every input column needs a role under ``attributes`` unless
    ``default_role`` (``insensitive`` or ``quasi``) gives the unlisted ones one (fail closed: an
    unclassified column is never published by accident)."""

    input: InputConfig
    attributes: dict[str, AttributeConfig]
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


def _format_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = list(err["loc"])
    if len(loc) > 2 and loc[0] == "privacy" and isinstance(loc[1], int):
        del loc[2]  # the discriminator tag pydantic inserts
    where = ".".join(str(p) for p in loc)
    msg = err["msg"]
    if err["type"] == "extra_forbidden":
        msg = "unknown key"
    elif err["type"] == "union_tag_invalid":
        tags = err.get("ctx", {}).get("expected_tags", "")
        msg = f"unknown model {err['ctx'].get('tag')!r}; allowed: {tags}"
    elif err["type"] == "literal_error":
        msg = f"got {err.get('input')!r}; " + msg.replace("Input should be", "allowed:")
    elif err["type"] == "missing":
        msg = "required key is missing"
    elif err["type"] == "value_error":
        msg = msg.removeprefix("Value error, ")
    extra = f" (and {len(exc.errors()) - 1} more problem(s))" if len(exc.errors()) > 1 else ""
    return f"config key '{where}': {msg}{extra}" if where else f"config: {msg}{extra}"


def parse_config(data: Any, *, source: str | None = None) -> Config:
    """Validate a config mapping; errors name the key and what is allowed."""
    if not isinstance(data, dict):
        raise InputError("config must be a mapping of keys to values", file=source)
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
            where = f"privacy.{i}" + (f".{exc.key}" if exc.key else "")
            raise InputError(f"config key '{where}': {exc.message}", file=source) from None
    return config


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a key given twice in one mapping (YAML would keep the last one
    silently: an identifier listed again as insensitive would be published)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:  # type: ignore[override]
        seen: dict[object, int] = {}
        for key_node, _value in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if isinstance(key, str | int | float | bool) and key in seen:
                raise InputError(
                    f"key {key!r} is given twice in one mapping (lines {seen[key]} and {line}); keep one",
                    file=self.name if isinstance(self.name, str) and self.name != "<unicode string>" else None,
                )
            if isinstance(key, str | int | float | bool):
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


def read_yaml(text: str, *, source: str | None = None) -> Any:
    """Parse YAML text (safe loader; a repeated key is an error naming it and its lines)."""
    loader = _UniqueKeyLoader(text)
    loader.name = source or "<unicode string>"
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def load_config(path: str | Path) -> Config:
    """Read and validate a YAML config file."""
    p = Path(path)
    try:
        data = read_yaml(p.read_text(encoding="utf-8"), source=str(p))
    except FileNotFoundError:
        raise InputError("config file not found", file=str(p)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read config: {exc}", file=str(p)) from None
    except yaml.YAMLError as exc:
        raise InputError(f"config is not valid YAML: {' '.join(str(exc).split())}", file=str(p)) from None
    return parse_config(data, source=str(p))
