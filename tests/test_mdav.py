"""MDAV (spec §5.5): the worked example, agreement with a naive transcription on random numeric
data, group sizes in [k, 2k−1], the verifier, determinism and the edge cases of §7.1."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit import Hierarchy, Schema, Table, anonymize
from anonkit.algorithms import get_algorithm
from anonkit.algorithms.cluster.mdav import mdav
from anonkit.errors import InputError
from anonkit.metrics.utility import gcp
from anonkit.models import DistinctLDiversity, KAnonymity
from anonkit.verify import verify

VALUES = [1, 2, 3, 10, 11, 12, 20, 21, 22, 30]


def numeric_table(values: list[float] | np.ndarray, *, extra: dict | None = None, missing: str = "value") -> Table:
    frame = pd.DataFrame({"x": [str(v) for v in values], **(extra or {})})
    qi = ["x", *[c for c in (extra or {}) if c != "s"]]
    sens = ["s"] if extra and "s" in extra else []
    types = {q: "numeric" for q in qi}
    return Table(frame, Schema.of(quasi=qi, sensitive=sens, types=types), missing=missing)  # type: ignore[arg-type]


def groups_of(release) -> set[frozenset[int]]:
    """MDAV's groups (before groups published alike are merged into one class)."""
    g = release.extra["group"]
    return {frozenset(np.flatnonzero(g == c).tolist()) for c in range(release.extra["groups"])}


def classes_of(release) -> set[frozenset[int]]:
    rc = release.record_class
    return {frozenset(np.flatnonzero(rc == c).tolist()) for c in range(release.n_classes)}


# ---------------------------------------------------------------------------- the worked example
@pytest.mark.parametrize("standardize", ["zscore", "minmax"])
def test_worked_example(standardize: str) -> None:
    table = numeric_table(VALUES)
    rel = mdav(table, [KAnonymity(3)], standardize=standardize)  # type: ignore[arg-type]
    by_value = {frozenset(VALUES[i] for i in g) for g in groups_of(rel)}
    assert by_value == {frozenset({30, 22, 21}), frozenset({1, 2, 3}), frozenset({10, 11, 12, 20})}
    sse = (1 + 0 + 1) + sum((v - 13.25) ** 2 for v in (10, 11, 12, 20)) + sum((v - 73 / 3) ** 2 for v in (21, 22, 30))
    sst = sum((v - 13.2) ** 2 for v in VALUES)
    assert sse == pytest.approx(113.41666, abs=1e-4) and sst == pytest.approx(861.6)
    assert rel.extra["information_loss"] == pytest.approx(sse / sst, abs=1e-12)
    assert rel.extra["information_loss"] == pytest.approx(0.1316, abs=5e-5)
    # centroids: the released value is the group mean, the intervals are kept aside
    labels = dict(zip(VALUES, rel.generalized()["x"], strict=True))
    assert labels[1] == labels[3] == "2" and labels[10] == labels[20] == "13.25"
    assert float(labels[30]) == pytest.approx(73 / 3)
    assert sorted(map(tuple, rel.extra["intervals"]["x"].tolist())) == [(1, 3), (10, 20), (21, 30)]
    assert rel.satisfied and rel.params["output"] == "centroids"


def test_worked_example_intervals() -> None:
    table = numeric_table(VALUES)
    rel = mdav(table, [KAnonymity(3)], output="intervals")
    assert set(rel.generalized()["x"]) == {"[1-3]", "[10-20]", "[21-30]"}
    assert "intervals" not in rel.extra
    assert 0.0 < gcp(table, rel) < 1.0
    assert rel.extra["information_loss"] == pytest.approx(0.1316, abs=5e-5)


def test_registry_and_pipeline() -> None:
    assert get_algorithm("mdav") is mdav
    table = numeric_table(VALUES)
    for output in ("centroids", "intervals"):
        res = anonymize(table.frame, table.schema, [KAnonymity(3)], algorithm="mdav", output=output)
        assert res.verification.ok and res.release.satisfied


# ---------------------------------------------------------------------------- naive reference
def naive_mdav(X: np.ndarray, k: int) -> list[set[int]]:
    """Spec §5.5 transcribed with explicit loops over records (X: standardized, m × p)."""
    rem = list(range(len(X)))

    def sq(i: int, point: np.ndarray) -> float:
        out = 0.0
        for a in range(X.shape[1]):
            out += (X[i, a] - point[a]) ** 2
        return out

    def farthest(point: np.ndarray) -> int:
        return max(rem, key=lambda i: (sq(i, point), -i))

    def group_around(x: int) -> set[int]:
        g = sorted(rem, key=lambda i: (i != x, sq(i, X[x]), i))[:k]
        for i in g:
            rem.remove(i)
        return set(g)

    def centroid() -> np.ndarray:
        return np.array([X[rem, a].mean() for a in range(X.shape[1])])

    groups = []
    while len(rem) >= 3 * k:
        xr = farthest(centroid())
        groups.append(group_around(xr))
        xs = farthest(X[xr])
        groups.append(group_around(xs))
    if len(rem) >= 2 * k:
        groups.append(group_around(farthest(centroid())))
    if rem:
        groups.append(set(rem))
    return groups


def _standardized(table: Table) -> np.ndarray:
    cols = []
    for q in table.qi:
        x = table.numeric[q]
        cols.append((x - x.mean()) / x.std() if x.std() > 0 else np.zeros_like(x))
    return np.stack(cols, axis=1)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 60), p=st.integers(1, 3), k=st.integers(2, 6), coarse=st.booleans())
def test_agrees_with_naive_reference(seed: int, n: int, p: int, k: int, coarse: bool) -> None:
    rng = np.random.default_rng(seed)
    hi = 4 if coarse else 1000  # coarse values: many duplicates and ties
    extra = {f"y{a}": [str(v) for v in rng.integers(0, hi, n)] for a in range(1, p)}
    table = numeric_table(rng.integers(0, hi, n), extra=extra)
    rel = mdav(table, [KAnonymity(k)])
    expected = {frozenset(g) for g in naive_mdav(_standardized(table), k)}
    assert groups_of(rel) == expected
    if n < k:
        assert rel.n_classes == 0


# ---------------------------------------------------------------------------- invariants
def mixed_table(seed: int, n: int) -> Table:
    """Two numeric QIs, one categorical QI with a hierarchy, one without, a sensitive column."""
    rng = np.random.default_rng(seed)
    zips = ["1234", "1235", "1299", "1300"]
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 60, n).astype(str),
            "income": rng.normal(50, 15, n).round(1).astype(str),
            "zip": rng.choice(zips, n),
            "sex": rng.choice(["M", "F"], n),
            "s": rng.choice(["flu", "cold", "cancer"], n),
        }
    )
    h_zip = Hierarchy([[z, z[:3] + "*", "*"] for z in zips], name="zip")
    schema = Schema.of(
        quasi=["age", "income", "zip", "sex"],
        sensitive=["s"],
        hierarchies={"zip": h_zip},
        types={"age": "numeric", "income": "numeric"},
    )
    return Table(frame, schema)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    n=st.integers(1, 80),
    k=st.integers(1, 6),
    output=st.sampled_from(["centroids", "intervals"]),
    standardize=st.sampled_from(["zscore", "minmax"]),
    with_l=st.booleans(),
)
def test_invariants(seed: int, n: int, k: int, output: str, standardize: str, with_l: bool) -> None:
    table = mixed_table(seed, n)
    models = [KAnonymity(k)] + ([DistinctLDiversity("s", 2)] if with_l else [])
    rel = mdav(table, models, output=output, standardize=standardize)  # type: ignore[arg-type]
    rc = rel.record_class
    sizes = rel.class_sizes()
    assert sizes.sum() + rel.n_suppressed == n
    k = rel.extra["k"]  # l-diversity asks for groups of at least l = 2
    assert k == (max(k, 2) if with_l else k)
    group_sizes = np.bincount(rel.extra["group"], minlength=rel.extra["groups"])
    if n >= k:
        assert (rel.extra["groups"] == 1) == (n < 2 * k)
        assert ((group_sizes >= k) & (group_sizes <= 2 * k - 1)).all()
        assert (sizes >= k).all()
    # classes are unions of groups, and no two classes are published alike (§0.2: maximal)
    for cls in classes_of(rel):
        assert all(g <= cls or not (g & cls) for g in groups_of(rel))
    published = rel.to_frame()[table.qi]
    assert sorted(published.groupby(table.qi).size().tolist()) == sorted(sizes.tolist())
    if not with_l and n >= k:
        assert rel.satisfied and rel.n_suppressed == 0
    # categorical QIs are released as the LCA of the group's values
    for c in range(rel.n_classes):
        members = np.flatnonzero(rc == c)
        for j in (2, 3):
            h = table.hierarchies[j]
            lv = next(lv for lv in range(h.height + 1) if len(np.unique(h.maps[lv][table.codes[members, j]])) == 1)
            assert rel.class_levels[c, j] == lv
        for name in ("age", "income"):
            lo, hi = rel.class_bounds[name][c]
            vals = table.numeric[name][members]
            if output == "centroids":
                assert lo == hi == pytest.approx(vals.mean())
                assert tuple(rel.extra["intervals"][name][c]) == (vals.min(), vals.max())
            else:
                assert (lo, hi) == (vals.min(), vals.max())
    ver = verify(rel.to_frame(), table.schema, models, reference={"s": table.frame["s"]})
    assert ver.ok
    assert 0.0 <= rel.extra["information_loss"] <= 1.0 + 1e-12
    again = mdav(table, models, output=output, standardize=standardize)  # type: ignore[arg-type]
    assert np.array_equal(again.record_class, rc)


# ---------------------------------------------------------------------------- edge cases (§7.1)
def test_fewer_records_than_k_suppresses_everything() -> None:
    rel = mdav(numeric_table([5, 7, 9]), [KAnonymity(4)])
    assert rel.n_classes == 0 and rel.n_suppressed == 3 and not rel.satisfied
    assert rel.extra["groups"] == 1  # one undersized group, suppressed
    assert rel.extra["information_loss"] == 1.0


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_between_k_and_2k_records_gives_one_group(n: int) -> None:
    rel = mdav(numeric_table(list(range(n))), [KAnonymity(4)])
    assert rel.satisfied and rel.n_classes == 1 and rel.class_sizes().tolist() == [n]


def test_duplicate_records() -> None:
    # 3 ×7 then 8 ×5, k = 3: {8,8,8} (farthest from the centroid 5.08, lowest indices), {3,3,3}; of
    # the six left the first 8 is farthest from the centroid: {8,8} + the first 3; the rest {3,3,3}
    rel = mdav(numeric_table([3] * 7 + [8] * 5), [KAnonymity(3)])
    assert groups_of(rel) == {frozenset({7, 8, 9}), frozenset({0, 1, 2}), frozenset({10, 11, 3}), frozenset({4, 5, 6})}
    assert classes_of(rel) == {frozenset({7, 8, 9}), frozenset({0, 1, 2, 4, 5, 6}), frozenset({10, 11, 3})}
    assert 0.0 < rel.extra["information_loss"] < 1.0
    constant = mdav(numeric_table([4] * 9), [KAnonymity(3)])
    assert constant.extra["groups"] == 3 and constant.n_classes == 1  # three groups published alike: one class
    assert constant.extra["information_loss"] == 0.0  # SST = 0


def test_group_sizes_with_3k_boundaries() -> None:
    for n in range(9, 30):
        rel = mdav(numeric_table(list(range(n))), [KAnonymity(3)])
        sizes = np.bincount(rel.extra["group"])
        assert ((sizes >= 3) & (sizes <= 5)).all() and sizes.sum() == n


def test_missing_values() -> None:
    # a missing value is at δ = 1 from everything (§0.3); its class gets the hierarchy's LCA (here *)
    values = ["1", "", "3", "4", "50", "52", "", "51"]
    rel = mdav(numeric_table(values), [KAnonymity(2)])
    assert rel.satisfied and (np.bincount(rel.extra["group"]) >= 2).all()
    labels = rel.generalized()["x"]
    assert labels[1] == "*" and labels[6] == "*"
    assert verify(rel.to_frame(), rel.table.schema, [KAnonymity(2)]).ok
    assert 0.0 < rel.extra["information_loss"] < 1.0
    assert mdav(numeric_table(["", ""]), [KAnonymity(2)]).satisfied  # nothing known at all
    rel = mdav(numeric_table(["1", "", "3", "4"], missing="suppress"), [KAnonymity(2)])
    assert rel.record_class[1] == -1 and rel.class_sizes().tolist() == [3]


def test_bad_options() -> None:
    table = numeric_table(VALUES)
    with pytest.raises(InputError, match="output"):
        mdav(table, [KAnonymity(3)], output="means")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="standardization"):
        mdav(table, [KAnonymity(3)], standardize="rank")  # type: ignore[arg-type]


def test_categorical_only_table() -> None:
    """MDAV-generic: only categorical QIs (the §0.3 distance), released as LCAs."""
    frame = pd.DataFrame({"c": list("aabbbccdde"), "d": list("xyxyxyxyxy")})
    table = Table(frame, Schema.of(quasi=["c", "d"]))
    rel = mdav(table, [KAnonymity(3)])
    sizes = np.bincount(rel.extra["group"])
    assert rel.satisfied and ((sizes >= 3) & (sizes <= 5)).all() and (rel.class_sizes() >= 3).all()
    assert not rel.class_bounds and 0.0 < rel.extra["information_loss"] <= 1.0
    assert verify(rel.to_frame(), table.schema, [KAnonymity(3)]).ok


def test_categorical_hierarchy_without_common_root_is_an_input_error() -> None:
    h = Hierarchy([["a", "x"], ["b", "y"]], name="c")
    table = Table(pd.DataFrame({"c": ["a", "b", "a"]}), Schema.of(quasi=["c"], hierarchies={"c": h}))
    with pytest.raises(InputError, match="top nodes"):
        mdav(table, [KAnonymity(2)])
