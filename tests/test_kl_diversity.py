"""(k,l)-diversity for 1:M data (spec §1.6) and the frequency l-diversity model (spec §1.2)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit import Hierarchy, Schema
from anonkit.algorithms.partition import _transactions
from anonkit.algorithms.partition.kl_diversity import (
    DEFAULT_K,
    DEFAULT_L,
    PERSONS,
    implies,
    kl_diversity,
    published_schema,
)
from anonkit.datasets import CATEGORY_ORDER, ONE_TO_MANY_CATEGORIES, make_one_to_many
from anonkit.datasets.one_to_many import QI_COLUMNS
from anonkit.errors import InputError
from anonkit.models import (
    DistinctLDiversity,
    FrequencyLDiversity,
    KAnonymity,
    TCloseness,
)
from anonkit.stats import ClassStats, build_domain
from anonkit.table import Table
from anonkit.verifier import verify

CATS = {"Flu": "Low", "Cold": "Low", "Cancer": "Severe", "HIV": "Severe"}


# ---------------------------------------------------------------- frequency l-diversity
def _stats(*classes: list[str]) -> ClassStats:
    values = sorted({v for c in classes for v in c})
    domain, _ = build_domain("s", np.array(values, dtype=object))
    hist = np.array([[c.count(v) for v in values] for c in classes], dtype=float)
    return ClassStats(hist.sum(axis=1), {"s": hist}, {"s": domain})


def test_frequency_l_diversity_hand_examples() -> None:
    st_ = _stats(list("AABD"))
    assert FrequencyLDiversity("s", 2).passes(st_).tolist() == [True]
    assert FrequencyLDiversity("s", 3).passes(st_).tolist() == [False]  # A: 2 > 4/3
    assert DistinctLDiversity("s", 3).passes(st_).tolist() == [True]  # distinct-l is weaker
    assert FrequencyLDiversity("s", 2).achieved(st_) == 2.0
    both = _stats(list("AABD"), list("ABC"), list("AAB"))
    assert FrequencyLDiversity("s", 2).passes(both).tolist() == [True, True, False]
    assert FrequencyLDiversity("s", 1).achieved(both) == pytest.approx(1.5)
    m = FrequencyLDiversity("s", 2)
    assert m.name == "frequency-l-diversity" and m.minimum_class_size() == 2
    assert m.describe() == "frequency 2-diversity of s" and not m.monotonic_suppression
    with pytest.raises(InputError):
        FrequencyLDiversity("s", 0)


def test_frequency_l_diversity_in_the_verifier() -> None:
    frame = pd.DataFrame({"q": ["x"] * 4 + ["y"] * 3, "s": list("AABD") + list("ABC")})
    schema = Schema.of(quasi=["q"], sensitive=["s"])
    assert verify(frame, schema, [FrequencyLDiversity("s", 2)]).ok
    res = verify(frame, schema, [FrequencyLDiversity("s", 3)])
    assert not res.ok and res.results[0].failing_classes == 1 and res.results[0].failing_records == 4


# ---------------------------------------------------------------- the hand example
# persons (age, diagnoses); Flu, Cold are Low; Cancer, HIV Severe; k = 2, l = 2
HAND = [
    ("P1", 20, ["Flu"]),
    ("P2", 21, ["Flu"]),
    ("P3", 22, ["Cold"]),
    ("P4", 23, ["Cold"]),
    ("P5", 30, ["Flu", "Cancer"]),
    ("P6", 31, ["Flu", "HIV"]),
    ("P7", 32, ["Cancer"]),
    ("P8", 33, ["HIV"]),
    ("P9", 34, ["Cold", "Cancer"]),
    ("P10", 35, ["Flu", "Cancer"]),
]


def _hand_table(categories: dict[str, str] | None = CATS) -> Table:
    recs = [(p, str(a), d) for p, a, ds in HAND for d in ds]
    frame = pd.DataFrame(recs, columns=["person", "age", "diagnosis"])
    schema = Schema.of(person="person", quasi=["age"], sensitive=["diagnosis"], types={"age": "numeric"})
    schema["diagnosis"].categories = categories
    return Table(frame, schema)


def test_hand_example() -> None:
    """Transactions (k = 2): the root splits by category set into {Low} P1–P4, {Severe} P7 P8 and
    {Low,Severe} P5 P6 P9 P10. {Low} expands Low into {Flu} P1 P2 and {Cold} P3 P4. {Severe}'s
    children {Cancer} P7 and {HIV} P8 are too small: its leftover stays {Severe}. {Low,Severe} ties
    (gain 2·4 for both) and expands Low, the lower category: {Flu} P5 P6 P10, {Cold} P9 alone; the
    leftover takes P5 from {Flu} (one item below Low each; the lowest person). {Flu} P6 P10 then
    fails to expand Severe ({HIV}, {Cancer}: one each) → {Flu;Severe}; the leftover P5 P9 expands
    Severe into {Cancer} (both), whose child fails on Low again → {Low;Cancer}.
    Mondrian (k = l = 2) on age: the median 30 gives P1–P5 | P6–P10 (both frequency 2-diverse);
    P1–P5 cannot split (P1 P2 publish {Flu} twice); P6–P10 splits at 32 into P6 P7 | P8–P10."""
    table = _hand_table()
    rel = kl_diversity(table, [], k=2, l=2, seed=0)
    assert rel.satisfied
    out = rel.tables[PERSONS]
    assert list(out.columns) == ["age", "diagnosis"] and len(out) == 10
    expected = {
        ("[20-30]", "{Flu}"): 2, ("[20-30]", "{Cold}"): 2, ("[20-30]", "{Low;Cancer}"): 1,
        ("[31-32]", "{Flu;Severe}"): 1, ("[31-32]", "{Severe}"): 1,
        ("[33-35]", "{Severe}"): 1, ("[33-35]", "{Low;Cancer}"): 1, ("[33-35]", "{Flu;Severe}"): 1,
    }
    assert out.value_counts(["age", "diagnosis"]).to_dict() == expected
    # every record has its person's class; classes as published
    labels = rel.class_labels(0)
    per_record = labels[rel.record_class]
    ages = [a for _, a, ds in HAND for _ in ds]
    want = ["[20-30]" if a <= 30 else "[31-32]" if a <= 32 else "[33-35]" for a in ages]
    assert per_record.tolist() == want
    # expected records per class and value (Cancer, Cold, Flu, HIV): an item counts one, spread
    hist = {labels[c]: rel.sensitive_histogram[c].tolist() for c in range(rel.n_classes)}
    assert hist == {"[20-30]": [1, 2.5, 2.5, 0], "[31-32]": [1, 0, 1, 1], "[33-35]": [2, 0.5, 1.5, 1]}
    n = rel.notes
    assert (n["persons"], n["classes"], n["k"], n["l"], n["transactions"]) == (10, 3, 2, 2, 5)
    assert (n["items_as_value"], n["items_as_category"], n["items_as_root"], n["root_persons"]) == (8, 6, 0, 0)
    assert n["achieved_k"] == 2 and n["achieved_l"] == 2 and n["reconstructed"] is True
    assert verify(out, published_schema(table), implies(table, [], {"k": 2, "l": 2})).ok


def test_hand_example_without_categories() -> None:
    """value → *: the root's children are the exact sets; {Flu} (P1 P2), {Cold} (P3 P4),
    {Cancer;Flu} (P5 P10) keep theirs; the singletons P6 P7 P8 P9 form the leftover {*}."""
    table = _hand_table(None)
    part = _part(table, 2)
    texts = {p: t for (p, _, _), t in zip(HAND, part, strict=True)}
    assert texts == {"P1": "{Flu}", "P2": "{Flu}", "P3": "{Cold}", "P4": "{Cold}", "P5": "{Cancer;Flu}",
                     "P10": "{Cancer;Flu}", "P6": "{*}", "P7": "{*}", "P8": "{*}", "P9": "{*}"}
    rel = kl_diversity(table, [], k=2, l=2, seed=1)
    assert rel.satisfied and rel.notes["root_persons"] == 4 and rel.notes["items_as_root"] == 4
    out = rel.tables[PERSONS]
    assert verify(out, published_schema(table), implies(table, [], {"k": 2, "l": 2})).ok
    # {*} spreads one record over the four values
    assert rel.sensitive_histogram.sum() == pytest.approx(sum(len(texts[p][1:-1].split(";")) for p in texts))


def test_unused_categories_and_the_root() -> None:
    """Only the two lowest of the five categories hold values; everyone publishes ``{*}`` at k = 10
    (no set of categories is shared by 10 persons). At k = 4 {Low} (P7 P8) is too small, no child has
    a surplus, so the child of least gain, {Asymptomatic} (P1–P4), joins it under ``*``; {Asymptomatic,
    Low} (P5 P6 P9 P10) expands neither category (each leaves a child of one person)."""
    low = {"Flu": "Asymptomatic", "Cold": "Asymptomatic", "Cancer": "Low", "HIV": "Low"}
    table = _hand_table(low)
    assert set(_part(table, 10)) == {"{*}"}
    assert _part(table, 4) == ["{*}"] * 4 + ["{Asymptomatic;Low}"] * 2 + ["{*}"] * 2 + ["{Asymptomatic;Low}"] * 2
    rel = kl_diversity(table, [], k=10, l=1)
    assert rel.satisfied and set(rel.tables[PERSONS]["diagnosis"]) == {"{*}"}
    assert rel.sensitive_histogram.tolist() == [[2.5, 2.5, 2.5, 2.5]]


def _part(table: Table, k: int) -> list[str]:
    """The published transaction text of every person (in person order) from the partition step."""
    from anonkit.algorithms.partition.kl_diversity import _labels, _Persons, transaction_texts

    sa = table.sensitive[0]
    persons = _Persons(table, sa)
    d = table.domains[sa]
    part = _transactions.partition(persons.person, persons.item, persons.n, persons.m, d.category, k,
                                   len(d.category_labels))
    return transaction_texts(part, _labels(table, sa))[part.tx].tolist()


# ---------------------------------------------------------------- tampering
@pytest.fixture(scope="module")
def adult_1m() -> tuple[Table, object]:
    frame = make_one_to_many(3000, seed=1)
    table = Table(frame, _otm_schema())
    return table, kl_diversity(table, [], seed=4)


def _otm_schema(categories: bool = True) -> Schema:
    schema = Schema.of(person="person", quasi=list(QI_COLUMNS), sensitive=["diagnosis"])
    if categories:
        schema["diagnosis"].categories = dict(ONE_TO_MANY_CATEGORIES)
        schema["diagnosis"].category_order = CATEGORY_ORDER
    return schema


def test_verification_fails_on_tampered_tables(adult_1m) -> None:  # type: ignore[no-untyped-def]
    table, rel = adult_1m
    assert rel.satisfied
    out = rel.tables[PERSONS]
    schema = published_schema(table)
    models = implies(table, [], {})
    assert [m.describe() for m in models] == [
        f"{DEFAULT_K}-anonymity", f"frequency {DEFAULT_L}-diversity of diagnosis", f"{DEFAULT_K}-anonymity on diagnosis"
    ]
    assert verify(out, schema, models).ok
    qi = list(table.qi)
    cls = out.groupby(qi, sort=False).ngroup().to_numpy()
    sizes = np.bincount(cls)

    def failing(frame: pd.DataFrame) -> set[str]:
        res = verify(frame, schema, models)
        assert not res.ok
        return {r.model for r in res.results if not r.passed}

    # a row moved from a class of exactly k persons into another class
    small = int(np.flatnonzero(sizes == sizes.min())[0])
    row, other = int(np.flatnonzero(cls == small)[0]), int(np.flatnonzero(cls != small)[0])
    moved = out.copy()
    moved.loc[row, qi] = out.loc[other, qi].to_numpy()
    assert f"{DEFAULT_K}-anonymity" in failing(moved)
    # two items of a transaction merged into a new set: published for one person only
    merged = out.copy()
    merged.loc[0, "diagnosis"] = out.loc[0, "diagnosis"][:-1] + ";Cold}"
    assert f"{DEFAULT_K}-anonymity on diagnosis" in failing(merged)
    # one class made uniform: not frequency l-diverse
    uniform = out.copy()
    members = np.flatnonzero(cls == 0)
    uniform.loc[members, "diagnosis"] = out.loc[members[0], "diagnosis"]
    assert f"frequency {DEFAULT_L}-diversity of diagnosis" in failing(uniform)
    # a person dropped from a class of k persons
    assert f"{DEFAULT_K}-anonymity" in failing(out.drop(index=row))


def test_no_person_id_in_the_output(adult_1m) -> None:  # type: ignore[no-untyped-def]
    table, rel = adult_1m
    out = rel.tables[PERSONS]
    assert list(out.columns) == [*QI_COLUMNS, "diagnosis"]
    ids = set(make_one_to_many(3000, seed=1)["person"])
    assert not ids & set(out.to_numpy().ravel().tolist())
    assert len(out) == table.n_persons


def test_determinism_for_a_seed() -> None:
    frame = make_one_to_many(800, seed=2)
    a = kl_diversity(Table(frame, _otm_schema()), [], k=4, l=3, seed=9)
    b = kl_diversity(Table(frame, _otm_schema()), [], k=4, l=3, seed=9)
    c = kl_diversity(Table(frame, _otm_schema()), [], k=4, l=3, seed=10)
    assert a.tables[PERSONS].to_csv(index=False) == b.tables[PERSONS].to_csv(index=False)
    assert np.array_equal(a.record_class, b.record_class) and np.array_equal(a.record_class, c.record_class)
    assert a.tables[PERSONS].to_csv(index=False) != c.tables[PERSONS].to_csv(index=False)  # another order
    key = [*QI_COLUMNS, "diagnosis"]
    assert a.tables[PERSONS].sort_values(key).to_csv(index=False) == c.tables[PERSONS].sort_values(key).to_csv(
        index=False)


# ---------------------------------------------------------------- a reference partition
def _reference(trans: list[set[int]], category: list[int] | None, m: int, k: int) -> list[frozenset]:
    """He & Naughton's Partition, recursive and sequential, with the module's tie rules: the
    published nodes of every person (('v', value), ('c', category), ('*',))."""
    n = len(trans)
    leaves = [0] * (max(category) + 1 if category else 0)
    pos = {}
    for v in range(m):
        if category:
            pos[v] = leaves[category[v]]
            leaves[category[v]] += 1
    out: list[frozenset] = [frozenset()] * n

    def publish(members, root_open, expanded):  # type: ignore[no-untyped-def]
        for p in members:
            if not root_open:
                out[p] = frozenset({("*",)})
            else:
                out[p] = frozenset(("v", v) if category is None or category[v] in expanded else ("c", category[v])
                                   for v in trans[p])

    def run(members, root_open, expanded, tried, splittable):  # type: ignore[no-untyped-def]
        if not splittable:
            return publish(members, root_open, expanded)
        if not root_open:
            if "*" in tried:
                return publish(members, root_open, expanded)
            pick = "*"
            key = {p: frozenset(category[v] for v in trans[p]) if category else frozenset(trans[p]) for p in members}
            bits = {p: sum(1 << b for b in key[p]) for p in members}
            gain = {p: len(trans[p]) for p in members}
        else:
            if category is None:
                return publish(members, root_open, expanded)
            gains = {}
            for p in members:
                for v in trans[p]:
                    g = category[v]
                    if g not in expanded and g not in tried:
                        gains[g] = gains.get(g, 0) + leaves[g]
            if not gains:
                return publish(members, root_open, expanded)
            pick = max(sorted(gains), key=lambda g: gains[g])  # the first of the largest
            key = {p: frozenset(v for v in trans[p] if category[v] == pick) for p in members}
            bits = {p: sum(1 << pos[v] for v in key[p]) for p in members}
            gain = {p: len(key[p]) for p in members}
        children: dict[int, list[int]] = {}
        for p in members:
            children.setdefault(bits[p], []).append(p)
        left = []
        for b in sorted(children):
            if len(children[b]) < k:
                left += children.pop(b)
        final = False
        if left:
            while len(left) < k:
                cands = [(gain[p], p, b) for b, c in children.items() if len(c) > k for p in c]
                if not cands:
                    b = min(children, key=lambda b: (sum(gain[p] for p in children[b]), b))
                    left += children.pop(b)
                    final = True
                    break
                _, p, b = min(cands)
                children[b].remove(p)
                left.append(p)
        for b in sorted(children):
            if pick == "*":
                run(children[b], True, set(), set(), True)
            else:
                run(children[b], True, expanded | {pick}, set(), True)
        if left:
            run(sorted(left), root_open, expanded, tried | {pick}, not final)

    run(list(range(n)), False, set(), set(), True)
    return out


def _nodes(text: str, table: Table) -> frozenset:
    d = table.domains["diagnosis"]
    values = {str(v): i for i, v in enumerate(d.labels)}
    cats = {c: i for i, c in enumerate(d.category_labels)} if d.category is not None else {}
    items = text[1:-1].split(";")
    return frozenset(("*",) if t == "*" else ("v", values[t]) if t in values else ("c", cats[t]) for t in items)


# ---------------------------------------------------------------- random 1:M tables
VALUES = ["Flu", "Cold", "Cancer", "HIV", "Asthma", "Ulcer"]
VALUE_CATS = {"Flu": "Low", "Cold": "Low", "Cancer": "Severe", "HIV": "Severe", "Asthma": "Mild", "Ulcer": "Mild"}


def _random_1m(seed: int, n: int, values: int, categories: bool) -> tuple[pd.DataFrame, Schema]:
    rng = np.random.default_rng(seed)
    recs = []
    zips = ["1234", "1235", "1299", "1300"]
    for p in range(n):
        age, z = str(int(rng.integers(20, 40))), zips[int(rng.integers(4))]
        for v in rng.choice(VALUES[:values], size=int(rng.integers(1, 4)), replace=True):
            recs.append((f"id{p:03d}", age, z, v, "x"))
    frame = pd.DataFrame(recs, columns=["pid", "age", "zip", "diagnosis", "note"])
    h_zip = Hierarchy([[z, z[:3] + "*", "*"] for z in zips], name="zip")
    schema = Schema.of(person="pid", quasi=["age", "zip"], sensitive=["diagnosis"], insensitive=["note"],
                       hierarchies={"zip": h_zip}, types={"age": "numeric", "zip": "categorical"})
    if categories:
        schema["diagnosis"].categories = dict(VALUE_CATS)
    return frame, schema


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(1, 70), values=st.integers(1, 6), k=st.integers(1, 4),
       l=st.integers(1, 3), categories=st.booleans())
def test_random_one_to_many(seed: int, n: int, values: int, k: int, l: int, categories: bool) -> None:  # noqa: E741
    frame, schema = _random_1m(seed, n, values, categories)
    table = Table(frame, schema)
    rel = kl_diversity(table, [], k=k, l=l, seed=seed)
    # the transactions are those of the sequential reference
    trans: list[set[int]] = [set() for _ in range(table.n_persons)]
    for p, v in zip(table.person, table.sensitive_codes["diagnosis"], strict=True):
        trans[p].add(int(v))
    d = table.domains["diagnosis"]
    cat = d.category.tolist() if d.category is not None else None
    if table.n_persons >= k:
        ref = _reference(trans, cat, d.size, k)
        assert [_nodes(t, table) for t in _part(table, k)] == ref
    if not rel.satisfied:
        assert rel.n_released == 0 and rel.message.startswith("the models cannot be met: ")
        assert len(rel.tables[PERSONS]) == 0 and rel.notes["reason"]
        return
    out = rel.tables[PERSONS]
    n_p = table.n_persons
    # every person exactly one published row, every record its person's class
    assert len(out) == n_p and (rel.record_class >= 0).all()
    first = np.full(n_p, -1)
    first[table.person[::-1]] = np.arange(table.n)[::-1]
    assert np.array_equal(rel.record_class, rel.record_class[first][table.person])
    # classes of at least k persons, frequency l-diverse transactions, each transaction k times
    assert table.class_people(rel.record_class, rel.n_classes).min() >= k
    for _, g in out.groupby(["age", "zip"]):
        counts = g["diagnosis"].value_counts()
        assert len(g) >= k and len(counts) >= l and counts.max() * l <= len(g)
    assert out["diagnosis"].value_counts().min() >= k
    # the published transaction covers the person's values truthfully (row i is person order[i])
    order = np.random.default_rng(seed).permutation(n_p)
    for i, p in enumerate(order):
        nodes = _nodes(out["diagnosis"].iloc[i], table)
        gen = {("*",)} if ("*",) in nodes else {("v", v) if ("v", v) in nodes else ("c", cat[v]) for v in trans[p]}
        assert nodes == gen
        assert str(frame["zip"].iloc[first[p]]) in _zip_leaves(out["zip"].iloc[i])
        age = int(frame["age"].iloc[first[p]])
        lab = out["age"].iloc[i]
        lo, hi = (lab[1:-1].split("-") if lab.startswith("[") else (lab, lab))
        assert int(lo) <= age <= int(hi)
    # the independent verifier agrees
    models = implies(table, [], {"k": k, "l": l})
    assert verify(out, published_schema(table), models).ok
    assert rel.sensitive_histogram.shape == (rel.n_classes, d.size)
    assert rel.sensitive_histogram.sum() == pytest.approx(sum(len(s[1:-1].split(";")) for s in out["diagnosis"]))
    assert rel.sensitive_histogram.sum() <= table.n + 1e-9


def _zip_leaves(label: str) -> list[str]:
    all_zips = ["1234", "1235", "1299", "1300"]
    if label == "*":
        return all_zips
    return [z for z in all_zips if z == label or (label.endswith("*") and z.startswith(label[:-1]))]


# ---------------------------------------------------------------- settings and bad input
def test_defaults_and_models() -> None:
    table = _hand_table()
    assert [m.describe() for m in implies(table, [KAnonymity(3), DistinctLDiversity("diagnosis", 2)], {})] == [
        "3-anonymity", "frequency 2-diversity of diagnosis", "3-anonymity on diagnosis"]
    assert implies(table, [], {})[0] == KAnonymity(DEFAULT_K)
    assert implies(table, [], {})[1] == FrequencyLDiversity("diagnosis", DEFAULT_L)
    # the implied models are accepted again (the pipeline passes them to the algorithm)
    again = implies(table, implies(table, [], {"k": 2, "l": 2}), {})
    assert again == implies(table, [], {"k": 2, "l": 2})
    with pytest.raises(InputError, match=r"more than algorithm\.k"):
        implies(table, [KAnonymity(5)], {"k": 2})
    with pytest.raises(InputError, match=r"more than algorithm\.l"):
        kl_diversity(table, [FrequencyLDiversity("diagnosis", 3)], l=2)
    with pytest.raises(InputError, match="drop the model"):
        kl_diversity(table, [TCloseness("diagnosis", 0.3)], k=2, l=2)
    with pytest.raises(InputError, match="not a sensitive attribute"):
        kl_diversity(table, [], sensitive="age")
    with pytest.raises(InputError, match="option 'k'"):
        kl_diversity(table, [], k=0)
    spec = kl_diversity.spec  # type: ignore[attr-defined]
    assert spec.persons and spec.randomized and spec.reconstructed and spec.tables == (PERSONS,)
    assert "person" in spec.needs and spec.display == "(k,l)-diversity (1:M)"


def test_no_person_column_is_an_error() -> None:
    frame = pd.DataFrame({"age": ["20", "21"], "diagnosis": ["Flu", "Cold"]})
    table = Table(frame, Schema.of(quasi=["age"], sensitive=["diagnosis"]))
    with pytest.raises(InputError, match="person column"):
        kl_diversity(table, [], k=1, l=1)
    assert kl_diversity.spec.precheck(table, [], {}) is None  # type: ignore[attr-defined]  # the pipeline refuses it


def test_ambiguous_values_are_refused() -> None:
    frame = pd.DataFrame({"pid": ["a", "b"], "age": ["1", "2"], "diagnosis": ["x;y", "z"]})
    table = Table(frame, Schema.of(person="pid", quasi=["age"], sensitive=["diagnosis"]))
    with pytest.raises(InputError, match="ambiguous"):
        kl_diversity(table, [], k=1, l=1)
    frame["diagnosis"] = ["*", "z"]
    with pytest.raises(InputError, match="ambiguous"):
        kl_diversity(Table(frame, Schema.of(person="pid", quasi=["age"], sensitive=["diagnosis"])), [], k=1, l=1)


def test_unsatisfiable_cases() -> None:
    table = _hand_table()
    # fewer persons than k
    rel = kl_diversity(table, [], k=11, l=2)
    assert not rel.satisfied and rel.n_released == 0 and "only 10" in rel.message
    assert "only 10" in kl_diversity.spec.precheck(table, [], {"k": 11, "l": 2})  # type: ignore[attr-defined]
    assert len(rel.message.splitlines()) == 1
    # fewer distinct transactions than l: 7 distinct sets of values among the 10 persons
    why = kl_diversity.spec.precheck(table, [], {"k": 1, "l": 8})  # type: ignore[attr-defined]
    assert why is not None and "only 7 distinct" in why
    assert kl_diversity.spec.precheck(table, [], {"k": 2, "l": 2}) is None  # type: ignore[attr-defined]
    # the generalized transactions fail frequency l-diversity all together (k = 4: {Low} 4 of 10 > 10/3)
    rel = kl_diversity(table, [], k=4, l=3)
    assert not rel.satisfied and "frequency 3-diverse" in rel.message
    assert kl_diversity.spec.explain(table, [], rel, {}) == rel.notes["reason"]  # type: ignore[attr-defined]


def test_suppressed_persons_take_no_part() -> None:
    recs = [(p, str(a) if p != "P3" else "", d) for p, a, ds in HAND for d in ds]
    frame = pd.DataFrame(recs, columns=["person", "age", "diagnosis"])
    schema = Schema.of(person="person", quasi=["age"], sensitive=["diagnosis"])
    schema["diagnosis"].categories = CATS
    table = Table(frame, schema, missing="suppress")
    rel = kl_diversity(table, [], k=2, l=2)
    assert rel.satisfied and rel.notes["persons"] == 9 and len(rel.tables[PERSONS]) == 9
    p3 = table.person[np.flatnonzero(frame["person"] == "P3")[0]]
    assert (rel.record_class[table.person == p3] == -1).all()


# ---------------------------------------------------------------- the benchmark size
def test_one_hundred_thousand_persons() -> None:
    frame = make_one_to_many(100_000, seed=0)
    table = Table(frame, _otm_schema())
    rel = kl_diversity(table, [], seed=0)
    assert rel.satisfied and rel.notes["persons"] == 100_000 and rel.notes["achieved_k"] >= DEFAULT_K
    assert rel.notes["achieved_l"] >= DEFAULT_L and rel.notes["transactions"] >= DEFAULT_L
    out = rel.tables[PERSONS]
    assert verify(out, published_schema(table), implies(table, [], {})).ok
    assert math.isclose(rel.sensitive_histogram.sum(), sum(rel.notes[f"items_as_{x}"] for x in
                                                           ("value", "category", "root")))
