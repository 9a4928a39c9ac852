"""The :class:`Criterion` interface: a privacy model judges equivalence classes from statistics.

A criterion receives a :class:`~anonkit.stats.ClassStats` (class sizes and sensitive histograms) and
returns one boolean per class (``passes``) and the parameter the classes achieve (``achieved``).
The same code serves the search algorithms, local recoding and the independent verifier.

Each criterion declares whether it is monotonic under generalization and under suppression (ARX
compatibility §2.1, the ``Mono(S)/Mono(G)`` flags), so a lattice search may prune only where that
is sound.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from anonkit.errors import InputError
from anonkit.stats import ClassStats


@dataclass(frozen=True)
class Criterion(ABC):
    """Base class of privacy models."""

    #: Monotonic under generalization: if a node satisfies the model, all its generalizations do.
    monotonic_generalization = True
    #: Monotonic also when classes may be suppressed (ARX's Mono(S)).
    monotonic_suppression = True
    #: The model's short name, as in the config (``model:``).
    name = "criterion"

    @property
    def attribute(self) -> str | None:
        """The sensitive attribute the model protects (None for k-anonymity)."""
        return None

    @property
    def qis(self) -> tuple[str, ...] | None:
        """The quasi-identifier subset the model groups by (None: all of them)."""
        return None

    @abstractmethod
    def passes(self, stats: ClassStats) -> np.ndarray:
        """One boolean per class: does the class satisfy the model?"""

    @abstractmethod
    def achieved(self, stats: ClassStats) -> float:
        """The model's parameter achieved by all classes together (worst class)."""

    def minimum_class_size(self) -> int:
        """A class smaller than this can never pass (used for cheap pruning)."""
        return 1

    def describe(self) -> str:
        return self.name

    def _hist(self, stats: ClassStats) -> np.ndarray:
        attr = self.attribute
        if attr not in stats.hist:
            raise InputError(f"{self.name} needs a sensitive attribute", column=attr)
        return stats.hist[attr]


def check_positive(name: str, value: float, *, integer: bool = False, upper: float | None = None) -> None:
    """Validate a model parameter; the error names the parameter and what is allowed."""
    ok = value > 0 and (not integer or float(value).is_integer()) and (upper is None or value <= upper)
    if not ok:
        kind = "a positive whole number" if integer else "a positive number"
        bound = f" at most {upper}" if upper is not None else ""
        raise InputError(f"{name} must be {kind}{bound}, got {value!r}", key=name)
