"""MDAV's farthest record from the centroid, from a sorted snapshot of earlier distances (issue 30).

The centroid of the remaining records moves little from one round to the next, but every tuple's
distance to it changes, and far from the table's edge many tuples are about as far (a tree's bounds
prune little there). So the live tuples' exact distances to the centroid of one round (the
*snapshot*) are sorted once, largest first, and a later round's centroid is compared with the
snapshot's: a tuple's distance can have grown by at most the *drift*

    ``Σ_numeric |c − c₀| · (2·max|z| + |c| + |c₀|)  +  Σ_other max_v |cat[v] − cat₀[v]|``

(``(z − c)² − (z − c₀)² = (c₀ − c)(2z − c − c₀)``; a missing value's term is 1 whatever the centroid),
widened by a relative :data:`MARGIN` of the largest distance possible for the rounding. Walking the
snapshot from the top, a tuple whose snapshot distance plus the drift is below the best exact
distance found so far cannot be the farthest, nor can any after it; the tuples before are
evaluated exactly (the tuple path's terms in its order), so the choice (ties: the lowest record) is
the tuple path's. The snapshot is taken again once the tuples walked since it reach the live tuples
it held (so the sorting costs at most what the walking does). A centroid without a known value on a
numeric QI (every term 1) goes to the tree (:meth:`~anonkit.algorithms.cluster._mdav_index.Index.farthest`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: relative widening of the drift against rounding (of the largest possible distance)
MARGIN = 1e-9
#: tuples evaluated at once while walking the snapshot
CHUNK = 64


class Snapshot:
    """The live tuples sorted by their exact distance to one centroid, largest first."""

    def __init__(self, ix: Any, query: np.ndarray, cat: list[np.ndarray]) -> None:
        live = np.flatnonzero(ix.t.count > 0)
        d = ix.exact(live, query, cat)
        order = np.argsort(-d, kind="stable")
        self.pos, self.d = live[order], d[order]
        self.query = query.copy()
        self.cat = [c.copy() for c in cat]
        self.start = 0  # the entries before are dead
        self.walked = 0

    def drift(self, zmax: np.ndarray, query: np.ndarray, cat: list[np.ndarray]) -> float:
        """How much a tuple's distance can have grown since the snapshot, widened for rounding."""
        shift = np.abs(query - self.query)
        grow = float((shift * (2.0 * zmax + np.abs(query) + np.abs(self.query))).sum())
        grow += sum(float(np.abs(c - c0).max()) for c, c0 in zip(cat, self.cat, strict=True) if len(c))
        largest = float(((zmax + np.maximum(np.abs(query), np.abs(self.query))) ** 2).sum()) + len(cat) + len(zmax)
        return grow + MARGIN * (largest + abs(float(self.d[0])) if len(self.d) else largest) + 1e-300


def centroid_farthest(ix: Any, zmax: np.ndarray, snap: Snapshot | None) -> tuple[int, Snapshot | None]:
    """The live tuple farthest from the centroid of the remaining records (ties: the lowest record),
    and the snapshot to use next time."""
    query, cat = ix.centroid()
    if np.isnan(query).any():
        return ix.farthest(query, cat), None
    if snap is None or snap.walked >= len(snap.pos) - snap.start:
        snap = Snapshot(ix, query, cat)
    count = ix.t.count
    while snap.start < len(snap.pos) and count[snap.pos[snap.start]] == 0:
        snap.start += 1
    grow = snap.drift(zmax, query, cat)
    best = -np.inf
    picked: list[np.ndarray] = []
    dists: list[np.ndarray] = []
    i = snap.start
    while i < len(snap.pos) and snap.d[i] + grow >= best:
        pos = snap.pos[i : i + CHUNK]
        pos = pos[(count[pos] > 0) & (snap.d[i : i + CHUNK] + grow >= best)]
        d = ix.exact(pos, query, cat)
        if len(d):
            best = max(best, float(d.max()))
            picked.append(pos)
            dists.append(d)
        i += CHUNK
    snap.walked += i - snap.start
    pos, d = np.concatenate(picked), np.concatenate(dists)
    tied = pos[d == best]
    return int(tied[np.argmin(ix.t.head[tied])]), snap
