"""BKA-JS (reconstructed, spec §4.2) on Adult and on scans that never close a group.

Run: python benchmarks/bench_bk_hilbert.py [adult|stress|all]

Adult as paper A uses it (30,162 records; QIs age numeric, sex, education; SA salary-class), kernel
priors (spec §3.2), k = 5, t = 0.5, J = 0.8, max_suppression = 1 — then t = 0.2 / J = 0.05 and
t = 0.1 / J = 0.01. Prints the time of ``bka_js()`` (the first run of the process includes loading
or compiling the numba kernels), groups formed by the scan, published classes (groups with identical
labels are one class), suppressed records, min / average / max group size, leftovers.

Stress: 30,000 random records, 2 or 19 sensitive values, a distinct prior per record, J = 0 (the
open group never closes: the BK check runs at every record, the witness keeps it O(S)) and small J.
Target: well under 30 s for everything.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd

from anonkit import Schema, Table, load_adult
from anonkit.algorithms.cluster.bka_js import bka_js
from anonkit.knowledge import kernel_priors
from anonkit.models import BackgroundKnowledge, KAnonymity, TCloseness


def _line(label: str, seconds: float, rel) -> None:
    g = rel.record_group
    sizes = np.bincount(g[g >= 0]) if (g >= 0).any() else np.zeros(1, dtype=int)
    print(
        f"{label:<34} {seconds:6.2f} s  groups {rel.notes['groups']:>5}  classes {rel.n_classes:>5}  "
        f"suppressed {rel.n_suppressed:>5}  group size min {sizes.min()} avg {sizes.mean():.2f} max {sizes.max()}  "
        f"leftover {rel.notes['leftover_records']} (merged {rel.notes['leftover_merged']})  "
        f"bits {rel.notes['hilbert_bits']}"
    )


def bench_adult() -> None:
    frame, hier = load_adult()
    qis = ["age", "sex", "education"]
    schema = Schema.of(
        quasi=qis, sensitive=["salary-class"], hierarchies={q: hier[q] for q in qis}, types={"age": "numeric"},
        default_role="insensitive",
    )
    table = Table(frame, schema)
    t0 = time.perf_counter()
    priors = kernel_priors(table, "salary-class")
    print(f"Adult: {table.n} records; kernel priors {time.perf_counter() - t0:.2f} s")
    for k, t, J in ((5, 0.5, 0.8), (5, 0.5, 0.8), (5, 0.2, 0.05), (5, 0.1, 0.01)):
        models = [KAnonymity(k), TCloseness("salary-class", t), BackgroundKnowledge("salary-class", J)]
        t0 = time.perf_counter()
        rel = bka_js(table, models, priors=priors, max_suppression=1.0)
        _line(f"k={k} t={t} J={J}", time.perf_counter() - t0, rel)


def bench_stress() -> None:
    rng = np.random.default_rng(0)
    n = 30_000
    for n_values in (2, 19):
        values = [f"v{i:02d}" for i in range(n_values)]
        frame = pd.DataFrame({
            "gender": rng.choice(["M", "F"], n),
            "age": rng.integers(18, 90, n).astype(str),
            "weight": rng.integers(40, 150, n).astype(str),
            "s": rng.choice(values, n),
        })  # fmt: skip
        schema = Schema.of(quasi=["gender", "age", "weight"], sensitive=["s"],
                           types={"age": "numeric", "weight": "numeric"})  # fmt: skip
        table = Table(frame, schema)
        priors = rng.dirichlet(np.full(n_values, 2.0), n)
        for J in (0.0, 0.01, 0.05, 0.3):
            t0 = time.perf_counter()
            rel = bka_js(table, [KAnonymity(5), BackgroundKnowledge("s", J)], priors=priors, max_suppression=1.0)
            _line(f"random S={n_values} J={J}", time.perf_counter() - t0, rel)


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    if what in ("adult", "all"):
        bench_adult()
    if what in ("stress", "all"):
        bench_stress()
