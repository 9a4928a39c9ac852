"""The ``anonkit`` command line: ``anonymize`` a table from a YAML config, ``check`` any table.

Exit codes: 0 success; 1 the privacy models cannot be met (nothing is written); 2 bad input (a one-line
error naming the column, value and row, or the config key); 130 interrupted.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table as RichTable

from anonkit.errors import InputError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="anonkit: privacy-preserving publishing of microdata.",
    pretty_exceptions_enable=False,
)
_err = Console(stderr=True)
_out = Console()


def _jsonable(obj: object) -> object:
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else (None if math.isnan(obj) else ("inf" if obj > 0 else "-inf"))
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if hasattr(obj, "item"):
        return _jsonable(obj.item())  # numpy scalars
    return obj


def _fail(exc: BaseException, code: int) -> None:
    _err.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


@app.command()
def anonymize(
    config: Annotated[Path, typer.Argument(help="YAML config file.")],
    input: Annotated[str | None, typer.Option("--input", help="Read this table instead of the config's input.")] = None,
    output: Annotated[str | None, typer.Option("--output", help="Write the release here instead.")] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Seed for the row shuffle and randomized steps.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON summary object.")] = False,
) -> None:
    """Anonymize a table as the CONFIG says, verify the release and report its privacy and utility."""
    from anonkit.config import load_config
    from anonkit.pipeline import run_config

    try:
        cfg = load_config(config)
        if as_json:
            result = run_config(cfg, config_dir=config.parent, input_path=input, output_path=output, seed=seed)
        else:
            result = _run_with_progress(cfg, config, input, output, seed)
    except InputError as exc:
        _fail(exc, 2)
    except KeyboardInterrupt:
        _err.print("interrupted: nothing was written")
        raise typer.Exit(130) from None
    summary = result.summary
    if as_json:
        print(json.dumps(_jsonable(summary)))
    else:
        _print_summary(summary)
    if not summary["satisfied"]:
        if not as_json:
            _err.print(f"[bold red]not anonymous:[/] {summary['message']}; nothing was written")
        raise typer.Exit(1)


def _run_with_progress(cfg, config: Path, input: str | None, output: str | None, seed: int | None):
    """Run with a progress display: the phase, and a bar of checked transformations in a search (of
    clusters grouped, or records scanned, for the background-knowledge algorithms)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from anonkit.algorithms.lattice._search import PROGRESS
    from anonkit.pipeline import run_config

    with Progress(
        SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=_err, transient=True,
    ) as bar:
        task = bar.add_task("starting", total=None)

        def phase(msg: str) -> None:
            bar.update(task, description=msg)

        what = {"uhra": "grouping background-knowledge clusters", "k-primacy": "grouping background-knowledge clusters",
                "bka-js": "scanning records in Hilbert order"}.get(cfg.algorithm.name,
                                                                   "searching the lattice (checked transformations)")

        def checked(done: int, total: int) -> None:
            bar.update(task, description=what, completed=done, total=total)

        token = PROGRESS.set(checked)
        try:
            return run_config(cfg, config_dir=config.parent, input_path=input, output_path=output, seed=seed,
                              progress=phase)
        finally:
            PROGRESS.reset(token)


def _print_summary(s: dict) -> None:
    t = RichTable(title=f"anonkit — {s['algorithm']}", show_header=False)
    t.add_column("what", style="bold")
    t.add_column("value")
    t.add_row("privacy models", "; ".join(s["models"]))
    t.add_row("result", ("[green]" if s["satisfied"] else "[red]") + s["message"])
    t.add_row("verified independently", "yes" if s["verified"] else "[red]no")
    t.add_row("records", f"{s['records']:,}")
    t.add_row("released", f"{s['released']:,}")
    t.add_row("suppressed", f"{s['suppressed']:,}")
    t.add_row("classes", f"{s['classes']:,} (smallest {s['min_class_size']})")
    if s.get("transformation"):
        t.add_row("transformation", ", ".join(f"{k}={v}" for k, v in s["transformation"].items()))
    t.add_row(f"score ({s['metric']['name']})", str(s["score"]))
    if s.get("lattice"):
        lat = s["lattice"]
        t.add_row("lattice", f"{lat['checked']:,} of {lat['nodes']:,} transformations checked, the rest inferred")
    if s.get("fallback"):
        t.add_row("note", f"[yellow]{s['fallback']}")
    if s.get("background_knowledge"):
        bk = s["background_knowledge"]
        clusters = "" if bk.get("clusters") is None else f"; BK clusters: {bk['clusters']}"
        t.add_row("background knowledge", f"{bk['test']} JSD ≤ {bk['J']:g}; priors: {bk['prior']}{clusters}")
    for name, value in s["metrics"].items():
        t.add_row(name, f"{value:.6g}" if isinstance(value, float) else str(value))
    t.add_row("output", str(s.get("output") or "(not written)"))
    t.add_row("seconds", f"{s['seconds']:.3f}")
    _out.print(t)


@app.command()
def check(
    data: Annotated[str, typer.Argument(help="Table to check (CSV, Parquet, SQLite).")],
    qi: Annotated[str, typer.Option("--qi", help="Quasi-identifiers, comma-separated.")],
    sensitive: Annotated[str, typer.Option("--sensitive", help="Sensitive attributes, comma-separated.")] = "",
    hierarchy: Annotated[
        list[str] | None, typer.Option("--hierarchy", help="NAME=FILE: hierarchy of a sensitive attribute.")
    ] = None,
    numeric: Annotated[str, typer.Option("--numeric", help="Sensitive attributes ordered as numbers.")] = "",
    separator: Annotated[str, typer.Option("--separator", help="CSV field separator.")] = ",",
    table: Annotated[str | None, typer.Option("--table", help="SQL table name.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Report the privacy parameters a table achieves (k, l, t, β, δ) — any table, anonkit's or not."""
    from anonkit.hierarchy import read_hierarchy
    from anonkit.io import read_table
    from anonkit.verify import check as check_table

    start = time.perf_counter()
    try:
        frame = read_table(data, separator=separator, table=table)
        hierarchies = {}
        for item in hierarchy or []:
            name, sep, path = item.partition("=")
            if not sep:
                raise InputError("--hierarchy takes NAME=FILE", value=item)
            hierarchies[name] = read_hierarchy(path, name=name)
        qis = [q for q in qi.split(",") if q]
        sens = [s for s in sensitive.split(",") if s]
        report = check_table(frame, qis, sens, hierarchies=hierarchies, numeric=[x for x in numeric.split(",") if x])
    except InputError as exc:
        _fail(exc, 2)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    report["seconds"] = round(time.perf_counter() - start, 6)
    if as_json:
        print(json.dumps(_jsonable(report)))
        return
    t = RichTable(title=f"anonkit check — {data}", show_header=False)
    t.add_column("what", style="bold")
    t.add_column("value")
    for key in ("records", "released", "suppressed", "classes", "k", "avg_class_size", "uniques"):
        v = report[key]
        t.add_row(key, f"{v:.4g}" if isinstance(v, float) else f"{v:,}")
    for s, r in report["sensitive"].items():
        for key, v in r.items():
            t.add_row(f"{s}: {key}", "—" if v is None else f"{v:.4g}")
    _out.print(t)


experiment_app = typer.Typer(help="Reproduce the experiments of the source papers.", no_args_is_help=True)
app.add_typer(experiment_app, name="experiment")


@experiment_app.command("stack-and-deal")
def experiment_stack_and_deal(
    data: Annotated[str | None, typer.Option("--data", help="A table of your own (default: the paper's "
                                             "frequency profile and Adult).")] = None,
    sensitive: Annotated[str | None, typer.Option("--sensitive", help="Its sensitive attribute.")] = None,
    out: Annotated[str, typer.Option("--out", help="Folder for the CSV and the PNG plot.")] = "stack-and-deal-out",
    separator: Annotated[str, typer.Option("--separator", help="CSV field separator of --data.")] = ",",
) -> None:
    """Paper E's study: distinct-l and maximum EMD against k, Stack and Deal versus random classes."""
    from anonkit.experiments.stack_and_deal import cli_run

    try:
        report = cli_run(data, sensitive, out, separator)
    except InputError as exc:
        _fail(exc, 2)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    _out.print(report, highlight=False)


@experiment_app.command("uhra")
def experiment_uhra(
    out: Annotated[str, typer.Option("--out", help="Folder for the CSV files, PNG plots and report.")] = (
        "uhra-experiment"
    ),
    datasets: Annotated[str, typer.Option("--datasets", help="Comma-separated: adult, bkseq.")] = "adult,bkseq",
    quick: Annotated[bool, typer.Option("--quick", help="A small grid on an Adult sample and a small BKseq "
                                        "release (tests, CI).")] = False,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the Adult sample (--quick) and of BKseq.")] = 0,
    bkseq_priors: Annotated[str, typer.Option("--bkseq-priors", help="The adversary's priors on BKseq: kernel "
                                              "or incremental.")] = "kernel",
) -> None:
    """Paper A's study: UHRA versus BKA-JS and k-primacy on Adult and BKseq (R-U maps, Tables 3-5, attacks)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from anonkit.experiments.uhra import cli_run

    try:
        with Progress(
            SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=_err, transient=True,
        ) as bar:
            task = bar.add_task("starting", total=None)

            def step(done: int, total: int, what: str) -> None:
                bar.update(task, description=what, completed=done, total=total)

            report = cli_run(out, datasets, quick=quick, seed=seed, bkseq_priors=bkseq_priors, progress=step)
    except InputError as exc:
        _fail(exc, 2)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    _out.print(report, highlight=False, markup=False)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
