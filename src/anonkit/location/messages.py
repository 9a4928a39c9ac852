"""The small nouns of location cloaking and their files.

:class:`Area` is the service's whole area (its quadtree cells are what a cloaked request may
publish), :class:`Message` one line of the broker's input (a position update or a request),
:class:`Policy` the defaults every request is cloaked under, :class:`Forwarded` a cloaked request as
it leaves the broker: only :attr:`Forwarded.PUBLIC_FIELDS` are ever written.

:func:`read_messages` reads a stream of messages in time order from CSV (a header row) or JSON Lines,
a file or standard input; every problem is a one-line :class:`~anonkit.errors.InputError` naming the
line, the field and the value. :func:`write_forwarded` writes the public fields of forwarded
requests in the same two formats (CSV cells that a spreadsheet would run as a formula are defused as
:func:`anonkit.io.write_table` does), to a file atomically or to a text stream.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import os
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal, TextIO, get_args

from anonkit.errors import InputError
from anonkit.io import FORMULA_START as _FORMULA_START
from anonkit.io import NUMBER as _NUMBER
from anonkit.io import atomic_write as _atomic_write
from anonkit.io import check_file as _check_file
from anonkit.io import write_target as _target

Kind = Literal["update", "request"]
OnFail = Literal["hold", "drop"]
Method = Literal["spatial", "temporal"]
Format = Literal["csv", "jsonl"]

KINDS: tuple[str, ...] = get_args(Kind)
ON_FAIL: tuple[str, ...] = get_args(OnFail)
FORMATS: tuple[str, ...] = get_args(Format)

#: k_min when neither the policy nor the request says (spec §6: cloaking k_min = 5)
DEFAULT_K = 5
#: what happens to a request no cloaking can serve within its limits
DEFAULT_ON_FAIL: OnFail = "drop"

#: the columns of an input message, required first
REQUIRED_FIELDS: tuple[str, ...] = ("t", "subject", "x", "y", "kind")
OPTIONAL_FIELDS: tuple[str, ...] = ("payload", "k", "max_area", "max_delay", "on_fail")
MESSAGE_FIELDS: tuple[str, ...] = REQUIRED_FIELDS + OPTIONAL_FIELDS

_SUFFIXES = {".csv": "csv", ".txt": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl"}
_RISKY = re.compile(_FORMULA_START)
_PLAIN_NUMBER = re.compile(_NUMBER)


# ---------------------------------------------------------------------------------------------- nouns


@dataclass(frozen=True, slots=True)
class Area:
    """The service's whole area, axis-aligned and half-open: ``[x0, x1) × [y0, y1)``.

    The cells a request may be cloaked to are the quadtree cells of this box: the box itself, its
    four quadrants, theirs, and so on (each halves both sides, so a rectangle's cells are rectangles
    of the same shape).
    """

    x0: float
    y0: float
    x1: float
    y1: float

    def __post_init__(self) -> None:
        values = (self.x0, self.y0, self.x1, self.y1)
        if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in values):
            raise InputError("the area's bounds must be finite numbers", key="--area", value=values)
        if not (self.x0 < self.x1 and self.y0 < self.y1):
            raise InputError("the area must have x0 < x1 and y0 < y1", key="--area", value=values)
        for name, v in zip(("x0", "y0", "x1", "y1"), values, strict=True):
            object.__setattr__(self, name, float(v))

    def contains(self, x: float, y: float) -> bool:
        """Whether ``(x, y)`` is in the area (half-open: ``x0 <= x < x1`` and ``y0 <= y < y1``)."""
        return self.x0 <= x < self.x1 and self.y0 <= y < self.y1

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @classmethod
    def parse(cls, text: str) -> Area:
        """The area written ``X0,Y0,X1,Y1``; InputError naming ``--area`` otherwise."""
        parts = str(text).split(",")
        if len(parts) != 4:
            raise InputError("the area must be four numbers X0,Y0,X1,Y1", key="--area", value=text)
        try:
            values = [float(p) for p in parts]
        except ValueError:
            raise InputError("the area must be four numbers X0,Y0,X1,Y1", key="--area", value=text) from None
        if not all(math.isfinite(v) for v in values):
            raise InputError("the area's bounds must be finite numbers", key="--area", value=text)
        if not (values[0] < values[2] and values[1] < values[3]):
            raise InputError("the area must have X0 < X1 and Y0 < Y1", key="--area", value=text)
        return cls(*values)


@dataclass(frozen=True, slots=True)
class Message:
    """One message of the broker's input, in time order.

    An ``update`` reports a subject's position; a ``request`` reports it too and asks for the
    ``payload`` to be forwarded to the location-based service, cloaked. A request's ``k``,
    ``max_area``, ``max_delay`` and ``on_fail`` override the :class:`Policy` for that request.
    """

    t: float
    subject: str
    x: float
    y: float
    kind: Kind
    payload: str = ""
    k: int | None = None
    max_area: float | None = None
    max_delay: float | None = None
    on_fail: OnFail | None = None


@dataclass(frozen=True)
class Policy:
    """The defaults every request is cloaked under (a request's own fields override them).

    Parameters
    ----------
    k:
        k_min: subjects the cloaked box (spatial) or interval (temporal) must hold, requester included.
    max_area:
        The largest box a request accepts; ``None``: the whole area. Spatial cloaking fails when its
        cell is larger; temporal cloaking then works on the largest cell no larger than this.
    max_delay:
        The longest a request may wait for temporal cloaking; 0 means no temporal cloaking.
    t_back:
        Temporal cloaking counts visits of the cell from ``t_req − t_back`` on.
    on_fail:
        ``"hold"`` keeps a request no cloaking can serve (:attr:`Cloaker.held`), ``"drop"`` drops it;
        either way it is never forwarded.
    min_side:
        The resolution floor: no cell with a side shorter than this is published. ``None``: the area's
        shorter side / 2**:data:`~anonkit.location.index.DEFAULT_DEPTH`.
    """

    k: int = DEFAULT_K
    max_area: float | None = None
    max_delay: float = 0.0
    t_back: float = 0.0
    on_fail: OnFail = DEFAULT_ON_FAIL
    min_side: float | None = None

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
            raise InputError("k must be a whole number of at least 1", key="k", value=self.k)
        _check_number(self.max_area, "max_area", positive=True, optional=True)
        _check_number(self.max_delay, "max_delay", positive=False, optional=False)
        _check_number(self.t_back, "t_back", positive=False, optional=False)
        _check_number(self.min_side, "min_side", positive=True, optional=True)
        if self.on_fail not in ON_FAIL:
            raise InputError("on_fail must be 'hold' or 'drop'", key="on_fail", value=self.on_fail)


def _check_number(value: object, key: str, *, positive: bool, optional: bool) -> None:
    if value is None and optional:
        return
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < 0 or (positive and value == 0):  # type: ignore[operator]
        raise InputError(f"{key} must be a {'positive' if positive else 'non-negative'} finite number",
                         key=key, value=value)


@dataclass(frozen=True, slots=True)
class Forwarded:
    """A cloaked request as it leaves the broker.

    ``t`` is when it is forwarded (the request's time for spatial cloaking, the release time ``t1``
    for temporal cloaking); ``[x0, x1) × [y0, y1)`` a quadtree cell of the area that contains the
    requester; ``[t0, t1]`` the cloaked interval (``[t, t]`` for spatial cloaking). ``request``
    (the request's 0-based number in the input), ``method`` and ``anonymity`` (subjects in the box at
    ``t``, or distinct visitors of the cell during ``[t0, t1]``) are private: :meth:`public` and every
    writer leave them out.
    """

    t: float
    x0: float
    y0: float
    x1: float
    y1: float
    t0: float
    t1: float
    payload: str
    request: int
    method: Method
    anonymity: int

    PUBLIC_FIELDS: ClassVar[tuple[str, ...]] = ("t", "x0", "y0", "x1", "y1", "t0", "t1", "payload")

    def public(self) -> dict[str, object]:
        """Only the fields the location-based service may see."""
        return {name: getattr(self, name) for name in self.PUBLIC_FIELDS}

    @property
    def area(self) -> float:
        return (self.x1 - self.x0) * (self.y1 - self.y0)


# ---------------------------------------------------------------------------------------------- read


def stream_format(source: str | os.PathLike[str] | TextIO, format: str | None = None) -> Format | None:
    """The format named by ``format`` or the file's suffix; ``None`` when it must be sniffed."""
    if format is not None:
        fmt = str(format).strip().lower()
        fmt = {"ndjson": "jsonl", "json": "jsonl", "txt": "csv"}.get(fmt, fmt)
        if fmt not in FORMATS:
            raise InputError("unknown format; use 'csv' or 'jsonl'", key="format", value=format)
        return fmt  # type: ignore[return-value]
    if isinstance(source, str | os.PathLike) and os.fsdecode(source) != "-":
        return _SUFFIXES.get(Path(os.fsdecode(source)).suffix.lower())  # type: ignore[return-value]
    return None


def read_messages(
    source: str | os.PathLike[str] | TextIO,
    *,
    area: Area | None = None,
    format: Format | None = None,
) -> Iterator[Message]:
    """The messages of a CSV (header row) or JSON Lines stream, checked, in time order.

    Parameters
    ----------
    source:
        A file, ``"-"`` for standard input, or an open text stream.
    area:
        When given, a position outside it is an error.
    format:
        ``"csv"`` or ``"jsonl"``; ``None``: from the suffix (``.csv``/``.txt``, ``.jsonl``/``.ndjson``/
        ``.json``), else sniffed (a first non-blank character ``{`` means JSON Lines).

    Fields: ``t``, ``subject``, ``x``, ``y``, ``kind`` (``update`` or ``request``), and optionally
    ``payload`` and a request's own ``k``, ``max_area``, ``max_delay``, ``on_fail`` (an empty CSV cell
    or a JSON ``null`` means "the policy's"). An unknown field is an error (a misspelt column would
    otherwise be silently ignored).

    Raises
    ------
    InputError
        Naming the line (1-based, the CSV header is line 1), the field and the value: a missing or
        unknown field, a non-numeric or non-finite number, an unknown kind, a bad override, a position
        outside ``area``, a timestamp earlier than the line before, malformed CSV or JSON.
    """
    fmt = stream_format(source, format)
    if isinstance(source, str | os.PathLike):
        loc = os.fsdecode(source)
        if loc == "-":
            return _read(sys.stdin, "<stdin>", fmt, area)
        _check_file(loc)
        return _read_file(loc, fmt, area)
    return _read(source, getattr(source, "name", None) or "<stream>", fmt, area)


def _read_file(loc: str, fmt: Format | None, area: Area | None) -> Iterator[Message]:
    try:
        fh = open(loc, encoding="utf-8-sig", newline="")  # noqa: SIM115 - closed by the generator
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", file=loc) from exc
    with fh:
        yield from _read(fh, loc, fmt, area)


def _read(fh: TextIO, name: str, fmt: Format | None, area: Area | None) -> Iterator[Message]:
    lines: Iterable[str] = fh
    if fmt is None:
        head: list[str] = []
        fmt = "csv"
        try:
            for line in fh:
                head.append(line)
                text = line.lstrip("\ufeff").strip()
                if text:
                    fmt = "jsonl" if text.startswith(("{", "[")) else "csv"
                    break
        except UnicodeDecodeError as exc:
            raise InputError(f"cannot decode the input as UTF-8: {exc.reason}", file=name) from None
        lines = itertools.chain(head, fh)
    parsed = _csv_records(lines, name) if fmt == "csv" else _jsonl_records(lines, name)
    return _checked(parsed, name, area)


def _csv_records(lines: Iterable[str], name: str) -> Iterator[tuple[int, dict[str, object]]]:
    reader = csv.reader(_decoded(lines, name), strict=True)
    try:
        header = None
        for record in reader:
            if not record or record == [""]:
                continue
            if header is None:
                header = [h.strip().lstrip("\ufeff") for h in record]
                _check_header(header, name, reader.line_num)
                continue
            line = reader.line_num
            if len(record) != len(header):
                raise InputError(f"line {line}: the row has {len(record)} fields but the header has {len(header)}",
                                 file=name)
            yield line, dict(zip(header, record, strict=True))
    except csv.Error as exc:
        raise InputError(f"line {reader.line_num}: malformed CSV: {exc}", file=name) from None
    if header is None:
        raise InputError("the input is empty: no header row", file=name)


def _check_header(header: list[str], name: str, line: int) -> None:
    seen = set()
    for h in header:
        if h not in MESSAGE_FIELDS:
            raise InputError(f"line {line}: unknown column; the columns are {', '.join(MESSAGE_FIELDS)}",
                             column=h, file=name)
        if h in seen:
            raise InputError(f"line {line}: duplicate column", column=h, file=name)
        seen.add(h)
    for field in REQUIRED_FIELDS:
        if field not in seen:
            raise InputError(f"line {line}: the header has no column {field!r}", column=field, file=name)


def _jsonl_records(lines: Iterable[str], name: str) -> Iterator[tuple[int, dict[str, object]]]:
    for line, text in enumerate(_decoded(lines, name), start=1):
        text = text.strip().lstrip("\ufeff")
        if not text:
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"line {line}: malformed JSON: {exc.msg} (column {exc.colno})", file=name) from None
        except RecursionError:  # nesting deeper than Python's parser can follow: no message is nested
            raise InputError(f"line {line}: the JSON is nested too deeply; a line is one flat object",
                             file=name) from None
        except ValueError as exc:  # an integer of more digits than Python converts
            raise InputError(f"line {line}: malformed JSON: {' '.join(str(exc).split(':')[:1])}",
                             file=name) from None
        if not isinstance(obj, dict):
            raise InputError(f"line {line}: a line must be a JSON object", file=name, value=text[:80])
        for key in obj:
            if key not in MESSAGE_FIELDS:
                raise InputError(f"line {line}: unknown field; the fields are {', '.join(MESSAGE_FIELDS)}",
                                 column=key, file=name)
        yield line, obj


def _decoded(lines: Iterable[str], name: str) -> Iterator[str]:
    it = iter(lines)
    n = 0
    while True:
        try:
            line = next(it)
        except StopIteration:
            return
        except UnicodeDecodeError as exc:
            raise InputError(f"line {n + 1}: cannot decode the input as UTF-8: {exc.reason}", file=name) from None
        n += 1
        yield line


def _checked(records: Iterator[tuple[int, dict[str, object]]], name: str, area: Area | None) -> Iterator[Message]:
    last = -math.inf
    for line, rec in records:
        msg = _message(rec, line, name)
        if msg.t < last:
            raise InputError(f"line {line}: the timestamp is earlier than the line before ({last!r}); "
                             "messages must be in time order", column="t", value=rec.get("t"), file=name)
        last = msg.t
        if area is not None and not area.contains(msg.x, msg.y):
            raise InputError(f"line {line}: the position ({msg.x!r}, {msg.y!r}) is outside the area "
                             f"[{area.x0!r}, {area.x1!r}) × [{area.y0!r}, {area.y1!r})", file=name)
        yield msg


def _message(rec: dict[str, object], line: int, name: str) -> Message:
    for field in REQUIRED_FIELDS:
        if rec.get(field) is None or rec.get(field) == "":
            raise InputError(f"line {line}: the field {field!r} is missing", column=field, file=name)
    kind = rec["kind"]
    kind = kind.strip().lower() if isinstance(kind, str) else kind
    if kind not in KINDS:
        raise InputError(f"line {line}: unknown kind; use 'update' or 'request'", column="kind",
                         value=rec["kind"], file=name)
    subject = rec["subject"]
    if isinstance(subject, bool) or not isinstance(subject, str | int):
        raise InputError(f"line {line}: the subject must be text", column="subject", value=subject, file=name)
    payload = rec.get("payload")
    if payload is None:
        payload = ""
    elif not isinstance(payload, str):
        raise InputError(f"line {line}: the payload must be text", column="payload", value=payload, file=name)
    k = rec.get("k")
    k = _whole(k, "k", line, name) if k is not None and k != "" else None
    on_fail = rec.get("on_fail")
    if on_fail is not None and on_fail != "":
        on_fail = on_fail.strip().lower() if isinstance(on_fail, str) else on_fail
        if on_fail not in ON_FAIL:
            raise InputError(f"line {line}: on_fail must be 'hold' or 'drop'", column="on_fail",
                             value=rec["on_fail"], file=name)
    else:
        on_fail = None
    return Message(
        t=_number(rec["t"], "t", line, name),
        subject=str(subject),
        x=_number(rec["x"], "x", line, name),
        y=_number(rec["y"], "y", line, name),
        kind=kind,  # type: ignore[arg-type]
        payload=payload,
        k=k,
        max_area=_optional(rec.get("max_area"), "max_area", line, name, positive=True),
        max_delay=_optional(rec.get("max_delay"), "max_delay", line, name, positive=False),
        on_fail=on_fail,  # type: ignore[arg-type]
    )


def _number(value: object, field: str, line: int, name: str) -> float:
    if isinstance(value, bool):
        raise InputError(f"line {line}: {field} must be a number", column=field, value=value, file=name)
    try:
        out = float(value.strip() if isinstance(value, str) else value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"line {line}: {field} must be a number", column=field, value=value, file=name) from None
    if not math.isfinite(out):
        raise InputError(f"line {line}: {field} must be a finite number", column=field, value=value, file=name)
    return out


def _optional(value: object, field: str, line: int, name: str, *, positive: bool) -> float | None:
    if value is None or value == "":
        return None
    out = _number(value, field, line, name)
    if out < 0 or (positive and out == 0):
        raise InputError(f"line {line}: {field} must be {'positive' if positive else 'non-negative'}",
                         column=field, value=value, file=name)
    return out


def _whole(value: object, field: str, line: int, name: str) -> int:
    number = _number(value, field, line, name)
    if number != int(number) or number < 1:
        raise InputError(f"line {line}: {field} must be a whole number of at least 1", column=field, value=value,
                         file=name)
    return int(number)


# ---------------------------------------------------------------------------------------------- write


def _cell(value: str) -> str:
    """A payload cell defused: a text a spreadsheet would run as a formula gets a leading ``'``."""
    if value and _RISKY.match(value) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def _write_rows(rows: Iterable[Forwarded], fh: TextIO, fmt: Format, *, flush: bool = False) -> int:
    n = 0
    if fmt == "csv":
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(Forwarded.PUBLIC_FIELDS)
        for r in rows:
            writer.writerow((repr(r.t), repr(r.x0), repr(r.y0), repr(r.x1), repr(r.y1), repr(r.t0), repr(r.t1),
                             _cell(r.payload)))
            n += 1
            if flush:
                fh.flush()
    else:
        for r in rows:
            fh.write(json.dumps(r.public(), ensure_ascii=False) + "\n")
            n += 1
            if flush:
                fh.flush()
    return n


def write_forwarded(
    rows: Iterable[Forwarded],
    target: str | os.PathLike[str] | TextIO,
    *,
    format: Format,
    flush: bool = False,
) -> int:
    """Write the public fields of ``rows`` (``t, x0, y0, x1, y1, t0, t1, payload``); return how many.

    ``target`` is a file (written atomically: a temporary file in its directory moved into place at
    the end, so an error or an interrupt leaves the old file), ``"-"`` for standard output, or an
    open text stream. CSV has a header row and numbers written so that they read back exactly; a
    payload a spreadsheet would run as a formula gets a leading ``'``. ``flush`` flushes after each
    row (a stream read by another process as it goes).
    """
    fmt = stream_format("-", format)
    if fmt is None:
        raise InputError("write_forwarded needs format='csv' or 'jsonl'", key="format")
    if not isinstance(target, str | os.PathLike):
        return _write_rows(rows, target, fmt, flush=flush)
    loc = os.fsdecode(target)
    if loc == "-":
        return _write_rows(rows, sys.stdout, fmt, flush=flush)
    path = _target(loc)
    count = [0]

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            count[0] = _write_rows(rows, fh, fmt)

    _atomic_write(path, loc, write)
    return count[0]


def read_forwarded(source: str | os.PathLike[str] | TextIO, *, format: Format | None = None) -> list[dict[str, object]]:
    """The public rows of a file written by :func:`write_forwarded` (numbers as floats), e.g. to check
    that the output round trips. A CSV payload keeps the ``'`` that defused a formula."""
    if isinstance(source, str | os.PathLike):
        loc = os.fsdecode(source)
        fmt = stream_format(loc, format)
        _check_file(loc)
        text = Path(loc).read_text(encoding="utf-8")
    else:
        fmt = stream_format("-", format)
        text = source.read()
    if fmt is None:
        fmt = "jsonl" if text.lstrip().startswith("{") else "csv"
    out: list[dict[str, object]] = []
    if fmt == "csv":
        reader = csv.DictReader(io.StringIO(text, newline=""))
        for rec in reader:
            out.append({f: (rec[f] if f == "payload" else float(rec[f])) for f in Forwarded.PUBLIC_FIELDS})
    else:
        for line in text.splitlines():
            if line.strip():
                rec = json.loads(line)
                out.append({f: (rec[f] if f == "payload" else float(rec[f])) for f in Forwarded.PUBLIC_FIELDS})
    return out
