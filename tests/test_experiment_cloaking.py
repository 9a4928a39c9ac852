"""Paper B §4.3's cloaking experiment (``anonkit experiment cloaking``) at its ``--quick`` size."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from anonkit.experiments import cloaking as experiment


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, pd.DataFrame], Path, list]:
    out = tmp_path_factory.mktemp("cloaking")
    steps: list = []
    tables = experiment.run(out, quick=True, progress=lambda i, n, what: steps.append((i, n, what)))
    return tables, out, steps


def test_the_quick_run_writes_every_file(quick: tuple) -> None:
    tables, out, steps = quick
    res = tables["results"]
    assert res["k_min"].tolist() == list(experiment.KS)
    for name in ("cloaking_results.csv", "cloaking_expectations.csv", "cloaking_area_delay.png",
                 "cloaking_attacks.png", "cloaking_map.png"):
        assert (out / name).stat().st_size > 0, name
    assert pd.read_csv(out / "cloaking_results.csv").shape == res.shape
    assert steps[-1][0] == steps[-1][1] and [s[0] for s in steps] == sorted(s[0] for s in steps)


def test_the_figures_are_consistent(quick: tuple) -> None:
    res = quick[0]["results"]
    shares = res["served_share"] + res["held_share"] + res["dropped_share"]
    assert ((shares - 1).abs() < 1e-9).all() and (res["pending"] == 0).all()  # the stream's end decides all
    assert (res["served"] == res["spatial"] + res["temporal"]).all()
    assert (res["k_achieved"] >= res["k_min"]).all()  # every served box holds k_min subjects
    assert (res["area_p95"] <= experiment.MAX_AREA_SIDE**2 * 1024**2).all()
    assert (res["delay_p95"] <= experiment.MAX_DELAY).all()
    assert res["temporal"].iloc[-1] > 0  # the largest k needs temporal cloaking somewhere
    # the uncloaked baseline is the same for every k
    for col in ("rs_uncloaked", "obs_uncloaked", "obs_complete_uncloaked"):
        assert res[col].nunique() == 1
    assert (res["obs_complete_uncloaked"] > 0.9).all()  # a point and a time: nearly always one subject


def test_the_expectations_hold(quick: tuple) -> None:
    exp = quick[0]["expectations"].set_index("expectation")["verdict"]
    assert len(exp) == 3 + 3 * 2 + 1
    # the partial observer gains little from a k_min = 2 box (the module docstring says why)
    partial = next(e for e in exp.index if e.startswith("gain: without cloaking, observation identification (half"))
    assert exp[partial] in ("holds", "partly (only k_min = 5, 10, 20)")
    others = exp.drop(partial)
    assert (others == "holds").all(), others[others != "holds"].to_string()
    res = quick[0]["results"]
    assert (res["obs_complete_max"] <= 1 / res["k_min"] + 1e-12).all()
    for col in ("rs", "obs", "obs_complete"):
        assert (res[f"{col}_cloaked"] <= res["bound"]).all()
        assert (res[f"{col}_uncloaked"] > res[f"{col}_cloaked"]).all()


def test_a_failed_expectation_is_said_plainly() -> None:
    res = pd.DataFrame({
        "k_min": [2, 5], "bound": [0.5, 0.2], "area_median": [100.0, 50.0], "area_p95": [200.0, 300.0],
        "area_mean": [120.0, 150.0], "delay_mean": [0.0, 1.0], "delay_p95": [0.0, 2.0],
        "served_share": [1.0, 0.9], "rs_cloaked": [0.0, 0.3], "rs_uncloaked": [0.1, 0.1],
        "obs_cloaked": [0.01, 0.0], "obs_uncloaked": [0.25, 0.25], "obs_complete_cloaked": [0.2, 0.1],
        "obs_complete_uncloaked": [1.0, 1.0], "obs_complete_max": [0.5, 0.2],
    })
    judged = experiment._expectations(res)
    verdicts = dict(zip(judged["expectation"], judged["verdict"], strict=True))

    def verdict(start: str) -> str:
        return next(v for e, v in verdicts.items() if e.startswith(start))

    assert verdict("cost: the cloaked area") == "does NOT hold"  # the median fell
    assert verdict("gain: with cloaking, restricted-space") == "does NOT hold"  # 0.3 > 1/5
    assert verdict("gain: without cloaking, restricted-space") == "partly (only k_min = 2)"
    assert verdict("cost: the delay") == "holds"


def test_the_command_line_prints_costs_gains_and_verdicts(tmp_path: Path) -> None:
    from tests.support import run_cli

    code, text, err = run_cli("experiment", "cloaking", "--quick", "--seed", "1", "--out", str(tmp_path))
    assert code == 0, err
    assert "What each k_min costs and buys" in text and "Expectations:" in text
    assert "HOLDS" in text and "cloaking_map.png" in text
    assert (tmp_path / "cloaking_results.csv").exists()
    code, _, err = run_cli("experiment", "cloaking", "--quick", "--seed", "-1", "--out", str(tmp_path))
    assert code == 2 and "seed" in err
