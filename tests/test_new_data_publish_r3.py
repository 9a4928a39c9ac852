"""Issue 30, session 12 round 3: publishing a release of *new data* (nothing kept per table or by content hits),
each cheaper path held to the one it replaces.

* ``_verify_entries.label_column``: a text column of exact ``str`` labels made as pyarrow's take of the labels'
  texts wrapped in pandas' own text dtype (asked once per release), the column ``pd.Series(labels).array.take``
  gives; another column of the same release with the same texts at the same entries handed the first one's Arrow
  memory and codes; labels of another kind, or pandas' text not held by pyarrow, made by pandas as before.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import anonkit._verify_rows as rows_module
import anonkit.runner.anonymize as runner
from anonkit._verify_entries import label_column
from anonkit._verify_rows import _arrow_text, _memory_key, published_codes, read_codes, text_column
from anonkit.algorithms.lattice.fixed import fixed
from anonkit.models import KAnonymity
from anonkit.release import making_columns
from anonkit.table import Table
from anonkit.verifier import verify
from support import schema_of_test2


@pytest.fixture(scope="module")
def schema(test2_hierarchies):
    return schema_of_test2(test2_hierarchies)


TEXTS = ["a", "b", "ab", "", "é", "*", "[20-30["]


def _reference(labels: np.ndarray, index: np.ndarray):
    """The column the publisher made before: pandas' inference and take."""
    return pd.Series(labels).array.take(index)


def _cells_codes(column) -> tuple[list, list]:
    """The codes and texts the verifier reads from ``column``'s cells (nothing kept)."""
    codes, texts = rows_module._arrow_codes(_arrow_text(column), pc)
    return codes.tolist(), texts.tolist()


def _same_column(got, want) -> None:
    assert type(got) is type(want)
    assert got.dtype == want.dtype and str(got.dtype) == str(want.dtype)
    assert got.tolist() == want.tolist()
    assert pd.Series(got).equals(pd.Series(want))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(TEXTS), min_size=1, max_size=6), st.data())
def test_label_column_is_pandas_column_with_the_cells_codes(labels, data):
    """Any exact-str labels, an index with negative entries: the values and dtype of pandas' take, and codes that
    are the cells' (catches: a wrong dtype, the take at the raw index, codes from another column)."""
    m = len(labels)
    lab = np.array(labels, dtype=object)
    index = np.array(data.draw(st.lists(st.integers(-m, m - 1), min_size=0, max_size=30)), dtype=np.int64)
    column, codes, out = label_column({}, lab, index)
    _same_column(column, _reference(lab, index))
    if len(index):
        assert (codes.rows().tolist(), out.tolist()) == _cells_codes(column)


def test_same_texts_at_the_same_entries_share_memory_and_codes():
    """Three columns of one release: two with equal texts (other list objects) share the first one's Arrow memory
    and codes, the third (other texts, same entries) its own; each is what pandas gives (catches: no sharing, a key
    without the texts, a shared column's codes taken from another)."""
    index = np.array([2, 0, 1, 1, 0, 2, -1], dtype=np.int64)
    a = np.array(["*", "*", "*"], dtype=object)
    b = np.array(["*", "*", "*"], dtype=object)
    c = np.array(["*", "x", "*"], dtype=object)
    store: dict = {}
    made = [label_column(store, lab, index) for lab in (a, b, c)]
    for (column, codes, out), lab in zip(made, (a, b, c), strict=True):
        _same_column(column, _reference(lab, index))
        assert (codes.rows().tolist(), out.tolist()) == _cells_codes(column)
    keys = [_memory_key(_arrow_text(column)) for column, _, _ in made]
    assert keys[0] == keys[1] and keys[2] != keys[0]
    assert made[1][1] is made[0][1] and made[2][1] is not made[0][1]
    assert made[1][0] is not made[0][0]  # a new pandas array: a write into one leaves the other
    made[1][0][0] = "changed"
    assert made[0][0][0] == "*"


def test_another_index_is_not_shared():
    """The same texts at another index object (other entries) are taken again (catches: a key without the
    entries)."""
    lab = np.array(["p", "q"], dtype=object)
    store: dict = {}
    first = label_column(store, lab, np.array([0, 1, 1], dtype=np.int64))[0]
    second = label_column(store, lab, np.array([1, 1, 0], dtype=np.int64))[0]
    assert first.tolist() == ["p", "q", "q"] and second.tolist() == ["q", "q", "p"]


class _Text(str):
    """A str subclass: not exactly str, so pandas makes its column."""


def test_labels_not_exact_str_are_pandas_column(monkeypatch):
    """A subclass among the labels: pandas' own column, no dtype asked for (catches: the fast path taken for
    labels it does not check)."""
    asked = []
    monkeypatch.setattr("anonkit._verify_entries._text_dtype", lambda store: asked.append(1) or None)
    lab = np.array([_Text("u"), "v"], dtype=object)
    index = np.array([1, 0, -1], dtype=np.int64)
    column, codes, out = label_column({}, lab, index)
    _same_column(column, _reference(lab, index))
    assert asked == []
    assert (codes.rows().tolist(), out.tolist()) == _cells_codes(column)


def test_python_string_storage_is_pandas_column():
    """pandas' text held by Python: the column pandas makes, and no codes (catches: the storage check dropped)."""
    lab = np.array(["u", "v"], dtype=object)
    index = np.array([1, 0, 1], dtype=np.int64)
    with pd.option_context("mode.string_storage", "python"):
        column, codes, out = label_column({}, lab, index)
        want = _reference(lab, index)
    _same_column(column, want)
    assert codes is None and out is None


def test_text_dtype_asked_once_per_release(monkeypatch):
    """The dtype is asked of pandas once per store (catches: asked per column, or kept across stores)."""
    import anonkit._verify_entries as entries

    calls = []
    real = pd.Series

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(entries.pd, "Series", counting)
    index = np.array([0, 1], dtype=np.int64)
    for _ in range(2):
        store: dict = {}
        for lab in (["a", "b"], ["c", "d"], ["a", "b"]):
            label_column(store, np.array(lab, dtype=object), index)
    assert len(calls) == 2


def test_text_column_in_a_block_keeps_shared_codes_for_the_verifier():
    """Inside published_codes, two equal columns made by text_column are read by the verifier with the cells'
    codes (catches: the shared column's codes not stored for its memory)."""
    index = np.array([1, 0, 0, 1, -1], dtype=np.int64)
    with published_codes():
        columns = [text_column(np.array(lab, dtype=object), index, None, name)
                   for lab, name in ((["*", "*"], "a"), (["*", "*"], "b"), (["m", "n"], "c"))]
        for column in columns:
            assert rows_module._published(_arrow_text(column)) is not None  # (kept for the verifier)
            codes, texts = read_codes(pd.Series(column))
            assert (codes.tolist(), texts.tolist()) == _cells_codes(column)


@pytest.mark.parametrize("levels", [{"ZIPCode": 1, "Age": 2}, {"ZIPCode": 5, "Age": 2}])
def test_the_runner_publishes_what_pandas_would(test2_frame, schema, levels):
    """The runner's publishing of new data: every quasi-identifier column pandas' take of its labels (dtype and
    values), and the release verified (catches: any of the above
    reaching the runner wrong)."""
    table = Table(test2_frame.astype(object).map(lambda v: "".join(list(str(v)))), schema)
    release = fixed(table, [KAnonymity(3)], levels=levels)
    plain = release.to_frame()  # (outside the runner's makers: pandas' own inference and take)
    with published_codes(), making_columns(runner._MAKERS):
        frame = release.to_frame()
        assert verify(frame, schema, [KAnonymity(3)], suppressed="drop").ok
    assert list(frame.columns) == list(plain.columns)
    for c in frame.columns:
        assert str(frame[c].dtype) == str(plain[c].dtype)
        assert frame[c].tolist() == plain[c].tolist()
    pd.testing.assert_frame_equal(frame, plain)
