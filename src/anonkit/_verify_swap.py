"""The independent checks of the swapping family of perturbative releases (issue 28, item 4): rank
swapping, targeted record swapping of households and shuffling, recounted from the published table,
the input (the published rows' input records, the private link) and what the release states.

* **a permutation** (:func:`permutation_results`, rank swapping and shuffling): every published
  column is a permutation of the input column's values over the released records (the multiset kept
  exactly, compared as text) and a missing value stays missing, in the same record;
* **rank distance** (:func:`rank_distance_results`): every record's published value lies within
  :func:`rank_window` ranks of its original value. Ranks are taken over the column's non-missing
  values of the released records sorted ascending (numbers by value, an ordinal column by its declared
  order); **ties**: equal values share the ranks of their run, and the distance between two values is
  the smallest distance between a rank of one and a rank of the other (0 for equal values);
* **shuffling** (:func:`shuffle_results`): the stated Spearman rank correlations (each shuffled column
  with its original values and with every predictor) are the published table's, within
  :data:`CORRELATION_TOLERANCE`;
* **record swapping** (:func:`record_swap_results`): every household is published whole (its members
  share one geography), every household whose geography changed is matched by a household with the
  same similar values whose geography it took and which took its own (the moves ``g → g'`` and
  ``g' → g`` are equally many among households of equal similar values), the number of households
  whose geography changed is the one stated, and the multiset of household geographies is kept at
  every level of the hierarchy.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from anonkit._verify_perturb import cell_texts, model_result
from anonkit.verifier import ModelResult

#: how far a stated rank correlation may lie from the one recounted (floating point only)
CORRELATION_TOLERANCE = 1e-9


def rank_window(p: float, m: int) -> int:
    """The largest rank distance a swap may span: ``p`` percent of the ``m`` ranked values, rounded down
    (sdcMicro's bound is strict, ``|i − j| < P·m`` with ``P`` a fraction; anonkit's is ``≤ ⌊p·m/100⌋``)."""
    return math.floor(p * m / 100 + 1e-9)


def rank_keys(column: pd.Series, order: Sequence[str] | None) -> np.ndarray:
    """A column's values as sortable floats: numbers as they are, an ordinal column's values by their
    index in ``order``; ``nan`` where missing (or not in the order, or not a number)."""
    if order is None:
        return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
    index = {str(v): float(i) for i, v in enumerate(order)}
    return np.array([np.nan if pd.isna(v) else index.get(str(v), np.nan) for v in column], dtype=float)


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rank correlation (average ranks for ties); 0 when either side is constant."""
    ra = pd.Series(a).rank(method="average").to_numpy(dtype=float)
    rb = pd.Series(b).rank(method="average").to_numpy(dtype=float)
    if ra.size < 2 or np.std(ra) == 0 or np.std(rb) == 0:
        return 0.0
    return float(np.corrcoef(ra, rb)[0, 1])


# ------------------------------------------------------------------------------------------ permutations
def value_keys(a: pd.Series, b: pd.Series) -> tuple[tuple[np.ndarray, np.ndarray], ...] | None:
    """Per column, the keys of its known cells and its missing mask, the keys equal exactly when the cells'
    texts (:func:`cell_texts`) are, without making the texts: for two columns of one numpy dtype of integers,
    booleans or 64-bit floats (a float's text is its shortest round-trip repr, one text per bit pattern:
    compared by its bits, so ``0.0`` and ``-0.0`` stay apart as their texts do). ``None`` for any other
    pair (compare the texts)."""
    dtype = a.dtype
    if not (isinstance(dtype, np.dtype) and dtype == b.dtype
            and (dtype.kind in "iub" or (dtype.kind == "f" and dtype.itemsize == 8))):
        return None

    def keys(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if dtype.kind != "f":
            return values, np.zeros(len(values), dtype=bool)
        missing = np.isnan(values)
        return values[~missing].view(np.int64), missing
    return keys(a.to_numpy()), keys(b.to_numpy())


def multiset_difference(a: np.ndarray, b: np.ndarray) -> int:
    """Σ over distinct texts of |count in ``a`` − count in ``b``|: 0 exactly when one is a permutation of the
    other (both numbered together, then counted: no Python object per cell)."""
    codes, uniques = pd.factorize(np.concatenate([a, b]))
    size = len(uniques)
    counts = np.bincount(codes[: len(a)], minlength=size) - np.bincount(codes[len(a):], minlength=size)
    return int(np.abs(counts).sum())


def permutation_results(original: pd.DataFrame, published: pd.DataFrame, columns: Sequence[str],
                        method: str) -> list[ModelResult]:
    """Per column: the published values are a permutation of the original ones (text multiset) and the
    missing cells are the same records'."""
    out = []
    for name in columns:
        pair = value_keys(original[name], published[name])
        if pair is None:
            o, q = cell_texts(original[name]), cell_texts(published[name])
            pair = ((o[~pd.isna(o)], pd.isna(o)), (q[~pd.isna(q)], pd.isna(q)))
        (ko, mo), (kq, mq) = pair
        same_missing = np.array_equal(mo, mq)
        off = multiset_difference(ko, kq)
        ok = same_missing and off == 0
        out.append(model_result(f"{method} {name}: the published values are a permutation of the input's", ok, off,
                           0 if ok else max(off, 1)))
    return out


def rank_distance_results(original: pd.DataFrame, published: pd.DataFrame, columns: Sequence[str], p: float,
                          orders: Mapping[str, Sequence[str] | None]) -> list[ModelResult]:
    """Per column: every published value's rank within :func:`rank_window` of its original value's
    (ties: see the module docstring); a value outside the input's values fails."""
    out = []
    for name in columns:
        x, y = rank_keys(original[name], orders.get(name)), rank_keys(published[name], orders.get(name))
        present = ~np.isnan(x)
        s = np.sort(x[present])
        window = rank_window(p, s.size)
        both = present & ~np.isnan(y)
        xv, yv = x[both], y[both]
        lo_x, hi_x = np.searchsorted(s, xv, "left"), np.searchsorted(s, xv, "right") - 1
        lo_y, hi_y = np.searchsorted(s, yv, "left"), np.searchsorted(s, yv, "right") - 1
        distance = np.maximum(0, np.maximum(lo_y - hi_x, lo_x - hi_y))
        distance[hi_y < lo_y] = s.size + 1  # not one of the input's values
        worst = int(distance.max()) if distance.size else 0
        bad = int(np.count_nonzero(distance > window)) + int(np.count_nonzero(present != ~np.isnan(y)))
        out.append(model_result(f"rank-swap {name}: every value within {window} ranks of its own ({p:g}% of "
                           f"{s.size})", bad == 0, worst, bad))
    return out


# ------------------------------------------------------------------------------------------ shuffling
def correlation_key(column: str, other: str | None = None) -> str:
    """The notes' key of a shuffled column's stated rank correlation with its original values (``other``
    ``None``) or with the published predictor ``other``."""
    return f"shuffle rank correlation {column}" + ("" if other is None else f" ~ {other}")


def shuffle_correlations(original: pd.DataFrame, published: pd.DataFrame, columns: Sequence[str],
                         predictors: Sequence[str]) -> dict[str, float]:
    """What a shuffle release states: per shuffled column, Spearman's correlation of its published
    values with the record's original values, and with every numeric predictor's published values."""
    out = {}
    for name in columns:
        y = pd.to_numeric(published[name], errors="coerce").to_numpy(dtype=float)
        out[correlation_key(name)] = round(spearman(y, pd.to_numeric(original[name], errors="coerce")
                                                    .to_numpy(dtype=float)), 12)
        for other in predictors:
            s = pd.to_numeric(published[other], errors="coerce")
            if s.notna().all():
                out[correlation_key(name, other)] = round(spearman(y, s.to_numpy(dtype=float)), 12)
    return out


def shuffle_results(original: pd.DataFrame, published: pd.DataFrame, notes: Mapping[str, object],
                    params: Mapping[str, object]) -> list[ModelResult]:
    """Every shuffled column a permutation of the input's, and the stated rank correlations the
    published table's (a figure stated but not recounted, or recounted but not stated, fails)."""
    columns, predictors = list(params["columns"]), list(params["predictors"])  # type: ignore[call-overload]
    out = permutation_results(original, published, columns, "shuffled column")
    if not all(r.passed for r in out):
        return out
    recounted = shuffle_correlations(original, published, columns, predictors)
    stated = {k: v for k, v in notes.items() if k.startswith("shuffle rank correlation ")}
    wrong = sorted(set(recounted) ^ set(stated))
    wrong += [k for k in recounted if k in stated
              and abs(float(stated[k]) - recounted[k]) > CORRELATION_TOLERANCE]  # type: ignore[arg-type]
    out.append(model_result("shuffle: the stated rank correlations are the published table's", not wrong, len(wrong),
                       len(wrong)))
    return out


# ------------------------------------------------------------------------------------------ record swapping
def household_geography(published: pd.DataFrame, household: np.ndarray, columns: Sequence[str]
                        ) -> tuple[dict[int, tuple], int]:
    """Each household's geography (its members' values of ``columns`` as text, from its first row) and
    how many households have members with different values (split)."""
    texts = pd.DataFrame({c: pd.Series(cell_texts(published[c]), dtype=object).fillna("\0") for c in columns})
    texts["__hh"] = household
    distinct = texts.drop_duplicates()
    split = int(distinct["__hh"].duplicated().sum())
    first = distinct.drop_duplicates("__hh")
    geo = {int(h): tuple(r) for h, r in zip(first["__hh"], first[list(columns)].itertuples(index=False,
                                                                                           name=None), strict=True)}
    return geo, split


def record_swap_results(original: pd.DataFrame, published: pd.DataFrame, household: np.ndarray,
                        hierarchy: Sequence[str], similar: Sequence[str], stated: int) -> list[ModelResult]:
    """The checks of a record-swap release (see the module docstring); ``household`` is every
    published row's household (the private link), ``stated`` the number of swapped households the
    summary states."""
    before, _ = household_geography(original, household, hierarchy)
    after, split = household_geography(published, household, hierarchy)
    out = [model_result("record-swap: every household published whole (one geography)", split == 0, split, split)]
    alike, _ = household_geography(original, household, similar) if similar else ({h: () for h in before}, 0)
    moved = [h for h in before if after.get(h) != before[h]]
    out.append(model_result(f"record-swap: {stated} swapped households as stated", len(moved) == stated, len(moved),
                       abs(len(moved) - stated)))
    moves = Counter((alike[h], before[h], after.get(h)) for h in moved)
    unmatched = sum(abs(c - moves.get((s, b, a), 0)) for (s, a, b), c in moves.items())
    out.append(model_result("record-swap: swapped households in pairs sharing the similar values", unmatched == 0,
                       unmatched, unmatched))
    levels_off = 0
    for depth in range(1, len(hierarchy) + 1):
        kept = Counter(g[:depth] for g in before.values()) == Counter(g[:depth] for g in after.values() if g)
        levels_off += int(not kept)
    out.append(model_result("record-swap: the households' geography kept at every level", levels_off == 0, levels_off,
                       levels_off))
    return out


__all__ = [
    "CORRELATION_TOLERANCE",
    "correlation_key",
    "household_geography",
    "permutation_results",
    "rank_distance_results",
    "rank_keys",
    "rank_window",
    "record_swap_results",
    "shuffle_correlations",
    "shuffle_results",
    "spearman",
]
