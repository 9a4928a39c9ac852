"""I/O benchmarks (issue 17): reading and writing tables in every format, and the 10 M-row Parquet job.

Run: python benchmarks/bench_io.py [--rows 3000000] [--reps 3] [--job-rows 10000000] [--skip-formats]
                                   [--skip-job] [--skip-whole] [--dir DIR]

1. **Formats.** 3,000,000 rows (the bundled Adult table repeated ×100, cut to the number of rows) are
   written and read back with :func:`anonkit.io.write_table` / :func:`anonkit.io.read_table` in every
   format :data:`anonkit.io.FORMATS` lists when the benchmark runs; each figure is the median of
   ``--reps`` runs. Excel is capped at 1,048,576 rows a sheet: it gets 1,000,000 rows (its line also
   gives seconds per million rows). PostgreSQL runs only when ``ANONKIT_BENCH_POSTGRES`` holds a
   database URI (a table ``anonkit_bench`` is replaced there). CSV and Parquet also show the batch
   reader (:func:`anonkit.io.batches.read_compact`, every column as codes and a dictionary) and the
   writing of such a compact frame.
2. **The job.** ``anonkit anonymize`` on a Parquet file of ``--job-rows`` Adult-like records (the 8
   Adult quasi-identifiers with ARX's hierarchies, age as numbers; occupation sensitive; hours
   insensitive) under 5-anonymity and distinct 3-diversity with Flash, writing CSV. It runs in a
   child process (the CLI itself, ``anonkit.cli.main``), once reading the input in batches
   (``input.batch_rows: 262144``, the default for a Parquet file of more than 1,000,000 rows) and once
   whole (``input.batch_rows: 0``), and reports the wall time, the
   peak resident memory of the process (VmHWM) and the size of the encoded table: the Table's codes,
   sensitive codes, numeric values and pre-suppression flags, the codes of its frame (the compact
   frame's columns; the whole-file path keeps Python objects there instead) and the distinct
   tuples' record index (``distinct.inverse``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from anonkit.datasets import ADULT_ATTRIBUTES, data_dir, load_adult
from anonkit.io import FORMATS, read_table, write_table
from anonkit.io.batches import DEFAULT_BATCH_ROWS, read_compact

QIS = [a for a in ADULT_ATTRIBUTES if a != "occupation"]
EXCEL_ROWS = 1_000_000  # a sheet holds at most 1,048,576 rows
SUFFIX = {"csv": ".csv", "parquet": ".parquet", "sqlite": ".db", "excel": ".xlsx", "duckdb": ".duckdb"}
SQL = ("sqlite", "duckdb", "postgresql")


def adult_rows(n: int) -> pd.DataFrame:
    frame, _ = load_adult()
    return pd.concat([frame] * (n // len(frame) + 1), ignore_index=True).iloc[:n].reset_index(drop=True)


def median_seconds(run: Callable[[], object], reps: int) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def bench_formats(rows: int, reps: int, workdir: Path) -> None:
    frame = adult_rows(rows)
    times = -(-rows // len(load_adult()[0]))
    print(f"== read and write, {rows:,} rows (Adult repeated ×{times}, cut), median of {reps} ==")
    for fmt in FORMATS:
        n, runs = (min(rows, EXCEL_ROWS) if fmt == "excel" else rows), reps
        data = frame if n == rows else frame.iloc[:n]
        if fmt == "postgresql":
            where = os.environ.get("ANONKIT_BENCH_POSTGRES")
            if not where:
                print(f"{fmt:10s} skipped: set ANONKIT_BENCH_POSTGRES to a database URI to include it")
                continue
        elif fmt in SUFFIX:
            where = str(workdir / f"bench{SUFFIX[fmt]}")
        else:
            print(f"{fmt:10s} skipped: the benchmark does not know this format's file name")
            continue
        table = {"table": "anonkit_bench"} if fmt in SQL else {}
        try:
            write = median_seconds(lambda data=data, where=where, table=table: write_table(data, where, **table),
                                   runs)
            read = median_seconds(lambda where=where, table=table: read_table(where, **table), runs)
        except Exception as exc:  # an optional driver missing: say so and go on
            print(f"{fmt:10s} skipped: {type(exc).__name__}: {exc}")
            continue
        note = (f" ({n:,} rows, a sheet holds 1,048,576: {write * 1e6 / n:.1f} s write, {read * 1e6 / n:.1f} s read "
                "per million rows)" if fmt == "excel" else "")
        size = Path(where).stat().st_size / 1e6 if Path(where).exists() else float("nan")
        print(f"{fmt:10s} write {write:7.2f} s   read {read:7.2f} s   {n / read / 1e6:5.2f} M rows/s read   "
              f"{size:8.1f} MB{note}")
        if fmt in ("csv", "parquet"):
            compact = read_compact(where)
            batched = median_seconds(lambda where=where: read_compact(where), runs)
            out = str(workdir / f"bench-compact{SUFFIX[fmt]}")
            compact_write = median_seconds(lambda out=out, compact=compact: write_table(compact, out), runs)
            same = Path(out).read_bytes() == Path(where).read_bytes()
            codes = sum(compact[c].cat.codes.nbytes for c in compact.columns)
            print(f"{'':10s} in batches: read {batched:7.2f} s (codes {codes / 1e6:.0f} MB; the frame read whole "
                  f"{read_table(where).memory_usage(deep=True).sum() / 1e6:.0f} MB)   write from codes "
                  f"{compact_write:7.2f} s (same bytes: {same})")


# ---------------------------------------------------------------------------------------------- the job

#: runs ``anonkit anonymize CONFIG --json`` in this process and reports the encoded table and VmHWM
DRIVER = textwrap.dedent("""
    import atexit, json, sys
    import anonkit.engines.local as local
    seen = {}
    encode = local.LocalEngine.encode
    def keep(self, *args, **kwargs):
        seen["table"] = table = encode(self, *args, **kwargs)
        return table
    local.LocalEngine.encode = keep
    def report():
        t = seen.get("table")
        figures = {}
        if t is not None:
            frame_codes = sum(t.frame[c].cat.codes.nbytes for c in t.frame.columns
                              if str(t.frame[c].dtype) == "category")
            figures = {"codes": t.codes.nbytes, "sensitive": sum(a.nbytes for a in t.sensitive_codes.values()),
                       "numeric": sum(a.nbytes for a in t.numeric.values()), "presuppressed": t.presuppressed.nbytes,
                       "frame_codes": frame_codes, "inverse": t.distinct.inverse.nbytes}
        status = {l.split(":")[0]: int(l.split()[1]) * 1024 for l in open("/proc/self/status")
                  if l.startswith(("VmHWM", "VmRSS"))}
        print("BENCH " + json.dumps({**figures, **status}), file=sys.stderr)
    atexit.register(report)
    from anonkit.cli import main
    sys.argv = ["anonkit", "anonymize", sys.argv[1], "--json"]
    main()
""")


def write_job_input(path: Path, n: int) -> None:
    """``n`` Adult-like records as Parquet in row groups of 1,048,576: the bundled table repeated,
    age as numbers, and an insensitive column of hours (1–99, seeded)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame, _ = load_adult()
    base = pa.Table.from_pandas(frame.assign(age=frame["age"].astype(np.int64)), preserve_index=False)
    base = base.replace_schema_metadata(None)
    block = pa.concat_tables([base] * (1_048_576 // len(frame) + 1)).slice(0, 1_048_576).combine_chunks()
    rng = np.random.default_rng(0)
    with pq.ParquetWriter(path, base.schema.append(pa.field("hours", pa.int64()))) as writer:
        for start in range(0, n, len(block)):
            part = block.slice(0, min(len(block), n - start))
            writer.write_table(part.append_column("hours", pa.array(rng.integers(1, 100, len(part)))))


def job_config(path: Path, source: Path, out: Path, batch_rows: int | None) -> None:
    batches = "" if batch_rows is None else f", batch_rows: {batch_rows}"
    lines = [f"input: {{path: {source}{batches}}}", "attributes:"]
    lines += [f"  {a}: {{role: quasi, hierarchy: {data_dir() / f'adult_hierarchy_{a}.csv'}}}" for a in QIS]
    lines += ["  occupation: {role: sensitive}", "  hours: {role: insensitive}", "privacy:",
              "  - {model: k-anonymity, k: 5}",
              "  - {model: l-diversity, attribute: occupation, l: 3, variant: distinct}",
              "algorithm: {name: flash, max_suppression: 0.02}", f"output: {{path: {out}}}", "seed: 0"]
    path.write_text("\n".join(lines) + "\n")


def run_job(config: Path) -> dict:
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, str(config)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate()
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"the job failed ({proc.returncode}): {err[-2000:]}")
    figures = json.loads(next(line for line in err.splitlines() if line.startswith("BENCH "))[6:])
    summary = json.loads(out.strip().splitlines()[-1])
    return {**figures, "seconds": seconds, "summary": summary}


def bench_job(rows: int, workdir: Path, whole: bool) -> None:
    print(f"== anonkit anonymize: {rows:,} Parquet rows (8 QIs, a sensitive and an insensitive attribute) ==")
    source = workdir / "job.parquet"
    t = time.perf_counter()
    write_job_input(source, rows)
    print(f"input: {source.stat().st_size / 1e6:.0f} MB written in {time.perf_counter() - t:.1f} s")
    runs = [(f"in batches of {DEFAULT_BATCH_ROWS:,} rows", DEFAULT_BATCH_ROWS, workdir / "job-batches.csv")]
    if whole:
        runs.append(("whole file (batch_rows: 0)", 0, workdir / "job-whole.csv"))
    results = {}
    for label, batch_rows, out in runs:
        config = workdir / f"job-{batch_rows}.yaml"
        job_config(config, source, out, batch_rows)
        r = results[label] = run_job(config)
        table = r["codes"] + r["sensitive"] + r["numeric"] + r["presuppressed"]
        encoded = table + r["frame_codes"] + r["inverse"]
        s = r["summary"]
        print(f"{label:28s} {r['seconds']:7.1f} s   peak RSS (VmHWM) {r['VmHWM'] / 1e9:6.2f} GB   "
              f"encoded table {encoded / 1e6:5.0f} MB (codes {r['codes'] / 1e6:.0f}, "
              f"sensitive {r['sensitive'] / 1e6:.0f},"
              f" numeric {r['numeric'] / 1e6:.0f}, flags {r['presuppressed'] / 1e6:.0f}, frame codes "
              f"{r['frame_codes'] / 1e6:.0f}, tuple index {r['inverse'] / 1e6:.0f})   peak / encoded "
              f"{r['VmHWM'] / encoded:4.1f}×   [{s['released']:,} released, {s['classes']:,} classes, "
              f"{s['transformation']}]")
    if whole:
        a, b = (workdir / "job-batches.csv").read_bytes(), (workdir / "job-whole.csv").read_bytes()
        print(f"same release written: {a == b}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--job-rows", type=int, default=10_000_000)
    parser.add_argument("--skip-formats", action="store_true")
    parser.add_argument("--skip-job", action="store_true")
    parser.add_argument("--skip-whole", action="store_true", help="run the job in batches only")
    parser.add_argument("--dir", type=Path, default=None, help="where the files go (default: a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        workdir = Path(tmp)
        if not args.skip_formats:
            bench_formats(args.rows, args.reps, workdir)
        if not args.skip_job:
            bench_job(args.job_rows, workdir, not args.skip_whole)


if __name__ == "__main__":
    main()
