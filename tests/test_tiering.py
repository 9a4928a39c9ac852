"""The numpy → numba tiering is decided on CPU time, never on wall time (issue 30, item 1).

:func:`anonkit._kernels.tiered` runs a kernel's numpy version until that work has cost
:data:`~anonkit._kernels.NUMBA_AFTER_SECONDS`, then loads numba. A busy machine makes a kernel *wait*
for a core: counted in wall time, that wait loaded numba (0.3 CPU-s and ~60 MB) in runs meant to stay
on numpy. These tests make the wall clock run away (a kernel that waits, and every wall clock of the
``time`` module jumping) and check that the tier does not move, with controls in which CPU work of
the same size does move it, so each test can fail."""

from __future__ import annotations

import threading
import time

import pytest

from anonkit import _kernels as K

#: the wall clocks a tiering decision must not read
WALL_CLOCKS = ("time", "perf_counter", "monotonic", "time_ns", "perf_counter_ns", "monotonic_ns")


@pytest.fixture
def numpy_tier(monkeypatch):
    """The numpy tier with a small budget (0.05 CPU-s); the process's tier restored afterwards."""
    was = K.use_numba()
    K.use_numba(False)
    monkeypatch.setattr(K, "NUMBA_AFTER_SECONDS", 0.05)
    yield
    K.use_numba(was)


def _never_compiled(*_args):  # the kernel numba would compile: these tests never reach it
    raise AssertionError("the numba tier ran")


def _waits(seconds: float) -> int:
    """Work that only waits (as a kernel does for a core on a loaded machine): wall time, no CPU."""
    threading.Event().wait(seconds)
    return 1


def _burns(seconds: float) -> int:
    """Work that costs ``seconds`` of this thread's CPU time."""
    end = time.thread_time() + seconds
    n = 0
    while time.thread_time() < end:
        n += 1
    return n


def test_the_work_clock_is_cpu_time() -> None:
    """The clock the tiered kernels count their work on is a CPU clock of the process or thread."""
    assert K.WORK_CLOCK in (time.thread_time, time.process_time)


def test_waiting_longer_than_the_budget_keeps_numpy(numpy_tier) -> None:
    """A numpy kernel that waits 3× the budget in wall time (and costs next to no CPU) stays on numpy."""
    assert K.tiered(_never_compiled, _waits, 0.15) == 1
    assert K.use_numba() is False


def test_cpu_work_of_the_budget_switches_to_numba(numpy_tier) -> None:
    """The control: a numpy kernel that costs the budget in CPU time switches the tier."""
    assert K.tiered(_never_compiled, _burns, 0.06) > 0
    assert K.use_numba() is True


def test_wall_clocks_running_away_do_not_move_the_tier(numpy_tier, monkeypatch) -> None:
    """Every wall clock of ``time`` jumps an hour per reading during many small numpy kernels: the
    tier stays numpy (none of them is read); the same kernels counted on a CPU clock that jumps
    switch it (the control)."""
    hours = iter(range(0, 10**9, 3600))
    for name in WALL_CLOCKS:
        monkeypatch.setattr(time, name, lambda: next(hours))
    for _ in range(50):
        K.tiered(_never_compiled, lambda: 0)
    assert K.use_numba() is False
    monkeypatch.setattr(K, "WORK_CLOCK", lambda: next(hours))
    K.tiered(_never_compiled, lambda: 0)
    assert K.use_numba() is True
