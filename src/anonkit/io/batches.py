"""Large CSV and Parquet inputs read in batches of rows into a *compact frame*, and compact frames
written in batches (issue 17 item 4).

:func:`anonkit.io.read_table` returns every cell as a Python object (a CSV cell is a ``str``): for
10 M rows that is many gigabytes before anything is encoded. :func:`read_compact` streams the file
instead — Parquet with :meth:`pyarrow.parquet.ParquetFile.iter_batches`, CSV with pyarrow's streaming
reader (:func:`pyarrow.csv.open_csv`) under exactly the options of ``read_table``'s own pyarrow path —
and dictionary-encodes each column of each batch in Arrow; when the file is done the per-batch
dictionaries are unified once. No cell becomes a Python object: only the distinct values do.

A **compact frame** is a :class:`pandas.DataFrame` whose every column is a
:class:`pandas.Categorical`: integer codes (``int8`` up to 127 distinct values, ``int16``, ``int32``)
and a dictionary of the distinct values, −1 for a missing cell. Its dense values — the categories
taken by the codes, missing as the column's missing value — are exactly the frame
``read_table`` would return after ``input.na_values`` and ``input.strip`` (:func:`dense_frame`):
the same texts (CSV), the same numbers and number types (Parquet: a numeric column is encoded from
its numbers, never through text), the same dtypes. So everything downstream gives the result it
gives on the dense frame:

* :class:`~anonkit.table.Table` factorizes a categorical column from its codes
  (:func:`anonkit._values.factorize_text`), keeping them in their small type;
* :meth:`Release.to_frame <anonkit.release.Release.to_frame>` publishes a compact frame (the
  generalized labels of a quasi-identifier as a dictionary, rows in the seeded order of
  ``published_rows``);
* :func:`anonkit.io.write_table` writes a compact frame to CSV or Parquet in batches of rows
  (:func:`write_csv_compact`, :func:`write_parquet_compact`), dense values built one batch at a
  time, with the bytes of the dense frame (Parquet row groups of pyarrow's default 1,048,576 rows).

What is kept per record is one small code per column: the quasi-identifiers and sensitive
attributes, and also the insensitive columns published unchanged. For those, codes and a dictionary
were chosen over a re-read of the input at write time: a release's rows are in a shuffled order, so
writing needs random access to the whole column, which a re-read would hold in memory anyway — for
the 10 M-row benchmark's column of hours (99 values) that is 10 MB of ``int8`` codes kept against
80 MB of ``int64`` loaded at write time (and a text column costs its Arrow text, offsets included,
instead of one byte a record). Identifier columns are never encoded (``skip``; Parquet does not
even read them): they are dropped before anything. A near-unique text column costs its dictionary,
one Python ``str`` per distinct value (as the dense frame does); give such a column the role
``identifier`` if it is not to be published. Limits of the equivalence: a float column holding both
``0.0`` and ``-0.0`` publishes the one met first for both (pandas takes them for one value), and a
Parquet dictionary column (a pandas categorical) is read as its values.

Figures (``benchmarks/bench_io.py``, 2 cores): ``anonkit anonymize`` of 10 M Parquet rows (8 Adult
quasi-identifiers, a sensitive and an insensitive attribute, Flash, CSV output) peaks at 1.21 GB
resident in 13.0 s (1.9× the 630 MB encoded table); read whole, the file took 12.0 GB in 152 s
(measured before the measures and the verifier counted rows, not re-measured). Above the encoded
table (and the 0.3 GB the interpreter, pandas, pyarrow and numba hold) the phases peak within
0.2 GB of each other: the search's release, the counted release
(:meth:`~anonkit.release.Release.counted`, on which the measures run), publishing (the shuffled
row order, every column gathered a chunk at a time in its small code type) and the verifier's
grouping (the key built in place, one column's codes beside it), with freed heap pages given back
between them (:mod:`anonkit._memory`). The CSV is written from each column's categories rendered
once by pandas and joined in Arrow (:func:`write_csv_compact`): 3.4 s for the 10 M rows instead of
about 30 s through ``to_csv`` per batch, the same bytes.

When the streaming reader cannot decide — a CSV file of at most
:data:`anonkit.io.csv.ARROW_ABOVE_BYTES` (read by the strict reader), one pyarrow rejects (broken
quoting, a short row, a bad byte: the strict reader names the row and value), a Parquet file with a
stored pandas index or a column that pandas restores to another type (dates, decimals, nullable
``Int64``, categoricals) — the file is read whole with ``read_table`` (which raises its usual error
naming the row and column) and that frame is made compact (:func:`compact_frame`).
"""

from __future__ import annotations

import codecs
import csv
import functools
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from anonkit import interrupt
from anonkit._values import strip_cells
from anonkit.errors import InputError
from anonkit.io._files import _atomic_write
from anonkit.io._frames import _na_values
from anonkit.io._locations import _resolve_format

__all__ = [
    "AUTO_BATCH_ABOVE_BYTES",
    "AUTO_BATCH_ABOVE_ROWS",
    "DEFAULT_BATCH_ROWS",
    "WRITE_CSV_ROWS",
    "WRITE_ROWS",
    "batch_rows_for",
    "compact_frame",
    "dense_frame",
    "dense_values",
    "has_categories",
    "is_compact",
    "read_compact",
    "write_csv_compact",
    "write_parquet_compact",
]

#: rows per batch when ``input.batch_rows`` is not given (about 25 MB of Arrow text for ten columns)
DEFAULT_BATCH_ROWS = 1 << 18
#: a CSV or Parquet input larger than this is read in batches unless ``input.batch_rows`` is 0 (from
#: 8 MB on, the compact path pays: Adult ×10, 25 MB of CSV, is anonymized in 1.8 s instead of 3.3 s,
#: 0.41 GB instead of 0.65 GB, the same bytes written)
AUTO_BATCH_ABOVE_BYTES = 8 << 20
#: ... and a Parquet file of more rows than this (compressed, it may hold many rows in few bytes)
AUTO_BATCH_ABOVE_ROWS = 125_000
#: rows per batch when a compact frame is written: pyarrow's default row group, so a Parquet file
#: has the row groups (and the bytes) of ``pyarrow.parquet.write_table`` on the dense frame
WRITE_ROWS = 1 << 20
#: rows per batch when a compact frame is written as CSV (each batch's text is made, encoded and
#: written before the next; the bytes do not depend on it)
WRITE_CSV_ROWS = 1 << 16
_CSV_SAMPLE_BYTES = 1 << 16


def batch_rows_for(path: str | os.PathLike[str], format: str | None = None, batch_rows: int | None = None
                   ) -> int | None:
    """Rows per batch to read ``path`` with :func:`read_compact`, or ``None`` to read it whole.

    ``batch_rows`` ``0`` reads whole; a positive number reads a CSV or Parquet input in batches of
    that many rows; ``None`` (the default) reads in batches of :data:`DEFAULT_BATCH_ROWS` rows a
    CSV or Parquet file larger than :data:`AUTO_BATCH_ABOVE_BYTES` or a Parquet file of more than
    :data:`AUTO_BATCH_ABOVE_ROWS` rows. Other formats are read whole.
    """
    if batch_rows is not None and (isinstance(batch_rows, bool) or not isinstance(batch_rows, int)
                                   or batch_rows < 0):
        raise InputError("batch_rows must be a whole number ≥ 0 (0: read the input whole)", key="batch_rows",
                         value=batch_rows)
    if batch_rows == 0:
        return None
    try:
        fmt, loc = _resolve_format(path, format)
    except InputError:
        return None  # read_table names the problem
    if fmt not in ("csv", "parquet"):
        return None
    if batch_rows is not None:
        return batch_rows
    try:
        large = os.path.getsize(loc) > AUTO_BATCH_ABOVE_BYTES
        if fmt == "parquet" and not large:  # compressed: count its rows (the footer says)
            import pyarrow.parquet as pq

            large = pq.ParquetFile(loc).metadata.num_rows > AUTO_BATCH_ABOVE_ROWS
    except (OSError, pa.ArrowException, ValueError, TypeError):
        return None  # read_table names the problem
    return DEFAULT_BATCH_ROWS if large else None


def read_compact(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    separator: str = ",",
    encoding: str = "utf-8",
    quotechar: str = '"',
    na_values: list[str] | None = None,
    strip: bool = True,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    skip: Iterable[str] = (),
) -> pd.DataFrame:
    """A CSV or Parquet file as a compact frame (see the module docstring), read ``batch_rows`` rows
    at a time.

    The options are those of :func:`anonkit.io.read_table`; ``strip`` removes the whitespace around
    every text cell (what ``input.strip`` does to the frame ``read_table`` returns), and the columns
    in ``skip`` are not read (identifiers): each is a column of missing values.

    Raises
    ------
    InputError
        What :func:`anonkit.io.read_table` raises for the file, naming the file, row and column;
        ``batch_rows`` not a positive whole number; a format other than CSV or Parquet.
    """
    if isinstance(batch_rows, bool) or not isinstance(batch_rows, int) or batch_rows < 1:
        raise InputError("batch_rows must be a whole number ≥ 1", key="batch_rows", value=batch_rows)
    fmt, loc = _resolve_format(path, format)
    na = _na_values(na_values)
    skipped = frozenset(str(s) for s in skip)
    out: pd.DataFrame | None
    if fmt == "csv":
        from anonkit.io.csv import _encoding, _quotechar, _separator

        sep = _separator(separator, loc)
        quote = _quotechar(quotechar, sep)
        _encoding(encoding)
        out = _csv_compact(loc, sep, encoding, quote, na, strip, batch_rows, skipped)
    elif fmt == "parquet":
        out = _parquet_compact(loc, na, strip, batch_rows, skipped)
    else:
        raise InputError(f"reading in batches applies to CSV and Parquet inputs, not {fmt}", file=loc,
                         key="batch_rows")
    if out is None:  # the whole-file reader decides, and names any error
        from anonkit.io import read_table

        frame = read_table(path, format=format, separator=separator, encoding=encoding, quotechar=quotechar,
                           na_values=na_values)
        out = compact_frame(frame, strip=strip, skip=skipped)
    _give_back_memory()
    return out


def _give_back_memory() -> None:
    """Return what reading freed to the system: pyarrow's pool keeps freed blocks, and glibc keeps
    the heap its many batch-sized arrays grew (``malloc_trim``; nothing elsewhere)."""
    pa.default_memory_pool().release_unused()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


# ---------------------------------------------------------------------------------------------- encoding


class _Column:
    """One column being read: per batch, the small codes into that batch's Arrow dictionary."""

    def __init__(self, kind: str, type: pa.DataType) -> None:
        self.kind = kind  # "text", "int", "float", "bool" or "null"
        self.type = type
        self.codes: list[np.ndarray] = []
        self.dicts: list[pa.Array] = []
        self.nulls = False
        self.n = 0

    def add(self, arr: pa.Array) -> None:
        self.n += len(arr)
        if arr.null_count:
            self.nulls = True
        if self.kind == "null":
            self.codes.append(np.full(len(arr), -1, dtype=np.int8))
            return
        enc = arr.dictionary_encode()
        idx = enc.indices
        if idx.null_count:
            idx = idx.fill_null(-1)
        self.codes.append(idx.to_numpy().astype(_code_type(len(enc.dictionary)), copy=False))
        self.dicts.append(enc.dictionary)

    def finish(self, text_dtype: object) -> pd.Categorical:
        """The column as a categorical: the batch dictionaries unified (first appearance), each
        distinct value converted once (missing texts, stripping, pandas' number types)."""
        if self.kind == "null":
            of_entry, categories = np.zeros(0, dtype=np.int64), pd.Index([], dtype=object)
        else:
            raw = pa.concat_arrays(self.dicts).dictionary_encode() if self.dicts else pa.array(
                [], type=self.type).dictionary_encode()
            entry, categories = self._categories(raw.dictionary, text_dtype)
            of_entry = entry[raw.indices.to_numpy()]
        small = _code_type(len(categories))
        codes = np.empty(self.n, dtype=small)
        at = start = 0
        for i in range(len(self.codes)):
            part = self.codes[i]
            self.codes[i] = np.empty(0, dtype=np.int8)  # free the batch's codes as they are copied
            width = len(self.dicts[i]) if self.dicts else 0
            lut = np.append(of_entry[start:start + width], -1).astype(small)  # -1 (missing) → −1
            codes[at:at + len(part)] = lut[part]
            at += len(part)
            start += width
        self.dicts = []
        return pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(categories), validate=False)

    def _categories(self, raw: pa.Array, text_dtype: object) -> tuple[np.ndarray, pd.Index]:
        """The code of every distinct raw value (−1: missing) and the categories, as pandas holds
        the values of the dense column."""
        if self.kind == "text":
            na, strip = self.na, self.strip
            texts = [None if t in na else t.strip() if strip else t for t in raw.to_pylist()]
            values: np.ndarray = np.array(texts, dtype=object)
            dtype: object = text_dtype
        elif self.kind == "bool" and self.nulls:  # pandas: an object column of True/False/None
            values, dtype = np.array(raw.to_pylist(), dtype=object), object
        else:
            values = raw.to_numpy(zero_copy_only=False)
            if self.kind == "int" and self.nulls:  # pandas: integers with missing values are floats
                values = values.astype(np.float64)
            dtype = values.dtype
        entry, uniques = pd.factorize(values, use_na_sentinel=True)
        return entry, pd.Index(uniques, dtype=dtype)

    na: frozenset[str] = frozenset()
    strip = False


def _code_type(n: int) -> type[np.signedinteger]:
    """The smallest signed integer type holding the codes ``−1 … n−1``."""
    for t in (np.int8, np.int16, np.int32):
        if n <= np.iinfo(t).max:
            return t
    return np.int64


def _kind(t: pa.DataType) -> str | None:
    """How a column of Arrow type ``t`` is encoded; ``None``: not here (the whole-file reader)."""
    if pa.types.is_string(t) or pa.types.is_large_string(t) or getattr(pa.types, "is_string_view", bool)(t):
        return "text"
    if pa.types.is_integer(t):
        return "int"
    if pa.types.is_float32(t) or pa.types.is_float64(t):
        return "float"
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_null(t):
        return "null"
    return None


@functools.cache
def _arrow_text_dtype() -> object:
    """The dtype pandas gives an Arrow text column (``str`` under pandas 3, ``object`` before)."""
    return pa.table({"x": pa.array(["a"])}).to_pandas()["x"].dtype


def _placeholder(n: int) -> pd.Categorical:
    """A column that is not read (an identifier): ``n`` missing values."""
    empty = pd.CategoricalDtype(pd.Index([], dtype=object))
    return pd.Categorical.from_codes(np.full(n, -1, dtype=np.int8), dtype=empty, validate=False)


def _assemble(names: list[str], columns: dict[str, _Column], n: int, text_dtype: object) -> pd.DataFrame:
    data = {}
    for name in names:
        data[name] = _placeholder(n) if name not in columns else columns[name].finish(text_dtype)
        columns.pop(name, None)
    return pd.DataFrame(data)


# ---------------------------------------------------------------------------------------------- Parquet


#: numpy types pandas' Parquet metadata may name for a column that ``to_pandas`` gives as plain numpy
#: (or text made ``object`` by ``read_table``); any other (``Int64``, ``datetime64[ns]``, ``category``,
#: …) makes the whole-file reader decide
_PLAIN_NUMPY_TYPES = frozenset(
    {"object", "str", "string", "bool", "float32", "float64"}
    | {f"{s}int{b}" for s in ("", "u") for b in (8, 16, 32, 64)}
)


def _parquet_compact(loc: str, na: frozenset[str], strip: bool, batch_rows: int, skip: frozenset[str]
                     ) -> pd.DataFrame | None:
    import pyarrow.parquet as pq

    try:
        if os.path.getsize(loc) == 0:
            return None
        parquet = pq.ParquetFile(loc)
        schema = parquet.schema_arrow
        n = parquet.metadata.num_rows
    except (OSError, pa.ArrowException, ValueError, TypeError):
        return None
    names = [str(x) for x in schema.names]
    if n == 0 or not names or len(set(names)) < len(names) or "" in names:
        return None
    meta = schema.pandas_metadata or {}
    if any(not isinstance(ix, dict) for ix in meta.get("index_columns", [])):
        return None  # a stored index: read_table turns it into a column or drops it
    numpy_type = {str(c.get("field_name", c.get("name"))): c.get("numpy_type") for c in meta.get("columns", [])}
    kinds = {}
    for field in schema:
        kind = _kind(field.type)
        if kind is None or numpy_type.get(field.name, "object") not in _PLAIN_NUMPY_TYPES:
            return None
        kinds[field.name] = kind
    read = [name for name in names if name not in skip]
    columns = {name: _new_column(kinds[name], schema.field(name).type, na, strip) for name in read}
    try:
        if read:
            for batch in parquet.iter_batches(batch_size=batch_rows, columns=read, use_threads=True):
                interrupt.check()
                for name, arr in zip(read, batch.columns, strict=True):
                    columns[name].add(arr)
    except (OSError, pa.ArrowException, ValueError, TypeError):
        return None
    if read and columns[read[0]].n != n:
        return None
    return _assemble(names, columns, n, object)


def _new_column(kind: str, type: pa.DataType, na: frozenset[str], strip: bool) -> _Column:
    col = _Column(kind, type)
    if kind == "text":
        col.na, col.strip = na, strip
    return col


# ---------------------------------------------------------------------------------------------- CSV


def _csv_compact(loc: str, sep: str, encoding: str, quote: str | None, na: frozenset[str], strip: bool,
                 batch_rows: int, skip: frozenset[str]) -> pd.DataFrame | None:
    """The streaming twin of ``anonkit.io.csv._read_csv_arrow``: the same checks and options, so the
    same cells; ``None`` wherever that reader would hand the file to the strict reader."""
    from anonkit.io import csv as csv_io

    try:
        if os.path.getsize(loc) <= csv_io.ARROW_ABOVE_BYTES:
            return None
        import pyarrow.csv as pacsv

        with open(loc, "rb") as fh:
            head = fh.readline()
            fh.seek(0)
            sample = fh.read(_CSV_SAMPLE_BYTES)
        head_text = head.decode(encoding, errors="replace").lstrip("\ufeff")
        names = next(csv.reader([head_text.rstrip("\r\n")], delimiter=sep, quotechar=quote or '"'))
        if len(names) <= 1 or len(set(names)) != len(names) or any(n == "" for n in names):
            return None
        per_row = max(len(sample) / max(sample.count(b"\n"), 1), 1.0)
        block = int(min(max(batch_rows * per_row * 1.25, 1 << 20), 1 << 28))
        reader = pacsv.open_csv(
            loc,
            read_options=pacsv.ReadOptions(encoding=encoding, use_threads=True, block_size=block),
            parse_options=pacsv.ParseOptions(delimiter=sep, quote_char=quote if quote else False,
                                             newlines_in_values=True),
            convert_options=pacsv.ConvertOptions(column_types={n: pa.string() for n in names},
                                                 strings_can_be_null=False, quoted_strings_can_be_null=False),
        )
        if reader.schema.names != names:
            return None
        read = [i for i, name in enumerate(names) if name not in skip]
        columns = {names[i]: _new_column("text", pa.string(), na, strip) for i in read}
        for batch in _sliced(reader, batch_rows):
            interrupt.check()  # KeyboardInterrupt is no Exception: it is not taken for pyarrow declining
            for i in read:
                columns[names[i]].add(batch.column(i))
    except Exception:  # pyarrow declines; the strict reader decides (as read_table does)
        return None
    n = columns[names[read[0]]].n if read else None
    if n is None or n == 0:
        return None
    return _assemble(names, columns, n, _arrow_text_dtype())


def _sliced(reader: Iterable[pa.RecordBatch], rows: int) -> Iterator[pa.RecordBatch]:
    """The reader's batches cut to at most ``rows`` rows each."""
    for batch in reader:
        for start in range(0, batch.num_rows, rows):
            yield batch.slice(start, rows)


# ---------------------------------------------------------------------------------------------- dense


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


# ---------------------------------------------------------------------------------------------- write


def _chunks(n: int, rows: int) -> range:
    return range(0, max(n, 1), rows)


def write_csv_compact(frame: pd.DataFrame, names: list[str], target: Path, loc: str, separator: str, encoding: str,
                      neutralise: bool) -> None:
    """Write a frame with categorical columns as CSV, :data:`WRITE_CSV_ROWS` rows at a time: the bytes
    ``anonkit.io.csv._write_csv`` writes for its dense frame (formula neutralising and encoding
    errors alike; the row of an unencodable value counts across batches)."""
    from anonkit.io.csv import _encode_error, _encoding, _neutralise, _neutralise_columns, _separator

    sep = _separator(separator, loc)
    _encoding(encoding)
    header = _neutralise(pd.Series(names, dtype=object)).tolist() if neutralise else names

    cells = _category_cells(frame, sep, neutralise) if codecs.lookup(encoding).name == "utf-8" else None
    if cells is not None:
        head = dense_frame(frame, 0, 0)
        head.columns = pd.Index(header, dtype=object)
        first = head.to_csv(None, sep=sep, index=False, header=True, lineterminator="\n",
                            quoting=csv.QUOTE_MINIMAL, quotechar='"', doublequote=True)
        _atomic_write(target, loc, lambda tmp: _write_cells(tmp, frame, cells, first, sep, encoding))
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

    _atomic_write(target, loc, write)


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
    from anonkit.io.csv import _neutralise_columns

    out = []
    for i in range(frame.shape[1]):
        cat = frame.iloc[:, i].array
        kind = cat.categories.dtype
        if kind.kind in "mM" or isinstance(kind, pd.DatetimeTZDtype | pd.PeriodDtype):
            return None
        if isinstance(kind, np.dtype) and kind.kind in "iub" and (np.asarray(cat.codes) < 0).any():
            return None
        values = dense_values(pd.Categorical.from_codes(np.arange(len(cat.categories)), dtype=cat.dtype))
        col = pd.DataFrame({0: pd.Series(values, dtype=values.dtype, copy=False), 1: _END})
        if neutralise:
            _neutralise_columns(col)
        text = col.to_csv(None, sep=sep, index=False, header=False, na_rep="", lineterminator="\n",
                          quoting=csv.QUOTE_MINIMAL, quotechar='"', doublequote=True)
        parts = text.split(sep + _END + "\n")
        if len(parts) != len(values) + 1 or parts[-1] != "":
            return None
        parts[-1] = ""  # a missing cell: na_rep, whatever the column's type
        out.append(pa.array(parts, type=pa.large_string()))
    return out


def _write_cells(tmp: str, frame: pd.DataFrame, cells: list[pa.Array], header: str, sep: str, encoding: str) -> None:
    """Write the rows of a compact frame from their columns' rendered cells (:func:`_category_cells`),
    :data:`WRITE_CELLS_ROWS` at a time, joined in Arrow: no cell becomes a Python object."""
    import pyarrow.compute as pc

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
    import pyarrow.parquet as pq

    from anonkit.io._frames import _to_arrow
    from anonkit.io.parquet import _write_parquet

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

    _atomic_write(target, loc, write)


def _distinct_dense(col: pd.Series) -> np.ndarray | pd.api.extensions.ExtensionArray:
    """The distinct values of a column as its dense values: a categorical's categories that occur
    (and its missing value if a cell is missing), a dense column's :func:`pandas.unique`."""
    if not isinstance(col.dtype, pd.CategoricalDtype):
        return pd.unique(col)
    cat = col.array
    used = np.bincount(np.asarray(cat.codes, dtype=np.int64) + 1, minlength=len(cat.categories) + 1) > 0
    present = np.append(np.flatnonzero(used[1:]), [-1] * int(used[0]))
    return dense_values(pd.Categorical.from_codes(present, dtype=cat.dtype, validate=False))
