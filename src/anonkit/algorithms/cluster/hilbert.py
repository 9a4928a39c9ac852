"""Hilbert-curve ordering of records (Ghinita, Karras, Kalnis, Mamoulis, VLDB 2007; spec §5.7).

* :func:`hilbert_index` — the Hilbert index of every row of an ``(n × d)`` array of integer cell
  coordinates, any ``d ≥ 1``, vectorized over the rows. It follows J. Skilling, "Programming the
  Hilbert curve" (AIP Conf. Proc. 707, 2004): the coordinates are turned into the curve's
  *transpose* (``AxesToTranspose``: undo the excess work of the inverse transform level by level,
  then Gray-encode), whose bits are interleaved into the index — bit ``j`` of coordinate ``i`` goes
  to bit ``j·d + (d − 1 − i)`` of the index, so coordinate 0 is the most significant dimension. This
  is the orientation of the PyPI package ``hilbertcurve`` (≥ 2), the tests' oracle; at order 2 in
  2-D it visits (0,0),(1,0),(1,1),(0,1),(0,2),… (spec §5.7).
* :func:`hilbert_sort_key` / :func:`key_to_ints` — sorting and reading indices of more than 64 bits.
* :func:`hilbert_order` — the records of a :class:`~anonkit.algorithms.cluster._bk_engine.QISpace`
  along the curve (spec §4.2 step 1, §5.7), ties by record index; :func:`records_in_hilbert_order`
  the same for any records of a table (the bucketization family's ``order: hilbert``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from anonkit.algorithms.cluster._bk_engine import QISpace
    from anonkit.table import Table

#: Default bits per attribute of the quantization (spec §4.2, §6: ``p = 10``).
DEFAULT_BITS = 10


def _transpose(cells: np.ndarray, bits: int) -> np.ndarray:
    """Skilling's ``AxesToTranspose`` on every row of ``cells`` (``uint64``, modified copy)."""
    x = cells.copy()
    d = x.shape[1]
    top = np.uint64(1) << np.uint64(bits - 1)
    # undo the excess work of the inverse transform, from the most significant bit down
    q = top
    while q > 1:
        p = q - np.uint64(1)
        for i in range(d):
            hit = (x[:, i] & q) != 0
            # bit set: invert the low bits of axis 0; else exchange the low bits of axes 0 and i
            t = np.where(hit, np.uint64(0), (x[:, 0] ^ x[:, i]) & p)
            x[:, 0] ^= np.where(hit, p, t)
            x[:, i] ^= t
        q >>= np.uint64(1)
    # Gray encode
    for i in range(1, d):
        x[:, i] ^= x[:, i - 1]
    t = np.zeros(len(x), dtype=np.uint64)
    q = top
    while q > 1:
        t ^= np.where((x[:, d - 1] & q) != 0, q - np.uint64(1), np.uint64(0))
        q >>= np.uint64(1)
    x ^= t[:, None]
    return x


def _as_cells(cells: np.ndarray, bits: int) -> np.ndarray:
    if not isinstance(bits, (int, np.integer)) or not 1 <= int(bits) <= 64:
        raise ValueError(f"bits must be an integer in [1, 64], got {bits!r}")
    arr = np.asarray(cells)
    if arr.ndim != 2 or arr.shape[1] < 1:
        raise ValueError(f"cells must be an (n × d) array with d ≥ 1, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iub":
        if arr.dtype.kind == "O":
            arr = arr.astype(np.uint64)  # Python ints up to 2**64 − 1
        else:
            raise ValueError(f"cells must hold integers, got dtype {arr.dtype}")
    if arr.size and arr.dtype.kind == "i" and int(arr.min()) < 0:
        raise ValueError("cells must be non-negative")
    out = arr.astype(np.uint64)
    if arr.size and bits < 64 and int(out.max()) >= (1 << int(bits)):
        raise ValueError(f"cells must be < 2**bits = {1 << int(bits)}, got {int(out.max())}")
    return out


def hilbert_index(cells: np.ndarray, bits: int) -> np.ndarray:
    """Hilbert index of every row of ``cells`` on the ``d``-dimensional curve of order ``bits``.

    Parameters
    ----------
    cells:
        ``(n × d)`` non-negative integer coordinates, each ``< 2**bits``; any ``d ≥ 1`` (for
        ``d = 1`` the index is the coordinate).
    bits:
        Bits per coordinate (the curve's order), 1…64.

    Returns
    -------
    ``(n,)`` ``uint64`` when ``d · bits ≤ 64``. Otherwise an ``(n × w)`` ``uint64`` array,
    ``w = ⌈d · bits / 64⌉``: the index as ``w`` words, the most significant first (word 0 holds the
    top ``d·bits − 64(w−1)`` bits). Rows of this array sort lexicographically in index order — see
    :func:`hilbert_sort_key` — and :func:`key_to_ints` turns them into Python ints.

    Raises
    ------
    ValueError
        ``bits`` outside 1…64, ``cells`` not a 2-D array of integers in ``[0, 2**bits)``.
    """
    x = _as_cells(cells, bits)
    n, d = x.shape
    bits = int(bits)
    total = d * bits
    if d > 1:
        x = _transpose(x, bits)
    words = max(1, -(-total // 64))
    out = np.zeros((n, words), dtype=np.uint64)
    one = np.uint64(1)
    for j in range(bits):
        for i in range(d):
            pos = j * d + (d - 1 - i)
            word = words - 1 - pos // 64
            out[:, word] |= ((x[:, i] >> np.uint64(j)) & one) << np.uint64(pos % 64)
    return out[:, 0] if total <= 64 else out


def key_to_ints(key: np.ndarray) -> list[int]:
    """The indices of :func:`hilbert_index` (either form) as Python ints."""
    k = np.asarray(key, dtype=np.uint64)
    if k.ndim == 1:
        return [int(v) for v in k]
    out = []
    for row in k:
        v = 0
        for w in row:
            v = (v << 64) | int(w)
        out.append(v)
    return out


def hilbert_sort_key(index: np.ndarray, ids: np.ndarray | None = None) -> np.ndarray:
    """Positions sorting rows by Hilbert index (either form of :func:`hilbert_index`), then by ``ids``
    (default: the row position)."""
    idx = np.asarray(index)
    n = idx.shape[0]
    tie = np.arange(n) if ids is None else np.asarray(ids)
    if idx.ndim == 1:
        return np.lexsort((tie, idx))
    return np.lexsort((tie, *[idx[:, w] for w in range(idx.shape[1] - 1, -1, -1)]))


def leaf_order(hierarchy: object) -> np.ndarray:
    """Position of every leaf (by code) in the hierarchy's leaf order: a depth-first walk in which
    every subtree's leaves are contiguous, subtrees (and leaves) taken in file order."""
    maps = np.asarray(hierarchy.maps)  # type: ignore[attr-defined]
    h = maps.shape[0] - 1
    # sort leaves by their ancestors from the top level down, then by their own code
    keys = [maps[0]] + [maps[level] for level in range(1, h + 1)]
    order = np.lexsort(keys)
    pos = np.empty(len(order), dtype=np.int64)
    pos[order] = np.arange(len(order))
    return pos


def quantization_bits(space: QISpace, bits: int = DEFAULT_BITS) -> int:
    """Bits per attribute: ``bits``, raised to the bits the attribute with most distinct values needs
    (``⌈log2 distinct⌉``), but not beyond ``⌊64 / d⌋`` (one 64-bit index) unless ``bits`` itself is."""
    d = space.X.shape[1] + space.C.shape[1]
    need = 1
    for a in range(space.X.shape[1]):
        x = space.X[:, a]
        u = len(np.unique(x[~np.isnan(x)]))
        need = max(need, math.ceil(math.log2(u)) if u > 1 else 1)
    for a in range(space.C.shape[1]):
        u = len(space.used[a])
        need = max(need, math.ceil(math.log2(u)) if u > 1 else 1)
    p = max(int(bits), need)
    if d and d * p > 64:
        p = max(int(bits), 64 // d)
    return min(p, 64)


def unit_coordinates(space: QISpace) -> np.ndarray:
    """``(m × d)`` QIs of the records of ``space`` in ``[0, 1]``, in the table's QI order.

    Numeric QIs: ``(v − min) / (max − min)`` as :class:`QISpace` stores them; a missing value → 0.
    Categorical QIs: rank of the leaf, among the leaves the records use, in the hierarchy's leaf
    order (:func:`leaf_order`), divided by (number of used leaves − 1) (0 for one leaf); a missing
    categorical value is the hierarchy's empty leaf and is placed like any other leaf.
    """
    table = space.table
    m = len(space.rows)
    out = np.zeros((m, len(table.qi)))
    for a, j in enumerate(space.num):
        out[:, j] = np.nan_to_num(space.X[:, a], nan=0.0)
    for a, j in enumerate(space.cat):
        used = space.used[a]
        pos = leaf_order(table.hierarchies[j])[used]
        rank = np.empty(len(used), dtype=np.int64)
        rank[np.argsort(pos, kind="stable")] = np.arange(len(used))
        out[:, j] = rank[space.C[:, a]] / (len(used) - 1) if len(used) > 1 else 0.0
    return np.clip(out, 0.0, 1.0)


def quantize(unit: np.ndarray, bits: int) -> np.ndarray:
    """Cells ``⌊u · 2^bits⌋`` of coordinates in ``[0, 1]`` (1 goes to the last cell)."""
    cells = 1 << int(bits)
    q = np.floor(np.asarray(unit, dtype=np.float64) * cells)
    return np.minimum(q, cells - 1).astype(np.uint64)


def hilbert_order(space: QISpace, bits: int = DEFAULT_BITS) -> tuple[np.ndarray, int]:
    """Positions in ``space.rows`` along the Hilbert curve, ties by record index (spec §4.2 step 1).

    Every QI is put in ``[0, 1]`` (:func:`unit_coordinates`) and quantized to ``2^p`` cells with
    ``p`` from :func:`quantization_bits`. Returns the order and ``p``.
    """
    p = quantization_bits(space, bits)
    if len(space.rows) == 0:
        return np.zeros(0, dtype=np.int64), p
    cells = quantize(unit_coordinates(space), p)
    if cells.shape[1] == 0:
        return np.arange(len(space.rows), dtype=np.int64), p
    return hilbert_sort_key(hilbert_index(cells, p), space.rows).astype(np.int64), p


def records_in_hilbert_order(table: Table, rows: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Positions of the records ``rows`` of ``table`` along the Hilbert curve of their
    quasi-identifier space (the grid :func:`quantization_bits` fits), ties by ``ids``: the order
    the bucketization family's ``order: hilbert`` cuts in."""
    from anonkit.algorithms.cluster._bk_engine import QISpace

    space = QISpace(table, rows)
    p = quantization_bits(space)
    cells = quantize(unit_coordinates(space), p)
    return hilbert_sort_key(hilbert_index(cells, p), ids).astype(np.int64)
