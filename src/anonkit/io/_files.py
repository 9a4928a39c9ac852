"""Files on disk: checking an input file, the target of a write, and writing atomically through a
temporary file in the target's directory (flushed, given the old file's mode, moved into place)."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from anonkit import interrupt
from anonkit.errors import InputError


def _check_file(loc: str) -> int:
    """The size of the readable file ``loc``; InputError if it is missing or unreadable."""
    try:
        st = os.stat(loc)
    except FileNotFoundError:
        raise InputError("file not found", file=loc) from None
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", file=loc) from exc
    if stat.S_ISDIR(st.st_mode):
        raise InputError("this is a directory, not a file", file=loc)
    if not os.access(loc, os.R_OK):
        raise InputError("permission denied: cannot read the file", file=loc)
    return st.st_size


def _read_bytes(loc: str) -> bytes:
    _check_file(loc)
    try:
        return Path(loc).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", file=loc) from exc


def _target(loc: str) -> Path:
    """The file a write goes to (through a symlink); InputError if its directory is missing."""
    target = Path(loc)
    if target.is_symlink():
        target = target.resolve()
    if target.is_dir():
        raise InputError("this is a directory, not a file", file=loc)
    parent = target.parent
    if not parent.is_dir():
        raise InputError("the directory to write into does not exist", file=loc)
    return target


def _file_mode(target: Path) -> int:
    """Permissions for the new file: those of the file it replaces, else what ``open`` would give."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def _atomic_write(target: Path, loc: str, write: Callable[[str], object]) -> None:
    """Call ``write(tmp)`` on a temporary file next to ``target``, then move it into place."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise InputError(f"cannot write into the directory: {exc.strerror or exc}", file=loc) from exc
    os.close(fd)
    try:
        with interrupt.temporary(tmp):
            write(tmp)
            _fsync(tmp)
            os.chmod(tmp, _file_mode(target))
            with interrupt.committing(loc):
                os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write the file: {exc.strerror or exc}", file=loc) from exc
        raise
    _fsync_dir(target.parent)


def _fsync_dir(directory: Path) -> None:
    """Make the rename durable (POSIX); not possible everywhere, so failures are ignored."""
    with contextlib.suppress(OSError, AttributeError):
        _fsync(directory)


def _fsync(path: str | Path) -> None:
    """Flush the file or directory ``path`` to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)



def _remove_new_db(target: Path, existed: bool, companion: str) -> None:
    """After a failed write, remove the database file the write created and its companion file
    (SQLite's ``-journal``, DuckDB's ``.wal``); an existing file is left to the rolled-back transaction."""
    if existed:
        return
    for path in (target, Path(f"{target}{companion}")):
        with contextlib.suppress(OSError):
            path.unlink()
