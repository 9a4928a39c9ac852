"""Foundation benchmarks: encoding, node evaluation, and `check` on Adult and on 1,000,000 rows.

Run: python benchmarks/bench_foundation.py [--quick] [--duckdb [--encode-rows N]]
Prints one line per figure. Targets (issue 2, 2-core machine): a node evaluation under 1 ms on
Adult; `check` on Adult under 0.2 s in-process; `check` on 1,000,000 rows under 3 s.

``--duckdb`` (issue 16): encoding ``--encode-rows`` rows (default 10,000,000; ``bench_mondrian``'s
synthetic table: 6 int64 numeric QIs, 2 coded QIs with hierarchies, 1 sensitive attribute) into a
:class:`~anonkit.Table` — alone, and with its distinct QI tuples and their counts — against DuckDB
grouping the same in-memory frame by the same 9 columns with a count (``GROUP BY ALL``, 2 threads),
in alternating runs (``--rounds``, default 5): medians and the ratio anonkit / DuckDB. Only this
section runs with ``--duckdb``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from anonkit import Schema, Table, check, load_adult
from anonkit.algorithms import evaluate_node
from anonkit.datasets import adult_path, data_dir
from anonkit.io import read_table
from anonkit.models import (
    BetaLikeness,
    DeltaDisclosure,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)

ALL9 = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation",
        "salary-class"]
QI8 = [a for a in ALL9 if a != "occupation"]


def timed(fn, repeat: int = 5) -> tuple[float, object]:
    fn()  # warm-up (numba compile / caches)
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def bench_nodes(frame: pd.DataFrame, hier: dict, qis: list[str], sensitive: list[str], models: list, label: str,
                n_nodes: int) -> None:
    schema = Schema.of(quasi=qis, sensitive=sensitive, hierarchies={a: hier[a] for a in qis + sensitive},
                       default_role="insensitive")
    t = time.perf_counter()
    table = Table(frame, schema)
    _ = table.distinct
    encode = time.perf_counter() - t
    rng = np.random.default_rng(0)
    heights = np.array(table.heights)
    nodes = [rng.integers(0, heights + 1) for _ in range(n_nodes)]
    evaluate_node(table, nodes[0], models, 0.02)  # warm-up
    t = time.perf_counter()
    classes = 0
    for node in nodes:
        ev = evaluate_node(table, node, models, 0.02)
        classes += ev.n_classes
    per = (time.perf_counter() - t) / n_nodes
    print(f"{label}: encode+distinct {encode * 1000:.0f} ms ({table.distinct.size:,} distinct tuples); "
          f"{n_nodes} random nodes, classes + {len(models)} models: {per * 1000:.3f} ms/node "
          f"(mean {classes / n_nodes:,.0f} classes)")


def against_duckdb(rows: int, rounds: int) -> None:
    """Encoding ``rows`` rows against a DuckDB GROUP BY over the same columns (module docstring)."""
    import duckdb
    from bench_mondrian import synthetic

    frame, schema = synthetic(rows)
    columns = ", ".join(f'"{c}"' for c in frame.columns)
    con = duckdb.connect()
    con.execute("SET threads = 2")
    con.register("frame", frame)
    query = f"SELECT count(*) FROM (SELECT {columns}, count(*) AS n FROM frame GROUP BY ALL)"
    ours, with_distinct, theirs = [], [], []
    groups = tuples = 0
    for _ in range(rounds):
        t = time.perf_counter()
        table = Table(frame, schema)
        ours.append(time.perf_counter() - t)
        tuples = table.distinct.size
        with_distinct.append(time.perf_counter() - t)
        del table
        t = time.perf_counter()
        groups = con.execute(query).fetchone()[0]
        theirs.append(time.perf_counter() - t)
    a, b, c = (statistics.median(x) for x in (ours, with_distinct, theirs))
    print(f"encode {rows:,} rows (9 columns, 6 of them int64) into a Table: {a:.2f} s; with its {tuples:,} distinct "
          f"QI tuples and counts: {b:.2f} s; DuckDB GROUP BY the 9 columns with a count ({groups:,} groups, 2 "
          f"threads): {c:.2f} s — ratio {a / c:.2f} (encoding) and {b / c:.2f} (with the distinct tuples); medians "
          f"of {rounds} alternating runs")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer nodes, 200,000 instead of 1,000,000 rows")
    ap.add_argument("--duckdb", action="store_true", help="only: encoding against a DuckDB GROUP BY")
    ap.add_argument("--encode-rows", type=int, default=10_000_000, help="rows for --duckdb (default 10,000,000)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating runs for --duckdb (default 5)")
    args = ap.parse_args()
    if args.duckdb:
        against_duckdb(args.encode_rows, args.rounds)
        return
    n_nodes = 200 if args.quick else 1000
    big_n = 200_000 if args.quick else 1_000_000

    t = time.perf_counter()
    frame, hier = load_adult()
    print(f"load Adult ({len(frame):,} rows) + 9 hierarchies: {(time.perf_counter() - t) * 1000:.0f} ms")
    enc, _ = timed(lambda: Table(frame, Schema.of(quasi=ALL9, hierarchies=hier)).distinct)
    print(f"encode Adult, 9 QIs, + distinct tuples: {enc * 1000:.1f} ms (median of 5)")

    bench_nodes(frame, hier, ALL9, [], [KAnonymity(5), KAnonymity(10, attributes=("age", "sex", "race"))],
                "Adult 9 QIs", n_nodes)
    s = "occupation"
    models = [KAnonymity(5), DistinctLDiversity(s, 3), EntropyLDiversity(s, 3), EntropyLDiversity(s, 3, "grassberger"),
              RecursiveCLDiversity(s, 4, 3), TCloseness(s, 0.2, "equal"), TCloseness(s, 0.2, "ordered"),
              TCloseness(s, 0.2, "hierarchical"), BetaLikeness(s, 1.0), BetaLikeness(s, 1.0, enhanced=True),
              DeltaDisclosure(s, 1.5)]
    bench_nodes(frame, hier, QI8, [s], models, "Adult 8 QIs + occupation (all models)", n_nodes)

    hs = {s: hier[s]}
    sec, rep = timed(lambda: check(frame, QI8, [s, "salary-class"], hierarchies=hs))
    print(f"check Adult in-process (8 QIs; occupation + salary-class, all measures): {sec * 1000:.1f} ms "
          f"(median of 5; k={rep['k']}, classes={rep['classes']:,})")
    sec2, _ = timed(lambda: check(read_table(adult_path(), separator=";"), QI8, [s], hierarchies=hs))
    print(f"check Adult in-process incl. reading the CSV: {sec2 * 1000:.1f} ms")

    try:
        from pycanon import anonymity as pa

        def canon() -> None:
            pa.k_anonymity(frame, QI8)
            pa.l_diversity(frame, QI8, [s])
            pa.entropy_l_diversity(frame, QI8, [s])
            pa.t_closeness(frame, QI8, [s])
            pa.basic_beta_likeness(frame, QI8, [s])
            pa.enhanced_beta_likeness(frame, QI8, [s])
        t = time.perf_counter()
        canon()
        print(f"pycanon, same checks (k, l, entropy l, t, basic and enhanced beta) on Adult: "
              f"{time.perf_counter() - t:.2f} s")
    except ImportError:
        print("pycanon not installed: skipping the comparison")

    rng = np.random.default_rng(0)
    big = frame.iloc[rng.integers(0, len(frame), big_n)].reset_index(drop=True)
    big["age"] = (big["age"].astype(int) + rng.integers(-2, 3, big_n)).clip(17, 90).astype(str)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.csv"
        big.to_csv(path, sep=";", index=False)
        t = time.perf_counter()
        bf = read_table(path, separator=";")
        read_s = time.perf_counter() - t
        t = time.perf_counter()
        rep = check(bf, QI8, [s], hierarchies=hs)
        check_s = time.perf_counter() - t
        print(f"check {big_n:,} rows in-process: read {read_s:.2f} s + check {check_s:.2f} s "
              f"= {read_s + check_s:.2f} s (classes={rep['classes']:,})")
        hpath = data_dir() / "adult_hierarchy_occupation.csv"
        cmd = [sys.executable, "-m", "anonkit", "check", str(path), "--qi", ",".join(QI8), "--sensitive", s,
               "--hierarchy", f"{s}={hpath}", "--separator", ";", "--json"]
        t = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, env=os.environ.copy(), check=True)
        whole = time.perf_counter() - t
        print(f"anonkit check {big_n:,} rows as a whole process: {whole:.2f} s "
              f"(k={json.loads(out.stdout)['k']})")
        cmd[4] = str(adult_path())
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, text=True, check=True)
        print(f"anonkit check Adult as a whole process: {time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    main()
