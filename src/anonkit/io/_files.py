"""Files on disk: checking an input file, the target of a write, and writing atomically through a
temporary file in the target's directory (flushed, given the old file's mode, moved into place).

The public names (:func:`check_file`, :func:`write_target`, :func:`atomic_write`, :func:`terminating`,
:func:`recording_digests`) are re-exported by :mod:`anonkit.io`: every file anonkit writes — tables,
hierarchies, reports, manifests, cloaked messages — goes through them.

A run records the SHA-256 of its input for the audit trail. So that the input is read once, the
readers hash the bytes they read (:func:`read_bytes`, :class:`HashingReader` for a stream) into
the digests of the :func:`recording_digests` context they run in, instead of a second pass over the
file. A database file (SQLite, DuckDB) is queried, not read through: it is not recorded."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import signal
import socket
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path

from anonkit import interrupt
from anonkit.errors import InputError


def check_file(loc: str) -> int:
    """The size of the readable file ``loc``; InputError if it is missing, a directory or unreadable
    (check an input before reading it, so the error names the file rather than the reader's failure)."""
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


#: the digests being recorded (file → SHA-256 hex), ``None`` outside :func:`recording_digests`
_DIGESTS: ContextVar[dict[str, str] | None] = ContextVar("anonkit_read_digests", default=None)


@contextlib.contextmanager
def recording_digests() -> Iterator[dict[str, str]]:
    """Within this context, every file read whole by anonkit's readers has its SHA-256 (hex) put in
    the yielded mapping, keyed by the location as given to the reader."""
    seen: dict[str, str] = {}
    token = _DIGESTS.set(seen)
    try:
        yield seen
    finally:
        _DIGESTS.reset(token)


def _record(loc: str, digest: str) -> None:
    seen = _DIGESTS.get()
    if seen is not None:
        seen[loc] = digest


def read_bytes(loc: str) -> bytes:
    """The bytes of the input file ``loc`` (checked first: the error names the file); their SHA-256 is
    recorded in the current :func:`recording_digests`."""
    check_file(loc)
    try:
        data = Path(loc).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", file=loc) from exc
    _record(loc, hashlib.sha256(data).hexdigest())
    return data



def mapped_file(loc: str) -> memoryview:
    """The input file ``loc`` mapped into memory, read-only (a large file is then read from disk once,
    by the hashing and the parsing together); its SHA-256 is recorded (:func:`recording_digests`)."""
    import mmap

    size = check_file(loc)
    if size == 0:
        return memoryview(b"")
    with open(loc, "rb") as fh:
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    view = memoryview(mapped)
    _record(loc, hashlib.sha256(view).hexdigest())
    return view


class HashingReader:
    """A binary stream over the file ``loc`` that hashes what is read from it, front to back; when the
    reader is done, :meth:`finish` hashes whatever it left (nothing, for a reader that read to the end)
    and records the file's SHA-256 (:func:`recording_digests`)."""

    def __init__(self, loc: str) -> None:
        self._loc = loc
        self._fh = open(loc, "rb")  # noqa: SIM115 - closed by close() / the context manager
        self._digest = hashlib.sha256()
        self.closed = False

    def read(self, size: int = -1) -> bytes:
        data = self._fh.read(size)
        self._digest.update(data)
        return data

    def finish(self) -> None:
        """Hash the rest of the file (the reader's consumer is done) and record the digest."""
        for block in iter(lambda: self._fh.read(1 << 20), b""):
            self._digest.update(block)
        _record(self._loc, self._digest.hexdigest())

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def writable(self) -> bool:
        return False

    def close(self) -> None:
        self._fh.close()
        self.closed = True

    def __enter__(self) -> HashingReader:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def write_target(loc: str) -> Path:
    """The file a write to ``loc`` goes to (through a symlink, so the link is kept and its target
    replaced); InputError if ``loc`` is a directory or the directory to write into is missing."""
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


#: how long a temporary file no live process of this machine can own (an older anonkit's, without a pid, or
#: one written from another machine into a shared folder) must have been left unchanged before a run removes it
STALE_AFTER_SECONDS = 3600
#: anonkit's temporary names: ``.NAME.<pid>-<host>.<random>.tmp`` (the pid and a tag of the machine that
#: writes it), or an older anonkit's ``.NAME.<random>.tmp``
_TEMP = r"^\.{name}\.(?:(?P<pid>\d+)-(?P<host>[0-9a-f]{{8}})\.)?[A-Za-z0-9_]{{8}}\.tmp$"


def _host_tag() -> str:
    """A short tag of this machine (its hostname's hash): a pid only means something on the machine."""
    return hashlib.sha256(socket.gethostname().encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine (one we may not signal counts as running)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def temporary_name(target: Path) -> str:
    """The prefix of a temporary file for ``target``: ``.NAME.<pid>-<host>.`` (then 8 random characters
    and ``.tmp``), so a later run can tell whether the process that made it is gone."""
    return f".{target.name}.{os.getpid()}-{_host_tag()}."


def remove_stale(target: Path) -> list[Path]:
    """Remove the temporary files of ``target`` that killed runs left in its folder; return them.

    Only anonkit's own names for ``target`` (:data:`_TEMP`) are touched: one whose pid names this
    machine and no running process is removed; one without a pid, or made on another machine, only
    once unchanged for :data:`STALE_AFTER_SECONDS`. A temporary file of a live writer is never touched.
    """
    removed: list[Path] = []
    pattern = re.compile(_TEMP.format(name=re.escape(target.name)))
    host, now = _host_tag(), time.time()
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return removed
    for entry in entries:
        m = pattern.match(entry.name)
        if m is None:
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            if m.group("pid") is not None and m.group("host") == host:
                stale = not _alive(int(m.group("pid")))
            else:
                stale = now - entry.stat(follow_symlinks=False).st_mtime > STALE_AFTER_SECONDS
            if stale:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


def atomic_write(target: Path, loc: str, write: Callable[[str], object]) -> None:
    """Call ``write(tmp)`` on a temporary file next to ``target``, then move it into place.

    The temporary file is removed on every way out — an error, Ctrl-C (the command line removes what
    :func:`anonkit.interrupt.temporary` holds), SIGTERM (turned into Ctrl-C by :func:`terminating`);
    a run killed outright leaves it, and the next write to ``target`` removes it (:func:`remove_stale`).
    """
    remove_stale(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=temporary_name(target), suffix=".tmp", dir=target.parent)
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


@contextlib.contextmanager
def terminating() -> Iterator[None]:
    """While inside (on the main thread), SIGTERM is raised as :class:`KeyboardInterrupt`, so a
    terminated command stops the way Ctrl-C stops it: no output half-written, temporary files removed.
    Elsewhere (another thread, no SIGTERM) it does nothing."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGTERM"):
        yield
        return

    def stop(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


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
