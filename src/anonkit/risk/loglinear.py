"""Log-linear model risk (sdcMicro's ``modRisk``): how many sample uniques are population uniques.

The sample counts of the key variables' cross-classification are modelled as independent Poisson
counts with a log-linear model (main effects, plus the two-way interactions asked for). With the
fitted count ``λ`` of a cell and ``p`` the sum of its records' inclusion probabilities ``1/w``, over the
cells with ``0 < count <= bound`` (and ``λ > 0``), of which there are ``N``::

    τ1 = Σ_{count = 1} exp(−(1−p)·λ) / N          (sample uniques that are population uniques)
    τ2 = Σ_{count = 1} (1 − exp(−v)) / v / N,  v = (1−p)·λ   (expected correct matches)

— sdcMicro's ``gr1`` and ``gr2`` (Skinner & Holmes 1998; Rinott & Shlomo). The model is fitted, as
``modRisk`` fits it, on the full grid of the values seen per variable, empty cells included. Methods, as
``modRisk``'s:

* ``"default"`` — the counts on the model;
* ``"CE"`` (Clogg–Eliason) — with the offset ``log(count/weight + 0.1)`` (``0`` for an empty cell's ratio);
* ``"PML"`` (pseudo maximum likelihood) — the cells' weight sums rescaled to the sample size and
  rounded (half to even, as R) as the response;
* ``"weightedLLM"`` — the cells' weight sums as one more (numeric) predictor.

(``"IPF"``, main effects by iterative proportional fitting, has the same maximum-likelihood fit as
``"default"``; it is not offered separately.) The fit is a Poisson GLM by iteratively reweighted least
squares with R's ``glm.fit`` iterates (start ``y + 0.1``, relative deviance change below ``1e-8``, at most 25
steps, the step halved while the deviance is not finite), but the grid is never built for a main-effects
model: an empty cell has count 0 and fitted count ``exp(xᵀβ)``, a product over the variables, so the sums
over the grid that each step needs are products of per-variable sums, and only the observed cells' rows
of the (sparse, scipy) model matrix are formed. Cost: O(n) to group the records into their ``c`` observed
cells, then per step O(c·t) for the observed rows (``t`` terms) and O(P³) for the ``P × P`` normal
equations (``P`` = 1 + Σ levels): near-linear in the records. A model with interactions has no product
form: its grid is materialized (sparse, refused above :data:`MAX_CELLS` cells), O(cells) per step.

A key variable enters as a factor (dummies, first value the reference); R enters a *numeric* column
linearly instead — name such keys in ``numeric`` to get sdcMicro's
figures on numeric codes (as francdat's). Missing key values are refused (sdcMicro's formula
interface would drop the cell silently). Where R gives NaN — a unique with inclusion probability 1,
``v = 0`` — τ2 takes its limit, 1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.risk._keys import group_ids, weights_array

if TYPE_CHECKING:  # scipy loads only when a log-linear model is fitted (a run's verifier imports this package)
    from scipy import sparse

#: ``modRisk``'s methods offered here; "default" is sdcMicro's default.
METHODS = ("default", "CE", "PML", "weightedLLM")
DEFAULT_METHOD = "default"
#: R's ``glm.control()``: convergence tolerance on the relative deviance change, and the step limit.
GLM_EPSILON = 1e-8
GLM_MAX_STEPS = 25
#: a model with interactions materializes the contingency table: refused above this many cells.
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
    # ``fitted``: the fitted counts of the sample's non-empty cells (the empty cells' are never formed)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the measures (and as percentages), the method and the table's size."""
        return {"method": self.method, "gr1": self.gr1, "gr2": self.gr2, "gr1_percent": 100 * self.gr1,
                "gr2_percent": 100 * self.gr2, "cells_kept": self.cells, "converged": self.converged}


def _solve(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """The normal equations' minimum-norm solution, scaled to a unit diagonal first (fitted counts far apart
    make ``XᵀWX``'s diagonal span many magnitudes)."""
    d = np.sqrt(np.abs(np.diag(lhs)))
    d[d == 0] = 1.0
    return np.linalg.lstsq(lhs / np.outer(d, d), rhs / d, rcond=None)[0] / d


def _irls(grid: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, float]], design: sparse.csr_matrix,
          extra: np.ndarray | None, y: np.ndarray, offset: np.ndarray, empty_offset: float
          ) -> tuple[np.ndarray, bool]:
    """R's ``glm.fit`` (Poisson, log link) over the whole table, touching only the observed cells' rows.

    ``grid(beta)`` gives ``Σ ν·x xᵀ``, ``Σ ν·x`` and ``Σ ν`` over every cell of the table, ``ν = exp(xᵀβ)``
    (the main and interaction terms only). An empty cell has ``y = 0`` and the offset ``empty_offset``; the
    observed cells' rows are ``design`` (plus the ``extra`` predictor, zero on every empty cell). So each
    IRLS step — the weighted least squares ``(XᵀWX) β = XᵀWz`` of R, solved by minimum-norm least squares
    on the normal equations (an aliased design keeps R's fitted values) — is the table's sums minus the
    observed cells' share at the empty cells' weight plus their own share. Start ``μ = y + 0.1``, stop at a
    relative deviance change below :data:`GLM_EPSILON` or after :data:`GLM_MAX_STEPS` steps: R's iterates.
    """
    from scipy import sparse

    p0 = design.shape[1]
    full = design if extra is None else sparse.hstack([design, sparse.csr_matrix(extra[:, None])]).tocsr()
    size = full.shape[1]

    def pad(m: np.ndarray) -> np.ndarray:
        out = np.zeros((size, size) if m.ndim == 2 else size)
        out[(slice(0, p0),) * m.ndim] = m
        return out

    def observed(weights: np.ndarray, on: sparse.csr_matrix) -> np.ndarray:
        return np.asarray((on.T @ on.multiply(weights[:, None])).todense())

    def deviance(mu: np.ndarray, total: float) -> float:
        with np.errstate(divide="ignore", invalid="ignore"):
            term = np.where(y > 0, y * np.log(y / mu), 0.0)
        return float(2.0 * (np.sum(term) - y.sum() + total))

    gram, sums, cells = grid(np.zeros(p0))  # ν = 1: the plain sums over the table
    mu = y + 0.1
    z = np.log(mu) - offset + (y - mu) / mu
    fill = np.log(0.1) - empty_offset - 1.0  # an empty cell's working response (y = 0, μ = 0.1)
    lhs = pad(0.1 * gram) - pad(observed(np.full(y.size, 0.1), design)) + observed(mu, full)
    rhs = pad(0.1 * fill * sums) - pad(design.T @ np.full(y.size, 0.1 * fill)) + full.T @ (mu * z)
    dev_old = deviance(mu, float(mu.sum()) + 0.1 * (cells - y.size))
    scale = float(np.exp(empty_offset))
    previous: np.ndarray | None = None
    for _ in range(GLM_MAX_STEPS):
        beta = _solve(lhs, rhs)
        for _halving in range(GLM_MAX_STEPS + 1):
            with np.errstate(over="ignore", invalid="ignore"):
                base = np.exp(design @ beta[:p0])
                mu = np.exp(design @ beta[:p0] + offset + (0.0 if extra is None else beta[p0] * extra))
                gram, sums, total = grid(beta[:p0])
                dev = deviance(mu, scale * total - scale * float(base.sum()) + float(mu.sum()))
            if np.isfinite(dev) and np.isfinite(gram).all() and (mu > 0).all():
                break
            if previous is None:  # R: "no valid set of coefficients has been found"
                raise InputError("the log-linear model cannot be fitted (its first step diverges): use fewer or "
                                 "coarser key variables, or another method")
            beta = (beta + previous) / 2  # R's "step size truncated due to divergence"
        else:
            raise InputError("the log-linear model diverges: use fewer or coarser key variables, or another method")
        lhs = pad(scale * gram) - pad(observed(scale * base, design)) + observed(mu, full)
        fitted_sum = pad(scale * sums) - pad(design.T @ (scale * base)) + full.T @ mu
        rhs = lhs @ beta + full.T @ y - fitted_sum
        previous = beta
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


@dataclass(frozen=True)
class _Term:
    """A term of the model as a function of a cell's levels: the column (``-1``: none) and value per level.

    A factor has one dummy per level but the first (R's treatment contrasts); a numeric key one column, its
    value; an interaction of two terms the products of their columns (``width`` = the product of widths).
    """

    keys: tuple[int, ...]
    column: tuple[np.ndarray, ...]
    value: tuple[np.ndarray, ...]
    widths: tuple[int, ...]

    @property
    def width(self) -> int:
        """The term's number of columns."""
        return int(np.prod(self.widths))

    def at(self, levels: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Every cell's column (``-1`` for none) and value, the cells given by their level per key."""
        col = np.zeros(levels[0].size, dtype=np.int64)
        val = np.ones(levels[0].size)
        for key, column, value, width in zip(self.keys, self.column, self.value, self.widths, strict=True):
            c = column[levels[key]]
            col = np.where((col < 0) | (c < 0), -1, col * width + c)
            val = val * value[levels[key]]
        return col, val


def _main_term(key: int, values: np.ndarray, numeric: bool) -> _Term:
    if numeric:
        return _Term((key,), (np.zeros(values.size, dtype=np.int64),), (values.astype(np.float64),), (1,))
    return _Term((key,), (np.arange(values.size, dtype=np.int64) - 1,), (np.ones(values.size),),
                 (max(values.size - 1, 0),))


def _interaction(a: _Term, b: _Term) -> _Term:
    return _Term(a.keys + b.keys, a.column + b.column, a.value + b.value, a.widths + b.widths)


def _design(terms: list[_Term], levels: list[np.ndarray]) -> sparse.csr_matrix:
    """The cells' rows of the model matrix: the intercept, then each term's columns (sparse)."""
    from scipy import sparse

    m = levels[0].size
    rows, cols, vals, start = [np.arange(m)], [np.zeros(m, dtype=np.int64)], [np.ones(m)], 1
    for term in terms:
        col, val = term.at(levels)
        has = col >= 0
        rows.append(np.flatnonzero(has))
        cols.append(start + col[has])
        vals.append(val[has])
        start += term.width
    return sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(m, start))


def _product_grid(terms: list[_Term], sizes: list[int]) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, float]]:
    """The table's sums for a main-effects model, without the table: ``ν`` is a product over the keys.

    With ``u_j = exp(B_j β_j)`` over key ``j``'s levels, ``s_j = Σ u_j``, ``m_j = B_jᵀ u_j``, ``Q_j = B_jᵀ
    diag(u_j) B_j`` and ``Π = e^{β_0} Π_j s_j``: ``Σ ν = Π``, ``Σ ν x = Π·v`` with ``v = (1, m_1/s_1, …)``,
    and ``Σ ν x xᵀ = Π·(v vᵀ + blockdiag(Q_j/s_j − (m_j/s_j)(m_j/s_j)ᵀ))`` — O(Σ levels²) a step.
    """
    blocks = [_design([t], [np.arange(size)] * len(sizes)).toarray()[:, 1:] for t, size in zip(terms, sizes,
                                                                                                  strict=True)]

    def grid(beta: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        parts, mean, at, log_total = [np.ones(1)], [], 1, float(beta[0])
        for block in blocks:
            u = np.exp(block @ beta[at:at + block.shape[1]])
            s = float(u.sum())
            m = block.T @ u / s
            parts.append(m)
            mean.append(block.T @ (block * (u / s)[:, None]) - np.outer(m, m))
            log_total += np.log(s)
            at += block.shape[1]
        v = np.concatenate(parts)
        gram = np.outer(v, v)
        at = 1
        for q in mean:
            gram[at:at + q.shape[0], at:at + q.shape[0]] += q
            at += q.shape[0]
        total = float(np.exp(log_total))
        return total * gram, total * v, total

    return grid


def _full_grid(terms: list[_Term], sizes: list[int]) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, float]]:
    """The table's sums over its materialized cells (a model with interactions): O(cells) a step."""
    cells = int(np.prod(sizes, dtype=np.float64))
    if cells > MAX_CELLS:
        raise InputError(f"the key variables' table has {cells} cells, more than {MAX_CELLS}: use fewer key "
                         "variables or coarser ones, or no interactions, for the log-linear risk", value=cells)
    mesh = np.meshgrid(*[np.arange(n) for n in sizes], indexing="ij")
    design = _design(terms, [m.ravel() for m in mesh])

    def grid(beta: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        nu = np.exp(design @ beta)
        return np.asarray((design.T @ design.multiply(nu[:, None])).todense()), design.T @ nu, float(nu.sum())

    return grid


def _fit(data: pd.DataFrame, keys: list[str], w: np.ndarray, method: str, interactions: list[tuple[str, str]],
         numeric: set[str], bound: float) -> LogLinearRisk:
    codes, values = [], []
    for name in keys:
        c, uniq = pd.factorize(data[name])
        codes.append(c.astype(np.int64))
        values.append(np.asarray(uniq))
    ids, first = group_ids(np.column_stack(codes))
    counts = np.bincount(ids).astype(np.float64)
    wsum = np.bincount(ids, weights=w)
    incl = np.bincount(ids, weights=1.0 / w)
    levels = [c[first] for c in codes]
    terms = [_main_term(j, v, name in numeric) for j, (name, v) in enumerate(zip(keys, values, strict=True))]
    index = {name: j for j, name in enumerate(keys)}
    pairs = [_interaction(terms[index[a]], terms[index[b]]) for a, b in interactions]
    sizes = [v.size for v in values]
    grid = _full_grid(terms + pairs, sizes) if pairs else _product_grid(terms, sizes)
    y, offset, empty_offset, extra = counts, np.zeros(counts.size), 0.0, None
    if method == "CE":
        offset, empty_offset = np.log(counts / wsum + 0.1), float(np.log(0.1))
    elif method == "PML":
        y = np.round(wsum * counts.sum() / wsum.sum())
    elif method == "weightedLLM":
        extra = wsum
    fitted, converged = _irls(grid, _design(terms + pairs, levels), extra, y, offset, empty_offset)
    keep = (counts <= bound) & (fitted > 0)
    kept = int(keep.sum())
    uniq = keep & (counts == 1)
    v = (1.0 - incl[uniq]) * fitted[uniq]
    gr1 = float(np.sum(np.exp(-v)) / kept) if kept else 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        match = np.where(v > 0, (1.0 - np.exp(-v)) / v, 1.0)
    gr2 = float(np.sum(match) / kept) if kept else 0.0
    return LogLinearRisk(gr1, gr2, method, fitted, kept, converged)
