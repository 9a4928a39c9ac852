"""The one list of table formats: each declared once, as one :class:`Format` record.

A record says everything the rest of anonkit needs to know about a format: its name and the other
names ``format=`` accepts, the file suffixes it is told by (and those it refuses, with what to do),
whether it is a plain file, a database file holding named tables or a database server named by a URI,
the options it takes when read and when written, and the functions that read it, write it and check
an output before any work. :func:`~anonkit.io.read_table`, :func:`~anonkit.io.write_table`,
:func:`~anonkit.io.check_target`, :func:`~anonkit.io.same_table`, the path rule of
:mod:`anonkit.io._places` and the batch reader (:mod:`anonkit.io.batches`) all look the format up here
and nowhere else; the config reads :data:`FORMAT_NAMES` and :func:`formats_taking`.

There is no fall-through: a name that is not registered is an error naming the registered ones, and a
registered format without a reader or a writer is refused when asked to read or write (never handed to
another format's code). Adding a format is one record in :data:`_REGISTRY` and its module.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from anonkit.errors import InputError
from anonkit.io import csv, duckdb, excel, parquet, postgresql, sqlite
from anonkit.io._compact import has_categories, text_compact
from anonkit.io._compact_write import write_csv_compact, write_parquet_compact
from anonkit.io._files import write_target

__all__ = [
    "DATABASE_FILE",
    "FILE",
    "FORMAT_NAMES",
    "SERVER",
    "Format",
    "ReadOptions",
    "WriteOptions",
    "format_named",
    "format_of",
    "formats",
    "formats_taking",
    "uri_format",
]

#: a file holding one table (CSV, Parquet, an Excel workbook's sheet)
FILE = "file"
#: a database file holding named tables (SQLite, DuckDB)
DATABASE_FILE = "database file"
#: a database server named by a URI (PostgreSQL)
SERVER = "database server"


@dataclass(frozen=True)
class ReadOptions:
    """What :func:`~anonkit.io.read_table` was asked, beyond the location (``na``: the checked
    ``na_values``). A format reads the options it takes (:attr:`Format.read_options`)."""

    separator: str = ","
    encoding: str = "utf-8"
    quotechar: str = '"'
    table: str | None = None
    query: str | None = None
    na: frozenset[str] = frozenset()
    sheet: str | None = None
    header_row: int | None = None


@dataclass(frozen=True)
class WriteOptions:
    """What :func:`~anonkit.io.write_table` or :func:`~anonkit.io.check_target` was asked, beyond the
    frame and the location."""

    separator: str = ","
    encoding: str = "utf-8"
    table: str | None = None
    if_exists: str | None = "replace"
    neutralise: bool = True
    sheet: str | None = None


Reader = Callable[[str, ReadOptions], pd.DataFrame]
Writer = Callable[[pd.DataFrame, list[str], str, WriteOptions], None]


@dataclass(frozen=True)
class Format:
    """One table format.

    ``read_options`` and ``write_options`` name the options the format takes — ``separator``,
    ``encoding``, ``quotechar``, ``table``, ``query``, ``sheet``, ``header_row``, ``neutralise`` and
    ``append`` (``if_exists="append"``); an option a format does not take is refused when given.
    ``check_output`` checks, before any work, that an output can be written (options, optional
    package, a database's table); ``sole_table`` (database files) names a file's only table, which a
    read without ``table`` reads; ``same_table`` (servers) says whether two locations may name one
    table."""

    name: str
    #: the format as messages name it (``SQLite``)
    title: str
    kind: str
    suffixes: tuple[str, ...] = ()
    #: other names ``format=`` accepts for it
    aliases: tuple[str, ...] = ()
    #: servers: the URI schemes that name one
    uri_prefixes: tuple[str, ...] = ()
    #: suffixes of files of this family that are not read, with what to do instead
    unreadable: tuple[tuple[str, str], ...] = ()
    read_options: frozenset[str] = frozenset()
    write_options: frozenset[str] = frozenset()
    read: Reader | None = None
    write: Writer | None = None
    check_output: Callable[[str, WriteOptions], None] | None = None
    sole_table: Callable[[str], str | None] | None = None
    same_table: Callable[[str, str | None, str, str | None], bool] | None = None

    def reader(self) -> Reader:
        """The function that reads this format; InputError when it has none."""
        if self.read is None:
            raise InputError(f"anonkit cannot read {self.title}; use one of {_listed(readable=True)}",
                             key="format", value=self.name)
        return self.read

    def writer(self) -> Writer:
        """The function that writes this format; InputError when it has none."""
        if self.write is None:
            raise InputError(f"anonkit cannot write {self.title}; use one of {_listed(writable=True)}",
                             key="format", value=self.name)
        return self.write


# ---------------------------------------------------------------------------------------------- readers


def _read_csv(loc: str, o: ReadOptions) -> pd.DataFrame:
    sep = csv._separator(o.separator, loc)
    quote = csv._quotechar(o.quotechar, sep)
    csv._encoding(o.encoding)
    return csv._read_csv(loc, sep, o.encoding, quote, o.na)


def _read_parquet(loc: str, o: ReadOptions) -> pd.DataFrame:
    return parquet._read_parquet(loc, o.na)


def _read_sqlite(loc: str, o: ReadOptions) -> pd.DataFrame:
    return sqlite._read_sqlite(loc, o.table, o.query, o.na)


def _read_excel(loc: str, o: ReadOptions) -> pd.DataFrame:
    return excel._read_excel(loc, o.sheet, o.header_row, o.na)


def _read_duckdb(loc: str, o: ReadOptions) -> pd.DataFrame:
    return duckdb._read_duckdb(loc, o.table, o.query, o.na)


def _read_postgresql(loc: str, o: ReadOptions) -> pd.DataFrame:
    return postgresql._read_postgresql(loc, o.table, o.query, o.na)


# ---------------------------------------------------------------------------------------------- writers


def _file_target(loc: str, if_exists: str | None) -> Path:
    """The file a write goes to; InputError if it exists and ``if_exists`` is ``"fail"``."""
    target = write_target(loc)
    if if_exists == "fail" and target.exists():
        raise InputError("the file already exists (if_exists='fail')", file=loc)
    return target


def _write_csv(frame: pd.DataFrame, names: list[str], loc: str, o: WriteOptions) -> None:
    target = _file_target(loc, o.if_exists)
    if has_categories(frame):  # categorical columns (compact frames) are written in batches of rows
        write_csv_compact(frame, names, target, loc, o.separator, o.encoding, o.neutralise)
        return
    compact = text_compact(frame, o.encoding)  # text that repeats (a release): each distinct value rendered once
    if compact is not None:
        write_csv_compact(compact, names, target, loc, o.separator, o.encoding, o.neutralise)
        return
    csv._write_csv(frame, names, target, loc, o.separator, o.encoding, o.neutralise)


def _write_parquet(frame: pd.DataFrame, names: list[str], loc: str, o: WriteOptions) -> None:
    target = _file_target(loc, o.if_exists)
    if has_categories(frame):  # categorical columns (compact frames) are written one row group at a time
        write_parquet_compact(frame, names, target, loc)
        return
    parquet._write_parquet(frame, names, target, loc)


def _write_excel(frame: pd.DataFrame, names: list[str], loc: str, o: WriteOptions) -> None:
    excel._write_excel(frame, names, _file_target(loc, o.if_exists), loc, o.sheet, o.neutralise)


def _write_sqlite(frame: pd.DataFrame, names: list[str], loc: str, o: WriteOptions) -> None:
    sqlite._write_sqlite(frame, names, loc, o.table, str(o.if_exists))


def _write_duckdb(frame: pd.DataFrame, names: list[str], loc: str, o: WriteOptions) -> None:
    duckdb._write_duckdb(frame, names, loc, o.table, str(o.if_exists))


def _write_postgresql(frame: pd.DataFrame, names: list[str], loc: str, o: WriteOptions) -> None:
    postgresql._write_postgresql(frame, names, loc, o.table, str(o.if_exists))


# ---------------------------------------------------------------------------------------------- checks


def _check_csv_output(loc: str, o: WriteOptions) -> None:
    csv._separator(o.separator, loc)
    csv._encoding(o.encoding)


def _check_excel_output(loc: str, o: WriteOptions) -> None:
    excel._check_openpyxl(loc)
    excel._sheet_title(o.sheet)


def _check_duckdb_output(loc: str, o: WriteOptions) -> None:
    duckdb._check_duckdb_target(loc, o.table, o.if_exists)


def _check_postgresql_output(loc: str, o: WriteOptions) -> None:
    postgresql._check_postgresql_target(loc, o.table, o.if_exists)


# ---------------------------------------------------------------------------------------------- the registry

_SQL_READ = frozenset({"table", "query"})
_SQL_WRITE = frozenset({"table", "append"})

_REGISTRY: tuple[Format, ...] = (
    Format("csv", "CSV", FILE, suffixes=(".csv", ".txt", ".tsv"), aliases=("tsv", "txt"),
           read_options=frozenset({"separator", "encoding", "quotechar"}),
           write_options=frozenset({"separator", "encoding", "neutralise"}),
           read=_read_csv, write=_write_csv, check_output=_check_csv_output),
    Format("parquet", "Parquet", FILE, suffixes=(".parquet", ".pq"), aliases=("pq",),
           read=_read_parquet, write=_write_parquet),
    Format("sqlite", "SQLite", DATABASE_FILE, suffixes=(".db", ".sqlite", ".sqlite3"), aliases=("sqlite3", "db"),
           read_options=_SQL_READ, write_options=_SQL_WRITE, read=_read_sqlite, write=_write_sqlite,
           sole_table=sqlite.sole_sqlite_table),
    Format("postgresql", "PostgreSQL", SERVER, aliases=("postgres", "pg"), uri_prefixes=postgresql.URI_PREFIXES,
           read_options=_SQL_READ, write_options=_SQL_WRITE, read=_read_postgresql, write=_write_postgresql,
           check_output=_check_postgresql_output, same_table=postgresql._same_postgresql_table),
    Format("excel", "Excel", FILE, suffixes=(".xlsx",), aliases=("xlsx",), unreadable=excel._UNREADABLE,
           read_options=frozenset({"sheet", "header_row"}), write_options=frozenset({"sheet", "neutralise"}),
           read=_read_excel, write=_write_excel, check_output=_check_excel_output),
    Format("duckdb", "DuckDB", DATABASE_FILE, suffixes=(".duckdb", ".ddb"), aliases=("ddb",),
           read_options=_SQL_READ, write_options=_SQL_WRITE, read=_read_duckdb, write=_write_duckdb,
           check_output=_check_duckdb_output, sole_table=duckdb.sole_duckdb_table),
)

#: the names of the registered formats, in the registry's order: what ``input.format`` and
#: ``output.format`` accept
FORMAT_NAMES: tuple[str, ...] = tuple(f.name for f in _REGISTRY)


def formats() -> dict[str, Format]:
    """The registered formats by name, in the registry's order."""
    return {f.name: f for f in _REGISTRY}


def formats_taking(option: str, *, output: bool = True) -> tuple[str, ...]:
    """The names of the formats that take ``option`` when written (``output``) or read."""
    return tuple(f.name for f in _REGISTRY if option in (f.write_options if output else f.read_options))


def _listed(*, readable: bool = False, writable: bool = False) -> str:
    """The registered names as messages list them: ``'csv', …, 'duckdb' or 'postgresql'`` (the formats
    named by a path first, then those named by a URI)."""
    names = [f.name for f in sorted(_REGISTRY, key=lambda f: f.kind == SERVER)
             if (not readable or f.read is not None) and (not writable or f.write is not None)]
    quoted = [f"'{n}'" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def uri_format(loc: str) -> Format | None:
    """The server format whose URI scheme ``loc`` starts with (ignoring case), or ``None``: a file."""
    lower = loc.lower()
    return next((f for f in _REGISTRY if f.uri_prefixes and lower.startswith(f.uri_prefixes)), None)


def format_named(name: object) -> Format:
    """The format registered under ``name`` or one of its aliases (ignoring case and surrounding
    spaces); InputError naming the known formats otherwise."""
    key = name.strip().lower() if isinstance(name, str) else None
    for f in _REGISTRY:
        if key == f.name or key in f.aliases:
            return f
    raise InputError(f"unknown format; use {_listed()}", key="format", value=name)


def format_of(path: str | os.PathLike[str], format: str | None = None) -> tuple[Format, str]:
    """The format a location is read or written in and the location as text: ``format`` when given,
    else the server whose URI the location is, else the file's suffix. InputError for a location that
    is not text or a path, a suffix no format claims (naming the formats), a suffix of a file family
    that is not read (saying what to do) and a server format given a location that is not its URI."""
    try:
        loc = os.fsdecode(path)
    except TypeError:
        raise InputError(f"a path must be text or a path, not {type(path).__name__}") from None
    server = uri_format(loc)
    if format is None:
        if server is not None:
            return server, loc
        suffix = Path(loc).suffix.lower()
        for f in _REGISTRY:
            if suffix in f.suffixes:
                return f, loc
        for f in _REGISTRY:
            advice = dict(f.unreadable).get(suffix)
            if advice is not None:
                raise InputError(advice, file=loc)
        raise InputError(f"cannot tell the format from the file name; pass format={_listed()}", file=loc)
    fmt = format_named(format)
    if fmt.kind == SERVER and fmt.uri_prefixes and not loc.lower().startswith(fmt.uri_prefixes):
        raise InputError(f"a {fmt.title} input must be a URI starting with {fmt.uri_prefixes[0]}", file=loc)
    return fmt, loc
