"""One rule for paths: no run loses an input, and no run leaves a temporary file for ever.

* A hypothesis property draws a place a run reads (the input, a hierarchy, categories, the config,
  an audit table) and an output (release, ``--output``, manifests, ``--report``) and points the output
  at the read — as the same relative or absolute path, through ``..``, a symbolic link or a hard
  link — or, as the control, at a copy of it. The run is refused in one line naming both keys (exit
  2) when they are one file, runs (exit 0) when it is the copy, and every input keeps its bytes.
* :func:`anonkit.io._places.same_place` on its own: files, SQLite tables, PostgreSQL tables, queries.
* Temporary files: a killed run's is removed by the next write there (only anonkit's names for that
  target, only when its process is gone, or old); SIGTERM and Ctrl-C remove the running one.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit.errors import InputError
from anonkit.io import write_table
from anonkit.io._files import STALE_AFTER_SECONDS, _host_tag, remove_stale, temporary_name
from anonkit.io._places import Place, check_places, same_file, same_place
from bad_input_kit import TOY, base_config, error_line, run, snapshot, toy_dir

ROOT = Path(__file__).resolve().parents[1]

#: a place the run reads: key → (its file, the config change that makes the run read it)
READS = {
    "input.path": (TOY, {}),
    "attributes.Age.hierarchy": ("test2_hierarchy_Age.csv", {}),
    "attributes.ZIPCode.hierarchy": ("test2_hierarchy_ZIPCode.csv", {}),
    "the config file": ("c.yaml", {}),
    "audit.control": ("control.csv", {"audit": {"control": "control.csv"}}),
    "audit.population_table": ("population.csv", {"audit": {"population_table": "population.csv",
                                                            "population": 100}}),
}
WRITES = ("output.path", "--output", "output.manifest", "post_analytics.manifest", "--report")
SPELLINGS = ("relative", "absolute", "dotdot", "dot", "symlink", "hardlink", "copy")


def _lay_out(tmp: Path, read: str, write: str, spelling: str) -> list[str]:
    """The toy folder with ``write`` pointed at ``read``'s file as ``spelling``; the CLI arguments."""
    toy_dir(tmp)
    file, change = READS[read]
    cfg = base_config()
    cfg.update(change)
    for extra in ("control.csv", "population.csv"):
        shutil.copy(tmp / TOY, tmp / extra)
    (tmp / "sub").mkdir()
    suffix = ".html" if write == "--report" else ".csv"
    if spelling in ("relative", "absolute", "dotdot", "dot"):
        value = {"relative": file, "absolute": str(tmp / file), "dotdot": f"sub/../{file}", "dot": f"./{file}"}[
            spelling]
    else:
        value = f"other{suffix}"
    cli: list[str] = []
    where = value if os.path.isabs(value) else str(tmp / value)
    if write == "output.path":
        cfg["output"] = {"path": value, "format": "csv", "separator": ";"}
    elif write == "--output":
        cli = ["--output", where]
        cfg["output"]["format"] = "csv"
    elif write == "output.manifest":
        cfg["output"]["manifest"] = value
    elif write == "post_analytics.manifest":
        cfg["post_analytics"] = {"critical": ["Disease"], "manifest": value}
    else:
        cli = ["--report", where]
    (tmp / "c.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    if spelling == "symlink":
        (tmp / value).symlink_to(tmp / file)
    elif spelling == "hardlink":
        os.link(tmp / file, tmp / value)
    elif spelling == "copy":
        shutil.copy(tmp / file, tmp / value)
    return ["anonymize", str(tmp / "c.yaml"), *cli]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(READS)), st.sampled_from(WRITES), st.sampled_from(SPELLINGS))
def test_no_output_ever_replaces_a_read(read: str, write: str, spelling: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        args = _lay_out(tmp, read, write, spelling)
        inputs = [TOY, "test2_hierarchy_Age.csv", "test2_hierarchy_ZIPCode.csv", "test2_hierarchy_Disease.csv",
                  "c.yaml", "control.csv", "population.csv"]
        before = {f: (tmp / f).read_bytes() for f in inputs}
        res = run(args)
        after = {f: (tmp / f).read_bytes() for f in inputs}
        assert before == after, f"an input changed: {[f for f in inputs if before[f] != after[f]]}"
        assert not list(tmp.glob(".*.tmp"))
        if spelling == "copy":  # the control: a file of its own next to the read is a fine output
            assert res.exit_code == 0, res.stderr
            return
        assert res.exit_code == 2, (res.stdout, res.stderr)
        line = error_line(res.stderr, 2)
        assert write in line and read in line, line
        assert not (tmp / "out.csv").exists()


def test_a_write_onto_a_read_is_refused_before_the_input_is_read(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import anonkit.runner.local

    def boom(*_a: object, **_k: object) -> None:
        raise AssertionError("work started")

    monkeypatch.setattr(anonkit.runner.local, "load_input", boom)
    args = _lay_out(tmp_path, "audit.control", "output.manifest", "hardlink")
    before = snapshot(tmp_path)
    res = run(args)
    assert res.exit_code == 2 and "audit.control" in error_line(res.stderr, 2)
    assert snapshot(tmp_path) == before


# ------------------------------------------------------------------------ same_place on its own
def test_same_file_sees_links_and_dotdot(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("x\n")
    (tmp_path / "d").mkdir()
    os.link(tmp_path / "a.csv", tmp_path / "h.csv")
    (tmp_path / "s.csv").symlink_to(tmp_path / "a.csv")
    for other in ("h.csv", "s.csv", "d/../a.csv", "./a.csv"):
        assert same_file(tmp_path / "a.csv", tmp_path / other), other
    (tmp_path / "c.csv").write_text("x\n")
    assert not same_file(tmp_path / "a.csv", tmp_path / "c.csv")  # control: equal bytes, another file
    cwd = os.getcwd()
    try:
        os.chdir(tmp_path)
        assert same_file("a.csv", str(tmp_path / "a.csv"))
    finally:
        os.chdir(cwd)


def test_database_places(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "in.db"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE people (x TEXT)")
    con.close()
    loc = str(db)
    assert same_place(Place("out", loc, None, "PEOPLE"), Place("in", loc))  # the sole table, any case
    assert not same_place(Place("out", loc, None, "release"), Place("in", loc, None, "people"))
    assert same_place(Place("out", loc, "csv"), Place("in", loc, None, "people"))  # a CSV replaces the file
    assert same_place(Place("out", loc, None, "people"), Place("in", loc, None, None, "SELECT * FROM People"))
    assert not same_place(Place("out", loc, None, "peoplex"), Place("in", loc, None, None, "SELECT * FROM people"))
    a = "postgresql://u:pw@localhost/db"
    b = "postgresql://v@127.0.0.1:5432/db"
    assert same_place(Place("out", a, None, "public.t"), Place("in", b, None, "T"))
    assert same_place(Place("out", a, None, "t"), Place("in", b, None, None, "select * from t where 1=1"))
    assert not same_place(Place("out", a, None, "t"), Place("in", "postgresql://v@otherhost/db", None, "t"))
    assert not same_place(Place("out", a, None, "t"), Place("in", str(tmp_path / "t.csv")))


def test_the_refusal_names_both_keys_and_masks_the_uri() -> None:
    uri = "postgresql://u:hunter22@localhost/db"
    with pytest.raises(InputError) as exc:
        check_places([Place("input.path", uri, None, "people")], [Place("output.path", uri, None, "People")])
    text = str(exc.value)
    assert "output.path" in text and "input.path" in text and "hunter22" not in text
    with pytest.raises(InputError, match=r"output\.path and --report would write to the same"):
        check_places([], [Place("output.path", "/x/r.html", "csv"), Place("--report", "/x/./r.html", "html")])
    check_places([Place("input.path", uri, None, "people")], [Place("output.path", uri, None, "release")])


# ------------------------------------------------------------------------ temporary files
def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_killed_runs_temporary_file_is_removed_by_the_next_write(tmp_path: Path) -> None:
    """A run killed outright (SIGKILL: nothing of it runs) leaves its temporary file; the next run that
    writes there removes it — and nothing else: not a live process's, not another target's, not a
    file of the user's that only looks alike, not a fresh one of an older anonkit."""
    import pandas as pd

    target = tmp_path / "out.csv"
    script = (f"import time; from pathlib import Path; from anonkit.io import atomic_write as _atomic_write\n"
              f"t = Path({str(target)!r})\n"
              f"def slow(tmp):\n    Path(tmp).write_text('partial'); print('writing', flush=True); time.sleep(60)\n"
              f"_atomic_write(t, str(t), slow)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "writing"
    proc.kill()
    proc.wait()
    killed = list(tmp_path.glob(".out.csv.*.tmp"))
    assert len(killed) == 1 and str(proc.pid) in killed[0].name  # the pid is in the name
    host = _host_tag()
    keep = {
        "live": tmp_path / f".out.csv.{os.getpid()}-{host}.abcdefgh.tmp",  # a writer still running
        "other-target": tmp_path / f".in.csv.{_dead_pid()}-{host}.abcdefgh.tmp",
        "user-file": tmp_path / ".out.csv.notes.tmp",
        "fresh-legacy": tmp_path / ".out.csv.k2j4h6g8.tmp",  # an older anonkit's, written a moment ago
        "fresh-other-host": tmp_path / f".out.csv.{_dead_pid()}-00000000.abcdefgh.tmp",
    }
    old_legacy = tmp_path / ".out.csv.q1w2e3r4.tmp"
    for path in (*keep.values(), old_legacy):
        path.write_text("x")
    past = time.time() - STALE_AFTER_SECONDS - 10
    os.utime(old_legacy, (past, past))
    write_table(pd.DataFrame({"a": ["1"]}), target)
    assert target.read_text() == "a\n1\n"
    assert not killed[0].exists() and not old_legacy.exists()
    assert all(p.exists() for p in keep.values()), [k for k, p in keep.items() if not p.exists()]
    assert remove_stale(target) == []  # nothing more to remove


def test_the_temporary_name_carries_the_pid_and_host(tmp_path: Path) -> None:
    name = temporary_name(tmp_path / "r.csv")
    assert name == f".r.csv.{os.getpid()}-{_host_tag()}."


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_and_ctrl_c_remove_the_temporary_file(tmp_path: Path, sig: signal.Signals) -> None:
    """The command line stops on SIGTERM as on Ctrl-C: exit 130, the target untouched, no temporary file."""
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    script = (f"import time; from pathlib import Path; from anonkit.cli.running import interruptible\n"
              f"from anonkit.io import atomic_write as _atomic_write\nt = Path({str(target)!r})\n"
              f"def slow(tmp):\n    Path(tmp).write_text('partial'); print('writing', flush=True); time.sleep(60)\n"
              f"interruptible(lambda: _atomic_write(t, str(t), slow))\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "writing"
    assert list(tmp_path.glob(".out.csv.*.tmp"))  # control: the temporary file was there
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted: nothing was written" in err
    assert target.read_text() == "old\n"
    assert not list(tmp_path.glob(".*.tmp"))


def test_an_error_inside_a_write_removes_the_temporary_file(tmp_path: Path) -> None:
    from anonkit.io import atomic_write as _atomic_write

    target = tmp_path / "out.csv"

    def fail(tmp: str) -> None:
        Path(tmp).write_text("partial")
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        _atomic_write(target, str(target), fail)
    assert not list(tmp_path.iterdir())


def test_a_spark_release_directory_never_holds_a_file_the_run_reads(tmp_path: Path) -> None:
    """``engine: spark`` writes a Parquet directory: one that is, or holds, the config or a hierarchy
    is refused before Spark starts (the check runs before the session is made)."""
    from anonkit.config import parse_config
    from anonkit.pipeline import run_config
    from anonkit.runner.spark import _refuse_reads

    toy_dir(tmp_path)
    (tmp_path / "h").mkdir()
    shutil.move(tmp_path / "test2_hierarchy_Age.csv", tmp_path / "h" / "age.csv")
    raw = {**base_config(), "engine": "spark", "input": {"path": "data/in.parquet"}}
    raw["attributes"]["Age"]["hierarchy"] = "h/age.csv"
    raw["algorithm"] = {"name": "mondrian"}
    (tmp_path / "cfg").mkdir()
    config_file = tmp_path / "cfg" / "c.yaml"
    config_file.write_text(yaml.safe_dump(raw))
    for out, read in ((tmp_path / "cfg", "the config file"), (tmp_path / "h", "attributes.Age.hierarchy"),
                      (tmp_path / "h" / "age.csv", "attributes.Age.hierarchy")):
        cfg = parse_config({**raw, "output": {"path": str(out), "if_exists": "replace"}})
        with pytest.raises(InputError, match=rf"would replace a file the run reads \({read}\)"):
            run_config(cfg, config_dir=tmp_path, config_file=config_file)
    ok = parse_config({**raw, "output": {"path": str(tmp_path / "release")}})
    _refuse_reads(ok, tmp_path, str(tmp_path / "release"), "output.path", config_file)  # control: refuses nothing


@pytest.mark.parametrize("how", ["hard link", "symlink"])
def test_the_audit_report_never_replaces_a_file_it_reads(tmp_path: Path, how: str) -> None:
    """``anonkit audit --report`` checks its report against every file it reads (here ``--original``, which
    the write itself does not list) before any work, with the one rule (real path, symlink, hard link); a
    report elsewhere is written (control)."""
    toy_dir(tmp_path)
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(base_config(), sort_keys=False))
    res = run(["anonymize", str(tmp_path / "c.yaml")])
    assert res.exit_code == 0, res.stderr
    alias = tmp_path / "alias.html"
    if how == "hard link":
        os.link(tmp_path / TOY, alias)
    else:
        alias.symlink_to(tmp_path / TOY)
    before = snapshot(tmp_path)
    audit = ["audit", str(tmp_path / "out.csv"), "--config", str(tmp_path / "c.yaml"),
             "--original", str(tmp_path / TOY)]
    res = run([*audit, "--report", str(alias)])
    assert res.exit_code == 2, res.stderr
    assert "--report" in error_line(res.stderr, 2)
    assert snapshot(tmp_path) == before
    res = run([*audit, "--report", str(tmp_path / "audit.html")])
    assert res.exit_code in (0, 1) and (tmp_path / "audit.html").exists(), res.stderr
