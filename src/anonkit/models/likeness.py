"""β-likeness (Cao & Karras, VLDB 2012; spec §1.4) and δ-disclosure privacy (Brickell & Shmatikov, KDD 2008).

β-likeness bounds the relative gain in confidence about every sensitive value: for every value
``s`` with ``p_s > q_s``, ``(p_s − q_s)/q_s ≤ β`` (basic) or ``≤ min(β, −ln q_s)`` (enhanced), ``q``
the reference distribution of the input table. δ-disclosure requires ``|log₂(p_s/q_s)| < δ`` for
every value present in the class (strict, as ARX). Neither is monotonic under suppression;
β-likeness is monotonic under generalization, δ-disclosure is not (ARX compatibility §2.1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonkit.models.base import Criterion
from anonkit.models.ldiversity import SENSITIVE
from anonkit.models.spec import Param, privacy_model
from anonkit.stats import ClassStats


def gains(p: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Relative gain ``(p − q)/q`` where positive, 0 elsewhere (C × S), for class distributions ``p``."""
    q = np.where(reference > 0, reference, 1.0)
    return np.where((p > reference) & (reference > 0), (p - reference) / q, 0.0)


@privacy_model(
    "beta-likeness", label="beta-likeness",
    summary="no class raises the confidence in a sensitive value by more than β relative to the whole table",
    params=(SENSITIVE, Param("beta", "number", gt=0, doc="the largest relative gain in confidence"),
            Param("enhanced", "flag", default=False, key="variant", words={"basic": False, "enhanced": True},
                  doc="enhanced β-likeness bounds the gain by min(β, −ln q) (config: variant: enhanced)")),
    needs=("histogram", "reference"), monotonic_suppression=False,
)
@dataclass(frozen=True)
class BetaLikeness(Criterion):
    sensitive: str
    beta: float
    enhanced: bool = False

    @property
    def attribute(self) -> str:
        return self.sensitive

    def _bound(self, reference: np.ndarray) -> np.ndarray:
        if not self.enhanced:
            return np.full(reference.shape, float(self.beta))
        with np.errstate(divide="ignore"):
            return np.minimum(self.beta, -np.log(reference))

    def passes(self, stats: ClassStats) -> np.ndarray:
        q = stats.domains[self.sensitive].reference
        self._hist(stats)
        return (gains(stats.distribution(self.sensitive), q) <= self._bound(q) + 1e-12).all(axis=1)

    def achieved(self, stats: ClassStats) -> float:
        """Basic: the largest gain. Enhanced: the same, or ∞ if a gain exceeds ``−ln q_s``."""
        q = stats.domains[self.sensitive].reference
        self._hist(stats)
        g = gains(stats.distribution(self.sensitive), q)
        if not g.size:
            return 0.0
        if self.enhanced:
            with np.errstate(divide="ignore"):
                if (g > -np.log(q) + 1e-12).any():
                    return float("inf")
        return float(g.max())

    def describe(self) -> str:
        kind = "enhanced" if self.enhanced else "basic"
        return f"{kind} {self.beta:g}-likeness of {self.sensitive}"


def disclosure(p: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``max_s |log₂(p_s/q_s)|`` over the values present in each class (distributions ``p``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.abs(np.log2(np.where(p > 0, p, 1.0) / np.where(reference > 0, reference, 1.0)))
    return np.where(p > 0, ratio, 0.0).max(axis=1) if len(p) else np.zeros(0)


@privacy_model(
    "delta-disclosure", label="delta-disclosure",
    summary="|log₂(p/q)| < δ for every sensitive value present in a class",
    params=(SENSITIVE, Param("delta", "number", gt=0, doc="the bound on the log-ratio of confidences")),
    needs=("histogram", "reference"), monotonic_generalization=False, monotonic_suppression=False,
)
@dataclass(frozen=True)
class DeltaDisclosure(Criterion):
    sensitive: str
    delta: float

    @property
    def attribute(self) -> str:
        return self.sensitive

    def passes(self, stats: ClassStats) -> np.ndarray:
        q = stats.domains[self.sensitive].reference
        self._hist(stats)
        return disclosure(stats.distribution(self.sensitive), q) < self.delta

    def achieved(self, stats: ClassStats) -> float:
        q = stats.domains[self.sensitive].reference
        self._hist(stats)
        d = disclosure(stats.distribution(self.sensitive), q)
        return float(d.max()) if d.size else 0.0

    def describe(self) -> str:
        return f"{self.delta:g}-disclosure privacy of {self.sensitive}"
