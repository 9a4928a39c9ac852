"""benchmarks/bench_sdc.py without sdcMicro (CI has no R build of it): its help and refusals, every row of its
MEASURES table run by anonkit on a small synthetic survey with sdcMicro's side skipped and said so, and the
pieces that keep both tools on the same input (the part a quadratic or complete-only method runs on, the R
program's names, the synthetic survey's household-level columns)."""

from __future__ import annotations

import importlib.util
import math
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_sdc.py"


@pytest.fixture(scope="module")
def bench() -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location("bench_sdc", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    loaded = "bench_sdc" in sys.modules
    sys.modules["bench_sdc"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    if not loaded:
        sys.modules.pop("bench_sdc", None)


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
    def once(measure, data, runs):  # type: ignore[no-untyped-def]  # one call, no warm-up: the suite's time
        return 0.0, 0.0, bench.method_seconds(measure.anonkit(data))

    monkeypatch.setattr(bench, "time_anonkit", once)
    bench.main(["--sdc-dir", str(tmp_path / "none"), "--testdata", str(tmp_path / "absent.csv"),
                "--synthetic", "240", "--rounds", "1", "--runs", "1"])
    out = capsys.readouterr().out
    assert out.startswith(f"sdcMicro's side skipped: no built sdcMicro in {tmp_path / 'none'}")
    assert "testdata skipped:" in out
    rows = {line[:18].strip(): line for line in out.splitlines() if line.endswith("sdcMicro skipped")}
    assert list(rows) == bench.NAMES
    for name, line in rows.items():
        alg = line[18:].split()[3]  # rows, wall, cpu, alg
        assert (alg == "nan") == (name in bench.NAMES[:6]), line  # a method reports its own seconds
    assert rows["recordSwap"][18:].split()[0] != "240"  # it ran on the records with every key


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
        script = bench.r_script(m, data, 2, "/sdc")
        assert "{" not in script.replace("{library", "").replace("suppressMessages({", "")  # every slot filled
        assert 'setwd("/sdc")' in script and 'read.csv("/nowhere/synthetic.csv")' in script
        assert 'geo <- c("region", "district")' in script and 'rv <- c("sex", "age")' in script
        assert "seq_len(2)" in script and m.r_call in script


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
