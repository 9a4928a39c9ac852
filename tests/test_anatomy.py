"""Anatomy (spec §5.6): grouping, eligibility, the QIT and ST tables."""

from __future__ import annotations

import heapq
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from anonkit import InputError, Schema, Table, anonymize
from anonkit.algorithms import get_algorithm
from anonkit.algorithms.bucket import anatomy as anatomy_module
from anonkit.algorithms.bucket.anatomy import _rounds_py, anatomy, anatomy_groups, group_sequence
from anonkit.models import DistinctLDiversity, KAnonymity
from support import bucket_table

EXAMPLE = ["flu"] * 3 + ["cancer"] * 2 + ["hiv", "gastritis"]


def _table(sa: list[str], *, seed: int = 0, presuppress: int = 0) -> Table:
    return bucket_table(sa, seed=seed, presuppress=presuppress, note=True)


def _group_values(rel, sa: list[str]) -> list[list[str]]:
    values = np.array(sa, dtype=object)
    return [sorted(values[g]) for g in rel.notes["groups"]]


# ---------------------------------------------------------------------------------------- worked example
def test_worked_example() -> None:
    rel = anatomy(_table(EXAMPLE), [DistinctLDiversity("disease", 2)])
    assert rel.params["l"] == 2
    assert rel.satisfied
    assert sorted(_group_values(rel, EXAMPLE)) == [["cancer", "flu"], ["cancer", "flu", "hiv"], ["flu", "gastritis"]]
    # before renumbering: groups in creation order, hiv (the residue) in the first one
    codes = _table(EXAMPLE).sensitive_codes["disease"]  # cancer 0, flu 1, gastritis 2, hiv 3
    groups, n_groups = anatomy_groups(codes, 2)
    labels = np.array(["cancer", "flu", "gastritis", "hiv"])
    assert n_groups == 3
    assert [sorted(labels[codes[groups == g]]) for g in range(3)] == [
        ["cancer", "flu", "hiv"],
        ["cancer", "flu"],
        ["flu", "gastritis"],
    ]
    assert rel.notes["distinct_l"] == 2
    assert rel.notes["max_confidence"] == 0.5


def test_ineligible() -> None:
    with pytest.raises(InputError) as err:
        anatomy(_table(EXAMPLE), [], l=3)
    msg = str(err.value)
    assert "3 times" in msg and "'flu'" in msg and "'disease'" in msg and "7/3" in msg
    assert err.value.column == "disease" and err.value.value == "flu"
    with pytest.raises(InputError, match="anatomy option 'l'"):
        anatomy(_table(EXAMPLE), [], l=0)


def test_l_sources() -> None:
    table = _table(EXAMPLE)
    assert anatomy(table, [DistinctLDiversity("disease", 2), DistinctLDiversity("disease", 1)]).params["l"] == 2
    assert anatomy(table, [], l=1).params["l"] == 1
    assert anatomy(_table(list("abcdefabc")), []).params["l"] == 3  # spec §6 default
    assert get_algorithm("anatomy") is anatomy


def test_l_one_gives_singletons() -> None:
    rel = anatomy(_table(EXAMPLE), [], l=1)
    assert rel.n_classes == 7
    assert (rel.class_sizes() == 1).all()


def test_tables() -> None:
    table = _table(EXAMPLE)
    rel = anatomy(table, [DistinctLDiversity("disease", 2)], seed=3)
    qit, st = rel.tables["qit"], rel.tables["st"]
    # QIs, the insensitive column (issue 23: published, not dropped) and GroupID: no identifier or SA
    assert list(qit.columns) == ["age", "zip", "note", "GroupID"]
    assert list(anatomy(table, [], l=2, insensitive="drop").tables["qit"].columns) == ["age", "zip", "GroupID"]
    assert list(st.columns) == ["GroupID", "disease", "Count"]
    # QIT keeps the exact QIs: the same (age, zip, group) multiset as the input rows
    expected = Counter(
        (a, z, int(g) + 1) for a, z, g in zip(table.frame["age"], table.frame["zip"], rel.record_class, strict=True)
    )
    assert Counter(map(tuple, qit[["age", "zip", "GroupID"]].itertuples(index=False, name=None))) == expected
    # ST: the counts of every group's values; GroupIDs agree with the QIT
    assert st["Count"].sum() == len(qit) == 7
    sizes = st.groupby("GroupID")["Count"].sum()
    assert sizes.to_dict() == qit["GroupID"].value_counts().to_dict()
    for g, part in st.groupby("GroupID"):
        members = np.flatnonzero(rel.record_class == g - 1)
        assert Counter(dict(zip(part["disease"], part["Count"], strict=True))) == Counter(
            table.frame["disease"].iloc[members]
        )
    # rows shuffled: not in input order for this seed, and deterministic for it
    again = anatomy(table, [DistinctLDiversity("disease", 2)], seed=3)
    pd.testing.assert_frame_equal(again.tables["qit"], qit)
    pd.testing.assert_frame_equal(again.tables["st"], st)


def test_group_id_column_name_does_not_clash() -> None:
    frame = pd.DataFrame({"GroupID": list("xyxyxy"), "d": list("abcabc")})
    rel = anatomy(Table(frame, Schema.of(quasi=["GroupID"], sensitive=["d"])), [], l=2)
    qit = rel.tables["qit"]
    assert list(qit.columns) == ["GroupID", "_GroupID"]
    assert qit["GroupID"].tolist() != [] and set(qit["_GroupID"]) == {1, 2, 3}


def test_failing_groups_suppressed_and_presuppressed_records() -> None:
    sa = list("abcdefghab")
    rel = anatomy(_table(sa), [KAnonymity(4)], l=3)  # groups of 3 (one of 4 with the residue): 3 fail
    assert rel.n_classes == 1 and rel.class_sizes().tolist() == [4]
    assert len(rel.tables["qit"]) == 4 and rel.tables["st"]["GroupID"].eq(1).all()
    rel = anatomy(_table(sa, presuppress=3), [], l=3)
    assert (rel.record_class[:3] == -1).all() and rel.n_released == 7
    rel = anatomy(_table(["a", "b"], presuppress=2), [], l=2)
    assert rel.n_classes == 0 and not rel.satisfied
    rel = anatomy(_table(EXAMPLE), [KAnonymity(10)], l=2)  # every group fails
    assert rel.n_classes == 0 and rel.notes["groups"] == [] and len(rel.tables["qit"]) == 0


def test_pipeline() -> None:
    sa = list("aabbccddeeff")
    frame = pd.DataFrame({"zip": [f"1{i % 5}" for i in range(12)], "disease": sa})
    schema = Schema.of(quasi=["zip"], sensitive=["disease"])
    result = anonymize(frame, schema, [DistinctLDiversity("disease", 3)], algorithm="anatomy")
    assert result.verification.ok and result.release.n_suppressed == 0


# ---------------------------------------------------------------------------------------- properties
def _naive(counts: np.ndarray, l: int) -> tuple[list[tuple[int, ...]], list[int]]:  # noqa: E741
    heap = [(-int(c), v) for v, c in enumerate(counts) if c > 0]
    heapq.heapify(heap)
    rows = []
    while len(heap) >= l:
        top = [heapq.heappop(heap) for _ in range(l)]
        rows.append(tuple(v for _, v in top))
        for c, v in top:
            if c + 1 < 0:
                heapq.heappush(heap, (c + 1, v))
    return rows, sorted(v for c, v in heap for _ in range(-c))


@pytest.mark.parametrize("seed", range(200))
def test_batched_heap_equals_one_group_at_a_time(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 12))
    counts = rng.integers(0, 40, m) if seed % 2 else rng.integers(5, 8, m)
    l = int(rng.integers(1, m + 1))  # noqa: E741
    values, residue = group_sequence(counts, l)
    rows, rest = _naive(counts, l)
    assert [tuple(r) for r in values.tolist()] == rows
    assert residue.tolist() == rest


@pytest.mark.parametrize("seed", range(60))
def test_array_heap_equals_one_group_at_a_time(seed: int) -> None:
    # the numba kernel's source, run as plain Python
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 10))
    counts = rng.integers(0, 30, m) if seed % 2 else rng.integers(4, 7, m)
    l = int(rng.integers(1, m + 1))  # noqa: E741
    rows, reps, left = _rounds_py(counts.astype(np.int64), l)
    naive, rest = _naive(counts, l)
    assert [tuple(r) for r in np.repeat(rows.reshape(-1, l), reps, axis=0).tolist()] == naive
    assert np.repeat(np.arange(m), left).tolist() == rest


def test_compiled_kernel_on_a_large_input(monkeypatch) -> None:
    rng = np.random.default_rng(7)
    counts = rng.integers(1, 3000, 40)
    counts[0] = counts.sum() // 5  # skewed: long runs of identical groups, then rotation
    expected = group_sequence(counts, 4)
    monkeypatch.setattr(anatomy_module, "NUMBA_GROUPS", 0)
    values, residue = group_sequence(counts, 4)
    assert np.array_equal(values, expected[0]) and np.array_equal(residue, expected[1])
    assert len(values) > 10_000


@pytest.mark.parametrize("seed", range(30))
def test_properties_on_random_tables(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 150))
    m = int(rng.integers(2, 9))
    sa = [f"v{x}" for x in rng.choice(m, n, p=rng.dirichlet(np.ones(m) * 3))]
    top = Counter(sa).most_common(1)[0][1]
    l = int(rng.integers(1, 5))  # noqa: E741
    table = _table(sa, seed=seed)
    if top * l > n:
        with pytest.raises(InputError, match=r"no \d+-diverse anatomy exists"):
            anatomy(table, [], l=l)
        return
    rel = anatomy(table, [], l=l, seed=seed if seed % 2 else None)
    # every record in exactly one group
    assert (rel.record_class >= 0).all()
    members = np.concatenate(rel.notes["groups"])
    assert np.array_equal(np.sort(members), np.arange(n))
    for c, g in enumerate(rel.notes["groups"]):
        assert (rel.record_class[g] == c).all()
        counts = Counter(np.array(sa, dtype=object)[g])
        assert len(counts) >= l  # l distinct values
        assert max(counts.values()) * l <= len(g)  # no value above 1/l
    assert rel.notes["distinct_l"] >= l and rel.notes["max_confidence"] <= 1 / l + 1e-12
    assert rel.class_sizes().max() <= 2 * l - 1 or l == 1
    assert anatomy(table, [DistinctLDiversity("disease", l)], l=l).n_suppressed == 0
    # deterministic for a seed
    again = anatomy(table, [], l=l, seed=seed if seed % 2 else None)
    assert np.array_equal(again.record_class, rel.record_class)
    pd.testing.assert_frame_equal(again.tables["qit"], rel.tables["qit"])


def test_seeded_residue_placement() -> None:
    # 3 values × 5 + one of a fourth: with l = 3 the residue record may go to any of the 5 groups
    sa = list("aaaaabbbbbcccccd")
    table = _table(sa)
    first = anatomy(table, [], l=3)
    d_group = [i for i, g in enumerate(first.notes["groups"]) if 15 in g]
    assert first.notes["groups"][d_group[0]].tolist()[0] == 0  # joins the first group (records 0, 5, 10)
    placements = {tuple(anatomy(table, [], l=3, seed=s).record_class) for s in range(12)}
    assert len(placements) > 1
