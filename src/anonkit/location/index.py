"""The quadtree of the area and the broker's incrementally maintained index of current positions.

:class:`Grid` is the geometry: the area's quadtree down to the resolution floor (depth ``D``), a
position's leaf cell ``(ix, iy)`` at depth ``D`` (so its cell at depth ``d`` is
``(ix >> (D − d), iy >> (D − d))``), a cell's bounds and area. Every bound is computed by one formula,
``x0 + width · i / 2**d`` (``x1`` for the last), whose value does not depend on the depth it is asked
at, and a position's leaf is the one whose bounds hold it by float comparison: the published box
always contains the position it cloaks, whatever the rounding.

:class:`QuadIndex` counts the subjects in every non-empty cell of every level (one dictionary per
level, keyed by the cell's Morton code): a position change costs O(levels below the common ancestor
of the old and new cells), a request O(D) lookups, never a scan of the subjects. Memory: at most one
entry per subject and level.
"""

from __future__ import annotations

import math
from collections.abc import Hashable

import numpy as np

from anonkit.errors import InputError
from anonkit.location.messages import Area

#: the depth of the quadtree when no resolution floor is given: cells down to the area's shorter
#: side / 2**16 (spec §6 suggests a floor of 1 unit; a default relative to the area fits any unit)
DEFAULT_DEPTH = 16
#: the deepest quadtree the index supports (cell keys of the batch kernel fit 63 bits)
MAX_DEPTH = 28
_CHUNK = 1 << 16



class Grid:
    """The quadtree of ``area`` down to the resolution floor ``min_side``.

    ``depth`` is the deepest level whose cells' shorter side is at least ``min_side`` (capped at
    :data:`MAX_DEPTH`); the default floor is the shorter side / 2**:data:`DEFAULT_DEPTH`.
    """

    __slots__ = ("area", "depth", "h", "n", "w", "x0", "x1", "y0", "y1")

    def __init__(self, area: Area, min_side: float | None = None) -> None:
        if not isinstance(area, Area):
            raise InputError(f"the area must be an Area, not {type(area).__name__}", key="area")
        self.area = area
        self.x0, self.y0, self.x1, self.y1 = area.x0, area.y0, area.x1, area.y1
        self.w = area.x1 - area.x0
        self.h = area.y1 - area.y0
        side = min(self.w, self.h)
        if min_side is None:
            min_side = math.ldexp(side, -DEFAULT_DEPTH)
        elif not (isinstance(min_side, int | float) and math.isfinite(min_side) and min_side > 0):
            raise InputError("min_side must be a positive finite number", key="min_side", value=min_side)
        depth = 0
        while depth < MAX_DEPTH and math.ldexp(side, -(depth + 1)) >= min_side:
            depth += 1
        # a leaf must stay wider than the rounding of its bounds
        while depth > 0 and not (_strictly_increasing(self.x0, self.w, self.x1, depth)
                                 and _strictly_increasing(self.y0, self.h, self.y1, depth)):
            depth -= 1
        self.depth = depth
        self.n = 1 << depth

    # ------------------------------------------------------------------ geometry

    def xb(self, i: int, d: int) -> float:
        """The ``i``-th x bound of the cells at depth ``d`` (``0 <= i <= 2**d``)."""
        return self.x1 if i == 1 << d else self.x0 + self.w * math.ldexp(i, -d)

    def yb(self, i: int, d: int) -> float:
        return self.y1 if i == 1 << d else self.y0 + self.h * math.ldexp(i, -d)

    def leaf(self, x: float, y: float) -> tuple[int, int]:
        """The leaf cell ``(ix, iy)`` holding ``(x, y)`` (a point of the area)."""
        return _leaf(x, self.x0, self.w, self.x1, self.depth), _leaf(y, self.y0, self.h, self.y1, self.depth)

    def box(self, d: int, cx: int, cy: int) -> tuple[float, float, float, float]:
        """The bounds ``(x0, y0, x1, y1)`` of cell ``(cx, cy)`` at depth ``d``."""
        return self.xb(cx, d), self.yb(cy, d), self.xb(cx + 1, d), self.yb(cy + 1, d)

    def cell_area(self, d: int) -> float:
        """The nominal area of a cell at depth ``d``: the area's / 4**d."""
        return math.ldexp(self.w * self.h, -2 * d)

    def depth_for_area(self, max_area: float | None) -> int:
        """The shallowest depth whose cells are no larger than ``max_area`` (0 for ``None``);
        ``depth + 1`` when even the leaves are larger."""
        if max_area is None:
            return 0
        for d in range(self.depth + 1):
            if self.cell_area(d) <= max_area:
                return d
        return self.depth + 1

    # ------------------------------------------------------------------ vectorized (batch)

    def leaves(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`leaf` of many points (int32: depth ≤ 28): the same cells, by the same float
        operations; computed in chunks so that the temporaries stay small."""
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        ix = np.empty(x.shape[0], dtype=np.int32)
        iy = np.empty(y.shape[0], dtype=np.int32)
        for a in range(0, x.shape[0], _CHUNK):
            ix[a:a + _CHUNK] = _leaves(x[a:a + _CHUNK], self.x0, self.w, self.x1, self.depth)
            iy[a:a + _CHUNK] = _leaves(y[a:a + _CHUNK], self.y0, self.h, self.y1, self.depth)
        return ix, iy

    def boxes(self, d: np.ndarray, cx: np.ndarray, cy: np.ndarray) -> tuple[np.ndarray, ...]:
        """:meth:`box` of many cells."""
        return (_bounds(cx, d, self.x0, self.w, self.x1), _bounds(cy, d, self.y0, self.h, self.y1),
                _bounds(cx + 1, d, self.x0, self.w, self.x1), _bounds(cy + 1, d, self.y0, self.h, self.y1))


def _strictly_increasing(lo: float, size: float, hi: float, depth: int) -> bool:
    n = 1 << depth
    step = math.ldexp(size, -depth)
    # the bounds near the largest coordinate are the first to collide
    a = lo + size * math.ldexp(n - 1, -depth)
    b = lo + size * math.ldexp(n - 2, -depth) if n >= 2 else lo
    return step > 0 and b < a < hi and lo + size * math.ldexp(1, -depth) > lo


def _leaf(v: float, lo: float, size: float, hi: float, depth: int) -> int:
    n = 1 << depth
    i = math.floor((v - lo) / size * n)
    i = 0 if i < 0 else n - 1 if i > n - 1 else i
    while i > 0 and v < lo + size * math.ldexp(i, -depth):
        i -= 1
    while i < n - 1 and v >= lo + size * math.ldexp(i + 1, -depth):
        i += 1
    return i


def _leaves(v: np.ndarray, lo: float, size: float, hi: float, depth: int) -> np.ndarray:
    n = 1 << depth
    i = np.floor((v - lo) / size * n)
    i = np.clip(np.nan_to_num(i, nan=0.0), 0, n - 1).astype(np.int64)
    for _ in range(64):  # converges in one or two rounds
        down = (i > 0) & (v < lo + size * np.ldexp(i.astype(np.float64), -depth))
        up = (i < n - 1) & (v >= lo + size * np.ldexp((i + 1).astype(np.float64), -depth))
        if not (down.any() or up.any()):
            break
        i = i - down + up
    return i


def _bounds(i: np.ndarray, d: np.ndarray, lo: float, size: float, hi: float) -> np.ndarray:
    i = np.asarray(i, dtype=np.int64)
    d = np.asarray(d, dtype=np.int64)
    out = lo + size * np.ldexp(i.astype(np.float64), -d)
    return np.where(i == (np.int64(1) << d), hi, out)


_SPREAD = tuple(sum(((v >> b) & 1) << (2 * b) for b in range(8)) for v in range(256))


def morton(ix: int, iy: int) -> int:
    """The Morton (Z-order) code of leaf ``(ix, iy)``: x bits at even positions, y bits at odd ones.
    A cell's code at ``s`` levels above the leaves is ``morton >> 2s``, and two leaves share their
    cells from the root down to the depth where their codes' common prefix ends."""
    sp = _SPREAD
    return (sp[ix & 255] | sp[(ix >> 8) & 255] << 16 | sp[(ix >> 16) & 255] << 32 | sp[(ix >> 24) & 255] << 48
            | (sp[iy & 255] | sp[(iy >> 8) & 255] << 16 | sp[(iy >> 16) & 255] << 32 | sp[(iy >> 24) & 255] << 48)
            << 1)


class QuadIndex:
    """Subjects' current leaf cells (Morton codes, see :func:`morton`) and the number of subjects in
    every non-empty cell of every level: ``counts[d][code >> 2(D − d)]``."""

    __slots__ = ("_up", "counts", "depth", "pos")

    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.counts: list[dict[int, int]] = [{} for _ in range(depth + 1)]
        self.pos: dict[Hashable, int] = {}
        # (level, shift of a leaf's code to that level's), from the leaves up
        self._up = [(self.counts[depth - s], 2 * s) for s in range(depth + 1)]

    def __len__(self) -> int:
        return len(self.pos)

    def move(self, subject: Hashable, code: int) -> None:
        """Put ``subject`` in the leaf of Morton code ``code``: O(levels whose cell changes)."""
        old = self.pos.get(subject)
        if old == code:
            return
        if old is None:
            for level, sh in self._up:
                key = code >> sh
                level[key] = level.get(key, 0) + 1
        else:  # only the levels below the common ancestor of the two leaves change
            for level, sh in self._up[:((old ^ code).bit_length() + 1) >> 1]:
                okey = old >> sh
                c = level[okey]
                if c > 1:
                    level[okey] = c - 1
                else:
                    del level[okey]
                key = code >> sh
                level[key] = level.get(key, 0) + 1
        self.pos[subject] = code

    def count(self, d: int, code: int) -> int:
        """Subjects in the depth-``d`` cell of the leaf of Morton code ``code``."""
        return self.counts[d].get(code >> 2 * (self.depth - d), 0)

    def descend(self, code: int, k: int) -> tuple[int, int] | None:
        """Spec §4.11's spatial descent from the root toward the leaf ``code``: the deepest cell on the
        path holding ≥ k subjects, as ``(depth, subjects)``; ``None`` when the whole area holds fewer."""
        counts = self.counts
        c = counts[0].get(0, 0)
        if c < k:
            return None
        depth = self.depth
        d = 0
        while d < depth:
            c2 = counts[d + 1].get(code >> 2 * (depth - d - 1), 0)
            if c2 < k:
                break
            d += 1
            c = c2
        return d, c
