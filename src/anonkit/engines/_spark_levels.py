"""Mondrian on Spark's top levels: the partitions of more than ``partition_rows`` records cut on Spark,
breadth first (step 2 of :mod:`anonkit.engines.spark_mondrian`).

Per depth, one ``groupBy(partition)`` gives every active partition's state (size, lowest and highest
code of every QI → :meth:`Encoding.state <anonkit.algorithms.partition.encoding.Encoding.state>`);
the driver tries the QIs by Mondrian's cut choice
(:func:`~anonkit.algorithms.partition.core.choose_cuts` over :meth:`Encoding.widths
<anonkit.algorithms.partition.encoding.Encoding.widths>`, the same floats as the local loop); each
attempt round is one aggregation of every partition's histogram of its chosen QI's codes (with the
sensitive codes), cut by :func:`~anonkit.algorithms.partition.core.histogram_cut` and judged by
:func:`~anonkit.algorithms.partition.core.allowable` and
:func:`~anonkit.algorithms.partition.core.cuts_pass`; a small broadcast table ``(partition, code
range) → child`` then assigns the children.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from anonkit.algorithms.partition.core import allowable, choose_cuts, cuts_pass, histogram_cut, uncuttable
from anonkit.algorithms.partition.encoding import Encoding
from anonkit.engines._spark_compact import PID, PREFIX, N, code_column, sensitive_column, truncate
from anonkit.models import Criterion

#: an allowed cut of a partition: its QI, every child's code range and records
Cut = tuple[int, list[tuple[int, int]], np.ndarray]


def top_levels(cur: Any, enc: Encoding, models: list[Criterion], hist_attrs: list[str], domains: dict, *,
               n: int, kmin: int, partition_rows: int, step: Callable[[str], None]) -> tuple[Any, set[int],
                                                                                            dict[int, int], int]:
    """Cut the compact rows ``cur`` (codes, counts, partition ``PID`` 0) on Spark while a partition holds
    more than ``partition_rows`` records: ``(cur`` with every row's partition, the partitions found
    final, the records of every partition handed to the executors, the depths cut``)``."""
    final_pids: set[int] = set()
    active = [0] if n > partition_rows else []
    leaving: dict[int, int] = {} if active else {0: n}  # the partitions handed to the local loop: rows
    next_pid = 1
    depth = 0
    while active:
        pids, sizes, A, B = _states(cur, active, enc)
        small = uncuttable(sizes, kmin)
        final_pids.update(int(p) for p in pids[small])
        leaving.update((int(p), int(z)) for p, z in zip(pids[small], sizes[small], strict=True))
        big = np.flatnonzero(~small)
        pids, sizes, A, B = pids[big], sizes[big], A[big], B[big]
        cuts = _choose(cur, enc, pids, sizes, A, B, models, hist_attrs, domains, kmin)
        final_pids.update(int(pids[i]) for i in range(len(pids)) if i not in cuts)
        leaving.update((int(pids[i]), int(sizes[i])) for i in range(len(pids)) if i not in cuts)
        if not cuts:
            break
        depth += 1
        cur, active, next_pid = _split(cur, pids, cuts, next_pid, partition_rows, leaving, enc.d)
        step(f"level {depth}")
    return cur, final_pids, leaving, depth


def _chosen_code(col: Any, d: int) -> Any:
    """The code of the QI whose index is in column ``col``."""
    from pyspark.sql import functions as F

    return F.coalesce(*[F.when(col == j, F.col(code_column(j))) for j in range(d)])


def _states(cur: Any, active: list[int], enc: Encoding) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The active partitions (sorted), their records and state, from one aggregation."""
    from pyspark.sql import functions as F

    d = enc.d
    stat = (cur.filter(F.col(PID).isin(active)).groupBy(PID)
            .agg(F.sum(N).alias("n"),
                 *[F.min(code_column(j)).alias(f"lo{j}") for j in range(d)],
                 *[F.max(code_column(j)).alias(f"hi{j}") for j in range(d)])
            .toPandas().sort_values(PID))
    pids = stat[PID].to_numpy(dtype=np.int64)
    sizes = stat["n"].to_numpy(dtype=np.int64)
    lo = np.stack([stat[f"lo{j}"].to_numpy(dtype=np.int64) for j in range(d)], axis=1)
    hi = np.stack([stat[f"hi{j}"].to_numpy(dtype=np.int64) for j in range(d)], axis=1)
    A, B = enc.state(lo, hi)
    return pids, sizes, A, B


def _choose(cur: Any, enc: Encoding, pids: np.ndarray, sizes: np.ndarray, A: np.ndarray, B: np.ndarray,
            models: list[Criterion], hist_attrs: list[str], domains: dict, kmin: int) -> dict[int, Cut]:
    """Mondrian's cut choice for the partitions ``pids``: the allowed cut of each that has one (by its
    index in ``pids``), every attempt round one Spark aggregation of histograms."""
    cuts: dict[int, Cut] = {}

    def attempt(pend: np.ndarray, cols: np.ndarray) -> np.ndarray:
        hist = _histograms(cur, pids[pend], cols, len(hist_attrs), enc.d)
        proposals = _propose(enc, hist, pids[pend], cols, sizes[pend], A[pend], hist_attrs, domains)
        nchild = np.array([len(p[2]) for p in proposals], dtype=np.int64)
        cmin = np.array([p[2].min() for p in proposals], dtype=np.int64)
        ok = allowable(nchild, cmin, kmin)
        sel_ok = np.flatnonzero(ok)
        if len(sel_ok) and models:
            kid_sizes = np.concatenate([proposals[i][2] for i in sel_ok]).astype(np.float64)
            kid_hist = {a: np.concatenate([proposals[i][3][a] for i in sel_ok]) for a in hist_attrs}
            ok[sel_ok] = cuts_pass(kid_sizes, kid_hist, domains, models, nchild[sel_ok])
        for i in np.flatnonzero(ok):
            cuts[int(pend[i])] = (int(cols[i]), proposals[i][1], proposals[i][2])
        return ok

    choose_cuts(enc.widths(A, B), attempt)
    return cuts


def _histograms(cur: Any, pids: np.ndarray, cols: np.ndarray, n_attrs: int, d: int) -> pd.DataFrame:
    """Every partition ``pids[i]``'s records per code of its QI ``cols[i]`` (columns ``PID, code, count``),
    per protected sensitive attribute ``a`` and code ``s`` too when there are some (``PID, code, a, s,
    count``): one aggregation."""
    from pyspark.sql import functions as F

    spark = cur.sparkSession
    choice = spark.createDataFrame([(int(p), int(c)) for p, c in zip(pids, cols, strict=True)],
                                   f"{PREFIX}cpid long, {PREFIX}ccol int")
    sel = cur.join(F.broadcast(choice), F.col(PID) == F.col(f"{PREFIX}cpid"))
    code = _chosen_code(F.col(f"{PREFIX}ccol"), d).alias("code")
    if n_attrs:
        pairs = F.explode(F.array(*[F.struct(F.lit(a).alias("a"), F.col(sensitive_column(a)).alias("s"))
                                    for a in range(n_attrs)])).alias("e")
        hist = (sel.select(PID, code, N, pairs).select(PID, "code", N, "e.a", "e.s")
                .groupBy(PID, "code", "a", "s").agg(F.sum(N).alias("count")))
    else:
        hist = sel.groupBy(PID, code).agg(F.sum(N).alias("count"))
    return hist.toPandas()


def _propose(enc: Encoding, hist: pd.DataFrame, pids: np.ndarray, cols: np.ndarray, sizes: np.ndarray,
             A: np.ndarray, hist_attrs: list[str], domains: dict) -> list[tuple]:
    """The cut of every partition ``pids[i]`` on QI ``cols[i]`` by the local rules
    (:func:`~anonkit.algorithms.partition.core.histogram_cut`), from its histogram of codes (with the
    sensitive codes): per partition ``(codes, ranges, child sizes, child histograms)``, ``ranges`` the
    code range ``(lo, hi)`` of every child."""
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
        assert counts.sum() == int(sizes[i])
        child = histogram_cut(enc, j, int(A[i, j]), codes, counts)
        csize = np.bincount(child, weights=counts).astype(np.int64)
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


def _split(cur: Any, pids: np.ndarray, cuts: dict[int, Cut], next_pid: int, partition_rows: int,
           leaving: dict[int, int], d: int) -> tuple[Any, list[int], int]:
    """Every cut partition's rows to its children (new partition ids from ``next_pid``) by one
    broadcast join with the children's code ranges: the new compact rows, the children still above
    ``partition_rows`` records (the others go to ``leaving``) and the next free id."""
    from pyspark.sql import functions as F

    assign, active = [], []
    for i, (col, ranges, kid_sizes) in sorted(cuts.items()):
        for (a, b), size in zip(ranges, kid_sizes, strict=True):
            assign.append((int(pids[i]), col, a, b, next_pid))
            if size > partition_rows:
                active.append(next_pid)
            else:
                leaving[next_pid] = int(size)
            next_pid += 1
    table = cur.sparkSession.createDataFrame(assign, f"{PREFIX}apid long, {PREFIX}acol int, {PREFIX}alo int, "
                                             f"{PREFIX}ahi int, {PREFIX}anew long")
    code = _chosen_code(F.col(f"{PREFIX}acol"), d)
    cond = ((F.col(PID) == F.col(f"{PREFIX}apid")) & (code >= F.col(f"{PREFIX}alo"))
            & (code <= F.col(f"{PREFIX}ahi")))
    keep_cols = [c for c in cur.columns if c != PID]
    cur = truncate(cur.join(F.broadcast(table), cond, "left")
                   .select(*keep_cols, F.coalesce(F.col(f"{PREFIX}anew"), F.col(PID)).alias(PID)), eager=True)
    return cur, active, next_pid
