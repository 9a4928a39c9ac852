"""``anonkit evaluate``: classifiers trained on a release against the original and the majority
baseline (``anonkit.evaluate``), on Adult with salary-class as the target."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonkit import load_adult
from anonkit.algorithms.lattice.fixed import fixed
from anonkit.errors import InputError
from anonkit.evaluate import MODELS, evaluate_frames
from anonkit.models import KAnonymity
from anonkit.schema import Schema
from anonkit.table import Table

QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]
FEATURES = [*QI, "occupation"]
TARGET = "salary-class"
ROWS = 1500  # small and seeded: the tests check the shape of the result, not the classifiers


@pytest.fixture(scope="module")
def frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    frame, h = load_adult()
    table = Table(frame, Schema.of(quasi=QI, insensitive=["occupation", TARGET], hierarchies={q: h[q] for q in QI}))
    release = fixed(table, [KAnonymity(5)], levels=[0, 2, 0, 1, 2, 2, 1], max_suppression=0.02)
    return frame, release.to_frame()


@pytest.fixture(scope="module")
def evaluated(frames: tuple[pd.DataFrame, pd.DataFrame]) -> dict:
    original, release = frames
    return evaluate_frames(original, release, TARGET, FEATURES, folds=3, seed=0, max_rows=ROWS)


def test_original_has_lift_and_release_keeps_part(evaluated: dict) -> None:
    o, r = evaluated["original"], evaluated["release"]
    assert o["rows"] == r["rows"] == ROWS and o["classes"] == 2
    assert o["baseline"]["roc_auc"] == 0.5
    for model in MODELS:
        assert o[model]["accuracy"] > o["baseline"]["accuracy"] + 0.02
        assert o[model]["roc_auc"] > 0.75
        kept = evaluated["kept"][model]["roc_auc"]
        assert 0.2 < kept < 1.2, (model, kept)


def test_random_release_keeps_about_none(frames: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    original, release = frames
    rng = np.random.default_rng(7)
    shuffled = release.copy()
    for c in FEATURES:  # the features no longer belong to the rows' targets
        shuffled[c] = rng.permutation(shuffled[c].to_numpy())
    result = evaluate_frames(original, shuffled, TARGET, FEATURES, folds=3, seed=0, max_rows=ROWS)
    for model in MODELS:
        assert abs(result["kept"][model]["roc_auc"]) < 0.25, model


def test_deterministic(frames: tuple[pd.DataFrame, pd.DataFrame], evaluated: dict) -> None:
    original, release = frames
    again = evaluate_frames(original, release, TARGET, FEATURES, folds=3, seed=0, max_rows=ROWS)
    assert json.dumps(again, sort_keys=True) == json.dumps(evaluated, sort_keys=True)


def test_bad_inputs_refused(frames: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    original, release = frames
    with pytest.raises(InputError, match="no column 'salary'"):
        evaluate_frames(original, release, "salary", FEATURES)
    with pytest.raises(InputError, match="at least 2"):
        evaluate_frames(original, release, TARGET, FEATURES, folds=1)
    one_class = release.assign(**{TARGET: "x"})
    with pytest.raises(InputError, match="two classes"):
        evaluate_frames(original, one_class, TARGET, FEATURES, max_rows=200)


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "anonkit", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def test_cli(tmp_path: Path, frames: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    """The command reads the config's input and a release; a bad target is one line, exit 2; the
    control prints JSON."""
    frames[1].to_csv(tmp_path / "release.csv", index=False)
    roles = "\n".join(f"  {q}: {{role: quasi}}" for q in QI)
    (tmp_path / "c.yaml").write_text(
        f"input: {{dataset: adult}}\nattributes:\n{roles}\n  occupation: {{role: insensitive}}\n"
        f"  {TARGET}: {{role: insensitive}}\nprivacy:\n  - {{model: k-anonymity, k: 5}}\n"
        "output: {path: release.csv}\n", encoding="utf-8")
    bad = _cli("evaluate", "c.yaml", "--target", "salary", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and bad.stderr.startswith("error: ") and "salary-class" in bad.stderr
    ok = _cli("evaluate", "c.yaml", "--target", TARGET, "--sample", "400", "--folds", "2", "--json", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    result = json.loads(ok.stdout)
    assert result["release"]["rows"] == 400 and set(result["kept"]) == set(MODELS)
