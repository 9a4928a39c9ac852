"""The strict config and Python API: numbers are numbers, every key applies to where it stands,
nesting is bounded, wrong Python types are refused in one line.

* hypothesis properties: a random section entry (a privacy model or l-diversity variant, an
  attribute role, an input format, a search metric) given a key that belongs to another one is
  refused naming the key and what it applies to; every numeric parameter given a boolean, text,
  infinity, NaN or a list is refused naming the key; the same entries with valid numbers pass;
* the model constructors refuse the same values in Python, naming the parameter and the value;
* :func:`anonkit.anonymize` needs at least one privacy model and says what it got for a wrong type;
* deep nesting and alias bombs end in one line, in YAML and in Python data;
* ``anonkit analyze --max-size`` is bounded by the number of combinations;
* controls: ``metric: dm`` (the README's shorthand) runs, ``order`` on an ordinal quasi-identifier and
  on a sensitive attribute are taken, an Excel input takes ``sheet``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import anonkit
from anonkit._config_input import ATTRIBUTE_CLASSES, INPUT_CLASSES
from anonkit._config_models import METRIC_ENTRIES, MODEL_ENTRIES
from anonkit.analytics.leakage import MAX_COMBINATIONS, leakage
from anonkit.config import MAX_CONFIG_DEPTH, MAX_CONFIG_NODES, load_config, parse_config
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.models import (
    BackgroundKnowledge,
    BetaLikeness,
    DeltaDisclosure,
    DistinctLDiversity,
    EntropyLDiversity,
    FrequencyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    TCloseness,
    ThetaSensitivity,
)
from anonkit.schema import Attribute, Schema
from bad_input_kit import assert_refused, base_config, run, toy_dir

# ------------------------------------------------------------------------------ valid entries
#: a valid entry of every privacy model class (over the toy: Disease is sensitive)
VALID_MODELS: dict[str, dict[str, Any]] = {
    "k-anonymity": {"model": "k-anonymity", "k": 2},
    "distinct-l-diversity": {"model": "distinct-l-diversity", "attribute": "Disease", "l": 2},
    "entropy-l-diversity": {"model": "entropy-l-diversity", "attribute": "Disease", "l": 2},
    "recursive-l-diversity": {"model": "recursive-l-diversity", "attribute": "Disease", "l": 2, "c": 3},
    "frequency-l-diversity": {"model": "frequency-l-diversity", "attribute": "Disease", "l": 2},
    "t-closeness": {"model": "t-closeness", "attribute": "Disease", "t": 0.5},
    "beta-likeness": {"model": "beta-likeness", "attribute": "Disease", "beta": 1.0},
    "delta-disclosure": {"model": "delta-disclosure", "attribute": "Disease", "delta": 1.5},
    "background-knowledge": {"model": "background-knowledge", "attribute": "Disease", "J": 0.5},
    "theta-sensitivity": {"model": "theta-sensitivity", "attribute": "Disease", "k": 2, "lambda": 0.5},
    "average-risk": {"model": "average-risk", "threshold": 0.05},
    "sample-uniqueness": {"model": "sample-uniqueness", "threshold": 0.01},
    "population-uniqueness": {"model": "population-uniqueness", "threshold": 0.01, "population": 1000},
    "k-map": {"model": "k-map", "k": 2},
    "estimated-k-map": {"model": "estimated-k-map", "k": 2, "population_size": 1000},
    "delta-presence": {"model": "delta-presence", "dmax": 0.5},
    **{name: {"model": name, "publisher_benefit": 1200, "publisher_loss": 300, "adversary_gain": 120,
              "adversary_cost": 40}
       for name in ("profitability", "profitability-journalist", "no-attack-profitability",
                    "no-attack-profitability-journalist")},
    # sdcMicro's individual risk (issue 28)
    "individual-risk": {"model": "individual-risk", "threshold": 0.1},
    # ARX's SafePub (issue 29)
    "differential-privacy": {"model": "differential-privacy", "epsilon": 2.0, "delta": 1e-6},
}
VALID_ATTRIBUTES: dict[str, dict[str, Any]] = {
    "quasi": {"role": "quasi"}, "sensitive": {"role": "sensitive"}, "identifier": {"role": "identifier"},
    "person": {"role": "person"}, "insensitive": {"role": "insensitive"},
    # the survey roles (issue 28): a pseudonym renumbered needs no key file here
    "weight": {"role": "weight"}, "household": {"role": "household", "publish": "renumbered"},
    "pseudonym": {"role": "pseudonym", "publish": "renumbered"},
}
VALID_INPUTS: dict[str, dict[str, Any]] = {
    "csv": {"path": "data.csv"}, "parquet": {"path": "data.parquet"}, "sqlite": {"path": "data.db"},
    "duckdb": {"path": "data.duckdb"}, "postgresql": {"path": "postgresql://127.0.0.1/db"},
    "excel": {"path": "data.xlsx"}, "dataset": {"dataset": "adult"},
}
VALID_METRICS = {"loss": {"name": "loss"}, "entropy": {"name": "entropy"}, "aecs": {"name": "aecs"},
                 "precision": {"name": "precision"}, "dm": {"name": "dm"}}


def _keys(cls: type) -> set[str]:
    return {f.alias or n for n, f in cls.model_fields.items()}  # type: ignore[attr-defined]


def _with(section: str, entry: dict[str, Any]) -> dict[str, Any]:
    cfg = base_config()
    if section == "privacy":
        cfg["privacy"].append(entry)
    elif section == "attributes":
        cfg["attributes"]["Extra"] = entry
    elif section == "input":
        cfg["input"] = entry
    else:
        cfg["algorithm"] = {"name": "flash", "metric": entry}
    return cfg


def _where(section: str, key: str) -> str:
    return {"privacy": f"privacy.1.{key}", "attributes": f"attributes.Extra.{key}", "input": f"input.{key}",
            "metric": f"algorithm.metric.{key}"}[section]


def test_every_valid_entry_passes() -> None:
    """Controls for the properties below: each base entry is a valid config."""
    for entry in VALID_MODELS.values():
        parse_config(_with("privacy", entry))
    for entry in VALID_ATTRIBUTES.values():
        parse_config(_with("attributes", entry))
    for entry in VALID_INPUTS.values():
        parse_config(_with("input", entry))
    for entry in VALID_METRICS.values():
        parse_config(_with("metric", entry))


# ------------------------------------------------------------------------------ keys that do not apply
def _foreign(section: str) -> list[tuple[str, str]]:
    """``(tag, key)`` pairs: a key of another class of the section's union that the tag's class lacks."""
    if section == "privacy":
        classes = {m.model_fields["model"].annotation.__args__[0]: m for m in MODEL_ENTRIES}
    elif section == "attributes":
        classes = {r: a for a in ATTRIBUTE_CLASSES for r in a.model_fields["role"].annotation.__args__}
        classes = {t: c for t, c in classes.items() if t in VALID_ATTRIBUTES}
    elif section == "input":
        classes = {t: c for t, c in INPUT_CLASSES.items() if t in VALID_INPUTS}
    else:
        classes = {n: m for m in METRIC_ENTRIES for n in m.model_fields["name"].annotation.__args__}
        classes = {t: c for t, c in classes.items() if t in VALID_METRICS}
    every = set().union(*(_keys(c) for c in classes.values()))
    return [(tag, key) for tag, cls in classes.items() for key in sorted(every - _keys(cls))]


FOREIGN = [(s, t, k) for s in ("privacy", "attributes", "input", "metric") for t, k in _foreign(s)]
VALID = {"privacy": VALID_MODELS, "attributes": VALID_ATTRIBUTES, "input": VALID_INPUTS, "metric": VALID_METRICS}


def test_there_are_many_keys_that_do_not_apply() -> None:
    assert len(FOREIGN) > 100
    assert ("privacy", "distinct-l-diversity", "c") in FOREIGN
    assert ("input", "csv", "sheet") in FOREIGN
    assert ("attributes", "quasi", "categories") in FOREIGN
    assert ("attributes", "weight", "publish") in FOREIGN and ("attributes", "household", "key_file") in FOREIGN
    assert ("attributes", "pseudonym", "hierarchy") in FOREIGN


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(FOREIGN), st.sampled_from([1, 0.5, "x", True, ["a"], {"a": 1}]))
def test_a_key_that_does_not_apply_is_refused_naming_it(drawn: tuple[str, str, str], value: object) -> None:
    section, tag, key = drawn
    entry = {**VALID[section][tag], key: value}
    if section == "privacy" and key == "model":
        return
    with pytest.raises(InputError) as info:
        parse_config(_with(section, entry))
    message = str(info.value)
    assert f"'{_where(section, key)}'" in message, message
    assert "does not apply" in message, message


@pytest.mark.parametrize(("section", "tag", "key", "owner"), [
    ("privacy", "distinct-l-diversity", "c", "recursive l-diversity"),
    ("privacy", "distinct-l-diversity", "estimator", "entropy l-diversity"),
    ("input", "csv", "sheet", "excel input"),
    ("input", "excel", "separator", "csv input"),
    ("input", "sqlite", "header_row", "excel input"),
    ("attributes", "identifier", "hierarchy", "a quasi-identifier"),
    ("metric", "dm", "gs", "loss"),
])
def test_the_message_says_what_the_key_applies_to(section: str, tag: str, key: str, owner: str) -> None:
    with pytest.raises(InputError, match=owner):
        parse_config(_with(section, {**VALID[section][tag], key: 1}))


# ------------------------------------------------------------------------------ numbers are numbers
#: every numeric parameter: (section, base entry, key, a valid value)
NUMERIC = [
    ("privacy", VALID_MODELS["k-anonymity"], "k", 3),
    ("privacy", VALID_MODELS["distinct-l-diversity"], "l", 2),
    ("privacy", VALID_MODELS["entropy-l-diversity"], "l", 1.5),
    ("privacy", VALID_MODELS["recursive-l-diversity"], "l", 2),
    ("privacy", VALID_MODELS["recursive-l-diversity"], "c", 2.5),
    ("privacy", VALID_MODELS["frequency-l-diversity"], "l", 2),
    ("privacy", VALID_MODELS["t-closeness"], "t", 0.3),
    ("privacy", VALID_MODELS["beta-likeness"], "beta", 2),
    ("privacy", VALID_MODELS["delta-disclosure"], "delta", 0.7),
    ("privacy", VALID_MODELS["background-knowledge"], "J", 0.2),
    ("privacy", VALID_MODELS["theta-sensitivity"], "k", 3),
    ("privacy", VALID_MODELS["theta-sensitivity"], "lambda", 0.9),
    ("attributes", VALID_ATTRIBUTES["quasi"], "min_level", 1),
    ("attributes", VALID_ATTRIBUTES["quasi"], "max_level", 2),
    ("attributes", VALID_ATTRIBUTES["quasi"], "weight", 0.25),
    ("input", {"path": "data.xlsx"}, "header_row", 2),
    ("input", {"path": "data.csv"}, "batch_rows", 100),
    ("metric", {"name": "loss"}, "gs", 0.25),
]
NOT_NUMBERS = st.one_of(
    st.booleans(), st.text(max_size=5), st.just(math.inf), st.just(-math.inf), st.just(math.nan),
    st.lists(st.integers(), max_size=2), st.integers(1, 5).map(str),
)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(NUMERIC), NOT_NUMBERS)
def test_a_numeric_parameter_refuses_what_is_not_a_number(param: tuple, value: object) -> None:
    section, base, key, _good = param
    with pytest.raises(InputError) as info:
        parse_config(_with(section, {**base, key: value}))
    assert f"'{_where(section, key)}'" in str(info.value), str(info.value)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(NUMERIC))
def test_a_numeric_parameter_takes_its_number(param: tuple) -> None:
    section, base, key, good = param
    parse_config(_with(section, {**base, key: good}))


@pytest.mark.parametrize("yaml_value", ["true", "yes", "on", ".inf", "-.inf", ".nan", "'3'", "3.0"])
def test_k_in_yaml_is_a_whole_number(yaml_value: str, tmp_path: Path) -> None:
    text = yaml.safe_dump(base_config(), sort_keys=False).replace("k: 3", f"k: {yaml_value}")
    (tmp_path / "c.yaml").write_text(text)
    with pytest.raises(InputError, match=r"privacy\.0\.k"):
        load_config(tmp_path / "c.yaml")


# ------------------------------------------------------------------------------ the model constructors
CONSTRUCTORS = [
    ("k", lambda v: KAnonymity(v)),
    ("l", lambda v: DistinctLDiversity("S", v)),
    ("l", lambda v: EntropyLDiversity("S", v)),
    ("l", lambda v: FrequencyLDiversity("S", v)),
    ("l", lambda v: RecursiveCLDiversity("S", 2.0, v)),
    ("c", lambda v: RecursiveCLDiversity("S", v, 2)),
    ("t", lambda v: TCloseness("S", v)),
    ("beta", lambda v: BetaLikeness("S", v)),
    ("delta", lambda v: DeltaDisclosure("S", v)),
    ("J", lambda v: BackgroundKnowledge("S", v)),
    ("bandwidth", lambda v: BackgroundKnowledge("S", 0.5, bandwidth=v)),
    ("k", lambda v: ThetaSensitivity("S", v)),
    ("lambda", lambda v: ThetaSensitivity("S", 2, v)),
]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(CONSTRUCTORS), NOT_NUMBERS | st.none())
def test_a_model_constructor_refuses_what_is_not_a_number(ctor: tuple, value: object) -> None:
    key, make = ctor
    with pytest.raises(InputError) as info:
        make(value)
    assert info.value.key == key
    assert repr(value) in str(info.value) or (isinstance(value, float) and math.isnan(value))


def test_k_true_is_not_1_anonymity() -> None:
    with pytest.raises(InputError, match="got bool True"):
        KAnonymity(True)
    with pytest.raises(InputError, match="got str '5'"):
        KAnonymity("5")
    assert KAnonymity(5.0).k == 5 and isinstance(KAnonymity(5.0).k, int)  # a whole number written as float


@pytest.mark.parametrize("make", [
    lambda: KAnonymity(2, "Age"), lambda: KAnonymity(2, []), lambda: DistinctLDiversity(2, "Disease"),
    lambda: TCloseness("S", 0.5, ["equal"]), lambda: BetaLikeness("S", 1.0, enhanced="yes"),
    lambda: ThetaSensitivity("S", 2, 0.5, distinct=1), lambda: EntropyLDiversity("S", 2, "log"),
])
def test_a_model_constructor_refuses_a_wrong_type(make: Any) -> None:
    with pytest.raises(InputError):
        make()


# ------------------------------------------------------------------------------ the Python API
def _toy() -> tuple[pd.DataFrame, Schema]:
    frame = pd.DataFrame({"age": ["30", "30", "40", "40"], "zip": ["a", "a", "b", "b"],
                          "disease": ["flu", "cold", "flu", "cold"]})
    return frame, Schema.of(quasi=["age", "zip"], sensitive=["disease"])


def test_the_api_control_runs() -> None:
    frame, schema = _toy()
    assert len(anonkit.anonymize(frame, schema, [KAnonymity(2)]).frame) == 4


@pytest.mark.parametrize(("args", "words"), [
    (lambda f, s: (f, s, []), "at least one privacy model"),
    (lambda f, s: (f, s, ()), "at least one privacy model"),
    (lambda f, s: (f, s, KAnonymity(2)), "got one KAnonymity"),
    (lambda f, s: (f, s, "k-anonymity"), "got str"),
    (lambda f, s: (f, s, [KAnonymity(2), {"model": "k-anonymity"}]), r"models\[1\] is a dict"),
    (lambda f, s: (f.to_dict("records"), s, [KAnonymity(2)]), "DataFrame, got list"),
    (lambda f, s: (f, {"age": "quasi"}, [KAnonymity(2)]), "Schema .*got dict"),
    (lambda f, s: (f, s, None), "got NoneType"),
])
def test_the_api_refuses_wrong_types_saying_what_it_got(args: Any, words: str) -> None:
    frame, schema = _toy()
    with pytest.raises(InputError, match=words):
        anonkit.anonymize(*args(frame, schema))


def test_the_api_refuses_a_wrong_metric_and_takes_a_metric_name() -> None:
    frame, schema = _toy()
    with pytest.raises(InputError, match="metric"):
        anonkit.anonymize(frame, schema, [KAnonymity(2)], metric=5)
    assert anonkit.anonymize(frame, schema, [KAnonymity(2)], metric="dm").frame is not None


def test_a_hierarchy_given_as_a_dataframe_is_refused() -> None:
    rows = pd.DataFrame([["30", "*"], ["40", "*"]])
    with pytest.raises(InputError, match="Hierarchy, got DataFrame"):
        Schema.of(quasi=["age"], hierarchies={"age": rows})
    with pytest.raises(InputError, match="Hierarchy, got DataFrame"):
        Attribute("age", "quasi", hierarchy=rows)
    Schema.of(quasi=["age"], hierarchies={"age": Hierarchy(rows.to_numpy())})  # control: as the message says


@pytest.mark.parametrize("make", [
    lambda: Schema.of(quasi="age"), lambda: Schema.of(quasi=["age"], hierarchies=[1]),
    lambda: Attribute("age", "quasi", "ordinal", order=["a", "a"]),
    lambda: Attribute("age", "quasi", "numeric", order=["1"]),
    lambda: Attribute("age", "quasi", min_level=True), lambda: Attribute("age", "quasi", weight=math.inf),
    lambda: Schema(["age"]),  # type: ignore[arg-type]
])
def test_schema_constructors_refuse_wrong_arguments(make: Any) -> None:
    with pytest.raises(InputError):
        make()


def test_duplicate_order_values_are_refused_before_pandas_sees_them() -> None:
    """``order: [flu, cold, flu]`` ended in pandas' InvalidIndexError; now it is refused naming the value."""
    schema = Schema({"age": Attribute("age", "quasi"), "zip": Attribute("zip", "quasi")})
    with pytest.raises(InputError, match="'flu'"):
        schema.add(Attribute("disease", "sensitive", order=["flu", "cold", "flu"]))


# ------------------------------------------------------------------------------ nesting and aliases
def test_python_data_nested_5000_deep_is_refused() -> None:
    cfg = base_config()
    deep: Any = 1
    for _ in range(5000):
        deep = {"a": deep}
    cfg["attributes"]["Age"]["hierarchy"] = {"builder": "nested", "tree": deep}
    with pytest.raises(InputError, match=f"more than {MAX_CONFIG_DEPTH} levels"):
        parse_config(cfg)


def test_python_data_with_a_shared_list_repeated_is_refused() -> None:
    shared: Any = ["x"] * 10
    for _ in range(8):
        shared = [shared] * 10
    cfg = base_config()
    cfg["attributes"]["Age"]["hierarchy"] = {"builder": "nested", "tree": {"top": shared}}
    with pytest.raises(InputError, match=f"more than {MAX_CONFIG_NODES:,} values"):
        parse_config(cfg)


def test_python_data_containing_itself_is_refused() -> None:
    cfg = base_config()
    loop: dict = {}
    loop["again"] = loop
    cfg["attributes"]["Age"]["hierarchy"] = {"builder": "nested", "tree": loop}
    with pytest.raises(InputError, match="contains itself"):
        parse_config(cfg)


def test_nesting_within_the_limit_is_read(tmp_path: Path) -> None:
    """Control: a config nested to the limit loads (the refusal is not broader than the bound)."""
    depth = MAX_CONFIG_DEPTH - 6  # the path to the tree is 6 levels
    tree = "{a: " * (depth - 1) + "[x]" + "}" * (depth - 1)  # a taxonomy the nested builder takes
    text = yaml.safe_dump(base_config(), sort_keys=False).replace(
        "    hierarchy: test2_hierarchy_Age.csv\n", "    hierarchy: {builder: nested, tree: " + tree + "}\n", 1)
    (tmp_path / "c.yaml").write_text(text)
    load_config(tmp_path / "c.yaml")


# ------------------------------------------------------------------------------ controls that must run
def _run(tmp_path: Path, cfg: dict) -> None:
    toy_dir(tmp_path)
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    res = run(["anonymize", str(tmp_path / "c.yaml")])
    assert res.exit_code == 0, res.stderr
    assert (tmp_path / "out.csv").exists()


def test_metric_dm_shorthand_runs(tmp_path: Path) -> None:
    """The README's ``metric: dm`` is ``{name: dm}``."""
    cfg = base_config()
    cfg["algorithm"] = {"name": "flash", "metric": "dm"}
    assert parse_config(cfg).algorithm.metric.search_metric().name == "dm"
    _run(tmp_path, cfg)


def test_order_on_a_sensitive_attribute_and_an_ordinal_qi_is_taken(tmp_path: Path) -> None:
    cfg = base_config()
    cfg["attributes"]["Disease"]["order"] = ["gastric ulcer", "gastritis", "stomach cancer", "colitis", "flu",
                                             "pneumonia", "bronchitis"]
    cfg["privacy"].append({"model": "t-closeness", "attribute": "Disease", "t": 0.9, "distance": "ordered"})
    parsed = parse_config(cfg)
    assert parsed.attributes["Disease"].order[0] == "gastric ulcer"
    ordinal = {**base_config()["attributes"]["Age"], "type": "ordinal", "order": ["22", "27"]}
    assert parse_config({**base_config(), "attributes": {**base_config()["attributes"], "Age": ordinal}})
    _run(tmp_path, cfg)


def test_format_specific_keys_are_taken_where_they_apply() -> None:
    parse_config(_with("input", {"path": "in.xlsx", "sheet": "Data", "header_row": 2}))
    parse_config(_with("input", {"path": "in.db", "table": "people"}))
    parse_config(_with("input", {"path": "in.txt", "format": "excel", "sheet": "Data"}))
    parsed = parse_config(_with("input", {"path": "in.csv", "separator": ";", "encoding": "latin-1"}))
    assert parsed.input.sheet is None and parsed.input.table is None and parsed.input.separator == ";"
    # a format that cannot be told from the path: every key is taken, the reader decides later
    parse_config(_with("input", {"path": "in.ods", "sheet": "Data"}))


def test_variant_given_with_l_diversity_names_its_model() -> None:
    entry = {"model": "l-diversity", "attribute": "Disease", "l": 2, "variant": "recursive", "c": 3}
    built = parse_config(_with("privacy", entry)).models()[1]
    assert isinstance(built, RecursiveCLDiversity) and built.l == 2


# ------------------------------------------------------------------------------ anonkit analyze --max-size
def _wide(tmp_path: Path, columns: int) -> Path:
    frame = pd.DataFrame({f"c{i}": [str((r * (i + 1)) % 3) for r in range(12)] for i in range(columns)})
    frame.to_csv(tmp_path / "wide.csv", index=False)
    return tmp_path / "wide.csv"


def test_analyze_max_size_is_bounded_by_the_number_of_combinations(tmp_path: Path) -> None:
    path = _wide(tmp_path, 40)
    res = run(["analyze", str(path), "--max-size", "40"])
    line = assert_refused(res, 2, ("combinations", f"{MAX_COMBINATIONS:,}", "--max-size"))
    assert f"{2 ** 40 - 1 - 40:,}" in line, line
    with pytest.raises(InputError, match="MAX_COMBINATIONS"):
        leakage(pd.read_csv(path, dtype=str), max_size=5)


def test_analyze_within_the_bound_runs(tmp_path: Path) -> None:
    path = _wide(tmp_path, 40)
    res = run(["analyze", str(path), "--max-size", "2", "--json"])
    assert res.exit_code == 0, res.stderr
    assert len(leakage(pd.read_csv(path, dtype=str), max_size=3)["combinations"]) == 780 + 9880
