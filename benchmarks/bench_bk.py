"""Background-knowledge algorithms: UHRA, BKA-JS and k-primacy on Adult and on one BKseq release.

Run: python benchmarks/bench_bk.py [--algorithms uhra,bka-js,k-primacy] [--datasets adult,bkseq] [--repeat 3]

Each (data set, algorithm) runs in its own child process, so its peak resident memory (``ru_maxrss``)
is its alone. The child builds the table, estimates the kernel priors once (timed apart), runs the
algorithm once to compile the numba kernels (warm-up, timed apart) and then ``--repeat`` times; it
prints the median time, the BK clusters, groups, published classes, suppressed records, min/avg group
size, GCP and RL.

Setting (paper A's defaults, issue 5): Adult with QIs age (numeric), sex, education and sensitive
salary-class, k = 5, t = 0.5 (equal distance), J = 0.8; BKseq release 24 (4,000 records, QIs gender,
age, weight; 19 disease stages, ordered distance) with the same k, t, J. Targets (2-core machine):
each algorithm under 30 s on Adult with peak memory under 2 GB.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

K, T, J = 5, 0.5, 0.8


def _algorithms() -> list[str]:
    """The algorithms that use the adversary's priors, as the registry declares them."""
    from anonkit.algorithms.registry import algorithms

    return [a.name for a in algorithms().values() if "priors" in a.needs]


def _table(dataset: str):
    from anonkit import Schema, Table, load_adult

    if dataset == "adult":
        frame, h = load_adult()
        qis = ["age", "sex", "education"]
        schema = Schema.of(quasi=qis, sensitive=["salary-class"], hierarchies={q: h[q] for q in qis},
                           types={"age": "numeric"}, default_role="insensitive")
        return Table(frame, schema), "salary-class", "equal"
    from anonkit.datasets import bkseq_hierarchies, make_bkseq

    frame = make_bkseq(seed=0)
    last = frame["release"].astype(int).max()
    part = frame[frame["release"].astype(int) == last].reset_index(drop=True)
    sens = "disease"
    hier = bkseq_hierarchies()
    qis = [c for c in ("gender", "age", "weight") if c in part.columns]
    ids = [c for c in part.columns if c not in qis and c != sens]
    schema = Schema.of(identifier=ids, quasi=qis, sensitive=[sens],
                       hierarchies={q: hier[q] for q in qis if q in hier},
                       types={"age": "numeric", "weight": "numeric"})
    return Table(part, schema), sens, "ordered"


def child(dataset: str, algorithm: str, repeat: int) -> None:
    from anonkit.algorithms.registry import get
    from anonkit.knowledge import kernel_priors
    from anonkit.metrics import compute_metrics
    from anonkit.models import BackgroundKnowledge, KAnonymity, TCloseness

    algo = get(algorithm)
    table, sens, distance = _table(dataset)
    t0 = time.perf_counter()
    priors = kernel_priors(table, sens)
    prior_s = time.perf_counter() - t0
    models = [KAnonymity(K), BackgroundKnowledge(sens, J)]
    if algorithm != "k-primacy":
        models.append(TCloseness(sens, T, distance))
    t0 = time.perf_counter()
    algo(table, models, priors=priors, max_suppression=1.0)
    warm = time.perf_counter() - t0
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        rel = algo(table, models, priors=priors, max_suppression=1.0)
        times.append(time.perf_counter() - t0)
    m = compute_metrics(table, rel)
    grp = np.asarray(rel.record_group if rel.record_group is not None else rel.record_class)
    sizes = np.bincount(grp[grp >= 0]) if (grp >= 0).any() else np.zeros(1)
    sizes = sizes[sizes > 0]
    print(json.dumps({
        "dataset": dataset, "algorithm": algorithm, "records": table.n, "priors_s": round(prior_s, 3),
        "first_run_s": round(warm, 3), "median_s": round(statistics.median(times), 3),
        "bk_clusters": rel.bk.clusters, "groups": len(sizes), "classes": rel.n_classes,
        "suppressed": rel.n_suppressed, "group_min": sizes.min().item(), "group_avg": round(float(sizes.mean()), 2),
        "gcp": round(m["gcp"], 5), "rl": round(m["record_linkage"], 4),
        "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--algorithms", default=",".join(_algorithms()))
    ap.add_argument("--datasets", default="adult,bkseq")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--child", nargs=2, metavar=("DATASET", "ALGORITHM"))
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.repeat)
        return
    print(f"k = {K}, t = {T}, J = {J}; median of {args.repeat} runs after a warm-up (first run compiles numba)")
    header = (f"{'data':6} {'algorithm':10} {'n':>6} {'priors':>7} {'first':>7} {'median':>7} {'clus':>5} "
              f"{'groups':>6} {'classes':>7} {'supp':>5} {'min/avg':>9} {'GCP':>8} {'RL %':>7} {'peak MB':>8}")
    print(header)
    for dataset in args.datasets.split(","):
        for algorithm in args.algorithms.split(","):
            cmd = [sys.executable, __file__, "--child", dataset, algorithm, "--repeat", str(args.repeat)]
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode:
                print(f"{dataset:6} {algorithm:10} FAILED: {out.stderr.strip().splitlines()[-1:]}")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{r['dataset']:6} {r['algorithm']:10} {r['records']:>6} {r['priors_s']:>7.2f} "
                  f"{r['first_run_s']:>7.2f} {r['median_s']:>7.2f} {r['bk_clusters']!s:>5} {r['groups']:>6} "
                  f"{r['classes']:>7} {r['suppressed']:>5} {r['group_min']:>4}/{r['group_avg']:<5} "
                  f"{r['gcp']:>8.4f} {r['rl']:>7.3f} {r['peak_mb']:>8.0f}")


if __name__ == "__main__":
    main()
