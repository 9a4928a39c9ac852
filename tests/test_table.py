"""The Table encoder: codes, distinct tuples, error messages and missing-value policies."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.algorithms.lattice.fixed import fixed
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy, read_hierarchy
from anonkit.models import KAnonymity
from anonkit.schema import Attribute, Schema
from anonkit.table import Table


def _text(col: pd.Series) -> list[str]:
    return [str(v) for v in col]


@pytest.fixture
def test_table(data_dir):
    frame = pd.read_csv(data_dir / "test.csv", sep=";", dtype=str, keep_default_na=False)
    hs = {c: read_hierarchy(data_dir / f"test_hierarchy_{c}.csv", name=c) for c in ("age", "gender", "zipcode")}
    schema = Schema.of(quasi=["age", "gender", "zipcode"], hierarchies=hs)
    return Table(frame, schema), frame


# ---------------------------------------------------------------------------- encoding
def test_codes_round_trip_to_labels(test_table):
    table, frame = test_table
    assert table.n == len(frame) == 7
    assert table.qi == ["age", "gender", "zipcode"]
    for j, name in enumerate(table.qi):
        h = table.hierarchies[j]
        assert list(h.leaves[table.codes[:, j]]) == _text(frame[name])
    assert table.heights == [h.height for h in table.hierarchies]
    assert table.hierarchy("gender").height == 1


def test_sensitive_codes_round_trip(test2_frame, test2_hierarchies):
    schema = Schema.of(
        quasi=["ZIPCode"],
        sensitive=["Salary", "Disease"],
        types={"Salary": "numeric"},
        hierarchies={"Disease": test2_hierarchies["Disease"]},
        default_role="insensitive",
    )
    table = Table(test2_frame, schema)
    for name in ("Salary", "Disease"):
        d = table.domains[name]
        assert list(d.labels[table.sensitive_codes[name]]) == list(test2_frame[name])
        assert d.reference.sum() == pytest.approx(1.0)
    # numeric domain sorted by number, not as text
    assert list(table.domains["Salary"].labels) == [str(v) for v in range(3, 12)]
    assert list(table.domains["Disease"].labels) == sorted(set(test2_frame["Disease"]))
    np.testing.assert_allclose(table.domains["Disease"].reference, [2 / 9, 1 / 9, 1 / 9, 2 / 9, 1 / 9, 2 / 9])
    assert table.domains["Disease"].height == 3


def test_ordinal_order_is_used(test2_frame):
    order = ["pneumonia", "flu", "bronchitis", "gastritis", "gastric ulcer", "stomach cancer", "colitis"]
    schema = Schema(
        {"ZIPCode": Attribute("ZIPCode", "quasi"),
         "Disease": Attribute("Disease", "sensitive", "ordinal", order=order)},
        default_role="insensitive",
    )
    table = Table(test2_frame, schema)
    assert list(table.domains["Disease"].labels) == order[:-1]  # only values present


def test_value_outside_declared_order_is_an_error(test2_frame):
    schema = Schema(
        {
            "ZIPCode": Attribute("ZIPCode", "quasi"),
            "Disease": Attribute("Disease", "sensitive", "ordinal", order=["flu", "gastritis"]),
        },
        default_role="insensitive",
    )
    with pytest.raises(InputError, match="declared order") as exc:
        Table(test2_frame, schema)
    assert exc.value.column == "Disease" and exc.value.value == "gastric ulcer" and exc.value.row == 1


def test_identifiers_dropped_and_columns_in_input_order():
    frame = pd.DataFrame({"name": ["x", "y"], "b": ["1", "2"], "a": ["p", "q"], "s": ["u", "v"]})
    schema = Schema.of(quasi=["a", "b"], sensitive=["s"], identifier=["name"])
    table = Table(frame, schema)
    assert "name" not in table.frame.columns
    assert table.qi == ["b", "a"]  # header order, as ARX
    assert list(table.frame.columns) == ["b", "a", "s"]


def test_bools_and_numbers_keep_their_own_text():
    col = pd.Series([True, 1, 0, False, 2], dtype=object)
    table = Table(pd.DataFrame({"q": col}), Schema.of(quasi=["q"]))
    h = table.hierarchies[0]
    assert list(h.leaves[table.codes[:, 0]]) == ["True", "1", "0", "False", "2"]


def test_numeric_and_date_values_are_kept():
    frame = pd.DataFrame({"age": [30, 41.5, None], "d": ["1970-01-02", "2000-01-01", "1970-01-01"]})
    table = Table(frame, Schema.of(quasi=["age", "d"], types={"age": "numeric", "d": "date"}))
    np.testing.assert_array_equal(table.numeric["age"][:2], [30.0, 41.5])
    assert np.isnan(table.numeric["age"][2])
    np.testing.assert_allclose(table.numeric["d"], [1.0, 10957.0, 0.0])
    assert list(table.hierarchies[0].leaves) == ["30", "41.5", ""]


def test_distinct_tuples_of_the_test_table(test_table):
    table, _ = test_table
    d = table.distinct
    assert d.counts.sum() == table.n
    np.testing.assert_array_equal(d.tuples[d.inverse], table.codes)
    assert d.size == 7  # all records differ


def test_tuple_classes_at_the_top_is_one_class(test_table):
    table, _ = test_table
    tc, n = table.tuple_classes(table.heights)
    assert n == 1 and (tc == 0).all()
    tc, n = table.tuple_classes([0, 1, 5])  # age exact, gender *, zipcode *
    assert n == 4  # ages 34, 45, 66, 70


@st.composite
def frames(draw):
    n = draw(st.integers(1, 50))
    cols = {}
    for j in range(draw(st.integers(1, 3))):
        alphabet = draw(
            st.lists(st.sampled_from(["a", "b", "c", "d", "7", "7.0", ""]), min_size=1, max_size=4, unique=True)
        )
        cols[f"q{j}"] = draw(st.lists(st.sampled_from(alphabet), min_size=n, max_size=n))
    cols["s"] = draw(st.lists(st.sampled_from(["x", "y", "z"]), min_size=n, max_size=n))
    cols["t"] = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return pd.DataFrame(cols)


@settings(max_examples=60, deadline=None)
@given(frames())
def test_distinct_and_pair_counts_sum_to_n(frame):
    qis = [c for c in frame.columns if c.startswith("q")]
    table = Table(frame, Schema.of(quasi=qis, sensitive=["s", "t"]))
    d = table.distinct
    n = len(frame)
    assert d.counts.sum() == n
    np.testing.assert_array_equal(d.tuples[d.inverse], table.codes)
    assert len({tuple(r) for r in d.tuples}) == d.size  # tuples are distinct
    np.testing.assert_array_equal(np.bincount(d.inverse, minlength=d.size), d.counts)
    for name in ("s", "t"):
        item, code, count = d.pairs[name]
        assert count.sum() == n
        assert len(set(zip(item.tolist(), code.tolist(), strict=True))) == len(item)
        for t, c, k in zip(item, code, count, strict=True):
            assert k == np.sum((d.inverse == t) & (table.sensitive_codes[name] == c))
    # class statistics of the bottom node reproduce the data
    tc, m = table.tuple_classes([0] * len(qis))
    stats = table.stats(tc, m)
    assert stats.sizes.sum() == n
    assert stats.hist["s"].sum() == n and stats.hist["t"].sum() == n


# ---------------------------------------------------------------------------- errors
def test_unknown_column_is_named():
    with pytest.raises(InputError, match="unknown column") as exc:
        Table(pd.DataFrame({"a": ["1"], "b": ["2"]}), Schema.of(quasi=["a", "zz"]))
    assert exc.value.column == "zz"
    assert "'zz'" in str(exc.value) and "a, b" in str(exc.value)


def test_duplicate_columns():
    frame = pd.DataFrame([["1", "2"]], columns=["a", "a"])
    with pytest.raises(InputError, match="duplicate column") as exc:
        Table(frame, Schema.of(quasi=["a"]))
    assert exc.value.column == "a"


def test_duplicate_columns_after_text_conversion():
    frame = pd.DataFrame([["1", "2"]], columns=[1, "1"])
    with pytest.raises(InputError, match="duplicate column"):
        Table(frame, Schema.of(quasi=["1"]))


def test_value_missing_from_hierarchy_names_column_value_and_row():
    h = Hierarchy([["a", "*"], ["b", "*"]], name="q")
    frame = pd.DataFrame({"q": ["a", "b", "a", "c", "a"]})
    with pytest.raises(InputError, match="missing from the hierarchy") as exc:
        Table(frame, Schema.of(quasi=["q"], hierarchies={"q": h}))
    assert (exc.value.column, exc.value.value, exc.value.row) == ("q", "c", 4)
    msg = str(exc.value)
    assert "'q'" in msg and "'c'" in msg and "row 4" in msg


def test_row_numbers_ignore_the_frame_index():
    h = Hierarchy([["a", "*"]], name="q")
    frame = pd.DataFrame({"q": ["a", "zz"]}, index=[10, 20])
    with pytest.raises(InputError) as exc:
        Table(frame, Schema.of(quasi=["q"], hierarchies={"q": h}))
    assert exc.value.row == 2


def test_mixed_types_in_numeric_column():
    frame = pd.DataFrame({"age": ["34", "45", "old", "70"]})
    with pytest.raises(InputError, match="mixed types") as exc:
        Table(frame, Schema.of(quasi=["age"], types={"age": "numeric"}))
    assert (exc.value.column, exc.value.value, exc.value.row) == ("age", "old", 3)


def test_mixed_types_in_numeric_sensitive_column():
    frame = pd.DataFrame({"q": ["a", "b"], "s": ["1", "x"]})
    with pytest.raises(InputError, match="mixed types") as exc:
        Table(frame, Schema.of(quasi=["q"], sensitive=["s"], types={"s": "numeric"}))
    assert exc.value.column == "s" and exc.value.value == "x"


def test_bad_date():
    with pytest.raises(InputError, match="not a date") as exc:
        Table(pd.DataFrame({"d": ["2020-01-01", "soon"]}), Schema.of(quasi=["d"], types={"d": "date"}))
    assert exc.value.row == 2


def test_empty_table():
    with pytest.raises(InputError, match="empty"):
        Table(pd.DataFrame({"a": pd.Series([], dtype=str)}), Schema.of(quasi=["a"]))


def test_max_level_out_of_range():
    schema = Schema({"a": Attribute("a", "quasi", max_level=2)})
    with pytest.raises(InputError, match="max_level") as exc:
        Table(pd.DataFrame({"a": ["x", "y"]}), schema)
    assert exc.value.column == "a"


def test_unknown_role_and_type():
    with pytest.raises(InputError, match="unknown role"):
        Schema({"a": Attribute("a", "secret")})
    with pytest.raises(InputError, match="unknown type"):
        Attribute("a", "quasi", "complex")
    with pytest.raises(InputError, match="two roles"):
        Schema.of(quasi=["a"], sensitive=["a"])


def test_unknown_type_in_schema_of_is_an_input_error():
    with pytest.raises(InputError, match="unknown type") as exc:
        Schema.of(quasi=["a"], types={"a": "complex"})
    assert exc.value.column == "a"


# ---------------------------------------------------------------------------- missing values
MISSING = pd.DataFrame({"q": ["a", "", None, "b", "a", "b"], "s": ["x", "y", "x", "y", "y", "x"]})


def test_missing_value_policy_value():
    table = Table(MISSING, Schema.of(quasi=["q"], sensitive=["s"]))
    assert not table.presuppressed.any()
    h = table.hierarchies[0]
    assert list(h.leaves[table.codes[:, 0]]) == ["a", "", "", "b", "a", "b"]  # "" and None are one value
    release = fixed(table, [KAnonymity(2)], levels=[0])
    assert release.satisfied and release.n_suppressed == 0


def test_missing_value_policy_value_needs_the_value_in_a_given_hierarchy():
    h = Hierarchy([["a", "*"], ["b", "*"]], name="q")
    with pytest.raises(InputError, match="missing from the hierarchy") as exc:
        Table(MISSING, Schema.of(quasi=["q"], sensitive=["s"], hierarchies={"q": h}))
    assert exc.value.row == 2 and exc.value.value == ""


def test_missing_value_policy_suppress():
    table = Table(MISSING, Schema.of(quasi=["q"], sensitive=["s"]), missing="suppress")
    np.testing.assert_array_equal(table.presuppressed, [False, True, True, False, False, False])
    release = fixed(table, [KAnonymity(2)], levels=[0])
    assert list(np.flatnonzero(release.suppressed)) == [1, 2]
    assert release.n_suppressed == 2
    out = release.to_frame()
    assert sorted(out["q"]) == ["a", "a", "b", "b"]
    marked = release.to_frame(suppressed="mark")
    assert (marked["q"] == "*").sum() == 2


def test_missing_value_policy_suppress_with_a_given_hierarchy():
    h = Hierarchy([["a", "*"], ["b", "*"]], name="q")
    table = Table(MISSING, Schema.of(quasi=["q"], sensitive=["s"], hierarchies={"q": h}), missing="suppress")
    np.testing.assert_array_equal(table.presuppressed, [False, True, True, False, False, False])
    release = fixed(table, [KAnonymity(2)], levels=[0])
    assert list(np.flatnonzero(release.suppressed)) == [1, 2]


def test_missing_value_policy_error():
    with pytest.raises(InputError, match="missing value") as exc:
        Table(MISSING, Schema.of(quasi=["q"], sensitive=["s"]), missing="error")
    assert (exc.value.column, exc.value.row) == ("q", 2)
    frame = pd.DataFrame({"q": ["a", "b", "a"], "s": ["x", float("nan"), "y"]})
    with pytest.raises(InputError, match="missing value") as exc:
        Table(frame, Schema.of(quasi=["q"], sensitive=["s"]), missing="error")
    assert (exc.value.column, exc.value.row) == ("s", 2)
    # no missing cells: fine
    Table(MISSING.fillna("c").replace("", "c"), Schema.of(quasi=["q"], sensitive=["s"]), missing="error")


# ---------------------------------------------------------------------------- Adult
def test_adult_encodes_with_bundled_hierarchies(adult_dir, adult_frame):
    names = list(adult_frame.columns)
    hs = {n: read_hierarchy(adult_dir / f"adult_hierarchy_{n}.csv", name=n) for n in names}
    table = Table(adult_frame, Schema.of(quasi=names, hierarchies=hs))
    assert table.n == 30162
    assert table.heights == [1, 4, 1, 2, 3, 2, 2, 2, 1]
    assert table.distinct.counts.sum() == table.n
    j = names.index("age")
    assert list(table.hierarchies[j].leaves[table.codes[:5, j]]) == list(adult_frame["age"][:5])


# ---------------------------------------------------------------------------- fast paths
@settings(deadline=None, max_examples=60)
@given(cells=st.lists(st.one_of(st.sampled_from(["a", "b", "B", "10", "2", "2.5", "", "-1"]), st.none()),
                      min_size=1, max_size=40),
       how=st.sampled_from(["plain", "numeric", "order"]))
def test_domain_from_codes_is_the_domain_from_text(cells: list, how: str) -> None:
    """``build_domain(coded=…)`` (what Table uses: no text per row) gives the domain, codes and
    reference distribution of ``build_domain`` on the rows' text."""
    from anonkit._values import as_text, factorize_text
    from anonkit.stats import build_domain

    column = pd.Series(cells, dtype=object)
    if how == "numeric":
        column = column.where(~column.isin(["a", "b", "B"]), "7")
    text = as_text(column)
    options: dict = {"numeric": how == "numeric"}
    if how == "order":
        options["order"] = sorted(set(text), reverse=True)
    by_text = build_domain("s", text, **options)
    by_codes = build_domain("s", None, coded=factorize_text(column), **options)
    assert list(by_text[0].labels) == list(by_codes[0].labels)
    assert np.array_equal(by_text[0].reference, by_codes[0].reference)
    assert np.array_equal(by_text[1], by_codes[1]) and by_codes[1].dtype == np.int32


def test_published_frame_keeps_every_column_its_dtype() -> None:
    """The published frame takes only the published rows of the columns that are not generalized, in
    their own dtypes (object text stays object; pandas would infer text from a bare object array)."""
    n = 40
    frame = pd.DataFrame({
        "age": [str(20 + i % 7) for i in range(n)],
        "note": pd.Series([f"n{i}" for i in range(n)], dtype=object),
        "count": np.arange(n, dtype=np.int64),
        "score": np.linspace(0, 1, n),
        "flag": np.arange(n) % 2 == 0,
        "kind": pd.Categorical([("x", "y")[i % 2] for i in range(n)]),
        "label": pd.Series([f"l{i % 3}" for i in range(n)], dtype="str"),
    })
    schema = Schema.of(quasi=["age"], insensitive=["note", "count", "score", "flag", "kind", "label"])
    table = Table(frame, schema)
    release = fixed(table, [KAnonymity(2)], levels=[1])
    published = release.to_frame(seed=4)
    rows = release.published_rows(seed=4)
    for name in ["note", "count", "score", "flag", "kind", "label"]:
        want = table.frame[name].iloc[rows].reset_index(drop=True)
        pd.testing.assert_series_equal(published[name], want, check_exact=True)
    assert published.index.equals(pd.RangeIndex(len(rows)))
