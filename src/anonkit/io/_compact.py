"""Compact frames: every column a :class:`pandas.Categorical` (small integer codes and a dictionary of
the distinct values), and the dense values they stand for (see :mod:`anonkit.io.batches`). Frames
only: nothing here reads or writes a file."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from anonkit._values import strip_cells

__all__ = ["COMPACT_CSV_ROWS", "compact_frame", "dense_frame", "dense_values", "has_categories", "is_compact",
           "text_compact"]

#: a dense frame of at least this many rows whose columns are all text is written as CSV through its compact
#: form (:func:`text_compact`): each distinct value rendered once; below it pandas' ``to_csv`` is as quick
COMPACT_CSV_ROWS = 10_000


def _code_type(n: int) -> type[np.signedinteger]:
    """The smallest signed integer type holding the codes ``−1 … n−1``."""
    for t in (np.int8, np.int16, np.int32):
        if n <= np.iinfo(t).max:
            return t
    return np.int64


def _placeholder(n: int) -> pd.Categorical:
    """A column that is not read (an identifier): ``n`` missing values."""
    empty = pd.CategoricalDtype(pd.Index([], dtype=object))
    return pd.Categorical.from_codes(np.full(n, -1, dtype=np.int8), dtype=empty, validate=False)


def compact_frame(frame: pd.DataFrame, *, strip: bool = False, skip: Iterable[str] = ()) -> pd.DataFrame:
    """``frame`` as a compact frame (its columns in ``skip`` as missing values, text cells stripped
    with ``strip``): each column factorized with pandas' equality, its dtype kept in the categories."""
    skipped = frozenset(str(s) for s in skip)
    data = {}
    for i, name in enumerate(frame.columns):
        col = frame.iloc[:, i]
        if str(name) in skipped:
            data[i] = _placeholder(len(frame))
            continue
        if strip:
            col = strip_cells(col)
        if isinstance(col.dtype, pd.CategoricalDtype):
            data[i] = col.array
            continue
        codes, uniques = pd.factorize(col, use_na_sentinel=True)
        categories = pd.Index(uniques, dtype=col.dtype)
        data[i] = pd.Categorical.from_codes(codes.astype(_code_type(len(categories))),
                                            dtype=pd.CategoricalDtype(categories), validate=False)
    out = pd.DataFrame(data)
    out.columns = frame.columns
    return out


def is_compact(frame: pd.DataFrame) -> bool:
    """Whether every column of ``frame`` is categorical (a compact frame)."""
    return len(frame.columns) > 0 and all(isinstance(t, pd.CategoricalDtype) for t in frame.dtypes)


def has_categories(frame: pd.DataFrame) -> bool:
    """Whether a column of ``frame`` is categorical: :func:`anonkit.io.write_table` then writes it in
    batches (:func:`write_csv_compact`, :func:`write_parquet_compact`), each categorical as its values."""
    return any(isinstance(t, pd.CategoricalDtype) for t in frame.dtypes)


def dense_values(cat: pd.Categorical, start: int = 0, stop: int | None = None
                 ) -> np.ndarray | pd.api.extensions.ExtensionArray:
    """The values of rows ``start:stop`` of a categorical as its dense column: the categories'
    dtype; a missing cell is ``None`` in an ``object`` column, else the dtype's missing value."""
    codes = np.asarray(cat.codes[start:stop])
    categories = cat.categories
    if categories.dtype == object:
        values = np.empty(len(categories) + 1, dtype=object)
        values[:-1] = categories.to_numpy(dtype=object)
        values[-1] = None
        return values[codes]
    missing = (codes < 0).any()
    if missing and isinstance(categories.dtype, np.dtype) and categories.dtype.kind in "iub":
        # a numpy type without a missing value: what pandas makes of it
        return np.asarray(cat[start:stop])
    taken = categories.take(codes, allow_fill=bool(missing))
    return taken.array if isinstance(taken.dtype, pd.api.extensions.ExtensionDtype) else taken.to_numpy()


def dense_frame(frame: pd.DataFrame, start: int = 0, stop: int | None = None) -> pd.DataFrame:
    """Rows ``start:stop`` of ``frame`` with every categorical column dense (:func:`dense_values`):
    the frame :func:`~anonkit.io.read_table` would have returned for a compact frame it read."""
    data = {}
    for i in range(frame.shape[1]):
        col = frame.iloc[:, i]
        if isinstance(col.dtype, pd.CategoricalDtype):
            values = dense_values(col.array, start, stop)
            data[i] = pd.Series(values, dtype=values.dtype, copy=False)  # object stays object (pandas 3)
        else:
            data[i] = col.iloc[start:stop].reset_index(drop=True)
    out = pd.DataFrame(data)
    out.columns = frame.columns
    return out


def _is_text(col: pd.Series) -> bool:
    """A column of text: pandas' string dtype, or ``object`` cells that are all strings (or missing)."""
    if isinstance(col.dtype, pd.StringDtype):
        return True
    return col.dtype == object and pd.api.types.infer_dtype(col, skipna=True) == "string"


def text_compact(frame: pd.DataFrame, encoding: str) -> pd.DataFrame | None:
    """``frame`` as a compact frame for writing as CSV, when that is quicker and the bytes are the same:
    at least :data:`COMPACT_CSV_ROWS` rows, two columns or more, every column text, UTF-8 (the compact
    writer's Arrow path renders each distinct value once, through pandas itself, so every cell reads as
    ``to_csv`` writes it), and the distinct values at most half the cells (else rendering them costs what
    writing the rows does). ``None``: write ``frame`` as it is. A release is such a frame: its generalized
    cells repeat (Adult's 29,640 rows: 0.09 → 0.04 CPU-s)."""
    import codecs

    rows, width = frame.shape
    if rows < COMPACT_CSV_ROWS or width < 2 or codecs.lookup(encoding).name != "utf-8":
        return None
    if not all(_is_text(frame.iloc[:, i]) for i in range(width)):
        return None
    compact = compact_frame(frame)
    if 2 * sum(len(t.categories) for t in compact.dtypes) > rows * width:
        return None
    return compact
