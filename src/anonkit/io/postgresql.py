"""PostgreSQL: reading a table or a query and writing a table, through the optional ADBC driver
(``pip install anonkit[postgres]``).

The location is a ``postgresql://`` URI; its password never appears in a message: the URI is shown
masked (:func:`~anonkit.io._messages._shown`) and a driver error quoting it has the password
replaced (:func:`_postgresql_errors`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pandas as pd

from anonkit import interrupt
from anonkit.errors import InputError
from anonkit.io._frames import _apply_na, _check_header, _from_arrow, _to_arrow
from anonkit.io._messages import _one_line, _shown
from anonkit.io._sql import _quote_ident


def _no_driver(action: str, shown: str) -> InputError:
    """The error for a missing driver; ``action`` is ``"reading"`` or ``"writing"``."""
    return InputError(
        f"{action} PostgreSQL needs the optional adbc-driver-postgresql package: pip install anonkit[postgres]",
        file=shown,
    )


def _check_driver(shown: str) -> None:
    """InputError if the driver is not installed (it is imported, nothing is connected)."""
    try:
        import adbc_driver_postgresql  # noqa: F401
    except ImportError:
        raise _no_driver("writing", shown) from None


def _dbapi(action: str, shown: str) -> Any:
    """The driver's DB-API module; InputError if the driver is not installed."""
    try:
        from adbc_driver_postgresql import dbapi
    except ImportError as exc:
        raise _no_driver(action, shown) from exc
    return dbapi


@contextlib.contextmanager
def _postgresql_errors(
    uri: str, message: str, *, value: str | None = None, unknown_table: str | None = None
) -> Iterator[None]:
    """Any error inside, as the one-line InputError ``"<message>: <error>"`` with the URI's password
    masked (a driver error may quote the URI); with ``unknown_table``, PostgreSQL's "undefined
    table" (SQLSTATE 42P01) is the InputError "unknown table" naming it."""
    shown = _shown(uri)
    secret = urlsplit(uri).password if "@" in uri else None
    try:
        yield
    except Exception as exc:
        if unknown_table is not None and getattr(exc, "sqlstate", None) == "42P01":
            raise InputError("unknown table", file=shown, value=unknown_table) from exc
        text = _one_line(exc)
        if secret:
            text = text.replace(secret, "***")
        raise InputError(f"{message}: {text}", file=shown, value=value) from exc


def _write_postgresql(frame: pd.DataFrame, names: list[str], uri: str, table: str | None, if_exists: str) -> None:
    """Write ``frame`` to a PostgreSQL table through ADBC's bulk ingest, in one transaction.

    PostgreSQL's DDL is transactional, so ``replace`` (drop and create) and the copy of the rows
    commit together or not at all: the write is atomic like the file writes.
    """
    shown = _shown(uri)
    pg = _dbapi("writing", shown)
    if not table:
        raise InputError("writing to PostgreSQL needs a table name", file=shown, key="table")
    schema_name, _, name = table.rpartition(".")
    arrow = _to_arrow(frame, names)
    mode = {"replace": "replace", "append": "append", "fail": "create"}[if_exists]
    with _postgresql_errors(uri, "writing PostgreSQL failed", value=table), pg.connect(uri) as conn:
        with conn.cursor() as cursor:
            kwargs = {"db_schema_name": schema_name} if schema_name else {}
            cursor.adbc_ingest(name, arrow, mode=mode, **kwargs)
        with interrupt.committing(f"{shown}#{table}"):
            conn.commit()


def _read_postgresql(uri: str, table: str | None, query: str | None, na: frozenset[str]) -> pd.DataFrame:
    shown = _shown(uri)
    pg = _dbapi("reading", shown)
    if table is not None and query is not None:
        raise InputError("pass either `table` or `query`, not both", file=shown)
    if table is None and query is None:
        raise InputError("pass `table` or `query` to read from PostgreSQL", file=shown, key="table")
    if table is not None:
        sql = "SELECT * FROM " + ".".join(_quote_ident(part) for part in table.split(".", 1))
    else:
        sql = str(query)
    reading = _postgresql_errors(uri, "reading PostgreSQL failed", unknown_table=table)
    with reading, pg.connect(uri) as conn, conn.cursor() as cursor:
        cursor.execute(sql)
        data = cursor.fetch_arrow_table()
    _check_header([str(n) for n in data.schema.names], shown)
    if data.num_rows == 0:
        raise InputError("input is empty: no data rows", file=shown)
    return _apply_na(_from_arrow(data, "the PostgreSQL result", shown), na)
