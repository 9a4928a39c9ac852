"""Bucket algorithms benchmark (issue 4): Stack and Deal and Anatomy on Adult and Adult ×10.

Run: python benchmarks/bench_bucket.py [--reps N]
     python benchmarks/bench_bucket.py --memory [--copies 1,10,100]
Adult with 8 quasi-identifiers (all but occupation; age numeric, so classes get age intervals),
occupation sensitive. Stack and Deal with k = 5, Anatomy with l = 3 (Adult's most frequent
occupation, Prof-specialty, holds 13 % of the records, so l ≤ 7 is eligible). Reported: the median
wall time of the whole algorithm (dealing or grouping, per-class generalization of the 8 QIs, model
checks, the extras — NCP for Stack and Deal, the QIT/ST tables for Anatomy) and of the core alone
(the sort + modulo of Stack and Deal, the heap grouping of Anatomy).

``--memory`` (issue 30 item 2: Anatomy's memory at most twice the encoded table): for Adult repeated
``--copies`` times, each algorithm in a fresh child process reports the memory the encoded
:class:`~anonkit.Table` holds (``tracemalloc``, the input frame excluded), the algorithm's own peak
above it and what its release keeps (``tracemalloc``), the ratio of that peak to the table, the
process's peak resident memory before and after the algorithm (``ru_maxrss``: libraries and input
included), its CPU time and whether numba was loaded.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc

import pandas as pd

from anonkit import Schema, Table, load_adult
from anonkit.algorithms.bucket.anatomy import anatomy, anatomy_groups
from anonkit.algorithms.bucket.stack_and_deal import deal, stack_and_deal
from anonkit.models import DistinctLDiversity, KAnonymity

QI8 = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]
S = "occupation"


def timed(fn, reps: int) -> tuple[float, object]:
    fn()  # warm-up
    times, out = [], None
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main(reps: int = 3) -> None:
    frame, hier = load_adult()
    schema = Schema.of(quasi=QI8, sensitive=[S], hierarchies={q: hier[q] for q in QI8}, types={"age": "numeric"})
    for factor in (1, 10):
        big = pd.concat([frame] * factor, ignore_index=True) if factor > 1 else frame
        t = time.perf_counter()
        table = Table(big, schema)
        enc = time.perf_counter() - t
        codes = table.sensitive_codes[S]
        print(f"Adult ×{factor}: {table.n:,} rows (encoding {enc:.2f} s)")
        sec, rel = timed(lambda table=table: stack_and_deal(table, [KAnonymity(5)]), reps)
        core, _ = timed(lambda codes=codes: deal(codes, 5), reps)
        x = rel.notes
        print(
            f"  stack-and-deal k=5: {sec:.3f} s (dealing {core * 1000:.1f} ms); {rel.n_classes:,} classes, "
            f"distinct-l {x['distinct_l']}, max EMD {x['max_emd']:.4f}, NCP {x['ncp']:.4f}, "
            f"satisfied {rel.satisfied}"
        )
        sec, rel = timed(lambda table=table: anatomy(table, [DistinctLDiversity(S, 3)]), reps)
        core, _ = timed(lambda codes=codes: anatomy_groups(codes, 3), reps)
        x = rel.notes
        print(
            f"  anatomy l=3:        {sec:.3f} s (grouping {core * 1000:.1f} ms); {rel.n_classes:,} groups, "
            f"distinct-l {x['distinct_l']}, max confidence {x['max_confidence']:.4f}, "
            f"QIT {len(x['tables']['qit']):,} rows, ST {len(x['tables']['st']):,} rows"
        )


def memory_child(name: str, copies: int) -> dict:
    """One algorithm on Adult ×``copies`` in this (fresh) process: its memory against the table's."""
    frame, hier = load_adult()
    if copies > 1:
        frame = pd.concat([frame] * copies, ignore_index=True)
    schema = Schema.of(quasi=QI8, sensitive=[S], hierarchies={q: hier[q] for q in QI8}, types={"age": "numeric"})
    tracemalloc.start()
    table = Table(frame, schema)
    _ = table.distinct
    table_bytes = tracemalloc.get_traced_memory()[0]
    before_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tracemalloc.reset_peak()
    cpu = time.process_time()
    if name == "anatomy":
        rel = anatomy(table, [DistinctLDiversity(S, 3)], seed=0)
    else:
        rel = stack_and_deal(table, [KAnonymity(5)])
    cpu = time.process_time() - cpu
    now, peak = tracemalloc.get_traced_memory()
    return {"algorithm": name, "rows": table.n, "table_mb": table_bytes / 1e6,
            "peak_above_mb": (peak - table_bytes) / 1e6,
            "kept_mb": (now - table_bytes) / 1e6, "ratio": (peak - table_bytes) / table_bytes, "cpu_s": cpu,
            "rss_before_mb": before_rss, "rss_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "numba": "numba" in sys.modules, "classes": rel.n_classes}


def memory(copies: list[int]) -> None:
    print("tracemalloc (input frame excluded): the table, the algorithm's peak above it and what its release "
          "keeps; RSS of the fresh process before/after (libraries and input included)")
    for c in copies:
        for name in ("anatomy", "stack-and-deal"):
            out = subprocess.run([sys.executable, __file__, "--memory-child", name, str(c)], capture_output=True,
                                 text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"Adult ×{c:<4} {name:15} {r['rows']:>10,} rows: table {r['table_mb']:7.1f} MB, peak above it "
                  f"{r['peak_above_mb']:7.1f} MB ({r['ratio']:.2f}× the table), kept {r['kept_mb']:7.1f} MB, "
                  f"{r['cpu_s']:6.2f} CPU-s; RSS {r['rss_before_mb']:6,.0f} → {r['rss_peak_mb']:6,.0f} MB; "
                  f"numba {'loaded' if r['numba'] else 'not loaded'}", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--memory", action="store_true", help="memory against the encoded table (docstring)")
    parser.add_argument("--copies", default="1,10,100", help="with --memory: the Adult repetitions")
    parser.add_argument("--memory-child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        print(json.dumps(memory_child(args.memory_child[0], int(args.memory_child[1]))))
    elif args.memory:
        memory([int(c) for c in args.copies.split(",")])
    else:
        main(args.reps)
