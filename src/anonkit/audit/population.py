"""k-map and δ-presence achieved by any release, counted in a population table (``anonkit check
--population``; the audit of a run with ``input.subset``).

The release may come from any tool: its classes are the distinct published quasi-identifier tuples
(an all-``*`` row is a suppressed record), and the population records of every class are recounted
by the verifier's function (:func:`anonkit._verify_population.population_counts`: each column's
hierarchy level is found from the published labels, every population record generalized to it).
A quasi-identifier without a hierarchy is counted on its population values as they are (a flat
hierarchy ``{values} → *``); a generalized label it cannot read is refused, naming ``--hierarchy``.

* **k-map**: the smallest number of population records a released class covers (ARX's k-map with a
  population table). A released class no population record matches gives 0, with a note.
* **δ-presence**: every released class's share of the population, ``research records / population
  records``; reported as the smallest and largest share over the released classes. The research
  records are the subset's (``subset``: the research sample's rows, each a population row, recounted
  into the released classes like the population), else the released records — only when the
  population holds them (no class has more released records than population records; otherwise
  the release is not a sample of this population and δ is not reported, with a note).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from anonkit._values import strip_cells
from anonkit._verify_population import population_counts
from anonkit._verify_rows import group_rows, suppressed_rows
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.models.population import covering_schema
from anonkit.schema import Schema

__all__ = ["population_figures"]


def population_figures(release: pd.DataFrame, qis: list[str], population: pd.DataFrame,
                       hierarchies: dict[str, Hierarchy], *, subset: pd.DataFrame | None = None,
                       key: str = "--population", hint: str = "--hierarchy {column}=FILE") -> dict[str, Any]:
    """k-map and δ-presence of ``release`` against ``population`` (see the module).

    ``hierarchies`` by quasi-identifier (the others are counted on their values); ``subset`` the
    research sample's rows (each must be a population row); ``key`` names the population in
    messages and ``hint`` (with ``{column}``) what gives a missing hierarchy.

    Returns ``{"records", "k_map", "classes", "uncovered_classes", "delta_min", "delta_max",
    "delta_from", "notes"}`` (``delta_*`` ``None`` when δ is not reported).

    Raises
    ------
    InputError
        A quasi-identifier the population (or subset) lacks; a published label on no level of its
        hierarchy; a population value outside it; a subset row that is no population row.
    """
    for name, frame, what in ((key, population, "population table"), ("--subset", subset, "subset")):
        if frame is None:
            continue
        missing = [q for q in qis if q not in frame.columns]
        if missing:
            raise InputError(f"the {what} lacks a quasi-identifier of the release; give a table with every "
                             "--qi column", column=missing[0], key=name)
    population = _stripped(population, qis)
    schema = covering_schema(Schema.of(quasi=qis, hierarchies={q: h for q, h in hierarchies.items() if q in qis}),
                             population, strip=False)
    frame = release.reset_index(drop=True)
    supp = suppressed_rows(frame, qis)
    released = frame.loc[~supp].reset_index(drop=True)
    cls, n_classes = group_rows(released, qis)
    notes: list[str] = []
    out: dict[str, Any] = {"records": len(population), "classes": 0, "k_map": None, "uncovered_classes": 0,
                           "delta_min": None, "delta_max": None, "delta_from": None, "notes": notes}
    if len(released) == 0:
        notes.append("the release publishes no record: k-map and δ-presence are not reported")
        return out
    counts = _counted(released, cls, n_classes, qis, schema, population, hierarchies, hint)
    sizes = np.bincount(cls, minlength=n_classes).astype(np.float64)
    uncovered = int((counts == 0).sum())
    out.update(classes=int(n_classes), k_map=int(counts.min()), uncovered_classes=uncovered)
    if uncovered:
        notes.append(f"{uncovered:,} released class(es) match no population record (k-map 0): the population "
                     "table does not cover the release")
    research, source = sizes, "release"
    if subset is not None:
        subset = _stripped(subset, qis)
        _check_subset(subset, population, qis)
        research, source = _counted(released, cls, n_classes, qis, schema, subset, hierarchies, hint), "subset"
        short = np.flatnonzero(research < sizes)
        if short.size:
            raise InputError("a released class has more records than the subset has in it: the release is not of "
                             "this research subset", key="--subset",
                             value=" | ".join(str(released[q].iloc[int(np.flatnonzero(cls == short[0])[0])])
                                              for q in qis))
    if uncovered or (research > counts).any():
        notes.append("δ-presence is not reported: a released class has more records than the population has in it, "
                     "so the release is not a sample of this population")
        return out
    delta = research / counts
    out.update(delta_min=float(delta.min()), delta_max=float(delta.max()), delta_from=source)
    return out


def _stripped(frame: pd.DataFrame, qis: list[str]) -> pd.DataFrame:
    """The quasi-identifier columns with surrounding blanks stripped (as a run reads its input)."""
    return pd.DataFrame({q: strip_cells(frame[q]) for q in qis})


def _counted(released: pd.DataFrame, cls: np.ndarray, n_classes: int, qis: list[str], schema: Schema,
             population: pd.DataFrame, hierarchies: dict[str, Hierarchy], hint: str) -> np.ndarray:
    """The records of ``population`` in every released class; a label the flat hierarchy of a column
    without one cannot read is refused naming what gives the hierarchy."""
    try:
        return np.asarray(population_counts(released, cls, n_classes, qis, schema, population), dtype=np.float64)
    except InputError as exc:
        column = exc.column
        if column is None or column in hierarchies:
            raise
        raise InputError(f"{exc.message}; no hierarchy was given for the column: give {hint.format(column=column)}",
                         column=column, value=exc.value) from None


def _check_subset(subset: pd.DataFrame, population: pd.DataFrame, qis: list[str]) -> None:
    """Every subset row is a population row (on the quasi-identifiers, counted with repeats)."""
    have = population.value_counts(qis, dropna=False)
    want = subset.value_counts(qis, dropna=False)
    extra = want.sub(have.reindex(want.index).fillna(0))
    over = extra[extra > 0]
    if len(over):
        first = over.index[0]
        shown = " | ".join(map(str, first if isinstance(first, tuple) else (first,)))
        raise InputError("a subset row is no row of the population table (the research sample must be drawn from "
                         "it)", key="--subset", value=shown)
