"""The broker's spool: cloaked requests released to the forward queue and not yet accepted by the
service, on disk, so that a ``kill -9`` loses none of them.

The rule: a request released to the forward queue reads ``queued`` until the service has accepted it
(a URL answered 2xx, the line was written to the file, the callable returned), then ``forwarded``; a
delivery that still fails after its attempts reads ``failed``. The journal says which; the spool keeps
what must still be sent, so that the status never claims what did not happen and nothing is dropped.

The spool (``anonkit-broker-spool.jsonl`` in the state folder, mode 0600) holds one JSON line per
event, each written and flushed before the broker answers (it reaches the operating system, so it
survives the process's death):

* ``{"id": ID, "key": KEY, "message": {...}}``: a request was queued. ``message`` is the cloaked
  public record exactly as the service receives it (:data:`~._broker_api.PUBLIC_FIELDS`: ``t, x0,
  y0, x1, y1, t0, t1, payload``; no subject, no exact position, no owner key); ``ID`` is the
  request's id (to update its status; it never leaves the broker) and ``KEY`` a random delivery key,
  unrelated to the id, sent to a URL as the ``Idempotency-Key`` header and the same on every
  redelivery, so the service can drop a duplicate.
* ``{"done": ID, "status": "forwarded"|"failed"}``: the service accepted it, or it failed for good
  after its attempts: not to be sent again.

The spool line of a release is written *before* its journal line ``queued``, and the journal line of
a delivery (``forwarded`` or ``failed``) before the spool's ``done``; so after a crash at any point
:func:`reconcile` can tell, for each request, whether it must be sent again (delivery is **at least
once**: a request the service received but whose acceptance the broker had not yet recorded is sent
again, with the same key), whether it is done, or whether its message is gone (a journal ``queued``
without a readable spool line, or a torn spool line whose id can be read: ``lost``, counted). The
spool is rewritten atomically (a temporary file, fsync, rename) at start-up with only what is still
queued, and the same way while running when it has grown past :data:`COMPACT_FACTOR` times that
(at least :data:`COMPACT_MIN` lines).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import tempfile
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from anonkit.location._broker_api import PUBLIC_FIELDS

__all__ = ["COMPACT_FACTOR", "COMPACT_MIN", "SPOOL_FILE", "Delivery", "Spool", "reconcile"]

#: the spool's name in the broker's state folder
SPOOL_FILE = "anonkit-broker-spool.jsonl"
#: the spool is compacted when it holds this many times the queued requests in lines ...
COMPACT_FACTOR = 4
#: ... and at least this many lines (so a nearly empty queue is not rewritten at every delivery)
COMPACT_MIN = 1024
#: statuses after which a request is never sent again
FINAL = frozenset({"forwarded", "failed"})
#: the request id at the start of a queued line, readable from a line torn after it
_TORN_ID = re.compile(r'^\{"id":"([A-Za-z0-9_-]{1,64})"')

Entry = tuple[str, str, float | None]  # the journal's: owner, status, t



def rewrite_lines(path: Path, lines: Iterable[str], *, prefix: str) -> None:
    """Replace ``path`` by ``lines`` atomically: written to a hidden sibling (mode 0600), flushed and
    synced, then renamed over it; the sibling is removed on any failure."""
    fd, tmp = tempfile.mkstemp(prefix=prefix, dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for line in lines:
                fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@dataclass(eq=False, slots=True)
class Delivery:
    """One cloaked request on its way to the service: its request ``id``, its delivery ``key`` and
    its public ``message``; ``owner`` and ``t`` (the journal's, for its status lines) stay in memory."""

    id: str
    key: str
    message: dict[str, Any]
    owner: str = ""
    t: float | None = None


class Spool:
    """The spool in ``folder``: :attr:`queued` holds what it says is still to be sent (in release
    order), :attr:`finished` the outcome of those it says are done, :attr:`torn` the unreadable lines
    and :attr:`torn_ids` the ids that could be read from them. Reading never fails on a line's
    content; call :meth:`open` to rewrite it and append."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / SPOOL_FILE
        self.queued: OrderedDict[str, Delivery] = OrderedDict()
        self.finished: dict[str, str] = {}
        self.torn = 0
        self.torn_ids: list[str] = []
        self.lines = 0
        self._handle: IO[str] | None = None
        self._broken = False  # a write failed part-way: rewrite the file before the next line
        self._read()

    def _read(self) -> None:
        try:
            fh = self.path.open(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return
        with fh:
            for line in fh:
                event = _event(line)
                if event is None:
                    self.torn += 1  # torn (the broker died while writing it) or not the spool's
                    match = _TORN_ID.match(line)
                    if match:
                        self.torn_ids.append(match.group(1))
                elif isinstance(event, Delivery):
                    self.queued[event.id] = event
                else:
                    rid, status = event
                    if self.queued.pop(rid, None) is not None:
                        self.finished[rid] = status

    def open(self) -> None:
        """Rewrite the spool (atomically) with what is still queued, then append to it (mode 0600)."""
        self._rewrite()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._handle = os.fdopen(fd, "a", encoding="utf-8")

    def _rewrite(self) -> None:
        rewrite_lines(self.path, (_queued_line(d) for d in self.queued.values()), prefix=".spool-")
        self.lines = len(self.queued)

    def _append(self, text: str) -> None:
        """Append ``text`` and hand it to the operating system. A write that fails (a full disk) may
        leave part of a line, onto which the next line would be glued and lost; so after a failure the
        file is first rewritten from memory (raises ``OSError`` while that fails too)."""
        assert self._handle is not None
        if self._broken:
            with contextlib.suppress(OSError):
                self._handle.close()
            self.open()
            self._broken = False
        try:
            self._handle.write(text)
            self._handle.flush()
        except OSError:
            self._broken = True
            raise

    def add(self, delivery: Delivery) -> None:
        """Record a queued request and hand the line to the operating system (raises ``OSError``)."""
        self._append(_queued_line(delivery))
        self.queued[delivery.id] = delivery
        self.lines += 1

    def done(self, rid: str, status: str) -> None:
        """Record that request ``rid`` is not to be sent again (``status``: ``forwarded`` or ``failed``);
        compact when due."""
        if self.queued.pop(rid, None) is None or self._handle is None:
            return
        self._append(json.dumps({"done": rid, "status": status}, separators=(",", ":")) + "\n")
        self.lines += 1
        if self.lines > COMPACT_FACTOR * max(len(self.queued), COMPACT_MIN):
            self._handle.close()
            self.open()

    def close(self) -> None:
        if self._handle is not None:
            with contextlib.suppress(OSError):
                self._handle.close()
            self._handle = None


def reconcile(entries: OrderedDict[str, Entry], spool: Spool) -> tuple[list[Delivery], int]:
    """Make the journal's ``entries`` (read at start-up; a ``pending`` one already reads ``lost``)
    agree with ``spool``; returns the deliveries to queue again and the requests found lost here.

    * queued in the spool, and the journal says ``forwarded`` or ``failed``: done (the broker died
      between the two lines); dropped from the spool, not sent again;
    * done in the spool, and the journal has not caught up: the spool's outcome;
    * queued in the spool, and the journal says anything else or nothing: ``queued``, sent again
      (a request the journal knew as ``pending`` was released just before the death; one it does not
      know gets an empty owner key, so only the operator can read it);
    * ``queued`` in the journal with no readable spool line, or a torn spool line whose id can be
      read and the journal does not know: ``lost`` (its message is gone).
    """
    again: list[Delivery] = []
    for rid, status in spool.finished.items():
        entry = entries.get(rid)
        if entry is None or entry[1] not in FINAL:
            entries[rid] = ("", status, None) if entry is None else (entry[0], status, entry[2])
    for rid, delivery in list(spool.queued.items()):
        entry = entries.get(rid)
        if entry is not None and entry[1] in FINAL:
            del spool.queued[rid]
            continue
        delivery.owner, delivery.t = (entry[0], entry[2]) if entry is not None else ("", None)
        entries[rid] = (delivery.owner, "queued", delivery.t)
        again.append(delivery)
    lost = [rid for rid, (_, status, _) in entries.items() if status == "queued" and rid not in spool.queued]
    for rid in lost:
        owner, _, t = entries[rid]
        entries[rid] = (owner, "lost", t)
    for rid in dict.fromkeys(spool.torn_ids):
        if rid not in entries:
            entries[rid] = ("", "lost", None)
            lost.append(rid)
    return again, len(lost)


def _queued_line(delivery: Delivery) -> str:
    # ASCII escapes: any payload text (even a lone surrogate) round-trips exactly
    return json.dumps({"id": delivery.id, "key": delivery.key, "message": delivery.message},
                      separators=(",", ":"), allow_nan=False) + "\n"


def json_object(line: str) -> dict[str, Any] | None:
    """A journal or spool line as the JSON object it holds, or ``None`` for a line that is not one (torn
    by a crash, or not JSON)."""
    try:
        obj: Any = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def _event(line: str) -> Delivery | tuple[str, str] | None:
    """A queued line's delivery, a done line's id and outcome, or ``None`` for a line that is not whole and sound
    (a message with any field but the public ones, or a non-finite number, is never sent)."""
    obj = json_object(line)
    if obj is None:
        return None
    if set(obj) == {"done", "status"}:
        rid, status = obj["done"], obj["status"]
        return (rid, status) if isinstance(rid, str) and status in FINAL else None
    rid, key, message = obj.get("id"), obj.get("key"), obj.get("message")
    if set(obj) != {"id", "key", "message"} or not (isinstance(rid, str) and isinstance(key, str)):
        return None
    if not isinstance(message, dict) or tuple(message) != PUBLIC_FIELDS or not isinstance(message["payload"], str):
        return None
    for name in PUBLIC_FIELDS[:-1]:
        value = message[name]
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return None
        message[name] = float(value)
    return Delivery(rid, key, message)
