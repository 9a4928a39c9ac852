"""The encoding of new data, round 3 of issue 30 (a warm call on new data): each shortcut against what it stands for.

* :func:`anonkit._values.factorize_text` of a pyarrow text column reads pyarrow's dictionary encoding straight
  (``_arrow_text_codes``): the same codes and texts as the general path on the same cells as objects;
* ``_shared_object_codes`` counts a sample's distinct addresses by a sort: the same decision as ``np.unique``;
* :func:`anonkit._values.labels_look_numeric` stops at the first text that is no number, ``parse_numeric``
  converts an array: the answers and floats of the former formulas;
* :class:`anonkit.table.Table` gathers the distinct tuples with ``np.take``: ``codes[first]``;
* :mod:`anonkit.runner._encoding_reuse` rejects a pyarrow text column by its first cells
  (``_ArrowProof.plausible``) before the schema and the buffers are compared, never a wrong hit.

Deterministic and fast: no timing, paths shown by counting calls.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import anonkit._values as values_mod
from anonkit import Hierarchy, Schema, anonymize
from anonkit._kernels import first_rows, group_columns
from anonkit._values import (
    SHARED_MIN_CELLS,
    SHARED_SAMPLE,
    _shared_object_codes,
    cell_addresses,
    factorize_text,
    labels_look_numeric,
    parse_numeric,
)
from anonkit.errors import InputError
from anonkit.models import KAnonymity
from anonkit.runner import _encoding_reuse as reuse
from anonkit.table import Table

TEXTS = ["b", "a", "", " c ", "a", "dé", "b", "ü x", "", "zz"]


def _general(cells: list[object]) -> tuple[np.ndarray, np.ndarray]:
    """The general path's codes and texts: the same cells as an object array (no pyarrow)."""
    return factorize_text(np.array(cells, dtype=object))


def _same(got: tuple[np.ndarray, np.ndarray], want: tuple[np.ndarray, np.ndarray]) -> None:
    assert got[0].dtype == np.int64 and got[1].dtype == object
    assert np.array_equal(got[0], want[0])
    assert [type(t) for t in got[1]] == [str] * len(got[1]) and got[1].tolist() == want[1].tolist()


# ---------------------------------------------------------------- pyarrow text columns
def _arrow_columns(texts: list[str]) -> list[pd.Series]:
    """The same texts as pandas' default text dtype, string[pyarrow], ArrowDtype string and large_string, a
    two-chunk column and a slice of a longer column."""
    two_chunks = pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array(
        [pa.array(texts[:3], type=pa.large_string()), pa.array(texts[3:], type=pa.large_string())])))
    sliced = pd.Series(["x", *texts, "y"], dtype="string[pyarrow]").iloc[1:-1].reset_index(drop=True)
    return [pd.Series(texts, dtype="str"), pd.Series(texts, dtype="string[pyarrow]"),
            pd.Series(texts, dtype=pd.ArrowDtype(pa.string())),
            pd.Series(texts, dtype=pd.ArrowDtype(pa.large_string())), two_chunks, sliced]


@pytest.mark.parametrize("texts", [TEXTS, [], ["only"], [f"v{i % 37}" for i in range(3000)]])
def test_an_arrow_text_column_gives_the_general_paths_codes_and_texts(texts: list[str],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Catches: another order of codes or texts, int32 codes, texts not ``str``, a chunk or slice misread
    (each column must also take the fast path: counted)."""
    taken = []
    real = values_mod._arrow_text_codes
    monkeypatch.setattr(values_mod, "_arrow_text_codes", lambda a: taken.append(out := real(a)) or out)
    want = _general(texts)
    for column in _arrow_columns(texts):
        _same(factorize_text(column), want)
        _same(factorize_text(column, compact=True), want)
    assert len(taken) == 2 * 6 and all(t is not None for t in taken)  # (every column above is pyarrow text)


def test_an_arrow_text_column_with_missing_cells_takes_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Catches: a missing cell read by the fast path (pyarrow drops it from the dictionary: its code would be
    wrong) instead of the general path, which makes it the text ``""`` at its first appearance."""
    cells = ["a", None, "b", "", None, "a"]
    for column in (pd.Series(cells, dtype="str"), pd.Series(cells, dtype=pd.ArrowDtype(pa.string()))):
        assert values_mod._arrow_text_codes(column.array) is None
        codes, texts = factorize_text(column)
        assert codes.tolist() == [0, 1, 2, 1, 1, 0] and texts.tolist() == ["a", "", "b"]


def test_a_table_of_arrow_text_equals_the_table_of_its_objects() -> None:
    """Catches: any difference the fast path makes to an encoded table (codes, hierarchies, warnings, types)."""
    rng = np.random.default_rng(5)
    n = 2000
    frame = pd.DataFrame({"age": [str(a) for a in rng.integers(20, 40, n)],
                          "zip": [("476 ", "4760", "4790", "")[i] for i in rng.integers(0, 4, n)],
                          "sex": [("f", "m", "F")[i] for i in rng.integers(0, 3, n)],
                          "disease": [("flu", "ulcer")[i] for i in rng.integers(0, 2, n)]})
    schema = Schema.of(quasi=["age", "zip", "sex"], sensitive=["disease"],
                       hierarchies={"age": Hierarchy([[str(a), "*"] for a in range(20, 40)])})
    objects, texts = Table(frame.astype(object), schema), Table(frame.astype("str"), schema)
    assert np.array_equal(objects.codes, texts.codes) and objects.warnings == texts.warnings
    assert objects.schema == texts.schema
    assert [[list(level) for level in h.labels] for h in objects.hierarchies] == [
        [list(level) for level in h.labels] for h in texts.hierarchies]
    assert np.array_equal(objects.sensitive_codes["disease"], texts.sensitive_codes["disease"])


# ---------------------------------------------------------------- shared objects: the sample's decision
@pytest.mark.parametrize("distinct", [SHARED_SAMPLE // 2 - 1, SHARED_SAMPLE // 2, SHARED_SAMPLE // 2 + 1])
def test_the_shared_objects_sample_decides_as_np_unique(distinct: int) -> None:
    """Catches: the sort's count of distinct addresses off by one (at most half of the sample distinct: the
    objects are factorized; one more: ``None``), and any decision but ``np.unique``'s."""
    n = SHARED_MIN_CELLS * 2
    step = n // SHARED_SAMPLE
    objects = [f"t{i}" * 2 for i in range(distinct)]  # distinct objects of distinct texts
    cells = np.empty(n, dtype=object)
    cells[:] = objects[0]
    for k in range(SHARED_SAMPLE):  # the sampled cells cycle through the objects
        cells[k * step] = objects[k % distinct]
    sample = cell_addresses(cells)[::step][:SHARED_SAMPLE]
    shared = 2 * len(np.unique(sample)) <= SHARED_SAMPLE
    got = _shared_object_codes(cells)
    assert (got is not None) == shared
    _same(factorize_text(cells), _general(cells.tolist()))
    if got is not None:
        _same(got, _general(cells.tolist()))


# ---------------------------------------------------------------- numbers
def _looks_numeric_before(labels: np.ndarray) -> bool:
    texts = [str(t).strip() for t in labels if t != ""]
    return bool(texts) and all(values_mod._NUMBER_TEXT.fullmatch(t) and not values_mod._LEADING_ZERO.match(t)
                               for t in texts)


@pytest.mark.parametrize("labels", [[], [""], ["", ""], ["", "1"], ["1", "a"], ["a", "1"], ["01"], [" 1 ", "2.5"],
                                    ["1e5", "-3", "+.5"], ["inf", "1"], [1, 2.5, ""], ["1", "True"], ["", "x", ""]])
def test_labels_look_numeric_answers_as_the_former_formula(labels: list[object]) -> None:
    """Catches: ``True`` for no text at all (empty labels or only ``""``), a text skipped or stopping early."""
    arr = np.array(labels, dtype=object)
    assert labels_look_numeric(arr) == _looks_numeric_before(arr)


@pytest.mark.parametrize("cells", [["1", "2.5", "", "1e3", " 7 ", "-0", "+3"], ["12345678901234567890123", "1"],
                                   ["0.1", "0.10000000000000001", "1.7976931348623157e308"]])
def test_parse_numeric_gives_the_series_conversions_floats(cells: list[str]) -> None:
    """Catches: another parser than pandas' ``to_numeric`` (a last-bit difference, a missing cell not NaN)."""
    column = pd.Series(cells, dtype=object)
    codes, labels = factorize_text(column)
    present = labels != ""
    want = pd.to_numeric(pd.Series(np.where(present, labels, None), dtype=object), errors="coerce")
    want = want.to_numpy(dtype=float)[codes]
    got = parse_numeric(column, "x")
    assert got.dtype == np.float64 and np.array_equal(got.view(np.int64), want.view(np.int64))


@pytest.mark.parametrize(("cells", "bad"), [(["1", "x", "2"], "x"), (["1", "1e400"], "1e400")])
def test_parse_numeric_still_names_the_bad_cell(cells: list[str], bad: str) -> None:
    with pytest.raises(InputError) as err:
        parse_numeric(pd.Series(cells, dtype=object), "x")
    assert err.value.value == bad


# ---------------------------------------------------------------- the table's distinct tuples
def test_the_distinct_tuples_are_the_codes_of_their_first_rows() -> None:
    """Catches: ``np.take`` along another axis or of other rows than ``codes[first]``."""
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"a": rng.integers(0, 5, 500).astype(str).astype(object),
                          "b": rng.integers(0, 7, 500).astype(str).astype(object),
                          "s": rng.integers(0, 3, 500).astype(str).astype(object)})
    table = Table(frame, Schema.of(quasi=["a", "b"], sensitive=["s"]))
    d = table.distinct
    inverse, m = group_columns([table.codes[:, 0], table.codes[:, 1]], [h.n_leaves for h in table.hierarchies])
    want = table.codes[first_rows(inverse, m)]
    assert d.tuples.dtype == want.dtype and d.tuples.flags.c_contiguous and np.array_equal(d.tuples, want)


# ---------------------------------------------------------------- reuse: a pyarrow text column's first cells
def _text_frame(seed: int, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": [str(a) for a in rng.integers(20, 40, n)],
                         "sex": [("f", "m")[i] for i in rng.integers(0, 2, n)],
                         "disease": [("flu", "ulcer", "cold")[i] for i in rng.integers(0, 3, n)],
                         "score": pd.arrays.ArrowExtensionArray(pa.array(  # NaN values (not missing) from row 0
                             np.where(np.arange(n) % 5 == 0, np.nan, rng.random(n))))}).astype(
        {"age": "str", "sex": "str", "disease": "str"})


def _text_schema() -> Schema:
    return Schema.of(quasi=["age", "sex"], sensitive=["disease"], insensitive=["score"],
                     hierarchies={"age": Hierarchy([[str(a), f"{a // 10}x", "*"] for a in range(20, 40)])})


def _release(frame: pd.DataFrame, schema: Schema) -> str:
    return anonymize(frame, schema, [KAnonymity(2)], algorithm="flash", max_suppression=0.1).frame.to_csv()


@pytest.fixture
def counted_facts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every call of ``_arrow_facts`` (the full comparison of a column's buffers) counted."""
    calls: list[int] = []
    real = reuse._arrow_facts
    monkeypatch.setattr(reuse, "_arrow_facts", lambda column: calls.append(1) or real(column))
    monkeypatch.setattr(reuse, "KEEP_AT_SECOND_CALL", False)
    reuse.clear()
    yield calls
    reuse.clear()


def test_the_same_arrow_frame_is_reused(counted_facts: list[int]) -> None:
    """Catches: a plausibility test that rejects the kept frame itself (its first cells, the NaN of a float
    column: pyarrow's ``equals`` holds NaN unequal, so only text columns are filtered)."""
    frame, schema = _text_frame(1), _text_schema()
    first = _release(frame, schema)
    hits = reuse.COUNTS.hits
    assert _release(frame, schema) == first and reuse.COUNTS.hits == hits + 1


def test_new_arrow_data_of_the_same_layout_is_rejected_by_its_first_cells(counted_facts: list[int]) -> None:
    """Catches: a plausibility test that passes new text data (every buffer then compared: ``_arrow_facts``
    called at the lookup), and a wrong hit."""
    schema = _text_schema()
    _release(_text_frame(1), schema)
    kept = reuse._KEPT[0]
    other = _text_frame(2)
    counted_facts.clear()
    assert not kept.plausible(other)
    hits = reuse.COUNTS.hits
    assert reuse.reused_table(other, schema, kept.shape[0][2]) is None and not counted_facts
    assert reuse.COUNTS.hits == hits


def test_arrow_data_equal_in_its_first_cells_alone_is_a_miss(counted_facts: list[int]) -> None:
    """Catches: the first cells taken as the proof (a frame differing after them must be encoded again)."""
    schema = _text_schema()
    frame = _text_frame(1)
    _release(frame, schema)
    kept = reuse._KEPT[0]
    second = frame.copy()
    second.loc[1, "disease"] = "other"  # (its second cell: within the first cells, rejected by them)
    assert not kept.plausible(second)
    other = frame.copy()
    other.loc[len(other) - 1, "disease"] = "other"
    assert kept.plausible(other) and not kept.holds(other)
    assert reuse.reused_table(other, schema, kept.shape[0][2]) is None
    reuse.REUSE_ENCODINGS = False
    try:
        fresh = _release(other, schema)
    finally:
        reuse.REUSE_ENCODINGS = True
    assert _release(other, schema) == fresh
