"""Additive noise (sdcMicro's ``addNoise``): Gaussian noise added to the named numeric columns.

Three methods, each seeded (numpy's generator from the run's seed, columns in the order given):

* ``additive`` (sdcMicro's default): every column gets independent noise ``N(0, σ_j)`` with
  ``σ_j = level/100 · sd_j`` (``sd_j``: the column's sample standard deviation, missing values left
  out). sdcMicro's default level is 150.
* ``correlated`` (two columns or more): noise drawn from ``N(0, c Σ)`` with ``Σ`` the columns'
  sample covariance (complete rows) and ``c = (level/100)²``, so the noise has the data's
  correlations and every column's noise its ``level`` percent of the column's standard deviation;
  the published covariance is ``(1 + c) Σ`` in expectation (the correlations kept). sdcMicro's
  ``correlated`` takes its ``noise/100`` as ``c`` itself (a variance ratio): its ``noise = N`` is
  anonkit's ``level = 100·√(N/100)``; anonkit keeps one meaning of ``level`` for every method.
* ``correlated2`` (sdcMicro's): ``x·√(1 − δ²) + δ·z`` with ``z ~ N((1 − √(1 − δ²))/δ · mean, sd)``:
  every column's mean and variance are kept in expectation, its correlations with other columns
  shrink by the factor ``1 − δ²``; the noise part has standard deviation ``δ · sd``. Its level is
  ``delta`` (default 0.1), ``level`` does not apply.

A missing value stays missing (no noise is added to it). Every other column is published as it is.
What is true of the published values: none of a named column's values is the record's own; each
lies at a random distance from it, with the standard deviation the summary states (``noise sigma
COLUMN`` in the notes). The verifier (:mod:`anonkit._verify_perturb`) recomputes the noise from the
published table and the input and checks its level, mean, the kept correlations and missing values.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

import numpy as np
import pandas as pd
from pydantic import Field

from anonkit._verify_perturb import NOISE_METHODS, noise_checks, numbers, sigma_key
from anonkit.algorithms.perturb._release import (
    PUBLISHED_TABLES,
    check_columns,
    default_columns,
    perturbed_release,
    verify_perturbed,
)
from anonkit.algorithms.spec import algorithm
from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table

NAME = "add-noise"
#: sdcMicro's default method
DEFAULT_METHOD = "additive"
#: sdcMicro's default noise level: the noise's standard deviation as a percentage of the column's
DEFAULT_LEVEL = 150.0
#: sdcMicro's default δ of ``correlated2``
DEFAULT_DELTA = 0.1
Method = Literal["additive", "correlated", "correlated2"]
assert set(NOISE_METHODS) == set(Method.__args__)  # the verifier knows every method


def _check(table: Table, columns: list[str], method: str, level: float | None,
           delta: float | None) -> np.ndarray:
    """Everything about the options that can be known before any work; the named columns' values as floats
    (``n × d``, ``nan`` missing), read once for the check and the noise."""
    if not columns:
        raise InputError("add-noise needs at least one column to perturb", key="algorithm.columns")
    check_columns(table, columns, key="algorithm.columns", method=NAME, kind="numeric")
    sensitive = [c for c in columns if c in table.sensitive]
    if sensitive:  # the audit reads a sensitive attribute's published values in the input's domain
        raise InputError("add-noise publishes values the input does not have, and a sensitive attribute is judged "
                         "on the input's values: declare the column insensitive (the noise protects it) or quasi",
                         column=sensitive[0], key="algorithm.columns")
    if method == "correlated2" and level is not None:
        raise InputError("method correlated2 is set by delta, not level: drop level", key="algorithm.level")
    if method != "correlated2" and delta is not None:
        raise InputError(f"delta applies to method correlated2, not {method}: drop delta or set method: correlated2",
                         key="algorithm.delta")
    if method == "correlated" and len(columns) < 2:
        raise InputError("correlated noise keeps the correlations between columns and needs at least two: "
                         "name more columns or use method: additive", key="algorithm.columns")
    kept = ~table.presuppressed
    x = np.empty((table.n, len(columns)), dtype=np.float64)
    for j, name in enumerate(columns):
        x[:, j] = numbers(table.frame[name])
        if np.count_nonzero(~np.isnan(x[kept, j])) < 2:
            raise InputError("add-noise scales the noise by the column's standard deviation and needs at least two "
                             "values", column=name, key="algorithm.columns")
    return x


def _noise(x: np.ndarray, kept: np.ndarray, method: str, ratio: float, rng: np.random.Generator) -> np.ndarray:
    """The published values of the columns ``x`` (``n × d``, ``nan`` missing): see the module docstring."""
    n, d = x.shape
    present = ~np.isnan(x) & kept[:, None]
    sd = np.array([np.std(x[present[:, j], j], ddof=1) for j in range(d)])
    if method == "additive":
        return x + rng.standard_normal((n, d)) * (ratio * sd)[None, :]
    if method == "correlated":
        complete = present.all(axis=1)
        if np.count_nonzero(complete) < 2:
            raise InputError("correlated noise needs at least two records with a value in every named column",
                             key="algorithm.columns")
        cov = np.cov(x[complete], rowvar=False, ddof=1)
        return x + rng.multivariate_normal(np.zeros(d), ratio**2 * cov, size=n, method="eigh")
    d1 = np.sqrt(1 - ratio**2)
    mean = np.array([np.mean(x[present[:, j], j]) for j in range(d)])
    z = rng.standard_normal((n, d)) * sd[None, :] + ((1 - d1) / ratio * mean)[None, :]
    return x * d1 + ratio * z


@algorithm(
    NAME,
    family="perturb",
    label="additive noise",
    summary="Gaussian noise added to the named numeric columns (sdcMicro's addNoise: additive, correlated with the "
    "data's covariance, or correlated2), its level a percentage of each column's standard deviation",
    enforces=(),
    tables=PUBLISHED_TABLES,
    randomized=True,
    verifier=verify_perturbed,
)
def add_noise(
    table: Table,
    models: list[Criterion],
    *,
    columns: list[str] | None = None,
    method: Method = DEFAULT_METHOD,
    level: Annotated[float, Field(gt=0)] | None = None,
    delta: Annotated[float, Field(gt=0, lt=1)] | None = None,
    seed: int = 0,
) -> Release:
    """Additive noise; see the module docstring.

    Parameters
    ----------
    table, models:
        The encoded input and the privacy models (judged on the release by the audit, not enforced).
    columns:
        The numeric columns to perturb; default: every numeric quasi-identifier.
    method:
        additive (independent per column), correlated (the data's covariance) or correlated2 (sdcMicro's).
    level:
        The noise's standard deviation as a percentage of each column's (additive, correlated; default 150).
    delta:
        correlated2's δ in (0, 1) (default 0.1).
    seed:
        Draws the noise and the row order.
    """
    started = time.perf_counter()
    columns = default_columns(table, columns, method=NAME, kind="numeric")
    x = _check(table, columns, method, level, delta)
    if method == "correlated2":
        delta = DEFAULT_DELTA if delta is None else delta
        ratio = float(delta)
    else:
        level = DEFAULT_LEVEL if level is None else level
        ratio = float(level) / 100
    rng = np.random.default_rng(seed)
    kept = ~table.presuppressed
    y = _noise(x, kept, method, ratio, rng)
    frame = table.frame.copy(deep=False)  # copy-on-write: the columns set below replace, never write into, the input
    notes: dict[str, Any] = {}
    described = []
    for j, name in enumerate(columns):
        frame[name] = pd.Series(y[:, j], index=frame.index)
        present = x[kept, j][~np.isnan(x[kept, j])]
        sigma = ratio * float(np.std(present, ddof=1))
        notes[sigma_key(name)] = sigma
        what = {"additive": "plus independent Gaussian noise",
                "correlated": "plus Gaussian noise correlated as the named columns are",
                "correlated2": f"scaled by √(1 − δ²) plus Gaussian noise (δ = {ratio:g}), mean and variance kept"}
        described.append(f"{name}: the original values {what[method]}, σ = {sigma:.4g}"
                         + (f" ({level:g}% of its standard deviation)" if method != "correlated2" else ""))
    params = {"columns": list(columns), "method": method, "level": level, "delta": delta, "seed": seed}
    return perturbed_release(table, frame, algorithm=NAME, seed=seed, params=params, described=described,
                             perturbed=columns, checks=noise_checks, notes=notes,
                             seconds=time.perf_counter() - started)


__all__ = ["DEFAULT_DELTA", "DEFAULT_LEVEL", "add_noise"]
