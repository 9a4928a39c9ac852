"""The smart-health table of paper C (Arca & Hewett, Future Internet 2021) and its generator.

The IAB checks use a small independent reference of the sibling-set successor rule and the
best-first search of spec §4.4, written here over the 22 unique rows (the algorithm itself lives in
``anonkit.algorithms.search.iab``, tested against the same figures at the end when it exists).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

import anonkit
from anonkit.datasets import make_smart_health, smart_health_hierarchies
from anonkit.datasets.smart_health import COLUMNS, SHIELD, TABLE1, ZIPS
from anonkit.errors import InputError

K = 3
Row = tuple[str, ...]
State = Counter  # full row → number of records
IDX = {c: i for i, c in enumerate(COLUMNS)}

# T(n, m) of Figure 3, by the path of attributes generalized from the root
EXPECTED = {
    (): (6, 22),
    ("Zip",): (2, 21),
    ("Age",): (4, 21),
    ("AC",): (0, 18),
    ("Zip", "Zip"): (2, 21),
    ("Zip", "Age"): (0, 21),
    ("Zip", "AC"): (0, 17),
}


# ---------------------------------------------------------------- reference IAB (test code)
def _parents() -> dict[str, dict[str, str]]:
    """Label → parent label per shield attribute (labels are unique across levels here)."""
    out: dict[str, dict[str, str]] = {}
    for a in SHIELD:
        up: dict[str, str] = {}
        for row in smart_health_hierarchies()[a].rows():
            for child, parent in itertools.pairwise(row):
                assert up.setdefault(child, parent) == parent, (a, child)
        out[a] = up
    return out


PARENT = _parents()


def shield(row: Row) -> Row:
    return tuple(row[IDX[a]] for a in SHIELD)


def violating(state: State) -> list[Row]:
    """Rows whose shield values are shared by fewer than K records."""
    sizes: Counter = Counter()
    for row, count in state.items():
        sizes[shield(row)] += count
    return [row for row in state if sizes[shield(row)] < K]


def successor(state: State, attribute: str) -> State:
    """Sibling-set rule: every row whose value is a child of a parent of a violating value moves up."""
    i, up = IDX[attribute], PARENT[attribute]
    targets = {up[row[i]] for row in violating(state) if row[i] in up}
    out: State = Counter()
    for row, count in state.items():
        if up.get(row[i]) in targets:
            row = (*row[:i], up[row[i]], *row[i + 1 :])
        out[row] += count
    return out


def key(state: State) -> frozenset:
    return frozenset(state.items())


def reference_iab(root: State, attributes: tuple[str, ...] = ("Zip", "Age", "AC")) -> tuple[list[dict], int]:
    """Best-first search, priority (most rows, fewest violating rows, first generated); returns the
    trace (one entry per generated state, in generation order) and the index of the result."""
    trace = [{"state": 0, "parent": None, "attribute": None, "table": root, "expanded": False}]
    frontier, seen, best = [0], {key(root)}, None

    def figures(i: int) -> tuple[int, int]:
        t = trace[i]["table"]
        return len(violating(t)), len(t)

    while frontier:
        if best is not None and all(figures(i)[1] <= figures(best)[1] for i in frontier):
            break
        i = min(frontier, key=lambda j: (-figures(j)[1], figures(j)[0], j))
        frontier.remove(i)
        if figures(i)[0] == 0:
            if best is None or figures(i)[1] > figures(best)[1]:
                best = i
            continue
        trace[i]["expanded"] = True
        for a in attributes:
            child = successor(trace[i]["table"], a)
            if key(child) == key(trace[i]["table"]) or key(child) in seen:
                continue
            seen.add(key(child))
            trace.append({"state": len(trace), "parent": i, "attribute": a, "table": child, "expanded": False})
            frontier.append(len(trace) - 1)
    for entry in trace:
        entry["violating"], entry["rows"] = len(violating(entry["table"])), len(entry["table"])
    assert best is not None
    return trace, best


def paths(trace: list[dict]) -> dict[object, tuple]:
    """The attribute path of every traced state, by state id."""
    by_id = {e["state"]: e for e in trace}

    def path(e: dict) -> tuple:
        return () if e["parent"] is None else (*path(by_id[e["parent"]]), e["attribute"])

    return {e["state"]: path(e) for e in trace}


# ---------------------------------------------------------------- fixtures and helpers
@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return make_smart_health()


@pytest.fixture(scope="module")
def root() -> State:
    return Counter({row: count for row, count in TABLE1})


def unique_rows(frame: pd.DataFrame) -> list[tuple[Row, int]]:
    """The distinct rows of ``frame`` with their counts, in order of first appearance."""
    counts = frame.groupby(list(COLUMNS), sort=False).size()
    return [(tuple(k), int(v)) for k, v in counts.items()]


def leakage(values: pd.Series) -> float:
    """Longpre et al.'s normalized leakage, computed as the paper does (spec §2.6)."""
    n = len(values)
    s0 = math.log2(n)
    delta = sum((e / n) * (s0 - math.log2(e)) for e in values.value_counts())
    return delta / s0


def row_no(row: Row) -> int:
    """1-based position of a full row in the documented Table 1."""
    return next(i + 1 for i, (r, _) in enumerate(TABLE1) if r == row)


# ---------------------------------------------------------------- the paper's Table 1
def test_sixty_records_twenty_two_rows_all_text(frame: pd.DataFrame) -> None:
    assert list(frame.columns) == list(COLUMNS)
    assert len(frame) == 60
    for col in frame.columns:
        assert frame[col].map(type).eq(str).all(), col
    rows = unique_rows(frame)
    assert rows == list(TABLE1)  # records come row by row, in the documented order
    assert len(rows) == 22 and sum(c for _, c in rows) == 60


def test_sex_split_and_leakage(frame: pd.DataFrame) -> None:
    assert frame["Sex"].value_counts().to_dict() == {"F": 27, "M": 33}
    female = {i + 1 for i, (r, _) in enumerate(TABLE1) if r[0] == "F"}
    assert female == {1, 2, 8, 9, 10, 12, 13, 14, 16, 19, 22}  # E1 of Section 3.1
    assert leakage(frame["Sex"]) == pytest.approx(0.168, abs=0.001)
    # the identity of spec §2.6: leakage = entropy / log2 n
    p = frame["Sex"].value_counts(normalize=True)
    assert leakage(frame["Sex"]) == pytest.approx(float(-(p * np.log2(p)).sum()) / math.log2(60))


def test_leakage_ranking_age_zip_race(frame: pd.DataFrame) -> None:
    scores = {c: leakage(frame[c]) for c in COLUMNS if c != "Risk"}  # Risk is the disclosed attribute
    ranking = sorted(scores, key=scores.get, reverse=True)
    assert ranking[:3] == ["Age", "Zip", "Race"], scores
    assert scores["Age"] > scores["Zip"] > scores["Race"] > max(scores["Sex"], scores["AC"], scores["BP"])


def test_paper_rows(frame: pd.DataFrame) -> None:
    rows = unique_rows(frame)
    assert rows[1] == (("F", "Low", "35", "52000", "143", "Black", "No"), 3)  # Row 2 of Section 3
    assert rows[0][0][:4] == ("F", "Med", "35", "52000")  # Row 1 (Table 3a)
    assert {i + 1 for i, (_, c) in enumerate(rows) if c == 1} == {1, 4, 10, 13}
    assert set(frame["AC"]) == {"Low", "Med", "High"}  # three of the four AC values appear


def test_violating_rows(root: State) -> None:
    assert sorted(row_no(r) for r in violating(root)) == [1, 4, 9, 10, 13, 14]


def test_zip_generalization_is_table_4(root: State) -> None:
    t1 = successor(root, "Zip")
    assert (len(violating(t1)), len(t1)) == (2, 21)
    r = {i + 1: row for i, (row, _) in enumerate(TABLE1)}
    z = IDX["Zip"]

    def up(row: Row) -> Row:
        return (*row[:z], PARENT["Zip"][row[z]], *row[z + 1 :])

    # rows 1 and 9 agree on every other column and merge
    assert up(r[1]) == up(r[9]) and t1[up(r[1])] == 1 + 2
    assert shield(up(r[1])) == ("Med", "35", "5200*")
    # rows 4 and 14 get the same shield values, 3 records together, but stay two rows
    assert up(r[4]) != up(r[14]) and shield(up(r[4])) == shield(up(r[14])) == ("Low", "35", "5201*")
    assert t1[up(r[4])] + t1[up(r[14])] == 3 and up(r[4]) in t1 and up(r[14]) in t1
    # rows 10 and 13 still violate
    assert set(violating(t1)) == {up(r[10]), up(r[13])}


def test_iab_reference_trace(root: State) -> None:
    trace, best = reference_iab(root)
    got = [(paths(trace)[e["state"]], (e["violating"], e["rows"])) for e in trace]
    assert got == [
        ((), (6, 22)),
        (("Zip",), (2, 21)),
        (("Age",), (4, 21)),
        (("AC",), (0, 18)),
        (("Zip", "Zip"), (2, 21)),
        (("Zip", "Age"), (0, 21)),
        (("Zip", "AC"), (0, 17)),
    ]
    assert dict(got) == EXPECTED
    # the search expands T and T1 only, and returns T5(0, 21)
    assert [paths(trace)[e["state"]] for e in trace if e["expanded"]] == [(), ("Zip",)]
    assert paths(trace)[best] == ("Zip", "Age") and len(trace[best]["table"]) == 21
    t5 = trace[best]["table"]
    assert sum(t5.values()) == 60 and not violating(t5)


def test_hierarchies_cover_every_value(frame: pd.DataFrame) -> None:
    hier = smart_health_hierarchies()
    assert set(hier) == set(COLUMNS)
    assert hier["AC"].row(hier["AC"].index()["Med"]) == ["Med", "Yes", "*"]
    assert hier["Zip"].row(hier["Zip"].index()["52000"])[:3] == ["52000", "5200*", "520**"]
    assert hier["Age"].row(hier["Age"].index()["35"]) == ["35", "[20-44]", "*"]
    assert len(set(hier["Age"].labels[1])) == 4
    for data in (frame, make_smart_health(3000, seed=5)):
        for col in COLUMNS:
            codes = hier[col].encode(data[col], column=col)  # raises unless every value is a leaf
            assert (codes >= 0).all()
        quasi = ["Sex", "AC", "Age", "Zip", "BP", "Race"]
        schema = anonkit.Schema.of(quasi=quasi, sensitive=["Risk"], hierarchies={c: hier[c] for c in quasi})
        table = anonkit.Table(data, schema)
        assert table is not None


# ---------------------------------------------------------------- the random generator
def test_random_table_shape_domains_and_determinism() -> None:
    a = make_smart_health(500, seed=7)
    b = make_smart_health(500, seed=7)
    c = make_smart_health(500, seed=8)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    assert list(a.columns) == list(COLUMNS) and len(a) == 500
    for col in a.columns:
        assert a[col].map(type).eq(str).all(), col
    assert set(a["Sex"]) <= {"F", "M"} and set(a["Risk"]) <= {"Yes", "No"}
    assert set(a["AC"]) <= {"None", "Low", "Med", "High"}
    assert set(a["Zip"]) <= set(ZIPS)
    assert a["Age"].astype(int).between(20, 85).all() and a["BP"].astype(int).between(90, 199).all()
    assert make_smart_health(1).shape == (1, 7)


def test_random_table_follows_documented_distributions() -> None:
    big = make_smart_health(20000, seed=1)
    assert (big["Sex"] == "F").mean() == pytest.approx(0.45, abs=0.015)
    assert (big["AC"] == "None").mean() == pytest.approx(0.15, abs=0.015)
    assert (big["Race"] == "White").mean() == pytest.approx(0.55, abs=0.015)
    bp, age = big["BP"].astype(int), big["Age"].astype(int)
    assert bp[age >= 70].mean() > bp[age < 30].mean() + 20
    assert (big.loc[bp >= 140, "Risk"] == "Yes").mean() > (big.loc[bp < 120, "Risk"] == "Yes").mean()


@pytest.mark.parametrize("n", [0, -3, 2.5, True, "10"])
def test_bad_n_is_an_input_error(n: object) -> None:
    with pytest.raises(InputError):
        make_smart_health(n)  # type: ignore[arg-type]


def test_bad_seed_is_an_input_error() -> None:
    with pytest.raises(InputError):
        make_smart_health(10, seed=-1)


# ---------------------------------------------------------------- the IAB algorithm, when it exists
def test_iab_algorithm_reproduces_figure_3(frame: pd.DataFrame) -> None:
    pytest.importorskip("anonkit.algorithms.search.iab")
    from anonkit.algorithms import get_algorithm
    from anonkit.models import KAnonymity

    hier = smart_health_hierarchies()
    schema = anonkit.Schema.of(
        quasi=list(SHIELD),
        insensitive=["Sex", "BP", "Race"],
        sensitive=["Risk"],
        hierarchies={a: hier[a] for a in SHIELD},
    )
    table = anonkit.Table(frame, schema)
    release = get_algorithm("iab")(table, [KAnonymity(3, attributes=("AC", "Age", "Zip"))])
    trace = release.notes["trace"]
    for entry in trace:
        assert {"state", "parent", "attribute", "violating", "rows", "expanded"} <= set(entry)
    by_path = paths(trace)
    got = {by_path[e["state"]]: (e["violating"], e["rows"]) for e in trace}
    assert got == EXPECTED
    assert by_path[trace[0]["state"]] == ()
    expanded = {by_path[e["state"]] for e in trace if e["expanded"]}
    assert {(), ("Zip",)} <= expanded
    assert not expanded & {("Age",), ("AC",), ("Zip", "Zip"), ("Zip", "AC")}

    out = release.to_frame()
    assert len(out) == 60
    assert len(out.drop_duplicates()) == 21
    assert out.groupby(list(SHIELD)).size().min() >= 3
    reference, best = reference_iab(Counter({row: count for row, count in TABLE1}))
    published = Counter(tuple(str(v) for v in r) for r in out[list(COLUMNS)].itertuples(index=False))
    assert published == reference[best]["table"]
