"""A pyarrow text column's cells looked up in its hierarchy's leaves at once (:func:`arrow_leaf_codes`).

The general encoding of a quasi-identifier hashes its cells into their distinct texts
(:func:`anonkit._values.factorize_text`: pyarrow's ``dictionary_encode``) and then finds each distinct text among
the hierarchy's leaves (:meth:`~anonkit.hierarchy.Hierarchy.label_leaves`). When every cell is a leaf, pyarrow's
``index_in`` against the leaves gives each cell's leaf in one pass, with a hash table of the leaves alone
(a quarter cheaper on Adult's columns than ``dictionary_encode``, and no per-cell gather of the leaves after it).
Anything else (a missing cell, a cell that is no leaf, a leaf with surrounding whitespace to strip, a leaf that is
not exactly a text) is left to the general encoding, which says what is wrong with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from anonkit._values import arrow_text_dtype, complete_arrow_text
from anonkit.hierarchy._core import Hierarchy

if TYPE_CHECKING:  # (the schema imports the hierarchies: read for its types alone)
    from anonkit.schema import Schema


def arrow_leaf_codes(column: pd.Series, hierarchy: Hierarchy, strip: bool
                     ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]] | None:
    """The leaf code of every cell of a pyarrow text ``column`` (:func:`~anonkit._values.arrow_text_dtype`) in
    ``hierarchy`` (after :meth:`~anonkit.hierarchy.Hierarchy.refresh`) and ``(codes, texts)``: the column's
    distinct texts, those of the leaves present in leaf order, and every cell's code into them; ``None`` (the
    caller's general encoding) unless the column has no missing cell, every cell is a leaf and, with ``strip``, no
    leaf present has whitespace around it.

    Why the general encoding gives the same: a pyarrow text is its own canonical text, and ``index_in`` matches
    a cell to the leaf of the same text (UTF-8 bytes equal exactly when the texts are; the leaves are distinct), as
    :meth:`~anonkit.hierarchy.Hierarchy.label_leaves` finds each distinct text. The distinct texts are the same set
    as ``factorize_text``'s, in another order, and two cells share a code exactly when they share a text: what
    the encoding reads from them (the missing cells, the type inferred, the warnings, the numbers parsed and the
    row an error names) depends on the set and the cells, not on the order. With ``strip`` the general encoding
    strips a column only when one of its texts has whitespace around it; here none has."""
    if not arrow_text_dtype(column.dtype):
        return None
    leaves = hierarchy.arrow_leaves()
    if leaves is None:
        return None
    import pyarrow.compute as pc  # (a pyarrow text column: pyarrow is loaded)

    arrow = complete_arrow_text(column.array)
    if arrow is None:
        return None
    found = pc.index_in(arrow, value_set=leaves)
    if found.null_count:  # a cell that is no leaf: the general encoding names it
        return None
    leaf = found.to_numpy().astype(np.intp)  # (numpy indexes with ``intp``: widened once, for both uses below)
    seen = np.zeros(len(leaves), dtype=bool)
    seen[leaf] = True  # (a scatter: two thirds of ``bincount``'s cost)
    present = np.flatnonzero(seen)
    texts = hierarchy.leaves[present]
    if strip and any(t != t.strip() for t in texts):
        return None
    if len(present) == len(leaves):
        return leaf, (leaf, texts)
    rank = np.zeros(len(leaves), dtype=leaf.dtype)
    rank[present] = np.arange(len(present), dtype=leaf.dtype)
    return leaf, (rank[leaf], texts)


def leaf_columns(frame: pd.DataFrame, schema: Schema, strip: bool
                 ) -> dict[str, tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]]:
    """:func:`arrow_leaf_codes` of every quasi-identifier of ``schema`` with a hierarchy (refreshed first) where it
    applies: name → (the leaf of every cell, (codes, texts)), in the schema's order. Nothing is looked up (nor
    refreshed) when the first of them is not a pyarrow text column: a frame of objects is spared every column's
    test (its other columns, if held by pyarrow, are encoded by the general path: the same codes)."""
    out: dict[str, tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]] = {}
    first = True
    for name in schema.quasi:
        if (h := schema[name].hierarchy) is None:
            continue
        column = frame[name]
        if first and not arrow_text_dtype(column.dtype):
            return out
        first = False
        h.refresh()
        if (found := arrow_leaf_codes(column, h, strip)) is not None:
            out[name] = found
    return out
