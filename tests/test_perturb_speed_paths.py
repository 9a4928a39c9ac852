"""The fast paths of the perturbative methods' verifiers and utility measures (issue 28, item 8): each equals the
slow reference it replaced, on random inputs, and the float32 numbering is fixed.

* ``cell_texts`` numbers a numpy number column first and turns its distinct values into text, instead of every
  cell: the texts are ``astype(str)``'s (the object-dtype column, which still goes cell by cell, is the reference);
* ``permutation_results`` compares numbers by their bits instead of their texts: the same verdict and count;
* ``regression_comparison_arrays`` fits on the matrices already read: the frame version's figures, bit for bit;
* ``column_kinds`` trusts a numpy number dtype: the same kinds as ``pd.to_numeric`` on every value;
* record swapping's ``_codes`` ranks distinct texts: the codes of factorizing every cell's text, sorted;
* ``text_codes`` on float32 numbers by 32-bit patterns (two float32 values once shared one int64 view: one class).

The rank pairing's list loop is held equal to the compiled loop draw for draw in ``tests/test_swap.py``.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit import Schema
from anonkit._verify_perturb import cell_texts
from anonkit._verify_swap import permutation_results
from anonkit.algorithms.perturb._record_swap import _codes as household_codes
from anonkit.metrics._perturbed_numeric import regression_comparison, regression_comparison_arrays
from anonkit.metrics.perturbed import column_kinds, text_codes
from anonkit.table import Table

FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=64) | st.sampled_from([0.0, -0.0, 1.0, 0.1, 1e16, 2.5])
KINDS = st.sampled_from(["float", "int", "bool"])


def _column(kind: str, draw_values: list) -> pd.Series:
    if kind == "float":
        return pd.Series(np.array([float(v) for v in draw_values], dtype=np.float64))
    if kind == "int":
        return pd.Series(np.array([int(abs(v)) % 7 if np.isfinite(v) else 3 for v in draw_values], dtype=np.int64))
    return pd.Series(np.array([bool(np.isfinite(v) and v > 0) for v in draw_values], dtype=bool))


def _text_reference(column: pd.Series) -> list:
    """Every cell's text, one by one (the object-dtype column takes the cell-by-cell path)."""
    return [None if t is None else str(t) for t in cell_texts(column.astype(object))]


@settings(max_examples=25, deadline=None)
@given(kind=KINDS, values=st.lists(FLOATS, max_size=25))
def test_cell_texts_of_numbers_are_the_texts_of_every_cell(kind: str, values: list) -> None:
    column = _column(kind, values)
    got = cell_texts(column)
    assert got.dtype == object and got.tolist() == _text_reference(column)


def test_cell_texts_keep_negative_zero_apart_and_narrow_floats_as_written() -> None:
    """Bits, not values: 0.0 and -0.0 are two texts; a float32 column (not numbered by bits) reads 2.1."""
    assert cell_texts(pd.Series([0.0, -0.0, np.nan, 0.0])).tolist() == ["0.0", "-0.0", None, "0.0"]
    assert cell_texts(pd.Series(np.array([2.1, 1.5], dtype=np.float32))).tolist() == ["2.1", "1.5"]


@settings(max_examples=25, deadline=None)
@given(kind=KINDS, values=st.lists(FLOATS, min_size=1, max_size=25), seed=st.integers(0, 2**16),
       edit=st.sampled_from(["none", "value", "missing", "sign"]))
def test_permutation_by_bits_gives_the_text_verdict(kind: str, values: list, seed: int, edit: str) -> None:
    """A shuffled column passes, an edited one fails with the same count of unmatched texts either way."""
    original = _column(kind, values)
    shuffled = original.to_numpy().copy()
    np.random.default_rng(seed).shuffle(shuffled)
    if edit == "value":
        shuffled[0] = shuffled[0] + 1 if kind != "bool" else not shuffled[0]
    elif edit == "missing" and kind == "float":
        shuffled[0] = np.nan
    elif edit == "sign" and kind == "float":
        shuffled[0] = -shuffled[0]
    published = pd.Series(shuffled)
    fast = permutation_results(pd.DataFrame({"c": original}), pd.DataFrame({"c": published}), ["c"], "m")[0]
    slow = permutation_results(pd.DataFrame({"c": original.astype(object)}),
                               pd.DataFrame({"c": published.astype(object)}), ["c"], "m")[0]
    assert (fast.passed, fast.achieved) == (slow.passed, slow.achieved)
    o, q = _text_reference(original), _text_reference(published)
    diff = Counter(t for t in o if t is not None)
    diff.subtract(Counter(t for t in q if t is not None))
    assert fast.achieved == sum(abs(v) for v in diff.values())
    if edit == "none":
        assert fast.passed


def test_an_edited_permutation_fails_and_a_shuffled_one_passes() -> None:
    original = pd.DataFrame({"c": [1.0, 2.0, 2.0, np.nan, -0.0]})
    shuffled = pd.DataFrame({"c": [2.0, -0.0, 1.0, np.nan, 2.0]})
    assert permutation_results(original, shuffled, ["c"], "m")[0].passed
    signed = pd.DataFrame({"c": [2.0, 0.0, 1.0, np.nan, 2.0]})  # -0.0 became 0.0: another text
    bad = permutation_results(original, signed, ["c"], "m")[0]
    assert not bad.passed and bad.achieved == 2


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(3, 40), missing=st.booleans())
def test_regressions_on_matrices_are_the_frame_figures(seed: int, n: int, missing: bool) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    if missing:
        x[rng.random((n, 3)) < 0.1] = np.nan
    xm = x + rng.normal(scale=0.3, size=x.shape)
    names = ["a", "b", "c"]
    regressions = [("a", ["b", "c"]), ("c", ["a"])]
    frames = pd.DataFrame(x, columns=names), pd.DataFrame(xm, columns=names)
    assert regression_comparison_arrays(x, xm, names, regressions) == regression_comparison(*frames, regressions)


def test_column_kinds_trust_a_number_dtype_and_still_read_objects() -> None:
    frame = pd.DataFrame({"i": [1, 2, 3], "f": [1.5, np.nan, 2.0], "b": [True, False, True],
                          "s": ["1", "2", "x"], "n": ["1", "2", None]})
    schema = Schema.of(quasi=[], insensitive=list(frame.columns))
    table = Table(frame, schema)
    numeric, categorical = column_kinds(table, frame)
    assert numeric == ["i", "f", "b", "n"] and categorical == ["s"]
    expected = [c for c in frame.columns
                if pd.to_numeric(frame[c], errors="coerce").notna().sum() == frame[c].notna().sum()]
    assert numeric == expected


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(1, 40))
def test_household_codes_rank_the_texts_as_factorizing_every_cell(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.integers(0, 12, n).astype(float), "b": rng.choice(["x", "10", "9", "y"], n),
                          "c": rng.integers(0, 3, n)})
    frame.loc[rng.random(n) < 0.25, "a"] = np.nan
    frame.loc[rng.random(n) < 0.25, "b"] = None
    want = np.column_stack([pd.factorize(frame[c].astype(str).where(frame[c].notna(), "\0"), sort=True)[0]
                            for c in frame.columns])
    assert household_codes(frame, list(frame.columns)).tolist() == want.tolist()


def test_float32_values_are_numbered_apart_as_their_texts() -> None:
    """The bad case: 1.5 and 2.1 as float32 were one code (two float32 read as one int64); the control: float64."""
    codes, texts = text_codes(pd.Series(np.array([1.5, 2.1, np.nan, 2.1], dtype=np.float32)))
    assert codes.tolist() == [0, 1, -1, 1] and texts == ["1.5", "2.1"]
    codes, texts = text_codes(pd.Series([1.5, 2.1, np.nan, 2.1]))
    assert codes.tolist() == [0, 1, -1, 1] and texts == ["1.5", "2.1"]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), bounds=st.lists(st.integers(1, 2**32) | st.integers(1, 300), max_size=40),
       half=st.booleans())
def test_bounded_draws_are_numpys_values_and_leave_its_state(seed: int, bounds: list, half: bool) -> None:
    """Bounds up to 2³² (where Lemire's method rejects words), a high half kept by a 32-bit draw before or not:
    the same values as ``integers`` and the bit generator's state as numpy would leave it."""
    from anonkit.algorithms.perturb._bounded_draws import bounded_draws

    numpy_rng, ours = np.random.default_rng(seed), np.random.default_rng(seed)
    if half:
        numpy_rng.random(dtype=np.float32)
        ours.random(dtype=np.float32)
    want = [int(numpy_rng.integers(n)) for n in bounds]
    draw, close = bounded_draws(ours, len(bounds) // 2)
    got = [draw(n) for n in bounds]
    close()
    assert got == want
    assert ours.bit_generator.state == numpy_rng.bit_generator.state
    assert ours.integers(2**62) == numpy_rng.integers(2**62)


def test_bounded_draws_fall_back_on_integers_for_another_generator() -> None:
    from anonkit.algorithms.perturb._bounded_draws import bounded_draws

    a, b = (np.random.Generator(np.random.MT19937(4)) for _ in range(2))
    draw, close = bounded_draws(a, 4)
    got = [draw(n) for n in (5, 1, 2**31, 7)]
    close()
    assert got == [int(b.integers(n)) for n in (5, 1, 2**31, 7)] and a.integers(99) == b.integers(99)


# --- microaggregation's compiled MDAV, the published classes without a sub-frame, rank swapping's loop choice ---

_VALUES = st.sampled_from([0.0, 1.0, -1.0, 2.5, 1e-300, 3.0, 0.1, 7.0, -2.0, 1e8])


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 3), st.integers(1, 5), st.data())
def test_compiled_mdav_equals_mdav_groups(p, k, data):
    """The compiled MDAV (exact centroid as an expansion of partial sums, ties to the lowest index) forms
    :func:`mdav_groups`' groups round for round, ties and duplicates included (a few distinct values)."""
    from anonkit.algorithms.cluster.mdav import mdav_groups
    from anonkit.algorithms.perturb._micro_kernels import mdav_compiled
    from anonkit.algorithms.perturb._micro_methods import _Numeric, zscores

    m = data.draw(st.integers(0, 60))
    x = np.array(data.draw(st.lists(st.lists(_VALUES, min_size=p, max_size=p), min_size=m, max_size=m)),
                 dtype=np.float64).reshape(m, p)
    z = zscores(x) if m else x
    assert np.array_equal(mdav_compiled(z.T, k), mdav_groups(_Numeric(z), k))


def test_compiled_mdav_exact_centroid_not_naive_sum(monkeypatch):
    """The centroid is the correctly rounded sum: on values whose running sum rounds away (±1e16 beside small
    numbers) the compiled groups are the reference's, and a reference with a naive running-sum mean forms other
    groups (the control that this input tells the two apart)."""
    import anonkit.algorithms.cluster.mdav as mdav_module
    from anonkit.algorithms.perturb._micro_kernels import mdav_compiled
    from anonkit.algorithms.perturb._micro_methods import _Numeric

    z = np.array([[-1e16, -1e16, 2.0, 0.0, 1.0, 5.0, 1e16, 1e16 + 2]]).T.copy()
    fast = mdav_compiled(z.T, 2)
    assert np.array_equal(fast, mdav_module.mdav_groups(_Numeric(z), 2))

    def naive_mean(values: np.ndarray) -> float:
        total = 0.0
        for v in values.tolist():
            total += v
        return total / len(values)

    monkeypatch.setattr(mdav_module, "exact_mean", naive_mean)
    assert not np.array_equal(fast, mdav_module.mdav_groups(_Numeric(z), 2))


def test_micro_mdav_paths_agree_at_the_threshold():
    """``mdav`` below and from ``COMPILED_FROM`` records: the same renumbered groups either way."""
    from anonkit.algorithms.perturb import _micro_methods as mm

    x = np.random.default_rng(3).lognormal(size=(mm.COMPILED_FROM, 2)).round(1)
    fast = mm.mdav(x, 3, 0)
    slow = mm.mdav_groups(mm._Numeric(mm.zscores(x)), 3)
    assert np.array_equal(fast, np.unique(slow, return_inverse=True)[1].reshape(-1))


_INTS = st.sampled_from([1, 2, 10, -3, 9, 0, 11, 10**12, -(10**12)])


def _reference_groups(keys: pd.DataFrame) -> np.ndarray:
    """The classes the old way: every cell turned into text (missing after every text), rows sorted and numbered."""
    texts = [[(1, "") if pd.isna(v) else (0, str(v)) for v in keys[c]] for c in keys.columns]
    tuples = list(zip(*texts, strict=True))
    order = {t: i for i, t in enumerate(sorted(set(tuples)))}
    return np.array([order[t] for t in tuples], dtype=np.int64)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "B", None]), _INTS, st.sampled_from([3, 20, 100, 7])),
                min_size=1, max_size=30))
def test_text_key_groups_are_the_sorted_texts(rows):
    """The published classes (integer columns ranked through a table over a dense span, or by hashing a wide one;
    text columns through ``text_codes``) are the sorted combinations of the cells' texts, from the columns or the
    sub-frame alike."""
    from anonkit.algorithms.perturb._release import _text_key_groups

    keys = pd.DataFrame(rows, columns=["s", "n", "d"])
    want = _reference_groups(keys)
    assert np.array_equal(_text_key_groups([keys["s"], keys["n"], keys["d"]]), want)
    assert np.array_equal(_text_key_groups(keys[["n", "d"]]), _reference_groups(keys[["n", "d"]]))


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 400), st.integers(0, 40), st.integers(0, 2**32))
def test_rank_swap_loop_choice_does_not_change_partners(m, window, seed):
    """With numba loaded, rank swapping takes the compiled loop from 100 ranks: the same partners and the same
    generator state after as the list loop."""
    import numba  # noqa: F401 - loaded, so the default choice is the compiled loop from 100 ranks

    from anonkit.algorithms.perturb.rank_swap import swap_ranks

    keys = np.random.default_rng(seed).integers(0, 50, m).astype(float)
    rows = np.arange(m)
    r1, r2 = np.random.default_rng(seed), np.random.default_rng(seed)
    assert np.array_equal(swap_ranks(keys, rows, window, r1), swap_ranks(keys, rows, window, r2, compiled=False))
    assert r1.integers(1 << 30) == r2.integers(1 << 30)


# --- this session's fast paths (issue 28, item 8): each equals the slow reference it replaced ---------------

_TEXTS = st.text(alphabet=st.sampled_from(["a", "b", "B", "1", "9", "0", ".", "-", "é", "\x00", "\U0001f600", " "]),
                 max_size=40)


@settings(max_examples=25, deadline=None)
@given(st.lists(_TEXTS, unique=True, max_size=30))
def test_text_order_is_pythons_sort(texts: list) -> None:
    """numpy's fixed-width sort where it agrees with Python's (short texts, no NUL), the objects' sort otherwise:
    always the permutation ``sorted`` gives."""
    from anonkit.algorithms.perturb._release import text_order

    want = sorted(range(len(texts)), key=texts.__getitem__)
    assert text_order(texts).tolist() == want


def test_text_order_falls_back_where_numpy_would_tie_or_widen() -> None:
    """A NUL at the end pads like numpy's fixed width ("a" and "a\\x00" would tie, "a\\x00" first by position);
    a text over the fixed width is sorted as an object; numbers' texts sort as text ("10" before "9")."""
    from anonkit.algorithms.perturb._release import _FIXED_WIDTH_CHARS, text_order

    assert text_order(["a\x00", "a"]).tolist() == [1, 0]
    long = ["b" * (_FIXED_WIDTH_CHARS + 5), "a" * (_FIXED_WIDTH_CHARS + 9), "ab"]
    assert text_order(long).tolist() == [1, 2, 0]
    assert text_order(["9", "10", "-1", "1e+16", "0.5"]).tolist() == [2, 4, 1, 3, 0]
    assert text_order([]).tolist() == []


_FLOAT_KEYS = st.sampled_from([0.0, -0.0, 1.0, 10.0, 9.0, 0.1, -2.5, 1e16, 1e-05, np.inf, -np.inf, np.nan, 123.456])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(_FLOAT_KEYS, _FLOAT_KEYS), min_size=1, max_size=30), st.booleans())
def test_text_key_groups_of_floats_are_the_sorted_texts(rows: list, narrow: bool) -> None:
    """Float key columns (Python's repr, or float32's own shortest text; −0.0 apart from 0.0; NaN missing, after
    every text) give the classes of sorting every cell's text, whether the combinations are numbered through a
    table over their span or by hashing."""
    import importlib

    from anonkit.algorithms.perturb._release import _text_key_groups

    release = importlib.import_module("anonkit.algorithms.perturb._release")
    keys = pd.DataFrame(rows, columns=["x", "y"])
    if narrow:
        keys["y"] = keys["y"].astype(np.float32)
    want = _reference_groups(keys)
    assert np.array_equal(_text_key_groups([keys["x"], keys["y"]]), want)  # few combinations: through a table
    dense = release._DENSE_SPAN
    try:
        release._DENSE_SPAN = -(10**9)  # every combination hashed (np.unique's numbering): the same classes
        assert np.array_equal(_text_key_groups([keys["x"], keys["y"]]), want)
    finally:
        release._DENSE_SPAN = dense


@settings(max_examples=25, deadline=None)
@given(kind=KINDS, values=st.lists(FLOATS, max_size=25), narrow=st.booleans())
def test_text_codes_of_numbers_number_every_cells_text(kind: str, values: list, narrow: bool) -> None:
    """A number column's codes (numbered on the values, the distinct texts trusted distinct) are the codes of
    factorizing every cell's text, with the same texts."""
    column = _column(kind, values)
    if narrow and kind == "float":
        column = column.astype(np.float32)
    codes, texts = text_codes(column)
    cells = pd.Series([None if pd.isna(v) else str(v) for v in column.to_numpy().tolist()], dtype=object)
    if narrow and kind == "float":
        cells = pd.Series([None if pd.isna(v) else str(v) for v in column.to_numpy()], dtype=object)
    want, want_texts = pd.factorize(cells, use_na_sentinel=True)
    assert codes.tolist() == want.tolist() and texts == list(want_texts)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), m=st.integers(0, 1500),
       window=st.sampled_from([0, 1, 2, 7, 255, 256, 257, 600, 2000]))
def test_the_list_loop_over_a_short_list_pairs_as_the_compiled_loop(seed: int, m: int, window: int) -> None:
    """The list loop keeps only the ranks up to a little past the window (refilled, the visited dropped): the same
    partners and generator state as the compiled loop (a Fenwick tree over every rank), past many refills."""
    from anonkit.algorithms.perturb._swap_kernels import pair_ranks_compiled
    from anonkit.algorithms.perturb.rank_swap import pair_ranks_numpy

    fast, slow = np.random.default_rng(seed), np.random.default_rng(seed)
    assert pair_ranks_numpy(m, window, slow).tolist() == pair_ranks_compiled(m, window, fast).tolist()
    assert fast.integers(2**62) == slow.integers(2**62)


def test_numba_is_loaded_only_where_it_pays() -> None:
    """Few ranks with a narrow window run the list loop (no numba start-up); many ranks, or a wide window, the
    compiled one."""
    from anonkit.algorithms.perturb._swap_kernels import compiled_pays

    assert not compiled_pays(4_580, 229) and not compiled_pays(100_000, 5_000)
    assert compiled_pays(200_000, 10_000) and compiled_pays(1_000_000, 50_000) and compiled_pays(60_000, 60_000)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(1, 300), m=st.integers(1, 5), levels=st.integers(2, 9))
def test_suda2_numbering_groups_through_a_table_as_by_hashing(seed: int, n: int, m: int, levels: int) -> None:
    """SUDA2's prefix search numbers small groups through a table over their span (sorted order) instead of
    hashing (first appearance): the same MSUs, scores and DIS-SUDA scores as hashing every split."""
    import importlib

    s2 = importlib.import_module("anonkit.risk.suda2")  # the module (``anonkit.risk.suda2`` is also its function)
    rng = np.random.default_rng(seed)
    codes = rng.integers(-1, levels, size=(n, m))
    got = s2.suda2(codes)
    old = s2._TABLE_SPAN, s2._TABLE_EXTRA
    try:
        s2._TABLE_SPAN, s2._TABLE_EXTRA = -1, -1  # every split hashed (the reference)
        want = s2.suda2(codes)
    finally:
        s2._TABLE_SPAN, s2._TABLE_EXTRA = old
    assert np.array_equal(got.score, want.score) and np.array_equal(got.dis_score, want.dis_score)
    assert np.array_equal(got.msu_counts, want.msu_counts) and np.array_equal(got.contribution, want.contribution)


def test_suda2_renumber_groups_equal_values_in_either_path() -> None:
    from anonkit.risk.suda2 import _renumber

    key = np.array([7, 3, 7, 0, 3, 9])
    table = _renumber(key, 10)
    assert table.tolist() == [2, 1, 2, 0, 1, 3]  # sorted order through the table
    assert _renumber(key, 10**9).tolist() == [0, 1, 0, 2, 1, 3]  # a wide span hashed: first appearance


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int8])
def test_household_codes_of_integers_are_the_text_codes(dtype: type) -> None:
    """Integer ids are numbered on their values and turned into text by numpy at once: the codes and texts of
    factorizing every id's text (first appearance)."""
    from anonkit._values import factorize_text
    from anonkit.pseudonyms import _codes

    values = np.array([5, 3, 5, 0, 120, 3, 7], dtype=dtype)
    if dtype is np.int64:
        values[1] = -(2**63)
    codes, labels = _codes(pd.Series(values), "household", "household")
    want_codes, want_labels = factorize_text(pd.Series(values))
    assert codes.tolist() == want_codes.tolist()
    assert labels.dtype == object and labels.tolist() == [str(v) for v in want_labels]
