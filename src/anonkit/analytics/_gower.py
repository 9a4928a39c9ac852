"""The Gower distance over mixed columns and the nearest released rows of a set of targets, in chunks.

Gower (1971): the distance between two records is the mean over the columns of a per-column
distance in [0, 1] — for a numeric column ``|x − y| / range``, the range taken over every table the
distance compares (the release and the targets: what anonymeter does, so that no two values are
more than 1 apart), for a categorical column 0 when the values are equal and 1 otherwise. A missing
cell: in a categorical column it is a value of its own (anonymeter label-encodes it, so two missing
cells are equal); in a numeric column it is at distance 1 from anything, another missing cell
included (anonymeter counts two missing numbers as 1 and leaves one missing number undefined,
which its sort puts last; 1 is the same ranking without an undefined value).

The distances are computed ``targets × release`` in blocks of at most :data:`BLOCK_CELLS` cells, so
the memory stays bounded whatever the release's size; the audit bounds the targets by its
``n_attacks``, so the work is ``n_attacks × rows × columns``, never ``rows²``. Ties (identical
released rows, microaggregated groups, coarse categories) are broken at random with the caller's
generator, so the same seed gives the same neighbours.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from anonkit._values import labels_look_numeric
from anonkit.schema import AttrType, Schema

__all__ = ["BLOCK_CELLS", "Encoded", "column_kinds", "encode", "gower", "nearest"]

#: at most this many target × release distances are held at once
BLOCK_CELLS = 1 << 22


@dataclass(frozen=True)
class Encoded:
    """Tables encoded on one scale: per column a float array per table (numeric: value / range, NaN
    for missing; categorical: a code shared by every table, missing a code of its own)."""

    columns: tuple[str, ...]
    numeric: tuple[bool, ...]
    tables: tuple[np.ndarray, ...]  # one (rows × columns) float matrix per table, in the order given


def _text(values: pd.Series) -> np.ndarray:
    missing = values.isna().to_numpy()
    out = values.astype("string").str.strip().astype(object).to_numpy().copy()
    out[missing] = None
    return out


def _as_numbers(values: pd.Series) -> np.ndarray | None:
    """The column as floats (NaN for missing), or ``None`` when a present cell is not a number."""
    if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values.dtype):
        return values.to_numpy(dtype=np.float64, na_value=np.nan)
    text = _text(values)
    present = np.array([t is not None and t != "" for t in text], dtype=bool)
    out = np.full(len(text), np.nan)
    if present.any():
        parsed = pd.to_numeric(pd.Series(text[present], dtype=object), errors="coerce").to_numpy(dtype=np.float64)
        if np.isnan(parsed).any() or not np.isfinite(parsed).all():
            return None
        out[present] = parsed
    return out


def column_kinds(schema: Schema, columns: Sequence[str], frames: Sequence[pd.DataFrame]) -> dict[str, bool]:
    """Whether each column is compared as a number: a column the schema types ``numeric`` (or leaves
    untyped) whose cells in every table are all plain numbers; any other column is categorical (a
    declared category, an ordinal, a date, or a numeric column with a published label such as
    ``20-39`` or ``*``)."""
    out: dict[str, bool] = {}
    for c in columns:
        attr = schema.attributes.get(c)
        kind = None if attr is None else attr.type
        if kind not in (None, AttrType.NUMERIC):
            out[c] = False
            continue
        looks = True
        for f in frames:
            if not pd.api.types.is_numeric_dtype(f[c].dtype) or pd.api.types.is_bool_dtype(f[c].dtype):
                labels = pd.unique(_text(f[c]))
                labels = np.array([t for t in labels if t is not None], dtype=object)
                looks = looks and (len(labels) == 0 or (labels_look_numeric(labels) if kind is None
                                                        else _as_numbers(pd.Series(labels)) is not None))
        out[c] = looks
    return out


def encode(frames: Sequence[pd.DataFrame], columns: Sequence[str], numeric: Mapping[str, bool]) -> Encoded:
    """Encode ``frames`` (each holding ``columns``) on one scale (see :class:`Encoded`)."""
    cols = [str(c) for c in columns]
    mats = [np.empty((len(f), len(cols)), dtype=np.float64) for f in frames]
    for j, c in enumerate(cols):
        if numeric.get(c, False):
            values = [_as_numbers(f[c]) for f in frames]
            if any(v is None for v in values):  # not numbers after all: compared as categories
                numeric = {**numeric, c: False}
            else:
                present = np.concatenate([v[~np.isnan(v)] for v in values])  # type: ignore[index]
                span = float(present.max() - present.min()) if len(present) else 0.0
                for m, v in zip(mats, values, strict=True):
                    m[:, j] = v / (span if span > 0 else 1.0)  # type: ignore[operator]
                continue
        texts = [_text(f[c]) for f in frames]
        codes, _ = pd.factorize(pd.Series(np.concatenate(texts), dtype=object), use_na_sentinel=False)
        start = 0
        for m, t in zip(mats, texts, strict=True):
            m[:, j] = codes[start:start + len(t)]
            start += len(t)
    return Encoded(tuple(cols), tuple(bool(numeric.get(c, False)) for c in cols), tuple(mats))


def gower(a: np.ndarray, b: np.ndarray, numeric: Sequence[bool]) -> np.ndarray:
    """The Gower distances ``len(a) × len(b)`` between rows of two encoded matrices (mean over the
    columns of the per-column distance; see the module docstring)."""
    out = np.zeros((len(a), len(b)), dtype=np.float64)
    p = a.shape[1]
    for j in range(p):
        x, y = a[:, j][:, None], b[:, j][None, :]
        if numeric[j]:
            d = np.abs(x - y)
            out += np.where(np.isnan(d), 1.0, np.minimum(d, 1.0))
        else:
            out += x != y
    return out / max(p, 1)


def nearest(targets: np.ndarray, release: np.ndarray, numeric: Sequence[bool], k: int,
            rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Per target row its ``k`` nearest release rows (``targets × k`` indices, nearest first) and
    their distances; among rows at the same distance the order is random (``rng``)."""
    n, m = len(targets), len(release)
    k = min(k, m)
    idx = np.empty((n, k), dtype=np.int64)
    dist = np.empty((n, k), dtype=np.float64)
    step = max(1, BLOCK_CELLS // max(m, 1))
    for lo in range(0, n, step):
        d = gower(targets[lo:lo + step], release, numeric)
        kth = np.partition(d, k - 1, axis=1)[:, k - 1]
        rows, cols = np.nonzero(d <= kth[:, None])
        vals = d[rows, cols]
        order = np.lexsort((rng.random(len(rows)), vals, rows))
        rows, cols, vals = rows[order], cols[order], vals[order]
        first = np.searchsorted(rows, np.arange(len(d)))
        take = first[:, None] + np.arange(k)[None, :]
        idx[lo:lo + len(d)] = cols[take]
        dist[lo:lo + len(d)] = vals[take]
    return idx, dist
