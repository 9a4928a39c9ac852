"""Utility of a synthetic or perturbed table: how far its one- and two-way marginals are from the
original's (issue 29, item 3).

A synthetic table has no row-by-row link to the input, so the per-record measures (IL1s, changed
values) do not apply; what a user can still rely on are its distributions. For every column the
total variation distance ``½ Σ |p − q|`` between the original's and the release's shares of its
values (one-way), and for every pair of columns the same over the pairs of values (two-way). A
numeric column is compared by bins: the deciles of the *original* (the release's values fall in the
original's bins, so a shifted release shows as a distance, and the bins never depend on the release);
a missing cell is a bin of its own. 0: the same distribution; 1: disjoint.

Train-on-synthetic / test-on-real accuracy, the other half of the synthetic measures, trains
scikit-learn classifiers and so lives with them (:mod:`anonkit.evaluate.holdout`); it reads these bins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from anonkit.errors import InputError

__all__ = ["DEFAULT_BINS", "MISSING_BIN", "binned", "marginal_distances"]

#: numeric columns are cut at the original's quantiles into this many bins (deciles)
DEFAULT_BINS = 10
#: the label of a missing cell's bin
MISSING_BIN = "(missing)"
#: the pairs listed by name in the result (the largest two-way distances)
WORST_PAIRS = 5


def _numbers(values: pd.Series) -> np.ndarray | None:
    parsed = pd.to_numeric(values, errors="coerce")
    present = values.notna() & (values.astype("string").str.strip() != "").fillna(False)
    if bool((parsed.isna() & present).any()):
        return None
    return parsed.to_numpy(dtype=np.float64, na_value=np.nan)


def binned(original: pd.DataFrame, released: pd.DataFrame, columns: Sequence[str],
           numeric: Mapping[str, bool] | None = None, bins: int = DEFAULT_BINS) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both tables' ``columns`` as text labels: a numeric column (``numeric[c]``, default: every cell
    of both tables is a number) cut at the original's ``bins``-quantiles, any other column as its
    text; missing cells as :data:`MISSING_BIN`."""
    out_o, out_r = {}, {}
    for c in columns:
        o, r = _numbers(original[c]), _numbers(released[c])
        is_num = (numeric or {}).get(c, o is not None and r is not None) and o is not None and r is not None
        if is_num:
            present = o[~np.isnan(o)]  # type: ignore[index]
            edges = np.unique(np.quantile(present, np.linspace(0, 1, bins + 1)[1:-1])) if len(present) else []
            lab = [np.where(np.isnan(v), -1, np.searchsorted(edges, v, side="right")) for v in (o, r)]
            out_o[c], out_r[c] = ([MISSING_BIN if k < 0 else f"bin {k}" for k in x] for x in lab)
        else:
            out_o[c], out_r[c] = (f[c].astype("string").fillna(MISSING_BIN).astype(object).to_numpy()
                                  for f in (original, released))
    return pd.DataFrame(out_o), pd.DataFrame(out_r)


def _tvd(a: pd.Series, b: pd.Series) -> float:
    p = a.value_counts(normalize=True)
    q = b.value_counts(normalize=True)
    return float(0.5 * p.sub(q, fill_value=0.0).abs().sum())


def marginal_distances(original: pd.DataFrame, released: pd.DataFrame, columns: Sequence[str] | None = None, *,
                       numeric: Mapping[str, bool] | None = None, bins: int = DEFAULT_BINS) -> dict[str, Any]:
    """One- and two-way total variation distances between ``original`` and ``released`` over
    ``columns`` (default: every column both hold). Returns ``{columns, bins, one_way: {column: tvd},
    one_way_mean, one_way_max, two_way_mean, two_way_max, worst_pairs: [{columns: [a, b], tvd}]}``
    (the two-way figures ``None`` with fewer than two columns)."""
    cols = [c for c in original.columns if c in released.columns] if columns is None else [str(c) for c in columns]
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 2:
        raise InputError("bins must be a whole number ≥ 2", key="bins", value=bins)
    for c in cols:
        for name, f in (("original", original), ("release", released)):
            if c not in f.columns:
                raise InputError(f"the {name} has no such column", column=c)
    if not cols or len(original) == 0 or len(released) == 0:
        raise InputError("the marginal distances need a column and rows in both tables", key="columns")
    o, r = binned(original, released, cols, numeric, bins)
    one = {c: _tvd(o[c], r[c]) for c in cols}
    pairs = []
    for a, b in combinations(cols, 2):
        pairs.append({"columns": [a, b], "tvd": _tvd(o[a] + "\x1f" + o[b], r[a] + "\x1f" + r[b])})
    pairs.sort(key=lambda p: (-p["tvd"], p["columns"]))
    two = [p["tvd"] for p in pairs]
    return {"columns": cols, "bins": bins, "one_way": one, "one_way_mean": float(np.mean(list(one.values()))),
            "one_way_max": float(max(one.values())), "two_way_mean": float(np.mean(two)) if two else None,
            "two_way_max": float(max(two)) if two else None, "worst_pairs": pairs[:WORST_PAIRS]}
