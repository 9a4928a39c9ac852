"""Hierarchy builders: generate a :class:`Hierarchy` from the values of a column.

These mirror ARX's builders in ``org.deidentifier.arx.aggregates`` (ARX compatibility notes §2.6),
one module each:

* :func:`intervals` — ``HierarchyBuilderIntervalBased`` (numeric intervals, bottom/top coding),
* :func:`masking` — ``HierarchyBuilderRedactionBased`` (character redaction, e.g. ZIP codes),
* :func:`dates` — ``HierarchyBuilderDate`` (calendar granularities),
* :func:`order` — ``HierarchyBuilderOrderBased`` (groups of consecutive values in an order),
* :func:`nested` / :func:`from_parent_map` — a taxonomy written by hand (ARX's ``DefaultHierarchy``).

Builders that choose their parameters from the data (what ``anonkit init`` writes for a new table):

* :func:`ranges` — numbers into nested intervals of a round width or of equal frequency,
* :func:`periods` — dates along a ladder of granularities chosen from the values' span,
* :func:`frequency` — categories grouped by frequency, the rare ones merged first,
* :func:`bins` — a numeric sensitive attribute cut into ordered bins, its categories
  (:func:`bin_categories`) for θ-sensitivity and angelization.

The trivial ``{values} → *`` hierarchy is :meth:`Hierarchy.flat`.

Conventions shared by the builders that take data values:

* The leaves are the *distinct* values, as the text :func:`anonkit._values.cell_text` gives
  (``17.0`` → ``"17"``, missing → ``""``), so that :meth:`Hierarchy.encode` finds every value of the
  column the hierarchy was built from.
* A missing value (``None``, NaN, ``""``) cannot be generalized: its leaf ``""`` stays ``""`` on
  every level, except on the top level when that level is a single node (``*``), which it joins.
  Missing leaves come last in the rows.
* Errors are :class:`~anonkit.errors.InputError` naming the column (``name``), the offending value
  and its 1-based row in ``values`` (the row of its first occurrence).
* ``levels`` always means the height of the result: the number of generalization levels above the
  leaves, the top level included.

Each builder function has the name of its module (``builders.intervals`` is the function; the
module is ``sys.modules["anonkit.hierarchy.builders.intervals"]``); what several builders share is in
the private module ``_shared``.
"""

from __future__ import annotations

from anonkit.hierarchy.builders._shared import TOP
from anonkit.hierarchy.builders.bins import bin_categories, bins
from anonkit.hierarchy.builders.dates import DATE_GRANULARITIES, dates
from anonkit.hierarchy.builders.frequency import frequency
from anonkit.hierarchy.builders.intervals import intervals
from anonkit.hierarchy.builders.masking import masking
from anonkit.hierarchy.builders.nested import from_parent_map, nested
from anonkit.hierarchy.builders.order import order
from anonkit.hierarchy.builders.periods import date_ladder, periods
from anonkit.hierarchy.builders.ranges import ranges

__all__ = ["DATE_GRANULARITIES", "TOP", "bin_categories", "bins", "date_ladder", "dates", "frequency",
           "from_parent_map", "intervals", "masking", "nested", "order", "periods", "ranges"]
