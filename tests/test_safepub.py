"""SafePub (issue 29): (ε, δ)-differential privacy by sampling and k-anonymity (ARX's EDDifferentialPrivacy).

ARX's figures: the (β, k) grid was printed by a Java driver (/tmp/safepub/Params.java, not committed)
calling ARX 3.9's ``org.deidentifier.arx.dp.ParameterCalculation(epsilon, delta)`` getBeta()/getK();
the Adult cases are ARX 3.9's TestAnonymizationDifferentialPrivacy cases 0–2 (transformation and Loss),
whose deterministic sampling is ``new Random(0xDEADBEEF).nextDouble() < beta`` per record, rebuilt
here with tests/java_random.py. ARX measures the Loss on the sample (its DataSubset), so the test does.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import chisquare

from anonkit import Schema, Table
from anonkit.algorithms.lattice import _dp_draws
from anonkit.algorithms.lattice.safepub import fixed_levels, sampled
from anonkit.algorithms.transform import evaluate_node, release_node
from anonkit.errors import InputError
from anonkit.metrics.loss import loss
from anonkit.models import DifferentialPrivacy
from anonkit.models.differential_privacy import safepub_parameters
from java_random import JavaRandom, java_int

#: (ε, δ, ARX's β, ARX's k), from ARX 3.9's ParameterCalculation
ARX_PARAMETERS = [
    (0.01, 1e-3, 0.00995016625083178, 27), (0.1, 1e-5, 0.09516258196404025, 50),
    (0.5, 1e-8, 0.3934693402873664, 88), (math.log(2), 1e-3, 0.4999999999999997, 32),
    (math.log(2), 1e-8, 0.4999999999999997, 95), (math.log(3), 1e-6, 0.6666666666666664, 82),
    (2.0, 1e-5, 0.8646647167633869, 114), (3.0, 1e-4, 0.9502129316321359, 182),
]


@pytest.mark.parametrize(("epsilon", "delta", "beta", "k"), ARX_PARAMETERS)
def test_beta_and_k_are_arx_s(epsilon: float, delta: float, beta: float, k: int) -> None:
    got_beta, got_k = safepub_parameters(epsilon, delta)
    assert got_k == k
    assert got_beta <= -math.expm1(-epsilon)  # the paper's β, rounded down
    assert got_beta == pytest.approx(beta, rel=1e-14)


def test_an_epsilon_too_large_is_refused_not_a_hang() -> None:
    """From ε ≈ 6 the binomial tails never fall under their bound in reach: refused in one line naming
    epsilon once 2²¹ tails are computed (it grew them without end before). ε = 2 is the control."""
    with pytest.raises(InputError, match="epsilon 20 is too large") as info:
        safepub_parameters(20.0, 1e-6)
    assert info.value.key == "epsilon" and "\n" not in str(info.value)
    assert safepub_parameters(2.0, 1e-6)[1] > 1


def test_beta_is_the_paper_s_formula() -> None:
    for epsilon in (0.05, 0.3, 1.0, 2.5):
        assert safepub_parameters(epsilon, 1e-6)[0] == pytest.approx(1 - math.exp(-epsilon), rel=1e-14)
    assert safepub_parameters(1.0, 1e-8)[1] > safepub_parameters(1.0, 1e-4)[1]  # a smaller δ needs a larger k


# ARX 3.9 TestAnonymizationDifferentialPrivacy cases 0–5 and 18 (adult.csv): transformation and Loss
ARX_ADULT = [
    (2.0, 1e-5, "low-medium", [0, 2, 0, 1, 1, 1, 1, 1, 0], 0.6820705793543056),
    (1.5, 1e-6, "high", [1, 3, 1, 2, 2, 2, 2, 2, 1], 0.8112222411559193),
    (math.log(2), 1e-7, "low-medium", [0, 2, 0, 1, 1, 1, 1, 1, 0], 0.7437618217405468),
    (math.log(3), 1e-8, "medium", [1, 2, 1, 1, 2, 1, 1, 1, 1], 0.6092780386290699),
    (2.0, 1e-5, "medium-high", [1, 2, 1, 1, 2, 1, 1, 1, 1], 0.5968589299712612),
    (1.5, 1e-6, "low-medium", [0, 2, 0, 1, 1, 1, 1, 1, 0], 0.6856395441402736),
    (0.01, 1e-9, "low-medium", [0, 2, 0, 1, 1, 1, 1, 1, 0], 0.9999999999999989),
]


@pytest.mark.parametrize(("epsilon", "delta", "degree", "levels", "arx_loss"), ARX_ADULT)
def test_data_independent_adult_matches_arx(adult, epsilon, delta, degree, levels, arx_loss) -> None:  # type: ignore[no-untyped-def]
    frame, h = adult
    schema = Schema.of(quasi=list(frame.columns), hierarchies=h)
    model = DifferentialPrivacy(epsilon, delta)
    rng = JavaRandom(java_int(0xDEADBEEF))
    keep = np.array([rng.next_double() < model.beta for _ in range(len(frame))])
    table = Table(frame, schema)
    assert fixed_levels(table, None, degree) == levels
    sample = Table(frame[keep].reset_index(drop=True), schema)
    release = release_node(sample, evaluate_node(sample, levels, [model], 1.0), algorithm="safepub")
    assert loss(sample, release) == pytest.approx(arx_loss, abs=1e-12)
    # the same sample suppressed up front in the whole table: the same classes, the unsampled never published
    whole = sampled(table, keep)
    ev = evaluate_node(whole, levels, [model], 1.0)
    rel = release_node(whole, ev, algorithm="safepub")
    assert rel.n_released == release.n_released
    assert rel.n_released + ev.suppressed + int((~keep).sum()) == len(frame)  # released + suppressed + unsampled


def test_exponential_mechanism_probabilities_by_counting() -> None:
    scores, epsilon, draws = np.array([0.0, -1.0, -2.0, -0.5]), 1.5, 4000
    rng = np.random.default_rng(29)
    counts = np.bincount([_dp_draws.exponential_choice(scores, epsilon, rng) for _ in range(draws)], minlength=4)
    p = np.exp(0.5 * epsilon * scores)
    p /= p.sum()
    assert chisquare(counts, p * draws).pvalue > 1e-3
    assert chisquare(counts, np.full(4, draws / 4)).pvalue < 1e-6  # the control: not uniform


def test_sampling_is_bernoulli_beta_and_seeded_draws_repeat() -> None:
    a = _dp_draws.sample_records(20000, 0.3, np.random.default_rng(1))
    b = _dp_draws.sample_records(20000, 0.3, np.random.default_rng(1))
    assert (a == b).all() and abs(a.mean() - 0.3) < 0.02
    private = _dp_draws.sample_records(20000, 0.7, None)  # OpenDP's sampler
    assert abs(private.mean() - 0.7) < 0.03


def test_without_opendp_a_run_is_refused(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(_dp_draws.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(InputError, match=r"pip install anonkit\[dp\]"):
        _dp_draws.require_opendp()


def test_delta_not_below_one_over_n_is_refused() -> None:
    DifferentialPrivacy(1.0, 1e-3).check_records(999)
    with pytest.raises(InputError, match="1/n"):
        DifferentialPrivacy(1.0, 1e-3).check_records(1000)


# --------------------------------------------------------------------------- options checked before any work
@pytest.mark.parametrize(("options", "key"), [
    ({}, "levels"), ({"levels": [1, 1], "degree": "low"}, "degree"), ({"degree": "low", "steps": 3}, "steps"),
    ({"steps": 3}, "search_budget"), ({"degree": "high", "search_budget": 0.5}, "search_budget"),
])
def test_options_that_go_together_are_checked_when_validated(options: dict, key: str) -> None:
    from anonkit.algorithms import registry

    spec = registry.get("safepub")
    with pytest.raises(InputError) as info:
        spec.validate(options, where="algorithm.")
    assert info.value.key == f"algorithm.{key}"


def test_good_option_sets_pass_validation() -> None:  # the control
    from anonkit.algorithms import registry

    spec = registry.get("safepub")
    for options in ({"levels": [1, 1]}, {"degree": "low", "search_budget": 0.0}, {"steps": 3, "search_budget": 0.5}):
        assert spec.validate(options) == options


# --------------------------------------------------------------------------- the summary, audit and report state it
@pytest.fixture(scope="module")
def dp_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str]:
    """One seeded data-dependent SafePub run on the toy table ×200 with an audit and a report:
    (printed summary, standard error, report HTML)."""
    import yaml

    from bad_input_kit import DATA, run

    tmp = tmp_path_factory.mktemp("dp")
    rows = (DATA / "test2.csv").read_text().strip().splitlines()
    (tmp / "big.csv").write_text(rows[0] + "\n" + "\n".join(rows[1:] * 200) + "\n")
    for name in ("ZIPCode", "Age"):
        (tmp / f"h_{name}.csv").write_text((DATA / f"test2_hierarchy_{name}.csv").read_text())
    cfg = {"input": {"path": "big.csv", "separator": ";"},
           "attributes": {"ZIPCode": {"role": "quasi", "hierarchy": "h_ZIPCode.csv"},
                          "Age": {"role": "quasi", "hierarchy": "h_Age.csv"},
                          "Salary": {"role": "insensitive"}, "Disease": {"role": "insensitive"}},
           "privacy": [{"model": "differential-privacy", "epsilon": 2.0, "delta": 1e-6}],
           "algorithm": {"name": "safepub", "steps": 3, "search_budget": 0.5, "seeded": True},
           "audit": {"attacks": ["singling-out"]},
           "output": {"path": "out.csv", "separator": ";"}}
    (tmp / "c.yaml").write_text(yaml.safe_dump(cfg))
    res = run(["anonymize", str(tmp / "c.yaml"), "--seed", "3", "--report", str(tmp / "r.html")])
    assert res.exit_code == 0, res.stderr
    return res.stdout, res.stderr, (tmp / "r.html").read_text()


def test_printed_summary_states_the_guarantee_and_parameters(dp_run: tuple[str, str, str]) -> None:
    cells = [line.split("│") for line in dp_run[0].splitlines() if line.count("│") == 4]
    labels, values = (" ".join(" ".join(c[i] for c in cells).split()) for i in (1, 2))  # wrapped cells rejoined
    assert "differential privacy: guarantee" in labels
    for words in ("NOT differentially private", "0.5 spent by the search",
                  "smallest class k 100", "3 exponential-mechanism steps", "not sampled (never published)"):
        assert words in values, words


def test_audit_and_report_state_what_the_audit_judges(dp_run: tuple[str, str, str]) -> None:
    _, err, html = dp_run
    assert "note: differential privacy is a property of how the release was made" in err
    assert "<h3>Differential privacy (SafePub)</h3>" in html and "smallest class k 100" in html
    assert "Warning: a seeded run is reproducible and NOT differentially private" in html


def test_other_releases_print_no_dp_lines() -> None:  # the control: a k-anonymity summary has no SafePub notes
    from anonkit.cli.printers.dp import dp_audit_notes
    from anonkit.models.differential_privacy import dp_notes

    assert dp_notes({"notes": {"epsilon": 1.0}}) is None and dp_notes({}) is None
    assert dp_audit_notes({"verdicts": [{"check": "3-anonymity"}], "models": []}) == []


def test_explore_varies_epsilon_of_a_safepub_config(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``--vary epsilon=…`` comes from the model's declaration (no special case): a smaller ε samples
    fewer records, so the map shows more loss; a key the config's models and SafePub do not have is refused
    before any run."""
    import yaml

    from anonkit.explore import explore, parse_vary
    from bad_input_kit import DATA

    rows = (DATA / "test2.csv").read_text().strip().splitlines()
    (tmp_path / "big.csv").write_text(rows[0] + "\n" + "\n".join(rows[1:] * 200) + "\n")
    for name in ("ZIPCode", "Age"):
        (tmp_path / f"h_{name}.csv").write_text((DATA / f"test2_hierarchy_{name}.csv").read_text())
    cfg = {"input": {"path": "big.csv", "separator": ";"},
           "attributes": {"ZIPCode": {"role": "quasi", "hierarchy": "h_ZIPCode.csv"},
                          "Age": {"role": "quasi", "hierarchy": "h_Age.csv"},
                          "Salary": {"role": "insensitive"}, "Disease": {"role": "insensitive"}},
           "privacy": [{"model": "differential-privacy", "epsilon": 2.0, "delta": 1e-6}],
           "algorithm": {"name": "safepub", "degree": "medium", "seeded": True}}
    (tmp_path / "e.yaml").write_text(yaml.safe_dump(cfg))
    result = explore(tmp_path / "e.yaml", vary=parse_vary(["epsilon=0.5,1,2"]), seed=3)
    runs = result.frame.sort_values("epsilon")
    assert list(runs["epsilon"]) == [0.5, 1.0, 2.0] and runs["satisfied"].all()
    assert (np.diff(runs["loss"]) < 0).all()  # a larger ε samples more records
    assert (runs["risk"] < 0.01).all()  # classes of at least k (≥ 82 here) records: 1/k, whatever ε
    with pytest.raises(InputError, match="--vary k"):
        explore(tmp_path / "e.yaml", vary=parse_vary(["k=2,5"]), seed=3)
