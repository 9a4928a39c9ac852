"""The encoded :class:`~anonkit.table.Table` of an unchanged input, reused across calls of ``anonymize()``.

A user exploring k, l, t or the suppression limit on one DataFrame calls :func:`anonkit.anonymize` again
and again on the same frame and schema; each call would encode the same cells into the same table (its
codes, distinct tuples, sensitive domains and hierarchy maps). ARX does the same: its data handle encodes
the strings once, before any ``anonymize()``. Here the last :data:`REUSED_INPUTS` encodings are kept, each
with a *proof* of the input it was made from, and a call reuses one only when the proof shows, in far less
time than encoding, that its input is that input:

* **the shape**: the same column labels (with their types) in the same order, the same dtypes, the same
  number of rows, the same encoding settings (seed, missing, strip, person_qi);
* **the schema, by content**: every attribute's fields, and every hierarchy's levels, labels and bounds
  (copied when kept: an edit in place of a hierarchy or attribute is seen);
* **the cells of every column** (identifiers included):

  - an ``object`` column: the address of the object in every cell equals the kept copy's. The copy holds
    a reference to each of those objects, so none can be freed and its address taken by another object
    while it is kept: equal addresses are the same objects. They are values that cannot change (texts,
    numbers, booleans, decimals, dates, missing cells: objects of exactly the types of :data:`EXACT_TYPES`,
    no subclass, checked once, at the first lookup that finds the same objects; a column holding anything
    else is kept but never reused: its types are not read when it is kept, since most kept inputs are never
    looked up again), so the same objects are the same values. Or, when the objects differ (a file
    read again: every cell a new object) and :data:`REUSE_BY_VALUE` is on, **by value**: every kept cell is
    an object of exactly ``str`` (read once), every cell now is an object of exactly ``str`` (checked first:
    a subclass could answer ``==`` as it likes or say another text) and equal to the kept cell at its place.
    When the cells now and the kept cells both share their objects (pandas' C reader gives one object per
    distinct text of a column), this is read per distinct object and per distinct (new object, kept object)
    pair instead of per cell (:func:`_same_texts_by_objects`: the same answer, a fraction of the time).
    Equal exact texts are the same value to every step of the encoding and the publishing, so the kept
    table is what encoding them would give. Anything else that is another object (a number, a date, a
    missing cell, a subclass) is a miss (encoded again), never a wrong hit;
  - a numpy column of numbers, booleans or date-times: its bytes equal the kept copy's;
  - a pyarrow-backed column: every chunk's type, offset, length and the *bytes* of its buffers equal the
    kept copy's (Arrow buffers can be mutable, so their addresses alone prove nothing);
  - a categorical column: its codes' bytes, its ``ordered`` flag and its categories (by the rules above);
  - any other column (pandas' masked and python-backed extension arrays, …): not proven, so not kept.

A lookup compares the labels, rows and settings, then the first :data:`PLAUSIBLE_CELLS` cells of every object
column (by address, else by value) and of every pyarrow text column (pyarrow's ``equals``): another input is
rejected here at a constant cost, before its dtypes are read; then the dtypes, the schema's content, then every
cell. Anything not proven is encoded as
before. The reused table is the very object a fresh encoding would have equalled (the encoding is a
deterministic function of exactly what is proven), so
releases are byte-identical with and without reuse (``tests/test_encoding_reuse.py``,
``tests/test_fresh_encoding_paths.py``; :data:`REUSE_ENCODINGS` off).

Memory held: per kept input, its :class:`Table` (whose frame shares the input's columns under pandas'
copy-on-write) and the proof, 8 bytes per cell of an object column plus a copy of every other column's
bytes; inputs over :data:`REUSE_MAX_CELLS` cells are not kept. New data of a kept input's outline (the
same labels, rows and settings, its dtypes not read: a stream of files of one layout, rarely called twice) is
kept only at its second call on the same frame object (:data:`KEEP_AT_SECOND_CALL`; remembered meanwhile by
a weak reference): a stream neither copies its cells' references nor frees the pushed-out tables in its
calls, and a frame explored anyway pays one more encoding, at its second call. A reuse by value keeps nothing more: the
kept objects stay (the new frame's are not held), so a call on a file read again frees nothing of ours.
A job (the CLI, the advice's reruns, the fixes' trials) shares its encoding through
:class:`anonkit.runner.anonymize.Encodings` instead and keeps nothing here.
"""

from __future__ import annotations

import copy
import datetime
import decimal
import operator
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pandas as pd

from anonkit._kernels import dense_ids, first_rows
from anonkit._values import arrow_text_dtype, shares_objects
from anonkit._values import cell_addresses as _addresses
from anonkit.hierarchy import Hierarchy
from anonkit.schema import Schema
from anonkit.table import Table

#: reuse the encoding of an unchanged input across ``anonymize()`` calls (False: every call encodes)
REUSE_ENCODINGS = True
#: how many inputs' encodings are kept (the most recently used first)
REUSED_INPUTS = 2
#: inputs of more cells (rows × columns) than this are not kept (their proof alone holds 8 bytes a cell)
REUSE_MAX_CELLS = 5_000_000
#: prove an object column of exact texts unchanged by its values when its cells are other objects (a file
#: read again: every cell a new object of the same text); False: by the cells' objects alone
REUSE_BY_VALUE = True
#: how many first cells of every object column :meth:`_Kept.plausible` compares before anything else
PLAUSIBLE_CELLS = 64
#: an input that misses beside a kept input of its outline (the same labels, rows and settings, :func:`_outline`:
#: new data of the same layout, as a stream of new files) is kept only at its second call (the same
#: frame object); at its first, nothing of it is held (False: every miss is kept)
KEEP_AT_SECOND_CALL = True
#: the exact types of the objects an ``object`` column's cells may hold to be reused: values that never change
EXACT_TYPES = frozenset({str, bytes, int, float, bool, complex, type(None), decimal.Decimal, datetime.date,
                         datetime.datetime, datetime.time, datetime.timedelta, pd.Timestamp, pd.Timedelta,
                         type(pd.NaT), type(pd.NA), np.str_, np.bytes_, np.bool_, np.datetime64, np.timedelta64,
                         *np.sctypeDict.values()} - {np.object_, np.void})


@dataclass
class ReuseCounts:
    """How often an encoding was reused (``hits``), kept (``kept``) and not kept because its input could
    not be proven unchanged later (``unproven``); what the tests read to see reuse happen."""

    hits: int = 0
    kept: int = 0
    unproven: int = 0
    #: inputs not kept at their first call (:data:`KEEP_AT_SECOND_CALL`)
    deferred: int = 0


#: this process's counts (:class:`ReuseCounts`)
COUNTS = ReuseCounts()
_LOCK = threading.Lock()
_KEPT: list[_Kept] = []
#: the inputs whose keeping waits for their second call (:data:`KEEP_AT_SECOND_CALL`), by weak reference
_WAITING: list[weakref.ref[pd.DataFrame]] = []


def reused_table(frame: pd.DataFrame, schema: Schema, settings: tuple[Any, ...]) -> Table | None:
    """The kept :class:`Table` of ``frame`` under ``schema`` and ``settings`` when its proof holds, else
    ``None`` (the caller encodes)."""
    if not REUSE_ENCODINGS:
        return None
    outline = _outline(frame, settings)
    with _LOCK:
        shape = None
        for i, kept in enumerate(_KEPT):
            # cheapest test first: the labels, rows and settings, then a few cells of every column (a new input
            # is rejected here, before its dtypes are read: pandas builds a Series for them), then the
            # dtypes, then the schema's content, then every cell
            if kept.shape[0] != outline or not kept.plausible(frame):
                continue
            shape = _shape(frame, settings, outline) if shape is None else shape
            if kept.shape == shape and kept.schema(schema) and kept.holds(frame):
                _KEPT.insert(0, _KEPT.pop(i))
                COUNTS.hits += 1
                return kept.table
    return None


def keep_table(frame: pd.DataFrame, schema: Schema, settings: tuple[Any, ...], table: Table) -> None:
    """Keep ``table``, the encoding of ``frame`` under ``schema`` and ``settings``, with the proof of its
    input; nothing is kept when a column or the schema cannot be proven later (see the module)."""
    if not REUSE_ENCODINGS or frame.size > REUSE_MAX_CELLS or schema.survey_columns or schema.new_ids:
        return
    outline = _outline(frame, settings)
    if _waits(frame, outline):
        return
    shape = _shape(frame, settings, outline)
    schema_proof = _schema_proof(schema)
    columns = [_column_proof(column) for _, column in frame.items()]  # (by position, as ``iloc[:, j]``)
    if schema_proof is None or any(c is None for c in columns):
        COUNTS.unproven += 1
        return
    kept = _Kept(shape, schema_proof, columns, table)  # type: ignore[arg-type]
    with _LOCK:
        _KEPT.insert(0, kept)
        del _KEPT[REUSED_INPUTS:]
        COUNTS.kept += 1


def _waits(frame: pd.DataFrame, outline: tuple[Any, ...]) -> bool:
    """Whether ``frame``'s keeping waits for its second call (:data:`KEEP_AT_SECOND_CALL`): it missed
    beside a kept input of its outline (:func:`_outline`: the same labels, rows and settings; new data of that
    input's layout) and is not the frame of a waiting first call. Its dtypes are not read for this (pandas builds
    a Series for them): a frame that waits is not kept, so it waits as well when only its dtypes differ (kept, as
    every waiting frame, at its second call). Such an input is often never called again (a stream of new data):
    keeping it would cost a copy of its cells' references (a write to every cell's object) and, when a later input
    pushes it out, freeing its table and objects in that later call. Remembered by a weak reference
    (nothing held); only what is kept changes, never what a call returns (an input not kept is encoded,
    as every input is that no proof shows unchanged)."""
    if not KEEP_AT_SECOND_CALL:
        return False
    with _LOCK:
        alive = [w for w in _WAITING if w() is not None]
        _WAITING[:] = [w for w in alive if w() is not frame]  # (by identity: ``==`` compares the frames)
        if len(_WAITING) < len(alive):  # its second call
            return False
        if not any(kept.shape[0] == outline for kept in _KEPT):
            return False
        _WAITING.insert(0, weakref.ref(frame))
        del _WAITING[REUSED_INPUTS:]
        COUNTS.deferred += 1
        return True


def clear() -> None:
    """Forget every kept encoding (and the memory it holds) and every input waiting to be kept."""
    with _LOCK:
        _KEPT.clear()
        _WAITING.clear()


@dataclass
class _Kept:
    shape: tuple[tuple[Any, ...], tuple[Any, ...]]  # (:func:`_shape`: the outline, the dtypes)
    schema: Callable[[Schema], bool]
    columns: list[Callable[[pd.Series], bool]]
    table: Table

    def holds(self, frame: pd.DataFrame) -> bool:
        """Every column of ``frame`` (by position: ``items()`` gives what ``iloc[:, j]`` gives, without the
        indexer's path) passes its proof; a frame of another number of columns does not hold."""
        if frame.shape[1] != len(self.columns):
            return False
        return all(proof(column) for proof, (_, column) in zip(self.columns, frame.items(), strict=True))

    def plausible(self, frame: pd.DataFrame) -> bool:
        """Whether every object and pyarrow text column's first cells (:data:`PLAUSIBLE_CELLS`) pass its proof: a
        test of constant cost that rejects another input before the schema's content or every cell is compared.
        Only a filter: a frame that passes it must still pass :meth:`holds`."""
        if frame.shape[1] != len(self.columns):
            return False
        return all(not isinstance(proof, _ObjectProof | _ArrowProof) or proof.plausible(column)
                   for proof, (_, column) in zip(self.columns, frame.items(), strict=True))


def _shape(frame: pd.DataFrame, settings: tuple[Any, ...],
           outline: tuple[Any, ...] | None = None) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """What a lookup compares: the frame's :func:`_outline` (``outline``, when already made) and its dtypes."""
    return (_outline(frame, settings) if outline is None else outline), tuple(frame.dtypes)


def _outline(frame: pd.DataFrame, settings: tuple[Any, ...]) -> tuple[Any, ...]:
    """What a lookup compares first, before the first cells (:meth:`_Kept.plausible`, which reject new data before
    its dtypes are read): the labels (with their types: ``1`` and ``True`` are one key to Python, two column names
    here), the number of rows and the settings."""
    return (tuple((type(c), c) for c in frame.columns), len(frame), settings)


# ---------------------------------------------------------------- the schema, by content
def _schema_proof(schema: Schema) -> Callable[[Schema], bool] | None:
    """A check that a schema has ``schema``'s content now (attributes in order, every field, the
    hierarchies' arrays), or ``None`` when a field cannot be copied."""
    try:
        attrs = [(name, type(a), [(f.name, _value_proof(getattr(a, f.name))) for f in fields(a)],
                  copy.deepcopy(getattr(a, "_key", None))) for name, a in schema.attributes.items()]
    except (TypeError, copy.Error):
        return None
    default_role = schema.default_role

    def same(other: Schema) -> bool:
        if other.default_role != default_role or len(other.attributes) != len(attrs):
            return False
        for (name, kind, values, key), (other_name, a) in zip(attrs, other.attributes.items(), strict=True):
            if name != other_name or type(a) is not kind or getattr(a, "_key", None) != key:
                return False
            if not all(proof(getattr(a, f)) for f, proof in values):
                return False
        return True

    return same


def _value_proof(value: object) -> Callable[[object], bool]:
    """A check that an attribute's field equals ``value`` as it is now (a hierarchy by its arrays)."""
    if isinstance(value, Hierarchy):
        return _hierarchy_proof(value)
    kept = copy.deepcopy(value)
    return lambda other: type(other) is type(kept) and other == kept


def _hierarchy_proof(h: Hierarchy) -> Callable[[object], bool]:
    """A check that a hierarchy has ``h``'s content now: its name, source, height, lookup arrays,
    labels and numeric bounds (a hierarchy is small beside the table)."""
    facts = (type(h), h.name, h.source, h.calendar, h.height)
    maps = h.maps.copy()
    labels = [list(level) for level in h.labels]
    bounds = None if h.bounds is None else [b.copy() for b in h.bounds]

    def same(other: object) -> bool:
        if not isinstance(other, Hierarchy) or (type(other), other.name, other.source, other.calendar,
                                                 other.height) != facts:
            return False
        if not _same_array(other.maps, maps) or len(other.labels) != len(labels):
            return False
        if any(len(o) != len(k) or list(o) != k for o, k in zip(other.labels, labels, strict=True)):
            return False
        if bounds is None or other.bounds is None:
            return bounds is None and other.bounds is None
        return len(other.bounds) == len(bounds) and all(
            _same_array(o, k) for o, k in zip(other.bounds, bounds, strict=True))

    return same


# ---------------------------------------------------------------- the cells, column by column
def _column_proof(column: pd.Series) -> Callable[[pd.Series], bool] | None:
    """A check that a column holds ``column``'s cells now (see the module for each kind), or ``None``
    when its kind cannot be proven."""
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return _categorical_proof(column.array)  # type: ignore[arg-type]
    if isinstance(dtype, np.dtype):
        values = column.to_numpy()
        return _object_proof(values) if dtype.kind == "O" else _bytes_proof(values)
    if getattr(dtype, "storage", None) == "pyarrow" or type(dtype).__name__ == "ArrowDtype":
        return _arrow_proof(column)
    return None


def _bytes_proof(values: np.ndarray) -> Callable[[pd.Series], bool] | None:
    """A numpy column of fixed-width values: the same bytes as now."""
    if values.dtype.kind not in "biufcmM":
        return None
    kept = values.copy()
    return lambda column: _same_array(column.to_numpy(), kept)


def _same_array(values: np.ndarray, kept: np.ndarray) -> bool:
    """Same dtype, shape and bytes (NaN equals NaN of the same bits; −0.0 and 0.0 differ: a miss)."""
    if values.dtype != kept.dtype or values.shape != kept.shape:
        return False
    if values.dtype.kind not in "biufcmM":
        return bool(np.array_equal(values, kept))
    raw = np.dtype(f"u{values.dtype.itemsize}") if values.dtype.itemsize in (1, 2, 4, 8) else None
    if raw is None:
        return values.tobytes() == kept.tobytes()
    return bool(np.array_equal(values.view(raw), kept.view(raw)))


def _object_proof(values: np.ndarray) -> Callable[[pd.Series], bool]:
    """An object column of values that never change: the same object in every cell as now (the kept copy
    holds every object, so an equal address is the same object), or, with :data:`REUSE_BY_VALUE`, a column
    of exact texts equal to the kept ones (see the module). The cells' types are read at the first lookup
    that needs them (:attr:`_ObjectProof.types`), never when kept."""
    return _ObjectProof(values.copy())  # (the copy: a reference to every cell's object)


class _ObjectProof:
    """The proof of an object column (:func:`_object_proof`): ``kept``, a copy of its cells, holding each
    cell's object. The exact types of the kept cells are read once, at the first comparison that needs them
    (most kept inputs are never reused)."""

    def __init__(self, kept: np.ndarray) -> None:
        self.kept = kept
        self.addresses = _addresses(kept)
        self._types: frozenset[type] | None = None
        self._objects: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def types(self) -> frozenset[type]:
        """The exact types of the kept cells' objects (read once: the kept objects never change type); of the
        distinct objects alone when the cells share them (:meth:`objects`: a cell's type is its object's)."""
        if self._types is None:
            cells = self.kept[self.objects()[1]] if shares_objects(self.addresses) else self.kept
            self._types = frozenset(map(type, cells.tolist()))
        return self._types

    def objects(self) -> tuple[np.ndarray, np.ndarray]:
        """The kept cells' objects: every cell's object number and each object's first cell (read once)."""
        if self._objects is None:
            self._objects = _numbered(self.addresses)
        return self._objects

    def __call__(self, column: pd.Series) -> bool:
        now = column.to_numpy()
        if not (now.dtype == object and now.shape == self.kept.shape):
            return False
        addresses = _addresses(now)
        if np.array_equal(addresses, self.addresses):
            # the same objects: values that never change when they are of exactly these types
            return self.types <= EXACT_TYPES
        if not (self._by_value(now) and self.types == _TEXT):
            return False
        if shares_objects(addresses) and shares_objects(self.addresses):
            return _same_texts_by_objects(now, addresses, self)
        return _same_texts(now, self.kept)

    def _by_value(self, now: np.ndarray) -> bool:
        """Whether a column whose objects are not the kept ones may be compared by value: with
        :data:`REUSE_BY_VALUE`, when its first cell is another object than the kept one (a file read again:
        every cell new). A column that starts with the kept object is the kept column edited in place: the
        edit found by address, it is encoded again (never a wrong hit; no pass over its cells spent)."""
        return REUSE_BY_VALUE and len(now) > 0 and now[0] is not self.kept[0]

    def plausible(self, column: pd.Series) -> bool:
        """Whether the column's first :data:`PLAUSIBLE_CELLS` cells pass :meth:`__call__`'s test (without
        the kept cells' types, read by :meth:`__call__` itself). A column of another dtype fails before its cells
        are read (a lookup runs this before it compares the dtypes: ``to_numpy`` would convert the column)."""
        if not (isinstance(column.dtype, np.dtype) and column.dtype.kind == "O"):
            return False
        now = column.to_numpy()
        if not (now.dtype == object and now.shape == self.kept.shape):
            return False
        head = slice(0, PLAUSIBLE_CELLS)
        if np.array_equal(_addresses(now[head]), self.addresses[head]):
            return True
        return self._by_value(now) and _same_texts(now[head], self.kept[head])


#: the kept cells' types that allow a column of other objects to be proven by value: texts alone
_TEXT = frozenset({str})


def _same_texts(now: np.ndarray, kept: np.ndarray) -> bool:
    """Whether every cell of ``now`` is an object of exactly ``str`` equal to the cell of ``kept`` at its
    place (``kept``: exact texts). The type is checked first: a subclass could answer ``==`` as it likes or
    say another text (``__str__``), an exact ``str`` compares by its characters."""
    if operator.countOf(map(type, now), str) != len(now):  # (one pass, no set built)
        return False
    return bool(np.equal(now, kept, dtype=bool).all())


def _numbered(addresses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every cell's number (by its address, or any other integer key: the first appearance numbers them) and each
    number's first cell. (Addresses are below 2**63: the same keys as int64.)"""
    codes, m = dense_ids(addresses.astype(np.int64))
    return codes, first_rows(codes, m)


def _same_texts_by_objects(now: np.ndarray, addresses: np.ndarray, proof: _ObjectProof) -> bool:
    """:func:`_same_texts` of a column whose cells share their objects against kept cells that share theirs
    (``addresses``: ``now``'s cells'; the kept cells exact texts), read once per distinct object and per distinct
    (new object, kept object) pair instead of once per cell. Why it is the same answer: a cell's type is its
    object's, so every cell is exactly ``str`` when every distinct object is; two cells with the same new object
    and the same kept object compare alike (the same two exact texts), so every cell equals its kept cell when the
    first cell of every distinct pair does."""
    codes, first = _numbered(addresses)
    if operator.countOf(map(type, now[first].tolist()), str) != len(first):
        return False
    kept_codes, kept_first = proof.objects()
    pairs = codes * np.int64(len(kept_first)) + kept_codes
    _, at = _numbered(pairs)
    return bool(np.equal(now[at], proof.kept[at], dtype=bool).all())


def _categorical_proof(cat: pd.Categorical) -> Callable[[pd.Series], bool] | None:
    """A categorical column: the same codes, order flag and categories as now."""
    codes = _bytes_proof(np.asarray(cat.codes))
    categories = _column_proof(pd.Series(cat.categories))
    ordered = cat.ordered
    if codes is None or categories is None:
        return None

    def same(column: pd.Series) -> bool:
        if not isinstance(column.dtype, pd.CategoricalDtype):
            return False
        now = column.array
        return (now.ordered == ordered and codes(pd.Series(np.asarray(now.codes)))  # type: ignore[union-attr]
                and categories(pd.Series(now.categories)))  # type: ignore[union-attr]

    return same


def _arrow_proof(column: pd.Series) -> Callable[[pd.Series], bool] | None:
    """A pyarrow-backed column: every chunk's type, offset, length and buffers' bytes as now."""
    kept = _arrow_facts(column)
    return None if kept is None else _ArrowProof(kept, _text_head(column))


class _ArrowProof:
    """The proof of a pyarrow-backed column (:func:`_arrow_proof`): its chunks' facts (:func:`_arrow_facts`) and,
    for a text column, its first :data:`PLAUSIBLE_CELLS` cells (:func:`_text_head`) for :meth:`plausible`."""

    def __init__(self, facts: list[tuple[Any, ...]], head: Any) -> None:
        self.facts, self.head = facts, head

    def __call__(self, column: pd.Series) -> bool:
        return _arrow_facts(column) == self.facts

    def plausible(self, column: pd.Series) -> bool:
        """Whether a text column's first cells equal the kept ones (pyarrow's ``equals``: the same texts and
        missing cells; a column holding the kept chunks holds them); true for another type (not filtered: its
        equality would not hold NaN equal to itself). Only a filter, as :meth:`_Kept.plausible`: it rejects new
        data of a kept input's layout before the schema's content and every buffer's bytes are compared."""
        if self.head is None:
            return True
        now = _text_head(column)
        return now is not None and now.type == self.head.type and now.equals(self.head)


def _text_head(column: pd.Series) -> Any:
    """The first :data:`PLAUSIBLE_CELLS` cells of a pyarrow text column as one pyarrow array, else ``None``."""
    if not arrow_text_dtype(column.dtype):
        return None
    import pyarrow as pa  # (a pyarrow-backed column: pyarrow is loaded)

    head = pa.array(column.array).slice(0, PLAUSIBLE_CELLS)
    return head.combine_chunks() if isinstance(head, pa.ChunkedArray) else head


def _arrow_facts(column: pd.Series) -> list[tuple[Any, ...]] | None:
    """Every chunk's (type, offset, length, bytes of each buffer) of a pyarrow-backed column."""
    import pyarrow as pa  # (a pyarrow-backed column: pyarrow is loaded)

    try:
        arrow = pa.array(column.array)
    except (TypeError, ValueError, pa.ArrowException):
        return None
    chunks = arrow.chunks if isinstance(arrow, pa.ChunkedArray) else [arrow]
    return [(c.type, c.offset, len(c), tuple(None if b is None else b.to_pybytes() for b in c.buffers()))
            for c in chunks]
