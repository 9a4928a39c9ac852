"""The measures of the 1:M paper (spec §2.7): NCP per person, query accuracy, record intersection,
record linkability — hand-computed on a toy table, cross-checked against a naive estimator on the
1:M data set."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from anonkit.algorithms.local import partition_release
from anonkit.algorithms.registry import get
from anonkit.datasets import CATEGORY_ORDER, ONE_TO_MANY_CATEGORIES, adult_hierarchies, make_one_to_many
from anonkit.datasets.one_to_many import QI_COLUMNS
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.metrics.one_to_many import (
    DEFAULT_QUERIES,
    CountQueries,
    linkability,
    ncp_per_person,
    one_to_many_measures,
    published_histogram,
    query_accuracy,
    random_count_queries,
    record_intersection,
)
from anonkit.models import KAnonymity
from anonkit.release import CUSTOM, Release
from anonkit.schema import Schema
from anonkit.table import Table

# ---------------------------------------------------------------------------- the toy table
#  i person age sex zip  disease (category)
#  0 p1     20  M  1301 Flu      (Low)
#  1 p1     20  M  1301 Cancer   (Severe)
#  2 p2     30  F  1302 Flu      (Low)
#  3 p3     40  M  1401 Cold     (Asymptomatic)
#  4 p3     40  M  1401 Flu      (Low)
#  5 p4     60  F  1402 Cancer   (Severe)
TOY = pd.DataFrame({
    "person": ["p1", "p1", "p2", "p3", "p3", "p4"],
    "age": ["20", "20", "30", "40", "40", "60"],
    "sex": ["M", "M", "F", "M", "M", "F"],
    "zip": ["1301", "1301", "1302", "1401", "1401", "1402"],
    "disease": ["Flu", "Cancer", "Flu", "Cold", "Flu", "Cancer"],
})
TOY_CATEGORIES = {"Cold": "Asymptomatic", "Flu": "Low", "Cancer": "Severe"}
# age: leaves 20 … 60 (50 is not in the data), domain 20–60
AGE = Hierarchy([["20", "20-30", "*"], ["30", "20-30", "*"], ["40", "40-60", "*"], ["50", "40-60", "*"],
                 ["60", "40-60", "*"]], name="age")
ZIP = Hierarchy([["1301", "13**", "*"], ["1302", "13**", "*"], ["1401", "14**", "*"], ["1402", "14**", "*"]],
                name="zip")


def toy_table(*, categories: dict[str, str] | None = TOY_CATEGORIES, person: bool = True) -> Table:
    schema = Schema.of(quasi=["age", "sex", "zip"], sensitive=["disease"], person="person" if person else None,
                       insensitive=[] if person else ["person"], hierarchies={"age": AGE, "zip": ZIP},
                       types={"age": "numeric", "zip": "categorical"})
    if categories is not None:
        schema["disease"].categories = categories
        schema["disease"].category_order = CATEGORY_ORDER
    return Table(TOY, schema)


def toy_release(table: Table, record_class: list[int], **kwargs: object) -> Release:
    return partition_release(table, np.array(record_class), [], algorithm="x", **kwargs)  # type: ignore[arg-type]


def code(table: Table, value: str) -> int:
    return int(np.flatnonzero(table.domains["disease"].labels == value)[0])


def toy_queries(table: Table, spec: list[tuple[dict[str, list[str]], str]]) -> CountQueries:
    """Queries by hand: per query the accepted leaves of each constrained QI and the value."""
    n = len(spec)
    masks = [np.ones((n, h.n_leaves), dtype=bool) for h in table.hierarchies]
    intervals: list[np.ndarray | None] = [np.tile([-np.inf, np.inf], (n, 1)) if q in table.numeric else None
                                          for q in table.qi]
    attributes = []
    for i, (ranges, _) in enumerate(spec):
        attrs = sorted(table.qi.index(q) for q in ranges)
        attributes.append(attrs)
        for q, leaves in ranges.items():
            j = table.qi.index(q)
            idx = [table.hierarchies[j].index()[v] for v in leaves]
            masks[j][i] = False
            masks[j][i, idx] = True
            if intervals[j] is not None:
                intervals[j][i] = [min(float(v) for v in leaves), max(float(v) for v in leaves)]  # type: ignore[index]
    values = np.array([code(table, v) for _, v in spec])
    return CountQueries("disease", np.array(attributes), tuple(masks), tuple(intervals), values, 2, 0.1, 0)


# Q1: age ∈ {20,30,40} ∧ sex = M ∧ Flu; Q2: age ∈ {30,40,50} ∧ zip ∈ {1302,1401} ∧ Cancer;
# Q3: sex = F ∧ zip ∈ {1302,1402} ∧ Cancer
SPEC = [({"age": ["20", "30", "40"], "sex": ["M"]}, "Flu"),
        ({"age": ["30", "40", "50"], "zip": ["1302", "1401"]}, "Cancer"),
        ({"sex": ["F"], "zip": ["1302", "1402"]}, "Cancer")]


@pytest.fixture(scope="module")
def toy() -> Table:
    return toy_table()


# ---------------------------------------------------------------------------- NCP
def test_ncp_per_person_by_hand(toy: Table) -> None:
    # A: c0 = {p1, p2}: age [20,30] (10/40), sex * (1), zip 13** (2/4) → 1.75/3;
    #    c1 = {p3, p4}: age [40,60] (20/40), *, 14** → 2/3; one pair per person
    a = toy_release(toy, [0, 0, 0, 1, 1, 1])
    assert ncp_per_person(toy, a) == pytest.approx((2 * 1.75 / 3 + 2 * 2 / 3) / 4)
    # B: p1 spread over c0 = {rec 0, rec 2} (1.75/3) and c1 = {1, 3, 4, 5} (age [20,60], *, * → 1):
    #    pairs p1-c0, p1-c1, p2-c0, p3-c1, p4-c1
    b = toy_release(toy, [0, 1, 0, 1, 1, 1])
    assert ncp_per_person(toy, b) == pytest.approx((2 * 1.75 / 3 + 3 * 1.0) / 5)
    # the hierarchy's node 20-30 has the same width as the interval: the same value
    h = toy_release(toy, [0, 0, 0, 1, 1, 1], numeric="hierarchy")
    assert (h.class_levels != CUSTOM).all()
    assert ncp_per_person(toy, h) == pytest.approx(ncp_per_person(toy, a))


def test_ncp_charges_a_persons_suppressed_records_one_pair_of_1(toy: Table) -> None:
    # p4 (record 5) suppressed: c1 = {3, 4} publishes age 40, M, 1401 (NCP 0); pairs p1-c0, p2-c0, p3-c1, p4-*
    rel = toy_release(toy, [0, 0, 0, 1, 1, -1])
    assert ncp_per_person(toy, rel) == pytest.approx((2 * 1.75 / 3 + 0.0 + 1.0) / 4)
    # record 1 suppressed, p1's other record released: p1-c0 and p1-* are both charged
    rel = toy_release(toy, [0, -1, 0, 1, 1, 1])
    c0 = (0.25 + 1 + 0.5) / 3
    assert ncp_per_person(toy, rel) == pytest.approx((c0 + 1.0 + c0 + 2 * 2 / 3) / 5)


# ---------------------------------------------------------------------------- queries
def test_query_answers_by_hand(toy: Table) -> None:
    a = toy_release(toy, [0, 0, 0, 1, 1, 1])
    qs = toy_queries(toy, SPEC)
    res = query_accuracy(toy, a, qs)
    # Q1: records 0 and 4; estimate c0: age [20,30] inside [20,40] (1) · sex * (1/2) · Flu 2 = 1, c1: [40,60]
    #     meets [20,40] in a point (0)
    # Q2: none; c0: [20,30] ∩ [30,50] = a point (0), c1: 10/20 · 14** ∋ 1401 (1/2) · Cancer 1 = 0.25
    # Q3: record 5; c0: 1/2 · 1/2 · 1 and c1: 1/2 · 1/2 · 1
    np.testing.assert_array_equal(res.actual, [2, 0, 1])
    np.testing.assert_allclose(res.estimate, [1.0, 0.25, 0.5])
    np.testing.assert_allclose(res.relative_error, [0.5, 0.25, 0.5])
    assert res.error == pytest.approx(1.25 / 3) and res.accuracy == pytest.approx(1 - 1.25 / 3)
    assert res.queries == 3
    # hierarchy nodes 20-30 and 40-60 are the same numeric intervals: the same estimates
    h = toy_release(toy, [0, 0, 0, 1, 1, 1], numeric="hierarchy")
    np.testing.assert_allclose(query_accuracy(toy, h, qs).estimate, [1.0, 0.25, 0.5])


def test_points_and_leaves_count_one_or_zero(toy: Table) -> None:
    # c0 = p1 (age 20, M, 1301), c1 = p2 (30, F, 1302), c2 = p3, p4 ([40,60], *, 14**)
    rel = toy_release(toy, [0, 0, 1, 2, 2, 2])
    res = query_accuracy(toy, rel, toy_queries(toy, SPEC))
    # Q1: c0 20 ∈ [20,40], M, Flu 1 → 1; c1: F ∉ {M}; c2: 0.  Q2: c1 30 ∈ [30,50], 1302, Cancer 0;
    # c2: 0.5 · 0.5 · 1.  Q3: c1 F, 1302, Cancer 0; c2 1/2 · 1/2 · 1
    np.testing.assert_allclose(res.estimate, [1.0, 0.25, 0.25])


def test_suppressed_records_count_in_actual_not_in_estimate(toy: Table) -> None:
    # record 5 (60, F, 1402, Cancer) suppressed; c1 = {3, 4} publishes 40, M, 1401
    rel = toy_release(toy, [0, 0, 0, 1, 1, -1])
    res = query_accuracy(toy, rel, toy_queries(toy, SPEC))
    np.testing.assert_array_equal(res.actual, [2, 0, 1])
    # Q1: c0 1 · 1/2 · 2 plus c1's point 40 ∈ [20,40], M, Flu 1; Q2: 40 ∈ [30,50] but Cancer 0;
    # Q3: only c0's 1/2 · 1/2 · 1 (record 5 estimates nothing)
    np.testing.assert_allclose(res.estimate, [2.0, 0.0, 0.25])


def test_estimate_reads_the_published_histogram(toy: Table) -> None:
    a = toy_release(toy, [0, 0, 0, 1, 1, 1])
    qs = toy_queries(toy, SPEC)
    hist = np.zeros((2, 3))
    hist[0, code(toy, "Flu")] = 3  # c0 publishes Flu ×3, c1 Cancer ×2 and Cold
    hist[1, code(toy, "Cancer")] = 2
    hist[1, code(toy, "Cold")] = 1
    a.sensitive_histogram = hist
    np.testing.assert_array_equal(published_histogram(toy, a), hist)
    res = query_accuracy(toy, a, qs)
    # Q1: 1 · 1/2 · 3; Q2: 1/2 · 1/2 · 2; Q3: c0 0, c1 1/2 · 1/2 · 2 (the records' own values give 1, 0.25, 0.5)
    np.testing.assert_allclose(res.estimate, [1.5, 0.5, 0.5])
    np.testing.assert_array_equal(res.actual, [2, 0, 1])
    a.sensitive_histogram = np.zeros((3, 3))
    with pytest.raises(InputError, match="sensitive_histogram"):
        query_accuracy(toy, a, qs)


def test_random_queries_respect_dimension_and_selectivity() -> None:
    table = one_to_many_table(400, seed=2)
    for dim, sel in ((2, 0.1), (3, 0.25), (1, 0.5)):
        qs = random_count_queries(table, queries=300, query_dimension=dim, selectivity=sel, seed=5)
        assert qs.size == 300 and qs.attributes.shape == (300, dim) and qs.dimension == dim
        assert (np.diff(qs.attributes, axis=1) > 0).all()  # distinct, ascending
        present_values = np.unique(table.sensitive_codes["diagnosis"])
        assert np.isin(qs.values, present_values).all()
        for j, name in enumerate(table.qi):
            present = np.unique(table.codes[:, j])
            k = max(1, int(np.floor(sel * len(present) + 0.5)))
            used = (qs.attributes == j).any(axis=1)
            assert (qs.masks[j][~used]).all()
            rows = qs.masks[j][used]
            assert (rows.sum(axis=1) == k).all(), name
            assert not rows[:, np.setdiff1d(np.arange(rows.shape[1]), present)].any()
            if name in table.numeric:  # a contiguous run of the present leaves sorted by value
                vals = np.array([float(v) for v in table.hierarchies[j].leaves])
                order = present[np.argsort(vals[present])]
                starts = set()
                for row, iv in zip(rows, qs.intervals[j][used], strict=True):  # type: ignore[index]
                    pos = np.flatnonzero(row[order])
                    assert pos[-1] - pos[0] == k - 1
                    assert tuple(iv) == (vals[row].min(), vals[row].max())
                    starts.add(int(pos[0]))
                assert len(starts) > 5  # the runs start anywhere
            else:  # a random subset: different queries pick different leaves
                assert len({tuple(r) for r in rows}) > 1 or k == len(present)
                assert qs.intervals[j] is None
        # every QI is queried
        assert set(np.unique(qs.attributes)) == set(range(len(table.qi)))


def test_queries_and_measures_are_deterministic() -> None:
    table = one_to_many_table(300, seed=1)
    rel = get("mondrian").run(table, [KAnonymity(3)])
    a = random_count_queries(table, queries=200, seed=11)
    b = random_count_queries(table, queries=200, seed=11)
    c = random_count_queries(table, queries=200, seed=12)
    for x, y in zip((a.attributes, a.values, *a.masks), (b.attributes, b.values, *b.masks), strict=True):
        np.testing.assert_array_equal(x, y)
    assert not (np.array_equal(a.attributes, c.attributes) and np.array_equal(a.values, c.values))
    first = one_to_many_measures(table, rel, queries=200, seed=11)
    assert first == one_to_many_measures(table, rel, queries=200, seed=11)
    assert query_accuracy(table, rel, a).error == first["query_error"]
    assert one_to_many_measures(table, rel, queries=200, seed=12)["query_error"] != first["query_error"]


def naive_estimate(table: Table, release: Release, qs: CountQueries) -> np.ndarray:
    """The estimate of spec §2.7 class by class, with Python loops."""
    hist = published_histogram(table, release)
    out = np.zeros(qs.size)
    for q in range(qs.size):
        for c in range(release.n_classes):
            f = hist[c, qs.values[q]]
            for j in qs.attributes[q]:
                h, name = table.hierarchies[j], table.qi[j]
                level, node = release.class_levels[c, j], release.class_nodes[c, j]
                if name in table.numeric:
                    lo, hi = (release.class_bounds[name][c] if level == CUSTOM else h.bounds[level][node])  # type: ignore[index]
                    qlo, qhi = qs.intervals[j][q]  # type: ignore[index]
                    if hi > lo:
                        f *= max(0.0, min(hi, qhi) - max(lo, qlo)) / (hi - lo)
                    else:
                        f *= float(qlo <= lo <= qhi)
                else:
                    leaves = (release.class_sets[name][c] if level == CUSTOM
                              else np.flatnonzero(h.maps[level] == node))
                    f *= qs.masks[j][q][leaves].mean()
            out[q] += f
    return out


@pytest.mark.parametrize("categorical", ["lca", "set"])
def test_vectorized_estimate_and_actual_equal_the_naive_ones(categorical: str) -> None:
    table = one_to_many_table(150, seed=4)
    rel = get("mondrian").run(table, [KAnonymity(6)])
    rel = partition_release(table, rel.record_class, [], algorithm="x", categorical=categorical)  # type: ignore[arg-type]
    assert 5 < rel.n_classes < 200
    if categorical == "set":
        assert rel.class_sets
    qs = random_count_queries(table, queries=40, query_dimension=2, selectivity=0.3, seed=3)
    res = query_accuracy(table, rel, qs)
    np.testing.assert_allclose(res.estimate, naive_estimate(table, rel, qs), rtol=1e-12, atol=1e-12)
    codes, scodes = table.codes, table.sensitive_codes["diagnosis"]
    actual = []
    for q in range(qs.size):
        match = scodes == qs.values[q]
        for j in qs.attributes[q]:
            match &= qs.masks[j][q][codes[:, j]]
        actual.append(int(match.sum()))
    np.testing.assert_array_equal(res.actual, actual)
    assert res.actual.sum() > 0 and res.estimate.sum() > 0
    # a release that publishes every distinct tuple as it is answers exactly
    exact = partition_release(table, table.distinct.inverse, [], algorithm="x")
    res = query_accuracy(table, exact, qs)
    np.testing.assert_allclose(res.estimate, res.actual)
    assert res.accuracy == pytest.approx(1.0)


# ---------------------------------------------------------------------------- record intersection
def test_record_intersection_by_hand(toy: Table) -> None:
    # A: one class per person → nobody is spread
    a = record_intersection(toy, toy_release(toy, [0, 0, 0, 1, 1, 1]))
    assert a.as_dict() == {"persons_with_several_records": 2, "spread": 0, "breached": 0, "rate": 0.0}
    # B: p1 in c0 (publishes {Flu}) and c1 ({Cancer, Cold, Flu}): the intersection {Flu} has 1 < 2 values
    b = toy_release(toy, [0, 1, 0, 1, 1, 1])
    assert record_intersection(toy, b).as_dict() == {
        "persons_with_several_records": 2, "spread": 1, "breached": 1, "rate": 0.5}
    assert record_intersection(toy, b, l=1).breached == 0
    # with a published histogram: c0 publishes {Flu, Cancer} → the intersection {Flu, Cancer} has 2 values
    hist = published_histogram(toy, b).copy()
    hist[0, code(toy, "Cancer")] = 1.0
    b.sensitive_histogram = hist
    assert record_intersection(toy, b).breached == 0
    assert record_intersection(toy, b, l=3).breached == 1
    # a suppressed record is in no class: p1's record 1 suppressed → p1 is not spread
    assert record_intersection(toy, toy_release(toy, [0, -1, 0, 1, 1, 1])).spread == 0
    with pytest.raises(InputError, match="l must"):
        record_intersection(toy, b, l=0)


def test_record_intersection_zero_per_person_positive_when_split() -> None:
    table = one_to_many_table(600, seed=3)
    assert table.person is not None
    # one class per group of 4 persons: nobody is spread
    by_person = partition_release(table, table.person // 4, [], algorithm="x", merge_identical=False)
    res = record_intersection(table, by_person)
    assert res.spread == 0 and res.breached == 0 and res.rate == 0.0
    several = int((np.bincount(table.person) >= 2).sum())
    assert res.persons_with_several_records == several > 0
    # records dealt round-robin over classes of 5: a person's records lie in several classes
    split = partition_release(table, np.arange(table.n) % (table.n // 5), [], algorithm="x", merge_identical=False)
    res = record_intersection(table, split)
    assert res.spread > 0 and res.breached > 0
    assert res.rate == res.breached / several > 0
    # without persons every record is its own: nobody has several records
    assert record_intersection(table, split, person=np.arange(table.n)).persons_with_several_records == 0


# ---------------------------------------------------------------------------- linkability
def test_linkability_by_hand(toy: Table) -> None:
    a = toy_release(toy, [0, 0, 0, 1, 1, 1])
    res = linkability(toy, a)
    # representatives (highest category): p1 Cancer, p2 Flu, p3 Flu, p4 Cancer
    np.testing.assert_array_equal(res.representative, [code(toy, v) for v in ("Cancer", "Flu", "Flu", "Cancer")])
    # c0 = {Flu 2, Cancer 1}, c1 = {Cold, Flu, Cancer}: 1/3, 2/3, 1/3, 1/3
    np.testing.assert_allclose(res.probability, [1 / 3, 2 / 3, 1 / 3, 1 / 3])
    assert res.as_dict() == {"mean": pytest.approx(5 / 12), "max": pytest.approx(2 / 3)}
    # B: p1 in c0 = {Flu 2} (0) and c1 = {Cancer 2, Cold, Flu} (2/4): the larger
    b = linkability(toy, toy_release(toy, [0, 1, 0, 1, 1, 1]))
    np.testing.assert_allclose(b.probability, [0.5, 1.0, 0.25, 0.5])
    assert (b.mean, b.max) == (pytest.approx(2.25 / 4), 1.0)
    # a published histogram replaces the records' values: c0 publishes Cancer 3, Flu 1
    a.sensitive_histogram = np.zeros((2, 3))
    a.sensitive_histogram[0, [code(toy, "Cancer"), code(toy, "Flu")]] = [3, 1]
    a.sensitive_histogram[1, code(toy, "Flu")] = 2
    np.testing.assert_allclose(linkability(toy, a).probability, [0.75, 0.25, 1.0, 0.0])


def test_linkability_representative_ties_and_no_categories() -> None:
    # Cold and Flu in one category: p3's representative is their earliest record, Cold
    tied = toy_table(categories={"Cold": "Low", "Flu": "Low", "Cancer": "Severe"})
    res = linkability(tied, toy_release(tied, [0, 0, 0, 1, 1, 1]))
    np.testing.assert_array_equal(res.representative,
                                  [code(tied, v) for v in ("Cancer", "Flu", "Cold", "Cancer")])
    # without categories: every person's earliest record (p1 Flu, p3 Cold)
    plain = toy_table(categories=None)
    res = linkability(plain, toy_release(plain, [0, 0, 0, 1, 1, 1]))
    np.testing.assert_array_equal(res.representative, [code(plain, v) for v in ("Flu", "Flu", "Cold", "Cancer")])
    np.testing.assert_allclose(res.probability, [2 / 3, 2 / 3, 1 / 3, 1 / 3])


def test_linkability_of_a_suppressed_person_is_zero(toy: Table) -> None:
    res = linkability(toy, toy_release(toy, [0, 0, 0, 1, 1, -1]))
    # c1 = {3, 4} publishes Cold, Flu; p4 is not released
    np.testing.assert_allclose(res.probability, [1 / 3, 2 / 3, 1 / 2, 0.0])
    assert res.mean == pytest.approx((1 / 3 + 2 / 3 + 1 / 2) / 4)


# ---------------------------------------------------------------------------- persons and the summary
def test_persons_from_the_argument_or_one_per_record() -> None:
    no_person = toy_table(person=False)
    rel = toy_release(no_person, [0, 1, 0, 1, 1, 1])
    # every record its own person: nobody has several records, 6 linkability probabilities
    assert record_intersection(no_person, rel).persons_with_several_records == 0
    assert len(linkability(no_person, rel).probability) == 6
    # the same persons given as labels: as with the person column
    labels = TOY["person"].to_numpy()
    assert record_intersection(no_person, rel, person=labels).breached == 1
    assert ncp_per_person(no_person, rel, person=labels) == pytest.approx((2 * 1.75 / 3 + 3 * 1.0) / 5)
    with pytest.raises(InputError, match="one person per record"):
        linkability(no_person, rel, person=labels[:3])


def test_one_to_many_measures_is_json_ready(toy: Table) -> None:
    rel = toy_release(toy, [0, 1, 0, 1, 1, 1])
    out = one_to_many_measures(toy, rel, queries=50, seed=3)
    assert list(out) == ["ncp", "query_accuracy", "query_error", "queries", "record_intersection", "linkability"]
    assert json.loads(json.dumps(out)) == out
    assert out["ncp"] == pytest.approx(2.5 / 3)
    assert out["queries"] == 50
    assert out["query_accuracy"] == pytest.approx(max(0.0, 1 - out["query_error"]))  # type: ignore[operator]
    assert out["record_intersection"] == {"persons_with_several_records": 2, "spread": 1, "breached": 1, "rate": 0.5}
    assert out["linkability"] == {"mean": pytest.approx(2.25 / 4), "max": 1.0}
    assert type(out["ncp"]) is float and type(out["queries"]) is int
    assert DEFAULT_QUERIES == 1000
    assert one_to_many_measures(toy, rel, seed=3)["queries"] == 1000


def test_bad_arguments(toy: Table) -> None:
    rel = toy_release(toy, [0, 0, 0, 1, 1, 1])
    with pytest.raises(InputError, match="query_dimension"):
        random_count_queries(toy, query_dimension=4)
    with pytest.raises(InputError, match="selectivity"):
        random_count_queries(toy, selectivity=0.0)
    with pytest.raises(InputError, match="queries"):
        random_count_queries(toy, queries=0)
    with pytest.raises(InputError, match="sensitive"):
        one_to_many_measures(toy, rel, sensitive="zip")
    qs = random_count_queries(toy, queries=5)
    other = replace(qs, masks=qs.masks[:2])
    with pytest.raises(InputError, match="another table"):
        query_accuracy(toy, rel, other)


# ---------------------------------------------------------------------------- the 1:M data
def one_to_many_table(persons: int, seed: int) -> Table:
    frame = make_one_to_many(persons, seed=seed)
    hierarchies = adult_hierarchies()
    qi = list(QI_COLUMNS)
    schema = Schema.of(quasi=qi, sensitive=["diagnosis"], person="person",
                       hierarchies={q: hierarchies[q] for q in qi})
    schema["diagnosis"].categories = ONE_TO_MANY_CATEGORIES
    schema["diagnosis"].category_order = CATEGORY_ORDER
    return Table(frame, schema)


def test_ordinal_quasi_identifier_takes_runs_in_its_order() -> None:
    schema = Schema.of(quasi=["age", "sex", "zip"], sensitive=["disease"], person="person",
                       hierarchies={"age": AGE, "zip": ZIP}, types={"age": "numeric", "zip": "ordinal"})
    schema["zip"].order = ["1402", "1301", "1401", "1302"]
    table = Table(TOY, schema)
    qs = random_count_queries(table, queries=200, query_dimension=3, selectivity=0.5, seed=1)
    leaves = table.hierarchies[2].leaves
    picked = {frozenset(leaves[row]) for row in qs.masks[2]}
    assert picked == {frozenset(p) for p in (("1402", "1301"), ("1301", "1401"), ("1401", "1302"))}
