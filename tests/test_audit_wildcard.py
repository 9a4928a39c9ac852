"""The audit reads a local-suppression release with wildcard semantics (a ``*`` cell matches any value,
sdcMicro's reading, the verifier's count) and a kl-diversity per-person table by its transactions
(issue 28 item 4).

The hand table (quasi-identifiers A, B; sensitive S), worked by hand::

    row  A   B   S   compatible rows   fk   S among them
    1    a1  b1  x   1 2 6             3    x y x
    2    a1  *   y   1 2 3 6           4    x y x x
    3    *   b2  x   2 3 4 5           4    y x z y
    4    a2  b2  z   3 4 5             3    x z y
    5    a2  b2  y   3 4 5             3    x z y
    6    a1  b1  x   1 2 6             3    x y x

so 3-anonymity holds (fk ≥ 3), distinct 2-diversity holds (2 values at least), the highest prosecutor
risk is 1/3 and the average (1/3·4 + 1/4·2)/6 = 11/36. Read with ``*`` as a value, the classes are
{1,6}, {2}, {3}, {4,5}: k = 1.
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

from anonkit import Schema, anonymize
from anonkit._verify_wildcard import wildcard_counts
from anonkit.algorithms.partition import kl_diversity
from anonkit.algorithms.registry import get
from anonkit.analytics.transactions import ROOT, SEPARATOR, transaction_table
from anonkit.analytics.wildcard import compatible_pairs, wildcard_table
from anonkit.audit.inputs import AuditInputs, release_reading
from anonkit.audit.run import audit
from anonkit.cli import app
from anonkit.config import AuditThresholds
from anonkit.errors import InputError
from anonkit.models import DistinctLDiversity, KAnonymity

DATA = Path(__file__).resolve().parent / "data"
HAND = pd.DataFrame({"A": ["a1", "a1", "*", "a2", "a2", "a1"], "B": ["b1", "*", "b2", "b2", "b2", "b1"],
                     "S": ["x", "y", "x", "z", "y", "x"]})
#: the input the hand release was made from (the suppressed cells' true values)
HAND_INPUT = pd.DataFrame({"A": ["a1", "a1", "a2", "a2", "a2", "a1"], "B": ["b1", "b2", "b2", "b2", "b2", "b1"],
                           "S": ["x", "y", "x", "z", "y", "x"]})
SCHEMA = Schema.of(quasi=["A", "B"], sensitive=["S"], types={"A": "categorical", "B": "categorical",
                                                             "S": "categorical"})
MODELS = [KAnonymity(3), DistinctLDiversity("S", 2)]
LOOSE = AuditThresholds(highest_risk=1.0, average_risk=1.0, attack_risk=1.0)
CLASS_ATTACKS = ["homogeneity", "similarity", "skewness"]


def _audit(release: pd.DataFrame, wildcard: str | None = "*") -> dict:
    inputs = AuditInputs(schema=SCHEMA, original=HAND_INPUT, release=release, wildcard=wildcard)
    return audit(inputs, models=MODELS, thresholds=LOOSE, attacks=CLASS_ATTACKS)


# ------------------------------------------------------------------------------------------ by hand
def test_compatible_counts_by_hand() -> None:
    published = wildcard_table(HAND, SCHEMA, reference={"S": HAND_INPUT["S"]})
    per_row = published.compatible[published.row_class]
    assert per_row.tolist() == [3, 4, 4, 3, 3, 3]
    assert per_row.tolist() == wildcard_counts(HAND[["A", "B"]], "*")[0].tolist()  # the verifier's count
    assert published.sizes.tolist() == [2, 1, 1, 2]  # rows per pattern: (a1,b1) (a1,*) (*,b2) (a2,b2)
    labels = list(published.domain("S").labels)
    hist = published.histogram("S")[published.row_class]
    assert {lab: hist[2, labels.index(lab)] for lab in labels} == {"x": 1, "y": 2, "z": 1}  # row 3: y x z y
    assert published.value_totals("S").tolist() == [3, 2, 1]  # the release's own counts, not the overlaps


def test_compatible_rows_are_counted_within_strata() -> None:
    """With strata G = g1 g1 g1 g2 g2 g1 (sdcMicro's strataVars, the algorithm's ``strata`` option), a
    row is compatible only within its stratum: row 3 (*,b2,g1) keeps 2 and 3; rows 4, 5 only each other."""
    frame = HAND.assign(G=["g1", "g1", "g1", "g2", "g2", "g1"])
    published = wildcard_table(frame, SCHEMA, strata=["G"])
    assert published.compatible[published.row_class].tolist() == [3, 4, 2, 2, 2, 3]
    assert release_reading(get("local-suppression"), {"strata": ["G"]})["strata"] == ("G",)
    assert release_reading(get("flash"), {"strata": ["G"]})["strata"] == ()
    with pytest.raises(InputError, match="stratum column"):
        wildcard_table(HAND, SCHEMA, strata=["G"])


def test_audit_judges_the_hand_release_on_compatible_rows() -> None:
    report = _audit(HAND)
    models = {m["model"]: m for m in report["models"]}
    k = models["3-anonymity (suppressed cells match any value)"]
    assert (k["holds"], k["achieved"], k["failing_records"]) == (True, 3.0, 0)
    assert next(m for name, m in models.items() if name.startswith("distinct"))["achieved"] == 2.0
    risk = report["risk"]["prosecutor"]
    assert risk["highest"] == pytest.approx(1 / 3) and risk["average"] == pytest.approx(11 / 36)
    assert report["risk"]["sample_uniqueness"] == 0.0
    assert report["risk"]["class_sizes"] == [{"size": 3, "classes": 2, "records": 4},
                                             {"size": 4, "classes": 2, "records": 2}]
    homogeneity = next(a for a in report["attacks"] if a["name"] == "homogeneity")
    assert homogeneity["risk"] == 0.0  # no compatible set publishes one value of S
    assert any("match any value" in n for n in report["notes"])


def test_journalist_risk_counts_the_population_records_a_row_covers() -> None:
    """With the input as the population table, a published row's journalist count is the population
    records its cells cover (a ``*`` covers any value): (a1,b1) 2, (a1,*) 3, (*,b2) 4, (a2,b2) 3 — row 2's
    true B is b2, so (a1,b1) has 2 true candidates although fk = 3 (the caution the docs state)."""
    inputs = AuditInputs(schema=SCHEMA, original=HAND_INPUT, release=HAND, population_table=HAND_INPUT,
                         wildcard="*")
    journalist = audit(inputs, models=MODELS, thresholds=LOOSE, attacks=[])["risk"]["journalist"]
    assert journalist["highest"] == pytest.approx(1 / 2)
    assert journalist["average"] == pytest.approx((2 / 2 + 1 / 3 + 1 / 4 + 2 / 3) / 6)


def test_star_read_as_a_value_without_the_declaration() -> None:
    """Control: the same rows read without the wildcard (an algorithm that does not suppress cells):
    the exact classes {1,6} {2} {3} {4,5} fail 3-anonymity, and a note says ``*`` is read as a value."""
    report = _audit(HAND, wildcard=None)
    k = report["models"][0]
    assert (k["holds"], k["achieved"]) == (False, 1.0)
    assert report["risk"]["prosecutor"]["highest"] == 1.0
    assert any("read as a value of its own" in n for n in report["notes"])


def test_a_tampered_cell_is_caught() -> None:
    """Row 2's suppressed B published as b3: (a1,b3) is compatible with itself only and (a1,b1) with
    rows 1 and 6, so 3-anonymity fails for rows 1, 2 and 6."""
    tampered = HAND.copy()
    tampered.loc[1, "B"] = "b3"
    k = _audit(tampered)["models"][0]
    assert (k["holds"], k["achieved"], k["failing_records"]) == (False, 1.0, 3)
    assert not _audit(tampered)["ok"]


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("ab*"), st.sampled_from("xy*"), st.sampled_from("uv*"),
                          st.sampled_from("pq")), min_size=1, max_size=12))
def test_compatible_counts_and_histograms_match_a_brute_force(rows: list[tuple[str, str, str, str]]) -> None:
    frame = pd.DataFrame(rows, columns=["A", "B", "C", "S"])
    schema = Schema.of(quasi=["A", "B", "C"], sensitive=["S"], types=dict.fromkeys("ABCS", "categorical"))
    published = wildcard_table(frame, schema)
    cells = frame[["A", "B", "C"]].to_numpy()
    match = np.array([[all(x == y or "*" in (x, y) for x, y in zip(r, o, strict=True)) for o in cells]
                      for r in cells])  # the n × n brute force, in the test only
    assert published.compatible[published.row_class].tolist() == match.sum(axis=1).tolist()
    labels = list(published.domain("S").labels)
    want = np.array([[np.sum(match[i] & (frame["S"].to_numpy() == lab)) for lab in labels] for i in range(len(frame))])
    assert np.array_equal(published.histogram("S")[published.row_class], want)
    a, b = compatible_pairs(np.array([[0, -1], [0, 1], [1, -1]]))
    assert sorted(zip(a.tolist(), b.tolist(), strict=True)) == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 2)]


# ------------------------------------------------------------------------------------------ the declaration
def test_the_reading_comes_from_the_algorithms_declaration() -> None:
    plain = {"wildcard": None, "transactions": False, "strata": (), "nearest": False}
    assert release_reading(get("local-suppression")) == {**plain, "wildcard": "*"}
    assert release_reading(get("kl-diversity")) == {**plain, "transactions": True}
    for name in ("flash", "mondrian", "anatomy", "angelization"):
        assert release_reading(get(name)) == plain, name
    assert release_reading(get("pram")) == {**plain, "nearest": True}  # perturbed: nearest-neighbour attacks
    assert release_reading(None) == plain
    assert (SEPARATOR, ROOT) == (kl_diversity.SEPARATOR, kl_diversity.ROOT)  # the published form, read back


# ------------------------------------------------------------------------------------------ the CLI
def _suppression_job(tmp: Path) -> Path:
    for f in DATA.glob("test2*.csv"):
        (tmp / f.name).write_bytes(f.read_bytes())
    (tmp / "c.yaml").write_text(
        "input: {path: test2.csv, separator: ';'}\n"
        "attributes:\n"
        "  ZIPCode: {role: quasi, type: categorical}\n"
        "  Age: {role: quasi, hierarchy: test2_hierarchy_Age.csv}\n"
        "  Salary: {role: insensitive}\n"
        "  Disease: {role: sensitive, hierarchy: test2_hierarchy_Disease.csv}\n"
        "privacy: [{model: k-anonymity, k: 2}]\n"
        "algorithm: {name: local-suppression}\n"
        "output: {path: out.csv, separator: ';'}\n")
    return tmp / "c.yaml"


@pytest.fixture(scope="module")
def suppression_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    tmp = tmp_path_factory.mktemp("suppression")
    config = _suppression_job(tmp)
    run = CliRunner().invoke(app, ["anonymize", str(config), "--json", "--no-fixes"])
    assert run.exit_code in (0, 1), run.output
    return config, json.loads(run.stdout[run.stdout.index("{"):])


def _k_check(verdicts: list[dict]) -> dict:
    return next(v for v in verdicts if v["kind"] == "model" and "anonymity" in v["check"])


def test_a_local_suppression_run_meets_k_in_its_audit(suppression_run: tuple[Path, dict]) -> None:
    """The run's own audit agrees with the verifier: 2-anonymity holds with wildcards, no record's
    prosecutor risk exceeds 1/2 (before this fix: k = 1 and 100 %)."""
    _, summary = suppression_run
    report = summary["audit"]
    k = _k_check(report["verdicts"])
    assert k["holds"] and k["value"] == 2.0 and "match any value" in k["check"]
    assert report["risk"]["prosecutor"]["highest"] <= 0.5 and report["risk"]["wildcard"] == "*"
    failing = {v["check"] for v in report["verdicts"] if not v["holds"]}
    assert not any("anonymity" in c or "prosecutor" in c or "homogeneity" in c for c in failing), failing


def test_anonkit_audit_on_the_written_file_reads_it_the_same_way(suppression_run: tuple[Path, dict]) -> None:
    config, summary = suppression_run
    out = config.parent / "out.csv"
    res = CliRunner().invoke(app, ["audit", str(out), "--config", str(config), "--json"])
    assert res.exit_code in (0, 1), res.output
    report = json.loads(res.stdout[res.stdout.index("{"):])
    assert report["models"] == summary["audit"]["models"]
    assert report["risk"]["prosecutor"] == summary["audit"]["risk"]["prosecutor"]
    # control: one suppressed cell replaced by a value no other row has — the record is alone, k fails
    text = out.read_text().splitlines()
    row = next(i for i, line in enumerate(text) if i and line.split(";")[1] == "*" and line.split(";")[0] != "*")
    cells = text[row].split(";")
    cells[1] = "99"
    text[row] = ";".join(cells)
    tampered = config.parent / "tampered.csv"
    tampered.write_text("\n".join(text) + "\n")
    res = CliRunner().invoke(app, ["audit", str(tampered), "--config", str(config), "--json"])
    assert res.exit_code == 1, res.output
    bad = json.loads(res.stdout[res.stdout.index("{"):])
    assert not _k_check(bad["verdicts"])["holds"] and _k_check(bad["verdicts"])["value"] == 1.0


# ------------------------------------------------------------------------------------------ kl-diversity
PERSONS = [("P1", 20, ["Flu"]), ("P2", 21, ["Flu"]), ("P3", 22, ["Cold"]), ("P4", 23, ["Cold"]),
           ("P5", 30, ["Flu", "Cancer"]), ("P6", 31, ["Flu", "HIV"]), ("P7", 32, ["Cancer"]), ("P8", 33, ["HIV"]),
           ("P9", 34, ["Cold", "Cancer"]), ("P10", 35, ["Flu", "Cancer"])]
CATS = {"Flu": "Low", "Cold": "Low", "Cancer": "Severe", "HIV": "Severe"}


def _persons_frame() -> pd.DataFrame:
    return pd.DataFrame([(p, str(a), d) for p, a, ds in PERSONS for d in ds], columns=["person", "age", "diagnosis"])


def _kl_job(tmp: Path) -> Path:
    _persons_frame().to_csv(tmp / "d.csv", index=False)
    cats = ", ".join(f"{v}: {c}" for v, c in CATS.items())
    (tmp / "c.yaml").write_text(
        "input: {path: d.csv}\n"
        "attributes:\n"
        "  person: {role: person}\n"
        "  age: {role: quasi, type: numeric}\n"
        f"  diagnosis: {{role: sensitive, categories: {{{cats}}}}}\n"
        "privacy: [{model: k-anonymity, k: 2}]\n"
        "algorithm: {name: kl-diversity, l: 2}\n"
        "output: {path: out.csv}\n")
    return tmp / "c.yaml"


def test_a_kl_diversity_run_passes_its_audit_and_anonkit_audit_reads_its_file(tmp_path: Path) -> None:
    """Before this fix every kl-diversity run failed at its audit ('sensitive value not in the reference
    data', the ``{Low;Cancer}`` cells). The models are judged as the verifier judges them."""
    config = _kl_job(tmp_path)
    run = CliRunner().invoke(app, ["anonymize", str(config), "--json", "--no-fixes"])
    assert run.exit_code == 0, run.output
    summary = json.loads(run.stdout[run.stdout.index("{"):])
    assert summary["audit"]["models"] and all(m["holds"] for m in summary["audit"]["models"])
    res = CliRunner().invoke(app, ["audit", str(tmp_path / "out.csv"), "--config", str(config), "--json"])
    assert res.exit_code in (0, 1), res.output
    report = json.loads(res.stdout[res.stdout.index("{"):])
    # the config's model, judged alike (the run also judges what the algorithm implies: frequency l-diversity…)
    assert report["models"] and all(m in summary["audit"]["models"] for m in report["models"])
    names = {a["name"] for a in report["attacks"]}
    assert {"homogeneity", "similarity", "skewness"} <= names and "inference" not in names  # a set is no guess
    assert any("inference is not run" in n for n in report["notes"])
    # a tampered transaction naming something that is neither a value, a category nor '*': one line, exit 2
    out = (tmp_path / "out.csv").read_text().replace("{Cold}", "{Cold;Measles}", 1)
    (tmp_path / "bad.csv").write_text(out)
    res = CliRunner().invoke(app, ["audit", str(tmp_path / "bad.csv"), "--config", str(config)])
    assert res.exit_code == 2 and "Measles" in res.output and "neither a value" in res.output, res.output
    assert "Traceback" not in res.output


def test_transactions_recount_the_releases_own_sensitive_histogram() -> None:
    """The histogram the audit reads from the published text equals ``Release.sensitive_histogram``,
    class by class (classes matched by their published labels)."""
    frame = _persons_frame()
    schema = Schema.of(person="person", quasi=["age"], sensitive=["diagnosis"], types={"age": "numeric"})
    schema["diagnosis"].categories = CATS
    result = anonymize(frame, schema, [KAnonymity(2)], algorithm="kl-diversity", l=2)
    release = result.release
    table = release.tables["persons"]
    published = transaction_table(table, schema, reference={"diagnosis": frame["diagnosis"]})
    hist = published.histogram("diagnosis")
    assert list(published.domain("diagnosis").labels) == list(release.table.domains["diagnosis"].labels)
    first = {c: i for i, c in reversed(list(enumerate(published.row_class)))}
    labels = {str(release.class_labels(0)[c]): c for c in range(release.n_classes)}
    for cls, row in first.items():
        mine = labels[str(table["age"].iloc[row])]
        assert np.allclose(hist[cls], release.sensitive_histogram[mine]), (cls, mine)
    with pytest.raises(InputError, match="is not a set"):
        transaction_table(table.assign(diagnosis="Flu"), schema, reference={"diagnosis": frame["diagnosis"]})
