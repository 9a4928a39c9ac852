"""(θ*, k)-utility angelization (paper D, spec §4.5, §4.7) and the bucket verifier."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit import InputError, Schema, Table
from anonkit.algorithms.bucket import theta_cut as tc
from anonkit.algorithms.bucket.angelization import angelization, private_link, representatives
from anonkit.datasets.one_to_many import ONE_TO_MANY_CATEGORIES, QI_COLUMNS, make_one_to_many
from anonkit.metrics.ncp import ncp_classes
from anonkit.models import DistinctLDiversity, KAnonymity, ThetaSensitivity
from anonkit.release import Release
from anonkit.verify_buckets import BucketResult, label_covers, verify_buckets
from one_to_many_tables import DISEASES, H_ZIP, random_one_to_many, with_categories

SPEC = angelization.spec  # type: ignore[attr-defined]

# ---------------------------------------------------------------------------------------- tables
#: spec §4.5's categories: Cold 0, Flu 1, Bronchitis/Gastritis 2, Pneumonia/Diabetes 3, Cancer/HIV 4
EXAMPLE_CATEGORIES = {
    "Cold": "Asymptomatic", "Flu": "Low", "Bronchitis": "Mild", "Gastritis": "Mild", "Pneumonia": "High",
    "Diabetes": "High", "Cancer": "Severe", "HIV": "Severe",
}
EXAMPLE = [
    ("P1", 25, 47677, ["Flu", "Pneumonia"]),
    ("P2", 27, 47602, ["Pneumonia"]),
    ("P3", 29, 47678, ["Gastritis", "Cancer"]),
    ("P4", 31, 47605, ["Cancer"]),
    ("P5", 45, 47905, ["Bronchitis", "Diabetes"]),
    ("P6", 48, 47909, ["Cold", "Flu"]),
    ("P7", 50, 47906, ["HIV"]),
    ("P8", 52, 47907, ["Gastritis"]),
]


def example_table() -> Table:
    rows = [(p, str(a), str(z), d) for p, a, z, ds in EXAMPLE for d in ds]
    frame = pd.DataFrame(rows, columns=["person", "age", "zip", "disease"])
    schema = Schema.of(person="person", quasi=["age", "zip"], sensitive=["disease"],
                       types={"age": "numeric", "zip": "numeric"})
    return Table(frame, with_categories(schema, "disease", EXAMPLE_CATEGORIES))


def one_to_many_table(persons: int, *, seed: int = 0) -> Table:
    frame = make_one_to_many(persons, seed=seed)
    schema = Schema.of(person="person", quasi=list(QI_COLUMNS), sensitive=["diagnosis"], types={"age": "numeric"})
    return Table(frame, with_categories(schema, "diagnosis", ONE_TO_MANY_CATEGORIES))


def check(rel: Release, table: Table, models: list, *, history: bool = True, link: bool = True):  # type: ignore[no-untyped-def]
    """verify_buckets of a release (with its private link unless ``link`` is false)."""
    implied = SPEC.implies(table, models, {"lam": rel.params["lambda"], "sensitive": rel.params["sensitive"]})
    extra = dict(zip(("source", "persons"), private_link(rel), strict=True)) if link else {}
    return verify_buckets(rel.tables["qt"], rel.tables["st"], table.schema, implied,
                          sensitive=rel.params["sensitive"], history=history, manifest=rel.manifest, **extra)


def failed(v, prefix: str) -> bool:  # type: ignore[no-untyped-def]
    return any(r.model.startswith(prefix) and not r.passed for r in v.results)


# ---------------------------------------------------------------------------------------- worked example
def test_worked_example_buckets_swap_and_variances() -> None:
    t = example_table()
    cat = t.domains["disease"].category[t.sensitive_codes["disease"]]
    _persons, rep = representatives(t, cat)
    labels = t.domains["disease"].labels
    assert list(labels[t.sensitive_codes["disease"][rep]]) == [
        "Pneumonia", "Pneumonia", "Cancer", "Cancer", "Diabetes", "Flu", "HIV", "Gastritis"]
    codes = cat[rep]
    assert codes.tolist() == [3, 3, 4, 4, 3, 1, 4, 2]
    assert codes[:4].var() == 0.25 and codes[4:].var() == 1.25  # {P1..P4} fails θ = 0.625, {P5..P8} passes
    rel = angelization(t, [KAnonymity(4)], lam=0.5, seed=0)
    assert rel.satisfied and rel.params["theta"] == 0.625
    assert rel.notes["swaps"] == 1 and rel.notes["merges"] == 0 and rel.notes["buckets"] == 2
    person = t.person
    bucket_of = {EXAMPLE[p][0]: int(rel.record_class[np.flatnonzero(person == p)[0]]) for p in range(8)}
    first = {p for p, b in bucket_of.items() if b == bucket_of["P1"]}
    assert first == {"P1", "P2", "P4", "P6"}  # P3 ↔ P6
    assert sorted(set(bucket_of) - first) == ["P3", "P5", "P7", "P8"]
    b1 = [0, 1, 3, 5]
    b2 = [2, 4, 6, 7]
    assert codes[b1].var() == 1.1875 and codes[b2].var() == 0.6875
    assert rel.notes["min_variance"] == 0.6875
    # the price of the swap (spec §4.5): |bucket| · Σ NCP goes from 1.88 + 1.09 to 7.41 + 6.39
    space = tc.ncp_space(t, rep)
    cost = [4 * tc.bucket_ncp(space, np.array(b)) for b in ([0, 1, 2, 3], [4, 5, 6, 7], b1, b2)]
    assert [round(c, 2) for c in cost] == [1.88, 1.09, 7.41, 6.39]
    # the same figures from the release by the metrics package (spec §2.1, domains 25–52 and 47602–47909)
    per_bucket = ncp_classes(t, rel).sum(axis=1) * 4
    assert sorted(round(float(c), 2) for c in per_bucket) == [6.39, 7.41]
    # P3 ↔ P6 is the cheapest of the swaps that make both buckets pass
    valid = []
    for i in range(4):
        for j in range(4, 8):
            a = [x for x in range(4) if x != i] + [j]
            b = [x for x in range(4, 8) if x != j] + [i]
            if codes[a].var() >= 0.625 and codes[b].var() >= 0.625:
                valid.append((4 * tc.bucket_ncp(space, np.array(a)) + 4 * tc.bucket_ncp(space, np.array(b)), i, j))
    assert min(valid)[1:] == (2, 5) and len(valid) == 4


def test_worked_example_tables() -> None:
    t = example_table()
    rel = angelization(t, [KAnonymity(4)], lam=0.5, seed=0)
    qt, st_ = rel.tables["qt"], rel.tables["st"]
    assert list(qt.columns) == ["age", "zip", "bucket"] and list(st_.columns) == ["bucket", "disease", "count"]
    assert sorted(map(tuple, qt.drop_duplicates().to_numpy().tolist())) == [
        ("[25-48]", "[47602-47909]", 1), ("[29-52]", "[47678-47907]", 2)]
    assert Counter(qt["bucket"]) == {1: 4, 2: 4}
    got = {(int(b), v): int(c) for b, v, c in st_.to_numpy().tolist()}
    # bucket 1 = P1, P2, P4, P6: representatives Pneumonia ×2, Cancer, Flu; history Flu (P1), Cold (P6)
    assert got == {(1, "Cancer"): 1, (1, "Cold"): 1, (1, "Flu"): 2, (1, "Pneumonia"): 2,
                   (2, "Bronchitis"): 1, (2, "Cancer"): 1, (2, "Diabetes"): 1, (2, "Gastritis"): 2, (2, "HIV"): 1}
    assert rel.sensitive_histogram is not None and rel.sensitive_histogram.sum() == st_["count"].sum() == 12
    assert rel.notes["history_values"] == 4 and rel.manifest is None
    assert check(rel, t, [KAnonymity(4)]).ok
    # without history: one value (the representative) per person
    rel = angelization(t, [KAnonymity(4)], lam=0.5, seed=0, publish_history=False)
    assert rel.tables["st"]["count"].sum() == 8 and rel.notes["history_values"] == 0
    assert check(rel, t, [KAnonymity(4)], history=False, link=False).ok
    assert check(rel, t, [KAnonymity(4)], history=False).ok


def test_worked_example_repairs() -> None:
    t = example_table()
    merged = angelization(t, [KAnonymity(4)], lam=0.5, repair="merge")
    assert merged.notes["buckets"] == 1 and merged.notes["merges"] == 1 and merged.notes["swaps"] == 0
    noisy = angelization(t, [KAnonymity(4)], lam=0.5, repair="noise")
    # {3,3,4,4} + one fake of code 0 (the category raising the variance most), value Cold
    assert noisy.notes["noise_records"] == 1 and noisy.notes["buckets"] == 2
    assert noisy.manifest is not None and noisy.manifest["value"].tolist() == ["Cold", "Cold"]
    for rel in (merged, noisy):
        assert check(rel, t, [KAnonymity(4)]).ok


# ---------------------------------------------------------------------------------------- properties
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(2, 40), n_qis=st.integers(2, 3), k=st.integers(2, 4),
       lam=st.sampled_from([0.3, 0.5, 0.8, 1.0]), order=st.sampled_from(["qi", "hilbert"]),
       repair=st.sampled_from(["swap", "merge", "noise"]), history=st.booleans(), distinct=st.booleans())
def test_guarantees_on_random_tables(seed: int, n: int, n_qis: int, k: int, lam: float, order: str, repair: str,
                                     history: bool, distinct: bool) -> None:
    frame, schema = random_one_to_many(seed, n, n_qis)
    t = Table(frame, schema)
    models = [ThetaSensitivity("disease", k, lam, distinct)] if distinct else [KAnonymity(k)]
    reason = SPEC.precheck(t, models, {"repair": repair, "lam": lam})
    if n < k:
        assert reason is not None and "persons" in reason
        with pytest.raises(InputError):
            angelization(t, models, lam=lam, order=order, repair=repair, publish_history=history, seed=seed)
        return
    rel = angelization(t, models, lam=lam, order=order, repair=repair, publish_history=history, seed=seed)
    if not rel.satisfied:  # only when θ is unreachable even with everybody in one bucket
        # noise repairs add records of existing values, so they cannot give the distinct rule a category
        # that has no value (found by hypothesis: three persons, two categories, k = 3) nor lift the
        # variance above that of the values' range (found by hypothesis: two persons, one category)
        assert reason is not None
        assert repair != "noise" or "distinct rule" in reason or "even with fake records" in reason
        assert rel.tables == {} and rel.n_released == 0
        assert rel.message.startswith("the models cannot be met: ")
        return
    assert reason is None
    v = check(rel, t, models, history=history)
    assert v.ok, v.summary()
    qt, st_ = rel.tables["qt"], rel.tables["st"]
    # no person id or other column in the tables
    assert set(qt.columns) <= {*schema.quasi, "bucket"} and list(st_.columns) == ["bucket", "disease", "count"]
    cells = set(map(str, np.concatenate([qt.to_numpy().ravel(), st_.to_numpy().ravel()])))
    assert not any(c.startswith("pid-") for c in cells)
    # one QT row per person (plus fakes); every representative counted once
    fakes = rel.notes["noise_records"]
    assert len(qt) == n + fakes
    assert st_["count"].sum() == (len(frame) if history else n) + fakes
    assert (rel.record_class >= 0).all()
    # all of a person's records share a bucket: persons never span buckets
    per_person = pd.Series(rel.record_class).groupby(t.person).nunique()
    assert (per_person == 1).all()
    # every bucket: ≥ k real persons, the representatives' variance ≥ θ
    buckets = Counter(qt["bucket"][np.asarray(rel.notes["qt_person"]) >= 0])
    assert min(buckets.values()) >= k
    # deterministic for a seed
    again = angelization(t, models, lam=lam, order=order, repair=repair, publish_history=history, seed=seed)
    for name in ("qt", "st"):
        assert again.tables[name].to_csv(index=False) == rel.tables[name].to_csv(index=False)


def test_qt_rows_are_shuffled_by_the_seed() -> None:
    frame, schema = random_one_to_many(1, 60)
    t = Table(frame, schema)
    a = angelization(t, [KAnonymity(3)], seed=1)
    b = angelization(t, [KAnonymity(3)], seed=2)
    assert a.tables["qt"].to_csv(index=False) != b.tables["qt"].to_csv(index=False)
    rows = lambda r: sorted(map(tuple, r.tables["qt"].to_numpy().tolist()))  # noqa: E731
    assert rows(a) == rows(b) and a.tables["st"].equals(b.tables["st"])
    # QT row order follows neither the persons nor the buckets
    who = np.asarray(a.notes["qt_person"])
    assert not (np.diff(who) > 0).all() and not (np.diff(a.tables["qt"]["bucket"].to_numpy()) >= 0).all()
    # seed None is seed 0
    assert angelization(t, [KAnonymity(3)]).tables["qt"].equals(angelization(t, [KAnonymity(3)], seed=0).tables["qt"])


def test_noise_manifest_points_at_the_fakes() -> None:
    frame, schema = random_one_to_many(7, 80)
    t = Table(frame, schema)
    rel = angelization(t, [KAnonymity(4)], lam=1.0, repair="noise", seed=3)
    man = rel.manifest
    assert man is not None and rel.notes["noise_records"] > 0
    assert list(man.columns) == ["table", "row", "bucket", "value"]
    q = man[man["table"] == "qt"]
    s = man[man["table"] == "st"]
    assert len(q) == len(s) == rel.notes["noise_records"]
    who = np.asarray(rel.notes["qt_person"])
    assert sorted(q["row"]) == np.flatnonzero(who < 0).tolist()
    qt, st_ = rel.tables["qt"], rel.tables["st"]
    assert (qt["bucket"].to_numpy()[q["row"]] == q["bucket"].to_numpy()).all()
    assert (st_["bucket"].to_numpy()[s["row"]] == s["bucket"].to_numpy()).all()
    assert (st_["disease"].to_numpy()[s["row"]] == s["value"].to_numpy()).all()
    assert Counter(zip(q["bucket"], q["value"], strict=True)) == Counter(zip(s["bucket"], s["value"], strict=True))
    # a fake is the first value of its category in domain order
    dom = t.domains["disease"]
    firsts = {dom.category[v]: dom.labels[v] for v in range(dom.size - 1, -1, -1)}
    assert set(q["value"]) <= set(firsts.values())
    # fakes never count toward k: every bucket keeps its k real persons
    assert Counter(qt["bucket"][who >= 0]).most_common()[-1][1] >= 4
    assert check(rel, t, [KAnonymity(4)]).ok


@pytest.mark.parametrize("repair", ["swap", "merge", "noise"])
@pytest.mark.parametrize("order", ["qi", "hilbert"])
def test_repairs_give_verified_releases_on_one_to_many_data(repair: str, order: str) -> None:
    t = one_to_many_table(1500)
    rel = angelization(t, [KAnonymity(4)], repair=repair, order=order, seed=5)
    assert rel.satisfied and rel.notes["persons"] == 1500
    assert (rel.notes["swaps"] > 0) == (repair == "swap")
    assert (rel.notes["noise_records"] > 0) == (repair == "noise")
    v = check(rel, t, [KAnonymity(4)])
    assert v.ok, v.summary()


def test_compiled_and_python_repair_agree() -> None:
    t = one_to_many_table(3000, seed=2)
    cat = t.domains["diagnosis"].category[t.sensitive_codes["diagnosis"]]
    persons, rep = representatives(t, cat)
    plan = tc.resolve_plan(t, [ThetaSensitivity("diagnosis", 4, 0.7, distinct=True)], lam=None, sensitive=None,
                           algorithm="x", allow_other=False)
    order = tc.unit_order(t, rep, persons, "qi")
    space = tc.ncp_space(t, rep)
    for mode in ("swap", "merge"):
        a = tc.repair(order, 4, cat[rep], persons, plan, mode, space, compiled=True)
        b = tc.repair(order, 4, cat[rep], persons, plan, mode, space, compiled=False)
        assert (a.perm == b.perm).all() and (a.lo == b.lo).all() and (a.hi == b.hi).all()
        assert (a.swaps, a.merges, a.ok) == (b.swaps, b.merges, b.ok) and a.ok
        for lo, hi in zip(a.lo, a.hi, strict=True):
            assert plan.passes(cat[rep][a.perm[lo:hi]]) and hi - lo >= 4
    hist = tc.category_histogram(cat[rep], np.arange(len(rep)) // 4, len(rep) // 4, 5)
    fa, oka = tc.noise(hist, plan, np.ones(5, dtype=bool), compiled=True)
    fb, okb = tc.noise(hist, plan, np.ones(5, dtype=bool), compiled=False)
    assert oka and okb and (fa == fb).all()


# ---------------------------------------------------------------------------------------- failures
def test_one_category_is_unsatisfied() -> None:
    frame, schema = random_one_to_many(3, 20, diseases=["Cancer", "HIV"])  # every value Severe
    t = Table(frame, schema)
    for repair in ("swap", "merge"):
        reason = SPEC.precheck(t, [KAnonymity(4)], {"repair": repair})
        assert reason is not None and "cannot be reached" in reason and "20 persons" in reason
        rel = angelization(t, [KAnonymity(4)], repair=repair)
        assert not rel.satisfied and rel.tables == {} and rel.n_released == 0
        assert "cannot be reached" in rel.message and SPEC.explain(t, [KAnonymity(4)], rel, {}) in rel.message
    # fakes take the categories that have a value: here only Severe, so noise cannot help either
    reason = SPEC.precheck(t, [KAnonymity(4)], {"repair": "noise"})
    assert reason is not None and "even with fake records" in reason
    rel = angelization(t, [KAnonymity(4)], repair="noise")
    assert not rel.satisfied and rel.tables == {} and "even with fake records" in rel.message
    # with a value of a low category somewhere, noise lifts every bucket while swap and merge cannot
    frame.loc[0, "disease"] = "Cold"
    t = Table(frame, schema)
    assert SPEC.precheck(t, [KAnonymity(4)], {"repair": "noise"}) is None
    assert SPEC.precheck(t, [KAnonymity(4)], {"repair": "merge"}) is not None
    rel = angelization(t, [KAnonymity(4)], repair="noise")
    assert rel.satisfied and check(rel, t, [KAnonymity(4)]).ok
    assert set(rel.manifest["value"]) == {"Cold"}


def test_fewer_persons_than_k() -> None:
    frame, schema = random_one_to_many(0, 3)
    t = Table(frame, schema)
    assert "at least k = 4 persons" in SPEC.precheck(t, [KAnonymity(4)], {})
    with pytest.raises(InputError, match="at least k = 4 persons, the table has 3"):
        angelization(t, [KAnonymity(4)])


def test_bad_models_and_options() -> None:
    frame, schema = random_one_to_many(0, 12)
    t = Table(frame, schema)
    with pytest.raises(InputError, match="enforces k-anonymity and θ-sensitivity only") as err:
        angelization(t, [KAnonymity(2), DistinctLDiversity("disease", 2)])
    assert err.value.key == "privacy"
    with pytest.raises(InputError, match="needs k"):
        angelization(t, [])
    with pytest.raises(InputError) as err:
        angelization(t, [ThetaSensitivity("disease", 3, 0.5)], lam=0.7)
    assert err.value.key == "algorithm.lambda"
    # the same λ twice is fine; the config key is `lambda`
    assert angelization(t, [ThetaSensitivity("disease", 3, 0.5)], **{"lambda": 0.5}).params["lambda"] == 0.5
    with pytest.raises(InputError) as err:
        angelization(t, [KAnonymity(2)], **{"lambda": 0})
    assert err.value.key == "lambda"
    with pytest.raises(InputError, match="not an option"):
        angelization(t, [KAnonymity(2)], l=3)
    # no categories
    frame, schema = random_one_to_many(0, 12)
    schema.attributes["disease"].categories = None
    schema.attributes["disease"].category_order = None
    with pytest.raises(InputError) as err:
        angelization(Table(frame, schema), [KAnonymity(2)])
    assert err.value.key == "categories" and err.value.column == "disease"


def test_declaration_and_implied_models() -> None:
    assert SPEC.persons and SPEC.randomized and SPEC.tables == ("qt", "st") and "person" in SPEC.needs
    assert SPEC.display == "(θ*,k)-utility angelization"
    assert {o["name"] for o in SPEC.option_docs()} == {"lambda", "order", "repair", "publish_history", "sensitive",
                                                    "insensitive"}
    assert SPEC.validate({"lambda": 0.6}) == {"lam": 0.6}
    frame, schema = random_one_to_many(0, 12)
    t = Table(frame, schema)
    assert SPEC.implies(t, [KAnonymity(3)], {}) == [KAnonymity(3), ThetaSensitivity("disease", 3, 0.5)]
    assert SPEC.implies(t, [KAnonymity(3), KAnonymity(5)], {"lam": 0.8}) == [
        KAnonymity(3), KAnonymity(5), ThetaSensitivity("disease", 5, 0.8)]
    given_models = [KAnonymity(5), ThetaSensitivity("disease", 3, 0.9)]
    assert SPEC.implies(t, given_models, {}) == given_models
    rel = angelization(t, given_models)  # k = 5 buckets, θ of the model's k = 3 and λ = 0.9
    assert rel.params["k"] == 5 and rel.params["lambda"] == 0.9 and rel.params["theta"] == pytest.approx(0.6)


def test_merge_cascades() -> None:
    """A long run of one category in QI order makes every bucket fail and merge into the next:
    each step costs O(C²), not a swap search over the growing bucket."""
    rng = np.random.default_rng(0)
    n = 20_000
    age = np.sort(rng.integers(20, 90, n))
    disease = np.where(np.arange(n) < n // 2, "Cancer", rng.choice(list(DISEASES), n)).astype(object)
    frame = pd.DataFrame({"person": [f"p{i}" for i in range(n)], "age": age.astype(str), "disease": disease})
    schema = Schema.of(person="person", quasi=["age"], sensitive=["disease"], types={"age": "numeric"})
    t = Table(frame, with_categories(schema, "disease", DISEASES))
    rel = angelization(t, [KAnonymity(4)])
    assert rel.satisfied and rel.notes["merges"] > 1000


def test_20k_persons() -> None:
    t = one_to_many_table(20_000)
    rel = angelization(t, [KAnonymity(4)], seed=0)
    assert rel.satisfied and rel.notes["persons"] == 20_000


# ---------------------------------------------------------------------------------------- the verifier
@pytest.fixture(scope="module")
def good() -> tuple[Table, Release]:
    frame, schema = random_one_to_many(11, 40)
    t = Table(frame, schema)
    rel = angelization(t, [KAnonymity(3)], lam=0.5, seed=4)
    assert rel.satisfied and rel.notes["buckets"] >= 3
    return t, rel


def _verify(t: Table, rel: Release, qt: pd.DataFrame | None = None, st_: pd.DataFrame | None = None, *,
            persons: object = None, source: pd.DataFrame | None = None, manifest: pd.DataFrame | None = None,
            history: bool = True, link: bool = True, models: list | None = None):  # type: ignore[no-untyped-def]
    src, who = private_link(rel)
    kwargs = {"source": src if source is None else source, "persons": who if persons is None else persons}
    return verify_buckets(rel.tables["qt"] if qt is None else qt, rel.tables["st"] if st_ is None else st_,
                          t.schema, models or SPEC.implies(t, [KAnonymity(3)], {"lam": 0.5}), sensitive="disease",
                          history=history, manifest=manifest, **(kwargs if link else {}))


def test_verifier_accepts_the_good_release(good: tuple[Table, Release]) -> None:
    t, rel = good
    v = _verify(t, rel)
    assert v.ok, v.summary()
    assert v.classes == rel.notes["buckets"] and v.released == 40 and v.suppressed == 0
    assert all(isinstance(r, BucketResult) for r in v.results)
    # without the link and with history, θ cannot be judged: it fails closed, with the reason
    v = _verify(t, rel, link=False)
    assert not v.ok and failed(v, "θ-sensitive") and "pass source= and persons=" in v.summary()
    assert not failed(v, "structure") and not failed(v, "3-anonymity")


def test_verifier_detects_tampering(good: tuple[Table, Release]) -> None:
    t, rel = good
    qt, st_ = rel.tables["qt"], rel.tables["st"]
    _src, who = private_link(rel)
    # the person column left in the QT
    v = _verify(t, rel, qt.assign(person=who))
    assert failed(v, "structure: no identifier") and failed(v, "structure: QT columns")
    # an extra column in the ST
    assert failed(_verify(t, rel, st_=st_.assign(note="x")), "structure: ST columns")
    # a QT row dropped (its person disappears from the QT but not from the ST)
    v = _verify(t, rel, qt.drop(index=0).reset_index(drop=True), persons=np.delete(who, 0))
    assert failed(v, "link: ST =")
    # a person moved to another bucket
    moved = qt.copy()
    other = int(moved["bucket"].max()) if moved.loc[0, "bucket"] != moved["bucket"].max() else 1
    moved.loc[0, "bucket"] = other
    v = _verify(t, rel, moved)
    assert failed(v, "link: ST =") and not v.ok
    # a count changed
    changed = st_.copy()
    changed.loc[0, "count"] += 1
    assert failed(_verify(t, rel, st_=changed), "link: ST =")
    bad_count = st_.copy()
    bad_count["count"] = bad_count["count"].astype(object)
    bad_count.loc[0, "count"] = "1.5"
    assert failed(_verify(t, rel, st_=bad_count), "structure: ST counts")
    # a bucket only in the ST
    ghost = pd.concat([st_, pd.DataFrame({"bucket": [999], "disease": ["Flu"], "count": [1]})], ignore_index=True)
    assert failed(_verify(t, rel, st_=ghost), "structure: QT and ST hold the same buckets")
    # an untruthful label
    lie = qt.copy()
    lie["age"] = "[0-1]"
    assert failed(_verify(t, rel, lie), "link: QT labels")
    # one person in two rows
    twice = who.copy()
    twice[1] = twice[0]
    assert failed(_verify(t, rel, persons=twice), "link: every released person")
    # a person the source does not know
    stranger = who.copy()
    stranger[0] = 10**6
    assert failed(_verify(t, rel, persons=stranger), "link: every released person")


def test_verifier_detects_broken_guarantees(good: tuple[Table, Release]) -> None:
    t, rel = good
    qt, st_ = rel.tables["qt"], rel.tables["st"]
    # k: two buckets merged into one label set is fine, but a bucket split in two is not
    split = qt.copy()
    first_bucket = split["bucket"].iloc[0]
    rows = np.flatnonzero(split["bucket"] == first_bucket)
    split.loc[rows[0], "bucket"] = 1000
    v = _verify(t, rel, split, link=False)
    assert failed(v, "3-anonymity (persons per bucket)")
    # θ without history, from the tables alone: every bucket's ST replaced by one category
    flat = angelization(t, [KAnonymity(3)], lam=0.5, seed=4, publish_history=False)
    assert _verify(t, flat, history=False, link=False).ok
    same = flat.tables["st"].copy()
    same["disease"] = "Cancer"
    same = same.groupby("bucket", as_index=False)["count"].sum().assign(disease="Cancer")[["bucket", "disease",
                                                                                             "count"]]
    v = _verify(t, flat, st_=same, history=False, link=False)
    assert failed(v, "θ-sensitive") and not failed(v, "structure")
    # without history the ST must count one value per QT row
    assert failed(_verify(t, flat, st_=st_, history=False, link=False), "structure: every bucket's ST counts one")
    # θ with the link: the release of a weaker λ judged against λ = 1
    strict = [KAnonymity(3), ThetaSensitivity("disease", 3, 1.0)]
    weak = angelization(t, [KAnonymity(3)], lam=0.3, seed=4)
    assert weak.notes["min_variance"] < ThetaSensitivity("disease", 3, 1.0).theta(5) <= rel.notes["min_variance"] + 1
    v = _verify(t, weak, models=strict)
    assert not any(r.model.startswith("link") and not r.passed for r in v.results)
    assert failed(v, "θ-sensitive") and not v.ok
    assert _verify(t, weak, models=[KAnonymity(3), ThetaSensitivity("disease", 3, 0.3)]).ok
    # an unknown model kind fails
    assert failed(_verify(t, rel, models=[DistinctLDiversity("disease", 2)]), "distinct")


def test_verifier_checks_the_manifest() -> None:
    frame, schema = random_one_to_many(7, 80)
    t = Table(frame, schema)
    rel = angelization(t, [KAnonymity(4)], lam=1.0, repair="noise", seed=3)
    man = rel.manifest
    assert man is not None
    assert _verify(t, rel, manifest=man, models=[KAnonymity(4)]).ok
    # a fake QT line pointing at a real person's row
    who = np.asarray(rel.notes["qt_person"])
    wrong = man.copy()
    q0 = wrong.index[wrong["table"] == "qt"][0]
    real_row = int(np.flatnonzero((who >= 0) & (rel.tables["qt"]["bucket"].to_numpy() == wrong.loc[q0, "bucket"]))[0])
    wrong.loc[q0, "row"] = real_row
    assert failed(_verify(t, rel, manifest=wrong, models=[KAnonymity(4)]), "link: the fake rows")
    # an ST line pointing at another value
    wrong = man.copy()
    s0 = wrong.index[wrong["table"] == "st"][0]
    wrong.loc[s0, "row"] = (int(wrong.loc[s0, "row"]) + 1) % len(rel.tables["st"])
    assert failed(_verify(t, rel, manifest=wrong, models=[KAnonymity(4)]), "manifest")
    # without the manifest and the link the fakes count toward k
    v = verify_buckets(rel.tables["qt"], rel.tables["st"], t.schema, [KAnonymity(4)], sensitive="disease")
    assert v.released == len(rel.tables["qt"])
    # the fakes hide nothing from the link: dropping the manifest still reconciles the ST (excess = fakes)
    src, who_ = private_link(rel)
    v = verify_buckets(rel.tables["qt"], rel.tables["st"], t.schema, SPEC.implies(t, [KAnonymity(4)], {"lam": 1.0}),
                       sensitive="disease", source=src, persons=who_)
    assert v.ok, v.summary()


def test_verifier_argument_errors(good: tuple[Table, Release]) -> None:
    t, rel = good
    src, who = private_link(rel)
    with pytest.raises(InputError, match="both source= and persons="):
        verify_buckets(rel.tables["qt"], rel.tables["st"], t.schema, [], sensitive="disease", source=src)
    with pytest.raises(InputError, match="one person per QT row"):
        verify_buckets(rel.tables["qt"], rel.tables["st"], t.schema, [], sensitive="disease", source=src,
                       persons=who[:-1])


@pytest.mark.parametrize(("label", "value", "covers"), [
    ("25", "25", True), ("25", "25.0", True), ("[25-31]", "29", True), ("[25-31]", "32", False),
    ("[-5--1]", "-3", True), ("{a,b}", "b", True), ("{a,b}", "c", False), ("*", "x", True), ("123*", "1234", True),
    ("129*", "1234", False), ("[1e-05-2]", "1", True),
])
def test_label_covers(label: str, value: str, covers: bool) -> None:
    h = H_ZIP if value.startswith("12") else None
    assert label_covers(label, value, h) is covers
    if h is not None:
        assert label_covers("*", value, h)


def test_persons_suppressed_up_front_and_one_to_one_data() -> None:
    frame, schema = random_one_to_many(5, 30, 2)
    frame.loc[frame["person"] == "pid-000", "age"] = ""
    t = Table(frame, schema, missing="suppress")
    rel = angelization(t, [KAnonymity(3)], seed=1)
    assert rel.satisfied and rel.notes["presuppressed_persons"] == 1 and rel.notes["persons"] == 29
    assert (rel.record_class[t.presuppressed] == -1).all() and len(rel.tables["qt"]) == 29
    v = check(rel, t, [KAnonymity(3)])
    assert v.ok and v.suppressed == 1, v.summary()
    # without a person column every record is its own person
    one = frame.drop(columns=["person"]).assign(age=lambda f: f["age"].replace("", "30"))
    schema1 = Schema.of(quasi=["age", "zip"], sensitive=["disease"], types={"age": "numeric"},
                        hierarchies={"zip": H_ZIP})
    t1 = Table(one, with_categories(schema1, "disease", DISEASES))
    rel = angelization(t1, [KAnonymity(3)], seed=1)
    assert rel.satisfied and rel.notes["persons"] == len(one) == len(rel.tables["qt"])
    assert rel.notes["history_values"] == 0 and check(rel, t1, [KAnonymity(3)]).ok


def test_verifier_detects_the_remaining_failures(good: tuple[Table, Release]) -> None:
    t, rel = good
    qt, st_ = rel.tables["qt"], rel.tables["st"]
    # a repeated (bucket, value) row in the ST
    doubled = pd.concat([st_, st_.iloc[[0]]], ignore_index=True)
    assert failed(_verify(t, rel, st_=doubled), "structure: ST counts")
    # with history, from the tables alone: a bucket whose ST counts fewer values than its QT rows
    thin = st_.copy()
    first = thin["bucket"].iloc[0]
    thin = thin[(thin["bucket"] != first) | (thin.index == thin.index[thin["bucket"] == first][0])]
    thin.loc[thin["bucket"] == first, "count"] = 1
    v = _verify(t, rel, st_=thin.reset_index(drop=True), link=False)
    assert failed(v, "structure: every bucket's ST counts at least one value per QT row")
    # a schema without the sensitive attribute's categories cannot judge θ
    bare = Schema({n: a for n, a in t.schema.attributes.items()})
    bare.attributes["disease"] = type(bare.attributes["disease"])("disease", "sensitive")
    v = verify_buckets(qt, st_, bare, SPEC.implies(t, [KAnonymity(3)], {}), sensitive="disease",
                       source=private_link(rel)[0], persons=private_link(rel)[1])
    assert failed(v, "θ-sensitive") and "categories" in v.summary()
    # a missing bucket column stops the judgement (every model fails)
    v = _verify(t, rel, qt.drop(columns=["bucket"]), link=False)
    assert failed(v, "structure: QT columns") and failed(v, "3-anonymity") and not v.ok


@pytest.mark.parametrize("repair", ["swap", "merge", "noise"])
def test_pipeline_verifies_the_published_tables(repair: str) -> None:
    from anonkit import anonymize

    frame, schema = random_one_to_many(3, 40)
    res = anonymize(frame, schema, [KAnonymity(3)], algorithm="angelization", seed=7, repair=repair,
                    **{"lambda": 0.8})
    assert res.verification.ok and list(res.release.tables) == ["qt", "st"]
    assert any(r.model.startswith("θ-sensitive 3-anonymity of disease (λ = 0.8)") for r in res.verification.results)
    assert any(r.model.startswith("link:") for r in res.verification.results)


def test_day_first_dates_are_verified_as_the_table_read_them() -> None:
    """A date QI written day first (``05/02/1990``, some day > 12 so the order is known) is read day first
    by the table and by the bucket verifier alike: the release verifies, and every published label covers
    the person's own date (before issue 23 the verifier read ``05/02/1990`` as 2 May and failed it)."""
    from anonkit import anonymize
    from anonkit.schema import Attribute, AttrType, Role

    frame, schema = random_one_to_many(3, 40)
    rng = np.random.default_rng(1)
    born = {p: f"{rng.integers(1, 29):02d}/{rng.integers(1, 13):02d}/19{rng.integers(50, 99)}"
            for p in frame["person"].unique()}
    born[frame["person"].iloc[0]] = "25/02/1970"  # a day above 12: day first is the only reading
    frame = frame.assign(age=frame["person"].map(born)).rename(columns={"age": "born"})
    attrs = {("born" if n == "age" else n): a for n, a in schema.attributes.items()}
    attrs["born"] = Attribute("born", Role.QUASI, AttrType.DATE)
    dated = type(schema)(attrs)
    res = anonymize(frame, dated, [KAnonymity(3)], algorithm="angelization", seed=7, **{"lambda": 0.8})
    assert res.verification.ok, res.verification.summary()
    assert any(r.model.startswith("link:") and r.passed for r in res.verification.results)
