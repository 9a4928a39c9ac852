"""Mondrian benchmarks: Adult (8 QIs), Adult ×10 and a synthetic table of 10,000,000 rows.

Run: python benchmarks/bench_mondrian.py [--rows N] [--skip-big] [--mode strict|relaxed]
     python benchmarks/bench_mondrian.py --threads [--copies 33,100]
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000, help="rows of the synthetic table")
    ap.add_argument("--mode", choices=["strict", "relaxed"], default="strict")
    ap.add_argument("--skip-big", action="store_true", help="Adult only")
    ap.add_argument("--threads", action="store_true", help="one thread against two (Adult x33, x100)")
    ap.add_argument("--copies", default="33,100", help="with --threads: the Adult repetitions")
    ap.add_argument("--big-only", action="store_true", help=argparse.SUPPRESS)  # the child process
    args = ap.parse_args()
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
