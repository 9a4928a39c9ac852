"""The encoding of new data (issue 30: a frame whose content no memo has seen) on its fast paths, and what
the reuse keeps of it.

* ``anonkit._values.factorize_text`` on an object column whose cells share their objects (pandas' C reader)
  factorizes the cells' addresses and then the few distinct objects' texts. The oracle is the general path,
  forced by a ``SHARED_MIN_CELLS`` above the column's length: the same codes and the very same objects.
* ``anonkit.runner._encoding_reuse.KEEP_AT_SECOND_CALL``: an input of a kept input's shape and other content
  is kept only at its second call.

Every path is shown by the calls it makes, never by timing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonkit import Hierarchy, Schema, _values, anonymize
from anonkit.models import KAnonymity
from anonkit.runner import _encoding_reuse as reuse
from anonkit.table import Table
from support import counted_calls

TEXTS = ["flu", "ulcer", "cancer", "gastritis", "", "flu ", "x\x00y", "é"]


def _new(text: str) -> str:
    """``text`` as a new object (a copy of its characters)."""
    return "".join(list(text))


def _column(n: int, *, shared: bool, seed: int = 0) -> np.ndarray:
    """``n`` cells of :data:`TEXTS`; ``shared``: one object per text as pandas' C reader gives them (and a
    second object of the text ``"flu"``, which must get the code of the first), else a new object per cell."""
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(TEXTS), n)
    if not shared:
        return np.array([_new(TEXTS[i]) for i in picks], dtype=object)
    objects = [_new(t) for t in TEXTS]
    out = np.array([objects[i] for i in picks], dtype=object)
    out[n // 2] = _new("flu")  # another object of a text met before
    return out


def _general(values: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> tuple[np.ndarray, np.ndarray]:
    """The general path's answer (pandas' ``factorize`` over every cell)."""
    with monkeypatch.context() as m:
        m.setattr(_values, "SHARED_MIN_CELLS", 1 << 62)
        return _values.factorize_text(values, compact=True)


def _same(got: tuple[np.ndarray, np.ndarray], want: tuple[np.ndarray, np.ndarray]) -> bool:
    """The same codes (and type) and the very same distinct objects in the same order."""
    return (got[0].dtype == want[0].dtype and np.array_equal(got[0], want[0]) and len(got[1]) == len(want[1])
            and all(a is b for a, b in zip(got[1], want[1], strict=True)))


@pytest.mark.parametrize("n", [1, 50, _values.SHARED_MIN_CELLS + 7])
def test_a_column_of_new_text_objects_is_hashed_cell_by_cell(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    """Every cell a new object: the addresses' sample does not win (the all-distinct case keeps its one pass
    over the cells, no factorization of addresses)."""
    cells = _column(n, shared=False)
    want = _general(cells, monkeypatch)
    real = _values.factorize_text
    again = counted_calls(monkeypatch, _values, "factorize_text")  # (the address path asks it for the distinct objects)
    assert _same(real(cells, compact=True), want)
    assert len(again) == 0


def test_cells_sharing_their_objects_are_factorized_by_address(monkeypatch: pytest.MonkeyPatch) -> None:
    """One object per text (and a second object of one text): the addresses are factorized, the texts of the
    distinct objects alone are hashed, and the codes and texts are the general path's."""
    cells = _column(4 * _values.SHARED_MIN_CELLS, shared=True, seed=1)
    want = _general(cells, monkeypatch)
    sizes: list[int] = []
    real = _values.factorize_text
    monkeypatch.setattr(_values, "factorize_text", lambda v, **k: sizes.append(len(v)) or real(v, **k))
    assert _same(real(cells, compact=True), want)
    assert sizes == [len(TEXTS) + 1]  # the distinct objects, not the cells
    assert _same(real(pd.Series(cells, dtype=object), compact=True), want)


@pytest.mark.parametrize("odd", [None, np.nan, 3, pd.NA, np.str_("flu"), np.str_("a new text"), True])
@pytest.mark.parametrize("shared", [True, False])
def test_a_cell_that_is_no_exact_text_goes_the_general_way(monkeypatch: pytest.MonkeyPatch, odd: object,
                                                            shared: bool) -> None:
    """A missing cell, a number, a boolean or a ``str`` subclass among texts: the same codes and texts as the
    general path's (missing cells and other values to text), whether the cells share their objects or not."""
    cells = _column(2 * _values.SHARED_MIN_CELLS, shared=shared, seed=2)
    cells[len(cells) // 3] = odd
    want = _general(cells, monkeypatch)
    got = _values.factorize_text(cells, compact=True)
    assert np.array_equal(got[0], want[0]) and list(got[1]) == list(want[1])
    assert [type(t) for t in got[1]] == [type(t) for t in want[1]]


def test_the_table_of_a_c_reader_frame_is_the_general_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole :class:`Table` from a frame as pandas' C reader gives it (objects shared per column): the same
    codes, labels and sensitive codes as the general path's."""
    n = 3 * _values.SHARED_MIN_CELLS
    ages = [_new(str(a)) for a in range(20, 30)]
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"age": np.array([ages[i] for i in rng.integers(0, 10, n)], dtype=object),
                          "disease": _column(n, shared=True, seed=5)}).astype(object)
    schema = Schema.of(quasi=["age"], sensitive=["disease"],
                       hierarchies={"age": Hierarchy([[str(a), "*"] for a in range(20, 30)])})
    got = Table(frame, schema)
    with monkeypatch.context() as m:
        m.setattr(_values, "SHARED_MIN_CELLS", 1 << 62)
        want = Table(frame, schema)
    assert np.array_equal(got.codes, want.codes)
    assert np.array_equal(got.sensitive_codes["disease"], want.sensitive_codes["disease"])
    assert list(got.domains["disease"].labels) == list(want.domains["disease"].labels)


# ---------------------------------------------------------------- what the reuse keeps of new data
ZIPS = ["47677", "47602", "47678", "47905"]


def _frame(seed: int, rows: int = 80) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": [str(int(a)) for a in rng.integers(20, 40, rows)],
                         "zip": [ZIPS[i] for i in rng.integers(0, 4, rows)]}).astype(object)


def _schema() -> Schema:
    return Schema.of(quasi=["age", "zip"],
                     hierarchies={"age": Hierarchy([[str(a), f"{a // 10 * 10}s", "*"] for a in range(20, 40)]),
                                  "zip": Hierarchy([[z, z[:3] + "**", "*"] for z in ZIPS])})


def _run(frame: pd.DataFrame, schema: Schema) -> str:
    return anonymize(frame, schema, [KAnonymity(3)], algorithm="flash", max_suppression=0.1).frame.to_csv()


def test_new_data_of_a_kept_shape_is_kept_at_its_second_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kept input, then new data of its shape: nothing held at the new data's first call, kept at its
    second, reused at its third; an input of another shape is kept at once; every release is a fresh one."""
    monkeypatch.setattr(reuse, "KEEP_AT_SECOND_CALL", True)
    reuse.clear()
    schema = _schema()
    first, new, other = _frame(0), _frame(1), _frame(2, rows=90)
    _run(first, schema)
    counts = reuse.COUNTS

    def seen() -> tuple[int, int, int]:
        return counts.kept, counts.deferred, counts.hits

    start = seen()
    fresh = _run(new, schema)
    assert seen() == (start[0], start[1] + 1, start[2])  # the first call on new data: nothing kept
    assert _run(new, schema) == fresh and seen() == (start[0] + 1, start[1] + 1, start[2])
    assert _run(new, schema) == fresh and seen() == (start[0] + 1, start[1] + 1, start[2] + 1)
    third, fourth = _frame(3), _frame(4)  # new data again, twice: neither is the other, both wait
    _run(third, schema)
    _run(fourth, schema)
    assert seen() == (start[0] + 1, start[1] + 3, start[2] + 1)
    _run(third, schema)  # its second call: kept
    assert seen() == (start[0] + 2, start[1] + 3, start[2] + 1)
    _run(other, schema)  # another shape: kept at its first call
    assert seen() == (start[0] + 3, start[1] + 3, start[2] + 1)
    monkeypatch.setattr(reuse, "REUSE_ENCODINGS", False)
    assert _run(new, schema) == fresh


def test_switched_off_every_miss_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reuse, "KEEP_AT_SECOND_CALL", False)
    reuse.clear()
    schema = _schema()
    _run(_frame(0), schema)
    kept, deferred = reuse.COUNTS.kept, reuse.COUNTS.deferred
    _run(_frame(1), schema)
    assert (reuse.COUNTS.kept, reuse.COUNTS.deferred) == (kept + 1, deferred)
