"""Utility of a perturbed release (issue 28, item 5): how close the published values stay to the
original ones when every record is published with some values changed (PRAM, noise, swapping,
microaggregation: the ``perturb`` family), where the class-based measures (loss, NCP, …) say nothing.

Record ``i`` of the published table is compared with **its own** original record (the release's
private link, :meth:`~anonkit.release.Release.published_rows`: the rows are published shuffled).

Numeric columns (:mod:`anonkit.metrics._perturbed_numeric`):

* **IL1s** — sdcMicro 5.8.1's ``dUtility(x, xm, method="IL1s")``: Σ |x − x′| / (√2 · sd(x)) over records
  and changed columns (a *sum*, as sdcMicro computes it); ``il1s_mean`` is the same per cell, the
  normalization of Mateo-Sanz, Sebe & Domingo-Ferrer (2004) (sdcMicro's ``IL1old``), comparable
  across tables. ``il1`` is sdcMicro's IL1 (Σ 100 · |x − x′| / |x|).
* **eigen** — sdcMicro's ``dUtility(method="eigen")``: Σ |e − e′| / e over the eigenvalues of the
  correlation matrices of the changed columns (Templ & Meindl 2008). ``robeigen`` (a robust MCD
  covariance) is not computed: it needs a robust estimator we do not ship.
* **correlations** — each pair with a changed column: the original and published Pearson
  correlation, the largest and mean absolute difference.
* **regressions** — by default each changed numeric column on every other numeric column; the
  overlap of each coefficient's 95 % confidence intervals (Karr, Kohnen, Oganian, Reiter & Sanil 2006,
  *A framework for evaluating the utility of data altered to protect confidentiality*, The American
  Statistician 60(3)): 1 the same interval, 0 touching, negative apart.

Categorical columns (:mod:`anonkit.metrics._perturbed_categorical`): the share of changed values per
changed column and the total-variation distance of its margin and of each pair's two-way table.

Survey weights are not used (every record counts once). Models trained on the original and on the
release are compared by ``anonkit evaluate`` (:mod:`anonkit.evaluate`), not here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.metrics._perturbed_categorical import categorical_comparison, text_codes
from anonkit.metrics._perturbed_numeric import (
    DEFAULT_LEVEL,
    correlation_comparison,
    eigen_measure,
    finite,
    il1,
    il1s,
    il1s_mean,
    regression_comparison,
    regression_comparison_arrays,
)
from anonkit.release import Release
from anonkit.schema import AttrType, Role
from anonkit.table import Table

__all__ = ["DEFAULT_LEVEL", "column_kinds", "perturbed_utility", "release_utility", "text_codes"]

#: the roles whose columns are measured (weights, households, pseudonyms and new ids are not data)
MEASURED_ROLES = (Role.QUASI, Role.SENSITIVE, Role.INSENSITIVE)


def _numbers(frame: pd.DataFrame, names: Sequence[str]) -> np.ndarray:
    """The columns as a float matrix (missing → NaN); a value that is not a number is refused."""
    out = np.empty((len(frame), len(names)), dtype=float)
    for j, c in enumerate(names):
        col = pd.to_numeric(frame[c], errors="coerce")
        if (col.isna() & frame[c].notna()).any():
            raise InputError("perturbed utility: a numeric column holds a value that is not a number", column=c)
        out[:, j] = col.to_numpy(dtype=float, na_value=np.nan)
    return out


def _check(original: pd.DataFrame, published: pd.DataFrame, names: Sequence[str]) -> None:
    if len(original) != len(published):
        raise InputError(f"perturbed utility: the original has {len(original):,} records and the release "
                         f"{len(published):,}; give the original records of the published rows, in their order")
    for c in names:
        if c not in original.columns or c not in published.columns:
            raise InputError("perturbed utility: the column is not in both tables", column=c)


def _numeric_part(original: pd.DataFrame, published: pd.DataFrame, numeric: Sequence[str], changed: set[str],
                  regressions: Sequence[tuple[str, Sequence[str]]] | None, level: float) -> dict[str, Any]:
    x, xm = _numbers(original, numeric), _numbers(published, numeric)
    moved = [j for j, c in enumerate(numeric) if c in changed]
    xc, xmc = x[:, moved], xm[:, moved]
    sd = np.nanstd(xc, axis=0, ddof=1) if len(xc) > 1 else np.full(len(moved), np.nan)
    per_column = {}
    for k, j in enumerate(moved):
        diff = xm[:, j] - x[:, j]
        known = np.isfinite(diff)
        per_column[numeric[j]] = {
            "changed": float(np.mean(diff[known] != 0)) if known.any() else 0.0,
            "mean_abs_change": float(np.abs(diff[known]).mean()) if known.any() else 0.0,
            "il1s": il1s(xc[:, [k]], xmc[:, [k]]), "sd": finite(sd[k]),
        }
    if regressions is None:
        regressions = [(numeric[j], [c for c in numeric if c != numeric[j]]) for j in moved if len(numeric) > 1]
    return {
        "columns": [numeric[j] for j in moved],
        "il1s": il1s(xc, xmc), "il1s_mean": il1s_mean(xc, xmc), "il1": il1(xc, xmc),
        "eigen": eigen_measure(xc, xmc) if len(moved) else None,
        "per_column": per_column,
        "correlations": correlation_comparison(x, xm, numeric, [c in changed for c in numeric]),
        "regressions": _regressions(original, published, x, xm, numeric, regressions, level) if regressions else None,
    }


def _regressions(original: pd.DataFrame, published: pd.DataFrame, x: np.ndarray, xm: np.ndarray,
                 numeric: Sequence[str], regressions: Sequence[tuple[str, Sequence[str]]],
                 level: float) -> dict[str, Any] | None:
    """The regression comparison on the numeric matrices already read when every named column is one of
    them (the default regressions always are), else on the frames (one's own regressions may name others)."""
    if {c for response, predictors in regressions for c in (response, *predictors)} <= set(numeric):
        return regression_comparison_arrays(x, xm, numeric, regressions, level)
    return regression_comparison(original, published, regressions, level)


def perturbed_utility(original: pd.DataFrame, published: pd.DataFrame, *, numeric: Sequence[str] = (),
                      categorical: Sequence[str] = (), changed: Sequence[str] | None = None,
                      regressions: Sequence[tuple[str, Sequence[str]]] | None = None,
                      level: float = DEFAULT_LEVEL) -> dict[str, Any]:
    """The utility figures of ``published`` against ``original`` (row ``i`` of each the same record).

    ``numeric`` and ``categorical`` name the columns to compare by kind; ``changed`` those the method
    perturbed (default: all named): IL1s, eigen and the per-column figures cover the changed columns,
    the pairs (correlations, two-way tables) every pair with at least one changed column, and by
    default each changed numeric column is regressed on the other numeric ones; ``regressions``
    gives one's own ``(response, [predictors])`` instead. A part without columns is ``None``."""
    if not 0 < level < 1:
        raise InputError(f"perturbed utility: the confidence level must be in (0, 1), got {level}", key="level")
    _check(original, published, [*numeric, *categorical])
    moved = set(changed) if changed is not None else {*numeric, *categorical}
    original, published = original.reset_index(drop=True), published.reset_index(drop=True)
    num = [c for c in numeric if c in moved]
    cat = [c for c in categorical if c in moved]
    return {
        "records": len(original),
        "numeric": _numeric_part(original, published, list(numeric), moved, regressions, level) if num else None,
        "categorical": ({"columns": cat, **categorical_comparison(original, published, list(categorical),
                                                                  [c in moved for c in categorical])}
                        if cat else None),
    }


def _all_numbers(column: pd.Series) -> bool:
    """Every known value a number: a numpy number column without a look (its dtype says so), any other by
    ``pd.to_numeric``."""
    if isinstance(column.dtype, np.dtype) and column.dtype.kind in "iufb":
        return True
    return bool(pd.to_numeric(column, errors="coerce").notna().sum() == column.notna().sum())


def column_kinds(table: Table, published: pd.DataFrame) -> tuple[list[str], list[str]]:
    """The published data columns (quasi-identifiers, sensitive and insensitive attributes) by kind:
    numeric when declared so, or undeclared with every original and published value a number;
    categorical when declared categorical or ordinal, or holding text; dates are left out."""
    numeric, categorical = [], []
    for c in published.columns:
        if c not in table.frame.columns or c not in table.schema or table.schema[c].role not in MEASURED_ROLES:
            continue
        t = table.schema[c].type
        if t == AttrType.DATE:
            continue
        if t in (AttrType.CATEGORICAL, AttrType.ORDINAL):
            categorical.append(c)
            continue
        if t == AttrType.NUMERIC:
            numeric.append(c)
            continue
        numbers = all(_all_numbers(f[c]) for f in (table.frame, published))
        (numeric if numbers or t == AttrType.NUMERIC else categorical).append(c)
    return numeric, categorical


def release_utility(table: Table, release: Release) -> dict[str, Any] | None:
    """The figures of a perturbative release (one whose ``perturbed`` names the changed columns)
    against the original records of its published rows; ``None`` for any other release."""
    changed = tuple(getattr(release, "perturbed", ()) or ())
    if not changed:
        return None
    published = release.to_frame()
    original = table.frame.iloc[release.published_rows()].reset_index(drop=True)
    numeric, categorical = column_kinds(table, published)
    return perturbed_utility(original, published, numeric=numeric, categorical=categorical, changed=changed)
