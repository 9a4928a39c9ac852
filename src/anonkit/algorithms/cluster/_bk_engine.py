"""Shared machinery of the background-knowledge algorithms (UHRA, k-primacy, BKA-JS; spec §4.1–4.3).

* :func:`setup` reads the models: the group size ``k``, the *closing test* of a group (k, t-closeness,
  β-likeness, on one sensitive attribute), the background-knowledge model (``J``) and the adversary's
  priors (given, or estimated as the model says — once per distinct QI tuple).
* :class:`QISpace` holds the records' QIs in the §0.3 distance space.
* :func:`finish` turns groups into a :class:`~anonkit.release.Release` (numeric QIs as ``[min, max]``,
  categorical ones as the lowest common ancestor), judges every published class by the models — the
  background-knowledge model on the records of each class — and suppresses whole the classes that
  fail, so nothing unsafe is published.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from anonkit._values import cell_text
from anonkit.algorithms.cluster import _bk_kernels
from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, check_references
from anonkit.algorithms.local import partition_release
from anonkit.distance import to_unit
from anonkit.errors import InputError
from anonkit.models import BackgroundKnowledge, BetaLikeness, Criterion, TCloseness
from anonkit.release import Release
from anonkit.table import Table

_KINDS = {"equal": 1, "ordered": 2, "hierarchical": 3}


@dataclass
class ClosingTest:
    """When a group may be published: size ≥ ``k`` and every t-closeness / β-likeness bound holds.

    Arrays are in the form the numba kernels take; :meth:`passes` runs the compiled test.
    """

    k: int
    kinds: np.ndarray
    ts: np.ndarray
    tref: np.ndarray
    parents: np.ndarray
    level_sizes: np.ndarray
    height: int
    use_beta: bool
    bound: np.ndarray
    bref: np.ndarray

    def args(self) -> tuple:
        return (self.k, self.kinds, self.ts, self.tref, self.parents, self.level_sizes, self.height,
                self.use_beta, self.bound, self.bref)

    def with_reference(self, tref: np.ndarray) -> ClosingTest:
        """The same test with t-closeness measured against ``tref`` (UHRA's ``reference="cluster"``)."""
        return replace(self, tref=np.ascontiguousarray(tref, dtype=np.float64))

    def passes(self, hist: np.ndarray, size: float) -> bool:
        return _bk_kernels.passes(np.asarray(hist, dtype=np.float64), float(size), *self.args())


@dataclass
class Setup:
    """What the models ask of a background-knowledge algorithm run."""

    table: Table
    models: list[Criterion]
    sensitive: str
    k: int
    test: ClosingTest
    bk: BackgroundKnowledge | None
    J: float
    priors: np.ndarray  # (n × S) per record
    sa: np.ndarray  # (n,) sensitive codes
    rows: np.ndarray  # records taking part (not suppressed up front), ascending
    notes: list[str] = field(default_factory=list)


def _sensitive_parents(table: Table, sensitive: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Parent of every node one level up, per level, for hierarchical EMD in the kernels."""
    dom = table.domains[sensitive]
    s = dom.size
    if dom.height == 0:
        raise InputError("hierarchical t-closeness needs a hierarchy for the sensitive attribute", column=sensitive)
    parents = np.zeros((dom.height, s), dtype=np.int64)
    sizes = [s]
    child = np.arange(s)
    for level in range(1, dom.height + 1):
        anc = np.asarray(dom.ancestors[level - 1], dtype=np.int64)
        parents[level - 1, child] = anc
        sizes.append(int(anc.max()) + 1)
        child = anc
    return parents, np.asarray(sizes, dtype=np.int64), dom.height


def setup(
    table: Table,
    models: list[Criterion],
    *,
    algorithm: str,
    guarantee: str,
    priors: Any = None,
    max_suppression: float = DEFAULT_MAX_SUPPRESSION,
    default_beta: float | None = None,
) -> Setup:
    """Validate the models for a background-knowledge algorithm and gather its parameters.

    The closing test of a group covers k-anonymity (the largest minimum class size of the models on
    all QIs), t-closeness and β-likeness; these and the background-knowledge model must be about one
    sensitive attribute. Any other model (l-diversity, δ-disclosure, k-anonymity on a QI subset) is
    judged on the published classes afterwards, and classes failing it are suppressed
    (:func:`finish`). ``default_beta`` adds a basic β-likeness model when none is given (k-primacy).
    ``guarantee`` (``pairwise`` or ``posterior``) is what a background-knowledge model with
    ``test="auto"`` becomes (:meth:`~anonkit.models.BackgroundKnowledge.resolved`).
    """
    models = list(models)
    check_references(table, models)
    closing = (TCloseness, BetaLikeness, BackgroundKnowledge)
    for m in models:
        if m.spec.record_level and not isinstance(m, BackgroundKnowledge):
            raise InputError(f"{algorithm} does not know the record-level model {m.name}", key="privacy")
    attrs = sorted({m.attribute for m in models if isinstance(m, closing)})
    if len(attrs) > 1:
        raise InputError(
            f"{algorithm} protects one sensitive attribute; its t-closeness, beta-likeness and background-knowledge "
            f"models name {', '.join(attrs)}",
            key="privacy",
        )
    if attrs:
        sensitive = attrs[0]
    elif len(table.sensitive) == 1:
        sensitive = table.sensitive[0]
    else:
        raise InputError(f"{algorithm} needs exactly one sensitive attribute (give a background-knowledge model)",
                         key="privacy")
    if default_beta is not None and not any(isinstance(m, BetaLikeness) for m in models):
        models.append(BetaLikeness(sensitive, default_beta))
    bks = [m for m in models if isinstance(m, BackgroundKnowledge)]
    if len(bks) > 1:
        raise InputError(f"{algorithm} takes one background-knowledge model", key="privacy")
    bk = bks[0].resolved(guarantee) if bks else None
    if bk is not None:
        models = [bk if isinstance(m, BackgroundKnowledge) else m for m in models]
    # the largest minimum class size of the models on all QIs (1 without k-anonymity)
    k = max((int(m.minimum_class_size()) for m in models if m.qis is None and not m.spec.record_level),
            default=1)
    dom = table.domains[sensitive]
    s = dom.size
    kinds, ts = [], []
    parents, level_sizes, height = np.zeros((1, 1), dtype=np.int64), np.asarray([s], dtype=np.int64), 0
    for m in models:
        if isinstance(m, TCloseness):
            kinds.append(_KINDS[m.distance])
            ts.append(float(m.t))
            if m.distance == "hierarchical":
                parents, level_sizes, height = _sensitive_parents(table, sensitive)
    betas = [m for m in models if isinstance(m, BetaLikeness)]
    bound = np.full(s, np.inf)
    q = np.asarray(dom.reference, dtype=np.float64)
    for m in betas:
        bound = np.minimum(bound, np.asarray(m._bound(q), dtype=np.float64))
    test = ClosingTest(
        k=int(k),
        kinds=np.asarray(kinds, dtype=np.int64),
        ts=np.asarray(ts, dtype=np.float64),
        tref=np.ascontiguousarray(q),
        parents=np.ascontiguousarray(parents),
        level_sizes=level_sizes,
        height=int(height),
        use_beta=bool(betas),
        bound=np.ascontiguousarray(bound),
        bref=np.ascontiguousarray(q),
    )
    sa = np.asarray(table.sensitive_codes[sensitive], dtype=np.int64)
    p = _prior_matrix(table, sensitive, priors, bk, s)
    return Setup(
        table=table,
        models=models,
        sensitive=sensitive,
        k=int(k),
        test=test,
        bk=bk,
        J=float(bk.J) if bk is not None else 1.0,
        priors=p,
        sa=sa,
        rows=np.flatnonzero(~table.presuppressed),
    )


def _prior_matrix(table: Table, sensitive: str, priors: Any, bk: BackgroundKnowledge | None, s: int) -> np.ndarray:
    """``(n × S)`` priors per record: the given ones (any form :func:`~anonkit.knowledge.sources.as_priors`
    takes), else estimated as the model says (kernel by default)."""
    from anonkit.knowledge import kernel_priors
    from anonkit.knowledge.sources import as_priors

    if priors is None:
        pri = bk.priors(table) if bk is not None else kernel_priors(table, sensitive)
    else:
        pri = as_priors(table, sensitive, priors)
    return np.ascontiguousarray(pri.per_record(), dtype=np.float64)


class QISpace:
    """The records' QIs in the §0.3 distance space (:mod:`anonkit.distance`; the numba kernels
    evaluate its categorical ``δ`` from the ancestor table ``anc``).

    Numeric (and date) QIs are divided by their range over the records taking part (``X``, NaN =
    missing); the others are local leaf codes (``C``) with their ancestors per level (``anc``), the
    local code of the missing value (``miss``, −1 if none) and offsets of every attribute's codes in a
    flat per-group count table (``coff``, ``n_codes``). ``used[a]`` holds the table's leaf codes
    behind the local codes of categorical attribute ``a``.
    """

    def __init__(self, table: Table, rows: np.ndarray) -> None:
        self.table = table
        self.rows = rows
        num = [j for j, q in enumerate(table.qi) if q in table.numeric]
        cat = [j for j, q in enumerate(table.qi) if q not in table.numeric]
        self.num, self.cat = num, cat
        x = np.zeros((len(rows), len(num)))
        for i, j in enumerate(num):
            x[:, i] = to_unit(np.asarray(table.numeric[table.qi[j]], dtype=np.float64)[rows])
        self.X = np.ascontiguousarray(x)
        heights = [table.hierarchies[j].height for j in cat]
        codes = np.zeros((len(rows), len(cat)), dtype=np.int64)
        used: list[np.ndarray] = []
        for i, j in enumerate(cat):
            leaves, local = np.unique(table.codes[rows, j], return_inverse=True)
            codes[:, i] = local.reshape(-1)
            used.append(leaves)
        self.C = np.ascontiguousarray(codes)
        umax = max((len(u) for u in used), default=1)
        hmax = max(heights, default=0)
        anc = np.full((len(cat), hmax + 1, umax), -1, dtype=np.int64)
        miss = np.full(len(cat), -1, dtype=np.int64)
        for i, j in enumerate(cat):
            h = table.hierarchies[j]
            for level in range(h.height + 1):
                anc[i, level, : len(used[i])] = h.maps[level][used[i]]
            blank = np.flatnonzero([cell_text(v) == "" for v in h.leaves[used[i]]])
            if blank.size:
                miss[i] = int(blank[0])
        self.anc = anc
        self.heights = np.asarray(heights, dtype=np.int64)
        self.miss = miss
        sizes = np.asarray([len(u) for u in used], dtype=np.int64)
        self.coff = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64) if len(cat) else np.zeros(0, np.int64)
        self.n_codes = int(sizes.sum())
        self.used = used

    def centroid_dist2(self, members: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """Squared §0.3 distance of every row of ``members`` (positions in ``rows``) to their own centroid."""
        w = np.ones(len(members)) if weights is None else np.asarray(weights, dtype=np.float64)
        out = np.zeros(len(members))
        for a in range(self.X.shape[1]):
            x = self.X[members, a]
            known = ~np.isnan(x)
            mean = float((x[known] * w[known]).sum() / w[known].sum()) if known.any() else np.nan
            out += np.where(known & np.isfinite(mean), (x - mean) ** 2, 1.0)
        for a in range(self.C.shape[1]):
            c = self.C[members, a]
            share = np.bincount(c, weights=w, minlength=len(self.used[a])) / w.sum()
            out += np.where(c == self.miss[a], 1.0, (1.0 - share[c]) ** 2)
        return out


def npn_order(space: QISpace, members: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nearest-point-next order (spec §4.1 step 1) of ``members`` (ascending positions in ``space.rows``).

    Starts at the record farthest from the members' QI centroid and appends the remaining record
    nearest to the last one; ties go to the lowest record index. Records with identical QIs are at
    distance 0 from each other, so the order visits them together, lowest index first: it is computed
    on the distinct QI tuples (weighted by their records), O(u²) for ``u`` tuples, and then expanded.
    Returns ``(order, tuple of every member, first member of every tuple)`` (positions in ``members``).
    Decision: records sharing a QI tuple count as identical even where the tuple holds a missing value
    (which §0.3 puts at distance 1 from everything).
    """
    if len(members) == 0:
        return members, members, members
    tup = space.table.distinct.inverse[space.rows[members]]
    uniq, first, inv, counts = np.unique(tup, return_index=True, return_inverse=True, return_counts=True)
    inv = inv.reshape(-1)
    rep = members[first]  # first member (lowest index) of each tuple
    d2 = space.centroid_dist2(rep, counts)
    rank = first.astype(np.int64)  # members are ascending, so position = index order
    start = int(np.lexsort((rank, -d2))[0])
    order_t = _bk_kernels.npn_order(
        np.ascontiguousarray(space.X[rep]), np.ascontiguousarray(space.C[rep]), space.anc, space.heights, space.miss,
        start, rank,
    )
    # expand: records of each tuple in index order
    pos_of_tuple = np.empty(len(uniq), dtype=np.int64)
    pos_of_tuple[order_t] = np.arange(len(uniq))
    order = np.lexsort((np.arange(len(members)), pos_of_tuple[inv])).astype(np.int64)
    return order, inv.astype(np.int64), first.astype(np.int64)


def finish(
    s: Setup,
    record_class: np.ndarray,
    *,
    algorithm: str,
    max_suppression: float,
    started: float,
    params: dict,
) -> Release:
    """The release of the groups in ``record_class`` (−1: suppressed), judged by every model.

    Groups publishing identical values are one equivalence class (spec §0.2) and are merged; a class
    failing a model — the background-knowledge model included, judged on its records' priors — is
    suppressed whole, and the judging repeats until every published class passes.
    """
    stats_models = [m for m in s.models if not m.spec.record_level]
    rc = np.asarray(record_class, dtype=np.int64).copy()
    bk_suppressed = 0
    while True:
        rel = partition_release(
            s.table, rc, stats_models, algorithm=algorithm, max_suppression=max_suppression,
            numeric="interval", categorical="lca", started=started, params=params,
        )
        if s.bk is None or rel.n_classes == 0:
            break
        bad = np.flatnonzero(~s.bk.class_passes(s.priors, rel.record_class, rel.n_classes, s.sa))
        if not bad.size:
            break
        drop = np.isin(rel.record_class, bad)
        bk_suppressed += int((drop & (rc >= 0)).sum())
        rc[drop] = -1
    rel.bk.failed_records = bk_suppressed
    if s.bk is not None and rel.n_classes:
        div = s.bk.class_divergence(s.priors, rel.record_class, rel.n_classes, s.sa)
        rel.bk.divergence = float(div.max())
    rel.bk.test = s.bk.effective_test if s.bk is not None else None
    rel.seconds = time.perf_counter() - started
    return rel


def records_by_cluster(cluster_of_row: np.ndarray, n_clusters: int) -> list[np.ndarray]:
    """Positions (ascending) of the rows of every cluster."""
    order = np.argsort(cluster_of_row, kind="stable")
    bounds = np.searchsorted(cluster_of_row[order], np.arange(n_clusters + 1))
    return [order[bounds[c] : bounds[c + 1]] for c in range(n_clusters)]
