"""Reading a CSV or Parquet file in batches of rows into a compact frame (see :mod:`anonkit.io.batches`):
each batch's columns dictionary-encoded in Arrow, the dictionaries unified once at the end. Each reader
returns ``None`` wherever the whole-file reader must decide (it names the error, or reads what the
streaming reader cannot)."""

from __future__ import annotations

import contextlib
import csv
import functools
import os
from collections.abc import Iterable, Iterator

import numpy as np
import pandas as pd
import pyarrow as pa

from anonkit import interrupt
from anonkit.io import csv as csv_io
from anonkit.io._compact import _code_type, _placeholder
from anonkit.io._files import HashingReader, mapped_file

_CSV_SAMPLE_BYTES = 1 << 16


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
        mapped = mapped_file(loc)  # hashed as mapped: the run's digest of its input needs no second pass
        if len(mapped) == 0:
            return None
        parquet = pq.ParquetFile(pa.py_buffer(mapped))
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
    with contextlib.ExitStack() as stack:
        return _csv_batches(stack, loc, sep, encoding, quote, na, strip, batch_rows, skip)


def _csv_batches(stack: contextlib.ExitStack, loc: str, sep: str, encoding: str, quote: str | None,
                 na: frozenset[str], strip: bool, batch_rows: int, skip: frozenset[str]) -> pd.DataFrame | None:
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
        stream = stack.enter_context(HashingReader(loc))  # hashed as streamed: no second pass for the digest
        reader = pacsv.open_csv(
            pa.PythonFile(stream, mode="r"),
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
        stream.finish()
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


