"""Reading a published release into classes (anonkit.analytics.published): one generalized table,
Anatomy's and angelization's linked tables, anonkit releases as published, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anatomy_links import anatomy_link
from anonkit import Hierarchy, InputError, Schema, anonymize
from anonkit._values import as_text
from anonkit.analytics.published import (
    PublishedRelease,
    private_rows,
    published_buckets,
    published_release,
    published_table,
)
from anonkit.models import DistinctLDiversity, KAnonymity
from one_to_many_tables import one_to_many


def class_hist_rows(pub: PublishedRelease) -> list[tuple[int, ...]]:
    """Every class's histogram as a tuple, sorted (independent of class numbering)."""
    return sorted(tuple(int(x) for x in row) for row in pub.histogram())


# ---------------------------------------------------------------------------------------- one table
def test_table_classes_suppressed_rows_and_labels() -> None:
    frame = pd.DataFrame({
        "age": ["[20-29]", "[20-29]", "*", "[30-39]", "[20-29]", "[30-39]", "{40,50}"],
        "zip": ["12*", "12*", "*", "13*", "12*", "13*", "1*"],
        "disease": ["flu", "cold", "hiv", "flu", "flu", "flu", "cancer"],
    })
    pub = published_table(frame, Schema.of(quasi=["age", "zip"], sensitive=["disease"]))
    assert pub.kind == "table" and pub.unit == "record"
    assert pub.n_rows == 7 and pub.n_released == 6 and pub.n_classes == 3
    assert pub.row_class[2] == -1  # all quasi-identifiers '*': suppressed, no class
    rc = pub.row_class
    assert rc[0] == rc[1] == rc[4] and rc[3] == rc[5] and len({rc[0], rc[3], rc[6]}) == 3
    labels = list(pub.domain().labels)
    assert labels == ["cancer", "cold", "flu", "hiv"]  # the suppressed row's value stays in the domain
    hist = pub.histogram()
    assert hist[rc[0]].tolist() == [0, 1, 2, 0] and hist[rc[3]].tolist() == [0, 0, 2, 0]
    assert hist[rc[6]].tolist() == [1, 0, 0, 0]
    assert pub.sizes[rc[0]] == 3 and pub.sizes.sum() == 6
    # the overall distribution: the published values, the suppressed row's included (as verify does)
    np.testing.assert_allclose(pub.domain().reference, [1 / 7, 1 / 7, 4 / 7, 1 / 7])


def test_table_reference_numeric_and_explicit_names() -> None:
    frame = pd.DataFrame({"q": ["a", "a", "b", "b"], "salary": ["10", "9", "30", "10"]})
    pub = published_table(frame, quasi=["q"], sensitive="salary")
    assert list(pub.domain().labels) == ["9", "10", "30"]  # numbers inferred: ordered by value
    np.testing.assert_allclose(pub.positions(), [9, 10, 30])
    ref = {"salary": ["9", "10", "30", "30", "50"]}
    pub = published_table(frame, quasi=["q"], sensitive="salary", reference=ref)
    assert list(pub.domain().labels) == ["9", "10", "30", "50"]
    np.testing.assert_allclose(pub.domain().reference, [0.2, 0.2, 0.4, 0.2])
    with pytest.raises(InputError, match=r"reference data.*'salary'.*'77'"):
        published_table(frame.assign(salary=["77", "9", "30", "10"]), quasi=["q"], sensitive="salary", reference=ref)
    # a declared order makes the attribute ordinal: ranks as positions
    schema = Schema.of(quasi=["q"], sensitive=["grade"])
    schema.attributes["grade"].order = ["low", "mid", "high"]
    pub = published_table(pd.DataFrame({"q": ["a", "b"], "grade": ["high", "low"]}), schema)
    assert list(pub.domain().labels) == ["low", "high"] and pub.positions().tolist() == [0.0, 1.0]
    assert published_table(pd.DataFrame({"q": ["a"], "d": ["x"]}), quasi=["q"], sensitive="d").positions() is None


def test_table_bad_input() -> None:
    frame = pd.DataFrame({"q": ["a", "b"], "d": ["x", "y"]})
    schema = Schema.of(quasi=["q", "zip"], sensitive=["d"])
    with pytest.raises(InputError, match=r"lacks a column.*'zip'"):
        published_table(frame, schema)
    with pytest.raises(InputError, match=r"lacks a column.*'disease'"):
        published_table(frame, quasi=["q"], sensitive="disease")
    with pytest.raises(InputError, match=r"quasi"):
        published_table(frame, sensitive="d")
    with pytest.raises(InputError, match=r"no sensitive attribute"):
        published_table(frame, Schema.of(quasi=["q"], insensitive=["d"]))
    with pytest.raises(InputError, match=r"reference lacks.*'d'"):
        published_table(frame, quasi=["q"], sensitive="d", reference={"other": ["x"]})
    with pytest.raises(InputError, match=r"non-numeric value.*'age'.*'old'.*row 2"):
        published_table(pd.DataFrame({"q": ["a", "b"], "age": ["3", "old"]}),
                        Schema.of(quasi=["q"], sensitive=["age"], types={"age": "numeric"}))
    partial = Hierarchy([["x", "xy", "*"]], name="d")
    with pytest.raises(InputError, match=r"missing from the hierarchy.*'d'.*'y'.*row 2"):
        published_table(frame, quasi=["q"], sensitive="d", hierarchies={"d": partial})
    two = published_table(frame.assign(e=["u", "v"]), quasi=["q"], sensitive=["d", "e"])
    with pytest.raises(InputError, match=r"2 sensitive attributes"):
        two.histogram()
    with pytest.raises(InputError, match=r"not a sensitive attribute.*'q'"):
        two.histogram("q")


# ---------------------------------------------------------------------------------------- two tables
QIT = pd.DataFrame({"zip": ["1", "2", "3", "4", "5", "6", "7"], "GroupID": [2, 1, 1, 2, 3, 3, 1]})
ST = pd.DataFrame({"GroupID": [1, 1, 2, 2, 3], "disease": ["flu", "hiv", "flu", "cold", "flu"],
                   "Count": [2, 1, 1, 1, 2]})


def test_buckets_anatomy_shape() -> None:
    pub = published_buckets(QIT, ST, Schema.of(quasi=["zip"], sensitive=["disease"]))
    assert pub.kind == "buckets" and pub.unit == "record" and pub.n_classes == 3
    assert list(pub.class_ids) == ["1", "2", "3"]
    assert pub.row_class.tolist() == [1, 0, 0, 1, 2, 2, 0]
    assert list(pub.domain().labels) == ["cold", "flu", "hiv"]
    assert pub.histogram().tolist() == [[0, 2, 1], [1, 1, 0], [0, 2, 0]]
    assert pub.sizes.tolist() == [3, 2, 2]
    np.testing.assert_allclose(pub.domain().reference, [1 / 7, 5 / 7, 1 / 7])  # counts, not ST rows
    # without a schema: group = the shared column, count = the column named count, sensitive = the rest
    bare = published_buckets(QIT, ST)
    assert bare.sensitive == ("disease",) and bare.histogram().tolist() == pub.histogram().tolist()
    # repeated (group, value) rows add up
    split = pd.concat([ST, pd.DataFrame({"GroupID": [3], "disease": ["flu"], "Count": [1]})], ignore_index=True)
    split.loc[4, "Count"] = 1
    assert published_buckets(QIT, split).histogram().tolist() == pub.histogram().tolist()


def test_buckets_persons_allow_history() -> None:
    qt = pd.DataFrame({"age": ["[20-30]"] * 2 + ["[40-50]"] * 2, "bucket": [1, 1, 2, 2]})
    st = pd.DataFrame({"bucket": [1, 2, 2], "disease": ["Flu", "Flu", "Cancer"], "count": [3, 1, 2]})
    schema = Schema.of(person="person", quasi=["age"], sensitive=["disease"])
    pub = published_buckets(qt, st, schema)
    assert pub.unit == "person" and pub.sizes.tolist() == [2, 2]
    assert pub.histogram().sum() == 6  # the history: more values than persons
    with pytest.raises(InputError, match=r"must equal its quasi-table rows"):
        published_buckets(qt, st, schema, unit="record")
    short = st.assign(count=[1, 1, 0])
    with pytest.raises(InputError, match=r"whole number ≥ 1.*'count'.*row 3"):
        published_buckets(qt, short, schema)
    with pytest.raises(InputError, match=r"must be at least its quasi-table rows.*'bucket'.*'2'"):
        published_buckets(qt, st.assign(count=[3, 1, 0]).iloc[:2], schema)


def test_buckets_bad_input() -> None:
    schema = Schema.of(quasi=["zip"], sensitive=["disease"])
    with pytest.raises(InputError, match=r"not a number.*'Count'.*'two'.*row 2"):
        published_buckets(QIT, ST.assign(Count=[2, "two", 1, 1, 2]), schema)
    with pytest.raises(InputError, match=r"whole number.*'Count'.*1.5.*row 1"):
        published_buckets(QIT, ST.assign(Count=[1.5, 1, 1, 1, 2]), schema)
    orphan = pd.concat([ST, pd.DataFrame({"GroupID": [9], "disease": ["flu"], "Count": [1]})], ignore_index=True)
    with pytest.raises(InputError, match=r"no row in the quasi table.*'GroupID'.*9.*row 6"):
        published_buckets(QIT, orphan, schema)
    with pytest.raises(InputError, match=r"no value in the sensitive table.*'GroupID'.*3.*row 5"):
        published_buckets(QIT, ST.iloc[:4], schema)
    with pytest.raises(InputError, match=r"quasi table lacks a column.*'group'"):
        published_buckets(QIT, ST, schema, group="group")
    with pytest.raises(InputError, match=r"sensitive table lacks the schema's sensitive attribute.*'disease'"):
        published_buckets(QIT, ST.rename(columns={"disease": "d"}), schema, count="Count")
    with pytest.raises(InputError, match=r"sensitive table lacks a column.*'diagnosis'"):
        published_buckets(QIT, ST, sensitive="diagnosis", count="Count")
    with pytest.raises(InputError, match=r"group id column"):
        published_buckets(QIT.rename(columns={"GroupID": "g"}), ST, schema)
    with pytest.raises(InputError, match=r"count column"):
        published_buckets(QIT, ST.rename(columns={"Count": "n"}))
    with pytest.raises(InputError, match=r"must equal its quasi-table rows.*'GroupID'.*'1'"):
        published_buckets(QIT, ST.assign(Count=[3, 1, 1, 1, 2]), schema)


# ---------------------------------------------------------------------------------------- anonkit releases
def small_frame(n: int = 60, seed: int = 0) -> tuple[pd.DataFrame, Schema]:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "age": rng.integers(20, 60, n).astype(str),
        "sex": rng.choice(["F", "M"], n),
        "disease": rng.choice(["flu", "cold", "hiv", "cancer", "gastritis"], n),
    })
    h_age = Hierarchy([[str(a), f"{a // 10 * 10}s", "*"] for a in range(20, 60)], name="age")
    schema = Schema.of(quasi=["age", "sex"], sensitive=["disease"], hierarchies={"age": h_age},
                       types={"age": "numeric"})
    return frame, schema


@pytest.mark.parametrize("algorithm", ["flash", "mondrian"])
def test_one_table_release_classes_are_the_release_classes(algorithm: str) -> None:
    frame, schema = small_frame()
    res = anonymize(frame, schema, [KAnonymity(3)], algorithm=algorithm, seed=3)
    rel = res.release
    pub = published_release(rel, seed=3)
    assert pub.kind == "table" and pub.n_released == rel.n_released
    rows = private_rows(rel, seed=3)
    np.testing.assert_array_equal(rows, rel.published_rows(seed=3))
    # the classes read from the published text are the release's: same members, same histograms
    codes = rel.table.sensitive_codes["disease"]
    pairs = {(int(a), int(b)) for a, b in zip(pub.row_class, rel.record_class[rows], strict=True)}
    assert len(pairs) == pub.n_classes == rel.n_classes
    expected = np.zeros((rel.n_classes, len(rel.table.domains["disease"].labels)), dtype=int)
    np.add.at(expected, (rel.record_class[rows], codes[rows]), 1)
    assert class_hist_rows(pub) == sorted(tuple(int(x) for x in r) for r in expected)
    assert list(as_text(pub.domain().labels)) == list(as_text(rel.table.domains["disease"].labels))


def test_anatomy_release_reads_its_linked_tables() -> None:
    frame, schema = small_frame(90, seed=1)
    res = anonymize(frame, schema, [DistinctLDiversity("disease", 3)], algorithm="anatomy", seed=5)
    rel = res.release
    pub = published_release(rel)
    assert pub.kind == "buckets" and pub.unit == "record" and pub.n_classes == rel.n_classes
    assert private_rows(rel) is None  # Anatomy keeps no QIT → record link
    link = anatomy_link(rel, 5)
    # row i of the QIT is in the class of its record's group
    assert len({(int(a), int(b)) for a, b in zip(pub.row_class, rel.record_class[link], strict=True)}) == \
        rel.n_classes
    assert (pub.sizes == 3).sum() + (pub.sizes == 4).sum() == pub.n_classes
    assert (np.count_nonzero(pub.histogram(), axis=1) >= 3).all() and pub.histogram().max() == 1


def test_angelization_release_counts_persons() -> None:
    frame, schema = one_to_many(2, 40)
    res = anonymize(frame, schema, [KAnonymity(3)], algorithm="angelization", seed=4)
    rel = res.release
    pub = published_release(rel)
    assert pub.kind == "buckets" and pub.unit == "person"
    assert pub.n_rows == len(rel.tables["qt"]) == frame["person"].nunique()
    assert pub.histogram().sum() == len(frame)  # representatives and history: every record's value
    assert (pub.sizes >= 3).all()
    rows = private_rows(rel)
    assert rows is not None and (rows >= 0).all() and len(set(rows.tolist())) == len(rows)
    # every QT row's record belongs to that row's bucket, and its value is published there
    rc = rel.record_class[rows]
    assert len({(int(a), int(b)) for a, b in zip(pub.row_class, rc, strict=True)}) == pub.n_classes
    col = pub.domain().labels.tolist()
    values = frame["disease"].to_numpy()[rows]
    assert (pub.histogram()[pub.row_class, [col.index(v) for v in values]] >= 1).all()
    # the same release read without the input's values: only what is published
    blind = published_release(rel, reference=False)
    np.testing.assert_allclose(blind.domain().reference, blind.histogram().sum(axis=0) / len(frame))
