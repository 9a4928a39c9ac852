"""Microaggregation as sdcMicro does it (issue 28, item 4; item 7's MDAV groups).

Goldens: ``tests/data/sdcmicro_micro_testdata.csv`` (the first 300 records of sdcMicro's ``testdata``:
sex, expend, income, savings, then sdcMicro's published values per run) and
``tests/data/sdcmicro_micro_francdat.csv`` (sdcMicro's ``francdat``, 8 records), made with sdcMicro 5.8.1
(R/microaggregation.R, R/mdav.R, R/mafast.R sourced, src/Mdav.cpp compiled with Rcpp; the calls are in
``tests/data/sdcmicro_micro_README.md``): ``microaggregation(x, variables=c("expend", "income",
"savings"), method=M, aggr=K, measure=A[, strata_variables="sex"][, nc=1])``. sdcMicro publishes values,
not groups: its partition is read back as the records sharing a published vector (a value, for
``onedims``), compared with anonkit's, then the values within 10⁻¹² relative. ``rmd`` (robustbase's
``covMcd`` is not installable here, and both MCDs draw random subsets) and ``influence``/``clustpppca``
with clusters (sdcMicro's ``clara`` vs anonkit's k-means) cannot match: their properties are tested
instead; ``clustpppca``'s projection pursuit is compared with one cluster (``nc=1``).
"""

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

from anonkit.algorithms.perturb import _micro_methods
from anonkit.algorithms.perturb._micro_kernels import rmd_compiled
from anonkit.algorithms.perturb._release import verify_perturbed
from anonkit.algorithms.perturb.microaggregation import group_aggregate, micro_groups
from anonkit.cli import app
from anonkit.models import KAnonymity
from anonkit.pipeline import anonymize
from anonkit.schema import Schema

DATA = Path(__file__).resolve().parent / "data"
VARS = ["expend", "income", "savings"]
#: run tag in the golden file → (method, k, aggr, stratified by sex, clusters)
GOLDEN = {
    "mdav3": ("mdav", 3, "mean", False, 8), "mdav5": ("mdav", 5, "mean", False, 8),
    "pca3": ("pca", 3, "mean", False, 8), "pca7": ("pca", 7, "mean", False, 8),
    "pca3median": ("pca", 3, "median", False, 8), "pca3onestep": ("pca", 3, "onestep", False, 8),
    "onedims3": ("onedims", 3, "mean", False, 8), "onedims4median": ("onedims", 4, "median", False, 8),
    "pppca3": ("clustpppca", 3, "mean", False, 1), "pca3sex": ("pca", 3, "mean", True, 8),
}
METHODS = ["mdav", "rmd", "pca", "onedims", "influence", "clustpppca"]


def _partition(labels: np.ndarray) -> np.ndarray:
    """Labels renumbered by first appearance (two labelings of one partition become equal)."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True, axis=0 if labels.ndim > 1 else None)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[inverse.reshape(-1)]


@pytest.fixture(scope="module")
def testdata() -> pd.DataFrame:
    return pd.read_csv(DATA / "sdcmicro_micro_testdata.csv")


@pytest.mark.parametrize("tag", sorted(GOLDEN))
def test_sdcmicro_partitions_and_values(testdata: pd.DataFrame, tag: str) -> None:
    method, k, aggr, by_sex, clusters = GOLDEN[tag]
    x = testdata[VARS].to_numpy(float)
    stratum = _partition(testdata["sex"].to_numpy()) if by_sex else np.zeros(len(x), dtype=np.int64)
    groups = micro_groups(x, stratum, method, k, 0, clusters)
    theirs = testdata[[f"{tag}.{c}" for c in VARS]].to_numpy(float)
    for j in range(len(VARS)):
        expected = _partition(theirs[:, j] if method == "onedims" else theirs)
        assert np.array_equal(_partition(groups[j]), expected), (tag, VARS[j])
        mine = group_aggregate(x[:, j], groups[j], aggr)
        np.testing.assert_allclose(mine, theirs[:, j], rtol=1e-12)


def test_sdcmicro_francdat() -> None:
    d = pd.read_csv(DATA / "sdcmicro_micro_francdat.csv")
    x = d[["Num1", "Num2", "Num3"]].to_numpy(float)
    for method in ("mdav", "pca"):
        groups = micro_groups(x, np.zeros(len(x), dtype=np.int64), method, 3, 0, 8)
        for j, c in enumerate(["Num1", "Num2", "Num3"]):
            np.testing.assert_allclose(group_aggregate(x[:, j], groups[j], "mean"), d[f"{method}3.{c}"], rtol=1e-12)


# ------------------------------------------------------------------------------------------ properties
@settings(max_examples=25, deadline=None)
@given(st.integers(6, 60), st.integers(1, 3), st.integers(2, 5), st.sampled_from(METHODS),
       st.sampled_from(["mean", "median", "onestep"]), st.booleans(), st.integers(0, 2**16))
def test_groups_and_published_values_keep_their_promise(n: int, p: int, k: int, method: str, aggr: str,
                                                        strata: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.lognormal(3, 1, (n, p)).round(1)  # rounded: ties
    stratum = (rng.random(n) < 0.5).astype(np.int64) if strata else np.zeros(n, dtype=np.int64)
    if np.bincount(stratum, minlength=2 if strata else 1).min() < k:
        stratum[:] = 0
    groups = micro_groups(x, stratum, method, k, seed, 3)
    for j in range(p):
        sizes = np.bincount(groups[j])
        assert sizes.min() >= k and (sizes < 2 * k).all()  # k … 2k − 1 records a group
        assert all(len(set(stratum[groups[j] == g])) == 1 for g in range(len(sizes)))  # never across strata
        y = group_aggregate(x[:, j], groups[j], aggr)
        frame = pd.DataFrame({"g": groups[j], "x": x[:, j]})
        want = frame.groupby("g")["x"].transform("mean" if aggr == "mean" else "median").to_numpy()
        if aggr != "onestep":
            np.testing.assert_allclose(y, want, rtol=1e-12)
        else:  # the clipped mean lies between the group's extremes
            lo = frame.groupby("g")["x"].transform("min").to_numpy()
            hi = frame.groupby("g")["x"].transform("max").to_numpy()
            assert ((lo - 1e-9 <= y) & (y <= hi + 1e-9)).all()
    if method != "onedims" or p == 1:
        assert all(np.array_equal(groups[0], g) for g in groups)  # one partition for every column


def test_same_seed_same_release_and_onedims_is_not_k_anonymous_on_the_combination() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(60, 3))
    a = micro_groups(x, np.zeros(60, dtype=np.int64), "influence", 3, 5, 4)
    b = micro_groups(x, np.zeros(60, dtype=np.int64), "influence", 3, 5, 4)
    assert np.array_equal(a, b)
    g = micro_groups(x, np.zeros(60, dtype=np.int64), "onedims", 3, 0, 8)
    published = np.column_stack([group_aggregate(x[:, j], g[j], "mean") for j in range(3)])
    _, counts = np.unique(published, axis=0, return_counts=True)
    assert counts.min() < 3  # independent columns: some published combination is unique
    assert all(np.unique(published[:, j], return_counts=True)[1].min() >= 3 for j in range(3))


def test_rmd_compiled_rounds_are_the_numpy_rounds() -> None:
    rng = np.random.default_rng(7)
    z = _micro_methods.zscores(rng.lognormal(size=(400, 3)).round(1))  # rounded: tied distances
    md = _micro_methods.robust_distances(z, 0).round(1)  # tied seeds
    for k in (3, 4):
        assert np.array_equal(_micro_methods.rmd_numpy(z, md, k), rmd_compiled(z, md, k, len(z) // k - 1))


# ------------------------------------------------------------------------------------------ releases
def _survey(n: int = 90, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    income = rng.normal(3000, 800, n).round(2)
    return pd.DataFrame({"row": np.arange(n), "age": rng.integers(18, 90, n), "sex": rng.choice(["m", "f"], n),
                         "income": income, "spend": (income * 0.6 + rng.normal(0, 150, n)).round(2)})


SCHEMA = dict(quasi=["age", "sex"], insensitive=["row", "income", "spend"])


@pytest.fixture(scope="module")
def release():  # type: ignore[no-untyped-def]
    return anonymize(_survey(), Schema.of(**SCHEMA), [KAnonymity(3)], algorithm="microaggregation", seed=0,
                     method="pca", columns=["age", "income", "spend"], strata=["sex"]).release


def _verdict(rel, published: pd.DataFrame) -> bool:  # type: ignore[no-untyped-def]
    changed = replace(rel, published=published)
    changed.tables = type(rel.tables)(published)
    return verify_perturbed(rel.table, changed).ok


@settings(max_examples=10, deadline=None)
@given(st.integers(8, 40), st.sampled_from(METHODS), st.sampled_from(["mean", "median", "onestep"]),
       st.booleans(), st.integers(0, 2**16))
def test_every_release_passes_its_verifier_and_a_shifted_value_fails_it(n: int, method: str, aggr: str,
                                                                         strata: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.normal(size=n).round(1), "b": rng.lognormal(size=n).round(1),
                          "s": np.where(np.arange(n) < n // 2, "x", "y")})
    rel = anonymize(frame, Schema.of(quasi=["a", "b", "s"]), [KAnonymity(2)], algorithm="microaggregation",
                    seed=seed, method=method, aggr=aggr, k=3, **({"strata": ["s"]} if strata else {})).release
    assert _verdict(rel, rel.published)
    out = rel.published.copy()
    out.loc[0, "b"] += 0.5
    assert not _verdict(rel, out)


def test_the_release_verifies_and_says_what_is_true(release) -> None:  # type: ignore[no-untyped-def]
    assert _verdict(release, release.published)  # the control
    assert "perturbed, not truthful by design" in release.message
    assert "shared by at least 3 records" in release.message
    out = release.published
    assert out.groupby(["sex", "age", "income", "spend"]).size().min() >= 3


@pytest.mark.parametrize("tamper", ["value", "group-mean-shifted", "stratum-crossed", "other-column"])
def test_a_tampered_release_is_caught(release, tamper: str) -> None:  # type: ignore[no-untyped-def]
    out = release.published.copy()
    if tamper == "value":  # one record published with its own income instead of its group's
        out.loc[0, "income"] = release.table.frame["income"].iloc[release.rows[0]]
    elif tamper == "group-mean-shifted":  # a whole group moved together: still shared, no longer the mean
        same = (out[["sex", "age", "income", "spend"]] == out.loc[0, ["sex", "age", "income", "spend"]]).all(axis=1)
        out.loc[same, "spend"] += 1.0
    elif tamper == "stratum-crossed":
        out.loc[0, "sex"] = "f" if out.loc[0, "sex"] == "m" else "m"
    else:
        out.loc[0, "row"] = -1
    assert not _verdict(release, out)


def test_whole_cli_run(tmp_path: Path) -> None:
    frame = _survey(60, seed=4)
    frame.to_csv(tmp_path / "in.csv", index=False)
    cfg = {"input": {"path": "in.csv"},
           "attributes": {"row": {"role": "insensitive"}, "age": {"role": "quasi", "type": "numeric"},
                          "sex": {"role": "quasi"}, "income": {"role": "insensitive"},
                          "spend": {"role": "insensitive"}},
           "privacy": [{"model": "k-anonymity", "k": 4}],
           "algorithm": {"name": "microaggregation", "method": "rmd", "k": 4, "aggr": "median",
                         "columns": ["age", "income", "spend"], "strata": ["sex"]},
           "output": {"path": "out.csv"}, "seed": 2}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    res = CliRunner().invoke(app, ["anonymize", str(tmp_path / "c.yaml"), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["verified"] and all(v["holds"] for v in summary["verification"])
    out = pd.read_csv(tmp_path / "out.csv").sort_values("row").reset_index(drop=True)
    assert out["sex"].tolist() == frame["sex"].tolist()  # strata and the rest as in the input
    key = ["sex", "age", "income", "spend"]
    sizes = out.groupby(key)["row"].transform("size")
    assert sizes.min() >= 4
    for col in ["age", "income", "spend"]:  # every value the median of the records that share it
        med = frame[col].groupby([out[c] for c in key]).transform("median")
        np.testing.assert_allclose(out[col], med, rtol=1e-9)
