"""Paper A's experiment (UHRA: Amiri, Khan, Anjum, Syed, Rehman, *Applied Sciences* 13(7) 4091, 2023;
spec §4.1–4.3, §2.5, §3).

UHRA against its two baselines, BKA-JS and k-primacy (both *reconstructed*, spec §4.2–4.3), on

* **Adult** (the bundled 30,162-record extract; ``--quick``: a seeded sample of
  :data:`QUICK_ADULT_RECORDS`): QIs age (numeric), sex, education; sensitive salary-class (2 values);
* **BKseq** (:func:`anonkit.datasets.make_bkseq`, the seeded BKseq-like generator, 24 releases of
  4,000 records; ``--quick``: :data:`QUICK_BKSEQ_RECORDS` records): **one release, the last** (24)
  — the adversary has seen the 23 before it, which is what the incremental option below uses.
  QIs gender, age (numeric), weight (numeric); sensitive disease (19 values: ``healthy`` and six
  diseases × three stages). The generator declares the disease with a hierarchy (stage → family →
  ``*``), not as one ordinal scale — six diseases' stages do not line up on one axis — so
  t-closeness uses the **equal** ground distance (``bkseq_distance="hierarchical"`` is the option).

The adversary's priors ``P(S | QI)`` are computed **once per data set** and given to every run: the
kernel estimate of spec §3.2 (bandwidth 0.3). For BKseq, ``bkseq_priors="incremental"`` instead
reconstructs the paper's "incremental method" (spec §3.3): UHRA (k = 5, t = 0.5, J = 0.8) publishes
release 23, the adversary's Ω-posteriors of the returning patients are carried through the
transition matrix mined from releases 22 → 23 and mixed half and half with the kernel prior
(:func:`anonkit.knowledge.incremental_priors`); new patients start from the kernel prior.

Models: UHRA and BKA-JS get ``KAnonymity(k)``, ``TCloseness(S, t)``, ``BackgroundKnowledge(S, J)``;
k-primacy gets ``KAnonymity(k)``, ``BackgroundKnowledge(S, J)`` and adds basic β-likeness (β = 1)
itself — it has **no t**, so its runs differ only in k and J and are reused across t. Every run
allows suppression of everything (``max_suppression = 1``) and reports what it suppressed.

Grid (per data set and method; a configuration shared by two sweeps runs once and is reused): k ∈
{3, 5, 10, 15, 20} at t = 0.5, J = 0.8; J ∈ {0.2, …, 0.8} at k = 5, t = 0.5; t ∈ {0.5, 0.6, 0.7,
0.8} at k = 5, J = 0.8, plus t ∈ {0.1, 0.2} (spec register #10: with Adult's binary salary-class,
P(>50K) ≈ 0.25, t = 0.5 only binds classes with more than 75 % of high earners, so the paper's t
range barely constrains anything). ``--quick``: k ∈ {5, 10}, J ∈ {0.3, 0.8}, t ∈ {0.2, 0.5}.

Every run reports GCP (suppressed records charged in full), record linkage RL (%, spec §2.5), the
size of the algorithm's own **groups** (``release.extra["group"]``, what the paper's Tables 3–5
call "QI groups") and of the published **classes** (groups publishing identical values merged, spec
§0.2), suppressed records, BK clusters, seconds, and the background-knowledge and homogeneity
attacks (:mod:`anonkit.analytics`). The attack table adds Mondrian and Flash (k-anonymity +
t-closeness only, Flash with :data:`FLASH_SUPPRESSION` suppression) at k = 5, J = 0.8, t ∈ {0.5, 0.2}.

Departures from the paper: each configuration runs once (the algorithms are deterministic; the
paper averages 10 runs); BKA-JS and k-primacy are reconstructions; BKseq is a generator with the
paper's shape, not the paper's data; the priors are the kernel estimate, not the paper's
unavailable incremental method (an approximation of it is the option above).

Output (``out_dir``): ``uhra_runs.csv`` (every grid row), ``uhra_table3.csv`` … ``uhra_table5.csv``
(ours beside the paper's), ``uhra_attacks.csv``, ``uhra_claims.csv``, R-U maps ``uhra_ru_k.png``,
``uhra_ru_J.png``, ``uhra_ru_t.png`` (GCP vs RL, one panel per data set), ``uhra_runtime.png``
(seconds vs J and vs k) and the printed report ``uhra_report.txt``. The paper's figures come from
``paper_a.json`` next to this module.
"""

from __future__ import annotations

import argparse
import json
import math
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.table import Table

#: line width of the printed report (a terminal's, so the CLI does not re-wrap it)
WIDTH = 78
#: the three methods of the paper, in its order
METHODS = ("UHRA", "BKA-JS", "k-primacy")
#: the attack table's extra baselines (no background-knowledge model)
BASELINES = ("Mondrian", "Flash")
DATASETS = ("adult", "bkseq")
ADULT_QIS = ("age", "sex", "education")
ADULT_SENSITIVE = "salary-class"
BKSEQ_QIS = ("gender", "age", "weight")
BKSEQ_SENSITIVE = "disease"
BKSEQ_RELEASES = 24
BKSEQ_RECORDS = 4000
QUICK_ADULT_RECORDS = 2000
QUICK_BKSEQ_RECORDS = 600
#: Flash's suppression limit in the attack table
FLASH_SUPPRESSION = 0.05
#: the background-knowledge attack's breach threshold (posterior of the true value)
BREACH_THRESHOLD = 0.8
#: "flat" runtime (paper Figure 4): every runtime at J ≥ 0.3 within this share of their mean
FLAT_TOLERANCE = 0.25
DEFAULT_OUT = "uhra-experiment"
#: caveats printed under the report
NOTES = (
    "k-primacy (reconstructed) has no t: its figures are the same at every t (the paper's Table 5 shows "
    "them changing with t). Its basic beta-likeness (beta = 1) caps every value's share in a class at twice "
    "its share in the table, which forces large classes around rare values: high GCP, low RL.",
    "Adult's salary-class is binary with P(>50K) ~ 0.25: t = 0.5 only binds classes with more than 75 % high "
    "earners, so the paper's t range (0.5-0.8) barely constrains anything; t = 0.1 and 0.2 are added "
    "(spec register #10).",
    "The paper's 'QI groups' are probably our groups; ours stay close to k (UHRA closes a group as soon as it "
    "has k records and is t-close), the published classes merge groups with identical generalized values.",
    "Runtimes are single wall-clock measurements on this machine (numba kernels warmed up first).",
)
PAPER_FILE = "paper_a.json"

ALGORITHMS = {
    "UHRA": ("anonkit.algorithms.knowledge.uhra", "uhra"),
    "BKA-JS": ("anonkit.algorithms.knowledge.bka_js", "bka_js"),
    "k-primacy": ("anonkit.algorithms.knowledge.k_primacy", "k_primacy"),
    "Mondrian": ("anonkit.algorithms.partition.mondrian", "mondrian"),
    "Flash": ("anonkit.algorithms.lattice.flash", "flash"),
}

RUN_COLUMNS = [
    "dataset",
    "sweep",
    "method",
    "k",
    "t",
    "J",
    "uses_t",
    "gcp",
    "record_linkage",
    "group_min",
    "group_avg",
    "class_min",
    "class_avg",
    "suppressed",
    "classes",
    "groups",
    "bk_clusters",
    "seconds",
    "bk_mean_jsd",
    "bk_max_jsd",
    "bk_breached_share",
    "homogeneity",
    "records",
    "reused",
]
TABLE_COLUMNS = [
    "table",
    "method",
    "parameter",
    "value",
    "paper_min",
    "paper_avg",
    "group_min",
    "group_avg",
    "class_min",
    "class_avg",
    "suppressed",
    "gcp",
    "record_linkage",
]
ATTACK_COLUMNS = [
    "dataset",
    "k",
    "t",
    "J",
    "method",
    "gcp",
    "record_linkage",
    "suppressed",
    "classes",
    "class_min",
    "class_avg",
    "bk_mean_jsd",
    "bk_max_jsd",
    "bk_breached_share",
    "homogeneity",
    "seconds",
]
CLAIM_COLUMNS = ["dataset", "claim", "sweep", "satisfied", "configurations", "detail"]

Progress = Callable[[int, int, str], None]


# ---------------------------------------------------------------------------------------- the paper
def load_paper() -> dict[str, Any]:
    """Paper A's reported figures (Tables 3–5 and its qualitative claims), from ``paper_a.json``."""
    text = resources.files("anonkit.experiments").joinpath(PAPER_FILE).read_text(encoding="utf-8")
    return json.loads(text)


# ---------------------------------------------------------------------------------------- grid
@dataclass(frozen=True)
class Grid:
    """The sweeps: ``ks`` at (t, J), ``Js`` at (k, t), ``ts`` at (k, J); attacks at ``attack_ts``."""

    ks: tuple[int, ...]
    Js: tuple[float, ...]
    ts: tuple[float, ...]
    k: int = 5
    t: float = 0.5
    J: float = 0.8
    attack_ts: tuple[float, ...] = (0.5, 0.2)

    def configurations(self) -> list[tuple[str, int, float, float]]:
        """``(sweep, k, t, J)`` of every row of the grid, sweep by sweep."""
        out = [("k", int(k), self.t, self.J) for k in self.ks]
        out += [("J", self.k, self.t, float(j)) for j in self.Js]
        out += [("t", self.k, float(t), self.J) for t in self.ts]
        return out


FULL_GRID = Grid(ks=(3, 5, 10, 15, 20), Js=(0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8), ts=(0.1, 0.2, 0.5, 0.6, 0.7, 0.8))
QUICK_GRID = Grid(ks=(5, 10), Js=(0.3, 0.8), ts=(0.2, 0.5))


def _key(method: str, k: int, t: float, J: float) -> tuple:
    """What makes two runs identical (k-primacy has no t)."""
    return (method, int(k), None if method == "k-primacy" else round(float(t), 9), round(float(J), 9))


# ---------------------------------------------------------------------------------------- data sets
@dataclass
class Dataset:
    """One data set of the experiment with its adversary's priors (computed once)."""

    name: str
    table: Table
    sensitive: str
    priors: Any
    distance: str
    description: str
    prior_seconds: float = 0.0
    hierarchies: dict = field(default_factory=dict)


def _reference_text(table: Table, sensitive: str, top: int = 2) -> str:
    dom = table.domains[sensitive]
    ref = np.asarray(dom.reference, dtype=float)
    order = np.argsort(-ref, kind="stable")[:top]
    return ", ".join(f"P({dom.labels[i]}) = {ref[i]:.3f}" for i in order)


def adult_dataset(*, sample: int | None = None, seed: int = 0) -> Dataset:
    """Adult as paper A uses it (QIs age numeric, sex, education; sensitive salary-class) with its
    kernel priors; ``sample``: that many records drawn without replacement with ``seed``."""
    from anonkit import Schema, load_adult
    from anonkit.knowledge import kernel_priors

    frame, hierarchies = load_adult()
    if sample is not None and 0 < sample < len(frame):
        rows = np.sort(np.random.default_rng(seed).choice(len(frame), size=int(sample), replace=False))
        frame = frame.iloc[rows].reset_index(drop=True)
    schema = Schema.of(
        quasi=list(ADULT_QIS),
        sensitive=[ADULT_SENSITIVE],
        hierarchies={q: hierarchies[q] for q in ADULT_QIS},
        types={"age": "numeric"},
    )
    table = Table(frame[[*ADULT_QIS, ADULT_SENSITIVE]], schema)
    start = time.perf_counter()
    priors = kernel_priors(table, ADULT_SENSITIVE)
    took = time.perf_counter() - start
    what = "the bundled extract" if len(frame) >= 30000 else f"a seeded sample (seed {seed})"
    desc = (
        f"adult: {table.n:,} records ({what}); QIs age (numeric), sex, education; sensitive "
        f"{ADULT_SENSITIVE} ({_reference_text(table, ADULT_SENSITIVE)}), equal distance; kernel priors on "
        f"{table.distinct.size:,} distinct QI tuples ({took:.1f} s)"
    )
    return Dataset("adult", table, ADULT_SENSITIVE, priors, "equal", desc, took, {q: hierarchies[q] for q in ADULT_QIS})


def _bkseq_table(frame: pd.DataFrame, hierarchies: dict) -> Table:
    from anonkit import Schema

    schema = Schema.of(
        quasi=list(BKSEQ_QIS),
        sensitive=[BKSEQ_SENSITIVE],
        hierarchies={**{q: hierarchies[q] for q in BKSEQ_QIS}, BKSEQ_SENSITIVE: hierarchies[BKSEQ_SENSITIVE]},
        types={"age": "numeric", "weight": "numeric"},
    )
    return Table(frame[[*BKSEQ_QIS, BKSEQ_SENSITIVE]].reset_index(drop=True), schema)


def _codes_in(table: Table, values: pd.Series) -> np.ndarray:
    """Codes of sensitive ``values`` in ``table``'s domain (−1 for a value the domain lacks)."""
    labels = pd.Index([str(x) for x in table.domains[BKSEQ_SENSITIVE].labels])
    return labels.get_indexer(values.astype(str))


def _incremental_priors(frame: pd.DataFrame, release: int, table: Table, kernel: Any, hierarchies: dict) -> Any:
    """The §3.3 reconstruction for release ``release`` (see the module docstring)."""
    from anonkit.algorithms.knowledge.uhra import uhra
    from anonkit.analytics import background_knowledge_attack
    from anonkit.knowledge import incremental_priors, kernel_priors, transition_matrix
    from anonkit.models import BackgroundKnowledge, KAnonymity, TCloseness

    if release < 2:
        raise InputError("incremental priors need a release before the one published", key="bkseq_priors")
    s = table.domains[BKSEQ_SENSITIVE].size
    current = frame[frame["release"] == str(release)].reset_index(drop=True)
    previous = frame[frame["release"] == str(release - 1)].reset_index(drop=True)
    prev_table = _bkseq_table(previous, hierarchies)
    prev_priors = kernel_priors(prev_table, BKSEQ_SENSITIVE)
    models = [
        KAnonymity(FULL_GRID.k),
        TCloseness(BKSEQ_SENSITIVE, FULL_GRID.t),
        BackgroundKnowledge(BKSEQ_SENSITIVE, FULL_GRID.J),
    ]
    published = uhra(prev_table, models, priors=prev_priors, max_suppression=1.0)
    post = prev_priors.per_record().copy()
    attack = background_knowledge_attack(published, BKSEQ_SENSITIVE, prev_priors)
    post[attack.records] = attack.posterior
    # the previous release's beliefs over this release's domain
    cols = _codes_in(table, pd.Series(prev_table.domains[BKSEQ_SENSITIVE].labels))
    beliefs = np.zeros((prev_table.n, s))
    for j, c in enumerate(cols):
        if c >= 0:
            beliefs[:, c] += post[:, j]
    where = pd.Index(previous["patient_id"]).get_indexer(current["patient_id"])
    start = kernel.per_record().copy()
    back = where >= 0
    carried = beliefs[where[back]]
    mass = carried.sum(axis=1)
    ok = mass > 0
    rows = np.flatnonzero(back)[ok]
    start[rows] = carried[ok] / mass[ok, None]
    # the transitions the adversary saw: releases t − 2 → t − 1 (identity before release 3)
    transitions = np.eye(s)
    if release >= 3:
        before = frame[frame["release"] == str(release - 2)].set_index("patient_id")["disease"]
        after = previous.set_index("patient_id")["disease"]
        both = before.index.intersection(after.index)
        b, a = _codes_in(table, before.loc[both]), _codes_in(table, after.loc[both])
        keep = (b >= 0) & (a >= 0)
        transitions = transition_matrix(b[keep], a[keep], s, alpha=1.0)
    return incremental_priors(start, table, BKSEQ_SENSITIVE, transitions=transitions, kernel=kernel)


def bkseq_dataset(
    *,
    records: int = BKSEQ_RECORDS,
    releases: int = BKSEQ_RELEASES,
    release: int | None = None,
    seed: int = 0,
    priors: str = "kernel",
    distance: str = "equal",
) -> Dataset:
    """One release (default the last) of the BKseq-like generator with its priors (see the module
    docstring): QIs gender, age and weight (numeric), sensitive disease (19 values)."""
    from anonkit.datasets import bkseq_hierarchies, make_bkseq
    from anonkit.knowledge import kernel_priors

    if priors not in ("kernel", "incremental"):
        raise InputError(f"bkseq priors must be 'kernel' or 'incremental', got {priors!r}", key="bkseq_priors")
    if distance not in ("equal", "hierarchical", "ordered"):
        raise InputError(f"unknown t-closeness distance {distance!r}", key="bkseq_distance")
    r = int(releases if release is None else release)
    if not 1 <= r <= releases:
        raise InputError(f"release must lie in 1…{releases}, got {r}", key="release")
    frame = make_bkseq(releases=releases, records=records, seed=seed)
    hierarchies = bkseq_hierarchies()
    table = _bkseq_table(frame[frame["release"] == str(r)], hierarchies)
    start = time.perf_counter()
    kernel = kernel_priors(table, BKSEQ_SENSITIVE)
    pri = kernel if priors == "kernel" else _incremental_priors(frame, r, table, kernel, hierarchies)
    took = time.perf_counter() - start
    how = (
        f"kernel priors on {table.distinct.size:,} distinct QI tuples"
        if priors == "kernel"
        else f"incremental priors (release {r - 1} published by UHRA, transitions {r - 2}→{r - 1})"
    )
    desc = (
        f"bkseq: release {r} of {releases} × {records:,} records (generator seed {seed}); QIs gender, "
        f"age, weight (numeric); sensitive disease ({table.domains[BKSEQ_SENSITIVE].size} values, "
        f"{_reference_text(table, BKSEQ_SENSITIVE, 1)}), {distance} distance; {how} ({took:.1f} s)"
    )
    return Dataset("bkseq", table, BKSEQ_SENSITIVE, pri, distance, desc, took, {q: hierarchies[q] for q in BKSEQ_QIS})


# ---------------------------------------------------------------------------------------- running
def models_for(method: str, ds: Dataset, k: int, t: float, J: float) -> list:
    """The privacy models each method gets (see the module docstring)."""
    from anonkit.models import BackgroundKnowledge, KAnonymity, TCloseness

    s = ds.sensitive
    if method == "k-primacy":
        return [KAnonymity(int(k)), BackgroundKnowledge(s, float(J))]
    if method in BASELINES:
        return [KAnonymity(int(k)), TCloseness(s, float(t), ds.distance)]
    return [KAnonymity(int(k)), TCloseness(s, float(t), ds.distance), BackgroundKnowledge(s, float(J))]


def _algorithm(method: str) -> Callable:
    import importlib

    module, name = ALGORITHMS[method]
    return getattr(importlib.import_module(module), name)


def anonymize(ds: Dataset, method: str, k: int, t: float, J: float) -> tuple[Any, float]:
    """Run ``method`` on ``ds`` with its models; the release and the wall-clock seconds."""
    fn = _algorithm(method)
    models = models_for(method, ds, k, t, J)
    start = time.perf_counter()
    if method in METHODS:
        rel = fn(ds.table, models, priors=ds.priors, max_suppression=1.0)
    elif method == "Flash":
        rel = fn(ds.table, models, max_suppression=FLASH_SUPPRESSION)
    else:
        rel = fn(ds.table, models)
    return rel, time.perf_counter() - start


def _sizes(sizes: np.ndarray) -> tuple[float, float]:
    sizes = sizes[sizes > 0]
    return (float(sizes.min()), float(sizes.mean())) if len(sizes) else (math.nan, math.nan)


def measure(ds: Dataset, release: Any, seconds: float) -> dict[str, Any]:
    """The figures of one release (see the module docstring)."""
    from anonkit.analytics import background_knowledge_attack, homogeneity_attack
    from anonkit.metrics import compute_metrics

    m = compute_metrics(ds.table, release, ["gcp", "record_linkage"])
    released = np.asarray(release.record_class) >= 0
    class_min, class_avg = _sizes(release.class_sizes())
    group = release.extra.get("group")
    if group is None:  # no groups of its own: the classes are the groups
        group_min, group_avg, groups = class_min, class_avg, release.n_classes
    else:
        g = np.asarray(group, dtype=np.int64)
        keep = released & (g >= 0)
        _, counts = np.unique(g[keep], return_counts=True)
        group_min, group_avg = _sizes(counts)
        groups = len(counts)
    attack = background_knowledge_attack(release, ds.sensitive, ds.priors, threshold=BREACH_THRESHOLD)
    return {
        "gcp": float(m["gcp"]),
        "record_linkage": float(m["record_linkage"]),
        "group_min": group_min,
        "group_avg": group_avg,
        "class_min": class_min,
        "class_avg": class_avg,
        "suppressed": int(release.n_suppressed),
        "classes": int(release.n_classes),
        "groups": int(groups),
        "bk_clusters": release.extra.get("bk_clusters", np.nan),
        "seconds": float(seconds),
        "bk_mean_jsd": attack.mean_jsd,
        "bk_max_jsd": attack.max_jsd,
        "bk_breached_share": attack.breached_share,
        "homogeneity": homogeneity_attack(release, ds.sensitive),
        "records": int(ds.table.n),
    }


def _warm_up(ds: Dataset) -> None:
    """Compile (or load) the numba kernels on a small slice so no grid run's time includes it."""
    n = min(ds.table.n, 300)
    frame = ds.table.frame.iloc[:n] if hasattr(ds.table, "frame") else None
    if frame is None:
        return
    small = Dataset(ds.name, Table(frame, ds.table.schema), ds.sensitive, None, ds.distance, "")
    from anonkit.knowledge import kernel_priors

    small.priors = kernel_priors(small.table, ds.sensitive)
    for method in METHODS:
        anonymize(small, method, 5, 0.5, 0.8)


def run_grid(
    ds: Dataset,
    grid: Grid = FULL_GRID,
    *,
    cache: dict | None = None,
    progress: Progress | None = None,
    done: int = 0,
    total: int = 0,
) -> pd.DataFrame:
    """One row per (sweep, configuration, method); a configuration already in ``cache`` is reused."""
    cache = {} if cache is None else cache
    rows = []
    for sweep, k, t, J in grid.configurations():
        for method in METHODS:
            key = (ds.name, *_key(method, k, t, J))
            reused = key in cache
            if not reused:
                if progress:
                    progress(done, total, f"{ds.name}: {method} k={k} t={t:g} J={J:g}")
                rel, secs = anonymize(ds, method, k, t, J)
                cache[key] = measure(ds, rel, secs)
                done += 1
            rows.append(
                {
                    "dataset": ds.name,
                    "sweep": sweep,
                    "method": method,
                    "k": int(k),
                    "t": float(t),
                    "J": float(J),
                    "uses_t": method != "k-primacy",
                    **cache[key],
                    "reused": reused,
                }
            )
    return pd.DataFrame(rows, columns=RUN_COLUMNS)


def unique_runs(grid: Grid) -> int:
    """Runs per data set once shared configurations are reused."""
    return len({_key(m, k, t, J) for _, k, t, J in grid.configurations() for m in METHODS})


def attack_rows(
    ds: Dataset,
    grid: Grid,
    cache: dict,
    *,
    progress: Progress | None = None,
    done: int = 0,
    total: int = 0,
) -> pd.DataFrame:
    """The "defence working" table: the three methods (from ``cache``) and Mondrian and Flash at
    k = grid.k, J = grid.J and every ``grid.attack_ts``, plus the adversary's priors alone."""
    rows = []
    p = ds.priors.per_record() if hasattr(ds.priors, "per_record") else np.asarray(ds.priors)
    codes = np.asarray(ds.table.sensitive_codes[ds.sensitive], dtype=np.int64)
    own = p[np.arange(len(codes)), codes]
    rows.append(
        {
            "dataset": ds.name,
            "k": np.nan,
            "t": np.nan,
            "J": np.nan,
            "method": "priors only",
            "gcp": 1.0,
            "record_linkage": 0.0,
            "suppressed": ds.table.n,
            "classes": 0,
            "class_min": np.nan,
            "class_avg": np.nan,
            "bk_mean_jsd": 0.0,
            "bk_max_jsd": 0.0,
            "bk_breached_share": float((own >= BREACH_THRESHOLD - 1e-12).mean()),
            "homogeneity": np.nan,
            "seconds": ds.prior_seconds,
        }
    )
    for t in grid.attack_ts:
        for method in (*METHODS, *BASELINES):
            key = (ds.name, *_key(method, grid.k, t, grid.J))
            if key not in cache:
                if progress:
                    progress(done, total, f"{ds.name}: {method} k={grid.k} t={t:g} (attack table)")
                rel, secs = anonymize(ds, method, grid.k, t, grid.J)
                cache[key] = measure(ds, rel, secs)
                done += 1
            m = cache[key]
            rows.append(
                {
                    "dataset": ds.name,
                    "k": grid.k,
                    "t": float(t),
                    "J": float(grid.J) if method in METHODS else np.nan,
                    "method": method,
                    **{c: m[c] for c in ATTACK_COLUMNS if c in m},
                }
            )
    return pd.DataFrame(rows, columns=ATTACK_COLUMNS)


# ---------------------------------------------------------------------------------------- tables 3–5
def paper_tables(runs: pd.DataFrame, paper: dict | None = None) -> dict[str, pd.DataFrame]:
    """Tables 3–5 (Adult): the paper's min/avg group sizes beside ours (groups and classes), one row
    per (method, parameter value); values we ran beyond the paper's (t = 0.1, 0.2; J = 0.7, 0.8)
    have no paper figure, values of the paper we did not run (``--quick``) no figure of ours."""
    paper = load_paper() if paper is None else paper
    adult = runs[runs["dataset"] == "adult"]
    out = {}
    for name, spec in paper["tables"].items():
        param = spec["parameter"]
        ours = adult[adult["sweep"] == param]
        values = sorted({float(v) for v in spec["values"]} | {float(v) for v in ours[param]})
        rows = []
        for method in METHODS:
            mine = ours[ours["method"] == method]
            for v in values:
                pv = [i for i, x in enumerate(spec["values"]) if math.isclose(float(x), v)]
                pmin, pavg = spec["sizes"][method][pv[0]] if pv else (math.nan, math.nan)
                hit = mine[np.isclose(mine[param].astype(float), v)]
                o = hit.iloc[0] if len(hit) else None

                def get(col: str, o: pd.Series | None = o) -> float:
                    return float(o[col]) if o is not None else math.nan

                rows.append(
                    {
                        "table": name,
                        "method": method,
                        "parameter": param,
                        "value": int(v) if param == "k" else v,
                        "paper_min": float(pmin),
                        "paper_avg": float(pavg),
                        "group_min": get("group_min"),
                        "group_avg": get("group_avg"),
                        "class_min": get("class_min"),
                        "class_avg": get("class_avg"),
                        "suppressed": get("suppressed"),
                        "gcp": get("gcp"),
                        "record_linkage": get("record_linkage"),
                    }
                )
        out[name] = pd.DataFrame(rows, columns=TABLE_COLUMNS)
    return out


def _num(v: float) -> str:
    if not np.isfinite(v):
        return "-"
    if float(v).is_integer():
        return str(int(v))
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.1f}"


def _size(mn: float, avg: float, *, paper: bool = False) -> str:
    if not (np.isfinite(mn) and np.isfinite(avg)):
        return "-"
    return f"{mn:g}/{avg:g}" if paper else f"{_num(mn)}/{_num(avg)}"


def fixed_table(
    head: Sequence[str], columns: Sequence[str], rows: Sequence[tuple[Sequence[str], Sequence[str]]], width: int = WIDTH
) -> list[str]:
    """Lines of a fixed-width table: label cells (left-aligned) then value cells (right-aligned);
    value columns that do not fit in ``width`` continue in a block below."""
    lw = [max(len(h), *(len(r[0][i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]
    label = sum(lw) + len(lw) - 1
    cw = max([len(c) for c in columns] + [len(x) for r in rows for x in r[1]] + [1]) + 2
    per = max(1, (width - label) // cw)
    out: list[str] = []
    for start in range(0, len(columns), per):
        if start:
            out.append("")
        cols = slice(start, start + per)
        for labels, cells in [(head, columns), *rows]:
            left = " ".join(x.ljust(w) for x, w in zip(labels, lw, strict=True))
            out.append((left + "".join(c.rjust(cw) for c in list(cells)[cols])).rstrip())
    return out


def table_text(df: pd.DataFrame, caption: str) -> str:
    """One of Tables 3–5 as printed: per method the paper's, our groups' and our classes' min/avg."""
    if df.empty:
        return caption
    param = df["parameter"].iloc[0]
    values = list(dict.fromkeys(df["value"]))
    columns = [f"{param}={v:g}" for v in values]
    rows = []
    for method in METHODS:
        sub = df[df["method"] == method].set_index("value")
        for i, (what, a, b) in enumerate(
            (
                ("paper", "paper_min", "paper_avg"),
                ("ours groups", "group_min", "group_avg"),
                ("ours classes", "class_min", "class_avg"),
            )
        ):
            cells = [_size(sub.loc[v, a], sub.loc[v, b], paper=what == "paper") for v in values]
            rows.append(((method if i == 0 else "", what), cells))
        supp = [_num(sub.loc[v, "suppressed"]) for v in values]
        if any(s not in ("0", "-") for s in supp):
            rows.append((("", "suppressed"), supp))
    lines = textwrap.wrap(caption, WIDTH) + fixed_table(("method", "size min/avg"), columns, rows)
    return "\n".join(lines)


def attack_text(df: pd.DataFrame) -> str:
    """The attack table as printed."""
    head = (
        f"{'data':<6} {'t':>4} {'method':<11} {'GCP':>6} {'RL %':>6} {'supp':>6} {'JSDavg':>6} {'JSDmax':>6} "
        f"{'breach':>6} {'homog':>6}"
    )
    out = [head]
    for r in df.itertuples(index=False):
        t = "" if not np.isfinite(r.t) else f"{r.t:g}"
        homog = "-" if not np.isfinite(r.homogeneity) else f"{r.homogeneity:.3f}"
        out.append(
            f"{r.dataset:<6} {t:>4} {r.method:<11} {r.gcp:>6.3f} {r.record_linkage:>6.2f} {int(r.suppressed):>6} "
            f"{r.bk_mean_jsd:>6.3f} {r.bk_max_jsd:>6.3f} {r.bk_breached_share:>6.3f} {homog:>6}"
        )
    return "\n".join(out)


# ---------------------------------------------------------------------------------------- claims
def _flat(sec: pd.Series) -> bool:
    mean = float(sec.mean())
    return bool(len(sec) and (np.abs(sec - mean) <= FLAT_TOLERANCE * mean).all())


def claims(runs: pd.DataFrame) -> pd.DataFrame:
    """The paper's qualitative claims checked on our runs, per data set and sweep: how many
    configurations satisfy each (see :data:`CLAIM_COLUMNS`)."""
    rows = []
    for ds in dict.fromkeys(runs["dataset"]):
        mine = runs[runs["dataset"] == ds]
        for sweep in ("k", "J", "t"):
            sub = mine[mine["sweep"] == sweep]
            if sub.empty:
                continue
            gcp = sub.pivot_table(index=sweep, columns="method", values="gcp")
            rl = sub.pivot_table(index=sweep, columns="method", values="record_linkage")
            n = len(gcp)
            tests = {
                "GCP: UHRA < BKA-JS": gcp["UHRA"] < gcp["BKA-JS"],
                "GCP: UHRA < k-primacy": gcp["UHRA"] < gcp["k-primacy"],
                "RL: UHRA < BKA-JS": rl["UHRA"] < rl["BKA-JS"],
                "RL: UHRA < k-primacy": rl["UHRA"] < rl["k-primacy"],
            }
            tests["UHRA lower GCP and RL than both"] = pd.Series(
                np.logical_and.reduce([np.asarray(v, dtype=bool) for v in tests.values()]), index=gcp.index
            )
            for claim, ok in tests.items():
                fails = ", ".join(f"{sweep}={v:g}" for v in ok.index[~np.asarray(ok, dtype=bool)])
                rows.append(
                    {
                        "dataset": ds,
                        "claim": claim,
                        "sweep": sweep,
                        "satisfied": int(np.sum(ok)),
                        "configurations": n,
                        "detail": f"not at {fails}" if fails else "every configuration",
                    }
                )
        # runtime vs J (Figure 4): flat for J >= 0.3, lower below
        sub = mine[mine["sweep"] == "J"]
        if not sub.empty:
            ok, details = 0, []
            for method in METHODS:
                s = sub[sub["method"] == method].set_index("J")["seconds"].sort_index()
                lo, hi = s[s.index < 0.3 - 1e-9], s[s.index >= 0.3 - 1e-9]
                flat = _flat(hi) if len(hi) else False
                lower = bool(len(lo) and len(hi) and lo.max() < hi.min())
                ok += int(flat and lower)
                low_txt = f"J<0.3 {lo.mean():.2f}s, " if len(lo) else "no J<0.3, "
                details.append(
                    f"{method}: {low_txt}J>=0.3 {hi.min():.2f}-{hi.max():.2f}s"
                    f" ({'flat' if flat else 'not flat'}{', lower below' if lower else ''})"
                )
            rows.append(
                {
                    "dataset": ds,
                    "claim": "runtime flat for J >= 0.3, lower for J < 0.3",
                    "sweep": "J",
                    "satisfied": ok,
                    "configurations": len(METHODS),
                    "detail": "; ".join(details),
                }
            )
        # runtime vs k (Figure 5): falls as k grows
        sub = mine[mine["sweep"] == "k"]
        if not sub.empty:
            ok, details = 0, []
            for method in METHODS:
                s = sub[sub["method"] == method].set_index("k")["seconds"].sort_index()
                falls = bool(len(s) > 1 and s.iloc[-1] < s.iloc[0])
                steps = int((np.diff(s.to_numpy()) < 0).sum())
                ok += int(falls)
                details.append(
                    f"{method}: {s.iloc[0]:.2f}s at k={s.index[0]} -> {s.iloc[-1]:.2f}s at "
                    f"k={s.index[-1]}, {steps}/{len(s) - 1} steps down"
                )
            rows.append(
                {
                    "dataset": ds,
                    "claim": "runtime falls as k grows",
                    "sweep": "k",
                    "satisfied": ok,
                    "configurations": len(METHODS),
                    "detail": "; ".join(details),
                }
            )
        # BKA-JS fastest; UHRA about as fast as k-primacy
        first = mine.drop_duplicates(["method", "k", "t", "J"])
        secs = first.pivot_table(index=["k", "t", "J"], columns="method", values="seconds")
        fastest = (secs["BKA-JS"] < secs["UHRA"]) & (secs["BKA-JS"] < secs["k-primacy"])
        ratio = float((secs["UHRA"] / secs["k-primacy"]).median())
        rows.append(
            {
                "dataset": ds,
                "claim": "BKA-JS is fastest",
                "sweep": "all",
                "satisfied": int(fastest.sum()),
                "configurations": len(secs),
                "detail": "median seconds: "
                + ", ".join(f"{m} {secs[m].median():.2f}" for m in ("BKA-JS", "UHRA", "k-primacy")),
            }
        )
        rows.append(
            {
                "dataset": ds,
                "claim": "UHRA about as fast as k-primacy (median ratio in 0.5-2)",
                "sweep": "all",
                "satisfied": int(0.5 <= ratio <= 2.0),
                "configurations": 1,
                "detail": f"median UHRA / k-primacy runtime ratio {ratio:.2f}",
            }
        )
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


UTILITY_CLAIMS = (
    ("GCP: UHRA < BKA-JS", "GCP<BKA-JS"),
    ("GCP: UHRA < k-primacy", "GCP<k-prim"),
    ("RL: UHRA < BKA-JS", "RL<BKA-JS"),
    ("RL: UHRA < k-primacy", "RL<k-prim"),
    ("UHRA lower GCP and RL than both", "all four"),
)


def claims_text(df: pd.DataFrame, paper: dict) -> str:
    """The claims as printed: the paper's sentence, then ours per data set."""
    lines = []
    for key, text in paper["claims"].items():
        lines += textwrap.wrap(text, WIDTH, initial_indent="paper: ", subsequent_indent=" " * 7)
        if key == "utility_and_risk":
            lines.append("  ours: configurations of each sweep where UHRA is lower")
            head = f"  {'data':<6} {'sweep':<5}" + "".join(f"{short:>11}" for _, short in UTILITY_CLAIMS)
            lines.append(head)
            for (ds, sweep), sub in df[df["claim"].isin([c for c, _ in UTILITY_CLAIMS])].groupby(
                ["dataset", "sweep"], sort=False
            ):
                got = sub.set_index("claim")
                shares = [f"{got.loc[c, 'satisfied']}/{got.loc[c, 'configurations']}" for c, _ in UTILITY_CLAIMS]
                cells = "".join(f"{x:>11}" for x in shares)
                lines.append(f"  {ds:<6} {sweep:<5}{cells}")
            lines.append("")
            continue
        if key == "runtime_J":
            sub = df[df["claim"].str.startswith("runtime flat")]
        elif key == "runtime_k":
            sub = df[df["claim"].str.startswith("runtime falls")]
        else:
            sub = df[df["sweep"] == "all"]
        for r in sub.itertuples(index=False):
            text = f"{r.dataset}: {r.claim}: {r.satisfied}/{r.configurations}; {r.detail}"
            lines += textwrap.wrap(text, WIDTH, initial_indent="  ours: ", subsequent_indent=" " * 8)
        lines.append("")
    return "\n".join(lines).rstrip()


# ---------------------------------------------------------------------------------------- plots
def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _log_if_spread(ax, values: np.ndarray, axis: str) -> None:
    from matplotlib.ticker import NullFormatter

    v = values[np.isfinite(values) & (values > 0)]
    if len(v) and v.max() / v.min() > 20:
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
        (ax.xaxis if axis == "x" else ax.yaxis).set_minor_formatter(NullFormatter())


MARKERS = {"UHRA": ("o", "C0"), "BKA-JS": ("s", "C3"), "k-primacy": ("^", "C2")}


def plot_ru(runs: pd.DataFrame, sweep: str, path: str | Path) -> None:
    """R-U map of one sweep: GCP (x) against RL (y), one panel per data set, one series per method,
    every point labelled with its parameter value."""
    plt = _pyplot()
    names = list(dict.fromkeys(runs["dataset"]))
    fig, axes = plt.subplots(1, max(1, len(names)), figsize=(6.0 * max(1, len(names)), 4.6), squeeze=False)
    for ax, name in zip(axes[0], names, strict=False):
        sub = runs[(runs["dataset"] == name) & (runs["sweep"] == sweep)]
        for method in METHODS:
            m = sub[sub["method"] == method].sort_values(sweep)
            marker, color = MARKERS[method]
            ax.plot(m["gcp"], m["record_linkage"], marker=marker, color=color, ls="-", lw=0.8, label=method, alpha=0.85)
            for r in m.itertuples(index=False):
                ax.annotate(
                    f"{getattr(r, sweep):g}",
                    (r.gcp, r.record_linkage),
                    textcoords="offset points",
                    xytext=(3, 3),
                    fontsize=7,
                    color=color,
                )
        _log_if_spread(ax, sub["gcp"].to_numpy(float), "x")
        _log_if_spread(ax, sub["record_linkage"].to_numpy(float), "y")
        fixed = {"k": "t = 0.5, J = 0.8", "J": "k = 5, t = 0.5", "t": "k = 5, J = 0.8 (k-primacy has no t)"}[sweep]
        ax.set_title(f"{name}: {sweep} sweep, {fixed}", fontsize=10)
        ax.set_xlabel("GCP (lower = more utility)")
        ax.set_ylabel("record linkage RL % (lower = less risk)")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    fig.suptitle(f"R-U map, {sweep} sweep (labels: {sweep})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_runtime(runs: pd.DataFrame, path: str | Path) -> None:
    """Seconds against J and against k, one row of panels per data set."""
    plt = _pyplot()
    names = list(dict.fromkeys(runs["dataset"]))
    fig, axes = plt.subplots(max(1, len(names)), 2, figsize=(11, 3.8 * max(1, len(names))), squeeze=False)
    for row, name in zip(axes, names, strict=False):
        for ax, sweep in zip(row, ("J", "k"), strict=True):
            sub = runs[(runs["dataset"] == name) & (runs["sweep"] == sweep)]
            for method in METHODS:
                m = sub[sub["method"] == method].sort_values(sweep)
                marker, color = MARKERS[method]
                ax.plot(m[sweep], m["seconds"], marker=marker, color=color, label=method)
            _log_if_spread(ax, sub["seconds"].to_numpy(float), "y")
            ax.set_xlabel(sweep)
            ax.set_ylabel("seconds")
            fixed = " (k = 5, t = 0.5)" if sweep == "J" else " (t = 0.5, J = 0.8)"
            ax.set_title(f"{name}: runtime vs {sweep}{fixed}", fontsize=10)
            ax.grid(alpha=0.3, which="both")
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------------------- the experiment
@dataclass
class Results:
    """What :func:`run` returns: the figures as data frames, the printed report and the files."""

    runs: pd.DataFrame
    tables: dict[str, pd.DataFrame]
    attacks: pd.DataFrame
    claims: pd.DataFrame
    report: str = ""
    files: list[str] = field(default_factory=list)
    seconds: float = 0.0
    descriptions: list[str] = field(default_factory=list)


def _datasets(datasets: str | Sequence[str]) -> list[str]:
    names = [d.strip().lower() for d in (datasets.split(",") if isinstance(datasets, str) else datasets)]
    names = [d for d in names if d]
    bad = [d for d in names if d not in DATASETS]
    if bad or not names:
        raise InputError(
            f"unknown data set {bad[0] if bad else '(none)'!r}; choose from {', '.join(DATASETS)}", key="datasets"
        )
    return list(dict.fromkeys(names))


def run(
    datasets: str | Sequence[str] = DATASETS,
    *,
    quick: bool = False,
    out_dir: str | Path | None = None,
    seed: int = 0,
    bkseq_priors: str = "kernel",
    bkseq_distance: str = "equal",
    grid: Grid | None = None,
    progress: Progress | None = None,
) -> Results:
    """Run paper A's experiment (see the module docstring) and, with ``out_dir``, write its files.

    ``quick``: :data:`QUICK_GRID` on an Adult sample and a small BKseq release. ``seed``: the Adult
    sample's (quick only) and the BKseq generator's. ``grid`` overrides the grid.
    """
    started = time.perf_counter()
    names = _datasets(datasets)
    grid = grid or (QUICK_GRID if quick else FULL_GRID)
    paper = load_paper()
    per_set = unique_runs(grid) + len(BASELINES) * len(grid.attack_ts)
    extra_attack = sum(
        1
        for t in grid.attack_ts
        for m in METHODS
        if _key(m, grid.k, t, grid.J)
        not in {_key(m2, k, t2, J) for _, k, t2, J in grid.configurations() for m2 in METHODS}
    )
    total = len(names) * (per_set + extra_attack + 1)
    done = 0
    cache: dict = {}
    frames, attacks, descriptions = [], [], []
    for name in names:
        if progress:
            progress(done, total, f"{name}: loading, priors")
        if name == "adult":
            ds = adult_dataset(sample=QUICK_ADULT_RECORDS if quick else None, seed=seed)
        else:
            ds = bkseq_dataset(
                records=QUICK_BKSEQ_RECORDS if quick else BKSEQ_RECORDS,
                seed=seed,
                priors=bkseq_priors,
                distance=bkseq_distance,
            )
        descriptions.append(ds.description)
        _warm_up(ds)
        done += 1
        before = len(cache)
        frames.append(run_grid(ds, grid, cache=cache, progress=progress, done=done, total=total))
        done += len(cache) - before
        before = len(cache)
        attacks.append(attack_rows(ds, grid, cache, progress=progress, done=done, total=total))
        done += len(cache) - before
    if progress:
        progress(total, total, "writing")
    runs = pd.concat(frames, ignore_index=True)
    tables = paper_tables(runs, paper)
    attack_df = pd.concat(attacks, ignore_index=True)
    claim_df = claims(runs)
    res = Results(runs, tables, attack_df, claim_df, descriptions=descriptions)
    res.seconds = time.perf_counter() - started
    if out_dir is not None:
        res.files = write(res, out_dir)
    res.report = report(res, paper, grid=grid, quick=quick)
    if out_dir is not None:
        path = Path(out_dir) / "uhra_report.txt"
        _write_text(path, res.report + "\n")
        res.files.append(str(path))
        res.report += "\n" + "\n".join(["written:", *(f"  {f}" for f in res.files)])
    return res


def _write_text(path: Path, text: str) -> None:
    """Write ``text`` atomically (a temporary file moved into place)."""
    import os
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write(res: Results, out_dir: str | Path) -> list[str]:
    """Write the CSV files (atomically) and the PNG plots into ``out_dir``; the paths written."""
    from anonkit.io import write_table

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    csvs = {
        "uhra_runs.csv": res.runs,
        **{f"uhra_{n}.csv": df for n, df in res.tables.items()},
        "uhra_attacks.csv": res.attacks,
        "uhra_claims.csv": res.claims,
    }
    for fname, df in csvs.items():
        write_table(df, out / fname)
        files.append(str(out / fname))
    for sweep in ("k", "J", "t"):
        path = out / f"uhra_ru_{sweep}.png"
        plot_ru(res.runs, sweep, path)
        files.append(str(path))
    path = out / "uhra_runtime.png"
    plot_runtime(res.runs, path)
    files.append(str(path))
    return files


def report(res: Results, paper: dict | None = None, *, grid: Grid = FULL_GRID, quick: bool = False) -> str:
    """The printed report: data, Tables 3–5 beside the paper's, the attack table, the claims."""
    paper = load_paper() if paper is None else paper
    runs = res.runs
    lines = textwrap.wrap(
        f"Paper A ({paper['citation']}): UHRA vs BKA-JS and k-primacy (both reconstructed), "
        "background-knowledge adversary with kernel priors; every run max_suppression = 1.",
        WIDTH,
    )
    lines.append("")
    for d in res.descriptions:
        lines += textwrap.wrap(d, WIDTH, subsequent_indent="  ")
    uniq = int((~runs["reused"]).sum())
    lines += textwrap.wrap(
        f"Grid{' (--quick)' if quick else ''}: k in {list(grid.ks)} at t={grid.t:g}, J={grid.J:g}; J in "
        f"{list(grid.Js)} at k={grid.k}, t={grid.t:g}; t in {list(grid.ts)} at k={grid.k}, J={grid.J:g}. "
        f"{len(runs)} rows, {uniq} distinct runs (shared configurations reused; k-primacy has no t). Each run "
        "once: the algorithms are deterministic (the paper averages 10 runs).",
        WIDTH,
    )
    lines.append("")
    lines += textwrap.wrap(
        "Group sizes: 'ours groups' = the algorithm's own groups (the paper's 'QI groups'); 'ours "
        "classes' = published classes, groups with identical generalized values merged.",
        WIDTH,
    )
    for name, df in res.tables.items():
        lines.append("")
        lines.append(table_text(df, paper["tables"][name]["caption"].replace(" - ", " — ")))
    if "adult" not in set(runs["dataset"]):
        lines.append("(Adult not run: no figures of ours in Tables 3-5)")
    lines.append("")
    lines += textwrap.wrap(
        f"Attacks at k={grid.k}, J={grid.J:g} (Mondrian, Flash: k-anonymity + t-closeness only, Flash with "
        f"{FLASH_SUPPRESSION:g} suppression). JSDavg/JSDmax: JSD(prior, Omega-posterior) over released records; "
        f"breach: share of released records whose posterior of their true value >= {BREACH_THRESHOLD:g}; homog: "
        "share in single-value classes; 'priors only' = what the adversary knows before any release.",
        WIDTH,
    )
    lines.append(attack_text(res.attacks))
    lines.append("")
    lines.append("The paper's claims against ours (satisfied / configurations):")
    lines.append(claims_text(res.claims, paper))
    lines.append("")
    lines.append("Notes:")
    for note in NOTES:
        lines += textwrap.wrap(note, WIDTH, initial_indent="  * ", subsequent_indent="    ")
    lines.append("")
    lines.append(f"wall time: {res.seconds:.1f} s")
    return "\n".join(lines)


def cli_run(
    out: str = DEFAULT_OUT,
    datasets: str | Sequence[str] = "adult,bkseq",
    *,
    quick: bool = False,
    seed: int = 0,
    bkseq_priors: str = "kernel",
    progress: Progress | None = None,
) -> str:
    """What ``anonkit experiment uhra`` prints; the figures are written into ``out``."""
    return run(datasets, quick=quick, out_dir=out, seed=seed, bkseq_priors=bkseq_priors, progress=progress).report


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anonkit.experiments.uhra [--out DIR] [--datasets adult,bkseq] [--quick] [--seed N]``."""
    parser = argparse.ArgumentParser(prog="anonkit experiment uhra", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=DEFAULT_OUT, help="folder for the CSV files, PNG plots and report")
    parser.add_argument("--datasets", default="adult,bkseq", help="comma-separated: adult, bkseq")
    parser.add_argument("--quick", action="store_true", help="a small grid on small data (tests, CI)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the Adult sample (--quick) and of BKseq")
    parser.add_argument(
        "--bkseq-priors", default="kernel", choices=("kernel", "incremental"), help="the adversary's priors on BKseq"
    )
    args = parser.parse_args(argv)
    try:
        print(cli_run(args.out, args.datasets, quick=args.quick, seed=args.seed, bkseq_priors=args.bkseq_priors))
    except InputError as exc:
        print(f"error: {exc}")
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
