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
separately, of the search alone on the encoded table; the transformations checked, the optimum, its
score and the suppressed records. Then one whole ``anonkit anonymize`` process per configuration
(``--no-process`` skips it) and Adult ×10 at 2 %.

ARX: with a class path of ARX's core (``--arx-classpath`` or the ``ARX_CLASSPATH`` environment
variable, e.g. ``/tmp/arx/classes:/tmp/arx/lib/*``; build it as the harness README says, outside this
repository) the harness is compiled into a temporary directory and run in a subprocess — one JVM of
``--arx-runs`` repetitions per round, its median over runs 2…N as the README asks — alternating with
anonkit's runs (``--rounds`` rounds) so machine noise hits both; ARX's figures are printed beside ours
with the ratios. Flash is compared with ARX's Flash (``OPTIMAL``), lightning with ARX's
``BEST_EFFORT_BOTTOM_UP``; OLA, Incognito and Datafly have no ARX counterpart. Without a class path the
script says that ARX was not run.
"""

from __future__ import annotations

import argparse
import json
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

from anonkit import Schema, Table, load_adult
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
        t = time.perf_counter()
        result = anonymize(frame, schema, cfg.models, algorithm=algorithm, max_suppression=cfg.max_suppression)
        into.anonymize.append(time.perf_counter() - t)
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


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main(algorithm: str, args: argparse.Namespace, arx: Arx | None, arx_note: str) -> None:
    frame, hierarchies = load_adult()
    arx_algorithm = ARX_ALGORITHM.get(algorithm, "none")
    compare = arx is not None and arx_algorithm != "none"
    print(f"== {algorithm}: ARX's six configurations on Adult ({len(frame):,} rows), {args.rounds} round(s) of "
          f"{args.runs} warm runs" + (f", alternating with ARX ({args.arx_runs} runs per JVM)" if compare else ""))
    if arx_algorithm == "none":
        print("   (ARX has no counterpart of this algorithm)")
    else:
        print(f"   {arx_note}")
    rows = []
    for name in args.configs:
        cfg = config(name)
        schema = cfg.schema(hierarchies)
        table = Table(frame, schema)
        ours = Ours()
        measure(algorithm, cfg, frame, schema, table, 1, Ours())  # warm-up (JIT kernels, caches)
        arx_runs: list[ArxRun] = []
        for _ in range(args.rounds):
            if compare:
                arx_runs.append(arx.run(name, args.arx_runs, arx_algorithm))
            measure(algorithm, cfg, frame, schema, table, args.runs, ours)
        a = median(ours.anonymize)
        s = median(ours.search)
        line = (f"{name:10} anonymize {a:.3f} s, search {s:.3f} s; checked {ours.checked:,}; optimum "
                f"{ours.transformation}; score {ours.score}; suppressed {ours.suppressed}")
        if arx_runs:
            warm = median([r.warm for r in arx_runs])
            last = arx_runs[-1]
            same = (last.transformation == ours.transformation and last.suppressed == ours.suppressed
                    and float(last.loss) == ours.score)
            line += (f"\n{'':10} ARX {warm:.3f} s (median of {len(arx_runs)} JVMs' medians of runs 2…{args.arx_runs}: "
                     f"{', '.join(f'{r.warm:.3f}' for r in arx_runs)}); checked {last.checked:,}; optimum "
                     f"{last.transformation}; Loss {last.loss}; suppressed {last.suppressed} — "
                     f"{'same result' if same else 'RESULT DIFFERS'}")
            rows.append((name, warm, last.checked, a, s, ours.checked))
        elif arx_algorithm is None:
            warm, checked = ARX_README[name]
            rows.append((name, warm, checked, a, s, ours.checked))
        print(line, flush=True)
        if args.process:
            seconds, code, score = whole_process(algorithm, cfg)
            print(f"{'':10} whole process {seconds:.2f} s (exit {code}, score {score})", flush=True)
    if rows:
        source = "measured here, alternating" if compare else "ARX: the harness README's figures, not run here"
        print(f"\n{algorithm} vs ARX ({source}); ratio = ours / ARX")
        print(f"{'config':10} {'ARX s':>8} {'ours anonymize':>15} {'ratio':>6} {'ours search':>12} {'ratio':>6} "
              f"{'ARX checked':>12} {'ours checked':>13} {'ratio':>6}")
        for name, warm, checked, a, s, ours_checked in rows:
            print(f"{name:10} {warm:8.3f} {a:15.3f} {a / warm:6.2f} {s:12.3f} {s / warm:6.2f} {checked:12,} "
                  f"{ours_checked:13,} {ours_checked / max(checked, 1):6.2f}")
    if args.big:
        big = pd.concat([frame] * 10, ignore_index=True)
        cfg = config("K5_8QI_S2")
        t = time.perf_counter()
        rel = get_algorithm(algorithm)(Table(big, cfg.schema(hierarchies)), cfg.models, max_suppression=0.02)
        print(f"{algorithm} Adult x10 ({len(big):,} rows) K5_8QI_S2: {time.perf_counter() - t:.2f} s incl. encoding "
              f"(score {rel.search.score}, checked {rel.search.counts['checked']:,})")
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
    p.add_argument("--no-process", dest="process", action="store_false", help="skip the whole-process runs")
    p.add_argument("--no-big", dest="big", action="store_false", help="skip Adult x10")
    args = p.parse_args(argv)
    if args.algorithms == ["all"]:
        args.algorithms = list(ALGORITHMS)
    bad = [a for a in args.algorithms if a not in ALGORITHMS]
    if bad:
        p.error(f"unknown algorithm {bad[0]!r}; choose from {', '.join(ALGORITHMS)} or all")
    args.configs = [c.strip() for c in args.configs.split(",") if c.strip()]
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
