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

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from anonkit._values import plain_scalars
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


class Strict(BaseModel):
    """A config section: unknown keys refused, values taken strictly (no ``true`` or ``"5"`` for a
    number, no ``5.5`` for a whole number, no infinity or NaN); numpy scalars count as the Python
    numbers they hold (config data built in Python)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _plain_numbers(cls, data: Any) -> Any:
        return plain_scalars(data)


# ------------------------------------------------------------------------------------ privacy models
class ModelEntry(Strict):
    """A ``privacy:`` entry: :meth:`build` makes its :class:`~anonkit.models.Criterion`."""

    #: the model's name in messages
    label: ClassVar[str] = "privacy model"

    def build(self) -> Criterion:
        raise NotImplementedError


class KAnonymityConfig(ModelEntry):
    label: ClassVar[str] = "k-anonymity"
    model: Literal["k-anonymity"]
    k: int = Field(ge=1)
    attributes: list[str] | None = Field(None, min_length=1)

    def build(self) -> Criterion:
        return KAnonymity(self.k, tuple(self.attributes) if self.attributes else None)


class _OfAttribute(ModelEntry):
    attribute: str


class DistinctLConfig(_OfAttribute):
    label: ClassVar[str] = "distinct l-diversity"
    model: Literal["distinct-l-diversity"]
    variant: Literal["distinct"] | None = None
    l: float = Field(gt=0)  # noqa: E741

    def build(self) -> Criterion:
        return DistinctLDiversity(self.attribute, self.l)


class EntropyLConfig(_OfAttribute):
    label: ClassVar[str] = "entropy l-diversity"
    model: Literal["entropy-l-diversity"]
    variant: Literal["entropy"] | None = None
    l: float = Field(gt=0)  # noqa: E741
    estimator: Literal["shannon", "grassberger"] = "shannon"

    def build(self) -> Criterion:
        return EntropyLDiversity(self.attribute, self.l, self.estimator)


class RecursiveLConfig(_OfAttribute):
    """Recursive (c, l)-diversity: ``l`` counts values, so it is a whole number, and ``c`` is required."""

    label: ClassVar[str] = "recursive l-diversity"
    model: Literal["recursive-l-diversity"]
    variant: Literal["recursive"] | None = None
    l: int = Field(ge=1)  # noqa: E741
    c: float = Field(gt=0)

    def build(self) -> Criterion:
        return RecursiveCLDiversity(self.attribute, self.c, self.l)


class FrequencyLConfig(_OfAttribute):
    label: ClassVar[str] = "frequency l-diversity"
    model: Literal["frequency-l-diversity"]
    variant: Literal["frequency"] | None = None
    l: float = Field(gt=0)  # noqa: E741

    def build(self) -> Criterion:
        return FrequencyLDiversity(self.attribute, self.l)


#: ``variant:`` of ``model: l-diversity`` → the model it names
L_VARIANTS = {"distinct": "distinct-l-diversity", "entropy": "entropy-l-diversity",
              "recursive": "recursive-l-diversity", "frequency": "frequency-l-diversity"}


class TClosenessConfig(_OfAttribute):
    label: ClassVar[str] = "t-closeness"
    model: Literal["t-closeness"]
    t: float = Field(gt=0, le=1)
    distance: Literal["equal", "ordered", "hierarchical"] = "equal"

    def build(self) -> Criterion:
        return TCloseness(self.attribute, self.t, self.distance)


class BetaLikenessConfig(_OfAttribute):
    label: ClassVar[str] = "beta-likeness"
    model: Literal["beta-likeness"]
    beta: float = Field(gt=0)
    variant: Literal["basic", "enhanced"] = "basic"

    def build(self) -> Criterion:
        return BetaLikeness(self.attribute, self.beta, enhanced=self.variant == "enhanced")


class DeltaDisclosureConfig(_OfAttribute):
    label: ClassVar[str] = "delta-disclosure"
    model: Literal["delta-disclosure"]
    delta: float = Field(gt=0)

    def build(self) -> Criterion:
        return DeltaDisclosure(self.attribute, self.delta)


class ThetaSensitivityConfig(_OfAttribute):
    """``{model: theta-sensitivity, attribute: S, k: 4, lambda: 0.5, distinct: false}`` (spec §1.5;
    paper D): every class has ≥ ``k`` persons and the variance of its category codes reaches
    ``θ = λ · V_full(k)``; ``distinct`` also asks for ``min(k, C)`` distinct categories. The
    attribute needs ``categories``."""

    model_config = ConfigDict(populate_by_name=True)
    label: ClassVar[str] = "theta-sensitivity"
    model: Literal["theta-sensitivity"]
    k: int = Field(ge=1)
    lam: float = Field(DEFAULT_LAMBDA, gt=0, le=1, alias="lambda")
    distinct: bool = False

    def build(self) -> Criterion:
        return ThetaSensitivity(self.attribute, self.k, self.lam, self.distinct)


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


class BackgroundKnowledgeConfig(_OfAttribute):
    """``{model: background-knowledge, attribute: S, J: 0.8, prior: kernel, test: auto, posterior: omega}``
    (spec §1.7; paper A, UHRA): every class keeps the adversary's Jensen–Shannon divergence ≤ ``J``.

    ``prior`` is ``kernel`` (default) or ``classifier``, or a mapping (:class:`PriorConfig`).
    ``test``: ``pairwise`` (every two priors of a class within ``J``, §4.1), ``posterior`` (every
    record's prior–posterior JSD within ``J``, §1.7) or ``auto`` (the algorithm's own guarantee).
    ``posterior``: ``omega`` (Ω-estimate) or ``exact`` (enumeration, classes of ≤ 8 records).
    Only the background-knowledge algorithms enforce this model (``anonkit algorithms``).
    """

    label: ClassVar[str] = "background-knowledge"
    model: Literal["background-knowledge"]
    J: float = Field(ge=0, le=1)
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


#: every ``privacy:`` entry class (the union's members, in the order the docs list them)
MODEL_ENTRIES: tuple[type[ModelEntry], ...] = (
    KAnonymityConfig, DistinctLConfig, EntropyLConfig, RecursiveLConfig, FrequencyLConfig, TClosenessConfig,
    BetaLikenessConfig, DeltaDisclosureConfig, BackgroundKnowledgeConfig, ThetaSensitivityConfig,
)

ModelConfig = Annotated[
    KAnonymityConfig
    | DistinctLConfig
    | EntropyLConfig
    | RecursiveLConfig
    | FrequencyLConfig
    | TClosenessConfig
    | BetaLikenessConfig
    | DeltaDisclosureConfig
    | BackgroundKnowledgeConfig
    | ThetaSensitivityConfig,
    Field(discriminator="model"),
    BeforeValidator(_l_variant),
]

#: the model names a config may give (``l-diversity`` takes ``variant``)
MODEL_NAMES = ("k-anonymity", "l-diversity", *L_VARIANTS.values(), "t-closeness", "beta-likeness",
               "delta-disclosure", "background-knowledge", "theta-sensitivity")


# ------------------------------------------------------------------------------------ search metric
_METRIC = SearchMetric()  # the defaults, written once beside SearchMetric


class MetricConfig(Strict):
    """``algorithm.metric``: the quality model a search optimizes (ARX compatibility §2.4), one class
    per metric holding the keys it reads (``gs`` for loss, entropy, AECS and precision; ``aggregate``
    for loss; ``monotonic`` for entropy and precision). ``metric: dm`` is short for ``{name: dm}``."""

    name: str

    def search_metric(self) -> SearchMetric:
        fields = type(self).model_fields
        return SearchMetric(self.name, **{k: getattr(self, k) for k in ("gs", "aggregate", "monotonic") if k in fields})


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


def _metric_shorthand(data: Any) -> Any:
    """``metric: dm`` is ``{name: dm}``; a mapping without ``name`` is the default metric's."""
    if isinstance(data, str):
        return {"name": data}
    if isinstance(data, dict) and "name" not in data:
        return {**data, "name": _METRIC.name}
    return data


METRIC_ENTRIES: tuple[type[MetricConfig], ...] = (LossMetric, EntropyMetric, AecsMetric, PrecisionMetric, PlainMetric)

MetricSpec = Annotated[
    LossMetric | EntropyMetric | AecsMetric | PrecisionMetric | PlainMetric,
    Field(discriminator="name"),
    BeforeValidator(_metric_shorthand),
]
