"""Attack simulators (spec §2.8): background-knowledge and homogeneity attacks on releases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonkit import Hierarchy, Schema, Table
from anonkit.algorithms.lattice.fixed import fixed
from anonkit.algorithms.local import partition_release
from anonkit.analytics import (
    AttackReport,
    background_knowledge_attack,
    background_knowledge_exclusion_attack,
    homogeneity_attack,
)
from anonkit.knowledge import kernel_priors
from anonkit.models import KAnonymity


def _table(qi: list[str], sa: list[str]) -> Table:
    frame = pd.DataFrame({"q": qi, "s": sa})
    return Table(frame, Schema.of(quasi=["q"], sensitive=["s"]))


def _release(table: Table, record_class: list[int]):
    return partition_release(table, np.asarray(record_class), [KAnonymity(1)], algorithm="t")


def _labels(table: Table) -> list[str]:
    return [str(v) for v in table.domains["s"].labels]


def test_identical_priors_give_class_histogram() -> None:
    table = _table(list("aabbbc"), ["x", "y", "x", "x", "x", "y"])
    rel = _release(table, [0, 0, 1, 1, 1, 2])
    s = len(_labels(table))
    prior = np.full((6, s), 1.0 / s)
    for method in ("omega", "exact"):
        rep = background_knowledge_attack(rel, "s", prior, posterior=method)
        assert isinstance(rep, AttackReport)
        assert rep.posterior.shape == (6, s)
        ix = _labels(table).index("x")
        iy = _labels(table).index("y")
        # class 0 {x, y}: histogram (½, ½); class 1 {x, x, x}: homogeneous; class 2 {y}
        np.testing.assert_allclose(rep.posterior[:2, ix], 0.5)
        np.testing.assert_allclose(rep.posterior[2:5, ix], 1.0)
        np.testing.assert_allclose(rep.posterior[5, iy], 1.0)
        np.testing.assert_array_equal(rep.breached, [False, False, True, True, True, True])
        assert rep.breached_share == pytest.approx(4 / 6)
        assert np.all((rep.jsd >= 0) & (rep.jsd <= 1))
        # a homogeneous class is breached at any threshold ≤ 1
        assert background_knowledge_attack(rel, "s", prior, threshold=1.0).breached[2:].all()


def test_two_record_example_omega_and_exact() -> None:
    # §1.7: t1 prior (.9, .1), t2 prior (.5, .5), SA multiset {L, H}
    table = _table(["a", "b"], ["L", "H"])
    rel = _release(table, [0, 0])
    order = [_labels(table).index(v) for v in ("L", "H")]
    prior = np.zeros((2, 2))
    prior[:, order] = [[0.9, 0.1], [0.5, 0.5]]
    omega = background_knowledge_attack(rel, "s", prior).posterior[:, order]
    np.testing.assert_allclose(omega, [[0.794, 0.206], [0.3, 0.7]], atol=1e-3)
    rep = background_knowledge_attack(rel, "s", prior, posterior="exact")
    np.testing.assert_allclose(rep.posterior[:, order], [[0.9, 0.1], [0.1, 0.9]], atol=1e-12)
    assert rep.approximated == 0 and rep.method == "exact"
    # t1 holds L with posterior 0.9, t2 holds H with posterior 0.9: both breached at 0.8
    assert rep.breached_share == 1.0
    # under Ω neither reaches 0.8: t1 gets 0.794 for L, t2 gets 0.7 for H
    assert background_knowledge_attack(rel, "s", prior).breached_share == 0.0


def test_exact_falls_back_to_omega_for_large_classes() -> None:
    rng = np.random.default_rng(1)
    n = 12
    table = _table([f"q{i % 4}" for i in range(n)], list(rng.choice(["u", "v", "w"], n)))
    rel = _release(table, [0] * 9 + [1] * 3)
    prior = rng.dirichlet(np.ones(len(_labels(table))), size=n)
    ex = background_knowledge_attack(rel, "s", prior, posterior="exact")
    om = background_knowledge_attack(rel, "s", prior, posterior="omega")
    assert ex.approximated == 1
    np.testing.assert_allclose(ex.posterior[:9], om.posterior[:9])
    np.testing.assert_allclose(ex.posterior.sum(axis=1), 1.0)


def test_homogeneity_attack_hand_made_release() -> None:
    table = _table(list("aabbcc"), ["x", "x", "x", "y", "y", "y"])
    assert homogeneity_attack(_release(table, [0, 0, 1, 1, 2, 2]), "s") == pytest.approx(4 / 6)
    assert homogeneity_attack(_release(table, [0, 0, 0, 0, 0, 0]), "s") == 0.0
    # suppressed records are excluded: only the classes {x, x} and {y, y} remain
    assert homogeneity_attack(_release(table, [0, 0, -1, -1, 1, 1]), "s") == 1.0
    assert homogeneity_attack(_release(table, [-1] * 6), "s") == 0.0


def test_suppressed_records_are_excluded() -> None:
    table = _table(list("aabbcc"), ["x", "y", "x", "y", "x", "x"])
    rel = _release(table, [0, 0, -1, -1, 1, 1])
    s = len(_labels(table))
    rep = background_knowledge_attack(rel, "s", np.full((6, s), 1.0 / s))
    np.testing.assert_array_equal(rep.records, [0, 1, 4, 5])
    assert rep.posterior.shape == (4, s) and rep.jsd.shape == (4,)
    assert rep.breached_share == pytest.approx(0.5)  # only the homogeneous class {x, x}
    empty = background_knowledge_attack(_release(table, [-1] * 6), "s", np.full((6, s), 1.0 / s))
    assert empty.breached_share == 0.0 and empty.mean_jsd == 0.0 and len(empty.records) == 0


def test_priors_object_and_shape_check() -> None:
    table = _table(list("aabbccdd"), list("xyxyxxyy"))
    rel = _release(table, [0, 0, 1, 1, 2, 2, 3, 3])
    priors = kernel_priors(table, "s")
    rep = background_knowledge_attack(rel, "s", priors)
    same = background_knowledge_attack(rel, "s", priors.per_record())
    np.testing.assert_allclose(rep.posterior, same.posterior)
    assert 0.0 <= rep.mean_jsd <= rep.max_jsd <= 1.0
    with pytest.raises(ValueError):
        background_knowledge_attack(rel, "s", np.ones((3, 2)) / 2)
    with pytest.raises(ValueError):
        background_knowledge_attack(rel, "s", priors, posterior="bogus")  # type: ignore[arg-type]


def test_coarser_generalization_breaches_less() -> None:
    rng = np.random.default_rng(0)
    n = 200
    ages = rng.integers(20, 60, n)
    sa = np.where(ages < 40, rng.choice(["lo", "mid"], n, p=[0.8, 0.2]), rng.choice(["mid", "hi"], n, p=[0.3, 0.7]))
    frame = pd.DataFrame({"age": ages, "s": sa})
    h = Hierarchy([[str(a), f"{a // 10 * 10}s", "*"] for a in range(20, 60)], name="age")
    schema = Schema.of(quasi=["age"], sensitive=["s"], hierarchies={"age": h}, types={"age": "numeric"})
    table = Table(frame, schema)
    priors = kernel_priors(table, "s")  # smooth over neighbouring ages (bandwidth 0.3 of the range)
    identity = fixed(table, [KAnonymity(1)], levels=[0])
    everything = fixed(table, [KAnonymity(1)], levels=[2])
    assert everything.n_classes == 1
    fine = background_knowledge_attack(identity, "s", priors)
    coarse = background_knowledge_attack(everything, "s", priors)
    assert coarse.breached_share < fine.breached_share
    assert coarse.mean_jsd < fine.mean_jsd
    # an adversary without background knowledge learns nothing beyond the global histogram
    uniform = np.full((n, len(table.domains["s"].labels)), 1.0 / len(table.domains["s"].labels))
    assert background_knowledge_attack(everything, "s", uniform).breached_share == 0.0
    assert background_knowledge_attack(identity, "s", uniform).breached_share > 0.0
    assert homogeneity_attack(everything, "s") <= homogeneity_attack(identity, "s")
    for rep in (fine, coarse):
        assert np.all((rep.jsd >= 0) & (rep.jsd <= 1))
        np.testing.assert_allclose(rep.posterior.sum(axis=1), 1.0)


def test_exclusion_attack() -> None:
    table = _table(list("aaabbb"), ["x", "y", "z", "x", "x", "y"])
    rel = _release(table, [0, 0, 0, 1, 1, -1])
    labels = _labels(table)
    ex = np.zeros((6, len(labels)), dtype=bool)
    assert background_knowledge_exclusion_attack(rel, "s", ex) == pytest.approx(2 / 5)  # class {x, x}
    ex[0, [labels.index("y"), labels.index("z")]] = True  # record 0 narrowed down to x
    ex[1, labels.index("x")] = True  # record 1 still has y and z
    assert background_knowledge_exclusion_attack(rel, "s", ex) == pytest.approx(3 / 5)
    with pytest.raises(ValueError):
        background_knowledge_exclusion_attack(rel, "s", ex[:3])
