"""anonymeter's attacks on generalized releases (anonkit.analytics.adversary): singling-out,
linkability and attribute inference, with known answers, controls and baselines."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonkit import Hierarchy, Schema, load_adult
from anonkit.analytics import inference_attack, linkability_attack, singling_out_attack
from anonkit.analytics.adversary import _control_at
from anonkit.analytics.outcome import AttackOutcome
from anonkit.errors import InputError
from anonkit.models import KAnonymity
from anonkit.pipeline import anonymize

H_AGE = Hierarchy([[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 40)], name="age")
H_ZIP = Hierarchy([[z, z[:3] + "*", "*"] for z in ["1234", "1235", "1299", "1300"]], name="zip")
SCHEMA = Schema.of(quasi=["age", "zip"], sensitive=["s"], hierarchies={"age": H_AGE, "zip": H_ZIP},
                   types={"age": "numeric"})

#: two classes of five: (20-29, 123*) with one cancer among four flu, (30-39, *) with three cold and two flu
RELEASE = pd.DataFrame({
    "age": ["20-29"] * 5 + ["30-39"] * 5,
    "zip": ["123*"] * 5 + ["*"] * 5,
    "s": ["flu", "flu", "flu", "flu", "cancer", "cold", "cold", "cold", "flu", "flu"],
})
ORIGINAL = pd.DataFrame({
    "age": ["21", "22", "25", "27", "29", "30", "33", "35", "38", "39"],
    "zip": ["1234", "1235", "1234", "1235", "1234", "1299", "1300", "1234", "1299", "1300"],
    "s": RELEASE["s"].tolist(),
})


# ------------------------------------------------------------------------------------------------ singling-out
def test_singling_out_finds_the_one_unique_record() -> None:
    out = singling_out_attack(RELEASE, ORIGINAL, SCHEMA, n_attacks=100)
    assert isinstance(out, AttackOutcome) and out.name == "singling-out"
    assert out.targets == 10  # every released row, fewer than n_attacks
    assert out.details["issued"] == 1  # only the cancer row shows cells no other row shows
    assert out.successes == 1
    # without a control the risk is measured against the baseline guesser (2 of 10 random predicates
    # single out a record too): no excess
    assert out.control is None and out.reference == "baseline" and out.baseline == pytest.approx(0.2)
    assert out.risk == 0.0
    # controls: only issued predicates count; (30-39, *, cold) singles out the one cold control but the
    # attacker never issues it (three released rows show it)
    control = pd.DataFrame({"age": ["35", "25", "22"], "zip": ["1300", "1234", "1235"], "s": ["cold", "flu", "flu"]})
    out = singling_out_attack(RELEASE, ORIGINAL, SCHEMA, n_attacks=100, control=control)
    assert (out.control_successes, out.control_targets, out.details["control_raw"]) == (0, 10, 0)
    assert out.risk == pytest.approx(0.1)


def test_a_suppressed_lookalike_defeats_the_predicate() -> None:
    # a record of the original table that is not in the release satisfies the cancer predicate too
    original = pd.concat([ORIGINAL, pd.DataFrame({"age": ["24"], "zip": ["1235"], "s": ["cancer"]})],
                         ignore_index=True)
    out = singling_out_attack(RELEASE, original, SCHEMA, n_attacks=100)
    assert out.details["issued"] == 1 and out.successes == 0


def test_singling_out_baseline_and_control_with_known_answers() -> None:
    # exact values only: every published value is unique, so every predicate — the attacker's and
    # the random ones — singles out one original record
    schema = Schema.of(quasi=[], insensitive=["code"])
    release = pd.DataFrame({"code": ["a", "b", "c", "d"]})
    control = pd.DataFrame({"code": ["a", "a", "b", "e"]})  # only 'b' singles out one control record
    out = singling_out_attack(release, release, schema, control=control)
    assert (out.successes, out.targets, out.baseline_successes, out.baseline_targets) == (4, 4, 4, 4)
    assert (out.control_successes, out.control_targets) == (1, 4)
    assert out.details["control_correction"] == 1.0
    assert out.risk == pytest.approx(1.0)  # (1 − ¼) / (1 − ¼)


def test_singling_out_on_column_subsets() -> None:
    full = singling_out_attack(RELEASE, ORIGINAL, SCHEMA, n_attacks=100)
    assert singling_out_attack(RELEASE, ORIGINAL, SCHEMA, n_attacks=100, n_cols=3) == full
    # one column at a time: only 's = cancer' singles out, and a row drawing 's' is the only way to it
    one = singling_out_attack(RELEASE, ORIGINAL, SCHEMA, n_attacks=100, n_cols=1, seed=5)
    assert one.successes <= 1 and one.details["n_cols"] == 1
    hits = {singling_out_attack(RELEASE, ORIGINAL, SCHEMA, n_attacks=100, n_cols=1, seed=s).successes
            for s in range(12)}
    assert hits == {0, 1}


def test_control_size_correction() -> None:
    # larger control (m = 4) than original (n = 2): hypergeometric P(exactly one of the matches in 2 draws)
    expected, factor = _control_at(np.array([1, 2, 0]), m=4, n=2)
    assert expected == pytest.approx(3 / 6 + 4 / 6)
    assert factor == pytest.approx(expected / 1)
    assert _control_at(np.array([1, 1, 3]), m=5, n=5) == (2.0, 1.0)
    # smaller control: extrapolated with anonymeter's model; a predicate matching one record in a
    # few thousand rarely stays unique in a population three times as large
    counts = np.r_[np.ones(40, dtype=np.int64), np.full(20, 2)]
    expected, factor = _control_at(counts, m=2000, n=6000)
    assert 0 < factor < 1 and expected == pytest.approx(40 * factor)


# ------------------------------------------------------------------------------------------------ inference
def test_inference_reads_a_homogeneous_class() -> None:
    release = RELEASE.assign(s=["flu"] * 5 + ["cold", "cold", "cold", "flu", "flu"])
    original = ORIGINAL.assign(s=release["s"])
    out = inference_attack(release, original, SCHEMA, n_attacks=100)
    assert out.name == "inference" and out.details["secret"] == "s"
    # the homogeneous class gives away all five; the other class's guess 'cold' is right three times
    assert (out.successes, out.targets) == (8, 10)
    assert out.baseline_successes == 7  # always 'flu', the most frequent published value
    # controls: (22, 1234, flu) → flu ✓, (35, 1300, flu) → cold ✗, (45, 1234, flu) matches no
    # row → the baseline guess flu ✓, (31, 1299, cold) → cold ✓
    control = pd.DataFrame({"age": ["22", "35", "45", "31"], "zip": ["1234", "1300", "1234", "1299"],
                            "s": ["flu", "flu", "flu", "cold"]})
    out = inference_attack(release, original, SCHEMA, control=control, n_attacks=100)
    assert (out.control_successes, out.control_targets) == (3, 4)
    assert out.details["control_unmatched"] == 1
    assert out.risk == pytest.approx((0.8 - 0.75) / 0.25)


def test_inference_of_a_numeric_secret_within_a_tolerance() -> None:
    schema = Schema.of(quasi=["age"], sensitive=["salary"], hierarchies={"age": H_AGE},
                       types={"age": "numeric", "salary": "numeric"})
    release = pd.DataFrame({"age": ["*"] * 4, "salary": ["100", "102", "102", "300"]})
    original = pd.DataFrame({"age": ["20", "21", "22", "23"], "salary": ["100", "102", "102.0", "300"]})
    out = inference_attack(release, original, schema)
    assert out.successes == 3 and out.details["numeric"] and out.details["tolerance"] == 0.05  # 102 for 100
    assert inference_attack(release, original, schema, tolerance=0.01).successes == 2


def test_inference_uses_only_the_columns_the_attacker_knows() -> None:
    release = RELEASE.assign(s=["flu"] * 5 + ["cold"] * 5)
    original = ORIGINAL.assign(s=release["s"])
    assert inference_attack(release, original, SCHEMA).successes == 10
    assert inference_attack(release, original, SCHEMA, aux=["age"]).successes == 10  # the ages tell the classes
    # knowing the zip only: '*' covers every zip, so a 123x record is consistent with all ten rows
    # (five flu, five cold: a tie broken at random); a 1299 or 1300 record only with the cold class
    zip_only = [inference_attack(release, original, SCHEMA, aux=["zip"], seed=s) for s in range(20)]
    assert zip_only[0].details["aux"] == ["zip"]
    wins = [o.successes for o in zip_only]
    assert min(wins) >= 4 and max(wins) <= 10 and len(set(wins)) > 1


# ------------------------------------------------------------------------------------------------ linkability
def test_linkability_probability_by_hand() -> None:
    schema = Schema.of(quasi=["a", "b"], sensitive=["s"])
    release = pd.DataFrame({"a": ["x", "x", "x", "x", "y", "z"], "b": ["u", "u", "v", "v", "v", "w"],
                            "s": list("pqpqpq")})
    original = release.copy()
    out = linkability_attack(release, original, schema, aux=(["a"], ["b"]))
    # (x,u): A → 4 rows, 2 in its class; B → its class only: ½.  (x,v): ½ · ⅔.  (y,v): 1 · ⅓.  (z,w): 1
    assert out.details["expected"] == pytest.approx((0.5 * 2 + (1 / 3) * 3 + 1) / 6)
    assert out.targets == 6 and 0 <= out.successes <= 6
    # the default split puts the sensitive value on side B, which narrows B to the rows showing it:
    # (x,u,p): ½ · 1 · … as before; (x,v,p): B → (x,v,p) and (y,v,p): ½ · ½; (y,v,p): 1 · ½
    default = linkability_attack(release, original, schema)
    assert default.details["aux"] == [["a"], ["b", "s"]]
    assert default.details["expected"] == pytest.approx((0.5 + 0.5 + 0.25 + 0.5 + 0.5 + 1) / 6)


def test_a_certain_link_and_no_link() -> None:
    schema = Schema.of(quasi=["a", "b"], sensitive=["s"])
    release = pd.DataFrame({"a": ["x", "y", "z"], "b": ["u", "v", "w"], "s": ["p", "p", "q"]})
    out = linkability_attack(release, release, schema)
    assert out.details["expected"] == 1.0 and out.successes == 3  # every value is its own class
    strangers = pd.DataFrame({"a": ["x", "q"], "b": ["v", "u"], "s": ["p", "p"]})  # parts of different classes
    out = linkability_attack(release, release, schema, control=strangers)
    assert (out.control_successes, out.control_targets) == (0, 2) and out.details["control_expected"] == 0.0
    assert out.risk == 1.0


# ------------------------------------------------------------------------------------------------ controls
def _population(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(20, 40, n).astype(str),
        "zip": rng.choice(["1234", "1235", "1299", "1300"], n),
        "sex": rng.choice(["m", "f"], n),
        "disease": rng.choice(["flu", "cold", "ulcer", "cancer", "hiv", "asthma"], n,
                              p=[0.4, 0.25, 0.15, 0.1, 0.05, 0.05]),
    })


POPULATION_SCHEMA = Schema.of(quasi=["age", "zip", "sex"], sensitive=["disease"],
                              hierarchies={"age": H_AGE, "zip": H_ZIP}, types={"age": "numeric"})


@pytest.fixture(scope="module")
def three_samples():
    """Three samples of one population; a Mondrian 5-anonymous release of the first."""
    released, others, control = _population(3000, 1), _population(3000, 2), _population(3000, 3)
    result = anonymize(released, POPULATION_SCHEMA, [KAnonymity(5)], algorithm="mondrian")
    return result.frame, result.release.table.schema, released, others, control


@pytest.mark.parametrize("attack", [singling_out_attack, linkability_attack, inference_attack])
def test_control_gives_no_risk_when_the_release_is_independent_of_the_targets(three_samples, attack) -> None:
    published, schema, _, others, control = three_samples
    out = attack(published, others, schema, control=control)
    assert out.control is not None and out.targets == out.control_targets == 2000
    assert out.risk_ci[0] == 0.0 and out.risk < 0.05


def test_members_are_singled_out_beyond_the_control(three_samples) -> None:
    published, schema, released, others, control = three_samples
    members = singling_out_attack(published, released, schema, control=control)
    assert members.risk_ci[0] > 0  # the release's own records are singled out more than the population
    outsiders = singling_out_attack(published, others, schema, control=control)
    assert members.successes > 2 * outsiders.successes


def test_attacks_follow_the_seed(three_samples) -> None:
    published, schema, released, _, control = three_samples
    for attack in (singling_out_attack, linkability_attack, inference_attack):
        one = attack(published, released, schema, control=control, n_attacks=300, seed=4)
        assert one == attack(published, released, schema, control=control, n_attacks=300, seed=4)
        assert one.targets == 300
        assert one.to_dict()["risk_ci"] is not None


# ------------------------------------------------------------------------------------------------ refusals
def test_bad_arguments_are_named() -> None:
    with pytest.raises(InputError) as err:
        singling_out_attack(RELEASE, ORIGINAL, SCHEMA, n_attacks=0)
    assert err.value.key == "n_attacks"
    with pytest.raises(InputError) as err:
        singling_out_attack(RELEASE, ORIGINAL, SCHEMA, n_cols=4)
    assert err.value.key == "n_cols"
    with pytest.raises(InputError) as err:
        inference_attack(RELEASE, ORIGINAL, SCHEMA, secret="age")
    assert err.value.column == "age"
    with pytest.raises(InputError) as err:
        inference_attack(RELEASE, ORIGINAL, SCHEMA, aux=["s"])
    assert err.value.key == "aux"
    with pytest.raises(InputError) as err:
        linkability_attack(RELEASE, ORIGINAL, SCHEMA, aux=(["age"], ["age", "zip"]))
    assert (err.value.key, err.value.column) == ("aux", "age")
    with pytest.raises(InputError) as err:
        linkability_attack(RELEASE, ORIGINAL, SCHEMA, control=ORIGINAL.drop(columns=["zip"]))
    assert err.value.column == "zip"
    with pytest.raises(InputError) as err:
        inference_attack(RELEASE.assign(age=["20-29"] * 9 + ["old"]), ORIGINAL, SCHEMA)
    assert (err.value.column, err.value.value, err.value.row) == ("age", "old", 10)
    with pytest.raises(InputError) as err:
        singling_out_attack(RELEASE, ORIGINAL, SCHEMA, seed=-1)
    assert err.value.key == "seed"


# ------------------------------------------------------------------------------------------------ Adult
@pytest.mark.slow
def test_the_three_attacks_on_adult() -> None:
    """The three attacks on Adult (their speed is benchmarks/bench_speed_claims.py's)."""
    frame, hierarchies = load_adult()
    qi = [c for c in frame.columns if c != "salary-class"]
    schema = Schema.of(quasi=qi, sensitive=["salary-class"], hierarchies={q: hierarchies[q] for q in qi})
    released, control = frame.iloc[:20000].reset_index(drop=True), frame.iloc[20000:].reset_index(drop=True)
    result = anonymize(released, schema, [KAnonymity(5)])
    outs = [attack(result.frame, released, result.release.table.schema, control=control)
            for attack in (singling_out_attack, linkability_attack, inference_attack)]
    assert [o.targets for o in outs] == [2000, 2000, 2000]
