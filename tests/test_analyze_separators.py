"""``anonkit analyze``: QI combinations suggested, and a release read beside its original when the two
files use different separators (each file's own, sniffed or given)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from support import run_cli

ADULT = Path(__file__).parent.parent / "src" / "anonkit" / "datasets" / "data" / "adult.csv"


def _pair(tmp: Path) -> tuple[Path, Path]:
    original = pd.DataFrame({"zip": ["1301*", "1301*", "1485*", "1485*"] * 5,
                             "disease": ["flu", "flu", "cancer", "flu"] * 5})
    (tmp / "original.csv").write_text(original.to_csv(index=False))          # commas
    (tmp / "release.csv").write_text(original.to_csv(index=False, sep=";"))  # semicolons
    return tmp / "release.csv", tmp / "original.csv"


def test_release_and_original_with_different_separators_are_sniffed(tmp_path: Path) -> None:
    release, original = _pair(tmp_path)
    code, out, err = run_cli("analyze", str(release), "--critical", "disease", "--original", str(original), "--json")
    assert code == 0, err
    post = json.loads(out)["post_analytics"]
    assert "disease" in post["leakage_before"]


def test_separators_given_per_file(tmp_path: Path) -> None:
    release, original = _pair(tmp_path)
    code, _, err = run_cli("analyze", str(release), "--sep", ";", "--critical", "disease", "--original",
                           str(original), "--original-sep", ",", "--json")
    assert code == 0, err
    # the control: one separator for both (the old behaviour) reads the original as one column
    code, _, err = run_cli("analyze", str(release), "--sep", ";", "--critical", "disease", "--original",
                           str(original), "--original-sep", ";")
    assert code == 2 and "separator" in err
    code, _, err = run_cli("analyze", str(release), "--original-sep", ",")
    assert code == 2 and "--original" in err


def test_analyze_suggests_combinations_on_adult() -> None:
    code, out, err = run_cli("analyze", str(ADULT), "--json")  # the separator (;) is sniffed
    assert code == 0, err
    report = json.loads(out)
    assert report["vulnerable"] == [] and ["age", "occupation"] in report["suggested_combinations"]
    assert "age" in report["suggested_quasi_identifiers"]
    code, out, _ = run_cli("analyze", str(ADULT))
    assert code == 0 and "age + occupation" in out and "suggested quasi-identifiers" in out
