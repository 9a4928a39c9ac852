"""The quasi-identifier distance of spec §0.3, in one place.

Between two values of one quasi-identifier ``a`` the distance ``δ_a`` lies in [0, 1]:

* a **numeric** (or date) attribute: ``|x − y| / range``, the range taken over the values at hand
  (:func:`unit_range`; 0 when all values are equal), clipped to 1;
* any other attribute: ``level(LCA(x, y)) / height`` in its hierarchy (:func:`categorical_delta`,
  :func:`leaf_delta`; for a hierarchy of height 0, 0 between equal values and 1 otherwise);
* a **missing** value on either side: 1 (the worst case).

Records combine the per-attribute distances (the kernel priors of spec §3.2, MDAV-generic, the
background-knowledge clustering of spec §4.1). Users: :mod:`anonkit.knowledge.priors` (kernel
priors), :mod:`anonkit.algorithms.cluster.mdav` (MDAV-generic) and the background-knowledge engine
(:class:`anonkit.algorithms.cluster._bk_engine.QISpace`), whose numba kernels evaluate
:func:`categorical_delta` from the ancestors table it builds (tested equal).
"""

from __future__ import annotations

import numpy as np

from anonkit.hierarchy import Hierarchy, lca_levels


def unit_range(values: np.ndarray) -> tuple[float, float]:
    """``(low, range)`` of the known (non-NaN) ``values``: a value ``x`` is at ``(x − low) / range``
    on the unit scale; ``range`` is 0 when fewer than two distinct values are known."""
    known = np.asarray(values, dtype=np.float64)
    known = known[~np.isnan(known)]
    if not known.size:
        return 0.0, 0.0
    lo, hi = float(known.min()), float(known.max())
    return lo, hi - lo


def to_unit(values: np.ndarray) -> np.ndarray:
    """``values`` on the unit scale of their own range (NaN stays NaN; all equal → 0)."""
    x = np.asarray(values, dtype=np.float64)
    lo, span = unit_range(x)
    return (x - lo) / span if span > 0 else np.where(np.isnan(x), np.nan, 0.0)


def numeric_delta(x: np.ndarray, y: np.ndarray, span: float) -> np.ndarray:
    """``δ`` of numeric values (broadcasting): ``|x − y| / span`` clipped to 1; 1 where either is
    missing; 0 everywhere known when ``span`` is 0."""
    diff = np.abs(np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64))
    out = diff / span if span > 0 else np.zeros_like(diff)
    return np.where(np.isnan(out), 1.0, np.minimum(out, 1.0))


def categorical_delta(hierarchy: Hierarchy, levels: np.ndarray) -> np.ndarray:
    """``δ`` from LCA levels (:func:`anonkit.hierarchy.lca_levels`): ``level / height`` (a
    hierarchy of height > 0; for height 0 compare the codes, as :func:`leaf_delta` does)."""
    return np.minimum(np.asarray(levels) / hierarchy.height, 1.0)


def leaf_delta(
    hierarchy: Hierarchy,
    a: np.ndarray,
    b: np.ndarray,
    *,
    missing: np.ndarray | None = None,
    same_is_zero: bool = False,
) -> np.ndarray:
    """``(len(a) × len(b))`` ``δ`` between leaf codes; leaves flagged in ``missing`` (a boolean per
    leaf code of the hierarchy) are at 1 from everything — with ``same_is_zero`` except from the
    very same leaf (two records with the same tuple are at 0, the background-knowledge engine's
    rule, which lets it work on distinct tuples)."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    if hierarchy.height == 0:
        delta = (a[:, None] != b[None, :]).astype(np.float64)
    else:
        delta = categorical_delta(hierarchy, lca_levels(hierarchy, a, b))
    if missing is not None:
        delta[missing[a], :] = 1.0
        delta[:, missing[b]] = 1.0
        if same_is_zero:
            delta[a[:, None] == b[None, :]] = 0.0
    return delta
