"""anonymeter's attacks in their nearest-neighbour form (issue 29, item 3): the Gower distance, the three
attacks on a release equal to the original (risk high) and on an independent table (risk at the
baseline), the audit's choice of form from the release's declaration, determinism, the synthetic-data
utility measures, and anonymeter 1.1.0 as an oracle (``-m oracle``; needs ``pip install --no-deps
anonymeter==1.1.0 polars``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from anonkit.algorithms.registry import algorithms
from anonkit.analytics._gower import column_kinds, encode, gower, nearest
from anonkit.analytics.nearest import FORM, nn_inference_attack, nn_linkability_attack, nn_singling_out_attack
from anonkit.audit.inputs import release_reading
from anonkit.cli import app
from anonkit.errors import InputError
from anonkit.evaluate.holdout import train_synthetic_test_real
from anonkit.metrics.synthetic import marginal_distances
from anonkit.schema import Schema

SCHEMA = Schema.of(quasi=["age", "sex", "zip"], sensitive=["income"])


def people(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(18, 90, n), "sex": rng.choice(["M", "F"], n),
                         "zip": rng.choice([f"z{i}" for i in range(30)], n),
                         "income": rng.normal(50, 10, n).round(1)})


@pytest.fixture(scope="module")
def tables() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    full = people(600, 0)
    return full.iloc[:400].reset_index(drop=True), full.iloc[400:].reset_index(drop=True), people(400, 7)


# ------------------------------------------------------------------------------------------ Gower
def test_gower_distance_by_hand() -> None:
    a = pd.DataFrame({"x": [0.0, 10.0, None], "c": ["u", "v", None]})
    b = pd.DataFrame({"x": [5.0, None], "c": ["u", None]})
    kinds = column_kinds(Schema.of(quasi=["x", "c"]), ["x", "c"], [a, b])
    assert kinds == {"x": True, "c": False}
    enc = encode([a, b], ["x", "c"], kinds)
    d = gower(enc.tables[0], enc.tables[1], enc.numeric)
    # range of x over both tables: 10. Row 0: |0-5|/10 + 0 → 0.25; missing number: 1 from anything;
    # two missing categories are equal (anonymeter's label encoding)
    expected = np.array([[(0.5 + 0) / 2, (1 + 1) / 2], [(0.5 + 1) / 2, (1 + 1) / 2], [(1 + 1) / 2, (1 + 0) / 2]])
    np.testing.assert_allclose(d, expected)
    idx, dist = nearest(enc.tables[0], enc.tables[1], enc.numeric, 1, np.random.default_rng(0))
    assert idx[:, 0].tolist() == [0, 0, 1] and dist[:, 0].tolist() == [0.25, 0.75, 0.5]


def test_a_declared_category_and_a_published_label_are_not_numbers() -> None:
    a = pd.DataFrame({"z": ["10", "20"], "age": ["20-39", "40"]})
    schema = Schema.of(quasi=["z", "age"], types={"z": "categorical", "age": "numeric"})
    assert column_kinds(schema, ["z", "age"], [a]) == {"z": False, "age": False}
    assert column_kinds(Schema.of(quasi=["z"]), ["z"], [a]) == {"z": True}


def test_ties_are_broken_at_random_and_by_the_seed() -> None:
    rel = np.zeros((50, 1))
    picks = {int(nearest(np.zeros((1, 1)), rel, [True], 1, np.random.default_rng(s))[0][0, 0]) for s in range(20)}
    assert len(picks) > 5
    first = nearest(np.zeros((3, 1)), rel, [True], 2, np.random.default_rng(4))[0]
    assert np.array_equal(first, nearest(np.zeros((3, 1)), rel, [True], 2, np.random.default_rng(4))[0])


# ------------------------------------------------------------------------------------------ the attacks
ATTACKS = {
    "singling-out": lambda rel, ori, ctl, seed=0: nn_singling_out_attack(rel, ori, SCHEMA, control=ctl,
                                                                         n_attacks=150, seed=seed),
    "singling-out univariate": lambda rel, ori, ctl, seed=0: nn_singling_out_attack(
        rel, ori, SCHEMA, control=ctl, n_attacks=150, mode="univariate", seed=seed),
    "linkability": lambda rel, ori, ctl, seed=0: nn_linkability_attack(
        rel, ori, SCHEMA, control=ctl, n_attacks=150, aux=(["age", "sex"], ["zip", "income"]), seed=seed),
    "inference": lambda rel, ori, ctl, seed=0: nn_inference_attack(rel, ori, SCHEMA, control=ctl, n_attacks=150,
                                                                   aux=["age", "sex", "zip"], seed=seed),
}


@pytest.mark.parametrize("name", list(ATTACKS))
def test_a_release_equal_to_the_original_is_at_risk(tables, name: str) -> None:  # type: ignore[no-untyped-def]
    ori, ctl, _ = tables
    out = ATTACKS[name](ori, ori, ctl)
    assert out.details["form"] == FORM and out.reference == "control"
    assert out.risk_ci[0] > 0.15 and out.success > out.baseline  # type: ignore[operator]


@pytest.mark.parametrize("name", list(ATTACKS))
def test_an_independent_table_gives_the_baseline(tables, name: str) -> None:  # type: ignore[no-untyped-def]
    ori, ctl, rnd = tables
    out = ATTACKS[name](rnd, ori, ctl)
    assert out.risk_ci[0] == 0.0 and out.risk < 0.15


@pytest.mark.parametrize("name", list(ATTACKS))
def test_the_same_seed_gives_the_same_outcome(tables, name: str) -> None:  # type: ignore[no-untyped-def]
    ori, ctl, rnd = tables
    assert ATTACKS[name](rnd, ori, ctl, 3).to_dict() == ATTACKS[name](rnd, ori, ctl, 3).to_dict()


def test_bad_arguments_are_refused_in_one_line(tables) -> None:  # type: ignore[no-untyped-def]
    ori, _, _ = tables
    with pytest.raises(InputError, match="mode"):
        nn_singling_out_attack(ori, ori, SCHEMA, mode="both")
    with pytest.raises(InputError, match="n_cols"):
        nn_singling_out_attack(ori, ori, SCHEMA, n_cols=9)
    with pytest.raises(InputError, match="n_neighbors"):
        nn_linkability_attack(ori, ori, SCHEMA, n_neighbors=0)
    with pytest.raises(InputError, match="secret"):
        nn_inference_attack(ori, ori, SCHEMA, "nope")
    with pytest.raises(InputError, match="missing"):
        nn_inference_attack(ori, ori.drop(columns=["zip"]), SCHEMA)
    assert nn_inference_attack(ori, ori, SCHEMA, n_attacks=20).targets == 20  # the control: it runs


# ------------------------------------------------------------------------------------------ the audit's choice
@pytest.mark.parametrize(("name", "nearest_form"), [("pram", True), ("add-noise", True), ("shuffle", True),
                                                    ("flash", False), ("local-suppression", False)])
def test_the_form_follows_the_algorithms_declaration(name: str, nearest_form: bool) -> None:
    assert release_reading(algorithms()[name], {})["nearest"] is nearest_form
    assert release_reading(None)["nearest"] is False


def _run(tmp_path: Path, algorithm: dict) -> dict:
    people(300, 2).to_csv(tmp_path / "in.csv", index=False)
    cfg = {"input": {"path": "in.csv"},
           "attributes": {"age": {"role": "quasi", "type": "numeric"}, "sex": {"role": "quasi"},
                          "zip": {"role": "quasi"}, "income": {"role": "sensitive", "type": "numeric"}},
           "privacy": [{"model": "k-anonymity", "k": 2}], "algorithm": algorithm, "output": {"path": "out.csv"},
           "audit": {"targets": 100}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    res = CliRunner().invoke(app, ["anonymize", str(tmp_path / "c.yaml"), "--json", "--seed", "5"])
    assert res.exit_code in (0, 1), res.output
    return json.loads(res.stdout)["audit"]


@pytest.mark.parametrize("algorithm", [{"name": "pram", "columns": ["zip"]},
                                       {"name": "add-noise", "columns": ["age"], "level": 30}])
def test_the_audit_of_a_perturbed_run_uses_the_nearest_forms(tmp_path: Path, algorithm: dict) -> None:
    audit = _run(tmp_path, algorithm)
    assert audit["attack_form"] == FORM
    forms = {a["name"]: a["details"].get("form") for a in audit["attacks"]}
    assert forms["singling-out"] == forms["linkability"] == forms["inference"] == FORM
    assert any(FORM in n for n in audit["notes"])


def test_the_audit_of_a_generalized_run_keeps_the_cover_forms(tmp_path: Path) -> None:
    audit = _run(tmp_path, {"name": "mondrian"})
    assert audit["attack_form"] != FORM and not any(FORM in n for n in audit["notes"])
    assert all(a["details"].get("form") is None for a in audit["attacks"])


# ------------------------------------------------------------------------------------------ synthetic utility
def test_marginal_distances_by_hand() -> None:
    o = pd.DataFrame({"c": ["a", "a", "b", "b"], "d": ["x", "y", "x", "y"]})
    r = pd.DataFrame({"c": ["a", "a", "a", "b"], "d": ["x", "x", "y", "y"]})
    m = marginal_distances(o, r)
    assert m["one_way"] == {"c": 0.25, "d": 0.0}
    # pairs: o = ax ay bx by (¼ each); r = ax ax ay by → |½−¼| + 0 + ¼ + 0 = ½, halved
    assert m["two_way_max"] == pytest.approx(0.25) and m["worst_pairs"][0]["columns"] == ["c", "d"]
    assert marginal_distances(o, o)["two_way_max"] == 0.0
    with pytest.raises(InputError, match="bins"):
        marginal_distances(o, r, bins=1)


def test_numbers_are_binned_at_the_originals_deciles(tables) -> None:  # type: ignore[no-untyped-def]
    ori, _, _ = tables
    shifted = ori.assign(income=ori["income"] + 100)
    assert marginal_distances(ori, ori.assign(income=ori["income"] + 0.001), ["income"])["one_way_max"] < 0.05
    assert marginal_distances(ori, shifted, ["income"])["one_way"]["income"] == pytest.approx(0.9, abs=0.02)


def test_train_on_the_release_test_on_real(tables) -> None:  # type: ignore[no-untyped-def]
    ori, _, rnd = tables
    labelled = ori.assign(band=np.where(ori["age"] > 50, "old", "young"))
    same = train_synthetic_test_real(labelled, labelled, "band", ["age", "sex"])
    noise = train_synthetic_test_real(labelled, rnd.assign(band=np.random.default_rng(1).choice(["old", "young"],
                                                                                               len(rnd))),
                                      "band", ["age", "sex"])
    assert same["logistic-regression"]["tstr"] > 0.9 and noise["logistic-regression"]["tstr"] < 0.75
    with pytest.raises(InputError, match="target"):
        train_synthetic_test_real(labelled, labelled, "nope", ["age"])


# ------------------------------------------------------------------------------------------ anonymeter as oracle
@pytest.mark.oracle
@pytest.mark.parametrize("which", ["singling-out", "linkability", "inference"])
def test_anonymeter_agrees(tables, which: str) -> None:  # type: ignore[no-untyped-def]
    """anonymeter 1.1.0 (its random draws are its own): the two risks' 95 % intervals overlap, on a
    release equal to the original and on an independent one."""
    ev = pytest.importorskip("anonymeter.evaluators")
    ori, ctl, rnd = tables
    for rel in (ori, rnd):
        if which == "singling-out":
            theirs = ev.SinglingOutEvaluator(ori, rel, n_attacks=150, n_cols=3, control=ctl, seed=0).evaluate()
            ours = ATTACKS["singling-out"](rel, ori, ctl)
        elif which == "linkability":
            theirs = ev.LinkabilityEvaluator(ori, rel, aux_cols=(["age", "sex"], ["zip", "income"]), n_attacks=150,
                                             control=ctl).evaluate(n_jobs=1)
            ours = ATTACKS["linkability"](rel, ori, ctl)
        else:
            theirs = ev.InferenceEvaluator(ori, rel, aux_cols=["age", "sex", "zip"], secret="income", n_attacks=150,
                                           control=ctl).evaluate(n_jobs=1)
            ours = ATTACKS["inference"](rel, ori, ctl)
        lo, hi = theirs.risk().ci
        assert ours.risk_ci[0] <= hi + 0.05 and lo <= ours.risk_ci[1] + 0.05, (which, ours.to_dict(), lo, hi)
