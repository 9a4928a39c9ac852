"""IAB's state space (spec §4.4): a generalized table as its distinct *full* rows with counts.

Encoding
--------
* Every quasi-identifier the search may generalize (the union of the requirements' shields, in the
  order the models name them) numbers its hierarchy nodes globally, ``gid = offset[level] + code``
  (:class:`NodeIds`), so one column can hold cells of different levels.
* The other published columns — quasi-identifiers outside every shield (kept at their leaves), the
  sensitive and the insensitive columns — never change: they are folded into one ``rest`` id.
* A state is described by its *cut*: per searched attribute, the node each leaf stands for. The
  successor rule moves every row holding a node alike, so a cell is always a function of its leaf;
  the state's table is the root rows with the cut applied and identical rows merged
  (:meth:`Space.rows`). Frontier states keep only their cut (a few hundred integers), never rows.
* A row is packed into int64 words (mixed radix over the cells and ``rest``, a new word whenever one
  would overflow), so merging identical rows is one hash-based factorization (``np.unique`` when
  a row needs several words); a successor changes one column, i.e. adds ``(new − old) · weight``
  to one word: O(U) for U rows. The state's key is a 128-bit hash of the multiset of its packed
  rows with their counts — the table itself, whatever path produced it, with no sorting.

Requirements
------------
Every ``KAnonymity(k, attributes=shield)`` model with ``k ≥ 2`` is a requirement ``⟨shield, k⟩``
(no ``attributes``: all quasi-identifiers). A row violates it when the records sharing its
projection on the shield number fewer than ``k``; ``h1`` counts the rows violating any requirement,
``h2`` the rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from anonkit._kernels import group_columns
from anonkit.models import Criterion, KAnonymity
from anonkit.table import Table

#: the largest radix product one packed word may hold
_CAPACITY = 1 << 62


@dataclass(frozen=True)
class NodeIds:
    """The nodes of one quasi-identifier's hierarchy, numbered ``offset[level] + code``.

    ``level``, ``node`` and ``parent`` are indexed by node id; a top-level node is its own parent.
    ``label`` numbers the published texts (two nodes with the same text share a number).
    """

    name: str
    column: int
    level: np.ndarray
    node: np.ndarray
    parent: np.ndarray
    top: np.ndarray
    label: np.ndarray
    n_labels: int
    n_leaves: int

    @classmethod
    def of(cls, table: Table, column: int) -> NodeIds:
        h = table.hierarchies[column]
        sizes = [h.size(level) for level in range(h.height + 1)]
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        total = int(sum(sizes))
        level = np.repeat(np.arange(h.height + 1, dtype=np.int64), sizes)
        node = np.concatenate([np.arange(s, dtype=np.int64) for s in sizes])
        parent = np.arange(total, dtype=np.int64)
        for lv in range(h.height):
            parent[offsets[lv]:offsets[lv] + sizes[lv]] = offsets[lv + 1] + h.parents(lv)
        text = np.concatenate([np.asarray(h.labels[lv], dtype=object) for lv in range(h.height + 1)])
        label, uniques = pd.factorize(text)
        return cls(table.qi[column], column, level, node, parent, level == h.height, label.astype(np.int64),
                   len(uniques), h.n_leaves)

    @property
    def size(self) -> int:
        return len(self.level)

    def lift(self, values: np.ndarray) -> np.ndarray:
        """The successor rule on this attribute as a node map: ``values`` are the nodes found in
        violating rows; each non-top one's parent ``p`` is lifted, i.e. every child of ``p`` maps
        to ``p``; any other node maps to itself."""
        values = values[~self.top[values]]
        lifted = np.zeros(self.size, dtype=bool)
        lifted[self.parent[values]] = True
        out = np.arange(self.size, dtype=np.int64)
        move = lifted[self.parent] & ~self.top
        out[move] = self.parent[move]
        return out


@dataclass(frozen=True)
class Packing:
    """Where each column of a row goes in its int64 words: ``word[c]``, ``weight[c]``."""

    word: tuple[int, ...]
    weight: tuple[int, ...]
    n_words: int

    @classmethod
    def of(cls, sizes: list[int]) -> Packing:
        word, weight, w, radix = [], [], 0, 1
        for s in sizes:
            s = max(int(s), 1)
            if radix > 1 and radix * s >= _CAPACITY:
                w, radix = w + 1, 1
            word.append(w)
            weight.append(radix)
            radix *= s
        return cls(tuple(word), tuple(weight), w + 1 if sizes else 1)

    def pack(self, columns: list[np.ndarray], n: int) -> np.ndarray:
        """The ``(n × words)`` packed rows of ``columns``."""
        out = np.zeros((n, self.n_words), dtype=np.int64)
        for col, w, wt in zip(columns, self.word, self.weight, strict=True):
            out[:, w] += np.asarray(col, dtype=np.int64) * wt
        return out


@dataclass(frozen=True)
class Requirement:
    """``⟨shield, k⟩``: ``positions`` are the shield's attributes in the search order."""

    k: int
    positions: tuple[int, ...]
    packing: Packing
    text: str


@dataclass
class Rows:
    """A state's table: distinct rows (``cells``: node ids per searched attribute), their packed
    words, counts, packed shield projections and violations per requirement."""

    cells: np.ndarray
    words: np.ndarray
    counts: np.ndarray
    shields: list[np.ndarray]
    violating_by: list[np.ndarray]

    @property
    def violating(self) -> np.ndarray:
        out = np.zeros(len(self.counts), dtype=bool)
        for v in self.violating_by:
            out |= v
        return out


@dataclass(frozen=True)
class Child:
    """A successor: the attribute generalized, its cut, key and heuristics."""

    attribute: int
    cut: tuple[np.ndarray, ...]
    key: bytes
    rows: int
    violating: int
    violating_records: int


def _unique(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of ``words`` (2-D) and the inverse (row → distinct row), in no set order."""
    if words.shape[1] == 1:
        inv, uniq = pd.factorize(words[:, 0])
        return uniq.reshape(-1, 1), inv
    uniq, inv = np.unique(words, axis=0, return_inverse=True)
    return uniq, inv.reshape(-1)


def _first(inverse: np.ndarray, n: int) -> np.ndarray:
    """The first row of every distinct row."""
    first = np.empty(n, dtype=np.int64)
    rev = np.arange(len(inverse) - 1, -1, -1)
    first[inverse[rev]] = rev
    return first


def _groups(words: np.ndarray) -> np.ndarray:
    """Group ids of the rows of ``words`` (any order)."""
    return _unique(words)[1]


def _violating(shield: np.ndarray, counts: np.ndarray, k: int) -> np.ndarray:
    """Rows whose shield projection totals fewer than ``k`` records."""
    if shield.shape[1] == 0 or not len(counts):
        return np.full(len(counts), counts.sum() < k, dtype=bool)
    g = _groups(shield)
    totals = np.bincount(g, weights=counts)
    return totals[g] < k


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer, element-wise on uint64 (wrapping arithmetic)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _key(words: np.ndarray, counts: np.ndarray) -> bytes:
    """The state key: a 128-bit hash of the *multiset* of packed rows with their counts (the sum of
    two mixed 64-bit hashes of every (row, count)), so it needs no sorting and does not depend on
    the order the rows come in."""
    with np.errstate(over="ignore"):
        h = np.zeros(len(counts), dtype=np.uint64)
        for col in words.T:
            h = _mix(h ^ _mix(col.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)))
        c = counts.astype(np.uint64)
        a = _mix(h ^ (c * np.uint64(0xD6E8FEB86659FD93))).sum(dtype=np.uint64)
        b = _mix(h + _mix(c + np.uint64(0xA0761D6478BD642F))).sum(dtype=np.uint64)
    return np.array([a, b], dtype=np.uint64).tobytes()


class Space:
    """The encoded search space of one table and its requirements (see the module docstring).

    Attributes
    ----------
    attrs:
        The searched quasi-identifiers, in the order successors are generated.
    requirements:
        The ``⟨shield, k⟩`` requirements (``k ≥ 2``).
    record_row:
        The root row of every record (−1: suppressed up front).
    """

    def __init__(self, table: Table, models: list[Criterion]) -> None:
        self.table = table
        shields: dict[tuple[int, ...], int] = {}
        order: list[int] = []
        for m in models:
            if not isinstance(m, KAnonymity) or m.k < 2:
                continue
            names = table.qi if m.qis is None else list(m.qis)
            cols = [table.qi.index(q) for q in names]
            for j in cols:
                if j not in order:
                    order.append(j)
            key = tuple(sorted(set(cols)))
            shields[key] = max(shields.get(key, 0), int(m.k))
        self.attrs = [NodeIds.of(table, j) for j in order]
        position = {j: a for a, j in enumerate(order)}
        self.requirements = [
            Requirement(k, tuple(position[j] for j in cols),
                        Packing.of([self.attrs[position[j]].size for j in cols]),
                        f"{k}-anonymity on {', '.join(table.qi[j] for j in cols) or 'nothing'}")
            for cols, k in shields.items()
        ]
        keep = ~table.presuppressed
        self.n_records = int(keep.sum())
        rest_cols, rest_sizes = [], []
        for j in range(len(table.qi)):
            if j not in position:
                rest_cols.append(table.codes[keep, j].astype(np.int64))
                rest_sizes.append(table.hierarchies[j].n_leaves)
        for name in table.sensitive:
            rest_cols.append(table.sensitive_codes[name][keep].astype(np.int64))
            rest_sizes.append(table.domains[name].size)
        for name in table.frame.columns:
            if name not in table.qi and name not in table.sensitive:
                codes, uniques = pd.factorize(table.frame[name].to_numpy()[keep], use_na_sentinel=False)
                rest_cols.append(codes.astype(np.int64))
                rest_sizes.append(len(uniques))
        if rest_cols and self.n_records:
            rest, n_rest = group_columns(rest_cols, rest_sizes)
        else:
            rest, n_rest = np.zeros(self.n_records, dtype=np.int64), 1
        leaf_cols = [table.codes[keep, a.column].astype(np.int64) for a in self.attrs]
        self.record_row = np.full(table.n, -1, dtype=np.int64)
        if self.n_records:
            row, n_rows = group_columns([*leaf_cols, rest], [*(a.n_leaves for a in self.attrs), n_rest])
            first = np.full(n_rows, -1, dtype=np.int64)
            rev = np.arange(len(row) - 1, -1, -1)
            first[row[rev]] = rev
            self.record_row[keep] = row
        else:
            row, n_rows, first = np.zeros(0, dtype=np.int64), 0, np.zeros(0, dtype=np.int64)
        #: the root rows: leaf of every searched attribute, rest id, count
        self.leaves = np.stack([c[first] for c in leaf_cols], axis=1) if self.attrs else np.zeros((n_rows, 0), np.int64)
        self.rest = rest[first]
        self.counts = np.bincount(row, minlength=n_rows).astype(np.int64)
        self.packing = Packing.of([*(a.size for a in self.attrs), n_rest])

    # ------------------------------------------------------------------ states
    def root_cut(self) -> tuple[np.ndarray, ...]:
        """The cut of the input table: every leaf stands for itself."""
        return tuple(np.arange(a.n_leaves, dtype=np.int32) for a in self.attrs)

    def rows(self, cut: tuple[np.ndarray, ...]) -> tuple[Rows, bytes]:
        """The table of ``cut`` (distinct rows, violations) and its key."""
        u0, m = self.leaves.shape
        cells = np.empty((u0, m), dtype=np.int64)
        for a in range(m):
            cells[:, a] = cut[a][self.leaves[:, a]]
        words = self.packing.pack([*cells.T, self.rest], u0)
        uniq, inv = _unique(words)
        counts = np.bincount(inv, weights=self.counts, minlength=len(uniq)).astype(np.int64)
        cells = cells[_first(inv, len(uniq))]
        shields = [r.packing.pack([cells[:, a] for a in r.positions], len(cells)) for r in self.requirements]
        violating_by = [_violating(s, counts, r.k) for s, r in zip(shields, self.requirements, strict=True)]
        return Rows(cells, uniq, counts, shields, violating_by), _key(uniq, counts)

    def successor(
        self, rows: Rows, cut: tuple[np.ndarray, ...], a: int, seen: set[bytes]
    ) -> Child | Literal["unchanged", "duplicate"]:
        """The table ``rows`` generalized on attribute ``a`` (spec §4.4's successor rule), or why
        there is none: the rule changes nothing, or the table was generated before (``seen``, to
        which a new table's key is added)."""
        attr = self.attrs[a]
        col = rows.cells[:, a]
        lift = attr.lift(col[rows.violating])
        new = lift[col]
        delta = new - col
        if not delta.any():
            return "unchanged"
        words = rows.words.copy()
        words[:, self.packing.word[a]] += delta * self.packing.weight[a]
        uniq, inv = _unique(words)
        counts = np.bincount(inv, weights=rows.counts, minlength=len(uniq)).astype(np.int64)
        key = _key(uniq, counts)
        if key in seen:
            return "duplicate"
        seen.add(key)
        bad = np.zeros(len(uniq), dtype=bool)
        for r, req in enumerate(self.requirements):
            if a in req.positions:
                shield = rows.shields[r].copy()
                i = req.positions.index(a)
                shield[:, req.packing.word[i]] += delta * req.packing.weight[i]
                v = _violating(shield, rows.counts, req.k)
            else:
                v = rows.violating_by[r]
            bad[inv[v]] = True
        child_cut = tuple(lift[c].astype(np.int32) if b == a else c for b, c in enumerate(cut))
        return Child(a, child_cut, key, len(uniq), int(bad.sum()), int(counts[bad].sum()))

    def record_nodes(self, cut: tuple[np.ndarray, ...]) -> list[np.ndarray]:
        """The node id of every record's cell, per searched attribute."""
        return [cut[a][self.table.codes[:, attr.column]].astype(np.int64) for a, attr in enumerate(self.attrs)]
