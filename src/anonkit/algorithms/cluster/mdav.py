"""MDAV microaggregation (Domingo-Ferrer & Mateo-Sanz 2002; MDAV-generic: Domingo-Ferrer & Torra
2005; spec §5.5).

Records are grouped in the space of their quasi-identifiers:

* numeric (and date) QIs are standardized (``zscore``: zero mean, unit variance — the default;
  ``minmax``: ``[0, 1]``); a constant column becomes 0;
* any other QI is handled as in MDAV-generic with the §0.3 distance: between two records
  ``δ = LCA level / hierarchy height`` (0 if equal; the trivial ``{values} → *`` hierarchy when none
  is given, so then ``δ`` is 0 or 1); between a record and the centroid of a set of records, ``δ`` is
  the share of the set whose value differs from the record's.

The distance is ``sqrt(Σ_a δ_a²)`` (all weights 1). Steps (spec §5.5): while at least ``3k`` records
remain, take the centroid of the remaining records, the record ``x_r`` farthest from it and the group
of ``x_r`` and its ``k − 1`` nearest remaining records; then the record ``x_s`` farthest from ``x_r``
and the group of ``x_s`` and its ``k − 1`` nearest. With ``2k … 3k − 1`` left, one more group around the
record farthest from the centroid and the rest as the last group; with fewer than ``2k`` left, they
form the last group. Every tie goes to the lowest record index. The centroid's numeric mean is the
correctly rounded sum of the remaining known values over their number (independent of their order).
MDAV runs on the distinct tuples with their records (:mod:`~anonkit.algorithms.cluster._mdav_tuples`:
O(distinct tuples) a round, the groups of the record-by-record :func:`mdav_groups` exactly); from
:data:`INDEX_FROM` records with other than one numeric QI, through a tree of bounds over the distinct
tuples and a sorted snapshot of the centroid distances (:mod:`~anonkit.algorithms.cluster._mdav_index`,
:mod:`~anonkit.algorithms.cluster._mdav_drift`: the same groups; issue 30: Adult ×10, replicated or
with ten times the distinct tuples, about 10× Adult). Groups have ``k … 2k − 1`` records;
when the whole table has fewer than ``k`` records it is one group that is too small and is
suppressed (``satisfied`` false).

``k`` is the largest minimum class size the models need (as for KACA,
:func:`~anonkit.algorithms.cluster.kaca.required_size`).

Models a group of ``k`` records can fail (l-diversity, t-closeness, β-likeness, δ-disclosure —
every model on all QIs but k-anonymity) are not covered by the papers. anonkit's extension
(``failing="merge"``, the default; :mod:`anonkit.algorithms.cluster._merge`): after MDAV has formed
its groups, a group failing a model — judged on its size and sensitive histogram with the models'
own ``passes`` — is merged with its nearest group, the failing group with the fewest records first
(ties: the one holding the lowest record index), and again while the merged group fails. The
distance is MDAV's, between group centroids in the standardized space: the squared Euclidean
distance of the numeric QIs' means (1 per QI where a group has no known value, §0.3) plus, per
non-numeric QI, the squared total variation distance of the two groups' value distributions (for a
one-record group, the share of the other group holding another value: MDAV-generic's record-to-
centroid ``δ``); ties go to the group holding the lowest record index. Groups published with
identical values are one class of the release: when such a class fails, its smallest group is
merged with its nearest group and the release is judged again, until nothing fails or one group
remains. Only then is anything suppressed: the single remaining group when it still fails —
unless suppressing the failing groups of MDAV without these merges loses fewer records, which is
then what is published (``notes['merge_fallback']``). ``failing="suppress"`` suppresses failing
groups whole instead. Merged groups may exceed ``2k − 1`` records. ``notes['model_merges']`` counts
the merges done for the models, ``notes['merge_rounds']`` the release rounds.

k-map and δ-presence (a research subset of a population) are judged on the population records inside
the region each class publishes, as the verifier recounts them; a class covering too few is merged
with its nearest until it passes (:mod:`anonkit.algorithms.cluster._population`), before the merges
for the other models; what still fails is suppressed. They need ``output: intervals`` when there are
numeric QIs (a centroid covers only the population records holding exactly the mean).

Records suppressed up front (``missing="suppress"``) take no part. Otherwise a missing numeric
value has ``δ = 1`` to anything (§0.3: worst case; means and standardization ignore it), and a
class holding one is released with the hierarchy's LCA for that QI
(:func:`~anonkit.algorithms.local.partition_release`).

Output (``output``):

* ``"centroids"`` (default): every numeric QI of a group is released as the group mean. The release
  is built by :func:`~anonkit.algorithms.local.partition_release` and then ``class_bounds[name]`` is
  set to ``[mean, mean]`` for every class, so ``class_bounds`` then holds the **centroid**, not an
  interval; the real ``[min, max]`` intervals are kept in ``notes['intervals']`` (name → ``C × 2``).
  Interval-based measures (NCP/GCP) must be computed on an ``"intervals"`` release;
* ``"intervals"``: numeric QIs become the group's ``[min, max]`` interval.

Non-numeric QIs are released as the lowest common ancestor of the group's values in both modes
(generalization, not a substituted "average" category).

Groups published with identical labels (frequent on categorical QIs, possible for equal means or
intervals) are one equivalence class of the release (spec §0.2) and are merged into one class
(by :func:`~anonkit.algorithms.local.partition_release`), so a class may exceed ``2k − 1``
records; ``record_group`` keeps MDAV's group of every record as MDAV formed it, before any merge
for the models (−1 for records suppressed up front), and ``notes['groups']`` their number.

``notes['information_loss']`` is ``SSE/SST`` in the standardized space: the sum over records of the
squared distance to their class's centroid over the sum of the squared distances to the centroid of
all records (for a non-numeric QI the centroid term is the share of the class, or of all records,
holding another value). A record suppressed by a model counts with its full SST term; 0 when SST
is 0. With numeric QIs only this is the classic microaggregation loss (with ``centroids`` the
merged groups share their mean, so merging does not change it; with ``intervals`` groups merged for
sharing an interval are scored around their common centroid); groups merged for the models are
scored around the centroid of the merged class.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

import numpy as np

from anonkit.algorithms.cluster._mdav_combos import mdav_groups_combos
from anonkit.algorithms.cluster._mdav_index import mdav_groups_index
from anonkit.algorithms.cluster._mdav_tuples import exact_mean, mdav_groups_tuples
from anonkit.algorithms.cluster._mdav_tuples import missing_one as _missing_one
from anonkit.algorithms.cluster._merge import DEFAULT_FAILING, Failing, merge_until_pass, needs_merging
from anonkit.algorithms.cluster._population import enforce_population
from anonkit.algorithms.cluster.kaca import check_single_root
from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression, check_references, required_size
from anonkit.algorithms.local import partition_release
from anonkit.algorithms.partition.regions import explain_population, population_models
from anonkit.algorithms.spec import algorithm
from anonkit.distance import to_unit
from anonkit.errors import InputError
from anonkit.hierarchy import PairwiseLCA
from anonkit.models import Criterion
from anonkit.models.population import counts_published_regions
from anonkit.release import Release
from anonkit.table import Table

#: largest number of used leaves for which the (leaves × leaves) δ² table is precomputed
_MATRIX_LIMIT = 2048
#: records from which MDAV searches through the tree of bounds (:mod:`._mdav_index`) rather than
#: scanning every remaining distinct tuple each round (below it the scan costs about as little)
INDEX_FROM = 4096
#: relative tolerance under which two group distances count as tied
_TIE = 1e-9
#: largest (groups × used values) count table kept for a non-numeric QI while merging groups
_DENSE_LIMIT = 1 << 22


class _Space:
    """The records taking part, in the standardized space: numeric columns ``Z`` (p × m) and leaf
    codes ``C`` (q × m) with their δ² tables."""

    def __init__(self, table: Table, rows: np.ndarray, standardize: str) -> None:
        num = [j for j, q in enumerate(table.qi) if q in table.numeric]
        cat = [j for j, q in enumerate(table.qi) if q not in table.numeric]
        self.Z = np.zeros((len(num), len(rows)), dtype=np.float64)
        self.missing: list[bool] = []  # numeric attribute with missing values (NaN)?
        for i, j in enumerate(num):
            x = table.numeric[table.qi[j]][rows]
            nan = np.isnan(x)
            self.missing.append(bool(nan.any()))
            if nan.all():
                self.Z[i] = np.nan
                continue
            if standardize == "zscore":
                sd = float(np.nanstd(x))
                self.Z[i] = (x - np.nanmean(x)) / sd if sd > 0 else 0.0
            else:  # minmax: the §0.3 unit scale
                self.Z[i] = to_unit(x)
            self.Z[i, nan] = np.nan
        self.C = np.zeros((len(cat), len(rows)), dtype=np.intp)
        self.sizes: list[int] = []
        self.heights: list[int] = []
        self.lca: list[PairwiseLCA] = []  # LCA levels of the used leaves (§0.3: δ = level / height)
        for i, j in enumerate(cat):
            h = table.hierarchies[j]
            leaves, local = np.unique(table.codes[rows, j], return_inverse=True)
            self.C[i] = local.reshape(-1)
            self.sizes.append(len(leaves))
            self.heights.append(h.height)
            self.lca.append(PairwiseLCA(h.maps, leaves, limit=_MATRIX_LIMIT))
        self.delta2 = [None if lca.matrix is None else self._delta2(i, lca.matrix) for i, lca in enumerate(self.lca)]

    def _delta2(self, i: int, levels: np.ndarray) -> np.ndarray:
        """δ² (spec §0.3) from LCA levels of categorical attribute ``i``; height 0: 0 on equal leaves,
        1 elsewhere."""
        height = self.heights[i]
        if height == 0:
            return 1.0 - np.eye(self.sizes[i]) if levels.ndim == 2 else levels.astype(np.float64)
        return (levels / height) ** 2

    def delta2_row(self, i: int, a: int) -> np.ndarray:
        """δ² of used leaf ``a`` of categorical attribute ``i`` with every used leaf."""
        m = self.delta2[i]
        if m is not None:
            return m[a]
        if self.heights[i] == 0:
            row = np.ones(self.sizes[i])
            row[a] = 0.0
            return row
        return self._delta2(i, self.lca[i].row(a).astype(np.float64))


@algorithm("mdav", family="cluster", summary="microaggregation (MDAV, MDAV-generic for categorical "
           "quasi-identifiers): groups of k to 2k−1 records around the farthest records; classes failing "
           "l/t/β/δ are merged with their nearest", explain=explain_population)
def mdav(
    table: Table,
    models: list[Criterion],
    *,
    output: Literal["centroids", "intervals"] = "centroids",
    standardize: Literal["zscore", "minmax"] = "zscore",
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
    failing: Failing = DEFAULT_FAILING,
) -> Release:
    """MDAV microaggregation, see the module docstring.

    Parameters
    ----------
    output:
        Numeric quasi-identifiers published as the group's mean (``centroids``) or its ``[min, max]``
        interval (``intervals``).
    standardize:
        Scaling of numeric quasi-identifiers: ``zscore`` or ``minmax``.
    max_suppression:
        Share of the records the models may suppress.
    failing:
        A group failing a model other than k-anonymity is merged with its nearest group (``merge``)
        or suppressed (``suppress``, the behaviour without anonkit's extension).
    """
    started = time.perf_counter()
    models = list(models)
    check_references(table, models)
    if output == "centroids" and population_models(models) and table.numeric:
        raise InputError("mdav publishes centroids, which cover no population record but their own value, so k-map "
                         "and δ-presence cannot be enforced: set algorithm.output: intervals", key="algorithm.output")
    k = required_size(models)
    check_single_root(table, [j for j, q in enumerate(table.qi) if q not in table.numeric])
    rows = np.flatnonzero(~table.presuppressed)
    space = _Space(table, rows, standardize)
    group = _grouping(space)(space, k)  # = mdav_groups(space, k), exactly
    record_class = np.full(table.n, -1, dtype=np.int64)
    record_class[rows] = group
    n_groups = int(group.max()) + 1 if group.size else 0
    params = {
        "k": k, "output": output, "standardize": standardize, "max_suppression": max_suppression,
        "failing": failing,
    }  # fmt: skip

    def build(rc: np.ndarray, judged: list[Criterion]) -> Release:
        rel = partition_release(
            table,
            rc,
            judged,
            algorithm="mdav",
            max_suppression=max_suppression,
            numeric="interval",
            categorical="lca",
            started=started,
            params=params,
        )
        if output == "centroids":
            _centroids(table, rel)
        return rel

    # classes publishing identical values are merged by partition_release
    counted = population_models(models)  # k-map, δ-presence: judged on the published regions (_population.py)
    rest = [m for m in models if m not in counted]
    if counted and n_groups:
        groups = _Groups(space, rows, group, n_groups)

        def finish(rc: np.ndarray) -> Release:
            if failing == "merge" and needs_merging(rest):
                return merge_until_pass(table, rest, groups, rc, 2 * n_groups, build)
            return build(rc, rest)

        rel = enforce_population(table, counted, groups, record_class, lambda rc: build(rc, rest), finish)
    elif failing == "merge" and n_groups and needs_merging(models):
        groups = _Groups(space, rows, group, n_groups)
        rel = merge_until_pass(table, models, groups, record_class, 2 * n_groups, build)
    else:
        rel = build(record_class, rest)
    rel.notes["k"] = k
    rel.notes["groups"] = n_groups
    rel.record_group = record_class  # MDAV's group of every record (−1: suppressed up front)
    for key, value in (("model_merges", 0), ("merge_rounds", 0), ("merge_fallback", False)):
        rel.notes.setdefault(key, value)
    released = rel.record_class[rows]
    final = np.where(released >= 0, released, rel.n_classes)  # records a model suppressed: SST term
    rel.notes["information_loss"] = information_loss(space, final, released >= 0)
    rel.seconds = time.perf_counter() - started
    return rel


counts_published_regions(mdav.spec.name)  # k-map and δ-presence on the published regions (intervals)


class _Groups:
    """MDAV's groups as merging sees them (:class:`~anonkit.algorithms.cluster._merge.ClusterSpace`):
    a group's centroid is the mean of every standardized numeric QI (over its known values) and the
    distribution of every other QI's values. The squared distance of two groups is
    ``Σ (mean₁ − mean₂)²`` over the numeric QIs (1 where a group has no known value) plus, for every
    other QI, the square of the total variation distance ``1 − Σ_v min(p₁(v), p₂(v))`` of their
    value distributions — for a single record, the share of the other group holding another value,
    MDAV-generic's record-to-centroid ``δ``. Ties go to the group holding the lowest record index.

    A non-numeric QI's value counts are kept per group (used values × groups) when that table has
    at most ``_DENSE_LIMIT`` entries; otherwise the groups holding a value are counted from the
    records holding it (cheap where such large domains make every value rare). Memory is
    O(groups × used values), never groups × groups or records × records."""

    def __init__(self, space: _Space, rows: np.ndarray, group: np.ndarray, n_groups: int) -> None:
        cap = 2 * n_groups
        self.space = space
        p = space.Z.shape[0]
        self.sums = np.zeros((p, cap))
        self.known = np.zeros((p, cap))
        for i in range(p):
            z = space.Z[i]
            ok = ~np.isnan(z)
            self.sums[i, :n_groups] = np.bincount(group[ok], weights=z[ok], minlength=n_groups)
            self.known[i, :n_groups] = np.bincount(group[ok], minlength=n_groups)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.mean = self.sums / self.known  # NaN: no known value
        self.size = np.zeros(cap)
        self.size[:n_groups] = np.bincount(group, minlength=n_groups)
        self.first = np.full(cap, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(self.first, group, rows)
        self.owner = group.copy()  # current group of every record (space order)
        order = np.argsort(group, kind="stable")
        bounds = np.searchsorted(group[order], np.arange(n_groups + 1))
        self.members: list[np.ndarray] = [order[bounds[g] : bounds[g + 1]] for g in range(n_groups)]
        # non-numeric QIs: the value counts of every group in one (values × groups) table, the QIs'
        # columns one after the other ("dense"), or the records holding every value (sorted by
        # value) and the value offsets ("sparse")
        dense = [i for i in range(len(space.C)) if cap * space.sizes[i] <= _DENSE_LIMIT]
        self.dense_offsets = np.cumsum([0] + [space.sizes[i] for i in dense])
        self.counts = np.zeros((int(self.dense_offsets[-1]), cap))
        for pos, i in enumerate(dense):
            u = space.sizes[i]
            flat = np.bincount(group * u + space.C[i], minlength=n_groups * u).reshape(n_groups, u)
            self.counts[self.dense_offsets[pos] : self.dense_offsets[pos + 1], :n_groups] = flat.T
        self.value_attr = np.repeat(np.arange(len(dense)), np.diff(self.dense_offsets))  # QI of every row
        self.sparse: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for i in range(len(space.C)):
            if i not in dense:
                c = space.C[i]
                idx = np.argsort(c, kind="stable")
                off = np.concatenate([[0], np.cumsum(np.bincount(c, minlength=space.sizes[i]))])
                self.sparse.append((c, idx, off))
        self.live = np.zeros(cap, dtype=bool)
        self.live[:n_groups] = True
        self.next = n_groups
        self._alive = n_groups

    @property
    def alive(self) -> int:
        """Number of live groups."""
        return self._alive

    def nearest(self, g: int) -> int:
        """The live group nearest to group ``g`` (class docstring)."""
        ids = np.flatnonzero(self.live[: self.next])
        d2 = np.zeros(len(ids))
        for i in range(self.mean.shape[0]):
            diff = self.mean[i, ids] - self.mean[i, g]
            d2 += _missing_one(diff * diff)
        size = self.size[ids]
        if self.counts.shape[0]:
            rows = np.flatnonzero(self.counts[:, g])  # the values group g holds, QI by QI
            share = self.counts[rows, g] / self.size[g]
            common = np.minimum(self.counts[np.ix_(rows, ids)], np.outer(share, size))
            # per QI, Σ_v min(count_v, share_v·size) / size: summed by a (QIs × rows) indicator
            onehot = self.value_attr[rows] == np.arange(len(self.dense_offsets) - 1)[:, None]
            tv = 1.0 - (onehot.astype(np.float64) @ common) / size  # (QIs × groups)
            d2 += (tv * tv).sum(axis=0)
        for c, idx, off in self.sparse:
            vals, cnt = np.unique(c[self.members[g]], return_counts=True)
            common = np.zeros(len(ids))
            for v, a in zip(vals.tolist(), (cnt / self.size[g]).tolist(), strict=True):
                col = np.bincount(self.owner[idx[off[v] : off[v + 1]]], minlength=self.next)[ids]
                common += np.minimum(col / size, a)
            tv = 1.0 - common
            d2 += tv * tv
        d2[ids == g] = np.inf
        best = float(d2.min())
        tied = ids[d2 <= best + _TIE * max(1.0, best)]
        return int(tied[np.argmin(self.first[tied])])

    def merge(self, g: int, h: int) -> int:
        """Replace groups ``g`` and ``h`` by their union; return its id."""
        t = self.next
        self.sums[:, t] = self.sums[:, g] + self.sums[:, h]
        self.known[:, t] = self.known[:, g] + self.known[:, h]
        with np.errstate(invalid="ignore", divide="ignore"):
            self.mean[:, t] = self.sums[:, t] / self.known[:, t]
        self.counts[:, t] = self.counts[:, g] + self.counts[:, h]
        self.size[t] = self.size[g] + self.size[h]
        self.first[t] = min(self.first[g], self.first[h])
        members = np.concatenate([self.members[g], self.members[h]])
        self.members.append(members)
        self.members[g] = self.members[h] = members[:0]
        self.owner[members] = t
        self.live[[g, h]] = False
        self.live[t] = True
        self.next += 1
        self._alive -= 1
        return t


def _grouping(space: _Space) -> Callable[[_Space, int], np.ndarray]:
    """How MDAV's groups are computed (all give :func:`mdav_groups`'s groups): on the categorical
    combinations with one numeric QI (:mod:`._mdav_combos`); through the tree of bounds over the
    distinct tuples from :data:`INDEX_FROM` records (:mod:`._mdav_index`); else by scanning the
    distinct tuples every round (:mod:`._mdav_tuples`)."""
    if space.Z.shape[0] == 1:
        return mdav_groups_combos
    if (space.Z if space.Z.shape[0] else space.C).shape[1] >= INDEX_FROM:
        return mdav_groups_index
    return mdav_groups_tuples


def _centroids(table: Table, rel: Release) -> None:
    """Publish every numeric QI as its class mean: ``class_bounds`` becomes ``[mean, mean]``; the
    intervals move to ``notes['intervals']``."""
    rel.notes["intervals"] = {name: b.copy() for name, b in rel.class_bounds.items()}
    kept = rel.record_class >= 0
    sizes = np.bincount(rel.record_class[kept], minlength=rel.n_classes).astype(np.float64)
    for name in rel.class_bounds:
        sums = np.bincount(rel.record_class[kept], weights=table.numeric[name][kept], minlength=rel.n_classes)
        mean = sums / np.maximum(sizes, 1.0)
        rel.class_bounds[name] = np.stack([mean, mean], axis=1)
    rel.centroids = frozenset(rel.class_bounds)  # published as means (a class of one value: that value, exactly)


def _nearest(dist: np.ndarray, seed: int, k: int) -> np.ndarray:
    """``seed`` and the ``k − 1`` other positions nearest to it (ties: lowest position), sorted."""
    if len(dist) <= k:
        return np.arange(len(dist))
    dist = dist.copy()
    dist[seed] = -1.0  # the seed itself first, whatever its duplicates
    thr = np.partition(dist, k - 1)[k - 1]
    below = np.flatnonzero(dist < thr)
    tied = np.flatnonzero(dist == thr)[: k - len(below)]
    return np.sort(np.concatenate([below, tied]))


def _centroid_dist(space: _Space, Z: list[np.ndarray], C: list[np.ndarray], m: int) -> np.ndarray:
    """Squared distance of every remaining record to the centroid of the remaining records."""
    out = np.zeros(m)
    for i, z in enumerate(Z):
        if space.missing[i]:
            out += _missing_one((z - exact_mean(z[~np.isnan(z)])) ** 2)
        else:
            out += (z - exact_mean(z)) ** 2
    for i, c in enumerate(C):
        share = np.bincount(c, minlength=space.sizes[i]) / m
        out += ((1.0 - share) ** 2).take(c)
    return out


def _record_dist(space: _Space, Z: list[np.ndarray], C: list[np.ndarray], m: int, r: int) -> np.ndarray:
    """Squared distance of every remaining record to remaining record ``r``."""
    out = np.zeros(m)
    for i, z in enumerate(Z):
        out += _missing_one((z - z[r]) ** 2) if space.missing[i] else (z - z[r]) ** 2
    for i, c in enumerate(C):
        out += space.delta2_row(i, int(c[r])).take(c)
    return out


def mdav_groups(space: _Space, k: int) -> np.ndarray:
    """Group id of every record of ``space`` (in its order), groups numbered as formed: MDAV record
    by record, O(records) a round — the reference that :func:`mdav_groups_tuples` (what
    :func:`mdav` runs) is held equal to. The centroid's mean is :func:`exact_mean` (the correctly
    rounded sum over the count), so it does not depend on the order of the remaining records."""
    m = space.Z.shape[1] if space.Z.shape[0] else space.C.shape[1]
    group = np.full(m, -1, dtype=np.int64)
    rem = np.arange(m)  # remaining records, ascending, so a first maximum is the lowest index
    Z, C = list(space.Z), list(space.C)  # 1-D rows: compacting them is far faster than a 2-D array
    n_groups = 0

    def take(members: np.ndarray) -> np.ndarray:
        nonlocal rem, Z, C, n_groups
        group[rem[members]] = n_groups
        n_groups += 1
        keep = np.ones(len(rem), dtype=bool)
        keep[members] = False
        rem = rem[keep]
        Z = [z[keep] for z in Z]
        C = [c[keep] for c in C]
        return keep

    if m == 0:
        return group
    while len(rem) >= 3 * k:
        xr = int(np.argmax(_centroid_dist(space, Z, C, len(rem))))
        dr = _record_dist(space, Z, C, len(rem), xr)
        keep = take(_nearest(dr, xr, k))
        dr = dr[keep]
        xs = int(np.argmax(dr))
        take(_nearest(_record_dist(space, Z, C, len(rem), xs), xs, k))
    if len(rem) >= 2 * k:
        xr = int(np.argmax(_centroid_dist(space, Z, C, len(rem))))
        take(_nearest(_record_dist(space, Z, C, len(rem), xr), xr, k))
    if len(rem):
        take(np.arange(len(rem)))
    return group


def information_loss(space: _Space, group: np.ndarray, released: np.ndarray) -> float:
    """``SSE/SST`` (see the module docstring); ``released[i]`` false for records a model suppressed."""
    m = len(group)
    if m == 0:
        return 0.0
    n_groups = int(group.max()) + 1
    gsize = np.bincount(group, minlength=n_groups).astype(np.float64)
    sse = np.zeros(m)
    sst = np.zeros(m)
    for i in range(space.Z.shape[0]):
        z = space.Z[i]
        known = ~np.isnan(z)
        sums = np.bincount(group, weights=np.where(known, z, 0.0), minlength=n_groups)
        mean = sums / np.maximum(np.bincount(group, weights=known.astype(float), minlength=n_groups), 1.0)
        sse += _missing_one((z - mean[group]) ** 2)
        sst += _missing_one((z - (z[known].mean() if known.any() else 0.0)) ** 2)
    for i in range(space.C.shape[0]):
        c = space.C[i]
        u = space.sizes[i]
        pair = np.bincount(group * u + c, minlength=n_groups * u)
        sse += (1.0 - pair[group * u + c] / gsize[group]) ** 2
        sst += (1.0 - np.bincount(c, minlength=u)[c] / m) ** 2
    total = float(sst.sum())
    if total <= 0.0:
        return 0.0
    lost = float(np.where(released, sse, sst).sum())
    return lost / total
