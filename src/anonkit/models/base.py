"""The :class:`Criterion` interface: a privacy model judges equivalence classes from statistics.

A criterion receives a :class:`~anonkit.stats.ClassStats` (class sizes and sensitive histograms) and
returns one boolean per class (``passes``) and the parameter the classes achieve (``achieved``).
The same code serves the search algorithms, local recoding and the independent verifier.

Each criterion declares whether it is monotonic under generalization and under suppression (ARX
compatibility §2.1, the ``Mono(S)/Mono(G)`` flags), so a lattice search may prune only where that
is sound.
"""

from __future__ import annotations

import math
import numbers
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


def check_positive(name: str, value: object, *, integer: bool = False, upper: float | None = None) -> float:
    """A model parameter, validated and returned as a plain ``float`` (``int`` with ``integer``).

    Strict, as the config is: a number (a Python or numpy number, not ``True`` and not ``"5"``),
    finite, positive, whole with ``integer`` (``5.0`` is taken as 5) and at most ``upper``. A
    boolean is refused because ``KAnonymity(True)`` would otherwise be 1-anonymity, which protects
    nobody. The error names the parameter and the value."""
    kind = "a positive whole number" if integer else "a positive number"
    bound = f" at most {upper}" if upper is not None else ""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise InputError(f"{name} must be {kind}{bound}, got {type(value).__name__} {value!r}", key=name)
    number = float(value)
    ok = (math.isfinite(number) and number > 0 and (not integer or number.is_integer())
          and (upper is None or number <= upper))
    if not ok:
        raise InputError(f"{name} must be {kind}{bound}, got {value!r}", key=name)
    return int(number) if integer else number


def check_name(name: str, value: object) -> str:
    """A column name a model refers to: text (a number here is usually a parameter given in the
    attribute's place)."""
    if not isinstance(value, str) or not value:
        raise InputError(f"{name} must be a column name (text), got {type(value).__name__} {value!r}", key=name)
    return value


def check_flag(name: str, value: object) -> bool:
    """A yes/no parameter: ``True`` or ``False`` (not ``"no"``, which Python would take for true)."""
    if not isinstance(value, bool | np.bool_):
        raise InputError(f"{name} must be True or False, got {type(value).__name__} {value!r}", key=name)
    return bool(value)


def check_choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    """One of ``allowed`` (text)."""
    if not isinstance(value, str) or value not in allowed:
        raise InputError(f"{name} must be one of {', '.join(allowed)}, got {value!r}", key=name)
    return value
