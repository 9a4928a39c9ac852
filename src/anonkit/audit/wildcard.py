"""The audit's models and risk on a release whose suppressed cells are wildcards (the ``suppress`` family).

:func:`anonkit.analytics.wildcard.wildcard_table` reads such a release: per distinct published
pattern its rows ``m``, its *compatible* count ``fk`` (the published rows that agree with it on
every quasi-identifier both leave unsuppressed — the independent verifier's count) and the
sensitive counts of those compatible rows. The audit's figures follow sdcMicro's reading:

* **models**: each class model is judged per pattern on its compatible rows (size ``fk``, their
  sensitive histogram): k-anonymity is ``fk ≥ k`` for every record, exactly the verifier's verdict;
  l-diversity (distinct, entropy, recursive) and t-closeness are judged on the compatible rows'
  sensitive values, which is what an attacker who finds the target's published row cannot narrow
  down. A model that names a subset of the quasi-identifiers, is judged record by record or
  counts a population is not judged here (a note says so): its classes are not the compatible sets;
* **risk**: a record's prosecutor risk is ``1 / fk`` (highest, average over the records, records
  above the threshold); with a population table its journalist risk is ``1 /`` the population
  records consistent with its published cells (a ``*`` covers every value); the marketer's
  expected share re-identified is the mean of the journalist's risks (the prosecutor's without a
  population table). Sample uniqueness is the share of records with ``fk = 1``; the class-size
  histogram counts records by ``fk``. Population uniqueness (Pitman, Zayatz, SNB) models disjoint
  class sizes and is not estimated.

One caution the figures share with sdcMicro: ``fk`` counts the rows compatible with the
*published* row. An attacker who knows the value a ``*`` hides can exclude compatible rows that
publish another value there, so ``fk`` is an upper bound on that attacker's candidates.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonkit.analytics.published import PublishedRelease
from anonkit.analytics.wildcard import wildcard_stats
from anonkit.config import AuditThresholds
from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.risk import AttackerRisk, MarketerRisk, risk_distribution

__all__ = ["wildcard_models", "wildcard_risk"]

WHY = "suppressed cells match any value"


def wildcard_models(published: PublishedRelease, models: list[Criterion]) -> tuple[list[dict[str, Any]], list[str]]:
    """The audit's model rows for ``models`` (the class models of the config) on a release read with
    wildcards: each judged per pattern on its compatible rows; the failing records are the rows of
    the failing patterns."""
    stats = wildcard_stats(published)
    rows = published.stats.sizes
    out: list[dict[str, Any]] = []
    notes: list[str] = []
    for m in models:
        if m.qis is not None:
            notes.append(f"{m.describe()} names attributes: not judged on a release whose suppressed cells match "
                         "any value (its classes are not the compatible rows)")
            continue
        try:
            ok = np.asarray(m.passes(stats), dtype=bool)
            achieved = float(m.achieved(stats)) if stats.n_classes else float("nan")
        except InputError as exc:
            notes.append(f"{m.describe()}: not judged with wildcards — {exc}")
            continue
        out.append({"model": f"{m.describe()} ({WHY})", "holds": bool(ok.all()) and stats.n_classes > 0,
                    "achieved": achieved if np.isfinite(achieved) else None,
                    "failing_records": int(rows[~ok].sum())})
    return out, notes


def _attacker(rows: np.ndarray, size: np.ndarray, threshold: float, average: float) -> AttackerRisk:
    """A risk summary from per-pattern rows and the size a record's risk divides by (``fk``, or the
    population's consistent records)."""
    n = float(rows.sum())
    smallest, largest = float(size.min()), float(size.max())
    return AttackerRisk(highest=1.0 / smallest, average=average, lowest=1.0 / largest,
                        records_at_risk=float(rows[1.0 / size > threshold].sum()) / n,
                        records_at_highest=float(rows[size == smallest].sum()) / n,
                        records_at_lowest=float(rows[size == largest].sum()) / n, threshold=threshold)


def wildcard_risk(published: PublishedRelease, thresholds: AuditThresholds, population: int | None,
                  pop_sizes: np.ndarray | None = None) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """The audit's risk section (:func:`anonkit.audit.run.risk_of_sizes`'s shape) on a release read
    with wildcards (module docstring); ``pop_sizes``: per pattern, the population table's records
    consistent with it."""
    if published.compatible is None:
        raise InputError("not a release read with wildcards (wildcard_table)")
    rows = published.sizes.astype(np.float64)
    fk = published.compatible.astype(np.float64)
    n = int(rows.sum())
    threshold = float(thresholds.highest_risk)
    notes = [f"the release's {published.marker} cells match any value (local suppression, sdcMicro's reading): a "
             "record's class is every published record compatible with it, its prosecutor risk 1/fk; population "
             "uniqueness (disjoint classes) is not estimated"]
    zero = AttackerRisk(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, threshold)
    prosecutor = _attacker(rows, fk, threshold, float((rows / fk).sum()) / n) if n else zero
    journalist, marketer = prosecutor, prosecutor.average
    note = ("no population table: the release is its own population, so journalist risk equals prosecutor risk and "
            "marketer risk is the mean of 1/fk")
    if pop_sizes is not None and n:
        pop = np.maximum(np.asarray(pop_sizes, dtype=np.float64), 1.0)
        share = float((rows / pop).sum()) / n
        journalist, marketer = _attacker(rows, pop, threshold, share), share
        note = "journalist and marketer risk from the population table's records consistent with each record"
    dist = risk_distribution(published.sizes, np.rint(fk if pop_sizes is None else pop).astype(np.int64))
    sizes, inverse = np.unique(fk.astype(np.int64), return_inverse=True)
    records = np.bincount(inverse.reshape(-1), weights=rows, minlength=len(sizes))
    patterns = np.bincount(inverse.reshape(-1), minlength=len(sizes))
    risk = {
        "prosecutor": prosecutor.to_dict(),
        "journalist": journalist.to_dict(),
        "marketer": MarketerRisk(marketer).to_dict(),
        "sample_uniqueness": float(rows[fk == 1].sum()) / n if n else 0.0,
        "population_uniqueness": {"pitman": None, "zayatz": None, "snb": None, "dankar": None, "model": None},
        "distribution": [{"from": b["lower"], "to": b["upper"], "records": b["records"]}
                         for b in dist.to_dict()["bins"]],
        "distribution_attacker": "prosecutor" if pop_sizes is None else "journalist",
        "class_sizes": [{"size": int(s), "classes": int(c), "records": int(r)}
                        for s, c, r in zip(sizes, patterns, records, strict=True)],
        "records": n,
        "classes": len(rows),
        "note": note,
        "wildcard": published.marker,
    }
    source = "table" if pop_sizes is not None else ("size" if population is not None else "sample")
    pop_info = {"size": population, "sampling_fraction": (n / population) if population else 1.0, "source": source}
    return risk, pop_info, notes
