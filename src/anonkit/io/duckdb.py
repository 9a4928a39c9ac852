"""DuckDB database files (``.duckdb``, ``.ddb``), through the optional duckdb package
(``pip install "anonkit[duckdb]"``).

*Reading* opens the file read-only and reads a table (or view) whole, or the result of a query,
as an Arrow table that becomes a frame the way Parquet is read (:func:`~anonkit.io._frames._from_arrow`):
numbers keep their types, text is ``str`` with ``None`` for missing, an ENUM reads as its text.
Without ``table`` and ``query`` a file holding exactly one table is read whole (as for SQLite).
Names are matched as DuckDB does, ignoring case; a table outside the ``main`` schema is named
``schema.table``.

*Writing* creates a table (or with ``if_exists="append"`` adds rows to one) in a single
transaction: the frame goes in as an Arrow table, ``replace`` is ``CREATE OR REPLACE TABLE … AS``,
``append`` is ``INSERT … BY NAME``; any failure rolls back and leaves the file as it was (a file the
failed write created is removed). DuckDB never downloads an extension here (a SQLite file opened as
DuckDB is refused, not attached).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd
import pyarrow as pa

from anonkit import interrupt
from anonkit.errors import InputError
from anonkit.io._files import _remove_new_db, check_file, write_target
from anonkit.io._frames import _apply_na, _check_header, _from_arrow, _to_arrow
from anonkit.io._messages import _one_line, _optional
from anonkit.io._sql import _quote_ident

#: no extension is installed or loaded behind the user's back (a SQLite file would fetch one)
_CONFIG = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
_SQLITE_MAGIC = b"SQLite format 3\x00"


def _duckdb(action: str, loc: str) -> ModuleType:
    """The duckdb module; InputError naming the extra if it is not installed."""
    return _optional("duckdb", "duckdb", "DuckDB files", action, loc)


def _check_duckdb_target(loc: str, table: str | None, if_exists: str | None) -> None:
    """Before any work: duckdb (the ``duckdb`` extra) is installed, an existing file is a DuckDB
    database that can be opened, and with ``if_exists="fail"`` the table is not in it yet."""
    db = _duckdb("writing", loc)
    path = Path(loc)
    if not path.is_file() or path.stat().st_size == 0:
        return
    con = _connect(db, path, loc, read_only=True)
    with contextlib.closing(con), _duckdb_errors(db, "cannot read the DuckDB file", loc):
        exists = table is not None and con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
            "AND schema_name = 'main' AND lower(table_name) = lower(?)", [table]
        ).fetchone()[0]
    if exists and if_exists == "fail":
        raise InputError("the table already exists (if_exists='fail')", file=loc, key="if_exists", value=table)


@contextlib.contextmanager
def _duckdb_errors(db: ModuleType, message: str, loc: str, *, key: str | None = None,
                   value: str | None = None) -> Iterator[None]:
    """A DuckDB error inside, as the one-line InputError ``"<message>: <error>"``."""
    try:
        yield
    except db.Error as exc:
        raise InputError(f"{message}: {_one_line(exc)}", file=loc, key=key, value=value) from exc


def _connect(db: ModuleType, path: Path, loc: str, *, read_only: bool) -> Any:
    """A connection to the DuckDB file ``path`` (read-only: never creates it); InputError if the file
    is not a DuckDB database or cannot be opened (locked by another process, a newer format)."""
    with contextlib.suppress(OSError), open(path, "rb") as fh:
        if fh.read(len(_SQLITE_MAGIC)) == _SQLITE_MAGIC:
            raise InputError("this is a SQLite database, not DuckDB; name it .db or .sqlite, or pass format='sqlite'",
                             file=loc)
    with _duckdb_errors(db, "cannot open the DuckDB file", loc):
        return db.connect(str(path), read_only=read_only, config=dict(_CONFIG))


def _tables(con: Any) -> list[tuple[str, str, str]]:
    """``(shown name, schema, name)`` of every table and view of the file, by shown name; the shown
    name is the bare name in the ``main`` schema, else ``schema.name``."""
    rows = con.execute(
        "SELECT schema_name, table_name FROM duckdb_tables() WHERE NOT internal AND NOT temporary "
        "AND database_name = current_database() "
        "UNION ALL SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal AND NOT temporary "
        "AND database_name = current_database()"
    ).fetchall()
    shown = [(name if schema == "main" else f"{schema}.{name}", schema, name) for schema, name in rows]
    return sorted(shown, key=lambda t: (t[0].lower(), t[0]))


def sole_duckdb_table(path: str | os.PathLike[str]) -> str | None:
    """The name of the only table (or view) of a DuckDB file (what :func:`~anonkit.io.read_table`
    reads without ``table``), or ``None`` when the file is missing, unreadable, not DuckDB, holds
    another number of tables, or duckdb is not installed."""
    loc = os.fsdecode(path)
    if not Path(loc).is_file():
        return None
    try:
        db = _duckdb("reading", loc)
        con = _connect(db, Path(loc), loc, read_only=True)
    except InputError:
        return None
    try:
        with contextlib.closing(con):
            names = _tables(con)
    except db.Error:
        return None
    return names[0][0] if len(names) == 1 else None


def _arrow(relation: Any) -> pa.Table:
    """A relation's rows as one Arrow table (``to_arrow_table`` in duckdb ≥ 1.1, else ``arrow``)."""
    fetch = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
    data = fetch()
    return data if isinstance(data, pa.Table) else data.read_all()


def _plain_dictionaries(data: pa.Table) -> pa.Table:
    """ENUM columns (Arrow dictionaries) as plain columns of their values."""
    for i, field in enumerate(data.schema):
        if pa.types.is_dictionary(field.type):
            data = data.set_column(i, field.name, data.column(i).cast(field.type.value_type))
    return data


def _read_duckdb(loc: str, table: str | None, query: str | None, na: frozenset[str]) -> pd.DataFrame:
    db = _duckdb("reading", loc)
    if check_file(loc) == 0:
        raise InputError("input is empty", file=loc)
    if table is not None and query is not None:
        raise InputError("pass either `table` or `query`, not both", file=loc)
    con = _connect(db, Path(loc), loc, read_only=True)
    with contextlib.closing(con):
        with _duckdb_errors(db, "cannot read the DuckDB file", loc):
            tables = _tables(con)
        listed = ", ".join(t[0] for t in tables) if tables else "none"
        if query is None:
            if table is None:
                if len(tables) != 1:
                    raise InputError(f"pass `table` or `query`; the database has tables: {listed}", file=loc,
                                     key="table")
                found = tables[0]
            else:
                if not isinstance(table, str) or not table:
                    raise InputError("a table name must be non-empty text", file=loc, key="table", value=table)
                matches = [t for t in tables if t[0] == table] or [t for t in tables if t[0].lower() == table.lower()]
                if not matches:
                    raise InputError(f"unknown table; the database has tables: {listed}", file=loc, key="table",
                                     value=table)
                found = matches[0]
            sql = f"SELECT * FROM {_quote_ident(found[1])}.{_quote_ident(found[2])}"
            message, key, value = "cannot read the DuckDB table", "table", found[0]
        else:
            if not isinstance(query, str) or not query.strip():
                raise InputError("the query must be non-empty SQL text", file=loc, key="query")
            sql, message, key, value = query, "the SQL query failed", "query", None
        with _duckdb_errors(db, message, loc, key=key, value=value):
            relation = con.sql(sql)
            if relation is None:
                raise InputError("the query returns no rows (not a SELECT?)", file=loc, key="query")
            data = _arrow(relation)
    _check_header([str(n) for n in data.schema.names], loc)
    if data.num_rows == 0:
        raise InputError("input is empty: no data rows", file=loc)
    return _apply_na(_from_arrow(_plain_dictionaries(data), "the DuckDB result", loc, nullable_ints=True), na)


def _arrow_rows(frame: pd.DataFrame, names: list[str]) -> pa.Table:
    """The frame as an Arrow table; InputError naming the column, value and row DuckDB cannot take."""
    try:
        return _to_arrow(frame, names)
    except InputError as exc:
        raise InputError(exc.message.replace("Parquet", "DuckDB"), column=exc.column, value=exc.value,
                         row=exc.row) from exc


def _fill(con: Any, quoted: str, source: str, append: bool) -> None:
    """The statement that writes the rows of the registered view ``source`` into the table ``quoted``."""
    if append:
        con.execute(f"INSERT INTO {quoted} BY NAME SELECT * FROM {source}")
    else:
        con.execute(f"CREATE OR REPLACE TABLE {quoted} AS SELECT * FROM {source}")


def _write_duckdb(frame: pd.DataFrame, names: list[str], loc: str, table: str | None, if_exists: str) -> None:
    """Write ``frame`` to the table ``table`` of the DuckDB file ``loc`` in one transaction."""
    db = _duckdb("writing", loc)
    if table is None or table == "":
        raise InputError("writing DuckDB needs a table name: pass `table`", file=loc, key="table")
    quoted = _quote_ident(table)
    target = write_target(loc)
    rows = _arrow_rows(frame, names)
    if target.is_file() and target.stat().st_size == 0:
        with contextlib.suppress(OSError):  # an empty file (as `touch` makes) holds no data; DuckDB cannot open it
            target.unlink()
    existed = target.exists()
    view = f"_anonkit_rows_{uuid.uuid4().hex}"
    try:
        con = _connect(db, target, loc, read_only=False)
        with contextlib.closing(con):
            con.register(view, rows)
            con.execute("BEGIN TRANSACTION")
            try:
                exists = con.execute(
                    "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
                    "AND schema_name = 'main' AND lower(table_name) = lower(?)", [table]
                ).fetchone()[0]
                if exists and if_exists == "fail":
                    raise InputError("the table already exists (if_exists='fail')", file=loc, value=table)
                _fill(con, quoted, _quote_ident(view), append=bool(exists) and if_exists == "append")
                with interrupt.committing(f"{loc}#{table}"):
                    con.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(db.Error):
                    con.execute("ROLLBACK")
                raise
    except db.Error as exc:
        _remove_new_db(target, existed, ".wal")
        raise InputError(f"cannot write the DuckDB table: {_one_line(exc)}", file=loc, value=table) from exc
    except BaseException:
        _remove_new_db(target, existed, ".wal")
        raise

