"""The release and the input read once for the anonymeter-style attacks (singling-out, linkability,
inference): each published column's coverage matrix between the *whole* release and the *whole* input,
built once per audit (shared inside a :func:`~anonkit.analytics.cover.shared_reading` block), with
each input value's one covering label.

The attacks used to build a coverage matrix per question: the predicates written from sampled released
rows against the input, random predicates against the input, each side of the linkability attack and
the inference attack against the sampled targets. Where every input value is covered by at most one
released label in each column (full-domain generalization, the common case), the answers follow from
the one reading, on distinct tuples and counts:

* the input records a predicate (a tuple of labels) covers are those whose covering labels equal it
  (:func:`covered_records`), counted per distinct tuple;
* a target is consistent with the one class (distinct tuple of labels) that covers its values
  (:func:`target_classes`), or with none.

These are the per-question covers' answers by construction, with two conditions:

* **at most one label per value** (:attr:`ColumnCover.sole_label`), else a target may be consistent
  with several classes and a record covered by several predicates' tuples;
* for the questions about *sampled targets* (whose coverage matrix was built against the targets'
  own values), reading a subset of the input's values must give each label what it covers of that
  subset against the whole input (:func:`reads_any_subset`). That fails where a column's reading
  depends on its value set: a date column (the day/month order that fits every value), a column
  without a type (numeric when every value looks like a number), a label that is read only as an
  input value (not a hierarchy node, number, interval, mask or free categorical text: without that
  value in the subset it could not be read at all), a set whose separator is chosen by which
  members are values.

Where a condition fails, or a label cannot be read at all (the general path names its first row in
its own error), the functions give ``None`` and the attacks take their general path, unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd

from anonkit._kernels import group_columns, group_pairs
from anonkit.analytics import _cover_shared
from anonkit.analytics._cover_labels import _NUMBER, _STRUCTURED, WILDCARD, Resolver, label_kind
from anonkit.analytics.cover import ColumnCover, _first, column_covers
from anonkit.errors import InputError
from anonkit.schema import AttrType, Schema

__all__ = ["Triples", "attack_columns", "consistent_in", "covered_records", "domain_codes", "reads_any_subset",
           "target_classes", "triples", "use_patterns"]

#: ``(target, group, rows)`` arrays: how many released rows of each group each target is consistent with
Triples = tuple[np.ndarray, np.ndarray, np.ndarray]

#: marks this module's entries among the shared results (the key is the arrays' ids)
_TAG = np.zeros(0)


def attack_columns(release: pd.DataFrame, original: pd.DataFrame, schema: Schema, columns: Sequence[str],
                   quasi: Sequence[str], *, targets: bool = False) -> list[ColumnCover] | None:
    """The :class:`ColumnCover` of each of ``columns`` between the whole ``release`` and the whole
    ``original`` (a quasi-identifier read as generalized cells, any other column by value), made once
    per shared reading; ``None`` when a label of one of them cannot be read, some value has several
    covering labels or, with ``targets`` (the covers are read for a sample of the input's records), a
    column's reading depends on its value set (:func:`reads_any_subset`): the attacks' general path
    then reads them as before."""
    quasi = list(quasi)
    reading = _cover_shared.shared_result([_TAG, release, original, schema],  # type: ignore[list-item]
                                          lambda: _Reading(release, original, schema, quasi))
    out = []
    for name in columns:
        found = reading.column(name, name in quasi)
        if found is None or (targets and not found[1]):
            return None
        out.append(found[0])
    return out


class _Reading:
    """The columns of one release read against one input, each on first use: its cover (when it has
    one label per value) and whether any subset of the input's values reads the same."""

    def __init__(self, release: pd.DataFrame, original: pd.DataFrame, schema: Schema, quasi: list[str]) -> None:
        self.release, self.original, self.schema, self.quasi = release, original, schema, quasi
        self.columns: dict[tuple[str, bool], tuple[ColumnCover, bool] | None] = {}

    def column(self, name: str, generalized: bool) -> tuple[ColumnCover, bool] | None:
        key = (name, generalized)
        if key not in self.columns:
            self.columns[key] = self._read(name, generalized)
        return self.columns[key]

    def _read(self, name: str, generalized: bool) -> tuple[ColumnCover, bool] | None:
        try:
            col = (column_covers(self.release, self.original, self.schema, [name]) if generalized else
                   column_covers(self.release, self.original, self.schema, [], [name]))[0]
        except InputError:
            return None
        if col.sole_label is None:
            return None
        return col, reads_any_subset(col, self.schema, generalized)


def reads_any_subset(col: ColumnCover, schema: Schema, generalized: bool) -> bool:
    """Whether a coverage matrix built against any subset of the column's input values gives each
    label exactly what it covers of that subset here (the module docstring's second condition)."""
    if not generalized:  # matched by text: a label covers the value of the same text, or every value
        return True
    attr = schema.attributes.get(col.name)
    if attr is None or attr.type is None or attr.type == AttrType.DATE:
        return False
    kind = label_kind(schema, col.name, col.values)
    reader: Resolver = _cover_shared.resolver(col.name, col.values, attr.hierarchy, kind, attr.format, Resolver)
    for text in col.labels.tolist():
        if text[:1] == "{":
            return False
        if text == "" or text not in reader.text_pos or text in reader.nodes:
            continue  # read the same way whatever values are there
        if kind == "numeric" and _NUMBER.fullmatch(text):
            continue  # also read as a number: the values equal to it
        if (kind == "categorical" and attr.hierarchy is None and text[:1] not in _STRUCTURED
                and WILDCARD not in text and reader.interval(text) is None):
            continue  # also read as a text no subset value may have: covers nothing
        return False
    return True


def domain_codes(col: ColumnCover) -> np.ndarray:
    """The column's distinct labels in the order they first appear in the release (the order of
    ``pd.unique`` over the released cells' texts): its codes in order, since the factorization numbers
    texts by first appearance (:func:`anonkit._values.factorize_text`) and merging the texts equal once
    stripped keeps that order."""
    return np.arange(col.n_labels, dtype=np.int64)


def covered_records(cols: list[ColumnCover], labels: list[np.ndarray], use: np.ndarray) -> np.ndarray:
    """How many input records each predicate covers: predicate ``i`` names label ``labels[j][i]`` in
    column ``j`` where ``use[i, j]`` (any value elsewhere: ``*``); a record is covered when its one
    covering label equals the predicate's in every used column (a value no label covers: a code of its
    own, which no predicate names). The records and the predicates are grouped together by their labels,
    one column at a time into one key (nothing else record-long is held)."""
    n = len(use)
    out = np.zeros(n, dtype=np.int64)
    if n == 0:
        return out
    n_records = len(cols[0].value_codes)
    patterns, which = use_patterns(use)
    for k, pattern in enumerate(patterns):
        chosen = np.flatnonzero(pattern)
        sel = np.flatnonzero(which == k)

        def columns(chosen: np.ndarray = chosen, sel: np.ndarray = sel) -> Iterator[tuple[np.ndarray, int]]:
            for j in chosen:
                c = cols[j]
                sole = c.sole_label
                assert sole is not None
                label_of_value = np.where(sole >= 0, sole, c.n_labels)  # (per distinct value: small)
                yield np.concatenate([label_of_value[c.value_codes], labels[j][sel]]), c.n_labels + 1

        ids, n_ids = group_pairs(columns())
        out[sel] = np.bincount(ids[:n_records], minlength=n_ids)[ids[n_records:]]
    return out


def use_patterns(use: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of the boolean matrix ``use`` (which columns each predicate names) and the
    pattern of every row: one pattern when every row names every column (the audit's predicates), else
    the rows read as bit masks (``np.unique`` over rows sorts them as records: ~2 ms for 2,000)."""
    n, p = use.shape
    if use.all():
        return np.ones((1, p), dtype=bool), np.zeros(n, dtype=np.int64)
    if p > 62:
        patterns, which = np.unique(use, axis=0, return_inverse=True)
        return patterns, which.reshape(-1)
    keys, which = np.unique(use.astype(np.int64) @ (np.int64(1) << np.arange(p, dtype=np.int64)), return_inverse=True)
    return (keys[:, None] >> np.arange(p, dtype=np.int64)) & 1 == 1, which.reshape(-1)


def target_classes(cols: list[ColumnCover], records: np.ndarray) -> tuple[np.ndarray, int, np.ndarray]:
    """The classes of the release over ``cols`` (a class: a distinct tuple of labels) as ``(class of
    every released row, number of classes, class of every target)``: the target ``records`` (input
    rows) are each consistent with the class of their covering labels (−1: none, when a value has no
    covering label or no released row shows that tuple). The released rows are grouped as the coverage
    matrix groups them (one in-place key); the targets meet the classes' tuples."""
    label_codes = [c.label_codes for c in cols]
    sizes = [c.n_labels for c in cols]
    row_class, n_classes = group_columns(label_codes, sizes)
    first = _first(row_class, n_classes)
    target = [c.sole_label[c.value_codes[records]] for c in cols]  # type: ignore[index]
    ok = np.logical_and.reduce([t >= 0 for t in target])
    codes = [np.concatenate([shown[first], t[ok]]) for shown, t in zip(label_codes, target, strict=True)]
    ids, n_ids = group_columns(codes, sizes)
    class_of = np.full(n_ids, -1, dtype=np.int64)
    class_of[ids[:n_classes]] = np.arange(n_classes)
    classes = np.full(len(records), -1, dtype=np.int64)
    classes[ok] = class_of[ids[n_classes:]]
    return row_class, n_classes, classes


def consistent_in(release: pd.DataFrame, original: pd.DataFrame, records: np.ndarray, schema: Schema,
                  columns: Sequence[str], quasi: Sequence[str], groups: np.ndarray, n_groups: int) -> Triples | None:
    """The attacks' consistent-row triples (``adversary._consistent``) of the targets
    ``original.iloc[records]`` from the one reading of the release and the input: each target is
    consistent with the one class covering its values; ``None`` where that reading does not hold (the
    caller then builds the targets' own coverage matrix)."""
    cols = attack_columns(release, original, schema, columns, quasi, targets=True)
    if cols is None:
        return None
    row_class, n_classes, target_class = target_classes(cols, records)
    rec = np.flatnonzero(target_class >= 0)
    return triples(rec, target_class[rec], row_class, n_classes, groups, n_groups)


def triples(rec: np.ndarray, cls: np.ndarray, row_class: np.ndarray, n_classes: int, groups: np.ndarray,
            n_groups: int) -> Triples:
    """``(target, group, rows)``: how many released rows of each group (``groups``: a group id per
    released row) are in the classes each target is consistent with (the pairs ``rec``, ``cls``: by
    target, then class; ``row_class``: the class of every released row); only the pairs with some row.

    In the order of scipy's sparse product (SMMP: per target, its groups from the last first reached
    to the first, walking the target's classes and each class's groups in ascending order), which the
    attacks' figures depended on when they were computed that way: the inference attack's random
    tie-breaks are drawn in this order."""
    # the released rows of every (class, group), by class then group
    pair_key = row_class.astype(np.int64) * n_groups + np.asarray(groups, dtype=np.int64)
    space = n_classes * n_groups
    if space <= 4 * len(pair_key) + (1 << 16):  # counted over the key space: no sort
        counted = np.bincount(pair_key, minlength=space)
        pair = np.flatnonzero(counted)
        rows = counted[pair]
    else:
        pair, rows = np.unique(pair_key, return_counts=True)
    starts = np.searchsorted(pair // n_groups, np.arange(n_classes + 1))
    # every (target, class) pair through its class's groups, in that order
    first, sizes = starts[cls], starts[cls + 1] - starts[cls]
    owner = np.repeat(np.arange(len(cls)), sizes)
    ends = np.cumsum(sizes)
    at = first[owner] + np.arange(len(owner)) - np.repeat(ends - sizes, sizes)
    if len(owner) and (len(rec) < 2 or bool((rec[1:] > rec[:-1]).all())):
        # one class per target: its groups, each once, are reached in ascending order, so the last
        # reached (the largest) comes first
        order = np.repeat(2 * ends - sizes - 1, sizes) - np.arange(len(owner))
        return rec[owner][order], pair[at][order] % n_groups, rows[at][order].astype(np.float64)
    keys, reached, where = np.unique(rec[owner].astype(np.int64) * n_groups + pair[at] % n_groups,
                                     return_index=True, return_inverse=True)
    total = np.bincount(where.reshape(-1), weights=rows[at].astype(np.float64), minlength=len(keys))
    target, group = keys // n_groups, keys % n_groups
    order = np.lexsort((-reached, target))
    return target[order], group[order], total[order]
