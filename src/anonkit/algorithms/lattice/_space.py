"""The generalization lattice and the state of a search over it.

A node is one level per quasi-identifier (level 0 = original values), in the column order of the
input header (ARX's convention). Nodes are materialized as a ``(N × d)`` level matrix with a
mixed-radix id, which keeps predictive tagging a vectorized comparison. Every node carries a status
(unknown, anonymous, not anonymous, each either checked or inferred) and, once computed, its score.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

import numpy as np

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
        if self._levels is None:
            if self.size > MAX_NODES:
                raise InputError(
                    f"the lattice has {self.size:,} transformations, more than {MAX_NODES:,} can be enumerated; "
                    "narrow min_level/max_level or use a heuristic algorithm",
                    key="algorithm",
                )
            grids = np.meshgrid(*[np.arange(lo, hi + 1) for lo, hi in zip(self.min, self.max, strict=True)],
                                indexing="ij")
            self._levels = np.stack([g.reshape(-1) for g in grids], axis=1).astype(np.int64) if grids else \
                np.zeros((1, 0), dtype=np.int64)
        return self._levels

    @property
    def strides(self) -> np.ndarray:
        """Node id = Σ (level − min)·stride (mixed radix, last attribute fastest)."""
        out = np.ones(self.d, dtype=np.int64)
        for j in range(self.d - 2, -1, -1):
            out[j] = out[j + 1] * self.span[j + 1]
        return out

    def id(self, node: tuple[int, ...] | np.ndarray) -> int:
        if self._strides is None:
            self._strides = [int(x) for x in self.strides]
            self._offset = sum(int(m) * st for m, st in zip(self.min, self._strides, strict=True))
        return sum(level * st for level, st in zip(node, self._strides, strict=True)) - self._offset

    def node(self, node_id: int) -> tuple[int, ...]:
        return tuple(int(x) for x in self.levels[node_id])

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

    def anonymous(self, node_id: int) -> bool | None:
        s = int(self.status[node_id])
        if s in (ANONYMOUS, INFERRED_ANONYMOUS):
            return True
        if s in (NOT_ANONYMOUS, INFERRED_NOT_ANONYMOUS):
            return False
        return None

    def tag(self, node: tuple[int, ...], anonymous: bool, *, infer: bool) -> None:
        """Record a checked node and, when ``infer``, tag its generalizations (anonymous) or its
        specializations (not anonymous) by monotonicity."""
        nid = self.lattice.id(node)
        self.status[nid] = ANONYMOUS if anonymous else NOT_ANONYMOUS
        if not infer:
            return
        levels = self.lattice.levels
        x = np.asarray(node)
        mask = (levels >= x).all(axis=1) if anonymous else (levels <= x).all(axis=1)
        mask &= self.status == UNKNOWN
        self.status[mask] = INFERRED_ANONYMOUS if anonymous else INFERRED_NOT_ANONYMOUS
        self.stats.inferred += int(mask.sum())

    def infer_not_anonymous_below(self, node: tuple[int, ...]) -> None:
        """Tag every unknown specialization of ``node`` (itself excluded) as not anonymous."""
        levels = self.lattice.levels
        mask = (levels <= np.asarray(node)).all(axis=1) & (self.status == UNKNOWN)
        self.status[mask] = INFERRED_NOT_ANONYMOUS
        self.stats.inferred += int(mask.sum())

    def counts(self) -> dict[str, int]:
        out = {name: int((self.status == code).sum()) for code, name in STATUS_NAMES.items()}
        out["nodes"] = self.lattice.size
        out["checked"] = self.stats.checked
        out["scored"] = self.stats.scored
        return out
