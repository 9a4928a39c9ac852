"""Mondrian on Spark's compact table: the helper columns, the aggregations of distinct values and the
lineage cuts (:mod:`anonkit.engines.spark_mondrian`).

Every column the run adds starts with :data:`PREFIX` (a data column starting with it is refused), so
it can never meet a column of the input.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: the start of every column name the run adds
PREFIX = "__ak_"
#: the partition of a compact row (top levels) / the records a compact row stands for / the class of a
#: distinct QI tuple (partition << 32 | class within it) / whether a row is its class's first / the
#: class's records / whether the class satisfies the models
PID = "__ak_pid"
N = "__ak_n"
GID = "__ak_gid"
FIRST = "__ak_first"
SIZE = "__ak_size"
OK = "__ak_ok"


def code_column(j: int) -> str:
    """QI ``j``'s code in the kernels' code matrix (rank or leaf position)."""
    return f"{PREFIX}x{j}"


def sensitive_column(a: int) -> str:
    """The ``a``-th protected sensitive attribute's code."""
    return f"{PREFIX}s{a}"


def leaf_column(j: int) -> str:
    """Numeric QI ``j``'s leaf code in its hierarchy (kept only when it has a missing value)."""
    return f"{PREFIX}h{j}"


def raw_column(j: int) -> str:
    """QI ``j``'s raw value in the table of distinct QI tuples."""
    return f"{PREFIX}r{j}"


def label_column(j: int) -> str:
    """QI ``j``'s published label of a class."""
    return f"{PREFIX}l{j}"


def compact(df: Any, keys: list[str], others: list[str]) -> tuple[Any, dict[str, tuple[list, np.ndarray]]]:
    """The distinct combinations of ``keys`` with their counts (column ``N``), materialized, and the
    distinct values of every column of ``others`` with their counts — one aggregation of the rows
    (grouping sets when there are ``others``)."""
    from pyspark.sql import functions as F

    if not others:
        return truncate(df.groupBy(*keys).agg(F.count(F.lit(1)).alias(N)), eager=True), {}
    if not hasattr(df, "groupingSets"):  # PySpark < 4: one aggregation per other column
        found = {}
        for name in others:
            rows = df.groupBy(name).count().collect()
            found[name] = ([r[0] for r in rows], np.array([int(r[1]) for r in rows], dtype=np.int64))
        return truncate(df.groupBy(*keys).agg(F.count(F.lit(1)).alias(N)), eager=True), found
    flags = [F.grouping(name).alias(f"{PREFIX}g{i}") for i, name in enumerate(others)]
    main = f"{PREFIX}main"
    agg = df.groupingSets([keys, *[[o] for o in others]], *keys, *others).agg(
        F.count(F.lit(1)).alias(N), (F.grouping(keys[0]) == 0).alias(main), *flags)
    agg = truncate(agg, eager=True)
    rest = agg.filter(~F.col(main)).select(*others, N, *[f"{PREFIX}g{i}" for i in range(len(others))]).collect()
    return agg.filter(F.col(main)).select(*keys, N), by_column(rest, others)


def distinct(df: Any, names: list[str], weight: str | None = None) -> dict[str, tuple[list, np.ndarray]]:
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
    flags = [F.grouping(name).alias(f"{PREFIX}g{i}") for i, name in enumerate(names)]
    rows = df.groupingSets([[name] for name in names], *names).agg(count.alias(f"{PREFIX}n"), *flags).collect()
    return by_column(rows, names)


def by_column(rows: list, names: list[str]) -> dict[str, tuple[list, np.ndarray]]:
    """The rows of a grouping-sets aggregation by one column at a time (``*names, count, *grouping
    flags``) as every column's distinct values with their counts."""
    k = len(names)
    found: dict[str, tuple[list, list]] = {name: ([], []) for name in names}
    for r in rows:
        i = next(i for i in range(k) if r[k + 1 + i] == 0)  # the one column this row groups by
        found[names[i]][0].append(r[i])
        found[names[i]][1].append(int(r[k]))
    return {name: (v, np.array(c, dtype=np.int64)) for name, (v, c) in found.items()}


def truncate(df: Any, *, eager: bool) -> Any:
    """``df`` with its lineage cut (so plans stay small from level to level): a reliable checkpoint
    when the Spark context has a checkpoint directory, else a local one (executor storage)."""
    if df.sparkSession.sparkContext.getCheckpointDir():
        return df.checkpoint(eager=eager)
    return df.localCheckpoint(eager=eager)
