"""Algorithm ``fixed``: apply one full-domain transformation you choose (ARX compatibility §2.3).

Every quasi-identifier is generalized to the level ``levels`` gives it, classes failing the models
are suppressed whole, and the release satisfies its models when the suppressed records stay within
``max_suppression``. Useful to reproduce a published transformation, or to compare one with the
optimum a search finds.
"""

from __future__ import annotations

import time

from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression, check_models
from anonkit.algorithms.spec import algorithm
from anonkit.algorithms.transform import evaluate_node, release_node
from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table


@algorithm(
    "fixed",
    family="lattice",
    engines=("local", "spark"),
    summary="apply one full-domain transformation (a level per quasi-identifier) and suppress failing classes",
    on_failure="choose higher levels or let a search algorithm find them",
    progress="",
)
def fixed(
    table: Table,
    models: list[Criterion],
    *,
    levels: dict[str, int] | list[int] | tuple[int, ...],
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
) -> Release:
    """Apply one full-domain transformation and suppress failing classes.

    Parameters
    ----------
    levels:
        Quasi-identifier → level (omitted ones stay at level 0), or a level per quasi-identifier in
        input column order.
    max_suppression:
        Share of the records the models may suppress.

    ``satisfied`` tells whether the models hold within ``max_suppression``; classes failing the
    models are suppressed either way and never published.
    """
    start = time.perf_counter()
    check_models(table, models)
    if isinstance(levels, dict):
        unknown = [q for q in levels if q not in table.qi]
        if unknown:
            raise InputError("levels name an attribute that is not a quasi-identifier", column=unknown[0])
        vec = [int(levels.get(q, 0)) for q in table.qi]
    else:
        vec = [int(x) for x in levels]
        if len(vec) != len(table.qi):
            raise InputError(f"levels must list {len(table.qi)} values, one per quasi-identifier", key="levels")
    for j, q in enumerate(table.qi):
        h = table.hierarchies[j]
        if not 0 <= vec[j] <= h.height:
            raise InputError(f"level must lie in [0, {h.height}]", column=q, value=vec[j], key="levels")
    ev = evaluate_node(table, vec, models, max_suppression)
    return release_node(
        table, ev, algorithm="fixed", seconds=time.perf_counter() - start, max_suppression=max_suppression
    )
