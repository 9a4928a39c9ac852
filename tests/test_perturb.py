"""Perturbative methods (issue 28, item 4): PRAM and additive noise, their published release, their
verifier, and the whole CLI path.

Each check the verifier makes is exercised on a bad case (a tampered matrix, a wrong noise level, a
changed column) and on the untampered control that passes."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from anonkit.algorithms.perturb._pram_matrix import invariant_matrix, mixed, random_matrix
from anonkit.algorithms.perturb._release import PUBLISHED, PerturbedRelease, column_kind, verify_perturbed
from anonkit.cli import app
from anonkit.errors import InputError
from anonkit.models import KAnonymity
from anonkit.pipeline import anonymize
from anonkit.schema import Schema
from anonkit.table import Table
from bad_input_kit import C, build, put
from bad_input_kit import run as run_cli
from cases_perturb import identity, noise, pram

N = 400


def survey(n: int = N, seed: int = 1) -> pd.DataFrame:
    """A small survey: age, sex, region (skewed), job, income and a second income correlated with it."""
    rng = np.random.default_rng(seed)
    income = rng.normal(3000, 800, n).round(2)
    return pd.DataFrame({
        "age": rng.integers(18, 90, n),
        "sex": rng.choice(["m", "f"], n),
        "region": rng.choice(list("ABCD"), n, p=[0.4, 0.3, 0.2, 0.1]),
        "job": rng.choice(["x", "y", "z"], n),
        "income": income,
        "spend": (income * 0.6 + rng.normal(0, 150, n)).round(2),
    })


SCHEMA = dict(quasi=["age", "sex", "region"], sensitive=["job"], insensitive=["income", "spend"])


def run(frame: pd.DataFrame, algorithm: str, seed: int = 0, **options: object):  # type: ignore[no-untyped-def]
    return anonymize(frame, Schema.of(**SCHEMA), [KAnonymity(2)], algorithm=algorithm, seed=seed, **options)


def original_rows(result) -> pd.DataFrame:  # type: ignore[no-untyped-def]
    """The input rows of the published table, in published order (the private link)."""
    rel = result.release
    return rel.table.frame.iloc[rel.rows].reset_index(drop=True)


def tampered(result, published: pd.DataFrame | None = None, notes: dict | None = None,  # type: ignore[no-untyped-def]
             params: dict | None = None) -> bool:
    """Whether the verifier passes the release with its published table, notes or parameters replaced."""
    rel: PerturbedRelease = result.release
    changed = replace(rel, published=rel.published if published is None else published,
                      notes=dict(rel.notes) if notes is None else notes,
                      params=dict(rel.params) if params is None else params)
    changed.tables = type(rel.tables)(changed.published)
    return verify_perturbed(rel.table, changed).ok


# ------------------------------------------------------------------------------------------ matrices
@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 50), min_size=2, max_size=7).filter(lambda c: sum(c) > 0),
       st.floats(0, 1), st.floats(0.01, 1), st.integers(0, 2**31))
def test_estimated_matrix_is_stochastic_and_invariant(counts: list[int], pd_: float, alpha: float, seed: int) -> None:
    pi = np.array(counts, dtype=float) / sum(counts)
    p = random_matrix(len(pi), pd_, np.random.default_rng(seed))
    assert np.all(np.diag(p) >= pd_ - 1e-12)
    r = mixed(invariant_matrix(p, pi), alpha)
    assert np.all(r >= -1e-15) and np.allclose(r.sum(axis=1), 1, atol=1e-12)
    assert np.abs(pi @ r - pi).max() < 1e-12


def test_the_starting_matrix_alone_is_not_invariant() -> None:
    """The control: without the invariant construction a skewed distribution drifts."""
    pi = np.array([0.7, 0.2, 0.1])
    p = random_matrix(3, 0.5, np.random.default_rng(3))
    assert np.abs(pi @ p - pi).max() > 1e-3
    assert np.abs(pi @ invariant_matrix(p, pi) - pi).max() < 1e-12


# ------------------------------------------------------------------------------------------ PRAM
def test_pram_publishes_every_record_and_only_changes_the_named_column() -> None:
    frame = survey()
    res = run(frame, "pram", columns=["region"])
    out, orig = res.frame, original_rows(res)
    assert list(out.columns) == list(frame.columns) and len(out) == N
    for c in ("age", "sex", "job", "income", "spend"):
        assert (out[c].astype(str) == orig[c].astype(str)).all()
    changed = (out["region"] != orig["region"]).mean()
    assert 0 < changed < 0.5
    assert res.verification.ok and res.summary["verified"]
    assert "perturbed, not truthful by design" in res.summary["message"]
    assert "every other column as in the input" in res.summary["message"]
    assert res.summary["notes"]["pram categories region"] == ["A", "B", "C", "D"]
    statistic, df, p_value = res.summary["notes"]["pram chi-square region"]
    assert statistic >= 0 and df > 0 and 0 <= p_value <= 1


def test_pram_keeps_margins_in_expectation_over_seeds() -> None:
    """Invariant PRAM: over 40 seeds the mean published count of each category is its input count
    (within 5 standard errors); the control — a given non-invariant matrix — drifts significantly."""
    frame = survey(200)
    true = frame["region"].value_counts().reindex(list("ABCD")).to_numpy()

    def drift(**options: object) -> np.ndarray:
        counts = np.array([run(frame, "pram", seed=s, columns=["region"], **options).frame["region"]
                           .value_counts().reindex(list("ABCD"), fill_value=0).to_numpy() for s in range(40)])
        diff = counts - true
        return np.abs(diff.mean(axis=0)) / (diff.std(axis=0, ddof=1) / np.sqrt(len(diff)) + 1e-12)

    assert drift(pd=0.5).max() < 5
    uniform = {a: {b: (0.7 if a == b else 0.1) for b in "ABCD"} for a in "ABCD"}
    assert drift(matrix={"region": uniform}, invariant=False).max() > 5


def test_pram_by_strata_has_a_matrix_per_stratum_invariant_there() -> None:
    frame = survey()
    res = run(frame, "pram", columns=["region"], by=["sex"], seed=5)
    notes = res.release.notes
    orig = original_rows(res)
    for sex in ("f", "m"):
        rows = notes[f"pram region [sex={sex}]"]
        p = np.array([r[1:] for r in rows])
        counts = orig.loc[orig["sex"] == sex, "region"].value_counts().reindex(list("ABCD"), fill_value=0).to_numpy()
        pi = counts / counts.sum()
        assert np.abs(pi @ p - pi).max() < 1e-9
    assert (res.frame["sex"] == orig["sex"]).all()
    assert "pram region" not in notes  # no matrix for the whole table: one per stratum
    # the control: a stratum's matrix applied to the whole table's π is not invariant
    p = np.array([r[1:] for r in notes["pram region [sex=f]"]])
    pi_all = orig["region"].value_counts().reindex(list("ABCD")).to_numpy() / len(orig)
    assert np.abs(pi_all @ p - pi_all).max() > 1e-9


def test_pram_is_deterministic_per_seed() -> None:
    frame = survey()
    a = run(frame, "pram", columns=["region", "job"], seed=7).frame.to_csv(index=False)
    b = run(frame, "pram", columns=["region", "job"], seed=7).frame.to_csv(index=False)
    c = run(frame, "pram", columns=["region", "job"], seed=8).frame.to_csv(index=False)
    assert a == b and a != c


def test_a_given_matrix_is_published_as_given() -> None:
    frame = survey()
    given_matrix = {a: {b: (0.85 if a == b else 0.05) for b in "ABCD"} for a in "ABCD"}
    res = run(frame, "pram", columns=["region"], matrix={"region": given_matrix}, invariant=False)
    rows = res.release.notes["pram region"]
    assert [r[0] for r in rows] == list("ABCD")
    assert np.allclose([r[1:] for r in rows], [[given_matrix[a][b] for b in "ABCD"] for a in "ABCD"])
    assert res.verification.ok


def test_pram_missing_values_stay_missing() -> None:
    frame = survey()
    frame.loc[::7, "region"] = None
    res = run(frame, "pram", columns=["region"])
    orig = original_rows(res)
    assert (res.frame["region"].isna() == orig["region"].isna()).all()


@pytest.mark.parametrize("tamper", ["zero-transition", "row-sum", "not-invariant", "missing-matrix", "other-column",
                                    "unknown-category"])
def test_a_tampered_pram_release_is_caught(tamper: str) -> None:
    res = run(survey(), "pram", columns=["region"], seed=2)
    assert tampered(res)  # the control: untouched, it passes
    notes = {k: [list(r) if isinstance(r, list) else r for r in v] if isinstance(v, list) else v
             for k, v in res.release.notes.items()}
    published = res.release.published.copy()
    orig = original_rows(res)
    if tamper == "zero-transition":  # a change that happened, published as impossible
        i = int(np.flatnonzero(published["region"] != orig["region"])[0])
        a, b = orig["region"][i], published["region"][i]
        row = next(r for r in notes["pram region"] if r[0] == a)
        j = "ABCD".index(b) + 1
        row[row.index(max(row[1:]), 1)] += row[j]
        row[j] = 0.0
    elif tamper == "row-sum":
        notes["pram region"][0][1] += 0.01
    elif tamper == "not-invariant":  # still stochastic, no longer invariant for the observed π
        row = notes["pram region"][0]
        row[1], row[2] = row[1] - 0.01, row[2] + 0.01
    elif tamper == "missing-matrix":
        del notes["pram region"]
    elif tamper == "other-column":
        published.loc[0, "job"] = "x" if published.loc[0, "job"] != "x" else "y"
    else:
        published.loc[0, "region"] = "E"
    assert not tampered(res, published=published, notes=notes)


# ------------------------------------------------------------------------------------------ noise
def test_additive_noise_has_the_stated_level_and_other_columns_unchanged() -> None:
    frame = survey()
    res = run(frame, "add-noise", columns=["income", "age"], level=50, seed=3)
    out, orig = res.frame, original_rows(res)
    for c in ("income", "age"):
        noise = out[c].to_numpy(float) - orig[c].to_numpy(float)
        sigma = 0.5 * orig[c].astype(float).std(ddof=1)
        assert res.release.notes[f"noise sigma {c}"] == pytest.approx(sigma)
        assert abs(noise.std() / sigma - 1) < 0.15
    for c in ("sex", "region", "job", "spend"):
        assert (out[c].astype(str) == orig[c].astype(str)).all()
    assert res.verification.ok
    assert "σ = " in res.summary["message"] and "50% of its standard deviation" in res.summary["message"]


@pytest.mark.parametrize("tamper", ["double-noise", "stated-level", "shifted", "other-column", "missing"])
def test_a_tampered_noise_release_is_caught(tamper: str) -> None:
    res = run(survey(), "add-noise", columns=["income"], level=30, seed=4)
    assert tampered(res)
    published = res.release.published.copy()
    orig = original_rows(res)
    params, notes = dict(res.release.params), dict(res.release.notes)
    if tamper == "double-noise":
        published["income"] = orig["income"] + 2 * (published["income"] - orig["income"])
    elif tamper == "stated-level":
        params["level"] = 60.0
    elif tamper == "shifted":
        published["income"] = published["income"] + 200
    elif tamper == "other-column":
        published["spend"] = published["spend"] + 0.01
    else:
        published.loc[0, "income"] = np.nan
    assert not tampered(res, published=published, notes=notes, params=params)


def test_correlated_noise_keeps_the_correlations() -> None:
    frame = survey(1000)
    res = run(frame, "add-noise", columns=["income", "spend"], method="correlated", level=40, seed=1)
    orig = original_rows(res)
    noise = res.frame[["income", "spend"]].to_numpy(float) - orig[["income", "spend"]].to_numpy(float)
    rho = np.corrcoef(orig["income"], orig["spend"])[0, 1]
    assert rho > 0.9 and abs(np.corrcoef(noise.T)[0, 1] - rho) < 0.05
    assert res.verification.ok
    # the control: independent noise does not keep them, and the verifier says so when claimed correlated
    add = run(frame, "add-noise", columns=["income", "spend"], method="additive", level=40, seed=1)
    params = {**add.release.params, "method": "correlated"}
    assert not tampered(add, params=params)


def test_correlated2_keeps_means_and_variances() -> None:
    frame = survey(2000)
    res = run(frame, "add-noise", columns=["income"], method="correlated2", delta=0.3, seed=2)
    orig = original_rows(res)
    x, y = orig["income"].to_numpy(float), res.frame["income"].to_numpy(float)
    assert abs(y.mean() - x.mean()) < 6 * x.std() / np.sqrt(len(x))
    assert abs(y.std() / x.std() - 1) < 0.1
    assert res.verification.ok and not np.allclose(x, y)


def test_noise_keeps_missing_values_missing_and_is_deterministic() -> None:
    frame = survey()
    frame["income"] = frame["income"].astype(object)
    frame.loc[::9, "income"] = None
    a = run(frame, "add-noise", columns=["income"], seed=9)
    b = run(frame, "add-noise", columns=["income"], seed=9)
    assert a.frame.to_csv(index=False) == b.frame.to_csv(index=False)
    assert (a.frame["income"].isna() == original_rows(a)["income"].isna()).all()


@pytest.mark.parametrize(("options", "words"), [
    ({"columns": ["sex"]}, "is categorical"),
    ({"columns": ["income"], "method": "correlated2", "level": 10}, "drop level"),
    ({"columns": ["income"], "delta": 0.2}, "delta applies"),
    ({"columns": ["income"], "method": "correlated"}, "at least two"),
    ({"columns": ["job"]}, "is categorical"),
])
def test_noise_refuses_in_one_line(options: dict, words: str) -> None:
    with pytest.raises(InputError, match=words) as err:
        run(survey(), "add-noise", **options)
    assert "\n" not in str(err.value)


def test_pram_refuses_a_numeric_column_and_takes_it_declared_categorical() -> None:
    frame = survey()
    with pytest.raises(InputError, match="is numeric"):
        run(frame, "pram", columns=["age"])
    frame["age"] = (frame["age"] // 20).astype(str)  # coded categories, declared categorical: the control
    res = anonymize(frame, Schema.of(**SCHEMA, types={"age": "categorical"}), [KAnonymity(2)], algorithm="pram",
                    columns=["age"])
    assert res.verification.ok


def test_the_published_table_is_named_and_read_as_one_table() -> None:
    res = run(survey(), "pram", columns=["region"])
    rel = res.release
    assert rel.tables[PUBLISHED] is rel.published and not rel.tables and res.frame is rel.published
    assert rel.to_frame() is rel.published


# ------------------------------------------------------------------------------------------ the CLI
def _cli(tmp_path: Path, algorithm: dict, *extra: str) -> tuple[int, str]:
    survey().to_csv(tmp_path / "in.csv", index=False)
    cfg = {"input": {"path": "in.csv"},
           "attributes": {"age": {"role": "quasi", "type": "numeric"}, "sex": {"role": "quasi"},
                          "region": {"role": "quasi"}, "job": {"role": "sensitive"},
                          "income": {"role": "insensitive"}, "spend": {"role": "insensitive"}},
           "privacy": [{"model": "k-anonymity", "k": 2}], "algorithm": algorithm, "output": {"path": "out.csv"}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    res = CliRunner().invoke(app, ["anonymize", str(tmp_path / "c.yaml"), "--json", "--seed", "11", *extra])
    return res.exit_code, res.stdout


@pytest.mark.parametrize("algorithm", [
    {"name": "pram", "columns": ["region", "job"], "by": ["sex"]},
    {"name": "add-noise", "columns": ["income", "spend"], "method": "correlated", "level": 30},
])
def test_the_whole_cli_path_writes_audits_and_repeats(tmp_path: Path, algorithm: dict) -> None:
    code, out = _cli(tmp_path, algorithm)
    assert code == 0, out
    summary = json.loads(out)
    assert summary["verified"] and summary["algorithm"] == algorithm["name"]
    assert all(r["holds"] for r in summary["verification"])
    assert "audit" in summary and summary["verdict"]["ok"] is False  # 2-anonymity judged on the published values
    written = pd.read_csv(tmp_path / "out.csv")
    assert len(written) == N and list(written.columns) == list(survey().columns)
    assert summary["run"]["outputs"][0]["rows"] == N
    first = (tmp_path / "out.csv").read_bytes()
    code, _ = _cli(tmp_path, algorithm)
    assert code == 0 and (tmp_path / "out.csv").read_bytes() == first


def test_the_cli_report_path(tmp_path: Path) -> None:
    code, out = _cli(tmp_path, {"name": "pram", "columns": ["region"]}, "--report", str(tmp_path / "r.html"))
    assert code == 0, out
    html = (tmp_path / "r.html").read_text()
    assert "perturbed, not truthful by design" in html


def test_table_kinds_of_insensitive_columns() -> None:
    """An insensitive column without a type is numeric when all its values are numbers."""
    t = Table(survey(), Schema.of(**SCHEMA))
    assert column_kind(t, "income") == "numeric" and column_kind(t, "job") == "categorical"


@pytest.mark.parametrize("case", [
    C("pram-toy", 0, (), cfg=(pram(),)),
    C("pram-toy-given-matrix", 0, (), cfg=(pram(matrix={"Disease": identity(flu={"flu": 0.5, "gastritis": 0.5})},
                                                invariant=False),)),
    C("pram-toy-strata-and-defaults", 0, (), cfg=(put("algorithm", {"name": "pram", "by": ["Salary"]}),)),
    C("noise-toy", 0, (), cfg=(noise(level=20),)),
    C("noise-toy-correlated", 0, (), cfg=(noise(method="correlated"),)),
    C("noise-toy-correlated2", 0, (), cfg=(noise(method="correlated2", delta=0.5),)),
], ids=lambda c: c.id)
def test_the_catalogue_controls_run_and_write(case: C, tmp_path: Path) -> None:  # type: ignore[valid-type]
    """The controls of ``cases_perturb``: the same toy configs with good options run and write."""
    res = run_cli(build(case, tmp_path))
    assert res.exit_code == 0, res.stderr + res.stdout
    assert len(pd.read_csv(tmp_path / "out.csv", sep=";")) == 9



# ------------------------------------------------------------------------------------------ properties
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(5, 60), k=st.integers(1, 5), invariant=st.booleans(),
       strata=st.booleans())
def test_pram_promises_hold_on_random_tables(seed: int, n: int, k: int, invariant: bool, strata: bool) -> None:
    """On random tables and seeds: the release verifies, changes only the named column, and every
    change is a transition of positive probability in its stratum's published matrix."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"q": rng.choice(list("abc"), n), "s": rng.choice(["u", "v"], n),
                          "c": rng.choice([f"k{i}" for i in range(k)], n)})
    res = anonymize(frame, Schema.of(quasi=["q", "c"], sensitive=["s"]), [KAnonymity(1)], algorithm="pram",
                    seed=seed, columns=["c"], invariant=invariant, by=["q"] if strata else None)
    assert res.verification.ok
    orig = original_rows(res)
    assert (res.frame[["q", "s"]] == orig[["q", "s"]]).all().all()
    cats = res.release.notes["pram categories c"]
    for (a, b, q) in zip(orig["c"], res.frame["c"], orig["q"], strict=True):
        rows = res.release.notes[f"pram c [q={q}]" if strata else "pram c"]
        assert rows[cats.index(a)][1 + cats.index(b)] > 0


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(3, 80), level=st.floats(1, 300),
       method=st.sampled_from(["additive", "correlated"]))
def test_noise_promises_hold_on_random_tables(seed: int, n: int, level: float, method: str) -> None:
    """On random tables and seeds: the release verifies (the level within its sampling tolerance) and
    changes only the named columns."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"q": rng.choice(list("abc"), n), "x": rng.normal(0, 10, n).round(3),
                          "y": rng.integers(0, 100, n), "s": rng.choice(["u", "v"], n)})
    res = anonymize(frame, Schema.of(quasi=["q", "x", "y"], sensitive=["s"]), [KAnonymity(1)],
                    algorithm="add-noise", seed=seed, columns=["x", "y"], method=method, level=level)
    assert res.verification.ok
    orig = original_rows(res)
    assert (res.frame[["q", "s"]] == orig[["q", "s"]]).all().all()
