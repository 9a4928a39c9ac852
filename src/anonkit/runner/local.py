"""A plan run on this machine (``engine: local``): read the input → build the schema → anonymize
(:func:`anonkit.runner.anonymize.anonymize_checked`, the plan's validated settings) →
post-analytics → audit and the one verdict → write every output → the run's facts.

Everything that could be checked before the work was, when the plan was made (the seed, every
output target, that no write lands on a read); here nothing is validated again."""

from __future__ import annotations

import datetime
import platform
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from anonkit import interrupt
from anonkit._secrets import mask_tree
from anonkit._values import strip_cells
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.io import recording_digests, without_password, write_table
from anonkit.io.batches import is_compact
from anonkit.plan import Plan
from anonkit.plan.load import config_priors, config_schema, load_input, research_subset, sha256_of
from anonkit.plan.places import input_location, side_outputs
from anonkit.runner.anonymize import Encodings, anonymize_checked
from anonkit.runner.audit_step import audit_result
from anonkit.runner.result import Result
from anonkit.verifier import verify

__all__ = ["run_facts", "run_local"]


def run_local(plan: Plan, progress: Callable[[str], None] | None = None) -> Result:
    """Run ``plan`` on this machine; writes the outputs only when the models and the audit's
    ``required`` verdict hold.

    Raises
    ------
    InputError
        Bad input (one line naming the key, column, value or row).
    UnsatisfiableError
        The models cannot be met; nothing is written (``.summary`` is what ``--json`` prints).
    """
    say = progress or (lambda _msg: None)
    config, base = plan.config, plan.base
    t0 = time.perf_counter()
    started = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    say("reading input")
    with recording_digests() as digests:  # the input's SHA-256, taken as it is read (read once)
        frame, defaults = load_input(config, base, plan.input_path)
    if config.input.strip and not is_compact(frame):  # a compact frame was stripped as it was read
        frame = frame.apply(strip_cells) if len(frame.columns) else frame
    interrupt.check()
    schema = config_schema(config, base, defaults, frame)
    # input.subset: the input is the population and the subset's records are anonymized and released
    population, frame = research_subset(config, base, frame)
    say("anonymizing")
    priors, prior_note = config_priors(config, base)
    encodings = Encodings()  # the run's encoded input, read again by its advice's reruns and fixes' trials
    try:
        result = anonymize_checked(frame, schema, plan, priors=priors, population=population, encodings=encodings)
    except UnsatisfiableError as exc:
        exc.summary["total_seconds"] = round(time.perf_counter() - t0, 6)
        exc.summary = mask_tree(exc.summary)  # type: ignore[assignment]
        raise
    if "background_knowledge" in result.summary and prior_note is not None:
        result.summary["background_knowledge"]["prior"] = prior_note
    manifest = None
    if config.post_analytics is not None:
        say("post-analytics")
        manifest = _post_analytics(plan, result, frame)
    say("auditing")  # always: the quick checks give the run one verdict (audit: {…} or --report add to them)
    result.encodings = encodings
    audit_result(plan, result, frame=frame, schema=schema, population=population)
    result.inputs = (frame, schema, population)  # the fixes' trials rerun this input as read
    result.summary["output"] = None
    if plan.outputs:
        say("writing output")
        _write(plan, result, manifest)
    result.summary["run"] = run_facts(plan, result, started, digests)
    result.summary["total_seconds"] = round(time.perf_counter() - t0, 6)
    result.summary = mask_tree(result.summary)  # type: ignore[assignment]  # no password or token leaves
    return result


def _write(plan: Plan, result: Result, manifest: pd.DataFrame | None) -> None:
    """Every output of the plan: the release's tables, the manifest of fake records, the noise
    records' manifest (each atomically, to the targets the plan checked)."""
    out = plan.config.output
    tables = result.release.tables
    frames = [result.frame] if not tables else list(tables.values())
    for (location, sql_table), frame_out in zip(plan.outputs, frames, strict=True):
        write_table(
            frame_out,
            location,
            format=out.format,
            separator=out.separator,
            encoding=out.encoding,
            table=sql_table,
            neutralise=out.neutralise,
            if_exists="replace" if sql_table is None else out.if_exists,
            sheet=out.sheet,
        )
    written = [loc if tab is None else f"{without_password(loc)}#{tab}" for loc, tab in plan.outputs]
    result.summary["output"] = written[0] if len(written) == 1 else written
    for location, make in side_outputs(plan.algorithm, plan.writes):  # PRAM's matrices: NAME.pram.csv
        write_table(make(result.release), location, format="csv", neutralise=out.neutralise)  # type: ignore[operator]
        result.summary.setdefault("side_files", []).append(location)
    target = plan.manifest
    if manifest is not None and target is not None:
        write_table(manifest, target, format="csv", neutralise=out.neutralise)
        result.summary["post_analytics"]["fakes"]["manifest"] = target
    noise = result.release.manifest
    if noise is not None and len(noise) and target is not None:
        write_table(noise, target, format="csv", neutralise=out.neutralise)
        result.summary["manifest"] = target


def _post_analytics(plan: Plan, result: Result, original: pd.DataFrame) -> pd.DataFrame | None:
    """Post-analytics of the release (paper C §5) into the summary, and fake records when asked;
    returns the manifest of fakes to write (``None`` without fakes)."""
    from anonkit.analytics.post import inject_fakes, post_analytics

    post, manifest_target = plan.config.post_analytics, plan.manifest
    assert post is not None
    table = result.release.table
    unknown = [c for c in post.critical if c not in result.frame.columns]
    if unknown:
        raise InputError("a critical attribute is not published", column=unknown[0], key="post_analytics.critical")
    report = post_analytics(result.frame, post.critical, original=original[[c for c in result.frame.columns]],
                            rho=post.rho, key_columns=table.qi)
    result.summary["post_analytics"] = report.summary
    if not post.inject_fake or not report.vulnerable:
        return None
    injected = inject_fakes(result.frame, post.critical, rho=post.rho, seed=post.seed, key_columns=table.qi)
    reference = {s: table.frame[s] for s in table.sensitive}
    fakes: dict[str, object] = {"injected": injected.fakes, "unrepairable": injected.unrepairable, "manifest": None}
    if any(m.spec.record_level for m in result.models):
        failing = "the record-level models (fake records have no input record to judge)"
    else:
        check = verify(injected.frame, table.schema, result.models, reference=reference)
        failing = "" if check.ok else ", ".join(r.model for r in check.results if not r.passed)
    if failing:
        result.summary["warnings"].append(f"fake records not injected: they would break {failing}")
        fakes["injected"] = 0
        result.summary["post_analytics"]["fakes"] = fakes
        return None
    after = post_analytics(injected.frame, post.critical, rho=post.rho, key_columns=table.qi)
    fakes.update(
        records_without=len(result.frame), records_with=len(injected.frame),
        vulnerable_classes_without=report.summary["vulnerable_classes"],
        vulnerable_classes_with=after.summary["vulnerable_classes"],
        max_share_without=report.max_share, max_share_with=after.max_share,
        leakage_with=after.leakage_after,
    )
    result.summary["post_analytics"]["fakes"] = fakes
    result.frame = injected.frame
    return injected.manifest if manifest_target is not None else None


def run_facts(plan: Plan, result: Result, started: str, digests: Mapping[str, str] | None = None
              ) -> dict[str, object]:
    """What was done, for the audit trail and the report: the config, the input and every output
    with their SHA-256 (``None`` for SQL tables), row counts, versions and the start time (UTC).
    ``digests`` are the SHA-256 taken as the input was read (:func:`anonkit.io.recording_digests`);
    an input read another way (a database file, queried) is hashed here."""

    from anonkit._version import __version__

    config, base, config_file, outputs = plan.config, plan.base, plan.config_file, plan.outputs
    location, _fmt, table = input_location(config, base, plan.input_path)
    tables = result.release.tables
    frames = [result.frame] if not tables else list(tables.values())
    out = []
    for (loc, sql_table), frame_out in zip(outputs, frames if outputs else [], strict=True):
        out.append({"path": loc if sql_table is None else f"{without_password(loc)}#{sql_table}",
                    "sha256": None if sql_table is not None else sha256_of(loc), "rows": len(frame_out)})
    return {
        "config": None if config_file is None else str(Path(config_file).resolve()),
        "config_sha256": None if config_file is None else sha256_of(str(config_file)),
        "base": str(base.resolve()),
        "input": without_password(location) if table is None else f"{without_password(location)}#{table}",
        "input_sha256": None if table is not None else (digests or {}).get(location) or sha256_of(location),
        "outputs": out,
        "versions": {"anonkit": __version__, "python": platform.python_version(), "numpy": np.__version__,
                     "pandas": pd.__version__},
        "started": started,
    }
