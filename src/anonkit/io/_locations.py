"""Where a table is: the format of a path or URI (from ``format`` or the suffix).

A PostgreSQL location is a ``postgresql://`` / ``postgres://`` URI; every other location is a file
whose suffix names its format unless ``format`` does.
"""

from __future__ import annotations

import os
from pathlib import Path

from anonkit.errors import InputError

FORMATS: tuple[str, ...] = ("csv", "parquet", "sqlite", "postgresql", "excel", "duckdb")
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
    ".xlsx": "excel",
    ".duckdb": "duckdb",
    ".ddb": "duckdb",
}
#: spreadsheet suffixes anonkit cannot read, with what to do instead
_UNREADABLE = {
    ".xls": "the old Excel format .xls cannot be read; save the workbook as .xlsx (Excel Workbook)",
    ".xlsm": "macro-enabled workbooks are not read; save the workbook as .xlsx (Excel Workbook)",
    ".xlsb": "binary Excel workbooks are not read; save the workbook as .xlsx (Excel Workbook)",
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
    "excel": "excel",
    "xlsx": "excel",
    "duckdb": "duckdb",
    "ddb": "duckdb",
    "postgresql": "postgresql",
    "postgres": "postgresql",
    "pg": "postgresql",
}
_PG_PREFIXES = ("postgresql://", "postgres://")


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
        if fmt is None and suffix in _UNREADABLE:
            raise InputError(_UNREADABLE[suffix], file=loc)
        if fmt is None:
            raise InputError(
                "cannot tell the format from the file name; pass format='csv', 'parquet', 'sqlite', 'excel', "
                "'duckdb' or 'postgresql'",
                file=loc,
            )
        return fmt, loc
    fmt = _ALIASES.get(str(format).strip().lower()) if isinstance(format, str) else None
    if fmt is None:
        raise InputError("unknown format; use 'csv', 'parquet', 'sqlite', 'excel', 'duckdb' or 'postgresql'",
                         key="format", value=format)
    if fmt == "postgresql" and not is_uri:
        raise InputError("a PostgreSQL input must be a URI starting with postgresql://", file=loc)
    return fmt, loc
