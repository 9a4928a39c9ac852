"""The categorical utility measures of a perturbed release (:mod:`anonkit.metrics.perturbed`): the share
of changed values per column and the total-variation distance of each column's margin and of each
pair's two-way table. Values are compared as text; a missing value is a value of its own (PRAM
keeps it missing, so it must not count as a change)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

#: the inferred kinds of an object column whose values compare as their texts do (equal exactly when their
#: texts are equal), so they can be numbered before they are turned into text
_TEXT_SAFE_KINDS = frozenset({"string", "integer", "boolean", "empty"})
#: the integer type of a float's bits, by the float's size in bytes
_BITS = {2: np.int16, 4: np.int32, 8: np.int64}


def _raw_codes(values: pd.Series) -> tuple[np.ndarray, list[Any]] | None:
    """The values numbered by first appearance (−1 missing) on their own representation, with the
    distinct values as Python objects, when two values are equal exactly when their texts are (floats
    by their bits: ``0.0`` and ``-0.0`` differ as text); ``None`` for a column that may mix kinds
    (``1``, ``1.0`` and ``True`` are one value to pandas but three texts)."""
    dtype = values.dtype
    if isinstance(dtype, np.dtype) and dtype.kind == "f" and dtype.itemsize in _BITS:
        arr = values.to_numpy()
        known = ~np.isnan(arr)
        codes = np.full(len(arr), -1, dtype=np.int64)
        bits = _BITS[dtype.itemsize]  # numbered by their bits, as wide as the floats (a narrower float is not
        found, uniques = pd.factorize(arr[known].view(bits))  # widened: two float32s are not one int64)
        codes[known] = found
        distinct = np.asarray(uniques, dtype=bits).view(arr.dtype)
        # a float64's text is Python's repr; a narrower float's is numpy's shortest repr of its own precision
        # (what ``astype(str)`` and the CSV writer give: 2.1, not the widened 2.0999999046325684)
        return codes, distinct.tolist() if dtype.itemsize == 8 else [str(v) for v in distinct]
    if isinstance(dtype, np.dtype) and dtype.kind in "iub":
        codes, uniques = pd.factorize(values.to_numpy())
        return codes.astype(np.int64, copy=False), np.asarray(uniques).tolist()
    plain_objects = isinstance(dtype, np.dtype) and dtype.kind == "O"
    if isinstance(dtype, pd.StringDtype) or (
            plain_objects and pd.api.types.infer_dtype(values, skipna=True) in _TEXT_SAFE_KINDS):
        codes, uniques = pd.factorize(values.to_numpy(), use_na_sentinel=True)
        return codes.astype(np.int64, copy=False), list(uniques)
    return None


def _distinct_texts(values: pd.Series) -> bool:
    """Whether distinct values of this column (as :func:`_raw_codes` numbers them) have distinct texts, so their
    texts need no second numbering: a numpy integer or boolean column, or a float column (a float's text is
    the shortest one that reads back as the same float — Python's ``repr``, numpy's for a narrower float —
    so two floats with different bits have different texts; ``0.0`` and ``-0.0`` too, and the missing NaNs
    are not numbered)."""
    dtype = values.dtype
    return isinstance(dtype, np.dtype) and (dtype.kind in "iub" or (dtype.kind == "f" and dtype.itemsize in _BITS))


def text_codes(values: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Every value's text (``str``) numbered by first appearance, −1 for a missing value, and the
    distinct texts: the same numbering as turning every value into text and factorizing, computed on
    the distinct values only (a column of a million cells has a few hundred texts)."""
    raw = _raw_codes(values)
    if raw is None:
        text = values.astype(object).where(values.notna(), None).map(lambda v: None if v is None else str(v))
        codes, uniques = pd.factorize(text, use_na_sentinel=True)
        return codes.astype(np.int64, copy=False), [str(u) for u in uniques]
    codes, distinct = raw
    texts_of = [str(v) for v in distinct]
    if _distinct_texts(values):  # numbered on the values already: the texts are too
        return codes, texts_of
    merged, texts = pd.factorize(np.array(texts_of, dtype=object))
    out = np.where(codes >= 0, merged[np.maximum(codes, 0)] if len(merged) else -1, -1).astype(np.int64)
    return out, [str(t) for t in texts]


def shared_codes(before: pd.Series, after: pd.Series) -> tuple[np.ndarray, np.ndarray, int]:
    """Both columns' values as codes of one shared numbering (text; missing is its own code), and
    the number of codes. The two are joined first (so a value's text is the one of the joined column's
    type: an integer beside floats reads ``1.0``), then each half is numbered on its own, so that a
    column of codes published as labels (integers beside texts) keeps the fast path, and the texts of
    both halves are merged."""
    both = pd.concat([before, after], ignore_index=True)
    n = len(before)
    first, first_texts = text_codes(both.iloc[:n])
    second, second_texts = text_codes(both.iloc[n:])
    merged, texts = pd.factorize(np.array([*first_texts, *second_texts], dtype=object))
    n_codes = len(texts)
    # each half's codes renumbered into the shared texts; missing: one more code
    lookup = np.append(merged, n_codes).astype(np.int64)
    a = lookup[np.where(first >= 0, first, len(merged))]
    shift = np.where(second >= 0, second + len(first_texts), len(merged))
    return a, lookup[shift], n_codes + 1


def tvd(a: np.ndarray, b: np.ndarray, size: int) -> float:
    """The total-variation distance ½ Σ |p(v) − p′(v)| between the distributions of the codes ``a`` and
    ``b`` (both over ``0 … size − 1``): 0 for the same distribution, 1 for disjoint ones."""
    if not len(a):
        return 0.0
    pa = np.bincount(a, minlength=size) / len(a)
    pb = np.bincount(b, minlength=size) / len(b)
    return float(0.5 * np.abs(pa - pb).sum())


def _pair_tvd(a: np.ndarray, b: np.ndarray) -> float:
    """:func:`tvd` of two-way cells numbered ``row * columns + column``, renumbered to the cells that
    occur (the product of two large domains would not fit a dense count)."""
    inverse, _ = pd.factorize(np.concatenate([a, b]), sort=True)  # np.unique's numbering, by hashing
    return tvd(inverse[: len(a)], inverse[len(a):], int(inverse.max()) + 1 if len(inverse) else 0)


def categorical_comparison(original: pd.DataFrame, published: pd.DataFrame, names: Sequence[str],
                           changed: Sequence[bool]) -> dict[str, Any]:
    """For each changed column: the share of records whose published value differs from their own
    original value, and the TVD of its margin; for every pair of columns of which at least one was
    changed, the TVD of their two-way table, with the largest and the mean."""
    codes = {c: shared_codes(original[c], published[c]) for c in names}
    out: dict[str, Any] = {"changed": {}, "margin_tvd": {}}
    for c, was in zip(names, changed, strict=True):
        if was:
            a, b, size = codes[c]
            out["changed"][c] = float(np.mean(a != b)) if len(a) else 0.0
            out["margin_tvd"][c] = tvd(a, b, size)
    pairs = []
    for i, c in enumerate(names):
        for j in range(i + 1, len(names)):
            d = names[j]
            if not (changed[i] or changed[j]):
                continue
            (a1, b1, _), (a2, b2, s2) = codes[c], codes[d]
            pairs.append({"columns": [c, d], "tvd": _pair_tvd(a1 * s2 + a2, b1 * s2 + b2)})
    out["pairs"] = pairs
    values = [p["tvd"] for p in pairs]
    out["max_pair_tvd"] = max(values) if values else None
    out["mean_pair_tvd"] = float(np.mean(values)) if values else None
    return out
