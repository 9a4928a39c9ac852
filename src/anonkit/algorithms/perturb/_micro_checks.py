"""What the verifier checks of a microaggregated release (the declaration's ``verifier=``), recounted
from the published table and the input with pandas (the method computes with numpy sorts, so a slip in
one is not repeated in the other). It reads nothing of the method's code but the group each published
row was given (the private link, never published):

* every group has at least ``k`` records and lies in one stratum;
* every published value of an aggregated column is its group's aggregate (mean, median or one-step
  mean) of the original values, within :data:`RELATIVE_TOLERANCE`;
* from the published table alone: within a stratum, every published combination of the aggregated
  columns (for ``onedims``: every published value of each column) is shared by at least ``k`` records.

The columns not aggregated (the strata among them) are the input's: the family's common check
(:func:`anonkit.algorithms.perturb._release.verify_perturbed`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from anonkit.verifier import ModelResult

#: relative tolerance of a published aggregate (values are float64 sums of a few records)
RELATIVE_TOLERANCE = 1e-9
#: R's ``mad`` constant and sdcMicro's one-step bound (3 / 1.486 MADs)
_MAD = 1.4826
_ONESTEP = 3 / 1.486


def _result(name: str, ok: bool, failing: int, achieved: float = 0.0) -> ModelResult:
    return ModelResult(model=name, passed=ok, achieved=achieved, failing_classes=failing, failing_records=failing)


def _onestep(values: pd.Series) -> float:
    med = values.median()
    spread = _MAD * (values - med).abs().median()
    return float(values.clip(med - _ONESTEP * spread, med + _ONESTEP * spread).mean())


def expected(values: pd.Series, group: np.ndarray, aggr: str) -> np.ndarray:
    """Every record's group aggregate of ``values``."""
    grouped = values.groupby(group)
    if aggr == "onestep":
        return grouped.transform(_onestep).to_numpy(dtype=float)
    return grouped.transform(aggr).to_numpy(dtype=float)


def _strata_key(original: pd.DataFrame, strata: list[str]) -> np.ndarray:
    if not strata:
        return np.zeros(len(original), dtype=np.int64)
    texts = original[strata].astype(str).where(original[strata].notna(), "\0")
    return texts.groupby(strata, sort=False).ngroup().to_numpy()


def micro_checks(original: pd.DataFrame, published: pd.DataFrame, notes: dict[str, Any], params: dict[str, Any],
                 *, groups: dict[str, np.ndarray]) -> list[ModelResult]:
    """The checks in the module docstring; ``groups[column]`` is the group of every published row for
    that column (one array shared by every column unless the method is ``onedims``)."""
    k, aggr, columns = int(params["k"]), str(params["aggr"]), list(params["columns"])
    stratum = _strata_key(original, list(params.get("strata") or []))
    small = mixed = wrong = shared = 0
    for name in columns:
        group = np.asarray(groups[name])
        sizes = np.bincount(group)
        small += int(np.count_nonzero((sizes > 0) & (sizes < k)))
        per_group = pd.Series(stratum).groupby(group).nunique()
        mixed += int((per_group > 1).sum())
        x = pd.to_numeric(original[name], errors="coerce").astype(float)
        y = pd.to_numeric(published[name], errors="coerce").to_numpy(dtype=float)
        want = expected(x, group, aggr)
        scale = np.maximum(np.abs(want), 1.0)
        wrong += int(np.count_nonzero(~(np.abs(y - want) <= RELATIVE_TOLERANCE * scale)))
    keys = [columns] if params["method"] != "onedims" else [[c] for c in columns]
    for key in keys:
        frame = published[key].astype(float).assign(_stratum=stratum)
        counts = frame.groupby([*key, "_stratum"], sort=False, dropna=False)[key[0]].transform("size")
        shared += int(np.count_nonzero(counts.to_numpy() < k))
    what = ("value of each aggregated column" if params["method"] == "onedims"
            else "combination of the aggregated columns")
    return [
        _result(f"microaggregation: every group has at least k = {k} records", small == 0, small),
        _result("microaggregation: no group crosses strata", mixed == 0, mixed),
        _result(f"microaggregation: every published value is its group's {aggr}", wrong == 0, wrong),
        _result(f"microaggregation: every published {what} is shared by at least k records in its stratum",
                shared == 0, shared),
    ]
