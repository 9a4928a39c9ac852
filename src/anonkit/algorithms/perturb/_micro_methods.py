"""The groups of sdcMicro's microaggregation methods (``microaggregation(method=…)``), one stratum at a
time: every function takes the stratum's values ``x`` (``m × p``, no missing value, records in input
order) and the group size ``k`` and returns the group of every record (``0 … g − 1``).

The sorting methods order the records and cut the order into runs of ``k``, the last run taking the
remainder (sdcMicro's ``indexMicro``: ``⌊m/k⌋`` groups, the last of ``k … 2k − 1`` records); they are
O(m log m). ``rmd`` and ``mdav`` grow groups around far records (O(m²/k) time, O(m) memory: no m × m
distance matrix, unlike sdcMicro's ``rmd``). Ties in every sort go to the lower record index (R's
``order``). The stratum has at least ``k`` records (checked before); with fewer than ``2k`` it is one
group (sdcMicro stops with "Too less observations").
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from anonkit.algorithms.cluster.mdav import mdav as mdav_algorithm
from anonkit.algorithms.cluster.mdav import mdav_groups
from anonkit.algorithms.perturb._micro_kernels import mdav_compiled, rmd_compiled

#: sdcMicro's method ``mdav`` is anonkit's MDAV algorithm: its name, read from its declaration
MDAV = mdav_algorithm.spec.name

#: R's consistency constant of the median absolute deviation (``mad``)
MAD_CONSTANT = 1.4826
#: most candidate directions the projection-pursuit PCA tries per cluster (all records below it)
MAX_DIRECTIONS = 1000
#: records from which ``rmd``'s and ``mdav``'s rounds run compiled (numba; below, numpy: no compiler start-up)
COMPILED_FROM = 2000
#: most records the robust covariance (MCD) of ``rmd`` is fitted on (a sample drawn from the seed above)
MCD_SAMPLE = 5000
#: records per block when projecting onto candidate directions (memory: block × records floats)
_BLOCK = 256


def runs(order: np.ndarray, k: int) -> np.ndarray:
    """The group of every record when ``order`` (record positions) is cut into runs of ``k``, the last
    run taking the remainder (sdcMicro's ``indexMicro``/``mafast``)."""
    m = len(order)
    n_groups = max(m // k, 1)
    group = np.empty(m, dtype=np.int64)
    group[order] = np.minimum(np.arange(m) // k, n_groups - 1)
    return group


def zscores(x: np.ndarray) -> np.ndarray:
    """Every column centred on its mean and divided by its sample standard deviation (R's ``scale``);
    a constant column becomes 0 (R would give NaN and sdcMicro would fail)."""
    sd = x.std(axis=0, ddof=1) if len(x) > 1 else np.zeros(x.shape[1])
    z = x - x.mean(axis=0)
    return np.divide(z, sd, out=np.zeros_like(z), where=sd > 0)


def _stable(values: np.ndarray) -> np.ndarray:
    return np.argsort(values, kind="stable")


def first_component(z: np.ndarray) -> np.ndarray:
    """The scores on the first principal component of ``z`` (``princomp``: covariance with divisor m),
    oriented so that the loading of largest magnitude is positive (an eigenvector's sign is arbitrary;
    R's LAPACK call fixes none either)."""
    centred = z - z.mean(axis=0)
    cov = centred.T @ centred / len(z)
    _, vectors = np.linalg.eigh(cov)
    v = vectors[:, -1]
    if v[np.argmax(np.abs(v))] < 0:
        v = -v
    return centred @ v


def pca(x: np.ndarray, k: int, seed: int) -> np.ndarray:
    """``pca``: sort by the first principal component of the standardized columns."""
    return runs(_stable(first_component(zscores(x))), k)


def onedims(x: np.ndarray, k: int, seed: int) -> np.ndarray:
    """``onedims``: every column ranked on its own, so a record's groups differ column by column; the
    result is ``p × m`` (a row per column)."""
    return np.stack([runs(_stable(x[:, j]), k) for j in range(x.shape[1])])


def mad(y: np.ndarray, axis: int = -1) -> np.ndarray:
    """R's ``mad``: 1.4826 × the median absolute deviation from the median."""
    med = np.median(y, axis=axis, keepdims=True)
    return MAD_CONSTANT * np.median(np.abs(y - med), axis=axis)


def pp_component(x: np.ndarray) -> np.ndarray:
    """The scores on the first projection-pursuit component (Croux & Ruiz-Gazen 2005, sdcMicro's
    ``prcompRob`` with one component): among the directions from the coordinatewise median to the
    records, the one along which the records' projections have the largest MAD (ties: the later
    record, as R's ``order(s)[n]``), its first coordinate made non-negative. Above
    :data:`MAX_DIRECTIONS` records the candidates are :data:`MAX_DIRECTIONS` records evenly spaced in
    input order (the full search is quadratic)."""
    centred = x - np.median(x, axis=0)
    norm = np.sqrt((centred**2).sum(axis=1))
    candidates = np.flatnonzero(norm > 0)
    if len(candidates) == 0:
        return np.zeros(len(x))
    if len(candidates) > MAX_DIRECTIONS:
        candidates = candidates[np.linspace(0, len(candidates) - 1, MAX_DIRECTIONS).round().astype(np.int64)]
    directions = centred[candidates] / norm[candidates, None]
    spread = np.concatenate([mad(directions[i: i + _BLOCK] @ x.T, axis=1)
                             for i in range(0, len(directions), _BLOCK)])
    best = len(spread) - 1 - int(np.argmax(spread[::-1]))
    v = directions[best]
    if v[0] < 0:
        v = -v
    return centred @ v


def clusters(x: np.ndarray, n_clusters: int, seed: int) -> np.ndarray:
    """The cluster of every record: k-means on the standardized columns (k-means++ starts drawn from
    ``seed``), clusters numbered by their first record. sdcMicro's default is ``clara`` (the ``cluster``
    package's k-medoids on a sample) on the raw values; k-means is the standard equivalent anonkit
    uses (scikit-learn), so the clusters, and therefore the groups, differ from sdcMicro's."""
    z = zscores(x)
    n_clusters = min(n_clusters, len(np.unique(z, axis=0)))  # no more clusters than distinct records
    if n_clusters <= 1:
        return np.zeros(len(x), dtype=np.int64)
    from sklearn.cluster import KMeans  # here: scikit-learn takes seconds to import, the registry loads this module

    labels = KMeans(n_clusters=n_clusters, n_init=3, random_state=seed).fit_predict(z)
    _, first = np.unique(labels, return_index=True)
    renumber = np.empty(labels.max() + 1, dtype=np.int64)
    renumber[labels[np.sort(first)]] = np.arange(len(first))
    return renumber[labels]


def _clustered(x: np.ndarray, k: int, seed: int, n_clusters: int,
               sort_key: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """Clusters in order, records sorted inside each by ``sort_key(x of the cluster, its centre in
    z-scores)``, the whole order cut into runs of ``k`` (a run can cross two clusters, as in sdcMicro)."""
    label = clusters(x, n_clusters, seed)
    z = zscores(x)
    order = []
    for c in range(int(label.max()) + 1):
        rows = np.flatnonzero(label == c)
        order.append(rows[_stable(sort_key(x[rows], z[rows].mean(axis=0)))])
    return runs(np.concatenate(order), k)


def influence(x: np.ndarray, k: int, seed: int, n_clusters: int) -> np.ndarray:
    """``influence``: cluster, then sort each cluster by the column in which its centre lies farthest
    above the mean (in z-scores; sdcMicro reads the largest raw centre coordinate of a reshaped centre
    matrix, which mixes clusters), then cut the whole order into runs."""
    return _clustered(x, k, seed, n_clusters, lambda xc, centre: xc[:, int(np.argmax(centre))])


def clustpppca(x: np.ndarray, k: int, seed: int, n_clusters: int) -> np.ndarray:
    """``clustpppca``: cluster, then sort each cluster by its first projection-pursuit component
    (:func:`pp_component`; by the first column when the cluster has fewer records than columns)."""
    p = x.shape[1]
    return _clustered(x, k, seed, n_clusters,
                      lambda xc, centre: xc[:, 0] if len(xc) < p else pp_component(xc))


def _nearest(dist: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` positions of smallest ``dist`` (ties: lowest position; R's repeated ``which.min``)."""
    if len(dist) <= k:
        return np.arange(len(dist))
    thr = np.partition(dist, k - 1)[k - 1]
    below = np.flatnonzero(dist < thr)
    tied = np.flatnonzero(dist == thr)[: k - len(below)]
    return np.concatenate([below, tied])


def robust_distances(z: np.ndarray, seed: int) -> np.ndarray:
    """Squared robust Mahalanobis distances of the rows of ``z``: the reweighted MCD (FAST-MCD,
    scikit-learn's ``MinCovDet``, random subsets drawn from ``seed``) — sdcMicro calls robustbase's
    ``covMcd``, the same estimator with its own random subsets and consistency factors, so the
    distances agree up to a factor when both find the same subset. Falls back to the classical
    covariance when the MCD is singular (constant or collinear columns). Above :data:`MCD_SAMPLE`
    records the MCD is fitted on that many records drawn from ``seed`` (FAST-MCD samples subsets
    anyway; the full fit costs seconds per 10⁴ records) and the distances are computed for all."""
    fit = z
    if len(z) > MCD_SAMPLE:
        fit = z[np.sort(np.random.default_rng(seed).choice(len(z), MCD_SAMPLE, replace=False))]
    try:
        from sklearn.covariance import MinCovDet  # here, as KMeans above

        return MinCovDet(random_state=seed).fit(fit).mahalanobis(z)
    except (ValueError, np.linalg.LinAlgError):
        centred = z - z.mean(axis=0)
        return np.einsum("ij,jk,ik->i", centred, np.linalg.pinv(np.cov(z, rowvar=False).reshape(z.shape[1], -1)),
                         centred)


def rmd(x: np.ndarray, k: int, seed: int) -> np.ndarray:
    """``rmd``: ``⌊m/k⌋ − 1`` times, the remaining record with the largest robust Mahalanobis distance
    (:func:`robust_distances`; ties: lowest index) and its ``k − 1`` nearest remaining records
    (Euclidean in z-scores, the record itself at distance 0) form a group; the rest is the last group."""
    z = zscores(x)
    m = len(z)
    md = robust_distances(z, seed) if m > x.shape[1] + 1 else np.zeros(m)
    if m >= COMPILED_FROM:
        return rmd_compiled(z, md, k, m // k - 1)
    return rmd_numpy(z, md, k)


def rmd_numpy(z: np.ndarray, md: np.ndarray, k: int) -> np.ndarray:
    """``rmd``'s rounds in numpy (the reference :func:`~anonkit.algorithms.perturb._micro_kernels.rmd_rounds`
    is held equal to)."""
    m = len(z)
    group = np.full(m, m // k - 1 if m >= k else 0, dtype=np.int64)
    rem = np.arange(m)
    for g in range(m // k - 1):
        s = int(np.argmax(md[rem]))
        d = ((z[rem] - z[rem[s]]) ** 2).sum(axis=1)
        take = _nearest(d, k)
        group[rem[take]] = g
        keep = np.ones(len(rem), dtype=bool)
        keep[take] = False
        rem = rem[keep]
    return group


class _Numeric:
    """The numeric space :func:`anonkit.algorithms.cluster.mdav.mdav_groups` reads: z-scores, no
    categorical columns, no missing values."""

    def __init__(self, z: np.ndarray) -> None:
        self.Z = np.ascontiguousarray(z.T)
        self.missing = [False] * z.shape[1]
        self.C = np.zeros((0, len(z)), dtype=np.intp)
        self.sizes: list[int] = []


def mdav(x: np.ndarray, k: int, seed: int) -> np.ndarray:
    """``mdav``: anonkit's MDAV (:func:`anonkit.algorithms.cluster.mdav.mdav_groups`) on the z-scores
    (sdcMicro's ``Mdav`` divides squared differences by each column's variance: the same distances); from
    :data:`COMPILED_FROM` records with every value finite, its compiled twin
    :func:`~anonkit.algorithms.perturb._micro_kernels.mdav_numeric` (6× faster on sdcMicro's testdata)."""
    z = zscores(x)
    fast = len(z) >= COMPILED_FROM and bool(np.isfinite(z).all())  # the same groups, round for round
    group = mdav_compiled(z.T, k) if fast else mdav_groups(_Numeric(z), k)
    _, renumbered = np.unique(group, return_inverse=True)
    return renumbered.reshape(-1).astype(np.int64)


#: method → its grouping (``x``, ``k``, ``seed``) (``onedims`` returns one row of groups per column)
METHODS: dict[str, Callable[..., np.ndarray]] = {
    MDAV: mdav, "rmd": rmd, "pca": pca, "onedims": onedims, "influence": influence, "clustpppca": clustpppca,
}
#: the methods that cluster first (they read the number of clusters)
CLUSTERING = ("influence", "clustpppca")
