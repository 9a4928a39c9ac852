"""The verifier's recount of the population behind a release (k-map, δ-presence), for any release shape.

Independent of the search: from the published quasi-identifier cells alone it counts, for every
released class, the population records those cells cover. Two ways, the same numbers where both apply:

* **full-domain** (:func:`level_counts`): when every column's labels lie on one level of its
  hierarchy (a full-domain release uses one level per column), every population record's value is
  generalized to that level and the records whose generalized tuple is a class's tuple are counted
  (a hash join). A population value outside the hierarchy is refused in one line.
* **any shape** (:func:`cover_counts`): local recoding (Mondrian's intervals and lowest common
  ancestors on several levels, clusters' intervals, sets) is read by the project's one set of cover
  rules, :func:`anonkit.analytics.cover.build_cover`: an interval covers the numbers inside it, a
  hierarchy label its leaves, a set its members, ``*`` everything. The population is grouped by
  distinct tuples and matched column by column, in chunks (never a population × classes matrix). A
  population record no cell covers counts for no class (which only lowers a count: a k-map or dmax
  check can only get stricter). A label the rules cannot read is refused in one line.

:func:`population_counts` takes the full-domain way when it applies (ARX's goldens are counted as
before), else the cover way; tests hold the two equal on full-domain releases.

What it cannot see: a population class with no released record may hold research records that were
suppressed, so δ-presence's ``dmin`` on classes without released records is the search's to enforce
(:func:`anonkit.algorithms.transform.empty_classes_fail`); the verifier checks both bounds on every
released class. (Local recoding does not accept ``dmin > 0``: :func:`anonkit.models.population.check_population`.)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonkit._values import factorize_text
from anonkit.analytics.cover import build_cover
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.schema import Schema


def population_counts(released: pd.DataFrame, record_class: np.ndarray, n_classes: int, qis: list[str],
                      schema: Schema, population: pd.DataFrame) -> np.ndarray:
    """The population records of every released class (``record_class[i]`` is the class of row
    ``i`` of ``released``, the rows published and not suppressed): full-domain when every column's
    labels lie on one hierarchy level, else by the cover rules (module docstring)."""
    if n_classes == 0:
        return np.zeros(0)
    shown = _class_rows(released, record_class, n_classes, qis)
    levels = _levels(shown, qis, schema)
    if levels is not None:
        return _level_counts(shown, qis, schema, population, levels)
    return _cover_counts(shown, qis, schema, population)


def level_counts(released: pd.DataFrame, record_class: np.ndarray, n_classes: int, qis: list[str],
                 schema: Schema, population: pd.DataFrame) -> np.ndarray:
    """The full-domain recount (every column's labels on one level of its hierarchy, else refused)."""
    if n_classes == 0:
        return np.zeros(0)
    shown = _class_rows(released, record_class, n_classes, qis)
    levels = {}
    for q in qis:
        h = _hierarchy(schema, q)
        levels[q] = _level_of(h, shown[q].to_numpy(dtype=object), q)
    return _level_counts(shown, qis, schema, population, levels)


def cover_counts(released: pd.DataFrame, record_class: np.ndarray, n_classes: int, qis: list[str],
                 schema: Schema, population: pd.DataFrame) -> np.ndarray:
    """The recount by the cover rules, for any release shape."""
    if n_classes == 0:
        return np.zeros(0)
    return _cover_counts(_class_rows(released, record_class, n_classes, qis), qis, schema, population)


def _class_rows(released: pd.DataFrame, record_class: np.ndarray, n_classes: int, qis: list[str]) -> pd.DataFrame:
    """One row per class (its first released row), the quasi-identifier cells as text."""
    first = np.full(n_classes, len(record_class), dtype=np.int64)
    np.minimum.at(first, record_class, np.arange(len(record_class)))
    return pd.DataFrame({q: released[q].to_numpy(dtype=object)[first].astype(str) for q in qis})


def _hierarchy(schema: Schema, q: str) -> Hierarchy:
    h = schema[q].hierarchy
    if h is None:
        raise InputError("a population model needs the quasi-identifier's hierarchy to recount the population",
                         column=q)
    return h


def _levels(shown: pd.DataFrame, qis: list[str], schema: Schema) -> dict[str, int] | None:
    """The one level of every column's hierarchy holding all its labels; ``None`` when a column has
    no hierarchy or no such level (a release of another shape)."""
    out = {}
    for q in qis:
        h = schema[q].hierarchy if q in schema.attributes else None
        if h is None:
            return None
        wanted = set(shown[q].tolist())
        found = next((lv for lv in range(h.height + 1) if wanted <= set(h.labels[lv].astype(str).tolist())), None)
        if found is None:
            return None
        out[q] = found
    return out


def _level_counts(shown: pd.DataFrame, qis: list[str], schema: Schema, population: pd.DataFrame,
                  levels: dict[str, int]) -> np.ndarray:
    population_keys = {}
    for q in qis:
        h = _hierarchy(schema, q)
        codes, labels = factorize_text(population[q].astype(object).where(population[q].notna(), "")
                                       .astype(str).str.strip())
        leaf = h.label_leaves(codes, labels, column=q)[codes]
        population_keys[q] = h.labels[levels[q]][h.maps[levels[q]][leaf]].astype(str)
    if not qis:
        return np.full(len(shown), float(len(population)))
    pop = pd.DataFrame(population_keys).value_counts()  # one level per quasi-identifier, always
    found = pop.reindex(pd.MultiIndex.from_frame(shown[qis]))
    return found.fillna(0).to_numpy(dtype=np.float64)


def _cover_counts(shown: pd.DataFrame, qis: list[str], schema: Schema, population: pd.DataFrame) -> np.ndarray:
    missing = [q for q in qis if q not in population.columns]
    if missing:
        raise InputError("the population lacks a quasi-identifier of the release", column=missing[0])
    cover = build_cover(shown, population, schema, columns=qis)
    return cover.class_records()[cover.row_class].astype(np.float64)


def _level_of(h: Hierarchy, shown: np.ndarray, column: str) -> int:
    """The lowest level of ``h`` whose labels hold every label in ``shown``."""
    wanted = set(shown.tolist())
    for level in range(h.height + 1):
        if wanted <= set(h.labels[level].astype(str).tolist()):
            return level
    missing = sorted(wanted - set().union(*(set(h.labels[lv].astype(str).tolist()) for lv in range(h.height + 1))))
    raise InputError("a released value is on no level of the hierarchy, so the population cannot be recounted",
                     column=column, value=missing[0] if missing else None)
