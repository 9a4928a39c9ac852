"""Building a release from a partition of the records (local recoding: Mondrian, clustering,
bucketization).

Given the class of every record, :func:`partition_release` generalizes each class on its own:

* a numeric (or date) quasi-identifier becomes the closed interval ``[min, max]`` of the class's
  values (``Release.class_bounds``) unless ``numeric="hierarchy"`` asks for the hierarchy;
* any other quasi-identifier becomes the lowest common ancestor of the class's values in its
  hierarchy (for an attribute without a hierarchy, the trivial ``{values} → *`` one, so a mixed
  class becomes ``*``), or with ``categorical="set"`` the set ``{a,b}`` of the values when their
  LCA is not a leaf.

Then every class is judged by the models on its statistics; classes that fail are suppressed whole
(never published). ``satisfied`` tells whether the suppressed records stay within
``max_suppression``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

from anonkit._kernels import group_columns
from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, suppression_limit, suppression_verdict
from anonkit.hierarchy import Hierarchy, class_lca
from anonkit.models import Criterion
from anonkit.models.individual_risk import WEIGHT_SOURCE
from anonkit.release import CUSTOM, Release
from anonkit.stats import ClassStats, class_stats, class_stats_for
from anonkit.table import Table


def record_stats(table: Table, record_class: np.ndarray, n_classes: int,
                 models: Sequence[Criterion] | None = None) -> ClassStats:
    """Sizes and sensitive histograms of the classes of a record partition (``-1`` = none); with
    ``models``, only what they declare they need (:func:`anonkit.stats.class_stats_for`).

    Memory (issue 30: Anatomy's memory): the records' classes and codes are read in place when every
    record has a class, and a histogram with more cells than records (a bucketization's many small
    classes) is counted with unit weights, so it is built as floats once rather than as integers and
    then converted (the same counts, exactly)."""
    keep = record_class >= 0
    whole = bool(keep.all())
    cls = record_class if whole else record_class[keep]
    if models is not None:
        ones = None
        pairs = {}
        for a in table.sensitive:
            if ones is None and n_classes * table.domains[a].size > len(cls):
                ones = np.ones(len(cls))
            pairs[a] = (None, table.sensitive_codes[a] if whole else table.sensitive_codes[a][keep],
                        ones if n_classes * table.domains[a].size > len(cls) else None)
        # the records' own sampling weights (individual-risk): a record partition's rows are records
        sources = {} if table.survey_weight is None else {
            WEIGHT_SOURCE: table.survey_weight if whole else table.survey_weight[keep]}
        return class_stats_for(models, cls, n_classes, sensitive=pairs, domains=table.domains, sources=sources)
    idx = np.flatnonzero(keep)
    pairs = {a: (np.arange(len(idx)), table.sensitive_codes[a][idx], None) for a in table.sensitive}
    return class_stats(cls, n_classes, None, pairs, table.domains)


def judge(table: Table, record_class: np.ndarray, n_classes: int, models: list[Criterion]) -> np.ndarray:
    """Which classes satisfy every model that groups by all quasi-identifiers."""
    stats = record_stats(table, record_class, n_classes, [m for m in models if m.qis is None])
    ok = stats.sizes > 0
    for m in models:
        if m.qis is None:
            ok &= m.passes(stats)
    return ok


def _subset_fixpoint(
    table: Table, sizes: np.ndarray, keys: list[np.ndarray], ok: np.ndarray, models: list[Criterion]
) -> np.ndarray:
    """Anonymity requirements on quasi-identifier subsets, judged on the published values: classes
    whose published values agree on the subset form one group; a failing group's classes are
    suppressed, which may shrink other groups, so this repeats until nothing changes."""
    subset = [m for m in models if m.qis is not None]
    ok = ok.copy()
    while subset:
        changed = False
        for m in subset:
            idx = [table.qi.index(q) for q in m.qis or ()]
            if not idx:
                continue
            alive = np.flatnonzero(ok)
            if not alive.size:
                break
            group, n_groups = pd.factorize(pd.MultiIndex.from_arrays([keys[j][alive] for j in idx]))
            bad = ~m.passes(class_stats_for((m,), group, len(n_groups), weights=sizes[alive]))
            if bad.any():
                ok[alive[bad[group]]] = False
                changed = True
        if not changed:
            break
    return ok


def _lca(table: Table, j: int, record_class: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Per class the lowest level where all its values share one node, and that node
    (:func:`anonkit.hierarchy.class_lca` over the records of QI ``j``)."""
    return class_lca(table.hierarchies[j], table.codes[:, j], record_class, n_classes, column=table.qi[j])


def _class_keys(
    hierarchy: Hierarchy,
    levels: np.ndarray,
    nodes: np.ndarray,
    bounds: np.ndarray | None,
    sets: list[np.ndarray] | None,
) -> np.ndarray:
    """An integer per class that is equal exactly when two classes publish the same text: a
    hierarchy node by its label (the same text on two levels is one published value), an interval
    by its bounds (exact ranks, :meth:`Table.exact_bounds <anonkit.table.Table.exact_bounds>`), a
    set by its members."""
    custom = levels == CUSTOM
    n = len(levels)
    label = np.zeros(n, dtype=np.int64)
    node_rows = np.flatnonzero(~custom)
    if node_rows.size:
        text = np.empty(node_rows.size, dtype=object)
        for lv in np.unique(levels[node_rows]):
            sel = levels[node_rows] == lv
            text[sel] = hierarchy.labels[lv][nodes[node_rows[sel]]]
        label[node_rows] = pd.factorize(text)[0]
    first = np.where(custom, -1, label).astype(np.int64)
    second = np.zeros(n)
    third = np.zeros(n)
    if custom.any():
        if bounds is not None:
            second = np.where(custom, bounds[:, 0], second)
            third = np.where(custom, bounds[:, 1], third)
        else:
            ids, _ = pd.factorize(pd.Series([tuple(int(x) for x in (sets or [])[c]) if custom[c] else ()
                                             for c in range(n)], dtype=object))
            second = np.where(custom, ids, second)
    parts = [pd.factorize(x) for x in (first, second, third)]
    codes, _ = group_columns([c for c, _ in parts], [max(len(u), 1) for _, u in parts])
    return codes.astype(np.int64)


def generalize_classes(
    table: Table, record_class: np.ndarray, n_classes: int, numeric: str, categorical: str
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray], dict[str, list[np.ndarray]]]:
    """Per class and quasi-identifier the published value: (level, node), interval or set."""
    d = len(table.qi)
    levels = np.zeros((n_classes, d), dtype=np.int64)
    nodes = np.zeros((n_classes, d), dtype=np.int64)
    bounds: dict[str, np.ndarray] = {}
    sets: dict[str, list[np.ndarray]] = {}
    keep = record_class >= 0
    whole = bool(keep.all())  # then the records' own arrays are read, not copies of them
    for j, name in enumerate(table.qi):
        if name in table.numeric and numeric == "interval":
            vals = table.numeric[name] if whole else table.numeric[name][keep]
            cls = record_class if whole else record_class[keep]
            lo = np.full(n_classes, np.inf)
            hi = np.full(n_classes, -np.inf)
            np.fmin.at(lo, cls, vals)
            np.fmax.at(hi, cls, vals)
            # a class holding a missing value cannot be an interval: its hierarchy LCA covers it
            has_missing = np.zeros(n_classes, dtype=bool)
            has_missing[cls[np.isnan(vals)]] = True
            del cls, vals
            bounds[name] = np.stack([lo, hi], axis=1)
            levels[:, j] = CUSTOM
            if has_missing.any():
                lv, nd = _lca(table, j, record_class, n_classes)
                levels[has_missing, j] = lv[has_missing]
                nodes[has_missing, j] = nd[has_missing]
                bounds[name][has_missing] = np.nan
            continue
        lv, nd = _lca(table, j, record_class, n_classes)
        if categorical == "set":
            frame = pd.DataFrame({"c": record_class[keep], "v": table.codes[keep, j]}).drop_duplicates()
            groups = {c: np.sort(g["v"].to_numpy()) for c, g in frame.groupby("c", sort=True)}
            sets[name] = [groups.get(c, np.zeros(0, dtype=np.int64)) for c in range(n_classes)]
            levels[:, j] = np.where(lv == 0, 0, CUSTOM)
            nodes[:, j] = nd
            if (lv == 0).all():
                del sets[name]
            continue
        levels[:, j] = lv
        nodes[:, j] = nd
    return levels, nodes, bounds, sets


def _first_appearance(record_class: np.ndarray, presuppressed: np.ndarray) -> tuple[np.ndarray, int]:
    """The classes renumbered densely in order of their first record (``−1``: none, and every
    presuppressed record), and their number. Linear: each class's first record by a minimum per class,
    not a sort of the records (issue 30: Anatomy's memory)."""
    rc = np.array(record_class, dtype=np.int64)  # a copy: the caller's array is left alone
    rc[presuppressed] = -1
    pos = np.flatnonzero(rc >= 0)
    if not pos.size:
        return rc, 0
    first = np.full(int(rc.max()) + 1, len(rc), dtype=np.int64)
    np.minimum.at(first, rc[pos], pos)
    present = np.flatnonzero(first < len(rc))
    remap = np.full(len(first), -1, dtype=np.int64)
    remap[present[np.argsort(first[present], kind="stable")]] = np.arange(len(present))
    rc[pos] = remap[rc[pos]]
    return rc, len(present)


def partition_release(
    table: Table,
    record_class: np.ndarray,
    models: list[Criterion],
    *,
    algorithm: str,
    max_suppression: float = DEFAULT_MAX_SUPPRESSION,
    numeric: Literal["interval", "hierarchy"] = "interval",
    categorical: Literal["lca", "set"] = "lca",
    started: float | None = None,
    params: dict | None = None,
    merge_identical: bool = True,
) -> Release:
    """The release of a record partition; see the module docstring.

    Classes that publish identical values are merged (they are one equivalence class to anyone
    reading the release, spec §0.2) unless ``merge_identical`` is false — for bucketizations such
    as Anatomy, whose groups are published by group id, not by their values.
    """
    record_class, n_classes = _first_appearance(record_class, table.presuppressed)
    levels, nodes, bounds, sets = generalize_classes(table, record_class, n_classes, numeric, categorical)
    # an interval is keyed by its records' exact lowest and highest values (Table.exact), not by
    # the floats: two classes whose bounds differ beyond a double's precision publish different text.
    # Only merging and the subset models read the keys (issue 30: Anatomy, unmerged, builds none)
    subset = any(m.qis is not None for m in models)
    keys = [
        _class_keys(table.hierarchies[j], levels[:, j], nodes[:, j],
                    table.exact_bounds(name, record_class, n_classes) if name in bounds else None, sets.get(name))
        for j, name in enumerate(table.qi)
    ] if merge_identical or subset else []
    if n_classes and keys and merge_identical:
        # classes that publish identical values are one equivalence class of the release (spec §0.2)
        merged, m = group_columns(keys, [int(k.max()) + 1 for k in keys])
        if m < n_classes:
            first = np.full(m, -1, dtype=np.int64)
            rev = np.arange(n_classes - 1, -1, -1)
            first[merged[rev]] = rev
            record_class = np.where(record_class >= 0, merged[np.maximum(record_class, 0)], -1)
            levels, nodes = levels[first], nodes[first]
            bounds = {k: v[first] for k, v in bounds.items()}
            sets = {k: [v[i] for i in first] for k, v in sets.items()}
            keys = [k[first] for k in keys]
            n_classes = m
    ok = judge(table, record_class, n_classes, models) if n_classes else np.zeros(0, dtype=bool)
    if n_classes and subset:
        sizes = np.bincount(record_class[record_class >= 0], minlength=n_classes).astype(float)
        ok = _subset_fixpoint(table, sizes, keys, ok, models)
    # suppress failing classes, renumber the survivors; nothing is copied when every class passes
    # (issue 30: Anatomy's million groups, whose levels and nodes alone are 128 MB at 3 M records)
    failed_records = 0
    if n_classes and not ok.all():
        failed_records = int(np.bincount(record_class + 1, minlength=n_classes + 1)[1:][~ok].sum())
        new_id = np.cumsum(ok) - 1
        safe = np.maximum(record_class, 0)
        record_class = np.where((record_class >= 0) & ok[safe], new_id[safe], -1)
        del safe
        levels, nodes = levels[ok], nodes[ok]
        bounds = {k: v[ok] for k, v in bounds.items()}
        sets = {k: [v[i] for i in np.flatnonzero(ok)] for k, v in sets.items()}
    elif not n_classes:
        record_class = np.full(table.n, -1, dtype=np.int64)
    n_classes = int(ok.sum())
    suppressed = int((record_class < 0).sum()) - int(table.presuppressed.sum())
    limit = suppression_limit(max_suppression, table.n)
    satisfied, message = suppression_verdict(suppressed, limit, n_classes)
    rel = Release(
        table,
        record_class,
        levels,
        nodes,
        algorithm,
        transformation=None,
        satisfied=satisfied,
        message=message,
        params=dict(params or {}),
        seconds=time.perf_counter() - started if started is not None else 0.0,
        class_bounds=bounds,
        class_sets=sets,
    )
    rel.failed_records = failed_records
    return rel
