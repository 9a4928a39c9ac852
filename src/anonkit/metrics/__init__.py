"""Utility and risk measures of a release (spec §2, ARX compatibility §2.4–2.5).

Every measure is a function ``(table, release, **params)``. :data:`METRICS` names each scalar
measure with its default parameters; :func:`compute_metrics` evaluates several at once.

The measures live in one module per family: :mod:`~anonkit.metrics.arx` (ARX's conventions: gs
factors, rounding, attribute weights, aggregation), :mod:`~anonkit.metrics.loss`,
:mod:`~anonkit.metrics.entropy`, :mod:`~anonkit.metrics.classes` (DM, DM*, AECS, class sizes,
suppression) and :mod:`~anonkit.metrics.precision` (Precision, Prec, Height) — ARX's quality
models —, :mod:`~anonkit.metrics.ncp` (NCP, GCP), :mod:`~anonkit.metrics.distortion` (WHD,
modification rate), :mod:`~anonkit.metrics.risk` (re-identification risk) and
:mod:`~anonkit.metrics.coverage` (the leaves a local recoding's intervals and sets cover). Import
the measures from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from anonkit.errors import InputError
from anonkit.metrics.arx import AGGREGATES, aggregate_values, arx_round, attribute_weights, gs_factors
from anonkit.metrics.classes import (
    ClassSizeStats,
    aecs,
    cavg,
    class_size_stats,
    discernibility,
    discernibility_star,
    released_sizes,
    suppressed_class_sizes,
    suppression_rate,
)
from anonkit.metrics.distortion import WHDResult, modification_rate, whd, whd_cost, whd_step_weights
from anonkit.metrics.entropy import entropy, entropy_per_attribute
from anonkit.metrics.loss import loss, loss_per_attribute
from anonkit.metrics.ncp import gcp, ncp_classes, ncp_records
from anonkit.metrics.one_to_many import (
    linkability,
    ncp_per_person,
    one_to_many_measures,
    query_accuracy,
    random_count_queries,
    record_intersection,
)
from anonkit.metrics.payout import PAYOUT, release_payout
from anonkit.metrics.precision import height, prec_loss, precision, precision_per_attribute
from anonkit.metrics.quality import QUALITY_MODELS, ambiguity, entropy_loss, kl_divergence, sse
from anonkit.metrics.risk import (
    ProsecutorRisk,
    linkage_candidates,
    prosecutor_risk,
    record_linkage,
    sample_uniqueness,
)
from anonkit.release import Release, measuring
from anonkit.table import Table

__all__ = [
    "AGGREGATES",
    "DEFAULT_MEASURES",
    "METRICS",
    "OPTIONAL_MEASURES",
    "SEARCH_METRICS",
    "ClassSizeStats",
    "ProsecutorRisk",
    "SearchMetric",
    "WHDResult",
    "aecs",
    "aggregate_values",
    "ambiguity",
    "arx_round",
    "attribute_weights",
    "cavg",
    "check_skipped",
    "class_size_stats",
    "compute_metrics",
    "discernibility",
    "discernibility_star",
    "entropy",
    "entropy_loss",
    "entropy_per_attribute",
    "gcp",
    "gs_factors",
    "height",
    "kl_divergence",
    "linkability",
    "linkage_candidates",
    "loss",
    "loss_per_attribute",
    "modification_rate",
    "ncp_classes",
    "ncp_per_person",
    "ncp_records",
    "one_to_many_measures",
    "prec_loss",
    "precision",
    "precision_per_attribute",
    "prosecutor_risk",
    "query_accuracy",
    "random_count_queries",
    "record_intersection",
    "record_linkage",
    "released_sizes",
    "sample_uniqueness",
    "score",
    "sse",
    "suppressed_class_sizes",
    "suppression_rate",
    "whd",
    "whd_cost",
    "whd_step_weights",
]

Metric = Callable[[Table, Release], float]

# name -> f(table, release, gs, aggregate); METRICS binds the defaults
_PARAMETRIZED: dict[str, Callable[[Table, Release, float, str], float | tuple[float, ...]]] = {
    "gcp": lambda t, r, gs, agg: gcp(t, r),
    "gcp_released": lambda t, r, gs, agg: gcp(t, r, include_suppressed=False),
    "loss": lambda t, r, gs, agg: loss(t, r, gs=gs, aggregate=agg),  # type: ignore[arg-type]
    "entropy": lambda t, r, gs, agg: entropy(t, r, monotonic=True, gs=gs),
    "entropy_nm": lambda t, r, gs, agg: entropy(t, r, monotonic=False, gs=gs),
    "dm": lambda t, r, gs, agg: discernibility(t, r),
    "dm*": lambda t, r, gs, agg: discernibility_star(t, r),
    "aecs": lambda t, r, gs, agg: aecs(t, r, gs=gs),
    "precision": lambda t, r, gs, agg: precision(t, r, monotonic=True, gs=gs),
    "prec_loss": lambda t, r, gs, agg: prec_loss(t, r),
    "height": lambda t, r, gs, agg: height(t, r),
    "whd": lambda t, r, gs, agg: whd(t, r).total,
    "modification_rate": lambda t, r, gs, agg: modification_rate(t, r),
    "min_class_size": lambda t, r, gs, agg: class_size_stats(t, r).min,
    "avg_class_size": lambda t, r, gs, agg: class_size_stats(t, r).avg,
    "suppression_rate": lambda t, r, gs, agg: suppression_rate(t, r),
    "prosecutor_highest": lambda t, r, gs, agg: prosecutor_risk(t, r).highest,
    "prosecutor_average": lambda t, r, gs, agg: prosecutor_risk(t, r).average,
    "records_at_risk": lambda t, r, gs, agg: prosecutor_risk(t, r).records_at_risk,
    "sample_uniqueness": lambda t, r, gs, agg: sample_uniqueness(t, r),
    "record_linkage": lambda t, r, gs, agg: record_linkage(t, r),
}
#: ARX's quality models of :mod:`anonkit.metrics.quality`, scored when a search optimizes one (the summary's
#: ``score``). They are not in every summary: they sum over records in ARX's order, which a counted
#: release (:meth:`Release.counted`) cannot repeat bit for bit, and they would cost every run.
_QUALITY: dict[str, Callable[[Table, Release, float], float]] = {
    "kl_divergence": lambda t, r, gs: kl_divergence(t, r),
    "ambiguity": lambda t, r, gs: ambiguity(t, r),
    "entropy_loss": lambda t, r, gs: entropy_loss(t, r, gs=gs),
    "sse": lambda t, r, gs: sse(t, r),
}


def _bind(name: str) -> Metric:
    f = _PARAMETRIZED[name]

    def metric(table: Table, release: Release) -> float:
        return float(f(table, release, 0.5, "geometric"))  # type: ignore[arg-type]

    metric.__name__ = name
    metric.__doc__ = f"The measure {name!r} with default parameters (gs = 0.5, geometric Loss)."
    return metric


#: Every scalar measure by name, with default parameters: ``METRICS[name](table, release) -> float``.
#: ``whd`` is the total distortion (uniform weights); ``loss`` ARX's Loss (gs 0.5, geometric mean).
METRICS: dict[str, Metric] = {name: _bind(name) for name in _PARAMETRIZED}

#: The measures of :data:`METRICS` a run may leave out of its summary (config ``measures: {skip: […]}``,
#: ``anonymize(…, skip_measures=[…])``), each with why it is optional: what makes it cost more than the
#: rest. Every other measure is a *default* one: computed from class statistics or distinct tuples in
#: vectorized code, it never costs more than the algorithm on Adult (issue 30; the figures are
#: ``benchmarks/bench_fixed_costs.py``'s per-measure table), so it is always in the summary — the
#: printed summary, the report and the UI read those unconditionally. A skipped measure is absent from
#: ``summary["metrics"]`` and named with this reason in ``summary["skipped_measures"]``; every optional
#: measure is computed unless skipped, so a run that skips nothing has the summary it had before.
OPTIONAL_MEASURES: dict[str, str] = {
    "record_linkage": "matches every distinct tuple against every class whose published values cover it; on a "
                      "release with intervals or sets (local recoding, buckets) that is classes × tuples of work, "
                      "the one measure that can cost more than the algorithm",
}
#: the measures every summary has: :data:`METRICS` less :data:`OPTIONAL_MEASURES`
DEFAULT_MEASURES: tuple[str, ...] = tuple(name for name in METRICS if name not in OPTIONAL_MEASURES)


def check_skipped(names: object, key: str) -> tuple[str, ...]:
    """``names`` (a list of measure names) as the measures a run skips, or a one-line :class:`InputError`
    naming ``key``: only an optional measure may be skipped (a default one is what the summary's readers
    rely on), a name once. Fail closed: a misspelt name would otherwise compute what the user switched off."""
    if isinstance(names, str | bytes | Mapping) or not isinstance(names, Iterable):
        raise InputError(f"expected a list of measure names, got {type(names).__name__}: e.g. [record_linkage]",
                         key=key)
    optional = ", ".join(OPTIONAL_MEASURES)
    seen: list[str] = []
    for name in names:
        if not isinstance(name, str) or name not in METRICS:
            raise InputError(f"unknown measure {name!r}; optional measures (may be skipped): {optional}; "
                             f"default measures (always computed): {', '.join(DEFAULT_MEASURES)}", key=key, value=name)
        if name not in OPTIONAL_MEASURES:
            raise InputError(f"{name!r} is a default measure, always computed (it costs less than the algorithm); "
                             f"only an optional measure may be skipped: {optional}", key=key, value=name)
        if name in seen:
            raise InputError(f"measure {name!r} is listed twice", key=key, value=name)
        seen.append(name)
    return tuple(sorted(seen, key=list(METRICS).index))


def compute_metrics(
    table: Table,
    release: Release,
    names: Iterable[str] | None = None,
    *,
    gs: float = 0.5,
    aggregate: str = "geometric",
) -> dict[str, float]:
    """Evaluate the measures ``names`` (default: all of :data:`METRICS`).

    ``gs`` is passed to Loss, entropy, AECS and Precision, ``aggregate`` to Loss. With
    ``aggregate="rank"`` the ``loss`` entry is the descending tuple of weighted per-QI values.
    """
    if aggregate not in AGGREGATES:
        raise InputError(f"unknown aggregate {aggregate!r}; allowed: {', '.join(AGGREGATES)}", key="aggregate")
    gs_factors(gs)  # validates
    selected = list(_PARAMETRIZED) if names is None else list(names)
    unknown = [n for n in selected if n not in _PARAMETRIZED]
    if unknown:
        raise InputError(f"unknown metric {unknown[0]!r}; known: {', '.join(_PARAMETRIZED)}", key="names")
    out: dict[str, float] = {}
    with measuring():  # figures several measures read (class sizes, published texts) computed once
        for name in selected:
            value = _PARAMETRIZED[name](table, release, gs, aggregate)
            out[name] = value if isinstance(value, tuple) else float(value)  # type: ignore[assignment]
    return out


@dataclass(frozen=True)
class SearchMetric:
    """A quality model a search optimizes, by ARX name (ARX compatibility §2.4).

    ``name``: ``loss`` (gs, aggregate), ``entropy`` (monotonic, gs), ``dm``, ``dm*``, ``aecs`` (gs),
    ``precision`` (monotonic, gs), ``height``, or ARX's ``kl-divergence``, ``ambiguity``,
    ``entropy-loss`` (gs) and ``sse`` (:mod:`~anonkit.metrics.quality`). Lower is better.
    """

    name: str = "loss"
    gs: float = 0.5
    aggregate: str = "geometric"
    monotonic: bool = True
    #: ``publisher-payout``: the attacker model (None: the profitability model's) and the amounts, which the
    #: run takes from its profitability model (:func:`anonkit.metrics.payout.with_costs`)
    attacker: str | None = None
    costs: Any = None

    def __post_init__(self) -> None:
        if self.name not in SEARCH_METRICS:
            raise InputError(f"unknown metric {self.name!r}; allowed: {', '.join(SEARCH_METRICS)}", key="name")
        if self.aggregate not in AGGREGATES:
            raise InputError(f"unknown aggregate {self.aggregate!r}; allowed: {', '.join(AGGREGATES)}", key="aggregate")
        gs_factors(self.gs)


SEARCH_METRICS = ("loss", "entropy", "dm", "dm*", "aecs", "precision", "height", *QUALITY_MODELS, PAYOUT)


def score(table: Table, release: Release, metric: SearchMetric) -> float | tuple[float, ...]:
    """The exact value of the search metric for ``release`` (the same doubles ARX reports)."""
    name = metric.name
    if name == "loss":
        return loss(table, release, gs=metric.gs, aggregate=metric.aggregate)  # type: ignore[arg-type]
    if name == "entropy":
        return float(entropy(table, release, monotonic=metric.monotonic, gs=metric.gs))
    if name == "dm":
        return float(discernibility(table, release))
    if name == "dm*":
        return float(discernibility_star(table, release))
    if name == "aecs":
        return float(aecs(table, release, gs=metric.gs))
    if name == "precision":
        return float(precision(table, release, monotonic=metric.monotonic, gs=metric.gs))
    if name in QUALITY_MODELS:
        return float(_QUALITY[QUALITY_MODELS[name]](table, release, metric.gs))
    if name == PAYOUT:
        return release_payout(table, release, metric)
    return float(height(table, release))
