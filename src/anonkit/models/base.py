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
from typing import ClassVar

import numpy as np

from anonkit.errors import InputError
from anonkit.models.spec import ModelSpec, check_choice, check_flag, check_name, check_positive
from anonkit.stats import ClassStats

__all__ = ["Criterion", "check_choice", "check_flag", "check_name", "check_positive"]


@dataclass(frozen=True)
class Criterion(ABC):
    """Base class of privacy models. A model is declared with :func:`~anonkit.models.spec.privacy_model`
    (its :attr:`spec`); the constructor checks every argument through the declaration."""

    #: The model's declaration (an undeclared subclass is a monotonic class model without parameters).
    spec: ClassVar[ModelSpec]
    #: The model's short name (its declaration's ``name``).
    name: ClassVar[str] = "criterion"

    def __post_init__(self) -> None:
        type(self).spec.check(self)

    @property
    def monotonic_generalization(self) -> bool:
        """Monotonic under generalization: if a node satisfies the model, all its generalizations do."""
        return type(self).spec.monotonic_under_generalization(self)

    @property
    def monotonic_suppression(self) -> bool:
        """Monotonic also when classes may be suppressed (ARX's Mono(S))."""
        return type(self).spec.monotonic_suppression

    @property
    def record_level(self) -> bool:
        """Judged from the records of each class (their priors), not from class statistics."""
        return type(self).spec.record_level

    @property
    def whole_release(self) -> bool:
        """Judged on the whole release (``scope="release"``), after the class models: see
        :meth:`release_passes`."""
        return type(self).spec.scope == "release"

    def release_passes(self, stats: ClassStats) -> bool:
        """Does the release whose released classes are ``stats`` satisfy the model? A class model
        holds when every class passes; a whole-release model judges the classes together."""
        return bool(self.passes(stats).all())

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


Criterion.spec = ModelSpec(name="criterion", cls=Criterion, label="privacy model", summary="", params=(),
                           needs=frozenset({"sizes"}))
