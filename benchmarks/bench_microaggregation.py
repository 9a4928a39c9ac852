"""Microaggregation benchmark (issue 28, item 4): every method of ``microaggregation`` at 30 k and 300 k rows.

Run: python benchmarks/bench_microaggregation.py [--sizes 30000,300000] [--reps N] [--k K] [--quadratic-max N]
A synthetic survey: three correlated log-normal amounts (income, expenses, savings), k = 3, mean. Reported
per method and size: the median wall and CPU time of the grouping and the aggregation (what the algorithm
adds to a run: ``micro_groups`` then ``group_aggregate`` per column) and the growth of the wall time from
one size to the next (×10 rows: about ×10 for the O(n log n) sorting methods, about ×100 for the
O(n²/k) ones, ``mdav`` and ``rmd``, which are only run up to ``--quadratic-max`` rows: above it their time
is extrapolated from the largest size run and marked ``~``).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from anonkit.algorithms.perturb.microaggregation import group_aggregate, micro_groups

METHODS = ["pca", "onedims", "influence", "clustpppca", "rmd", "mdav"]
QUADRATIC = {"rmd", "mdav"}


def survey(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    income = rng.lognormal(10, 0.6, n)
    expenses = income * rng.uniform(0.4, 0.9, n)
    savings = np.maximum(income - expenses, 0) * rng.lognormal(1, 0.5, n)
    return np.column_stack([income, expenses, savings]).round(2)


def run(x: np.ndarray, method: str, k: int) -> None:
    groups = micro_groups(x, np.zeros(len(x), dtype=np.int64), method, k, 0, 8)
    for j in range(x.shape[1]):
        group_aggregate(x[:, j], groups[j], "mean")


def timed(x: np.ndarray, method: str, k: int, reps: int) -> tuple[float, float]:
    run(x[:1000], method, k)  # warm-up (imports, scikit-learn's first call)
    walls, cpus = [], []
    for _ in range(reps):
        w, c = time.perf_counter(), time.process_time()
        run(x, method, k)
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus)


def main(sizes: list[int], reps: int, k: int, quadratic_max: int) -> None:
    data = {n: survey(n) for n in sizes}
    print(f"microaggregation, k = {k}, mean, 3 columns; median of {reps} runs")
    print(f"{'method':<11}" + "".join(f"{n:>26,}" for n in sizes) + "   growth")
    for method in METHODS:
        cells, last = [], None
        for n in sizes:
            if method in QUADRATIC and n > quadratic_max and last is not None:
                wall = last[1] * (n / last[0]) ** 2
                cells.append(f"~{wall:,.1f} s wall (n²)".rjust(26))
                growth = wall / last[1]
                last = (n, wall)
                continue
            wall, cpu = timed(data[n], method, k, reps if n <= 100_000 else 1)
            cells.append(f"{wall:,.2f} s wall, {cpu:,.2f} s CPU".rjust(26))
            growth = wall / last[1] if last else None
            last = (n, wall)
        print(f"{method:<11}" + "".join(cells) + (f"   ×{growth:.1f}" if len(sizes) > 1 else ""))


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="30000,300000")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--k", type=int, default=3)
    p.add_argument("--quadratic-max", type=int, default=30_000)
    a = p.parse_args()
    main([int(s) for s in a.sizes.split(",")], a.reps, a.k, a.quadratic_max)
