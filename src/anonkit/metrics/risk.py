"""Re-identification risk of a :class:`~anonkit.release.Release` (ARX compatibility §2.5, spec §2.5).

Sample-based prosecutor risks follow ARX's ``RiskModelSampleRisks`` on the released records
(suppressed records are not published, so they carry no risk); record linkage is the UHRA metric
of spec §2.5, computed on the distinct QI tuples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonkit._kernels import group_columns
from anonkit.hierarchy import Hierarchy
from anonkit.metrics._linkage import candidates_by_pattern
from anonkit.metrics.arx import one_level, tuple_counts
from anonkit.metrics.classes import released_sizes
from anonkit.metrics.coverage import Covered, covered
from anonkit.release import CUSTOM, Release
from anonkit.table import Table


@dataclass(frozen=True)
class ProsecutorRisk:
    """Prosecutor re-identification risk of the released records.

    ``highest`` = 1/smallest class, ``lowest`` = 1/largest class, ``average`` = #classes /
    #released records (ARX's definition: the mean of 1/|class| over the records),
    ``records_at_risk`` = share of released records whose risk 1/|class| exceeds ``threshold``.
    All 0 when nothing is released.
    """

    highest: float
    average: float
    lowest: float
    records_at_risk: float
    threshold: float


def prosecutor_risk(table: Table, release: Release, *, threshold: float = 0.2) -> ProsecutorRisk:
    """Sample-based prosecutor risk (see :class:`ProsecutorRisk`); with a person column the classes
    are counted in persons (a person, not a record, is re-identified)."""
    sizes = release.class_people()
    sizes = sizes[sizes > 0]
    released = int(sizes.sum())
    if released == 0:
        return ProsecutorRisk(0.0, 0.0, 0.0, 0.0, threshold)
    risk = 1.0 / sizes
    at_risk = float(sizes[risk > threshold].sum()) / released
    return ProsecutorRisk(
        highest=float(1.0 / sizes.min()),
        average=len(sizes) / released,
        lowest=float(1.0 / sizes.max()),
        records_at_risk=at_risk,
        threshold=threshold,
    )


def sample_uniqueness(table: Table, release: Release) -> float:
    """Share of the released records that are alone in their class (0 when nothing is released); with
    a person column, the share of released persons alone in their class."""
    sizes = release.class_people()
    released = int(sizes.sum())
    return float((sizes == 1).sum()) / released if released else 0.0


def linkage_candidates(table: Table, release: Release) -> np.ndarray:
    """For every distinct QI tuple, the number of released records whose generalized box contains it.

    A class contains a tuple when, for every QI, the tuple's leaf lies below the class's node
    (``hierarchy.maps[level][leaf] == node``). Two vectorized strategies, whichever touches fewer
    (class, tuple) pairs: classes sharing a level vector are joined with all tuples generalized to
    those levels (one pass over the tuples per distinct level vector: full-domain releases have
    one), or every class is checked against the tuples under its most selective node only (an
    inverted index; local recoding with many distinct level vectors).

    A class with CUSTOM values (local recoding) contains a tuple when, for such a QI, the tuple's
    value lies in the class's closed interval (``lo ≤ v ≤ hi``, on the numeric values) or is a
    member of its set — i.e. the class covers the tuple's leaf (which always holds for the
    class's own records). The classes with at most one interval QI go by key and range
    (:func:`anonkit.metrics._linkage.candidates_by_pattern`: bit sets and a difference table, no
    pair enumerated; Stack and Deal's and Anatomy's releases of Adult in 0.05–0.15 CPU-s where the
    pairs cost 2.5–3.5 s), the others by :func:`_candidates_custom`; the counts are the same.
    """
    d = table.distinct
    out = np.zeros(d.size, dtype=np.float64)
    if release.n_classes == 0:
        return out
    sizes = released_sizes(release).astype(np.float64)
    present = sizes > 0
    levels = release.class_levels[present].astype(np.int64)
    nodes = release.class_nodes[present].astype(np.int64)
    sizes = sizes[present]
    if not table.qi:
        out[:] = sizes.sum()
        return out
    if (levels == CUSTOM).any():
        rest = candidates_by_pattern(table, release, np.flatnonzero(present), out)
        if rest.size:
            _candidates_custom(table, release, rest, out)
        return out
    vectors, group = np.unique(levels, axis=0, return_inverse=True)
    group = group.ravel()
    gen: list[np.ndarray] | None = None
    if len(vectors) > 1:
        # gen[j][L, t] = node of tuple t's QI j at level L
        gen = [h.maps[:, d.tuples[:, j]].astype(np.int64) for j, h in enumerate(table.hierarchies)]
        # tuples below each class's node, per QI: the pivot is the QI with the fewest
        below = np.stack(
            [_tuples_below(gen[j], h)[levels[:, j], nodes[:, j]] for j, h in enumerate(table.hierarchies)], axis=1
        )
        pivot = np.argmin(below, axis=1)
        pairs = float(below[np.arange(len(pivot)), pivot].sum())
        if pairs < len(vectors) * d.size:
            # check the most selective QIs first so that most pairs drop out early
            check = np.argsort(below.mean(axis=0), kind="stable")
            _candidates_by_pivot(table, gen, levels, nodes, sizes, pivot, check, out)
            return out
    # (one level vector, as in full-domain releases: the join, with the tuples' nodes at that vector only)
    for g, vec in enumerate(vectors):
        sel = group == g
        n_cls = int(sel.sum())
        cols, radix = [], []
        for j, h in enumerate(table.hierarchies):
            level = int(vec[j])
            at = gen[j][level] if gen is not None else h.maps[level][d.tuples[:, j]]
            cols.append(np.concatenate([nodes[sel, j], at]))
            radix.append(h.size(level))
        ids, m = group_columns(cols, radix)
        box = np.bincount(ids[:n_cls], weights=sizes[sel], minlength=m)
        out += box[ids[n_cls:]]
    return out


def _tuples_below(gen: np.ndarray, h: Hierarchy) -> np.ndarray:
    """``(levels × max nodes)`` number of distinct tuples below each node of one QI."""
    width = max(h.size(level) for level in range(h.height + 1))
    out = np.zeros((h.height + 1, width), dtype=np.int64)
    for level in range(h.height + 1):
        out[level, : h.size(level)] = np.bincount(gen[level], minlength=h.size(level))
    return out


def _candidates_by_pivot(
    table: Table,
    gen: list[np.ndarray],
    levels: np.ndarray,
    nodes: np.ndarray,
    sizes: np.ndarray,
    pivot: np.ndarray,
    check: np.ndarray,
    out: np.ndarray,
    chunk: int = 1 << 22,
) -> None:
    """Add every class's size to the tuples in its box, enumerating the tuples below its pivot node."""
    n_t = out.shape[0]
    flat = [g.ravel() for g in gen]
    for j, h in enumerate(table.hierarchies):
        mine = np.flatnonzero(pivot == j)
        if mine.size == 0:
            continue
        for level in np.unique(levels[mine, j]):
            cls = mine[levels[mine, j] == level]
            codes = gen[j][level]
            order = np.argsort(codes, kind="stable")
            counts = np.bincount(codes, minlength=h.size(int(level)))
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
            lengths = counts[nodes[cls, j]]
            # chunks of classes whose tuple lists together stay below ``chunk`` pairs
            bounds = np.searchsorted(np.cumsum(lengths), np.arange(chunk, int(lengths.sum()) + chunk, chunk))
            lo = 0
            for hi in np.unique(np.minimum(bounds + 1, len(cls))):
                part, lens = cls[lo:hi], lengths[lo:hi]
                lo = hi
                if part.size == 0 or lens.sum() == 0:
                    continue
                owner = np.repeat(part, lens)
                offset = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
                cand = order[np.repeat(starts[nodes[part, j]], lens) + offset]
                for q in check:
                    if q == j:
                        continue
                    # flat[L·T + t] = gen[q][L, t]; keep the pairs whose tuple lies below the node
                    ok = flat[q][levels[owner, q] * n_t + cand] == nodes[owner, q]
                    owner, cand = owner[ok], cand[ok]
                out += np.bincount(cand, weights=sizes[owner], minlength=n_t)


def _blocks_of(order: np.ndarray, keys: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """For tuples sorted by ``order`` of their ``keys`` (ints in ``[0, size)``): where each key's
    tuples start in ``order`` and how many there are."""
    counts = np.bincount(keys, minlength=size)
    return np.concatenate([[0], np.cumsum(counts)[:-1]]), counts


def _candidates_custom(
    table: Table, release: Release, classes: np.ndarray, out: np.ndarray, chunk: int = 1 << 22
) -> None:
    """:func:`linkage_candidates` for a release with CUSTOM values: add every class's size to the
    distinct tuples its box contains.

    Per QI the tuples a class matches are a few blocks of the tuples sorted one way or another:
    below a hierarchy node (one block of the tuples sorted by their node at that level), inside an
    interval (one block of the tuples sorted by value) or on a listed leaf (one block per leaf of
    the tuples sorted by leaf). Each class enumerates the blocks of its most selective QI and checks
    the other QIs pair by pair (in chunks of at most ``chunk`` pairs).
    """
    if classes.size == 0:
        return
    d = table.distinct
    n_t = d.size
    sizes = released_sizes(release).astype(np.float64)
    levels = release.class_levels.astype(np.int64)
    nodes = release.class_nodes.astype(np.int64)
    n_cls = release.n_classes
    leaves = [d.tuples[:, j].astype(np.int64) for j in range(len(table.qi))]
    covered_by_qi: list[Covered | None] = []
    # per QI: the tuple orders (concatenated) and every class's blocks (class, start, length) in them
    index: list[np.ndarray] = []
    blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for j, h in enumerate(table.hierarchies):
        lv = levels[classes, j]
        custom = classes[lv == CUSTOM]
        cov = covered(table, release, j) if custom.size else None
        covered_by_qi.append(cov)
        orders: list[np.ndarray] = []
        b_cls, b_start, b_len = [], [], []
        offset = 0
        for level in np.unique(lv[lv != CUSTOM]):
            cls = classes[lv == level]
            g = h.maps[int(level)][leaves[j]].astype(np.int64)
            orders.append(np.argsort(g, kind="stable"))
            starts, counts = _blocks_of(orders[-1], g, h.size(int(level)))
            b_cls.append(cls)
            b_start.append(offset + starts[nodes[cls, j]])
            b_len.append(counts[nodes[cls, j]])
            offset += n_t
        if cov is not None:
            ranged = custom[cov.stop[custom] > cov.start[custom]]
            if ranged.size:  # tuples sorted by their leaf's rank in value order
                r = cov.rank[leaves[j]]
                orders.append(np.argsort(r, kind="stable"))
                sorted_r = r[orders[-1]]
                lo = np.searchsorted(sorted_r, cov.start[ranged], side="left")
                hi = np.searchsorted(sorted_r, cov.stop[ranged], side="left")
                b_cls.append(ranged)
                b_start.append(offset + lo)
                b_len.append(hi - lo)
                offset += n_t
            p_cls, p_leaf = cov.pairs
            keep = np.isin(p_cls, custom)
            if keep.any():  # tuples sorted by leaf, one block per listed leaf
                orders.append(np.argsort(leaves[j], kind="stable"))
                starts, counts = _blocks_of(orders[-1], leaves[j], h.n_leaves)
                b_cls.append(p_cls[keep])
                b_start.append(offset + starts[p_leaf[keep]])
                b_len.append(counts[p_leaf[keep]])
                offset += n_t
        index.append(np.concatenate(orders) if orders else np.zeros(0, dtype=np.int64))
        blocks.append(tuple(np.concatenate([*x, np.zeros(0)]).astype(np.int64) for x in (b_cls, b_start, b_len)))
    # tuples each class matches per QI; the pivot is the QI with the fewest
    matched = np.stack([np.bincount(c, weights=n, minlength=n_cls) for c, _, n in blocks], axis=1)
    pivot = np.argmin(matched[classes], axis=1)
    pivot_of = np.full(n_cls, -1, dtype=np.int64)
    pivot_of[classes] = pivot
    check = np.argsort(matched[classes].mean(axis=0), kind="stable")

    level_col = [np.ascontiguousarray(levels[:, q]) for q in range(len(table.qi))]
    node_col = [np.ascontiguousarray(nodes[:, q]) for q in range(len(table.qi))]
    all_custom = [bool((level_col[q][classes] == CUSTOM).all()) for q in range(len(table.qi))]

    def inside(q: int, owner: np.ndarray, cand: np.ndarray) -> np.ndarray:
        leaf = leaves[q][cand]
        cov = covered_by_qi[q]
        if cov is not None and all_custom[q]:
            return cov.contains(owner, leaf)
        lv = level_col[q][owner]
        maps = table.hierarchies[q].maps
        if cov is None:
            return maps[lv, leaf] == node_col[q][owner]
        custom = lv == CUSTOM
        ok = maps[np.maximum(lv, 0), leaf] == node_col[q][owner]
        ok[custom] = cov.contains(owner[custom], leaf[custom])
        return ok

    for j in range(len(table.qi)):
        b_cls, b_start, b_len = blocks[j]
        sel = (pivot_of[b_cls] == j) & (b_len > 0)
        b_cls, b_start, b_len = b_cls[sel], b_start[sel], b_len[sel]
        if b_cls.size == 0:
            continue
        ends = np.cumsum(b_len)
        lo = 0
        while lo < len(b_cls):
            base = ends[lo - 1] if lo else 0
            hi = max(int(np.searchsorted(ends, base + chunk, side="right")), lo + 1)
            cls, start, length = b_cls[lo:hi], b_start[lo:hi], b_len[lo:hi]
            lo = hi
            owner = np.repeat(cls, length)
            offset = np.arange(int(length.sum())) - np.repeat(np.cumsum(length) - length, length)
            cand = index[j][np.repeat(start, length) + offset]
            for q in check:
                if q == j:
                    continue
                ok = inside(int(q), owner, cand)
                owner, cand = owner[ok], cand[ok]
            out += np.bincount(cand, weights=sizes[owner], minlength=n_t)


def record_linkage(table: Table, release: Release) -> float:
    """Record linkage RL in percent (spec §2.5, generalized output).

    Every original record ``r`` scores ``1/|C(r)|``, ``C(r)`` = the released records whose
    generalized box contains ``r``'s original QI values, when ``r`` itself is released (its own class
    always contains it) and 0 when it is suppressed; ``RL = 100·Σ score / n``. For a full-domain
    release ``C(r)`` is ``r``'s class, so RL = 100·#classes/n; a k-anonymous release without
    suppression has RL ≤ 100/k.

    Local recodings: ``r`` is a candidate of class ``c`` when, for every QI, its original value
    lies in ``c``'s interval (numeric, ``lo ≤ v ≤ hi``) or set, or below ``c``'s hierarchy node
    (:func:`linkage_candidates`); overlapping boxes (e.g. relaxed Mondrian) lower the score.
    """
    own = _own_class_candidates(table, release)
    if own is not None:
        kept, cand = own
        if not release.n_suppressed:  # every tuple has a released record (kept ≥ 1): the same terms, unmasked
            return 100.0 * float((kept / cand).sum()) / table.n_records
        use = kept > 0
    else:
        kept = tuple_counts(table, ~release.suppressed)
        cand = linkage_candidates(table, release)
        use = (kept > 0) & (cand > 0)
    return 100.0 * float((kept[use] / cand[use]).sum()) / table.n_records


def _own_class_candidates(table: Table, release: Release) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`record_linkage`'s released records per distinct tuple (:func:`tuple_counts`) and, for every
    tuple with a released record, its :func:`linkage_candidates` read off its own class: the size of the
    class of its released records; ``None`` (join the classes and tuples instead) unless ``release`` puts
    every class at one level vector (:func:`~anonkit.metrics.arx.one_level`: full-domain and truthful)
    and no two released classes publish the same nodes.

    Why that is the count: in such a release a released record's class publishes its leaves' ancestors at
    the levels, so a class contains a tuple exactly when the class's nodes are the tuple's ancestors; the
    classes of the tuple's released records contain it, and they are one class, the only one with those
    nodes. Its size is the join's count for the tuple to the bit (one class summed onto 0.0). Tuples
    without a released record get no count: :func:`record_linkage` does not read them. One pass over
    the records (the tuple of each), no pass over the tuples per quasi-identifier."""
    t = one_level(table, release)
    if t is None or not table.qi or release.n_classes == 0:
        return None
    sizes = released_sizes(release).astype(np.float64)
    present = np.flatnonzero(sizes > 0)
    nodes = release.class_nodes[present]
    if group_columns([nodes[:, j].astype(np.int64) for j in range(nodes.shape[1])],
                     [h.size(int(level)) for h, level in zip(table.hierarchies, t, strict=True)])[1] < len(present):
        return None  # two released classes publish the same nodes: each contains the other's tuples
    d = table.distinct
    rc = release.record_class
    if release.n_suppressed:
        kept_rows = rc >= 0
        inverse, rc = d.inverse[kept_rows], rc[kept_rows]
        w = None if table.weights is None else table.weights[kept_rows]
        kept = np.bincount(inverse, weights=w, minlength=d.size).astype(np.float64)  # (as tuple_counts)
    else:  # every record released (weights are whole numbers ≥ 1): a tuple's records are its count
        inverse, kept = d.inverse, d.counts  # (the same bincount of the same rows: Table.distinct)
    own = np.zeros(d.size, dtype=np.int64)
    own[inverse] = rc  # (every released record of a tuple is in one class)
    # (without a suppressed record every tuple has one: kept > 0 everywhere, the class sizes as they are)
    cand = sizes[own] if not release.n_suppressed else np.where(kept > 0, sizes[own], 0.0)
    return kept, cand
