"""MDAV and UHRA at scale (issue 30, item 2): CPU and wall medians, with the load average.

Run: python benchmarks/bench_mdav_uhra.py [mdav|uhra|all] [--repeats N]

MDAV (``output: intervals``, k = 5, the 8 QIs of Adult with age numeric, occupation sensitive —
MDAV-generic through ARX's hierarchies) on

* Adult (30,162 records),
* Adult ×10 (every record ten times: the distinct tuples are Adult's, so MDAV's work per round is too),
* Adult ×10 distinct (copy ``j`` of a record has age ``+ j/10``: ten times the distinct tuples too,
  so the figure is not only the duplicates' win).

The goal (issue 30): Adult ×10 at most 12× Adult. With one numeric QI MDAV runs on the categorical
combinations (``_mdav_combos.py``: O(rounds × combinations)), otherwise on the distinct tuples
(``_mdav_tuples.py``: O(rounds × distinct tuples), so ×10 distinct is about 100× there);
``--path tuples`` / ``--path records`` force the tuple path or the record-by-record reference.

UHRA: ``examples/adult-uhra.yaml``'s whole run in process (``run_config``: load, priors, UHRA,
verify, measures, audit — not the CLI's fix trials, which re-run UHRA once per change tried), goal
under 10 s.

Every figure is the median of ``--repeats`` runs (default 3) of CPU time (``time.process_time``) and
wall time; the 1-minute load average is printed before and after each set.
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


def bench_mdav(repeats: int, path: str) -> None:
    from anonkit.algorithms.cluster import mdav as module

    if path != "auto":  # force one grouping path (the names mdav() calls are looked up at call time)
        forced = {"tuples": module.mdav_groups_tuples, "records": module.mdav_groups}[path]
        module.mdav_groups_combos = module.mdav_groups_tuples = forced
    print(f"MDAV grouping path: {path}")
    base = None
    for label, table in adult_tables().items():
        print(f"MDAV k=5 intervals, {label}: {table.n:,} records, {table.distinct.size:,} distinct tuples ({load()})",
              flush=True)
        cpu, wall = timed(lambda t=table: mdav(t, [KAnonymity(5)], output="intervals"), repeats)
        base = base or cpu
        print(f"  cpu {cpu:.2f} s, wall {wall:.2f} s, cpu ×{cpu / base:.1f} of Adult ({load()})", flush=True)


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
    parser.add_argument("which", nargs="?", default="all", choices=["mdav", "uhra", "all"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--path", default="auto", choices=["auto", "tuples", "records"],
                        help="MDAV's grouping: auto (combinations with one numeric QI, else tuples), the "
                        "distinct tuples, or record by record (the reference: quadratic, slow on x10)")
    args = parser.parse_args()
    if args.which in ("uhra", "all"):
        bench_uhra(args.repeats)
    if args.which in ("mdav", "all"):
        bench_mdav(args.repeats, args.path)
