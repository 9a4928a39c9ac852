"""δ-presence (Nergiz, Atzori & Clifton 2007; ARX's ``DPresence``).

The input is the public population table and ``input.subset`` the research records released. For
every class, the share of its population records that are research records,
``δ = records / population records``, must lie in ``[dmin, dmax]``: an adversary who finds a person
in the population learns that the person is in the research data with probability at most
``dmax`` (and at least ``dmin``).

Classes are those of the whole population (:data:`~anonkit.models.population.POPULATION_NEED`).
A class of research records that fails is suppressed like any other. A class of the population
holding *no* research record has ``δ = 0``: with ``dmin > 0`` it fails and cannot be suppressed
(it has no record to suppress), so the whole transformation fails — ARX's rule, which the
full-domain evaluation applies through :attr:`DeltaPresence.judges_empty_classes`. (ARX skips that
rule when a k-anonymity-like minimal class size is also given, because it checks the class size
first; here it always applies, as the definition says.)

Monotonic under generalization (a merged class's share lies between its parts'), as ARX declares it;
not under suppression (ARX neither): a node may fail because a class would need more suppression
than allowed while a more specialized node passes by suppressing a small class.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonkit.errors import InputError
from anonkit.models.base import Criterion
from anonkit.models.population import POPULATION_NEED
from anonkit.models.spec import Param, privacy_model
from anonkit.stats import ClassStats


@privacy_model(
    "delta-presence", label="δ-presence", needs=("sizes", POPULATION_NEED),
    summary="in every class the research records are between dmin and dmax of its population records "
            "(input.subset: the input is the population, the subset is released)",
    params=(
        Param("dmin", "number", ge=0, le=1, default=0.0, doc="the smallest share of research records in a class"),
        Param("dmax", "number", ge=0, le=1, doc="the largest share of research records in a class"),
    ),
    monotonic_suppression=False,
)
@dataclass(frozen=True)
class DeltaPresence(Criterion):
    dmax: float
    dmin: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.dmin > self.dmax:
            raise InputError(f"dmin ({self.dmin:g}) is above dmax ({self.dmax:g})", key="dmin")

    @property
    def judges_empty_classes(self) -> bool:
        """Population classes without a research record fail (δ = 0 < dmin) and cannot be suppressed."""
        return self.dmin > 0

    def shares(self, stats: ClassStats) -> np.ndarray:
        """δ of every class (0 for a class without research records, as ARX defines it)."""
        population = stats.need(POPULATION_NEED)
        return np.divide(stats.sizes, population, out=np.zeros(len(stats.sizes)), where=population > 0)

    def passes(self, stats: ClassStats) -> np.ndarray:
        delta = self.shares(stats)  # compared as ARX compares its doubles
        return (delta >= self.dmin) & (delta <= self.dmax)

    def achieved(self, stats: ClassStats) -> float:
        """The largest share of research records in a class (the dmax the classes achieve)."""
        return float(self.shares(stats).max()) if stats.n_classes else 0.0

    def describe(self) -> str:
        return f"({self.dmin:g}, {self.dmax:g})-presence"
