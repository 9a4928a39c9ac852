"""Issue 30's cheaper paths after the algorithm, each held to the path it replaces.

* the verifier reads a pyarrow text column through Arrow's dictionary encoding
  (``_verify_rows.text_codes``): the same codes and texts as ``factorize_text``; it still catches a
  release built by hand that fails each model, beside a control that passes;
* a small release whose counted rows are most of its rows is measured as it is (``Release.counted``),
  every measure what the counted release gives;
* the measures count a one-level full-domain release per leaf (``metrics.arx.leaf_tally``): the
  entropy's sums, the published texts' changed cells and the summary's generalization equal the
  record-by-record path bit for bit.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import anonkit.metrics.distortion as distortion
import anonkit.release as release_module
import anonkit.runner.summary as summary
from anonkit._kernels import first_rows
from anonkit._values import factorize_text
from anonkit._verify_rows import text_codes
from anonkit.algorithms.lattice.fixed import fixed
from anonkit.metrics import compute_metrics
from anonkit.metrics.arx import seq_sum, transformation_levels
from anonkit.metrics.entropy import _entropy_sums, _log2
from anonkit.models import DistinctLDiversity, KAnonymity, TCloseness
from anonkit.release import measuring
from anonkit.table import Table
from anonkit.verifier import verify
from support import schema_of_test2

QIS = ["ZIPCode", "Age"]
CELLS = st.lists(st.sampled_from(["a", "b", "*", "", "ab", "é", None]), max_size=30)


@pytest.fixture(scope="module")
def schema(test2_hierarchies):
    return schema_of_test2(test2_hierarchies)


# ------------------------------------------------------------------ the verifier's column codes
@settings(max_examples=25, deadline=None)
@given(CELLS)
def test_text_codes_equal_factorize_text(cells):
    half = len(cells) // 2  # (and a column of two Arrow chunks)
    chunked = pd.concat([pd.Series(cells[:half], dtype="str"), pd.Series(cells[half:], dtype="str")], ignore_index=True)
    for column in (pd.Series(cells, dtype="str"), pd.Series(cells, dtype=object), chunked):
        codes, labels = text_codes(column, compact=True)
        want_codes, want_labels = factorize_text(column, compact=True)
        assert codes.tolist() == want_codes.tolist()
        assert labels.tolist() == want_labels.tolist()


def test_text_codes_takes_the_arrow_path_only_without_missing_cells():
    whole = pd.Series(["x", "y", "x"], dtype="str")
    assert text_codes(whole)[0].dtype == np.int64 and text_codes(whole)[1].tolist() == ["x", "y"]
    holed = pd.Series(["x", None, "x"], dtype="str")  # (the fallback: a missing cell is the text "")
    assert text_codes(holed)[1].tolist() == ["x", ""]


MODELS = [KAnonymity(3), DistinctLDiversity("Disease", 3), TCloseness("Salary", 1 / 6, "ordered")]


@pytest.fixture
def published(test2_frame, schema):
    """3 classes of 3, nothing suppressed, every text column as pandas' pyarrow text."""
    release = fixed(Table(test2_frame, schema), [KAnonymity(3)], levels={"ZIPCode": 1, "Age": 2})
    frame = release.to_frame()
    return frame.astype({c: "str" for c in frame.columns if c != "Salary"}), test2_frame


def test_verifier_passes_the_control_on_arrow_text(published, schema):
    frame, source = published
    assert isinstance(frame["ZIPCode"].dtype, pd.StringDtype)
    v = verify(frame, schema, MODELS, reference=source)
    assert v.ok and v.classes == 3 and [r.passed for r in v.results] == [True, True, True]
    # a mask that sets nothing aside reads the release as it is
    masked = verify(frame, schema, MODELS, reference=source, suppressed=np.zeros(len(frame), dtype=bool))
    assert masked == verify(frame, schema, MODELS, reference=source, suppressed="mark")


@pytest.mark.parametrize("model", range(len(MODELS)))
def test_verifier_catches_a_broken_arrow_release(published, schema, model):
    frame, source = published
    broken = frame.copy()
    if model == 0:  # one record moved to a class of its own: k = 3 fails
        broken.loc[0, "ZIPCode"] = "99999"
    elif model == 1:  # one class with a single disease: distinct 3-diversity fails
        cls = broken["ZIPCode"] == broken.loc[0, "ZIPCode"]
        broken.loc[cls, "Disease"] = broken.loc[0, "Disease"]
    else:  # one class whose every salary is the highest: t-closeness fails
        cls = broken["ZIPCode"] == broken.loc[0, "ZIPCode"]
        broken.loc[cls, "Salary"] = broken["Salary"].max()
    v = verify(broken.astype({c: "str" for c in ("ZIPCode", "Age", "Disease")}), schema, MODELS, reference=source)
    assert not v.ok and not v.results[model].passed


# ------------------------------------------------------------------ measures counted per leaf
def _old_entropy_sums(table, release):
    """The one-level sums as the record-by-record path counted them (every record's key its leaf
    shifted to the transformation's level)."""
    t = transformation_levels(table, release)
    out = []
    for j, h in enumerate(table.hierarchies):
        codes = table.codes[:, j].astype(np.int64)
        nl = h.n_leaves
        a = np.bincount(codes, weights=table.weights, minlength=nl).astype(np.float64)
        node_counts = [np.bincount(h.maps[level], weights=a, minlength=h.size(level)) for level in range(h.height + 1)]
        offsets = np.concatenate([[0], np.cumsum([len(c) for c in node_counts])])
        flat = np.concatenate(node_counts).astype(np.float64)
        size = (h.height + 1) * nl
        key = codes + int(t[j]) * nl
        every = np.bincount(key, weights=table.weights, minlength=size).astype(np.float64)
        first = first_rows(key, size)
        present = np.flatnonzero(first >= 0)
        pairs = present[np.argsort(first[present], kind="stable")]
        lev, leaf = np.divmod(pairs, nl)
        out.append(seq_sum(every[pairs] * _log2(a[leaf] / flat[offsets[lev] + h.maps[lev, leaf]])))
    return out


def _record_path(monkeypatch):
    # (the summary reads the leaves' published texts through distortion.published_figures, which calls this)
    monkeypatch.setattr(distortion, "leaf_published_text", lambda *a: None)


@settings(max_examples=15, deadline=None)
@given(zip_level=st.integers(0, 5), age_level=st.integers(0, 4), k=st.sampled_from([1, 2, 3, 4]))
def test_leaf_counts_equal_record_counts(test2_frame, schema, zip_level, age_level, k):
    table = Table(test2_frame, schema)
    h = dict(zip(table.qi, table.hierarchies, strict=True))
    levels = {"ZIPCode": min(zip_level, h["ZIPCode"].height), "Age": min(age_level, h["Age"].height)}
    release = fixed(table, [KAnonymity(k)], levels=levels, max_suppression=1.0)
    with measuring():
        sums = _entropy_sums(table, release, transformation_levels(table, release))
        texts = [distortion.published_texts(table, release, j) for j in range(len(table.qi))]
        general = summary.generalization(table, release)
    assert sums == _old_entropy_sums(table, release)
    with pytest.MonkeyPatch.context() as mp:
        _record_path(mp)
        with measuring():
            old_texts = [distortion.published_texts(table, release, j) for j in range(len(table.qi))]
            old_general = summary.generalization(table, release)
    assert [(t[0].tolist(), t[1].tolist(), t[2]) for t in texts] == \
        [(t[0].tolist(), t[1].tolist(), t[2]) for t in old_texts]
    assert general == old_general


def test_leaf_path_is_taken_only_for_one_level_releases(test2_frame, schema):
    table = Table(test2_frame, schema)
    for release in (fixed(table, [KAnonymity(3)], levels={"ZIPCode": 1, "Age": 2}),
                    fixed(table, [KAnonymity(2)], levels={"ZIPCode": 1, "Age": 1}, max_suppression=1.0)):
        text_id = distortion.published_texts(table, release, 0)[0]
        assert release.n_classes > 0
        assert distortion.leaf_published_text(table, release, 0, text_id) is not None
    assert release.n_suppressed > 0
    mixed = dataclasses.replace(release, transformation=None)  # (not full-domain: read record by record)
    assert distortion.leaf_published_text(table, mixed, 0, text_id) is None


@dataclasses.dataclass
class _Untruthful(release_module.Release):
    truthful = False


def test_a_release_that_is_not_truthful_is_read_record_by_record(test2_frame, schema):
    """A perturbative or synthetic release's classes are its published values', not its records' leaves'
    ancestors (``Release.truthful`` False): its measures never take the leaf path, and give what the
    record path gives, on a release whose classes mix leaves the transformation would keep apart."""
    table = Table(test2_frame, schema)
    release = fixed(table, [KAnonymity(2)], levels={"ZIPCode": 1, "Age": 1}, max_suppression=1.0)
    assert distortion.leaf_published_text(table, release, 0, distortion.published_texts(table, release, 0)[0]) \
        is not None  # the control: a truthful full-domain release takes the leaf path
    shuffled = release.record_class.copy()
    kept = np.flatnonzero(shuffled >= 0)
    shuffled[kept] = np.roll(shuffled[kept], 1)  # records moved into classes of other values, as perturbation does
    fields = {f.name: getattr(release, f.name) for f in dataclasses.fields(release_module.Release)}
    fake = _Untruthful(**{**fields, "record_class": shuffled})
    with measuring():
        text_id = distortion.published_texts(table, fake, 0)[0]
        assert distortion.leaf_published_text(table, fake, 0, text_id) is None
        got = summary.generalization(table, fake)
    with measuring():
        want = summary.generalization(table, dataclasses.replace(fake, transformation=None))
    drop = {"level"}  # (the level is the transformation's, which the record path's stand-in lacks)
    assert {q: {k: v for k, v in g.items() if k not in drop} for q, g in got.items()} == \
        {q: {k: v for k, v in g.items() if k not in drop} for q, g in want.items()}


# ------------------------------------------------------------------ measured as it is, or counted
def test_small_release_whose_counted_rows_are_most_of_its_rows_is_measured_as_it_is(test2_frame, schema,
                                                                                     monkeypatch):
    """Nine quasi-identifier tuples over 36 records (at most half: the first rule counts them), but 27
    distinct (class, tuple, sensitive) rows: measured as it is, every measure what the counted release
    gives, to the last bit."""
    salary = test2_frame["Salary"].astype(int)
    copies = [test2_frame.assign(Salary=(salary + shift).astype(str)) for shift in (0, 0, 1, 2)]
    table = Table(pd.concat(copies, ignore_index=True), schema)
    assert 2 * table.distinct.size <= table.n
    release = fixed(table, [KAnonymity(2)], levels={"ZIPCode": 1, "Age": 1})
    assert release.counted() is release
    monkeypatch.setattr(release_module, "MEASURE_ROWS_UP_TO", 0)  # the path it replaces: count them
    counted = release.counted()
    assert counted is not release and counted.table.n == 27
    a, b = compute_metrics(table, release), compute_metrics(counted.table, counted)
    assert {k: v for k, v in a.items() if v == v} == {k: v for k, v in b.items() if v == v}
    assert [k for k, v in a.items() if v != v] == [k for k, v in b.items() if v != v]
    with measuring():
        want = summary.generalization(counted.table, counted)
    with measuring():
        assert summary.generalization(table, release) == want


def test_release_counted_where_its_counted_rows_are_few(test2_frame, schema):
    """The control: four identical copies (9 counted rows of 36) are counted."""
    table = Table(pd.concat([test2_frame] * 4, ignore_index=True), schema)
    release = fixed(table, [KAnonymity(2)], levels={"ZIPCode": 1, "Age": 1})
    counted = release.counted()
    assert counted is not release and counted.table.n == 9


# ------------------------------------------------------------------ one release encoded once per audit
def _arrow_frame(values):
    text = "string[pyarrow]"
    return pd.DataFrame({"a": pd.array(values, dtype=text), "b": pd.array(values[::-1], dtype=text)})


def test_an_audits_two_recounts_encode_each_column_once(monkeypatch):
    """Inside ``same_release_codes`` a column read again through a frame over the same memory (the audit
    re-indexes the release) is encoded once, each read gets its own copy, and a column over other memory
    with the same values is encoded on its own; outside the block every read encodes."""
    import anonkit._verify_rows as rows_module

    calls = []
    real = rows_module._arrow_codes
    monkeypatch.setattr(rows_module, "_arrow_codes", lambda arrow, pc: calls.append(1) or real(arrow, pc))
    frame = _arrow_frame(["x", "y", None, "x", ""])
    again = frame.reset_index(drop=True)  # other Series and arrays, the same buffers
    other = _arrow_frame(["x", "y", None, "x", ""])  # the same values in other memory
    want = factorize_text(frame["a"])
    with rows_module.same_release_codes():
        first = text_codes(frame["a"])
        first[0][:] = 99  # a reader's copy: changing it changes nothing shared
        second = text_codes(again["a"])
        third = text_codes(other["a"])
        text_codes(frame["b"])
    assert len(calls) == 3  # a, other's a, b: the re-indexed a was not encoded again
    for got in (second, third):
        assert np.array_equal(got[0], want[0]) and list(got[1]) == list(want[1])
    calls.clear()
    text_codes(frame["a"]), text_codes(again["a"])
    assert len(calls) == 2  # the control: outside the block each read encodes


def test_a_slice_of_a_column_is_not_read_as_the_column():
    """A slice shares the column's buffers but not its offset and length: it gets its own codes."""
    import anonkit._verify_rows as rows_module

    frame = _arrow_frame(["x", "y", "z", "x", "y", "w"])
    part = frame.iloc[2:].reset_index(drop=True)
    with rows_module.same_release_codes():
        whole = text_codes(frame["a"])
        sliced = text_codes(part["a"])
    want = factorize_text(part["a"])
    assert len(whole[0]) == 6 and np.array_equal(sliced[0], want[0]) and list(sliced[1]) == list(want[1])


# ------------------------------------------------------------------ one grouping of a release per audit
def _counting_groupings(monkeypatch):
    """Count the groupings ``group_rows`` makes (the calls to its kernel)."""
    import anonkit._verify_rows as rows_module

    calls = []
    real = rows_module.group_columns
    monkeypatch.setattr(rows_module, "group_columns", lambda cols, sizes: calls.append(len(cols)) or real(cols, sizes))
    return calls


def test_a_release_is_grouped_once_per_block(monkeypatch):
    """Inside ``same_release_codes`` the same columns over the same memory (a re-indexed frame) are grouped
    once, every read gets the one array of classes, which refuses a write; other columns, another part of
    the memory (a slice) and the control outside the block are grouped on their own (writable arrays).
    Caught mutations: no memo (4 groupings), a key without the columns' offsets (the slice takes the whole
    column's classes), a shared array left writable."""
    import anonkit._verify_rows as rows_module

    calls = _counting_groupings(monkeypatch)
    frame = _arrow_frame(["x", "y", None, "x", "", "y"])
    again = frame.reset_index(drop=True)
    part = frame.iloc[1:].reset_index(drop=True)
    want = rows_module.group_rows(frame, ["a", "b"])
    calls.clear()
    with rows_module.same_release_codes():
        first = rows_module.group_rows(frame, ["a", "b"])
        with pytest.raises(ValueError):
            first[0][:] = 99  # the block's one array: no reader changes what the others read
        second = rows_module.group_rows(again, ["a", "b"])
        assert second[0] is first[0]
        sliced = rows_module.group_rows(part, ["a", "b"])
        alone = rows_module.group_rows(frame, ["a"])
    assert calls == [2, 2, 1]  # frame's a+b once, the slice's, a alone
    assert np.array_equal(second[0], want[0]) and second[1] == want[1]
    assert np.array_equal(sliced[0], rows_module.group_rows(part, ["a", "b"])[0]) and len(sliced[0]) == 5
    assert alone[1] == 3  # x, y and "" (a missing cell's text)
    calls.clear()
    outside = rows_module.group_rows(frame, ["a", "b"]), rows_module.group_rows(again, ["a", "b"])
    assert calls == [2, 2]  # the control: outside the block each read groups, into an array of its own
    outside[0][0][:] = 0


def test_shared_codes_are_read_only_and_text_codes_a_readers_own():
    """``read_codes`` hands out the block's arrays themselves, which refuse a write; ``text_codes`` a copy a
    reader may change; outside a block both encode afresh (writable)."""
    import anonkit._verify_rows as rows_module

    frame = _arrow_frame(["x", "y", "x"])
    with rows_module.same_release_codes():
        codes, labels = rows_module.read_codes(frame["a"])
        with pytest.raises(ValueError):
            codes[0] = 5
        mine = text_codes(frame["a"])
        mine[0][0] = 5
        assert rows_module.read_codes(frame["a"])[0][0] == 0 and rows_module.read_codes(frame["a"])[0] is codes
    outside = rows_module.read_codes(frame["a"])[0]
    outside[0] = 7  # (a fresh array, the reader's)
    assert list(labels) == ["x", "y"]


@settings(max_examples=15, deadline=None)
@given(cells=st.lists(st.sampled_from(["x", "y", "*", "", None]), min_size=1, max_size=30))
def test_the_audits_star_check_reads_the_shared_codes_as_the_cells(cells):
    """The ``*`` check on a pyarrow text column (the audit's codes) marks exactly the cells ``== "*"`` (a
    missing cell is not ``*``), inside a block and outside. Caught mutation: ``labels == ""``."""
    import anonkit._verify_rows as rows_module
    from anonkit.audit.run import _stars

    column = pd.Series(pd.array(cells, dtype="string[pyarrow]"))
    want = np.array([c == "*" for c in cells], dtype=bool)
    assert np.array_equal(_stars(column), want)
    with rows_module.same_release_codes():
        assert np.array_equal(_stars(column), want)
    assert np.array_equal(_stars(column.astype(object)), want)  # the object path, the twin


def test_the_verifiers_reference_is_read_from_the_jobs_store(test2_frame, schema, monkeypatch):
    """Inside ``input_codes`` (a job's ``lasting_reading``) the verifier reads the input's sensitive column
    from the codes the audit kept (``kept_codes``) instead of encoding it again, with the same verdict; a
    reference the job did not keep is encoded (and not added). Caught mutations: ``reference_codes`` without
    the store (one more encoding), storing what it reads (the release's column is kept)."""
    import anonkit._verify_rows as rows_module

    calls = []
    real = rows_module._arrow_codes
    monkeypatch.setattr(rows_module, "_arrow_codes", lambda arrow, pc: calls.append(1) or real(arrow, pc))
    frame = test2_frame.astype("string[pyarrow]")
    release = fixed(Table(frame, schema), [KAnonymity(2)], levels={"ZIPCode": 1, "Age": 1}).to_frame()
    release = release.astype("string[pyarrow]")
    models = [TCloseness("Disease", 0.9), DistinctLDiversity("Disease", 1)]
    calls.clear()
    want = verify(release, schema, models, reference={"Disease": frame["Disease"]})
    assert len(calls) == 5  # ZIPCode (no '*': the suppressed check stops), ZIPCode and Age, Disease, the reference
    with rows_module.input_codes():
        rows_module.kept_codes(frame["Disease"])  # the audit's reading of the input, kept for the job
        calls.clear()
        got = verify(release, schema, models, reference={"Disease": frame["Disease"]})
        assert got == want
        assert len(calls) == 3  # the release's columns only (ZIPCode once in a job's block), not the reference
        calls.clear()
        verify(release, schema, models, reference={"Disease": release["Disease"]})
        verify(release, schema, models, reference={"Disease": release["Disease"]})
        assert len(calls) == 2 * 3  # a reference the job did not keep: encoded each time, never kept


def test_a_reruns_verification_hands_its_release_on_to_its_audit(test2_frame, schema, monkeypatch):
    """Inside a job's block (``input_codes``: the advice's reruns, the fixes' trials) the codes and classes
    ``verify`` makes of a release go to the job's one slot, which the next audit block takes once: the
    audit reads them instead of encoding the release again. A later verification replaces the slot; the
    audit that takes it empties it; outside a job's block nothing is handed on; the verdicts are alike.
    Caught mutations: no slot (the audit encodes again), the slot not emptied by its audit."""
    import anonkit._verify_rows as rows_module

    calls = []
    real = rows_module._arrow_codes
    monkeypatch.setattr(rows_module, "_arrow_codes", lambda arrow, pc: calls.append(1) or real(arrow, pc))
    frame = test2_frame.astype("string[pyarrow]")
    table = Table(frame, schema)
    release = fixed(table, [KAnonymity(2)], levels={"ZIPCode": 1, "Age": 1}).to_frame().astype("string[pyarrow]")
    other = fixed(table, [KAnonymity(2)], levels={"ZIPCode": 2, "Age": 1}).to_frame().astype("string[pyarrow]")
    models = [DistinctLDiversity("Disease", 1)]

    def audit_reads(frame):  # what an audit reads of the release: its classes and a sensitive column
        calls.clear()
        with rows_module.same_release_codes():
            rows_module.group_rows(frame, QIS)
            rows_module.read_codes(frame["Disease"])
        return len(calls)

    want = verify(release, schema, models)
    with rows_module.input_codes():
        assert verify(release, schema, models) == want
        assert audit_reads(release) == 0  # handed on
        assert audit_reads(release) == 3  # taken once: the next audit encodes (ZIPCode, Age, Disease)
        verify(release, schema, models), verify(other, schema, models)
        assert audit_reads(release) == 3  # the slot holds the last verified release only
    verify(release, schema, models)
    assert audit_reads(release) == 3  # the control: outside a job's block nothing is kept
