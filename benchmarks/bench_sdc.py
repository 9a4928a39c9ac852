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

:data:`MEASURES` is the table: (name, anonkit's call, sdcMicro's R call), so a method added later is one
line. The risk measures call ``anonkit.risk``; the methods call anonkit's public
``anonymize(frame, schema, models, algorithm=…, **options)`` on the same table sdcMicro reads (keys as
categorical quasi-identifiers, every other column insensitive; record linkage left out of the summary), so
anonkit's time is a whole run in memory — encode, method, independent verification, summary with the
utility measures — and ``alg`` is the method's own share (its release's ``seconds``); no file is read or
written in either timing. The same parameters on both sides: localSuppression k 3 on the keys (heuristic,
no importance); pram on testdata's roof, walls, water (the synthetic's marital, education) with pd 0.8,
alpha 0.5; addNoise additive, noise 150 on the numeric columns; microaggregation mdav, pca, onedims with
k (``aggr``) 3; rankSwap with a 5 % window (sdcMicro ``P = 0.05``, no top/bottom coding: anonkit's ``p: 5``);
recordSwap with hierarchy urbrur > roof (testdata, a stand-in geography) or region > district, similar
electcon or household size, k-anonymity 3 on sex and relat (sex and age), swap rate 0.05 — on the records
with every key (sdcMicro's recordSwap refuses a missing value), on both sides. mdav and rankSwap run on the
first :data:`QUADRATIC_ROWS` rows of a larger table: mdav is O(n²) in both tools, sdcMicro's rank swap
O(n²·P) (each record scans its whole window).

Each round runs anonkit's call ``--runs`` times in this process (warm; median wall and CPU of
``time.process_time``) and sdcMicro's in one ``Rscript`` (``system.time`` over ``--runs`` calls after a
warm-up, elapsed and user + system), the two sides first in turn; printed: the medians per side and the
median of the rounds' pair ratios (anonkit / sdcMicro), and the load average before each measure. An R
call over ``--r-timeout`` seconds (default 300) is stopped and reported as timed out.

sdcMicro: it cannot be installed as a package here (CRAN is unreachable), so its R files are sourced and
its C++ compiled with Rcpp from its public source, into a folder outside this repository given as
``--sdc-dir`` (the ``SDC_DIR`` environment variable; default /tmp/w5/sdc). How the lead built it (Debian's
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
R files. Without that folder sdcMicro's side is skipped with a message and anonkit's times are printed alone.
Never commit sdcMicro's code.

Measured 2026-11-28 on this machine (2 cores; load average 1.1–1.3, the last column), after the day's speed-ups
(rank and record swapping indexed, local suppression's restore pass on patterns, MDAV's exact sums, the
perturbed-utility measures vectorized),
sdcMicro 5.8.1 from /tmp/w5/sdc, Debian's R 4.2.2. testdata: 3 rounds × 3 runs; seconds per call (medians),
ratio = anonkit / sdcMicro; ``alg`` = the method's own seconds inside anonkit's run::

measure                 rows anonkit wall      cpu      alg  sdcMicro wall      cpu ratio wall ratio cpu  load
freqCalc               4,580       0.0010   0.0010      nan         0.0077   0.0077      0.133     0.133  1.28
indivRisk              4,580       0.0010   0.0010      nan         0.0087   0.0087      0.122     0.118  1.28
measure_risk           4,580       0.0011   0.0011      nan         0.0117   0.0113      0.099     0.099  1.26
household risk         4,580       0.0012   0.0012      nan         0.0377   0.0373      0.032     0.033  1.26
suda2                  4,580       0.0127   0.0127      nan         0.0157   0.0153      0.812     0.818  1.24
modRisk                4,580       0.0117   0.0117      nan         0.1283   0.1287      0.090     0.090  1.24
localSuppression       4,580       0.0987   0.0987   0.0236         0.6237   0.6197      0.158     0.159  1.22
pram                   4,580       0.0463   0.0463   0.0173         0.0740   0.0737      0.626     0.629  1.19
addNoise               4,580       0.0296   0.0296   0.0089         0.0027   0.0023     11.317    12.598  1.17
micro mdav             4,580       0.1602   0.1602   0.1295         0.0563   0.0563      2.827     2.827  1.16
micro pca              4,580       0.0439   0.0438   0.0167         0.1163   0.1160      0.378     0.378  1.14
micro onedims          4,580       0.0435   0.0435   0.0159         0.0303   0.0300      1.435     1.451  1.13
rankSwap               4,580       0.0817   0.0817   0.0395         0.0063   0.0063     12.907    12.908  1.12
recordSwap             4,580       0.0419   0.0419   0.0166         0.0303   0.0300      1.426     1.412  1.12

The synthetic survey, 1,000,000 rows, 1 round × 1 run, measured BEFORE those speed-ups at load 1.8–3.4 (after
them, in the helpers' runs at load 2.6–8: localSuppression 0.77×, micro mdav at 100 k 0.66×, recordSwap 1.20×,
rankSwap at 100 k 1.72×, addNoise's run at 300 k 0.59 s CPU instead of 2.18 s; to be rerun whole) (mdav and
rankSwap on its first 100,000 rows: mdav's O(n²) would be about 100 × longer at 1 M in both tools,
sdcMicro's rankSwap scans a 50,000-rank window per record; recordSwap on the 989,910 records with every key)::

freqCalc           1,000,000       0.2576   0.2570      nan        13.6100  12.9110      0.019     0.020  2.54
indivRisk          1,000,000       0.2562   0.2555      nan        16.2640  12.2420      0.016     0.021  2.30
measure_risk       1,000,000       0.2625   0.2565      nan        15.7640  11.4760      0.017     0.022  2.67
household risk     1,000,000       0.2877   0.2842      nan        19.4330  19.2960      0.015     0.015  2.66
suda2              1,000,000       0.2988   0.2932      nan         3.6350   3.6050      0.082     0.081  2.19
modRisk            1,000,000       0.2203   0.2199      nan         0.3350   0.3290      0.658     0.668  2.15
localSuppression   1,000,000      58.8751  58.6910  46.5837        23.0650  23.0410      2.553     2.547  1.94
pram               1,000,000      12.6012  12.5843   3.3609        12.7650  12.7570      0.987     0.986  2.02
addNoise           1,000,000       5.0167   6.5314   2.0360         0.2450   0.2420     20.476    26.989  2.02
micro mdav           100,000     161.2192 150.0605 160.2846        56.0930  53.5360      2.874     2.803  1.81
micro pca          1,000,000       8.5116   8.0311   3.9340        36.4670  34.6590      0.233     0.232  3.10
micro onedims      1,000,000       8.4694   8.2794   3.6122         6.5060   6.3210      1.302     1.310  3.29
rankSwap             100,000       2.8598   2.6488   1.4707         0.6750   0.5990      4.237     4.422  3.34
recordSwap           989,910      27.4833  26.7046  19.7459         6.6000   6.2620      4.164     4.265  3.41

Nothing timed out at 300 s. Where anonkit is slower, the time goes (cProfile, same inputs):

* a fixed cost of about 0.1 s per ``anonymize`` run on testdata (encode ``table.Table``, the independent
  verifier, the summary's utility measures ``metrics/perturbed.release_utility``): against sdcMicro's
  milliseconds for addNoise (2 ms) and rankSwap (7 ms) that is the whole ratio; ``alg`` alone is 16× and 15×.
* addNoise 1 M: ``metrics/_perturbed_numeric.regression_comparison`` (6 OLS fits with ``ols_intervals``:
  ``matrix_rank``'s SVD, ``lstsq``, ``inv``) ≈ half of the run; in the algorithm, ``_release.published_classes``
  (every published quasi-identifier cell turned into text and grouped) ≈ 75 % of ``alg``, the noise itself
  ≈ 0.3 s. On a loaded machine OpenBLAS's threads make each small SVD erratic (0.5 ms to 40 ms).
* mdav: ``algorithms/cluster/_mdav_tuples.exact_mean`` (``math.fsum`` over ``tolist()`` of the remaining
  records each step: an exactly rounded centroid) ≈ 75 % of ``alg`` at 20,000 rows; sdcMicro's C++ sums doubles.
* localSuppression 1 M: ``algorithms/suppress/_restore.restore_cells`` → ``_may_restore`` (putting back
  cells the heuristic did not need; sdcMicro keeps them suppressed) ≈ 77 % of ``alg`` at 200,000 rows, the
  heuristic ≈ 20 %; the verifier (``_verify_wildcard.wildcard_counts``) ≈ 15 % of the run.
* recordSwap 1 M: ``algorithms/perturb/_record_swap._donor`` (a scan of the candidate households per swap,
  so quadratic overall) ≈ 58 % of ``alg`` at 600,000 rows; the summary's
  ``metrics/_perturbed_categorical.shared_codes`` (a Python function per value) ≈ 30 % of the run.
* pram 1 M (on a par): the same ``shared_codes`` ≈ 45 % of the run, the verifier ≈ 21 %, ``alg`` ≈ 21 %.
* rankSwap 100,000: ``perturb/rank_swap.swap_ranks`` (a Python loop per rank) ≈ 88 % of ``alg``, the verifier
  ``verify_rank_swap`` ≈ 0.7 s, the summary ≈ 0.8 s. Undeclared
  numeric columns (insensitive, no type) add ``_release.column_kind``'s inference from every value's text
  (``_values.labels_look_numeric``): 73 % of rankSwap's ``alg`` on testdata, hence the types declared here.
* onedims and pca at 1 M: ``alg`` alone is faster than sdcMicro (3.6 s against 6.5 s; 3.9 s against 36.5 s);
  the rest of the run is the same verification and summary.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from anonkit import Schema, anonymize
from anonkit.models import KAnonymity
from anonkit.risk import loglinear_risk, sample_frequencies, suda2, survey_risk
from anonkit.risk.survey import household_risk, individual_risk

KEYS_TESTDATA = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]
KEYS_SYNTHETIC = ["age", "sex", "region", "marital", "education"]
DEFAULT_SDC_DIR = "/tmp/w5/sdc"
R_TIMEOUT = 300
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


@dataclass(frozen=True)
class Measure:
    """One row of the table: anonkit's call on a :class:`Data`, and the R expression sdcMicro runs (``x`` the data,
    ``keys``, ``w``, ``hid``, ``nv`` numeric, ``pv`` categorical, ``geo``, ``sim``, ``rv`` names; ``xi`` the data
    with integer codes, as recordSwap wants it; ``fk``-like inputs are recomputed inside the call). ``max_rows``:
    the method runs on the first rows only above it (a quadratic method); ``complete``: on the records with every
    key (sdcMicro's recordSwap refuses a missing value), on both sides."""

    name: str
    anonkit: Callable[[Data], object]
    r_call: str
    max_rows: int | None = None
    complete: bool = False


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


def method(algorithm: str, k: int = 1, household: bool = False,
           **options: Callable[[Data], object] | object) -> Callable[[Data], object]:
    """anonkit's public ``anonymize`` running ``algorithm`` on a :class:`Data` (an option given as a function of
    the data is called on it), record linkage left out of the summary: the method, its verification, its
    summary, no file."""
    def call(data: Data) -> object:
        given = {name: value(data) if callable(value) else value for name, value in options.items()}
        return anonymize(data.frame, schema_of(data, household=household), [KAnonymity(k)], algorithm=algorithm,
                         seed=SEED, skip_measures=("record_linkage",), **given)
    return call


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
            "combs = NULL, importance = NULL, alpha = 1)"),
    Measure("pram", method("pram", columns=lambda d: d.categorical, pd=PRAM_PD, alpha=PRAM_ALPHA),
            f"pram(x, variables = pv, pd = {PRAM_PD}, alpha = {PRAM_ALPHA})"),
    Measure("addNoise", method("add-noise", columns=lambda d: d.numeric, method="additive", level=NOISE_LEVEL),
            f"addNoise(x, variables = nv, noise = {NOISE_LEVEL}, method = 'additive')"),
    *(Measure(f"micro {m}", method("microaggregation", columns=lambda d: d.numeric, method=m, k=K),
              f"microaggregation(x, variables = nv, aggr = {K}, method = '{m}')",
              QUADRATIC_ROWS if m == "mdav" else None) for m in ("mdav", "pca", "onedims")),
    Measure("rankSwap", method("rank-swap", columns=lambda d: d.numeric, p=SWAP_P),
            f"rankSwap(x, variables = nv, TopPercent = 0, BottomPercent = 0, P = {SWAP_P / 100}, seed = {SEED}L)",
            QUADRATIC_ROWS),
    Measure("recordSwap", method("record-swap", household=True, hierarchy=lambda d: d.geography,
                                 similar=lambda d: d.similar, swaprate=SWAPRATE, k=K,
                                 risk_variables=lambda d: d.risk_variables),
            f"recordSwap(xi, hid = hid, hierarchy = geo, similar = list(sim), swaprate = {SWAPRATE}, "
            f"k_anonymity = {K}, risk_variables = rv, seed = {SEED}L, log_file_name = tempfile())", complete=True),
]
NAMES = [m.name for m in MEASURES]

R_PRELUDE = """
suppressMessages({library(data.table); library(MASS)})
setwd("{sdc}")
suppressMessages(source("build.R"))
measure_threshold <- function(...) list(global_threshold_unsafe=NA, global_threshold_safe=NA, global_threshold=NA)
x <- read.csv("{csv}")
keys <- c({keys}); w <- "{w}"; hid <- "{hid}"
nv <- c({nv}); pv <- c({pv}); geo <- c({geo}); sim <- c({sim}); rv <- c({rv})
for (k in keys) x[[k]] <- as.factor(x[[k]])
x2 <- na.omit(x[, c(keys, w)]); x2w <- x2[[w]]
fm <- as.formula(paste("~", paste(keys, collapse = " + ")))
xi <- as.data.table(x); for (v in unique(c(keys, geo, sim, rv))) xi[[v]] <- as.integer(xi[[v]])
set.seed({seed})
"""
R_TIMING = """
invisible({call})
t <- system.time(for (i in seq_len({runs})) invisible({call}))
cat(sprintf("RESULT %.6f %.6f\\n", t[["elapsed"]] / {runs}, (t[["user.self"]] + t[["sys.self"]]) / {runs}))
"""


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


def method_seconds(result: object) -> float:
    """The algorithm's own seconds of an ``anonymize`` result (its release's ``seconds``), NaN for a measure."""
    seconds = getattr(getattr(result, "release", None), "seconds", None)
    return float(seconds) if seconds is not None else math.nan


def time_anonkit(measure: Measure, data: Data, runs: int) -> tuple[float, float, float]:
    """Median wall, CPU and algorithm-only seconds of ``runs`` warm calls."""
    measure.anonkit(data)
    walls, cpus, own = [], [], []
    for _ in range(runs):
        w0, c0 = time.perf_counter(), time.process_time()
        got = measure.anonkit(data)
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
        own.append(method_seconds(got))
    return statistics.median(walls), statistics.median(cpus), statistics.median(own)


def _r_names(names: Sequence[str]) -> str:
    return ", ".join(f'"{n}"' for n in names)


def r_script(measure: Measure, data: Data, runs: int, sdc: str) -> str:
    """The R program timing ``measure`` on ``data``: the prelude (not timed), a warm-up, ``runs`` timed calls."""
    script = R_PRELUDE
    for name, value in (("{sdc}", sdc), ("{csv}", str(data.csv)), ("{keys}", _r_names(data.keys)),
                        ("{w}", data.weight), ("{hid}", data.household), ("{nv}", _r_names(data.numeric)),
                        ("{pv}", _r_names(data.categorical)), ("{geo}", _r_names(data.geography)),
                        ("{sim}", _r_names(data.similar)), ("{rv}", _r_names(data.risk_variables)),
                        ("{seed}", str(SEED))):
        script = script.replace(name, value)
    return script + R_TIMING.replace("{call}", measure.r_call).replace("{runs}", str(runs))


def time_r(measure: Measure, data: Data, runs: int, sdc: str, timeout: float) -> tuple[float, float] | str:
    """sdcMicro's mean wall and CPU seconds per call, or why there are none."""
    with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as f:
        f.write(r_script(measure, data, runs, sdc))
    try:
        proc = subprocess.run(["Rscript", f.name], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout:g} s"
    finally:
        os.unlink(f.name)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            wall, cpu = map(float, line.split()[1:])
            return wall, cpu
    return "failed: " + (proc.stderr.strip().splitlines() or ["no output"])[-1]


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


HEADER = (f"{'measure':18} {'rows':>9} {'anonkit wall':>12} {'cpu':>8} {'alg':>8} {'sdcMicro wall':>14} {'cpu':>8} "
          f"{'ratio wall':>10} {'ratio cpu':>9}  load")


def bench(data: Data, measures: list[Measure], rounds: int, runs: int, sdc: str | None, timeout: float) -> None:
    """One table per data set: each measure's medians on both sides and the median pair ratio (anonkit's
    ``anonymize`` wall and CPU, and ``alg`` the algorithm's own seconds inside it, for the methods)."""
    print(f"\n== {data.name}: {len(data.frame):,} rows, keys {', '.join(data.keys)}")
    print(HEADER)
    cache: dict[tuple[int, bool], Data] = {}
    for m in measures:
        d = subset(data, m, cache)
        load = os.getloadavg()[0]
        ours, theirs, note = [], [], ""
        for r in range(rounds):
            for side in ((0, 1) if r % 2 == 0 else (1, 0)):
                if side == 0:
                    ours.append(time_anonkit(m, d, runs))
                elif sdc is not None and not note:
                    got = time_r(m, d, runs, sdc, timeout)
                    if isinstance(got, str):
                        note = got
                    else:
                        theirs.append(got)
        aw, ac, aa = (statistics.median(o[i] for o in ours) for i in range(3))
        mine = f"{m.name:18} {len(d.frame):9,} {aw:12.4f} {ac:8.4f} {aa:8.4f}"
        if theirs and not note:
            rw = statistics.median(t[0] for t in theirs)
            rc = statistics.median(t[1] for t in theirs)
            ratio_w = statistics.median(o[0] / t[0] for o, t in zip(ours, theirs, strict=False) if t[0] > 0)
            ratio_c = statistics.median(o[1] / t[1] for o, t in zip(ours, theirs, strict=False) if t[1] > 0)
            print(f"{mine} {rw:14.4f} {rc:8.4f} {ratio_w:10.3f} {ratio_c:9.3f}  {load:.2f}", flush=True)
        else:
            print(f"{mine} {'—':>14} {'—':>8} {'—':>10} {'—':>9}  {load:.2f}  {note or 'sdcMicro skipped'}",
                  flush=True)


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
    ap.add_argument("--r-timeout", type=float, default=R_TIMEOUT, help="seconds before an R call is stopped")
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
    measures = [m for m in MEASURES if not args.only or m.name in args.only.split(",")]
    print(f"load average {os.getloadavg()}, {os.cpu_count()} cores; rounds {args.rounds} × runs {args.runs}")
    for data in tables(args):
        bench(data, measures, args.rounds, args.runs, sdc, args.r_timeout)


if __name__ == "__main__":
    main()
