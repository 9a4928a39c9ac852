"""ARX's non-uniform entropy (``MetricMDNUEntropyPrecomputed`` and its non-monotonic variant
``MetricMDNUNMEntropyPrecomputed``; ARX compatibility §2.4 and §2.9, spec §2.2).

The sums run in ARX's order — values by first appearance in the data, the suppression term in the
slot order of ARX's hppc hash map, which this module emulates (:func:`_hppc_slot_order`) — so a
full-domain release scores the same doubles ARX reports.
The conventions (gs factors, rounding, weights) are in :mod:`~anonkit.metrics.arx`; intervals and
sets of local recodings count as generalized values covering leaves (:mod:`~anonkit.metrics.coverage`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from anonkit._kernels import first_rows
from anonkit.hierarchy import Hierarchy
from anonkit.metrics.arx import (
    aggregate_attributes,
    arx_round,
    effective_levels,
    gs_factors,
    leaf_tally,
    seq_sum,
    transformation_levels,
)
from anonkit.metrics.coverage import covered
from anonkit.release import CUSTOM, Release, measured_once
from anonkit.table import Table

_LOG2 = math.log(2.0)


def _log2(x: np.ndarray) -> np.ndarray:
    # ARX computes log2 as Math.log(x) / Math.log(2); do the same for identical rounding
    return np.log(x) / _LOG2


def entropy_per_attribute(
    table: Table, release: Release, *, monotonic: bool = True, gs: float = 0.5
) -> dict[str, float]:
    """ARX's non-uniform entropy per QI, in bits, floored to 10 decimals.

    ``gFactor·Σ_records log2(b/a)``, ``a`` = count of the record's value in the whole input, ``b`` =
    count in the whole input of the node it is generalized to (``MetricMDNUEntropyPrecomputed``;
    for a full-domain release this is ``Σ_v a_v·log2(b/a_v)`` over the values). Suppressed records
    count at the transformation (full-domain; the root otherwise), so the monotonic variant ignores
    suppression. The non-monotonic variant (``MetricMDNUNMEntropyPrecomputed``) adds
    ``−sFactor·Σ c·log2(c/S)`` over the suppressed records, ``c`` = suppressed records per
    generalized value, ``S`` = suppressed records. The sums run in ARX's order (values by first
    appearance; the suppression term in the slot order of ARX's hash map), so full-domain results
    are the same doubles ARX reports.

    CUSTOM values of local recodings: an interval or a set is a generalized value like a node;
    its ``b`` is the number of input records whose value falls in it (a value in the closed
    interval, resp. a member of the set — the leaves it covers, see :mod:`~anonkit.metrics.coverage`), so
    ``b ≥ a`` and the term is ≤ 0 as for nodes.
    """
    g_factor, s_factor = gs_factors(gs)
    t = transformation_levels(table, release)
    sup = release.suppressed
    n_sup = release.n_suppressed
    w = table.weights  # rows that stand for several records (None: one each)
    # the sums both variants share (the monotonic and non-monotonic measures), once per summary
    sums = measured_once(("entropy_sums",), (table, release), lambda: _entropy_sums(table, release, t))
    out: dict[str, float] = {}
    for j, (name, h) in enumerate(zip(table.qi, table.hierarchies, strict=True)):
        result = sums[j] * g_factor
        if not monotonic and n_sup and t is not None:
            # (without a transformation every suppressed record sits at the root: the term is 0)
            first = leaf_tally(table, j)[1]  # (each leaf's first record: shared with the sums)
            for c in _suppressed_value_counts(h, table.codes[:, j], first, sup, int(t[j]), w):
                result += c * (math.log(c / n_sup) / _LOG2) * s_factor
        out[name] = arx_round(-result if result != 0.0 else result)
    return out


def _entropy_sums(table: Table, release: Release, t: np.ndarray | None) -> list[float]:
    """``Σ cnt·log2(a/b)`` of every quasi-identifier (:func:`entropy_per_attribute`, before ``gFactor``
    and the suppression term), in ARX's order."""
    # full-domain: every record (suppressed ones too) at the transformation's level, no per-record levels
    one_level = t is not None and bool((release.class_levels == t).all())
    levels = None if one_level else effective_levels(table, release)
    w = table.weights  # rows that stand for several records (None: one each)
    out: list[float] = []
    for j, h in enumerate(table.hierarchies):
        nl = h.n_leaves
        if levels is None:  # one level: every record's key is its leaf shifted to the level (leaves counted once)
            a, first_leaf = leaf_tally(table, j)
            present = np.flatnonzero(first_leaf >= 0)
            leaf = present[np.argsort(first_leaf[present], kind="stable")]  # leaves by first appearance
            level = int(t[j])  # type: ignore[index]
            b = np.bincount(h.maps[level], weights=a, minlength=h.size(level)).astype(np.float64)[h.maps[level, leaf]]
            out.append(seq_sum(a[leaf] * _log2(a[leaf] / b)))  # (cnt = a: every record counts at the level)
            continue
        codes = table.codes[:, j].astype(np.int64)
        a = np.bincount(codes, weights=w, minlength=nl).astype(np.float64)
        # records per (level, leaf); ARX walks values in dictionary order = first appearance in data
        custom = None if levels is None else levels[:, j] == CUSTOM
        # every (level, leaf) present, in order of first appearance, with its records: counted on the
        # small key space (bincount and first rows), not by sorting the records
        node_counts = [np.bincount(h.maps[level], weights=a, minlength=h.size(level))
                       for level in range(h.height + 1)]  # (exact: counts are whole numbers)
        offsets = np.concatenate([[0], np.cumsum([len(c) for c in node_counts])])
        flat = np.concatenate(node_counts).astype(np.float64)
        if custom is not None and custom.any():
            # a CUSTOM value (interval or set) is a generalized value of its own: key it by its class
            rc = release.record_class.astype(np.int64)
            key = np.where(custom, (h.height + 1 + rc) * nl + codes, levels[:, j] * nl + codes)
            pairs, first, inv, cnt = np.unique(key, return_index=True, return_inverse=True, return_counts=True)
            if w is not None:
                cnt = np.bincount(inv.reshape(-1), weights=w, minlength=len(pairs)).astype(np.int64)
            order = np.argsort(first, kind="stable")
            pairs, first, cnt = pairs[order], first[order], cnt[order].astype(np.float64)
            leaf = codes[first]
            lev = np.maximum(levels[first, j], 0)
            b = flat[offsets[lev] + h.maps[lev, leaf]]
            inside = custom[first]
            # b of a CUSTOM value = the input records whose value it covers
            b[inside] = covered(table, release, j).total(a)[rc[first[inside]]]
        else:
            size = (h.height + 1) * nl
            key = levels[:, j] * nl + codes
            every = np.bincount(key, weights=w, minlength=size).astype(np.float64)
            first = first_rows(key, size)
            present = np.flatnonzero(first >= 0)
            pairs = present[np.argsort(first[present], kind="stable")]
            cnt = every[pairs]
            lev, leaf = np.divmod(pairs, nl)
            b = flat[offsets[lev] + h.maps[lev, leaf]]
        aa = a[leaf]
        out.append(seq_sum(cnt * _log2(aa / b)))  # ≤ 0, as ARX accumulates it
    return out


def _fmix32(h: int) -> int:
    """MurmurHash3's 32-bit finalizer (what hppc hashes int keys with)."""
    h &= 0xFFFFFFFF
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    return h ^ (h >> 16)


def _hppc_slot_order(keys: Sequence[int]) -> list[int]:
    """Iteration order of an hppc-0.6 ``IntIntOpenHashMap`` after inserting ``keys`` in this order.

    ARX sums the non-monotonic entropy's suppression term over such a map, so the order of the
    floating-point additions (and, rarely, the last digit kept by the 10-decimal floor) depends on
    it. Emulated per the research note /work/notes/arx_semantics.md §6: 16 slots, load factor 0.75,
    slot = fmix32(key ^ fmix32(17 + nlz(capacity))) & (capacity − 1), linear probing; growing
    doubles the capacity and re-inserts the old slots from the highest index down.
    """

    def slot_of(key: int, table: list[int | None]) -> int:
        cap = len(table)
        pert = _fmix32(17 + (32 - cap.bit_length()))
        slot = _fmix32(key ^ pert) & (cap - 1)
        while table[slot] is not None:
            slot = (slot + 1) & (cap - 1)
        return slot

    table: list[int | None] = [None] * 16
    resize_at = max(2, math.ceil(16 * 0.75)) - 1
    for assigned, key in enumerate(keys):  # keys are distinct
        table[slot_of(key, table)] = key
        if assigned == resize_at:
            old = table
            table = [None] * (2 * len(old))
            for k in reversed(old):
                if k is not None:
                    table[slot_of(k, table)] = k
            resize_at = max(2, math.ceil(len(table) * 0.75)) - 1
    return [k for k in table if k is not None]


def _arx_value_codes(h: Hierarchy, first: np.ndarray, level: int) -> np.ndarray:
    """ARX's dictionary code of every node of ``level`` (−1 for nodes without data), from each
    leaf's first record (``first``, −1: none).

    ARX numbers a column's values by first appearance in the data, then registers the labels of the
    hierarchy rows whose leaf occurs in the data (file order, levels left to right); a label is one
    code whatever its level.
    """
    uniq = np.flatnonzero(first >= 0)
    label_code: dict[str, int] = {}
    for leaf in uniq[np.argsort(first[uniq], kind="stable")]:
        label_code.setdefault(h.labels[0][leaf], len(label_code))
    out = np.full(h.size(level), -1, dtype=np.int64)
    for leaf in uniq:  # leaf codes are hierarchy-file rows, in file order
        for lv in range(h.height + 1):
            code = label_code.setdefault(h.labels[lv][h.maps[lv, leaf]], len(label_code))
            if lv == level:
                out[h.maps[level, leaf]] = code
    return out


def _suppressed_value_counts(h: Hierarchy, codes: np.ndarray, first_leaf: np.ndarray, sup: np.ndarray, level: int,
                             weights: np.ndarray | None = None) -> list[float]:
    """Suppressed records per generalized value of one QI (leaf ``codes`` of every record, each leaf's
    first record ``first_leaf``), in the order ARX adds them up."""
    gen = h.maps[level][codes[sup]].astype(np.int64)
    counts = np.bincount(gen, weights=None if weights is None else weights[sup], minlength=h.size(level))
    first = first_rows(gen, h.size(level))
    nodes = np.flatnonzero(first >= 0)
    nodes = nodes[np.argsort(first[nodes], kind="stable")]  # insertion order: first appearance
    dict_code = _arx_value_codes(h, first_leaf, level)
    by_code = {int(dict_code[v]): float(counts[v]) for v in nodes}
    return [by_code[k] for k in _hppc_slot_order([int(dict_code[v]) for v in nodes])]


def entropy(
    table: Table,
    release: Release,
    *,
    monotonic: bool = True,
    gs: float = 0.5,
    weights: Mapping[str, float] | Sequence[float] | None = None,
) -> float:
    """ARX's non-uniform entropy: the weighted sum of :func:`entropy_per_attribute`."""
    values = entropy_per_attribute(table, release, monotonic=monotonic, gs=gs)
    return float(aggregate_attributes(table, values, weights, "sum"))
