"""Reading and writing tables: CSV, Parquet, SQLite, Excel, DuckDB and PostgreSQL.

:func:`read_table` turns a file (or a PostgreSQL URI) into a :class:`pandas.DataFrame`;
:func:`write_table` writes a frame back atomically; :func:`shuffle_rows` puts the records of a release
in a seeded random order. Every problem with the input is raised as a one-line
:class:`~anonkit.errors.InputError` naming the file, column, value and (1-based data) row at fault;
errors of pandas, pyarrow or the database drivers never escape for bad input.

CSV is read with the standard :mod:`csv` module, every cell as a plain Python ``str`` in an
``object`` column (the same under pandas 2 and pandas 3): an empty cell is the value ``""``, not
missing, unless ``na_values`` says otherwise.

The formats are declared once, in the registry :mod:`~anonkit.io.registry` (:data:`FORMATS` names them);
the public functions (:mod:`~anonkit.io.tables`) look a format up there and hand it to its module:
:mod:`~anonkit.io.csv`, :mod:`~anonkit.io.parquet`, :mod:`~anonkit.io.sqlite`, :mod:`~anonkit.io.excel`
(the ``excel`` extra), :mod:`~anonkit.io.duckdb` (the ``duckdb`` extra) and :mod:`~anonkit.io.postgresql`;
:mod:`~anonkit.io.batches` reads large CSV and Parquet files in batches; :mod:`~anonkit.io.shuffle`
shuffles. What several formats share is in the private modules ``_files`` (input checks and the atomic
write through a temporary file), ``_frames`` (column names, missing values, text columns, the Arrow
tables), ``_messages`` (one-line errors, masked locations), ``_sql`` (quoted identifiers), ``_places``
(no write lands on a read) and ``_compact*`` (compact frames, read and written in batches).

Helpers the rest of anonkit uses for its own files are public here: :func:`atomic_write`,
:func:`write_target`, :func:`check_file`, :func:`terminating` (files), :func:`shown` and
:func:`without_password` (locations fit to show or record), :class:`Place`, :func:`check_places`,
:func:`same_file` and :data:`INPUT_KEYS` (the one rule for paths), :data:`FORMULA_START` and
:data:`NUMBER` (what a neutralised text cell starts with, and the numbers left alone).
"""

from __future__ import annotations

from anonkit.io._files import atomic_write, check_file, recording_digests, terminating, write_target
from anonkit.io._messages import shown
from anonkit.io._places import INPUT_KEYS, Place, check_places, same_file
from anonkit.io.csv import FORMULA_START, NUMBER
from anonkit.io.duckdb import sole_duckdb_table
from anonkit.io.postgresql import without_password
from anonkit.io.registry import FORMAT_NAMES, format_named, formats
from anonkit.io.shuffle import shuffle_rows
from anonkit.io.sqlite import sole_sqlite_table
from anonkit.io.tables import check_format, check_target, read_table, same_table, write_table

#: the formats :func:`read_table` and :func:`write_table` know (the registry's names, in its order)
FORMATS: tuple[str, ...] = FORMAT_NAMES

__all__ = [
    "FORMATS",
    "FORMAT_NAMES",
    "FORMULA_START",
    "INPUT_KEYS",
    "NUMBER",
    "Place",
    "atomic_write",
    "check_file",
    "check_format",
    "check_places",
    "check_target",
    "format_named",
    "formats",
    "read_table",
    "recording_digests",
    "same_file",
    "same_table",
    "shown",
    "shuffle_rows",
    "sole_duckdb_table",
    "sole_sqlite_table",
    "terminating",
    "without_password",
    "write_table",
    "write_target",
]
