"""The config's privacy models (``privacy:``) and search metric (``algorithm.metric``), one class each.

The rule "a key that does not apply is refused" follows from the classes, not from checks: every
model and every l-diversity *variant* is a class of its own holding exactly its keys, the entries
form a union discriminated by ``model`` (``model: l-diversity`` with ``variant: entropy`` is read as
``model: entropy-l-diversity``), and :class:`Strict` forbids extra keys and takes values strictly: a
number must be a number (not ``true``, not ``"5"``), finite (not ``.inf`` or ``.nan``), and a whole
number where the model counts (``k``, recursive ``l``). So ``c`` on distinct l-diversity, ``estimator``
on recursive l-diversity or ``variant: distinct`` under ``model: entropy-l-diversity`` are refused
naming the key, where they used to be ignored.

:data:`APPLIES` tells, per union, which classes hold a key, so an error can say what a refused key
applies to.
"""

from __future__ import annotations

import keyword
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, create_model, field_validator, model_validator

from anonkit._values import plain_scalars
from anonkit.metrics import SearchMetric
from anonkit.models import BackgroundKnowledge, Criterion
from anonkit.models.registry import config_names, models, variants
from anonkit.models.spec import ModelSpec, Param


class Strict(BaseModel):
    """A config section: unknown keys refused, values taken strictly (no ``true`` or ``"5"`` for a
    number, no ``5.5`` for a whole number, no infinity or NaN); numpy scalars count as the Python
    numbers they hold (config data built in Python).

    ``defer_build``: no section makes its own validator when its class is defined, only when it is first
    used; the whole config's validator (:class:`~anonkit.config.Config`) holds every section's schema, so
    a run makes that one instead of ~75 (issue 30: ~15 ms of every run's imports)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, defer_build=True)

    @model_validator(mode="before")
    @classmethod
    def _plain_numbers(cls, data: Any) -> Any:
        return plain_scalars(data)


# ------------------------------------------------------------------------------------ privacy models
class ModelEntry(Strict):
    """A ``privacy:`` entry: :meth:`build` makes its :class:`~anonkit.models.Criterion`.

    The entry classes are generated from the models' declarations (:func:`model_entry`): a field per
    declared parameter the config gives, with the declared type, range, choices and default."""

    model_config = ConfigDict(populate_by_name=True)  # λ is ``lambda`` in the config and ``lam`` in Python
    #: the model's name in messages
    label: ClassVar[str] = "privacy model"
    #: the model's declaration
    spec: ClassVar[ModelSpec]

    def build(self) -> Criterion:
        """The model, built through its constructor (which checks every argument once more)."""
        args = {}
        for p in self.spec.params:
            if p.in_config:
                value = getattr(self, _field_name(p))
                args[p.name] = p.words[value] if p.words is not None else value
        return self.spec.cls(**{**args, **self._more()})  # type: ignore[no-any-return]

    def _more(self) -> dict[str, Any]:
        """Constructor arguments the config gives in its own shape (the prior of background knowledge);
        they replace the fields of the same name."""
        return {}


def _field_name(p: Param) -> str:
    """The entry's field of ``p``: its config key, unless that is not a Python name (``lambda``)."""
    key = p.config_key
    return key if key.isidentifier() and not keyword.iskeyword(key) else p.name


def model_entry(name: str, spec: ModelSpec, *, base: type[ModelEntry] = ModelEntry, doc: str = "",
                fields: dict[str, tuple[Any, Any]] | None = None) -> type[ModelEntry]:
    """The ``privacy:`` entry class ``name`` of ``spec``: ``model`` (and ``variant`` for a family's variant)
    and a field per declared parameter the config gives, in the declaration's order (the sensitive
    ``attribute`` first); ``fields`` replaces a parameter's field by one of the config's own shape."""
    made: dict[str, tuple[Any, Any]] = {}
    for p in spec.params:
        if p.kind == "column" and not made:
            made[_field_name(p)] = (str, ...)
        made.setdefault("model", (Literal[spec.tag], ...))  # type: ignore[misc]
        if spec.variant:
            made.setdefault("variant", (Literal[spec.variant] | None, None))  # type: ignore[misc]
        if (p.kind == "column" and _field_name(p) in made) or not p.in_config:
            continue
        if fields and p.name in fields:
            made[p.name] = fields[p.name]
            continue
        field = _field_name(p)
        alias = {"alias": p.config_key} if field != p.config_key else {}
        made[field] = (p.config_annotation(), Field(p.config_default(), **p.config_bounds(), **alias))
    entry = create_model(name, __base__=base, __module__=__name__,  # type: ignore[call-overload]
                         __doc__=doc or f"``{{model: {spec.tag}, …}}``: {spec.summary}.", **made)
    entry.label = spec.label
    entry.spec = spec
    return entry  # type: ignore[no-any-return]


#: the prior's declaration (kinds, bandwidth), read by :class:`PriorConfig`
_PRIOR = BackgroundKnowledge.spec.param("prior")
_BANDWIDTH = BackgroundKnowledge.spec.param("bandwidth")


class PriorConfig(Strict):
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

    kind: _PRIOR.config_annotation()  # type: ignore[valid-type]
    bandwidth: float | None = Field(None, **_BANDWIDTH.config_bounds())
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


class _BackgroundKnowledgeEntry(ModelEntry):
    """The config's shape of the prior: ``prior: kernel`` or a mapping (:class:`PriorConfig`)."""

    @field_validator("prior", mode="before", check_fields=False)
    @classmethod
    def _prior_shorthand(cls, v: Any) -> Any:
        if isinstance(v, str):
            if v == "matrix":
                raise ValueError("prior 'matrix' needs a file: write prior: {kind: matrix, path: FILE}")
            if v not in ("kernel", "classifier"):
                raise ValueError(f"unknown prior {v!r}; allowed: 'kernel', 'classifier' or a mapping with 'kind'")
            return {"kind": v}
        return v

    def _more(self) -> dict[str, Any]:
        prior: PriorConfig = self.prior  # type: ignore[attr-defined]
        return {"prior": prior.kind, **({} if prior.bandwidth is None else {"bandwidth": prior.bandwidth})}


_SPECS = models()
KAnonymityConfig = model_entry("KAnonymityConfig", _SPECS["k-anonymity"])
DistinctLConfig = model_entry("DistinctLConfig", _SPECS["distinct-l-diversity"])
EntropyLConfig = model_entry("EntropyLConfig", _SPECS["entropy-l-diversity"])
RecursiveLConfig = model_entry(
    "RecursiveLConfig", _SPECS["recursive-cl-diversity"],
    doc="Recursive (c, l)-diversity: ``l`` counts values, so it is a whole number, and ``c`` is required.")
FrequencyLConfig = model_entry("FrequencyLConfig", _SPECS["frequency-l-diversity"])
TClosenessConfig = model_entry("TClosenessConfig", _SPECS["t-closeness"])
BetaLikenessConfig = model_entry("BetaLikenessConfig", _SPECS["beta-likeness"])
DeltaDisclosureConfig = model_entry("DeltaDisclosureConfig", _SPECS["delta-disclosure"])
BackgroundKnowledgeConfig = model_entry(
    "BackgroundKnowledgeConfig", _SPECS["background-knowledge"], base=_BackgroundKnowledgeEntry,
    fields={"prior": (PriorConfig, Field(default_factory=lambda: PriorConfig(kind="kernel")))},
    doc="""``{model: background-knowledge, attribute: S, J: 0.8, prior: kernel, test: auto, posterior: omega}``
    (spec §1.7; paper A, UHRA): every class keeps the adversary's Jensen–Shannon divergence ≤ ``J``.

    ``prior`` is ``kernel`` (default) or ``classifier``, or a mapping (:class:`PriorConfig`).
    ``test``: ``pairwise`` (every two priors of a class within ``J``, §4.1), ``posterior`` (every
    record's prior–posterior JSD within ``J``, §1.7) or ``auto`` (the algorithm's own guarantee).
    ``posterior``: ``omega`` (Ω-estimate) or ``exact`` (enumeration, classes of ≤ 8 records).
    Only the background-knowledge algorithms enforce this model (``anonkit algorithms``).""")
ThetaSensitivityConfig = model_entry(
    "ThetaSensitivityConfig", _SPECS["theta-sensitivity"],
    doc="""``{model: theta-sensitivity, attribute: S, k: 4, lambda: 0.5, distinct: false}`` (spec §1.5;
    paper D): every class has ≥ ``k`` persons and the variance of its category codes reaches
    ``θ = λ · V_full(k)``; ``distinct`` also asks for ``min(k, C)`` distinct categories. The
    attribute needs ``categories``.""")

KMapConfig = model_entry(
    "KMapConfig", _SPECS["k-map"],
    doc="``{model: k-map, k: 5}``: every released class matches ≥ ``k`` population records (``input.subset``).")
EstimatedKMapConfig = model_entry(
    "EstimatedKMapConfig", _SPECS["estimated-k-map"],
    doc="""``{model: estimated-k-map, k: 3, population_size: 317238626, estimator: zero-truncated-poisson,
    significance: 0.01}``: k-map with the population estimated from its size (ARX's derived k').""")
DeltaPresenceConfig = model_entry(
    "DeltaPresenceConfig", _SPECS["delta-presence"],
    doc="``{model: delta-presence, dmin: 0.05, dmax: 0.15}``: the research share of every class (``input.subset``).")
#: the population models' entries (k-map, δ-presence; issue 27)
POPULATION_ENTRIES: tuple[type[ModelEntry], ...] = (KMapConfig, EstimatedKMapConfig, DeltaPresenceConfig)
AverageRiskConfig = model_entry(
    "AverageRiskConfig", _SPECS["average-risk"],
    doc="``{model: average-risk, threshold: 0.05}``: the release's average prosecutor risk (whole release).")
SampleUniquenessConfig = model_entry(
    "SampleUniquenessConfig", _SPECS["sample-uniqueness"],
    doc="``{model: sample-uniqueness, threshold: 0.01}``: the share of released records alone in their class.")
PopulationUniquenessConfig = model_entry(
    "PopulationUniquenessConfig", _SPECS["population-uniqueness"],
    doc="""``{model: population-uniqueness, threshold: 0.0001, estimator: dankar, region: usa}``: the estimated
    share of population uniques (give ``population``, ``region`` or ``sampling_fraction``).""")
#: the whole-release risk criteria's entries (issue 27)
RISK_ENTRIES: tuple[type[ModelEntry], ...] = (AverageRiskConfig, SampleUniquenessConfig, PopulationUniquenessConfig)
#: sdcMicro's individual risk as a criterion (issue 28): a class model over the sampling weights
IndividualRiskConfig = model_entry(
    "IndividualRiskConfig", _SPECS["individual-risk"],
    doc="``{model: individual-risk, threshold: 0.1}``: every class's Benedetti–Franconi risk (a weight column).")
#: the profitability models' entries (ARX's game-theoretic model, issue 27): the amounts of models/profitability.py
PROFITABILITY_ENTRIES: tuple[type[ModelEntry], ...] = tuple(
    model_entry(f"{cls}Config", _SPECS[name]) for cls, name in (
        ("Profitability", "profitability"), ("JournalistProfitability", "profitability-journalist"),
        ("NoAttackProfitability", "no-attack-profitability"),
        ("JournalistNoAttackProfitability", "no-attack-profitability-journalist")))
#: SafePub's (ε, δ)-differential privacy (issue 29): enforced by the safepub algorithm only
DifferentialPrivacyConfig = model_entry(
    "DifferentialPrivacyConfig", _SPECS["differential-privacy"],
    doc="``{model: differential-privacy, epsilon: 2, delta: 1e-6}``: SafePub's sampling and k (algorithm safepub).")

#: every ``privacy:`` entry class (the union's members, in the order the docs list them)
MODEL_ENTRIES: tuple[type[ModelEntry], ...] = (
    KAnonymityConfig, DistinctLConfig, EntropyLConfig, RecursiveLConfig, FrequencyLConfig, TClosenessConfig,
    BetaLikenessConfig, DeltaDisclosureConfig, BackgroundKnowledgeConfig, ThetaSensitivityConfig,
)
MODEL_ENTRIES = tuple(sorted((*MODEL_ENTRIES, *POPULATION_ENTRIES, *RISK_ENTRIES, IndividualRiskConfig,
                              *PROFITABILITY_ENTRIES, DifferentialPrivacyConfig),
                             key=lambda e: list(_SPECS).index(e.spec.name)))
assert [e.spec.name for e in MODEL_ENTRIES] == list(_SPECS), "an entry class per declared model, in order"

#: ``variant:`` of ``model: l-diversity`` → the model it names
L_VARIANTS = variants("l-diversity")


def _l_variant(data: Any) -> Any:
    """``model: l-diversity`` names its variant with ``variant:`` (default distinct): read it as the
    variant's own model, so each variant is a class holding exactly its keys."""
    if isinstance(data, dict) and data.get("model") == "l-diversity":
        variant = data.get("variant", "distinct")
        if variant not in L_VARIANTS:
            allowed = ", ".join(L_VARIANTS)
            raise ValueError(f"l-diversity variant {variant!r} is unknown; allowed: {allowed}")
        return {**data, "model": L_VARIANTS[variant]}
    return data


ModelConfig = Annotated[
    Union[MODEL_ENTRIES],  # type: ignore[valid-type]  # noqa: UP007  (a union of generated classes)
    Field(discriminator="model"),
    BeforeValidator(_l_variant),
]

#: the model names a config may give (``l-diversity`` takes ``variant``)
MODEL_NAMES = config_names()


# ------------------------------------------------------------------------------------ search metric
_METRIC = SearchMetric()  # the defaults, written once beside SearchMetric


class MetricConfig(Strict):
    """``algorithm.metric``: the quality model a search optimizes (ARX compatibility §2.4), one class
    per metric holding the keys it reads (``gs`` for loss, entropy, AECS and precision; ``aggregate``
    for loss; ``monotonic`` for entropy and precision). ``metric: dm`` is short for ``{name: dm}``."""

    name: str

    def search_metric(self) -> SearchMetric:
        fields = type(self).model_fields
        return SearchMetric(self.name, **{k: getattr(self, k) for k in ("gs", "aggregate", "monotonic", "attacker")
                                          if k in fields})


class LossMetric(MetricConfig):
    name: Literal["loss"] = "loss"
    gs: float = Field(_METRIC.gs, ge=0, le=1)
    aggregate: Literal["sum", "max", "arithmetic", "geometric", "rank"] = _METRIC.aggregate  # type: ignore[assignment]


class EntropyMetric(MetricConfig):
    name: Literal["entropy"]
    gs: float = Field(_METRIC.gs, ge=0, le=1)
    monotonic: bool = _METRIC.monotonic


class AecsMetric(MetricConfig):
    name: Literal["aecs"]
    gs: float = Field(_METRIC.gs, ge=0, le=1)


class PrecisionMetric(MetricConfig):
    name: Literal["precision"]
    gs: float = Field(_METRIC.gs, ge=0, le=1)
    monotonic: bool = _METRIC.monotonic


class PlainMetric(MetricConfig):
    """Discernibility (``dm``, ``dm*``) and ``height`` take no parameter."""

    name: Literal["dm", "dm*", "height"]


class QualityMetric(MetricConfig):
    """ARX's KL divergence, ambiguity and record-level squared error (``metrics/quality.py``) take no
    parameter."""

    name: Literal["kl-divergence", "ambiguity", "sse"]


class EntropyLossMetric(MetricConfig):
    """ARX's entropy-based information loss (``metrics/quality.py``) takes the gs-factor."""

    name: Literal["entropy-loss"]
    gs: float = Field(_METRIC.gs, ge=0, le=1)


class PayoutMetric(MetricConfig):
    """ARX's publisher payout (``metrics/payout.py``): the gs-factor and the attacker model (default: the
    profitability model's); the amounts are the run's profitability model's."""

    name: Literal["publisher-payout"]
    gs: float = Field(_METRIC.gs, ge=0, le=1)
    attacker: Literal["prosecutor", "journalist"] | None = None


def _metric_shorthand(data: Any) -> Any:
    """``metric: dm`` is ``{name: dm}``; a mapping without ``name`` is the default metric's."""
    if isinstance(data, str):
        return {"name": data}
    if isinstance(data, dict) and "name" not in data:
        return {**data, "name": _METRIC.name}
    return data


METRIC_ENTRIES: tuple[type[MetricConfig], ...] = (LossMetric, EntropyMetric, AecsMetric, PrecisionMetric, PlainMetric,
                                                  QualityMetric, EntropyLossMetric, PayoutMetric)

MetricSpec = Annotated[
    LossMetric | EntropyMetric | AecsMetric | PrecisionMetric | PlainMetric | QualityMetric | EntropyLossMetric
    | PayoutMetric,
    Field(discriminator="name"),
    BeforeValidator(_metric_shorthand),
]
