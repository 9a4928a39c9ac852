"""PostgreSQL: reading a table or a query and writing a table, through the optional ADBC driver
(``pip install anonkit[postgres]``).

The location is a ``postgresql://`` URI; its password never appears in a message: the URI is shown
masked (:func:`anonkit.io.shown`) and a driver error quoting the password has it replaced
(:func:`_postgresql_errors`).

A table is ``name`` or ``schema.name``, each part quoted as an identifier (so ``People`` is the table
``"People"``, not ``people``); an unqualified name is read from the first schema of the
``search_path`` that has it and written to the first schema of the ``search_path`` that exists
(``current_schema()``), as PostgreSQL does.

*Reading* runs in a read-only transaction that is never committed. Column types follow the server's:
integers stay integers, text is text, ``numeric`` becomes integers when every value is whole and
fits 64 bits, else :class:`decimal.Decimal` cells (exact: every digit the server holds, ``NaN`` and
``±Infinity`` included — never a ``float64`` that would round past 15 digits); ``uuid``, ``json`` and
enums become text. Types with no plain value — arrays, composite types, ranges, intervals, ``xml``, ``inet``,
bit strings — and ``money`` (which the driver reads as cents) are refused naming the column: cast
them in a ``query`` (``col::text``, ``col::numeric``).

*Writing* is one transaction, through ADBC's bulk ingest (``COPY``): ``if_exists="fail"`` creates the
table and refuses an existing one, ``"append"`` adds to it, and ``"replace"`` either replaces the
rows of a table that has exactly the columns to write (``DELETE`` and copy: concurrent readers see
the old rows or the new ones, and the table keeps its indexes, grants, triggers and views) or drops
the table and creates it anew (other columns: its indexes, grants and triggers go with it, a view on
it makes the write fail, and a reader that waited for the table may find it empty — PostgreSQL's
DDL is not MVCC-safe). Each goes with the copy of every row in the same transaction, so a failure
at any row leaves the database as it was (no new, emptied or partial table). Column types: ``int64`` →
``bigint``, ``int32``/``int16`` → ``integer``/``smallint``, ``float64`` → ``double precision``,
:class:`decimal.Decimal` cells → ``numeric`` (exact; so a ``numeric`` column read and written back stays
``numeric`` with its digits), text and categories → ``text``, ``bool`` → ``boolean``, dates and
times → ``date``/``timestamp``.
Refused before connecting, naming the cell: text holding a NUL character and unsigned integers beyond
``bigint``; a table or column name longer than 63 bytes (PostgreSQL would silently truncate it).
"""

from __future__ import annotations

import contextlib
import decimal
import re
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit, urlunsplit

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from anonkit import interrupt
from anonkit._secrets import mask_secrets
from anonkit.errors import InputError
from anonkit.io._frames import _apply_na, _check_header, _from_arrow, _to_arrow
from anonkit.io._messages import _one_line
from anonkit.io._messages import shown as _shown
from anonkit.io._sql import _quote_ident

_MAX_NAME_BYTES = 63  # NAMEDATALEN - 1: PostgreSQL truncates longer identifiers
_INT64_MAX = 2**63 - 1
#: the URI schemes of a PostgreSQL location (matched ignoring case)
URI_PREFIXES = ("postgresql://", "postgres://")
_DEFAULT_PORT = 5432
_LOOPBACK = "loopback"
_MODES = {"replace": "replace", "append": "append", "fail": "create"}


def _no_driver(action: str, shown: str) -> InputError:
    """The error for a missing driver; ``action`` is ``"reading"`` or ``"writing"``."""
    return InputError(
        f"{action} PostgreSQL needs the optional adbc-driver-postgresql package: pip install anonkit[postgres]",
        file=shown,
    )


def _dbapi(action: str, shown: str) -> Any:
    """The driver's DB-API module; InputError if the driver is not installed."""
    try:
        from adbc_driver_postgresql import dbapi
    except ImportError as exc:
        raise _no_driver(action, shown) from exc
    return dbapi


# ------------------------------------------------------------------------------------ messages


def _driver_text(exc: BaseException, uri: str) -> str:
    """A driver error on one line, without ADBC's status and ``[libpq]`` prefixes, the SQL anonkit ran,
    or any spelling of a secret of ``uri`` (:func:`anonkit._secrets.mask_secrets`)."""
    text = _one_line(exc, limit=4000)
    text = re.sub(r"^[A-Z_]+: ", "", text).replace("[libpq] ", "").replace("PGRES_FATAL_ERROR ", "")
    text = re.sub(r"\.? ?Query was: .*$", "", text)
    text = re.sub(r"\.? ?SQLSTATE: \w+$", "", text).strip()
    text = mask_secrets(text, also=[uri])
    return text if len(text) <= 300 else text[:297] + "..."


def _sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE of a driver error: as ADBC gives it, from the server's diagnostics, or for the bulk
    ingest's "already exists" (which carries none) 42P07."""
    state = getattr(exc, "sqlstate", None)
    if state:
        return str(state)
    for key, value in getattr(exc, "details", None) or []:
        if key == b"PG_DIAG_SQLSTATE":
            return bytes(value).decode("ascii", "replace")
    status = getattr(getattr(exc, "status_code", None), "name", None)
    return "42P07" if status == "ALREADY_EXISTS" else None


@contextlib.contextmanager
def _postgresql_errors(
    uri: str,
    message: str,
    *,
    value: str | None = None,
    key: str | None = None,
    unknown_table: str | None = None,
    existing_table: str | None = None,
) -> Iterator[None]:
    """Any error inside, as the one-line InputError ``"<message>: <error>"`` with the URI's password
    masked; with ``unknown_table``, "undefined table" (SQLSTATE 42P01) is the InputError "unknown
    table" naming it; with ``existing_table``, "duplicate table" (42P07) says how to replace it; a
    server asking for a password that was not given says where to give it."""
    shown = _shown(uri)
    try:
        yield
    except InputError:
        raise
    except Exception as exc:
        state = _sqlstate(exc)
        if unknown_table is not None and state == "42P01":
            raise InputError("unknown table", file=shown, value=unknown_table) from None
        if existing_table is not None and state == "42P07":
            raise _exists(shown, existing_table) from None
        if state == "3F000":
            raise InputError("unknown schema", file=shown, value=value or unknown_table) from None
        text = _driver_text(exc, uri)
        if "no password supplied" in text:  # a URI without one (as a run's summary records it)
            text += "; give the password in the URI, PGPASSWORD or ~/.pgpass"
        raise InputError(f"{message}: {text}", file=shown, key=key, value=value) from None


# ------------------------------------------------------------------------------------ names


def _name_part(part: str, table: str, shown: str) -> str:
    if not part:
        raise InputError("a PostgreSQL table is `name` or `schema.name`", file=shown, key="table", value=table)
    if len(part.encode("utf-8", "surrogatepass")) > _MAX_NAME_BYTES:
        raise InputError(f"PostgreSQL names are at most {_MAX_NAME_BYTES} bytes (a longer one is truncated)",
                         file=shown, key="table", value=table)
    _quote_ident(part)  # refuses a NUL character
    return part


def _table_parts(table: object, shown: str) -> tuple[str | None, str]:
    """``(schema or None, name)`` of ``name`` or ``schema.name``; InputError for anything else."""
    if not isinstance(table, str) or not table:
        raise InputError("a table name must be non-empty text", file=shown, key="table", value=table)
    parts = table.split(".")
    if len(parts) > 2:
        raise InputError("a PostgreSQL table is `name` or `schema.name`", file=shown, key="table", value=table)
    parts = [_name_part(p, table, shown) for p in parts]
    return (parts[0], parts[1]) if len(parts) == 2 else (None, parts[0])


def _check_columns(names: list[str]) -> None:
    for name in names:
        if "\x00" in name:
            raise InputError("a PostgreSQL column name cannot hold a NUL character", column=name)
        if len(name.encode("utf-8", "surrogatepass")) > _MAX_NAME_BYTES:
            raise InputError(f"PostgreSQL column names are at most {_MAX_NAME_BYTES} bytes (a longer one is "
                             "truncated)", column=name)


# ------------------------------------------------------------------------------------ writing


def _first(mask: pa.ChunkedArray | pa.Array) -> int | None:
    """The index of the first true cell of a boolean array, or ``None``."""
    hits = pc.indices_nonzero(pc.fill_null(mask, False))
    return None if len(hits) == 0 else int(hits[0].as_py())


#: the most digits an exact Arrow decimal (decimal256) holds; a ``numeric`` cell beyond is refused on writing
DECIMAL_DIGITS = 76


def _decimal_array(column: pd.Series, name: str) -> pa.Array | None:
    """An object column whose cells are all :class:`~decimal.Decimal` (or missing) as an exact Arrow
    decimal, which the driver copies into a ``numeric`` column; ``None`` for any other column.
    InputError naming the cell for a value no Arrow decimal holds (``NaN``, ``±Infinity``, too many digits)."""
    if column.dtype != object:
        return None
    cells = column.to_numpy(dtype=object)
    present = [v for v in cells if v is not None and v is not pd.NA and not (isinstance(v, float) and v != v)]
    if not present or not all(isinstance(v, decimal.Decimal) for v in present):
        return None
    scale, whole = 0, 1
    for row, v in enumerate(cells):
        if not isinstance(v, decimal.Decimal):
            continue
        if not v.is_finite():
            raise InputError("PostgreSQL numeric NaN or Infinity cannot be written exactly through the driver; "
                             "replace it (or write the column as text)", column=name, value=str(v), row=row + 1)
        _sign, digits, exponent = v.as_tuple()
        scale = max(scale, -int(exponent))
        whole = max(whole, len(digits) + int(exponent))
    if whole + scale > DECIMAL_DIGITS:
        raise InputError(f"this numeric value has more than {DECIMAL_DIGITS} digits, more than the driver writes "
                         "exactly", column=name, value=str(next(v for v in present)), row=None)
    kind = pa.decimal128 if whole + scale <= 38 else pa.decimal256
    return pa.array([v if isinstance(v, decimal.Decimal) else None for v in cells], kind(whole + scale, scale))


def _for_postgresql(frame: pd.DataFrame, names: list[str]) -> pa.Table:
    """The frame as the Arrow table to copy; InputError naming the first cell PostgreSQL cannot store.
    Decimal columns go as exact Arrow decimals (``numeric``), the rest as :func:`_to_arrow` gives them."""
    exact = {n: a for n, a in ((n, _decimal_array(frame[n], n)) for n in names) if a is not None}
    try:
        data = _to_arrow(frame.drop(columns=list(exact)), [n for n in names if n not in exact])
    except InputError as exc:
        message = exc.message.replace("in Parquet", "in PostgreSQL").replace("to Parquet", "for PostgreSQL")
        raise InputError(message, column=exc.column, value=exc.value, row=exc.row) from None
    for name, array in exact.items():
        data = data.add_column(names.index(name), name, array)
    for i, field in enumerate(data.schema):
        column = data.column(i)
        kind = field.type.value_type if pa.types.is_dictionary(field.type) else field.type
        if pa.types.is_uint64(field.type):
            at = _first(pc.greater(column, pa.scalar(_INT64_MAX, pa.uint64())))
            if at is not None:
                raise InputError("PostgreSQL cannot store this value (larger than a bigint)", column=field.name,
                                 value=column[at].as_py(), row=at + 1)
            data = data.set_column(i, field.name, pc.cast(column, pa.int64()))
        elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
            text = column.cast(kind) if kind is not field.type else column
            at = _first(pc.match_substring(text, "\x00"))
            if at is not None:
                raise InputError("PostgreSQL text cannot hold a NUL character", column=field.name,
                                 value=text[at].as_py(), row=at + 1)
    return data


def _check_postgresql_target(uri: str, table: str | None, if_exists: str | None = None) -> None:
    """Before any work: the driver is installed, the table name is valid, the server takes the login,
    the database and a named schema exist, and with ``if_exists="fail"`` the table does not exist yet
    (each an InputError naming the URI, masked, and the table or key)."""
    shown = _shown(uri)
    pg = _dbapi("writing", shown)
    if table is None or table == "":
        raise InputError("writing to PostgreSQL needs a table name", file=shown, key="table")
    schema_name, name = _table_parts(table, shown)
    probing = _postgresql_errors(uri, "cannot connect to PostgreSQL", value=table)
    with probing, pg.connect(uri) as conn, conn.cursor() as cursor:
        if schema_name is not None:
            cursor.execute("SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = $1", (schema_name,))
            if cursor.fetchone()[0] == 0:
                raise InputError("unknown schema", file=shown, key="table", value=table)
        if if_exists == "fail":
            cursor.execute("SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
                           "ON n.oid = c.relnamespace WHERE c.relname = $1 AND n.nspname = "
                           "COALESCE($2, current_schema())", (name, schema_name))
            if cursor.fetchone()[0] > 0:
                raise _exists(shown, table)


def _exists(shown: str, table: str) -> InputError:
    return InputError("the table already exists: pass if_exists='replace' (output.if_exists: replace) to replace it",
                      file=shown, key="if_exists", value=table)


def _created_type(kind: pa.DataType) -> str | None:
    """The column type ADBC's ingest creates for an Arrow type (as ``format_type`` names it), or ``None``."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if pa.types.is_timestamp(kind):
        return "timestamp with time zone" if kind.tz else "timestamp without time zone"
    for test, name in _CREATED:
        if test(kind):
            return name
    return None


_CREATED = (
    (pa.types.is_int64, "bigint"), (pa.types.is_uint32, "bigint"), (pa.types.is_int32, "integer"),
    (pa.types.is_uint16, "integer"), (pa.types.is_int16, "smallint"), (pa.types.is_int8, "smallint"),
    (pa.types.is_uint8, "smallint"), (pa.types.is_float64, "double precision"), (pa.types.is_float32, "real"),
    (pa.types.is_string, "text"), (pa.types.is_large_string, "text"), (pa.types.is_boolean, "boolean"),
    (pa.types.is_decimal, "numeric"),
    (pa.types.is_binary, "bytea"), (pa.types.is_large_binary, "bytea"), (pa.types.is_date32, "date"),
)


def _replace_rows(cursor: Any, schema_name: str | None, name: str, data: pa.Table) -> bool:
    """When the table exists with exactly the columns the frame would create (names, order, types),
    replace its rows in the current transaction (``DELETE`` then the copy) and return True.

    Unlike dropping and re-creating it, this is safe for concurrent readers (each sees the old rows or
    the new ones, never an empty table) and keeps the table's indexes, grants, triggers and the views
    on it."""
    wanted = [(f.name, _created_type(f.type)) for f in data.schema]
    if any(t is None for _, t in wanted):
        return False
    cursor.execute(
        "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a "
        "JOIN pg_catalog.pg_class c ON c.oid = a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        "WHERE c.relname = $1 AND n.nspname = COALESCE($2, current_schema()) AND c.relkind IN ('r', 'p') "
        "AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum", (name, schema_name))
    if [(str(n), str(t)) for n, t in cursor.fetchall()] != wanted:
        return False
    qualified = ".".join(_quote_ident(p) for p in (schema_name, name) if p is not None)
    if schema_name is None:
        cursor.execute("SELECT current_schema()")
        qualified = f"{_quote_ident(str(cursor.fetchone()[0]))}.{qualified}"
    cursor.execute(f"DELETE FROM {qualified}")
    cursor.adbc_ingest(name, data, mode="append", **({"db_schema_name": schema_name} if schema_name else {}))
    return True


def _write_postgresql(frame: pd.DataFrame, names: list[str], uri: str, table: str | None, if_exists: str) -> None:
    """Write ``frame`` to a PostgreSQL table through ADBC's bulk ingest, in one transaction (see the
    module's docstring)."""
    shown = _shown(uri)
    pg = _dbapi("writing", shown)
    if table is None or table == "":
        raise InputError("writing to PostgreSQL needs a table name", file=shown, key="table")
    schema_name, name = _table_parts(table, shown)
    _check_columns(names)
    arrow = _for_postgresql(frame, names)
    kwargs = {"db_schema_name": schema_name} if schema_name else {}
    existing = table if if_exists == "fail" else None
    writing = _postgresql_errors(uri, "writing PostgreSQL failed", value=table, existing_table=existing)
    with writing, pg.connect(uri) as conn:
        with conn.cursor() as cursor:
            if if_exists != "replace" or not _replace_rows(cursor, schema_name, name, arrow):
                cursor.adbc_ingest(name, arrow, mode=_MODES[if_exists], **kwargs)
        with interrupt.committing(f"{shown}#{table}"):
            conn.commit()


# ------------------------------------------------------------------------------------ reading


def _typname(field: pa.Field) -> str:
    meta = field.metadata or {}
    raw = meta.get(b"ADBC:postgresql:typname") or meta.get(b"POSTGRESQL:type") or str(field.type).encode()
    return raw.decode("utf-8", "replace")


def _numeric(text: pa.ChunkedArray) -> pa.ChunkedArray:
    """A ``numeric`` column (its text): integers when every value is whole and fits 64 bits, else the
    text, which :func:`_decimals` makes exact :class:`~decimal.Decimal` cells."""
    whole = pc.match_substring_regex(text, r"^-?[0-9]+$")
    if pc.all(pc.fill_null(whole, True)).as_py():
        with contextlib.suppress(pa.ArrowInvalid):
            return pc.cast(text, pa.int64())
    return text


def _decimals(frame: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """The ``numeric`` columns read as text made :class:`~decimal.Decimal` cells (missing stays missing)."""
    for name in names:
        frame[name] = pd.Series([None if v is None or v is pd.NA or (isinstance(v, float) and v != v)
                                 else decimal.Decimal(str(v)) for v in frame[name].to_numpy(dtype=object)],
                                index=frame.index, dtype=object, name=name)
    return frame


def _storage(column: pa.ChunkedArray, kind: pa.BaseExtensionType) -> pa.ChunkedArray:
    """The cells of an extension-typed column as its storage type (the text of ``numeric``, ``json``)."""
    return pa.chunked_array([c.storage for c in column.chunks], kind.storage_type)


def _plain_columns(data: pa.Table, shown: str) -> tuple[pa.Table, list[str]]:
    """Server types pandas would not read as plain values, made plain: ``numeric`` as numbers,
    ``uuid``, ``json`` and the like as text; InputError naming a column of a type that has no plain
    form (``money`` too: the driver reads it as a whole number of cents). Also the ``numeric`` columns
    left as text, for :func:`_decimals`."""
    decimals: list[str] = []
    for i, field in enumerate(data.schema):
        kind = field.type
        typname = _typname(field)
        if typname == "money":
            raise _unreadable(field, typname, "numeric", shown)
        if not isinstance(kind, pa.BaseExtensionType) and not (
            pa.types.is_nested(kind) or pa.types.is_interval(kind)
        ):
            continue
        column = data.column(i)
        if isinstance(kind, pa.OpaqueType) and kind.type_name == "numeric":
            plain = _numeric(_storage(column, kind))
            if not pa.types.is_int64(plain.type):
                decimals.append(field.name)
        elif isinstance(kind, pa.UuidType):
            plain = pa.chunked_array([pa.array([None if b is None else str(uuid.UUID(bytes=b))
                                                for b in c.storage.to_pylist()], pa.string())
                                      for c in column.chunks], pa.string())
        elif isinstance(kind, pa.BaseExtensionType) and pa.types.is_string(kind.storage_type):
            plain = _storage(column, kind)
        else:
            raise _unreadable(field, typname, "text", shown)
        data = data.set_column(i, pa.field(field.name, plain.type), plain)
    return data, decimals


def _unreadable(field: pa.Field, typname: str, cast: str, shown: str) -> InputError:
    return InputError(f"cannot read the PostgreSQL type {typname}: cast it to {cast} in a query "
                      f"(query: SELECT …, {_quote_ident(field.name)}::{cast} AS …)", file=shown, column=field.name)


def _read_postgresql(uri: str, table: str | None, query: str | None, na: frozenset[str]) -> pd.DataFrame:
    shown = _shown(uri)
    pg = _dbapi("reading", shown)
    if table is not None and query is not None:
        raise InputError("pass either `table` or `query`, not both", file=shown)
    if table is None and query is None:
        raise InputError("pass `table` or `query` to read from PostgreSQL", file=shown, key="table")
    if table is not None:
        schema_name, name = _table_parts(table, shown)
        sql = "SELECT * FROM " + ".".join(_quote_ident(p) for p in (schema_name, name) if p is not None)
        reading = _postgresql_errors(uri, "reading PostgreSQL failed", value=table, unknown_table=table)
    else:
        if not isinstance(query, str) or not query.strip():
            raise InputError("the query is empty", file=shown, key="query")
        sql = query
        reading = _postgresql_errors(uri, "reading PostgreSQL failed", key="query")
    with reading, pg.connect(uri) as conn, conn.cursor() as cursor:
        cursor.execute("SET TRANSACTION READ ONLY")  # the transaction is never committed either
        cursor.execute(sql)
        data = cursor.fetch_arrow_table()
    _check_header([str(n) for n in data.schema.names], shown)
    if data.num_rows == 0:
        raise InputError("input is empty: no data rows", file=shown)
    data, decimals = _plain_columns(data, shown)
    frame = _apply_na(_from_arrow(data, "the PostgreSQL result", shown, nullable_ints=True), na)
    return _decimals(frame, decimals)


# ------------------------------------------------------------------------------------ same table


def _server(uri: str) -> tuple[str | None, int, str | None] | None:
    """``(host, port, database)`` a URI connects to, ``None`` for an unknown part (a loopback address,
    ``localhost`` and a Unix socket are one host); ``None`` if the URI cannot be parsed."""
    try:
        parts = urlsplit(uri)
        params = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        host = params.get("host", parts.hostname or "")
        port = int(params.get("port", parts.port or _DEFAULT_PORT))
        database = params.get("dbname", unquote(parts.path.lstrip("/"))) or unquote(parts.username or "") or None
    except ValueError:
        return None
    host = host.lower().strip("[]")
    if host in ("", "localhost", "::1") or host.startswith("/") or re.fullmatch(r"127(\.\d{1,3}){3}", host):
        host = _LOOPBACK
    return host, port, database


def without_password(location: str) -> str:
    """``location`` to record (a run's summary, a report): a PostgreSQL URI without its password, in the
    userinfo or a ``password=`` parameter, so that it can be kept and shown; the driver then takes the
    password from ``PGPASSWORD`` or ``~/.pgpass``. Any other location as it is (an unparsable URI:
    ``<PostgreSQL URI>``)."""
    if not location.lower().startswith(URI_PREFIXES):
        return location
    try:
        parts = urlsplit(location)
        netloc = parts.netloc
        if parts.password is not None:
            userinfo, _, host = netloc.rpartition("@")
            netloc = f"{userinfo.split(':', 1)[0]}@{host}"
        query = "&".join(p for p in parts.query.split("&") if not p.lower().startswith("password="))
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:
        return "<PostgreSQL URI>"


def _same_postgresql_table(a: str, a_table: str | None, b: str, b_table: str | None) -> bool:
    """Whether two PostgreSQL locations may name the same table, erring towards "the same".

    The server is compared as host (``localhost``, ``127.x.x.x``, ``::1`` and a Unix socket are one),
    port (default 5432) and database (default: the user's name); the user and password do not matter.
    Table names are compared ignoring case (PostgreSQL tells ``"People"`` from ``people``; refusing
    both is the safe side), and an unqualified name matches that name in any schema, since which
    schema the ``search_path`` picks is only known on the server. Not seen: two names or addresses of
    one host, a proxy or forwarded port, a view of the input.
    """
    sa, sb = _server(a), _server(b)
    if sa is None or sb is None:
        if _shown(a) != _shown(b):
            return False
    elif sa[:2] != sb[:2] or (sa[2] is not None and sb[2] is not None and sa[2] != sb[2]):
        return False
    if not a_table or not b_table:
        return False  # a query is not a table
    pa_, pb_ = a_table.lower().split("."), b_table.lower().split(".")
    if pa_[-1] != pb_[-1]:
        return False
    return len(pa_) == 1 or len(pb_) == 1 or pa_ == pb_

