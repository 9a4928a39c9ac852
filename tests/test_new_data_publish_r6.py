"""Issue 30, session 14 round 6: publishing a release of *new data*, each cheaper path held to the one it replaces.

* ``_verify_rows.taken_column`` makes a pyarrow text sensitive column from its codes (the input's, read from the
  very memory the column reads) instead of Arrow's take of its cells at the published rows: the same array
  (dtype, Arrow type, values, no missing cell), and the verifier reads the codes gathered for it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import anonkit._verify_rows as rows_module
from anonkit import anonymize
from anonkit._arrow_memory import arrow_text
from anonkit._verify_rows import _published, coded_column, published_codes, taken_column
from anonkit.models import DistinctLDiversity, KAnonymity, TCloseness
from support import schema_of_test2


def _made(column: pd.Series, rows: np.ndarray, coded) -> tuple[object, list[int], tuple | None]:
    """The published column ``taken_column`` makes inside a block, the lengths of the cell takes it asked for
    (none: made from the codes) and the codes the verifier then reads for it."""
    takes: list[int] = []

    def take(values: pd.Series, at: np.ndarray) -> object:
        takes.append(len(at))
        return values.array.take(at)

    with published_codes():
        made = taken_column(column, rows, lambda: coded, take)
        kept = _published(arrow_text(made))
        return made, takes, None if kept is None else (kept[0].tolist(), kept[1].tolist())


def _same_array(made: object, expected: object) -> None:
    """The same pandas array: class, dtype, Arrow type, values, no missing cell."""
    assert type(made) is type(expected) and made.dtype == expected.dtype
    got, want = arrow_text(made), arrow_text(expected)
    assert got.type == want.type and got.null_count == want.null_count == 0
    assert got.equals(want)


def _cells_codes(column: object) -> tuple[list, list]:
    codes, texts = rows_module._arrow_codes(arrow_text(column), pc)
    return codes.tolist(), texts.tolist()


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "ab", "", "é", "*", "日本"]), min_size=1, max_size=14), st.data())
def test_a_column_made_from_its_codes_is_the_take_of_its_cells(texts, data):
    """Any texts, any rows (repeated, any order, negative ones counted from the end): the column made from the codes
    is Arrow's take of the cells, and its kept codes are Arrow's encoding of it. Catches: the codes not gathered
    at ``rows`` (or gathered at other rows), the texts numbered in another order than the codes, the codes kept
    for the verifier not the gathered ones."""
    column = pd.Series(texts, dtype="str", name="s")
    n = len(texts)
    rows = np.array(data.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=20)), dtype=np.int64)
    made, takes, kept = _made(column, rows, coded_column(column))
    assert takes == []  # (made from the codes)
    _same_array(made, column.array.take(rows))
    assert kept == _cells_codes(made)


@pytest.mark.parametrize("dtype", ["str", "string[pyarrow]"])
def test_the_made_column_keeps_the_dtype_and_arrow_type(dtype):
    """Catches: the texts built in another Arrow type than the column's (``string`` for ``large_string``), or the
    array wrapped in another dtype."""
    column = pd.Series(["x", "yy", "x", "zzz", "yy"] * 3, dtype=dtype, name="s")
    rows = np.array([4, 0, 2, 14, 7, 1], dtype=np.int32)
    made, takes, _ = _made(column, rows, coded_column(column))
    assert takes == []
    _same_array(made, column.array.take(rows))
    # in the frame the publisher builds, the column is the one made (no conversion by pandas)
    assert pd.DataFrame({"s": made}, copy=False)["s"].dtype == column.dtype


def test_a_column_over_other_memory_or_with_a_missing_cell_is_taken_from_its_cells():
    """Catches: dropping the memory check (codes of another column of as many rows give another column's texts),
    or making a column with a missing cell from codes that hold none."""
    column = pd.Series(["x", "y", "z", "x"], dtype="str", name="s")
    other = pd.Series(["y", "y", "x", "z"], dtype="str", name="s")
    rows = np.array([3, 1, 0, 2])
    made, takes, _ = _made(column, rows, coded_column(other))
    assert takes == [4]
    _same_array(made, column.array.take(rows))
    missing = pd.Series(["x", None, "z", "x"], dtype="str", name="s")
    made, takes, kept = _made(missing, rows, coded_column(missing))
    assert takes == [4] and kept is None
    assert made.tolist() == missing.array.take(rows).tolist()


def test_an_index_outside_the_column_raises_as_the_take_does():
    """Catches: a gather that reads past the codes (no bounds check) instead of refusing the index."""
    column = pd.Series(["x", "y", "z"], dtype="str", name="s")
    with pytest.raises(IndexError), published_codes():
        taken_column(column, np.array([0, 3]), lambda: coded_column(column))


def test_a_call_on_new_str_data_publishes_the_sensitive_column_from_its_codes(test2_frame, test2_hierarchies,
                                                                               monkeypatch):
    """A call on pyarrow text columns: the sensitive column is made from its codes (no take of the input's cells),
    and the release, its verification and a verification from the cells agree. Catches: the runner's publishing
    not reaching the path (the sensitive column taken from its cells)."""
    schema = schema_of_test2(test2_hierarchies)
    frame = test2_frame.astype(object).astype("str")
    models = [KAnonymity(3), DistinctLDiversity("Disease", 2), TCloseness("Disease", 0.6, "equal")]
    made: list[int] = []
    real = rows_module._taken_arrow

    def counted(*args: object) -> object:
        out = real(*args)
        made.append(out is not None)
        return out

    monkeypatch.setattr(rows_module, "_taken_arrow", counted)
    result = anonymize(frame, schema, models, algorithm="flash")
    assert made and all(made)
    monkeypatch.undo()
    plain = anonymize(frame.astype(object), schema, models, algorithm="flash")
    assert result.frame.astype(object).equals(plain.frame.astype(object))
    from anonkit.verifier import verify

    again = verify(result.frame, schema, models, reference=frame, suppressed="drop")
    assert again.ok and again.summary() == result.verification.summary()
