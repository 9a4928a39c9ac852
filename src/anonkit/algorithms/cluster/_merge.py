"""Meeting l-diversity, t-closeness, β-likeness and δ-disclosure in the clustering algorithms by
merging classes instead of suppressing them (anonkit's extension of KACA and MDAV).

KACA and MDAV form classes of at least ``k`` records; the papers do not say how to meet a model
that a class of ``k`` or more records can still fail. anonkit then merges (spec register: this is
not in the papers):

1. every class failing a model — judged on its statistics (size and sensitive histograms,
   :func:`~anonkit.algorithms.local.record_stats` and :meth:`Criterion.passes
   <anonkit.models.Criterion.passes>`, the machinery the release and the verifier use) — is
   merged with its nearest class (the algorithm's own distance, :class:`ClusterSpace`), the
   failing class with the fewest records first (ties: the one holding the smallest record id);
   a merged class that still fails is merged again;
2. the release is built (:func:`~anonkit.algorithms.local.partition_release`), which publishes
   classes with identical labels as one class; when such a published class fails, its member
   class with the fewest records (ties: smallest record id) is merged with its nearest class and
   step 2 repeats. Every round merges at least once, so this ends: at the latest when a single
   class remains;
3. what still fails is suppressed — when everything has been merged into one class that fails.
   If the release of the clusters *before* any of these merges suppresses fewer records (some of
   its classes passed while their union fails, e.g. entropy l-diversity on a skewed table, or
   t-closeness when records suppressed up front shift the distribution), that release is
   published instead, so merging never suppresses more than suppressing the failing classes
   (``notes['merge_fallback']`` is then true).

Only models on all quasi-identifiers are judged here; k-anonymity on a subset of them is left to
:func:`~anonkit.algorithms.local.partition_release` (its failures are suppressed, as before).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Literal, Protocol

import numpy as np

from anonkit.algorithms.local import judge, record_stats
from anonkit.models import Criterion, KAnonymity
from anonkit.release import Release
from anonkit.table import Table

#: builds the release of a record partition judged by the given models
Build = Callable[[np.ndarray, list[Criterion]], Release]
#: an algorithm option: what happens to a class failing a model other than k-anonymity
Failing = Literal["merge", "suppress"]
#: merging is anonkit's default (the papers' behaviour is ``suppress``)
DEFAULT_FAILING: Failing = "merge"


class ClusterSpace(Protocol):
    """An algorithm's classes as merging sees them: stable class ids (never reused; a merge creates
    a new id), the number of live classes, the nearest live class and the merge itself."""

    @property
    def alive(self) -> int:
        """Number of live classes."""
        ...

    def nearest(self, g: int) -> int:
        """The id of the live class nearest to class ``g`` (ties as the algorithm breaks them)."""
        ...

    def merge(self, g: int, h: int) -> int:
        """Replace classes ``g`` and ``h`` by their union; return the union's new id."""
        ...


def class_models(models: list[Criterion]) -> list[Criterion]:
    """The models judged per class on all quasi-identifiers (what merging tries to meet)."""
    return [m for m in models if m.qis is None]


def needs_merging(models: list[Criterion]) -> bool:
    """Whether a class of at least ``k`` records can fail one of ``models``: any model on all
    quasi-identifiers other than k-anonymity (l-diversity, t-closeness, β-likeness…)."""
    return any(not isinstance(m, KAnonymity) for m in class_models(models))


class _Merger:
    """Class statistics by class id, the failing classes' queue and the union of merged ids."""

    def __init__(self, table: Table, models: list[Criterion], record_class: np.ndarray, capacity: int) -> None:
        self.models = models
        rc = np.asarray(record_class, dtype=np.int64)
        stats = record_stats(table, rc, capacity, models)
        if not stats.rollable():
            raise TypeError("a cluster merge adds class statistics up; a model's need that does not sum over "
                            f"merged classes ({', '.join(stats.extra)}) cannot be merged")
        self.domains = stats.domains
        self.sizes = stats.sizes.copy()
        self.hist = {a: h.astype(np.float64) for a, h in stats.hist.items()}
        self.extra = {n: v.astype(np.float64) for n, v in stats.extra.items()}
        # shares the arrays merges update in place
        self.stats = stats.with_counts(self.sizes, self.hist, self.extra)
        self.first = np.full(capacity, table.n, dtype=np.int64)
        keep = np.flatnonzero(rc >= 0)
        np.minimum.at(self.first, rc[keep], keep)
        self.parent = np.arange(capacity, dtype=np.int64)
        self.record_class0 = rc
        self.merges = 0

    def passes(self, ids: np.ndarray) -> np.ndarray:
        """Whether classes ``ids`` satisfy every model, judged on their statistics."""
        stats = self.stats.subset(ids)
        ok = np.ones(len(ids), dtype=bool)
        for m in self.models:
            ok &= m.passes(stats)
        return ok

    def failing(self) -> np.ndarray:
        """The live classes that fail a model."""
        ids = np.unique(self.record_class0[self.record_class0 >= 0])
        return ids[~self.passes(ids)]

    def run(self, space: ClusterSpace, pending: np.ndarray) -> None:
        """Merge every class of ``pending`` with its nearest class (fewest records first, then the
        smallest record id), and again while the union fails, until none is left or one class
        remains. ``pending`` classes are merged whether or not they pass on their own."""
        heap = [(float(self.sizes[g]), int(self.first[g]), int(g)) for g in pending]
        heapq.heapify(heap)
        while heap and space.alive > 1:
            _, _, g = heapq.heappop(heap)
            if self.parent[g] != g:  # merged already
                continue
            h = space.nearest(g)
            t = space.merge(g, h)
            self.parent[g] = self.parent[h] = t
            self.sizes[t] = self.sizes[g] + self.sizes[h]
            for hist in self.hist.values():
                hist[t] = hist[g] + hist[h]
            for value in self.extra.values():
                value[t] = value[g] + value[h]
            self.first[t] = min(self.first[g], self.first[h])
            self.merges += 1
            if not self.passes(np.array([t]))[0]:
                heapq.heappush(heap, (float(self.sizes[t]), int(self.first[t]), t))

    def record_classes(self) -> np.ndarray:
        """The current class id of every record (−1 where the clustering had none)."""
        root = self.parent.copy()
        while True:
            nxt = root[root]
            if np.array_equal(nxt, root):
                break
            root = nxt
        rc = self.record_class0
        return np.where(rc >= 0, root[np.maximum(rc, 0)], -1)

    def representatives(self, record_class: np.ndarray, published: np.ndarray, bad: np.ndarray) -> np.ndarray:
        """For every failing published class in ``bad``, its member class (``record_class``) with
        the fewest records, ties to the one holding the smallest record id."""
        rows = np.flatnonzero(np.isin(published, bad) & (record_class >= 0))
        pairs = np.unique(np.stack([published[rows], record_class[rows]], axis=1), axis=0)
        pub, cls = pairs[:, 0], pairs[:, 1]
        order = np.lexsort((self.first[cls], self.sizes[cls], pub))
        pub, cls = pub[order], cls[order]
        head = np.r_[True, pub[1:] != pub[:-1]]
        return cls[head]


def merge_until_pass(
    table: Table,
    models: list[Criterion],
    space: ClusterSpace,
    record_class: np.ndarray,
    capacity: int,
    build: Build,
) -> Release:
    """Merge failing classes (see the module docstring) and return the release.

    ``record_class`` holds the class id of every record in ``space`` (−1: none); ``capacity`` is
    above every id a merge can create; ``build(record_class, models)`` is the algorithm's
    :func:`~anonkit.algorithms.local.partition_release` call. Sets ``notes['model_merges']`` (the
    merges done here), ``notes['merge_rounds']`` (release rounds) and ``notes['merge_fallback']``.
    """
    judged = class_models(models)
    merger = _Merger(table, judged, record_class, capacity)
    merger.run(space, merger.failing())
    rounds = 1
    while True:
        rc = merger.record_classes()
        rel = build(rc, models)
        if rel.failed_records == 0 or space.alive <= 1:
            break
        # which published classes fail (classes publishing the same labels are one class)
        plain = build(rc, [])
        ok = judge(table, plain.record_class, plain.n_classes, judged)
        bad = np.flatnonzero(~ok)
        if not bad.size:  # the failures come from models on a subset of the quasi-identifiers
            break
        merger.run(space, merger.representatives(rc, plain.record_class, bad))
        rounds += 1
    fallback = False
    if rel.n_suppressed > int(table.presuppressed.sum()) and merger.merges:
        before = build(merger.record_class0, models)
        if before.n_suppressed < rel.n_suppressed:
            rel, fallback = before, True
    rel.notes["model_merges"] = 0 if fallback else merger.merges
    rel.notes["merge_rounds"] = rounds
    rel.notes["merge_fallback"] = fallback
    return rel
