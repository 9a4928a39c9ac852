"""MDAV and UHRA at scale (issue 30, item 2): CPU, wall and peak memory, growth over Adult, load average.

Run: python benchmarks/bench_mdav_uhra.py [mdav|mdav2|uhra|all] [--repeats N] [--path auto|tuples|records]

MDAV (``output: intervals``, k = 5, occupation sensitive — MDAV-generic through ARX's hierarchies), the
8 QIs of Adult with

* ``mdav``: age numeric (MDAV then runs on the categorical combinations, ``_mdav_combos.py``);
* ``mdav2``: age and education-num (UCI's ordinal code of education) numeric, the case where every
  round's farthest and nearest searches over all remaining tuples were the quadratic part
  (``_mdav_tuples.py``); it now runs through the tree of bounds and the centroid snapshot
  (``_mdav_index.py``, ``_mdav_search.py``, ``_mdav_drift.py``: the same groups);

each on Adult (30,162 records), Adult ×10 (every record ten times: Adult's distinct tuples) and Adult
×10 distinct (copy ``j`` of a record has age ``+ j/10`` and, in ``mdav2``, education-num
``+ (3j mod 10)/10``: ten times the distinct tuples). Every case runs in its own process (its peak RSS
is the process's, data loading included), the cases alternating, ``--repeats`` rounds (default 3),
medians. ``--path tuples`` forces the distinct-tuple scan (the figures before), ``records`` the
record-by-record reference. Goal (issue 30): Adult ×10 at most 12× Adult in CPU time, both kinds.

Measured 2026-11-28 on the shared 2-core machine (other helpers' runs: wall times 2–8× CPU, so
compare CPU), one round each, load average in brackets:

  mdav2, before (tuples, [8.7–7.6]): Adult 1.95 CPU-s (396 MB); ×10 18.85 s (9.7×, 435 MB); ×10 distinct
                          141.03 s (72.4×, 439 MB)
  mdav2, after (index, [4.7–5.4]):   Adult 2.33 CPU-s (432 MB); ×10 12.99 s (5.6×, 479 MB); ×10 distinct
                          21.71 s (9.3×, 598 MB)   — [13–16]: 2.36 / 14.38 (6.1×) / 23.76 s (10.0×)
  mdav (combinations, unchanged, [13.3–9.0]): Adult 2.71 CPU-s (287 MB); ×10 22.59 s (8.3×); ×10 distinct
                          29.57 s (10.9×)

The index costs about 0.4 CPU-s more on Adult (numba loads once the numpy tier's work pays for it) and
about 160 MB more at ×10 distinct (the tree's value sets and numba).

UHRA: ``examples/adult-uhra.yaml``'s whole run in process (``run_config``: load, priors, UHRA,
verify, measures, audit — not the CLI's fix trials, which re-run UHRA once per change tried), goal
under 10 s: 2.37 CPU-s, 3.79 s wall (load 1.9); the CLI ``anonkit anonymize examples/adult-uhra.yaml``
with its six fix trials 14.5 CPU-s (load 12).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from anonkit import Schema, Table, load_adult
from anonkit.algorithms.cluster.mdav import mdav
from anonkit.models import KAnonymity

QI8 = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]
SENSITIVE = "occupation"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median CPU and wall seconds of ``repeats`` calls."""
    cpu, wall = [], []
    for _ in range(repeats):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(cpu), statistics.median(wall)


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def adult_tables() -> dict[str, Table]:
    frame, hier = load_adult()
    frame = frame[[*QI8, SENSITIVE]]
    schema = Schema.of(quasi=QI8, sensitive=[SENSITIVE], hierarchies={q: hier[q] for q in QI8 if q != "age"},
                       types={"age": "numeric"})
    tenfold = pd.concat([frame] * 10, ignore_index=True)
    distinct = tenfold.copy()
    jitter = np.repeat(np.arange(10), len(frame)) / 10
    distinct["age"] = (frame["age"].astype(float).to_numpy()[np.tile(np.arange(len(frame)), 10)] + jitter).astype(str)
    return {"Adult": Table(frame, schema), "Adult x10": Table(tenfold, schema),
            "Adult x10 distinct": Table(distinct, schema)}


EDUCATION_NUM = [
    "Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th", "HS-grad", "Some-college",
    "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters", "Prof-school", "Doctorate",
]  # fmt: skip
QI8_NUM2 = ["sex", "age", "race", "marital-status", "education-num", "native-country", "workclass", "salary-class"]


def adult_tables_numeric() -> dict[str, Table]:
    """Adult's 8 QIs with two numeric ones: age and education-num (UCI's ordinal code of education)."""
    frame, hier = load_adult()
    frame = frame[[*QI8, SENSITIVE]].copy()
    frame["education-num"] = frame["education"].map({e: i + 1 for i, e in enumerate(EDUCATION_NUM)}).astype(float)
    frame = frame[[*QI8_NUM2, SENSITIVE]]
    numeric = ("age", "education-num")
    schema = Schema.of(quasi=QI8_NUM2, sensitive=[SENSITIVE], types={q: "numeric" for q in numeric},
                       hierarchies={q: hier[q] for q in QI8_NUM2 if q not in numeric})
    tenfold = pd.concat([frame] * 10, ignore_index=True)
    copy = np.repeat(np.arange(10), len(frame))
    distinct = tenfold.copy()
    distinct["age"] = tenfold["age"].astype(float).to_numpy() + copy / 10
    distinct["education-num"] = tenfold["education-num"].to_numpy() + (3 * copy % 10) / 10
    return {"Adult": Table(frame.astype(str), schema), "Adult x10": Table(tenfold.astype(str), schema),
            "Adult x10 distinct": Table(distinct.astype(str), schema)}


def one_case(which: str, label: str, path: str) -> None:
    """Run one MDAV case in this (fresh) process and print one JSON line: CPU, wall, peak RSS."""
    import json
    import resource

    from anonkit.algorithms.cluster import mdav as module

    if path != "auto":
        forced = {"tuples": module.mdav_groups_tuples, "records": module.mdav_groups}[path]
        module._grouping = lambda space: forced  # type: ignore[assignment]
    table = (adult_tables_numeric if which == "mdav2" else adult_tables)()[label]
    load0 = os.getloadavg()[0]
    c, w = time.process_time(), time.perf_counter()
    rel = mdav(table, [KAnonymity(5)], output="intervals")
    cpu, wall = time.process_time() - c, time.perf_counter() - w
    print(json.dumps({"cpu": cpu, "wall": wall, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "load": [load0, os.getloadavg()[0]], "records": table.n, "groups": rel.notes["groups"],
                      "distinct": int(table.distinct.size)}))


def bench_mdav_processes(which: str, repeats: int, path: str) -> None:
    """Every case in its own process (peak memory per case), ``repeats`` times alternating the cases;
    medians, and the growth over Adult."""
    import json
    import subprocess
    import sys

    labels = ["Adult", "Adult x10", "Adult x10 distinct"]
    runs: dict[str, list[dict]] = {label: [] for label in labels}
    for _ in range(repeats):
        for label in labels:
            out = subprocess.run([sys.executable, __file__, "--one", which, label, "--path", path],
                                 capture_output=True, text=True, check=True).stdout
            runs[label].append(json.loads(out.strip().splitlines()[-1]))
    qis = "age, education-num numeric" if which == "mdav2" else "age numeric"
    print(f"MDAV k=5 intervals, 8 QIs ({qis}), path {path}, medians of {repeats}")
    base = statistics.median(r["cpu"] for r in runs["Adult"])
    for label in labels:
        rs = runs[label]
        cpu = statistics.median(r["cpu"] for r in rs)
        print(f"  {label}: {rs[0]['records']:,} records, {rs[0]['distinct']:,} distinct tuples: cpu {cpu:.2f} s, "
              f"wall {statistics.median(r['wall'] for r in rs):.2f} s, peak RSS "
              f"{statistics.median(r['rss_mb'] for r in rs):.0f} MB, cpu ×{cpu / base:.1f} of Adult, load "
              f"{min(r['load'][0] for r in rs):.1f}–{max(r['load'][1] for r in rs):.1f}", flush=True)


def bench_uhra(repeats: int) -> None:
    import tempfile

    from anonkit.config import load_config
    from anonkit.pipeline import run_config

    config = load_config(EXAMPLES / "adult-uhra.yaml")
    print(f"UHRA, examples/adult-uhra.yaml, the whole run (load, priors, algorithm, verify, measures, audit) "
          f"({load()})", flush=True)
    with tempfile.TemporaryDirectory() as out:
        cpu, wall = timed(lambda: run_config(config, config_dir=EXAMPLES, output_path=f"{out}/uhra.csv"), repeats)
    print(f"  cpu {cpu:.2f} s, wall {wall:.2f} s ({load()})", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("which", nargs="?", default="all", choices=["mdav", "mdav2", "uhra", "all"])
    parser.add_argument("--one", nargs=2, metavar=("WHICH", "LABEL"), help=argparse.SUPPRESS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--path", default="auto", choices=["auto", "tuples", "records"],
                        help="MDAV's grouping: auto (combinations with one numeric QI, else tuples), the "
                        "distinct tuples, or record by record (the reference: quadratic, slow on x10)")
    args = parser.parse_args()
    if args.one:
        one_case(args.one[0], args.one[1], args.path)
    else:
        if args.which in ("uhra", "all"):
            bench_uhra(args.repeats)
        if args.which in ("mdav", "all"):
            bench_mdav_processes("mdav", args.repeats, args.path)
        if args.which in ("mdav2", "all"):
            bench_mdav_processes("mdav2", args.repeats, args.path)
