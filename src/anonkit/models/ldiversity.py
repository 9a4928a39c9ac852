"""l-diversity (Machanavajjhala, Kifer, Gehrke, Venkitasubramaniam, ICDE 2006; spec §1.2).

Variants, as ARX implements them (ARX compatibility §2.1):

* distinct-l: every class has at least ``l`` distinct sensitive values;
* entropy-l: at least ``⌈l⌉`` distinct values and ``H(class) ≥ ln l`` with the Shannon estimator, or
  with Grassberger's bias-corrected estimator (Grassberger 2003, as offered by ARX);
* recursive-(c, l): at least ``l`` distinct values and ``r₁ < c·(r_l + … + r_m)`` for the
  descending counts ``r``;
* frequency-l (the variant of Gong et al.'s 1:M code, ``Mondrian_L_Diversity``; spec §1.2): at least
  ``⌈l⌉`` distinct values **and** no value in more than ``|EC|/l`` records of its class.

Only distinct-l is monotonic under suppression; all are monotonic under generalization.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from anonkit.models.base import Criterion
from anonkit.models.spec import Param, When, privacy_model
from anonkit.stats import ClassStats

#: the sensitive attribute a model protects (the config's ``attribute:``)
SENSITIVE = Param("sensitive", "column", key="attribute", doc="the sensitive attribute the model protects")
#: l of distinct, entropy and frequency l-diversity (a real number: entropy's l need not be whole)
L_REAL = Param("l", "number", gt=0, doc="the diversity each class reaches")
#: the entropy estimators
ESTIMATORS = ("shannon", "grassberger")


def distinct_counts(hist: np.ndarray) -> np.ndarray:
    return np.count_nonzero(hist, axis=1)


_XLOGX = np.zeros(1)


def _xlogx(counts: np.ndarray) -> np.ndarray:
    """``f ln f`` of integer counts through a lookup table grown on demand (0 ln 0 = 0)."""
    global _XLOGX
    top = int(counts.max()) if counts.size else 0
    if top >= len(_XLOGX):
        f = np.arange(max(top + 1, 2 * len(_XLOGX)), dtype=float)
        _XLOGX = np.where(f > 0, f * np.log(np.where(f > 0, f, 1.0)), 0.0)
    return _XLOGX[counts]


def _grassberger_table(limit: int = 100) -> np.ndarray:
    """``G(n)`` for ``n = 0..limit``: ``G(2m) = G(2m+1) = −γ − ln 2 + Σ_{k=1..m} 2/(2k−1)``."""
    m = np.arange(limit // 2 + 1)
    series = np.concatenate([[0.0], np.cumsum(2.0 / (2.0 * np.arange(1, limit // 2 + 1) - 1.0))])
    even = -np.euler_gamma - math.log(2.0) + series[m]
    table = np.repeat(even, 2)[: limit + 1]
    table[0] = 0.0
    return table


_G_TABLE = _grassberger_table()


def grassberger(counts: np.ndarray) -> np.ndarray:
    """Grassberger's corrected logarithm ``G(n)`` (Grassberger 2003), computed as ARX does.

    ``G(n) = ψ(n) + ½(−1)ⁿ(ψ((n+1)/2) − ψ(n/2))``, which equals ``−γ − ln 2 + Σ_{k=1..⌊n/2⌋} 2/(2k−1)``;
    like ARX, values up to 100 come from that sum and larger ones from the asymptotic series
    ``ln n + m(1/24 − m(7/960 − m·31/8064))``, ``m = 1/(n/2)²``, with ``n`` made even. ``G(0) = 0``.
    """
    n = np.asarray(counts, dtype=float)
    out = np.zeros_like(n)
    small = (n > 0) & (n <= 100)
    out[small] = _G_TABLE[n[small].astype(np.int64)]
    big = n > 100
    if big.any():
        even = n[big] - np.mod(n[big], 2)
        m = 1.0 / ((even / 2) * (even / 2))
        out[big] = np.log(even) + m * (1 / 24 - m * (7 / 960 - m * 31 / 8064))
    return out


def entropy_nats(hist: np.ndarray, estimator: str = "shannon") -> np.ndarray:
    """Entropy (natural log) of every class's sensitive histogram.

    Shannon: ``ln n − Σ f ln f / n``; Grassberger: ``G(n) − Σ f G(f) / n``.
    """
    n = hist.sum(axis=1)
    safe = np.where(n > 0, n, 1)
    if estimator == "shannon":
        counts = hist.astype(np.int64)
        if np.array_equal(counts, hist):  # integer counts (always, for records): lookup table
            flogf = _xlogx(counts).sum(axis=1)
        else:
            flogf = np.where(hist > 0, hist * np.log(np.where(hist > 0, hist, 1)), 0.0).sum(axis=1)
        return np.where(n > 0, np.log(safe) - flogf / safe, 0.0)
    g = grassberger(hist)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, grassberger(n) - (hist * g).sum(axis=1) / np.where(n > 0, n, 1), 0.0)


@privacy_model(
    "distinct-l-diversity", label="distinct l-diversity", variant_of="l-diversity", variant="distinct",
    summary="every class has at least l distinct sensitive values", params=(SENSITIVE, L_REAL),
    needs=("histogram",),
)
@dataclass(frozen=True)
class DistinctLDiversity(Criterion):
    sensitive: str
    l: float  # noqa: E741

    @property
    def attribute(self) -> str:
        return self.sensitive

    def passes(self, stats: ClassStats) -> np.ndarray:
        self._hist(stats)
        return stats.distinct(self.sensitive) >= math.ceil(self.l)

    def achieved(self, stats: ClassStats) -> float:
        h = self._hist(stats)
        return float(distinct_counts(h).min()) if len(h) else float("inf")

    def minimum_class_size(self) -> int:
        return math.ceil(self.l)

    def describe(self) -> str:
        return f"distinct {self.l:g}-diversity of {self.sensitive}"


@privacy_model(
    "entropy-l-diversity", label="entropy l-diversity", variant_of="l-diversity", variant="entropy",
    summary="every class has at least ⌈l⌉ distinct sensitive values and entropy at least ln l",
    params=(SENSITIVE, L_REAL, Param("estimator", "choice", default="shannon", choices=ESTIMATORS,
                                      doc="the entropy estimator (Grassberger's is bias-corrected)")),
    needs=("histogram",),
    # Shannon entropy is concave, so merging passing classes passes; Grassberger's estimator is not
    # (classes {A,B} and {A,B} pass l = 2, their union {A,A,B,B} does not), so a search must not prune
    monotonic_generalization=When("estimator", "shannon"), monotonic_suppression=False,
)
@dataclass(frozen=True)
class EntropyLDiversity(Criterion):
    sensitive: str
    l: float  # noqa: E741
    estimator: str = "shannon"

    @property
    def attribute(self) -> str:
        return self.sensitive

    def passes(self, stats: ClassStats) -> np.ndarray:
        h = self._hist(stats)
        ok = stats.distinct(self.sensitive) >= math.ceil(self.l)
        out = np.zeros(len(h), dtype=bool)
        idx = np.flatnonzero(ok)
        out[idx] = entropy_nats(h[idx], self.estimator) >= math.log(self.l) - 1e-12
        return out

    def achieved(self, stats: ClassStats) -> float:
        h = self._hist(stats)
        if not len(h):
            return float("inf")
        return float(np.minimum(np.exp(entropy_nats(h, self.estimator)), distinct_counts(h)).min())

    def minimum_class_size(self) -> int:
        return math.ceil(self.l)

    def describe(self) -> str:
        return f"entropy {self.l:g}-diversity of {self.sensitive} ({self.estimator})"


@privacy_model(
    "recursive-cl-diversity", label="recursive l-diversity", config_name="recursive-l-diversity",
    variant_of="l-diversity", variant="recursive",
    summary="every class has at least l distinct values and r₁ < c·(r_l + … + r_m)",
    params=(SENSITIVE, Param("l", "count", ge=1, doc="the number of values counted (a whole number)"),
            Param("c", "number", gt=0, doc="the bound on the most frequent value's share")),
    needs=("histogram",), monotonic_suppression=False,
)
@dataclass(frozen=True)
class RecursiveCLDiversity(Criterion):
    sensitive: str
    c: float
    l: int  # noqa: E741

    @property
    def attribute(self) -> str:
        return self.sensitive

    def _ratio(self, hist: np.ndarray) -> np.ndarray:
        r = -np.sort(-hist, axis=1)
        top = r[:, 0]
        tail = r[:, int(self.l) - 1 :].sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(tail > 0, top / np.where(tail > 0, tail, 1), np.inf)

    def passes(self, stats: ClassStats) -> np.ndarray:
        h = self._hist(stats)
        return (distinct_counts(h) >= self.l) & (self._ratio(h) < self.c)

    def achieved(self, stats: ClassStats) -> float:
        """The smallest ``c`` would have to exceed: max over classes of ``r₁ / (r_l + … + r_m)``."""
        h = self._hist(stats)
        return float(self._ratio(h).max()) if len(h) else 0.0

    def minimum_class_size(self) -> int:
        return int(self.l)

    def describe(self) -> str:
        return f"recursive ({self.c:g},{self.l})-diversity of {self.sensitive}"


@privacy_model(
    "frequency-l-diversity", label="frequency l-diversity", variant_of="l-diversity", variant="frequency",
    summary="every class has at least ⌈l⌉ distinct values and no value in more than |EC|/l of its records",
    params=(SENSITIVE, L_REAL), needs=("histogram",), monotonic_suppression=False,
)
@dataclass(frozen=True)
class FrequencyLDiversity(Criterion):
    """Frequency l-diversity (spec §1.2): every class has at least ``⌈l⌉`` distinct values of
    ``sensitive`` and no value occurs in more than ``|EC|/l`` of its records (``count · l ≤ |EC|``).

    EC {A,A,B,D}: l = 2 holds (A: 2 ≤ 4/2); l = 3 fails (A: 2 > 4/3) although it has 3 distinct
    values. ``achieved`` is the largest l every class meets: ``min`` over classes of
    ``min(distinct, |EC| / largest count)`` (2 for that class).

    Monotonic under generalization (a union of passing classes passes: each value's count is at
    most the sum of the classes' ``|EC|/l``), not under suppression: a failing class merged into a
    passing one may make it fail ({A,B} ∪ {A} at l = 2).
    """

    sensitive: str
    l: float  # noqa: E741

    @property
    def attribute(self) -> str:
        return self.sensitive

    def passes(self, stats: ClassStats) -> np.ndarray:
        h = self._hist(stats)
        if not len(h):
            return np.zeros(0, dtype=bool)
        total = h.sum(axis=1)
        return (stats.distinct(self.sensitive) >= math.ceil(self.l)) & (h.max(axis=1) * self.l <= total + 1e-9)

    def achieved(self, stats: ClassStats) -> float:
        h = self._hist(stats)
        if not len(h):
            return float("inf")
        top = h.max(axis=1)
        ratio = np.where(top > 0, h.sum(axis=1) / np.where(top > 0, top, 1), 0.0)
        return float(np.minimum(distinct_counts(h), ratio).min())

    def minimum_class_size(self) -> int:
        return math.ceil(self.l)

    def describe(self) -> str:
        return f"frequency {self.l:g}-diversity of {self.sensitive}"
