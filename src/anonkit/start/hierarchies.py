"""A hierarchy for a column, chosen from its values: the inline builder spec a config takes under
``attributes.<name>.hierarchy`` (:mod:`anonkit.hierarchy.builder_params`).

* numbers: :func:`~anonkit.hierarchy.builders.ranges`, intervals of a round width, or of equal
  frequency when round widths would put more than :data:`SKEWED_SHARE` of the records into one
  interval (incomes, waiting times: most values small, a long tail);
* dates: :func:`~anonkit.hierarchy.builders.periods` (a granularity ladder from the values' span);
* codes written with digits of one length (ZIP codes): :func:`~anonkit.hierarchy.builders.masking`,
  the last digit first;
* any other category: :func:`~anonkit.hierarchy.builders.frequency`, the rare ones merged first.

The spec is built once on the values before it is returned, so a spec that would not build (a column
called numeric that holds text) is never proposed: the column falls back to grouping by frequency.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.hierarchy.builder_params import BUILDER_SPECS, build
from anonkit.hierarchy.builders.ranges import DEFAULT_GROUPS, counted_numbers, round_width
from anonkit.start.detect import infer_type

#: numbers are cut by frequency when one round-width interval would hold more than this share of records
SKEWED_SHARE = 0.5
#: the types :func:`auto_hierarchy` takes (the config's, and ``code`` for codes to mask)
TYPES = ("numeric", "date", "categorical", "ordinal", "code")


def auto_hierarchy(values: pd.Series, *, name: str, type: str) -> dict[str, Any]:
    """The inline builder spec for the column ``name`` of ``type`` (see the module's rules)."""
    if type not in TYPES:
        raise InputError(f"unknown type; give one of {', '.join(TYPES)}", column=name, value=type, key="type")
    if not isinstance(values, pd.Series):
        values = pd.Series(list(values), dtype=object)
    if type == "categorical" and infer_type(values, name=name)[1] == "code":
        type = "code"
    for spec in _choices(values, type, name):
        try:
            built_hierarchy(values, spec, name=name)
        except InputError:
            continue
        return spec
    return {"builder": "frequency"}


def built_hierarchy(values: pd.Series, spec: dict[str, Any], *, name: str) -> Hierarchy:
    """The hierarchy ``spec`` builds over ``values``, its keys checked as the config checks them."""
    return build(BUILDER_SPECS[spec["builder"]].model_validate(spec), values, name=name)


def _choices(values: pd.Series, type: str, name: str) -> list[dict[str, Any]]:
    if type == "numeric":
        return [{"builder": "ranges", "method": _number_method(values, name)}]
    if type == "date":
        return [{"builder": "periods"}]
    if type == "code":
        return [{"builder": "masking"}]
    return [{"builder": "frequency"}]


def _number_method(values: pd.Series, name: str) -> str:
    """``frequency`` when round-width intervals would leave one interval with most records, else ``width``."""
    try:
        _, nums, counts, _, _ = counted_numbers(values, name)
    except InputError:
        return "width"
    whole = bool(np.all(nums == np.round(nums)))
    width = round_width(float(nums[0]), float(nums[-1]), DEFAULT_GROUPS, whole=whole)
    cell = np.floor((nums - np.floor(nums[0] / width) * width) / width)
    per_cell = pd.Series(counts).groupby(cell).sum()
    return "frequency" if per_cell.max() > SKEWED_SHARE * counts.sum() else "width"
