"""benchmarks/bench_criteria.py without ARX (CI has no ARX build): its help, its no-ARX path on one small
configuration, and the pieces that keep both sides on the same configuration (the harness's arguments and
anonkit's models from one setup, the research subset's rows, the harness's output read back)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd
import pytest

from support import benchmark_module


@pytest.fixture(scope="module")
def bench() -> Iterator[ModuleType]:
    with benchmark_module("bench_criteria") as module:
        yield module


def test_help_names_the_arx_options(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        bench.parse(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for option in ("--arx-classpath", "--sizes", "--runs", "--rounds", "--arx-runs", "--configs", "--no-arx"):
        assert option in out


def test_without_a_class_path_it_says_arx_was_not_run(bench: ModuleType, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ARX_CLASSPATH", raising=False)
    bench.main(["--sizes", "1", "--runs", "1", "--rounds", "1", "--configs", "KMAP5_S0"])
    out = capsys.readouterr().out
    assert out.startswith("ARX was not run: no ARX build given")
    assert "research subset 3,016" in out
    rows = [line for line in out.splitlines() if line.endswith("ARX not run")]
    assert [r.split()[0] for r in rows] == ["KMAP5_S0"]
    assert "optimum [0, 4, 1, 1, 3, 2, 0, 0], Loss 0.47912470619308056, suppressed 0" in out  # ARX's, measured
    assert "(Flash alone on the encoded table)" in out  # the search alone found the same optimum


@pytest.mark.parametrize(("argv", "words"), [
    (["--sizes", "1,x"], "--sizes takes whole numbers"),
    (["--sizes", "0"], "at least one copy"),
    (["--configs", "KMAP5_S0,NOPE"], "unknown configuration 'NOPE'"),
    (["--runs", "0"], "at least 1"),
])
def test_bad_options_are_refused_in_one_line(bench: ModuleType, capsys: pytest.CaptureFixture[str], argv: list[str],
                                             words: str) -> None:
    with pytest.raises(SystemExit) as exc:
        bench.parse(argv)
    assert exc.value.code == 2
    assert words in capsys.readouterr().err.strip().splitlines()[-1]


def test_good_options_parse(bench: ModuleType) -> None:
    args = bench.parse(["--sizes", "1,10", "--configs", "DP_0_02_S0"])
    assert args.sizes == [1, 10] and args.configs == ["DP_0_02_S0"]


def harness_args(bench: ModuleType, name: str, copies: int) -> dict[str, str]:
    setup = next(s for s in bench.SETUPS if s.name == name)
    pairs = (a.split("=", 1) for a in bench.arx_arguments(setup, setup.at(copies), Path("rows.txt")))
    return dict(pairs)


@pytest.mark.parametrize("copies", [1, 10])
def test_both_sides_get_the_same_parameters(bench: ModuleType, copies: int) -> None:
    """×10 scales k and the population up and the average-risk threshold down, on both sides alike."""
    built = {}
    for setup in bench.SETUPS:
        models, reason = bench.anonkit_models(setup, setup.at(copies))
        if models is not None:
            built[setup.name] = models[0]
        else:
            assert setup.model == "profitability" and reason.startswith("skipped")
    kmap, est = harness_args(bench, "KMAP5_S0", copies), harness_args(bench, "KMAP_EST_S5", copies)
    assert int(kmap["k"]) == built["KMAP5_S0"].k == 5 * copies and kmap["subset"] == "rows.txt"
    assert int(est["population"]) == built["KMAP_EST_S5"].population_size == bench.USA * copies
    assert est["estimator"] == built["KMAP_EST_S5"].estimator and "subset" not in est
    dp = harness_args(bench, "DP_005_015_S5", copies)
    assert (float(dp["dmin"]), float(dp["dmax"])) == (built["DP_005_015_S5"].dmin, built["DP_005_015_S5"].dmax)
    assert float(dp["suppression"]) == 0.05
    avg = harness_args(bench, "AVGRISK_S4", copies)
    assert float(avg["threshold"]) == built["AVGRISK_S4"].threshold == 0.01 / copies
    pop = harness_args(bench, "POPUNIQ_DANKAR_S4", copies)
    model = built["POPUNIQ_DANKAR_S4"]
    assert (pop["pu_model"], int(pop["population"]), int(pop["iterations"])) == (
        model.estimator, model.population, model.iterations)
    profit = harness_args(bench, "PROFIT_JNA_S4", copies)
    assert profit["attack"] == "false" and profit["attacker"] == "journalist"
    assert float(profit["publisher_loss"]) == 3000.0


def test_a_setup_that_needs_the_subset_refuses_without_its_rows(bench: ModuleType) -> None:
    setup = bench.SETUPS[0]
    with pytest.raises(ValueError, match="research subset"):
        bench.arx_arguments(setup, setup.at(1), None)


def test_the_subset_rows_are_matched_one_to_one_and_written(bench: ModuleType, tmp_path: Path) -> None:
    frame = pd.DataFrame({"a": ["x", "x", "y", "z"], "b": ["1", "1", "2", "3"]})
    mask = bench.subset_mask(frame, pd.DataFrame({"b": ["1", "3", "1"], "a": ["x", "z", "x"]}))
    assert mask.tolist() == [True, True, False, True]  # two identical records, two rows
    with pytest.raises(ValueError, match="1 subset records match no row"):
        bench.subset_mask(frame, pd.DataFrame({"a": ["x", "w"], "b": ["1", "1"]}))
    with pytest.raises(ValueError, match="match no row"):  # a third x/1 has no third row
        bench.subset_mask(frame, pd.DataFrame({"a": ["x"] * 3, "b": ["1"] * 3}))
    rows = bench.write_rows(np.tile(mask, 2), tmp_path / "rows.txt").read_text().split()
    assert rows == ["0", "1", "3", "4", "5", "7"]


HARNESS_OUTPUT = """loadMs=3818 rows=30162 subsetRows=3016 config={model=k-map}
run=1 wallMs=536.960 cpuMs=400.000 optimum=[1,0,1,2,3,2,2,1] loss=45.014925373134325 suppressed=0 checked=160
run=2 wallMs=143.594 cpuMs=130.000 optimum=[1,0,1,2,3,2,2,1] loss=45.014925373134325 suppressed=0 checked=160
run=3 wallMs=120.000 cpuMs=110.000 optimum=[1,0,1,2,3,2,2,1] loss=45.014925373134325 suppressed=2 checked=160
wallMsPerRun=[536.959568, 143.5943, 120.0]
"""


def test_the_harness_output_is_read_back(bench: ModuleType) -> None:
    run = bench.parse_arx(HARNESS_OUTPUT)
    assert run.transformation == [1, 0, 1, 2, 3, 2, 2, 1] and run.loss == "45.014925373134325"
    assert run.suppressed == 2  # the last run's
    assert run.warm == pytest.approx(((0.143594 + 0.120) / 2, 0.120))  # runs 2…N: the first is left out
    none = bench.parse_arx("run=1 wallMs=5.0 cpuMs=4.0 optimum=none\n")
    assert none.transformation == [] and none.loss == "none" and none.warm == (0.005, 0.004)
    with pytest.raises(ValueError, match="no run"):
        bench.parse_arx("Exception in thread main")


def test_agreement_names_what_differs(bench: ModuleType) -> None:
    run = bench.parse_arx(HARNESS_OUTPUT)
    ours = bench.Ours(transformation=[1, 0, 1, 2, 3, 2, 2, 1], loss="45.014925373134325", suppressed=2)
    assert bench.agree(ours, run) == "same optimum, Loss and suppressed"
    ours.loss, ours.suppressed = "45.0", 3
    assert bench.agree(ours, run).startswith("DIFFERS in Loss, suppressed (anonkit's Loss -3.3e-04 relative)")
