"""The :class:`Release`: what an algorithm returns.

For every input record its class id (``-1`` = suppressed); for every class the generalized node of
each quasi-identifier, as ``(level, code)`` into that attribute's hierarchy. Full-domain results
also carry the ``transformation`` (quasi-identifier → level).

Local recodings (Mondrian, clustering) may generalize a quasi-identifier beyond its hierarchy: a
numeric attribute to a data-driven interval (``class_bounds[name]``, one ``[lo, hi]`` row per
class) or a categorical one without a useful hierarchy to a set of values (``class_sets[name]``,
the leaf codes per class). For such an attribute ``class_levels[:, j]`` is :data:`CUSTOM` (−1)
and ``class_nodes`` is unused.

The published frame is produced by :meth:`Release.to_frame`: identifiers are already gone (the
:class:`~anonkit.table.Table` drops them), quasi-identifiers replaced by their generalized labels,
suppressed records dropped or marked ``*``, rows shuffled with the seed so two releases cannot be
joined by position. The shuffle of every row is kept by the number of rows, the seed and the index type (a
function of those alone) for the last :data:`SHUFFLES_KEPT` of them, tables of up to 1 M rows (4 MB each).
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeVar

import numpy as np
import pandas as pd

from anonkit._kernels import CHUNK_ROWS, first_rows, gather, group_columns
from anonkit.errors import InputError
from anonkit.stats import tuple_rows, tuples_in_first_appearance
from anonkit.table import Table

SUPPRESSED = "*"
#: the largest seed anonkit takes: numpy's generators accept any non-negative integer; this keeps it
#: a 64-bit signed integer (JSON, SQL)
MAX_SEED = 2**63 - 1


def check_seed(seed: object) -> int:
    """``seed`` as an int; an :class:`~anonkit.errors.InputError` unless it is a whole number in
    ``[0, MAX_SEED]``."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= int(seed) <= MAX_SEED:
        raise InputError(f"the seed must be a whole number from 0 to {MAX_SEED}", key="seed", value=seed)
    return int(seed)
#: ``class_levels`` marker of a QI generalized to an interval or a set rather than a hierarchy node
CUSTOM = -1

#: :meth:`Release.counted` measures a table of at most this many rows as it is when its distinct
#: tuples are more than half its rows (grouping would cost more than it saves; memory is no concern)
MEASURE_ROWS_UP_TO = 100_000


@dataclass(frozen=True)
class ColumnMakers:
    """How :meth:`Release.to_frame` makes its columns inside :func:`making_columns`: ``text(labels, index,
    table, name)`` gives ``pd.Series(labels).array.take(index)`` (the quasi-identifier ``name``'s class labels,
    all ``str``, at its rows' classes; a negative index counted from the end), ``taken(column, rows, table,
    name)`` gives ``column.array.take(rows)`` (the sensitive column ``name`` of ``table``'s frame at the
    published rows). The runner hands in the verifier's own (:func:`anonkit._verify_rows.text_column`,
    ``taken_column``), which keep what they made for that verification; the values are the same either way."""

    text: Callable[[np.ndarray, np.ndarray, Table, str], Any]
    taken: Callable[[pd.Series, np.ndarray, Table, str], Any]


#: the column makers of the runner's publishing (:func:`making_columns`); ``None``: pandas' own takes
_MAKERS: ContextVar[ColumnMakers | None] = ContextVar("anonkit_column_makers", default=None)


@contextmanager
def making_columns(makers: ColumnMakers) -> Iterator[None]:
    """A block in which :meth:`Release.to_frame` makes its columns with ``makers`` (:class:`ColumnMakers`)."""
    token = _MAKERS.set(makers)
    try:
        yield
    finally:
        _MAKERS.reset(token)


#: :meth:`Release.published_rows` keeps the shuffle of all the rows of a table of up to this many rows, by the
#: number of rows, the seed and the index type, for the last :data:`SHUFFLES_KEPT` of them (4 MB each at most)
SHUFFLES_KEPT_UP_TO = 1_000_000
SHUFFLES_KEPT = 4
_SHUFFLES: OrderedDict[tuple[int, int, str], np.ndarray] = OrderedDict()
_SHUFFLES_LOCK = threading.Lock()


def clear_shuffles() -> None:
    """Forgets the kept shuffles (:func:`_every_row`; test isolation, the memory they hold)."""
    with _SHUFFLES_LOCK:
        _SHUFFLES.clear()


_T = TypeVar("_T")
#: the figures computed once while one summary is measured (:func:`measuring`), by key; ``None``
#: outside such a scope, where every figure is computed afresh
_MEASURED: ContextVar[dict[tuple, tuple[tuple, Any]] | None] = ContextVar("anonkit_measured", default=None)


@contextmanager
def measuring() -> Iterator[None]:
    """A scope in which the figures several measures share (a release's class sizes, a quasi-identifier's
    published texts, the entropy's sums) are computed once (:func:`measured_once`). The summary's
    measures read one release that nothing changes while they run; outside the scope (an algorithm
    that changes its release between reads) nothing is kept. Nested scopes share the outer one's figures."""
    token = _MEASURED.set({}) if _MEASURED.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            _MEASURED.reset(token)


def measured_once(key: tuple, owners: tuple, compute: Callable[[], _T]) -> _T:
    """``compute()``, once per ``key`` and ``owners`` (the objects it reads, matched by identity and
    kept alive with the figure, so that an id is never reused for another object) inside
    :func:`measuring`; afresh outside it."""
    memo = _MEASURED.get()
    if memo is None:
        return compute()
    k = (*key, *map(id, owners))
    hit = memo.get(k)
    if hit is None:
        hit = memo[k] = (owners, compute())
    return hit[1]


@dataclass
class SearchStats:
    """What a full-domain search found and did (ARX reports the same): the ``score`` of the chosen
    transformation under the search metric (a vector for the ``rank`` aggregate), the lattice's
    ``counts`` (``nodes``, ``checked``, ``scored``, ``pruned`` — nodes left unclassified because the
    metric's lower bound shows they cannot be optimal — and the nodes per status), and, when the lattice
    was too large for an optimal search, the ``fallback`` note. ``lattice`` and ``status`` are the
    classified lattice (node ids and the status of every node), ``traversal_status`` the
    classification by the monotonic models alone (when not every model is monotonic), for
    inspection and tests."""

    score: float | list[float]
    counts: dict[str, int]
    fallback: str | None = None
    lattice: Any = None
    status: np.ndarray | None = None
    traversal_status: np.ndarray | None = None


@dataclass
class BKClusters:
    """What a background-knowledge algorithm did (spec §4.1–4.3): the number of ``clusters`` of
    people whose priors lie within J, the ``cluster_of`` every record (−1: none), the guarantee it
    enforced (``test``), the largest class divergence (``divergence``) and the records suppressed
    because their class broke J (``failed_records``)."""

    clusters: int | None = None
    cluster_of: np.ndarray | None = None
    test: str | None = None
    divergence: float | None = None
    failed_records: int = 0


@dataclass
class Release:
    """The result of an anonymization.

    Attributes
    ----------
    table:
        The encoded input.
    record_class:
        Class id of every input record, ``-1`` where the record is suppressed.
    class_levels, class_nodes:
        ``(C × d)`` arrays: the hierarchy level and node code of QI ``j`` in class ``c``.
    transformation:
        For full-domain generalization, quasi-identifier → level (input column order).
    satisfied:
        Whether the models hold within the suppression limit.
    search:
        Full-domain searches: the score and the lattice's counts (:class:`SearchStats`).
    bk:
        Background-knowledge algorithms: the clusters and the guarantee (:class:`BKClusters`).
    tables:
        Algorithms that publish several linked tables (Anatomy): each by name (``qit``, ``st``).
    record_group:
        The algorithm's group of every record before classes publishing the same values were merged
        (−1: none), where the algorithm groups records (MDAV, Anatomy, the BK algorithms).
    failed_records:
        Records in classes the models failed (suppressed whole), local recodings.
    sensitive_histogram:
        What the release publishes about each class's sensitive values when that differs from the
        class's own records (``(C × m)`` expected counts over the sensitive domain): angelization's
        ST (representatives, history, noise), the generalized transactions of (k,l)-diversity for
        1:M data. ``None``: each class publishes its records' own values.
    manifest:
        Private: which published rows are fakes (noise records), never published; the pipeline
        writes it beside the output as ``NAME.fakes.csv``.
    notes:
        Further facts an algorithm reports about its run (merges, passes, the path of Datafly…), by
        name; each algorithm's docstring lists its own.
    """

    table: Table
    record_class: np.ndarray
    class_levels: np.ndarray
    class_nodes: np.ndarray
    algorithm: str
    transformation: dict[str, int] | None = None
    satisfied: bool = True
    message: str = ""
    params: dict = field(default_factory=dict)
    seconds: float = 0.0
    search: SearchStats | None = None
    bk: BKClusters = field(default_factory=BKClusters)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    record_group: np.ndarray | None = None
    failed_records: int = 0
    notes: dict[str, Any] = field(default_factory=dict)
    sensitive_histogram: np.ndarray | None = None
    manifest: pd.DataFrame | None = None
    class_bounds: dict[str, np.ndarray] = field(default_factory=dict)
    class_sets: dict[str, list[np.ndarray]] = field(default_factory=dict)
    #: quasi-identifiers whose ``class_bounds`` hold every class's mean (MDAV's centroids), not the
    #: ``[min, max]`` of its records: a class whose records differ publishes the mean as a number
    centroids: frozenset[str] = frozenset()
    #: whether every released record's class publishes, at each quasi-identifier, an ancestor of the
    #: record's own leaf (truthful generalization). Releases that publish other values (perturbation,
    #: synthesis) say False, so measures never read them leaf by leaf (:func:`anonkit.metrics.arx.one_level`)
    truthful: ClassVar[bool] = True

    # ------------------------------------------------------------------ facts
    @property
    def n_classes(self) -> int:
        return int(self.class_levels.shape[0])

    @property
    def suppressed(self) -> np.ndarray:
        """Boolean mask of suppressed input records."""
        return self.record_class < 0

    @property
    def n_suppressed(self) -> int:
        """Suppressed records (rows weighted by the records they stand for, :attr:`Table.weights`)."""
        return measured_once(("n_suppressed",), (self, self.table), self._n_suppressed)

    def _n_suppressed(self) -> int:
        w = self.table.weights
        return int(self.suppressed.sum()) if w is None else int(w[self.suppressed].sum())

    @property
    def n_released(self) -> int:
        return self.table.n_records - self.n_suppressed

    def class_sizes(self) -> np.ndarray:
        """Records per class (released classes only)."""
        return measured_once(("class_sizes",), (self, self.table), self._class_sizes).copy()

    def _class_sizes(self) -> np.ndarray:
        """:meth:`class_sizes`' count (``Table.class_people``'s without a person column); a release that suppresses
        no record (every class id ≥ 0, one pass to see it) is counted without selecting its kept records first:
        they are all of them, in the same order, so ``bincount`` sums the same terms in the same order."""
        rc = self.record_class
        w = self.table.weights
        if len(rc) and rc.min() >= 0:
            return (np.bincount(rc, minlength=self.n_classes) if w is None
                    else np.bincount(rc, weights=w, minlength=self.n_classes).astype(np.int64))
        if w is not None:
            keep = rc >= 0
            return np.bincount(rc[keep], weights=w[keep], minlength=self.n_classes).astype(np.int64)
        return np.bincount(rc[rc >= 0], minlength=self.n_classes)

    def class_people(self) -> np.ndarray:
        """Persons per class (released classes only): distinct persons with a person column (data
        with several records per person), else :meth:`class_sizes`. What k, uniqueness and risk
        count."""
        return measured_once(("class_people",), (self, self.table),
                             lambda: self.table.class_people(self.record_class, self.n_classes)).copy()

    def counted(self) -> Release:
        """This release over its table's distinct (class, quasi-identifier tuple, sensitive values)
        rows, each weighted by its records (:meth:`Table.counted_rows`), in order of first
        appearance: every measure of :mod:`anonkit.metrics` gives the same value on it (sums over the
        same terms in the same order), from arrays as long as the distinct rows, not the records.
        The release itself when there is a person column (classes count persons), and on a small table
        (:data:`MEASURE_ROWS_UP_TO` rows) whose distinct quasi-identifier tuples, or whose counted rows,
        are more than half its rows, its tuples numbered in order of first appearance (as the counted
        release numbers them, so that the sums over tuples run in the same order), where grouping the
        rows costs more than measuring them (Adult's ARX configurations: 4–5 ms to count, none saved)."""
        t = self.table
        if t.person is not None:
            return self
        d = t.distinct
        small = t.n <= MEASURE_ROWS_UP_TO and tuples_in_first_appearance(t)
        if small and 2 * d.size > t.n:
            # at most half the rows less: counting them costs more than it saves the measures (the tuples
            # in order of first appearance, as the counted release's are: every sum runs in one order)
            return self
        if small and 2 * tuple_rows(t) > t.n:
            # the rule below without grouping the records: the distinct (class, tuple, sensitive values) rows are
            # at least the table's distinct (tuple, sensitive values) rows, counted once for the table
            return self
        # the distinct tuples already keep records suppressed up front apart (Table.distinct), and a
        # numeric or date value is a function of its leaf code: the tuple determines both
        cols = [self.record_class, t.distinct.inverse, *t.sensitive_codes.values()]  # class −1 → 0
        sizes = [self.n_classes + 1, t.distinct.size, *[t.domains[s].size for s in t.sensitive_codes]]
        group, m = group_columns(cols, sizes, shift_first=1)
        if m == t.n:
            return self
        if small and 2 * m > t.n:
            # the same rule on the counted rows (tuples × sensitive values: KLT on Adult, 30,162 → 19,502
            # rows; counting them cost 4 ms, measuring the records 1 ms less than measuring the rows)
            return self
        first = first_rows(group, m)
        order = np.argsort(first, kind="stable")  # first appearance
        weights = np.bincount(group, weights=t.weights, minlength=m).astype(np.int64)[order]
        rows = first[order]
        counted = dataclasses.replace(self, table=t.counted_rows(rows, weights), record_class=self.record_class[rows],
                                      record_group=None if self.record_group is None else self.record_group[rows])
        return counted

    def record_levels(self) -> np.ndarray:
        """``(n × d)`` level of every record's QIs; rows of suppressed records are the hierarchy heights."""
        heights = np.array(self.table.heights, dtype=np.int64)
        out = np.broadcast_to(heights, (self.table.n, len(heights))).copy()
        kept = self.record_class >= 0
        out[kept] = self.class_levels[self.record_class[kept]]
        return out

    # ------------------------------------------------------------------ output
    def generalized(self) -> pd.DataFrame:
        """The generalized QI labels of every input record (``*`` where suppressed), input order."""
        t = self.table
        rc = self.record_class
        kept = rc >= 0
        data = {}
        for j, name in enumerate(t.qi):
            col = np.full(t.n, SUPPRESSED, dtype=object)
            class_label = self.class_labels(j)
            col[kept] = class_label[rc[kept]]
            data[name] = col
        return pd.DataFrame(data)

    def class_labels(self, j: int) -> np.ndarray:
        """The published label of QI ``j`` for every class: a hierarchy node's label, an interval
        ``[lo-hi]`` (the value itself when ``lo == hi``), or a set ``{a,b}``."""
        t = self.table
        h = t.hierarchies[j]
        name = t.qi[j]
        out = np.empty(self.n_classes, dtype=object)
        levels = self.class_levels[:, j]
        if len(levels) and levels[0] != CUSTOM and (levels == levels[0]).all():
            # one hierarchy level in every class (a full-domain release): the loop below in one step
            out[:] = h.labels[levels[0]][self.class_nodes[:, j]]
            return out
        for level in np.unique(levels):
            sel = levels == level
            if level == CUSTOM:
                continue
            out[sel] = h.labels[level][self.class_nodes[sel, j]]
        custom = np.flatnonzero(levels == CUSTOM)
        if custom.size and name in self.class_bounds:
            # the bounds as the texts of the class's records' own lowest and highest value
            # (Table.exact), so the interval covers every record exactly; a mean as a number
            exact = t.exact(name) if name in t.numeric else None
            ranks = t.exact_bounds(name, self.record_class, self.n_classes) if exact is not None else None
            date = t.schema[name].type == "date"
            mean = name in self.centroids
            for c in custom:
                if ranks is not None and ranks[c, 0] >= 0 and (not mean or ranks[c, 0] == ranks[c, 1]):
                    a, b = exact.texts[ranks[c, 0]], exact.texts[ranks[c, 1]]  # type: ignore[union-attr]
                    out[c] = a if a == b else f"[{a}-{b}]"
                    continue
                lo, hi = self.class_bounds[name][c]
                out[c] = bounds_label(lo, hi, date=date)
        elif custom.size and name in self.class_sets:
            for c in custom:
                members = [str(h.labels[0][x]) for x in self.class_sets[name][c]]
                out[c] = members[0] if len(members) == 1 else "{" + ",".join(members) + "}"
        elif custom.size:
            raise ValueError(f"class levels mark {name!r} as custom but no bounds or sets are given")
        return out

    def published_rows(self, *, suppressed: Literal["drop", "mark"] = "drop", seed: int = 0) -> np.ndarray:
        """The input row (index into ``table``'s records) of every row of :meth:`to_frame` with the
        same arguments, in published order.

        This is the link from the release back to the input that record-level models need: the
        background-knowledge model (spec §1.7) is judged from the priors of the records of each
        class, so :func:`anonkit.verifier.verify` takes ``rows=release.published_rows(...)``. It is
        private to the publisher — the shuffle exists so the published rows cannot be joined to the
        input by position.
        """
        if suppressed not in ("drop", "mark"):
            raise InputError(f"suppressed must be 'drop' or 'mark', got {suppressed!r}", key="suppressed")
        seed = check_seed(seed)
        index = np.int32 if self.table.n < 2**31 else np.int64  # int32: half the memory, the same shuffle
        kept = self.record_class >= 0 if suppressed == "drop" else None
        n_kept = self.table.n if kept is None else int(np.count_nonzero(kept))
        if n_kept == self.table.n and self.table.n <= SHUFFLES_KEPT_UP_TO:  # every row, as marking publishes them
            return _every_row(self.table, seed, index).copy()  # (the shuffle of its number of rows)
        if kept is None or n_kept == self.table.n:
            rows = np.arange(self.table.n, dtype=index)
        else:  # the kept rows' indices, a chunk at a time (no n-long int64 array)
            rows = np.empty(n_kept, dtype=index)
            at = 0
            for start in range(0, self.table.n, CHUNK_ROWS):
                part = np.flatnonzero(kept[start:start + CHUNK_ROWS]) + start
                rows[at:at + len(part)] = part
                at += len(part)
        np.random.default_rng(seed).shuffle(rows)  # in place: what permutation(rows) does to its copy
        return rows

    def to_frame(self, *, suppressed: Literal["drop", "mark"] = "drop", seed: int = 0) -> pd.DataFrame:
        """The published table: QIs generalized, suppressed rows dropped or marked, rows shuffled
        (row ``i`` is input record ``published_rows(...)[i]``)."""
        rows = self.published_rows(suppressed=suppressed, seed=seed)
        frame = self.table.frame
        if len(frame.columns) and all(isinstance(t, pd.CategoricalDtype) for t in frame.dtypes):
            return self._categorical_frame(rows)
        # the published rows only; a quasi-identifier's labels taken per row from its classes' labels
        # (``*`` last, for class −1): what generalized() gives, without a label per input record
        rc = self.record_class[rows]
        qi = {name: j for j, name in enumerate(self.table.qi)}
        makers = _MAKERS.get()
        data: dict[str, object] = {}
        for name in frame.columns:
            j = qi.get(name)
            if j is None:  # the other columns: only the published rows, in their own dtype
                column = frame[name]  # (as a Series of its dtype: pandas would infer text from objects)
                taken = (makers.taken(column, rows, self.table, name)  # (the runner's: kept for the verifier)
                         if makers is not None and name in self.table.sensitive_codes else take_rows(column, rows))
                data[name] = (taken if isinstance(taken, pd.arrays.ArrowStringArray) and taken.dtype == column.dtype
                              else pd.Series(taken, dtype=column.dtype, copy=False))  # (pandas' text as it is)
                continue
            labels = np.append(self.class_labels(j).astype(object), np.array([SUPPRESSED], dtype=object))
            if all(isinstance(v, str) for v in labels):  # the dtype pandas infers for text: made once, from the labels
                data[name] = (pd.Series(labels).array.take(rc) if makers is None  # (the runner's: kept for the
                              else makers.text(labels, rc, self.table, name))  # verifier, held for the next call)
            else:
                data[name] = labels[rc]
        return pd.DataFrame(data, index=pd.RangeIndex(len(rows)), columns=frame.columns, copy=False)

    def _categorical_frame(self, rows: np.ndarray) -> pd.DataFrame:
        """:meth:`to_frame` of a table whose columns are all categorical (the compact frames of
        :mod:`anonkit.io.batches`): the same values, every column categorical — a quasi-identifier's
        codes index its published labels (``*`` for suppressed records) — so that no cell becomes a
        Python object. Writing it (:func:`anonkit.io.write_table`) gives the bytes of the dense frame."""
        t = self.table
        # the published rows' classes, in int32 (half the memory)
        rc = gather(self.record_class, rows, np.int32 if self.n_classes < 2**31 else np.int64)
        data: dict[str, pd.Categorical] = {}
        for name in t.frame.columns:
            if name not in t.qi:
                cat = t.frame[name].array
                codes = np.asarray(cat.codes)
                data[name] = pd.Categorical.from_codes(gather(codes, rows, codes.dtype), dtype=cat.dtype,
                                                       validate=False)
                continue
            codes, labels = pd.factorize(self.class_labels(t.qi.index(name)).astype(object))
            labels = list(labels)
            if SUPPRESSED not in labels:
                labels.append(SUPPRESSED)
            lut = np.append(codes, labels.index(SUPPRESSED))  # class −1 (suppressed) → "*"
            small = np.int8 if len(labels) < 128 else np.int16 if len(labels) < 2**15 else np.int32
            labels = np.array(labels, dtype=object)  # the dtype pandas gives these labels in a column (str: pandas 3)
            categories = pd.CategoricalDtype(pd.Index(labels, dtype=pd.Series(labels).dtype))
            data[name] = pd.Categorical.from_codes(gather(lut.astype(small), rc, small), dtype=categories,
                                                   validate=False)
        return pd.DataFrame(data, columns=t.frame.columns, copy=False)  # (a dict is copied by default)


#: :func:`take_rows` writes the published cells of an object column of up to this many rows to their places
SCATTERED_UP_TO = 1_000_000


def take_rows(column: pd.Series, rows: np.ndarray) -> Any:
    """``column.array.take(rows)`` (``rows`` in ``[0, len(column))``), the same values. An ``object`` column
    held by numpy whose ``rows`` repeat none (the published rows: each input row at most once) is put together
    the other way round: every cell that is published is written to its place (the position of its row in
    ``rows``), the cells read in input order. Every cell's object is touched either way (a reference taken),
    and in input order those of a freshly read column lie one after the other in memory, where ``rows``
    (shuffled) would jump between them (30,162 text cells: 0.37 ms against 0.95). Why it is the same array:
    ``pos[rows[i]] = i`` for every ``i``, so ``out[i]`` is the cell of row ``rows[i]``; when ``rows`` repeats a
    row, fewer than ``len(rows)`` rows have a place and the take is made instead. A column of more than
    :data:`SCATTERED_UP_TO` rows is taken (the places, 4 bytes a row, and the writes, spread over a large array)."""
    values = column.array
    if not (column.dtype == object and isinstance(values, pd.arrays.NumpyExtensionArray)
            and len(values) <= SCATTERED_UP_TO):
        return values.take(rows)
    cells = values.to_numpy()
    pos = np.full(len(cells), -1, dtype=np.int32)
    pos[rows] = np.arange(len(rows), dtype=np.int32)
    published = pos >= 0
    if np.count_nonzero(published) != len(rows):
        return values.take(rows)
    out = np.empty(len(rows), dtype=object)
    if len(rows) == len(cells):  # every row: ``pos`` is the inverse of the permutation
        out[pos] = cells
    else:
        out[pos[published]] = cells[published]
    return pd.arrays.NumpyExtensionArray(out)


def _every_row(table: Table, seed: int, index: type) -> np.ndarray:
    """Every row of ``table`` (``0 … n−1``) shuffled by ``seed``, as :meth:`Release.published_rows` shuffles
    them (read-only): a function of the number of rows, the seed and the index type alone, so it is kept by
    those three values for the process (:data:`_SHUFFLES`: the last :data:`SHUFFLES_KEPT` of them, tables of
    at most :data:`SHUFFLES_KEPT_UP_TO` rows): the releases of one table, and of a new table of as many rows
    (a new frame of the same input), shuffle their rows once."""
    key = (table.n, seed, np.dtype(index).str)
    with _SHUFFLES_LOCK:
        rows = _SHUFFLES.get(key)
        if rows is not None:
            _SHUFFLES.move_to_end(key)
            return rows
    rows = np.arange(table.n, dtype=index)
    np.random.default_rng(seed).shuffle(rows)
    rows.flags.writeable = False
    with _SHUFFLES_LOCK:
        _SHUFFLES[key] = rows
        while len(_SHUFFLES) > SHUFFLES_KEPT:
            _SHUFFLES.popitem(last=False)
    return rows


def bounds_label(lo: float, hi: float, *, date: bool) -> str:
    """A class's numeric (or, with ``date``, date) bounds as published: the value itself when
    ``lo == hi``, else the closed interval ``[lo-hi]`` (:func:`_number`, :func:`_date`). Mondrian on
    Spark labels its classes with it too, so both engines print a bound alike."""
    fmt = _date if date else _number
    return fmt(lo) if lo == hi else f"[{fmt(lo)}-{fmt(hi)}]"


def _number(x: float) -> str:
    """A bound as text: whole numbers without a decimal point, others in their shortest form."""
    x = float(x)
    return str(int(x)) if x.is_integer() else repr(x)


def _date(days: float) -> str:
    """A date bound (days since 1970-01-01) as an ISO date (with the time when it has one)."""
    stamp = pd.Timestamp("1970-01-01") + pd.to_timedelta(float(days), unit="D")
    return stamp.strftime("%Y-%m-%d") if stamp == stamp.normalize() else stamp.isoformat()


def nothing_released(table: Table, algorithm: str, message: str, *, params: dict | None = None,
                     seconds: float = 0.0) -> Release:
    """A release that publishes nothing (every record suppressed, no class), unsatisfied, with the
    ``message`` saying why."""
    d = len(table.qi)
    empty = np.zeros((0, d), dtype=np.int64)
    return Release(table, np.full(table.n, -1, dtype=np.int64), empty, empty.copy(), algorithm, satisfied=False,
                   message=message, params=dict(params or {}), seconds=seconds)


def full_domain_release(
    table: Table,
    levels: list[int] | np.ndarray,
    record_class: np.ndarray,
    n_classes: int,
    *,
    algorithm: str,
    **kwargs: object,
) -> Release:
    """A :class:`Release` in which every class has the QI levels ``levels`` (global recoding)."""
    levels = np.asarray(levels, dtype=np.int64)
    d = len(table.qi)
    nodes = np.zeros((n_classes, d), dtype=np.int64)
    if n_classes:
        first = first_rows(record_class, n_classes)  # (chunked: no n-long index array)
        present = first >= 0
        for j, h in enumerate(table.hierarchies):
            nodes[present, j] = h.maps[levels[j]][table.codes[first[present], j]]
    transformation = {name: int(levels[j]) for j, name in enumerate(table.qi)}
    return Release(
        table,
        record_class,
        np.broadcast_to(levels, (n_classes, d)).copy(),
        nodes,
        algorithm,
        transformation=transformation,
        **kwargs,  # type: ignore[arg-type]
    )
