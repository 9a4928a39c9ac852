"""Tests of the hierarchy builders (anonkit.hierarchy.builders)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonkit.errors import InputError
from anonkit.hierarchy._core import Hierarchy
from anonkit.hierarchy.builders import dates, from_parent_map, intervals, masking, nested, order


def row_of(h: Hierarchy, leaf: str) -> list[str]:
    return h.row(h.index()[leaf])


def node(h: Hierarchy, level: int, label: str) -> int:
    hits = np.flatnonzero(h.labels[level] == label)
    assert hits.size == 1, (level, label, list(h.labels[level]))
    return int(hits[0])


# ------------------------------------------------------------------------------------------ intervals
AGES = list(range(17, 91))


@pytest.fixture(scope="module")
def ages() -> Hierarchy:
    # shuffled, with repeats and floats: leaves are the distinct canonical texts, sorted numerically
    rng = np.random.default_rng(1)
    values = [float(a) for a in rng.permutation(AGES)] + [40, 17]
    return intervals(values, width=5, fanout=2, top=80, name="age")


def test_intervals_rows_with_top_coding(ages: Hierarchy) -> None:
    assert ages.height == 6
    assert list(ages.leaves) == [str(a) for a in AGES]
    assert row_of(ages, "17") == ["17", "[15-20[", "[15-25[", "[15-35[", "[15-55[", "[15-80[", "*"]
    assert row_of(ages, "20") == ["20", "[20-25[", "[15-25[", "[15-35[", "[15-55[", "[15-80[", "*"]
    assert row_of(ages, "57") == ["57", "[55-60[", "[55-65[", "[55-75[", "[55-80[", "[15-80[", "*"]
    # the groups above 80 are clipped at the top-coding bound
    assert row_of(ages, "79") == ["79", "[75-80[", "[75-80[", "[75-80[", "[55-80[", "[15-80[", "*"]
    for a in (80, 85, 90):
        assert row_of(ages, str(a)) == [str(a), ">=80", ">=80", ">=80", ">=80", ">=80", "*"]
    assert [ages.size(level) for level in range(7)] == [74, 14, 8, 5, 3, 2, 1]


def test_intervals_bounds_and_interval_share(ages: Hierarchy) -> None:
    span = 90 - 17
    assert ages.bounds is not None
    assert [b.shape for b in ages.bounds] == [(ages.size(level), 2) for level in range(7)]
    # leaves: the value itself, share 0
    np.testing.assert_array_equal(ages.bounds[0][node(ages, 0, "42")], [42, 42])
    np.testing.assert_array_equal(ages.interval_share[0], np.zeros(74))
    # the interval's own ends, not min/max of the leaves below (17..19)
    expected = {
        (1, "[15-20["): ([15, 20], 5 / span),
        (2, "[55-65["): ([55, 65], 10 / span),
        (4, "[55-80["): ([55, 80], 25 / span),
        (5, "[15-80["): ([15, 80], 65 / span),
        (1, ">=80"): ([80, 90], 10 / span),
        (5, ">=80"): ([80, 90], 10 / span),
        (6, "*"): ([17, 90], 1.0),
    }
    for (level, label), (bounds, share) in expected.items():
        code = node(ages, level, label)
        np.testing.assert_allclose(ages.bounds[level][code], bounds)
        assert ages.interval_share[level][code] == pytest.approx(share)
    # a node's interval contains every leaf below it
    for level in range(1, 7):
        lo, hi = ages.bounds[level][ages.maps[level]].T
        leaf = np.array(AGES, dtype=float)
        assert np.all((lo <= leaf) & (leaf <= hi))


def test_intervals_default_levels_without_coding() -> None:
    h = intervals(AGES, width=5)
    # 16 intervals [15-20[ .. [90-95[, merged pairwise; the level with one interval would equal *
    assert h.height == 5
    assert row_of(h, "90") == ["90", "[90-95[", "[85-95[", "[75-95[", "[55-95[", "*"]
    assert h.size(4) == 2


def test_intervals_bottom_start_levels_label_and_missing() -> None:
    h = intervals(
        [3, 12, 27, None, 44, "", 61],
        width=10,
        fanout=3,
        bottom=10,
        top=60,
        levels=3,
        label="{lo}..{hi}",
        name="x",
    )
    assert h.rows() == [
        ["3", "<10", "<10", "*"],
        ["12", "10..20", "10..40", "*"],
        ["27", "20..30", "10..40", "*"],
        ["44", "40..50", "40..60", "*"],  # [40, 70[ clipped at the top coding
        ["61", ">=60", ">=60", "*"],
        ["", "", "", "*"],
    ]
    np.testing.assert_allclose(h.bounds[1][node(h, 1, "<10")], [3, 10])
    np.testing.assert_allclose(h.bounds[2][node(h, 2, "40..60")], [40, 60])
    assert np.isnan(h.bounds[1][node(h, 1, "")]).all()
    assert h.interval_share[1][node(h, 1, "")] == 0
    assert h.interval_share[2][node(h, 2, "40..60")] == pytest.approx(20 / 58)
    # the hierarchy encodes the data it was built from, missing values included
    assert h.encode([27, None, 3.0]).tolist() == [2, 5, 0]


def test_intervals_explicit_start_and_float_width() -> None:
    h = intervals([0.25, 0.3, 0.45], width=0.1, start=0.05, levels=2)
    assert h.rows() == [["0.25", "[0.25-0.35[", "*"], ["0.3", "[0.25-0.35[", "*"], ["0.45", "[0.45-0.55[", "*"]]
    h = intervals([0.1, 0.2, 0.3], width=0.1, levels=2)  # 0.3 / 0.1 rounds to 2.9999999999999996
    assert [r[1] for r in h.rows()] == ["[0.1-0.2[", "[0.2-0.3[", "[0.3-0.4["]
    # (6.8999999999999995 - 0.1) / 0.1 rounds up to 68.0, yet the value is below 6.9;
    # 1.7 / 0.1 is exactly 17.0 although 0.1 + 16 * 0.1 is 1.7000000000000002
    h = intervals([1.7, 6.8999999999999995], width=0.1, start=0.1, levels=2)
    assert [r[:2] for r in h.rows()] == [["1.7", "[1.7-1.8["], ["6.8999999999999995", "[6.8-6.9["]]
    np.testing.assert_array_equal(h.bounds[1][node(h, 1, "[6.8-6.9[")], [6.8, 6.9])


def test_intervals_non_numeric_value_names_value_and_row() -> None:
    with pytest.raises(InputError, match=r"value 'abc', row 3\)") as err:
        intervals([30, 41, "abc", 52, "abc"], width=10, name="age")
    assert (err.value.column, err.value.value, err.value.row) == ("age", "abc", 3)
    with pytest.raises(InputError, match="row 2"):
        intervals(pd.Series([1.0, np.inf, 2.0], index=[10, 11, 12]), width=1)


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"width": 0}, "width"),
        ({"width": 5, "fanout": 1}, "fanout"),
        ({"width": 5, "levels": 1}, "levels"),
        ({"width": 5, "bottom": 50, "top": 20}, "bottom"),
        ({"width": 5, "label": "[{low}-{hi}["}, "label"),
    ],
)
def test_intervals_bad_parameters(kwargs: dict, key: str) -> None:
    with pytest.raises(InputError) as err:
        intervals(AGES, **kwargs)
    assert err.value.key == key


# ------------------------------------------------------------------------------------------ masking


def test_masking_zip_codes() -> None:
    h = masking(["47677", "47602", 47678, "47677"], name="zip")
    assert h.rows() == [
        ["47602", "4760*", "476**", "47***", "4****", "*****"],
        ["47677", "4767*", "476**", "47***", "4****", "*****"],
        ["47678", "4767*", "476**", "47***", "4****", "*****"],
    ]


def test_masking_left_levels_and_missing() -> None:
    h = masking(["abc", None, "abd"], direction="left", levels=2, char="#")
    assert h.rows() == [["abc", "#bc", "##c"], ["abd", "#bd", "##d"], ["", "", ""]]
    h = masking(["ab", ""], char="x")
    assert h.rows() == [["ab", "ax", "xx"], ["", "", "xx"]]


def test_masking_padding() -> None:
    h = masking(["123", "12345", "1"], pad="0")
    assert h.rows() == [
        ["1", "1000*", "100**", "10***", "1****", "*****"],
        ["123", "1230*", "123**", "12***", "1****", "*****"],
        ["12345", "1234*", "123**", "12***", "1****", "*****"],
    ]


def test_masking_different_lengths_without_pad() -> None:
    with pytest.raises(InputError, match="pad") as err:
        masking(["47677", "47677", "4760", "476"], name="zip")
    assert (err.value.value, err.value.row, err.value.column) == ("4760", 3, "zip")


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"levels": 6}, "levels"),
        ({"levels": 0}, "levels"),
        ({"direction": "up"}, "direction"),
        ({"char": "**"}, "char"),
    ],
)
def test_masking_bad_parameters(kwargs: dict, key: str) -> None:
    with pytest.raises(InputError) as err:
        masking(["47677"], **kwargs)
    assert err.value.key == key


# ------------------------------------------------------------------------------------------ dates


def test_dates_default_granularities() -> None:
    h = dates(["2021-03-05", "1999-12-31", "2021-03-05", None])
    assert h.rows() == [
        ["1999-12-31", "1999-12-31", "1999-12", "1999", "1990s", "*"],
        ["2021-03-05", "2021-03-05", "2021-03", "2021", "2020s", "*"],
        ["", "", "", "", "", "*"],
    ]


def test_dates_week_quarter_century_and_format() -> None:
    h = dates(
        ["31.12.2019", "05.03.2021", "04.07.1899"],
        granularities=["week", "quarter", "century"],
        format="%d.%m.%Y",
    )
    # leaves sorted by date; ISO week of 2019-12-31 is week 1 of 2020
    assert h.rows() == [
        ["04.07.1899", "1899-W27", "1899-Q3", "1800-1899", "*"],
        ["31.12.2019", "2020-W01", "2019-Q4", "2000-2099", "*"],
        ["05.03.2021", "2021-W09", "2021-Q1", "2000-2099", "*"],
    ]


def test_dates_unparseable_value() -> None:
    with pytest.raises(InputError, match="not a date") as err:
        dates(["2020-01-01", "2020-02-30", "2020-03-01"], format="%Y-%m-%d", name="birth")
    assert (err.value.value, err.value.row, err.value.column) == ("2020-02-30", 2, "birth")
    with pytest.raises(InputError, match="row 3"):
        dates(["2020-01-01", "2020-01-02", "soon"])


def test_dates_granularities_must_get_coarser_and_nest() -> None:
    with pytest.raises(InputError, match="coarser") as err:
        dates(["2020-01-01"], granularities=["year", "month"])
    assert err.value.key == "granularities"
    with pytest.raises(InputError, match="unknown"):
        dates(["2020-01-01"], granularities=["fortnight"])
    # 2019-12-31 and 2020-01-01 are both in ISO week 2020-W01 but in different months
    with pytest.raises(InputError, match="2020-W01") as err:
        dates(["2019-12-31", "2020-01-01"], granularities=["week", "month"])
    assert err.value.row == 2
    assert dates(["2020-01-06", "2020-01-07"], granularities=["week", "month"]).height == 3


# ------------------------------------------------------------------------------------------ order


def test_order_numeric_set_and_range_labels() -> None:
    values = [10, 3, 1, 2, 5, 4, 3]
    h = order(values, sizes=[2, 2], label="set")
    assert h.rows() == [
        ["1", "{1, 2}", "{1, 2, 3, 4}", "*"],
        ["2", "{1, 2}", "{1, 2, 3, 4}", "*"],
        ["3", "{3, 4}", "{1, 2, 3, 4}", "*"],
        ["4", "{3, 4}", "{1, 2, 3, 4}", "*"],
        ["5", "{5, 10}", "{5, 10}", "*"],
        ["10", "{5, 10}", "{5, 10}", "*"],
    ]
    h = order(values, sizes=[4], label="range")
    assert [r[1] for r in h.rows()] == ["1-4"] * 4 + ["5-10"] * 2
    # as text, "10" sorts before "2"
    h = order(values, sizes=[2], numeric=False, label="range")
    assert [r[0] for r in h.rows()] == ["1", "10", "2", "3", "4", "5"]
    assert h.row(0)[1] == "1-10"


def test_order_explicit_and_lexicographic() -> None:
    h = order(["low", "high", "mid", None], sizes=[2], order=["low", "mid", "high", "extreme"], label="range")
    assert h.rows() == [["low", "low-mid", "*"], ["mid", "low-mid", "*"], ["high", "high", "*"], ["", "", "*"]]
    h = order(["b", "c", "a"], sizes=[2])
    assert h.rows() == [["a", "{a, b}", "*"], ["b", "{a, b}", "*"], ["c", "{c}", "*"]]


def test_order_errors() -> None:
    with pytest.raises(InputError, match="explicit order") as err:
        order(["low", "high", "x"], sizes=[2], order=["low", "high"], name="level")
    assert (err.value.value, err.value.row) == ("x", 3)
    with pytest.raises(InputError, match="twice"):
        order(["a"], sizes=[1], order=["a", "a"])
    with pytest.raises(InputError, match="not a number") as err:
        order([1, "two"], sizes=[2], numeric=True)
    assert err.value.row == 2
    for bad in ([], [0], 3):
        with pytest.raises(InputError) as err:
            order([1, 2], sizes=bad)
        assert err.value.key == "sizes"
    with pytest.raises(InputError):
        order([1, 2], sizes=[2], label="prefix")


# ------------------------------------------------------------------------------------------ taxonomies


def test_nested_uneven_depth_repeats_leaf() -> None:
    h = nested(
        {"*": {"Europe": ["France", "Germany"], "Asia": {"East": ["China"], "South": ["India"]}, "Other": None}},
        name="country",
    )
    assert h.rows() == [
        ["France", "France", "Europe", "*"],
        ["Germany", "Germany", "Europe", "*"],
        ["China", "East", "Asia", "*"],
        ["India", "South", "Asia", "*"],
        ["Other", "Other", "Other", "*"],
    ]
    assert h.name == "country"


def test_nested_implicit_root_and_mixed_lists() -> None:
    h = nested({"A": ["a1", {"A2": ["a21", "a22"]}], "B": "b1"})
    assert h.rows() == [
        ["a1", "a1", "A", "*"],
        ["a21", "A2", "A", "*"],
        ["a22", "A2", "A", "*"],
        ["b1", "b1", "B", "*"],
    ]


def test_nested_errors() -> None:
    with pytest.raises(InputError, match="twice") as err:
        nested({"*": {"A": ["x"], "B": ["x"]}}, name="t")
    assert err.value.value == "x"
    with pytest.raises(InputError, match="functional"):
        nested({"*": {"A": {"Other": ["a"]}, "B": {"Other": ["b"]}}})
    with pytest.raises(InputError):
        nested({})
    with pytest.raises(InputError, match="no leaves"):
        nested({"*": []})


def test_from_parent_map() -> None:
    h = from_parent_map(
        {"France": "Europe", "Germany": "Europe", "China": "East", "East": "Asia", "Europe": "World", "Asia": "World"}
    )
    assert h.rows() == [
        ["France", "France", "Europe", "World"],
        ["Germany", "Germany", "Europe", "World"],
        ["China", "East", "Asia", "World"],
    ]
    # several roots: * is added on top
    assert from_parent_map({"a": "A", "b": "B"}).rows() == [["a", "A", "*"], ["b", "B", "*"]]
    with pytest.raises(InputError, match="cycle"):
        from_parent_map({"x": "y", "a": "b", "b": "a"})
    with pytest.raises(InputError, match="cycle"):
        from_parent_map({"a": "a"})


# ------------------------------------------------------------------------------------------ common


def test_missing_values_of_every_kind_are_leaves_that_encode() -> None:
    """Every kind of missing value (None, NaN, NaT, pd.NA) is the one value "" (canonical text)."""
    ints = pd.Series([4, None, 7], dtype="Int64")
    h = intervals(ints, width=5)
    assert h.rows() == [["4", "[0-5[", "*"], ["7", "[5-10[", "*"], ["", "", "*"]]
    assert h.encode(ints).tolist() == [0, 2, 1]
    stamps = pd.Series(pd.to_datetime(["2020-05-01", None]))
    h = dates(stamps, granularities=["year"])
    assert h.rows() == [["2020-05-01 00:00:00", "2020", "*"], ["", "", "*"]]
    assert h.encode(stamps).tolist() == [0, 1]


@pytest.mark.parametrize("values", [[], [None, "", np.nan]])
@pytest.mark.parametrize(
    "build",
    [
        lambda v: intervals(v, width=1, name="c"),
        lambda v: masking(v, name="c"),
        lambda v: dates(v, name="c"),
        lambda v: order(v, sizes=[2], name="c"),
    ],
)
def test_no_values(values: list, build) -> None:
    with pytest.raises(InputError, match="column 'c'"):
        build(values)
