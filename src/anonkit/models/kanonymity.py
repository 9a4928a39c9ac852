"""k-anonymity (Samarati & Sweeney 1998; spec §1.1).

Every released equivalence class has at least ``k`` records. Given ``qis``, the requirement applies
to the classes formed by that subset of the quasi-identifiers only (several anonymity requirements
⟨attribute set, k⟩ may be combined). Monotonic under generalization and suppression.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from anonkit.errors import InputError
from anonkit.models.base import Criterion, check_name, check_positive
from anonkit.stats import ClassStats


@dataclass(frozen=True)
class KAnonymity(Criterion):
    k: int
    attributes: tuple[str, ...] | None = None
    name = "k-anonymity"

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_positive("k", self.k, integer=True))
        if self.attributes is not None:
            if isinstance(self.attributes, str) or not isinstance(self.attributes, Iterable):
                raise InputError(f"attributes must be a list of quasi-identifier names, got "
                                 f"{type(self.attributes).__name__} {self.attributes!r}", key="attributes")
            names = tuple(check_name("attributes", a) for a in self.attributes)
            if not names:
                raise InputError("attributes must name at least one quasi-identifier (None: all of them)",
                                 key="attributes")
            object.__setattr__(self, "attributes", names)

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
