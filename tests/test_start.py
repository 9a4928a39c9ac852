"""anonkit.start: roles with reasons (identifiers by content), QI candidates from combinations, hierarchies
built from the data, models for a risk target, and whole starting configs that run."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit.analytics import leakage
from anonkit.config import parse_config
from anonkit.errors import InputError
from anonkit.plan import plan_from_config
from anonkit.runner import run
from anonkit.start import (
    auto_hierarchy,
    identifier_kind,
    models_for_risk,
    read_input,
    sniff_separator,
    starting_point,
    suggest_roles,
)
from anonkit.start.detect import infer_type

DATA = Path(__file__).parent / "data"
ADULT = Path(__file__).parent.parent / "src" / "anonkit" / "datasets" / "data" / "adult.csv"


@pytest.fixture(scope="module")
def people() -> pd.DataFrame:
    return read_input(str(DATA / "people_identifiers.csv"))[0]


def test_direct_identifiers_are_recognised_by_content(people: pd.DataFrame) -> None:
    advice = {a.name: a for a in suggest_roles(people)}
    kinds = {n: a.kind for n, a in advice.items() if a.role == "identifier"}
    assert kinds == {"record": "record", "full_name": "name", "contact": "email", "phone": "phone",
                     "address": "address", "account": "iban"}
    assert all("HIPAA Safe Harbor" in advice[n].reason for n in kinds)
    assert advice["birth_date"].kind == "dob" and advice["birth_date"].role == "quasi"
    assert advice["zip"].role == "quasi" and advice["zip"].shape == "code"
    assert advice["sex"].role == "quasi" and advice["diagnosis"].role == "sensitive"
    assert advice["sex"].candidates[0].role == "quasi"


def test_content_not_the_column_name_decides() -> None:
    renamed = pd.Series(["ann@example.org", "bob@example.org", "cy@example.org"], name="x")
    assert identifier_kind(renamed) == "email"
    assert identifier_kind(pd.Series(["yes", "no", "yes"], name="email")) is None  # the control
    assert identifier_kind(pd.Series(["New York", "New York", "Los Angeles", "New York"] * 5)) is None
    assert identifier_kind(pd.Series(["1967-01-10", "1980-09-16", "2001-02-03"])) is None  # dates, not phones


def test_uniqueness_marks_identifiers_only_on_enough_records() -> None:
    frame = pd.DataFrame({"row": range(1, 51), "code": [f"k{i:03d}x" for i in range(50)],
                          "sex": ["F", "M"] * 25})
    roles = {a.name: a.role for a in suggest_roles(frame)}
    assert roles == {"row": "identifier", "code": "identifier", "sex": "quasi"}
    small = {a.name: a.role for a in suggest_roles(frame.head(5))}
    assert small["row"] == "quasi" and small["code"] == "quasi"
    with pytest.raises(InputError, match="nothing to publish"):
        suggest_roles(pd.DataFrame({"mail": [f"p{i}@example.org" for i in range(30)]}))


def test_adult_quasi_identifiers_come_from_combinations() -> None:
    frame = read_input(str(ADULT))[0]
    report = leakage(frame)
    assert report["vulnerable"] == []  # no attribute alone reaches τ …
    assert ["age", "occupation"] in report["suggested_combinations"]  # … but pairs do
    assert {"age", "occupation", "education"} <= set(report["suggested_quasi_identifiers"])
    advice = {a.name: a for a in suggest_roles(frame)}
    assert advice["age"].rank == 1 and advice["age"].leakage >= 0.5
    assert "known together with" in advice["age"].reason


def test_combination_suggestion_is_minimal_and_skips_identifiers() -> None:
    frame = pd.DataFrame({"id": [f"p{i}" for i in range(64)], "a": [i % 4 for i in range(64)],
                          "b": [i // 16 for i in range(64)], "c": ["x"] * 63 + ["y"]})  # a, b: 0.33 each, 0.67 both
    report = leakage(frame, max_size=3)
    assert report["likely_identifiers"] == ["id"]
    assert report["suggested_combinations"] == [["a", "b"]]  # {a, b, c} holds {a, b}: not suggested


def test_auto_hierarchies_per_type(people: pd.DataFrame) -> None:
    assert auto_hierarchy(people["zip"], name="zip", type="categorical") == {"builder": "masking"}
    assert auto_hierarchy(people["birth_date"], name="birth_date", type="date") == {"builder": "periods"}
    assert auto_hierarchy(people["sex"], name="sex", type="categorical") == {"builder": "frequency"}
    assert auto_hierarchy(pd.Series(range(100)), name="n", type="numeric") == {"builder": "ranges", "method": "width"}
    skewed = pd.Series([1] * 90 + list(range(100, 1000, 90)))
    assert auto_hierarchy(skewed, name="s", type="numeric") == {"builder": "ranges", "method": "frequency"}
    assert auto_hierarchy(pd.Series(["a", "b"]), name="t", type="numeric") == {"builder": "frequency"}  # fallback
    with pytest.raises(InputError, match="unknown type"):
        auto_hierarchy(people["sex"], name="sex", type="text")


def test_models_for_a_risk_target() -> None:
    (m,) = models_for_risk(highest=0.05)
    assert dict(m) == {"model": "k-anonymity", "k": 20} and "5 %" in m.explanation
    assert dict(models_for_risk(average=0.01)[0]) == {"model": "k-anonymity", "k": 100}
    assert dict(models_for_risk(highest=0.2, average=0.1)[0])["k"] == 10
    assert models_for_risk() == []
    for bad in (0, 1.5, -0.1, float("nan"), True, "5%"):
        with pytest.raises(InputError, match="share"):
            models_for_risk(highest=bad)  # type: ignore[arg-type]
    parse_config({"input": {"path": "x.csv"}, "attributes": {"a": {"role": "quasi"}},
                  "privacy": [dict(m)]})  # a plain config entry


def test_separator_is_sniffed(tmp_path: Path) -> None:
    (tmp_path / "s.csv").write_text("a;b\n1;2\n3;4\n")
    (tmp_path / "t.csv").write_text("a\tb\n1\t2\n")
    (tmp_path / "c.csv").write_text("a,b\n1,2\n")
    (tmp_path / "one.csv").write_text("a\n1\n")
    assert [sniff_separator(tmp_path / n) for n in ("s.csv", "t.csv", "c.csv", "one.csv")] == [";", "\t", ",", ","]
    frame, entry = read_input(str(tmp_path / "s.csv"))
    assert list(frame.columns) == ["a", "b"] and entry["separator"] == ";"
    assert "separator" not in read_input(str(tmp_path / "c.csv"))[1]


def _runs(frame: pd.DataFrame, tmp: Path) -> None:
    """The starting config of ``frame``, written as YAML, parses back and runs."""
    frame.to_csv(tmp / "data.csv", index=False)
    point = starting_point(read_input(str(tmp / "data.csv"))[0], input="data.csv")
    text = point.to_yaml()
    assert yaml.safe_load(text) == point.config
    run(plan_from_config(parse_config(yaml.safe_load(text)), config_dir=tmp))
    assert (tmp / "data-anonymized.csv").exists()


def test_the_identifier_table_runs_end_to_end(tmp_path: Path, people: pd.DataFrame) -> None:
    _runs(people, tmp_path)
    out = pd.read_csv(tmp_path / "data-anonymized.csv", dtype=str)
    assert not {"full_name", "contact", "phone", "address", "account", "record"} & set(out.columns)


cells = st.one_of(st.integers(0, 30), st.sampled_from(["a", "b", "c", "dd", "e f"]),
                  st.sampled_from(["2020-01-05", "2021-07-30", "1999-12-31"]))


@st.composite
def tables(draw: st.DrawFn) -> pd.DataFrame:
    n_cols = draw(st.integers(1, 4))
    n_rows = draw(st.integers(1, 25))
    kinds = [draw(st.sampled_from(["int", "text", "date", "mixed"])) for _ in range(n_cols)]
    columns = {}
    for i, kind in enumerate(kinds):
        if kind == "int":
            col = draw(st.lists(st.integers(0, 60), min_size=n_rows, max_size=n_rows))
        elif kind == "text":
            col = draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=n_rows, max_size=n_rows))
        elif kind == "date":
            col = draw(st.lists(st.sampled_from(["2020-01-05", "2021-07-30", "1999-12-31", "2020-02-29"]),
                                min_size=n_rows, max_size=n_rows))
        else:
            col = draw(st.lists(cells, min_size=n_rows, max_size=n_rows))
        columns[f"c{i}"] = col
    return pd.DataFrame(columns)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tables())
def test_starting_configs_run_on_random_tables(tmp_path: Path, frame: pd.DataFrame) -> None:
    try:
        _runs(frame, tmp_path)
    except InputError as exc:  # fail closed: refused in one line, never a traceback
        assert "\n" not in str(exc)
        assert "nothing to publish" in str(exc)


def test_a_person_column_whose_values_repeat_is_an_identifier() -> None:
    """Several records per person: ``person``'s values repeat, so uniqueness misses it; its name and
    its many values mark it (dropped, with role person offered); a generic ``code`` column is not."""
    frame = pd.read_csv(ADULT.parents[4] / "examples" / "files" / "diagnoses.csv", dtype=str).head(300)
    advice = {a.name: a for a in suggest_roles(frame)}
    person = advice["person"]
    assert person.role == "identifier" and "'person'" in person.reason
    assert [c.role for c in person.candidates] == ["identifier", "person"]
    codes = pd.DataFrame({"code": ["A1", "B2", "C3", "A1"] * 10, "sex": ["F", "M"] * 20})
    assert {a.name: a.role for a in suggest_roles(codes)}["code"] != "identifier"


def test_a_column_named_for_names_is_an_identifier_even_when_names_repeat() -> None:
    names = ["Ann Lee", "Bob Stone", "Cy Young", "Dee Park"] * 10  # 4 names over 40 records: 10 % distinct
    frame = pd.DataFrame({"full_name": names, "city_name": ["New York", "Los Angeles"] * 20,
                          "staff": names, "dept": ["Sales", "Audit"] * 20})
    roles = {a.name: (a.role, a.kind) for a in suggest_roles(frame)}
    assert roles["full_name"] == ("identifier", "name")
    assert roles["city_name"][0] == "quasi"  # names a place, not a person: the control
    assert roles["staff"][0] != "identifier" or roles["staff"][1] != "name"  # the name alone does not say names


def test_postal_codes_are_masked_even_without_a_leading_zero() -> None:
    codes = pd.Series([str(10115 + 7 * i) for i in range(30)])
    assert infer_type(codes, name="postcode") == ("categorical", "code")
    assert infer_type(codes, name="Zip Code") == ("categorical", "code")
    assert infer_type(codes, name="amount") == ("numeric", "integer")  # the control: a number is a number
    assert auto_hierarchy(codes, name="postcode", type="categorical") == {"builder": "masking"}
    frame = pd.DataFrame({"postcode": codes, "sex": ["F", "M"] * 15})
    advice = {a.name: a for a in suggest_roles(frame)}
    assert advice["postcode"].shape == "code" and advice["postcode"].type == "categorical"
