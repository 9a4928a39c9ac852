"""What an exploration can put on its axes: the risk measures and the information-loss measures.

This is the one list of choices (``anonkit explore --risk/--loss``, :func:`anonkit.explore.explore`,
:func:`anonkit.report.ru_map.ru_map`). Every risk is a share in [0, 1] computed from the encoded
table and the release, and each names the audit threshold (``audit.thresholds``) it is held to:

* ``prosecutor_highest`` — 1 / smallest class, held to ``highest_risk``;
* ``prosecutor_average`` — classes / released records, held to ``average_risk``;
* ``records_at_risk`` — share of released records whose risk 1/|class| exceeds ``highest_risk``
  (the threshold defines "at risk"); ``highest_risk`` bounds *every* record's risk, so a run meets
  it only when no record is at risk (the bound on the share is 0);
* ``sample_uniqueness`` — share of released records alone in their class, held to
  ``population_uniqueness`` (the sample's uniques bound the population's from above);
* ``record_linkage`` — spec §2.5's record linkage as a share (the summary reports it in percent),
  the expected share of records a matching attack links to their row: an average risk, held to
  ``average_risk``;
* ``journalist_highest``, ``journalist_average``, ``marketer_average`` — El Emam's journalist and
  marketer risks (:func:`anonkit.risk.reidentification_risk`) with the release as its own
  population, as ARX computes them without a population table (journalist = prosecutor, marketer =
  classes / records; an ``audit.population_table`` is not matched here), held to ``highest_risk``
  and ``average_risk``;
* ``population_uniqueness`` — the estimated share of population uniques (Dankar et al.'s rule over
  Pitman, Zayatz and SNB, :func:`anonkit.risk.population_uniqueness`) for the population
  ``audit.population``, held to ``population_uniqueness``; it needs that population.

The losses are the scalar utility measures of :data:`anonkit.metrics.METRICS` that are not risks and
not class sizes (those are better when higher), read from the run's summary (so ``loss``,
``entropy``, ``aecs`` and ``precision`` use the config's ``algorithm.metric`` gs and aggregate).

**Figures every release has** (:data:`COMMON_RISKS`, :data:`COMMON_LOSSES`): the measures above read
equivalence classes, which a perturbed or synthetic table does not have, so a map that places
k-anonymity, SafePub and DP synthesis side by side (several series, :mod:`anonkit.explore.series`)
uses these instead:

* ``attack_risk`` — the largest risk of anonymeter's three attacks (singling-out, linkability,
  inference: ``(attack − baseline) / (1 − baseline)``, :class:`~anonkit.analytics.outcome.AttackOutcome`),
  run by the audit in the form that fits the release (cells covering the original values for a
  generalized release, nearest neighbour by Gower distance for a perturbed or synthetic one), on the
  same sampled targets with the same seed for every point; ``singling_out``, ``linkability`` and
  ``inference`` are each alone; all held to ``attack_risk``;
* ``two_way_tvd`` and ``one_way_tvd`` — the mean total variation distance between the input's and
  the release's two-way (one-way) marginals over every published column, a generalized cell spread
  evenly over the original values it covers (:mod:`anonkit.explore.marginals`).

They are comparable because each is a function of the published table and the input only, asks the
same question of every release and reads each release the way an adversary or an analyst would
read it. They do not capture a formal guarantee (ε is a bound on any attack, not an attack's
success), attacks the three do not model (a population table, several releases), nor utility beyond
low-order marginals (regressions, rare combinations).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from anonkit.errors import InputError
from anonkit.metrics import METRICS, prosecutor_risk, record_linkage, sample_uniqueness
from anonkit.release import Release
from anonkit.table import Table

__all__ = [
    "ALL_RISKS",
    "ATTACKS",
    "ATTACK_RISKS",
    "COMMON_LOSS",
    "COMMON_LOSSES",
    "COMMON_RISK",
    "COMMON_RISKS",
    "DEFAULT_LOSS",
    "DEFAULT_RISK",
    "LOSSES",
    "RISKS",
    "RiskContext",
    "RiskMeasure",
    "check_common",
    "check_loss",
    "check_risk",
    "risk_limit",
]


@dataclass(frozen=True)
class RiskContext:
    """What a risk is computed against: the thresholds and the population the input was sampled
    from (``audit.population``: a size or a region; ``None``: the input is the population)."""

    thresholds: Mapping[str, float]
    population: int | str | None = None


@dataclass(frozen=True)
class RiskMeasure:
    """A risk an exploration can plot: how it is computed and which threshold it is held to."""

    name: str
    #: the key of ``audit.thresholds`` it is held to
    threshold: str
    #: ``compute(table, release, context) -> share in [0, 1]`` (NaN: no estimate)
    compute: Callable[[Table, Release, RiskContext], float]
    #: what it is, in a few words (axis labels, ``--help``)
    text: str
    #: whether the bound on the measure is the threshold itself (else 0: no record above it)
    bounded_by_threshold: bool = True
    #: whether it needs the population size (``audit.population``)
    needs_population: bool = False
    #: the audit's attacks whose largest risk it is (then ``compute`` is not called: the run's audit is read)
    attacks: tuple[str, ...] = ()


def _people(release: Release) -> np.ndarray:
    return np.asarray(release.class_people())


def _reidentification(release: Release, ctx: RiskContext):  # type: ignore[no-untyped-def]
    """El Emam's three attackers (:func:`anonkit.risk.reidentification_risk`) with the release as
    its own population (ARX without a population table: journalist = prosecutor)."""
    from anonkit.risk import reidentification_risk

    return reidentification_risk(_people(release), threshold=ctx.thresholds["highest_risk"])


def _population_uniqueness(release: Release, ctx: RiskContext) -> float:
    from anonkit.risk import population_uniqueness

    estimate = population_uniqueness(_people(release), population=ctx.population).dankar
    return math.nan if estimate is None else float(estimate)


#: anonymeter's three attacks, as the audit names them (an inference attack per sensitive attribute
#: is named ``inference (NAME)``)
ATTACKS = ("singling-out", "linkability", "inference")


def _from_audit(table: Table, release: Release, ctx: RiskContext) -> float:
    raise AssertionError("an attack risk is read from the run's audit (anonkit.explore.run), not computed here")


RISKS: dict[str, RiskMeasure] = {
    m.name: m
    for m in (
        RiskMeasure("prosecutor_highest", "highest_risk",
                    lambda t, r, c: prosecutor_risk(t, r).highest, "highest prosecutor risk"),
        RiskMeasure("prosecutor_average", "average_risk",
                    lambda t, r, c: prosecutor_risk(t, r).average, "average prosecutor risk"),
        RiskMeasure("records_at_risk", "highest_risk",
                    lambda t, r, c: prosecutor_risk(t, r, threshold=c.thresholds["highest_risk"]).records_at_risk,
                    "share of records at risk", bounded_by_threshold=False),
        RiskMeasure("sample_uniqueness", "population_uniqueness",
                    lambda t, r, c: sample_uniqueness(t, r), "share of sample uniques"),
        RiskMeasure("record_linkage", "average_risk",
                    lambda t, r, c: record_linkage(t, r) / 100.0, "record linkage (share)"),
        RiskMeasure("journalist_highest", "highest_risk",
                    lambda t, r, c: _reidentification(r, c).journalist.highest, "highest journalist risk"),
        RiskMeasure("journalist_average", "average_risk",
                    lambda t, r, c: _reidentification(r, c).journalist.average, "average journalist risk"),
        RiskMeasure("marketer_average", "average_risk",
                    lambda t, r, c: _reidentification(r, c).marketer.average, "marketer risk"),
        RiskMeasure("population_uniqueness", "population_uniqueness", lambda t, r, c: _population_uniqueness(r, c),
                    "estimated population uniqueness", needs_population=True),
    )
}

#: the risks every release kind has, read from the run's audit (``compute`` is never called)
ATTACK_RISKS: dict[str, RiskMeasure] = {
    m.name: m
    for m in (
        RiskMeasure("attack_risk", "attack_risk", _from_audit, "largest attack risk: singling-out, linkability, "
                    "inference", attacks=ATTACKS),
        RiskMeasure("singling_out", "attack_risk", _from_audit, "singling-out attack risk", attacks=ATTACKS[:1]),
        RiskMeasure("linkability", "attack_risk", _from_audit, "linkability attack risk", attacks=ATTACKS[1:2]),
        RiskMeasure("inference", "attack_risk", _from_audit, "inference attack risk", attacks=ATTACKS[2:]),
    )
}
#: every risk an exploration can plot, by name
ALL_RISKS: dict[str, RiskMeasure] = {**RISKS, **ATTACK_RISKS}
#: the names of the risks every release kind has
COMMON_RISKS: tuple[str, ...] = tuple(ATTACK_RISKS)

#: measures of :data:`METRICS` that are neither losses nor risks: larger classes are better
_NOT_LOSSES = frozenset({"min_class_size", "avg_class_size"})
#: the utility losses every release kind has (:mod:`anonkit.explore.marginals`), lower is better
COMMON_LOSSES: tuple[str, ...] = ("two_way_tvd", "one_way_tvd")
#: every information-loss measure, as the run's summary reports it (lower is better)
LOSSES: tuple[str, ...] = tuple(n for n in METRICS if n not in RISKS and n not in _NOT_LOSSES)


#: what an exploration of one config whose release has classes judges unless told otherwise: the
#: highest risk, ARX's Loss
DEFAULT_RISK = "prosecutor_highest"
DEFAULT_LOSS = "loss"
#: what a map of several series (or of a release without classes) judges unless told otherwise
COMMON_RISK = "attack_risk"
COMMON_LOSS = "two_way_tvd"


def check_risk(name: str) -> RiskMeasure:
    """The risk measure ``name``; an InputError listing the choices otherwise."""
    try:
        return ALL_RISKS[name]
    except KeyError:
        raise InputError(f"unknown risk {name!r}; choose one of {', '.join(ALL_RISKS)}", key="risk") from None


def check_loss(name: str) -> str:
    """``name`` if it is a loss measure; an InputError listing the choices otherwise."""
    if name not in LOSSES and name not in COMMON_LOSSES:
        raise InputError(f"unknown loss {name!r}; choose one of {', '.join((*LOSSES, *COMMON_LOSSES))}", key="loss")
    return name


def risk_limit(name: str, thresholds: Mapping[str, float]) -> float | None:
    """The largest value of the risk ``name`` that meets ``thresholds`` (``None`` for a measure that is
    not listed here or a threshold that is not given)."""
    measure = ALL_RISKS.get(name)
    if measure is None or measure.threshold not in thresholds:
        return None
    return float(thresholds[measure.threshold]) if measure.bounded_by_threshold else 0.0


def check_common(risk: str, loss: str, why: str) -> None:
    """Refuse a risk or loss that reads equivalence classes when ``why`` (several series, a release
    without classes) asks for a figure every release has; one line naming the choices."""
    if risk not in COMMON_RISKS:
        raise InputError(f"--risk {risk} reads equivalence classes, which {why} does not have: choose one of "
                         f"{', '.join(COMMON_RISKS)}", key="risk", value=risk)
    if loss not in COMMON_LOSSES:
        raise InputError(f"--loss {loss} reads equivalence classes, which {why} does not have: choose one of "
                         f"{', '.join(COMMON_LOSSES)}", key="loss", value=loss)
