"""Several configs on one R-U map (issue 29 item 4): k-anonymity and SafePub as series of one
``anonkit explore``, measured by the same attacks and the same marginals; the series rules refused in
one line before any run; the marginal distances checked against hand counts.

The DP synthesizer's series is :func:`explore_series_kit.check_dp_synthetic_series` (run once the
``dp`` extra's synthesizer is installed)."""

from __future__ import annotations

import importlib.util
import json
import math
from itertools import pairwise
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import anonkit.explore.run as explore_run
from anonkit import Schema
from anonkit.config import load_config
from anonkit.errors import InputError
from anonkit.explore import explore, write_explore
from anonkit.explore.marginals import marginal_tvd
from anonkit.explore.series import as_series, check_series, parse_series_vary, series_vary
from anonkit.plan import plan_from_config
from anonkit.report.ru_map import point_label, ru_map
from anonkit.runner import run
from bad_input_kit import run as cli
from explore_series_kit import kanon_config, random_toy, safepub_config, write_config

VARY = ["k=2,10", "epsilon=0.5,2"]
SEED = 3


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("series")
    random_toy(d)
    write_config(d, "kanon.yaml", kanon_config())
    write_config(d, "safepub.yaml", safepub_config())
    return d


@pytest.fixture(scope="module")
def mapped(folder: Path):  # type: ignore[no-untyped-def]
    """k ∈ {2, 10} and SafePub ε ∈ {0.5, 2} on one map (four runs, the attacks and marginals of each)."""
    return explore(folder / "kanon.yaml", also=[folder / "safepub.yaml"], vary=parse_series_vary(VARY), seed=SEED)


def _no_work(*args: object, **kwargs: object) -> None:
    raise AssertionError("a run started")


# ---------------------------------------------------------------------------------------------- the map
def test_each_config_is_a_series_with_its_own_grid(mapped) -> None:  # type: ignore[no-untyped-def]
    f = mapped.frame
    assert list(f.columns[:5]) == ["series", "algorithm", "k", "epsilon", "label"]
    assert list(zip(f["series"], f["algorithm"], f["label"], strict=True)) == [
        ("kanon", "flash", "k=2"), ("kanon", "flash", "k=10"),
        ("safepub", "safepub", "epsilon=0.5"), ("safepub", "safepub", "epsilon=2")]
    assert f["k"].dtype == "Int64" and f["k"].isna().tolist() == [False, False, True, True]
    assert f["epsilon"].isna().tolist() == [True, True, False, False]
    assert f["satisfied"].all() and f["verified"].all(), f["message"].tolist()
    assert [s["vary"] for s in mapped.series] == [{"k": [2, 10]}, {"epsilon": [0.5, 2]}]
    # the figures every release has are the defaults of a map of several series
    assert (mapped.risk, mapped.loss) == ("attack_risk", "two_way_tvd")


def test_the_risk_is_the_largest_attack_risk_and_the_loss_a_distance(mapped) -> None:  # type: ignore[no-untyped-def]
    f = mapped.frame
    attacks = f[["singling_out", "linkability", "inference"]]
    assert (f["risk"] == attacks.max(axis=1)).all()
    assert f["loss"].between(0, 1).all() and f["risk"].between(0, 1).all()
    kanon, safepub = f[f["series"] == "kanon"], f[f["series"] == "safepub"]
    # SafePub samples and generalizes: less risk, more loss than 2-anonymity on this table
    assert safepub["risk"].max() < kanon["risk"].min() and safepub["loss"].min() > kanon["loss"].min()
    assert mapped.frame["meets"].tolist() == (f["risk"] <= mapped.thresholds["attack_risk"] + 1e-12).tolist()


@pytest.mark.parametrize(("name", "change", "row"), [("kanon", {"privacy": [{"model": "k-anonymity", "k": 10}]}, 1),
                                                     ("safepub", {"privacy": [{"model": "differential-privacy",
                                                                               "epsilon": 0.5, "delta": 1e-4}]}, 2)])
def test_a_point_is_the_audit_of_the_same_run_made_alone(mapped, folder: Path, name: str, change: dict,
                                                         row: int) -> None:  # type: ignore[no-untyped-def]
    """Independently: the run made by ``anonkit.runner.run`` from its own config and audited by the
    runner's audit step has the attack risks the map shows for that point."""
    config = {**(kanon_config() if name == "kanon" else safepub_config()), **change}
    path = write_config(folder, f"alone-{name}.yaml", config)
    result = run(plan_from_config(load_config(path), config_dir=folder, config_file=path, seed=SEED, writes=False))
    attacks = {a["name"]: a["risk"] for a in result.summary["audit"]["attacks"]}
    point = mapped.frame.iloc[row]
    for column, attack in (("singling_out", "singling-out"), ("linkability", "linkability"),
                           ("inference", "inference")):
        assert point[column] == pytest.approx(attacks[attack], abs=1e-12), column
    figures = marginal_tvd(result.release.table.frame, result.frame, result.release.table.schema, cells=True)
    assert point["loss"] == pytest.approx(figures.two_way, abs=1e-12)


def test_the_pareto_front_is_over_every_series(mapped) -> None:  # type: ignore[no-untyped-def]
    f = mapped.frame
    pts = list(zip(f["loss"], f["risk"], strict=True))
    dominated = [any(o[0] <= p[0] and o[1] <= p[1] and o != p for o in pts) for p in pts]
    assert f["pareto"].tolist() == [not d for d in dominated]
    # a frame where one series' point is dominated only by another series' point: the map's front leaves it out
    frame = f.copy()
    frame.loc[3, ["loss", "risk"]] = [frame.loc[0, "loss"] + 0.01, frame.loc[0, "risk"] + 0.01]
    fig = ru_map(frame.drop(columns=["pareto"]), risk="attack_risk", loss="two_way_tvd")
    line = fig.axes[0].get_lines()[0]
    assert (frame.loc[3, "risk"], frame.loc[3, "loss"]) not in set(zip(line.get_xdata(), line.get_ydata(),
                                                                         strict=True))


def test_the_map_draws_each_series_with_its_marker_and_labels(mapped) -> None:  # type: ignore[no-untyped-def]
    fig = mapped.figure()
    ax = fig.axes[0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[:2] == ["kanon: flash", "safepub"]
    markers = {h.get_marker() for h in ax.get_legend().legend_handles[:2]}  # type: ignore[union-attr]
    assert len(markers) == 2
    labels = {t.get_text() for t in ax.texts}
    assert {"k=2", "k=10", "ε=0.5", "ε=2"} <= labels, labels
    assert "two-way marginal" in ax.get_ylabel() and "attack" in ax.get_xlabel()
    assert point_label("epsilon=1 delta=1e-06") == "ε=1 δ=1e-06" and point_label("k=5") == "k=5"


def test_written_map_has_the_series(mapped, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write_explore(mapped, tmp_path / "a")
    csv = pd.read_csv(tmp_path / "a" / "explore.csv")
    assert csv["series"].tolist() == ["kanon", "kanon", "safepub", "safepub"]
    doc = json.loads((tmp_path / "a" / "explore.json").read_text())
    assert [s["name"] for s in doc["series"]] == ["kanon", "safepub"]
    assert doc["series"][1]["algorithm"] == "safepub" and doc["risk"] == "attack_risk"


def test_the_cli_runs_a_map_of_two_series(mapped, folder: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """End to end; a second series' own seed is said to be unused (the map's runs take one seed), which
    the module's map, whose configs give none, does not say."""
    write_config(folder, "seeded.yaml", {**safepub_config(), "seed": 9})
    res = cli(["explore", str(folder / "kanon.yaml"), "--also", str(folder / "seeded.yaml"), "--vary", "k=2",
               "--vary", "seeded:epsilon=2", "--seed", str(SEED), "--out", str(tmp_path / "map")])
    assert res.exit_code == 0, res.stderr
    assert "two_way_tvd against attack_risk" in res.stdout and "seeded" in res.stdout
    assert f"note: seeded: its seed 9 is not used; every run of the map takes the seed {SEED}" in res.stderr
    assert not any("seed" in n for n in mapped.notes)
    csv = pd.read_csv(tmp_path / "map" / "explore.csv")
    assert csv["label"].tolist() == ["k=2", "epsilon=2"]


# ---------------------------------------------------------------------------------------------- the rules
def test_one_config_keeps_the_class_measures_and_refuses_them_for_several(folder: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(explore_run, "anonymize", _no_work)
    with pytest.raises(InputError, match=r"--risk prosecutor_highest reads equivalence classes.*attack_risk"):
        explore(folder / "kanon.yaml", also=[folder / "safepub.yaml"], vary={}, risk="prosecutor_highest")
    with pytest.raises(InputError, match=r"--loss loss reads equivalence classes.*two_way_tvd"):
        explore(folder / "kanon.yaml", also=[folder / "safepub.yaml"], vary={}, loss="loss")
    with pytest.raises(InputError, match="--algorithms compares algorithms on one config"):
        explore(folder / "kanon.yaml", also=[folder / "safepub.yaml"], vary={}, algorithms=["flash", "ola"])
    # control: one config of a release with classes keeps the class measures (and runs)
    monkeypatch.undo()
    alone = explore(folder / "kanon.yaml", vary={"k": [2]}, seed=SEED)
    assert (alone.risk, alone.loss) == ("prosecutor_highest", "loss") and alone.frame["series"].tolist() == ["kanon"]


def _series(folder: Path, name: str, config: dict):  # type: ignore[no-untyped-def]
    return as_series(write_config(folder, f"{name}.yaml", config))


def test_series_must_read_one_input_with_one_set_of_roles(tmp_path: Path) -> None:
    random_toy(tmp_path)
    (tmp_path / "other.csv").write_text((tmp_path / "people.csv").read_text())
    base = _series(tmp_path, "kanon", kanon_config())
    bad = {
        "another input": ({"input": {"path": "other.csv", "separator": ";"}}, "reads another input"),
        "another separator": ({"input": {"path": "people.csv", "separator": ","}}, "another input.separator"),
        "another role": ({"attributes": {**kanon_config()["attributes"], "Salary": {"role": "sensitive"}}},
                         "makes Salary sensitive but kanon makes it insensitive"),
        "another audit": ({"audit": {"targets": 10}}, "another audit section"),
    }
    for what, (change, words) in bad.items():
        other = _series(tmp_path, "other", {**safepub_config(), **change})
        with pytest.raises(InputError, match=words):
            check_series([base, other])
        assert what
    with pytest.raises(InputError, match="two series are named 'kanon'"):
        sub = tmp_path / "sub"
        sub.mkdir()
        random_toy(sub)
        check_series([base, _series(sub, "kanon", kanon_config())])
    # controls: the same file by another path (a symlink), the same audit section, a hierarchy of its own
    (tmp_path / "linked.csv").symlink_to(tmp_path / "people.csv")
    same = {**safepub_config(), "input": {"path": "linked.csv", "separator": ";"}}
    check_series([base, _series(tmp_path, "safepub", same)])
    audited = _series(tmp_path, "audited", {**kanon_config(), "audit": {"targets": 10}})
    check_series([audited, _series(tmp_path, "again", {**safepub_config(), "audit": {"targets": 10}})])


def test_vary_keys_go_to_the_series_that_have_them(tmp_path: Path) -> None:
    random_toy(tmp_path)
    series = [_series(tmp_path, "kanon", kanon_config()), _series(tmp_path, "safepub", safepub_config())]
    assert series_vary(parse_series_vary(["k=2,5", "epsilon=1"]), series) == {"kanon": {"k": [2, 5]},
                                                                             "safepub": {"epsilon": [1]}}
    assert series_vary(parse_series_vary(["safepub:epsilon=1,2", "max_suppression=0.1"]), series) == {
        "kanon": {"max_suppression": [0.1]}, "safepub": {"epsilon": [1, 2]}}
    refused = {
        "nobody:k=2": "no series is named 'nobody'",
        "safepub:k=2": "series safepub: --vary k: no privacy model",
        "t=0.2": "no series has 't'",
        ":k=2": "no series before ':'",
    }
    for item, words in refused.items():
        with pytest.raises(InputError, match=words):
            series_vary(parse_series_vary([item]), series)
    with pytest.raises(InputError, match="given for series kanon twice"):
        series_vary(parse_series_vary(["k=2", "kanon:k=5"]), series)
    with pytest.raises(InputError, match="kanon:k is given twice"):
        parse_series_vary(["kanon:k=2", "kanon:k=5"])


def test_a_series_whose_extra_is_missing_is_refused_before_any_run(folder: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Without OpenDP (the ``dp`` extra) the SafePub series is refused in one line naming the extra, and
    no run of any series starts; with it (the control above, :func:`mapped`) the same map runs."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "opendp" else real(name, *a))
    monkeypatch.setattr(explore_run, "anonymize", _no_work)
    with pytest.raises(InputError, match=r"safepub.*OpenDP, which is not installed: pip install anonkit\[dp\]"):
        explore(folder / "kanon.yaml", also=[folder / "safepub.yaml"], vary=parse_series_vary(VARY), seed=SEED)


# ---------------------------------------------------------------------------------------------- marginals
SCHEMA = Schema.of(quasi=["A"], sensitive=["B"])
ORIGINAL = pd.DataFrame({"A": ["x", "x", "y", "z"], "B": ["1", "1", "2", "2"]})


def test_generalized_cells_spread_evenly_over_what_they_cover() -> None:
    """By hand: {x,y} → ½ x ½ y; * → ⅓ each; one-way A: ½(|.5−.4583|+|.25−.2083|+|.25−.3333|) = 1/12;
    two-way (A, B): ½(.125 + .125 + .0833 + .1667 + .0833) = 7/24."""
    release = pd.DataFrame({"A": ["{x,y}", "x", "*", "z"], "B": ["1", "1", "2", "2"]})
    m = marginal_tvd(ORIGINAL, release, SCHEMA, cells=True)
    assert m.one_way_max == pytest.approx(1 / 12) and m.one_way == pytest.approx(1 / 24)
    assert m.two_way == pytest.approx(7 / 24)
    # control: the same cells read as values cover nothing but themselves ('{x,y}' and '*' are no value)
    assert marginal_tvd(ORIGINAL, release, SCHEMA, cells=False).one_way_max == pytest.approx(0.5)


def test_values_the_input_never_holds_and_columns_not_published() -> None:
    release = pd.DataFrame({"A": ["x", "w", "y", "z"], "B": ["1", "1", "2", "2"]})
    assert marginal_tvd(ORIGINAL, release, SCHEMA, cells=False).one_way_max == pytest.approx(0.25)
    # B not published: every row a '*' over B's two values — ½ each, as the input: 0 one way
    m = marginal_tvd(ORIGINAL, ORIGINAL[["A"]], SCHEMA, cells=False)
    assert m.one_way == 0 and m.two_way == pytest.approx(0.5 * (0.25 + 0.25 + 0.125 * 2 + 0.125 * 2))
    assert marginal_tvd(ORIGINAL, ORIGINAL.iloc[:0], SCHEMA, cells=False).two_way == 1.0


def test_numeric_columns_are_binned_at_the_inputs_deciles() -> None:
    original = pd.DataFrame({"A": ["x"] * 10, "B": [str(v) for v in range(10)]})
    shifted = original.assign(B=[str(v + 0.5) for v in range(10)])
    m = marginal_tvd(original, shifted, SCHEMA, cells=False)
    assert 0 < m.one_way_max <= 0.2  # half a bin off: the shares move one bin at most
    assert marginal_tvd(original, original.assign(B=[str(v + 100) for v in range(10)]), SCHEMA,
                        cells=False).one_way_max == pytest.approx(0.9)


@settings(max_examples=10)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 30)), min_size=2, max_size=25), st.randoms())
def test_a_shuffled_release_has_no_distance_and_any_release_is_within_0_and_1(rows, rnd) -> None:  # type: ignore[no-untyped-def]
    original = pd.DataFrame({"A": [a for a, _ in rows], "B": [str(b) for _, b in rows]})
    order = list(range(len(rows)))
    rnd.shuffle(order)
    shuffled = original.iloc[order].reset_index(drop=True)
    for cells in (True, False):
        m = marginal_tvd(original, shuffled, SCHEMA, cells=cells)
        assert m.one_way == pytest.approx(0, abs=1e-12) and m.two_way == pytest.approx(0, abs=1e-12)
    other = pd.DataFrame({"A": [rnd.choice(["a", "b", "*", "{a,c}"]) for _ in rows],
                          "B": [str(rnd.randint(0, 40)) for _ in rows]})
    m = marginal_tvd(original, other, SCHEMA, cells=True)
    for v in (m.one_way, m.two_way, m.one_way_max, m.two_way_max):
        assert -1e-12 <= v <= 1 + 1e-12 and not math.isnan(v)
    assert m.one_way <= m.one_way_max + 1e-12 and m.two_way <= m.two_way_max + 1e-12


def test_points_along_a_series_follow_its_parameter(mapped) -> None:  # type: ignore[no-untyped-def]
    """A larger k generalizes more: no less loss, no more attack risk along the k series."""
    kanon = mapped.frame[mapped.frame["series"] == "kanon"].sort_values("k")
    assert all(b >= a - 1e-12 for a, b in pairwise(kanon["loss"]))
    assert all(b <= a + 1e-12 for a, b in pairwise(kanon["risk"]))
    assert np.isfinite(mapped.frame["loss"]).all()
