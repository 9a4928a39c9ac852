"""``anonkit check --population`` (issue 27): k-map and δ-presence of any release, counted in a
population table, and the research subset's file among the places a run reads.

The figures are checked against a brute-force count written here from the hierarchy files alone
(every population record generalized to the release's levels and compared, class by class), on the
toy table and on random populations and samples (hypothesis); the refusals are in
``tests/cases_issue27_cli.py``, their passing controls here.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from anonkit.audit.population import population_figures
from anonkit.cli import app
from anonkit.config import load_config
from anonkit.errors import InputError
from anonkit.hierarchy import read_hierarchy
from anonkit.plan import plan_from_config
from anonkit.plan.places import read_files

DATA = Path(__file__).parent / "data"
QIS = ["ZIPCode", "Age"]
runner = CliRunner()


def _levels(name: str) -> dict[str, list[str]]:
    """A hierarchy file as value → its label on every level (read with the csv module, not anonkit)."""
    with open(DATA / f"test2_hierarchy_{name}.csv", newline="") as f:
        return {row[0]: row for row in csv.reader(f, delimiter=";")}


LEVELS = {q: _levels(q) for q in QIS}
HIERARCHIES = {q: read_hierarchy(DATA / f"test2_hierarchy_{q}.csv", name=q) for q in QIS}


def _generalized(frame: pd.DataFrame, levels: dict[str, int]) -> list[tuple[str, ...]]:
    return [tuple(LEVELS[q][str(row[q])][levels[q]] for q in QIS) for _, row in frame.iterrows()]


def _brute(release: pd.DataFrame, population: pd.DataFrame, subset: pd.DataFrame | None,
           levels: dict[str, int]) -> tuple[int, float, float]:
    """k-map, δmin, δmax by counting tuples (suppressed rows: every quasi-identifier ``*``)."""
    shown = [tuple(str(row[q]) for q in QIS) for _, row in release.iterrows()]
    classes = sorted({t for t in shown if t != ("*",) * len(QIS)})
    pop = _generalized(population, levels)
    research = _generalized(subset, levels) if subset is not None else shown
    counts = [pop.count(c) for c in classes]
    deltas = [research.count(c) / n for c, n in zip(classes, counts, strict=True)]
    return min(counts), min(deltas), max(deltas)


def _release(sample: pd.DataFrame, levels: dict[str, int], suppress: list[bool]) -> pd.DataFrame:
    out = sample.copy().astype(str)
    for q in QIS:
        out[q] = [LEVELS[q][v][levels[q]] for v in sample[q].astype(str)]
    for q in QIS:
        out.loc[np.asarray(suppress), q] = "*"
    return out.reset_index(drop=True)


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    for f in DATA.glob("test2*.csv"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


# ----------------------------------------------------------------------------------- the toy table
def test_anonkits_own_release_is_counted_in_its_population(toy: Path) -> None:
    """A run with input.subset (k-map 2, δ-presence) writes a release; check --population counts
    what the run's verifier counted: the same k-map and δ bounds as the brute-force count."""
    cfg = {"input": {"path": "test2.csv", "separator": ";", "subset": {"rows": [1, 2, 3, 4, 5]}},
           "attributes": {"ZIPCode": {"role": "quasi", "hierarchy": "test2_hierarchy_ZIPCode.csv"},
                          "Age": {"role": "quasi", "hierarchy": "test2_hierarchy_Age.csv"},
                          "Salary": {"role": "insensitive"}, "Disease": {"role": "sensitive"}},
           "privacy": [{"model": "k-map", "k": 2}, {"model": "delta-presence", "dmax": 0.9}],
           "algorithm": {"name": "flash"}, "output": {"path": "out.csv", "separator": ";"}}
    (toy / "c.yaml").write_text(yaml.safe_dump(cfg))
    res = runner.invoke(app, ["anonymize", str(toy / "c.yaml"), "--json"])
    assert res.exit_code == 0, res.stderr
    summary = json.loads(res.stdout)
    levels = {q: summary["transformation"][q] for q in QIS}
    population = pd.read_csv(toy / "test2.csv", sep=";", dtype=str)
    (toy / "sub.csv").write_text("".join((toy / "test2.csv").read_text().splitlines(keepends=True)[:6]))
    args = ["check", str(toy / "out.csv"), "--separator", ";", "--qi", "ZIPCode,Age", "--population",
            str(toy / "test2.csv"), "--json", *[a for q in QIS for a in
                                                ("--hierarchy", f"{q}={toy / f'test2_hierarchy_{q}.csv'}")]]
    got = runner.invoke(app, args)
    assert got.exit_code == 0, got.stderr
    p = json.loads(got.stdout)["population"]
    release = pd.read_csv(toy / "out.csv", sep=";", dtype=str)
    k, dmin, dmax = _brute(release, population, None, levels)
    assert (p["k_map"], p["delta_min"], p["delta_max"], p["delta_from"]) == (k, dmin, dmax, "release")
    assert p["k_map"] >= 2 and p["delta_max"] <= 0.9  # what the run's models promised
    kmap = next(v for v in summary["verification"] if "map" in v["model"])
    assert kmap["achieved"] == p["k_map"]
    with_subset = json.loads(runner.invoke(app, [*args, "--subset", str(toy / "sub.csv")]).stdout)["population"]
    assert with_subset["delta_from"] == "subset"
    assert (with_subset["delta_min"], with_subset["delta_max"]) == _brute(release, population,
                                                                          population.iloc[:5], levels)[1:]
    text = runner.invoke(app, [a for a in args if a != "--json"])
    assert text.exit_code == 0 and "k-map (population)" in text.stdout and "δ-presence" in text.stdout


def test_a_release_of_another_tool_is_read_without_hierarchies_where_its_cells_are_values(toy: Path) -> None:
    """Control of the no-hierarchy refusal: raw values and ``*`` need no hierarchy (a flat one over the
    population's values reads them)."""
    population = pd.read_csv(toy / "test2.csv", sep=";", dtype=str)
    release = _release(population.iloc[:6], {"ZIPCode": 0, "Age": 2}, [False] * 6)
    got = population_figures(release, QIS, population, {})
    assert got["k_map"] == 1 and got["classes"] == 6
    assert (got["delta_min"], got["delta_max"]) == (1.0, 1.0)


def test_a_class_the_population_does_not_hold_gives_k_map_0_and_no_delta(toy: Path) -> None:
    population = pd.read_csv(toy / "test2.csv", sep=";", dtype=str)
    release = _release(population.iloc[:4], {"ZIPCode": 1, "Age": 1}, [False] * 4)
    got = population_figures(release, QIS, population.iloc[4:], HIERARCHIES)
    assert got["k_map"] == 0 and got["uncovered_classes"] >= 1 and got["delta_max"] is None
    assert any("does not cover" in n for n in got["notes"]) and any("δ-presence is not reported" in n
                                                                    for n in got["notes"])


def test_suppressed_rows_form_no_class_and_an_empty_release_reports_nothing(toy: Path) -> None:
    population = pd.read_csv(toy / "test2.csv", sep=";", dtype=str)
    release = _release(population.iloc[:3], {"ZIPCode": 2, "Age": 1}, [True, True, True])
    got = population_figures(release, QIS, population, HIERARCHIES)
    assert got["k_map"] is None and got["classes"] == 0 and "publishes no record" in got["notes"][0]


def test_a_label_no_hierarchy_reads_is_refused_naming_the_flag(toy: Path) -> None:
    population = pd.read_csv(toy / "test2.csv", sep=";", dtype=str)
    release = _release(population.iloc[:3], {"ZIPCode": 0, "Age": 0}, [False] * 3)
    release["Age"] = "young"
    with pytest.raises(InputError, match=r"give --hierarchy Age=FILE"):
        population_figures(release, QIS, population, {})


# ------------------------------------------------------------------------------------- random data
@settings(max_examples=25, deadline=None)
@given(rows=st.lists(st.integers(0, 8), min_size=4, max_size=30),
       zip_level=st.integers(0, 5), age_level=st.integers(0, 2),
       chosen=st.lists(st.booleans(), min_size=30, max_size=30),
       suppressed=st.lists(st.booleans(), min_size=30, max_size=30))
def test_k_map_and_delta_are_the_brute_force_count(rows: list[int], zip_level: int, age_level: int,
                                                   chosen: list[bool], suppressed: list[bool]) -> None:
    """Random populations (toy records with repeats), random research samples, random levels and
    suppression: k-map and δ's bounds (from the release, and from the subset) are the count."""
    toy = pd.read_csv(DATA / "test2.csv", sep=";", dtype=str)
    population = toy.iloc[rows].reset_index(drop=True)
    mask = np.asarray(chosen[:len(population)])
    if not mask.any():
        mask[0] = True
    sample = population.loc[mask].reset_index(drop=True)
    supp = suppressed[:len(sample)]
    if all(supp):
        supp[0] = False
    levels = {"ZIPCode": zip_level, "Age": age_level}
    release = _release(sample, levels, supp)
    got = population_figures(release, QIS, population, HIERARCHIES)
    k, dmin, dmax = _brute(release, population, None, levels)
    assert got["k_map"] == k
    assert got["delta_min"] == pytest.approx(dmin) and got["delta_max"] == pytest.approx(dmax)
    from_subset = population_figures(release, QIS, population, HIERARCHIES, subset=sample)
    _, smin, smax = _brute(release, population, sample, levels)
    assert from_subset["delta_min"] == pytest.approx(smin) and from_subset["delta_max"] == pytest.approx(smax)
    assert from_subset["delta_max"] >= got["delta_max"] - 1e-12  # suppressed research records count in the subset


# ------------------------------------------------------------------------ input.subset.path is read
def test_the_subset_file_is_among_the_reads_and_no_output_lands_on_it(toy: Path) -> None:
    (toy / "sub.csv").write_text("".join((toy / "test2.csv").read_text().splitlines(keepends=True)[:4]))
    cfg = {"input": {"path": "test2.csv", "separator": ";", "subset": {"path": "sub.csv"}},
           "attributes": {"ZIPCode": {"role": "quasi", "hierarchy": "test2_hierarchy_ZIPCode.csv"},
                          "Age": {"role": "quasi", "hierarchy": "test2_hierarchy_Age.csv"},
                          "Salary": {"role": "insensitive"}, "Disease": {"role": "sensitive"}},
           "privacy": [{"model": "k-map", "k": 2}], "algorithm": {"name": "flash"},
           "output": {"path": "out.csv", "separator": ";"}}
    (toy / "c.yaml").write_text(yaml.safe_dump(cfg))
    config = load_config(toy / "c.yaml")
    plan = plan_from_config(config, config_dir=toy, config_file=toy / "c.yaml")
    assert any(p.key == "input.subset.path" and Path(p.location) == toy / "sub.csv" for p in plan.reads)
    assert str(toy / "sub.csv") in read_files(config, toy, toy / "c.yaml")
    with pytest.raises(InputError, match=r"input\.subset\.path"):
        plan_from_config(config, config_dir=toy, output_path=str(toy / "sub.csv"))
    rows = [{"rows": [1, 2]}, {"where": {"Age": ["29"]}}]  # control: a subset of no file reads nothing more
    for sub in rows:
        other = load_config(toy / "c.yaml").model_copy(deep=True)
        other.input.subset = type(other.input.subset).model_validate(sub)
        reads = plan_from_config(other, config_dir=toy).reads
        assert not any(p.key == "input.subset.path" for p in reads)
