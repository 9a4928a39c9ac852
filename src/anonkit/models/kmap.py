"""k-map (Sweeney; El Emam & Dankar 2008): every released class matches at least k population records.

Two models, because they judge different statistics:

* ``k-map`` counts the population explicitly (ARX's ``KMap(k, DataSubset)``): the input is the
  population and ``input.subset`` the records released; a class passes when the population
  records in it (:data:`~anonkit.models.population.POPULATION_NEED`) are at least ``k``. Only
  classes holding research records are judged (ARX: a class without a research record is neither
  published nor suppressed). Monotonic under generalization and suppression (population counts
  add up).
* ``estimated-k-map`` estimates the population from a model of it (ARX's
  ``KMap(k, significance, ARXPopulationModel, estimator)``): with the sampling fraction
  ``f = n / population_size`` the class size a population class of ``k`` records shows in the
  sample is Poisson (Pannekoek) or zero-truncated Poisson (El Emam) with mean ``λ = f·k``; the
  derived ``k'`` is the smallest class size whose cumulative probability reaches ``1 −
  significance`` (never above ``k`` nor the records), and the model is ``k'``-anonymity. ``n`` is
  the number of records anonymized (:meth:`EstimatedKMap.for_records`, which the runner calls).
  ARX's loop is followed exactly, including where it stops at ``k``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from anonkit.errors import InputError
from anonkit.models.base import Criterion
from anonkit.models.population import POPULATION_NEED
from anonkit.models.spec import Param, privacy_model
from anonkit.stats import ClassStats

#: the estimators of the population's class sizes (ARX's ``CellSizeEstimator``)
ESTIMATORS = ("poisson", "zero-truncated-poisson")
#: ARX's test value and the usual choice: a 1 % chance that a class shows fewer than k' records
DEFAULT_SIGNIFICANCE = 0.01


@privacy_model(
    "k-map", label="k-map", needs=("sizes", POPULATION_NEED),
    summary="every released class matches at least k records of the population (input.subset: the input is "
            "the population, the subset is released)",
    params=(Param("k", "count", ge=1, doc="the fewest population records a released class may match"),),
)
@dataclass(frozen=True)
class KMap(Criterion):
    k: int

    def passes(self, stats: ClassStats) -> np.ndarray:
        return stats.need(POPULATION_NEED) >= self.k

    def achieved(self, stats: ClassStats) -> float:
        population = stats.need(POPULATION_NEED)
        return float(population.min()) if stats.n_classes else float("inf")

    def describe(self) -> str:
        return f"{self.k}-map"


@privacy_model(
    "estimated-k-map", label="k-map (estimated)", needs=("sizes",),
    summary="k-map with the population estimated from its size: a derived k'-anonymity (Poisson or "
            "zero-truncated Poisson, at a significance level)",
    params=(
        Param("k", "count", ge=1, doc="the fewest population records a released class may match"),
        Param("population_size", "count", ge=1, doc="the number of people in the population"),
        Param("estimator", "choice", default="zero-truncated-poisson", choices=ESTIMATORS,
              doc="how class sizes in the population are estimated"),
        Param("significance", "number", ge=0, le=1, default=DEFAULT_SIGNIFICANCE,
              doc="the accepted chance that a class matches fewer than k population records"),
    ),
)
@dataclass(frozen=True)
class EstimatedKMap(Criterion):
    k: int
    population_size: int
    estimator: str = "zero-truncated-poisson"
    significance: float = DEFAULT_SIGNIFICANCE

    @property
    def records(self) -> int | None:
        """The records anonymized (:meth:`for_records`; not a parameter: the data give it)."""
        return self.__dict__.get("_records")

    def for_records(self, n: int) -> EstimatedKMap:
        """This model for ``n`` records anonymized (the sampling fraction's numerator)."""
        if n > self.population_size:
            raise InputError(f"population_size ({self.population_size}) is smaller than the records anonymized "
                             f"({n}): the population holds the sample", key="population_size")
        out = replace(self)
        object.__setattr__(out, "_records", int(n))
        return out

    @property
    def derived_k(self) -> int:
        """ARX's ``k'``: the class size the sample must show (see the module docstring)."""
        if self.records is None:
            raise InputError("estimated k-map needs the number of records anonymized: use for_records(n)",
                             key="records")
        lam = self.records / self.population_size * self.k
        found = _k_poisson(lam, self.k, self.significance) if self.estimator == "poisson" else \
            _k_zero_truncated(lam, self.k, self.significance)
        return int(min(self.k, found, self.records))

    def passes(self, stats: ClassStats) -> np.ndarray:
        return stats.sizes >= self.derived_k

    def achieved(self, stats: ClassStats) -> float:
        return float(stats.sizes.min()) if stats.n_classes else float("inf")

    def minimum_class_size(self) -> int:
        return self.derived_k

    def describe(self) -> str:
        est = "Poisson" if self.estimator == "poisson" else "zero-truncated Poisson"
        k2 = "unknown" if self.records is None else str(self.derived_k)
        return f"{self.k}-map estimated as ({k2})-anonymity ({est}, population {self.population_size})"


def _k_poisson(lam: float, k: int, significance: float) -> int:
    """ARX's ``calculateKPoisson``: count up until the Poisson CDF reaches ``1 − significance`` (or k)."""
    from scipy.stats import poisson

    threshold = 1.0 - significance
    counter, value = 0, 0.0
    while value < threshold:
        value = float(poisson.cdf(counter, lam))
        counter += 1
        if counter >= k:
            break
    return counter + 1


def _k_zero_truncated(lam: float, k: int, significance: float) -> int:
    """ARX's ``calculateKZeroPoisson``: add zero-truncated Poisson probabilities from 1 until they
    reach ``1 − significance`` (or k)."""
    from scipy.stats import poisson

    threshold = 1.0 - significance
    v2 = 1.0 - float(poisson.pmf(0, lam))
    counter, value = 1, 0.0
    while value < threshold:
        value += float(poisson.pmf(counter, lam)) / v2
        counter += 1
        if counter >= k:
            break
    return counter


def for_records(models: list[Criterion], n: int) -> list[Criterion]:
    """``models`` with every estimated k-map set to ``n`` records anonymized (others unchanged)."""
    return [m.for_records(n) if isinstance(m, EstimatedKMap) else m for m in models]
