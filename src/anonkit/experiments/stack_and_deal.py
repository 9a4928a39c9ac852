"""Paper E's experiment (Thammanna Gowda, "Stack and Deal", CS&IT 11(11), 2021; spec §4.8).

For every ``k`` (default 2…20): the distinct-l (fewest distinct sensitive values in a class) and
the maximum equal-distance EMD between a class's sensitive distribution and the table's, for
Stack and Deal and for *random* classes of the same sizes (the records shuffled, then dealt
cyclically into the same ``e = ⌊r/k⌋`` classes), the random figures averaged over ``seeds`` seeded
shuffles. The mean EMD over the classes is reported too.

Only the sensitive column matters here: Stack and Deal forms its classes from the sensitive values
alone, so the experiment deals the sensitive codes with the algorithm's own core
(:func:`anonkit.algorithms.bucket.stack_and_deal.deal`) and skips the QI generalization.

Data sets:

* the paper's frequency profile ``F = (167, 153, 127, 103, 91, 89)`` (``r = 730``), as synthetic
  records with those counts of six values ``S1``…``S6`` (``data=None``, or any sequence of counts);
* Adult (``data="adult"``, the bundled 30,162-record extract) with **occupation** as the sensitive
  attribute: 14 values of very unequal frequency (9 to 4,038 records), which is the interesting
  case for diversity — salary-class has two values, so its distinct-l is at most 2 for every k;
* any table: a path (CSV, Parquet, SQLite as :func:`anonkit.io.read_table` reads them), a
  ``pandas.DataFrame`` or a :class:`~anonkit.table.Table`, with ``sensitive`` naming the column.

Departures from the paper, all deliberate: EMD is the equal-distance EMD with the class
distribution ``g_j / |EC|`` (the paper's ``g_j / r`` is an erratum, spec §8 row 18; the paper's
printed formula is an ordered-distance EMD over values sorted by frequency, but a nominal
attribute has no order); the random baseline has exactly the Stack-and-Deal class sizes (the
paper's random classes apparently did not, which it gives as the reason random classes beat Stack
and Deal at k = 2).
"""

from __future__ import annotations

import argparse
import os
import textwrap
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from anonkit._values import as_text
from anonkit.algorithms.bucket.stack_and_deal import class_histogram, deal, diversity, random_deal
from anonkit.errors import InputError
from anonkit.stats import build_domain
from anonkit.table import Table

#: the frequency profile of the paper's Figures 1 and 3
PAPER_FREQUENCIES = (167, 153, 127, 103, 91, 89)
#: Adult's sensitive attribute in this experiment (see the module docstring)
ADULT_SENSITIVE = "occupation"
DEFAULT_KS = tuple(range(2, 21))
DEFAULT_SEEDS = 10
#: line width of the printed report (a terminal's, so the CLI does not re-wrap it)
WIDTH = 78

#: paper E's findings, as summarized in the project's paper-results notes
PAPER_FINDINGS = {
    "profile": (
        "F = (167, 153, 127, 103, 91, 89), r = 730: the diversity of the classes is highest at k = 9 "
        "(every class holds all 6 values); the EMD between class and table distributions falls as k "
        "grows and is below random classes of the same sizes (except some classes at k = 2)."
    ),
    "adult": "Adult with k from 2 to 21 behaves similarly (Figure 2: diversity rises with k).",
    "other": (
        "Blood Transfusion (748 records) and Haberman's Survival (306 records): limiting the per-class "
        "frequency difference lowers EMD."
    ),
}

COLUMNS = [
    "dataset",
    "k",
    "records",
    "values",
    "classes",
    "size_min",
    "size_max",
    "sd_distinct_l",
    "random_distinct_l",
    "random_distinct_l_min",
    "sd_max_emd",
    "random_max_emd",
    "random_max_emd_std",
    "sd_mean_emd",
    "random_mean_emd",
]


# ---------------------------------------------------------------------------------------- inputs
def profile_codes(frequencies: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Synthetic records holding value ``S{i+1}`` ``frequencies[i]`` times: codes and labels."""
    f = np.asarray(list(frequencies), dtype=np.int64)
    if f.ndim != 1 or f.size == 0 or (f < 0).any() or f.sum() == 0:
        raise InputError("frequencies must be a non-empty list of non-negative counts, not all zero")
    width = len(str(len(f)))
    labels = np.array([f"S{i + 1:0{width}d}" for i in range(len(f))], dtype=object)
    return np.repeat(np.arange(len(f), dtype=np.int64), f), labels


def _frame_codes(frame: pd.DataFrame, sensitive: str | None) -> tuple[np.ndarray, np.ndarray, str]:
    if sensitive is None:
        raise InputError("name the sensitive attribute of the table (--sensitive)", key="sensitive")
    if sensitive not in frame.columns:
        raise InputError(
            f"unknown sensitive column; the table has: {', '.join(map(str, frame.columns))}", column=sensitive
        )
    domain, codes = build_domain(sensitive, as_text(frame[sensitive]))
    return codes.astype(np.int64), domain.labels, sensitive


def load(
    data: object = None, sensitive: str | None = None, *, separator: str = ","
) -> tuple[str, np.ndarray, np.ndarray, str]:
    """``(dataset name, sensitive codes, value labels, attribute)`` of the experiment's input."""
    if data is None:
        codes, labels = profile_codes(PAPER_FREQUENCIES)
        return "profile", codes, labels, "S"
    if isinstance(data, Table):
        sa = sensitive if sensitive is not None else (data.sensitive[0] if data.sensitive else None)
        if sa is None or sa not in data.sensitive:
            raise InputError("the table has no such sensitive attribute", column=sa)
        keep = ~data.presuppressed
        return "table", data.sensitive_codes[sa][keep].astype(np.int64), data.domains[sa].labels, sa
    if isinstance(data, pd.DataFrame):
        codes, labels, sa = _frame_codes(data, sensitive)
        return "table", codes, labels, sa
    if isinstance(data, str | os.PathLike) and str(data).lower() == "adult":
        from anonkit.datasets import load_adult

        frame, _ = load_adult()
        codes, labels, sa = _frame_codes(frame, sensitive or ADULT_SENSITIVE)
        return "adult", codes, labels, sa
    if isinstance(data, str | os.PathLike):
        from anonkit.io import read_table

        frame = read_table(data, separator=separator)
        codes, labels, sa = _frame_codes(frame, sensitive)
        stem = Path(str(data)).stem or "table"
        return stem, codes, labels, sa
    if isinstance(data, Sequence | np.ndarray):
        codes, labels = profile_codes(data)  # type: ignore[arg-type]
        return "profile", codes, labels, "S"
    raise InputError(f"cannot run the experiment on a {type(data).__name__}")


# ---------------------------------------------------------------------------------------- computing
def measure(
    codes: np.ndarray,
    n_values: int,
    ks: Sequence[int] = DEFAULT_KS,
    *,
    seeds: int = DEFAULT_SEEDS,
    seed: int = 0,
    dataset: str = "data",
) -> pd.DataFrame:
    """The figures of every ``k`` for records with sensitive ``codes`` (see the module docstring).

    The random classes of ``k`` use the seeds ``(seed, k, 0)`` … ``(seed, k, seeds − 1)``. A ``k``
    larger than the number of records (no class) is skipped.
    """
    codes = np.asarray(codes, dtype=np.int64)
    r = len(codes)
    reference = np.bincount(codes, minlength=n_values) / max(r, 1)
    present = int(np.count_nonzero(reference))
    rows = []
    for k in ks:
        k = int(k)
        if k < 1:
            raise InputError(f"k must be a positive whole number, got {k!r}", key="ks")
        cls, e = deal(codes, k, n_values)
        if e == 0:
            continue
        sd = diversity(class_histogram(codes, cls, e, n_values), reference)
        rand = []
        for s in range(int(seeds)):
            rcls, _ = random_deal(r, k, np.random.default_rng((int(seed), k, s)))
            rand.append(diversity(class_histogram(codes, rcls, e, n_values), reference))
        sizes = np.bincount(cls, minlength=e)
        rl = np.array([x["distinct_l"] for x in rand], dtype=float)
        rmax = np.array([x["max_emd"] for x in rand])
        rmean = np.array([x["mean_emd"] for x in rand])
        rows.append(
            {
                "dataset": dataset,
                "k": k,
                "records": r,
                "values": present,
                "classes": e,
                "size_min": int(sizes.min()),
                "size_max": int(sizes.max()),
                "sd_distinct_l": sd["distinct_l"],
                "random_distinct_l": float(rl.mean()) if rand else float("nan"),
                "random_distinct_l_min": int(rl.min()) if rand else 0,
                "sd_max_emd": sd["max_emd"],
                "random_max_emd": float(rmax.mean()) if rand else float("nan"),
                "random_max_emd_std": float(rmax.std()) if rand else float("nan"),
                "sd_mean_emd": sd["mean_emd"],
                "random_mean_emd": float(rmean.mean()) if rand else float("nan"),
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def plot(df: pd.DataFrame, path: str | os.PathLike[str], *, title: str = "") -> None:
    """Two panels: distinct-l vs k and EMD vs k, Stack and Deal and random classes."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    k = df["k"].to_numpy()
    left.plot(k, df["sd_distinct_l"], "o-", color="C0", label="Stack and Deal")
    left.plot(k, df["random_distinct_l"], "s--", color="C3", label="random classes (mean)")
    left.plot(k, df["random_distinct_l_min"], ":", color="C3", alpha=0.6, label="random classes (worst seed)")
    if len(df):
        left.axhline(int(df["values"].iloc[0]), color="grey", lw=0.8, ls="-.", label="values in the table")
    left.set_xlabel("k")
    left.set_ylabel("distinct-l (fewest distinct values in a class)")
    left.set_title("diversity")
    left.legend(fontsize=8, loc="lower right")
    right.plot(k, df["sd_max_emd"], "o-", color="C0", label="Stack and Deal, max")
    right.plot(k, df["random_max_emd"], "s-", color="C3", label="random classes, max (mean)")
    lo = df["random_max_emd"] - df["random_max_emd_std"]
    hi = df["random_max_emd"] + df["random_max_emd_std"]
    right.fill_between(k, lo, hi, color="C3", alpha=0.15, lw=0)
    right.plot(k, df["sd_mean_emd"], "--", color="C0", alpha=0.7, label="Stack and Deal, mean")
    right.plot(k, df["random_mean_emd"], "--", color="C3", alpha=0.7, label="random classes, mean")
    right.set_xlabel("k")
    right.set_ylabel("EMD (equal distance) to the table")
    right.set_title("closeness")
    right.set_ylim(bottom=0)
    right.legend(fontsize=8)
    for ax in (left, right):
        ax.grid(alpha=0.3)
        if len(k):
            ax.set_xticks(k)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def summarize(df: pd.DataFrame, name: str, attribute: str = "") -> str:
    """Our findings on one data set, with the paper's beside them."""
    if df.empty:
        return f"{name}: no k leaves a class (fewer records than every k)"
    r, m = int(df["records"].iloc[0]), int(df["values"].iloc[0])
    best = int(df["sd_distinct_l"].max())
    first = int(df.loc[df["sd_distinct_l"] == best, "k"].iloc[0])
    ks = df["k"].to_numpy()
    emd = df["sd_max_emd"].to_numpy()
    rises = int((np.diff(emd) > 1e-12).sum())
    below = df["sd_max_emd"] < df["random_max_emd"]
    below_l = df["sd_distinct_l"] >= df["random_distinct_l"]
    not_below = ", ".join(str(int(x)) for x in df.loc[~below, "k"]) or "none"
    what = f"{name}" + (f" ({attribute})" if attribute else "")
    ours = (
        f"distinct-l of Stack and Deal peaks at {best} of {m} values, first at k={first}; random classes "
        f"reach {df['random_distinct_l'].max():.2f} on average (Stack and Deal >= random at "
        f"{int(below_l.sum())}/{len(df)} k). Max EMD of Stack and Deal {emd[0]:.4f} at k={ks[0]} -> "
        f"{emd[-1]:.4f} at k={ks[-1]} ({rises} rises between consecutive k), random classes "
        f"{df['random_max_emd'].iloc[0]:.4f} -> {df['random_max_emd'].iloc[-1]:.4f}; Stack and Deal below "
        f"random at {int(below.sum())}/{len(df)} k (not below at k: {not_below})."
    )
    paper = PAPER_FINDINGS[name] if name in PAPER_FINDINGS else "(other data sets) " + PAPER_FINDINGS["other"]
    lines = [f"{what}: r = {r} records, {m} values, k = {ks.min()}..{ks.max()}"]
    lines += textwrap.wrap(ours, WIDTH, initial_indent="  ours:  ", subsequent_indent=" " * 9)
    lines += textwrap.wrap(paper, WIDTH, initial_indent="  paper: ", subsequent_indent=" " * 9)
    return "\n".join(lines)


def table_text(df: pd.DataFrame) -> str:
    """The figures as a plain fixed-width table."""
    head = f"{'k':>3} {'classes':>7} {'sizes':>7} {'l S&D':>6} {'l rand':>7} {'maxEMD S&D':>11} {'maxEMD rand':>12}"
    rows = [head]
    for row in df.itertuples(index=False):
        sizes = f"{row.size_min}" if row.size_min == row.size_max else f"{row.size_min}-{row.size_max}"
        rows.append(
            f"{row.k:>3} {row.classes:>7} {sizes:>7} {row.sd_distinct_l:>6} {row.random_distinct_l:>7.2f} "
            f"{row.sd_max_emd:>11.4f} {row.random_max_emd:>12.4f}"
        )
    return "\n".join(rows)


def run(
    data: object = None,
    *,
    sensitive: str | None = None,
    ks: Sequence[int] = DEFAULT_KS,
    seeds: int = DEFAULT_SEEDS,
    out_dir: str | os.PathLike[str] | None = None,
    seed: int = 0,
    separator: str = ",",
    name: str | None = None,
) -> pd.DataFrame:
    """Run the experiment on one data set and return its figures (one row per ``k``).

    ``data``: ``None`` (the paper's profile F), a sequence of value counts, ``"adult"``, a path, a
    ``DataFrame`` or a :class:`~anonkit.table.Table`; ``sensitive`` names the sensitive column
    (required for paths and frames; Adult: occupation). With ``out_dir`` the figures are written to
    ``stack_and_deal_<name>.csv`` (atomically) and plotted to ``stack_and_deal_<name>.png``. The
    text summary beside the paper's findings is ``df.attrs["summary"]``; the files written are
    ``df.attrs["files"]``.
    """
    dataset, codes, labels, attribute = load(data, sensitive, separator=separator)
    dataset = name or dataset
    df = measure(codes, len(labels), ks, seeds=seeds, seed=seed, dataset=dataset)
    files: list[str] = []
    if out_dir is not None:
        from anonkit.io import write_table

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        csv_path = out / f"stack_and_deal_{dataset}.csv"
        png_path = out / f"stack_and_deal_{dataset}.png"
        write_table(df, csv_path)
        plot(
            df,
            png_path,
            title=f"Stack and Deal vs random classes — {dataset}" + (f" ({attribute})" if attribute != "S" else ""),
        )
        files = [str(csv_path), str(png_path)]
    df.attrs["summary"] = summarize(df, dataset, attribute if attribute != "S" else "")
    df.attrs["files"] = files
    return df


def cli_run(data: str | None, sensitive: str | None, out: str, separator: str = ",") -> str:
    """What ``anonkit experiment stack-and-deal`` prints: without ``data`` the paper's profile F and
    Adult (occupation), else the given table; figures and plots are written into ``out``."""
    inputs: list[tuple[object, str | None]] = [(None, None), ("adult", None)] if data is None else [(data, sensitive)]
    parts = textwrap.wrap(
        "Stack and Deal (paper E) vs random classes of the same sizes: distinct-l and max EMD "
        f"(equal distance, class distribution g/|EC|) for each k, random figures averaged over {DEFAULT_SEEDS} seeds",
        WIDTH,
    )
    for source, sa in inputs:
        df = run(source, sensitive=sa, out_dir=out, separator=separator)
        parts.append("")
        parts.append(df.attrs["summary"])
        parts.append(table_text(df))
        parts += ["written:", *(f"  {f}" for f in df.attrs["files"])]
    return "\n".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anonkit.experiments.stack_and_deal [--data PATH --sensitive S] [--out DIR]``."""
    parser = argparse.ArgumentParser(prog="anonkit experiment stack-and-deal", description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="a table of your own (default: profile F and Adult)")
    parser.add_argument("--sensitive", default=None, help="its sensitive attribute")
    parser.add_argument("--out", default="stack-and-deal-out", help="folder for the CSV and the PNG plot")
    parser.add_argument("--separator", default=",", help="CSV field separator of --data")
    args = parser.parse_args(argv)
    try:
        print(cli_run(args.data, args.sensitive, args.out, args.separator))
    except InputError as exc:
        print(f"error: {exc}")
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
