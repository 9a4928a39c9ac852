"""Bucket algorithms benchmark (issue 4): Stack and Deal and Anatomy on Adult and Adult ×10.

Run: python benchmarks/bench_bucket.py [--reps N]
Adult with 8 quasi-identifiers (all but occupation; age numeric, so classes get age intervals),
occupation sensitive. Stack and Deal with k = 5, Anatomy with l = 3 (Adult's most frequent
occupation, Prof-specialty, holds 13 % of the records, so l ≤ 7 is eligible). Reported: the median
wall time of the whole algorithm (dealing or grouping, per-class generalization of the 8 QIs, model
checks, the extras — NCP for Stack and Deal, the QIT/ST tables for Anatomy) and of the core alone
(the sort + modulo of Stack and Deal, the heap grouping of Anatomy).
"""

from __future__ import annotations

import argparse
import statistics
import time

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


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    main(parser.parse_args().reps)
