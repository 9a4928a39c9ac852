"""``anonkit broker`` as a child process, for the tests that kill, stop and restart it
(test_broker_security, test_broker_spool): started with Ctrl-C at its default disposition, its URL
read from the "listening on" line of its log, and killed at the end if it still runs."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def broker_child(args: list[str], *, cwd: Path | None = None,
                 stdout: int = subprocess.DEVNULL) -> Iterator[tuple[str, subprocess.Popen]]:
    """``python -m anonkit broker ARGS``; yields its URL and the process (its log still open on
    ``proc.stderr``). A shell that started the tests in the background ignores SIGINT, and children
    inherit that: the child gets the default disposition back, as in a terminal."""
    proc = subprocess.Popen([sys.executable, "-m", "anonkit", "broker", *args], stderr=subprocess.PIPE,
                            stdout=stdout, text=True, cwd=cwd, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stderr is not None
        url = None
        for line in proc.stderr:
            match = re.search(r"listening on (http://\S+:\d+)", line)
            if match:
                url = match.group(1)
                break
        assert url, "the broker did not start"
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)
