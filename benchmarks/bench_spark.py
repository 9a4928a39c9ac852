"""Spark engine benchmark: the Spark engine against the single-machine engine on 10 M and 50 M rows.

Run: python benchmarks/bench_spark.py [--rows 10000000,50000000] [--quick] [--jobs flash,mondrian]
                                      [--repeat 1] [--data-dir benchmarks/out/spark] [--keep-output]

1. **Data.** Parquet files of N Adult-like rows (``adult-N.parquet`` in ``--data-dir``, made once and
   reused): rows of the bundled Adult table (30,162 rows, text cells, age as text) sampled with
   replacement (seed 0), each row's age then drawn again, apart from the rest of the row, from the
   ages of its row group (Adult's age distribution), in row groups of 1,048,576 rows written one at a
   time with ``pyarrow.parquet.ParquetWriter`` (generation never holds the whole table), plus
   ``hours``, an insensitive int64 column (random 1–99). The 8 quasi-identifiers ``sex, age, race,
   marital-status, education, native-country, workclass, occupation`` use ARX's hierarchies;
   ``salary-class`` is sensitive. Redrawing the age makes about 1.4 M combinations possible (whole
   Adult rows resampled would each appear ≈ 330 times at 10 M rows, and 5-anonymity would hold with no
   generalization), so the search does real work.
2. **Jobs.** Flash, 5-anonymity, at most 2 % suppressed; Mondrian (strict), 5-anonymity — Mondrian
   runs only when :mod:`anonkit.engines.spark_mondrian` is importable and the Spark engine does not
   answer "not ready" (the script says so otherwise). Every job runs in a fresh Python process:

   * **spark**: ``SparkEngine(spark_session("local[2]", driver memory 2g, 8 shuffle partitions, no
     UI))``, ``eng.read(path)``, :func:`anonkit.anonymize` with ``engine=eng`` (encode, search,
     publish plan and independent verification on Spark), then ``eng.write(res.frame, dir,
     if_exists="replace")`` (a Parquet directory; Spark's lazy publish — generalization,
     suppression, the seeded shuffle — runs here);
   * **local**: the CLI's path, :func:`anonkit.pipeline.run_config` on a config parsed by
     :func:`anonkit.config.parse_config` (``input: {path, format: parquet}``, the hierarchies as the
     bundled CSV files, output a Parquet file); its phases (read, anonymize, write) are timed from
     its progress messages.

   Seconds are the job's own (from the first import to the written output) and the process's wall
   time; at 10 M rows and more each figure is a single run unless ``--repeat`` says otherwise
   (median of the runs). Peak memory: the resident set of the job's process tree sampled every
   0.2 s from a thread of this process (psutil): the Python process, the JVM PySpark starts
   (``java``) and any other child (the ``bash`` launchers, ``pyspark.daemon`` Python workers; forked
   workers' shared pages are counted once per worker), and their sum. The tree's CPU seconds (as
   last sampled) and the 5-minute load average as the job ends show whether other work competed for
   the cores (more than 2 on a 2-core machine: the wall times are inflated).
3. **Output.** A table per size: seconds (spark, local, spark / local), peak RSS, suppressed records,
   classes and score of each engine and whether they are equal (scores within 1e-9 relative); then
   whether each Spark job completed with a 2 GB driver and how the Spark time scales from the
   smallest to the largest size (ratio of times / ratio of rows).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]
SENSITIVE = "salary-class"
JOBS = ["flash", "mondrian"]
ROW_GROUP = 1_048_576
SPARK_CONF = {"spark.driver.memory": "2g", "spark.sql.shuffle.partitions": "8", "spark.ui.enabled": "false"}
DEFAULT_DIR = Path(__file__).resolve().parent / "out" / "spark"
#: the algorithm options of each job
JOB_OPTIONS = {"flash": {"max_suppression": 0.02}, "mondrian": {"mode": "strict"}}
NOT_READY = "not ready"


# ---------------------------------------------------------------------------------------------- data
def data_path(data_dir: Path, rows: int) -> Path:
    return data_dir / f"adult-ages-{rows}.parquet"


def make_data(path: Path, rows: int, seed: int = 0) -> str:
    """``rows`` rows of Adult sampled with replacement, written one row group at a time."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    if path.exists():
        try:
            if pq.ParquetFile(path).metadata.num_rows == rows:
                return f"{path} exists ({rows:,} rows, {path.stat().st_size / 1e6:.0f} MB): reused"
        except Exception:  # a broken file: made again
            pass
        path.unlink()
    from anonkit import load_adult

    frame, _ = load_adult()
    base = pa.Table.from_pandas(frame[[*QIS, SENSITIVE]], preserve_index=False).replace_schema_metadata(None)
    schema = base.schema.append(pa.field("hours", pa.int64()))
    rng = np.random.default_rng(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.part")
    t = time.perf_counter()
    with pq.ParquetWriter(tmp, schema, compression="snappy") as writer:
        for start in range(0, rows, ROW_GROUP):
            n = min(ROW_GROUP, rows - start)
            part = base.take(pa.array(rng.integers(0, len(base), n)))
            # the age drawn again from Adult's ages, apart from the rest of the row: ~1.4 M possible
            # combinations, so that 5-anonymity needs generalization at 10 M and 50 M rows
            ages = part.column("age").take(pa.array(rng.permutation(n)))
            part = part.set_column(part.schema.get_field_index("age"), "age", ages)
            writer.write_table(part.append_column("hours", pa.array(rng.integers(1, 100, n), pa.int64())),
                               row_group_size=ROW_GROUP)
    os.replace(tmp, path)
    return (f"{path}: {rows:,} rows written in {time.perf_counter() - t:.1f} s "
            f"({path.stat().st_size / 1e6:.0f} MB)")


# ---------------------------------------------------------------------------------------------- children
def child_spark(spec: dict) -> dict:
    """One job on the Spark engine (in a fresh process)."""
    t0 = time.perf_counter()
    import anonkit
    from anonkit import load_adult
    from anonkit.engines.spark import SparkEngine, spark_session
    from anonkit.models import KAnonymity

    spark = spark_session("local[2]", SPARK_CONF)
    eng = SparkEngine(spark)
    t_session = time.perf_counter()
    df = eng.read(spec["input"])
    _, hierarchies = load_adult()
    schema = anonkit.Schema.of(quasi=QIS, sensitive=[SENSITIVE], insensitive=["hours"],
                               hierarchies={q: hierarchies[q] for q in QIS})
    t1 = time.perf_counter()
    res = anonkit.anonymize(df, schema, [KAnonymity(5)], algorithm=spec["job"], seed=1, engine=eng,
                            **JOB_OPTIONS[spec["job"]])
    t2 = time.perf_counter()
    eng.write(res.frame, spec["output"], if_exists="replace")
    t3 = time.perf_counter()
    s = res.summary
    out = {"setup": t_session - t0, "read": t1 - t_session, "anonymize": t2 - t1, "write": t3 - t2,
           "total": t3 - t0, "suppressed": s.get("suppressed"), "score": s.get("score"), "released": s.get("released"),
           "classes": s.get("classes"), "transformation": s.get("transformation"), "records": s.get("records")}
    spark.stop()
    return out


def child_local(spec: dict) -> dict:
    """One job on the local engine, the CLI's path: run_config on a parsed config (in a fresh process)."""
    t0 = time.perf_counter()
    from anonkit.config import parse_config
    from anonkit.datasets import data_dir
    from anonkit.pipeline import run_config

    attributes = {q: {"role": "quasi", "hierarchy": str(data_dir() / f"adult_hierarchy_{q}.csv")} for q in QIS}
    attributes[SENSITIVE] = {"role": "sensitive"}
    attributes["hours"] = {"role": "insensitive"}
    config = parse_config({
        "input": {"path": spec["input"], "format": "parquet"},
        "attributes": attributes,
        "privacy": [{"model": "k-anonymity", "k": 5}],
        "algorithm": {"name": spec["job"], **JOB_OPTIONS[spec["job"]]},
        "output": {"path": spec["output"]},
        "seed": 1,
    })
    marks: dict[str, float] = {}
    t_setup = time.perf_counter()
    result = run_config(config, progress=lambda msg: marks.setdefault(msg, time.perf_counter()))
    t3 = time.perf_counter()
    read0 = marks.get("reading input", t_setup)
    anon0 = marks.get("anonymizing", read0)
    write0 = marks.get("writing output", t3)
    s = result.summary
    return {"setup": t_setup - t0, "read": anon0 - read0, "anonymize": write0 - anon0, "write": t3 - write0,
            "total": t3 - t0, "suppressed": s.get("suppressed"), "score": s.get("score"), "released": s.get("released"),
            "classes": s.get("classes"), "transformation": s.get("transformation"), "records": s.get("records")}


def child(spec_json: str) -> None:
    spec = json.loads(spec_json)
    try:
        out = (child_spark if spec["engine"] == "spark" else child_local)(spec)
    except Exception as exc:  # reported to the parent, which prints it
        import traceback

        out = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
    print("BENCH " + json.dumps(out, default=str), flush=True)


# ---------------------------------------------------------------------------------------------- memory
class TreeSampler(threading.Thread):
    """Samples the resident set of a process and its descendants every ``interval`` seconds."""

    def __init__(self, pid: int, interval: float = 0.2) -> None:
        super().__init__(daemon=True)
        import psutil

        self.root = psutil.Process(pid)
        self.interval = interval
        self.peak = {"python": 0, "jvm": 0, "other": 0, "tree": 0}
        self.done = threading.Event()
        self.others: set[str] = set()
        self.cpu: dict[int, float] = {}  # the last CPU seconds (user + system) seen of each process

    def sample(self) -> None:
        import psutil

        try:
            procs = [self.root, *self.root.children(recursive=True)]
        except psutil.Error:
            return
        now = {"python": 0, "jvm": 0, "other": 0}
        for p in procs:
            try:
                rss = p.memory_info().rss
                times = p.cpu_times()
                self.cpu[p.pid] = times.user + times.system
                kind = "python" if p.pid == self.root.pid else "jvm" if p.name() == "java" else "other"
            except psutil.Error:
                continue
            now[kind] += rss
            if kind == "other":
                with contextlib.suppress(psutil.Error):
                    self.others.add(" ".join(p.cmdline()[:3])[:80])
        for key, value in now.items():
            self.peak[key] = max(self.peak[key], value)
        self.peak["tree"] = max(self.peak["tree"], sum(now.values()))

    def run(self) -> None:
        while not self.done.is_set():
            self.sample()
            self.done.wait(self.interval)

    def stop(self) -> dict:
        self.done.set()
        self.join()
        return self.peak


def run_job(spec: dict, log: Path) -> dict:
    """The job in a fresh process, its memory sampled; its figures, wall time and peaks."""
    start = time.perf_counter()
    with open(log, "w") as err:
        proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)],
                                stdout=subprocess.PIPE, stderr=err, text=True)
        sampler = TreeSampler(proc.pid)
        sampler.start()
        out, _ = proc.communicate()
        peak = sampler.stop()
        others = sorted(sampler.others)
    wall = time.perf_counter() - start
    cpu = sum(sampler.cpu.values())  # the tree's CPU seconds, as last sampled (0.2 s before each process ended)
    load = os.getloadavg()[1]  # the 5-minute load average as the job ends (2 cores: above 2, others compete)
    lines = [line for line in out.splitlines() if line.startswith("BENCH ")]
    if not lines:
        tail = log.read_text(errors="replace")[-3000:]
        return {"error": f"the process exited with {proc.returncode} and no figures", "traceback": tail,
                "wall": wall, "peak": peak, "returncode": proc.returncode, "cpu": cpu, "load": load}
    figures = json.loads(lines[-1][6:])
    return {**figures, "wall": wall, "peak": peak, "returncode": proc.returncode, "others": others, "cpu": cpu,
            "load": load}


def remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists():
        path.unlink()


# ---------------------------------------------------------------------------------------------- report
def median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def na(value: object) -> str:
    return "n/a" if value is None else str(value)


def same(a: object, b: object) -> str:
    """Whether two scores agree: floats within 1e-9 relative (sums in another order can move the last
    digit), anything else exactly."""
    if a is None:
        return "n/a (the Spark summary has no score)"
    if isinstance(a, float) and isinstance(b, float):
        return str(math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0))
    return str(a == b)


def gb(n: int) -> str:
    return f"{n / 1e9:5.2f}"


def mondrian_ready() -> tuple[bool, str]:
    if importlib.util.find_spec("anonkit.engines.spark_mondrian") is None:
        return False, "mondrian skipped: anonkit.engines.spark_mondrian is not importable (not written yet)"
    try:
        importlib.import_module("anonkit.engines.spark_mondrian")
    except Exception as exc:  # being written
        return False, f"mondrian skipped: importing anonkit.engines.spark_mondrian fails: {type(exc).__name__}: {exc}"
    return True, "mondrian: anonkit.engines.spark_mondrian is importable"


def bench_size(rows: int, jobs: list[str], repeat: int, data_dir: Path, keep: bool) -> dict:
    path = data_path(data_dir, rows)
    print(make_data(path, rows), flush=True)
    runs_note = "single run" if repeat == 1 else f"median of {repeat} runs"
    print(f"\n== {rows:,} rows ({path.stat().st_size / 1e6:.0f} MB Parquet), 8 QIs, k = 5; {runs_note} per "
          f"figure, each in a fresh process ==", flush=True)
    results: dict[str, dict] = {}
    for job in jobs:
        per_engine: dict[str, list[dict]] = {}
        skip = None
        for engine in ("spark", "local"):
            out = data_dir / (f"release-{job}-{engine}-{rows}" + ("" if engine == "spark" else ".parquet"))
            runs = []
            for i in range(repeat):
                spec = {"engine": engine, "job": job, "input": str(path), "output": str(out)}
                r = run_job(spec, data_dir / f"log-{job}-{engine}-{rows}-{i}.txt")
                if "error" in r:
                    if engine == "spark" and job == "mondrian" and NOT_READY in r["error"]:
                        skip = f"mondrian skipped: the Spark engine says: {r['error']}"
                    else:
                        print(f"{job:8s} {engine:5s} FAILED after {r['wall']:.1f} s (peak python "
                              f"{gb(r['peak']['python'])} GB, JVM {gb(r['peak']['jvm'])} GB): {r['error']}\n"
                              + "\n".join("    " + line for line in r["traceback"].splitlines()[-25:]),
                              flush=True)
                    runs = []
                    break
                runs.append(r)
                print(f"{job:8s} {engine:5s} run {i + 1}: {r['total']:7.1f} s in the job (setup {r['setup']:.1f}, "
                      f"read {r['read']:.1f}, anonymize {r['anonymize']:.1f}, write {r['write']:.1f}), process "
                      f"{r['wall']:.1f} s, CPU {r['cpu']:.0f} s, load (5 min) {r['load']:.1f}; peak RSS python "
                      f"{gb(r['peak']['python'])} GB, JVM "
                      f"{gb(r['peak']['jvm'])} GB, other {gb(r['peak']['other'])} GB, tree "
                      f"{gb(r['peak']['tree'])} GB; exit {r['returncode']}"
                      + (f"; other processes: {'; '.join(r['others'])}" if r.get("others") else ""), flush=True)
            if skip:
                print(skip, flush=True)
                break
            if not keep:
                remove(out)
            per_engine[engine] = runs
        if skip:
            continue
        results[job] = per_engine
        table(job, rows, per_engine, repeat)
    return results


def table(job: str, rows: int, per_engine: dict[str, list[dict]], repeat: int) -> None:
    spark, local = per_engine.get("spark") or [], per_engine.get("local") or []
    what = "s" if repeat == 1 else f"s, median of {repeat}"
    print(f"\n{job} at {rows:,} rows ({what}; local = run_config, the CLI's path, on the same Parquet file)")
    print(f"{'engine':6s} {'anonymize':>9s} {'write':>7s} {'job':>8s} {'process':>8s} {'py GB':>6s} {'JVM GB':>6s} "
          f"{'tree GB':>7s} {'CPU s':>6s} {'load':>5s} {'done':>5s} {'suppressed':>11s} "
          f"{'classes':>10s} {'score':>22s}  transformation")
    for name, runs in (("spark", spark), ("local", local)):
        if not runs:
            print(f"{name:6s} failed")
            continue
        r = runs[-1]
        peak = {k: max(x["peak"][k] for x in runs) for k in r["peak"]}
        transformation = r["transformation"]
        if isinstance(transformation, dict):
            transformation = ",".join(str(transformation[q]) for q in QIS if q in transformation)
        print(f"{name:6s} {median(runs, 'anonymize'):9.1f} {median(runs, 'write'):7.1f} {median(runs, 'total'):8.1f} "
              f"{median(runs, 'wall'):8.1f} {gb(peak['python']):>6s} {gb(peak['jvm']):>6s} {gb(peak['tree']):>7s} "
              f"{median(runs, 'cpu'):6.0f} {max(x['load'] for x in runs):5.1f} "
              f"{'yes' if r['returncode'] == 0 else 'no':>5s} {r['suppressed']:11,} "
              f"{r['classes'] or 0:10,} {na(r['score']):>22s}  "
              f"{na(transformation)}")
    if spark and local:
        s, lo = spark[-1], local[-1]
        ratio = median(spark, "total") / median(local, "total")
        print(f"spark / local: job {ratio:.2f}×, process {median(spark, 'wall') / median(local, 'wall'):.2f}×, "
              f"anonymize {median(spark, 'anonymize') / median(local, 'anonymize'):.2f}×; suppressed equal: "
              f"{s['suppressed'] == lo['suppressed']} ({s['suppressed']:,} / {lo['suppressed']:,}); score equal: "
              f"{same(s['score'], lo['score'])} ({na(s['score'])} / {na(lo['score'])}); classes equal: "
              f"{s['classes'] == lo['classes']} ({s['classes']} / {lo['classes']}); released {s['released']:,} / "
              f"{lo['released']:,}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="10000000,50000000", help="comma-separated sizes (default 10 M, 50 M)")
    parser.add_argument("--quick", action="store_true", help="1,000,000 rows only")
    parser.add_argument("--jobs", default="flash,mondrian", help="comma-separated subset of flash,mondrian")
    parser.add_argument("--repeat", type=int, default=None,
                        help="runs per figure (median); default 1 (at these sizes the figures are single runs)")
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DIR, help=f"where the data goes ({DEFAULT_DIR})")
    parser.add_argument("--keep-output", action="store_true", help="keep the releases (default: removed)")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child)
        return
    sizes = [1_000_000] if args.quick else [int(x.replace("_", "")) for x in args.rows.split(",") if x.strip()]
    jobs = [j.strip() for j in args.jobs.split(",") if j.strip()]
    if any(j not in JOBS for j in jobs):
        parser.error(f"jobs are {', '.join(JOBS)}")
    repeat = args.repeat or 1
    t = time.perf_counter()
    print(f"bench_spark: sizes {', '.join(f'{n:,}' for n in sizes)}; jobs {', '.join(jobs)}; spark local[2], "
          f"{', '.join(f'{k}={v}' for k, v in SPARK_CONF.items())}; {os.cpu_count()} cores")
    print(f"time figures: {'single runs' if repeat == 1 else f'median of {repeat} runs'} per engine and size")
    if "mondrian" in jobs:
        ready, note = mondrian_ready()
        print(note)
        if not ready:
            jobs = [j for j in jobs if j != "mondrian"]
    args.data_dir.mkdir(parents=True, exist_ok=True)
    done: dict[int, dict] = {}
    for rows in sizes:
        done[rows] = bench_size(rows, jobs, repeat, args.data_dir, args.keep_output)
    print()
    for job in jobs:
        ok = [(n, done[n][job]["spark"]) for n in sizes if job in done[n] and done[n][job].get("spark")]
        for n, runs in ok:
            print(f"{job} on spark at {n:,} rows: completed with spark.driver.memory 2g "
                  f"(peak JVM RSS {gb(max(r['peak']['jvm'] for r in runs))} GB)")
        if len(ok) >= 2:
            (n0, a), (n1, b) = ok[0], ok[-1]
            ta, tb = median(a, "total"), median(b, "total")
            grow = n1 / n0
            print(f"{job} on spark scales from {n0:,} to {n1:,} rows: {ta:.1f} s → {tb:.1f} s, ×{tb / ta:.2f} "
                  f"for ×{grow:g} the rows; (ratio of times) / {grow:g} = {tb / ta / grow:.2f} "
                  f"(1 = linear; anonymize alone {median(b, 'anonymize') / median(a, 'anonymize') / grow:.2f})")
    print(f"whole benchmark: {time.perf_counter() - t:.0f} s wall")


if __name__ == "__main__":
    main()
