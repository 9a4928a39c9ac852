"""A plan run on Apache Spark (``engine: spark``): the local runner's job (:mod:`anonkit.runner.local`)
with the rows on Spark (:mod:`anonkit.engines.spark`).

Input: Parquet files, directories or globs, a CSV file (header row, cells as text) or a table of
the Spark catalog (``input: {table: name}`` without a path); the bundled dataset works too. Output:
a Parquet directory (one file per Spark partition; ``output.partition_by`` for Hive-style
sub-directories), written into a hidden sibling, verified there from the written files (the
independent verifier on Spark's counts of the published classes), and only then renamed into place
— a release that fails its models is never where the output goes. Everything that can be checked
before the work is: the output's format, that it is not the input (nor under it, nor holding it),
that it does not exist unless ``output.if_exists: replace``.

The run's verdict: the verifier's model results and the risk models (prosecutor; journalist and
marketer with ``audit.population``) judged from the written classes' sizes counted on Spark, against
the thresholds (``audit: {thresholds, population, required}``; ``required: true`` refuses a failing
release before it is renamed into place). No attack runs: each reads the original rows on one
machine; the audit's notes say so.

Not on Spark (refused before any work, naming what to change): the attacks' audit keys and the HTML
report (they read the original rows on one machine), post-analytics, SQL, Excel and DuckDB inputs
and outputs.
"""

from __future__ import annotations

import datetime
import glob
import os
import platform
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonkit.config import Config
from anonkit.datasets import DATASETS
from anonkit.engines import DEFAULT_PARTITION_ROWS
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.io import INPUT_KEYS, same_file
from anonkit.plan import Plan
from anonkit.plan.load import config_priors, config_schema, sha256_of
from anonkit.plan.places import read_places
from anonkit.runner.anonymize import anonymize_checked
from anonkit.runner.result import Result


class _Values:
    """What :func:`~anonkit.plan.load.config_schema` reads of the input: its columns and, for a
    hierarchy built from the data, a column's values (the distinct ones, counted on Spark)."""

    def __init__(self, df: Any) -> None:
        self.df = df
        self.columns = pd.Index([str(c) for c in df.columns])

    def __getitem__(self, name: str) -> pd.Series:
        return self.df.select(name).distinct().toPandas()[name]


def _paths(pattern: str) -> list[Path]:
    return [Path(p).resolve() for p in glob.glob(pattern)] or [Path(pattern).resolve()]


def _overlaps(a: Path, b: Path) -> bool:
    return a == b or a in b.parents or b in a.parents


def _refuse_reads(config: Config, base: Path, target: str, key: str, config_file: str | Path | None) -> None:
    """The Parquet directory the release replaces must hold (or be) none of the other files the run
    reads — the config, a hierarchy, categories or prior file (:func:`anonkit.plan.places.read_places`)."""
    out = Path(target).resolve()
    for place in read_places(config, base, config_file=config_file):
        if place.key in INPUT_KEYS or "://" in place.location:
            continue
        if _overlaps(out, Path(place.location).resolve()) or same_file(target, place.location):
            raise InputError(f"{key} would replace a file the run reads ({place.key}); write it elsewhere",
                             key=key, file=target)


def _refuse_before_spark(plan: Plan, engine: Any) -> None:
    """Every refusal the config alone decides, before a Spark session (a JVM: a minute and more on a
    loaded machine) starts: the algorithm and its options, a person column, Mondrian's settings,
    background-knowledge priors."""
    from anonkit.engines.spark_mondrian import refuse_settings

    config, base, spec, options = plan.config, plan.base, plan.algorithm, dict(plan.options)
    engine.refuse(spec, options)
    person = next((name for name, a in config.attributes.items() if a.role in ("person", "individual")), None)
    if person is not None:
        raise InputError("data with several records per person does not run on engine: spark; use engine: local",
                         column=person)
    if spec.family == "partition":
        refuse_settings(config.models(), partition_rows=engine.partition_rows, mode=options.get("mode"),
                        missing=config.input.missing, **({"max_suppression": options["max_suppression"]}
                                                         if "max_suppression" in options else {}))
    priors, _note = config_priors(config, base)
    if priors is not None:
        raise InputError("background-knowledge priors do not run on engine: spark", key="privacy")


#: the audit's settings a run on Spark honours: its verdict is judged from the written classes' sizes
SPARK_AUDIT_KEYS = ("thresholds", "population", "required")


def _refuse_audit_keys(config: Config) -> None:
    """``audit:`` on Spark takes the thresholds, the population size and ``required``; the keys of
    the attacks and of the population table (they read the original rows on one machine) are
    refused, naming the key, rather than ignored."""
    if config.audit is None:
        return
    other = sorted(set(config.audit.model_fields_set) - set(SPARK_AUDIT_KEYS))
    if other:
        raise InputError(f"engine: spark judges the release from its classes' sizes (the models and the risk "
                         f"models) and runs no attack: drop audit.{other[0]} or use engine: local",
                         key=f"audit.{other[0]}")


def _spark_verdict(config: Config, engine: Any, written: Any, schema: Any, models: list, verification: Any,
                   location: str | None) -> dict:
    """The run's audit on Spark: the verifier's model results and the risk models from the
    published classes' sizes, counted on the written files (:func:`anonkit.audit.run.audit_class_sizes`)."""
    from anonkit.audit.run import audit_class_sizes, model_results

    spec = config.audit
    sizes = engine.class_sizes(written, schema, suppressed=config.output.suppressed)
    return audit_class_sizes(sizes, model_results(verification), models=models,
                             thresholds=None if spec is None else spec.thresholds,
                             population=None if spec is None else spec.population, release=location,
                             why="on engine: spark the original rows are not on one machine; audit a sample "
                                 "with engine: local")


def _judge(config: Config, result: Result, report: dict) -> None:
    """The run's one verdict into the summary (the audit's too); with ``audit.required`` a failing
    verdict refuses the release (raised before the written files are renamed into place)."""
    from anonkit.audit.verdicts import run_verdict

    result.summary["audit"] = report
    result.summary["risk_threshold"] = report["thresholds"]["highest_risk"]
    if isinstance(result.summary.get("metrics"), dict):
        result.summary["metrics"]["records_at_risk"] = report["risk"]["prosecutor"]["records_at_risk"]
    result.summary["verdict"] = run_verdict(report)
    if config.audit is not None and config.audit.required and not report["ok"]:
        names = [v["check"] for v in report["verdicts"] if not v["holds"]]
        result.summary["satisfied"] = False
        raise UnsatisfiableError(f"the audit fails {len(names)} check(s): {', '.join(names)}; relax "
                                 "audit.thresholds or strengthen the models", summary=result.summary,
                                 release=result.release)


def refuse_report() -> None:
    """The HTML report reads the original rows on one machine: refused on Spark."""
    raise InputError("the HTML report reads the original rows on one machine: run it on a sample with "
                     "engine: local, or drop --report", key="--report")


def _refuse_config(plan: Plan) -> None:
    """What a run on Spark refuses in the config before any work: the report, the attacks' audit
    keys, post-analytics, inputs Spark does not read."""
    config = plan.config
    inp = config.input
    if plan.report is not None:
        refuse_report()
    _refuse_audit_keys(config)
    if config.post_analytics is not None:
        raise InputError("post_analytics does not run on engine: spark", key="post_analytics")
    if inp.query is not None or (inp.format or "") not in ("", "csv", "parquet"):
        raise InputError("engine: spark reads parquet or csv files and Spark tables", key="input.format")


def _input_location(plan: Plan) -> str | None:
    inp, base = plan.config.input, plan.base
    location: str | None = plan.input_path
    if location is None and inp.path is not None:
        location = str(base / inp.path) if not Path(inp.path).is_absolute() else inp.path
    return location


def _check_output(plan: Plan, location: str | None) -> tuple[str | None, str]:
    """The Parquet directory the release goes to, checked before any work: the format, that it is not
    the input (nor under it, nor holding it) nor holds a file the run reads, that it does not exist
    unless ``output.if_exists: replace``, that its folder exists."""
    out = plan.config.output
    target = plan.outputs[0][0] if plan.outputs else None
    key = "--output" if plan.output_path is not None else "output.path"
    if target is None:
        return None, key
    if (out.format or "parquet") != "parquet" or out.table is not None:
        raise InputError("engine: spark writes a Parquet directory; set output.format: parquet", key="output.format")
    sources = _paths(location) if location is not None else []
    if any(_overlaps(Path(target).resolve(), s) for s in sources):
        raise InputError("the output is the input (or holds it, or lies in it); write the release elsewhere",
                         key=key, file=target)
    _refuse_reads(plan.config, plan.base, target, key, plan.config_file)
    if Path(target).exists() and out.if_exists != "replace":
        raise InputError("the output exists; set output.if_exists: replace to replace it", key=key, file=target)
    if not Path(target).resolve().parent.is_dir():
        raise InputError("the output's directory does not exist", key=key, file=target)
    return target, key


def _engine(plan: Plan) -> Any:
    from anonkit.engines.spark import SparkEngine

    spark_cfg = plan.config.spark
    return SparkEngine(master=None if spark_cfg is None else spark_cfg.master,
                       conf=None if spark_cfg is None else dict(spark_cfg.conf),
                       partition_rows=DEFAULT_PARTITION_ROWS if spark_cfg is None else spark_cfg.partition_rows)


def _read(plan: Plan, engine: Any, location: str | None) -> tuple[Any, dict, str | None]:
    """The input as a Spark data frame, a dataset's default hierarchies, and where it was read."""
    inp = plan.config.input
    if location is None and inp.dataset is not None:
        path_fn, hier_fn = DATASETS[inp.dataset]
        frame = pd.read_csv(path_fn(), sep=";", dtype=str, keep_default_na=False)
        return engine.session.createDataFrame(frame), hier_fn(), str(path_fn())
    if location is None:
        return engine.read("", table=inp.table), {}, None
    return engine.read(location, inp.format, separator=inp.separator, encoding=inp.encoding), {}, location


def _check_partition_by(plan: Plan, schema: Any) -> None:
    out, config = plan.config.output, plan.config
    if out.partition_by:
        unknown = [c for c in out.partition_by if c not in schema.attributes and config.default_role is None]
        hidden = [c for c in out.partition_by if c in schema.attributes and schema[c].role.value == "identifier"]
        if unknown or hidden:
            raise InputError("output.partition_by names a column the release does not publish",
                             column=(unknown or hidden)[0])


def run_spark(plan: Plan, progress: Callable[[str], None] | None = None) -> Result:
    """Run ``plan`` on Spark; see the module docstring."""
    say = progress or (lambda _msg: None)
    t0 = time.perf_counter()
    started = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    config = plan.config
    _refuse_config(plan)
    location = _input_location(plan)
    target, _key = _check_output(plan, location)
    engine = _engine(plan)
    _refuse_before_spark(plan, engine)
    say("reading input")
    df, defaults, location = _read(plan, engine, location)
    schema = config_schema(config, plan.base, defaults, _Values(df))  # type: ignore[arg-type]
    _check_partition_by(plan, schema)
    say("anonymizing")
    try:
        result = anonymize_checked(df, schema, replace(plan, engine=engine))
    except UnsatisfiableError as exc:
        exc.summary["total_seconds"] = round(time.perf_counter() - t0, 6)
        raise
    result.summary["engine"] = "spark"
    result.summary["output"] = None
    outputs = _write_verified(plan, engine, df, schema, result, target, say)
    result.summary["run"] = _facts(plan, engine, location, outputs, started)
    result.summary["total_seconds"] = round(time.perf_counter() - t0, 6)
    return result


def _write_verified(plan: Plan, engine: Any, df: Any, declared: Any, result: Result, target: str | None,
                    say: Callable[[str], None]) -> list[dict]:
    """Write the release (verified from the written files and judged by the run's verdict before
    it is renamed into place), or without an output judge the release in memory. ``declared`` is
    the config's schema over the input (its identifiers must not reach the written files)."""
    out = plan.config.output
    schema = result.schema
    assert schema is not None
    # the input's sensitive distribution, as the verifier of the written files reads it
    table = result.release.table if result.release is not None else None
    reference = (table.frame, table.weights) if table is not None else (None, None)
    if target is None:
        say("auditing")
        v = engine.verify(result.frame, schema, result.models, reference=reference[0],
                          reference_weights=reference[1], suppressed=out.suppressed)
        _judge(plan.config, result, _spark_verdict(plan.config, engine, result.frame, schema, result.models, v, None))
        return []
    say("writing output")
    models = result.models
    hidden = [*declared.in_column_order([str(c) for c in df.columns]).identifiers]

    def check(written: Any) -> None:
        leaked = [c for c in hidden if c in written.columns]
        if leaked:
            raise AssertionError(f"the identifier {leaked[0]!r} reached the written release")
        v = engine.verify(written, schema, models, reference=reference[0], reference_weights=reference[1])
        if not v.ok:
            raise AssertionError("the written release failed independent verification:\n" + v.summary())
        if v.released != result.summary["released"]:
            raise AssertionError(f"{v.released:,} rows written, {result.summary['released']:,} released")
        say("auditing")  # the verdict from the written files, before they are renamed into place
        _judge(plan.config, result, _spark_verdict(plan.config, engine, written, schema, models, v, target))

    engine.write(result.frame, target, if_exists=out.if_exists, partition_by=out.partition_by, check=check)
    result.summary["output"] = target
    return [{"path": target, "sha256": None, "rows": result.summary["released"]
             + (result.summary["suppressed"] if out.suppressed == "mark" else 0)}]


def _facts(plan: Plan, engine: Any, location: str | None, outputs: list[dict], started: str) -> dict:
    from anonkit._version import __version__

    return {
        "config": None if plan.config_file is None else str(Path(plan.config_file).resolve()),
        "config_sha256": None if plan.config_file is None else sha256_of(str(plan.config_file)),
        "base": str(plan.base.resolve()),
        "input": location if location is not None else f"spark table {plan.config.input.table}",
        "input_sha256": sha256_of(location) if location is not None and os.path.isfile(location) else None,
        "outputs": outputs,
        "versions": {"anonkit": __version__, "python": platform.python_version(), "numpy": np.__version__,
                     "pandas": pd.__version__, "pyspark": engine.session.version},
        "spark_master": engine.session.sparkContext.master,
        "started": started,
    }


__all__ = ["SPARK_AUDIT_KEYS", "refuse_report", "run_spark"]
