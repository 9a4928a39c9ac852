"""Reading and writing tables: CSV, Parquet, SQLite and PostgreSQL.

:func:`read_table` turns a file (or a PostgreSQL URI) into a :class:`pandas.DataFrame`;
:func:`write_table` writes a frame back atomically; :func:`shuffle_rows` puts the records of a release
in a seeded random order. Every problem with the input is raised as a one-line
:class:`~anonkit.errors.InputError` naming the file, column, value and (1-based data) row at fault;
errors of pandas, pyarrow or the database drivers never escape for bad input.

CSV is read with the standard :mod:`csv` module, every cell as a plain Python ``str`` in an
``object`` column (the same under pandas 2 and pandas 3): an empty cell is the value ``""``, not
missing, unless ``na_values`` says otherwise.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import datetime as dt
import gc
import io
import itertools
import os
import re
import sqlite3
import stat
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from anonkit import interrupt
from anonkit.errors import InputError

__all__ = ["FORMATS", "check_format", "check_target", "read_table", "same_table", "shuffle_rows", "sole_sqlite_table",
           "write_table"]

FORMATS: tuple[str, ...] = ("csv", "parquet", "sqlite", "postgresql")
"""The formats :func:`read_table` and :func:`write_table` know."""

_SUFFIXES = {
    ".csv": "csv",
    ".txt": "csv",
    ".tsv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".db": "sqlite",
    ".sqlite": "sqlite",
    ".sqlite3": "sqlite",
}
_ALIASES = {
    "csv": "csv",
    "tsv": "csv",
    "txt": "csv",
    "parquet": "parquet",
    "pq": "parquet",
    "sqlite": "sqlite",
    "sqlite3": "sqlite",
    "db": "sqlite",
    "postgresql": "postgresql",
    "postgres": "postgresql",
    "pg": "postgresql",
}
_PG_PREFIXES = ("postgresql://", "postgres://")
_LIKELY_SEPARATORS = (",", ";", "\t", "|")
_IF_EXISTS = ("replace", "append", "fail")

# A cell a spreadsheet would run as a formula starts with one of these (OWASP "CSV injection").
_FORMULA_START = r"[=+\-@\t\r]"
# ... unless the whole cell is a plain number: an int, a decimal or scientific notation (ASCII digits).
_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_SAMPLE_CHARS = 65536
_SAMPLE_RECORDS = 6


# ---------------------------------------------------------------------------------------------- public


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
        sep = _separator(separator, loc)
        _encoding(encoding)
        data = _csv_bytes(frame, names, sep, encoding, neutralise)
        _atomic_write(target, loc, lambda tmp: Path(tmp).write_bytes(data))
    else:
        arrow = _to_arrow(frame, names)
        _atomic_write(target, loc, lambda tmp: pq.write_table(arrow, tmp))


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
        try:
            import adbc_driver_postgresql  # noqa: F401
        except ImportError:
            raise InputError(
                "writing PostgreSQL needs the optional adbc-driver-postgresql package: pip install anonkit[postgres]",
                file=_shown(loc),
            ) from None
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


def sole_sqlite_table(path: str | os.PathLike[str]) -> str | None:
    """The name of the only table of a SQLite file (what :func:`read_table` reads without ``table``),
    or ``None`` when the file is missing, unreadable or holds another number of tables."""
    loc = os.fsdecode(path)
    if not Path(loc).is_file():
        return None
    try:
        with contextlib.closing(sqlite3.connect(Path(loc).resolve().as_uri() + "?mode=ro", uri=True)) as con:
            names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    except sqlite3.Error:
        return None
    return names[0] if len(names) == 1 else None


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


def shuffle_rows(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The rows of ``frame`` in a seeded random order, with a fresh ``RangeIndex``.

    Releasing the records in their input order would let two releases of the same data be joined
    by position; a random order (``numpy.random.default_rng(seed).permutation``) prevents that.
    The same seed gives the same order.
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise InputError("the seed must be a non-negative integer", key="seed", value=seed)
    if seed < 0:
        raise InputError("the seed must be a non-negative integer", key="seed", value=seed)
    order = np.random.default_rng(int(seed)).permutation(len(frame))
    return frame.iloc[order].reset_index(drop=True)


# ---------------------------------------------------------------------------------------------- options


def _resolve_format(path: str | os.PathLike[str], format: str | None) -> tuple[str, str]:
    """The canonical format name and the path as text."""
    try:
        loc = os.fsdecode(path)
    except TypeError:
        raise InputError(f"a path must be text or a path, not {type(path).__name__}") from None
    is_uri = loc.lower().startswith(_PG_PREFIXES)
    if format is None:
        if is_uri:
            return "postgresql", loc
        suffix = Path(loc).suffix.lower()
        fmt = _SUFFIXES.get(suffix)
        if fmt is None:
            raise InputError(
                "cannot tell the format from the file name; pass format='csv', 'parquet', 'sqlite' or 'postgresql'",
                file=loc,
            )
        return fmt, loc
    fmt = _ALIASES.get(str(format).strip().lower()) if isinstance(format, str) else None
    if fmt is None:
        raise InputError("unknown format; use 'csv', 'parquet', 'sqlite' or 'postgresql'", key="format", value=format)
    if fmt == "postgresql" and not is_uri:
        raise InputError("a PostgreSQL input must be a URI starting with postgresql://", file=loc)
    return fmt, loc


def _separator(separator: str, loc: str) -> str:
    if separator in ("\\t", "tab"):
        separator = "\t"
    if separator == "," and Path(loc).suffix.lower() == ".tsv":
        separator = "\t"
    if not isinstance(separator, str) or len(separator) != 1 or separator in '\r\n"':
        raise InputError(
            "the separator must be one character (not a quote or line break)", key="separator", value=separator
        )
    return separator


def _quotechar(quotechar: str, separator: str) -> str | None:
    if quotechar in ("", None):
        return None
    if not isinstance(quotechar, str) or len(quotechar) != 1 or quotechar in "\r\n":
        raise InputError("the quote character must be one character", key="quotechar", value=quotechar)
    if quotechar == separator:
        raise InputError("the quote character must differ from the separator", key="quotechar", value=quotechar)
    return quotechar


def _encoding(encoding: str) -> str:
    """The codec's canonical name; an unknown encoding is an InputError."""
    try:
        return codecs.lookup(encoding).name
    except (LookupError, TypeError):
        raise InputError("unknown encoding", key="encoding", value=encoding) from None


def _na_values(na_values: Iterable[str] | str | None) -> frozenset[str]:
    if na_values is None:
        return frozenset()
    if isinstance(na_values, str):
        na_values = [na_values]
    values = list(na_values)
    for v in values:
        if not isinstance(v, str):
            raise InputError("na_values must be a list of strings", key="na_values", value=v)
    return frozenset(values)


def _shown(loc: str) -> str:
    """``loc`` fit for a message: a URI's password is masked."""
    if not loc.lower().startswith(_PG_PREFIXES):
        return loc
    try:
        parts = urlsplit(loc)
        netloc = parts.netloc
        if parts.password is not None:
            userinfo, _, host = netloc.rpartition("@")
            user = userinfo.split(":", 1)[0]
            netloc = f"{user}:***@{host}"
        query = re.sub(r"(?i)(password=)[^&]*", r"\1***", parts.query)
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:
        return "<PostgreSQL URI>"


def _one_line(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _quote_ident(name: str) -> str:
    """``name`` as a double-quoted SQL identifier."""
    if not isinstance(name, str) or not name or "\x00" in name:
        raise InputError("a table name must be non-empty text", key="table", value=name)
    return '"' + name.replace('"', '""') + '"'


# ---------------------------------------------------------------------------------------------- files


def _check_file(loc: str) -> int:
    """The size of the readable file ``loc``; InputError if it is missing or unreadable."""
    try:
        st = os.stat(loc)
    except FileNotFoundError:
        raise InputError("file not found", file=loc) from None
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", file=loc) from exc
    if stat.S_ISDIR(st.st_mode):
        raise InputError("this is a directory, not a file", file=loc)
    if not os.access(loc, os.R_OK):
        raise InputError("permission denied: cannot read the file", file=loc)
    return st.st_size


def _read_bytes(loc: str) -> bytes:
    _check_file(loc)
    try:
        return Path(loc).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", file=loc) from exc


def _target(loc: str) -> Path:
    """The file a write goes to (through a symlink); InputError if its directory is missing."""
    target = Path(loc)
    if target.is_symlink():
        target = target.resolve()
    if target.is_dir():
        raise InputError("this is a directory, not a file", file=loc)
    parent = target.parent
    if not parent.is_dir():
        raise InputError("the directory to write into does not exist", file=loc)
    return target


def _file_mode(target: Path) -> int:
    """Permissions for the new file: those of the file it replaces, else what ``open`` would give."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def _atomic_write(target: Path, loc: str, write: Callable[[str], object]) -> None:
    """Call ``write(tmp)`` on a temporary file next to ``target``, then move it into place."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise InputError(f"cannot write into the directory: {exc.strerror or exc}", file=loc) from exc
    os.close(fd)
    try:
        with interrupt.temporary(tmp):
            write(tmp)
            fd = os.open(tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            os.chmod(tmp, _file_mode(target))
            with interrupt.committing(loc):
                os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write the file: {exc.strerror or exc}", file=loc) from exc
        raise
    _fsync_dir(target.parent)


def _fsync_dir(directory: Path) -> None:
    """Make the rename durable (POSIX); not possible everywhere, so failures are ignored."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _column_names(frame: pd.DataFrame) -> list[str]:
    """The column names as text; InputError on none, empty or duplicate names."""
    names = [str(c) for c in frame.columns]
    if not names:
        raise InputError("nothing to write: the frame has no columns")
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError("duplicate column name", column=name)
        seen.add(name)
    return names


def _check_header(names: list[str], loc: str) -> None:
    seen: set[str] = set()
    for i, name in enumerate(names):
        if name == "":
            raise InputError(f"column {i + 1} of the header has no name", file=loc)
        if name in seen:
            raise InputError("duplicate column name in the header", column=name, file=loc)
        seen.add(name)


def _strings_to_object(frame: pd.DataFrame) -> pd.DataFrame:
    """Text columns as ``object`` columns of ``str`` with ``None`` for missing (pandas 2 and 3)."""
    for i, dtype in enumerate(frame.dtypes):
        text = isinstance(dtype, pd.StringDtype) or (
            isinstance(dtype, pd.ArrowDtype)
            and (pa.types.is_string(dtype.pyarrow_dtype) or pa.types.is_large_string(dtype.pyarrow_dtype))
        )
        if text:
            col = frame.iloc[:, i]
            frame.isetitem(i, col.astype(object).where(col.notna(), None))
    return frame


def _apply_na(frame: pd.DataFrame, na: frozenset[str]) -> pd.DataFrame:
    """Cells of text columns equal to one of ``na`` become ``None``."""
    if not na:
        return frame
    for i, dtype in enumerate(frame.dtypes):
        if pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
            col = frame.iloc[:, i]
            hit = col.isin(na)
            if hit.any():
                frame.isetitem(i, col.where(~hit, None))
    return frame


def _default_index(frame: pd.DataFrame) -> pd.DataFrame:
    """A stored pandas index becomes a column if it is named, and is dropped otherwise."""
    index = frame.index
    if isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1:
        return frame
    named = any(n is not None for n in index.names)
    return frame.reset_index(drop=not named)


# ---------------------------------------------------------------------------------------------- CSV read


def _reader(text: str, sep: str, quote: str | None, *, strict: bool) -> Any:
    return csv.reader(
        io.StringIO(text, newline=""),
        delimiter=sep,
        quotechar=quote,
        quoting=csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE,
        doublequote=True,
        skipinitialspace=False,
        strict=strict,
    )


def _decode(raw: bytes, encoding: str, loc: str, sep: str, quote: str | None) -> str:
    codec = "utf-8-sig" if _encoding(encoding) == "utf-8" else encoding
    try:
        text = raw.decode(codec)
    except UnicodeDecodeError as exc:
        bad = raw[exc.start : exc.end]
        row, column = _locate(raw[: exc.start].decode(codec, errors="replace"), sep, quote)
        where = " in the header" if row is None else ""
        raise InputError(
            f"cannot decode the bytes as {encoding}{where}; pass the file's encoding as `encoding` "
            "(e.g. encoding='latin-1' or 'cp1252')",
            file=loc,
            column=column,
            value=bad,
            row=row,
        ) from exc
    return text[1:] if text.startswith("\ufeff") else text


def _locate(prefix: str, sep: str, quote: str | None) -> tuple[int | None, str | None]:
    """Data row (1-based; None for the header) and column where text ``prefix`` ends."""
    with contextlib.suppress(csv.Error):
        records = [r for r in _reader(prefix, sep, quote, strict=False) if r]
        if prefix.endswith(("\n", "\r")) or not records:
            index, field = len(records), 0
        else:
            index, field = len(records) - 1, len(records[-1]) - 1
        if index == 0:
            return None, None
        header = records[0]
        return index, header[field] if field < len(header) else None
    return None, None


def _guess_separator(text: str, sep: str, quote: str | None) -> str | None:
    """Another likely separator that splits the one-column header, preferring a consistent one."""
    sample = text[:_SAMPLE_CHARS]
    best: tuple[bool, int] | None = None
    found = None
    for cand in _LIKELY_SEPARATORS:
        if cand in (sep, quote):
            continue
        try:
            records = [r for r in itertools.islice(_reader(sample, cand, quote, strict=False), 200) if r]
        except csv.Error:
            continue
        if len(sample) < len(text):
            records = records[:-1]
        if not records or len(records[0]) < 2:
            continue
        width = len(records[0])
        consistent = all(len(r) == width for r in records[1:_SAMPLE_RECORDS])
        score = (consistent, width)
        if best is None or score > best:
            best, found = score, cand
    return found


def _csv_syntax_error(exc: csv.Error, row: int | None, line: int, loc: str) -> InputError:
    text = str(exc)
    if "unexpected end of data" in text:
        msg = f"unterminated quoted field: a quote opened at line {line} is never closed"
    elif "field larger than field limit" in text:
        msg = f"a field is longer than {csv.field_size_limit()} characters (an unterminated quote?) near line {line}"
    else:
        msg = f"malformed CSV at line {line}: {_one_line(exc)}"
    if row is None:
        msg += " (in the header)"
    return InputError(msg, file=loc, row=row)


#: Files larger than this are parsed by pyarrow's multi-threaded CSV reader first (about 10× faster);
#: whatever it rejects, and every smaller file, goes through the strict reader below, whose errors
#: name the row and the value.
ARROW_ABOVE_BYTES = 1 << 20


def _read_csv_arrow(loc: str, sep: str, encoding: str, quote: str | None) -> pd.DataFrame | None:
    """Fast path: every column as text with pyarrow; None when the strict reader must decide."""
    try:
        if os.path.getsize(loc) <= ARROW_ABOVE_BYTES:
            return None
        import pyarrow as pa
        import pyarrow.csv as pacsv

        with open(loc, "rb") as fh:
            head = fh.readline().decode(encoding, errors="replace").lstrip("\ufeff")
        names = next(csv.reader([head.rstrip("\r\n")], delimiter=sep, quotechar=quote or '"'))
        if len(names) <= 1 or len(set(names)) != len(names) or any(n == "" for n in names):
            return None
        table = pacsv.read_csv(
            loc,
            read_options=pacsv.ReadOptions(encoding=encoding, use_threads=True),
            parse_options=pacsv.ParseOptions(
                delimiter=sep, quote_char=quote if quote else False, newlines_in_values=True
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={n: pa.string() for n in names},
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except Exception:
        return None
    if table.num_rows == 0 or table.column_names != names:
        return None
    frame = table.to_pandas()
    return frame if all(pd.api.types.is_string_dtype(t) for t in frame.dtypes) else None


def _read_csv(loc: str, sep: str, encoding: str, quote: str | None, na: frozenset[str]) -> pd.DataFrame:
    fast = _read_csv_arrow(loc, sep, encoding, quote)
    if fast is not None:
        return _apply_na(fast, na)
    text = _decode(_read_bytes(loc), encoding, loc, sep, quote)
    if not text.strip():
        raise InputError("input is empty", file=loc)
    reader = _reader(text, sep, quote, strict=True)
    header: list[str] | None = None
    rows: list[list[str]] = []
    width = 0
    line = 0
    try:
        with _gc_paused():  # a million small lists otherwise trigger many slow collections
            for record in reader:
                if not record:
                    line = reader.line_num
                    continue
                if header is None:
                    header = record
                    width = len(header)
                    if width == 1:
                        other = _guess_separator(text, sep, quote)
                        if other is not None:
                            raise InputError(
                                f"wrong separator? the header has one column; the file seems to use {other!r}",
                                file=loc,
                                key="separator",
                            )
                    _check_header(header, loc)
                elif len(record) != width:
                    raise _width_error(record, header, len(rows) + 1, reader.line_num, loc)
                else:
                    rows.append(record)
                line = reader.line_num
    except csv.Error as exc:
        raise _csv_syntax_error(exc, None if header is None else len(rows) + 1, line + 1, loc) from exc
    if header is None:
        raise InputError("input is empty", file=loc)
    if not rows:
        raise InputError("input is empty: there is a header but no data rows", file=loc)
    cells = np.array(rows, dtype=object)
    del rows
    frame = pd.DataFrame(cells, columns=header, dtype=object)
    return _apply_na(frame, na)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector (parsing allocates many lists and no cycles)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _width_error(record: list[str], header: list[str], row: int, line: int, loc: str) -> InputError:
    n, width = len(record), len(header)
    if n > width:
        return InputError(
            f"the row has {n} fields but the header has {width} (line {line}); a wrong separator or "
            "an unquoted separator inside a value?",
            file=loc,
            value=record[width],
            row=row,
        )
    return InputError(
        f"the row has {n} fields but the header has {width} (line {line}); a value with an unquoted line break?",
        file=loc,
        column=header[n],
        row=row,
    )


# ---------------------------------------------------------------------------------------------- Parquet


def _read_parquet(loc: str, na: frozenset[str]) -> pd.DataFrame:
    if _check_file(loc) == 0:
        raise InputError("input is empty", file=loc)
    try:
        parquet = pq.ParquetFile(loc)
        names = parquet.schema_arrow.names
        _check_header([str(n) for n in names], loc)
        data = parquet.read()
    except InputError:
        raise
    except (pa.ArrowException, OSError, ValueError, TypeError) as exc:
        raise InputError(f"not a valid Parquet file: {_one_line(exc)}", file=loc) from exc
    if data.num_rows == 0 or data.num_columns == 0:
        raise InputError("input is empty: no data rows", file=loc)
    try:
        frame = data.to_pandas()
    except (pa.ArrowException, ValueError, TypeError) as exc:
        raise InputError(f"cannot convert the Parquet data: {_one_line(exc)}", file=loc) from exc
    frame = _default_index(frame)
    return _apply_na(_strings_to_object(frame), na)


def _to_arrow(frame: pd.DataFrame, names: list[str]) -> pa.Table:
    out = frame.copy(deep=False)
    out.columns = names
    try:
        return pa.Table.from_pandas(out, preserve_index=False)
    except (pa.ArrowException, ValueError, TypeError, OverflowError) as exc:
        for i, name in enumerate(names):
            col = out.iloc[:, i]
            try:
                pa.array(col, from_pandas=True)
            except (pa.ArrowException, ValueError, TypeError, OverflowError):
                row, value = _odd_one_out(col)
                raise InputError(
                    f"cannot store the column in Parquet (mixed types?): {_one_line(exc)}",
                    column=name,
                    value=value,
                    row=row,
                ) from exc
        raise InputError(f"cannot convert the frame to Parquet: {_one_line(exc)}") from exc


def _odd_one_out(col: pd.Series) -> tuple[int | None, object]:
    """Row (1-based) and value of the first cell whose type differs from the first value's."""
    values = col.to_numpy(dtype=object)
    first: type | None = None
    for i, v in enumerate(values):
        if v is None or (isinstance(v, float) and v != v):
            continue
        if first is None:
            first = type(v)
        elif type(v) is not first:
            return i + 1, v
    return None, None


# ---------------------------------------------------------------------------------------------- CSV write


def _neutralise(col: pd.Series) -> pd.Series:
    """Text cells that a spreadsheet would run as a formula, prefixed with ``'`` (numbers kept)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        col = col.astype(object)
    kind = pd.api.types.infer_dtype(col, skipna=True)
    if kind not in ("string", "mixed", "mixed-integer"):
        return col
    risky = col.str.match(_FORMULA_START, na=False) & ~col.str.fullmatch(_NUMBER, na=False)
    risky = risky.astype(bool)
    if not risky.any():
        return col
    out = col.copy()
    out[risky] = "'" + col[risky]
    return out


def _csv_bytes(frame: pd.DataFrame, names: list[str], sep: str, encoding: str, neutralise: bool) -> bytes:
    out = frame.copy(deep=False)
    header = names
    if neutralise:
        header = _neutralise(pd.Series(names, dtype=object)).tolist()
        for i in range(out.shape[1]):
            col = out.iloc[:, i]
            fixed = _neutralise(col)
            if fixed is not col:
                out.isetitem(i, fixed)
    out.columns = pd.Index(header, dtype=object)
    text = out.to_csv(
        None,
        sep=sep,
        index=False,
        header=True,
        na_rep="",
        lineterminator="\n",
        quoting=csv.QUOTE_MINIMAL,
        quotechar='"',
        doublequote=True,
    )
    try:
        return text.encode(encoding)
    except UnicodeEncodeError as exc:
        raise _encode_error(out, header, encoding, exc) from exc


def _encode_error(out: pd.DataFrame, header: list[str], encoding: str, exc: UnicodeEncodeError) -> InputError:
    msg = f"cannot encode the value as {encoding}; pass another `encoding` (e.g. encoding='utf-8')"
    for name in header:
        try:
            name.encode(encoding)
        except UnicodeEncodeError:
            return InputError(msg + " (a column name)", column=name)
    for i, name in enumerate(header):
        col = out.iloc[:, i]
        if pd.api.types.infer_dtype(col, skipna=True) not in ("string", "mixed", "mixed-integer", "categorical"):
            continue
        for r, v in enumerate(col.to_numpy(dtype=object)):
            if isinstance(v, str):
                try:
                    v.encode(encoding)
                except UnicodeEncodeError:
                    return InputError(msg, column=name, value=v, row=r + 1)
    return InputError(f"cannot encode the table as {encoding}: {_one_line(exc)}")


# ---------------------------------------------------------------------------------------------- SQLite


def _read_sqlite(loc: str, table: str | None, query: str | None, na: frozenset[str]) -> pd.DataFrame:
    if _check_file(loc) == 0:
        raise InputError("input is empty", file=loc)
    if table is not None and query is not None:
        raise InputError("pass either `table` or `query`, not both", file=loc)
    uri = Path(loc).resolve().as_uri() + "?mode=ro"
    try:
        con = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise InputError(f"cannot open the SQLite file: {_one_line(exc)}", file=loc) from exc
    try:
        with contextlib.closing(con):
            try:
                tables = [
                    r[0]
                    for r in con.execute(
                        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                        "AND name NOT LIKE 'sqlite_%' ORDER BY name"
                    )
                ]
            except sqlite3.DatabaseError as exc:
                raise InputError(f"not a valid SQLite database: {_one_line(exc)}", file=loc) from exc
            if query is None:
                if table is None:
                    if len(tables) != 1:
                        listed = ", ".join(tables) if tables else "none"
                        raise InputError(
                            f"pass `table` or `query`; the database has tables: {listed}", file=loc, key="table"
                        )
                    table = tables[0]
                elif table.lower() not in {t.lower() for t in tables}:
                    listed = ", ".join(tables) if tables else "none"
                    raise InputError(f"unknown table; the database has tables: {listed}", file=loc, value=table)
                sql = f"SELECT * FROM {_quote_ident(table)}"
            else:
                sql = query
            try:
                cursor = con.execute(sql)
                if cursor.description is None:
                    raise InputError("the query returns no columns (not a SELECT?)", file=loc, key="query")
                names = [str(d[0]) for d in cursor.description]
                _check_header(names, loc)
                rows = cursor.fetchall()
            except sqlite3.Error as exc:
                raise InputError(f"the SQL query failed: {_one_line(exc)}", file=loc, key="query") from exc
    except sqlite3.Error as exc:
        raise InputError(f"cannot read the SQLite file: {_one_line(exc)}", file=loc) from exc
    if not rows:
        raise InputError("input is empty: no data rows", file=loc)
    frame = pd.DataFrame(rows, columns=names)
    return _apply_na(_strings_to_object(frame), na)


def _sql_value(v: object) -> object:
    """A cell as something sqlite3 stores: None, int, float, str or bytes where possible."""
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and v != v:
        return None
    if isinstance(v, dt.datetime | dt.date | dt.time):
        return v.isoformat()
    if isinstance(v, pd.Timedelta | dt.timedelta):
        return str(v)
    return v


def _sql_column(col: pd.Series) -> tuple[str, list[object]]:
    """The declared SQLite type of a column and its cells as Python values."""
    dtype = col.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "biu":
        return "INTEGER", col.tolist()
    if isinstance(dtype, np.dtype) and dtype.kind == "f":
        return "REAL", col.astype(object).where(col.notna(), None).tolist()
    kind = pd.api.types.infer_dtype(col, skipna=True)
    decl = {
        "string": "TEXT",
        "integer": "INTEGER",
        "floating": "REAL",
        "boolean": "INTEGER",
        "bytes": "BLOB",
        "datetime64": "TEXT",
        "datetime": "TEXT",
        "date": "TEXT",
    }.get(kind, "")
    return decl, [_sql_value(v) for v in col.to_numpy(dtype=object)]


def _bad_sql_cell(names: list[str], columns: list[list[object]]) -> tuple[str, int, object] | None:
    for name, values in zip(names, columns, strict=True):
        for r, v in enumerate(values):
            if v is None or isinstance(v, float | str | bytes):
                continue
            if isinstance(v, int) and -(2**63) <= v < 2**63:
                continue
            return name, r + 1, v
    return None


def _write_sqlite(frame: pd.DataFrame, names: list[str], loc: str, table: str | None, if_exists: str) -> None:
    if table is None or table == "":
        raise InputError("writing SQLite needs a table name: pass `table`", file=loc, key="table")
    target = _target(loc)
    existed = target.exists()
    quoted = _quote_ident(table)
    typed = [_sql_column(frame.iloc[:, i]) for i in range(frame.shape[1])]
    columns = [values for _, values in typed]
    cols = ", ".join(_quote_ident(n) for n in names)
    marks = ", ".join("?" for _ in names)
    try:
        con = sqlite3.connect(target, isolation_level=None)
    except sqlite3.Error as exc:
        raise InputError(f"cannot open the SQLite file: {_one_line(exc)}", file=loc) from exc
    try:
        with contextlib.closing(con):
            try:
                # Rename without re-checking views that name the table being replaced.
                con.execute("PRAGMA legacy_alter_table = ON")
                con.execute("BEGIN IMMEDIATE")
            except sqlite3.DatabaseError as exc:
                raise InputError(f"not a valid SQLite database: {_one_line(exc)}", file=loc) from exc
            try:
                exists = con.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND lower(name) = lower(?)", (table,)
                ).fetchone()
                if exists and if_exists == "fail":
                    raise InputError("the table already exists (if_exists='fail')", file=loc, value=table)
                if exists and if_exists == "append":
                    con.executemany(f"INSERT INTO {quoted} ({cols}) VALUES ({marks})", zip(*columns, strict=True))
                else:
                    tmp = _quote_ident(f"_anonkit_tmp_{uuid.uuid4().hex}")
                    defs = ", ".join(
                        f"{_quote_ident(n)} {decl}".rstrip() for n, (decl, _) in zip(names, typed, strict=True)
                    )
                    con.execute(f"CREATE TABLE {tmp} ({defs})")
                    con.executemany(f"INSERT INTO {tmp} VALUES ({marks})", zip(*columns, strict=True))
                    con.execute(f"DROP TABLE IF EXISTS {quoted}")
                    con.execute(f"ALTER TABLE {tmp} RENAME TO {quoted}")
                with interrupt.committing(f"{loc}#{table}"):
                    con.execute("COMMIT")
            except BaseException:
                if con.in_transaction:
                    con.execute("ROLLBACK")
                raise
    except (sqlite3.Error, OverflowError) as exc:
        _remove_new_db(target, existed)
        bad = _bad_sql_cell(names, columns)
        if bad is not None:
            name, row, value = bad
            raise InputError("SQLite cannot store this value", column=name, value=value, row=row) from exc
        raise InputError(f"cannot write the SQLite table: {_one_line(exc)}", file=loc, value=table) from exc
    except BaseException:
        _remove_new_db(target, existed)
        raise


def _remove_new_db(target: Path, existed: bool) -> None:
    """After a failed write, remove the database file the write created."""
    if existed:
        return
    for path in (target, Path(f"{target}-journal")):
        with contextlib.suppress(OSError):
            path.unlink()


# ---------------------------------------------------------------------------------------------- PostgreSQL


def _write_postgresql(frame: pd.DataFrame, names: list[str], uri: str, table: str | None, if_exists: str) -> None:
    """Write ``frame`` to a PostgreSQL table through ADBC's bulk ingest, in one transaction.

    PostgreSQL's DDL is transactional, so ``replace`` (drop and create) and the copy of the rows
    commit together or not at all: the write is atomic like the file writes.
    """
    shown = _shown(uri)
    try:
        from adbc_driver_postgresql import dbapi as pg
    except ImportError as exc:
        raise InputError(
            "writing PostgreSQL needs the optional adbc-driver-postgresql package: pip install anonkit[postgres]",
            file=shown,
        ) from exc
    if not table:
        raise InputError("writing to PostgreSQL needs a table name", file=shown, key="table")
    schema_name, _, name = table.rpartition(".")
    arrow = _to_arrow(frame, names)
    mode = {"replace": "replace", "append": "append", "fail": "create"}[if_exists]
    secret = urlsplit(uri).password if "@" in uri else None
    try:
        with pg.connect(uri) as conn:
            with conn.cursor() as cursor:
                kwargs = {"db_schema_name": schema_name} if schema_name else {}
                cursor.adbc_ingest(name, arrow, mode=mode, **kwargs)
            with interrupt.committing(f"{shown}#{table}"):
                conn.commit()
    except Exception as exc:
        text = _one_line(exc)
        if secret:
            text = text.replace(secret, "***")
        raise InputError(f"writing PostgreSQL failed: {text}", file=shown, value=table) from exc


def _read_postgresql(uri: str, table: str | None, query: str | None, na: frozenset[str]) -> pd.DataFrame:
    shown = _shown(uri)
    try:
        from adbc_driver_postgresql import dbapi as pg
    except ImportError as exc:
        raise InputError(
            "reading PostgreSQL needs the optional adbc-driver-postgresql package: pip install anonkit[postgres]",
            file=shown,
        ) from exc
    if table is not None and query is not None:
        raise InputError("pass either `table` or `query`, not both", file=shown)
    if table is None and query is None:
        raise InputError("pass `table` or `query` to read from PostgreSQL", file=shown, key="table")
    if table is not None:
        sql = "SELECT * FROM " + ".".join(_quote_ident(part) for part in table.split(".", 1))
    else:
        sql = str(query)
    secret = urlsplit(uri).password if "@" in uri else None
    try:
        with pg.connect(uri) as conn, conn.cursor() as cursor:
            cursor.execute(sql)
            data = cursor.fetch_arrow_table()
    except Exception as exc:
        if table is not None and getattr(exc, "sqlstate", None) == "42P01":
            raise InputError("unknown table", file=shown, value=table) from exc
        text = _one_line(exc)
        if secret:
            text = text.replace(secret, "***")
        raise InputError(f"reading PostgreSQL failed: {text}", file=shown) from exc
    _check_header([str(n) for n in data.schema.names], shown)
    if data.num_rows == 0:
        raise InputError("input is empty: no data rows", file=shown)
    try:
        frame = data.to_pandas()
    except (pa.ArrowException, ValueError, TypeError) as exc:
        raise InputError(f"cannot convert the PostgreSQL result: {_one_line(exc)}", file=shown) from exc
    return _apply_na(_strings_to_object(_default_index(frame)), na)
