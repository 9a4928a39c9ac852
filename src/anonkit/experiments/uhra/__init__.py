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
size of the algorithm's own **groups** (``release.record_group``, what the paper's Tables 3–5
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
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from anonkit.errors import InputError
from anonkit.experiments.uhra.claims import CLAIM_COLUMNS, UTILITY_CLAIMS, claims, claims_text
from anonkit.experiments.uhra.constants import (
    ADULT_QIS,
    ADULT_SENSITIVE,
    BASELINES,
    BKSEQ_QIS,
    BKSEQ_RECORDS,
    BKSEQ_RELEASES,
    BKSEQ_SENSITIVE,
    BREACH_THRESHOLD,
    DATASETS,
    DEFAULT_OUT,
    FLASH_SUPPRESSION,
    FLAT_TOLERANCE,
    METHODS,
    QUICK_ADULT_RECORDS,
    QUICK_BKSEQ_RECORDS,
    WIDTH,
    Progress,
)
from anonkit.experiments.uhra.data import Dataset, adult_dataset, bkseq_dataset
from anonkit.experiments.uhra.grid import FULL_GRID, QUICK_GRID, Grid, _key, unique_runs
from anonkit.experiments.uhra.paper import PAPER_FILE, load_paper
from anonkit.experiments.uhra.plots import MARKERS, plot_ru, plot_runtime
from anonkit.experiments.uhra.report import NOTES, report
from anonkit.experiments.uhra.runs import (
    ATTACK_COLUMNS,
    RUN_COLUMNS,
    _warm_up,
    anonymize,
    attack_rows,
    measure,
    models_for,
    run_grid,
)
from anonkit.experiments.uhra.tables import TABLE_COLUMNS, attack_text, fixed_table, paper_tables, table_text

__all__ = [
    "ADULT_QIS",
    "ADULT_SENSITIVE",
    "ATTACK_COLUMNS",
    "BASELINES",
    "BKSEQ_QIS",
    "BKSEQ_RECORDS",
    "BKSEQ_RELEASES",
    "BKSEQ_SENSITIVE",
    "BREACH_THRESHOLD",
    "CLAIM_COLUMNS",
    "DATASETS",
    "DEFAULT_OUT",
    "FLASH_SUPPRESSION",
    "FLAT_TOLERANCE",
    "FULL_GRID",
    "MARKERS",
    "METHODS",
    "NOTES",
    "PAPER_FILE",
    "QUICK_ADULT_RECORDS",
    "QUICK_BKSEQ_RECORDS",
    "QUICK_GRID",
    "RUN_COLUMNS",
    "TABLE_COLUMNS",
    "UTILITY_CLAIMS",
    "WIDTH",
    "Dataset",
    "Grid",
    "Progress",
    "Results",
    "adult_dataset",
    "anonymize",
    "attack_rows",
    "attack_text",
    "bkseq_dataset",
    "claims",
    "claims_text",
    "cli_run",
    "fixed_table",
    "load_paper",
    "main",
    "measure",
    "models_for",
    "paper_tables",
    "plot_ru",
    "plot_runtime",
    "report",
    "run",
    "run_grid",
    "table_text",
    "unique_runs",
    "write",
]


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
    """Write ``text`` atomically (:func:`anonkit.io._files._atomic_write`: the one temporary-file rule)."""
    from anonkit.io import atomic_write as _atomic_write

    _atomic_write(path, str(path), lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


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
