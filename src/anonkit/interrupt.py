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

Outside a job (start-up, imports, config checks, printing) the console script's SIGINT handler
(:mod:`anonkit._entry`) stops the process itself through :func:`stop`. A Ctrl-C that lands on the
very thread that is moving an output into place cannot wait for that move (the move is what it
interrupted): it is deferred to the move's end (:func:`after_commit`), so the one line still
names every output that became visible.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import threading
from collections.abc import Callable, Iterator

_stop = threading.Event()
_gate = threading.Lock()
_temporary: set[str] = set()
_committed: list[str] = []
_cancellers: list[Callable[[], None]] = []
_closed = False  # the gate is held for good (request() ran)
_holder: int | None = None  # the thread inside committing()'s gate
_deferred: list[Callable[[], None]] = []

#: the exit status of a run stopped by Ctrl-C (128 + SIGINT, what a shell reports for it)
EXIT_INTERRUPTED = 130


def request() -> list[str]:
    """Ask the running job to stop; returns the outputs that were already made visible.

    After this returns no further output can become visible (the commit gate stays closed). Work
    running elsewhere (a Spark job) is cancelled through the callbacks of :func:`cancelling`.
    """
    global _closed
    _stop.set()
    for cancel in list(_cancellers):
        with contextlib.suppress(Exception):
            cancel()
    if not _closed:  # a second request finds the gate closed already
        _gate.acquire()  # waits for a move in progress, then keeps every later one out
        _closed = True
    return list(_committed)


def stop_line(written: list[str]) -> str:
    """The one line an interrupted command prints (what had become visible before it stopped)."""
    return "interrupted: " + ("nothing was written" if not written else "already written: " + ", ".join(written))


def stop() -> None:
    """End the process now: :func:`request`, remove the temporary files, print :func:`stop_line` on
    standard error and exit :data:`EXIT_INTERRUPTED` without unwinding (nothing else may run: a
    ``finally`` of the interrupted code could still make an output visible or print a traceback)."""
    written = request()
    remove_temporary()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe, or a write the signal interrupted
            stream.flush()
    with contextlib.suppress(OSError):
        os.write(2, (stop_line(written) + "\n").encode("utf-8", "replace"))
    os._exit(EXIT_INTERRUPTED)


def committing_here() -> bool:
    """Whether the calling thread is inside :func:`committing`'s gate (moving an output into place)."""
    return _holder == threading.get_ident()


def after_commit(action: Callable[[], None]) -> None:
    """Run ``action`` when the move in progress on this thread has finished (see the module docstring)."""
    _stop.set()
    _deferred.append(action)


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
    global _holder
    try:
        with _gate:
            check()
            _holder = threading.get_ident()
            try:
                yield
                _committed.append(target)
            finally:
                _holder = None
    finally:
        while _deferred:
            _deferred.pop()()


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
    global _closed
    _stop.clear()
    _closed = False
    _deferred.clear()
    if _gate.locked():
        with contextlib.suppress(RuntimeError):
            _gate.release()
    _committed.clear()
    _temporary.clear()
