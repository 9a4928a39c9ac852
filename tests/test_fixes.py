"""Issue 25: what to change when the audit fails (``anonkit.fixes``). A failing config gets proposals
found by running them; applied, the first passing one passes — rerun whole by the runner, judged by
the verdict and the independent verifier; the list is sorted as promised; a passing run gets none;
the same plan gives the same list; nothing is written; ``anonkit anonymize`` prints a change one can
paste into the YAML and keeps its exit code."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from anonkit.cli import app
from anonkit.config import parse_config
from anonkit.errors import InputError
from anonkit.fixes import DEFAULT_MAX_TRIES, Fix, apply_fix, propose_fixes, yaml_sections
from anonkit.hierarchy.arx import write_hierarchy
from anonkit.plan import plan_from_config
from anonkit.runner import run

runner = CliRunner()
#: the audit's quick attacks these tests run (fewer attacks: faster runs)
QUICK = ["homogeneity", "singling-out"]
#: a strict bar for re-identification: 4-anonymity (risk 25 %) fails it
STRICT = {"attacks": QUICK, "thresholds": {"highest_risk": 0.1, "average_risk": 0.1}}
#: the inference attack alone, at its default bar (10 %): 2-anonymity of the small toy fails it
INFERENCE = {"attacks": ["inference"]}
ADULT_QI = ["age", "sex", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]


# ------------------------------------------------------------------------------------------ inputs
def _toy(tmp: Path, n: int = 400, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    pd.DataFrame({"age": rng.integers(20, 70, n), "zip": rng.choice(["a", "b", "c", "d"], n),
                  "disease": rng.choice(["flu", "cold", "ulcer", "cancer", "hiv"], n)}).to_csv(tmp / "t.csv",
                                                                                                index=False)


def _toy_config(k: int = 4, audit: dict | None = None, **algorithm: object) -> dict:
    cfg = {"input": {"path": "t.csv"},
           "attributes": {"age": {"role": "quasi", "type": "numeric"}, "zip": {"role": "quasi"},
                          "disease": {"role": "sensitive"}},
           "privacy": [{"model": "k-anonymity", "k": k}],
           "algorithm": {"name": "mondrian", **algorithm},
           "output": {"path": "out.csv"}}
    if audit is not None:
        cfg["audit"] = audit
    return cfg


def _adult_files(tmp: Path, frame: pd.DataFrame, hierarchies: dict, rows: int = 3000) -> None:
    """A seeded sample of Adult and its hierarchies as files a config names."""
    frame.sample(n=rows, random_state=1).to_csv(tmp / "adult.csv", sep=";", index=False)
    for q in ADULT_QI:
        write_hierarchy(hierarchies[q], tmp / f"h_{q}.csv")


def _adult_config(**audit: object) -> dict:
    """The README's Adult job (5-anonymity, distinct 3-diversity of occupation, Flash, 2 %
    suppression): its audit fails the inference attack."""
    cfg = {"input": {"path": "adult.csv", "separator": ";"},
           "attributes": {**{q: {"role": "quasi", "hierarchy": f"h_{q}.csv"} for q in ADULT_QI},
                          "occupation": {"role": "sensitive"}},
           "privacy": [{"model": "k-anonymity", "k": 5},
                       {"model": "l-diversity", "attribute": "occupation", "l": 3, "variant": "distinct"}],
           "algorithm": {"name": "flash", "max_suppression": 0.02},
           "output": {"path": "out.csv"}}
    if audit:
        cfg["audit"] = audit
    return cfg


def _plan(tmp: Path, cfg: dict):  # type: ignore[no-untyped-def]
    return plan_from_config(parse_config(copy.deepcopy(cfg)), config_dir=tmp)


def _files(tmp: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(tmp.iterdir()) if p.is_file()}


def _assert_sorted(fixes: list[Fix]) -> None:
    """Passing first; then the smallest change; then the least loss."""
    keys = [(not f.passes, f.size, math.inf if f.loss is None else f.loss) for f in fixes]
    assert keys == sorted(keys), [f.words for f in fixes]


def _applied_passes(tmp: Path, cfg: dict, fix: Fix) -> None:
    """The fix applied to the config, run whole by the runner: the verdict holds and the verifier agrees."""
    fixed = apply_fix(cfg, fix)
    result = run(_plan(tmp, fixed))
    assert result.summary["verdict"]["ok"], result.summary["verdict"]["failing"]
    assert result.verification.ok and result.summary["satisfied"]


# ------------------------------------------------------------------------------------------ the toy
def test_a_failing_risk_gets_the_k_that_passes_when_applied(tmp_path: Path) -> None:
    _toy(tmp_path)
    cfg = _toy_config(4, {**STRICT, "required": True})
    with pytest.raises(Exception, match="the audit fails"):  # control: the config as it is is refused
        run(_plan(tmp_path, cfg))
    before = _files(tmp_path)
    fixes = propose_fixes(_plan(tmp_path, cfg), max_tries=4)
    assert _files(tmp_path) == before  # in memory: no release, no temporary file
    best = fixes[0]
    assert best.passes and best.change == {"privacy.0.k": 10} and best.setting == "privacy.0.k: 10"
    assert best.highest_risk is not None and best.highest_risk <= 0.1
    assert best.words.startswith("k = 10: ") and "highest risk" in best.words and "loss" in best.words
    assert best.loss is not None and best.loss_change is not None and best.loss_change > 0  # a larger k costs
    _assert_sorted(fixes)
    _applied_passes(tmp_path, cfg, best)


def test_a_passing_run_gets_no_proposal(tmp_path: Path) -> None:
    _toy(tmp_path)
    cfg = _toy_config(10, STRICT)
    result = run(_plan(tmp_path, _toy_config(10, STRICT) | {"output": {}}))
    assert result.summary["verdict"]["ok"]
    assert propose_fixes(_plan(tmp_path, cfg)) == []
    assert propose_fixes(_plan(tmp_path, cfg), result=result) == []
    assert propose_fixes(_plan(tmp_path, cfg), result=result.summary) == []


def test_an_inference_failure_gets_l_or_t(tmp_path: Path) -> None:
    """The inference attack (the disease guessed from a record's class well beyond a baseline) →
    the disease's l-diversity or t-closeness added; the first passing one passes when applied."""
    _toy(tmp_path, n=120, seed=3)
    cfg = _toy_config(2, INFERENCE)
    plan = _plan(tmp_path, cfg)
    result = run(plan)
    assert not result.summary["verdict"]["ok"]
    fixes = propose_fixes(plan, result=result, max_tries=8)
    _assert_sorted(fixes)
    assert {f.lever for f in fixes} <= {"l:disease", "t:disease"}
    best = fixes[0]
    assert best.passes and list(best.change) == ["privacy.1"] and best.change["privacy.1"]["attribute"] == "disease"
    _applied_passes(tmp_path, cfg, best)


def test_models_that_cannot_be_met_get_more_suppression_or_another_algorithm(tmp_path: Path) -> None:
    """Fixed levels that leave most classes below k: more suppression allowed (only shares at least
    what the failed run would have suppressed), or Mondrian; the first passing one passes when applied."""
    _toy(tmp_path, n=200)
    fixed = {"algorithm": {"name": "fixed", "levels": {"age": 0, "zip": 0}}}
    cfg = _toy_config(3, {"attacks": []}) | fixed
    plan = _plan(tmp_path, cfg)
    fixes = propose_fixes(plan, max_tries=6)
    _assert_sorted(fixes)
    assert {f.lever for f in fixes} == {"algorithm"}  # 159 of 200 records would go: no suppression step is enough
    assert fixes[0].passes and fixes[0].change == {"algorithm": {"name": "mondrian"}}
    _applied_passes(tmp_path, cfg, fixes[0])
    # 10-year age bands: a few small classes, so some suppression is enough too
    banded = _toy_config(6, {"attacks": []}) | {"algorithm": {"name": "fixed", "levels": {"age": 1, "zip": 0}}}
    banded["attributes"]["age"]["hierarchy"] = {"builder": "intervals", "width": 10}
    fixes = propose_fixes(_plan(tmp_path, banded), max_tries=6)
    _assert_sorted(fixes)
    suppress = [f for f in fixes if f.lever == "suppression" and f.passes]
    assert suppress and list(suppress[0].change) == ["algorithm.max_suppression"]
    _applied_passes(tmp_path, banded, suppress[0])


def test_when_one_change_is_not_enough_the_closest_is_built_on(tmp_path: Path) -> None:
    """Mondrian meets the models but fails the attacks: the second round tries the attacks' levers
    on top of it (each change sets the algorithm and one more key)."""
    _toy(tmp_path, n=200)
    cfg = _toy_config(3, {"attacks": ["singling-out"]}) | {"algorithm": {"name": "fixed", "levels": {"age": 0,
                                                                                                      "zip": 0}}}
    fixes = propose_fixes(_plan(tmp_path, cfg), max_tries=6)
    _assert_sorted(fixes)
    second = [f for f in fixes if f.lever.startswith("algorithm+")]
    assert second and all(f.change["algorithm"]["name"] == "mondrian" and len(f.change) == 2 for f in second)
    assert fixes[0].passes and fixes[0] in second
    _applied_passes(tmp_path, cfg, fixes[0])


def test_same_plan_same_list(tmp_path: Path) -> None:
    _toy(tmp_path, n=120, seed=3)
    cfg = _toy_config(2, {"attacks": ["inference", "singling-out"], "thresholds": {"highest_risk": 0.2}})
    first = propose_fixes(_plan(tmp_path, cfg), max_tries=6)
    assert len(first) >= 2
    assert propose_fixes(_plan(tmp_path, cfg), max_tries=6) == first


def test_the_advice_reruns_are_reused_not_run_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's advice reran some changed configs already (``Result.reruns``); the fixes' trials of the
    same configs reuse them — fewer runs, the same list as from the summary alone (which has no reruns)."""
    import anonkit.fixes.trial as trial

    _toy(tmp_path, n=120, seed=3)
    cfg = _toy_config(2, INFERENCE)
    plan = _plan(tmp_path, cfg)
    result = run(plan)
    assert not result.summary["verdict"]["ok"] and result.reruns  # the advice reran its candidates
    runs: list[int] = []
    real = trial.anonymize_checked
    monkeypatch.setattr(trial, "anonymize_checked", lambda *a, **k: runs.append(1) or real(*a, **k))
    reused = propose_fixes(plan, result=result, max_tries=8)
    with_reuse = len(runs)
    runs.clear()
    fresh = propose_fixes(plan, result=result.summary, max_tries=8)
    assert reused == fresh and with_reuse < len(runs)  # the same list, from fewer runs
    assert set(result.reruns) and all(len(v) == 2 for v in result.reruns.values())


def test_an_algorithm_that_enforces_no_model_gets_no_model_change(tmp_path: Path) -> None:
    """PRAM enforces no model (the audit judges its release): raising k or adding l would change nothing,
    so the fixes refuse in one line before any run, and the verdict's advice reruns nothing and, with a
    model failing, names no audit threshold to accept (a model is not a threshold)."""
    _toy(tmp_path, n=120, seed=3)
    cfg = _toy_config(4, {"attacks": []}) | {"algorithm": {"name": "pram", "columns": ["zip"]}}
    plan = _plan(tmp_path, cfg)
    result = run(plan)
    assert not result.summary["verdict"]["ok"]  # 4-anonymity fails on the published (unchanged) ages
    advice = result.summary["verdict"]["advice"]
    assert advice["tried"] == [] and advice["key"] is None and not advice["holds"] and not result.reruns
    assert "enforces no privacy model" in advice["gives"] and "4-anonymity" in advice["gives"]
    with pytest.raises(InputError, match="pram enforces no privacy model") as info:
        propose_fixes(plan, result=result)
    assert info.value.key == "algorithm.name" and "\n" not in str(info.value)
    code, out, err = _cli("anonymize", str(_write(tmp_path, cfg)))
    assert code == 0 and "4-anonymity fails" in out and "no change tried: pram enforces no privacy model" in err


def test_max_tries_bounds_the_runs(tmp_path: Path) -> None:
    _toy(tmp_path, n=120, seed=3)
    cfg = _toy_config(2, INFERENCE)
    told: list[tuple[int, int, str]] = []
    fixes = propose_fixes(_plan(tmp_path, cfg), max_tries=2, progress=lambda d, t, w: told.append((d, t, w)))
    assert len(fixes) == 1  # the config itself, then one candidate
    assert [w for _d, _t, w in told][:2] == ["running the config as it is", f"trying {fixes[0].label}"]
    assert DEFAULT_MAX_TRIES == 12
    for bad in (0, -1, True, 2.5):
        with pytest.raises(InputError, match="max_tries"):
            propose_fixes(_plan(tmp_path, cfg), max_tries=bad)  # type: ignore[arg-type]


def test_ctrl_c_stops_the_search(tmp_path: Path) -> None:
    _toy(tmp_path)

    def interrupted(done: int, total: int, what: str) -> None:
        if done:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        propose_fixes(_plan(tmp_path, _toy_config(4, STRICT)), progress=interrupted)


def test_a_spark_plan_is_refused_in_one_line(tmp_path: Path) -> None:
    _toy(tmp_path)
    cfg = _toy_config(4, STRICT) | {"engine": "spark", "output": {}}
    with pytest.raises(InputError, match="on this machine") as exc:
        propose_fixes(_plan(tmp_path, cfg))
    assert exc.value.key == "engine"


# ------------------------------------------------------------------------------------------ apply_fix
def test_apply_fix_sets_appends_and_leaves_the_input_untouched() -> None:
    cfg = _toy_config(4)
    before = copy.deepcopy(cfg)
    out = apply_fix(cfg, {"privacy.0.k": 10, "algorithm.max_suppression": 0.05})
    assert cfg == before and out["privacy"][0]["k"] == 10 and out["algorithm"]["max_suppression"] == 0.05
    out = apply_fix(cfg, {"privacy.1": {"model": "t-closeness", "attribute": "disease", "t": 0.2}})
    assert len(out["privacy"]) == 2 and cfg == before
    fix = Fix(change={"privacy.0.k": 7}, words="k = 7", passes=True)
    assert apply_fix(cfg, fix)["privacy"][0]["k"] == 7
    for bad in ("privacy.3", "privacy.x.k", "input.path.deeper", "privacy..k"):
        with pytest.raises(InputError) as exc:
            apply_fix(cfg, {bad: 1})
        assert exc.value.key == bad
    assert cfg == before


def test_yaml_sections_paste_back_into_the_config() -> None:
    cfg = _toy_config(4)
    text = yaml_sections(cfg, {"privacy.0.k": 10})
    assert text.startswith("privacy:") and "{model: k-anonymity, k: 10}" in text
    assert {**cfg, **yaml.safe_load(text)} == apply_fix(cfg, {"privacy.0.k": 10})


# ------------------------------------------------------------------------------------------ Adult
def test_adult_inference_gets_a_change_that_passes(tmp_path: Path, adult) -> None:  # type: ignore[no-untyped-def]
    frame, hierarchies = adult
    _adult_files(tmp_path, frame, hierarchies)
    cfg = _adult_config()
    plan = _plan(tmp_path, cfg)
    result = run(plan)
    failing = [v["check"] for v in result.summary["verdict"]["failing"]]
    assert "inference attack risk" in failing  # the README job's known failure
    fixes = propose_fixes(plan, result=result, max_tries=8)
    _assert_sorted(fixes)
    passing = [f for f in fixes if f.passes]
    assert passing and all(f.figures["inference attack risk"] <= 0.1 for f in passing)
    assert all(f.lever in ("l:occupation", "t:occupation") for f in fixes)
    assert "inference risk" in passing[0].words
    _applied_passes(tmp_path, cfg, passing[0])


def test_adult9_highest_risk_gets_the_computed_k(tmp_path: Path, adult, adult9) -> None:  # type: ignore[no-untyped-def]
    """All nine Adult attributes as quasi-identifiers (no sensitive one): a highest-risk bar of 5 %
    over 2-anonymity gets k = 20, computed from the threshold (1/k ≤ 5 %) and tried first."""
    _frame, hierarchies = adult
    adult9.frame.sample(n=2000, random_state=2).to_csv(tmp_path / "adult.csv", sep=";", index=False)
    for q in adult9.qi:
        write_hierarchy(hierarchies[q], tmp_path / f"h_{q}.csv")
    cfg = {"input": {"path": "adult.csv", "separator": ";"},
           "attributes": {q: {"role": "quasi", "hierarchy": f"h_{q}.csv"} for q in adult9.qi},
           "privacy": [{"model": "k-anonymity", "k": 2}],
           "algorithm": {"name": "flash", "max_suppression": 0.05},
           "audit": {"attacks": ["singling-out"], "thresholds": {"highest_risk": 0.05}}}
    fixes = propose_fixes(_plan(tmp_path, cfg), max_tries=4)
    _assert_sorted(fixes)
    assert fixes[0].passes and fixes[0].change == {"privacy.0.k": 20} and fixes[0].step == 0
    _applied_passes(tmp_path, cfg, fixes[0])


# ------------------------------------------------------------------------------------------ the CLI
def _cli(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    return res.exit_code, res.stdout, res.stderr


def _write(tmp: Path, cfg: dict, name: str = "c.yaml") -> Path:
    path = tmp / name
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def _pasted(out: str) -> dict:
    """The YAML the CLI printed under "the first, as it reads in …", as a mapping."""
    lines = out.split("(paste over the section):\n", 1)[1].splitlines()
    block = [line[4:] for line in lines if line.startswith("    ")]
    return yaml.safe_load("\n".join(block))


def test_the_cli_prints_a_fix_to_paste_and_keeps_its_exit_code(tmp_path: Path) -> None:
    _toy(tmp_path)
    refused = _toy_config(4, {**STRICT, "required": True})
    code, out, err = _cli("anonymize", str(_write(tmp_path, refused)))
    assert code == 1 and "not anonymous" in err and not (tmp_path / "out.csv").exists()
    assert "to pass: set privacy.0.k: 10 (highest risk 10 %" in out
    assert "What to change (" in out and "tried by running" in out
    section = _pasted(out)
    assert section == {"privacy": [{"model": "k-anonymity", "k": 10}]}
    code, out, _err = _cli("anonymize", str(_write(tmp_path, refused)), "--no-fixes")
    assert code == 1 and "What to change" not in out  # skipped, the refusal as before
    code, out, err = _cli("anonymize", str(_write(tmp_path, {**refused, **section}, "fixed.yaml")))
    assert code == 0 and "every check holds" in out and "What to change" not in out  # pasted, it passes
    # a written release whose verdict fails: exit 0 as before, the same proposal printed
    code, out, _err = _cli("anonymize", str(_write(tmp_path, _toy_config(4, STRICT))))
    assert code == 0 and "do not publish as is" in out and "to pass: set privacy.0.k: 10" in out
    code, out, _err = _cli("anonymize", str(_write(tmp_path, _toy_config(4, STRICT))), "--no-fixes")
    assert code == 0 and "do not publish as is" in out and "What to change" not in out
    code, out, _err = _cli("anonymize", str(_write(tmp_path, _toy_config(4, STRICT))), "--json")
    assert code == 0 and "What to change" not in out  # one JSON object, nothing else


def test_the_cli_says_when_no_change_tried_passes(tmp_path: Path) -> None:
    """An average-risk bar no release of 60 records can meet (0.1 %: one class of all 60 is 1.7 %):
    the closest tries are printed, nothing to paste, the exit code stays 0."""
    _toy(tmp_path, n=60, seed=5)
    cfg = _toy_config(2, {"attacks": [], "thresholds": {"average_risk": 0.001}})
    code, out, _err = _cli("anonymize", str(_write(tmp_path, cfg)))
    assert code == 0 and "do not publish as is" in out
    assert "no change tried passes" in out and "still fails average risk" in out and "paste" not in out
