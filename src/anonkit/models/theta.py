"""θ-sensitive k-anonymity (Khan, Tao, Anjum et al., Electronics 2020; spec §1.5), the privacy model
of paper D's (θ*, k)-utility angelization.

Every sensitive value has an ordinal *category* (declared on the attribute: ``categories``, in
``category_order``; paper D's five are Asymptomatic < Low < Mild < High < Severe, codes 0 … 4). A
class passes when it has at least ``k`` members and the **population variance of its category
codes is at least θ = λ · V_full(k)**: ``V_full(k)`` is the variance of a "fully diverse" class of
``k`` members, λ a constant the paper tunes to 0.5–0.9 (default 0.5). The paper tabulates
``V_full`` = 0.25, 0.67, 1.25, 2.0 for k = 2 … 5, i.e. ``(k² − 1)/12``, the variance of ``k``
consecutive codes.

Decisions (spec §1.5 register): with ``C`` categories a class of ``k > C`` members cannot be fully
diverse, so ``V_full(k)`` is the variance of ``k`` members spread as evenly as possible over the
``C`` codes — the codes ``i mod C`` for ``i = 0 … k−1`` — which is ``(k² − 1)/12`` when ``k ≤ C``.
The paper's "greater than θ" is taken as ``≥`` (they differ only at equality). Variance rewards
spread rather than diversity (codes {0,0,3,3} pass where {0,1,2,3} is the reference), so the
optional rule ``distinct=True`` also asks for at least ``min(k, C)`` distinct categories.

Worked examples (spec §1.5, k = 4, λ = 0.8, θ = 1.0): codes {1,2,3,4} (variance 1.25) pass,
{1,1,2,2} (0.25) and {1,2,2,3} (0.5) fail, {1,1,4,4} (2.25) passes.

The model is monotonic under generalization (the variance of a union of classes is at least the
weighted mean of theirs) but not under suppression.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonkit.errors import InputError
from anonkit.models.base import Criterion
from anonkit.models.ldiversity import SENSITIVE
from anonkit.models.spec import Param, privacy_model
from anonkit.stats import ClassStats

#: λ of θ = λ · V_full(k) unless given (spec §4.5)
DEFAULT_LAMBDA = 0.5


def full_variance(k: int, categories: int) -> float:
    """``V_full(k)``: the population variance of ``k`` members spread as evenly as possible over
    ``categories`` codes (codes ``i mod C``); ``(k² − 1)/12`` when ``k ≤ C``."""
    codes = np.arange(int(k)) % max(int(categories), 1)
    return float(codes.var()) if k else 0.0


@privacy_model(
    "theta-sensitivity", label="theta-sensitivity",
    summary="every class has at least k members and its category codes a variance of at least λ·V_full(k)",
    params=(SENSITIVE, Param("k", "count", ge=1, doc="the smallest class size"),
            Param("lam", "number", default=DEFAULT_LAMBDA, gt=0, le=1, key="lambda", api="lambda",
                  doc="λ of θ = λ · V_full(k)"),
            Param("distinct", "flag", default=False, doc="also ask for min(k, C) distinct categories")),
    needs=("sizes", "histogram", "categories"), monotonic_suppression=False,
)
@dataclass(frozen=True)
class ThetaSensitivity(Criterion):
    """θ-sensitive k-anonymity of ``sensitive`` (see the module docstring)."""

    sensitive: str
    k: int
    lam: float = DEFAULT_LAMBDA
    distinct: bool = False

    @property
    def attribute(self) -> str:
        return self.sensitive

    def minimum_class_size(self) -> int:
        return int(self.k)

    def _codes(self, stats: ClassStats) -> tuple[np.ndarray, int]:
        """The ``C × categories`` histogram of category codes, and the number of categories."""
        hist = self._hist(stats)
        domain = stats.domains[self.sensitive]
        if domain.category is None:
            raise InputError(f"{self.describe()} needs categories on the sensitive attribute (categories: …)",
                             column=self.sensitive, key="categories")
        n_cat = len(domain.category_labels)
        out = np.zeros((hist.shape[0], n_cat), dtype=np.float64)
        np.add.at(out.T, domain.category, hist.T)
        return out, n_cat

    def theta(self, categories: int) -> float:
        """θ = λ · V_full(k) for ``categories`` categories."""
        return self.lam * full_variance(self.k, categories)

    def variance(self, stats: ClassStats) -> np.ndarray:
        """The population variance of every class's category codes."""
        cat, _ = self._codes(stats)
        n = cat.sum(axis=1)
        codes = np.arange(cat.shape[1], dtype=np.float64)
        safe = np.where(n > 0, n, 1)
        mean = (cat @ codes) / safe
        return np.maximum((cat @ codes**2) / safe - mean**2, 0.0)

    def passes(self, stats: ClassStats) -> np.ndarray:
        cat, n_cat = self._codes(stats)
        ok = (stats.sizes >= self.k) & (self.variance(stats) >= self.theta(n_cat) - 1e-12)
        if self.distinct:
            ok &= np.count_nonzero(cat, axis=1) >= min(int(self.k), n_cat)
        return ok

    def achieved(self, stats: ClassStats) -> float:
        """The smallest class variance (compare with θ)."""
        v = self.variance(stats)
        return float(v.min()) if len(v) else float("inf")

    def describe(self) -> str:
        extra = ", ≥ min(k, C) categories" if self.distinct else ""
        return f"θ-sensitive {self.k}-anonymity of {self.sensitive} (λ = {self.lam:g}{extra})"
