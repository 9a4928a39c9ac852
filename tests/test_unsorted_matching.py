"""The unsorted matching attack (Sweeney 2002, spec §2.8): two releases joined by row position."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonkit import Hierarchy, Schema, load_adult
from anonkit.analytics import unsorted_matching_attack
from anonkit.errors import InputError
from anonkit.models import KAnonymity
from anonkit.pipeline import anonymize

H_AGE = Hierarchy([[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 40)], name="age")
H_ZIP = Hierarchy([[z, z[:3] + "*", "*"] for z in ["1234", "1235", "1299", "1300"]], name="zip")
SCHEMA = Schema.of(quasi=["age", "zip"], sensitive=["s"], hierarchies={"age": H_AGE, "zip": H_ZIP},
                   types={"age": "numeric"})


def test_a_hand_made_pair_is_recovered_row_by_row() -> None:
    original = pd.DataFrame({"age": ["21", "25", "33", "38"], "zip": ["1234", "1235", "1299", "1300"],
                             "s": list("wxyz")})
    first = pd.DataFrame({"age": ["20-29", "20-29", "30-39", "30-39"], "zip": ["1234", "1235", "1299", "1300"]})
    second = pd.DataFrame({"age": ["21", "25", "33", "38"], "zip": ["123*", "123*", "*", "*"]})
    out = unsorted_matching_attack(first, second, original, SCHEMA)
    assert (out.name, out.successes, out.targets) == ("unsorted-matching", 4, 4)
    assert out.details["finer"] == 4 and out.details["empty"] == 0
    assert out.details["pinned_first"] == out.details["pinned_second"] == 0
    # rows 2 and 3 of the first release now hold records 3 and 2: the join pins the other record's
    # age (30-39 ∩ {33} = {33}, but record 3 is 38), so only rows 0 and 1 succeed
    swapped = unsorted_matching_attack(first.iloc[[0, 1, 3, 2]].reset_index(drop=True), second, original, SCHEMA,
                                       first_rows=[0, 1, 3, 2])
    assert swapped.successes == 2
    # a cell that pins nothing extra: the join is no finer than the first release alone
    coarse = second.assign(age=["*"] * 4, zip=["*"] * 4)
    out = unsorted_matching_attack(first, coarse, original, SCHEMA)
    assert out.successes == 0 and out.details["finer"] == 0


def _levels_pinned(table, levels_a: dict[str, int], levels_b: dict[str, int]) -> np.ndarray:
    """Records whose every quasi-identifier is the only value in the data under its node at the
    finer of the two levels (what the two generalizations jointly determine), from the hierarchies."""
    pinned = np.ones(table.n, dtype=bool)
    for j, name in enumerate(table.qi):
        h = table.hierarchies[j]
        node = h.maps[min(levels_a[name], levels_b[name])][table.codes[:, j]]
        leaves = pd.Series(table.codes[:, j]).groupby(node).nunique()
        pinned &= leaves.reindex(node).to_numpy() == 1
    return pinned


@pytest.fixture(scope="module")
def adult_pair():
    frame, hierarchies = load_adult()
    frame = frame.iloc[:6000]
    frame = frame[frame["marital-status"] != "Married-AF-spouse"].reset_index(drop=True)
    qi = ["age", "sex", "race", "education", "marital-status"]
    schema = Schema.of(quasi=qi, sensitive=["salary-class"], hierarchies={q: hierarchies[q] for q in qi},
                       default_role="insensitive")
    levels_a = {"age": 0, "sex": 1, "race": 1, "education": 2, "marital-status": 2}
    # marital status stays at level 1 in both: "spouse present" pins Married-civ-spouse where no record
    # is Married-AF-spouse, "spouse not present" pins nothing
    levels_b = {"age": 2, "sex": 0, "race": 0, "education": 0, "marital-status": 1}
    a = anonymize(frame, schema, [KAnonymity(1)], algorithm="fixed", levels=levels_a).release
    b = anonymize(frame, schema, [KAnonymity(1)], algorithm="fixed", levels=levels_b).release
    return frame, a, b, levels_a, levels_b


def test_unshuffled_full_domain_releases_give_away_what_they_jointly_determine(adult_pair) -> None:
    frame, a, b, levels_a, levels_b = adult_pair
    out = unsorted_matching_attack(a.generalized(), b.generalized(), frame, a.table.schema)
    expected = _levels_pinned(a.table, levels_a, levels_b)
    assert out.successes == int(expected.sum())
    married = (frame["marital-status"] == "Married-civ-spouse").to_numpy()
    assert "Married-AF-spouse" not in set(frame["marital-status"])
    np.testing.assert_array_equal(expected, married)  # the hierarchies say so too
    assert out.details["empty"] == 0
    assert out.details["finer"] == out.targets  # every row learns something neither release shows alone
    assert out.details["pinned_first"] == out.details["pinned_second"] == 0
    assert out.baseline < 0.2 * out.success


def test_shuffled_releases_leak_only_chance_agreement(adult_pair) -> None:
    frame, a, b, _, _ = adult_pair
    first, second = a.to_frame(seed=1), b.to_frame(seed=2)
    rows_a, rows_b = a.published_rows(seed=1), b.published_rows(seed=2)
    out = unsorted_matching_attack(first, second, frame, a.table.schema, first_rows=rows_a, second_rows=rows_b)
    unshuffled = unsorted_matching_attack(a.generalized(), b.generalized(), frame, a.table.schema)
    assert out.details["same_record"] <= 5  # ≈ 1 position in n holds the same record
    assert out.success < 0.1 * unshuffled.success
    lo, hi = out.ci
    b_lo, b_hi = out.baseline_ci  # type: ignore[misc]
    assert lo <= b_hi and b_lo <= hi  # the positional join is no better than a random one
    assert out.details["empty"] > 0.5 * out.targets  # misaligned rows mostly contradict each other


def test_the_baseline_follows_the_seed(adult_pair) -> None:
    frame, a, b, _, _ = adult_pair
    g1, g2 = a.generalized(), b.generalized()
    one = unsorted_matching_attack(g1, g2, frame, a.table.schema, seed=3)
    assert one == unsorted_matching_attack(g1, g2, frame, a.table.schema, seed=3)
    assert one.baseline_successes != unsorted_matching_attack(g1, g2, frame, a.table.schema, seed=4).baseline_successes


def test_bad_joins_are_refused() -> None:
    original = pd.DataFrame({"age": ["21", "25"], "zip": ["1234", "1235"], "s": ["x", "y"]})
    one = pd.DataFrame({"age": ["20-29", "20-29"], "zip": ["1234", "1235"]})
    with pytest.raises(InputError, match="different numbers of rows"):
        unsorted_matching_attack(one, one.iloc[:1], original, SCHEMA)
    with pytest.raises(InputError, match="one original record per released row"):
        unsorted_matching_attack(one, one, original, SCHEMA, first_rows=[0])
    with pytest.raises(InputError) as err:
        unsorted_matching_attack(one, one, original, SCHEMA, first_rows=[0, 7])
    assert err.value.row == 2
    with pytest.raises(InputError) as err:
        unsorted_matching_attack(one.assign(age=["20-29", "old"]), one, original, SCHEMA)
    assert (err.value.column, err.value.value, err.value.row) == ("age", "old", 2)
    with pytest.raises(InputError, match="no quasi-identifier"):
        unsorted_matching_attack(one[["zip"]], one[["age"]], original, SCHEMA)
