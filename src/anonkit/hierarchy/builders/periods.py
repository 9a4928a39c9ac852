"""The periods builder: dates generalized along a ladder of calendar granularities chosen from the data.

:func:`dates` needs its granularities; this builder chooses them (:func:`date_ladder`) from what the
column holds and hands over to :func:`dates`:

* from the finest unit the values carry: ``hour`` and ``day`` when some value has a time of day,
  ``month`` when some date is not the first of its month (dates that are all firsts of months are
  months already);
* through ``quarter`` when the values span less than :data:`QUARTERS_BELOW_YEARS` years (a quarter
  says something between a month and a year there; over decades it only adds a level), and ``year``;
* to ``decade`` from a span of :data:`DECADES_FROM_YEARS` years and ``century`` from
  :data:`CENTURIES_FROM_YEARS` (dates of birth over a lifetime get decades, visits in one year not).

Every step nests in the next (``week`` is never chosen: an ISO week can straddle two months). The
conventions shared by all builders are described in :mod:`anonkit.hierarchy.builders`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from anonkit._values import read_dates
from anonkit.hierarchy._core import Hierarchy
from anonkit.hierarchy.builders._shared import _column
from anonkit.hierarchy.builders.dates import dates

#: a span of fewer years than this gets the quarter between month and year
QUARTERS_BELOW_YEARS = 5.0
#: a span of at least this many years gets decades above years
DECADES_FROM_YEARS = 10.0
#: a span of at least this many years gets centuries above decades
CENTURIES_FROM_YEARS = 100.0
_DAYS_PER_YEAR = 365.2425


def periods(values: Iterable[object], *, format: str | None = None, name: str | None = None) -> Hierarchy:
    """Dates generalized along :func:`date_ladder`'s granularities (then ``*``), by :func:`dates`.

    Parameters
    ----------
    values:
        The column's values (dates, read as :func:`anonkit._values.read_dates` reads them).
    format:
        ``strftime`` format of the values; default: inferred, an ambiguous column refused.
    name:
        The attribute's name, for error messages.
    """
    series = values if isinstance(values, pd.Series) else pd.Series(list(values), dtype=object)
    return dates(series, granularities=date_ladder(series, format=format, name=name), format=format, name=name)


def date_ladder(values: Iterable[object], *, format: str | None = None, name: str | None = None) -> list[str]:
    """The granularities, finest first, that :func:`periods` generalizes ``values`` along (see the
    module's text for the rule). An unreadable or ambiguous date is an error naming it and its row."""
    texts, rows, _ = _column(values, name)
    when = read_dates(texts, name, format=format, rows=rows + 1)
    has_time = bool((when != when.dt.normalize()).any())
    has_days = bool((when.dt.day != 1).any())
    span_years = (when.max() - when.min()) / pd.Timedelta(days=1) / _DAYS_PER_YEAR
    ladder: list[str] = ["hour", "day"] if has_time else []
    if has_time or has_days:
        ladder.append("month")
    if span_years < QUARTERS_BELOW_YEARS:
        ladder.append("quarter")
    ladder.append("year")
    if span_years >= DECADES_FROM_YEARS:
        ladder.append("decade")
    if span_years >= CENTURIES_FROM_YEARS:
        ladder.append("century")
    return ladder


def year_level(ladder: list[str]) -> int:
    """The level of ``ladder``'s hierarchy that shows years (HIPAA's Safe Harbor keeps no element of
    a date but its year): one above the leaves per granularity up to ``year``."""
    return int(np.flatnonzero(np.asarray(ladder) == "year")[0]) + 1
