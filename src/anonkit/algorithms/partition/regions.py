"""The population inside the region a class publishes: k-map and δ-presence under local recoding.

A full-domain class is a set of distinct tuples, so its population is a sum per tuple (the additive
need :data:`~anonkit.models.population.POPULATION_NEED`). A class of local recoding publishes a
*region* instead — per quasi-identifier the closed interval ``[min, max]`` of its records' values
(numeric and date QIs) or the lowest common ancestor of its values in the hierarchy — and what an
adversary (and the verifier, :mod:`anonkit._verify_population`) counts is every population record
inside that region, whichever class its own record went to. Regions of different classes may
overlap (relaxed Mondrian, clusters) and leave gaps; counts over them do not add up.

**The published region is the tight box of the released records**, not the cut region Mondrian
carved: that is what :func:`~anonkit.algorithms.local.partition_release` prints and the verifier
reads back, so the search counts exactly that. A tight box lies inside its parent's, so a child of a
cut covers at most its parent's population: k-map can fail where the parent passed, and a cut is
allowed only when every child's box still covers ``k`` population records (and keeps δ ≤ dmax).

:class:`PopulationRegions` holds the population as its distinct tuples with their counts (the
table's :attr:`~anonkit.table.Table.sources`, every population tuple a distinct tuple of the table
after :func:`~anonkit.models.population.attach_population`) and counts the records inside a batch of
regions in chunks of at most :data:`CHUNK_CELLS` (region, tuple) tests: O(regions × population
tuples × QIs) work, bounded memory, never a records × records matrix.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from anonkit._values import parse_dates, parse_numeric
from anonkit.algorithms.partition.core import Extra
from anonkit.algorithms.partition.encoding import Encoding
from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.models.population import POPULATION_NEED, POPULATION_SOURCE
from anonkit.release import CUSTOM, Release
from anonkit.schema import AttrType
from anonkit.table import Table

#: the most (region, population tuple) tests held in memory at once
CHUNK_CELLS = 1 << 22


def population_models(models: Sequence[Criterion]) -> list[Criterion]:
    """The models of ``models`` that count the population (k-map, δ-presence)."""
    return [m for m in models if POPULATION_NEED in m.spec.needs]


class PopulationRegions:
    """The population of ``table`` as distinct tuples (leaf codes, numeric values) with counts."""

    def __init__(self, table: Table) -> None:
        counts = table.sources.get(POPULATION_SOURCE)
        if counts is None:
            raise InputError("k-map and δ-presence need the population: give input.subset", key="input.subset")
        counts = np.asarray(counts, dtype=np.float64)
        keep = counts > 0
        self.tuples = np.asarray(table.distinct.tuples, dtype=np.int64).reshape(len(counts), -1)[keep]
        self.weights = counts[keep]
        self.total = float(self.weights.sum())
        self.numeric = [q in table.numeric for q in table.qi]
        self.values: list[np.ndarray | None] = []
        self.maps: list[np.ndarray] = []
        for j, h in enumerate(table.hierarchies):
            # the hierarchy's levels and one more: the virtual root (node 0) above a top with several nodes
            self.maps.append(np.vstack([h.maps, np.zeros((1, h.n_leaves), dtype=h.maps.dtype)]).astype(np.int64))
            self.values.append(leaf_values(table, j)[self.tuples[:, j]] if self.numeric[j] else None)

    def count(self, lo: np.ndarray, hi: np.ndarray, level: np.ndarray, node: np.ndarray) -> np.ndarray:
        """The population records inside every region (one row per region, one column per QI):
        QI ``j`` of region ``c`` is the interval ``[lo, hi]`` where ``lo[c, j]`` is a number, else the
        hierarchy node ``node[c, j]`` on level ``level[c, j]`` (a level above the top: everything)."""
        n = len(lo)
        out = np.zeros(n)
        if n == 0 or len(self.weights) == 0:
            return out
        step = max(1, CHUNK_CELLS // len(self.weights))
        for start in range(0, n, step):
            sl = slice(start, min(n, start + step))
            inside = np.ones((sl.stop - sl.start, len(self.weights)), dtype=bool)
            for j, maps in enumerate(self.maps):
                is_interval = ~np.isnan(lo[sl, j])
                lv = np.minimum(level[sl, j], len(maps) - 1)
                nd = np.where(level[sl, j] >= len(maps) - 1, 0, node[sl, j])
                test = maps[np.maximum(lv, 0)[:, None], self.tuples[None, :, j]] == nd[:, None]
                if is_interval.any():
                    v = self.values[j]
                    if v is None:
                        raise ValueError(f"an interval on the categorical quasi-identifier {j}")
                    with np.errstate(invalid="ignore"):
                        within = (lo[sl, j, None] <= v[None, :]) & (v[None, :] <= hi[sl, j, None])
                    test = np.where(is_interval[:, None], within, test)
                inside &= test
            out[sl] = inside.astype(np.float64) @ self.weights
        return out


def leaf_values(table: Table, j: int) -> np.ndarray:
    """The number (a date: days since 1970) of every leaf of numeric QI ``j``, read from the leaf's
    text as the table reads its cells (NaN for the missing value's leaf)."""
    name = table.qi[j]
    labels = pd.Series(np.asarray(table.hierarchies[j].labels[0], dtype=object).astype(str))
    attr = table.schema[name]
    if attr.type == AttrType.DATE:
        return parse_dates(labels, name, attr.format)
    return parse_numeric(labels, name)


def release_regions(table: Table, rel: Release) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(lo, hi, level, node)`` (classes × QIs) of the regions the classes of ``rel`` publish."""
    c, d = rel.n_classes, len(table.qi)
    lo, hi = np.full((c, d), np.nan), np.full((c, d), np.nan)
    level = np.asarray(rel.class_levels, dtype=np.int64).reshape(c, d).copy()
    node = np.asarray(rel.class_nodes, dtype=np.int64).reshape(c, d)
    for j, name in enumerate(table.qi):
        custom = level[:, j] == CUSTOM
        if not custom.any():
            continue
        if name not in rel.class_bounds or name in rel.centroids:
            raise InputError("the population can only be counted over published intervals and hierarchy nodes "
                             f"(not sets or centroids) of {name}", column=name, key="algorithm")
        lo[custom, j] = rel.class_bounds[name][custom, 0]
        hi[custom, j] = rel.class_bounds[name][custom, 1]
        level[custom, j] = 0
    return lo, hi, level, node


def judge_population(table: Table, rel: Release, models: Sequence[Criterion]) -> np.ndarray:
    """Which classes of ``rel`` satisfy the population ``models``, counted over their regions."""
    from anonkit.stats import ClassStats

    counts = PopulationRegions(table).count(*release_regions(table, rel))
    stats = ClassStats(rel.class_sizes().astype(np.float64), {}, table.domains, extra={POPULATION_NEED: counts})
    ok = np.ones(rel.n_classes, dtype=bool)
    for m in models:
        ok &= m.passes(stats)
    return ok


# ---------------------------------------------------------------------------------------- Mondrian
def check_countable(table: Table, rows: np.ndarray | None) -> None:
    """Refuse a numeric QI with a missing value among ``rows`` (default: all): a class holding one
    publishes the hierarchy's node instead of an interval, which Mondrian's code matrix (value
    ranks) cannot bound, so the population of its region could not be counted while cutting."""
    for name, values in table.numeric.items():
        v = values if rows is None else values[rows]
        if np.isnan(v).any():
            raise InputError("the population of a Mondrian class cannot be counted over a numeric quasi-identifier "
                             "with missing values: fill them, or declare the column categorical", column=name,
                             key="algorithm")


def mondrian_population(table: Table, enc: Encoding) -> tuple[Extra, Callable[[np.ndarray], dict[str, np.ndarray]]]:
    """The population inside the tight box of every child of a proposed cut (an :data:`Extra` for
    :func:`~anonkit.algorithms.partition.core.model_accept`), and of the whole table from its code
    matrix (for :func:`~anonkit.algorithms.partition.core.table_passes`)."""
    regions = PopulationRegions(table)

    def children(X: np.ndarray, ps: np.ndarray, pe: np.ndarray, coff: np.ndarray, nchild: np.ndarray,
                 lab: np.ndarray) -> dict[str, np.ndarray]:
        lengths = (pe - ps).astype(np.int64)
        owner = np.repeat(np.arange(len(ps), dtype=np.int64), lengths)
        rows = np.repeat(ps, lengths) + (np.arange(int(lengths.sum()), dtype=np.int64)
                                          - np.repeat(np.cumsum(lengths) - lengths, lengths))
        cid = coff[owner] + lab[rows]
        return {POPULATION_NEED: regions.count(*_boxes(enc, X, rows, cid, int(nchild.sum())))}

    def root(X: np.ndarray) -> dict[str, np.ndarray]:
        n = X.shape[1]
        rows = np.arange(n, dtype=np.int64)
        return {POPULATION_NEED: regions.count(*_boxes(enc, X, rows, np.zeros(n, dtype=np.int64), 1))}

    return children, root


def _boxes(enc: Encoding, X: np.ndarray, rows: np.ndarray, cid: np.ndarray,
           n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(lo, hi, level, node)`` of the tight box of the rows of every child (``cid``: the child of
    ``rows[i]``): numeric QIs the values of the lowest and highest rank, categorical ones the lowest
    common ancestor of the first and last leaf in depth-first order (the hierarchy's node ids)."""
    d = enc.d
    lo, hi = np.full((n, d), np.nan), np.full((n, d), np.nan)
    level, node = np.zeros((n, d), dtype=np.int64), np.zeros((n, d), dtype=np.int64)
    for j in range(d):
        col = X[j, rows].astype(np.int64)
        first = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
        last = np.full(n, -1, dtype=np.int64)
        np.minimum.at(first, cid, col)
        np.maximum.at(last, cid, col)
        if enc.kinds[j] == 0:
            lo[:, j], hi[:, j] = enc.values[j][first], enc.values[j][last]
            continue
        M = enc.levels(j)
        lv = np.argmax(M[:, first] == M[:, last], axis=0)  # the virtual root always meets
        level[:, j] = lv
        node[:, j] = M[lv, first]
    return lo, hi, level, node


def enforce_on_release(table: Table, record_class: np.ndarray, rel: Release, models: Sequence[Criterion],
                       build: Callable[[np.ndarray], Release]) -> Release:
    """``rel`` (built by ``build(record_class)`` without the population ``models``) with every class
    that fails them suppressed whole: the classes that fail are found on ``rel``'s published
    regions (:func:`judge_population`) and the release is built again without their records, which
    changes no other class's region. ``failed_records`` counts them."""
    if not models or rel.n_classes == 0:
        return rel
    ok = judge_population(table, rel, models)
    if ok.all():
        return rel
    failed = np.isin(rel.record_class, np.flatnonzero(~ok))
    rc = np.where(failed, -1, np.asarray(record_class, dtype=np.int64))
    out = build(rc)
    out.failed_records += int(failed.sum())
    return out


def explain_population(table: Table, models: list[Criterion], release: Release,
                       options: Mapping[str, object]) -> str | None:
    """Why a local recoding's release fails its population models, in one line (the algorithm's
    ``explain=``; ``None`` without such a model): the region of all records in one class fails, or
    how many records would have to be suppressed."""
    counted = population_models(models)
    if not counted:
        return None
    from anonkit.algorithms.local import partition_release

    one = np.where(table.presuppressed, -1, 0).astype(np.int64)
    whole = partition_release(table, one, [], algorithm=release.algorithm, max_suppression=1.0)
    failing = [m for m in counted if whole.n_classes and not bool(judge_population(table, whole, [m])[0])]
    if failing:
        names = " and ".join(m.describe() for m in failing)
        return f"even all records in one class fail {names}: relax the models (no grouping can meet them)"
    needed = release.n_suppressed - int(table.presuppressed.sum())
    share = options.get("max_suppression", release.params.get("max_suppression"))
    least = f"{np.ceil(10_000 * needed / table.n_records) / 10_000:g}" if table.n_records else "0"
    return (f"{needed:,} records would have to be suppressed (max_suppression {share}) for "
            f"{' and '.join(m.describe() for m in counted)}: raise algorithm.max_suppression to at least {least} "
            "or relax the models")
