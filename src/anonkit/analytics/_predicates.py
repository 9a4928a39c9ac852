"""Singling-out predicates on encoded tables: conjunctions of ``column op value`` terms, counted in
blocks (anonymeter's queries, Giomi et al. 2023, written as arrays instead of query strings).

A batch of ``B`` predicates over ``p`` columns is two ``B × p`` arrays: the operator of each term
(:data:`UNUSED` where the predicate does not name the column) and its value on the encoded scale of
:mod:`anonkit.analytics._gower` (numbers over their range, categories as shared codes). A missing
cell satisfies only ``IS_MISSING`` (and never ``=``, ``≠``, ``<``…: SQL's and polars' rule, which
anonymeter's queries follow).
"""

from __future__ import annotations

import numpy as np

from anonkit.analytics._gower import BLOCK_CELLS

__all__ = ["EQ", "GE", "GT", "IS_MISSING", "LE", "LT", "NE", "NOT_MISSING", "OPERATORS", "UNUSED", "counts"]

UNUSED, EQ, NE, LT, LE, GT, GE, IS_MISSING, NOT_MISSING = range(9)
#: each operator's symbol (for ``details`` and the docs)
OPERATORS = {EQ: "=", NE: "≠", LT: "<", LE: "≤", GT: ">", GE: "≥", IS_MISSING: "is missing",
             NOT_MISSING: "is not missing"}


def _holds(op: int, x: np.ndarray, v: np.ndarray, missing: np.ndarray) -> np.ndarray:
    if op == IS_MISSING:
        return np.broadcast_to(missing, (len(v), missing.shape[1]))
    present = ~missing
    if op == NOT_MISSING:
        return np.broadcast_to(present, (len(v), missing.shape[1]))
    compare = {EQ: np.equal, NE: np.not_equal, LT: np.less, LE: np.less_equal, GT: np.greater,
               GE: np.greater_equal}[op]
    return present & compare(x, v)


def counts(ops: np.ndarray, values: np.ndarray, table: np.ndarray, missing: np.ndarray) -> np.ndarray:
    """How many rows of ``table`` (encoded, with its ``missing`` mask) satisfy each predicate."""
    b, p = ops.shape
    out = np.zeros(b, dtype=np.int64)
    if b == 0:
        return out
    step = max(1, BLOCK_CELLS // b)
    for lo in range(0, len(table), step):
        x, miss = table[lo:lo + step], missing[lo:lo + step]
        ok = np.ones((b, len(x)), dtype=bool)
        for j in range(p):
            col = ops[:, j]
            for op in np.unique(col[col != UNUSED]):
                sel = np.flatnonzero(col == op)
                ok[sel] &= _holds(int(op), x[:, j][None, :], values[sel, j][:, None], miss[:, j][None, :])
        out += ok.sum(axis=1)
    return out

