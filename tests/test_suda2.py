"""SUDA2 (``anonkit.risk.suda2``): minimal sample uniques, SUDA and DIS-SUDA scores, contributions.

Goldens are sdcMicro's (5.8.1, commit cf32510 of sdcTools/sdcMicro): the examples of its
tests/testthat/test_suda2.R (lines cited; they are commented out there, and were re-run against its
C++ ``Suda2`` compiled under R 4.2 with factor-coded columns, where they hold), francdat, and its
figures on 300 rows of testdata and free1 (tests/data/sdcmicro_*.csv; tests/data/sdcmicro_NOTICE.md).
DIS-SUDA is compared to 1e-7: sdcMicro computes part of it in single precision. Properties: a brute
force over every subset of every record agrees; every MSU is unique and minimal; scores do not depend
on the order of the records.
"""

from __future__ import annotations

import importlib
import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.errors import InputError
from anonkit.risk import suda2
from anonkit.risk.suda2 import minimal_sample_uniques, score_weights

DATA = Path(__file__).parent / "data"
FRANCDAT = pd.DataFrame({"Key1": [1, 1, 1, 3, 4, 4, 6, 1], "Key2": [2, 2, 2, 3, 3, 3, 2, 2],
                         "Key3": [5, 1, 1, 1, 1, 1, 1, 5], "Key4": [1, 1, 1, 5, 4, 1, 5, 1]})


def test_francdat():
    """``suda2(francdat, variables = c(2, 4, 5, 6))`` in sdcMicro: scores, DIS scores, contributions."""
    r = suda2(FRANCDAT)
    np.testing.assert_array_equal(r.score, [0, 0, 0, 8, 6, 4, 8, 0])
    np.testing.assert_allclose(r.dis_score, [0, 0, 0, 0.01421348632458717, 0.01010601501208934, 0.00623684035040827,
                                             0.01421348632458717, 0], atol=1e-9)
    np.testing.assert_allclose(r.contribution[3:7], [[0.75, 0.25, 0, 0.25], [0, 0, 0, 1], [0.5, 0.5, 0, 1],
                                                     [0.75, 0.25, 0, 0.25]])
    np.testing.assert_allclose(list(r.attribute_contributions.values()), [53.84615384615385, 23.076923076923077, 0.0,
                                                                          53.84615384615385])
    # record 6 = (4, 3, 1, 1): MSUs {Key1, Key4} and {Key2, Key4}, each (4 - 2)! = 2, by hand
    assert r.msu_counts[5].tolist() == [0, 2, 0, 0]


def test_francdat_ihsn_scores_and_dis_fraction():
    """``suda2(francdat, c(2,4,5,6), DisFraction = 0.1, original_scores = FALSE)`` in sdcMicro."""
    r = suda2(FRANCDAT, dis_fraction=0.1, scores="ihsn")
    np.testing.assert_allclose(r.score, [0, 0, 0, 2.25, 1.75, 1.0, 2.25, 0])
    np.testing.assert_allclose(r.dis_score, [0, 0, 0, 0.1428197444488220, 0.1097162984247963, 0.0592349760184157,
                                             0.1428197444488220, 0], atol=1e-7)


def test_book_example():
    """test_suda2.R line 73: scores of records 5-8 are 4, 2, 6, 8 (Templ's book)."""
    tab = pd.DataFrame({"age": ["20s"] * 7 + ["60s"], "gender": ["male"] * 4 + ["female"] * 3 + ["male"],
                        "income": ["50k+", "50k+"] + ["50k-"] * 6,
                        "education": ["highschool"] * 4 + ["university", "highschool", "middleschool", "university"]})
    r = suda2(tab)
    np.testing.assert_array_equal(r.score, [0, 0, 0, 0, 4, 2, 6, 8])
    np.testing.assert_allclose(r.dis_score[4:], [0.01085909520911012, 0.00475586040600303, 0.01754517038502656,
                                                 0.02460105708028310], atol=1e-9)


def test_sdc_guideline_example():
    """test_suda2.R line 89 (the SDC guidelines' example)."""
    frame = pd.DataFrame({
        "Residence": ["Urban"] * 4 + ["Rural"] + ["Urban"] * 5,
        "Gender": ["Female", "Female", "Female", "Male", "Female", "Male", "Female", "Male", "Female", "Female"],
        "Education": ["Secondary incomplete", "Secondary incomplete", "Primary incomplete", "Secondary complete",
                      "Secondary complete", "Secondary complete", "Primary complete", "Post-secondary",
                      "Secondary incomplete", "Secondary incomplete"],
        "Labor": ["Employed", "Employed", "Non-LF", "Employed", "Unemployed", "Employed", "Non-LF", "Unemployed",
                  "Non-LF", "Non-LF"]})
    r = suda2(frame)
    np.testing.assert_array_equal(r.score, [0, 0, 6, 0, 12, 0, 6, 10, 0, 0])
    np.testing.assert_allclose(r.dis_score[[2, 4, 7]], [0.00498679766114321, 0.01138300651423607, 0.00916667886916247],
                               atol=1e-9)


@pytest.mark.parametrize("order", [("a", "b", "c"), ("a", "c", "b"), ("c", "a", "b"), ("c", "b", "a")])
def test_attribute_contributions_example(order):
    """test_suda2.R lines 34, 44, 54, 64: contributions 50 / 37.5 / 37.5 whatever the column order."""
    frame = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})[list(order)]
    r = suda2(frame)
    assert r.attribute_contributions == {"a": 50.0, "b": 37.5, "c": 37.5}
    # per value, by hand: record 1 (a = 2) and record 3 (a = 1) each bring half of a's total
    assert r.attribute_level_contributions["a"] == {1: 50.0, 2: 50.0}
    assert r.attribute_level_contributions["b"] == {0: 100.0 / 3, 3: 200.0 / 3}


def test_two_variables_are_scored_as_sdcmicro_pads_them():
    """sdcMicro adds a constant dummy column below three variables: weights (3 - k)!, Q of three variables."""
    r = suda2(pd.DataFrame({"a": [1, 1, 2, 2, 3], "b": [1, 2, 1, 2, 1]}))
    np.testing.assert_array_equal(r.score, [1, 1, 1, 1, 2])  # sdcMicro's output
    np.testing.assert_array_equal(r.dis_score, [1, 1, 1, 1, 1])  # no pairs: Dis = 1


@pytest.mark.parametrize(("fixture", "keys", "extra"), [
    ("testdata300", ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"], False),
    ("free1_300", ["REGION", "SEX", "AGE", "MARSTAT", "KINDPERS", "EDUC1"], True),
])
def test_sdcmicro_data(fixture, keys, extra):
    data = pd.read_csv(DATA / f"sdcmicro_{fixture}.csv")
    want = pd.read_csv(DATA / f"sdcmicro_{fixture}_expected.csv")
    r = suda2(data, keys)
    np.testing.assert_array_equal(r.score, want.suda)
    np.testing.assert_allclose(r.dis_score, want.dis_suda, atol=1e-7)
    if extra:
        ihsn = suda2(data, keys, scores="ihsn", dis_fraction=0.1)
        np.testing.assert_allclose(ihsn.score, want.suda_ihsn, rtol=1e-12)
        np.testing.assert_allclose(ihsn.dis_score, want.dis_ihsn, atol=1e-7)
    else:  # testdata300's attribute contributions as sdcMicro prints them
        got = list(r.attribute_contributions.values())
        np.testing.assert_allclose(got, [0.0, 2.78164116828929, 13.56050069541029, 34.90959666203059,
                                         3.40751043115438, 94.99304589707927, 10.91794158553547], rtol=1e-12)


def test_dis_scores_are_finite_where_sdcmicro_counts_no_unique():
    """sdcMicro counts a full-key unique only when it is alone in its hash bucket; on this random table
    of codes 1..3 every record shares a bucket, and its DIS scores are NaN for the 8 special uniques (its
    scores agree). The anonkit scores are finite and follow U/Dis - U = P (1 - f) / f."""
    frame = pd.DataFrame({
        "V1": [int(c) for c in "1221131121331321212312213323223221323"],
        "V2": [int(c) for c in "1231221123212111211313312333213312313"],
        "V3": [int(c) for c in "2232112131113333213221111233123313322"]})
    r = suda2(frame)
    special = [4, 8, 9, 11, 13, 15, 28, 32]
    assert np.flatnonzero(r.score).tolist() == special and (r.score[special] == 1).all()  # sdcMicro's scores
    sizes = frame.groupby(["V1", "V2", "V3"]).size()
    pairs = 2 * int((sizes == 2).sum())
    q = 1 + (8 - 3) / 20
    want = 1 / (1 + pairs * 0.99 / 0.01 / (1.0 * len(special)))  # every score 1: s^Q * sum(s^-Q) = 8
    np.testing.assert_allclose(r.dis_score[special], want, rtol=1e-6)
    assert q == 1.25 and np.isfinite(r.dis_score).all()


def test_contributions_count_every_msu_where_sdcmicro_misses_correlated_items():
    """Record 2 = (1, 1, 1, 1, 3, 4) has the MSU {V5} (weight 5! = 120) and six pairs (weight 4! = 24 each):
    {V1,V2} {V1,V6} {V2,V3} {V2,V4} {V3,V6} {V4,V6}; score 264 (sdcMicro: 264). V1 = 1 and V4 = 1 hold for
    the same records, and sdcMicro's bookkeeping of such correlated items credits V4 and V6 one pair each
    too few (it prints 0.0909 and 0.1818); by the definition they are in two and three pairs."""
    frame = pd.DataFrame([[3, 1, 2, 2, 4, 4], [1, 1, 1, 1, 3, 4], [2, 1, 4, 2, 2, 4], [2, 2, 2, 4, 1, 1],
                          [1, 4, 1, 1, 1, 1], [2, 2, 1, 2, 4, 1], [3, 1, 2, 2, 4, 4]],
                         columns=["V1", "V2", "V3", "V4", "V5", "V6"])
    r = suda2(frame)
    np.testing.assert_array_equal(r.score, [0, 264, 288, 264, 240, 216, 0])  # sdcMicro's scores
    np.testing.assert_allclose(r.contribution[1], np.array([2, 3, 2, 2, 5, 3]) * [24, 24, 24, 24, 24, 24] / 264)
    assert r.msu_counts[1].tolist() == [1, 6, 0, 0, 0, 0]


def test_max_size_limits_the_msus_and_the_weights():
    full = suda2(FRANCDAT)
    small = suda2(FRANCDAT, max_size=1)
    np.testing.assert_array_equal(small.msu_counts[:, 0], full.msu_counts[:, 0])
    np.testing.assert_array_equal(small.score, 3.0 * small.msu_counts[:, 0])  # M = 1: weight (4 - 1) = 3
    assert small.msu_counts[:, 0].sum() > 0
    two = suda2(FRANCDAT, max_size=2)
    np.testing.assert_array_equal(two.msu_counts, full.msu_counts[:, :2])
    # Elliot's weights with M = 2: size 1 -> (4-1)(4-2) = 6, size 2 -> (4-2) = 2
    assert score_weights(4, 2).tolist() == [6.0, 2.0] and score_weights(4, 4).tolist() == [6.0, 2.0, 1.0, 1.0]
    np.testing.assert_array_equal(two.score, two.msu_counts @ [6.0, 2.0])


def test_missing_values_are_never_part_of_an_msu():
    frame = pd.DataFrame({"a": [1, 1, 2, None], "b": [1, 2, 2, 2], "c": [1, 1, 1, 1]})
    r = suda2(frame)
    # record 4 (missing a, b = 2): b = 2 is shared, so it has no MSU; record 3's a = 2 is unique
    assert r.score[3] == 0 and r.msu_counts[2, 0] == 1


# ------------------------------------------------------------------ properties against a brute force
def _brute(codes: np.ndarray, max_size: int) -> tuple[np.ndarray, np.ndarray]:
    n, m = codes.shape
    weights = score_weights(m, max_size)
    counts = np.zeros((n, max_size), dtype=int)
    contrib = np.zeros((n, m))
    for r in range(n):
        unique = {}
        for k in range(1, max_size + 1):
            for s in itertools.combinations(range(m), k):
                if (codes[r, list(s)] < 0).any():
                    unique[s] = False
                    continue
                same = (codes[:, list(s)] == codes[r, list(s)]).all(axis=1)
                unique[s] = same.sum() == 1
                if unique[s] and not any(unique[s[:i] + s[i + 1:]] for i in range(k) if k > 1):
                    counts[r, k - 1] += 1
                    contrib[r, list(s)] += weights[k - 1]
    return counts, contrib


tables = st.integers(1, 5).flatmap(lambda m: st.lists(
    st.lists(st.integers(-1, 2), min_size=m, max_size=m), min_size=1, max_size=14))


@settings(max_examples=60, deadline=None)
@given(rows=tables, data=st.data())
def test_brute_force_agrees(rows, data):
    codes = np.array(rows, dtype=np.int64)
    m = codes.shape[1]
    size = data.draw(st.integers(1, m))
    r = suda2(codes, max_size=size)
    counts, contrib = _brute(codes, size)
    np.testing.assert_array_equal(r.msu_counts, counts)
    np.testing.assert_allclose(r.score, counts @ score_weights(m, size))
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(r.score[:, None] > 0, contrib / r.score[:, None], 0.0)
    np.testing.assert_allclose(r.contribution, share)
    assert ((r.dis_score > 0) == (r.score > 0)).all() and (r.dis_score <= 1).all()


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(3, 5).flatmap(lambda m: st.lists(st.lists(st.integers(0, 2), min_size=m, max_size=m),
                                                         min_size=2, max_size=20)))
def test_msus_are_unique_and_minimal(rows):
    codes = np.array(rows, dtype=np.int64)
    subsets, searched, msu = minimal_sample_uniques(codes, codes.shape[1])
    for i, row in enumerate(searched):
        for j in np.flatnonzero(msu[i]):
            s = list(subsets[j])
            assert ((codes[:, s] == codes[row, s]).all(axis=1)).sum() == 1  # unique
            for k in range(1, len(s)):
                for sub in itertools.combinations(s, k):
                    assert ((codes[:, list(sub)] == codes[row, list(sub)]).all(axis=1)).sum() > 1  # minimal


def test_record_order_does_not_matter():
    data = pd.read_csv(DATA / "sdcmicro_free1_300.csv")
    keys = ["REGION", "SEX", "AGE", "MARSTAT", "KINDPERS", "EDUC1"]
    order = np.random.default_rng(3).permutation(len(data))
    a = suda2(data, keys)
    b = suda2(data.iloc[order].reset_index(drop=True), keys)
    np.testing.assert_array_equal(b.score, a.score[order])
    np.testing.assert_allclose(b.dis_score, a.dis_score[order], rtol=1e-12)
    assert b.attribute_contributions == pytest.approx(a.attribute_contributions)


def test_ihsn_weights_formula():
    m = 5
    want = [(2 ** (m - k) - 1) * math.factorial(k) * math.factorial(m - k) / math.factorial(m) for k in range(1, 6)]
    assert score_weights(m, m, "ihsn").tolist() == pytest.approx(want)


# ------------------------------------------------------------------ refusals, each with a control
@pytest.mark.parametrize(("kwargs", "words"), [
    (dict(max_size=0), "maximum MSU size"), (dict(max_size=5), "maximum MSU size"),
    (dict(max_size=True), "maximum MSU size"), (dict(max_size=2.0), "maximum MSU size"),
    (dict(dis_fraction=0), "DIS sampling fraction"), (dict(dis_fraction=1.5), "DIS sampling fraction"),
    (dict(dis_fraction="0.1"), "DIS sampling fraction"), (dict(scores="original"), "unknown SUDA score weighting"),
])
def test_bad_parameters_are_refused(kwargs, words):
    with pytest.raises(InputError, match=words):
        suda2(FRANCDAT, **kwargs)


def test_control_parameters_at_their_bounds_run():
    assert suda2(FRANCDAT, max_size=4, dis_fraction=1.0, scores="ihsn").score.sum() > 0


def test_too_large_a_search_is_refused(monkeypatch):
    module = importlib.import_module("anonkit.risk.suda2")  # the package's name suda2 is the function

    monkeypatch.setattr(module, "MAX_CELLS", 4 * 15 - 1)  # 4 full-key uniques x 15 subsets
    with pytest.raises(InputError, match="lower max_size"):
        suda2(FRANCDAT)
    monkeypatch.setattr(module, "MAX_CELLS", 4 * 15)
    assert suda2(FRANCDAT).score.sum() == 26


def test_unknown_key_is_refused():
    with pytest.raises(InputError, match="not a column"):
        suda2(FRANCDAT, ["Key1", "Key9"])
    assert suda2(FRANCDAT, ["Key1", "Key2"]).score.shape == (8,)
