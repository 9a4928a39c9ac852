"""Population uniqueness (``anonkit.risk.population_uniqueness``): Pitman, Zayatz, SNB and Dankar's rule.

Where the expected figures come from:

* **ARX's JUnit tests** — ``TestRiskMetrics.testDecisionRule`` and ``testDecisionRule2``
  (arx-deidentifier/arx, src/test/org/deidentifier/arx/test/TestRiskMetrics.java), which compare
  ``getFractionOfUniqueTuplesDankar()`` to four decimals (``(int) (value * 10000)``).
* **ARX itself** — ARX 3.9.2 (commit aacd487, built from its sources and run with Java 17 outside
  this project; nothing of it is kept here): for a class-size histogram and a population size,
  ``new RiskModelPopulationUniqueness(ARXPopulationModel.create(N), new RiskModelHistogram(histogram),
  ARXSolverConfiguration.create())`` and its ``getNumUniqueTuplesPitman/Zayatz/SNB()``,
  ``getNumUniqueTuplesDankar()`` and ``getPopulationUniquenessModel()``; the numbers ARX printed are
  pasted below (0 is ARX's "no estimate").
* **Independent computations** in this file: Zayatz through scipy's hypergeometric distribution,
  Pitman's likelihood equations summed term by term and solved by scipy, SNB's equations solved by
  scipy, Shlosser's estimate by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import root
from scipy.special import gammaln, polygamma
from scipy.stats import hypergeom

from anonkit.datasets import load_adult
from anonkit.errors import InputError
from anonkit.risk import ARX_START_VALUES, REGIONS, SolverConfig, population_uniqueness, sample_uniqueness
from anonkit.risk._newton import solve
from anonkit.risk._polygamma import arx_digamma, arx_trigamma, trigamma
from anonkit.risk._sizes import size_histogram
from anonkit.risk.estimators import pitman, shlosser_classes, snb, zayatz


def parse(profile: str) -> np.ndarray:
    """Class sizes from ARX's histogram notation ``size:classes size:classes …``."""
    pairs = [tuple(int(v) for v in item.split(":")) for item in profile.split()]
    return np.repeat([s for s, _ in pairs], [c for _, c in pairs])


def truncated(value: float) -> int:
    """ARX's ``compareUniqueness``: four decimals, truncated."""
    return int(value * 10000)


@pytest.fixture(scope="module")
def adult_sizes() -> np.ndarray:
    frame, _ = load_adult()
    return frame.groupby(list(frame.columns)).size().to_numpy()


# ------------------------------------------------------------------------------------ ARX's figures


def test_arx_decision_rule_adult(adult_sizes: np.ndarray) -> None:
    # TestRiskMetrics.testDecisionRule2 (ARXPopulationModel.create(n, f): N = round(n / f))
    su = sample_uniqueness(adult_sizes)
    for fraction, expected, model in [(0.1, 0.27684993883653597, "pitman"), (0.2, 0.3577099234829125, "zayatz"),
                                      (0.01, 0.1446083531167384, "pitman"), (1.0, 0.5142895033485844, "zayatz")]:
        r = population_uniqueness(adult_sizes, sampling_fraction=fraction)
        assert truncated(r.fraction) == truncated(expected), fraction
        assert r.fraction == pytest.approx(expected, rel=1e-9)
        assert truncated(r.fraction) <= truncated(su)
        assert r.model == model  # ARX's test: Pitman at 0.1 ("unexpected convergence of SNB" fails it)
    assert truncated(population_uniqueness(adult_sizes, sampling_fraction=1.0).fraction) == truncated(su)


def test_arx_decision_rule_test_table() -> None:
    # TestRiskMetrics.testDecisionRule: ARX's 7-record test table, every record unique; f = 0.2
    r = population_uniqueness([1] * 7, sampling_fraction=0.2)
    assert truncated(r.fraction) == truncated(1.0) and r.population_size == 35
    assert truncated(r.fraction) <= truncated(sample_uniqueness([1] * 7))
    # its 2-anonymous output (classes of 2, 2 and 3) has no sample uniques, f = 0.1
    r = population_uniqueness([2, 2, 3], sampling_fraction=0.1)
    assert r.fraction == 0.0 and r.model == "dankar"


# ARX run: Adult (all 9 attributes as QIs) — N, then ARX's Pitman, Zayatz, SNB uniques and its model
ARX_ADULT = [
    (301620, 83503.47855187597, 96741.67099172718, 0.0, "pitman"),
    (150810, 50766.87124638239, 53946.23356045803, 0.0, "zayatz"),
    (3016200, 436167.7146707063, 819539.9058719622, 0.0, "pitman"),
    (30162, 15986.581986078201, 15512.0, 15512.000000688842, "zayatz"),
]


@pytest.mark.parametrize(("population", "arx_pitman", "arx_zayatz", "arx_snb", "model"), ARX_ADULT)
def test_arx_estimates_adult(adult_sizes: np.ndarray, population: int, arx_pitman: float, arx_zayatz: float,
                             arx_snb: float, model: str) -> None:
    r = population_uniqueness(adult_sizes, population=population)
    assert r.pitman * population == pytest.approx(arx_pitman, rel=1e-9)
    assert r.zayatz * population == pytest.approx(arx_zayatz, rel=1e-12)
    if arx_snb == 0.0:
        assert r.snb is None and "snb" in r.failed
    else:
        assert r.snb * population == pytest.approx(arx_snb, rel=1e-9)
    assert r.model == model
    assert r.dankar == getattr(r, model)


# ARX run: histograms of the cross-check (Adult subsets and samples, synthetic, tiny) — histogram, N,
# ARX's Pitman, Zayatz, SNB uniques and the model Dankar's rule chose
ARX_PROFILES = [
    # SNB below Zayatz at f ≈ 0.99: SNB
    ("1:1221 2:88 3:25 4:5 5:2 6:1", 1523, 1489.8269401127734, 1231.3890297901305, 1231.3543074585234, "snb"),
    # Pitman without estimate (its first pass runs away), f > 0.1: SNB
    ("1:1051 2:672 3:365 4:126 5:57 6:27 7:3 8:2", 4523, 0.0, 1048.117477947064, 1047.6686290081755, "snb"),
    # f ≤ 0.1 and Pitman without estimate: Zayatz (ARX's fallback)
    ("1:506 2:30 3:2", 5720, 0.0, 4532.6451243185265, 0.0, "zayatz"),
    ("1:104 2:150 3:73 4:35 5:4 6:2", 795000, 0.0, 13627.237734494769, 0.0, "zayatz"),
    ("1:1 2:1", 30, 0.0, 3.4939759036144573, 0.0, "zayatz"),
    ("1:3 5:1", 800, 0.0, 114.99027428304962, 0.0, "zayatz"),
    ("1:856 2:301 3:79 4:16 5:7", 35880, 0.0, 8494.470310115945, 0.0, "zayatz"),
    # f ≤ 0.1 and Pitman converges: Pitman
    ("1:1104 2:120 3:29 4:14 5:3 6:1", 15080, 5440.638910236504, 8436.394810328753, 0.0, "pitman"),
    ("1:4135 2:444 3:144 4:65 5:32 6:12 7:5 8:4 9:2", 6032000, 494171.1543135667, 2836516.6020236663, 0.0, "pitman"),
    ("1:755 2:139 3:42 4:35 5:16 6:11 7:4 8:1 9:3", 15080, 2677.4298815655125, 4282.0773741312405, 0.0, "pitman"),
    # f = 0.0001, Pitman without estimate: Zayatz
    ("1:10 2:5 3:2 7:1", 300000, 0.0, 27553.908404805617, 0.0, "zayatz"),
    # two sample uniques, f = 0.5: SNB (equal to Zayatz)
    ("1:2", 4, 0.0, 4.0, 4.0, "snb"),
]


@pytest.mark.parametrize(("profile", "population", "arx_pitman", "arx_zayatz", "arx_snb", "model"), ARX_PROFILES)
def test_arx_estimates_profiles(profile: str, population: int, arx_pitman: float, arx_zayatz: float,
                                arx_snb: float, model: str) -> None:
    r = population_uniqueness(parse(profile), population=population)
    for name, arx, rel in (("pitman", arx_pitman, 1e-6), ("zayatz", arx_zayatz, 1e-12), ("snb", arx_snb, 1e-9)):
        mine = getattr(r, name)
        if arx == 0.0:
            assert mine is None and name in r.failed, name
        else:
            assert mine * population == pytest.approx(arx, rel=rel), name
    assert r.model == model


@pytest.mark.parametrize(("qis", "arx_pitman", "arx_zayatz"), [
    (["age", "sex", "race"], 95.5157941360764, 1377.2174401220948),
    (["age", "sex", "race", "marital-status", "education"], 237734.20395825716, 3553507.932975753),
    (None, 1.2339373406325705e7, 8.393014767411424e7),
])
def test_arx_estimates_usa(qis, arx_pitman: float, arx_zayatz: float) -> None:
    # ARX run with ARXPopulationModel.create(Region.USA): N = 317,238,626; Dankar picks Pitman
    frame, _ = load_adult()
    sizes = frame.groupby(qis or list(frame.columns)).size().to_numpy()
    r = population_uniqueness(sizes, population="USA")
    assert (r.population_size, r.region, r.model) == (317_238_626, "usa", "pitman")
    assert r.pitman * r.population_size == pytest.approx(arx_pitman, rel=1e-9)
    assert r.zayatz * r.population_size == pytest.approx(arx_zayatz, rel=1e-12)


# ---------------------------------------------------------------------------- independent computations


@pytest.mark.parametrize(("profile", "population"), [
    ("1:10 2:5 3:2 7:1", 300000),
    ("1:1221 2:88 3:25 4:5 5:2 6:1", 1523),
    ("1:3 2:4 40:1", 100),
    ("1:5 3:2", 19),  # population = sample: every sample unique is a population unique
])
def test_zayatz_by_hypergeometric(profile: str, population: int) -> None:
    sizes = parse(profile)
    values, counts = size_histogram(sizes)
    n, u, c1 = int(sizes.sum()), len(sizes), int((sizes == 1).sum())
    p = hypergeom.pmf(1, population, values, n)  # one of a class's `size` records drawn in n of N
    share = (c1 / u * p[values == 1][0]) / float((counts / u * p).sum())
    expected = c1 * share / (n / population)
    # scipy's pmf loses some digits for large N (the log-ratio form here keeps them: see the ARX profiles)
    assert zayatz(values, counts, float(population)) == pytest.approx(expected, rel=1e-9)
    if population == n:
        assert expected == pytest.approx(c1, rel=1e-12)


def _pitman_by_sums(sizes: np.ndarray, population: float, start: tuple[float, float]) -> float:
    """Pitman's likelihood equations summed term by term, solved by scipy."""
    values, counts = size_histogram(sizes)
    n, u = int(sizes.sum()), len(sizes)
    i = np.arange(1, u, dtype=float)
    m = np.arange(1, n, dtype=float)

    def equations(v: np.ndarray) -> list[float]:
        t, a = v
        second = sum(c * (1.0 / (np.arange(1, k) - a)).sum() for k, c in zip(values, counts, strict=True) if k > 1)
        return [(1.0 / (t + i * a)).sum() - (1.0 / (t + m)).sum(), (i / (t + i * a)).sum() - second]

    sol = root(equations, start, tol=1e-13)
    assert sol.success
    t, a = sol.x
    return math.exp(gammaln(t + 1.0) - gammaln(t + a)) * population ** a


def test_pitman_by_term_sums(adult_sizes: np.ndarray) -> None:
    values, counts = size_histogram(adult_sizes)
    for population in (301620.0, 3016200.0):
        expected = _pitman_by_sums(adult_sizes, population, (1000.0, 0.5))
        assert pitman(values, counts, population) == pytest.approx(expected, rel=1e-6)
        exact = pitman(values, counts, population, SolverConfig(arx_gamma=False))
        assert exact == pytest.approx(expected, rel=1e-6)
    sizes = parse("1:1104 2:120 3:29 4:14 5:3 6:1")
    values, counts = size_histogram(sizes)
    assert pitman(values, counts, 15080.0) == pytest.approx(_pitman_by_sums(sizes, 15080.0, (20.0, 0.5)), rel=1e-6)


def test_arx_gamma_decides_pitman() -> None:
    # ARX's first Pitman pass (its inexact trigamma) runs away on this sample and ARX falls back to
    # Zayatz (ARX run above); solved with the exact Jacobian only, Pitman has an estimate (α < 0)
    sizes = parse("1:856 2:301 3:79 4:16 5:7")
    as_arx = population_uniqueness(sizes, population=35880)
    exact = population_uniqueness(sizes, population=35880, solver=SolverConfig(arx_gamma=False))
    assert as_arx.pitman is None and as_arx.model == "zayatz"
    assert exact.pitman == pytest.approx(0.0031427492358180238, rel=1e-6) and exact.model == "pitman"


def test_shlosser_as_arx() -> None:
    # sizes 1 (2 classes) and 2 (1 class), q = 0.5, by hand:
    # Σ s q²(1-q²)^(s-1) m = 0.875, ARX's Σ [(1-q)^s m (1+q)^s - 1] = 0.0625, Σ (1-q)^s m = 1.25,
    # Σ s q (1-q)^(s-1) m = 1.5  →  K = 3 + 2 · 14 · (1.25/1.5)² = 22.444…
    # (Haas et al.'s Σ (1-q)^s ((1+q)^s - 1) m = 0.8125 would give 4.4957…)
    k = shlosser_classes(np.array([1, 2]), np.array([2, 1]), 0.5)
    assert k == pytest.approx(3 + 2 * (0.875 / 0.0625) * (1.25 / 1.5) ** 2, rel=1e-14)


def test_snb_by_scipy() -> None:
    # ARX's SNB equations (E[c2] multiplied by (1-d)^(α+2), as ARX writes it) solved by scipy
    sizes = parse("1:1221 2:88 3:25 4:5 5:2 6:1")
    values, counts = size_histogram(sizes)
    population = 1523.0
    f = sizes.sum() / population
    k = shlosser_classes(values, counts, f)
    c1, c2 = 1221.0, 88.0

    def equations(v: np.ndarray) -> list[float]:
        a, b = v
        d = (1 - f) * (1 - b)
        return [k * f * (b / (1 - d)) ** a * (a * d / (1 - d) + 1) - c1,
                k * a * b ** a * f * f * (1 - b) / 2 * (1 - d) ** (a + 2) * (2 - (1 - a) * d) - c2]

    sol = root(equations, (0.5, 0.5), tol=1e-14)
    a, b = sol.x
    assert max(abs(x) for x in equations(sol.x)) < 1e-9
    assert snb(values, counts, population) == pytest.approx(k * b ** a, rel=1e-9)


# ------------------------------------------------------------------------------------- edge cases, API


def test_no_sample_uniques() -> None:
    r = population_uniqueness([2, 2, 3, 10], population=1000)
    assert (r.pitman, r.zayatz, r.snb, r.dankar, r.fraction) == (0.0, 0.0, 0.0, 0.0, 0.0)
    assert r.model == "dankar" and r.failed == () and "no sample uniques" in r.note
    assert r.to_dict()["model"] == "dankar" and r.to_dict()["dankar"] == 0.0
    assert population_uniqueness([], population=10).fraction == 0.0
    assert population_uniqueness([0, 0], sampling_fraction=0.1).population_size == 0


def test_sampling_fraction_one_is_sample_uniqueness() -> None:
    sizes = parse("1:7 2:3 4:2")
    r = population_uniqueness(sizes, sampling_fraction=1.0)
    assert r.population_size == sizes.sum() and r.zayatz == sample_uniqueness(sizes)


def test_solver_failure_falls_back_to_zayatz() -> None:
    # no steps and no restarts: Pitman cannot converge; at f ≤ 0.1 Dankar's rule falls back to Zayatz
    stingy = SolverConfig(iterations_per_try=0, start_values=())
    sizes = parse("1:1104 2:120 3:29 4:14 5:3 6:1")
    r = population_uniqueness(sizes, population=15080, solver=stingy)
    assert r.pitman is None and "pitman" in r.failed
    assert r.model == "zayatz" and r.dankar == r.zayatz
    assert "Pitman, which has no estimate, so Zayatz" in r.note and "pitman" in r.note
    # asked for Pitman explicitly: no estimate, said so
    r = population_uniqueness(sizes, population=15080, solver=stingy, model="pitman")
    assert r.fraction is None and r.uniques is None and "pitman has no estimate" in r.note
    assert r.to_dict()["fraction"] is None


def test_model_choice_and_dict(adult_sizes: np.ndarray) -> None:
    r = population_uniqueness(adult_sizes, sampling_fraction=0.1, model="zayatz")
    assert r.fraction == r.zayatz and (r.model, r.requested) == ("zayatz", "zayatz") and r.dankar == r.pitman
    assert r.uniques == pytest.approx(r.zayatz * r.population_size)
    d = population_uniqueness(adult_sizes, sampling_fraction=0.1).to_dict()
    # the audit reads the chosen model's estimate under its name
    assert d["model"] == "pitman" and d[d["model"]] == d["fraction"] == d["dankar"]
    assert d["snb"] is None and d["failed"] == ["snb"]
    assert d["sample_uniqueness"] == 0.5142895033485844 and d["records"] == 30162
    with pytest.raises(InputError) as err:
        population_uniqueness(adult_sizes, sampling_fraction=0.1, model="chao")
    assert err.value.key == "model"


def test_population_models() -> None:
    sizes = [1, 1, 3]  # 5 records
    # ARX's ARXPopulationModel.create(n, f) rounds half up: 5 / 0.4 = 12.5 → 13
    assert population_uniqueness(sizes, sampling_fraction=0.4).population_size == 13
    for name in ("USA", "north_america", "European-Union", " uk "):
        key = " ".join(name.lower().replace("_", " ").replace("-", " ").split())
        assert population_uniqueness(sizes, population=name).population_size == REGIONS[key]
    assert population_uniqueness(sizes, population=np.int64(50)).sampling_fraction == 0.1
    for kwargs, key in [({}, "population"), ({"population": 4}, "population"), ({"population": "mars"}, "population"),
                        ({"population": 10, "sampling_fraction": 0.5}, "sampling_fraction"),
                        ({"sampling_fraction": 1.5}, "sampling_fraction"), ({"population": True}, "population")]:
        with pytest.raises(InputError) as err:
            population_uniqueness(sizes, **kwargs)
        assert err.value.key == key, kwargs


# ----------------------------------------------------------------------------------- polygamma, solver

# ARX run: org.deidentifier.arx.risk.Gamma.digamma(x) and .trigamma(x) as ARX printed them (x, ψ, ψ')
ARX_GAMMA = [
    (-7.3, 4.337307305510059, 15.079413702802396), (-2.5, 1.1031566406452427, 9.664084763908049),
    (-0.5, 0.036489973978575146, 9.059640319463604), (1e-7, -1.00000005772155e7, 1.0000000000000166e14),
    (5e-5, -20000.5771334212, 4.0000000164481384e8), (0.3, -3.502524222200134, 12.117334024739296),
    (1.0, -0.5772156649015348, 1.511797052154195), (2.5, 0.703156640645242, 0.36551963718130887),
    (7.9, 2.00223848756357, 0.01602307322544464), (8.0, 2.015641477955608, 0.0), (9.5, 2.1977378764029485, 0.0),
    (11.99, 2.441792283668334, 0.0), (12.0, 2.44266167997581, 0.08690187287177067),
    (30.5, 3.401243668961661, 0.03333024811280161), (1e6, 13.81551005796419, 1.0000005000001667e-6),
]


def test_arx_polygamma_bit_for_bit() -> None:
    x = np.array([v[0] for v in ARX_GAMMA])
    assert list(arx_digamma(x)) == [v[1] for v in ARX_GAMMA]
    assert list(arx_trigamma(x)) == [v[2] for v in ARX_GAMMA]  # ARX's trigamma: no tail below 12
    assert arx_digamma(np.array([0.0]))[0] == arx_trigamma(np.array([0.0]))[0] == -np.inf
    # the accurate trigamma agrees with scipy's
    y = np.concatenate([np.linspace(0.001, 60.0, 500), np.geomspace(60.0, 1e9, 50), -np.linspace(0.1, 20.9, 50)])
    assert np.allclose(trigamma(y), polygamma(1, y), rtol=1e-11, atol=0)


@pytest.mark.parametrize(("kwargs", "key"), [
    ({"accuracy": 0.0}, "solver.accuracy"),
    ({"iterations_per_try": -1}, "solver.iterations_per_try"),
    ({"iterations_per_try": 2.5}, "solver.iterations_per_try"),
    ({"start_values": ((0.0,),)}, "solver.start_values"),
])
def test_solver_config_is_checked(kwargs: dict, key: str) -> None:
    with pytest.raises(InputError) as err:
        SolverConfig(**kwargs)
    assert err.value.key == key


def test_arx_start_values() -> None:
    # ARXSolverConfiguration.getDefaultStartValues(): 0, 0.33, 0.66, 0.99 for both, first coordinate outer
    assert len(ARX_START_VALUES) == 16
    assert ARX_START_VALUES[:5] == ((0.0, 0.0), (0.0, 0.33), (0.0, 0.66), (0.0, 0.99), (0.33, 0.0))


def _parabola(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, ...]:
    """Roots x = 1 and x = 3 (y = 0.5)."""
    one = np.ones_like(x)
    return (x - 1.0) * (x - 3.0), y - 0.5, 2.0 * x - 4.0, 0.0 * one, 0.0 * one, one


def test_solver_takes_the_first_try_that_converges() -> None:
    # from 50 Newton needs more steps (to 3) than from the first start value (to 1): ARX's loop, one try
    # after another, returns the first try's root, however long it took
    found = solve(_parabola, (50.0, 0.0), SolverConfig(start_values=((0.0, 0.0),)))
    assert found is not None and found.attempt == 0 and found.x == pytest.approx(3.0)
    # a first try that fails (NaN) hands over to the start values
    found = solve(_parabola, (math.nan, 0.0), SolverConfig(start_values=((0.0, 0.0), (5.0, 0.0))))
    assert found is not None and found.attempt == 1 and found.x == pytest.approx(1.0)
    # a constraint ends a try
    found = solve(_parabola, (0.0, 0.0), SolverConfig(start_values=((5.0, 0.0), (9.0, 0.0))),
                  constraint=lambda x, y: x >= 2.0)
    assert found is not None and found.attempt == 1 and found.x == pytest.approx(3.0)


def test_solver_last_start_value_gets_one_step() -> None:
    # the library stops after the first step from the last prepared start value
    assert solve(_parabola, (math.nan, 0.0), SolverConfig(start_values=((0.0, 0.0),))) is None
    found = solve(_parabola, (math.nan, 0.0), SolverConfig(start_values=((3.0, 0.5),)))
    assert found is not None and (found.x, found.y, found.attempt) == (3.0, 0.5, 1)


def test_solver_ends_cycling_tries() -> None:
    # Newton on x³ - 2x + 2 from 0 cycles 0 → 1 → 0 for ever: the try fails (quickly, however many steps)
    def cubic(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, ...]:
        one = np.ones_like(x)
        return x ** 3 - 2 * x + 2, y, 3 * x ** 2 - 2, 0.0 * one, 0.0 * one, one

    assert solve(cubic, (0.0, 0.0), SolverConfig(iterations_per_try=10_000_000, start_values=())) is None


def test_frame_sizes_are_accepted() -> None:
    # class sizes straight from pandas
    sizes = pd.Series([1, 2, 2, 1, 5]).value_counts().sort_index()
    assert population_uniqueness(sizes.to_numpy(), population=100).records == int(sizes.sum())
