"""``anonkit audit``: audit a release whoever made it, against the config's thresholds."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from anonkit._secrets import mask_secrets
from anonkit.cli import console
from anonkit.cli.options import check_report, whole_number
from anonkit.cli.printers.audit import print_audit
from anonkit.cli.running import with_steps
from anonkit.errors import InputError


def audit_command(
    release: Annotated[str, typer.Argument(help="The release to audit, as the config's output names it (its linked "
                                           "tables are read beside it, e.g. NAME-qit.csv), whoever made it.")],
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
    """Audit a release, whoever made it, against the config's thresholds.

    The models recomputed from it, prosecutor/journalist/marketer risk, population uniqueness, and
    attack simulations with 95 % intervals, each against its threshold. Exits 1 when a verdict fails."""
    from anonkit.audit.inputs import load_audit_inputs
    from anonkit.audit.run import audit
    from anonkit.config import AuditConfig, load_config
    from anonkit.plan import plan_from_config
    from anonkit.release import check_seed

    try:
        cfg = load_config(config)
        spec = cfg.audit or AuditConfig()
        size = spec.population if population is None else whole_number(population, "--population")
        if size is not None and size < 1:
            raise InputError("must be at least 1", key="--population", value=size)
        run_seed = spec.seed if seed is None else check_seed(whole_number(seed, "--seed"))
        names = spec.attacks if attacks is None else [a.strip() for a in attacks.split(",") if a.strip()]
        if report is not None:
            check_report(report, [release, str(config), *(p for p in (original, other, population_table, control)
                                                          if p)])
        plan = plan_from_config(cfg, config_dir=config.parent, config_file=config, input_path=original, writes=False)
        inputs = load_audit_inputs(plan, release, population_table=population_table, control=control, other=other)
        result = with_steps(lambda step: audit(inputs, models=list(plan.models), thresholds=spec.thresholds,
                                               population=size, attacks=names, seed=run_seed,
                                               targets=spec.targets, step=step))
        if report is not None:
            write_audit_report(inputs, result, config, cfg, original, report, show_values)
    except InputError as exc:
        console.fail(exc, 2)
    if as_json:
        console.print_json(result)
    else:
        print_audit(result)
    if not result["ok"]:
        raise typer.Exit(1)


def write_audit_report(inputs, result: dict, config: Path, cfg, original: str | None, report: str,  # type: ignore[no-untyped-def]
                       show_values: bool) -> None:
    """The audit's HTML report; ``result`` then names it."""
    from anonkit.report import build_report, write_report

    html = build_report(audit_summary(inputs, result, config, cfg, original), original=inputs.original,
                        release=inputs.release, config_text=mask_secrets(config.read_text(encoding="utf-8")),
                        audit=result, show_values=show_values)
    write_report(html, report, refuse=[str(config), *locations(inputs.release_location)])
    result["report"] = report


def locations(shown: str | list[str] | None) -> list[str]:
    """A release's location (one path, or one per linked table) as a list."""
    return [] if shown is None else [shown] if isinstance(shown, str) else list(shown)


def audit_summary(inputs, result: dict, config: Path, cfg=None, original: str | None = None) -> dict:  # type: ignore[no-untyped-def]
    """What the report's "what was done" section shows for an audit: the files and their SHA-256
    (the input the release was compared against: ``--original`` or the config's), the row counts
    and the models as the audit recomputed them."""
    import datetime
    import platform

    import numpy as np
    import pandas as pd

    from anonkit import __version__
    from anonkit.io import without_password
    from anonkit.pipeline import input_location, sha256_of

    where, table = (None, None) if cfg is None else input_location(cfg, config.parent, original)[::2]
    shown = None if where is None else (without_password(where) if table is None
                                        else f"{without_password(where)}#{table}")
    tables = inputs.tables
    outputs = [{"path": loc, "sha256": sha256_of(loc), "rows": len(frame)}
               for loc, frame in zip(locations(inputs.release_location), tables.values(), strict=False)]
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
