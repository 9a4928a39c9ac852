"""End-to-end: the CLI and the config, on the bundled examples and on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from anonkit.config import load_config, parse_config
from anonkit.errors import InputError
from support import ROOT, run_cli, toy_config, toy_dir

run = run_cli


@pytest.fixture()
def toy(tmp_path: Path) -> Path:
    """The t-closeness paper's table with its hierarchies, and a config next to them."""
    config = toy_config(
        privacy=[{"model": "k-anonymity", "k": 3},
                 {"model": "t-closeness", "attribute": "Salary", "t": 0.4, "distance": "ordered"}],
        algorithm={"name": "fixed", "levels": {"ZIPCode": 3, "Age": 1}},
    )
    config["attributes"]["Salary"]["type"] = "numeric"
    return toy_dir(tmp_path, config)


def test_anonymize_json_summary(toy: Path) -> None:
    code, out, _ = run("anonymize", str(toy / "c.yaml"), "--json")
    assert code == 0, out
    s = json.loads(out)
    for key in ("algorithm", "records", "released", "suppressed", "classes", "min_class_size", "transformation",
                "metrics", "seconds"):
        assert key in s
    assert s["algorithm"] == "fixed"
    assert s["records"] == 9 and s["released"] + s["suppressed"] == 9
    assert s["transformation"] == {"ZIPCode": 3, "Age": 1}
    assert s["min_class_size"] >= 3
    assert s["verified"] is True
    released = pd.read_csv(toy / "out.csv", sep=";", dtype=str)
    assert len(released) == s["released"]
    assert set(released["ZIPCode"]) <= {"47***"}


def test_anonymize_is_deterministic_and_seeded(toy: Path) -> None:
    run("anonymize", str(toy / "c.yaml"), "--json", "--output", str(toy / "a.csv"))
    run("anonymize", str(toy / "c.yaml"), "--json", "--output", str(toy / "b.csv"))
    run("anonymize", str(toy / "c.yaml"), "--json", "--output", str(toy / "c.csv"), "--seed", "7")
    a, b, c = ((toy / f).read_bytes() for f in ("a.csv", "b.csv", "c.csv"))
    assert a == b
    assert a != c and sorted(a.splitlines()) == sorted(c.splitlines())


def test_unsatisfiable_exits_1_and_writes_nothing(toy: Path) -> None:
    cfg = yaml.safe_load((toy / "c.yaml").read_text())
    cfg["algorithm"]["levels"] = {"ZIPCode": 0, "Age": 0}
    (toy / "c.yaml").write_text(yaml.safe_dump(cfg))
    code, out, _ = run("anonymize", str(toy / "c.yaml"), "--json")
    assert code == 1
    assert json.loads(out)["satisfied"] is False
    assert not (toy / "out.csv").exists()


def test_human_output(toy: Path) -> None:
    code, out, _ = run("anonymize", str(toy / "c.yaml"))
    assert code == 0
    for group in ("Privacy", "Utility", "Run"):
        assert group in out
    assert "ZIPCode →" in out and "47***" in out and "level 3 of 5" in out


def test_bundled_example_config_runs(tmp_path: Path) -> None:
    code, out, err = run("anonymize", str(ROOT / "examples" / "adult-fixed.yaml"), "--json", "--output",
                         str(tmp_path / "adult.csv"))
    assert code == 0, err
    s = json.loads(out)
    assert s["records"] == 30162 and s["verified"]
    assert s["suppressed"] <= int(0.02 * 30162)
    assert (tmp_path / "adult.csv").exists()


def test_check_json(toy: Path) -> None:
    code, out, err = run("check", str(toy / "test2.csv"), "--qi", "ZIPCode", "--sensitive", "Salary,Disease",
                         "--hierarchy", f"Disease={toy / 'test2_hierarchy_Disease.csv'}", "--numeric", "Salary",
                         "--separator", ";", "--json")
    assert code == 0, err
    r = json.loads(out)
    assert r["records"] == 9 and r["classes"] == 9 and r["k"] == 1 and r["uniques"] == 9
    d = r["sensitive"]["Disease"]
    for key in ("l_distinct", "l_entropy", "t_equal", "t_ordered", "t_hierarchical", "beta_basic", "beta_enhanced",
                "delta_disclosure"):
        assert key in d
    assert d["l_distinct"] == 1


def test_check_counts_star_rows_as_suppressed(tmp_path: Path) -> None:
    pd.DataFrame({"a": ["x", "x", "*", "y", "y"], "b": ["1", "1", "*", "2", "2"], "s": list("pqrpq")}).to_csv(
        tmp_path / "t.csv", index=False)
    code, out, _ = run("check", str(tmp_path / "t.csv"), "--qi", "a,b", "--sensitive", "s", "--json")
    r = json.loads(out)
    assert code == 0 and r["suppressed"] == 1 and r["classes"] == 2 and r["k"] == 2


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda c: c["attributes"].update({"Nope": {"role": "quasi"}}), "Nope"),
        (lambda c: c["privacy"].__setitem__(0, {"model": "k-anonymity", "k": 50}), "k"),
        (lambda c: c["privacy"].__setitem__(0, {"model": "k-anonymity", "k": -1}), "privacy.0.k"),
        (lambda c: c["algorithm"].update({"speed": "fast"}), "algorithm.speed"),
        (lambda c: c["input"].update({"separator": ","}), "separator"),
        (lambda c: c["attributes"]["Age"].update({"type": "numeric"}) or c["attributes"].update(
            {"Disease": {"role": "quasi", "type": "numeric"}}), "Disease"),
    ],
)
def test_bad_config_or_input_exits_2_with_one_line(toy: Path, mutate, needle: str) -> None:
    cfg = yaml.safe_load((toy / "c.yaml").read_text())
    mutate(cfg)
    (toy / "c.yaml").write_text(yaml.safe_dump(cfg))
    code, out, err = run("anonymize", str(toy / "c.yaml"), "--json")
    assert code == 2, (out, err)
    msg = " ".join(err.split())
    assert needle in msg and "Traceback" not in err


def test_value_missing_from_hierarchy_names_value_and_row(toy: Path) -> None:
    text = (toy / "test2.csv").read_text().replace("47605;30", "99999;30")
    (toy / "test2.csv").write_text(text)
    code, _, err = run("anonymize", str(toy / "c.yaml"))
    msg = " ".join(err.split())
    assert code == 2 and "99999" in msg and "ZIPCode" in msg and "row 7" in msg


def test_empty_and_unreadable_input(toy: Path) -> None:
    (toy / "test2.csv").write_text("")
    code, _, err = run("anonymize", str(toy / "c.yaml"))
    assert code == 2 and "empty" in err
    (toy / "test2.csv").unlink()
    code, _, err = run("anonymize", str(toy / "c.yaml"))
    assert code == 2 and "not found" in err


def test_config_errors_name_key() -> None:
    with pytest.raises(InputError, match=r"privacy\.0\.t"):
        parse_config({"input": {"dataset": "adult"}, "attributes": {"age": {"role": "quasi"}},
                      "privacy": [{"model": "t-closeness", "attribute": "x", "t": 2}]})
    with pytest.raises(InputError, match="unknown model"):
        parse_config({"input": {"dataset": "adult"}, "attributes": {"age": {"role": "quasi"}},
                      "privacy": [{"model": "k-anon", "k": 2}]})
    with pytest.raises(InputError, match="not found"):
        load_config("/nonexistent/c.yaml")


def test_hierarchy_builders_in_the_config(toy: Path) -> None:
    cfg = yaml.safe_load((toy / "c.yaml").read_text())
    cfg["attributes"]["ZIPCode"]["hierarchy"] = {"builder": "masking"}
    cfg["attributes"]["Age"] = {"role": "quasi", "type": "numeric",
                                "hierarchy": {"builder": "intervals", "width": 10, "fanout": 2}}
    cfg["algorithm"]["levels"] = {"ZIPCode": 3, "Age": 2}
    (toy / "c.yaml").write_text(yaml.safe_dump(cfg))
    code, out, err = run("anonymize", str(toy / "c.yaml"), "--json")
    assert code == 0, (out, err)
    released = pd.read_csv(toy / "out.csv", sep=";", dtype=str)
    assert set(released["ZIPCode"]) == {"47***"}
    assert set(released["Age"]) == {"[20-40[", "[40-60["}
    cfg["attributes"]["Age"]["hierarchy"] = {"builder": "intervals", "widht": 10}
    (toy / "c.yaml").write_text(yaml.safe_dump(cfg))
    code, _, err = run("anonymize", str(toy / "c.yaml"))
    assert code == 2 and "attributes.Age.hierarchy" in " ".join(err.split())


def test_main_example_runs_flash_and_reports_the_lattice(tmp_path: Path) -> None:
    code, out, err = run("anonymize", str(ROOT / "examples" / "adult.yaml"), "--json", "--output",
                         str(tmp_path / "adult.csv"))
    assert code == 0, err
    s = json.loads(out)
    assert s["algorithm"] == "flash" and s["verified"] and s["satisfied"]
    assert s["lattice"]["nodes"] == 4320 and 0 < s["lattice"]["checked"] <= 4320
    assert set(s["transformation"]) == {"sex", "age", "race", "marital-status", "education", "native-country",
                                        "workclass", "salary-class"}
    assert s["suppressed"] <= int(0.02 * 30162)
    assert isinstance(s["score"], float) and s["score"] == s["metrics"]["loss"]


def test_levels_only_with_fixed(toy: Path) -> None:
    cfg = yaml.safe_load((toy / "c.yaml").read_text())
    cfg["algorithm"]["name"] = "flash"
    (toy / "c.yaml").write_text(yaml.safe_dump(cfg))
    code, _, err = run("anonymize", str(toy / "c.yaml"))
    assert code == 2 and "levels" in err


def test_anatomy_writes_two_tables(toy: Path) -> None:
    cfg = yaml.safe_load((toy / "c.yaml").read_text())
    cfg["privacy"] = [{"model": "l-diversity", "attribute": "Disease", "l": 2}]
    cfg["algorithm"] = {"name": "anatomy"}
    cfg["attributes"]["Salary"] = {"role": "identifier"}  # anatomy publishes one sensitive attribute (issue 23)
    (toy / "c.yaml").write_text(yaml.safe_dump(cfg))
    code, out, err = run("anonymize", str(toy / "c.yaml"), "--json")
    assert code == 0, err
    s = json.loads(out)
    assert s["algorithm"] == "anatomy" and len(s["output"]) == 2
    qit = pd.read_csv(toy / "out-qit.csv", sep=";", dtype=str)
    st = pd.read_csv(toy / "out-st.csv", sep=";", dtype=str)
    assert len(qit) == 9 and set(qit["ZIPCode"]) == set(pd.read_csv(toy / "test2.csv", sep=";", dtype=str)["ZIPCode"])
    assert st.groupby("GroupID")["Disease"].nunique().min() >= 2
    assert st["Count"].astype(int).sum() == 9


@pytest.mark.parametrize("name", ["mondrian", "kaca", "mdav", "stack-and-deal"])
def test_local_recoding_algorithms_from_the_config(toy: Path, name: str) -> None:
    cfg = yaml.safe_load((toy / "c.yaml").read_text())
    cfg["attributes"]["Age"] = {"role": "quasi", "type": "numeric", "hierarchy": "test2_hierarchy_Age.csv"}
    cfg["privacy"] = [{"model": "k-anonymity", "k": 3}]
    cfg["algorithm"] = {"name": name}
    (toy / "c.yaml").write_text(yaml.safe_dump(cfg))
    code, out, err = run("anonymize", str(toy / "c.yaml"), "--json")
    assert code == 0, (out, err)
    s = json.loads(out)
    assert s["algorithm"] == name and s["verified"] and s["min_class_size"] >= 3
    assert s["transformation"] is None


def test_marked_suppression_is_verified_and_written(toy: Path) -> None:
    cfg = yaml.safe_load((toy / "c.yaml").read_text())
    cfg["privacy"] = [{"model": "k-anonymity", "k": 2}]
    cfg["algorithm"] = {"name": "fixed", "levels": {"ZIPCode": 1, "Age": 1}, "max_suppression": 0.5}
    cfg["output"]["suppressed"] = "mark"
    (toy / "c.yaml").write_text(yaml.safe_dump(cfg))
    code, out, err = run("anonymize", str(toy / "c.yaml"), "--json")
    assert code == 0, err
    s = json.loads(out)
    assert s["verified"] and s["suppressed"] > 0
    released = pd.read_csv(toy / "out.csv", sep=";", dtype=str)
    assert len(released) == 9
    assert ((released["ZIPCode"] == "*") & (released["Age"] == "*")).sum() == s["suppressed"]
