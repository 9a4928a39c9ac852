"""The broker's request journal: which request ids exist and their last status, on disk.

A request that is pending when the broker dies (``kill -9``, a crash, a power cut after the page
cache reached the disk) must not read as an unknown id afterwards: its owner would not know whether
it was served. The journal is an append-only file of JSON lines ``{"id", "owner", "status", "t"}``
(``owner`` is an opaque key of the subject, :meth:`Tokens.owner
<anonkit.location._broker_auth.Tokens.owner>`; no subject id, position, payload or box goes to
disk). Each line is written and flushed when a request is recorded and when it finishes, before the
broker answers, so a line reaches the operating system before the caller hears of the request.

The statuses: ``pending`` (waiting for temporal cloaking), ``queued`` (cloaked and released to the
forward queue, its message in the spool, :mod:`._broker_spool`), ``forwarded`` (the service accepted
it), ``failed`` (the service did not accept it after the retries), ``held`` and ``dropped`` (no
cloaking served it) and ``lost`` (its message is gone: see below).

At start-up the journal is read; an id whose last status is ``pending`` becomes ``lost`` (never
released: a release is spooled and journalled ``queued`` before anything else happens to it), a
torn last line is skipped; with the spool, :func:`~._broker_spool.reconcile` makes the two agree (a
request the spool still holds is sent again and reads ``queued``, even one journalled ``pending``;
one journalled ``queued`` whose spool line is gone is ``lost``); and the file is rewritten
atomically (a temporary file, fsync, rename) with the latest ``limit`` ids. While running it is
rewritten the same way when it has grown to :data:`COMPACT_FACTOR` times ``limit`` lines. A lock
file held for the broker's life refuses a second broker on the same state folder.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections import OrderedDict
from pathlib import Path
from typing import IO

from anonkit.errors import InputError
from anonkit.location._broker_spool import Delivery, Spool, json_object, reconcile, rewrite_lines

__all__ = ["JOURNAL_FILE", "LOCK_FILE", "Journal"]

#: the journal's name in the broker's state folder
JOURNAL_FILE = "anonkit-broker-requests.jsonl"
#: the lock file's name in the broker's state folder
LOCK_FILE = "anonkit-broker.lock"
#: the journal is compacted when it holds this many times the kept ids in lines
COMPACT_FACTOR = 4
_STATUSES = frozenset({"queued", "forwarded", "failed", "pending", "held", "dropped", "lost"})

Entry = tuple[str, str, float | None]  # owner, status, t



class Journal:
    """The journal in ``folder`` (created 0600 when missing); :attr:`restored` holds what it said.

    With ``spool=True`` the spool beside it is read too (under the same lock, so a second broker never
    touches it) and reconciled with the journal: :attr:`spool` is then open for appending and
    :attr:`recovered` lists the queued requests to send again."""

    def __init__(self, folder: Path, limit: int, *, spool: bool = False) -> None:
        self.path = folder / JOURNAL_FILE
        self.limit = limit
        self._lock = _lock(folder / LOCK_FILE)
        self.spool: Spool | None = None
        self.recovered: list[Delivery] = []
        try:
            self.restored: OrderedDict[str, Entry] = self._read()
            if spool:
                self.spool = Spool(folder)
                self.recovered, _ = reconcile(self.restored, self.spool)
                while len(self.restored) > self.limit:
                    self.restored.popitem(last=False)
            self.lost = sum(1 for _, status, _ in self.restored.values() if status == "lost")
            self._rewrite(self.restored)  # the journal first: until the spool is rewritten, it keeps more
            if self.spool is not None:
                self.spool.open()
            self._handle: IO[str] = self._open()
        except BaseException:
            if self.spool is not None:
                self.spool.close()
            self._lock.close()
            raise
        self.lines = len(self.restored)

    def _read(self) -> OrderedDict[str, Entry]:
        entries: OrderedDict[str, Entry] = OrderedDict()
        try:
            fh = self.path.open(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return entries
        except OSError as exc:
            raise InputError(f"cannot read the request journal: {exc.strerror or exc}", file=str(self.path)) from None
        with fh:
            for line in fh:
                entry = _entry(line)
                if entry is None:
                    continue  # a torn line (the broker died while writing it) or not the journal's
                rid, owner, status, t = entry
                entries.pop(rid, None)
                entries[rid] = (owner, "lost" if status == "pending" else status, t)
                while len(entries) > self.limit:
                    entries.popitem(last=False)
        return entries

    def _open(self) -> IO[str]:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        return os.fdopen(fd, "a", encoding="utf-8")

    def _rewrite(self, entries: OrderedDict[str, Entry] | dict[str, Entry]) -> None:
        rewrite_lines(self.path, (_line(rid, owner, status, t) for rid, (owner, status, t) in entries.items()),
                      prefix=".journal-")

    def write(self, rid: str, owner: str, status: str, t: float | None) -> None:
        """Append one line and hand it to the operating system (survives the process's death)."""
        self._handle.write(_line(rid, owner, status, t))
        self._handle.flush()
        self.lines += 1

    def due(self) -> bool:
        """Whether the journal has grown past :data:`COMPACT_FACTOR` × limit lines."""
        return self.lines > COMPACT_FACTOR * self.limit

    def compact(self, entries: dict[str, Entry]) -> None:
        """Rewrite the journal (atomically) as ``entries``."""
        self._handle.close()
        self._rewrite(entries)
        self._handle = self._open()
        self.lines = len(entries)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._handle.close()
        if self.spool is not None:
            self.spool.close()
        self._lock.close()


def _line(rid: str, owner: str, status: str, t: float | None) -> str:
    return json.dumps({"id": rid, "owner": owner, "status": status, "t": t}, separators=(",", ":")) + "\n"


def _entry(line: str) -> tuple[str, str, str, float | None] | None:
    obj = json_object(line)
    if obj is None:
        return None
    rid, owner, status, t = obj.get("id"), obj.get("owner"), obj.get("status"), obj.get("t")
    if not (isinstance(rid, str) and isinstance(owner, str) and status in _STATUSES):
        return None
    if t is not None and not isinstance(t, int | float):
        return None
    return rid, owner, status, None if t is None else float(t)


def _lock(path: Path) -> IO[bytes]:
    """Hold an exclusive lock on ``path`` (POSIX ``flock``) for the broker's life."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    handle = os.fdopen(fd, "rb+")
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        return handle
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise InputError("another broker is running with this state folder; give each broker its own --state",
                         file=str(path.parent)) from None
    return handle
