"""Re-identification risk on class sizes (``anonkit.risk``): prosecutor, journalist and marketer risk,
sample uniqueness, the risk distribution and the class-size histogram.

Where the expected figures come from:

* **ARX's JUnit tests** — ``TestRiskMetrics`` (arx-deidentifier/arx, src/test/org/deidentifier/arx/
  test/TestRiskMetrics.java): average and highest risk of ARX's 7-record test table and of Adult,
  before and after 2-anonymity.
* **ARX itself** — ARX 3.9.2 (commit aacd487, built from its sources, run with Java 17 outside this
  project; nothing of it is kept here): the figures ARX printed are pasted as constants. The runs
  were (1) ``TestRiskMetrics.getAnonymizedData`` on ``data/adult.csv`` (2-anonymity, no suppression,
  loss metric with RANK: ARX's optimum is sex 0, age 4, race 1, marital-status 2, education 1,
  native-country 2, workclass 2, occupation 1, salary-class 0), then ``getRiskEstimator(...)``'s
  ``getEquivalenceClassModel().getHistogram()``, ``getSampleBasedRiskSummary(0.2)`` and
  ``getSampleBasedRiskDistribution()``; (2) a research subset of Adult (rows ``i % 10 == 0``, QIs
  age, sex, race, marital-status with ARX's hierarchies, ``Inclusion(subset)`` + 5-anonymity,
  suppression limit 5 %: optimum age 3, others 0, 117 subset records suppressed), then
  ``getSampleBasedRiskSummary(t)`` on the input's and the output's subset views (whose superset is
  the whole table: ARX's journalist/marketer population).
* **Closed forms** worked by hand on small tables.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from anonkit.algorithms.lattice.fixed import fixed
from anonkit.errors import InputError
from anonkit.metrics.risk import prosecutor_risk
from anonkit.metrics.risk import sample_uniqueness as metrics_sample_uniqueness
from anonkit.models import KAnonymity
from anonkit.risk import (
    RISK_BINS,
    class_size_histogram,
    population_uniqueness,
    reidentification_risk,
    risk_distribution,
    sample_uniqueness,
)
from anonkit.risk.thresholds import DEFAULT_HIGHEST_RISK
from anonkit.schema import Schema
from anonkit.table import Table

# ARX's optimum for TestRiskMetrics.getAnonymizedData on Adult (levels in adult.csv's column order)
ADULT_2ANON = {"sex": 0, "age": 4, "race": 1, "marital-status": 2, "education": 1, "native-country": 2,
               "workclass": 2, "occupation": 1, "salary-class": 0}


def _plain(value: object) -> bool:
    """Only JSON's own types (no numpy scalars), all the way down."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return value is None or type(value) in (bool, int, float, str)


@pytest.fixture(scope="module")
def adult_table(adult) -> Table:
    frame, hierarchies = adult
    return Table(frame, Schema.of(quasi=list(frame.columns), hierarchies=hierarchies))


@pytest.fixture(scope="module")
def adult_2anon(adult_table: Table):
    levels = [ADULT_2ANON[q] for q in adult_table.qi]
    return fixed(adult_table, [KAnonymity(2)], levels=levels, max_suppression=0.0)


# ------------------------------------------------------------------------------- closed forms (by hand)


def test_prosecutor_closed_forms() -> None:
    # 10 records in classes of 1, 2, 2, 5: risks 1, 1/2, 1/2, 1/5
    r = reidentification_risk([1, 2, 2, 5])
    p = r.prosecutor
    assert (p.highest, p.lowest) == (1.0, 0.2)
    assert p.average == 4 / 10  # ARX: #classes / #records
    assert p.records_at_risk == 5 / 10  # 1/5 is not above 0.2
    assert p.records_at_highest == 1 / 10 and p.records_at_lowest == 5 / 10
    assert (r.records, r.classes, r.threshold) == (10, 4, DEFAULT_HIGHEST_RISK)
    # no population table: the release is its own population (ARX RiskModelSampleSummary)
    assert r.journalist == p
    assert r.marketer.average == 4 / 10
    assert not r.population_table and "journalist risk equals prosecutor risk" in r.note
    assert reidentification_risk([1, 2, 2, 5], threshold=0.5).prosecutor.records_at_risk == 1 / 10
    assert reidentification_risk([1, 2, 2, 5], threshold=0.0).prosecutor.records_at_risk == 1.0


def test_journalist_and_marketer_closed_forms() -> None:
    # sample classes of 1, 2, 3 records; the population table has 4, 2, 6 records in them
    r = reidentification_risk([1, 2, 3], population_sizes=[4, 2, 6])
    j = r.journalist
    assert (j.highest, j.lowest) == (1 / 2, 1 / 6)
    assert j.records_at_risk == 3 / 6  # 1/4 and 1/2 exceed 0.2, 1/6 does not
    assert j.records_at_highest == 2 / 6 and j.records_at_lowest == 3 / 6
    share = (1 / 4 + 2 / 2 + 3 / 6) / 6  # expected share re-identified: Σ s/F over n
    assert j.average == pytest.approx(max(3 / 12, share), rel=1e-15)
    assert r.marketer.average == pytest.approx(share, rel=1e-15)
    assert r.prosecutor.highest == 1.0 and r.population_table
    # ARX's journalist success rate is the larger of #classes/ΣF and Σ(s/F)/n: here the first
    r = reidentification_risk([5, 1], population_sizes=[15, 14])
    assert r.journalist.average == pytest.approx(2 / 29, rel=1e-15)
    assert r.marketer.average == pytest.approx((5 / 15 + 1 / 14) / 6, rel=1e-15)
    assert r.journalist.average > r.marketer.average


def test_population_size_alone_leaves_the_risks_as_arx() -> None:
    # ARX's summaries ignore the population model: with a size only, journalist = prosecutor
    plain = reidentification_risk([1, 2, 2, 5])
    sized = reidentification_risk([1, 2, 2, 5], population=1000)
    assert (sized.prosecutor, sized.journalist, sized.marketer) == (plain.prosecutor, plain.journalist,
                                                                    plain.marketer)
    assert (sized.population_size, sized.sampling_fraction) == (1000, 0.01)
    assert "population size enters only population uniqueness" in sized.note
    assert reidentification_risk([1, 2, 2, 5], sampling_fraction=0.1).population_size == 100
    assert reidentification_risk([1, 2, 2, 5], population="UK").region == "uk"


def test_empty_classes_are_not_published() -> None:
    # a class whose records were all suppressed (size 0) carries no risk, with or without population
    assert reidentification_risk([0, 2, 2]) == reidentification_risk([2, 2])
    assert reidentification_risk([0, 2], population_sizes=[3, 4]).journalist.highest == 1 / 4
    empty = reidentification_risk([])
    assert empty.records == 0 and empty.prosecutor.highest == 0.0 and empty.marketer.average == 0.0
    assert reidentification_risk([0, 0]).prosecutor.average == 0.0
    assert sample_uniqueness([]) == 0.0
    assert class_size_histogram([0, 0]).n_classes == 0
    assert risk_distribution([]).cumulative[-1] == 0.0


def test_sample_uniqueness() -> None:
    assert sample_uniqueness([1, 1, 3, 5]) == 2 / 10
    assert sample_uniqueness(np.array([2.0, 4.0])) == 0.0


# ------------------------------------------------------------------------------------ ARX's figures


def test_arx_test_table_figures() -> None:
    # TestRiskMetrics.testAverageRisk / testHighestIndividualRisk on ARX's 7-record test table (data/
    # test.csv: every record unique in age, gender, zipcode). Its 2-anonymous output has average risk
    # 0.42857142857142855 = 3 classes / 7 records and highest risk 0.5: three classes, the smallest of
    # 2 — so the sizes are {2, 2, 3}.
    raw = reidentification_risk([1] * 7).prosecutor
    assert (raw.average, raw.highest) == (1.0, 1.0)
    anon = reidentification_risk([2, 2, 3]).prosecutor
    assert (anon.average, anon.highest) == (0.42857142857142855, 0.5)


def test_arx_adult_raw(adult) -> None:
    # TestRiskMetrics.testAverageRisk2 / testHighestIndividualRisk2, before anonymization
    frame, _ = adult
    sizes = frame.groupby(list(frame.columns)).size().to_numpy()
    p = reidentification_risk(sizes).prosecutor
    assert p.average == 0.6465751607983555
    assert p.highest == 1.0
    assert sample_uniqueness(sizes) == 0.5142895033485844  # TestRiskMetrics.testDecisionRule2


def test_arx_adult_anonymized(adult_2anon) -> None:
    # TestRiskMetrics.testAverageRisk2 / testHighestIndividualRisk2, after 2-anonymity
    sizes = adult_2anon.class_people()
    r = reidentification_risk(sizes)
    assert r.prosecutor.average == 0.001922949406538028
    assert r.prosecutor.highest == 0.5
    # ARX run (1): RiskModelSampleRisks.getLowestRisk, summary at 0.2 (records at risk)
    assert r.prosecutor.lowest == 3.372681281618887e-4
    assert r.prosecutor.records_at_risk == 1.657715005636231e-4
    assert r.journalist == r.prosecutor and r.marketer.average == 0.001922949406538028
    # ARX run (1): getEquivalenceClassModel().getHistogram() — size, classes, size, classes, …
    arx_histogram = [
        2, 1, 3, 1, 5, 1, 6, 1, 7, 1, 10, 1, 34, 1, 36, 1, 37, 2, 42, 1, 46, 1, 48, 1, 62, 1, 69, 1, 70, 1, 72, 1,
        77, 1, 80, 1, 93, 1, 113, 1, 114, 1, 119, 1, 128, 1, 147, 1, 157, 1, 166, 1, 186, 1, 188, 1, 203, 1, 252,
        1, 262, 1, 268, 1, 271, 1, 305, 1, 353, 1, 429, 1, 431, 1, 433, 1, 481, 1, 512, 1, 513, 1, 554, 1, 672, 1,
        681, 1, 886, 1, 941, 1, 1008, 1, 1026, 1, 1410, 1, 1501, 1, 1607, 1, 1633, 1, 1710, 1, 1716, 1, 2256, 1,
        2729, 1, 2965, 1,
    ]  # fmt: skip
    h = class_size_histogram(sizes)
    assert [x for pair in zip(h.sizes, h.classes, strict=True) for x in pair] == arx_histogram
    assert (h.n_classes, h.n_records) == (58, 30162)
    assert h.average_size == 30162 / 58
    # ARX run (1): getSampleBasedRiskDistribution().getFractionOfRecordsForRiskThresholds()
    arx_distribution = [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.6485312645050063, 0.3237517406007559, 0.01733969895895498,
        0.009283204031562894, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.315430011272462e-4, 0.0, 2.3208010078907233e-4,
        1.9892580067634773e-4, 1.657715005636231e-4, 0.0, 9.946290033817386e-5, 6.630860022544923e-5, 0.0,
    ]  # fmt: skip
    d = risk_distribution(sizes)
    assert list(d.records) == arx_distribution
    assert d.attacker == "prosecutor"
    assert d.cumulative[-1] == 1.0


# ARX run (2): (threshold, view) → prosecutor (records at risk, highest, success rate, lowest),
# journalist (records at risk, highest, success rate, lowest), marketer success rate
ARX_SUBSET = {
    (0.2, "input"): ((0.2777593636062314, 1.0, 0.22174345376201524, 0.023809523809523808),
                     (0.05966191581040769, 1.0, 0.05573773695853165, 0.0024813895781637717), 0.05573773695853165),
    (0.5, "input"): ((0.10772290354656944, 1.0, 0.22174345376201524, 0.023809523809523808),
                     (0.015909844216108717, 1.0, 0.05573773695853165, 0.0024813895781637717), 0.05573773695853165),
    (0.05, "input"): ((0.5764003977461054, 1.0, 0.22174345376201524, 0.023809523809523808),
                      (0.1912495856811402, 1.0, 0.05573773695853165, 0.0024813895781637717), 0.05573773695853165),
    (0.2, "output"): ((0.0, 0.2, 0.018275862068965518, 0.0019120458891013384),
                      (0.0, 0.041666666666666664, 0.0020384863021921345, 1.8747656542932134e-4),
                      0.0020384863021921345),
    (0.05, "output"): ((0.10793103448275862, 0.2, 0.018275862068965518, 0.0019120458891013384),
                       (0.0, 0.041666666666666664, 0.0020384863021921345, 1.8747656542932134e-4),
                       0.0020384863021921345),
}


@pytest.mark.parametrize(("threshold", "view"), list(ARX_SUBSET))
def test_arx_research_subset(adult, threshold: float, view: str) -> None:
    frame, hierarchies = adult
    qis = ["age", "sex", "race", "marital-status"]
    if view == "output":  # ARX's optimum: age at level 3, the rest at level 0
        h = hierarchies["age"]
        frame = frame.assign(age=h.label(h.generalize(h.encode(frame["age"]), 3), 3))
    sample = frame.iloc[::10].groupby(qis).size()
    if view == "output":  # 5-anonymity within the subset: its smaller classes are suppressed
        assert int(sample[sample < 5].sum()) == 117
        sample = sample[sample >= 5]
    population = frame.groupby(qis).size().loc[sample.index]
    r = reidentification_risk(sample.to_numpy(), population_sizes=population.to_numpy(), threshold=threshold)
    prosecutor, journalist, marketer = ARX_SUBSET[(threshold, view)]
    p, j = r.prosecutor, r.journalist
    assert (p.records_at_risk, p.highest, p.average, p.lowest) == prosecutor
    assert (j.records_at_risk, j.highest, j.lowest) == (journalist[0], journalist[1], journalist[3])
    # ARX sums Σ s/F in its hash order: equal up to the last bit
    assert j.average == pytest.approx(journalist[2], rel=1e-14)
    assert r.marketer.average == pytest.approx(marketer, rel=1e-14)


def test_metrics_prosecutor_risk_agrees(adult_table: Table, adult_2anon) -> None:
    # anonkit.metrics.risk.prosecutor_risk (on a Release) and the class-size model agree
    with_suppression = fixed(adult_table, [KAnonymity(5)], levels=[0, 2, 0, 1, 1, 1, 1, 1, 0], max_suppression=0.1)
    assert with_suppression.n_suppressed > 0
    for release in (adult_2anon, with_suppression):
        sizes = release.class_people()
        for t in (0.01, 0.2, 0.5):
            old = prosecutor_risk(adult_table, release, threshold=t)
            new = reidentification_risk(sizes, threshold=t).prosecutor
            assert (new.highest, new.average, new.lowest, new.records_at_risk) == (
                old.highest, old.average, old.lowest, old.records_at_risk)
        assert sample_uniqueness(sizes) == metrics_sample_uniqueness(adult_table, release)


# ---------------------------------------------------------------------------- distribution, histogram


def test_risk_distribution_closed_form() -> None:
    # 20 records: risk 1 (1 record), 1/3 (3 records), 1/8 (16 records)
    d = risk_distribution([1, 3, 8, 8])
    uppers = [hi for _, hi in RISK_BINS]
    expected = [0.0] * len(RISK_BINS)
    expected[uppers.index(1.0)] = 1 / 20  # (0.5, 1]
    expected[uppers.index(0.334)] = 3 / 20  # (0.25, 0.334]
    expected[uppers.index(0.125)] = 16 / 20  # (0.1, 0.125]: an upper bound is inclusive
    assert list(d.records) == expected
    assert d.cumulative[uppers.index(0.125)] == 16 / 20
    assert d.at_most(0.3) == pytest.approx(19 / 20, rel=1e-15) and d.at_most(1.0) == 1.0
    # with a population table: journalist risk 1/F per record
    j = risk_distribution([1, 3], population_sizes=[1, 30])
    assert j.attacker == "journalist"
    assert j.records[uppers.index(1.0)] == 1 / 4 and j.records[uppers.index(0.04)] == 3 / 4
    out = d.to_dict()
    assert len(out["bins"]) == 24 and out["bins"][0] == {"lower": 0.0, "upper": 1e-8, "records": 0.0,
                                                          "cumulative": 0.0}


def test_class_size_histogram() -> None:
    h = class_size_histogram([3, 1, 3, 0, 7, 1, 1])
    assert (h.sizes, h.classes, h.records) == ((1, 3, 7), (3, 2, 1), (3, 6, 7))
    assert (h.n_classes, h.n_records, h.average_size) == (6, 16, 16 / 6)
    assert h.to_dict() == {"sizes": [1, 3, 7], "classes": [3, 2, 1], "records": [3, 6, 7], "n_classes": 6,
                           "n_records": 16, "average_size": 16 / 6}


def test_results_are_json_ready() -> None:
    sizes = np.array([1, 2, 2, 5, 9], dtype=np.int32)
    for result in (reidentification_risk(sizes, population_sizes=np.array([3, 2, 8, 5, 20]), population=500),
                   reidentification_risk(sizes), risk_distribution(sizes), class_size_histogram(sizes),
                   population_uniqueness(sizes, sampling_fraction=0.05)):
        d = result.to_dict()
        assert _plain(d), d
        json.dumps(d)
    d = reidentification_risk(sizes).to_dict()
    assert set(d) >= {"prosecutor", "journalist", "marketer", "records", "classes", "threshold", "note"}
    assert set(d["prosecutor"]) >= {"highest", "average", "lowest", "records_at_risk"}
    assert set(d["marketer"]) == {"average"}


# ------------------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("call", "key"),
    [
        (lambda: reidentification_risk([1, -2]), "sample_sizes"),
        (lambda: reidentification_risk([1.5, 2]), "sample_sizes"),
        (lambda: reidentification_risk([[1, 2]]), "sample_sizes"),
        (lambda: reidentification_risk(5), "sample_sizes"),
        (lambda: reidentification_risk(["a"]), "sample_sizes"),
        (lambda: reidentification_risk([True, False]), "sample_sizes"),
        (lambda: reidentification_risk([1, np.nan]), "sample_sizes"),
        (lambda: reidentification_risk([2, 3], population_sizes=[2, 2]), "population_sizes"),
        (lambda: reidentification_risk([2, 3], population_sizes=[5]), "population_sizes"),
        (lambda: reidentification_risk([2], threshold=1.5), "threshold"),
        (lambda: reidentification_risk([2], threshold=True), "threshold"),
        (lambda: reidentification_risk([2, 3], population=4), "population"),
        (lambda: reidentification_risk([2, 3], population=10.5), "population"),
        (lambda: reidentification_risk([2, 3], population="atlantis"), "population"),
        (lambda: reidentification_risk([2, 3], population=10, sampling_fraction=0.5), "sampling_fraction"),
        (lambda: reidentification_risk([2, 3], sampling_fraction=0.0), "sampling_fraction"),
        (lambda: reidentification_risk([2, 3], population_sizes=[6, 6], population=10), "population"),
        (lambda: risk_distribution([1], population_sizes=[0]), "population_sizes"),
        (lambda: class_size_histogram([-1]), "sample_sizes"),
    ],
)
def test_bad_input_names_the_key(call, key: str) -> None:
    with pytest.raises(InputError) as err:
        call()
    assert err.value.key == key
    assert "\n" not in str(err.value)


def test_bad_input_names_the_row() -> None:
    with pytest.raises(InputError) as err:
        reidentification_risk([4, 3], population_sizes=[4, 2])
    assert err.value.row == 1 and err.value.value == 2


# ------------------------------------------------------------------------------------------------- speed


def test_adult_times_ten(adult) -> None:
    # every model on Adult ×10 (301,620 records); the timings are benchmarks/bench_speed_claims.py's
    frame, _ = adult
    big = pd.concat([frame] * 10, ignore_index=True)
    sizes = big.groupby(["age", "sex", "race", "marital-status", "education"]).size().to_numpy()
    disjoint = np.tile(frame.groupby(list(frame.columns)).size().to_numpy(), 10)  # 195,020 classes, uniques
    for s in (sizes, disjoint):
        reidentification_risk(s, sampling_fraction=0.1)
        population_uniqueness(s, sampling_fraction=0.1)
        risk_distribution(s)
        assert sum(class_size_histogram(s).classes) == len(s)
        assert 0 <= sample_uniqueness(s) <= 1
