"""Datafly (Sweeney 1997/2002; spec §5.1): a greedy full-domain heuristic.

Start at the bottom node. Loop: evaluate the node; ``bad`` = the records in classes failing the
models; stop when ``bad`` is at most the suppression allowance ``S``; otherwise raise by one level
the quasi-identifier with the most distinct values in the current generalized table (attributes
already at their maximum level are excluded; ties go to the attribute listed first in the input).
When every attribute is at its maximum the loop stops too. The records of failing classes are
suppressed at the end.

The allowance ``S`` is, in this order: ``suppression_allowance`` records when given; else
``max_suppression`` (a fraction, ARX's ``⌊max_suppression · n⌋``) when given; else Sweeney's rule
``S = k``, the largest ``k`` of the k-anonymity models (0 without one). The release is
``satisfied`` only when the models hold with at most ``S`` records suppressed. Datafly is not
optimal and can over-generalize; tie-breaking changes its result (spec §5.1 example).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

import numpy as np
from pydantic import Field

from anonkit.algorithms.common import MaxSuppression, check_models, largest_k, suppression_limit
from anonkit.algorithms.lattice._search import Search
from anonkit.algorithms.spec import algorithm
from anonkit.algorithms.transform import presuppressed_weight
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table

Node = tuple[int, ...]


def allowance(
    table: Table, models: Sequence[Criterion], max_suppression: float | None, suppression_allowance: int | None
) -> int:
    """The number of records Datafly may leave in failing classes (module docstring)."""
    if suppression_allowance is not None:
        return min(int(suppression_allowance), table.n_records)
    if max_suppression is not None:
        return suppression_limit(float(max_suppression), table.n_records)
    return min(largest_k(models) or 0, table.n_records)


def distinct_values(table: Table, node: Node) -> list[int]:
    """Distinct generalized values of every quasi-identifier at ``node`` among the records not
    suppressed up front."""
    d = table.distinct
    present = presuppressed_weight(table) > 0
    out = []
    for j, h in enumerate(table.hierarchies):
        out.append(int(np.unique(h.maps[node[j]][d.columns[j][present]]).size))
    return out


@algorithm("datafly", family="lattice", summary="Sweeney's greedy heuristic: generalize the attribute with the most "
           "distinct values until the failing records fit the allowance (k records by default)",
           engines=("local", "spark"))
def datafly(
    table: Table,
    models: list[Criterion],
    *,
    max_suppression: MaxSuppression | None = None,
    metric: object = None,
    suppression_allowance: Annotated[int, Field(ge=0)] | None = None,
) -> Release:
    """Datafly's greedy generalization, see the module docstring. ``notes['path']`` lists the nodes
    visited and ``notes['suppression_allowance']`` the allowance in records.

    Parameters
    ----------
    max_suppression:
        Share of the records the models may suppress (default: Sweeney's allowance of k records).
    suppression_allowance:
        The allowance in records, instead of a share.
    """
    models = list(models)
    check_models(table, models)
    budget = allowance(table, models, max_suppression, suppression_allowance)
    search = Search(table, models, limit=budget, metric=metric)
    lat = search.lattice
    state = search.start()
    tag = state.status.size > 0  # the lattice may be too large to hold a status per node
    node = lat.bottom
    path = [node]
    while True:
        ev = search.evaluate(node)
        state.stats.checked += 1
        if tag:
            state.tag(node, ev.anonymous, infer=False)
        if ev.suppressed <= budget:
            break
        counts = distinct_values(table, node)
        open_ = [j for j in range(lat.d) if node[j] < lat.max[j]]
        if not open_:
            break  # everything at its maximum level and still too many failing records
        j = max(open_, key=lambda i: (counts[i], -i))
        node = (*node[:j], node[j] + 1, *node[j + 1:])
        path.append(node)
    return search.release("datafly", node, path=path, suppression_allowance=budget)
