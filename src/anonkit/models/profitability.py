"""Profitability (Wan et al., "A game theoretic framework for analyzing re-identification risk",
PLOS ONE 2015; ARX's ``ProfitabilityProsecutor``, ``ProfitabilityJournalist`` and their ``…NoAttack``
variants, with ``ARXCostBenefitConfiguration`` and ``RiskModelCostBenefit``).

A publisher and an adversary play a game over every published record. The publisher earns
``publisher_benefit`` per record, scaled down by the record's information loss; the adversary pays
``adversary_cost`` to attack a record and earns ``adversary_gain`` when the attack succeeds, which it
does with probability ``p`` (prosecutor: ``1 / class size``; journalist: ``1 / the population records
of the class``, as ARX falls back to the class size when a class has no population count); a
successful attack costs the publisher ``publisher_loss``. So, per class (:func:`publisher_payout`)::

    adversary payout = adversary_gain · p − adversary_cost
    publisher payout = publisher_benefit · (1 − IL) − (publisher_loss · p if adversary payout > 0 else 0)

where ``IL`` is ARX's entropy-based information loss of the class's generalized tuple,
``log10(Π_j share_j) / log10(Π_j size_j) + 1`` clipped to ``[0, 1]`` (``share_j``: the share of QI
``j``'s hierarchy leaves the class's value covers; ``size_j``: the hierarchy's leaves).

Four models, because they judge different statistics (one declaration each, as k-map and estimated
k-map are two):

* ``profitability`` (prosecutor, with attack) keeps a class when the publisher's payout is positive.
  ARX declares it monotonic under neither generalization nor suppression (generalization lowers the
  adversary's success a little but the benefit a lot), and so does this.
* ``profitability-journalist``: the same with ``p = 1 / population records`` (``input.subset``).
* ``no-attack-profitability``: the adversary must have no incentive to attack: ``gain · p < cost``,
  i.e. every class holds at least ``k`` records with ``k`` the smallest whole number above
  ``gain / cost`` (:func:`deterrent_k`, ARX's rule: ``gain = 0`` gives 1). Monotonic both ways.
* ``no-attack-profitability-journalist``: at least ``k`` *population* records per class (a k-map).

The information loss of a class depends on the transformation, not only on the class's records, so
the attack models judge a registered class need, :data:`INFORMATION_LOSS_NEED`, built from the node
the classes come from (:data:`NODE_SOURCE`: the table and the node's levels in the statistics'
sources). Where no node is given the need refuses in one line (fail closed) instead of guessing.

All four take the same four amounts (required, finite, ≥ 0; ARX's ``checkParameter``), which the
publisher-payout quality model (:mod:`anonkit.metrics.payout`) reads from the model in the run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from anonkit.errors import InputError
from anonkit.models.base import Criterion
from anonkit.models.population import POPULATION_NEED
from anonkit.models.spec import Param, privacy_model
from anonkit.stats import ClassInputs, ClassStats, register_class_need

__all__ = [
    "ATTACKERS",
    "INFORMATION_LOSS_NEED",
    "NODE_SOURCE",
    "CostBenefit",
    "JournalistNoAttackProfitability",
    "JournalistProfitability",
    "NoAttackProfitability",
    "Profitability",
    "deterrent_k",
    "profitability_models",
    "publisher_payout",
]

#: the attacker models: who the adversary targets (ARX's prosecutor and journalist)
ATTACKERS = ("prosecutor", "journalist")
#: the class need of the attack models: ARX's entropy-based information loss of every class
INFORMATION_LOSS_NEED = "entropy-information-loss"
#: the statistics' source naming the node the classes come from: ``(table, levels)``
NODE_SOURCE = "node"
#: the ``k`` of an adversary who attacks for free: no class is large enough (ARX's Integer.MAX_VALUE)
UNDETERRABLE_K = 2**31 - 1


# ------------------------------------------------------------------------------------ the game
@dataclass(frozen=True)
class CostBenefit:
    """ARX's ``ARXCostBenefitConfiguration``: the four amounts of the game, per record."""

    publisher_benefit: float
    publisher_loss: float
    adversary_gain: float
    adversary_cost: float

    def __post_init__(self) -> None:
        for name in ("publisher_benefit", "publisher_loss", "adversary_gain", "adversary_cost"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) \
                    or not math.isfinite(float(value)) or float(value) < 0:
                raise InputError(f"{name} must be a finite amount ≥ 0, got {value!r}", key=name)
            object.__setattr__(self, name, float(value))

    def describe(self) -> str:
        return (f"benefit {self.publisher_benefit:g}, loss {self.publisher_loss:g}, gain {self.adversary_gain:g}, "
                f"cost {self.adversary_cost:g}")


def publisher_payout(costs: CostBenefit, information_loss: np.ndarray, success: np.ndarray) -> np.ndarray:
    """The publisher's expected payout per record of every class (ARX's ``RiskModelCostBenefit``):
    ``benefit · (1 − IL)`` less ``loss · p`` where the adversary's expected payout ``gain · p − cost``
    is positive (``p``: the success probability of an attack on the class)."""
    il = np.asarray(information_loss, dtype=np.float64)
    p = np.asarray(success, dtype=np.float64)
    if il.size and (il.min() < 0 or il.max() > 1 or p.min() < 0 or p.max() > 1):
        raise InputError("information loss and success probability must lie in [0, 1]", key="profitability")
    attacked = (costs.adversary_gain * p - costs.adversary_cost) > 0
    return costs.publisher_benefit * (1.0 - il) - np.where(attacked, costs.publisher_loss * p, 0.0)


def success_probability(sizes: np.ndarray, population: np.ndarray | None) -> np.ndarray:
    """``1 / class size`` (prosecutor), or ``1 / population records`` where a class has any
    (journalist: ``population`` given; ARX falls back to the class size where it has none)."""
    sizes = np.asarray(sizes, dtype=np.float64)
    base = np.divide(1.0, sizes, out=np.ones_like(sizes), where=sizes > 0)
    if population is None:
        return base
    pop = np.asarray(population, dtype=np.float64)
    return np.divide(1.0, pop, out=base, where=pop > 0)


def deterrent_k(adversary_gain: float, adversary_cost: float) -> int:
    """The smallest class size at which an attack does not pay, ``gain / size < cost`` (ARX's
    ``ProfitabilityProsecutorNoAttack.initialize``): 1 without gain, ``gain/cost + 1`` when that is a
    whole number, else its ceiling; :data:`UNDETERRABLE_K` when attacks are free."""
    if adversary_gain == 0:
        return 1
    if adversary_cost == 0:
        return UNDETERRABLE_K
    threshold = adversary_gain / adversary_cost
    if not math.isfinite(threshold) or threshold >= UNDETERRABLE_K:
        return UNDETERRABLE_K
    return int(threshold) + 1 if threshold == math.floor(threshold) else math.ceil(threshold)


# ------------------------------------------------------------------------------------ the need
def _information_loss(inputs: ClassInputs) -> np.ndarray:
    """ARX's entropy-based information loss of every class, from the node the classes come from."""
    node = inputs.sources.get(NODE_SOURCE)
    if node is None:
        raise InputError("profitability (with an attack) judges every class's information loss at its full-domain "
                         "transformation: use a full-domain search (flash, …) or no-attack-profitability",
                         key="model")
    table, levels = node  # type: ignore[misc]
    n = inputs.n_classes
    first = np.full(n, -1, dtype=np.int64)
    rev = np.arange(len(inputs.class_of) - 1, -1, -1)
    first[inputs.class_of[rev]] = rev
    has = first >= 0
    d = table.distinct
    _check_node(table, levels, inputs.class_of, first)
    shares = np.ones(n, dtype=np.float64)
    sizes = 1.0
    for j, h in enumerate(table.hierarchies):
        level = int(levels[j])
        node_of = h.maps[level][d.columns[j][first[has]]]
        col = np.ones(n, dtype=np.float64)
        col[has] = h.leaf_counts(level)[node_of] / float(h.n_leaves)
        shares = shares * col
        sizes *= float(h.n_leaves)
    return class_information_loss(shares, sizes)


def _check_node(table: Any, levels: Sequence[int], class_of: np.ndarray, first: np.ndarray) -> None:
    """Refuse classes that are not the node's (a node left in the sources while another is judged): every
    tuple's generalized codes must be its class's."""
    d = table.distinct
    if len(class_of) != d.size or len(levels) != len(table.hierarchies):
        raise InputError("the classes judged are not those of the node given (one class per distinct tuple of the "
                         "table is expected)", key="model")
    mismatch = table.tuple_classes([int(x) for x in levels])[1] != len(first)  # finer classes than the node's
    for j, h in enumerate(table.hierarchies):
        gen = h.maps[int(levels[j])][d.columns[j]]
        if mismatch or (gen != gen[first[class_of]]).any():
            raise InputError("the classes judged are not those of the node given to the profitability model",
                             key="model")


def class_information_loss(shares: np.ndarray, domain: float) -> np.ndarray:
    """``log10(Π share) / log10(Π size) + 1`` clipped to ``[0, 1]`` (ARX's ``getEntropyBasedInformationLoss``;
    ``shares``: the product of every class's domain shares; ``domain``: the product of the domain sizes;
    no information, no loss: 0 when the domain has one tuple)."""
    max_il = math.log10(domain) if domain > 0 else 0.0
    if max_il == 0.0 or not math.isfinite(max_il):
        return np.zeros(len(shares))
    with np.errstate(divide="ignore"):
        out = np.log10(np.asarray(shares, dtype=np.float64)) / max_il + 1.0
    return np.clip(out, 0.0, 1.0)


register_class_need(INFORMATION_LOSS_NEED, _information_loss, node=True)


# ------------------------------------------------------------------------------------ the models
def _cost_params() -> tuple[Param, ...]:
    """The four amounts every profitability model takes (required: a tool must not guess prices)."""
    return (
        Param("publisher_benefit", "number", ge=0, doc="what the publisher earns per published record"),
        Param("publisher_loss", "number", ge=0, doc="what the publisher loses per record re-identified (a fine)"),
        Param("adversary_gain", "number", ge=0, doc="what the adversary earns per record re-identified"),
        Param("adversary_cost", "number", ge=0, doc="what an attack on one record costs the adversary"),
    )


@dataclass(frozen=True)
class _Costs(Criterion):
    """What the four profitability models share: the amounts (fields) and the attacker model."""

    publisher_benefit: float
    publisher_loss: float
    adversary_gain: float
    adversary_cost: float
    #: the attacker model (``prosecutor`` or ``journalist``)
    attacker: ClassVar[str] = "prosecutor"
    #: whether the adversary's attack is played out (ARX's model) or must not pay (``…NoAttack``)
    attack: ClassVar[bool] = True

    @property
    def costs(self) -> CostBenefit:
        """The cost-benefit configuration (ARX's ``ARXCostBenefitConfiguration``)."""
        return CostBenefit(self.publisher_benefit, self.publisher_loss, self.adversary_gain, self.adversary_cost)

    def _label(self) -> str:
        kind = "profitability" if self.attack else "no-attack profitability"
        return f"{kind} ({self.attacker}; {self.costs.describe()})"


@dataclass(frozen=True)
class _Attack(_Costs):
    def _success(self, stats: ClassStats) -> np.ndarray:
        return success_probability(stats.sizes, None)

    def payouts(self, stats: ClassStats) -> np.ndarray:
        """The publisher's expected payout per record of every class."""
        return publisher_payout(self.costs, stats.need(INFORMATION_LOSS_NEED), self._success(stats))

    def passes(self, stats: ClassStats) -> np.ndarray:
        """A class is kept when the publisher's payout is positive (ARX: a class with no record fails)."""
        return (stats.sizes > 0) & (self.payouts(stats) > 0)

    def achieved(self, stats: ClassStats) -> float:
        """The smallest payout per record of a class (positive when every class pays)."""
        return float(self.payouts(stats).min()) if stats.n_classes else float("inf")

    def describe(self) -> str:
        return self._label()


@dataclass(frozen=True)
class _NoAttack(_Costs):
    attack: ClassVar[bool] = False
    def __post_init__(self) -> None:
        super().__post_init__()
        if self.adversary_cost == 0 and self.adversary_gain > 0:
            raise InputError("an adversary who attacks for free (adversary_cost 0) is deterred by no class size: "
                             "give the attack's cost", key="adversary_cost")

    @property
    def k(self) -> int:
        """The smallest class (or population) size at which an attack does not pay."""
        return deterrent_k(self.adversary_gain, self.adversary_cost)

    def _counted(self, stats: ClassStats) -> np.ndarray:
        return stats.sizes

    def passes(self, stats: ClassStats) -> np.ndarray:
        return self._counted(stats) >= self.k

    def achieved(self, stats: ClassStats) -> float:
        return float(self._counted(stats).min()) if stats.n_classes else float("inf")

    def describe(self) -> str:
        return f"{self._label()[:-1]}; k {self.k})"


_SUMMARY = "the publisher's expected payout of every class is positive in ARX's game-theoretic model "
_NO_ATTACK = "an attack on no class pays the adversary (gain / class size < cost) in ARX's game-theoretic model "


@privacy_model(
    "profitability", label="profitability", needs=("sizes", INFORMATION_LOSS_NEED),
    summary=_SUMMARY + "(prosecutor: success 1 / class size)", params=_cost_params(),
    monotonic_generalization=False, monotonic_suppression=False,
)
@dataclass(frozen=True)
class Profitability(_Attack):
    pass


@privacy_model(
    "profitability-journalist", label="profitability (journalist)",
    needs=("sizes", POPULATION_NEED, INFORMATION_LOSS_NEED),
    summary=_SUMMARY + "(journalist: success 1 / population records; input.subset)", params=_cost_params(),
    monotonic_generalization=False, monotonic_suppression=False,
)
@dataclass(frozen=True)
class JournalistProfitability(_Attack):
    attacker: ClassVar[str] = "journalist"

    def _success(self, stats: ClassStats) -> np.ndarray:
        return success_probability(stats.sizes, stats.need(POPULATION_NEED))


@privacy_model(
    "no-attack-profitability", label="no-attack profitability", needs=("sizes",),
    summary=_NO_ATTACK + "(prosecutor: every class holds k records)", params=_cost_params(),
)
@dataclass(frozen=True)
class NoAttackProfitability(_NoAttack):
    def minimum_class_size(self) -> int:
        return self.k


@privacy_model(
    "no-attack-profitability-journalist", label="no-attack profitability (journalist)",
    needs=("sizes", POPULATION_NEED),
    summary=_NO_ATTACK + "(journalist: every class matches k population records; input.subset)",
    params=_cost_params(),
)
@dataclass(frozen=True)
class JournalistNoAttackProfitability(_NoAttack):
    attacker: ClassVar[str] = "journalist"

    def _counted(self, stats: ClassStats) -> np.ndarray:
        return stats.need(POPULATION_NEED)


def profitability_models(models: Sequence[Any]) -> list[_Costs]:
    """The profitability models among ``models``."""
    return [m for m in models if isinstance(m, _Costs)]
