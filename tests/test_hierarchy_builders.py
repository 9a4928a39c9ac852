"""Tests of the hierarchy builders (anonkit.hierarchy.builders)."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

from anonkit.errors import InputError
from anonkit.hierarchy import builders
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


# ------------------------------------------------------------------------------------------ intervals: goldens
# Interval hierarchies with bottom/top coding, fanout, width, start and label as built by the builders
# before they were split into one module per builder (generated with ``builders.py`` at git 4805bfb): every
# leaf's labels on every level and, per level above the leaves in node-code order, each node's label, bounds
# and interval share (None: NaN). The split must not change any of them.
INTERVAL_CASES: dict[str, dict] = {
    "coded_fanout3": dict(
        values=[17, 23, 23.0, 31, 38, 45, 52, 59, 64, 71, 88, None], width=5, fanout=3, bottom=20, top=70
    ),
    "float_width_label": dict(
        values=[0.05, 0.12, 0.3, 0.31, 0.58, 0.9, 1.25, "", 2.0],
        width=0.1,
        fanout=2,
        bottom=0.1,
        top=1.5,
        levels=5,
        label="{lo}..{hi}",
    ),
    "negative_top_fanout4": dict(values=[-13, -7, -1, 0, 4, 9, 15, 26, 40], width=4, fanout=4, top=20),
    "bottom_start": dict(values=[3, 8, 12, 19, 27, 33, 41], width=7.5, fanout=2, bottom=10, start=2.5, levels=4),
    "only_coded": dict(values=[1, 2, 99, None], width=10, bottom=5, top=50),
    "all_equal": dict(values=[7, 7.0, "7"], width=3, bottom=0, top=10),
}

INTERVAL_GOLDENS: dict[str, dict] = {
    "coded_fanout3": {
        "rows": [
            "17;<20;<20;<20;*",
            "23;[20-25[;[20-35[;[20-65[;*",
            "31;[30-35[;[20-35[;[20-65[;*",
            "38;[35-40[;[35-50[;[20-65[;*",
            "45;[45-50[;[35-50[;[20-65[;*",
            "52;[50-55[;[50-65[;[20-65[;*",
            "59;[55-60[;[50-65[;[20-65[;*",
            "64;[60-65[;[50-65[;[20-65[;*",
            "71;>=70;>=70;>=70;*",
            "88;>=70;>=70;>=70;*",
            ";;;;*",
        ],
        "nodes": [
            {
                "<20": (17, 20, 0.04225352112676056),
                "[20-25[": (20, 25, 0.07042253521126761),
                "[30-35[": (30, 35, 0.07042253521126761),
                "[35-40[": (35, 40, 0.07042253521126761),
                "[45-50[": (45, 50, 0.07042253521126761),
                "[50-55[": (50, 55, 0.07042253521126761),
                "[55-60[": (55, 60, 0.07042253521126761),
                "[60-65[": (60, 65, 0.07042253521126761),
                ">=70": (70, 88, 0.2535211267605634),
                "": (None, None, 0),
            },
            {
                "<20": (17, 20, 0.04225352112676056),
                "[20-35[": (20, 35, 0.2112676056338028),
                "[35-50[": (35, 50, 0.2112676056338028),
                "[50-65[": (50, 65, 0.2112676056338028),
                ">=70": (70, 88, 0.2535211267605634),
                "": (None, None, 0),
            },
            {
                "<20": (17, 20, 0.04225352112676056),
                "[20-65[": (20, 65, 0.6338028169014085),
                ">=70": (70, 88, 0.2535211267605634),
                "": (None, None, 0),
            },
            {"*": (17, 88, 1)},
        ],
    },
    "float_width_label": {
        "rows": [
            "0.05;<0.1;<0.1;<0.1;<0.1;*",
            "0.12;0.1..0.2;0.1..0.3;0.1..0.5;0.1..0.9;*",
            "0.3;0.3..0.4;0.3..0.5;0.1..0.5;0.1..0.9;*",
            "0.31;0.3..0.4;0.3..0.5;0.1..0.5;0.1..0.9;*",
            "0.58;0.5..0.6;0.5..0.7;0.5..0.9;0.1..0.9;*",
            "0.9;0.9..1;0.9..1.1;0.9..1.3;0.9..1.5;*",
            "1.25;1.2..1.3;1.1..1.3;0.9..1.3;0.9..1.5;*",
            "2;>=1.5;>=1.5;>=1.5;>=1.5;*",
            ";;;;;*",
        ],
        "nodes": [
            {
                "<0.1": (0.05, 0.1, 0.025641025641025644),
                "0.1..0.2": (0.1, 0.2, 0.05128205128205129),
                "0.3..0.4": (0.3, 0.4, 0.0512820512820513),
                "0.5..0.6": (0.5, 0.6, 0.05128205128205127),
                "0.9..1": (0.9, 1, 0.05128205128205127),
                "1.2..1.3": (1.2, 1.3, 0.05128205128205133),
                ">=1.5": (1.5, 2, 0.25641025641025644),
                "": (None, None, 0),
            },
            {
                "<0.1": (0.05, 0.1, 0.025641025641025644),
                "0.1..0.3": (0.1, 0.3, 0.10256410256410256),
                "0.3..0.5": (0.3, 0.5, 0.10256410256410257),
                "0.5..0.7": (0.5, 0.7, 0.10256410256410255),
                "0.9..1.1": (0.9, 1.1, 0.1025641025641026),
                "1.1..1.3": (1.1, 1.3, 0.10256410256410255),
                ">=1.5": (1.5, 2, 0.25641025641025644),
                "": (None, None, 0),
            },
            {
                "<0.1": (0.05, 0.1, 0.025641025641025644),
                "0.1..0.5": (0.1, 0.5, 0.20512820512820515),
                "0.5..0.9": (0.5, 0.9, 0.20512820512820515),
                "0.9..1.3": (0.9, 1.3, 0.20512820512820515),
                ">=1.5": (1.5, 2, 0.25641025641025644),
                "": (None, None, 0),
            },
            {
                "<0.1": (0.05, 0.1, 0.025641025641025644),
                "0.1..0.9": (0.1, 0.9, 0.4102564102564103),
                "0.9..1.5": (0.9, 1.5, 0.3076923076923077),
                ">=1.5": (1.5, 2, 0.25641025641025644),
                "": (None, None, 0),
            },
            {"*": (0.05, 2, 1)},
        ],
    },
    "negative_top_fanout4": {
        "rows": [
            "-13;[-16--12[;[-16-0[;[-16-20[;*",
            "-7;[-8--4[;[-16-0[;[-16-20[;*",
            "-1;[-4-0[;[-16-0[;[-16-20[;*",
            "0;[0-4[;[0-16[;[-16-20[;*",
            "4;[4-8[;[0-16[;[-16-20[;*",
            "9;[8-12[;[0-16[;[-16-20[;*",
            "15;[12-16[;[0-16[;[-16-20[;*",
            "26;>=20;>=20;>=20;*",
            "40;>=20;>=20;>=20;*",
        ],
        "nodes": [
            {
                "[-16--12[": (-16, -12, 0.07547169811320754),
                "[-8--4[": (-8, -4, 0.07547169811320754),
                "[-4-0[": (-4, 0, 0.07547169811320754),
                "[0-4[": (0, 4, 0.07547169811320754),
                "[4-8[": (4, 8, 0.07547169811320754),
                "[8-12[": (8, 12, 0.07547169811320754),
                "[12-16[": (12, 16, 0.07547169811320754),
                ">=20": (20, 40, 0.37735849056603776),
            },
            {
                "[-16-0[": (-16, 0, 0.3018867924528302),
                "[0-16[": (0, 16, 0.3018867924528302),
                ">=20": (20, 40, 0.37735849056603776),
            },
            {"[-16-20[": (-16, 20, 0.6792452830188679), ">=20": (20, 40, 0.37735849056603776)},
            {"*": (-13, 40, 1)},
        ],
    },
    "bottom_start": {
        "rows": [
            "3;<10;<10;<10;*",
            "8;<10;<10;<10;*",
            "12;[10-17.5[;[10-17.5[;[10-32.5[;*",
            "19;[17.5-25[;[17.5-32.5[;[10-32.5[;*",
            "27;[25-32.5[;[17.5-32.5[;[10-32.5[;*",
            "33;[32.5-40[;[32.5-47.5[;[32.5-62.5[;*",
            "41;[40-47.5[;[32.5-47.5[;[32.5-62.5[;*",
        ],
        "nodes": [
            {
                "<10": (3, 10, 0.18421052631578946),
                "[10-17.5[": (10, 17.5, 0.19736842105263158),
                "[17.5-25[": (17.5, 25, 0.19736842105263158),
                "[25-32.5[": (25, 32.5, 0.19736842105263158),
                "[32.5-40[": (32.5, 40, 0.19736842105263158),
                "[40-47.5[": (40, 47.5, 0.19736842105263158),
            },
            {
                "<10": (3, 10, 0.18421052631578946),
                "[10-17.5[": (10, 17.5, 0.19736842105263158),
                "[17.5-32.5[": (17.5, 32.5, 0.39473684210526316),
                "[32.5-47.5[": (32.5, 47.5, 0.39473684210526316),
            },
            {
                "<10": (3, 10, 0.18421052631578946),
                "[10-32.5[": (10, 32.5, 0.5921052631578947),
                "[32.5-62.5[": (32.5, 62.5, 0.7894736842105263),
            },
            {"*": (3, 41, 1)},
        ],
    },
    "only_coded": {
        "rows": ["1;<5;*", "2;<5;*", "99;>=50;*", ";;*"],
        "nodes": [{"<5": (1, 5, 0.04081632653061224), ">=50": (50, 99, 0.5), "": (None, None, 0)}, {"*": (1, 99, 1)}],
    },
    "all_equal": {"rows": ["7;[6-9[;*"], "nodes": [{"[6-9[": (6, 9, 1)}, {"*": (7, 7, 1)}]},
}


@pytest.mark.parametrize("case", sorted(INTERVAL_CASES))
def test_intervals_goldens_from_before_the_split(case: str) -> None:
    kwargs = dict(INTERVAL_CASES[case])
    h = intervals(kwargs.pop("values"), name="x", **kwargs)
    expected = INTERVAL_GOLDENS[case]
    assert [";".join(r) for r in h.rows()] == expected["rows"]
    assert h.height == len(expected["nodes"])
    for level, nodes in enumerate(expected["nodes"], start=1):
        assert list(h.labels[level]) == list(nodes), level
        want = np.array([[np.nan if x is None else x for x in node] for node in nodes.values()], dtype=float)
        got = np.column_stack([h.bounds[level], h.interval_share[level]])
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0, equal_nan=True, err_msg=f"level {level}")


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


# ------------------------------------------------------------------------------------------ the package


@pytest.mark.parametrize(
    ("name", "module"),
    [
        ("intervals", "intervals"),
        ("masking", "masking"),
        ("dates", "dates"),
        ("order", "order"),
        ("nested", "nested"),
        ("from_parent_map", "nested"),
    ],
)
def test_one_module_per_builder(name: str, module: str) -> None:
    # the pipeline looks builders up by name: getattr(builders, "intervals") must be the function
    fn = getattr(builders, name)
    assert callable(fn) and fn.__name__ == name
    assert fn.__module__ == f"anonkit.hierarchy.builders.{module}"
    assert getattr(sys.modules[fn.__module__], name) is fn
    assert name in builders.__all__


def test_package_exports() -> None:
    assert builders.DATE_GRANULARITIES[0] == "minute" and builders.DATE_GRANULARITIES[-1] == "millennium"
    assert builders.TOP == "*"
    assert set(builders.__all__) >= {"dates", "from_parent_map", "intervals", "masking", "nested", "order"}
    assert all(hasattr(builders, n) for n in builders.__all__)


def test_intervals_on_both_sides_of_start_need_levels() -> None:
    """Values below and above ``start`` never meet in one interval: without ``levels`` the builder
    says so (it used to loop for ever); with ``levels`` it builds the hierarchy."""
    with pytest.raises(InputError, match="below start and above it") as err:
        builders.intervals(["0", "5"], width=1, start=1)
    assert err.value.key == "start"
    assert builders.intervals(["0", "5"], width=1, start=1, levels=2).height == 2
