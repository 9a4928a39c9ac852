"""The generalization lattice and the state of a search over it.

A node is one level per quasi-identifier (level 0 = original values), in the column order of the
input header (ARX's convention). Nodes are numbered by a mixed-radix id (last attribute fastest),
so a node's direct generalizations and specializations are ``id ± stride`` and no node object is
ever built. Every node carries a status (unknown, anonymous, not anonymous, each either checked or
inferred) and, once computed, its score, in flat arrays indexed by id (``int8`` and ``float64``).

Predictive tagging walks the lattice from the checked node only: a breadth-first closure upward
(anonymous) or downward (not anonymous) that visits unknown nodes and stops at every node already
tagged. When the anonymous nodes are closed upward and the failing ones downward — what tagging
keeps true — this marks exactly the unknown nodes a scan of the whole lattice would (every node
between the checked node and an unknown one is unknown itself), at a cost proportional to the
nodes it tags rather than to the lattice (``tests/test_lattice_search.py`` compares the two).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from anonkit._kernels import tiered
from anonkit.errors import InputError

UNKNOWN = 0
ANONYMOUS = 1  # checked, the models hold
NOT_ANONYMOUS = 2  # checked, they do not
INFERRED_ANONYMOUS = 3  # tagged by monotonicity from a checked node
INFERRED_NOT_ANONYMOUS = 4

STATUS_NAMES = {
    UNKNOWN: "unknown",
    ANONYMOUS: "anonymous",
    NOT_ANONYMOUS: "not-anonymous",
    INFERRED_ANONYMOUS: "inferred-anonymous",
    INFERRED_NOT_ANONYMOUS: "inferred-not-anonymous",
}

#: ARX refuses optimal search above 100,000 transformations by default; so do we (configurable).
DEFAULT_HEURISTIC_THRESHOLD = 100_000
#: wall-clock seconds after which the best-effort Lightning search stops, unless told otherwise
DEFAULT_TIME_LIMIT = 30.0
#: A lattice is never materialized above this many nodes (spec §7.1: "refuse above 10⁶").
MAX_NODES = 1_000_000


class Lattice:
    """All full-domain transformations between per-attribute minimum and maximum levels."""

    def __init__(self, names: list[str], min_levels: list[int], max_levels: list[int]) -> None:
        self.names = list(names)
        self.min = np.asarray(min_levels, dtype=np.int64)
        self.max = np.asarray(max_levels, dtype=np.int64)
        if (self.min > self.max).any():
            j = int(np.flatnonzero(self.min > self.max)[0])
            raise InputError("min_level exceeds max_level", column=self.names[j], value=int(self.min[j]))
        self.span = self.max - self.min + 1
        size = 1
        for s in self.span:
            size *= int(s)
        self.size = size
        self._levels: np.ndarray | None = None
        self._provider: Callable[[], np.ndarray] | None = None
        self._strides: list[int] | None = None
        self._offset = 0

    @property
    def d(self) -> int:
        return len(self.names)

    @property
    def bottom(self) -> tuple[int, ...]:
        return tuple(int(x) for x in self.min)

    @property
    def top(self) -> tuple[int, ...]:
        return tuple(int(x) for x in self.max)

    @property
    def max_height(self) -> int:
        return int((self.max - self.min).sum())

    def height(self, node: tuple[int, ...]) -> int:
        return int(sum(node) - self.min.sum())

    @property
    def levels(self) -> np.ndarray:
        """``(N × d)`` levels of every node, node id = row (mixed radix, last attribute fastest)."""
        if self._levels is None and self._provider is not None:
            levels = self._provider()
            if levels.shape != (self.size, self.d):
                raise ValueError(f"levels of shape {levels.shape} for a lattice of {self.size} × {self.d}")
            self._levels = levels
        if self._levels is None:
            if self.size > MAX_NODES:
                raise InputError(
                    f"the lattice has {self.size:,} transformations, more than {MAX_NODES:,} can be enumerated; "
                    "narrow min_level/max_level or use a heuristic algorithm",
                    key="algorithm",
                )
            self._levels = mixed_radix_levels(self.min, self.max)
        return self._levels

    @property
    def strides(self) -> np.ndarray:
        """Node id = Σ (level − min)·stride (mixed radix, last attribute fastest)."""
        out = np.ones(self.d, dtype=np.int64)
        for j in range(self.d - 2, -1, -1):
            out[j] = out[j + 1] * self.span[j + 1]
        return out

    def levels_from(self, provider: Callable[[], np.ndarray]) -> None:
        """Take :attr:`levels`, when first read, from ``provider()`` (read-only): the same matrix, kept
        for another lattice with the same bounds (a search keeps it per table)."""
        self._provider = provider

    def id(self, node: tuple[int, ...] | np.ndarray) -> int:
        if self._strides is None:
            self._strides = [int(x) for x in self.strides]
            self._offset = sum(int(m) * st for m, st in zip(self.min, self._strides, strict=True))
        return sum(level * st for level, st in zip(node, self._strides, strict=True)) - self._offset

    def node(self, node_id: int) -> tuple[int, ...]:
        return tuple(self.levels[node_id].tolist())

    def successors(self, node: tuple[int, ...]) -> list[tuple[int, ...]]:
        """Direct generalizations: one attribute one level up."""
        out = []
        for j in range(self.d):
            if node[j] < self.max[j]:
                out.append((*node[:j], node[j] + 1, *node[j + 1:]))
        return out

    def predecessors(self, node: tuple[int, ...]) -> list[tuple[int, ...]]:
        """Direct specializations: one attribute one level down."""
        out = []
        for j in range(self.d):
            if node[j] > self.min[j]:
                out.append((*node[:j], node[j] - 1, *node[j + 1:]))
        return out

    def iter_nodes(self) -> itertools.product:
        return itertools.product(*[range(lo, hi + 1) for lo, hi in zip(self.min, self.max, strict=True)])


def mixed_radix_levels(mins: np.ndarray, maxs: np.ndarray) -> np.ndarray:
    """``(N × d)`` int64 levels of every node between ``mins`` and ``maxs``, row = node id (mixed
    radix, last attribute fastest): column ``j`` is its levels each repeated for the nodes of the
    attributes after it, the pattern tiled for those before. What ``np.meshgrid(..., indexing="ij")``
    stacked gives, written column by column without the d full grids (7× less CPU on a 9-QI lattice)."""
    span = [int(hi) - int(lo) + 1 for lo, hi in zip(mins, maxs, strict=True)]
    if not span:
        return np.zeros((1, 0), dtype=np.int64)
    n = 1
    for s in span:
        n *= s
    out = np.empty((n, len(span)), dtype=np.int64)
    inner = n
    for j, s in enumerate(span):
        inner //= s
        block = np.repeat(np.arange(int(mins[j]), int(maxs[j]) + 1, dtype=np.int64), inner)
        out[:, j] = np.tile(block, n // block.size)
    return out


@dataclass
class SearchStats:
    checked: int = 0  # nodes whose classes were computed and judged
    scored: int = 0  # nodes whose exact score was computed
    inferred: int = 0  # nodes classified by predictive tagging
    seconds: float = 0.0


@dataclass
class SearchState:
    """The classified lattice: a status and a score per node."""

    lattice: Lattice
    status: np.ndarray = field(init=False)
    score: np.ndarray = field(init=False)
    stats: SearchStats = field(default_factory=SearchStats)
    started: float = field(default_factory=time.perf_counter)

    def __post_init__(self) -> None:
        n = self.lattice.size if self.lattice.size <= MAX_NODES else 0
        self.status = np.zeros(n, dtype=np.int8)
        self.score = np.full(n, np.nan)
        self._work: np.ndarray | None = None
        self._strides: np.ndarray | None = None
        self._span: np.ndarray | None = None

    def anonymous(self, node_id: int) -> bool | None:
        s = int(self.status[node_id])
        if s in (ANONYMOUS, INFERRED_ANONYMOUS):
            return True
        if s in (NOT_ANONYMOUS, INFERRED_NOT_ANONYMOUS):
            return False
        return None

    def tag(self, node: tuple[int, ...], anonymous: bool, *, infer: bool) -> np.ndarray:
        """Record a checked node and, when ``infer``, tag its unknown generalizations (anonymous) or
        specializations (not anonymous) by monotonicity. Returns the ids of the nodes inferred."""
        return self.tag_id(self.lattice.id(node), anonymous, infer=infer)

    def tag_id(self, nid: int, anonymous: bool, *, infer: bool) -> np.ndarray:
        """:meth:`tag` by node id."""
        self.status[nid] = ANONYMOUS if anonymous else NOT_ANONYMOUS
        if not infer:
            return _NONE
        return self.closure(nid, up=anonymous, value=INFERRED_ANONYMOUS if anonymous else INFERRED_NOT_ANONYMOUS)

    def infer_not_anonymous_below(self, node: tuple[int, ...] | int) -> np.ndarray:
        """Tag every unknown specialization of ``node`` (a level tuple or an id; itself included if
        unknown) as not anonymous."""
        nid = node if isinstance(node, int | np.integer) else self.lattice.id(node)
        new = self.closure(nid, up=False, value=INFERRED_NOT_ANONYMOUS)
        if self.status[nid] == UNKNOWN:
            self.status[nid] = INFERRED_NOT_ANONYMOUS
            self.stats.inferred += 1
            new = np.append(new, nid)
        return new

    def closure(self, nid: int, *, up: bool, value: int) -> np.ndarray:
        """Set ``value`` on the unknown nodes reachable from node ``nid`` through unknown nodes,
        upward or downward; returns their ids (a view of a work buffer: copy it to keep it)."""
        if self._work is None:
            self._work = np.empty(self.status.size, dtype=np.int64)
            self._strides = self.lattice.strides
            self._span = np.asarray(self.lattice.span, dtype=np.int64)
        count = tiered(closure_py, closure_np, self.status, self._strides, self._span, nid, up, value, self._work)
        self.stats.inferred += int(count)
        return self._work[:count]

    def counts(self) -> dict[str, int]:
        out = {name: int((self.status == code).sum()) for code, name in STATUS_NAMES.items()}
        out["nodes"] = self.lattice.size
        out["checked"] = self.stats.checked
        out["scored"] = self.stats.scored
        return out


_NONE = np.empty(0, dtype=np.int64)


def closure_py(status: np.ndarray, strides: np.ndarray, span: np.ndarray, start: int, up: bool, value: int,
               out: np.ndarray) -> int:
    """Breadth-first predictive tagging (compiled by numba in :func:`_closure_kernel`): every
    ``UNKNOWN`` node reachable from ``start`` by steps one level up (``up``) or down on one
    attribute, through ``UNKNOWN`` nodes only, gets ``value``; their ids go to ``out[:count]``,
    which is also the queue. ``start`` itself is expanded whatever its status, and not tagged."""
    d = strides.shape[0]
    count = 0
    head = -1
    node = start
    while True:
        for j in range(d):
            digit = (node // strides[j]) % span[j]
            if up:
                if digit + 1 >= span[j]:
                    continue
                nb = node + strides[j]
            else:
                if digit == 0:
                    continue
                nb = node - strides[j]
            if status[nb] == UNKNOWN:
                status[nb] = value
                out[count] = nb
                count += 1
        head += 1
        if head >= count:
            return count
        node = out[head]


def closure_np(status: np.ndarray, strides: np.ndarray, span: np.ndarray, start: int, up: bool, value: int,
               out: np.ndarray) -> int:
    """:func:`closure_py` in numpy, a layer at a time: every step changes one level by one, so the
    queue is layered by distance from ``start``, and a layer's new nodes in order of first
    appearance (node by node, attributes in order) are what the queue appends: the same nodes, in
    the same order in ``out``."""
    count = 0
    step = strides if up else -strides
    layer = np.array([start], dtype=np.int64)
    while layer.size:
        digits = (layer[:, None] // strides) % span
        fits = digits + 1 < span if up else digits > 0
        near = (layer[:, None] + step)[fits]  # row by row: node by node, attributes in order
        near = near[status[near] == UNKNOWN]
        if not near.size:
            break
        _, first = np.unique(near, return_index=True)
        layer = near[np.sort(first)]
        status[layer] = value
        out[count:count + layer.size] = layer
        count += layer.size
    return count
