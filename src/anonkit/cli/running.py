"""Running a command's job: on a worker thread that Ctrl-C and SIGTERM stop at once, with a progress display."""

from __future__ import annotations

import contextvars
import os
import sys
import threading
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

from anonkit.cli import console

T = TypeVar("T")

#: how often the progress display redraws (rich's default is 10): each redraw renders the bar on rich's
#: refresh thread, ~1.6 ms of CPU in a terminal, so 10 a second cost 0.08 CPU-s over a 5 s job and 4 cost
#: 0.04 (0.028 and 0.019 when standard error is no terminal); the phase and the count still move 4 times a second
PROGRESS_REFRESH_PER_SECOND = 4


def interruptible(job: Callable[[], T]) -> T:
    """Run ``job`` on a worker thread and wait for it here, where Python delivers Ctrl-C.

    On Ctrl-C the job is stopped at once, even inside a numba kernel: no output not yet moved into
    place will be (:func:`anonkit.interrupt.request`), temporary files are removed, one line says
    what was written (nothing, unless a write had already completed), and the process exits 130.
    """
    from anonkit import interrupt
    from anonkit.io import terminating

    box: dict[str, object] = {}
    context = contextvars.copy_context()  # the progress callback travels with the job

    def work() -> None:
        try:
            box["value"] = context.run(job)
        except BaseException as exc:  # re-raised on the main thread
            box["error"] = exc

    worker = threading.Thread(target=work, name="anonkit-job", daemon=True)
    try:
        with terminating():  # SIGTERM stops the job as Ctrl-C does (temporary files removed)
            worker.start()
            while worker.is_alive():
                worker.join(0.05)
    except KeyboardInterrupt:
        written = interrupt.request()
        interrupt.remove_temporary()
        stop_interrupted(written)
    if "error" in box:
        error = box["error"]
        if isinstance(error, KeyboardInterrupt):
            stop_interrupted(interrupt.request())
        raise error  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


def stop_interrupted(written: list[str]) -> NoReturn:
    """Say in one line what an interrupted job had written, and end the process with 130."""
    what = "nothing was written" if not written else "already written: " + ", ".join(written)
    console.err.print(f"interrupted: {what}", highlight=False, markup=False, soft_wrap=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


def _progress() -> Any:
    """The progress display of a command's job on standard error: the phase, a bar, the count and the
    time elapsed, gone when the job ends.

    Only on a terminal: a transient display shows nothing in a file or a pipe, yet rich would still render
    it on its refresh thread 4 times a second (issue 30: ~0.02 CPU-s over a 5 s job) and end it with a
    blank line; there the display is disabled (no thread, no line) and the job's steps update it alike."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    return Progress(
        SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console.err, transient=True, refresh_per_second=PROGRESS_REFRESH_PER_SECOND,
        disable=not console.err.is_terminal,
    )


def with_steps(job: Callable[[Callable[[int, int, str], None]], T]) -> T:
    """Run ``job(step)`` interruptibly with a progress bar that ``step(done, total, what)`` moves."""
    with _progress() as bar:
        task = bar.add_task("starting", total=None)

        def step(done: int, total: int, what: str) -> None:
            bar.update(task, description=what, completed=done, total=total)

        return interruptible(lambda: job(step))


def run_with_progress(plan):  # type: ignore[no-untyped-def]
    """Run ``plan`` with a progress display: the phase, and a bar of checked transformations in a
    search (of clusters grouped, or records scanned, for the background-knowledge algorithms)."""
    from anonkit.algorithms.common import PROGRESS
    from anonkit.runner import run

    with _progress() as bar:
        task = bar.add_task("starting", total=None)

        def phase(msg: str) -> None:
            bar.update(task, description=msg)

        what = plan.algorithm.progress or "working"

        def checked(done: int, total: int) -> None:
            bar.update(task, description=what, completed=done, total=total)

        token = PROGRESS.set(checked)
        try:
            return interruptible(lambda: run(plan, phase))
        finally:
            PROGRESS.reset(token)
