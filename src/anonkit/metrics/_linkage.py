"""Record linkage's candidate counts for local recodings, without enumerating (class, tuple) pairs.

:func:`anonkit.metrics.risk.linkage_candidates` adds every class's size to each distinct QI tuple its
box contains. When boxes are wide (Stack and Deal, Anatomy: a class contains thousands of Adult's
12,458 distinct tuples) the pairs number tens of millions, and enumerating them cost seconds — more
than the algorithm. Here a class with at most one interval QI is split into a *key* — its level and
node on every hierarchy QI — and its range of value ranks on the interval QI:

* classes of one key differ only in their ranges, which become +size / −size events of a difference
  table per key; its cumulative sum is, at every rank, the size of the key's classes whose range holds
  that rank;
* the tuples a key holds are the intersection, over its hierarchy QIs, of the tuples below its node:
  bit sets over the distinct tuples (one per level and node a key uses), ANDed word by word;
* every (key, tuple) hit reads the difference table at the tuple's rank and is added to the tuple.

The work is the keys × tuples / 64 words of the intersections plus the hits, in a few vectorized
passes. Classes it does not take — more than one interval or set QI, or an interval class whose own
records fall outside its range (the coverage's safety net lists those leaves) — are returned for the
general pair enumeration. Every count is a sum of whole class sizes (integers below 2⁵³ in float64),
so the order of additions cannot change a bit: the counts are exactly those of the enumeration.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from anonkit.metrics.classes import released_sizes
from anonkit.metrics.coverage import Covered, covered
from anonkit.release import CUSTOM, Release
from anonkit.table import Table

#: largest (keys × tuples) bit table unpacked at once
BLOCK_CELLS = 1 << 24
#: largest (keys × ranks) difference table; above it the classes go to the pair enumeration
TABLE_CELLS = 1 << 24


def candidates_by_pattern(table: Table, release: Release, classes: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Add to ``out`` (one count per distinct tuple) the sizes of the ``classes`` this method takes
    (see the module docstring); returns the classes left for the pair enumeration."""
    d = table.distinct
    n_q = len(table.qi)
    levels = release.class_levels[classes].astype(np.int64)
    nodes = release.class_nodes[classes].astype(np.int64)
    custom = levels == CUSTOM
    takes = custom.sum(axis=1) <= 1
    covers: list[Covered | None] = [covered(table, release, j) if custom[:, j].any() else None for j in range(n_q)]
    for j, cov in enumerate(covers):
        if cov is not None and cov.keys.size:  # a set, or records outside their interval: the enumeration's
            listed = np.isin(classes, np.unique(cov.pairs[0]))
            takes &= ~(custom[:, j] & listed)
    if not takes.any():
        return classes
    lv = levels[takes]
    nd = np.where(custom[takes], 0, nodes[takes])
    # a key: the levels and nodes on every QI (CUSTOM and 0 on the interval QI)
    _, first, kid = np.unique(np.concatenate([lv, nd], axis=1), axis=0, return_index=True, return_inverse=True)
    kid = kid.ravel()
    n_keys = len(first)
    ranks = 1 + max([h.n_leaves for h in table.hierarchies] or [1])
    if n_keys * ranks > TABLE_CELLS:
        return classes
    # every class's range of ranks on its interval QI ([0, 1) without one: every tuple's rank is 0 there)
    which = np.where(custom[takes].any(axis=1), np.argmax(custom[takes], axis=1), -1)
    start = np.zeros(len(kid), dtype=np.int64)
    stop = np.ones(len(kid), dtype=np.int64)
    for j, cov in enumerate(covers):
        sel = which == j
        if cov is not None and sel.any():
            start[sel], stop[sel] = cov.start[classes[takes][sel]], cov.stop[classes[takes][sel]]
    sizes = released_sizes(release)[classes[takes]].astype(np.float64)
    diff = np.zeros(n_keys * ranks, dtype=np.float64)
    np.add.at(diff, kid * ranks + start, sizes)
    np.add.at(diff, kid * ranks + stop, -sizes)
    counts = np.cumsum(diff.reshape(n_keys, ranks), axis=1).ravel()  # integers: exact in any order
    # the rank of every tuple on each key's interval QI (row 0: none, every rank 0)
    rank = np.zeros((n_q + 1, d.size), dtype=np.int64)
    for j, cov in enumerate(covers):
        if cov is not None:
            rank[j + 1] = cov.rank[d.tuples[:, j]]
    hits = _key_tuples(table, lv[first], nd[first])
    for key, cand in hits:
        value = counts[key * ranks + rank[which[first][key] + 1, cand]]
        out += np.bincount(cand, weights=value, minlength=d.size)
    return classes[~takes]


def _key_tuples(table: Table, key_levels: np.ndarray, key_nodes: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The (key, tuple) pairs of tuples below every key's nodes on its hierarchy QIs, a block of keys at
    a time: bit sets over the tuples (one per QI, level and node the keys use) ANDed per key."""
    tuples = table.distinct.tuples
    n_t = tuples.shape[0]
    n_keys = len(key_levels)
    words = -(-n_t // 64)
    # per QI and level the keys use: the bit set of every node used, and which one each key reads
    sets: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (keys, their row, bit sets)
    for j, h in enumerate(table.hierarchies):
        for level in np.unique(key_levels[:, j]):
            if level == CUSTOM:
                continue  # the interval QI: every tuple (its ranks are the difference table's)
            keys = np.flatnonzero(key_levels[:, j] == level)
            used, row = np.unique(key_nodes[keys, j], return_inverse=True)
            node = h.maps[int(level)][tuples[:, j]]
            bits = np.zeros((len(used), words), dtype=np.uint64)
            step = max(1, BLOCK_CELLS // max(n_t, 1))
            for lo in range(0, len(used), step):  # (nodes × tuples) booleans a block of nodes at a time
                below = node[None, :] == used[lo:lo + step, None]
                packed = np.packbits(below, axis=1, bitorder="little")
                bits[lo:lo + step] = np.pad(packed, ((0, 0), (0, words * 8 - packed.shape[1]))).view(np.uint64)
            sets.append((keys, row.ravel(), bits))
    # every tuple (no bit past the last one: a key without a hierarchy QI starts, and stays, here)
    ones = np.packbits(np.ones(n_t, dtype=bool), bitorder="little")
    every = np.pad(ones, (0, words * 8 - len(ones))).view(np.uint64)
    step = max(1, BLOCK_CELLS // (words * 64))
    for lo in range(0, n_keys, step):  # (keys × words) a block of keys at a time
        hi = min(lo + step, n_keys)
        acc = np.repeat(every[None, :], hi - lo, axis=0)
        for keys, row, bits in sets:
            a, b = np.searchsorted(keys, [lo, hi])
            acc[keys[a:b] - lo] &= bits[row[a:b]]
        key, word = np.nonzero(acc)  # only the words holding a hit are unpacked
        pair, bit = np.nonzero(np.unpackbits(acc[key, word].view(np.uint8).reshape(-1, 8), axis=1, bitorder="little"))
        yield key[pair] + lo, word[pair] * 64 + bit
