"""IAB on Adult (spec §4.4), against Flash on the same requirement.

Run: python benchmarks/bench_iab.py [max_qis] [max_states] [time_limit]
Adult (30,162 records, ARX's hierarchies), k = 5 on the first 3…8 quasi-identifiers of
sex, age, race, marital-status, education, native-country, workclass, salary-class; occupation
sensitive; the remaining columns insensitive (published as they are, so they count in IAB's rows).
Per size: IAB's seconds, states expanded / generated, why it stopped, the distinct full rows of its
release and the records it suppressed; Flash's seconds, distinct full rows and records kept. Both run
without a suppression allowance: a budget stop then leaves IAB unsatisfied, and the records it would
have to suppress are shown.
IAB runs with its default budget (10,000 expanded states, 60 s) unless told otherwise.

Then pre-analytics at scale: ``anonkit.analytics.leakage`` (what ``anonkit analyze`` runs) on
1,000,000 seeded rows × 20 attributes of 2 to 1,000 distinct values, single attributes and every
pair (190), median of 3 (target: under 5 s).
"""

from __future__ import annotations

import sys
import time

from anonkit import Schema, Table, load_adult
from anonkit.algorithms import get_algorithm
from anonkit.models import KAnonymity
from anonkit.release import Release
from anonkit.verifier import verify

QI8 = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]
S = "occupation"
K = 5


def distinct_rows(rel: Release) -> int:
    """Distinct full rows of the published table."""
    return len(rel.to_frame().drop_duplicates())


def main(max_qis: int = 8, options: dict | None = None) -> None:
    frame, hier = load_adult()
    iab, flash = get_algorithm("iab"), get_algorithm("flash")
    print(f"Adult: {len(frame):,} records, {len(frame.drop_duplicates()):,} distinct full rows; k = {K}")
    for size in range(3, max_qis + 1):
        qis = QI8[:size]
        rest = [c for c in frame.columns if c not in qis and c != S]
        schema = Schema.of(quasi=qis, sensitive=[S], insensitive=rest, hierarchies={q: hier[q] for q in qis})
        table = Table(frame, schema)
        models = [KAnonymity(K)]
        t = time.perf_counter()
        rel = iab(table, models, **(options or {}))
        iab_s = time.perf_counter() - t
        t = time.perf_counter()
        fl = flash(table, models)
        flash_s = time.perf_counter() - t
        n = rel.notes
        checked = verify(rel.to_frame(), table.schema, models).ok
        print(
            f"{size} QIs: IAB {iab_s:7.2f} s, expanded {n['states_expanded']:,}, generated {n['states_generated']:,}"
            f" (duplicates {n['duplicates']:,}), stopped {n['stopped']}, result {n['result']}, table rows "
            f"{n['rows']:,} ({n['violating']:,} violating), released {distinct_rows(rel):,} distinct rows, "
            f"suppressed {rel.n_suppressed:,} records (satisfied {rel.satisfied}, verified {checked}), "
            f"path length {len(n['path'])}; "
            f"Flash {flash_s:6.2f} s, {distinct_rows(fl):,} distinct rows, {fl.n_released:,} records kept, "
            f"transformation {list((fl.transformation or {}).values())}",
            flush=True,
        )


def analyze_at_scale(rows: int = 1_000_000, attributes: int = 20) -> None:
    import statistics

    import numpy as np
    import pandas as pd

    from anonkit.analytics import leakage

    rng = np.random.default_rng(0)
    cards = (2, 5, 12, 60, 300, 1000)
    frame = pd.DataFrame({f"a{i}": rng.integers(0, cards[i % len(cards)], rows) for i in range(attributes)})
    times = []
    for _ in range(3):
        t = time.perf_counter()
        report = leakage(frame)
        times.append(time.perf_counter() - t)
    print(f"analyze: {rows:,} rows × {attributes} attributes, {len(report['combinations'])} pairs: "
          f"median {statistics.median(times):.2f} s (runs {', '.join(f'{x:.2f}' for x in times)}; target < 5 s)")


if __name__ == "__main__":
    args = sys.argv[1:]
    opts: dict = {}
    if len(args) > 1:
        opts["max_states"] = int(args[1])
    if len(args) > 2:
        opts["time_limit"] = float(args[2])
    main(int(args[0]) if args else 8, opts)
    analyze_at_scale()
