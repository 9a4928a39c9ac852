"""t-closeness (Li, Li, Venkatasubramanian, ICDE 2007; spec §1.3).

The Earth Mover's Distance between a class's sensitive distribution ``P`` and the reference ``Q``
(the whole input table, fixed before anonymization) must not exceed ``t``. Closed forms, as ARX
computes them:

* equal distance: ``½ Σ |pᵢ − qᵢ|``;
* ordered distance: ``Σᵢ |Σ_{j≤i} (pⱼ − qⱼ)| / (m − 1)`` over the ``m`` values of the domain in order;
* hierarchical distance: ``Σ_{internal N} (level(N)/H) · min(pos(N), neg(N))``, where the extras of a
  node's children are netted bottom-up.

Monotonic under generalization, not under suppression.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonkit.errors import InputError
from anonkit.models.base import Criterion, check_choice, check_name, check_positive
from anonkit.stats import ClassStats, SensitiveDomain


def emd_equal(p: np.ndarray, domain: SensitiveDomain) -> np.ndarray:
    """Equal-distance EMD of every class distribution (row of ``p``) to the reference."""
    return 0.5 * np.abs(p - domain.reference).sum(axis=1)


def emd_ordered(p: np.ndarray, domain: SensitiveDomain) -> np.ndarray:
    """Ordered-distance EMD of every class distribution (row of ``p``) to the reference."""
    m = domain.size
    if m <= 1:
        return np.zeros(len(p))
    cum = np.cumsum(p - domain.reference, axis=1)
    return np.abs(cum).sum(axis=1) / (m - 1)


def emd_hierarchical(p: np.ndarray, domain: SensitiveDomain) -> np.ndarray:
    """Hierarchical-distance EMD of every class distribution (row of ``p``) to the reference."""
    if domain.height == 0:
        raise InputError(
            "hierarchical t-closeness needs a hierarchy for the sensitive attribute", column=domain.name
        )
    height = domain.height
    extra = p - domain.reference  # extras of the leaves (the domain values)
    child_of_value = np.arange(domain.size)  # id of every domain value's node one level down
    cost = np.zeros(len(p))
    for level in range(1, height + 1):
        anc = domain.ancestors[level - 1]
        n_children = extra.shape[1]
        parent = np.zeros(n_children, dtype=np.int64)
        parent[child_of_value] = anc
        k = int(anc.max()) + 1
        onehot = np.zeros((n_children, k))
        onehot[np.arange(n_children), parent] = 1.0
        pos = np.maximum(extra, 0.0) @ onehot
        neg = np.maximum(-extra, 0.0) @ onehot
        cost += (level / height) * np.minimum(pos, neg).sum(axis=1)
        extra = pos - neg
        child_of_value = anc
    return cost


_DISTANCES = {"equal": emd_equal, "ordered": emd_ordered, "hierarchical": emd_hierarchical}


@dataclass(frozen=True)
class TCloseness(Criterion):
    sensitive: str
    t: float
    distance: str = "equal"
    name = "t-closeness"
    monotonic_suppression = False

    def __post_init__(self) -> None:
        check_name("sensitive", self.sensitive)
        object.__setattr__(self, "t", check_positive("t", self.t, upper=1.0))
        check_choice("distance", self.distance, tuple(_DISTANCES))

    @property
    def attribute(self) -> str:
        return self.sensitive

    def emd(self, stats: ClassStats) -> np.ndarray:
        self._hist(stats)
        return _DISTANCES[self.distance](stats.distribution(self.sensitive), stats.domains[self.sensitive])

    def passes(self, stats: ClassStats) -> np.ndarray:
        return self.emd(stats) <= self.t + 1e-12

    def achieved(self, stats: ClassStats) -> float:
        e = self.emd(stats)
        return float(e.max()) if len(e) else 0.0

    def describe(self) -> str:
        return f"{self.t:g}-closeness of {self.sensitive} ({self.distance} distance)"
