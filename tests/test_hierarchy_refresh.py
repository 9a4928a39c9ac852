"""A hierarchy changed in place between two runs gives what a new hierarchy with its content gives
(``Hierarchy.refresh``, called by every encoding): its once-computed leaf counts, domain shares and index of
the leaves are made again from the new codes and leaves."""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonkit import Hierarchy, Schema, anonymize
from anonkit.models import KAnonymity
from anonkit.runner import _encoding_reuse


def _ages() -> Hierarchy:
    return Hierarchy([[str(a), f"{a // 10 * 10}s", "*"] for a in range(20, 60)], name="age")


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    return pd.DataFrame({"age": rng.integers(20, 60, 400).astype(str), "zip": rng.choice(["a", "b", "c"], 400)})


def _run(h: Hierarchy, frame: pd.DataFrame):  # type: ignore[no-untyped-def]
    zip_h = Hierarchy([["a", "*"], ["b", "*"], ["c", "*"]], name="zip")
    schema = Schema.of(quasi=["age", "zip"], hierarchies={"age": h, "zip": zip_h})
    return anonymize(frame, schema, [KAnonymity(4)], algorithm="flash", seed=1)


def test_shares_follow_codes_changed_in_place(monkeypatch) -> None:
    monkeypatch.setattr(_encoding_reuse, "REUSE_ENCODINGS", False)
    frame = _frame()
    h = _ages()
    _run(h, frame)  # the shares of the old codes computed and kept
    old_share = h.domain_share(1).copy()
    h.maps[1] = np.where(h.maps[0] < 5, 1, h.maps[1])  # the ages 20-24 moved into the next band
    h.labels[1] = np.append(h.labels[1][:0], h.labels[1])  # (the same labels, a new array)
    changed = _run(h, frame)
    fresh_h = Hierarchy([[str(a), h.labels[1][h.maps[1][i]], "*"] for i, a in enumerate(range(20, 60))], name="age")
    fresh = _run(fresh_h, frame)
    assert not np.array_equal(h.domain_share(1), old_share)
    def by_label(x: Hierarchy) -> dict:
        return dict(zip(x.labels[1].tolist(), x.domain_share(1).tolist(), strict=True))

    assert by_label(h) == by_label(fresh_h)  # (codes in another order: the shares by label)
    assert changed.summary["score"] == fresh.summary["score"]
    pd.testing.assert_frame_equal(changed.frame, fresh.frame)


def test_leaves_renamed_in_place_are_read_by_their_new_names(monkeypatch) -> None:
    monkeypatch.setattr(_encoding_reuse, "REUSE_ENCODINGS", False)
    frame = _frame()
    h = _ages()
    _run(h, frame)  # the index of the leaves built
    h.labels[0][:] = [f"age {v}" for v in h.labels[0]]  # every leaf renamed in place
    renamed = frame.assign(age="age " + frame["age"])
    again = _run(h, renamed)
    fresh = _run(Hierarchy([[f"age {a}", f"{a // 10 * 10}s", "*"] for a in range(20, 60)], name="age"), renamed)
    pd.testing.assert_frame_equal(again.frame, fresh.frame)


def test_an_unchanged_hierarchy_keeps_what_it_computed() -> None:
    h = _ages()
    h.refresh()
    first = h.domain_share(1)
    h.refresh()
    assert h.domain_share(1) is first  # nothing changed: the kept shares are read again
