"""One utility figure every release has: how far its one- and two-way marginals are from the input's.

A map that places k-anonymity, SafePub and a DP synthesizer side by side needs a utility figure that
reads a generalized release, a perturbed one and a synthetic table alike. ARX's Loss and its kin read
equivalence classes (a synthetic table has none) and the per-record measures need a row-by-row link (a
synthetic table has none either); what every release still offers is its distributions. So, for
every published column and every pair of them, the total variation distance ``½ Σ |p − q|`` between
the input's shares and the release's (0: the same marginal, 1: disjoint):

* the bins are the input's: a numeric column's deciles of the *input* (as
  :mod:`anonkit.metrics.synthetic` bins), any other column's values; a missing cell is a bin of its
  own, and a released value the input never holds falls in an extra bin the input has no share of;
* a released cell that is a value (a perturbed or synthetic table, a sensitive column) counts in its
  bin; a generalized cell (a hierarchy node, an interval, ``*``) is read as the audit reads it
  (:func:`anonkit.analytics.cover.column_covers`) and spread evenly over the distinct input values it
  covers — the release's *expected* marginal when an analyst draws a value uniformly within each cell,
  computed exactly instead of drawn, so the figure is deterministic;
* a column the input has but the release does not publish counts as a ``*`` in every row (nothing is
  known of it); shares are over the released rows (records a release leaves out — suppressed, or not
  in SafePub's sample — do not count, so a release that drops many records can still keep its
  marginals: the map's ``published`` column says how many rows there are).

Two-way marginals within a row are the product of its two cells' spreads (a cell's values are
independent of another cell's for the uniform reader), summed over the distinct label pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import sparse

from anonkit._values import factorize_text
from anonkit.analytics.cover import column_covers
from anonkit.schema import AttrType, Role, Schema

__all__ = ["BINS", "Marginals", "marginal_columns", "marginal_tvd"]

#: numeric columns are cut at the input's quantiles into this many bins (deciles, as metrics.synthetic)
BINS = 10
#: the roles whose columns a release publishes and the marginals compare
_PUBLISHED = (Role.QUASI, Role.SENSITIVE, Role.INSENSITIVE)


@dataclass(frozen=True)
class Marginals:
    """The mean and largest one-way and two-way total variation distances over the compared columns."""

    one_way: float
    two_way: float
    one_way_max: float
    two_way_max: float
    columns: tuple[str, ...]


@dataclass(frozen=True)
class _Column:
    """One column: the input's bin of every record, and every released row's spread over the bins
    (``spread[label]`` a row of the sparse label × bin matrix, ``labels`` the label of every released row)."""

    bins: np.ndarray
    n_bins: int
    spread: sparse.csr_array
    labels: np.ndarray


def marginal_columns(original: pd.DataFrame, schema: Schema) -> list[str]:
    """The input's columns the marginals compare: every quasi-identifier, sensitive and insensitive one."""
    return [str(c) for c in original.columns
            if (a := schema.attributes.get(str(c))) is not None and a.role in _PUBLISHED]


def _numeric_edges(texts: np.ndarray, schema: Schema, name: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The input's distinct values as numbers (NaN: missing) and its decile edges, or ``None`` when the
    column is not numeric (typed otherwise, or a value is not a number)."""
    attr = schema.attributes.get(name)
    if attr is not None and attr.type is not None and attr.type != AttrType.NUMERIC:
        return None
    blank = np.array([t is None or str(t).strip() == "" for t in texts], dtype=bool)
    numbers = pd.to_numeric(pd.Series(np.where(blank, None, texts), dtype=object), errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan)
    if np.isnan(numbers[~blank]).any() or not (~blank).any():
        return None
    return numbers, np.unique(np.quantile(numbers[~blank], np.linspace(0, 1, BINS + 1)[1:-1]))


def _bin_numbers(numbers: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bin ``0 … len(edges)`` of every number; ``len(edges) + 1`` for a missing one."""
    out = np.searchsorted(edges, numbers, side="right").astype(np.int64)
    out[np.isnan(numbers)] = len(edges) + 1
    return out


def _one_hot(bins: np.ndarray, n_bins: int) -> sparse.csr_array:
    n = len(bins)
    return sparse.csr_array((np.ones(n), (np.arange(n), bins)), shape=(n, n_bins))


def _value_column(name: str, original: pd.Series, released: pd.Series | None, n_rows: int, schema: Schema,
                  cover: object | None) -> _Column:
    """One column's bins and the released rows' spreads (``cover``: the audit's coverage of its cells,
    ``None`` when the cells are read as values or the column is not published)."""

    codes, texts = factorize_text(original)
    numeric = _numeric_edges(texts, schema, name)
    if numeric is not None:
        value_bins = _bin_numbers(*numeric)
        n_bins = len(numeric[1]) + 3  # the bins, missing, a value the input never holds
    else:
        value_bins = np.arange(len(texts), dtype=np.int64)
        n_bins = len(texts) + 1
    other = n_bins - 1
    bins = value_bins[codes]
    if released is None:  # not published: every row a '*'
        spread = sparse.csr_array(np.bincount(value_bins, minlength=n_bins)[None, :] / len(texts))
        return _Column(bins, n_bins, spread, np.zeros(n_rows, dtype=np.int64))
    if cover is None:
        label_codes, labels = factorize_text(released)
        if numeric is not None:
            blank = np.array([t is None or str(t).strip() == "" for t in labels], dtype=bool)
            nums = pd.to_numeric(pd.Series(np.where(blank, None, labels), dtype=object), errors="coerce").to_numpy(
                dtype=np.float64, na_value=np.nan)
            label_bins = _bin_numbers(nums, numeric[1])
            label_bins[np.isnan(nums) & ~blank] = other
        else:
            at = pd.Index([str(t).strip() for t in texts]).get_indexer([str(t).strip() for t in labels])
            label_bins = np.where(at >= 0, value_bins[np.maximum(at, 0)], other)
        return _Column(bins, n_bins, _one_hot(label_bins, n_bins), label_codes)
    sizes = cover.sizes  # type: ignore[attr-defined]
    owner = np.repeat(np.arange(cover.n_labels), sizes)  # type: ignore[attr-defined]
    cover_bins = value_bins[_cover_values(cover, texts)]
    weight = np.repeat(1.0 / np.maximum(sizes, 1), sizes)
    empty = np.flatnonzero(sizes == 0)
    rows = np.r_[owner, empty]
    cols = np.r_[cover_bins, np.full(len(empty), other)]
    data = np.r_[weight, np.ones(len(empty))]
    spread = sparse.csr_array((data, (rows, cols)), shape=(cover.n_labels, n_bins))  # type: ignore[attr-defined]
    return _Column(bins, n_bins, spread, cover.label_codes)  # type: ignore[attr-defined]


def _cover_values(cover: object, texts: np.ndarray) -> np.ndarray:
    """The cover's value indices as indices of ``texts`` (the cover factorized the same column, but
    merges texts equal after stripping)."""
    values = pd.Index([str(v).strip() for v in cover.values])  # type: ignore[attr-defined]
    mine = pd.Index([str(t).strip() for t in texts])
    first = pd.Series(np.arange(len(mine))).groupby(mine.to_numpy()).first()
    at = first.reindex(values).to_numpy()
    return at[cover.indices].astype(np.int64)  # type: ignore[attr-defined]


def _tvd(p: np.ndarray, q: np.ndarray) -> float:
    return float(0.5 * np.abs(p - q).sum())


def marginal_tvd(original: pd.DataFrame, release: pd.DataFrame, schema: Schema, *, cells: bool,
                 columns: Sequence[str] | None = None) -> Marginals:
    """The one- and two-way total variation distances between ``original`` and ``release`` (see the
    module docstring). ``cells``: the release publishes generalized cells (read as the audit reads
    them); else its cells are values (a perturbed or synthetic table). ``columns`` default to
    :func:`marginal_columns`. An empty release has distance 1 (it keeps no distribution)."""
    cols = marginal_columns(original, schema) if columns is None else [str(c) for c in columns]
    if not cols or len(release) == 0:
        return Marginals(1.0, 1.0, 1.0, 1.0, tuple(cols))
    published = [c for c in cols if c in release.columns]
    covers = {}
    if cells and published:
        quasi = [c for c in published if c in schema.quasi]
        exact = [c for c in published if c not in quasi]
        covers = {c.name: c for c in column_covers(release, original, schema, quasi, exact)}
    built = {c: _value_column(c, original[c], release[c] if c in release.columns else None, len(release), schema,
                              covers.get(c)) for c in cols}
    n_rel, n_orig = len(release), len(original)
    one = []
    for c in cols:
        col = built[c]
        counts = np.bincount(col.labels, minlength=col.spread.shape[0]).astype(np.float64)
        p = col.spread.T @ counts / n_rel
        q = np.bincount(col.bins, minlength=col.n_bins) / n_orig
        one.append(_tvd(p, q))
    two = []
    for a, b in combinations(cols, 2):
        ca, cb = built[a], built[b]
        pairs = sparse.csr_array((np.ones(n_rel), (ca.labels, cb.labels)), shape=(ca.spread.shape[0],
                                                                                  cb.spread.shape[0]))
        p = (ca.spread.T @ pairs @ cb.spread)
        p = p.toarray() if sparse.issparse(p) else np.asarray(p)
        q = sparse.csr_array((np.ones(n_orig), (ca.bins, cb.bins)), shape=(ca.n_bins, cb.n_bins)).toarray()
        two.append(_tvd(p / n_rel, q / n_orig))
    two_mean = float(np.mean(two)) if two else float(np.mean(one))
    two_max = float(np.max(two)) if two else float(np.max(one))
    return Marginals(float(np.mean(one)), two_mean, float(np.max(one)), two_max, tuple(cols))
