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
from anonkit.models.base import Criterion
from anonkit.models.ldiversity import SENSITIVE
from anonkit.models.spec import Param, privacy_model
from anonkit.stats import ClassStats, SensitiveDomain

#: how far above ``t`` a class's distance may lie and still pass: the rounding of a distance computed in
#: floating point, so a class exactly at ``t`` is not refused for it
T_SLACK = 1e-12


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


@privacy_model(
    "t-closeness", label="t-closeness",
    summary="the distance of every class's sensitive distribution to the whole table's is at most t",
    params=(SENSITIVE, Param("t", "number", gt=0, le=1, doc="the largest Earth Mover's Distance"),
            Param("distance", "choice", default="equal", choices=tuple(_DISTANCES),
                  doc="the ground distance (hierarchical needs a hierarchy on the attribute)")),
    needs=("histogram", "reference"), monotonic_suppression=False,
)
@dataclass(frozen=True)
class TCloseness(Criterion):
    sensitive: str
    t: float
    distance: str = "equal"

    @property
    def attribute(self) -> str:
        return self.sensitive

    def emd(self, stats: ClassStats) -> np.ndarray:
        self._hist(stats)
        return _DISTANCES[self.distance](stats.distribution(self.sensitive), stats.domains[self.sensitive])

    def passes(self, stats: ClassStats) -> np.ndarray:
        return self.emd(stats) <= self.t + T_SLACK

    def achieved(self, stats: ClassStats) -> float:
        e = self.emd(stats)
        return float(e.max()) if len(e) else 0.0

    def describe(self) -> str:
        return f"{self.t:g}-closeness of {self.sensitive} ({self.distance} distance)"
