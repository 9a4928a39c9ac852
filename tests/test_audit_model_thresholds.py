"""The audit judges what the run's models state (issue 27): an ``average-risk`` model sets the
average-risk threshold, a ``population-uniqueness`` model the population-uniqueness one, unless
``audit.thresholds`` sets them; the verdict says where each threshold came from; and the audit of a
run with ``input.subset`` reports k-map and δ-presence, recounted in the population."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
import yaml
from rich.console import Console
from typer.testing import CliRunner

from anonkit.audit.verdicts import effective_thresholds, threshold_basis, thresholds_from
from anonkit.cli import app, console
from anonkit.cli.printers.verdict import print_verdict
from anonkit.config import AuditThresholds
from anonkit.models import AverageRisk, KAnonymity, PopulationUniquenessRisk, SampleUniquenessRisk
from anonkit.risk.thresholds import DEFAULT_AVERAGE_RISK, DEFAULT_POPULATION_UNIQUENESS

DATA = Path(__file__).parent / "data"
runner = CliRunner()


# ------------------------------------------------------------------------------------ the thresholds
def test_an_average_risk_model_sets_the_average_risk_threshold() -> None:
    t = effective_thresholds(None, [AverageRisk(0.3)])
    assert t.average_risk == 0.3 and thresholds_from(None, [AverageRisk(0.3)])["average_risk"] == \
        "the model average risk ≤ 0.3"
    # control: without the model, anonkit's default
    assert effective_thresholds(None, []).average_risk == DEFAULT_AVERAGE_RISK
    assert thresholds_from(None, [])["average_risk"] == "anonkit's default"


def test_the_strictest_stated_threshold_wins_and_the_config_wins_over_both() -> None:
    models = [KAnonymity(4), AverageRisk(0.1)]
    assert effective_thresholds(None, models).average_risk == 0.1
    assert effective_thresholds(None, [KAnonymity(4), AverageRisk(0.4)]).average_risk == 0.25
    assert thresholds_from(None, [KAnonymity(4), AverageRisk(0.4)])["average_risk"] == "1/k of 4-anonymity"
    given = AuditThresholds(average_risk=0.05)
    assert effective_thresholds(given, models).average_risk == 0.05
    assert thresholds_from(given, models)["average_risk"] == "audit.thresholds.average_risk"
    # the highest risk still follows k alone (an average-risk model bounds no single record)
    assert effective_thresholds(None, models).highest_risk == 0.25
    assert threshold_basis(None, models) == "1/k of 4-anonymity"


def test_a_population_uniqueness_model_sets_its_threshold() -> None:
    m = PopulationUniquenessRisk(0.05, population=1000)
    assert effective_thresholds(None, [m]).population_uniqueness == 0.05
    assert thresholds_from(None, [m])["population_uniqueness"].startswith("the model population uniqueness ≤ 0.05")
    assert effective_thresholds(AuditThresholds(population_uniqueness=0.02), [m]).population_uniqueness == 0.02
    assert effective_thresholds(None, []).population_uniqueness == DEFAULT_POPULATION_UNIQUENESS


def test_sample_uniqueness_has_no_audit_threshold_and_changes_none() -> None:
    """The audit reports sample uniqueness without judging it: the model is judged as a model."""
    assert effective_thresholds(None, [SampleUniquenessRisk(0.3)]) == effective_thresholds(None, [])
    assert set(thresholds_from(None, [SampleUniquenessRisk(0.3)]).values()) == {
        "anonkit's default (no k-anonymity model)", "anonkit's default"}


def _printed(verdict: dict) -> str:
    out = Console(file=io.StringIO(), width=400, color_system=None)
    old = console.out
    console.out = out
    try:
        print_verdict({"verdict": verdict})
    finally:
        console.out = old
    return out.file.getvalue()


def test_the_verdict_line_names_where_each_threshold_came_from() -> None:
    models = [KAnonymity(4), AverageRisk(0.1), PopulationUniquenessRisk(0.05, population=1000)]
    t = effective_thresholds(None, models).model_dump()
    base = {"ok": True, "checks": 3, "failing": [], "advice": None, "kinds": ["model", "risk"], "thresholds": t,
            "highest_risk_from": threshold_basis(None, models)}
    line = _printed({**base, "thresholds_from": thresholds_from(None, models)})
    for words in ("highest risk 25 % (1/k of 4-anonymity)", "average risk 10 % (the model average risk ≤ 0.1)",
                  "population uniqueness 5 % (the model population uniqueness ≤ 0.05", "attacks 10 % (anonkit's"):
        assert words in line, line
    # control: a verdict without thresholds_from (an older summary) prints as before
    old = _printed(base)
    assert "average risk 10 %, attacks 10 %" in old and "(the model" not in old


# ---------------------------------------------------------------------------------- through the CLI
def _toy(tmp: Path, privacy: list[dict], **extra: object) -> Path:
    for f in DATA.glob("test2*.csv"):
        shutil.copy(f, tmp / f.name)
    cfg = {"input": {"path": "test2.csv", "separator": ";"},
           "attributes": {"ZIPCode": {"role": "quasi", "hierarchy": "test2_hierarchy_ZIPCode.csv"},
                          "Age": {"role": "quasi", "hierarchy": "test2_hierarchy_Age.csv"},
                          "Salary": {"role": "insensitive"}, "Disease": {"role": "sensitive"}},
           "privacy": privacy, "algorithm": {"name": "flash"}, "output": {"path": "out.csv", "separator": ";"},
           **extra}
    (tmp / "c.yaml").write_text(yaml.safe_dump(cfg))
    return tmp / "c.yaml"


@pytest.mark.parametrize(("audit", "expected", "source"), [
    (None, 0.4, "the model average risk ≤ 0.4"),
    ({"thresholds": {"average_risk": 0.45}}, 0.45, "audit.thresholds.average_risk"),
])
def test_a_run_judges_its_average_risk_against_its_model(tmp_path: Path, audit: dict | None, expected: float,
                                                         source: str) -> None:
    extra = {} if audit is None else {"audit": audit}
    config = _toy(tmp_path, [{"model": "k-anonymity", "k": 2}, {"model": "average-risk", "threshold": 0.4}], **extra)
    res = runner.invoke(app, ["anonymize", str(config), "--json"])
    summary = json.loads(res.stdout)
    verdict = summary["verdict"]
    assert verdict["thresholds"]["average_risk"] == expected
    assert verdict["thresholds_from"]["average_risk"] == source
    check = next(v for v in summary["audit"]["verdicts"] if v["check"] == "prosecutor average risk")
    assert check["threshold"] == expected and check["holds"]  # the model holds, so its own bar does
    text = runner.invoke(app, ["anonymize", str(config), "--output", str(tmp_path / "o2.csv")])
    assert f"({source})" in text.stdout


def test_the_audit_of_a_subset_run_reports_k_map_and_delta_presence(tmp_path: Path) -> None:
    config = _toy(tmp_path, [{"model": "k-map", "k": 2}, {"model": "delta-presence", "dmax": 0.9}])
    cfg = yaml.safe_load(config.read_text())
    cfg["input"]["subset"] = {"rows": [1, 2, 3, 4, 5]}
    config.write_text(yaml.safe_dump(cfg))
    run = runner.invoke(app, ["anonymize", str(config), "--json"])
    assert run.exit_code == 0, run.stderr
    verified = {v["model"]: v["achieved"] for v in json.loads(run.stdout)["verification"]}
    res = runner.invoke(app, ["audit", "--config", str(config), str(tmp_path / "out.csv"), "--json"])
    audit = json.loads(res.stdout)
    models = {m["model"]: m for m in audit["models"]}
    assert set(verified) <= set(models), (verified, models)
    for name, achieved in verified.items():  # the audit recounts what the run's verifier counted
        assert models[name]["holds"] and models[name]["achieved"] == pytest.approx(achieved)
    assert not any("judged on the population's counts" in n for n in audit["notes"])
    # the attacks compare the release with the research records, not the whole population
    assert audit["risk"]["records"] == 5
    # control: the same release audited without the subset cannot count the population, and says so
    cfg["input"].pop("subset")
    config.write_text(yaml.safe_dump(cfg))
    res = runner.invoke(app, ["audit", "--config", str(config), str(tmp_path / "out.csv"), "--json"])
    audit = json.loads(res.stdout)
    assert not any("map" in m["model"] for m in audit["models"])
    assert any("judged on the population's counts" in n for n in audit["notes"])


def test_no_attack_profitability_states_its_k_as_a_threshold() -> None:
    from anonkit.audit.verdicts import effective_thresholds, thresholds_from
    from anonkit.models import KAnonymity, NoAttackProfitability

    game = NoAttackProfitability(100, 100, 6, 1)  # an attack stops paying at k = 7
    assert effective_thresholds(None, [game]).highest_risk == 1 / 7
    assert thresholds_from(None, [game])["highest_risk"] == "1/k of no-attack profitability (k = 7)"
    assert effective_thresholds(None, [game, KAnonymity(10)]).highest_risk == 1 / 10  # the larger k wins
    assert effective_thresholds(None, []).highest_risk == 0.2  # the control: anonkit's default
