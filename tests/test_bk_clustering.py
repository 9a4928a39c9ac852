"""UHRA phase 1: background-knowledge clustering (anonkit.knowledge.clustering, spec §4.1)."""

from __future__ import annotations

import time
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit import Hierarchy, InputError, Schema, Table
from anonkit.knowledge import Priors, jsd, kernel_priors
from anonkit.knowledge.clustering import BKClustering, bk_clusters, condensed_jsd


def _check_invariants(bk: BKClustering, rows: np.ndarray, J: float) -> None:
    n = rows.shape[0]
    assert bk.cluster_of_record.shape == (n,)
    assert bk.sizes.sum() == pytest.approx(n)
    assert np.all(bk.sizes > 0)
    assert bk.n_clusters == len(bk.sizes) == len(np.unique(bk.cluster_of_record))
    # the guarantee, on records (brute force) and through the checking method
    for a, b in combinations(range(n), 2):
        if bk.cluster_of_record[a] == bk.cluster_of_record[b]:
            assert jsd(rows[a], rows[b]) <= J + 1e-12
    assert np.all(bk.max_within_jsd() <= J + 1e-12)
    # identical priors share a cluster
    for a, b in combinations(range(n), 2):
        if np.array_equal(rows[a], rows[b]):
            assert bk.cluster_of_record[a] == bk.cluster_of_record[b]
    # clusters are numbered in order of their first record
    _, first = np.unique(bk.cluster_of_record, return_index=True)
    assert list(bk.cluster_of_record[np.sort(first)]) == list(range(bk.n_clusters))
    np.testing.assert_array_equal(bk.vectors[bk.vector_of_record], rows)


@st.composite
def _priors(draw):
    n = draw(st.integers(1, 25))
    s = draw(st.integers(2, 4))
    # few weight levels, so duplicates and zeros are frequent
    w = np.array(draw(st.lists(st.lists(st.integers(0, 4), min_size=s, max_size=s), min_size=n, max_size=n)), float)
    w[w.sum(axis=1) == 0, 0] = 1.0
    return w / w.sum(axis=1, keepdims=True)


@settings(max_examples=60, deadline=None)
@given(_priors(), st.floats(0.0, 1.0))
def test_within_cluster_jsd_at_most_J(rows, J):
    _check_invariants(bk_clusters(rows, J), rows, J)


@settings(max_examples=30, deadline=None)
@given(_priors(), st.floats(0.0, 0.5))
def test_cut_is_exact_for_complete_linkage(rows, J):
    """Merging two clusters would break J (otherwise complete linkage would have merged them)."""
    bk = bk_clusters(rows, J)
    v, c = bk.vectors, bk.cluster_of_vector
    for a, b in combinations(range(bk.n_clusters), 2):
        d = jsd(v[c == a][:, None, :], v[c == b][None, :, :])
        assert np.max(d) > J


def test_J_zero_every_distinct_prior_alone():
    rows = np.array([[0.5, 0.5], [0.5 + 1e-9, 0.5 - 1e-9], [0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    bk = bk_clusters(rows, 0.0)
    assert bk.n_distinct == 4
    assert bk.n_clusters == 4
    assert list(bk.cluster_of_record) == [0, 1, 0, 2, 3]
    assert list(bk.sizes) == [2, 1, 1, 1]


def test_J_one_gives_one_cluster_and_beyond_is_refused():
    rows = np.array([[1.0, 0.0], [0.0, 1.0], [0.3, 0.7]])  # JSD of the first two is exactly 1
    bk = bk_clusters(rows, 1.0)
    assert bk.n_clusters == 1
    assert list(bk.sizes) == [3]
    assert bk.max_within_jsd()[0] == pytest.approx(1.0)
    for J in (1.5, 100.0, -0.1, float("nan")):  # one range for J everywhere (the model's): [0, 1]
        with pytest.raises(InputError, match=r"J must be a number in \[0, 1\]"):
            bk_clusters(rows, J)


def test_J_just_below_one_splits_disjoint_supports():
    rows = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert bk_clusters(rows, 0.999).n_clusters == 2


@pytest.mark.parametrize("J", [0.0, 0.3, 1.0])
def test_identical_priors_one_cluster(J):
    rows = np.tile([0.2, 0.3, 0.5], (7, 1))
    bk = bk_clusters(rows, J)
    assert bk.n_distinct == 1
    assert bk.n_clusters == 1
    assert list(bk.sizes) == [7]
    assert bk.max_within_jsd()[0] == 0.0


def test_dedup_rounds_to_12_decimals():
    base = np.array([0.25, 0.75])
    eps = np.array([1.0, -1.0])
    rows = np.array([base, base + 1e-14 * eps, base + 1e-9 * eps])
    bk = bk_clusters(rows, 0.0)
    assert bk.n_distinct == 2
    assert list(bk.cluster_of_record) == [0, 0, 1]


def test_priors_input_and_counts():
    per_tuple = np.array([[0.9, 0.1], [0.1, 0.9], [0.9, 0.1], [0.85, 0.15]])
    inverse = np.array([1, 1, 0, 2, 3, 0, 1])
    priors = Priors(per_tuple, inverse, np.array(["a", "b"]))
    bk = bk_clusters(priors, 0.05)
    assert bk.cluster_of_record.shape == (7,)
    # rows 0 and 2 are the same vector; record 0 holds row 1, so its cluster is numbered 0
    assert bk.n_distinct == 3
    assert list(bk.cluster_of_record) == [0, 0, 1, 1, 1, 1, 0]
    assert list(bk.sizes) == [3, 4]
    _check_invariants(bk, priors.per_record(), 0.05)
    weighted = bk_clusters(priors, 0.05, counts=[10, 1, 5, 2])
    assert list(weighted.sizes) == [1, 17]
    assert list(weighted.counts) == [1, 15, 2]


def test_array_input_with_counts_of_distinct_vectors():
    rows = np.array([[0.5, 0.5], [0.6, 0.4], [0.0, 1.0]])
    bk = bk_clusters(rows, 0.1, counts=[100, 50, 3])
    assert list(bk.cluster_of_record) == [0, 0, 1]
    assert list(bk.sizes) == [150, 3]


def test_single_and_empty_input():
    one = bk_clusters(np.array([[0.4, 0.6]]), 0.5)
    assert one.n_clusters == 1 and list(one.sizes) == [1]
    empty = bk_clusters(np.zeros((0, 2)), 0.5)
    assert empty.n_clusters == 0 and empty.cluster_of_record.shape == (0,)


def test_condensed_matches_pairwise():
    rng = np.random.default_rng(3)
    v = rng.dirichlet(np.ones(3), size=9)
    expected = [jsd(v[a], v[b]) for a, b in combinations(range(9), 2)]
    np.testing.assert_allclose(condensed_jsd(v), expected, atol=1e-15)


def test_condensed_in_small_blocks(monkeypatch):
    import anonkit.knowledge.clustering as mod

    rng = np.random.default_rng(4)
    v = rng.dirichlet(np.ones(2), size=40)
    whole = condensed_jsd(v)
    monkeypatch.setattr(mod, "BLOCK_ELEMENTS", 7)
    np.testing.assert_array_equal(condensed_jsd(v), whole)


def test_errors():
    rows = np.array([[0.5, 0.5], [0.1, 0.9], [0.3, 0.7]])
    with pytest.raises(InputError, match="J"):
        bk_clusters(rows, -0.1)
    with pytest.raises(InputError, match="J"):
        bk_clusters(rows, float("nan"))
    with pytest.raises(InputError, match="2-D"):
        bk_clusters(np.array([0.5, 0.5]), 0.5)
    with pytest.raises(InputError, match="sum to 1"):
        bk_clusters(np.array([[0.5, 0.6]]), 0.5)
    with pytest.raises(InputError, match="non-negative"):
        bk_clusters(np.array([[1.5, -0.5]]), 0.5)
    with pytest.raises(InputError, match="counts"):
        bk_clusters(rows, 0.5, counts=[1, 2])
    with pytest.raises(InputError, match="max_distinct"):
        bk_clusters(rows, 0.5, max_distinct=2)
    # no pairwise matrix is needed for J = 0 or J ≥ 1, so the limit does not apply
    assert bk_clusters(rows, 0.0, max_distinct=2).n_clusters == 3
    assert bk_clusters(rows, 1.0, max_distinct=2).n_clusters == 1


# ---------------------------------------------------------------------- Adult


@pytest.fixture(scope="module")
def adult_priors(adult_bk_table) -> Priors:
    return kernel_priors(adult_bk_table, "salary-class")


@pytest.mark.parametrize("J", [0.01, 0.8])
def test_adult_phase1(adult_priors, J, record_property, capsys):
    start = time.perf_counter()
    bk = bk_clusters(adult_priors, J)
    elapsed = time.perf_counter() - start
    record_property("n_distinct_priors", bk.n_distinct)
    with capsys.disabled():
        print(
            f"\nAdult (age, sex, education): {adult_priors.size} distinct QI tuples, "
            f"{bk.n_distinct} distinct prior vectors, J={J}: {bk.n_clusters} BK clusters in {elapsed:.2f} s"
        )
    assert 1000 < bk.n_distinct <= adult_priors.size
    assert bk.cluster_of_record.shape == (adult_priors.n,)
    assert bk.sizes.sum() == adult_priors.n
    assert np.all(bk.max_within_jsd() <= J + 1e-12)


def test_kernel_delta_is_the_shared_qi_distance() -> None:
    """The numba kernels' categorical δ (from QISpace's ancestor table) equals
    :func:`anonkit.distance.leaf_delta`, missing leaves included (spec §0.3)."""
    from anonkit.algorithms.cluster._bk_engine import QISpace
    from anonkit.algorithms.cluster._bk_kernels import _delta_cat
    from anonkit.distance import leaf_delta

    rows = [[v, v[:2] + "*", v[0] + "**", "*"] for v in ("111", "112", "121", "211", "212")] + [["", "*", "*", "*"]]
    h = Hierarchy(rows, name="z")
    frame = pd.DataFrame({"z": ["111", "112", "121", "211", "212", "", "111"], "s": list("abababa")})
    table = Table(frame, Schema.of(quasi=["z"], sensitive=["s"], hierarchies={"z": h}, types={"z": "categorical"}))
    space = QISpace(table, np.arange(table.n))
    used = space.used[0]
    blank = np.array([v == "" for v in h.leaves], dtype=bool)
    want = leaf_delta(h, used, used, missing=blank, same_is_zero=True)
    got = np.array([[_delta_cat(space.anc, 0, space.heights[0], a, b, space.miss[0]) for b in range(len(used))]
                    for a in range(len(used))])
    np.testing.assert_allclose(got, want, atol=0)
    assert want.max() == 1.0 and 0 < want[0, 1] < want[0, 2] < want[0, 3] == 1
