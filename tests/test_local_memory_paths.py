"""Issue 30 item 2: the leaner paths of the local release (``algorithms/local.py``) and of Anatomy
(``algorithms/bucket/anatomy.py``) give exactly what the paths they replace gave — the class
renumbering, the class statistics, the ST's cells, the published frames — and MDAV's tree of bounds
(``_mdav_index``) forms the record-by-record reference's groups with exactly one numeric QI too
(``mdav`` still routes that case through the combinations: on Adult ×100 distinct the tree is no
faster, 437 against 430 CPU-s, and holds 2.4× the memory, issue 30)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit import Schema, Table, load_adult
from anonkit.algorithms import local
from anonkit.algorithms.bucket import anatomy as anatomy_module
from anonkit.algorithms.bucket.anatomy import _cells, _frame, anatomy
from anonkit.algorithms.cluster._mdav_index import mdav_groups_index
from anonkit.algorithms.cluster.mdav import _Space, mdav_groups
from anonkit.algorithms.local import _first_appearance, class_dtypes, partition_release, record_stats
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy, class_lca
from anonkit.io import read_table, write_table
from anonkit.models import DistinctLDiversity, KAnonymity
from anonkit.stats import class_stats
from mdav_tables import random_table

SLOW = [HealthCheck.too_slow]


@pytest.fixture(scope="module")
def adult_table() -> Table:
    """4,000 Adult records: three QIs (age numeric), occupation sensitive."""
    frame, hier = load_adult()
    qi = ["age", "sex", "education"]
    return Table(frame.iloc[:4000][[*qi, "occupation"]].reset_index(drop=True),
                 Schema.of(quasi=qi, sensitive=["occupation"], hierarchies={q: hier[q] for q in qi if q != "age"},
                           types={"age": "numeric"}))


# ------------------------------------------------------------------------------ the class renumbering
def _renumbered_by_sorting(record_class: np.ndarray, presuppressed: np.ndarray) -> tuple[np.ndarray, int]:
    """The renumbering ``partition_release`` did before: ``np.unique`` with first indices."""
    rc = np.asarray(record_class, dtype=np.int64).copy()
    rc[presuppressed] = -1
    kept = rc >= 0
    uniq, first = np.unique(rc[kept], return_index=True)
    order = uniq[np.argsort(first, kind="stable")]
    remap = np.full(int(rc.max()) + 1 if kept.any() else 1, -1, dtype=np.int64)
    remap[order] = np.arange(len(order))
    return np.where(kept, remap[np.maximum(rc, 0)], -1), len(order)


@settings(max_examples=25, deadline=None)
@given(classes=st.lists(st.integers(-1, 12), max_size=60), mask=st.lists(st.booleans(), min_size=60, max_size=60))
def test_first_appearance_equals_the_sorting_renumbering(classes: list[int], mask: list[bool]) -> None:
    rc = np.array(classes, dtype=np.int64)
    pre = np.array(mask[: len(classes)], dtype=bool)
    before = rc.copy()
    got, n = _first_appearance(rc, pre)
    want, m = _renumbered_by_sorting(rc, pre)
    assert n == m and got.tolist() == want.tolist() and got.dtype == np.int64
    assert rc.tolist() == before.tolist()  # the caller's array is left alone


# ------------------------------------------------------------------------------ the class statistics
@pytest.mark.parametrize("n_classes", [3, 2000], ids=["narrow", "wide"])
def test_record_stats_equal_the_plain_histogram(adult_table: Table, n_classes: int) -> None:
    """Wide histograms (more cells than records) are counted with unit weights, narrow ones as before:
    the same float64 counts either way, also with records outside every class."""
    rng = np.random.default_rng(1)
    rc = rng.integers(-1, n_classes, adult_table.n)
    got = record_stats(adult_table, rc, n_classes, [DistinctLDiversity("occupation", 2)])
    keep = np.flatnonzero(rc >= 0)
    plain = class_stats(rc[keep], n_classes, None,
                        {"occupation": (None, adult_table.sensitive_codes["occupation"][keep], None)},
                        adult_table.domains)
    assert got.hist["occupation"].dtype == np.float64
    assert np.array_equal(got.hist["occupation"], plain.hist["occupation"].astype(np.float64))
    assert np.array_equal(got.sizes, plain.sizes)


# ------------------------------------------------------------------------------ the release's keys
def test_keys_only_where_merging_or_subset_models_read_them(adult_table: Table, monkeypatch) -> None:
    calls = []
    real = local._class_keys
    monkeypatch.setattr(local, "_class_keys", lambda *a: calls.append(1) or real(*a))
    rc = np.arange(adult_table.n) // 4
    partition_release(adult_table, rc, [KAnonymity(2)], algorithm="t", merge_identical=False)
    assert calls == []
    partition_release(adult_table, rc, [KAnonymity(2)], algorithm="t")  # control: merging reads them
    assert len(calls) == len(adult_table.qi)
    calls.clear()
    partition_release(adult_table, rc, [KAnonymity(2, attributes=("sex",))], algorithm="t", merge_identical=False)
    assert len(calls) == len(adult_table.qi)  # a subset model reads them too


def test_failed_records_and_suppression_unchanged(adult_table: Table) -> None:
    """Classes failing a model are suppressed and counted; with every class passing nothing is."""
    rc = np.arange(adult_table.n) // 3
    rc[:10] = 10_000  # one class of ten records
    rel = partition_release(adult_table, rc, [KAnonymity(4)], algorithm="t", merge_identical=False,
                            max_suppression=1.0)
    assert rel.failed_records == adult_table.n - 10  # every class but the one of ten has fewer than 4
    assert rel.n_classes == 1 and int((rel.record_class >= 0).sum()) == 10
    ok = partition_release(adult_table, rc, [KAnonymity(1)], algorithm="t", merge_identical=False)
    assert ok.failed_records == 0 and int((ok.record_class < 0).sum()) == 0


# ------------------------------------------------------------------------------ Anatomy's ST and frames
@settings(max_examples=25, deadline=None)
@given(groups=st.lists(st.integers(0, 30), max_size=80), m=st.integers(1, 9), seed=st.integers(0, 10**6))
def test_cells_equal_numpy_unique(groups: list[int], m: int, seed: int) -> None:
    g = np.array(groups, dtype=np.int64)
    codes = np.random.default_rng(seed).integers(0, m, len(g)).astype(np.int32)
    cells, counts = _cells(g, codes, m)
    want, want_counts = np.unique(g * m + codes, return_counts=True)
    assert cells.tolist() == want.tolist() and counts.tolist() == want_counts.tolist()


def test_frame_equals_the_dict_built_frame_without_a_stacked_copy() -> None:
    n = 200_000
    rng = np.random.default_rng(0)
    words = np.array(["alpha", "beta", "gamma"], dtype=object)
    columns = {f"c{i}": pd.Series(words[rng.integers(0, 3, n)], dtype=object) for i in range(6)}
    columns["GroupID"] = rng.integers(1, 9, n)
    built = _frame(n, columns)
    pd.testing.assert_frame_equal(built, pd.DataFrame(columns))
    assert list(built.dtypes) == [np.dtype(object)] * 6 + [np.dtype(np.int64)]
    # the columns become the frame's blocks: building it allocates far less than a second copy of them
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    _frame(n, columns)
    peak = tracemalloc.get_traced_memory()[1] - base
    stacked_base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    pd.DataFrame(columns)  # control: the dict-built frame stacks the object columns into one block
    stacked = tracemalloc.get_traced_memory()[1] - stacked_base
    tracemalloc.stop()
    assert stacked >= 6 * n * 8 and peak < stacked / 2


def test_anatomy_tables_keep_their_dtypes(adult_table: Table) -> None:
    """The QIT's text columns are Categoricals with object categories (their dense dtype: object)."""
    rel = anatomy(adult_table, [DistinctLDiversity("occupation", 3)], seed=3)
    qit, st_ = rel.tables["qit"], rel.tables["st"]
    assert [str(t) for t in qit.dtypes] == ["category", "category", "category", "int64"]
    assert all(qit[c].cat.categories.dtype == object for c in ("age", "sex", "education"))
    assert [str(t) for t in st_.dtypes] == ["int64", "object", "int64"]
    assert isinstance(qit.index, pd.RangeIndex) and isinstance(st_.index, pd.RangeIndex)
    sizes = np.bincount(rel.record_class[rel.record_class >= 0])
    assert rel.notes["max_confidence"] == pytest.approx(float((st_["Count"] / sizes[st_["GroupID"] - 1]).max()))
    assert anatomy_module.GROUP_ID in qit.columns


# ------------------------------------------------------------------------------ MDAV, one numeric QI
@settings(max_examples=15, deadline=None, suppress_health_check=SLOW)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 80), k=st.integers(1, 6), categorical=st.booleans(),
       levels=st.sampled_from([1, 2, 3, 1000]), missing=st.booleans(), leaf=st.sampled_from([1, 2, 3]),
       fan=st.sampled_from([2, 3]))
def test_index_with_one_numeric_qi_equals_the_reference(seed: int, n: int, k: int, categorical: bool, levels: int,
                                                         missing: bool, leaf: int, fan: int) -> None:
    table = random_table(seed, n, numeric=1, categorical=categorical, levels=levels, missing=missing)
    space = _Space(table, np.flatnonzero(~table.presuppressed), "zscore")
    assert space.Z.shape[0] == 1
    assert mdav_groups_index(space, k, leaf=leaf, fan=fan).tolist() == mdav_groups(space, k).tolist()


def test_anatomy_peak_on_adult_stays_near_its_published_tables() -> None:
    """Issue 30: on Adult (30,162 records, eight QIs) Anatomy's tracemalloc peak above the encoded
    table — the algorithm and its QIT/ST — was 3.3× the table before the lean paths, 2.2× with them
    and 1.08× with narrow class levels and nodes, a leaner LCA, no copies of the records' classes and
    codes, and a categorical QIT (benchmarks/bench_anatomy_memory.py: 1.57× at 300 k rows, 1.89× at
    3 M); 1.5× leaves room for library versions yet fails the 2.2× paths (a memory bound, not a
    timing)."""
    frame, hier = load_adult()
    qi = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]
    schema = Schema.of(quasi=qi, sensitive=["occupation"], hierarchies={q: hier[q] for q in qi},
                       types={"age": "numeric"})
    tracemalloc.start()
    try:
        table = Table(frame, schema)
        _ = table.distinct
        table_bytes = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        rel = anatomy(table, [DistinctLDiversity("occupation", 3)], seed=0)
        peak = tracemalloc.get_traced_memory()[1] - table_bytes
    finally:
        tracemalloc.stop()
    published = sum(int(t.memory_usage(index=False).sum()) for t in rel.tables.values())
    assert rel.n_classes > 10_000 // 2 and published < peak
    assert peak <= 1.5 * table_bytes, f"peak {peak / 1e6:.1f} MB above a table of {table_bytes / 1e6:.1f} MB"


# ------------------------------------------------------------------------------ narrow levels and nodes
def _random_hierarchy(rng: np.random.Generator, n_leaves: int, height: int, top: bool) -> Hierarchy:
    """Leaves ``v0…``; each level groups the nodes below at random; with ``top`` a last level ``*``
    (else the top may hold several values)."""
    node = np.arange(n_leaves)
    rows = [[f"v{i}"] for i in range(n_leaves)]
    for level in range(1, height + 1):
        parent = rng.integers(0, max(1, int(node.max()) // 2 + 1), int(node.max()) + 1)
        node = parent[node]
        for i in range(n_leaves):
            rows[i].append(f"L{level}n{node[i]}")
    return Hierarchy([[*r, "*"] for r in rows] if top else rows, name="h")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n_leaves=st.integers(1, 12), height=st.integers(0, 4), n=st.integers(1, 60),
       n_classes=st.integers(1, 20), top=st.booleans())
def test_lean_lca_equals_class_lca(seed: int, n_leaves: int, height: int, n: int, n_classes: int,
                                   top: bool) -> None:
    """``local._lca`` (two ranks per class, one level at a time) gives ``class_lca``'s levels and nodes
    (under a single top value without calling it), and where a class has no common ancestor (several
    top values) the same one-line error."""
    from types import SimpleNamespace
    from unittest import mock

    rng = np.random.default_rng(seed)
    h = _random_hierarchy(rng, n_leaves, height, top)
    codes = rng.integers(0, n_leaves, n).astype(np.int32).reshape(-1, 1)
    rc = rng.integers(0, n_classes, n).astype(np.int64)
    fake = SimpleNamespace(hierarchies=[h], codes=codes, qi=["h"])
    try:
        want = class_lca(h, codes[:, 0], rc, n_classes, column="h")
    except InputError as exc:
        with pytest.raises(InputError, match="no common ancestor") as got:
            local._lca(fake, 0, rc, n_classes)  # type: ignore[arg-type]
        assert str(got.value) == str(exc)
        return
    with mock.patch.object(local, "class_lca", side_effect=AssertionError("the lean path was not taken")) \
            if top else mock.patch.object(local, "LEVEL_INT8_MAX", local.LEVEL_INT8_MAX):
        level, node = local._lca(fake, 0, rc, n_classes)  # type: ignore[arg-type]
    assert level.tolist() == want[0].tolist() and node.tolist() == want[1].tolist()


def test_class_dtypes_narrow_unless_a_hierarchy_is_too_high_or_wide() -> None:
    from types import SimpleNamespace

    class Wide:
        def __len__(self) -> int:
            return local.NODE_INT32_MAX + 1

    def tall(levels: int) -> SimpleNamespace:
        return SimpleNamespace(labels=[np.zeros(1)] * levels)

    assert class_dtypes([tall(3), tall(local.LEVEL_INT8_MAX)]) == (np.int8, np.int32)
    assert class_dtypes([tall(3), tall(local.LEVEL_INT8_MAX + 1)]) == (np.int16, np.int32)
    assert class_dtypes([SimpleNamespace(labels=[Wide(), np.zeros(1)])]) == (np.int8, np.int64)


def test_release_levels_and_nodes_narrow_with_the_int64_values(adult_table: Table) -> None:
    """A local release holds levels as int8 and nodes as int32, equal to ``class_lca``'s int64 ones."""
    rc = np.arange(adult_table.n) // 5
    rel = partition_release(adult_table, rc, [KAnonymity(2)], algorithm="t", merge_identical=False)
    assert rel.class_levels.dtype == np.int8 and rel.class_nodes.dtype == np.int32
    for j in (1, 2):  # sex, education (age is an interval: CUSTOM)
        lv, nd = class_lca(adult_table.hierarchies[j], adult_table.codes[:, j], rel.record_class, rel.n_classes)
        assert np.array_equal(rel.class_levels[:, j], lv) and np.array_equal(rel.class_nodes[:, j], nd)
    assert (rel.class_levels[:, 0] == -1).all()


def test_first_appearance_in_place_renumbers_the_callers_array() -> None:
    rc = np.array([5, 5, 2, -1, 9, 2], dtype=np.int64)
    pre = np.array([False, False, False, False, True, False])
    want, n = _first_appearance(rc, pre)
    assert rc.tolist() == [5, 5, 2, -1, 9, 2]  # control: a copy
    got, m = _first_appearance(rc, pre, in_place=True)
    assert got is rc and m == n == 2 and got.tolist() == want.tolist() == [0, 0, 1, -1, -1, 1]
    other = rc.astype(np.int32)
    assert _first_appearance(other, pre, in_place=True)[0] is not other  # not int64: copied


# ------------------------------------------------------------------------------ the categorical QIT
def _dense(frame: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({c: frame[c].astype(object) if isinstance(frame[c].dtype, pd.CategoricalDtype)
                         else frame[c] for c in frame.columns})


@pytest.fixture(scope="module")
def suppressing_release(adult_table: Table):
    """Anatomy with 4-anonymity over groups of 3: every group but the one of 4 is suppressed."""
    return anatomy(adult_table, [KAnonymity(4), DistinctLDiversity("occupation", 3)], seed=1, max_suppression=1.0)


@pytest.fixture(scope="module")
def full_release(adult_table: Table):
    """Anatomy releasing every record."""
    return anatomy(adult_table, [DistinctLDiversity("occupation", 3)], seed=7)


def test_categorical_qit_holds_the_input_values_of_the_published_records(adult_table: Table,
                                                                         suppressing_release) -> None:
    rel = suppressing_release
    qit = rel.tables["qit"]
    released = np.flatnonzero(rel.record_class >= 0)
    assert 0 < len(qit) == len(released) < adult_table.n
    for c in ("age", "sex", "education"):
        col = qit[c]
        assert isinstance(col.dtype, pd.CategoricalDtype)
        # the same values (as a multiset) as the published records' input cells, and no other category:
        # a suppressed record's value is not kept in the release
        assert sorted(col.astype(object)) == sorted(adult_table.frame[c].to_numpy()[released])
        assert set(col.cat.categories) == set(col.astype(object))
    # the suppressed values are not kept (4 records cannot hold Adult's ages or educations)
    assert all(len(qit[c].cat.categories) < adult_table.frame[c].nunique() for c in ("age", "education"))


def test_qit_columns_stay_object_with_a_missing_cell_too_many_texts_or_non_text(monkeypatch) -> None:
    """Where a Categorical could change a value (missing cells, non-text objects) or saves nothing
    (more than QIT_CATEGORICAL_MAX texts) the column keeps its object dtype; the control converts."""
    rows = np.array([2, 0, 1, 3])
    index = pd.RangeIndex(4)
    texts = pd.Series(["a", "b", "a", "c"], dtype=object)
    assert isinstance(anatomy_module._qit_column(texts, rows, index).dtype, pd.CategoricalDtype)
    for col in (pd.Series(["a", None, "a", "c"], dtype=object), pd.Series(["a", 1, "a", "c"], dtype=object)):
        out = anatomy_module._qit_column(col, rows, index)
        assert out.dtype == object and out.tolist() == col.to_numpy()[rows].tolist()
    monkeypatch.setattr(anatomy_module, "QIT_CATEGORICAL_MAX", 2)
    out = anatomy_module._qit_column(texts, rows, index)
    assert out.dtype == object and out.tolist() == ["a", "a", "b", "c"]


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".sqlite"])
def test_categorical_qit_writes_the_object_qits_bytes_and_reads_back_equal(tmp_path, full_release,
                                                                           suffix: str) -> None:
    """Written through the release writer, the Categorical QIT gives the bytes the object QIT gives (CSV
    and Parquet: written as the dense column; a SQLite file's pages are not compared) and reads back
    as the same values."""
    qit = full_release.tables["qit"]
    assert len(qit) == 4000
    dense = _dense(qit)
    assert dense.dtypes.tolist() == [np.dtype(object)] * 3 + [np.dtype(np.int64)]
    table = {"table": "qit"} if suffix == ".sqlite" else {}
    write_table(qit, tmp_path / f"cat{suffix}", **table)
    write_table(dense, tmp_path / f"obj{suffix}", **table)
    if suffix != ".sqlite":
        assert (tmp_path / f"cat{suffix}").read_bytes() == (tmp_path / f"obj{suffix}").read_bytes()
    back = read_table(tmp_path / f"cat{suffix}", **table)
    pd.testing.assert_frame_equal(back, read_table(tmp_path / f"obj{suffix}", **table))
    assert back.astype(str).values.tolist() == dense.astype(str).values.tolist()


def test_qit_column_from_the_tables_codes_equals_the_factorized_one(adult_table: Table) -> None:
    """A QI's QIT column built from the table's leaf codes equals the one built by factorizing its
    cells (values and categories); a cell the labels do not spell, or a column that is no QI, gets no
    leaf codes (control: the table's own columns do)."""
    from types import SimpleNamespace

    rows = np.random.default_rng(0).permutation(adult_table.n)[:1500]
    index = pd.RangeIndex(len(rows))
    for c in ("age", "sex", "education"):
        leaves = anatomy_module._leaf_codes(adult_table, c)
        assert leaves is not None
        a = anatomy_module._qit_column(adult_table.frame[c], rows, index, leaves)
        b = anatomy_module._qit_column(adult_table.frame[c], rows, index)
        assert a.astype(object).tolist() == b.astype(object).tolist() == adult_table.frame[c].to_numpy()[rows].tolist()
        assert set(a.cat.categories) == set(b.cat.categories)
    assert anatomy_module._leaf_codes(adult_table, "occupation") is None
    frame = adult_table.frame.copy()
    frame.loc[3, "sex"] = "male"  # not a leaf label: the cells are not the labels at the codes
    changed = SimpleNamespace(qi=adult_table.qi, hierarchies=adult_table.hierarchies, codes=adult_table.codes,
                              frame=frame)
    assert anatomy_module._leaf_codes(changed, "sex") is None  # type: ignore[arg-type]
    assert anatomy_module._leaf_codes(changed, "education") is not None  # type: ignore[arg-type]
