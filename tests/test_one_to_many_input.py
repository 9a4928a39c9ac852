"""Data with several records per person (issue 12): the person column, categories, θ in the config,
``anonkit check --person/--categories``, and the one-line refusals of bad 1:M input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from tests.support import run_cli as run

from anonkit import Schema, Table, anonymize
from anonkit.config import parse_config
from anonkit.errors import InputError
from anonkit.models import KAnonymity, ThetaSensitivity
from anonkit.models.theta import full_variance
from anonkit.stats import DEFAULT_CATEGORY_ORDER
from anonkit.verifier import check

CATS = {"Cold": "Asymptomatic", "Flu": "Low", "Gastritis": "Mild", "Pneumonia": "High", "Cancer": "Severe"}


def frame_1m() -> pd.DataFrame:
    """Four persons, seven records; p2's rows agree, p3 has one row."""
    return pd.DataFrame({
        "pid": ["p1", "p1", "p2", "p2", "p2", "p3", "p4"],
        "age": ["30", "30", "41", "41", "41", "35", "52"],
        "zip": ["1300", "1300", "1400", "1400", "1400", "1300", "1400"],
        "disease": ["Flu", "Cancer", "Cold", "Pneumonia", "Flu", "Gastritis", "Cancer"],
    })


def schema_1m(**kw: object) -> Schema:
    return Schema.of(quasi=["age", "zip"], sensitive=["disease"], person="pid", categories={"disease": CATS}, **kw)


# ------------------------------------------------------------------------------- the person column
def test_the_person_column_is_dropped_and_counted() -> None:
    t = Table(frame_1m(), schema_1m())
    assert "pid" not in t.frame.columns and t.n == 7 and t.n_persons == 4
    assert t.class_people(np.zeros(7, dtype=np.int64), 1).tolist() == [4]
    assert t.class_people(np.array([0, 1, 1, 1, 1, 0, 1]), 2).tolist() == [2, 3]  # p1 spans both classes


def test_conflicting_quasi_identifiers_name_the_person_and_rows() -> None:
    f = frame_1m()
    f.loc[4, "zip"] = "1499"
    with pytest.raises(InputError) as e:
        Table(f, schema_1m())
    msg = str(e.value)
    assert "'p2'" in msg and "rows 3 and 5" in msg and "person_qi: first" in msg and "zip" in msg
    assert "\n" not in msg


def test_person_qi_first_takes_the_first_row_and_counts_persons() -> None:
    f = frame_1m()
    f.loc[4, "zip"] = "1499"
    f.loc[1, "age"] = "31"
    t = Table(f, schema_1m(), person_qi="first")
    assert t.reconciled == 2
    assert t.frame["zip"].tolist()[2:5] == ["1400"] * 3 and t.frame["age"].tolist()[:2] == ["30", "30"]


# ------------------------------------------------------------------------------- categories
def test_categories_give_codes_in_the_declared_order() -> None:
    t = Table(frame_1m(), schema_1m())
    d = t.domains["disease"]
    assert d.category_labels == DEFAULT_CATEGORY_ORDER
    assert {str(v): int(c) for v, c in zip(d.labels, d.category, strict=True)} == {
        "Cancer": 4, "Cold": 0, "Flu": 1, "Gastritis": 2, "Pneumonia": 3}
    t = Table(frame_1m(), schema_1m(category_order={"disease": list(reversed(DEFAULT_CATEGORY_ORDER))}))
    assert int(t.domains["disease"].category[list(t.domains["disease"].labels).index("Cancer")]) == 0


def test_an_unmapped_value_is_an_error_naming_it_and_its_row() -> None:
    cats = {k: v for k, v in CATS.items() if k != "Gastritis"}
    with pytest.raises(InputError) as e:
        Table(frame_1m(), Schema.of(quasi=["age", "zip"], sensitive=["disease"], person="pid",
                                    categories={"disease": cats}))
    assert "'Gastritis'" in str(e.value) and "row 6" in str(e.value) and "categories" in str(e.value)
    with pytest.raises(InputError, match="not in category_order"):
        Table(frame_1m(), schema_1m(category_order={"disease": ["Low", "High"]}))


# ------------------------------------------------------------------------------- θ-sensitivity
@pytest.mark.parametrize(("k", "expected"), [(2, 0.25), (3, 2 / 3), (4, 1.25), (5, 2.0), (6, 20 / 9), (10, 2.0),
                                             (7, 1.959184)])
def test_full_variance_is_the_spread_over_the_categories(k: int, expected: float) -> None:
    assert full_variance(k, 5) == pytest.approx(expected, abs=1e-6)
    if k <= 5:
        assert full_variance(k, 5) == pytest.approx((k * k - 1) / 12)


def test_the_verifier_judges_theta_from_the_release() -> None:
    from anonkit.verifier import verify

    published = pd.DataFrame({"zip": ["13**"] * 4 + ["14**"] * 4,
                              "disease": ["Cold", "Flu", "Pneumonia", "Cancer",
                                          "Flu", "Flu", "Gastritis", "Gastritis"]})
    schema = Schema.of(quasi=["zip"], sensitive=["disease"], categories={"disease": CATS})
    v = verify(published, schema, [ThetaSensitivity("disease", 4, 0.5)])
    # class 13**: codes {0,1,3,4} variance 2.5 ≥ 0.625; class 14**: {1,1,2,2} variance 0.25 < 0.625
    assert not v.ok and v.results[0].achieved == pytest.approx(0.25)
    v = verify(published, schema, [ThetaSensitivity("disease", 4, 0.2)])  # θ = 0.25: equality passes
    assert v.ok


def test_theta_without_categories_says_what_to_add() -> None:
    from anonkit.verifier import verify

    published = pd.DataFrame({"zip": ["1"] * 4, "disease": ["Cold", "Flu", "Pneumonia", "Cancer"]})
    with pytest.raises(InputError, match="needs categories"):
        verify(published, Schema.of(quasi=["zip"], sensitive=["disease"]), [ThetaSensitivity("disease", 2)])


def test_check_counts_persons_and_reports_theta() -> None:
    f = frame_1m().assign(zip=lambda d: d["zip"].str[:2] + "**").drop(columns="age")
    r = check(f, ["zip"], ["disease"], person="pid", categories={"disease": CATS})
    assert r["records"] == 7 and r["k"] == 2 and r["classes"] == 2  # {p1, p3} and {p2, p4}
    assert r["persons_in_several_classes"] == 0
    by_records = check(f, ["zip"], ["disease"])
    assert by_records["k"] == 3
    # class 13**: Flu, Cancer, Gastritis → codes 1, 4, 2: variance 14/9; class 14**: 0, 3, 1, 4 → 2.5
    assert r["sensitive"]["disease"]["theta_variance"] == pytest.approx(14 / 9)
    assert r["sensitive"]["disease"]["theta_lambda"] == pytest.approx((14 / 9) / 0.25)
    f.loc[1, "zip"] = "14**"
    assert check(f, ["zip"], ["disease"], person="pid")["persons_in_several_classes"] == 1


def test_anonkit_check_person_and_categories_on_the_command_line(tmp_path: Path) -> None:
    f = frame_1m().assign(zip=lambda d: d["zip"].str[:2] + "**")
    f.to_csv(tmp_path / "r.csv", index=False)
    pd.DataFrame({"disease": list(CATS), "category": list(CATS.values())}).to_csv(tmp_path / "c.csv", index=False)
    code, out, err = run("check", str(tmp_path / "r.csv"), "--qi", "zip", "--sensitive", "disease", "--person", "pid",
                         "--categories", f"disease={tmp_path / 'c.csv'}", "--json")
    assert code == 0, err
    r = json.loads(out)
    assert r["k"] == 2 and r["sensitive"]["disease"]["theta_variance"] == pytest.approx(14 / 9)
    code, _, err = run("check", str(tmp_path / "r.csv"), "--qi", "zip,pid", "--person", "pid")
    assert code == 2 and "person column" in err
    code, _, err = run("check", str(tmp_path / "r.csv"), "--qi", "zip", "--sensitive", "disease",
                       "--categories", "disease")
    assert code == 2 and "NAME=FILE" in err


# ------------------------------------------------------------------------------- the config
BASE = {
    "input": {"path": "d.csv"},
    "attributes": {"pid": {"role": "person"}, "age": {"role": "quasi"}, "zip": {"role": "quasi"},
                   "disease": {"role": "sensitive", "categories": CATS}},
    "privacy": [{"model": "theta-sensitivity", "attribute": "disease", "k": 2, "lambda": 0.5}],
}


def test_config_theta_model_and_categories() -> None:
    c = parse_config(BASE)
    assert c.models() == [ThetaSensitivity("disease", 2, 0.5)]
    assert c.attributes["disease"].categories == CATS and c.input.person_qi == "error"


@pytest.mark.parametrize(("patch", "words"), [
    ({"attributes": {"age": {"role": "quasi", "categories": CATS}}}, "sensitive attribute only"),
    ({"attributes": {"disease": {"role": "sensitive", "category_order": ["Low"]}}}, "needs 'categories'"),
    ({"attributes": {"disease": {"role": "sensitive", "categories": CATS, "category_order": ["Low", "Low"]}}},
     "twice"),
    ({"attributes": {"disease": {"role": "sensitive", "categories": {"Flu": ["Low"]}}}}, "must be a name"),
    ({"privacy": [{"model": "theta-sensitivity", "attribute": "disease", "k": 2, "lambda": 1.5}]}, "privacy.0.lambda"),
    ({"privacy": [{"model": "theta-sensitivity", "attribute": "disease", "k": 0}]}, "privacy.0.k"),
    ({"input": {"path": "d.csv", "person_qi": "last"}}, "input.person_qi"),
])
def test_config_errors_name_the_key(patch: dict, words: str) -> None:
    data = json.loads(json.dumps(BASE))
    for key, value in patch.items():
        if key == "attributes":
            data["attributes"].update(value)
        else:
            data[key] = value
    with pytest.raises(InputError) as e:
        parse_config(data)
    assert words in str(e.value) and "\n" not in str(e.value)


def _write(tmp_path: Path, config: dict, frame: pd.DataFrame | None = None) -> Path:
    (frame if frame is not None else frame_1m()).to_csv(tmp_path / "d.csv", index=False)
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_categories_from_a_file_and_its_errors(tmp_path: Path) -> None:
    from anonkit.io.categories import read_categories

    (tmp_path / "cats.csv").write_text("disease,category\n" + "".join(f"{v},{c}\n" for v, c in CATS.items()))
    assert read_categories(tmp_path / "cats.csv") == CATS
    (tmp_path / "bad.csv").write_text("disease,category\nFlu,Low\nFlu,High\n")
    with pytest.raises(InputError, match=r"listed twice.*row 3"):
        read_categories(tmp_path / "bad.csv")
    (tmp_path / "three.csv").write_text("a,b,c\nFlu,Low,x\n")
    with pytest.raises(InputError, match="two columns"):
        read_categories(tmp_path / "three.csv")
    (tmp_path / "empty.csv").write_text("a,b\nFlu,\n")
    with pytest.raises(InputError, match="empty"):
        read_categories(tmp_path / "empty.csv")


def test_k_larger_than_the_persons_is_refused() -> None:
    with pytest.raises(InputError) as e:
        anonymize(frame_1m(), schema_1m(), [KAnonymity(5)], algorithm="angelization")
    assert "5 persons" in str(e.value) and "only 4" in str(e.value)


def test_a_one_to_many_algorithm_without_a_person_column_says_what_to_add() -> None:
    schema = Schema.of(quasi=["age", "zip"], sensitive=["disease"], identifier=["pid"], categories={"disease": CATS})
    with pytest.raises(InputError) as e:
        anonymize(frame_1m(), schema, [KAnonymity(2)], algorithm="angelization")
    assert "role: person" in str(e.value)


def test_the_cli_refuses_conflicting_person_rows_before_any_work(tmp_path: Path) -> None:
    f = frame_1m()
    f.loc[4, "age"] = "42"
    path = _write(tmp_path, {**BASE, "algorithm": {"name": "angelization"}, "output": {"path": "out.csv"}}, f)
    code, _, err = run("anonymize", str(path))
    assert code == 2 and "'p2'" in err and "rows 3 and 5" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out-qt.csv").exists()


# ------------------------------------------------------------------------------- the CLI end to end
ROOT = Path(__file__).resolve().parents[1]


def _example(tmp_path: Path, **algorithm: object) -> Path:
    import shutil

    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    path = tmp_path / "examples" / "one-to-many.yaml"
    config = yaml.safe_load(path.read_text())
    config["algorithm"].update(algorithm)
    path.write_text(yaml.safe_dump(config))
    return path


def test_noise_records_go_to_a_private_manifest_beside_the_output(tmp_path: Path) -> None:
    path = _example(tmp_path, repair="noise")
    code, out, err = run("anonymize", str(path), "--json")
    assert code == 0, err
    s = json.loads(out)
    manifest = Path(s["manifest"])
    assert manifest.name == "one-to-many-anonymized.fakes.csv" and manifest.exists()
    fakes = pd.read_csv(manifest)
    noise = s["notes"]["noise_records"]
    assert noise > 0 and (fakes["table"] == "qt").sum() == noise and (fakes["table"] == "st").sum() == noise
    qt = pd.read_csv(tmp_path / "examples" / "one-to-many-anonymized-qt.csv")
    assert len(qt) == s["persons"] + noise and "person" not in qt.columns
    assert s["one_to_many"]["record_intersection"]["breached"] == 0 and s["min_class_size"] >= 4


def test_noise_with_a_database_output_needs_a_manifest_file_before_any_work(tmp_path: Path) -> None:
    path = _example(tmp_path, repair="noise")
    config = yaml.safe_load(path.read_text())
    config["output"] = {"path": str(tmp_path / "out.sqlite"), "table": "release"}
    path.write_text(yaml.safe_dump(config))
    code, _, err = run("anonymize", str(path))
    assert code == 2 and "output.manifest" in err and not (tmp_path / "out.sqlite").exists()
    config["output"]["manifest"] = str(tmp_path / "fakes.csv")
    path.write_text(yaml.safe_dump(config))
    code, out, err = run("anonymize", str(path), "--json")
    assert code == 0, err
    db = tmp_path / "out.sqlite"
    assert json.loads(out)["output"] == [f"{db}#release_qt", f"{db}#release_st"]
    assert (tmp_path / "fakes.csv").exists()


def test_history_off_publishes_only_the_representatives(tmp_path: Path) -> None:
    path = _example(tmp_path, publish_history=False)
    code, out, err = run("anonymize", str(path), "--json")
    assert code == 0, err
    s = json.loads(out)
    st = pd.read_csv(tmp_path / "examples" / "one-to-many-anonymized-st.csv")
    assert int(st["count"].sum()) == s["persons"] == 1000
