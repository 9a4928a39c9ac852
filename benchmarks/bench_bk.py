"""Background-knowledge algorithms: UHRA, BKA-JS and k-primacy on Adult and on one BKseq release.

Run: python benchmarks/bench_bk.py [--algorithms uhra,bka-js,k-primacy] [--datasets adult,bkseq] [--repeat 3]
     python benchmarks/bench_bk.py --priors 30000,300000 [--repeat 3]

Each (data set, algorithm) runs in its own child process, so its peak resident memory (``ru_maxrss``)
is its alone. The child builds the table, estimates the kernel priors once (timed apart), runs the
algorithm once to compile the numba kernels (warm-up, timed apart) and then ``--repeat`` times; it
prints the median time, the BK clusters, groups, published classes, suppressed records, min/avg group
size, GCP and RL.

Setting (paper A's defaults, issue 5): Adult with QIs age (numeric), sex, education and sensitive
salary-class, k = 5, t = 0.5 (equal distance), J = 0.8; BKseq release 24 (4,000 records, QIs gender,
age, weight; 19 disease stages, ordered distance) with the same k, t, J. Targets (2-core machine):
each algorithm under 30 s on Adult with peak memory under 2 GB.

``--priors SIZES`` (issue 30 item 2) times :func:`anonkit.knowledge.kernel_priors` alone at ×N
*distinct* tuples (``bench_scale.py``'s ``--rows distinct`` workload: Adult repeated to each size, age
``age * 1000 + copy`` numeric, QIs age, sex, education, sensitive salary-class, bandwidth 0.3):
the blocked, windowed estimate against the former full comparison (:func:`full_priors`, every
distinct tuple against every distinct tuple, ``w @ hist``), alternating, ``--repeat`` pairs, median
CPU (``time.process_time``) and wall seconds, the candidate pairs against ``m²``, the largest
difference between the two (rounding of the summation order only) and the load average; then the
growth exponent of each from the smallest to the largest size.
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


def _distinct_table(size: int):
    from bench_scale import QI3, adult_rows

    from anonkit import Schema, Table
    from anonkit.datasets import adult_hierarchies

    hier = adult_hierarchies()
    frame = adult_rows(size, distinct=True)[[*QI3, "salary-class"]].copy()
    schema = Schema.of(quasi=QI3, sensitive=["salary-class"], hierarchies={q: hier[q] for q in QI3 if q != "age"},
                       types={"age": "numeric"}, default_role="insensitive")
    return Table(frame, schema)


def full_priors(table, sensitive: str, bandwidth: float = 0.3) -> np.ndarray:
    """The former ``kernel_priors``: every distinct tuple against every distinct tuple (product kernel)."""
    import anonkit.knowledge.priors as pri

    side = pri._source(table, sensitive, None)
    glob, bands = pri._global(side.hist), pri._bandwidths(table, bandwidth)
    deltas = pri._Deltas(table, side, side)
    m = table.distinct.size
    out = np.empty((m, side.hist.shape[1]))
    chunk = max(1, pri.CHUNK_ELEMENTS // m)
    for start in range(0, m, chunk):
        rows = slice(start, min(start + chunk, m))
        w = np.ones((rows.stop - rows.start, m))
        for j in range(len(deltas)):
            u = deltas.block(j, rows) / bands[j]
            w *= np.where(u < 1.0, 0.75 * (1.0 - u * u), 0.0)
        num = w @ side.hist
        den = num.sum(axis=1)
        ok = den > 0
        block = out[rows]
        block[:] = glob
        block[ok] = num[ok] / den[ok, None]
    return out


def _timed(fn, *args) -> tuple[float, float, object]:
    c, t = time.process_time(), time.perf_counter()
    out = fn(*args)
    return time.process_time() - c, time.perf_counter() - t, out


def priors_scale(sizes: list[int], repeat: int) -> None:
    """Blocked against full kernel priors at each size (see the module docstring)."""
    import os

    import anonkit.knowledge._priors_blocks as blocks
    import anonkit.knowledge.priors as pri
    from anonkit.knowledge import kernel_priors

    print(f"kernel priors at x N distinct tuples, bandwidth 0.3; medians of {repeat} alternating pairs")
    print(f"{'rows':>8} {'distinct':>8} {'pairs %':>8} {'new cpu':>8} {'new wall':>8} {'old cpu':>8} "
          f"{'old wall':>8} {'max |diff|':>10} {'load':>5}")
    fits: dict[str, list[tuple[int, float]]] = {"new": [], "old": []}
    for size in sizes:
        table = _distinct_table(size)
        m = table.distinct.size
        side = pri._side(table, "salary-class")
        _, start, stop, _ = blocks.candidate_ranges(pri._Deltas(table, side, side).parts,
                                                    pri._bandwidths(table, 0.3), m, m)
        new, old, diff = [], [], 0.0
        for _ in range(repeat):
            c, w, a = _timed(kernel_priors, table, "salary-class")
            a = a.per_tuple
            new.append((c, w))
            c, w, b = _timed(full_priors, table, "salary-class")
            old.append((c, w))
            diff = max(diff, float(np.abs(a - b).max()))
        med = {k: [statistics.median(x[i] for x in v) for i in (0, 1)] for k, v in (("new", new), ("old", old))}
        for k in fits:
            fits[k].append((m, med[k][0]))
        print(f"{size:>8} {m:>8} {100 * (stop - start).sum() / m**2:>8.2f} {med['new'][0]:>8.2f} {med['new'][1]:>8.2f} "
              f"{med['old'][0]:>8.2f} {med['old'][1]:>8.2f} {diff:>10.1e} {os.getloadavg()[0]:>5.2f}")
    if len(sizes) > 1:
        for k, pts in fits.items():
            (m0, c0), (m1, c1) = pts[0], pts[-1]
            print(f"growth exponent in distinct tuples ({k}): {np.log(c1 / c0) / np.log(m1 / m0):.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--algorithms", default=",".join(_algorithms()))
    ap.add_argument("--datasets", default="adult,bkseq")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--child", nargs=2, metavar=("DATASET", "ALGORITHM"))
    ap.add_argument("--priors", help="comma-separated row counts: time the kernel priors alone (docstring)")
    args = ap.parse_args()
    if args.priors:
        priors_scale([int(x) for x in args.priors.split(",")], args.repeat)
        return
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
