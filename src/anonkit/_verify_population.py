"""The verifier's recount of the population behind a release (k-map, δ-presence).

Independent of the search: from the published quasi-identifier cells alone it finds, for every
column, the hierarchy level whose labels the release uses (a full-domain release uses one level per
column), generalizes every population record's value to that level through the hierarchy, and
counts the population records whose generalized tuple is each released class's tuple. A released
label found on no level, or a population value outside the hierarchy, is refused in one line.

What it cannot see: a population class with no released record may hold research records that were
suppressed, so δ-presence's ``dmin`` on classes without released records is the search's to enforce
(:func:`anonkit.algorithms.transform.empty_classes_fail`); the verifier checks both bounds on every
released class.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonkit._values import factorize_text
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.schema import Schema


def population_counts(released: pd.DataFrame, record_class: np.ndarray, n_classes: int, qis: list[str],
                      schema: Schema, population: pd.DataFrame) -> np.ndarray:
    """The population records of every released class (``record_class[i]`` is the class of row
    ``i`` of ``released``, the rows published and not suppressed)."""
    if n_classes == 0:
        return np.zeros(0)
    first = np.full(n_classes, len(record_class), dtype=np.int64)
    np.minimum.at(first, record_class, np.arange(len(record_class)))
    class_keys, population_keys = {}, {}
    for q in qis:
        h = schema[q].hierarchy
        if h is None:
            raise InputError("a population model needs the quasi-identifier's hierarchy to recount the population",
                             column=q)
        shown = released[q].to_numpy(dtype=object)[first].astype(str)
        level = _level_of(h, shown, q)
        codes, labels = factorize_text(population[q].astype(object).where(population[q].notna(), "")
                                       .astype(str).str.strip())
        leaf = h.label_leaves(codes, labels, column=q)[codes]
        class_keys[q] = shown
        population_keys[q] = h.labels[level][h.maps[level][leaf]].astype(str)
    pop = pd.DataFrame(population_keys).value_counts()  # one level per quasi-identifier, always
    found = pop.reindex(pd.MultiIndex.from_frame(pd.DataFrame(class_keys)))
    return found.fillna(0).to_numpy(dtype=np.float64)


def _level_of(h: Hierarchy, shown: np.ndarray, column: str) -> int:
    """The lowest level of ``h`` whose labels hold every label in ``shown``."""
    wanted = set(shown.tolist())
    for level in range(h.height + 1):
        if wanted <= set(h.labels[level].astype(str).tolist()):
            return level
    missing = sorted(wanted - set().union(*(set(h.labels[lv].astype(str).tolist()) for lv in range(h.height + 1))))
    raise InputError("a released value is on no level of the hierarchy, so the population cannot be recounted",
                     column=column, value=missing[0] if missing else None)
