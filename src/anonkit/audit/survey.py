"""sdcMicro's survey risk measures on published cells: the audit's and ``anonkit check``'s survey section.

The figures are :mod:`anonkit.risk.survey` and :mod:`anonkit.risk.suda2` (sdcMicro 5.8's
``measure_risk``, ``indivRisk``, ``suda2``) computed on what a table *publishes*:

* **the keys** are the quasi-identifiers' published cells, read as text: a generalized cell
  (``20-39``, ``{a,b}``) is a key value like any other, so two records share a key exactly when they
  share every published cell; a suppressed cell (``*``) or an empty one is *missing*, which sdcMicro
  treats as a wildcard (it matches any value: :func:`published_keys`);
* **the weights** are the table's sampling-weight column (role ``weight``, published unchanged),
  read as numbers ≥ 1; the household column is the published (renumbered) one.

Which figure uses what: ``fk`` counts sample records (no weights); ``Fk``, the individual risk
(Benedetti–Franconi), the global risk, the expected re-identifications and the household risk
estimate the population from the weights (without a weight column the table is taken as the
population: risk ``1/fk``, as sdcMicro's ``measure_risk`` does); DIS-SUDA's sampling fraction is
``records / Σ weights`` with weights, sdcMicro's default ``DisFraction`` (0.01) without. The
journalist and marketer figures of the audit's risk section stay ARX's (class sizes, population
size or table) and are not replaced by these.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonkit.config import DEFAULT_INDIVIDUAL_RISK
from anonkit.errors import InputError
from anonkit.risk import RISK_BINS, survey_risk
from anonkit.risk.suda2 import DEFAULT_DIS_FRACTION, suda2
from anonkit.risk.survey import individual_risk, sample_frequencies

__all__ = ["SUPPRESSED_CELL", "TOP_CONTRIBUTIONS", "published_keys", "record_risks", "survey_figures"]

#: a suppressed cell of a release: missing, a wildcard in sdcMicro's measures
SUPPRESSED_CELL = "*"
#: the attribute contributions to SUDA2's scores the summary lists (largest first)
TOP_CONTRIBUTIONS = 5


def published_keys(frame: pd.DataFrame, qis: Sequence[str]) -> pd.DataFrame:
    """The key variables as sdcMicro reads a release: each cell as text, ``*`` and empty cells missing.

    A suppressed or empty cell could be any value, which is what sdcMicro's missing value means (it
    matches every key); any other published label is a value of its own."""
    out = {}
    for q in qis:
        col = frame[q]
        text = col.astype("string").str.strip()
        out[q] = text.mask(col.isna() | (text == SUPPRESSED_CELL) | (text == ""))
    return pd.DataFrame(out, index=frame.index)


def _column(frame: pd.DataFrame, name: str | None, what: str, flag: str) -> str | None:
    if name is not None and name not in frame.columns:
        raise InputError(f"the {what} column is not in the table: name one of its columns with {flag}",
                         column=name, key=flag)
    return name


def _weights(frame: pd.DataFrame, column: str | None) -> np.ndarray | None:
    """The sampling weights as numbers ≥ 1, one per record (a survey weight counts the population units
    a record stands for; below 1 the Benedetti–Franconi estimate is undefined): refused otherwise."""
    if column is None:
        return None
    w = pd.to_numeric(frame[column].astype("string").str.strip(), errors="coerce").to_numpy(dtype=np.float64,
                                                                                          na_value=np.nan)
    bad = ~np.isfinite(w) | (w < 1.0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError("a sampling weight is not a number >= 1: the weight column holds the population units "
                         "each record stands for", column=column, value=frame[column].iloc[row], row=row + 1)
    return w


def _households(frame: pd.DataFrame, column: str | None) -> np.ndarray | None:
    """The household ids as codes; a record without one is refused (it cannot be given a household risk)."""
    if column is None:
        return None
    text = frame[column].astype("string").str.strip()
    missing = (text.isna() | (text == "")).to_numpy(dtype=bool, na_value=True)
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise InputError("a household id is missing: every record needs its household", column=column, row=row + 1)
    return pd.factorize(text)[0]


def _summary(values: np.ndarray, threshold: float) -> dict[str, Any]:
    n = int(values.size)
    above = int(np.sum(values > threshold))
    return {"max": float(values.max()) if n else 0.0, "mean": float(values.mean()) if n else 0.0,
            "above": above, "above_share": above / n if n else 0.0}


def _distribution(risk: np.ndarray) -> list[dict[str, Any]]:
    """The share of records per risk bin ``(lower, upper]`` (ARX's bins and shares, as the audit's risk
    distribution, so that the report draws both alike)."""
    upper = np.array([hi for _, hi in RISK_BINS])
    at = np.minimum(np.searchsorted(upper, risk, side="left"), len(upper) - 1)
    counts = np.bincount(at, minlength=len(upper))
    n = max(int(risk.size), 1)
    return [{"from": lo, "to": hi, "records": float(c) / n} for (lo, hi), c in zip(RISK_BINS, counts, strict=True)]


def _suda(keys: pd.DataFrame, qis: Sequence[str], weights: np.ndarray | None, max_size: int | None) -> dict[str, Any]:
    """SUDA2 on the published keys: the DIS-SUDA summary and the top attribute contributions."""
    fraction = DEFAULT_DIS_FRACTION if weights is None else min(1.0, len(keys) / float(weights.sum()))
    res = suda2(keys, list(qis), max_size=max_size, dis_fraction=fraction)
    top = sorted(res.attribute_contributions.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_CONTRIBUTIONS]
    return {
        "max_size": res.max_size,
        "dis_fraction": res.dis_fraction,
        "dis_fraction_from": "records / sum of weights" if weights is not None else "sdcMicro's default",
        "records_with_msu": int(np.sum(res.score > 0)),
        "msus_by_size": {str(k + 1): int(c) for k, c in enumerate(res.msu_counts.sum(axis=0))},
        "dis_suda": {"max": float(res.dis_score.max()) if res.dis_score.size else 0.0,
                     "mean": float(res.dis_score.mean()) if res.dis_score.size else 0.0},
        "attribute_contributions": [{"attribute": a, "percent": float(p)} for a, p in top],
    }


def survey_figures(frame: pd.DataFrame, qis: Sequence[str], *, weight: str | None = None,
                   household: str | None = None, suda: bool = False, suda_max_size: int | None = None,
                   threshold: float = DEFAULT_INDIVIDUAL_RISK) -> dict[str, Any]:
    """sdcMicro's measures of ``frame`` on its published quasi-identifier cells (see the module docstring).

    Returns a JSON-ready dict: ``keys``, ``weight_column``, ``household_column``, ``records``, ``threshold``,
    ``individual_risk`` (``max``, ``mean``, ``above``: records above ``threshold``, ``above_share``),
    ``global_risk``, ``expected_reidentifications``, ``sample_uniques``, ``household`` (its
    ``expected_reidentifications``, ``global_risk``, ``max``; ``None`` without a household column),
    ``distribution`` (the share of records per risk bin) and ``suda2`` (``None`` unless ``suda``); the per-record
    risks are left out. A bad weight or household value is refused in one line (naming the column).
    """
    qis = list(qis)
    weight = _column(frame, weight, "weight", "--weight")
    household = _column(frame, household, "household", "--household")
    if weight is not None and weight == household:
        raise InputError("--weight and --household name the same column: a weight is a number per record, a "
                         "household an id shared by its records", column=weight, key="--household")
    for col, flag in ((weight, "--weight"), (household, "--household")):
        if col is not None and col in qis:
            raise InputError(f"{flag} names a quasi-identifier: the {flag[2:]} column is not a key variable",
                             column=col, key=flag)
    keys = published_keys(frame, qis)
    w = _weights(frame, weight)
    hh = _households(frame, household)
    res = survey_risk(keys, qis, weights=w, households=hh)
    out: dict[str, Any] = {
        "keys": qis, "weight_column": weight, "household_column": household, "records": int(res.fk.size),
        "threshold": float(threshold),
        "individual_risk": _summary(res.risk, threshold),
        "global_risk": res.global_risk,
        "expected_reidentifications": res.expected_reidentifications,
        "sample_uniques": int(np.sum(res.fk == 1)),
        "household": None,
        "distribution": _distribution(res.risk),
        "suda2": None,
    }
    if res.household_risk is not None:
        out["household"] = {"expected_reidentifications": res.household_expected_reidentifications,
                            "global_risk": res.household_global_risk,
                            "max": float(res.household_risk.max()) if res.household_risk.size else 0.0}
    if suda:
        out["suda2"] = _suda(keys, qis, w, suda_max_size)
    return out


def record_risks(frame: pd.DataFrame, qis: Sequence[str], weight: str | None = None) -> np.ndarray:
    """Every record's individual risk on the published cells (the figure's data; tests compare it)."""
    keys = published_keys(frame, qis)
    return individual_risk(sample_frequencies(keys, list(qis), weights=_weights(frame, weight)))
