"""IAB (Intelligent Anonymity Balance, paper C, spec §4.4 with its correction): the worked example,
optimality against an exhaustive search of the successor rule's tables, budget exhaustion, cells of
one attribute at different levels, and the pipeline."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit import Hierarchy, Schema, Table, anonymize
from anonkit.algorithms import get_algorithm
from anonkit.models import DistinctLDiversity, KAnonymity
from anonkit.release import Release
from anonkit.verifier import verify

GENDER = Hierarchy([["M", "*"], ["F", "*"]], name="Gender")
AGE = Hierarchy([["20s", "Young", "*"], ["30s", "Young", "*"], ["40s", "Middle", "*"], ["50s", "Middle", "*"]],
                name="Age")


def run_iab(table: Table, models: list, **options: object) -> Release:
    return get_algorithm("iab")(table, models, **options)


def gender_age(rows: list[tuple[str, str, int]]) -> Table:
    frame = pd.DataFrame([(g, a) for g, a, c in rows for _ in range(c)], columns=["Gender", "Age"])
    schema = Schema.of(quasi=["Gender", "Age"], hierarchies={"Gender": GENDER, "Age": AGE})
    return Table(frame, schema)


def published(table: Table, rel: Release) -> Counter:
    """The released table as distinct full rows with counts."""
    frame = rel.to_frame()
    return Counter(map(tuple, frame.astype(str).to_numpy().tolist()))


# --------------------------------------------------------------------------- spec §4.4 worked example
SPEC_ROWS = [("M", "20s", 3), ("M", "30s", 1), ("F", "20s", 2), ("F", "40s", 1), ("F", "50s", 2)]


def test_spec_worked_example() -> None:
    table = gender_age(SPEC_ROWS)
    rel = run_iab(table, [KAnonymity(2)])
    assert rel.satisfied and rel.n_suppressed == 0
    assert published(table, rel) == Counter({("M", "Young"): 4, ("F", "Young"): 2, ("F", "Middle"): 3})
    assert rel.notes["path"] == ["Age"]
    assert rel.notes["stopped"] == "optimal" and rel.notes["result"] == "optimal"
    assert rel.notes["rows"] == 3 and rel.notes["violating"] == 0
    trace = rel.notes["trace"]
    assert trace[0] == {"state": 0, "parent": None, "attribute": None, "violating": 2, "rows": 5, "expanded": True}
    first = {t["attribute"]: t for t in trace if t["parent"] == 0}
    assert (first["Gender"]["violating"], first["Gender"]["rows"]) == (2, 4)
    assert (first["Age"]["violating"], first["Age"]["rows"]) == (0, 3)
    assert [t["state"] for t in trace] == list(range(len(trace)))
    assert rel.notes["states_generated"] == len(trace) - 1


def test_most_rows_first_and_incumbent_is_not_expanded() -> None:
    """The Gender table (4 rows, 2 violating) is expanded before the answer is accepted, because it
    has more rows than the satisfying Age table (3); the satisfying table is never expanded."""
    rel = run_iab(gender_age(SPEC_ROWS), [KAnonymity(2)])
    trace = rel.notes["trace"]
    gender = next(t for t in trace if t["parent"] == 0 and t["attribute"] == "Gender")
    assert gender["expanded"] is True
    assert all(not t["expanded"] for t in trace if t["violating"] == 0)
    assert rel.notes["states_expanded"] == sum(t["expanded"] for t in trace) == 2


def test_cells_of_one_attribute_at_different_levels() -> None:
    """Only the violating 20s and its sibling 30s become Young; 40s and 50s stay leaves, and the
    release publishes exactly those nodes (the verifier accepts them)."""
    table = gender_age([("M", "20s", 1), ("M", "30s", 2), ("F", "40s", 3), ("F", "50s", 3)])
    models = [KAnonymity(2)]
    rel = run_iab(table, models)
    assert published(table, rel) == Counter({("M", "Young"): 3, ("F", "40s"): 3, ("F", "50s"): 3})
    assert sorted(rel.class_levels[:, 1].tolist()) == [0, 0, 1]
    assert rel.notes["path"] == ["Age"]
    assert verify(rel.to_frame(), table.schema, models).ok


def test_no_violation_returns_the_input() -> None:
    table = gender_age([("M", "20s", 2), ("F", "40s", 3)])
    rel = run_iab(table, [KAnonymity(2)])
    assert rel.notes["path"] == [] and rel.notes["states_expanded"] == 0
    assert published(table, rel) == Counter({("M", "20s"): 2, ("F", "40s"): 3})


def test_dead_end() -> None:
    """The successor rule lifts the parents of the violating rows' non-root values, so a violating
    row already at the root cannot pull the rows below the root up to it: 20s → Young → *, but 40s
    and 50s stay leaves and ``*`` (1 record) violates 2-anonymity for good. No reachable table
    satisfies the requirement; the search ends ("exhausted") and the violating row is suppressed."""
    table = gender_age([("M", "20s", 1), ("M", "40s", 2), ("M", "50s", 2)])
    rel = run_iab(table, [KAnonymity(2)], max_suppression=0.2)
    assert rel.notes["stopped"] == "exhausted" and rel.notes["result"] == "suppressed"
    assert [(t["attribute"], t["rows"], t["violating"]) for t in rel.notes["trace"]] == [
        (None, 3, 1), ("Gender", 3, 1), ("Age", 3, 1), ("Age", 3, 1), ("Age", 3, 1), ("Age", 3, 1)
    ]  # all six tables: {M, *} × {20s, Young, *}; Age then Gender repeats Gender then Age
    assert rel.notes["duplicates"] == 2 and rel.notes["path"] == []
    assert rel.satisfied and rel.n_suppressed == 1
    assert published(table, rel) == Counter({("M", "40s"): 2, ("M", "50s"): 2})
    assert not run_iab(table, [KAnonymity(2)]).satisfied


def test_successors_follow_the_shield_order() -> None:
    """Successors are generated attribute by attribute in the order the models name them (the
    paper's illustration generalizes its shield ⟨{Zip, Age, AC}, 3⟩ in that order)."""
    rel = run_iab(gender_age(SPEC_ROWS), [KAnonymity(2, attributes=("Age", "Gender"))])
    assert [t["attribute"] for t in rel.notes["trace"] if t["parent"] == 0] == ["Age", "Gender"]
    assert rel.notes["path"] == ["Age"]


def test_rows_packed_in_several_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows too wide for one int64 are packed into several words: the same search, the same tables."""
    from anonkit.algorithms.search import _states

    models = [KAnonymity(2, attributes=("Age",)), KAnonymity(3)]
    wide = run_iab(gender_age(SPEC_ROWS), models)
    monkeypatch.setattr(_states, "_CAPACITY", 4)
    assert _states.Packing.of([3, 7, 2]).n_words == 3
    narrow = run_iab(gender_age(SPEC_ROWS), models)
    assert narrow.notes["trace"] == wide.notes["trace"] and narrow.notes["path"] == wide.notes["path"]
    assert narrow.record_class.tolist() == wide.record_class.tolist()


def test_records_suppressed_up_front_take_no_part() -> None:
    frame = pd.DataFrame({"Gender": ["M", "M", "M", "F", "F"], "Age": ["20s", "20s", "", "40s", "40s"]})
    age = Hierarchy([*AGE.rows(), ["", "Young", "*"]], name="Age")
    schema = Schema.of(quasi=["Gender", "Age"], hierarchies={"Gender": GENDER, "Age": age})
    table = Table(frame, schema, missing="suppress")
    rel = run_iab(table, [KAnonymity(2)])
    assert rel.notes["path"] == [] and rel.notes["trace"][0]["rows"] == 2
    assert rel.satisfied and rel.suppressed.tolist() == [False, False, True, False, False]


# --------------------------------------------------------------------------- exhaustive reference
def random_hierarchy(rng: np.random.Generator, name: str, n_leaves: int, height: int) -> Hierarchy:
    """A random hierarchy of ``height`` levels over ``n_leaves`` leaves; labels are unique across levels."""
    rows = [[f"{name}0.{i}"] for i in range(n_leaves)]
    node = list(range(n_leaves))
    n_nodes = n_leaves
    for level in range(1, height):
        groups = rng.integers(0, int(rng.integers(1, n_nodes + 1)), n_nodes)
        _, groups = np.unique(groups, return_inverse=True)
        n_nodes = int(groups.max()) + 1
        for leaf in range(n_leaves):
            node[leaf] = int(groups[node[leaf]])
            rows[leaf].append(f"{name}{level}.{node[leaf]}")
    return Hierarchy([[*r, "*"] for r in rows], name=name)


def reference_best(rows: Counter, hierarchies: list[Hierarchy], requirements: list[tuple[list[int], int]]) -> int:
    """The most distinct rows of a table with no violating row among every table the successor rule
    reaches from ``rows`` (breadth-first over all of them). Cells are ``(level, label)``."""
    parent: dict[tuple[int, str], tuple[int, str]] = {}
    for h in hierarchies:
        for r in h.rows():
            for lv in range(h.height):
                parent[(lv, r[lv])] = (lv + 1, r[lv + 1])
    attrs = sorted({j for shield, _ in requirements for j in shield})

    def violating(state: dict) -> list:
        bad = set()
        for shield, k in requirements:
            totals: Counter = Counter()
            for row, c in state.items():
                totals[tuple(row[j] for j in shield)] += c
            bad |= {row for row in state if totals[tuple(row[j] for j in shield)] < k}
        return list(bad)

    start = {tuple((0, v) if j < len(hierarchies) else v for j, v in enumerate(row)): c for row, c in rows.items()}
    seen = {frozenset(start.items())}
    queue = [start]
    best = -1
    while queue:
        state = queue.pop()
        bad = violating(state)
        if not bad:
            best = max(best, len(state))
            continue
        for a in attrs:
            lifted = {parent[row[a]] for row in bad if row[a] in parent}
            new: Counter = Counter()
            for row, c in state.items():
                cell = row[a]
                if cell in parent and parent[cell] in lifted:
                    row = (*row[:a], parent[cell], *row[a + 1:])
                new[row] += c
            key = frozenset(new.items())
            if key not in seen:
                seen.add(key)
                queue.append(dict(new))
    return best


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), d=st.integers(2, 4), n=st.integers(8, 60), k1=st.integers(2, 4),
       k2=st.integers(2, 5))
def test_optimal_against_exhaustive_search(seed: int, d: int, n: int, k1: int, k2: int) -> None:
    rng = np.random.default_rng(seed)
    names = [f"q{j}" for j in range(d)]
    hierarchies = [random_hierarchy(rng, names[j], int(rng.integers(2, 5)), int(rng.integers(1, 4 if d < 4 else 3)))
                   for j in range(d)]
    cols = {names[j]: rng.choice(hierarchies[j].leaves, n) for j in range(d)}
    cols["s"] = rng.choice(["a", "b", "c"], n)
    frame = pd.DataFrame(cols)
    shields = []
    while len(shields) < 2:
        mask = rng.random(d) < 0.6
        shield = [j for j in range(d) if mask[j]] or [int(rng.integers(d))]
        if shield not in shields:
            shields.append(shield)
    models = [KAnonymity(k, attributes=tuple(names[j] for j in s)) for s, k in zip(shields, (k1, k2), strict=True)]
    schema = Schema.of(quasi=names, sensitive=["s"], hierarchies=dict(zip(names, hierarchies, strict=True)))
    table = Table(frame, schema)
    rel = run_iab(table, models)
    rows = Counter(map(tuple, frame[[*names, "s"]].to_numpy().tolist()))
    best = reference_best(rows, hierarchies, list(zip(shields, (k1, k2), strict=True)))
    if best < 0:  # a dead end: the successor rule reaches no satisfying table (see test_dead_end)
        assert rel.notes["stopped"] == "exhausted" and rel.notes["result"] == "suppressed"
        assert rel.notes["violating"] > 0
        rel = run_iab(table, models, max_suppression=1.0)
        assert rel.satisfied
        assert verify(rel.to_frame(), table.schema, models, reference={"s": frame["s"]}).ok
        return
    assert rel.notes["result"] == "optimal" and rel.notes["stopped"] == "optimal"
    assert rel.notes["violating"] == 0 and rel.notes["rows"] == best
    assert rel.satisfied and rel.n_suppressed == 0
    assert len(published(table, rel)) == best
    assert verify(rel.to_frame(), table.schema, models, reference={"s": frame["s"]}).ok


# --------------------------------------------------------------------------- budget
def test_budget_exhaustion_suppresses_the_violating_rows() -> None:
    """k = 3 on the worked example: neither successor of the input satisfies it, so one expansion
    leaves no satisfying table. The table kept is the one with most rows left once its violating
    rows are suppressed: Age (3 rows, 1 violating) beats the input (5, 4) and Gender (4, 3)."""
    table = gender_age(SPEC_ROWS)
    rel = run_iab(table, [KAnonymity(3)], max_states=1, max_suppression=0.5)
    assert rel.notes["stopped"] == "budget" and rel.notes["result"] == "suppressed"
    assert rel.notes["states_expanded"] == 1 and rel.notes["path"] == ["Age"]
    assert (rel.notes["rows"], rel.notes["violating"]) == (3, 1)
    assert rel.satisfied and rel.n_suppressed == 2
    assert published(table, rel) == Counter({("M", "Young"): 4, ("F", "Middle"): 3})
    assert verify(rel.to_frame(), table.schema, [KAnonymity(3)]).ok
    # without room for suppression the release cannot satisfy the model
    tight = run_iab(table, [KAnonymity(3)], max_states=1)
    assert tight.notes["stopped"] == "budget" and not tight.satisfied
    # with the full budget the search finds the optimum
    full = run_iab(table, [KAnonymity(3)])
    assert full.notes["result"] == "optimal" and full.satisfied and full.n_suppressed == 0


def test_budget_keeps_the_incumbent() -> None:
    """With k = 2 one expansion already generated the satisfying Age table: it is returned."""
    rel = run_iab(gender_age(SPEC_ROWS), [KAnonymity(2)], max_states=1)
    assert rel.notes["stopped"] == "budget" and rel.notes["result"] == "best found"
    assert rel.notes["path"] == ["Age"] and rel.satisfied and rel.n_suppressed == 0


def test_time_limit() -> None:
    rel = run_iab(gender_age(SPEC_ROWS), [KAnonymity(3)], time_limit=1e-9, max_suppression=1.0)
    assert rel.notes["stopped"] == "time" and rel.notes["states_expanded"] == 0
    assert rel.notes["result"] == "suppressed" and rel.satisfied


def test_options_are_validated() -> None:
    from anonkit import InputError

    with pytest.raises(InputError, match="max_states"):
        run_iab(gender_age(SPEC_ROWS), [KAnonymity(2)], max_states=0)
    with pytest.raises(InputError, match="time_limit"):
        run_iab(gender_age(SPEC_ROWS), [KAnonymity(2)], time_limit=0.0)


# --------------------------------------------------------------------------- full rows, other models
def test_rows_are_full_rows() -> None:
    """Rows that agree on the shield but differ on the sensitive value stay apart (paper's rows 4 and
    14: the shield projection has 3 records, the table keeps 2 rows)."""
    frame = pd.DataFrame({"Gender": ["M", "M", "M", "F", "F"], "Age": ["20s", "20s", "20s", "40s", "40s"],
                          "s": ["x", "x", "y", "x", "x"]})
    schema = Schema.of(quasi=["Gender", "Age"], sensitive=["s"], hierarchies={"Gender": GENDER, "Age": AGE})
    rel = run_iab(Table(frame, schema), [KAnonymity(2)])
    assert rel.notes["trace"][0]["rows"] == 3 and rel.notes["trace"][0]["violating"] == 0
    assert rel.notes["path"] == []


def test_other_models_are_judged_afterwards() -> None:
    """IAB searches for k-anonymity only: the input is 2-anonymous, so it is the result, and the
    class (F, 40s) that is not 2-diverse is suppressed."""
    frame = pd.DataFrame({"Gender": ["M", "M", "F", "F"], "Age": ["20s", "20s", "40s", "40s"],
                          "s": ["x", "y", "x", "x"]})
    schema = Schema.of(quasi=["Gender", "Age"], sensitive=["s"], hierarchies={"Gender": GENDER, "Age": AGE})
    table = Table(frame, schema)
    models = [KAnonymity(2), DistinctLDiversity("s", 2)]
    rel = run_iab(table, models, max_suppression=0.5)
    assert rel.notes["path"] == [] and rel.notes["result"] == "optimal"
    assert rel.satisfied and rel.n_suppressed == 2 and rel.failed_records == 2
    assert published(table, rel) == Counter({("M", "20s", "x"): 1, ("M", "20s", "y"): 1})
    assert verify(rel.to_frame(), table.schema, models, reference={"s": frame["s"]}).ok
    assert not run_iab(table, models).satisfied


# --------------------------------------------------------------------------- pipeline
def test_through_the_pipeline() -> None:
    rng = np.random.default_rng(7)
    n = 200
    age = rng.integers(20, 60, n)
    frame = pd.DataFrame({
        "age": age.astype(str),
        "zip": rng.choice(["1234", "1235", "1299", "1300"], n),
        "sex": rng.choice(["M", "F"], n),
        "disease": rng.choice(["flu", "cold", "cancer"], n),
        "note": rng.choice(["a", "b"], n),
    })
    h_age = Hierarchy([[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", f"{a // 20 * 20}-{a // 20 * 20 + 19}", "*"]
                       for a in range(20, 60)], name="age")
    h_zip = Hierarchy([[z, z[:3] + "*", "*"] for z in ["1234", "1235", "1299", "1300"]], name="zip")
    schema = Schema.of(quasi=["age", "zip", "sex"], sensitive=["disease"], insensitive=["note"],
                       hierarchies={"age": h_age, "zip": h_zip}, types={"age": "numeric"})
    models = [KAnonymity(3, attributes=("age", "zip")), KAnonymity(2)]
    result = anonymize(frame, schema, models, algorithm="iab")
    assert result.verification.ok and result.release.satisfied
    notes = result.summary["notes"]
    assert notes["result"] == "optimal" and "trace" not in notes
    levels = result.release.class_levels[:, 0]
    assert levels.min() >= 0
    for name, value in result.summary["metrics"].items():
        assert value is None or isinstance(value, str | dict | list) or math.isfinite(float(value)), name
    assert len(result.frame) == n
