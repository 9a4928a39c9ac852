"""Prosecutor, journalist and marketer re-identification risk (El Emam, *Guide to the
De-Identification of Personal Health Information*, 2013, ch. "Measuring the Probability of
Re-Identification"; ARX ``RiskModelSampleSummary`` and ``RiskModelSampleRisks``).

Everything is computed from class sizes, so any release serves: per released class ``c`` its records
``s_c`` (persons, when the sizes count persons) and, optionally, ``F_c``, the records of a population
table that match the class (ARX: the research subset's superset). With ``n = Σ s_c`` records in ``u``
classes and a risk threshold ``t``:

* **prosecutor** (the attacker knows the target is in the release): a record's risk is ``1/s_c``;
  highest ``1/min s``, lowest ``1/max s``, average ``u/n`` (ARX's success rate: the mean of
  ``1/s_c`` over the records), records at risk ``Σ_{1/s_c > t} s_c / n``;
* **journalist** (the target is someone of the population): a record's risk is ``1/F_c``; highest
  ``1/min F``, lowest ``1/max F``, records at risk ``Σ_{1/F_c > t} s_c / n``, average
  ``max(u / Σ F_c, Σ (s_c/F_c) / n)``;
* **marketer** (re-identify as many as possible): the expected share of records re-identified,
  ``Σ (s_c/F_c) / n``.

Without a population table the release is its own population (``F = s``), exactly as ARX computes
the summary for a handle without a superset: journalist risk equals prosecutor risk and marketer
risk is ``u/n``. ARX does the same when only a population *size* is configured: its population
model enters the population-uniqueness estimates (:func:`~anonkit.risk.population_uniqueness`),
never these summaries (``RiskModelSampleSummary`` ignores it; ``RiskModelSampleRisks``' estimated
journalist risk is ``1/min s`` too), so here a ``population`` size is checked and recorded but the
journalist and marketer figures stay those of the release.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from anonkit.errors import InputError
from anonkit.risk._sizes import paired_sizes, released_sizes
from anonkit.risk.population import population_size
from anonkit.risk.thresholds import DEFAULT_HIGHEST_RISK

__all__ = ["AttackerRisk", "MarketerRisk", "ReidentificationRisk", "reidentification_risk"]


@dataclass(frozen=True)
class AttackerRisk:
    """El Emam's risk summary for the prosecutor or the journalist (ARX ``RiskSummary``).

    Attributes
    ----------
    highest, lowest:
        The highest and lowest risk of any released record (ARX ``rB``, ``rM``).
    average:
        The expected share of records re-identified (ARX's success rate ``rC``, which ARX also
        reports as the average risk).
    records_at_risk:
        Share of the released records whose risk exceeds ``threshold`` (ARX ``rA``).
    records_at_highest, records_at_lowest:
        Share of the released records that carry the highest (lowest) risk (ARX
        ``RiskModelSampleRisks.getFractionOfRecordsAffectedByHighestRisk``/``…LowestRisk``).
    threshold:
        The risk threshold of ``records_at_risk``.
    """

    highest: float
    average: float
    lowest: float
    records_at_risk: float
    records_at_highest: float
    records_at_lowest: float
    threshold: float

    def to_dict(self) -> dict[str, float]:
        return {k: float(getattr(self, k)) for k in ("highest", "average", "lowest", "records_at_risk",
                                                       "records_at_highest", "records_at_lowest", "threshold")}


@dataclass(frozen=True)
class MarketerRisk:
    """The marketer's risk (ARX ``MarketerRisk``): ``average`` is the expected share of the released
    records re-identified (ARX's success rate)."""

    average: float

    def to_dict(self) -> dict[str, float]:
        return {"average": float(self.average)}


@dataclass(frozen=True)
class ReidentificationRisk:
    """Prosecutor, journalist and marketer risk of a release (see the module docstring).

    Attributes
    ----------
    prosecutor, journalist, marketer:
        The three attackers' risks.
    records, classes:
        The released records (or persons) and non-empty classes.
    threshold:
        The risk threshold of the records-at-risk shares.
    population_table:
        Whether population class sizes were given (else journalist = prosecutor).
    population_size, sampling_fraction, region:
        The population size ``N`` and ``n/N`` when given (``None`` otherwise), the region named.
    note:
        One line on how the journalist and marketer risks were obtained.
    """

    prosecutor: AttackerRisk
    journalist: AttackerRisk
    marketer: MarketerRisk
    records: int
    classes: int
    threshold: float
    population_table: bool
    population_size: int | None
    sampling_fraction: float | None
    region: str | None
    note: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "prosecutor": self.prosecutor.to_dict(),
            "journalist": self.journalist.to_dict(),
            "marketer": self.marketer.to_dict(),
            "records": int(self.records),
            "classes": int(self.classes),
            "threshold": float(self.threshold),
            "population_table": bool(self.population_table),
            "population_size": None if self.population_size is None else int(self.population_size),
            "sampling_fraction": None if self.sampling_fraction is None else float(self.sampling_fraction),
            "region": self.region,
            "note": self.note,
        }


def _summary(sample: np.ndarray, sizes: np.ndarray, n: int, threshold: float, average: float) -> AttackerRisk:
    """Highest/lowest risk ``1/sizes``, records at risk and at the extremes, weighted by the sample
    records of each class."""
    smallest, largest = int(sizes.min()), int(sizes.max())
    at_risk = int(sample[1.0 / sizes > threshold].sum())
    return AttackerRisk(
        highest=1.0 / smallest,
        average=average,
        lowest=1.0 / largest,
        records_at_risk=at_risk / n,
        records_at_highest=int(sample[sizes == smallest].sum()) / n,
        records_at_lowest=int(sample[sizes == largest].sum()) / n,
        threshold=threshold,
    )


def reidentification_risk(sample_sizes: object, *, population_sizes: object = None,
                          population: int | str | None = None, sampling_fraction: float | None = None,
                          threshold: float = DEFAULT_HIGHEST_RISK) -> ReidentificationRisk:
    """Prosecutor, journalist and marketer risk from class sizes (ARX ``RiskModelSampleSummary``).

    Parameters
    ----------
    sample_sizes:
        Per released class, its records (persons, when a person column makes classes count people).
        Empty classes are ignored.
    population_sizes:
        Per class (same order), the records of a population table that fall in the class; each at
        least the class's sample size. Without it the release is its own population.
    population, sampling_fraction:
        The population size (or a region of :data:`~anonkit.risk.REGIONS`), or ``n/N``: checked and
        recorded; as in ARX they do not change these risks (see the module docstring).
    threshold:
        A record is at risk when its risk exceeds this (ARX compares ``1/size > threshold``).
    """
    if isinstance(threshold, bool) or not isinstance(threshold, int | float | np.number) or not (
            0.0 <= float(threshold) <= 1.0):
        raise InputError("threshold must be a risk in [0, 1]", key="threshold", value=threshold)
    threshold = float(threshold)
    table = population_sizes is not None
    if table:
        sample, pop = paired_sizes(sample_sizes, population_sizes)
    else:
        sample = released_sizes(sample_sizes)
        pop = sample
    n, u = int(sample.sum()), int(sample.size)
    size = fraction = region = None
    if population is not None or sampling_fraction is not None:
        size, region = population_size(n, population, sampling_fraction)
        fraction = n / size if size else 0.0
        if table and int(pop.sum()) > size:
            raise InputError(f"the population table's matching records ({int(pop.sum()):,}) exceed the "
                             f"population size", key="population", value=size)
    if table:
        note = "journalist and marketer risk from the population table's class sizes"
    else:
        note = ("no population table: the release is its own population, so journalist risk equals prosecutor "
                "risk and marketer risk is classes/records (as ARX)")
        if size is not None:
            note += "; the population size enters only population uniqueness (as ARX)"
    common = {"records": n, "classes": u, "threshold": threshold, "population_table": table,
              "population_size": size, "sampling_fraction": fraction, "region": region, "note": note}
    if n == 0:
        zero = AttackerRisk(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, threshold)
        return ReidentificationRisk(prosecutor=zero, journalist=zero, marketer=MarketerRisk(0.0), **common)
    prosecutor = _summary(sample, sample, n, threshold, u / n)
    share = float((sample / pop).sum()) / n
    journalist = _summary(sample, pop, n, threshold, max(u / float(pop.sum()), share))
    return ReidentificationRisk(prosecutor=prosecutor, journalist=journalist, marketer=MarketerRisk(share), **common)
