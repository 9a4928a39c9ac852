"""Mondrian on Spark's global encoding: the whole table's values → the local kernels' codes (step 1 of
:mod:`anonkit.engines.spark_mondrian`).

Per quasi-identifier and sensitive column, the driver gets its distinct values with their counts
(aggregations of the compact table) and encodes them with a :class:`~anonkit.table.Table` of those
values, weighted by their counts: the type is inferred as the local engine infers it, the hierarchy
(or the flat one), the numeric values, the missing values' policy and the sensitive domains with the
whole table's distribution (t-closeness) are the local engine's. The kernels' geometry follows from it
(:meth:`Encoding.from_columns <anonkit.algorithms.partition.encoding.Encoding.from_columns>`); every
compact row then gets its codes by broadcast joins with small value → code tables
(:func:`code_tables`, :func:`coded`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anonkit.algorithms.partition.encoding import Encoding
from anonkit.engines._spark_compact import PREFIX, code_column, leaf_column, sensitive_column
from anonkit.schema import AttrType, Schema
from anonkit.table import Table

#: the value column of a value → code table
KEY = f"{PREFIX}key"


@dataclass
class GlobalEncoding:
    """The whole table's encoding on the driver: ``n`` records, the ``schema`` with every type
    resolved, per QI its hierarchy, whether it has a missing value (a numeric QI's largest rank) and
    whether it is a date, the kernels' ``enc``, the sensitive ``domains`` with the whole table's
    histograms (``root_hist``, 1 × domain), and per column its distinct values with their codes
    (``luts``: ``leaf`` for a QI, ``code`` for a sensitive attribute)."""

    n: int
    schema: Schema
    enc: Encoding
    hierarchies: list = field(default_factory=list)
    has_missing: list[bool] = field(default_factory=list)
    dates: list[bool] = field(default_factory=list)
    domains: dict = field(default_factory=dict)
    root_hist: dict[str, np.ndarray] = field(default_factory=dict)
    luts: dict[str, tuple[list, dict[str, np.ndarray]]] = field(default_factory=dict)


def global_encoding(distinct: dict[str, tuple[list, np.ndarray]], schema: Schema, *, missing: str,
                    strip: bool) -> GlobalEncoding:
    """The encoding of the columns whose distinct values and counts are ``distinct`` (every QI and
    sensitive column of ``schema``, in column order)."""
    qi, sensitive = schema.quasi, schema.sensitive
    attrs = dict(schema.attributes)
    hierarchies, leaf_of, numbers_of, n = [], [], [], 0
    luts: dict[str, tuple[list, dict[str, np.ndarray]]] = {}
    domains = {}
    root_hist: dict[str, np.ndarray] = {}
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
    enc = Encoding.from_columns(kinds, hierarchies, lambda j: (leaf_of[j], numbers_of[j]))
    # numeric QIs with a missing value (the largest rank) publish a class holding one as the LCA
    has_missing = [bool(kinds[j] == 0 and numbers_of[j] is not None and np.isnan(numbers_of[j]).any())
                   for j in range(len(qi))]
    return GlobalEncoding(n=n, schema=resolved, enc=enc, hierarchies=hierarchies, has_missing=has_missing,
                          dates=[resolved[q].type == AttrType.DATE for q in qi], domains=domains,
                          root_hist=root_hist, luts=luts)


def code_tables(df: Any, ge: GlobalEncoding, qi: list[str], hist_attrs: list[str]) -> dict[str, Any]:
    """The value → code table of every QI (its code, and its leaf code when it has a missing value)
    and protected sensitive attribute: small Spark frames, joined by broadcast."""
    from pyspark.sql import types as T

    spark = df.sparkSession
    frames: dict[str, Any] = {}
    for name in [*qi, *hist_attrs]:
        values, codes = ge.luts[name]
        if name in qi:
            j = qi.index(name)
            cols = {code_column(j): ge.enc.lookup[j][codes["leaf"]]}
            if ge.has_missing[j]:
                cols[leaf_column(j)] = codes["leaf"]
        else:
            cols = {sensitive_column(hist_attrs.index(name)): codes["code"]}
        lut_schema = T.StructType([T.StructField(KEY, df.schema[name].dataType, True)]
                                  + [T.StructField(c, T.IntegerType(), False) for c in cols])
        data = [(v, *(int(c[i]) for c in cols.values())) for i, v in enumerate(values)]
        frames[name] = spark.createDataFrame(data, lut_schema)
    return frames


def coded(frame: Any, tables: dict[str, Any], names: list[str], keep: list[str]) -> Any:
    """``frame`` with the codes of the columns ``names`` (left broadcast joins on the value, null-safe),
    its columns ``keep``."""
    from pyspark.sql import functions as F

    for name in names:
        lut = tables[name]
        frame = frame.join(F.broadcast(lut), frame[name].eqNullSafe(lut[KEY]), "left").drop(KEY)
    return frame.select(*keep)
