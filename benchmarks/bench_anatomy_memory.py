"""Anatomy's memory against the encoded table (issue 30 item 2: "Anatomy's memory at most twice the
encoded table"), before and after, at 30 k, 300 k and 3 M rows.

Run: python benchmarks/bench_anatomy_memory.py [--sizes 30000,300000,3000000] [--before SRC] [--rounds 1]

What is measured, per size in a **fresh child process** (Adult's rows repeated to ``size``, the eight
quasi-identifiers with age numeric, occupation sensitive, distinct 3-diversity, seed 0):

* **the encoded table**: what :class:`~anonkit.Table` allocates while encoding (``tracemalloc``; the
  input frame, read before, is excluded) — the int codes of the columns the run reads as the table
  holds them, with their numeric values and distinct tuples; ``codes_mb`` is the int codes alone
  (``table.codes`` and the sensitive codes, their ``nbytes``);
* **the peak**: the ``tracemalloc`` peak above the table during ``anatomy()`` — the algorithm *and*
  its publishing (the release, its QIT and ST frames) — and what the release keeps at the end;
  ``ratio`` = peak / table, the figure the issue bounds by 2;
* **the published tables**: the QIT and ST frames' own bytes (``memory_usage(deep=False)``: an
  object column's pointers, the strings being the input's own; a Categorical QIT column's int8/int16
  codes and its few categories), the part of the peak any Anatomy must hold to publish;
* the process's resident peak before and after (``ru_maxrss``) and the CPU seconds.

``--before SRC`` runs every size a second time with another source tree first on ``sys.path`` (e.g.
``git archive HEAD src | tar -x -C /tmp/old`` then ``--before /tmp/old/src``), alternating before
and after in each round, so the two sides share the machine's load; the load average is printed
with every line.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import tracemalloc

DEFAULT_SIZES = (30_000, 300_000, 3_000_000)
QI8 = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]
SENSITIVE = "occupation"


def child(size: int) -> dict:
    """Anatomy on Adult repeated to ``size`` rows in this process; its memory against the table's."""
    import numpy as np
    import pandas as pd

    from anonkit import Schema, Table, load_adult
    from anonkit.algorithms.bucket.anatomy import anatomy
    from anonkit.models import DistinctLDiversity

    frame, hier = load_adult()
    frame = frame.iloc[np.arange(size) % len(frame)].reset_index(drop=True)[[*QI8, SENSITIVE]]
    schema = Schema.of(quasi=QI8, sensitive=[SENSITIVE], hierarchies={q: hier[q] for q in QI8},
                       types={"age": "numeric"})
    tracemalloc.start()
    table = Table(frame, schema)
    _ = table.distinct
    table_bytes = tracemalloc.get_traced_memory()[0]
    codes = table.codes.nbytes + sum(v.nbytes for v in table.sensitive_codes.values())
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tracemalloc.reset_peak()
    cpu, wall = time.process_time(), time.perf_counter()
    rel = anatomy(table, [DistinctLDiversity(SENSITIVE, 3)], seed=0)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    now, peak = tracemalloc.get_traced_memory()
    published = sum(int(t.memory_usage(index=False, deep=False).sum()) for t in rel.tables.values())
    assert isinstance(rel.tables["qit"], pd.DataFrame)
    return {"rows": int(table.n), "groups": int(rel.n_classes), "table_mb": table_bytes / 1e6,
            "codes_mb": codes / 1e6, "peak_above_mb": (peak - table_bytes) / 1e6,
            "kept_mb": (now - table_bytes) / 1e6, "published_mb": published / 1e6,
            "ratio": (peak - table_bytes) / table_bytes, "cpu_s": cpu, "wall_s": wall, "rss_before_mb": rss_before,
            "rss_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "numba": "numba" in sys.modules}


def run(size: int, src: str | None) -> dict:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    out = subprocess.run([sys.executable, __file__, "--child", str(size)], capture_output=True, text=True,
                         check=True, env=env)
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "load": os.getloadavg()[0]}


def line(side: str, r: dict) -> str:
    return (f"{side:6} {r['rows']:>10,} rows {r['groups']:>9,} groups: table {r['table_mb']:7.1f} MB "
            f"(codes {r['codes_mb']:6.1f}), peak above it {r['peak_above_mb']:7.1f} MB = {r['ratio']:.2f}x, "
            f"kept {r['kept_mb']:6.1f} (published tables {r['published_mb']:6.1f}), "
            f"{r['cpu_s']:5.2f} CPU-s / {r['wall_s']:5.2f} s wall, "
            f"RSS {r['rss_before_mb']:6,.0f} -> {r['rss_peak_mb']:6,.0f} MB, numba {'yes' if r['numba'] else 'no'}, "
            f"load {r['load']:.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=",".join(str(s) for s in DEFAULT_SIZES))
    ap.add_argument("--before", default="", help="another source tree (its src/) to compare against")
    ap.add_argument("--rounds", type=int, default=1, help="alternating rounds per size")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(int(args.child))))
        return 0
    print("tracemalloc: the encoded table, Anatomy's peak above it (algorithm + release + QIT/ST) and what it "
          "keeps; RSS of the fresh process (libraries and input included)", flush=True)
    for size in (int(s) for s in args.sizes.split(",")):
        for i in range(args.rounds):
            sides = [("after", None), ("before", args.before)] if args.before else [("after", None)]
            for side, src in sides if i % 2 == 0 else sides[::-1]:
                print(line(side, run(size, src)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
