"""The swapping methods of the perturb family (issue 28, item 4): rank swapping, targeted record
swapping of households and shuffling; their promises, their verifiers (each check on a tampered
release and on the untampered control), properties on random tables, and the whole CLI path.

No sdcMicro goldens: every method is random and sdcMicro draws with its own generators (rankSwap's C
``Random``, recordSwap's ``std::mt19937``, shuffle's R ``mvrnorm``), so only the promises can be
compared, and they are checked here on every release."""

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

from anonkit._verify_swap import rank_distance_results, rank_window, spearman
from anonkit.algorithms.perturb._record_swap import household_risk_levels
from anonkit.algorithms.perturb._release import PerturbedRelease
from anonkit.algorithms.perturb.rank_swap import swap_ranks, verify_rank_swap
from anonkit.algorithms.perturb.record_swap import NO_DONOR_KEY, SWAPPED_KEY, verify_record_swap
from anonkit.algorithms.perturb.shuffle import verify_perturbed
from anonkit.cli import app
from anonkit.errors import InputError
from anonkit.models import KAnonymity
from anonkit.pipeline import anonymize
from anonkit.schema import Schema
from anonkit.table import Table
from bad_input_kit import C, build
from bad_input_kit import run as run_cli
from cases_swap import HOUSEHOLD_ROLES, rank, record, shuffled, with_households

ROOT = Path(__file__).resolve().parents[1]
N = 300
#: the runs here check the release, not the advice a failing audit gets (which reruns the config)
NO_FIXES = ("--no-fixes",)


def survey(n: int = N, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    income = rng.normal(3000, 800, n).round(2)
    age = rng.integers(18, 90, n)
    return pd.DataFrame({"age": age, "sex": rng.choice(["m", "f"], n),
                         "grade": rng.choice(["low", "mid", "high"], n),
                         "income": (income + 15 * age).round(2),
                         "spend": (income * 0.6 + rng.normal(0, 150, n)).round(2)})


def schema() -> Schema:
    """age and sex quasi-identifiers; grade an ordinal sensitive attribute (low < mid < high)."""
    s = Schema.of(quasi=["age", "sex"], insensitive=["income", "spend"], sensitive=["grade"],
                  types={"grade": "ordinal"})
    s["grade"].order = ["low", "mid", "high"]
    return s


def run(frame: pd.DataFrame, algorithm: str, sch: Schema | None = None, seed: int = 0, **options: object):  # type: ignore[no-untyped-def]
    return anonymize(frame, sch or schema(), [KAnonymity(1)], algorithm=algorithm, seed=seed, **options)


def original_rows(result) -> pd.DataFrame:  # type: ignore[no-untyped-def]
    rel = result.release
    return rel.table.frame.iloc[rel.rows].reset_index(drop=True)


def passes(result, verify, published: pd.DataFrame | None = None, notes: dict | None = None) -> bool:  # type: ignore[no-untyped-def]
    """Whether ``verify`` passes the release with its published table or notes replaced."""
    rel: PerturbedRelease = result.release
    changed = replace(rel, published=rel.published if published is None else published,
                      notes=dict(rel.notes) if notes is None else notes)
    changed.tables = type(rel.tables)(changed.published)
    return verify(rel.table, changed).ok


# ------------------------------------------------------------------------------------------ rank swapping
def test_rank_swap_keeps_each_column_and_stays_within_the_window() -> None:
    frame = survey()
    res = run(frame, "rank-swap", columns=["income", "age", "grade"], p=4)
    assert res.verification.ok
    orig = original_rows(res)
    window = rank_window(4, N)
    assert window == 12
    for c in ["income", "age", "grade"]:
        assert sorted(res.frame[c].astype(str)) == sorted(orig[c].astype(str))  # the multiset kept
    order = np.argsort(orig["income"].to_numpy(), kind="stable")
    rank_of = {v: i for i, v in enumerate(orig["income"].to_numpy()[order])}  # incomes are distinct here
    moved = [abs(rank_of[a] - rank_of[b]) for a, b in zip(orig["income"], res.frame["income"], strict=True)]
    assert max(moved) <= window and np.mean(np.array(moved) > 0) > 0.9
    assert (res.frame[["sex", "spend"]] == orig[["sex", "spend"]]).all().all()
    assert "12 ranks apart (4% of 300 values" in res.release.message


def test_rank_swap_p_is_a_percentage_and_100_spans_every_rank() -> None:
    frame = survey(50)
    narrow = run(frame, "rank-swap", columns=["income"], p=2)  # a window of one rank: neighbours only
    wide = run(frame, "rank-swap", columns=["income"], p=100)
    o = original_rows(narrow)["income"].rank().to_numpy()
    n = narrow.frame["income"].map(dict(zip(original_rows(narrow)["income"], o, strict=True))).to_numpy()
    assert np.abs(n - o).max() == 1
    ow = original_rows(wide)["income"].rank().to_numpy()
    w = wide.frame["income"].map(dict(zip(original_rows(wide)["income"], ow, strict=True))).to_numpy()
    assert np.abs(w - ow).max() > 10


def test_rank_swap_ties_share_ranks_and_missing_values_stay() -> None:
    """Ties: equal values share the ranks of their run; a swap between equal values has distance 0."""
    frame = pd.DataFrame({"x": [1, 1, 1, 1, 2, 2, 9, None, 3, 3], "q": list("ababababab")})
    res = run(frame, "rank-swap", Schema.of(quasi=["q"], insensitive=["x"]), columns=["x"], p=20)
    assert res.verification.ok
    orig = original_rows(res)
    assert (orig["x"].isna() == res.frame["x"].isna()).all()
    # the rule: the four 1s hold ranks 0–3, the 2s 4–5; 1 → 2 is distance 1, 1 → 9 (rank 8) is 5
    tampered = orig.copy()
    i = int(np.flatnonzero(orig["x"].to_numpy() == 1)[0])
    j = int(np.flatnonzero(orig["x"].to_numpy() == 9)[0])
    tampered.loc[[i, j], "x"] = [9, 1]
    got = rank_distance_results(orig, tampered, ["x"], 20, {"x": None})[0]
    assert not got.passed and got.achieved == 5 and got.failing_records == 2
    assert rank_distance_results(orig, orig, ["x"], 20, {"x": None})[0].passed


def test_an_ordinal_column_is_ranked_by_its_order_not_its_text() -> None:
    """low < mid < high: low ↔ high is two ranks apart by the order (one alphabetically: high, low, mid)."""
    orig = pd.DataFrame({"g": ["low"] * 5 + ["mid"] * 5 + ["high"] * 5})
    pub = orig.copy()
    pub.loc[[4, 10], "g"] = ["high", "low"]  # ranks 4 and 10: 6 apart by the order
    order = {"g": ["low", "mid", "high"]}
    assert not rank_distance_results(orig, pub, ["g"], 20, order)[0].passed  # a window of 3
    assert rank_distance_results(orig, pub, ["g"], 40, order)[0].passed  # a window of 6
    res = run(survey(60), "rank-swap", columns=["grade"], p=10)
    assert res.verification.ok and sorted(res.frame["grade"]) == sorted(original_rows(res)["grade"])


def test_swap_ranks_pairs_within_the_window() -> None:
    keys = np.arange(20, dtype=float)[::-1]
    source = swap_ranks(keys, np.arange(20), 3, np.random.default_rng(0))
    assert sorted(source) == list(range(20)) and (source[source] == np.arange(20)).all()  # pairs
    assert np.abs(keys[source] - keys).max() <= 3


def test_rank_swap_is_deterministic_per_seed() -> None:
    frame = survey(80)
    a, b = run(frame, "rank-swap", seed=5, columns=["income"]), run(frame, "rank-swap", seed=5, columns=["income"])
    c = run(frame, "rank-swap", seed=6, columns=["income"])
    assert a.frame.equals(b.frame) and not a.frame.equals(c.frame)


def test_a_tampered_rank_swap_release_is_caught() -> None:
    res = run(survey(), "rank-swap", columns=["income"], p=2)
    assert passes(res, verify_rank_swap)
    pub = res.frame.copy()
    lo, hi = pub["income"].idxmin(), pub["income"].idxmax()
    pub.loc[[lo, hi], "income"] = pub.loc[[hi, lo], "income"].to_numpy()  # a value out of distance
    assert not passes(res, verify_rank_swap, published=pub)
    pub = res.frame.copy()
    pub.loc[0, "income"] = pub.loc[0, "income"] + 0.01  # not one of the column's values
    assert not passes(res, verify_rank_swap, published=pub)


# ------------------------------------------------------------------------------------------ shuffling
def test_shuffle_permutes_and_states_the_rank_correlations() -> None:
    frame = survey()
    res = run(frame, "shuffle", columns=["income", "spend"], predictors=["age", "sex"])
    assert res.verification.ok
    orig = original_rows(res)
    for c in ["income", "spend"]:
        assert sorted(res.frame[c]) == sorted(orig[c])
    notes = res.release.notes
    assert notes["shuffle rank correlation income"] == pytest.approx(spearman(res.frame["income"].to_numpy(),
                                                                              orig["income"].to_numpy()))
    # the model keeps the rank correlation with the predictor, not the record's own value
    kept = spearman(orig["income"].to_numpy(), orig["age"].to_numpy())
    assert abs(notes["shuffle rank correlation income ~ age"] - kept) < 0.15
    assert notes["shuffle rank correlation income"] < 0.9
    assert (res.frame[["age", "sex", "grade"]] == orig[["age", "sex", "grade"]]).all().all()


def test_a_tampered_shuffle_release_is_caught() -> None:
    res = run(survey(120), "shuffle", columns=["income"], predictors=["age"])
    assert passes(res, verify_perturbed)
    notes = dict(res.release.notes)
    notes["shuffle rank correlation income"] = 0.0
    assert not passes(res, verify_perturbed, notes=notes)
    pub = res.frame.copy()
    pub.loc[[0, 1], "income"] = pub.loc[[1, 0], "income"].to_numpy()  # still a permutation: the figures differ
    assert not passes(res, verify_perturbed, published=pub)
    pub.loc[0, "income"] = -1.0
    assert not passes(res, verify_perturbed, published=pub)


def test_shuffle_takes_a_categorical_predictor_and_is_deterministic() -> None:
    frame = survey(100)
    a = run(frame, "shuffle", seed=3, columns=["income"], predictors=["sex", "grade", "age"])
    b = run(frame, "shuffle", seed=3, columns=["income"], predictors=["sex", "grade", "age"])
    assert a.verification.ok and a.frame.equals(b.frame)


# ------------------------------------------------------------------------------------------ record swapping
def households(n_households: int = 60, seed: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for h in range(n_households):
        region = rng.choice(["r1", "r2", "r3"])
        district = f"{region}-{rng.integers(1, 4)}"
        size = int(rng.integers(1, 4))
        for _ in range(size):
            rows.append({"hh": f"H{h}", "region": region, "district": district, "size": size,
                         "sex": rng.choice(["m", "f"]), "age": int(rng.integers(0, 90))})
    return pd.DataFrame(rows)


HH_SCHEMA = dict(household="hh", quasi=["region", "district", "sex"], insensitive=["size", "age"])


def swap(frame: pd.DataFrame, seed: int = 0, **options: object):  # type: ignore[no-untyped-def]
    options = {"hierarchy": ["region", "district"], "similar": ["size"], **options}
    return run(frame, "record-swap", Schema.of(**HH_SCHEMA), seed=seed, **options)


def test_record_swap_moves_whole_households_between_areas() -> None:
    frame = households()
    res = swap(frame, swaprate=0.2, risk_variables=["sex"], k=1)  # k = 1: nobody at risk, the rate alone
    assert res.verification.ok
    rel = res.release
    hh = rel.table.household[rel.rows]
    orig = original_rows(res)
    geo_before = orig.groupby(hh)[["region", "district"]].first()
    geo_after = res.frame.groupby(hh)[["region", "district"]].first()
    moved = (geo_before != geo_after).any(axis=1)
    assert int(moved.sum()) == rel.notes[SWAPPED_KEY] == 12  # 60 · 0.2 / 2 = 6 swaps, 12 households: the rate
    assert (res.frame[["sex", "age", "size"]] == orig[["sex", "age", "size"]]).all().all()
    assert "12 of 60 households (20.0%)" in rel.message and rel.notes[NO_DONOR_KEY] == 0


def test_record_swap_swaps_every_household_at_risk_that_has_a_donor() -> None:
    frame = households()
    res = swap(frame, swaprate=0.0, risk_variables=["sex", "age"], k=2)  # every record is rare in age
    rel = res.release
    assert res.verification.ok
    assert rel.notes[SWAPPED_KEY] + rel.notes[NO_DONOR_KEY] >= 40 and rel.notes[SWAPPED_KEY] > 0


@pytest.mark.parametrize("risk", ["individual", "household"])
def test_record_swap_by_survey_risk(risk: str) -> None:
    frame = households()
    frame["w"] = 50.0
    res = run(frame, "record-swap", Schema.of(**HH_SCHEMA, weight="w"), hierarchy=["region", "district"],
              risk=risk, risk_threshold=0.05, swaprate=0.0, risk_variables=["sex", "age"])
    assert res.verification.ok and res.release.notes[SWAPPED_KEY] > 0


def test_a_tampered_record_swap_release_is_caught() -> None:
    res = swap(households(), swaprate=0.3, risk_variables=["sex"], k=1)
    assert passes(res, verify_record_swap)
    rel = res.release
    hh = rel.table.household[rel.rows]
    pub = res.frame.copy()
    big = pd.Series(hh).value_counts().index[0]
    first = int(np.flatnonzero(hh == big)[0])
    other = pub.loc[pub["region"] != pub.loc[first, "region"]].iloc[0]
    pub.loc[first, ["region", "district"]] = [other["region"], other["district"]]  # a split household
    assert not passes(res, verify_record_swap, published=pub)
    notes = dict(rel.notes)
    notes[SWAPPED_KEY] += 2  # a count that is not the release's
    assert not passes(res, verify_record_swap, notes=notes)
    # one household moved alone (no partner took its place): the pairs and the geography both fail
    pub = res.frame.copy()
    alone = hh == big
    pub.loc[alone, ["region", "district"]] = [other["region"], other["district"]]
    assert not passes(res, verify_record_swap, published=pub)


def test_a_swap_between_households_of_different_similar_values_is_caught() -> None:
    frame = households()
    res = swap(frame, swaprate=0.0, risk_variables=["sex"], k=1)
    assert res.release.notes[SWAPPED_KEY] == 0
    rel = res.release
    hh = rel.table.household[rel.rows]
    orig = original_rows(res)
    first = pd.DataFrame({"hh": hh, "size": orig["size"], "region": orig["region"]}).drop_duplicates("hh")
    a = first.iloc[0]
    b = first[(first["size"] != a["size"]) & (first["region"] != a["region"])].iloc[0]
    pub = res.frame.copy()
    for x, y in ((a, b), (b, a)):
        geo = orig.loc[hh == y["hh"], ["region", "district"]].iloc[0].tolist()
        pub.loc[hh == x["hh"], ["region", "district"]] = geo
    notes = dict(rel.notes)
    notes[SWAPPED_KEY] = 2
    assert not passes(res, verify_record_swap, published=pub, notes=notes)


def test_household_risk_is_sdcmicros() -> None:
    """The k-anonymity risk of every household per level equals sdcMicro 5.8.1's ``setRisk`` (its
    ``src/recordSwap/recordSwap.cpp`` compiled with ``Rcpp::sourceCpp``, called as ``recordSwap()``
    calls it: ``setRisk_cpp(data, hierarchy = c(region, district), risk_variables = c(sex, hhsize) or
    c(sex, age), hid)`` on ``examples/files/survey-geo.csv`` sorted by household), stored per person in
    ``tests/data/sdcmicro_record_swap_risk.csv``. (The swaps themselves are drawn with sdcMicro's
    ``std::mt19937`` and are not compared.)"""
    frame = pd.read_csv(ROOT / "examples" / "files" / "survey-geo.csv", dtype=str)
    golden = pd.read_csv(ROOT / "tests" / "data" / "sdcmicro_record_swap_risk.csv").set_index("person_id")
    table = Table(frame, Schema.of(identifier=["person_id"], household="household", weight="weight",
                                   quasi=["region", "district", "sex"], insensitive=["hhsize", "age", "income"]))
    for key, names in ((["sex", "hhsize"], ["sex_hhsize_region", "sex_hhsize_district"]),
                       (["sex", "age"], ["sex_age_region", "sex_age_district"])):
        hs = household_risk_levels(table, ~table.presuppressed, ["region", "district"], ["hhsize"], key,
                                   "k-anonymity", 1 / 3)
        mine = hs.risks[np.searchsorted(hs.ids, table.household)]
        assert np.abs(mine - golden.loc[frame["person_id"], names].to_numpy()).max() < 1e-12


# ------------------------------------------------------------------------------------------ properties
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 60), p=st.floats(0.5, 100), ties=st.booleans())
def test_rank_swap_promises_hold_on_random_tables(seed: int, n: int, p: float, ties: bool) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 5, n) if ties else rng.normal(0, 10, n).round(4)
    frame = pd.DataFrame({"q": rng.choice(list("ab"), n), "x": x})
    res = run(frame, "rank-swap", Schema.of(quasi=["q"], insensitive=["x"]), seed=seed, columns=["x"], p=p)
    assert res.verification.ok
    assert sorted(res.frame["x"]) == sorted(frame["x"])


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(4, 60))
def test_shuffle_promises_hold_on_random_tables(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"q": rng.choice(list("ab"), n), "s": rng.integers(0, 9, n), "y": rng.normal(0, 1, n),
                          "z": rng.integers(0, 3, n)})
    res = run(frame, "shuffle", Schema.of(quasi=["q", "s"], insensitive=["y", "z"]), seed=seed, columns=["y", "z"])
    assert res.verification.ok
    assert sorted(res.frame["y"]) == sorted(frame["y"])


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 40), rate=st.floats(0, 1), k=st.integers(1, 4))
def test_record_swap_promises_hold_on_random_tables(seed: int, n: int, rate: float, k: int) -> None:
    res = swap(households(n, seed % 1000), seed=seed, swaprate=rate, k=k)
    assert res.verification.ok
    assert res.release.notes[SWAPPED_KEY] % 2 == 0


# ------------------------------------------------------------------------------------------ the CLI
def _cli(tmp_path: Path, algorithm: dict) -> tuple[int, str]:
    frame = households(40)
    frame["income"] = np.random.default_rng(0).normal(2000, 300, len(frame)).round(2)
    frame.to_csv(tmp_path / "in.csv", index=False)
    cfg = {"input": {"path": "in.csv"},
           "attributes": {"hh": {"role": "household"}, "region": {"role": "quasi"}, "district": {"role": "quasi"},
                          "sex": {"role": "quasi"}, "size": {"role": "insensitive"},
                          "age": {"role": "insensitive"}, "income": {"role": "insensitive"}},
           "privacy": [{"model": "k-anonymity", "k": 1}], "algorithm": algorithm, "output": {"path": "out.csv"}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    res = CliRunner().invoke(app, ["anonymize", str(tmp_path / "c.yaml"), "--json", "--seed", "4", *NO_FIXES])
    return res.exit_code, res.stdout


@pytest.mark.parametrize("algorithm", [
    {"name": "rank-swap", "columns": ["age", "income"], "p": 10},
    {"name": "record-swap", "hierarchy": ["region", "district"], "similar": ["size"], "swaprate": 0.2},
    {"name": "shuffle", "columns": ["income"], "predictors": ["age", "sex"]},
], ids=lambda a: a["name"])
def test_the_whole_cli_path_writes_audits_and_repeats(tmp_path: Path, algorithm: dict) -> None:
    code, out = _cli(tmp_path, algorithm)
    assert code == 0, out
    summary = json.loads(out)
    assert summary["verified"] and summary["algorithm"] == algorithm["name"]
    assert all(r["holds"] for r in summary["verification"]) and "audit" in summary
    assert "perturbed, not truthful by design" in summary["message"]
    written = pd.read_csv(tmp_path / "out.csv")
    assert "hh" not in written.columns and len(written) == summary["run"]["outputs"][0]["rows"]
    first = (tmp_path / "out.csv").read_bytes()
    assert _cli(tmp_path, algorithm)[0] == 0 and (tmp_path / "out.csv").read_bytes() == first


@pytest.mark.parametrize("case", [
    C("rank-swap-toy", 0, (), cfg=(rank(p=50),), args=NO_FIXES),
    C("rank-swap-toy-p-100", 0, (), cfg=(rank(columns=["Age", "Salary"], p=100),), args=NO_FIXES),
    C("record-swap-toy", 0, (), cfg=(*HOUSEHOLD_ROLES, record(swaprate=1)), files=(with_households,), args=NO_FIXES),
    C("record-swap-toy-household-risk", 0, (),
      cfg=(*HOUSEHOLD_ROLES, record(risk="household", risk_threshold=0.4)), files=(with_households,), args=NO_FIXES),
    C("shuffle-toy", 0, (), cfg=(shuffled(),), args=NO_FIXES),
], ids=lambda c: c.id)
def test_the_catalogue_controls_run_and_write(case: C, tmp_path: Path) -> None:  # type: ignore[valid-type]
    """The controls of ``cases_swap``: the same toy configs with good options run and write."""
    res = run_cli(build(case, tmp_path))
    assert res.exit_code == 0, res.stderr + res.stdout
    assert len(pd.read_csv(tmp_path / "out.csv", sep=";")) == 9


def test_the_example_config_is_a_record_swap_over_the_geo_survey() -> None:
    cfg = yaml.safe_load((ROOT / "examples" / "survey-swap.yaml").read_text())
    assert cfg["algorithm"]["name"] == "record-swap" and cfg["input"]["path"] == "files/survey-geo.csv"


# --- the fast paths (issue 28, item 8): each equals its slow reference, draw for draw ------------------


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), m=st.integers(0, 80), window=st.integers(0, 90))
def test_the_compiled_rank_pairing_is_the_numpy_loop_draw_for_draw(seed: int, m: int, window: int) -> None:
    """The numba loop (a Fenwick tree over the free ranks) pairs exactly as the numpy loop (a scan of the
    window) and leaves the generator in the same state, so a release does not depend on which ran."""
    from anonkit.algorithms.perturb._swap_kernels import pair_ranks_compiled
    from anonkit.algorithms.perturb.rank_swap import pair_ranks_numpy

    fast, slow = np.random.default_rng(seed), np.random.default_rng(seed)
    got = pair_ranks_compiled(m, window, fast)
    want = pair_ranks_numpy(m, window, slow)
    assert got.tolist() == want.tolist()
    assert fast.integers(2**62) == slow.integers(2**62)
    assert (got[got] == np.arange(m)).all()  # a pairing: each rank's partner's partner is itself
    assert (np.abs(got - np.arange(m)) <= window).all()


def test_swap_ranks_is_the_same_release_compiled_or_not() -> None:
    """The switch between both loops (by size) cannot change a release: forced either way, same sources."""
    keys = np.random.default_rng(3).integers(0, 40, 500).astype(float)
    keys[::17] = np.nan
    rows = np.flatnonzero(~np.isnan(keys))
    a = swap_ranks(keys, rows, 12, np.random.default_rng(9), compiled=True)
    b = swap_ranks(keys, rows, 12, np.random.default_rng(9), compiled=False)
    assert a.tolist() == b.tolist() and (a != np.arange(500)).any()


def _scan_donor(profile: np.ndarray, area: np.ndarray, order: np.ndarray, s: int, used: np.ndarray) -> int:
    """The reference rule: the first household in ``order`` not used, outside ``s``'s area, of its profile."""
    for d in order:
        if not used[d] and area[d] != area[s] and profile[d] == profile[s]:
            return int(d)
    return -1


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(1, 50), areas=st.integers(1, 5), profiles=st.integers(1, 3))
def test_the_donor_index_finds_the_scans_donor(seed: int, n: int, areas: int, profiles: int) -> None:
    """:class:`DonorIndex` (groups per profile and area, a heap of their first unused households) gives the
    household the scan of every household in order gives, swap after swap, failures included."""
    from anonkit.algorithms.perturb._record_swap import DonorIndex

    rng = np.random.default_rng(seed)
    profile, area, order = rng.integers(0, profiles, n), rng.integers(0, areas, n), rng.permutation(n)
    index = DonorIndex(profile, area, order)
    used = np.zeros(n, dtype=bool)
    for s in rng.permutation(n):
        if used[s]:
            continue
        want = _scan_donor(profile, area, order, int(s), used)
        assert index.donor(int(s), used) == want
        if want >= 0:
            used[s] = used[want] = True
        elif rng.random() < 0.3:
            used[s] = True  # a household may also leave the pool without a donor


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(0, 40), width=st.integers(0, 3), big=st.booleans())
def test_row_ids_are_numpys_unique_rows(seed: int, n: int, width: int, big: bool) -> None:
    """The mixed-radix row codes equal ``np.unique(axis=0)``'s inverse, also past 63 bits (its fallback)."""
    from anonkit.algorithms.perturb._record_swap import row_ids

    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 2**40 if big else 4, (n, width))
    want = np.unique(codes, axis=0, return_inverse=True)[1].reshape(-1) if width else np.zeros(n, dtype=np.int64)
    assert row_ids(codes).tolist() == want.tolist()


def test_one_value_per_household_reads_numbers_and_text_alike() -> None:
    """The household check compares codes of the values: a number column split within a household is refused
    (the bad case), and a text column whole per household, missing values included, is accepted (the control)."""
    from anonkit.algorithms.perturb.record_swap import _one_per_household

    frame = pd.DataFrame({"hh": [1, 1, 2, 2, 3], "num": [1.0, 1.0, 2.0, 3.0, 4.0],
                          "txt": ["a", "a", None, None, "b"], "q": ["x", "y", "x", "y", "x"]})
    table = Table(frame, Schema.of(household="hh", quasi=["q"], insensitive=["num", "txt"]))
    _one_per_household(table, ["txt"], "algorithm.similar")
    with pytest.raises(InputError, match="one value per household"):
        _one_per_household(table, ["num"], "algorithm.hierarchy")
