"""MDAV on distinct tuples (issue 30): the groups of the tuple path (``_mdav_tuples``, what ``mdav``
runs) equal those of the record-by-record reference (``mdav.mdav_groups``) on random tables full of
duplicates, ties and missing values — numeric, categorical with and without hierarchies, mixed —
and the exact centroid mean does not depend on the order of the records."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit import Schema, Table
from anonkit.algorithms.cluster._mdav_combos import mdav_groups_combos
from anonkit.algorithms.cluster._mdav_tuples import _as_integer, exact_mean, mdav_groups_tuples
from anonkit.algorithms.cluster.mdav import _Space, mdav, mdav_groups
from anonkit.models import KAnonymity
from mdav_tables import random_table


def both_paths(table: Table, k: int, standardize: str) -> tuple[np.ndarray, np.ndarray]:
    """The reference's groups and the tuple path's; with one numeric QI the combination path's must
    be the same too."""
    space = _Space(table, np.flatnonzero(~table.presuppressed), standardize)
    reference, fast = mdav_groups(space, k), mdav_groups_tuples(space, k)
    if space.Z.shape[0] == 1:
        assert mdav_groups_combos(space, k).tolist() == reference.tolist()
    return reference, fast


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    n=st.integers(1, 70),
    k=st.integers(1, 6),
    numeric=st.sampled_from([0, 1, 1, 2]),
    categorical=st.booleans(),
    levels=st.sampled_from([1, 2, 3, 5, 1000]),
    missing=st.booleans(),
    standardize=st.sampled_from(["zscore", "minmax"]),
)
def test_tuple_path_equals_the_record_path(
    seed: int, n: int, k: int, numeric: int, categorical: bool, levels: int, missing: bool, standardize: str
) -> None:
    table = random_table(seed, n, numeric=numeric, categorical=categorical, levels=levels, missing=missing)
    reference, fast = both_paths(table, k, standardize)
    assert fast.tolist() == reference.tolist()


def test_ties_across_tuples_go_to_the_lowest_record() -> None:
    # 0 and 2 are tied around 1 at every round; their records interleave, so a path taking a whole
    # tuple before the next (instead of the lowest record indices) forms other groups
    values = [0, 2, 2, 0, 1, 0, 2, 1, 2, 0, 1, 1, 0, 2]
    frame = pd.DataFrame({"x": [str(v) for v in values]})
    table = Table(frame, Schema.of(quasi=["x"], types={"x": "numeric"}))
    for k in (2, 3, 4):
        reference, fast = both_paths(table, k, "zscore")
        assert fast.tolist() == reference.tolist()
    assert len(np.unique(reference)) >= 2


def test_mdav_release_is_the_reference_grouping() -> None:
    table = random_table(7, 300, numeric=2, categorical=True, levels=4, missing=True)
    reference, _ = both_paths(table, 4, "zscore")
    rel = mdav(table, [KAnonymity(4)], output="intervals")
    assert rel.record_group.tolist() == reference.tolist()
    assert rel.satisfied


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64, min_value=-1e12, max_value=1e12),
                       min_size=1, max_size=30), seed=st.integers(0, 1000))
def test_exact_mean_ignores_order_and_matches_the_integer_sum(values: list[float], seed: int) -> None:
    x = np.array(values)
    shuffled = np.random.default_rng(seed).permutation(x)
    assert exact_mean(x) == exact_mean(shuffled)
    scaled = sum(_as_integer(v) for v in values)
    assert (scaled / (1 << 1074)) / len(values) == exact_mean(x)


@pytest.mark.parametrize("value", [5e-324, -5e-324, 2.2250738585072014e-308, 0.1, -3.75, 1e300, 0.0])
def test_exact_integer_of_a_float(value: float) -> None:
    assert _as_integer(value) / (1 << 1074) == value
    assert math.isnan(exact_mean(np.array([])))
