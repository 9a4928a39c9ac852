"""A warm ``anonymize()`` beside ARX's (issue 30, item 3): on the same input, on a new input of the same content,
and on a new input of other content (the records in another order).

Run: python benchmarks/bench_warm_call.py [--configs K5_8QI_S0,K5_9QI_S0,KLT_S0] [--rounds 3] [--runs 9]
                                          [--arx-runs 30] [--arx-classpath CP] [--kernels numba|numpy]
                                          [--ways same,new,shuffled,shuffled-str] [--one-process]

ARX's six Flash configurations on Adult (``bench_lattice.py``'s module docstring), three ways:

* **same input**: every call on one object. Ours: one DataFrame, so the encoding of the unchanged frame and the
  memos per table are reused (:mod:`anonkit.runner._encoding_reuse`); ARX: one ``Data``, whose handle keeps
  its dictionary of the texts between calls.
* **new input**: every call on a new object of the same content. Ours: a DataFrame read again from the CSV
  before every call, untimed (a new string object in every cell: nothing keyed by the table or by the
  columns' memory can hit; the value-keyed memos of the hierarchies still do); ARX: a new ``Data`` built from
  the same in-memory text rows, timed (its encoding of the texts is in the call), the ``Hierarchy`` objects
  reused.
* **shuffled input**: as the new input, the records in another order every call (the CSV's lines shuffled,
  seeded with the call's number, and read as Adult is read, untimed: new objects, laid out in their rows'
  order as a file read gives them). Ours: the distinct tuples come in another order, so the memos keyed by their
  content (:mod:`anonkit.algorithms.rollup`'s shared groupings) miss too and only those keyed by the
  hierarchies' content hit: the cost of new data of this size. ARX: the same shuffle of its rows.
* **shuffled-str input**: the shuffled input as ``pd.read_csv(..., dtype=str)`` gives it, without the cast to
  ``object`` that :func:`~anonkit.datasets.adult.load_adult` makes: pandas' own text dtype (pandas 3: ``str``,
  held by pyarrow when it is installed, as it is with anonkit), the columns a user who reads a file with pandas
  hands over. ARX has no such choice (its rows are Java strings either way): its figure is the shuffled input's
  of the same round.

ARX runs through our harness ``benchmarks/arx/ArxCallBench.java`` (our code on ARX's public API), compiled
against ``--arx-classpath`` or ``ARX_CLASSPATH`` (an ARX build made outside this repository, as
``shared/tools/arx-harness/README.md`` says): one JVM per configuration and way per round, of ``--arx-runs``
calls, its calling thread's CPU (``ThreadMXBean``), its whole JVM's CPU (every thread's: the garbage
collector's and the compiler's included, as our process's CPU includes freeing objects; its clock ticks in
10 ms, so this one is the mean) and wall time, the median of the second half of the calls
(ARX's JIT keeps speeding up for about ten calls). Ours: one fresh process per configuration and way in every
round, as ARX's JVMs (``--one-process``: one for the whole round, the protocol of the figures measured
before the last ones of 2026-11-29; what the earlier configurations leave in that process, memos and a larger
heap, cost ``KLT_S0`` about 2 ms a call on new data), on the tier a long-lived process uses (numba, ``--kernels``), two
calls to warm up, then the median of ``--runs`` calls, CPU (``time.process_time``) and wall. The last call's
result, and with it the input it holds, is released before the
timer starts: freeing the last input's objects (271,000 text objects of a shuffled input: about 3 ms) is not this
call's work, as ARX leaves its last results to its collector's threads (counted in its JVM's CPU, not in its
calling thread's). What a call frees of its own making is counted. The rounds alternate which side goes
first; printed are the medians over the rounds and the median of the rounds' pair ratios (ours / ARX), CPU and
wall, with the load average. Without an ARX class path the script prints our figures alone and says that ARX
was not run.

Measured 2026-11-29 (numba tier, load during the runs in the printout): see docs/performance.md, "A warm call
beside ARX's".
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_lattice  # noqa: E402
from bench_lattice import CONFIGS, config  # noqa: E402

from anonkit import _kernels, anonymize  # noqa: E402
from anonkit.datasets.adult import adult_path, load_adult  # noqa: E402

HARNESS = HERE / "arx" / "ArxCallBench.java"
WAYS = ("same", "new", "shuffled", "shuffled-str")
#: the ways ARX runs (``ArxCallBench``'s argument); the others take the figures of the ARX way named here
ARX_WAY = {"shuffled-str": "shuffled"}
DEFAULT_CONFIGS = "K5_8QI_S0,K5_9QI_S0,KLT_S0"


def shuffled(seed: int, *, text: str = "object") -> pd.DataFrame:
    """Adult read as :func:`~anonkit.datasets.adult.load_adult` reads it, from its lines in another order
    (the header first; numpy's generator seeded with ``seed``). ``text="str"``: the columns as pandas reads
    text by itself (pandas 3's ``str`` dtype), not cast to ``object``."""
    header, *lines = adult_path().read_text(encoding="utf-8").splitlines()
    order = np.random.default_rng(seed).permutation(len(lines))
    data = "\n".join([header, *(lines[j] for j in order)]) + "\n"
    frame = pd.read_csv(io.StringIO(data), sep=";", dtype=str, keep_default_na=False)
    return frame if text == "str" else frame.astype(object)


def way_input(way: str, i: int, frame: pd.DataFrame) -> pd.DataFrame:
    """The input of call ``i`` of a way (see the module docstring); ``frame``: the same input's."""
    if way == "same":
        return frame
    if way == "new":  # read again: new objects
        return load_adult()[0]
    return shuffled(i, text="str" if way == "shuffled-str" else "object")


def ours(names: list[str], runs: int, kernels: str, ways: tuple[str, ...] = WAYS) -> dict[str, dict[str, object]]:
    """Our calls in this process: per configuration and way (of ``ways``), the CPU and wall milliseconds of
    ``runs`` warm calls, and the optimum."""
    _kernels.use_numba(kernels == "numba")
    if kernels == "numpy":
        _kernels.NUMBA_AFTER_SECONDS = float("inf")
    frame, hierarchies = load_adult()
    out: dict[str, dict[str, object]] = {}
    for name in names:
        cfg = config(name)
        schema = cfg.schema(hierarchies)
        got: dict[str, object] = {}
        for way in ways:
            cpu, wall = [], []
            result = None
            for i in range(runs + 2):  # two calls to warm up
                data = way_input(way, i, frame)  # untimed
                result = None  # the last call's result, and the input it holds, freed untimed
                t, c = time.perf_counter(), time.process_time()
                result = anonymize(data, schema, cfg.models, algorithm="flash", max_suppression=cfg.max_suppression)
                if i >= 2:
                    wall.append((time.perf_counter() - t) * 1000)
                    cpu.append((time.process_time() - c) * 1000)
            got[way] = {"cpu": statistics.median(cpu), "wall": statistics.median(wall)}
        transformation = result.summary["transformation"]
        got["optimum"] = [int(transformation[q]) for q in cfg.qis]
        got["score"] = result.summary["score"]
        out[name] = got
    return out


def parse_arx(text: str) -> dict[str, object]:
    """The harness's printout: the median CPU (its calling thread's) and wall milliseconds of the second half
    of its calls, the mean of its JVM's CPU over them (that clock ticks in 10 ms, longer than a call: only
    the total over many calls is exact), the optimum and its Loss."""
    def listed(key: str) -> list[float]:
        m = re.search(rf"^{key}=\[([^\]]*)\]", text, re.M)
        if m is None:
            raise RuntimeError(f"the ARX harness printed no {key}:\n{text[-2000:]}")
        return [float(x) / 1000 for x in m.group(1).split(",")]

    cpu, process, wall = listed("cpuUs"), listed("processCpuUs"), listed("wallUs")
    half = len(cpu) // 2
    optimum = re.search(r"^optimum=\[([^\]]*)\]", text, re.M)
    loss = re.search(r"^loss=(\S+)", text, re.M)
    return {"cpu": statistics.median(cpu[half:]), "process": statistics.fmean(process[half:]),
            "wall": statistics.median(wall[half:]),
            "optimum": [int(x) for x in optimum.group(1).split(",")] if optimum else None,
            "score": float(loss.group(1)) if loss else None}


class Arx(bench_lattice.Arx):
    """Our harness (:data:`HARNESS`) compiled against ``classpath`` as ``bench_lattice``'s is, one JVM per
    configuration and way."""

    def __init__(self, classpath: str) -> None:
        super().__init__(classpath, HARNESS)

    def call(self, name: str, way: str, runs: int) -> dict[str, object]:
        cmd = ["java", "-Xmx4g", "-cp", f"{self.classpath}{os.pathsep}{self.dir}", "ArxCallBench",
               str(self.data), name, str(runs), way]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode:
            raise RuntimeError(f"the ARX harness failed on {name} ({way}):\n{out.stderr[-2000:]}")
        return parse_arx(out.stdout)


def child(names: list[str], runs: int, kernels: str, ways: tuple[str, ...] = WAYS) -> dict[str, dict[str, object]]:
    """``ours`` in a fresh process (nothing kept from another round, configuration or way)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--configs", ",".join(names),
           "--runs", str(runs), "--kernels", kernels, "--ways", ",".join(ways)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"our measuring process failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _our_processes(args: argparse.Namespace) -> Iterator[tuple[str, str, dict[str, object]]]:
    """Our figures of a round, per configuration and way: one fresh process per configuration and way, as ARX
    runs one JVM for each (what an earlier configuration or way left in the process, its memos and its heap,
    does not reach the next), or all of them in one process with ``--one-process``."""
    if args.one_process:
        for name, figures in child(args.names, args.runs, args.kernels, args.ways).items():
            for way in args.ways:
                yield name, way, figures
        return
    for name in args.names:
        for way in args.ways:
            yield name, way, child([name], args.runs, args.kernels, (way,))[name]


def ratio_line(label: str, arx: list[dict], mine: list[dict], key: str) -> str:
    """One way's figures: medians over the rounds, and the median of the rounds' pair ratios. ``key``: ``cpu``
    (ARX's calling thread), ``process`` (ARX's whole JVM, its collector's and compiler's threads included) or
    ``wall``; ours is this process's CPU time for both CPU keys."""
    own = "cpu" if key == "process" else key
    a, m = statistics.median(r[key] for r in arx), statistics.median(r[own] for r in mine)
    pairs = statistics.median(x[own] / y[key] for x, y in zip(mine, arx, strict=True))
    name = {"cpu": "CPU (ARX's thread)", "process": "CPU (ARX's JVM)", "wall": "wall"}[key]
    return f"{label} {name:18}: ARX {a:7.1f} ms  ours {m:7.1f} ms  ratio {pairs:5.2f}"


def report(names: list[str], got: dict[tuple[str, str, str], list[dict]], loads: list[float], rounds: int,
           compare: bool, ways: tuple[str, ...] = WAYS) -> None:
    print(f"\nmedians over {rounds} round(s); load average {min(loads):.2f}–{max(loads):.2f}")
    for name in names:
        print(name)
        for way in ways:
            mine = got[("ours", way, name)]
            if not compare:
                print(f"  {way:12} input: ours CPU {statistics.median(r['cpu'] for r in mine):.1f} ms, wall "
                      f"{statistics.median(r['wall'] for r in mine):.1f} ms (ARX not run)")
                continue
            arx = got[("arx", ARX_WAY.get(way, way), name)]
            for key in ("cpu", "process", "wall"):
                print("  " + ratio_line(f"{way:12} input", arx, mine, key))
        if compare:
            way = ways[0]
            a, o = got[("arx", ARX_WAY.get(way, way), name)][-1], got[("ours", way, name)][-1]
            same = a["optimum"] == o["optimum"]
            print(f"  optimum ARX {a['optimum']} Loss {a['score']}; ours {o['optimum']} Loss {o['score']}"
                  f"{'' if same else '  <- DIFFERENT'}")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--configs", default=DEFAULT_CONFIGS, help=f"comma-separated, of {', '.join(CONFIGS)} "
                   f"(default {DEFAULT_CONFIGS})")
    p.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    p.add_argument("--runs", type=int, default=9, help="our warm calls per way and round (default 9)")
    p.add_argument("--arx-runs", type=int, default=30, help="ARX's calls per JVM (default 30)")
    p.add_argument("--arx-classpath", default=os.environ.get("ARX_CLASSPATH"),
                   help="ARX's classes and jars (default: $ARX_CLASSPATH); without it ARX is not run")
    p.add_argument("--kernels", choices=("numba", "numpy"), default="numba",
                   help="the tier of the lattice kernels (default numba, what a long-lived process uses)")
    p.add_argument("--one-process", action="store_true",
                   help="every configuration and way of a round in one process of ours (the protocol before "
                        "2026-11-29's last runs), instead of one process per configuration and way as ARX's")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--ways", default=",".join(WAYS), help=f"comma-separated, of {', '.join(WAYS)} (default all)")
    args = p.parse_args(argv)
    args.ways = tuple(w for w in args.ways.split(",") if w)
    if not args.ways or any(w not in WAYS for w in args.ways):
        p.error(f"--ways takes some of {', '.join(WAYS)}")
    args.names = [c for c in args.configs.split(",") if c]
    unknown = [c for c in args.names if c not in CONFIGS]
    if unknown or not args.names:
        p.error(f"unknown configuration {unknown[0]!r}: use {', '.join(CONFIGS)}" if unknown
                else "--configs names no configuration")
    for option in ("rounds", "runs", "arx_runs"):
        if getattr(args, option) < 1:
            p.error(f"--{option.replace('_', '-')} must be at least 1")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    if args.child:
        print(json.dumps(ours(args.names, args.runs, args.kernels, args.ways)))
        return
    arx = Arx(args.arx_classpath) if args.arx_classpath else None
    if arx is None:
        print("ARX was not run: no ARX build given (--arx-classpath or ARX_CLASSPATH)")
    got: dict[tuple[str, str, str], list[dict]] = {}
    loads: list[float] = []
    try:
        for r in range(args.rounds):
            sides = ["arx", "ours"] if r % 2 == 0 else ["ours", "arx"]
            for side in sides:
                loads.append(os.getloadavg()[0])
                if side == "ours":
                    for name, way, figures in _our_processes(args):
                        got.setdefault(("ours", way, name), []).append(
                            {**figures[way], "optimum": figures["optimum"], "score": figures["score"]})
                elif arx is not None:
                    for name in args.names:
                        for way in dict.fromkeys(ARX_WAY.get(w, w) for w in args.ways):
                            got.setdefault(("arx", way, name), []).append(arx.call(name, way, args.arx_runs))
            print(f"round {r + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    finally:
        if arx is not None:
            arx.close()
    report(args.names, got, loads, args.rounds, arx is not None, args.ways)


if __name__ == "__main__":
    main()
