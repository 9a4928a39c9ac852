"""k-map and δ-presence in the clustering family: merge a cluster until its published region
covers enough of the population (anonkit's extension; MDAV with ``output: intervals``).

A cluster publishes a region — the ``[min, max]`` interval of every numeric QI, the lowest common
ancestor of every other — and the verifier counts the population records inside it
(:mod:`anonkit.algorithms.partition.regions`). A merged cluster's region holds both regions, so its
population count is at least either's: k-map is monotone under merging, and a cluster that covers
too few population records is merged with its nearest cluster (the algorithm's own distance,
:class:`~anonkit.algorithms.cluster._merge.ClusterSpace`) until it passes or one cluster is left.
Every round judges the release's classes (classes publishing identical values are one class), and
merges, for every failing class, its member cluster with the fewest records (ties: the lowest
record) with its nearest. δ-presence's dmax is not monotone under merging (the union's region may
hold fewer population records per research record); what still fails at the end is suppressed
(:func:`~anonkit.algorithms.partition.regions.enforce_on_release`), and when the clusters before any
of these merges lose fewer records that way, they are published instead (``notes['population_fallback']``).
``notes['population_merges']`` counts the merges.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from anonkit.algorithms.cluster._merge import ClusterSpace
from anonkit.algorithms.partition.regions import enforce_on_release, judge_population
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table


def merge_for_population(table: Table, models: Sequence[Criterion], space: ClusterSpace, record_class: np.ndarray,
                         build: Callable[[np.ndarray], Release]) -> tuple[np.ndarray, int]:
    """The clusters (``record_class``, ids of ``space``; −1: none) after merging those whose classes
    fail the population ``models`` (module docstring), and the number of merges."""
    rc = np.asarray(record_class, dtype=np.int64).copy()
    merges = 0
    while space.alive > 1:
        rel = build(rc)
        bad = np.flatnonzero(~judge_population(table, rel, models)) if rel.n_classes else np.zeros(0, dtype=np.int64)
        if not bad.size:
            break
        used: set[int] = set()
        for g in _representatives(rc, rel.record_class, bad):
            if g in used or space.alive <= 1:
                continue
            h = space.nearest(g)
            t = space.merge(g, h)
            used.update((g, h))
            rc[(rc == g) | (rc == h)] = t
            merges += 1
    return rc, merges


def _representatives(rc: np.ndarray, published: np.ndarray, bad: np.ndarray) -> list[int]:
    """For every failing published class, its member cluster with the fewest records (ties: the one
    holding the lowest record)."""
    rows = np.flatnonzero(np.isin(published, bad) & (rc >= 0))
    sizes = np.bincount(rc[rc >= 0])
    first = np.full(len(sizes), len(rc), dtype=np.int64)
    keep = np.flatnonzero(rc >= 0)
    np.minimum.at(first, rc[keep], keep)
    pairs = np.unique(np.stack([published[rows], rc[rows]], axis=1), axis=0)
    pub, cls = pairs[:, 0], pairs[:, 1]
    order = np.lexsort((first[cls], sizes[cls], pub))
    pub, cls = pub[order], cls[order]
    head = np.r_[True, pub[1:] != pub[:-1]] if len(pub) else np.zeros(0, dtype=bool)
    return [int(c) for c in cls[head]]


def enforce_population(table: Table, models: Sequence[Criterion], space: ClusterSpace, record_class: np.ndarray,
                       build: Callable[[np.ndarray], Release],
                       finish: Callable[[np.ndarray], Release] | None = None) -> Release:
    """Merge for the population ``models``, then ``finish(record_class)`` (default ``build``: the
    algorithm's merges for its other models), then suppress what still fails; the clusters before
    these merges, with their failures suppressed, when that loses fewer records."""
    finish = build if finish is None else finish
    before = np.asarray(record_class, dtype=np.int64)
    merged, merges = merge_for_population(table, models, space, before, build)
    rel = finish(merged)
    rel = enforce_on_release(table, rel.record_class, rel, models, build)
    fallback = False
    if merges and rel.n_suppressed > int(table.presuppressed.sum()):
        plain = build(before)
        plain = enforce_on_release(table, before, plain, models, build)
        if plain.n_suppressed < rel.n_suppressed:
            rel, fallback = plain, True
    rel.notes["population_merges"] = 0 if fallback else merges
    rel.notes["population_fallback"] = fallback
    return rel
