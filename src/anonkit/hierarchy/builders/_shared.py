"""What several hierarchy builders share: the distinct values of a column, missing values, errors
naming a value's row, parameter checks and the grid of labels a :class:`Hierarchy` is made from.

The conventions these helpers implement are those of :mod:`anonkit.hierarchy.builders` (leaves are
the distinct canonical texts, missing leaves come last, errors name the column, value and row).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from anonkit._values import cell_text
from anonkit.errors import InputError
from anonkit.hierarchy._core import Hierarchy

#: The label of the single most general node.
TOP = "*"


def _distinct(values: Iterable[object], name: str | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct texts of ``values``, the 0-based row of each one's first occurrence, and which are missing.

    Values are factorized first (vectorised), so ``cell_text`` runs once per distinct value only.
    Different raw values with the same text (``1`` and ``"1"``, ``None`` and ``""``) become one leaf.
    A missing value's leaf is its ``cell_text``: ``""`` for every kind (None, NaN, NaT, pd.NA), the
    text :meth:`Hierarchy.encode` looks up; all missing leaves get the row of the first missing value.
    """
    if isinstance(values, pd.DataFrame):
        raise InputError("a hierarchy is built from one column, not a table", column=name)
    if isinstance(values, pd.Series):
        series = values.reset_index(drop=True)
    elif isinstance(values, (pd.Index, np.ndarray)):
        series = pd.Series(values)
    else:
        series = pd.Series(list(values))
    if series.empty:
        raise InputError("no values to build a hierarchy from", column=name)
    if series.dtype.kind == "f" and series.dtype != np.float64:
        series = series.astype(np.float64)
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    first = pd.Series(codes).drop_duplicates()  # index: first row; value: code
    texts_u = [cell_text(u) for u in uniques]
    na_rows = np.flatnonzero(codes < 0)
    # the kinds of missing values present (None, NaN, NaT, pd.NA), each with its own text
    na_texts = sorted({cell_text(v) for v in pd.unique(series.iloc[na_rows].to_numpy(dtype=object))})
    missing_texts = {"", *na_texts}
    out: dict[str, int] = {}
    for row, code in zip(first.index.tolist(), first.tolist(), strict=True):
        for text in na_texts if code < 0 else [texts_u[code]]:
            out.setdefault(text, row)
    texts = np.array(list(out), dtype=object)
    missing = np.array([t in missing_texts for t in out], dtype=bool)
    return texts, np.fromiter(out.values(), dtype=np.int64, count=len(out)), missing


def _split_missing(
    texts: np.ndarray, rows: np.ndarray, missing: np.ndarray, name: str | None
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The non-missing texts and rows, and the (sorted) texts of the missing values."""
    if missing.all():
        raise InputError("every value is missing; nothing to build a hierarchy from", column=name)
    return texts[~missing], rows[~missing], sorted(texts[missing].tolist())


def _column(values: Iterable[object], name: str | None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The distinct non-missing texts of ``values``, the 0-based row of each one's first occurrence,
    and the (sorted) texts of the missing values: :func:`_distinct` split by :func:`_split_missing`."""
    return _split_missing(*_distinct(values, name), name)


def _first_bad(bad: np.ndarray, texts: np.ndarray, rows: np.ndarray) -> tuple[str, int]:
    """The value and 1-based row of the earliest (in data order) entry flagged in ``bad``."""
    idx = np.flatnonzero(bad)
    i = int(idx[np.argmin(rows[idx])])
    return str(texts[i]), int(rows[i]) + 1


def _reject(bad: np.ndarray, texts: np.ndarray, rows: np.ndarray, message: str, name: str | None) -> None:
    """Raise ``message`` naming the earliest (in data order) value flagged in ``bad`` and its row."""
    if bad.any():
        value, row = _first_bad(bad, texts, rows)
        raise InputError(message, column=name, value=value, row=row)


def _sort_by(keys: np.ndarray, texts: np.ndarray) -> np.ndarray:
    """Permutation sorting by ``keys``, ties broken by text."""
    by_text = np.argsort(texts, kind="stable")
    return by_text[np.argsort(keys[by_text], kind="stable")]


def _parse_numbers(texts: np.ndarray) -> np.ndarray:
    """The texts as floats; NaN where a text is not a number."""
    return pd.to_numeric(pd.Series(texts, dtype=object), errors="coerce").to_numpy(dtype=float)


def _check_int(value: object, key: str, name: str | None, *, minimum: int) -> int:
    """``value`` as an ``int``; an error naming ``key`` unless it is an integer ≥ ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"{key} must be an integer ≥ {minimum}", column=name, key=key, value=value)
    return int(value)


def _check_choice(value: object, key: str, name: str | None, choices: tuple[str, str]) -> None:
    """An error naming ``key`` unless ``value`` is one of the two ``choices``."""
    if value not in choices:
        first, second = choices
        raise InputError(f'{key} must be "{first}" or "{second}"', column=name, key=key, value=value)


def _grid(leaves: np.ndarray, levels: Sequence[np.ndarray], missing: list[str], top_single: bool) -> np.ndarray:
    """Rows of labels (object grid) from the leaf column and the columns of levels 1..h.

    A row per missing text is appended, with that text on every level (but the top when the top
    is a single node: then the missing value joins it).
    """
    cols = [np.asarray(leaves, dtype=object), *(np.asarray(c, dtype=object) for c in levels)]
    grid = np.stack(cols, axis=1)
    if missing:
        extra = np.repeat(np.asarray(missing, dtype=object)[:, None], grid.shape[1], axis=1)
        if top_single:
            extra[:, -1] = grid[0, -1]
        grid = np.concatenate([grid, extra], axis=0)
    return grid


def _with_top(
    leaves: np.ndarray, levels: Sequence[np.ndarray], missing: list[str], name: str | None, source: str,
    *, calendar: bool = False,
) -> Hierarchy:
    """The hierarchy of the leaf column and the columns of levels 1..h−1, with the top ``*`` added
    as level h (which the missing values join); ``calendar``: the labels are calendar units
    (:class:`Hierarchy`)."""
    top = np.full(len(leaves), TOP, dtype=object)
    grid = _grid(leaves, [*levels, top], missing, top_single=True)
    return Hierarchy(grid, name=name, source=source, calendar=calendar)
