"""Local suppression to k-anonymity (issue 28, item 3): sdcMicro's heuristic, the exact variant, the
wildcard verifier.

* sdcMicro's own figures: its ``test_localSuppression.R`` sample (``set.seed(3)``; 2 cells on Var4–5,
  10 on Var3–5 with importance ``c(3, 2, 1)``) and ``testdata`` (the 300 bundled rows,
  ``tests/data/sdcmicro_testdata300.csv``), where sdcMicro 5.8.1's ``localSuppressionWORK`` (its R and
  C++ sources at commit cf32510, run with R 4.2.2, Rcpp and data.table; ``alpha = 1``, no importance,
  no strata) suppresses 24/50/81 cells for k = 2/3/5 on the 283 rows without missing keys and
  20/45/75 on the 299 rows other than the one whose keys are all missing (sdcMicro's ``freqCalc``
  lets no record match an all-missing one); anonkit's heuristic reaches the same k with fewer;
* hand-worked examples: the importance order decides the column; recoding first; l-diversity;
  ``max_cells``; missing cells read as wildcards;
* strata, key combinations and households (items 1, 3, 7): sdcMicro 5.8.1's cells with ``strataVars``
  and ``combs`` (``tests/data/sdcmicro_local_suppression.json``, the R calls in its header) on the
  shipped rows, ours no more, every requirement recounted here from the published table; hand-worked
  cases against their controls; households kept together and a tampered member caught; the pass that
  gives back unneeded cells never breaks a requirement (hypothesis);
* the exact variant never suppresses more than the heuristic and is minimal (brute force on small
  random tables); every release passes the wildcard verifier, which catches a tampered cell and a
  cell restored to its value; the same seed gives the same bytes.
"""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit import Schema, anonymize
from anonkit._verify_wildcard import wildcard_counts
from anonkit.algorithms.suppress._exact import suppress_exact
from anonkit.algorithms.suppress._heuristic import _fk_all_py, fk_by_masks, suppress_heuristic
from anonkit.algorithms.suppress._restore import restore_cells
from anonkit.algorithms.suppress.local_suppression import _verifier
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.models import DistinctLDiversity, KAnonymity
from anonkit.release import SUPPRESSED

DATA = Path(__file__).parent / "data"
NAME = "local-suppression"
KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]

#: sdcMicro's test_localSuppression.R sample (R: set.seed(3); runif…), Var3 to 4 decimals (all distinct)
SAMPLE = """Var3,Var4,Var5
23.5920,2,1
2.5177,2,2
13.7692,1,1
10.2448,2,2
24.4516,2,1
79.3236,2,1
60.3734,3,1
91.1046,1,1
56.4820,2,1
75.8148,1,2
"""


def _run(frame: pd.DataFrame, models: list, **options: object):  # type: ignore[no-untyped-def]
    qi = [c for c in frame.columns if c != "s"]
    schema = Schema.of(quasi=qi, sensitive=[c for c in frame.columns if c == "s"],
                       types={c: "categorical" for c in frame.columns})
    return anonymize(frame.astype(str), schema, models, algorithm=NAME, **options)


def _cells(result) -> int:  # type: ignore[no-untyped-def]
    return int(result.summary["notes"]["suppressed_cells_total"])


# ------------------------------------------------------------------------------------------ sdcMicro's figures
def test_sdcmicro_sample_two_keys() -> None:
    frame = pd.read_csv(io.StringIO(SAMPLE), dtype=str)[["Var4", "Var5"]]
    result = _run(frame, [KAnonymity(2)])
    assert result.verification.ok
    assert _cells(result) <= 2  # sdcMicro: 2


def test_sdcmicro_sample_three_keys_with_importance() -> None:
    frame = pd.read_csv(io.StringIO(SAMPLE), dtype=str)
    # sdcMicro's importance c(3, 2, 1): Var3 is suppressed first; anonkit lists the most important first
    result = _run(frame, [KAnonymity(2)], importance=["Var5", "Var4", "Var3"])
    assert result.summary["notes"]["importance"] == ["Var3", "Var4", "Var5"]
    assert result.verification.ok
    assert _cells(result) <= 10  # sdcMicro: 10


def _testdata(keep: str) -> pd.DataFrame:
    frame = pd.read_csv(DATA / "sdcmicro_testdata300.csv")[KEYS]
    rows = frame.notna().all(axis=1) if keep == "complete" else ~frame.isna().all(axis=1)
    return frame[rows].astype("Int64").astype(str).replace("<NA>", "")


@pytest.mark.parametrize(("keep", "k", "sdcmicro", "anonkit"), [
    ("complete", 2, 24, 15), ("complete", 3, 50, 28), ("complete", 5, 81, 53),
    ("some-key", 2, 20, 13), ("some-key", 3, 45, 28), ("some-key", 5, 75, 48),
])
def test_testdata_fewer_cells_than_sdcmicro(keep: str, k: int, sdcmicro: int, anonkit: int) -> None:
    frame = _testdata(keep)
    result = _run(frame, [KAnonymity(k)], missing_cells="wildcard")
    assert result.verification.ok
    fk, _ = wildcard_counts(result.frame[KEYS], SUPPRESSED)
    assert fk.min() >= k
    assert _cells(result) == anonkit <= sdcmicro
    if keep == "some-key":  # the input's missing keys are published as wildcards, not counted as suppressed
        assert result.summary["notes"]["missing_cells"] == 24 - 7


# ------------------------------------------------------------------------------------------ hand-worked
FIVE = pd.DataFrame({"A": ["1", "1", "2", "2", "2"], "B": ["2", "2", "1", "1", "2"]})


@pytest.mark.parametrize(("importance", "published"), [
    (["A", "B"], ("2", SUPPRESSED)),  # B is suppressed first: (2,*) joins the two (2,1)
    (["B", "A"], (SUPPRESSED, "2")),  # A is suppressed first: (*,2) joins the two (1,2)
])
def test_importance_decides_the_column(importance: list[str], published: tuple[str, str]) -> None:
    result = _run(FIVE, [KAnonymity(2)], importance=importance)
    rows = [tuple(r) for r in result.frame[["A", "B"]].itertuples(index=False)]
    assert sorted(rows) == sorted([("1", "2"), ("1", "2"), ("2", "1"), ("2", "1"), published])
    assert _cells(result) == 1


def test_default_order_suppresses_the_attribute_with_most_values_first() -> None:
    frame = pd.DataFrame({"A": ["1", "1", "2", "2", "2", "3"], "B": ["1", "1", "2", "2", "1", "2"]})
    result = _run(frame, [KAnonymity(2)])
    assert result.summary["notes"]["importance"][0] == "A"


def test_recode_then_suppress() -> None:
    frame = pd.read_csv(DATA / "test2.csv", sep=";", dtype=str)
    hierarchies = {name: pd.read_csv(DATA / f"test2_hierarchy_{name}.csv", sep=";", header=None, dtype=str)
                   for name in ("ZIPCode", "Age")}
    from anonkit import Hierarchy
    schema = Schema.of(quasi=["ZIPCode", "Age"], sensitive=["Salary", "Disease"],
                       hierarchies={n: Hierarchy(h.values.tolist(), name=n) for n, h in hierarchies.items()})
    plain = anonymize(frame, schema, [KAnonymity(3)], algorithm=NAME)
    recoded = anonymize(frame, schema, [KAnonymity(3)], algorithm=NAME, levels={"Age": 1, "ZIPCode": 2})
    assert recoded.verification.ok and plain.verification.ok
    assert _cells(recoded) < _cells(plain)
    ages = set(recoded.frame["Age"]) - {SUPPRESSED}
    assert ages <= {"[20,30[", "[30,40[", ">=40"}  # the hierarchy's level 1
    assert recoded.summary["transformation"] == {"ZIPCode": 2, "Age": 1}
    assert "recoded value" in recoded.summary["notes"]["guarantee"]


def test_distinct_l_diversity_with_wildcards() -> None:
    frame = pd.DataFrame({"A": ["1", "1", "2", "2", "3", "3"], "B": ["1", "1", "2", "2", "3", "3"],
                          "s": ["x", "x", "y", "z", "x", "y"]})
    k_only = _run(frame, [KAnonymity(2)])
    with_l = _run(frame, [KAnonymity(2), DistinctLDiversity("s", 2)])
    assert with_l.verification.ok
    _, distinct = wildcard_counts(with_l.frame[["A", "B"]], SUPPRESSED, with_l.frame["s"])
    assert distinct.min() >= 2  # type: ignore[union-attr]
    _, before = wildcard_counts(k_only.frame[["A", "B"]], SUPPRESSED, k_only.frame["s"])
    assert before.min() < 2  # type: ignore[union-attr]  # the control: k alone leaves a class of one value
    assert _cells(k_only) == 0 and _cells(with_l) > 0


def test_max_cells_refuses_and_its_control_passes() -> None:
    needed = _cells(_run(FIVE, [KAnonymity(2)]))
    assert _run(FIVE, [KAnonymity(2)], max_cells=needed).verification.ok
    with pytest.raises(UnsatisfiableError, match=f"more than max_cells = {needed - 1}"):
        _run(FIVE, [KAnonymity(2)], max_cells=needed - 1)


def test_missing_cells_as_values_or_wildcards() -> None:
    frame = pd.DataFrame({"A": ["1", "1", "2", ""], "B": ["1", "1", "2", "2"]})
    as_value = _run(frame, [KAnonymity(2)])
    wildcard = _run(frame, [KAnonymity(2)], missing_cells="wildcard")
    assert _cells(wildcard) == 0 and wildcard.summary["notes"]["missing_cells"] == 1  # ("", 2) matches (2, 2)
    assert _cells(as_value) >= 1
    assert (wildcard.frame["A"] == SUPPRESSED).sum() == 1


def test_unsupported_models_and_sizes_are_refused() -> None:
    with pytest.raises(InputError, match="not k-anonymity on some attributes"):
        _run(FIVE, [KAnonymity(2, attributes=("A",))])
    big = pd.DataFrame({"A": [str(i % 5) for i in range(65)], "B": [str(i % 3) for i in range(65)]})
    with pytest.raises(InputError, match="at most 64 records"):
        _run(big, [KAnonymity(2)], method="optimal")
    assert _run(big.iloc[:64], [KAnonymity(2)], method="optimal").verification.ok  # the control
    wide = pd.DataFrame({c: ["1", "1", "2"] for c in "ABCDE"})
    with pytest.raises(InputError, match="at most 4 quasi-identifiers"):
        _run(wide, [KAnonymity(2)], method="optimal")
    assert _run(wide.iloc[:, :4], [KAnonymity(2)], method="optimal").verification.ok  # the control


# ------------------------------------------------------------------------------------------ exact vs heuristic
def _feasible(codes: np.ndarray, mask: np.ndarray, k: int) -> bool:
    """Every record compatible with at least k records (its own pattern included), by the definition."""
    p = np.where(mask, -1, codes)
    a, b = p[:, None, :], p[None, :, :]
    fk = ((a == b) | (a < 0) | (b < 0)).all(axis=2).sum(axis=1)
    return bool(fk.min() >= k)


def _brute_force_minimum(codes: np.ndarray, k: int) -> int:
    n, d = codes.shape
    for m in range(n * d + 1):
        for cells in itertools.combinations(range(n * d), m):
            mask = np.zeros(n * d, dtype=bool)
            mask[list(cells)] = True
            if _feasible(codes, mask.reshape(n, d), k):
                return m
    raise AssertionError("all cells suppressed is always feasible")


def _heuristic_cells(codes: np.ndarray, k: int) -> tuple[int, np.ndarray]:
    rows, counts = np.unique(codes, axis=0, return_counts=True)
    out, cells = suppress_heuristic(rows, counts.astype(float), np.full(len(rows), -1), 0,
                                    np.arange(codes.shape[1])[::-1].copy(), k)
    return int(cells.sum()), out


tables = st.integers(2, 3).flatmap(lambda d: st.lists(
    st.lists(st.integers(0, 2), min_size=d, max_size=d), min_size=3, max_size=5))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables, st.integers(2, 3))
def test_exact_is_minimal_and_never_above_the_heuristic(rows: list[list[int]], k: int) -> None:
    codes = np.array(rows, dtype=np.int64)
    k = min(k, len(codes))
    mask = suppress_exact(codes, np.full(len(codes), -1), k)
    assert _feasible(codes, mask, k)
    assert int(mask.sum()) == _brute_force_minimum(codes, k)
    heuristic, out = _heuristic_cells(codes, k)
    assert _feasible(np.where(out < 0, 0, out), out < 0, k)
    assert int(mask.sum()) <= heuristic


# ------------------------------------------------------------------------------------------ the verifier
frames = st.integers(2, 3).flatmap(lambda d: st.lists(
    st.tuples(*[st.sampled_from("abc")] * d), min_size=4, max_size=12)).map(
    lambda rows: pd.DataFrame(rows, columns=[f"q{j}" for j in range(len(rows[0]))]))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames, st.integers(2, 4), st.sampled_from(["heuristic", "optimal"]))
def test_every_release_passes_and_a_tampered_cell_is_caught(frame: pd.DataFrame, k: int, method: str) -> None:
    k = min(k, len(frame))
    result = _run(frame, [KAnonymity(k)], method=method)
    release = result.release
    assert _verifier(release.table, release, result.models).ok
    published = release.tables["table"]
    kept = np.argwhere(published.to_numpy() != SUPPRESSED)
    i, j = kept[0]
    column = published.columns[j]
    tampered = published.copy()
    tampered.iloc[i, j] = "z"  # a value no record has
    release.tables["table"] = tampered
    bad = _verifier(release.table, release, result.models)
    assert not bad.ok and not bad.results[0].passed
    release.tables["table"] = published
    assert _verifier(release.table, release, result.models).ok, column


def test_a_cell_restored_to_its_value_breaks_k() -> None:
    result = _run(FIVE, [KAnonymity(2)], importance=["A", "B"])
    release = result.release
    published = release.tables["table"]
    restored = published.replace({"B": {SUPPRESSED: "2"}})  # the truthful value: only k can catch it
    release.tables["table"] = restored
    verdict = _verifier(release.table, release, result.models)
    assert verdict.results[0].passed and not verdict.ok
    assert "2-anonymity" in verdict.results[1].model and not verdict.results[1].passed


def test_same_seed_same_bytes() -> None:
    frame = _testdata("complete")
    a = _run(frame, [KAnonymity(3)], seed=5).frame
    b = _run(frame, [KAnonymity(3)], seed=5).frame
    c = _run(frame, [KAnonymity(3)], seed=6).frame
    assert a.to_csv(index=False) == b.to_csv(index=False)
    assert a.to_csv(index=False) != c.to_csv(index=False)  # another seed: other ties, another row order


patterns = st.integers(1, 3).flatmap(lambda d: st.lists(
    st.lists(st.integers(-1, 2), min_size=d, max_size=d), min_size=1, max_size=10))


@settings(max_examples=25, deadline=None)
@given(patterns)
def test_the_two_fk_counts_agree_with_the_definition(rows: list[list[int]]) -> None:
    pat = np.array(rows, dtype=np.int64)
    cnt = np.arange(1, len(pat) + 1, dtype=np.float64)
    a, b = pat[:, None, :], pat[None, :, :]
    want = (((a == b) | (a < 0) | (b < 0)).all(axis=2) * cnt[None, :]).sum(axis=1)
    fk_loop, _ = _fk_all_py(pat, cnt, np.full(len(pat), -1), len(pat), 0)
    assert np.array_equal(fk_by_masks(pat, cnt), want) and np.array_equal(fk_loop, want)
    frame = pd.DataFrame(np.where(pat < 0, SUPPRESSED, pat.astype(str)))
    expanded = frame.loc[frame.index.repeat(cnt.astype(int))]
    fk_pub, _ = wildcard_counts(expanded, SUPPRESSED)
    assert np.array_equal(fk_pub, np.repeat(want, cnt.astype(int)))


def test_the_cli_writes_the_release_with_stars(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from anonkit.cli import app

    for f in DATA.glob("test2*.csv"):
        (tmp_path / f.name).write_bytes(f.read_bytes())
    (tmp_path / "c.yaml").write_text(
        "input: {path: test2.csv, separator: ';'}\n"
        "attributes:\n"
        "  ZIPCode: {role: quasi, hierarchy: test2_hierarchy_ZIPCode.csv}\n"
        "  Age: {role: quasi, hierarchy: test2_hierarchy_Age.csv}\n"
        "  Salary: {role: sensitive, type: numeric}\n"
        "  Disease: {role: sensitive, hierarchy: test2_hierarchy_Disease.csv}\n"
        "privacy: [{model: k-anonymity, k: 3}]\n"
        f"algorithm: {{name: {NAME}}}\n"
        "output: {path: out.csv, separator: ';'}\n")
    res = CliRunner().invoke(app, ["anonymize", str(tmp_path / "c.yaml"), "--json"])
    assert res.exit_code == 0, res.output
    out = pd.read_csv(tmp_path / "out.csv", sep=";", dtype=str)
    assert len(out) == 9 and (out[["ZIPCode", "Age"]] == SUPPRESSED).to_numpy().any()
    fk, _ = wildcard_counts(out[["ZIPCode", "Age"]], SUPPRESSED)
    assert fk.min() >= 3


# ------------------------------------------------------------------------------------------ strata, combs, households
SDC = json.loads((DATA / "sdcmicro_local_suppression.json").read_text())
SHIPPED = [c for c in SDC["cases"] if c["data"].startswith("sdcmicro_testdata300") and (c["strata"] or c["combs"])
           and c["combs"] != [5, 4, 3]]  # 5:3 with k 10/20/30 (184 cells, ours 139) is measured, not run: 4 s


def _fk(frame: pd.DataFrame, keys: list[str], strata: list[str]) -> np.ndarray:
    """Wildcard fk counted within each stratum (the test's own recount: one stratum at a time)."""
    fk = np.zeros(len(frame), dtype=np.int64)
    groups = frame.groupby(strata).indices.values() if strata else [np.arange(len(frame))]
    for rows in groups:
        fk[rows], _ = wildcard_counts(frame.iloc[rows][keys], SUPPRESSED)
    return fk


@pytest.mark.parametrize("case", SHIPPED, ids=lambda c: f"k{c['k']}-strata{c['strata']}-combs{c['combs']}")
def test_strata_and_combs_no_more_cells_than_sdcmicro(case: dict) -> None:
    keys, strata, combs = case["keys"], case["strata"] or [], case["combs"]
    frame = pd.read_csv(DATA / "sdcmicro_testdata300.csv")
    frame = frame[frame[KEYS].notna().all(axis=1)][keys + strata].astype(int).astype(str)
    schema = Schema.of(quasi=keys, insensitive=strata, types={c: "categorical" for c in keys + strata})
    options = {"strata": strata or None, "combs": combs, "combs_k": case["k"] if combs else None}
    result = anonymize(frame, schema, [KAnonymity(1 if combs else case["k"][0])], algorithm=NAME, **options)
    assert result.verification.ok
    out = result.frame
    for size, k in (zip(combs, case["k"], strict=True) if combs else [(len(keys), case["k"][0])]):
        for cols in itertools.combinations(keys, size):
            assert _fk(out, list(cols), strata).min() >= k
    assert 0 < _cells(result) <= case["total"]


STRATA = pd.DataFrame({"A": ["1", "1", "2", "2"], "B": ["1", "1", "1", "1"], "R": ["n", "s", "n", "s"]})


def _strata_run(**options: object):  # type: ignore[no-untyped-def]
    schema = Schema.of(quasi=["A", "B"], insensitive=["R"], types={c: "categorical" for c in "ABR"})
    return anonymize(STRATA, schema, [KAnonymity(2)], algorithm=NAME, **options)


def test_strata_count_fk_within_each_stratum() -> None:
    plain, stratified = _strata_run(), _strata_run(strata=["R"])
    assert _cells(plain) == 0  # the control: across strata every record has a partner
    assert stratified.verification.ok and _cells(stratified) == 2  # within: (1, 1) and (*, 1) in each stratum
    out = stratified.frame
    assert (out["A"] == SUPPRESSED).groupby(out["R"]).sum().to_dict() == {"n": 1, "s": 1}
    release = plain.release  # the plain release judged by strata: the verifier recounts within them
    release.notes["strata"] = ["R"]
    assert not _verifier(release.table, release, plain.models).ok


def test_combs_protect_every_subset_of_keys() -> None:
    frame = pd.DataFrame({"A": ["1", "1", "2", "2", "3", "3"], "B": ["1", "1", "2", "2", "3", "3"]})
    plain = _run(frame, [KAnonymity(2)])
    combs = _run(frame, [KAnonymity(2)], combs=[1], combs_k=[3])
    assert _cells(plain) == 0
    assert combs.verification.ok and _cells(combs) > 0
    assert combs.summary["notes"]["combs"] == [[1, 3]]
    for col in "AB":
        fk, _ = wildcard_counts(combs.frame[[col]], SUPPRESSED)
        assert fk.min() >= 3
    release = plain.release
    release.notes["combs"] = [[1, 3]]
    verdict = _verifier(release.table, release, plain.models)
    assert not verdict.ok and "combinations of 1 quasi-identifiers" in verdict.results[-1].model


HH_KEYS = ["urbrur", "roof", "walls", "water", "electcon"]


@pytest.fixture(scope="module")
def households_runs():  # type: ignore[no-untyped-def]
    frame = pd.read_csv(DATA / "sdcmicro_testdata300.csv")
    frame = frame[frame[KEYS].notna().all(axis=1)][[*KEYS, "ori_hid"]].astype(int).astype(str)
    schema = Schema.of(quasi=KEYS, household="ori_hid", types={c: "categorical" for c in KEYS})
    runs = {h: anonymize(frame, schema, [KAnonymity(3)], algorithm=NAME, households=h,
                         household_keys=HH_KEYS if h == "together" else None) for h in ("independent", "together")}
    return frame, runs


def _split_households(result, frame: pd.DataFrame) -> int:  # type: ignore[no-untyped-def]
    rows = result.release.notes["published_rows"]
    out = result.frame[HH_KEYS].assign(hh=frame["ori_hid"].to_numpy()[rows])
    return int((out.groupby("hh")[HH_KEYS].nunique() > 1).any(axis=1).sum())


def test_households_together_keep_household_keys_equal(households_runs) -> None:  # type: ignore[no-untyped-def]
    frame, runs = households_runs
    together, alone = runs["together"], runs["independent"]
    assert together.verification.ok and "households together" in together.verification.results[-1].model
    assert _split_households(alone, frame) > 0  # the control: suppressed alone, housemates disagree
    assert _split_households(together, frame) == 0
    assert together.summary["notes"]["household_cells"] > 0
    assert _cells(together) >= _cells(alone)


def test_a_member_suppressed_alone_is_caught(households_runs) -> None:  # type: ignore[no-untyped-def]
    _frame, runs = households_runs
    release = runs["together"].release
    published = release.tables["table"]
    i = int(np.flatnonzero(published["water"] != SUPPRESSED)[0])
    tampered = published.copy()
    tampered.loc[tampered.index[i], "water"] = SUPPRESSED  # one member alone: the others still show it
    release.tables["table"] = tampered
    verdict = _verifier(release.table, release, runs["together"].models)
    assert not verdict.ok and not verdict.results[-1].passed
    release.tables["table"] = published
    assert _verifier(release.table, release, runs["together"].models).ok


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 3).flatmap(lambda d: st.lists(st.lists(st.integers(0, 2), min_size=d, max_size=d),
                                                    min_size=3, max_size=8)), st.integers(2, 3))
def test_restoring_cells_never_breaks_a_requirement(rows: list[list[int]], k: int) -> None:
    codes = np.array(rows, dtype=np.int64)
    n, d = codes.shape
    k = min(k, n)
    pat = np.full_like(codes, -1)  # everything suppressed: every requirement holds
    reqs = [((0,), min(n, k + 1)), (tuple(range(d)), k)]
    back = restore_cells(pat, codes, reqs, np.arange(d)[::-1].copy(), np.arange(n))
    assert back == int((pat >= 0).sum()) and np.array_equal(pat[pat >= 0], codes[pat >= 0])
    for cols, kk in reqs:
        a, b = pat[:, None, list(cols)], pat[None, :, list(cols)]
        assert (((a == b) | (a < 0) | (b < 0)).all(axis=2).sum(axis=1) >= kk).all()


def test_the_summary_counts_classes_with_wildcards() -> None:
    """The summary's privacy figures read ``*`` as matching anything, as the verifier and the audit do:
    smallest class = the smallest ``fk`` (≥ k), prosecutor risk 1/fk, no unique record — where the
    exact patterns (``*`` read as a value) would call the records it hides unique (the control)."""
    frame = pd.read_csv(io.StringIO(SAMPLE), dtype=str)[["Var4", "Var5"]].assign(s=list("ababababab"))
    result = _run(frame, [KAnonymity(3)])
    m, published = result.summary["metrics"], result.frame
    fk, _ = wildcard_counts(published[["Var4", "Var5"]], SUPPRESSED)
    exact = published.groupby(["Var4", "Var5"]).size()
    assert (published[["Var4", "Var5"]] == SUPPRESSED).any().any() and exact.min() < 3  # the control
    assert m["min_class_size"] == fk.min() >= 3 and result.summary["min_class_size"] == fk.min()
    assert m["prosecutor_highest"] == pytest.approx(1 / fk.min())
    assert m["prosecutor_average"] == pytest.approx(float(np.mean(1 / fk)))
    assert m["sample_uniqueness"] == 0 and m["record_linkage"] == pytest.approx(100 * float(np.mean(1 / fk)))
