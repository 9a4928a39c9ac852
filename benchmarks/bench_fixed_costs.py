"""Fixed costs and measures (issue 30, item 1): what a run costs outside its algorithm, CPU and wall.

Run: python benchmarks/bench_fixed_costs.py [--runs 5] [--algorithms flash,mondrian,…] [--no-processes]
     [--no-algorithms] [--no-fixed-cost] [--no-split] [--numpy-kernels] [--source]

Whole processes (parts 1, 3 and 4) load anonkit's modules from bytecode, as ``pip install .`` leaves them:
compiled once, uncounted, into a cache of the benchmark's own (``PYTHONPYCACHEPREFIX``; nothing is written
into the repository). ``--source`` compiles them from source in every process instead, as an editable install
under ``PYTHONDONTWRITEBYTECODE`` (this machine kind's setting) runs the tree: every figure recorded below
before 2026-11-29 was taken so (~0.19 CPU-s of compiling a process on that day's machine).

1. **Whole processes** (each a fresh interpreter, as a user runs it): ``anonkit --version``, ``anonkit
   --help``, the bundled Adult job (``anonkit anonymize examples/adult.yaml``, in a temporary copy of
   ``examples/`` so nothing is written into the repository) with ``--no-fixes`` and as the README runs
   it (the changes that pass tried by running them). CPU time is the children's user + system time
   (``resource.getrusage(RUSAGE_CHILDREN)``: every thread of the process, numba's compilation included);
   the commands alternate run by run so that machine noise hits each alike. Medians over ``--runs``.
2. **anonymize() on Adult, per algorithm** (warm: one call first, then ``--runs`` calls, algorithms
   alternating): the call's CPU time (``time.process_time``), the algorithm's own (its declared
   function, timed around), the default summary's measures (``runner.summary.measured_summary``: every
   measure, the generalization, the score), and each measure of :data:`anonkit.metrics.METRICS` timed
   alone on the measured release; the largest measure is set against the algorithm (issue 30: no default
   measure may cost more than the algorithm). Record linkage is also timed by the pair enumeration alone
   (``metrics.risk._candidates_custom``, what every local recoding used before the pattern method) on the
   releases with intervals, so the before/after figure is from the same run.
3. **The bundled job's fixed cost** (issue 30, item 1: at most 1.0 CPU-s): ``anonkit anonymize adult.yaml``
   as the README runs it and with ``--no-fixes``, each in a fresh interpreter through the console script's
   entry point (:data:`FIXED_COST_CHILD`). *Fixed cost* = the whole process's CPU (``getrusage(RUSAGE_SELF)``
   at exit: user + system, every thread, imports and numba included) minus the searches' CPU
   (``time.process_time`` around the algorithm's declared function, summed over every run the job makes:
   the main run, the verdict's advice reruns, the fixes' trials). numba is imported inside a search when
   the tiered kernels switch (:data:`anonkit._kernels.NUMBA_AFTER_SECONDS` of numpy work in CPU time), so
   its load (~0.2 CPU-s) counts as search here.

4. **Where the bundled job's CPU goes** (``--no-split`` skips it): the same job in a child that times each
   part exclusive of the parts it calls (:data:`FIXED_COST_SPLIT_CHILD`): the imports, the input read, the
   passes (encode, publish, verify, measure: the runs but their searches), the audits, the write, the
   printing, the rest, and the searches; per run for the passes, audits and searches.

The load average is printed before and after each part: on a shared machine quote it with the figures.

The models: 5-anonymity (Anatomy: distinct 3-diversity of occupation, which it enforces); Adult's eight
quasi-identifiers (age numeric), occupation sensitive; MDAV publishes intervals.

Recorded (2-core machine, load average 5.7–7.0 from other jobs; 3 runs, CPU ms, medians): each measure of
the summary against the algorithm's own time on Adult. Every default measure costs less than the
algorithm for every family; record linkage alone costs more (Anatomy 7.4×, Stack and Deal 2.7×), so it
is optional (:data:`anonkit.metrics.OPTIONAL_MEASURES`, ``measures: {skip: [record_linkage]}``)::

    measure              flash  mondrian    mdav  anatomy  stack-and-deal   kaca
    algorithm itself      40.3      35.1  2633.4     37.2            18.2  940.1
    gcp                    0.4       1.4     2.0      9.3             2.4    1.4
    gcp_released           0.3       1.2     1.9     13.6             1.9    1.4
    loss                   2.4       3.3     3.7      8.9             4.8    3.3
    entropy                2.2       7.8    10.1     28.2            14.3    3.3
    entropy_nm             2.3       8.1     9.4     14.5            14.6    3.3
    precision              0.0       3.7     5.4      9.8             8.1    0.7
    prec_loss              0.0       3.8     5.4      9.0             7.9    0.7
    height                 0.0       2.9     4.7      9.2             6.9    0.1
    whd                    0.2       3.3     4.7     10.9             6.7    0.2
    modification_rate      1.2       6.0     8.2     27.2             9.2    3.7
    dm, dm*, aecs, class sizes, suppression, prosecutor risk, records at risk, uniqueness: ≤ 0.3 each
    record_linkage (opt)   1.0      31.1    50.8    274.9 (7.4×)     49.2 (2.7×)  74.6

``anonkit --help`` (fresh process, median of 10, load average 2.1–2.6): 0.076–0.083 CPU-s, against
0.069 for ``python -c "import typer"`` alone (the floor: typer and its vendored click) and 0.011 for an
empty interpreter; the whole command line's help (every command imported: ``anonkit.cli.app``) costs
0.75 CPU-s today (a printer that loads numpy and pandas) and 0.15 before it (load 4.5).

Recorded, the bundled job, the first change (load 7.5-14, 3 runs each alternating, output byte-identical):
whole process 7.29 -> 6.72 CPU-s, searches 2.96 -> 3.11 (8), fixed cost 4.33 -> 3.75 s, peak RSS 587 -> 592 MB;
then the imports ~1.9 CPU-s (scipy.stats and scipy.optimize through the algorithm registry 0.50), the eight
audits 1.38, publishes and verifications 0.16, measures 0.15, the rest 0.44. Kept on numpy throughout
(``NUMBA_AFTER_SECONDS = inf``) the searches cost ~1 CPU-s more: the switch to numba pays for itself here.

Recorded, issue 30 items 1 and 3 (this change: the audits' attacks without scipy and with the input's readings
kept across a job's audits, the reruns keyed without ``--input``/``--output``, a compact release's ``*`` test on
its categories, singling-out without a text per released row). HEAD's tree against HEAD + this change, each in
fresh processes (``PYTHONPATH`` to either tree), alternating, 3 runs each, medians; 2 cores shared with other
helpers' jobs, load average 7.6–8.8 throughout; stdout (but the ``time`` line) and the CSV byte-identical::

    fixed cost = whole-process CPU (getrusage(RUSAGE_SELF) at exit: user + system, every thread, from the
    interpreter's start) − the searches' CPU (time.process_time around flash's declared function, every run;
    numba's import and cache load happen inside a search, so they count as search)
                                   whole CPU   searches      fixed    wall     peak RSS
    README job           before      6.03 s    2.78 (8)     3.15 s    9.4 s    549 MB
                         after       5.51 s    2.84 (8)     2.67 s    8.4 s    547 MB
    --no-fixes           before      4.98 s    2.58 (4)     2.40 s    9.7 s    539 MB
                         after       4.57 s    2.49 (4)     2.09 s    7.1 s    540 MB
    README --output X    before      8.24 s    4.35 (10)    3.89 s   16.6 s    546 MB   (two trials reran what
                         after       5.98 s    2.95 (8)     2.99 s   11.0 s    554 MB    the advice had run)

    per audit (Adult, in process, load ≈ 7): 0.145 s before, 0.115 s with the input's readings kept; the eight
    audits of the README job 1.16 → 0.88 CPU-s. scipy.sparse is no longer imported by anonkit/analytics
    (cover, adversary, wildcard); it still is through anonkit.risk.loglinear (verifier → risk), ~0.1 CPU-s.

    numba or numpy here (--numpy-kernels, 3 runs, load 7.7): numba saves 0.5 CPU-s on the README job (searches
    3.00 against 3.57) and breaks even without the fixes; it costs ~110 MB of peak memory. At scale (Adult x100,
    K5_8QI_S2, k = 500, 2 runs, load 11-12): whole process 9.97, 9.76 -> 7.08, 6.80 CPU-s, the audit 4.2 -> 1.6-2.0,
    peak RSS 1,167 -> 953 MB. Against ARX 3.9 (bench_lattice.py, K5_8QI_S2, CPU ratio anonkit/ARX, medians):
    x1 0.29 -> 0.29, x10 0.26 -> 0.26, x100 0.40 -> 0.33 (every optimum and suppression the same).

    where the fixed cost still goes (after, README job, in-process split at load ≈ 7): the imports ~0.8 CPU-s
    (numpy, pandas, pyarrow, pydantic, typer, rich, the algorithm registry importing every algorithm, scipy.sparse
    through anonkit.risk), the eight audits 0.88, eight encodings, publishes, verifications and measures ~0.4,
    the rest (config, plan, advice and trial set-up, printing, the CSV) ~0.3.

Recorded, issue 30 item 1, the imports (this change: the algorithm registry walks a family only when asked,
``registry.get``/``default_algorithm`` stop at the family that holds the name, the fixes read the one family
they try; ``pyarrow.parquet`` loaded by the Parquet reader and writers only). Two copies of the working tree
with every helper's changes of 17:59 UTC, one without this change, each run with ``PYTHONPATH`` to it, in fresh
processes, alternating; stdout (but the ``time`` line), the CSV and ``--json`` (but timings and paths)
byte-identical::

    imports of a job (plan_from_yaml on examples/adult.yaml + runner, audit step and CLI modules; getrusage
    RUSAGE_SELF at the end; 7 runs, medians, load 5.1-5.8)
                                        CPU       peak RSS   modules   scipy loaded
    before                              0.873 s   143 MB     1,219     yes (anonkit.risk.loglinear)
    after                               0.786 s   135 MB     1,133     yes
    after + risk/ lazy (simulated:      0.639 s   126 MB       993     no
      risk/loglinear.py importing scipy.sparse inside the two functions that build the design matrix;
      risk/ is helper A's: a change to make there, not made here)

    whole processes (FIXED_COST_CHILD, 3 runs each, medians, load 6.1-9.4 with a test run beside them)
                           whole CPU   searches      fixed    wall     peak RSS
    README job   before      5.67 s    2.84 (8)     2.77 s   23.7 s    564 MB
                 after       5.69 s    2.96 (8)     2.73 s   23.3 s    555 MB
    --no-fixes   before      4.44 s    2.45 (4)     1.98 s   17.2 s    541 MB
                 after       4.31 s    2.49 (4)     1.84 s   17.4 s    528 MB
    (the whole-process spread at this load, 0.3-0.5 CPU-s run to run, is larger than the change: the imports'
    figure above is the one that resolves it)

    what a job imports now (python -X importtime, cumulative, load ≈ 8; numba loads inside a search): numpy,
    pandas (with pyarrow and pyarrow.compute), pydantic, yaml, typer and rich ≈ 0.45 CPU-s, the floor; scipy.sparse
    through anonkit.verifier -> anonkit.risk (package init) -> risk.loglinear ≈ 0.15; anonkit's config models (pydantic
    classes built at import: _config_models, _config_input, config, hierarchy.builder_params) ≈ 0.08; the other
    anonkit modules of the job (≈ 170) ≈ 0.1. Tried and dropped: ``defer_build`` on the config's pydantic models
    (the job validates with every section's model, so the build moves to the first parse: 0.318 → 0.327 CPU-s).
    The audits (0.11-0.12 CPU-s each on Adult in steady state, inside lasting_reading, load ≈ 7) spend about a
    third in factorize_text of the release's text columns (pandas' Arrow-string factorize; the cover's columns
    and the audit's model check through verifier.group_rows): a release published with categorical columns
    would be factorized from its codes (release.py / the engine's publish, helper C2's).

Recorded, issue 30 item 1 (this change: a verdict's reruns and the fixes' trials are lean — of the summary's
measures the loss alone, no counted release, generalization or score — and read the run's encoded table; a
release's repeating text written as CSV through its compact form; the command line registers the one command
it runs; the progress display redraws 4 times a second). HEAD's tree against HEAD + this change (each a copy,
``PYTHONPATH`` to it, bytecode compiled), alternating, medians; stdout (but the ``time`` line), ``--json`` (but
timings and paths), the CSV and the ``--report`` HTML (but its times and input path) byte-identical::

    whole process, FIXED_COST_CHILD (getrusage at exit; 5 runs each, load 3.5-4.3)
                           whole CPU   searches      fixed    peak RSS
    README job   before      4.53 s    2.47 (8)     2.07 s    530 MB
                 after       4.29 s    2.45 (8)     1.85 s    512 MB
    --no-fixes   before      3.89 s    2.24 (4)     1.65 s    524 MB     (3 runs, load 2.6-3.1)
                 after       3.85 s    2.34 (4)     1.51 s    508 MB

    where it goes (part 4, FIXED_COST_SPLIT_CHILD, README job, 3 runs each, load 3.4-4.0; CPU s)
                 imports   read   pass (8)  audit (8)  write  print   rest   search (8)  fixed  total
    before         0.619  0.067     0.309      0.710  0.081  0.027  0.082       2.348  1.873  4.221
    after          0.627  0.027     0.156      0.790  0.056  0.026  0.059       2.436  1.772  4.208
    (a pass, per run: 39 -> 20 ms; the audits' spread run to run is ~0.1 s; the remaining fixed cost is the
    imports, ~0.39 of them numpy, pandas, pyarrow, pydantic, yaml, typer and rich, and the eight audits)

    the command line alone (9 runs each, load 2.1-2.4): anonkit --help 0.076 -> 0.074 CPU-s; anonkit anonymize
    --help 0.182 -> 0.163; anonkit models 0.615 -> 0.588; a missing config 0.716 -> 0.667

    the progress display over a 5 s job (its refresh thread; a sleeping job, in process): 10 redraws a second
    0.083 CPU-s in a terminal, 0.028 into a pipe; 4 a second 0.043 and 0.019. The main thread's join(0.05)
    polling: 0.007 CPU-s over 5 s. Writing Adult's release as CSV: 0.086 -> 0.036 CPU-s.

Recorded, the same session's whole change (the lean reruns above, the audit's attacks on one reading of each
published column and its two recounts of the release encoding each column once, the verifier's Arrow grouping,
the measures from leaf counts, one hash per text column): the last session's tree against this one,
FIXED_COST_CHILD, 5 runs each alternating (3 with --no-fixes), load 1.7-2.6::

                            whole CPU   searches   fixed    peak RSS    fixed per run
    README job   before       4.62 s    2.55 (8)   2.10 s   531 MB      2.12, 2.15, 2.02, 2.01, 2.10
                 after        3.93 s    2.57 (8)   1.37 s   523 MB      1.42, 1.32, 1.35, 1.38, 1.37
    --no-fixes   before       3.78 s    2.26 (4)   1.51 s   521 MB      1.52, 1.51, 1.49
                 after        3.57 s    2.39 (4)   1.14 s   508 MB      1.14, 1.13, 1.19

Recorded, issue 30 item 1, the job's own fixed parts (this change: the config's pydantic sections built on first
use, ``defer_build``, so a run makes the whole config's validator once instead of ~75 of them; a hierarchy
builder's model made when a config names it; SQLite's driver and the XML parser imported where a table of theirs
is read or written; a text release's categories rendered as CSV in one ``to_csv`` for all columns; no progress
display, hence no refresh thread, when standard error is no terminal). HEAD (af5da78) against HEAD + these files,
each a copy with bytecode compiled, alternating, medians; stdout (but the ``time`` line), ``--json`` (but timings
and paths) and the CSV byte-identical; standard error into a pipe loses its two blank lines::

    the job's imports and config (abimp: the split's imports + load_config; fresh processes, 9 runs each)
                                        CPU       peak RSS   modules
    before                              0.683 s   126 MB     1,001       (load 8.0-8.6)
    after                               0.645 s   124 MB       990
    (in process, load 2.5-5: builder_params 10 -> 4 ms, _config_models 18 -> 11, _config_input 17 -> 10,
    config 10 -> 4; the first parse 11 -> 23 ms, the whole config's validator now made there)
    writing Adult's release as CSV (in process, 7 writes, load 9): 45-52 -> 21-25 ms (the categories'
    rendering 28 -> 2 ms)

    whole process, FIXED_COST_CHILD (load 5.6-7.4; the run-to-run spread, 0.1-0.25 s, is larger than the change)
                           whole CPU   searches      fixed    peak RSS   fixed per run
    README job   before      3.90 s    2.57 (8)     1.32 s    519 MB     1.20, 1.24, 1.31, 1.38, 1.34, 1.46
                 after       3.79 s    2.53 (8)     1.26 s    515 MB     1.34, 1.27, 1.18, 1.20, 1.41, 1.25
    --no-fixes   before      3.49 s    2.40 (4)     1.09 s    508 MB     (4 runs, load 6.7-7.4)
                 after       3.40 s    2.29 (4)     1.12 s    514 MB

    where it goes (part 4, README job, 3 runs each, load 6.3-7.4; CPU s)
                 imports   read   pass (8)  audit (8)  write  print   rest   search (8)  fixed  total
    before         0.660  0.032     0.213      0.268  0.073  0.025  0.059       2.382  1.306  3.687
    after          0.581  0.026     0.168      0.271  0.059  0.027  0.069       2.471  1.234  3.706

Recorded 2026-11-29 (load 5-7; alternating, medians): the job's fixed cost 0.89-0.90 CPU-s from bytecode,
1.06-1.11 compiled from source (--source; the earlier figures above). One lasting_reading for the whole job and
mask_secrets' shortcut: the eight audits 0.129 -> 0.108 CPU-s (split, 5 runs), fixed 0.925 -> 0.870 (split) and
0.903 -> 0.913 (FIXED_COST_CHILD, 7 runs): within the run-to-run spread (0.80-1.04), output byte-identical.
"""

from __future__ import annotations

import argparse
import functools
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
QI8 = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]
ALGORITHMS = ["flash", "top-down", "flash-local", "mondrian", "kaca", "mdav", "anatomy", "stack-and-deal"]
OPTIONS = {"mdav": {"output": "intervals"}}


def load_average() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def child_run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=900, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0,):
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()[-300:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def processes(runs: int) -> None:
    exe = shutil.which("anonkit") or f"{sys.executable} -m anonkit"
    base = exe.split()
    print(f"\n== whole processes ({runs} runs each, alternating; {loading()}); load average before: "
          f"{load_average()}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "examples"
        shutil.copytree(ROOT / "examples", work)
        env = child_env(Path(tmp))
        out = work / "adult-anonymized.csv"
        commands = {
            "anonkit --version": [*base, "--version"],
            "anonkit --help": [*base, "--help"],
            "bundled job --no-fixes": [*base, "anonymize", "adult.yaml", "--no-fixes"],
            "bundled job (README)": [*base, "anonymize", "adult.yaml"],
        }
        figures: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        if BYTECODE["bytecode"]:  # compile once (uncounted)
            child_run(commands["bundled job (README)"], work, env)
        for _ in range(runs):
            for name, cmd in commands.items():
                out.unlink(missing_ok=True)
                figures[name].append(child_run(cmd, work, env))
    for name, got in figures.items():
        cpu = statistics.median(c for c, _ in got)
        wall = statistics.median(w for _, w in got)
        print(f"  {name:26s} CPU {cpu:7.3f} s   wall {wall:7.3f} s")
    print(f"  load average after: {load_average()}")


#: a child that runs ``anonkit anonymize adult.yaml`` as the console script does and prints, at exit, its
#: whole-process CPU (``getrusage(RUSAGE_SELF)``: every thread, from the interpreter's start), the CPU of
#: the algorithm's searches (``time.process_time`` around the algorithm's declared function, every run:
#: the main run, the advice's reruns, the fixes' trials) and the fixed cost, their difference
FIXED_COST_CHILD = """
import atexit, functools, json, resource, sys, time
search = [0.0, 0]
def report():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    total = ru.ru_utime + ru.ru_stime
    print(json.dumps({"total": total, "search": search[0], "searches": search[1], "fixed": total - search[0],
                      "rss_mb": ru.ru_maxrss / 1024, "numba": "numba" in sys.modules}), file=sys.stderr)
atexit.register(report)
from anonkit.algorithms import registry
spec = registry.get("flash")
run = spec.run
@functools.wraps(run)
def timed(*a, **k):
    start = time.process_time()
    try:
        return run(*a, **k)
    finally:
        search[0] += time.process_time() - start
        search[1] += 1
object.__setattr__(spec, "run", timed)
args = sys.argv[1:]
if "--numpy-kernels" in args:  # the tiered kernels kept on numpy: numba never loaded
    args.remove("--numpy-kernels")
    import anonkit._kernels
    anonkit._kernels.NUMBA_AFTER_SECONDS = float("inf")
sys.argv = ["anonkit", "anonymize", "adult.yaml", *args]
from anonkit._entry import main
main()
"""


#: the fixed-cost part's variants: the job as the README runs it, without the fixes' trials, and each with
#: the tiered kernels kept on numpy (``--numpy-kernels``: is loading numba, ~0.5 CPU-s, worth it here?)
FIXED_COST_VARIANTS = {"README": [], "--no-fixes": ["--no-fixes"]}
NUMPY_VARIANTS = {"README, numpy": ["--numpy-kernels"], "--no-fixes, numpy": ["--no-fixes", "--numpy-kernels"]}


#: how the children load anonkit's modules: from bytecode, as ``pip install .`` leaves them (compiled once
#: into a cache of the run's own, ``PYTHONPYCACHEPREFIX``, so nothing is written into the repository), or,
#: with ``--source``, compiled from source in every process (an editable install under
#: ``PYTHONDONTWRITEBYTECODE``, as this machine kind runs the tree: ~0.19 CPU-s more a process, 2026-11)
BYTECODE = {"bytecode": True}


def child_env(tmp: Path) -> dict[str, str]:
    """The children's environment: :data:`BYTECODE`'s choice (the cache under ``tmp``)."""
    env = dict(os.environ)
    if BYTECODE["bytecode"]:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    return env


def loading() -> str:
    return ("anonkit's modules from bytecode (compiled once, as an installed package)" if BYTECODE["bytecode"]
            else "anonkit's modules compiled from source in every process (--source)")


def job_runs(child: str, variants: dict[str, list[str]], runs: int) -> dict[str, list]:
    """Run the bundled job through ``child`` (a ``python -c`` program that prints one JSON line last on
    stderr) for every variant's extra arguments, ``runs`` rounds alternating, in a copy of ``examples/``;
    each variant's JSON lines, in order. With bytecode (:data:`BYTECODE`) one uncounted run of each variant
    first compiles the modules it loads."""
    import json

    got: dict[str, list] = {name: [] for name in variants}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "examples"
        shutil.copytree(ROOT / "examples", work)
        env = child_env(Path(tmp))
        warm = BYTECODE["bytecode"]
        for _ in range(runs + warm):
            for name, extra in variants.items():
                (work / "adult-anonymized.csv").unlink(missing_ok=True)
                done = subprocess.run([sys.executable, "-c", child, *extra], cwd=work, capture_output=True,
                                      text=True, timeout=900, env=env)
                if done.returncode:  # (a failed job would still print its atexit line: not a figure)
                    raise SystemExit(f"{name} failed ({done.returncode}): {done.stderr.strip()[-300:]}")
                if not warm:
                    got[name].append(json.loads(done.stderr.strip().splitlines()[-1]))
            warm = False
    return got


def fixed_cost(runs: int, numpy_kernels: bool = False) -> None:
    """The bundled job's fixed cost (issue 30, item 1: at most 1.0 CPU-s): whole-process CPU minus the
    searches' CPU, for the job as the README runs it and with ``--no-fixes``, alternating; medians.
    ``numpy_kernels``: also each kept on the kernels' numpy tier."""

    print(f"\n== the bundled job's fixed cost ({runs} runs each, alternating; {loading()}); load average "
          f"before: {load_average()}")
    variants = {**FIXED_COST_VARIANTS, **(NUMPY_VARIANTS if numpy_kernels else {})}
    got: dict[str, list[dict[str, float]]] = job_runs(FIXED_COST_CHILD, variants, runs)
    for name, rows in got.items():
        med = {k: statistics.median(float(r[k]) for r in rows) for k in ("total", "search", "fixed", "rss_mb")}
        print(f"  {name:18s} CPU {med['total']:6.3f} s = searches {med['search']:6.3f} s ({rows[0]['searches']:.0f}) "
              f"+ fixed {med['fixed']:6.3f} s   peak RSS {med['rss_mb']:.0f} MB   numba loaded: {rows[0]['numba']}")
    print(f"  load average after: {load_average()}")


#: a child that runs the bundled job as :data:`FIXED_COST_CHILD` does and prints at exit where its CPU went,
#: each part *exclusive* of the parts it calls (a stack of timers over every thread: the command line's main
#: thread waits while its worker runs): ``imports`` (the modules the job loads before its work, loaded first),
#: ``search`` (the algorithm's declared function), ``pass`` (``anonymize_checked`` but the search: encoding,
#: feasibility, publishing, the independent verifier, the measures), ``audit`` (``audit_report``: the risk
#: models and attacks), ``read`` (the input), ``write`` (the release), ``print`` (the summary, audit, verdict
#: and fix lines, without the runs the fixes make) and ``rest`` (the whole process's CPU less all of these:
#: start-up, config and plan, advice and trial set-up, the progress display, exit)
FIXED_COST_SPLIT_CHILD = """
import atexit, functools, importlib, json, resource, sys, time
T0 = time.process_time()
import anonkit._entry, anonkit.cli, anonkit.cli.anonymize, anonkit.config, anonkit.plan, anonkit.runner
import anonkit.runner.local, anonkit.runner.audit_step, anonkit.fixes.trial, anonkit.cli.printers.fixes
from anonkit.algorithms import registry
spec = registry.get("flash")
parts = {"imports": [time.process_time() - T0, 1]}
stack = []
def timed(fn, label):
    @functools.wraps(fn)
    def run(*a, **k):
        stack.append(0.0)
        start = time.process_time()
        try:
            return fn(*a, **k)
        finally:
            took = time.process_time() - start
            inner = stack.pop()
            got = parts.setdefault(label, [0.0, 0])
            got[0] += took - inner
            got[1] += 1
            if stack:
                stack[-1] += took
    return run
object.__setattr__(spec, "run", timed(spec.run, "search"))
for module, name, label in [
        ("anonkit.runner.local", "anonymize_checked", "pass"),
        ("anonkit.runner.audit_step", "anonymize_checked", "pass"),
        ("anonkit.fixes.trial", "anonymize_checked", "pass"), ("anonkit.runner.audit_step", "audit_report", "audit"),
        ("anonkit.runner.local", "load_input", "read"), ("anonkit.runner.local", "_write", "write"),
        ("anonkit.cli.anonymize", "print_summary", "print"), ("anonkit.cli.anonymize", "print_audit", "print"),
        ("anonkit.cli.anonymize", "print_verdict", "print"), ("anonkit.cli.anonymize", "print_fixes", "print")]:
    target = importlib.import_module(module)
    setattr(target, name, timed(getattr(target, name), label))
def report():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    total = ru.ru_utime + ru.ru_stime
    out = {k: {"cpu": v[0], "calls": v[1]} for k, v in parts.items()}
    out["rest"] = {"cpu": total - sum(v[0] for v in parts.values()), "calls": 1}
    out["total"] = {"cpu": total, "calls": 1}
    print(json.dumps(out), file=sys.stderr)
atexit.register(report)
sys.argv = ["anonkit", "anonymize", "adult.yaml", *sys.argv[1:]]
anonkit._entry.main()
"""
#: the parts of :data:`FIXED_COST_SPLIT_CHILD`, in the order printed
SPLIT_PARTS = ("imports", "read", "pass", "audit", "write", "print", "rest", "search")


def fixed_cost_split(runs: int) -> None:
    """Where the bundled job's CPU goes (:data:`FIXED_COST_SPLIT_CHILD`), as the README runs it and with
    ``--no-fixes``, alternating; medians of each part, and per run for the passes and audits."""

    print(f"\n== the bundled job's split ({runs} runs each, alternating; {loading()}); load average before: "
          f"{load_average()}")
    got: dict[str, list[dict[str, dict[str, float]]]] = job_runs(FIXED_COST_SPLIT_CHILD, FIXED_COST_VARIANTS, runs)
    print(f"  {'CPU s (median)':18s}" + "".join(f"{p:>9s}" for p in SPLIT_PARTS) + f"{'fixed':>9s}{'total':>9s}")
    for name, rows in got.items():
        med = {p: statistics.median(r.get(p, {"cpu": 0.0})["cpu"] for r in rows) for p in [*SPLIT_PARTS, "total"]}
        fixed = statistics.median(r["total"]["cpu"] - r["search"]["cpu"] for r in rows)
        print(f"  {name:18s}" + "".join(f"{med[p]:9.3f}" for p in SPLIT_PARTS) + f"{fixed:9.3f}{med['total']:9.3f}")
        calls = rows[0]["pass"]["calls"]
        print(f"  {'':18s}{calls} runs: a pass {med['pass'] / calls:.3f} s, an audit "
              f"{med['audit'] / max(rows[0]['audit']['calls'], 1):.3f} s, a search {med['search'] / calls:.3f} s")
    print(f"  load average after: {load_average()}")


class Clock:
    """CPU seconds spent inside a wrapped function (the last call)."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def wrap(self, fn):  # type: ignore[no-untyped-def]
        @functools.wraps(fn)
        def timed(*args, **kwargs):  # type: ignore[no-untyped-def]
            start = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds = time.process_time() - start

        return timed


def algorithms(names: list[str], runs: int) -> None:
    import anonkit.runner.anonymize as runner
    from anonkit import Schema, anonymize, load_adult
    from anonkit.algorithms import registry
    from anonkit.metrics import METRICS, risk
    from anonkit.models import DistinctLDiversity, KAnonymity
    from anonkit.release import CUSTOM

    frame, h = load_adult()
    schema = Schema.of(quasi=QI8, sensitive=["occupation"], hierarchies={q: h[q] for q in QI8},
                       types={"age": "numeric"})
    measures_clock, clocks = Clock(), {name: Clock() for name in names}
    runner.measured_summary = measures_clock.wrap(runner.measured_summary)
    for name in names:  # the algorithm's own time: its declared function, timed around
        spec = registry.algorithms()[name]
        object.__setattr__(spec, "run", clocks[name].wrap(spec.run))

    def call(name: str):  # type: ignore[no-untyped-def]
        models = [DistinctLDiversity("occupation", 3)] if name == "anatomy" else [KAnonymity(5)]
        start = time.process_time()
        result = anonymize(frame, schema, models, algorithm=name, **OPTIONS.get(name, {}))
        return time.process_time() - start, result

    print(f"\n== anonymize() on Adult ({len(frame):,} records), warm, {runs} runs, algorithms alternating; "
          f"load average before: {load_average()}")
    for name in names:
        call(name)  # warm-up: imports, numba's cache, the registry
    rows: dict[str, dict[str, list[float]]] = {n: {"call": [], "algorithm": [], "measures": []} for n in names}
    per_measure: dict[str, dict[str, list[float]]] = {n: {m: [] for m in [*METRICS, "rl-pairs"]} for n in names}
    for _ in range(runs):
        for name in names:
            seconds, result = call(name)
            rows[name]["call"].append(seconds)
            rows[name]["algorithm"].append(clocks[name].seconds)
            rows[name]["measures"].append(measures_clock.seconds)
            measured = result.release.counted()
            for metric, fn in METRICS.items():
                start = time.process_time()
                fn(measured.table, measured)
                per_measure[name][metric].append(time.process_time() - start)
            if (measured.class_levels == CUSTOM).any():
                start = time.process_time()
                out = np.zeros(measured.table.distinct.size)
                risk._candidates_custom(measured.table, measured, np.flatnonzero(measured.class_sizes() > 0), out)
                per_measure[name]["rl-pairs"].append(time.process_time() - start)
    print(f"  {'algorithm':15s} {'call':>7s} {'alg':>7s} {'measures':>8s}  {'largest measure':26s} {'÷ alg':>6s}  "
          f"{'RL by pairs':>11s}")
    for name in names:
        med = {k: statistics.median(v) for k, v in rows[name].items()}
        each = {m: statistics.median(v) for m, v in per_measure[name].items() if v and m != "rl-pairs"}
        worst = max(each, key=each.__getitem__)
        pairs = per_measure[name]["rl-pairs"]
        ratio = each[worst] / med["algorithm"] if med["algorithm"] > 0 else float("inf")
        flag = "" if ratio <= 1 else "  <- dominates"
        print(f"  {name:15s} {med['call']:7.3f} {med['algorithm']:7.3f} {med['measures']:8.3f}  "
              f"{worst + f' {each[worst]:.3f}':26s} {ratio:6.2f}  "
              f"{(f'{statistics.median(pairs):.3f}' if pairs else '-'):>11s}{flag}")
    print(f"  (CPU seconds, medians; load average after: {load_average()})")
    per_measure_table(names, rows, per_measure)


def per_measure_table(names: list[str], rows: dict[str, dict[str, list[float]]],
                      per_measure: dict[str, dict[str, list[float]]]) -> None:
    """Every measure of :data:`anonkit.metrics.METRICS` (rows) against every algorithm (columns): its
    median CPU milliseconds on the measured release, and ``!`` where it costs more than the algorithm's
    own time (issue 30: no default measure may; :data:`anonkit.metrics.OPTIONAL_MEASURES` may, and can
    be switched off with ``measures: {skip: […]}``)."""
    from anonkit.metrics import OPTIONAL_MEASURES

    own = {n: statistics.median(rows[n]["algorithm"]) for n in names}
    print("\n  per measure, CPU ms (median; '!' = more than the algorithm's own time; '(opt)' = optional)")
    print(f"  {'measure':24s}" + "".join(f"{n[:10]:>11s}" for n in names))
    print(f"  {'algorithm itself':24s}" + "".join(f"{own[n] * 1000:11.1f}" for n in names))
    for metric in next(iter(per_measure.values())):
        if metric == "rl-pairs":
            continue
        cells = []
        for n in names:
            got = per_measure[n][metric]
            ms = statistics.median(got) * 1000 if got else float("nan")
            cells.append(f"{ms:10.1f}{'!' if got and ms / 1000 > own[n] else ' '}")
        label = metric + (" (opt)" if metric in OPTIONAL_MEASURES else "")
        print(f"  {label:24s}" + "".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS))
    parser.add_argument("--no-processes", action="store_true")
    parser.add_argument("--no-algorithms", action="store_true")
    parser.add_argument("--no-fixed-cost", action="store_true")
    parser.add_argument("--no-split", action="store_true", help="skip where the bundled job's CPU goes")
    parser.add_argument("--numpy-kernels", action="store_true",
                        help="also run the bundled job with the tiered kernels kept on numpy (numba never loaded)")
    parser.add_argument("--source", action="store_true",
                        help="compile anonkit's modules from source in every child (no bytecode), as an editable "
                             "install under PYTHONDONTWRITEBYTECODE runs; by default from bytecode compiled once")
    args = parser.parse_args()
    BYTECODE["bytecode"] = not args.source
    if not args.no_processes:
        processes(args.runs)
    if not args.no_fixed_cost:
        fixed_cost(args.runs, args.numpy_kernels)
    if not args.no_split:
        fixed_cost_split(args.runs)
    if not args.no_algorithms:
        algorithms([a for a in args.algorithms.split(",") if a], args.runs)


if __name__ == "__main__":
    main()
