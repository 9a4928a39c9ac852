"""Issue 30 item 3: the cheaper stages of a warm ``anonymize()`` outside the search, each held to the path
it replaces.

* the publisher's text columns keep their codes for the verification of the same call
  (``_verify_rows.text_column`` inside ``published_codes``): the codes Arrow's dictionary encoding gives
  the column, read instead of encoding it; a column changed, sliced or made otherwise is read from its
  cells, so a broken release is still caught;
* the verifier's reference (the input's sensitive column) is read once per encoded table
  (``runner.anonymize._reference``, a ``CodedColumn``), the same codes as reading it each time;
* a table's last published text columns are held from one call to the next (``text_column``'s ``held``,
  ``published_memo``): handed out again, as a new array over the same memory, only for the same labels
  and index values.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import anonkit._verify_rows as rows_module
import anonkit.release as release_module
import anonkit.runner.anonymize as runner
from anonkit import anonymize
from anonkit._values import factorize_text
from anonkit._verify_rows import (
    CodedColumn,
    _arrow_codes,
    _arrow_text,
    _published,
    published_codes,
    read_codes,
    same_release_codes,
    text_codes,
)
from anonkit._verify_rows import text_column as make_column
from anonkit.algorithms.lattice.fixed import fixed
from anonkit.models import DistinctLDiversity, KAnonymity, TCloseness
from anonkit.release import making_columns
from anonkit.runner import _encoding_reuse
from anonkit.table import Table
from anonkit.verifier import verify
from support import schema_of_test2

QIS = ["ZIPCode", "Age"]
MODELS = [KAnonymity(3), DistinctLDiversity("Disease", 3), TCloseness("Salary", 1 / 6, "ordered")]


@pytest.fixture(scope="module")
def schema(test2_hierarchies):
    return schema_of_test2(test2_hierarchies)


@contextmanager
def _publishing():
    """The runner's block: the verifier's column makers, keeping what they make."""
    with published_codes(), making_columns(runner._MAKERS):
        yield


@pytest.fixture
def release(test2_frame, schema):
    """3 classes of 3 (k = 3, distinct 3-diverse, 1/6-close), nothing suppressed."""
    return fixed(Table(test2_frame, schema), [KAnonymity(3)], levels={"ZIPCode": 1, "Age": 2})


# ------------------------------------------------------------------ the publisher's columns keep their codes
@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "*", "", "ab", "é", "a"]), min_size=1, max_size=8),
       st.lists(st.integers(0, 50), max_size=40))
def test_a_made_columns_codes_are_arrows_dictionary_encoding(labels, picks):
    labels = np.array(labels, dtype=object)  # (repeated texts, unused entries, "" and "*" among them)
    m = len(labels)
    index = np.array([p % (2 * m) - m for p in picks], dtype=np.int64)  # negative ones counted from the end
    longer = np.append(labels, np.array(["z"], dtype=object))  # (a column over the same rows, one label more)
    with published_codes():
        columns = [make_column(labels, index), make_column(longer, index)]
        kept = [_published(_arrow_text(column)) for column in columns]
    for column, texts, codes in zip(columns, (labels, longer), kept, strict=True):
        assert list(column) == [texts[i] for i in index]  # the column is labels[index]
        want_codes, want_texts = _arrow_codes(_arrow_text(column), pc)
        assert codes is not None
        assert codes[0].tolist() == want_codes.tolist() and codes[1].tolist() == want_texts.tolist()
        assert not codes[0].flags.writeable and not codes[1].flags.writeable


def test_outside_a_block_nothing_is_kept():
    labels = np.array(["x", "y", "*"], dtype=object)
    column = make_column(labels, np.array([0, 1, -1, 0]))
    with published_codes():
        assert _published(_arrow_text(column)) is None  # (made before the block)
    assert rows_module._PUBLISHED.get() is None


def test_the_verifier_reads_the_kept_codes_and_judges_alike(release, test2_frame, schema, monkeypatch):
    outside = verify(release.to_frame(), schema, MODELS, reference=test2_frame, suppressed="drop")
    encoded = []
    real = rows_module._arrow_codes
    monkeypatch.setattr(rows_module, "_arrow_codes",
                        lambda arrow, pc: encoded.append(rows_module._memory_key(arrow)) or real(arrow, pc))
    with _publishing():
        frame = release.to_frame()
        assert isinstance(frame["ZIPCode"].dtype, pd.StringDtype)
        inside = verify(frame, schema, MODELS, reference=test2_frame, suppressed="drop")
        assert read_codes(frame["Age"])[0].tolist() == factorize_text(frame["Age"])[0].tolist()
        assert read_codes(frame["Age"])[0] is _published(_arrow_text(frame["Age"]))[0]  # (a reader's: no copy)
        made = {rows_module._memory_key(_arrow_text(frame[q])) for q in QIS}
        encoded.clear()
        own = text_codes(frame["Age"])  # a caller's own copy of the kept codes
        assert encoded == [] and own[0].flags.writeable and own[0].tolist() == factorize_text(frame["Age"])[0].tolist()
        with same_release_codes():  # an audit's block (a job's slot): its store takes the kept codes too
            encoded.clear()
            assert read_codes(frame["ZIPCode"])[0].tolist() == factorize_text(frame["ZIPCode"])[0].tolist()
            assert encoded == []
        encoded.append(None)
    assert encoded and not made & set(encoded)  # the quasi-identifiers' codes were the kept ones (the rest encoded)
    assert inside == outside and inside.ok


@pytest.mark.parametrize("change", ["column", "slice"])
def test_a_changed_release_is_read_from_its_cells(release, test2_frame, schema, change):
    """The hand-over cannot vouch for cells it did not make: a column replaced after publishing (one
    record moved to a class of its own: k = 3 fails) or a slice of one (another offset of the same
    memory) is read from its cells, and the verifier sees what they say."""
    with _publishing():
        frame = release.to_frame()
        if change == "column":
            broken = frame.copy()
            broken.loc[0, "ZIPCode"] = "99999"
            assert _published(_arrow_text(broken["ZIPCode"])) is None
            v = verify(broken, schema, MODELS, reference=test2_frame, suppressed="drop")
            assert not v.ok and not v.results[0].passed
        else:
            part = frame.iloc[1:]
            assert _published(_arrow_text(part["ZIPCode"])) is None
            assert _published(_arrow_text(frame["ZIPCode"])) is not None
            v = verify(part, schema, [KAnonymity(3)], reference=test2_frame, suppressed="drop")
            assert not v.ok  # 8 records: one class of 2
            assert text_codes(part["ZIPCode"])[0].tolist() == factorize_text(part["ZIPCode"])[0].tolist()


# ------------------------------------------------------------------ the reference, read once per table
def test_the_reference_is_read_once_per_table(test2_frame, schema, monkeypatch):
    reads = []
    real = rows_module.reference_codes
    monkeypatch.setattr(rows_module, "reference_codes", lambda values: reads.append(values.name) or real(values))
    _encoding_reuse.clear()
    first = anonymize(test2_frame, schema, [KAnonymity(3), DistinctLDiversity("Disease", 3)], algorithm="flash")
    again = anonymize(test2_frame, schema, [KAnonymity(3), DistinctLDiversity("Disease", 3)], algorithm="flash")
    # never read: the table's encoding kept both columns' codes (pandas' text: by their Arrow memory), and the
    # verifier takes them for those very columns (checked against a reading of the cells below)
    assert reads == []
    assert first.frame.equals(again.frame) and first.verification == again.verification
    table = first.release.table
    for name in ("Salary", "Disease"):  # each attribute its own codes
        coded = rows_module.input_codes_of(table, name)
        want = text_codes(table.frame[name])
        assert coded.codes.tolist() == want[0].tolist() and coded.texts.tolist() == want[1].tolist()
        assert not coded.codes.flags.writeable
    _encoding_reuse.clear()


def test_a_coded_reference_judges_as_the_column(release, test2_frame, schema):
    frame = release.to_frame()
    coded = {s: CodedColumn(*text_codes(test2_frame[s])) for s in ("Salary", "Disease")}
    assert verify(frame, schema, MODELS, reference=coded) == verify(frame, schema, MODELS, reference=test2_frame)
    skewed = pd.concat([test2_frame["Salary"], test2_frame["Salary"].iloc[:3]], ignore_index=True)
    wrong = {"Salary": CodedColumn(*text_codes(skewed)), "Disease": coded["Disease"]}
    assert verify(frame, schema, MODELS, reference=wrong) != verify(frame, schema, MODELS, reference=test2_frame)


# ------------------------------------------------------------------ object columns of texts
def test_a_frames_text_columns_encode_as_before(test2_frame):
    for name in test2_frame.columns:
        column = test2_frame[name].astype(object)
        codes, texts = factorize_text(column)
        want_codes, want_texts = pd.factorize(np.array([str(v) for v in column], dtype=object))
        assert codes.tolist() == want_codes.tolist() and texts.tolist() == list(want_texts)


def test_arrow_text_reads_a_series_and_its_array():
    series = pd.Series(["a", "b"], dtype="str")
    assert isinstance(_arrow_text(series), pa.ChunkedArray | pa.Array)
    assert _arrow_text(series.array) is not None and _arrow_text(pd.Series(["a"], dtype=object)) is None


# ------------------------------------------------------------------ Release.counted decides from the table's rows
def _old_decision(release):
    """Whether ``counted()`` returned the release itself before the table's counted rows were kept: the
    distinct (class, tuple, sensitive values) rows grouped from the records every call."""
    t = release.table
    d = t.distinct
    if 2 * d.size > t.n:
        return True
    cols = [release.record_class + 1, d.inverse, *t.sensitive_codes.values()]
    m = len({tuple(row) for row in np.column_stack(cols).tolist()})
    return m == t.n or 2 * m > t.n


@pytest.mark.parametrize("shifts", [(0, 0, 1, 2), (0, 0, 0, 0), (0, 1, 2, 3), (0, 0, 0, 1)])
def test_counted_decides_from_the_tables_counted_rows(test2_frame, schema, shifts, monkeypatch):
    salary = test2_frame["Salary"].astype(int)
    copies = [test2_frame.assign(Salary=(salary + shift).astype(str)) for shift in shifts]
    table = Table(pd.concat(copies, ignore_index=True), schema)
    grouped = []
    real = release_module.group_columns
    monkeypatch.setattr(release_module, "group_columns", lambda *a, **k: grouped.append(1) or real(*a, **k))
    for levels in ({"ZIPCode": 1, "Age": 1}, {"ZIPCode": 0, "Age": 0}, {"ZIPCode": 2, "Age": 2}):
        release = fixed(table, [KAnonymity(1)], levels=levels)
        assert (release.counted() is release) == _old_decision(release)
    grouped.clear()
    release = fixed(table, [KAnonymity(1)], levels={"ZIPCode": 1, "Age": 2})
    itself = release.counted() is release
    assert itself == _old_decision(release)
    assert grouped == ([] if itself else [1])  # the table's rows counted already: the records grouped only to count


# ------------------------------------------------------------------ a table's shuffle of all its rows, kept
def _fresh_rows(release, suppressed, seed):
    """``published_rows`` as it was: the kept (or all) rows' indices, shuffled by the seed."""
    rows = np.arange(release.table.n, dtype=np.int32)
    if suppressed == "drop":
        rows = rows[release.record_class >= 0]
    np.random.default_rng(seed).shuffle(rows)
    return rows


def test_published_rows_are_the_shuffle_of_their_seed(test2_frame, schema):
    table = Table(pd.concat([test2_frame] * 4, ignore_index=True), schema)
    whole = fixed(table, [KAnonymity(2)], levels={"ZIPCode": 1, "Age": 1})
    part = fixed(table, [KAnonymity(2)], levels={"ZIPCode": 1, "Age": 1})
    part.record_class = part.record_class.copy()
    part.record_class[:5] = -1  # (five records suppressed: the kept rows only, when dropped)
    for seed in (0, 1, 0, 2, 1, 0):
        for release in (whole, part):
            for suppressed in ("drop", "mark"):
                got = release.published_rows(suppressed=suppressed, seed=seed)
                assert got.dtype == np.int32 and got.tolist() == _fresh_rows(release, suppressed, seed).tolist()
                got[:] = 0  # the caller's own copy: the kept shuffle is not changed
    assert whole.to_frame(seed=3).equals(whole.to_frame(seed=3))


# ------------------------------------------------------------------ a sensitive column taken from the input
def _taken_frame(cells, rows):
    """A column of ``cells`` (objects) published at ``rows`` inside a block, and what the block kept."""
    column = pd.Series(np.array(cells, dtype=object), dtype=object, name="s")
    coded = rows_module.coded_column(column)
    published = pd.Series(rows_module.taken_column(column, rows, lambda: coded), dtype=object, copy=False, name="s")
    return column, coded, published


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "", "ab", "é", "*"]), min_size=1, max_size=12),
       st.lists(st.integers(0, 100), max_size=30))
def test_a_taken_columns_codes_are_its_cells(cells, picks):
    rows = np.array([p % len(cells) for p in picks], dtype=np.int32)
    with published_codes():
        _, coded, published = _taken_frame(cells, rows)
        got = read_codes(published)
        own = text_codes(published)
        assert rows_module._taken(published) is not None
    want = factorize_text(published)
    assert got[0].tolist() == want[0].tolist() == own[0].tolist()
    assert got[1].tolist() == want[1].tolist() == own[1].tolist()
    assert coded.cells is not None and not coded.cells.flags.writeable


def test_a_taken_column_is_read_from_its_cells_once_they_change():
    cells, rows = ["x", "y", "x", "z"], np.array([3, 0, 1, 2], dtype=np.int32)
    with published_codes():
        column, coded, published = _taken_frame(cells, rows)
        assert rows_module._taken(published) is not None
        published.iloc[0] = "y"  # a cell written (another object): no longer the taken cells
        assert rows_module._taken(published) is None
        assert read_codes(published)[0].tolist() == factorize_text(published)[0].tolist() == [0, 1, 0, 1]
        column.iloc[3] = "w"  # the input written after its codes were read: they hold their own copy
        assert coded.cells.tolist() == cells
        changed = pd.Series(rows_module.taken_column(column, rows, lambda: coded), dtype=object, name="s")
        assert rows_module._taken(changed) is None  # its "w" is not the object the codes were read from
        assert read_codes(changed)[1].tolist() == ["w", "x", "y"]
    with published_codes():  # cells that are not all texts are not kept
        numbers = pd.Series(np.array([1, 2, 1], dtype=object), dtype=object, name="s")
        assert rows_module.coded_column(numbers).cells is None
        taken = rows_module.taken_column(numbers, np.array([0, 1]), lambda: rows_module.coded_column(numbers))
        taken = pd.Series(taken, dtype=object, name="s")
        assert rows_module._taken(taken) is None


def test_a_release_whose_sensitive_cells_changed_is_caught(test2_frame, schema):
    table = Table(test2_frame.astype(object), schema)
    release = fixed(table, [KAnonymity(3)], levels={"ZIPCode": 1, "Age": 2})
    with _publishing():
        frame = release.to_frame()
        assert rows_module._taken(frame["Disease"]) is not None  # kept: the verifier reads the input's codes
        v = verify(frame, schema, MODELS, reference=test2_frame, suppressed="drop")
        broken = frame.copy()
        cls = broken["ZIPCode"] == broken.loc[0, "ZIPCode"]
        broken.loc[cls, "Disease"] = broken.loc[0, "Disease"]  # one class of one disease: 3-diversity fails
        assert rows_module._taken(broken["Disease"]) is None
        caught = verify(broken, schema, MODELS, reference=test2_frame, suppressed="drop")
    assert v.ok and not caught.ok and not caught.results[1].passed
    assert v == verify(release.to_frame(), schema, MODELS, reference=test2_frame, suppressed="drop")


def test_a_taken_columns_readers_take_the_kept_codes(monkeypatch):
    read = []
    monkeypatch.setattr(rows_module, "factorize_text", lambda *a, **k: read.append(1) or factorize_text(*a, **k))
    with published_codes():
        _, _, published = _taken_frame(["x", "y", "x", "z"], np.array([3, 0, 1, 2, 0], dtype=np.int32))
        read.clear()
        own, shared = text_codes(published), read_codes(published)
        assert read == []  # neither read the cells
    assert own[0].flags.writeable and not shared[0].flags.writeable
    assert own[0].tolist() == shared[0].tolist() == [0, 1, 2, 1, 1]  # z x y x x
    assert own[1].tolist() == shared[1].tolist() == ["z", "x", "y"]


def test_a_changed_index_is_read_again():
    labels = np.array(["x", "y", "*"], dtype=object)
    index = np.array([0, 1, -1, 0])
    with published_codes():
        make_column(labels, index)
        index[:] = [1, 1, 0, -1]  # the same array, other rows: its entries are made again
        column = make_column(labels, index)
        kept = _published(_arrow_text(column))
    assert list(column) == ["y", "y", "x", "*"] and kept[0].tolist() == [0, 0, 1, 2]


def test_the_runner_publishes_with_the_verifiers_makers(test2_frame, schema, monkeypatch):
    """A call of ``anonymize()``: its published quasi-identifiers and its object sensitive column are read
    through what their makers kept and the input's sensitive columns through the table's encoding (no
    quasi-identifier encoded, no sensitive cell factorized)."""
    encoded, factorized = [], []
    real_codes, real_text = rows_module._arrow_codes, rows_module.factorize_text
    monkeypatch.setattr(rows_module, "_arrow_codes",
                        lambda arrow, pc: encoded.append(len(arrow)) or real_codes(arrow, pc))
    monkeypatch.setattr(rows_module, "factorize_text",
                        lambda values, **k: factorized.append(getattr(values, "name", None)) or real_text(values, **k))
    frame = test2_frame.astype(object)
    models = [KAnonymity(3), DistinctLDiversity("Disease", 2)]
    result = anonymize(frame, schema, models, algorithm="flash")
    assert result.verification.ok and encoded == []
    # the input's sensitive columns' codes come from the table's encoding (Table.encoded_cells, over the same
    # memory), the published ones from their makers: no cell factorized again
    assert factorized == []
    factorized.clear()
    again = anonymize(frame, schema, models, algorithm="flash")  # (the input's codes read once per table)
    assert factorized == [] and again.frame.equals(result.frame)
    with published_codes():  # without the runner's makers, pandas' own takes: nothing kept
        published = result.release.to_frame()
        assert _published(_arrow_text(published["ZIPCode"])) is None
        assert rows_module._taken(published["Disease"]) is None


# ------------------------------------------------------------------ a table's published columns held across calls
@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from(["a", "b", "*", "", "ab"]), min_size=1, max_size=4),
                          st.lists(st.integers(0, 7), max_size=12)), min_size=1, max_size=5))
def test_a_held_column_is_the_column_of_its_labels_and_index(calls):
    """Calls one after another on one held dict (labels or index alike or changed): each column and its
    kept codes are what a fresh take and Arrow's encoding give (a stale column handed out would differ)."""
    held = {"index": None, "columns": {}}
    for labels, picks in calls:
        labels = np.array(labels, dtype=object)
        index = np.array([p % len(labels) for p in picks], dtype=np.int64)
        for _ in range(2):  # (the second: from what was held, when the first held it)
            with published_codes():
                column = make_column(labels, index, held, "q")
                kept = _published(_arrow_text(column))
            assert list(column) == list(pd.Series(labels).array.take(index))
            codes, texts = _arrow_codes(_arrow_text(column), pc)
            assert kept[0].tolist() == codes.tolist() and kept[1].tolist() == texts.tolist()


def test_a_held_column_is_handed_out_as_a_new_array():
    """The held column is handed out as its own pandas array each time: a write into one call's frame
    leaves what is held, and the next call's column, as made."""
    held = {"index": None, "columns": {}}
    labels, index = np.array(["x", "y", "*"], dtype=object), np.array([0, 1, 2, 0])
    with published_codes():
        first = make_column(labels, index, held, "q")
    first[0] = "changed"
    with published_codes():
        second = make_column(labels, index.copy(), held, "q")
        assert second is not first and _published(_arrow_text(second)) is not None
    assert list(second) == ["x", "y", "*", "x"]
    second[1] = "w"
    with published_codes():  # (a write into the second call's column: the third's as made)
        assert list(make_column(labels, index, held, "q")) == ["x", "y", "*", "x"]
        assert list(make_column(labels, np.array([1, 0, 2, 0]), held, "q")) == ["y", "x", "*", "x"]

    class Same(str):
        def __eq__(self, other):  # (says it equals any text: a label that is not an exact str is never held)
            return True

        __hash__ = str.__hash__

    with published_codes():
        other = np.array([Same("u"), "y", "*"], dtype=object)
        assert list(make_column(other, np.array([1, 0, 2, 0]), held, "q")) == ["y", "u", "*", "u"]
    held_labels = np.array(["x", "y", "*"], dtype=object)
    held_labels[0] = "z"  # (the labels are compared by value: a changed one makes the column again)
    with published_codes():
        assert list(make_column(held_labels, np.array([1, 0, 2, 0]), held, "q")) == ["y", "z", "*", "z"]


def test_warm_calls_take_the_held_columns(test2_frame, schema, monkeypatch):
    """Two calls on one unchanged input publish their quasi-identifiers once (the second from what the first
    held), the same frames; a call of other levels makes its columns again; a table of more rows than
    ``HELD_COLUMNS_UP_TO`` holds nothing."""
    monkeypatch.setattr(_encoding_reuse, "REUSE_ENCODINGS", True)
    _encoding_reuse.clear()
    made = []
    real = rows_module._hold_column
    monkeypatch.setattr(rows_module, "_hold_column", lambda held, name, *a: made.append(name) or real(held, name, *a))
    frame = test2_frame.astype(object)
    models = [KAnonymity(3), DistinctLDiversity("Disease", 2)]
    first = anonymize(frame, schema, models, algorithm="flash")
    assert sorted(made) == sorted(QIS)
    made.clear()
    first.frame.iloc[0, 0] = "changed"  # (the caller's frame: not what is held)
    again = anonymize(frame, schema, models, algorithm="flash")
    assert made == [] and again.verification.ok
    fresh = anonymize(frame, schema, models, algorithm="flash", seed=5)  # (other rows: made again)
    assert sorted(made) == sorted(QIS) and fresh.verification.ok
    _encoding_reuse.clear()
    monkeypatch.setattr(_encoding_reuse, "REUSE_ENCODINGS", False)
    cold = anonymize(frame, schema, models, algorithm="flash")
    assert again.frame.equals(cold.frame) and again.summary.keys() == cold.summary.keys()
    monkeypatch.setattr(rows_module, "HELD_COLUMNS_UP_TO", len(frame) - 1)
    assert rows_module.published_memo(Table(frame, schema)) is None
