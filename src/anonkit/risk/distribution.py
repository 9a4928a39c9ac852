"""How risk spreads over a release: the class-size histogram (ARX ``RiskModelHistogram``) and the
distribution of per-record risk over ARX's risk bins (``RiskModelSampleRiskDistribution``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from anonkit.risk._sizes import paired_sizes, released_sizes, size_histogram

__all__ = ["RISK_BINS", "ClassSizeHistogram", "RiskDistribution", "class_size_histogram", "risk_distribution"]

#: ARX's risk bins ``(lower, upper]``: ``thresholdsLow``/``thresholdsHigh`` of
#: ``RiskModelSampleRiskDistribution`` (a record with risk ``r`` falls in the first bin whose upper
#: bound is ≥ ``r``)
RISK_BINS: tuple[tuple[float, float], ...] = tuple(zip(
    (0.0, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 0.001, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1,
     0.125, 0.143, 0.167, 0.2, 0.25, 0.334, 0.5),
    (1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 0.001, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.125,
     0.143, 0.167, 0.2, 0.25, 0.334, 0.5, 1.0),
    strict=True,
))
_UPPER = np.array([hi for _, hi in RISK_BINS])


@dataclass(frozen=True)
class ClassSizeHistogram:
    """The classes of a release by size (ARX ``RiskModelHistogram``, suppressed records left out).

    Attributes
    ----------
    sizes:
        The distinct class sizes, ascending.
    classes, records:
        Per size, the classes of that size and the records they hold.
    """

    sizes: tuple[int, ...]
    classes: tuple[int, ...]
    records: tuple[int, ...]

    @property
    def n_classes(self) -> int:
        return int(sum(self.classes))

    @property
    def n_records(self) -> int:
        return int(sum(self.records))

    @property
    def average_size(self) -> float:
        """Records per class (ARX ``getAvgClassSize``; 0 when empty)."""
        return self.n_records / self.n_classes if self.n_classes else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"sizes": list(self.sizes), "classes": list(self.classes), "records": list(self.records),
                "n_classes": self.n_classes, "n_records": self.n_records, "average_size": float(self.average_size)}


def class_size_histogram(sample_sizes: object) -> ClassSizeHistogram:
    """The class-size histogram of a release: size → classes and records (empty classes ignored)."""
    values, counts = size_histogram(released_sizes(sample_sizes))
    return ClassSizeHistogram(sizes=tuple(int(v) for v in values), classes=tuple(int(c) for c in counts),
                              records=tuple(int(v * c) for v, c in zip(values, counts, strict=True)))


@dataclass(frozen=True)
class RiskDistribution:
    """Share of the released records per risk bin (:data:`RISK_BINS`), and cumulated.

    Attributes
    ----------
    attacker:
        ``"prosecutor"`` (a record's risk is ``1/class size``, ARX's distribution) or
        ``"journalist"`` (``1/population class size``).
    records:
        Per bin, the share of the released records whose risk lies in ``(lower, upper]``.
    cumulative:
        Per bin, the share with risk ≤ its upper bound (capped at 1 against rounding, as ARX).
    """

    attacker: str
    records: tuple[float, ...]
    cumulative: tuple[float, ...]

    def at_most(self, risk: float) -> float:
        """Share of the records whose risk is at most the upper bound of ``risk``'s bin (ARX
        ``getFractionOfRecordsAtCumulativeRisk``)."""
        return self.cumulative[_bin(np.array([float(risk)]))[0]]

    def to_dict(self) -> dict[str, Any]:
        return {"attacker": self.attacker,
                "bins": [{"lower": lo, "upper": hi, "records": float(r), "cumulative": float(c)}
                         for (lo, hi), r, c in zip(RISK_BINS, self.records, self.cumulative, strict=True)]}


def _bin(risk: np.ndarray) -> np.ndarray:
    """ARX's ``Arrays.binarySearch`` on the upper bounds: the first bin whose upper bound is ≥ risk."""
    return np.searchsorted(_UPPER, risk, side="left")


def risk_distribution(sample_sizes: object, population_sizes: object = None) -> RiskDistribution:
    """The distribution of per-record re-identification risk over ARX's bins.

    Without ``population_sizes`` a record's risk is the prosecutor's ``1/class size`` (ARX
    ``RiskModelSampleRiskDistribution``). With them (per class, the matching records of a population
    table) it is the journalist's ``1/population class size`` — the same bins, a distribution ARX
    does not offer. Shares are of the released records; all 0 when nothing is released.
    """
    if population_sizes is None:
        sample = released_sizes(sample_sizes)
        pop, attacker = sample, "prosecutor"
    else:
        sample, pop = paired_sizes(sample_sizes, population_sizes)
        attacker = "journalist"
    n = int(sample.sum())
    shares = np.zeros(len(RISK_BINS))
    if n:
        # per distinct risk-giving size, ascending, as ARX adds its histogram's entries
        values, inverse = np.unique(pop, return_inverse=True)
        records = np.bincount(inverse.ravel(), weights=sample, minlength=values.size)
        np.add.at(shares, _bin(1.0 / values), records / n)
    cumulative = np.minimum(np.cumsum(shares), 1.0)
    return RiskDistribution(attacker=attacker, records=tuple(float(v) for v in shares),
                            cumulative=tuple(float(v) for v in cumulative))
