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

This module holds the public entry points (:func:`batch_rows_for`, :func:`read_compact`) and re-exports
the rest: compact frames are in ``_compact``, the streaming readers in ``_compact_read``, the batch
writers in ``_compact_write`` (which :func:`anonkit.io.write_table` reaches through the registry,
:mod:`anonkit.io.registry`, for a frame with categorical columns).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import pandas as pd
import pyarrow as pa

from anonkit.errors import InputError
from anonkit.io._compact import compact_frame, dense_frame, dense_values, has_categories, is_compact
from anonkit.io._compact_read import _csv_compact, _give_back_memory, _parquet_compact
from anonkit.io._compact_write import WRITE_CSV_ROWS, WRITE_ROWS, write_csv_compact, write_parquet_compact
from anonkit.io._frames import _na_values
from anonkit.io.csv import _encoding, _quotechar, _separator
from anonkit.io.registry import format_of
from anonkit.io.tables import read_table

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
#: the formats read in batches (:mod:`anonkit.io._compact_read`); any other is read whole
_BATCH_FORMATS = ("csv", "parquet")


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
        found, loc = format_of(path, format)
    except InputError:
        return None  # read_table names the problem
    fmt = found.name
    if fmt not in _BATCH_FORMATS:
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
    found, loc = format_of(path, format)
    fmt = found.name
    na = _na_values(na_values)
    skipped = frozenset(str(s) for s in skip)
    out: pd.DataFrame | None
    if fmt == "csv":
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
        frame = read_table(path, format=format, separator=separator, encoding=encoding, quotechar=quotechar,
                           na_values=na_values)
        out = compact_frame(frame, strip=strip, skip=skipped)
    _give_back_memory()
    return out


