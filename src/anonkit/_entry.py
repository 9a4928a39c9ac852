"""The ``anonkit`` console script and ``python -m anonkit``: Ctrl-C at any moment exits 130 with one line.

The rule: from the first line of this module on, a Ctrl-C ends the process with exit status 130 and
one line on standard error (``interrupted: nothing was written``, or the outputs already in place),
never a ``KeyboardInterrupt`` traceback, never death by the signal, never click's ``Aborted!`` (exit 1).
So the SIGINT handler is installed here, before anything heavy is imported (the command line pulls in
typer, rich, pandas, numpy, pyarrow: seconds on a loaded machine), and it decides what a Ctrl-C does:

* while a job runs on the command line's worker thread (:data:`JOB_THREAD`), it raises
  :class:`KeyboardInterrupt` on the main thread, which waits for the job there and stops it
  properly (:func:`anonkit.interrupt.request`: no output not yet moved into place ever will be);
* anywhere else (imports, config checks, printing a summary, a report written on the main thread)
  it stops the process itself (:func:`anonkit.interrupt.stop`); on the thread that is moving an
  output into place it waits for that move's end (:func:`anonkit.interrupt.after_commit`);
* once a stop is under way, further Ctrl-C are ignored: the stop is short and must finish.

Only the interpreter's own start-up (before this module's first line runs: ~20 ms, the interpreter
and the package's ``__init__``, which imports nothing heavy) is outside what a Python program can
govern. A SIGINT that was ignored when the process started (``nohup``, a background job of a
non-interactive shell) stays ignored, as Python itself does.
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

#: the name of the command line's job thread (:func:`anonkit.cli.running.interruptible`)
JOB_THREAD = "anonkit-job"


def _interrupt_module():  # type: ignore[no-untyped-def]
    """:mod:`anonkit.interrupt` once it is completely imported, else ``None``."""
    module = sys.modules.get("anonkit.interrupt")
    return module if module is not None and hasattr(module, "after_commit") else None


def _job_running() -> bool:
    threading = sys.modules.get("threading")
    return threading is not None and any(t.name == JOB_THREAD and t.is_alive() for t in threading.enumerate())


def _stop() -> None:
    """End the process with 130 and one line (through :mod:`anonkit.interrupt` when it is loaded)."""
    interrupt = _interrupt_module()
    if interrupt is not None:
        interrupt.stop()
    os.write(2, b"interrupted: nothing was written\n")  # nothing that writes was even imported
    os._exit(130)


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    interrupt = _interrupt_module()
    if interrupt is not None and interrupt.requested():
        return  # a stop is under way
    if isinstance(sys.exc_info()[1], KeyboardInterrupt):
        return  # the code this lands in is already handling a Ctrl-C
    if _job_running():
        raise KeyboardInterrupt  # the main thread waits for the job and stops it (anonkit.cli)
    if interrupt is not None and interrupt.committing_here():
        interrupt.after_commit(_stop)
        return
    _stop()


#: the command lines answered here without loading the command line (typer, click, rich: ~0.1 CPU-s),
#: each with exactly what the command line prints for it (``tests/test_fixed_costs.py`` compares them)
FAST_PATHS = (("--version",),)


def _fast_path(argv: list[str]) -> bool:
    """Answer ``anonkit --version`` (nothing else on the line) as the command line would: print
    ``anonkit VERSION`` and exit 0. Returns False for any other command line."""
    if tuple(argv) not in FAST_PATHS:
        return False
    from anonkit._version import __version__

    sys.stdout.write(f"anonkit {__version__}\n")
    sys.stdout.flush()
    return True


#: the cyclic garbage collector's thresholds for the command line's process (Python's default: 700, 10,
#: 10). A run allocates millions of short-lived objects (pandas, pyarrow, pydantic) and few cycles, so the
#: default collects some 500 times and walks every live object 3–4 times in the bundled job: about 0.26
#: CPU-s of its 1.3 of fixed cost; with these, 0.09, at the same peak memory (issue 30). Only the console
#: script sets them: a program that imports anonkit keeps its own.
GC_THRESHOLDS = (50_000, 20, 100)


def main() -> None:
    """Console-script entry point: the SIGINT handling first, then the collector's thresholds
    (:data:`GC_THRESHOLDS`), then the command line."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_sigint)
    import gc

    gc.set_threshold(*GC_THRESHOLDS)
    if _fast_path(sys.argv[1:]):
        return
    try:
        from anonkit.cli import main as run

        run()
    except KeyboardInterrupt:  # one that reached past the command line (cli.main stops on its own)
        _stop()


if __name__ == "__main__":
    main()
