"""Read and write hierarchies in ARX's CSV format.

Format (ARX compatibility §2.6, NOTICE of the bundled data): ``;``-separated, no header, one row
per original value, column 0 = original value, last column = most general value. Files may lack a
trailing newline, may use CRLF line ends and may start with a UTF-8 byte-order mark.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
from pathlib import Path

from anonkit.errors import InputError
from anonkit.hierarchy._core import Hierarchy


def read_hierarchy(
    path: str | os.PathLike[str],
    *,
    name: str | None = None,
    separator: str = ";",
    encoding: str = "utf-8",
) -> Hierarchy:
    """Read an ARX hierarchy CSV file.

    Raises
    ------
    InputError
        If the file cannot be read, is empty, or is not a valid hierarchy (see :class:`Hierarchy`).
    """
    p = Path(path)
    if p.is_dir():
        raise InputError("the hierarchy is a directory, not a file", column=name, file=str(p))
    try:
        codec = codecs.lookup(encoding).name
    except (LookupError, TypeError):
        raise InputError("unknown encoding", column=name, key="encoding", value=encoding) from None
    try:  # a UTF-8 byte-order mark (Excel's "CSV UTF-8") is no part of the first value
        text = p.read_bytes().decode("utf-8-sig" if codec == "utf-8" else codec)
    except FileNotFoundError:
        raise InputError("hierarchy file not found", column=name, file=str(p)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read hierarchy file: {exc}", column=name, file=str(p)) from None
    return parse_hierarchy(text, name=name, separator=separator, source=str(p))


def parse_hierarchy(
    text: str, *, name: str | None = None, separator: str = ";", source: str | None = None
) -> Hierarchy:
    """Parse the text of an ARX hierarchy file (a leading byte-order mark is dropped)."""
    text = text.removeprefix("\ufeff")
    rows = [r for r in csv.reader(io.StringIO(text), delimiter=separator) if r and any(c != "" for c in r)]
    if not rows:
        raise InputError("hierarchy file is empty", column=name, file=source)
    if all(len(r) == 1 for r in rows) and separator not in text:
        for other in (",", "\t", "|"):
            if other in text:
                raise InputError(
                    f"hierarchy has a single column; is the separator {other!r} rather than {separator!r}?",
                    column=name,
                    file=source,
                )
    return Hierarchy(rows, name=name, source=source)


def write_hierarchy(
    hierarchy: Hierarchy, path: str | os.PathLike[str], *, separator: str = ";", encoding: str = "utf-8"
) -> None:
    """Write ``hierarchy`` in ARX's CSV format, atomically through :func:`anonkit.io._files._atomic_write`
    (a temporary file removed on every way out, a stale one of a killed run removed by the next write)."""
    from anonkit.io import atomic_write as _atomic_write

    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=separator, lineterminator="\n")
    writer.writerows(hierarchy.rows())
    text = buf.getvalue()
    p = Path(path)
    _atomic_write(p, str(p), lambda tmp: Path(tmp).write_text(text, encoding=encoding))
