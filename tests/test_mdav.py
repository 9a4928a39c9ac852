"""MDAV (spec §5.5): the worked example, agreement with a naive transcription on random numeric
data, group sizes in [k, 2k−1], the verifier, determinism and the edge cases of §7.1; l-diversity,
t-closeness and the other models met by merging groups (anonkit's extension, ``_merge``)."""

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
from anonkit.metrics import gcp
from anonkit.models import (
    Criterion,
    DeltaDisclosure,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    TCloseness,
)
from anonkit.verifier import verify
from clinic_tables import numeric_clinic
from support import MODEL_CHOICES, verified

VALUES = [1, 2, 3, 10, 11, 12, 20, 21, 22, 30]


def numeric_table(values: list[float] | np.ndarray, *, extra: dict | None = None, missing: str = "value") -> Table:
    frame = pd.DataFrame({"x": [str(v) for v in values], **(extra or {})})
    qi = ["x", *[c for c in (extra or {}) if c != "s"]]
    sens = ["s"] if extra and "s" in extra else []
    types = {q: "numeric" for q in qi}
    return Table(frame, Schema.of(quasi=qi, sensitive=sens, types=types), missing=missing)  # type: ignore[arg-type]


def groups_of(release) -> set[frozenset[int]]:
    """MDAV's groups (before groups published alike are merged into one class)."""
    g = release.record_group
    return {frozenset(np.flatnonzero(g == c).tolist()) for c in range(release.notes["groups"])}


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
    assert rel.notes["information_loss"] == pytest.approx(sse / sst, abs=1e-12)
    assert rel.notes["information_loss"] == pytest.approx(0.1316, abs=5e-5)
    # centroids: the released value is the group mean, the intervals are kept aside
    labels = dict(zip(VALUES, rel.generalized()["x"], strict=True))
    assert labels[1] == labels[3] == "2" and labels[10] == labels[20] == "13.25"
    assert float(labels[30]) == pytest.approx(73 / 3)
    assert sorted(map(tuple, rel.notes["intervals"]["x"].tolist())) == [(1, 3), (10, 20), (21, 30)]
    assert rel.satisfied and rel.params["output"] == "centroids"


def test_worked_example_intervals() -> None:
    table = numeric_table(VALUES)
    rel = mdav(table, [KAnonymity(3)], output="intervals")
    assert set(rel.generalized()["x"]) == {"[1-3]", "[10-20]", "[21-30]"}
    assert "intervals" not in rel.notes
    assert 0.0 < gcp(table, rel) < 1.0
    assert rel.notes["information_loss"] == pytest.approx(0.1316, abs=5e-5)


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
        types={"age": "numeric", "income": "numeric", "zip": "categorical", "sex": "categorical"},
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
    k = rel.notes["k"]  # l-diversity asks for groups of at least l = 2
    assert k == (max(k, 2) if with_l else k)
    group_sizes = np.bincount(rel.record_group, minlength=rel.notes["groups"])
    if n >= k:
        assert (rel.notes["groups"] == 1) == (n < 2 * k)
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
                assert tuple(rel.notes["intervals"][name][c]) == (vals.min(), vals.max())
            else:
                assert (lo, hi) == (vals.min(), vals.max())
    ver = verify(rel.to_frame(), table.schema, models, reference={"s": table.frame["s"]})
    assert ver.ok
    assert 0.0 <= rel.notes["information_loss"] <= 1.0 + 1e-12
    again = mdav(table, models, output=output, standardize=standardize)  # type: ignore[arg-type]
    assert np.array_equal(again.record_class, rc)


# ---------------------------------------------------------------------------- edge cases (§7.1)
def test_fewer_records_than_k_suppresses_everything() -> None:
    rel = mdav(numeric_table([5, 7, 9]), [KAnonymity(4)])
    assert rel.n_classes == 0 and rel.n_suppressed == 3 and not rel.satisfied
    assert rel.notes["groups"] == 1  # one undersized group, suppressed
    assert rel.notes["information_loss"] == 1.0


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
    assert 0.0 < rel.notes["information_loss"] < 1.0
    constant = mdav(numeric_table([4] * 9), [KAnonymity(3)])
    assert constant.notes["groups"] == 3 and constant.n_classes == 1  # three groups published alike: one class
    assert constant.notes["information_loss"] == 0.0  # SST = 0


def test_group_sizes_with_3k_boundaries() -> None:
    for n in range(9, 30):
        rel = mdav(numeric_table(list(range(n))), [KAnonymity(3)])
        sizes = np.bincount(rel.record_group)
        assert ((sizes >= 3) & (sizes <= 5)).all() and sizes.sum() == n


def test_missing_values() -> None:
    # a missing value is at δ = 1 from everything (§0.3); its class gets the hierarchy's LCA (here *)
    values = ["1", "", "3", "4", "50", "52", "", "51"]
    rel = mdav(numeric_table(values), [KAnonymity(2)])
    assert rel.satisfied and (np.bincount(rel.record_group) >= 2).all()
    labels = rel.generalized()["x"]
    assert labels[1] == "*" and labels[6] == "*"
    assert verify(rel.to_frame(), rel.table.schema, [KAnonymity(2)]).ok
    assert 0.0 < rel.notes["information_loss"] < 1.0
    assert mdav(numeric_table(["", ""]), [KAnonymity(2)]).satisfied  # nothing known at all
    rel = mdav(numeric_table(["1", "", "3", "4"], missing="suppress"), [KAnonymity(2)])
    assert rel.record_class[1] == -1 and rel.class_sizes().tolist() == [3]


def test_bad_options() -> None:
    table = numeric_table(VALUES)
    with pytest.raises(InputError, match="output"):
        mdav(table, [KAnonymity(3)], output="means")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="standardize"):
        mdav(table, [KAnonymity(3)], standardize="rank")  # type: ignore[arg-type]


def test_categorical_only_table() -> None:
    """MDAV-generic: only categorical QIs (the §0.3 distance), released as LCAs."""
    frame = pd.DataFrame({"c": list("aabbbccdde"), "d": list("xyxyxyxyxy")})
    table = Table(frame, Schema.of(quasi=["c", "d"]))
    rel = mdav(table, [KAnonymity(3)])
    sizes = np.bincount(rel.record_group)
    assert rel.satisfied and ((sizes >= 3) & (sizes <= 5)).all() and (rel.class_sizes() >= 3).all()
    assert not rel.class_bounds and 0.0 < rel.notes["information_loss"] <= 1.0
    assert verify(rel.to_frame(), table.schema, [KAnonymity(3)]).ok


def test_categorical_hierarchy_without_common_root_is_an_input_error() -> None:
    h = Hierarchy([["a", "x"], ["b", "y"]], name="c")
    table = Table(pd.DataFrame({"c": ["a", "b", "a"]}), Schema.of(quasi=["c"], hierarchies={"c": h}))
    with pytest.raises(InputError, match="top nodes"):
        mdav(table, [KAnonymity(2)])


# ---------------------------------------------------------------------------- models met by merging
@pytest.mark.parametrize("output", ["centroids", "intervals"])
def test_t_closeness_is_met_by_merging_not_by_suppression(output: str) -> None:
    """The reported case (k = 4, equal-distance 0.4-closeness, 10 % suppression, 300 records):
    suppressing the failing groups loses most of the table; merging them meets the models."""
    table = numeric_clinic(0)
    models = [KAnonymity(4), TCloseness("disease", 0.4)]
    old = mdav(table, models, max_suppression=0.1, failing="suppress", output=output)  # type: ignore[arg-type]
    assert not old.satisfied and old.n_suppressed > 30
    rel = mdav(table, models, max_suppression=0.1, output=output)  # type: ignore[arg-type]
    assert rel.satisfied and rel.n_suppressed <= 30
    assert rel.n_suppressed == 0 and rel.notes["model_merges"] > 0 and not rel.notes["merge_fallback"]
    assert verified(table, rel, models)
    # classes are unions of MDAV's groups (record_group keeps them as MDAV formed them)
    assert np.array_equal(rel.record_group, old.record_group)
    for cls in classes_of(rel):
        assert all(g <= cls or not (g & cls) for g in groups_of(rel))
    assert 0.0 < rel.notes["information_loss"] < old.notes["information_loss"]  # old: suppressed = SST


def test_merge_goes_to_the_nearest_group() -> None:
    """Groups {1,2}, {10,11}, {50,51}, {52,53} (k = 2); only {50,51} lacks a second disease: it is
    merged with {52,53}, its nearest group (squared distance of the standardized means)."""
    values = [1, 2, 10, 11, 50, 51, 52, 53]
    s = ["a", "b", "a", "b", "a", "a", "a", "b"]
    table = numeric_table(values, extra={"s": s})
    models = [KAnonymity(2), DistinctLDiversity("s", 2)]
    rel = mdav(table, models, output="intervals")
    assert rel.notes["model_merges"] == 1 and rel.n_suppressed == 0
    by_value = {frozenset(values[i] for i in c) for c in classes_of(rel)}
    assert by_value == {frozenset({1, 2}), frozenset({10, 11}), frozenset({50, 51, 52, 53})}


def test_merging_everything_that_still_fails_is_suppressed() -> None:
    """Records suppressed up front all have flu: even one class of all released records is not
    0.01-close to the input's distribution, so everything is suppressed after merging."""
    table = numeric_clinic(3, 120)
    frame = table.frame.copy()
    frame.loc[:19, "age"] = ""
    frame.loc[:19, "disease"] = "flu"
    table = Table(frame, table.schema, missing="suppress")
    models = [KAnonymity(4), TCloseness("disease", 0.01)]
    rel = mdav(table, models, max_suppression=1.0)
    assert rel.n_classes == 0 and rel.n_suppressed == 120 and not rel.satisfied
    assert rel.notes["model_merges"] == rel.notes["groups"] - 1 and not rel.notes["merge_fallback"]
    assert rel.notes["information_loss"] == 1.0


def test_fallback_when_the_union_fails_but_a_group_passes() -> None:
    """Entropy 2-diversity: {1,2,3,4} holds four diseases, the 12 records 100…111 only s0; merging
    can only reach one class of all 16 records, which fails — suppressing the three failing groups
    (12 records) loses fewer, and is what is published."""
    values = [1, 2, 3, 4, *range(100, 112)]
    table = numeric_table(values, extra={"s": ["s0", "s1", "s2", "s3"] + ["s0"] * 12})
    models = [KAnonymity(4), EntropyLDiversity("s", 2)]
    rel = mdav(table, models, max_suppression=1.0)
    assert rel.notes["merge_fallback"] and rel.n_suppressed == 12 and rel.n_classes == 1
    assert rel.record_class[:4].tolist() == [0, 0, 0, 0]
    assert verified(table, rel, models)


def test_published_alike_groups_are_judged_together() -> None:
    """Categorical QIs only: groups publishing the same labels are one class; δ-disclosure can fail
    on such a union although every group passes, and more rounds of merging fix it."""
    rng = np.random.default_rng(1)  # a table needing 3 rounds
    n = 40
    frame = pd.DataFrame(
        {"c": rng.choice(list("abcd"), n), "d": rng.choice(list("xy"), n), "s": rng.choice(["s0", "s1", "s2"], n)}
    )
    table = Table(frame, Schema.of(quasi=["c", "d"], sensitive=["s"]))
    models = [KAnonymity(2), DeltaDisclosure("s", 1.2)]
    rel = mdav(table, models, max_suppression=1.0)
    assert rel.notes["merge_rounds"] > 1
    assert rel.n_suppressed == 0 and verified(table, rel, models)
    assert mdav(table, models, max_suppression=1.0, failing="suppress").n_suppressed > 0


@pytest.mark.parametrize("seed", [0, 1])
def test_dense_and_sparse_value_counts_agree(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Large categorical domains count a group's values from the records instead of a table:
    the merges are the same."""
    import anonkit.algorithms.cluster.mdav as module

    table = mixed_table(seed, 80)
    models = [KAnonymity(3), TCloseness("s", 0.15)]
    dense = mdav(table, models, max_suppression=1.0)
    monkeypatch.setattr(module, "_DENSE_LIMIT", 0)
    sparse = mdav(table, models, max_suppression=1.0)
    assert dense.notes["model_merges"] > 0
    assert np.array_equal(dense.record_class, sparse.record_class)




@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    n=st.integers(2, 60),
    k=st.integers(1, 5),
    names=st.lists(st.sampled_from(sorted(MODEL_CHOICES)), min_size=1, max_size=2, unique=True),
    lt_only=st.booleans(),
    output=st.sampled_from(["centroids", "intervals"]),
)
def test_merging_never_suppresses_more(seed: int, n: int, k: int, names: list[str], lt_only: bool, output: str) -> None:
    """On random mixed tables, with l-diversity / t-closeness (and the other models): merging never
    suppresses more records than suppressing the failing groups, every published class satisfies
    every model (independent verifier), and records are suppressed only when merging all groups
    into one still fails."""
    table = mixed_table(seed, n)
    if lt_only:
        names = [x for x in names if x.startswith(("distinct", "t-"))] or ["distinct-2"]
    models: list[Criterion] = [KAnonymity(k), *(MODEL_CHOICES[x]() for x in names)]
    merged = mdav(table, models, max_suppression=1.0, output=output)  # type: ignore[arg-type]
    suppressed = mdav(table, models, max_suppression=1.0, output=output, failing="suppress")  # type: ignore[arg-type]
    assert merged.n_suppressed <= suppressed.n_suppressed
    assert verified(table, merged, models)
    assert merged.class_sizes().sum() + merged.n_suppressed == n
    assert (merged.class_sizes() >= merged.notes["k"]).all()
    if merged.notes["merge_fallback"]:
        assert np.array_equal(merged.record_class, suppressed.record_class)
    elif merged.n_suppressed:
        assert merged.n_classes == 0 and merged.n_suppressed == n
    if lt_only and not merged.notes["merge_fallback"]:
        assert merged.n_suppressed in (0, n)
