"""Lowest common ancestors of groups of leaves in a :class:`~anonkit.hierarchy.Hierarchy`.

A local recoding publishes a class of records at the lowest common ancestor (LCA) of its values
(spec §0.2): the lowest level at which all of the class's leaves share one node, and that node.
The metrics need the same of the leaves a published interval or set covers (ARX compatibility
§2.4, local recodings). :func:`class_lca` computes it for every class at once.

Hierarchies are functional (every node has one parent), so two leaves that share a node at one
level share one at every level above it. Sorting the leaves by their nodes from the top level down
(a depth-first order, :func:`depth_first_order`) puts the leaves below every node next to each
other; a group of leaves shares a node at a level exactly when its first and its last leaf in that
order do. Each class is therefore reduced to two leaves, and its LCA is the lowest level where
those two meet.
"""

from __future__ import annotations

import numpy as np

from anonkit.errors import InputError
from anonkit.hierarchy._core import Hierarchy


def depth_first_order(hierarchy: Hierarchy) -> np.ndarray:
    """The leaf codes in a depth-first order of the hierarchy: sorted by their node at the top
    level, then at the level below, and so on down to the leaf (ties, which cannot occur between
    distinct leaves, by leaf code). The leaves below any node form one run of this order."""
    return np.lexsort(hierarchy.maps).astype(np.int64)  # the last row (top level) sorts first


def class_lca(
    hierarchy: Hierarchy,
    leaf_codes: np.ndarray,
    class_of: np.ndarray,
    n_classes: int,
    *,
    column: str | None = None,
    strict: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Per class the lowest level at which all its leaves share one node, and that node.

    Parameters
    ----------
    hierarchy:
        The hierarchy the leaf codes belong to.
    leaf_codes:
        One leaf code per element (a record's value, or a leaf a published value covers).
    class_of:
        The class of every element, in ``[0, n_classes)``; a negative id means the element is in
        no class (a suppressed record) and is ignored.
    n_classes:
        The number of classes.
    column:
        The attribute's name for the error message (default: the hierarchy's name).
    strict:
        What happens to a class whose leaves share no node even at the top level (a hierarchy with
        several top values): ``True`` raises, ``False`` gives it the top level and node 0.

    Returns
    -------
    level, node:
        Two ``int64`` arrays of length ``n_classes``. A class without elements gets level 0 and
        node 0.

    Raises
    ------
    InputError
        With ``strict``, for the first (lowest-numbered) class without a common ancestor, naming
        the column and the value of that class's first element.
    """
    h = hierarchy
    leaf_codes = np.asarray(leaf_codes, dtype=np.int64)
    class_of = np.asarray(class_of, dtype=np.int64)
    order = depth_first_order(h)
    rank = np.empty(h.n_leaves, dtype=np.int64)
    rank[order] = np.arange(h.n_leaves)
    inside = class_of >= 0
    cls = class_of[inside]
    leaves = leaf_codes[inside]
    r = rank[leaves]
    first = np.full(n_classes, h.n_leaves, dtype=np.int64)
    last = np.full(n_classes, -1, dtype=np.int64)
    np.minimum.at(first, cls, r)
    np.maximum.at(last, cls, r)
    empty = last < 0
    a = order[np.where(empty, 0, first)]
    b = order[np.where(empty, 0, last)]
    meet = h.maps[:, a] == h.maps[:, b]  # (levels × classes): do the first and last leaf share a node?
    found = meet.any(axis=0)
    level = np.where(found, meet.argmax(axis=0), h.height).astype(np.int64)
    node = np.where(found, h.maps[level, a], 0).astype(np.int64)
    level[empty] = 0
    node[empty] = 0
    if strict and not (found | empty).all():
        c = int(np.flatnonzero(~(found | empty))[0])
        raise InputError(
            "the values of a class have no common ancestor in the hierarchy (give it a single top value)",
            column=column if column is not None else h.name,
            value=str(h.labels[0][leaves[cls == c][0]]),
        )
    return level, node


def lca_levels(hierarchy: Hierarchy, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(len(a) × len(b))`` level of the lowest common ancestor of every pair of leaf codes (the
    top level when they share no node, as in a hierarchy with several top values; all 0 for a
    hierarchy of height 0, whose callers compare codes)."""
    h = hierarchy
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    out = np.full((len(a), len(b)), h.height, dtype=np.int64)
    for level in range(h.height - 1, -1, -1):
        out[h.maps[level][a][:, None] == h.maps[level][b][None, :]] = level
    return out


class PairwiseLCA:
    """LCA levels among a set of used leaves (local codes ``0 … u−1`` for ``leaves``) of a
    hierarchy given by its lookup arrays ``maps`` (``levels × leaves``): a precomputed ``u × u``
    matrix when ``u ≤ limit``, else one row at a time (no quadratic memory). KACA's merge costs and
    MDAV-generic's distances read it."""

    def __init__(self, maps: np.ndarray, leaves: np.ndarray, *, limit: int) -> None:
        self.height = maps.shape[0] - 1
        self.leaves = np.asarray(leaves, dtype=np.int64)
        #: the ancestor of every used leaf, level by level
        self.groups = [maps[level][self.leaves] for level in range(self.height + 1)]
        self.matrix: np.ndarray | None = None
        if len(self.leaves) <= limit:
            m = np.full((len(self.leaves), len(self.leaves)), self.height, dtype=np.int64)
            for level in range(self.height - 1, -1, -1):
                g = self.groups[level]
                m[g[:, None] == g[None, :]] = level
            self.matrix = m

    def row(self, a: int) -> np.ndarray:
        """LCA level of used leaf ``a`` with every used leaf."""
        if self.matrix is not None:
            return self.matrix[a]
        row = np.full(len(self.leaves), self.height, dtype=np.int64)
        for level in range(self.height - 1, -1, -1):
            g = self.groups[level]
            row[g == g[a]] = level
        return row
