"""The independent checks of a perturbative release (issue 28): what each method promises, recounted
from the published table, the input and what the release publishes about itself.

A perturbative release is not truthful by design, so "the released values cover the original" is
replaced by the method's own promise, checked here without reading the algorithm's bookkeeping:

* **every method**: the published table has the input's columns and one row per released record, and
  every column the method does not name is the input's, cell for cell (:func:`unchanged_results`);
* **PRAM** (:func:`pram_results`), per column and stratum, from the *published* transition matrix:
  it is a stochastic matrix (entries in ``[0, 1]``, rows summing to 1 within
  :data:`STOCHASTIC_TOLERANCE`); when it is said to be invariant, ``π P = π`` for the observed
  distribution ``π`` of the input's values in that stratum (within :data:`INVARIANT_TOLERANCE`);
  every published value is one of the matrix's categories and every change ``a → b`` has
  ``P[a, b] > 0``; a missing value stays missing. A chi-square test that the observed transitions
  are consistent with ``P`` is *reported* (:func:`pram_chi_square`), not judged: a correct release
  fails any test at level α with probability α, so a hard failure would refuse honest releases by
  chance, and a test that passes proves no privacy property;
* **noise** (:func:`noise_results`): the noise recomputed from release − input has the stated
  standard deviation and mean 0 within :data:`TOLERANCE_Z` standard errors of the estimates
  (the standard error of a standard deviation estimated from ``n`` normal draws is about
  ``σ/√(2n)``, of a mean ``σ/√n``; at 6 standard errors an honest release fails with probability
  below 10⁻⁸, a level off by a few percent on a thousand records fails); correlated noise also has
  the data's correlations (Fisher's standard error ``(1 − ρ²)/√n``); a missing value stays missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from anonkit.verifier import ModelResult

#: how far a row of a published transition matrix may sum from 1 (floating point)
STOCHASTIC_TOLERANCE = 1e-9
#: how far ``π P`` may lie from ``π`` (largest absolute difference) for an invariant matrix
INVARIANT_TOLERANCE = 1e-9
#: standard errors a recomputed noise figure may lie from the stated one
TOLERANCE_Z = 6.0
#: the fewest complete rows on which a pair's noise correlation is judged (Fisher's standard error is an
#: approximation that needs a few dozen rows; below, the pair is not judged)
MIN_CORRELATION_ROWS = 20
#: the noise methods the verifier knows: additive (independent per column), correlated (Σ_noise = c·Σ)
#: and sdcMicro's correlated2 (``x·√(1−δ²) + δ·z``, means and variances kept)
NOISE_METHODS = ("additive", "correlated", "correlated2")


@dataclass(frozen=True)
class PublishedMatrix:
    """A transition matrix as a PRAM release publishes it: the ``column``, the ``stratum`` (the
    values of the strata columns, ``()`` without strata), the ``categories`` (row and column order)
    and the ``matrix`` (``P[a, b]``: the probability that a record of category ``a`` is published as
    ``b``), and whether it is said to be ``invariant``."""

    column: str
    stratum: tuple[str, ...]
    categories: tuple[str, ...]
    matrix: np.ndarray
    invariant: bool

    @property
    def label(self) -> str:
        """``column`` or ``column [by=value, …]`` as the summary names it."""
        return self.column if not self.stratum else f"{self.column} [{', '.join(self.stratum)}]"

    @property
    def square(self) -> bool:
        return self.matrix.ndim == 2 and self.matrix.shape == (len(self.categories), len(self.categories))


def model_result(name: str, passed: bool, achieved: float, failing: int = 0) -> ModelResult:
    """One promise checked, as a verifier result (one failing 'class' when it fails, ``failing`` records)."""
    return ModelResult(name, bool(passed), float(achieved), 0 if passed else 1, int(failing))


def cell_texts(column: pd.Series) -> np.ndarray:
    """Cells as text (``None`` where missing), so ``3`` and ``3.0`` read from a file compare as written.

    A column of numpy integers, booleans or 64-bit floats is numbered first (floats by their bits, so
    ``0.0`` and ``-0.0`` stay apart) and only its distinct values are turned into text, each as ``str``
    gives it — the texts ``astype(str)`` gives, at a fraction of its cost on a large column (a
    perturbed column has many distinct values but a quasi-identifier few). Any other column (objects,
    strings, float32, whose ``str`` of a widened value differs) is turned into text cell by cell."""
    dtype = column.dtype
    if isinstance(dtype, np.dtype) and (dtype.kind in "iub" or (dtype.kind == "f" and dtype.itemsize == 8)):
        values = column.to_numpy()
        out = np.full(len(values), None, dtype=object)
        known = ~np.isnan(values) if dtype.kind == "f" else np.ones(len(values), dtype=bool)
        codes, uniques = pd.factorize(values[known].view(np.int64) if dtype.kind == "f" else values[known])
        if dtype.kind == "f":
            uniques = np.asarray(uniques, dtype=np.int64).view(np.float64)
        out[known] = np.array([str(v) for v in np.asarray(uniques).tolist()] + [None], dtype=object)[codes]
        return out
    out = column.astype(str).to_numpy(dtype=object)
    out[column.isna().to_numpy()] = None
    return out


def _codes(values: np.ndarray, categories: Sequence[str]) -> np.ndarray:
    """Each text value's index in ``categories`` (−1: missing or not a category)."""
    return pd.Index(list(categories), dtype=object).get_indexer(values).astype(np.int64)


# ------------------------------------------------------------------------------------------ shape
def unchanged_results(original: pd.DataFrame, published: pd.DataFrame, perturbed: Sequence[str]) -> list[ModelResult]:
    """The published table's shape (the input's columns, as many rows) and every column not in
    ``perturbed`` equal to the input's, cell for cell (as text, missing as missing)."""
    same_columns = list(original.columns) == list(published.columns)
    same_rows = len(original) == len(published)
    out = [model_result("published columns and rows are the input's", same_columns and same_rows,
                   float(same_columns and same_rows))]
    if not (same_columns and same_rows):
        return out
    differing = 0
    for name in original.columns:
        if name in perturbed or original[name].equals(published[name]):  # (the same values: no text needed)
            continue
        differing += int(np.count_nonzero(cell_texts(original[name]) != cell_texts(published[name])))
    out.append(model_result("every other column as in the input", differing == 0, differing, differing))
    return out


# ------------------------------------------------------------------------------------------ PRAM
def stratum_masks(original: pd.DataFrame, by: Sequence[str]) -> dict[tuple[str, ...], np.ndarray]:
    """The rows of each stratum (the distinct text values of the ``by`` columns; one stratum ``()``
    without them), in sorted order."""
    if not by:
        return {(): np.ones(len(original), dtype=bool)}
    texts = pd.DataFrame({c: pd.Series(cell_texts(original[c]), dtype=object).fillna("") for c in by})
    group = texts.groupby(list(by), sort=True).ngroup().to_numpy()
    keys = texts.drop_duplicates().sort_values(list(by)).itertuples(index=False, name=None)
    return {tuple(f"{c}={v}" for c, v in zip(by, key, strict=True)): group == g for g, key in enumerate(keys)}


def categories_key(column: str) -> str:
    """The notes' key of a PRAM'd column's categories (the rows' and probabilities' order)."""
    return f"pram categories {column}"


def matrix_key(column: str, stratum: tuple[str, ...]) -> str:
    """The notes' key of the matrix applied to ``column`` in ``stratum``."""
    return f"pram {column}" if not stratum else f"pram {column} [{', '.join(stratum)}]"


def chi_square_key(column: str) -> str:
    """The notes' key of the chi-square test reported for ``column``."""
    return f"pram chi-square {column}"


def matrix_rows(m: PublishedMatrix) -> list[list[object]]:
    """A matrix as the notes publish it: one row per category, the category then its probabilities."""
    return [[c, *(float(x) for x in m.matrix[i])] for i, c in enumerate(m.categories)]


def matrices_from_notes(original: pd.DataFrame, notes: dict, params: dict) -> list[PublishedMatrix]:
    """The matrices a PRAM release publishes, read back from its notes for every stratum present in
    ``original`` (a stratum whose matrix is not published gets none, which :func:`pram_results`
    fails); a row that does not start with its category makes the matrix non-square (failed too)."""
    out = []
    for column in params["columns"]:
        cats = tuple(str(c) for c in notes.get(categories_key(column), []))
        for stratum in stratum_masks(original, params.get("by") or []):
            rows = notes.get(matrix_key(column, stratum))
            if rows is None:
                continue
            named = [str(r[0]) for r in rows] == list(cats)
            body = [list(r[1:]) for r in rows]
            square = named and all(len(r) == len(cats) for r in body)
            matrix = np.array(body, dtype=float) if square else np.full((len(cats), 0), np.nan)
            out.append(PublishedMatrix(column, stratum, cats, matrix, bool(params.get("invariant"))))
    return out


def pram_checks(original: pd.DataFrame, published: pd.DataFrame, notes: dict, params: dict) -> list[ModelResult]:
    """:func:`pram_results` with the matrices the release publishes (:func:`matrices_from_notes`); a
    named column whose matrices are all missing fails."""
    matrices = matrices_from_notes(original, notes, params)
    missing = [c for c in params["columns"] if not any(m.column == c for m in matrices)]
    out = [model_result(f"PRAM {c}: a published matrix", False, 0.0, len(original)) for c in missing]
    return out + pram_results(original, published, matrices, params.get("by") or [])


def pram_reported(original: pd.DataFrame, published: pd.DataFrame, notes: dict, params: dict) -> dict:
    """The chi-square tests of :func:`pram_chi_square` as notes (statistic, degrees of freedom, p-value)."""
    tests = pram_chi_square(original, published, matrices_from_notes(original, notes, params),
                            params.get("by") or [])
    return {chi_square_key(c): [t["statistic"], t["df"], t["p_value"]] for c, t in tests.items()}


def pram_results(original: pd.DataFrame, published: pd.DataFrame, matrices: Sequence[PublishedMatrix],
                 by: Sequence[str]) -> list[ModelResult]:
    """The hard checks of a PRAM release (see the module docstring), one row per check and column;
    a matrix missing for a stratum of a named column fails."""
    strata = stratum_masks(original, by)
    out: list[ModelResult] = []
    for column in dict.fromkeys(m.column for m in matrices):
        mats = {m.stratum: m for m in matrices if m.column == column}
        orig, pub = cell_texts(original[column]), cell_texts(published[column])
        stochastic = invariant = allowed = True
        worst_row = worst_pi = 0.0
        bad_cells = 0
        for key, rows in strata.items():
            m = mats.get(key)
            if m is None:
                allowed = False
                bad_cells += int(rows.sum())
                continue
            p = np.asarray(m.matrix, dtype=float)
            square = p.ndim == 2 and p.shape == (len(m.categories), len(m.categories))
            row_err = float(np.abs(p.sum(axis=1) - 1).max()) if square and p.size else np.inf
            ok = square and bool(np.all((p >= 0) & (p <= 1))) and row_err <= STOCHASTIC_TOLERANCE
            stochastic &= ok
            worst_row = max(worst_row, row_err)
            if not square:
                continue
            o, q = orig[rows], pub[rows]
            i, j = _codes(o, m.categories), _codes(q, m.categories)
            if m.invariant:
                counts = np.bincount(i[i >= 0], minlength=len(m.categories)).astype(float)
                pi = counts / counts.sum() if counts.sum() else counts
                err = float(np.abs(pi @ p - pi).max()) if pi.size else 0.0
                worst_pi = max(worst_pi, err)
                invariant &= err <= INVARIANT_TOLERANCE
            o_missing, q_missing = pd.isna(o), pd.isna(q)
            both = ~o_missing & ~q_missing
            known = both & (i >= 0) & (j >= 0)
            bad = (o_missing != q_missing) | (both & ~known)
            bad[known] |= p[i[known], j[known]] <= 0
            bad_cells += int(bad.sum())
        out.append(model_result(f"PRAM {column}: published matrix is stochastic", stochastic, worst_row))
        if any(m.invariant for m in mats.values()):
            out.append(model_result(f"PRAM {column}: invariant (π P = π for the input's π)", invariant, worst_pi))
        out.append(model_result(f"PRAM {column}: every change has positive probability", allowed and bad_cells == 0,
                           bad_cells, bad_cells))
    return out


def pram_chi_square(original: pd.DataFrame, published: pd.DataFrame, matrices: Sequence[PublishedMatrix],
                    by: Sequence[str]) -> dict[str, dict[str, float]]:
    """Per PRAM'd column, Pearson's chi-square of the observed transitions against ``n_a · P[a, ·]``
    over the cells ``P`` allows, summed over categories and strata: ``statistic``, ``df`` and
    ``p_value`` (1 when there is nothing to test). Reported, not judged (see the module docstring);
    with expected counts below 5 the chi-square approximation is rough."""
    strata = stratum_masks(original, by)
    out: dict[str, dict[str, float]] = {}
    for column in dict.fromkeys(m.column for m in matrices):
        stat, df = 0.0, 0
        orig, pub = cell_texts(original[column]), cell_texts(published[column])
        for m in (m for m in matrices if m.column == column):
            rows = strata.get(m.stratum)
            if rows is None:
                continue
            L = len(m.categories)
            i, j = _codes(orig[rows], m.categories), _codes(pub[rows], m.categories)
            known = (i >= 0) & (j >= 0)
            observed = np.bincount(i[known] * L + j[known], minlength=L * L).reshape(L, L).astype(float)
            n = observed.sum(axis=1)
            expected = n[:, None] * np.asarray(m.matrix, dtype=float)
            cells = expected > 0
            stat += float((((observed - expected) ** 2)[cells] / expected[cells]).sum())
            df += int(sum(max(int(cells[i].sum()) - 1, 0) for i in range(L) if n[i] > 0))
        from scipy import stats as _stats  # lazy: scipy.stats costs 0.3 CPU-s to import

        p_value = float(_stats.chi2.sf(stat, df)) if df else 1.0
        out[column] = {"statistic": round(stat, 6), "df": df, "p_value": round(p_value, 6)}
    return out


# ------------------------------------------------------------------------------------------ noise
def numbers(column: pd.Series) -> np.ndarray:
    """A column's values as floats (``nan`` where missing or not a number)."""
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)


def _level_ok(noise: np.ndarray, sigma: float) -> tuple[bool, float]:
    """Whether ``noise`` (finite draws) has mean 0 and standard deviation ``sigma`` within
    :data:`TOLERANCE_Z` standard errors; and the recomputed standard deviation."""
    n = noise.size
    if n == 0:
        return True, 0.0
    got = float(np.sqrt(np.mean(noise**2)))  # the mean is 0: the root mean square estimates σ
    if sigma == 0:
        return bool(np.all(noise == 0)), got
    sd_ok = abs(got / sigma - 1) <= TOLERANCE_Z / np.sqrt(2 * n)
    mean_ok = abs(float(noise.mean())) <= TOLERANCE_Z * sigma / np.sqrt(n)
    return bool(sd_ok and mean_ok), got


def noise_results(original: pd.DataFrame, published: pd.DataFrame, columns: Sequence[str], method: str,
                  level: float | None, delta: float | None) -> list[ModelResult]:
    """The checks of a noise release: per column the noise level (``level``: the noise's standard
    deviation as a percentage of the column's; correlated2: ``delta``), missing values kept, and
    for correlated noise the data's correlations between the columns kept by the noise."""
    out: list[ModelResult] = []
    noises = {}
    for name in columns:
        x, y = numbers(original[name]), numbers(published[name])
        same_missing = bool(np.array_equal(np.isnan(x), np.isnan(y)))
        kept = ~np.isnan(x) & ~np.isnan(y)
        sd = float(np.std(x[~np.isnan(x)], ddof=1)) if np.count_nonzero(~np.isnan(x)) > 1 else 0.0
        if method == "correlated2":
            d1 = float(np.sqrt(1 - float(delta) ** 2))  # type: ignore[arg-type]
            mean = float(np.nanmean(x)) if kept.any() else 0.0
            noise = y[kept] - d1 * x[kept] - (1 - d1) * mean
            sigma = float(delta) * sd  # type: ignore[arg-type]
        else:
            noise = y[kept] - x[kept]
            sigma = float(level) / 100 * sd  # type: ignore[arg-type]
        noises[name] = (kept, y - x)
        ok, got = _level_ok(noise, sigma)
        out.append(model_result(f"noise {name}: standard deviation {sigma:.6g} (recomputed {got:.6g})", ok, got,
                           0 if ok else int(kept.sum())))
        out.append(model_result(f"noise {name}: missing values kept", same_missing, float(same_missing)))
    if method == "correlated" and len(columns) > 1:
        out.append(_correlations_kept(original, noises, columns))
    return out


def _correlations_kept(original: pd.DataFrame, noises: dict[str, tuple[np.ndarray, np.ndarray]],
                       columns: Sequence[str]) -> ModelResult:
    """Correlated noise (Σ_noise = c·Σ): the noise's correlation of every pair of columns is the
    data's, within :data:`TOLERANCE_Z` of Fisher's standard error."""
    worst = 0.0
    ok = True
    for i, a in enumerate(columns):
        for b in columns[i + 1:]:
            rows = noises[a][0] & noises[b][0]
            n = int(rows.sum())
            if n < MIN_CORRELATION_ROWS:
                continue
            xa, xb = numbers(original[a])[rows], numbers(original[b])[rows]
            if xa.std() == 0 or xb.std() == 0:
                continue
            rho = float(np.corrcoef(xa, xb)[0, 1])
            r = float(np.corrcoef(noises[a][1][rows], noises[b][1][rows])[0, 1])
            gap = abs(r - rho)
            worst = max(worst, gap)
            ok &= gap <= TOLERANCE_Z * max(1 - rho**2, 1e-3) / np.sqrt(n - 1)
    return model_result("noise: the data's correlations kept by the noise", ok, worst)


def sigma_key(column: str) -> str:
    """The notes' key of the noise standard deviation a column's summary states."""
    return f"noise sigma {column}"


def noise_checks(original: pd.DataFrame, published: pd.DataFrame, notes: dict, params: dict) -> list[ModelResult]:
    """:func:`noise_results` with the release's stated method and level; and every standard deviation
    the notes state is the one the level gives on the input (relative difference below 10⁻⁹)."""
    columns, method = list(params["columns"]), str(params["method"])
    out = noise_results(original, published, columns, method, params.get("level"), params.get("delta"))
    wrong = 0
    for name in columns:
        x = numbers(original[name])
        x = x[~np.isnan(x)]
        sd = float(np.std(x, ddof=1)) if x.size > 1 else 0.0
        ratio = float(params["delta"]) if method == "correlated2" else float(params["level"]) / 100
        stated = notes.get(sigma_key(name))
        if stated is None or abs(float(stated) - ratio * sd) > 1e-9 * max(1.0, ratio * sd):
            wrong += 1
    out.append(model_result("noise: the stated standard deviations are the level's", wrong == 0, wrong))
    return out
