"""k-anonymity (Samarati & Sweeney 1998; spec §1.1).

Every released equivalence class has at least ``k`` records. Given ``qis``, the requirement applies
to the classes formed by that subset of the quasi-identifiers only (several anonymity requirements
⟨attribute set, k⟩ may be combined). Monotonic under generalization and suppression.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonkit.models.base import Criterion
from anonkit.models.spec import Param, privacy_model
from anonkit.stats import ClassStats


@privacy_model(
    "k-anonymity", label="k-anonymity", needs=("sizes",),
    summary="every class has at least k records (persons, with a person column)",
    params=(
        Param("k", "count", ge=1, doc="the smallest class size"),
        Param("attributes", "columns", default=None,
              doc="the quasi-identifiers whose classes are counted (default: all of them)"),
    ),
)
@dataclass(frozen=True)
class KAnonymity(Criterion):
    k: int
    attributes: tuple[str, ...] | None = None

    @property
    def qis(self) -> tuple[str, ...] | None:
        return self.attributes

    def passes(self, stats: ClassStats) -> np.ndarray:
        return stats.sizes >= self.k

    def achieved(self, stats: ClassStats) -> float:
        return float(stats.sizes.min()) if stats.n_classes else float("inf")

    def minimum_class_size(self) -> int:
        return int(self.k)

    def describe(self) -> str:
        on = f" on {', '.join(self.attributes)}" if self.attributes else ""
        return f"{self.k}-anonymity{on}"
