"""One rule for paths: no write of a run lands on anything the run reads, nor two writes on one place.

A run lists every place it reads and every place it writes as a :class:`Place` (the config key or
command-line option that names it, the file or URI, its format and SQL table) before any work, and
:func:`check_places` refuses, in one line naming both keys, a write that is a read or another write.

Two places are the same when (:func:`same_place`):

* files: they are one file after resolving the path — relative or absolute, ``.`` and ``..``
  components, symbolic links (:func:`os.path.realpath`) — or one inode (same ``st_dev`` and
  ``st_ino``: a hard link);
* inside one SQLite or DuckDB file: the same table, compared ignoring case (a read without a table
  is the file's only table, what :func:`~anonkit.io.read_table` reads; a read by query is the same
  as a write to a table its text names); any other use of a database file (a CSV or Excel write on
  it, or a read of it as a whole file) is the whole file;
* PostgreSQL: the same server, database and table, erring towards "the same"
  (the format's ``same_table``, :mod:`anonkit.io.registry`), or a query naming the written table;
* an Excel workbook is one place whatever the sheet (a write replaces the workbook).

This module is below the config and the pipeline: it knows places, not what a config calls them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from anonkit.errors import InputError
from anonkit.io._messages import shown as _shown
from anonkit.io.registry import DATABASE_FILE, FORMAT_NAMES, SERVER, Format, format_of, formats, uri_format

__all__ = ["Place", "check_places", "same_file", "same_place"]

#: the keys that name the input: a write on it is "the output is the input"
INPUT_KEYS = ("input.path", "--input", "input.dataset", "INPUT")


@dataclass(frozen=True)
class Place:
    """A place a run reads or writes: ``key`` names it (``input.path``, ``output.manifest``,
    ``--report``), ``location`` is a file path or a database URI, ``format`` the format it is
    read or written in (``None``: from the suffix; any other text — ``html``, ``json`` — a plain
    file), ``table`` its SQL table and ``query`` the SQL a read runs instead of a table."""

    key: str
    location: str
    format: str | None = None
    table: str | None = None
    query: str | None = None

    @property
    def shown(self) -> str:
        """The place for a message: its secrets masked, ``#table`` for a SQL table."""
        loc = _shown(self.location)
        return f"{loc}#{self.table}" if self.table else loc

    @property
    def is_uri(self) -> bool:
        """Whether the location is a database server's URI (``postgresql://…``)."""
        return uri_format(self.location) is not None

    def kind(self) -> str:
        """The name of the server format (``postgresql``) or database-file format (``sqlite``, ``duckdb``)
        the place is in, or ``file`` (any other format, an unknown one, or text such as ``html``)."""
        server = uri_format(self.location)
        if server is not None:
            return server.name
        if self.format is not None and self.format not in FORMAT_NAMES:
            return "file"
        try:
            found = format_of(self.location, self.format)[0]
        except InputError:
            return "file"
        return found.name if found.kind == DATABASE_FILE else "file"


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths are one file: equal after resolving links, ``..`` and the working directory,
    or one inode (a hard link)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        sa, sb = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def _names_table(query: str | None, table: str) -> bool:
    """Whether SQL text names ``table`` (its last dotted part, as a word, ignoring case and quotes)."""
    if not query:
        return False
    name = table.split(".")[-1].strip('"').lower()
    text = query.lower().replace('"', " ").replace("`", " ").replace("[", " ").replace("]", " ")
    return re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", text) is not None


def _registered(kind: str, of: str) -> Format | None:
    """The format named ``kind`` (a :meth:`Place.kind`) when it is of the kind ``of``, else ``None``."""
    found = formats().get(kind)
    return found if found is not None and found.kind == of else None


def _sole_table(place: Place, database: Format) -> str | None:
    """The only table of a database file (what a read without ``table`` reads), or ``None``."""
    return database.sole_table(place.location) if database.sole_table is not None else None


def same_place(write: Place, other: Place) -> bool:
    """Whether the write ``write`` lands on ``other`` (a read or another write); see the module."""
    kw, ko = write.kind(), other.kind()
    server = _registered(kw, SERVER)
    if (server is None) != (_registered(ko, SERVER) is None):
        return False
    if server is not None:
        if kw != ko or server.same_table is None:
            return False
        if write.table and other.query and _names_table(other.query, write.table):
            return server.same_table(write.location, write.table, other.location, write.table)
        return server.same_table(write.location, write.table, other.location, other.table)
    if not same_file(write.location, other.location):
        return False
    database = _registered(kw, DATABASE_FILE)
    if kw != ko or database is None:
        return True  # one file, used whole by at least one of them
    if not write.table:
        return True
    if other.query is not None:
        return _names_table(other.query, write.table)
    table = other.table or _sole_table(other, database)  # None: no single table, which the read refuses itself
    return bool(table) and table.lower() == write.table.lower()


def _noun(place: Place) -> str:
    return "table" if place.table else "file"


def check_places(reads: Iterable[Place], writes: Sequence[Place]) -> None:
    """Refuse, before any work, a write that lands on a read or on another write; one line naming
    both keys and the place (its secrets masked).

    Raises
    ------
    InputError
        ``the output is the input: …`` (a write on the input), ``… would replace a file the run reads``
        (on the config, a hierarchy, categories, priors, a population or control table), ``… would
        write to the same …`` (two writes).
    """
    reads = list(reads)
    for i, w in enumerate(writes):
        for r in reads:
            if not same_place(w, r):
                continue
            if r.key in INPUT_KEYS:
                raise InputError(
                    f"the output is the input: {w.key} and {r.key} name the same {_noun(w)}; anonkit will not write "
                    f"over a file it reads, write {w.key} elsewhere", file=w.shown, key=w.key)
            raise InputError(f"{w.key} would replace a file the run reads ({r.key}): anonkit will not write over a "
                             f"file it reads, write {w.key} elsewhere", file=w.shown, key=w.key)
        for earlier in writes[:i]:
            if same_place(w, earlier) or same_place(earlier, w):
                what = "the same file" if not (w.table and earlier.table) else "the same table"
                raise InputError(f"{earlier.key} and {w.key} would write to {what}; give them different names",
                                 file=w.shown, key=w.key)
