"""The ``anonkit`` command line: ``anonymize`` a table from a YAML config, ``check`` any table.

Exit codes: 0 success; 1 the privacy models cannot be met (nothing is written); 2 bad input (a one-line
error naming the column, value and row, or the config key); 130 interrupted.
"""

from __future__ import annotations

import contextvars
import json
import math
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable

from anonkit._secrets import mask_secrets
from anonkit.errors import InputError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="anonkit: privacy-preserving publishing of microdata.",
    pretty_exceptions_enable=False,
)
_err = Console(stderr=True)
_out = Console()
T = TypeVar("T")


def _jsonable(obj: object) -> object:
    if isinstance(obj, str):
        return mask_secrets(obj)  # no password or token reaches a printed JSON object
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
    _err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _interruptible(job: Callable[[], T]) -> T:
    """Run ``job`` on a worker thread and wait for it here, where Python delivers Ctrl-C.

    On Ctrl-C the job is stopped at once, even inside a numba kernel: no output not yet moved into
    place will be (:func:`anonkit.interrupt.request`), temporary files are removed, one line says
    what was written (nothing, unless a write had already completed), and the process exits 130.
    """
    from anonkit import interrupt
    from anonkit.io._files import terminating

    box: dict[str, object] = {}
    context = contextvars.copy_context()  # the progress callback travels with the job

    def work() -> None:
        try:
            box["value"] = context.run(job)
        except BaseException as exc:  # re-raised on the main thread
            box["error"] = exc

    worker = threading.Thread(target=work, name="anonkit-job", daemon=True)
    try:
        with terminating():  # SIGTERM stops the job as Ctrl-C does (temporary files removed)
            worker.start()
            while worker.is_alive():
                worker.join(0.05)
    except KeyboardInterrupt:
        written = interrupt.request()
        interrupt.remove_temporary()
        _stop_interrupted(written)
    if "error" in box:
        error = box["error"]
        if isinstance(error, KeyboardInterrupt):
            _stop_interrupted(interrupt.request())
        raise error  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


def _whole_number(text: str, flag: str) -> int:
    """``text`` as an int; an InputError naming ``flag`` otherwise."""
    try:
        return int(text.strip())
    except ValueError:
        raise InputError(f"{flag} must be a whole number", key=flag.lstrip("-"), value=text) from None


def _stop_interrupted(written: list[str]) -> NoReturn:
    what = "nothing was written" if not written else "already written: " + ", ".join(written)
    _err.print(f"interrupted: {what}", highlight=False, markup=False)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


@app.command()
def anonymize(
    config: Annotated[Path, typer.Argument(help="YAML config file.")],
    input: Annotated[str | None, typer.Option("--input", help="Read this table instead of the config's input.")] = None,
    output: Annotated[str | None, typer.Option("--output", help="Write the release here instead.")] = None,
    seed: Annotated[str | None, typer.Option("--seed", help="Seed (whole number ≥ 0) for the row shuffle and "
                                             "the algorithm's random choices.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON summary object.")] = False,
    report: Annotated[str | None, typer.Option("--report", help="Also write the HTML report (an audit with the "
                                               "config's or default settings included) here.")] = None,
    show_values: Annotated[bool, typer.Option("--show-values", help="Let the report show the input's raw "
                                              "values.")] = False,
) -> None:
    """Anonymize a table as the CONFIG says, verify the release and report its privacy and utility."""
    from anonkit.config import load_config
    from anonkit.errors import UnsatisfiableError
    from anonkit.pipeline import input_location, planned_outputs, run_config
    from anonkit.release import check_seed

    try:
        run_seed = None if seed is None else check_seed(_whole_number(seed, "--seed"))
        cfg = load_config(config)
        if report is not None:  # before any work: the report never replaces a file the run reads or writes
            outs = planned_outputs(cfg, config_dir=config.parent, input_path=input, output_path=output,
                                   config_file=config, report=report)
            _check_report(report, [str(config), input_location(cfg, config.parent, input)[0],
                                   *(loc for loc, _ in outs)])
        audit = report is not None
        if as_json:
            result = _interruptible(lambda: run_config(cfg, config_dir=config.parent, input_path=input,
                                                       output_path=output, seed=run_seed, config_file=config,
                                                       audit=audit))
        else:
            result = _run_with_progress(cfg, config, input, output, run_seed, audit)
        if report is not None:
            _write_run_report(result, cfg, config, report, show_values)
    except InputError as exc:
        _fail(exc, 2)
    except UnsatisfiableError as exc:
        if as_json:
            print(json.dumps(_jsonable(exc.summary)))
        else:
            _print_warnings(exc.summary.get("warnings", []))
            _err.print(f"[bold red]not anonymous:[/] {escape(str(exc))}; nothing was written", highlight=False,
                       soft_wrap=True)
        raise typer.Exit(1) from None
    if as_json:
        print(json.dumps(_jsonable(result.summary)))
    else:
        _print_summary(result.summary)
        if "audit" in result.summary and (cfg.audit is not None or report is not None):
            _print_audit(result.summary["audit"], verdict=False)
        _print_verdict(result.summary)


def _check_report(report: str, refuse: list[str]) -> None:
    """Before any work: the report's folder exists and the report is none of the files in ``refuse``."""
    from anonkit.io._places import same_file  # the one rule: real path, symlink or hard link

    target = Path(report)
    for path in refuse:
        if path and "://" not in path and same_file(path, target):
            raise InputError("the report would replace a file the run reads or writes; write it elsewhere",
                             key="--report", value=report)
    if target.suffix.lower() not in (".html", ".htm"):
        raise InputError("the report is an HTML file: give a name ending in .html", key="--report", value=report)
    if not target.resolve().parent.is_dir():
        raise InputError("the report's folder does not exist", key="--report", value=report)


def _write_run_report(result, cfg, config: Path, report: str, show_values: bool) -> None:  # type: ignore[no-untyped-def]
    """The HTML report of a finished run, from the run in memory."""
    from anonkit.report import build_report, write_report

    release = result.release
    published = result.frame if not release.tables else dict(release.tables)
    html = build_report(result.summary, original=release.table.frame, release=published,
                        config_text=mask_secrets(config.read_text(encoding="utf-8")), audit=result.summary.get("audit"),
                        show_values=show_values)
    run = result.summary.get("run", {})
    write_report(html, report, refuse=[str(config), run.get("input") or "",
                                       *(o["path"] for o in run.get("outputs", []))])
    result.summary["report"] = report


def _run_with_progress(cfg, config: Path, input: str | None, output: str | None, seed: int | None,
                       audit: bool = False):
    """Run with a progress display: the phase, and a bar of checked transformations in a search (of
    clusters grouped, or records scanned, for the background-knowledge algorithms)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from anonkit.algorithms.common import PROGRESS
    from anonkit.pipeline import run_config

    with Progress(
        SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=_err, transient=True,
    ) as bar:
        task = bar.add_task("starting", total=None)

        def phase(msg: str) -> None:
            bar.update(task, description=msg)

        what = cfg.algorithm.spec.progress or "working"

        def checked(done: int, total: int) -> None:
            bar.update(task, description=what, completed=done, total=total)

        token = PROGRESS.set(checked)
        try:
            return _interruptible(lambda: run_config(cfg, config_dir=config.parent, input_path=input,
                                                     output_path=output, seed=seed, progress=phase,
                                                     config_file=config, audit=audit))
        finally:
            PROGRESS.reset(token)


# ---------------------------------------------------------------------- the human summary
def _pct(x: float, digits: int = 3) -> str:
    """A share as a percentage rounded for people: 0.2469 → "24.7 %", 0 → "0 %"."""
    if x == 0:
        return "0 %"
    v = 100.0 * x
    text = f"{v:.{digits}g}" if abs(v) >= 0.001 else f"{v:.1e}"
    return f"{text} %"


def _one_in(risk: float) -> str:
    """A probability as a percentage and "1 in N": 0.2 → "20 % (1 in 5)"."""
    if risk <= 0:
        return "0 %"
    return f"{_pct(risk)} (1 in {1.0 / risk:,.0f})"


def _num(x: object) -> str:
    if isinstance(x, float):
        if x != x:
            return "—"
        return f"{x:,.0f}" if x.is_integer() and abs(x) < 1e15 else f"{x:.4g}"
    if isinstance(x, int):
        return f"{x:,}"
    return str(x)


def _print_warnings(warnings: list[str]) -> None:
    for w in warnings:
        _err.print(f"[yellow]warning:[/] {escape(w)}", highlight=False, soft_wrap=True)


def _metric_name(metric: dict) -> str:
    name = metric["name"]
    if name == "loss":
        return f"ARX Loss, gs {metric['gs']:g}, {metric['aggregate']}"
    return {"dm": "discernibility", "dm*": "discernibility (DM*)", "aecs": "average class size (AECS)",
            "entropy": "non-uniform entropy", "precision": "precision loss", "height": "generalization height"}.get(
        name, name)


def _print_summary(s: dict) -> None:
    """The summary grouped as Privacy, Utility and Run; every figure with its unit and which
    direction is better. The full list of measures is in ``--json`` (README glossary)."""
    m = s["metrics"]
    t = RichTable(title=escape(f"anonkit — {s['algorithm']}: {s['message']}, verified independently"),
                  show_header=False, title_justify="left")
    t.add_column("what", style="bold")
    t.add_column("value")
    t.add_column("better", style="dim")
    t.add_row("[underline]Privacy", "", "")
    checks = [r for r in s.get("verification", []) if r["model"].startswith(("structure:", "link:", "manifest:"))]
    if checks:  # the shape of per-person tables and their link to the input: one line when they hold
        bad = [r["model"] for r in checks if not r["holds"]]
        t.add_row("  published tables and their link", "[red]fails: " + escape("; ".join(bad)) if bad else
                  f"[green]{len(checks)} checks hold", "")
    for r in s.get("verification", []):
        if r in checks:
            continue
        status = "[green]holds" if r["holds"] else "[red]fails"
        t.add_row(escape(f"  {r['model']}"), f"{status}[/] (achieved {_num(r['achieved'])})", "")
    people = "persons" in s  # data with several records per person: classes, risk and uniqueness count persons
    unit = "persons" if people else "records"
    released = s["released_persons"] if people else s["released"]
    t.add_row("  smallest class", f"{s['min_class_size']:,} {unit}", "higher")
    t.add_row("  re-identification risk (prosecutor)",
              f"highest {_one_in(m['prosecutor_highest'])}, average {_one_in(m['prosecutor_average'])}", "lower")
    at_risk = round(m["records_at_risk"] * released)
    t.add_row(f"  {unit} above the risk threshold ({_pct(s.get('risk_threshold', 0.2))})",
              f"{at_risk:,} of {released:,} released ({_pct(m['records_at_risk'])})", "lower")
    t.add_row(f"  unique {unit}", f"{_pct(m['sample_uniqueness'])} of released {unit} are alone in their class",
              "lower")
    t.add_row("  record linkage", f"{_pct(m['record_linkage'] / 100.0)} of records re-linked by a matching attack",
              "lower")
    one = s.get("one_to_many")
    if one:
        ri, li = one["record_intersection"], one["linkability"]
        t.add_row("  record intersection", f"{ri['breached']:,} of {ri['persons_with_several_records']:,} persons with "
                  f"several records disclosed ({_pct(ri['rate'])}); {ri['spread']:,} spread over classes", "lower")
        t.add_row("  record linkability", f"mean {_pct(li['mean'])}, highest {_pct(li['max'])} (a person's most "
                  "severe value guessed)", "lower")
    t.add_row("[underline]Utility", "", "")
    t.add_row("  information loss (GCP)", _pct(m["gcp"]), "lower")
    if one:
        t.add_row("  NCP per person", _pct(one["ncp"]), "lower")
        t.add_row(f"  query accuracy ({one['queries']:,} COUNT queries)",
                  f"{_pct(one['query_accuracy'])} (mean relative error {one['query_error']:.3g})", "higher")
    score = s["score"]
    metric = s["metric"]
    shown = ("[" + ", ".join(_num(float(v)) for v in score[:4]) + (", …]" if len(score) > 4 else "]")
             if isinstance(score, list) else (_pct(score) if metric["name"] == "loss" else _num(score)))
    t.add_row(f"  search score ({_metric_name(metric)})", escape(shown), "lower")
    share = _pct(s["suppressed"] / s["records"])
    t.add_row("  suppressed records", f"{s['suppressed']:,} of {s['records']:,} ({share})", "lower")
    t.add_row("  classes", f"{s['classes']:,} (average {m['avg_class_size']:,.1f} {unit})", "")
    if people:
        reconciled = f"; {s['reconciled']:,} reconciled to their first row" if s.get("reconciled") else ""
        t.add_row("  persons", f"{s['released_persons']:,} of {s['persons']:,} released{reconciled}", "")
    for name, g in (s.get("generalization") or {}).items():
        if g["changed"] == 0:
            value = "unchanged"
        else:
            value = ", ".join(g["examples"]) + (", …" if g["labels"] > len(g["examples"]) else "")
            level = "" if g["level"] is None else f"level {g['level']} of {g['height']}, "
            plural = "s" if g["labels"] != 1 else ""
            value += f"  ({level}{g['labels']:,} label{plural}, {_pct(g['changed'])} of values generalized)"
        t.add_row(escape(f"  {name} →"), escape(value), "")
    t.add_row("[underline]Run", "", "")
    if s.get("lattice"):
        lat = s["lattice"]
        pruned = f", {lat['pruned']:,} pruned by the metric's lower bound" if lat.get("pruned") else ""
        t.add_row("  lattice", f"{lat['checked']:,} of {lat['nodes']:,} transformations checked{pruned}, the rest "
                  "inferred", "")
    if s.get("fallback"):
        t.add_row("  note", f"[yellow]{escape(str(s['fallback']))}", "")
    if s.get("background_knowledge"):
        bk = s["background_knowledge"]
        clusters = "" if bk.get("clusters") is None else f"; BK clusters: {bk['clusters']}"
        t.add_row("  background knowledge",
                  escape(f"{bk['test']} JSD ≤ {bk['J']:g}; priors: {bk['prior']}{clusters}"), "")
    if s.get("post_analytics"):
        post = s["post_analytics"]
        t.add_row("  inference (post-analytics)", escape(
            f"{post['vulnerable_classes']:,} classes ({post['individuals_at_risk']:,} individuals) with one "
            f"critical value ≥ {_pct(post['rho'])}"), "lower")
        fakes = post.get("fakes")
        if fakes:
            text = f"{fakes['injected']:,} injected; private manifest: {fakes['manifest']}"
            t.add_row("  fake records", escape(text), "")
    if s.get("manifest"):
        noise = (s.get("notes") or {}).get("noise_records")
        count = f"{noise:,} noise records; " if isinstance(noise, int) else ""
        t.add_row("  fake records", escape(f"{count}private manifest (never publish it): {s['manifest']}"), "")
    t.add_row("  time", f"{s.get('total_seconds', s['seconds']):.2f} s", "")
    t.add_row("  output", escape(str(s.get("output") or "(not written)")), "")
    _out.print(t)
    for line in (s.get("post_analytics") or {}).get("alerts", []):
        _err.print(f"[bold yellow]alert:[/] {escape(line)}", highlight=False, soft_wrap=True)
    _print_warnings(s.get("warnings", []))


@app.command()
def check(
    data: Annotated[str, typer.Argument(help="Table to check (CSV, Parquet, SQLite).")],
    qi: Annotated[str, typer.Option("--qi", help="Quasi-identifiers, comma-separated.")],
    sensitive: Annotated[str, typer.Option("--sensitive", help="Sensitive attributes, comma-separated.")] = "",
    hierarchy: Annotated[
        list[str] | None, typer.Option("--hierarchy", help="NAME=FILE: hierarchy of a sensitive attribute.")
    ] = None,
    numeric: Annotated[str, typer.Option("--numeric", help="Sensitive attributes ordered as numbers (default: "
                                         "those whose values are all numbers).")] = "",
    categorical: Annotated[str, typer.Option("--categorical", help="Sensitive attributes that are nominal even "
                                             "though their values are numbers.")] = "",
    person: Annotated[str | None, typer.Option("--person", help="The column naming each row's person (several "
                                               "rows per person): class sizes count persons.")] = None,
    categories: Annotated[
        list[str] | None, typer.Option("--categories", help="NAME=FILE: categories of a sensitive attribute (CSV: "
                                       "value,category with a header) — reports θ-sensitivity.")
    ] = None,
    category_order: Annotated[
        list[str] | None, typer.Option("--category-order", help="NAME=A,B,C: its categories from lowest to highest "
                                       "(default Asymptomatic,Low,Mild,High,Severe).")
    ] = None,
    separator: Annotated[str, typer.Option("--separator", help="CSV field separator.")] = ",",
    table: Annotated[str | None, typer.Option("--table", help="SQL table name.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Report the privacy parameters a table achieves (k, l, t, β, δ, θ) — any table, anonkit's or not."""
    from anonkit.hierarchy import read_hierarchy
    from anonkit.io import read_table
    from anonkit.io.categories import read_categories
    from anonkit.verifier import check as check_table

    start = time.perf_counter()

    def names(text: str) -> list[str]:
        return [x.strip() for x in text.split(",") if x.strip()]

    def job() -> dict:
        qis = names(qi)
        if not qis:  # with no quasi-identifier every record is in one class: k would be the table's size
            raise InputError("no quasi-identifier was given; name the columns an attacker may know, e.g. "
                             "--qi age,zip", key="--qi", value=qi)
        frame = read_table(data, separator=separator, table=table)
        unknown = [q for q in qis if q not in frame.columns]
        if unknown:
            raise InputError(f"--qi names an unknown column; the table has: {', '.join(map(str, frame.columns))}",
                             column=unknown[0])
        hierarchies = {}
        for item in hierarchy or []:
            name, sep, path = item.partition("=")
            if not sep:
                raise InputError("--hierarchy takes NAME=FILE", value=item)
            hierarchies[name] = read_hierarchy(path, name=name)
        cats, orders = {}, {}
        for item in categories or []:
            name, sep, path = item.partition("=")
            if not sep:
                raise InputError("--categories takes NAME=FILE", value=item)
            cats[name] = read_categories(path, key="--categories")
        for item in category_order or []:
            name, sep, order = item.partition("=")
            if not sep or not names(order):
                raise InputError("--category-order takes NAME=A,B,C", value=item)
            orders[name] = names(order)
        return check_table(frame, qis, names(sensitive), hierarchies=hierarchies, numeric=names(numeric),
                           categorical=names(categorical), person=person, categories=cats, category_orders=orders)

    try:
        report = _interruptible(job)
    except InputError as exc:
        _fail(exc, 2)
    report["seconds"] = round(time.perf_counter() - start, 6)
    if as_json:
        print(json.dumps(_jsonable(report)))
        return
    t = RichTable(title=escape(f"anonkit check — {data}"), show_header=False)
    t.add_column("what", style="bold")
    t.add_column("value")
    for key in ("records", "released", "suppressed", "classes", "k", "avg_class_size", "uniques",
                "persons_in_several_classes"):
        if key not in report:
            continue
        v = report[key]
        t.add_row(key, f"{v:.4g}" if isinstance(v, float) else f"{v:,}")
    for s, r in report["sensitive"].items():
        for key, v in r.items():
            shown = v if isinstance(v, str) else ("—" if v is None else f"{v:.4g}")
            t.add_row(escape(f"{s}: {key}"), escape(shown))
    _out.print(t)
    for note in report["notes"]:
        _err.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)


@app.command()
def analyze(
    data: Annotated[str, typer.Argument(help="A table (CSV, Parquet, SQLite): the data, or a release with "
                                        "--critical.")],
    attributes: Annotated[str, typer.Option("--attributes", help="Attributes to measure, comma-separated "
                                            "(default: every column).")] = "",
    max_size: Annotated[int, typer.Option("--max-size", help="Measure combinations of up to this many "
                                          "attributes.")] = 2,
    sets: Annotated[bool, typer.Option("--sets", help="Measure every subset of --attributes.")] = False,
    tau: Annotated[float, typer.Option("--tau", help="Leakage at or above this is vulnerable.")] = 0.5,
    critical: Annotated[str, typer.Option("--critical", help="Post-analytics: the critical attributes of a "
                                          "release, comma-separated.")] = "",
    original: Annotated[str | None, typer.Option("--original", help="Post-analytics: the data the release came "
                                                 "from (leakage before).")] = None,
    rho: Annotated[float, typer.Option("--rho", help="Post-analytics: a class whose most frequent critical value "
                                       "reaches this share is vulnerable.")] = 0.8,
    separator: Annotated[str, typer.Option("--separator", help="CSV field separator.")] = ",",
    table: Annotated[str | None, typer.Option("--table", help="SQL table name.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """How much each attribute and combination leaks (Longpre's normalized leakage, paper C), ranked,
    with the vulnerable ones and suggested quasi-identifiers; with --critical, what a release still
    lets an attacker infer, class by class."""
    from anonkit.analytics import leakage, post_analytics
    from anonkit.io import read_table

    def names(text: str) -> list[str]:
        return [x.strip() for x in text.split(",") if x.strip()]

    def job() -> dict:
        frame = read_table(data, separator=separator, table=table)
        if critical:
            before = read_table(original, separator=separator) if original is not None else None
            return {"post_analytics": post_analytics(frame, names(critical), original=before, rho=rho).summary}
        if original is not None:
            raise InputError("--original goes with --critical (post-analytics of a release)", key="original")
        return leakage(frame, names(attributes) or None, max_size=max_size, sets=sets, tau=tau)

    try:
        report = _interruptible(job)
    except InputError as exc:
        _fail(exc, 2)
    if as_json:
        print(json.dumps(_jsonable(report)))
        return
    if "post_analytics" in report:
        _print_post(report["post_analytics"])
        return
    t = RichTable(title=escape(f"anonkit analyze — {data}: {report['records']:,} records; leakage ≥ {tau:g} "
                               "is vulnerable (higher leaks more)"))
    for col in ("attribute(s)", "leakage", "distinct", "unique records", "smallest group", ""):
        t.add_column(col)
    rows = [([a], f) for a, f in report["attributes"].items()] + [(c["attributes"], c) for c in report["combinations"]]
    rows.sort(key=lambda r: -r[1]["leakage"])
    for attrs, f in rows[:30]:
        flag = "[red]vulnerable" if f["leakage"] >= tau else ""
        t.add_row(escape(" + ".join(attrs)), f"{f['leakage']:.3f}", f"{f['distinct']:,}", _pct(f["unique_share"]),
                  f"{f['min_group']:,}", flag)
    _out.print(t)
    if report["likely_identifiers"]:
        _out.print(escape("likely identifiers (near-unique: drop them): " + ", ".join(report["likely_identifiers"])))
    if report["suggested_quasi_identifiers"]:
        _out.print(escape("suggested quasi-identifiers: " + ", ".join(report["suggested_quasi_identifiers"])))


def _print_post(p: dict) -> None:
    """Post-analytics for people: leakage before and after, the largest shares, the alerts."""
    t = RichTable(title=f"post-analytics: {p['records']:,} records in {p['classes']:,} classes; a class is "
                        f"vulnerable when one critical value reaches {_pct(p['rho'])}")
    for col in ("attribute", "leakage before", "leakage after"):
        t.add_column(col)
    for name, after in p["leakage_after"].items():
        before = p["leakage_before"].get(name)
        t.add_row(escape(name), "—" if before is None else f"{before:.3f}", f"{after:.3f}")
    _out.print(t)
    for name, share in p["max_share"].items():
        _out.print(escape(f"{name}: largest share of one value in a class {_pct(share)} (lower is better)"))
    for line in p["alerts"]:
        _err.print(f"[bold yellow]alert:[/] {escape(line)}", highlight=False, soft_wrap=True)
    fakes = p.get("fakes")
    if fakes:
        before, after = fakes.get("vulnerable_classes_without", "—"), fakes.get("vulnerable_classes_with", "—")
        _out.print(escape(f"fake records injected: {fakes['injected']:,}; vulnerable classes {before} → {after}; "
                          f"manifest (private, do not publish): {fakes.get('manifest')}"))


def _policy(k: str, t_back: str, max_area: str | None, max_delay: str, on_fail: str, min_side: str | None):
    """The cloaking policy of the command line's flags (errors name the flag)."""
    from anonkit.location import Policy

    def number(text: str, flag: str, *, positive: bool = False) -> float:
        try:
            value = float(text)
        except ValueError:
            raise InputError(f"{flag} must be a number", key=flag.lstrip("-"), value=text) from None
        if value != value or value in (float("inf"), float("-inf")) or value < 0 or (positive and value == 0):
            raise InputError(f"{flag} must be a {'positive' if positive else 'non-negative'} number",
                             key=flag.lstrip("-"), value=text)
        return value

    k_value = _whole_number(k, "--k")
    if k_value < 1:
        raise InputError("--k must be at least 1", key="k", value=k)
    if on_fail not in ("hold", "drop"):
        raise InputError("--on-fail must be hold or drop", key="on-fail", value=on_fail)
    return Policy(
        k=k_value, t_back=number(t_back, "--t-back"), max_delay=number(max_delay, "--max-delay"),
        max_area=None if max_area is None else number(max_area, "--max-area", positive=True),
        on_fail=on_fail,  # type: ignore[arg-type]
        min_side=None if min_side is None else number(min_side, "--min-side", positive=True),
    )


_AREA_HELP = "The service's whole area X0,Y0,X1,Y1 (positions outside it are errors)."
_K_HELP = "k_min: subjects a cloaked box (or interval) must hold, the requester included."
_T_BACK_HELP = "Temporal cloaking may count visits this long before the request."
_MAX_AREA_HELP = "The largest box a user accepts (default: the whole area)."
_MAX_DELAY_HELP = "The longest delay a user accepts for temporal cloaking (0: no temporal cloaking)."
_MIN_SIDE_HELP = "The smallest cell side (resolution floor)."
_ON_FAIL_HELP = "What happens to a request no cloaking can serve within the limits: hold or drop (never forwarded)."


@app.command()
def cloak(
    stream: Annotated[str, typer.Argument(help="Messages t,subject,x,y,kind,payload in time order: CSV (header) or "
                                          "JSON Lines, a file or - for stdin.")],
    area: Annotated[str, typer.Option("--area", help=_AREA_HELP)],
    k: Annotated[str, typer.Option("--k", help=_K_HELP)] = "5",
    t_back: Annotated[str, typer.Option("--t-back", help=_T_BACK_HELP)] = "0",
    max_area: Annotated[str | None, typer.Option("--max-area", help=_MAX_AREA_HELP)] = None,
    max_delay: Annotated[str, typer.Option("--max-delay", help=_MAX_DELAY_HELP)] = "0",
    on_fail: Annotated[str, typer.Option("--on-fail", help=_ON_FAIL_HELP)] = "drop",
    min_side: Annotated[str | None, typer.Option("--min-side", help=_MIN_SIDE_HELP)] = None,
    output: Annotated[str | None, typer.Option("--output", help="Write the forwarded requests here (default: "
                                               "stdout).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON object (on stderr when the "
                                          "requests go to stdout).")] = False,
) -> None:
    """Cloak a stream of location requests as a trusted broker would (paper B §4.3; spec §4.11):
    each request's position becomes a quadtree cell holding at least k subjects (spatial cloaking)
    or, failing that within --max-area, the request waits until k subjects visited its cell
    (temporal cloaking, up to --max-delay); otherwise it is held or dropped, never forwarded
    uncloaked. Writes one row per forwarded request: t, x0, y0, x1, y1, t0, t1, payload."""
    from anonkit.location import Area
    from anonkit.location.stream import run_stream

    try:
        policy = _policy(k, t_back, max_area, max_delay, on_fail, min_side)
        box = Area.parse(area)
        summary = _interruptible(lambda: run_stream(stream, area=box, policy=policy, output=output))
    except InputError as exc:
        _fail(exc, 2)
    if as_json:
        text = json.dumps(_jsonable(summary))
        if output is None:
            _err.print(text, highlight=False, markup=False, soft_wrap=True)
        else:
            print(text)
        return
    area_s, delay_s = summary["area"], summary["delay"]
    k_text = "—" if summary.get("k_achieved") is None else f"{summary['k_achieved']:,}"
    lines = [
        f"requests {summary['requests']:,}: served {summary['served']:,} (spatial {summary.get('spatial', 0):,}, "
        f"temporal {summary.get('temporal', 0):,}), held {summary['held']:,}, dropped {summary['dropped']:,}",
        f"cloaked area: median {_num(area_s['median'])}, 95th percentile {_num(area_s['p95'])}",
        f"delay: median {_num(delay_s['median'])}, 95th percentile {_num(delay_s['p95'])}; k achieved {k_text}",
    ]
    console = _err if output is None else _out
    for line in lines:
        console.print(escape(line), highlight=False, soft_wrap=True)


@app.command()
def broker(
    forward: Annotated[str, typer.Option("--forward", help="The location-based service's URL (cloaked requests are "
                                         "POSTed as JSON) or a file (one JSON line per cloaked request).")],
    area: Annotated[str, typer.Option("--area", help=_AREA_HELP)],
    listen: Annotated[str | None, typer.Option("--listen", help="HOST:PORT to serve on (default 127.0.0.1:8700: "
                                               "loopback only).")] = None,
    k: Annotated[str, typer.Option("--k", help=_K_HELP + " A request may ask for more, never less.")] = "5",
    t_back: Annotated[str, typer.Option("--t-back", help=_T_BACK_HELP)] = "0",
    max_area: Annotated[str | None, typer.Option("--max-area", help=_MAX_AREA_HELP)] = None,
    max_delay: Annotated[str, typer.Option("--max-delay", help=_MAX_DELAY_HELP)] = "0",
    on_fail: Annotated[str, typer.Option("--on-fail", help=_ON_FAIL_HELP)] = "drop",
    min_side: Annotated[str | None, typer.Option("--min-side", help=_MIN_SIDE_HELP)] = None,
    state: Annotated[str | None, typer.Option("--state", help="Folder for the operator token (anonkit-broker.token, "
                                              "mode 0600, written when missing) and the request journal (default: "
                                              "the --forward file's folder; required with a URL).")] = None,
    simulation_clock: Annotated[bool, typer.Option("--simulation-clock", help="Take the time from the bodies' t "
                                                   "(required, never backwards) instead of the wall clock.")] = False,
    max_skew: Annotated[str | None, typer.Option("--max-skew", help="Seconds a body's t may differ from the broker's "
                                                 "clock (with --simulation-clock: may step ahead of the latest t; "
                                                 "default 30).")] = None,
    idle_timeout: Annotated[str | None, typer.Option("--idle-timeout", help="Seconds a connection may stay without "
                                                     "sending a whole request (default 5).")] = None,
) -> None:
    """Run the trusted location broker over HTTP (JSON): subjects post position updates and requests with
    their bearer token, cloaked requests go to the service (never a subject or an exact position); the
    operator registers subjects and reads /health and /metrics with the operator token. Ctrl-C exits 130,
    SIGTERM 0, both after a graceful stop. Needs the broker extra (pip install "anonkit\\[broker]")."""
    from anonkit.location import Area

    def seconds(text: str | None, flag: str) -> float | None:
        if text is None:
            return None
        try:
            value = float(text)
        except ValueError:
            raise InputError(f"{flag} must be a number of seconds", key=flag.lstrip("-"), value=text) from None
        if not (value >= 0 and value != float("inf")):
            raise InputError(f"{flag} must be a non-negative number of seconds", key=flag.lstrip("-"), value=text)
        return value

    try:
        policy = _policy(k, t_back, max_area, max_delay, on_fail, min_side)
        box = Area.parse(area)
        skew, idle = seconds(max_skew, "--max-skew"), seconds(idle_timeout, "--idle-timeout")
        try:
            from anonkit.location.broker import serve
        except ImportError as exc:
            raise InputError(f"the broker needs its extra: pip install 'anonkit[broker]' ({exc.name} is missing)"
                             ) from None
        serve(listen, forward, box, policy, state=state, simulation=simulation_clock, max_skew=skew,
              idle_timeout=idle)
    except InputError as exc:
        _fail(exc, 2)
    except KeyboardInterrupt:
        _err.print("interrupted: the broker stopped", highlight=False, markup=False)
        raise typer.Exit(130) from None
    _err.print("the broker stopped (SIGTERM)", highlight=False, markup=False)


@app.command("algorithms")
def list_algorithms(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object per algorithm, in a list.")] = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print the README's algorithm table.")] = False,
) -> None:
    """List the algorithms: family, what they do, their options with types and defaults, the models
    they enforce, what they need and what they publish."""
    from anonkit.algorithms.describe import describe_all, markdown_table

    if as_json:
        print(json.dumps(_jsonable(describe_all())))
        return
    if markdown:
        print(markdown_table())
        return
    t = RichTable(title="anonkit algorithms (config: algorithm: {name: NAME, OPTION: VALUE, …})")
    for col in ("name", "family", "what it does", "options (default)", "enforces", "needs / publishes"):
        t.add_column(col)
    for a in describe_all():
        options = "\n".join(f"{o['name']}: {o['type']}" + ("" if o["required"] else f" = {o['default']}")
                            for o in a["options"])
        t.add_row(escape(a["name"]), a["family"], escape(a["summary"]), escape(options), escape(a["enforces_text"]),
                  escape(", ".join([*a["needs"], a["publishes"]])))
    _out.print(t)


@app.command("audit")
def audit_command(
    release: Annotated[str, typer.Argument(help="The release to audit, as the config's output names it (linked "
                                           "tables are read beside it: NAME-qit.csv, …), whoever made it.")],
    config: Annotated[Path, typer.Option("--config", help="The YAML config: roles, hierarchies, models, audit "
                                         "thresholds.")],
    original: Annotated[str | None, typer.Option("--original", help="The original table (default: the config's "
                                                 "input).")] = None,
    population: Annotated[str | None, typer.Option("--population", help="Size of the population the input was "
                                                   "sampled from (default: audit.population).")] = None,
    population_table: Annotated[str | None, typer.Option("--population-table", help="A table of that population: "
                                                         "journalist and marketer risk are counted against it.")]
    = None,
    control: Annotated[str | None, typer.Option("--control", help="Records of the population NOT in the release: "
                                                "the control set of singling-out, linkability and inference.")]
    = None,
    other: Annotated[str | None, typer.Option("--other", help="A second release of the same input (the unsorted "
                                              "matching attack).")] = None,
    attacks: Annotated[str | None, typer.Option("--attacks", help="Attacks to run, comma-separated (default: all "
                                                "that apply).")] = None,
    seed: Annotated[str | None, typer.Option("--seed", help="Seed of the attacks' sampling (default: "
                                             "audit.seed).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the audit as one JSON object.")] = False,
    report: Annotated[str | None, typer.Option("--report", help="Also write the HTML report here.")] = None,
    show_values: Annotated[bool, typer.Option("--show-values", help="Let the report show the input's raw "
                                              "values.")] = False,
) -> None:
    """Audit a release, whoever made it: the models recomputed from it, prosecutor/journalist/marketer
    risk, population uniqueness, and attack simulations with 95 % intervals, each against its
    threshold. Exits 1 when a verdict fails."""
    from anonkit.audit.inputs import load_audit_inputs
    from anonkit.audit.run import audit
    from anonkit.config import AuditConfig, load_config
    from anonkit.release import check_seed

    try:
        cfg = load_config(config)
        spec = cfg.audit or AuditConfig()
        size = spec.population if population is None else _whole_number(population, "--population")
        if size is not None and size < 1:
            raise InputError("must be at least 1", key="--population", value=size)
        run_seed = spec.seed if seed is None else check_seed(_whole_number(seed, "--seed"))
        names = spec.attacks if attacks is None else [a.strip() for a in attacks.split(",") if a.strip()]
        if report is not None:
            _check_report(report, [release, str(config), *(p for p in (original, other, population_table, control)
                                                           if p)])
        inputs = load_audit_inputs(cfg, release, config_dir=config.parent, original=original,
                                   population_table=population_table, control=control, other=other)
        result = _with_steps(lambda step: audit(inputs, models=cfg.models(), thresholds=spec.thresholds,
                                                population=size, attacks=names, seed=run_seed,
                                                targets=spec.targets, step=step))
        if report is not None:
            from anonkit.report import build_report, write_report

            html = build_report(_audit_summary(inputs, result, config, cfg, original), original=inputs.original,
                                release=inputs.release, config_text=mask_secrets(config.read_text(encoding="utf-8")),
                                audit=result, show_values=show_values)
            write_report(html, report, refuse=[str(config), *_locations(inputs.release_location)])
            result["report"] = report
    except InputError as exc:
        _fail(exc, 2)
    if as_json:
        print(json.dumps(_jsonable(result)))
    else:
        _print_audit(result)
    if not result["ok"]:
        raise typer.Exit(1)


def _locations(shown: str | list[str] | None) -> list[str]:
    return [] if shown is None else [shown] if isinstance(shown, str) else list(shown)


def _audit_summary(inputs, result: dict, config: Path, cfg=None, original: str | None = None) -> dict:  # type: ignore[no-untyped-def]
    """What the report's "what was done" section shows for an audit: the files and their SHA-256
    (the input the release was compared against: ``--original`` or the config's), the row counts
    and the models as the audit recomputed them."""
    import datetime
    import platform

    import numpy as np
    import pandas as pd

    from anonkit import __version__
    from anonkit.io.postgresql import _without_password
    from anonkit.pipeline import input_location, sha256_of

    where, table = (None, None) if cfg is None else input_location(cfg, config.parent, original)[::2]
    shown = None if where is None else (_without_password(where) if table is None
                                        else f"{_without_password(where)}#{table}")
    tables = inputs.tables
    outputs = [{"path": loc, "sha256": sha256_of(loc), "rows": len(frame)}
               for loc, frame in zip(_locations(inputs.release_location), tables.values(), strict=False)]
    first = next(iter(tables.values()))
    return {
        "algorithm": "audit of an existing release",
        "records": len(inputs.original),
        "released": int(result["risk"]["records"]),
        "suppressed": max(0, len(inputs.original) - len(first)),
        "verification": [{"model": m["model"], "holds": m["holds"], "achieved": m["achieved"]}
                         for m in result["models"]],
        "verified": all(m["holds"] for m in result["models"]),
        "satisfied": all(m["holds"] for m in result["models"]),
        "run": {"config": str(config.resolve()), "config_sha256": sha256_of(str(config)), "input": shown,
                "input_sha256": None if shown is None or table is not None else sha256_of(where),
                "outputs": outputs,
                "versions": {"anonkit": __version__, "python": platform.python_version(), "numpy": np.__version__,
                             "pandas": pd.__version__},
                "started": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")},
    }


def _ci(pair: list[float] | None) -> str:
    return "" if pair is None else f"[{_pct(pair[0])}, {_pct(pair[1])}]"


def _print_verdict(s: dict) -> None:
    """The run's one verdict: the models and the audit's quick checks against the audit's thresholds
    (what ``anonkit audit`` decides on the same release), and when a check fails the computed advice."""
    v = s.get("verdict")
    if not v:
        return
    t = v["thresholds"]
    basis = f"highest risk {_pct(t['highest_risk'])} ({v.get('highest_risk_from') or 'audit.thresholds'}), " \
            f"average risk {_pct(t['average_risk'])}, attacks {_pct(t['attack_risk'])}"
    if v["ok"]:
        _out.print(f"[bold green]Verdict: every check holds[/] ({v['checks']} checks: the models, risk and attacks; "
                   f"{escape(basis)})", highlight=False, soft_wrap=True)
        return
    failing = "; ".join(f"{f['check']} {_pct(f['value'])} > {_pct(f['threshold'])}" if f.get("threshold") is not None
                        else f"{f['check']} fails" for f in v["failing"])
    _out.print(f"[bold red]Verdict: do not publish as is[/] — {len(v['failing'])} of {v['checks']} checks fail: "
               f"{escape(failing)} ({escape(basis)})", highlight=False, soft_wrap=True)
    a = v.get("advice")
    if a and a.get("holds"):
        value = a["value"]
        shown = value if not isinstance(value, dict) else "{" + ", ".join(f"{k}: {x}" for k, x in value.items()) + "}"
        _out.print(f"  to pass: {escape(a['change'])} — set {escape(a['key'])}: {escape(str(shown))}; rerun gives "
                   f"{escape(a['gives'])}", highlight=False, soft_wrap=True)
    elif a:
        _out.print(f"  {escape(a['gives'])} (set {escape(a['key'])} to accept it); tried: "
                   f"{escape('; '.join(a['tried']) or 'nothing')}", highlight=False, soft_wrap=True)


def _print_audit(a: dict, verdict: bool = True) -> None:
    """The audit's verdicts, risk models and attacks as tables; its verdict line unless ``verdict``
    is false (``anonkit anonymize`` prints the run's one verdict instead)."""
    risk = a["risk"]
    t = RichTable(title="Audit: verdicts")
    for col in ("check", "value", "threshold", "holds"):
        t.add_column(col)
    for v in a["verdicts"]:
        value = v["value"]
        shown = "—" if value is None else (_num(value) if v["kind"] == "model" else _pct(value))
        if v["kind"] == "attack" and v.get("upper") is not None:
            shown += f" (≤ {_pct(v['upper'])})"
        threshold = "" if v["threshold"] is None else _pct(v["threshold"])
        holds = "[green]yes[/]" if v["holds"] else "[bold red]no[/]"
        if v.get("uncertain"):
            holds += " (uncertain)"
        t.add_row(escape(v["check"]), shown, threshold, holds)
    _out.print(t)
    r = RichTable(title="Re-identification risk (records)")
    for col in ("attacker", "highest", "average", "records at risk"):
        r.add_column(col)
    for who in ("prosecutor", "journalist"):
        p = risk[who]
        r.add_row(who, _pct(p["highest"]), _pct(p["average"]), _pct(p["records_at_risk"]))
    r.add_row("marketer", "", _pct(risk["marketer"]["average"]), "")
    _out.print(r)
    pu = risk["population_uniqueness"]
    line = f"sample uniqueness {_pct(risk['sample_uniqueness'])}"
    if pu.get("model"):
        est = ", ".join(f"{m} {_pct(pu[m])}" for m in ("pitman", "zayatz", "snb") if pu.get(m) is not None)
        line += f"; population uniqueness {_pct(pu[pu['model']])} ({pu['model']}; {est})"
    _out.print(line, highlight=False)
    if a["attacks"]:
        k = RichTable(title="Attacks (95 % intervals)")
        for col in ("attack", "success", "baseline", "control", "risk"):
            k.add_column(col)
        for x in a["attacks"]:
            k.add_row(escape(x["name"]), f"{_pct(x['success'])} {_ci(x['ci'])}",
                      "" if x["baseline"] is None else _pct(x["baseline"]),
                      "" if x["control"] is None else f"{_pct(x['control'])} {_ci(x['control_ci'])}",
                      f"{_pct(x['risk'])} {_ci(x['risk_ci'])}")
        _out.print(k)
    for note in a.get("notes", []):
        _err.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)
    if verdict:
        shown = "[green]every check holds[/]" if a["ok"] else "[bold red]some checks fail[/]"
        _out.print(f"Audit: {shown} ({a['seconds']['total']:.2f} s)")


@app.command("report")
def report_command(
    run: Annotated[Path, typer.Argument(help="A run's JSON summary (anonkit anonymize --json > run.json) or an "
                                        "exploration's explore.json.")],
    out: Annotated[str, typer.Option("--out", help="The HTML report to write.")],
    show_values: Annotated[bool, typer.Option("--show-values", help="Show the input's raw values (hidden by "
                                              "default).")] = False,
) -> None:
    """Write one self-contained HTML report of a run or an exploration: what was done, whether each
    model and audit check holds, privacy (risk, attacks) and utility (loss, generalization,
    distributions before and after). The files the run named are re-read and must be unchanged."""
    from anonkit.report import report_from_run

    try:
        _check_report(out, [str(run)])
        _interruptible(lambda: report_from_run(run, out, show_values=show_values))
    except InputError as exc:
        _fail(exc, 2)
    _out.print(f"written: {out}", highlight=False, markup=False, soft_wrap=True)


@app.command("explore")
def explore_command(
    config: Annotated[Path, typer.Argument(help="YAML config file (its models, algorithm and audit thresholds).")],
    vary: Annotated[list[str], typer.Option("--vary", help="KEY=V1,V2,… a model parameter (k, l, c, t, beta, delta, "
                                            "J, lambda) or algorithm option to vary; repeat for a grid.")],
    algorithms: Annotated[str | None, typer.Option("--algorithms", help="Algorithms to run, e.g. flash,mondrian "
                                                   "(default: the config's).")] = None,
    risk: Annotated[str, typer.Option("--risk", help="The risk on the map's x axis (see --help of anonkit.explore."
                                      "RISKS): prosecutor_highest, prosecutor_average, records_at_risk, "
                                      "sample_uniqueness, record_linkage, journalist_*, marketer_average, "
                                      "population_uniqueness.")] = "prosecutor_highest",
    loss: Annotated[str, typer.Option("--loss", help="The information loss on the y axis (loss, gcp, dm, entropy, "
                                      "precision, …).")] = "loss",
    out: Annotated[str, typer.Option("--out", help="Folder for explore.csv, ru-map.png/.svg and explore.json.")]
    = "explore",
    input: Annotated[str | None, typer.Option("--input", help="Read this table instead of the config's input.")]
    = None,
    seed: Annotated[str | None, typer.Option("--seed", help="Seed of every run (default: the config's).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print explore.json's content.")] = False,
) -> None:
    """Run the config over a grid of parameters and algorithms (encoding the input once) and map
    information loss against risk: the runs that meet the audit thresholds and the Pareto front."""
    from anonkit.config import load_config
    from anonkit.explore import explore, explore_outputs, parse_algorithms, parse_vary, write_explore
    from anonkit.release import check_seed

    try:
        run_seed = None if seed is None else check_seed(_whole_number(seed, "--seed"))
        cfg = load_config(config)
        names = parse_algorithms(algorithms)
        grid = parse_vary(vary, cfg, names)
        explore_outputs(out, cfg, config_dir=config.parent, config_file=config, input_path=input)
        result = _with_steps(lambda step: explore(cfg, vary=grid, algorithms=names, config_dir=config.parent,
                                                  risk=risk, loss=loss, seed=run_seed, progress=step,
                                                  config_file=config, input_path=input))
        written = write_explore(result, out)
    except InputError as exc:
        _fail(exc, 2)
    if as_json:
        print(json.dumps(_jsonable(result.to_json(timings=False))))
        return
    frame = result.frame
    keys = list(grid)
    t = RichTable(title=f"{len(frame)} runs: {loss} against {risk}"
                  + ("" if result.limit is None else f" (threshold {result.limit:g})"))
    for col in ("algorithm", *keys, "satisfied", "risk", "loss", "meets", "pareto"):
        t.add_column(col)
    for row in frame.itertuples(index=False):
        r = row._asdict()
        t.add_row(*(escape(str(r[c])) for c in ("algorithm", *keys)), "yes" if r["satisfied"] else "no",
                  _num(r["risk"]), _num(r["loss"]), "yes" if r["meets"] else "no", "●" if r["pareto"] else "")
    _out.print(t)
    for note in result.notes:
        _err.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)
    _out.print("written: " + ", ".join(written), highlight=False, markup=False, soft_wrap=True)


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
        report = _interruptible(lambda: cli_run(data, sensitive, out, separator))
    except InputError as exc:
        _fail(exc, 2)
    _out.print(report, highlight=False)


@experiment_app.command("iab")
def experiment_iab(
    out: Annotated[str, typer.Option("--out", help="Folder for the CSV files and PNG plots.")] = "iab-experiment",
    quick: Annotated[bool, typer.Option("--quick", help="Small tables and shields, a small search budget "
                                        "(tests, CI).")] = False,
    seed: Annotated[str, typer.Option("--seed", help="Seed of the random smart-health table.")] = "0",
) -> None:
    """Paper C's workflow: leakage ranking, IAB against Flash (smart-health data, Adult), post-analytics
    with and without fake records, the paper's figures beside ours."""
    from anonkit.experiments.iab import cli_run
    from anonkit.release import check_seed

    try:
        seed_value = check_seed(_whole_number(seed, "--seed"))
        report = _with_steps(lambda step: cli_run(out, quick=quick, seed=seed_value, progress=step))
    except InputError as exc:
        _fail(exc, 2)
    _out.print(report, highlight=False, markup=False)


@experiment_app.command("angelization")
def experiment_angelization(
    out: Annotated[str, typer.Option("--out", help="Folder for the CSV files and PNG plots.")] = (
        "angelization-experiment"
    ),
    quick: Annotated[bool, typer.Option("--quick", help="3,000 persons and one run per setting (tests, CI).")] = False,
    persons: Annotated[str | None, typer.Option("--persons", help="Persons of the 1:M table (default: all 30,162 "
                                                "of Adult's).")] = None,
    seed: Annotated[str, typer.Option("--seed", help="Seed of the 1:M table and of the queries.")] = "0",
) -> None:
    """Paper D: (θ*,k)-utility angelization against θ-sensitive k-anonymity (record level) and
    (k,l)-diversity for 1:M data over k and λ — NCP, query accuracy, record intersection,
    linkability, time — and the paper's claims beside ours."""
    from anonkit.experiments.angelization import cli_run
    from anonkit.release import check_seed

    try:
        seed_value = check_seed(_whole_number(seed, "--seed"))
        n = None if persons is None else _whole_number(persons, "--persons")
        if n is not None and n < 1:
            raise InputError("--persons must be at least 1", key="--persons", value=persons)
        report = _with_steps(lambda step: cli_run(out, quick=quick, persons=n, seed=seed_value, progress=step))
    except InputError as exc:
        _fail(exc, 2)
    _out.print(report, highlight=False, markup=False, soft_wrap=True)


@experiment_app.command("cloaking")
def experiment_cloaking(
    out: Annotated[str, typer.Option("--out", help="Folder for the CSV files and PNG plots.")] = "cloaking-experiment",
    quick: Annotated[bool, typer.Option("--quick", help="A small city (tests, CI).")] = False,
    seed: Annotated[str, typer.Option("--seed", help="Seed of the simulated city and the attacks.")] = "0",
) -> None:
    """Paper B §4.3: spatial and temporal cloaking on a simulated city for k_min ∈ {2, 5, 10, 20} —
    cloaked area, delay, served share, and the restricted-space and observation identification
    attacks with and without cloaking."""
    from anonkit.experiments.cloaking import cli_run
    from anonkit.release import check_seed

    try:
        seed_value = check_seed(_whole_number(seed, "--seed"))
        report = _with_steps(lambda step: cli_run(out, quick=quick, seed=seed_value, progress=step))
    except InputError as exc:
        _fail(exc, 2)
    _out.print(report, highlight=False, markup=False, soft_wrap=True)


@experiment_app.command("uhra")
def experiment_uhra(
    out: Annotated[str, typer.Option("--out", help="Folder for the CSV files, PNG plots and report.")] = (
        "uhra-experiment"
    ),
    datasets: Annotated[str, typer.Option("--datasets", help="Comma-separated: adult, bkseq.")] = "adult,bkseq",
    quick: Annotated[bool, typer.Option("--quick", help="A small grid on an Adult sample and a small BKseq "
                                        "release (tests, CI).")] = False,
    seed: Annotated[str, typer.Option("--seed", help="Seed of the Adult sample (--quick) and of BKseq.")] = "0",
    bkseq_priors: Annotated[str, typer.Option("--bkseq-priors", help="The adversary's priors on BKseq: kernel "
                                              "or incremental.")] = "kernel",
) -> None:
    """Paper A's study: UHRA versus BKA-JS and k-primacy on Adult and BKseq (R-U maps, Tables 3-5, attacks)."""
    from anonkit.experiments.uhra import cli_run
    from anonkit.release import check_seed

    try:
        seed_value = check_seed(_whole_number(seed, "--seed"))
        report = _with_steps(lambda step: cli_run(out, datasets, quick=quick, seed=seed_value,
                                                  bkseq_priors=bkseq_priors, progress=step))
    except InputError as exc:
        _fail(exc, 2)
    _out.print(report, highlight=False, markup=False)


def _with_steps(job: Callable[[Callable[[int, int, str], None]], T]) -> T:
    """Run ``job(step)`` interruptibly with a progress bar that ``step(done, total, what)`` moves."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=_err, transient=True,
    ) as bar:
        task = bar.add_task("starting", total=None)

        def step(done: int, total: int, what: str) -> None:
            bar.update(task, description=what, completed=done, total=total)

        return _interruptible(lambda: job(step))


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:  # before a job started (imports, config): nothing was written
        print("interrupted: nothing was written", file=sys.stderr)
        _leave(130)
    except SystemExit as done:
        if done.code is None or isinstance(done.code, int):
            _leave(done.code or 0)
        raise
    _leave(0)


def _leave(code: int) -> NoReturn:
    """End the process with ``code`` once every output is complete, without tearing the interpreter
    down: a short run spends 0.15–0.2 s freeing modules and objects it will never use again. The
    exit handlers still run (``atexit``) and the standard streams are flushed; the files a command
    writes were closed and moved into place before it returned. With PySpark loaded the interpreter
    exits normally (its JVM gateway shuts down on the way)."""
    if "pyspark" in sys.modules:
        sys.exit(code)
    import atexit
    import contextlib
    import os

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: what the normal exit would meet too
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
