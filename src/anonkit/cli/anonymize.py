"""``anonkit anonymize``: run a YAML config, print its summary, audit and verdict (or one JSON object)."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from anonkit._secrets import mask_secrets
from anonkit.cli import console
from anonkit.cli.options import check_report, whole_number
from anonkit.cli.printers.audit import print_audit
from anonkit.cli.printers.fixes import NoFixes, print_fixes
from anonkit.cli.printers.summary import print_summary, print_warnings
from anonkit.cli.printers.verdict import print_verdict
from anonkit.cli.running import interruptible, run_with_progress
from anonkit.errors import InputError


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
    no_fixes: NoFixes = False,
) -> None:
    """Anonymize a table as the CONFIG says, verify the release and report its privacy and utility."""
    with ExitStack() as job:
        _anonymize(job, config, input, output, seed, as_json, report, show_values, no_fixes)


def _anonymize(job: ExitStack, config: Path, input: str | None, output: str | None, seed: str | None,
               as_json: bool, report: str | None, show_values: bool, no_fixes: bool) -> None:
    """:func:`anonymize`'s work. Once the plan is made, the job's audits — the run's, its advice's reruns'
    and its fixes' trials' — read the input's columns in one :func:`~anonkit.analytics.cover.lasting_reading`
    block (entered on ``job``, the caller's): the run and the trials each run on a worker thread of their
    own, whose context is a copy of this one, so a block entered here is the one both see (each entering
    its own was two stores: the trials read every input column again). The store only spares readings:
    what it hands out is what reading the same memory again gives (see there), so the output is the same."""
    from anonkit.config import load_config
    from anonkit.errors import UnsatisfiableError
    from anonkit.plan import plan_from_config
    from anonkit.plan.places import input_location
    from anonkit.release import check_seed
    from anonkit.runner import run

    try:
        run_seed = None if seed is None else check_seed(whole_number(seed, "--seed"))
        cfg = load_config(config)
        # the boundary: the config and the flags validated once into a plan, every place checked before any work
        plan = plan_from_config(cfg, config_dir=config.parent, input_path=input, output_path=output, seed=run_seed,
                                config_file=config, report=report)
        if report is not None:  # the report never replaces a file the run reads or writes
            check_report(report, [str(config), input_location(cfg, config.parent, input)[0],
                                  *(loc for loc, _ in plan.outputs)])
        from anonkit.analytics.cover import lasting_reading

        job.enter_context(lasting_reading())
        result = interruptible(lambda: run(plan)) if as_json else run_with_progress(plan)
        if report is not None:
            write_run_report(result, cfg, config, report, show_values)
    except InputError as exc:
        console.fail(exc, 2)
    except UnsatisfiableError as exc:
        if as_json:
            console.print_json(exc.summary)
        else:
            print_warnings(exc.summary.get("warnings", []))
            console.err.print(f"[bold red]not anonymous:[/] {escape(str(exc))}; nothing was written", highlight=False,
                              soft_wrap=True)
            print_fixes(plan, exc.summary, skip=no_fixes)  # the audit's refusal (audit.required): what passes
        raise typer.Exit(1) from None
    if as_json:
        console.print_json(result.summary)
    else:
        print_summary(result.summary)
        if "audit" in result.summary and (cfg.audit is not None or report is not None):
            print_audit(result.summary["audit"], verdict=False)
        print_verdict(result.summary, advice=no_fixes)  # the fixes found by trying replace the verdict's advice
        print_fixes(plan, result, skip=no_fixes)


def write_run_report(result, cfg, config: Path, report: str, show_values: bool) -> None:  # type: ignore[no-untyped-def]
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
