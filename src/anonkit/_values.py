"""Cell-level helpers shared by the encoder and the verifier: missing cells, text, numbers, dates."""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.hierarchy._core import _text


def is_missing(values: pd.Series) -> np.ndarray:
    """Cells that are missing: NaN/None or the empty string."""
    codes, labels = factorize_text(values)
    return np.isin(codes, np.flatnonzero(labels == ""))


def factorize_text(values: pd.Series | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes of every cell and the canonical text of each code, with one hash pass over the cells.

    Cells are matched as text (as ARX does): ``1`` and ``"1"`` are one value, and a missing cell
    (NaN/None) is the value ``""``. Only the distinct values are converted to text.
    """
    cells = values if isinstance(values, pd.Series) else np.asarray(values, dtype=object)
    codes, uniques = pd.factorize(cells, use_na_sentinel=False)
    if any(isinstance(u, bool | np.bool_) for u in uniques):
        # pandas hashes True like 1 and False like 0; such a column is grouped by its text instead
        codes, uniques = pd.factorize(np.array([_text(v) for v in np.asarray(cells, dtype=object)], dtype=object))
    text = np.array([_text(u) for u in uniques], dtype=object)
    merged, labels = pd.factorize(text)
    if len(labels) < len(text):
        codes = merged[codes]
    return codes.astype(np.int64, copy=False), np.asarray(labels, dtype=object)


def as_text(values: pd.Series | np.ndarray) -> np.ndarray:
    """The canonical text of every cell (what hierarchies are matched against)."""
    codes, labels = factorize_text(values)
    return labels[codes]


def _parse(values: pd.Series, column: str, convert, what: str) -> pd.Series:
    """``convert`` every non-missing cell; a cell it cannot convert is an error naming value and row."""
    values = pd.Series(values)
    missing = is_missing(values)
    parsed = convert(pd.Series(values.to_numpy(dtype=object)).where(~missing), errors="coerce")
    bad = np.flatnonzero(parsed.isna().to_numpy() & ~missing)
    if bad.size:
        i = int(bad[0])
        raise InputError(what, column=column, value=values.iloc[i], row=i + 1)
    return parsed


def parse_numeric(values: pd.Series, column: str) -> np.ndarray:
    """Floats of a numeric column; a non-numeric cell is an error naming value and row."""
    nums = _parse(values, column, pd.to_numeric, "mixed types: a non-numeric value in a numeric column")
    return nums.to_numpy(dtype=float)


def parse_dates(values: pd.Series, column: str) -> np.ndarray:
    """Days since 1970-01-01 (float) of a date column; an unparseable cell is an error."""
    parsed = _parse(values, column, pd.to_datetime, "not a date")
    return (parsed - pd.Timestamp("1970-01-01")).dt.total_seconds().to_numpy(dtype=float) / 86400.0
