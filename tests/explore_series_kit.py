"""Inputs for the tests of several series on one R-U map (``anonkit explore --also``): a random table
drawn from the toy table's values (so the toy hierarchies cover it), configs of k-anonymity, SafePub and
the DP synthesizer over it, and the check of a DP-synthesis series (run by the lead once the ``dp``
extra's synthesizer is installed: :func:`check_dp_synthetic_series`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from bad_input_kit import DATA

#: the toy table's values, column by column (test2.csv)
TOY = pd.read_csv(DATA / "test2.csv", sep=";", dtype=str)
#: rows of the random table: large enough that SafePub's sample keeps classes, small enough to be quick
ROWS = 360


def random_toy(folder: Path, rows: int = ROWS, seed: int = 7) -> Path:
    """``folder/people.csv``: ``rows`` records, each column drawn independently from the toy's values
    (Age and ZIPCode skewed so that some combinations are rare), with the toy's hierarchies beside it."""
    rng = np.random.default_rng(seed)
    cols = {}
    for c in TOY.columns:
        values = TOY[c].to_numpy()
        weights = np.linspace(1.0, 3.0, len(values)) if c in ("ZIPCode", "Age") else np.ones(len(values))
        cols[c] = rng.choice(values, size=rows, p=weights / weights.sum())
    path = folder / "people.csv"
    pd.DataFrame(cols).to_csv(path, sep=";", index=False)
    for name in ("ZIPCode", "Age", "Disease"):
        shutil.copy(DATA / f"test2_hierarchy_{name}.csv", folder / f"test2_hierarchy_{name}.csv")
    return path


def attributes() -> dict:
    """The roles every series of the tests gives (the same in each: the attacks read them)."""
    return {"ZIPCode": {"role": "quasi", "hierarchy": "test2_hierarchy_ZIPCode.csv"},
            "Age": {"role": "quasi", "hierarchy": "test2_hierarchy_Age.csv"},
            "Salary": {"role": "insensitive"},
            "Disease": {"role": "sensitive"}}


def kanon_config(**algorithm: object) -> dict:
    return {"input": {"path": "people.csv", "separator": ";"}, "attributes": attributes(),
            "privacy": [{"model": "k-anonymity", "k": 2}],
            "algorithm": {"name": "flash", "max_suppression": 0.1, **algorithm}}


def safepub_config(epsilon: float = 2.0) -> dict:
    return {"input": {"path": "people.csv", "separator": ";"}, "attributes": attributes(),
            "privacy": [{"model": "differential-privacy", "epsilon": epsilon, "delta": 1e-4}],
            "algorithm": {"name": "safepub", "degree": "medium", "seeded": True}}


def synth_config(epsilon: float = 1.0) -> dict:
    """``dp-synthetic`` (MST, seeded) over every published column, each with its declared domain."""
    domain = {c: {"categories": sorted(TOY[c].unique().tolist())} for c in ("ZIPCode", "Disease")}
    domain["Age"] = {"bounds": [20, 60], "bins": 4, "integer": True}
    domain["Salary"] = {"bounds": [3, 12], "bins": 3, "integer": True}
    return {"input": {"path": "people.csv", "separator": ";"}, "attributes": attributes(),
            "privacy": [{"model": "differential-privacy", "epsilon": epsilon, "delta": 1e-4}],
            "algorithm": {"name": "dp-synthetic", "method": "mst", "epsilon": epsilon, "delta": 1e-4,
                          "domain": domain, "seeded": True, "iterations": 100}}


def write_config(folder: Path, name: str, config: dict) -> Path:
    path = folder / name
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def check_dp_synthetic_series(folder: Path) -> None:
    """k-anonymity, SafePub and DP synthesis on one map (issue 29 item 4), for the lead to call from a
    test once the ``dp`` extra's synthesizer is installed: the synthesizer is a series like any other
    (no special case), its points measured by the nearest-neighbour attacks and the same marginals, its
    rows labelled ``epsilon=…`` and drawn with their own marker."""
    from anonkit.explore import explore
    from anonkit.explore.series import parse_series_vary
    from anonkit.report.ru_map import ru_map

    random_toy(folder)
    paths = [write_config(folder, f"{n}.yaml", c) for n, c in
             (("kanon", kanon_config()), ("safepub", safepub_config()), ("synth", synth_config()))]
    result = explore(paths[0], also=paths[1:], vary=parse_series_vary(["k=2,5", "epsilon=1,2"]), seed=3)
    f = result.frame
    assert list(dict.fromkeys(f["series"])) == ["kanon", "safepub", "synth"]
    synth = f[f["series"] == "synth"]
    assert list(synth["label"]) == ["epsilon=1", "epsilon=2"] and synth["satisfied"].all(), synth["message"].tolist()
    assert synth["risk"].between(0, 1).all() and synth["loss"].between(0, 1).all()
    assert (synth["risk"] == synth[["singling_out", "linkability", "inference"]].max(axis=1)).all()
    assert result.risk == "attack_risk" and result.loss == "two_way_tvd"
    fig = ru_map(f, risk=result.risk, loss=result.loss, thresholds=result.thresholds)
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "synth: dp-synthetic" in legend
