"""The frequency builder: categories grouped by how many records hold them, the rare ones first.

A category held by few records is what singles a person out (the one Inuit speaker of the village);
a common one hides its holder among many. So each level merges the rarest categories still standing
into one group and keeps the common ones as they are: level ``i`` keeps the ``⌊d / fanout^i⌋`` most
frequent of the ``d`` categories and puts all the others into one group, labelled ``other (N
values)``; the groups grow level by level (the levels nest) until one category would be left beside
the group; the top is ``*``. A group always holds at least two categories (a group of one would only
rename its category). Ties in frequency go by text, so the result does not depend on the row order.

The conventions shared by all builders are described in :mod:`anonkit.hierarchy.builders`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from anonkit.hierarchy._core import Hierarchy
from anonkit.hierarchy.builders._counted import counted_texts
from anonkit.hierarchy.builders._shared import _check_int, _sort_by, _with_top

#: the label of the group of merged categories (``{n}``: how many it holds)
OTHER_LABEL = "other ({n} values)"


def frequency(
    values: Iterable[object], *, fanout: int = 2, levels: int | None = None, name: str | None = None
) -> Hierarchy:
    """Categories grouped by frequency, rare ones merged first (see the module's text).

    Parameters
    ----------
    values:
        The column's values; the leaves are their distinct texts, most frequent first.
    fanout:
        Each level keeps ``1/fanout`` of the categories the level below kept (≥ 2).
    levels:
        Height of the result (≥ 1): the first ``levels − 1`` merging levels, then ``*``; when the
        data gives fewer, the last merging level is repeated. Default: every merging level.
    name:
        The attribute's name, for error messages.
    """
    fanout = _check_int(fanout, "fanout", name, minimum=2)
    if levels is not None:
        levels = _check_int(levels, "levels", name, minimum=1)
    texts, counts, _, missing = counted_texts(values, name)
    perm = _sort_by(-counts, texts)
    texts = texts[perm]
    rank = np.arange(texts.size)
    keeps = kept_per_level(texts.size, fanout)
    if levels is not None:
        keeps = keeps[: levels - 1]
        keeps += keeps[-1:] * (levels - 1 - len(keeps)) if keeps else []
    leaf_set = set(texts.tolist())
    columns = []
    for keep in keeps:
        label = OTHER_LABEL.format(n=texts.size - keep)
        while label in leaf_set:  # a category named like the group: the group's label gets a mark
            label += "*"
        columns.append(np.where(rank < keep, texts, label).astype(object))
    if levels is not None and not keeps and levels > 1:  # nothing to merge: the levels are the values
        columns = [texts.copy() for _ in range(levels - 1)]
    return _with_top(texts, columns, missing, name, "(frequency)")


def kept_per_level(d: int, fanout: int) -> list[int]:
    """How many of ``d`` categories each merging level keeps as they are: ``⌊d / fanout^i⌋``, at most
    ``d − 2`` (a group holds two at least), down to 1, each level keeping fewer than the one below."""
    keeps: list[int] = []
    power = fanout
    while (keep := min(d // power, d - 2)) >= 1:
        if not keeps or keep < keeps[-1]:
            keeps.append(keep)
        power *= fanout
    return keeps
