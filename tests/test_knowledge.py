"""Background-knowledge adversary model: divergences, posteriors and priors (anonkit.knowledge)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonkit import Hierarchy, InputError, Schema, Table
from anonkit.knowledge import (
    Priors,
    classifier_priors,
    exact_posterior,
    group_is_bk_safe,
    incremental_priors,
    jsd,
    kernel_priors,
    kl,
    matrix_priors,
    omega_posterior,
    omega_posterior_groups,
    transition_matrix,
)

# ---------------------------------------------------------------------- divergences


def test_jsd_checked_values():
    assert jsd([1, 0], [0, 1]) == pytest.approx(1.0)
    assert jsd([0.5, 0.5], [1, 0]) == pytest.approx(0.3113, abs=5e-5)
    assert jsd([0.7, 0.3], [0.6, 0.4]) == pytest.approx(0.00795, abs=5e-6)
    assert jsd([0.2, 0.3, 0.5], [0.2, 0.3, 0.5]) == pytest.approx(0.0)


def test_jsd_vectorized_symmetric_bounded():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(5), size=200)
    q = rng.dirichlet(np.ones(5), size=200)
    p[:20, 0] = 0
    p[:20] /= p[:20].sum(axis=1, keepdims=True)
    d = jsd(p, q)
    assert d.shape == (200,)
    np.testing.assert_allclose(d, jsd(q, p))
    assert (d >= 0).all() and (d <= 1).all()
    np.testing.assert_allclose(d, [jsd(a, b) for a, b in zip(p, q, strict=True)])
    np.testing.assert_allclose(jsd(p, q[0]), [jsd(a, q[0]) for a in p])  # broadcasting
    from scipy.spatial.distance import jensenshannon

    np.testing.assert_allclose(d, jensenshannon(p, q, base=2, axis=1) ** 2, atol=1e-12)


def test_kl():
    assert kl([0.5, 0.5], [0.5, 0.5]) == pytest.approx(0.0)
    assert kl([1, 0], [0.5, 0.5]) == pytest.approx(1.0)
    assert kl([0.5, 0.5], [1, 0]) == np.inf


# ---------------------------------------------------------------------- posteriors

PRIORS = np.array([[0.9, 0.1], [0.5, 0.5]])


def test_omega_vs_exact_worked_example():
    omega = omega_posterior(PRIORS, [1, 1])
    np.testing.assert_allclose(omega, [[0.794, 0.206], [0.3, 0.7]], atol=5e-4)
    exact = exact_posterior(PRIORS, [0, 1])
    np.testing.assert_allclose(exact, [[0.9, 0.1], [0.1, 0.9]], atol=5e-4)


def test_identical_priors_give_group_histogram():
    prior = np.array([0.2, 0.5, 0.3])
    counts = np.array([3, 0, 1])
    hist = counts / counts.sum()
    g = np.tile(prior, (4, 1))
    np.testing.assert_allclose(omega_posterior(g, counts), np.tile(hist, (4, 1)))
    np.testing.assert_allclose(exact_posterior(g, [0, 0, 0, 2]), np.tile(hist, (4, 1)))


def test_exact_posterior_limits():
    with pytest.raises(ValueError):
        exact_posterior(np.full((9, 2), 0.5), [0] * 9)
    with pytest.raises(ValueError):
        exact_posterior(PRIORS, [0])
    out = exact_posterior(np.full((8, 3), 1 / 3), [0, 0, 1, 1, 1, 2, 2, 2])
    np.testing.assert_allclose(out, np.tile([2 / 8, 3 / 8, 3 / 8], (8, 1)))


def test_group_is_bk_safe():
    # omega: JSD((.9,.1),(.794,.206)) ≈ 0.01 and JSD((.5,.5),(.3,.7)) ≈ 0.03
    assert group_is_bk_safe(PRIORS, [1, 1], 0.05)
    assert not group_is_bk_safe(PRIORS, [1, 1], 0.02)
    # exact: t2 moves from (.5,.5) to (.1,.9): JSD ≈ 0.147
    assert not group_is_bk_safe(PRIORS, [1, 1], 0.05, posterior="exact")
    assert group_is_bk_safe(PRIORS, [1, 1], 0.2, posterior="exact")
    with pytest.raises(ValueError):
        group_is_bk_safe(PRIORS, [1, 1], 0.2, posterior="bogus")


def test_omega_posterior_groups_matches_per_group():
    rng = np.random.default_rng(1)
    p = rng.dirichlet(np.ones(3), size=30)
    groups = rng.integers(0, 5, size=30)
    codes = rng.integers(0, 3, size=30)
    out = omega_posterior_groups(p, groups, codes)
    for g in range(5):
        members = groups == g
        counts = np.bincount(codes[members], minlength=3)
        np.testing.assert_allclose(out[members], omega_posterior(p[members], counts))


# ---------------------------------------------------------------------- small tables

ZIP_ROWS = [
    ["47677", "4767*", "476**", "*"],
    ["47678", "4767*", "476**", "*"],
    ["47602", "4760*", "476**", "*"],
    ["47905", "4790*", "479**", "*"],
    ["47909", "4790*", "479**", "*"],
]


def small_table() -> Table:
    rng = np.random.default_rng(7)
    n = 60
    frame = pd.DataFrame(
        {
            "age": rng.choice([20, 22, 25, 30, 31, 45, 50, 70], size=n).astype(str),
            "zip": rng.choice([r[0] for r in ZIP_ROWS], size=n),
            "sex": rng.choice(["m", "f"], size=n),
            "disease": rng.choice(["flu", "cancer", "gastritis"], size=n, p=[0.5, 0.2, 0.3]),
        }
    )
    schema = Schema.of(
        quasi=["age", "zip", "sex"],
        sensitive=["disease"],
        hierarchies={"zip": Hierarchy(ZIP_ROWS, name="zip")},
        types={"age": "numeric", "zip": "categorical"},
    )
    return Table(frame, schema)


def brute_force_kernel(frame: pd.DataFrame, bandwidth: float, product: bool) -> np.ndarray:
    """Per-record Nadaraya–Watson with the §0.3 distance, written out naively."""
    labels = sorted(frame["disease"].unique())
    age = frame["age"].astype(float).to_numpy()
    span = age.max() - age.min()
    zip_rows = {r[0]: r for r in ZIP_ROWS}
    out = np.zeros((len(frame), len(labels)))
    for i in range(len(frame)):
        num = np.zeros(len(labels))
        for j in range(len(frame)):
            za, zb = zip_rows[frame["zip"][i]], zip_rows[frame["zip"][j]]
            lca = next(level for level in range(4) if za[level] == zb[level])
            deltas = [abs(age[i] - age[j]) / span, lca / 3, float(frame["sex"][i] != frame["sex"][j])]
            if product:
                u = np.array(deltas) / bandwidth
                w = np.prod(np.where(u < 1, 0.75 * (1 - u**2), 0.0))
            else:
                u2 = sum(x * x for x in deltas) / bandwidth**2
                w = 0.75 * (1 - u2) if u2 < 1 else 0.0
            num[labels.index(frame["disease"][j])] += w
        out[i] = num / num.sum()
    return out


@pytest.mark.parametrize("kernel", ["distance", "product"])
@pytest.mark.parametrize("bandwidth", [0.3, 0.7, 1.5])
def test_kernel_priors_match_brute_force(kernel, bandwidth):
    table = small_table()
    priors = kernel_priors(table, "disease", bandwidth=bandwidth, kernel=kernel)
    assert priors.per_tuple.shape == (table.distinct.size, 3)
    assert table.distinct.size < table.n
    np.testing.assert_array_equal(priors.inverse, table.distinct.inverse)
    np.testing.assert_allclose(priors.per_tuple.sum(axis=1), 1.0)
    expected = brute_force_kernel(table.frame, bandwidth, kernel == "product")
    np.testing.assert_allclose(priors.per_record(), expected, atol=1e-12)
    assert list(priors.labels) == ["cancer", "flu", "gastritis"]


def test_kernel_priors_chunked(monkeypatch):
    import anonkit.knowledge.priors as mod

    table = small_table()
    whole = kernel_priors(table, "disease", bandwidth=0.7)
    monkeypatch.setattr(mod, "CHUNK_ELEMENTS", 7)  # one target tuple per block
    np.testing.assert_allclose(kernel_priors(table, "disease", bandwidth=0.7).per_tuple, whole.per_tuple)


def one_qi_table(ages: list[int], values: list[str]) -> Table:
    frame = pd.DataFrame({"age": [str(a) for a in ages], "sa": values})
    return Table(frame, Schema.of(quasi=["age"], sensitive=["sa"], types={"age": "numeric"}))


def test_kernel_priors_external_and_global_fallback():
    # spec §3.2: raw ages, B = 10 → normalized 10 / 40 over the range 20..60
    source = one_qi_table([20, 25, 30, 40, 60], ["L", "L", "H", "H", "H"])
    target = one_qi_table([24, 50, 24], ["L", "H", "H"])
    priors = kernel_priors(target, "sa", bandwidth=0.25, external=source)
    rec = priors.per_record()
    labels = list(priors.labels)
    assert rec[0, labels.index("L")] == pytest.approx(0.7409, abs=5e-5)
    np.testing.assert_allclose(rec[0], rec[2])
    assert rec[1, labels.index("L")] == pytest.approx(0.4)  # isolated → global distribution
    assert rec[1, labels.index("H")] == pytest.approx(0.6)
    assert priors.per_tuple.shape == (2, 2)


def test_kernel_priors_errors():
    table = small_table()
    with pytest.raises(InputError):
        kernel_priors(table, "zip")
    with pytest.raises(InputError):
        kernel_priors(table, "disease", bandwidth=0)
    with pytest.raises(InputError):
        kernel_priors(table, "disease", external=one_qi_table([1, 2], ["a", "b"]))


# ---------------------------------------------------------------------- matrix priors


def test_matrix_priors_arrays_and_frames():
    table = small_table()
    d = table.distinct
    rng = np.random.default_rng(3)
    per_tuple = rng.dirichlet(np.ones(3), size=d.size)
    from_tuples = matrix_priors(table, "disease", per_tuple)
    np.testing.assert_allclose(from_tuples.per_tuple, per_tuple)
    from_records = matrix_priors(table, "disease", per_tuple[d.inverse])
    np.testing.assert_allclose(from_records.per_tuple, per_tuple)
    # a frame indexed by QI tuples, columns in another order, rows shuffled
    leaves = [h.leaves for h in table.hierarchies]
    index = pd.MultiIndex.from_tuples(
        [tuple(leaves[j][c] for j, c in enumerate(t)) for t in d.tuples], names=["age", "zip", "sex"]
    )
    frame = pd.DataFrame(per_tuple, index=index, columns=from_tuples.labels)[["gastritis", "cancer", "flu"]]
    frame = frame.sample(frac=1.0, random_state=0)
    np.testing.assert_allclose(matrix_priors(table, "disease", frame).per_tuple, per_tuple)


def test_matrix_priors_validation():
    table = small_table()
    m = table.distinct.size
    good = np.full((m, 3), 1 / 3)
    with pytest.raises(InputError, match="shape"):
        matrix_priors(table, "disease", good[:-1])
    with pytest.raises(InputError, match="columns"):
        matrix_priors(table, "disease", np.full((m, 2), 0.5))
    bad = good.copy()
    bad[4] = [0.5, 0.5, 0.5]
    with pytest.raises(InputError, match="sum to 1"):
        matrix_priors(table, "disease", bad)
    neg = good.copy()
    neg[0] = [1.5, -0.5, 0.0]
    with pytest.raises(InputError, match="negative"):
        matrix_priors(table, "disease", neg)
    per_record = good[table.distinct.inverse]
    first = table.distinct.inverse[0]
    twin = np.flatnonzero(table.distinct.inverse == first)[1]
    per_record[twin] = [1.0, 0.0, 0.0]
    with pytest.raises(InputError, match="same QI tuple"):
        matrix_priors(table, "disease", per_record)
    frame = pd.DataFrame(
        [[1.0, 0.0]], index=pd.MultiIndex.from_tuples([("20", "47677", "m")]), columns=["flu", "cancer"]
    )
    with pytest.raises(InputError, match="lacks a QI tuple"):
        matrix_priors(table, "disease", frame)
    with pytest.raises(InputError, match="not a sensitive value"):
        matrix_priors(table, "disease", frame.rename(columns={"flu": "plague"}))


# ---------------------------------------------------------------------- classifier priors


def test_classifier_priors_shape_and_normalization():
    table = small_table()
    priors = classifier_priors(table, "disease")
    assert priors.per_tuple.shape == (table.distinct.size, 3)
    np.testing.assert_allclose(priors.per_tuple.sum(axis=1), 1.0)
    assert (priors.per_tuple > 0).all()
    assert priors.per_record().shape == (table.n, 3)


def test_classifier_priors_missing_class_and_custom_model():
    from sklearn.tree import DecisionTreeClassifier

    source = one_qi_table([20, 25, 30, 40, 60], ["L", "L", "H", "H", "H"])
    target = one_qi_table([20, 60, 40], ["L", "H", "X"])  # "X" never seen in the external data
    priors = classifier_priors(target, "sa", model=DecisionTreeClassifier(random_state=0), external=source)
    labels = list(priors.labels)
    np.testing.assert_allclose(priors.per_tuple.sum(axis=1), 1.0)
    rec = priors.per_record()
    assert rec[:, labels.index("X")].max() < 1e-5
    assert rec[0, labels.index("L")] > 0.99
    assert rec[1, labels.index("H")] > 0.99


# ---------------------------------------------------------------------- incremental priors


def test_incremental_priors():
    table = small_table()
    s = 3
    rng = np.random.default_rng(5)
    previous = rng.dirichlet(np.ones(s), size=table.n)
    # γ = 1, identity transitions: the previous beliefs are carried unchanged
    same = incremental_priors(previous, table, "disease", weight=1.0)
    np.testing.assert_allclose(same.per_record(), previous)
    trans = transition_matrix([0, 0, 1, 2], [1, 1, 1, 2], s, alpha=1.0)
    np.testing.assert_allclose(trans.sum(axis=1), 1.0)
    np.testing.assert_allclose(trans[0], [1 / 5, 3 / 5, 1 / 5])
    kernel = kernel_priors(table, "disease")
    mixed = incremental_priors(previous, table, "disease", weight=0.5, transitions=trans, kernel=kernel)
    expected = 0.5 * (previous @ trans) + 0.5 * kernel.per_record()
    np.testing.assert_allclose(mixed.per_record(), expected)
    assert isinstance(mixed, Priors)
    mined = incremental_priors(
        Priors(previous, np.arange(table.n), kernel.labels), table, "disease", previous_values=np.zeros(table.n)
    )
    np.testing.assert_allclose(mined.per_record().sum(axis=1), 1.0)
    with pytest.raises(InputError):
        incremental_priors(previous[:-1], table, "disease")


# ---------------------------------------------------------------------- Adult


def test_kernel_priors_on_adult(adult_bk_table):
    priors = kernel_priors(adult_bk_table, "salary-class")
    m = adult_bk_table.distinct.size
    assert 1000 < m < 3000
    assert priors.per_tuple.shape == (m, 2)
    np.testing.assert_allclose(priors.per_tuple.sum(axis=1), 1.0)
    rec = priors.per_record()
    assert rec.shape == (adult_bk_table.n, 2)
    # the prior follows the data: its mean is close to the global share of ">50K"
    high = list(priors.labels).index(">50K")
    share = (adult_bk_table.sensitive_codes["salary-class"] == high).mean()
    assert abs(rec[:, high].mean() - share) < 0.05
