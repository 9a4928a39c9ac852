"""The ranges builder: numbers into nested intervals of equal width or of equal frequency, with the
widths chosen from the data.

:func:`intervals` needs a width; a data holder starting on a new table rarely knows a good one. This
builder chooses it: ``method="width"`` takes a *round* width (1, 2 or 5 times a power of ten) that
cuts the values' span into about ``groups`` intervals and hands over to :func:`intervals` (its labels
``[lo-hi[``, bounds and shares); ``method="frequency"`` cuts the sorted values into about ``groups``
runs holding about as many records each (ages where people are many get narrow intervals, the rare
old ages one wide one) and labels each run ``[lo-hi]`` with the smallest and largest value it holds,
so a label covers exactly its values. On both, level ``k`` merges ``fanout`` adjacent intervals of
level ``k − 1`` (the levels nest) until one interval would hold everything; the top is ``*``.

The conventions shared by all builders are described in :mod:`anonkit.hierarchy.builders`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pandas as pd

from anonkit.hierarchy._core import Hierarchy
from anonkit.hierarchy.builders._counted import counted_texts
from anonkit.hierarchy.builders._shared import _check_choice, _check_int, _reject, _sort_by, _with_top
from anonkit.hierarchy.builders.intervals import _fmt, intervals

#: how many level-1 intervals the builder aims at unless told (about ten: fine enough to keep the
#: shape of the distribution, coarse enough that each holds several records)
DEFAULT_GROUPS = 10
#: the round multipliers a chosen width is made of (times a power of ten)
_ROUND = (1.0, 2.0, 5.0, 10.0)


def ranges(
    values: Iterable[object],
    *,
    method: str = "width",
    groups: int = DEFAULT_GROUPS,
    fanout: int = 2,
    levels: int | None = None,
    name: str | None = None,
) -> Hierarchy:
    """Numbers into nested intervals whose widths come from the data.

    Parameters
    ----------
    values:
        The column's values (numbers; missing values stay missing below ``*``).
    method:
        ``"width"``: intervals of one round width (:func:`round_width`), aligned on a multiple of it
        (:func:`intervals` builds them); ``"frequency"``: about ``groups`` runs of consecutive values
        with about equal numbers of records, labelled ``[smallest-largest]`` of the values they hold.
    groups:
        About how many level-1 intervals (≥ 2). Fewer when there are fewer distinct values.
    fanout:
        How many intervals of a level one interval of the next level merges (≥ 2).
    levels:
        Height of the result (≥ 2): ``levels − 1`` interval levels, then ``*``. Default: merge until
        one interval would hold every value.
    name:
        The attribute's name, for error messages.

    Raises
    ------
    InputError
        For a value that is not a finite number (naming it and its 1-based row) or a bad parameter.
    """
    _check_choice(method, "method", name, ("width", "frequency"))
    groups = _check_int(groups, "groups", name, minimum=2)
    fanout = _check_int(fanout, "fanout", name, minimum=2)
    if levels is not None:
        levels = _check_int(levels, "levels", name, minimum=2)
    texts, nums, counts, _, missing = counted_numbers(values, name)
    if method == "width":
        width = round_width(float(nums[0]), float(nums[-1]), groups, whole=bool(np.all(nums == np.round(nums))))
        bottom = math.floor(nums[0] / width) * width
        top = (math.floor(nums[-1] / width) + 1) * width  # the labels end where the values do, not past them
        return intervals(values, width=width, fanout=fanout, levels=levels, bottom=bottom, top=top, name=name)
    first = equal_frequency(counts, groups)
    columns: list[np.ndarray] = []
    size = 1
    while True:
        group = first // size
        if levels is None and columns and group.max() == 0:
            break
        columns.append(_closed_labels(group, nums))
        if levels is not None and len(columns) == levels - 1:
            break
        if group.max() == 0:  # one interval already: the levels asked for above it repeat it
            columns.extend([columns[-1]] * (levels - 1 - len(columns)) if levels is not None else [])
            break
        size *= fanout
    return _with_top(texts, columns, missing, name, "(ranges)")


def counted_numbers(
    values: Iterable[object], name: str | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """The distinct non-missing texts of ``values`` sorted numerically, their numbers, how many
    records hold each, the 0-based row of each one's first occurrence, and the missing texts; a
    value that is no finite number is an error naming it and its row."""
    texts, counts, rows, missing = counted_texts(values, name)
    nums = pd.to_numeric(pd.Series(texts, dtype=object), errors="coerce").to_numpy(dtype=float)
    _reject(~np.isfinite(nums), texts, rows, "value is not a finite number", name)
    perm = _sort_by(nums, texts)
    return texts[perm], nums[perm], counts[perm], rows[perm], missing


def round_width(low: float, high: float, groups: int, *, whole: bool = False) -> float:
    """The smallest round width (1, 2 or 5 times a power of ten) that cuts ``[low, high]`` into at
    most about ``groups`` intervals; at least 1 for ``whole`` numbers (an interval narrower than one
    step between whole numbers would hold one value and say less than the value does)."""
    span = high - low
    if span <= 0:
        return 1.0
    raw = span / groups
    power = 10.0 ** math.floor(math.log10(raw))
    width = next(m * power for m in _ROUND if m * power >= raw * (1 - 1e-12))
    return max(width, 1.0) if whole else float(f"{width:.15g}")


def equal_frequency(counts: np.ndarray, groups: int) -> np.ndarray:
    """The run (0, 1, …) of every sorted distinct value when the values are cut into about
    ``groups`` runs of about equal numbers of records: a value goes to the run its middle record
    falls in (a value is never split), and empty runs are closed up, so runs are consecutive."""
    total = float(counts.sum())
    middle = np.cumsum(counts) - counts / 2.0
    run = np.minimum(np.floor(middle * groups / total), groups - 1).astype(np.int64)
    return np.unique(run, return_inverse=True)[1].astype(np.int64)


def _closed_labels(group: np.ndarray, nums: np.ndarray) -> np.ndarray:
    """``[lo-hi]`` per value: the smallest and largest value of its group (``[v]`` for one value)."""
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    ends = np.r_[starts[1:], group.size] - 1
    names = [f"[{_fmt(nums[a])}]" if nums[a] == nums[b] else f"[{_fmt(nums[a])}-{_fmt(nums[b])}]"
             for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
    return np.asarray(names, dtype=object)[np.searchsorted(starts, np.arange(group.size), side="right") - 1]
