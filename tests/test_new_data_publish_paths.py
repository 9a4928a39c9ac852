"""Issue 30, session 11 round 2: publishing and verifying a release of *new data* (a table whose content differs:
nothing kept per table or by content hits), each cheaper path held to the one it replaces.

* ``_verify_entries.entry_codes``: a published text column's codes and texts computed from its labels and its
  rows' label entries (a dict for few exact ``str`` labels), what the cells give read by Arrow's dictionary
  encoding; ``row_entries`` refuses an index outside the labels (as the take it replaces);
* ``_verify_entries.group_entries``: the quasi-identifier columns text_column made at one index grouped by their
  rows' entries (no row's code made), the ids ``group_columns`` gives from the cells; columns made at two indexes,
  or a key space reaching the limit, grouped from their codes;
* ``Release.class_labels``: one hierarchy level in every class, labelled in one step, as the per-level loop does;
* ``_verify_rows._encoding_of``: an input column's codes taken from the table's encoding
  (``Table.encoded_cells``) only while the table's frame reads the very cells they were computed from.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import anonkit._verify_entries as entries_module
import anonkit._verify_rows as rows_module
import anonkit.runner.anonymize as runner
from anonkit._kernels import group_columns
from anonkit._values import factorize_text
from anonkit._verify_rows import published_codes, text_codes, text_column
from anonkit.algorithms.lattice.fixed import fixed
from anonkit.models import KAnonymity
from anonkit.release import CUSTOM, Release, making_columns
from anonkit.table import Table
from anonkit.verifier import verify
from support import schema_of_test2

TEXTS = ["a", "b", "ab", "", "é", "*", "[20-30["]
DICT_LABELS = entries_module.DICT_LABELS_UP_TO


@pytest.fixture(scope="module")
def schema(test2_hierarchies):
    return schema_of_test2(test2_hierarchies)


def _fresh(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as new data read from a file gives it: every cell a new ``str`` object."""
    return pd.DataFrame({c: np.array(["".join(list(str(v))) for v in frame[c]], dtype=object) for c in frame.columns})


def _read(column) -> tuple[list, list]:
    """The codes and texts the verifier reads from ``column``'s cells (outside any block: nothing kept)."""
    codes, texts = rows_module._arrow_codes(rows_module._arrow_text(column), pc)
    return codes.tolist(), texts.tolist()


# ------------------------------------------------------------------ entry_codes
@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(TEXTS), min_size=1, max_size=9), st.data())
def test_entry_codes_are_what_the_cells_say(labels, data):
    """Labels that repeat a text, entries without rows, a negative index (counted from the end), rows in any
    order: the codes and texts kept with the column are those its cells give, on both paths (the dict, and
    pandas' hashing when there are more labels than DICT_LABELS_UP_TO)."""
    m = len(labels)
    index = np.array(data.draw(st.lists(st.integers(-m, m - 1), min_size=1, max_size=20)), dtype=np.int64)
    labels = np.array([str(v) + "" for v in labels], dtype=object)
    want = pd.Series(labels).array.take(index)
    for limit in (DICT_LABELS, 0):
        entries_module.DICT_LABELS_UP_TO = limit
        try:
            with published_codes():
                column = text_column(labels, index, {"index": None, "columns": {}}, "q")
                kept = rows_module._published(rows_module._arrow_text(column))
        finally:
            entries_module.DICT_LABELS_UP_TO = DICT_LABELS
        assert column.dtype == want.dtype and column.tolist() == want.tolist()
        assert kept is not None
        assert (kept[0].tolist(), kept[1].tolist()) == _read(column)


def test_entry_codes_dict_path_runs_and_keeps_first_entry_objects(monkeypatch):
    """Few exact ``str`` labels are numbered without pandas; each text is the object of its first label entry
    (as pd.factorize keeps it), numbered by its first row (not by its first entry)."""
    calls = []
    real = pd.factorize
    monkeypatch.setattr(entries_module.pd, "factorize", lambda *a, **k: calls.append(1) or real(*a, **k))
    x1, x2 = "".join(["x", "y"]), "".join(["x", "y"])  # two equal texts, two objects
    labels = np.array(["b", x1, "a", x2, "*"], dtype=object)
    index = np.array([3, 0, -1, 2, 0, 3], dtype=np.int64)  # entry 1 has no row; its text is entry 3's
    entry, by_row = entries_module.row_entries({}, index, len(labels))
    per_entry, texts = entries_module.entry_codes(labels, by_row)
    assert calls == []
    assert per_entry[entry].tolist() == [0, 1, 2, 3, 1, 0] and texts.tolist() == ["xy", "b", "*", "a"]
    assert texts[0] is x1  # (the first entry's object, not the first row's)
    assert per_entry.dtype == np.int64
    per_entry2, texts2 = entries_module.entry_codes(np.array([*labels[:4], np.str_("*")], dtype=object), by_row)
    assert calls == [1] and per_entry2[entry].tolist() == per_entry[entry].tolist()
    assert texts2.tolist() == texts.tolist()


def test_an_index_outside_the_labels_is_refused():
    """An index before the first label (or past the last) raises, as the take it replaces: never a cell counted
    from the end twice."""
    labels = np.array(["a", "b", "*"], dtype=object)
    for index in (np.array([0, -4]), np.array([3, 0])):
        with pytest.raises(IndexError), published_codes():
            text_column(labels, index, {"index": None, "columns": {}}, "q")
        with pytest.raises(IndexError):
            pd.Series(labels).array.take(index)


# ------------------------------------------------------------------ group_entries
def _made_frame(label_sets: list[list[str]], index: np.ndarray) -> pd.DataFrame:
    """The columns text_column makes of each label set at ``index`` (one release: one index), as a frame."""
    held = {"index": None, "columns": {}}
    return pd.DataFrame({f"q{j}": text_column(np.array([str(v) + "" for v in labels], dtype=object), index, held,
                                              f"q{j}") for j, labels in enumerate(label_sets)})


def _grouped_from_cells(frame: pd.DataFrame) -> tuple[list, int]:
    """group_columns over the codes the cells give (read outside any block)."""
    cols, sizes = [], []
    for c in frame.columns:
        codes, texts = _read(frame[c])
        cols.append(np.array(codes, dtype=np.int64))
        sizes.append(len(texts))
    ids, m = group_columns(cols, sizes)
    return ids.tolist(), m


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 6), st.integers(1, 4), st.data())
def test_made_columns_group_by_their_entries(m, d, data):
    """Columns made at one index group as their cells do (the same ids), without making the rows' codes."""
    label_sets = [data.draw(st.lists(st.sampled_from(TEXTS), min_size=m, max_size=m)) for _ in range(d)]
    index = np.array(data.draw(st.lists(st.integers(-m, m - 1), min_size=1, max_size=25)), dtype=np.int64)
    with published_codes():
        frame = _made_frame(label_sets, index)
        ids, n = rows_module.group_rows(frame, list(frame.columns))
        parts = [rows_module._PUBLISHED.get()[("codes", rows_module._memory_key(rows_module._arrow_text(frame[c])))]
                 [1][0] for c in frame.columns]
        assert all(p._rows is None for p in parts)  # (grouped by the entries: no row's code made)
    assert (ids.tolist(), n) == _grouped_from_cells(frame)


def test_columns_of_two_indexes_or_a_large_key_space_are_read(monkeypatch):
    """Columns made at two index arrays, or whose key space would reach the limit, are grouped from their codes
    (group_entries declines), the same ids."""
    labels = [["a", "b", "a", "*"], ["x", "y", "z", "*"]]
    index = np.array([0, 1, 2, 3, 1, 0, -1], dtype=np.int64)
    with published_codes():
        frame = _made_frame(labels, index)
        other = _made_frame(labels, index.copy())
        mixed = pd.DataFrame({"q0": frame["q0"], "q1": other["q1"]})
        parts = [rows_module._PUBLISHED.get()[("codes", rows_module._memory_key(rows_module._arrow_text(f[c])))][1][0]
                 for f, c in ((frame, "q0"), (other, "q1"))]
        assert entries_module.group_entries(parts) is None
        ids, n = rows_module.group_rows(mixed, ["q0", "q1"])
        assert (ids.tolist(), n) == _grouped_from_cells(mixed)
        monkeypatch.setattr(entries_module, "KEY_LIMIT", 4)  # (2 texts × 3 texts … reach it)
        again = _made_frame(labels, index.copy())
        parts = [rows_module._PUBLISHED.get()[("codes", rows_module._memory_key(rows_module._arrow_text(again[c])))]
                 [1][0] for c in again.columns]
        assert entries_module.group_entries(parts) is None
        ids, n = rows_module.group_rows(again, ["q0", "q1"])
        assert (ids.tolist(), n) == _grouped_from_cells(again)


def test_the_runner_groups_its_release_by_entries(test2_frame, schema):
    """The runner's publishing and verification: the quasi-identifiers grouped without their rows' codes (drop),
    and a column edited after publishing (other memory) read from its cells: the broken release is caught."""
    table = Table(_fresh(test2_frame), schema)
    release = fixed(table, [KAnonymity(3)], levels={"ZIPCode": 1, "Age": 2})
    with published_codes(), making_columns(runner._MAKERS):
        frame = release.to_frame()
        assert verify(frame, schema, [KAnonymity(3)], suppressed="drop").ok
        store = rows_module._PUBLISHED.get()
        parts = [store[("codes", rows_module._memory_key(rows_module._arrow_text(frame[q])))][1][0]
                 for q in ("ZIPCode", "Age")]
        assert all(p._rows is None for p in parts)
        broken = frame.copy()
        broken["Age"] = pd.Series(np.array(["x" + str(i) for i in range(len(frame))], dtype=object), dtype="str")
        assert not verify(broken, schema, [KAnonymity(3)], suppressed="drop").ok


# ------------------------------------------------------------------ class_labels
def test_class_labels_of_one_level_are_the_loops(test2_frame, schema):
    """A full-domain release (one level per column) and a release whose classes mix levels (and a custom one)
    label every class as the per-level loop does."""
    table = Table(test2_frame.astype(object), schema)
    release = fixed(table, [KAnonymity(2)], levels={"ZIPCode": 2, "Age": 1})
    for j, h in enumerate(table.hierarchies):
        level = int(release.class_levels[0, j])
        want = [h.labels[level][c] for c in release.class_nodes[:, j]]
        assert release.class_labels(j).tolist() == want
    mixed = Release(table, release.record_class, release.class_levels.copy(), release.class_nodes.copy(), "x")
    mixed.class_levels[0, 0] = 0  # class 0's ZIPCode at the leaves: two levels in the column
    mixed.class_nodes[0, 0] = table.codes[int(np.flatnonzero(release.record_class == 0)[0]), 0]
    h = table.hierarchies[0]
    want = [h.labels[lv][c] for lv, c in zip(mixed.class_levels[:, 0], mixed.class_nodes[:, 0], strict=True)]
    assert mixed.class_labels(0).tolist() == want
    custom = Release(table, release.record_class, release.class_levels.copy(), release.class_nodes.copy(), "x")
    custom.class_levels[:, 1] = CUSTOM  # every class custom, with no bounds: refused as before
    with pytest.raises(ValueError):
        custom.class_labels(1)


# ------------------------------------------------------------------ the encoding's codes of an input column
def _kept_encoding(table: Table, name: str) -> None:
    """What ``Table.encoded_cells`` holds for ``name`` (the table's own when it has them)."""
    cells = table.frame[name].to_numpy()
    table.__dict__.setdefault("encoded_cells", {})[name] = (cells, *factorize_text(table.frame[name]))


def test_input_codes_come_from_the_encoding_only_over_its_cells(test2_frame, schema, monkeypatch):
    """The encoding's codes are taken for the column whose cells they were read from; a table made from another
    (its frame a permutation of the rows: as long, other memory) reads its cells: its own codes."""
    table = Table(test2_frame.astype(object), schema)
    _kept_encoding(table, "Disease")
    read = []
    real = rows_module.reference_codes
    monkeypatch.setattr(rows_module, "reference_codes", lambda v: read.append(v.name) or real(v))
    coded = rows_module.input_codes_of(table, "Disease")
    assert read == []
    want = text_codes(table.frame["Disease"])
    assert coded.codes.tolist() == want[0].tolist() and coded.texts.tolist() == want[1].tolist()
    assert coded.cells is not None and not coded.codes.flags.writeable
    other = object.__new__(Table)
    other.__dict__.update({k: v for k, v in table.__dict__.items() if k != "distinct"})
    rows = np.arange(table.n)[::-1].copy()
    other.frame = table.frame.iloc[rows].reset_index(drop=True)
    assert rows_module._encoding_of(other, "Disease", other.frame["Disease"]) is None
    coded = rows_module.coded_column(other.frame["Disease"], rows_module._encoding_of(other, "Disease",
                                                                                       other.frame["Disease"]))
    want = text_codes(other.frame["Disease"])
    assert read == ["Disease"] and coded.codes.tolist() == want[0].tolist()


def test_a_replaced_column_is_read_from_its_cells(test2_frame, schema):
    """A column replaced in the frame after encoding (other memory), or one that is not of objects, finds nothing."""
    table = Table(test2_frame.astype(object), schema)
    _kept_encoding(table, "Disease")
    assert rows_module._encoding_of(table, "Disease", table.frame["Disease"]) is not None
    table.frame["Disease"] = table.frame["Disease"].to_numpy().copy()
    assert rows_module._encoding_of(table, "Disease", table.frame["Disease"]) is None
    assert rows_module._encoding_of(table, "Disease", table.frame["Disease"].astype("str")) is None


def test_the_tables_own_encoding_is_the_cells(test2_frame, schema):
    """With ``Table.encoded_cells`` (the encoding's), every kept column's codes are what its cells give."""
    table = Table(test2_frame.astype(object), schema)
    if not hasattr(table, "encoded_cells"):
        pytest.skip("Table keeps no encoded cells")
    assert set(table.encoded_cells) == {s for s in table.sensitive if table.frame[s].dtype == object}
    for name in table.encoded_cells:
        got = rows_module._encoding_of(table, name, table.frame[name])
        assert got is not None
        want = text_codes(table.frame[name])
        assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()
