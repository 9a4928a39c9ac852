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
untimed call, elapsed and user + system), the two sides first in turn; ``--no-warmup`` drops the untimed call
on both sides (at a million rows). Printed: the medians per side, the median of the rounds' pair ratios
(anonkit / sdcMicro) and the load average before each measure. An R call over ``--r-timeout`` seconds
(default 300) is stopped and reported as timed out.

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

Measured 2026-11-28 on this machine (2 cores shared with six other jobs: load average 6–16, the last column, so
**compare the CPU columns**; the wall clock waited for a core), sdcMicro 5.8.1 from /tmp/sdcspeed/sdc, Debian's
R 4.2.2, after this session's speed-ups (see below). Seconds per call (medians); ratio = anonkit / sdcMicro.

testdata, 3 rounds × 3 runs (addNoise, micro mdav and rankSwap rerun after the last speed-up, the same way,
together: ``--only "addNoise,micro mdav,rankSwap"``; recordSwap after the one before),
(a) method alone::

measure                 rows anonkit wall      cpu  sdcMicro wall      cpu ratio wall ratio cpu  load
freqCalc               4,580       0.0015   0.0014         0.0363   0.0090      0.038     0.152  7.52
indivRisk              4,580       0.0013   0.0013         0.0870   0.0097      0.014     0.138  7.78
measure_risk           4,580       0.0013   0.0013         0.0863   0.0110      0.028     0.120  8.79
household risk         4,580       0.0014   0.0014         0.3517   0.0387      0.004     0.037  9.27
suda2                  4,580       0.1465   0.0154         0.1297   0.0153      1.130     1.016  10.59
modRisk                4,580       0.0957   0.0136         0.9987   0.1343      0.088     0.101  11.28
localSuppression       4,580       0.1688   0.0205         6.5897   0.7923      0.025     0.026  11.21
pram                   4,580       0.1171   0.0152         0.6557   0.0780      0.179     0.196  11.01
addNoise               4,580       0.0024   0.0023         0.0047   0.0027      0.573     0.875  6.37
micro mdav             4,580       0.0641   0.0313         0.1153   0.0577      0.554     0.544  6.57
micro pca              4,580       0.0521   0.0127         0.4903   0.1220      0.106     0.105  10.29
micro onedims          4,580       0.0589   0.0139         0.1243   0.0307      0.474     0.452  10.65
rankSwap               4,580       0.0088   0.0047         0.0167   0.0070      0.567     0.677  6.71
recordSwap             4,580       0.0811   0.0109         0.1613   0.0260      0.454     0.409  15.33

(b) whole run::

measure                 rows anonkit wall      cpu  sdcMicro wall      cpu ratio wall ratio cpu  load
localSuppression       4,580       0.8601   0.1174         8.9690   1.1330      0.099     0.104  11.38
pram                   4,580       0.3854   0.0510         0.9177   0.1140      0.457     0.450  11.09
addNoise               4,580       0.0525   0.0253         0.1323   0.0603      0.420     0.439  6.26
micro mdav             4,580       0.1263   0.0606         0.2170   0.1083      0.570     0.565  6.64
micro pca              4,580       0.1615   0.0403         0.9180   0.2257      0.176     0.178  10.52
micro onedims          4,580       0.1886   0.0460         0.3947   0.1117      0.469     0.412  10.58
rankSwap               4,580       0.0497   0.0336         0.1150   0.0583      0.569     0.559  6.65
recordSwap             4,580       0.3327   0.0467         0.5590   0.0817      0.553     0.574  14.37

The synthetic survey, 1,000,000 rows, 1 round × 1 run, ``--no-warmup`` (suda2 and modRisk rerun with the
warm-up: without it their first call included importing scipy, modRisk 0.49 s; rankSwap on its first 100,000
rows; recordSwap on the 989,910 records with every key; mdav not run at 1 M: O(n²) in both tools — at its first
100,000 rows, 1 round × 1 run, ``--no-warmup``, method alone 9.84 s CPU against sdcMicro's 56.86 s (ratio 0.173,
load 6.9), whole run 9.80 s against 58.25 s (0.168, load 6.1); sdcMicro's whole run of
localSuppression timed out: over 400 s of wall time at load 13), (a) method alone::

measure                 rows anonkit wall      cpu  sdcMicro wall      cpu ratio wall ratio cpu  load
freqCalc           1,000,000       3.1092   0.3470       119.9570  15.3080      0.026     0.023  10.15
indivRisk          1,000,000       1.5793   0.2629       112.3730  16.0760      0.014     0.016  9.28
measure_risk       1,000,000       2.2105   0.4399        55.2490  15.5470      0.040     0.028  8.23
household risk     1,000,000       1.3736   0.3457        76.4920  23.4950      0.018     0.015  6.39
suda2              1,000,000       0.5471   0.2836         8.8570   4.3500      0.062     0.065  5.21
modRisk            1,000,000       0.4534   0.2262         0.6100   0.2920      0.743     0.775  5.19
localSuppression   1,000,000      29.2858   3.7214       123.7490  31.0890      0.237     0.120  10.88
pram               1,000,000      19.9208   2.7627        51.8560  15.1210      0.384     0.183  12.13
addNoise           1,000,000       1.5257   0.5982         1.0760   0.3770      1.418     1.587  7.66
micro pca          1,000,000      16.9112   2.6681       153.6570  30.3170      0.110     0.088  9.10
micro onedims      1,000,000       3.9351   2.6369        10.9480   7.2750      0.359     0.362  4.61
rankSwap             100,000       0.1327   0.0860         0.9060   0.5990      0.146     0.144  4.72
recordSwap           989,910       2.5476   1.6942        17.2140   9.0070      0.148     0.188  4.51

(b) whole run::

measure                 rows anonkit wall      cpu  sdcMicro wall      cpu ratio wall ratio cpu  load
localSuppression   1,000,000      70.8410  15.8842        > 400 s        —          —         —  13.06
pram               1,000,000      22.3274   6.6143       123.9120  40.9140      0.180     0.162  10.70
addNoise           1,000,000       7.4418   2.4676       198.8170  25.0690      0.037     0.098  7.63
micro pca          1,000,000      18.5228   5.3686       145.8730  66.0520      0.127     0.081  6.51
micro onedims      1,000,000       8.4545   5.0492        50.1190  33.4870      0.169     0.151  4.77
rankSwap             100,000       0.6921   0.4578         5.1800   3.4280      0.134     0.134  4.66
recordSwap           989,910       9.3929   4.5955        40.7020  20.0790      0.231     0.229  4.90

This session's speed-ups (every release byte-identical for the same seed: the published table and the summary
but its seconds, compared before/after for seeds 1, 7 and 123 on testdata and a 60,000-row synthetic survey,
every method of the table): the verifier's ``cell_texts`` turns the distinct values of a number column into
text, not every cell (``astype(str)``: 5 ms a column of 4,580); the permutation check compares numbers by their
bits (no text, no ``Counter``); the perturbed-utility regressions fit on the matrices already read and the
column kinds trust a numpy number dtype; record swapping's household codes rank distinct texts; rank swapping's
pairing loop below 50,000 values runs on a list with numpy's bounded draws computed in Python
(``perturb/_bounded_draws.py``, draw for draw and state for state), 4× faster.

Where anonkit is still slower, and why (cProfile in CPU time, same inputs):

* rankSwap alone in a process that has not loaded numba (``--only rankSwap``: testdata 10.4 ms against 6.7 ms
  CPU, ratio 1.52 at load 6.4): the pairing of ranks is then the Python list loop (2 ms a column of 4,580),
  against sdcMicro's C++ loop. The compiled Fenwick-tree loop runs from 50,000 ranked values, or from 100 when the
  process has numba loaded already (as in the table above, where micro mdav ran first): loading numba from its
  cache costs about 0.3 s, which 4,580 values never repay in a one-shot run. The whole run is faster either way.
* addNoise alone at 1 M (0.60 s against 0.38 s CPU, measured before the last speed-up, not rerun).

The last speed-up (issue 28 item 8; releases byte-identical for seeds 1, 7, 123, alone and whole, on testdata):
microaggregation's ``mdav`` from 2,000 records with every value finite runs
``perturb/_micro_kernels.mdav_numeric`` (numba): MDAV's rounds as ``cluster/mdav.py``'s ``mdav_groups`` forms
them, the centroid the correctly rounded sum kept as an exact expansion of partial sums (``math.fsum``'s
algorithm) that every taken record is subtracted from, so no round re-sums the remaining records (testdata
0.13 → 0.03 s); the published classes rank each integer key column through a table over its span (no hashing,
no sub-frame copy), 1.8 → 0.7 ms; add-noise reads its columns once; the frame is copied shallow (copy-on-write);
rank swapping takes the compiled loop when numba is loaded.
* suda2 on testdata is on a par (15 ms each; sdcMicro's is C++): 274 small ``pd.factorize`` calls in the
  prefix search, each ~25 µs of pandas overhead (a numpy bincount numbering was tried: slower above 1,000 keys).
* sdcMicro's whole run of localSuppression at 1 M did not finish within 400 s of wall time (under load 13);
  anonkit's took 15.9 s CPU.
"""

from __future__ import annotations

import argparse
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
from anonkit.plan.arguments import plan_from_arguments
from anonkit.risk import loglinear_risk, sample_frequencies, suda2, survey_risk
from anonkit.risk.survey import household_risk, individual_risk
from anonkit.table import Table

KEYS_TESTDATA = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]
KEYS_SYNTHETIC = ["age", "sex", "region", "marital", "education"]
DEFAULT_SDC_DIR = "/tmp/sdcspeed/sdc"
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
{warmup}
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
    timing = R_TIMING.replace("{warmup}", "invisible({call})" if WARMUP[0] else "")
    return script + timing.replace("{call}", call).replace("{runs}", str(runs))


def time_r(call: str, data: Data, runs: int, sdc: str, timeout: float) -> tuple[float, float] | str:
    """sdcMicro's mean wall and CPU (user + system) seconds per call, or why there are none."""
    with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as f:
        f.write(r_script(call, data, runs, sdc))
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


HEADER = (f"{'measure':18} {'rows':>9} {'anonkit wall':>12} {'cpu':>8} {'sdcMicro wall':>14} {'cpu':>8} "
          f"{'ratio wall':>10} {'ratio cpu':>9}  load")


def row(measure: Measure, data: Data, level: str, rounds: int, runs: int, sdc: str | None,
        timeout: float) -> str | None:
    """One line of ``level``'s table: both sides' medians over ``rounds`` (each first in turn), the median of the
    rounds' pair ratios (anonkit / sdcMicro) and the load average before it; ``None`` where the level does not
    apply."""
    call = anonkit_call(measure, data, level)
    if call is None:
        return None
    expr = r_call(measure, level)
    load = os.getloadavg()[0]
    ours: list[tuple[float, float]] = []
    theirs: list[tuple[float, float]] = []
    note = "" if expr is not None else "no sdcMicro call"
    for r in range(rounds):
        for side in ((0, 1) if r % 2 == 0 else (1, 0)):
            if side == 0:
                ours.append(time_anonkit(call, runs))
            elif sdc is not None and not note and expr is not None:
                got = time_r(expr, data, runs, sdc, timeout)
                if isinstance(got, str):
                    note = got
                else:
                    theirs.append(got)
    aw, ac = (statistics.median(o[i] for o in ours) for i in range(2))
    mine = f"{measure.name:18} {len(data.frame):9,} {aw:12.4f} {ac:8.4f}"
    if theirs and not note:
        rw = statistics.median(t[0] for t in theirs)
        rc = statistics.median(t[1] for t in theirs)
        ratio_w = statistics.median(o[0] / t[0] for o, t in zip(ours, theirs, strict=False) if t[0] > 0)
        ratio_c = statistics.median(o[1] / t[1] for o, t in zip(ours, theirs, strict=False) if t[1] > 0)
        return f"{mine} {rw:14.4f} {rc:8.4f} {ratio_w:10.3f} {ratio_c:9.3f}  {load:.2f}"
    return f"{mine} {'—':>14} {'—':>8} {'—':>10} {'—':>9}  {load:.2f}  {note or 'sdcMicro skipped'}"


def bench(data: Data, measures: list[Measure], rounds: int, runs: int, sdc: str | None, timeout: float) -> None:
    """Two tables per data set, :data:`LEVELS`: the method alone (and the risk measures), then the whole run;
    each line printed as it is measured, the two tables again together at the end."""
    print(f"\n== {data.name}: {len(data.frame):,} rows, keys {', '.join(data.keys)}")
    cache: dict[tuple[int, bool], Data] = {}
    lines: dict[str, list[str]] = {level: [] for level in LEVELS}
    for m in measures:
        d = subset(data, m, cache)
        for level in LEVELS:
            line = row(m, d, level, rounds, runs, sdc, timeout)
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
    ap.add_argument("--r-timeout", type=float, default=R_TIMEOUT, help="seconds before an R call is stopped")
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
        bench(data, measures, args.rounds, args.runs, sdc, args.r_timeout)


if __name__ == "__main__":
    main()
