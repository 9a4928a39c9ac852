"""Paper A's experiment (``anonkit experiment uhra``): the quick grid end to end."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from anonkit.cli import app
from anonkit.errors import InputError
from anonkit.experiments import uhra as experiment

runner = CliRunner()

PNGS = ("uhra_ru_k.png", "uhra_ru_J.png", "uhra_ru_t.png", "uhra_runtime.png")
CSVS = ("uhra_runs.csv", "uhra_table3.csv", "uhra_table4.csv", "uhra_table5.csv", "uhra_attacks.csv", "uhra_claims.csv")


@pytest.fixture(scope="module")
def quick(tmp_path_factory) -> tuple[experiment.Results, Path]:
    out = tmp_path_factory.mktemp("uhra")
    steps: list[tuple[int, int, str]] = []
    res = experiment.run(quick=True, out_dir=out, progress=lambda d, t, w: steps.append((d, t, w)))
    res.steps = steps  # type: ignore[attr-defined]
    return res, out


def test_paper_data_file_is_bundled() -> None:
    paper = experiment.load_paper()
    assert set(paper["tables"]) == {"table3", "table4", "table5"}
    t3 = paper["tables"]["table3"]
    assert t3["values"] == [3, 5, 10, 15, 20]
    assert t3["sizes"]["BKA-JS"][0] == [3, 8.85]
    assert paper["tables"]["table4"]["sizes"]["BKA-JS"][1] == [5, 11.8]
    assert paper["tables"]["table5"]["sizes"]["k-primacy"][3] == [5, 12.8]
    for spec in paper["tables"].values():
        for method in experiment.METHODS:
            assert len(spec["sizes"][method]) == len(spec["values"])
    assert {"utility_and_risk", "runtime_J", "runtime_k", "runtime_methods"} == set(paper["claims"])


def test_quick_runs_csv(quick) -> None:
    res, out = quick
    runs = pd.read_csv(out / "uhra_runs.csv")
    assert list(runs.columns) == experiment.RUN_COLUMNS
    grid = experiment.QUICK_GRID
    per_set = len(grid.configurations()) * len(experiment.METHODS)
    assert len(runs) == 2 * per_set == len(res.runs)
    assert set(runs["dataset"]) == {"adult", "bkseq"}
    assert set(runs["sweep"]) == {"k", "J", "t"}
    # one run per distinct configuration; k-primacy (no t) once per (k, J)
    assert (~runs["reused"]).sum() == 2 * experiment.unique_runs(grid)
    kp = runs[(runs["method"] == "k-primacy") & (runs["sweep"] == "t")]
    for _, sub in kp.groupby("dataset"):
        assert sub["gcp"].nunique() == 1 and sub["seconds"].nunique() == 1
        assert not sub["uses_t"].any()
    base = runs[(runs["method"] == "UHRA") & (runs["k"] == 5) & (runs["t"] == 0.5) & (runs["J"] == 0.8)]
    assert len(base) == 2 * 3 and base.groupby("dataset")["gcp"].nunique().eq(1).all()
    # the guarantees show in the figures
    kept = runs[runs["classes"] > 0]
    assert (kept["group_min"] >= kept["k"]).all() and (kept["class_min"] >= kept["k"]).all()
    assert (kept["class_avg"] >= kept["group_avg"] - 1e-9).all()  # classes merge groups
    assert (runs["record_linkage"] <= 100.0 / runs["k"] + 1e-9).all()
    assert ((runs["gcp"] >= 0) & (runs["gcp"] <= 1)).all()
    assert (runs["seconds"] > 0).all()
    bk = runs[runs["method"] == "BKA-JS"]
    assert (bk["bk_max_jsd"] <= bk["J"] + 1e-9).all()  # BKA-JS bounds JSD(prior, posterior) by J
    # progress reported every run and the end
    steps = res.steps
    assert steps[-1][0] == steps[-1][1] and len(steps) >= experiment.unique_runs(grid)


def test_quick_paper_tables(quick) -> None:
    res, out = quick
    paper = experiment.load_paper()
    for name, spec in paper["tables"].items():
        df = pd.read_csv(out / f"uhra_{name}.csv")
        assert list(df.columns) == experiment.TABLE_COLUMNS
        grid = experiment.QUICK_GRID
        ours = {"k": grid.ks, "J": grid.Js, "t": grid.ts}[spec["parameter"]]
        values = {float(v) for v in spec["values"]} | {float(v) for v in ours}
        assert len(df) == len(experiment.METHODS) * len(values)
        for method in experiment.METHODS:
            sub = df[df["method"] == method].set_index("value")
            for v, (mn, avg) in zip(spec["values"], spec["sizes"][method], strict=True):
                assert sub.loc[v, "paper_min"] == mn and sub.loc[v, "paper_avg"] == pytest.approx(avg)
            for v in ours:  # our figures where we ran
                assert np.isfinite(sub.loc[v, "group_avg"]) and np.isfinite(sub.loc[v, "class_avg"])
    # the paper's numbers in the printed report
    for text in ("3/8.85", "5/11.8", "5/12.8", "20/25", "Table 3", "Table 4", "Table 5"):
        assert text in res.report
    body = res.report.split("\nwritten:")[0]
    assert max(len(line) for line in body.splitlines()) <= experiment.WIDTH
    assert (out / "uhra_report.txt").read_text(encoding="utf-8").startswith("Paper A")


def test_quick_attacks_and_claims(quick) -> None:
    res, out = quick
    att = pd.read_csv(out / "uhra_attacks.csv")
    assert list(att.columns) == experiment.ATTACK_COLUMNS
    grid = experiment.QUICK_GRID
    methods = (*experiment.METHODS, *experiment.BASELINES)
    assert len(att) == 2 * (1 + len(grid.attack_ts) * len(methods))
    assert set(att["method"]) == {*methods, "priors only"}
    assert att["bk_breached_share"].between(0, 1).all()
    claims = pd.read_csv(out / "uhra_claims.csv")
    assert list(claims.columns) == experiment.CLAIM_COLUMNS
    assert (claims["satisfied"] <= claims["configurations"]).all()
    assert {"GCP: UHRA < BKA-JS", "UHRA lower GCP and RL than both", "BKA-JS is fastest"} <= set(claims["claim"])
    assert "paper: UHRA has lower GCP" in res.report and "wall time" in res.report


def test_quick_plots(quick) -> None:
    res, out = quick
    for name in PNGS:
        data = (out / name).read_bytes()
        assert len(data) > 1000 and data[:8] == b"\x89PNG\r\n\x1a\n"
    assert {Path(f).name for f in res.files} >= set(PNGS) | set(CSVS) | {"uhra_report.txt"}


def test_incremental_priors_option() -> None:
    kernel = experiment.bkseq_dataset(records=200, releases=4, seed=1)
    inc = experiment.bkseq_dataset(records=200, releases=4, seed=1, priors="incremental")
    a, b = kernel.priors.per_record(), inc.priors.per_record()
    assert a.shape == b.shape == (200, kernel.table.domains["disease"].size)
    assert np.allclose(b.sum(axis=1), 1.0) and not np.allclose(a, b)
    assert "incremental" in inc.description
    with pytest.raises(InputError):
        experiment.bkseq_dataset(records=50, releases=1, priors="incremental")
    with pytest.raises(InputError):
        experiment.bkseq_dataset(records=50, releases=2, priors="nope")


def test_cli_command(tmp_path: Path) -> None:
    out = tmp_path / "o"
    result = runner.invoke(app, ["experiment", "uhra", "--quick", "--datasets", "bkseq", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "Table 3" in result.output and "bkseq" in result.output
    runs = pd.read_csv(out / "uhra_runs.csv")
    assert set(runs["dataset"]) == {"bkseq"}
    t3 = pd.read_csv(out / "uhra_table3.csv")
    assert t3["group_avg"].isna().all() and t3["paper_avg"].notna().any()  # no Adult: the paper's figures only
    bad = runner.invoke(app, ["experiment", "uhra", "--quick", "--datasets", "nope", "--out", str(out)])
    assert bad.exit_code == 2
    assert experiment.main(["--quick", "--datasets", "nope", "--out", str(out)]) == 2


def test_paper_json_is_valid_json_file() -> None:
    from importlib import resources

    raw = resources.files("anonkit.experiments.uhra").joinpath(experiment.PAPER_FILE).read_text(encoding="utf-8")
    assert json.loads(raw)["paper"] == "A"
