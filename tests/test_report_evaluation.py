"""The report's evaluation section (issue 27 item 5): ``anonkit report RUN.json --out … --evaluate COL``
shows the classifiers' scores trained on the original and on the release, the baselines, the lift
kept, and one figure — the numbers ``anonkit.evaluate.evaluate_frames`` gives for the same tables.
Refusals (an unknown column, an exploration, linked tables) are one line, before any work, and
write nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from anonkit.cli import app
from anonkit.datasets import DATASETS
from anonkit.evaluate import MODELS, evaluate_frames

runner = CliRunner()
#: rows of Adult the run anonymizes: enough for 5-fold cross-validation, small enough to be quick
ROWS = 200
TARGET = "salary-class"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small real run (Adult's first rows, 5-anonymity) and its JSON summary."""
    tmp = tmp_path_factory.mktemp("evaluation")
    frame = pd.read_csv(DATASETS["adult"][0](), sep=";", dtype=str, nrows=ROWS)
    frame.to_csv(tmp / "adult.csv", sep=";", index=False)
    cfg = {"input": {"path": "adult.csv", "separator": ";"}, "default_role": "insensitive",
           "attributes": {"age": {"role": "quasi"}, "sex": {"role": "quasi"}, "race": {"role": "quasi"},
                          "occupation": {"role": "sensitive"}},
           "privacy": [{"model": "k-anonymity", "k": 5}], "algorithm": {"name": "flash"},
           "output": {"path": "out.csv", "separator": ";"}}
    (tmp / "c.yaml").write_text(yaml.safe_dump(cfg))
    res = runner.invoke(app, ["anonymize", str(tmp / "c.yaml"), "--json"])
    assert res.exit_code == 0, res.stderr
    (tmp / "run.json").write_text(res.stdout)
    return tmp


def _cells(html: str, section: str) -> list[list[str]]:
    body = re.search(rf'<section id="{section}">(.*?)</section>', html, re.S)
    assert body is not None, section
    table = re.findall(r"<table><thead>.*?</table>", body.group(1), re.S)[0]
    return [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]]


def test_the_section_shows_the_evaluations_numbers_and_a_figure(run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The report evaluates the run's input and release (read here on their own) on the published
    columns but the target and the sensitive one, and shows every number the evaluation gives."""
    import anonkit.evaluate

    calls: list[tuple[pd.DataFrame, pd.DataFrame, str, list[str], dict]] = []

    def spy(original: pd.DataFrame, release: pd.DataFrame, target: str, features: list[str], **kw: object) -> dict:
        result = evaluate_frames(original, release, target, features, **kw)  # type: ignore[arg-type]
        calls.append((original, release, target, list(features), result))
        return result

    monkeypatch.setattr(anonkit.evaluate, "evaluate_frames", spy)
    res = runner.invoke(app, ["report", str(run / "run.json"), "--out", str(run / "r.html"), "--evaluate", TARGET])
    assert res.exit_code == 0, res.stderr
    html = (run / "r.html").read_text()
    assert "5. Utility for classification" in html and 'href="#evaluation"' in html
    assert '<figure id="fig-classification"><svg' in html
    (original, release, target, features, expected), = calls
    assert target == TARGET and features == ["sex", "age", "race", "marital-status", "education", "native-country",
                                             "workclass"]
    pd.testing.assert_frame_equal(original.astype(str).reset_index(drop=True),
                                  pd.read_csv(run / "adult.csv", sep=";", dtype=str))
    pd.testing.assert_frame_equal(release.astype(str).reset_index(drop=True),
                                  pd.read_csv(run / "out.csv", sep=";", dtype=str, keep_default_na=False))
    rows = _cells(html, "evaluation")
    assert len(rows) == 3 * len(MODELS)
    for model, measure, o, ob, r, rb, kept in rows:
        key = {"accuracy": "accuracy", "F1 (macro)": "f1", "ROC-AUC": "roc_auc"}[measure]
        assert o == f"{expected['original'][model][key]:.3f}" and r == f"{expected['release'][model][key]:.3f}"
        assert ob == f"{expected['original']['baseline'][key]:.3f}"
        assert rb == f"{expected['release']['baseline'][key]:.3f}"
        share = expected["kept"][model][key]
        assert kept == ("—" if share is None else f"{100 * share:.3g} %")
    accuracy = [float(r[2]) for r in rows if r[1] == "accuracy"]
    assert all(0.5 < a <= 1 for a in accuracy)  # real classifiers on real data, not placeholders


def test_without_evaluate_there_is_no_section(run: Path) -> None:
    res = runner.invoke(app, ["report", str(run / "run.json"), "--out", str(run / "plain.html")])
    assert res.exit_code == 0, res.stderr
    html = (run / "plain.html").read_text()
    assert 'id="evaluation"' not in html and "fig-classification" not in html


@pytest.mark.parametrize(("args", "words"), [
    (("--evaluate", "income"), ("no column 'income'", "--evaluate", "salary-class")),
    (("--evaluate", "occupation "), ("no column", "--evaluate")),
])
def test_an_unknown_column_is_refused_in_one_line_writing_nothing(run: Path, args: tuple[str, ...],
                                                                  words: tuple[str, ...]) -> None:
    out = run / "refused.html"
    res = runner.invoke(app, ["report", str(run / "run.json"), "--out", str(out), *args])
    assert res.exit_code == 2 and "Traceback" not in res.stderr
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), res.stderr
    assert all(w in lines[0] for w in words), lines[0]
    assert not out.exists()


def test_an_exploration_is_refused_with_evaluate(run: Path) -> None:
    explore = run / "explore.json"
    explore.write_text(json.dumps({"kind": "explore", "runs": [], "config": str(run / "c.yaml")}))
    res = runner.invoke(app, ["report", str(explore), "--out", str(run / "e.html"), "--evaluate", TARGET])
    assert res.exit_code == 2 and "an exploration has many" in res.stderr and not (run / "e.html").exists()
