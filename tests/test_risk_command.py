"""``anonkit risk``: sdcMicro's per-record risk figures from the command line, end to end on real files.

The goldens are sdcMicro 5.8.1's own figures on 300 rows of its ``testdata`` (households, missing key
values) and of ``free1`` (varying weights): ``tests/data/sdcmicro_*_expected.csv``, made by
``measure_riskWORK(td, keyVars = keys, w = "sampling_weight", hid = "ori_hid", alpha = 1)`` (fk, Fk,
risk, hier_risk), ``measure_riskWORK(f1, keyVars = keys, w = "WEIGHT")`` and ``suda2(x, variables =
keys)`` (suda, dis_suda; DisFraction 0.01, sdcMicro's default) — provenance in
``tests/data/sdcmicro_NOTICE.md``. DIS-SUDA is compared to 1e-6: sdcMicro computes part of it in single
precision.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from anonkit.cli import app
from anonkit.risk import record_risks

DATA = Path(__file__).resolve().parent / "data"
TD_KEYS = "urbrur,roof,walls,water,electcon,relat,sex"
F1_KEYS = "REGION,SEX,AGE,MARSTAT,KINDPERS,EDUC1"
runner = CliRunner()


def cli(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, ["risk", *args])
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture(scope="module")
def testdata_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, bytes]:
    """One run on testdata300 with every per-record figure: (folder, JSON, the records file's bytes)."""
    tmp = tmp_path_factory.mktemp("td")
    shutil.copy(DATA / "sdcmicro_testdata300.csv", tmp / "td.csv")
    code, out, err = cli(str(tmp / "td.csv"), "--qi", TD_KEYS, "--weight", "sampling_weight", "--household", "ori_hid",
                         "--suda", "--records", str(tmp / "records.csv"), "--json")
    assert code == 0, err
    return tmp, json.loads(out), (tmp / "records.csv").read_bytes()


def test_testdata_records_equal_sdcmicro(testdata_run: tuple[Path, dict, bytes]) -> None:
    tmp, _, _ = testdata_run
    got = pd.read_csv(tmp / "records.csv")
    want = pd.read_csv(DATA / "sdcmicro_testdata300_expected.csv")
    assert list(got.columns) == ["row", "fk", "Fk", "risk", "household_risk", "suda", "dis_suda"]
    assert got["row"].tolist() == list(range(1, 301))  # one row per input record, in input order
    assert got["fk"].tolist() == want["fk"].tolist()
    np.testing.assert_allclose(got["Fk"], want["Fk"], rtol=1e-12)
    np.testing.assert_allclose(got["risk"], want["risk"], rtol=1e-10)
    np.testing.assert_allclose(got["household_risk"], want["hier_risk"], rtol=1e-10)
    np.testing.assert_array_equal(got["suda"], want["suda"])
    np.testing.assert_allclose(got["dis_suda"], want["dis_suda"], atol=1e-6)


def test_testdata_json_totals(testdata_run: tuple[Path, dict, bytes]) -> None:
    _, report, _ = testdata_run
    want = pd.read_csv(DATA / "sdcmicro_testdata300_expected.csv")
    for key in ("expected_reidentifications", "global_risk", "household_expected_reidentifications",
                "household_global_risk", "sample_uniques", "records", "suda2"):
        assert key in report
    assert report["expected_reidentifications"] == pytest.approx(want["risk"].sum(), rel=1e-10)
    assert report["global_risk"] == pytest.approx(want["risk"].mean(), rel=1e-10)
    assert report["household_expected_reidentifications"] == pytest.approx(want["hier_risk"].sum(), rel=1e-10)
    assert report["sample_uniques"] == int((want["fk"] == 1).sum())
    assert report["records_file"].endswith("records.csv")


def test_free1_varying_weights_equal_sdcmicro(tmp_path: Path) -> None:
    shutil.copy(DATA / "sdcmicro_free1_300.csv", tmp_path / "f1.csv")
    code, out, err = cli(str(tmp_path / "f1.csv"), "--qi", F1_KEYS, "--weight", "WEIGHT", "--suda",
                         "--records", str(tmp_path / "r.parquet"), "--json")
    assert code == 0, err
    got = pd.read_parquet(tmp_path / "r.parquet")
    want = pd.read_csv(DATA / "sdcmicro_free1_300_expected.csv")
    assert got["fk"].tolist() == want["fk"].tolist()
    np.testing.assert_allclose(got["Fk"], want["Fk"], rtol=1e-12)
    np.testing.assert_allclose(got["risk"], want["risk"], rtol=1e-10)
    np.testing.assert_array_equal(got["suda"], want["suda"])
    np.testing.assert_allclose(got["dis_suda"], want["dis_suda"], atol=1e-6)
    report = json.loads(out)
    assert "household_expected_reidentifications" not in report  # only with a household column
    assert "household_risk" not in got.columns


def test_records_are_byte_identical_across_runs(testdata_run: tuple[Path, dict, bytes], tmp_path: Path) -> None:
    tmp, _, first = testdata_run
    code, _, err = cli(str(tmp / "td.csv"), "--qi", TD_KEYS, "--weight", "sampling_weight", "--household", "ori_hid",
                       "--suda", "--records", str(tmp_path / "again.csv"))
    assert code == 0, err
    assert (tmp_path / "again.csv").read_bytes() == first


def test_rows_follow_the_input_order(tmp_path: Path) -> None:
    data = pd.read_csv(DATA / "sdcmicro_testdata300.csv", dtype=str, keep_default_na=False)
    order = np.random.default_rng(5).permutation(len(data))
    data.iloc[order].to_csv(tmp_path / "shuffled.csv", index=False)
    data.to_csv(tmp_path / "plain.csv", index=False)
    for name in ("plain", "shuffled"):
        code, _, err = cli(str(tmp_path / f"{name}.csv"), "--qi", TD_KEYS, "--weight", "sampling_weight",
                           "--household", "ori_hid", "--records", str(tmp_path / f"{name}-r.csv"))
        assert code == 0, err
    plain = pd.read_csv(tmp_path / "plain-r.csv").drop(columns="row")
    shuffled = pd.read_csv(tmp_path / "shuffled-r.csv").drop(columns="row")
    pd.testing.assert_frame_equal(shuffled, plain.iloc[order].reset_index(drop=True))


TINY = "a,b,name\n1,x,Ann\n1,,Bob\n2,y,Cy\n2,NA,Di\n"


def test_missing_values_match_any_value_worked_by_hand(tmp_path: Path) -> None:
    """Rows (1,x) (1,·) (2,y) (2,NA): the empty cell matches x, so rows 1 and 2 each count both (fk 2); "NA" is a
    value of its own unless --na-values says it is missing. No weights: risk = 1/fk."""
    (tmp_path / "t.csv").write_text(TINY)
    code, out, err = cli(str(tmp_path / "t.csv"), "--qi", "a,b", "--records", str(tmp_path / "r.csv"), "--json")
    assert code == 0, err
    got = pd.read_csv(tmp_path / "r.csv")
    assert got["fk"].tolist() == [2, 2, 1, 1]
    assert got["risk"].tolist() == [0.5, 0.5, 1.0, 1.0]
    assert json.loads(out)["expected_reidentifications"] == 3.0
    code, out, err = cli(str(tmp_path / "t.csv"), "--qi", "a,b", "--na-values", "NA", "--records",
                         str(tmp_path / "r2.csv"), "--json")
    assert code == 0, err
    got = pd.read_csv(tmp_path / "r2.csv")
    assert got["fk"].tolist() == [2, 2, 2, 2]  # (2,NA) now matches (2,y) and the other way round
    report = json.loads(out)
    assert report["expected_reidentifications"] == 2.0 and report["global_risk"] == 0.5


def test_api_gives_the_command_figures() -> None:
    frame = pd.DataFrame({"a": [1, 1, 2, 2], "b": ["x", None, "y", "y"], "w": [2.0, 3.0, 1.0, 4.0],
                          "h": [1, 1, 2, 3]})
    res = record_risks(frame, ["a", "b"], weight="w", household="h")
    assert res.records["fk"].tolist() == [2, 2, 2, 2]
    assert res.records["Fk"].tolist() == [5.0, 5.0, 5.0, 5.0]
    hh = res.records["household_risk"].to_numpy()
    r = res.records["risk"].to_numpy()
    assert hh[0] == pytest.approx(1 - (1 - r[0]) * (1 - r[1])) and hh[2] == pytest.approx(r[2])
    assert res.to_dict()["expected_reidentifications"] == pytest.approx(r.sum())


def test_summary_shows_keys_only_and_the_riskiest_records(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text(TINY)
    code, out, err = cli(str(tmp_path / "t.csv"), "--qi", "a,b")
    assert code == 0, err
    assert "expected re-identifications" in out and "global risk" in out and "riskiest" in out
    for secret in ("Ann", "Bob", "Cy", "Di", "name"):
        assert secret not in out  # never a column outside --qi/--weight/--household
    assert "a=2 b=y" in out and "a=1 b=—" in out


def test_loglinear_global_figures(tmp_path: Path) -> None:
    shutil.copy(DATA / "sdcmicro_free1_300.csv", tmp_path / "f1.csv")
    code, out, err = cli(str(tmp_path / "f1.csv"), "--qi", "REGION,SEX,MARSTAT", "--weight", "WEIGHT",
                         "--loglinear", "--json")
    assert code == 0, err
    ll = json.loads(out)["loglinear"]
    assert set(ll) >= {"gr1", "gr2", "method", "cells_kept"} and 0 <= ll["gr1"] <= 1 and 0 <= ll["gr2"] <= 1


# ------------------------------------------------------------------------------------------ refusals
BASE = ["--qi", "a,b", "--weight", "w", "--household", "h"]
GOOD = "a,b,w,h,other\n1,x,2,1,p\n1,y,3,1,q\n2,y,1.5,2,r\n"


def _refusal(tmp: Path, args: list[str], text: str = GOOD) -> tuple[int, str]:
    (tmp / "in.csv").write_text(text)
    res = runner.invoke(app, ["risk", str(tmp / "in.csv"), *args, "--records", str(tmp / "out.csv")])
    assert not (tmp / "out.csv").exists() and not list(tmp.glob(".*.tmp"))  # nothing written
    assert (tmp / "in.csv").read_text() == text  # the input unchanged
    return res.exit_code, res.stderr


REFUSALS = [
    ("empty --qi", ["--qi", " , "], None, "--qi names no column"),
    ("unknown key", ["--qi", "a,zz"], None, "column 'zz'"),
    ("key named twice", ["--qi", "a,a"], None, "twice"),
    ("unknown weight", [*BASE[:2], "--weight", "nope"], None, "column 'nope'"),
    ("weight is a key", ["--qi", "a,w", "--weight", "w"], None, "--weight names a key variable"),
    ("household is the weight", ["--qi", "a", "--weight", "w", "--household", "w"], None, "same column"),
    ("weight not a number", BASE, GOOD.replace("1,y,3,", "1,y,three,"), "not a number"),
    ("weight below 1", BASE, GOOD.replace("1,y,3,", "1,y,0.5,"), "below 1"),
    ("weight missing", BASE, GOOD.replace("1,y,3,", "1,y,,"), "missing"),
    ("household id missing", BASE, GOOD.replace(",3,1,q", ",3,,q"), "household id is missing"),
    ("blank household flag", [*BASE[:4], "--household", " "], None, "--household needs a column name"),
    ("suda max size 0", [*BASE, "--suda", "--suda-max-size", "0"], None, "from 1 to the 2"),
    ("suda max size too big", [*BASE, "--suda", "--suda-max-size", "3"], None, "from 1 to the 2"),
    ("suda max size not a number", [*BASE, "--suda", "--suda-max-size", "two"], None, "whole number"),
    ("suda max size without suda", [*BASE, "--suda-max-size", "1"], None, "goes with --suda"),
    ("dis fraction out of range", [*BASE, "--suda", "--dis-fraction", "0"], None, "(0, 1]"),
    ("dis fraction without suda", [*BASE, "--dis-fraction", "0.1"], None, "goes with --suda"),
    ("loglinear with a missing key", [*BASE, "--loglinear"], GOOD.replace("1,y,3", "1,,3"), "row 2"),
]


@pytest.mark.parametrize(("args", "text", "words"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_refusals_are_one_line_exit_2(tmp_path: Path, args: list[str], text: str | None, words: str) -> None:
    code, err = _refusal(tmp_path, args, GOOD if text is None else text)
    assert code == 2, err
    assert err.startswith("error:") and err.count("\n") == 1 and words in err, err


def test_control_of_the_refusals_runs(tmp_path: Path) -> None:
    (tmp_path / "in.csv").write_text(GOOD)
    res = runner.invoke(app, ["risk", str(tmp_path / "in.csv"), *BASE, "--suda", "--suda-max-size", "2",
                              "--dis-fraction", "0.1", "--records", str(tmp_path / "out.csv")])
    assert res.exit_code == 0, res.stderr
    assert len(pd.read_csv(tmp_path / "out.csv")) == 3


@pytest.mark.parametrize("how", ["same path", "relative", "symlink", "hard link"])
def test_records_never_overwrite_the_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    data = tmp_path / "in.csv"
    data.write_text(GOOD)
    target = {"same path": str(data), "relative": "./sub/../in.csv"}.get(how)
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    if how == "symlink":
        os.symlink(data, tmp_path / "link.csv")
        target = str(tmp_path / "link.csv")
    elif how == "hard link":
        os.link(data, tmp_path / "hard.csv")
        target = str(tmp_path / "hard.csv")
    res = runner.invoke(app, ["risk", str(data), *BASE, "--records", str(target)])
    assert res.exit_code == 2 and "--records" in res.stderr and res.stderr.count("\n") == 1, res.stderr
    assert data.read_text() == GOOD


def test_records_into_a_missing_folder_is_refused_before_reading(tmp_path: Path) -> None:
    res = runner.invoke(app, ["risk", str(tmp_path / "absent.csv"), *BASE, "--records",
                              str(tmp_path / "nowhere" / "r.csv")])
    assert res.exit_code == 2 and "does not exist" in res.stderr and "absent" not in res.stderr, res.stderr


#: the test's import hook: the job stops for good in the *loading* of $AK_BLOCK_AT (after touching $AK_MARK), which
#: holds that module's lock only — not the interpreter's import lock, which a wait inside ``find_spec`` would hold
#: and on which the main thread's one-line message (its first use of rich's emoji tables) would then wait
HOOK = '''
import importlib.machinery, os, sys, time
class _Stop:
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        open(os.environ["AK_MARK"], "w").close()
        time.sleep(3600)
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["AK_BLOCK_AT"]:
            sys.meta_path.remove(self)
            return importlib.machinery.ModuleSpec(name, _Stop())
        return None
sys.meta_path.insert(0, _Block())
'''


def test_ctrl_c_while_writing_records_exits_130_and_writes_nothing(tmp_path: Path) -> None:
    """The job stops at its first import of the CSV writer (on the job's thread): SIGINT there gives 130, one
    line, and no records file (a marker file, not timing, says when the job is there)."""
    (tmp_path / "hook").mkdir()
    (tmp_path / "hook" / "sitecustomize.py").write_text(HOOK)
    shutil.copy(DATA / "sdcmicro_testdata300.csv", tmp_path / "td.csv")
    mark = tmp_path / "marker"
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "hook"), "AK_BLOCK_AT": "pandas.io.formats.csvs",
           "AK_MARK": str(mark)}
    proc = subprocess.Popen([sys.executable, "-m", "anonkit", "risk", "td.csv", "--qi", TD_KEYS, "--records",
                             "r.csv"], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    while not mark.exists():
        if proc.poll() is not None:
            raise AssertionError(f"ended before the marker: {proc.communicate()[1].decode()}")
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)  # a hang guard, not a speed claim
    assert proc.returncode == 130, err.decode()
    assert err.decode().strip() == "interrupted: nothing was written"
    assert not (tmp_path / "r.csv").exists() and not list(tmp_path.glob(".*.tmp"))
