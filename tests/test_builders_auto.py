"""The builders that choose their parameters from the data (ranges, periods, frequency, bins) and the
binning of a sensitive attribute into the ordered categories θ-sensitivity and angelization read."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.config import parse_config
from anonkit.errors import InputError
from anonkit.hierarchy.builder_params import BUILDER_SPECS
from anonkit.hierarchy.builders import bin_categories, bins, date_ladder, frequency, periods, ranges
from support import run_cli

EXAMPLES = Path(__file__).parent.parent / "examples"
_LABEL = re.compile(r"^\[(-?[\d.e+-]+?)(?:-(-?[\d.e+-]+))?([\[\]])$")


def covers(label: str, value: float) -> bool:
    """Whether the interval a label states (``[lo-hi[``, ``[lo-hi]``, ``[v]``) holds ``value``."""
    m = _LABEL.match(label)
    assert m, label
    lo = float(m.group(1))
    hi = float(m.group(2)) if m.group(2) is not None else lo
    return lo <= value <= hi if m.group(3) == "]" else lo <= value < hi


def assert_labels_cover(h, values) -> None:
    """Every value lies in its node's interval on every level below the top."""
    leaves = h.labels[0]
    for level in range(1, h.height):
        for code, leaf in enumerate(leaves):
            if leaf == "":
                continue
            label = h.labels[level][h.maps[level][code]]
            assert covers(str(label), float(leaf)), (level, leaf, label)


numbers = st.lists(st.one_of(st.integers(-1000, 1000),
                             st.floats(-1e4, 1e4, allow_nan=False).map(lambda x: round(x, 3))), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(numbers, st.sampled_from(["width", "frequency"]), st.integers(2, 12), st.integers(2, 4))
def test_ranges_labels_cover_their_values_on_every_level(values, method, groups, fanout) -> None:
    h = ranges(values, method=method, groups=groups, fanout=fanout)
    assert_labels_cover(h, values)
    assert h.labels[-1].tolist() == ["*"]
    assert len(h.labels[1]) <= max(groups + 1, 2) or method == "width"


def test_ranges_frequency_balances_the_records_and_width_is_round() -> None:
    ages = pd.Series([20] * 50 + list(range(21, 90)))
    h = ranges(ages, method="frequency", groups=4)
    level = pd.Series(h.labels[1][h.maps[1][h.encode(ages)]]).value_counts()
    assert level.max() <= 2 * level.min() + 50  # the 50 twenties stay one value, never split
    h = ranges(pd.Series(range(17, 91)), method="width")
    assert h.labels[1][0] == "[10-20[" and h.labels[1][-1] == "[90-100["  # ends where the values do
    with pytest.raises(InputError, match="not a finite number"):
        ranges(["1", "x"])
    with pytest.raises(InputError, match="method"):
        ranges([1, 2], method="quantile")


def test_periods_ladder_follows_the_span() -> None:
    assert date_ladder(["1940-03-04", "2004-12-31"]) == ["month", "year", "decade"]
    assert date_ladder(["1890-03-04", "2004-12-31"]) == ["month", "year", "decade", "century"]
    assert date_ladder(["2020-01-05", "2020-03-01"]) == ["month", "quarter", "year"]
    assert date_ladder(["2020-01-01 10:30", "2020-01-02"]) == ["hour", "day", "month", "quarter", "year"]
    assert date_ladder(["2020-01-01", "2020-02-01"]) == ["quarter", "year"]  # months already
    h = periods(["1950-03-04", "2001-12-31", None])
    assert [list(x) for x in h.labels[1:3]] == [["1950-03", "2001-12", ""], ["1950", "2001", ""]]
    with pytest.raises(InputError, match="soon"):
        periods(["2020-01-01", "soon"])


def test_frequency_merges_the_rare_categories_first() -> None:
    values = pd.Series(["a"] * 40 + ["b"] * 30 + ["c"] * 20 + ["d"] * 5 + ["e"] * 3 + ["f"] * 2)
    h = frequency(values)
    for level in range(1, h.height):
        merged = [leaf for code, leaf in enumerate(h.labels[0]) if h.labels[level][h.maps[level][code]] != leaf]
        kept = [leaf for leaf in h.labels[0] if leaf not in merged]
        counts = values.value_counts()
        assert len(merged) >= 2 and counts[merged].max() <= counts[kept].min()
    assert h.labels[1].tolist() == ["a", "b", "c", "other (3 values)"]
    assert frequency(["x", "y"]).height == 1  # two values: nothing to merge but into *
    other = frequency(["other (2 values)"] * 5 + ["p", "q", "r"])  # a category named like the group
    assert "other (2 values)*" in other.labels[1].tolist()


@settings(max_examples=40, deadline=None)
@given(numbers, st.integers(2, 7), st.sampled_from(["frequency", "width"]))
def test_bins_cover_their_values_and_are_ordered(values, count, method) -> None:
    h = bins(values, count=count, method=method)
    assert_labels_cover(h, values)
    mapping, order = bin_categories(h)
    lows = [float(_LABEL.match(b).group(1)) for b in order]
    assert lows == sorted(lows) and len(order) <= count
    assert set(mapping) == {str(v) for v in h.labels[0] if v != ""}


def test_bins_with_edges_refuse_a_value_outside() -> None:
    mapping, order = bin_categories(bins([1, 5, 10, 20], edges=[0, 10, 20]))
    assert order == ["[0-10[", "[10-20]"] and mapping["10"] == "[10-20]"
    with pytest.raises(InputError, match="outside the bins' edges") as exc:
        bins([1, 5, 25], edges=[0, 10, 20])
    assert exc.value.value == "25" and exc.value.row == 3
    with pytest.raises(Exception, match="strictly increasing"):
        BUILDER_SPECS["bins"].model_validate({"builder": "bins", "edges": [3, 1]})


# ------------------------------------------------------------------------------- categories by binning
def _costs(tmp: Path) -> Path:
    """The one-to-many example's diagnoses with a numeric sensitive cost per diagnosis record."""
    frame = pd.read_csv(EXAMPLES / "files" / "diagnoses.csv", dtype=str)
    codes = pd.factorize(frame["diagnosis"], sort=True)[0]
    frame["cost"] = (codes * 137 % 1000 + 50).astype(str)
    frame = frame.drop(columns=["diagnosis"])
    frame.to_csv(tmp / "costs.csv", index=False)
    return tmp / "costs.csv"


def _one_to_many(tmp: Path, categories: object, algorithm: dict) -> Path:
    _costs(tmp)
    cfg = {
        "input": {"path": "costs.csv"},
        "attributes": {"person": {"role": "person"}, "age": {"role": "quasi"}, "sex": {"role": "quasi"},
                       "race": {"role": "quasi"}, "marital-status": {"role": "quasi"},
                       "education": {"role": "quasi"}, "native-country": {"role": "quasi"},
                       "workclass": {"role": "quasi"}, "cost": {"role": "sensitive", "categories": categories}},
        "privacy": [{"model": "k-anonymity", "k": 4},
                    {"model": "theta-sensitivity", "attribute": "cost", "k": 4, "lambda": 0.5}],
        "algorithm": algorithm,
        "output": {"path": "out.csv"},
    }
    (tmp / "c.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    return tmp / "c.yaml"


def test_binned_categories_feed_theta_sensitivity(tmp_path: Path) -> None:
    config = _one_to_many(tmp_path, {"builder": "bins", "count": 5}, {"name": "angelization", "order": "qi",
                                                                       "repair": "swap"})
    code, out, err = run_cli("anonymize", str(config))
    assert code == 0, err
    assert (tmp_path / "out-st.csv").exists() and "Verdict" in out
    # the control: without categories the same run is refused (θ-sensitivity reads the bins)
    cfg = yaml.safe_load(config.read_text())
    del cfg["attributes"]["cost"]["categories"]
    config.write_text(yaml.safe_dump(cfg, sort_keys=False))
    code, _, err = run_cli("anonymize", str(config))
    assert code == 2 and "categor" in err


def test_binned_categories_reach_the_schema(tmp_path: Path) -> None:
    from anonkit.plan.load import config_schema, load_input

    config = parse_config(yaml.safe_load(_one_to_many(tmp_path, {"builder": "bins", "count": 3},
                                                      {"name": "angelization"}).read_text()))
    frame, defaults = load_input(config, tmp_path)
    attr = config_schema(config, tmp_path, defaults, frame).attributes["cost"]
    assert len(attr.category_order) == 3 and set(attr.categories.values()) == set(attr.category_order)
    assert all(covers(attr.categories[v], float(v)) for v in frame["cost"].unique())


def test_categories_take_the_bins_builder_only(tmp_path: Path) -> None:
    config = yaml.safe_load(_one_to_many(tmp_path, {"builder": "frequency"}, {"name": "angelization"}).read_text())
    with pytest.raises(InputError, match="bins builder only"):
        parse_config(config)
    config["attributes"]["cost"]["categories"] = {"builder": "bins", "count": 1}
    with pytest.raises(InputError, match=r"attributes\.cost\.categories\.count"):
        parse_config(config)
    config["attributes"]["cost"]["categories"] = {"builder": "bins"}
    config["attributes"]["cost"]["category_order"] = ["a", "b"]
    with pytest.raises(InputError, match="category_order"):
        parse_config(config)
    del config["attributes"]["cost"]["category_order"]
    assert parse_config(config).attributes["cost"].categories.builder == "bins"  # the control


def test_a_value_outside_the_edges_is_refused_in_a_run(tmp_path: Path) -> None:
    config = _one_to_many(tmp_path, {"builder": "bins", "edges": [0, 500]}, {"name": "angelization"})
    code, _, err = run_cli("anonymize", str(config))
    assert code == 2 and "outside the bins' edges" in err and "cost" in err
    assert not (tmp_path / "out-qt.csv").exists()


def test_new_builders_are_checked_like_the_others() -> None:
    for raw, words in (({"builder": "ranges", "method": "quantile"}, "method"),
                       ({"builder": "ranges", "grops": 5}, r"did you mean 'groups'\?"),
                       ({"builder": "frequency", "fanout": 1}, "fanout"),
                       ({"builder": "periods", "format": ""}, "format")):
        with pytest.raises(Exception, match=words):
            BUILDER_SPECS[raw["builder"]].model_validate(raw)
    assert np.isclose(BUILDER_SPECS["ranges"].model_validate({"builder": "ranges", "groups": 4}).groups, 4)
