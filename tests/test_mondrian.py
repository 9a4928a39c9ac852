"""Mondrian (spec §5.4, §7.1): the worked example, the models, a textbook reference, edge cases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit import Hierarchy, Schema, Table
from anonkit.algorithms import get_algorithm
from anonkit.algorithms.local import partition_release
from anonkit.algorithms.partition.mondrian import mondrian
from anonkit.errors import InputError
from anonkit.metrics import gcp
from anonkit.models import (
    BetaLikeness,
    DeltaDisclosure,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)
from anonkit.release import CUSTOM
from anonkit.stats import class_stats
from anonkit.verifier import verify
from mondrian_tables import adult_table, random_table


# ------------------------------------------------------------------------------------------ helpers
def reference_mondrian(table: Table, models: list, mode: str = "strict") -> np.ndarray:
    """Textbook Mondrian, written independently and for clarity: one partition at a time, numpy on
    the partition's records. Returns the group of every record (−1 for pre-suppressed ones)."""
    k = max([m.minimum_class_size() for m in models] + [1])
    active = np.flatnonzero(~table.presuppressed)
    spread = {q: float(np.ptp(table.numeric[q][active])) for q in table.numeric}
    pairs_of = {s: table.sensitive_codes[s] for s in table.sensitive}

    def passes(groups: list[np.ndarray]) -> bool:
        cls = np.concatenate([np.full(len(g), i) for i, g in enumerate(groups)])
        rows = np.concatenate(groups)
        pairs = {s: (np.arange(len(rows)), c[rows], None) for s, c in pairs_of.items()}
        stats = class_stats(cls, len(groups), None, pairs, table.domains)
        return all(m.passes(stats).all() for m in models)

    def lca(j: int, rows: np.ndarray) -> tuple[int, int]:
        h = table.hierarchies[j]
        for level in range(h.height + 1):
            nodes = h.maps[level][table.codes[rows, j]]
            if (nodes == nodes[0]).all():
                return level, int(nodes[0])
        return h.height + 1, 0  # above a top level with several nodes

    def width(j: int, rows: np.ndarray) -> float:
        q = table.qi[j]
        if q in table.numeric:
            return float(np.ptp(table.numeric[q][rows])) / spread[q] if spread[q] > 0 else 0.0
        level, node = lca(j, rows)
        h = table.hierarchies[j]
        return 0.0 if level == 0 else (h.leaf_counts(level)[node] if level <= h.height else h.n_leaves) / h.n_leaves

    def cut(j: int, rows: np.ndarray) -> list[np.ndarray]:
        q = table.qi[j]
        if q in table.numeric:
            x = table.numeric[q][rows]
            if mode == "relaxed":
                order = np.lexsort((rows, x))
                half = len(rows) // 2
                return [np.sort(rows[order[:half]]), np.sort(rows[order[half:]])]
            values, counts = np.unique(x, return_counts=True)
            median = values[np.argmax(np.cumsum(counts) >= len(rows) // 2)]
            return [g for g in (rows[x <= median], rows[x > median]) if len(g)]
        level, _ = lca(j, rows)
        h = table.hierarchies[j]
        child = h.maps[level - 1][table.codes[rows, j]]
        return [rows[child == c] for c in np.unique(child)]

    final: list[np.ndarray] = []
    todo = [active]
    while todo:
        rows = todo.pop()
        widths = [width(j, rows) for j in range(len(table.qi))]
        for j in sorted(range(len(widths)), key=lambda j: -widths[j]):  # stable: ties keep QI order
            if widths[j] <= 0 or len(rows) < 2 * k:
                continue
            parts = cut(j, rows)
            if len(parts) >= 2 and min(len(p) for p in parts) >= k and passes(parts):
                todo.extend(parts)
                break
        else:
            final.append(rows)
    group = np.full(table.n, -1)
    for i, rows in enumerate(final):
        group[rows] = i
    return group


def merge_alike(table: Table, groups: np.ndarray) -> np.ndarray:
    """Groups that would be published alike (same value ranges, same lowest common ancestors) as one."""
    key_of: dict[tuple, int] = {}
    out = groups.copy()
    for g in np.unique(groups[groups >= 0]):
        rows = np.flatnonzero(groups == g)
        key = []
        for j, q in enumerate(table.qi):
            if q in table.numeric:
                key.append((table.numeric[q][rows].min(), table.numeric[q][rows].max()))
                continue
            h = table.hierarchies[j]
            key.append(
                next(
                    (lv, int(h.maps[lv][table.codes[rows[0], j]]))
                    for lv in range(h.height + 1)
                    if (h.maps[lv][table.codes[rows, j]] == h.maps[lv][table.codes[rows[0], j]]).all()
                )
            )
        out[rows] = key_of.setdefault(tuple(key), int(g))
    return out


def canonical(groups: np.ndarray) -> np.ndarray:
    """Every record labelled by the first record of its group (−1 stays −1)."""
    out = np.full(len(groups), -1)
    kept = np.flatnonzero(groups >= 0)
    first: dict[int, int] = {}
    for i in kept:
        first.setdefault(int(groups[i]), int(i))
    out[kept] = [first[int(g)] for g in groups[kept]]
    return out


def own_gcp(table: Table, groups: np.ndarray) -> float:
    """GCP of spec §2.1 (numeric NCP over the table's data range; categorical: the LCA's leaves
    over the hierarchy's), suppressed records charged 1 per QI."""
    d = len(table.qi)
    total = 0.0
    for g in np.unique(groups[groups >= 0]):
        rows = np.flatnonzero(groups == g)
        for j, q in enumerate(table.qi):
            if q in table.numeric:
                spread = np.ptp(table.numeric[q])
                total += len(rows) * (np.ptp(table.numeric[q][rows]) / spread if spread > 0 else 0.0)
                continue
            h = table.hierarchies[j]
            for level in range(h.height + 1):
                nodes = h.maps[level][table.codes[rows, j]]
                if (nodes == nodes[0]).all():
                    break
            else:
                level = h.height + 1
            if level > 0:
                share = h.leaf_counts(level)[nodes[0]] / h.n_leaves if level <= h.height else 1.0
                total += len(rows) * share
    total += d * int((groups < 0).sum())
    return total / (d * table.n)


def boxes_disjoint(rel, a: int, b: int) -> bool:
    """Do the published generalizations of classes ``a`` and ``b`` share no point?"""
    t = rel.table
    for j, q in enumerate(t.qi):
        if rel.class_levels[a, j] == CUSTOM:
            (lo1, hi1), (lo2, hi2) = rel.class_bounds[q][a], rel.class_bounds[q][b]
            if hi1 < lo2 or hi2 < lo1:
                return True
            continue
        h = t.hierarchies[j]
        la, lb = rel.class_levels[a, j], rel.class_levels[b, j]
        leaves_a = h.maps[la] == rel.class_nodes[a, j]
        leaves_b = h.maps[lb] == rel.class_nodes[b, j]
        if not (leaves_a & leaves_b).any():
            return True
    return False


def example_table() -> Table:
    frame = pd.DataFrame(
        {"age": ["25", "26", "27", "30", "40", "45", "50"], "zip": ["10", "12", "11", "20", "21", "22", "30"]}
    )
    return Table(frame, Schema.of(quasi=["age", "zip"], types={"age": "numeric", "zip": "numeric"}))


# ------------------------------------------------------------------------------------------ spec example
@pytest.mark.parametrize("mode", ["strict", "relaxed"])
def test_worked_example(mode: str) -> None:
    table = example_table()
    rel = mondrian(table, [KAnonymity(2)], mode=mode)
    assert rel.satisfied and rel.n_suppressed == 0
    assert rel.notes["partitions"] == 3 and rel.params == {"mode": mode} and rel.algorithm == "mondrian"
    groups = rel.to_frame().value_counts().to_dict()
    assert groups == {("[25-27]", "[10-12]"): 3, ("[30-40]", "[20-21]"): 2, ("[45-50]", "[22-30]"): 2}
    assert own_gcp(table, rel.record_class) == pytest.approx(2.64 / 14, abs=1e-12)
    assert gcp(table, rel) == pytest.approx(2.64 / 14, abs=1e-12)


def test_registry_and_bad_mode() -> None:
    assert get_algorithm("mondrian") is mondrian
    with pytest.raises(InputError, match="mode"):
        mondrian(example_table(), [KAnonymity(2)], mode="loose")  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------ Adult
@pytest.fixture(scope="module")
def adult() -> tuple[pd.DataFrame, Table]:
    return adult_table()


def test_adult_k5_equals_the_textbook_reference(adult) -> None:
    _, table = adult
    models = [KAnonymity(5)]
    rel = mondrian(table, models)
    ref = reference_mondrian(table, models)
    assert rel.satisfied and rel.n_suppressed == 0
    assert rel.notes["partitions"] == len(np.unique(ref)) == rel.n_classes
    assert (canonical(rel.record_class) == canonical(ref)).all()
    ours = own_gcp(table, rel.record_class)
    assert ours <= own_gcp(table, ref) + 1e-12
    ref_release = partition_release(table, ref, models, algorithm="reference")
    assert gcp(table, rel) <= gcp(table, ref_release) + 1e-12
    assert 0 < ours < 0.2  # Mondrian keeps much: 9.3 % on Adult with age numeric
    assert rel.class_sizes().min() >= 5


MODELS = [
    [KAnonymity(5), DistinctLDiversity("occupation", 3)],
    [KAnonymity(3), EntropyLDiversity("occupation", 3)],
    [KAnonymity(3), EntropyLDiversity("occupation", 3, "grassberger")],
    [KAnonymity(3), RecursiveCLDiversity("occupation", 3, 3)],
    [KAnonymity(5), TCloseness("occupation", 0.2)],
    [KAnonymity(5), TCloseness("occupation", 0.15, "ordered")],
    [KAnonymity(5), TCloseness("occupation", 0.15, "hierarchical")],
    [KAnonymity(2), BetaLikeness("occupation", 1.0)],
    [KAnonymity(2), BetaLikeness("occupation", 1.0, enhanced=True)],
    [KAnonymity(2), DeltaDisclosure("occupation", 1.5)],
]


@pytest.mark.parametrize("models", MODELS, ids=lambda ms: ms[-1].describe())
def test_adult_models_hold_on_every_class(adult, models: list) -> None:
    _, table = adult
    rel = mondrian(table, models)
    assert rel.satisfied and rel.n_suppressed == 0 and rel.failed_records == 0
    assert rel.notes["partitions"] == rel.n_classes > 1
    check = verify(rel.to_frame(), table.schema, models, reference={s: table.frame[s] for s in table.sensitive})
    assert check.ok, check.summary()
    # the model is binding: fewer groups than with k alone
    assert rel.n_classes < mondrian(table, models[:1]).n_classes


@pytest.mark.parametrize("mode", ["strict", "relaxed"])
def test_adult_relaxed_and_strict_with_l_diversity_match_the_reference(adult, mode: str) -> None:
    _, table = adult
    sample = Table(table.frame.iloc[:4000].reset_index(drop=True), table.schema)
    models = [KAnonymity(4), DistinctLDiversity("occupation", 2)]
    rel = mondrian(sample, models, mode=mode)
    ref = reference_mondrian(sample, models, mode)
    assert rel.notes["partitions"] == len(np.unique(ref))
    assert (canonical(rel.record_class) == canonical(merge_alike(sample, ref))).all()


def test_relaxed_publishes_every_class_once(adult) -> None:
    """Relaxed halves overlap; groups that come out alike are published as one class."""
    _, table = adult
    rel = mondrian(table, [KAnonymity(5)], mode="relaxed")
    assert rel.satisfied and rel.n_classes == len(rel.generalized().drop_duplicates())
    assert rel.notes["partitions"] > rel.n_classes  # Adult has such groups
    assert verify(rel.to_frame(), table.schema, [KAnonymity(5)]).ok


# ------------------------------------------------------------------------------------------ properties
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 100_000),
    n=st.integers(1, 120),
    k=st.integers(1, 6),
    mode=st.sampled_from(["strict", "relaxed"]),
    model=st.sampled_from([None, "l", "t"]),
)
def test_random_tables(seed: int, n: int, k: int, mode: str, model: str | None) -> None:
    table = random_table(seed, n)
    models: list = [KAnonymity(k)]
    if model == "l":
        models.append(DistinctLDiversity("disease", 2))
    elif model == "t":
        models.append(TCloseness("disease", 0.4))
    rel = mondrian(table, models, mode=mode)
    ref = reference_mondrian(table, models, mode)
    if not rel.satisfied:  # only when the whole table fails the models
        root = class_stats(
            np.zeros(n, dtype=np.int64),
            1,
            None,
            {"disease": (np.arange(n), table.sensitive_codes["disease"], None)},
            table.domains,
        )
        assert not all(m.passes(root).all() for m in models)
        assert rel.n_classes == 0 and rel.n_suppressed == n
        return
    # the groups partition the records, each at least k, the same as the textbook's
    assert rel.n_suppressed == 0 and rel.notes["partitions"] == len(np.unique(ref))
    assert rel.class_sizes().sum() == n and rel.class_sizes().min() >= k
    assert (canonical(rel.record_class) == canonical(merge_alike(table, ref))).all()
    assert rel.n_classes == len(rel.generalized().drop_duplicates())
    if mode == "strict":  # strict groups never overlap
        for a in range(rel.n_classes):
            for b in range(a + 1, rel.n_classes):
                assert boxes_disjoint(rel, a, b)
    assert verify(rel.to_frame(), table.schema, models, reference={"disease": table.frame["disease"]}).ok


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 100_000), n=st.integers(1, 150), k=st.integers(1, 6))
def test_relaxed_splits_halve(seed: int, n: int, k: int) -> None:
    """With numeric QIs only, relaxed Mondrian cuts every partition of ≥ 2k records that is not one
    point into halves whose sizes differ by at most one (watched at the cut kernel); a class of
    ≥ 2k records is a point or a union of partitions published alike, each of < 2k records."""
    from anonkit.algorithms.partition import _cut_kernels as module

    kernels = module.kernels()
    propose = kernels["propose"]
    cuts: list[tuple[int, int]] = []

    def watched(X, starts, ends, cols, *rest):
        propose(X, starts, ends, cols, *rest)
        coff, csize = rest[7], rest[9]
        cuts.extend((int(csize[c]), int(csize[c + 1])) for c in coff[:-1])

    table = random_table(seed, n, numeric_only=True)
    kernels["propose"] = watched
    try:
        rel = mondrian(table, [KAnonymity(k)], mode="relaxed")
    finally:
        kernels["propose"] = propose
    if n < k:
        assert not rel.satisfied and not cuts
        return
    assert all(abs(a - b) <= 1 and a + b >= 2 * k for a, b in cuts)
    sizes = rel.class_sizes()
    assert sizes.min() >= k and rel.notes["partitions"] >= rel.n_classes
    if rel.notes["partitions"] == rel.n_classes:
        for c in np.flatnonzero(sizes >= 2 * k):
            rows = rel.record_class == c
            assert all(np.ptp(table.numeric[q][rows]) == 0 for q in table.qi)


# ------------------------------------------------------------------------------------------ edge cases
def test_fewer_records_than_k_releases_nothing() -> None:
    table = example_table()
    rel = mondrian(table, [KAnonymity(8)])
    assert not rel.satisfied and rel.n_classes == 0 and rel.n_suppressed == 7
    assert "cannot be met" in rel.message


def test_between_k_and_2k_records_is_one_group() -> None:
    rel = mondrian(example_table(), [KAnonymity(4)])
    assert rel.satisfied and rel.n_classes == 1 and rel.notes["partitions"] == 1
    assert rel.to_frame().value_counts().to_dict() == {("[25-50]", "[10-30]"): 7}


def test_identical_values_are_one_group() -> None:
    frame = pd.DataFrame({"age": ["30"] * 12, "zip": ["1234"] * 12, "disease": ["flu", "cold", "hiv"] * 4})
    table = Table(frame, Schema.of(quasi=["age", "zip"], sensitive=["disease"], types={"age": "numeric"}))
    for mode in ("strict", "relaxed"):
        rel = mondrian(table, [KAnonymity(2)], mode=mode)
        assert rel.satisfied and rel.n_classes == 1
        assert rel.to_frame()[["age", "zip"]].drop_duplicates().values.tolist() == [["30", "1234"]]


def test_root_failing_the_model_releases_nothing() -> None:
    frame = pd.DataFrame({"age": [str(a) for a in range(20, 40)], "disease": ["flu"] * 20})
    table = Table(frame, Schema.of(quasi=["age"], sensitive=["disease"], types={"age": "numeric"}))
    rel = mondrian(table, [KAnonymity(2), DistinctLDiversity("disease", 2)])
    assert not rel.satisfied and rel.n_classes == 0 and rel.n_suppressed == 20
    assert "cannot be met" in rel.message


def test_categorical_split_skips_empty_children_and_several_top_nodes() -> None:
    """Children of the hierarchy that no record falls under are no groups; a hierarchy with two
    top-level nodes is cut below a virtual root."""
    h = Hierarchy([["a1", "A"], ["a2", "A"], ["a3", "A"], ["b1", "B"], ["b2", "B"]], name="x")
    frame = pd.DataFrame({"x": ["a1"] * 4 + ["a2"] * 4 + ["b1"] * 4})
    table = Table(frame, Schema.of(quasi=["x"], hierarchies={"x": h}))
    rel = mondrian(table, [KAnonymity(4)])
    assert rel.to_frame()["x"].value_counts().to_dict() == {"a1": 4, "a2": 4, "b1": 4}
    # A | B is no cut for k = 5 (B has 4 records); one class over A and B has no label to publish
    with pytest.raises(InputError, match="common ancestor"):
        mondrian(table, [KAnonymity(5)])


def test_presuppressed_records_are_left_out() -> None:
    frame = pd.DataFrame(
        {
            "age": ["25", "", "26", "27", "30", "40", "45", "50", ""],
            "zip": ["10", "99", "12", "11", "20", "21", "22", "30", "99"],
        }
    )
    schema = Schema.of(quasi=["age", "zip"], types={"age": "numeric", "zip": "numeric"})
    rel = mondrian(Table(frame, schema, missing="suppress"), [KAnonymity(2)])
    assert rel.satisfied and list(np.flatnonzero(rel.suppressed)) == [1, 8]
    assert rel.to_frame().value_counts().to_dict() == {
        ("[25-27]", "[10-12]"): 3,
        ("[30-40]", "[20-21]"): 2,
        ("[45-50]", "[22-30]"): 2,
    }


def test_deterministic(adult) -> None:
    _, table = adult
    a = mondrian(table, [KAnonymity(10)], mode="relaxed")
    b = mondrian(table, [KAnonymity(10)], mode="relaxed")
    assert (a.record_class == b.record_class).all()
    assert a.to_frame().equals(b.to_frame())
