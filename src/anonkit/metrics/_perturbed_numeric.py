"""The numeric utility measures of a perturbed release (:mod:`anonkit.metrics.perturbed`): sdcMicro's
``dUtility`` (IL1s, IL1, the eigenvalue measure), the correlation comparison and the regression
coefficients' confidence-interval overlap. Each takes the original and the published values as
float arrays, record ``i`` of one matched to record ``i`` of the other, missing values as NaN.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

#: the confidence level of the regression coefficients' intervals (Karr et al. 2006 use 95 %)
DEFAULT_LEVEL = 0.95


def finite(value: float) -> float | None:
    """``value`` as a plain float, ``None`` when it is not a number (JSON has no NaN)."""
    v = float(value)
    return v if math.isfinite(v) else None


def il1s(x: np.ndarray, xm: np.ndarray) -> float:
    """sdcMicro's ``dUtility(method="IL1s")``: the **sum** over records and columns of
    |x − x′| / (√2 · sd(x)), sd the column's sample standard deviation (n − 1) over its known values;
    a term with a missing value on either side is left out (``na.rm``). Mateo-Sanz, Sebe &
    Domingo-Ferrer (2004) divide the sum by the number of cells: :func:`il1s_mean`."""
    sd = np.nanstd(x, axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.abs(x - xm) / (sd * math.sqrt(2.0))
    return float(np.nansum(terms))


def il1s_mean(x: np.ndarray, xm: np.ndarray) -> float:
    """IL1s per cell (sdcMicro's ``IL1old``, the paper's normalization): :func:`il1s` / (n · p), so
    tables of different sizes compare; 0 is an unchanged release, 1 a typical shift of one σ·√2."""
    n, p = x.shape
    return il1s(x, xm) / (n * p) if n and p else 0.0


def il1(x: np.ndarray, xm: np.ndarray) -> float:
    """sdcMicro's ``dUtility(method="IL1")``: the sum of 100 · |x − x′| / |x| over records and columns;
    a term that is infinite (x = 0, x′ ≠ 0) or undefined (missing, 0/0) is left out, as sdcMicro does."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = 100.0 * np.abs(x - xm) / np.abs(x)
    return float(terms[np.isfinite(terms)].sum())


def _scaled_cov(x: np.ndarray) -> np.ndarray:
    """R's ``var(scale(x), use="pairwise.complete.obs")``: each column centred and scaled by its own
    mean and sd (n − 1, known values), then the covariance of each pair over the rows where both are
    known (n − 1). Without missing values it is the correlation matrix."""
    mean = np.nanmean(x, axis=0)
    sd = np.nanstd(x, axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (x - mean) / sd
    return pd.DataFrame(z).cov().to_numpy()


def eigen_measure(x: np.ndarray, xm: np.ndarray) -> float | None:
    """sdcMicro's ``dUtility(method="eigen")``: Σ |e − e′| / e over the eigenvalues (largest first) of the
    original's and the published values' correlation matrices (:func:`_scaled_cov`); ``None`` when one
    is undefined (a constant column, fewer than two known rows), where sdcMicro gives ``NA``."""
    a, b = _scaled_cov(x), _scaled_cov(xm)
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        return None
    e1 = np.sort(np.linalg.eigvalsh(a))[::-1]
    e2 = np.sort(np.linalg.eigvalsh(b))[::-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        d = float(np.sum(np.abs(e1 - e2) / e1))
    return finite(d)


def correlation_comparison(x: np.ndarray, xm: np.ndarray, names: Sequence[str],
                           changed: Sequence[bool]) -> dict[str, Any] | None:
    """The Pearson correlation of every pair of columns of which at least one was ``changed``, in the
    original and in the published values (each over the rows where both are known), and the
    largest and mean absolute difference; ``None`` with fewer than two columns or no such pair. A
    pair whose correlation is undefined on either side (a constant column) is listed with ``None``."""
    if len(names) < 2:
        return None
    r0 = pd.DataFrame(x).corr().to_numpy()
    r1 = pd.DataFrame(xm).corr().to_numpy()
    pairs, diffs = [], []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            if not (changed[i] or changed[j]):
                continue
            d = abs(r0[i, j] - r1[i, j])
            pairs.append({"columns": [names[i], names[j]], "original": finite(r0[i, j]),
                          "published": finite(r1[i, j]), "difference": finite(d)})
            if math.isfinite(d):
                diffs.append(d)
    if not pairs:
        return None
    return {"max_abs_difference": max(diffs) if diffs else None,
            "mean_abs_difference": float(np.mean(diffs)) if diffs else None, "pairs": pairs}


def householder_r(a: np.ndarray) -> np.ndarray:
    """The upper-triangular R of the QR decomposition of the tall ``a`` (n × m, n ≥ m; overwritten), by
    Householder reflections written with numpy's own loops (``einsum``, no BLAS): LAPACK's QR wakes a pool of
    BLAS threads for an n × 4 matrix, which on a busy machine cost 20× the arithmetic (testdata, load 8:
    170 ms of CPU for six fits that need 2 ms). Rows of R may differ in sign from LAPACK's; RᵀR is the same."""
    m = a.shape[1]
    scratch = np.empty(a.shape[0])
    for k in range(m):
        x = a[k:, k]
        squares = float(np.einsum("i,i->", x, x))
        if not 1e-290 < squares < 1e290:  # zero, or its sum of squares under- or overflows: rescaled first
            scale = float(np.max(np.abs(x)))
            if scale == 0.0:
                continue  # a zero column below the diagonal: R's diagonal is 0 (rank short)
            norm = scale * math.sqrt(float(np.einsum("i,i->", x / scale, x / scale)))
        else:
            norm = math.sqrt(squares)
        x0 = float(x[0])
        alpha = -norm if x0 >= 0 else norm  # the reflection's sign that avoids cancellation
        if k + 1 < m:
            # the unit reflection vector u = v / ‖v‖, v = x − αe₁, ‖v‖² = 2‖x‖(‖x‖ + |x₀|): each factor's root
            # taken apart, so that neither ‖v‖ nor uᵀA over- or underflows where x itself does not
            length = math.sqrt(2.0) * math.sqrt(norm) * math.sqrt(norm + abs(x0))
            u = x / length
            u[0] = (x0 - alpha) / length
            w = 2.0 * np.einsum("i,ij->j", u, a[k:, k + 1:])
            tmp = scratch[: len(u)]
            for j in range(k + 1, m):  # A ← A − u·wᵀ column by column, in place (no n × m temporary)
                np.multiply(u, w[j - k - 1], out=tmp)
                a[k:, j] -= tmp
        a[k, k] = alpha
    return np.triu(a[:m, :m])


def ols_intervals(y: np.ndarray, X: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Ordinary least squares of ``y`` on ``X`` with an intercept (first coefficient) over the rows
    where every value is known: the coefficients and their ``level`` confidence intervals (t
    distribution, n − p − 1 degrees of freedom). ``None`` when they are undefined: too few rows, or
    predictors that are constant or collinear (the design matrix is not of full rank)."""
    p = X.shape[1] + 1
    # one QR of [1 | X | y]: R's first p columns are the design's R (its singular values are the design's,
    # so the rank is numpy's matrix_rank of the n × p design, tolerance included), its last column
    # holds Qᵀy and the residuals' norm
    augmented = np.empty((len(y), p + 1), order="F")
    augmented[:, 0] = 1.0
    augmented[:, 1:p] = X
    augmented[:, p] = y
    known = np.isfinite(augmented).all(axis=1)
    if not known.all():
        augmented = augmented[known]
    n = len(augmented)
    if n <= p:
        return None
    r = householder_r(augmented if augmented.flags.f_contiguous else np.asfortranarray(augmented))
    design_r = r[:p, :p]
    singular = np.linalg.svd(design_r, compute_uv=False)
    if not singular.size or singular[-1] <= singular[0] * n * np.finfo(float).eps:
        return None
    beta = np.linalg.solve(design_r, r[:p, p])
    sigma2 = float(r[p, p] ** 2) / (n - p)
    r_inv = np.linalg.inv(design_r)
    se = np.sqrt(sigma2 * np.einsum("ij,ij->i", r_inv, r_inv))  # diag((RᵀR)⁻¹) = row sums of R⁻¹²
    from scipy import stats  # lazy: scipy.stats costs 0.3 CPU-s to import

    half = stats.t.ppf(0.5 + level / 2.0, n - p) * se
    return beta, beta - half, beta + half


def interval_overlap(lo0: np.ndarray, hi0: np.ndarray, lo1: np.ndarray, hi1: np.ndarray) -> np.ndarray:
    """Karr, Kohnen, Oganian, Reiter & Sanil (2006): J = ½ · (w / (U − L) + w / (U′ − L′)) with
    w = min(U, U′) − max(L, L′), the overlap of the original interval [L, U] and the published one
    [L′, U′]. 1 when they coincide, 0 when they only touch, negative when they are apart (how far,
    in their widths). NaN when an interval has no width."""
    w = np.minimum(hi0, hi1) - np.maximum(lo0, lo1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 0.5 * (w / (hi0 - lo0) + w / (hi1 - lo1))


def regression_comparison(original: pd.DataFrame, published: pd.DataFrame,
                          regressions: Sequence[tuple[str, Sequence[str]]],
                          level: float = DEFAULT_LEVEL) -> dict[str, Any] | None:
    """Each regression ``(response, predictors)`` fitted on the original and on the published values:
    per coefficient (the intercept first) both estimates and the overlap of their intervals
    (:func:`interval_overlap`), the regression's mean overlap, and over all coefficients the mean and
    the smallest overlap. A regression undefined on either side is listed with its reason."""
    def values(frame: pd.DataFrame) -> Columns:
        return lambda names: frame[list(names)].to_numpy(float)
    return _compare_regressions(values(original), values(published), regressions, level)


def regression_comparison_arrays(x: np.ndarray, xm: np.ndarray, names: Sequence[str],
                                 regressions: Sequence[tuple[str, Sequence[str]]],
                                 level: float = DEFAULT_LEVEL) -> dict[str, Any] | None:
    """:func:`regression_comparison` on the float matrices of the original and the published values whose
    columns are ``names`` (every column a regression names among them): the same figures, bit for bit,
    without a data frame's column lookups."""
    index = {c: j for j, c in enumerate(names)}

    def values(matrix: np.ndarray) -> Columns:
        return lambda cols: matrix[:, [index[c] for c in cols]]
    return _compare_regressions(values(x), values(xm), regressions, level)


#: the values of the named columns as an ``n × len(names)`` float matrix
Columns = Callable[[Sequence[str]], np.ndarray]


def _compare_regressions(original: Columns, published: Columns, regressions: Sequence[tuple[str, Sequence[str]]],
                         level: float) -> dict[str, Any] | None:
    models, every = [], []
    for response, predictors in regressions:
        cols = [response, *predictors]
        fit0 = ols_intervals(original([response])[:, 0], original(predictors), level)
        fit1 = ols_intervals(published([response])[:, 0], published(predictors), level)
        entry: dict[str, Any] = {"response": response, "predictors": list(predictors)}
        if fit0 is None or fit1 is None:
            side = "original" if fit0 is None else "published"
            entry.update(mean_overlap=None, coefficients=[],
                         undefined=f"the {side} values give no fit (too few rows, constant or collinear predictors)")
            models.append(entry)
            continue
        (b0, lo0, hi0), (b1, lo1, hi1) = fit0, fit1
        j = interval_overlap(lo0, hi0, lo1, hi1)
        terms = ["(intercept)", *cols[1:]]
        entry["coefficients"] = [{"term": t, "original": finite(b0[i]), "published": finite(b1[i]),
                                  "overlap": finite(j[i])} for i, t in enumerate(terms)]
        known = j[np.isfinite(j)]
        entry["mean_overlap"] = float(known.mean()) if known.size else None
        every.extend(known.tolist())
        models.append(entry)
    if not models:
        return None
    return {"level": level, "mean_overlap": float(np.mean(every)) if every else None,
            "min_overlap": float(np.min(every)) if every else None, "models": models}
