"""Issue 23 class 6: one verdict. ``anonkit anonymize`` audits every release with the audit's quick
checks and thresholds and prints one verdict; ``anonkit audit`` on the written release agrees; a
failing check comes with a computed change that, applied, passes; the thresholds follow the models
(1/k); every shipped example passes its own audit or its comment says why not; the audit report
names the input it compared against."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from anonkit.audit.verdicts import effective_thresholds
from anonkit.cli import app
from anonkit.config import AuditThresholds
from anonkit.models import DistinctLDiversity, KAnonymity
from anonkit.risk.thresholds import DEFAULT_HIGHEST_RISK, k_for_risk

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
runner = CliRunner()


def _cli(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    return res.exit_code, res.stdout, res.stderr


def _example(tmp: Path, name: str) -> Path:
    shutil.copy(EXAMPLES / f"{name}.yaml", tmp / f"{name}.yaml")
    shutil.copytree(EXAMPLES / "files", tmp / "files")
    return tmp / f"{name}.yaml"


def _anonymize_and_audit(config: Path) -> tuple[dict, dict, int]:
    code, out, err = _cli("anonymize", str(config), "--json")
    assert code == 0, err
    summary = json.loads(out)
    release = summary["output"] if isinstance(summary["output"], str) else summary["output"][0]
    release = release.replace("-qt.csv", ".csv").replace("-qit.csv", ".csv")
    code, out, err = _cli("audit", release, "--config", str(config), "--json")
    return summary, json.loads(out), code


# ------------------------------------------------------------------------------------- thresholds
@given(k=st.integers(1, 10_000))
def test_k_for_risk_is_the_smallest_k(k: int) -> None:
    t = 1.0 / k
    assert k_for_risk(t) == k
    loose = min(t * 1.37, 1.0)
    got = k_for_risk(loose)
    assert 1.0 / got <= loose and (got == 1 or 1.0 / (got - 1) > loose)


def test_thresholds_follow_the_k_anonymity_model() -> None:
    assert effective_thresholds(None, [KAnonymity(4)]).highest_risk == 0.25
    assert effective_thresholds(None, [KAnonymity(4)]).average_risk == 0.25
    assert effective_thresholds(None, [KAnonymity(10), KAnonymity(3)]).highest_risk == 0.1
    # no k-anonymity model over all QIs: anonkit's default
    assert effective_thresholds(None, [DistinctLDiversity("s", 2)]).highest_risk == DEFAULT_HIGHEST_RISK
    assert effective_thresholds(None, [KAnonymity(4, attributes=("a",))]).highest_risk == DEFAULT_HIGHEST_RISK
    # a threshold the config sets is kept
    given_t = AuditThresholds(highest_risk=0.2)
    assert effective_thresholds(given_t, [KAnonymity(4)]).highest_risk == 0.2
    assert effective_thresholds(given_t, [KAnonymity(4)]).average_risk == 0.25


# ------------------------------------------------------------------------------ a small table, fast
def _table(tmp: Path, n: int = 400, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"age": rng.integers(20, 70, n), "zip": rng.choice(["a", "b", "c", "d"], n),
                          "disease": rng.choice(["flu", "cold", "ulcer", "cancer", "hiv"], n)})
    frame.to_csv(tmp / "t.csv", index=False)
    return tmp / "t.csv"


def _config(tmp: Path, k: int, audit: dict | None = None) -> Path:
    cfg = {"input": {"path": "t.csv"},
           "attributes": {"age": {"role": "quasi", "type": "numeric"}, "zip": {"role": "quasi"},
                          "disease": {"role": "sensitive"}},
           "privacy": [{"model": "k-anonymity", "k": k}],
           "algorithm": {"name": "mondrian"},
           "output": {"path": "out.csv"}}
    if audit is not None:
        cfg["audit"] = audit
    path = tmp / f"k{k}.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


QUICK = {"attacks": ["homogeneity", "singling-out"]}


def test_anonymize_and_audit_agree(tmp_path: Path) -> None:
    _table(tmp_path)
    summary, audit, code = _anonymize_and_audit(_config(tmp_path, 4, QUICK))
    v = summary["verdict"]
    assert v["thresholds"] == audit["thresholds"] and v["thresholds"]["highest_risk"] == 0.25
    assert v["ok"] == audit["ok"] and (code == 0) == audit["ok"]
    assert summary["risk_threshold"] == 0.25
    assert [x["check"] for x in v["failing"]] == [x["check"] for x in audit["verdicts"] if not x["holds"]]


def test_a_failing_highest_risk_gets_the_computed_k_which_passes(tmp_path: Path) -> None:
    _table(tmp_path)
    strict = {**QUICK, "thresholds": {"highest_risk": 0.1, "average_risk": 0.1}}
    summary, audit, code = _anonymize_and_audit(_config(tmp_path, 4, strict))
    assert not summary["verdict"]["ok"] and not audit["ok"] and code == 1  # the same verdict
    advice = summary["verdict"]["advice"]
    assert advice["holds"] and advice["key"] == "privacy.0.k" and advice["value"] == k_for_risk(0.1) == 10
    # applied, it passes: anonymize's verdict and the audit's exit code
    fixed = _config(tmp_path, advice["value"], strict)
    summary, audit, code = _anonymize_and_audit(fixed)
    assert summary["verdict"]["ok"] and audit["ok"] and code == 0


def test_the_console_prints_one_verdict_with_the_change(tmp_path: Path) -> None:
    _table(tmp_path)
    strict = {**QUICK, "thresholds": {"highest_risk": 0.1, "average_risk": 0.1}}
    code, out, err = _cli("anonymize", str(_config(tmp_path, 4, strict)))
    assert code == 0, err
    assert out.count("Verdict:") == 1 and "do not publish as is" in out
    assert "privacy.0.k: 10" in out and "some checks fail" not in out  # one verdict, not the audit's too
    code, out, err = _cli("anonymize", str(_config(tmp_path, 10, strict)))
    assert out.count("Verdict:") == 1 and "every check holds" in out  # control


def test_the_audit_report_names_its_input(tmp_path: Path) -> None:
    data = _table(tmp_path)
    config = _config(tmp_path, 4, QUICK)
    assert _cli("anonymize", str(config))[0] == 0
    _cli("audit", str(tmp_path / "out.csv"), "--config", str(config), "--report", str(tmp_path / "a.html"))
    html = (tmp_path / "a.html").read_text()
    assert "Python API" not in html and data.name in html


# ------------------------------------------------------------------------------ shipped examples
#: examples whose comment says why their audit fails (and must say so)
EXPLAINED = {"adult", "adult-fixed", "adult-uhra", "tcloseness-paper", "survey-swap", "adult-dp-synthetic",
             "survey-local-suppression", "survey-microaggregation"}


@pytest.mark.parametrize("name", sorted(p.stem for p in EXAMPLES.glob("*.yaml") if p.stem != "adult-spark"))
def test_each_example_passes_its_own_audit_or_says_why(tmp_path: Path, name: str) -> None:
    config = _example(tmp_path, name)
    summary, audit, _code = _anonymize_and_audit(config)
    assert summary["verdict"]["thresholds"] == audit["thresholds"]
    mine = {v["check"]: v["holds"] for v in summary["audit"]["verdicts"]}
    theirs = {v["check"]: v["holds"] for v in audit["verdicts"]}
    assert {c: mine[c] for c in theirs} == theirs  # every check both run, the same verdict
    # anonymize may run one more: the background-knowledge attack needs the publisher's private link
    assert set(mine) - set(theirs) <= {"background-knowledge attack risk"}
    audit = summary["audit"]  # the verdict with every check
    comment = config.read_text().split("input:")[0]
    if audit["ok"]:
        assert name not in EXPLAINED
    else:
        assert name in EXPLAINED and "Audit: does NOT pass" in comment.replace("Audit (printed as the run's "
                                                                                 "verdict): does NOT pass",
                                                                                 "Audit: does NOT pass")
        failing = {v["check"].split(" ")[0] for v in audit["verdicts"] if not v["holds"]}
        assert any(f in comment for f in failing), (failing, comment)


def test_above_the_advice_budget_nothing_is_rerun(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Above ``ADVICE_MAX_RECORDS`` the advice reruns nothing: a failing highest risk still gets the k that
    bounds it by construction, any other failing check says how to have the change computed."""
    import anonkit.audit.advice as advice_module
    import anonkit.runner.audit_step as audit_step
    import anonkit.runner.local as local_runner

    monkeypatch.setattr(advice_module, "ADVICE_MAX_RECORDS", 100)
    reruns: list[object] = []
    original = local_runner.anonymize_checked
    counted = lambda *a, **k: reruns.append(a) or original(*a, **k)  # noqa: E731
    monkeypatch.setattr(local_runner, "anonymize_checked", counted)  # the release itself
    monkeypatch.setattr(audit_step, "anonymize_checked", counted)  # the advice's reruns
    _table(tmp_path)
    strict = {"attacks": [], "thresholds": {"highest_risk": 0.1, "average_risk": 0.3}}
    summary, _audit, _code = _anonymize_and_audit(_config(tmp_path, 4, strict))
    advice = summary["verdict"]["advice"]
    assert advice["holds"] and advice["value"] == 10 and "not rerun: 400 records" in advice["gives"]
    assert len(reruns) == 1  # the release itself, nothing more
    reruns.clear()
    average = {"attacks": [], "thresholds": {"highest_risk": 0.5, "average_risk": 0.01}}
    summary, _audit, _code = _anonymize_and_audit(_config(tmp_path, 4, average))
    advice = summary["verdict"]["advice"]
    assert not advice["holds"] and "no change was rerun: 400 records" in advice["gives"]
    assert len(reruns) == 1


def test_the_verdict_line_says_what_was_judged(capsys: pytest.CaptureFixture[str]) -> None:
    """A verdict without attacks (a run on Spark judges the models and risk from the written classes)
    says no attack ran; one with all three kinds names them."""
    from anonkit.cli.printers.verdict import print_verdict

    base = {"ok": True, "checks": 4, "failing": [], "advice": None, "highest_risk_from": "1/k of 5-anonymity",
            "thresholds": {"highest_risk": 0.2, "average_risk": 0.2, "attack_risk": 0.1}}
    print_verdict({"verdict": {**base, "kinds": ["model", "risk"]}})
    assert "4 checks: the models and risk; no attack run" in capsys.readouterr().out
    print_verdict({"verdict": {**base, "kinds": ["model", "risk", "attack"]}})
    out = capsys.readouterr().out
    assert "the models, risk and attacks" in out and "no attack run" not in out


@pytest.mark.parametrize("role", ["insensitive", "identifier"])
def test_a_release_without_a_sensitive_attribute_gets_its_verdict(tmp_path: Path, role: str) -> None:
    """k-anonymity alone over a table with no sensitive attribute: the run and the audit judge the
    release (classes, risk, attacks on what is published) instead of refusing it for a sensitive
    attribute it never needed (it did, from the always-on audit, until this test)."""
    _table(tmp_path)
    cfg = yaml.safe_load(_config(tmp_path, 4).read_text())
    cfg["attributes"]["disease"] = {"role": role}
    path = tmp_path / "nosens.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    summary, audit, _code = _anonymize_and_audit(path)
    assert summary["satisfied"] and "verdict" in summary and audit["verdicts"], (summary, audit)
    assert summary["verdict"]["thresholds"] == audit["thresholds"]


def test_a_perturbative_run_is_advised_without_model_reruns(tmp_path: Path) -> None:
    """Microaggregation enforces no model (the audit judges its release): raising k would change
    nothing, so the advice reruns nothing and says what to change instead."""
    config = _example(tmp_path, "survey-microaggregation")
    summary, _audit, _code = _anonymize_and_audit(config)
    advice = summary["verdict"]["advice"]
    assert not summary["verdict"]["ok"] and advice["tried"] == [] and not advice["holds"]
    assert "enforces no privacy model" in advice["gives"] and advice["key"].startswith("audit.thresholds.")
