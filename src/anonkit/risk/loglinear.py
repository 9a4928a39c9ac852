"""Log-linear model risk (sdcMicro's ``modRisk``): how many sample uniques are population uniques.

The sample counts of the key variables' cross-classification are modelled as independent Poisson
counts with a log-linear model (main effects, plus the two-way interactions asked for). With the
fitted count ``λ`` of a cell and ``p`` the sum of its records' inclusion probabilities ``1/w``, over the
cells with ``0 < count <= bound`` (and ``λ > 0``), of which there are ``N``::

    τ1 = Σ_{count = 1} exp(−(1−p)·λ) / N          (sample uniques that are population uniques)
    τ2 = Σ_{count = 1} (1 − exp(−v)) / v / N,  v = (1−p)·λ   (expected correct matches)

— sdcMicro's ``gr1`` and ``gr2`` (Skinner & Holmes 1998; Rinott & Shlomo). The table is the full grid
of the values seen per variable, empty cells included, as ``modRisk`` builds it. Methods, as
``modRisk``'s:

* ``"default"`` — the counts on the model;
* ``"CE"`` (Clogg–Eliason) — with the offset ``log(count/weight + 0.1)`` (``0`` for an empty cell's ratio);
* ``"PML"`` (pseudo maximum likelihood) — the cells' weight sums rescaled to the sample size and
  rounded (half to even, as R) as the response;
* ``"weightedLLM"`` — the cells' weight sums as one more (numeric) predictor.

(``"IPF"``, main effects by iterative proportional fitting, has the same maximum-likelihood fit as
``"default"``; it is not offered separately.) The fit is a Poisson GLM by iteratively reweighted least
squares, as R's ``glm.fit`` (start ``y + 0.1``, relative deviance change below ``1e-8``, at most 25
steps), with numpy only. A key variable enters as a factor (dummies, first value the reference);
R enters a *numeric* column linearly instead — name such keys in ``numeric`` to get sdcMicro's
figures on numeric codes (as francdat's). Missing key values are refused (sdcMicro's formula
interface would drop the cell silently). Where R gives NaN — a unique with inclusion probability 1,
``v = 0`` — τ2 takes its limit, 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.risk._keys import dense, weights_array

#: ``modRisk``'s methods offered here; "default" is sdcMicro's default.
METHODS = ("default", "CE", "PML", "weightedLLM")
DEFAULT_METHOD = "default"
#: R's ``glm.control()``: convergence tolerance on the relative deviance change, and the step limit.
GLM_EPSILON = 1e-8
GLM_MAX_STEPS = 25
#: the contingency table's cells are refused above this many (the design matrix is cells × parameters).
MAX_CELLS = 2_000_000


@dataclass(frozen=True)
class LogLinearRisk:
    """``modRisk``'s result: the two global risk measures, the fitted cell counts and the cells kept."""

    gr1: float
    gr2: float
    method: str
    fitted: np.ndarray
    cells: int
    converged: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the measures (and as percentages), the method and the table's size."""
        return {"method": self.method, "gr1": self.gr1, "gr2": self.gr2, "gr1_percent": 100 * self.gr1,
                "gr2_percent": 100 * self.gr2, "cells_kept": self.cells, "converged": self.converged}


def _block(values: np.ndarray, numeric: bool) -> np.ndarray:
    """A variable's columns in the design: its value (numeric), or one dummy per value but the first."""
    if numeric:
        return values.astype(np.float64)[:, None]
    codes = dense(values)
    levels = int(codes.max()) + 1
    out = np.zeros((values.size, max(levels - 1, 0)))
    rows = np.flatnonzero(codes > 0)
    out[rows, codes[rows] - 1] = 1.0
    return out


def poisson_fit(design: np.ndarray, y: np.ndarray, offset: np.ndarray | None = None) -> tuple[np.ndarray, bool]:
    """Fitted means of a Poisson GLM with log link, by IRLS as R's ``glm.fit``; and whether it converged.

    Least squares by ``numpy.linalg.lstsq`` (minimum norm), so an aliased design has the same fitted
    values as R's pivoting QR.
    """
    off = np.zeros(y.size) if offset is None else offset
    mu = y + 0.1
    eta = np.log(mu)

    def deviance(mu: np.ndarray) -> float:
        with np.errstate(divide="ignore", invalid="ignore"):
            term = np.where(y > 0, y * np.log(y / mu), 0.0)
        return float(2.0 * np.sum(term - (y - mu)))

    dev_old = deviance(mu)
    for _ in range(GLM_MAX_STEPS):
        z = (eta - off) + (y - mu) / mu
        sw = np.sqrt(mu)
        beta = np.linalg.lstsq(design * sw[:, None], z * sw, rcond=None)[0]
        eta = design @ beta + off
        mu = np.exp(eta)
        dev = deviance(mu)
        if abs(dev - dev_old) / (abs(dev) + 0.1) < GLM_EPSILON:
            return mu, True
        dev_old = dev
    return mu, False


def loglinear_risk(data: pd.DataFrame, keys: Sequence[str], *,
                   weights: Sequence[float] | np.ndarray | str | None = None, method: str = DEFAULT_METHOD,
                   interactions: Sequence[tuple[str, str]] = (),
                   numeric: Sequence[str] = (), bound: float = float("inf")) -> LogLinearRisk:
    """sdcMicro's ``modRisk(data, method, weights, formulaM = ~ keys + interactions, bound)``.

    ``weights`` (an array or a column name; 1 for every record when not given, as ``modRisk`` on an
    sdcMicro object without weights) are the sampling weights. ``interactions`` are pairs of key
    variables; ``numeric`` names keys entered linearly, as R does for numeric columns.
    """
    if method not in METHODS:
        raise InputError(f"unknown log-linear risk method: use one of {', '.join(METHODS)}", value=method)
    keys = list(keys)
    if not keys:
        raise InputError("the log-linear risk needs at least one key variable")
    for name in [*keys, *numeric, *(v for pair in interactions for v in pair)]:
        if name not in data.columns:
            raise InputError("a variable of the log-linear model is not a column of the data", column=str(name))
    for pair in interactions:
        if len(pair) != 2 or pair[0] == pair[1] or not set(pair) <= set(keys):
            raise InputError("an interaction is a pair of two different key variables", value=str(pair))
    if isinstance(bound, bool) or not isinstance(bound, int | float) or not bound > 0:
        raise InputError("bound must be a number > 0", value=bound)
    n = len(data)
    w = weights_array(weights, n, data)
    w = np.ones(n) if w is None else w
    for name in keys:
        if data[name].isna().any():
            row = int(np.flatnonzero(data[name].isna().to_numpy())[0])
            raise InputError("the log-linear risk needs every key value: a value is missing", column=name, row=row)
        if name in numeric and not pd.api.types.is_numeric_dtype(data[name]):
            raise InputError("a key entered linearly must be numeric", column=name)
    if n == 0:
        return LogLinearRisk(0.0, 0.0, method, np.zeros(0), 0, True)
    return _fit(data, keys, w, method, list(interactions), set(numeric), float(bound))


def _grid(data: pd.DataFrame, keys: list[str]) -> tuple[list[np.ndarray], np.ndarray]:
    """The full grid of the values seen per variable (as value arrays) and every record's cell."""
    levels, codes = [], []
    for name in keys:
        c, uniq = pd.factorize(data[name])
        levels.append(np.asarray(uniq))
        codes.append(c.astype(np.int64))
    size = int(np.prod([len(v) for v in levels], dtype=np.float64))
    if size > MAX_CELLS:
        raise InputError(f"the key variables' table has {size} cells, more than {MAX_CELLS}: use fewer key variables "
                         "or coarser ones for the log-linear risk", value=size)
    mesh = np.meshgrid(*[np.arange(len(v)) for v in levels], indexing="ij")
    grid = [lv[m.ravel()] for lv, m in zip(levels, mesh, strict=True)]
    cell = np.zeros(len(data), dtype=np.int64)
    for c, lv in zip(codes, levels, strict=True):
        cell = cell * len(lv) + c
    return grid, cell


def _fit(data: pd.DataFrame, keys: list[str], w: np.ndarray, method: str, interactions: list[tuple[str, str]],
         numeric: set[str], bound: float) -> LogLinearRisk:
    grid, cell = _grid(data, keys)
    cells = grid[0].size
    counts = np.bincount(cell, minlength=cells).astype(np.float64)
    wsum = np.bincount(cell, weights=w, minlength=cells)
    incl = np.bincount(cell, weights=1.0 / w, minlength=cells)
    blocks = {name: _block(values, name in numeric) for name, values in zip(keys, grid, strict=True)}
    columns = [np.ones((cells, 1)), *blocks.values()]
    for a, b in interactions:
        columns.append((blocks[a][:, :, None] * blocks[b][:, None, :]).reshape(cells, -1))
    y, offset = counts, None
    if method == "CE":
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(wsum > 0, counts / wsum, 0.0)
        offset = np.log(ratio + 0.1)
    elif method == "PML":
        y = np.round(wsum * counts.sum() / wsum.sum())
    elif method == "weightedLLM":
        columns.append(wsum[:, None])
    fitted, converged = poisson_fit(np.hstack(columns), y, offset)
    keep = (counts > 0) & (counts <= bound) & (fitted > 0)
    kept = int(keep.sum())
    uniq = keep & (counts == 1)
    v = (1.0 - incl[uniq]) * fitted[uniq]
    gr1 = float(np.sum(np.exp(-v)) / kept) if kept else 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        match = np.where(v > 0, (1.0 - np.exp(-v)) / v, 1.0)
    gr2 = float(np.sum(match) / kept) if kept else 0.0
    return LogLinearRisk(gr1, gr2, method, fitted, kept, converged)

