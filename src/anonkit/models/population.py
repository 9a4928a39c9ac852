"""A population behind the records: what k-map and δ-presence judge (ARX's research subset).

ARX anonymizes a *research subset* of a table while the equivalence classes and the criteria are
computed over the whole table, the *population* (``DataSubset``; the ``pcount`` of a class). Here
the records anonymized and released are the subset's; the population is carried as one more count
per distinct quasi-identifier tuple, :data:`POPULATION_NEED`, registered as an additive class need
(:func:`anonkit.stats.register_class_need`), so a lattice roll-up adds it up like the class sizes.

The population's tuples that no research record has still form classes of their own at every
node (ARX counts them, with no research record: ``count = 0``, ``pcount > 0``), so they are added
to the table's distinct tuples with a count of 0 (:func:`attach_population`): a class holding only
them has size 0 and population ≥ 1, which δ-presence with ``dmin > 0`` must see (such a class
cannot be suppressed: it has no record), while every other model and measure weighs tuples by
their counts and never sees them.

Rules (fail closed): the population must contain every research record (a research tuple counted
more often than in the population is refused, naming its first row); a population value outside a
quasi-identifier's hierarchy is refused; a population with ``input.missing: suppress`` is refused
(a record suppressed up front would be counted in its population class all the same).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import numpy as np
import pandas as pd

from anonkit._kernels import first_rows, group_columns
from anonkit._values import factorize_text, strip_cells
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.schema import Schema
from anonkit.stats import ClassInputs, register_class_need

#: the class need of the population models: the population records of every class
POPULATION_NEED = "population-records"
#: what the source holds on a :class:`~anonkit.table.Table` (:attr:`Table.sources`), per distinct tuple
POPULATION_SOURCE = POPULATION_NEED


def _population_records(inputs: ClassInputs) -> np.ndarray:
    """The population records of every class: the population count of its tuples, summed."""
    counts = inputs.sources.get(POPULATION_SOURCE)
    if counts is None:
        raise InputError("k-map with a population and δ-presence need the population: give input.subset (the "
                         "input is the population, the subset the records released)", key="input.subset")
    counts = np.asarray(counts, dtype=np.float64)
    if len(counts) != len(inputs.class_of):
        raise InputError("the population counts are per distinct tuple of the table; these classes are not "
                         "(an algorithm that groups records cannot judge a population model)", key="algorithm")
    return np.bincount(inputs.class_of, weights=counts, minlength=inputs.n_classes).astype(np.float64, copy=False)


register_class_need(POPULATION_NEED, _population_records, additive=True)


def needs_population(models: Iterable[object]) -> bool:
    """Whether any of ``models`` judges population counts."""
    return any(POPULATION_NEED in type(m).spec.needs for m in models)  # type: ignore[attr-defined]


def covering_schema(schema: Schema, population: pd.DataFrame, *, strip: bool = True) -> Schema:
    """``schema`` with a flat hierarchy over the *population's* values for every quasi-identifier
    that has none (the table would build one over the research records only, and a population
    value it lacks could not be counted)."""
    attrs = dict(schema.attributes)
    for name in schema.quasi:
        a = attrs[name]
        if a.hierarchy is None and name in population.columns:
            col = strip_cells(population[name]) if strip else population[name]
            _codes, labels = factorize_text(col)
            attrs[name] = replace(a, hierarchy=Hierarchy.flat(labels, name=name))
    return Schema(attrs, schema.default_role)


def population_codes(table: object, population: pd.DataFrame, *, strip: bool = True) -> np.ndarray:
    """The ``(N × d)`` leaf codes of the population's records in the table's hierarchies."""
    qi: list[str] = table.qi  # type: ignore[attr-defined]
    hierarchies: list[Hierarchy] = table.hierarchies  # type: ignore[attr-defined]
    out = np.empty((len(population), len(qi)), dtype=np.int64)
    for j, name in enumerate(qi):
        if name not in population.columns:
            raise InputError("the population lacks a quasi-identifier", column=name, key="input.subset")
        col = strip_cells(population[name]) if strip else population[name]
        codes, labels = factorize_text(col)
        try:
            leaf = hierarchies[j].label_leaves(codes, labels, column=name)
        except InputError as exc:
            raise InputError(f"population: {exc.args[0]}", column=name, key="input.subset") from None
        out[:, j] = leaf[codes]
    return out


def attach_population(table: object, population: pd.DataFrame, *, strip: bool = True) -> None:
    """Give ``table`` (the research records) its population: :data:`POPULATION_SOURCE` in
    :attr:`Table.sources` (the population count of every distinct tuple) and the population's
    tuples no research record has, as distinct tuples with count 0 (see the module docstring)."""
    if table.presuppressed.any():  # type: ignore[attr-defined]
        raise InputError("a population cannot be combined with input.missing: suppress (a record suppressed up "
                         "front would still be counted in the population)", key="input.missing")
    d = table.distinct  # type: ignore[attr-defined]
    pop = population_codes(table, population, strip=strip)
    width = d.tuples.shape[1]
    both = np.concatenate([d.tuples.astype(np.int64).reshape(-1, width), pop.reshape(-1, width)])
    key, first = _row_ids(both)
    n_keys = int(key.max()) + 1 if len(key) else 0
    research_key = key[:d.size]
    population_count = np.bincount(key[d.size:], minlength=n_keys).astype(np.float64)
    short = population_count[research_key] < d.counts
    if short.any():
        t = int(np.flatnonzero(short)[0])
        row = int(np.flatnonzero(d.inverse == t)[0]) + 1
        raise InputError("a research record is not in the population (the subset must be rows of the input)",
                         row=row, key="input.subset")
    seen = np.zeros(n_keys, dtype=bool)
    seen[research_key] = True
    extra_keys = np.flatnonzero(~seen)
    extra = both[first[extra_keys]]
    tuples = np.concatenate([d.tuples, extra.astype(d.tuples.dtype)]) if len(extra) else d.tuples
    counts = np.concatenate([d.counts, np.zeros(len(extra))])
    sources = np.concatenate([population_count[research_key], population_count[extra_keys]])
    from anonkit.table import Distinct

    table.distinct = Distinct(tuples, counts, d.inverse, d.pairs)  # type: ignore[attr-defined]
    table.sources[POPULATION_SOURCE] = sources  # type: ignore[attr-defined]
    table.population_records = len(population)  # type: ignore[attr-defined]


def _row_ids(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An id per distinct row of ``rows`` (in first-appearance order) and the first row of each id."""
    if rows.shape[1] == 0:
        return np.zeros(len(rows), dtype=np.int64), np.zeros(1 if len(rows) else 0, dtype=np.int64)
    if len(rows) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    # integer codes grouped by a mixed-radix key (no tuples of Python objects), then renumbered in
    # order of first appearance
    columns = [rows[:, j] for j in range(rows.shape[1])]
    group, m = group_columns(columns, [int(c.max()) + 1 for c in columns])
    first = first_rows(group, m)
    order = np.argsort(first, kind="stable")
    rank = np.empty(m, dtype=np.int64)
    rank[order] = np.arange(m)
    return rank[group], first[order]


def subset_rows(frame: pd.DataFrame, subset: object) -> pd.DataFrame:
    """The research records of ``frame`` (the population) that the boolean mask ``subset`` selects
    (``anonymize(…, subset=…)``): one flag per row, at least one set."""
    mask = np.asarray(subset)
    if mask.dtype != bool or mask.shape != (len(frame),):
        raise InputError(f"subset must be one True/False per row of the frame ({len(frame)}), got "
                         f"{mask.dtype} of shape {mask.shape}", key="subset")
    if not mask.any():
        raise InputError("the subset selects no row of the frame", key="subset")
    return frame.loc[mask].reset_index(drop=True)


#: the local-recoding algorithms that enforce the population models on the region each class publishes
#: (:mod:`anonkit.algorithms.partition.regions`), registered by their modules with
#: :func:`counts_published_regions`; every full-domain algorithm enforces them too
_REGION_ALGORITHMS: set[str] = set()


def counts_published_regions(algorithm: str) -> None:
    """Declare that ``algorithm`` (a local recoding) enforces k-map and δ-presence (``dmin = 0``) on
    the population inside each class's published region; called beside its declaration."""
    _REGION_ALGORITHMS.add(algorithm)


def check_population(models: Iterable[object], *, population: bool, family: str, algorithm: str,
                     engine: str) -> None:
    """Refuse, before any work: a population model without a population; a population on an engine
    other than this machine's; a population model under an algorithm that cannot count it — the
    full-domain family counts it per class, the algorithms registered by :func:`counts_published_regions` over
    the region every class publishes, the others not at all; and δ-presence with ``dmin > 0`` under
    local recoding (a population record that no published region covers has δ = 0 and no record to
    suppress, and such gaps between the regions are the rule there, so it is refused rather than
    failed after the work)."""
    judged = [m for m in models if POPULATION_NEED in type(m).spec.needs]  # type: ignore[attr-defined]
    if judged and not population:
        raise InputError(f"{judged[0].describe()} counts the population: give input.subset (the input is the "  # type: ignore[attr-defined]
                         "population, the subset its records released) or anonymize(…, subset=mask)",
                         key="input.subset")
    if population and engine != "local":
        raise InputError(f"a research subset runs on the local engine only, not {engine}", key="input.subset")
    if not judged or family == "lattice":
        return
    if algorithm not in _REGION_ALGORITHMS:
        takers = ", ".join(sorted(_REGION_ALGORITHMS)) or "none"
        raise InputError(f"{algorithm} cannot enforce {judged[0].describe()}: the population is counted per "  # type: ignore[attr-defined]
                         f"full-domain class or per published region; use a full-domain algorithm (flash, ola, "
                         f"lightning, …) or {takers}", key="algorithm")
    lower = [m for m in judged if getattr(m, "judges_empty_classes", False)]
    if lower:
        raise InputError(f"{algorithm} cannot enforce {lower[0].describe()} with dmin > 0: population records "  # type: ignore[attr-defined]
                         "outside every published region would have δ = 0; set dmin: 0 or use a full-domain "
                         "algorithm (flash, ola, lightning, …)", key="algorithm")
