"""sdcMicro's survey risk in the audit, ``anonkit check`` and the report; the individual-risk criterion
(issue 28, items 1 and 2).

* the audit's survey section is :func:`anonkit.risk.survey_risk` and :func:`anonkit.risk.suda2` on the
  release's published quasi-identifier cells (a ``*`` cell is missing: a wildcard), with the release's
  published weights and renumbered households; a dropped household is said in a note; the verdict
  judges the highest individual risk against ``audit.thresholds.individual_risk``;
* ``anonkit check --weight/--household/--suda2`` reports the same figures for any table;
* the report has a "Survey risk (sdcMicro's measures)" section with one table and one figure;
* ``anonkit init`` suggests the weight and household roles; Anatomy carries the survey columns;
* the ``individual-risk`` criterion (once registered): its releases pass the verifier, which catches a
  tampered weight; its class risk is the library's per-record risk (hypothesis).

The refusals are the catalogue's ``tests/cases_survey_audit.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from anonkit import Schema
from anonkit.audit.inputs import AuditInputs
from anonkit.audit.run import audit
from anonkit.audit.survey import published_keys, record_risks, survey_figures
from anonkit.cli import app
from anonkit.config import DEFAULT_INDIVIDUAL_RISK, AuditThresholds
from anonkit.errors import InputError
from anonkit.models import KAnonymity
from anonkit.risk import suda2, survey_risk
from anonkit.start.roles import suggest_roles
from survey_toy import lay_out, read_out, survey_frame

cli = CliRunner()
QI = ["ZIPCode", "Age"]
#: a release of the toy: generalized cells, one suppressed record (all ``*``) and one suppressed cell
RELEASE = pd.DataFrame({
    "ZIPCode": ["476**", "476**", "476**", "479**", "479**", "479**", "*", "476**", "476**"],
    "Age": ["2*", "2*", "2*", ">=40", ">=40", ">=40", "*", "*", "3*"],
    "W": ["1.5", "3", "4.5", "6", "7.5", "9", "10.5", "12", "13.5"],
    "HH": ["1", "1", "2", "2", "3", "3", "4", "4", "5"],
    "Disease": ["flu"] * 9,
})


def _schema(household: str = "renumbered") -> Schema:
    return Schema.of(quasi=QI, sensitive=["Disease"], weight="W", household="HH", publish={"HH": household})


def _audit(release: pd.DataFrame, schema: Schema, **kw: object) -> dict:
    inputs = AuditInputs(schema=schema, original=release, release=release)
    return audit(inputs, models=[KAnonymity(2)], attacks=[], **kw)  # type: ignore[arg-type]


def _expected(release: pd.DataFrame, *, households: bool = True) -> object:
    keys = release[QI].replace("*", np.nan)
    return survey_risk(keys, QI, weights=release["W"].astype(float).to_numpy(),
                       households=release["HH"].to_numpy() if households else None)


# ------------------------------------------------------------------------------------------- audit
def test_the_audit_gives_sdcmicros_figures_on_the_published_cells() -> None:
    got = _audit(RELEASE, _schema())["risk"]["survey"]
    want = _expected(RELEASE)
    assert got["weight_column"] == "W" and got["household_column"] == "HH" and got["records"] == 9
    assert got["individual_risk"]["max"] == pytest.approx(want.risk.max())  # type: ignore[attr-defined]
    assert got["global_risk"] == pytest.approx(want.global_risk)  # type: ignore[attr-defined]
    assert got["expected_reidentifications"] == pytest.approx(want.expected_reidentifications)  # type: ignore
    assert got["household"]["expected_reidentifications"] == pytest.approx(
        want.household_expected_reidentifications)  # type: ignore[attr-defined]
    assert got["household"]["max"] == pytest.approx(want.household_risk.max())  # type: ignore[attr-defined]
    s = suda2(published_keys(RELEASE, QI), QI, dis_fraction=9 / RELEASE["W"].astype(float).sum())
    assert got["suda2"]["records_with_msu"] == int((s.score > 0).sum())
    assert got["suda2"]["dis_suda"]["max"] == pytest.approx(s.dis_score.max())
    assert got["suda2"]["dis_fraction"] == pytest.approx(9 / 67.5)
    assert sum(r["records"] for r in got["distribution"]) == pytest.approx(1.0)
    # the wildcard matters: reading "*" as a value of its own gives other frequencies
    as_value = survey_risk(RELEASE[QI], QI, weights=RELEASE["W"].astype(float).to_numpy())
    assert not np.allclose(as_value.fk, want.fk)  # type: ignore[attr-defined]


def test_the_verdict_judges_the_highest_individual_risk() -> None:
    high = _expected(RELEASE).risk.max()  # type: ignore[attr-defined]
    fails = _audit(RELEASE, _schema(), thresholds=AuditThresholds(individual_risk=high * 0.99))
    holds = _audit(RELEASE, _schema(), thresholds=AuditThresholds(individual_risk=min(1.0, high * 1.01)))
    pick = [v for v in fails["verdicts"] if v["check"] == "individual risk (sdcMicro)"]
    assert len(pick) == 1 and not pick[0]["holds"] and not fails["ok"]
    assert [v["holds"] for v in holds["verdicts"] if v["check"] == "individual risk (sdcMicro)"] == [True]
    assert fails["thresholds_from"]["individual_risk"] == "audit.thresholds.individual_risk"
    assert _audit(RELEASE, _schema())["thresholds"]["individual_risk"] == DEFAULT_INDIVIDUAL_RISK


def test_a_dropped_household_and_no_survey_role() -> None:
    release = RELEASE.drop(columns=["HH"])
    report = _audit(release, _schema("drop"))
    assert report["risk"]["survey"]["household"] is None
    assert any("household column 'HH' is not published" in n for n in report["notes"])
    assert report["risk"]["survey"]["individual_risk"]["max"] == pytest.approx(
        _expected(RELEASE, households=False).risk.max())  # type: ignore[attr-defined]
    # control: without a weight or household role there is no survey section and no such verdict
    plain = _audit(release, Schema.of(quasi=QI, sensitive=["Disease"], insensitive=["W"]))
    assert "survey" not in plain["risk"]
    assert not [v for v in plain["verdicts"] if "sdcMicro" in v["check"]]


def test_a_bad_published_weight_is_refused_in_one_line() -> None:
    bad = RELEASE.assign(W=["1.5", "abc", *RELEASE["W"][2:]])
    with pytest.raises(InputError, match="not a number >= 1") as e:
        _audit(bad, _schema())
    assert e.value.row == 2 and e.value.column == "W" and "\n" not in str(e.value)


def test_anonymize_audits_its_release_and_the_report_has_the_section(tmp_path: Path) -> None:
    lay_out(tmp_path)
    res = cli.invoke(app, ["anonymize", str(tmp_path / "c.yaml"), "--no-fixes", "--json",
                           "--report", str(tmp_path / "r.html")])
    assert res.exit_code == 0, res.stdout + res.stderr
    survey = json.loads(res.stdout)["audit"]["risk"]["survey"]
    out = read_out(tmp_path)
    np.testing.assert_allclose(sorted(record_risks(out, QI, "W")),
                               sorted(_expected(out).risk))  # type: ignore[attr-defined]
    assert survey["individual_risk"]["max"] == pytest.approx(max(record_risks(out, QI, "W")))
    html = (tmp_path / "r.html").read_text()
    assert "Survey risk (sdcMicro&#x27;s measures)" in html or "Survey risk (sdcMicro's measures)" in html
    assert 'id="fig-individual-risk"' in html and "expected re-identifications" in html
    # control: the same run without survey roles has no such section
    plain = tmp_path / "plain"
    plain.mkdir()
    lay_out(plain, {"W": {"role": "insensitive"}, "HH": {"role": "identifier"}})
    res = cli.invoke(app, ["anonymize", str(plain / "c.yaml"), "--no-fixes", "--report", str(plain / "r.html")])
    assert res.exit_code == 0, res.stdout + res.stderr
    assert "survey-risk" not in (plain / "r.html").read_text()


# ------------------------------------------------------------------------------------------- check
def test_check_reports_the_same_figures_for_any_table(tmp_path: Path) -> None:
    frame = survey_frame()
    frame.to_csv(tmp_path / "s.csv", sep=";", index=False)
    res = cli.invoke(app, ["check", str(tmp_path / "s.csv"), "--separator", ";", "--qi", "ZIPCode,Age",
                           "--weight", "W", "--household", "HH", "--suda2", "--json"])
    assert res.exit_code == 0, res.stdout + res.stderr
    got = json.loads(res.stdout)["survey"]
    want = survey_risk(frame, QI, weights=frame["W"].astype(float).to_numpy(), households="HH")
    assert got["expected_reidentifications"] == pytest.approx(want.expected_reidentifications)
    assert got["household"]["global_risk"] == pytest.approx(want.household_global_risk)
    assert got["sample_uniques"] == int((want.fk == 1).sum())
    s = suda2(frame, QI, dis_fraction=9 / frame["W"].astype(float).sum())
    assert got["suda2"]["attribute_contributions"][0]["percent"] == pytest.approx(
        max(s.attribute_contributions.values()))
    text = cli.invoke(app, ["check", str(tmp_path / "s.csv"), "--separator", ";", "--qi", "ZIPCode,Age",
                            "--weight", "W"])
    assert text.exit_code == 0 and "individual risk: highest" in text.stdout and "weights W" in text.stdout
    # control: without the flags, no survey figures
    plain = cli.invoke(app, ["check", str(tmp_path / "s.csv"), "--separator", ";", "--qi", "ZIPCode,Age", "--json"])
    assert "survey" not in json.loads(plain.stdout)


def test_without_weights_the_table_is_the_population() -> None:
    frame = survey_frame()
    got = survey_figures(frame.assign(ZIPCode="4****"), QI, household="HH")
    fk = frame.assign(ZIPCode="4****").groupby("Age")["Age"].transform("size").to_numpy()
    assert got["individual_risk"]["max"] == pytest.approx((1 / fk).max())
    assert got["weight_column"] is None and got["household"] is not None


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "*"]), st.sampled_from(["x", "y", "z", "*"]),
                          st.floats(1, 50, allow_nan=False), st.integers(0, 3)), min_size=1, max_size=12))
def test_the_figures_are_the_librarys_on_random_weighted_tables(rows: list[tuple[str, str, float, int]]) -> None:
    frame = pd.DataFrame(rows, columns=["A", "B", "W", "H"]).astype({"W": str, "H": str})
    got = survey_figures(frame, ["A", "B"], weight="W", household="H", threshold=0.3)
    keys = frame[["A", "B"]].replace("*", np.nan)
    want = survey_risk(keys, ["A", "B"], weights=frame["W"].astype(float).to_numpy(), households=frame["H"].to_numpy())
    assert got["expected_reidentifications"] == pytest.approx(want.expected_reidentifications)
    assert got["individual_risk"]["above"] == int((want.risk > 0.3).sum())
    assert got["household"]["max"] == pytest.approx(want.household_risk.max())  # type: ignore[union-attr]


# ----------------------------------------------------------------------------------- roles, carried
def test_init_suggests_the_weight_and_household_roles() -> None:
    frame = survey_frame().rename(columns={"W": "sampling_weight", "HH": "household"})
    roles = {a.name: a.role for a in suggest_roles(frame)}
    assert roles["sampling_weight"] == "weight" and roles["household"] == "household"
    whole = frame.assign(sampling_weight=[str(i) for i in range(1, 10)])  # whole numbers: a count, not a weight
    assert {a.name: a.role for a in suggest_roles(whole)}["sampling_weight"] != "weight"
    unnamed = survey_frame()  # a weight needs its name to say so ("W" does not); "HH" does
    got = {a.name: a.role for a in suggest_roles(unnamed)}
    assert got["W"] != "weight" and got["HH"] == "household"
    lone = survey_frame().rename(columns={"HH": "hid"}).assign(hid=[f"h{i}" for i in range(9)])
    assert {a.name: a.role for a in suggest_roles(lone)}["hid"] != "household"  # one record each: no household


def test_anatomy_carries_the_survey_columns(tmp_path: Path) -> None:
    lay_out(tmp_path, {"Disease": {"role": "insensitive"}},
            privacy=[{"model": "distinct-l-diversity", "attribute": "Salary", "l": 2}],
            algorithm={"name": "anatomy"})
    res = cli.invoke(app, ["anonymize", str(tmp_path / "c.yaml"), "--no-fixes"])
    assert res.exit_code == 0, res.stdout + res.stderr
    qit = read_out(tmp_path, "out-qit.csv")
    assert {"Name", "HH", "W", "Disease"} <= set(qit.columns)
    assert sorted(qit["W"], key=float) == sorted(survey_frame()["W"], key=float)
    assert not set(qit["HH"]) & set(survey_frame()["HH"])  # renumbered, not the input's ids
    # control: insensitive: drop leaves out the insensitive column, never the survey columns
    lay_out(tmp_path, {"Disease": {"role": "insensitive"}},
            privacy=[{"model": "distinct-l-diversity", "attribute": "Salary", "l": 2}],
            algorithm={"name": "anatomy", "insensitive": "drop"})
    assert cli.invoke(app, ["anonymize", str(tmp_path / "c.yaml"), "--no-fixes"]).exit_code == 0
    qit = read_out(tmp_path, "out-qit.csv")
    assert "Disease" not in qit.columns and {"Name", "HH", "W"} <= set(qit.columns)


# -------------------------------------------------------------------------------- the criterion
def _criterion_config(tmp: Path, algorithm: dict, threshold: float = 0.2) -> Path:
    extra = [{"model": "k-anonymity", "k": 2}] if algorithm["name"] != "flash" else []
    return lay_out(tmp, privacy=[{"model": "individual-risk", "threshold": threshold}, *extra], algorithm=algorithm)


@pytest.mark.parametrize("algorithm", [{"name": "flash"}, {"name": "mdav"}])
def test_the_criterions_releases_pass_the_verifier(tmp_path: Path, algorithm: dict) -> None:
    from anonkit.models.individual_risk import IndividualRisk
    from anonkit.verifier import verify

    _criterion_config(tmp_path, algorithm)
    res = cli.invoke(app, ["anonymize", str(tmp_path / "c.yaml"), "--no-fixes", "--json"])
    assert res.exit_code == 0, res.stdout + res.stderr
    summary = json.loads(res.stdout)
    assert summary["verified"] and summary["audit"]["thresholds_from"]["individual_risk"].startswith("the model")
    out = read_out(tmp_path)
    schema = Schema.of(quasi=QI, insensitive=["Name", "HH", "Salary", "Disease"], weight="W")
    assert verify(out, schema, [IndividualRisk(0.2)]).ok
    assert max(record_risks(out, QI, "W")) <= 0.2  # the library on the published cells agrees
    tampered = out.assign(W="1")  # every weight 1: the classes are their own population, risk 1/fk
    result = verify(tampered, schema, [IndividualRisk(0.2)])
    assert not result.ok and result.results[0].failing_records > 0
    with pytest.raises(InputError, match="published sampling weight"):
        verify(out.assign(W=["x", *out["W"][1:]]), schema, [IndividualRisk(0.2)])
    with pytest.raises(InputError, match="weight column, which is missing"):
        verify(out.drop(columns=["W"]), schema, [IndividualRisk(0.2)])


def test_the_criterion_without_a_weight_is_refused_before_any_work() -> None:
    from anonkit import anonymize
    from anonkit.models.individual_risk import IndividualRisk

    frame = survey_frame()
    schema = Schema.of(quasi=QI, sensitive=["Salary", "Disease"], identifier=["Name", "HH"], insensitive=["W"])
    with pytest.raises(InputError, match="needs a sampling weight"):
        anonymize(frame, schema, [IndividualRisk(0.5)], algorithm="flash")
    weighted = Schema.of(quasi=QI, sensitive=["Salary", "Disease"], identifier=["Name", "HH"], weight="W")
    assert anonymize(frame, weighted, [IndividualRisk(0.5)], algorithm="flash").verification.ok  # control


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("xyz"), st.floats(1, 40, allow_nan=False)),
                min_size=2, max_size=15))
def test_the_class_risk_is_the_librarys_record_risk(rows: list[tuple[str, str, float]]) -> None:
    from anonkit.models.individual_risk import IndividualRisk, attach_survey_weights
    from anonkit.risk import individual_risk, sample_frequencies
    from anonkit.table import Table

    frame = pd.DataFrame(rows, columns=["A", "B", "W"]).astype({"W": str})
    model = IndividualRisk(0.5)
    table = Table(frame, Schema.of(quasi=["A", "B"], weight="W"))
    attach_survey_weights(table, [model])
    d = table.distinct
    stats = table.stats(np.arange(d.size), d.size, models=[model])
    per_record = model.risks(stats)[d.inverse]
    want = individual_risk(sample_frequencies(frame, ["A", "B"], weights=frame["W"].astype(float).to_numpy()))
    np.testing.assert_allclose(per_record, want, rtol=1e-12)


def test_the_config_knows_the_threshold() -> None:
    assert AuditThresholds().individual_risk == DEFAULT_INDIVIDUAL_RISK == 0.15
    assert AuditThresholds(individual_risk=0.05).individual_risk == 0.05


def test_the_advice_adds_the_criterion_when_the_survey_verdict_fails(tmp_path: Path) -> None:
    lay_out(tmp_path, privacy=[{"model": "k-anonymity", "k": 2}], algorithm={"name": "flash"},
            audit={"thresholds": {"individual_risk": 0.05, "attack_risk": 1.0, "highest_risk": 1, "average_risk": 1}})
    res = cli.invoke(app, ["anonymize", str(tmp_path / "c.yaml"), "--no-fixes", "--json"])
    assert res.exit_code == 0, res.stdout + res.stderr
    verdict = json.loads(res.stdout)["verdict"]
    assert [f["check"] for f in verdict["failing"]] == ["individual risk (sdcMicro)"]
    advice = verdict["advice"]
    assert advice["holds"] and advice["value"] == {"model": "individual-risk", "threshold": 0.05}
