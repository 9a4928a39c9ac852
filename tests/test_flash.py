"""Flash on Adult: ARX's optimum, level bounds, lattice classification, fallback, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from anonkit import Attribute, Schema, Table, load_adult
from anonkit.algorithms.lattice._search import Search
from anonkit.algorithms.lattice._space import INFERRED_ANONYMOUS, INFERRED_NOT_ANONYMOUS, NOT_ANONYMOUS, UNKNOWN
from anonkit.algorithms.lattice.flash import flash
from anonkit.metrics import SearchMetric
from anonkit.models import DistinctLDiversity, KAnonymity, TCloseness
from anonkit.verifier import verify

QI8 = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]


@pytest.fixture(scope="module")
def adult() -> tuple:
    frame, hier = load_adult()
    schema = Schema.of(quasi=QI8, sensitive=["occupation"], hierarchies={**{q: hier[q] for q in QI8},
                                                                         "occupation": hier["occupation"]})
    return frame, hier, Table(frame, schema)


def test_flash_finds_arx_optimum_and_classifies_the_lattice(adult) -> None:
    frame, _, table = adult
    models = [KAnonymity(5), TCloseness("occupation", 0.2, "hierarchical")]
    rel = flash(table, models, max_suppression=0.0, metric=SearchMetric("entropy"))
    # TestAnonymizationTCloseness case 6 (ARX compatibility notes §1.A)
    assert rel.search.score == 398400.0741806447
    assert rel.transformation == dict(zip(QI8, [0, 4, 1, 1, 3, 2, 2, 1], strict=True))
    lat = rel.search.counts
    assert lat["nodes"] == 4320 and lat["checked"] < 100  # predictive tagging did the rest
    # every node is classified except those whose lower bound is worse than the optimum (pruned)
    assert lat["unknown"] == lat["pruned"] and lat["unknown"] + sum(
        lat[k] for k in ("anonymous", "not-anonymous", "inferred-anonymous", "inferred-not-anonymous")) == 4320
    search = Search(table, models, max_suppression=0.0, metric=SearchMetric("entropy"))
    unknown = np.flatnonzero(rel.search.status == UNKNOWN)
    assert all(search.bound(int(i)) > rel.search.score for i in unknown)
    assert verify(rel.to_frame(), table.schema, models, reference=frame).ok


def test_inferred_statuses_are_true(adult) -> None:
    """Every inferred status agrees with a direct check (spot-check 60 random nodes)."""
    _, _, table = adult
    from anonkit.algorithms.transform import evaluate_node

    models = [KAnonymity(10)]
    rel = flash(table, models, max_suppression=0.01)
    status, lattice = rel.search.status, rel.search.lattice
    rng = np.random.default_rng(0)
    inferred = np.flatnonzero(np.isin(status, (INFERRED_ANONYMOUS, INFERRED_NOT_ANONYMOUS)))
    for nid in rng.choice(inferred, size=60, replace=False):
        node = lattice.node(int(nid))
        ev = evaluate_node(table, node, models, 0.01)
        assert ev.anonymous == (status[nid] == INFERRED_ANONYMOUS), node


def test_min_and_max_levels_bound_the_search() -> None:
    frame, hier = load_adult()
    schema = Schema()
    for q in QI8:
        schema.add(Attribute(q, "quasi", hierarchy=hier[q]))
    schema.attributes["age"].min_level = 2
    schema.attributes["education"].max_level = 1
    schema.add(Attribute("occupation", "sensitive"))
    table = Table(frame, schema)
    rel = flash(table, [KAnonymity(5)], max_suppression=0.02)
    assert rel.transformation["age"] >= 2 and rel.transformation["education"] <= 1
    assert rel.search.counts["nodes"] == 4320 // 5 * 3 // 4 * 2  # age 3 of 5 levels, education 2 of 4


def test_no_solution_is_reported_not_published(adult) -> None:
    _, _, table = adult
    rel = flash(table, [KAnonymity(5), DistinctLDiversity("occupation", 15)], max_suppression=0.0)  # 14 values
    assert not rel.satisfied and "no transformation" in rel.message
    assert rel.search.counts["anonymous"] == 0
    assert (np.isin(rel.search.status, (NOT_ANONYMOUS, INFERRED_NOT_ANONYMOUS))).all()


def test_deterministic(adult) -> None:
    _, _, table = adult
    a = flash(table, [KAnonymity(3)], max_suppression=0.01)
    b = flash(table, [KAnonymity(3)], max_suppression=0.01)
    assert a.transformation == b.transformation and a.search.score == b.search.score
    assert a.to_frame(seed=3).equals(b.to_frame(seed=3))
