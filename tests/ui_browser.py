"""Helpers of the browser tests of ``anonkit ui``: the real application started in a subprocess on a free
loopback port (:func:`started`), headless Chromium through Playwright (:func:`browser`), waiting for
Shiny to settle (:func:`settle`), screenshots of each step (:func:`shot`) and axe-core
(:func:`serious_violations`).

Screenshots go to the test's temporary folder; with ``ANONKIT_UI_SHOTS=DIR`` (the docs' script:
``ANONKIT_UI_SHOTS=docs/ui python -m pytest tests/test_ui_workflow.py``) they are also copied there.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run"]
#: the screenshots' size (small enough for the docs)
VIEWPORT = {"width": 1200, "height": 900}


@dataclass
class Running:
    """The application started: its address with the token, the address without it, the process."""

    url: str
    base: str
    process: subprocess.Popen[str]
    output: list[str]


def command(*args: str) -> list[str]:
    """The ``anonkit ui`` command line, through ``python -m anonkit`` (this environment's interpreter)."""
    return [sys.executable, "-m", "anonkit", "ui", *args]


@contextlib.contextmanager
def started(*args: str, cwd: Path | None = None, timeout: float = 60.0) -> Iterator[Running]:
    """``anonkit ui --port 0 --no-browser ARGS`` running until the block ends (then stopped, and its
    private folder checked gone)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(command("--port", "0", "--no-browser", *args), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, cwd=cwd, env=env)
    lines: queue.Queue[str] = queue.Queue()
    seen: list[str] = []

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            seen.append(line)
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    try:
        url = None
        while url is None:
            try:
                line = lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError("the application did not start: " + "".join(seen)) from None
            if "open http" in line:
                url = line.split("open ", 1)[1].strip()
        yield Running(url, url.split("?", 1)[0], proc, seen)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def browser() -> Iterator[object]:
    """A headless Chromium (Debian's), closed at the end."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def settle(page: object, timeout: float = 120_000) -> None:
    """Wait until Shiny is idle (no output recalculating, no busy session)."""
    page.wait_for_function(  # type: ignore[attr-defined]
        "() => window.Shiny && Shiny.shinyapp && Shiny.shinyapp.isConnected() && "
        "!document.documentElement.classList.contains('shiny-busy') && "
        "[...document.querySelectorAll('.recalculating')].filter(e => e.offsetParent !== null).length === 0",
        timeout=timeout)
    page.wait_for_timeout(250)  # type: ignore[attr-defined]


def shot(page: object, folder: Path, name: str) -> Path:
    """A screenshot of the page (the viewport) as ``folder/NAME.png``, copied to ``$ANONKIT_UI_SHOTS``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    page.screenshot(path=str(path))  # type: ignore[attr-defined]
    docs = os.environ.get("ANONKIT_UI_SHOTS")
    if docs:
        Path(docs).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, Path(docs) / path.name)
    return path


def serious_violations(page: object) -> list[str]:
    """axe-core's serious and critical violations on the page, as ``id: help (n nodes)``."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [f"{v['id']}: {v['help']} ({len(v['nodes'])} nodes: {v['nodes'][0]['target']})"
            for v in results.response["violations"] if v.get("impact") in ("serious", "critical")]


def clinic_ten_times(source: Path, folder: Path) -> Path:
    """The clinic table ten times over (SafePub keeps classes of k ≥ 75 records at ε 1, δ 1e-6): a CSV
    in ``folder``."""
    lines = source.read_text().splitlines()
    table = folder / "clinic10.csv"
    table.write_text("\n".join([lines[0], *lines[1:] * 10]) + "\n")
    return table


def open_table(page: object, table: Path) -> None:
    """Open ``table`` in the Data step and wait until it is read."""
    page.set_input_files("#data_file", str(table))  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]
        "() => document.querySelector('#data_status').innerText.includes('Opened')", timeout=120_000)
    settle(page)


def run_k_then_open_the_map(page: object, k: int = 2) -> None:
    """Privacy by k-anonymity at ``k``, run, and open the results' risk–utility map."""
    for step in ("3. Privacy", None, "4. Run"):
        if step is None:
            page.get_by_label("By privacy models").check()  # type: ignore[attr-defined]
            page.fill("#p_k", str(k))  # type: ignore[attr-defined]
            page.press("#p_k", "Tab")  # type: ignore[attr-defined]
        else:
            page.get_by_role("tab", name=step).click()  # type: ignore[attr-defined]
        settle(page)
    page.click("#r_go")  # type: ignore[attr-defined]
    page.wait_for_selector("#res_headline", timeout=180_000)  # type: ignore[attr-defined]
    settle(page)
    page.get_by_role("tab", name="Risk–utility map").click()  # type: ignore[attr-defined]
    settle(page)
