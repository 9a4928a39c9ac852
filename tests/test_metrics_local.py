"""Utility and risk measures on local recodings: releases whose classes publish a numeric interval
(``class_bounds``) or a set of values (``class_sets``) instead of a hierarchy node (CUSTOM levels).

Spec §2.1–2.5 and the Mondrian worked example of §5.4; releases are built from record partitions
with :func:`anonkit.algorithms.local.partition_release`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit import metrics as M
from anonkit.algorithms.local import partition_release
from anonkit.hierarchy import Hierarchy
from anonkit.metrics.coverage import hierarchy_class_levels
from anonkit.metrics.risk import _candidates_custom
from anonkit.models import KAnonymity
from anonkit.release import CUSTOM, Release
from anonkit.schema import Schema
from anonkit.table import Table

# ---------------------------------------------------------------------------------------- helpers


def mondrian_table() -> Table:
    """Spec §5.4: (age, zip) of seven records, both numeric, no hierarchies."""
    frame = pd.DataFrame({"age": [25, 26, 27, 30, 40, 45, 50], "zip": [10, 12, 11, 20, 21, 22, 30]})
    return Table(frame, Schema.of(quasi=["age", "zip"], types={"age": "numeric", "zip": "numeric"}))


def mondrian_release(table: Table) -> Release:
    # groups [25–27]×[10–12] (3), [30–40]×[20–21] (2), [45–50]×[22–30] (2)
    return partition_release(table, np.array([0, 0, 0, 1, 1, 2, 2]), [KAnonymity(2)], algorithm="t")


def covers(table: Table, release: Release, c: int, j: int, leaf: int) -> bool:
    """Reference: does class ``c`` contain leaf ``leaf`` of QI ``j`` (interval, set or node)?"""
    h = table.hierarchies[j]
    name = table.qi[j]
    level = int(release.class_levels[c, j])
    if level != CUSTOM:
        return bool(h.maps[level, leaf] == release.class_nodes[c, j])
    if name in release.class_bounds:
        lo, hi = release.class_bounds[name][c]
        value = float(h.labels[0][leaf])
        return bool(lo <= value <= hi)
    return leaf in set(release.class_sets[name][c].tolist())


def reference_candidates(table: Table, release: Release) -> list[int]:
    sizes = release.class_sizes()
    tuples = table.distinct.tuples
    return [
        sum(
            int(sizes[c])
            for c in range(release.n_classes)
            if all(covers(table, release, c, j, int(tuples[t, j])) for j in range(len(table.qi)))
        )
        for t in range(len(tuples))
    ]


def random_groups(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """A random partition of ``n`` records into groups of at least ``k`` records."""
    n_groups = max(1, int(rng.integers(1, n // k + 1)))
    sizes = np.full(n_groups, k)
    extra = rng.multinomial(n - k * n_groups, np.full(n_groups, 1.0 / n_groups))
    labels = np.repeat(np.arange(n_groups), sizes + extra)
    return rng.permutation(labels)


COLORS = ["red", "green", "blue", "black", "white"]
H_COLOR = Hierarchy(
    [
        ["red", "warm", "*"],
        ["green", "cold", "*"],
        ["blue", "cold", "*"],
        ["black", "dark", "*"],
        ["white", "dark", "*"],
    ],
    name="color",
)


def random_table(rng: np.random.Generator, n: int) -> Table:
    """Numeric age (flat hierarchy), numeric income (no hierarchy) and categorical color."""
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 40, size=n),
            "income": rng.integers(0, 8, size=n) * 1000,
            "color": rng.choice(COLORS, size=n),
        }
    )
    schema = Schema.of(
        quasi=["age", "income", "color"],
        types={"age": "numeric", "income": "numeric"},
        hierarchies={"color": H_COLOR},
    )
    return Table(frame, schema)


# ---------------------------------------------------------------------------------------- §5.4 Mondrian


def test_mondrian_example_ncp_gcp() -> None:
    table = mondrian_table()
    rel = mondrian_release(table)
    assert (rel.class_levels == CUSTOM).all()
    # the trivial hierarchy's leaf range is the data range: the denominators are 25 and 20
    for h, (lo, hi) in zip(table.hierarchies, [(25, 50), (10, 30)], strict=True):
        assert h.bounds is not None
        assert (h.bounds[0][:, 0].min(), h.bounds[0][:, 1].max()) == (lo, hi)
    expected = np.array([[2 / 25, 2 / 20], [10 / 25, 1 / 20], [5 / 25, 8 / 20]])
    assert M.ncp_classes(table, rel) == pytest.approx(expected, abs=1e-12)
    ncp = M.ncp_records(table, rel)
    assert ncp == pytest.approx([0.18] * 3 + [0.45] * 2 + [0.6] * 2, abs=1e-12)
    assert ncp.sum() == pytest.approx(2.64, abs=1e-12)
    assert M.gcp(table, rel) == pytest.approx(0.18857, abs=1e-5)
    assert M.gcp(table, rel) == pytest.approx(2.64 / 14, abs=1e-12)
    assert M.gcp(table, rel, include_suppressed=False) == pytest.approx(2.64 / 14, abs=1e-12)


def test_mondrian_example_other_measures() -> None:
    table = mondrian_table()
    rel = mondrian_release(table)
    # disjoint boxes: every record's candidates are its own class
    assert list(M.linkage_candidates(table, rel)) == [3, 3, 3, 2, 2, 2, 2]
    assert M.record_linkage(table, rel) == pytest.approx(100 * 3 / 7)
    # entropy: b = records in the interval, a = 1 for every value; per QI 3·log2 3 + 2 + 2 bits
    per_qi = math.floor((3 * math.log2(3) + 4) * 1e10) / 1e10
    assert M.entropy_per_attribute(table, rel) == pytest.approx({"age": per_qi, "zip": per_qi}, abs=1e-9)
    # every interval holds several values: with the trivial hierarchy its LCA is the root
    levels, _ = hierarchy_class_levels(table, rel)
    assert (levels == 1).all()
    assert M.whd(table, rel).total == pytest.approx(7.0)
    assert M.precision(table, rel) == pytest.approx(1.0)
    assert M.height(table, rel) == pytest.approx(2.0)
    assert M.modification_rate(table, rel) == 1.0
    # Loss: shares 2/25 → floored at a leaf's 1/7, 10/25, 5/25 (age); 1/7, 1/7, 8/20 (zip)
    age = (3 / 7 + 2 * 0.4 + 2 * 0.2 - 1) / 6
    zip_ = (3 / 7 + 2 / 7 + 2 * 0.4 - 1) / 6
    assert M.loss_per_attribute(table, rel) == pytest.approx({"age": age, "zip": zip_}, abs=1e-9)


# ---------------------------------------------------------------------------------------- §2.1 via intervals


def test_intervals_use_the_hierarchy_domain(ncp_table: Table) -> None:
    # the same groups as spec §2.1 as intervals [25-30], [40-60]: the same NCP as the nodes
    rel = partition_release(ncp_table, np.array([0, 0, 1, 1]), [KAnonymity(2)], algorithm="t")
    assert list(rel.class_labels(0)) == ["[25-30]", "[40-60]"]
    assert M.ncp_classes(ncp_table, rel) == pytest.approx(np.array([[0.125, 1.0], [0.5, 0.0]]))
    assert M.ncp_records(ncp_table, rel).sum() == pytest.approx(3.25)
    assert M.gcp(ncp_table, rel) == pytest.approx(0.40625)
    # the intervals cover exactly the leaves of the nodes 25-30 and 40-60: same levels, same scores
    node = partition_release(ncp_table, np.array([0, 0, 1, 1]), [KAnonymity(2)], algorithm="t", numeric="hierarchy")
    levels, nodes = hierarchy_class_levels(ncp_table, rel)
    assert (levels == node.class_levels).all()
    assert (nodes == node.class_nodes).all()
    for name in ("whd", "precision", "prec_loss", "height", "entropy", "entropy_nm", "record_linkage"):
        assert M.METRICS[name](ncp_table, rel) == pytest.approx(M.METRICS[name](ncp_table, node)), name


def test_single_value_interval_is_not_modified() -> None:
    frame = pd.DataFrame({"age": [30, 30, 40, 41]})
    table = Table(frame, Schema.of(quasi=["age"], types={"age": "numeric"}))
    rel = partition_release(table, np.array([0, 0, 1, 1]), [KAnonymity(2)], algorithm="t")
    assert list(rel.class_labels(0)) == ["30", "[40-41]"]
    assert M.modification_rate(table, rel) == pytest.approx(0.5)
    assert M.ncp_classes(table, rel)[:, 0] == pytest.approx([0.0, 1 / 11])
    levels, _ = hierarchy_class_levels(table, rel)
    assert list(levels[:, 0]) == [0, 1]
    assert M.whd(table, rel).total == pytest.approx(2.0)


# ---------------------------------------------------------------------------------------- sets


@pytest.fixture(scope="module")
def set_release() -> tuple[Table, Release]:
    frame = pd.DataFrame({"color": ["red", "green", "blue", "blue", "black", "white"]})
    table = Table(frame, Schema.of(quasi=["color"], hierarchies={"color": H_COLOR}))
    rel = partition_release(table, np.array([0, 0, 1, 1, 2, 2]), [KAnonymity(2)], algorithm="t", categorical="set")
    return table, rel


def test_set_ncp_and_labels(set_release: tuple[Table, Release]) -> None:
    table, rel = set_release
    assert list(rel.class_labels(0)) == ["{red,green}", "blue", "{black,white}"]
    assert list(rel.class_levels[:, 0]) == [CUSTOM, 0, CUSTOM]
    # |set| / |A| with |A| = 5 leaves; a single value costs nothing
    assert M.ncp_classes(table, rel)[:, 0] == pytest.approx([2 / 5, 0.0, 2 / 5])
    assert M.gcp(table, rel) == pytest.approx((2 * 0.4 + 2 * 0.4) / 6)
    assert M.modification_rate(table, rel) == pytest.approx(4 / 6)
    # LCA: {red, green} only meet at the root, {black, white} at "dark"
    levels, nodes = hierarchy_class_levels(table, rel)
    assert list(levels[:, 0]) == [2, 0, 1]
    assert H_COLOR.labels[1][nodes[2, 0]] == "dark"
    assert M.whd(table, rel).total == pytest.approx(2 * 1.0 + 2 * 0.5)
    assert M.height(table, rel) == pytest.approx((2 * 2 + 2 * 1) / 6)
    # entropy: b = records with a member value (2 for both sets), a = 1: 4·log2 2 bits
    assert M.entropy(table, rel) == pytest.approx(4.0, abs=1e-9)
    # Loss share |set| / #leaves
    assert M.loss_per_attribute(table, rel)["color"] == pytest.approx((4 * 0.4 + 2 * 0.2 - 1.2) / (6 - 1.2))
    assert list(M.linkage_candidates(table, rel)) == [2, 2, 2, 2, 2]
    assert M.record_linkage(table, rel) == pytest.approx(50.0)


def test_overlapping_intervals_share_candidates() -> None:
    # [1-2] and [2-3]: a record with value 2 lies in both boxes
    frame = pd.DataFrame({"v": [1, 2, 3, 2]})
    table = Table(frame, Schema.of(quasi=["v"], types={"v": "numeric"}))
    rel = partition_release(table, np.array([0, 0, 1, 1]), [KAnonymity(2)], algorithm="t")
    assert list(rel.class_labels(0)) == ["[1-2]", "[2-3]"]
    assert M.record_linkage(table, rel) == pytest.approx(100 * (1 / 2 + 1 / 4 + 1 / 2 + 1 / 4) / 4)


# ---------------------------------------------------------------------------------------- random releases


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 2**32 - 1),
    st.integers(2, 5),
    st.integers(10, 40),
    st.sampled_from(["interval", "hierarchy"]),
    st.sampled_from(["lca", "set"]),
)
def test_random_partitions(seed: int, k: int, n: int, numeric: str, categorical: str) -> None:
    rng = np.random.default_rng(seed)
    table = random_table(rng, n)
    groups = random_groups(rng, n, k)
    rel = partition_release(
        table,
        groups,
        [KAnonymity(k)],
        algorithm="t",
        numeric=numeric,  # type: ignore[arg-type]
        categorical=categorical,  # type: ignore[arg-type]
    )
    assert rel.n_suppressed == 0
    # RL ≤ 100/k: every record's candidates include its own class of ≥ k records
    assert M.record_linkage(table, rel) <= 100 / k + 1e-9
    expected = reference_candidates(table, rel)
    assert list(M.linkage_candidates(table, rel)) == expected
    if (rel.class_levels == CUSTOM).any():  # in chunks of a few (class, tuple) pairs
        chunked = np.zeros(table.distinct.size)
        _candidates_custom(table, rel, np.flatnonzero(rel.class_sizes() > 0), chunked, chunk=5)
        assert list(chunked) == expected
    assert 0.0 <= M.gcp(table, rel) <= 1.0
    assert 0.0 <= M.modification_rate(table, rel) <= 1.0
    assert 0.0 <= M.whd(table, rel).average <= 1.0
    ncp = M.ncp_classes(table, rel)
    assert ((ncp >= 0) & (ncp <= 1)).all()
    # the LCA level covers every record of the class
    levels, nodes = hierarchy_class_levels(table, rel)
    kept = rel.record_class >= 0
    for j, h in enumerate(table.hierarchies):
        cls = rel.record_class[kept]
        assert (h.maps[levels[cls, j], table.codes[kept, j]] == nodes[cls, j]).all()
    values = M.compute_metrics(table, rel)
    assert all(math.isfinite(v) for v in values.values()), values


H_AGE = Hierarchy(
    [[str(a), f"{a // 5 * 5}-{a // 5 * 5 + 4}", f"{a // 10 * 10}s", "*"] for a in range(20, 40)], name="age"
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(2, 40), st.sampled_from(["lca", "set"]))
def test_custom_values_at_the_lca_of_their_leaves(seed: int, k: int, n: int, categorical: str) -> None:
    """Every interval or set stands at the lowest level where all the leaves it covers share one node
    (checked leaf by leaf with :func:`covers`); hierarchy nodes stay as published."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"age": rng.integers(20, 40, size=n), "color": rng.choice(COLORS, size=n)})
    schema = Schema.of(quasi=["age", "color"], types={"age": "numeric"}, hierarchies={"age": H_AGE, "color": H_COLOR})
    table = Table(frame, schema)
    rel = partition_release(
        table,
        random_groups(rng, n, min(k, n)),
        [KAnonymity(1)],
        algorithm="t",
        categorical=categorical,  # type: ignore[arg-type]
    )
    levels, nodes = hierarchy_class_levels(table, rel)
    for j, h in enumerate(table.hierarchies):
        for c in range(rel.n_classes):
            if rel.class_levels[c, j] != CUSTOM:
                assert (levels[c, j], nodes[c, j]) == (rel.class_levels[c, j], rel.class_nodes[c, j])
                continue
            leaves = [leaf for leaf in range(h.n_leaves) if covers(table, rel, c, j, leaf)]
            lca = next(lv for lv in range(h.height + 1) if len({int(h.maps[lv, x]) for x in leaves}) == 1)
            assert (levels[c, j], nodes[c, j]) == (lca, h.maps[lca, leaves[0]])


@pytest.mark.parametrize("seed", range(4))
def test_every_metric_is_finite_on_a_local_release(seed: int) -> None:
    rng = np.random.default_rng(seed)
    table = random_table(rng, 60)
    groups = rng.integers(0, 12, size=60)  # some groups fail k = 4 and are suppressed
    for numeric in ("interval", "hierarchy"):
        for categorical in ("lca", "set"):
            rel = partition_release(
                table,
                groups,
                [KAnonymity(4)],
                algorithm="t",
                max_suppression=1.0,
                numeric=numeric,  # type: ignore[arg-type]
                categorical=categorical,  # type: ignore[arg-type]
            )
            assert rel.n_released > 0
            assert (rel.class_levels == CUSTOM).any() or (numeric, categorical) == ("hierarchy", "lca")
            for name, metric in M.METRICS.items():
                value = metric(table, rel)
                assert math.isfinite(value), (name, numeric, categorical)
            for aggregate in M.AGGREGATES:
                for gs in (0.0, 0.3, 1.0):
                    values = M.compute_metrics(table, rel, gs=gs, aggregate=aggregate)
                    if gs == 0.0 and rel.n_suppressed == 0:
                        values.pop("aecs")  # ARX's AECS weighs kept classes by sFactor = 0: N / 0
                    assert all(math.isfinite(x) for v in values.values() for x in np.atleast_1d(v))
            assert 0.0 <= M.gcp(table, rel) <= 1.0
            assert 0.0 <= M.loss(table, rel) <= 1.0
            assert M.record_linkage(table, rel) <= 100 / 4 * rel.n_released / table.n + 1e-9
