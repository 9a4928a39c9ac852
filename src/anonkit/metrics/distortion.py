"""Distortion of the released values: weighted hierarchical distance (WHD, spec §2.3) and the
modification rate (spec §2.4).

WHD charges every record the (weighted) share of its hierarchy's steps its values were generalized
by, an interval or set of a local recoding at the level of the lowest common ancestor of the
leaves it covers (:func:`~anonkit.metrics.coverage.hierarchy_class_levels`); the modification rate
counts the QI cells whose published text differs from the original.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from anonkit._values import factorize_labels
from anonkit.errors import InputError
from anonkit.metrics.arx import leaf_tally, one_level
from anonkit.metrics.classes import released_sizes
from anonkit.metrics.coverage import hierarchy_class_levels
from anonkit.release import Release, measured_once
from anonkit.table import Table

#: WHD step weights (spec §2.3): ``uniform`` steps, or ``height`` steps of ``1/(j−1)^β``
WHDWeights = Literal["uniform", "height"]
DEFAULT_WHD_WEIGHTS: WHDWeights = "uniform"
DEFAULT_WHD_BETA = 1.0


def whd_step_weights(
    height: int, weights: WHDWeights = DEFAULT_WHD_WEIGHTS, beta: float = DEFAULT_WHD_BETA
) -> np.ndarray:
    """Weight of every generalization step ``ℓ → ℓ+1`` (anonkit levels, 0 = leaves) of a hierarchy.

    Spec §2.3 numbers levels from the root (root = 1, leaves = h = height + 1); the step from its
    level ``j`` to ``j − 1`` is our step ``ℓ = h − j``. ``uniform``: 1; ``height``: ``1/(j−1)^β``,
    i.e. ``1/(height − ℓ)^β`` (steps near the root cost more).
    """
    if weights == "uniform":
        return np.ones(height, dtype=np.float64)
    if weights == "height":
        if beta < 1:
            raise InputError(f"beta must be at least 1, got {beta!r}", key="beta")
        return 1.0 / np.power(np.arange(height, 0, -1, dtype=np.float64), beta)
    raise InputError(f"unknown WHD weights {weights!r}; allowed: uniform, height", key="weights")


def whd_cost(
    height: int,
    from_level: int,
    to_level: int,
    *,
    weights: WHDWeights = DEFAULT_WHD_WEIGHTS,
    beta: float = DEFAULT_WHD_BETA,
) -> float:
    """WHD of generalizing from ``from_level`` to ``to_level`` (anonkit levels, 0 = leaves)."""
    if not 0 <= from_level <= to_level <= height:
        raise InputError(
            "levels must satisfy 0 ≤ from_level ≤ to_level ≤ height",
            key="from_level" if not 0 <= from_level <= height else "to_level",
        )
    if height == 0:
        return 0.0
    w = whd_step_weights(height, weights, beta)
    return float(w[from_level:to_level].sum() / w.sum())


@dataclass(frozen=True)
class WHDResult:
    """Total distortion (Σ over input records of the tuple WHD) and its average per record."""

    total: float
    average: float


def whd(
    table: Table,
    release: Release,
    *,
    weights: WHDWeights = DEFAULT_WHD_WEIGHTS,
    beta: float = DEFAULT_WHD_BETA,
) -> WHDResult:
    """Weighted hierarchical distance (spec §2.3).

    Tuple WHD = average over the QIs of the WHD from the leaf to the released node; a suppressed
    record is fully generalized (WHD 1 per QI). Returns the sum over the input records and the
    average per record.

    A CUSTOM value (interval or set) is treated as generalized to the level of the lowest common
    ancestor of the leaves it covers (:func:`~anonkit.metrics.coverage.hierarchy_class_levels`):
    WHD is defined on hierarchy levels only, and that is the level a hierarchy would need to
    publish the value. (With the trivial ``{values} → *`` hierarchy any interval or set of two or
    more values costs 1.)
    """
    d = len(table.qi)
    if d == 0:
        return WHDResult(0.0, 0.0)
    sizes = released_sizes(release).astype(np.float64)
    per_class = np.zeros(release.n_classes, dtype=np.float64)
    class_levels = hierarchy_class_levels(table, release)[0]
    for j, h in enumerate(table.hierarchies):
        if h.height == 0:
            continue
        w = whd_step_weights(h.height, weights, beta)
        cost = np.concatenate([[0.0], np.cumsum(w)]) / w.sum()
        per_class += cost[class_levels[:, j]]
    total = float(sizes @ (per_class / d)) + release.n_suppressed * 1.0
    return WHDResult(total, total / table.n_records)


def published_texts(table: Table, release: Release, j: int) -> tuple[np.ndarray, np.ndarray, int]:
    """QI ``j``'s published labels as text ids: the id of every class's label
    (:meth:`Release.class_labels`), the distinct texts, and the released records whose label differs
    from their original text. Compared as ids of the classes' labels and of the leaves (each looked
    up once), not as text per record. Computed once per summary (:func:`~anonkit.release.measuring`):
    the modification rate and the summary's generalization both read it (:func:`published_figures`);
    this gives copies of its own."""
    text_id, texts, changed, _ = published_figures(table, release, j)
    return text_id.copy(), texts.copy(), changed


def published_figures(table: Table, release: Release, j: int) -> tuple[np.ndarray, np.ndarray, int, np.ndarray | None]:
    """:func:`published_texts` of QI ``j`` (read-only, not copied) and the text id every leaf is published
    as (:func:`leaf_published_text` of those text ids; None where the release is not at one level), both
    computed once per summary (:func:`~anonkit.release.measured_once`): the modification rate and the
    summary's generalization read the same figures of the same release instead of each deriving them."""
    return measured_once(("published_texts", j), (table, release), lambda: _published_texts(table, release, j))


def _published_texts(table: Table, release: Release, j: int) -> tuple[np.ndarray, np.ndarray, int, np.ndarray | None]:
    h = table.hierarchies[j]
    text_id, texts = factorize_labels(release.class_labels(j).astype(object))  # (labels are text)
    texts = np.asarray(texts, dtype=object)
    leaf_text = np.full(h.n_leaves, -1, dtype=np.int64)  # −1: a leaf no class publishes
    leaf = h.leaf_codes(texts)
    leaf_text[leaf[leaf >= 0]] = np.flatnonzero(leaf >= 0)
    shown = leaf_published_text(table, release, j, text_id)
    for x in (text_id, texts, shown):  # shared read-only (published_texts gives copies)
        if x is not None:
            x.flags.writeable = False
    if shown is not None:  # every record released at one level: counted per leaf, not per record
        a = released_leaves(table, release, j)
        changed = int(a[shown != leaf_text].sum())  # (whole numbers: exact)
        return text_id, texts, changed, shown
    rc = release.record_class
    if release.n_suppressed == 0:
        differs = text_id[rc] != leaf_text[table.codes[:, j]]
        w = table.weights
    else:
        kept = rc >= 0
        differs = text_id[rc[kept]] != leaf_text[table.codes[kept, j]]
        w = None if table.weights is None else table.weights[kept]
    changed = int(np.count_nonzero(differs)) if w is None else int(w[differs].sum())
    return text_id, texts, changed, shown


def released_leaves(table: Table, release: Release, j: int) -> np.ndarray:
    """Released records per leaf of QI ``j`` (weighted; floats holding whole numbers), once per
    summary: :func:`~anonkit.metrics.arx.leaf_tally` less the suppressed records' leaves."""
    if release.n_suppressed == 0:
        return leaf_tally(table, j)[0]

    def count() -> np.ndarray:  # every record's leaves less the suppressed ones' (few: a pass over them only)
        out = leaf_tally(table, j)[0].copy()
        sup = suppressed_records(release)
        w = None if table.weights is None else table.weights[sup]
        out -= np.bincount(table.codes[sup, j], weights=w, minlength=len(out))  # (whole numbers: exact)
        return out

    return measured_once(("released_leaves", j), (table, release), count)


def suppressed_records(release: Release) -> np.ndarray:
    """The suppressed records' rows, once per summary."""
    return measured_once(("suppressed_records",), (release,), lambda: np.flatnonzero(release.record_class < 0))


def leaf_published_text(table: Table, release: Release, j: int, text_id: np.ndarray) -> np.ndarray | None:
    """The text id (``text_id``: one per class) every leaf of QI ``j`` is published as, when that is
    a function of the leaf: a full-domain release that puts every class at the transformation's
    level (a released record's class publishes its leaf's ancestor at that level). Leaves no released
    record holds may get −1 (they weigh nothing: :func:`released_leaves`). None for any other
    release: read record by record."""
    t = one_level(table, release)
    if t is None or release.n_classes == 0:
        return None
    h = table.hierarchies[j]
    level = int(t[j])
    node_text = np.full(h.size(level), -1, dtype=np.int64)
    node_text[release.class_nodes[:, j]] = text_id
    return node_text[h.maps[level]]


def modification_rate(table: Table, release: Release) -> float:
    """Share of QI cells whose released label differs from the original text (spec §2.4); every
    cell of a suppressed record counts as modified.

    A CUSTOM value is compared by its published label (:meth:`Release.class_labels`): ``[lo-hi]``
    and ``{a,b}`` always differ from a single value, a one-value interval (``lo == hi``) or
    one-member set is published as the value itself and counts as modified only if that text
    differs from the original's (e.g. ``25`` for an original ``25.0``, or a date interval, whose
    bounds are published as numbers). Rows that stand for several records (:attr:`Table.weights`)
    count as many cells.
    """
    d = len(table.qi)
    if d == 0:
        return 0.0
    modified = release.n_suppressed * d + sum(published_figures(table, release, j)[2] for j in range(d))
    return modified / (table.n_records * d)
