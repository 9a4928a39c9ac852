"""The UI's risk–utility map places DP synthesis too (issue 29 item 4): the domain form's request
(:func:`anonkit.ui.rumap.map_request` with ``synth=``, a pure function: form values → series configs),
its refusals (the synthesizer's own check, one line naming the column), what prefills the form (only
what the user declared), the checkbox disabled without the ``dp`` extra, and the browser flow end to
end (the shown run, SafePub and DP synthesis: three series on one map)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from anonkit.algorithms.synth.dp_synthetic import check_options
from anonkit.errors import InputError

pytest.importorskip("shiny")

from anonkit.ui import _synth_form
from anonkit.ui._synth_form import domain_from_form, dp_extra_missing, form_columns, prefill, synth_delta
from anonkit.ui.rumap import SAFEPUB_DELTA, SYNTH, config_of_point, map_request, ui_block

DATA = Path(__file__).parent / "data" / "ui_clinic.csv"
RUN = {"input": {"path": "t.csv"},
       "attributes": {"name": {"role": "identifier"}, "zip": {"role": "quasi", "type": "categorical"},
                      "age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "ranges"}},
                      "diagnosis": {"role": "sensitive", "type": "categorical"}},
       "privacy": [{"model": "k-anonymity", "k": 5}], "algorithm": {"name": "flash", "max_suppression": 0.1},
       "audit": {"targets": 100}}
FORM = {"zip": {"categories": "10100, 10101"}, "age": {"lo": "18", "hi": "90", "bins": "8", "integer": True},
        "diagnosis": {"categories": "asthma,cancer , flu"}}
DOMAIN = {"zip": {"categories": ["10100", "10101"]}, "age": {"bounds": [18, 90], "bins": 8, "integer": True},
          "diagnosis": {"categories": ["asthma", "cancer", "flu"]}}


def test_the_form_gives_three_series() -> None:
    vary, extra = map_request(RUN, "k=2,5", safepub=True, epsilons="1,2", synth=FORM, synth_epsilons="0.5, 1", n=240)
    assert vary == {"k": [2, 5], "safepub:epsilon": [1, 2], f"{SYNTH}:epsilon": [0.5, 1]}
    assert list(extra) == ["safepub", SYNTH]
    sy = extra[SYNTH]
    assert sy["privacy"] == [{"model": "differential-privacy", "epsilon": 0.5, "delta": SAFEPUB_DELTA}]
    assert sy["algorithm"] == {"name": SYNTH, "method": "mst", "epsilon": 0.5, "delta": SAFEPUB_DELTA,
                               "domain": DOMAIN}  # OpenDP's draws: not seeded
    assert {k: sy[k] for k in ("input", "attributes", "audit")} == {k: RUN[k] for k in ("input", "attributes", "audit")}
    assert RUN["algorithm"]["name"] == "flash"  # the run's config is not changed
    # DP synthesis alone: two series; neither box: the one grid
    assert list(map_request(RUN, "k=2", synth=FORM, synth_epsilons="1")[1]) == [SYNTH]
    assert map_request(RUN, "k=2") == ({"k": [2]}, {})


def test_a_synthesis_point_opens_with_its_epsilon_in_model_and_algorithm() -> None:
    """Clicking a DP synthesis point opens the synthesizer at that ε: its model and its option alike
    (a differing pair is refused by dp-synthetic), the domain kept."""
    from anonkit.config import parse_config

    _, extra = map_request(RUN, "k=2", synth=FORM, synth_epsilons="0.5,2")
    point = config_of_point(extra[SYNTH], {"epsilon": 2})
    assert point["privacy"][0]["epsilon"] == point["algorithm"]["epsilon"] == 2
    assert point["algorithm"]["domain"] == DOMAIN and extra[SYNTH]["algorithm"]["epsilon"] == 0.5
    parse_config(point)  # a config that parses as it is
    assert config_of_point(RUN, {"k": 10})["privacy"] == [{"model": "k-anonymity", "k": 10}]  # the control


def test_delta_is_safepubs_and_below_one_over_n() -> None:
    assert synth_delta(240, SAFEPUB_DELTA) == SAFEPUB_DELTA
    for n in (1_000_000, 2_500_000, 40_000_000):
        assert synth_delta(n, SAFEPUB_DELTA) * n < 1.0
    _, extra = map_request(RUN, "k=2", synth=FORM, synth_epsilons="1", n=3_000_000)
    assert extra[SYNTH]["algorithm"]["delta"] == extra[SYNTH]["privacy"][0]["delta"] < 1 / 3_000_000


@pytest.mark.parametrize(("column", "fields", "words"), [
    ("zip", {}, "fill its categories (comma-separated)"),
    ("age", {"bins": "5"}, "fill its bounds (lo and hi)"),
    ("zip", {"categories": " , "}, "categories must be a non-empty list"),
    ("diagnosis", {"categories": "flu, asthma, flu"}, "the category 'flu' is listed twice"),
    ("age", {"lo": "90", "hi": "18"}, "bounds must have lo < hi"),
    ("age", {"lo": "young", "hi": "90"}, "a bound must be a finite number, got 'young'"),
    ("age", {"lo": "18"}, "a bound must be a finite number, got '(empty)'"),
    ("age", {"lo": "18", "hi": "nan"}, "a bound must be a finite number"),
    ("age", {"lo": "18", "hi": "90", "bins": "2.5"}, "bins must be a whole number in [1, 1000], got 2.5"),
    ("age", {"lo": "18", "hi": "90", "bins": "0"}, "bins must be a whole number in [1, 1000], got 0"),
    ("age", {"lo": "0", "hi": "3", "bins": "8", "integer": True}, "holds none: use fewer bins"),
    ("zip", {"categories": ",".join(map(str, range(1001)))}, "at most 1000 categories"),
])
def test_a_missing_or_invalid_domain_is_refused_naming_the_column(column: str, fields: dict, words: str) -> None:
    form = {**FORM, column: fields}
    with pytest.raises(InputError) as got:
        map_request(RUN, "k=2", synth=form, synth_epsilons="1")
    text = str(got.value)
    assert words in text and f"column '{column}'" in text and "\n" not in text, text


def test_the_refusal_is_the_synthesizers_own() -> None:
    """A filled but invalid column is refused by dp-synthetic's check, word for word."""
    bad = {**DOMAIN, "age": {"bounds": [90, 18]}}
    with pytest.raises(InputError) as mine:
        domain_from_form(form_columns(RUN), {**FORM, "age": {"lo": "90", "hi": "18"}})
    with pytest.raises(InputError) as theirs:
        check_options({"method": "mst", "domain": bad}, "algorithm.")
    assert str(mine.value) == str(theirs.value)
    assert domain_from_form(form_columns(RUN), FORM) == DOMAIN  # the control passes


def test_bad_epsilon_lists_are_refused() -> None:
    with pytest.raises(InputError, match="'lots' is not a number"):
        map_request(RUN, "k=2", synth=FORM, synth_epsilons="lots")
    with pytest.raises(InputError, match="epsilon"):
        from anonkit.config import parse_config
        from anonkit.explore.grid import plan

        _, extra = map_request(RUN, "k=2", synth=FORM, synth_epsilons="-1")
        plan(parse_config(extra[SYNTH]), {"epsilon": [-1]})


def test_the_form_lists_published_columns_by_declared_type() -> None:
    cols = form_columns(RUN)
    assert [(c.name, c.numeric) for c in cols] == [("zip", False), ("age", True), ("diagnosis", False)]
    # an insensitive column has no type in the config: the workspace's declared type decides
    cfg = {"attributes": {"bmi": {"role": "insensitive"}, "who": {"role": "person"}}}
    assert [(c.name, c.numeric) for c in form_columns(cfg, {"bmi": "numeric"})] == [("bmi", True)]


def test_the_form_is_prefilled_only_from_what_the_user_declared() -> None:
    # nothing declared: nothing filled (the ranges hierarchy of age is built from the data, not declared)
    assert prefill(RUN, {}) == {}
    # a hierarchy file the user imported declares its leaves
    got = prefill(RUN, {"diagnosis": ["flu", "asthma"], "age": ["18", "40", "89"]})
    assert got["diagnosis"] == {"categories": "flu, asthma"}
    assert got["age"]["lo"] == "18" and got["age"]["hi"] == "89" and got["age"]["integer"] is True
    # a dp-synthetic config the user made declares its domain (and wins)
    mine = {**RUN, "algorithm": {"name": SYNTH, "epsilon": 1, "delta": 1e-6, "domain": DOMAIN}}
    got = prefill(mine, {"age": ["18", "89"]})
    assert got["age"] == {"lo": "18", "hi": "90", "bins": "8", "integer": True}
    assert domain_from_form(form_columns(mine), got) == DOMAIN  # the prefill round-trips


def test_the_checkbox_is_disabled_with_the_reason_without_the_dp_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    assert dp_extra_missing() is None and 'id="m_synth_missing"' not in str(ui_block())  # the control
    monkeypatch.setattr(_synth_form.importlib.util, "find_spec", lambda n, *a: None if n == "mbi" else real(n, *a))
    reason = dp_extra_missing()
    assert reason is not None and "mbi" in reason and "pip install anonkit[dp]" in reason
    html = str(ui_block())
    assert 'disabled="disabled"' in html and reason in html and 'id="m_synth"' in html


def test_a_value_outside_the_declared_domain_is_refused_before_any_run(tmp_path: Path) -> None:
    """The data check is the synthesizer's own (explore's precheck): one line naming column and value."""
    from anonkit.config import parse_config
    from anonkit.explore import explore
    from anonkit.explore.series import Series

    (tmp_path / "t.csv").write_text(DATA.read_text())
    cfg = {**RUN, "attributes": {**RUN["attributes"], "email": {"role": "identifier"}, "sex": {"role": "insensitive"}}}
    form = {**FORM, "zip": {"categories": "10100"}, "sex": {"categories": "female, male"},
            "diagnosis": {"categories": "asthma, cancer, diabetes, flu, hepatitis"}}
    vary, extra = map_request(cfg, "k=2", synth=form, synth_epsilons="1", n=240)
    also = [Series(name, parse_config(c), tmp_path) for name, c in extra.items()]
    with pytest.raises(InputError) as got:
        explore(parse_config(cfg), vary=vary, config_dir=tmp_path, also=also, name="run 1")
    assert "not one of the declared categories" in str(got.value) and "column 'zip'" in str(got.value)
    assert not list(tmp_path.glob("*release*"))


@pytest.mark.long  # the application, Chromium, a run and a map of five points in three series: -m long runs it
def test_the_map_places_the_run_safepub_and_dp_synthesis_in_the_browser(tmp_path: Path) -> None:
    pytest.importorskip("playwright")
    if dp_extra_missing() is not None:
        pytest.skip(dp_extra_missing())
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
    lines = DATA.read_text().splitlines()
    declared = {"sex": "female, male", "diagnosis": "asthma, cancer, diabetes, flu, hepatitis",
                "zip": ", ".join(sorted({ln.split(",")[2] for ln in lines[1:]}))}
    with started() as app, browser() as b:
        page = b.new_page(viewport=VIEWPORT)
        page.goto(app.url)
        settle(page)
        open_table(page, table)
        # the user imports a hierarchy for sex: its leaves are the user's declaration, so they prefill the form
        page.get_by_role("tab", name="2. Hierarchies").click()
        settle(page)
        page.select_option("#h_column", "sex")
        settle(page)
        hierarchy = tmp_path / "sex.csv"
        hierarchy.write_text("female;*\nmale;*\n")
        page.set_input_files("#h_import", str(hierarchy))
        page.wait_for_function("() => document.querySelector('#h_status').innerText.includes('Imported')",
                               timeout=60_000)
        settle(page)
        run_k_then_open_the_map(page)
        page.fill("#m_grid", "k=2,5")
        page.check("#m_safepub")
        page.fill("#m_eps", "1,2")
        page.check("#m_synth")
        page.fill("#m_synth_eps", "1")
        page.press("#m_synth_eps", "Tab")
        settle(page)
        page.wait_for_selector("#m_dom_form")
        assert "not read from your table" in page.inner_text("#m_dom_why")
        # only what the user declared is filled in (the imported leaves of sex); an empty column is refused
        boxes = page.locator("#m_dom_form input[type=text]").all()
        filled = {box.get_attribute("id"): box.input_value() for box in boxes}
        rows = page.locator("#m_dom_form fieldset").all()
        sex = next(fs for fs in rows if fs.locator("legend").inner_text().strip() == "sex")
        assert sex.locator("input[id$='_categories']").input_value() == "female, male"
        assert sum(v != "" for v in filled.values()) == 1, filled
        page.click("#m_go")
        settle(page)
        status = page.inner_text("#m_status")
        assert "needs the domain of every published column" in status and "column '" in status, status
        for fs in page.locator("#m_dom_form fieldset").all():
            name = fs.locator("legend").inner_text().strip()
            if fs.locator("input[id$='_categories']").count():
                fs.locator("input[id$='_categories']").fill(declared[name])
            else:  # age
                fs.locator("input[id$='_lo']").fill("0")
                fs.locator("input[id$='_hi']").fill("120")
                fs.locator("input[id$='_bins']").fill("12")
                fs.locator("input[type=checkbox]").check()
        settle(page)
        page.click("#m_go")
        page.wait_for_function("() => document.querySelector('#m_status').innerText.includes('settings explored')",
                               timeout=300_000)
        settle(page)
        status = page.inner_text("#m_status")
        assert "5 settings explored in 3 series" in status, status
        assert page.locator("#m_plot img").count() == 1
        options = page.locator("#m_point option").all_inner_texts()
        assert any(o.startswith(f"{SYNTH}: {SYNTH} epsilon=") for o in options), options
        assert any(o.startswith("safepub: safepub epsilon=") for o in options), options
        shot(page, tmp_path, "map-three-series")
