"""The restore pass of local suppression (:mod:`anonkit.algorithms.suppress._restore`, issue 28 item 8) works on
distinct patterns with counts and updates ``fk`` instead of recounting it; these tests hold it to the rule its
docstring states, recounted from scratch record by record: a cell is tried once (most important column first,
records in the caller's order) and restored when the record keeps ``fk ≥ k`` on every requirement and every
record it stops matching keeps ``fk ≥ k`` — on random tables full of duplicates (the same (pattern, value) tried
again after a success, skipped after a failure), missing cells (never restored), several requirements (sdcMicro's
``combs``) and patterns that empty and fill again."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.algorithms.suppress._restore import restore_cells


def _fk(pat: np.ndarray, cols: list[int]) -> np.ndarray:
    """Every record's ``fk`` on ``cols``: the records agreeing on every column both leave unsuppressed."""
    a, b = pat[:, None, cols], pat[None, :, cols]
    return ((a == b) | (a < 0) | (b < 0)).all(axis=2).sum(axis=1)


def _reference(pat: np.ndarray, codes: np.ndarray, reqs: list[tuple[tuple[int, ...], int]], order: np.ndarray,
               rows: np.ndarray) -> int:
    """The pass record by record, every ``fk`` recounted before and after each try."""
    restored = 0
    for c in order[::-1]:
        for r in rows:
            if pat[r, c] >= 0 or codes[r, c] < 0:
                continue
            trial = pat.copy()
            trial[r, c] = codes[r, c]
            ok = True
            for cols, k in reqs:
                if k <= 1 or c not in cols:
                    continue
                before, after = _fk(pat, list(cols)), _fk(trial, list(cols))
                lost = after < before
                lost[r] = True
                ok &= bool((after[lost] >= k).all())
            if ok:
                pat[r, c] = codes[r, c]
                restored += 1
    return restored


@st.composite
def _inputs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, list[tuple[tuple[int, ...], int]], np.ndarray,
                                      np.ndarray]:
    n, d = draw(st.integers(1, 14)), draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, draw(st.integers(1, 3)), size=(n, d))
    codes[rng.random((n, d)) < 0.1] = -1  # missing: a wildcard never restored
    pat = np.where(rng.random((n, d)) < draw(st.floats(0.2, 1.0)), -1, codes)
    reqs = [(tuple(sorted(rng.choice(d, size=rng.integers(1, d + 1), replace=False).tolist())), int(rng.integers(1, 5)))
            for _ in range(draw(st.integers(0, 2)))]
    reqs.append((tuple(range(d)), draw(st.integers(2, 4))))
    return pat, codes, reqs, rng.permutation(d), rng.permutation(n)


@settings(max_examples=25, deadline=None)
@given(_inputs())
def test_restore_equals_the_record_by_record_rule(case: tuple) -> None:
    pat, codes, reqs, order, rows = case
    expected = pat.copy()
    count = _reference(expected, codes, reqs, order, rows)
    assert restore_cells(pat, codes, reqs, order, rows) == count
    assert pat.tolist() == expected.tolist()


def test_the_lost_partner_rule_depends_on_the_order_tried() -> None:
    """Six records of value 0 and one of value 1, all suppressed, k 3. Tried first to last, the six 0s come
    back (nothing known differs yet) and the 1 cannot (it would match itself alone). Tried last to first, the 1
    comes back first, and each 0 restored after it costs it a partner: four 0s come back, the fifth would leave
    the 1 with ``fk`` 2, so it and the sixth keep the ``*``."""
    codes = np.array([[0]] * 6 + [[1]], dtype=np.int64)
    for rows, count in ((np.arange(7), 6), (np.arange(7)[::-1].copy(), 5)):
        pat = np.full_like(codes, -1)
        expected = pat.copy()
        assert _reference(expected, codes, [((0,), 3)], np.array([0]), rows) == count
        assert restore_cells(pat, codes, [((0,), 3)], np.array([0]), rows) == count
        assert pat.tolist() == expected.tolist()


def test_a_failed_value_does_not_stop_another_value_of_the_same_pattern() -> None:
    """Two records behind the same ``*``, hiding 0 and 1, beside three known 1s, k 3: the 0 cannot come back
    (it would match itself and the other ``*`` only), the 1 can — a failure is remembered per (pattern,
    value), never per pattern."""
    codes = np.array([[0], [1], [1], [1], [1]], dtype=np.int64)
    pat = np.array([[-1], [-1], [1], [1], [1]], dtype=np.int64)
    expected = pat.copy()
    assert _reference(expected, codes, [((0,), 3)], np.array([0]), np.arange(5)) == 1
    assert restore_cells(pat, codes, [((0,), 3)], np.array([0]), np.arange(5)) == 1
    assert pat.tolist() == expected.tolist() == [[-1], [1], [1], [1], [1]]
