"""θ-sensitive k-anonymity (spec §1.5) and the record-level baseline of paper D (spec §4.6)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit import InputError, Schema, Table
from anonkit.algorithms.bucket import theta_cut as tc
from anonkit.algorithms.bucket.angelization import angelization
from anonkit.algorithms.cluster.theta_sensitive import theta_sensitive
from anonkit.datasets.one_to_many import CATEGORY_ORDER, ONE_TO_MANY_CATEGORIES, QI_COLUMNS, make_one_to_many
from anonkit.models import DistinctLDiversity, KAnonymity, ThetaSensitivity
from anonkit.models.theta import full_variance
from anonkit.stats import ClassStats, build_domain
from anonkit.verifier import verify

SPEC = theta_sensitive.spec  # type: ignore[attr-defined]
#: five values, one per category (code = position)
LEVELS = ["a0", "a1", "a2", "a3", "a4"]
CATEGORIES = {v: CATEGORY_ORDER[i] for i, v in enumerate(LEVELS)}


def codes_table(codes: list[int], *, ages: list[int] | None = None) -> Table:
    """One record per code: an age (numeric QI), a zip and the value of that category."""
    n = len(codes)
    frame = pd.DataFrame({
        "age": [str(a) for a in (ages or list(range(20, 20 + n)))],
        "zip": ["1234"] * n,
        "s": [LEVELS[c] for c in codes],
    })
    schema = Schema.of(quasi=["age", "zip"], sensitive=["s"], types={"age": "numeric"})
    schema.attributes["s"].categories = dict(CATEGORIES)
    schema.attributes["s"].category_order = CATEGORY_ORDER
    return Table(frame, schema)


def class_stats_of(codes: list[int]) -> ClassStats:
    domain, enc = build_domain("s", np.array([LEVELS[c] for c in codes], dtype=object), categories=CATEGORIES,
                               category_order=CATEGORY_ORDER)
    hist = np.bincount(enc, minlength=domain.size)[None, :].astype(float)
    return ClassStats(np.array([float(len(codes))]), {"s": hist}, {"s": domain})


# ---------------------------------------------------------------------------------------- §1.5
@pytest.mark.parametrize(("codes", "variance", "passes"), [
    ([1, 2, 3, 4], 1.25, True),
    ([1, 1, 2, 2], 0.25, False),
    ([1, 2, 2, 3], 0.5, False),
    ([1, 1, 4, 4], 2.25, True),
    ([1, 1, 3, 3], 1.0, True),  # exactly θ = 1.0 passes ("≥", spec §1.5)
])
def test_spec_examples(codes: list[int], variance: float, passes: bool) -> None:
    model = ThetaSensitivity("s", 4, 0.8)  # θ = 0.8 · 1.25 = 1.0
    assert model.theta(5) == pytest.approx(1.0) and full_variance(4, 5) == 1.25
    stats = class_stats_of(codes)
    assert model.variance(stats)[0] == pytest.approx(variance)
    assert bool(model.passes(stats)[0]) is passes
    # the shared core judges the same way
    plan = tc.resolve_plan(codes_table(codes), [model], lam=None, sensitive=None, algorithm="x", allow_other=False)
    assert plan.theta == model.theta(5) and plan.passes(np.array(codes)) is passes
    # and so does the algorithm on a class of exactly these four records
    rel = theta_sensitive(codes_table(codes), [model])
    assert rel.satisfied is passes
    if passes:
        assert rel.n_classes == 1 and rel.notes["swaps"] == rel.notes["merges"] == 0
    else:
        assert "cannot be reached" in rel.message and rel.n_released == 0


def test_equality_at_a_theta_that_is_not_a_round_number() -> None:
    # λ = 0.4, k = 4: θ = 0.5 = var{1,2,2,3}
    model = ThetaSensitivity("s", 4, 0.4)
    assert bool(model.passes(class_stats_of([1, 2, 2, 3]))[0])
    assert theta_sensitive(codes_table([1, 2, 2, 3]), [model]).satisfied


# ---------------------------------------------------------------------------------------- the baseline
def random_records(seed: int, n: int) -> Table:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "name": [f"n{i}" for i in range(n)],
        "age": rng.integers(20, 60, n).astype(str),
        "zip": rng.choice(["1234", "1235", "1299"], n),
        "s": rng.choice(LEVELS, n, p=[0.1, 0.2, 0.2, 0.3, 0.2]),
    })
    schema = Schema.of(identifier=["name"], quasi=["age", "zip"], sensitive=["s"], types={"age": "numeric"})
    schema.attributes["s"].categories = dict(CATEGORIES)
    schema.attributes["s"].category_order = CATEGORY_ORDER
    return Table(frame, schema)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(4, 80), k=st.integers(2, 5), lam=st.sampled_from([0.3, 0.5, 0.9]),
       order=st.sampled_from(["qi", "hilbert"]), repair=st.sampled_from(["swap", "merge"]), distinct=st.booleans(),
       with_l=st.booleans())
def test_baseline_releases_verify(seed: int, n: int, k: int, lam: float, order: str, repair: str, distinct: bool,
                                  with_l: bool) -> None:
    t = random_records(seed, n)
    models = [KAnonymity(k), ThetaSensitivity("s", k, lam, distinct)]
    if with_l:
        models.append(DistinctLDiversity("s", 2))
    opts = {"order": order, "repair": repair, "max_suppression": 0.5}
    reason = SPEC.precheck(t, models, opts)
    if n < k:
        assert reason is not None
        return
    rel = theta_sensitive(t, models, **opts)
    if not rel.satisfied:
        assert reason is not None or with_l  # θ unreachable, or l-diversity suppressed too much
        return
    assert reason is None
    frame = rel.to_frame()
    v = verify(frame, t.schema, SPEC.implies(t, models, opts), reference={"s": t.frame["s"]})
    assert v.ok, v.summary()
    # classes of ≥ k records whose category variance reaches θ
    assert rel.class_sizes().min() >= k
    assert rel.notes["reconstructed"].startswith("reconstruction")


def test_implied_model_and_options() -> None:
    t = random_records(0, 40)
    assert SPEC.reconstructed and not SPEC.persons and SPEC.display == "θ-sensitive k-anonymity"
    assert SPEC.implies(t, [KAnonymity(4)], {"lam": 0.6}) == [KAnonymity(4), ThetaSensitivity("s", 4, 0.6)]
    rel = theta_sensitive(t, [KAnonymity(4)], **{"lambda": 0.6})
    assert rel.satisfied and rel.params["theta"] == pytest.approx(0.75)
    assert verify(rel.to_frame(), t.schema, [KAnonymity(4), ThetaSensitivity("s", 4, 0.6)]).ok
    with pytest.raises(InputError, match="'repair'"):
        theta_sensitive(t, [KAnonymity(4)], repair="noise")  # no noise repair in the baseline
    with pytest.raises(InputError) as err:
        theta_sensitive(t, [ThetaSensitivity("s", 4, 0.5)], lam=0.6)
    assert err.value.key == "algorithm.lambda"
    with pytest.raises(InputError, match="at least k = 50 records"):
        theta_sensitive(t, [KAnonymity(50)])


def one_to_many(persons: int, role: str) -> Table:
    frame = make_one_to_many(persons, seed=1)
    roles = {"identifier": ["person"]} if role == "identifier" else {}
    schema = Schema.of(quasi=list(QI_COLUMNS), sensitive=["diagnosis"], types={"age": "numeric"},
                       person="person" if role == "person" else None, **roles)
    schema.attributes["diagnosis"].categories = dict(ONE_TO_MANY_CATEGORIES)
    schema.attributes["diagnosis"].category_order = CATEGORY_ORDER
    return Table(frame, schema)


def test_refuses_a_person_column() -> None:
    with pytest.raises(InputError, match="counts records, not persons") as err:
        theta_sensitive(one_to_many(50, "person"), [KAnonymity(4)])
    assert err.value.column == "person"


def test_record_intersection_weakness_on_one_to_many_data() -> None:
    """Run record by record (the person column an identifier), one person's records land in several
    classes — and intersecting those classes' sensitive values narrows the person down (spec §2.7);
    angelization keeps every person in one bucket."""
    persons = make_one_to_many(2000, seed=1)["person"].to_numpy()
    t = one_to_many(2000, "identifier")
    rel = theta_sensitive(t, [KAnonymity(4)])
    assert rel.satisfied
    assert verify(rel.to_frame(), t.schema, SPEC.implies(t, [KAnonymity(4)], {})).ok
    rc = pd.Series(rel.record_class)
    spread = rc.groupby(persons).nunique()
    several = pd.Series(persons).value_counts()
    multi = several.index[several >= 2]
    split = spread[multi]
    assert (split >= 2).sum() > 0.2 * len(multi), (split >= 2).mean()
    # the record-intersection attack: the values common to all of a split person's classes
    values = pd.Series(t.frame["diagnosis"].to_numpy())
    class_values = values.groupby(rc).agg(set)
    breached = 0
    for p in split.index[split >= 2]:
        common = set.intersection(*(class_values[c] for c in rc[persons == p].unique()))
        breached += len(common) < 2
    assert breached > 0
    # angelization: one bucket per person, no intersection to take
    t1 = one_to_many(2000, "person")
    ang = angelization(t1, [KAnonymity(4)], seed=0)
    assert (pd.Series(ang.record_class).groupby(t1.person).nunique() == 1).all()


def test_pipeline_runs_the_baseline() -> None:
    from anonkit import anonymize

    t = random_records(3, 60)
    frame = pd.concat([pd.Series([f"n{i}" for i in range(60)], name="name"), t.frame], axis=1)
    res = anonymize(frame, t.schema, [KAnonymity(4)], algorithm="theta-sensitive", seed=1, **{"lambda": 0.6})
    assert res.verification.ok
    assert [r.model for r in res.verification.results] == ["4-anonymity", "θ-sensitive 4-anonymity of s (λ = 0.6)"]
