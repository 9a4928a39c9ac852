"""Issue 30, session 13 round 5: publishing and verifying a release of *new data* (nothing kept per table or by
content hits), each cheaper path held to the one it replaces.

* ``stats.tuple_rows``: with one sensitive attribute, the number of (tuple, value) pairs ``Table.distinct`` lists,
  not a second grouping of the records (what ``Release.counted`` decides by);
* ``_verify_entries._one_text``: a published text column whose rows all hold one text built from its buffers, the
  column Arrow's take gives;
* ``_verify_entries._entry_ids``: columns made at one index grouped per label entry in a small key space, the ids
  ``group_pairs`` gives (at the edge of its lookup array too);
* ``verifier.released_stats``: a release without suppressed rows histogrammed at its rows as they are, and a frame
  numbered 0…n−1 read without a new index;
* ``Release._class_sizes``: a release that suppresses nothing counted without selecting its kept records;
* ``Release.to_frame``: a published pandas text column put in the frame as it is, an object column as a Series.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import anonkit._verify_entries as entries
import anonkit.stats as stats
import anonkit.verifier as verifier
from anonkit._kernels import LOOKUP_PER_ROW, LOOKUP_SLACK, group_columns, group_pairs
from anonkit._verify_inputs import DomainSpec
from anonkit._verify_rows import published_codes, text_column
from anonkit.schema import Schema
from anonkit.table import Table
from support import release_at, shuffled_records

QIS = ["age", "sex", "race", "education"]


@pytest.fixture(scope="module")
def shuffled(adult) -> tuple[pd.DataFrame, dict]:
    """Adult's first 2,000 records in another order."""
    return shuffled_records(adult, 11, 2000)


def _table(frame: pd.DataFrame, hierarchies: dict, sensitive: list[str], **kw: object) -> Table:
    schema = Schema.of(quasi=QIS, sensitive=sensitive, hierarchies={q: hierarchies[q] for q in QIS})
    table = Table(frame[[*QIS, *sensitive]], schema, **kw)
    assert table.distinct.size
    return table


def _grouped_rows(table: Table) -> int:
    """The grouping tuple_rows replaced: the records' (tuple, sensitive values) rows counted again."""
    d = table.distinct
    cols = [d.inverse, *table.sensitive_codes.values()]
    return group_columns(cols, [d.size, *[table.domains[s].size for s in table.sensitive_codes]])[1]


# ------------------------------------------------------------------ tuple_rows
@pytest.mark.parametrize("weighted", [False, True])
def test_tuple_rows_of_one_sensitive_attribute_are_the_listed_pairs(shuffled, weighted, monkeypatch):
    """One sensitive attribute: the pairs Table.distinct lists, without grouping the records again (catches: a
    count off by one, or the count of tuples instead of pairs)."""
    frame, hierarchies = shuffled
    weights = np.random.default_rng(2).integers(1, 4, len(frame)) if weighted else None
    table = _table(frame, hierarchies, ["occupation"], weights=weights)
    want = _grouped_rows(table)
    assert table.distinct.size < want < table.n  # (pairs, tuples and records all differ here)

    def refused(*args, **kwargs):
        raise AssertionError("the records were grouped again")

    monkeypatch.setattr(stats, "group_columns", refused)
    assert stats.tuple_rows(table) == want


@pytest.mark.parametrize("sensitive", [[], ["occupation", "salary-class"]])
def test_tuple_rows_of_other_tables_are_grouped(shuffled, sensitive):
    """No sensitive attribute, or several: the records' rows grouped as before, the same count."""
    frame, hierarchies = shuffled
    table = _table(frame, hierarchies, sensitive)
    assert stats.tuple_rows(table) == _grouped_rows(table)


def test_counted_release_is_decided_as_before(shuffled):
    """Release.counted gives what it gave: the release itself where the pairs are more than half the rows."""
    frame, hierarchies = shuffled
    table = _table(frame, hierarchies, ["occupation"])
    release = release_at(table, [1, 0, 0, 1], k=2)
    assert 2 * _grouped_rows(table) > table.n
    assert release.counted() is release


# ------------------------------------------------------------------ _one_text
def _take(labels: list[str], index: np.ndarray):
    return pd.Series(np.array(labels, dtype=object)).array.take(index)


@pytest.mark.parametrize("labels,index", [
    (["*", "*", "*"], np.array([0, 1, 2, 1, -1])),
    (["a", "*"], np.array([0, 0, 0])),  # the suppressed label held by no row
    (["zz", "é", "zz"], np.array([1, 1, -2])),  # two bytes a character; the first entry held by no row
    (["", "x"], np.array([0, 0])),  # the empty text
])
def test_one_text_columns_are_the_take(labels, index, monkeypatch):
    """A column whose rows hold one text: built from buffers, the values, dtype, type and validity of the take
    (catches: the text of the first label instead of a row's, characters counted instead of bytes, rows said
    missing)."""
    built = []
    one = entries._one_text
    monkeypatch.setattr(entries, "_one_text", lambda *a: (built.append(1), one(*a))[1])
    with published_codes():
        got = text_column(np.array(labels, dtype=object), index, {"index": None, "columns": {}}, "q")
    want = _take(labels, index)
    assert built and got.dtype == want.dtype and got.tolist() == want.tolist()
    arrow, taken = pa.array(got), pa.array(want)
    assert arrow.type == taken.type and arrow.null_count == 0 and arrow.equals(taken)
    assert pc_is_valid(arrow) == [True] * len(index)
    assert pc_is_valid(arrow.slice(1)) == [True] * (len(index) - 1)  # (a slice reads the validity bits)


def pc_is_valid(arrow) -> list[bool]:
    import pyarrow.compute as pc

    return pc.is_valid(arrow).to_pylist()


def test_two_texts_are_taken(monkeypatch):
    """Rows that hold two texts are Arrow's take (catches: a column of several texts built as one)."""
    labels, index = ["a", "b", "*"], np.array([0, 1, 0, 1])
    with published_codes():
        got = text_column(np.array(labels, dtype=object), index, None, "q")
    assert got.tolist() == ["a", "b", "a", "b"]
    assert entries._one_text(pa, labels, np.array([0, 1]), 4) is None


def test_a_text_utf8_cannot_encode_fails_as_the_take():
    """A label UTF-8 cannot encode (a lone surrogate) fails as pyarrow's array of it does."""
    with pytest.raises(Exception) as taken:
        pa.array(["\ud800"], type=pa.large_string())
    with pytest.raises(type(taken.value)), published_codes():
        text_column(np.array(["\ud800", "\ud800"], dtype=object), np.array([0, 1]), None, "q")


# ------------------------------------------------------------------ _entry_ids
def _parts(key_sizes: list[int], per_entry: list[np.ndarray], entry: np.ndarray, present: np.ndarray | None):
    entry = entry.copy()
    entry.flags.writeable = False
    return [entries.RowCodes(np.array(p, dtype=np.int64), entry, s, present) for p, s in zip(per_entry, key_sizes,
                                                                                          strict=True)]


def _by_rows(parts) -> tuple[list, int]:
    ids, m = group_columns([np.asarray(p.per_entry[p.entry], dtype=np.int64) for p in parts],
                           [p.size for p in parts])
    return ids.tolist(), m


def _present(entry: np.ndarray, m: int) -> np.ndarray:
    first = np.full(m, -1)
    for i in range(len(entry) - 1, -1, -1):
        first[entry[i]] = i
    held = np.flatnonzero(first >= 0)
    return held[np.argsort(first[held], kind="stable")]


def test_entries_group_as_their_rows():
    """Codes per entry (one entry without rows and without a code, −1), grouped per entry: the ids of the rows'
    grouping (catches: the keys of entries without rows marked, ids not shifted to start at 0)."""
    entry = np.array([2, 0, 2, 1, 0, 2])
    per_entry = [[1, 1, 0, -1], [0, 2, 1, -1]]  # keys 3, 5, 1 (and −4: entry 3, no row)
    parts = _parts([2, 3], per_entry, entry, _present(entry, 4))
    got = entries.group_entries(parts)
    assert got is not None and got[0].dtype == np.int64
    assert (got[0].tolist(), got[1]) == _by_rows(parts) == ([0, 1, 0, 2, 1, 0], 3)


@pytest.mark.parametrize("extra", [0, 1])
def test_entries_group_as_their_rows_at_the_edge_of_the_lookup(extra, monkeypatch):
    """A key space at the largest the lookup array takes, and one past it (first appearance): the same ids as
    the rows' grouping (catches: a rule of its own for the entries, off the kernels' one)."""
    rows = 8
    radix = LOOKUP_PER_ROW * rows + LOOKUP_SLACK + extra
    rng = np.random.default_rng(extra)
    m = 5
    entry = rng.integers(0, m, rows)
    per_entry = [rng.integers(0, radix, m)]
    parts = _parts([radix], per_entry, entry, _present(entry, m))
    calls = []
    ids = entries._entry_ids
    monkeypatch.setattr(entries, "_entry_ids", lambda *a: (calls.append(r := ids(*a)), r)[1])
    got = entries.group_entries(parts)
    assert (calls[0] is None) == bool(extra)  # (per entry at the edge, by the rows past it)
    assert (got[0].tolist(), got[1]) == _by_rows(parts)
    assert (got[0].tolist(), got[1]) == (group_pairs([(per_entry[0][entry], radix)])[0].tolist(),
                                         group_pairs([(per_entry[0][entry], radix)])[1])


def test_entries_without_present_are_grouped_by_rows():
    """Codes made without the entries that have rows (None) are grouped from the gathered keys, as before."""
    entry = np.array([1, 1, 0])
    parts = _parts([2], [[1, 0]], entry, None)
    assert entries._entry_ids(np.array([1, 0]), 2, parts[0].entry, None) is None
    got = entries.group_entries(parts)
    assert (got[0].tolist(), got[1]) == _by_rows(parts)


# ------------------------------------------------------------------ released_stats
def _frame() -> pd.DataFrame:
    return pd.DataFrame({"q": ["a", "a", "b", "*", "b", "a"], "s": ["x", "y", "x", "y", "y", "y"]})


def _histogram(frame: pd.DataFrame, weights: np.ndarray | None = None) -> np.ndarray:
    """Every class's sensitive histogram counted cell by cell (classes by first appearance of q)."""
    classes = list(dict.fromkeys(frame["q"]))
    values = sorted(set(frame["s"]))
    out = np.zeros((len(classes), len(values)))
    for i, (q, s) in enumerate(zip(frame["q"], frame["s"], strict=True)):
        out[classes.index(q), values.index(s)] += 1 if weights is None else weights[i]
    return out


@pytest.mark.parametrize("weights", [None, np.array([1.0, 2.0, 1.0, 3.0, 1.0, 2.0])])
def test_released_stats_without_suppression_histogram_every_row(weights):
    """No row suppressed (dropping publishes every row): the histogram of every row at its own position, the
    one of the rows selected by a mask (catches: the codes of other rows, the weights dropped)."""
    frame = _frame()
    st, _, supp = verifier.released_stats(frame, ["q"], {"s": DomainSpec()}, weights=weights, marked=False)
    assert not supp.any()
    np.testing.assert_array_equal(st.hist["s"], _histogram(frame, weights))
    marked, _, supp_m = verifier.released_stats(frame.assign(q=frame["q"].replace("*", "c")), ["q"],
                                                {"s": DomainSpec()}, weights=weights, marked=True)
    assert not supp_m.any()
    np.testing.assert_array_equal(st.hist["s"], marked.hist["s"])
    # the mask path on a frame with one suppressed row: the released rows' histogram as counted cell by cell
    masked, _, supp_s = verifier.released_stats(frame, ["q"], {"s": DomainSpec()}, weights=weights, marked=True)
    assert supp_s.tolist() == [False, False, False, True, False, False]
    kept = frame["q"] != "*"
    np.testing.assert_array_equal(masked.hist["s"], _histogram(frame[kept], None if weights is None else weights[kept]))


def test_a_frame_numbered_from_zero_is_read_as_it_is(monkeypatch):
    """A frame whose index is 0…n−1 is not renumbered; any other index is, and both give the same figures
    (catches: a frame of another index read without a new one)."""
    frame = _frame()
    calls = []
    reset = pd.DataFrame.reset_index
    monkeypatch.setattr(pd.DataFrame, "reset_index", lambda self, *a, **k: (calls.append(1), reset(self, *a, **k))[1])
    st, cls, _ = verifier.released_stats(frame, ["q"], {"s": DomainSpec()}, marked=False)
    assert calls == []
    for index in (pd.RangeIndex(1, 7), pd.Index([5, 4, 3, 2, 1, 0]), pd.RangeIndex(6, name="i")):
        other, other_cls, _ = verifier.released_stats(frame.set_axis(index), ["q"], {"s": DomainSpec()}, marked=False)
        assert calls and other_cls.tolist() == cls.tolist()
        np.testing.assert_array_equal(other.hist["s"], st.hist["s"])
        calls.clear()


# ------------------------------------------------------------------ _class_sizes
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("k", [1, 3])
def test_class_sizes_with_and_without_suppression(shuffled, weighted, k):
    """Without suppression (k=1) and with it: the sizes Table.class_people counts, weighted or not, in its dtype
    (catches: the weights left out, suppressed records counted)."""
    frame, hierarchies = shuffled
    weights = np.random.default_rng(5).integers(1, 5, len(frame)) if weighted else None
    table = _table(frame, hierarchies, ["occupation"], weights=weights)
    release = release_at(table, [0, 0, 0, 1], k=k)
    assert (release.n_suppressed > 0) == (k > 1)
    got, want = release.class_sizes(), table.class_people(release.record_class, release.n_classes)
    assert got.dtype == want.dtype and got.tolist() == want.tolist()


# ------------------------------------------------------------------ to_frame's sensitive column
@pytest.mark.parametrize("text", [False, True])
def test_sensitive_column_keeps_its_dtype(shuffled, text):
    """The sensitive column published in the input's dtype: pandas' text as the taken array, object cells as a
    Series of objects (catches: an object column handed over as an array, which pandas infers as text)."""
    frame, hierarchies = shuffled
    frame = frame.astype("str") if text else frame.astype(object)
    table = _table(frame, hierarchies, ["occupation"])
    release = release_at(table, [1, 0, 0, 1])
    out = release.to_frame(seed=3)
    rows = release.published_rows(seed=3)
    column = table.frame["occupation"]
    assert out["occupation"].dtype == column.dtype
    assert out["occupation"].tolist() == column.to_numpy()[rows].tolist()
