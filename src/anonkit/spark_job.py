"""A config run on Apache Spark (``engine: spark``): :func:`anonkit.pipeline.run_config`'s job with
the rows on Spark (:mod:`anonkit.engines.spark`).

Input: Parquet files, directories or globs, a CSV file (header row, cells as text) or a table of
the Spark catalog (``input: {table: name}`` without a path); the bundled dataset works too. Output:
a Parquet directory (one file per Spark partition; ``output.partition_by`` for Hive-style
sub-directories), written into a hidden sibling, verified there from the written files (the
independent verifier on Spark's counts of the published classes), and only then renamed into place
— a release that fails its models is never where the output goes. Everything that can be checked
before the work is: the output's format, that it is not the input (nor under it, nor holding it),
that it does not exist unless ``output.if_exists: replace``.

Not on Spark (refused before any work, naming what to change): audits and the HTML report (they
read the original rows on one machine), post-analytics, SQL, Excel and DuckDB inputs and outputs.
"""

from __future__ import annotations

import datetime
import glob
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonkit._paths import read_places
from anonkit.config import Config
from anonkit.datasets import DATASETS
from anonkit.engines import DEFAULT_PARTITION_ROWS
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.io._places import INPUT_KEYS, same_file
from anonkit.pipeline import Result, anonymize, config_priors, config_schema, sha256_of
from anonkit.release import check_seed


class _Values:
    """What :func:`~anonkit.pipeline.config_schema` reads of the input: its columns and, for a
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
    reads — the config, a hierarchy, categories or prior file (:func:`anonkit._paths.read_places`)."""
    out = Path(target).resolve()
    for place in read_places(config, base, config_file=config_file):
        if place.key in INPUT_KEYS or "://" in place.location:
            continue
        if _overlaps(out, Path(place.location).resolve()) or same_file(target, place.location):
            raise InputError(f"{key} would replace a file the run reads ({place.key}); write it elsewhere",
                             key=key, file=target)


def _refuse_before_spark(config: Config, engine: Any, base: Path) -> None:
    """Every refusal the config alone decides, before a Spark session (a JVM: a minute and more on a
    loaded machine) starts: the algorithm and its options, a person column, Mondrian's settings,
    background-knowledge priors."""
    from anonkit.engines.spark_mondrian import refuse_settings

    spec, options = config.algorithm.spec, config.algorithm.options()
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


def run_spark_config(config: Config, *, config_dir: str | Path = ".", input_path: str | None = None,
                     output_path: str | None = None, seed: int | None = None,
                     progress: Callable[[str], None] | None = None, config_file: str | Path | None = None,
                     audit: bool = False) -> Result:
    """Run ``config`` on Spark; see the module docstring. Arguments as :func:`~anonkit.pipeline.run_config`."""
    from anonkit.engines.spark import SparkEngine

    say = progress or (lambda _msg: None)
    base = Path(config_dir)
    t0 = time.perf_counter()
    started = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    run_seed = check_seed(config.seed if seed is None else seed)
    inp, out = config.input, config.output
    if audit or config.audit is not None:
        raise InputError("audits and reports read the original rows on one machine: run them on a sample with "
                         "engine: local, or drop audit/--report", key="audit")
    if config.post_analytics is not None:
        raise InputError("post_analytics does not run on engine: spark", key="post_analytics")
    if inp.query is not None or (inp.format or "") not in ("", "csv", "parquet"):
        raise InputError("engine: spark reads parquet or csv files and Spark tables", key="input.format")
    # ---- the input and the output, checked before any work
    location: str | None = input_path
    if location is None and inp.path is not None:
        location = str(base / inp.path) if not Path(inp.path).is_absolute() else inp.path
    target = output_path if output_path is not None else None if out.path is None else (
        str(base / out.path) if not Path(out.path).is_absolute() else out.path)
    key = "--output" if output_path is not None else "output.path"
    if target is not None:
        if (out.format or "parquet") != "parquet" or out.table is not None:
            raise InputError("engine: spark writes a Parquet directory; set output.format: parquet",
                             key="output.format")
        sources = _paths(location) if location is not None else []
        if any(_overlaps(Path(target).resolve(), s) for s in sources):
            raise InputError("the output is the input (or holds it, or lies in it); write the release elsewhere",
                             key=key, file=target)
        _refuse_reads(config, base, target, key, config_file)
        if Path(target).exists() and out.if_exists != "replace":
            raise InputError("the output exists; set output.if_exists: replace to replace it", key=key, file=target)
        if not Path(target).resolve().parent.is_dir():
            raise InputError("the output's directory does not exist", key=key, file=target)
    spark_cfg = config.spark
    engine = SparkEngine(master=None if spark_cfg is None else spark_cfg.master,
                         conf=None if spark_cfg is None else dict(spark_cfg.conf),
                         partition_rows=DEFAULT_PARTITION_ROWS if spark_cfg is None else spark_cfg.partition_rows)
    _refuse_before_spark(config, engine, base)
    say("reading input")
    defaults: dict = {}
    if location is None and inp.dataset is not None:
        path_fn, hier_fn = DATASETS[inp.dataset]
        frame = pd.read_csv(path_fn(), sep=";", dtype=str, keep_default_na=False)
        df, defaults = engine.session.createDataFrame(frame), hier_fn()
        location = str(path_fn())
    elif location is None:
        df = engine.read("", table=inp.table)
    else:
        df = engine.read(location, inp.format, separator=inp.separator, encoding=inp.encoding)
    schema = config_schema(config, base, defaults, _Values(df))  # type: ignore[arg-type]
    if out.partition_by:
        unknown = [c for c in out.partition_by if c not in schema.attributes and config.default_role is None]
        hidden = [c for c in out.partition_by if c in schema.attributes and schema[c].role.value == "identifier"]
        if unknown or hidden:
            raise InputError("output.partition_by names a column the release does not publish",
                             column=(unknown or hidden)[0])
    say("anonymizing")
    algo = config.algorithm
    try:
        result = anonymize(df, schema, config.models(), algorithm=algo.spec.name, seed=run_seed,
                           suppressed=out.suppressed, missing=inp.missing, strip=inp.strip,
                           person_qi=inp.person_qi, metric=algo.metric, engine=engine, **algo.options())
    except UnsatisfiableError as exc:
        exc.summary["total_seconds"] = round(time.perf_counter() - t0, 6)
        raise
    result.summary["engine"] = "spark"
    # the input's sensitive distribution, as the verifier of the written files reads it
    table = result.release.table if result.release is not None else None
    reference = (table.frame, table.weights) if table is not None else (None, None)
    result.summary["output"] = None
    outputs = []
    if target is not None:
        say("writing output")
        models = result.models

        hidden = [*schema.in_column_order([str(c) for c in df.columns]).identifiers]

        def check(written: Any) -> None:
            leaked = [c for c in hidden if c in written.columns]
            if leaked:
                raise AssertionError(f"the identifier {leaked[0]!r} reached the written release")
            assert result.schema is not None
            v = engine.verify(written, result.schema, models, reference=reference[0],
                              reference_weights=reference[1])
            if not v.ok:
                raise AssertionError("the written release failed independent verification:\n" + v.summary())
            if v.released != result.summary["released"]:
                raise AssertionError(f"{v.released:,} rows written, {result.summary['released']:,} released")

        engine.write(result.frame, target, if_exists=out.if_exists, partition_by=out.partition_by, check=check)
        result.summary["output"] = target
        outputs.append({"path": target, "sha256": None, "rows": result.summary["released"]
                        + (result.summary["suppressed"] if out.suppressed == "mark" else 0)})
    from anonkit import __version__

    result.summary["run"] = {
        "config": None if config_file is None else str(Path(config_file).resolve()),
        "config_sha256": None if config_file is None else sha256_of(str(config_file)),
        "base": str(base.resolve()),
        "input": location if location is not None else f"spark table {inp.table}",
        "input_sha256": sha256_of(location) if location is not None and os.path.isfile(location) else None,
        "outputs": outputs,
        "versions": {"anonkit": __version__, "python": platform.python_version(), "numpy": np.__version__,
                     "pandas": pd.__version__, "pyspark": engine.session.version},
        "spark_master": engine.session.sparkContext.master,
        "started": started,
    }
    result.summary["total_seconds"] = round(time.perf_counter() - t0, 6)
    return result


__all__ = ["run_spark_config"]
