"""The UI's risk–utility map with a second series (issue 29 item 4): the shown run's k-anonymity and SafePub
at several ε on one map, in headless Chromium on the real application (as ``test_ui_workflow.py`` drives
it), and the form's pure parts (:func:`anonkit.ui.rumap.map_request`, :func:`~anonkit.ui.rumap.safepub_config`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from anonkit.errors import InputError

pytest.importorskip("shiny")

from anonkit.ui.rumap import SAFEPUB_DELTA, config_of_point, map_request, safepub_config

DATA = Path(__file__).parent / "data" / "ui_clinic.csv"
RUN = {"input": {"path": "t.csv"}, "attributes": {"age": {"role": "quasi", "hierarchy": {"builder": "ranges"}},
                                                  "diagnosis": {"role": "sensitive"}},
       "privacy": [{"model": "k-anonymity", "k": 5}, {"model": "l-diversity", "attribute": "diagnosis", "l": 2}],
       "algorithm": {"name": "flash", "max_suppression": 0.1}, "audit": {"targets": 100}}


def test_the_safepub_series_keeps_input_roles_and_audit() -> None:
    sp = safepub_config(RUN, 2.0)
    assert sp["privacy"] == [{"model": "differential-privacy", "epsilon": 2.0, "delta": SAFEPUB_DELTA}]
    assert sp["algorithm"]["name"] == "safepub" and "seeded" not in sp["algorithm"]
    assert {k: sp[k] for k in ("input", "attributes", "audit")} == {k: RUN[k] for k in ("input", "attributes", "audit")}
    assert RUN["privacy"][0] == {"model": "k-anonymity", "k": 5}  # the run's config is not changed
    # a point of the SafePub series opens as SafePub at that ε
    assert config_of_point(sp, {"epsilon": 0.5})["privacy"][0]["epsilon"] == 0.5


def test_the_form_gives_one_grid_or_two_series() -> None:
    assert map_request(RUN, "k=2,5; l=2,3") == ({"k": [2, 5], "l": [2, 3]}, {})
    vary, extra = map_request(RUN, "k=2,5", safepub=True, epsilons="0.5, 1")
    assert vary == {"k": [2, 5], "safepub:epsilon": [0.5, 1]} and list(extra) == ["safepub"]
    assert extra["safepub"]["privacy"][0]["epsilon"] == 0.5
    with pytest.raises(InputError, match="'lots' is not a number"):
        map_request(RUN, "k=2", safepub=True, epsilons="lots")
    with pytest.raises(InputError, match="--vary needs KEY=V1,V2"):
        map_request(RUN, "k 2")


@pytest.mark.long  # about 30 s on 2 cores (the application, Chromium, a run and a map of four): -m long runs it
def test_the_map_places_the_run_and_safepub_in_the_browser(tmp_path: Path) -> None:
    pytest.importorskip("playwright")
    from ui_browser import (
        VIEWPORT,
        browser,
        clinic_ten_times,
        open_table,
        run_k_then_open_the_map,
        settle,
        shot,
        started,
    )

    table = clinic_ten_times(DATA, tmp_path)  # 2,400 rows: SafePub's classes of k ≥ 75
    with started() as app, browser() as b:
        page = b.new_page(viewport=VIEWPORT)
        page.goto(app.url)
        settle(page)
        open_table(page, table)
        run_k_then_open_the_map(page)
        page.fill("#m_grid", "k=2,5")
        page.check("#m_safepub")
        page.fill("#m_eps", "1,2")
        page.press("#m_eps", "Tab")
        settle(page)
        page.click("#m_go")
        page.wait_for_function("() => document.querySelector('#m_status').innerText.includes('settings explored')",
                               timeout=180_000)
        settle(page)
        status = page.inner_text("#m_status")
        assert "4 settings explored in 2 series" in status, status
        assert page.locator("#m_plot img").count() == 1
        options = page.locator("#m_point option").all_inner_texts()
        assert any(o.startswith("safepub: safepub epsilon=") for o in options), options
        assert any(o.startswith("run 1: flash k=") for o in options), options
        shot(page, tmp_path, "map-two-series")
