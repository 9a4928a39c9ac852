"""The date builder: dates generalized to calendar granularities.

Mirrors ARX's ``HierarchyBuilderDate`` in ``org.deidentifier.arx.aggregates`` (ARX compatibility
notes §2.6). The conventions shared by all builders are described in
:mod:`anonkit.hierarchy.builders`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from anonkit._values import read_dates
from anonkit.errors import InputError
from anonkit.hierarchy._core import Hierarchy
from anonkit.hierarchy.builders._shared import _column, _first_bad, _sort_by, _with_top

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


#: The granularities whose label is the date in a ``strftime`` format.
_STRFTIME = {"minute": "%Y-%m-%d %H:%M", "hour": "%Y-%m-%d %H:00", "day": "%Y-%m-%d", "month": "%Y-%m"}


def _date_labels(when: pd.Series, granularity: str) -> np.ndarray:
    """Labels of the parsed dates ``when`` at ``granularity`` (vectorised)."""
    dt = when.dt
    if granularity in _STRFTIME:
        return dt.strftime(_STRFTIME[granularity]).to_numpy(dtype=object)
    year = dt.year.astype(np.int64)
    if granularity == "week":
        iso = dt.isocalendar()
        out = iso["year"].astype(str) + "-W" + iso["week"].astype(str).str.zfill(2)
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
        ``strftime`` format of the values (``%d/%m/%Y``). Default: as :func:`anonkit._values.read_dates`
        reads them: year first as written, day and month as numbers in the one order that fits every
        value (an error when the column is ambiguous), a month name with a four-digit year.
    name:
        The attribute's name, for error messages.

    Raises
    ------
    InputError
        For an unparseable value (naming the value and its 1-based row), a day/month order no value
        decides (every day ≤ 12) or none fits, an unknown granularity or
        one that is not coarser than the previous, and for consecutive granularities that do not nest
        for these dates (an ISO week across a month's end falls into two months).
    """
    grans = check_granularities(granularities, name)
    texts, rows, missing = _column(values, name)
    when = read_dates(texts, name, format=format, rows=rows + 1)
    perm = _sort_by(when.astype("int64").to_numpy(), texts)
    texts, rows = texts[perm], rows[perm]
    when = when.iloc[perm].reset_index(drop=True)
    columns = [_date_labels(when, g) for g in grans]
    for i in range(1, len(columns)):
        _check_nested(columns[i - 1], columns[i], grans[i - 1], grans[i], texts, rows, name)
    return _with_top(texts, columns, missing, name, "(dates)", calendar=True)


def check_granularities(granularities: Sequence[str], name: str | None) -> list[str]:
    """The granularities as a list (a single one may be given as a string); an error for an unknown
    one or one that is not coarser than the one before it."""
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
    return grans


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
