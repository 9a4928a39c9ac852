"""What the coverage matrices share while they read the same columns: each column's factorization and
each column's :class:`~anonkit.analytics._cover_labels.Resolver` (its values read against its hierarchy).

Two scopes:

* :func:`shared_reading` — one audit: its attacks match the same release and input several times each
  (singling-out twice against the whole input, linkability on two sides, inference); inside the block a
  column is factorized and resolved once. Nothing is kept after the block.
* :func:`lasting_reading` — one job: a run, the reruns of its verdict's advice and its fixes' trials
  audit releases of the *same input*. Inside this block the readings of the input (the audit's original
  table: ``shared_reading(keep=original)``) and every resolver are kept from one audit to the next, so
  the bundled Adult job reads its input's columns once instead of once per audit. A column is
  recognised by its content, not by its object: each run encodes the input into a new frame whose
  columns are new objects over the same Arrow buffers, so an Arrow-backed column is keyed by its
  buffers (addresses, offsets, lengths; the buffers are held, so an address is never reused while the
  key lives) and any other column by its array object. The releases' columns are never kept across
  audits (each rerun's release is new, and at scale a release is large).

The columns must not change inside either block (an audit only reads them); everything shared is
read-only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
import pandas as pd
from pandas.arrays import ArrowExtensionArray

from anonkit._values import factorize_text
from anonkit._verify_rows import input_codes, kept_codes, read_codes
from anonkit.analytics._cover_labels import Resolver
from anonkit.hierarchy import Hierarchy

__all__ = ["lasting_reading", "resolver", "shared_factorize", "shared_reading", "shared_result"]

Factorized = tuple[np.ndarray, np.ndarray]
T = TypeVar("T")


@dataclass
class _Lasting:
    """The readings kept across the audits of one :func:`lasting_reading` block: the kept columns'
    factorizations (by :func:`_content_key`, with what holds the key's buffers) and every resolver."""

    factorized: dict[tuple, tuple[object, Factorized]] = field(default_factory=dict)
    resolvers: dict[tuple, tuple[object, Resolver]] = field(default_factory=dict)


@dataclass
class _Shared:
    """What one :func:`shared_reading` block shares: factorizations by the column's array (held so that
    its id is not reused) and by its memory (:func:`_content_key`), resolvers by name, distinct values,
    hierarchy (held likewise), kind and format; ``kept``: the content keys of the columns whose readings go
    to ``lasting`` (a job's block)."""

    factorized: dict[int, tuple[object, Factorized]] = field(default_factory=dict)
    by_content: dict[tuple, tuple[object, Factorized]] = field(default_factory=dict)
    resolvers: dict[tuple, tuple[object, Resolver]] = field(default_factory=dict)
    kept: set[tuple] = field(default_factory=set)
    lasting: _Lasting | None = None
    results: dict[tuple, tuple[object, object]] = field(default_factory=dict)


_SHARED: ContextVar[_Shared | None] = ContextVar("anonkit_cover_shared", default=None)
_LASTING: ContextVar[_Lasting | None] = ContextVar("anonkit_cover_lasting", default=None)


def _content_key(values: pd.Series) -> tuple[tuple, object] | None:
    """``(key, holder)``: a key equal for two columns over the same memory (the same values by
    construction) and what keeps that memory alive while the key is held; ``None`` for a column whose
    memory cannot be named (only its own array object identifies it).

    An Arrow-backed column is named by its buffers (addresses, sizes, offsets, lengths), a categorical by
    its codes' memory (address, length, strides) and its categories (held): a frame's sub-selection
    (``release[columns]``) and each run's encoding of one input give new column objects over the same
    memory."""
    array = values.array
    if isinstance(array, pd.Categorical):
        codes = np.asarray(array.codes)
        interface = codes.__array_interface__
        return ("categorical", interface["data"][0], codes.shape, interface["strides"], codes.dtype.str,
                id(array.categories)), (codes, array.categories)
    if not isinstance(array, ArrowExtensionArray):  # (a column of Python objects: converting it would cost a pass)
        return None
    data = array.__arrow_array__()
    chunks = getattr(data, "chunks", [data])
    parts = tuple((c.offset, len(c), tuple((b.address, b.size) if b is not None else None for b in c.buffers()))
                  for c in chunks)
    return (str(values.dtype), len(values), parts), data


@contextmanager
def lasting_reading() -> Iterator[None]:
    """Keep the input's readings across the audits of the block (see the module docstring); a block
    inside another is the outer one."""
    if _LASTING.get() is not None:
        yield
        return
    token = _LASTING.set(_Lasting())
    try:
        with input_codes():  # the verifier's reference (the input's column) read from the same store
            yield
    finally:
        _LASTING.reset(token)


@contextmanager
def shared_reading(keep: pd.DataFrame | None = None) -> Iterator[None]:
    """Within the block a column is factorized and resolved once, however many coverage matrices read
    it; inside a :func:`lasting_reading` block the readings of ``keep``'s columns (the audit's original
    table) and the resolvers come from, and go to, the job's store."""
    lasting = _LASTING.get()
    kept: set[tuple] = set()
    if lasting is not None and keep is not None:
        for name in keep.columns:
            found = _content_key(keep[name])
            if found is not None:
                kept.add(found[0])
    token = _SHARED.set(_Shared(kept=kept, lasting=lasting))
    try:
        yield
    finally:
        _SHARED.reset(token)


def shared_factorize(values: pd.Series, factorize: Callable[[pd.Series], Factorized] = factorize_text) -> Factorized:
    """:func:`anonkit._values.factorize_text` of a column, shared inside :func:`shared_reading` (read-only):
    by the column's array, then by its memory (:func:`_content_key`), then, for a column of the block's
    kept table inside a :func:`lasting_reading` block, from the job's store."""
    shared = _SHARED.get()
    if shared is None or not isinstance(values, pd.Series):
        return factorize(values)
    array = values.array
    hit = shared.factorized.get(id(array))
    if hit is not None and hit[0] is array:
        return hit[1]
    found = _content_key(values)
    if found is None:
        result = factorize(values)
    else:
        key, holder = found
        lasting = shared.lasting if key in shared.kept else None
        store = lasting.factorized if lasting is not None else shared.by_content
        made = store.get(key)
        if made is None:
            made = (holder, _factorized(values, factorize, kept=lasting is not None))
            store[key] = made
        result = made[1]
    shared.factorized[id(array)] = (array, result)
    return result


def _factorized(values: pd.Series, factorize: Callable[[pd.Series], Factorized], *, kept: bool) -> Factorized:
    """``factorize(values)``; for :func:`~anonkit._values.factorize_text` the verifier's codes of the column
    (:func:`anonkit._verify_rows.read_codes`, the same codes and texts; a pyarrow text column's shared,
    read-only, with the verifier's recounts of the same release in one audit), and the job's own store
    for a column of the input (``kept``: the verifier's reference reads it from there)."""
    if factorize is not factorize_text:
        return factorize(values)
    return kept_codes(values) if kept else read_codes(values)


def resolver(name: str, values: np.ndarray, hierarchy: Hierarchy | None, kind: str, format: str | None,
             make: Callable[..., Resolver] = Resolver) -> Resolver:
    """The column's :class:`~anonkit.analytics._cover_labels.Resolver` (``make``), shared inside
    :func:`shared_reading` (and across a :func:`lasting_reading` block)."""
    shared = _SHARED.get()
    if shared is None:
        return make(name, values, hierarchy, kind, format)
    store = shared.lasting.resolvers if shared.lasting is not None else shared.resolvers
    key = (name, tuple(values.tolist()), id(hierarchy), kind, format)
    hit = store.get(key)
    if hit is None or hit[0] is not hierarchy:
        hit = (hierarchy, make(name, values, hierarchy, kind, format))
        store[key] = hit
    return hit[1]


def shared_result(inputs: list[np.ndarray], compute: Callable[[], T]) -> T:
    """``compute()``, made once inside a :func:`shared_reading` block for the same ``inputs`` (the very
    arrays, held so that their ids are not reused; e.g. the shared factorizations' codes); read-only."""
    shared = _SHARED.get()
    if shared is None:
        return compute()
    key = tuple(id(a) for a in inputs)
    hit = shared.results.get(key)
    if hit is None or any(x is not y for x, y in zip(hit[0], inputs, strict=True)):  # type: ignore[call-overload]
        hit = (tuple(inputs), compute())
        shared.results[key] = hit
    return hit[1]  # type: ignore[return-value]
