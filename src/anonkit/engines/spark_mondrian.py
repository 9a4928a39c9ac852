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
   from it (``_Encoded.from_columns``): numeric: rank among the table's distinct values, a missing value
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
   its count and runs the single-machine loop (:func:`~anonkit.algorithms.partition.mondrian.cut`,
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
from anonkit.algorithms.partition.mondrian import _children_pass, _Encoded, _kernels, cut
from anonkit.engines import DEFAULT_PARTITION_ROWS
from anonkit.engines.spark import strip_column
from anonkit.errors import InputError
from anonkit.hierarchy import class_lca
from anonkit.models import Criterion
from anonkit.release import Release, _date, _number
from anonkit.schema import AttrType, Schema
from anonkit.stats import ClassStats
from anonkit.table import Table

PID = "__ak_pid"
N = "__ak_n"
GID = "__ak_gid"
FIRST = "__ak_first"
SIZE = "__ak_size"
OK = "__ak_ok"
#: the published rows find their class by a broadcast join when there are at most this many distinct
#: QI tuples (their values and class id) / classes (their labels); else by a shuffle join
BROADCAST_TUPLES = 2_000_000
BROADCAST_CLASSES = 500_000
_PREFIX = "__ak_"
WHOLE_TABLE_FAILS = "the models cannot be met: the whole table fails them, so nothing can be released"


def _x(j: int) -> str:
    return f"{_PREFIX}x{j}"


def _s(a: int) -> str:
    return f"{_PREFIX}s{a}"


def _h(j: int) -> str:
    return f"{_PREFIX}h{j}"


def _r(j: int) -> str:
    return f"{_PREFIX}r{j}"


def _l(j: int) -> str:
    return f"{_PREFIX}l{j}"


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
        if getattr(m, "record_level", False):
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
    from pyspark.sql import types as T

    started = time.perf_counter()
    spark = df.sparkSession
    models = list(models)
    refuse_settings(models, partition_rows=partition_rows, max_suppression=max_suppression, mode=mode,
                    missing=missing)
    columns = [str(c) for c in df.columns]
    if len(set(columns)) < len(columns):
        raise InputError("duplicate column", column=next(c for c in columns if columns.count(c) > 1))
    clash = [c for c in columns if c.startswith(_PREFIX)]
    if clash:
        raise InputError(f"column names starting with {_PREFIX} are reserved by the Spark engine", column=clash[0])
    schema = schema.in_column_order(columns)
    if schema.person is not None:
        raise InputError("a person column is not distributed by Mondrian on Spark; use engine: local",
                         column=schema.person)
    qi, sensitive = schema.quasi, schema.sensitive
    if not qi:
        raise InputError("Mondrian needs at least one quasi-identifier")
    d = len(qi)
    hist_attrs = sorted({m.attribute for m in models if m.attribute is not None})
    unknown = [a for a in hist_attrs if a not in sensitive]
    if unknown:
        raise InputError("a model protects an attribute that is not sensitive", column=unknown[0])
    published_cols = [c for c in columns if c not in schema.identifiers]

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

    attrs = dict(schema.attributes)
    hierarchies, leaf_of, numbers_of, n = [], [], [], 0
    luts: dict[str, tuple[list, dict[str, np.ndarray]]] = {}
    domains = {}
    root_hist: dict[str, np.ndarray] = {}
    keys = [*qi, *hist_attrs]
    compact, distinct = _compact(df, keys, [s for s in sensitive if s not in hist_attrs])
    step("compact")
    distinct.update(_distinct(compact, keys, weight=N))
    step("distinct")
    for name in [*qi, *sensitive]:
        values, counts = distinct[name]
        n = int(counts.sum())
        one = Table(pd.DataFrame({name: pd.Series(values, dtype=object)}), Schema({name: schema[name]}),
                    missing=missing, strip=strip, weights=counts)  # type: ignore[arg-type]
        attrs[name] = one.schema[name]
        if name in qi:
            hierarchies.append(one.hierarchies[0])
            leaf_of.append(one.codes[:, 0].copy())
            numbers_of.append(one.numeric.get(name))
            luts[name] = (values, {"leaf": one.codes[:, 0].astype(np.int64)})
        else:
            domains[name] = one.domains[name]
            luts[name] = (values, {"code": one.sensitive_codes[name].astype(np.int64)})
            root_hist[name] = np.bincount(one.sensitive_codes[name], weights=counts,
                                          minlength=one.domains[name].size)[None, :].astype(float)
    resolved = Schema(attrs, schema.default_role)
    kinds = np.array([0 if resolved[q].type in (AttrType.NUMERIC, AttrType.DATE) else 1 for q in qi], dtype=np.int64)
    enc = _Encoded.from_columns(kinds, hierarchies, lambda j: (leaf_of[j], numbers_of[j]))
    # numeric QIs with a missing value (the largest rank) publish a class holding one as the LCA
    has_missing = [bool(kinds[j] == 0 and numbers_of[j] is not None and np.isnan(numbers_of[j]).any())
                   for j in range(d)]
    kmin = max([int(m.minimum_class_size()) for m in models] + [1])

    facts: dict[str, Any] = {"records": n, "top_levels": 0, "schema": resolved, "steps": steps}
    out_fields = []
    for f in df.schema.fields:
        if f.name in published_cols:
            out_fields.append(T.StructField(f.name, T.StringType() if f.name in qi else f.dataType, True))
    out_schema = T.StructType(out_fields)

    def nothing(message: str) -> tuple[Any, dict[str, Any]]:
        facts.update(partitions=1, classes=0, released=0, suppressed=n, groups=0, largest_group=0, class_sizes={},
                     satisfied=False, message=message, seconds=time.perf_counter() - started)
        return spark.createDataFrame([], out_schema), facts

    root = ClassStats(np.array([float(n)]), {a: root_hist[a] for a in hist_attrs}, domains)
    if n < kmin or not all(bool(m.passes(root)[0]) for m in models):
        return nothing(WHOLE_TABLE_FAILS)

    # the value → code tables (small, broadcast); the compact table's codes by joins with them
    lut_frames: dict[str, Any] = {}
    key = f"{_PREFIX}key"
    for name in [*qi, *hist_attrs]:
        values, codes = luts[name]
        if name in qi:
            j = qi.index(name)
            cols = {_x(j): enc.lookup[j][codes["leaf"]]}
            if has_missing[j]:
                cols[_h(j)] = codes["leaf"]
        else:
            cols = {_s(hist_attrs.index(name)): codes["code"]}
        lut_schema = T.StructType([T.StructField(key, df.schema[name].dataType, True)]
                                  + [T.StructField(c, T.IntegerType(), False) for c in cols])
        data = [(v, *(int(c[i]) for c in cols.values())) for i, v in enumerate(values)]
        lut_frames[name] = spark.createDataFrame(data, lut_schema)

    def coded(frame: Any, names: list[str], keep: list[str]) -> Any:
        for name in names:
            lut = lut_frames[name]
            frame = frame.join(F.broadcast(lut), frame[name].eqNullSafe(lut[key]), "left").drop(key)
        return frame.select(*keep)

    code_cols = [_x(j) for j in range(d)] + [_h(j) for j in range(d) if has_missing[j]]
    code_cols += [_s(a) for a in range(len(hist_attrs))]
    cur = _truncate(coded(compact, keys, [*code_cols, N]).withColumn(PID, F.lit(0).cast("long")), eager=True)
    step("codes")

    # ------------------------------------------------------------ 2. the top levels on Spark
    final_pids: set[int] = set()
    active = [0] if n > partition_rows else []
    leaving: dict[int, int] = {} if active else {0: n}  # the partitions handed to the local loop: rows
    next_pid = 1
    depth = 0
    code_of = (lambda col: F.coalesce(*[F.when(col == j, F.col(_x(j))) for j in range(d)]))  # noqa: E731
    while active:
        stat = (cur.filter(F.col(PID).isin(active)).groupBy(PID)
                .agg(F.sum(N).alias("n"),
                     *[F.min(_x(j)).alias(f"lo{j}") for j in range(d)],
                     *[F.max(_x(j)).alias(f"hi{j}") for j in range(d)])
                .toPandas().sort_values(PID))
        pids = stat[PID].to_numpy(dtype=np.int64)
        sizes = stat["n"].to_numpy(dtype=np.int64)
        lo = np.stack([stat[f"lo{j}"].to_numpy(dtype=np.int64) for j in range(d)], axis=1)
        hi = np.stack([stat[f"hi{j}"].to_numpy(dtype=np.int64) for j in range(d)], axis=1)
        A, B = _state(enc, lo, hi)
        small = sizes < 2 * kmin
        final_pids.update(int(p) for p in pids[small])
        leaving.update((int(p), int(z)) for p, z in zip(pids[small], sizes[small], strict=True))
        big = np.flatnonzero(~small)
        pids, sizes, A, B = pids[big], sizes[big], A[big], B[big]
        W = enc.widths(A, B)
        cuts: dict[int, tuple[int, list[tuple[int, int]], np.ndarray]] = {}
        pend = np.arange(len(pids))
        for _ in range(d):
            if not len(pend):
                break
            cols = np.argmax(W[pend], axis=1)
            keep = W[pend, cols] > 0
            pend, cols = pend[keep], cols[keep]
            if not len(pend):
                break
            choice = spark.createDataFrame([(int(pids[p]), int(c)) for p, c in zip(pend, cols, strict=True)],
                                           f"{_PREFIX}cpid long, {_PREFIX}ccol int")
            sel = cur.join(F.broadcast(choice), F.col(PID) == F.col(f"{_PREFIX}cpid"))
            code = code_of(F.col(f"{_PREFIX}ccol")).alias("code")
            if hist_attrs:
                pairs = F.explode(F.array(*[F.struct(F.lit(a).alias("a"), F.col(_s(a)).alias("s"))
                                            for a in range(len(hist_attrs))])).alias("e")
                hist = (sel.select(PID, code, N, pairs).select(PID, "code", N, "e.a", "e.s")
                        .groupBy(PID, "code", "a", "s").agg(F.sum(N).alias("count")))
            else:
                hist = sel.groupBy(PID, code).agg(F.sum(N).alias("count"))
            hist = hist.toPandas()
            proposals = _propose(enc, hist, pids[pend], cols, sizes[pend], A[pend], hist_attrs, domains)
            nchild = np.array([len(p[2]) for p in proposals], dtype=np.int64)
            cmin = np.array([p[2].min() for p in proposals], dtype=np.int64)
            ok = (nchild >= 2) & (cmin >= kmin)
            sel_ok = np.flatnonzero(ok)
            if len(sel_ok) and models:
                kid_sizes = np.concatenate([proposals[i][2] for i in sel_ok]).astype(np.float64)
                kid_hist = {a: np.concatenate([proposals[i][3][a] for i in sel_ok]) for a in hist_attrs}
                stats = ClassStats(kid_sizes, kid_hist, domains)
                good = np.ones(len(kid_sizes), dtype=bool)
                for m in models:
                    good &= m.passes(stats)
                starts = np.concatenate([[0], np.cumsum(nchild[sel_ok])[:-1]])
                ok[sel_ok] = np.logical_and.reduceat(good, starts)
            for i in np.flatnonzero(ok):
                cuts[int(pend[i])] = (int(cols[i]), proposals[i][1], proposals[i][2])
            W[pend[~ok], cols[~ok]] = -1.0
            pend = pend[~ok]
        final_pids.update(int(pids[i]) for i in range(len(pids)) if i not in cuts)
        leaving.update((int(pids[i]), int(sizes[i])) for i in range(len(pids)) if i not in cuts)
        if not cuts:
            break
        depth += 1
        assign, active = [], []
        for i, (col, ranges, kid_sizes) in sorted(cuts.items()):
            for (a, b), size in zip(ranges, kid_sizes, strict=True):
                assign.append((int(pids[i]), col, a, b, next_pid))
                if size > partition_rows:
                    active.append(next_pid)
                else:
                    leaving[next_pid] = int(size)
                next_pid += 1
        table = spark.createDataFrame(assign, f"{_PREFIX}apid long, {_PREFIX}acol int, {_PREFIX}alo int, "
                                      f"{_PREFIX}ahi int, {_PREFIX}anew long")
        code = code_of(F.col(f"{_PREFIX}acol"))
        cond = ((F.col(PID) == F.col(f"{_PREFIX}apid")) & (code >= F.col(f"{_PREFIX}alo"))
                & (code <= F.col(f"{_PREFIX}ahi")))
        keep_cols = [c for c in cur.columns if c != PID]
        cur = _truncate(cur.join(F.broadcast(table), cond, "left")
                        .select(*keep_cols, F.coalesce(F.col(f"{_PREFIX}anew"), F.col(PID)).alias(PID)), eager=True)
        step(f"level {depth}")
    facts["top_levels"] = depth

    # ------------------------------------------------------------ 3. the bottom levels per partition
    ctx = SimpleNamespace(
        enc=enc, d=d, qi=qi, kinds=kinds, hierarchies=hierarchies, hist_attrs=hist_attrs, models=models,
        domains=domains, kmin=kmin, final=frozenset(final_pids), has_missing=has_missing,
        dates=[resolved[q].type == AttrType.DATE for q in qi],
    )
    fields = ([T.StructField(_x(j), T.IntegerType(), False) for j in range(d)]
              + [T.StructField(GID, T.LongType(), False), T.StructField(FIRST, T.BooleanType(), False),
                 T.StructField(OK, T.BooleanType(), False), T.StructField(SIZE, T.LongType(), False)]
              + [T.StructField(_l(j), T.StringType(), True) for j in range(d)])
    # one row per distinct QI code tuple: its class (gid), and on the class's first row its verdict,
    # size and published labels
    out = _truncate(cur.groupBy(PID).applyInPandas(lambda pdf: _local(pdf, ctx), T.StructType(fields)),
                    eager=True)
    step("local loops")
    classes_df = out.filter(F.col(FIRST)).select(GID, OK, SIZE, *[_l(j) for j in range(d)])
    sizes_hist = classes_df.groupBy(OK, SIZE).count().collect()
    released = sum(int(r[1]) * int(r[2]) for r in sizes_hist if r[0])
    suppressed = sum(int(r[1]) * int(r[2]) for r in sizes_hist if not r[0])
    n_classes = sum(int(r[2]) for r in sizes_hist)
    # classes that publish identical values are one class of the release (partition_release merges them)
    labels = [_l(j) for j in range(d)]
    classes = classes_df.filter(F.col(OK)).select(*labels).distinct().count() if released else 0
    step("facts")

    # ------------------------------------------------------------ 4. the published rows (lazy)
    # every distinct raw QI tuple's class (from the compact table: small), then the rows' class by
    # one join on their raw QI values, their labels by one join on the class
    xcols = [_x(j) for j in range(d)]
    raw = [_r(j) for j in range(d)]
    tuples = coded(compact.groupBy(*qi).agg(F.sum(N).alias(N)), qi, [*qi, *xcols, N]).join(
        out.select(*xcols, GID), xcols, "inner")
    tuples = _truncate(tuples.select(*[F.col(q).alias(_r(j)) for j, q in enumerate(qi)], GID, N), eager=True)
    n_tuples = tuples.count()
    counted = None
    if measures:  # the distinct QI tuples with their records and class verdicts, in a fixed order
        counted = (tuples.join(classes_df.select(GID, OK), GID, "inner").orderBy(GID, *raw)
                   .select(*[F.col(_r(j)).alias(q) for j, q in enumerate(qi)], GID, OK, N).toPandas())
    tuples = tuples.select(*raw, GID)
    tuples = F.broadcast(tuples) if n_tuples <= BROADCAST_TUPLES else tuples
    rows = df.select(*published_cols)
    rows = rows.join(tuples, [rows[q].eqNullSafe(tuples[raw[j]]) for j, q in enumerate(qi)], "inner").drop(*raw)
    classes_pub = classes_df.select(GID, OK, *labels)
    classes_pub = F.broadcast(classes_pub) if n_classes <= BROADCAST_CLASSES else classes_pub
    rows = rows.join(classes_pub, GID, "inner")
    if suppressed:
        rows = rows.filter(F.col(OK))
    select = []
    for f in out_fields:
        if f.name in qi:
            select.append(F.col(_l(qi.index(f.name))).alias(f.name))
        elif strip and isinstance(df.schema[f.name].dataType, T.StringType):
            select.append(strip_column(F.col(f.name)).alias(f.name))
        else:
            select.append(F.col(f.name))
    published = rows.select(*select)
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


def _compact(df: Any, keys: list[str], others: list[str]) -> tuple[Any, dict[str, tuple[list, np.ndarray]]]:
    """The distinct combinations of ``keys`` with their counts (column ``N``), materialized, and the
    distinct values of every column of ``others`` with their counts — one aggregation of the rows
    (grouping sets when there are ``others``)."""
    from pyspark.sql import functions as F

    if not others:
        return _truncate(df.groupBy(*keys).agg(F.count(F.lit(1)).alias(N)), eager=True), {}
    if not hasattr(df, "groupingSets"):  # PySpark < 4: one aggregation per other column
        found = {}
        for name in others:
            rows = df.groupBy(name).count().collect()
            found[name] = ([r[0] for r in rows], np.array([int(r[1]) for r in rows], dtype=np.int64))
        return _truncate(df.groupBy(*keys).agg(F.count(F.lit(1)).alias(N)), eager=True), found
    flags = [F.grouping(name).alias(f"{_PREFIX}g{i}") for i, name in enumerate(others)]
    main = f"{_PREFIX}main"
    agg = df.groupingSets([keys, *[[o] for o in others]], *keys, *others).agg(
        F.count(F.lit(1)).alias(N), (F.grouping(keys[0]) == 0).alias(main), *flags)
    agg = _truncate(agg, eager=True)
    rest = agg.filter(~F.col(main)).select(*others, N, *[f"{_PREFIX}g{i}" for i in range(len(others))]).collect()
    return agg.filter(F.col(main)).select(*keys, N), _by_column(rest, others)


def _distinct(df: Any, names: list[str], weight: str | None = None) -> dict[str, tuple[list, np.ndarray]]:
    """Every column's distinct values (as Spark gives them: ``None`` for null) with their counts (the
    sum of column ``weight`` when given), in one aggregation (grouping sets)."""
    from pyspark.sql import functions as F

    count = F.count(F.lit(1)) if weight is None else F.sum(weight)
    if not hasattr(df, "groupingSets"):  # PySpark < 4: one aggregation per column
        out = {}
        for name in names:
            rows = df.groupBy(name).agg(count).collect()
            out[name] = ([r[0] for r in rows], np.array([int(r[1]) for r in rows], dtype=np.int64))
        return out
    flags = [F.grouping(name).alias(f"{_PREFIX}g{i}") for i, name in enumerate(names)]
    rows = df.groupingSets([[name] for name in names], *names).agg(count.alias(f"{_PREFIX}n"), *flags).collect()
    return _by_column(rows, names)


def _by_column(rows: list, names: list[str]) -> dict[str, tuple[list, np.ndarray]]:
    """The rows of a grouping-sets aggregation by one column at a time (``*names, count, *grouping
    flags``) as every column's distinct values with their counts."""
    k = len(names)
    found: dict[str, tuple[list, list]] = {name: ([], []) for name in names}
    for r in rows:
        i = next(i for i in range(k) if r[k + 1 + i] == 0)  # the one column this row groups by
        found[names[i]][0].append(r[i])
        found[names[i]][1].append(int(r[k]))
    return {name: (v, np.array(c, dtype=np.int64)) for name, (v, c) in found.items()}




def _truncate(df: Any, *, eager: bool) -> Any:
    """``df`` with its lineage cut (so plans stay small from level to level): a reliable checkpoint
    when the Spark context has a checkpoint directory, else a local one (executor storage)."""
    if df.sparkSession.sparkContext.getCheckpointDir():
        return df.checkpoint(eager=eager)
    return df.localCheckpoint(eager=eager)


def _state(enc: _Encoded, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The kernels' partition state from the lowest and highest code of every QI (as ``_apply_py``):
    numeric: the ranks; categorical: level and node of the lowest common ancestor of the first and
    the last leaf (in the hierarchy with its virtual root)."""
    A, B = lo.copy(), hi.copy()
    for j in np.flatnonzero(enc.kinds == 1):
        M = _levels(enc, j)
        a, b = M[:, lo[:, j]], M[:, hi[:, j]]
        lv = np.argmax(a == b, axis=0)  # the virtual root always meets
        A[:, j] = lv
        B[:, j] = M[lv, lo[:, j]]
    return A, B


def _levels(enc: _Encoded, j: int) -> np.ndarray:
    """QI ``j``'s lookup ``(levels × leaves)``: the node of every leaf position on every level."""
    nl = int(enc.leaves[j])
    levels = len(enc.nodes[j])
    return enc.maps[enc.offsets[j]: enc.offsets[j] + levels * nl].reshape(levels, nl)


def _propose(enc: _Encoded, hist: pd.DataFrame, pids: np.ndarray, cols: np.ndarray, sizes: np.ndarray,
             A: np.ndarray, hist_attrs: list[str], domains: dict) -> list[tuple]:
    """The cut of every partition ``pids[i]`` on QI ``cols[i]`` by the local rules (``_propose_py``),
    from its histogram of codes (with the sensitive codes): per partition ``(codes, ranges, child
    sizes, child histograms)``, ``ranges`` the code range ``(lo, hi)`` of every child."""
    out = []
    hist = hist.sort_values([PID, "code"], kind="stable")
    groups = dict(tuple(hist.groupby(PID, sort=False)))
    for i, pid in enumerate(pids):
        g = groups[int(pid)]
        j = int(cols[i])
        if hist_attrs:
            first = g[g["a"] == 0]
            per_code = first.groupby("code", sort=True)["count"].sum()
        else:
            per_code = g.set_index("code")["count"]
        codes = per_code.index.to_numpy(dtype=np.int64)
        counts = per_code.to_numpy(dtype=np.int64)
        size = int(sizes[i])
        assert counts.sum() == size
        if enc.kinds[j] == 0:
            m = size // 2
            t = int(np.searchsorted(np.cumsum(counts), m, side="left"))  # the m-th smallest rank (1-based)
            median = int(codes[t])
            child = (codes > median).astype(np.int64)
        else:
            node = _levels(enc, j)[int(A[i, j]) - 1, codes]
            kids = np.unique(node)  # sorted, as the kernel orders children
            child = np.searchsorted(kids, node)
        nkids = int(child.max()) + 1
        csize = np.bincount(child, weights=counts, minlength=nkids).astype(np.int64)
        present = csize > 0  # a numeric cut with everything on the left has one child
        remap = np.cumsum(present) - 1
        child = remap[child]
        csize = csize[present]
        nkids = len(csize)
        ranges = []
        for r in range(nkids):
            sel = codes[child == r]
            ranges.append((int(sel.min()), int(sel.max())))
        kid_hist = {}
        for a, name in enumerate(hist_attrs):
            rows = g[g["a"] == a]
            rchild = child[np.searchsorted(codes, rows["code"].to_numpy(dtype=np.int64))]
            h = np.zeros((nkids, domains[name].size))
            np.add.at(h, (rchild, rows["s"].to_numpy(dtype=np.int64)), rows["count"].to_numpy(dtype=np.float64))
            kid_hist[name] = h
        out.append((codes, ranges, csize, kid_hist))
    return out


# ---------------------------------------------------------------------------------------- executors
def _local(pdf: pd.DataFrame, ctx: SimpleNamespace) -> pd.DataFrame:
    """One partition's compact rows (distinct code combinations with their counts) → one row per
    distinct QI code tuple with its class: the single-machine Mondrian loop on the partition's
    records (the compact rows repeated by their counts) with the global encoding, the classes judged
    as ``partition_release`` judges them, and on each class's first row its verdict, size and
    labels (every QI published as the local release does)."""
    enc, d = ctx.enc, ctx.d
    m = len(pdf)
    pid = int(pdf[PID].iloc[0])
    hist_attrs = ctx.hist_attrs
    weight = pdf[N].to_numpy(dtype=np.int64)
    codes = np.empty((d + len(hist_attrs), m), dtype=np.int32)
    for j in range(d):
        codes[j] = pdf[_x(j)].to_numpy(dtype=np.int32)
    for a in range(len(hist_attrs)):
        codes[d + a] = pdf[_s(a)].to_numpy(dtype=np.int32)
    row_class = np.zeros(m, dtype=np.int64)
    if pid in ctx.final:
        n_final = 1
    else:
        K = _kernels()
        holder = SimpleNamespace(domains=ctx.domains)

        def accept(X, ps, pe, coff, nchild, csize, lab):
            if not ctx.models:
                return np.ones(len(ps), dtype=bool)
            return _children_pass(K, X, d, hist_attrs, holder, ctx.models, ps, pe, coff, nchild, csize, lab)

        rows = np.repeat(np.arange(m), weight)  # the records
        record_class = np.zeros(len(rows), dtype=np.int64)
        n_final = cut(enc, codes[:, rows], np.arange(len(rows), dtype=np.int64), ctx.kmin, accept, record_class)
        first = np.cumsum(weight) - weight
        row_class = record_class[first]
        if not np.array_equal(np.maximum.reduceat(record_class, first), np.minimum.reduceat(record_class, first)):
            raise RuntimeError("Mondrian split records with equal codes")  # strict cuts never do
        del rows, record_class
    # the classes judged as partition_release judges them
    sizes = np.bincount(row_class, weights=weight, minlength=n_final)
    hist = {}
    for a, name in enumerate(hist_attrs):
        S = ctx.domains[name].size
        hist[name] = np.bincount(row_class * S + codes[d + a], weights=weight, minlength=n_final * S)
        hist[name] = hist[name].reshape(n_final, S).astype(np.float64)
    ok = sizes > 0
    stats = ClassStats(sizes.astype(np.float64), hist, ctx.domains)
    for model in ctx.models:
        ok &= model.passes(stats)
    # per class the lowest and highest code of every QI (multiplicity plays no part)
    order = np.argsort(row_class, kind="stable")
    starts = np.concatenate([[0], np.cumsum(np.bincount(row_class, minlength=n_final))[:-1]])
    labels_of = []
    for j, name in enumerate(ctx.qi):
        x = codes[j][order]
        lo = np.minimum.reduceat(x, starts).astype(np.int64)
        hi = np.maximum.reduceat(x, starts).astype(np.int64)
        h = ctx.hierarchies[j]
        labels = np.empty(n_final, dtype=object)
        if enc.kinds[j] == 0:
            vals = enc.values[j]
            fmt = _date if ctx.dates[j] else _number
            miss = np.zeros(n_final, dtype=bool)
            if ctx.has_missing[j]:
                miss = hi == len(vals) - 1
                lv, nd = class_lca(h, pdf[_h(j)].to_numpy(dtype=np.int64), row_class, n_final, column=name)
                for c in np.flatnonzero(miss):
                    labels[c] = h.labels[lv[c]][nd[c]]
            for c in np.flatnonzero(~miss):
                a, b = vals[lo[c]], vals[hi[c]]
                labels[c] = fmt(a) if a == b else f"[{fmt(a)}-{fmt(b)}]"
        else:
            leaf = np.empty(len(enc.lookup[j]), dtype=np.int64)
            leaf[enc.lookup[j]] = np.arange(len(enc.lookup[j]))
            lv, nd = class_lca(h, leaf[codes[j]], row_class, n_final, column=name)
            for level in np.unique(lv):
                sel = lv == level
                labels[sel] = h.labels[level][nd[sel]]
        labels_of.append(labels)
    # one row per distinct QI code tuple (compact rows differ also by sensitive and missing codes)
    result = pd.DataFrame({_x(j): codes[j] for j in range(d)})
    result[GID] = (np.int64(pid) << np.int64(32)) + row_class
    result = result.drop_duplicates(subset=[_x(j) for j in range(d)], ignore_index=True)
    cls = (result[GID].to_numpy(dtype=np.int64) & np.int64(0xFFFFFFFF)).astype(np.int64)
    first = ~pd.Series(cls).duplicated().to_numpy()
    result[FIRST] = first
    result[OK] = ok[cls]
    result[SIZE] = sizes[cls].astype(np.int64)
    for j in range(d):
        col = np.full(len(result), None, dtype=object)
        col[first] = labels_of[j][cls[first]]
        result[_l(j)] = col
    return result
