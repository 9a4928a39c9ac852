"""Pre- and post-analytics (paper C; spec §2.6, §4.4): leakage, inference risk, fake records."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit import InputError, Schema
from anonkit.analytics import fakes_needed, inject_fakes, leakage, normalized_leakage, post_analytics
from anonkit.config import load_config
from anonkit.pipeline import run_config
from anonkit.verifier import verify
from support import run_cli


def test_paper_c_sex_leakage() -> None:
    """60 individuals, 27 F and 33 M: S0 = log2 60, ΔS = H(27/60, 33/60), L = 0.168."""
    frame = pd.DataFrame({"sex": ["F"] * 27 + ["M"] * 33})
    report = leakage(frame)
    assert report["attributes"]["sex"]["leakage"] == pytest.approx(0.16807, abs=1e-5)
    assert report["records"] == 60 and report["attributes"]["sex"]["distinct"] == 2


def test_spec_example_leakage() -> None:
    """Spec §2.6: a,a,a,a,b,b,c,d → ΔS = 1.75, S0 = 3, L = 0.5833."""
    assert normalized_leakage(np.array([4, 2, 1, 1])) == pytest.approx(1.75 / 3)
    report = leakage(pd.DataFrame({"x": list("aaaabbcd")}))
    assert report["attributes"]["x"] == {"leakage": pytest.approx(0.58333, abs=1e-5), "distinct": 4,
                                         "unique_share": 0.25, "min_group": 1}
    assert report["vulnerable"] == ["x"]  # ≥ τ = 0.5


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=80), st.lists(st.integers(0, 3), min_size=80, max_size=80))
def test_leakage_is_entropy_over_log_n_and_combinations_count_like_groupby(a: list[int], b: list[int]) -> None:
    n = len(a)
    frame = pd.DataFrame({"a": a, "b": b[:n]})
    report = leakage(frame)
    counts = frame["a"].value_counts().to_numpy()
    p = counts / n
    want = 0.0 if n == 1 else float(-(p * np.log2(p)).sum() / math.log2(n))
    assert report["attributes"]["a"]["leakage"] == pytest.approx(want, abs=1e-12)
    (pair,) = report["combinations"]
    groups = frame.groupby(["a", "b"]).size()
    assert pair["distinct"] == len(groups) and pair["min_group"] == groups.min()
    assert pair["unique_share"] == pytest.approx((groups == 1).sum() / n)
    assert pair["leakage"] >= max(report["attributes"]["a"]["leakage"], report["attributes"]["b"]["leakage"]) - 1e-12


def test_ranking_vulnerable_identifiers_and_suggestion() -> None:
    rng = np.random.default_rng(0)
    n = 500
    frame = pd.DataFrame({
        "id": [f"p{i}" for i in range(n)],
        "age": rng.integers(18, 90, n).astype(str),
        "zip": rng.choice([f"{z:05d}" for z in range(40)], n),
        "sex": rng.choice(["F", "M"], n),
    })  # fmt: skip
    report = leakage(frame, max_size=3)
    assert list(report["attributes"]) == ["id", "age", "zip", "sex"]  # ranked
    assert report["likely_identifiers"] == ["id"] and report["suggested_quasi_identifiers"] == ["age", "zip"]
    assert len(report["combinations"]) == 6 + 4  # pairs and triples of 4 attributes
    assert len(leakage(frame, ["age", "sex", "zip"], sets=True)["combinations"]) == 3 + 1  # every subset
    with pytest.raises(InputError, match="unknown attribute"):
        leakage(frame, ["agee"])
    with pytest.raises(InputError, match="max_size"):
        leakage(frame, max_size=0)


def test_analyze_cli_json_and_table(tmp_path: Path) -> None:
    frame = pd.DataFrame({"sex": ["F"] * 27 + ["M"] * 33, "age": [str(20 + i % 30) for i in range(60)]})
    frame.to_csv(tmp_path / "d.csv", index=False)
    code, out, err = run_cli("analyze", str(tmp_path / "d.csv"), "--json")
    assert code == 0, err
    r = json.loads(out)
    assert set(r) >= {"records", "attributes", "combinations", "vulnerable", "suggested_quasi_identifiers"}
    assert r["attributes"]["sex"]["leakage"] == pytest.approx(0.168, abs=1e-3)
    assert r["combinations"][0]["attributes"] == ["sex", "age"]
    code, out, _ = run_cli("analyze", str(tmp_path / "d.csv"), "--attributes", "sex,age", "--max-size", "1")
    assert code == 0 and "vulnerable" in out and "suggested quasi-identifiers" in out
    code, _, err = run_cli("analyze", str(tmp_path / "d.csv"), "--attributes", "nope")
    assert code == 2 and "nope" in err


def test_analyze_a_million_rows_of_twenty_attributes() -> None:
    rng = np.random.default_rng(1)
    n = 1_000_000
    frame = pd.DataFrame({f"a{i}": rng.integers(0, (2, 5, 12, 60, 300)[i % 5], n) for i in range(20)})
    report = leakage(frame)
    assert len(report["combinations"]) == 190


# ---------------------------------------------------------------------------------- post-analytics
def test_fakes_needed_worked_check_and_minimality() -> None:
    assert fakes_needed(4, 4, 0.8) == 2  # 4/6 < 0.8, 4/5 is not
    for dominant in range(1, 30):
        for size in range(dominant, 40):
            for rho in (0.5, 0.6, 0.8, 0.95):
                f = fakes_needed(dominant, size, rho)
                assert dominant / (size + f) < rho
                assert f == 0 or not dominant / (size + f - 1) < rho


def _release() -> pd.DataFrame:
    return pd.DataFrame({
        "age": ["20-29"] * 4 + ["30-39"] * 5 + ["40-49"] * 3,
        "zip": ["476**"] * 12,
        "hiv": ["Yes"] * 4 + ["No", "No", "No", "No", "Yes"] + ["No", "Yes", "Yes"],
    })  # fmt: skip


def test_post_analytics_flags_classes_at_rho() -> None:
    report = post_analytics(_release(), ["hiv"], rho=0.8)
    assert report.classes == 3
    assert [(r.cls, r.size, r.dominant, r.share) for r in report.vulnerable] == [(0, 4, "Yes", 1.0), (1, 5, "No", 0.8)]
    assert report.vulnerable[0].entropy == 0.0 and report.individuals_at_risk() == 9
    assert report.alerts and "'hiv' can be inferred: 2 of 3 classes (9 individuals)" in report.alerts[0]
    assert report.max_share == {"hiv": 1.0}


def test_fakes_bring_every_vulnerable_class_below_rho_with_the_fewest_records() -> None:
    release = _release()
    done = inject_fakes(release, ["hiv"], rho=0.8, seed=5)
    assert done.fakes == 2 + 1 and len(done.frame) == 12 + 3  # class 0: 4 "Yes" → 2; class 1: 4 of 5 "No" → 1
    assert not post_analytics(done.frame, ["hiv"], rho=0.8).vulnerable
    manifest = done.manifest
    assert len(manifest) == 3 and (done.frame.iloc[manifest["row"] - 1].reset_index(drop=True)
                                   .equals(manifest.drop(columns="row")))
    again = inject_fakes(release, ["hiv"], rho=0.8, seed=5)
    assert again.frame.equals(done.frame)  # seeded


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from("abc")), min_size=4, max_size=60),
       st.sampled_from([0.6, 0.8]))
def test_fakes_property(rows: list[tuple[int, str]], rho: float) -> None:
    release = pd.DataFrame({"q": [str(r[0]) for r in rows], "s": [r[1] for r in rows]})
    done = inject_fakes(release, ["s"], rho=rho, seed=0)
    after = post_analytics(done.frame, ["s"], rho=rho)
    if done.unrepairable:
        return
    assert not after.vulnerable
    before = post_analytics(release, ["s"], rho=rho)
    need = 0
    for r in before.vulnerable:
        need += fakes_needed(round(r.share * r.size), r.size, rho)
    assert done.fakes == need


def test_config_post_analytics_with_fakes(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    n = 300
    pd.DataFrame({
        "age": rng.integers(20, 60, n).astype(str),
        "sex": rng.choice(["F", "M"], n),
        "hiv": rng.choice(["Yes", "No"], n, p=[0.15, 0.85]),
    }).to_csv(tmp_path / "d.csv", index=False)  # fmt: skip
    cfg = {
        "input": {"path": "d.csv"},
        "attributes": {"age": {"role": "quasi", "hierarchy": {"builder": "intervals", "width": 5, "fanout": 2}},
                       "sex": {"role": "quasi"}, "hiv": {"role": "sensitive"}},
        "privacy": [{"model": "k-anonymity", "k": 5}],
        "post_analytics": {"critical": ["hiv"], "rho": 0.8, "inject_fake": True, "seed": 1},
        "output": {"path": "out.csv"},
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    result = run_config(load_config(tmp_path / "c.yaml"), config_dir=tmp_path)
    post = result.summary["post_analytics"]
    fakes = post["fakes"]
    assert post["vulnerable_classes"] > 0 and fakes["injected"] > 0 and fakes["vulnerable_classes_with"] == 0
    assert fakes["records_with"] == fakes["records_without"] + fakes["injected"]
    published = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    manifest = pd.read_csv(tmp_path / "out.fakes.csv", dtype=str, keep_default_na=False)
    assert len(published) == fakes["records_with"] and len(manifest) == fakes["injected"]
    assert "row" not in published.columns  # the release does not mark its fakes
    schema = Schema.of(quasi=["age", "sex"], sensitive=["hiv"])
    assert verify(published, schema, result.models).ok  # still k-anonymous
    assert not post_analytics(published, ["hiv"], key_columns=["age", "sex"]).vulnerable
    code, out, err = run_cli("analyze", str(tmp_path / "out.csv"), "--critical", "hiv", "--original",
                             str(tmp_path / "d.csv"), "--json")
    assert code == 0, err
    assert json.loads(out)["post_analytics"]["vulnerable_classes"] == 0


def test_post_analytics_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="critical"):
        post_analytics(_release(), [])
    with pytest.raises(InputError, match="unknown critical attribute"):
        post_analytics(_release(), ["aids"])
    with pytest.raises(InputError, match="rho"):
        post_analytics(_release(), ["hiv"], rho=1.5)


def test_experiment_iab_quick(tmp_path: Path) -> None:
    """Paper C's workflow end to end, quick: the paper's figures come out and the files are written."""
    code, out, err = run_cli("experiment", "iab", "--quick", "--out", str(tmp_path / "iab"))
    assert code == 0, err
    paper = pd.read_csv(tmp_path / "iab" / "iab_paper.csv")
    assert (paper["paper"].astype(str) == paper["ours"].astype(str)).iloc[2:].all()  # every T(violating, rows)
    assert float(paper.loc[0, "ours"]) == pytest.approx(0.168, abs=1e-3)
    vs = pd.read_csv(tmp_path / "iab" / "iab_vs_flash.csv")
    table1 = vs[vs["dataset"] == "smart-health Table 1"].set_index("algorithm")
    assert table1.loc["iab", "distinct_rows_kept"] == 21 and table1.loc["iab", "result"] == "optimal"
    assert (vs.groupby(["dataset", "shield"]).apply(
        lambda g: g.set_index("algorithm").loc["iab", "distinct_rows_kept"]
        >= g.set_index("algorithm").loc["flash", "distinct_rows_kept"], include_groups=False)).all()
    post = pd.read_csv(tmp_path / "iab" / "iab_post.csv")
    assert (post["vulnerable_classes_with_fakes"] == 0).all()
    for name in ("iab_leakage.png", "iab_vs_flash.png"):
        assert (tmp_path / "iab" / name).stat().st_size > 1000
    assert "The paper beside ours" in out
