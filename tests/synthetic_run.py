"""A hand-made run for the HTML report's tests (test_report, test_report_browser): an audit, an
exploration table, an input whose values cannot occur by chance in a page with a release of labels
only, its summary and config, and the report built from them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import yaml

from anonkit.report import build_report

#: invented cities and diagnoses: no page text contains them unless it shows the input's values
CITIES = ["Quillfeather", "Brambleton", "Orrinwick", "Dunmarrow", "Fennick Hollow"]
DIAGNOSES = ["Xylocardia", "Pembrosis", "Glaverin syndrome", "Tarnix"]


def make_audit(*, ok: bool = True) -> dict:
    attack = {"name": "singling-out", "success": 0.04, "ci": [0.02, 0.07], "successes": 8, "targets": 200,
              "baseline": 0.01, "baseline_ci": [0.0, 0.03], "control": 0.03, "control_ci": [0.01, 0.06],
              "risk": 0.01, "risk_ci": [0.0, 0.05], "details": {"guess": "Orrinwick", "queries": 200},
              "note": "the attacker singles out one record with a predicate such as city = 'Dunmarrow'"}
    inference = {**attack, "name": "inference", "success": 0.3, "ci": [0.24, 0.37], "control": None,
                 "control_ci": None, "risk": 0.3 if not ok else 0.05, "risk_ci": [0.24, 0.37], "details": {},
                 "note": "guesses the diagnosis"}
    verdicts = [
        {"check": "prosecutor highest risk", "value": 0.2, "threshold": 0.2, "holds": True},
        {"check": "prosecutor average risk", "value": 0.03, "threshold": 0.05, "holds": True},
        {"check": "attack inference", "value": inference["risk"], "threshold": 0.1, "holds": ok},
    ]
    return {
        "thresholds": {"highest_risk": 0.2, "average_risk": 0.05, "population_uniqueness": 0.01, "attack_risk": 0.1},
        "population": {"size": None, "sampling_fraction": 1.0, "source": "sample"},
        "risk": {
            "prosecutor": {"highest": 0.2, "average": 0.03, "lowest": 0.005, "records_at_risk": 0.0},
            "journalist": {"highest": 0.2, "average": 0.03, "lowest": 0.005, "records_at_risk": 0.0},
            "marketer": {"average": 0.03},
            "sample_uniqueness": 0.0,
            "population_uniqueness": {"pitman": None, "zayatz": 0.0, "snb": 0.001, "dankar": 0.0, "model": "dankar"},
            "distribution": [{"from": 0.0, "to": 0.01, "records": 0.5}, {"from": 0.01, "to": 0.05, "records": 0.3},
                             {"from": 0.05, "to": 0.1, "records": 0.15}, {"from": 0.1, "to": 0.2, "records": 0.05}],
            "class_sizes": [{"size": 5, "classes": 2, "records": 10}, {"size": 12, "classes": 5, "records": 60},
                            {"size": 130, "classes": 1, "records": 130}],
        },
        "attacks": [attack, inference],
        "verdicts": verdicts,
        "ok": ok,
        "seconds": {"risk": 0.01, "singling-out": 0.2, "inference": 0.1},
    }


def make_explore() -> pd.DataFrame:
    rows = []
    for i, (algo, k) in enumerate([("flash", 2), ("flash", 5), ("mondrian", 2), ("mondrian", 5), ("flash", 50)]):
        ok = k != 50
        rows.append({"algorithm": algo, "k": k, "label": f"k={k}", "satisfied": ok, "verified": ok,
                     "meets": ok and k == 5, "pareto": ok and i in (1, 3), "loss": 0.1 * (i + 1) if ok else None,
                     "risk": 1 / k if ok else None, "suppressed": i, "classes": 10 - i, "seconds": 0.01 * i,
                     "message": "the models hold" if ok else "no release: value 'Dunmarrow' stays unique"})
    frame = pd.DataFrame(rows)
    frame.attrs.update(risk="prosecutor_highest", loss="loss",
                       thresholds={"highest_risk": 0.2, "average_risk": 0.05})
    return frame


def make_synthetic() -> dict:
    """An input with values that cannot occur by chance in a page, and a release of labels only."""
    rng = np.random.default_rng(7)
    n = 240
    city = rng.choice(CITIES, n)
    income = np.round(rng.uniform(40000, 90000, n), 2) + 0.01  # never a whole number
    age = rng.integers(18, 91, n)
    original = pd.DataFrame({
        "name": [f"Person-{i:04d}" for i in range(n)],
        "city": city, "income": [f"{x:.2f}" for x in income], "age": age.astype(str),
        "diagnosis": rng.choice(DIAGNOSES, n),
    })
    region = {"Quillfeather": "Region North", "Brambleton": "Region North", "Orrinwick": "Region South",
              "Dunmarrow": "Region South", "Fennick Hollow": "Region South"}
    release = pd.DataFrame({
        "city": [region[c] for c in city],
        "income": np.where(income < 65000, "[40000-65000[", "[65000-90000]"),
        "age": np.where(age < 50, "18-49", "50-90"),
        "diagnosis": original["diagnosis"],
    })
    config = {
        "input": {"path": "people.csv"},
        "attributes": {"name": {"role": "identifier"},
                       "city": {"role": "quasi", "hierarchy": {"builder": "nested", "tree": {
                           "Region North": ["Quillfeather", "Brambleton"],
                           "Region South": ["Orrinwick", "Dunmarrow", "Fennick Hollow"]}}},
                       "income": {"role": "quasi"}, "age": {"role": "quasi"}, "diagnosis": {"role": "sensitive"}},
        "privacy": [{"model": "k-anonymity", "k": 5}],
        "algorithm": {"name": "flash"},
        "output": {"path": "people-anonymized.csv"},
    }
    summary = {
        "algorithm": "flash", "satisfied": True, "verified": True, "message": "the models hold",
        "records": n, "released": n, "suppressed": 0, "classes": 8, "min_class_size": 5,
        "transformation": {"city": 1, "income": 1, "age": 1},
        "generalization": {
            "city": {"level": 1, "height": 2, "labels": 2, "examples": ["Region North", "Region South"],
                     "changed": 1.0},
            "income": {"level": 1, "height": 2, "labels": 2, "examples": ["[40000-65000["], "changed": 1.0},
            "age": {"level": 1, "height": 3, "labels": 2, "examples": ["18-49", "50-90"], "changed": 1.0},
        },
        "score": 0.5, "metric": {"name": "loss", "gs": 0.5},
        "metrics": {"gcp": 0.5, "loss": 0.5, "suppression_rate": 0.0, "prosecutor_highest": 0.2},
        "models": ["5-anonymity"],
        "verification": [{"model": "5-anonymity", "holds": True, "achieved": 5.0}],
        "warnings": ["column 'city': values that differ only by letter case are different values: "
                     "'Quillfeather', 'quillfeather'", "row 3: income '48213.76' is far from the others",
                     "Person-0007 appears twice"],
        "seed": 0, "seconds": 0.1,
        "run": {"config": "/data/people.yaml", "config_sha256": "ab" * 32, "input": "/data/people.csv",
                "input_sha256": "cd" * 32, "outputs": [{"path": "/data/people-anonymized.csv", "sha256": "ef" * 32,
                                                        "rows": n}],
                "versions": {"anonkit": "0.1.0", "python": "3.11", "numpy": "2", "pandas": "3"},
                "started": "2026-01-02T03:04:05+00:00"},
    }
    return {"original": original, "release": release, "summary": summary,
            "config_text": yaml.safe_dump(config, sort_keys=False)}


def synthetic_report(s: dict, **kw: object) -> str:
    """The page of run ``s`` (:func:`make_synthetic`) with :func:`make_audit` and :func:`make_explore`;
    ``kw`` replaces any of them."""
    args = {"original": s["original"], "release": s["release"], "config_text": s["config_text"],
            "audit": make_audit(), "explore": make_explore(), **kw}
    return build_report(s["summary"], **args)  # type: ignore[arg-type]
