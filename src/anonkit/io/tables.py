"""The public functions over every format: :func:`read_table`, :func:`write_table`, :func:`check_target`,
:func:`check_format` and :func:`same_table`. Each looks the format up in the registry
(:mod:`anonkit.io.registry`) and refuses, in one line, an option the format does not take; the format's
own record reads, writes and checks. Re-exported by :mod:`anonkit.io`."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from anonkit.errors import InputError
from anonkit.io._files import write_target
from anonkit.io._frames import _column_names, _na_values
from anonkit.io._messages import shown as _shown
from anonkit.io.registry import DATABASE_FILE, SERVER, Format, ReadOptions, WriteOptions, format_of, uri_format

__all__ = ["check_format", "check_target", "read_table", "same_table", "write_table"]

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
    sheet: str | None = None,
    header_row: int | None = None,
) -> pd.DataFrame:
    """Read a table from a CSV, Parquet, SQLite, Excel or DuckDB file or a PostgreSQL database.

    Parameters
    ----------
    path:
        The file, or a ``postgresql://`` / ``postgres://`` URI.
    format:
        ``"csv"``, ``"parquet"``, ``"sqlite"``, ``"excel"``, ``"duckdb"`` or ``"postgresql"``. ``None``
        infers it from the suffix: ``.csv``/``.txt``/``.tsv`` → CSV, ``.parquet``/``.pq`` → Parquet,
        ``.db``/``.sqlite``/``.sqlite3`` → SQLite, ``.xlsx`` → Excel, ``.duckdb``/``.ddb`` → DuckDB; a
        PostgreSQL URI → PostgreSQL.
    separator:
        The CSV field separator, one character (``"\\t"`` written out as backslash-t is accepted).
        A ``.tsv`` file read with the default ``","`` uses a tab.
    encoding:
        The CSV text encoding. A UTF-8 byte-order mark is stripped.
    quotechar:
        The CSV quote character; ``""`` reads without quoting.
    table:
        SQL inputs: the table to read (quoted as an identifier; for PostgreSQL ``schema.table`` names a
        table in a schema). Without ``table`` and ``query``, a SQLite or DuckDB file holding exactly one
        table is read whole.
    query:
        SQL inputs: a ``SELECT`` to run instead of reading a whole table.
    na_values:
        Cell texts that mean "missing" and become ``None``. By default nothing is missing in a CSV or
        Excel file: an empty cell is the value ``""``. For Parquet and SQL inputs, the text cells equal
        to one of these become ``None`` too.
    sheet:
        Excel: the sheet to read (default the first worksheet); an unknown sheet is an error listing
        the workbook's sheets.
    header_row:
        Excel: the sheet's row (1-based, as Excel numbers it) holding the column names; rows above it
        are ignored. Default: the first row holding a value. Cells are read as text, as in CSV (see
        :mod:`anonkit.io.excel`).

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
    _not_a_directory(path)
    fmt, loc = format_of(path, format)
    na = _na_values(na_values)
    read = fmt.reader()
    if _misfit(fmt.read_options, table=table, query=query):
        raise InputError(f"`table` and `query` only apply to SQL inputs, not {fmt.name}", file=_shown(loc))
    if _misfit(fmt.read_options, sheet=sheet, header_row=header_row):
        raise InputError(f"`sheet` and `header_row` only apply to Excel inputs, not {fmt.name}", file=_shown(loc))
    return read(loc, ReadOptions(separator=separator, encoding=encoding, quotechar=quotechar, table=table, query=query,
                                 na=na, sheet=sheet, header_row=header_row))


def _misfit(taken: frozenset[str], **given: object) -> bool:
    """Whether an option given (not ``None``) is one the format does not take."""
    return any(value is not None and name not in taken for name, value in given.items())


def _not_a_directory(path: str | os.PathLike[str]) -> None:
    """An error naming the directory when a table to read is one (its name has no suffix to tell a
    format by, so the format error would blame the wrong thing)."""
    if isinstance(path, str | os.PathLike):
        shown = os.fsdecode(path)
        if uri_format(shown) is None and Path(shown).is_dir():
            raise InputError("this is a directory, not a file: give the table's file", file=shown)


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
    sheet: str | None = None,
) -> None:
    """Write a frame to a CSV, Parquet, SQLite, Excel or DuckDB file or a PostgreSQL table, atomically.

    Parameters
    ----------
    frame:
        The table to write. Its index is not written; column names are written as text.
    path:
        The file to write; the format is inferred from its suffix as in :func:`read_table`.
    format:
        ``"csv"``, ``"parquet"``, ``"sqlite"``, ``"excel"``, ``"duckdb"`` or ``"postgresql"`` (a
        ``postgresql://`` URI is recognised without it).
    separator:
        The CSV field separator, one character (a ``.tsv`` file with the default ``","`` gets a tab).
    encoding:
        The CSV text encoding (no byte-order mark is written).
    table:
        SQLite, DuckDB and PostgreSQL: the table to write (required).
    if_exists:
        ``"replace"`` (default) replaces an existing file or table; ``"fail"`` raises
        :class:`InputError` if it exists; ``"append"`` (SQLite, DuckDB, PostgreSQL) adds the rows to an
        existing table.
    neutralise:
        CSV and Excel: defuse spreadsheet formula injection (see Notes).
    sheet:
        Excel: the name of the sheet to write (default ``Sheet1``). The workbook is written anew: other
        sheets of an existing file are not kept. Any other format refuses ``sheet``, as a file format
        refuses ``table`` (the options each format takes are its record's, :mod:`anonkit.io.registry`).
        DuckDB, like SQLite, takes ``table`` (required) and ``if_exists``.

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
    (drop and rename in the same transaction); a DuckDB table is created, replaced or appended to in
    one transaction, and a failure leaves the file as it was; a PostgreSQL table is written in one
    transaction (replacing a table with the same columns deletes its rows and copies the new ones, so
    readers see the old rows or the new, and its indexes and grants stay).

    *Formula injection* (CSV with ``neutralise=True``). A text cell starting with ``=``, ``+``,
    ``-``, ``@``, a tab or a carriage return is run as a formula by spreadsheet programs; such a
    cell gets a leading ``'`` (the OWASP advice), and so does such a column name. A cell that is
    entirely a number (``-5``, ``+1.5``, ``3.2e-4``) is left alone so that negative numbers stay
    numbers: a plain number cannot carry a formula. Non-text cells (ints, floats) are never changed.
    Reading the file back keeps the ``'``. An Excel file never holds a formula, with or without
    ``neutralise``: every text cell is written as a string (see :mod:`anonkit.io.excel`).

    *Determinism.* The same frame gives the same bytes (CSV, Parquet: no timestamps are written).
    Missing values (``None``/``NaN``) are written to CSV as empty cells, so they read back as ``""``.
    """
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"write_table needs a pandas DataFrame, not {type(frame).__name__}")
    fmt, loc = format_of(path, format)
    if if_exists not in _IF_EXISTS:
        raise InputError("if_exists must be 'replace', 'append' or 'fail'", key="if_exists", value=if_exists)
    names = _column_names(frame)
    write = fmt.writer()
    if sheet is not None and "sheet" not in fmt.write_options:
        raise InputError(f"`sheet` only applies to Excel outputs, not {fmt.name}", file=loc, key="sheet")
    if table is not None and "table" not in fmt.write_options:
        raise InputError(f"`table` only applies to SQL outputs, not {fmt.name}", file=loc)
    if if_exists == "append" and "append" not in fmt.write_options:
        raise InputError(f"if_exists='append' only applies to SQL outputs, not {fmt.name}", file=loc)
    write(frame, names, loc, WriteOptions(separator=separator, encoding=encoding, table=table, if_exists=if_exists,
                                          neutralise=neutralise, sheet=sheet))


def check_target(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    table: str | None = None,
    separator: str = ",",
    encoding: str = "utf-8",
    if_exists: str | None = None,
    sheet: str | None = None,
) -> tuple[str, str]:
    """Check, before any work, that :func:`write_table` can write there; return ``(format, path)``.

    The format must be known (from ``format`` or the suffix), a file's directory must exist and be
    writable and the path must not be a directory, SQL outputs need ``table``, the CSV separator and
    encoding must be valid, and PostgreSQL needs its optional driver, a valid table name, a server that
    takes the login and an existing database (and schema, when named); with ``if_exists="fail"`` a
    PostgreSQL table must not exist yet. Excel and DuckDB need their optional package, an Excel
    ``sheet`` name must be one Excel accepts, an existing DuckDB file must open as one (and with
    ``if_exists="fail"`` must not hold the table yet).

    Raises
    ------
    InputError
        One line naming the file or key at fault.
    """
    shown = os.fsdecode(path) if isinstance(path, str | os.PathLike) else str(path)
    if uri_format(shown) is None and Path(shown).is_dir():
        raise InputError("this is a directory, not a file", file=shown)
    fmt, loc = format_of(path, format)
    fmt.writer()
    if "table" in fmt.write_options and not table:
        raise InputError(f"writing {fmt.title} needs a table name", file=_shown(loc), key="table")
    if "table" not in fmt.write_options and table is not None:
        raise InputError(f"`table` only applies to SQL outputs, not {fmt.name}", file=loc, key="table")
    if "sheet" not in fmt.write_options and sheet is not None:
        raise InputError(f"`sheet` only applies to Excel outputs, not {fmt.name}", file=_shown(loc), key="sheet")
    options = WriteOptions(separator=separator, encoding=encoding, table=table, if_exists=if_exists, sheet=sheet)
    if fmt.kind != SERVER:
        target = write_target(loc)
        if not os.access(target.parent, os.W_OK | os.X_OK):
            raise InputError("the directory to write into is not writable", file=loc)
        if target.exists() and not os.access(target, os.W_OK) and not os.access(target.parent, os.W_OK):
            raise InputError("the file is not writable", file=loc)
    if fmt.check_output is not None:
        fmt.check_output(loc, options)
    return fmt.name, loc


def check_format(path: str | os.PathLike[str], format: str | None = None) -> str:
    """The format a path is read or written in (from ``format`` or the suffix); InputError if unknown."""
    return format_of(path, format)[0].name


def same_table(
    a: str | os.PathLike[str], a_format: str | None, a_table: str | None,
    b: str | os.PathLike[str], b_format: str | None, b_table: str | None,
) -> bool:
    """Whether two locations name the same data: the same file (after resolving links and relative
    paths; for a database file — SQLite, DuckDB — the same file and the same table, compared ignoring
    case, no table meaning the file's only table when it holds one, which is what :func:`read_table`
    reads; an unknown table, as for a query, is not the same), or for
    PostgreSQL the same server, database and table — every loopback spelling is one host, the port
    defaults to 5432, names are compared ignoring case and an unqualified name matches any schema, so
    it errs towards "the same"; two names of one host, a proxy or a view it cannot tell). Two sheets
    of one Excel file are the same: a write replaces the whole workbook."""
    fa, la = format_of(a, a_format)
    fb, lb = format_of(b, b_format)
    if (fa.kind == SERVER) != (fb.kind == SERVER):
        return False
    if fa.kind == SERVER:
        return fa is fb and fa.same_table is not None and fa.same_table(la, a_table, lb, b_table)
    pa_, pb_ = Path(la), Path(lb)
    try:
        same = pa_.exists() and pb_.exists() and pa_.samefile(pb_)
    except OSError:
        same = False
    same = same or os.path.realpath(pa_) == os.path.realpath(pb_)
    if not same:
        return False
    if fa.kind == DATABASE_FILE and fa is fb:  # one database file holds many tables
        a_table = a_table or _sole_table(fa, la)
        b_table = b_table or _sole_table(fb, lb)
        return bool(a_table and b_table and a_table.lower() == b_table.lower())
    return True


def _sole_table(fmt: Format, loc: str) -> str | None:
    return fmt.sole_table(loc) if fmt.sole_table is not None else None
