"""``anonkit experiment …``: reproduce the experiments of the source papers (one command per paper)."""

from __future__ import annotations

from typing import Annotated

import typer

from anonkit.cli import console
from anonkit.cli.helptext import MARKUP_MODE, HelpGroup
from anonkit.cli.options import whole_number
from anonkit.cli.running import interruptible, with_steps
from anonkit.errors import InputError

experiment_app = typer.Typer(cls=HelpGroup, rich_markup_mode=MARKUP_MODE, no_args_is_help=True,
                             help="Reproduce the experiments of the source papers.")


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
        report = interruptible(lambda: cli_run(data, sensitive, out, separator))
    except InputError as exc:
        console.fail(exc, 2)
    console.out.print(report, highlight=False, markup=False, soft_wrap=True)


@experiment_app.command("iab")
def experiment_iab(
    out: Annotated[str, typer.Option("--out", help="Folder for the CSV files and PNG plots.")] = "iab-experiment",
    quick: Annotated[bool, typer.Option("--quick", help="Small tables and shields, a small search budget "
                                        "(tests, CI).")] = False,
    seed: Annotated[str, typer.Option("--seed", help="Seed of the random smart-health table.")] = "0",
) -> None:
    """Paper C's workflow: leakage ranking, IAB against Flash, post-analytics.

    On smart-health data and Adult; post-analytics with and without fake records; the paper's
    figures beside ours."""
    from anonkit.experiments.iab import cli_run
    from anonkit.release import check_seed

    try:
        seed_value = check_seed(whole_number(seed, "--seed"))
        report = with_steps(lambda step: cli_run(out, quick=quick, seed=seed_value, progress=step))
    except InputError as exc:
        console.fail(exc, 2)
    console.out.print(report, highlight=False, markup=False, soft_wrap=True)


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
    """Paper D: (θ*,k)-utility angelization of 1:M data against its baselines.

    Against θ-sensitive k-anonymity (record level) and (k,l)-diversity for 1:M data over k and λ —
    NCP, query accuracy, record intersection, linkability, time — and the paper's claims beside ours."""
    from anonkit.experiments.angelization import cli_run
    from anonkit.release import check_seed

    try:
        seed_value = check_seed(whole_number(seed, "--seed"))
        n = None if persons is None else whole_number(persons, "--persons")
        if n is not None and n < 1:
            raise InputError("--persons must be at least 1", key="--persons", value=persons)
        report = with_steps(lambda step: cli_run(out, quick=quick, persons=n, seed=seed_value, progress=step))
    except InputError as exc:
        console.fail(exc, 2)
    console.out.print(report, highlight=False, markup=False, soft_wrap=True)


@experiment_app.command("cloaking")
def experiment_cloaking(
    out: Annotated[str, typer.Option("--out", help="Folder for the CSV files and PNG plots.")] = "cloaking-experiment",
    quick: Annotated[bool, typer.Option("--quick", help="A small city (tests, CI).")] = False,
    seed: Annotated[str, typer.Option("--seed", help="Seed of the simulated city and the attacks.")] = "0",
) -> None:
    """Paper B §4.3: spatial and temporal cloaking on a simulated city.

    For k_min ∈ {2, 5, 10, 20}: cloaked area, delay, served share, and the restricted-space and
    observation identification attacks with and without cloaking."""
    from anonkit.experiments.cloaking import cli_run
    from anonkit.release import check_seed

    try:
        seed_value = check_seed(whole_number(seed, "--seed"))
        report = with_steps(lambda step: cli_run(out, quick=quick, seed=seed_value, progress=step))
    except InputError as exc:
        console.fail(exc, 2)
    console.out.print(report, highlight=False, markup=False, soft_wrap=True)


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
        seed_value = check_seed(whole_number(seed, "--seed"))
        report = with_steps(lambda step: cli_run(out, datasets, quick=quick, seed=seed_value,
                                                 bkseq_priors=bkseq_priors, progress=step))
    except InputError as exc:
        console.fail(exc, 2)
    console.out.print(report, highlight=False, markup=False, soft_wrap=True)
