"""Local suppression benchmark (issue 28, item 3): sdcMicro's heuristic on Adult, 5 and 8 quasi-identifiers.

Run: python benchmarks/bench_local_suppression.py [--reps N] [--recode]
Adult (30,162 records) at level 0 (every cell exact; ``--recode`` first recodes age to 5-year bands and
native-country to its continent, the usual "recode, then suppress" workflow), k = 2, 3, 5. Reported:
the median wall time of the algorithm (grouping into distinct patterns, the passes, the release with its
published table; numba's compilation is paid in the warm-up run), the cells suppressed (total and the
share of quasi-identifier cells), the passes' result checked by the wildcard verifier
(:func:`anonkit._verify_wildcard.verify_wildcard`, timed apart).
"""

from __future__ import annotations

import argparse
import statistics
import time

from anonkit import Schema, Table, load_adult
from anonkit.algorithms.suppress.local_suppression import _verifier, local_suppression
from anonkit.models import KAnonymity

QI5 = ["sex", "age", "race", "marital-status", "education"]
QI8 = [*QI5, "native-country", "workclass", "salary-class"]


def timed(fn, reps: int) -> tuple[float, object]:
    out = fn()  # warm-up (numba compiles or loads its cache here)
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main(reps: int = 3, recode: bool = False) -> None:
    frame, hier = load_adult()
    for qis in (QI5, QI8):
        schema = Schema.of(quasi=qis, insensitive=[c for c in frame.columns if c not in qis],
                           hierarchies={q: hier[q] for q in qis})
        table = Table(frame, schema)
        levels = {"age": 1, **({"native-country": 1} if "native-country" in qis else {})} if recode else None
        cells = table.n * len(qis)
        print(f"Adult, {len(qis)} quasi-identifiers ({table.n:,} records, {table.distinct.size:,} distinct tuples)"
              + (f", recoded {levels}" if levels else ""))
        for k in (2, 3, 5):
            sec, rel = timed(lambda k=k, t=table, lv=levels: local_suppression(t, [KAnonymity(k)], levels=lv), reps)
            t = time.perf_counter()
            ok = _verifier(table, rel, [KAnonymity(k)]).ok  # type: ignore[arg-type]
            check = time.perf_counter() - t
            n = rel.notes["suppressed_cells_total"]  # type: ignore[attr-defined]
            per = ", ".join(f"{q} {c}" for q, c in rel.notes["suppressed_cells"] if c)  # type: ignore[attr-defined]
            print(f"  k={k}: {sec:.3f} s; {n:,} cells suppressed ({n / cells:.2%}): {per}; "
                  f"verified {ok} ({check:.2f} s)")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--recode", action="store_true")
    a = p.parse_args()
    main(a.reps, a.recode)
