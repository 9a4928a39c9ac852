"""sdcMicro's measures and methods (issue 28, item 8): anonkit's time beside sdcMicro 5.8.1's, alternating.

Run: python benchmarks/bench_sdc.py [--testdata CSV] [--synthetic ROWS] [--rounds 3] [--runs 3]
     [--sdc-dir DIR] [--r-timeout 300] [--only NAME,…]

Data: sdcMicro's ``testdata`` (4,580 rows; keys urbrur, roof, walls, water, electcon, relat, sex; weight
sampling_weight; household ori_hid) exported to CSV by the user (``load("testdata.RData");
write.csv(testdata, "/tmp/testdata.csv", row.names = FALSE, na = "")`` — nothing of sdcMicro's data ships
here), and a synthetic survey of ``--synthetic`` rows (default 1,000,000; 0 skips it) made by this script from a
fixed seed: households of 1–6 members, 5 key variables (age band 0–17, sex, region 0–11, marital status 0–4,
education 0–7; about 0.2 % of each key's cells missing, the region for whole households), a weight, a district
and the size per household, and three skewed numeric columns per person (income, expend, savings).

:data:`MEASURES` is the table: (name, anonkit's side, sdcMicro's R call on a data.frame, sdcMicro's
``sdcMicroObj`` workflow), so a method added later is one line. **Like is compared with like, at two levels**,
each its own table:

(a) **method alone** — anonkit's algorithm function on the encoded table (``Table``, made once and untimed: the
    method reads its arrays; timed: its option checks, the method, and the release it returns — published
    classes, the published rows in their seeded order; no verification, no summary) against sdcMicro's function
    on the data.frame (``addNoise(x, …)``, ``microaggregation(x, …)``, …, each returning the perturbed
    data.frame or matrix). The risk measures are here too: ``anonkit.risk``'s functions against sdcMicro's.
(b) **whole run** — anonkit's public ``anonymize(frame, schema, models, algorithm=…, **options)`` (encode, the
    method, the independent verification, the summary with the perturbed-utility measures; record linkage left
    out, no file) against sdcMicro's ``sdcMicroObj`` workflow: ``createSdcObj(x, keyVars, numVars, weightVar,
    …)`` (which computes the frequencies and risk) and the method on the object (which recomputes risk —
    ``dRisk``, ``calcRisks`` — and utility — ``dUtility`` — as sdcMicro's GUI does).

Both sides read the same table (keys as categorical quasi-identifiers, every other column insensitive; the
numeric columns declared numeric). The same parameters on both sides: localSuppression k 3 on the keys
(heuristic, no importance); pram on testdata's roof, walls, water (the synthetic's marital, education) with
pd 0.8, alpha 0.5; addNoise additive, noise 150 on the numeric columns; microaggregation mdav, pca, onedims with
k (``aggr``) 3; rankSwap with a 5 % window (sdcMicro ``P = 0.05``, no top/bottom coding: anonkit's ``p: 5``);
recordSwap with hierarchy urbrur > roof (testdata, a stand-in geography) or region > district, similar
electcon or household size, k-anonymity 3 on sex and relat (sex and age), swap rate 0.05 — on the records
with every key (sdcMicro's recordSwap refuses a missing value), on both sides. mdav and rankSwap run on the
first :data:`QUADRATIC_ROWS` rows of a larger table: mdav is O(n²) in both tools, sdcMicro's rank swap
O(n²·P) (each record scans its whole window).

Each round runs anonkit's call ``--runs`` times in this process (after one untimed call; median wall and CPU of
``time.process_time``) and sdcMicro's in one ``Rscript`` (``system.time`` over ``--runs`` calls after one
untimed call, elapsed and user + system: the mean per call), the two sides first in turn; ``--no-warmup`` drops
the untimed call on both sides (at a million rows). Printed: the medians per side, the median of the rounds'
pair ratios (anonkit / sdcMicro) and the load average before each measure. **The per-call cap** (``--cap``,
default 300 CPU seconds): R prints a line as each call begins and ends, and a call that uses more CPU than the
cap (read from ``/proc`` every half second; or runs 20 times the cap in wall time) is stopped and shown as
``> x s`` with the ratio as ``< r`` — a bound that still proves the comparison — and sdcMicro's later rounds of
that measure are skipped while anonkit's go on. ``--r-timeout`` (default 300 s) bounds the prelude (sourcing
sdcMicro, reading the CSV).

sdcMicro: it cannot be installed as a package here (CRAN is unreachable), so its R files are sourced and
its C++ compiled with Rcpp from its public source, into a folder outside this repository given as
``--sdc-dir`` (the ``SDC_DIR`` environment variable; default /tmp/sdcspeed/sdc). How it is built (Debian's
r-base-dev, r-cran-rcpp, r-cran-data.table, r-cran-mass): from ``git show HEAD:<path>`` of
github.com/sdcTools/sdcMicro (5.8.1) copy into the folder R/``freqCalc.r``, ``indivRisk.R``,
``measure_risk.R``, ``suda2.R``, ``modRisk.R``, ``localSuppression.R``, ``pram.R``, ``addNoise.r``,
``mafast.R``, ``mdav.R``, ``microaggregation.R``, ``rankSwap.R``, ``recordSwap.R`` and src/``suda_main.cpp``,
``Suda2.h``, ``Framework.h``, ``Mdav.cpp``, ``Mdav.h``, ``calcSuppInds.cpp``, ``RankSwapping.h``,
``recordSwap_R.cpp`` (with ``src/recordSwap/recordSwap.cpp`` and ``.h`` renamed ``inc/recordSwap.inc`` and
``inc/recordSwap.h``, its include changed to match, so that ``sourceCpp`` does not compile it twice); write
a three-line ``rankswap_w5.cpp`` that includes ``Framework.h`` and ``RankSwapping.h`` as sdcMicro's
``0Main.cpp`` does and exports ``RankSwap`` under another name for ``sourceCpp``; and ``build.R``, which
compiles ``suda_main.cpp`` and ``Mdav.cpp`` with ``R CMD SHLIB`` (Rcpp's include path) into ``suda.so`` and
``mdav.so`` once, loads them and defines ``Suda2`` and ``Mdav`` as ``.Call`` wrappers, ``sourceCpp``s the
other three with a ``cacheDir`` in the folder (compiled once: about 30 s), sets ``RankSwap`` and sources the
R files. For the ``sdcMicroObj`` workflow, copy every file of sdcMicro's R/ into ``full/``, its DESCRIPTION's
``Collate`` list into ``collate.txt``, and write ``full.R``: it sources every file in that order but
``RcppExports.R``, ``zzz.R`` and ``sdcApp.R`` (the GUI; a file whose top level needs a package not installed
is skipped with a message), then ``build.R`` (whose compiled functions replace the package's ``.Call``
wrappers). The prelude sources ``full.R`` when it exists, else ``build.R`` (the whole-run column then fails
in one line). sdcMicro's C++ ``measure_threshold`` is not built: it is replaced by a stub returning NA (the
threshold is a figure ``measure_risk`` adds, not used by the methods). Without that folder sdcMicro's side is
skipped with a message and anonkit's times are printed alone. Never commit sdcMicro's code.

Measured 2026-11-28 on this machine (2 cores shared with other jobs, load 3–12: compare the CPU columns),
sdcMicro 5.8.1 from /tmp/sdcspeed/sdc, Debian's R 4.2.2: testdata 3 rounds × 3 runs with the warm-up; the
1,000,000-row survey 3 rounds × 1 run, ``--no-warmup``, mdav and rankSwap on its first 100,000 rows. The table of
CPU ratios (anonkit / sdcMicro, the median of the rounds' ratios; ``< r``: sdcMicro's call stopped at the cap) and
what stays slower, and why, are in docs/performance.md, "Beside sdcMicro": every whole run is faster on both
tables; alone, addNoise at 1 M (the release's row order and class numbering around a 0.07 s noise) and, on
testdata, calls of a few milliseconds (addNoise, rankSwap without numba) are not. Releases were byte-identical
before and after this session's speed-ups (seeds 1, 7, 123): published classes sorted as fixed-width numpy
strings where that is Python's order (``perturb._release.text_order``), numbers numbered without merging texts,
rank swapping's list loop holding about a window of ranks and numba loaded where it pays
(``_swap_kernels.compiled_pays``), SUDA2's small groups numbered through a table, survey columns' integer
households turned into text by numpy.
"""

from __future__ import annotations

import argparse
import os
import queue
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd

from anonkit import Schema, anonymize
from anonkit.models import KAnonymity
from anonkit.plan.arguments import plan_from_arguments
from anonkit.risk import loglinear_risk, sample_frequencies, suda2, survey_risk
from anonkit.risk.survey import household_risk, individual_risk
from anonkit.table import Table

KEYS_TESTDATA = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]
KEYS_SYNTHETIC = ["age", "sex", "region", "marital", "education"]
DEFAULT_SDC_DIR = "/tmp/sdcspeed/sdc"
R_TIMEOUT = 300
#: CPU seconds one sdcMicro call may use before it is stopped and shown as at least that (``--cap``)
CALL_CAP = 300.0
#: rows the quadratic methods run on at most (mdav and rank swapping are O(n²) in sdcMicro; mdav in both tools)
QUADRATIC_ROWS = 100_000
#: every method's seed (anonkit's ``seed``, sdcMicro's ``set.seed``/``seed``)
SEED = 1
#: the k of local suppression, microaggregation and record swapping's k-anonymity risk
K = 3
#: PRAM's pd and alpha, additive noise's level, rank swapping's window (percent), record swapping's rate
PRAM_PD, PRAM_ALPHA, NOISE_LEVEL, SWAP_P, SWAPRATE = 0.8, 0.5, 150, 5, 0.05


@dataclass(frozen=True)
class Data:
    """A benchmark table: its frame, CSV file (for R), key, weight and household columns, and what the methods
    read: numeric columns (noise, microaggregation, rank swapping), categorical ones (PRAM), the geography,
    similarity and risk variables of record swapping."""

    name: str
    frame: pd.DataFrame
    csv: Path
    keys: list[str]
    weight: str
    household: str
    numeric: list[str]
    categorical: list[str]
    geography: list[str]
    similar: list[str]
    risk_variables: list[str]


def schema_of(data: Data, *, household: bool = False) -> Schema:
    """The keys as categorical quasi-identifiers, every other column insensitive (the household a household
    column when asked: record swapping), the numeric columns declared numeric (as R's ``read.csv`` types them;
    undeclared, anonkit infers the type from every value's text), so both tools see the same table."""
    rest = [c for c in data.frame.columns if c not in data.keys and not (household and c == data.household)]
    types = {k: "categorical" for k in data.keys} | {c: "numeric" for c in data.numeric}
    roles: dict[str, object] = {"quasi": data.keys, "insensitive": rest, "types": types}
    if household:
        roles["household"] = data.household
    return Schema.of(**roles)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Method:
    """One of anonkit's perturbative or suppressive algorithms with its options (an option given as a function of
    the data is called on it), at both levels: :meth:`whole` is the public ``anonymize`` (encode, the method,
    the independent verification, the summary with the perturbed-utility measures; record linkage left out,
    no file); :meth:`alone` encodes once, untimed, and returns the method alone: the declared algorithm's
    function on the encoded table (its arrays), which checks its options, runs the method and assembles the
    release — no verification, no summary."""

    algorithm: str
    k: int = 1
    household: bool = False
    options: tuple[tuple[str, object], ...] = ()

    def given(self, data: Data) -> dict[str, object]:
        return {name: value(data) if callable(value) else value for name, value in self.options}

    def whole(self, data: Data) -> object:
        return anonymize(data.frame, schema_of(data, household=self.household), [KAnonymity(self.k)],
                         algorithm=self.algorithm, seed=SEED, skip_measures=("record_linkage",), **self.given(data))

    def alone(self, data: Data) -> Callable[[], object]:
        schema = schema_of(data, household=self.household)
        plan = plan_from_arguments(schema, [KAnonymity(self.k)], algorithm=self.algorithm, seed=SEED,
                                   options=self.given(data))
        table = Table(data.frame, schema.with_run_seed(SEED))
        models, options, spec = list(plan.models), dict(plan.options), plan.algorithm
        return lambda: spec.run(table, models, **options, seed=SEED)


@dataclass(frozen=True)
class Measure:
    """One row of the tables: anonkit's side (a risk function of a :class:`Data`, or a :class:`Method`), the R
    expression sdcMicro runs on a data.frame (``r_call``) and, for a method, its ``sdcMicroObj`` workflow
    (``r_obj``: ``createSdcObj`` and the method on the object, which recomputes risk and utility; ``obj(...)``
    is ``createSdcObj`` with the keys, the numeric variables and the weight). R names: ``x`` the data, ``keys``,
    ``w``, ``hid``, ``nv`` numeric, ``pv`` categorical, ``geo``, ``sim``, ``rv``; ``xi`` the data with integer
    codes, as recordSwap wants it; ``fk``-like inputs are recomputed inside the call. ``max_rows``: the method
    runs on the first rows only above it (a quadratic method); ``complete``: on the records with every key
    (sdcMicro's recordSwap refuses a missing value), on both sides."""

    name: str
    anonkit: Callable[[Data], object] | Method
    r_call: str
    r_obj: str | None = None
    max_rows: int | None = None
    complete: bool = False


def method(algorithm: str, k: int = 1, household: bool = False,
           **options: Callable[[Data], object] | object) -> Method:
    """A :class:`Method` (see there)."""
    return Method(algorithm, k, household, tuple(options.items()))


MEASURES = [
    Measure("freqCalc", lambda d: sample_frequencies(d.frame, d.keys, weights=d.weight),
            "freqCalc(x, keyVars = keys, w = w)"),
    Measure("indivRisk", lambda d: individual_risk(sample_frequencies(d.frame, d.keys, weights=d.weight)),
            "indivRisk(freqCalc(x, keyVars = keys, w = w))"),
    Measure("measure_risk", lambda d: survey_risk(d.frame, d.keys, weights=d.weight),
            "measure_riskWORK(x, keyVars = keys, w = w, alpha = 1)"),
    Measure("household risk", lambda d: household_risk(
        individual_risk(sample_frequencies(d.frame, d.keys, weights=d.weight)), d.frame[d.household].to_numpy()),
        "measure_riskWORK(x, keyVars = keys, w = w, hid = hid, alpha = 1)"),
    Measure("suda2", lambda d: suda2(d.frame, d.keys), "suda2(x, variables = keys)"),
    Measure("modRisk", lambda d: loglinear_risk(d.frame.dropna(subset=d.keys), d.keys, weights=d.weight),
            "modRisk(x2, method = 'default', weights = w, formulaM = fm)"),
    Measure("localSuppression", method("local-suppression", k=K),
            f"localSuppressionWORK(as.data.table(x[, keys]), keyVars = keys, strataVars = NULL, k = {K}, "
            "combs = NULL, importance = NULL, alpha = 1)",
            f"localSuppression(obj(), k = {K})"),
    Measure("pram", method("pram", columns=lambda d: d.categorical, pd=PRAM_PD, alpha=PRAM_ALPHA),
            f"pram(x, variables = pv, pd = {PRAM_PD}, alpha = {PRAM_ALPHA})",
            f"pram(obj(pramVars = pv), pd = {PRAM_PD}, alpha = {PRAM_ALPHA})"),
    Measure("addNoise", method("add-noise", columns=lambda d: d.numeric, method="additive", level=NOISE_LEVEL),
            f"addNoise(x, variables = nv, noise = {NOISE_LEVEL}, method = 'additive')",
            f"addNoise(obj(), noise = {NOISE_LEVEL}, method = 'additive')"),
    *(Measure(f"micro {m}", method("microaggregation", columns=lambda d: d.numeric, method=m, k=K),
              f"microaggregation(x, variables = nv, aggr = {K}, method = '{m}')",
              f"microaggregation(obj(), aggr = {K}, method = '{m}')",
              QUADRATIC_ROWS if m == "mdav" else None) for m in ("mdav", "pca", "onedims")),
    Measure("rankSwap", method("rank-swap", columns=lambda d: d.numeric, p=SWAP_P),
            f"rankSwap(x, variables = nv, TopPercent = 0, BottomPercent = 0, P = {SWAP_P / 100}, seed = {SEED}L)",
            f"rankSwap(obj(), TopPercent = 0, BottomPercent = 0, P = {SWAP_P / 100}, seed = {SEED}L)",
            QUADRATIC_ROWS),
    Measure("recordSwap", method("record-swap", household=True, hierarchy=lambda d: d.geography,
                                 similar=lambda d: d.similar, swaprate=SWAPRATE, k=K,
                                 risk_variables=lambda d: d.risk_variables),
            f"recordSwap(xi, hid = hid, hierarchy = geo, similar = list(sim), swaprate = {SWAPRATE}, "
            f"k_anonymity = {K}, risk_variables = rv, seed = {SEED}L, log_file_name = tempfile())",
            f"recordSwap(obj(xi, hhId = hid), hierarchy = geo, similar = list(sim), swaprate = {SWAPRATE}, "
            f"k_anonymity = {K}, risk_variables = rv, seed = {SEED}L, log_file_name = tempfile())",
            complete=True),
]
NAMES = [m.name for m in MEASURES]

R_PRELUDE = """
suppressMessages({library(data.table); library(MASS)})
setwd("{sdc}")
suppressMessages(source(if (file.exists("full.R")) "full.R" else "build.R"))
measure_threshold <- function(...) list(global_threshold_unsafe=NA, global_threshold_safe=NA, global_threshold=NA)
x <- as.data.frame(fread("{csv}", na.strings = ""))
keys <- c({keys}); w <- "{w}"; hid <- "{hid}"
nv <- c({nv}); pv <- c({pv}); geo <- c({geo}); sim <- c({sim}); rv <- c({rv})
for (k in keys) x[[k]] <- as.factor(x[[k]])
x2 <- na.omit(x[, c(keys, w)]); x2w <- x2[[w]]
fm <- as.formula(paste("~", paste(keys, collapse = " + ")))
xi <- as.data.table(x); for (v in unique(c(keys, geo, sim, rv))) xi[[v]] <- as.integer(xi[[v]])
obj <- function(data = x, ...) createSdcObj(data, keyVars = keys, numVars = nv, weightVar = w, ...)
set.seed({seed})
"""
R_TIMING = """
cpu <- function() sum(proc.time()[c("user.self", "sys.self")])
say <- function(...) invisible(c(cat(sprintf(...)), flush(stdout())))
timed <- function() c(say("BEGIN %.6f\\n", cpu()), invisible({call}), say("DONE\\n"))
{warmup}
t <- system.time(for (i in seq_len({runs})) timed())
say("RESULT %.6f %.6f\\n", t[["elapsed"]] / {runs}, (t[["user.self"]] + t[["sys.self"]]) / {runs})
"""
#: ``timed`` prints ``BEGIN`` and R's CPU seconds so far (the per-call cap starts there), runs the call once and
#: prints ``DONE``; the ``--runs`` calls are timed together (R's clock ticks are too coarse for one call of a few
#: milliseconds): the mean per call. Written without braces (the prelude's template has none)


def synthetic(rows: int, seed: int = 28) -> pd.DataFrame:
    """A seeded survey of ``rows`` records in households of 1–6, with weights per household and ~1 % missing keys;
    per household a region (0–11), a district within it and the household's size, per person three skewed
    numeric columns (income, expend, savings; correlated)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, size=rows // 2 + 1)
    hh = np.repeat(np.arange(sizes.size), sizes)[:rows]
    weight = rng.uniform(50, 500, size=sizes.size).round(1)[hh]
    region = rng.integers(0, 12, size=sizes.size)[hh]
    frame = pd.DataFrame({"age": rng.integers(0, 18, rows).astype(float), "sex": rng.integers(0, 2, rows).astype(float),
                          "region": region.astype(float), "marital": rng.integers(0, 5, rows).astype(float),
                          "education": rng.integers(0, 8, rows).astype(float), "weight": weight, "household": hh})
    for k in KEYS_SYNTHETIC:  # the region is a household's: missing for whole households
        drawn = rng.random(sizes.size)[hh] if k == "region" else rng.random(rows)
        frame.loc[drawn < 0.002, k] = np.nan
    frame["district"] = region * 10 + rng.integers(0, 10, size=sizes.size)[hh]
    frame["hhsize"] = sizes[hh]
    income = rng.lognormal(10, 0.8, rows)
    frame["income"] = income.round(0)
    frame["expend"] = (income * rng.uniform(0.4, 0.9, rows)).round(0)
    frame["savings"] = (income * rng.uniform(0, 0.3, rows) + rng.normal(0, 500, rows)).round(0)
    return frame


#: the two levels compared (see the module docstring): the method alone, and the whole run
LEVELS = ("method alone", "whole run")


def anonkit_call(measure: Measure, data: Data, level: str) -> Callable[[], object] | None:
    """anonkit's timed call at ``level`` (preparation, such as encoding for the method alone, done here, untimed),
    ``None`` where the level does not apply (a risk measure has no whole run)."""
    side = measure.anonkit
    if isinstance(side, Method):
        return side.alone(data) if level == LEVELS[0] else (lambda: side.whole(data))
    return (lambda: side(data)) if level == LEVELS[0] else None


def r_call(measure: Measure, level: str) -> str | None:
    """sdcMicro's R expression at ``level``: the data.frame function, or the ``sdcMicroObj`` workflow."""
    return measure.r_call if level == LEVELS[0] else measure.r_obj


#: whether each side makes one untimed call first (``--no-warmup`` turns it off on both: at a million rows a
#: first call's own cost is nothing beside its seconds, and the warm-up doubles the run)
WARMUP = [True]


def time_anonkit(call: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median wall and CPU (``time.process_time``) seconds of ``runs`` calls (warm unless ``--no-warmup``)."""
    if WARMUP[0]:
        call()
    walls, cpus = [], []
    for _ in range(runs):
        w0, c0 = time.perf_counter(), time.process_time()
        call()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus)


def _r_names(names: Sequence[str]) -> str:
    return ", ".join(f'"{n}"' for n in names)


def r_script(call: str, data: Data, runs: int, sdc: str) -> str:
    """The R program timing ``call`` on ``data``: the prelude (not timed), a warm-up, ``runs`` timed calls."""
    script = R_PRELUDE
    for name, value in (("{sdc}", sdc), ("{csv}", str(data.csv)), ("{keys}", _r_names(data.keys)),
                        ("{w}", data.weight), ("{hid}", data.household), ("{nv}", _r_names(data.numeric)),
                        ("{pv}", _r_names(data.categorical)), ("{geo}", _r_names(data.geography)),
                        ("{sim}", _r_names(data.similar)), ("{rv}", _r_names(data.risk_variables)),
                        ("{seed}", str(SEED))):
        script = script.replace(name, value)
    timing = R_TIMING.replace("{warmup}", "timed()" if WARMUP[0] else "")
    return script + timing.replace("{call}", call).replace("{runs}", str(runs))


@dataclass(frozen=True)
class Capped:
    """An sdcMicro call stopped at the per-call cap: at least ``wall`` seconds of wall time and ``cpu`` of CPU
    (the R process's CPU when it was stopped, from ``/proc``, less what it had spent when the call began) — a
    lower bound, which still bounds the ratio from above."""

    wall: float
    cpu: float


def _lines(stream: IO[str], into: queue.Queue[str | None]) -> None:
    for line in stream:
        into.put(line)
    into.put(None)


#: how often (seconds) the running R call's CPU time is read against the cap
POLL = 0.5
#: a call is stopped past this many times the cap in wall time too, however little CPU it got (a stalled machine)
WALL_CAP_FACTOR = 20


def _cpu_of(pid: int) -> float:
    """The CPU seconds (user + system) process ``pid`` has used so far, from ``/proc`` (0 where unreadable:
    then only the wall-time stop applies)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def time_r(call: str, data: Data, runs: int, sdc: str, timeout: float,
           cap: float) -> tuple[float, float] | Capped | str:
    """sdcMicro's mean wall and CPU (user + system) seconds per call; :class:`Capped` when a call (the warm-up
    too) uses more than ``cap`` seconds of CPU (read from ``/proc`` every :data:`POLL` seconds: on a loaded
    machine the wall clock says little) or :data:`WALL_CAP_FACTOR` times that in wall time; or why there are
    none (``timeout``: the seconds the prelude — sourcing sdcMicro, reading the CSV — may take)."""
    with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as f:
        f.write(r_script(call, data, runs, sdc))
    proc = subprocess.Popen(["Rscript", f.name], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    got: queue.Queue[str | None] = queue.Queue()
    errors: list[str] = []
    threading.Thread(target=_lines, args=(proc.stdout, got), daemon=True).start()
    threading.Thread(target=lambda: errors.extend(proc.stderr or ()), daemon=True).start()
    start = time.perf_counter()
    began: tuple[float, float] | None = None  # (wall clock, R's CPU) when the running call began
    outcome: tuple[float, float] | Capped | str | None = None
    try:
        while outcome is None:
            try:
                line = got.get(timeout=POLL)
            except queue.Empty:
                now = time.perf_counter()
                if began is None:
                    if now - start > timeout:
                        outcome = f"timed out after {timeout:g} s before the call"
                    continue
                used = _cpu_of(proc.pid) - began[1]
                if used >= cap or now - began[0] >= cap * WALL_CAP_FACTOR:
                    outcome = Capped(now - began[0], used)
                continue
            if line is None:
                break
            word, *values = line.split() or [""]
            if word == "BEGIN":
                began = (time.perf_counter(), float(values[0]))
            elif word == "DONE":
                began, start = None, time.perf_counter()
            elif word == "RESULT":
                outcome = (float(values[0]), float(values[1]))
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.unlink(f.name)
    if outcome is not None:
        return outcome
    return "failed: " + ([e.strip() for e in errors if e.strip()] or ["no output"])[-1]


def subset(data: Data, measure: Measure, cache: dict[tuple[int, bool], Data]) -> Data:
    """``data`` itself, or the part ``measure`` runs on (written once beside its CSV, the same for both tools): its
    first ``max_rows`` rows for a quadratic method, its records with every key for ``complete``."""
    rows = measure.max_rows if measure.max_rows is not None and len(data.frame) > measure.max_rows else None
    complete = measure.complete and bool(data.frame[data.keys].isna().any().any())
    if rows is None and not complete:
        return data
    if (rows or 0, complete) not in cache:
        frame = data.frame.dropna(subset=data.keys) if complete else data.frame
        frame = (frame.head(rows) if rows else frame).reset_index(drop=True)
        tag = f"{'-complete' if complete else ''}{f'-{rows}' if rows else ''}"
        csv = data.csv.with_name(f"{data.csv.stem}{tag}.csv")
        frame.to_csv(csv, index=False, na_rep="")
        cache[rows or 0, complete] = replace(data, frame=frame, csv=csv)
    return cache[rows or 0, complete]


HEADER = (f"{'measure':18} {'rows':>9} {'anonkit wall':>12} {'cpu':>8} {'sdcMicro wall':>14} {'cpu':>8} "
          f"{'ratio wall':>10} {'ratio cpu':>9}  load")


def row(measure: Measure, data: Data, level: str, rounds: int, runs: int, sdc: str | None,
        timeout: float, cap: float) -> str | None:
    """One line of ``level``'s table: both sides' medians over ``rounds`` (each first in turn), the median of the
    rounds' pair ratios (anonkit / sdcMicro) and the load average before it; ``None`` where the level does not
    apply. An sdcMicro call past ``cap`` seconds is shown as at least what it took (``> …``) with the ratio as
    at most anonkit's median over that (``< …``), and sdcMicro's later rounds of the measure are skipped (they
    would only reach the cap again); anonkit's rounds go on."""
    call = anonkit_call(measure, data, level)
    if call is None:
        return None
    expr = r_call(measure, level)
    load = os.getloadavg()[0]
    ours: list[tuple[float, float]] = []
    theirs: list[tuple[float, float]] = []
    capped: Capped | None = None
    note = "" if expr is not None else "no sdcMicro call"
    for r in range(rounds):
        for side in ((0, 1) if r % 2 == 0 else (1, 0)):
            if side == 0:
                ours.append(time_anonkit(call, runs))
            elif sdc is not None and not note and capped is None and expr is not None:
                got = time_r(expr, data, runs, sdc, timeout, cap)
                if isinstance(got, str):
                    note = got
                elif isinstance(got, Capped):
                    capped = got
                else:
                    theirs.append(got)
    aw, ac = (statistics.median(o[i] for o in ours) for i in range(2))
    mine = f"{measure.name:18} {len(data.frame):9,} {aw:12.4f} {ac:8.4f}"
    if capped is not None and not note:
        walls = [capped.wall] + [t[0] for t in theirs]  # the capped call bounds sdcMicro's median from below
        cpus = [capped.cpu] + [t[1] for t in theirs]
        rw, rc = min(walls), min(cpus)
        bound_c = f"< {ac / rc:.3f}" if rc > 0 else "—"
        return (f"{mine} {f'> {rw:.1f}':>14} {f'> {rc:.1f}':>8} {f'< {aw / rw:.3f}':>10} {bound_c:>9}  {load:.2f}"
                f"  capped at {cap:g} s")
    if theirs and not note:
        rw = statistics.median(t[0] for t in theirs)
        rc = statistics.median(t[1] for t in theirs)
        ratio_w = statistics.median(o[0] / t[0] for o, t in zip(ours, theirs, strict=False) if t[0] > 0)
        ratio_c = statistics.median(o[1] / t[1] for o, t in zip(ours, theirs, strict=False) if t[1] > 0)
        return f"{mine} {rw:14.4f} {rc:8.4f} {ratio_w:10.3f} {ratio_c:9.3f}  {load:.2f}"
    return f"{mine} {'—':>14} {'—':>8} {'—':>10} {'—':>9}  {load:.2f}  {note or 'sdcMicro skipped'}"


def bench(data: Data, measures: list[Measure], rounds: int, runs: int, sdc: str | None, timeout: float,
          cap: float) -> None:
    """Two tables per data set, :data:`LEVELS`: the method alone (and the risk measures), then the whole run;
    each line printed as it is measured, the two tables again together at the end."""
    print(f"\n== {data.name}: {len(data.frame):,} rows, keys {', '.join(data.keys)}")
    cache: dict[tuple[int, bool], Data] = {}
    lines: dict[str, list[str]] = {level: [] for level in LEVELS}
    for m in measures:
        d = subset(data, m, cache)
        for level in LEVELS:
            line = row(m, d, level, rounds, runs, sdc, timeout, cap)
            if line is not None:
                lines[level].append(line)
                print(f"[{level}] {line}", flush=True)
    for level in LEVELS:
        print(f"\n-- {data.name}, {level}\n{HEADER}\n" + "\n".join(lines[level]), flush=True)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _rows(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 (none) or more")
    return value


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The options; an unknown ``--only`` name or a count below 1 is refused in one line (exit 2)."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--testdata", default="/tmp/testdata.csv", help="sdcMicro's testdata as CSV (see the docstring)")
    ap.add_argument("--synthetic", type=_rows, default=1_000_000, help="rows of the synthetic survey (0: none)")
    ap.add_argument("--rounds", type=_positive, default=3)
    ap.add_argument("--runs", type=_positive, default=3)
    ap.add_argument("--sdc-dir", default=os.environ.get("SDC_DIR", DEFAULT_SDC_DIR),
                    help="the folder holding sdcMicro's sourced R files and build.R (see the docstring)")
    ap.add_argument("--r-timeout", type=float, default=R_TIMEOUT,
                    help="seconds sdcMicro's prelude (sourcing it, reading the CSV) may take before it is stopped")
    ap.add_argument("--cap", type=float, default=CALL_CAP,
                    help="CPU seconds one sdcMicro call may use: past it, shown as '> cap s' (a bound on the ratio)")
    ap.add_argument("--no-warmup", action="store_true", help="no untimed first call on either side")
    ap.add_argument("--only", default="", help=f"measures to run, comma-separated (default: all of {', '.join(NAMES)})")
    args = ap.parse_args(argv)
    unknown = [n for n in args.only.split(",") if n and n not in NAMES]
    if unknown:
        ap.error(f"--only: unknown measure {unknown[0]!r}; choose from {', '.join(NAMES)}")
    return args


def tables(args: argparse.Namespace) -> list[Data]:
    """testdata (when its CSV exists) and the synthetic survey (when ``--synthetic`` is not 0)."""
    found = []
    if Path(args.testdata).is_file():
        frame = pd.read_csv(args.testdata)
        found.append(Data("testdata", frame, Path(args.testdata), KEYS_TESTDATA, "sampling_weight", "ori_hid",
                          numeric=["expend", "income", "savings"], categorical=["roof", "walls", "water"],
                          geography=["urbrur", "roof"], similar=["electcon"], risk_variables=["sex", "relat"]))
    else:
        print(f"testdata skipped: {args.testdata} does not exist (export it as the docstring says)")
    if args.synthetic:
        folder = Path(tempfile.mkdtemp(prefix="bench_sdc_"))
        frame = synthetic(args.synthetic)
        frame.to_csv(folder / "synthetic.csv", index=False, na_rep="")
        found.append(Data("synthetic", frame, folder / "synthetic.csv", KEYS_SYNTHETIC, "weight", "household",
                          numeric=["income", "expend", "savings"], categorical=["marital", "education"],
                          geography=["region", "district"], similar=["hhsize"], risk_variables=["sex", "age"]))
    return found


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(argv)
    sdc = args.sdc_dir if Path(args.sdc_dir, "build.R").is_file() else None
    if sdc is None:
        print(f"sdcMicro's side skipped: no built sdcMicro in {args.sdc_dir} (see the docstring for how to build it)")
    WARMUP[0] = not args.no_warmup
    measures = [m for m in MEASURES if not args.only or m.name in args.only.split(",")]
    print(f"load average {os.getloadavg()}, {os.cpu_count()} cores; rounds {args.rounds} × runs {args.runs}")
    for data in tables(args):
        bench(data, measures, args.rounds, args.runs, sdc, args.r_timeout, args.cap)


if __name__ == "__main__":
    main()
