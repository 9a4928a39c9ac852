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
from anonkit.hierarchy.lca import depth_first_order
from anonkit.models import Criterion
from anonkit.models.individual_risk import WEIGHT_SOURCE
from anonkit.release import CUSTOM, Release
from anonkit.stats import ClassStats, class_stats, class_stats_for
from anonkit.table import Table

#: the highest hierarchy (in levels) whose class levels are held as int8, and the most nodes on one
#: level whose class nodes are held as int32 (:func:`class_dtypes`); both leave headroom below the
#: type's limit so that a reader's ``+ 1`` cannot wrap
LEVEL_INT8_MAX = 100
NODE_INT32_MAX = 2**30


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
    """Per class the lowest level where all its values share one node, and that node: what
    :func:`anonkit.hierarchy.class_lca` gives over the records of QI ``j``, computed in less memory.

    The leaves of a class share a node at a level exactly when its first and last leaf in the
    hierarchy's depth-first order do (the leaves below a node are one run of that order), so per class
    only those two ranks are kept (int32), and the levels are tried one at a time over the classes
    (issue 30: Anatomy's memory; ``class_lca`` holds int64 copies of the records' codes and classes
    and a levels × classes table of nodes, about 200 MB at a million classes, the release's peak).
    A class whose leaves share no node (a hierarchy with several top values) and partial partitions
    go to ``class_lca``, which names the value at fault."""
    h = table.hierarchies[j]
    if n_classes == 0 or h.n_leaves >= NODE_INT32_MAX or not bool((record_class >= 0).all()):
        return class_lca(h, table.codes[:, j], record_class, n_classes, column=table.qi[j])
    order = depth_first_order(h).astype(np.int32)
    rank = np.empty(h.n_leaves, dtype=np.int32)
    rank[order] = np.arange(h.n_leaves, dtype=np.int32)
    r = rank[table.codes[:, j]]
    first = np.full(n_classes, h.n_leaves, dtype=np.int32)
    last = np.full(n_classes, -1, dtype=np.int32)
    np.minimum.at(first, record_class, r)
    np.maximum.at(last, record_class, r)
    del r
    empty = last < 0
    a = order[np.where(empty, 0, first)]
    del first
    b = order[np.where(empty, 0, last)]
    del last
    level = np.full(n_classes, -1, dtype=np.int64)
    for lv in range(h.height, -1, -1):  # lowest level last: it wins
        level[h.maps[lv][a] == h.maps[lv][b]] = lv
    if (level[~empty] < 0).any():  # no common ancestor: class_lca raises naming the value
        return class_lca(h, table.codes[:, j], record_class, n_classes, column=table.qi[j])
    node = h.maps[np.maximum(level, 0), a].astype(np.int64)
    level[empty] = 0
    node[empty] = 0
    return level, node


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


def class_dtypes(hierarchies: Sequence[Hierarchy]) -> tuple[np.dtype, np.dtype]:
    """The narrowest integer types that hold every class's level and node: levels (and
    :data:`~anonkit.release.CUSTOM`, −1) as int8 unless a hierarchy is higher than
    :data:`LEVEL_INT8_MAX` levels (then int16), nodes as int32 unless a level has more than
    :data:`NODE_INT32_MAX` nodes (then int64).

    Why (issue 30: Anatomy's memory): a million groups × 8 quasi-identifiers held as int64 levels
    and nodes were 128 MB, the largest part of what a bucketization's release keeps besides its
    published tables; as int8/int32 they are 40 MB. Every reader indexes with them or compares them
    (those that do arithmetic cast to int64 first). The headroom (a level at most 100 though int8
    holds 127) keeps ``level + 1`` and the like exact in a reader that forgets to cast."""
    height = max((len(h.labels) for h in hierarchies), default=1)
    width = max((len(lab) for h in hierarchies for lab in h.labels), default=1)
    levels = np.dtype(np.int8 if height <= LEVEL_INT8_MAX else np.int16 if height <= 2**14 else np.int64)
    nodes = np.dtype(np.int32) if width <= NODE_INT32_MAX else np.dtype(np.int64)
    return levels, nodes


def generalize_classes(
    table: Table, record_class: np.ndarray, n_classes: int, numeric: str, categorical: str
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray], dict[str, list[np.ndarray]]]:
    """Per class and quasi-identifier the published value: (level, node), interval or set."""
    d = len(table.qi)
    level_dtype, node_dtype = class_dtypes(table.hierarchies)
    levels = np.zeros((n_classes, d), dtype=level_dtype)
    nodes = np.zeros((n_classes, d), dtype=node_dtype)
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


def _first_appearance(record_class: np.ndarray, presuppressed: np.ndarray, *,
                      in_place: bool = False) -> tuple[np.ndarray, int]:
    """The classes renumbered densely in order of their first record (``−1``: none, and every
    presuppressed record), and their number. Linear: each class's first record by a minimum per class,
    not a sort of the records (issue 30: Anatomy's memory). The caller's array is left alone unless
    ``in_place`` (and it is int64): then it is renumbered itself and returned."""
    own = in_place and isinstance(record_class, np.ndarray) and record_class.dtype == np.int64
    rc = record_class if own else np.array(record_class, dtype=np.int64)  # else a copy
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
    own_classes: bool = False,
) -> Release:
    """The release of a record partition; see the module docstring.

    ``own_classes``: the caller hands ``record_class`` over (an int64 array it no longer reads), and
    it is renumbered in place instead of copied (issue 30: Anatomy's memory, 24 MB at 3 M records).

    Classes that publish identical values are merged (they are one equivalence class to anyone
    reading the release, spec §0.2) unless ``merge_identical`` is false — for bucketizations such
    as Anatomy, whose groups are published by group id, not by their values.
    """
    record_class, n_classes = _first_appearance(record_class, table.presuppressed, in_place=own_classes)
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
