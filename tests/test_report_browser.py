"""The report in a real browser: headless Chromium renders it to a PNG with no console message and no
request beyond the page itself.

* Console: ``--enable-logging=stderr --v=0`` makes Chromium log every console message of a page
  (``…:INFO:CONSOLE…] "message", source: …``), content-security-policy violations included. The
  report runs no script, so any such line is a failure.
* Requests: ``--log-net-log=FILE`` writes every network request as JSON. A request the page makes
  has the page as initiator (a ``file://`` page's origin is opaque, written ``null``); the browser's
  own requests (its clock, sign-in check) have none (``not an origin``) and are not the page's. The
  page itself and ``data:`` URLs are read without the network and never appear.
* A control page that does make a request and log an error checks that both instruments see them
  in this Chromium.

Chromium is required: Debian's ``chromium`` package (``.ci/run`` installs it). The test fails, never
skips, when it is missing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from matplotlib import image

from synthetic_run import make_synthetic, synthetic_report

CHROMIUM = "/usr/bin/chromium"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--enable-logging=stderr", "--v=0")


def chromium() -> str:
    found = shutil.which("chromium") or (CHROMIUM if Path(CHROMIUM).is_file() else None)
    if found is None:
        pytest.fail("headless Chromium is needed to check the HTML report: install it "
                    "(apt-get update && apt-get install -y chromium; .ci/run does)", pytrace=False)
    return found


@dataclass
class Rendered:
    console: list[str]
    requests: list[str]
    png: Path


def render(page: Path, work: Path, *, size: tuple[int, int] = (1280, 2400)) -> Rendered:
    """Render ``page`` in headless Chromium: its console messages, the URLs it requested, the PNG."""
    work.mkdir()
    png, netlog = work / "shot.png", work / "net.json"
    cmd = [chromium(), *FLAGS, f"--user-data-dir={work / 'profile'}", f"--log-net-log={netlog}",
           f"--screenshot={png}", f"--window-size={size[0]},{size[1]}", page.as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return Rendered(console, page_requests(netlog), png)


def page_requests(netlog: Path) -> list[str]:
    """The URLs of the requests a page made (initiator given), from Chromium's JSON net log."""
    log = json.loads(netlog.read_text(encoding="utf-8"))
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    jobs = [e.get("params") or {} for e in log["events"] if e["type"] == start]
    return sorted({p["url"] for p in jobs if "url" in p and p.get("initiator") != "not an origin"})


def test_instruments_see_requests_and_console_errors(tmp_path: Path) -> None:
    control = tmp_path / "control.html"
    control.write_text('<!DOCTYPE html><html><body><p>control</p><img src="http://127.0.0.1:9/x.png" />'
                       '<script>console.error("control error")</script></body></html>')
    seen = render(control, tmp_path / "control", size=(400, 300))
    assert any("control error" in line for line in seen.console), seen.console
    assert seen.requests == ["http://127.0.0.1:9/x.png"]


def test_report_renders_offline_without_errors(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(synthetic_report(make_synthetic()), encoding="utf-8")
    seen = render(page, tmp_path / "report")
    assert seen.console == []
    assert [u for u in seen.requests if u != page.as_uri() and not u.startswith("data:")] == []
    pixels = image.imread(seen.png)[..., :3]
    assert pixels.shape[:2] == (2400, 1280)
    assert float(pixels.std()) > 0.05  # not blank
    ink = np.any(pixels < 0.8, axis=-1).mean()  # text, bars, borders
    assert ink > 0.01, ink
    assert np.any((pixels[..., 0] < 0.4) & (pixels[..., 2] > 0.5))  # the figures' blue bars were drawn
