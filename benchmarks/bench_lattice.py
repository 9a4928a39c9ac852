"""Full-domain generalization benchmarks (issues 3 and 16): ARX's six Flash configurations on Adult,
side by side with ARX when an ARX build is at hand.

Run: python benchmarks/bench_lattice.py [flash|ola|incognito|datafly|lightning|all] [options]

The configurations are exactly those of ARX's harness (``shared/tools/arx-harness/ArxBenchFile.java``):
Adult (30,162 rows), k-anonymity k = 5, ARX's default metric (Loss, gs 0.5, geometric mean);

* ``K5_8QI_S0`` / ``K5_8QI_S2``: every attribute but salary-class is a quasi-identifier (salary-class
  insensitive), 0 % / 2 % suppression;
* ``K5_9QI_S0`` / ``K5_9QI_S2``: all nine attributes are quasi-identifiers;
* ``KLT_S0`` / ``KLT_S2``: occupation sensitive, the other eight quasi-identifiers, k5 + distinct
  3-diversity + equal-distance 0.2-closeness.

For each, in this process and warm: the median of ``--runs`` calls of :func:`anonkit.anonymize` on the
loaded frame (encoding, search, release, independent verification and the default measures) and,
separately, of the search alone on the encoded table, on numba's kernels (what a long-lived process
switches to after ``anonkit._kernels.NUMBA_AFTER_SECONDS`` of kernel work; ``--kernels numpy``: the
numpy tier a short run stays on); the transformations checked, the optimum, its
score and the suppressed records, and one whole ``anonkit anonymize`` process per configuration.

Whole process at 30 k, 300 k and 3 M rows (``--sizes 1,10,100``: Adult ×1, ×10, ×100 = 30,162, 301,620 and
3,016,200 rows): ``K5_8QI_S2`` (8 QIs, 2 % suppression) on Adult replicated into a ``;``-separated CSV, in
fresh processes as a user runs them (anonkit's bytecode compiled first, as ``pip install .`` does), CSV in and
CSV out: ``anonkit anonymize CONFIG`` against one JVM of ARX's harness doing one run (JVM start, reading, the
search and writing the output included). k is scaled with the copies, k = 5 × multiplier (k = 5, 50, 500), so
that every size has the same classes, optimum, Loss and relative suppression as Adult ×1 and the search is the
same lattice walk (``--fixed-k`` keeps k = 5, where on a replicated table every size from ×5 up is 5-anonymous
untouched). ``--rounds`` rounds (``--big-rounds`` from ×100 up) alternate the two, each first in turn;
printed: the median wall time of each and the ratio anonkit / ARX, the peak resident memory of each process
(``ru_maxrss`` of that child from ``wait4`` in a small launcher: see :func:`timed_child`) and its ratio, and
whether the optimum and the suppressed records agree. Both do somewhat more than the search: anonkit verifies
the release independently and computes its default measures, the harness computes ARX's class and quality
statistics and writes the suppressed records as ``*`` rows (anonkit drops them). ARX's peak depends on its
heap limit (``--arx-heap``, 4g as in the README). ``--no-process`` skips every whole-process run, ``--no-big``
(or ``--sizes ''``) this section only, ``--configs ''`` the six configurations.

ARX: with a class path of ARX's core (``--arx-classpath`` or the ``ARX_CLASSPATH`` environment
variable, e.g. ``/tmp/arx/classes:/tmp/arx/lib/*``; build it as the harness README says, outside this
repository) the harness is compiled into a temporary directory and run in a subprocess — one JVM of
``--arx-runs`` repetitions per round, its median over runs 2…N as the README asks — alternating with
anonkit's runs (``--rounds`` rounds) so machine noise hits both; ARX's figures are printed beside ours
with the ratios. Flash is compared with ARX's Flash (``OPTIMAL``), lightning with ARX's
``BEST_EFFORT_BOTTOM_UP``; OLA, Incognito and Datafly have no ARX counterpart. Without a class path the
script says that ARX was not run. The warm table gives, per configuration, the median of the rounds' pair ratios
(our median ``anonymize()`` of the round / ARX's warm median of the round, wall) and our CPU time; the
whole-process table the pair ratios in wall and in CPU time (``wait4``'s user + system of each process).

A warm call on the same input, on the same file read again and on new data, beside ARX's calling thread's and
JVM's CPU: ``bench_warm_call.py`` (docs/performance.md, "A warm call beside ARX's").
Earlier figures, with S2 and the whole processes at 30 k–3 M rows: docs/performance.md, "Beside ARX".

"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import yaml

from anonkit import Schema, Table, _kernels, load_adult
from anonkit.algorithms import get_algorithm
from anonkit.datasets import adult_path
from anonkit.models import Criterion, DistinctLDiversity, KAnonymity, TCloseness
from anonkit.pipeline import anonymize

ALL = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation",
       "salary-class"]
CONFIGS = ["K5_8QI_S0", "K5_8QI_S2", "K5_9QI_S0", "K5_9QI_S2", "KLT_S0", "KLT_S2"]
ALGORITHMS = ["flash", "ola", "incognito", "datafly", "lightning"]
#: ARX's algorithm for ours (``-Darxbench.algo``; None: ARX's default, Flash)
ARX_ALGORITHM: dict[str, str | None] = {"flash": None, "lightning": "BEST_EFFORT_BOTTOM_UP"}
#: ARX 3.9's figures on this machine kind (harness README, 2026-11-24), when ARX is not run here
ARX_README = {"K5_8QI_S0": (0.036, 142), "K5_8QI_S2": (0.500, 722), "K5_9QI_S0": (0.044, 181),
              "K5_9QI_S2": (1.024, 1245), "KLT_S0": (0.022, 26), "KLT_S2": (0.746, 2120)}
HARNESS = Path(__file__).resolve().parents[2] / "shared" / "tools" / "arx-harness" / "ArxBenchFile.java"


@dataclass
class Config:
    name: str
    qis: list[str]
    sensitive: list[str]
    models: list[Criterion]
    max_suppression: float

    def schema(self, hierarchies: dict) -> Schema:
        rest = [c for c in ALL if c not in self.qis and c not in self.sensitive]
        return Schema.of(quasi=self.qis, sensitive=self.sensitive, insensitive=rest,
                         hierarchies={q: hierarchies[q] for q in self.qis})

    def yaml_models(self) -> list[dict]:
        out: list[dict] = [{"model": "k-anonymity", "k": 5}]
        if self.sensitive:
            s = self.sensitive[0]
            out += [{"model": "l-diversity", "attribute": s, "l": 3},
                    {"model": "t-closeness", "attribute": s, "t": 0.2, "distance": "equal"}]
        return out


def config(name: str) -> Config:
    """ArxBenchFile's configuration ``name`` (module docstring)."""
    qis = list(ALL)
    if "8QI" in name:
        qis.remove("salary-class")
    sensitive: list[str] = []
    models: list[Criterion] = [KAnonymity(5)]
    if name.startswith("KLT"):
        qis.remove("occupation")
        sensitive = ["occupation"]
        models += [DistinctLDiversity("occupation", 3), TCloseness("occupation", 0.2, "equal")]
    return Config(name, qis, sensitive, models, 0.02 if name.endswith("S2") else 0.0)


# ---------------------------------------------------------------------------- ARX
@dataclass
class ArxRun:
    warm: float  # median of runs 2…N of one JVM, seconds
    runs: list[float]
    checked: int
    transformation: list[int]
    loss: str
    suppressed: int


@dataclass
class ProcessRun:
    """One whole process: wall time from spawn to exit, its peak RSS, and its result."""

    seconds: float
    peak: int | None  # bytes, None where wait4 is missing
    code: int
    transformation: list[int]
    suppressed: int
    score: float | None
    checked: int
    read: float  # the process's own figure for reading the input, seconds (ARX: loadMs; anonkit: nan)
    work: float  # the process's own figure for the rest (ARX: anonymize; anonkit: its reported seconds)
    cpu: float = float("nan")  # CPU seconds of the whole process (user + system, every thread)


#: a minimal launcher (``python -S``, about 10 MB) that forks and execs the command, waits for it with
#: ``wait4`` and writes its wall time and ``ru_maxrss`` to the file named first
LAUNCHER = (
    "import os, sys, time\n"
    "t = time.perf_counter()\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    os.execvp(sys.argv[2], sys.argv[2:])\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "seconds = time.perf_counter() - t\n"
    "with open(sys.argv[1], 'w') as f:\n"
    "    f.write(f'{seconds} {usage.ru_maxrss} {usage.ru_utime + usage.ru_stime}')\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


def timed_child(cmd: list[str]) -> tuple[float, int | None, int, str, str, float]:
    """Run ``cmd`` to its end: (wall seconds, its peak RSS in bytes, exit code, stdout, stderr, its CPU
    seconds: user + system of the child and every thread, from the same ``wait4``).

    The peak is ``ru_maxrss`` of this child alone, from ``wait4`` in a small launcher process
    (:data:`LAUNCHER`): Linux carries the peak of the process that forks across ``exec`` into the
    child's ``ru_maxrss``, so a child forked from this benchmark (which holds Adult and its tables,
    0.6 GB) would report at least that. The wall time is the launcher's, from fork to exit."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r", suffix=".txt") as facts:
        if not hasattr(os, "wait4") or not hasattr(os, "fork"):
            t = time.perf_counter()
            child = subprocess.run(cmd, stdout=out, stderr=err)
            seconds, peak, code = time.perf_counter() - t, None, child.returncode
            cpu = float("nan")
        else:
            code = subprocess.run([sys.executable, "-S", "-c", LAUNCHER, facts.name, *cmd], stdout=out,
                                  stderr=err).returncode
            wall, maxrss, used = facts.read().split()
            seconds, peak, cpu = float(wall), int(maxrss) * (1 if sys.platform == "darwin" else 1024), float(used)
        out.seek(0)
        err.seek(0)
        return (seconds, peak, code, out.read().decode(errors="replace"), err.read().decode(errors="replace"), cpu)


class Arx:
    """ARX's harness compiled against ``classpath``, run one JVM at a time."""

    def __init__(self, classpath: str, harness: Path) -> None:
        self.classpath = classpath
        self.dir = Path(tempfile.mkdtemp(prefix="anonkit-arxbench-"))
        shutil.copy(harness, self.dir / harness.name)
        out = subprocess.run(["javac", "-nowarn", "-cp", classpath, "-d", str(self.dir), str(self.dir / harness.name)],
                             capture_output=True, text=True)
        if out.returncode:
            raise RuntimeError(f"javac failed on the ARX harness:\n{out.stderr[-2000:]}")
        self.data = adult_path().parent

    def run(self, name: str, runs: int, algorithm: str | None) -> ArxRun:
        cmd = ["java", "-Xmx4g"]
        if algorithm is not None:
            cmd.append(f"-Darxbench.algo={algorithm}")
        cmd += ["-cp", f"{self.classpath}{os.pathsep}{self.dir}", "ArxBenchFile", str(self.data), name, str(runs)]
        out = subprocess.run(cmd, capture_output=True, text=True)
        text = out.stdout
        if out.returncode or "anonymizeMsPerRun" not in text:
            raise RuntimeError(f"ARX harness failed on {name}:\n{out.stderr[-2000:]}{text[-2000:]}")

        def number(key: str) -> str:
            m = re.search(rf"\b{re.escape(key)}=(\S+)", text)
            return m.group(1) if m else "-1"

        runs_ms = [float(x) / 1000 for x in re.search(r"anonymizeMsPerRun=\[([^\]]*)\]", text).group(1).split(",")]
        warm = statistics.median(runs_ms[1:] if len(runs_ms) > 1 else runs_ms)
        m = re.search(r"optimumTransformation=\[([^\]]*)\]", text)
        transformation = [int(x) for x in m.group(1).split(",") if x.strip()] if m else []
        return ArxRun(warm, runs_ms, int(number("checked")), transformation, number("optimumLoss(highestScore)"),
                      int(number("suppressedRows")))

    def process(self, csv: Path, k: int, out: Path, algorithm: str | None, heap: str) -> ProcessRun:
        """One JVM of the harness doing one run on ``csv`` and writing the release to ``out`` (whole process)."""
        cmd = ["java", f"-Xmx{heap}", f"-Darxbench.file={csv}", f"-Darxbench.k={k}"]
        if algorithm is not None:
            cmd.append(f"-Darxbench.algo={algorithm}")
        cmd += ["-cp", f"{self.classpath}{os.pathsep}{self.dir}", "ArxBenchFile", str(self.data), "K5_8QI_S2", "1",
                str(out)]
        seconds, peak, code, text, err, cpu = timed_child(cmd)
        if code or "optimumTransformation" not in text:
            raise RuntimeError(f"ARX harness failed on {csv.name}:\n{err[-2000:]}{text[-2000:]}")

        def field_(key: str) -> str:
            m = re.search(rf"\b{re.escape(key)}=(\S+)", text)
            return m.group(1) if m else "-1"

        m = re.search(r"optimumTransformation=\[([^\]]*)\]", text)
        m_ms = re.search(r"anonymizeMsPerRun=\[([^\]]*)\]", text)
        return ProcessRun(seconds, peak, code, [int(x) for x in m.group(1).split(",") if x.strip()],
                          int(field_("suppressedRows")), float(field_("optimumLoss(highestScore)")),
                          int(field_("checked")), float(field_("loadMs")) / 1000,
                          float(m_ms.group(1).split(",")[0]) / 1000 if m_ms else float("nan"), cpu)

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


def find_arx(option: str | None) -> tuple[Arx | None, str]:
    classpath = option or os.environ.get("ARX_CLASSPATH")
    if not classpath:
        return None, ("ARX was not run: no ARX build given (set ARX_CLASSPATH or --arx-classpath to ARX's compiled "
                      "core classes and its jars, see shared/tools/arx-harness/README.md); ARX's figures below "
                      "are the README's")
    if not HARNESS.exists():
        return None, f"ARX was not run: the harness {HARNESS} is missing"
    if shutil.which("java") is None or shutil.which("javac") is None:
        return None, "ARX was not run: java/javac not found"
    try:
        return Arx(classpath, HARNESS), f"ARX: {classpath}"
    except RuntimeError as exc:
        return None, f"ARX was not run: {exc}"


# ---------------------------------------------------------------------------- anonkit
@dataclass
class Ours:
    anonymize: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # CPU seconds of each anonymize() (this process)
    search: list[float] = field(default_factory=list)
    checked: int = 0
    transformation: list[int] = field(default_factory=list)
    score: object = None
    suppressed: int = 0


def measure(algorithm: str, cfg: Config, frame: pd.DataFrame, schema: Schema, table: Table, runs: int,
            into: Ours) -> None:
    """``runs`` warm calls of anonymize() and of the search alone, appended to ``into``."""
    run = get_algorithm(algorithm)
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        result = anonymize(frame, schema, cfg.models, algorithm=algorithm, max_suppression=cfg.max_suppression)
        into.anonymize.append(time.perf_counter() - t)
        into.cpu.append(time.process_time() - c)
        t = time.perf_counter()
        rel = run(table, cfg.models, max_suppression=cfg.max_suppression)
        into.search.append(time.perf_counter() - t)
    counts = rel.search.counts if rel.search is not None else {}
    into.checked = int(counts.get("checked", -1))
    into.transformation = [int(rel.transformation[q]) for q in table.qi] if rel.transformation else []
    into.score = rel.search.score if rel.search is not None else None
    into.suppressed = rel.n_suppressed
    assert result.summary["score"] == into.score, (result.summary["score"], into.score)


def whole_process(algorithm: str, cfg: Config) -> tuple[float, int, object]:
    """One ``anonkit anonymize`` process on the configuration (seconds, exit code, score)."""
    with tempfile.TemporaryDirectory() as tmp:
        attributes = {**{q: {"role": "quasi"} for q in cfg.qis}, **{s: {"role": "sensitive"} for s in cfg.sensitive},
                      **{c: {"role": "insensitive"} for c in ALL if c not in cfg.qis and c not in cfg.sensitive}}
        doc = {"input": {"dataset": "adult"}, "attributes": attributes, "privacy": cfg.yaml_models(),
               "algorithm": {"name": algorithm, "max_suppression": cfg.max_suppression},
               "output": {"path": str(Path(tmp) / "out.csv")}}
        (Path(tmp) / "c.yaml").write_text(yaml.safe_dump(doc))
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "anonkit", "anonymize", str(Path(tmp) / "c.yaml"), "--json"],
                             capture_output=True, text=True)
        seconds = time.perf_counter() - t
    summary = json.loads(out.stdout) if out.stdout.strip().startswith("{") else {}
    return seconds, out.returncode, summary.get("score")


def anonkit_command() -> list[str]:
    """``anonkit`` as a user runs it: the console script beside this interpreter, else ``python -m anonkit``."""
    script = Path(sys.executable).with_name("anonkit")
    return [str(script)] if script.exists() else [sys.executable, "-m", "anonkit"]


def anonkit_process(algorithm: str, csv: Path, k: int, out: Path, tmp: Path) -> ProcessRun:
    """One ``anonkit anonymize CONFIG`` process: K5_8QI_S2 with k = ``k`` on ``csv`` (``;``), release to ``out``."""
    cfg = config("K5_8QI_S2")
    data = adult_path().parent
    attributes = {**{q: {"role": "quasi", "hierarchy": str(data / f"adult_hierarchy_{q}.csv")} for q in cfg.qis},
                  **{c: {"role": "insensitive"} for c in ALL if c not in cfg.qis}}
    doc = {"input": {"path": str(csv), "separator": ";"}, "attributes": attributes,
           "privacy": [{"model": "k-anonymity", "k": k}],
           "algorithm": {"name": algorithm, "max_suppression": cfg.max_suppression},
           "output": {"path": str(out), "separator": ";"}}
    path = tmp / f"anonkit-{algorithm}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    seconds, peak, code, text, err, cpu = timed_child([*anonkit_command(), "anonymize", str(path), "--json"])
    summary = json.loads(text) if text.strip().startswith("{") else {}
    if code or not summary:
        raise RuntimeError(f"anonkit anonymize failed on {csv.name} (exit {code}):\n{err[-2000:]}{text[-2000:]}")
    transformation = summary.get("transformation") or {}
    return ProcessRun(seconds, peak, code, [int(transformation[q]) for q in cfg.qis if q in transformation],
                      int(summary.get("suppressed", -1)), summary.get("score"),
                      int((summary.get("lattice") or {}).get("checked", -1)), float("nan"),
                      float(summary.get("total_seconds", summary.get("seconds", float("nan")))), cpu)


def replicate(copies: int, into: Path) -> Path:
    """Adult's CSV (``;``) with its rows repeated ``copies`` times, in ``into``."""
    lines = adult_path().read_text(encoding="utf-8").splitlines(keepends=True)
    body = "".join(lines[1:])
    if not body.endswith("\n"):
        body += "\n"
    path = into / f"adult-x{copies}.csv"
    with path.open("w", encoding="utf-8") as f:
        f.write(lines[0])
        for _ in range(copies):
            f.write(body)
    return path


def megabytes(peak: int | None) -> float:
    return peak / 2**20 if peak is not None else float("nan")


def compile_bytecode() -> str:
    """Compile anonkit's modules to bytecode, as ``pip install .`` does, so that the whole processes
    load them as an installed package does: an editable install under ``PYTHONDONTWRITEBYTECODE``
    (set on this machine kind) would compile every module from source in every process (0.2–0.3 s)."""
    import compileall

    import anonkit

    package = Path(anonkit.__file__).parent
    ok = compileall.compile_dir(package, quiet=1)
    return f"anonkit's bytecode compiled in {package} (as pip install does)" if ok else "compiling anonkit failed"


def sizes_section(algorithm: str, args: argparse.Namespace, arx: Arx | None, arx_note: str) -> None:
    """Whole process at Adult × each of ``args.sizes``: anonkit and ARX's harness alternating (module docstring)."""
    arx_algorithm = ARX_ALGORITHM.get(algorithm, "none")
    compare = arx is not None and arx_algorithm != "none"
    k_rule = "k = 5 at every size" if args.fixed_k else "k = 5 × copies"
    print(f"\n== {algorithm}: whole process, K5_8QI_S2 (8 QIs, 2 % suppression, {k_rule}) on Adult × "
          f"{', '.join(map(str, args.sizes))}, CSV (;) in, CSV out, fresh processes, {args.rounds} round(s)"
          + (" alternating with one ARX JVM per run (JVM start included)" if compare else ""))
    print(f"   {compile_bytecode()}")
    if arx_algorithm == "none":
        print("   (ARX has no counterpart of this algorithm)")
    elif not compare:
        print(f"   {arx_note.split(';')[0]}; for reference, ARX's README: Adult ×100 (its optimum that of ×1) "
              "whole process 19–20 s")
    print(f"   anonkit: {' '.join(anonkit_command())} anonymize CONFIG --json"
          + (f"; ARX: java -Xmx{args.arx_heap} ArxBenchFile (1 run, release written)" if compare else ""), flush=True)
    table = []
    for copies in args.sizes:
        k = 5 if args.fixed_k else 5 * copies
        rounds = args.rounds if args.big_rounds is None or copies < 100 else args.big_rounds
        with tempfile.TemporaryDirectory(prefix="anonkit-latbench-") as name:
            tmp = Path(name)
            csv = replicate(copies, tmp)
            rows = 30162 * copies
            ours: list[ProcessRun] = []
            theirs: list[ProcessRun] = []
            for r in range(rounds):
                order = ["arx", "anonkit"] if r % 2 == 0 else ["anonkit", "arx"]
                for who in order:
                    if who == "arx" and compare:
                        theirs.append(arx.process(csv, k, tmp / "arx-out.csv", arx_algorithm, args.arx_heap))
                        (tmp / "arx-out.csv").unlink(missing_ok=True)
                    elif who == "anonkit":
                        ours.append(anonkit_process(algorithm, csv, k, tmp / "anonkit-out.csv", tmp))
                        (tmp / "anonkit-out.csv").unlink(missing_ok=True)
        o = ours[-1]
        a_s = median([x.seconds for x in ours])
        a_m = max((x.peak or 0) for x in ours) or None
        line = (f"x{copies:<4} {rows:>10,} rows, k = {k}: anonkit {a_s:.2f} s (runs "
                f"{', '.join(f'{x.seconds:.2f}' for x in ours)}; its own figure "
                f"{median([x.work for x in ours]):.2f} s), "
                f"peak {megabytes(a_m):,.0f} MB; optimum {o.transformation}, score {o.score}, suppressed "
                f"{o.suppressed:,}, checked {o.checked:,}")
        if theirs:
            t = theirs[-1]
            x_s = median([x.seconds for x in theirs])
            x_m = max((x.peak or 0) for x in theirs) or None
            same = (t.transformation == o.transformation and t.suppressed == o.suppressed and o.score is not None
                    and math.isclose(float(o.score), t.score, rel_tol=1e-9))
            line += (f"\n{'':5} ARX {x_s:.2f} s (runs {', '.join(f'{x.seconds:.2f}' for x in theirs)}; of which "
                     f"reading {median([x.read for x in theirs]):.2f} s, anonymize "
                     f"{median([x.work for x in theirs]):.2f} s), "
                     f"peak {megabytes(x_m):,.0f} MB; optimum {t.transformation}, Loss {t.score}, suppressed "
                     f"{t.suppressed:,}, checked {t.checked:,} — {'same result' if same else 'RESULT DIFFERS'}")
            pair = median([o_.seconds / t_.seconds for o_, t_ in zip(ours, theirs, strict=False)])
            cpu_pair = median([o_.cpu / t_.cpu for o_, t_ in zip(ours, theirs, strict=False)])
            line += (f"\n{'':5} CPU: anonkit {median([x.cpu for x in ours]):.2f} s, "
                     f"ARX {median([x.cpu for x in theirs]):.2f} s; "
                     f"pair ratios wall {pair:.2f}, CPU {cpu_pair:.2f}; load average {os.getloadavg()[0]:.1f}")
            table.append((copies, rows, k, len(ours), x_s, a_s, x_m, a_m, same, pair, cpu_pair))
        else:
            table.append((copies, rows, k, len(ours), float("nan"), a_s, None, a_m, None, float("nan"), float("nan")))
        print(line, flush=True)
    if table:
        print(f"\nWhole process, {algorithm} vs ARX ({'measured here, alternating' if compare else 'ARX not run'}); "
              "ratio = anonkit / ARX; time: median wall seconds and the median of the rounds' pair ratios (wall, "
              "CPU), memory: the largest peak RSS over the runs")
        print(f"{'size':6} {'rows':>10} {'k':>4} {'runs':>4} {'ARX s':>7} {'anonkit s':>9} {'ratio':>6} {'pairs':>6} "
              f"{'CPU':>6} {'ARX MB':>7} {'anonkit MB':>10} {'ratio':>6}  result")
        for copies, rows, k, n, x_s, a_s, x_m, a_m, same, pair, cpu_pair in table:
            ratio = a_s / x_s if x_s == x_s else float("nan")
            m_ratio = a_m / x_m if a_m and x_m else float("nan")
            verdict = "-" if same is None else "same" if same else "DIFFERS"
            print(f"{'x' + str(copies):6} {rows:10,} {k:4} {n:4} {x_s:7.2f} {a_s:9.2f} {ratio:6.2f} {pair:6.2f} "
                  f"{cpu_pair:6.2f} {megabytes(x_m):7,.0f} {megabytes(a_m):10,.0f} {m_ratio:6.2f}  {verdict}")


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main(algorithm: str, args: argparse.Namespace, arx: Arx | None, arx_note: str) -> None:
    frame, hierarchies = load_adult()
    arx_algorithm = ARX_ALGORITHM.get(algorithm, "none")
    compare = arx is not None and arx_algorithm != "none"
    if args.configs:
        print(f"== {algorithm}: ARX's six configurations on Adult ({len(frame):,} rows), {args.rounds} round(s) of "
              f"{args.runs} warm runs" + (f", alternating with ARX ({args.arx_runs} runs per JVM)" if compare else ""))
        print("   (ARX has no counterpart of this algorithm)" if arx_algorithm == "none" else f"   {arx_note}")
    # the warm figures of a long-lived process: numba's kernels (a process switches to them after
    # NUMBA_AFTER_SECONDS of kernel work); --kernels numpy: the tier a short run stays on
    _kernels.use_numba(args.kernels == "numba")
    if args.kernels == "numpy":
        _kernels.NUMBA_AFTER_SECONDS = float("inf")
    if args.configs:
        print(f"   warm runs on the {args.kernels} tier of the lattice kernels (--kernels)")
        if args.process:
            print(f"   whole processes: {compile_bytecode()}")
    rows = []
    for name in args.configs:
        cfg = config(name)
        schema = cfg.schema(hierarchies)
        table = Table(frame, schema)
        ours = Ours()
        measure(algorithm, cfg, frame, schema, table, 1, Ours())  # warm-up (JIT kernels, caches)
        arx_runs: list[ArxRun] = []
        pairs: list[float] = []  # per round: our median anonymize() / ARX's warm anonymize() of that round
        loads: list[float] = []
        for r in range(args.rounds):
            mine = Ours()
            for who in (["arx", "anonkit"] if r % 2 == 0 else ["anonkit", "arx"]):  # each first in turn
                if who == "arx" and compare:
                    arx_runs.append(arx.run(name, args.arx_runs, arx_algorithm))
                elif who == "anonkit":
                    measure(algorithm, cfg, frame, schema, table, args.runs, mine)
            for key in ("anonymize", "cpu", "search"):
                getattr(ours, key).extend(getattr(mine, key))
            ours.checked, ours.transformation, ours.score, ours.suppressed = (
                mine.checked, mine.transformation, mine.score, mine.suppressed)
            loads.append(os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan"))
            if compare:
                pairs.append(median(mine.anonymize) / arx_runs[-1].warm)
        a = median(ours.anonymize)
        c = median(ours.cpu)
        s = median(ours.search)
        line = (f"{name:10} anonymize {a:.3f} s (CPU {c:.3f} s), search {s:.3f} s; checked {ours.checked:,}; optimum "
                f"{ours.transformation}; score {ours.score}; suppressed {ours.suppressed}; load average "
                f"{', '.join(f'{x:.1f}' for x in loads)}")
        if arx_runs:
            warm = median([r.warm for r in arx_runs])
            last = arx_runs[-1]
            same = (last.transformation == ours.transformation and last.suppressed == ours.suppressed
                    and float(last.loss) == ours.score)
            line += (f"\n{'':10} ARX {warm:.3f} s (median of {len(arx_runs)} JVMs' medians of runs 2…{args.arx_runs}: "
                     f"{', '.join(f'{r.warm:.3f}' for r in arx_runs)}); checked {last.checked:,}; optimum "
                     f"{last.transformation}; Loss {last.loss}; suppressed {last.suppressed} — "
                     f"{'same result' if same else 'RESULT DIFFERS'}; pair ratios "
                     f"{', '.join(f'{x:.2f}' for x in pairs)}")
            rows.append((name, warm, last.checked, a, c, s, ours.checked, median(pairs)))
        elif arx_algorithm is None:
            warm, checked = ARX_README[name]
            rows.append((name, warm, checked, a, c, s, ours.checked, a / warm))
        print(line, flush=True)
        if args.process:
            seconds, code, score = whole_process(algorithm, cfg)
            print(f"{'':10} whole process {seconds:.2f} s (exit {code}, score {score})", flush=True)
    if rows:
        source = "measured here, alternating" if compare else "ARX: the harness README's figures, not run here"
        print(f"\n{algorithm} vs ARX ({source}); ratio = ours / ARX (anonymize: the median of the rounds' pair "
              "ratios, wall); ours CPU: anonymize()'s CPU seconds in this process (ARX's JVM runs its warm calls "
              "on one thread: its wall time is its CPU time on an idle core)")
        print(f"{'config':10} {'ARX s':>8} {'ours anonymize':>15} {'CPU':>6} {'ratio':>6} {'ours search':>12} "
              f"{'ratio':>6} {'ARX checked':>12} {'ours checked':>13} {'ratio':>6}")
        for name, warm, checked, a, c, s, ours_checked, ratio in rows:
            print(f"{name:10} {warm:8.3f} {a:15.3f} {c:6.3f} {ratio:6.2f} {s:12.3f} {s / warm:6.2f} {checked:12,} "
                  f"{ours_checked:13,} {ours_checked / max(checked, 1):6.2f}")
    if args.process and args.big and args.sizes:
        sizes_section(algorithm, args, arx, arx_note)
    print()


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("algorithms", nargs="*", default=["flash"], help="flash|ola|incognito|datafly|lightning|all")
    p.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated subset of " + ",".join(CONFIGS))
    p.add_argument("--rounds", type=int, default=3, help="rounds alternating ARX and anonkit (default 3)")
    p.add_argument("--runs", type=int, default=7, help="anonkit's warm runs per round (default 7)")
    p.add_argument("--arx-runs", type=int, default=20, help="runs per ARX JVM (default 20; median of 2…N)")
    p.add_argument("--arx-classpath", default=None, help="ARX's core classes and jars (default: $ARX_CLASSPATH)")
    p.add_argument("--no-arx", action="store_true", help="do not run ARX even if a build is given")
    p.add_argument("--no-process", dest="process", action="store_false",
                   help="skip every whole-process run (per configuration and --sizes)")
    p.add_argument("--sizes", default="1,10,100",
                   help="whole process on Adult x each of these copies (default 1,10,100; '' skips)")
    p.add_argument("--big-rounds", type=int, default=None,
                   help="rounds for sizes from x100 up (default: --rounds)")
    p.add_argument("--fixed-k", action="store_true", help="k = 5 at every size (default: k = 5 x copies)")
    p.add_argument("--arx-heap", default="4g", help="the ARX JVM's -Xmx in the whole-process runs (default 4g)")
    p.add_argument("--no-big", dest="big", action="store_false", help="skip the --sizes section")
    p.add_argument("--kernels", choices=["numba", "numpy"], default="numba",
                   help="the tier of the lattice kernels in the warm runs (default numba, what a long-lived "
                        "process switches to; whole processes choose their own)")
    args = p.parse_args(argv)
    if args.algorithms == ["all"]:
        args.algorithms = list(ALGORITHMS)
    bad = [a for a in args.algorithms if a not in ALGORITHMS]
    if bad:
        p.error(f"unknown algorithm {bad[0]!r}; choose from {', '.join(ALGORITHMS)} or all")
    args.configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    try:
        args.sizes = [int(c) for c in args.sizes.split(",") if c.strip()]
    except ValueError:
        p.error("--sizes takes whole numbers of copies, e.g. 1,10,100")
    if any(c < 1 for c in args.sizes):
        p.error("--sizes: at least one copy")
    if any(c not in CONFIGS for c in args.configs):
        p.error(f"configurations are {', '.join(CONFIGS)}")
    return args


if __name__ == "__main__":
    arguments = parse(sys.argv[1:])
    if arguments.no_arx:
        runner, note = None, "ARX was not run (--no-arx)"
    else:
        runner, note = find_arx(arguments.arx_classpath)
    if runner is None:
        print(note)
    try:
        for name in arguments.algorithms:
            main(name, arguments, runner, note)
    finally:
        if runner is not None:
            runner.close()
