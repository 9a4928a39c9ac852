"""What the SQL formats (SQLite, PostgreSQL) share: quoting a table or column name."""

from __future__ import annotations

from anonkit.errors import InputError


def _quote_ident(name: str) -> str:
    """``name`` as a double-quoted SQL identifier."""
    if not isinstance(name, str) or not name or "\x00" in name:
        raise InputError("a table name must be non-empty text", key="table", value=name)
    return '"' + name.replace('"', '""') + '"'
