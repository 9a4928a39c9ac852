"""A synthetic release (family ``synth``: ``dp-synthetic``) reads truthfully everywhere: its rows are no
records, so the summary, the printed summary, the audit's verdict, the report and the UI show no class
figure (smallest class, prosecutor risk, uniques, record linkage, GCP, the search score, classes,
generalization) and say why; the summary's utility is the one- and two-way total variation distance of
the marginals; the verifier's checks print "holds" without an "achieved" figure; the verdict judges the
nearest-neighbour attacks only.

One seeded run of the toy table (9 records, MST, 50 iterations) through the CLI is shared by the tests;
each check has a control: a k-anonymity run of a small frame, whose summary has every class figure.
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from rich.console import Console
from typer.testing import CliRunner

import anonkit
from anonkit import Schema
from anonkit.algorithms.registry import algorithms
from anonkit.algorithms.spec import RECORDLESS_FAMILIES
from anonkit.audit.inputs import RECORDLESS_ATTACKS
from anonkit.cli import app, console
from anonkit.cli.printers.summary import print_summary
from anonkit.cli.printers.verdict import print_verdict
from anonkit.metrics.synthetic import marginal_distances
from anonkit.models import KAnonymity

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data"
CONFIG = {
    "input": {"path": "test2.csv", "separator": ";"},
    "attributes": {"ZIPCode": {"role": "quasi"}, "Age": {"role": "quasi", "type": "numeric"},
                   "Salary": {"role": "insensitive"}, "Disease": {"role": "sensitive"}},
    "algorithm": {
        "name": "dp-synthetic", "epsilon": 1.0, "delta": 0.01, "seeded": True, "iterations": 50,
        "domain": {
            "ZIPCode": {"categories": ["47677", "47602", "47678", "47905", "47909", "47906", "47605", "47673",
                                       "47607"]},
            "Age": {"bounds": [20, 60], "bins": 4, "integer": True},
            "Salary": {"bounds": [0, 20], "bins": 4, "integer": True},
            "Disease": {"categories": ["gastric ulcer", "gastritis", "stomach cancer", "flu", "bronchitis",
                                       "pneumonia"]},
        },
    },
    "privacy": [{"model": "differential-privacy", "epsilon": 1.0, "delta": 0.01}],
    "output": {"path": "out.csv"},
}
#: the class figures' keys of a summary (none of them describes a synthetic table)
CLASS_KEYS = ("metrics", "min_class_size", "classes", "generalization", "score", "transformation", "risk_threshold")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The toy table synthesized once (seeded, ε 1) through ``anonkit anonymize --json``: its folder and summary."""
    where = tmp_path_factory.mktemp("synth")
    shutil.copy(DATA / "test2.csv", where / "test2.csv")
    (where / "c.yaml").write_text(yaml.safe_dump(CONFIG, sort_keys=False))
    got = CliRunner().invoke(app, ["anonymize", str(where / "c.yaml"), "--json"])
    assert got.exit_code == 0, got.output
    return where, json.loads(got.stdout)


@pytest.fixture(scope="module")
def control() -> dict[str, Any]:
    """A release of records (2-anonymity on a small frame): every class figure is in its summary."""
    frame = pd.DataFrame({"zip": ["a", "a", "b", "b", "b"], "s": ["x", "y", "x", "y", "x"]})
    return anonkit.anonymize(frame, Schema.of(quasi=["zip"], sensitive=["s"]), [KAnonymity(2)]).summary


def _printed(printer: Any, summary: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> str:
    out = Console(file=io.StringIO(), width=400, color_system=None)
    monkeypatch.setattr(console, "out", out)
    monkeypatch.setattr(console, "err", Console(file=io.StringIO(), width=400, color_system=None))
    printer(summary)
    return out.file.getvalue()


def _labels(text: str) -> dict[str, str]:
    """The printed summary's rows as ``{label: value}`` (a row on one line at the width printed)."""
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in text.splitlines() if line.startswith("│")]
    return {r[0]: r[1] for r in rows if len(r) >= 2 and r[0]}


def test_the_synth_family_is_declared_recordless_once() -> None:
    spec = algorithms()["dp-synthetic"]
    assert spec.family in RECORDLESS_FAMILIES and spec.class_figures is False
    assert all(a.class_figures for a in algorithms().values() if a.family != "synth")  # control: records


def test_the_summary_has_no_class_figure_and_says_why(run, control) -> None:
    _, s = run
    assert [k for k in CLASS_KEYS if k in s] == []
    assert "no published row is a record" in s["not_applicable"] and "prosecutor" in s["not_applicable"]
    assert all(k in control for k in CLASS_KEYS) and "not_applicable" not in control  # control


def test_the_summary_holds_the_marginals_total_variation_distances(run) -> None:
    where, s = run
    u = s["synthetic_utility"]
    original = pd.read_csv(where / "test2.csv", sep=";", dtype=str)
    released = pd.read_csv(where / "out.csv", dtype=str)
    again = marginal_distances(original, released, list(released.columns))  # recounted from the files
    assert u["one_way_mean"] == pytest.approx(again["one_way_mean"])
    assert u["two_way_mean"] == pytest.approx(again["two_way_mean"])
    assert 0 <= u["one_way_mean"] <= u["one_way_max"] <= 1 and 0 <= u["two_way_mean"] <= u["two_way_max"] <= 1
    assert set(u["one_way"]) == set(CONFIG["attributes"])


def test_the_verifier_checks_carry_no_achieved_figure(run, control, monkeypatch) -> None:
    _, s = run
    assert s["verification"] and all(v["achieved"] is None and v["holds"] for v in s["verification"])
    rows = _labels(_printed(print_summary, s, monkeypatch))
    assert rows["exactly the declared columns"] == "holds" and not any("achieved" in v for v in rows.values())
    assert "(achieved " in _printed(print_summary, control, monkeypatch)  # control: a model's figure


def test_the_printed_summary_has_no_class_line_and_a_utility_section(run, control, monkeypatch) -> None:
    _, s = run
    rows = _labels(_printed(print_summary, s, monkeypatch))
    labels = " | ".join(rows)
    for words in ("prosecutor", "smallest class", "unique records", "record linkage", "information loss (GCP)",
                  "search score", "classes", "→"):
        assert words not in labels, words
    assert rows["class figures"].startswith("the class figures (smallest class, prosecutor")
    assert "do not apply" in rows["class figures"] and "Utility" in labels
    assert rows["one-way marginals (TVD)"].startswith("mean ") and rows["two-way marginals (TVD)"].startswith("mean ")
    shown = " | ".join(_labels(_printed(print_summary, control, monkeypatch)))
    assert "smallest class" in shown and "re-identification risk (prosecutor)" in shown  # control


def test_the_verdict_judges_the_attacks_only_and_says_so(run, monkeypatch) -> None:
    _, s = run
    v, audit = s["verdict"], s["audit"]
    assert v["kinds"] == ["attack"] and {c["check"] for c in v["failing"]} <= {f"{a} attack risk"
                                                                              for a in RECORDLESS_ATTACKS}
    assert {a["name"] for a in audit["attacks"]} <= set(RECORDLESS_ATTACKS) and "prosecutor" not in audit["risk"]
    line = _printed(print_verdict, s, monkeypatch)
    assert "class risks not judged" in line and "highest risk" not in line and "prosecutor" not in line
    # the advice names the synthesizer's own levers, not "enforces no privacy model" (it enforces its epsilon)
    gives = v["advice"]["gives"]
    assert "lower its epsilon" in gives and "enforces no privacy model" not in gives


def test_auditing_the_synthetic_file_passes_when_the_attacks_pass(run) -> None:
    """``anonkit audit`` of the written table: fails on an attack at the default 10 %, holds when the
    threshold admits the attacks (no class risk and no SafePub reading of the DP model to fail on)."""
    where, _ = run
    config = yaml.safe_load((where / "c.yaml").read_text())
    runner = CliRunner()
    failing = runner.invoke(app, ["audit", str(where / "out.csv"), "--config", str(where / "c.yaml"), "--json"])
    assert failing.exit_code == 1
    bad = [v for v in json.loads(failing.stdout)["verdicts"] if not v["holds"]]
    assert bad and all(v["kind"] == "attack" for v in bad)
    (where / "lax.yaml").write_text(yaml.safe_dump({**config, "audit": {"thresholds": {"attack_risk": 1.0}}}))
    passing = runner.invoke(app, ["audit", str(where / "out.csv"), "--config", str(where / "lax.yaml"), "--json"])
    assert passing.exit_code == 0, passing.output
    a = json.loads(passing.stdout)
    assert a["ok"] and {v["kind"] for v in a["verdicts"]} == {"attack"}


def test_the_report_shows_no_class_figure(run, tmp_path) -> None:
    where, s = run
    (where / "run.json").write_text(json.dumps(s))
    got = CliRunner().invoke(app, ["report", str(where / "run.json"), "--out", str(tmp_path / "r.html")])
    assert got.exit_code == 0, got.output
    page = (tmp_path / "r.html").read_text()
    text = re.sub(r"<[^>]+>", " ", re.sub(r"<svg.*?</svg>|<script.*?</script>|<style.*?</style>", "", page,
                                          flags=re.S))
    for words in ("Risk models", "Risk distribution", "Generalization per attribute", "9 released"):
        assert words not in text, words
    assert "Not shown: the class figures" in text and "synthetic rows published" in text
    assert "Attacks" in text and "one-way total variation distance" in text  # what still applies


def test_the_example_header_states_what_its_run_prints() -> None:
    head = (ROOT / "examples" / "adult-dp-synthetic.yaml").read_text().split("\ninput:")[0]
    result = next(line for line in head.splitlines() if line.startswith("# Result:"))
    assert "synthetic rows" in result and "attacks only" in result and "classes:" not in result
    assert "every record counts as its own class" not in head


def test_the_ui_results_page_counts_synthetic_rows_not_classes(run, control) -> None:
    results = pytest.importorskip("anonkit.ui.results")
    _, s = run
    words = results.counts_words(s)
    assert "synthetic rows drawn from a model of 9 records" in words and "classes" not in words
    assert "classes" in results.counts_words(control)  # control: a release of records
