"""Mondrian, strict mode, on Apache Spark: the single-machine partition of a table too large for one
machine.

The model is Mondrian multidimensional partitioning (LeFevre, DeWitt, Ramakrishnan, "Mondrian
Multidimensional K-Anonymity", ICDE 2006; spec §5.4) with every privacy model as the split
condition, exactly as :mod:`anonkit.algorithms.partition.mondrian` runs it in strict mode: a
partition tries its quasi-identifiers widest normalized first and takes the first *allowable* cut
(numeric: ``left = {x ≤ v}`` at the ``⌊|P|/2⌋``-th smallest value ``v``; categorical: the children
one level below the lowest common ancestor), allowable meaning at least two non-empty children, each
with ``k`` records and passing every model on its size and sensitive histograms over the whole
table's domain. In strict mode the final partition is a function of the multiset of the records'
quasi-identifier and sensitive values only (record order plays no part), which is what makes the
distributed run give the same partition — hence, after sorting, the same published rows — as the
single-machine engine.

How it runs (:func:`mondrian_on_spark`):

0. *The compact table.* A cut sends records with equal quasi-identifier codes to the same child, so
   the partition — and every step up to the published labels — is a function of the distinct
   (quasi-identifier, protected sensitive) combinations with their counts: one aggregation of the
   rows (grouping sets add the distinct values of the other sensitive columns), materialized once.
   Everything below runs on it, not on the rows; the rows are read again only to publish.
1. *Global encoding.* Per quasi-identifier and sensitive column, one aggregation of the compact table
   gives its distinct values with their counts; on the driver, a :class:`~anonkit.table.Table` of those
   distinct values (weighted by their counts) resolves the type (inferred like the local engine does),
   the hierarchy (or the flat one), the numeric values, the missing values' policy and the sensitive
   domains with the whole table's distribution (t-closeness). The geometry of the local kernels follows
   from it (``Encoding.from_columns``): numeric: rank among the table's distinct values, a missing value
   one more value above all; categorical: depth-first leaf position in the hierarchy. Every compact row
   gets its codes by a broadcast join with the (small) value → code tables.
2. *Top levels on Spark*, breadth first, while a partition holds more than ``partition_rows``
   records: one ``groupBy(partition)`` gives every active partition's state (size, lowest and highest
   code of every QI: numeric ranges, categorical lowest common ancestors), the driver orders the
   QIs by normalized width (the local code's ``widths``, the same floats), one aggregation per
   attempt round gives each partition's histogram of its chosen QI's codes joined with the sensitive
   codes (exact splits, no approximate quantiles; counts are sums of the compact counts), and the
   driver decides the cuts by the local rules; a small broadcast table ``(partition, code range) →
   child`` assigns the children.
3. *Bottom levels per partition*: ``applyInPandas`` grouped by partition repeats each compact row by
   its count and runs the single-machine loop (:func:`~anonkit.algorithms.partition.core.cut`,
   numba kernels) on the partition's records with the global encoding, judges the final classes like
   ``partition_release`` does and gives one row per distinct QI code tuple with its class, and on
   each class's first row its verdict, size and labels: numeric QIs as ``[lo-hi]`` (the value when
   ``lo == hi``; the hierarchy's lowest common ancestor for a class holding a missing value),
   categorical ones as the lowest common ancestor's label. The facts (class sizes, distinct published
   tuples) are aggregations of that small result.
4. *Publishing* (lazy, narrow): the rows find their class by one join on their raw QI values with the
   distinct QI tuples' classes, and their labels by one join on the class (broadcast when small); other
   columns as the local engine publishes them (text cells stripped of exactly the whitespace
   ``str.strip`` removes unless ``strip=False``), identifiers dropped.

Decisions: the driver sees aggregates only (distinct values, per-partition states and histograms of
the top levels; it builds the broadcast tables of distinct QI tuples and of classes when they are
small), never rows. Relaxed mode (its ties follow record order), records pre-suppressed
for missing values (``missing: suppress``), models on a QI subset or judged per record (background
knowledge) and person columns are refused with an :class:`~anonkit.errors.InputError`. A partition
the top levels find final (no allowable cut) is one class without re-running the loop. When the
whole table fails the models nothing is released: the frame is empty and the facts say why, with
the local engine's message. Classes publishing identical values (which strict partitions do not
produce) are counted once in ``classes``, as the local release merges them.
"""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, suppression_limit, suppression_verdict
from anonkit.algorithms.partition.core import WHOLE_TABLE_FAILS, min_class_size, protected_attributes, table_passes
from anonkit.engines._spark_classes import local_classes
from anonkit.engines._spark_compact import (
    FIRST,
    GID,
    OK,
    PID,
    PREFIX,
    SIZE,
    N,
    code_column,
    compact,
    distinct,
    label_column,
    leaf_column,
    raw_column,
    sensitive_column,
    truncate,
)
from anonkit.engines._spark_encoding import GlobalEncoding, code_tables, coded, global_encoding
from anonkit.engines._spark_levels import top_levels
from anonkit.engines.defaults import DEFAULT_PARTITION_ROWS
from anonkit.engines.spark import strip_column
from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.schema import Schema
from anonkit.table import Table

#: the published rows find their class by a broadcast join when there are at most this many distinct
#: QI tuples (their values and class id) / classes (their labels); else by a shuffle join
BROADCAST_TUPLES = 2_000_000
BROADCAST_CLASSES = 500_000


def refuse_settings(models: list[Criterion], *, partition_rows: int = DEFAULT_PARTITION_ROWS,
                    max_suppression: float = DEFAULT_MAX_SUPPRESSION, mode: str | None = None,
                    missing: str = "value") -> None:
    """An :class:`InputError` for what Mondrian on Spark does not distribute, known from the settings
    alone — so a config run refuses it before any Spark session (a JVM) starts."""
    if mode not in (None, "strict"):
        raise InputError(f"mode: {mode} is not distributed: its ties follow record order; use mode: strict or "
                         "engine: local", key="mode")
    if missing == "suppress":
        raise InputError("missing: suppress is not distributed by Mondrian on Spark; use missing: value or "
                         "engine: local", key="missing")
    if missing not in ("value", "error"):
        raise InputError(f"missing must be value, suppress or error, got {missing!r}", key="missing")
    if isinstance(partition_rows, bool) or not isinstance(partition_rows, int | np.integer) or partition_rows < 1:
        raise InputError("partition_rows must be a whole number ≥ 1", key="partition_rows", value=partition_rows)
    suppression_limit(max_suppression, 0)  # validates the share
    for m in models:
        if m.qis is not None:
            raise InputError(f"{m.describe()} on a subset of the quasi-identifiers is not distributed by Mondrian "
                             "on Spark; use engine: local", key="models")
        if m.spec.record_level:
            raise InputError(f"{m.name} is judged per record and is not distributed by Mondrian on Spark; use "
                             "engine: local", key="models")


def mondrian_on_spark(
    df: Any,
    schema: Schema,
    models: list[Criterion],
    *,
    partition_rows: int = DEFAULT_PARTITION_ROWS,
    max_suppression: float = DEFAULT_MAX_SUPPRESSION,
    mode: str | None = None,
    missing: str = "value",
    strip: bool = True,
    measures: bool = False,
) -> tuple[Any, dict[str, Any]]:
    """Mondrian (strict) on the Spark DataFrame ``df``; see the module docstring.

    Parameters
    ----------
    df:
        A ``pyspark.sql.DataFrame``; every column needs a role in ``schema`` (or its default role).
    schema:
        Roles, types (inferred where not declared, as :class:`~anonkit.table.Table` does) and
        hierarchies.
    models:
        The privacy models (on all quasi-identifiers, judged from class statistics).
    partition_rows:
        Partitions of more records than this are cut on Spark; smaller ones by the single-machine
        loop, one ``applyInPandas`` group each (so this bounds a group's records, apart from a
        partition the top levels find final, which is not looped over).
    max_suppression:
        Share of the records the models may suppress (the verdict in the facts).
    mode, missing, strip:
        As for the local engine; only ``mode="strict"`` and ``missing`` ``"value"`` or ``"error"``
        are distributed.
    measures:
        Also collect ``counted`` (see below) for the release's measures.

    Returns
    -------
    published, facts:
        The published rows (identifiers dropped, QIs generalized; not shuffled: the caller shuffles
        with the seed) and a dict: ``records``, ``partitions`` (final partitions), ``classes``
        (distinct published QI tuples), ``released``, ``suppressed``, ``top_levels`` (depths cut on
        Spark), ``groups`` (partitions handed to ``applyInPandas``) and ``largest_group`` (its rows),
        ``class_sizes`` (class size → number of classes), ``satisfied`` and ``message`` (the verdict,
        as the local release words it), ``schema`` (types resolved), ``tuples`` (distinct QI tuples),
        ``steps`` (seconds of every step: compact table, encoding, each top level, local loops, facts,
        publish plan), ``seconds`` and, with ``measures``, ``counted``: a pandas frame of the distinct
        raw QI tuples (one column per QI) with their class (``__ak_gid``), its verdict (``__ak_ok``)
        and their records (``__ak_n``), ordered by class and values — ``tuples`` rows on the driver,
        what :func:`counted_release` makes a release of for the measures.
    """
    from pyspark.sql import functions as F

    started = time.perf_counter()
    models = list(models)
    refuse_settings(models, partition_rows=partition_rows, max_suppression=max_suppression, mode=mode,
                    missing=missing)
    schema, hist_attrs, published_cols = _checked(df, schema, models)
    qi, d = schema.quasi, len(schema.quasi)

    # ------------------------------------------------------------ 1. the global encoding
    # The partition is a function of the records' QI codes (a cut sends equal codes to the same
    # child), so everything up to the published labels runs on the *compact* table: the distinct
    # (QI, protected sensitive) combinations with their counts, one aggregation of the rows.
    steps: list[tuple[str, float]] = []
    mark = [time.perf_counter()]

    def step(name: str) -> None:
        now = time.perf_counter()
        steps.append((name, round(now - mark[0], 3)))
        mark[0] = now

    keys = [*qi, *hist_attrs]
    compact_rows, values = compact(df, keys, [s for s in schema.sensitive if s not in hist_attrs])
    step("compact")
    values.update(distinct(compact_rows, keys, weight=N))
    step("distinct")
    ge = global_encoding(values, schema, missing=missing, strip=strip)
    n, kmin = ge.n, min_class_size(models)
    facts: dict[str, Any] = {"records": n, "top_levels": 0, "schema": ge.schema, "steps": steps}
    if not table_passes(n, {a: ge.root_hist[a] for a in hist_attrs}, ge.domains, models, kmin):
        facts.update(partitions=1, classes=0, released=0, suppressed=n, groups=0, largest_group=0, class_sizes={},
                     satisfied=False, message=WHOLE_TABLE_FAILS, seconds=time.perf_counter() - started)
        return df.sparkSession.createDataFrame([], _published_schema(df, published_cols, qi)), facts

    # the value → code tables (small, broadcast); the compact table's codes by joins with them
    tables = code_tables(df, ge, qi, hist_attrs)
    code_cols = [code_column(j) for j in range(d)] + [leaf_column(j) for j in range(d) if ge.has_missing[j]]
    code_cols += [sensitive_column(a) for a in range(len(hist_attrs))]
    cur = truncate(coded(compact_rows, tables, keys, [*code_cols, N]).withColumn(PID, F.lit(0).cast("long")),
                   eager=True)
    step("codes")

    # ------------------------------------------------------------ 2. the top levels on Spark
    cur, final_pids, leaving, depth = top_levels(cur, ge.enc, models, hist_attrs, ge.domains, n=n, kmin=kmin,
                                                 partition_rows=partition_rows, step=step)
    facts["top_levels"] = depth

    # ------------------------------------------------------------ 3. the bottom levels per partition
    out = _bottom_levels(cur, ge, qi, models, hist_attrs, kmin, final_pids)
    step("local loops")
    classes_df, sizes_hist, released, suppressed, n_classes, classes = _class_facts(out, d)
    step("facts")

    # ------------------------------------------------------------ 4. the published rows (lazy)
    published, n_tuples, counted = _publish(df, compact_rows, tables, out, classes_df, qi, published_cols,
                                            n_classes=n_classes, suppressed=suppressed, strip=strip,
                                            measures=measures)
    step("publish plan")
    satisfied, message = suppression_verdict(suppressed, suppression_limit(max_suppression, n), classes)
    facts.update(
        partitions=n_classes,
        classes=classes,
        released=released,
        suppressed=suppressed,
        groups=len(leaving),
        largest_group=max(leaving.values()),
        class_sizes=dict(sorted((int(r[1]), int(r[2])) for r in sizes_hist if r[0])),
        satisfied=satisfied,
        message=message,
        tuples=n_tuples,
        counted=counted,
        seconds=time.perf_counter() - started,
    )
    return published, facts


def _checked(df: Any, schema: Schema, models: list[Criterion]) -> tuple[Schema, list[str], list[str]]:
    """What is refused in the frame and the schema before any Spark job: ``(schema`` in column order,
    the protected sensitive attributes, the published columns``)``."""
    columns = [str(c) for c in df.columns]
    if len(set(columns)) < len(columns):
        raise InputError("duplicate column", column=next(c for c in columns if columns.count(c) > 1))
    clash = [c for c in columns if c.startswith(PREFIX)]
    if clash:
        raise InputError(f"column names starting with {PREFIX} are reserved by the Spark engine", column=clash[0])
    schema = schema.in_column_order(columns)
    if schema.person is not None:
        raise InputError("a person column is not distributed by Mondrian on Spark; use engine: local",
                         column=schema.person)
    if schema.survey_columns:
        raise InputError("the survey roles (weight, household, pseudonym, new-id) do not run on engine: spark; "
                         "use engine: local", column=schema.survey_columns[0])
    if not schema.quasi:
        raise InputError("Mondrian needs at least one quasi-identifier")
    hist_attrs = protected_attributes(models)
    unknown = [a for a in hist_attrs if a not in schema.sensitive]
    if unknown:
        raise InputError("a model protects an attribute that is not sensitive", column=unknown[0])
    return schema, hist_attrs, [c for c in columns if c not in schema.identifiers]


def _published_schema(df: Any, published_cols: list[str], qi: list[str]) -> Any:
    """The published rows' Spark schema: the input's columns but the identifiers, QIs as text."""
    from pyspark.sql import types as T

    return T.StructType([T.StructField(f.name, T.StringType() if f.name in qi else f.dataType, True)
                         for f in df.schema.fields if f.name in published_cols])


def _bottom_levels(cur: Any, ge: GlobalEncoding, qi: list[str], models: list[Criterion], hist_attrs: list[str],
                   kmin: int, final_pids: set[int]) -> Any:
    """Every partition finished by the single-machine loop on one executor (``applyInPandas``,
    :func:`~anonkit.engines._spark_classes.local_classes`): one row per distinct QI code tuple with
    its class (``GID``), and on the class's first row its verdict, size and published labels."""
    from pyspark.sql import types as T

    d = len(qi)
    ctx = SimpleNamespace(
        enc=ge.enc, d=d, qi=qi, hierarchies=ge.hierarchies, hist_attrs=hist_attrs, models=models,
        domains=ge.domains, kmin=kmin, final=frozenset(final_pids), has_missing=ge.has_missing, dates=ge.dates,
    )
    fields = ([T.StructField(code_column(j), T.IntegerType(), False) for j in range(d)]
              + [T.StructField(GID, T.LongType(), False), T.StructField(FIRST, T.BooleanType(), False),
                 T.StructField(OK, T.BooleanType(), False), T.StructField(SIZE, T.LongType(), False)]
              + [T.StructField(label_column(j), T.StringType(), True) for j in range(d)])
    return truncate(cur.groupBy(PID).applyInPandas(lambda pdf: local_classes(pdf, ctx), T.StructType(fields)),
                    eager=True)


def _class_facts(out: Any, d: int) -> tuple[Any, list, int, int, int, int]:
    """``(classes`` (one row per class: id, verdict, size, labels), the (verdict, size) → classes
    histogram, released and suppressed records, classes, distinct published QI tuples``)``; classes
    that publish identical values are one class of the release (``partition_release`` merges them)."""
    from pyspark.sql import functions as F

    labels = [label_column(j) for j in range(d)]
    classes_df = out.filter(F.col(FIRST)).select(GID, OK, SIZE, *labels)
    sizes_hist = classes_df.groupBy(OK, SIZE).count().collect()
    released = sum(int(r[1]) * int(r[2]) for r in sizes_hist if r[0])
    suppressed = sum(int(r[1]) * int(r[2]) for r in sizes_hist if not r[0])
    n_classes = sum(int(r[2]) for r in sizes_hist)
    classes = classes_df.filter(F.col(OK)).select(*labels).distinct().count() if released else 0
    return classes_df, sizes_hist, released, suppressed, n_classes, classes


def _publish(df: Any, compact_rows: Any, tables: dict[str, Any], out: Any, classes_df: Any, qi: list[str],
             published_cols: list[str], *, n_classes: int, suppressed: int, strip: bool,
             measures: bool) -> tuple[Any, int, pd.DataFrame | None]:
    """The published rows (lazy), the number of distinct QI tuples and, with ``measures``, their
    frame (``counted``). Every distinct raw QI tuple's class comes from the compact table (small);
    the rows find their class by one join on their raw QI values, their labels by one join on the
    class; a failing class's rows are dropped."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    d = len(qi)
    xcols = [code_column(j) for j in range(d)]
    raw = [raw_column(j) for j in range(d)]
    tuples = coded(compact_rows.groupBy(*qi).agg(F.sum(N).alias(N)), tables, qi, [*qi, *xcols, N]).join(
        out.select(*xcols, GID), xcols, "inner")
    tuples = truncate(tuples.select(*[F.col(q).alias(raw_column(j)) for j, q in enumerate(qi)], GID, N), eager=True)
    n_tuples = tuples.count()
    counted = None
    if measures:  # the distinct QI tuples with their records and class verdicts, in a fixed order
        counted = (tuples.join(classes_df.select(GID, OK), GID, "inner").orderBy(GID, *raw)
                   .select(*[F.col(raw_column(j)).alias(q) for j, q in enumerate(qi)], GID, OK, N).toPandas())
    tuples = tuples.select(*raw, GID)
    tuples = F.broadcast(tuples) if n_tuples <= BROADCAST_TUPLES else tuples
    rows = df.select(*published_cols)
    rows = rows.join(tuples, [rows[q].eqNullSafe(tuples[raw[j]]) for j, q in enumerate(qi)], "inner").drop(*raw)
    classes_pub = classes_df.select(GID, OK, *[label_column(j) for j in range(d)])
    classes_pub = F.broadcast(classes_pub) if n_classes <= BROADCAST_CLASSES else classes_pub
    rows = rows.join(classes_pub, GID, "inner")
    if suppressed:
        rows = rows.filter(F.col(OK))
    select = []
    for f in _published_schema(df, published_cols, qi).fields:
        if f.name in qi:
            select.append(F.col(label_column(qi.index(f.name))).alias(f.name))
        elif strip and isinstance(df.schema[f.name].dataType, T.StringType):
            select.append(strip_column(F.col(f.name)).alias(f.name))
        else:
            select.append(F.col(f.name))
    return rows.select(*select), n_tuples, counted


# ---------------------------------------------------------------------------------------- driver side
def counted_release(counted: pd.DataFrame, schema: Schema, *, algorithm: str, missing: str = "value",
                    strip: bool = True) -> Release:
    """The release of the distinct quasi-identifier tuples that :func:`mondrian_on_spark` collects
    with ``measures=True`` (``facts["counted"]``), each weighted by its records: a
    :class:`~anonkit.table.Table` of the QIs alone (``schema`` the resolved one, so the encoding is
    the local engine's) and the Spark classes, the failing ones suppressed, generalized by
    :func:`~anonkit.algorithms.local.partition_release` as the local Mondrian does. Every measure of
    :mod:`anonkit.metrics` — all of them judge the QIs and the classes only — equals the local
    release's up to the order of summation (:meth:`Release.counted`). Its verdict is not the run's:
    the facts hold that."""
    from anonkit.algorithms.local import partition_release

    qi = schema.quasi
    frame = pd.DataFrame({q: pd.Series(counted[q].to_numpy(dtype=object), dtype=object) for q in qi})
    table = Table(frame, Schema({q: schema[q] for q in qi}), missing=missing, strip=strip,  # type: ignore[arg-type]
                  weights=counted[N].to_numpy(dtype=np.int64))
    gid = np.unique(counted[GID].to_numpy(dtype=np.int64), return_inverse=True)[1].reshape(-1)  # dense ids
    record_class = np.where(counted[OK].to_numpy(dtype=bool), gid, -1)
    return partition_release(table, record_class, [], algorithm=algorithm, max_suppression=1.0,
                             params={"mode": "strict"})


__all__ = [
    "BROADCAST_CLASSES",
    "BROADCAST_TUPLES",
    "FIRST",
    "GID",
    "OK",
    "PID",
    "SIZE",
    "WHOLE_TABLE_FAILS",
    "N",
    "counted_release",
    "mondrian_on_spark",
    "refuse_settings",
]
