"""The audit: risk models and attacks on a release, whoever made it; its verdicts; the commands.

The figures are checked against independent counts on the published file (pandas group sizes), the
verdicts against the thresholds, and the commands end to end on real files.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from anonkit.audit.inputs import load_audit_inputs
from anonkit.audit.run import ATTACKS, audit
from anonkit.cli import app
from anonkit.config import AuditThresholds, load_config
from anonkit.datasets import data_dir, load_adult
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.pipeline import run_config
from anonkit.plan import Plan, plan_from_config

QIS = ["sex", "age", "race", "marital-status", "education"]


def _plan(config, base) -> Plan:  # type: ignore[no-untyped-def]
    """The read-only plan an audit reads (``anonkit audit`` makes the same)."""
    return plan_from_config(config, config_dir=base, writes=False)


@pytest.fixture(scope="module")
def adult_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3,000-record Adult sample with its hierarchies, a population (the whole of Adult) and
    controls (Adult records not in the sample), as files."""
    d = tmp_path_factory.mktemp("audit")
    frame, _ = load_adult()
    order = np.random.default_rng(7).permutation(len(frame))
    sample = frame.iloc[order[:3000]].reset_index(drop=True)
    control = frame.iloc[order[3000:4000]].reset_index(drop=True)
    sample.to_csv(d / "sample.csv", index=False)
    control.to_csv(d / "control.csv", index=False)
    frame.to_csv(d / "population.csv", index=False)
    for name in QIS:
        shutil.copy(data_dir() / f"adult_hierarchy_{name}.csv", d / f"h-{name}.csv")
    return d


def _config(d: Path, name: str, *, algorithm: dict | None = None, audit: dict | None = None,
            models: list | None = None, output: str = "out.csv") -> Path:
    frame, _ = load_adult()
    attributes: dict[str, dict] = {}
    for col in frame.columns:
        if col in QIS:
            attributes[col] = {"role": "quasi", "hierarchy": f"h-{col}.csv"}
        elif col == "occupation":
            attributes[col] = {"role": "sensitive"}
        else:
            attributes[col] = {"role": "insensitive"}
    cfg = {
        "input": {"path": "sample.csv"},
        "attributes": attributes,
        "privacy": models or [{"model": "k-anonymity", "k": 5},
                              {"model": "l-diversity", "attribute": "occupation", "l": 2}],
        "algorithm": algorithm or {"name": "flash", "max_suppression": 0.05},
        "output": {"path": output},
    }
    if audit is not None:
        cfg["audit"] = audit
    path = d / name
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def flash_release(adult_dir: Path) -> tuple[Path, Path]:
    config = _config(adult_dir, "flash.yaml")
    run_config(load_config(config), config_dir=adult_dir, config_file=config)
    return config, adult_dir / "out.csv"


def test_the_audit_recomputes_risk_from_the_published_file(flash_release: tuple[Path, Path]) -> None:
    config, release = flash_release
    cfg = load_config(config)
    inputs = load_audit_inputs(_plan(cfg, config.parent), str(release))
    result = audit(inputs, models=cfg.models(), population=30_162, seed=0)
    published = pd.read_csv(release, dtype=str, keep_default_na=False)
    sizes = published.groupby(QIS).size().to_numpy()
    risk = result["risk"]
    assert risk["prosecutor"]["highest"] == pytest.approx(1 / sizes.min())
    assert risk["prosecutor"]["average"] == pytest.approx(len(sizes) / sizes.sum())
    assert risk["records"] == len(published) and risk["classes"] == len(sizes)
    assert sum(c["records"] for c in risk["class_sizes"]) == len(published)
    assert sum(b["records"] for b in risk["distribution"]) == pytest.approx(1.0)
    # every model the config names, recomputed and holding
    assert [m["holds"] for m in result["models"]] == [True, True]
    names = [a["name"] for a in result["attacks"]]
    assert names == ["homogeneity", "similarity", "skewness", "singling-out", "linkability", "inference"]
    for a in result["attacks"]:
        lo, hi = a["ci"]
        assert 0 <= lo <= a["success"] <= hi <= 1
    # homogeneity is impossible on a 2-diverse release
    assert result["attacks"][0]["successes"] == 0
    checks = {v["check"]: v for v in result["verdicts"]}
    assert checks["prosecutor highest risk"]["holds"] == (1 / sizes.min() <= 0.2)
    assert result["ok"] == all(v["holds"] for v in result["verdicts"])
    assert json.loads(json.dumps(result)) == result  # JSON-ready


def test_thresholds_decide_the_verdicts(flash_release: tuple[Path, Path]) -> None:
    config, release = flash_release
    cfg = load_config(config)
    inputs = load_audit_inputs(_plan(cfg, config.parent), str(release))
    strict = audit(inputs, models=cfg.models(), thresholds=AuditThresholds(highest_risk=0.01, attack_risk=0.0),
                   attacks=["homogeneity"])
    lax = audit(inputs, models=cfg.models(), thresholds=AuditThresholds(highest_risk=1.0, average_risk=1.0,
                                                                        attack_risk=1.0), attacks=["homogeneity"])
    assert not strict["ok"] and lax["ok"]
    failed = {v["check"] for v in strict["verdicts"] if not v["holds"]}
    assert "prosecutor highest risk" in failed


def test_a_population_table_lowers_journalist_risk(flash_release: tuple[Path, Path], adult_dir: Path) -> None:
    config, release = flash_release
    cfg = load_config(config)
    inputs = load_audit_inputs(_plan(cfg, config.parent), str(release),
                               population_table=str(adult_dir / "population.csv"))
    result = audit(inputs, models=cfg.models(), attacks=[])
    risk = result["risk"]
    assert result["population"]["source"] == "table"
    # the whole of Adult holds every sampled record: no class is smaller in the population
    assert risk["journalist"]["highest"] <= risk["prosecutor"]["highest"]
    assert risk["journalist"]["average"] < risk["prosecutor"]["average"]


def test_a_control_set_turns_success_into_excess_risk(flash_release: tuple[Path, Path], adult_dir: Path) -> None:
    config, release = flash_release
    cfg = load_config(config)
    inputs = load_audit_inputs(_plan(cfg, config.parent), str(release), control=str(adult_dir / "control.csv"))
    result = audit(inputs, models=cfg.models(), attacks=["inference"], targets=500)
    (inference,) = result["attacks"]
    assert inference["control"] is not None and inference["risk_against"] == "control"
    assert inference["risk"] == pytest.approx(max(0.0, (inference["success"] - inference["control"])
                                                  / (1 - inference["control"])))


def test_unsorted_matching_needs_a_second_release_and_finds_little_in_shuffled_ones(
        flash_release: tuple[Path, Path], adult_dir: Path) -> None:
    config, release = flash_release
    # the same release published again with another seed: the same records in another order
    cfg = load_config(config)
    run_config(cfg, config_dir=adult_dir, config_file=config, output_path=str(adult_dir / "other.csv"), seed=5)
    inputs = load_audit_inputs(_plan(cfg, config.parent), str(release), other=str(adult_dir / "other.csv"))
    result = audit(inputs, attacks=["unsorted-matching"])
    (matching,) = result["attacks"]
    assert matching["name"] == "unsorted-matching"
    # shuffled: rows at one position are different people, so intersections pin nothing
    assert matching["successes"] == 0 and matching["details"]["finer"] == 0
    assert matching["details"]["empty"] > 0


def test_linked_tables_are_audited_by_group(adult_dir: Path) -> None:
    config = _config(adult_dir, "anatomy.yaml", algorithm={"name": "anatomy"}, output="anatomy.csv",
                     models=[{"model": "l-diversity", "attribute": "occupation", "l": 3}])
    run_config(load_config(config), config_dir=adult_dir, config_file=config)
    cfg = load_config(config)
    inputs = load_audit_inputs(_plan(cfg, adult_dir), str(adult_dir / "anatomy.csv"))
    assert isinstance(inputs.release, dict) and len(inputs.release) == 2
    result = audit(inputs, models=cfg.models())
    assert result["models"][0]["holds"]
    names = [a["name"] for a in result["attacks"]]
    assert "homogeneity" in names and "inference" not in names
    assert any("inference: not run" in n for n in result["notes"])
    # Anatomy publishes exact quasi-identifiers: its groups are large but singling out works
    singling = next(a for a in result["attacks"] if a["name"] == "singling-out")
    assert singling["success"] > 0.2 and singling["success"] > 10 * singling["baseline"]


def test_bad_audit_requests_are_refused(flash_release: tuple[Path, Path], adult_dir: Path) -> None:
    config, release = flash_release
    cfg = load_config(config)
    inputs = load_audit_inputs(_plan(cfg, config.parent), str(release))
    with pytest.raises(InputError, match="unknown attack 'guessing'"):
        audit(inputs, attacks=["guessing"])
    with pytest.raises(InputError, match="not found"):
        load_audit_inputs(_plan(cfg, config.parent), str(adult_dir / "missing.csv"))
    assert set(ATTACKS) >= {"singling-out", "linkability", "inference"}


def test_anonymize_runs_the_configured_audit_and_refuses_when_required(adult_dir: Path) -> None:
    lax = _config(adult_dir, "audited.yaml", output="audited.csv",
                  audit={"population": 30162, "attacks": ["homogeneity", "skewness"]})
    result = run_config(load_config(lax), config_dir=adult_dir, config_file=lax)
    assert result.summary["audit"]["attacks"][0]["name"] == "homogeneity"
    assert (adult_dir / "audited.csv").exists()
    strict = _config(adult_dir, "required.yaml", output="required.csv",
                     audit={"required": True, "thresholds": {"highest_risk": 0.01}, "attacks": []})
    with pytest.raises(UnsatisfiableError, match="the audit fails"):
        run_config(load_config(strict), config_dir=adult_dir, config_file=strict)
    assert not (adult_dir / "required.csv").exists()


def test_the_audit_command(flash_release: tuple[Path, Path], adult_dir: Path) -> None:
    config, release = flash_release
    runner = CliRunner()
    res = runner.invoke(app, ["audit", str(release), "--config", str(config), "--population", "30162",
                              "--attacks", "homogeneity,inference", "--json"])
    assert res.exit_code in (0, 1), res.output
    doc = json.loads(res.stdout)
    assert [a["name"] for a in doc["attacks"]] == ["homogeneity", "inference"]
    assert res.exit_code == (0 if doc["ok"] else 1)
    human = runner.invoke(app, ["audit", str(release), "--config", str(config), "--attacks", "homogeneity"])
    assert "Audit: verdicts" in human.stdout and "prosecutor highest risk" in human.stdout
    bad = runner.invoke(app, ["audit", str(release), "--config", str(config), "--population", "many"])
    assert bad.exit_code == 2 and "--population" in bad.output
    missing = runner.invoke(app, ["audit", str(adult_dir / "nope.csv"), "--config", str(config)])
    assert missing.exit_code == 2 and "nope.csv" in missing.output


def test_the_explore_command(flash_release: tuple[Path, Path], adult_dir: Path) -> None:
    config, _ = flash_release
    out = adult_dir / "explore"
    res = CliRunner().invoke(app, ["explore", str(config), "--vary", "k=2,10", "--algorithms", "flash,mondrian",
                                   "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["kind"] == "explore" and len(doc["runs"]) == 4
    assert sorted(p.name for p in out.iterdir()) == ["explore.csv", "explore.json", "ru-map.png", "ru-map.svg"]
    bad = CliRunner().invoke(app, ["explore", str(config), "--vary", "zeta=1,2", "--out", str(out)])
    assert bad.exit_code == 2 and "zeta" in bad.output


def test_anonymize_writes_the_report_and_report_rereads_the_run(adult_dir: Path) -> None:
    config = _config(adult_dir, "reported.yaml", output="reported.csv")
    runner = CliRunner()
    html = adult_dir / "reported.html"
    res = runner.invoke(app, ["anonymize", str(config), "--report", str(html), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["report"] == str(html) and "audit" in summary  # the report's privacy section is an audit
    page = html.read_text()
    assert page.startswith("<!DOCTYPE html>") and "Verdict" in page and "<script" not in page
    run_json = adult_dir / "reported.json"
    run_json.write_text(res.stdout)
    again = adult_dir / "again.html"
    res = runner.invoke(app, ["report", str(run_json), "--out", str(again)])
    assert res.exit_code == 0, res.output
    assert again.read_text().count("<svg") == page.count("<svg")
    # a release changed since the run is refused, and nothing is written
    (adult_dir / "reported.csv").write_text((adult_dir / "reported.csv").read_text() + "\n")
    stale = adult_dir / "stale.html"
    res = runner.invoke(app, ["report", str(run_json), "--out", str(stale)])
    assert res.exit_code == 2 and "changed" in res.output and not stale.exists()


@pytest.mark.parametrize(("target", "message"), [("flash.yaml", "replace a file"), ("report.txt", ".html"),
                                                 ("no/such/r.html", "folder does not exist")])
def test_the_report_target_is_checked_before_any_work(adult_dir: Path, target: str, message: str) -> None:
    config = _config(adult_dir, "flash.yaml")
    res = CliRunner().invoke(app, ["anonymize", str(config), "--report", str(adult_dir / target)])
    assert res.exit_code == 2 and message in res.output


def test_anonymize_runs_the_background_knowledge_attack_with_its_private_link(adult_dir: Path) -> None:
    """UHRA (paper A) on 1,500 records: the audit in memory holds the private link and the priors, so
    the background-knowledge attack runs (it is refused on a published file alone)."""
    frame, _ = load_adult()
    frame.sample(1500, random_state=1).to_csv(adult_dir / "bk.csv", index=False)
    cfg = yaml.safe_load((Path(__file__).resolve().parents[1] / "examples" / "adult-uhra.yaml").read_text())
    cfg["input"] = {"path": "bk.csv"}
    cfg["output"] = {"path": "bk-out.csv"}
    cfg["audit"] = {"attacks": ["background-knowledge", "homogeneity"]}
    config = adult_dir / "bk.yaml"
    config.write_text(yaml.safe_dump(cfg, sort_keys=False))
    result = run_config(load_config(config), config_dir=adult_dir, config_file=config)
    bk = next(a for a in result.summary["audit"]["attacks"] if a["name"] == "background-knowledge")
    assert bk["targets"] == result.summary["released"] and bk["baseline"] is not None
    assert 0 <= bk["ci"][0] <= bk["success"] <= bk["ci"][1] <= 1
    inputs = load_audit_inputs(_plan(load_config(config), adult_dir), str(adult_dir / "bk-out.csv"))
    alone = audit(inputs, attacks=["background-knowledge"])
    assert alone["attacks"] == [] and "private link" in alone["notes"][-1]


def test_a_one_to_many_release_is_audited_per_person(tmp_path: Path) -> None:
    """Angelization's QT/ST (paper D): groups count persons; θ-sensitivity, judged on representatives
    the ST does not single out, is left to the verifier that holds the private link (and said so)."""
    examples = Path(__file__).resolve().parents[1] / "examples"
    shutil.copytree(examples, tmp_path / "ex")
    config = tmp_path / "ex" / "one-to-many.yaml"
    run_config(load_config(config), config_dir=config.parent, config_file=config)
    cfg = load_config(config)
    inputs = load_audit_inputs(_plan(cfg, config.parent), str(config.parent / "one-to-many-anonymized.csv"))
    assert sorted(inputs.release) == ["qt", "st"]
    result = audit(inputs, models=cfg.models(), attacks=["homogeneity", "singling-out"])
    assert [m["model"] for m in result["models"]] == ["4-anonymity"] and result["models"][0]["holds"]
    assert any("representative" in n for n in result["notes"])
    qt = inputs.release["qt"]
    assert result["risk"]["records"] == len(qt)  # one row per person
    assert result["risk"]["prosecutor"]["highest"] == pytest.approx(1 / qt.groupby("bucket").size().min())
