"""The measures of the 1:M paper (source D, spec §2.7): several records per person.

A release of 1:M data is judged per *person*, not per record: how much its quasi table QT
generalizes each person (:func:`ncp_per_person`), how well it answers COUNT queries
(:func:`query_accuracy` over :func:`random_count_queries`), whether a person's records, spread
over several classes, let an adversary intersect the classes' sensitive values
(:func:`record_intersection`), and how likely the adversary links a person to their
representative sensitive value (:func:`linkability`). :func:`one_to_many_measures` computes them
all as one JSON-ready dict. (Execution time, the fifth measure of §2.7, is the caller's wall clock.)

Every measure works from a :class:`~anonkit.table.Table` and a :class:`~anonkit.release.Release`
alone, so it serves every algorithm for 1:M data:

* **What a class publishes about the sensitive attribute**: ``release.sensitive_histogram[c, v]``
  when the release sets it (angelization's ST counts, the expected counts of (k,l)-diversity's
  generalized transactions), otherwise the number of the class's records with value ``v``
  (:func:`published_histogram`). A value is *published* for a class when its count is positive.
* **Persons**: ``person`` (any labels, one per record) or else ``table.person``; without either,
  every record is its own person.
* **Suppressed records** (``record_class == −1``) are in the data, so they count in the actual
  answers of the queries and in the number of records of a person, but they publish nothing: they
  add nothing to an estimate, to a person's classes (the intersection attack) or to the classes a
  person is linked through. For NCP a person's suppressed records form one pair charged 1 per
  quasi-identifier (spec §2.1's rule for suppressed records).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from anonkit._kernels import first_rows, group_columns
from anonkit.errors import InputError
from anonkit.metrics.coverage import covered, leaf_values
from anonkit.metrics.ncp import ncp_classes
from anonkit.release import CUSTOM, Release, check_seed
from anonkit.schema import AttrType
from anonkit.table import Table

__all__ = [
    "DEFAULT_INTERSECTION_L",
    "DEFAULT_QUERIES",
    "DEFAULT_QUERY_DIMENSION",
    "DEFAULT_SELECTIVITY",
    "CountQueries",
    "Linkability",
    "QueryAccuracy",
    "RecordIntersection",
    "linkability",
    "ncp_per_person",
    "one_to_many_measures",
    "published_histogram",
    "query_accuracy",
    "random_count_queries",
    "record_intersection",
]

#: number of random COUNT queries (spec §2.7: at least 1000)
DEFAULT_QUERIES = 1000
#: quasi-identifiers a query constrains (spec §2.7)
DEFAULT_QUERY_DIMENSION = 2
#: share of each quasi-identifier's domain a query selects (spec §2.7)
DEFAULT_SELECTIVITY = 0.1
#: a person is breached when the intersection of their classes' sensitive values has fewer values
DEFAULT_INTERSECTION_L = 2

# largest (queries × classes) or (queries × value combinations) block held at once
_BLOCK = 1 << 22


# ---------------------------------------------------------------------------- shared inputs
def _sensitive(table: Table, sensitive: str | None) -> str:
    if sensitive is None:
        if len(table.sensitive) != 1:
            raise InputError(
                f"the table has {len(table.sensitive)} sensitive attributes; name one", key="sensitive"
            )
        return table.sensitive[0]
    if sensitive not in table.domains:
        raise InputError("not a sensitive attribute of the table", key="sensitive", value=sensitive)
    return sensitive


def _persons(table: Table, person: np.ndarray | None) -> tuple[np.ndarray, int]:
    """Dense person codes ``0 … P−1`` of every record and ``P``."""
    if person is None:
        if table.person is not None:
            return np.asarray(table.person, dtype=np.int64), int(table.n_persons)
        return np.arange(table.n, dtype=np.int64), table.n
    person = np.asarray(person)
    if person.ndim != 1 or len(person) != table.n:
        raise InputError(f"person must give one person per record ({table.n:,})", key="person",
                         value=person.shape)
    uniq, codes = np.unique(person, return_inverse=True)
    return codes.astype(np.int64), len(uniq)


def _check_release(table: Table, release: Release) -> None:
    if len(release.record_class) != table.n:
        raise InputError(f"the release has {len(release.record_class):,} records, the table {table.n:,}",
                         key="release")


def published_histogram(table: Table, release: Release, sensitive: str | None = None) -> np.ndarray:
    """``(C × m)`` what every class publishes about ``sensitive``: ``release.sensitive_histogram``
    when set (as floats), else the counts of the class's records per value."""
    _check_release(table, release)
    name = _sensitive(table, sensitive)
    m = table.domains[name].size
    C = release.n_classes
    if release.sensitive_histogram is not None:
        hist = np.asarray(release.sensitive_histogram, dtype=np.float64)
        if hist.shape != (C, m):
            raise InputError(f"sensitive_histogram must be (classes × values) = ({C} × {m}), got {hist.shape}",
                             key="sensitive_histogram")
        return hist
    rc = release.record_class
    kept = rc >= 0
    codes = table.sensitive_codes[name]
    flat = rc[kept].astype(np.int64) * m + codes[kept]
    return np.bincount(flat, minlength=C * m).astype(np.float64).reshape(C, m)


def _released_pairs(release: Release, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (person, class) pairs of the released records, sorted by person."""
    rc = release.record_class
    kept = rc >= 0
    C = max(release.n_classes, 1)
    key = np.unique(codes[kept] * np.int64(C) + rc[kept])
    return key // C, key % C


# ---------------------------------------------------------------------------- NCP
def ncp_per_person(table: Table, release: Release, *, person: np.ndarray | None = None) -> float:
    """NCP of the quasi table QT, one row per individual (spec §2.7, §2.1), in ``[0, 1]``.

    The mean, over the distinct (person, class) pairs of the release, of the class's §2.1 NCP
    averaged over the quasi-identifiers (``Σ_A NCP_A / d``, so the value is on GCP's scale):
    angelization and (k,l)-diversity publish a person in one class, one pair per person; a
    record-level release that spreads a person over several classes publishes one QT row per
    class, so such a person counts once per class. A person's suppressed records, if any, form one
    more pair charged 1 (every attribute fully generalized, spec §2.1). The per-class NCP is
    :func:`~anonkit.metrics.ncp.ncp_classes`'. 0 without quasi-identifiers.
    """
    _check_release(table, release)
    codes, _ = _persons(table, person)
    d = len(table.qi)
    if d == 0:
        return 0.0
    per_class = ncp_classes(table, release).mean(axis=1) if release.n_classes else np.zeros(0)
    rc = release.record_class
    C1 = np.int64(release.n_classes + 1)
    pairs = np.unique(codes * C1 + (rc.astype(np.int64) + 1))  # class −1 (suppressed) → 0
    cls = pairs % C1 - 1
    values = np.ones(len(pairs))
    values[cls >= 0] = per_class[cls[cls >= 0]]
    return float(values.mean())


# ---------------------------------------------------------------------------- queries
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
    name = _sensitive(table, sensitive)
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
    _check_release(table, release)
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


# ---------------------------------------------------------------------------- record intersection
@dataclass(frozen=True)
class RecordIntersection:
    """The intersection attack on persons spread over several classes (spec §2.7): of the
    ``persons_with_several_records``, ``spread`` have released records in ≥ 2 classes and
    ``breached`` of those leave fewer than ``l`` sensitive values in the intersection of their
    classes' published values; ``rate = breached / persons_with_several_records`` (0.0 when none)."""

    persons_with_several_records: int
    spread: int
    breached: int
    rate: float

    def as_dict(self) -> dict[str, int | float]:
        return {"persons_with_several_records": self.persons_with_several_records, "spread": self.spread,
                "breached": self.breached, "rate": self.rate}


def record_intersection(
    table: Table,
    release: Release,
    *,
    sensitive: str | None = None,
    person: np.ndarray | None = None,
    l: int = DEFAULT_INTERSECTION_L,  # noqa: E741 - the l of l-diversity
) -> RecordIntersection:
    """The record-intersection measure (spec §2.7; see :class:`RecordIntersection`).

    A person's records count all their input records (suppressed ones too); the classes they lie
    in are those of their released records (a suppressed record is in no class). The values a
    class publishes are those with a positive count in :func:`published_histogram`. With every
    person in one class the rate is 0.
    """
    _check_release(table, release)
    if isinstance(l, bool) or not isinstance(l, int | np.integer) or l < 1:
        raise InputError("l must be a whole number ≥ 1", key="l", value=l)
    hist = published_histogram(table, release, sensitive)
    codes, n_persons = _persons(table, person)
    several = int(np.count_nonzero(np.bincount(codes, minlength=n_persons) >= 2))
    pp, pc = _released_pairs(release, codes)
    n_classes = np.bincount(pp, minlength=n_persons)
    spread = n_classes >= 2
    take = spread[pp]
    pp, pc = pp[take], pc[take]
    # the published values of every pair's class, expanded; count per (person, value)
    m = hist.shape[1]
    s_cls, s_val = np.nonzero(hist > 0)
    per_class = np.bincount(s_cls, minlength=release.n_classes)
    start = np.cumsum(per_class) - per_class
    length = per_class[pc]
    pos = np.repeat(start[pc], length) + (np.arange(int(length.sum())) - np.repeat(np.cumsum(length) - length, length))
    key = np.repeat(pp, length) * np.int64(m) + s_val[pos]
    uniq, count = np.unique(key, return_counts=True)
    owner = uniq // m
    common = np.bincount(owner[count == n_classes[owner]], minlength=n_persons)
    breached = int(np.count_nonzero(spread & (common < l)))
    return RecordIntersection(several, int(spread.sum()), breached, breached / several if several else 0.0)


# ---------------------------------------------------------------------------- linkability
@dataclass
class Linkability:
    """The probability that the adversary links every person to their representative sensitive
    value (``probability``, one per person), its ``mean`` and ``max``."""

    mean: float
    max: float
    probability: np.ndarray = field(repr=False)
    representative: np.ndarray = field(repr=False)

    def as_dict(self) -> dict[str, float]:
        return {"mean": self.mean, "max": self.max}


def linkability(
    table: Table,
    release: Release,
    *,
    sensitive: str | None = None,
    person: np.ndarray | None = None,
) -> Linkability:
    """Record linkability (spec §2.7; see :class:`Linkability`).

    A person's representative value is that of their record with the highest category
    (``domain.category``; ties: the earliest record), or without categories their earliest
    record's value. The probability through a class is the class's published count of that value
    over the class's total published count (:func:`published_histogram`; 0 for a class publishing
    nothing); a person in several classes takes the largest. A person none of whose records is
    released has probability 0 (the release tells nothing about them) and counts in the mean. A
    suppressed record still may be a person's representative: the adversary's target is the
    person's true value.
    """
    _check_release(table, release)
    name = _sensitive(table, sensitive)
    hist = published_histogram(table, release, name)
    codes, n_persons = _persons(table, person)
    values = table.sensitive_codes[name].astype(np.int64)
    category = table.domains[name].category
    rank = category[values] if category is not None else np.zeros(table.n, dtype=np.int64)
    best = np.full(n_persons, np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(best, codes, rank)
    top = np.flatnonzero(rank == best[codes])
    first = np.full(n_persons, table.n, dtype=np.int64)
    np.minimum.at(first, codes[top], top)
    representative = values[first]
    prob = np.zeros(n_persons)
    if release.n_classes:
        totals = hist.sum(axis=1)
        pp, pc = _released_pairs(release, codes)
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.where(totals[pc] > 0, hist[pc, representative[pp]] / np.where(totals[pc] > 0, totals[pc], 1.0),
                         0.0)
        np.maximum.at(prob, pp, p)
    return Linkability(float(prob.mean()) if n_persons else 0.0, float(prob.max()) if n_persons else 0.0, prob,
                       representative)


# ---------------------------------------------------------------------------- all of them
def one_to_many_measures(
    table: Table,
    release: Release,
    *,
    sensitive: str | None = None,
    person: np.ndarray | None = None,
    queries: int = DEFAULT_QUERIES,
    query_dimension: int | None = None,
    selectivity: float = DEFAULT_SELECTIVITY,
    seed: int = 0,
    l: int = DEFAULT_INTERSECTION_L,  # noqa: E741 - the l of l-diversity
) -> dict[str, object]:
    """The measures of paper D (spec §2.7) as a JSON-ready dict.

    ``ncp`` (:func:`ncp_per_person`), ``query_accuracy``, ``query_error`` and ``queries``
    (:func:`query_accuracy` over :func:`random_count_queries` with ``queries``,
    ``query_dimension`` — by default :data:`DEFAULT_QUERY_DIMENSION` capped at the number of
    quasi-identifiers — ``selectivity``, ``seed``; with no quasi-identifier there is nothing to
    query: ``None``, ``None`` and 0), ``record_intersection``
    (:func:`record_intersection` with ``l``: ``persons_with_several_records``, ``spread``,
    ``breached``, ``rate``) and ``linkability`` (:func:`linkability`: ``mean``, ``max``). See the
    module docstring for persons, published values and suppressed records.
    """
    name = _sensitive(table, sensitive)
    accuracy: tuple[float | None, float | None, int] = (None, None, 0)
    if table.qi or query_dimension is not None:  # (a dimension given is held to 1 … d)
        qs = random_count_queries(table, sensitive=name, queries=queries, query_dimension=query_dimension,
                                  selectivity=selectivity, seed=seed)
        acc = query_accuracy(table, release, qs)
        accuracy = (acc.accuracy, acc.error, acc.queries)
    return {
        "ncp": ncp_per_person(table, release, person=person),
        "query_accuracy": accuracy[0],
        "query_error": accuracy[1],
        "queries": accuracy[2],
        "record_intersection": record_intersection(table, release, sensitive=name, person=person, l=l).as_dict(),
        "linkability": linkability(table, release, sensitive=name, person=person).as_dict(),
    }
