"""The bins builder: a numeric attribute cut into ordered bins, usable as the ordered categories of a
sensitive attribute (θ-sensitivity, angelization) or as a two-level hierarchy.

θ-sensitive k-anonymity and angelization judge a sensitive attribute by ordered categories (paper
D: Asymptomatic < Low < … < Severe). A diagnosis has such categories by nature; a numeric value (a
blood level, an income) has none until it is binned, and writing a category for every distinct value
by hand does not scale. :func:`bins` cuts the sorted values:

* ``method="frequency"`` (default): about ``count`` bins holding about as many records each;
* ``method="width"``: ``count`` bins of equal width between the smallest and largest value;
* ``edges=[e0, e1, …]``: the bins ``[e0-e1[``, ``[e1-e2[``, …, the last one closed (``[e(n-1)-en]``);
  a value outside ``[e0, en]`` is refused (fail closed: it has no category).

The automatic bins are labelled ``[lo-hi]`` with the smallest and largest value they hold, so a label
covers exactly its values; bins are in increasing order and no bin is empty. The hierarchy is the
value, its bin, then ``*``; :func:`bin_categories` reads it as ``(value → bin, bins in order)``.
The conventions shared by all builders are described in :mod:`anonkit.hierarchy.builders`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from anonkit.errors import InputError
from anonkit.hierarchy._core import Hierarchy
from anonkit.hierarchy.builders._shared import _check_choice, _check_int, _reject, _with_top
from anonkit.hierarchy.builders.intervals import _fmt
from anonkit.hierarchy.builders.ranges import _closed_labels, counted_numbers, equal_frequency

#: how many bins unless told: as many as paper D's ordered categories (Asymptomatic … Severe)
DEFAULT_BINS = 5


def bins(
    values: Iterable[object],
    *,
    count: int = DEFAULT_BINS,
    method: str = "frequency",
    edges: Sequence[float] | None = None,
    name: str | None = None,
) -> Hierarchy:
    """A numeric column cut into ordered bins (see the module's text): value → bin → ``*``.

    Parameters
    ----------
    values:
        The column's values (numbers; a missing value stays missing below ``*``).
    count:
        How many bins (≥ 2) for the automatic methods; fewer when there are fewer distinct values.
    method:
        ``"frequency"`` (bins of about equal numbers of records) or ``"width"`` (of equal width).
    edges:
        The bins' edges, increasing (at least two); takes precedence over ``count`` and ``method``.
    name:
        The attribute's name, for error messages.

    Raises
    ------
    InputError
        For a value that is no finite number or lies outside ``edges`` (naming it and its row), or
        a bad parameter (naming it).
    """
    count = _check_int(count, "count", name, minimum=2)
    _check_choice(method, "method", name, ("frequency", "width"))
    cuts = None if edges is None else check_edges(edges, name)
    texts, nums, counts, rows, missing = counted_numbers(values, name)
    if cuts is not None:
        _reject((nums < cuts[0]) | (nums > cuts[-1]), texts, rows,
                f"value lies outside the bins' edges [{_fmt(cuts[0])}, {_fmt(cuts[-1])}]; widen the edges", name)
        which = np.minimum(np.searchsorted(cuts, nums, side="right") - 1, cuts.size - 2)
        names = [f"[{_fmt(cuts[i])}-{_fmt(cuts[i + 1])}" + ("]" if i == cuts.size - 2 else "[")
                 for i in range(cuts.size - 1)]
        column = np.asarray(names, dtype=object)[which]
    else:
        if method == "frequency":
            group = equal_frequency(counts, count)
        else:
            low, high = float(nums[0]), float(nums[-1])
            step = (high - low) / count if high > low else 1.0
            raw = np.minimum(np.floor((nums - low) / step), count - 1).astype(np.int64)
            group = np.unique(raw, return_inverse=True)[1].astype(np.int64)
        column = _closed_labels(group, nums)
    return _with_top(texts, [column], missing, name, "(bins)")


def check_edges(edges: object, name: str | None) -> np.ndarray:
    """``edges`` as floats: at least two finite numbers, strictly increasing; else an error naming ``edges``."""
    if isinstance(edges, (str, bytes)) or not isinstance(edges, Sequence) or len(edges) < 2:
        raise InputError("edges must be a list of at least two numbers, increasing", column=name, key="edges",
                         value=edges)
    try:
        cuts = np.asarray([float(e) for e in edges], dtype=float)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError("edges must be numbers", column=name, key="edges", value=edges) from None
    if not np.isfinite(cuts).all() or (np.diff(cuts) <= 0).any():
        raise InputError("edges must be finite and strictly increasing", column=name, key="edges", value=edges)
    return cuts


def bin_categories(h: Hierarchy) -> tuple[dict[str, str], list[str]]:
    """A bins hierarchy as sensitive categories: every value's bin (level 1), and the bins from lowest
    to highest (the order of their smallest values). A missing value has no bin and is left out."""
    leaves = h.labels[0][h.maps[0]]
    level = h.labels[1][h.maps[1]]
    mapping = {str(v): str(b) for v, b in zip(leaves, level, strict=True) if v != ""}
    order = list(dict.fromkeys(mapping[str(v)] for v in leaves if v != ""))
    return mapping, order
