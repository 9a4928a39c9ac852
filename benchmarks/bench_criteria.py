"""Population and risk criteria (issue 27): anonkit's time beside ARX's, in the same run, on Adult and Adult ×10.

Run: python benchmarks/bench_criteria.py [--sizes 1,10] [--runs 3] [--rounds 3] [--arx-runs 10]
     [--configs NAME,…] [--arx-classpath CP | --no-arx]

Configurations (ARX's test cases on Adult: the 8 quasi-identifiers but occupation, occupation sensitive for
anonkit and insensitive for ARX — no criterion reads it —, Flash, ARX's default metric Loss, gs 0.5, geometric
mean; :data:`SETUPS` holds every parameter once, and both sides are built from it):

* ``KMAP5_S0``: k-map, k = 5, the research subset ``tests/data/adult_subset.csv`` (3,016 records) of Adult
  (the population), 0 % suppression;
* ``KMAP_EST_S5``: estimated k-map, k = 3, zero-truncated Poisson, USA's population (317,238,626),
  significance 0.01, 5 % suppression;
* ``DP_0_02_S0`` / ``DP_005_015_S5``: δ-presence (0, 0.2) at 0 % and (0.05, 0.15) at 5 % suppression, the
  same research subset;
* ``AVGRISK_S4``, ``SAMPLEUNIQ_S4``, ``POPUNIQ_DANKAR_S4``: average re-identification risk ≤ 0.01, sample
  uniqueness ≤ 0.01, population uniqueness ≤ 0.0001 (Dankar's rule, USA, 15 solver iterations per try),
  4 % suppression (ARX's TestAnonymizationRiskBased thresholds);
* ``PROFIT_J_S4`` / ``PROFIT_JNA_S4``: profitability (journalist, with and without attack, ARX's cost-benefit
  "config 2": adversary cost 20, gain 120, publisher loss 3,000, benefit 1,200) on the research subset at 4 %
  suppression — each skipped with the reason printed while anonkit's model is not declared or refuses it.

The research subset is the SAME rows on both sides: its row indices in Adult (each subset record matched to
one row of identical cells, :func:`subset_mask`) are written to a file the ARX harness reads
(``DataSubset.create(data, rows)``) and anonkit takes as ``subset=``. Adult ×10 replicates Adult's file ten
times (301,620 rows, ``bench_lattice.replicate``) and the subset's indices with it (3,016 × 10), with
k and the population scaled by 10 and the average-risk threshold divided by 10, so that the classes and
the optimum stay those of ×1 (δ-presence shares are unchanged by replication). Sample and population
uniqueness have no such scaling: on ×10 every class has at least 10 records, so the untransformed data
passes (the figure then is the cost of one check); estimated k-map on ×10 keeps the sampling fraction,
whose derived k (2) every replicated class meets, and so does no-attack profitability's k.

Printed per configuration and size: anonkit's median wall and CPU time (``time.process_time``: every
thread of this process) over ``--rounds`` × ``--runs`` warm calls of :func:`anonkit.anonymize` (encoding,
population counts, search, release, the independent verification with its population recount, measures),
after one warm-up call, and of Flash alone on the encoded table (the research records with their population
counts; ARX's ``anonymize()`` is nearer this, as it starts from data ARX has already parsed); ARX's median
wall and CPU time (the process CPU time of its JVM, JIT and GC threads included, which Linux reports in
10 ms steps) of ``anonymize()`` over runs 2…N of each JVM (``--arx-runs``
= N), the median over the rounds' JVMs; the ratios anonkit / ARX; the optimum, the Loss string and the
suppressed records of both and whether they agree; the load average before each configuration. The
rounds alternate anonkit and ARX, each first in turn, so that machine noise hits both.

ARX: with a class path of ARX's core (``--arx-classpath`` or the ``ARX_CLASSPATH`` environment variable,
e.g. ``/tmp/arx/classes:/tmp/arx/lib/*``) our harness ``benchmarks/arx/ArxCriteriaBench.java`` (our code
calling ARX's public API; every parameter comes from this script) is compiled into a temporary directory
and run in a JVM per round. Build ARX's core from its public repository, outside this repository: fetch
github.com/arx-deidentifier/arx, compile the Java sources under ``src/main`` with ``javac`` for Java 17
against every jar under its ``lib/`` folder into a classes folder (the GUI is not needed), and give that
folder and the jars as the class path; never commit ARX's code or its build. Without a class path (or
with ``--no-arx``) the script says that ARX was not run and prints anonkit's figures alone.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from anonkit import Table, anonymize, load_adult
from anonkit.algorithms.lattice.flash import flash
from anonkit.datasets import adult_path
from anonkit.errors import InputError
from anonkit.models import (
    AverageRisk,
    Criterion,
    DeltaPresence,
    EstimatedKMap,
    KMap,
    PopulationUniquenessRisk,
    SampleUniquenessRisk,
    registry,
)
from anonkit.models.kmap import for_records
from anonkit.models.population import attach_population
from anonkit.schema import Schema

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lattice import replicate

HERE = Path(__file__).resolve().parent
SUBSET = HERE.parent / "tests" / "data" / "adult_subset.csv"
HARNESS = HERE / "arx" / "ArxCriteriaBench.java"
OCC = "occupation"
USA = 317_238_626  # ARXPopulationModel.Region.USA
DEFAULT_SIZES = "1,10"
DEFAULT_RUNS = 3
DEFAULT_ROUNDS = 3
DEFAULT_ARX_RUNS = 10
DEFAULT_ARX_HEAP = "4g"


@dataclass(frozen=True)
class Setup:
    """One configuration: the harness's model name and parameters at ×1, how ×``copies`` scales them."""

    name: str
    model: str
    params: dict[str, object]
    suppression: float
    subset: bool = False
    times: tuple[str, ...] = ()  # parameters multiplied by the copies
    per: tuple[str, ...] = ()  # parameters divided by the copies
    note10: str = ""  # what replication does to this configuration

    def at(self, copies: int) -> dict[str, object]:
        """The parameters on Adult ×``copies``."""
        out = dict(self.params)
        for key in self.times:
            out[key] = out[key] * copies  # type: ignore[operator]
        for key in self.per:
            out[key] = out[key] / copies  # type: ignore[operator]
        return out


TRIVIAL10 = "on ×10 every class has ≥ 10 records: the untransformed data passes"
#: ARX's cost-benefit "config 2" of TestAnonymizationProfitability
COST_BENEFIT = {"adversary_cost": 20.0, "adversary_gain": 120.0, "publisher_loss": 3000.0, "publisher_benefit": 1200.0}
SETUPS = [
    Setup("KMAP5_S0", "k-map", {"k": 5}, 0.0, subset=True, times=("k",)),
    Setup("KMAP_EST_S5", "estimated-k-map", {"k": 3, "population": USA, "estimator": "zero-truncated-poisson",
                                             "significance": 0.01}, 0.05, times=("population",),
          note10="on ×10 the sampling fraction, hence the derived k (2), is that of ×1: every replicated class "
                 "meets it"),
    Setup("DP_0_02_S0", "delta-presence", {"dmin": 0.0, "dmax": 0.2}, 0.0, subset=True),
    Setup("DP_005_015_S5", "delta-presence", {"dmin": 0.05, "dmax": 0.15}, 0.05, subset=True),
    Setup("AVGRISK_S4", "average-risk", {"threshold": 0.01}, 0.04, per=("threshold",)),
    Setup("SAMPLEUNIQ_S4", "sample-uniqueness", {"threshold": 0.01}, 0.04, note10=TRIVIAL10),
    Setup("POPUNIQ_DANKAR_S4", "population-uniqueness", {"threshold": 0.0001, "pu_model": "dankar",
                                                         "population": USA, "iterations": 15}, 0.04,
          times=("population",), note10=TRIVIAL10),
    Setup("PROFIT_J_S4", "profitability", {"attacker": "journalist", "attack": True, **COST_BENEFIT}, 0.04,
          subset=True),
    Setup("PROFIT_JNA_S4", "profitability", {"attacker": "journalist", "attack": False, **COST_BENEFIT}, 0.04,
          subset=True, note10="on ×10 every class matches 10 times the population records: the costs' k is met "
                              "untransformed"),
]
NAMES = [s.name for s in SETUPS]


# ---------------------------------------------------------------------------- both sides from one setup
def profitability(params: dict[str, object]) -> tuple[list[Criterion] | None, str]:
    """anonkit's profitability model for ARX's parameters, or None and why it is skipped.

    The model is named as ARX's criterion is (``profitability``, ``…-journalist``, ``no-attack-…``); its
    declared parameters are filled from ARX's cost-benefit configuration by name; a model that is not
    declared, or a parameter this script cannot fill, skips the configuration rather than guess."""
    name = ("profitability" if params["attack"] else "no-attack-profitability") + (
        "-journalist" if params["attacker"] == "journalist" else "")
    if name not in registry.models():
        return None, f"skipped: {name} is not a declared model yet (models/profitability.py)"
    spec = registry.get(name)
    missing = [q.name for q in spec.params if q.name not in params]
    if missing:
        return None, (f"skipped: {name}'s parameters {missing} are not in ARX's cost-benefit configuration; "
                      "update bench_criteria.COST_BENEFIT")
    return [spec.cls(**{q.name: params[q.name] for q in spec.params})], ""


def anonkit_models(setup: Setup, params: dict[str, object]) -> tuple[list[Criterion] | None, str]:
    """The anonkit models of ``setup`` with ``params`` (None and a reason when it cannot run)."""
    p = params
    build: dict[str, Callable[[], list[Criterion]]] = {
        "k-map": lambda: [KMap(int(p["k"]))],
        "estimated-k-map": lambda: [EstimatedKMap(int(p["k"]), int(p["population"]), estimator=str(p["estimator"]),
                                                  significance=float(p["significance"]))],
        "delta-presence": lambda: [DeltaPresence(float(p["dmax"]), dmin=float(p["dmin"]))],
        "average-risk": lambda: [AverageRisk(float(p["threshold"]))],
        "sample-uniqueness": lambda: [SampleUniquenessRisk(float(p["threshold"]))],
        "population-uniqueness": lambda: [PopulationUniquenessRisk(
            float(p["threshold"]), str(p["pu_model"]), population=int(p["population"]),
            iterations=int(p["iterations"]))],
    }
    if setup.model == "profitability":
        return profitability(params)
    return build[setup.model](), ""


def arx_value(v: object) -> str:
    """A parameter as the harness parses it: Java's booleans, a float's shortest exact digits."""
    return str(v).lower() if isinstance(v, bool) else repr(v) if isinstance(v, float) else str(v)


def arx_arguments(setup: Setup, params: dict[str, object], subset_file: Path | None) -> list[str]:
    """The harness's ``key=value`` arguments for ``setup`` with ``params`` (ARX's default metric, Loss)."""
    out = [f"model={setup.model}", f"suppression={setup.suppression!r}", "metric=loss"]
    out += [f"{k}={arx_value(v)}" for k, v in params.items()]
    if setup.subset:
        if subset_file is None:
            raise ValueError(f"{setup.name} needs the research subset's rows")
        out.append(f"subset={subset_file}")
    return out


def subset_mask(frame: pd.DataFrame, subset: pd.DataFrame) -> np.ndarray:
    """The subset's rows as rows of ``frame`` (each matched to one row of identical cells)."""
    both = pd.concat([frame.astype(str), subset[list(frame.columns)].astype(str)], ignore_index=True)
    ids, _ = pd.factorize(pd.MultiIndex.from_frame(both))
    n = len(frame)
    occ = pd.Series(ids[:n]).groupby(ids[:n]).cumcount().to_numpy()
    sub_occ = pd.Series(ids[n:]).groupby(ids[n:]).cumcount().to_numpy()
    where = pd.MultiIndex.from_arrays([ids[:n], occ]).get_indexer(pd.MultiIndex.from_arrays([ids[n:], sub_occ]))
    if (where < 0).any():
        raise ValueError(f"{int((where < 0).sum())} subset records match no row of Adult")
    mask = np.zeros(n, dtype=bool)
    mask[where] = True
    return mask


def write_rows(mask: np.ndarray, path: Path) -> Path:
    """The subset's row indices (0-based, one per line), the file the ARX harness reads."""
    path.write_text("".join(f"{i}\n" for i in np.flatnonzero(mask)), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------- ARX
@dataclass
class ArxRun:
    """One JVM: its runs' wall and CPU seconds and the last run's result."""

    wall: list[float]
    cpu: list[float]
    transformation: list[int]
    loss: str
    suppressed: int

    @property
    def warm(self) -> tuple[float, float]:
        """Median wall and CPU seconds of runs 2…N (the JIT warms up over the first)."""
        w, c = (self.wall[1:], self.cpu[1:]) if len(self.wall) > 1 else (self.wall, self.cpu)
        return statistics.median(w), statistics.median(c)


def parse_arx(text: str) -> ArxRun:
    """The harness's output as an :class:`ArxRun` (ValueError when it is not there)."""
    runs = re.findall(r"^run=\d+ wallMs=(\S+) cpuMs=(\S+) optimum=(\S+)(.*)$", text, flags=re.M)
    if not runs:
        raise ValueError("the ARX harness printed no run")
    *_, (_, _, optimum, rest) = runs
    loss = re.search(r"\bloss=(\S+)", rest)
    suppressed = re.search(r"\bsuppressed=(\d+)", rest)
    transformation = [] if optimum == "none" else [int(x) for x in optimum.strip("[]").split(",") if x]
    return ArxRun([float(w) / 1000 for w, *_ in runs], [float(c) / 1000 for _, c, *_ in runs], transformation,
                  loss.group(1) if loss else "none", int(suppressed.group(1)) if suppressed else -1)


class Arx:
    """Our harness compiled against ARX's ``classpath``, one JVM per call."""

    def __init__(self, classpath: str, heap: str) -> None:
        self.classpath, self.heap = classpath, heap
        self.dir = Path(tempfile.mkdtemp(prefix="anonkit-arxcrit-"))
        out = subprocess.run(["javac", "-nowarn", "-cp", classpath, "-d", str(self.dir), str(HARNESS)],
                             capture_output=True, text=True)
        if out.returncode:
            self.close()
            raise RuntimeError(f"javac failed on {HARNESS.name}: {out.stderr.strip().splitlines()[:1]}")

    def run(self, csv: Path, runs: int, arguments: list[str]) -> ArxRun:
        cmd = ["java", f"-Xmx{self.heap}", "-cp", f"{self.classpath}{os.pathsep}{self.dir}", "ArxCriteriaBench",
               str(adult_path().parent), str(csv), str(runs), *arguments]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode:
            lines = [line.strip() for line in out.stderr.splitlines() if line.strip()]
            causes = [line for line in lines if "Exception" in line or "Error" in line]  # Java's, last the root
            cause = (causes or lines or ["no message"])[-1]
            raise RuntimeError(f"the ARX harness exited {out.returncode} ({' '.join(arguments)}): {cause.strip()}")
        return parse_arx(out.stdout)

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


def find_arx(option: str | None, heap: str) -> tuple[Arx | None, str]:
    """The compiled harness, or None and the sentence saying why ARX is not run."""
    classpath = option or os.environ.get("ARX_CLASSPATH")
    if not classpath:
        return None, ("ARX was not run: no ARX build given (set ARX_CLASSPATH or --arx-classpath to ARX's compiled "
                      "core classes and its jars; how to build them: this script's docstring)")
    if shutil.which("java") is None or shutil.which("javac") is None:
        return None, "ARX was not run: java/javac not found"
    try:
        parts = classpath.split(os.pathsep)
        shown = parts[0] + (f" and {len(parts) - 1} more entries" if len(parts) > 1 else "")
        return Arx(classpath, heap), f"ARX: {shown} (harness {HARNESS.relative_to(HERE.parent)})"
    except RuntimeError as exc:
        return None, f"ARX was not run: {exc}"


# ---------------------------------------------------------------------------- anonkit
@dataclass
class Ours:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    transformation: list[int] = field(default_factory=list)
    loss: str = ""
    suppressed: int = -1
    search_wall: list[float] = field(default_factory=list)
    search_cpu: list[float] = field(default_factory=list)
    search_transformation: list[int] = field(default_factory=list)


def prepared(frame: pd.DataFrame, schema: Schema, models: list[Criterion],
             mask: np.ndarray | None) -> tuple[Table, list[Criterion]]:
    """The encoded table the search reads (the research records with their population counts when there
    is a subset) and the models as the runner hands them to it (an estimated k-map told the records)."""
    if mask is None:
        table = Table(frame, schema)
    else:
        table = Table(frame[mask].reset_index(drop=True), schema)
        attach_population(table, frame)
    return table, for_records(models, table.n_records)


def measure_search(table: Table, models: list[Criterion], setup: Setup, runs: int, into: Ours) -> None:
    """``runs`` calls of Flash alone on the encoded table, appended to ``into``."""
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        rel = flash(table, models, max_suppression=setup.suppression)
        into.search_wall.append(time.perf_counter() - w)
        into.search_cpu.append(time.process_time() - c)
        into.search_transformation = [int(v) for v in (rel.transformation or {}).values()]


def measure(frame: pd.DataFrame, schema: Schema, models: list[Criterion], setup: Setup, mask: np.ndarray | None,
            runs: int, into: Ours) -> None:
    """``runs`` warm calls of anonymize(), appended to ``into``."""
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        res = anonymize(frame, schema, models, algorithm="flash", max_suppression=setup.suppression, subset=mask)
        into.wall.append(time.perf_counter() - w)
        into.cpu.append(time.process_time() - c)
        into.transformation = [int(v) for v in res.summary["transformation"].values()]
        into.loss = repr(float(res.summary["score"]))
        into.suppressed = int(res.summary["suppressed"])


# ---------------------------------------------------------------------------- the run
def load_average() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def ratio(ours: float, theirs: float) -> float:
    return ours / theirs if theirs else float("nan")


def agree(ours: Ours, theirs: ArxRun) -> str:
    """Whether both found the same optimum with the same Loss string and suppressed records."""
    same = {"optimum": ours.transformation == theirs.transformation, "Loss": ours.loss == theirs.loss,
            "suppressed": ours.suppressed == theirs.suppressed}
    if all(same.values()):
        return "same optimum, Loss and suppressed"
    verdict = "DIFFERS in " + ", ".join(k for k, v in same.items() if not v)
    try:
        a, x = float(ours.loss), float(theirs.loss)
    except ValueError:
        return verdict
    return verdict + (f" (anonkit's Loss {(a - x) / abs(x):+.1e} relative)" if not same["Loss"] and x else "")


def one_setup(setup: Setup, copies: int, data: dict, args: argparse.Namespace, arx: Arx | None) -> tuple | None:
    """Both sides on one configuration and size, alternating; its printed lines; a row of the table."""
    params = setup.at(copies)
    models, reason = anonkit_models(setup, params)
    head = f"  {setup.name:18s}"
    if models is None:
        print(f"{head} {reason}", flush=True)
        return None
    mask = data["mask"] if setup.subset else None
    ours, theirs = Ours(), []
    load = load_average()
    try:
        measure(data["frame"], data["schema"], models, setup, mask, 1, Ours())  # warm-up
    except InputError as exc:  # a one-line refusal: this configuration is not run, the others are
        print(f"{head} skipped: anonkit refused it: {exc}", flush=True)
        return None
    table, searched = prepared(data["frame"], data["schema"], models, mask)
    arguments = arx_arguments(setup, params, data["rows"]) if arx is not None else []
    for r in range(args.rounds):
        for who in (("arx", "anonkit") if r % 2 == 0 else ("anonkit", "arx")):
            if who == "anonkit":
                measure(data["frame"], data["schema"], models, setup, mask, args.runs, ours)
                measure_search(table, searched, setup, args.runs, ours)
            elif arx is not None and arguments:
                try:
                    theirs.append(arx.run(data["csv"], args.arx_runs, arguments))
                except RuntimeError as exc:  # this configuration goes on without ARX; the others with it
                    print(f"{head} ARX failed, not run again here: {exc}", flush=True)
                    arguments = []
    a_w, a_c, s_c = median(ours.wall), median(ours.cpu), median(ours.search_cpu)
    print(f"{head} anonkit wall {a_w:8.3f} s  cpu {a_c:8.3f} s (medians of {len(ours.wall)}); optimum "
          f"{ours.transformation}, Loss {ours.loss}, suppressed {ours.suppressed:,}; load before {load}", flush=True)
    print(f"  {'':18s} search  wall {median(ours.search_wall):8.3f} s  cpu {s_c:8.3f} s (Flash alone on the encoded "
          "table" + ("" if ours.search_transformation == ours.transformation else ": ANOTHER OPTIMUM "
                     f"{ours.search_transformation}") + ")", flush=True)
    if copies > 1 and setup.note10:
        print(f"  {'':18s} ({setup.note10})")
    if not theirs:
        return setup.name, copies, a_w, a_c, s_c, float("nan"), float("nan"), "ARX not run"
    x_w = median([t.warm[0] for t in theirs])
    x_c = median([t.warm[1] for t in theirs])
    verdict = agree(ours, theirs[-1])
    t = theirs[-1]
    print(f"  {'':18s} ARX     wall {x_w:8.3f} s  cpu {x_c:8.3f} s (median of {len(theirs)} JVMs' medians of runs "
          f"2…{args.arx_runs}); optimum {t.transformation}, Loss {t.loss}, suppressed {t.suppressed:,} — {verdict}",
          flush=True)
    return setup.name, copies, a_w, a_c, s_c, x_w, x_c, verdict


def size_data(copies: int, adult: pd.DataFrame, mask1: np.ndarray, tmp: Path) -> dict:
    """Adult ×``copies`` as a frame and a file, and the research subset's rows in both."""
    mask = np.tile(mask1, copies)
    return {"frame": pd.concat([adult] * copies, ignore_index=True), "mask": mask,
            "csv": replicate(copies, tmp), "rows": write_rows(mask, tmp / f"subset-rows-x{copies}.txt")}


def table(rows: list[tuple], compared: bool) -> None:
    print(f"\nanonkit vs ARX ({'measured here, alternating' if compared else 'ARX not run'}); medians in seconds; "
          f"ratio = anonkit / ARX (search: Flash alone, CPU); load average now {load_average()}")
    print(f"{'config':18} {'size':>5} {'anonkit wall':>12} {'cpu':>7} {'search cpu':>10} {'ARX wall':>8} "
          f"{'cpu':>7} {'wall':>6} {'cpu':>6} {'search':>6}  result")
    for name, copies, a_w, a_c, s_c, x_w, x_c, verdict in rows:
        print(f"{name:18} {'x' + str(copies):>5} {a_w:12.3f} {a_c:7.3f} {s_c:10.3f} {x_w:8.3f} {x_c:7.3f} "
              f"{ratio(a_w, x_w):6.2f} {ratio(a_c, x_c):6.2f} {ratio(s_c, x_c):6.2f}  {verdict}")


def run(args: argparse.Namespace, arx: Arx | None) -> None:
    adult, h = load_adult()
    qi8 = [c for c in adult.columns if c != OCC]
    schema = Schema.of(quasi=qi8, sensitive=[OCC], hierarchies={q: h[q] for q in qi8})
    mask1 = subset_mask(adult, pd.read_csv(SUBSET, sep=";", dtype=str))
    setups = [s for s in SETUPS if s.name in args.configs]
    rows = []
    for copies in args.sizes:
        with tempfile.TemporaryDirectory(prefix="anonkit-critbench-") as name:
            data = {**size_data(copies, adult, mask1, Path(name)), "schema": schema}
            print(f"Adult ×{copies}: {len(data['frame']):,} rows, research subset {int(data['mask'].sum()):,}; "
                  f"{args.rounds} round(s) of {args.runs} anonkit run(s)"
                  + (f" alternating with one ARX JVM of {args.arx_runs} runs" if arx is not None else ""), flush=True)
            for setup in setups:
                row = one_setup(setup, copies, data, args, arx)
                if row is not None:
                    rows.append(row)
    if rows:
        table(rows, arx is not None)


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default=DEFAULT_SIZES, help=f"copies of Adult (default {DEFAULT_SIZES})")
    p.add_argument("--runs", type=int, default=DEFAULT_RUNS, help=f"anonkit's warm runs per round ({DEFAULT_RUNS})")
    p.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS,
                   help=f"rounds alternating anonkit and ARX (default {DEFAULT_ROUNDS})")
    p.add_argument("--arx-runs", type=int, default=DEFAULT_ARX_RUNS,
                   help=f"runs per ARX JVM (default {DEFAULT_ARX_RUNS}; ARX's figure is the median of runs 2…N)")
    p.add_argument("--configs", default=",".join(NAMES), help="comma-separated subset of " + ",".join(NAMES))
    p.add_argument("--arx-classpath", default=None, help="ARX's core classes and jars (default: $ARX_CLASSPATH)")
    p.add_argument("--arx-heap", default=DEFAULT_ARX_HEAP, help=f"the ARX JVM's -Xmx (default {DEFAULT_ARX_HEAP})")
    p.add_argument("--no-arx", action="store_true", help="do not run ARX even if a build is given")
    args = p.parse_args(argv)
    try:
        args.sizes = [int(c) for c in args.sizes.split(",") if c.strip()]
    except ValueError:
        p.error("--sizes takes whole numbers of copies, e.g. 1,10")
    if not args.sizes or any(c < 1 for c in args.sizes):
        p.error("--sizes: at least one size, each at least one copy")
    if args.runs < 1 or args.rounds < 1 or args.arx_runs < 1:
        p.error("--runs, --rounds and --arx-runs take at least 1")
    args.configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    unknown = [c for c in args.configs if c not in NAMES]
    if unknown or not args.configs:
        p.error(f"unknown configuration {unknown[0]!r}; choose from {', '.join(NAMES)}" if unknown
                else "--configs: name at least one configuration")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse(sys.argv[1:] if argv is None else argv)
    arx, note = (None, "ARX was not run (--no-arx)") if args.no_arx else find_arx(args.arx_classpath, args.arx_heap)
    print(note)
    try:
        run(args, arx)
    finally:
        if arx is not None:
            arx.close()


if __name__ == "__main__":
    main()
