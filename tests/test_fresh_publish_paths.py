"""Issue 30, session 11: publishing a release of a *new* table (a new frame of the same content: every memo kept
per table misses), each cheaper path held to the one it replaces.

* ``release.take_rows``: an object column's published cells written to their places in input order, the same
  array as ``column.array.take(rows)``; rows that repeat one are taken as before;
* ``release._every_row``: the shuffle of every row kept by the number of rows, the seed and the index type (not
  per table), the same rows as shuffling afresh.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import anonkit._verify_rows as rows_module
import anonkit.release as release_module
import anonkit.runner.anonymize as runner
from anonkit._verify_rows import published_codes
from anonkit.algorithms.lattice.fixed import fixed
from anonkit.models import DistinctLDiversity, KAnonymity
from anonkit.release import making_columns, take_rows
from anonkit.table import Table
from anonkit.verifier import verify
from support import schema_of_test2

MODELS = [KAnonymity(3), DistinctLDiversity("Disease", 2)]


@pytest.fixture(autouse=True)
def _no_kept_shuffle() -> Iterator[None]:
    """Each test starts with no kept shuffle (what another test published)."""
    release_module.clear_shuffles()
    yield
    release_module.clear_shuffles()


@pytest.fixture(scope="module")
def schema(test2_hierarchies):
    return schema_of_test2(test2_hierarchies)


@contextmanager
def _publishing() -> Iterator[None]:
    """The runner's block: the verifier's column makers, keeping what they make."""
    with published_codes(), making_columns(runner._MAKERS):
        yield


def _fresh(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as a user reading it again gives it: every cell a new ``str`` object."""
    return pd.DataFrame({c: np.array(["".join(list(v)) for v in frame[c]], dtype=object) for c in frame.columns})


# ------------------------------------------------------------------ take_rows
@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "", "ab", "é", "*"]), min_size=1, max_size=12), st.data())
def test_take_rows_is_the_take(cells, data):
    """A permutation, a subset (the rows a drop publishes), rows that repeat one: ``column.array.take(rows)``,
    cell for cell the same objects."""
    column = pd.Series(np.array([str(c) + "" for c in cells], dtype=object), dtype=object)
    n = len(cells)
    kind = data.draw(st.sampled_from(["permutation", "subset", "any"]))
    if kind == "permutation":
        rows = np.array(data.draw(st.permutations(range(n))), dtype=np.int32)
    elif kind == "subset":
        rows = np.array(data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n)), dtype=np.int32)
    else:
        rows = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=2 * n)), dtype=np.int64)
    got, want = take_rows(column, rows), column.array.take(rows)
    assert type(got) is type(want) and got.dtype == want.dtype
    assert [id(v) for v in got] == [id(v) for v in want]


def test_take_rows_scatters_distinct_rows_only(monkeypatch):
    """The published rows (none repeated) are written to their places, never taken; rows that repeat one, a
    column of more than SCATTERED_UP_TO rows, and a column not of numpy objects, are taken."""
    taken = []
    real = pd.arrays.NumpyExtensionArray.take
    monkeypatch.setattr(pd.arrays.NumpyExtensionArray, "take",
                        lambda self, *a, **k: taken.append(1) or real(self, *a, **k))
    column = pd.Series(np.array(["x", "y", "z", "w"], dtype=object), dtype=object)
    assert list(take_rows(column, np.array([2, 0, 3, 1]))) == ["z", "x", "w", "y"]
    assert list(take_rows(column, np.array([3, 1]))) == ["w", "y"]
    assert taken == []
    assert list(take_rows(column, np.array([1, 1, 0, 2]))) == ["y", "y", "x", "z"]  # (a repeat: as many rows)
    assert taken == [1]
    monkeypatch.setattr(release_module, "SCATTERED_UP_TO", len(column) - 1)  # (a larger column: taken)
    assert list(take_rows(column, np.array([2, 0, 3, 1]))) == ["z", "x", "w", "y"]
    assert taken == [1, 1]
    assert list(take_rows(pd.Series([3, 1, 2]), np.array([2, 0, 1]))) == [2, 3, 1]
    texts = pd.Series(["a", "b"], dtype="str")
    assert list(take_rows(texts, np.array([1, 0]))) == ["b", "a"]


def test_the_runner_publishes_taken_cells_with_their_codes(test2_frame, schema):
    """A sensitive column published through take_rows keeps the input's codes for the verifier (the very cells),
    and a cell edited after publishing is read from its cells: the broken release is caught."""
    table = Table(test2_frame.astype(object), schema)
    release = fixed(table, [KAnonymity(3)], levels={"ZIPCode": 1, "Age": 2})
    with _publishing():
        frame = release.to_frame()
        want = pd.Series(test2_frame["Disease"].astype(object).array.take(release.published_rows()), dtype=object)
        assert frame["Disease"].tolist() == want.tolist()
        assert rows_module._taken(frame["Disease"]) is not None
        assert verify(frame, schema, [KAnonymity(3), DistinctLDiversity("Disease", 3)], suppressed="drop").ok
        broken = frame.copy()
        broken.loc[broken["Disease"] != "flu", "Disease"] = "flu"  # every class now one disease
        assert rows_module._taken(broken["Disease"]) is None
        assert not verify(broken, schema, [KAnonymity(3), DistinctLDiversity("Disease", 3)], suppressed="drop").ok


# ------------------------------------------------------------------ the shuffle of every row, by value
def test_every_rows_shuffle_is_kept_by_rows_seed_and_type(test2_frame, schema, monkeypatch):
    """Two tables of as many rows share one shuffle per seed and index type; another seed, type or number of
    rows is shuffled afresh (the same rows as a new generator gives); at most SHUFFLES_KEPT are kept."""
    made = []
    real = np.random.default_rng
    monkeypatch.setattr(release_module.np.random, "default_rng", lambda seed: made.append(seed) or real(seed))
    one, two = Table(test2_frame, schema), Table(_fresh(test2_frame), schema)
    small = Table(test2_frame.iloc[:5], schema)

    def fresh(n, seed, dtype):
        rows = np.arange(n, dtype=dtype)
        real(seed).shuffle(rows)
        return rows.tolist()

    first = release_module._every_row(one, 7, np.int32)
    assert release_module._every_row(two, 7, np.int32) is first and made == [7]
    for table, seed, dtype in [(one, 8, np.int32), (one, 7, np.int64), (small, 7, np.int32)]:
        got = release_module._every_row(table, seed, dtype)
        assert got.dtype == dtype and got.tolist() == fresh(table.n, seed, dtype) and not got.flags.writeable
    assert len(made) == 4
    for seed in range(10, 10 + release_module.SHUFFLES_KEPT):
        release_module._every_row(one, seed, np.int32)
    assert len(release_module._SHUFFLES) == release_module.SHUFFLES_KEPT
    assert (one.n, 7, np.dtype(np.int32).str) not in release_module._SHUFFLES
