"""ARX's publisher-payout quality model (``MetricSDNMPublisherPayout``) as a search metric.

The game of :mod:`anonkit.models.profitability` scored over a whole release: every published class
costs ``gFactor · count · (benefit − payout)`` (what the publisher forgoes against publishing the
record untouched and unattacked), every suppressed class ``sFactor · count · benefit`` (the benefit
lost), summed over ARX's groups in ARX's order (classes by first appearance; a class without records,
a population-only class, adds nothing). Lower is better; 0 is every record published untouched with
no attack that pays. ``payout`` is ARX's ``RiskModelCostBenefit.getExpectedPublisherPayout`` from the
class's entropy-based information loss and the success probability of an attack:

* ``attacker: prosecutor`` — ``1 / class size``;
* ``attacker: journalist`` — ``1 / population records`` of the class (``input.subset``), the class
  size where the class has none (ARX's rule, so without a population the two agree).

ARX's metric holds its own attacker flag (its tests pair a journalist model with a prosecutor
metric); here ``attacker`` defaults to the profitability model's. The amounts are not the metric's:
they are the cost-benefit configuration of the profitability model in the run
(:func:`with_costs`), refused in one line when the run has none, or two that disagree.

Not monotonic (ARX: neither under generalization nor suppression): a coarser class may cost less
because an attack on it no longer pays.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonkit._kernels import first_rows
from anonkit.errors import InputError
from anonkit.metrics.arx import gs_factors, seq_sum, transformation_levels
from anonkit.metrics.quality import release_groups
from anonkit.models.population import POPULATION_SOURCE, population_codes
from anonkit.models.profitability import (
    ATTACKERS,
    CostBenefit,
    class_information_loss,
    profitability_models,
    publisher_payout,
    success_probability,
)
from anonkit.release import Release
from anonkit.table import Table

#: the search metric's name
PAYOUT = "publisher-payout"
#: the statistics' source giving ARX's order of the classes over a population: the first population row of
#: every distinct tuple (:func:`attach_population_order`); without it classes go by their first research record
POPULATION_ORDER_SOURCE = "population-order"


def attach_population_order(table: Table, population: pd.DataFrame, *, strip: bool = True) -> None:
    """Give ``table`` (research records with their population attached) the first population row of every
    distinct tuple, so the payout is summed in ARX's order (its classes are the population's, by first
    appearance in the population: the last bits of a sum depend on it)."""
    pop = population_codes(table, population, strip=strip)
    width = pop.shape[1]
    if width == 0 or not len(pop):
        return
    ids, uniques = pd.factorize(pd.MultiIndex.from_arrays([pop[:, j] for j in range(width)]))
    _, first_of_id = np.unique(ids, return_index=True)
    tuples = table.distinct.tuples.astype(np.int64).reshape(-1, width)
    where = pd.MultiIndex.from_tuples(list(uniques)).get_indexer(
        pd.MultiIndex.from_arrays([tuples[:, j] for j in range(width)]))
    if (where < 0).any():
        raise InputError("a research tuple is not in the population", key="input.subset")
    table.sources[POPULATION_ORDER_SOURCE] = first_of_id[where].astype(np.int64)


def prepare(table: Table, population: pd.DataFrame | None, metric: Any, *, strip: bool = True) -> None:
    """What the metric needs on the table before a search: the population's order (publisher payout over a
    population only; nothing otherwise)."""
    if population is not None and getattr(metric, "name", None) == PAYOUT:
        attach_population_order(table, population, strip=strip)


def with_costs(metric: Any, models: Sequence[object]) -> Any:
    """``metric`` (a ``SearchMetric``) with the cost-benefit configuration of the run's profitability
    model, when it is the publisher-payout metric (any other metric is returned unchanged); refused
    in one line when no profitability model gives the amounts, or two give different ones."""
    if getattr(metric, "name", None) != PAYOUT:
        return metric
    found = profitability_models(models)
    if not found:
        if metric.costs is not None:
            return metric
        raise InputError("the publisher-payout metric reads the publisher's and the adversary's amounts from a "
                         "profitability model: add one to privacy (model: profitability, no-attack-profitability, "
                         "…) or choose another metric", key="algorithm.metric")
    costs = {m.costs for m in found}
    if len(costs) > 1:
        raise InputError("the profitability models give different amounts; the publisher-payout metric needs one "
                         "cost-benefit configuration: give every profitability model the same four amounts",
                         key="algorithm.metric")
    attacker = metric.attacker if metric.attacker is not None else found[0].attacker
    return dataclasses.replace(metric, costs=costs.pop(), attacker=attacker)


def _costs_of(metric: Any) -> CostBenefit:
    costs = getattr(metric, "costs", None)
    if not isinstance(costs, CostBenefit):
        raise InputError("the publisher-payout metric has no cost-benefit configuration: add a profitability "
                         "model to the run (its amounts are the metric's)", key="algorithm.metric")
    if metric.attacker not in (None, *ATTACKERS):
        raise InputError(f"attacker must be one of {', '.join(ATTACKERS)}, got {metric.attacker!r}",
                         key="algorithm.metric.attacker")
    return costs


def payout_loss(count: np.ndarray, kept: np.ndarray, shares: np.ndarray, population: np.ndarray | None,
                domain: float, costs: CostBenefit, gs: float) -> float:
    """ARX's ``getInformationLossInternal`` over groups in ARX's order: ``count`` records each,
    ``kept`` published or suppressed, ``shares`` the product of their domain shares, ``population``
    their population records (journalist; ``None``: prosecutor), ``domain`` the product of the
    domain sizes. Groups without records add nothing."""
    g_factor, s_factor = gs_factors(gs)
    count = np.asarray(count, dtype=np.float64)
    has = count > 0
    count, kept, shares = count[has], np.asarray(kept)[has], np.asarray(shares, dtype=np.float64)[has]
    pop = None if population is None else np.asarray(population, dtype=np.float64)[has]
    il = class_information_loss(shares, domain)
    payout = publisher_payout(costs, il, success_probability(count, pop))
    benefit = costs.publisher_benefit
    per = np.where(kept, g_factor * (count * (benefit - payout)), s_factor * (count * benefit))
    return seq_sum(per)


def _domain(table: Table) -> float:
    out = 1.0
    for h in table.hierarchies:
        out *= float(h.n_leaves)
    return out


def node_payout(table: Table, levels: Sequence[int], tuple_class: np.ndarray, class_ok: np.ndarray,
                class_sizes: np.ndarray, metric: Any) -> float:
    """The metric for a full-domain node from its evaluation on the distinct tuples (``tuple_class``:
    every tuple's class; ``class_ok``: the classes published; ``class_sizes``: their records)."""
    costs = _costs_of(metric)
    n = len(class_sizes)
    first = first_rows(tuple_class, n)
    has = first >= 0
    d = table.distinct
    shares = np.ones(n, dtype=np.float64)
    for j, h in enumerate(table.hierarchies):
        level = int(levels[j])
        col = np.ones(n, dtype=np.float64)
        col[has] = h.leaf_counts(level)[h.maps[level][d.columns[j][first[has]]]] / float(h.n_leaves)
        shares = shares * col
    population = None
    if metric.attacker == "journalist":
        source = table.sources.get(POPULATION_SOURCE)
        population = np.zeros(n) if source is None else \
            np.bincount(tuple_class, weights=np.asarray(source, dtype=np.float64), minlength=n)
    sizes, ok = np.asarray(class_sizes, dtype=np.float64), np.asarray(class_ok, dtype=bool)
    rows = table.sources.get(POPULATION_ORDER_SOURCE)
    if rows is not None:  # ARX's order over a population: by each class's first population row
        first_row = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(first_row, tuple_class, np.asarray(rows, dtype=np.int64))
        order = np.argsort(first_row, kind="stable")
        sizes, ok, shares = sizes[order], ok[order], shares[order]
        population = None if population is None else population[order]
    return payout_loss(sizes, ok, shares, population, _domain(table), costs, metric.gs)


def release_payout(table: Table, release: Release, metric: Any) -> float:
    """The metric for a release. A full-domain release is scored as its node (its classes recounted
    at its transformation, the population's among them); any other by its published cells."""
    costs = _costs_of(metric)
    levels = transformation_levels(table, release)
    if levels is not None and len(table.qi):
        tuple_class, n = table.tuple_classes(tuple(int(x) for x in levels))
        d = table.distinct
        first_record = first_rows(d.inverse, d.size)
        kept_tuple = np.zeros(d.size)
        has = first_record >= 0
        kept_tuple[has] = release.record_class[first_record[has]] >= 0
        class_ok = np.bincount(tuple_class, weights=kept_tuple, minlength=n) > 0
        sizes = np.bincount(tuple_class, weights=d.counts, minlength=n)
        return node_payout(table, levels, tuple_class, class_ok, sizes, metric)
    groups, _ = release_groups(table, release)
    shares = np.ones(len(groups.count))
    for j in range(groups.cells.shape[1]):
        shares = shares * np.where(groups.kept, groups.cells[:, j] / groups.sizes[j], 1.0)
    domain = math.prod(float(s) for s in groups.sizes)
    return payout_loss(groups.count, groups.kept, shares, None, domain, costs, metric.gs)
