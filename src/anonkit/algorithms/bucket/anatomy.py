"""Anatomy (Xiao & Tao, VLDB 2006; spec §5.6): publish the exact quasi-identifiers and the
sensitive values in two tables linked only through a group id.

Grouping (spec §5.6). The records are hashed into buckets by sensitive value. While at least ``l``
buckets are non-empty, a new group takes one record from each of the ``l`` currently largest
buckets (ties: the domain's value order; within a bucket, records in id order). The fewer than
``l`` residual records (at most one per bucket) each join a group that does not yet hold their
value: the first such group, or with ``seed`` a random one (the paper picks at random; spec §8
row 23). Every group therefore holds pairwise distinct sensitive values, at least ``l`` of them,
so no value exceeds ``1/l`` of its group.

The heap over buckets works on counts only (``O(G·l·log m)`` for ``G`` groups and ``m`` values,
runs of groups taking the same ``l`` buckets handled in one step; compiled with numba above
:data:`NUMBA_GROUPS` groups); records are then assigned to the groups by one stable sort — the
t-th record of a value joins the t-th group holding that value.

Eligibility: an ``l``-diverse anatomy exists iff no sensitive value occurs more than ``n/l`` times;
otherwise :class:`~anonkit.errors.InputError` names the attribute, the value and its count.

What is returned. The published result is two tables, in ``Release.tables``:

* ``"qit"`` — the quasi-identifier table: every released record's **original** QI values (not
  generalized) and its ``GroupID``, rows in a seeded random order so that positions do not link
  to the ST. Only the QIs and ``GroupID`` are kept: identifiers are already gone
  (:class:`~anonkit.table.Table` drops them), the sensitive attribute is what the ST publishes.
  The insensitive columns ride along in the QIT, each record's values beside its QIs and group
  (``insensitive: drop`` leaves them out; :mod:`anonkit.algorithms._carried` says why the QIT is
  their place: they are record-level values the data holder declared revealing nothing, as every
  other release publishes them; a column correlated with the sensitive value must be declared
  sensitive or quasi). Anatomy protects one sensitive attribute: another is refused, not dropped;
* ``"st"`` — the sensitive table: ``GroupID``, the sensitive value, ``Count``, one row per value
  present in a group, by group then value order.

``GroupID`` is the release's class number plus one. The :class:`~anonkit.release.Release` itself has
the groups as its classes (built by :func:`~anonkit.algorithms.local.partition_release`, so its
sizes, statistics and model checks are the groups'), with the QIs generalized per group as a
fallback view — what :meth:`Release.to_frame` and the pipeline publish. Groups failing a model are
suppressed whole (and left out of both tables). ``notes["groups"]`` lists the record indices
(input order) of every released group; ``notes["distinct_l"]`` and ``notes["max_confidence"]`` (the
largest share of one value in a group) summarize the guarantee.

Records suppressed up front (``missing="suppress"``) take no part; ``n`` counts the others.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Mapping, Sequence
from typing import Annotated, overload

import numpy as np
import pandas as pd
from pydantic import Field

from anonkit._kernels import compiled
from anonkit.algorithms._carried import DEFAULT_INSENSITIVE, Insensitive, carried, dropped, one_sensitive
from anonkit.algorithms.bucket.stack_and_deal import release_of, resolve_sensitive
from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression
from anonkit.algorithms.spec import algorithm
from anonkit.errors import InputError
from anonkit.models import Criterion, DistinctLDiversity, KAnonymity
from anonkit.release import Release
from anonkit.table import Table

#: l when neither the argument nor a distinct l-diversity model gives one (spec §6)
DEFAULT_L = 3
GROUP_ID = "GroupID"
COUNT = "Count"


# ---------------------------------------------------------------------------------------- the core
def group_sequence(counts: np.ndarray, l: int) -> tuple[np.ndarray, np.ndarray]:  # noqa: E741
    """The groups Anatomy's heap loop forms from bucket sizes ``counts`` (value codes ``0..m−1``).

    Returns ``(values, residue)``: ``values`` is ``(G × l)``, row ``g`` the values group ``g`` takes
    one record of (in the order they were popped); ``residue`` the values left over (ascending), one
    record each if the input is eligible. Above :data:`NUMBA_GROUPS` groups the loop runs compiled.
    """
    counts = np.asarray(counts, dtype=np.int64)
    l = int(l)  # noqa: E741
    if int(counts.sum()) // max(l, 1) > NUMBA_GROUPS:
        rows, reps, left = _kernel()(counts, l)
    else:
        rows, reps, left = _rounds_heapq(counts, l)
    values = np.repeat(rows.reshape(-1, l), reps, axis=0)
    residue = np.repeat(np.arange(len(counts), dtype=np.int64), left)
    return values, residue


#: above this many groups the grouping loop is compiled with numba. Loading numba and the cached
#: kernel costs about 0.3–0.5 CPU-s and 100 MB of resident memory, what the heap loop spends on about
#: 200,000 groups (2 µs a group, measured: 0.02 s for Adult's 10,000 groups, 1.8 s for 1 M); below
#: this the Python heap loop is cheaper in time and memory (issue 30: Anatomy's 30 k-row job loaded
#: numba for 0.02 s of work and doubled its peak memory)
NUMBA_GROUPS = 200_000


def _rounds_heapq(counts: np.ndarray, l: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # noqa: E741
    """Runs of identical groups ``(rows, repeats)`` and the counts left over, with :mod:`heapq`.

    The heap orders buckets by count descending, then value code. The same ``l`` buckets stay on top
    for as many steps as the smallest of them still ranks before the next bucket; such a run is
    taken in one step.
    """
    heap = [(-int(c), v) for v, c in enumerate(counts.tolist()) if c > 0]
    heapq.heapify(heap)
    rows: list[int] = []
    reps: list[int] = []
    while len(heap) >= l:
        top = [heapq.heappop(heap) for _ in range(l)]
        c_l, v_l = -top[-1][0], top[-1][1]
        if heap:
            c_n, v_n = -heap[0][0], heap[0][1]
            steps = c_l - c_n + (1 if v_l < v_n else 0)
        else:
            steps = c_l
        steps = max(1, min(steps, c_l))
        rows.extend(v for _, v in top)
        reps.append(steps)
        for negc, v in top:
            if -negc > steps:
                heapq.heappush(heap, (negc + steps, v))
    left = np.zeros(len(counts), dtype=np.int64)
    for negc, v in heap:
        left[v] = -negc
    return np.array(rows, dtype=np.int64), np.array(reps, dtype=np.int64), left


def _rounds_py(counts: np.ndarray, l: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # noqa: E741
    """:func:`_rounds_heapq` on arrays (compiled by numba): a binary max-heap of the keys
    ``count·m + (m − 1 − code)`` — count descending, then code ascending."""
    m = counts.shape[0]
    heap = np.empty(max(m, 1), dtype=np.int64)
    size = 0
    total = 0
    for v in range(m):
        c = counts[v]
        total += c
        if c > 0:
            i = size
            heap[i] = c * m + (m - 1 - v)
            size += 1
            while i > 0:
                p = (i - 1) // 2
                if heap[p] >= heap[i]:
                    break
                t = heap[p]
                heap[p] = heap[i]
                heap[i] = t
                i = p
    cap = total // l + 1
    rows = np.empty(cap * l, dtype=np.int64)
    reps = np.empty(cap, dtype=np.int64)
    n_rows = 0
    top = np.empty(l, dtype=np.int64)
    while size >= l:
        for j in range(l):
            top[j] = heap[0]
            size -= 1
            heap[0] = heap[size]
            i = 0
            while True:
                a = 2 * i + 1
                if a >= size:
                    break
                b = a + 1
                if b < size and heap[b] > heap[a]:
                    a = b
                if heap[i] >= heap[a]:
                    break
                t = heap[a]
                heap[a] = heap[i]
                heap[i] = t
                i = a
        last = top[l - 1]
        c_l = last // m
        # steps s = 0, 1, … keep the same buckets on top while last − s·m > the next key
        steps = (last - heap[0] + m - 1) // m if size > 0 else c_l
        steps = max(1, min(steps, c_l))
        for j in range(l):
            rows[n_rows * l + j] = m - 1 - top[j] % m
        reps[n_rows] = steps
        n_rows += 1
        for j in range(l):
            key = top[j] - steps * m
            if key >= m:
                i = size
                heap[i] = key
                size += 1
                while i > 0:
                    p = (i - 1) // 2
                    if heap[p] >= heap[i]:
                        break
                    t = heap[p]
                    heap[p] = heap[i]
                    heap[i] = t
                    i = p
    left = np.zeros(m, dtype=np.int64)
    for j in range(size):
        left[m - 1 - heap[j] % m] = heap[j] // m
    return rows[: n_rows * l], reps[:n_rows], left


def _kernel():  # type: ignore[no-untyped-def]
    return compiled(_rounds_py)


def anatomy_groups(
    codes: np.ndarray,
    l: int,  # noqa: E741
    n_values: int | None = None,
    *,
    seed: int | None = None,
) -> tuple[np.ndarray, int]:
    """The group (``0..G−1``) of every record and ``G``; see the module docstring.

    ``codes`` are the records' sensitive value codes (value order = code order). The caller checks
    eligibility; a residual record with no group lacking its value (only possible when ineligible)
    gets ``−1``.
    """
    codes = np.asarray(codes)
    if codes.dtype.kind not in "iu":  # integer codes are read as they are: no int64 copy of the records
        codes = codes.astype(np.int64)
    m = int(codes.max()) + 1 if n_values is None and codes.size else int(n_values or 0)
    counts = np.bincount(codes, minlength=m)
    values, residue = group_sequence(counts, l)
    n_groups = len(values)
    slot_value = values.reshape(-1)
    slot_group = np.repeat(np.arange(n_groups, dtype=np.int64), l)
    if residue.size:
        rng = np.random.default_rng(seed) if seed is not None else None
        extra_group = []
        taken_by = {}
        for v in residue.tolist():
            has = np.zeros(n_groups, dtype=bool)
            has[slot_group[slot_value == v]] = True
            for g in taken_by.get(v, []):
                has[g] = True
            free = np.flatnonzero(~has)
            if free.size == 0:
                g = -1
            elif rng is None:
                g = int(free[0])
            else:
                g = int(rng.choice(free))
            extra_group.append(g)
            taken_by.setdefault(v, []).append(g)
        slot_value = np.concatenate([slot_value, residue])
        slot_group = np.concatenate([slot_group, np.array(extra_group, dtype=np.int64)])
    # the t-th record of a value (id order) takes the t-th slot of that value (group order)
    slots = np.argsort(slot_value, kind="stable")
    records = np.argsort(codes, kind="stable")
    out = np.full(len(codes), -1, dtype=np.int64)
    out[records] = slot_group[slots]
    return out, n_groups


class Groups(Sequence):
    """The record indices (input order) of every released group, as ``notes["groups"]`` gives them:
    group ``g`` is ``members[ends[g−1]:ends[g]]``, a view made when read. One array of the released
    records instead of a list of a million small arrays (about 120 bytes each) at 3 M records."""

    def __init__(self, members: np.ndarray | None, ends: np.ndarray) -> None:
        self._stored = members
        self._classes: np.ndarray | None = None
        self._ends = np.asarray(ends, dtype=np.int64)

    @classmethod
    def of_classes(cls, record_class: np.ndarray, ends: np.ndarray) -> Groups:
        """The groups of a release's ``record_class`` (``−1``: not released; ``ends`` the cumulative
        group sizes), their members sorted out when first read: nothing is held beside the release's
        own array until then (issue 30: Anatomy's memory; the pipeline never reads them)."""
        out = cls(None, ends)
        out._classes = record_class
        return out

    @property
    def _members(self) -> np.ndarray:
        if self._stored is None:
            rc = self._classes if self._classes is not None else np.zeros(0, dtype=np.int64)
            # a stable sort puts the unreleased (−1) first, then each group's records in input order
            self._stored = np.argsort(rc, kind="stable")[int((rc < 0).sum()):]
            self._classes = None
        return self._stored

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, i: int) -> np.ndarray: ...
    @overload
    def __getitem__(self, i: slice) -> list[np.ndarray]: ...
    def __getitem__(self, i: int | slice) -> np.ndarray | list[np.ndarray]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        i %= n
        return self._members[(int(self._ends[i - 1]) if i else 0):int(self._ends[i])]

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of the same groups (``[]`` when nothing is released)."""
        if not isinstance(other, Sequence) or isinstance(other, str) or len(other) != len(self):
            return False
        return all(np.array_equal(a, b) for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # equal to lists, so unhashable like them

    def __repr__(self) -> str:
        return f"Groups({len(self)} groups of {len(self._members)} records)"


# ---------------------------------------------------------------------------------------- parameters
def resolve_l(models: list[Criterion], l: int | None, sensitive: str | None) -> tuple[int, str | None]:  # noqa: E741
    """``l`` as given, else the largest l of the distinct l-diversity models (on ``sensitive`` if
    given), else :data:`DEFAULT_L`; and the attribute that model protects (None if none used)."""
    attr = None
    if l is None:
        ms = [m for m in models if isinstance(m, DistinctLDiversity) and sensitive in (None, m.sensitive)]
        if ms:
            best = max(ms, key=lambda m: m.l)
            l, attr = int(best.l), best.sensitive  # noqa: E741
        else:
            l = DEFAULT_L  # noqa: E741
    return int(l), attr


def _qit(table: Table, columns: list[str], rows: np.ndarray) -> pd.DataFrame:
    """The input's ``columns`` at ``rows``, see :func:`_frame`: each column's values taken (not its index,
    a further array as long as the QIT) into a Series of the column's own dtype (declared: pandas
    would infer ``str`` for text held as objects), or a Categorical of the same values
    (:func:`_qit_column`)."""
    index = pd.RangeIndex(len(rows))
    return _frame(len(rows), {c: _qit_column(table.frame[c], rows, index, _leaf_codes(table, c)) for c in columns})


def _leaf_codes(table: Table, column: str) -> tuple[np.ndarray, np.ndarray] | None:
    """A quasi-identifier's leaf codes and leaf labels when the labels at the codes are the input's
    own cells, every one (compared a block of :data:`QIT_CHECK_ROWS` at a time: no copy of the
    column); else None (a cell the table reads differently, a missing one, a non-text one)."""
    if column not in table.qi:
        return None
    j = table.qi.index(column)
    labels = table.hierarchies[j].labels[0]
    codes = table.codes[:, j]
    cells = table.frame[column].to_numpy()
    if labels.dtype != object or not all(type(u) is str for u in labels):
        return None
    for start in range(0, len(cells), QIT_CHECK_ROWS):
        if not (labels[codes[start:start + QIT_CHECK_ROWS]] == cells[start:start + QIT_CHECK_ROWS]).all():
            return None
    return codes, labels


def _qit_column(col: pd.Series, rows: np.ndarray, index: pd.RangeIndex,
                leaves: tuple[np.ndarray, np.ndarray] | None = None) -> pd.Series:
    """One QIT column: ``col``'s values at ``rows``. A text column of at most
    :data:`QIT_CATEGORICAL_MAX` distinct strings and no missing cell is a Categorical over its
    published values (``object`` categories; none of a suppressed record's values): int8/int16 codes
    instead of an 8-byte pointer per row (issue 30: Anatomy's memory; 168 MB of the QIT at 3 M rows).
    The codes are the table's own (``leaves``: codes and labels, checked equal to the cells) or, for
    another column, the column's factorization. Its values are the same texts, so CSV, Parquet,
    SQLite, Excel and DuckDB write the same values (the writers write a categorical as its dense
    column, :mod:`anonkit.io._compact`); any other column keeps its dtype."""
    values = col.array
    if col.dtype == object and len(rows):
        codes, uniques = leaves if leaves is not None else pd.factorize(values, use_na_sentinel=True)
        if (len(uniques) <= QIT_CATEGORICAL_MAX and int(codes.min()) >= 0
                and all(type(u) is str for u in uniques)):
            small = np.int8 if len(uniques) <= np.iinfo(np.int8).max else np.int16
            taken = codes[rows].astype(small)
            del codes
            # only the published values: a suppressed record's text (or an unused leaf) is no category
            # of the release. Renumbered through a table, not Categorical.remove_unused_categories,
            # whose np.unique sorts int64 copies of the codes (28 bytes a row)
            used = np.bincount(taken, minlength=len(uniques)) > 0
            if not used.all():
                taken = (np.cumsum(used) - 1).astype(small)[taken]
            dtype = pd.CategoricalDtype(pd.Index(np.asarray(uniques, dtype=object)[used], dtype=object))
            return pd.Series(pd.Categorical.from_codes(taken, dtype=dtype, validate=False), index=index, copy=False)
    return pd.Series(values.take(rows), index=index, dtype=col.dtype, copy=False)


#: the most distinct texts a QIT column holds as a Categorical (:func:`_qit_column`): int16 codes
QIT_CATEGORICAL_MAX = 2**15 - 1
#: rows compared at a time when a QIT column's leaf labels are checked against its cells (:func:`_leaf_codes`)
QIT_CHECK_ROWS = 65_536


def _frame(n: int, columns: Mapping[str, object]) -> pd.DataFrame:
    """A frame of ``n`` rows holding ``columns``, inserted one at a time: one block per column.

    Built from a dict, pandas stacks same-typed columns into one 2-D block, a second copy of the
    whole table while both exist (issue 30: building the QIT and the ST were Anatomy's peaks); each
    inserted column is its own block. The frame equals the dict-built one (values, dtypes, index)."""
    out = pd.DataFrame(index=pd.RangeIndex(n))
    for name, values in columns.items():
        out[name] = values
    return out


def _cells(group: np.ndarray, code: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The (group, value) cells present, as ``group·m + value`` ascending, and their counts: what
    ``np.unique(…, return_counts=True)`` gives, sorting one array in place instead of copies of it."""
    key = np.array(group, dtype=np.int64)  # a copy, sorted in place
    key *= m
    key += code
    key.sort()
    if not key.size:
        return key, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    counts = np.diff(np.append(starts, key.size))
    return key[starts], counts


def _column_name(base: str, taken: list[str]) -> str:
    name = base
    while name in taken:
        name = "_" + name
    return name


# ---------------------------------------------------------------------------------------- algorithm
def _groups_too_small(models: list[Criterion], group: int, beyond: int) -> str | None:
    """Why anatomy cannot meet a k-anonymity model: its groups of ``group`` records (``group + 1`` for
    a few) are smaller than ``k`` — when ``k > group + beyond``."""
    for m in models:
        if isinstance(m, KAnonymity) and m.k > group + beyond:
            return (
                f"anatomy forms groups of l = {group} records (l + 1 for a few), but {m.describe()} needs {m.k}: "
                f"set algorithm.l to at least {m.k} or lower k"
            )
    return None


def _precheck(table: Table, models: list[Criterion], options: Mapping[str, object]) -> str | None:
    """Before the work: a k-anonymity model with ``k > l + 1`` fails in every group."""
    l, _ = resolve_l(models, options.get("l"), options.get("sensitive"))  # type: ignore[arg-type]  # noqa: E741
    return _groups_too_small(models, l, 1)


def _explain(table: Table, models: list[Criterion], release: Release, options: Mapping[str, object]) -> str | None:
    """After a failure: the groups of ``l`` records are smaller than ``k``."""
    return _groups_too_small(models, int(release.params.get("l", 0)), 0)


@algorithm(
    "anatomy",
    family="bucket",
    summary="two linked tables: exact quasi-identifiers with a group id (qit) and each group's l-diverse "
    "sensitive values with counts (st)",
    enforces=("distinct-l-diversity",),
    tables=("qit", "st"),
    randomized=True,
    precheck=_precheck,
    explain=_explain,
)
def anatomy(
    table: Table,
    models: list[Criterion],
    *,
    l: Annotated[int, Field(ge=1)] | None = None,  # noqa: E741
    sensitive: str | None = None,
    seed: int | None = None,
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
    insensitive: Insensitive = DEFAULT_INSENSITIVE,
) -> Release:
    """Anatomy; see the module docstring.

    Parameters
    ----------
    table, models:
        The encoded input and the privacy models every group must satisfy (failing groups are
        suppressed).
    l:
        Diversity: groups of ``l`` (or ``l + 1``) distinct sensitive values. Default: the largest l
        of the distinct l-diversity models, else 3.
    sensitive:
        The sensitive attribute (default: that of the l-diversity model ``l`` comes from, else the
        table's first).
    seed:
        ``None``: every residual record joins the first group without its value, and the QIT rows
        are shuffled with seed 0. An integer: random eligible groups for the residue and the QIT
        shuffle, both from this seed.
    max_suppression:
        Share of records the models may suppress.
    insensitive:
        keep publishes the insensitive columns in the QIT (each record's values); drop leaves them out.

    Raises
    ------
    InputError
        A sensitive value occurs more than ``n/l`` times (no l-diverse anatomy exists), ``l`` is not
        a positive whole number, the attribute is not sensitive, or the table has another sensitive
        attribute (which Anatomy would not publish).
    """
    started = time.perf_counter()
    l, model_attr = resolve_l(models, l, sensitive)  # noqa: E741
    sa = resolve_sensitive(table, sensitive if sensitive is not None else model_attr, "anatomy")
    one_sensitive(table, sa, "anatomy")
    extra = carried(table, insensitive)
    codes = table.sensitive_codes[sa]  # the table's own codes: no int64 copy of a column
    labels = table.domains[sa].labels
    m = len(labels)
    # every record takes part unless some are presuppressed: then their codes are copied, else read in place
    everyone_in = not bool(table.presuppressed.any())
    active = np.arange(0) if everyone_in else np.flatnonzero(~table.presuppressed)
    n = table.n if everyone_in else len(active)
    taking_part = codes if everyone_in else codes[active]
    counts = np.bincount(taking_part, minlength=m)
    top = int(np.argmax(counts)) if m else 0
    if n and counts[top] * l > n:
        raise InputError(
            f"no {l}-diverse anatomy exists: a sensitive value occurs {int(counts[top])} times, more than "
            f"n/l = {n}/{l} = {n / l:.6g} (at most 1/l of the records may share a value)",
            column=sa,
            value=labels[top],
        )
    groups, n_groups = anatomy_groups(taking_part, l, m, seed=seed)
    del taking_part
    if everyone_in:
        record_class = groups  # anatomy_groups' own new array, one class per record
    else:
        record_class = np.full(table.n, -1, dtype=np.int64)
        record_class[active] = groups
    del groups, active
    rel = release_of(
        table,
        record_class,
        models,
        algorithm="anatomy",
        max_suppression=max_suppression,
        started=started,
        params={"l": l, "sensitive": sa, "seed": seed, "max_suppression": max_suppression,
                "insensitive": insensitive},
        empty_message="the models cannot be met: no record to publish",
        merge_identical=False,  # groups are published by group id, not by their values
        own_classes=True,  # renumbered in place: no second array of a class per record
    )
    del record_class  # the release holds its own renumbered copy
    rc = rel.record_class
    everyone = not bool((rc < 0).any())
    released = np.arange(0) if everyone else np.flatnonzero(rc >= 0)  # unused when everyone is released
    gid = _column_name(GROUP_ID, [*table.qi, *extra, sa])
    # the ST from the (group, value) cells present, sorted group-major: the same rows as the dense
    # (groups × values) histogram's non-zero cells, without that histogram (issue 30: Anatomy's memory;
    # it grows with groups × values, 8 GB for a million groups of a 1,000-value attribute)
    cells, counts = _cells(rc if everyone else rc[released], codes if everyone else codes[released], m)
    g_idx, v_idx = np.divmod(cells, m)
    del cells
    sizes = np.bincount(rc if everyone else rc[released], minlength=rel.n_classes)
    # the largest share of one value in a group: each group's largest count over its size
    top_count = np.zeros(rel.n_classes, dtype=np.int64)
    np.maximum.at(top_count, g_idx, counts)
    rel.notes["distinct_l"] = int(np.bincount(g_idx, minlength=rel.n_classes).min()) if rel.n_classes else 0
    rel.notes["max_confidence"] = float((top_count / sizes).max()) if rel.n_classes else float("nan")
    del top_count
    g_idx += 1  # the published GroupID, in place
    st = _frame(len(g_idx), {gid: g_idx, sa: pd.Series(labels[v_idx], dtype=object),
                             _column_name(COUNT, [gid, sa]): counts.astype(np.int64, copy=False)})
    del g_idx, v_idx, counts
    rel.notes["groups"] = Groups.of_classes(rc, np.cumsum(sizes))
    # the QIT's rows in their published (shuffled) order, taken once column by column: no copy of the
    # whole input's columns and no second copy for the shuffle (issue 30: Anatomy's memory)
    rows = np.random.default_rng(0 if seed is None else seed).permutation(len(rc) if everyone else len(released))
    if not everyone:
        rows = released[rows]
    del released
    qit = _qit(table, [*table.qi, *extra], rows)
    group_col = rc[rows]
    group_col += 1
    qit[gid] = group_col
    del rows, group_col
    rel.tables = {"qit": qit, "st": st}
    rel.notes["groups_formed"] = n_groups
    if dropped(table, insensitive):
        rel.notes["dropped_columns"] = dropped(table, insensitive)
    rel.seconds = time.perf_counter() - started
    return rel
