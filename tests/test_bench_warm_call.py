"""benchmarks/bench_warm_call.py without ARX (CI has no ARX build): its arguments, its no-ARX path on one
configuration (a real child process measuring real calls, the four ways), the reading of the harness's
printout, and that a "new input" is really new (no cell's object shared with the last one, so no memo keyed by
memory can hit)."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import numpy as np
import pytest

from anonkit._values import cell_addresses
from support import benchmark_module


@pytest.fixture(scope="module")
def bench() -> Iterator[ModuleType]:
    with benchmark_module("bench_warm_call") as module:
        yield module


@pytest.mark.parametrize(("argv", "words"), [
    (["--configs", "KLT_S0,NOPE"], "unknown configuration 'NOPE'"),
    (["--configs", ","], "names no configuration"),
    (["--rounds", "0"], "--rounds must be at least 1"),
    (["--arx-runs", "0"], "--arx-runs must be at least 1"),
    (["--ways", "same,nope"], "--ways takes some of same, new, shuffled, shuffled-str"),
    (["--ways", ","], "--ways takes some of"),
])
def test_bad_arguments_are_refused_in_one_line(bench: ModuleType, argv: list[str], words: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        bench.parse(argv)
    assert exc.value.code == 2
    assert words in capsys.readouterr().err


def test_without_a_class_path_it_measures_ours_and_says_arx_was_not_run(
        bench: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ARX_CLASSPATH", raising=False)
    bench.main(["--configs", "KLT_S0", "--rounds", "1", "--runs", "1", "--kernels", "numpy"])
    out = capsys.readouterr().out
    assert out.startswith("ARX was not run: no ARX build given")
    lines = [line.strip() for line in out.splitlines()]
    assert lines[lines.index("KLT_S0") + 1].startswith("same         input: ours CPU ")
    assert lines[lines.index("KLT_S0") + 2].startswith("new          input: ours CPU ")
    assert lines[lines.index("KLT_S0") + 3].startswith("shuffled     input: ours CPU ")
    assert lines[lines.index("KLT_S0") + 4].startswith("shuffled-str input: ours CPU ")


def test_the_harness_printout_is_read_from_its_second_half(bench: ModuleType) -> None:
    text = ("cpuUs=[9000, 8000, 4000, 2000, 3000, 1000]\nprocessCpuUs=[9900, 8800, 4400, 2000, 4000, 3000]\n"
            "wallUs=[9500, 8500, 4500, 2500, 3500, 1500]\noptimum=[1, 4, 1, 1, 3, 2, 2, 1]\nloss=0.9183953641009659\n")
    got = bench.parse_arx(text)
    assert got == {"cpu": 2.0, "process": 3.0, "wall": 2.5, "optimum": [1, 4, 1, 1, 3, 2, 2, 1],
                   "score": 0.9183953641009659}
    with pytest.raises(RuntimeError, match="printed no cpuUs"):
        bench.parse_arx("Exception in thread main")


def test_ours_measures_both_ways_and_finds_arx_optimum(bench: ModuleType) -> None:
    got = bench.ours(["KLT_S0"], 1, "numpy")["KLT_S0"]
    assert got["optimum"] == [1, 4, 1, 1, 3, 2, 2, 1]  # ARX's, measured (shared/tools/arx-harness/README.md)
    assert got["score"] == pytest.approx(0.9183953641009659, abs=1e-12)
    assert all(got[way]["cpu"] > 0 and got[way]["wall"] > 0 for way in bench.WAYS)
    assert bench.WAYS == ("same", "new", "shuffled", "shuffled-str")


def test_a_new_input_shares_no_cell_object_with_the_last(bench: ModuleType) -> None:
    first, second = bench.load_adult()[0], bench.load_adult()[0]
    for column in ("occupation", "age"):
        a, b = first[column].to_numpy(), second[column].to_numpy()
        assert (a == b).all()
        assert not np.isin(cell_addresses(a), cell_addresses(b)).any()


def test_the_shuffled_inputs_hold_the_same_records_in_another_order(bench: ModuleType) -> None:
    """Both shuffled inputs are Adult's records, every one once, in the order the seed gives; the str input
    keeps pandas' own text dtype and the other is cast to ``object``, as ``load_adult`` does."""
    adult = bench.load_adult()[0]
    obj, text = bench.shuffled(4), bench.shuffled(4, text="str")
    assert all(str(t) == "object" for t in obj.dtypes)
    assert all(str(t) == "str" for t in text.dtypes)
    assert obj.astype(str).equals(text)
    assert not obj.equals(adult) and not obj.equals(bench.shuffled(5))  # another order each seed
    key = list(adult.columns)
    assert obj.sort_values(key).reset_index(drop=True).equals(adult.sort_values(key).reset_index(drop=True))
    frame = bench.load_adult()[0]
    assert bench.way_input("same", 3, frame) is frame
    assert bench.way_input("shuffled-str", 4, frame).equals(text)


@pytest.mark.parametrize(("argv", "calls"), [
    ([], [(["KLT_S0"], ("same",)), (["KLT_S0"], ("new",)), (["K5_8QI_S0"], ("same",)), (["K5_8QI_S0"], ("new",))]),
    (["--one-process"], [(["KLT_S0", "K5_8QI_S0"], ("same", "new"))]),
])
def test_ours_runs_one_process_per_configuration_and_way_as_arx_does(
        bench: ModuleType, monkeypatch: pytest.MonkeyPatch, argv: list[str], calls: list) -> None:
    """ARX's side is one JVM per configuration and way; ours is one process for each as well (nothing an
    earlier configuration left in the process reaches the next), or one for the round with ``--one-process``."""
    made: list = []

    def child(names: list[str], runs: int, kernels: str, ways: tuple[str, ...]) -> dict:
        made.append((names, ways))
        return {name: {**{w: {"cpu": 1.0, "wall": 1.0} for w in ways}, "optimum": [0], "score": 0.0}
                for name in names}

    monkeypatch.setattr(bench, "child", child)
    monkeypatch.delenv("ARX_CLASSPATH", raising=False)
    bench.main(["--configs", "KLT_S0,K5_8QI_S0", "--ways", "same,new", "--rounds", "1", *argv])
    assert made == calls
