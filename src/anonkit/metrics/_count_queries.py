"""Random COUNT queries and their answers from a release (spec §2.7), the query measure of the 1:M
paper: :func:`random_count_queries` builds a seeded query set, :func:`query_accuracy` answers it
from the input and, under uniformity, from the release. Public through
:mod:`anonkit.metrics.one_to_many`, whose docstring states the rules on persons, published values
and suppressed records.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from anonkit._kernels import first_rows, group_columns
from anonkit.errors import InputError
from anonkit.metrics._persons import check_release, published_histogram, sensitive_name
from anonkit.metrics.coverage import covered, leaf_values
from anonkit.release import CUSTOM, Release, check_seed
from anonkit.schema import AttrType
from anonkit.table import Table

__all__ = [
    "DEFAULT_QUERIES",
    "DEFAULT_QUERY_DIMENSION",
    "DEFAULT_SELECTIVITY",
    "CountQueries",
    "QueryAccuracy",
    "query_accuracy",
    "random_count_queries",
]

#: number of random COUNT queries (spec §2.7: at least 1000)
DEFAULT_QUERIES = 1000
#: quasi-identifiers a query constrains (spec §2.7)
DEFAULT_QUERY_DIMENSION = 2
#: share of each quasi-identifier's domain a query selects (spec §2.7)
DEFAULT_SELECTIVITY = 0.1

# largest (queries × classes) or (queries × value combinations) block held at once
_BLOCK = 1 << 22


@dataclass(frozen=True)
class CountQueries:
    """A seeded set of COUNT queries ``QI_a ∈ R_a ∧ QI_b ∈ R_b ∧ SA = v`` (spec §2.7), built by
    :func:`random_count_queries`; apply the same set to several releases of one table.

    ``attributes[q]``: the quasi-identifiers (indices into ``table.qi``, ascending) query ``q``
    constrains; ``masks[j][q]``: the leaves of QI ``j``'s hierarchy the query accepts (every leaf
    when it does not constrain ``j``); ``intervals[j][q]``: for a numeric or date QI the closed
    numeric range ``[lo, hi]`` of the accepted leaves (``[−inf, inf]`` when unconstrained), ``None``
    for other QIs; ``values[q]``: the sensitive value (code into ``table.domains[sensitive]``).
    """

    sensitive: str
    attributes: np.ndarray
    masks: tuple[np.ndarray, ...]
    intervals: tuple[np.ndarray | None, ...]
    values: np.ndarray
    dimension: int
    selectivity: float
    seed: int

    @property
    def size(self) -> int:
        return len(self.values)


def _query_domain(table: Table, j: int) -> tuple[np.ndarray, bool]:
    """The leaves of QI ``j`` a query chooses from, and whether they are ordered (a query then takes
    a contiguous run of them) or nominal (a random subset)."""
    present = np.unique(table.codes[:, j])
    name = table.qi[j]
    attr = table.schema[name]
    if name in table.numeric:
        vals = leaf_values(table, j)[present]
        known = np.isfinite(vals)
        present, vals = present[known], vals[known]
        return present[np.argsort(vals, kind="stable")], True
    if attr.type == AttrType.ORDINAL and attr.order:
        rank = {str(v): i for i, v in enumerate(attr.order)}
        labels = table.hierarchies[j].leaves[present]
        pos = np.array([rank.get(str(v), -1) for v in labels], dtype=np.int64)
        if (pos >= 0).any():
            keep = pos >= 0
            present, pos = present[keep], pos[keep]
            return present[np.argsort(pos, kind="stable")], True
    return present, False


def random_count_queries(
    table: Table,
    *,
    sensitive: str | None = None,
    queries: int = DEFAULT_QUERIES,
    query_dimension: int | None = None,
    selectivity: float = DEFAULT_SELECTIVITY,
    seed: int = 0,
) -> CountQueries:
    """``queries`` seeded random COUNT queries over ``table`` (spec §2.7).

    Each query draws ``query_dimension`` distinct quasi-identifiers uniformly (``None``, the
    default: :data:`DEFAULT_QUERY_DIMENSION`, or every quasi-identifier when there are fewer — a
    default adapts to the data; a value given is held to ``1 … d``). For each, it selects
    ``max(1, ⌊selectivity · L + ½⌋)`` of the ``L`` leaves that occur in the data (the query's
    domain is the values present, as for the sensitive value: leaves of a hierarchy that no record
    has, such as Adult's ages 1–16 and 91–100, are never asked about, so they cannot make queries
    empty by construction): for a numeric or date QI a contiguous run of the leaves
    sorted by value (leaves without a numeric value are never selected), for an ordinal QI with an
    ``order`` a contiguous run in that order, for any other QI a uniformly random subset. The
    sensitive value is drawn uniformly from the distinct values present in the data. Everything
    comes from ``numpy.random.default_rng(seed)`` in query order: the same table, arguments and seed
    give the same queries.
    """
    name = sensitive_name(table, sensitive)
    seed = check_seed(seed)
    d = len(table.qi)
    if isinstance(queries, bool) or not isinstance(queries, int | np.integer) or queries < 1:
        raise InputError("queries must be a whole number ≥ 1", key="queries", value=queries)
    if query_dimension is None:
        query_dimension = max(1, min(DEFAULT_QUERY_DIMENSION, d))
    if (isinstance(query_dimension, bool) or not isinstance(query_dimension, int | np.integer)
            or not 1 <= query_dimension <= d):
        raise InputError(f"query_dimension must be a whole number from 1 to the {d} quasi-identifier(s)",
                         key="query_dimension", value=query_dimension)
    if not isinstance(selectivity, float | int) or isinstance(selectivity, bool) or not 0 < selectivity <= 1:
        raise InputError("selectivity must lie in (0, 1]", key="selectivity", value=selectivity)
    queries, qd = int(queries), int(query_dimension)
    domains = [_query_domain(table, j) for j in range(d)]
    sizes = [max(1, int(np.floor(selectivity * len(leaves) + 0.5))) for leaves, _ in domains]
    present = np.unique(table.sensitive_codes[name])
    rng = np.random.default_rng(seed)
    attributes = np.empty((queries, qd), dtype=np.int64)
    masks = tuple(np.ones((queries, h.n_leaves), dtype=bool) for h in table.hierarchies)
    values = np.empty(queries, dtype=np.int64)
    for q in range(queries):
        chosen = np.sort(rng.choice(d, size=qd, replace=False))
        attributes[q] = chosen
        for j in chosen:
            leaves, ordered = domains[j]
            k = min(sizes[j], len(leaves))
            if ordered:
                start = int(rng.integers(0, len(leaves) - k + 1))
                picked = leaves[start:start + k]
            else:
                picked = rng.choice(leaves, size=k, replace=False)
            masks[j][q] = False
            masks[j][q, picked] = True
        values[q] = present[int(rng.integers(0, len(present)))]
    intervals: list[np.ndarray | None] = []
    for j in range(d):
        if table.qi[j] not in table.numeric:
            intervals.append(None)
            continue
        vals = leaf_values(table, j)
        iv = np.empty((queries, 2))
        iv[:, 0], iv[:, 1] = -np.inf, np.inf
        rows = np.flatnonzero((attributes == j).any(axis=1))
        sel = np.where(masks[j][rows], vals[None, :], np.nan)
        iv[rows, 0], iv[rows, 1] = np.nanmin(sel, axis=1), np.nanmax(sel, axis=1)
        intervals.append(iv)
    return CountQueries(name, attributes, masks, tuple(intervals), values, qd, float(selectivity), seed)


@dataclass
class _Coverage:
    """How the classes of one QI answer a range: classes with a numeric interval ``[lo, hi]``
    (``interval``), the others through ``row[c]``, a row of leaf lists (``leaf`` sorted by row,
    row ``r`` at ``start[r]:stop[r]``)."""

    interval: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    row: np.ndarray
    leaf: np.ndarray
    start: np.ndarray
    stop: np.ndarray

    def fractions(self, mask: np.ndarray, iv: np.ndarray | None) -> np.ndarray:
        """``(Q × C)`` share of every class's published value the queries (``mask`` the accepted
        leaves, ``iv`` the numeric ranges) cover."""
        q = mask.shape[0]
        out = np.empty((q, len(self.row)))
        if self.interval.any():
            assert iv is not None
            cls = np.flatnonzero(self.interval)
            lo, hi = self.lo[cls][None, :], self.hi[cls][None, :]
            qlo, qhi = iv[:, :1], iv[:, 1:]
            width = hi - lo
            overlap = np.clip(np.minimum(hi, qhi) - np.maximum(lo, qlo), 0.0, None)
            with np.errstate(invalid="ignore", divide="ignore"):
                frac = np.where(width > 0, overlap / np.where(width > 0, width, 1.0), 0.0)
            point = (width <= 0) & (qlo <= lo) & (lo <= qhi)
            out[:, cls] = np.where(point, 1.0, frac)
        other = np.flatnonzero(~self.interval)
        if other.size:
            length = (self.stop - self.start).astype(np.float64)
            step = max(1, _BLOCK // (len(self.leaf) + 1))
            for at in range(0, q, step):
                prefix = np.zeros((min(step, q - at), len(self.leaf) + 1))
                np.cumsum(mask[at:at + step][:, self.leaf], axis=1, out=prefix[:, 1:])
                hit = prefix[:, self.stop] - prefix[:, self.start]
                per_row = np.where(length > 0, hit / np.maximum(length, 1.0), 0.0)
                out[at:at + step, other] = per_row[:, self.row[other]]
        return out


def _coverage(table: Table, release: Release, j: int) -> _Coverage:
    """Per class of QI ``j``: a numeric interval (numeric and date QIs: a CUSTOM interval, or a
    hierarchy node's numeric bounds) or the leaves its node or set covers (hierarchy nodes
    deduplicated; a CUSTOM set or a CUSTOM value of a categorical QI: the leaves
    :func:`~anonkit.metrics.coverage.covered` gives it)."""
    h = table.hierarchies[j]
    name = table.qi[j]
    C = release.n_classes
    levels = release.class_levels[:, j].astype(np.int64)
    nodes = release.class_nodes[:, j].astype(np.int64)
    custom = levels == CUSTOM
    interval = np.zeros(C, dtype=bool)
    lo = np.full(C, np.nan)
    hi = np.full(C, np.nan)
    if name in table.numeric:
        if name in release.class_bounds:
            b = np.asarray(release.class_bounds[name], dtype=np.float64)
            ok = custom & np.isfinite(b[:, 0]) & np.isfinite(b[:, 1])
            lo[ok], hi[ok] = b[ok, 0], b[ok, 1]
            interval |= ok
        if h.bounds is not None:
            for level in np.unique(levels[~custom]):
                sel = np.flatnonzero(levels == level)
                b = h.bounds[int(level)][nodes[sel]]
                lo[sel], hi[sel] = b[:, 0], b[:, 1]
                interval[sel] = True
    row = np.full(C, -1, dtype=np.int64)
    rows_leaf: list[np.ndarray] = []
    rows_len: list[np.ndarray] = []
    # hierarchy nodes: one row per distinct (level, node)
    node_cls = np.flatnonzero(~interval & ~custom)
    n_rows = 0
    if node_cls.size:
        width = int(h.maps.shape[1]) + 1
        ids, n_keys = group_columns([levels[node_cls], nodes[node_cls]], [h.height + 1, width])
        first = node_cls[first_rows(ids, n_keys)]
        row[node_cls] = ids
        for c in first:
            leaves = np.flatnonzero(h.maps[levels[c]] == nodes[c])
            rows_leaf.append(leaves)
            rows_len.append(np.array([len(leaves)]))
        n_rows = n_keys
    # CUSTOM values answered by leaves: one row per distinct covered set
    set_cls = np.flatnonzero(~interval & custom)
    if set_cls.size:
        cov = covered(table, release, j)
        length = np.maximum(cov.stop - cov.start, 0)[set_cls]
        pos = np.repeat(cov.start[set_cls], length) + (
            np.arange(int(length.sum())) - np.repeat(np.cumsum(length) - length, length))
        pair_cls = np.concatenate([np.repeat(set_cls, length), cov.pairs[0]])
        pair_leaf = np.concatenate([cov.order[pos], cov.pairs[1]])
        keep = np.isin(pair_cls, set_cls)
        key = np.unique(pair_cls[keep] * np.int64(h.n_leaves) + pair_leaf[keep])
        pc, pl = np.divmod(key, h.n_leaves)
        counts = np.bincount(np.searchsorted(set_cls, pc), minlength=len(set_cls))
        members = np.split(pl, np.cumsum(counts)[:-1])
        ids, uniq = pd.factorize(pd.Series([x.tobytes() for x in members], dtype=object))
        first = first_rows(ids, len(uniq))
        row[set_cls] = n_rows + ids
        rows_leaf += [members[i] for i in first]
        rows_len.append(counts[first])
    leaf = np.concatenate(rows_leaf).astype(np.int64) if rows_leaf else np.zeros(0, dtype=np.int64)
    lengths = np.concatenate(rows_len).astype(np.int64) if rows_len else np.zeros(0, dtype=np.int64)
    stop = np.cumsum(lengths)
    return _Coverage(interval, lo, hi, row, leaf, stop - lengths, stop)


def _actual(table: Table, queries: CountQueries) -> np.ndarray:
    """The number of input records (suppressed ones included) every query matches, computed per
    set of constrained attributes on the distinct (leaves, sensitive value) combinations."""
    out = np.zeros(queries.size)
    scodes = table.sensitive_codes[queries.sensitive]
    m = table.domains[queries.sensitive].size
    groups, inverse = np.unique(queries.attributes, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    for g, attrs in enumerate(groups):
        cols = [table.codes[:, j] for j in attrs] + [scodes]
        sizes = [table.hierarchies[j].n_leaves for j in attrs] + [m]
        combo, k = group_columns(cols, sizes)
        counts = np.bincount(combo, minlength=k).astype(np.float64)
        first = np.full(k, -1, dtype=np.int64)
        rev = np.arange(len(combo) - 1, -1, -1)
        first[combo[rev]] = rev
        leaves = [table.codes[first, j] for j in attrs]
        value = scodes[first]
        rows = np.flatnonzero(inverse == g)
        step = max(1, _BLOCK // max(k, 1))
        for at in range(0, len(rows), step):
            r = rows[at:at + step]
            hit = value[None, :] == queries.values[r][:, None]
            for j, lv in zip(attrs, leaves, strict=True):
                hit &= queries.masks[j][r][:, lv]
            out[r] = hit.astype(np.float64) @ counts
    return out


def _estimate(table: Table, release: Release, queries: CountQueries, hist: np.ndarray) -> np.ndarray:
    """Every query's estimate from the release (see :func:`query_accuracy`)."""
    C = release.n_classes
    out = np.zeros(queries.size)
    if C == 0:
        return out
    needed = np.unique(queries.attributes)
    cover = {int(j): _coverage(table, release, int(j)) for j in needed}
    by_value = np.ascontiguousarray(hist.T)  # (m × C)
    step = max(1, _BLOCK // C)
    for at in range(0, queries.size, step):
        r = np.arange(at, min(at + step, queries.size))
        prod = by_value[queries.values[r]]
        for i in range(queries.dimension):
            js = queries.attributes[r, i]
            for j in np.unique(js):
                sel = np.flatnonzero(js == j)
                iv = queries.intervals[j]
                prod[sel] *= cover[int(j)].fractions(queries.masks[j][r[sel]], None if iv is None else iv[r[sel]])
        out[r] = prod.sum(axis=1)
    return out


@dataclass
class QueryAccuracy:
    """The answers to a query set: ``actual`` and ``estimate`` per query, ``relative_error``
    ``|act − est| / max(act, 1)``, their mean ``error`` and ``accuracy = max(0, 1 − error)``."""

    accuracy: float
    error: float
    actual: np.ndarray = field(repr=False)
    estimate: np.ndarray = field(repr=False)
    relative_error: np.ndarray = field(repr=False)

    @property
    def queries(self) -> int:
        return len(self.actual)


def query_accuracy(
    table: Table,
    release: Release,
    queries: CountQueries | None = None,
    *,
    sensitive: str | None = None,
    seed: int = 0,
) -> QueryAccuracy:
    """Accuracy of random COUNT queries answered from the release (spec §2.7).

    ``queries`` defaults to :func:`random_count_queries` (``sensitive``, ``seed``, default sizes).
    *Actual*: the number of input records (1:M rows) matching the query — suppressed records
    included, they are in the data. *Estimate*: ``Σ_b f_b · H[b, v]`` over the classes ``b``, where
    ``H`` is :func:`published_histogram` (``release.sensitive_histogram`` when set) and ``f_b`` the
    product over the query's QIs of the share of ``b``'s published value inside the query's range,
    under uniformity:

    * a numeric or date QI published as an interval ``[lo, hi]`` (a CUSTOM interval, or a hierarchy
      node's numeric bounds): ``|[lo, hi] ∩ [qlo, qhi]| / (hi − lo)``, the query's range being the
      closed range of its leaves' values; a point (``lo == hi``) counts 1 inside, 0 outside;
    * any other value (a hierarchy node, a CUSTOM set): the share of the leaves below the node (in
      the set) the query accepts — a leaf node counts 1 or 0.

    Suppressed records publish nothing, so they add nothing to an estimate.
    """
    check_release(table, release)
    if queries is None:
        queries = random_count_queries(table, sensitive=sensitive, seed=seed)
    elif sensitive is not None and sensitive != queries.sensitive:
        raise InputError(f"the queries ask about {queries.sensitive!r}", key="sensitive", value=sensitive)
    if (len(queries.masks) != len(table.qi)
            or any(mk.shape[1] != h.n_leaves for mk, h in zip(queries.masks, table.hierarchies, strict=True))):
        raise InputError("the queries were built for another table", key="queries")
    hist = published_histogram(table, release, queries.sensitive)
    actual = _actual(table, queries)
    estimate = _estimate(table, release, queries, hist)
    rel = np.abs(actual - estimate) / np.maximum(actual, 1.0)
    error = float(rel.mean())
    return QueryAccuracy(max(0.0, 1.0 - error), error, actual, estimate, rel)
