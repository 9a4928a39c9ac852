"""Which released cells are consistent with an original value, for a release made by anyone.

Every linkage attack starts here (spec §2.5, §2.8): an attacker who knows a person's original
values looks for the published rows whose cells *cover* them. A released quasi-identifier cell is
read as one of

* ``*`` — every value (in every column, also the exactly matched ones);
* a node of the attribute's :class:`~anonkit.hierarchy.Hierarchy` (any level) — its leaves; the
  same text naming nodes on several levels covers their union;
* an interval: anonkit's local recoding ``[lo-hi]`` (:meth:`anonkit.release.Release.class_labels`,
  dates as ``YYYY-MM-DD`` or ISO time stamps), ``lo-hi``, ARX's ``[lo, hi[``, ``[lo, hi)``,
  ``(lo, hi]``, ``[lo, hi]``, and ``<x``, ``<=x``, ``>x``, ``>=x``; an interval covers the values
  that are numbers (dates) inside it;
* a set ``{a,b}`` (also ``{a;b}``) — the union of what its members cover;
* a mask with ``*`` standing for one character each (``130**``, ARX's redaction);
* the exact value (numbers compared as numbers, ``39`` covers ``39.0``).

A label none of these explains is an :class:`~anonkit.errors.InputError` naming the column, the
label and its first released row; in a categorical column without a hierarchy any other text is
an exact value (it may cover nothing: the value need not occur in the table it is compared with).

Per column the released labels and the original values are factorized once and related by a
sparse boolean *coverage matrix* (:class:`ColumnCover`, labels × values). :func:`build_cover` then
joins the distinct released label tuples (the release's *classes*) with the distinct original
tuples (with counts) by hashing: each tuple is expanded into the combinations of labels covering
its values in the columns where values have few covering labels (one, in full-domain
generalization) and looked up among the classes; the remaining columns are tested pair by pair.
The work runs in chunks of at most :data:`CHUNK_PAIRS` candidate pairs, so memory stays bounded
however many classes overlap; no matrix over records is ever built.

::

    from anonkit.analytics import build_cover, population_counts, row_covers

    c = build_cover(published, original, schema)     # classes × original tuples
    c.classes_per_record(), c.rows_per_record()      # what each original record is consistent with
    population_counts(published, population, schema) # per released row, the population in its class
    row_covers(published, original, schema, rows=release.published_rows())  # truthfulness
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from anonkit._kernels import group_columns
from anonkit._values import factorize_text
from anonkit.analytics import _cover_shared
from anonkit.analytics._cover_labels import WILDCARD as WILDCARD
from anonkit.analytics._cover_labels import Resolver, label_kind
from anonkit.analytics._cover_shared import lasting_reading as lasting_reading
from anonkit.analytics._cover_shared import shared_reading as shared_reading
from anonkit.analytics._cover_shared import shared_result
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.schema import Schema

if TYPE_CHECKING:
    from scipy import sparse

__all__ = [
    "CHUNK_PAIRS",
    "WILDCARD",
    "ColumnCover",
    "Cover",
    "build_cover",
    "column_cover",
    "column_covers",
    "lasting_reading",
    "population_counts",
    "row_covers",
    "shared_factorize",
    "shared_reading",
    "shared_values",
]

#: the most candidate (tuple, class) pairs tested at once
CHUNK_PAIRS = 1 << 22
#: a coverage matrix at most this large (labels × values) is also kept dense for fast pair tests
_DENSE_CELLS = 1 << 24


# ---------------------------------------------------------------------------------------------------------------------
# one column
# ---------------------------------------------------------------------------------------------------------------------
class ColumnCover:
    """The coverage matrix of one column: which distinct released ``labels`` cover which distinct
    original ``values`` (both canonical text, :func:`anonkit._values.factorize_text`).

    Stored as CSR: label ``a`` covers the values ``indices[indptr[a]:indptr[a + 1]]`` (sorted).
    ``label_codes`` / ``value_codes`` give the label of every released row and the value of every
    original record.
    """

    def __init__(self, name: str, labels: np.ndarray, values: np.ndarray, indptr: np.ndarray, indices: np.ndarray,
                 label_codes: np.ndarray, value_codes: np.ndarray) -> None:
        self.name = name
        self.labels = labels
        self.values = values
        self.indptr = indptr
        self.indices = indices
        self.label_codes = label_codes
        self.value_codes = value_codes

    @property
    def n_labels(self) -> int:
        return len(self.labels)

    @property
    def n_values(self) -> int:
        return len(self.values)

    @cached_property
    def matrix(self) -> sparse.csr_array:
        """The boolean coverage matrix (labels × values), sparse (scipy is loaded here, on first use: the
        verifier imports this module, and ``anonkit anonymize`` needs no sparse matrix)."""
        from scipy import sparse

        data = np.ones(len(self.indices), dtype=bool)
        return sparse.csr_array((data, self.indices, self.indptr), shape=(self.n_labels, self.n_values))

    @cached_property
    def sizes(self) -> np.ndarray:
        """How many distinct values each label covers."""
        return np.diff(self.indptr)

    @cached_property
    def _keys(self) -> np.ndarray:
        owner = np.repeat(np.arange(self.n_labels, dtype=np.int64), self.sizes)
        return owner * max(self.n_values, 1) + self.indices

    @cached_property
    def _dense(self) -> np.ndarray | None:
        if self.n_labels * self.n_values > _DENSE_CELLS:
            return None
        return self.matrix.toarray()

    def covers(self, labels: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Whether label ``labels[i]`` covers value ``values[i]``, for every ``i`` (codes)."""
        labels = np.asarray(labels, dtype=np.int64)
        values = np.asarray(values, dtype=np.int64)
        dense = self._dense
        if dense is not None:
            return dense[labels, values]
        q = labels * max(self.n_values, 1) + values
        keys = self._keys
        pos = np.minimum(np.searchsorted(keys, q), max(len(keys) - 1, 0))
        return keys[pos] == q if len(keys) else np.zeros(len(q), dtype=bool)

    @cached_property
    def by_value(self) -> tuple[np.ndarray, np.ndarray]:
        """The transpose as CSR: the labels covering each value (``indptr``, ``labels``)."""
        counts = np.bincount(self.indices, minlength=self.n_values)
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        owner = np.repeat(np.arange(self.n_labels, dtype=np.int64), self.sizes)
        return indptr, owner[np.argsort(self.indices, kind="stable")]

    @cached_property
    def sole_label(self) -> np.ndarray | None:
        """The one label covering each value (−1: none), or ``None`` when some value has several."""
        indptr, labels = self.by_value
        counts = np.diff(indptr)
        if counts.size and counts.max() > 1:
            return None
        out = np.full(self.n_values, -1, dtype=np.int64)
        out[counts == 1] = labels
        return out


def shared_factorize(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """:func:`anonkit._values.factorize_text` of a column, shared inside :func:`shared_reading` (read-only;
    :mod:`anonkit.analytics._cover_shared` says what is shared and for how long)."""
    return _cover_shared.shared_factorize(values, factorize_text)


def column_cover(
    name: str,
    released: pd.Series | np.ndarray,
    original: pd.Series | np.ndarray,
    *,
    hierarchy: Hierarchy | None = None,
    kind: str = "categorical",
    exact: bool = False,
    format: str | None = None,
) -> ColumnCover:
    """The coverage matrix of column ``name`` between the ``released`` cells and the ``original``
    values.

    ``kind`` (``categorical``, ``numeric``, ``date``) says how numbers and intervals are read;
    ``exact`` matches cells by their text only (published insensitive and sensitive columns; ``*``
    still covers everything); ``format`` is a date column's strftime format (else the day/month order
    that fits every value, as the table reads it).

    Raises
    ------
    InputError
        A label that cannot be interpreted, naming the column, the label and its first released
        row (1-based).
    """
    # a Series goes in as it is: a categorical or Arrow column is factorized from its codes or its
    # buffers (an object copy of a million cells cost seconds, once per attack of an audit)
    label_codes, labels = shared_factorize(_as_series(released))
    value_codes, values = shared_factorize(_as_series(original))
    labels = np.array([str(x).strip() for x in labels], dtype=object)
    values = np.array([str(x).strip() for x in values], dtype=object)
    label_codes, labels = _merge_equal(label_codes, labels)
    value_codes, values = _merge_equal(value_codes, values)
    if exact:
        pos = pd.Index(values, dtype=object).get_indexer(pd.Index(labels, dtype=object))
        parts = [np.arange(len(values), dtype=np.int64) if lab == WILDCARD else
                 (np.array([p], dtype=np.int64) if p >= 0 else np.zeros(0, dtype=np.int64))
                 for lab, p in zip(labels, pos, strict=True)]
    else:
        resolver = _cover_shared.resolver(name, values, hierarchy, kind, format, Resolver)
        parts = []
        for a, text in enumerate(labels):
            found = resolver.resolve(text)
            if found is None:
                row = int(np.flatnonzero(label_codes == a)[0]) + 1
                raise InputError(
                    "cannot interpret the released cell: not a value, hierarchy node, interval, set or mask",
                    column=name, value=text, row=row,
                )
            parts.append(found)
    sizes = np.array([len(p) for p in parts], dtype=np.int64)
    indptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    indices = np.concatenate([*parts, np.zeros(0, dtype=np.int64)]).astype(np.int64)
    return ColumnCover(name, labels, values, indptr, indices, label_codes, value_codes)


def _as_series(values: pd.Series | np.ndarray) -> pd.Series:
    return values if isinstance(values, pd.Series) else pd.Series(np.asarray(values, dtype=object))


def _merge_equal(codes: np.ndarray, texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes and texts with texts that became equal (after stripping) merged."""
    merged, uniques = pd.factorize(texts)
    if len(uniques) == len(texts):
        return codes, texts
    return merged[codes].astype(np.int64), np.asarray(uniques, dtype=object)


# ---------------------------------------------------------------------------------------------------------------------
# classes and tuples
# ---------------------------------------------------------------------------------------------------------------------
@dataclass
class Cover:
    """The released classes each distinct original tuple is consistent with.

    Attributes
    ----------
    columns:
        The matched columns (quasi-identifiers first, then the exactly matched ones).
    cols:
        The :class:`ColumnCover` of every column.
    row_class, class_labels, class_rows:
        The class of every released row (a class is a distinct tuple of released labels), each
        class's label codes (``C × d``) and its number of rows.
    record_tuple, tuples, tuple_counts:
        The distinct original tuple of every original record, each tuple's value codes
        (``T × d``) and its number of records.
    indptr, classes:
        CSR: tuple ``t`` is consistent with the classes ``classes[indptr[t]:indptr[t + 1]]``
        (ascending).
    """

    columns: list[str]
    cols: list[ColumnCover]
    row_class: np.ndarray
    class_labels: np.ndarray
    class_rows: np.ndarray
    record_tuple: np.ndarray
    tuples: np.ndarray
    tuple_counts: np.ndarray
    indptr: np.ndarray
    classes: np.ndarray

    @property
    def n_classes(self) -> int:
        return len(self.class_rows)

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Every consistent (tuple, class) pair as two arrays."""
        return np.repeat(np.arange(len(self.tuple_counts)), np.diff(self.indptr)), self.classes

    def record_classes(self, record: int) -> np.ndarray:
        """The classes original record ``record`` is consistent with."""
        t = int(self.record_tuple[record])
        return self.classes[self.indptr[t]:self.indptr[t + 1]]

    def record_pairs(self, records: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Every (record, class) pair of the original ``records`` (default: all) and the classes
        each is consistent with, as two arrays (records as positions in ``records``)."""
        records = np.arange(len(self.record_tuple)) if records is None else np.asarray(records, dtype=np.int64)
        tup = self.record_tuple[records]
        owner, pos = _expand(self.indptr[tup], np.diff(self.indptr)[tup])
        return owner, self.classes[pos]

    def classes_per_record(self) -> np.ndarray:
        """How many released classes every original record is consistent with."""
        return np.diff(self.indptr)[self.record_tuple]

    def rows_per_record(self) -> np.ndarray:
        """How many released rows every original record is consistent with."""
        t, c = self.pairs()
        per_tuple = np.bincount(t, weights=self.class_rows[c], minlength=len(self.tuple_counts))
        return per_tuple.astype(np.int64)[self.record_tuple]

    def class_records(self) -> np.ndarray:
        """How many original records are consistent with each class (with a population table as
        the original: the population count of the journalist model)."""
        t, c = self.pairs()
        return np.bincount(c, weights=self.tuple_counts[t], minlength=self.n_classes).astype(np.int64)

    def row_covers(self, rows: np.ndarray, records: np.ndarray) -> np.ndarray:
        """Whether released row ``rows[i]`` covers original record ``records[i]``, for every ``i``."""
        rows = np.asarray(rows, dtype=np.int64)
        records = np.asarray(records, dtype=np.int64)
        ok = np.ones(len(rows), dtype=bool)
        for col in self.cols:
            ok &= col.covers(col.label_codes[rows], col.value_codes[records])
        return ok


def _columns(published: pd.DataFrame, original: pd.DataFrame, schema: Schema, columns: Sequence[str] | None,
             exact: Sequence[str]) -> tuple[list[str], list[str]]:
    if columns is None:
        columns = [q for q in schema.quasi if q in published.columns]
    columns, exact = [str(c) for c in columns], [str(c) for c in exact if str(c) not in columns]
    for name in [*columns, *exact]:
        if name not in published.columns:
            raise InputError("column missing from the release", column=name)
        if name not in original.columns:
            raise InputError("column missing from the table compared with the release", column=name)
    return columns, exact


def column_covers(published: pd.DataFrame, original: pd.DataFrame, schema: Schema, columns: Sequence[str],
                  exact: Sequence[str] = ()) -> list[ColumnCover]:
    """The :class:`ColumnCover` of every column in ``columns`` (generalized cells, read with the
    schema's hierarchy and type) and in ``exact`` (matched by value)."""
    columns, exact = _columns(published, original, schema, columns, exact)
    out = []
    for name in columns:
        attr = schema.attributes.get(name)
        values = shared_factorize(original[name])[1]
        out.append(column_cover(name, published[name], original[name],
                                hierarchy=attr.hierarchy if attr is not None else None,
                                kind=label_kind(schema, name, values),
                                format=attr.format if attr is not None else None))
    out.extend(column_cover(name, published[name], original[name], exact=True) for name in exact)
    return out


def _group(codes: list[np.ndarray], sizes: list[int], n: int) -> tuple[np.ndarray, int]:
    if not codes:
        return np.zeros(n, dtype=np.int64), 1 if n else 0
    return group_columns(codes, sizes)


def _first(ids: np.ndarray, k: int) -> np.ndarray:
    first = np.empty(k, dtype=np.int64)
    rev = np.arange(len(ids) - 1, -1, -1)
    first[ids[rev]] = rev
    return first


def _tuples(cols: list[ColumnCover], n_records: int) -> tuple[np.ndarray, int, np.ndarray]:
    """The distinct original tuple of every record, their number and each one's first record."""
    record_tuple, n_tuples = _group([c.value_codes for c in cols], [c.n_values for c in cols], n_records)
    return record_tuple, n_tuples, _first(record_tuple, n_tuples)


def build_cover(
    published: pd.DataFrame,
    original: pd.DataFrame,
    schema: Schema,
    *,
    columns: Sequence[str] | None = None,
    exact: Sequence[str] = (),
) -> Cover:
    """Relate the released rows of ``published`` to the records of ``original``.

    ``columns`` are read as generalized cells (default: the schema's quasi-identifiers the release
    publishes), each with its hierarchy and type from ``schema``; ``exact`` are further published
    columns matched by value (what an attacker also knows: insensitive or sensitive values). A
    released row is consistent with an original record when every cell covers the record's value.

    Raises
    ------
    InputError
        A column missing from either table, or a released cell that cannot be interpreted.
    """
    names, exact_names = _columns(published, original, schema, columns, exact)
    cols = column_covers(published, original, schema, names, exact_names)
    n_rows, n_records = len(published), len(original)
    row_class, n_classes = _group([c.label_codes for c in cols], [c.n_labels for c in cols], n_rows)
    first_row = _first(row_class, n_classes)
    class_labels = np.stack([c.label_codes[first_row] for c in cols], axis=1) if cols else np.zeros((n_classes, 0),
                                                                                                     dtype=np.int64)
    # singling-out groups the whole input twice per audit: once, by the shared factorizations' codes
    codes = [c.value_codes for c in cols]
    record_tuple, n_tuples, first_record = (shared_result(codes, lambda: _tuples(cols, n_records)) if cols
                                            else _tuples(cols, n_records))
    tuples = np.stack([c.value_codes[first_record] for c in cols], axis=1) if cols else np.zeros((n_tuples, 0),
                                                                                                 dtype=np.int64)
    indptr, classes = _join(cols, class_labels.astype(np.int64), tuples.astype(np.int64))
    return Cover(
        columns=[*names, *exact_names],
        cols=cols,
        row_class=row_class,
        class_labels=class_labels,
        class_rows=np.bincount(row_class, minlength=n_classes).astype(np.int64),
        record_tuple=record_tuple,
        tuples=tuples,
        tuple_counts=np.bincount(record_tuple, minlength=n_tuples).astype(np.int64),
        indptr=indptr,
        classes=classes,
    )


def population_counts(
    published: pd.DataFrame,
    population: pd.DataFrame,
    schema: Schema,
    *,
    columns: Sequence[str] | None = None,
) -> np.ndarray:
    """For every released row, how many records of ``population`` are consistent with its class
    (what the journalist model divides by)."""
    c = build_cover(published, population, schema, columns=columns)
    return c.class_records()[c.row_class]


def row_covers(
    published: pd.DataFrame,
    original: pd.DataFrame,
    schema: Schema,
    *,
    rows: np.ndarray | None = None,
    columns: Sequence[str] | None = None,
) -> np.ndarray:
    """Truthfulness: whether released row ``i`` covers original record ``rows[i]`` (default: record
    ``i``), for every released row."""
    names, _ = _columns(published, original, schema, columns, ())
    cols = column_covers(published, original, schema, names)
    records = np.arange(len(published)) if rows is None else np.asarray(rows, dtype=np.int64)
    if len(records) != len(published):
        raise InputError(f"rows must name one original record per released row ({len(published)}), "
                         f"got {len(records)}", key="rows")
    ok = np.ones(len(published), dtype=bool)
    for col in cols:
        ok &= col.covers(col.label_codes, col.value_codes[records])
    return ok


def shared_values(a: ColumnCover, b: ColumnCover, la: np.ndarray, lb: np.ndarray) -> np.ndarray:
    """How many values both ``a.labels[la[i]]`` and ``b.labels[lb[i]]`` cover, for every ``i``: two
    releases' cells of one column intersected (``a`` and ``b`` built against the same original)."""
    if not np.array_equal(a.values, b.values):
        raise ValueError(f"the covers of {a.name!r} were built against different original values")
    la, lb = np.asarray(la, dtype=np.int64), np.asarray(lb, dtype=np.int64)
    radix = np.int64(max(b.n_labels, 1))
    pair_id, uniq = pd.factorize(la * radix + lb)
    ua, ub = uniq // radix, uniq % radix
    counts = np.zeros(len(uniq), dtype=np.int64)
    width = np.int64(max(a.n_values, 1))
    for span in _spans(a.sizes[ua] + b.sizes[ub], CHUNK_PAIRS):
        idx = np.arange(span.start, span.stop, dtype=np.int64)
        own_a, pos_a = _expand(a.indptr[ua[idx]], a.sizes[ua[idx]])
        own_b, pos_b = _expand(b.indptr[ub[idx]], b.sizes[ub[idx]])
        keys = np.sort(np.concatenate([idx[own_a] * width + a.indices[pos_a], idx[own_b] * width + b.indices[pos_b]]))
        both = keys[1:][keys[1:] == keys[:-1]]
        counts += np.bincount(both // width, minlength=len(uniq))
    return counts[pair_id]


# ---------------------------------------------------------------------------------------------------------------------
# the join
# ---------------------------------------------------------------------------------------------------------------------
def _expand(starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For segments ``[starts[i], starts[i] + lengths[i])``: the owner ``i`` and position of every item."""
    total = int(lengths.sum())
    owner = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    if total == 0:
        return owner, np.zeros(0, dtype=np.int64)
    offsets = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return owner, np.repeat(starts, lengths) + offsets


def _spans(weights: np.ndarray, limit: int) -> Iterator[slice]:
    """Consecutive slices of ``weights`` whose sums stay within ``limit`` (a heavier item alone)."""
    n = len(weights)
    start = 0
    cum = np.cumsum(weights)
    while start < n:
        base = cum[start - 1] if start else 0
        stop = int(np.searchsorted(cum, base + limit, side="right"))
        stop = max(stop, start + 1)
        yield slice(start, stop)
        start = stop


def _join(cols: list[ColumnCover], class_labels: np.ndarray, tuples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR (``indptr`` over tuples, classes) of the consistent (tuple, class) pairs.

    A hash join on *key* columns: every tuple is expanded into the combinations of the labels
    covering its values in those columns (one combination where each value has one covering label,
    as in full-domain generalization) and looked up among the classes' label combinations; the
    other columns are then tested pair by pair. Key columns are taken by increasing number of
    covering labels per value while the expansion stays within ``max(4 T, CHUNK_PAIRS)``.
    """
    n_tuples, n_classes = len(tuples), len(class_labels)
    if not cols or n_classes == 0 or n_tuples == 0:
        each = n_classes if not cols else 0
        indptr = np.arange(n_tuples + 1, dtype=np.int64) * each
        return indptr, np.tile(np.arange(each, dtype=np.int64), n_tuples)
    fan = [np.diff(c.by_value[0])[tuples[:, j]] for j, c in enumerate(cols)]
    budget = max(4 * n_tuples, CHUNK_PAIRS)
    key_cols: list[int] = []
    product = np.ones(n_tuples, dtype=np.float64)
    radix = 1
    for j in sorted(range(len(cols)), key=lambda j: float(fan[j].mean())):
        grown = product * fan[j]
        width = max(cols[j].n_labels, 1)
        if key_cols and (grown.sum() > budget or radix * width >= 2**62):
            continue
        key_cols.append(j)
        product, radix = grown, radix * width
    rest = [j for j in range(len(cols)) if j not in key_cols]
    c_key = np.zeros(n_classes, dtype=np.int64)
    for j in key_cols:
        c_key = c_key * max(cols[j].n_labels, 1) + class_labels[:, j]
    c_order = np.argsort(c_key, kind="stable")
    u_key, u_start, u_count = np.unique(c_key[c_order], return_index=True, return_counts=True)
    out_t: list[np.ndarray] = []
    out_c: list[np.ndarray] = []
    for span in _spans(product.astype(np.int64), CHUNK_PAIRS):
        t_of = np.arange(span.start, span.stop, dtype=np.int64)
        key = np.zeros(len(t_of), dtype=np.int64)
        for j in key_cols:
            v_ptr, v_labels = cols[j].by_value
            owner, pos = _expand(v_ptr[tuples[t_of, j]], fan[j][t_of])
            t_of, key = t_of[owner], key[owner] * max(cols[j].n_labels, 1) + v_labels[pos]
        at = np.minimum(np.searchsorted(u_key, key), len(u_key) - 1)
        found = u_key[at] == key
        t_of, at = t_of[found], at[found]
        n_cls = u_count[at]
        for inner in _spans(n_cls, CHUNK_PAIRS):
            own, where = _expand(u_start[at[inner]], n_cls[inner])
            t_pair = t_of[inner][own]
            c_pair = c_order[where]
            for j in rest:
                ok = cols[j].covers(class_labels[c_pair, j], tuples[t_pair, j])
                t_pair, c_pair = t_pair[ok], c_pair[ok]
            out_t.append(t_pair)
            out_c.append(c_pair)
    t_all = np.concatenate([*out_t, np.zeros(0, dtype=np.int64)])
    c_all = np.concatenate([*out_c, np.zeros(0, dtype=np.int64)])
    order = np.lexsort((c_all, t_all))
    t_all, c_all = t_all[order], c_all[order]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(t_all, minlength=n_tuples))]).astype(np.int64)
    return indptr, c_all
