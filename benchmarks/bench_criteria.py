"""k-map and δ-presence benchmarks (issue 27): anonkit's time on Adult and Adult ×10.

Run: python benchmarks/bench_criteria.py [--runs 3] [--sizes 1,10]

Configurations (ARX's test cases, 8 quasi-identifiers, occupation sensitive, Flash, ARX's Loss):

* ``KMAP5_S0``: k-map, k = 5, with ``adult_subset.csv`` (3,016 records) as the research subset of
  Adult (the population); 0 % suppression;
* ``KMAP_EST_S5``: estimated k-map, k = 3, zero-truncated Poisson, USA's population (317,238,626),
  significance 0.01, 5 % suppression (a derived k-anonymity on all of Adult);
* ``DP_0_02_S0`` / ``DP_005_015_S5``: δ-presence (0, 0.2) at 0 % and (0.05, 0.15) at 5 % suppression,
  the same research subset.

Adult ×10 replicates Adult ten times (301,620 rows) and its subset ten times, k scaled by 10 so that the
classes and the optimum stay those of ×1 (δ-presence shares are unchanged by replication).

Printed per configuration and size: the median wall time of ``--runs`` calls of :func:`anonkit.anonymize`
(encoding, population counts, search, release, independent verification with the population recount,
measures) in this warm process, and the optimum's transformation.

ARX's side is to be added with an ARX build, as ``bench_lattice.py`` does (its harness compiled against a
class path of ARX's core, ``--arx-classpath``): ARX's ``KMap``/``DPresence`` with the same ``DataSubset``
in the same run, its time beside anonkit's. Not done here: this script times anonkit only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd

from anonkit import anonymize, load_adult
from anonkit.models import DeltaPresence, EstimatedKMap, KMap
from anonkit.schema import Schema

SUBSET = Path(__file__).resolve().parents[1] / "tests" / "data" / "adult_subset.csv"
OCC = "occupation"
USA = 317_238_626


def subset_mask(frame: pd.DataFrame, subset: pd.DataFrame) -> np.ndarray:
    """The subset's rows as rows of ``frame`` (each matched to one row of identical cells)."""
    both = pd.concat([frame.astype(str), subset[list(frame.columns)].astype(str)], ignore_index=True)
    ids, _ = pd.factorize(pd.MultiIndex.from_frame(both))
    n = len(frame)
    occ = pd.Series(ids[:n]).groupby(ids[:n]).cumcount().to_numpy()
    sub_occ = pd.Series(ids[n:]).groupby(ids[n:]).cumcount().to_numpy()
    where = pd.MultiIndex.from_arrays([ids[:n], occ]).get_indexer(pd.MultiIndex.from_arrays([ids[n:], sub_occ]))
    mask = np.zeros(n, dtype=bool)
    mask[where] = True
    return mask


def configurations(times: int) -> dict[str, tuple[list, float, bool]]:
    return {
        "KMAP5_S0": ([KMap(5 * times)], 0.0, True),
        "KMAP_EST_S5": ([EstimatedKMap(3, USA * times, significance=0.01)], 0.05, False),
        "DP_0_02_S0": ([DeltaPresence(0.2)], 0.0, True),
        "DP_005_015_S5": ([DeltaPresence(0.15, dmin=0.05)], 0.05, True),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="1,10")
    args = parser.parse_args()
    adult, h = load_adult()
    qi8 = [c for c in adult.columns if c != OCC]
    schema = Schema.of(quasi=qi8, sensitive=[OCC], hierarchies={q: h[q] for q in qi8})
    mask1 = subset_mask(adult, pd.read_csv(SUBSET, sep=";", dtype=str))
    for times in (int(x) for x in args.sizes.split(",") if x):
        frame = pd.concat([adult] * times, ignore_index=True)
        mask = np.tile(mask1, times)
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"Adult ×{times}: {len(frame):,} rows, subset {int(mask.sum()):,}; load average {load}")
        for name, (models, s, with_subset) in configurations(times).items():
            walls, cpus, levels = [], [], None
            for _ in range(args.runs):
                t0, c0 = time.perf_counter(), time.process_time()
                res = anonymize(frame, schema, models, algorithm="flash", max_suppression=s,
                                subset=mask if with_subset else None)
                walls.append(time.perf_counter() - t0)
                cpus.append(time.process_time() - c0)
                levels = list(res.summary["transformation"].values())
            print(f"  {name:14s} wall {statistics.median(walls):8.3f} s  cpu {statistics.median(cpus):8.3f} s"
                  f"  (medians of {args.runs})  {levels}")


if __name__ == "__main__":
    main()
