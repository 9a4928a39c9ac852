"""The speed claims the test suite used to assert (issue 23): timed here, where a loaded machine
cannot fail a test.

Run: python benchmarks/bench_speed_claims.py [--only NAME ...]

Each claim runs ``--runs`` times (default 3) after a warm-up (imports, numba kernels compiled or
loaded from their cache) and prints the median wall time and the median CPU time of this process
(all its threads), beside the budget the old test asserted, and the load average before and after
(the machines are shared); a line ends ``OVER`` when the wall median exceeds the budget. Nothing here
fails: the figures are for a person to read (and for the README/docs).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable


def _adult_attacks() -> Callable[[], object]:
    from anonkit import Schema, anonymize, load_adult
    from anonkit.analytics import inference_attack, linkability_attack, singling_out_attack
    from anonkit.models import KAnonymity

    frame, hierarchies = load_adult()
    qi = [c for c in frame.columns if c != "salary-class"]
    schema = Schema.of(quasi=qi, sensitive=["salary-class"], hierarchies={q: hierarchies[q] for q in qi})
    released, control = frame.iloc[:20000].reset_index(drop=True), frame.iloc[20000:].reset_index(drop=True)
    result = anonymize(released, schema, [KAnonymity(5)])
    return lambda: [a(result.frame, released, result.release.table.schema, control=control)
                    for a in (singling_out_attack, linkability_attack, inference_attack)]


def _leakage() -> Callable[[], object]:
    import numpy as np
    import pandas as pd

    from anonkit.analytics import leakage

    rng = np.random.default_rng(1)
    n = 1_000_000
    frame = pd.DataFrame({f"a{i}": rng.integers(0, (2, 5, 12, 60, 300)[i % 5], n) for i in range(20)})
    return lambda: leakage(frame)


def _city() -> Callable[[], object]:
    from anonkit.datasets.city import make_city

    return lambda: make_city(10_000, 100, 0)


def _one_to_many() -> Callable[[], object]:
    from anonkit.datasets import make_one_to_many

    return lambda: make_one_to_many(100_000)


def _risk_adult_times_ten() -> Callable[[], object]:
    import pandas as pd

    from anonkit import load_adult
    from anonkit.risk import (
        class_size_histogram,
        population_uniqueness,
        reidentification_risk,
        risk_distribution,
        sample_uniqueness,
    )

    frame, _ = load_adult()
    big = pd.concat([frame] * 10, ignore_index=True)
    sizes = big.groupby(["age", "sex", "race", "marital-status", "education"]).size().to_numpy()

    def run() -> None:
        reidentification_risk(sizes, sampling_fraction=0.1)
        population_uniqueness(sizes, sampling_fraction=0.1)
        risk_distribution(sizes)
        class_size_histogram(sizes)
        sample_uniqueness(sizes)

    return run


#: name → (setup returning the timed call, the seconds the old test allowed)
CLAIMS: dict[str, tuple[Callable[[], Callable[[], object]], float]] = {
    "adult-three-attacks": (_adult_attacks, 30.0),
    "leakage-1M-rows-20-attributes": (_leakage, 5.0),
    "city-10k-subjects-100-steps": (_city, 5.0),
    "one-to-many-100k-persons": (_one_to_many, 5.0),
    "risk-adult-x10": (_risk_adult_times_ten, 5.0),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(CLAIMS), help="run only these claims")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per claim (medians are printed)")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'claim':34s} {'wall':>8s}   {'cpu':>8s}")
    for name in args.only or list(CLAIMS):
        setup, budget = CLAIMS[name]
        call = setup()
        call()  # warm-up
        walls, cpus = [], []
        for _ in range(max(args.runs, 1)):
            wall, cpu = time.perf_counter(), time.process_time()
            call()
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        seconds = statistics.median(walls)
        print(f"{name:34s} {seconds:8.2f} s {statistics.median(cpus):8.2f} s   (budget {budget:g} s)"
              f"{'   OVER' if seconds > budget else ''}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
