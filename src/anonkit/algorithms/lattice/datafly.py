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

import numpy as np

from anonkit.algorithms.lattice._search import Search
from anonkit.algorithms.transform import check_models, presuppressed_weight, suppression_limit
from anonkit.errors import InputError
from anonkit.models import Criterion, KAnonymity
from anonkit.release import Release
from anonkit.table import Table

Node = tuple[int, ...]


def allowance(
    table: Table, models: Sequence[Criterion], max_suppression: float | None, suppression_allowance: int | None
) -> int:
    """The number of records Datafly may leave in failing classes (module docstring)."""
    if suppression_allowance is not None:
        if isinstance(suppression_allowance, bool) or int(suppression_allowance) != suppression_allowance \
                or suppression_allowance < 0:
            raise InputError(
                f"suppression_allowance must be a whole number of records ≥ 0, got {suppression_allowance!r}",
                key="suppression_allowance",
            )
        return min(int(suppression_allowance), table.n)
    if max_suppression is not None:
        return suppression_limit(float(max_suppression), table.n)
    ks = [int(m.k) for m in models if isinstance(m, KAnonymity)]
    return min(max(ks, default=0), table.n)


def distinct_values(table: Table, node: Node) -> list[int]:
    """Distinct generalized values of every quasi-identifier at ``node`` among the records not
    suppressed up front."""
    d = table.distinct
    present = presuppressed_weight(table) > 0
    out = []
    for j, h in enumerate(table.hierarchies):
        out.append(int(np.unique(h.maps[node[j]][d.columns[j][present]]).size))
    return out


def datafly(
    table: Table,
    models: list[Criterion],
    *,
    max_suppression: float | None = None,
    metric: object = None,
    suppression_allowance: int | None = None,
) -> Release:
    """Datafly's greedy generalization, see the module docstring. ``extra['path']`` lists the nodes
    visited and ``extra['suppression_allowance']`` the allowance in records."""
    models = list(models)
    check_models(table, models)
    budget = allowance(table, models, max_suppression, suppression_allowance)
    # the allowance as a fraction whose ARX limit ⌊fraction · n⌋ is exactly ``budget`` records
    search = Search(table, models, max_suppression=budget / table.n, metric=metric)
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
