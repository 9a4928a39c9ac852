"""Data shuffling (Muralidhar & Sarathy 2006; sdcMicro's ``shuffle``, its default method ``ds``): the
confidential numeric columns are regenerated from a normal-copula model of their rank correlations
with the non-confidential ``predictors``, then every original value is reverse-mapped by rank onto
the generated values.

Over the released records (no missing value allowed in a shuffled or numeric predictor column):

1. every column of ``(Y, S)`` (the confidential columns, then the predictors; a categorical predictor
   as dummy columns, its first category left out, a missing value its own category) is turned into
   normal scores ``Φ⁻¹((rank − ½)/n)`` (average ranks for ties);
2. the Spearman correlations ``ρ`` become the normal copula's correlations ``2 sin(πρ/6)``;
3. generated values ``Y* = S* Σ_SS⁻¹ Σ_SY + e``, ``e ~ N(0, Σ_YY − Σ_YS Σ_SS⁻¹ Σ_SY)`` (the
   conditional distribution; pseudo-inverse for collinear predictors, the residual covariance's
   negative eigenvalues set to 0), drawn with numpy's generator seeded from the run's seed;
4. per confidential column, the record with the ``r``-th smallest generated value takes the
   ``r``-th smallest original value (ties broken in input order).

What is true of the published values: every shuffled column holds exactly the input column's values
(the same multiset: every one-column margin is kept), their rank correlations with the predictors
and with each other are the model's in expectation, and a record's value is generally not its own.
The summary states each shuffled column's Spearman correlation with the records' original values
(``shuffle rank correlation COLUMN``: how much of the record's own rank survives) and with each
numeric predictor (``… ~ PREDICTOR``); the verifier (:mod:`anonkit._verify_swap`) recounts them and
the permutation from the published table and the input. The generated values themselves are not
published (they would be a second, noisier copy of the confidential columns).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from anonkit._verify_perturb import numbers
from anonkit._verify_swap import correlation_key, shuffle_correlations, shuffle_results
from anonkit.algorithms.perturb._release import (
    PUBLISHED_TABLES,
    check_columns,
    column_kind,
    default_columns,
    perturbed_release,
    verify_perturbed,
)
from anonkit.algorithms.spec import algorithm
from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.schema import Role
from anonkit.table import Table

NAME = "shuffle"


def _check(table: Table, columns: list[str], predictors: list[str]) -> None:
    """Everything about the options that can be known before any work."""
    if not columns:
        raise InputError("shuffle needs at least one confidential column to shuffle", key="algorithm.columns")
    check_columns(table, columns, key="algorithm.columns", method=NAME, kind="any")
    for name in columns:
        kind = column_kind(table, name)
        if kind != "numeric":
            raise InputError(f"shuffle regenerates numbers but the column is {kind}: use pram for categories",
                             column=name, key="algorithm.columns")
    if not predictors:
        raise InputError("shuffle models the confidential columns on non-confidential predictors: name at least "
                         "one in predictors", key="algorithm.predictors")
    check_columns(table, predictors, key="algorithm.predictors", method=NAME, kind="any")
    both = [c for c in predictors if c in columns]
    if both:
        raise InputError("a predictor is published unchanged, so it cannot also be shuffled", column=both[0],
                         key="algorithm.predictors")
    kept = ~table.presuppressed
    for name in [*columns, *(p for p in predictors if column_kind(table, p) == "numeric")]:
        if np.isnan(numbers(table.frame[name])[kept]).any():
            raise InputError("shuffle needs a value in every released record of the named columns (sdcMicro "
                             "imputes at random; anonkit refuses): fill or drop the missing values",
                             column=name, key="algorithm.predictors" if name in predictors else "algorithm.columns")
    if int(kept.sum()) < 3:
        raise InputError("shuffle needs at least three released records", key="algorithm.columns")


def _design(frame: pd.DataFrame, table: Table, predictors: list[str]) -> np.ndarray:
    """The predictors as numbers: numeric columns as they are, categorical ones as dummy columns (first
    category left out); constant columns dropped (they carry no rank)."""
    parts = []
    for name in predictors:
        if column_kind(table, name) == "numeric":
            parts.append(numbers(frame[name])[:, None])
        else:
            dummies = pd.get_dummies(frame[name].astype(str), drop_first=True)
            parts.append(dummies.to_numpy(dtype=float).reshape(len(frame), -1))
    s = np.column_stack(parts) if parts else np.zeros((len(frame), 0))
    return s[:, np.ptp(s, axis=0) > 0] if s.size else s


def _scores(x: np.ndarray) -> np.ndarray:
    """Normal scores ``Φ⁻¹((rank − ½)/n)`` per column (average ranks)."""
    from scipy import stats as _stats  # lazy: scipy.stats costs 0.3 CPU-s to import, on every run's registry

    ranks = np.column_stack([_stats.rankdata(x[:, j]) for j in range(x.shape[1])]) if x.shape[1] else x
    return _stats.norm.ppf((ranks - 0.5) / x.shape[0])


def generated(y: np.ndarray, s: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The generated values ``Y*`` (steps 1–3 of the module docstring)."""
    d = y.shape[1]
    mat = np.column_stack([y, s])
    from scipy import stats as _stats  # lazy, as above

    ranks = np.column_stack([_stats.rankdata(mat[:, j]) for j in range(mat.shape[1])])
    with np.errstate(invalid="ignore", divide="ignore"):  # a constant column: no correlation (0)
        rho = np.nan_to_num(np.atleast_2d(np.corrcoef(ranks, rowvar=False)))
    np.fill_diagonal(rho, 1.0)
    pmc = 2 * np.sin(np.pi * rho / 6)
    pxs, pxx, pss = pmc[:d, d:], pmc[:d, :d], pmc[d:, d:]
    beta = pxs @ np.linalg.pinv(pss) if pss.size else np.zeros((d, 0))
    sigma = pxx - beta @ pxs.T
    sigma = (sigma + sigma.T) / 2
    w, v = np.linalg.eigh(sigma)
    root = v * np.sqrt(np.clip(w, 0, None))
    e = rng.standard_normal((y.shape[0], d)) @ root.T
    return _scores(s) @ beta.T + e if s.shape[1] else e


@algorithm(
    NAME,
    family="perturb",
    label="data shuffling",
    summary="the named confidential numeric columns regenerated from a normal-copula model on the predictors and "
    "their original values reverse-mapped by rank onto the generated ones (sdcMicro's shuffle, method ds)",
    enforces=(),
    tables=PUBLISHED_TABLES,
    randomized=True,
    verifier=verify_perturbed,
)
def shuffle(
    table: Table,
    models: list[Criterion],
    *,
    columns: list[str] | None = None,
    predictors: list[str] | None = None,
    seed: int = 0,
) -> Release:
    """Shuffling; see the module docstring.

    Parameters
    ----------
    table, models:
        The encoded input and the privacy models (judged on the release by the audit, not enforced).
    columns:
        The confidential numeric columns to shuffle; default: every numeric insensitive column.
    predictors:
        The non-confidential columns they are modelled on (published unchanged); default: every
        quasi-identifier not shuffled.
    seed:
        Draws the generated values and the row order.
    """
    started = time.perf_counter()
    if columns is None:
        columns = [c for c in table.frame.columns if table.schema[c].role == Role.INSENSITIVE
                   and column_kind(table, c) == "numeric"] or default_columns(table, None, method=NAME, kind="numeric")
    columns = list(columns)
    predictors = [q for q in table.qi if q not in columns] if predictors is None else list(predictors)
    _check(table, columns, predictors)
    rng = np.random.default_rng(seed)
    kept = np.flatnonzero(~table.presuppressed)
    sub = table.frame.iloc[kept]
    y = np.column_stack([numbers(sub[c]) for c in columns])
    ystar = generated(y, _design(sub, table, predictors), rng)
    frame = table.frame.copy()
    for j, name in enumerate(columns):
        values = table.frame[name].to_numpy(copy=True)
        by_value = kept[np.argsort(y[:, j], kind="stable")]
        by_generated = kept[np.argsort(ystar[:, j], kind="stable")]
        out = values.copy()
        out[by_generated] = values[by_value]
        frame[name] = pd.Series(out, index=frame.index, name=name)
    original = table.frame.iloc[kept]
    notes = shuffle_correlations(original, frame.iloc[kept], columns, predictors)
    described = [f"{name}: the column's own values reassigned to records by the rank of values generated from "
                 f"the predictors ({', '.join(predictors)}); rank correlation with the records' original values "
                 f"{notes[correlation_key(name)]:.3f}" for name in columns]
    params = {"columns": columns, "predictors": predictors, "method": "ds", "seed": seed}
    return perturbed_release(table, frame, algorithm=NAME, seed=seed, params=params, described=described,
                             perturbed=columns, checks=shuffle_results, notes=notes,
                             seconds=time.perf_counter() - started)


__all__ = ["generated", "shuffle"]
