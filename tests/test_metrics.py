"""Utility and risk measures (spec §2, ARX compatibility §2.4–2.5).

Worked examples of the spec, hand-computed values on the §5 toy, invariants on random tables, and
ARX JUnit golden values on Adult (research note /work/notes/arx_semantics.md §1): each golden applies
the transformation ARX printed with ``fixed`` and compares the score as a double.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import support
from anonkit import metrics as M
from anonkit.algorithms.lattice.fixed import fixed
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy, class_lca, read_hierarchy
from anonkit.models import KAnonymity
from anonkit.release import Release
from anonkit.schema import Schema
from anonkit.table import Table

# ---------------------------------------------------------------------------------------- fixtures


def release_of(table: Table, record_class: list[int], classes: list[list[tuple[int, str]]]) -> Release:
    """A release with explicit classes: ``classes[c][j] = (level, label)`` of QI ``j`` in class ``c``."""
    levels = np.array([[lv for lv, _ in c] for c in classes], dtype=np.int64).reshape(len(classes), len(table.qi))
    nodes = np.array(
        [
            [int(np.flatnonzero(h.labels[lv] == lab)[0]) for h, (lv, lab) in zip(table.hierarchies, c, strict=True)]
            for c in classes
        ],
        dtype=np.int64,
    ).reshape(len(classes), len(table.qi))
    return Release(table, np.array(record_class, dtype=np.int64), levels, nodes, algorithm="test")


@pytest.fixture(scope="module")
def ncp_release(ncp_table: Table) -> Release:
    # groups {(25,M),(30,F)} → (25-30, *) and {(40,M),(60,M)} → (40-60, M)
    return release_of(ncp_table, [0, 0, 1, 1], [[(1, "25-30"), (1, "*")], [(1, "40-60"), (0, "M")]])


AGES = [21, 23, 25, 32, 35, 38]
SEXES = ["M", "M", "F", "F", "F", "M"]


@pytest.fixture(scope="module")
def toy() -> Table:
    """Spec §5: Age (exact → decade → *), Sex (exact → *); k = 2."""
    h_age = Hierarchy([[str(a), "20-29" if a < 30 else "30-39", "*"] for a in AGES], name="age")
    h_sex = Hierarchy([["M", "*"], ["F", "*"]], name="sex")
    frame = pd.DataFrame({"age": [str(a) for a in AGES], "sex": SEXES})
    # the spec's worked example measures age by the hierarchy's leaf counts: declared categorical
    return Table(frame, Schema.of(quasi=["age", "sex"], hierarchies={"age": h_age, "sex": h_sex},
                                  types={"age": "categorical"}))


def toy_release(toy: Table, levels: list[int], max_suppression: float = 0.0) -> Release:
    return fixed(toy, [KAnonymity(2)], levels=levels, max_suppression=max_suppression)


# ---------------------------------------------------------------------------------------- NCP / GCP (§2.1)


def test_ncp_gcp_worked_example(ncp_table: Table, ncp_release: Release) -> None:
    ncp = M.ncp_records(ncp_table, ncp_release)
    assert ncp == pytest.approx([1.125, 1.125, 0.5, 0.5], abs=1e-12)
    assert ncp.sum() == pytest.approx(3.25, abs=1e-12)
    assert M.gcp(ncp_table, ncp_release) == pytest.approx(0.40625, abs=1e-12)
    assert M.gcp(ncp_table, ncp_release, include_suppressed=False) == pytest.approx(0.40625, abs=1e-12)
    assert M.ncp_classes(ncp_table, ncp_release) == pytest.approx(np.array([[0.125, 1.0], [0.5, 0.0]]))


def test_gcp_with_suppression(ncp_table: Table) -> None:
    # the second group suppressed: its records are charged 1 per attribute
    rel = release_of(ncp_table, [0, 0, -1, -1], [[(1, "25-30"), (1, "*")]])
    assert M.ncp_records(ncp_table, rel) == pytest.approx([1.125, 1.125, 2.0, 2.0])
    assert M.gcp(ncp_table, rel) == pytest.approx((2 * 1.125 + 4) / 8)
    assert M.gcp(ncp_table, rel, include_suppressed=False) == pytest.approx(2 * 1.125 / 4)
    nothing = release_of(ncp_table, [-1, -1, -1, -1], [])
    assert M.gcp(ncp_table, nothing) == 1.0
    assert math.isnan(M.gcp(ncp_table, nothing, include_suppressed=False))


def test_gcp_numeric_without_bounds() -> None:
    # a missing age makes the hierarchy non-numeric: the class's data range over the table's is used
    h_age = Hierarchy([["25", "a", "*"], ["30", "a", "*"], ["60", "b", "*"], ["", "b", "*"]], name="age")
    frame = pd.DataFrame({"age": ["25", "30", "60", ""]})
    table = Table(frame, Schema.of(quasi=["age"], types={"age": "numeric"}, hierarchies={"age": h_age}))
    assert table.hierarchies[0].bounds is None
    rel = release_of(table, [0, 0, 1, 1], [[(1, "a")], [(1, "b")]])
    assert M.ncp_records(table, rel) == pytest.approx([5 / 35, 5 / 35, 0.0, 0.0])


def test_gcp_extremes(toy: Table) -> None:
    assert M.gcp(toy, fixed(toy, [KAnonymity(1)], levels=[0, 0])) == 0.0
    assert M.gcp(toy, fixed(toy, [KAnonymity(1)], levels=[2, 1])) == 1.0
    assert M.gcp(toy, toy_release(toy, [1, 1])) == pytest.approx(0.75)  # age 3/6 at decades, sex 1


# ---------------------------------------------------------------------------------------- §5 toy


def test_toy_prec_dm_star_entropy(toy: Table) -> None:
    r11, r20 = toy_release(toy, [1, 1]), toy_release(toy, [2, 0])
    assert M.prec_loss(toy, r11) == pytest.approx(0.75)
    assert M.prec_loss(toy, r20) == pytest.approx(0.5)
    assert M.discernibility_star(toy, r11) == 18
    assert M.discernibility_star(toy, r20) == 18
    expected = math.floor(6 * math.log2(6) * 1e10) / 1e10  # 6·log2 6 = 6·log2 3 + 6 ≈ 15.51 bits
    for rel in (r11, r20):
        assert M.entropy(toy, rel) == pytest.approx(expected, abs=1e-9)
        assert M.entropy(toy, rel, monotonic=False) == pytest.approx(expected, abs=1e-9)
        assert M.discernibility(toy, rel) == 18
        assert M.aecs(toy, rel) == 3.0
        assert M.height(toy, rel) == 2.0
    assert M.precision(toy, r11) == pytest.approx(0.75)


def test_toy_with_suppression(toy: Table) -> None:
    # (1,0) with MaxSup 2 records suppresses (25,F) and (38,M)
    rel = toy_release(toy, [1, 0], max_suppression=2 / 6)
    assert rel.satisfied and rel.n_suppressed == 2
    assert M.discernibility(toy, rel) == 2**2 + 2**2 + 6 * 2
    assert M.discernibility_star(toy, rel) == 2**2 + 2**2 + 1 + 1
    assert list(M.suppressed_class_sizes(toy, rel)) == [1, 1]
    assert M.aecs(toy, rel) == 6 / 3
    assert M.suppression_rate(toy, rel) == pytest.approx(1 / 3)
    mono = 6 * math.log2(3)  # age generalized to decades; sex untouched
    assert M.entropy(toy, rel) == pytest.approx(mono, abs=1e-9)
    # non-monotonic: + the suppressed records' entropy, 2 bits for age (20-29, 30-39) and 2 for sex (F, M)
    assert M.entropy(toy, rel, monotonic=False) == pytest.approx(mono + 4, abs=1e-9)
    assert M.entropy_per_attribute(toy, rel, monotonic=False) == pytest.approx({"age": mono + 2, "sex": 2.0}, abs=1e-9)
    # precision: monotonic = levels only, non-monotonic charges suppressed records 1 per QI
    assert M.precision(toy, rel) == pytest.approx(0.25)
    assert M.precision(toy, rel, monotonic=False) == pytest.approx(((4 * 0.5 + 2) / 6 + (0 + 2) / 6) / 2)
    assert M.cavg(toy, rel, 2) == pytest.approx(1.0)
    stats = M.class_size_stats(toy, rel)
    assert (stats.n_classes, stats.min, stats.avg, stats.max) == (2, 2.0, 2.0, 2.0)


def test_toy_loss_by_hand(toy: Table) -> None:
    rel = toy_release(toy, [1, 1])
    # age: 6 records at decades (share 3/6), min = 6/6 → (3 − 1)/(6 − 1) = 0.4; sex at * → 1
    per = M.loss_per_attribute(toy, rel)
    assert per == {"age": 0.4, "sex": 1.0}
    assert M.loss(toy, rel) == pytest.approx(math.sqrt(1.4 * 2.0) - 1)
    assert M.loss(toy, rel, aggregate="arithmetic") == pytest.approx(0.7)
    assert M.loss(toy, rel, aggregate="sum") == pytest.approx(1.4)
    assert M.loss(toy, rel, aggregate="max") == 1.0
    assert M.loss(toy, rel, aggregate="rank") == (1.0, 0.4)
    # weights normalized by the largest; ARX's geometric mean multiplies (v + 1) by the weight
    assert M.loss(toy, rel, weights={"age": 1.0, "sex": 0.5}) == pytest.approx(math.sqrt(1.4 * 1.0) - 1)
    assert M.loss(toy, rel, weights=[0.0, 0.0]) == M.loss(toy, rel)
    assert M.loss(toy, toy_release(toy, [2, 0])) == pytest.approx(math.sqrt(2.0) - 1)
    assert M.loss(toy, fixed(toy, [KAnonymity(1)], levels=[0, 0])) == 0.0
    with pytest.raises(InputError, match=r"^unknown aggregate 'median'; allowed: sum, .* \(key 'aggregate'\)$"):
        M.loss(toy, rel, aggregate="median")  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"^gs must lie in \[0, 1\], got 1.5 \(key 'gs'\)$"):
        M.loss(toy, rel, gs=1.5)


def test_gs_factors() -> None:
    assert M.gs_factors(0.5) == (1.0, 1.0)
    assert M.gs_factors(0.0) == (1.0, 0.0)
    assert M.gs_factors(0.25) == (1.0, 0.5)
    assert M.gs_factors(1.0) == (0.0, 1.0)
    assert M.gs_factors(0.75) == (0.5, 1.0)


# ---------------------------------------------------------------------------------------- WHD (§2.3)


def test_whd_worked_examples() -> None:
    # the spec numbers levels from the root (h = 4 levels); anonkit from the leaves (height 3)
    assert M.whd_cost(3, 0, 2) == pytest.approx(2 / 3)  # uniform 4 → 2
    assert Fraction(M.whd_cost(3, 0, 2, weights="height")).limit_denominator(100) == Fraction(5, 11)  # 4 → 2
    assert Fraction(M.whd_cost(3, 0, 1, weights="height")).limit_denominator(100) == Fraction(2, 11)  # 4 → 3
    assert Fraction(M.whd_cost(3, 2, 3, weights="height")).limit_denominator(100) == Fraction(6, 11)  # 2 → 1
    assert M.whd_cost(3, 0, 3, weights="height", beta=2.0) == 1.0
    assert M.whd_cost(0, 0, 0) == 0.0
    with pytest.raises(InputError, match=r"^levels must satisfy .* \(key 'to_level'\)$"):
        M.whd_cost(3, 2, 1)
    with pytest.raises(InputError, match=r"\(key 'from_level'\)$"):
        M.whd_cost(3, -1, 1)


def test_whd_release(toy: Table) -> None:
    res = M.whd(toy, toy_release(toy, [1, 1]))  # tuple WHD = (1/2 + 1)/2
    assert res.total == pytest.approx(6 * 0.75)
    assert res.average == pytest.approx(0.75)
    sup = M.whd(toy, toy_release(toy, [1, 0], max_suppression=2 / 6))  # 4 records at 1/4, 2 suppressed at 1
    assert sup.total == pytest.approx(4 * 0.25 + 2)


@pytest.fixture(scope="module")
def kaca() -> Table:
    """Spec §4.9: Education {Bachelors, Masters, Doctorate} → Higher-ed, {HS-grad, 11th} → Secondary → ANY."""
    h_edu, h_sex = support.EDU, support.SEX
    frame = pd.DataFrame(
        {
            "edu": ["Bachelors", "Masters", "Doctorate", "HS-grad", "11th", "Bachelors"],
            "sex": ["M", "M", "F", "F", "F", "M"],
        }
    )
    return Table(frame, Schema.of(quasi=["edu", "sex"], hierarchies={"edu": h_edu, "sex": h_sex}))


def test_kaca_output_modification_rate_and_whd(kaca: Table) -> None:
    # {t1,t2,t6} → (Higher-ed, M), {t3,t4,t5} → (ANY, F): 6 of 12 cells change; total WHD 2.25
    rel = release_of(kaca, [0, 0, 1, 1, 1, 0], [[(1, "Higher-ed"), (0, "M")], [(2, "ANY"), (0, "F")]])
    assert M.modification_rate(kaca, rel) == 0.5
    assert M.whd(kaca, rel).total == pytest.approx(2.25)
    # a suppressed record counts all its cells as modified
    rel2 = release_of(kaca, [0, 0, 1, 1, -1, 0], [[(1, "Higher-ed"), (0, "M")], [(2, "ANY"), (0, "F")]])
    assert M.modification_rate(kaca, rel2) == pytest.approx(7 / 12)  # t5's sex now counts too
    rel3 = release_of(kaca, [0, 0, -1, -1, -1, 0], [[(1, "Higher-ed"), (0, "M")]])
    assert M.modification_rate(kaca, rel3) == pytest.approx((3 + 6) / 12)


def test_modification_rate_same_label_is_unchanged() -> None:
    h = Hierarchy([["a", "a", "*"], ["b", "ab", "*"]], name="x")
    table = Table(pd.DataFrame({"x": ["a", "b"]}), Schema.of(quasi=["x"], hierarchies={"x": h}))
    rel = fixed(table, [KAnonymity(1)], levels=[1])
    assert M.modification_rate(table, rel) == 0.5  # "a" → "a" is not a modification


# ---------------------------------------------------------------------------------------- risk (§2.5, ARX §2.5)


def test_record_linkage_worked_example(ncp_table: Table, ncp_release: Release) -> None:
    assert M.record_linkage(ncp_table, ncp_release) == pytest.approx(50.0)


def test_record_linkage_overlapping_boxes(toy: Table) -> None:
    # local recoding: {21} stays a leaf, {23, 25} → 20-29, the 30s → (30-39, *)
    rel = release_of(
        toy,
        [0, 1, 1, 2, 2, 2],
        [[(0, "21"), (0, "M")], [(1, "20-29"), (1, "*")], [(1, "30-39"), (1, "*")]],
    )
    # 21 matches its own box and the 20-29 box (3 candidates); 23 and 25 only theirs (2); 30s: 3
    assert list(M.linkage_candidates(toy, rel)[toy.distinct.inverse]) == [3, 2, 2, 3, 3, 3]
    assert M.record_linkage(toy, rel) == pytest.approx(100 * (1 / 3 + 1 / 2 + 1 / 2 + 1) / 6)
    # suppressed records score 0 and are no candidates; the (*, *) box contains everyone
    rel2 = release_of(toy, [0, 1, -1, 2, 2, 2], [[(0, "21"), (0, "M")], [(1, "20-29"), (1, "*")], [(2, "*"), (1, "*")]])
    assert list(M.linkage_candidates(toy, rel2)[toy.distinct.inverse]) == [5, 4, 4, 3, 3, 3]
    assert M.record_linkage(toy, rel2) == pytest.approx(100 * (1 / 5 + 1 / 4 + 3 / 3) / 6)


def test_prosecutor_risk_and_uniqueness(toy: Table) -> None:
    risk = M.prosecutor_risk(toy, toy_release(toy, [1, 1]))
    assert (risk.highest, risk.lowest) == pytest.approx((1 / 3, 1 / 3))
    assert risk.average == pytest.approx(2 / 6)
    assert risk.records_at_risk == 1.0  # 1/3 > 0.2
    assert M.prosecutor_risk(toy, toy_release(toy, [1, 1]), threshold=0.5).records_at_risk == 0.0
    bottom = fixed(toy, [KAnonymity(1)], levels=[0, 0])
    assert M.sample_uniqueness(toy, bottom) == 1.0
    assert M.prosecutor_risk(toy, bottom).average == 1.0
    assert M.sample_uniqueness(toy, toy_release(toy, [1, 1])) == 0.0
    nothing = release_of(toy, [-1] * 6, [])
    assert M.prosecutor_risk(toy, nothing).highest == 0.0
    assert M.sample_uniqueness(toy, nothing) == 0.0
    assert M.record_linkage(toy, nothing) == 0.0


@st.composite
def random_problem(draw):
    n = draw(st.integers(2, 40))
    d = draw(st.integers(1, 3))
    columns, hierarchies, levels = {}, {}, []
    for j in range(d):
        n_values = draw(st.integers(1, 6))
        fanout = draw(st.integers(1, 3))
        height = draw(st.integers(1, 3))
        rows = []
        for v in range(n_values):
            row, node = [f"v{v}"], v
            for lv in range(1, height):
                node //= fanout + 1
                row.append(f"g{lv}_{node}")
            row.append("*")
            rows.append(row)
        name = f"q{j}"
        hierarchies[name] = Hierarchy(rows, name=name)
        columns[name] = [f"v{x}" for x in draw(st.lists(st.integers(0, n_values - 1), min_size=n, max_size=n))]
        levels.append(draw(st.integers(0, height)))
    k = draw(st.integers(1, min(4, n)))
    table = Table(pd.DataFrame(columns), Schema.of(quasi=list(columns), hierarchies=hierarchies))
    return table, levels, k


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_problem())
def test_invariants_on_random_tables(problem) -> None:
    table, levels, k = problem
    rel = fixed(table, [KAnonymity(k)], levels=levels, max_suppression=0.0)
    g = M.gcp(table, rel)
    assert 0.0 <= g <= 1.0 + 1e-12
    rl = M.record_linkage(table, rel)
    assert rl == pytest.approx(100.0 * rel.n_classes / table.n)  # full domain: C(r) is r's class
    if rel.satisfied:  # k-anonymous without suppression
        assert rel.n_suppressed == 0
        assert rl <= 100.0 / k + 1e-9
    assert 0.0 <= M.modification_rate(table, rel) <= 1.0
    assert 0.0 <= M.whd(table, rel).average <= 1.0 + 1e-12
    for agg in ("sum", "max", "arithmetic", "geometric"):
        assert M.loss(table, rel, aggregate=agg) >= 0.0
    assert M.discernibility_star(table, rel) <= M.discernibility(table, rel)
    assert M.entropy(table, rel) <= M.entropy(table, rel, monotonic=False) + 1e-9
    # the same classes without the transformation (the general code path) score the same
    # (suppressed records then count as fully generalized, so compare only without suppression)
    if rel.n_suppressed == 0:
        general = Release(table, rel.record_class, rel.class_levels, rel.class_nodes, algorithm="test")
        assert M.record_linkage(table, general) == pytest.approx(rl)
        assert M.loss(table, general) == pytest.approx(M.loss(table, rel))
        assert M.entropy(table, general) == pytest.approx(M.entropy(table, rel))
        assert M.precision(table, general) == pytest.approx(M.precision(table, rel))
        assert M.height(table, general) == pytest.approx(M.height(table, rel))
        assert M.prec_loss(table, general) == pytest.approx(M.prec_loss(table, rel))
        assert M.discernibility_star(table, general) == M.discernibility_star(table, rel)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_problem(), st.integers(0, 2**32 - 1))
def test_linkage_candidates_local_recoding(problem, seed) -> None:
    # classes of the bottom node, each generalized to its own random levels (boxes overlap)
    table, _, _ = problem
    bottom = fixed(table, [KAnonymity(1)], levels=[0] * len(table.qi))
    rng = np.random.default_rng(seed)
    c = bottom.n_classes
    levels = np.stack([rng.integers(0, h.height + 1, size=c) for h in table.hierarchies], axis=1)
    first = np.full(c, -1)
    first[bottom.record_class[::-1]] = np.arange(table.n)[::-1]
    nodes = np.stack([h.maps[levels[:, j], table.codes[first, j]] for j, h in enumerate(table.hierarchies)], axis=1)
    record_class = np.where(rng.random(table.n) < 0.2, -1, bottom.record_class)
    rel = Release(table, record_class, levels, nodes, algorithm="test")
    sizes = rel.class_sizes()
    tuples = table.distinct.tuples
    expected = [
        sum(
            int(sizes[k])
            for k in range(c)
            if all(h.maps[levels[k, j], tuples[t, j]] == nodes[k, j] for j, h in enumerate(table.hierarchies))
        )
        for t in range(len(tuples))
    ]
    assert list(M.linkage_candidates(table, rel)) == expected
    kept = np.bincount(table.distinct.inverse[record_class >= 0], minlength=len(tuples))
    want = 100 * sum(kept[t] / expected[t] for t in range(len(tuples)) if kept[t]) / table.n
    assert M.record_linkage(table, rel) == pytest.approx(want)


def test_gcp_zero_and_one_on_random_tables() -> None:
    rng = np.random.default_rng(3)
    for _ in range(5):
        ages = rng.integers(0, 5, size=20)
        h = Hierarchy([[str(a), f"g{a // 2}", "*"] for a in range(5)], name="a")
        table = Table(pd.DataFrame({"a": [str(a) for a in ages]}), Schema.of(quasi=["a"], hierarchies={"a": h}))
        assert M.gcp(table, fixed(table, [KAnonymity(1)], levels=[0])) == 0.0
        assert M.gcp(table, fixed(table, [KAnonymity(1)], levels=[2])) == 1.0


# ---------------------------------------------------------------------------------------- registry


def test_compute_metrics(toy: Table) -> None:
    rel = toy_release(toy, [1, 1])
    values = M.compute_metrics(toy, rel)
    assert list(values) == list(M.METRICS)
    assert all(isinstance(v, float) for v in values.values())
    assert values["prec_loss"] == pytest.approx(0.75)
    assert values["dm*"] == 18.0
    assert values["record_linkage"] == pytest.approx(100 * 2 / 6)
    for name, f in M.METRICS.items():
        assert f(toy, rel) == pytest.approx(values[name]), name
    assert M.compute_metrics(toy, rel, ["loss"], aggregate="rank") == {"loss": (1.0, 0.4)}
    assert M.compute_metrics(toy, rel, ["loss"], gs=0.0)["loss"] == M.loss(toy, rel, gs=0.0)
    with pytest.raises(InputError, match=r"^unknown metric 'nope'; known: gcp, .* \(key 'names'\)$"):
        M.compute_metrics(toy, rel, ["nope"])
    with pytest.raises(InputError, match=r"^unknown aggregate 'median'; .* \(key 'aggregate'\)$"):
        M.compute_metrics(toy, rel, aggregate="median")
    expected = {
        "gcp", "gcp_released", "loss", "entropy", "entropy_nm", "dm", "dm*", "aecs", "precision", "prec_loss",
        "height", "whd", "modification_rate", "min_class_size", "avg_class_size", "suppression_rate",
        "prosecutor_highest", "prosecutor_average", "records_at_risk", "sample_uniqueness", "record_linkage",
    }  # fmt: skip
    assert set(M.METRICS) == expected


def test_bad_arguments_raise_input_errors(toy: Table) -> None:
    """Every bad argument of a measure is an InputError (a ValueError) naming the parameter."""
    rel = toy_release(toy, [1, 1])
    cases = [
        (lambda: M.gs_factors(-0.1), "gs"),
        (lambda: M.loss(toy, rel, weights={"zip": 1.0}), "weights"),
        (lambda: M.loss(toy, rel, weights=[1.0]), "weights"),
        (lambda: M.precision(toy, rel, weights=[1.0, -1.0]), "weights"),
        (lambda: M.aggregate_values([1.0], [1.0], "median"), "aggregate"),
        (lambda: M.entropy(toy, rel, gs=2.0), "gs"),
        (lambda: M.aecs(toy, rel, gs=-1.0), "gs"),
        (lambda: M.cavg(toy, rel, 0), "k"),
        (lambda: M.whd_step_weights(3, "depth"), "weights"),  # type: ignore[arg-type]
        (lambda: M.whd_step_weights(3, "height", beta=0.5), "beta"),
        (lambda: M.whd(toy, rel, weights="height", beta=0.0), "beta"),
        (lambda: M.SearchMetric("ncp"), "name"),
        (lambda: M.SearchMetric("loss", aggregate="median"), "aggregate"),
        (lambda: M.SearchMetric("loss", gs=1.5), "gs"),
        (lambda: M.compute_metrics(toy, rel, gs=1.5), "gs"),
    ]
    for call, key in cases:
        with pytest.raises(InputError) as err:
            call()
        assert isinstance(err.value, ValueError)
        assert err.value.key == key, str(err.value)
        assert "\n" not in str(err.value) and str(err.value).endswith(f"(key {key!r})")


# ---------------------------------------------------------------------------------------- per-class LCA


@st.composite
def lca_problem(draw):
    """A random table of 1–3 QIs (hierarchies of height 1–3, some with two top values) and a partition
    of its records into classes: one class holds a single record, some records are in no class."""
    n = draw(st.integers(1, 40))
    columns, hierarchies = {}, {}
    for j in range(draw(st.integers(1, 3))):
        n_values = draw(st.integers(1, 8))
        fanout = draw(st.integers(1, 3))
        height = draw(st.integers(1, 3))
        roots = draw(st.sampled_from([1, 1, 2]))
        order = draw(st.permutations(range(n_values)))  # leaf codes not in depth-first order
        rows = []
        for v in order:
            row, node = [f"v{v}"], v
            for lv in range(1, height):
                node //= fanout + 1
                row.append(f"g{lv}_{node}")
            row.append("*" if roots == 1 else f"top{node % 2}")
            rows.append(row)
        name = f"q{j}"
        hierarchies[name] = Hierarchy(rows, name=f"h{j}")
        columns[name] = [f"v{x}" for x in draw(st.lists(st.integers(0, n_values - 1), min_size=n, max_size=n))]
    table = Table(pd.DataFrame(columns), Schema.of(quasi=list(columns), hierarchies=hierarchies))
    labels = np.array(draw(st.lists(st.integers(-1, max(1, n // 3)), min_size=n, max_size=n)))
    labels[draw(st.integers(0, n - 1))] = n  # a class of one record
    kept = labels >= 0
    record_class = np.full(n, -1, dtype=np.int64)
    record_class[kept] = np.unique(labels[kept], return_inverse=True)[1]
    return table, record_class, int(record_class.max()) + 1


def _naive_lca(table: Table, j: int, record_class: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """The reference: per level, a class is done when its smallest and largest node agree."""
    h = table.hierarchies[j]
    keep = record_class >= 0
    cls, codes = record_class[keep], table.codes[keep, j]
    level = np.full(n_classes, h.height, dtype=np.int64)
    node = np.zeros(n_classes, dtype=np.int64)
    done = np.zeros(n_classes, dtype=bool)
    for lv in range(h.height + 1):
        g = h.maps[lv][codes].astype(np.int64)
        lo = np.full(n_classes, np.iinfo(np.int64).max)
        hi = np.full(n_classes, -1)
        np.minimum.at(lo, cls, g)
        np.maximum.at(hi, cls, g)
        single = (lo == hi) & ~done
        level[single], node[single] = lv, lo[single]
        done |= single
    if not done.all():
        c = int(np.flatnonzero(~done)[0])
        raise InputError("the values of a class have no common ancestor in the hierarchy (give it a single top value)",
                         column=table.qi[j], value=str(h.labels[0][codes[cls == c][0]]))
    return level, node


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lca_problem())
def test_class_lca_is_the_naive_lca(problem) -> None:
    """:func:`class_lca` gives what a level-by-level scan gives (the way local recodings computed it
    before), to the dtype, and raises the same error where a class has no common ancestor."""
    table, record_class, n_classes = problem
    for j, (name, h) in enumerate(zip(table.qi, table.hierarchies, strict=True)):
        try:
            want = _naive_lca(table, j, record_class, n_classes)
        except InputError as err:
            with pytest.raises(InputError) as got:
                class_lca(h, table.codes[:, j], record_class, n_classes, column=name)
            assert str(got.value) == str(err)
            level, _ = class_lca(h, table.codes[:, j], record_class, n_classes, strict=False)
            assert (level <= h.height).all()
            continue
        got = class_lca(h, table.codes[:, j], record_class, n_classes, column=name)
        for w, g in zip(want, got, strict=True):
            assert g.dtype == w.dtype == np.int64
            assert g.tolist() == w.tolist()
        # the LCA covers every record of its class, and no lower level does
        cls = record_class[record_class >= 0]
        codes = table.codes[record_class >= 0, j]
        assert (h.maps[got[0][cls], codes] == got[1][cls]).all()
        below = np.maximum(got[0] - 1, 0)[cls]
        for c in np.flatnonzero(got[0] > 0):
            assert len(set(h.maps[below[cls == c][0], codes[cls == c]].tolist())) > 1


def test_class_lca_edge_cases() -> None:
    h = Hierarchy([["a", "x", "X"], ["b", "x", "X"], ["c", "y", "Y"], ["d", "z", "Y"]], name="h")
    table = Table(pd.DataFrame({"q": list("abcdabcd")}), Schema.of(quasi=["q"], hierarchies={"q": h}))
    codes = table.codes[:, 0]
    # classes {a, b}, {c, d} and {c}; record 4 is in none; class 3 is empty
    level, node = class_lca(h, codes, np.array([0, 0, 1, 1, -1, 0, 2, 1]), 4)
    assert level.tolist() == [1, 2, 0, 0]
    assert [h.labels[lv][nd] for lv, nd in zip(level, node, strict=True)] == ["x", "Y", "c", "a"]
    # class 0 = {b, c} spans two top values: the error names the column and its first record's value
    bad = np.array([1, 0, 0, 2, 1, -1, 2, 2])
    with pytest.raises(InputError, match=r"no common ancestor .* \(column 'q', value 'b'\)$") as err:
        class_lca(h, codes, bad, 3, column="q")
    with pytest.raises(InputError) as old:
        _naive_lca(table, 0, bad, 3)
    assert str(err.value) == str(old.value)
    with pytest.raises(InputError, match=r"\(column 'h', value 'b'\)$"):  # default: the hierarchy's name
        class_lca(h, codes, bad, 3)
    level, node = class_lca(h, codes, bad, 3, strict=False)
    assert level.tolist() == [2, 0, 2] and node.tolist() == [0, 0, 1]
    empty = class_lca(h, codes, np.full(8, -1), 0)
    assert empty[0].shape == empty[1].shape == (0,)


# ---------------------------------------------------------------------------------------- ARX goldens (Adult)


@pytest.fixture(scope="module")
def adult8(adult_frame: pd.DataFrame, adult_dir) -> Table:
    """8 QIs: occupation is the tests' sensitive attribute, ignored by k-anonymity-only configs."""
    qi = [c for c in adult_frame.columns if c != "occupation"]
    hs = {q: read_hierarchy(adult_dir / f"adult_hierarchy_{q}.csv", name=q) for q in qi}
    return Table(adult_frame.drop(columns=["occupation"]), Schema.of(quasi=qi, hierarchies=hs))


def same_double(actual: float, expected: float) -> bool:
    """ARX prints the double; the shortest repr round-trips, so equal doubles are the goal. One ulp of
    slack covers a platform ``log`` that differs in the last bit."""
    return actual == expected or math.isclose(actual, expected, rel_tol=4e-16, abs_tol=0.0)


# TestAnonymizationKAnonymity (adult, 9 QIs): optimum score of non-uniform entropy (monotonic)
@pytest.mark.parametrize(
    ("k", "s", "levels", "expected"),
    [
        (5, 0.04, [1, 0, 1, 1, 3, 2, 2, 0, 1], 255559.85455731067),
        (100, 0.04, [1, 1, 1, 1, 3, 2, 2, 1, 1], 379417.3460570988),
        (5, 0.0, [1, 2, 1, 1, 3, 2, 2, 1, 1], 407289.5388925293),
        (100, 0.0, [0, 4, 1, 1, 3, 2, 2, 1, 1], 453196.8932458743),
    ],
)
def test_arx_golden_entropy_kanonymity(adult9: Table, k, s, levels, expected) -> None:
    rel = fixed(adult9, [KAnonymity(k)], levels=levels, max_suppression=s)
    assert rel.satisfied
    assert same_double(M.entropy(adult9, rel), expected)


# TestAnonymizationHeuristic (2018, adult, 9 QIs): score at the printed transformation
@pytest.mark.parametrize(
    ("k", "s", "metric", "levels", "expected"),
    [
        (5, 1.0, "loss", [0, 3, 0, 0, 2, 1, 1, 1, 0], 0.22041192847984292),
        (100, 0.04, "entropy_nm", [1, 1, 1, 1, 2, 2, 2, 2, 1], 400196.319223464),
        (5, 1.0, "loss_gs0.1", [0, 3, 0, 0, 0, 0, 0, 0, 0], 0.09257312971977383),
        (100, 1.0, "entropy_nm", [0, 1, 1, 1, 2, 2, 2, 2, 0], 377248.23689620313),
        (5, 0.04, "loss", [0, 3, 0, 1, 1, 1, 1, 2, 0], 0.26611081915757495),
    ],
)
def test_arx_golden_heuristic(adult9: Table, k, s, metric, levels, expected) -> None:
    rel = fixed(adult9, [KAnonymity(k)], levels=levels, max_suppression=s)
    assert rel.satisfied
    if metric == "loss":
        value = M.loss(adult9, rel)
    elif metric == "loss_gs0.1":
        value = M.loss(adult9, rel, gs=0.1)
    else:
        value = M.entropy(adult9, rel, monotonic=False)
    assert same_double(value, expected)


def test_arx_golden_loss_per_attribute(adult9: Table) -> None:
    rel = fixed(adult9, [KAnonymity(5)], levels=[0, 3, 0, 0, 2, 1, 1, 1, 0], max_suppression=1.0)
    assert list(M.loss_per_attribute(adult9, rel).values()) == [
        0.0846429281, 0.2603175177, 0.0846429281, 0.0846429281, 0.4219304643,
        0.3360130296, 0.3461735201, 0.3462966646, 0.0846429281,
    ]  # fmt: skip


# TestUtilityMetricsLoss (adult, 8 QIs, k = 5, suppression limit 100 %, aggregate then RANK): the per-QI
# Loss vector sorted in descending order, also with gs ≠ 0.5 (here sFactor < 1 charges suppressed records less)
@pytest.mark.parametrize(
    ("gs", "levels", "expected"),
    [
        (0.5, [0, 3, 0, 0, 1, 0, 0, 0], [0.297248193, 0.29678055] + [0.1297659306] * 6),
        (0.33, [0, 1, 0, 0, 0, 0, 0, 0], [0.2300344804] + [0.1976148796] * 7),
    ],
)
def test_arx_golden_loss_gs(adult8: Table, gs, levels, expected) -> None:
    rel = fixed(adult8, [KAnonymity(5)], levels=levels, max_suppression=1.0)
    assert list(M.loss(adult8, rel, gs=gs, aggregate="rank")) == expected


def test_arx_golden_risk(adult9: Table) -> None:
    # TestRiskMetrics: before anonymization, 19,502 classes and 15,512 sample uniques among 30,162 records
    bottom = fixed(adult9, [KAnonymity(1)], levels=[0] * 9)
    assert same_double(M.prosecutor_risk(adult9, bottom).average, 0.6465751607983555)
    assert M.prosecutor_risk(adult9, bottom).highest == 1.0
    assert same_double(M.sample_uniqueness(adult9, bottom), 0.5142895033485844)


# TestUtilityMetrics (2015; adult, 8 QIs, k = 5): the score at single transformations. A node that is not
# anonymous is scored with every class smaller than k suppressed (ARX's default suppressionAlwaysEnabled).
# "v xN" in a Loss vector stands for N copies of v. Lines with native-country at level 1 are left out:
# that hierarchy has changed since (research note §0.3).
ARX_PER_TRANSFORMATION = """
AECS ; 0.0 ; [0,0,0,0,0,0,0,0] ; 29.113899613899616
AECS ; 0.0 ; [1,2,1,2,0,2,0,1] ; 93.96261682242991
AECS ; 0.0 ; [1,1,1,1,3,2,2,1] ; 1005.4
AECS ; 0.0 ; [1,2,1,1,3,2,2,1] ; 1885.125
AECS ; 0.0 ; [1,4,1,1,3,2,2,0] ; 7540.5
AECS ; 0.0 ; [1,4,1,2,3,2,2,1] ; 30162.0
AECS ; 0.05 ; [0,1,1,0,0,0,0,0] ; 30.683621566632755
AECS ; 0.05 ; [0,1,1,2,1,0,0,1] ; 63.76744186046512
AECS ; 0.05 ; [0,4,1,0,1,0,0,1] ; 97.6116504854369
AECS ; 0.05 ; [1,4,1,0,2,0,1,0] ; 160.43617021276594
AECS ; 0.05 ; [1,3,0,2,2,0,2,0] ; 150.81
AECS ; 0.05 ; [0,3,1,0,3,2,1,1] ; 363.3975903614458
AECS ; 0.05 ; [1,1,0,2,3,2,2,1] ; 520.0344827586207
EntNM ; 0.0 ; [0,0,0,0,0,0,0,0] ; 268778.22471939825
EntNM ; 0.0 ; [0,2,1,2,2,0,0,0] ; 253206.5135958653
EntNM ; 0.0 ; [0,2,0,2,3,2,2,1] ; 331905.60100801825
EntNM ; 0.0 ; [1,4,1,1,2,2,2,0] ; 368439.26393309573
EntNM ; 0.0 ; [0,4,1,2,3,2,0,1] ; 385895.4270913376
EntNM ; 0.0 ; [1,4,1,1,2,2,2,1] ; 392857.38858687796
EntNM ; 0.0 ; [1,3,1,1,3,2,2,1] ; 379458.17719685636
EntNM ; 0.0 ; [1,2,1,2,3,2,2,1] ; 382559.9421471483
EntNM ; 0.0 ; [1,4,1,2,3,2,2,1] ; 455884.9365769584
EntNM ; 0.0 ; [0,1,0,1,0,2,1,1] ; 199996.96695661292
EntNM ; 0.0 ; [0,2,1,0,2,2,2,1] ; 268749.92540448345
EntNM ; 0.0 ; [0,4,1,0,3,2,0,1] ; 331120.2523649918
EntNM ; 0.0 ; [1,1,1,1,2,2,2,1] ; 291680.2013216374
EntNM ; 0.0 ; [1,4,1,2,3,2,0,0] ; 388894.9425140205
EntNM ; 0.0 ; [0,4,1,2,1,2,2,1] ; 376288.0867932696
EntNM ; 0.0 ; [1,4,1,0,2,2,2,1] ; 368037.49418958207
EntNM ; 0.0 ; [0,4,1,0,3,2,2,1] ; 373580.1797833488
EntNM ; 0.05 ; [0,0,0,0,0,0,0,0] ; 268778.22471939825
EntNM ; 0.05 ; [0,3,1,0,0,0,0,1] ; 225818.85565423348
EntNM ; 0.05 ; [1,0,0,1,2,2,0,1] ; 198394.0850062312
EntNM ; 0.05 ; [0,1,0,0,1,2,2,1] ; 213938.9707150555
EntNM ; 0.05 ; [1,3,1,2,1,2,0,1] ; 315247.228170622
EntNM ; 0.05 ; [1,3,0,1,2,0,0,1] ; 275372.98294157453
EntNM ; 0.05 ; [0,4,0,2,3,0,0,0] ; 321182.9796059437
EntNM ; 0.05 ; [1,1,1,0,3,2,1,1] ; 282532.98778791947
DMstar ; 0.0 ; [0,0,0,0,0,0,0,0] ; 485542.0
DMstar ; 0.0 ; [1,1,0,1,0,2,0,0] ; 4426432.0
DMstar ; 0.0 ; [1,0,1,1,3,2,2,0] ; 8461812.0
DMstar ; 0.0 ; [1,4,1,1,2,2,0,0] ; 9.6950278E7
DMstar ; 0.0 ; [0,4,1,1,1,2,2,1] ; 1.01990664E8
DMstar ; 0.0 ; [1,4,1,2,2,2,1,0] ; 2.1530661E8
DMstar ; 0.0 ; [1,4,1,1,3,2,0,1] ; 2.60892746E8
DMstar ; 0.0 ; [1,4,1,2,3,2,2,0] ; 5.6957378E8
DMstar ; 0.0 ; [1,3,1,2,3,2,2,1] ; 3.6770985E8
DMstar ; 0.0 ; [1,4,1,2,3,2,2,1] ; 9.09746244E8
DMstar ; 0.05 ; [1,1,1,2,2,0,0,0] ; 1.7040684E7
DMstar ; 0.05 ; [1,4,0,1,0,0,0,1] ; 3.5514078E7
DMstar ; 0.05 ; [0,1,1,0,2,2,0,1] ; 8651570.0
DMstar ; 0.05 ; [1,4,0,0,0,0,1,1] ; 3.3004132E7
DMstar ; 0.05 ; [0,3,1,1,0,0,2,1] ; 2.1394404E7
DMstar ; 0.05 ; [0,3,0,2,2,0,2,0] ; 4.4390778E7
DMstar ; 0.05 ; [0,4,1,1,2,0,1,1] ; 9.1157482E7
DMstar ; 0.05 ; [1,3,1,0,3,0,2,1] ; 1.18940424E8
DM ; 0.0 ; [0,0,0,0,0,0,0,0] ; 4.63536157E8
DM ; 0.0 ; [0,0,1,0,3,2,0,0] ; 1.10335369E8
DM ; 0.0 ; [0,4,1,2,3,2,1,1] ; 3.8959458E8
DM ; 0.0 ; [0,4,0,2,3,2,2,1] ; 3.92187826E8
DM ; 0.0 ; [1,4,0,2,3,2,2,1] ; 6.8139216E8
DM ; 0.0 ; [1,4,1,2,3,2,2,1] ; 9.09746244E8
DM ; 0.05 ; [0,0,1,0,3,0,0,0] ; 1.7590937E8
DM ; 0.05 ; [1,0,0,2,2,2,1,0] ; 4.7522592E7
DM ; 0.05 ; [0,3,1,1,1,2,0,0] ; 3.4129719E7
PrecNM ; 0.0 ; [0,0,0,0,0,0,0,0] ; 0.5090179696306611
PrecNM ; 0.0 ; [0,0,0,2,1,2,0,0] ; 0.45063186570298164
PrecNM ; 0.0 ; [0,0,1,2,3,2,2,1] ; 0.75018234865062
PrecNM ; 0.0 ; [1,4,1,2,2,2,1,0] ; 0.7708713226355458
PrecNM ; 0.0 ; [1,4,1,0,3,2,2,0] ; 0.75
PrecNM ; 0.0 ; [1,1,1,2,3,2,2,1] ; 0.90625
PrecNM ; 0.0 ; [1,4,1,2,3,2,0,1] ; 0.875
PrecNM ; 0.0 ; [1,4,1,2,3,2,2,1] ; 1.0
PrecNM ; 0.05 ; [0,1,0,0,0,0,1,0] ; 0.30136844373715277
PrecNM ; 0.05 ; [1,0,0,1,2,0,0,0] ; 0.4293488771743695
PrecNM ; 0.05 ; [0,1,0,0,3,0,0,0] ; 0.27206211458126117
PrecNM ; 0.05 ; [0,4,0,2,1,0,0,0] ; 0.3254370841898194
PrecNM ; 0.05 ; [1,4,0,2,1,0,1,0] ; 0.4917894757200008
PrecMono ; 0.0 ; [0,0,0,0,0,0,0,0] ; 0.0
PrecMono ; 0.0 ; [1,3,1,0,1,2,2,0] ; 0.6354166666666667
PrecMono ; 0.0 ; [0,4,1,0,2,2,2,1] ; 0.7083333333333333
PrecMono ; 0.0 ; [0,4,1,2,3,2,1,0] ; 0.6875
PrecMono ; 0.0 ; [1,4,1,2,2,2,0,1] ; 0.8333333333333334
PrecMono ; 0.0 ; [1,4,0,2,2,2,2,1] ; 0.8333333333333333
PrecMono ; 0.0 ; [1,4,1,2,3,2,2,1] ; 1.0
PrecMono ; 0.05 ; [1,3,0,0,2,0,2,0] ; 0.4270833333333333
PrecMono ; 0.05 ; [0,2,1,1,1,2,0,1] ; 0.5416666666666667
Height ; 0.0 ; [0,0,0,0,0,0,0,0] ; 0.0
Height ; 0.0 ; [0,3,0,1,3,2,1,0] ; 10.0
Height ; 0.0 ; [0,4,1,1,3,0,2,0] ; 11.0
Height ; 0.0 ; [1,4,1,2,3,2,2,1] ; 16.0
LossRank ; 0.0 ; [0,0,0,0,0,0,0,0] ; [0.5090179696 x8]
LossRank ; 0.0 ; [0,0,0,2,0,0,0,0] ; [1.0, 0.3843909555 x7]
LossRank ; 0.0 ; [0,4,1,2,3,2,1,0] ; [1.0, 1.0, 1.0, 1.0, 1.0, 0.2856479771, 0.0, 0.0]
LossRank ; 0.0 ; [0,4,0,2,3,2,2,1] ; [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0]
LossRank ; 0.0 ; [1,4,1,2,3,2,2,1] ; [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
LossRank ; 0.0 ; [1,4,1,0,1,2,2,1] ; [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.1899012001, 6.63086E-5]
LossRank ; 0.0 ; [0,4,1,2,1,2,2,1] ; [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.1898437327, 0.0]
LossRank ; 0.0 ; [0,3,0,2,3,2,2,1] ; [1.0, 1.0, 1.0, 1.0, 1.0, 0.1924014362, 5.967774E-4, 5.967774E-4]
LossRank ; 0.05 ; [1,0,1,0,1,2,2,0] ; [1.0 x4, 0.2449218663, 0.0648166567 x3]
LossRank ; 0.05 ; [0,0,0,2,2,2,1,1] ; [1.0 x3, 0.4042592224, 0.3257599439, 0.0560639214 x3]"""


def _per_transformation_cases() -> list[tuple[str, float, list[int], str]]:
    cases = []
    for line in ARX_PER_TRANSFORMATION.strip().splitlines():
        metric, s, levels, expected = (part.strip() for part in line.split(" ; "))
        cases.append((metric, float(s), [int(x) for x in re.findall(r"\d+", levels)], expected))
    return cases


@pytest.mark.parametrize(("metric", "s", "levels", "expected"), _per_transformation_cases())
def test_arx_golden_per_transformation(adult8: Table, metric: str, s: float, levels: list[int], expected: str) -> None:
    rel = fixed(adult8, [KAnonymity(5)], levels=levels, max_suppression=s)
    if metric == "LossRank":
        want = []  # "v xN" repeats v N times
        for item in expected.strip("[]").split(","):
            value, _, times = item.strip().partition(" x")
            want += [float(value)] * int(times or 1)
        assert list(M.loss(adult8, rel, aggregate="rank")) == want  # floored to 10 decimals: exact
        return
    value = {
        "AECS": lambda: M.aecs(adult8, rel),
        "EntNM": lambda: M.entropy(adult8, rel, monotonic=False),
        "DMstar": lambda: M.discernibility_star(adult8, rel),
        "DM": lambda: M.discernibility(adult8, rel),
        "PrecNM": lambda: M.precision(adult8, rel, monotonic=False),
        "PrecMono": lambda: M.precision(adult8, rel, monotonic=True),
        "Height": lambda: M.height(adult8, rel),
    }[metric]()
    assert same_double(value, float(expected)), (value, expected)
