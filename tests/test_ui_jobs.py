"""The browser application's one job at a time (``anonkit.ui.jobs``): Cancel and the end of the page's
session stop a running job at its next check point, nothing kept; the application
then takes the next job (the process-wide interrupt is reset)."""

from __future__ import annotations

import threading
import time

import pytest

from anonkit import interrupt
from anonkit.ui.jobs import Busy, Cancelled, JobState, run_job


def _endless(state: JobState, started: threading.Event) -> None:
    started.set()
    while True:  # what a long run does: work, then a check point
        interrupt.check()
        time.sleep(0.01)


def _in_thread(state: JobState) -> tuple[threading.Thread, dict, threading.Event]:
    started, out = threading.Event(), {}

    def go() -> None:
        try:
            run_job(state, lambda st: _endless(st, started))
        except BaseException as exc:  # the test reads what ended the job
            out["exc"] = exc

    worker = threading.Thread(target=go, daemon=True)
    worker.start()
    assert started.wait(10)
    return worker, out, started


def test_cancel_stops_a_running_job_and_the_next_one_runs() -> None:
    state = JobState()
    worker, out, _ = _in_thread(state)
    assert state.snapshot()[0]  # running
    with pytest.raises(Busy):  # one job at a time
        run_job(JobState(), lambda st: None)
    state.cancel()
    worker.join(30)  # a hang guard, not a speed claim (how fast a stop is belongs in benchmarks/)
    assert not worker.is_alive()
    assert isinstance(out.get("exc"), Cancelled) and "nothing was written" in str(out["exc"])
    assert not interrupt.requested() and not state.snapshot()[0]
    assert run_job(JobState(), lambda st: "next") == "next"  # the application goes on


def test_a_job_nobody_cancels_keeps_running() -> None:
    """Control: without Cancel (or the page's end) the job is still running a while later."""
    state = JobState()
    worker, out, _ = _in_thread(state)
    time.sleep(0.5)
    assert worker.is_alive() and "exc" not in out
    state.cancel()  # end it (the page's session end calls this same method)
    worker.join(5)
    assert isinstance(out.get("exc"), Cancelled)
