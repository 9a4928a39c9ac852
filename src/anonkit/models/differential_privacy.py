"""(ε, δ)-differential privacy by SafePub (Bild, Kuhn & Prasser, "SafePub: A Truthful Data Anonymization
Algorithm With Strong Privacy Guarantees", PoPETs 2018(1); ARX's ``EDDifferentialPrivacy`` and
``dp.ParameterCalculation``).

SafePub turns k-anonymity into differential privacy by *random sampling*: every record is kept
independently with probability β, the sample is generalized by a transformation chosen without
looking at the data (or by a differentially private search), and every class of the sample with
fewer than ``k`` records is suppressed. Theorem (the paper's §4, after Li, Qardaji & Su 2012): with

* ``β = 1 − e^(−ε)``,
* ``γ = (e^ε − 1 + β) / e^ε``,
* ``a_n = Σ_{j > ⌊nγ⌋} Binomial(n, β)(j)`` and ``c_n = exp(−n (γ ln(γ/β) − (γ − β)))``,
* ``δ(k) = max_{n ≥ n_m} a_n`` with ``n_m = ⌈k/γ − 1⌉`` (the maximum is reached before ``a_n``
  exceeds the bound ``c_n`` of the tail),

the release is (ε, δ(k))-differentially private; ARX takes the ``k`` at which ``δ(k)`` first falls
below the δ asked for, plus one (its loop increments after the test: :func:`safepub_parameters`
keeps that, so the ``k`` is ARX's and errs on the safe side). ARX computes in interval arithmetic
and keeps the lower bound of β; here β is one ulp below ``1 − e^(−ε)`` and the binomial tails come
from SciPy (``tests/test_safepub.py`` holds both to ARX 3.9's figures on a grid of (ε, δ)).

The model judges classes as k-anonymity does (``k`` derived from the anonymization budget: ε minus
the search budget a data-dependent search spends, :attr:`DifferentialPrivacy.search_budget`, which
the ``safepub`` algorithm fills from its option); the sampling is the algorithm's. It is enforced
only by :data:`ENFORCED_BY` (any other algorithm refuses it before any work,
:meth:`anonkit.algorithms.spec.Algorithm.refuse_unenforced`): a release of all records, however
generalized, is not differentially private.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

import numpy as np

from anonkit.errors import InputError
from anonkit.models.base import Criterion
from anonkit.models.spec import Param, privacy_model
from anonkit.stats import ClassStats

__all__ = ["AUDIT_NOTE", "DEFAULT_SEARCH_BUDGET", "DELTA_MAX", "DESCRIBE_MARK", "ENFORCED_BY", "DifferentialPrivacy",
           "dp_lines", "dp_notes", "safepub_parameters"]

#: the algorithms that sample and search as SafePub does (the only ones that enforce the model); the
#: algorithm's module adds its name on import (none yet: every algorithm refuses the model, fail closed)
ENFORCED_BY: tuple[str, ...] = ()
#: the ε a search spends unless the algorithm says otherwise (data-independent: none)
DEFAULT_SEARCH_BUDGET = 0.0
#: the largest δ a declaration accepts; a run also refuses δ ≥ 1/n (:meth:`DifferentialPrivacy.check_records`)
DELTA_MAX = 0.5
#: the words every description of the model holds (the audit's and the report's printers find it by them)
DESCRIBE_MARK = "-differential privacy (SafePub"
#: what an audit of a SafePub release can judge, and what it cannot
AUDIT_NOTE = ("differential privacy is a property of how the release was made (records sampled with probability "
              "beta, the transformation given or chosen by the exponential mechanism), not of the published table: "
              "the audit checks the published classes against k only, and the guarantee holds only for an unseeded "
              "safepub run")
#: the notes a SafePub run leaves (:func:`dp_lines` needs every one)
DP_NOTES = ("epsilon", "delta", "beta", "k", "guarantee", "sampled", "unsampled", "suppressed_in_sample")
#: the largest k the parameter calculation looks for before refusing (ARX searches without a bound)
K_LIMIT = 100_000


@lru_cache(maxsize=256)
def safepub_parameters(epsilon: float, delta: float) -> tuple[float, int]:
    """``(β, k)`` for (ε, δ)-differential privacy by SafePub, as ARX's ``ParameterCalculation``
    computes them (see the module docstring).

    Raises
    ------
    InputError
        When no ``k`` up to :data:`K_LIMIT` reaches δ (an ε or δ so small that nothing can be published).
    """
    from scipy.stats import binom  # SciPy is a core dependency; imported here to keep start-up light

    beta = _down(-math.expm1(-epsilon))
    power = math.exp(epsilon)
    gamma = (power - 1.0 + beta) / power
    gamma_low, gamma_high = _down(gamma), _up(gamma)
    a = np.zeros(0)
    c = np.zeros(0)

    def extend(size: int) -> tuple[np.ndarray, np.ndarray]:
        if size > _MAX_TAIL:  # a large ε: the binomial tails never fall under their bound in reach (no hang)
            raise InputError(f"differential-privacy: epsilon {epsilon:g} is too large for SafePub's parameter "
                             f"calculation (its k would need tails beyond {_MAX_TAIL:,} records); use epsilon ≤ 5",
                             key="epsilon")
        n = np.arange(size, dtype=np.float64)
        cut = np.floor(_down_array(n * gamma_low))  # ARX floors the lower bound: a larger tail, never a smaller
        tail = np.where(n > 0, binom.sf(cut, n, beta), 0.0)
        bound = np.exp(-n * (gamma * math.log(gamma / beta) - (gamma - beta)))
        return tail, bound

    def delta_of(k: int) -> float:
        nonlocal a, c
        start = max(0, math.ceil(_down(k / gamma_high - 1.0)))
        while True:
            if a.size <= start + 1:
                a, c = extend(max(2 * a.size, start + _BLOCK))
            running = np.maximum.accumulate(a[start:])
            over = np.flatnonzero(running > c[start:])
            if over.size:
                return float(running[over[0]])
            a, c = extend(2 * a.size)

    k, reached = 1, math.inf
    while not reached < delta:
        if k > K_LIMIT:
            raise InputError(f"differential-privacy: no k up to {K_LIMIT} reaches delta {delta:g} at epsilon "
                             f"{epsilon:g}; raise epsilon or delta", key="delta")
        reached = delta_of(k)
        k += 1
    return beta, k


#: the tails computed at once when more are needed
_BLOCK = 4096
#: the most binomial tails computed (2²¹: ε = 5 needs fewer; ε ≥ 6 would grow them without end)
_MAX_TAIL = 2**21
#: how many ulps the bounds of an interval are widened (ARX's interval arithmetic keeps the safe bound)
_ULPS = 4


def _down(x: float) -> float:
    for _ in range(_ULPS):
        x = math.nextafter(x, -math.inf)
    return x


def _up(x: float) -> float:
    for _ in range(_ULPS):
        x = math.nextafter(x, math.inf)
    return x


def _down_array(x: np.ndarray) -> np.ndarray:
    for _ in range(_ULPS):
        x = np.nextafter(x, -np.inf)
    return x


@privacy_model(
    "differential-privacy", label="(ε, δ)-differential privacy (SafePub)", needs=("sizes",),
    summary="(ε, δ)-differential privacy by SafePub: records sampled with probability β, classes of the sample "
            "smaller than the k derived from (ε, δ) suppressed (algorithm safepub)",
    params=(
        Param("epsilon", "number", gt=0, doc="the privacy budget ε (the whole of it, search included)"),
        Param("delta", "number", gt=0, le=DELTA_MAX,
              doc="the probability δ that the ε guarantee fails; a run refuses δ ≥ 1/n"),
        Param("search_budget", "number", default=DEFAULT_SEARCH_BUDGET, ge=0, in_config=False,
              doc="the share of ε a data-dependent search spends (set by the safepub algorithm)"),
    ),
)
@dataclass(frozen=True)
class DifferentialPrivacy(Criterion):
    """(ε, δ)-differential privacy by SafePub: a class of the sample passes with at least :attr:`k` records."""

    enforced_by: ClassVar[tuple[str, ...]] = ENFORCED_BY
    epsilon: float
    delta: float
    search_budget: float = DEFAULT_SEARCH_BUDGET

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.search_budget < self.epsilon:
            raise InputError(f"search_budget must be below epsilon ({self.epsilon:g}), got {self.search_budget:g}",
                             key="algorithm.search_budget")

    @property
    def anonymization_epsilon(self) -> float:
        """The ε left for the sampling and k-anonymity step (ARX rounds it down)."""
        return math.nextafter(self.epsilon - self.search_budget, 0.0) if self.search_budget else self.epsilon

    @property
    def beta(self) -> float:
        """The probability with which every record is sampled."""
        return safepub_parameters(self.anonymization_epsilon, self.delta)[0]

    @property
    def k(self) -> int:
        """The smallest class size of the sample's release."""
        return safepub_parameters(self.anonymization_epsilon, self.delta)[1]

    def check_records(self, n_records: int) -> None:
        """Refuse δ ≥ 1/n: publishing one record picked at random is already (0, 1/n)-differentially
        private, so such a δ promises nothing (fail closed)."""
        if n_records > 0 and self.delta * n_records >= 1.0:
            raise InputError(f"differential-privacy delta {self.delta:g} is not below 1/n = 1/{n_records}: such a "
                             f"delta allows publishing a whole record; choose delta < {1.0 / n_records:.3g}",
                             key="delta")

    def passes(self, stats: ClassStats) -> np.ndarray:
        return stats.sizes >= self.k

    def achieved(self, stats: ClassStats) -> float:
        return float(stats.sizes.min()) if stats.n_classes else float("inf")

    def minimum_class_size(self) -> int:
        return int(self.k)

    def describe(self) -> str:
        spent = f", search budget {self.search_budget:g}" if self.search_budget else ""
        return (f"({self.epsilon:g}, {self.delta:g}){DESCRIBE_MARK}: beta {self.beta:.6g}, "
                f"k {self.k}{spent})")


def dp_notes(summary: dict) -> dict | None:
    """The SafePub notes of a run's summary (``summary["notes"]``), or ``None`` for another algorithm's."""
    notes = summary.get("notes") or {}
    return notes if all(k in notes for k in DP_NOTES) else None


def dp_lines(notes: dict) -> list[tuple[str, str]]:
    """``(what, value)`` lines, plain text: the guarantee, the parameters, the search, the records."""
    budget = float(notes.get("search_budget") or 0.0)
    spent = f" ({budget:g} spent by the search, {notes['epsilon'] - budget:g} by the sampling)" if budget else ""
    if notes.get("search") == "data-dependent":
        search = (f"data-dependent: {notes.get('steps', 0)} exponential-mechanism steps, "
                  f"{notes.get('checked_transformations', 0)} transformations scored")
    else:
        search = "data-independent: the transformation was given (no epsilon spent on it)"
    records = (f"{notes['sampled']:,} sampled, {notes['unsampled']:,} not sampled (never published), "
               f"{notes['suppressed_in_sample']:,} suppressed in the sample (classes below k)")
    return [("guarantee", str(notes["guarantee"])),
            ("parameters", f"epsilon {notes['epsilon']:g}{spent}, delta {notes['delta']:g} → sampling "
                           f"probability beta {notes['beta']:.6g}, smallest class k {notes['k']}"),
            ("search", search), ("records", records)]
