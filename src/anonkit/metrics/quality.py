"""ARX's single-dimensional quality models that read the cells a release publishes: KL divergence,
ambiguity, entropy-based information loss, and the record-level squared error (SSE).

Each is written once over *groups* (what ARX's ``HashGroupify`` holds: a published class, or the
records suppressed with one generalized tuple) and the input's distinct tuples, so a release
(:func:`kl_divergence`, :func:`ambiguity`, :func:`entropy_loss`, :func:`sse`, what the summary
reports) and a lattice node in a search (:func:`node_quality`) are scored by the same formulas.

A group's *cell* on QI ``j`` is the number of hierarchy leaves its value covers, computed as ARX
does: ``share · size`` with ``share = #leaves below / #rows of the hierarchy`` and ``size = #rows``
(``DomainShareMaterialized``). Suppressed records cover the whole domain. ``N`` counts every input
record (suppressed ones too).

* **KL divergence** (``MetricSDNMKLDivergence``): ``Σ_records p·log2(p/q)`` with ``p`` = the share of
  the input holding the record's QI tuple and ``q`` = its group's share spread evenly over its cell,
  ``(count/N)/Π cell``, or for a suppressed record ``(suppressed/N)/Π size``. ARX sums over records,
  not distinct tuples (a tuple held by ``c`` records adds its term ``c`` times); so does this.
* **Ambiguity** (``MetricSDNMAmbiguity``): ``Σ_groups count·Π cell`` (``Π size`` when suppressed): the
  number of input tuples a published record could stand for, summed over records.
* **Entropy-based information loss** (``MetricSDNMEntropyBasedInformationLoss``, gs-factor):
  ``Σ gFactor·count·clip(log10(Π share)/log10(Π size) + 1, 0, 1)`` over published groups plus
  ``sFactor·count`` per suppressed group.
* **SSE** (ARX's record-level squared error, ``QualityModelRowOrientedSquaredError``, which ARX offers
  as an analysis of a release, not as a search metric): per record ``√Σ_j ((x_j − far_j)/σ_j)²``, where
  ``x_j`` is the input value (a number, or for a non-numeric QI its row in the hierarchy), ``far_j``
  the end of the published range farther from it and ``σ_j`` the input's standard deviation; summed
  over records and divided by the same sum with every range the whole domain. ARX reports
  ``1 −`` that share as a quality; the metric here is the share itself (lower is better). A
  generalized value's range is its leaves' smallest and largest value (ARX parses labels such as
  ``[20, 40[`` as ranges when it can, which may end a range one past its largest leaf).

The sums run in ARX's order where it has one (groups by first appearance, records in input order).
ARX's test suites hold no expected values for these models; the values were checked against ARX 3.9
built from its repository (``tests/test_quality_metrics.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from anonkit._kernels import first_rows
from anonkit.metrics.arx import gs_factors, seq_sum, transformation_levels
from anonkit.metrics.coverage import custom_sizes, leaf_values
from anonkit.release import CUSTOM, Release
from anonkit.table import Table

#: the quality models of this module: search-metric name → the summary's key
QUALITY_MODELS: dict[str, str] = {
    "kl-divergence": "kl_divergence",
    "ambiguity": "ambiguity",
    "entropy-loss": "entropy_loss",
    "sse": "sse",
}

_LOG2 = math.log(2.0)


@dataclass(frozen=True)
class Groups:
    """ARX's groups of a release or a node, in order of first appearance.

    ``count``: records per group; ``kept``: published (True) or suppressed; ``cells``: ``(G × d)``
    leaves each group's value covers per QI (``share·size``, meaningless where suppressed);
    ``sizes``: each QI's domain size (:func:`domain_sizes`).
    """

    count: np.ndarray
    kept: np.ndarray
    cells: np.ndarray
    sizes: np.ndarray


def domain_sizes(table: Table) -> np.ndarray:
    """Rows of each QI's hierarchy (ARX's domain size)."""
    return np.array([float(h.n_leaves) for h in table.hierarchies], dtype=np.float64)


def _leaf_cells(table: Table, j: int, level: int, nodes: np.ndarray) -> np.ndarray:
    """``share·size`` of the given nodes of QI ``j`` at ``level`` (ARX's order of operations)."""
    h = table.hierarchies[j]
    size = float(h.n_leaves)
    return (h.leaf_counts(level)[nodes] / size) * size


def _class_cells(table: Table, release: Release) -> np.ndarray:
    """``(C × d)`` cells of the release's classes; a CUSTOM value covers the leaves it names."""
    levels, nodes = release.class_levels, release.class_nodes
    out = np.zeros(levels.shape, dtype=np.float64)
    for j in range(levels.shape[1]):
        lv = levels[:, j]
        custom = lv == CUSTOM
        for level in np.unique(lv[~custom]):
            sel = lv == level
            out[sel, j] = _leaf_cells(table, j, int(level), nodes[sel, j])
        if custom.any():
            out[custom, j] = np.maximum(custom_sizes(table, release, j, custom), 1.0)
    return out


def release_groups(table: Table, release: Release) -> tuple[Groups, np.ndarray]:
    """The groups of ``release`` and the group of every record (see :class:`Groups`).

    A published class is a group. Suppressed records of a full-domain release group by their tuple
    generalized at the transformation (as ARX keeps them); otherwise they form one group.
    """
    rc = release.record_class.astype(np.int64)
    n_cls = release.n_classes
    key = rc.copy()
    sup = rc < 0
    if sup.any():
        t = transformation_levels(table, release)
        if t is None:
            key[sup] = n_cls
        else:
            gen = np.stack([h.maps[int(t[j])][table.codes[sup, j]] for j, h in enumerate(table.hierarchies)], axis=1)
            _, inverse = np.unique(gen, axis=0, return_inverse=True)
            key[sup] = n_cls + inverse.reshape(-1)
    m = int(key.max()) + 1 if key.size else 0
    w = np.ones(table.n) if table.weights is None else table.weights.astype(np.float64)
    count = np.bincount(key, weights=w, minlength=m)
    first = first_rows(key, m)
    present = np.flatnonzero(first >= 0)
    order = present[np.argsort(first[present], kind="stable")]
    cells = np.zeros((m, len(table.qi)), dtype=np.float64)
    if n_cls:
        cells[:n_cls] = _class_cells(table, release)
    rank = np.full(m, -1, dtype=np.int64)
    rank[order] = np.arange(order.size)
    groups = Groups(count[order], order < n_cls, cells[order], domain_sizes(table))
    return groups, rank[key]


# ------------------------------------------------------------------------------------ the formulas
def _products(cells: np.ndarray) -> np.ndarray:
    """``Π_j cells[:, j]``, multiplied left to right from 1 (ARX's loop)."""
    out = np.ones(cells.shape[0], dtype=np.float64)
    for j in range(cells.shape[1]):
        out = out * cells[:, j]
    return out


def _ambiguity(g: Groups) -> float:
    full = float(_products(g.sizes[None, :])[0])
    per = np.where(g.kept, _products(g.cells), full) * g.count
    return seq_sum(per)


def _entropy_loss(g: Groups, gs: float) -> float:
    g_factor, s_factor = gs_factors(gs)
    max_il = math.log10(float(_products(g.sizes[None, :])[0]))
    if max_il == 0.0 or not math.isfinite(max_il):
        return 0.0
    shares = _products(g.cells / g.sizes[None, :])
    with np.errstate(divide="ignore"):
        il = np.clip(np.log10(shares) / max_il + 1.0, 0.0, 1.0)
    per = np.where(g.kept, g_factor * (g.count * il), s_factor * g.count)
    return seq_sum(per)


def _kl(g: Groups, record_group: np.ndarray, record_tuple_count: np.ndarray, record_weight: np.ndarray,
        n: float) -> float:
    """KL divergence over records (``record_*`` arrays in input order; a row standing for several
    records adds its term that many times)."""
    n_sup = float(g.count[~g.kept].sum())
    area = np.where(g.kept, _products(g.cells), float(_products(g.sizes[None, :])[0]))
    out_freq = np.where(g.kept, g.count, n_sup) / n / area
    p = record_tuple_count / n
    q = out_freq[record_group]
    terms = p * (np.log(p / q) / _LOG2)
    return seq_sum(terms * record_weight)


def _tuple_counts(table: Table) -> np.ndarray:
    """Records per distinct input tuple (rows weighted)."""
    d = table.distinct
    return np.bincount(d.inverse, weights=table.weights, minlength=d.size).astype(np.float64)


def _qi_numbers(table: Table, j: int) -> np.ndarray:
    """A number per leaf of QI ``j``: its value when every leaf has one, else its hierarchy row."""
    vals = leaf_values(table, j)
    return vals if np.isfinite(vals).all() else np.arange(table.hierarchies[j].n_leaves, dtype=np.float64)


def _node_ranges(table: Table, j: int, level: int) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest leaf number below every node of QI ``j`` at ``level``."""
    h = table.hierarchies[j]
    x = _qi_numbers(table, j)
    lo = np.full(h.size(level), np.inf)
    hi = np.full(h.size(level), -np.inf)
    np.minimum.at(lo, h.maps[level], x)
    np.maximum.at(hi, h.maps[level], x)
    return lo, hi


def _far_terms(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, sigma: float) -> np.ndarray:
    """ARX's per-value term: the end of ``[lo, hi]`` farther from ``x``, standardized, squared."""
    if sigma == 0.0:
        return np.zeros(len(x))
    far = np.where((hi - x) > (x - lo), hi, lo)
    z = (x - far) / sigma
    return z * z


def _sse(x: list[np.ndarray], ranges: list[tuple[np.ndarray, np.ndarray]], weights: np.ndarray) -> float:
    """ARX's record-level squared error as a loss: Σ_records √Σ_j term over the same sum with every
    range the QI's whole range (``x``: per QI the input numbers of the rows; ``ranges``: per QI the
    published range of the rows; ``weights``: records per row)."""
    if not x:
        return 0.0
    real = np.zeros(len(weights))
    worst = np.zeros(len(weights))
    total = float(weights.sum())
    for xj, (lo, hi) in zip(x, ranges, strict=True):
        mean = seq_sum(xj * weights) / total
        sigma = math.sqrt(seq_sum(((xj - mean) * (xj - mean)) * weights) / total)
        real += _far_terms(xj, lo, hi, sigma)
        lo_all = min(float(xj.min()), float(lo.min()))
        hi_all = max(float(xj.max()), float(hi.max()))
        worst += _far_terms(xj, np.full(len(xj), lo_all), np.full(len(xj), hi_all), sigma)
    top = seq_sum(np.sqrt(worst) * weights)
    return seq_sum(np.sqrt(real) * weights) / top if top > 0 else 0.0


# ------------------------------------------------------------------------------------ a release
def _record_weight(table: Table) -> np.ndarray:
    return np.ones(table.n) if table.weights is None else table.weights.astype(np.float64)


def kl_divergence(table: Table, release: Release) -> float:
    """ARX's KL divergence of the release from the input (bits; see the module docstring)."""
    groups, record_group = release_groups(table, release)
    tc = _tuple_counts(table)[table.distinct.inverse]
    return _kl(groups, record_group, tc, _record_weight(table), float(table.n_records))


def ambiguity(table: Table, release: Release) -> float:
    """ARX's ambiguity: Σ over records of the input tuples its published cell covers."""
    return _ambiguity(release_groups(table, release)[0])


def entropy_loss(table: Table, release: Release, *, gs: float = 0.5) -> float:
    """ARX's entropy-based information loss (records; see the module docstring)."""
    return _entropy_loss(release_groups(table, release)[0], gs)


def _release_ranges(table: Table, release: Release, j: int) -> tuple[np.ndarray, np.ndarray]:
    """The published range of QI ``j`` for every record (the whole range when suppressed)."""
    name = table.qi[j]
    x = _qi_numbers(table, j)
    n_cls = release.n_classes
    lo_c = np.zeros(n_cls)
    hi_c = np.zeros(n_cls)
    levels, nodes = release.class_levels[:, j], release.class_nodes[:, j]
    for level in np.unique(levels[levels != CUSTOM]):
        sel = levels == level
        lo, hi = _node_ranges(table, j, int(level))
        lo_c[sel], hi_c[sel] = lo[nodes[sel]], hi[nodes[sel]]
    for c in np.flatnonzero(levels == CUSTOM):
        rows = np.flatnonzero(release.record_class == c)
        own = x[table.codes[rows, j]]
        lo_c[c], hi_c[c] = float(own.min()), float(own.max())
        if name in release.class_bounds and np.isfinite(release.class_bounds[name][c]).all():
            b = release.class_bounds[name][c]
            lo_c[c], hi_c[c] = min(lo_c[c], float(b[0])), max(hi_c[c], float(b[1]))
        elif name in release.class_sets:
            members = x[np.asarray(release.class_sets[name][c], dtype=np.int64)]
            lo_c[c], hi_c[c] = min(lo_c[c], float(members.min())), max(hi_c[c], float(members.max()))
    rc = release.record_class
    lo_r = np.full(table.n, float(x.min()))
    hi_r = np.full(table.n, float(x.max()))
    kept = rc >= 0
    lo_r[kept], hi_r[kept] = lo_c[rc[kept]], hi_c[rc[kept]]
    return lo_r, hi_r


def sse(table: Table, release: Release) -> float:
    """ARX's record-level squared error as a loss in ``[0, 1]`` (see the module docstring)."""
    xs = [_qi_numbers(table, j)[table.codes[:, j]] for j in range(len(table.qi))]
    ranges = [_release_ranges(table, release, j) for j in range(len(table.qi))]
    return _sse(xs, ranges, _record_weight(table))


# ------------------------------------------------------------------------------------ a lattice node
def node_quality(name: str, table: Table, levels: tuple[int, ...], tuple_class: np.ndarray, class_ok: np.ndarray,
                 class_sizes: np.ndarray, *, gs: float = 0.5) -> float:
    """The quality model ``name`` (a key of :data:`QUALITY_MODELS`) of a full-domain node from its
    evaluation on the distinct tuples (``tuple_class``: every tuple's class; ``class_ok``: the
    classes published, the rest suppressed), vectorized; the same formulas as the release's
    functions, summed in numpy's order (the search's reported score is recomputed on the release)."""
    d = table.distinct
    tc = _tuple_counts(table)
    n_cls = len(class_sizes)
    cls_count = np.bincount(tuple_class, weights=tc, minlength=n_cls)
    if name == "sse":
        xs, ranges = [], []
        kept_t = class_ok[tuple_class]
        for j, lv in enumerate(levels):
            x = _qi_numbers(table, j)
            lo, hi = _node_ranges(table, j, int(lv))
            node = table.hierarchies[j].maps[int(lv)][d.columns[j]]
            xs.append(x[d.columns[j]])
            ranges.append((np.where(kept_t, lo[node], x.min()), np.where(kept_t, hi[node], x.max())))
        return _sse(xs, ranges, tc)
    rep = first_rows(tuple_class, n_cls)
    has = rep >= 0
    cells = np.zeros((n_cls, len(levels)))
    for j, lv in enumerate(levels):
        nodes = table.hierarchies[j].maps[int(lv)][d.columns[j][rep[has]]]
        cells[has, j] = _leaf_cells(table, j, int(lv), nodes)
    kept = class_ok & has
    # a suppressed class is a group of its own (one generalized tuple), as ARX keeps it
    groups = Groups(cls_count[has], kept[has], cells[has], domain_sizes(table))
    if name == "ambiguity":
        return _ambiguity(groups)
    if name == "entropy-loss":
        return _entropy_loss(groups, gs)
    group_of_class = np.cumsum(has) - 1
    return _kl(groups, group_of_class[tuple_class], tc, tc, float(table.n_records))
