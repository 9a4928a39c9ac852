"""The whole workflow of ``anonkit ui`` in headless Chromium, on the real application: a small table
shipped here with no hierarchies (built automatically), whose first run fails its audit and whose
proposed fix passes; and Adult opened as a new CSV, from upload to downloaded release. The exported
config, run by the CLI, writes the very bytes the page gave. Every step is checked with axe-core and
photographed (``ANONKIT_UI_SHOTS=docs/ui`` copies the pictures to the docs)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("shiny")
pytest.importorskip("playwright")

from ui_browser import VIEWPORT, browser, serious_violations, settle, shot, started

DATA = Path(__file__).parent / "data" / "ui_clinic.csv"
STEPS = ("1. Data", "2. Hierarchies", "3. Privacy", "4. Run", "5. Results", "6. Export")


def _step(page, name: str) -> None:  # type: ignore[no-untyped-def]
    page.get_by_role("tab", name=name).click()
    settle(page)


def _accessible(page, where: str) -> None:  # type: ignore[no-untyped-def]
    bad = serious_violations(page)
    assert not bad, f"{where}: {bad}"


def _wait_text(page, selector: str, text: str, timeout: float = 180_000) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function("([s, t]) => document.querySelector(s) && document.querySelector(s).innerText.includes(t)",
                           arg=[selector, text], timeout=timeout)
    settle(page)


def _download(page, button: str, folder: Path) -> Path:  # type: ignore[no-untyped-def]
    with page.expect_download() as info:
        page.click(f"#{button}")
    d = info.value
    target = folder / d.suggested_filename
    d.save_as(str(target))
    return target


def _cli_release(config: Path, table: Path, folder: Path) -> bytes:
    """Run the exported config with the CLI beside a copy of the table; the release's bytes."""
    folder.mkdir()
    shutil.copyfile(config, folder / "config.yaml")
    shutil.copyfile(table, folder / table.name)
    done = subprocess.run([sys.executable, "-m", "anonkit", "anonymize", "config.yaml", "--no-fixes"], cwd=folder,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return (folder / "release.csv").read_bytes()


def _run_and_wait(page) -> None:  # type: ignore[no-untyped-def]
    _step(page, "4. Run")
    page.click("#r_go")
    page.wait_for_selector("#res_headline", timeout=180_000)
    settle(page)


def test_clinic_table_without_hierarchies_fails_then_the_fix_passes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    shots = tmp_path / "shots"
    requested: list[str] = []
    with started() as app, browser() as b:
        page = b.new_page(viewport=VIEWPORT, accept_downloads=True)
        page.on("request", lambda r: requested.append(r.url))
        page.goto(app.url)
        settle(page)
        assert page.title().startswith("anonkit")

        # 1. Data: upload; the suggestions and their reasons are shown
        page.set_input_files("#data_file", str(DATA))
        _wait_text(page, "#data_status", "Opened")
        assert "Opened ui_clinic.csv: 240 rows, 6 columns" in page.inner_text("#data_status")
        columns = page.inner_text("#data_columns")
        assert "e-mail" in columns and "names" in columns  # direct identifiers recognised by content
        assert page.input_value("#role_0") == "identifier" and page.input_value("#role_5") == "sensitive"
        shot(page, shots, "1-data")
        _accessible(page, "data")

        # 2. Hierarchies: built automatically; the levels table shows them
        _step(page, "2. Hierarchies")
        assert "level 1" in page.inner_text("#h_levels")
        shot(page, shots, "2-hierarchies")
        _accessible(page, "hierarchies")

        # 3. Privacy: the risk mode sets k for "at most 5 %"; then models chosen by hand: k = 2
        _step(page, "3. Privacy")
        assert "k: 20" in page.inner_text("#p_models")
        page.get_by_label("By privacy models").check()
        page.fill("#p_k", "2")
        page.press("#p_k", "Tab")
        _wait_text(page, "#p_models", "k: 2,")
        shot(page, shots, "3-privacy")
        _accessible(page, "privacy")

        # 4. Run → 5. Results: the audit fails, the smallest change that passes is proposed
        _step(page, "4. Run")
        assert "flash" in page.inner_text("#r_algorithm_reason")
        shot(page, shots, "4-run")
        _accessible(page, "run")
        _run_and_wait(page)
        verdict = page.inner_text("#res_verdict")
        assert "do not publish as is" in verdict and "inference" in verdict
        fix = page.inner_text("#fix_box")
        assert "t-closeness" in fix and "every check holds" in fix
        shot(page, shots, "5-results-failing")
        _accessible(page, "results")

        # the fix, applied on request, runs and passes
        page.get_by_role("button", name="Apply and run").first.click()
        page.wait_for_function("() => document.querySelector('#res_headline') && "
                               "document.querySelector('#res_headline').innerText.includes('every check holds')",
                               timeout=180_000)
        settle(page)
        assert "Verdict: every check holds" in page.inner_text("#res_verdict")
        shot(page, shots, "5-results-fixed")

        # the R-U map: explore, then open a point by clicking it
        page.get_by_role("tab", name="Risk–utility map").click()
        settle(page)
        page.click("#m_go")
        page.wait_for_function("() => document.querySelector('#m_status').innerText.includes('settings explored')",
                               timeout=180_000)
        settle(page)
        assert page.locator("#m_plot img").count() == 1
        shot(page, shots, "5-results-map")
        runs_before = page.locator("#res_run option").count()
        plot = page.locator("#m_plot img")
        box = plot.bounding_box()
        assert box is not None
        # a click inside the axes opens the explored setting nearest to it (the list #m_point + #m_open is
        # the keyboard's way to the same)
        plot.click(position={"x": box["width"] * 0.4, "y": box["height"] * 0.5})
        page.wait_for_function(f"() => document.querySelectorAll('#res_run option').length > {runs_before}",
                               timeout=180_000)
        settle(page)

        # two runs side by side
        page.get_by_role("tab", name="Compare two runs").click()
        settle(page)
        compared = page.inner_text("#res_compare")
        assert "run 2" in compared and "run 3" in compared
        shot(page, shots, "5-results-compare")

        # the keyboard's way to a point: choose it in the list and open it
        page.get_by_role("tab", name="Risk–utility map").click()
        settle(page)
        runs_before = page.locator("#res_run option").count()
        page.select_option("#m_point", index=0)
        page.click("#m_open")
        page.wait_for_function(f"() => document.querySelectorAll('#res_run option').length > {runs_before}",
                               timeout=180_000)
        settle(page)

        # 6. Export: the passing run's release, report and config
        _step(page, "6. Export")
        page.select_option("#x_run", "2")
        settle(page)
        assert "input:" in page.inner_text("#x_yaml")
        shot(page, shots, "6-export")
        _accessible(page, "export")
        release = _download(page, "x_release", tmp_path)
        config = _download(page, "x_config", tmp_path)
        report = _download(page, "x_report", tmp_path)
        assert "Verdict" in report.read_text(encoding="utf-8")
        assert "@example.org" not in report.read_text(encoding="utf-8")  # no raw identifier leaves
    assert _cli_release(config, DATA, tmp_path / "cli") == release.read_bytes()
    origin = app.base.rstrip("/")
    assert all(u.startswith((origin, "data:", "blob:")) for u in requested)


def test_steps_are_reachable_by_keyboard_and_labelled() -> None:
    with started(str(DATA)) as app, browser() as b:
        page = b.new_page(viewport=VIEWPORT)
        page.goto(app.url)
        settle(page)
        page.get_by_role("tab", name="1. Data").focus()
        for name in STEPS[1:]:
            page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
            settle(page)
            active = page.evaluate("() => document.activeElement.textContent.trim()")
            assert active == name
            assert page.get_by_role("tab", name=name).get_attribute("aria-selected") == "true"
        unlabelled = page.evaluate("""() => [...document.querySelectorAll('input, select, textarea')]
            .filter(e => e.type !== 'hidden' && e.offsetParent !== null)
            .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')
                         && !e.getAttribute('aria-labelledby'))
            .map(e => e.id || e.name)""")
        assert not unlabelled, unlabelled


@pytest.mark.long  # about 90 s: Adult's run and audit, twice (the page's and the CLI's); -m long runs it
def test_adult_from_a_new_csv_to_a_downloaded_release(tmp_path, adult_frame) -> None:  # type: ignore[no-untyped-def]
    table = tmp_path / "adult.csv"
    adult_frame.to_csv(table, index=False)
    with started() as app, browser() as b:
        page = b.new_page(viewport=VIEWPORT, accept_downloads=True)
        page.goto(app.url)
        settle(page)
        t0 = time.perf_counter()
        page.set_input_files("#data_file", str(table))
        _wait_text(page, "#data_status", "Opened")
        assert "30,162 rows, 9 columns" in page.inner_text("#data_status")
        _run_and_wait(page)
        assert "Verdict" in page.inner_text("#res_verdict")
        _step(page, "6. Export")
        release = _download(page, "x_release", tmp_path)
        seconds = time.perf_counter() - t0
        shot(page, tmp_path / "shots", "adult-export")
        config = _download(page, "x_config", tmp_path)
    (tmp_path / "timing.json").write_text(json.dumps({"csv_to_release_seconds": round(seconds, 2)}))
    print(f"\nadult: new CSV to downloaded release in {seconds:.1f} s")  # reported, never asserted
    assert release.stat().st_size > 0
    assert _cli_release(config, table, tmp_path / "cli") == release.read_bytes()
