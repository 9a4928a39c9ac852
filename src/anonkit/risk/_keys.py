"""Key variables as integer codes, and the checks every survey measure makes on its inputs.

sdcMicro's measures (``freqCalc``, ``indivRisk``, ``measure_risk``, ``modRisk``, ``suda2``) read key
variables, an optional sampling weight and an optional household id. This module turns them into
plain arrays once: one ``int64`` code per record and key variable (``-1`` for a missing value:
``None``, ``NaN``, ``pd.NA``), ``float64`` weights and ``int64`` household ids. A value that would make
a measure silently wrong is refused in one line (fail closed), before any work.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from anonkit.errors import InputError

#: the code of a missing key value (``NaN``, ``None``, ``pd.NA``) in :func:`key_codes`.
MISSING = -1


def key_codes(data: pd.DataFrame | np.ndarray, keys: Sequence[str] | None = None) -> np.ndarray:
    """The key variables as an ``(n, m)`` ``int64`` array of codes, ``MISSING`` (-1) where a value is missing.

    ``data`` is a DataFrame (``keys`` names its key columns, all of them when ``None``) or an array of
    codes already (``-1`` missing, every other code ≥ 0). Codes number each column's distinct values in
    order of first appearance; only equality of codes matters to the measures.
    """
    if isinstance(data, pd.DataFrame):
        names = list(data.columns) if keys is None else list(keys)
        if not names:
            raise InputError("no key variables given: name at least one column of the data as a key")
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise InputError("a key variable is named twice: list each key column once", column=str(dup))
        missing = [n for n in names if n not in data.columns]
        if missing:
            raise InputError("a key variable is not a column of the data: check its spelling", column=str(missing[0]))
        out = np.empty((len(data), len(names)), dtype=np.int64)
        for j, name in enumerate(names):
            codes, _ = pd.factorize(data[name], use_na_sentinel=True)
            out[:, j] = codes
        return out
    arr = np.asarray(data)
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise InputError("key codes must be a 2-D array with one column per key variable", value=str(arr.shape))
    if not np.issubdtype(arr.dtype, np.integer):
        raise InputError("key codes must be integers (-1 for a missing value): encode the keys with key_codes()",
                         value=str(arr.dtype))
    if arr.size and arr.min() < MISSING:
        row = int(np.argwhere(arr < MISSING)[0][0])
        raise InputError("a key code is below -1: codes are >= 0, and -1 marks a missing value", row=row)
    return arr.astype(np.int64, copy=False)


def weights_array(weights: Sequence[float] | np.ndarray | pd.Series | str | None, n: int,
                  data: pd.DataFrame | np.ndarray | None = None) -> np.ndarray | None:
    """The sampling weights as ``float64`` (``None`` when not given): finite and at least 1 each.

    A survey weight is the number of population units a record stands for, so it is at least 1; a
    weight below 1 would estimate a population class smaller than the sample's (``Fk < fk``), where
    the Benedetti–Franconi formulas are undefined — refused rather than computed. ``weights`` may
    name a column of ``data``.
    """
    if weights is None:
        return None
    column = None
    if isinstance(weights, str):
        column = weights
        if not isinstance(data, pd.DataFrame) or weights not in data.columns:
            raise InputError("the weight variable is not a column of the data", column=weights)
        weights = data[weights]
    try:
        w = np.asarray(pd.to_numeric(pd.Series(weights), errors="raise"), dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError("a sampling weight is not a number: weights must be numbers >= 1", column=column) from exc
    if w.shape != (n,):
        raise InputError(f"there are {w.shape[0] if w.ndim else 0} weights for {n} records: give one weight per record",
                         column=column)
    bad = ~np.isfinite(w) | (w < 1.0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError("a sampling weight is missing, infinite or below 1: a survey weight counts the population "
                         "units a record stands for (>= 1)", column=column, value=float(w[row]), row=row)
    return w


def household_ids(households: Sequence[object] | np.ndarray | pd.Series | str | None, n: int,
                  data: pd.DataFrame | np.ndarray | None = None) -> np.ndarray | None:
    """Household ids as dense ``int64`` codes (``None`` when not given); a missing id is refused.

    A record without a household cannot be given a household risk, and treating missing ids as one
    household would join strangers: refused. ``households`` may name a column of ``data``.
    """
    if households is None:
        return None
    column = None
    if isinstance(households, str):
        column = households
        if not isinstance(data, pd.DataFrame) or households not in data.columns:
            raise InputError("the household variable is not a column of the data", column=households)
        households = data[households]
    ids = pd.Series(np.asarray(households, dtype=object) if not isinstance(households, pd.Series) else households)
    if len(ids) != n:
        raise InputError(f"there are {len(ids)} household ids for {n} records: give one per record", column=column)
    codes, _ = pd.factorize(ids, use_na_sentinel=True)
    if (codes < 0).any():
        row = int(np.flatnonzero(codes < 0)[0])
        raise InputError("a household id is missing: every record needs its household", column=column, row=row)
    return codes.astype(np.int64, copy=False)


def dense(key: np.ndarray) -> np.ndarray:
    """Dense ids ``0..g-1`` of an ``int64`` key array, in order of first appearance (a hash factorization)."""
    return np.asarray(pd.factorize(key)[0], dtype=np.int64)


def combine(ids: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Dense ids of the pairs (``ids``, ``codes``): ``ids`` dense, ``codes`` ≥ -1 — no overflow, one factorization."""
    width = int(codes.max()) + 2 if codes.size else 1
    return dense(ids * width + (codes + 1))


def group_ids(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense ids of the distinct rows of ``codes`` (missing ``-1`` compared as a value) and the first row of each."""
    n, m = codes.shape
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    ids = dense(codes[:, 0])
    for j in range(1, m):
        ids = combine(ids, codes[:, j])
    first = np.full(int(ids.max()) + 1, -1, dtype=np.int64)
    first[ids[::-1]] = np.arange(n - 1, -1, -1)
    return ids, first
