"""Risk-based criteria judged on the whole release (ARX's ``RiskBasedCriterion`` family).

Unlike a class model, these hold or fail for the release as a whole: a share of its records or an
estimate from the distribution of its class sizes. Each is declared with ``scope="release"``
(:mod:`anonkit.models.spec`); the search judges it after the class models, on the classes they leave
released, and suppresses the smallest classes until it holds (:func:`enforce_release`, ARX's
``suppressWhileNotFulfilledBinary``) within the suppression limit; the verifier recomputes it from the
published classes. Equal-sized classes go in ARX's order: the one with the smaller information loss
under the search metric first, then by first record (``anonkit.algorithms.transform.release_order``).
The criteria read class sizes only, so that order changes which records go, never how many. A
release with no released record satisfies them (ARX: "all suppressed").

* ``average-risk`` (ARX ``AverageReidentificationRisk``): the average prosecutor risk, classes /
  records (1 / the average class size), at most ``threshold``; ARX's relaxed variant adds
  ``highest_risk`` and ``records_at_risk``: the records in classes smaller than the size threshold of
  ``highest_risk`` (ARX's ``ParameterTranslation.getSizeThreshold``, within 1 %) are at most that share.
* ``sample-uniqueness`` (ARX ``SampleUniqueness``): the share of released records alone in their class.
* ``population-uniqueness`` (ARX ``PopulationUniqueness``): the share of the population unique in the
  quasi-identifiers, estimated by Pitman, Zayatz, SNB or Dankar's rule (:mod:`anonkit.risk.population`,
  with the population as a size, a region or the sampling fraction). As in ARX, Dankar's rule takes no
  Zayatz fallback here, and an estimate of 0 passes only when there is no sample unique.

Monotonicity (declared honestly, so a search prunes only where it is sound): average risk and sample
uniqueness never grow when classes merge, so they are monotonic under generalization without
suppression; with suppression, which classes go depends on the node, so no pruning. Population
uniqueness estimates are not monotonic (Dankar's rule switches estimators).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonkit.models.base import Criterion
from anonkit.models.spec import Param, privacy_model
from anonkit.stats import ClassStats

__all__ = ["ESTIMATORS", "AverageRisk", "PopulationUniquenessRisk", "SampleUniquenessRisk", "enforce_release",
           "size_threshold"]

#: ARX's ``RELATIVE_THRESHOLD_PRECISION``: a risk threshold may be exceeded by this share when it is
#: turned into a class size
RELATIVE_THRESHOLD_PRECISION = 0.01
#: the population-uniqueness estimator (``anonkit.risk.population.population_uniqueness``), handed
#: down by the layer that owns it (the judges): models sit below :mod:`anonkit.risk` and cannot
#: import it. :mod:`anonkit.verifier` and :mod:`anonkit.algorithms.transform` register it.
ESTIMATORS: dict[str, Callable[..., Any]] = {}
#: the estimators population uniqueness takes (``dankar``: Dankar et al.'s rule)
POPULATION_MODELS = ("dankar", "pitman", "zayatz", "snb")
#: Newton–Raphson steps per start value, as ARX's test cases set them (``iterationsPerTry(15)``)
DEFAULT_ITERATIONS = 15


def size_threshold(risk: float) -> int:
    """The smallest class size whose prosecutor risk is at most ``risk`` (ARX's ``getSizeThreshold``:
    ⌊1/risk⌋, plus one when that exceeds ``risk`` by 1 % of it or more)."""
    if risk == 0.0:
        return 2**31 - 1
    size = 1.0 / risk
    floor = math.floor(size)
    if 1.0 / floor - 1.0 / size >= RELATIVE_THRESHOLD_PRECISION * risk:
        floor += 1
    return int(floor)


def _released(stats: ClassStats) -> np.ndarray:
    sizes = np.asarray(stats.sizes, dtype=np.float64)
    return sizes[sizes > 0]


class _WholeRelease(Criterion):
    """A model judged on the release as a whole: every class passes or fails with it."""

    def value(self, sizes: np.ndarray) -> float:  # pragma: no cover - every model defines it
        raise NotImplementedError

    def holds(self, sizes: np.ndarray) -> bool:
        return self.value(sizes) <= self.threshold  # type: ignore[attr-defined]

    def release_passes(self, stats: ClassStats) -> bool:
        sizes = _released(stats)
        return True if not sizes.size else bool(self.holds(sizes))

    def passes(self, stats: ClassStats) -> np.ndarray:
        return np.full(stats.n_classes, self.release_passes(stats), dtype=bool)

    def achieved(self, stats: ClassStats) -> float:
        sizes = _released(stats)
        return self.value(sizes) if sizes.size else 0.0


_THRESHOLD = Param("threshold", "number", ge=0, le=1, doc="the largest risk the release may have (a share in [0, 1])")


@privacy_model(
    "average-risk", label="average re-identification risk", needs=("sizes",), scope="release",
    monotonic_suppression=False,
    summary="the release's average prosecutor risk (classes / records) is at most threshold; optionally at most "
            "records_at_risk of the records have a risk above highest_risk (ARX AverageReidentificationRisk)",
    params=(
        _THRESHOLD,
        Param("highest_risk", "number", default=1.0, gt=0, le=1,
              doc="ARX's relaxed variant: the risk a record may have (1: no bound)"),
        Param("records_at_risk", "number", default=0.0, ge=0, le=1,
              doc="ARX's relaxed variant: the share of records allowed above highest_risk"),
    ),
)
@dataclass(frozen=True)
class AverageRisk(_WholeRelease):
    threshold: float
    highest_risk: float = 1.0
    records_at_risk: float = 0.0

    def value(self, sizes: np.ndarray) -> float:
        return float(sizes.size / sizes.sum())

    def holds(self, sizes: np.ndarray) -> bool:
        if not 1.0 / float(sizes.sum() / sizes.size) <= self.threshold:  # ARX's test, to the last bit
            return False
        if self.highest_risk == 1.0:
            return True  # no record's risk exceeds 1
        small = sizes < size_threshold(self.highest_risk)
        return float(sizes[small].sum() / sizes.sum()) <= self.records_at_risk

    def describe(self) -> str:
        relaxed = (f", {self.records_at_risk:g} of records above {self.highest_risk:g}"
                   if self.highest_risk < 1.0 else "")
        return f"average risk ≤ {self.threshold:g}{relaxed}"


@privacy_model(
    "sample-uniqueness", label="sample uniqueness", needs=("sizes",), scope="release", monotonic_suppression=False,
    summary="at most threshold of the released records are alone in their class (ARX SampleUniqueness)",
    params=(_THRESHOLD,),
)
@dataclass(frozen=True)
class SampleUniquenessRisk(_WholeRelease):
    threshold: float

    def value(self, sizes: np.ndarray) -> float:
        return float((sizes == 1).sum() / sizes.sum())

    def describe(self) -> str:
        return f"sample uniqueness ≤ {self.threshold:g}"


@privacy_model(
    "population-uniqueness", label="population uniqueness", needs=("sizes",), scope="release",
    one_of=(("population", "region", "sampling_fraction"),),
    monotonic_generalization=False, monotonic_suppression=False,
    summary="the estimated share of the population unique in the quasi-identifiers is at most threshold "
            "(ARX PopulationUniqueness: Pitman, Zayatz, SNB or Dankar's rule; give population, region or "
            "sampling_fraction)",
    params=(
        _THRESHOLD,
        Param("estimator", "choice", default="dankar", choices=POPULATION_MODELS,
              doc="the estimate: dankar (Dankar et al.'s rule), pitman, zayatz or snb"),
        Param("population", "count", default=None, ge=1, doc="the population's size (records)"),
        Param("region", "choice", default=None, choices=("africa", "australia", "europe", "france", "germany",
                                                         "uk", "usa", "world"),
              doc="the population of one of ARX's regions"),
        Param("sampling_fraction", "number", default=None, gt=0, le=1, doc="the table's share of the population"),
        Param("iterations", "count", default=DEFAULT_ITERATIONS, ge=1,
              doc="Newton-Raphson steps per start value for Pitman and SNB"),
    ),
)
@dataclass(frozen=True)
class PopulationUniquenessRisk(_WholeRelease):
    threshold: float
    estimator: str = "dankar"
    population: int | None = None
    region: str | None = None
    sampling_fraction: float | None = None
    iterations: int = DEFAULT_ITERATIONS

    def estimate(self, sizes: np.ndarray) -> tuple[float | None, int]:
        """The estimated share of population uniques (``None``: no estimate) and the sample uniques."""
        estimate = ESTIMATORS.get("population")
        if estimate is None:
            raise RuntimeError("population uniqueness is judged by anonkit.risk (import anonkit.verifier first)")
        solver = ESTIMATORS["solver"](iterations_per_try=int(self.iterations))
        where = {"population": self.region or self.population} if self.sampling_fraction is None else {
            "sampling_fraction": self.sampling_fraction}
        est = estimate(sizes, model=self.estimator, solver=solver, **where)
        fraction = est.fraction
        if self.estimator == "dankar" and est.model == "zayatz" and est.sampling_fraction <= ESTIMATORS["pitman_upto"]:
            fraction = None  # ARX's criterion takes no Zayatz fallback when Pitman fails (useZayatzAsFallback=false)
        return fraction, est.sample_uniques

    def value(self, sizes: np.ndarray) -> float:
        fraction, _ = self.estimate(sizes)
        return 0.0 if fraction is None else float(fraction)

    def holds(self, sizes: np.ndarray) -> bool:
        fraction, uniques = self.estimate(sizes)
        if fraction is not None and 0.0 < fraction <= self.threshold:
            return True
        return (fraction is None or fraction == 0.0) and uniques == 0

    def describe(self) -> str:
        return f"population uniqueness ≤ {self.threshold:g} ({self.estimator})"


def enforce_release(models: list[Criterion], sizes: np.ndarray, budget: float) -> int:
    """How many of the released classes (``sizes``, in suppression order: smallest first) to suppress
    so that every whole-release model holds, as ARX's ``suppressWhileNotFulfilledBinary`` finds it:
    a binary search over the prefix, stopped once a prefix that fails suppresses more than ``budget``
    records (ARX's early abort), then one more class when the final prefix still fails. The models
    are enforced one after another on what the previous left. The caller judges the outcome."""
    cut = 0
    for m in models:
        def fulfilled(p: int, m: Criterion = m) -> bool:
            rest = sizes[p:]
            return True if not rest.size else bool(m.holds(rest))  # type: ignore[attr-defined]

        if fulfilled(cut):
            continue
        cut = _binary_prefix(fulfilled, sizes, cut, budget)
    return cut


def _binary_prefix(fulfilled: Callable[[int], bool], sizes: np.ndarray, start: int, budget: float) -> int:
    """ARX's binary search over the suppressed prefix (classes ``start…``), Java's integer division."""
    n = len(sizes)
    if start >= n:
        return start
    cumulative = np.concatenate([[0.0], np.cumsum(sizes)])
    low, high = start, n - 1
    mid = int((low + high) / 2)
    prefix = mid + 1
    state = "abort"
    while low <= high:
        ok = fulfilled(prefix)
        if not ok and cumulative[prefix] > budget:
            state = "abort"
            break
        state = "fulfilled" if ok else "not"
        if ok:
            high = mid - 1
            mid = int((low + high) / 2)
            prefix = max(start, mid + 1)
        else:
            low = mid + 1
            mid = int((low + high) / 2)
            prefix = max(prefix, mid + 1)
    if state != "abort" and not fulfilled(prefix) and not cumulative[prefix] > budget and prefix == mid + 1 < n:
        prefix = mid + 2
    return prefix
