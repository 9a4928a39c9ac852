"""Reading and writing tables: CSV, Parquet, SQLite and PostgreSQL.

:func:`read_table` turns a file (or a PostgreSQL URI) into a :class:`pandas.DataFrame`;
:func:`write_table` writes a frame back atomically; :func:`shuffle_rows` puts the records of a release
in a seeded random order. Every problem with the input is raised as a one-line
:class:`~anonkit.errors.InputError` naming the file, column, value and (1-based data) row at fault;
errors of pandas, pyarrow or the database drivers never escape for bad input.

CSV is read with the standard :mod:`csv` module, every cell as a plain Python ``str`` in an
``object`` column (the same under pandas 2 and pandas 3): an empty cell is the value ``""``, not
missing, unless ``na_values`` says otherwise.

This module holds the public functions, which check the options and hand each format to its module:
:mod:`~anonkit.io.csv`, :mod:`~anonkit.io.parquet`, :mod:`~anonkit.io.sqlite` and
:mod:`~anonkit.io.postgresql`; :mod:`~anonkit.io.shuffle` shuffles. What several formats share is in
the private modules ``_locations`` (the format of a path or URI), ``_files`` (input checks and the
atomic write through a temporary file), ``_frames`` (column names, missing values, text columns, the
Arrow tables), ``_messages`` (one-line errors, masked passwords) and ``_sql`` (quoted identifiers).
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from anonkit.errors import InputError
from anonkit.io._files import _target
from anonkit.io._frames import _column_names, _na_values
from anonkit.io._locations import _PG_PREFIXES, FORMATS, _resolve_format
from anonkit.io._messages import _shown
from anonkit.io.csv import _encoding, _quotechar, _read_csv, _separator, _write_csv
from anonkit.io.parquet import _read_parquet, _write_parquet
from anonkit.io.postgresql import _check_driver, _read_postgresql, _write_postgresql
from anonkit.io.shuffle import shuffle_rows
from anonkit.io.sqlite import _read_sqlite, _write_sqlite, sole_sqlite_table

__all__ = ["FORMATS", "check_format", "check_target", "read_table", "same_table", "shuffle_rows", "sole_sqlite_table",
           "write_table"]

_IF_EXISTS = ("replace", "append", "fail")


def read_table(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    separator: str = ",",
    encoding: str = "utf-8",
    quotechar: str = '"',
    table: str | None = None,
    query: str | None = None,
    na_values: list[str] | None = None,
) -> pd.DataFrame:
    """Read a table from a CSV, Parquet or SQLite file or a PostgreSQL database.

    Parameters
    ----------
    path:
        The file, or a ``postgresql://`` / ``postgres://`` URI.
    format:
        ``"csv"``, ``"parquet"``, ``"sqlite"`` or ``"postgresql"``. ``None`` infers it from the
        suffix: ``.csv``/``.txt``/``.tsv`` → CSV, ``.parquet``/``.pq`` → Parquet,
        ``.db``/``.sqlite``/``.sqlite3`` → SQLite; a PostgreSQL URI → PostgreSQL.
    separator:
        The CSV field separator, one character (``"\\t"`` written out as backslash-t is accepted).
        A ``.tsv`` file read with the default ``","`` uses a tab.
    encoding:
        The CSV text encoding. A UTF-8 byte-order mark is stripped.
    quotechar:
        The CSV quote character; ``""`` reads without quoting.
    table:
        SQL inputs: the table to read (quoted as an identifier; for PostgreSQL ``schema.table`` names a
        table in a schema). Without ``table`` and ``query``, a SQLite file holding exactly one table is
        read whole.
    query:
        SQL inputs: a ``SELECT`` to run instead of reading a whole table.
    na_values:
        Cell texts that mean "missing" and become ``None``. By default nothing is missing in a CSV
        file: an empty cell is the value ``""``. For Parquet and SQL inputs, the text cells equal to
        one of these become ``None`` too.

    Returns
    -------
    pandas.DataFrame
        Columns in file order, a fresh ``RangeIndex``. For CSV every column has ``object`` dtype and
        every cell is a Python ``str`` (or ``None`` where ``na_values`` matched). For the typed formats
        numbers keep their types and text columns are ``object`` columns of ``str`` with ``None`` for
        missing, under pandas 2 and 3 alike.

    Raises
    ------
    InputError
        The file is missing, unreadable or not valid for the format; the input is empty or has no data
        rows; a column name is duplicated or empty; the CSV header has one column but the text uses
        another separator; a row has more (or fewer) fields than the header; quoting is broken; bytes
        cannot be decoded with ``encoding``; an SQL table is unknown or a query fails; the PostgreSQL
        driver is not installed.

    Notes
    -----
    A CSV header that is one column while splitting it on ``,``, ``;``, tab or ``|`` gives several is
    taken for a wrong ``separator``; quote such a header name to read a one-column file. Blank lines
    are skipped. A row with fewer fields than the header is an error rather than padded: that is
    usually a record broken by an unquoted line break.
    """
    fmt, loc = _resolve_format(path, format)
    na = _na_values(na_values)
    if fmt in ("csv", "parquet") and (table is not None or query is not None):
        raise InputError(f"`table` and `query` only apply to SQL inputs, not {fmt}", file=_shown(loc))
    if fmt == "csv":
        sep = _separator(separator, loc)
        quote = _quotechar(quotechar, sep)
        _encoding(encoding)
        return _read_csv(loc, sep, encoding, quote, na)
    if fmt == "parquet":
        return _read_parquet(loc, na)
    if fmt == "sqlite":
        return _read_sqlite(loc, table, query, na)
    return _read_postgresql(loc, table, query, na)


def write_table(
    frame: pd.DataFrame,
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    separator: str = ",",
    encoding: str = "utf-8",
    table: str | None = None,
    if_exists: str = "replace",
    neutralise: bool = True,
) -> None:
    """Write a frame to a CSV, Parquet or SQLite file, atomically.

    Parameters
    ----------
    frame:
        The table to write. Its index is not written; column names are written as text.
    path:
        The file to write; the format is inferred from its suffix as in :func:`read_table`.
    format:
        ``"csv"``, ``"parquet"`` or ``"sqlite"`` (writing to PostgreSQL is not supported).
    separator:
        The CSV field separator, one character (a ``.tsv`` file with the default ``","`` gets a tab).
    encoding:
        The CSV text encoding (no byte-order mark is written).
    table:
        SQLite: the table to write (required).
    if_exists:
        ``"replace"`` (default) replaces an existing file or table; ``"fail"`` raises
        :class:`InputError` if it exists; ``"append"`` (SQLite only) adds the rows to an existing table.
    neutralise:
        CSV only: defuse spreadsheet formula injection (see Notes).

    Raises
    ------
    InputError
        Duplicate or no columns; an unknown format or option; a value the format cannot store (naming
        column, value and row); the file cannot be written; a SQLite table name is missing.

    Notes
    -----
    *Atomicity.* Files are written to a temporary file in the target's directory, flushed to disk
    and moved into place with :func:`os.replace`: readers see the old file or the new one, never a
    part, and a failed write leaves the old file untouched and no temporary file behind. A SQLite
    table is written in one transaction into a temporary table that then replaces the old one
    (drop and rename in the same transaction).

    *Formula injection* (CSV with ``neutralise=True``). A text cell starting with ``=``, ``+``,
    ``-``, ``@``, a tab or a carriage return is run as a formula by spreadsheet programs; such a
    cell gets a leading ``'`` (the OWASP advice), and so does such a column name. A cell that is
    entirely a number (``-5``, ``+1.5``, ``3.2e-4``) is left alone so that negative numbers stay
    numbers: a plain number cannot carry a formula. Non-text cells (ints, floats) are never changed.
    Reading the file back keeps the ``'``.

    *Determinism.* The same frame gives the same bytes (CSV, Parquet: no timestamps are written).
    Missing values (``None``/``NaN``) are written to CSV as empty cells, so they read back as ``""``.
    """
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"write_table needs a pandas DataFrame, not {type(frame).__name__}")
    fmt, loc = _resolve_format(path, format)
    if if_exists not in _IF_EXISTS:
        raise InputError("if_exists must be 'replace', 'append' or 'fail'", key="if_exists", value=if_exists)
    names = _column_names(frame)
    if fmt == "postgresql":
        _write_postgresql(frame, names, loc, table, if_exists)
        return
    if fmt == "sqlite":
        _write_sqlite(frame, names, loc, table, if_exists)
        return
    if table is not None:
        raise InputError(f"`table` only applies to SQLite outputs, not {fmt}", file=loc)
    if if_exists == "append":
        raise InputError(f"if_exists='append' only applies to SQLite outputs, not {fmt}", file=loc)
    target = _target(loc)
    if if_exists == "fail" and target.exists():
        raise InputError("the file already exists (if_exists='fail')", file=loc)
    if fmt == "csv":
        _write_csv(frame, names, target, loc, separator, encoding, neutralise)
    else:
        _write_parquet(frame, names, target, loc)


def check_target(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    table: str | None = None,
    separator: str = ",",
    encoding: str = "utf-8",
) -> tuple[str, str]:
    """Check, before any work, that :func:`write_table` can write there; return ``(format, path)``.

    The format must be known (from ``format`` or the suffix), a file's directory must exist and be
    writable and the path must not be a directory, SQL outputs need ``table``, the CSV separator and
    encoding must be valid, and PostgreSQL needs its optional driver.

    Raises
    ------
    InputError
        One line naming the file or key at fault.
    """
    shown = os.fsdecode(path) if isinstance(path, str | os.PathLike) else str(path)
    if not shown.lower().startswith(_PG_PREFIXES) and Path(shown).is_dir():
        raise InputError("this is a directory, not a file", file=shown)
    fmt, loc = _resolve_format(path, format)
    if fmt in ("sqlite", "postgresql") and not table:
        raise InputError(f"writing {'SQLite' if fmt == 'sqlite' else 'PostgreSQL'} needs a table name",
                         file=_shown(loc), key="table")
    if fmt in ("csv", "parquet") and table is not None:
        raise InputError(f"`table` only applies to SQL outputs, not {fmt}", file=loc, key="table")
    if fmt == "postgresql":
        _check_driver(_shown(loc))
        return fmt, loc
    target = _target(loc)
    if not os.access(target.parent, os.W_OK | os.X_OK):
        raise InputError("the directory to write into is not writable", file=loc)
    if target.exists() and not os.access(target, os.W_OK) and not os.access(target.parent, os.W_OK):
        raise InputError("the file is not writable", file=loc)
    if fmt == "csv":
        _separator(separator, loc)
        _encoding(encoding)
    return fmt, loc


def check_format(path: str | os.PathLike[str], format: str | None = None) -> str:
    """The format a path is read or written in (from ``format`` or the suffix); InputError if unknown."""
    return _resolve_format(path, format)[0]


def same_table(
    a: str | os.PathLike[str], a_format: str | None, a_table: str | None,
    b: str | os.PathLike[str], b_format: str | None, b_table: str | None,
) -> bool:
    """Whether two locations name the same data: the same file (after resolving links and relative
    paths; for SQLite the same file and the same table, compared as SQLite does, ignoring case — an
    unknown table, as for a query, is not the same), or for PostgreSQL the same database URI and
    table."""
    fa, la = _resolve_format(a, a_format)
    fb, lb = _resolve_format(b, b_format)
    if (fa == "postgresql") != (fb == "postgresql"):
        return False
    if fa == "postgresql":
        return _shown(la) == _shown(lb) and (a_table or "").lower() == (b_table or "").lower()
    pa_, pb_ = Path(la), Path(lb)
    try:
        same = pa_.exists() and pb_.exists() and pa_.samefile(pb_)
    except OSError:
        same = False
    same = same or os.path.realpath(pa_) == os.path.realpath(pb_)
    if not same:
        return False
    if fa == "sqlite" and fb == "sqlite":  # one database file holds many tables
        return bool(a_table and b_table and a_table.lower() == b_table.lower())
    return True

