"""PRAM, the post-randomization method (Gouweleeuw et al. 1998; sdcMicro's ``pram``): every value of
a named categorical column is replaced by a category drawn from its row of a transition matrix
``P`` (``P[a, b]``: the probability that a record of category ``a`` is published as ``b``).

The matrix, per column and, with ``by:``, per stratum (the combinations of the ``by`` columns' values,
which are published unchanged), is

* **given** in the config (``matrix: {column: {from: {to: probability}}}``, over exactly the column's
  categories), or
* **estimated** as sdcMicro does (:mod:`anonkit.algorithms.perturb._pram_matrix`): diagonal entries
  drawn uniformly from ``[pd, 1]``, made invariant for the stratum's observed distribution and mixed
  with the identity by ``alpha``.

With ``invariant: true`` (the default) the matrix applied is the invariant one built from the given or
drawn matrix for the stratum's observed distribution ``π``: ``π P = π``, so every category's count is
kept in expectation (the published counts differ from the input's by chance only). With
``invariant: false`` the given matrix (or the drawn one, mixed by ``alpha``) is applied as it is.
A missing value stays missing; the other columns are published as they are.

What is published: the perturbed table, and every matrix applied in the summary's notes
(``pram COLUMN`` or ``pram COLUMN [by=value, …]``: one row per category, in the order of
``pram categories COLUMN``, each row the category followed by its probabilities) and, for a release
written to a file, in ``NAME.pram.csv`` beside it (:func:`matrix_table`: one row per column, stratum,
from-category and to-category, every pair of the square matrix including zeros, probabilities to 17
significant digits so the matrix reads back exactly) — no secret and no record: the matrix is what a
user of the data needs to correct estimates for the perturbation. What is true of the
published values: each one is the original value with the probability on the diagonal, another
category otherwise; no value is certainly the record's own. The verifier
(:mod:`anonkit._verify_perturb`) recounts the matrix's properties and every change from the published
table and the input; a chi-square test of the changes against ``P`` is reported in the notes
(``pram chi-square COLUMN``), not judged.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

import numpy as np
import pandas
from pydantic import Field

from anonkit._verify_perturb import (
    PublishedMatrix,
    categories_key,
    matrix_key,
    matrix_rows,
    pram_checks,
    pram_reported,
    stratum_masks,
)
from anonkit.algorithms.perturb._pram_matrix import (
    MAX_CATEGORIES,
    given_matrix,
    invariant_matrix,
    mixed,
    random_matrix,
)
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

NAME = "pram"
#: sdcMicro's default lower bound of the drawn diagonal (``pd``)
DEFAULT_PD = 0.8
#: sdcMicro's default share of the invariant matrix against the identity (``alpha``)
DEFAULT_ALPHA = 0.5
#: a matrix per column: ``{from: {to: probability}}``
Matrices = dict[str, dict[str, dict[str, float]]]


def _categories(frame: pandas.DataFrame, column: str) -> list[str]:
    """The column's categories: its distinct non-missing values as text, sorted."""
    col = frame[column]
    return sorted({str(v) for v in col[col.notna()].tolist()})


def _check(table: Table, columns: list[str], matrix: Matrices | None, by: list[str]) -> None:
    """Everything about the options that can be known before any work."""
    if not columns:
        raise InputError("pram needs at least one column to perturb", key="algorithm.columns")
    check_columns(table, columns, key="algorithm.columns", method=NAME, kind="categorical")
    check_columns(table, by, key="algorithm.by", method=NAME, kind="any")
    both = [c for c in by if c in columns]
    if both:
        raise InputError("a strata column is published unchanged, so it cannot also be perturbed", column=both[0],
                         key="algorithm.by")
    for name in matrix or {}:
        if name not in columns:
            raise InputError("a PRAM matrix is given for a column that is not perturbed: add it to columns",
                             column=name, key=f"algorithm.matrix.{name}")
    for name in columns:
        cats = _categories(table.frame, name)
        if len(cats) > MAX_CATEGORIES:
            raise InputError(f"pram publishes each matrix in the summary, one row a category: at most "
                             f"{MAX_CATEGORIES} categories, this column has {len(cats)}", column=name,
                             key="algorithm.columns")
        if matrix and name in matrix:
            given_matrix(matrix[name], cats, key=f"algorithm.matrix.{name}", column=name)


def _apply(values: np.ndarray, p: np.ndarray, categories: list[str], rng: np.random.Generator) -> np.ndarray:
    """Each value replaced by a category drawn from its row of ``p`` (category by category in order,
    records in input order); ``None`` (missing) kept."""
    out = values.copy()
    for i, c in enumerate(categories):
        at = np.flatnonzero(values == c)
        if at.size:
            out[at] = np.asarray(categories, dtype=object)[rng.choice(len(categories), size=at.size, p=p[i])]
    return out


@algorithm(
    NAME,
    family="perturb",
    label="PRAM",
    summary="post-randomization: each value of the named categorical columns replaced by a category drawn from "
    "a published transition matrix (given, or sdcMicro's invariant estimate), per stratum",
    enforces=(),
    tables=PUBLISHED_TABLES,
    randomized=True,
    verifier=verify_perturbed,
)
def pram(
    table: Table,
    models: list[Criterion],
    *,
    columns: list[str] | None = None,
    matrix: Matrices | None = None,
    pd: Annotated[float, Field(ge=0, le=1)] = DEFAULT_PD,
    alpha: Annotated[float, Field(gt=0, le=1)] = DEFAULT_ALPHA,
    invariant: bool = True,
    by: list[str] | None = None,
    seed: int = 0,
) -> Release:
    """PRAM; see the module docstring.

    Parameters
    ----------
    table, models:
        The encoded input and the privacy models (judged on the release by the audit, not enforced).
    columns:
        The categorical columns to perturb (each by its own matrix); default: every categorical
        quasi-identifier.
    matrix:
        Given transition matrices by column, ``{from: {to: probability}}`` over the column's categories.
    pd:
        Estimated matrices: the lowest diagonal probability drawn (sdcMicro's ``pd``).
    alpha:
        Estimated matrices: the share of the invariant matrix, the rest the identity (sdcMicro's ``alpha``).
    invariant:
        Whether the matrix applied is made invariant for each stratum's observed distribution.
    by:
        Strata columns: a matrix per combination of their values (published unchanged).
    seed:
        Draws the estimated matrices, the published categories and the row order.
    """
    started = time.perf_counter()
    by = list(by or [])
    columns = default_columns(table, columns, method=NAME, kind="categorical")
    _check(table, columns, matrix, by)
    rng = np.random.default_rng(seed)
    frame = table.frame.copy()
    kept = ~table.presuppressed
    strata = stratum_masks(table.frame, by)
    notes: dict[str, Any] = {}
    for name in columns:
        cats = _categories(table.frame, name)
        notes[categories_key(name)] = list(cats)
        base = given_matrix(matrix[name], cats, key=f"algorithm.matrix.{name}", column=name) \
            if matrix and name in matrix else None
        column = table.frame[name]
        values = column.astype(str).to_numpy(dtype=object)
        values[column.isna().to_numpy()] = None
        out = values.copy()
        for key, rows in strata.items():
            rows = rows & kept
            p = base if base is not None else random_matrix(len(cats), pd, rng)
            if invariant:
                counts = np.array([np.count_nonzero(values[rows] == c) for c in cats], dtype=float)
                pi = counts / counts.sum() if counts.sum() else np.full(len(cats), 1 / len(cats))
                p = invariant_matrix(p, pi)
            if base is None:
                p = mixed(p, alpha)
            m = PublishedMatrix(name, key, tuple(cats), p, invariant)
            notes[matrix_key(name, key)] = matrix_rows(m)
            out[rows] = _apply(values[rows], p, cats, rng)
        frame[name] = _published_column(out, frame[name])
    described = [f"{name}: PRAM, each value kept or changed to another category by the published matrix"
                 + (" (invariant: category counts kept in expectation)" if invariant else "")
                 + (f", one matrix per {', '.join(by)}" if by else "") for name in columns]
    params = {"columns": list(columns), "by": by, "invariant": invariant, "pd": pd, "alpha": alpha,
              "matrix": "given" if matrix else "estimated", "seed": seed}
    return perturbed_release(table, frame, algorithm=NAME, seed=seed, params=params, described=described,
                             perturbed=columns, checks=pram_checks, reported=pram_reported,
                             notes=notes, seconds=time.perf_counter() - started)


#: the columns of the published matrix file (``NAME.pram.csv``), in order
MATRIX_COLUMNS = ("column", "stratum", "from", "to", "probability")


def matrix_table(release: Release) -> pandas.DataFrame:
    """Every matrix a PRAM release applied, as the tidy table written beside it (``NAME.pram.csv``):
    one row per (``column``, ``stratum``, ``from``, ``to``, ``probability``); ``stratum`` is empty
    without strata, else ``by=value, …`` as the summary's notes name it; columns in the order of
    ``columns``, strata sorted, categories sorted (the notes' order). Read from the release's notes
    (what it publishes about itself), for every stratum of its input."""
    params, notes = release.params or {}, release.notes or {}
    strata = stratum_masks(release.table.frame, params.get("by") or [])
    rows: list[tuple[str, str, str, str, float]] = []
    for column in params.get("columns", []):
        cats = [str(c) for c in notes[categories_key(column)]]
        for stratum in strata:
            for row in notes[matrix_key(column, stratum)]:
                rows += [(column, ", ".join(stratum), str(row[0]), to, float(p))
                         for to, p in zip(cats, row[1:], strict=True)]
    return pandas.DataFrame(rows, columns=list(MATRIX_COLUMNS))


#: what PRAM publishes beside a release written to a file (read by the run's plan: ``NAME.pram.csv``)
pram.side_file = ("pram", matrix_table)  # type: ignore[attr-defined]


def _published_column(values: np.ndarray, like: pandas.Series) -> pandas.Series:
    """Published values as a column of ``like``'s index (text; missing as the input's missing)."""
    return pandas.Series(values, index=like.index, dtype=object).where(~pandas.isna(like), like)


__all__ = ["DEFAULT_ALPHA", "DEFAULT_PD", "MATRIX_COLUMNS", "matrix_table", "pram"]

