"""The release of a search result: every record keeps its generalized cells exactly as the state has
them (a hierarchy node per quasi-identifier, possibly at different levels in different rows).

:func:`anonkit.algorithms.local.partition_release` is not used: it recomputes each class's value as
the lowest common ancestor of its records' leaves, which can be *more specific* than the state's
node and would change the published table (and could break a requirement on a shield). Here one
class is one distinct published quasi-identifier tuple (by text, so two nodes with the same label
are one value to a reader); the models are then judged on those classes (all-attribute models on
the class statistics, shield requirements on the published values until nothing changes) and
failing classes are suppressed within ``max_suppression``.
"""

from __future__ import annotations

import time

import numpy as np

from anonkit._kernels import group_columns
from anonkit.algorithms.common import suppression_limit, suppression_verdict
from anonkit.algorithms.local import judge
from anonkit.algorithms.search._states import Space
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.stats import class_stats_for
from anonkit.table import Table


def _shield_fixpoint(
    table: Table, sizes: np.ndarray, keys: np.ndarray, ok: np.ndarray, models: list[Criterion]
) -> np.ndarray:
    """Models on a quasi-identifier subset, judged on the published values: classes agreeing on the
    subset form one group; a failing group's classes are suppressed, which may shrink other
    groups, so this repeats until nothing changes."""
    subset = [m for m in models if m.qis is not None]
    ok = ok.copy()
    radix = [int(keys[:, j].max()) + 1 if len(keys) else 1 for j in range(keys.shape[1])]
    changed = bool(subset)
    while changed:
        changed = False
        for m in subset:
            alive = np.flatnonzero(ok)
            if not alive.size:
                return ok
            idx = [table.qi.index(q) for q in m.qis or ()]
            if idx:
                group, n_groups = group_columns([keys[alive, j] for j in idx], [radix[j] for j in idx])
            else:
                group, n_groups = np.zeros(alive.size, dtype=np.int64), 1
            bad = ~m.passes(class_stats_for((m,), group, n_groups, weights=sizes[alive]))
            if bad.any():
                ok[alive[bad[group]]] = False
                changed = True
    return ok


def cut_release(
    space: Space,
    cut: tuple[np.ndarray, ...],
    models: list[Criterion],
    *,
    algorithm: str,
    max_suppression: float,
    params: dict,
    started: float,
) -> Release:
    """The release of the state ``cut`` of ``space`` (see the module docstring)."""
    table = space.table
    n, d = table.n, len(table.qi)
    levels = np.zeros((n, d), dtype=np.int64)
    nodes = table.codes.astype(np.int64)
    labels = table.codes.astype(np.int64)
    radix = [h.n_leaves for h in table.hierarchies]
    for attr, gid in zip(space.attrs, space.record_nodes(cut), strict=True):
        j = attr.column
        levels[:, j] = attr.level[gid]
        nodes[:, j] = attr.node[gid]
        labels[:, j] = attr.label[gid]
        radix[j] = attr.n_labels
    keep = np.flatnonzero(~table.presuppressed)
    record_class = np.full(n, -1, dtype=np.int64)
    if keep.size and d:
        ids, n_classes = group_columns([labels[keep, j] for j in range(d)], radix)
        record_class[keep] = ids
    elif keep.size:
        record_class[keep], n_classes = 0, 1
    else:
        n_classes = 0
    first = np.full(n_classes, -1, dtype=np.int64)
    first[record_class[keep[::-1]]] = keep[::-1]
    class_levels, class_nodes, keys = levels[first], nodes[first], labels[first]
    ok = judge(table, record_class, n_classes, models) if n_classes else np.zeros(0, dtype=bool)
    if n_classes:
        sizes = np.bincount(record_class[keep], minlength=n_classes).astype(float)
        ok = _shield_fixpoint(table, sizes, keys, ok, models)
    failed = ~ok
    failed_records = int(np.isin(record_class, np.flatnonzero(failed)).sum()) if n_classes else 0
    new_id = np.cumsum(ok) - 1
    safe = np.maximum(record_class, 0)
    if n_classes:
        record_class = np.where((record_class >= 0) & ok[safe], new_id[safe], -1)
    class_levels, class_nodes = class_levels[ok], class_nodes[ok]
    released = int(ok.sum())
    suppressed = int((record_class < 0).sum()) - int(table.presuppressed.sum())
    satisfied, message = suppression_verdict(suppressed, suppression_limit(max_suppression, n), released)
    rel = Release(
        table,
        record_class,
        class_levels,
        class_nodes,
        algorithm,
        transformation=None,
        satisfied=satisfied,
        message=message,
        params=dict(params),
        seconds=time.perf_counter() - started,
    )
    rel.failed_records = failed_records
    return rel
