"""Mondrian on Spark's bottom levels: one partition of the compact table finished on one executor
(step 3 of :mod:`anonkit.engines.spark_mondrian`).

:func:`local_classes` runs inside ``applyInPandas``: the single-machine loop
(:func:`anonkit.algorithms.partition.core.cut`, with the models'
:func:`~anonkit.algorithms.partition.core.model_accept`) on the partition's records with the global
encoding, then judges the final classes as ``partition_release`` judges them
(:func:`~anonkit.algorithms.partition.core.classes_pass`) and labels them as the local release does
(numeric bounds by :func:`anonkit.release.bounds_label`, hierarchy nodes by their lowest common
ancestor).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from anonkit.algorithms.partition.core import classes_pass, cut, model_accept
from anonkit.engines._spark_compact import (
    FIRST,
    GID,
    OK,
    PID,
    SIZE,
    N,
    code_column,
    label_column,
    leaf_column,
    sensitive_column,
)
from anonkit.hierarchy import class_lca
from anonkit.release import bounds_label
from anonkit.stats import class_stats_for


def local_classes(pdf: pd.DataFrame, ctx: SimpleNamespace) -> pd.DataFrame:
    """One partition's compact rows (distinct code combinations with their counts) → one row per
    distinct QI code tuple with its class: the single-machine Mondrian loop on the partition's
    records (the compact rows repeated by their counts) with the global encoding, the classes judged
    as ``partition_release`` judges them, and on each class's first row its verdict, size and
    labels (every QI published as the local release does).

    ``ctx``: ``enc`` (the global :class:`~anonkit.algorithms.partition.encoding.Encoding`), ``d``,
    ``qi``, ``hierarchies``, ``hist_attrs``, ``models``, ``domains``, ``kmin``, ``final`` (the
    partitions the top levels found final: one class each, no loop), ``has_missing`` and ``dates``
    (per QI)."""
    d, hist_attrs = ctx.d, ctx.hist_attrs
    pid = int(pdf[PID].iloc[0])
    weight = pdf[N].to_numpy(dtype=np.int64)
    codes = np.empty((d + len(hist_attrs), len(pdf)), dtype=np.int32)
    for j in range(d):
        codes[j] = pdf[code_column(j)].to_numpy(dtype=np.int32)
    for a in range(len(hist_attrs)):
        codes[d + a] = pdf[sensitive_column(a)].to_numpy(dtype=np.int32)
    if pid in ctx.final:
        row_class, n_final = np.zeros(len(pdf), dtype=np.int64), 1
    else:
        row_class, n_final = _loop(codes, weight, ctx)
    sizes, ok = _verdicts(codes, weight, row_class, n_final, ctx)
    labels_of = _labels(pdf, codes, row_class, n_final, ctx)
    return _tuples(codes, pid, row_class, sizes, ok, labels_of, d)


def _loop(codes: np.ndarray, weight: np.ndarray, ctx: SimpleNamespace) -> tuple[np.ndarray, int]:
    """Mondrian's loop on the records (every compact row repeated by its count): the class of every
    compact row (strict cuts never split equal codes) and the number of final partitions."""
    accept = model_accept(ctx.d, ctx.hist_attrs, ctx.domains, ctx.models)
    rows = np.repeat(np.arange(len(weight)), weight)  # the records
    record_class = np.zeros(len(rows), dtype=np.int64)
    n_final = cut(ctx.enc, codes[:, rows], np.arange(len(rows), dtype=np.int64), ctx.kmin, accept, record_class)
    first = np.cumsum(weight) - weight
    row_class = record_class[first]
    if not np.array_equal(np.maximum.reduceat(record_class, first), np.minimum.reduceat(record_class, first)):
        raise RuntimeError("Mondrian split records with equal codes")  # strict cuts never do
    return row_class, n_final


def _verdicts(codes: np.ndarray, weight: np.ndarray, row_class: np.ndarray, n_final: int,
              ctx: SimpleNamespace) -> tuple[np.ndarray, np.ndarray]:
    """Every class's records and whether it satisfies every model (as ``partition_release`` judges)."""
    stats = class_stats_for(ctx.models, row_class, n_final, weights=weight, domains=ctx.domains,
                            sensitive={name: (None, codes[ctx.d + a], weight) for a, name in enumerate(ctx.hist_attrs)})
    ok = (stats.sizes > 0) & classes_pass(stats, ctx.models)
    return stats.sizes, ok


def _labels(pdf: pd.DataFrame, codes: np.ndarray, row_class: np.ndarray, n_final: int,
            ctx: SimpleNamespace) -> list[np.ndarray]:
    """Every QI's published label of every class, from its lowest and highest code (multiplicity
    plays no part): numeric bounds as the local release prints them (a class holding a missing value:
    the hierarchy's lowest common ancestor), a categorical QI's lowest common ancestor."""
    order = np.argsort(row_class, kind="stable")
    starts = np.concatenate([[0], np.cumsum(np.bincount(row_class, minlength=n_final))[:-1]])
    enc = ctx.enc
    labels_of = []
    for j, name in enumerate(ctx.qi):
        h = ctx.hierarchies[j]
        labels = np.empty(n_final, dtype=object)
        if enc.kinds[j] == 0:
            x = codes[j][order]
            lo = np.minimum.reduceat(x, starts).astype(np.int64)
            hi = np.maximum.reduceat(x, starts).astype(np.int64)
            vals = enc.values[j]
            miss = np.zeros(n_final, dtype=bool)
            if ctx.has_missing[j]:
                miss = hi == len(vals) - 1
                lv, nd = class_lca(h, pdf[leaf_column(j)].to_numpy(dtype=np.int64), row_class, n_final, column=name)
                for c in np.flatnonzero(miss):
                    labels[c] = h.labels[lv[c]][nd[c]]
            for c in np.flatnonzero(~miss):
                labels[c] = bounds_label(vals[lo[c]], vals[hi[c]], date=ctx.dates[j])
        else:
            leaf = np.empty(len(enc.lookup[j]), dtype=np.int64)
            leaf[enc.lookup[j]] = np.arange(len(enc.lookup[j]))
            lv, nd = class_lca(h, leaf[codes[j]], row_class, n_final, column=name)
            for level in np.unique(lv):
                sel = lv == level
                labels[sel] = h.labels[level][nd[sel]]
        labels_of.append(labels)
    return labels_of


def _tuples(codes: np.ndarray, pid: int, row_class: np.ndarray, sizes: np.ndarray, ok: np.ndarray,
            labels_of: list[np.ndarray], d: int) -> pd.DataFrame:
    """One row per distinct QI code tuple (compact rows differ also by sensitive and missing codes)
    with its class, and on the class's first row its verdict, size and labels."""
    result = pd.DataFrame({code_column(j): codes[j] for j in range(d)})
    result[GID] = (np.int64(pid) << np.int64(32)) + row_class
    result = result.drop_duplicates(subset=[code_column(j) for j in range(d)], ignore_index=True)
    cls = (result[GID].to_numpy(dtype=np.int64) & np.int64(0xFFFFFFFF)).astype(np.int64)
    first = ~pd.Series(cls).duplicated().to_numpy()
    result[FIRST] = first
    result[OK] = ok[cls]
    result[SIZE] = sizes[cls].astype(np.int64)
    for j in range(d):
        col = np.full(len(result), None, dtype=object)
        col[first] = labels_of[j][cls[first]]
        result[label_column(j)] = col
    return result
