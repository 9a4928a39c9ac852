"""Long work off the request loop: one job at a time, on a worker thread, with its progress readable by
the page and a cancel that stops it at the next check point.

A run is :func:`anonkit.runner.run` on a worker thread (``asyncio.to_thread``, so the page stays live);
its phases (``progress``) and the search's checked transformations (``anonkit.algorithms.common.PROGRESS``)
go into a :class:`JobState` the page polls. Cancel uses the package's one interrupt
(:func:`anonkit.interrupt.request`: the job raises at its next check point, no output becomes visible,
temporary files are removed) and then forgets it (:func:`anonkit.interrupt.reset`) so the application
keeps going. The interrupt is process-wide, so only one job runs at a time in the application
(:data:`_ONE_JOB`); a second is refused with a message, not queued.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from anonkit import interrupt

__all__ = ["Busy", "Cancelled", "JobState", "run_job"]

_ONE_JOB = threading.Lock()


class Busy(Exception):
    """Another job of the application is running."""


class Cancelled(Exception):
    """The job was cancelled (by the user, or because the page was closed)."""


@dataclass
class JobState:
    """What the page shows of a job: running or not, the phase, the steps done of how many."""

    running: bool = False
    phase: str = ""
    done: int = 0
    total: int = 0
    started: float = 0.0
    cancel_requested: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def say(self, phase: str) -> None:
        with self.lock:
            self.phase, self.done, self.total = phase, 0, 0

    def step(self, done: int, total: int, what: str | None = None) -> None:
        with self.lock:
            self.done, self.total = int(done), int(total)
            if what:
                self.phase = what

    def snapshot(self) -> tuple[bool, str, int, int, float]:
        with self.lock:
            elapsed = time.perf_counter() - self.started if self.running else 0.0
            return self.running, self.phase, self.done, self.total, elapsed

    def cancel(self) -> None:
        """Ask the running job (if it is this one) to stop."""
        with self.lock:
            if not self.running or self.cancel_requested:
                return
            self.cancel_requested = True
        interrupt.request()


def run_job(state: JobState, work: Callable[[JobState], Any]) -> Any:
    """Run ``work(state)`` here (a worker thread) as the application's one job; raises :class:`Busy`
    when another runs and :class:`Cancelled` when it was stopped."""
    from anonkit.algorithms.common import PROGRESS

    if not _ONE_JOB.acquire(blocking=False):
        raise Busy("another run of this application is in progress; wait for it or cancel it")
    with state.lock:
        state.running, state.cancel_requested, state.started = True, False, time.perf_counter()
        state.phase, state.done, state.total = "starting", 0, 0
    token = PROGRESS.set(lambda done, total: state.step(done, total))
    try:
        return work(state)
    except KeyboardInterrupt:
        raise Cancelled("cancelled: nothing was written") from None
    finally:
        PROGRESS.reset(token)
        with state.lock:
            stopped = state.cancel_requested
            state.running = False
        if stopped or interrupt.requested():
            interrupt.remove_temporary()
            interrupt.reset()
        _ONE_JOB.release()
