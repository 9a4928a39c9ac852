"""Writing a frame with categorical columns (a compact frame) as CSV or Parquet in batches of rows, with
the bytes of the dense frame (see :mod:`anonkit.io.batches`)."""

from __future__ import annotations

import codecs
import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from anonkit import interrupt
from anonkit.errors import InputError
from anonkit.io._compact import dense_frame, dense_values
from anonkit.io._files import atomic_write
from anonkit.io._frames import _to_arrow
from anonkit.io.csv import _encode_error, _encoding, _neutralise, _neutralise_columns, _separator
from anonkit.io.parquet import _write_parquet

__all__ = ["WRITE_CSV_ROWS", "WRITE_ROWS", "write_csv_compact", "write_parquet_compact"]

#: rows per batch when a compact frame is written: pyarrow's default row group, so a Parquet file
#: has the row groups (and the bytes) of ``pyarrow.parquet.write_table`` on the dense frame
WRITE_ROWS = 1 << 20
#: rows per batch when a compact frame is written as CSV (each batch's text is made, encoded and
#: written before the next; the bytes do not depend on it)
WRITE_CSV_ROWS = 1 << 16

def _chunks(n: int, rows: int) -> range:
    return range(0, max(n, 1), rows)


def write_csv_compact(frame: pd.DataFrame, names: list[str], target: Path, loc: str, separator: str, encoding: str,
                      neutralise: bool) -> None:
    """Write a frame with categorical columns as CSV, :data:`WRITE_CSV_ROWS` rows at a time: the bytes
    ``anonkit.io.csv._write_csv`` writes for its dense frame (formula neutralising and encoding
    errors alike; the row of an unencodable value counts across batches)."""
    sep = _separator(separator, loc)
    _encoding(encoding)
    header = _neutralise(pd.Series(names, dtype=object)).tolist() if neutralise else names

    cells = _category_cells(frame, sep, neutralise) if codecs.lookup(encoding).name == "utf-8" else None
    if cells is not None:
        head = dense_frame(frame, 0, 0)
        head.columns = pd.Index(header, dtype=object)
        first = head.to_csv(None, sep=sep, index=False, header=True, lineterminator="\n",
                            quoting=csv.QUOTE_MINIMAL, quotechar='"', doublequote=True)
        atomic_write(target, loc, lambda tmp: _write_cells(tmp, frame, cells, first, sep, encoding))
        return

    def write(tmp: str) -> None:
        encoder = codecs.getincrementalencoder(encoding)()  # one byte-order mark, as for the whole text
        with open(tmp, "wb") as fh:
            for start in _chunks(len(frame), WRITE_CSV_ROWS):
                out = dense_frame(frame, start, start + WRITE_CSV_ROWS)
                if neutralise:
                    _neutralise_columns(out)
                out.columns = pd.Index(header, dtype=object)
                text = out.to_csv(None, sep=sep, index=False, header=start == 0, na_rep="", lineterminator="\n",
                                  quoting=csv.QUOTE_MINIMAL, quotechar='"', doublequote=True)
                try:
                    fh.write(encoder.encode(text))
                except UnicodeEncodeError as exc:
                    err = _encode_error(out, header, encoding, exc)
                    row = None if err.row is None else err.row + start
                    raise InputError(err.message, column=err.column, value=err.value, row=row) from exc
            fh.write(encoder.encode("", final=True))

    atomic_write(target, loc, write)


#: rows per batch of the Arrow CSV path (:func:`_write_cells`): about 6 MB of text for ten columns (larger
#: batches were slower and left Arrow's allocator holding more: 1 << 18 rows peaked 100 MB higher)
WRITE_CELLS_ROWS = 1 << 16
#: the Arrow CSV path renders at most this many categories (all columns together); more: pandas per row
CELLS_AT_MOST = 2_000_000
#: ends each rendered category's line (see :func:`_category_cells`): no separator, quote or line break
_END = "\x1f\x1eanonkit-cell-end\x1e\x1f"


def _category_cells(frame: pd.DataFrame, sep: str, neutralise: bool) -> list[pa.Array] | None:
    """For every column of a compact frame, the CSV text pandas writes for each of its categories and,
    last, for a missing cell — formatted, quoted and neutralised exactly as :func:`write_csv_compact`'s
    per-batch ``to_csv`` does, because pandas renders them itself: all of a column's values, each on a
    line ending with a separator and a marker, split at the marker. ``None`` (pandas writes every
    batch) where a cell's text could depend on the other cells of its batch or the split is not
    exact: a column that is not categorical, a single column (an empty line is quoted), a date or
    time column (pandas drops the time when a column holds dates only), an integer column with a
    missing cell (its batches turn float), or more than :data:`CELLS_AT_MOST` categories."""
    if frame.shape[1] < 2 or not all(isinstance(t, pd.CategoricalDtype) for t in frame.dtypes):
        return None
    if sum(len(t.categories) for t in frame.dtypes) > CELLS_AT_MOST:
        return None
    texts = _text_cells(frame, sep, neutralise)
    if texts is not None:
        return texts
    out = []
    for i in range(frame.shape[1]):
        cat = frame.iloc[:, i].array
        kind = cat.categories.dtype
        if kind.kind in "mM" or isinstance(kind, pd.DatetimeTZDtype | pd.PeriodDtype):
            return None
        if isinstance(kind, np.dtype) and kind.kind in "iub" and (np.asarray(cat.codes) < 0).any():
            return None
        values = dense_values(pd.Categorical.from_codes(np.arange(len(cat.categories)), dtype=cat.dtype))
        parts = _rendered(pd.Series(values, dtype=values.dtype, copy=False), sep, neutralise)
        if parts is None:
            return None
        parts[-1] = ""  # a missing cell: na_rep, whatever the column's type
        out.append(pa.array(parts, type=pa.large_string()))
    return out


def _rendered(values: pd.Series, sep: str, neutralise: bool) -> list[str] | None:
    """Each of ``values`` as its CSV cell (quoted as pandas writes it, formulas neutralised when asked),
    then one empty string; ``None`` when the rendering cannot be split back into cells."""
    col = pd.DataFrame({0: values, 1: _END})
    if neutralise:
        _neutralise_columns(col)
    text = col.to_csv(None, sep=sep, index=False, header=False, na_rep="", lineterminator="\n",
                      quoting=csv.QUOTE_MINIMAL, quotechar='"', doublequote=True)
    parts = text.split(sep + _END + "\n")
    return parts if len(parts) == len(values) + 1 and parts[-1] == "" else None


def _is_text_index(categories: pd.Index) -> bool:
    """Categories that are all text: pandas' string dtype, or ``object`` holding strings only."""
    if isinstance(categories.dtype, pd.StringDtype):
        return True
    return categories.dtype == object and pd.api.types.infer_dtype(categories, skipna=False) == "string"


def _text_cells(frame: pd.DataFrame, sep: str, neutralise: bool) -> list[pa.Array] | None:
    """:func:`_category_cells` for a compact frame whose categories are all text (a release written as CSV:
    :func:`~anonkit.io._compact.text_compact`), rendered through pandas in one call for every column
    together rather than one per column (issue 30: 18 → 4 ms on Adult's release). A text cell's CSV text
    (quoting, the formula ``'``) is its value's alone, whatever column holds it, so the one rendering
    splits into each column's. ``None``: a column that is not text (:func:`_category_cells` renders each)."""
    categories = [frame.iloc[:, i].array.categories for i in range(frame.shape[1])]
    if not all(_is_text_index(c) for c in categories):
        return None
    values = np.concatenate([c.to_numpy(dtype=object) for c in categories]) if categories else np.array([], object)
    parts = _rendered(pd.Series(values, dtype=object, copy=False), sep, neutralise)
    if parts is None:
        return None
    out, start = [], 0
    for c in categories:  # each column's texts, then a missing cell's (na_rep)
        out.append(pa.array([*parts[start:start + len(c)], ""], type=pa.large_string()))
        start += len(c)
    return out


def _write_cells(tmp: str, frame: pd.DataFrame, cells: list[pa.Array], header: str, sep: str, encoding: str) -> None:
    """Write the rows of a compact frame from their columns' rendered cells (:func:`_category_cells`),
    :data:`WRITE_CELLS_ROWS` at a time, joined in Arrow: no cell becomes a Python object."""
    with open(tmp, "wb") as fh:
        fh.write(header.encode(encoding))
        for start in range(0, len(frame), WRITE_CELLS_ROWS):
            interrupt.check()
            stop = start + WRITE_CELLS_ROWS
            columns = []
            for i, texts in enumerate(cells):
                codes = np.asarray(frame.iloc[:, i].array.codes[start:stop]).astype(np.int64)
                codes[codes < 0] = len(texts) - 1  # a missing cell: the last text
                columns.append(texts.take(pa.array(codes)))
            text = pa.large_string()
            lines = pc.binary_join_element_wise(
                pc.binary_join_element_wise(*columns, pa.scalar(sep, text)), pa.scalar("", text), pa.scalar("\n", text))
            data = lines.buffers()[2]
            offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64)[lines.offset: lines.offset + len(lines) + 1]
            fh.write(memoryview(data)[int(offsets[0]): int(offsets[-1])])


def write_parquet_compact(frame: pd.DataFrame, names: list[str], target: Path, loc: str) -> None:
    """Write a frame with categorical columns as Parquet, one row group of :data:`WRITE_ROWS` rows at a
    time, a categorical column's values taken from its categories in Arrow: the schema (pandas
    metadata included) and the bytes ``pyarrow.parquet.write_table`` writes for the dense frame."""
    if len(frame) == 0:
        _write_parquet(dense_frame(frame), names, target, loc)
        return
    columns = [frame.iloc[:, i] for i in range(frame.shape[1])]
    # the schema (types and pandas metadata) from the distinct values of each column: what the
    # dense frame gives, as both are inferred from the kinds of values present
    reps = [_distinct_dense(col) for col in columns]
    longest = max(len(r) for r in reps)
    sample = pd.DataFrame({i: pd.Series(r[np.resize(np.arange(len(r)), longest)], dtype=r.dtype)
                           for i, r in enumerate(reps)})
    try:
        schema = _to_arrow(sample, names).schema
        values = {}
        for i, col in enumerate(columns):
            if isinstance(col.dtype, pd.CategoricalDtype):
                every = pd.Categorical.from_codes(np.arange(len(col.cat.categories)), dtype=col.dtype, validate=False)
                values[i] = pa.array(dense_values(every), type=schema.field(i).type, from_pandas=True)
    except (InputError, pa.ArrowException, ValueError, TypeError, OverflowError):
        _write_parquet(dense_frame(frame), names, target, loc)  # the dense writer names the cell at fault
        return

    import pyarrow.parquet as pq  # on use: a CSV job never loads it (issue 30, item 1)

    def write(tmp: str) -> None:
        with pq.ParquetWriter(tmp, schema) as writer:
            for start in _chunks(len(frame), WRITE_ROWS):
                arrays = []
                for i, col in enumerate(columns):
                    if i in values:
                        codes = np.asarray(col.cat.codes[start:start + WRITE_ROWS])
                        arrays.append(values[i].take(pa.array(codes, mask=codes < 0)))
                    else:
                        arrays.append(pa.array(col.iloc[start:start + WRITE_ROWS], type=schema.field(i).type,
                                               from_pandas=True))
                writer.write_table(pa.Table.from_arrays(arrays, schema=schema))

    atomic_write(target, loc, write)


def _distinct_dense(col: pd.Series) -> np.ndarray | pd.api.extensions.ExtensionArray:
    """The distinct values of a column as its dense values: a categorical's categories that occur
    (and its missing value if a cell is missing), a dense column's :func:`pandas.unique`."""
    if not isinstance(col.dtype, pd.CategoricalDtype):
        return pd.unique(col)
    cat = col.array
    used = np.bincount(np.asarray(cat.codes, dtype=np.int64) + 1, minlength=len(cat.categories) + 1) > 0
    present = np.append(np.flatnonzero(used[1:]), [-1] * int(used[0]))
    return dense_values(pd.Categorical.from_codes(present, dtype=cat.dtype, validate=False))
