"""UHRA — background-knowledge clustering plus t-k-Utility (paper A: Amiri, Khan, Anjum, Syed,
Rehman, *Applied Sciences* 13(7) 4091, 2023; spec §4.1).

The adversary knows ``P(S | QI)`` for everyone (their *prior*, spec §3). UHRA first puts together
records whose priors are alike, then forms k-anonymous, t-close groups inside each such cluster, so a
group never mixes people about whom the adversary believes very different things:

1. **BK clustering** (:func:`anonkit.knowledge.bk_clusters`): complete-linkage agglomerative
   clustering of the *distinct* prior vectors on base-2 Jensen–Shannon divergence, cut at ``J``.
   Any two records of a cluster have prior JSD ≤ ``J``. Clusters with fewer than ``k`` records are
   suppressed (``small_cluster="suppress"``, the default) or joined to the cluster at the smallest
   complete-link distance (``"merge"``; spec register #4).
2. **t-k-Utility** per cluster (:mod:`anonkit.algorithms.cluster._bk_kernels`): nearest-point-next
   order from the record farthest from the cluster's centroid (ties: lowest record index); greedy
   groups closed as soon as they have ≥ ``k`` records and are t-close; leftovers to the nearest group
   (by centroid distance) that stays t-close, else suppressed; refinement passes moving a record to
   the group with the nearest centroid when that is strictly nearer and neither group breaks k or t
   (at most ``max_passes``, default 100; spec register #7). Distances are §0.3 (numeric ``|Δ|/range``,
   categorical LCA height over tree height, missing 1; to a centroid: mean, share of members with
   another value). The spec expects the strict-improvement rule to make the passes settle; that
   holds for numeric QIs (a move lowers the sum of squared distances) but not with the categorical
   share distance: on Adult about 400 records per pass keep rotating among groups holding one QI
   tuple, so the cap is reached — those groups publish identical values and merge, so the release
   is the same after 5 passes as after 100 (measured; only the time differs).
3. Groups are generalized (numeric ``[min, max]``, categorical lowest common ancestor) and judged by
   every model; a class failing one — including the background-knowledge bound, checked on the
   priors of the records of every *published* class — is suppressed whole.

Guarantees: every published class has ≥ ``k`` records and EMD ≤ ``t`` to the whole table, and any two
of its records have prior JSD ≤ ``J``. Groups that publish identical values are merged into one
class (spec §0.2); should that put two clusters' records together beyond ``J``, the class is
suppressed (``Release.bk.failed_records``).

Parameters come from the models: ``KAnonymity(k)``, ``TCloseness(S, t, distance)`` and
``BackgroundKnowledge(S, J, prior=…)``. Without a background-knowledge model ``J = 1`` (one cluster):
plain t-k-Utility. ``reference="cluster"`` measures t-closeness against each cluster's own
distribution while grouping (spec register #6); the release is still judged against the whole table,
so groups that are not t-close to it are suppressed.

The priors (``priors=``: :class:`~anonkit.knowledge.Priors` or an ``n × S`` array) default to the
model's estimate (kernel, spec §3.2). Work is O(u²) on the ``u`` distinct prior vectors (phase 1) and
on the distinct QI tuples of each cluster (ordering); grouping is linear, each refinement pass
O(c·g) for ``c`` records and ``g`` groups. No record × record matrix is built.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field

from anonkit.algorithms.cluster import _bk_kernels
from anonkit.algorithms.cluster._bk_engine import QISpace, Setup, finish, npn_order, records_by_cluster, setup
from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression, report_progress
from anonkit.algorithms.spec import algorithm
from anonkit.knowledge import bk_clusters, jsd
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table

#: Default refinement cap (spec §4.1 step 4, register #7).
MAX_PASSES = 100


def _merge_small(vectors: np.ndarray, cluster_of_vector: np.ndarray, sizes: np.ndarray, k: int) -> np.ndarray:
    """Cluster of every vector after joining each cluster of fewer than ``k`` records to the cluster of
    at least ``k`` records at the smallest complete-link (largest pairwise) JSD; ties: lowest id."""
    big = np.flatnonzero(sizes >= k)
    out = cluster_of_vector.copy()
    if not big.size:
        return out
    for c in np.flatnonzero(sizes < k):
        mine = vectors[cluster_of_vector == c]
        link = np.array([float(np.asarray(jsd(mine[:, None, :], vectors[cluster_of_vector == b][None, :, :])).max())
                         for b in big])
        out[cluster_of_vector == c] = big[int(np.argmin(link))]
    return out


def run_tk_utility(
    s: Setup,
    space: QISpace,
    cluster_of_row: np.ndarray,
    n_clusters: int,
    *,
    reference: str,
    max_passes: int,
) -> tuple[np.ndarray, dict[str, Any]]:
    """Phase 2 on every cluster: the group of every record (−1: suppressed) and counters."""
    n = s.table.n
    record_class = np.full(n, -1, dtype=np.int64)
    sizes = np.bincount(cluster_of_row, minlength=n_clusters)
    counters = {"small_cluster_records": 0, "leftover_suppressed": 0, "unclosable_clusters": 0,
                "refinement_passes": 0, "refinement_moves": 0}
    next_group = 0
    n_values = s.table.domains[s.sensitive].size
    for c, members in enumerate(records_by_cluster(cluster_of_row, n_clusters)):
        report_progress(c, n_clusters)
        if sizes[c] < s.k:
            counters["small_cluster_records"] += len(members)
            continue
        test = s.test
        sa = s.sa[s.rows[members]]
        if reference == "cluster":
            test = test.with_reference(np.bincount(sa, minlength=n_values) / len(sa))
        order, tup, rep = npn_order(space, members)
        group, n_groups, passes, moves = _bk_kernels.tk_utility(
            order, tup, rep, np.ascontiguousarray(space.X[members]), np.ascontiguousarray(space.C[members]), space.miss,
            space.coff, space.n_codes, np.ascontiguousarray(sa), n_values, *test.args(), int(max_passes),
        )
        counters["refinement_passes"] += int(passes)
        counters["refinement_moves"] += int(moves)
        if n_groups == 0:
            counters["unclosable_clusters"] += 1
        counters["leftover_suppressed"] += int((group < 0).sum())
        keep = group >= 0
        record_class[s.rows[members[keep]]] = group[keep] + next_group
        next_group += int(n_groups)
    report_progress(n_clusters, n_clusters)
    counters["groups"] = next_group
    return record_class, counters


def bk_partition(
    s: Setup, *, small_cluster: str
) -> tuple[np.ndarray, int, dict[str, Any]]:
    """Phase 1: the BK cluster of every taking-part record (positions in ``s.rows``) and diagnostics."""
    bk = bk_clusters(s.priors[s.rows], s.J)
    cluster_of_vector = bk.cluster_of_vector
    if small_cluster == "merge":
        merged = _merge_small(bk.vectors, cluster_of_vector, bk.sizes, s.k)
        _, cluster_of_vector = np.unique(merged, return_inverse=True)
        cluster_of_vector = cluster_of_vector.reshape(-1)
    cluster_of_row = cluster_of_vector[bk.vector_of_record]
    n_clusters = int(cluster_of_vector.max()) + 1 if len(cluster_of_vector) else 0
    sizes = np.bincount(cluster_of_row, minlength=n_clusters)
    info = {
        "bk_clusters": int(bk.n_clusters),
        "bk_distinct_priors": int(bk.n_distinct),
        "bk_cluster_sizes": sizes.tolist() if n_clusters <= 50 else None,
        "bk_small_clusters": int((np.bincount(bk.cluster_of_record, minlength=bk.n_clusters) < s.k).sum()),
    }
    if small_cluster == "merge" and n_clusters < bk.n_clusters:
        info["bk_guarantee"] = "merged small clusters may break J; classes beyond J are suppressed"
    return cluster_of_row, n_clusters, info


#: an option: what happens to a background-knowledge cluster of fewer than k records
SmallCluster = Literal["suppress", "merge"]
DEFAULT_SMALL_CLUSTER: SmallCluster = "suppress"
#: an option: the refinement cap
MaxPasses = Annotated[int, Field(ge=0)]


@algorithm(
    "uhra",
    family="cluster",
    summary="paper A: clusters people whose priors are within J, then k-anonymous, t-close groups inside "
    "each cluster (t-k-Utility); bounds what a background-knowledge adversary learns",
    enforces=("k-anonymity", "t-closeness", "background-knowledge"),
    needs=("priors",),
    progress="grouping background-knowledge clusters",
    bk_test="pairwise",
    label="UHRA",
)
def uhra(
    table: Table,
    models: list[Criterion],
    *,
    priors: Any = None,
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
    small_cluster: SmallCluster = DEFAULT_SMALL_CLUSTER,
    reference: Literal["table", "cluster"] = "table",
    max_passes: MaxPasses = MAX_PASSES,
) -> Release:
    """UHRA, see the module docstring. ``extra`` holds the BK clustering (``bk_clusters``,
    ``bk_cluster`` per record), the groups (``groups``, ``group`` per record) and the counters of
    suppressed records (``small_cluster_records``, ``leftover_suppressed``, ``bk_failed_records``).

    Parameters
    ----------
    max_suppression:
        Share of the records the models may suppress.
    small_cluster:
        A background-knowledge cluster of fewer than k records is suppressed, or merged with the
        nearest cluster (classes then beyond J are suppressed).
    reference:
        t-closeness is measured against the table's distribution (``table``) or the cluster's
        (``cluster``) while grouping; the release is judged against the table.
    max_passes:
        The refinement's cap on passes.
    """
    return run_uhra(table, models, priors=priors, max_suppression=max_suppression, small_cluster=small_cluster,
                    reference=reference, max_passes=max_passes, algorithm="uhra", default_beta=None)


def run_uhra(
    table: Table,
    models: list[Criterion],
    *,
    priors: Any,
    max_suppression: float,
    small_cluster: str,
    reference: str,
    max_passes: int,
    algorithm: str,
    default_beta: float | None,
) -> Release:
    """UHRA's pipeline, for :func:`uhra` and the k-primacy baseline (which names the release
    ``algorithm`` and closes groups on β-likeness with ``default_beta``)."""
    started = time.perf_counter()
    guarantee = str(uhra.spec.bk_test)  # type: ignore[attr-defined]
    s = setup(table, models, algorithm=algorithm, guarantee=guarantee, priors=priors, max_suppression=max_suppression,
              default_beta=default_beta)
    space = QISpace(table, s.rows)
    cluster_of_row, n_clusters, info = bk_partition(s, small_cluster=small_cluster)
    record_class, counters = run_tk_utility(
        s, space, cluster_of_row, n_clusters, reference=reference, max_passes=max_passes,
    )
    params = {"k": s.k, "J": s.J, "small_cluster": small_cluster, "reference": reference,
              "max_passes": int(max_passes), "max_suppression": max_suppression}
    params.update({f"t_{i}": float(t) for i, t in enumerate(s.test.ts)})
    rel = finish(s, record_class, algorithm=algorithm, max_suppression=max_suppression, started=started,
                 params=params)
    bk_cluster = np.full(table.n, -1, dtype=np.int64)
    bk_cluster[s.rows] = cluster_of_row
    rel.bk.clusters = info.pop("bk_clusters")
    rel.notes.update(info)
    rel.notes.update(counters)
    rel.bk.cluster_of = bk_cluster
    rel.record_group = record_class
    rel.notes["k"] = s.k
    rel.notes["J"] = s.J
    rel.notes["sensitive"] = s.sensitive
    return rel
