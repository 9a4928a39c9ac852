"""Stopping long work on Ctrl-C without leaving a half-written output.

The command line runs each job on a worker thread and waits for it on the main thread, which is the
one Python delivers Ctrl-C to, so an interrupt is seen at once even while the worker sits in a
numba kernel that cannot be interrupted. The main thread then calls :func:`request`, which

* makes :func:`check` raise :class:`KeyboardInterrupt` at the worker's next check point, and
* closes the gate every write passes to make its output visible (:func:`committing`): a write
  that has not reached its final move never will, and one that has is waited for and reported.

Writes (``anonkit.io``) create a temporary file or table first, register it with
:func:`temporary`, and move it into place inside :func:`committing`; after an interrupt the
command removes what is still registered and exits, so the target holds the old content or the
new one, never a part, and no temporary file is left behind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
from collections.abc import Callable, Iterator

_stop = threading.Event()
_gate = threading.Lock()
_temporary: set[str] = set()
_committed: list[str] = []
_cancellers: list[Callable[[], None]] = []


def request() -> list[str]:
    """Ask the running job to stop; returns the outputs that were already made visible.

    After this returns no further output can become visible (the commit gate stays closed). Work
    running elsewhere (a Spark job) is cancelled through the callbacks of :func:`cancelling`.
    """
    _stop.set()
    for cancel in list(_cancellers):
        with contextlib.suppress(Exception):
            cancel()
    _gate.acquire()  # waits for a move in progress, then keeps every later one out
    return list(_committed)


@contextlib.contextmanager
def cancelling(cancel: Callable[[], None]) -> Iterator[None]:
    """While inside, an interrupt also calls ``cancel`` (e.g. ``SparkContext.cancelAllJobs``)."""
    _cancellers.append(cancel)
    try:
        yield
    finally:
        _cancellers.remove(cancel)


def requested() -> bool:
    """Whether an interrupt was requested."""
    return _stop.is_set()


def check() -> None:
    """Raise :class:`KeyboardInterrupt` if an interrupt was requested (call between steps)."""
    if _stop.is_set():
        raise KeyboardInterrupt


@contextlib.contextmanager
def committing(target: str) -> Iterator[None]:
    """The gate around the step that makes ``target`` visible (a rename, a ``COMMIT``)."""
    with _gate:
        check()
        yield
        _committed.append(target)


@contextlib.contextmanager
def temporary(path: str) -> Iterator[None]:
    """Register ``path`` as a temporary file to remove if the process is stopped meanwhile."""
    _temporary.add(path)
    try:
        yield
    finally:
        _temporary.discard(path)


def remove_temporary() -> None:
    """Remove every registered temporary file or directory (after :func:`request`, before exiting)."""
    for path in list(_temporary):
        with contextlib.suppress(OSError):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
    _temporary.clear()


def reset() -> None:
    """Forget a previous interrupt (tests; a long-lived process that keeps going)."""
    _stop.clear()
    if _gate.locked():
        with contextlib.suppress(RuntimeError):
            _gate.release()
    _committed.clear()
    _temporary.clear()
