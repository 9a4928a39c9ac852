"""The 1:M data set of paper D: Adult persons with several diagnosis records each."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

import anonkit
from anonkit.datasets import CATEGORY_ORDER, ONE_TO_MANY_CATEGORIES, make_one_to_many
from anonkit.datasets import one_to_many as otm
from anonkit.errors import InputError

QI = list(otm.QI_COLUMNS)
COLUMNS = ["person", *QI, "diagnosis"]
ADULT_SIZE = 30_162


@pytest.fixture(scope="module")
def full() -> pd.DataFrame:
    return make_one_to_many()


@pytest.fixture(scope="module")
def big() -> pd.DataFrame:
    return make_one_to_many(100_000, seed=7)


def _counts(frame: pd.DataFrame) -> pd.Series:
    return frame.groupby("person", sort=False).size()


def _persons(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per person: the person's QIs (from their first row)."""
    return frame.drop_duplicates("person").reset_index(drop=True)


# ---------------------------------------------------------------- shape and cells
def test_all_adult_persons_in_order(full: pd.DataFrame) -> None:
    assert list(full.columns) == COLUMNS
    assert full.index.equals(pd.RangeIndex(len(full)))
    persons = _persons(full)
    assert len(persons) == ADULT_SIZE
    assert list(persons["person"][:3]) == ["p000001", "p000002", "p000003"]
    assert persons["person"].iloc[-1] == f"p{ADULT_SIZE:06d}"
    adult, _ = anonkit.load_adult()
    pd.testing.assert_frame_equal(persons[QI], adult[QI].reset_index(drop=True), check_dtype=False)


def test_every_cell_is_text(full: pd.DataFrame, big: pd.DataFrame) -> None:
    for frame in (full, big):
        assert all(dtype is np.dtype(object) for dtype in frame.dtypes)
        assert all(type(v) is str for v in frame.to_numpy().ravel())


def test_person_ids(big: pd.DataFrame) -> None:
    ids = _persons(big)["person"]
    assert len(ids) == 100_000 and ids.is_unique
    assert list(ids) == [f"p{i:06d}" for i in range(1, 100_001)]
    # a person's rows are contiguous
    assert (big["person"] != big["person"].shift()).sum() == 100_000


def test_quasi_identifiers_are_the_same_on_every_row_of_a_person(full: pd.DataFrame, big: pd.DataFrame) -> None:
    for frame in (full, big):
        assert (frame.groupby("person")[QI].nunique() == 1).all().all()


def test_sample_without_replacement_up_to_adult_size() -> None:
    frame = make_one_to_many(ADULT_SIZE, seed=3)
    adult, _ = anonkit.load_adult()
    got = _persons(frame)[QI]
    # every Adult record exactly once: the multisets of QI rows agree
    key = QI
    assert got.value_counts(key).sort_index().equals(adult[QI].value_counts(key).sort_index())
    small = _persons(make_one_to_many(500, seed=3))
    assert len(small) == 500 and small["person"].is_unique


def test_sample_with_replacement_above_adult_size() -> None:
    frame = make_one_to_many(40_000, seed=1)
    persons = _persons(frame)
    assert len(persons) == 40_000 and persons["person"].is_unique
    assert persons.duplicated(QI).sum() > 40_000 - ADULT_SIZE  # some Adult records stand for several persons


# ---------------------------------------------------------------- distributions
def test_records_per_person(big: pd.DataFrame) -> None:
    counts = _counts(big)
    assert abs(counts.mean() - 3.0) < 0.1
    assert counts.min() == 1 and counts.max() <= otm.MAX_RECORDS
    # min(1 + Poisson(2), 10): P(m = k) = e^-2 2^(k-1) / (k-1)!
    share = counts.value_counts(normalize=True)
    for m in range(1, 6):
        p = math.exp(-2) * 2 ** (m - 1) / math.factorial(m - 1)
        assert abs(share.get(m, 0.0) - p) < 5 * math.sqrt(p * (1 - p) / len(counts)) + 1e-3, m
    assert 280_000 < len(big) < 320_000


def test_no_repeated_diagnosis_within_a_person(full: pd.DataFrame, big: pd.DataFrame) -> None:
    for frame in (full, big):
        assert not frame.duplicated(["person", "diagnosis"]).any()


def test_first_draw_follows_the_weights(big: pd.DataFrame) -> None:
    """A person's first diagnosis is drawn with probability w / Σw of their age band and sex."""
    first = _persons(big)
    age = first["age"].astype(int)
    group = first[(age >= 30) & (age < 45) & (first["sex"] == "Male")]
    weights = np.array([otm.AGE_WEIGHT[d][1] * otm.SEX_FACTOR[d][1] for d in otm.DIAGNOSES])
    expected = weights / weights.sum()
    share = group["diagnosis"].value_counts(normalize=True)
    n = len(group)
    assert n > 20_000
    for d, p in zip(otm.DIAGNOSES, expected, strict=True):
        assert abs(share.get(d, 0.0) - p) < 5 * math.sqrt(p * (1 - p) / n) + 1e-3, d


def test_chronic_diagnoses_rise_with_age(big: pd.DataFrame) -> None:
    age = big["age"].astype(int)
    chronic = big["diagnosis"].isin(otm.CHRONIC)
    has_chronic = chronic.groupby(big["person"]).any()
    person_age = age.groupby(big["person"]).first()
    young = has_chronic[person_age < 30].mean()
    old = has_chronic[person_age > 60].mean()
    assert old > 3 * young, (young, old)
    # record shares of a few chronic diagnoses grow band by band
    band = pd.cut(age, [0, 29, 44, 59, 200])
    for d in ("Hypertension", "Diabetes", "Heart disease", "Arthritis"):
        rate = (big["diagnosis"] == d).groupby(band, observed=True).mean().to_numpy()
        assert (np.diff(rate) > 0).all(), (d, rate)


def test_sex_specific_weights(big: pd.DataFrame) -> None:
    def share(d: str, sex: str) -> float:
        return float((big.loc[big["sex"] == sex, "diagnosis"] == d).mean())

    for d in ("Osteoporosis", "Migraine", "Anemia"):
        assert share(d, "Female") > 2 * share(d, "Male"), d
    for d in ("Gout", "HIV"):
        assert share(d, "Male") > 2 * share(d, "Female"), d


# ---------------------------------------------------------------- categories
def test_category_map() -> None:
    assert CATEGORY_ORDER == ("Asymptomatic", "Low", "Mild", "High", "Severe")
    assert 20 <= len(otm.DIAGNOSES) <= 30 and len(set(otm.DIAGNOSES)) == len(otm.DIAGNOSES)
    assert list(ONE_TO_MANY_CATEGORIES) == list(otm.DIAGNOSES)
    assert set(ONE_TO_MANY_CATEGORIES.values()) == set(CATEGORY_ORDER)  # every category used
    assert set(otm.CHRONIC) <= set(otm.DIAGNOSES)
    # the spec's worked example (§4.5): Cold 0, Flu 1, Bronchitis/Gastritis 2, Pneumonia/Diabetes 3, Cancer/HIV 4
    code = {d: CATEGORY_ORDER.index(c) for d, c in ONE_TO_MANY_CATEGORIES.items()}
    example = {"Cold": 0, "Flu": 1, "Bronchitis": 2, "Gastritis": 2}
    example |= {"Pneumonia": 3, "Diabetes": 3, "Cancer": 4, "HIV": 4}
    assert {d: code[d] for d in example} == example


def test_every_generated_diagnosis_has_a_category(full: pd.DataFrame, big: pd.DataFrame) -> None:
    for frame in (full, big):
        assert set(frame["diagnosis"]) <= set(ONE_TO_MANY_CATEGORIES)
    assert set(big["diagnosis"]) == set(otm.DIAGNOSES)  # every diagnosis occurs in a large sample


def test_docstring_table_is_the_code() -> None:
    doc = {" ".join(line.split()) for line in (otm.__doc__ or "").splitlines()}
    for d in otm.DIAGNOSES:
        name = d + ("*" if d in otm.CHRONIC else "")
        numbers = [*otm.AGE_WEIGHT[d], *otm.SEX_FACTOR[d]]
        line = " ".join([name, ONE_TO_MANY_CATEGORIES[d], *(f"{w:g}" for w in numbers)])
        assert line in doc, line
        assert all(w > 0 for w in numbers), d


def test_exported() -> None:
    import anonkit.datasets as ds

    assert {"make_one_to_many", "ONE_TO_MANY_CATEGORIES", "CATEGORY_ORDER"} <= set(ds.__all__)


# ---------------------------------------------------------------- determinism and speed
def test_deterministic_for_a_seed(big: pd.DataFrame) -> None:
    again = make_one_to_many(100_000, seed=7)
    assert big.to_csv(index=False).encode() == again.to_csv(index=False).encode()
    assert make_one_to_many(seed=5).equals(make_one_to_many(seed=5))
    assert not make_one_to_many(1000, seed=1).equals(make_one_to_many(1000, seed=2))


def test_100000_persons() -> None:
    frame = make_one_to_many(100_000)
    assert frame["person"].nunique() == 100_000


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("persons", [0, -1, -30_162, 2.5, 3.0, "10", True, [5]])
def test_bad_persons(persons: object) -> None:
    with pytest.raises(InputError) as info:
        make_one_to_many(persons)  # type: ignore[arg-type]
    message = str(info.value)
    assert "\n" not in message and re.search(r"\bpersons\b", message), message


@pytest.mark.parametrize("seed", [-1, 1.5, "0", None])
def test_bad_seed(seed: object) -> None:
    with pytest.raises(InputError) as info:
        make_one_to_many(10, seed=seed)  # type: ignore[arg-type]
    message = str(info.value)
    assert "\n" not in message and "seed" in message, message
