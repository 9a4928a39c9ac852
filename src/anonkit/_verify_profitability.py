"""The verifier's recount of what the profitability models with an attack judge: every released
class's information loss, read from the published cells alone (no search, no node).

ARX's entropy-based information loss of a class is ``log10(Π_j share_j) / log10(Π_j size_j) + 1``
clipped to ``[0, 1]``, with ``share_j`` the share of QI ``j``'s hierarchy leaves the class's published
label covers. A full-domain release publishes one level per column, so a label is looked up on the
levels of its hierarchy that hold every label the column publishes. Where several levels do and a
label covers different leaves on them, the larger cover is taken: more loss means a smaller payout,
so the recount can only be stricter than the search (fail closed). A label no level holds (an
interval or set of local recoding) is refused in one line: the attack models run on full-domain
releases only.

The no-attack models need nothing here: they are judged on class sizes and on the population
recount (:mod:`anonkit._verify_population`), which the verifier already makes.

Wiring (one call in :func:`anonkit.verifier.verify`, beside ``_add_population``)::

    if INFORMATION_LOSS_NEED in needs:
        stats.extra[INFORMATION_LOSS_NEED] = released_information_loss(released, cls, stats.n_classes, qis, schema)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.models.profitability import class_information_loss
from anonkit.schema import Schema


def _column_cover(labels: np.ndarray, hierarchy: object, column: str) -> np.ndarray:
    """Leaves covered by every published label of one column (see the module docstring)."""
    levels = [lv for lv in range(hierarchy.height + 1)  # type: ignore[attr-defined]
              if set(labels) <= set(hierarchy.labels[lv])]  # type: ignore[attr-defined]
    if not levels:
        raise InputError("a published label is on no single level of the column's hierarchy; the profitability "
                         "models are judged on full-domain releases", column=column)
    cover = np.zeros(len(labels))
    for lv in levels:
        counts = hierarchy.leaf_counts(lv)  # type: ignore[attr-defined]
        by_label: dict[str, float] = {}
        for node, label in enumerate(hierarchy.labels[lv]):  # type: ignore[attr-defined]
            by_label[str(label)] = max(by_label.get(str(label), 0.0), float(counts[node]))
        cover = np.maximum(cover, np.array([by_label[str(v)] for v in labels]))
    return cover


def released_information_loss(released: pd.DataFrame, cls: np.ndarray, n_classes: int, qis: list[str],
                              schema: Schema) -> np.ndarray:
    """ARX's entropy-based information loss of every released class (``cls``: the class of every row of
    ``released``, the released rows only), from the published labels and the schema's hierarchies."""
    first = np.full(n_classes, -1, dtype=np.int64)
    rows = np.arange(len(cls) - 1, -1, -1)
    first[np.asarray(cls)[rows]] = rows
    has = first >= 0
    shares = np.ones(n_classes)
    domain = 1.0
    for q in qis:
        h = schema[q].hierarchy
        if h is None:
            raise InputError("the profitability models need a hierarchy for every quasi-identifier", column=q)
        labels = released[q].astype(str).to_numpy()[first[has]]
        col = np.ones(n_classes)
        col[has] = _column_cover(labels, h, q) / float(h.n_leaves)
        shares = shares * col
        domain *= float(h.n_leaves)
    return class_information_loss(shares, domain)
