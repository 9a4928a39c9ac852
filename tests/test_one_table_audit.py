"""A release published as one table through an algorithm's own verifier (``tables=`` with one name:
local suppression, PRAM, additive noise) is written as one file and audited as one table, by the
run's own audit and by ``anonkit audit`` on the written file (both read linked tables only when
there are two)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from anonkit.cli import app

DATA = Path(__file__).resolve().parent / "data"

ALGORITHMS = {
    "local-suppression": "{name: local-suppression}",
    "pram": "{name: pram, columns: [ZIPCode]}",
    "add-noise": "{name: add-noise, columns: [Salary], level: 50}",
    "rank-swap": "{name: rank-swap, columns: [Salary], p: 20}",
    "shuffle": "{name: shuffle, columns: [Salary], predictors: [Age]}",
    "microaggregation": "{name: microaggregation, columns: [Salary], k: 3}",
}


def _job(tmp: Path, algorithm: str) -> Path:
    salary = "{role: quasi, type: numeric}" if "add-noise" in algorithm else "{role: insensitive}"
    for f in DATA.glob("test2*.csv"):
        (tmp / f.name).write_bytes(f.read_bytes())
    (tmp / "c.yaml").write_text(
        "input: {path: test2.csv, separator: ';'}\n"
        "attributes:\n"
        "  ZIPCode: {role: quasi, type: categorical}\n"
        "  Age: {role: quasi, hierarchy: test2_hierarchy_Age.csv}\n"
        f"  Salary: {salary}\n"
        "  Disease: {role: sensitive, hierarchy: test2_hierarchy_Disease.csv}\n"
        "privacy: [{model: k-anonymity, k: 2}]\n"
        f"algorithm: {algorithm}\n"
        "output: {path: out.csv, separator: ';'}\n"
        "audit: {thresholds: {highest_risk: 1.0, average_risk: 1.0, attack_risk: 1.0}}\n")
    return tmp / "c.yaml"


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_a_one_table_release_is_written_and_audited_as_one_table(tmp_path: Path, name: str) -> None:
    config = _job(tmp_path, ALGORITHMS[name])
    run = CliRunner().invoke(app, ["anonymize", str(config), "--json", "--no-fixes"])
    assert run.exit_code in (0, 1), run.output  # the verdict may fail; the run and its audit did not break
    assert "two tables" not in run.output
    side = ["out.pram.csv"] if name == "pram" else []  # PRAM's matrices beside the release, not a table of it
    assert sorted(p.name for p in tmp_path.glob("out*.csv")) == ["out.csv", *side]  # one file, not linked tables
    audit = CliRunner().invoke(app, ["audit", str(tmp_path / "out.csv"), "--config", str(config), "--json"])
    assert audit.exit_code in (0, 1), audit.output
    report = json.loads(audit.stdout[audit.stdout.index("{"):])
    assert report["verdicts"] and "two tables" not in audit.output
