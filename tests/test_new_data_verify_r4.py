"""Issue 30, session 12 round 4: verifying a release of *new data* (nothing kept across calls hits), each
cheaper path held to the one it replaces.

* ``Table.encoded_cells`` keeps a pyarrow text sensitive column's pyarrow array with its codes; the verifier's
  reference (``input_codes_of``) takes them only for a column over that very memory without a missing cell.
* ``taken_column`` keeps the input's codes at the published rows for a pyarrow text column taken from that memory;
  the verifier reads them (relabelled by first appearance) instead of encoding the published column again.
* ``stats.build_domain``: the places of the distinct values by a dict (small, exact ``str``) and the reference's
  counts over its distinct values, the same domain, codes and floats as pandas' indexer and a count per row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import anonkit._verify_rows as rows_module
from anonkit import anonymize, stats
from anonkit._arrow_memory import arrow_text, memory_key, relabelled
from anonkit._verify_rows import _published, input_codes_of, published_codes, taken_column
from anonkit.models import DistinctLDiversity, KAnonymity, TCloseness
from anonkit.table import Table
from support import schema_of_test2


@pytest.fixture(scope="module")
def schema(test2_hierarchies):
    return schema_of_test2(test2_hierarchies)


def _cells_codes(column) -> tuple[list, list]:
    """The codes and texts the verifier reads from a pyarrow text column's cells (nothing kept)."""
    codes, texts = rows_module._arrow_codes(arrow_text(column), pc)
    return codes.tolist(), texts.tolist()


def _str_table(frame: pd.DataFrame, schema) -> Table:
    return Table(frame.astype(object).astype("str"), schema)


# ------------------------------------------------------------------ the input's pyarrow column: the encoding's codes
def test_the_encoding_keeps_a_pyarrow_column_and_the_reference_takes_it(test2_frame, schema, monkeypatch):
    """Catches: ``Table.encoded_cells`` not keeping pyarrow columns (the cells are encoded again)."""
    table = _str_table(test2_frame, schema)
    assert "Disease" in table.encoded_cells
    encoded = []
    real = rows_module._arrow_codes
    monkeypatch.setattr(rows_module, "_arrow_codes", lambda arrow, p: encoded.append(len(arrow)) or real(arrow, p))
    coded = input_codes_of(table, "Disease")
    assert encoded == []
    assert (coded.codes.tolist(), coded.texts.tolist()) == _cells_codes(table.frame["Disease"])
    assert coded.arrow is not None and memory_key(coded.arrow) == memory_key(arrow_text(table.frame["Disease"]))


def test_a_column_over_other_memory_or_with_a_missing_cell_is_read(test2_frame, schema):
    """Catches: dropping the memory check in ``_encoding_of`` (another column of as many rows, other texts, would
    get the encoding's codes), or its missing-cell check."""
    table = _str_table(test2_frame, schema)
    column = table.frame["Disease"]
    assert rows_module._encoding_of(table, "Disease", column) is not None
    other = pd.Series(column.to_numpy()[::-1].copy(), name="Disease", dtype="str")  # other order, other memory
    assert rows_module._encoding_of(table, "Disease", other) is None
    got = rows_module.coded_column(other, rows_module._encoding_of(table, "Disease", other))
    assert (got.codes.tolist(), got.texts.tolist()) == _cells_codes(other)
    part = column.iloc[1:]  # a slice of the same buffers: another offset and length
    assert rows_module._encoding_of(table, "Disease", part) is None
    table.encoded_cells["Disease"] = (arrow_text(pd.Series([None, *column.tolist()[1:]], dtype="str")),
                                      *table.encoded_cells["Disease"][1:])
    missing = pd.Series(table.encoded_cells["Disease"][0], dtype="str")
    assert rows_module._encoding_of(table, "Disease", missing) is None


# ------------------------------------------------------------------ the published take of a pyarrow column
def _taken_codes(column: pd.Series, rows: np.ndarray, coded) -> tuple[object, tuple | None]:
    with published_codes():
        taken = taken_column(column, rows, lambda: coded)
        kept = _published(arrow_text(taken))
        return taken, None if kept is None else (kept[0].tolist(), kept[1].tolist())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "ab", "", "é", "*"]), min_size=1, max_size=12), st.data())
def test_the_taken_columns_codes_are_its_cells(texts, data):
    """Any texts, any rows (repeated, any order): the kept codes are Arrow's encoding of the published column.
    Catches: the codes not relabelled by first appearance in the published column (or relabelled wrongly)."""
    column = pd.Series(texts, dtype="str", name="s")
    rows = np.array(data.draw(st.lists(st.integers(0, len(texts) - 1), min_size=1, max_size=15)), dtype=np.int64)
    coded = rows_module.coded_column(column)
    taken, kept = _taken_codes(column, rows, coded)
    assert kept is not None and kept == _cells_codes(taken)
    assert taken.tolist() == column.array.take(rows).tolist()


def test_a_take_of_other_memory_keeps_nothing():
    """Catches: dropping the memory check in ``_taken_arrow`` (codes of another column of as many rows taken)."""
    column = pd.Series(["x", "y", "z", "x"], dtype="str", name="s")
    other = pd.Series(["y", "y", "x", "z"], dtype="str", name="s")
    rows = np.array([3, 1, 0, 2])
    _, kept = _taken_codes(column, rows, rows_module.coded_column(other))
    assert kept is None
    missing = pd.Series(["x", None, "z", "x"], dtype="str", name="s")
    assert rows_module.coded_column(missing).arrow is None
    _, kept = _taken_codes(missing, rows, rows_module.coded_column(missing))
    assert kept is None


def test_the_verifier_reads_a_new_str_frame_without_encoding_its_sensitive_column(test2_frame, schema, monkeypatch):
    """A call on pyarrow text columns: the sensitive column's codes, input and published, are never encoded again
    (the verifier's verdict the same as a verification from the cells). Catches: ``_published`` not looking up
    the taken column (one encoding of the published column)."""
    frame = test2_frame.astype(object).astype("str")
    models = [KAnonymity(3), DistinctLDiversity("Disease", 2), TCloseness("Disease", 0.6, "equal")]
    encoded = []
    real = rows_module._arrow_codes
    monkeypatch.setattr(rows_module, "_arrow_codes",
                        lambda arrow, p: encoded.append(arrow.to_pylist()) or real(arrow, p))
    result = anonymize(frame, schema, models, algorithm="flash")
    disease = result.frame["Disease"].tolist()
    assert sorted(disease) == sorted(frame["Disease"].tolist())
    assert all(sorted(e) != sorted(disease) for e in encoded)  # (neither the input's nor the published column)
    monkeypatch.setattr(rows_module, "_arrow_codes", real)
    from anonkit.verifier import verify

    again = verify(result.frame, schema, models, reference=frame, suppressed="drop")
    assert again.ok == result.verification.ok and again.summary() == result.verification.summary()


def test_relabelled_numbers_by_first_appearance():
    codes, texts = relabelled(np.array([2, 0, 2, 1, 0]), np.array(["a", "b", "c"], dtype=object))
    assert codes.tolist() == [0, 1, 0, 2, 1] and texts.tolist() == ["c", "a", "b"]
    codes, texts = relabelled(np.array([1, 1]), np.array(["a", "b", "c"], dtype=object))
    assert codes.tolist() == [0, 0] and texts.tolist() == ["b"]


# ------------------------------------------------------------------ build_domain's places and counts
def _old_build(labels, uniq, ref_codes0, weights, tcoded):
    """What build_domain computed before: pandas' indexer, a count per row."""
    index = pd.Index(labels, dtype=object)
    ref_codes = index.get_indexer(pd.Index(uniq, dtype=object))[ref_codes0]
    counts = np.bincount(ref_codes, weights=weights, minlength=len(labels)).astype(np.float64)
    if tcoded is None:
        codes = ref_codes
    else:
        codes = index.get_indexer(pd.Index(np.asarray(tcoded[1], dtype=object), dtype=object))[tcoded[0]]
    return counts, codes


@settings(max_examples=120, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "ab", "", "é", "*", "10", "9"]), min_size=1, max_size=30),
       st.lists(st.sampled_from(["a", "b", "ab", "", "é", "*", "10", "9"]), min_size=1, max_size=30),
       st.booleans(), st.booleans())
def test_build_domain_is_the_indexer_and_row_counts(ref, text, weighted, numeric):
    """Catches: a wrong place from the dict (``_positions``), counts placed wrongly or summed in another order
    (``_distinct_counts``), codes of the published values taken from the reference's places."""
    rc, ru = pd.factorize(np.array(ref, dtype=object))
    tc, tu = pd.factorize(np.array(text, dtype=object))
    w = np.linspace(0.1, 3.3, len(ref)) if weighted else None
    in_domain = set(text) <= set(ref)
    if numeric and not all(v.isdigit() for v in ref):
        numeric = False
    try:
        dom, codes = stats.build_domain("s", None, coded=(tc, np.asarray(tu, dtype=object)),
                                        reference_coded=(rc, np.asarray(ru, dtype=object)),
                                        reference_weights=w, numeric=numeric)
    except Exception as exc:  # a published value outside the reference: refused, at its first row
        assert not in_domain and "not in the reference" in str(exc)
        return
    assert in_domain
    counts, old = _old_build(dom.labels, np.asarray(ru, dtype=object), rc, w, (tc, tu))
    assert codes.dtype == np.int32 and codes.tolist() == old.tolist()
    assert (dom.reference == counts / counts.sum()).all()
    alone, acodes = stats.build_domain("s", None, coded=(rc, np.asarray(ru, dtype=object)), reference_weights=w,
                                       numeric=numeric)
    counts, old = _old_build(alone.labels, np.asarray(ru, dtype=object), rc, w, None)
    assert acodes.dtype == np.int32 and acodes.tolist() == old.tolist()
    assert (alone.reference == counts / counts.sum()).all() and alone.labels.tolist() == dom.labels.tolist()


def test_positions_are_pandas_indexer():
    """Catches: an absent value not given −1, repeated labels not refused as pandas refuses them, non-``str``
    values put through the dict."""
    labels = np.array(["a", "b", "c"], dtype=object)
    want = pd.Index(labels, dtype=object).get_indexer(pd.Index(np.array(["c", "z", "a"], dtype=object)))
    got = stats._positions(labels, np.array(["c", "z", "a"], dtype=object))
    assert got.dtype == want.dtype and got.tolist() == want.tolist() == [2, -1, 0]
    with pytest.raises(Exception) as pandas_error:
        pd.Index(np.array(["a", "a"], dtype=object)).get_indexer(pd.Index(["a"], dtype=object))
    with pytest.raises(type(pandas_error.value)):
        stats._positions(np.array(["a", "a"], dtype=object), np.array(["a"], dtype=object))
    mixed = np.array([1, 1.0, True, np.nan], dtype=object)
    assert stats._positions(np.array([1, np.nan], dtype=object), mixed).tolist() == \
        pd.Index(np.array([1, np.nan], dtype=object)).get_indexer(pd.Index(mixed, dtype=object)).tolist()


def test_distinct_counts_refuse_what_the_row_count_reads_otherwise():
    """Catches: dropping the one-to-one check, the code range checks (a negative code, one past the values)."""
    codes = np.array([0, 1, 1, 0])
    assert stats._distinct_counts(np.array([1, 0]), codes, None, 2).tolist() == [2.0, 2.0]
    assert stats._distinct_counts(np.array([0, 0]), codes, None, 2) is None  # two values at one place
    assert stats._distinct_counts(np.array([0, -1]), codes, None, 2) is None  # a value outside the domain
    assert stats._distinct_counts(np.array([1, 0]), np.array([0, -1]), None, 2) is None  # pandas' −1 wraps
    assert stats._distinct_counts(np.array([1, 0]), np.array([0, 2]), None, 2) is None  # out of range: raises
    assert stats._distinct_counts(np.array([1, 0]), codes, np.ones(3), 2) is None  # weights of another length
    w = np.array([0.1, 0.2, 0.7, 1e-17])
    got = stats._distinct_counts(np.array([1, 0]), codes, w, 2)
    assert got.tolist() == np.bincount(np.array([1, 0])[codes], weights=w, minlength=2).tolist()
