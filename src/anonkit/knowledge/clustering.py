"""Background-knowledge clustering: phase 1 of UHRA (spec §4.1).

Records whose priors are close (base-2 Jensen–Shannon divergence, §0.3) are put in one *BK cluster*
by agglomerative clustering with **complete linkage**, cut at height ``J``. Complete linkage merges
two clusters only while the *largest* pairwise distance of the union stays ≤ ``J``, so

    any two records of one BK cluster have ``JSD(prior_a, prior_b) ≤ J``.

Scale (spec §7 item 6): the clustering never looks at records, only at the *distinct* prior vectors
(1,635 for Adult with QIs age, sex, education). Records with equal priors always share a cluster
(their JSD is 0), so this loses nothing. The condensed distance matrix of ``u`` distinct vectors holds
``u(u − 1)/2`` floats, computed in row blocks; above :data:`MAX_DISTINCT` vectors (configurable per
call) :func:`bk_clusters` refuses with an :class:`~anonkit.errors.InputError`.

::

    from anonkit.knowledge import kernel_priors
    from anonkit.knowledge.clustering import bk_clusters

    bk = bk_clusters(kernel_priors(table, "salary-class"), J=0.8)
    bk.cluster_of_record        # (n,) cluster id of every record, numbered by first record
    bk.sizes                    # records per cluster
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from anonkit.errors import InputError
from anonkit.knowledge.divergence import check_jsd_bound, jsd
from anonkit.knowledge.priors import Priors

#: Default largest number of distinct prior vectors clustered (the condensed matrix then holds
#: about 2·10⁸ floats, 1.6 GB). Raise it per call with ``max_distinct=``.
MAX_DISTINCT = 20_000
#: Prior vectors are compared after rounding to this many decimals (deduplication only).
DEDUP_DECIMALS = 12
#: Upper bound on the ``rows × columns × S`` entries of one block of the distance computation.
BLOCK_ELEMENTS = 4_000_000
#: Tolerance on "each prior row sums to 1".
ROW_SUM_TOL = 1e-6


@dataclass
class BKClustering:
    """Result of :func:`bk_clusters`.

    Attributes
    ----------
    cluster_of_record:
        ``(n,)`` cluster id (``0 … n_clusters − 1``) of every record. Ids are numbered in the order
        of each cluster's first record.
    cluster_of_vector:
        ``(u,)`` cluster id of every distinct prior vector.
    vector_of_record:
        ``(n,)`` row of ``vectors`` holding each record's prior.
    vectors:
        ``(u × S)`` the distinct prior vectors (as given, not rounded), ordered by first record.
    counts:
        ``(u,)`` records per distinct vector (the ``counts`` argument, summed over duplicates).
    n_clusters:
        Number of clusters.
    sizes:
        ``(n_clusters,)`` records per cluster (sum of ``counts`` over its vectors).
    J:
        The threshold the dendrogram was cut at.
    """

    cluster_of_record: np.ndarray
    cluster_of_vector: np.ndarray
    vector_of_record: np.ndarray
    vectors: np.ndarray
    counts: np.ndarray
    n_clusters: int
    sizes: np.ndarray
    J: float

    @property
    def n_distinct(self) -> int:
        """Number of distinct prior vectors ``u``."""
        return self.vectors.shape[0]

    def members(self, cluster: int) -> np.ndarray:
        """Indices of the records of ``cluster``."""
        return np.flatnonzero(self.cluster_of_record == cluster)

    def max_within_jsd(self) -> np.ndarray:
        """``(n_clusters,)`` largest JSD between two prior vectors of each cluster (0 for singletons).

        Recomputed from the vectors with :func:`~anonkit.knowledge.jsd` (in blocks), so it checks the
        guarantee independently of the dendrogram: ``max_within_jsd().max() ≤ J``.
        """
        out = np.zeros(self.n_clusters)
        for c in range(self.n_clusters):
            v = self.vectors[self.cluster_of_vector == c]
            if len(v) > 1:
                out[c] = max(float(block.max()) for _, block in _jsd_blocks(v) if block.size)
        return out


def _jsd_blocks(v: np.ndarray):
    """Yield ``(start, block)``: ``block[r]`` = JSD of ``v[start + r]`` to every later vector.

    ``block`` is a ragged list flattened row-major, i.e. exactly the matching stretch of SciPy's
    condensed distance vector.
    """
    u, s = v.shape
    rows = max(1, BLOCK_ELEMENTS // max(1, u * s))
    for a in range(0, u - 1, rows):
        b = min(a + rows, u - 1)
        d = np.asarray(jsd(v[a:b, None, :], v[None, a + 1 :, :]))  # (b−a) × (u−a−1)
        # row a+r keeps columns j > a+r, i.e. d[r, r:]
        yield a, np.concatenate([d[r, r:] for r in range(b - a)])


def condensed_jsd(vectors: ArrayLike) -> np.ndarray:
    """Condensed (SciPy ``pdist`` order) base-2 JSD between the rows of ``vectors`` (``u × S``)."""
    v = np.asarray(vectors, dtype=np.float64)
    u = v.shape[0]
    out = np.empty(u * (u - 1) // 2)
    pos = 0
    for _, block in _jsd_blocks(v):
        out[pos : pos + block.size] = block
        pos += block.size
    return out


def _as_rows(priors: Priors | np.ndarray, counts: ArrayLike | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rows, inverse, row_counts)``: prior rows, row of every record, records per row."""
    if isinstance(priors, Priors):
        rows = np.asarray(priors.per_tuple, dtype=np.float64)
        inverse = np.asarray(priors.inverse, dtype=np.int64).reshape(-1)
        if rows.ndim != 2:
            raise InputError(f"Priors.per_tuple must be a 2-D (m × S) array, got shape {rows.shape}")
        if inverse.size and (inverse.min() < 0 or inverse.max() >= rows.shape[0]):
            raise InputError("Priors.inverse points outside per_tuple")
        default = np.bincount(inverse, minlength=rows.shape[0]).astype(np.float64)
    else:
        rows = np.asarray(priors, dtype=np.float64)
        if rows.ndim != 2:
            raise InputError(f"priors must be a 2-D (n × S) array, got shape {rows.shape}")
        inverse = np.arange(rows.shape[0], dtype=np.int64)
        default = np.ones(rows.shape[0])
    if rows.shape[0] and rows.shape[1] == 0:
        raise InputError("priors have no sensitive value (0 columns)")
    if not np.all(np.isfinite(rows)) or (rows < 0).any():
        raise InputError("priors must be finite and non-negative")
    if rows.size and np.abs(rows.sum(axis=1) - 1.0).max() > ROW_SUM_TOL:
        raise InputError("every prior row must sum to 1")
    if counts is None:
        return rows, inverse, default
    c = np.asarray(counts, dtype=np.float64).reshape(-1)
    if c.shape != (rows.shape[0],):
        raise InputError(f"counts needs one entry per prior row ({rows.shape[0]}), got {c.shape[0]}")
    if not np.all(np.isfinite(c)) or (c < 0).any():
        raise InputError("counts must be finite and non-negative")
    return rows, inverse, c


def _first_order(keys: np.ndarray, size: int) -> np.ndarray:
    """Rank of every key ``0 … size−1`` by its first occurrence in ``keys`` (absent keys last)."""
    first = np.full(size, len(keys), dtype=np.int64)
    np.minimum.at(first, keys, np.arange(len(keys), dtype=np.int64))
    order = np.lexsort((np.arange(size), first))  # by first occurrence, ties (absent) by key
    rank = np.empty(size, dtype=np.int64)
    rank[order] = np.arange(size)
    return rank


def bk_clusters(
    priors: Priors | np.ndarray,
    J: float,
    *,
    counts: ArrayLike | None = None,
    max_distinct: int = MAX_DISTINCT,
) -> BKClustering:
    """Cluster records by their prior beliefs: complete linkage on base-2 JSD, cut at ``J`` (§4.1).

    Parameters
    ----------
    priors:
        A :class:`~anonkit.knowledge.Priors` (rows ``per_tuple``, record → row ``inverse``) or an
        ``(n × S)`` array with one prior per record. Rows must be distributions (sum to 1).
    J:
        Largest JSD allowed between two priors of one cluster, in ``[0, ∞)``. ``J = 0``: one cluster
        per distinct prior vector; ``J ≥ 1``: a single cluster (base-2 JSD never exceeds 1).
    counts:
        Records per input row (rows of ``per_tuple``, or of the array), used for ``sizes``. Default:
        the number of records mapped to each row (``Priors``) or 1 per row (array).
    max_distinct:
        Refuse (``InputError``) to build the pairwise matrix for more distinct vectors than this.

    Deduplication: two rows are the same prior vector when they are equal after rounding to
    :data:`DEDUP_DECIMALS` (12) decimals; the first such row (by record order) represents them.

    Returns
    -------
    :class:`BKClustering`. Any two records of one cluster have prior JSD ≤ ``J`` (complete linkage);
    cluster ids follow the order of each cluster's first record, so the result is deterministic.
    """
    J = check_jsd_bound(J)
    rows, inverse, row_counts = _as_rows(priors, counts)
    n, m = len(inverse), rows.shape[0]

    # distinct vectors, numbered by first record (unreferenced rows last)
    key = np.round(rows, DEDUP_DECIMALS) + 0.0  # + 0.0 turns −0.0 into 0.0
    if m:
        _, first_row, vec_of_row = np.unique(key, axis=0, return_index=True, return_inverse=True)
        vec_of_row = vec_of_row.reshape(-1)
    else:
        first_row, vec_of_row = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    u = len(first_row)
    row_rank = _first_order(inverse, m)  # rank of each row by its first record
    rows_in_order = np.argsort(row_rank, kind="stable")
    best = np.full(u, m, dtype=np.int64)  # earliest row rank of each distinct vector
    np.minimum.at(best, vec_of_row, row_rank)
    vec_order = np.argsort(best, kind="stable")
    vec_rank = np.empty(u, dtype=np.int64)
    vec_rank[vec_order] = np.arange(u)
    vec_of_row = vec_rank[vec_of_row]
    rep_row = rows_in_order[best[vec_order]]  # first row (by record order) of each vector
    vectors = rows[rep_row] if u else rows[:0]
    vec_counts = np.bincount(vec_of_row, weights=row_counts, minlength=u) if u else np.zeros(0)

    # cluster the distinct vectors
    if u <= 1 or J >= 1.0:
        labels = np.zeros(u, dtype=np.int64)
    elif J == 0.0:
        labels = np.arange(u, dtype=np.int64)
    else:
        if u > max_distinct:
            raise InputError(
                f"{u} distinct prior vectors exceed max_distinct={max_distinct} "
                f"(the pairwise JSD matrix would hold {u * (u - 1) // 2} floats); "
                "coarsen the priors or raise max_distinct"
            )
        from scipy.cluster.hierarchy import fcluster, linkage  # SciPy's clustering: imported when needed

        z = linkage(condensed_jsd(vectors), method="complete")
        labels = fcluster(z, t=J, criterion="distance").astype(np.int64)
        # renumber by first vector (vectors are already in first-record order)
        _, first_lab, labels = np.unique(labels, return_index=True, return_inverse=True)
        lab_rank = np.empty(len(first_lab), dtype=np.int64)
        lab_rank[np.argsort(first_lab, kind="stable")] = np.arange(len(first_lab))
        labels = lab_rank[labels.reshape(-1)]
    n_clusters = int(labels.max()) + 1 if u else 0
    vector_of_record = vec_of_row[inverse] if n else np.zeros(0, dtype=np.int64)
    return BKClustering(
        cluster_of_record=labels[vector_of_record] if n else np.zeros(0, dtype=np.int64),
        cluster_of_vector=labels,
        vector_of_record=vector_of_record,
        vectors=vectors,
        counts=vec_counts,
        n_clusters=n_clusters,
        sizes=np.bincount(labels, weights=vec_counts, minlength=n_clusters) if u else np.zeros(0),
        J=J,
    )
