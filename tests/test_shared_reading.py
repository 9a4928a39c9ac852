"""An audit reads the release's and the input's columns once (``anonkit.analytics.cover.shared_reading``):
its attacks build several coverage matrices over the same columns (singling-out twice against the whole
input, linkability on two sides, inference), and the bundled job audits eight releases (issue 30, item
1). Inside the block a column is factorized, and its values read against its hierarchy, once; the
matrices and the audit's figures are exactly those built without sharing."""

from __future__ import annotations

import contextlib
import json

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit import Schema, anonymize
from anonkit.analytics import cover
from anonkit.audit import run as audit_run
from anonkit.audit.inputs import AuditInputs
from anonkit.models import KAnonymity

CELLS = st.sampled_from(["20-29", "30-39", "*", "25", "31", " 25", "", "[20, 30["])


def _same(a: cover.ColumnCover, b: cover.ColumnCover) -> bool:
    return (list(a.labels) == list(b.labels) and list(a.values) == list(b.values)
            and all(np.array_equal(getattr(a, f), getattr(b, f))
                    for f in ("indptr", "indices", "label_codes", "value_codes")))


@settings(max_examples=20, deadline=None)
@given(released=st.lists(CELLS, min_size=1, max_size=30), original=st.lists(st.integers(18, 45), min_size=1,
                                                                              max_size=30))
def test_a_shared_column_cover_is_the_cover_built_alone(released: list[str], original: list[int]) -> None:
    """Released cells against original numbers, read twice inside the block (the second from what the
    first read), between them against other values under the same name, and outside the block: the
    same coverage matrix as built alone each time."""
    rel = pd.Series(released, dtype=object)
    orig = pd.Series([str(x) for x in original], dtype="string")
    other = pd.Series([str(x + 7) for x in original], dtype="string")  # same name, other values: its own reading
    alone = cover.column_cover("age", rel, orig, kind="numeric")
    alone_other = cover.column_cover("age", rel, other, kind="numeric")
    with cover.shared_reading():
        first = cover.column_cover("age", rel, orig, kind="numeric")
        shifted = cover.column_cover("age", rel, other, kind="numeric")
        again = cover.column_cover("age", rel, orig, kind="numeric")
    assert _same(alone, first) and _same(alone, again) and _same(alone_other, shifted)


def test_inside_the_block_a_column_is_factorized_and_resolved_once(monkeypatch) -> None:
    """Two matrices over the same columns: each column factorized once and its resolver built once
    inside the block; twice each outside it (the control); nothing is kept after the block."""
    calls = {"factorize": 0, "resolver": 0}
    real_factorize, real_resolver = cover.factorize_text, cover.Resolver

    def factorize(values, **kw):  # type: ignore[no-untyped-def]
        calls["factorize"] += 1
        return real_factorize(values, **kw)

    def resolver(*args, **kw):  # type: ignore[no-untyped-def]
        calls["resolver"] += 1
        return real_resolver(*args, **kw)

    monkeypatch.setattr(cover, "factorize_text", factorize)
    monkeypatch.setattr(cover, "Resolver", resolver)
    rel, orig = pd.Series(["20-29", "30-39"] * 3), pd.Series(["21", "35", "22", "38", "29", "30"])

    def twice() -> dict[str, int]:
        calls.update(factorize=0, resolver=0)
        for _ in range(2):
            cover.column_cover("age", rel, orig, kind="numeric")
        return dict(calls)

    assert twice() == {"factorize": 4, "resolver": 2}
    with cover.shared_reading():
        assert twice() == {"factorize": 2, "resolver": 1}
    assert twice() == {"factorize": 4, "resolver": 2}


def test_the_audit_is_the_same_with_and_without_sharing(test2_frame, test2_hierarchies, monkeypatch) -> None:
    """A release audited with shared reading and without it gives the same audit (every figure, verdict
    and note; only the timings differ)."""
    schema = Schema.of(quasi=["ZIPCode", "Age"], sensitive=["Disease"], insensitive=["Salary"],
                       hierarchies={q: test2_hierarchies[q] for q in ("ZIPCode", "Age")})
    result = anonymize(test2_frame, schema, [KAnonymity(3)], max_suppression=0.0)
    inputs = AuditInputs(schema=result.schema, original=test2_frame.astype(str), release=result.frame)
    shared = audit_run.audit(inputs, models=[KAnonymity(3)], targets=50)
    monkeypatch.setattr(audit_run, "shared_reading", contextlib.nullcontext)
    alone = audit_run.audit(inputs, models=[KAnonymity(3)], targets=50)

    def figures(report: dict) -> str:
        return json.dumps({k: v for k, v in report.items() if k != "seconds"}, sort_keys=True, default=str)

    assert {a["name"] for a in shared["attacks"]} >= {"singling-out", "linkability", "inference"}
    assert figures(shared) == figures(alone)
