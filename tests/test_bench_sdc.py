"""benchmarks/bench_sdc.py without sdcMicro (CI has no R build of it): its help and refusals, every row of its
MEASURES table run by anonkit on a small synthetic survey with sdcMicro's side skipped and said so, and the
pieces that keep both tools on the same input (the part a quadratic or complete-only method runs on, the R
program's names, the synthetic survey's household-level columns)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest

from support import benchmark_module


@pytest.fixture(scope="module")
def bench() -> Iterator[ModuleType]:
    with benchmark_module("bench_sdc") as module:
        yield module


def test_help_names_the_options_and_every_measure(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        bench.parse(["--help"])
    assert exc.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    for option in ("--testdata", "--synthetic", "--rounds", "--runs", "--sdc-dir", "--r-timeout", "--only"):
        assert option in out
    for name in ("localSuppression", "pram", "addNoise", "micro mdav", "micro pca", "micro onedims", "rankSwap",
                 "recordSwap", "suda2"):
        assert name in out


@pytest.mark.parametrize(("argv", "words"), [
    (["--only", "pram,nope"], "unknown measure 'nope'"),
    (["--rounds", "0"], "must be at least 1"),
    (["--runs", "-2"], "must be at least 1"),
    (["--synthetic", "-1"], "must be 0 (none) or more"),
])
def test_bad_options_are_refused_in_one_line(bench: ModuleType, capsys: pytest.CaptureFixture[str], argv: list[str],
                                             words: str) -> None:
    with pytest.raises(SystemExit) as exc:
        bench.parse(argv)
    assert exc.value.code == 2
    assert words in capsys.readouterr().err.strip().splitlines()[-1]


def test_good_options_parse(bench: ModuleType) -> None:  # the control of the refusals
    args = bench.parse(["--only", "pram,micro mdav", "--rounds", "1", "--synthetic", "0"])
    assert (args.only, args.rounds, args.synthetic) == ("pram,micro mdav", 1, 0)


def test_every_measure_runs_in_anonkit_and_sdcmicro_is_skipped_with_its_message(
        bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def once(call, runs):  # type: ignore[no-untyped-def]  # one call, no warm-up: the suite's time
        call()
        return 0.0, 0.0

    monkeypatch.setattr(bench, "time_anonkit", once)
    bench.main(["--sdc-dir", str(tmp_path / "none"), "--testdata", str(tmp_path / "absent.csv"),
                "--synthetic", "240", "--rounds", "1", "--runs", "1"])
    out = capsys.readouterr().out
    assert out.startswith(f"sdcMicro's side skipped: no built sdcMicro in {tmp_path / 'none'}")
    assert "testdata skipped:" in out
    tables = out.split("\n-- synthetic, ")[1:]
    assert [t.splitlines()[0] for t in tables] == list(bench.LEVELS)
    rows = [{line[:18].strip(): line for line in t.splitlines() if line.endswith("sdcMicro skipped")} for t in tables]
    assert list(rows[0]) == bench.NAMES  # the method alone: every measure
    assert list(rows[1]) == bench.NAMES[6:]  # the whole run: the methods (a risk measure has none)
    assert rows[1]["recordSwap"][18:].split()[0] != "240"  # it ran on the records with every key


def test_the_method_alone_is_the_algorithm_on_the_encoded_table(bench: ModuleType) -> None:
    """The method alone returns the algorithm's release (no verification, no summary); the whole run a Result."""
    data = _data(bench, 300)
    noise = next(m for m in bench.MEASURES if m.name == "addNoise")
    alone = bench.anonkit_call(noise, data, bench.LEVELS[0])()
    whole = bench.anonkit_call(noise, data, bench.LEVELS[1])()
    assert type(alone).__name__ == "PerturbedRelease" and type(whole).__name__ == "Result"
    assert alone.published.equals(whole.frame)  # the same release either way
    assert bench.anonkit_call(bench.MEASURES[0], data, bench.LEVELS[1]) is None  # a risk measure: no whole run


def _data(bench: ModuleType, rows: int) -> object:
    frame = bench.synthetic(rows)
    return bench.Data("synthetic", frame, Path("/nowhere/synthetic.csv"), bench.KEYS_SYNTHETIC, "weight", "household",
                      numeric=["income"], categorical=["marital"], geography=["region", "district"],
                      similar=["hhsize"], risk_variables=["sex", "age"])


def test_a_measure_runs_on_the_same_part_of_the_table_in_both_tools(bench: ModuleType, tmp_path: Path) -> None:
    data = replace(_data(bench, 400), csv=tmp_path / "synthetic.csv")
    cache: dict[tuple[int, bool], object] = {}
    plain = next(m for m in bench.MEASURES if m.name == "pram")
    assert bench.subset(data, plain, cache) is data  # the control: the whole table
    capped = bench.subset(data, replace(plain, max_rows=100), cache)
    assert len(capped.frame) == 100 and capped.frame.equals(data.frame.head(100))
    assert pd.read_csv(capped.csv).shape == (100, data.frame.shape[1])  # what R reads
    swap = next(m for m in bench.MEASURES if m.name == "recordSwap")
    complete = bench.subset(data, swap, cache)
    assert 0 < len(complete.frame) < 400 and not complete.frame[data.keys].isna().any().any()
    assert len(pd.read_csv(complete.csv)) == len(complete.frame) and complete.csv != capped.csv


def test_the_r_program_names_every_input_of_the_data(bench: ModuleType) -> None:
    data = _data(bench, 50)
    for m in bench.MEASURES:
        for call in (m.r_call, m.r_obj):
            if call is None:
                assert m.name in bench.NAMES[:6]  # only a risk measure has no sdcMicroObj workflow
                continue
            script = bench.r_script(call, data, 2, "/sdc")
            assert "{" not in script.replace("{library", "").replace("suppressMessages({", "")  # every slot filled
            assert 'setwd("/sdc")' in script and 'fread("/nowhere/synthetic.csv"' in script
            assert 'geo <- c("region", "district")' in script and 'rv <- c("sex", "age")' in script
            assert "seq_len(2)" in script and call in script


def test_the_synthetic_survey_is_seeded_and_keeps_household_columns_per_household(bench: ModuleType) -> None:
    a, b = bench.synthetic(3000), bench.synthetic(3000)
    assert a.equals(b) and not a.equals(bench.synthetic(3000, seed=1))
    per_household = a.groupby("household")[["region", "district", "hhsize", "weight"]].nunique(dropna=False)
    assert (per_household <= 1).all().all()  # record swapping needs one value per household
    assert (a.groupby("household").size() <= a.groupby("household")["hhsize"].first()).all()
    assert not a.groupby("household")["sex"].nunique().le(1).all()  # the control: a person's column varies
    assert math.isclose(a[bench.KEYS_SYNTHETIC].isna().mean().mean(), 0.002, abs_tol=0.002)


def test_anonkit_reads_the_table_as_r_types_it(bench: ModuleType) -> None:
    data = _data(bench, 60)
    plain, swapping = bench.schema_of(data), bench.schema_of(data, household=True)
    assert list(plain.quasi) == bench.KEYS_SYNTHETIC
    assert plain["income"].type.value == "numeric" and plain["age"].type.value == "categorical"
    assert plain["household"].role.value == "insensitive"  # the control: a household only for record swapping
    assert swapping["household"].role.value == "household"
