"""SafePub's data-dependent search beside ARX 3.9's (issue 29, item 5): the distribution over runs; and
the DP synthesizer's time and peak memory on Adult and Adult ×10 (issue 29, item 2).

Run: python benchmarks/bench_dp.py [--runs N] [--arx-figures FILE | --arx-classpath CP --arx-driver DIR]
     python benchmarks/bench_dp.py --synth [--scales 1,10] [--methods mst,aim] [--rounds R]

``--synth`` runs ``dp-synthetic`` (ε 1, δ 1e-6, OpenDP's draws: unseeded) on five columns of Adult with
declared domains (:data:`SYNTH_DOMAIN`), the table as it is and repeated ten times, by MST and by AIM
(``--rounds``, default 20: AIM's default of 16 per column refits the model 80 times), each in a child
process of its own so that its peak resident memory (``ru_maxrss``: JAX's buffers are not Python
objects) is its own: the child reports the algorithm's CPU and wall seconds (the run's first JAX
compiles included) and the parent prints them with the load average.

ARX 3.9's TestAnonymizationDifferentialPrivacy cases 19 and 22 (Adult, nine quasi-identifiers, the Loss
metric, (ε 2, δ 1e-5) with a search budget of 1 over 10 and 100 steps) draw the sample and the search at
random, so one run proves nothing: this compares the distribution of the chosen transformation's score
(ARX's ``getHighestScore`` under differential privacy: the paper's §5.1 Loss score divided by k − 1;
anonkit's ``notes["search_score"]``) over ``--runs`` runs of each tool, by the Mann–Whitney U and the
two-sample Kolmogorov–Smirnov tests (SciPy), with the medians, the sum of the chosen levels, and the
CPU and wall seconds per run of each (anonkit: the algorithm on the encoded table; ARX: its ``anonymize``
call, the thread's CPU time) and the load average.

anonkit's runs are seeded (seed = run number: reproducible, NOT private — a benchmark only). ARX's side
is read from ``--arx-figures`` (lines ``run;score;[levels];cpu;wall``, as the driver prints them) or
produced by running a Java driver (``DPDriver``, compiled in ``--arx-driver``, never committed: it calls
ARX's ``EDDifferentialPrivacy(ε, δ, null, false)`` with ``setDPSearchBudget`` and
``setHeuristicSearchStepLimit(steps, EXPANSIONS)`` as the test's ``createDataDependentConfiguration``,
but with random rather than deterministic draws) when ``--arx-classpath`` is given; otherwise ARX's side
is skipped with a message.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
from pathlib import Path

from anonkit import Schema, Table, load_adult
from anonkit.algorithms.lattice.safepub import safepub
from anonkit.models import DifferentialPrivacy

#: (ARX test case, ε, search budget, δ, steps)
CASES = [(19, 2.0, 1.0, 1e-5, 10), (22, 2.0, 1.0, 1e-5, 100)]
#: ARX's deterministic figures for the cases (its test's expected score), for reference
ARX_DETERMINISTIC = {19: -387.20969001288375, 22: -364.91072721704967}


def anonkit_runs(table: Table, epsilon: float, budget: float, delta: float, steps: int,
                 runs: int) -> list[tuple[float, list[int], float, float]]:
    """``runs`` seeded runs: (score, levels, cpu seconds, wall seconds) each."""
    model = DifferentialPrivacy(epsilon, delta, search_budget=budget)
    out = []
    for seed in range(runs):
        c0, t0 = time.process_time(), time.perf_counter()
        release = safepub(table, [model], steps=steps, search_budget=budget, seeded=True, seed=seed)
        c1, t1 = time.process_time(), time.perf_counter()
        levels = list((release.transformation or {}).values())
        out.append((float(release.notes["search_score"]), levels, c1 - c0, t1 - t0))
    return out


def parse_arx(lines: list[str]) -> list[tuple[float, list[int], float, float]]:
    """The driver's lines ``run;score;[levels];cpu;wall``."""
    out = []
    for line in lines:
        parts = line.strip().split(";")
        if len(parts) == 5:
            levels = [int(x) for x in parts[2].strip("[]").split(",")]
            out.append((float(parts[1]), levels, float(parts[3]), float(parts[4])))
    return out


def arx_runs(case: tuple, runs: int, args: argparse.Namespace) -> list[tuple[float, list[int], float, float]] | None:
    """ARX's runs of ``case``: from ``--arx-figures`` (a file per case: ``FILE.<case>``), from the Java
    driver, or ``None`` (skipped)."""
    number, epsilon, budget, delta, steps = case
    if args.arx_figures:
        path = Path(f"{args.arx_figures}.{number}")
        return parse_arx(path.read_text().splitlines()) if path.exists() else None
    if not args.arx_classpath:
        return None
    cmd = ["java", "-cp", f"{args.arx_classpath}:{args.arx_driver}", "DPDriver", args.arx_data, str(epsilon),
           str(budget), str(delta), str(steps), str(runs)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, check=True)
    return parse_arx(done.stdout.splitlines())


def describe(name: str, runs: list[tuple[float, list[int], float, float]]) -> list[float]:
    scores = [r[0] for r in runs]
    height = [sum(r[1]) for r in runs]
    q = statistics.quantiles(scores, n=4)
    print(f"  {name:8s} median score {statistics.median(scores):9.2f} (quartiles {q[0]:.2f} … {q[2]:.2f}), "
          f"median level sum {statistics.median(height):.1f}, "
          f"per run CPU {statistics.median(r[2] for r in runs):.3f} s "
          f"wall {statistics.median(r[3] for r in runs):.3f} s (medians)")
    return scores


def main(args: argparse.Namespace) -> None:
    from scipy.stats import ks_2samp, mannwhitneyu

    frame, hier = load_adult()
    qis = list(frame.columns)
    table = Table(frame, Schema.of(quasi=qis, hierarchies={q: hier[q] for q in qis}))
    print(f"Adult: {table.n_records:,} records, {len(qis)} quasi-identifiers; {args.runs} runs per tool and case; "
          f"load average {os.getloadavg()}")
    for case in CASES:
        number, epsilon, budget, delta, steps = case
        print(f"ARX case {number}: epsilon {epsilon:g} (search {budget:g}), delta {delta:g}, {steps} steps "
              f"(ARX's deterministic run: {ARX_DETERMINISTIC[number]:.2f})")
        ours = describe("anonkit", anonkit_runs(table, epsilon, budget, delta, steps, args.runs))
        theirs = arx_runs(case, args.runs, args)
        if theirs is None:
            print("  ARX      skipped: give --arx-figures FILE (FILE.<case>) or --arx-classpath CP --arx-driver DIR")
            continue
        arx = describe("ARX", theirs)
        print(f"  Mann–Whitney U p = {mannwhitneyu(ours, arx).pvalue:.3g}; "
              f"Kolmogorov–Smirnov p = {ks_2samp(ours, arx).pvalue:.3g}; load average {os.getloadavg()}")


#: the synthesized columns of Adult and their domains, declared from Adult's code book
SYNTH_DOMAIN = {
    "age": {"bounds": [17, 90], "bins": 8, "integer": True},
    "sex": {"categories": ["Female", "Male"]},
    "race": {"categories": ["Amer-Indian-Eskimo", "Asian-Pac-Islander", "Black", "Other", "White"]},
    "education": {"categories": ["Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th",
                                 "HS-grad", "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters",
                                 "Prof-school", "Doctorate"]},
    "salary-class": {"categories": ["<=50K", ">50K"]},
}


def synth_one(method: str, scale: int, rounds: int) -> None:
    """One synthesizer run (a child process): prints ``rows;cpu;wall;maxrss_kb`` of the algorithm."""
    import resource

    import pandas as pd

    from anonkit.algorithms.synth.dp_synthetic import dp_synthetic

    frame, _ = load_adult()
    frame = pd.concat([frame[list(SYNTH_DOMAIN)]] * scale, ignore_index=True)
    table = Table(frame, Schema.of(quasi=["age", "sex", "race", "education"], sensitive=["salary-class"]))
    extra = {"rounds": rounds} if method == "aim" else {}
    c0, t0 = time.process_time(), time.perf_counter()
    release = dp_synthetic(table, [], epsilon=1.0, delta=1e-6, domain=SYNTH_DOMAIN, method=method, **extra)
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{len(release.tables['synthetic'])};{cpu:.3f};{wall:.3f};{peak}")


def synth_bench(args: argparse.Namespace) -> None:
    """Every (scale, method) in a child process; the figures beside the load average."""
    import sys

    print(f"dp-synthetic on Adult's {len(SYNTH_DOMAIN)} columns ({', '.join(SYNTH_DOMAIN)}), epsilon 1, delta 1e-6, "
          f"unseeded; AIM with {args.rounds} rounds")
    for scale in [int(x) for x in args.scales.split(",")]:
        for method in args.methods.split(","):
            load = os.getloadavg()
            done = subprocess.run([sys.executable, __file__, "--synth-one", method, str(scale), str(args.rounds)],
                                  capture_output=True, text=True, timeout=7200, check=True)
            rows, cpu, wall, peak = done.stdout.strip().splitlines()[-1].split(";")
            print(f"  Adult x{scale:<3d} ({30162 * scale:>7,} records) {method}: {int(rows):>7,} rows, "
                  f"CPU {float(cpu):7.2f} s, wall {float(wall):7.2f} s, peak memory {int(peak) / 1024:7.0f} MB; "
                  f"load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synth", action="store_true", help="the DP synthesizer's time and memory instead")
    parser.add_argument("--synth-one", nargs=3, metavar=("METHOD", "SCALE", "ROUNDS"), help=argparse.SUPPRESS)
    parser.add_argument("--scales", default="1,10", help="Adult repeated this many times, comma-separated")
    parser.add_argument("--methods", default="mst,aim")
    parser.add_argument("--rounds", type=int, default=20, help="AIM's rounds (its default: 16 per column)")
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--arx-figures", default=None, help="ARX's runs per case in FILE.<case> (driver's lines)")
    parser.add_argument("--arx-classpath", default=None, help="ARX 3.9's class path: run the Java driver")
    parser.add_argument("--arx-driver", default=".", help="the folder holding the compiled DPDriver")
    parser.add_argument("--arx-data", default="data", help="the folder of adult.csv and its hierarchies for ARX")
    parsed = parser.parse_args()
    if parsed.synth_one:
        synth_one(parsed.synth_one[0], int(parsed.synth_one[1]), int(parsed.synth_one[2]))
    elif parsed.synth:
        synth_bench(parsed)
    else:
        main(parsed)
