"""Numba kernels for grouping integer keys (the hot path of every class computation).

``dense_ids`` turns an array of int64 keys into dense group ids ``0..g-1`` in order of first
appearance with one pass over an open-addressing hash table: O(n), no sort. It is what
``np.unique(..., return_inverse=True)`` does, 5–20× faster on the sizes we see (10⁴–10⁷ keys).

The lattice search's kernels are *tiered* (:func:`tiered`): each has a numpy version with exactly
its results, used until its work would have paid for loading numba, so a short run never imports it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd

_MIX = np.uint64(0x9E3779B97F4A7C15)
#: Below this many keys the numba kernel is used (the hot path of lattice search, called thousands
#: of times on distinct tuples); above it pandas' hash factorize is as fast and needs no JIT start-up.
NUMBA_BELOW = 200_000
#: a key space of at most ``LOOKUP_PER_ROW * n + LOOKUP_SLACK`` keys (``n`` rows) is numbered through a lookup array
#: of the whole space (marked, then a cumulative sum or a first-seen table) instead of a hash: the kernels' one rule
LOOKUP_PER_ROW = 4
LOOKUP_SLACK = 4096


@functools.cache
def compiled(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` compiled by numba (nopython, cached on disk, releasing the GIL), on first use: numba is
    imported, and a kernel compiled or loaded from its cache, only when a run needs it."""
    import numba as nb

    return nb.njit(cache=True, nogil=True)(fn)  # type: ignore[no-any-return]


#: CPU seconds of work the tiered kernels (:func:`tiered`) do in numpy before numba is loaded: about
#: what importing numba and loading their compiled code from its cache takes (0.2 s + 0.3 s
#: measured). A short run never loads numba; a longer one switches once its numpy work has cost
#: what the switch costs, so it never pays more than twice the better choice (the ski-rental rule).
#: The work is counted in the calling thread's CPU time (:data:`WORK_CLOCK`), not in wall time: on a
#: busy machine a kernel waits for a core, and counting that wait made short runs load numba.
NUMBA_AFTER_SECONDS = 0.4

#: the clock the tiered kernels' work is counted on: this thread's CPU time (the kernels run on the
#: thread that calls them; other threads' work, e.g. a progress display, and time spent waiting for a
#: core are not the kernels' work)
WORK_CLOCK: Callable[[], float] = time.thread_time


class _Tier:
    """Which implementation the tiered kernels use: numpy (``spent`` seconds so far) or numba."""

    spent = 0.0
    jit = False


_TIER = _Tier()


def use_numba(switch: bool | None = None) -> bool:
    """Whether the tiered kernels run compiled by numba (``switch``: set it, e.g. in tests, or to
    load numba up front for a long-lived process). Both implementations give the same results."""
    if switch is not None:
        _TIER.jit, _TIER.spent = bool(switch), 0.0
    return _TIER.jit


def tiered(kernel: Callable[..., Any], numpy_version: Callable[..., Any], *args: Any) -> Any:
    """``kernel(*args)`` compiled by numba once :data:`NUMBA_AFTER_SECONDS` of work (CPU time of the
    calling thread, :data:`WORK_CLOCK`) were done by ``numpy_version(*args)`` (the same results,
    without loading numba) — see :func:`use_numba`."""
    if _TIER.jit:
        return compiled(kernel)(*args)
    start = WORK_CLOCK()
    out = numpy_version(*args)
    _TIER.spent += WORK_CLOCK() - start
    if _TIER.spent >= NUMBA_AFTER_SECONDS:
        _TIER.jit = True
    return out


def _first_appearance(keys: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense ids of int64 ``keys`` in order of first appearance, and their number (pandas' hash)."""
    codes, uniques = pd.factorize(keys)
    return codes.astype(np.int64, copy=False), len(uniques)


def _dense_ids_py(keys: np.ndarray) -> tuple[np.ndarray, int]:
    n = keys.shape[0]
    cap = 16
    while cap < 2 * n:
        cap *= 2
    mask = cap - 1
    slot_key = np.empty(cap, dtype=np.int64)
    slot_id = np.full(cap, -1, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    g = 0
    for i in range(n):
        k = keys[i]
        h = (np.uint64(k) * _MIX) >> np.uint64(17)
        j = np.int64(h & np.uint64(mask))
        while True:
            s = slot_id[j]
            if s < 0:
                slot_key[j] = k
                slot_id[j] = g
                out[i] = g
                g += 1
                break
            if slot_key[j] == k:
                out[i] = s
                break
            j = (j + 1) & mask
    return out, g


def _node_ids_py(
    cols: np.ndarray, flat: np.ndarray, offsets: np.ndarray, sizes: np.ndarray, radix: int
) -> tuple[np.ndarray, int]:
    """Generalize and group in one pass: row ``i``'s key is the mixed-radix number of
    ``flat[offsets[j] + cols[j, i]]`` over ``j``; keys get dense ids in first-appearance order
    (a lookup array when the key space is small, else an open-addressing hash table).

    The hash-table loop repeats ``_dense_ids_py`` on purpose: fusing key computation and probing in
    one loop is what keeps a lattice node under a millisecond (measured 0.52 vs 0.70 ms on Adult)."""
    d, m = cols.shape
    out = np.empty(m, dtype=np.int64)
    g = 0
    if radix <= LOOKUP_PER_ROW * m + LOOKUP_SLACK:
        seen = np.full(radix, -1, dtype=np.int64)
        for i in range(m):
            key = np.int64(0)
            for j in range(d):
                key = key * sizes[j] + flat[offsets[j] + cols[j, i]]
            s = seen[key]
            if s < 0:
                seen[key] = g
                out[i] = g
                g += 1
            else:
                out[i] = s
        return out, g
    cap = 16
    while cap < 2 * m:
        cap *= 2
    mask = cap - 1
    slot_key = np.empty(cap, dtype=np.int64)
    slot_id = np.full(cap, -1, dtype=np.int64)
    for i in range(m):
        key = np.int64(0)
        for j in range(d):
            key = key * sizes[j] + flat[offsets[j] + cols[j, i]]
        h = (np.uint64(key) * _MIX) >> np.uint64(17)
        k = np.int64(h & np.uint64(mask))
        while True:
            s = slot_id[k]
            if s < 0:
                slot_key[k] = key
                slot_id[k] = g
                out[i] = g
                g += 1
                break
            if slot_key[k] == key:
                out[i] = s
                break
            k = (k + 1) & mask
    return out, g




def node_ids(
    cols: np.ndarray, flat: np.ndarray, offsets: np.ndarray, sizes: np.ndarray
) -> tuple[np.ndarray, int] | None:
    """Class ids of tuples generalized through lookup arrays (see ``_node_ids_py``).

    ``cols`` is ``(d × m)`` int32, ``flat`` all lookup arrays concatenated, ``offsets[j]`` where
    column ``j``'s array starts, ``sizes[j]`` the number of codes it maps to. Returns None when the
    key space does not fit an int64 (the caller then groups column by column).
    """
    radix = 1
    for size in sizes:
        radix *= max(int(size), 1)
    if radix >= _LIMIT:
        return None
    return tiered(_node_ids_py, _node_ids_np, cols, flat, offsets, np.maximum(sizes, 1).astype(np.int64), radix)


def _node_ids_np(
    cols: np.ndarray, flat: np.ndarray, offsets: np.ndarray, sizes: np.ndarray, radix: int
) -> tuple[np.ndarray, int]:
    """``_node_ids_py`` in numpy: the same keys, ids in the same (first-appearance) order."""
    key = np.zeros(cols.shape[1], dtype=np.int64)
    for j in range(cols.shape[0]):
        key *= sizes[j]
        key += flat[offsets[j] + cols[j]]
    return _first_appearance(key)


def _grouping_py(
    cols: np.ndarray, flat: np.ndarray, offsets: np.ndarray, sizes: np.ndarray, radix: int, weights: np.ndarray
) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """``_node_ids_py``'s ids, and in the same pass each group's ``(g × d)`` int64 codes and its summed
    ``weights`` (float64). A group's codes are its first row's generalized codes
    ``flat[offsets[j] + cols[j, first]]``: the row where a group first appears is noted and the codes read
    from it once the groups are known. The sums add the rows' weights in row order, as ``np.bincount``
    does (the same bits). One compiled pass instead of the grouping, a numpy pass for the first rows, a
    gather for the codes and a ``bincount`` for the sizes (a new table's search groups a dozen nodes from
    scratch). The keys and ids are ``_node_ids_py``'s; with a small key space the keys are made a column
    at a time first (8 % faster than row by row on Adult), with a large one row by row as there. A column whose
    level has one code (``sizes[j] == 1``: the top of a hierarchy, every leaf mapped to code 0) is skipped in
    the keys: ``key · 1 + 0`` is ``key``, so the keys, and with them the ids, are the same (a search checks
    many nodes with attributes at the top; the codes are still read from every column)."""
    d, m = cols.shape
    out = np.zeros(m, dtype=np.int64)  # the keys first (small key space), then the ids over them
    first = np.empty(m, dtype=np.int32)  # (fewer than 2**31 rows: NUMBA_BELOW)
    acc = np.zeros(m, dtype=np.float64)
    g = 0
    if radix <= LOOKUP_PER_ROW * m + LOOKUP_SLACK:
        for j in range(d):
            size = sizes[j]
            if size == 1:  # one code (0) at this level, e.g. the top: ``key · 1 + 0`` is the key, skip the pass
                continue
            at = offsets[j]
            col = cols[j]
            for i in range(m):
                out[i] = out[i] * size + flat[at + col[i]]
        seen = np.full(radix, -1, dtype=np.int32)
        for i in range(m):
            key = out[i]
            s = seen[key]
            if s < 0:
                s = g
                seen[key] = g
                first[g] = i
                g += 1
            out[i] = s
            acc[s] += weights[i]
    else:
        cap = 16
        while cap < 2 * m:
            cap *= 2
        mask = cap - 1
        slot_key = np.empty(cap, dtype=np.int64)
        slot_id = np.full(cap, -1, dtype=np.int32)
        for i in range(m):
            k1 = np.int64(0)
            for j in range(d):
                if sizes[j] != 1:  # a one-code level adds nothing to the key (as above)
                    k1 = k1 * sizes[j] + flat[offsets[j] + cols[j, i]]
            h = (np.uint64(k1) * _MIX) >> np.uint64(17)
            k = np.int64(h & np.uint64(mask))
            while True:
                s = slot_id[k]
                if s < 0:
                    s = g
                    slot_key[k] = k1
                    slot_id[k] = g
                    first[g] = i
                    g += 1
                    break
                if slot_key[k] == k1:
                    break
                k = (k + 1) & mask
            out[i] = s
            acc[s] += weights[i]
    codes = np.empty((g, d), dtype=np.int64)
    for c in range(g):
        r = first[c]
        for j in range(d):
            codes[c, j] = flat[offsets[j] + cols[j, r]]
    return out, g, codes, acc[:g].copy()


def _grouping_np(
    cols: np.ndarray, flat: np.ndarray, offsets: np.ndarray, sizes: np.ndarray, radix: int, weights: np.ndarray
) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """``_grouping_py`` in numpy: ``_node_ids_np``'s ids, the first row of each group (:func:`first_rows`),
    the codes gathered from those rows and ``np.bincount``'s sums."""
    ids, g = _node_ids_np(cols, flat, offsets, sizes, radix)
    codes = flat[cols[:, first_rows(ids, g)].T + offsets]
    return ids, g, codes, np.bincount(ids, weights=weights, minlength=g).astype(np.float64, copy=False)


def node_grouping(
    cols: np.ndarray, flat: np.ndarray, offsets: np.ndarray, sizes: np.ndarray, weights: np.ndarray
) -> tuple[np.ndarray, int, np.ndarray, np.ndarray] | None:
    """:func:`node_ids`, each group's generalized codes (``(g × d)`` int64, from its first row) and its
    summed ``weights`` (float64, ``np.bincount(ids, weights, minlength=g)``'s bits): the same ids as
    :func:`node_ids` for the same arguments (``_grouping_py`` makes the same keys and numbers them in
    the same first-appearance order), so a caller may take either. None when the key space does not fit
    an int64, as :func:`node_ids`."""
    radix = 1
    for size in sizes:
        radix *= max(int(size), 1)
    if radix >= _LIMIT:
        return None
    return tiered(  # type: ignore[no-any-return]
        _grouping_py, _grouping_np, cols, flat, offsets, np.maximum(sizes, 1).astype(np.int64), radix,
        np.ascontiguousarray(weights, dtype=np.float64))


def _kernel():  # type: ignore[no-untyped-def]
    return compiled(_dense_ids_py)


def dense_ids(keys: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense ids (first-appearance order) and the number of distinct keys of an int64 array."""
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    if keys.size == 0:
        return np.empty(0, dtype=np.int64), 0
    if keys.size >= NUMBA_BELOW or not _TIER.jit:  # (the same ids; numba only once it is loaded)
        return _first_appearance(keys)
    return _kernel()(keys)


_LIMIT = 2**62
#: key spaces (products of code counts) at or above this do not fit the kernels' int64 keys
KEY_LIMIT = _LIMIT


def _densify(key: np.ndarray, radix: int) -> tuple[np.ndarray, int]:
    """Dense ids of keys in ``[0, radix)``: a lookup array when the key space is small, else a hash;
    ``key`` (:func:`group_columns`' own array) is overwritten with them when that saves memory."""
    n = key.shape[0]
    if radix <= LOOKUP_PER_ROW * n + LOOKUP_SLACK:
        present = np.zeros(radix, dtype=np.bool_)
        present[key] = True
        remap = np.cumsum(present, dtype=np.int64) - 1
        del present
        for start in range(0, n, CHUNK_ROWS):  # in place, a chunk at a time: no second n-long array
            key[start:start + CHUNK_ROWS] = remap[key[start:start + CHUNK_ROWS]]
        return key, int(remap[-1]) + 1
    if n >= IN_PLACE_ABOVE:
        # the distinct keys in first-appearance order, then every chunk's ids written over its keys
        uniques = pd.Index(pd.unique(key))
        for start in range(0, n, CHUNK_ROWS):
            key[start:start + CHUNK_ROWS] = uniques.get_indexer(key[start:start + CHUNK_ROWS])
        return key, len(uniques)
    return dense_ids(key)


def first_rows(group: np.ndarray, m: int) -> np.ndarray:
    """The first row of each of the ``m`` groups of ``group`` (ids ``0..m-1``; rows of a negative id
    belong to none; a group without rows gets −1), a chunk at a time from the end (the last write of
    each group is its first row): no n-long index array."""
    n = len(group)
    first = np.full(m, -1, dtype=np.int64)
    index = np.int64 if n >= 2**31 else np.int32
    for end in range(n, 0, -CHUNK_ROWS):
        start = max(end - CHUNK_ROWS, 0)
        backwards = np.arange(end - 1, start - 1, -1, dtype=index)
        ids = group[start:end][::-1]
        if ids.size and ids.min() < 0:
            keep = ids >= 0
            backwards, ids = backwards[keep], ids[keep]
        first[ids] = backwards
    return first


#: above this many keys :func:`group_columns` densifies a hashed key in place (two passes over the
#: keys instead of one, and no second n-long array)
IN_PLACE_ABOVE = 2_000_000


#: rows per chunk of the steps that work on n-long arrays a chunk at a time (no n-long temporary)
CHUNK_ROWS = 1 << 20


def gather(values: np.ndarray, index: np.ndarray, dtype: Any) -> np.ndarray:
    """``values[index]`` as ``dtype``, :data:`CHUNK_ROWS` of the index at a time: numpy turns a whole
    int32 index into an int64 one first, which for the records of a large release is an array as long."""
    out = np.empty(len(index), dtype=dtype)
    for start in range(0, len(index), CHUNK_ROWS):
        out[start:start + CHUNK_ROWS] = values[index[start:start + CHUNK_ROWS]]
    return out


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    import os

    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def group_columns(columns: list[np.ndarray], sizes: list[int], *, shift_first: int = 0) -> tuple[np.ndarray, int]:
    """Group rows by several integer columns (column ``j`` takes values in ``[0, sizes[j])``; the
    first column's values plus ``shift_first``, so ``-1`` can stand for "none" without a shifted copy).

    Builds a mixed-radix int64 key in place (one n-long array), densifying whenever the radix product
    would overflow, so any number of columns works. Returns dense group ids and their count; ids
    follow the order of the mixed-radix key when the key space is small and first appearance
    otherwise (both deterministic).
    """
    return group_pairs(zip(columns, sizes, strict=True), shift_first=shift_first)


def group_pairs(pairs: Iterable[tuple[np.ndarray, int]], *, shift_first: int = 0) -> tuple[np.ndarray, int]:
    """:func:`group_columns` of ``(column, size)`` pairs taken one at a time, so a caller that makes
    each column on demand (a generator) holds one column beside the key, not all of them."""
    key: np.ndarray | None = None
    radix = 1
    for col, size in pairs:
        size = max(int(size), 1)
        if key is None:
            key = col.astype(np.int64)  # a copy of its own: the key is built in place (no n-long temporaries)
            if shift_first:
                key += shift_first
            radix = size
            continue
        if radix * size >= _LIMIT:
            key, radix = dense_ids(key)
        key *= size
        np.add(key, col, out=key, casting="unsafe")  # codes of any integer type, all in [0, size)
        radix *= size
    if key is None:
        raise ValueError("no columns to group by")
    return _densify(key, radix)


def _roll_py(
    codes: np.ndarray,
    flat: np.ndarray,
    offsets: np.ndarray,
    sizes: np.ndarray,
    radix: int,
    weights: np.ndarray,
    hist: np.ndarray,
) -> tuple[np.ndarray, int, np.ndarray, np.ndarray, np.ndarray]:
    """Roll classes up: class ``i`` (codes ``codes[i]``) maps to the class of the generalized codes
    ``flat[offsets[j] + codes[i, j]]``; returns (new class of each old class, number of new
    classes, their codes, summed ``weights`` and summed ``hist`` rows)."""
    c, d = codes.shape
    ids = np.empty(c, dtype=np.int64)
    gen = np.empty((c, d), dtype=np.int64)
    g = 0
    if radix <= LOOKUP_PER_ROW * c + LOOKUP_SLACK:
        seen = np.full(radix, -1, dtype=np.int64)
        for i in range(c):
            key = np.int64(0)
            for j in range(d):
                v = flat[offsets[j] + codes[i, j]]
                gen[i, j] = v
                key = key * sizes[j] + v
            s = seen[key]
            if s < 0:
                seen[key] = g
                ids[i] = g
                g += 1
            else:
                ids[i] = s
    else:
        cap = 16
        while cap < 2 * c:
            cap *= 2
        mask = cap - 1
        slot_key = np.empty(cap, dtype=np.int64)
        slot_id = np.full(cap, -1, dtype=np.int64)
        for i in range(c):
            key = np.int64(0)
            for j in range(d):
                v = flat[offsets[j] + codes[i, j]]
                gen[i, j] = v
                key = key * sizes[j] + v
            h = (np.uint64(key) * _MIX) >> np.uint64(17)
            k = np.int64(h & np.uint64(mask))
            while True:
                s = slot_id[k]
                if s < 0:
                    slot_key[k] = key
                    slot_id[k] = g
                    ids[i] = g
                    g += 1
                    break
                if slot_key[k] == key:
                    ids[i] = s
                    break
                k = (k + 1) & mask
    new_codes = np.empty((g, d), dtype=np.int64)
    new_w = np.zeros(g, dtype=np.float64)
    new_h = np.zeros((g, hist.shape[1]), dtype=np.float64)
    done = np.zeros(g, dtype=np.bool_)
    for i in range(c):
        t = ids[i]
        if not done[t]:
            done[t] = True
            for j in range(d):
                new_codes[t, j] = gen[i, j]
        new_w[t] += weights[i]
        for s2 in range(hist.shape[1]):
            new_h[t, s2] += hist[i, s2]
    return ids, g, new_codes, new_w, new_h




def roll_classes(
    codes: np.ndarray, flat: np.ndarray, offsets: np.ndarray, sizes: np.ndarray, weights: np.ndarray, hist: np.ndarray
) -> tuple[np.ndarray, int, np.ndarray, np.ndarray, np.ndarray] | None:
    """Numba roll-up of classes (see ``_roll_py``); None when the key space overflows an int64."""
    radix = 1
    for size in sizes:
        radix *= max(int(size), 1)
    if radix >= _LIMIT:
        return None
    return roll_kernel(codes, flat, offsets, np.maximum(sizes, 1).astype(np.int64), radix, weights, hist)


def roll_kernel(
    codes: np.ndarray, flat: np.ndarray, offsets: np.ndarray, sizes: np.ndarray, radix: int, weights: np.ndarray,
    hist: np.ndarray,
) -> tuple[np.ndarray, int, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`roll_classes` for a caller that checked the key space: ``sizes`` int64, each at least 1,
    their product ``radix`` below :data:`KEY_LIMIT`."""
    return tiered(  # type: ignore[no-any-return]
        _roll_py,
        _roll_np,
        np.ascontiguousarray(codes, dtype=np.int64),
        flat,
        offsets,
        sizes,
        radix,
        np.ascontiguousarray(weights, dtype=np.float64),
        np.ascontiguousarray(hist, dtype=np.float64),
    )


def _roll_np(
    codes: np.ndarray,
    flat: np.ndarray,
    offsets: np.ndarray,
    sizes: np.ndarray,
    radix: int,
    weights: np.ndarray,
    hist: np.ndarray,
) -> tuple[np.ndarray, int, np.ndarray, np.ndarray, np.ndarray]:
    """``_roll_py`` in numpy: the same ids (first appearance), codes and sums (added in class order)."""
    c, d = codes.shape
    gen = np.empty((c, d), dtype=np.int64)
    key = np.zeros(c, dtype=np.int64)
    for j in range(d):
        gen[:, j] = flat[offsets[j] + codes[:, j]]
        key *= sizes[j]
        key += gen[:, j]
    ids, g = _first_appearance(key)
    first = first_rows(ids, g)
    new_w = np.bincount(ids, weights=weights, minlength=g).astype(np.float64)
    new_h = np.empty((g, hist.shape[1]), dtype=np.float64)
    for s2 in range(hist.shape[1]):
        new_h[:, s2] = np.bincount(ids, weights=hist[:, s2], minlength=g)
    return ids, g, gen[first], new_w, new_h
