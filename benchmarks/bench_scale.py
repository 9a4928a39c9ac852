"""Scale figures for every algorithm (issue 30 item 4): CPU, wall and peak memory at 30 k, 300 k and 3 M.

Run: python benchmarks/bench_scale.py [--sizes 30000,300000,3000000] [--algorithms flash,mondrian]
                                      [--timeout 600] [--out results.json] [--rows declared|replicated|distinct]
                                      [--whole]

The algorithms are read from the registry (:func:`anonkit.algorithms.registry.algorithms`), never from
a hand list: each gets the small workload its family (or, where the family's does not fit, its own
entry) declares once in :data:`WORKLOADS`; an algorithm the registry adds without one is reported as
"no workload" and fails the benchmark, so the table cannot drift. Every (algorithm, size) runs in a
**fresh child process** (``--child``), so its peak resident memory (``ru_maxrss``) is its own; the
child builds the input (Adult's rows repeated to ``size`` rows — or ``size`` persons of
``make_one_to_many`` for the 1:M family), encodes it into a :class:`~anonkit.Table`, prepares what the
algorithm needs (the kernel priors of the background-knowledge family) and runs the algorithm once on
the table (``spec.entry``: no verification, measures or publishing — the algorithm's own growth).
The child prints one JSON line; the parent adds the child's whole-process CPU time
(``RUSAGE_CHILDREN``), wall time and the load average.

The growth exponent is the least-squares slope of log(CPU seconds of prepare + algorithm) over
log(size), over the sizes whose CPU time is at least :data:`FIT_FLOOR_SECONDS` (below it fixed costs and
noise decide the figure). When a larger size times out and fewer than two sizes fit, the exponent is the
lower bound the timeout gives (:func:`timeout_bound`, from whole-process wall times). An exponent above
:data:`MAX_EXPONENT` fails the benchmark (exit 1) unless :data:`SUPERLINEAR_REASONS` documents why; a
run over ``--timeout`` is recorded as timed out (and its larger sizes skipped), never hung.

``--rows``: ``declared`` (default) gives each workload the rows it declares; ``replicated`` repeats
Adult's rows (the distinct tuples stay Adult's); ``distinct`` makes every repetition distinct (age
becomes ``age * 1000 + copy``, a numeric quasi-identifier without a hierarchy), so the distinct tuples
grow with the rows (issue 30 item 2: KACA and the background-knowledge family at ×10 distinct tuples;
the workloads that need age's hierarchy, or have no age, are skipped then). Declared: distinct for every
workload with a numeric age, replicated with k scaled by the repetitions for the full-domain searches.

``--whole`` times the whole :func:`anonkit.anonymize` call instead (encode, run, publish, verify,
measure; the priors estimated by the pipeline): Flash at 10 M rows in at most 4 GB is
``--sizes 10000000 --algorithms flash --whole``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

DEFAULT_SIZES = (30_000, 300_000, 3_000_000)
DEFAULT_TIMEOUT = 600.0
#: an exponent above this fails the benchmark unless a reason is declared
MAX_EXPONENT = 1.2
#: sizes whose CPU time is below this are left out of the fit (fixed costs and noise decide them)
FIT_FLOOR_SECONDS = 0.2

QI8 = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]
QI3 = ["age", "sex", "education"]
SENSITIVE = "occupation"
#: Adult's records (``load_adult``): the unit of ``scale_k``'s repetitions
ADULT_ROWS = 30_162


@dataclass(frozen=True)
class Workload:
    """What one algorithm runs on: the data kind, its quasi-identifiers, its models and options.

    ``data``: ``adult`` (Adult's rows repeated; ``hierarchical_age`` keeps age's hierarchy, which the
    full-domain searches need), ``persons`` (``make_one_to_many``: size = persons), ``records`` (the
    same 1:M rows, the person column an identifier: every record its own person). ``households``
    adds a household column (three consecutive rows of one country each) for the household swaps.
    ``scale_k`` multiplies k by the repetitions of Adult (``size // 30,162``, at least 1), as the ARX
    comparison does, so a full-domain search faces the same problem at every size (with a fixed k,
    Adult ×10 is 5-anonymous untouched and the search ends at once). ``distinct`` (the default for
    every workload with a numeric age) makes each repetition of Adult distinct (see ``--rows``), so
    a clustering or partitioning faces ×N distinct tuples rather than ×N copies of each (which a fixed k
    makes trivially k-anonymous). ``domain`` declares every column's
    categories (its hierarchy's leaves: public, never read from the data) for DP synthesis. The input
    holds the workload's columns only. ``models`` are
    ``(name, args)`` pairs built in the child (see :func:`_models`).
    """

    qis: tuple[str, ...] = tuple(QI8)
    sensitive: str = SENSITIVE
    models: tuple[tuple[str, tuple], ...] = (("k", (5,)),)
    options: dict[str, Any] = field(default_factory=dict)
    data: str = "adult"
    hierarchical_age: bool = False
    priors: bool = False
    households: bool = False
    scale_k: bool = False
    domain: bool = False
    distinct: bool = True


_BK = Workload(qis=tuple(QI3), sensitive="salary-class", priors=True, options={"max_suppression": 1.0},
               models=(("k", (5,)), ("bk", ("salary-class", 0.8)), ("t", ("salary-class", 0.5, "equal"))))
_PERSONS = Workload(qis=("age", "sex", "race", "marital-status", "education", "native-country", "workclass"),
                    sensitive="diagnosis", data="persons", models=(("k", (4,)), ("theta", ("diagnosis", 4, 0.5))))

#: the workload of each family, and of the algorithms whose family's does not fit (declared once)
WORKLOADS: dict[str, Workload] = {
    "family:lattice": Workload(hierarchical_age=True, scale_k=True, distinct=False, options={"max_suppression": 0.02}),
    "family:search": Workload(hierarchical_age=True, scale_k=True, distinct=False),
    "family:partition": Workload(),
    "family:cluster": Workload(),
    "family:bucket": Workload(),
    "fixed": Workload(hierarchical_age=True, scale_k=True, distinct=False,
                      options={"levels": [0, 2, 1, 1, 1, 1, 1, 0]}),
    "safepub": Workload(hierarchical_age=True, distinct=False, models=(("dp", (1.0, 1e-5)),),
                        options={"degree": "medium"}),
    "genetic-search": Workload(hierarchical_age=True, scale_k=True, distinct=False,
                               options={"max_suppression": 0.02, "iterations": 10, "population_size": 20}),
    "iab": Workload(hierarchical_age=True, scale_k=True, distinct=False, qis=("age", "sex", "race", "education")),
    "kl-diversity": Workload(qis=_PERSONS.qis, sensitive="diagnosis", data="persons",
                             models=(("k", (4,)), ("frequency-l", ("diagnosis", 4)))),
    "angelization": _PERSONS,
    "theta-sensitive": Workload(qis=_PERSONS.qis, sensitive="diagnosis", data="records",
                                models=(("k", (4,)), ("theta", ("diagnosis", 4, 0.5)))),
    "bka-js": _BK,
    "k-primacy": Workload(qis=tuple(QI3), sensitive="salary-class", priors=True, options={"max_suppression": 1.0},
                          models=(("k", (5,)), ("bk", ("salary-class", 0.8)))),
    "uhra": _BK,
    "anatomy": Workload(models=(("distinct-l", (SENSITIVE, 3)),)),
    "stack-and-deal": Workload(),
    "local-suppression": Workload(qis=("sex", "race", "marital-status", "education", "workclass"), distinct=False),
    "microaggregation": Workload(models=(("k", (1,)),), options={"columns": ["age"], "k": 3}),
    "add-noise": Workload(models=(("k", (1,)),), options={"columns": ["age"], "level": 0.1}),
    "pram": Workload(models=(("k", (1,)),), options={"columns": ["education"]}),
    "rank-swap": Workload(models=(("k", (1,)),), options={"columns": ["age"]}),
    "record-swap": Workload(models=(("k", (1,)),), households=True,
                            options={"hierarchy": ["native-country"], "k": 3}),
    "dp-synthetic": Workload(qis=("sex", "race", "marital-status", "education", "salary-class"), domain=True,
                             distinct=False,
                             models=(("dp", (1.0, 1e-9)),),
                             options={"epsilon": 1.0, "delta": 1e-9, "seeded": True}),
    "shuffle": Workload(models=(("k", (1,)),), options={"columns": ["age"], "predictors": ["sex"]}),
}

#: why an algorithm may grow faster than MAX_EXPONENT (declared; an undeclared one fails the benchmark)
SUPERLINEAR_REASONS: dict[str, str] = {
    "kaca": "quadratic by definition: every EC of fewer than k records merges with its nearest EC over all "
            "ECs (Li et al. 2006: the exact nearest, ties to the EC made first), O(E²) in distinct tuples",
    "uhra": "quadratic by definition (paper A §4.1, t-k-Utility): nearest-point-next order of a cluster's "
            "tuples, O(u²), and a k-means-like refinement comparing tuples with every group centroid "
            "(O(moves × tuples) a pass, up to max_passes)",
    "k-primacy": "UHRA's pipeline (paper A's baseline): the same t-k-Utility order and refinement",
    "bka-js": "the kernel priors the background-knowledge family needs (knowledge.kernel_priors) are blocked and "
              "windowed, exactly: their cost follows the pairs inside the kernel's support, which grow as u² on "
              "--rows distinct (denser data at a fixed range); BKA-JS itself grows about linearly",
    "mdav": "quadratic by definition (Domingo-Ferrer & Mateo-Sanz 2002): each of the n/(2k) rounds finds the record "
            "farthest from the centroid of all remaining records and its k-1 nearest, O(n²/k); the tuple tree "
            "(cluster._mdav_index) prunes these searches (Adult x10 distinct 9.3x) but cannot change the worst case: "
            "1.32 from 300 k to 3 M distinct rows (437 CPU-s), measured with the tree and the combinations alike",
    "add-noise": "n log n, not the noise (O(n)): the release numbers its published classes in the sorted order "
                 "of their cells' texts (perturb._release._text_ranks), and a noised numeric column has about "
                 "as many distinct texts as rows: 6.4 of 14.6 CPU-s at 3 M rows are that argsort over Python "
                 "strings (1.23 measured at load 1.6, 30 k-3 M)",
}


def workload(name: str, family: str) -> Workload | None:
    """The declared workload of ``name`` (its own, else its family's), or None when none is declared."""
    return WORKLOADS.get(name) or WORKLOADS.get(f"family:{family}")


# ---------------------------------------------------------------- the child: one run in its own process


def _models(pairs: tuple[tuple[str, tuple], ...], k_factor: int = 1) -> list:
    from anonkit import models as m

    make = {"k": m.KAnonymity, "distinct-l": m.DistinctLDiversity, "frequency-l": m.FrequencyLDiversity,
            "t": m.TCloseness, "bk": m.BackgroundKnowledge, "theta": m.ThetaSensitivity,
            "dp": getattr(m, "DifferentialPrivacy", None)}
    return [make[name](args[0] * k_factor, *args[1:]) if name == "k" else make[name](*args) for name, args in pairs]


def adult_rows(size: int, *, distinct: bool) -> Any:
    """Adult's rows repeated to ``size`` rows; with ``distinct`` every repetition's ages differ."""
    from anonkit import load_adult

    frame, _ = load_adult()
    index = np.arange(size) % len(frame)
    out = frame.iloc[index].reset_index(drop=True)
    if distinct:
        copy = np.arange(size) // len(frame)
        out["age"] = (out["age"].astype(np.int64) * 1000 + copy).astype(str)
    return out


def rows_distinct(w: Workload, rows: str) -> bool | None:
    """Whether ``w`` runs on distinct repetitions under ``--rows rows``; None when it cannot."""
    can = w.data == "adult" and "age" in w.qis and not w.hierarchical_age
    if rows == "declared":
        return w.distinct and can
    if rows == "distinct":
        return True if can else None
    return False


def _input(w: Workload, size: int, distinct: bool) -> tuple[Any, Any]:
    from anonkit import Schema
    from anonkit.datasets import adult_hierarchies

    hier = adult_hierarchies()
    if w.data in ("persons", "records"):
        from anonkit.datasets import CATEGORY_ORDER, ONE_TO_MANY_CATEGORIES, make_one_to_many

        frame = make_one_to_many(size, seed=0)
        person = {"person": "person"} if w.data == "persons" else {"identifier": ["person"]}
        schema = Schema.of(quasi=list(w.qis), sensitive=[w.sensitive], **person,
                           hierarchies={q: hier[q] for q in w.qis if q != "age"}, types={"age": "numeric"},
                           categories={w.sensitive: ONE_TO_MANY_CATEGORIES},
                           category_order={w.sensitive: CATEGORY_ORDER})
        return frame, schema
    frame = adult_rows(size, distinct=distinct)[[*w.qis, w.sensitive]].copy()
    keep_age_hierarchy = w.hierarchical_age and not distinct
    hierarchies = {q: hier[q] for q in w.qis if q != "age" or keep_age_hierarchy}
    if w.sensitive in hier and w.sensitive not in hierarchies:
        hierarchies[w.sensitive] = hier[w.sensitive]
    household = {}
    if w.households:
        frame["household"] = frame["native-country"].astype(str) + "-" + (np.arange(len(frame)) // 3).astype(str)
        household = {"household": "household"}
    numeric_age = "age" in w.qis and not keep_age_hierarchy
    schema = Schema.of(quasi=list(w.qis), sensitive=[w.sensitive], hierarchies=hierarchies, **household,
                       types={"age": "numeric"} if numeric_age else {}, default_role="insensitive")
    return frame, schema


def _cpu() -> float:
    return time.process_time()


def child(name: str, size: int, rows: str = "declared", whole: bool = False) -> dict[str, Any]:
    """One run: build, encode, prepare and run ``name`` at ``size``; the figures as a dict. ``whole``:
    the whole :func:`anonkit.anonymize` call instead (encode, run, publish, verify, measure) as ``cpu``."""
    from anonkit import Table
    from anonkit.algorithms.registry import get

    spec = get(name)
    w = workload(name, spec.family)
    assert w is not None
    distinct = bool(rows_distinct(w, rows))
    frame, schema = _input(w, size, distinct)
    base_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if whole:
        return _whole(spec, w, frame, schema, size, base_mb)
    c, t = _cpu(), time.perf_counter()
    table = Table(frame, schema)
    _ = table.distinct
    encode = (_cpu() - c, time.perf_counter() - t)
    del frame
    k_factor = max(1, size // ADULT_ROWS) if w.scale_k and w.data == "adult" else 1
    models = _models(w.models, k_factor)
    extra: dict[str, Any] = dict(w.options)
    if spec.randomized:
        extra["seed"] = 0
    if w.domain:
        extra["domain"] = {c: {"categories": list(schema[c].hierarchy.leaves)} for c in (*w.qis, w.sensitive)}
    c, t = _cpu(), time.perf_counter()
    if w.priors:
        from anonkit.knowledge import kernel_priors

        extra["priors"] = kernel_priors(table, w.sensitive)
    prepare = (_cpu() - c, time.perf_counter() - t)
    c, t = _cpu(), time.perf_counter()
    release = spec.entry(table, models, **extra)
    run = (_cpu() - c, time.perf_counter() - t)
    return {
        "algorithm": name, "size": size, "rows": int(table.n), "distinct": int(table.distinct.size),
        "classes": int(release.n_classes), "k_factor": k_factor,
        "distinct_rows": distinct, "encode_cpu": encode[0], "encode_wall": encode[1],
        "prepare_cpu": prepare[0], "prepare_wall": prepare[1], "cpu": run[0], "wall": run[1],
        "base_mb": base_mb, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _whole(spec: Any, w: Workload, frame: Any, schema: Any, size: int, base_mb: float) -> dict[str, Any]:
    """The whole ``anonymize()`` call of ``spec`` on ``frame`` (priors estimated by the pipeline)."""
    from anonkit import anonymize

    k_factor = max(1, size // ADULT_ROWS) if w.scale_k and w.data == "adult" else 1
    options = dict(w.options)
    if w.domain:
        options["domain"] = {c: {"categories": list(schema[c].hierarchy.leaves)} for c in (*w.qis, w.sensitive)}
    c, t = _cpu(), time.perf_counter()
    result = anonymize(frame, schema, _models(w.models, k_factor), algorithm=spec.name, seed=0, **options)
    run = (_cpu() - c, time.perf_counter() - t)
    return {"algorithm": spec.name, "size": size, "rows": len(frame), "distinct": -1,
            "classes": int(result.release.n_classes), "k_factor": k_factor, "whole": True,
            "verified": bool(result.verification.ok), "encode_cpu": 0.0, "encode_wall": 0.0, "prepare_cpu": 0.0,
            "prepare_wall": 0.0, "cpu": run[0], "wall": run[1], "base_mb": base_mb,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


# ---------------------------------------------------------------- the parent: runs, fits, verdicts


def fit_exponent(sizes: list[float], seconds: list[float], floor: float = FIT_FLOOR_SECONDS) -> float | None:
    """The least-squares slope of log(seconds) over log(size), over the points at or above ``floor``
    seconds; None when fewer than two such points (with two distinct sizes) remain."""
    points = [(s, t) for s, t in zip(sizes, seconds, strict=True) if t is not None and t >= floor and s > 0]
    if len({s for s, _ in points}) < 2:
        return None
    x = np.log([s for s, _ in points])
    y = np.log([t for _, t in points])
    return float(np.polyfit(x, y, 1)[0])


def verdict(name: str, exponent: float | None, reasons: dict[str, str] | None = None,
            limit: float = MAX_EXPONENT) -> str | None:
    """Why ``name`` fails the benchmark (an exponent over ``limit`` without a declared reason), or None."""
    reasons = SUPERLINEAR_REASONS if reasons is None else reasons
    if exponent is None or exponent <= limit or name in reasons:
        return None
    return f"{name}: CPU grows as size^{exponent:.2f} (> {limit}) and SUPERLINEAR_REASONS gives no reason"


def timeout_bound(size: int, wall: float, timed_out_size: int, timeout: float) -> float:
    """A lower bound of the growth exponent when the run at ``timed_out_size`` passed ``timeout`` seconds
    of wall time and the one at ``size`` took ``wall`` (whole processes, start-up included in both, so the
    algorithm's own growth is at least this)."""
    return math.log(max(timeout, wall) / wall) / math.log(timed_out_size / size)


def _run_child(name: str, size: int, timeout: float, rows: str, whole: bool = False) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", name, str(size), "--rows", rows] + (["--whole"] if whole else [])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        return {"algorithm": name, "size": size, "status": "timeout", "timeout_s": timeout}
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    row: dict[str, Any] = {"algorithm": name, "size": size, "process_wall": time.perf_counter() - t,
                           "process_cpu": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
                           "load": os.getloadavg()[0]}
    if proc.returncode:
        lines = err.strip().splitlines()
        return {**row, "status": "error", "error": lines[-1] if lines else f"exit {proc.returncode}"}
    return {**row, "status": "ok", **json.loads(out.strip().splitlines()[-1])}


def _line(r: dict[str, Any]) -> str:
    if r["status"] != "ok":
        return f"{r['algorithm']:18} {r['size']:>10,}  {r['status'].upper()}: {r.get('error', r.get('timeout_s'))}"
    return (f"{r['algorithm']:18} {r['size']:>10,}  rows {r['rows']:>10,} distinct {r['distinct']:>9,}  "
            f"encode {r['encode_cpu']:7.2f}  prep {r['prepare_cpu']:7.2f}  algo cpu {r['cpu']:8.2f} "
            f"wall {r['wall']:8.2f}  process {r['process_cpu']:7.1f} cpu-s  peak {r['peak_mb']:7,.0f} MB  "
            f"load {r['load']:.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=",".join(str(s) for s in DEFAULT_SIZES))
    ap.add_argument("--algorithms", default="", help="comma-separated names (default: every registered one)")
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per run")
    ap.add_argument("--out", default="", help="write every run and exponent as JSON here")
    ap.add_argument("--rows", choices=["declared", "replicated", "distinct"], default="declared",
                    help="the workloads' rows (module docstring)")
    ap.add_argument("--whole", action="store_true",
                    help="time the whole anonymize() call (encode, run, publish, verify, measure) instead")
    ap.add_argument("--child", nargs=2, metavar=("ALGORITHM", "SIZE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]), args.rows, args.whole)))
        return 0
    from anonkit.algorithms.registry import algorithms

    registered = algorithms()
    names = [a for a in args.algorithms.split(",") if a] or list(registered)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    print(f"{platform.node()} {os.cpu_count()} cores, python {platform.python_version()}, "
          f"load {os.getloadavg()[0]:.2f}; sizes {sizes}; timeout {args.timeout:.0f} s", flush=True)
    runs: list[dict[str, Any]] = []
    failures: list[str] = []
    exponents: dict[str, float | None] = {}
    for name in names:
        spec = registered.get(name)
        w = workload(name, spec.family) if spec else None
        if w is None:
            failures.append(f"{name}: {'not registered' if spec is None else 'no workload declared in WORKLOADS'}")
            print(f"{name:18} NO WORKLOAD", flush=True)
            continue
        if rows_distinct(w, args.rows) is None:
            print(f"{name:18} skipped with --rows distinct (its workload needs age's hierarchy, has no age or is 1:M)",
                  flush=True)
            continue
        done: list[dict[str, Any]] = []
        bound = None
        for size in sizes:
            r = _run_child(name, size, args.timeout, args.rows, args.whole)
            runs.append(r)
            print(_line(r), flush=True)
            if r["status"] != "ok":
                if r["status"] == "error":
                    failures.append(f"{name} at {size:,}: {r['error']}")
                elif done:
                    bound = timeout_bound(done[-1]["size"], done[-1]["process_wall"], size, args.timeout)
                    r["exponent_at_least"] = bound
                break
            done.append(r)
        exponent = fit_exponent([r["size"] for r in done], [r["cpu"] + r["prepare_cpu"] for r in done])
        if exponent is None and bound is not None:
            exponent = bound  # at least this: the timed-out run's growth, judged like a fitted exponent
        exponents[name] = exponent
        bad = verdict(name, exponent)
        if bad:
            failures.append(bad)
        shown = "n/a" if exponent is None else f"{exponent:.2f}"
        print(f"{name:18} exponent {shown}{' — ' + SUPERLINEAR_REASONS[name] if name in SUPERLINEAR_REASONS else ''}",
              flush=True)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"machine": {"node": platform.node(), "cores": os.cpu_count()}, "sizes": sizes,
                       "rows": args.rows, "whole": args.whole, "runs": runs, "exponents": exponents,
                       "failures": failures},
                      f, indent=1)
    for line in failures:
        print(f"FAIL {line}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
