"""The HTML report (issue 14 items 5 and 6): one self-contained page, well-formed, every section and
figure present, nothing fetched or run, the input's values hidden unless asked, the same bytes for
the same inputs, and fast enough on Adult.

Well-formedness is checked twice: the page is polyglot HTML5, so the whole document must parse as
XML (:mod:`xml.etree.ElementTree`: every element closed, attributes quoted, only XML's entities);
and :class:`TagBalance` (an :class:`html.parser.HTMLParser`) reads it as a browser's tokenizer
would and checks that every HTML element it opens is closed in order, that only void elements (and
SVG's) are self-closed, and that no ``id`` repeats.
"""

from __future__ import annotations

import html as html_lib
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
import yaml

from anonkit.errors import InputError
from anonkit.report import build_report, figures, report_from_run, write_report
from anonkit.report.data import HIDDEN, Redactor
from synthetic_run import CITIES, DIAGNOSES, make_audit, make_explore, make_synthetic, synthetic_report

ROOT = Path(__file__).resolve().parents[1]
HEADINGS = ("Verdict", "1. What was done", "2. Privacy", "3. Utility", "4. Explored runs")
AUDIT_FIGURES = ("fig-class-sizes", "fig-risk-distribution", "fig-risk-models", "fig-attacks")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
SVG = "{http://www.w3.org/2000/svg}"



# ---------------------------------------------------------------------- checks
class TagBalance(HTMLParser):
    """Every HTML element opened is closed in order; only void and SVG elements self-close."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.ids: list[str] = []
        self.svg_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids += [v for k, v in attrs if k == "id" and v]
        if tag == "svg":
            self.svg_depth += 1
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids += [v for k, v in attrs if k == "id" and v]
        if tag not in VOID and not self.svg_depth:
            self.errors.append(f"<{tag}/> self-closed outside SVG")

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
            return
        self.stack.pop()
        if tag == "svg":
            self.svg_depth -= 1


def check_well_formed(page: str) -> ET.Element:
    assert page.startswith("<!DOCTYPE html>\n")
    root = ET.fromstring(page.removeprefix("<!DOCTYPE html>\n"))  # raises on any XML error
    assert root.tag == "html"
    parser = TagBalance()
    parser.feed(page)
    parser.close()
    assert not parser.errors, parser.errors[:5]
    assert not parser.stack, f"unclosed: {parser.stack}"
    repeated = sorted({i for i in parser.ids if parser.ids.count(i) > 1})
    assert not repeated, f"ids used twice: {repeated[:5]}"
    return root


def figure_ids(root: ET.Element) -> dict[str, ET.Element]:
    return {f.get("id"): f for f in root.iter("figure")}


def check_figure(fig: ET.Element) -> None:
    """An inline SVG with a size and something drawn (paths or marks), and a caption."""
    svg = fig.find(f"{SVG}svg")
    assert svg is not None, fig.get("id")
    w, h = (float(v) for v in svg.get("viewBox", "0 0 0 0").split()[2:])
    assert w > 100 and h > 50
    drawn = sum(1 for e in svg.iter() if e.tag in (f"{SVG}path", f"{SVG}use", f"{SVG}text"))
    assert drawn > 10, fig.get("id")
    assert (fig.findtext("figcaption") or "").strip()


EXTERNAL = re.compile(r"""(?:\b(?:src|href)\s*=\s*["']?\s*|url\(\s*["']?\s*)(https?:|//)""", re.I)


def check_self_contained(page: str) -> None:
    assert "<script" not in page.lower()
    assert not re.search(r"\son[a-z]+\s*=", page, re.I), "an event-handler attribute"
    assert not EXTERNAL.search(page), EXTERNAL.search(page)
    for m in re.finditer(r"""\b(src|href)\s*=\s*["']([^"']*)""", page, re.I):
        assert m.group(2).startswith(("#", "data:")), m.group(0)
    assert "@import" not in page


def leaked(page: str, hidden: set[str], labels: set[str]) -> list[str]:
    """Hidden values found in the page's text once the released labels are taken out (a label may
    contain an input value: an interval's ends, an unchanged value)."""
    text = html_lib.unescape(page)
    for label in sorted((x for x in labels if len(x) >= 3), key=len, reverse=True):
        text = text.replace(label, " ")
    return sorted(v for v in hidden if v in text and re.search(rf"(?<![\w.]){re.escape(v)}(?![\w.])", text))


# ---------------------------------------------------------------------- hand-made run (synthetic_run)
@pytest.fixture(scope="module")
def synthetic() -> dict:
    return make_synthetic()


def hidden_of(original: pd.DataFrame, release: pd.DataFrame) -> tuple[set[str], set[str]]:
    labels = {str(v) for c in release.columns for v in release[c].unique()}
    values = {str(v) for c in original.columns for v in original[c].unique()}
    return values - labels, labels


# ---------------------------------------------------------------------- tests on hand-made data
def test_page_is_well_formed_with_every_section_and_figure(synthetic: dict) -> None:
    page = synthetic_report(synthetic)
    root = check_well_formed(page)
    headings = [(h.text or "").strip() for h in root.iter("h2")]
    for heading in HEADINGS:
        assert heading in headings
    found = figure_ids(root)
    expected = [*AUDIT_FIGURES, "fig-information-loss", "fig-ru-map", *(f"fig-dist-{i}" for i in range(4))]
    for ident in expected:
        assert ident in found, ident
        check_figure(found[ident])
    check_self_contained(page)
    csp = [m.get("content", "") for m in root.iter("meta") if m.get("http-equiv") == "Content-Security-Policy"]
    assert csp and csp[0].startswith("default-src 'none'")  # a browser refuses any other source


def test_input_values_hidden_unless_asked(synthetic: dict) -> None:
    hidden, labels = hidden_of(synthetic["original"], synthetic["release"])
    # every value long enough not to occur by chance: names, cities, incomes (ages, two digits, would)
    scanned = {v for v in hidden if len(v) >= 5}
    assert {"Quillfeather", "Person-0007"} <= scanned and any("." in v for v in scanned)
    page = synthetic_report(synthetic)
    assert leaked(page, scanned, labels) == []
    assert HIDDEN in page  # the warnings, config and attack notes named values: they were redacted
    assert "Xylocardia" in page  # a released (sensitive) value may appear
    shown = synthetic_report(synthetic, show_values=True)
    assert {"Quillfeather", "Fennick Hollow", "Orrinwick"} <= set(leaked(shown, scanned, labels))
    root = ET.fromstring(shown.removeprefix("<!DOCTYPE html>\n"))
    city_figure = figure_ids(root)["fig-dist-0"]
    assert "Quillfeather" in ET.tostring(city_figure, encoding="unicode")  # the before bars are labelled


def test_same_inputs_same_bytes(synthetic: dict) -> None:
    assert synthetic_report(synthetic) == synthetic_report(synthetic)


def test_verdict_lists_what_fails(synthetic: dict) -> None:
    page = synthetic_report(synthetic, audit=make_audit(ok=False))
    root = check_well_formed(page)
    box = next(s for s in root.iter("section") if s.get("id") == "verdict")
    assert "fail" in box.get("class", "")
    assert "attack inference" in ET.tostring(box, encoding="unicode")
    passing = ET.fromstring(synthetic_report(synthetic).removeprefix("<!DOCTYPE html>\n"))
    assert "pass" in next(s for s in passing.iter("section") if s.get("id") == "verdict").get("class", "")


def test_tolerates_what_is_missing(synthetic: dict) -> None:
    """No run section, no audit, no exploration, no frames: the page says what it does not know."""
    summary = {k: v for k, v in synthetic["summary"].items() if k != "run"}
    page = build_report(summary, original=None, release=None)
    root = check_well_formed(page)
    assert [h for h in HEADINGS if h not in [(x.text or "").strip() for x in root.iter("h2")]] == []
    assert "no audit was run" in page
    assert "not recorded" in page
    box = next(s for s in root.iter("section") if s.get("id") == "verdict")
    assert "open" in box.get("class", "")
    page = build_report({}, original=None, release=None, explore=make_explore())
    check_well_formed(page)
    assert "fig-ru-map" in figure_ids(ET.fromstring(page.removeprefix("<!DOCTYPE html>\n")))
    # two linked tables (Anatomy): distributions come from whichever table has the column
    tables = {"qit": synthetic["release"][["city", "income", "age"]], "st": synthetic["release"][["diagnosis"]]}
    page = build_report(synthetic["summary"], original=synthetic["original"], release=tables,
                        config_text=synthetic["config_text"])
    assert {f"fig-dist-{i}" for i in range(4)} <= set(figure_ids(check_well_formed(page)))


def test_explore_section_calls_ru_map(synthetic: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = {}

    def fake(frame: pd.DataFrame, **kw: object) -> matplotlib.figure.Figure:
        seen.update(kw, rows=len(frame))
        return figures.class_sizes([{"size": 3, "classes": 4, "records": 12}])

    monkeypatch.setattr(figures, "ru_map", fake)
    page = synthetic_report(synthetic)
    assert seen["rows"] == 5 and seen["risk"] == "prosecutor_highest" and seen["loss"] == "loss"
    root = check_well_formed(page)
    runs = next(t for t in root.iter("table") if t.get("class") == "runs")
    assert len(runs.find("tbody")) == 5


def test_redactor() -> None:
    r = Redactor({"Quillfeather", "39", "M", "Fennick Hollow"})
    assert r("values 'Quillfeather', 'quillfeather'") == f"values '{HIDDEN}', 'quillfeather'"
    assert r("39 records; value '39'; Fennick Hollow's") == f"39 records; value '{HIDDEN}'; {HIDDEN}'s"
    assert r('"M" and M') == f'"{HIDDEN}" and M'
    assert r("the record's age '39'") == f"the record's age '{HIDDEN}'"
    assert Redactor(())("anything 'x'") == "anything 'x'"


def test_figures_are_plain_figures_without_global_state() -> None:
    before = dict(matplotlib.rcParams)
    audit = make_audit()
    made = [
        figures.class_sizes(audit["risk"]["class_sizes"], threshold=0.2),
        figures.risk_distribution(audit["risk"]["distribution"], threshold=0.2),
        figures.risk_models(audit["risk"], audit["thresholds"]),
        figures.attacks(audit["attacks"], threshold=0.1),
        figures.information_loss({"a": {"level": 1, "height": 2, "changed": 0.5}}, {"loss": 0.2}),
        figures.distribution(pd.Series(["x", "y", "y"]), pd.Series(["*", "*", "*"]), name="a"),
        figures.distribution(pd.Series(np.arange(100.0)), None, show_values=True),
        figures.class_sizes([]),
    ]
    assert all(isinstance(f, matplotlib.figure.Figure) for f in made)
    assert dict(matplotlib.rcParams) == before


def test_write_report_is_atomic_and_refuses_the_runs_files(tmp_path: Path) -> None:
    data = tmp_path / "in.csv"
    data.write_text("a\n1\n")
    out = tmp_path / "r.html"
    write_report("<!DOCTYPE html>\n<html></html>\n", out, refuse=[data])
    assert out.read_text() == "<!DOCTYPE html>\n<html></html>\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    with pytest.raises(InputError, match="overwrite a file of the run"):
        write_report("x", data, refuse=[data])
    link = tmp_path / "link.csv"
    link.symlink_to(data)
    with pytest.raises(InputError, match="overwrite a file of the run"):
        write_report("x", link, refuse=[data])
    assert data.read_text() == "a\n1\n"
    with pytest.raises(InputError, match="does not exist"):
        write_report("x", tmp_path / "missing" / "r.html")


# ---------------------------------------------------------------------- from a run's JSON
def _run(tmp_path: Path) -> Path:
    """Anonymize a small input from a config in ``tmp_path``; the --json summary's path."""
    from anonkit.config import load_config
    from anonkit.pipeline import run_config

    rng = np.random.default_rng(3)
    n = 120
    pd.DataFrame({"city": rng.choice(CITIES, n), "age": rng.integers(18, 91, n).astype(str),
                  "diagnosis": rng.choice(DIAGNOSES, n)}).to_csv(tmp_path / "people.csv", index=False)
    config = {"input": {"path": "people.csv"},
              "attributes": {"city": {"role": "quasi"}, "age": {"role": "quasi"},
                             "diagnosis": {"role": "sensitive"}},
              "privacy": [{"model": "k-anonymity", "k": 4}], "algorithm": {"name": "mondrian"},
              "output": {"path": "out.csv"}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    result = run_config(load_config(tmp_path / "c.yaml"), config_dir=tmp_path, config_file=tmp_path / "c.yaml")
    path = tmp_path / "run.json"
    path.write_text(json.dumps(result.summary, default=str))
    return path


def test_report_from_run_checks_the_files(tmp_path: Path) -> None:
    run = _run(tmp_path)
    report_from_run(run, tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    root = check_well_formed(page)
    assert {"fig-class-sizes", "fig-information-loss", "fig-dist-0", "fig-dist-1", "fig-dist-2"} <= set(
        figure_ids(root))
    assert json.loads(run.read_text())["run"]["input_sha256"] in page
    original = pd.read_csv(tmp_path / "people.csv", dtype=str)
    hidden, labels = hidden_of(original, pd.read_csv(tmp_path / "out.csv", dtype=str))
    assert leaked(page, {v for v in hidden if len(v) >= 5}, labels) == []
    with pytest.raises(InputError, match="overwrite a file of the run"):
        report_from_run(run, tmp_path / "out.csv")
    with (tmp_path / "people.csv").open("a") as fh:
        fh.write("Brambleton,40,Tarnix\n")
    with pytest.raises(InputError, match=r"the input changed since the run .*re-run anonkit anonymize"):
        report_from_run(run, tmp_path / "r2.html")
    assert not (tmp_path / "r2.html").exists()
    old = tmp_path / "old.json"
    old.write_text(json.dumps({k: v for k, v in json.loads(run.read_text()).items() if k != "run"}))
    with pytest.raises(InputError, match="no 'run' section"):
        report_from_run(old, tmp_path / "r3.html")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(InputError, match="not JSON"):
        report_from_run(tmp_path / "bad.json", tmp_path / "r4.html")


def test_report_from_explore_json(tmp_path: Path) -> None:
    _run(tmp_path)
    frame = make_explore()
    doc = {"kind": "explore", "config": str(tmp_path / "c.yaml"), "risk": "prosecutor_highest", "loss": "loss",
           "thresholds": {"highest_risk": 0.2}, "runs": json.loads(frame.to_json(orient="records"))}
    (tmp_path / "explore.json").write_text(json.dumps(doc))
    report_from_run(tmp_path / "explore.json", tmp_path / "e.html")
    page = (tmp_path / "e.html").read_text(encoding="utf-8")
    root = check_well_formed(page)
    assert "fig-ru-map" in figure_ids(root)
    assert "Dunmarrow" not in page  # a run's message named an input value


# ---------------------------------------------------------------------- Adult
@pytest.fixture(scope="module")
def adult(tmp_path_factory: pytest.TempPathFactory) -> dict:
    from anonkit._values import strip_cells
    from anonkit.config import load_config
    from anonkit.pipeline import load_input, run_config

    config_path = ROOT / "examples" / "adult.yaml"
    config = load_config(config_path)
    out = tmp_path_factory.mktemp("adult") / "adult-anonymized.csv"
    result = run_config(config, config_dir=config_path.parent, output_path=str(out), config_file=config_path)
    original, _ = load_input(config, config_path.parent)
    return {"summary": result.summary, "original": original.apply(strip_cells), "release": result.frame,
            "config_text": config_path.read_text(encoding="utf-8")}


def test_adult_report_hides_values(adult: dict) -> None:
    page = build_report(adult["summary"], original=adult["original"], release=adult["release"],
                        config_text=adult["config_text"], audit=make_audit())
    root = check_well_formed(page)
    check_self_contained(page)
    found = figure_ids(root)
    assert len([f for f in found if f.startswith("fig-dist-")]) == 9  # 8 quasi-identifiers and occupation
    for fig in found.values():
        check_figure(fig)
    hidden, labels = hidden_of(adult["original"], adult["release"])
    words = {v for v in hidden if re.search(r"[A-Za-z]", v)}
    assert {"Private", "Never-married", "Bachelors", "United-States"} <= words
    assert leaked(page, words, labels) == []
    assert page == build_report(adult["summary"], original=adult["original"], release=adult["release"],
                                config_text=adult["config_text"], audit=make_audit())


def test_report_from_run_refuses_a_file_of_the_run_before_any_work(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``anonkit report --out`` on a hard link to the run's input is refused before the run's files are re-read
    (the work is made to fail: the refusal still comes, naming the report); a fresh name gets that far."""
    import os

    import anonkit.report.run as report_run

    run = _run(tmp_path)
    os.link(tmp_path / "people.csv", tmp_path / "alias.html")
    before = (tmp_path / "people.csv").read_bytes()

    def work_started(*_args: object, **_kw: object) -> None:
        raise AssertionError("work started")

    monkeypatch.setattr(report_run, "_run_report", work_started)
    with pytest.raises(InputError, match="overwrite a file of the run"):
        report_from_run(run, tmp_path / "alias.html")
    assert (tmp_path / "people.csv").read_bytes() == before
    with pytest.raises(AssertionError, match="work started"):  # control: a fresh name reaches the work
        report_from_run(run, tmp_path / "fresh.html")
