"""Audit and report benchmark (issue 14): the risk models and attacks on a release, and the report.

Run: python benchmarks/bench_audit.py [--reps N] [--scale 10]

Data: the bundled Adult (30,162 records) anonymized as ``examples/adult.yaml`` says (Flash,
5-anonymity and distinct 3-diversity of occupation, ≤ 2 % suppressed), and Adult ×``scale``
(every record repeated, 301,620 records at ×10) anonymized the same way. Reported, median of
``--reps`` runs after a warm-up:

* the audit (population 300,000 or 3,000,000, no control set): the time of the model check, the
  risk models and each attack, and in all, wall and CPU (this process's) with the load average
  (target: under 30 s on Adult; issue 30: ~30 ms of CPU per audit of Adult, each audit of the bundled
  job's eight);
* the HTML report of the Adult run (target: under 5 s).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import pandas as pd

from anonkit.audit.inputs import AuditInputs
from anonkit.audit.run import audit
from anonkit.config import load_config
from anonkit.pipeline import anonymize, config_schema, load_input
from anonkit.report import build_report

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "adult.yaml"


def release_of(scale: int):  # type: ignore[no-untyped-def]
    """The example config's release of Adult repeated ``scale`` times, and what the audit reads."""
    config = load_config(EXAMPLE)
    frame, defaults = load_input(config, EXAMPLE.parent)
    if scale > 1:
        frame = pd.concat([frame] * scale, ignore_index=True)
    schema = config_schema(config, EXAMPLE.parent, defaults, frame)
    algo = config.algorithm
    result = anonymize(frame, schema, config.models(), algorithm=algo.spec.name, metric=algo.metric,
                       **algo.options())
    inputs = AuditInputs(schema=result.release.table.schema, original=result.release.table.frame,
                         release=result.frame.astype(str))
    return config, result, inputs


def timed_audit(config, inputs: AuditInputs, population: int, reps: int) -> tuple[float, dict, dict]:  # type: ignore[no-untyped-def]
    """The audit's median wall time, its parts' and its last result; the median CPU time (this process's,
    the machine being shared) and the load average go into the parts as ``cpu`` and ``load``."""
    audit(inputs, models=config.models(), population=population)  # warm-up (imports, caches)
    runs = []
    for _ in range(reps):
        t, c = time.perf_counter(), time.process_time()
        doc = audit(inputs, models=config.models(), population=population)
        runs.append((time.perf_counter() - t, doc, time.process_time() - c))
    total = statistics.median(t for t, _, _ in runs)
    parts = {k: statistics.median(d["seconds"][k] for _, d, _ in runs) for k in runs[0][1]["seconds"]}
    parts["cpu"] = statistics.median(c for _, _, c in runs)
    parts["load"] = os.getloadavg()[0]
    return total, parts, runs[-1][1]


def show(label: str, records: int, total: float, parts: dict, doc: dict) -> None:
    cpu, load = parts.pop("cpu"), parts.pop("load")
    print(f"audit of {label} ({records:,} records, {doc['risk']['classes']:,} classes): {total:.2f} s, "
          f"{cpu:.3f} CPU-s, load {load:.1f} ({'OK' if total < 30 else 'ABOVE'} the 30 s target)")
    for name, sec in parts.items():
        if name != "total":
            print(f"  {name:<16} {sec:8.3f} s")
    risk = doc["risk"]
    print(f"  prosecutor highest {risk['prosecutor']['highest']:.3f}, average {risk['prosecutor']['average']:.4f}; "
          f"population uniqueness {risk['population_uniqueness'].get(risk['population_uniqueness']['model'])} "
          f"({risk['population_uniqueness']['model']})")
    for a in doc["attacks"]:
        print(f"  {a['name']:<16} success {a['success']:.4f} [{a['ci'][0]:.4f}, {a['ci'][1]:.4f}], "
              f"baseline {a['baseline'] if a['baseline'] is None else round(a['baseline'], 4)}, "
              f"risk {a['risk']:.4f}")


def main(reps: int, scale: int) -> None:
    config, result, inputs = release_of(1)
    total, parts, doc = timed_audit(config, inputs, 300_000, reps)
    show("Adult", len(inputs.original), total, parts, doc)

    build_report(result.summary, original=inputs.original, release=result.frame, audit=doc)  # warm-up
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        html = build_report(result.summary, original=inputs.original, release=result.frame, audit=doc)
        times.append(time.perf_counter() - t)
    sec = statistics.median(times)
    print(f"report of the Adult run: {sec:.2f} s, {len(html) / 1024:,.0f} KiB "
          f"({'OK' if sec < 5 else 'ABOVE'} the 5 s target)")

    if scale > 1:
        config, _, big = release_of(scale)
        total, parts, doc = timed_audit(config, big, 300_000 * scale, reps)
        show(f"Adult ×{scale}", len(big.original), total, parts, doc)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--scale", type=int, default=10)
    args = parser.parse_args()
    main(args.reps, args.scale)
