"""``anonkit report``: the HTML report of a past run or exploration, from its JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from anonkit.cli import console
from anonkit.cli.options import check_report
from anonkit.cli.running import interruptible
from anonkit.errors import InputError


def report_command(
    run: Annotated[Path, typer.Argument(help="A run's JSON summary (anonkit anonymize --json > run.json) or an "
                                        "exploration's explore.json.")],
    out: Annotated[str, typer.Option("--out", help="The HTML report to write.")],
    show_values: Annotated[bool, typer.Option("--show-values", help="Show the input's raw values (hidden by "
                                              "default).")] = False,
    evaluate: Annotated[str | None, typer.Option("--evaluate", help="COL: add the release's utility for predicting "
                                                 "this column of the input (classifiers trained on the original and "
                                                 "on the release, as anonkit evaluate).")] = None,
) -> None:
    """Write one self-contained HTML report of a run or an exploration.

    What was done, whether each model and audit check holds, privacy (risk, attacks) and utility (loss, generalization,
    distributions before and after); with --evaluate, its utility for classification. The files the run named are
    re-read and must be unchanged."""
    from anonkit.report import report_from_run

    try:
        check_report(out, [str(run)])
        interruptible(lambda: report_from_run(run, out, show_values=show_values, evaluate=evaluate))
    except InputError as exc:
        console.fail(exc, 2)
    console.out.print(f"written: {out}", highlight=False, markup=False, soft_wrap=True)
