"""SQLite: reading a table or a query read-only, and writing a table in one transaction.

A table is written into a temporary table that replaces the old one (drop and rename) in the same
transaction; a database file the failed write created is removed. Every error of the driver becomes
a one-line :class:`~anonkit.errors.InputError` naming the file (:func:`_sqlite_errors`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from anonkit import interrupt
from anonkit.errors import InputError
from anonkit.io._files import _remove_new_db, check_file, write_target
from anonkit.io._frames import _apply_na, _check_header, _strings_to_object
from anonkit.io._messages import _one_line
from anonkit.io._sql import _quote_ident

if TYPE_CHECKING:
    import sqlite3


def sole_sqlite_table(path: str | os.PathLike[str]) -> str | None:
    """The name of the only table of a SQLite file (what :func:`read_table` reads without ``table``),
    or ``None`` when the file is missing, unreadable or holds another number of tables."""
    import sqlite3  # here, not at the top: a job that reads no SQLite file never loads the driver (issue 30)

    loc = os.fsdecode(path)
    if not Path(loc).is_file():
        return None
    try:
        with contextlib.closing(_connect(Path(loc), loc, read_only=True)) as con:
            names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    except (InputError, sqlite3.Error):
        return None
    return names[0] if len(names) == 1 else None


@contextlib.contextmanager
def _sqlite_errors(
    message: str, loc: str, *, key: str | None = None, catch: type[sqlite3.Error] | None = None
) -> Iterator[None]:
    """A driver error (of class ``catch``, default any ``sqlite3.Error``) inside, as the one-line InputError
    ``"<message>: <error>"``."""
    import sqlite3

    catch = catch or sqlite3.Error
    try:
        yield
    except catch as exc:
        raise InputError(f"{message}: {_one_line(exc)}", file=loc, key=key) from exc


def _connect(path: Path, loc: str, *, read_only: bool) -> sqlite3.Connection:
    """A connection to the SQLite file ``path``: read-only through a ``mode=ro`` URI (which never
    creates the file), or for writing with the transactions left to the caller; InputError if the
    file cannot be opened."""
    import sqlite3

    with _sqlite_errors("cannot open the SQLite file", loc):
        if read_only:
            return sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
        return sqlite3.connect(path, isolation_level=None)


def _read_sqlite(loc: str, table: str | None, query: str | None, na: frozenset[str]) -> pd.DataFrame:
    import sqlite3

    if check_file(loc) == 0:
        raise InputError("input is empty", file=loc)
    if table is not None and query is not None:
        raise InputError("pass either `table` or `query`, not both", file=loc)
    con = _connect(Path(loc), loc, read_only=True)
    with _sqlite_errors("cannot read the SQLite file", loc), contextlib.closing(con):
        with _sqlite_errors("not a valid SQLite database", loc, catch=sqlite3.DatabaseError):
            tables = [
                r[0]
                for r in con.execute(
                    "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                    "AND name NOT LIKE 'sqlite_%' ORDER BY name"
                )
            ]
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
        with _sqlite_errors("the SQL query failed", loc, key="query"):
            cursor = con.execute(sql)
            if cursor.description is None:
                raise InputError("the query returns no columns (not a SELECT?)", file=loc, key="query")
            names = [str(d[0]) for d in cursor.description]
            _check_header(names, loc)
            rows = cursor.fetchall()
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
    import sqlite3

    if table is None or table == "":
        raise InputError("writing SQLite needs a table name: pass `table`", file=loc, key="table")
    target = write_target(loc)
    existed = target.exists()
    quoted = _quote_ident(table)
    typed = [_sql_column(frame.iloc[:, i]) for i in range(frame.shape[1])]
    columns = [values for _, values in typed]
    cols = ", ".join(_quote_ident(n) for n in names)
    marks = ", ".join("?" for _ in names)
    con = _connect(target, loc, read_only=False)
    try:
        with contextlib.closing(con):
            with _sqlite_errors("not a valid SQLite database", loc, catch=sqlite3.DatabaseError):
                # Rename without re-checking views that name the table being replaced.
                con.execute("PRAGMA legacy_alter_table = ON")
                con.execute("BEGIN IMMEDIATE")
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
        _remove_new_db(target, existed, "-journal")
        bad = _bad_sql_cell(names, columns)
        if bad is not None:
            name, row, value = bad
            raise InputError("SQLite cannot store this value", column=name, value=value, row=row) from exc
        raise InputError(f"cannot write the SQLite table: {_one_line(exc)}", file=loc, value=table) from exc
    except BaseException:
        _remove_new_db(target, existed, "-journal")
        raise

