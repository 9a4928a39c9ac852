"""DP synthetic data, ``algorithm: {name: dp-synthetic, method: mst|aim, …}`` (issue 29 item 2).

The mechanisms are checked against their definitions: the exponential mechanism's choice frequencies
against ``exp(ε·score/(2Δ))`` normalized (chi-square over seeded draws, and over OpenDP's draws), the
ρ-zCDP ↔ (ε, δ) conversion against Bun & Steinke's formula and OpenDP's own accounting, MST's tree
(``d − 1`` edges, connected), the budget each method spends. One small table (300 records, four
columns) is synthesized once per module with ``seeded: true`` and read by several tests; JAX compiles
are the slow part, so the runs use 100 mirror-descent iterations.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare
from typer.testing import CliRunner

import anonkit
from anonkit import Schema
from anonkit._verify_synth import SYNTHETIC, verify_synthetic
from anonkit.algorithms.synth import _draws
from anonkit.algorithms.synth._accounting import (
    epsilon_from_rho,
    exponential_rho,
    gaussian_rho,
    gaussian_sigma,
    rho_from_epsilon_delta,
)
from anonkit.algorithms.synth._aim import candidates
from anonkit.algorithms.synth._domain import parse_column
from anonkit.algorithms.synth._draws import Draws
from anonkit.algorithms.synth._mst import mst, select_tree
from anonkit.cli import app
from anonkit.errors import InputError
from anonkit.models import DifferentialPrivacy, KAnonymity

DOMAIN = {"age": {"bounds": [18, 80], "bins": 8, "integer": True}, "sex": {"categories": ["F", "M"]},
          "edu": {"categories": ["HS", "BA", "MA", "PhD"]}, "income": {"categories": ["low", "high"]}}
SCHEMA = Schema.of(quasi=["age", "sex"], insensitive=["edu"], sensitive=["income"])
OPTIONS = {"algorithm": "dp-synthetic", "epsilon": 1.0, "delta": 1e-5, "domain": DOMAIN, "iterations": 100}


def small_frame(n: int = 300) -> pd.DataFrame:
    """Four columns with some dependence (age → education → income), drawn once from a fixed seed."""
    rng = np.random.default_rng(7)
    age = rng.integers(18, 80, n)
    levels = ["HS", "BA", "MA", "PhD"]
    edu = np.where(age > 40, rng.choice(levels, n, p=[.2, .3, .3, .2]), rng.choice(levels, n, p=[.6, .3, .08, .02]))
    high = np.isin(edu, ["MA", "PhD"])
    income = np.where(high, rng.choice(["low", "high"], n, p=[.3, .7]), rng.choice(["low", "high"], n, p=[.8, .2]))
    return pd.DataFrame({"age": age, "sex": rng.choice(["F", "M"], n), "edu": edu, "income": income})


def synthesize(**options: object) -> anonkit.Result:
    return anonkit.anonymize(small_frame(), SCHEMA, [KAnonymity(1)], **{**OPTIONS, **options})


@pytest.fixture(scope="module")
def seeded() -> anonkit.Result:
    return synthesize(seeded=True)


# ------------------------------------------------------------------------------------ the release
def test_a_seeded_run_is_byte_identical_and_draws_nothing_from_opendp(seeded, monkeypatch) -> None:
    calls = []
    real = _draws._opendp
    monkeypatch.setattr(_draws, "_opendp", lambda: calls.append(1) or real())
    again = synthesize(seeded=True)
    assert again.frame.to_csv(index=False) == seeded.frame.to_csv(index=False)
    assert calls == []
    assert "NOT differentially private" in seeded.summary["notes"]["warning"]


def test_an_unseeded_run_draws_every_measurement_and_choice_from_opendp(monkeypatch) -> None:
    """MST's measurements and tree (everything that touches the data) with ``Draws(None)``: every draw
    goes through OpenDP, and two runs differ. (The model fit and the row sampler after them are
    post-processing; the seeded module run covers them.)"""
    calls = []
    real = _draws._opendp
    monkeypatch.setattr(_draws, "_opendp", lambda: calls.append(1) or real())
    frame = small_frame()
    codes = np.column_stack([parse_column(c, DOMAIN[c], "").encode(frame[c]) for c in frame.columns])
    sizes = [parse_column(c, DOMAIN[c], "").size for c in frame.columns]
    first, _ = mst(codes, sizes, 0.05, Draws(None))
    assert len(calls) == 4 + 3 + 3  # four one-way and three two-way measurements, three tree choices
    second, _ = mst(codes, sizes, 0.05, Draws(None))
    assert any(not np.array_equal(a.noisy, b.noisy) for a, b in zip(first, second, strict=True))
    again, _ = mst(codes, sizes, 0.05, Draws(np.random.default_rng(3)))  # control: seeded runs agree
    assert all(np.array_equal(a.noisy, b.noisy) for a, b in
               zip(again, mst(codes, sizes, 0.05, Draws(np.random.default_rng(3)))[0], strict=True))
    assert len(calls) == 20


def test_the_release_is_verified_and_says_what_is_and_is_not_true(seeded) -> None:
    v = seeded.verification
    assert v.ok and [r.model for r in v.results] == ["exactly the declared columns",
                                                     "every value inside its declared domain",
                                                     "the row count as stated"]
    frame, notes = seeded.frame, seeded.summary["notes"]
    assert list(frame.columns) == ["age", "sex", "edu", "income"] and len(frame) == notes["synthetic rows"]
    assert frame["age"].between(18, 80).all() and (frame["age"] == frame["age"].round()).all()
    assert notes["rho"] == pytest.approx(rho_from_epsilon_delta(1.0, 1e-5)) and notes["preprocessing budget"] == 0
    assert notes["rows from"] == "the noisy total of the one-way marginals"
    message = seeded.summary["message"]
    for words in ("no row is a person's record", "preprocessing budget 0", "NO privacy guarantee",
                  "one third of rho on one-way marginals"):
        assert words in message
    assert "no original record" not in message  # a synthetic row may equal a real one by chance: not promised


def test_rows_given_are_the_rows_drawn() -> None:
    got = synthesize(seeded=True, rows=57)
    assert len(got.frame) == 57 and got.summary["notes"]["rows from"] == "rows"


def test_the_verifier_fails_a_tampered_table_and_passes_the_real_one(seeded) -> None:
    release, table = seeded.release, seeded.release.table
    assert verify_synthetic(table, release).ok

    def tampered(frame: pd.DataFrame) -> bool:
        copy = dataclasses.replace(release)
        copy.tables = type(release.tables)(frame)
        return verify_synthetic(table, copy).ok

    published = release.tables[SYNTHETIC]
    assert not tampered(published.assign(age=published["age"].where(published.index > 0, 81)))
    assert not tampered(published.assign(age=published["age"].where(published.index > 0, 30.5)))
    assert not tampered(published.assign(sex=published["sex"].where(published.index > 0, "X")))
    assert not tampered(published.drop(columns="edu"))
    assert not tampered(published.iloc[1:])
    assert tampered(published.copy())


def test_a_listed_differential_privacy_model_must_match() -> None:
    with pytest.raises(InputError, match="give the same values"):
        anonkit.anonymize(small_frame(), SCHEMA, [DifferentialPrivacy(2.0, 1e-5)], seeded=True, **OPTIONS)


def test_delta_must_be_below_one_over_n() -> None:
    with pytest.raises(InputError, match="not below 1/n"):
        synthesize(delta=1 / 300, seeded=True)


def test_a_value_outside_its_domain_is_refused_naming_it() -> None:
    frame = small_frame()
    frame.loc[5, "age"] = 95
    with pytest.raises(InputError, match="outside the bounds") as e:
        anonkit.anonymize(frame, SCHEMA, [KAnonymity(1)], seeded=True, **OPTIONS)
    assert "'age'" in str(e.value) and "95" in str(e.value)


@pytest.mark.parametrize(("raw", "words"), [
    ({"bounds": [5, 1]}, "lo < hi"), ({"bounds": [0, 1], "bins": 0}, "bins must be"),
    ({"categories": []}, "non-empty"), ({"categories": ["a", "a"]}, "twice"),
    ({"bounds": [0, 3], "bins": 5, "integer": True}, "holds none"),
    ({"bounds": [0, 1], "width": 2}, "not a domain key"),
    ({"categories": ["a"], "bounds": [0, 1]}, "exactly one"), ({"bounds": [0, float("inf")]}, "finite"),
])
def test_a_bad_domain_declaration_is_refused(raw: dict, words: str) -> None:
    with pytest.raises(InputError, match=words):
        parse_column("x", raw, "algorithm.domain.")
    assert parse_column("x", {"bounds": [0, 3], "bins": 4, "integer": True}, "").size == 4  # control


# ------------------------------------------------------------------------------------ the mechanisms
@settings(max_examples=20, deadline=None)
@given(n=st.integers(2, 7), seed=st.integers(0, 2**31))
def test_mst_selects_a_spanning_tree(n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    errors = {e: float(rng.uniform(0, 50)) for e in itertools.combinations(range(n), 2)}
    edges = select_tree(errors, n, 0.5, Draws(rng))
    assert len(edges) == n - 1 and len(set(edges)) == n - 1
    reached, frontier = {0}, [0]
    while frontier:
        node = frontier.pop()
        for a, b in edges:
            for x, y in ((a, b), (b, a)):
                if x == node and y not in reached:
                    reached.add(y)
                    frontier.append(y)
    assert reached == set(range(n))


def _expected(scores: np.ndarray, epsilon: float, sensitivity: float) -> np.ndarray:
    w = np.exp(epsilon * (scores - scores.max()) / (2 * sensitivity))
    return w / w.sum()


def test_the_exponential_mechanism_picks_as_its_definition_seeded() -> None:
    scores, epsilon, sensitivity, n = np.array([0.0, 1.0, 2.5, 4.0]), 1.2, 2.0, 20_000
    draws = Draws(np.random.default_rng(11))
    counts = np.bincount([draws.choice(scores, epsilon, sensitivity) for _ in range(n)], minlength=4)
    assert chisquare(counts, n * _expected(scores, epsilon, sensitivity)).pvalue > 1e-3
    wrong = _expected(scores, 2 * epsilon, sensitivity)  # control: twice the epsilon is told apart
    assert chisquare(counts, n * wrong).pvalue < 1e-6


def test_the_exponential_mechanism_through_opendp_picks_as_its_definition() -> None:
    """Unseeded (OpenDP's Gumbel noisy max): counted over 1,500 draws; a correct mechanism fails at
    p < 1e-6 once in a million runs. OpenDP's own accounting of the choice is ε²/8."""
    scores, epsilon, n = np.array([0.0, 1.0, 3.0]), 1.0, 1_500
    draws = Draws(None)
    counts = np.bincount([draws.choice(scores, epsilon, 1.0) for _ in range(n)], minlength=3)
    assert chisquare(counts, n * _expected(scores, epsilon, 1.0)).pvalue > 1e-6
    dp = _draws._opendp()
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float)
    measure = dp.m.make_noisy_max(*space, dp.zero_concentrated_divergence(), scale=2.0 / epsilon)
    assert measure.map(1.0) == pytest.approx(exponential_rho(epsilon))


@pytest.mark.parametrize(("epsilon", "delta"), [(0.1, 1e-9), (1.0, 1e-5), (3.0, 1e-6), (10.0, 1e-3)])
def test_rho_from_epsilon_delta_is_bun_and_steinke_s_conversion(epsilon: float, delta: float) -> None:
    rho = rho_from_epsilon_delta(epsilon, delta)
    log_inv = math.log(1 / delta)
    assert rho == pytest.approx((math.sqrt(log_inv + epsilon) - math.sqrt(log_inv)) ** 2, rel=1e-12)
    assert epsilon_from_rho(rho, delta) == pytest.approx(epsilon, rel=1e-12)
    # OpenDP's (tighter) conversion of the same ρ never needs more than the ε given
    dp = _draws._opendp()
    sigma = gaussian_sigma(rho, 1)
    gauss = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=int)), dp.l2_distance(T=int), scale=sigma)
    assert gauss.map(1) == pytest.approx(gaussian_rho(sigma), rel=1e-9) == pytest.approx(rho, rel=1e-9)
    assert dp.c.make_zCDP_to_approxDP(gauss).map(1).epsilon(delta) <= epsilon * (1 + 1e-9)


def test_mst_spends_rho_in_three_equal_parts(seeded) -> None:
    notes = seeded.summary["notes"]
    assert notes["rho spent"] == pytest.approx(notes["rho"], rel=1e-12)
    assert notes["rho one-way"] == notes["rho selection"] == notes["rho two-way"] == pytest.approx(notes["rho"] / 3)
    assert len(notes["tree"]) == 3


def test_aim_spends_at_most_rho_on_the_workload_s_marginals() -> None:
    """Two columns (few compiled models): AIM's rounds until the budget is spent."""
    frame = small_frame()[["edu", "income"]]
    got = anonkit.anonymize(frame, Schema.of(quasi=["edu"], sensitive=["income"]), [KAnonymity(1)],
                            **{**OPTIONS, "domain": {c: DOMAIN[c] for c in frame.columns}, "iterations": 50},
                            seeded=True, method="aim", rounds=3)
    notes = got.summary["notes"]
    assert got.verification.ok and notes["rounds"] >= 1
    assert notes["rho"] * 0.999 <= notes["rho spent"] <= notes["rho"] * (1 + 1e-12)
    assert all(tuple(c) in {("edu",), ("income",), ("edu", "income")} for c in notes["chosen"])


def test_aim_s_candidates_are_the_workload_s_downward_closure() -> None:
    got = candidates(3)
    assert set(got) == {(0,), (1,), (2,), (0, 1), (0, 2), (1, 2)}
    assert got[(0, 1)] == 2 + 1 + 1 and got[(0,)] == 2  # Σ over the 3 pairs of |c ∩ W|


# ------------------------------------------------------------------------------------ write, audit, report
@pytest.fixture(scope="module")
def cli_run(tmp_path_factory) -> tuple[Path, dict, int]:
    here = tmp_path_factory.mktemp("dp-synthetic")
    small_frame().assign(id=range(300)).to_csv(here / "small.csv", index=False)
    config = {"input": {"path": "small.csv"},
              "attributes": {"id": {"role": "identifier"}, "age": {"role": "quasi"}, "sex": {"role": "quasi"},
                             "edu": {"role": "insensitive"}, "income": {"role": "sensitive"}},
              "privacy": [{"model": "differential-privacy", "epsilon": 1.0, "delta": 1e-5}],
              "algorithm": {"name": "dp-synthetic", "epsilon": 1.0, "delta": 1e-5, "seeded": True, "iterations": 100,
                            "domain": DOMAIN},
              "output": {"path": "synth.csv"}}
    (here / "dp.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    got = CliRunner().invoke(app, ["anonymize", str(here / "dp.yaml"), "--json", "--no-fixes"])
    (here / "run.json").write_text(got.stdout)
    return here, json.loads(got.stdout), got.exit_code


def test_the_synthetic_table_is_written_audited_by_nearest_neighbour_and_reported(cli_run) -> None:
    here, summary, code = cli_run
    assert code == 0 and summary["algorithm"] == "dp-synthetic" and summary["verified"]
    written = pd.read_csv(here / "synth.csv")
    assert list(written.columns) == ["age", "sex", "edu", "income"]  # the identifier never reaches it
    assert len(written) == summary["notes"]["synthetic rows"]
    audit = summary["audit"]
    assert audit["attack_form"].startswith("nearest neighbour")
    assert {a["name"] for a in audit["attacks"]} >= {"singling-out", "linkability", "inference"}


def test_anonkit_report_shows_the_synthetic_table_s_utility(cli_run) -> None:
    here, _, _ = cli_run
    got = CliRunner().invoke(app, ["report", str(here / "run.json"), "--out", str(here / "run.html")])
    assert got.exit_code == 0, got.output
    page = (here / "run.html").read_text()
    assert 'id="synthetic-utility"' in page and "trained on the release" in page


def test_jax_mbi_and_opendp_are_imported_only_inside_functions() -> None:
    """``import anonkit`` (and the registry's walk) never loads JAX: the synthesizer imports mbi, JAX
    and OpenDP inside the functions that use them."""
    import ast

    heavy = {"jax", "mbi", "opendp"}
    package = Path(anonkit.__file__).parent
    found = []
    for path in [*sorted((package / "algorithms" / "synth").glob("*.py")), package / "_verify_synth.py"]:
        for node in ast.parse(path.read_text()).body:  # module level only
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.name}: {n}" for n in names if n.split(".")[0] in heavy]
    assert found == []
    assert "import jax" in (package / "algorithms" / "synth" / "_model.py").read_text()  # control: it is used


@settings(max_examples=25, deadline=None)
@given(lo=st.integers(-50, 50), width=st.integers(1, 200), bins=st.integers(1, 12), integer=st.booleans(),
       seed=st.integers(0, 2**31))
def test_a_decoded_value_lies_in_its_own_bin(lo: int, width: int, bins: int, integer: bool, seed: int) -> None:
    """A synthetic value drawn inside bin b encodes back to b (and lies within the bounds)."""
    declared = {"bounds": [lo, lo + width], "bins": bins, "integer": integer}
    try:
        column = parse_column("x", declared, "")
    except InputError as exc:  # whole numbers: a bin narrower than one whole number is refused
        assert integer and "holds none" in str(exc)
        return
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, bins, 200)
    values = column.decode(codes, rng)
    assert ((values >= lo) & (values <= lo + width)).all()
    assert np.array_equal(column.encode(pd.Series(values)), codes)
