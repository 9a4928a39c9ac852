"""Mondrian benchmarks: Adult (8 QIs), Adult ×10 and a synthetic table of 10,000,000 rows.

Run: python benchmarks/bench_mondrian.py [--rows N] [--skip-big] [--mode strict|relaxed]
     python benchmarks/bench_mondrian.py --threads [--copies 33,100]
     python benchmarks/bench_mondrian.py --peers [--rows 10000000] [--rounds 3]
Prints one line per figure: the time of ``mondrian()`` (median of 3 after a warm-up; it includes
building the release, whose share — the shared ``partition_release`` — is shown too), the number
of groups, GCP (``anonkit.metrics.gcp``, suppressed records charged 1) and, for the large table,
the peak resident memory (``ru_maxrss``) of the child process it runs in, so that the figure is its
alone. Targets (2-core machine): Adult ×10 with k = 5 under 0.5 s; 10,000,000 rows under 60 s
within 8 GB.

``--threads`` compares Mondrian's loop on one thread and on two (``cut(..., threads=2)``, used from
``mondrian.PARALLEL_ROWS`` records up) on Adult repeated 33 and 100 times (≈1 M and 3 M rows), both
modes, the three configurations: the median of 5 alternating runs each on the same table, the
ratio, that both give the same classes, and the load average before and after (figures taken under
load > 1.5 are contended).

``--peers`` (issue 30 item 4) sets Mondrian on ``--rows`` rows of the synthetic table (k = 5, strict)
beside DuckDB and polars on the same in-memory columns, in alternating rounds (medians of CPU and
wall time, 2 threads each, the load average quoted). Neither peer anonymizes, so each side computes
what it can of the same job, stated exactly:

* anonkit: ``Table(frame, schema)`` (the encoding: codes, the distinct QI tuples and their counts),
  then ``mondrian(table, [KAnonymity(5)])`` (every cut, each at its median, and the release with
  the class sizes); and alone ``np.unique`` of the release's class ids with counts — the released
  QI tuples grouped and counted;
* DuckDB and polars: (a) a GROUP BY of the 8 QI columns with a count (the distinct tuples and their
  counts — what the encoding builds), (b) the median of every numeric QI (the root cut's medians:
  Mondrian's first step, which it repeats inside every partition), and (c) a GROUP BY count of the
  released QI tuples (the published class labels, one string column per QI, that anonkit's release
  holds as class ids).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np
import pandas as pd

import anonkit.table as table_module
from anonkit import Hierarchy, Schema, Table, load_adult
from anonkit.algorithms.partition import mondrian as mondrian_module
from anonkit.algorithms.partition.mondrian import mondrian
from anonkit.metrics import gcp
from anonkit.models import DistinctLDiversity, KAnonymity, TCloseness

QI8 = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]
SENSITIVE = "occupation"


def configs(sensitive: str) -> list[tuple[str, list]]:
    return [
        ("k=5", [KAnonymity(5)]),
        ("k=5 + distinct 3-diversity", [KAnonymity(5), DistinctLDiversity(sensitive, 3)]),
        ("k=5 + equal 0.2-closeness", [KAnonymity(5), TCloseness(sensitive, 0.2, "equal")]),
    ]


RELEASE_SECONDS: list[float] = []


def _timed_release(*args, **kwargs):
    """``partition_release`` timed: the share of building the release in a run (shared code)."""
    t = time.perf_counter()
    out = _partition_release(*args, **kwargs)
    RELEASE_SECONDS.append(time.perf_counter() - t)
    return out


_partition_release = mondrian_module.partition_release
mondrian_module.partition_release = _timed_release


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def run(table: Table, label: str, mode: str, repeat: int) -> None:
    for name, models in configs(table.sensitive[0]):
        mondrian(table, models, mode=mode)  # warm-up (numba compile or cache load)
        times, rel = [], None
        RELEASE_SECONDS.clear()
        for _ in range(repeat):
            t = time.perf_counter()
            rel = mondrian(table, models, mode=mode)
            times.append(time.perf_counter() - t)
        assert rel is not None
        print(
            f"{label}, {mode}, {name}: {statistics.median(times):.3f} s (partition_release "
            f"{statistics.median(RELEASE_SECONDS):.3f} s), {rel.notes['partitions']:,} groups, "
            f"GCP {gcp(table, rel):.4f}, satisfied {rel.satisfied}",
            flush=True,
        )


def adult_frame(copies: int) -> tuple[pd.DataFrame, Schema]:
    frame, hier = load_adult()
    if copies > 1:
        frame = pd.concat([frame] * copies, ignore_index=True)
    schema = Schema.of(
        quasi=QI8, sensitive=[SENSITIVE], hierarchies={q: hier[q] for q in QI8}, types={"age": "numeric"}
    )
    return frame, schema


def adult_table(copies: int) -> Table:
    return Table(*adult_frame(copies))


def synthetic(n: int, seed: int = 0) -> tuple[pd.DataFrame, Schema]:
    """6 numeric QIs (73 to 100,000 distinct values, skewed and correlated), 2 categorical QIs with
    3-level hierarchies (64 and 12 leaves) and a sensitive attribute with 10 skewed values."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 91, n)
    frame = pd.DataFrame(
        {
            "age": age,
            "hours": np.clip(rng.normal(40, 12, n), 1, 99).astype(np.int64),
            "income": np.minimum(rng.exponential(30_000, n) + 300 * (age - 18), 99_999).astype(np.int64),
            "zip": rng.integers(0, 10_000, n),
            "days": rng.integers(0, 3_650, n),
            "score": np.clip(rng.normal(500, 150, n), 0, 999).astype(np.int64),
            "region": rng.integers(0, 64, n),
            "job": np.minimum(rng.geometric(0.2, n) - 1, 11),
            "diagnosis": np.minimum(rng.geometric(0.25, n) - 1, 9),
        }
    )
    h_region = Hierarchy([[str(v), f"r{v // 8}", f"R{v // 32}", "*"] for v in range(64)], name="region")
    h_job = Hierarchy([[str(v), f"j{v // 4}", "*"] for v in range(12)], name="job")
    numeric = ["age", "hours", "income", "zip", "days", "score"]
    schema = Schema.of(
        quasi=[*numeric, "region", "job"],
        sensitive=["diagnosis"],
        hierarchies={"region": h_region, "job": h_job},
        types=dict.fromkeys(numeric, "numeric"),
    )
    return frame, schema


def big(n: int, mode: str) -> None:
    t = time.perf_counter()
    frame, schema = synthetic(n)
    made = time.perf_counter() - t
    t = time.perf_counter()
    table = Table(frame, schema)
    del frame
    print(
        f"synthetic {n:,} rows: generated in {made:.1f} s, encoded (Table) in {time.perf_counter() - t:.1f} s, "
        f"peak memory so far {peak_mb():,.0f} MB",
        flush=True,
    )
    for name, models in configs("diagnosis"):
        RELEASE_SECONDS.clear()
        t = time.perf_counter()
        rel = mondrian(table, models, mode=mode)
        sec = time.perf_counter() - t
        print(
            f"synthetic {n:,} rows, {mode}, {name}: {sec:.1f} s (partition_release {RELEASE_SECONDS[0]:.1f} s), "
            f"{rel.notes['partitions']:,} groups, "
            f"GCP {gcp(table, rel):.4f}, satisfied {rel.satisfied}, peak memory {peak_mb():,.0f} MB",
            flush=True,
        )


def threads(copies: list[int], repeat: int = 5) -> None:
    """One thread against two on the same tables, runs alternating (see the module docstring)."""
    cores, encode_rows = mondrian_module._cores, table_module.PARALLEL_ENCODE_ROWS
    print(f"load average {os.getloadavg()[0]:.2f}; PARALLEL_ROWS {mondrian_module.PARALLEL_ROWS:,}", flush=True)
    for c in copies:
        frame, schema = adult_frame(c)
        times = {1: [], 2: []}
        tables: dict[int, Table] = {}
        for r in range(repeat + 1):
            for t in (1, 2) if r % 2 else (2, 1):
                table_module.PARALLEL_ENCODE_ROWS = 0 if t == 2 else len(frame) + 1
                start = time.perf_counter()
                tables[t] = Table(frame, schema)
                if r:
                    times[t].append(time.perf_counter() - start)
        table_module.PARALLEL_ENCODE_ROWS = encode_rows
        one, two = statistics.median(times[1]), statistics.median(times[2])
        same = np.array_equal(tables[1].codes, tables[2].codes) and all(
            np.array_equal(tables[1].sensitive_codes[a], tables[2].sensitive_codes[a]) for a in tables[1].sensitive
        )
        print(f"Adult x{c} ({len(frame):,} rows), encoding (Table): 1 thread {one:.3f} s, 2 threads {two:.3f} s, "
              f"ratio {one / two:.2f}; same codes {same}, load {os.getloadavg()[0]:.2f}", flush=True)
        table = tables[1]
        del tables, frame
        for mode in ("strict", "relaxed"):
            for name, models in configs(table.sensitive[0]):
                times: dict[int, list[float]] = {1: [], 2: []}
                loops: dict[int, list[float]] = {1: [], 2: []}  # without building the release
                classes: dict[int, np.ndarray] = {}
                for r in range(repeat + 1):  # the first round warms up
                    for t in (1, 2) if r % 2 else (2, 1):
                        mondrian_module._cores = lambda t=t: t
                        start = time.perf_counter()
                        rel = mondrian(table, models, mode=mode)
                        if r:
                            times[t].append(time.perf_counter() - start)
                            loops[t].append(times[t][-1] - RELEASE_SECONDS[-1])
                        classes[t] = rel.record_class
                mondrian_module._cores = cores
                one, two = statistics.median(times[1]), statistics.median(times[2])
                lone, ltwo = statistics.median(loops[1]), statistics.median(loops[2])
                print(
                    f"Adult x{c} ({table.n:,} rows), {mode}, {name}: mondrian() 1 thread {one:.3f} s, 2 threads "
                    f"{two:.3f} s, ratio {one / two:.2f}; without partition_release {lone:.3f} s / {ltwo:.3f} s, "
                    f"ratio {lone / ltwo:.2f}; "
                    f"same classes {np.array_equal(classes[1], classes[2])}, load {os.getloadavg()[0]:.2f}",
                    flush=True,
                )
                RELEASE_SECONDS.clear()


def _cpu_wall(fn) -> tuple[float, float, object]:
    c, t = time.process_time(), time.perf_counter()
    out = fn()
    return time.process_time() - c, time.perf_counter() - t, out


def peers(rows: int, rounds: int) -> None:
    """Mondrian beside DuckDB and polars on the same columns (the module docstring says what each computes)."""
    os.environ.setdefault("POLARS_MAX_THREADS", "2")  # read when polars is imported
    import duckdb
    import polars as pl

    frame, schema = synthetic(rows)
    qis = list(frame.columns[:-1])
    numeric = [q for q in qis if schema[q].type == "numeric"]
    con = duckdb.connect()
    con.execute("SET threads = 2")
    con.register("frame", frame)
    cols = ", ".join(f'"{c}"' for c in qis)
    group_sql = f"SELECT count(*) FROM (SELECT {cols}, count(*) AS n FROM frame GROUP BY ALL)"
    median_sql = "SELECT " + ", ".join(f'median("{c}")' for c in numeric) + " FROM frame"
    pl_frame = pl.from_pandas(frame)
    figures: dict[str, list[tuple[float, float]]] = {}
    released = None
    print(f"load average {os.getloadavg()[0]:.2f}; {rows:,} rows, {len(qis)} QIs ({len(numeric)} numeric)", flush=True)
    for r in range(rounds):
        sides = ("anonkit", "duckdb", "polars") if r % 2 == 0 else ("polars", "duckdb", "anonkit")
        for side in sides:
            if side == "anonkit":
                c, w, table = _cpu_wall(lambda: Table(frame, schema))
                figures.setdefault("anonkit encode", []).append((c, w))
                c, w, rel = _cpu_wall(lambda table=table: mondrian(table, [KAnonymity(5)]))
                figures.setdefault("anonkit mondrian", []).append((c, w))
                c, w, _ = _cpu_wall(lambda rel=rel: np.unique(rel.record_class, return_counts=True))
                figures.setdefault("anonkit released classes counted", []).append((c, w))
                if released is None:
                    released = rel.to_frame()[qis]
                    con.register("released", released)
                del table, rel
            elif side == "duckdb":
                for label, sql in (("group by QIs", group_sql), ("medians", median_sql)):
                    c, w, _ = _cpu_wall(lambda sql=sql: con.execute(sql).fetchall())
                    figures.setdefault(f"duckdb {label}", []).append((c, w))
                if released is not None:
                    c, w, _ = _cpu_wall(lambda: con.execute(
                        f"SELECT count(*) FROM (SELECT {cols}, count(*) FROM released GROUP BY ALL)").fetchall())
                    figures.setdefault("duckdb group by released", []).append((c, w))
            else:
                c, w, _ = _cpu_wall(lambda: pl_frame.group_by(qis).len().height)
                figures.setdefault("polars group by QIs", []).append((c, w))
                c, w, _ = _cpu_wall(lambda: pl_frame.select([pl.col(q).median() for q in numeric]).row(0))
                figures.setdefault("polars medians", []).append((c, w))
                if released is not None:
                    pl_released = pl.from_pandas(released)
                    c, w, _ = _cpu_wall(lambda pl_released=pl_released: pl_released.group_by(qis).len().height)
                    figures.setdefault("polars group by released", []).append((c, w))
    for label, pairs in figures.items():
        cpu = statistics.median(p[0] for p in pairs)
        wall = statistics.median(p[1] for p in pairs)
        print(f"{label:36} CPU {cpu:7.2f} s  wall {wall:7.2f} s  (median of {len(pairs)})", flush=True)
    print(f"load average after {os.getloadavg()[0]:.2f}; peak memory {peak_mb():,.0f} MB", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000, help="rows of the synthetic table")
    ap.add_argument("--mode", choices=["strict", "relaxed"], default="strict")
    ap.add_argument("--skip-big", action="store_true", help="Adult only")
    ap.add_argument("--threads", action="store_true", help="one thread against two (Adult x33, x100)")
    ap.add_argument("--copies", default="33,100", help="with --threads: the Adult repetitions")
    ap.add_argument("--peers", action="store_true", help="Mondrian beside DuckDB and polars on --rows rows")
    ap.add_argument("--rounds", type=int, default=3, help="with --peers: alternating rounds")
    ap.add_argument("--big-only", action="store_true", help=argparse.SUPPRESS)  # the child process
    args = ap.parse_args()
    if args.peers:
        peers(args.rows, args.rounds)
        return
    if args.big_only:
        big(args.rows, args.mode)
        return
    if args.threads:
        threads([int(c) for c in args.copies.split(",")])
        return
    run(adult_table(1), "Adult (30,162 rows, 8 QIs)", args.mode, repeat=3)
    run(adult_table(10), "Adult x10 (301,620 rows)", args.mode, repeat=3)
    if not args.skip_big:
        cmd = [sys.executable, __file__, "--big-only", "--rows", str(args.rows), "--mode", args.mode]
        subprocess.run(cmd, check=True)


if __name__ == "__main__":
    main()
