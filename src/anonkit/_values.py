"""Cell-level helpers shared by the encoder and the verifier: missing cells, text, numbers, dates."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd

from anonkit.errors import InputError


def cell_text(v: object) -> str:
    """Canonical text of a cell: hierarchies and data are matched as text (as ARX does).

    Every kind of missing value (None, NaN, NaT, pd.NA) is the empty string; whole floats lose
    their ``.0`` so that ``39.0`` read from Parquet matches the hierarchy's ``39``.
    """
    if v is None or isinstance(v, str):
        return "" if v is None else v
    if pd.api.types.is_scalar(v) and pd.isna(v):
        return ""
    if isinstance(v, float | np.floating) and float(v).is_integer():
        return str(int(v))
    return str(v)


def is_missing(values: pd.Series) -> np.ndarray:
    """Cells that are missing: NaN/None or the empty string."""
    codes, labels = factorize_text(values)
    return np.isin(codes, np.flatnonzero(labels == ""))


def factorize_text(values: pd.Series | np.ndarray, *, compact: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Codes of every cell and the canonical text of each code, with one hash pass over the cells.

    Cells are matched as text (as ARX does): ``1`` and ``"1"`` are one value, and a missing cell
    (NaN/None) is the value ``""``. Only the distinct values are converted to text. Codes follow
    the first appearance of each text.

    A categorical column (the compact frames of :mod:`anonkit.io.batches`) is factorized from its
    codes and categories without touching the cells; with ``compact=True`` its codes come back in
    the smallest integer type that holds them (no copy when they are already in first-appearance
    order), else always as int64.
    """
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype):
        values = values.array
    if isinstance(values, pd.Categorical):
        return _factorize_categorical(values, compact)
    cells = values if isinstance(values, pd.Series) else np.asarray(values, dtype=object)
    codes, uniques = pd.factorize(cells)  # (missing cells −1: pandas skips its isna pass over the cells)
    missing = codes < 0
    if missing.any():  # the missing cells get one code of their own, at their first appearance
        at = int(np.argmax(missing))
        slot = int(codes[:at].max()) + 1 if at else 0  # codes before it are 0 … slot − 1
        codes[codes >= slot] += 1
        codes[missing] = slot
        uniques = np.insert(np.asarray(uniques, dtype=object), slot, None)
    if any(isinstance(u, bool | np.bool_) for u in uniques):
        # pandas hashes True like 1 and False like 0; such a column is grouped by its text instead
        codes, uniques = pd.factorize(np.array([cell_text(v) for v in np.asarray(cells, dtype=object)], dtype=object))
    text = np.array([cell_text(u) for u in uniques], dtype=object)
    merged, labels = pd.factorize(text)
    if len(labels) < len(text):
        codes = merged[codes]
    return codes.astype(np.int64, copy=False), np.asarray(labels, dtype=object)


def _factorize_categorical(cat: pd.Categorical, compact: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`factorize_text` of a categorical: the same codes and texts as for its dense values,
    computed on the category codes (one pass over small integers) and the categories' texts."""
    codes = np.asarray(cat.codes)
    categories = cat.categories
    if pd.api.types.infer_dtype(categories, skipna=False) == "string":
        texts = categories.to_numpy(dtype=object)
    else:
        texts = np.array([cell_text(v) for v in categories.to_numpy(dtype=object)], dtype=object)
    texts = np.append(texts, "")  # code -1 (missing) indexes the last entry: ""
    seen = pd.unique(codes)  # the codes in order of first appearance (-1 included)
    merged, labels = pd.factorize(texts[seen])
    labels = np.asarray(labels, dtype=object)
    small = _code_type(len(labels))
    if len(seen) and (seen >= 0).all() and np.array_equal(merged, seen):
        out = codes  # already the first-appearance codes of distinct texts
    else:
        lut = np.zeros(len(texts), dtype=small)
        lut[seen] = merged
        out = lut[codes]
    return (out.astype(small, copy=False) if compact else out.astype(np.int64)), labels


def _code_type(n: int) -> type[np.signedinteger]:
    """The smallest signed integer type holding the codes ``0 … n−1``."""
    for t in (np.int8, np.int16, np.int32):
        if n <= np.iinfo(t).max:
            return t
    return np.int64


def as_text(values: pd.Series | np.ndarray) -> np.ndarray:
    """The canonical text of every cell (what hierarchies are matched against)."""
    codes, labels = factorize_text(values)
    return labels[codes]


#: a plain number as text: optional sign, digits with an optional fraction, optional exponent; or a
#: non-finite spelling (inferred numeric so that it is reported, not silently kept as a category)
_NUMBER_TEXT = re.compile(r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.I)
_NON_FINITE = frozenset({"inf", "infinity", "nan"})
#: digits with a superfluous leading zero (zip codes, ids): their text would not survive as a number
_LEADING_ZERO = re.compile(r"[+-]?0[0-9]")


def looks_numeric(values: pd.Series | np.ndarray) -> bool:
    """Whether every non-missing value of a column is a plain number (types are inferred the way a
    user expects); see :func:`labels_look_numeric`."""
    return labels_look_numeric(factorize_text(values)[1])


def labels_look_numeric(labels: np.ndarray) -> bool:
    """Whether every non-empty canonical text in ``labels`` (:func:`factorize_text`) is a plain
    number: a decimal or scientific number without a superfluous leading zero (``02139`` stays
    text: as a number it would lose its zero), or a non-finite spelling (``inf``, ``nan``), which
    :func:`parse_numeric` then refuses. Booleans (``True``) are text. No value at all: not numeric.
    """
    texts = [str(t).strip() for t in labels if t != ""]
    return bool(texts) and all(_NUMBER_TEXT.fullmatch(t) and not _LEADING_ZERO.match(t) for t in texts)


def strip_cells(values: pd.Series) -> pd.Series:
    """``values`` with the surrounding whitespace of every text cell removed (other cells as they
    are); only the distinct texts are stripped."""
    if values.dtype != object and not pd.api.types.is_string_dtype(values.dtype):
        return values
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    stripped = np.array([u.strip() if isinstance(u, str) else u for u in uniques], dtype=object)
    if all(a is b or a == b for a, b in zip(stripped, uniques, strict=True)):
        return values
    out = np.where(codes >= 0, stripped[np.maximum(codes, 0)] if len(stripped) else None, values.to_numpy())
    return pd.Series(out, index=values.index, name=values.name, dtype=values.dtype)


def near_duplicates(labels: np.ndarray) -> list[list[str]]:
    """Groups of distinct canonical texts (:func:`factorize_text`) that differ only by letter case or
    whitespace (``M``, ``m``, ``M ``), each sorted; the groups sorted by their first text."""
    groups: dict[str, list[str]] = {}
    for text in labels:
        if text == "":
            continue
        groups.setdefault(" ".join(str(text).split()).casefold(), []).append(str(text))
    return sorted((sorted(g) for g in groups.values() if len(g) > 1), key=lambda g: g[0])


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


def parse_numeric(
    values: pd.Series, column: str, coded: tuple[np.ndarray, np.ndarray] | None = None
) -> np.ndarray:
    """Floats of a numeric column; a non-numeric or non-finite cell (``inf``, ``nan`` written out, a
    number beyond a double) is an error naming value and row. Missing cells (empty, None, NaN) are
    NaN. Only the distinct values are parsed (``coded``: the column's :func:`factorize_text`)."""
    codes, labels = coded if coded is not None else factorize_text(values)

    def fail(what: str, label: int) -> InputError:
        i = int(np.flatnonzero(codes == label)[0])
        return InputError(what, column=column, value=pd.Series(values).iloc[i], row=i + 1)

    spelled = [j for j, t in enumerate(labels) if str(t).strip().lstrip("+-").lower() in _NON_FINITE]
    if spelled:
        first = min(spelled, key=lambda j: int(np.flatnonzero(codes == j)[0]))
        raise fail("not a finite number (fix the value, list it under input.na_values if it means missing, or "
                   "declare the column type: categorical)", first)
    present = np.array([t != "" for t in labels], dtype=bool)
    nums = pd.to_numeric(pd.Series(np.where(present, labels, None), dtype=object), errors="coerce")
    nums = nums.to_numpy(dtype=float)
    bad = np.flatnonzero(np.isnan(nums) & present)
    if bad.size:
        raise fail("mixed types: a non-numeric value in a numeric column", _first_of(codes, bad))
    huge = np.flatnonzero(np.isinf(nums))  # e.g. 1e400: beyond a double
    if huge.size:
        raise fail("not a finite number (too large for a double)", _first_of(codes, huge))
    return nums[codes] if len(nums) else np.zeros(len(codes))


def _first_of(codes: np.ndarray, labels: np.ndarray) -> int:
    """Of ``labels``, the one whose first record comes first."""
    return int(codes[np.flatnonzero(np.isin(codes, labels))[0]])


def parse_dates(values: pd.Series, column: str) -> np.ndarray:
    """Days since 1970-01-01 (float) of a date column; an unparseable cell is an error."""
    with warnings.catch_warnings():  # pandas warns when it guesses formats cell by cell
        warnings.simplefilter("ignore", UserWarning)
        parsed = _parse(values, column, pd.to_datetime, "not a date")
    return (parsed - pd.Timestamp("1970-01-01")).dt.total_seconds().to_numpy(dtype=float) / 86400.0
