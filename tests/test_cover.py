"""Reading released cells against original values (anonkit.analytics.cover): every label form, the
errors, the join of classes and tuples against a brute force, population counts, truthfulness of
anonkit's own releases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import anonkit.analytics.cover as cover_module
from anonkit import Hierarchy, Schema
from anonkit.analytics import build_cover, population_counts, row_covers
from anonkit.analytics.cover import column_cover
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.models import KAnonymity
from anonkit.pipeline import anonymize

H = Hierarchy(
    [["a", "ab", "abcd", "*"], ["b", "ab", "abcd", "*"], ["c", "cd", "abcd", "*"], ["d", "cd", "abcd", "*"],
     ["e", "e", "ef", "*"], ["f", "f", "ef", "*"]],
    name="letter",
)
LETTERS = ["a", "b", "c", "d", "e", "f", "a"]
NUMBERS = ["1", "2", "3.5", "10", "-4", "x", "2"]
DATES = ["2020-01-01", "2020-02-01", "2020-03-05T10:00:00", "2021-06-30"]
ZIPS = ["13053", "13068", "14850", "1305"]


def covered(label: str, original: list[str], **kw: object) -> list[str]:
    cc = column_cover("col", pd.Series([label]), pd.Series(original), **kw)  # type: ignore[arg-type]
    return sorted(cc.values[cc.indices].tolist())


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("*", ["a", "b", "c", "d", "e", "f"]),
        ("ab", ["a", "b"]),  # a node at level 1
        ("abcd", ["a", "b", "c", "d"]),  # level 2
        ("e", ["e"]),  # a leaf whose label also names its level-1 node: the union is the same leaf
        ("{a,c}", ["a", "c"]),
        ("{ab;e}", ["a", "b", "e"]),  # a set of nodes, ';'-separated
    ],
)
def test_hierarchy_labels(label: str, expected: list[str]) -> None:
    assert covered(label, LETTERS, hierarchy=H) == expected


def test_a_label_naming_a_leaf_and_a_node_cannot_arise() -> None:
    """A hierarchy whose group 'g' is also another record's value would publish x and y as if they were g:
    it is refused when built (issue 23), so a published label never names a leaf and a node at once."""
    with pytest.raises(InputError, match="'g'"):
        Hierarchy([["x", "g", "*"], ["y", "g", "*"], ["g", "h", "*"]], name="q")


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("[1-3]", ["1", "2"]),  # anonkit's local recoding: closed
        ("1-3", ["1", "2"]),
        ("[1-3.5]", ["1", "2", "3.5"]),
        ("[1, 3.5[", ["1", "2"]),  # ARX: half-open
        ("[1, 3.5)", ["1", "2"]),
        ("[1, 3.5]", ["1", "2", "3.5"]),
        ("(1, 10]", ["10", "2", "3.5"]),
        ("]1, 10]", ["10", "2", "3.5"]),
        ("<3.5", ["-4", "1", "2"]),
        ("<=3.5", ["-4", "1", "2", "3.5"]),
        (">3.5", ["10"]),
        (">=3.5", ["10", "3.5"]),
        ("[-4--1]", ["-4"]),
        ("[-4-2]", ["-4", "1", "2"]),
        ("3.50", ["3.5"]),  # a number is compared as a number
        ("2.0", ["2"]),
        ("7", []),  # a number no record has
        ("{1;10}", ["1", "10"]),
        ("{1,[3-10]}", ["1", "10", "3.5"]),
        ("*", ["-4", "1", "10", "2", "3.5", "x"]),
    ],
)
def test_numeric_labels(label: str, expected: list[str]) -> None:
    assert covered(label, NUMBERS, kind="numeric") == expected


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("[2020-01-01-2020-02-01]", ["2020-01-01", "2020-02-01"]),  # as anonkit writes date bounds
        ("2020-01-15-2020-03-06", ["2020-02-01", "2020-03-05T10:00:00"]),
        ("[2020-01-01-2020-03-05T10:00:00]", ["2020-01-01", "2020-02-01", "2020-03-05T10:00:00"]),
        ("[2020-02-01, 2021-06-30[", ["2020-02-01", "2020-03-05T10:00:00"]),
        ("<2020-02-01", ["2020-01-01"]),
        (">=2020-03-05", ["2020-03-05T10:00:00", "2021-06-30"]),
        ("2020-02-01", ["2020-02-01"]),
    ],
)
def test_date_labels(label: str, expected: list[str]) -> None:
    assert covered(label, DATES, kind="date") == expected


def test_masks_and_exact_categorical_values() -> None:
    assert covered("130**", ZIPS) == ["13053", "13068"]  # one character per '*'
    assert covered("1305*", ZIPS) == ["13053"]
    assert covered("1305", ZIPS) == ["1305"]
    assert covered("Paris", ZIPS) == []  # an exact value the table does not hold
    assert covered("{13053,Paris}", ZIPS) == ["13053"]
    assert covered("", ["", "a"]) == [""]  # a missing cell covers missing values


def test_exact_columns_compare_text_and_keep_the_wildcard() -> None:
    assert covered("ab", LETTERS, hierarchy=H, exact=True) == []  # no hierarchy reading
    assert covered("a", LETTERS, exact=True) == ["a"]
    assert covered("*", LETTERS, exact=True) == ["a", "b", "c", "d", "e", "f"]
    assert covered("[1-3]", NUMBERS, exact=True) == []


@pytest.mark.parametrize(
    ("cells", "kw", "value", "row"),
    [
        (["1", "2", "[x-3]", "[x-3]"], {"kind": "numeric"}, "[x-3]", 3),
        (["1", "foo"], {"kind": "numeric"}, "foo", 2),
        (["[5-1]"], {"kind": "numeric"}, "[5-1]", 1),  # bounds the wrong way round
        (["ab", "zz"], {"hierarchy": H}, "zz", 2),  # not a node of the hierarchy
        (["{a,zz}"], {"hierarchy": H}, "{a,zz}", 1),
        (["a", "[a-b]"], {}, "[a-b]", 2),  # looks like an interval, is none
        (["2020-01-01", "soon"], {"kind": "date"}, "soon", 2),
    ],
)
def test_uninterpretable_labels_name_column_value_and_row(cells: list[str], kw: dict, value: str, row: int) -> None:
    original = NUMBERS if kw.get("kind") == "numeric" else (DATES if kw.get("kind") == "date" else LETTERS)
    with pytest.raises(InputError) as err:
        column_cover("col", pd.Series(cells), pd.Series(original), **kw)
    assert (err.value.column, err.value.value, err.value.row) == ("col", value, row)
    assert "\n" not in str(err.value) and "'col'" in str(err.value) and f"row {row}" in str(err.value)


# ------------------------------------------------------------------------------------------------ the join
SCHEMA = Schema.of(quasi=["letter", "n"], sensitive=["s"], hierarchies={"letter": H}, types={"n": "numeric"})


def _random_case(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A release with overlapping cells of every kind, and an original table of random records."""
    rng = np.random.default_rng(seed)
    letters = ["a", "b", "c", "d", "e", "f", "ab", "cd", "abcd", "ef", "*", "{a,e}", "{b;f}"]
    numbers = ["1", "2", "5", "[1-3]", "[2-6]", "<4", ">=5", "[0, 5[", "*", "{1,6}", "(2, 9]"]
    rows = 60
    published = pd.DataFrame({
        "letter": rng.choice(letters, rows),
        "n": rng.choice(numbers, rows),
        "s": rng.choice(["x", "y", "*"], rows),
    })
    original = pd.DataFrame({
        "letter": rng.choice(["a", "b", "c", "d", "e", "f"], 150),
        "n": rng.integers(0, 10, 150).astype(str),
        "s": rng.choice(["x", "y", "z"], 150),
    })
    return published, original


def _brute(c: cover_module.Cover) -> np.ndarray:
    """``T × C`` consistency from the dense coverage matrices, independent of the hash join."""
    ok = np.ones((len(c.tuple_counts), c.n_classes), dtype=bool)
    for j, col in enumerate(c.cols):
        dense = col.matrix.toarray()
        ok &= dense[c.class_labels[:, j]][:, c.tuples[:, j]].T
    return ok


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("small", [False, True])
def test_join_matches_a_brute_force(seed: int, small: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if small:  # tiny chunks and sparse pair tests
        monkeypatch.setattr(cover_module, "CHUNK_PAIRS", 3)
        monkeypatch.setattr(cover_module, "_DENSE_CELLS", 0)
    published, original = _random_case(seed)
    c = build_cover(published, original, SCHEMA, exact=["s"])
    assert c.columns == ["letter", "n", "s"]
    brute = _brute(c)
    got = np.zeros_like(brute)
    t, k = c.pairs()
    got[t, k] = True
    np.testing.assert_array_equal(got, brute)
    assert brute.any() and not brute.all()
    # per record and per class figures
    np.testing.assert_array_equal(c.classes_per_record(), brute.sum(axis=1)[c.record_tuple])
    np.testing.assert_array_equal(c.rows_per_record(), (brute * c.class_rows).sum(axis=1)[c.record_tuple])
    np.testing.assert_array_equal(c.class_records(), (brute * c.tuple_counts[:, None]).sum(axis=0))
    i = int(np.argmax(c.classes_per_record()))
    np.testing.assert_array_equal(c.record_classes(i), np.flatnonzero(brute[c.record_tuple[i]]))
    # classes are the distinct label tuples of the released rows
    assert c.n_classes == len(published.drop_duplicates())
    assert c.class_rows.sum() == len(published)


def test_full_domain_cells_join_by_hashing_alone() -> None:
    published = pd.DataFrame({"letter": ["ab", "ab", "cd", "ef"], "n": ["[0-4]", "[5-9]", "[0-4]", "[0-4]"]})
    original = pd.DataFrame({"letter": list("abcdefa"), "n": ["0", "5", "3", "9", "4", "1", "7"]})
    c = build_cover(published, original, SCHEMA)
    assert all(col.sole_label is not None for col in c.cols)
    # a:0 → (ab,[0-4]); b:5 → (ab,[5-9]); c:3 → (cd,[0-4]); d:9 → none; e:4, f:1 → (ef,[0-4]); a:7 → (ab,[5-9])
    np.testing.assert_array_equal(c.classes_per_record(), [1, 1, 1, 0, 1, 1, 1])
    np.testing.assert_array_equal(c.rows_per_record(), [1, 1, 1, 0, 1, 1, 1])
    np.testing.assert_array_equal(c.class_records(), [1, 2, 1, 2])


def test_population_counts_per_released_row() -> None:
    published = pd.DataFrame({"letter": ["ab", "cd", "ab", "*"], "n": ["[1-3]", "[1-3]", "[1-3]", "*"]})
    population = pd.DataFrame({"letter": list("aabcdde"), "n": ["1", "2", "9", "3", "1", "5", "2"]})
    # (ab,[1-3]) holds a:1, a:2; (cd,[1-3]) c:3, d:1; (*,*) everybody
    np.testing.assert_array_equal(population_counts(published, population, SCHEMA), [2, 2, 2, 7])


def test_row_covers_checks_each_row_against_its_record() -> None:
    published = pd.DataFrame({"letter": ["ab", "cd", "*"], "n": ["[1-3]", "5", "*"]})
    original = pd.DataFrame({"letter": ["b", "d", "f", "a"], "n": ["3", "5", "0", "9"]})
    np.testing.assert_array_equal(row_covers(published, original, SCHEMA), [True, True, True])
    np.testing.assert_array_equal(row_covers(published, original, SCHEMA, rows=[3, 0, 3]), [False, False, True])
    with pytest.raises(InputError, match="one original record per released row"):
        row_covers(published, original, SCHEMA, rows=[0, 1])


def test_missing_columns_are_named() -> None:
    published = pd.DataFrame({"letter": ["a"], "n": ["1"]})
    with pytest.raises(InputError) as err:
        build_cover(published, pd.DataFrame({"letter": ["a"]}), SCHEMA)
    assert err.value.column == "n"
    with pytest.raises(InputError) as err:
        build_cover(published, published, SCHEMA, exact=["s"])
    assert err.value.column == "s"


# ------------------------------------------------------------------------------------------------ anonkit's releases
H_AGE = Hierarchy([[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 40)], name="age")
H_ZIP = Hierarchy([[z, z[:3] + "*", "*"] for z in ["1234", "1235", "1299", "1300"]], name="zip")


def _table(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    days = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 400, n), unit="D")
    return pd.DataFrame({
        "age": rng.integers(20, 40, n).astype(str),
        "zip": rng.choice(["1234", "1235", "1299", "1300"], n),
        "sex": rng.choice(["m", "f", "x"], n),
        "day": days.strftime("%Y-%m-%d"),
        "w": rng.normal(0, 1, n).round(3).astype(str),
        "disease": rng.choice(["flu", "cold", "ulcer"], n),
    })


def _schema(algorithm: str) -> Schema:
    if algorithm == "flash":  # full-domain: every quasi-identifier needs a hierarchy worth generalizing
        return Schema.of(quasi=["age", "zip", "sex"], sensitive=["disease"], hierarchies={"age": H_AGE, "zip": H_ZIP},
                         types={"age": "numeric"}, default_role="insensitive")
    return Schema.of(quasi=["age", "zip", "sex", "day", "w"], sensitive=["disease"],
                     hierarchies={"age": H_AGE, "zip": H_ZIP},
                     types={"age": "numeric", "zip": "categorical", "day": "date", "w": "numeric"},
                     default_role="insensitive")


@pytest.mark.parametrize(("algorithm", "options"), [("flash", {}), ("mondrian", {}), ("mdav", {"output": "intervals"})])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(6, 50), k=st.integers(2, 4),
       suppressed=st.sampled_from(["drop", "mark"]), shuffle=st.integers(0, 100))
def test_every_released_row_covers_its_own_record(algorithm: str, options: dict, seed: int, n: int, k: int,
                                                  suppressed: str, shuffle: int) -> None:
    frame = _table(seed, n)
    try:
        result = anonymize(frame, _schema(algorithm), [KAnonymity(k)], algorithm=algorithm, seed=shuffle,
                           suppressed=suppressed, max_suppression=1.0, **options)
    except UnsatisfiableError:
        return
    release = result.release
    published = release.to_frame(suppressed=suppressed, seed=shuffle)
    rows = release.published_rows(suppressed=suppressed, seed=shuffle)
    original = release.table.frame
    assert row_covers(published, original, release.table.schema, rows=rows).all()
    # every record is consistent with its own class, so the class of its row is among its classes
    c = build_cover(published, original, release.table.schema)
    t, k_ = c.pairs()
    own = set(zip(c.record_tuple[rows].tolist(), c.row_class.tolist(), strict=True))
    assert own <= set(zip(t.tolist(), k_.tolist(), strict=True))


def test_microaggregated_centroids_do_not_cover_their_records() -> None:
    frame = pd.DataFrame({"w": ["1", "2", "4", "10", "11", "13"], "s": list("xyxyxy")})
    schema = Schema.of(quasi=["w"], sensitive=["s"], types={"w": "numeric"})
    release = anonymize(frame, schema, [KAnonymity(3)], algorithm="mdav").release
    published = release.to_frame()
    assert sorted(published["w"].unique()) == ["11.333333333333334", "2.3333333333333335"]
    assert not row_covers(published, release.table.frame, schema, rows=release.published_rows()).any()


def test_a_changed_cell_is_caught() -> None:
    frame = _table(7, 40)
    result = anonymize(frame, _schema("mondrian"), [KAnonymity(3)], algorithm="mondrian")
    published = result.frame.copy()
    rows = result.release.published_rows()
    schema = result.release.table.schema
    assert row_covers(published, result.release.table.frame, schema, rows=rows).all()
    true_age = int(result.release.table.frame["age"].iloc[rows[0]])
    published.loc[0, "age"] = str(true_age + 1 if true_age < 39 else true_age - 1)
    ok = row_covers(published, result.release.table.frame, schema, rows=rows)
    assert not ok[0] and ok[1:].all()


def test_day_first_dates_are_read_as_the_table_reads_them() -> None:
    """An interval over February covers ``05/02/2020`` read day first (a day above 12 in the column fixes the
    order), and a declared format decides a column that fits both orders (issue 23: dates as meant)."""
    days = ["05/02/2020", "13/02/2020", "03/05/2020"]
    assert covered("[2020-02-01-2020-02-28]", days, kind="date") == ["05/02/2020", "13/02/2020"]
    both = ["05/02/2020", "06/03/2020"]
    assert covered("[2020-02-01-2020-02-28]", both, kind="date", format="%d/%m/%Y") == ["05/02/2020"]
    assert covered("[2020-05-01-2020-05-31]", both, kind="date", format="%m/%d/%Y") == ["05/02/2020"]
