"""Ctrl-C at any moment of a real ``anonkit`` process, import included: exit 130, one line, nothing written.

The process is the installed console script (``.venv/bin/anonkit``) or ``python -m anonkit``. A
``sitecustomize`` put first on ``PYTHONPATH`` (test code only, nothing in anonkit) makes the process
stop at the import of a chosen module — on the main thread during start-up, or on the job's thread —
and touch a marker file; the test sends SIGINT once the marker exists. So every moment is reached
for sure, whatever the machine's load: the tests do not depend on timing to pass.
"""

from __future__ import annotations

import importlib.metadata
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from bad_input_kit import base_config

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
SCRIPT = Path(sys.executable).with_name("anonkit")
ONE_LINE = "interrupted: nothing was written"
#: seconds a stopped process may take to exit before the test calls it a hang (a stop takes about 1 s);
#: the hook dumps every thread's stack at 60 s, so a hang's report shows where it stood
HANG_GUARD = 120

#: the test's import hook: at the first import of $AK_MARK_AT (default $AK_BLOCK_AT) touch $AK_MARK; at the
#: first import of $AK_BLOCK_AT sleep for good (until the signal), in short sleeps: a SIGINT that lands
#: after the interpreter's last check for signals and before one long sleep's system call starts is
#: recorded but never wakes that sleep (CI saw this once: the stop waited for the hour), while each short
#: sleep's loop runs the handler within 20 ms (the command line's own waits are short in the same way)
HOOK = '''
import faulthandler, os, sys, time

# a hang shows where every thread stands (the test kills the process after its guard)
faulthandler.dump_traceback_later(60, exit=False)


class _Block:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ.get("AK_MARK_AT", os.environ.get("AK_BLOCK_AT")):
            open(os.environ["AK_MARK"], "w").close()
        if name == os.environ.get("AK_BLOCK_AT"):
            sys.meta_path.remove(self)
            while True:
                time.sleep(0.02)
        return None


sys.meta_path.insert(0, _Block())
'''

#: (module whose import the process stops at, the thread that imports it); the order is start-up's
STAGES = [
    ("anonkit.cli", "main: the entry's handler is in place, nothing heavy imported yet"),
    ("typer", "main: the command line's framework"),
    ("pydantic", "main: the config's validation"),
    ("anonkit.config", "main"),
    ("numpy", "main"),
    ("pandas", "main"),
    ("anonkit.plan", "main: the config validated into a plan"),
    ("rich.progress", "main: the last import before the job starts"),
    ("anonkit.engines.local", "job thread: the job runs"),
    ("pandas.io.formats.csvs", "job thread: the release is about to be written"),
]


def _toy(tmp: Path) -> Path:
    for f in DATA.glob("test2*.csv"):
        shutil.copy(f, tmp / f.name)
    hook = tmp / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HOOK)
    cfg = {**base_config(), "algorithm": {"name": "flash"}}  # the catalogue's toy config, searched
    (tmp / "c.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    return tmp / "c.yaml"


def _start(tmp: Path, block_at: str, *, module: bool = False, mark_at: str | None = None
           ) -> tuple[subprocess.Popen, Path]:
    mark = tmp / "marker"
    mark.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(tmp / "hook"), "AK_BLOCK_AT": block_at, "AK_MARK": str(mark)}
    if mark_at is not None:
        env["AK_MARK_AT"] = mark_at
    command = [sys.executable, "-m", "anonkit"] if module else [str(SCRIPT)]
    proc = subprocess.Popen([*command, "anonymize", "c.yaml"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, cwd=tmp,
                            # a test run started in the background (``… &``) ignores SIGINT and the child
                            # would inherit that: give it the default disposition, as in a terminal
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    return proc, mark


def _wait_for(mark: Path, proc: subprocess.Popen) -> None:
    while not mark.exists():  # no time limit of its own: the process ending without the marker fails below
        if proc.poll() is not None:
            _, err = proc.communicate()
            raise AssertionError(f"the process ended ({proc.returncode}) before the marker: {err.decode()}")
        time.sleep(0.02)


def _signal_state(pid: int) -> str:
    """The hung process's signal masks (pending, blocked, ignored, caught) as the kernel reports them."""
    try:
        status = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError as exc:
        return f"no /proc status: {exc}"
    return ", ".join(line.replace("\t", " ") for line in status if line.startswith(("SigPnd", "ShdPnd", "SigBlk",
                                                                                     "SigIgn", "SigCgt")))


def _interrupted(proc: subprocess.Popen, tmp: Path, *, signals: int = 1) -> str:
    for _ in range(signals):
        proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=HANG_GUARD)  # a hang guard, not a speed claim
    except subprocess.TimeoutExpired:
        signals_state = _signal_state(proc.pid)
        proc.kill()
        _, late = proc.communicate()
        raise AssertionError(f"no exit {HANG_GUARD} s after Ctrl-C ({signals_state}); the threads' stacks:\n"
                             f"{late.decode()}") from None
    text = err.decode()
    assert proc.returncode == 130, text
    assert "Traceback" not in text and "Aborted" not in text, text
    assert text.count("\n") == 1, text  # one line
    assert out == b""
    assert not (tmp / "out.csv").exists() and not list(tmp.glob(".*.tmp"))
    return text.strip()


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    _toy(tmp_path)
    return tmp_path


def test_the_console_script_is_the_entry() -> None:
    """The installed script (and ``python -m anonkit``) goes through the tiny entry module."""
    [script] = [e for e in importlib.metadata.entry_points(group="console_scripts") if e.name == "anonkit"]
    assert script.value == "anonkit._entry:main"
    assert SCRIPT.exists(), SCRIPT
    assert "anonkit._entry" in (TESTS.parent / "src" / "anonkit" / "__main__.py").read_text()


def test_control_runs_to_the_end(toy: Path) -> None:
    """The control: the hook blocking at a module that is never imported changes nothing (exit 0)."""
    proc, _ = _start(toy, "no.such.module")
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err.decode()
    assert (toy / "out.csv").exists()


@pytest.mark.parametrize("block_at", [s for s, _ in STAGES])
def test_ctrl_c_at_every_stage_of_the_console_script(toy: Path, block_at: str) -> None:
    proc, mark = _start(toy, block_at)
    _wait_for(mark, proc)
    assert _interrupted(proc, toy) == ONE_LINE


@pytest.mark.parametrize("block_at", ["anonkit.cli", "pandas", "anonkit.engines.local"])
def test_ctrl_c_in_python_dash_m(toy: Path, block_at: str) -> None:
    proc, mark = _start(toy, block_at, module=True)
    _wait_for(mark, proc)
    assert _interrupted(proc, toy) == ONE_LINE


@pytest.mark.parametrize("block_at", ["numpy", "anonkit.engines.local"])
def test_a_burst_of_ctrl_c_still_gives_one_line(toy: Path, block_at: str) -> None:
    """Five SIGINTs at once: the first stops the process, the others are ignored while it stops."""
    proc, mark = _start(toy, block_at)
    _wait_for(mark, proc)
    assert _interrupted(proc, toy, signals=5) == ONE_LINE


@pytest.mark.slow
def test_ctrl_c_at_random_moments(toy: Path) -> None:
    """SIGINT at random moments (derandomized) between the entry's first import and the write, which the
    process cannot pass (the hook holds the job at its last import): always 130 with one line."""
    rng = random.Random(23)
    for _ in range(6):
        proc, mark = _start(toy, "pandas.io.formats.csvs", mark_at="anonkit.cli")
        _wait_for(mark, proc)
        time.sleep(rng.uniform(0.0, 1.5))  # where the signal lands; any moment must do
        assert _interrupted(proc, toy) == ONE_LINE
