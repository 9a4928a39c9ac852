"""The interval builder: numeric values into intervals, with bottom/top coding.

Mirrors ARX's ``HierarchyBuilderIntervalBased`` in ``org.deidentifier.arx.aggregates`` (ARX
compatibility notes §2.6), including its ``DomainShareInterval`` (the ``interval_share`` of every
node). The conventions shared by all builders are described in :mod:`anonkit.hierarchy.builders`.

:func:`intervals` is a pipeline of small steps: the parameters are checked
(:func:`check_parameters`), the values parsed and sorted (:func:`_sorted_numbers`), the grid aligned
(:func:`_origin`), bottom/top coding applied (:func:`_coding`), every value put into its level-1
interval (:func:`_interval_index`), the levels built (:func:`_n_interval_levels`,
:func:`_interval_level` with its bounds and labels) and finally the bounds and shares of every node
set (:func:`_set_bounds_and_shares`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from anonkit.errors import InputError
from anonkit.hierarchy._core import Hierarchy
from anonkit.hierarchy.builders._shared import _check_int, _column, _parse_numbers, _reject, _sort_by, _with_top

#: The largest number of level-1 intervals between the values and the grid's origin.
_MAX_INTERVALS = 1e15


@dataclass(frozen=True)
class _Spec:
    """The checked parameters of :func:`intervals`: ``lower``/``upper`` are the bottom/top coding
    bounds (None: no coding), ``levels`` the requested height (None: as many as needed)."""

    width: float
    fanout: int
    levels: int | None
    lower: float | None
    upper: float | None
    label: str


@dataclass(frozen=True)
class _Coding:
    """Bottom/top coding of the sorted values: which are bottom-coded (``below``), top-coded
    (``above``) or neither (``inside``), and the labels of the coded nodes."""

    below: np.ndarray
    above: np.ndarray
    inside: np.ndarray
    below_label: str
    above_label: str

    @property
    def any_coded(self) -> bool:
        """Whether some value is bottom- or top-coded."""
        return bool(self.below.any() or self.above.any())


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
    spec = check_parameters(width=width, levels=levels, fanout=fanout, bottom=bottom, top=top, label=label, name=name)
    texts, nums, rows, missing = _sorted_numbers(values, name)
    coding = _coding(nums, spec)
    origin = _origin(start, spec, nums, rows, coding, texts, name)
    j = _interval_index(np.where(coding.inside, nums, origin), origin, spec.width)  # (coded values: unused)
    columns: list[np.ndarray] = []
    row_bounds: list[np.ndarray] = [np.stack([nums, nums], axis=1)]
    for k in range(1, _n_interval_levels(j, coding, spec) + 1):
        column, bounds = _interval_level(k, j, nums, origin, coding, spec)
        columns.append(column)
        row_bounds.append(bounds)
    row_bounds.append(np.tile([nums[0], nums[-1]], (nums.size, 1)))
    h = _with_top(texts, columns, missing, name, "(intervals)")
    _set_bounds_and_shares(h, row_bounds, len(missing))
    return h


# ---------------------------------------------------------------------------------------- parameters


def check_parameters(
    *,
    width: object,
    levels: object,
    fanout: object,
    bottom: object,
    top: object,
    label: str,
    name: str | None,
) -> _Spec:
    """Check the parameters of :func:`intervals` but ``start`` (checked after the values), in the
    order of the signature; an invalid one is an :class:`InputError` naming it as ``key``."""
    checked_width = _check_float(width, "width", name, positive=True)
    checked_fanout = _check_int(fanout, "fanout", name, minimum=2)
    checked_levels = None if levels is None else _check_int(levels, "levels", name, minimum=2)
    lower = None if bottom is None else _check_float(bottom, "bottom", name)
    upper = None if top is None else _check_float(top, "top", name)
    if lower is not None and upper is not None and lower >= upper:
        raise InputError("bottom must be smaller than top", column=name, key="bottom", value=bottom)
    _check_label(label, name)
    return _Spec(checked_width, checked_fanout, checked_levels, lower, upper, label)


def _check_float(value: object, key: str, name: str | None, *, positive: bool = False) -> float:
    """``value`` as a float; an error naming ``key`` unless it is finite (and > 0 if ``positive``)."""
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        x = math.nan
    if not math.isfinite(x) or (positive and x <= 0):
        need = "a positive number" if positive else "a finite number"
        raise InputError(f"{key} must be {need}", column=name, key=key, value=value)
    return x


def _check_label(label: str, name: str | None) -> None:
    """An error unless ``label`` is a format string whose only fields are ``{lo}`` and ``{hi}``."""
    try:
        label.format(lo="0", hi="1")
    except (KeyError, IndexError, ValueError, AttributeError):
        raise InputError(
            "label must be a format string with the fields {lo} and {hi}", column=name, key="label", value=label
        ) from None


def _sorted_numbers(
    values: Iterable[object], name: str | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """The distinct non-missing texts of ``values``, their numbers and the 0-based row of each
    one's first occurrence, sorted numerically (ties by text), and the texts of the missing values;
    a value that is not a finite number is an error."""
    texts, rows, missing = _column(values, name)
    nums = _parse_numbers(texts)
    _reject(~np.isfinite(nums), texts, rows, "value is not a finite number", name)
    perm = _sort_by(nums, texts)
    return texts[perm], nums[perm], rows[perm], missing


def _origin(
    start: object, spec: _Spec, nums: np.ndarray, rows: np.ndarray, coding: _Coding, texts: np.ndarray,
    name: str | None,
) -> float:
    """The alignment of the interval grid: ``start``, else ``bottom``, else the smallest value
    rounded down to a multiple of ``width``.

    More than ``_MAX_INTERVALS`` intervals between the values that are not bottom/top-coded is an
    error naming its cause: the value farthest from the others' middle when the values themselves
    span that many (an age of 10²³ is a wrong value, not a wrong width), else ``start``."""
    inside = nums[coding.inside] if coding.inside.any() else nums
    vmin, vmax = float(inside[0]), float(inside[-1])
    if start is not None:
        origin = _check_float(start, "start", name)
    elif spec.lower is not None:
        origin = spec.lower
    else:
        origin = math.floor(vmin / spec.width) * spec.width
    if (vmax - vmin) / spec.width > _MAX_INTERVALS:
        middle = float(np.median(inside))
        far = np.flatnonzero(coding.inside)[[0, -1]] if coding.inside.any() else np.array([0, len(nums) - 1])
        i = int(far[1] if abs(nums[far[1]] - middle) >= abs(nums[far[0]] - middle) else far[0])
        raise InputError(
            f"value is far from the others: {vmax - vmin:.3g} apart is more than {_MAX_INTERVALS:.0e} intervals "
            f"of width {_fmt(spec.width)}; fix the value, or bottom/top-code it (bottom, top) or widen the intervals",
            column=name, value=texts[i], row=int(rows[i]) + 1,
        )
    if max(abs(vmax - origin), abs(vmin - origin)) / spec.width > _MAX_INTERVALS:
        raise InputError(f"start is too far from the values for intervals of width {_fmt(spec.width)}",
                         column=name, key="start", value=start)
    return origin


# ---------------------------------------------------------------------------------------- coding


def _coding(nums: np.ndarray, spec: _Spec) -> _Coding:
    """Bottom/top coding: values ``< bottom`` are labelled ``<{bottom}``, values ``≥ top``
    ``>={top}``; without a bound, no value is coded on its side."""
    no_value = np.zeros(nums.size, dtype=bool)
    below = nums < spec.lower if spec.lower is not None else no_value
    above = nums >= spec.upper if spec.upper is not None else no_value
    return _Coding(
        below=below,
        above=above,
        inside=~(below | above),
        below_label=f"<{_fmt(spec.lower)}" if spec.lower is not None else "",
        above_label=f">={_fmt(spec.upper)}" if spec.upper is not None else "",
    )


# ---------------------------------------------------------------------------------------- levels


def _interval_index(nums: np.ndarray, origin: float, width: float) -> np.ndarray:
    """The index ``j`` of every value's level-1 interval ``[origin + j·width, origin + (j+1)·width[``.

    Corrected for the rounding of ``(v − origin) / width``, so that the (rounded) bounds decide,
    e.g. 0.3 falls into [0.3-0.4[ for width 0.1.
    """
    j = np.floor((nums - origin) / width)
    j -= _round_sig(origin + j * width) > nums
    j += _round_sig(origin + (j + 1) * width) <= nums
    return j.astype(np.int64)


def _n_interval_levels(j: np.ndarray, coding: _Coding, spec: _Spec) -> int:
    """The number of interval levels below ``*``: ``levels − 1`` if given, else as many merges as it
    takes until one interval holds every non-coded value (that level only if coded values exist)."""
    if spec.levels is not None:
        return spec.levels - 1
    if not coding.inside.any():
        return 1
    jmin, jmax = int(j[coding.inside].min()), int(j[coding.inside].max())
    if jmin < 0 <= jmax:  # intervals left and right of the origin never merge into one
        raise InputError(
            "values lie below start and above it, so no interval level holds them all: give levels, a start at "
            "or below the smallest value, or bottom coding",
            key="start",
        )
    k = 1
    while jmin // spec.fanout ** (k - 1) != jmax // spec.fanout ** (k - 1):
        k += 1
    return k if coding.any_coded else max(1, k - 1)


def _interval_level(
    k: int, j: np.ndarray, nums: np.ndarray, origin: float, coding: _Coding, spec: _Spec
) -> tuple[np.ndarray, np.ndarray]:
    """The label and the bounds (shape ``(n, 2)``) of every sorted value's node on interval level
    ``k`` ≥ 1, which groups ``fanout^(k−1)`` level-1 intervals; coded values get the coded node's
    label and its bounds ``[min, bottom]`` / ``[top, max]``."""
    size = spec.fanout ** (k - 1)
    group = j // size
    lo, hi = _group_bounds(group, size, origin, spec)
    column = _level_labels(group, lo, hi, coding, spec.label)
    vmin, vmax = float(nums[0]), float(nums[-1])
    lo = np.where(coding.below, vmin, np.where(coding.above, spec.upper if spec.upper is not None else 0.0, lo))
    hi = np.where(coding.below, spec.lower if spec.lower is not None else 0.0, np.where(coding.above, vmax, hi))
    return column, np.stack([lo, hi], axis=1)


def _group_bounds(group: np.ndarray, size: int, origin: float, spec: _Spec) -> tuple[np.ndarray, np.ndarray]:
    """The ends of the interval ``group`` (of ``size`` level-1 intervals), rounded to 15 significant
    digits and clipped to ``[bottom, top[``."""
    lo = _round_sig(origin + (group * size) * spec.width)
    hi = _round_sig(origin + ((group + 1) * size) * spec.width)
    if spec.lower is not None:
        lo = np.maximum(lo, spec.lower)
    if spec.upper is not None:
        hi = np.minimum(hi, spec.upper)
    return lo, hi


def _level_labels(group: np.ndarray, lo: np.ndarray, hi: np.ndarray, coding: _Coding, label: str) -> np.ndarray:
    """The label of every value's node: ``label`` with the interval's ends for a non-coded value
    (formatted once per interval), the coded node's label otherwise."""
    column = np.empty(group.size, dtype=object)
    inside = coding.inside
    if inside.any():
        _, first, inverse = np.unique(group[inside], return_index=True, return_inverse=True)
        lo_in, hi_in = lo[inside], hi[inside]
        names = np.array([label.format(lo=_fmt(lo_in[i]), hi=_fmt(hi_in[i])) for i in first], dtype=object)
        column[inside] = names[inverse]
    column[coding.below] = coding.below_label
    column[coding.above] = coding.above_label
    return column


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


# ---------------------------------------------------------------------------------------- bounds and shares


def _set_bounds_and_shares(h: Hierarchy, row_bounds: list[np.ndarray], n_missing: int) -> None:
    """Set ``h.bounds`` and ``h.interval_share`` from the bounds of every leaf's node per level
    (``row_bounds``: the non-missing leaves, sorted; the last level is the top ``[min, max]``)."""
    vmin, vmax = row_bounds[0][0, 0], row_bounds[0][-1, 0]
    if n_missing:
        row_bounds = _with_missing_rows(row_bounds, n_missing, vmin, vmax)
    bounds: list[np.ndarray] = []
    for level, b in enumerate(row_bounds):
        node = np.full((h.size(level), 2), np.nan)
        node[h.maps[level]] = b
        bounds.append(node)
    h.bounds = bounds
    shares = [_interval_share(h, level, node, vmax - vmin) for level, node in enumerate(bounds)]
    h.interval_share = shares  # type: ignore[attr-defined]


def _with_missing_rows(row_bounds: list[np.ndarray], n_missing: int, vmin: float, vmax: float) -> list[np.ndarray]:
    """``row_bounds`` with the rows of the missing leaves appended: NaN below the top, whose bounds
    (``[min, max]`` of the data) the missing values join."""
    top = len(row_bounds) - 1
    return [
        np.vstack([b, np.tile([vmin, vmax] if level == top else [np.nan, np.nan], (n_missing, 1))])
        for level, b in enumerate(row_bounds)
    ]


def _interval_share(h: Hierarchy, level: int, node: np.ndarray, domain: float) -> np.ndarray:
    """ARX's ``DomainShareInterval`` of the nodes of ``level`` with the bounds ``node``: 0 for the
    leaves, 1 for the top, else the interval's width / ``domain`` (1 if ``domain`` is 0), 0 for a
    missing value's node."""
    if level == 0:
        return np.zeros(h.size(level))
    if level == h.height:
        return np.ones(h.size(level))
    if domain > 0:
        return np.nan_to_num((node[:, 1] - node[:, 0]) / domain, nan=0.0)
    return np.where(np.isnan(node[:, 0]), 0.0, 1.0)
