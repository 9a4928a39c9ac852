"""The order builder: groups of consecutive values in an order.

Mirrors ARX's ``HierarchyBuilderOrderBased`` in ``org.deidentifier.arx.aggregates`` (ARX
compatibility notes §2.6), with an explicit order standing for ARX's ``ORDERED_STRING`` data type.
The conventions shared by all builders are described in :mod:`anonkit.hierarchy.builders`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from anonkit._values import cell_text
from anonkit.errors import InputError
from anonkit.hierarchy._core import Hierarchy
from anonkit.hierarchy.builders._shared import (
    _check_choice,
    _check_int,
    _column,
    _parse_numbers,
    _reject,
    _sort_by,
    _with_top,
)


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
    _check_choice(label, "label", name, ("set", "range"))
    texts, rows, missing = _column(values, name)
    if order is not None:
        perm = _explicit_order(texts, rows, order, name)
    else:
        perm = _natural_order(texts, rows, numeric, name)
    texts = texts[perm]
    m = texts.size
    columns = []
    run = 1
    for size in sizes:
        run *= size
        starts = np.arange(0, m, run)
        ends = np.minimum(starts + run, m)
        names = _group_labels(texts, starts.tolist(), ends.tolist(), label)
        columns.append(np.asarray(names, dtype=object)[np.arange(m) // run])
    return _with_top(texts, columns, missing, name, "(order)")


def _explicit_order(texts: np.ndarray, rows: np.ndarray, order: Sequence[object], name: str | None) -> np.ndarray:
    """Permutation sorting ``texts`` by their position in ``order``; an error for a value listed
    twice in ``order`` or a value missing from it (naming the value and its row)."""
    ranks = pd.Index([cell_text(o) for o in order], dtype=object)
    if ranks.has_duplicates:
        raise InputError(
            "value occurs twice in the explicit order",
            column=name,
            key="order",
            value=ranks[ranks.duplicated()][0],
        )
    position = ranks.get_indexer(pd.Index(texts, dtype=object))
    _reject(position < 0, texts, rows, "value is missing from the explicit order", name)
    return np.argsort(position, kind="stable")


def _natural_order(texts: np.ndarray, rows: np.ndarray, numeric: bool | None, name: str | None) -> np.ndarray:
    """Permutation sorting ``texts`` numerically (ties by text) if ``numeric`` is not False and every
    text is a number, else as text; with ``numeric=True`` a value that is no number is an error."""
    if numeric is False:
        return np.argsort(texts, kind="stable")
    nums = _parse_numbers(texts)
    bad = np.isnan(nums)
    if numeric:
        _reject(bad, texts, rows, "value is not a number", name)
    return _sort_by(nums, texts) if not bad.any() else np.argsort(texts, kind="stable")


def _group_labels(texts: np.ndarray, starts: list[int], ends: list[int], label: str) -> list[str]:
    """The label of each group ``texts[start:end]``: ``{a, b, c}`` for ``"set"``, ``a-c`` (or the
    single leaf) for ``"range"``."""
    if label == "range":
        return [texts[a] if b - a == 1 else f"{texts[a]}-{texts[b - 1]}" for a, b in zip(starts, ends, strict=True)]
    return ["{" + ", ".join(texts[a:b].tolist()) + "}" for a, b in zip(starts, ends, strict=True)]
