"""Cell-level helpers shared by the encoder and the verifier: missing cells, text, numbers, dates."""

from __future__ import annotations

import calendar
import ctypes
import re
import warnings
from decimal import Decimal, InvalidOperation

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


def cell_addresses(values: np.ndarray) -> np.ndarray:
    """The address of the object in every cell of a one-dimensional object array (any stride), read from
    its buffer of pointers (a view: valid while ``values`` lives). Equal addresses are the same object
    while the objects are held (none freed, so none's address taken by another)."""
    n, stride = len(values), values.strides[0]
    if n == 0:
        return np.zeros(0, dtype=np.uintp)
    start = values.__array_interface__["data"][0]
    low = start + min(0, (n - 1) * stride)
    span = abs((n - 1) * stride) + values.itemsize
    buffer = (ctypes.c_char * span).from_address(low)
    return np.ndarray((n,), dtype=np.uintp, buffer=buffer, offset=start - low, strides=(stride,))


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
    if isinstance(values, pd.Series) and arrow_text_dtype(values.dtype):
        coded = _arrow_text_codes(values.array)
        if coded is not None:
            return coded
    cells = values if isinstance(values, pd.Series) else np.asarray(values, dtype=object)
    if cells.dtype == object:  # hashed as an array: no Index of the uniques is built
        cells = cells.to_numpy() if isinstance(cells, pd.Series) else cells
        shared = _shared_object_codes(cells)
        if shared is not None:
            return shared
        codes, uniques = pd.factorize(cells)
        if (not len(codes) or codes.min() >= 0) and all(type(u) is str for u in uniques):
            # no missing cell and only texts: the uniques are the distinct canonical texts already
            return codes.astype(np.int64, copy=False), uniques
    else:
        codes, uniques = pd.factorize(cells)  # (missing cells −1: pandas skips its isna pass over the cells)
    missing = codes < 0
    if missing.any():  # the missing cells get one code of their own, at their first appearance
        at = int(np.argmax(missing))
        slot = int(codes[:at].max()) + 1 if at else 0  # codes before it are 0 … slot − 1
        codes[codes >= slot] += 1
        codes[missing] = slot
        uniques = np.insert(np.asarray(uniques, dtype=object), slot, None)
    if any(isinstance(u, bool | np.bool_) for u in uniques) or _bool_beside_number(cells, uniques):
        # pandas hashes True like 1 and False like 0; such a column is grouped by its text instead
        codes, uniques = pd.factorize(np.array([cell_text(v) for v in np.asarray(cells, dtype=object)], dtype=object))
    text = np.array([cell_text(u) for u in uniques], dtype=object)
    merged, labels = pd.factorize(text)
    if len(labels) < len(text):
        codes = merged[codes]
    return codes.astype(np.int64, copy=False), np.asarray(labels, dtype=object)


def arrow_text_dtype(dtype: object) -> bool:
    """Whether a column of ``dtype`` is held by pyarrow as text (pandas 3's default ``str``, ``string[pyarrow]``,
    ``ArrowDtype`` of ``string`` or ``large_string``): its cells are texts or missing, nothing else."""
    if isinstance(dtype, pd.StringDtype):
        return dtype.storage == "pyarrow"
    return isinstance(dtype, pd.ArrowDtype) and str(dtype.pyarrow_dtype) in ("string", "large_string")


def complete_arrow_text(array: object) -> object:
    """The one pyarrow text array (``string`` or ``large_string``; chunks combined) of a pyarrow text column's
    array (:func:`arrow_text_dtype`) without a missing cell, read through pyarrow's public API, else ``None``."""
    import pyarrow as pa  # (the column is pyarrow's: it is loaded)
    arrow = pa.array(array)  # (the array's own pyarrow memory: ``__arrow_array__``)
    if isinstance(arrow, pa.ChunkedArray):
        arrow = arrow.chunk(0) if arrow.num_chunks == 1 else arrow.combine_chunks()
    text = pa.types.is_string(arrow.type) or pa.types.is_large_string(arrow.type)
    return arrow if text and not arrow.null_count else None


def _arrow_text_codes(array: object) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`factorize_text` of a pyarrow text column without a missing cell (:func:`complete_arrow_text`), else
    ``None``: Arrow's dictionary encoding (codes by first appearance, as pandas factorizes it), whose distinct
    texts are their own canonical text, without pandas' wrapping and a pass over the texts."""
    if (arrow := complete_arrow_text(array)) is None:
        return None
    encoded = arrow.dictionary_encode()  # type: ignore[attr-defined]
    return encoded.indices.to_numpy().astype(np.int64), encoded.dictionary.to_numpy(zero_copy_only=False)


#: an object column of at least this many cells is sampled (:data:`SHARED_SAMPLE` cells) for shared objects
SHARED_MIN_CELLS = 1024
#: how many cells' addresses, spread over the column, tell whether its cells share their objects
SHARED_SAMPLE = 256


def _shared_object_codes(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`factorize_text` of an object array whose cells share their objects (pandas' C reader gives one
    object per distinct text of a column), else ``None`` (the caller hashes every cell).

    :func:`shares_objects` decides: then the cells' addresses are factorized (no object read) and
    :func:`factorize_text` runs on the distinct objects alone, in their order of first appearance: cells of one
    object have one text, and the objects' first appearances keep the texts', so the codes and texts are those of
    the whole array (what folds together folds the same way among the distinct objects)."""
    addresses = cell_addresses(cells)  # (a view of ``cells``' pointers: valid while ``cells`` lives)
    if not shares_objects(addresses):
        return None
    objects, distinct = pd.factorize(addresses)
    first = np.empty(len(distinct), dtype=np.intp)  # each object's first cell: the last write of a backward scatter
    backward = np.arange(len(cells) - 1, -1, -1)  # (``_kernels.first_rows``' rule: this module imports no other)
    first[objects[backward]] = backward
    codes, texts = factorize_text(cells[first])
    return codes[objects], texts


def shares_objects(addresses: np.ndarray) -> bool:
    """Whether the cells of these addresses (:func:`cell_addresses`) share their objects: :data:`SHARED_SAMPLE` of
    them spread over at least :data:`SHARED_MIN_CELLS`, at most half distinct (counted after a sort, no hash)."""
    n = len(addresses)
    if n < SHARED_MIN_CELLS:
        return False
    sample = np.sort(addresses[:: n // SHARED_SAMPLE][:SHARED_SAMPLE])
    return 2 * (1 + np.count_nonzero(sample[1:] != sample[:-1])) <= SHARED_SAMPLE


#: up to this many labels :func:`factorize_labels` numbers in a dict (pandas' factorize costs more on so few)
SMALL_LABELS = 64


def factorize_labels(labels: np.ndarray, dict_up_to: int = SMALL_LABELS) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(labels)``: the id of every label in order of first appearance (``intp``) and the
    distinct labels (an object array, each the object of its first appearance). Up to ``dict_up_to`` labels
    that are all exactly ``str`` (a class's published label is text) are numbered by a dict in one pass:
    ``str`` equality is what pandas' hash table compares, the first appearance gives the next id and a dict
    keeps the first key object, so the ids and labels are pandas' own. Other labels (a missing one, which
    pandas codes −1; a subclass) go to pandas."""
    if len(labels) <= dict_up_to and all(type(x) is str for x in labels):
        index: dict[str, int] = {}
        ids = np.fromiter((index.setdefault(x, len(index)) for x in labels), dtype=np.intp, count=len(labels))
        texts = np.empty(len(index), dtype=object)
        texts[:] = list(index)
        return ids, texts
    return pd.factorize(labels)


def _bool_beside_number(cells: pd.Series | np.ndarray, uniques: np.ndarray) -> bool:
    """Whether a text-typed column mixes numbers with booleans that pandas' hash folded into them
    (``0`` and ``False`` are one key to it, ``"0"`` and ``"False"`` two texts): the cells are read
    only when a number is among the distinct values of an object column."""
    if getattr(getattr(cells, "dtype", None), "kind", None) != "O":
        return False
    if not any(isinstance(u, int | float | np.number) and not isinstance(u, bool | np.bool_) for u in uniques):
        return False
    return any(isinstance(v, bool | np.bool_) for v in np.asarray(cells, dtype=object))


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
    found = False
    for label in labels:  # (stops at the first text that is no number: a categorical column reads one or two)
        if label != "":
            text = str(label).strip()
            if not _NUMBER_TEXT.fullmatch(text) or _LEADING_ZERO.match(text):
                return False
            found = True
    return found


def strip_cells(values: pd.Series) -> pd.Series:
    """``values`` with the surrounding whitespace of every text cell removed (other cells as they
    are); only the distinct texts are stripped."""
    if values.dtype != object and not pd.api.types.is_string_dtype(values.dtype):
        return values
    cells = values.to_numpy() if values.dtype == object else values
    if not any(isinstance(u, str) and u != u.strip() for u in pd.unique(cells)):
        return values  # (the distinct values alone: hashing without codes is cheaper)
    codes, uniques = pd.factorize(cells, use_na_sentinel=True)
    stripped = np.array([u.strip() if isinstance(u, str) else u for u in uniques], dtype=object)
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
    nums = np.asarray(pd.to_numeric(np.where(present, labels, None), errors="coerce"), dtype=float)
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


def parse_dates(values: pd.Series, column: str, format: str | None = None) -> np.ndarray:
    """Days since 1970-01-01 (float, NaN for a missing cell) of a date column, read by
    :func:`read_dates`: in ``format`` (strftime) when given, else in the one day/month order that
    fits every value. A value that is no date, or an ambiguous column, is an error naming it."""
    codes, labels = factorize_text(values)
    rows = np.full(len(labels), -1, dtype=np.int64)
    rows[codes[::-1]] = np.arange(len(codes))[::-1]  # first row of every distinct text
    present = np.flatnonzero(labels != "")
    stamps = read_dates(labels[present], column, format=format, rows=rows[present] + 1, shown=_shown_cells(values))
    days = np.full(len(labels), np.nan)
    days[present] = _days(stamps)
    return days[codes] if len(codes) else np.zeros(0)


def _shown_cells(values: pd.Series | np.ndarray):
    """A function giving the cell of a 1-based row as the input holds it (errors name the cell)."""
    cells = pd.Series(values)
    return lambda row: cells.iloc[row - 1]


def _days(stamps: pd.Series) -> np.ndarray:
    """Days since 1970-01-01 of (naive) timestamps."""
    return ((stamps - pd.Timestamp("1970-01-01")) / pd.Timedelta(days=1)).to_numpy(dtype=float)


#: a time after a date: ``10:30``, ``10:30:05``, ``10:30:05.250``
_TIME = r"(?:[ T](\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?))?"
#: ISO 8601 and its kin, the year first: ``2020-02-05``, ``2020/2/5``, ``2020.02.05 10:30``,
#: ``2020-02-05T10:30:00``, ``2020-02-05 10:30:00+01:00`` (a time zone only after a time)
_YEAR_FIRST = re.compile(r"(\d{4})([-/.])(\d{1,2})\2(\d{1,2})"
                         r"(?:[ T](\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?))?")
#: ISO 8601's other spellings: a year, a month (``2020-02``), the basic form (``20200205``, ``20200205T1030``)
_ISO_OTHER = re.compile(r"\d{4}(?:-\d{2})?|\d{8}(?:T\d{2}(?:\d{2}(?:\d{2})?)?)?")
#: day and month as numbers, the year last (``05/02/2020``, ``5.2.2020 10:30``): which is the day
#: is decided for the whole column (:func:`_day_month_order`)
_YEAR_LAST = re.compile(r"(\d{1,2})([-/.])(\d{1,2})\2(\d{4})" + _TIME)
#: a date written with a month name (``5 Feb 2020``, ``February 5, 2020``): it needs a four-digit year
_MONTH_NAME = re.compile(r"(?=.*[A-Za-z]{3})(?=.*\b\d{4}\b)[A-Za-z0-9 ,./:-]+")
#: strftime formats of the two day/month orders, for the advice an error gives
_ORDERS = {"day": "%d/%m/%Y", "month": "%m/%d/%Y"}


def read_dates(
    texts: np.ndarray, column: str | None, *, format: str | None = None, rows: np.ndarray | None = None,
    shown=None,
) -> pd.Series:
    """The distinct non-missing ``texts`` of a date column as naive timestamps.

    With ``format`` (strftime, e.g. ``%d/%m/%Y``) every text must fit it. Without, a text is read
    only where its meaning is certain, so that no date is published as another:

    * year first (ISO 8601 and the like: ``2020-02-05``, ``2020/02/05``, ``2020-02-05 10:30``,
      ``20200205``, ``2020-02``): as written;
    * day and month as numbers with the year last (``05/02/2020``, ``5.2.2020``): in the order,
      day first or month first, that fits *all* such values of the column. When both fit and they
      read some value differently (every day ≤ 12) the column is ambiguous: an error asking for
      ``format``; when neither fits (``13/02/2020`` beside ``02/13/2020``) an error naming both;
    * a month name with a four-digit year (``5 Feb 2020``);
    * anything else (``1/2``, a two-digit year, ``soon``) is not a date.

    Dates and date-times mix freely (a date is its midnight); time zones are converted to UTC.
    Errors name the value and its 1-based row (``rows``: the first row of every text; ``shown``
    turns a row into the cell as the input holds it).
    """
    texts = np.asarray(texts, dtype=object)
    rows = np.arange(1, len(texts) + 1) if rows is None else np.asarray(rows)
    stripped = np.array([str(t).strip() for t in texts], dtype=object)

    def fail(message: str, i: int) -> InputError:
        value = texts[i] if shown is None else shown(int(rows[i]))
        return InputError(message, column=column, value=value, row=int(rows[i]))

    if format is not None:
        return _in_format(stripped, format, column, fail)
    out = np.full(len(texts), np.datetime64("NaT"), dtype="datetime64[us]")
    iso = np.zeros(len(texts), dtype=bool)
    year_last: list[tuple[int, re.Match[str]]] = []
    named = np.zeros(len(texts), dtype=bool)
    for i, text in enumerate(stripped):
        if _YEAR_FIRST.fullmatch(text) or _ISO_OTHER.fullmatch(text):
            iso[i] = True
        elif (m := _YEAR_LAST.fullmatch(text)) is not None:
            year_last.append((i, m))
        elif _MONTH_NAME.fullmatch(text):
            named[i] = True
        else:
            raise fail("not a date (write dates year first, 2020-02-05, or declare the column's format)", i)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        if iso.any():
            out[iso] = _parsed(_iso_text(stripped[iso]), "ISO8601", column, fail, np.flatnonzero(iso))
        if named.any():
            out[named] = _parsed(stripped[named], "mixed", column, fail, np.flatnonzero(named))
        if year_last:
            at = np.array([i for i, _ in year_last])
            out[at] = _parsed(_day_month(year_last, rows, fail), "ISO8601", column, fail, at)
    return pd.Series(out)


def _iso_text(texts: np.ndarray) -> np.ndarray:
    """Year-first texts in ISO spelling (``2020/2/5`` → ``2020-02-05``) for pandas' ISO parser."""
    out = []
    for t in texts:
        m = _YEAR_FIRST.fullmatch(t)
        out.append(t if m is None else _iso(int(m[1]), int(m[3]), int(m[4]), m[5]))
    return np.array(out, dtype=object)


def _iso(year: int, month: int, day: int, time: str | None) -> str:
    return f"{year:04d}-{month:02d}-{day:02d}" + ("" if time is None else f" {time}")


def _valid(year: int, month: int, day: int) -> bool:
    """Whether ``year-month-day`` is a day of the calendar."""
    return 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]


def _day_month(found: list[tuple[int, re.Match[str]]], rows: np.ndarray, fail) -> np.ndarray:
    """ISO texts of the year-last dates ``found`` (index, match), read in the one day/month order
    that fits them all; an error when none does or both do and they differ."""
    day_first = [_valid(int(m[4]), int(m[3]), int(m[1])) for _, m in found]
    month_first = [_valid(int(m[4]), int(m[1]), int(m[3])) for _, m in found]
    for (i, _), d, mo in zip(found, day_first, month_first, strict=True):
        if not d and not mo:
            raise fail("not a date (no day/month order makes it a day of the calendar)", i)
    if all(day_first) and all(month_first):
        differ = [i for i, m in found if int(m[1]) != int(m[3])]
        if differ:
            first = min(differ, key=lambda i: rows[i])
            raise fail(
                "ambiguous date: every value of the column reads as day/month and as month/day; declare the "
                f"column's format, e.g. format: '{_ORDERS['day']}' (day first) or '{_ORDERS['month']}'", first
            )
    if all(day_first):
        order = "day"
    elif all(month_first):
        order = "month"
    else:
        only_day = min((i for (i, _), mo in zip(found, month_first, strict=True) if not mo), key=lambda i: rows[i])
        only_month = min((i for (i, _), d in zip(found, day_first, strict=True) if not d), key=lambda i: rows[i])
        later = max(only_day, only_month, key=lambda i: rows[i])
        raise fail(
            "dates in both day/month orders: row "
            f"{int(rows[only_day])} can only be day first, row {int(rows[only_month])} only month first; fix the "
            f"values or declare the column's format (e.g. format: '{_ORDERS['day']}')", later
        )
    out = []
    for _, m in found:
        day, month = (int(m[1]), int(m[3])) if order == "day" else (int(m[3]), int(m[1]))
        out.append(_iso(int(m[4]), month, day, m[5]))
    return np.array(out, dtype=object)


def _parsed(texts: np.ndarray, how: str, column: str | None, fail, at: np.ndarray) -> np.ndarray:
    """``texts`` parsed by pandas (``how``: ISO8601 or mixed) as naive timestamps; a text it cannot
    parse is an error naming it (``at``: the texts' indexes for :func:`read_dates`' ``fail``)."""
    try:
        stamps = pd.to_datetime(pd.Series(texts, dtype=object), format=how, errors="coerce", utc=True)
    except (ValueError, TypeError, OverflowError) as exc:
        raise InputError(f"cannot read the values as dates: {exc}", column=column) from None
    bad = np.flatnonzero(stamps.isna().to_numpy())
    if bad.size:
        raise fail("not a date (no such day, or a time pandas cannot read)", int(at[bad[0]]))
    _refuse_nanoseconds(stamps, lambda i: fail(_NANOSECONDS, int(at[i])))
    return stamps.dt.tz_convert(None).astype("datetime64[us]").to_numpy()


#: dates are kept to the microsecond (so years 1–9999 fit); a finer time would be published changed
_NANOSECONDS = "a time finer than a microsecond is not kept (dates keep microseconds): round the value"


def _refuse_nanoseconds(stamps: pd.Series, fail) -> None:
    """Refuse (``fail(i)``) the first stamp with a part below the microsecond, which the microsecond
    dates would drop: a published value must be the record's own."""
    finer = np.flatnonzero(stamps.dt.nanosecond.to_numpy() != 0)
    if finer.size:
        raise fail(int(finer[0]))


def _in_format(texts: np.ndarray, format: str, column: str | None, fail) -> pd.Series:
    """``texts`` read in the strftime ``format``; a text that does not fit is an error naming it."""
    if not isinstance(format, str) or "%" not in format:
        raise InputError("a date format is a strftime pattern such as '%d/%m/%Y'", column=column, key="format",
                         value=format)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            stamps = pd.to_datetime(pd.Series(texts, dtype=object), format=format, errors="coerce", utc=True)
    except (ValueError, TypeError) as exc:
        raise InputError(f"not a valid date format: {exc}", column=column, key="format", value=format) from None
    bad = np.flatnonzero(stamps.isna().to_numpy())
    if bad.size:
        raise fail(f"not a date in the format {format!r}", int(bad[0]))
    _refuse_nanoseconds(stamps, lambda i: fail(_NANOSECONDS, i))
    return stamps.dt.tz_convert(None).astype("datetime64[us]").reset_index(drop=True)


def plain_scalars(data: object) -> object:
    """A mapping's numpy scalars as the Python numbers they hold (config data built in Python with numpy
    values: ``np.int64(5)`` counts as ``5`` for a strict validator); anything else as it is."""
    if isinstance(data, dict):
        return {k: v.item() if isinstance(v, np.generic) else v for k, v in data.items()}
    return data


def exact_numbers(labels: np.ndarray, floats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank of every distinct text of a numeric column (−1: missing) and the published text of
    every rank (:class:`~anonkit.table.ExactValues`): ordered by float, ties between texts with one float (integers
    beyond 2⁵³, decimals beyond 17 digits) broken by their exact decimal value."""
    present = np.flatnonzero(labels != "")
    exact = [_decimal(labels[i], floats[i]) for i in present]
    f = floats[present]
    order = np.argsort(f, kind="stable")
    fs = f[order]
    tied = np.flatnonzero(fs[1:] == fs[:-1])  # position p + 1 has p's float
    if tied.size:  # the runs of one float, sorted by their exact values
        starts = tied[np.r_[True, np.diff(tied) > 1]]
        ends = np.r_[tied[np.r_[np.diff(tied) > 1, False]], tied[-1]] + 2
        for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
            order[a:b] = sorted(order[a:b].tolist(), key=exact.__getitem__)
    new = np.ones(len(order), dtype=bool)
    new[1:] = fs[1:] != fs[:-1]
    for p in (tied + 1).tolist():
        new[p] = exact[order[p]] != exact[order[p - 1]]
    label_rank = np.full(len(labels), -1, dtype=np.int64)
    label_rank[present[order]] = np.cumsum(new) - 1
    texts = np.array([_number_text(exact[order[p]], float(fs[p])) for p in np.flatnonzero(new).tolist()],
                     dtype=object)
    return label_rank, texts


def _decimal(text: object, value: float) -> Decimal:
    """The exact value of a numeric cell's text (its float's exact value when the text is not a
    plain decimal)."""
    try:
        d = Decimal(str(text).strip())
    except InvalidOperation:
        return Decimal(value)
    return d if d.is_finite() else Decimal(value)


def _number_text(d: Decimal, value: float) -> str:
    """A number as published: a whole number in full, another in the float's shortest text when
    that is its exact value (``0.1``), else in full (``0.12345678901234567891``)."""
    if d == d.to_integral_value():
        return str(int(d))
    short = repr(value)
    return short if Decimal(short) == d else str(d.normalize()).lower()


def exact_dates(labels: np.ndarray, column: str, format: str | None) -> tuple[np.ndarray, np.ndarray]:
    """Rank of every distinct text of a date column (−1: missing) and the published text of every
    rank: the texts read as :func:`parse_dates` reads them (:func:`read_dates`), kept as integer
    nanoseconds since 1970."""
    present = np.flatnonzero(labels != "")
    stamps = pd.Series(read_dates(labels[present], column, format=format))
    values, label_rank = np.unique(stamps.to_numpy(dtype="datetime64[ns]").view(np.int64), return_inverse=True)
    out = np.full(len(labels), -1, dtype=np.int64)
    out[present] = label_rank
    return out, np.array([date_text(int(v)) for v in values], dtype=object)


def date_text(ns: int) -> str:
    """A date-time (nanoseconds since 1970-01-01) as published: ``YYYY-MM-DD`` at midnight, else
    ISO 8601 with as many fractional digits as it has (down to the nanosecond)."""
    stamp = pd.Timestamp(ns, unit="ns")
    return stamp.strftime("%Y-%m-%d") if stamp == stamp.normalize() else stamp.isoformat()
