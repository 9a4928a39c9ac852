"""Utility of a perturbed release (issue 28, item 5): :mod:`anonkit.metrics.perturbed`, the run's
``summary["perturbed_utility"]``, the printed summary's lines and the report's section.

Every figure is checked on a hand-worked tiny example; IL1s, IL1 and the eigenvalue measure against
sdcMicro 5.8.1's own ``dUtility`` (R/dUtility.R sourced in R 4.2.2), the regression overlap and the
correlations against R's ``lm``/``confint``/``cor``, on ``tests/data/sdcmicro_dutility200.csv`` (its
header records the data, the perturbation and the calls)."""

from __future__ import annotations

import io
import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from anonkit.cli import app, console
from anonkit.cli.printers.summary import print_summary
from anonkit.errors import InputError
from anonkit.metrics._perturbed_categorical import categorical_comparison
from anonkit.metrics._perturbed_numeric import (
    eigen_measure,
    il1,
    il1s,
    il1s_mean,
    interval_overlap,
    ols_intervals,
    regression_comparison,
)
from anonkit.metrics.perturbed import perturbed_utility
from anonkit.models import KAnonymity
from anonkit.pipeline import anonymize
from anonkit.report._markup import Page
from anonkit.report.perturbed import perturbed_section
from anonkit.schema import Schema

DATA = Path(__file__).parent / "data"
N = 150


# ------------------------------------------------------------------------------------------ worked examples
def test_il1s_and_il1_worked() -> None:
    # x = (1, 3): sd = √2, so |2 − 1| / (√2 · √2) = 0.5; the second value is unchanged
    x, xm = np.array([[1.0], [3.0]]), np.array([[2.0], [3.0]])
    assert il1s(x, xm) == pytest.approx(0.5) and il1s_mean(x, xm) == pytest.approx(0.25)
    # IL1: 100 · |3 − 2| / 2 = 50; x = 0 with x′ ≠ 0 (infinite) and a missing value are left out, as sdcMicro does
    assert il1(np.array([[2.0], [0.0], [np.nan]]), np.array([[3.0], [1.0], [5.0]])) == pytest.approx(50.0)
    # a missing value on either side leaves its term out (na.rm), the rest still counts
    assert il1s(np.array([[1.0], [3.0], [np.nan]]), np.array([[2.0], [3.0], [9.0]])) == pytest.approx(0.5)


def test_eigen_worked() -> None:
    # uncorrelated columns: eigenvalues (1, 1); published columns identical: correlation 1, eigenvalues (2, 0)
    x = np.array([[1, 1], [-1, 1], [1, -1], [-1, -1]], dtype=float)
    xm = np.array([[1, 1], [-1, -1], [1, 1], [-1, -1]], dtype=float)
    assert eigen_measure(x, xm) == pytest.approx(abs(1 - 2) / 1 + abs(1 - 0) / 1)
    assert eigen_measure(x, x) == pytest.approx(0.0)
    # a constant column has no correlation: undefined (sdcMicro's NA), not a number made up
    assert eigen_measure(np.array([[1.0, 2.0], [1.0, 3.0], [1.0, 5.0]]), x[:3]) is None


def test_correlations_worked() -> None:
    o = pd.DataFrame({"a": [1, -1, 1, -1], "b": [1, 1, -1, -1], "c": [1, 2, 3, 5]})
    p = o.assign(b=[1, -1, 1, -1])  # b now equals a: correlation 0 → 1
    got = perturbed_utility(o, p, numeric=["a", "b", "c"], changed=["b"])["numeric"]["correlations"]
    pairs = {tuple(q["columns"]): q for q in got["pairs"]}
    assert set(pairs) == {("a", "b"), ("b", "c")}  # a–c changed by nothing: not compared
    assert pairs[("a", "b")]["original"] == pytest.approx(0) and pairs[("a", "b")]["difference"] == pytest.approx(1)
    assert got["max_abs_difference"] == pytest.approx(1.0)


def test_interval_overlap_worked() -> None:
    lo0, hi0 = np.array([0.0, 0.0, 0.0, 0.0]), np.array([2.0, 2.0, 1.0, 4.0])
    lo1, hi1 = np.array([1.0, 0.0, 2.0, 1.0]), np.array([3.0, 2.0, 3.0, 2.0])
    # half-overlapping equal widths: ½(1/2 + 1/2); the same: 1; apart by one width: −1; nested: ½(1/4 + 1/1)
    assert interval_overlap(lo0, hi0, lo1, hi1) == pytest.approx([0.5, 1.0, -1.0, 0.625])


def test_ols_intervals_worked() -> None:
    # y = 1.1 + 1.1 x by hand: Sxx = 5, Sxy = 5.5; SSE = 2.7 on 2 df, s² = 1.35, se(slope) = √(1.35 / 5)
    x, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([1.0, 3.0, 2.0, 5.0])
    fit = ols_intervals(y, x, 0.95)
    assert fit is not None
    beta, _, hi = fit
    assert beta == pytest.approx([1.1, 1.1])
    assert (hi[1] - beta[1]) == pytest.approx(4.302652729911275 * math.sqrt(0.27))  # t(0.975, 2)
    # collinear predictors or too few rows: no fit, said as such
    assert ols_intervals(y, np.column_stack([x, 2 * x]), 0.95) is None
    assert ols_intervals(y[:2], x[:2], 0.95) is None
    got = regression_comparison(pd.DataFrame({"y": y, "x": x[:, 0], "z": 2 * x[:, 0]}),
                                pd.DataFrame({"y": y, "x": x[:, 0], "z": 2 * x[:, 0]}), [("y", ["x", "z"])])
    assert got is not None and got["models"][0]["undefined"].startswith("the original values give no fit")


def test_categorical_worked() -> None:
    o = pd.DataFrame({"a": ["a", "a", "b", "b", None], "c": ["x", "y", "x", "y", "x"]})
    p = pd.DataFrame({"a": ["a", "b", "b", "b", None], "c": ["x", "y", "x", "y", "x"]})
    got = categorical_comparison(o, p, ["a", "c"], [True, False])
    assert got["changed"] == {"a": pytest.approx(0.2)}  # the missing value stayed missing: not a change
    # margins: a 2/5 → 1/5, b 2/5 → 3/5, missing 1/5 → 1/5: ½(0.2 + 0.2)
    assert got["margin_tvd"]["a"] == pytest.approx(0.2)
    # two-way: (a,y) 1/5 → 0 and (b,y) 1/5 → 2/5; the rest the same
    assert got["pairs"] == [{"columns": ["a", "c"], "tvd": pytest.approx(0.2)}]


# ------------------------------------------------------------------------------------------ sdcMicro's figures
def test_against_sdcmicro_dutility() -> None:
    """sdcMicro 5.8.1 ``dUtility(obj = x, xm = xm, method = "IL1s" | "IL1" | "eigen")`` and R's
    ``confint(lm(income ~ expend + savings))``, ``cor(use = "pairwise.complete.obs")`` (calls and
    figures in the fixture's header), on 200 rows with a missing value on each side."""
    f = pd.read_csv(DATA / "sdcmicro_dutility200.csv", comment="#")
    cols = ["income", "expend", "savings"]
    o = f[cols]
    p = f[[c + "_p" for c in cols]].set_axis(cols, axis=1)
    got = perturbed_utility(o, p, numeric=cols)["numeric"]
    assert got["il1s"] == pytest.approx(100.05195208944487, rel=1e-12)
    assert got["il1"] == pytest.approx(171196.93581399726, rel=1e-12)
    assert got["eigen"] == pytest.approx(0.14229902747872639, rel=1e-10)
    income = got["regressions"]["models"][0]
    assert income["response"] == "income" and income["predictors"] == ["expend", "savings"]
    assert [c["overlap"] for c in income["coefficients"]] == pytest.approx(
        [0.85648191545265684, 0.8400680617813362, 0.93276555599971767], rel=1e-10)
    assert [q["difference"] for q in got["correlations"]["pairs"]] == pytest.approx(
        [0.043499514339863404, 0.03336627432360989, 0.035959822711271794], rel=1e-10)
    same = perturbed_utility(o, o, numeric=cols)["numeric"]
    assert same["il1s"] == 0 and same["eigen"] == pytest.approx(0, abs=1e-12)


# ------------------------------------------------------------------------------------------ properties
@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31), st.integers(8, 40))
def test_identity_release_loses_nothing(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    o = pd.DataFrame({"x": rng.normal(size=n), "y": rng.normal(size=n), "z": rng.integers(0, 5, n).astype(float),
                      "c": rng.choice(list("abc"), n), "d": rng.choice(list("pq"), n)})
    got = perturbed_utility(o, o.copy(), numeric=["x", "y", "z"], categorical=["c", "d"])
    num, cat = got["numeric"], got["categorical"]
    assert num["il1s"] == 0 and num["il1s_mean"] == 0 and num["il1"] == 0
    assert num["eigen"] is None or num["eigen"] == pytest.approx(0, abs=1e-9)
    assert num["correlations"]["max_abs_difference"] in (None, 0)
    overlaps = [c["overlap"] for m in num["regressions"]["models"] for c in m["coefficients"]]
    assert all(v == pytest.approx(1.0) for v in overlaps)
    assert set(cat["changed"].values()) == {0.0} and set(cat["margin_tvd"].values()) == {0.0}
    assert cat["max_pair_tvd"] == 0


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31), st.floats(0.1, 1e4))
def test_il1s_and_eigen_do_not_depend_on_units_or_row_order(seed: int, scale: float) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(30, 3))
    xm = x + rng.normal(scale=0.3, size=x.shape)
    order = rng.permutation(30)
    assert il1s(x * scale, xm * scale) == pytest.approx(il1s(x, xm), rel=1e-9)
    assert il1s(x[order], xm[order]) == pytest.approx(il1s(x, xm), rel=1e-9)
    assert eigen_measure(x * scale, xm * scale) == pytest.approx(eigen_measure(x, xm), rel=1e-6, abs=1e-9)


# ------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(("original", "published", "kwargs", "words"), [
    (pd.DataFrame({"a": [1.0, 2.0]}), pd.DataFrame({"a": [1.0]}), {"numeric": ["a"]}, "the original has 2 records"),
    (pd.DataFrame({"a": [1.0, 2.0]}), pd.DataFrame({"b": [1.0, 2.0]}), {"numeric": ["a"]}, "not in both tables"),
    (pd.DataFrame({"a": [1.0, 2.0]}), pd.DataFrame({"a": ["1", "x"]}), {"numeric": ["a"]}, "not a number"),
    (pd.DataFrame({"a": [1.0, 2.0]}), pd.DataFrame({"a": [1.0, 2.0]}), {"numeric": ["a"], "level": 1.0},
     "confidence level"),
])
def test_refused_in_one_line(original: pd.DataFrame, published: pd.DataFrame, kwargs: dict, words: str) -> None:
    with pytest.raises(InputError, match=words) as err:
        perturbed_utility(original, published, **kwargs)
    assert "\n" not in str(err.value)


def test_controls_of_the_refusals_pass() -> None:
    got = perturbed_utility(pd.DataFrame({"a": [1.0, 2.0]}), pd.DataFrame({"a": ["1", "2.5"]}), numeric=["a"],
                            level=0.9)
    assert got["numeric"]["il1s"] == pytest.approx(0.5 / (math.sqrt(0.5) * math.sqrt(2)))


# ------------------------------------------------------------------------------------------ the run and the CLI
def survey(n: int = N, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    income = rng.normal(3000, 800, n).round(2)
    return pd.DataFrame({"age": rng.integers(18, 90, n), "sex": rng.choice(["m", "f"], n),
                         "region": rng.choice(list("ABCD"), n), "job": rng.choice(["x", "y", "z"], n),
                         "income": income, "spend": (income * 0.6 + rng.normal(0, 150, n)).round(2)})


SCHEMA = dict(quasi=["age", "sex", "region"], sensitive=["job"], insensitive=["income", "spend"])


def test_the_summary_compares_each_published_row_with_its_own_record() -> None:
    """The figures use the release's private link (rows are shuffled): recomputed from it they agree,
    and matched in input order instead (the wrong pairing) they would not."""
    frame = survey()
    res = anonymize(frame, Schema.of(**SCHEMA), [KAnonymity(2)], algorithm="add-noise", seed=5,
                    columns=["income", "spend"], level=20)
    pu = res.summary["perturbed_utility"]
    rows = res.release.rows
    assert not np.array_equal(rows, np.arange(len(rows)))  # shuffled
    cols = ["age", "income", "spend"]
    own = perturbed_utility(frame.iloc[rows].reset_index(drop=True), res.frame, numeric=cols,
                            changed=["income", "spend"])
    assert pu["numeric"]["il1s"] == pytest.approx(own["numeric"]["il1s"]) and pu["numeric"]["columns"] == cols[1:]
    wrong = perturbed_utility(frame, res.frame, numeric=cols, changed=["income", "spend"])
    assert wrong["numeric"]["il1s"] > 2 * pu["numeric"]["il1s"]
    json.dumps(res.summary["perturbed_utility"], allow_nan=False)  # plain JSON: no NaN


def test_a_release_that_is_not_perturbative_has_none() -> None:
    res = anonymize(survey(), Schema.of(**SCHEMA), [KAnonymity(2)])
    assert "perturbed_utility" not in res.summary
    assert perturbed_section(Page(redact=str, show_values=False), res.summary) == ""


@pytest.fixture(scope="module")
def cli_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, str]]:
    """One CLI run per perturbative method with --json and --report."""
    out = {}
    for name, algorithm in [("pram", {"name": "pram", "columns": ["region", "job"]}),
                            ("add-noise", {"name": "add-noise", "columns": ["income", "spend"], "level": 30})]:
        tmp = tmp_path_factory.mktemp(name)
        survey().to_csv(tmp / "in.csv", index=False)
        cfg = {"input": {"path": "in.csv"},
               "attributes": {"age": {"role": "quasi", "type": "numeric"}, "sex": {"role": "quasi"},
                              "region": {"role": "quasi"}, "job": {"role": "sensitive"},
                              "income": {"role": "insensitive"}, "spend": {"role": "insensitive"}},
               "privacy": [{"model": "k-anonymity", "k": 2}], "algorithm": algorithm, "output": {"path": "out.csv"}}
        (tmp / "c.yaml").write_text(yaml.safe_dump(cfg))
        res = CliRunner().invoke(app, ["anonymize", str(tmp / "c.yaml"), "--json", "--seed", "7",
                                       "--no-fixes", "--report", str(tmp / "r.html")])
        assert res.exit_code == 0, res.stdout
        out[name] = (json.loads(res.stdout), (tmp / "r.html").read_text())
    return out


def printed(summary: dict, monkeypatch: pytest.MonkeyPatch) -> str:
    """What ``anonkit anonymize`` (without --json) prints for ``summary``."""
    monkeypatch.setattr(console, "out", Console(file=io.StringIO(), width=200))
    monkeypatch.setattr(console, "err", Console(file=io.StringIO(), width=200))
    print_summary(summary)
    return console.out.file.getvalue()  # type: ignore[attr-defined]


def test_cli_pram_summary_and_report(cli_runs: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    summary, html = cli_runs["pram"]
    pu = summary["perturbed_utility"]
    assert pu["numeric"] is None and pu["categorical"]["columns"] == ["region", "job"]
    assert 0 < pu["categorical"]["changed"]["region"] < 1 and pu["categorical"]["max_pair_tvd"] >= 0
    assert '<section id="perturbed-utility">' in html and 'id="fig-perturbed-utility"' in html
    assert "region: values changed" in html
    section = next(e for e in ET.fromstring(html).iter() if e.get("id") == "perturbed-utility")  # polyglot page
    assert section.find(".//table") is not None
    assert "perturbed categories: values changed" in printed(summary, monkeypatch)


def test_nothing_printed_for_a_release_that_is_not_perturbative(cli_runs: dict,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    summary = {k: v for k, v in cli_runs["pram"][0].items() if k != "perturbed_utility"}
    text = printed(summary, monkeypatch)
    assert "values changed" not in text and "TVD" not in text


def test_cli_noise_summary_print_and_report(cli_runs: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    summary, html = cli_runs["add-noise"]
    num = summary["perturbed_utility"]["numeric"]
    assert num["columns"] == ["income", "spend"] and num["il1s"] > 0 and num["eigen"] is not None
    assert -1 < num["regressions"]["mean_overlap"] < 1
    assert "IL1s (sdcMicro dUtility" in html and "interval overlap" in html
    text = printed(summary, monkeypatch)
    assert "IL1s (sdcMicro)" in text and "regression intervals' overlap" in text and f"{num['il1s']:.4g}" in text
    assert "perturbed categories" not in text


# --- the vectorized paths (issue 28 item 8, issue 30 item 1): each against its per-value definition -----------

def _texts_by_value(values: pd.Series) -> np.ndarray:
    """The definition: every value turned into text one by one (missing: −1), numbered by first appearance."""
    text = values.astype(object).where(values.notna(), None).map(lambda v: None if v is None else str(v))
    return pd.factorize(text, use_na_sentinel=True)[0]


_MIXED = [pd.Series([1.0, -0.0, 0.0, np.nan, 1e20]), pd.Series([3, 1, 3, 2, 1]),
          pd.Series([True, False, True, True, False]),
          pd.Series(["a", None, "b", "a", "None"]), pd.Series(["a", None, "b", "a", np.nan], dtype=object),
          pd.Series([1, True, 1.0, "1", None], dtype=object), pd.Series([1, 2, "1", None, 2], dtype=object),
          pd.Series(["x", "y", None, "x", "z"], dtype="category"), pd.Series([1, None, 3, 1, 2], dtype="Int64"),
          pd.Series([None] * 5, dtype=object)]


@pytest.mark.parametrize("before", range(len(_MIXED)))
def test_shared_codes_number_values_as_their_texts_do(before: int) -> None:
    """1, 1.0 and True are one value to pandas but three texts; 0.0 and -0.0 two texts: the shared numbering
    of two columns is the one of their values turned into text one by one, for every pair of kinds."""
    from anonkit.metrics._perturbed_categorical import shared_codes, text_codes
    for after in _MIXED:
        a, b, size = shared_codes(_MIXED[before], after)
        both = pd.concat([_MIXED[before], after], ignore_index=True)
        want = _texts_by_value(both)
        n = int(want.max()) + 1 if (want >= 0).any() else 0
        assert size == n + 1
        assert np.array_equal(np.concatenate([a, b]), np.where(want < 0, n, want))
        assert np.array_equal(text_codes(both)[0], want)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.one_of(st.none(), st.sampled_from([0.0, -0.0, 1.0, 2.5, 1e-7])), min_size=1, max_size=30),
       st.lists(st.sampled_from(["a", "b", "None", "nan", None, "10", "9"]), min_size=1, max_size=30),
       st.integers(0, 2**32 - 1))
def test_published_classes_group_by_the_texts_sorted(floats: list, texts: list, seed: int) -> None:
    """A perturbative release's classes (:func:`published_classes`): the combinations of the published
    key cells' texts (a missing cell a value of its own, after every text; the text ``None`` is not a
    missing cell), numbered in sorted order — as grouping the cells turned into text one by one."""
    from anonkit.algorithms.perturb._release import _text_key_groups
    rng = np.random.default_rng(seed)
    n = max(len(floats), len(texts))
    keys = pd.DataFrame({"f": pd.Series(rng.choice(np.array(floats, dtype=object), n)).astype(float),
                         "t": pd.Series(rng.choice(np.array(texts, dtype=object), n), dtype=object),
                         "i": rng.integers(0, 12, n)})
    for cols in (["f"], ["t", "f"], ["i", "t", "f"]):
        k = keys[cols].astype(object).where(keys[cols].notna(), None).astype(str)
        want = k.groupby(cols, sort=True, dropna=False).ngroup().to_numpy()
        assert np.array_equal(_text_key_groups(keys[cols]), want)


def _ols_by_lstsq(y: np.ndarray, X: np.ndarray, level: float):
    """The definition: the rank of the n × p design by its SVD, the coefficients by least squares, the
    standard errors from (XᵀX)⁻¹."""
    from scipy import stats
    known = np.isfinite(y) & np.isfinite(X).all(axis=1)
    design = np.column_stack([np.ones(int(known.sum())), X[known]])
    n, p = design.shape
    if n <= p or np.linalg.matrix_rank(design) < p:
        return None
    beta = np.linalg.lstsq(design, y[known], rcond=None)[0]
    resid = y[known] - design @ beta
    se = np.sqrt(float(resid @ resid) / (n - p) * np.diag(np.linalg.inv(design.T @ design)))
    half = stats.t.ppf(0.5 + level / 2.0, n - p) * se
    return beta, beta - half, beta + half


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 80), st.integers(1, 3), st.sampled_from([1e-3, 1.0, 1e4]), st.booleans(), st.booleans(),
       st.integers(0, 2**32 - 1))
def test_ols_by_one_qr_is_least_squares(n: int, k: int, scale: float, collinear: bool, holes: bool, seed: int) -> None:
    """:func:`ols_intervals` fits by one QR of [1 | X | y] (no SVD of the n × p design): the same
    coefficients and intervals as least squares within 1e-12 relative, and no fit exactly when the design's
    rank (numpy's matrix_rank, its tolerance) is short, or too few rows are known."""
    rng = np.random.default_rng(seed)
    X = rng.lognormal(rng.uniform(0, 8), 1.0, (n, k)) * scale
    if collinear and k > 1:
        X[:, -1] = 2 * X[:, 0] + 1
    if holes:
        X[rng.integers(0, n, 2), 0] = np.nan
    y = 3 + X @ rng.normal(size=k) + rng.normal(0, float(np.nanstd(X)) + 1, n)
    got, want = ols_intervals(y, X, 0.95), _ols_by_lstsq(y, X, 0.95)
    assert (got is None) == (want is None)
    if want is not None:
        for g, w in zip(got, want, strict=True):
            assert g == pytest.approx(w, rel=1e-12, abs=1e-12 * float(np.max(np.abs(w))))


@pytest.mark.parametrize("scale", [1e-200, 1e-3, 1.0, 1e5, 1e200])
def test_householder_r_is_lapacks_r_at_every_scale(scale: float) -> None:
    """:func:`householder_r` (no BLAS) gives LAPACK's R up to the rows' signs, also where a column's sum of
    squares would under- or overflow (1e±200), and keeps a zero column's diagonal 0 (a short rank)."""
    from anonkit.metrics._perturbed_numeric import householder_r
    a = np.asfortranarray(np.column_stack([np.full(7, scale), np.arange(7.0) * scale, np.sin(np.arange(7.0))]))
    want, got = np.linalg.qr(a, mode="r"), householder_r(a.copy(order="F"))
    signs = np.sign(np.diag(want)) * np.sign(np.diag(got))
    assert np.allclose(signs[:, None] * got, want, rtol=1e-13, atol=1e-13 * np.abs(want).max(axis=1, keepdims=True))
    assert householder_r(np.zeros((4, 2), order="F"))[0, 0] == 0.0
