"""sdcMicro's risk measures with survey weights and households (``anonkit.risk.survey``, ``anonkit.risk.loglinear``).

Goldens are sdcMicro's: the values its own tests assert (file and line cited; sdcMicro 5.8.1, commit
cf32510 of sdcTools/sdcMicro), and its figures on its data sets (francdat; 300 rows of testdata with
households and missing values; 300 rows of free1 with varying weights — tests/data/sdcmicro_*.csv,
provenance in tests/data/sdcmicro_NOTICE.md) computed by its R sources and compiled C++ under R 4.2.
Properties: without weights Fk = fk; a population unique has risk 1; the wildcard counts equal a
brute force over every pair of records; household risk is at least every member's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.errors import InputError
from anonkit.risk import (
    household_risk,
    individual_risk,
    key_codes,
    loglinear_risk,
    sample_frequencies,
    survey_risk,
)
from anonkit.risk.survey import EXACT_MAX_FK, SampleFrequencies

DATA = Path(__file__).parent / "data"
NAN = np.nan
W8 = [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51]
FRANCDAT = pd.DataFrame({
    "Key1": [1, 1, 1, 3, 4, 4, 6, 1], "Key2": [2, 2, 2, 3, 3, 3, 2, 2], "Key3": [5, 1, 1, 1, 1, 1, 1, 5],
    "Key4": [1, 1, 1, 5, 4, 1, 5, 1], "w": [18.0, 45.5, 39.0, 17.0, 541.0, 8.0, 5.0, 92.0],
})
FRANC_KEYS = ["Key1", "Key2", "Key3", "Key4"]


def _abc(a, b, c) -> pd.DataFrame:
    return pd.DataFrame({"A": a, "B": b, "C": c})


# ------------------------------------------------------------------ freqCalc: sdcMicro's tests/testthat/test_freqCalc.R
FREQ_CASES = [
    # (line of the Fk assertion, A, B, C, weighted Fk, fk)
    (9, [2, 3, 2, 2, 3, 3, 1, 2], [3, 3, 3, 3, 3, 3, 4, 3], [1, 3, 1, 2, 1, 1, 1, 1],
     [108.0, 45.5, 108.0, 17.0, 100.0, 100.0, 123.5, 108.0], [3, 1, 3, 1, 2, 2, 1, 3]),
    (42, [2, 3, 2, 2, 3, 3, 1, 2], [3, 3, 3, 3, 3, 3, 4, 3], [1, 3, NAN, 2, 1, 1, NAN, 1],
     [108.0, 45.5, 125.0, 56.0, 100.0, 100.0, 123.5, 108.0], [3, 1, 4, 2, 2, 2, 1, 3]),
    (74, [2, 3, NAN, 2, 3, 3, 1, 2], [3, 3, NAN, 3, 3, 3, 4, 3], [NAN] * 8,
     [125.0, 184.5, 394.0, 125.0, 184.5, 184.5, 162.5, 125.0], [4, 4, 8, 4, 4, 4, 2, 4]),
]


@pytest.mark.parametrize(("line", "a", "b", "c", "Fk", "fk"), FREQ_CASES, ids=[f"line{c[0]}" for c in FREQ_CASES])
def test_freqcalc_goldens(line, a, b, c, Fk, fk):
    weighted = sample_frequencies(_abc(a, b, c), ["A", "B", "C"], weights=W8)
    np.testing.assert_array_equal(weighted.Fk, Fk)
    np.testing.assert_array_equal(weighted.fk, fk)
    plain = sample_frequencies(_abc(a, b, c), ["A", "B", "C"])  # the non-weighted twin of each case
    np.testing.assert_array_equal(plain.Fk, fk)
    np.testing.assert_array_equal(plain.fk, fk)


def test_freqcalc_one_key_and_more_keys_than_rows():
    """test_freqCalc.R lines 103 (one key variable with NAs) and 132 (8 keys, 3 rows)."""
    one = sample_frequencies(pd.DataFrame({"A": [2, 3, NAN, 2, 1, NAN, 1, 2]}), ["A"], weights=W8)
    np.testing.assert_array_equal(one.Fk, [133.0, 92.5, 394.0, 133.0, 262.5, 394.0, 262.5, 133.0])
    np.testing.assert_array_equal(one.fk, [5, 3, 8, 5, 4, 8, 4, 5])
    wide = np.array([[2, 3, NAN, 2, 3, 3, 1, NAN, 3, 3, NAN, 3, 3, 2, 2, 3, NAN, NAN, 1, 2, NAN, NAN, 4, 4]])
    frame = pd.DataFrame(wide.reshape(8, 3).T, columns=list("ABCDEFGH"))
    freq = sample_frequencies(frame, list("ABCDEFGH"), weights=[18.0, 45.5, 122])
    np.testing.assert_array_equal(freq.Fk, [18.0, 167.5, 167.5])
    assert (freq.n1, freq.n2) == (1, 2)


# ------------------------------------------------------------------ indivRisk: tests/testthat/test_indivRisk.R
INDIV = [
    # (line, C column, method, qual, rk)
    (14, [1, 3, 1, 2, 1, 1, 1, 1], "approx", 1,
     [0.01369863, 0.08579129, 0.01369863, 0.17707583, 0.01877883, 0.01877883, 0.03931625, 0.01369863]),
    (24, [1, 3, 1, 2, 1, 1, 1, 1], "approx", 2,
     [0.02739726, 0.17158258, 0.02739726, 0.35415167, 0.03755767, 0.03755767, 0.07863251, 0.02739726]),
    (35, [1, 3, 1, 2, 1, 1, 1, 1], "exact", 1,
     [0.01355297, 0.08579129, 0.01355297, 0.17707583, 0.01877883, 0.01877883, 0.03931625, 0.01355297]),
    (45, [1, 3, 1, 2, 1, 1, 1, 1], "exact", 2,
     [0.02710594, 0.17158258, 0.02710594, 0.35415167, 0.03755767, 0.03755767, 0.07863251, 0.02710594]),
]


@pytest.mark.parametrize(("line", "c", "method", "qual", "rk"), INDIV, ids=[f"line{c[0]}" for c in INDIV])
def test_indivrisk_goldens(line, c, method, qual, rk):
    freq = sample_frequencies(_abc([2, 3, 2, 2, 3, 3, 1, 2], [3, 3, 3, 3, 3, 3, 4, 3], c), ["A", "B", "C"],
                              weights=W8)
    np.testing.assert_allclose(individual_risk(freq, method=method, qual=qual), rk, atol=5e-9)
    # survey=FALSE (lines 19, 29, …): 1/fk whatever the weights
    np.testing.assert_allclose(individual_risk(freq, survey=False), 1 / freq.fk)


def test_indivrisk_with_missing_values():
    """test_indivRisk.R, "with missing" weighted block: approx (line 118) and exact (line 139)."""
    frame = _abc([2, 3, 2, 2, 3, 3, 1, NAN], [3, 3, 3, 3, 3, 3, 4, 3], [1, 3, NAN, 2, 1, 1, NAN, 1])
    freq = sample_frequencies(frame, ["A", "B", "C"], weights=W8)
    np.testing.assert_allclose(individual_risk(freq), [0.013698630, 0.085791288, 0.010554090, 0.032466112,
                                                       0.009836066, 0.009836066, 0.039316254, 0.005973716], atol=5e-10)
    np.testing.assert_allclose(individual_risk(freq, method="exact"),
                               [0.013552968, 0.085791288, 0.010504889, 0.032466112, 0.009756889, 0.009756889,
                                0.039316254, 0.005962551], atol=5e-10)


# ------------------------------------------------------------------ francdat (man/freqCalc.Rd examples)
def test_francdat_example():
    """``freqCalc(francdat, keyVars=c(2,4,5,6), w=8)`` and ``indivRisk`` (man/freqCalc.Rd line 50), run in sdcMicro."""
    r = survey_risk(FRANCDAT, FRANC_KEYS, weights="w")
    np.testing.assert_array_equal(r.fk, [2, 2, 2, 1, 1, 1, 1, 2])
    np.testing.assert_array_equal(r.Fk, [110.0, 84.5, 84.5, 17.0, 541.0, 8.0, 5.0, 110.0])
    np.testing.assert_allclose(r.risk, [0.0171442615962852, 0.0220423261832562, 0.0220423261832562, 0.1770758340035135,
                                        0.0116544801460120, 0.2970630773828337, 0.4023594781085251, 0.0171442615962852],
                               rtol=1e-13)
    assert r.expected_reidentifications == pytest.approx(r.risk.sum()) and r.global_risk == pytest.approx(r.risk.mean())


FRANC_MISSING_RK = {  # man/freqCalc.Rd lines 56-70 (francdat with 5 NAs, alpha 1 / 0.5 / 0.1), run in sdcMicro
    1.0: ([3, 2, 4, 3, 3, 2, 2, 3], [149, 84.5, 194.5, 563, 566, 549, 22, 149],
          [0.00996677740863787, 0.0220423261832562, 0.00680851063829787, 0.00265721877767936, 0.0026431718061674,
           0.00358124319440993, 0.0760210472720163, 0.00996677740863787]),
    0.5: ([2.5, 1.5, 4, 2.5, 2, 1.5, 1.5, 2.5], [129.5, 65, 194.5, 292.5, 553.5, 278.5, 13.5, 129.5],
          [0.0127064803049555, 0, 0.00680851063829787, 0.0056657223796034, 0.00355252194160538, 0, 0,
           0.0127064803049555]),
}


@pytest.mark.parametrize("alpha", sorted(FRANC_MISSING_RK))
def test_francdat_missing_values_and_alpha(alpha):
    x = FRANCDAT.astype(float)
    x.loc[2, "Key3"] = NAN
    x.loc[3, ["Key1", "Key2"]] = NAN
    x.loc[4, "Key4"] = NAN
    x.loc[5, "Key1"] = NAN
    fk, Fk, rk = FRANC_MISSING_RK[alpha]
    freq = sample_frequencies(x, FRANC_KEYS, weights="w", alpha=alpha)
    np.testing.assert_allclose(freq.fk, fk)
    np.testing.assert_allclose(freq.Fk, Fk)
    risk = individual_risk(freq)
    fractional = (freq.fk > 1) & (freq.fk < 2)
    np.testing.assert_allclose(risk[~fractional], np.asarray(rk)[~fractional], rtol=1e-12)
    # sdcMicro gives risk 0 to a record with 1 < fk < 2; anonkit takes the fk = 1 formula (the larger risk)
    assert (fractional.any()) == (alpha < 1)
    pk = freq.fk[fractional] / freq.Fk[fractional]
    np.testing.assert_allclose(risk[fractional], pk / (1 - pk) * np.log(1 / pk))
    assert (risk[fractional] > 0).all()


# ------------------------------------------------------------------ sdcMicro's data: testdata (households, NAs), free1
TD_KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]
F1_KEYS = ["REGION", "SEX", "AGE", "MARSTAT", "KINDPERS", "EDUC1"]


def test_testdata_households_and_missing_values():
    data = pd.read_csv(DATA / "sdcmicro_testdata300.csv")
    want = pd.read_csv(DATA / "sdcmicro_testdata300_expected.csv")
    r = survey_risk(data, TD_KEYS, weights="sampling_weight", households="ori_hid")
    np.testing.assert_array_equal(r.fk, want.fk)
    np.testing.assert_array_equal(r.Fk, want.Fk)
    np.testing.assert_allclose(r.risk, want.risk, rtol=1e-12)
    np.testing.assert_allclose(r.household_risk, want.hier_risk, rtol=1e-12)
    # measure_riskWORK's totals: global_risk_ER, global_risk, hier_risk_ER, hier_risk
    assert r.expected_reidentifications == pytest.approx(1.4047962279501, rel=1e-12)
    assert r.global_risk == pytest.approx(0.004682654093167, rel=1e-12)
    assert r.household_expected_reidentifications == pytest.approx(7.44062565291967, rel=1e-12)
    assert r.household_global_risk == pytest.approx(0.0248020855097322, rel=1e-12)
    half = survey_risk(data, TD_KEYS, weights="sampling_weight", alpha=0.5)
    np.testing.assert_array_equal(half.fk, want.fk_a05)
    np.testing.assert_array_equal(half.Fk, want.Fk_a05)
    same = ~((half.fk > 1) & (half.fk < 2))
    assert (~same).sum() == 3  # sdcMicro: risk 0 for those three; anonkit: the fk = 1 formula
    np.testing.assert_allclose(half.risk[same], want.risk_a05[same], rtol=1e-12)
    assert (half.risk[~same] > 0).all() and (want.risk_a05[~same] == 0).all()


def test_free1_varying_weights_approx_and_exact():
    data = pd.read_csv(DATA / "sdcmicro_free1_300.csv")
    want = pd.read_csv(DATA / "sdcmicro_free1_300_expected.csv")
    r = survey_risk(data, F1_KEYS, weights="WEIGHT")
    np.testing.assert_array_equal(r.fk, want.fk)
    np.testing.assert_allclose(r.Fk, want.Fk, rtol=1e-14)
    np.testing.assert_allclose(r.risk, want.risk, rtol=1e-12)
    assert r.expected_reidentifications == pytest.approx(10.3313602671751, rel=1e-12)
    exact = individual_risk(sample_frequencies(data, F1_KEYS, weights="WEIGHT"), method="exact")
    np.testing.assert_allclose(exact, want.risk_exact, rtol=1e-10)


# ------------------------------------------------------------------ households, hand-computed
def test_household_risk_by_hand():
    risk = np.array([0.5, 0.2, 0.1, 1.0, 0.0])
    got = household_risk(risk, np.array(["a", "a", "b", "c", "c"]))
    np.testing.assert_allclose(got, [1 - 0.5 * 0.8, 1 - 0.5 * 0.8, 0.1, 1.0, 1.0])


# ------------------------------------------------------------------ modRisk: tests/testthat/test_modRisks.R
MOD_SAMPLE = pd.DataFrame({  # the set.seed(123) table of test_modRisks.R lines 4-16, printed by R 4.2
    "Var1": list("BCBCCABCBB"), "Var2": list("2122121112"), "Var3": list("5445443322"), "weights": [100.0] * 10,
})
MOD_GOLDENS = [  # (line, method, bound, gr1 to 3 digits as the test, gr1 and gr2 from sdcMicro's run)
    (23, "default", float("inf"), 0.553, 0.552915951536258, 0.705384209241336),
    (32, "CE", float("inf"), 0.542, 0.541680157934481, 0.698679733343123),
    (41, "PML", float("inf"), 0.553, 0.552915951536258, 0.705384209241336),
    (50, "weightedLLM", float("inf"), 0.408, 0.407966313196016, 0.613254425550644),
    (68, "default", 1.5, 0.622, 0.62203044547829, 0.793557235396503),
]


@pytest.mark.parametrize(("line", "method", "bound", "rounded", "gr1", "gr2"), MOD_GOLDENS,
                         ids=[f"line{c[0]}-{c[1]}" for c in MOD_GOLDENS])
def test_modrisk_goldens(line, method, bound, rounded, gr1, gr2):
    r = loglinear_risk(MOD_SAMPLE, ["Var1", "Var2", "Var3"], weights="weights", method=method, bound=bound)
    assert round(r.gr1, 3) == rounded
    assert r.gr1 == pytest.approx(gr1, rel=1e-9) and r.gr2 == pytest.approx(gr2, rel=1e-9)
    assert r.converged


@pytest.mark.parametrize(("method", "gr1", "gr2"), [
    ("default", 0.189996243872372, 0.276224742345834), ("CE", 0.184351073572132, 0.272013676751995),
    ("PML", 0.187857003759897, 0.274583465054728), ("weightedLLM", 0.246801299357569, 0.319386763405375),
])
def test_modrisk_free1_numeric_keys(method, gr1, gr2):
    """``modRisk(f1, method, formulaM = ~SEX+MARSTAT+KINDPERS+EDUC1, weights = "WEIGHT")``.

    R enters numeric keys linearly; ``numeric=`` asks for that."""
    data = pd.read_csv(DATA / "sdcmicro_free1_300.csv")
    keys = ["SEX", "MARSTAT", "KINDPERS", "EDUC1"]
    r = loglinear_risk(data, keys, weights="WEIGHT", method=method, numeric=keys)
    assert r.gr1 == pytest.approx(gr1, rel=1e-9) and r.gr2 == pytest.approx(gr2, rel=1e-9)


def test_modrisk_factor_keys_with_an_interaction():
    """The same keys as factors with ``SEX:MARSTAT`` (sdcMicro: 0.255917829773419, 0.315651293102139)."""
    data = pd.read_csv(DATA / "sdcmicro_free1_300.csv")
    r = loglinear_risk(data, ["SEX", "MARSTAT", "KINDPERS", "EDUC1"], weights="WEIGHT",
                       interactions=[("SEX", "MARSTAT")])
    assert r.gr1 == pytest.approx(0.255917829773419, rel=1e-9) and r.gr2 == pytest.approx(0.315651293102139, rel=1e-9)
    main = loglinear_risk(data, ["SEX", "MARSTAT", "KINDPERS", "EDUC1"], weights="WEIGHT")
    assert main.gr1 != pytest.approx(r.gr1)  # the interaction changes the fit


# ------------------------------------------------------------------ properties
def _brute_counts(codes: np.ndarray, values: np.ndarray, alpha: float) -> np.ndarray:
    """Every pair of records: sdcMicro's wildcard rule written out (records, not distinct keys)."""
    n, m = codes.shape
    out = np.zeros(n)
    na = codes < 0
    for i in range(n):
        if na[i].all():
            out[i] = values.sum()
            continue
        for j in range(n):
            if not all(codes[i, c] == codes[j, c] or na[i, c] or na[j, c] for c in range(m)):
                continue
            if (codes[i] == codes[j]).all():
                out[i] += values[j]
            elif na[j].all() and not na[i].any() and m > 1:
                continue  # sdcMicro: an all-missing key is not counted into complete keys (two or more keys)
            elif na[j].any():
                out[i] += alpha * values[j]
            else:
                out[i] += values[j]
    return out


tables = st.integers(1, 3).flatmap(lambda m: st.lists(
    st.lists(st.integers(-1, 2), min_size=m, max_size=m), min_size=1, max_size=12))


@settings(max_examples=60, deadline=None)
@given(rows=tables, alpha=st.sampled_from([1.0, 0.5, 0.0]), seed=st.integers(0, 2**16))
def test_wildcard_counts_match_brute_force(rows, alpha, seed):
    codes = np.array(rows, dtype=np.int64)
    w = np.random.default_rng(seed).uniform(1, 50, size=len(rows))
    freq = sample_frequencies(codes, weights=w, alpha=alpha)
    np.testing.assert_allclose(freq.fk, _brute_counts(codes, np.ones(len(rows)), alpha))
    np.testing.assert_allclose(freq.Fk, _brute_counts(codes, w, alpha))


@settings(max_examples=40, deadline=None)
@given(rows=tables)
def test_without_weights_Fk_is_fk_and_risk_is_one_over_fk(rows):
    codes = np.array(rows, dtype=np.int64)
    r = survey_risk(codes)
    np.testing.assert_array_equal(r.Fk, r.fk)
    np.testing.assert_allclose(r.risk, 1 / r.fk)


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=15),
       weights=st.lists(st.floats(1, 1e4), min_size=15, max_size=15), hh=st.lists(st.integers(0, 4), min_size=15,
                                                                                  max_size=15))
def test_population_unique_has_risk_one_and_risks_are_probabilities(rows, weights, hh):
    codes = np.array(rows, dtype=np.int64)
    w = np.array(weights[: len(rows)])
    w[0] = 1.0  # record 0 stands for itself only
    r = survey_risk(codes, weights=w, households=hh[: len(rows)])
    if r.fk[0] == 1:
        assert r.Fk[0] == 1 and r.risk[0] == 1.0  # a population unique
    assert ((r.risk > 0) & (r.risk <= 1 + 1e-12)).all()
    assert (r.household_risk >= r.risk - 1e-12).all() and (r.household_risk <= 1 + 1e-12).all()


def test_records_in_any_order_give_the_same_figures():
    data = pd.read_csv(DATA / "sdcmicro_testdata300.csv")
    order = np.random.default_rng(7).permutation(len(data))
    a = survey_risk(data, TD_KEYS, weights="sampling_weight", households="ori_hid")
    b = survey_risk(data.iloc[order].reset_index(drop=True), TD_KEYS, weights="sampling_weight", households="ori_hid")
    np.testing.assert_allclose(b.risk, a.risk[order], rtol=1e-15)
    np.testing.assert_allclose(b.household_risk, a.household_risk[order], rtol=1e-12)


# ------------------------------------------------------------------ refusals (fail closed), each with its control
GOOD = pd.DataFrame({"a": [1, 1, 2], "b": ["x", "y", "y"], "w": [10.0, 20.0, 1.0], "h": [1, 1, 2]})

REFUSALS = [
    ("weight below 1", dict(weights=[10.0, 0.5, 1.0]), "below 1"),
    ("NaN weight", dict(weights=[10.0, NAN, 1.0]), "missing, infinite or below 1"),
    ("infinite weight", dict(weights=[10.0, np.inf, 1.0]), "missing, infinite or below 1"),
    ("text weight", dict(weights=["10", "x", "1"]), "not a number"),
    ("short weights", dict(weights=[10.0, 2.0]), "2 weights for 3 records"),
    ("unknown weight column", dict(weights="nope"), "weight variable is not a column"),
    ("missing household", dict(households=[1, None, 2]), "household id is missing"),
    ("short households", dict(households=[1, 2]), "2 household ids for 3 records"),
    ("alpha above 1", dict(alpha=1.5), "alpha must be a number between 0 and 1"),
    ("alpha is text", dict(alpha="1"), "alpha must be a number between 0 and 1"),
    ("unknown key", dict(keys=["a", "zz"]), "not a column of the data"),
    ("key twice", dict(keys=["a", "a"]), "named twice"),
    ("no keys", dict(keys=[]), "no key variables"),
]


@pytest.mark.parametrize(("what", "change", "words"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_bad_inputs_are_refused_in_one_line(what, change, words):
    args = {"keys": ["a", "b"], "weights": "w", "households": "h", **change}
    keys = args.pop("keys")
    with pytest.raises(InputError) as info:
        survey_risk(GOOD, keys, **args)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_control_of_the_refusals_runs():
    r = survey_risk(GOOD, ["a", "b"], weights="w", households="h", alpha=1)
    assert r.fk.tolist() == [1, 1, 1] and r.risk[2] == 1.0  # weight 1: a population unique


def test_bad_codes_and_methods_are_refused():
    with pytest.raises(InputError, match="below -1"):
        sample_frequencies(np.array([[0, -2]]))
    with pytest.raises(InputError, match="must be integers"):
        sample_frequencies(np.array([[0.5, 1.0]]))
    with pytest.raises(InputError, match="2-D"):
        key_codes(np.array([1, 2]))
    freq = sample_frequencies(np.array([[0], [0], [0]]), weights=[5.0, 5.0, 5.0])
    with pytest.raises(InputError, match="unknown individual-risk method"):
        individual_risk(freq, method="fast")
    with pytest.raises(InputError, match="qual"):
        individual_risk(freq, qual=0)
    assert individual_risk(freq, method="exact")[0] == pytest.approx(individual_risk(freq, method="exact")[1])


def test_exact_risk_refuses_where_it_overflows_and_fractional_counts():
    """sdcMicro's exact series is NaN from fk = 176 (issue 28); anonkit refuses above EXACT_MAX_FK."""
    big = SampleFrequencies(np.full(1, EXACT_MAX_FK + 1.0), np.full(1, 10 * EXACT_MAX_FK + 10.0), 1.0, True)
    with pytest.raises(InputError, match="overflows"):
        individual_risk(big, method="exact")
    ok = SampleFrequencies(np.full(1, 50.0), np.full(1, 500.0), 1.0, True)
    assert 0 < individual_risk(ok, method="exact")[0] < 1
    frac = SampleFrequencies(np.full(1, 3.5), np.full(1, 40.0), 0.5, True)
    with pytest.raises(InputError, match="whole frequencies"):
        individual_risk(frac, method="exact")
    assert individual_risk(frac)[0] > 0


LOGLIN_REFUSALS = [
    (dict(method="IPF"), "unknown log-linear risk method"),
    (dict(interactions=[("a", "a")]), "pair of two different key variables"),
    (dict(interactions=[("a", "w")]), "pair of two different key variables"),
    (dict(numeric=["b"]), "must be numeric"),
    (dict(bound=0), "bound must be a number > 0"),
    (dict(weights=[1.0, 0.0, 1.0]), "below 1"),
]


@pytest.mark.parametrize(("change", "words"), LOGLIN_REFUSALS, ids=[w for _, w in LOGLIN_REFUSALS])
def test_loglinear_refusals(change, words):
    args = {"weights": "w", **change}
    with pytest.raises(InputError, match=words):
        loglinear_risk(GOOD, ["a", "b"], **args)


def test_loglinear_refuses_missing_keys_and_huge_tables(monkeypatch):
    missing = GOOD.assign(b=["x", None, "y"])
    with pytest.raises(InputError, match="a value is missing"):
        loglinear_risk(missing, ["a", "b"], weights="w")
    import anonkit.risk.loglinear as ll

    monkeypatch.setattr(ll, "MAX_CELLS", 3)  # only a model with interactions materializes the table
    with pytest.raises(InputError, match="4 cells"):
        loglinear_risk(GOOD, ["a", "b"], weights="w", interactions=[("a", "b")])
    assert loglinear_risk(GOOD, ["a", "b"], weights="w").cells == 3  # main effects: never the table
    monkeypatch.setattr(ll, "MAX_CELLS", 4)
    assert loglinear_risk(GOOD, ["a", "b"], weights="w", interactions=[("a", "b")]).cells == 3  # the control


def _dense_modrisk(data, keys, w, method, interactions, numeric):
    """A reference: R's IRLS on the dense full-grid design (every level combination), lstsq each step."""
    levels = [pd.unique(data[k]) for k in keys]
    mesh = np.meshgrid(*[np.arange(len(v)) for v in levels], indexing="ij")
    grid = [m.ravel() for m in mesh]
    cell = np.zeros(len(data), dtype=np.int64)
    for k, v in zip(keys, levels, strict=True):
        cell = cell * len(v) + pd.Index(v).get_indexer(data[k])
    size = grid[0].size
    counts = np.bincount(cell, minlength=size).astype(float)
    wsum, incl = np.bincount(cell, w, size), np.bincount(cell, 1 / w, size)

    def block(j):
        if keys[j] in numeric:
            return levels[j].astype(float)[grid[j]][:, None]
        return np.eye(len(levels[j]))[grid[j]][:, 1:]

    cols = [np.ones((size, 1))] + [block(j) for j in range(len(keys))]
    for a, b in interactions:
        ba, bb = block(keys.index(a)), block(keys.index(b))
        cols.append((ba[:, :, None] * bb[:, None, :]).reshape(size, -1))
    y, off = counts, np.zeros(size)
    if method == "CE":
        off = np.log(np.where(wsum > 0, counts / np.where(wsum > 0, wsum, 1), 0) + 0.1)
    elif method == "PML":
        y = np.round(wsum * counts.sum() / wsum.sum())
    elif method == "weightedLLM":
        cols.append(wsum[:, None])
    x = np.hstack(cols)
    mu = y + 0.1
    eta = np.log(mu)

    def dev(mu):
        return 2 * np.sum(np.where(y > 0, y * np.log(np.where(y > 0, y, 1) / mu), 0) - (y - mu))

    old = dev(mu)
    for _ in range(25):
        sw = np.sqrt(mu)
        beta = np.linalg.lstsq(x * sw[:, None], (eta - off + (y - mu) / mu) * sw, rcond=None)[0]
        eta = x @ beta + off
        mu = np.exp(eta)
        new = dev(mu)
        if abs(new - old) / (abs(new) + 0.1) < 1e-8:
            break
        old = new
    else:
        return None
    keep = counts > 0
    v = (1 - incl[keep & (counts == 1)]) * mu[keep & (counts == 1)]
    match = np.where(v > 0, (1 - np.exp(-v)) / np.where(v > 0, v, 1), 1)
    return np.sum(np.exp(-v)) / keep.sum(), np.sum(match) / keep.sum()


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_loglinear_matches_the_dense_full_grid_fit(draw):
    """The fit on the observed cells' rows plus the table's sums (product form, or the materialized table with
    interactions) is R's IRLS on the dense full-grid design — any method, numeric keys, interactions."""
    n = draw.draw(st.integers(3, 30))
    cols = {k: draw.draw(st.lists(st.integers(0, size), min_size=n, max_size=n))
            for k, size in (("a", 3), ("b", 2), ("c", 4))}
    w = np.array(draw.draw(st.lists(st.integers(1, 300), min_size=n, max_size=n)), dtype=float)
    data = pd.DataFrame(cols).assign(w=w)
    method = draw.draw(st.sampled_from(["default", "CE", "PML", "weightedLLM"]))
    numeric = draw.draw(st.sampled_from([[], ["c"]]))
    interactions = draw.draw(st.sampled_from([[], [("a", "b")], [("a", "c"), ("b", "c")]]))
    keys = ["a", "b", "c"]
    with np.errstate(all="ignore"):
        try:
            got = loglinear_risk(data, keys, weights="w", method=method, interactions=interactions, numeric=numeric)
        except InputError as e:  # R's glm stops too when no step halving finds a finite deviance
            assert method == "weightedLLM" and "diverges" in str(e)
            return
        try:
            want = _dense_modrisk(data, keys, w, method, interactions, numeric)
        except np.linalg.LinAlgError:  # the dense reference overflows (it has no step halving)
            want = None
    if method != "weightedLLM":  # the other methods always have a maximum-likelihood fit
        assert got.converged and want is not None
    if want is None or not got.converged:  # a diverging weightedLLM: the 25th step's figures vary
        return
    gr1, gr2 = want
    # Both fits stop at a relative deviance change below 1e-8; where a step's change lies within rounding of
    # that threshold, one fit may take one more step than the other, which moves a risk by up to ~1e-6
    # relative (a = b = 0, c = [1, 0, 0, 0, 0, 0], w = [2, 1, 1, 1, 1, 18], PML: 4.7e-7). A wrong fit is off
    # by far more.
    assert got.gr1 == pytest.approx(gr1, rel=2e-6, abs=1e-12) and got.gr2 == pytest.approx(gr2, rel=2e-6, abs=1e-12)


def test_loglinear_without_weights_uses_one():
    ones = loglinear_risk(MOD_SAMPLE, ["Var1", "Var2", "Var3"], weights=[1.0] * 10)
    assert loglinear_risk(MOD_SAMPLE, ["Var1", "Var2", "Var3"]).to_dict() == ones.to_dict()
    # weight 1: inclusion probability 1, so v = 0 for every unique cell; tau1 = tau2 = uniques / cells kept
    # (R: exp(0) = 1 for tau1, but 0/0 = NaN for tau2; anonkit takes tau2's limit, 1)
    uniques = int((MOD_SAMPLE.groupby(["Var1", "Var2", "Var3"]).size() == 1).sum())
    assert ones.gr1 == pytest.approx(uniques / ones.cells) and ones.gr2 == pytest.approx(uniques / ones.cells)
