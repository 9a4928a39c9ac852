"""benchmarks/bench_scale.py without its minutes of runs: the growth-exponent fit, the verdict and its table
of declared reasons, that every registered algorithm has a declared workload (so the benchmark cannot drift
from the registry), one child run in-process on a few hundred rows, a run over its timeout recorded as such,
and the parent's exit code from given figures (a superlinear algorithm fails it unless a reason is declared).
No test here times anything: the figures are given, or only their presence is checked."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from support import benchmark_module


@pytest.fixture(scope="module")
def bench() -> Iterator[ModuleType]:
    with benchmark_module("bench_scale") as module:
        yield module


@pytest.mark.parametrize("power", [0.5, 1.0, 1.5, 2.0])
def test_fit_recovers_the_exponent_of_a_power_law(bench: ModuleType, power: float) -> None:
    sizes = [30_000, 300_000, 3_000_000]
    seconds = [0.5 * (s / 30_000) ** power for s in sizes]
    assert bench.fit_exponent(sizes, seconds) == pytest.approx(power, abs=1e-9)


def test_fit_leaves_out_points_below_the_floor_and_needs_two(bench: ModuleType) -> None:
    # the fixed cost dominates the first point: left out, the slope is that of the other two
    assert bench.fit_exponent([1, 10, 100], [0.01, 1.0, 10.0], floor=0.2) == pytest.approx(1.0)
    assert bench.fit_exponent([1, 10, 100], [0.01, 1.0, 10.0], floor=0.0) == pytest.approx(1.5)
    assert bench.fit_exponent([1, 10], [0.01, 1.0], floor=0.2) is None  # one point left
    assert bench.fit_exponent([5, 5], [1.0, 2.0], floor=0.0) is None  # one size
    assert bench.fit_exponent([], [], floor=0.0) is None


def test_verdict_fails_a_superlinear_algorithm_unless_a_reason_is_declared(bench: ModuleType) -> None:
    bad = bench.verdict("toy", 1.9, reasons={})
    assert bad is not None and "toy" in bad and "1.90" in bad and "SUPERLINEAR_REASONS" in bad
    assert bench.verdict("toy", 1.9, reasons={"toy": "quadratic by definition"}) is None
    assert bench.verdict("toy", bench.MAX_EXPONENT, reasons={}) is None  # at the limit passes
    assert bench.verdict("toy", 1.0, reasons={}) is None
    assert bench.verdict("toy", None, reasons={}) is None  # too fast to fit


def test_every_registered_algorithm_has_a_workload_and_reasons_name_real_ones(bench: ModuleType) -> None:
    from anonkit.algorithms.registry import algorithms

    registered = algorithms()
    missing = [n for n, a in registered.items() if bench.workload(n, a.family) is None]
    assert missing == []
    assert set(bench.SUPERLINEAR_REASONS) <= set(registered)
    assert all(r.strip() for r in bench.SUPERLINEAR_REASONS.values())
    own = {n for n in bench.WORKLOADS if not n.startswith("family:")}
    assert own <= set(registered), own - set(registered)  # no workload for an algorithm that is gone
    assert bench.workload("no-such-algorithm", "no-such-family") is None


def test_one_child_run_reports_its_figures(bench: ModuleType) -> None:
    row = bench.child("stack-and-deal", 400)
    assert row["rows"] == 400 and row["algorithm"] == "stack-and-deal" and row["classes"] >= 1
    for key in ("encode_cpu", "cpu", "wall", "peak_mb", "base_mb"):
        assert row[key] >= 0
    json.dumps(row)  # what the parent reads


def test_distinct_repetitions_grow_the_distinct_ages(bench: ModuleType) -> None:
    n = bench.ADULT_ROWS * 2
    same = bench.adult_rows(n, distinct=False)
    apart = bench.adult_rows(n, distinct=True)
    assert same["age"].nunique() < apart["age"].nunique() == 2 * same["age"].nunique()
    assert (apart["age"].iloc[: bench.ADULT_ROWS].astype(int) // 1000).astype(str).tolist() == \
        same["age"].iloc[: bench.ADULT_ROWS].tolist()


def test_a_run_over_its_timeout_is_recorded_not_hung(bench: ModuleType) -> None:
    row = bench._run_child("stack-and-deal", 1000, 0.01, "declared")
    assert row["status"] == "timeout" and row["timeout_s"] == 0.01


def _fake_runs(cpu_of: dict[str, list[float]]) -> Any:
    def run(name: str, size: int, timeout: float, rows: str, whole: bool) -> dict[str, Any]:
        i = [30_000, 300_000].index(size)
        return {"algorithm": name, "size": size, "status": "ok", "rows": size, "distinct": size, "classes": 1,
                "encode_cpu": 0.0, "prepare_cpu": 0.0, "cpu": cpu_of[name][i], "wall": cpu_of[name][i],
                "process_cpu": 1.0, "peak_mb": 100.0, "load": 0.0}
    return run


@pytest.mark.parametrize(("reasons", "code"), [({}, 1), ({"anatomy": "quadratic by definition (test)"}, 0)])
def test_the_parent_exits_non_zero_on_an_undeclared_superlinear_algorithm(
        bench: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        reasons: dict[str, str], code: int) -> None:
    monkeypatch.setattr(bench, "_run_child", _fake_runs({"anatomy": [1.0, 100.0], "stack-and-deal": [1.0, 10.0]}))
    monkeypatch.setattr(bench, "SUPERLINEAR_REASONS", reasons)
    out = tmp_path / "r.json"
    monkeypatch.setattr(sys, "argv", ["bench_scale.py", "--sizes", "30000,300000", "--algorithms",
                                      "anatomy,stack-and-deal", "--out", str(out)])
    assert bench.main() == code
    text = capsys.readouterr().out
    got = json.loads(out.read_text())
    assert got["exponents"] == {"anatomy": pytest.approx(2.0), "stack-and-deal": pytest.approx(1.0)}
    assert ("FAIL anatomy" in text) == (code == 1) and "FAIL stack-and-deal" not in text


def test_an_algorithm_without_a_workload_fails_the_parent(bench: ModuleType, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(bench, "WORKLOADS", {k: v for k, v in bench.WORKLOADS.items() if k != "family:bucket"
                                             and k != "stack-and-deal"})
    monkeypatch.setattr(bench, "_run_child", _fake_runs({}))
    monkeypatch.setattr(sys, "argv", ["bench_scale.py", "--algorithms", "stack-and-deal"])
    assert bench.main() == 1
    assert "FAIL stack-and-deal: no workload declared" in capsys.readouterr().out


def test_rows_modes_choose_distinct_repetitions_where_the_workload_can(bench: ModuleType) -> None:
    lattice, cluster, persons = (bench.workload(n, f) for n, f in
                                 (("flash", "lattice"), ("kaca", "cluster"), ("angelization", "bucket")))
    assert [bench.rows_distinct(w, "declared") for w in (lattice, cluster, persons)] == [False, True, False]
    assert [bench.rows_distinct(w, "distinct") for w in (lattice, cluster, persons)] == [None, True, None]
    assert [bench.rows_distinct(w, "replicated") for w in (lattice, cluster, persons)] == [False, False, False]


# ---------------------------------------------------------------- the scale fixes these figures led to


def test_anatomy_groups_read_like_the_list_of_arrays_they_replace() -> None:
    import numpy as np

    from anonkit.algorithms.bucket.anatomy import Groups

    members, ends = np.array([4, 0, 2, 1, 3, 5]), np.array([2, 3, 6])
    listed = [np.array([4, 0]), np.array([2]), np.array([1, 3, 5])]
    groups = Groups(members, ends)
    assert len(groups) == 3 and groups == listed and groups != listed[:2] and groups != "abc"
    assert [g.tolist() for g in groups] == [g.tolist() for g in listed]
    assert groups[-1].tolist() == [1, 3, 5] and [g.tolist() for g in groups[1:]] == [[2], [1, 3, 5]]
    with pytest.raises(IndexError):
        groups[3]
    assert Groups(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)) == []


def test_anatomy_st_is_the_dense_histograms_non_zero_cells() -> None:
    """The ST built from the (group, value) cells present equals the one the dense histogram gave."""
    import numpy as np
    import pandas as pd

    from anonkit import Schema, Table
    from anonkit.algorithms.bucket.anatomy import anatomy
    from anonkit.algorithms.bucket.stack_and_deal import class_histogram

    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"zip": rng.integers(0, 9, 240).astype(str), "d": rng.integers(0, 40, 240).astype(str)})
    table = Table(frame, Schema.of(quasi=["zip"], sensitive=["d"]))
    for seed in (None, 1):
        rel = anatomy(table, [], l=4, seed=seed)
        codes, labels = table.sensitive_codes["d"].astype(np.int64), table.domains["d"].labels
        hist = class_histogram(codes, rel.record_class, rel.n_classes, len(labels))
        g, v = np.nonzero(hist)
        expected = pd.DataFrame({"GroupID": g + 1, "d": pd.Series(labels[v], dtype=object),
                                 "Count": hist[g, v].astype(np.int64)})
        pd.testing.assert_frame_equal(rel.tables["st"], expected)
        assert rel.notes["distinct_l"] == int(np.count_nonzero(hist, axis=1).min())
        assert rel.notes["max_confidence"] == float((hist.max(axis=1) / hist.sum(axis=1)).max())
