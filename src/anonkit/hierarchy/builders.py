"""Hierarchy builders: generate a :class:`Hierarchy` from the values of a column.

These mirror ARX's builders in ``org.deidentifier.arx.aggregates`` (ARX compatibility notes §2.6):

* :func:`intervals` — ``HierarchyBuilderIntervalBased`` (numeric intervals, bottom/top coding),
* :func:`masking` — ``HierarchyBuilderRedactionBased`` (character redaction, e.g. ZIP codes),
* :func:`dates` — ``HierarchyBuilderDate`` (calendar granularities),
* :func:`order` — ``HierarchyBuilderOrderBased`` (groups of consecutive values in an order),
* :func:`nested` / :func:`from_parent_map` — a taxonomy written by hand (ARX's ``DefaultHierarchy``).

The trivial ``{values} → *`` hierarchy is :meth:`Hierarchy.flat`.

Conventions shared by the builders that take data values:

* The leaves are the *distinct* values, as the text :func:`anonkit.hierarchy._core._text` gives
  (``17.0`` → ``"17"``, missing → ``""``), so that :meth:`Hierarchy.encode` finds every value of the
  column the hierarchy was built from.
* A missing value (``None``, NaN, ``""``) cannot be generalized: its leaf ``""`` stays ``""`` on
  every level, except on the top level when that level is a single node (``*``), which it joins.
  Missing leaves come last in the rows.
* Errors are :class:`~anonkit.errors.InputError` naming the column (``name``), the offending value
  and its 1-based row in ``values`` (the row of its first occurrence).
* ``levels`` always means the height of the result: the number of generalization levels above the
  leaves, the top level included.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.hierarchy._core import Hierarchy, _text

__all__ = ["dates", "from_parent_map", "intervals", "masking", "nested", "order"]

TOP = "*"

# ---------------------------------------------------------------------------------------- helpers


def _distinct(values: Iterable[object], name: str | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct texts of ``values``, the 0-based row of each one's first occurrence, and which are missing.

    Values are factorized first (vectorised), so ``_text`` runs once per distinct value only.
    Different raw values with the same text (``1`` and ``"1"``, ``None`` and ``""``) become one leaf.
    A missing value's leaf is its ``_text``: ``""`` for every kind (None, NaN, NaT, pd.NA), the text
    :meth:`Hierarchy.encode` looks up; all missing leaves get the row of the first missing value.
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
    texts_u = [_text(u) for u in uniques]
    na_rows = np.flatnonzero(codes < 0)
    # the kinds of missing values present (None, NaN, NaT, pd.NA), each with its own text
    na_texts = sorted({_text(v) for v in pd.unique(series.iloc[na_rows].to_numpy(dtype=object))})
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


def _first_bad(bad: np.ndarray, texts: np.ndarray, rows: np.ndarray) -> tuple[str, int]:
    """The value and 1-based row of the earliest (in data order) entry flagged in ``bad``."""
    idx = np.flatnonzero(bad)
    i = int(idx[np.argmin(rows[idx])])
    return str(texts[i]), int(rows[i]) + 1


def _sort_by(keys: np.ndarray, texts: np.ndarray) -> np.ndarray:
    """Permutation sorting by ``keys``, ties broken by text."""
    by_text = np.argsort(texts, kind="stable")
    return by_text[np.argsort(keys[by_text], kind="stable")]


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


def _check_int(value: object, key: str, name: str | None, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"{key} must be an integer ≥ {minimum}", column=name, key=key, value=value)
    return int(value)


def _check_float(value: object, key: str, name: str | None, *, positive: bool = False) -> float:
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        x = math.nan
    if not math.isfinite(x) or (positive and x <= 0):
        need = "a positive number" if positive else "a finite number"
        raise InputError(f"{key} must be {need}", column=name, key=key, value=value)
    return x


def _check_char(value: object, key: str, name: str | None) -> str:
    if not isinstance(value, str) or len(value) != 1:
        raise InputError(f"{key} must be a single character", column=name, key=key, value=value)
    return value


def _fmt(x: float) -> str:
    """A bound as text: integers without ``.0``, other numbers with 15 significant digits."""
    x = float(x)
    if x.is_integer():
        return str(int(x))
    return f"{x:.15g}"


def _round_sig(x: np.ndarray, digits: int = 15) -> np.ndarray:
    """``x`` rounded to ``digits`` significant digits (removes the error of ``start + j·width``)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        magnitude = np.floor(np.log10(np.abs(x)))
    magnitude = np.where(np.isfinite(magnitude), magnitude, 0.0)
    scale = 10.0 ** (digits - 1 - magnitude)
    return np.round(x * scale) / scale


def _parse_numbers(texts: np.ndarray) -> np.ndarray:
    return pd.to_numeric(pd.Series(texts, dtype=object), errors="coerce").to_numpy(dtype=float)


# ---------------------------------------------------------------------------------------- intervals


def intervals(
    values: Iterable[object],
    *,
    width: float,
    levels: int | None = None,
    fanout: int = 2,
    bottom: float | None = None,
    top: float | None = None,
    start: float | None = None,
    label: str = "[{lo}-{hi}[",
    name: str | None = None,
) -> Hierarchy:
    """Numeric values into intervals, mirroring ARX's ``HierarchyBuilderIntervalBased``.

    Level 1 puts every value ``v`` into ``[lo, lo + width[`` with ``lo = start + j·width``. Level
    ``k`` merges ``fanout`` adjacent intervals of level ``k − 1`` (the groups stay aligned at
    ``start``), and the top level is ``*``.

    Parameters
    ----------
    values:
        The column's values; the leaves are their distinct texts, sorted numerically.
    width:
        Width of the level-1 intervals (> 0).
    levels:
        Height of the result (≥ 2): ``levels − 1`` interval levels, then ``*``. By default intervals
        are merged until one interval holds every non-coded value; that level is kept only when
        bottom/top-coded values exist beside it (otherwise it would equal ``*``).
    fanout:
        Number of intervals merged per level (≥ 2).
    bottom, top:
        Bottom/top coding: values ``< bottom`` become ``"<{bottom}"``, values ``≥ top`` become
        ``">={top}"`` on every level below ``*``. The other intervals are clipped to
        ``[bottom, top[`` (their label and bounds show the clipped ends).
    start:
        Alignment of the interval grid. Default: ``bottom`` if given, else the smallest value
        rounded down to a multiple of ``width``.
    label:
        Format of an interval's label, with the fields ``{lo}`` and ``{hi}``.
    name:
        The attribute's name, for error messages.

    Returns
    -------
    Hierarchy
        With ``bounds[L]`` (shape ``(size(L), 2)``, in node-code order) the interval of each node:
        ``[v, v]`` for a leaf, the interval's own (clipped) ends for an interval, ``[min, bottom]`` /
        ``[top, max]`` for the coded nodes and ``[min, max]`` of the data for ``*``; and
        ``interval_share[L]`` = width of the node's interval / (max − min of the leaves), ARX's
        ``DomainShareInterval`` — except that leaves get 0 here (ARX: 1/domain size) and the shares
        are not clipped at 1. If all leaves are equal, every non-leaf node gets share 1. A missing
        value's node has bounds NaN and share 0 below the top.

    Raises
    ------
    InputError
        For a value that is not a finite number (naming the value and its 1-based row) or an
        invalid parameter (naming it as ``key``).
    """
    width = _check_float(width, "width", name, positive=True)
    fanout = _check_int(fanout, "fanout", name, minimum=2)
    if levels is not None:
        levels = _check_int(levels, "levels", name, minimum=2)
    lower = None if bottom is None else _check_float(bottom, "bottom", name)
    upper = None if top is None else _check_float(top, "top", name)
    if lower is not None and upper is not None and lower >= upper:
        raise InputError("bottom must be smaller than top", column=name, key="bottom", value=bottom)
    try:
        label.format(lo="0", hi="1")
    except (KeyError, IndexError, ValueError, AttributeError):
        raise InputError(
            "label must be a format string with the fields {lo} and {hi}", column=name, key="label", value=label
        ) from None

    texts, rows, missing = _split_missing(*_distinct(values, name), name)
    nums = _parse_numbers(texts)
    bad = ~np.isfinite(nums)
    if bad.any():
        value, row = _first_bad(bad, texts, rows)
        raise InputError("value is not a finite number", column=name, value=value, row=row)
    perm = _sort_by(nums, texts)
    texts, nums = texts[perm], nums[perm]
    vmin, vmax = float(nums[0]), float(nums[-1])

    origin = _check_float(start, "start", name) if start is not None else None
    if origin is None:
        origin = lower if lower is not None else math.floor(vmin / width) * width
    if (vmax - vmin) / width > 1e15 or abs(vmax - origin) / width > 1e15 or abs(vmin - origin) / width > 1e15:
        raise InputError("width is too small for the range of the values", column=name, key="width", value=width)

    n = nums.size
    below = nums < lower if lower is not None else np.zeros(n, dtype=bool)
    above = nums >= upper if upper is not None else np.zeros(n, dtype=bool)
    inside = ~(below | above)

    # interval index of every value; corrected for rounding of (v - start) / width, so that the
    # (rounded) bounds decide, e.g. 0.3 falls into [0.3-0.4[ for width 0.1
    j = np.floor((nums - origin) / width)
    j -= _round_sig(origin + j * width) > nums
    j += _round_sig(origin + (j + 1) * width) <= nums
    j = j.astype(np.int64)

    if levels is None:
        n_interval_levels = 1
        if inside.any():
            jmin, jmax = int(j[inside].min()), int(j[inside].max())
            k = 1
            while jmin // fanout ** (k - 1) != jmax // fanout ** (k - 1):
                k += 1
            n_interval_levels = k if (below.any() or above.any()) else max(1, k - 1)
    else:
        n_interval_levels = levels - 1

    below_label = f"<{_fmt(lower)}" if lower is not None else ""
    above_label = f">={_fmt(upper)}" if upper is not None else ""
    columns: list[np.ndarray] = []
    row_bounds: list[np.ndarray] = [np.stack([nums, nums], axis=1)]
    for k in range(1, n_interval_levels + 1):
        size = fanout ** (k - 1)
        group = j // size
        lo = _round_sig(origin + (group * size) * width)
        hi = _round_sig(origin + ((group + 1) * size) * width)
        if lower is not None:
            lo = np.maximum(lo, lower)
        if upper is not None:
            hi = np.minimum(hi, upper)
        col = np.empty(n, dtype=object)
        if inside.any():
            _, first, inverse = np.unique(group[inside], return_index=True, return_inverse=True)
            lo_in, hi_in = lo[inside], hi[inside]
            names = np.array([label.format(lo=_fmt(lo_in[i]), hi=_fmt(hi_in[i])) for i in first], dtype=object)
            col[inside] = names[inverse]
        col[below] = below_label
        col[above] = above_label
        lo = np.where(below, vmin, np.where(above, upper if upper is not None else 0.0, lo))
        hi = np.where(below, lower if lower is not None else 0.0, np.where(above, vmax, hi))
        columns.append(col)
        row_bounds.append(np.stack([lo, hi], axis=1))
    columns.append(np.full(n, TOP, dtype=object))
    row_bounds.append(np.tile([vmin, vmax], (n, 1)))

    grid = _grid(texts, columns, missing, top_single=True)
    if missing:
        for level, b in enumerate(row_bounds):
            extra = [vmin, vmax] if level == len(row_bounds) - 1 else [np.nan, np.nan]
            row_bounds[level] = np.vstack([b, np.tile(extra, (len(missing), 1))])
    h = Hierarchy(grid, name=name, source="(intervals)")

    domain = vmax - vmin
    bounds: list[np.ndarray] = []
    shares: list[np.ndarray] = []
    for level, b in enumerate(row_bounds):
        node = np.full((h.size(level), 2), np.nan)
        node[h.maps[level]] = b
        bounds.append(node)
        if level == 0:
            share = np.zeros(h.size(level))
        elif level == h.height:
            share = np.ones(h.size(level))
        elif domain > 0:
            share = np.nan_to_num((node[:, 1] - node[:, 0]) / domain, nan=0.0)
        else:
            share = np.where(np.isnan(node[:, 0]), 0.0, 1.0)
        shares.append(share)
    h.bounds = bounds
    h.interval_share = shares  # type: ignore[attr-defined]
    return h


# ---------------------------------------------------------------------------------------- masking


def masking(
    values: Iterable[object],
    *,
    levels: int | None = None,
    direction: str = "right",
    char: str = "*",
    pad: str | None = None,
    name: str | None = None,
) -> Hierarchy:
    """Character masking (redaction), mirroring ARX's ``HierarchyBuilderRedactionBased``.

    Level ``i`` replaces ``i`` characters by ``char``: the last ``i`` for ``direction="right"``
    (``47677`` → ``4767*`` → ``476**`` …), the first ``i`` for ``"left"``. As in ARX's default
    alignment (left to right), shorter values are padded on the right with ``pad`` to the length of
    the longest value before masking; the leaf keeps the unpadded value.

    Parameters
    ----------
    values:
        The column's values; the leaves are their distinct texts, sorted as text.
    levels:
        Height of the result, 1 ≤ ``levels`` ≤ the longest value's length. Default: that length, so
        the top is all ``char`` (a single node).
    direction:
        ``"right"`` (mask from the end) or ``"left"`` (mask from the start).
    char:
        The masking character.
    pad:
        Padding character. Without it, all values must have the same length.
    name:
        The attribute's name, for error messages.

    Raises
    ------
    InputError
        If ``pad`` is not given and a value's length differs from the first value's (naming the first
        such value in data order and its 1-based row), or for an invalid parameter.
    """
    if direction not in ("right", "left"):
        raise InputError('direction must be "right" or "left"', column=name, key="direction", value=direction)
    char = _check_char(char, "char", name)
    if pad is not None:
        pad = _check_char(pad, "pad", name)
    texts, rows, missing = _split_missing(*_distinct(values, name), name)
    series = pd.Series(texts.tolist(), dtype="str")
    lengths = series.str.len().to_numpy(dtype=np.int64)
    width = int(lengths.max())
    if pad is None:
        first_len = lengths[np.argmin(rows)]
        bad = lengths != first_len
        if bad.any():
            value, row = _first_bad(bad, texts, rows)
            raise InputError(
                f"values to mask must all have the same length ({len(value)} characters here, "
                f"{first_len} in the first value); give pad= to pad shorter values",
                column=name,
                value=value,
                row=row,
            )
    height = width if levels is None else _check_int(levels, "levels", name, minimum=1)
    if height > width:
        raise InputError(
            f"levels must be at most the length of the longest value ({width})",
            column=name,
            key="levels",
            value=levels,
        )
    perm = np.argsort(texts, kind="stable")
    series = series.iloc[perm].reset_index(drop=True)
    padded = series.str.pad(width, side="right", fillchar=pad) if pad is not None else series
    columns = []
    for i in range(1, height + 1):
        masked = padded.str.slice(0, width - i) + char * i if direction == "right" else char * i + padded.str.slice(i)
        columns.append(masked.to_numpy(dtype=object))
    grid = _grid(texts[perm], columns, missing, top_single=height == width)
    return Hierarchy(grid, name=name, source="(masking)")


# ---------------------------------------------------------------------------------------- dates

#: Supported date granularities, finest first (the order they must appear in).
DATE_GRANULARITIES: tuple[str, ...] = (
    "minute",
    "hour",
    "day",
    "week",
    "month",
    "quarter",
    "year",
    "decade",
    "century",
    "millennium",
)


def _date_labels(when: pd.Series, granularity: str) -> np.ndarray:
    """Labels of the parsed dates ``when`` at ``granularity`` (vectorised)."""
    dt = when.dt
    year = dt.year.astype(np.int64)
    if granularity == "minute":
        out = dt.strftime("%Y-%m-%d %H:%M")
    elif granularity == "hour":
        out = dt.strftime("%Y-%m-%d %H:00")
    elif granularity == "day":
        out = dt.strftime("%Y-%m-%d")
    elif granularity == "week":
        iso = dt.isocalendar()
        out = iso["year"].astype(str) + "-W" + iso["week"].astype(str).str.zfill(2)
    elif granularity == "month":
        out = dt.strftime("%Y-%m")
    elif granularity == "quarter":
        out = year.astype(str) + "-Q" + dt.quarter.astype(str)
    elif granularity == "year":
        out = year.astype(str)
    elif granularity == "decade":
        out = (year // 10 * 10).astype(str) + "s"
    else:
        span = 100 if granularity == "century" else 1000
        first = year // span * span
        out = first.astype(str) + "-" + (first + span - 1).astype(str)
    return out.to_numpy(dtype=object)


def _parse_dates(texts: np.ndarray, fmt: str | None, name: str | None) -> pd.Series:
    series = pd.Series(texts, dtype=object)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            when = pd.to_datetime(series, format=fmt, errors="coerce")
            failed = when.isna().to_numpy()
            if fmt is None and failed.any():
                # the format pandas inferred from the first value does not fit all: parse one by one
                retry = pd.to_datetime(series[failed], format="mixed", errors="coerce")
                when = when.combine_first(retry)
    except (ValueError, TypeError, OverflowError) as exc:
        raise InputError(f"cannot parse the values as dates: {exc}", column=name) from None
    if not pd.api.types.is_datetime64_any_dtype(when):
        raise InputError("cannot parse the values as dates (mixed time zones?)", column=name)
    return when


def dates(
    values: Iterable[object],
    *,
    granularities: Sequence[str] = ("day", "month", "year", "decade"),
    format: str | None = None,
    name: str | None = None,
) -> Hierarchy:
    """Dates generalized to calendar granularities, mirroring ARX's ``HierarchyBuilderDate``.

    Level 0 is the original text, level ``i`` the date at ``granularities[i - 1]``, the top ``*``.

    Granularities and their labels: ``"minute"`` (``2024-03-05 14:07``), ``"hour"``
    (``2024-03-05 14:00``), ``"day"`` (``2024-03-05``), ``"week"`` (ISO week, ``2024-W10``),
    ``"month"`` (``2024-03``), ``"quarter"`` (``2024-Q1``), ``"year"`` (``2024``), ``"decade"``
    (``2020s``), ``"century"`` (``2000-2099``), ``"millennium"`` (``2000-2999``).

    Parameters
    ----------
    values:
        The column's values; the leaves are their distinct texts, sorted by date.
    granularities:
        Coarser with every step (in the order of :data:`DATE_GRANULARITIES`).
    format:
        ``strftime`` format for :func:`pandas.to_datetime`. Default: pandas' inference, values that
        do not fit the inferred format are parsed one by one.
    name:
        The attribute's name, for error messages.

    Raises
    ------
    InputError
        For an unparseable value (naming the value and its 1-based row), an unknown granularity or
        one that is not coarser than the previous, and for consecutive granularities that do not nest
        for these dates (an ISO week across a month's end falls into two months).
    """
    grans = [granularities] if isinstance(granularities, str) else list(granularities)
    rank = {g: i for i, g in enumerate(DATE_GRANULARITIES)}
    for i, g in enumerate(grans):
        if g not in rank:
            raise InputError(
                f"unknown date granularity; supported: {', '.join(DATE_GRANULARITIES)}",
                column=name,
                key="granularities",
                value=g,
            )
        if i and rank[g] <= rank[grans[i - 1]]:
            raise InputError(
                f"date granularities must get coarser, but {g!r} follows {grans[i - 1]!r}",
                column=name,
                key="granularities",
                value=g,
            )
    texts, rows, missing = _split_missing(*_distinct(values, name), name)
    when = _parse_dates(texts, format, name)
    bad = when.isna().to_numpy()
    if bad.any():
        value, row = _first_bad(bad, texts, rows)
        how = f" in format {format!r}" if format is not None else ""
        raise InputError(f"value is not a date{how}", column=name, value=value, row=row)
    perm = _sort_by(when.astype("int64").to_numpy(), texts)
    texts, rows = texts[perm], rows[perm]
    when = when.iloc[perm].reset_index(drop=True)
    columns = [_date_labels(when, g) for g in grans]
    for i in range(1, len(columns)):
        _check_nested(columns[i - 1], columns[i], grans[i - 1], grans[i], texts, rows, name)
    columns.append(np.full(texts.size, TOP, dtype=object))
    grid = _grid(texts, columns, missing, top_single=True)
    return Hierarchy(grid, name=name, source="(dates)")


def _check_nested(
    child: np.ndarray,
    parent: np.ndarray,
    child_name: str,
    parent_name: str,
    texts: np.ndarray,
    rows: np.ndarray,
    name: str | None,
) -> None:
    """Raise if a ``child`` label occurs with two different ``parent`` labels."""
    frame = pd.DataFrame({"c": child, "p": parent})
    first_parent = frame.groupby("c", sort=False)["p"].transform("first").to_numpy(dtype=object)
    bad = first_parent != parent
    if bad.any():
        value, row = _first_bad(bad, texts, rows)
        i = int(np.flatnonzero(texts == value)[0])
        raise InputError(
            f"{child_name} {child[i]!r} falls into both {parent_name} {first_parent[i]!r} and "
            f"{parent[i]!r}; {child_name!r} cannot be generalized to {parent_name!r} for these dates",
            column=name,
            key="granularities",
            value=value,
            row=row,
        )


# ---------------------------------------------------------------------------------------- order


def order(
    values: Iterable[object],
    *,
    sizes: Sequence[int],
    order: Sequence[object] | None = None,
    numeric: bool | None = None,
    label: str = "set",
    name: str | None = None,
) -> Hierarchy:
    """Groups of consecutive values in an order, mirroring ARX's ``HierarchyBuilderOrderBased``.

    The distinct values are sorted — by the explicit ``order`` if given, else numerically if
    ``numeric`` (by default: if every value is a number), else as text. Level 1 groups runs of
    ``sizes[0]`` consecutive values, level ``k`` groups runs of ``sizes[k - 1]`` groups of level
    ``k − 1``; the top is ``*``. The last group of a level may be smaller.

    Parameters
    ----------
    values:
        The column's values; the leaves are their distinct texts, in the sort order.
    sizes:
        Group size per level (each ≥ 1); the height of the result is ``len(sizes) + 1``.
    order:
        Explicit order of the values (ARX's ``ORDERED_STRING``). Only values that occur are grouped:
        entries of ``order`` missing from the data take no place in a group. Takes precedence over
        ``numeric``.
    numeric:
        ``True``: sort numerically (every value must be a number); ``False``: as text; ``None``:
        numerically if every value is a number.
    label:
        ``"set"``: ``{a, b, c}`` (all leaves below the group), ``"range"``: ``a-c`` (first and last
        leaf; a single leaf is labelled by itself).
    name:
        The attribute's name, for error messages.

    Raises
    ------
    InputError
        For a value missing from ``order`` or, with ``numeric=True``, not a number (naming the value
        and its 1-based row), a value listed twice in ``order``, or an invalid parameter.
    """
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence) or len(sizes) == 0:
        raise InputError("sizes must be a non-empty list of group sizes", column=name, key="sizes", value=sizes)
    sizes = [_check_int(s, "sizes", name, minimum=1) for s in sizes]
    if label not in ("set", "range"):
        raise InputError('label must be "set" or "range"', column=name, key="label", value=label)
    texts, rows, missing = _split_missing(*_distinct(values, name), name)
    if order is not None:
        ranks = pd.Index([_text(o) for o in order], dtype=object)
        if ranks.has_duplicates:
            raise InputError(
                "value occurs twice in the explicit order",
                column=name,
                key="order",
                value=ranks[ranks.duplicated()][0],
            )
        position = ranks.get_indexer(pd.Index(texts, dtype=object))
        bad = position < 0
        if bad.any():
            value, row = _first_bad(bad, texts, rows)
            raise InputError("value is missing from the explicit order", column=name, value=value, row=row)
        perm = np.argsort(position, kind="stable")
    elif numeric is not False:
        nums = _parse_numbers(texts)
        bad = np.isnan(nums)
        if numeric and bad.any():
            value, row = _first_bad(bad, texts, rows)
            raise InputError("value is not a number", column=name, value=value, row=row)
        perm = _sort_by(nums, texts) if not bad.any() else np.argsort(texts, kind="stable")
    else:
        perm = np.argsort(texts, kind="stable")
    texts = texts[perm]
    m = texts.size
    columns = []
    run = 1
    for size in sizes:
        run *= size
        starts = np.arange(0, m, run)
        ends = np.minimum(starts + run, m)
        if label == "range":
            names = [
                texts[a] if b - a == 1 else f"{texts[a]}-{texts[b - 1]}"
                for a, b in zip(starts.tolist(), ends.tolist(), strict=True)
            ]
        else:
            names = [
                "{" + ", ".join(texts[a:b].tolist()) + "}" for a, b in zip(starts.tolist(), ends.tolist(), strict=True)
            ]
        columns.append(np.asarray(names, dtype=object)[np.arange(m) // run])
    columns.append(np.full(m, TOP, dtype=object))
    grid = _grid(texts, columns, missing, top_single=True)
    return Hierarchy(grid, name=name, source="(order)")


# ---------------------------------------------------------------------------------------- taxonomies


def _tree_rows(paths: list[list[str]]) -> list[list[str]]:
    """Rows from leaf-to-root paths; shorter paths repeat their leaf downward to the full height."""
    height = max(len(p) for p in paths)
    return [[p[0]] * (height - len(p)) + p for p in paths]


def _check_unique_leaves(paths: list[list[str]], name: str | None, what: str) -> None:
    seen: set[str] = set()
    for p in paths:
        if p[0] in seen:
            raise InputError(f"leaf occurs twice in the {what}", column=name, value=p[0])
        seen.add(p[0])


def _children(node: object) -> list[tuple[object, object]]:
    """The ``(label, subtree)`` children of a taxonomy node's value."""
    if node is None:
        return []
    if isinstance(node, Mapping):
        return list(node.items())
    if isinstance(node, (list, tuple, set, frozenset)):
        out: list[tuple[object, object]] = []
        for item in node:
            if isinstance(item, Mapping):
                out.extend(item.items())
            else:
                out.append((item, None))
        return out
    return [(node, None)]


def nested(mapping: Mapping[object, object], *, name: str | None = None) -> Hierarchy:
    """A taxonomy written as nested dicts and lists, like a hand-written ARX ``DefaultHierarchy``.

    Example: ``{"*": {"Europe": ["France", "Germany"], "Asia": {"East": ["China"]}}}``. A dict maps
    a node to its children (a dict, a list of leaves and/or dicts, or a single leaf); a key whose
    value is ``None`` or empty is a leaf. A mapping with one key is rooted at that key; with several
    keys, ``*`` is added as the root.

    Leaves at different depths: every row must have the same height, so a shallow leaf is repeated
    downward — it keeps its own value on the extra lowest levels (``{"*": {"Asia": {"East":
    ["China"]}, "Other": None}}`` gives ``China;East;Asia;*`` and ``Other;Other;Other;*``). The leaf
    is thus generalized only when the level of its parent is reached, as in the tree.

    Raises
    ------
    InputError
        If the taxonomy is empty, a leaf occurs twice, or a node has two different parents on one
        level (the mapping would not be functional).
    """
    if not isinstance(mapping, Mapping) or not mapping:
        raise InputError("taxonomy must be a non-empty dict", column=name)
    root: tuple[object, object] = next(iter(mapping.items())) if len(mapping) == 1 else (TOP, mapping)
    paths: list[list[str]] = []
    stack: list[tuple[object, object, list[str]]] = [(root[0], root[1], [])]
    while stack:
        node, sub, above = stack.pop()
        path = [_text(node), *above]
        kids = _children(sub)
        if not kids:
            paths.append(path)
        stack.extend((k, v, path) for k, v in reversed(kids))
    if len(paths) == 1 and len(paths[0]) == 1:
        raise InputError("taxonomy has no leaves below its root", column=name, value=paths[0][0])
    _check_unique_leaves(paths, name, "taxonomy")
    return Hierarchy(_tree_rows(paths), name=name, source="(nested)")


def from_parent_map(parent: Mapping[object, object], *, name: str | None = None) -> Hierarchy:
    """A taxonomy given as ``child → parent`` pairs (e.g. two columns of a lookup table).

    Leaves are the children that are nobody's parent, in the mapping's order. Nodes without a parent
    are roots; with several roots, ``*`` is added above them. Shallow leaves are repeated downward
    as in :func:`nested`.

    Raises
    ------
    InputError
        If the map is empty, has a cycle (or a value that is its own parent), or the resulting
        hierarchy is not functional.
    """
    if not isinstance(parent, Mapping) or not parent:
        raise InputError("parent map must be a non-empty dict", column=name)
    up = {_text(c): _text(p) for c, p in parent.items()}
    if len(up) != len(parent):
        raise InputError("parent map names a child twice (as different values with the same text)", column=name)
    depth: dict[str, int] = {}
    for child in up:
        chain: list[str] = []
        node = child
        on_chain: set[str] = set()
        while node in up and node not in depth:
            if node in on_chain:
                raise InputError("parent map has a cycle", column=name, value=node)
            on_chain.add(node)
            chain.append(node)
            node = up[node]
        d = depth.get(node, 0)
        for c in reversed(chain):
            d += 1
            depth[c] = d
    parents = set(up.values())
    roots = {p for p in parents if p not in up}
    leaves = [c for c in up if c not in parents]
    paths = []
    for leaf in leaves:
        path = [leaf]
        while path[-1] in up:
            path.append(up[path[-1]])
        if len(roots) > 1:
            path.append(TOP)
        paths.append(path)
    _check_unique_leaves(paths, name, "parent map")
    return Hierarchy(_tree_rows(paths), name=name, source="(parent map)")
