"""``anonkit cloak``: a message stream from a file or standard input through the broker, the
forwarded requests to a file (atomically) or standard output.

:func:`run_stream` checks what can be checked before reading a message (the area, the policy, the
input file, the output target: its directory, that it is not the input, that its suffix does not name
the other format), then cloaks message by message and writes one row per forwarded request with the
public fields only, in the input's format. With ``output`` the rows go to a temporary file moved into
place at the end, so an error in the input (naming its line) or an interrupt leaves no output; on
standard output each row is written as it is released.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from anonkit import interrupt
from anonkit.errors import InputError
from anonkit.io import check_file as _check_file
from anonkit.io import write_target as _target
from anonkit.location.cloak import Cloaker
from anonkit.location.messages import (
    Area,
    Format,
    Forwarded,
    Message,
    Policy,
    _write_rows,
    read_messages,
    stream_format,
    write_forwarded,
)

__all__ = ["check_output", "run_stream"]

#: messages between two checks for Ctrl-C
_CHECK_EVERY = 4096


def run_stream(
    source: str | os.PathLike[str] | TextIO,
    *,
    area: Area,
    policy: Policy,
    output: str | os.PathLike[str] | None = None,
    format: Format | None = None,
    json_summary: bool = False,
) -> dict:
    """Cloak the message stream ``source`` (a file, ``"-"`` for standard input, or a text stream).

    Parameters
    ----------
    area, policy:
        The service's area and the cloaking policy.
    output:
        Where the forwarded requests go (``None`` or ``"-"``: standard output), in the input's format.
    format:
        ``"csv"`` or ``"jsonl"``; ``None``: from the input's suffix, else sniffed.
    json_summary:
        Also print the summary as one JSON line: on standard error when the rows go to standard
        output, else on standard output. (``anonkit cloak`` prints it itself.)

    Returns
    -------
    dict
        :meth:`Cloaker.stats <anonkit.location.cloak.Cloaker.stats>` (requests, served, held,
        dropped, median and 95th-percentile area and delay, k achieved) with ``messages``,
        ``subjects``, ``format``, ``input`` and ``output``.

    Raises
    ------
    InputError
        Before any work: a bad area, policy, input file or output target. While reading: the line,
        field and value of an out-of-order timestamp, a position outside the area, a missing,
        non-numeric or unknown field, an unknown kind.
    """
    if not isinstance(area, Area):
        raise InputError(f"the area must be an Area, not {type(area).__name__}", key="--area")
    if not isinstance(policy, Policy):
        raise InputError(f"the policy must be a Policy, not {type(policy).__name__}", key="policy")
    cloaker = Cloaker(area, policy)
    fmt = stream_format(source, format)
    shown = _shown(source)
    if isinstance(source, str | os.PathLike) and os.fsdecode(source) != "-":
        _check_file(os.fsdecode(source))
    to_stdout = output is None or os.fsdecode(output) == "-"
    if not to_stdout:
        fmt = check_output(output, source, fmt)  # type: ignore[arg-type]
    handle = source
    if fmt is None:  # sniff now, so that the output's format is known before the first row
        handle, fmt = _sniffed(source)
    counted = _Counter(read_messages(handle, area=area, format=fmt))
    rows = _released(counted, cloaker)
    if to_stdout:
        _write_rows(rows, sys.stdout, fmt, flush=True)
        sys.stdout.flush()
    else:
        write_forwarded(rows, output, format=fmt)  # type: ignore[arg-type]
    result = cloaker.stats()
    result.update(messages=counted.n, subjects=cloaker.subjects, format=fmt, input=shown,
                  output=None if to_stdout else os.fsdecode(output))  # type: ignore[arg-type]
    if json_summary:
        print(json.dumps(result), file=sys.stderr if to_stdout else sys.stdout, flush=True)
    return result


def check_output(output: str | os.PathLike[str], source: object, fmt: Format | None) -> Format | None:
    """Check, before any work, that the rows can be written to ``output``: its directory exists and
    is writable, it is not a directory, not the input, and its suffix does not name the other format.
    Returns the format (the output's suffix decides when the input's is unknown)."""
    loc = os.fsdecode(output)
    target = _target(loc)
    if not os.access(target.parent, os.W_OK | os.X_OK):
        raise InputError("the directory to write into is not writable", file=loc)
    if target.exists() and not os.access(target, os.W_OK) and not os.access(target.parent, os.W_OK):
        raise InputError("the file is not writable", file=loc)
    if isinstance(source, str | os.PathLike) and os.fsdecode(source) != "-":
        src = Path(os.fsdecode(source))
        same = os.path.realpath(src) == os.path.realpath(target)
        if not same and target.exists():
            try:
                same = src.samefile(target)
            except OSError:
                same = False
        if same:
            raise InputError("the output is the input: write the forwarded requests elsewhere", file=loc)
    out_fmt = stream_format(loc)
    if out_fmt is not None and fmt is not None and out_fmt != fmt:
        raise InputError(f"the output's suffix names {out_fmt} but the input is {fmt}: the forwarded requests "
                         "are written in the input's format", file=loc)
    return fmt


def _sniffed(source: str | os.PathLike[str] | TextIO) -> tuple[str | os.PathLike[str] | TextIO, Format]:
    """The format of a source whose name does not tell it, and a source to read it from."""
    if isinstance(source, str | os.PathLike) and os.fsdecode(source) != "-":
        with open(os.fsdecode(source), encoding="utf-8-sig", errors="replace") as fh:
            for line in fh:
                if line.strip():
                    return source, "jsonl" if line.strip().lstrip("\ufeff").startswith(("{", "[")) else "csv"
        return source, "csv"
    stream = sys.stdin if not hasattr(source, "read") else source
    head: list[str] = []
    fmt: Format = "csv"
    for line in stream:  # type: ignore[union-attr]
        head.append(line)
        if line.strip().lstrip("\ufeff"):
            fmt = "jsonl" if line.strip().lstrip("\ufeff").startswith(("{", "[")) else "csv"
            break
    return _Chained(head, stream), fmt  # type: ignore[arg-type, return-value]


class _Chained:
    """A text stream's first lines (already read) followed by the rest."""

    def __init__(self, head: list[str], rest: TextIO) -> None:
        self._head = head
        self._rest = rest
        self.name = getattr(rest, "name", "<stream>")

    def __iter__(self) -> Iterator[str]:
        yield from self._head
        yield from self._rest


class _Counter:
    def __init__(self, messages: Iterator[Message]) -> None:
        self._it = messages
        self.n = 0

    def __iter__(self) -> Iterator[Message]:
        for msg in self._it:
            self.n += 1
            if not self.n % _CHECK_EVERY:
                interrupt.check()
            yield msg


def _released(messages: _Counter, cloaker: Cloaker) -> Iterator[Forwarded]:
    push = cloaker.push
    for msg in messages:
        yield from push(msg)
    yield from cloaker.close()


def _shown(source: object) -> str:
    if isinstance(source, str | os.PathLike):
        loc = os.fsdecode(source)
        return "<stdin>" if loc == "-" else loc
    return str(getattr(source, "name", "<stream>"))
