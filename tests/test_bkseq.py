"""The BKseq-like generator (spec §3.4): shape, determinism, documented correlations and transitions."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import anonkit
from anonkit.datasets import bkseq as bk
from anonkit.datasets.bkseq import DISEASES, bkseq_hierarchies, make_bkseq
from anonkit.errors import InputError

QI = ["gender", "age", "weight"]


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return make_bkseq()


def _schema() -> anonkit.Schema:
    return anonkit.Schema.of(
        quasi=QI, sensitive=["disease"], identifier=["patient_id"], insensitive=["release"],
        hierarchies=bkseq_hierarchies()
    )


def test_default_shape_columns_and_text_cells(frame: pd.DataFrame) -> None:
    assert frame.shape == (24 * 4000, 6)
    assert list(frame.columns) == ["release", "patient_id", "gender", "age", "weight", "disease"]
    assert frame["release"].value_counts().to_dict() == {str(t): 4000 for t in range(1, 25)}
    for col in frame.columns:
        assert frame[col].map(type).eq(str).all(), col
    ages, weights = frame["age"].astype(int), frame["weight"].astype(int)
    assert ages.between(18, 90).all() and weights.between(40, 150).all()
    assert (frame["age"] == ages.astype(str)).all() and (frame["weight"] == weights.astype(str)).all()
    assert set(frame["gender"]) == {"female", "male"}
    assert not frame.duplicated(["release", "patient_id"]).any()


def test_nineteen_disease_stage_values(frame: pd.DataFrame) -> None:
    assert len(DISEASES) == 19 and len(set(DISEASES)) == 19
    assert set(frame["disease"]) == set(DISEASES)
    assert "diabetes-1" in DISEASES and "healthy" in DISEASES


def test_parameters_are_respected() -> None:
    f = make_bkseq(releases=5, records=300, seed=3, persistence=0.8)
    assert f.shape == (1500, 6)
    assert f["release"].value_counts().to_dict() == {str(t): 300 for t in range(1, 6)}
    ids = [set(f.loc[f["release"] == str(t), "patient_id"]) for t in range(1, 6)]
    for a, b in itertools.pairwise(ids):
        assert len(a & b) == 240  # round(0.8 · 300) stay, the rest are new patients
    # a patient who left never comes back
    seen: set[str] = set()
    for a, b in itertools.pairwise(ids):
        seen |= a
        assert not (b - a) & seen
    f1 = make_bkseq(releases=3, records=50, persistence=1.0)
    assert len(set(f1["patient_id"])) == 50
    f0 = make_bkseq(releases=3, records=50, persistence=0.0)
    assert len(set(f0["patient_id"])) == 150


@pytest.mark.parametrize(
    "kwargs", [{"releases": 0}, {"records": -1}, {"records": 2.5}, {"persistence": 1.5}, {"persistence": "x"}]
)
def test_bad_parameters_raise(kwargs: dict) -> None:
    with pytest.raises(InputError):
        make_bkseq(**kwargs)


def test_deterministic_for_a_seed() -> None:
    a = make_bkseq(releases=4, records=500, seed=7)
    b = make_bkseq(releases=4, records=500, seed=7)
    c = make_bkseq(releases=4, records=500, seed=8)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


def test_documented_correlations_hold(frame: pd.DataFrame) -> None:
    first = frame[frame["release"] == "1"]
    women, men = first[first["gender"] == "female"], first[first["gender"] == "male"]

    def share(part: pd.DataFrame, disease: str) -> float:
        return float(part["disease"].str.startswith(disease).mean())

    # breast cancer is rare in men; osteoporosis mainly in women; coronary disease mainly in men
    assert share(women, "breast-cancer") > 0.01
    assert share(men, "breast-cancer") < 0.1 * share(women, "breast-cancer")
    assert share(women, "osteoporosis") > 2 * share(men, "osteoporosis")
    assert share(men, "coronary-disease") > 2 * share(women, "coronary-disease")
    # diabetes rises with weight; alzheimer never before 40 and mostly 65+
    weight = first["weight"].astype(int)
    assert share(first[weight >= 90], "diabetes") > 2 * share(first[weight < 60], "diabetes")
    alz = frame[frame["disease"].str.startswith("alzheimer")]
    assert (alz["age"].astype(int) >= 40).all()
    assert (alz["age"].astype(int) >= 65).mean() > 0.7
    # healthy is the most common value
    assert first["disease"].value_counts().index[0] == "healthy"


def _codes(values: pd.Series) -> np.ndarray:
    return values.map({v: i for i, v in enumerate(DISEASES)}).to_numpy()


def test_transitions_follow_the_model(frame: pd.DataFrame) -> None:
    releases = frame["release"].astype(int)
    prev = frame.assign(release=(releases + 1).astype(str))
    pair = frame.merge(prev, on=["release", "patient_id"], suffixes=("", "_prev"))
    assert len(pair) == 23 * 3600
    old, new = _codes(pair["disease_prev"]), _codes(pair["disease"])
    same = old == new
    onset = (old == 0) & (new > 0) & ((new - 1) % 3 == 0)
    progress = (old > 0) & (new == old + 1) & ((old - 1) % 3 < 2)
    recover = (old > 0) & ((old - 1) % 3 == 0) & (new == 0)
    assert (same | onset | progress | recover).all()
    # QIs: age rises by at most one year, weight moves by at most 1 kg, gender is fixed
    assert (pair["gender"] == pair["gender_prev"]).all()
    da = pair["age"].astype(int) - pair["age_prev"].astype(int)
    dw = pair["weight"].astype(int) - pair["weight_prev"].astype(int)
    assert da.isin([0, 1]).all() and dw.abs().le(1).all()
    # the number of onsets among healthy patients matches the sum of the model's hazards
    healthy = old == 0
    g = (pair["gender_prev"] == "male").to_numpy().astype(int)
    a, w = pair["age_prev"].astype(int).to_numpy(), pair["weight_prev"].astype(int).to_numpy()
    expected = bk.onset_hazards(g[healthy], a[healthy], w[healthy]).sum()
    observed = onset[healthy].sum()
    assert abs(observed - expected) < 4 * np.sqrt(expected)
    assert not (onset & (pair["disease"] == "alzheimer-1").to_numpy() & (a < 40)).any()


def test_chain_step_respects_its_rows() -> None:
    n = 20000
    rng = np.random.default_rng(1)
    gender, age, weight = np.zeros(n, int), np.full(n, 70), np.full(n, 100)
    state = np.full(n, DISEASES.index("diabetes-1"))
    new = bk._step(state, gender, age, weight, rng.random(n))
    p = bk.progression_probability(np.array([0]), np.array([70]), np.array([100]))[0]
    assert p == pytest.approx(0.06 * 1.4 * 1.5)
    assert np.mean(new == state + 1) == pytest.approx(p, abs=0.015)
    assert np.mean(new == 0) == pytest.approx(bk.RECOVERY[0], abs=0.01)
    top = np.full(n, DISEASES.index("alzheimer-3"))
    assert (bk._step(top, gender, age, weight, rng.random(n)) == top).all()
    hazard = bk.onset_hazards(np.ones(n, int), age, weight)
    assert hazard[0, 3] == pytest.approx(0.005 * 0.01 * 1.3)  # breast cancer in a heavy man of 70
    assert hazard.sum(axis=1).max() < 0.16


def test_hierarchies_cover_every_value(frame: pd.DataFrame) -> None:
    h = bkseq_hierarchies()
    assert set(h) == {"gender", "age", "weight", "disease"}
    assert set(h["age"].leaves) == {str(v) for v in range(18, 91)}
    assert set(h["weight"].leaves) == {str(v) for v in range(40, 151)}
    assert set(h["disease"].leaves) == set(DISEASES)
    assert h["disease"].rows()[DISEASES.index("alzheimer-2")] == ["alzheimer-2", "neurological", "*"]
    anonkit.Table(frame, _schema())


def test_one_release_can_be_anonymized(frame: pd.DataFrame) -> None:
    first = frame[frame["release"] == "1"].reset_index(drop=True)
    result = anonkit.anonymize(
        first, _schema(), [anonkit.models.KAnonymity(5)], algorithm="flash", max_suppression=0.05
    )
    assert result.verification.ok
    assert result.summary["satisfied"]
    assert result.summary["min_class_size"] >= 5
