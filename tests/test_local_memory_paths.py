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
from anonkit.algorithms.local import _first_appearance, partition_release, record_stats
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
    rel = anatomy(adult_table, [DistinctLDiversity("occupation", 3)], seed=3)
    qit, st_ = rel.tables["qit"], rel.tables["st"]
    assert [str(t) for t in qit.dtypes] == ["object", "object", "object", "int64"]
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
    table — the algorithm and its QIT/ST — was 3.3× the table before the lean paths and is 2.2× now
    (benchmarks/bench_anatomy_memory.py); 2.6× leaves room for library versions yet fails the old
    paths (a memory bound, not a timing)."""
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
    assert peak <= 2.6 * table_bytes, f"peak {peak / 1e6:.1f} MB above a table of {table_bytes / 1e6:.1f} MB"
