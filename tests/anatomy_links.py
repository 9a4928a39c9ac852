"""The private link of an Anatomy release (QIT row → input record), rebuilt for tests that attack or
read its linked tables (test_published, test_class_attacks)."""

from __future__ import annotations

import numpy as np

from anonkit._values import as_text


def anatomy_link(rel, seed: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The QIT row → input record link of an Anatomy release, rebuilt and checked against the QIT."""
    released = np.flatnonzero(rel.record_class >= 0)
    link = released[np.random.default_rng(seed).permutation(len(released))]
    qit = rel.tables["qit"]
    assert (qit["GroupID"].to_numpy() == rel.record_class[link] + 1).all()
    for q in rel.table.qi:
        assert (as_text(qit[q]) == as_text(rel.table.frame[q].iloc[link])).all()
    return link
