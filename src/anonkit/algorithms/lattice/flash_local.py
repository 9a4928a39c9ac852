"""ARX's local recoding: a global transformation, then the optimal search repeated on the records it
suppresses (ARX's ``ARXResult.optimizeIterative``, the "local transformation" of its GUI; Prasser,
Kohlmayer, Kuhn, "Efficient and effective pruning strategies for health data de-identification",
BMC Med Inform Decis Mak 16, 2016).

As ARX's source defines it:

1. **Global step.** Flash finds the optimal full-domain transformation of the whole table (within
   ``max_suppression``, for the run's metric). If it fails, so does the run.
2. **Iterations.** While records are suppressed — at least as many as the smallest class the models
   allow (ARX's minimal group size), at most ``max_iterations`` times — the same search runs on the
   suppressed records alone, with the same models and the same relative suppression limit, its
   metric's generalization/suppression factor set to ``gs_factor`` (ARX: 0 weighs suppression only,
   1 generalization only, 0.5 both alike; low values make the next iteration prefer generalizing over
   suppressing). The records it releases are published with *their* transformation; the rest stay
   suppressed for the next iteration. An iteration that releases nothing raises the factor by
   ``adaption_factor`` and tries again while it stays ≤ 1 (ARX's adaption); with an adaption factor
   of 0 it ends the run.

So different records are generalized to different levels: a class publishes its own iteration's
transformation. Two classes of different iterations that publish the same values are one class to
a reader: they are merged and the merged class is judged again by the models (suppressed whole if it
fails — unions of classes keep k-anonymity, entropy ℓ-diversity and t-closeness with ARX's distances;
the check makes sure). The release is verified like any other.

**ARX's semantics, step by step** (ARX 3.9's ``ARXResult.optimizeIterative`` and ``optimizeFast``,
checked against ARX itself with a driver that logs every iteration):

* the records an iteration works on are the global output's suppressed records in input order (ARX's
  ``RowSet`` of outliers; records suppressed before anonymization are not among them), and it runs
  only while there are some and at least the models' minimal class size of them (ARX's
  ``isOptimizable``: ``getMinimalGroupSize``, unlimited when no model states one);
* an iteration's search is the run's own (same models, same relative suppression limit, same
  metric) with only the metric's g/s factor replaced (``getInstanceForLocalRecoding``); the factor is
  never reset: it grows by the adaption factor after every iteration that releases nothing (no
  solution, or a solution that suppresses every record) and the run ends when it would pass 1, when
  ``max_iterations`` iterations have run, or, with adaption 0, after the first empty iteration;
* a sensitive attribute's distribution (t-closeness, β-likeness) is the whole table's in every
  iteration, as in ARX (``DataManagerSubset.getDistribution`` reads its source's);
* an estimated k-map's derived k′ is the one of the whole table (the model is built for the run's
  records once) in every iteration, as in ARX (``KMap.clone(subset)`` is ``KAnonymity(derivedK)``);
* a suppressed record publishes ``*`` in every quasi-identifier, its other columns as they are.

With these rules the output equals ARX's, cell for cell, in all 7 of ARX's
``TestAnonymizationLocalRecoding`` cases on Adult (``tests/test_arx_local_recoding.py`` compares the
hash ARX's test computes over the output, and every iteration's records, releases and
transformation). The one difference, on purpose: ARX publishes classes of different iterations that
print the same values side by side without judging their union; here that union is judged (it never
failed in ARX's cases, so their outputs are unchanged). Ties between equally good transformations
follow Flash's documented rule (ARX's choice in every iteration of those cases).
``notes["candidates"]`` holds the records each iteration worked on, ``notes["transformations"]`` the
transformation of each iteration that released records.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Annotated

import numpy as np
import pandas as pd
from pydantic import Field

from anonkit._kernels import group_columns
from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression, suppression_limit, suppression_verdict
from anonkit.algorithms.lattice._search import as_metric
from anonkit.algorithms.lattice._space import DEFAULT_HEURISTIC_THRESHOLD, DEFAULT_TIME_LIMIT
from anonkit.algorithms.lattice.flash import DEFAULT_HEURISTIC, Heuristic, flash
from anonkit.algorithms.local import judge
from anonkit.algorithms.spec import algorithm
from anonkit.errors import InputError
from anonkit.metrics import score
from anonkit.models import Criterion
from anonkit.release import Release, SearchStats
from anonkit.table import ExactValues, Table

Fraction = Annotated[float, Field(ge=0, le=1)]

#: ARX's defaults (its GUI's ``ModelLocalRecoding``; its tests call ``optimizeIterative(…, 0.05, 100, 0.05)``)
DEFAULT_GS_FACTOR = 0.05
DEFAULT_MAX_ITERATIONS = 100
DEFAULT_ADAPTION_FACTOR = 0.05


def subset_table(table: Table, rows: np.ndarray) -> Table:
    """``table``'s ``rows`` as a table of their own: the same schema, hierarchies and sensitive domains
    (with the whole table's distribution), no re-encoding."""
    rows = np.asarray(rows, dtype=np.int64)
    out = object.__new__(Table)
    out.__dict__.update({k: v for k, v in table.__dict__.items() if k not in ("distinct", "_flat_maps", "_exact")})
    out.frame = table.frame.iloc[rows].reset_index(drop=True)
    out.codes = table.codes[rows]
    out.presuppressed = table.presuppressed[rows]
    out.numeric = {k: v[rows] for k, v in table.numeric.items()}
    exact = table.__dict__.get("_exact", {})
    out.__dict__["_exact"] = {k: ExactValues(v.rank[rows], v.texts) for k, v in exact.items()}
    out.sensitive_codes = {k: v[rows] for k, v in table.sensitive_codes.items()}
    out.n = out.n_records = out.n_persons = len(rows)
    return out


def _published_keys(table: Table, levels: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, int]:
    """One id per class, equal exactly when two classes publish the same labels."""
    cols, sizes = [], []
    for j, h in enumerate(table.hierarchies):
        text = np.empty(len(levels), dtype=object)
        for lv in np.unique(levels[:, j]):
            sel = levels[:, j] == lv
            text[sel] = np.asarray(h.labels[int(lv)], dtype=object)[nodes[sel, j]]
        codes, uniq = pd.factorize(text)
        cols.append(codes.astype(np.int64))
        sizes.append(max(len(uniq), 1))
    if not cols:
        return np.zeros(len(levels), dtype=np.int64), 1
    keys, m = group_columns(cols, sizes)
    return np.asarray(keys, dtype=np.int64), int(m)


def _assemble(table: Table, record_class: np.ndarray, levels: np.ndarray, nodes: np.ndarray,
              models: list[Criterion]) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Merge classes publishing the same labels, judge the merged classes again and suppress those
    that fail. Returns the record classes, the class levels and nodes, and the records suppressed so."""
    n = len(levels)
    if n == 0:
        return record_class, levels, nodes, 0
    keys, m = _published_keys(table, levels, nodes)
    first = np.full(m, -1, dtype=np.int64)
    first[keys[::-1]] = np.arange(n - 1, -1, -1)
    rc = np.where(record_class >= 0, keys[np.maximum(record_class, 0)], -1)
    levels, nodes = levels[first], nodes[first]
    ok = judge(table, rc, m, models)
    failed = int(np.isin(rc, np.flatnonzero(~ok)).sum())
    new_id = np.cumsum(ok) - 1
    rc = np.where((rc >= 0) & ok[np.maximum(rc, 0)], new_id[np.maximum(rc, 0)], -1)
    return rc, levels[ok], nodes[ok], failed


def _minimal_group(models: Sequence[Criterion]) -> int:
    """ARX's minimal group size: the smallest class the models allow (no iteration on fewer records)."""
    return max((int(m.minimum_class_size()) for m in models if m.qis is None), default=1)


@algorithm("flash-local", family="lattice", summary="ARX's local recoding: Flash's global optimum, then the "
           "optimal search repeated on the records it suppresses (iterative optimization, g/s factor)",
           label="Flash + local recoding")
def flash_local(
    table: Table,
    models: list[Criterion],
    *,
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
    metric: object = None,
    gs_factor: Fraction = DEFAULT_GS_FACTOR,
    max_iterations: Annotated[int, Field(ge=1, le=100_000)] = DEFAULT_MAX_ITERATIONS,
    adaption_factor: Fraction = DEFAULT_ADAPTION_FACTOR,
    heuristic_threshold: Annotated[int, Field(ge=1)] = DEFAULT_HEURISTIC_THRESHOLD,
    heuristic: Heuristic = DEFAULT_HEURISTIC,
    time_limit: Annotated[float, Field(gt=0)] = DEFAULT_TIME_LIMIT,
    step_limit: Annotated[int, Field(ge=1)] | None = None,
) -> Release:
    """ARX's iterative local recoding over Flash, see the module docstring.

    Parameters
    ----------
    max_suppression:
        Share of the records the models may suppress (in the global step and in every iteration,
        of the records it works on).
    gs_factor:
        The metric's generalization/suppression factor in the iterations (ARX: 0.05).
    max_iterations:
        Iterations at most (ARX: 100).
    adaption_factor:
        Added to the factor after an iteration that released nothing (ARX: 0.05; 0 ends the run then).
    heuristic_threshold, heuristic, time_limit, step_limit:
        As for flash, in every search.

    Returns
    -------
    Release
        Classes at the transformation of the iteration that released them (``transformation`` None).
        ``notes`` hold ``transformations`` (the global one first, then each iteration's, as lists of
        levels, None where an iteration released nothing), ``recoded`` (records each released),
        ``gs_factors`` (the factor each iteration used) and ``merged_failed`` (records suppressed
        because a merged class failed).
    """
    started = time.perf_counter()
    if table.weights is not None or table.person is not None:
        raise InputError("flash-local recodes records one by one: it runs on the local engine without a person "
                         "column", key="algorithm.name")
    if table.sources:
        raise InputError("flash-local cannot split the population counts a model reads; use flash",
                         key="algorithm.name")
    options = dict(heuristic_threshold=heuristic_threshold, heuristic=heuristic, time_limit=time_limit,
                   step_limit=step_limit)
    base = flash(table, models, max_suppression=max_suppression, metric=metric, **options)
    base_metric = as_metric(metric)
    if not base.satisfied or base.search is None:
        base.algorithm = "flash-local"
        return base
    record_class = base.record_class.copy()
    levels = [base.class_levels]
    nodes = [base.class_nodes]
    offset = base.n_classes
    history: list[list[int] | None] = [[base.transformation[q] for q in table.qi]] if base.transformation else []
    recoded: list[int] = []
    candidates: list[int] = []
    factors: list[float] = []
    gs, iterations, current = float(gs_factor), 0, -1
    smallest = _minimal_group(models)
    while iterations < max_iterations and current != 0:
        rows = np.flatnonzero((record_class < 0) & ~table.presuppressed)
        if rows.size == 0 or rows.size < smallest:
            break
        factors.append(gs)
        candidates.append(int(rows.size))
        rel = flash(subset_table(table, rows), models, max_suppression=max_suppression,
                    metric=dataclasses.replace(base_metric, gs=gs), **options)
        current = rel.n_released if rel.satisfied else 0
        if current:
            kept = rel.record_class >= 0
            record_class[rows[kept]] = rel.record_class[kept] + offset
            offset += rel.n_classes
            levels.append(rel.class_levels)
            nodes.append(rel.class_nodes)
        history.append([rel.transformation[q] for q in table.qi] if current and rel.transformation else None)
        recoded.append(int(current))
        if current == 0 and adaption_factor > 0:
            gs += adaption_factor
            if gs <= 1.0:
                current = -1  # try again with more weight on generalization
        iterations += 1
    rc, lv, nd, failed = _assemble(table, record_class, np.concatenate(levels), np.concatenate(nodes), models)
    suppressed = int((rc < 0).sum()) - int(table.presuppressed.sum())
    satisfied, message = suppression_verdict(suppressed, suppression_limit(max_suppression, table.n_records),
                                             len(lv))
    out = Release(table, rc, lv, nd, "flash-local", satisfied=satisfied, message=message,
                  params=dict(max_suppression=max_suppression, metric=base_metric.name, gs_factor=gs_factor,
                              max_iterations=max_iterations, adaption_factor=adaption_factor))
    out.failed_records = failed
    out.notes.update(transformations=history, recoded=recoded, candidates=candidates, gs_factors=factors,
                     merged_failed=failed, iterations=iterations)
    value = score(table, out, base_metric)
    out.search = SearchStats(score=list(value) if isinstance(value, tuple) else float(value),
                             counts=base.search.counts, fallback=base.search.fallback)
    out.message += (f"; local recoding: {sum(recoded):,} of the {base.n_suppressed:,} records the global "
                    f"transformation suppressed released in {iterations} iteration(s)")
    out.seconds = time.perf_counter() - started
    return out


__all__ = ["flash_local", "subset_table"]
