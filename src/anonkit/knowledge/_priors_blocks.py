"""Blocked, windowed kernel sums for :func:`anonkit.knowledge.kernel_priors` (issue 30 item 2).

The Epanechnikov kernel has compact support: a (target, source) pair weighs 0 unless every
attribute's ``δ_a / B_a < 1`` (product kernel: one factor 0 zeroes the product; distance kernel:
``u² = Σ (δ_a/B_a)² < 1`` needs each term ``< 1``). So only *candidate* pairs are evaluated:

* **blocking** — per categorical QI, the leaf values are split into the connected components of
  the graph "``δ < B``" (for a hierarchy distance these are the subtrees whose normalized height is
  below ``B``); tuples whose values lie in different components have weight 0;
* **windowing** — on the numeric QI with the narrowest bandwidth ``B ≤ 1``, only sources in the bins
  (width ``B · range / 2``) that can hold a value within ``B · range`` of the target's (a missing
  value is at 1 from everything: never inside); pairs outside the support are dropped once weighed.

Exactness (same figures bit for bit as the full comparison): the weight of a candidate pair is
computed with the same element-wise operations in the same attribute order, and the numerator
``Σ_c w_tc · h_cs`` is summed *sequentially in ascending source order* (``np.bincount`` adds its
weights in input order). A pair left out has ``w = 0``, so its term is ``+0.0`` and adding it to
a non-negative partial sum changes no bit. The full comparison is the same sum over every source.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonkit.distance import numeric_delta

#: relative slack on the numeric window (a superset of the support is exact; a subset would not be)
WINDOW_SLACK = 1e-9
#: bins per bandwidth on the windowed numeric QI: a target's candidates span about 2·B/step + 1 bins,
#: each already in source order, so putting them in source order is a merge of a few runs
BINS_PER_BAND = 2
#: at most this many bins over the range (a tiny bandwidth would otherwise overflow the bin codes)
MAX_BINS = 1_000_000


def _components(mat: np.ndarray, band: float) -> tuple[np.ndarray, np.ndarray] | None:
    """Component id per target value and per source value of the bipartite graph ``δ < band``;
    ``None`` when one component holds everything (no pruning)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    nt, ns = mat.shape
    rows, cols = np.nonzero(mat < band)
    graph = coo_matrix((np.ones(len(rows)), (rows, nt + cols)), shape=(nt + ns, nt + ns))
    count, labels = connected_components(graph, directed=False)
    if count <= 1:
        return None
    return labels[:nt], labels[nt:]


def _block_keys(parts: list[tuple[str, Any]], bands: np.ndarray, mt: int, ms: int) -> tuple[np.ndarray, np.ndarray]:
    """A dense group key per target and per source tuple: equal keys ⇔ same component on every
    categorical QI that prunes. Pairs with different keys have weight 0."""
    kt, ks = [np.zeros(mt, dtype=np.int64)], [np.zeros(ms, dtype=np.int64)]
    for (kind, data), band in zip(parts, bands, strict=True):
        if kind != "cat":
            continue
        ti, si, mat = data
        comp = _components(mat, band)
        if comp is not None:
            kt.append(comp[0][ti])
            ks.append(comp[1][si])
    both = np.concatenate([np.stack(kt, axis=1), np.stack(ks, axis=1)])
    _, key = np.unique(both, axis=0, return_inverse=True)
    key = key.reshape(-1).astype(np.int64)
    return key[:mt], key[mt:]


def _window_attribute(parts: list[tuple[str, Any]], bands: np.ndarray) -> int | None:
    """The numeric QI with the narrowest bandwidth ``≤ 1`` and a positive range, if any."""
    best = None
    for j, ((kind, data), band) in enumerate(zip(parts, bands, strict=True)):
        if kind == "num" and band <= 1.0 and data[2] > 0 and (best is None or band < bands[best]):
            best = j
    return best


def _window_bins(t: np.ndarray, s: np.ndarray, span: float, band: float) -> tuple[np.ndarray, ...]:
    """Bins of width ``B · range / BINS_PER_BAND`` on the numeric QI: ``(bin per source, first and
    past-last candidate bin per target, bins + 1)``. Float rounding is monotone, so a source within
    ``half`` of a target falls in a bin between the bins of ``t − half`` and ``t + half``; a missing
    value sits in the extra last bin, which no target's range reaches."""
    base = float(np.nanmin(s)) if (~np.isnan(s)).any() else 0.0
    scale = max(float(np.nanmax(np.abs(np.concatenate([t, s, [base]])))), 1.0)
    half = band * span * (1.0 + WINDOW_SLACK) + 8.0 * np.spacing(scale)
    step = max(band * span / BINS_PER_BAND, span / MAX_BINS)
    known = ~np.isnan(s)
    bins = int(np.floor((np.nanmax(s) - base) / step)) + 1 if known.any() else 0
    bin_s = np.full(len(s), bins, dtype=np.int64)
    bin_s[known] = np.floor((s[known] - base) / step).astype(np.int64)
    with np.errstate(invalid="ignore"):
        lo = np.clip(np.floor((t - half - base) / step), 0, bins)
        hi = np.clip(np.floor((t + half - base) / step) + 1, 0, bins)
    lo = np.where(np.isnan(t), 0, lo).astype(np.int64)
    hi = np.where(np.isnan(t), 0, hi).astype(np.int64)  # a missing target value is inside no window
    return bin_s, lo, hi, bins + 1


def candidate_ranges(parts: list[tuple[str, Any]], bands: np.ndarray, mt: int, ms: int) -> tuple[np.ndarray, ...]:
    """``(order, start, stop, windowed)``: source tuples sorted as ``order``; target ``t``'s
    candidates are ``order[start[t]:stop[t]]`` (a superset of its kernel support)."""
    key_t, key_s = _block_keys(parts, bands, mt, ms)
    j = _window_attribute(parts, bands)
    if j is None:
        bin_s, lo, hi, width = np.zeros(ms, dtype=np.int64), np.zeros(mt, np.int64), np.ones(mt, np.int64), 1
    else:
        bin_s, lo, hi, width = _window_bins(*parts[j][1], bands[j])
    code_s = key_s * width + bin_s
    order = np.argsort(code_s, kind="stable")  # by key, bin, then source order
    sorted_code = code_s[order]
    start = np.searchsorted(sorted_code, key_t * width + lo, side="left")
    stop = np.searchsorted(sorted_code, key_t * width + hi, side="left")
    return order, start, np.maximum(stop, start), np.array(j is not None)


def pair_weights(
    parts: list[tuple[str, Any]], bands: np.ndarray, kernel: str, t: np.ndarray, c: np.ndarray
) -> np.ndarray:
    """Kernel weight of the pairs (target ``t[i]``, source ``c[i]``): the full comparison's
    element-wise operations, in its attribute order."""
    acc = np.zeros(len(t)) if kernel == "distance" else np.ones(len(t))
    for (kind, data), band in zip(parts, bands, strict=True):
        if kind == "num":
            tv, sv, span = data
            delta = numeric_delta(tv[t], sv[c], span)
        else:
            ti, si, mat = data
            delta = mat[ti[t], si[c]]
        u = delta / band
        if kernel == "distance":
            acc += u**2
        else:
            acc *= np.where(u < 1.0, 0.75 * (1.0 - u * u), 0.0)
    if kernel == "distance":
        return np.where(acc < 1.0, 0.75 * (1.0 - acc), 0.0)
    return acc


def ordered_numerators(t: np.ndarray, c: np.ndarray, w: np.ndarray, hist: np.ndarray, rows: int) -> np.ndarray:
    """``num[t, s] = Σ_c w · hist[c, s]`` added in the order of the pairs (``np.bincount`` adds
    sequentially), for local target rows ``0 … rows − 1``."""
    out = np.empty((rows, hist.shape[1]))
    for s in range(hist.shape[1]):
        out[:, s] = np.bincount(t, weights=w * hist[c, s], minlength=rows)
    return out


def _ascending(local: np.ndarray, c: np.ndarray) -> bool:
    """Whether every target's candidates already come in ascending source order (the window lists
    them bin by bin, which is the source order when only one bin is in reach)."""
    same = local[1:] == local[:-1]
    return bool(np.all(c[1:][same] > c[:-1][same]))


def blocked_numerators(
    parts: list[tuple[str, Any]], bands: np.ndarray, kernel: str, hist: np.ndarray, mt: int, chunk_pairs: int
) -> np.ndarray:
    """``(mt × S)`` kernel numerators over candidate pairs only, ``chunk_pairs`` pairs at a time."""
    ms = hist.shape[0]
    order, start, stop, windowed = candidate_ranges(parts, bands, mt, ms)
    lengths = stop - start
    out = np.zeros((mt, hist.shape[1]))
    ends = np.cumsum(lengths)
    a = 0
    while a < mt:
        base = ends[a - 1] if a else 0
        b = max(a + 1, int(np.searchsorted(ends, base + chunk_pairs, side="right")))
        b = min(b, mt)
        length = lengths[a:b]
        total = int(length.sum())
        if total:
            local = np.repeat(np.arange(b - a), length)
            offset = np.arange(total) - np.repeat(np.cumsum(length) - length, length)
            c = order[np.repeat(start[a:b], length) + offset]
            if windowed and not _ascending(local, c):  # the sum runs in source order
                keep = np.argsort(local * np.int64(ms) + c, kind="stable")  # merges each target's runs
                local, c = local[keep], c[keep]
            w = pair_weights(parts, bands, kernel, local + a, c)
            live = w > 0  # the window is a superset: drop the pairs outside the support (exact)
            out[a:b] = ordered_numerators(local[live], c[live], w[live], hist, b - a)
        a = b
    return out
