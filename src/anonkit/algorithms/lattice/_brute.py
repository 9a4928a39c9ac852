"""Brute force over the full-domain lattice: the independent reference the optimal lattice
algorithms are tested against (spec §7 item 3).

Every node is evaluated from scratch with :func:`~anonkit.algorithms.transform.evaluate_node`
(no roll-up cache, no predictive tagging, no lower bounds) and every anonymous node is scored
exactly with :func:`anonkit.metrics.score` on its release. Only meant for small lattices.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence

from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, check_models
from anonkit.algorithms.transform import evaluate_node, release_node
from anonkit.metrics import SearchMetric, score
from anonkit.models import Criterion
from anonkit.table import Table

Score = float | tuple[float, ...]


def level_ranges(table: Table) -> list[range]:
    """The admissible levels of every quasi-identifier (schema ``min_level``/``max_level``)."""
    out = []
    for j, q in enumerate(table.qi):
        attr = table.schema[q]
        h = table.hierarchies[j]
        hi = attr.max_level if attr.max_level is not None else h.height
        out.append(range(attr.min_level, hi + 1))
    return out


def same_score(a: Score, b: Score, *, rel_tol: float = 1e-12, abs_tol: float = 1e-12) -> bool:
    """Equal scores up to rounding (element-wise for rank-aggregated Loss)."""
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        ta, tb = tuple(a), tuple(b)  # type: ignore[arg-type]
        return len(ta) == len(tb) and all(
            math.isclose(x, y, rel_tol=rel_tol, abs_tol=abs_tol) for x, y in zip(ta, tb, strict=True)
        )
    return math.isclose(float(a), float(b), rel_tol=rel_tol, abs_tol=abs_tol)


def minimal_nodes(nodes: Iterable[tuple[int, ...]]) -> set[tuple[int, ...]]:
    """The nodes of ``nodes`` with no other node of ``nodes`` below them (componentwise)."""
    pool = set(nodes)
    return {
        x for x in pool
        if not any(y != x and all(a <= b for a, b in zip(y, x, strict=True)) for y in pool)
    }


def brute_scores(
    table: Table,
    models: Sequence[Criterion],
    *,
    max_suppression: float = DEFAULT_MAX_SUPPRESSION,
    metric: SearchMetric | None = None,
) -> dict[tuple[int, ...], Score]:
    """The exact score of every anonymous node (node → score; the other nodes are absent)."""
    models = list(models)
    check_models(table, models)
    metric = metric if metric is not None else SearchMetric()
    scores: dict[tuple[int, ...], Score] = {}
    for node in itertools.product(*level_ranges(table)):
        ev = evaluate_node(table, node, models, max_suppression)
        if not ev.anonymous:
            continue
        rel = release_node(table, ev, algorithm="brute-force", max_suppression=max_suppression)
        value = score(table, rel, metric)
        scores[tuple(int(x) for x in node)] = tuple(value) if isinstance(value, (tuple, list)) else float(value)
    return scores


def brute_force(
    table: Table,
    models: Sequence[Criterion],
    *,
    max_suppression: float = DEFAULT_MAX_SUPPRESSION,
    metric: SearchMetric | None = None,
) -> tuple[Score | None, set[tuple[int, ...]], set[tuple[int, ...]]]:
    """Evaluate every node of the lattice.

    Returns ``(best_score, best_nodes, anonymous)``: the optimal score (``None`` when no node is
    anonymous), every anonymous node scoring it (up to rounding, see :func:`same_score`) and the
    set of all anonymous nodes.
    """
    scores = brute_scores(table, models, max_suppression=max_suppression, metric=metric)
    if not scores:
        return None, set(), set()
    best = min(scores.values())  # tuples compare lexicographically, as ARX's rank aggregate
    best_nodes = {node for node, value in scores.items() if same_score(value, best)}
    return best, best_nodes, set(scores)


__all__ = ["brute_force", "brute_scores", "level_ranges", "minimal_nodes", "same_score"]
