"""Hierarchy builders' parameters are the config's schema (issue 23): checked as the config is read.

The catalogue (``tests/cases_builders.py``) holds the refusals; here are the controls:

* each builder's model is its function's signature (names, required keys, defaults);
* every valid spec builds exactly the hierarchy the builder builds from the raw keys (what the
  pipeline did before the parameters were declared): rows, bounds, shares, the same errors;
* a hypothesis property over keys and values, good and bad, of every builder: a spec the config
  takes builds what the builder builds from it, a spec it refuses is one line naming the key path;
* a valid spec of every builder runs through the CLI (so each catalogue case fails for its own change);
* the refusal comes before the input is read: with the reading made to fail, and with a FIFO as the
  input (opening it would wait for a writer forever);
* a spec survives the config's dump and re-validation (the audit's advice reruns a changed config).
"""

from __future__ import annotations

import inspect
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import anonkit.runner.local
from anonkit.config import Config, parse_config
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy, builders
from anonkit.hierarchy.builder_params import BUILDER_FUNCTIONS, BUILDER_NAMES, BUILDER_SPECS, BuilderSpec
from anonkit.plan.load import _build_hierarchy
from bad_input_kit import TOY, Case, assert_refused, base_config, build, flash, put, run, toy_dir
from cases_builders import CASES, DISEASES, TREE
from cases_values import visit, visits

DAYS = ("2020-02-05", "2021-03-07", "2020-11-30", "1999-12-31")
#: the toy table's columns as the pipeline reads them, and a column of dates
COLUMNS: dict[str, pd.Series] = {}


def column(name: str, tmp: Path | None = None) -> pd.Series:
    """The toy's column ``name`` (``Visit``: the dates ``DAYS``) as the pipeline reads it."""
    if name not in COLUMNS:
        from anonkit.io import read_table

        frame = read_table(str(Path(__file__).parent / "data" / TOY), separator=";")
        COLUMNS.update({c: frame[c] for c in frame.columns})
        COLUMNS["Visit"] = pd.Series([DAYS[i % len(DAYS)] for i in range(len(frame))], dtype=object)
    return COLUMNS[name]


def parsed(name: str, raw: dict[str, Any], **attribute: Any) -> BuilderSpec:
    """``raw`` as the config reads it under ``attributes.<name>.hierarchy``."""
    cfg = base_config()
    cfg["attributes"][name] = {"role": "quasi", **attribute, "hierarchy": raw}
    spec = parse_config(cfg).attributes[name].hierarchy
    assert isinstance(spec, BuilderSpec)
    return spec


def direct(raw: dict[str, Any], values: pd.Series, name: str, date_format: str | None = None) -> Hierarchy:
    """What the pipeline built before the parameters were declared: the builder called with the raw keys."""
    params = {k: v for k, v in raw.items() if k != "builder"}
    if date_format is not None and raw["builder"] == "dates":
        params.setdefault("format", date_format)
    if raw["builder"] == "flat":
        return Hierarchy.flat(values, name=name, **params)
    if raw["builder"] == "nested":
        return builders.nested(params.pop("tree"), name=name, **params)
    return getattr(builders, raw["builder"])(values, name=name, **params)


def assert_same(a: Hierarchy, b: Hierarchy) -> None:
    """The same hierarchy: rows, source, calendar flag, and the intervals' bounds and shares."""
    assert a.rows() == b.rows() and a.source == b.source and a.calendar == b.calendar and a.name == b.name
    for attr in ("bounds", "interval_share"):
        x, y = getattr(a, attr, None), getattr(b, attr, None)
        assert (x is None) == (y is None), attr
        if x is not None:
            assert len(x) == len(y)
            for u, v in zip(x, y, strict=True):
                np.testing.assert_array_equal(u, v)


def outcome(make: Any) -> Hierarchy | str:
    """The hierarchy ``make()`` builds, or the message of the ``InputError`` it raises."""
    try:
        return make()
    except InputError as exc:
        return str(exc)


# ------------------------------------------------------------------------------------ declarations
@pytest.mark.parametrize("name", BUILDER_NAMES)
def test_every_builder_is_declared_from_its_signature(name: str) -> None:
    """The model's keys, required keys and defaults are the function's (``name`` is the attribute's,
    ``nested``'s taxonomy is given as ``tree``)."""
    function = BUILDER_FUNCTIONS[name]
    sig = inspect.signature(function.call).parameters
    keyword = {k: p.default for k, p in sig.items() if p.kind is p.KEYWORD_ONLY and k != "name"}
    model = BUILDER_SPECS[name]
    expected = ([function.data_key] if function.data_key else []) + list(keyword)
    assert model.parameters() == expected
    for key, default in keyword.items():
        field = model.model_fields[key]
        assert field.is_required() == (default is inspect.Parameter.empty)
        if default is not inspect.Parameter.empty:
            assert field.default is default
    assert set(BUILDER_NAMES) == {"intervals", "masking", "dates", "order", "nested", "flat", "ranges", "periods",
                                  "frequency", "bins"}


def test_the_config_knows_every_builder_and_no_other() -> None:
    cfg = base_config()
    cfg["attributes"]["Age"]["hierarchy"] = {"builder": "buckets"}
    with pytest.raises(InputError, match="allowed: " + ", ".join(BUILDER_NAMES)):
        parse_config(cfg)


# ------------------------------------------------------------------------------------ same hierarchies
VALID: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("Age", {"builder": "intervals", "width": 5}, {}),
    ("Age", {"builder": "intervals", "width": 10, "fanout": 3}, {}),
    ("Age", {"builder": "intervals", "width": 2.5, "levels": 3, "bottom": 25, "top": 50}, {}),
    ("Age", {"builder": "intervals", "width": 10, "start": 20, "label": "{lo}..{hi}"}, {}),
    ("Age", {"builder": "intervals", "width": 5, "levels": None, "bottom": 25.5}, {}),
    ("Salary", {"builder": "intervals", "width": 0.5, "top": 10}, {}),
    ("ZIPCode", {"builder": "masking"}, {}),
    ("ZIPCode", {"builder": "masking", "levels": 3}, {}),
    ("ZIPCode", {"builder": "masking", "direction": "left", "char": "#", "pad": "0"}, {}),
    ("Visit", {"builder": "dates"}, {"type": "date"}),
    ("Visit", {"builder": "dates", "granularities": "year"}, {"type": "date"}),
    ("Visit", {"builder": "dates", "granularities": ["month", "year", "decade"]}, {"type": "date"}),
    ("Visit", {"builder": "dates", "granularities": ["day", "year"], "format": "%Y-%m-%d"}, {"type": "date"}),
    ("Visit", {"builder": "dates", "granularities": ["year"]}, {"type": "date", "format": "%Y-%m-%d"}),
    ("Age", {"builder": "order", "sizes": [3]}, {}),
    ("Age", {"builder": "order", "sizes": [2, 2], "numeric": True, "label": "range"}, {}),
    ("Age", {"builder": "order", "sizes": [4], "numeric": False}, {}),
    ("Age", {"builder": "order", "sizes": [3], "order": [22, 27, 29, 30, 32, 36, 43, 47, 52.0]}, {}),
    ("Disease", {"builder": "order", "sizes": [3, 1], "order": DISEASES}, {}),
    ("Disease", {"builder": "nested", "tree": TREE}, {}),
    ("Disease", {"builder": "nested", "tree": {"a": ["flu"], "b": {"c": ["gastritis", "pneumonia"]}}}, {}),
    ("Disease", {"builder": "flat"}, {}),
    ("Disease", {"builder": "flat", "top": "any disease"}, {}),
]


@pytest.mark.parametrize(("name", "raw", "attribute"), VALID, ids=[f"{n}-{r['builder']}-{i}" for i, (n, r, _) in
                                                                   enumerate(VALID)])
def test_a_valid_spec_builds_what_the_builder_builds_from_its_keys(name: str, raw: dict, attribute: dict) -> None:
    spec = parsed(name, raw, **attribute)
    assert spec.builder == raw["builder"]
    values = column(name)
    built = _build_hierarchy(name, spec, values, attribute.get("format"))
    assert_same(built, direct(raw, values, name, attribute.get("format")))


def test_what_only_the_data_tells_is_still_checked_when_building() -> None:
    """A date format that does not read the column, more mask levels than characters, a value missing
    from an explicit order: the config takes them, the builder refuses them naming the column."""
    for name, raw, words in [
        ("Visit", {"builder": "dates", "format": "%d/%m/%Y"}, "not a date in the format"),
        ("ZIPCode", {"builder": "masking", "levels": 6}, "at most the length"),
        ("Disease", {"builder": "order", "sizes": [2], "order": DISEASES[:-1]}, "missing from the explicit order"),
        ("Age", {"builder": "intervals", "width": 10, "start": -1e20}, "start is too far"),
    ]:
        spec = parsed(name, raw, **({"type": "date"} if name == "Visit" else {}))
        with pytest.raises(InputError, match=words) as exc:
            _build_hierarchy(name, spec, column(name))
        assert exc.value.column == name


# ------------------------------------------------------------------------------------ property
JUNK: list[Any] = [True, False, "5", "x", "", " ", -1, 0, 1, 2, 2.5, 1e300, math.inf, -math.inf, math.nan, None, [],
                   [1], ["a", "a"], {"a": 1}]
GOOD: dict[str, list[Any]] = {
    "width": [5, 10.0, 0.5, 1e-9], "levels": [2, 3, 5], "fanout": [2, 3], "bottom": [25, 30.5], "top": [40, 50],
    "start": [0, 20, 21.5], "label": ["[{lo}-{hi}[", "{lo}", "{x}", "{}"], "direction": ["left", "right"],
    "char": ["#", "*"], "pad": ["0", "_"],
    "granularities": ["year", ["month", "year"], ["year", "month"], ["week", "month"]],
    "format": ["%Y-%m-%d", "%d/%m/%Y", "%Q"], "sizes": [[2], [3, 2], [0]],
    "order": [DISEASES, [22, 27, 29, 30, 32, 36, 43, 47, 52]],
    "numeric": [True, False], "tree": [TREE, {"*": ["flu", "flu"]}],
}
GOOD["top"] += ["any", "*"]
GOOD["label"] += ["set", "range"]
COLUMN_OF = {"intervals": "Age", "masking": "ZIPCode", "dates": "Visit", "order": "Age", "nested": "Disease",
             "flat": "Disease", "ranges": "Age", "bins": "Age", "frequency": "Disease", "periods": "Visit"}


@st.composite
def specs(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A builder and keys of it (sometimes one it does not take) with good or bad values."""
    builder = draw(st.sampled_from(BUILDER_NAMES))
    model = BUILDER_SPECS[builder]
    keys = draw(st.lists(st.sampled_from([*model.parameters(), "widht", "tpo", "levels"]), max_size=4, unique=True))
    raw: dict[str, Any] = {"builder": builder}
    for key in keys:
        raw[key] = draw(st.sampled_from(GOOD.get(key, []) + JUNK))
    return builder, raw


@settings(max_examples=400)
@given(specs())
def test_a_spec_the_config_takes_builds_what_the_builder_builds(drawn: tuple[str, dict[str, Any]]) -> None:
    builder, raw = drawn
    name = COLUMN_OF[builder]
    attribute = {"type": "date"} if name == "Visit" else {}
    try:
        spec = parsed(name, dict(raw), **attribute)
    except InputError as exc:
        text = str(exc)
        assert text.startswith(f"config key 'attributes.{name}.hierarchy"), text
        assert "\n" not in text and "Traceback" not in text
        return
    values = column(name)
    ours = outcome(lambda: _build_hierarchy(name, spec, values))
    theirs = outcome(lambda: direct(raw, values, name))  # a TypeError here: the config took a key it must refuse
    if isinstance(ours, str) or isinstance(theirs, str):
        assert ours == theirs
    else:
        assert_same(ours, theirs)


# ------------------------------------------------------------------------------------ through the CLI
RUNS = [
    ("intervals", (put("attributes.Age.hierarchy", {"builder": "intervals", "width": 10, "fanout": 2}),), ()),
    ("masking", (put("attributes.ZIPCode.hierarchy", {"builder": "masking", "levels": 4}),), ()),
    ("dates", visit({"type": "date", "hierarchy": {"builder": "dates", "granularities": ["month", "year"]}}, 2),
     (visits(*DAYS),)),
    ("order", (put("attributes.Age.hierarchy", {"builder": "order", "sizes": [3, 2], "numeric": True}),), ()),
    ("nested", (put("attributes.Disease.hierarchy", {"builder": "nested", "tree": TREE}),), ()),
    ("flat", (put("attributes.Age.hierarchy", {"builder": "flat", "top": "any age"}),), ()),
]


@pytest.mark.parametrize(("builder", "cfg", "files"), RUNS, ids=[r[0] for r in RUNS])
def test_a_valid_spec_of_every_builder_runs(builder: str, cfg: tuple, files: tuple, tmp_path: Path) -> None:
    res = run(build(Case(builder, 0, (), cfg=(*cfg, flash), files=files), tmp_path))
    assert res.exit_code == 0, res.stderr
    assert (tmp_path / "out.csv").exists()


def _input_read(*_args: object, **_kw: object) -> None:
    raise AssertionError("input read")


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_every_builder_refusal_comes_before_the_input_is_read(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(anonkit.runner.local, "load_input", _input_read)
    assert_refused(run(build(case, tmp_path)), case.code, case.words)


def test_the_input_guard_is_effective(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Control for the test above: with a valid builder spec the run reaches the reading."""
    monkeypatch.setattr(anonkit.runner.local, "load_input", _input_read)
    res = run(build(Case("valid", 0, (), cfg=RUNS[0][1]), tmp_path))
    assert isinstance(res.exception, AssertionError) and "input read" in str(res.exception)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO")
def test_a_fifo_input_is_never_opened_when_a_builder_key_is_wrong(tmp_path: Path) -> None:
    """The input is a FIFO no one writes to: opening it would wait forever. The builder's typo is
    refused without waiting (the timeout only stops a hang; it measures nothing)."""
    toy_dir(tmp_path)
    os.mkfifo(tmp_path / "in.csv")
    cfg = base_config()
    cfg["input"]["path"] = "in.csv"
    cfg["attributes"]["Age"]["hierarchy"] = {"builder": "intervals", "widht": 5}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    res = subprocess.run([sys.executable, "-m", "anonkit", "anonymize", str(tmp_path / "c.yaml")],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    assert "attributes.Age.hierarchy.widht" in res.stderr and "did you mean 'width'" in res.stderr
    assert not (tmp_path / "out.csv").exists()


# ------------------------------------------------------------------------------------ the spec kept
def test_a_spec_survives_the_configs_dump_and_revalidation() -> None:
    """The audit's advice reruns a config rebuilt from ``model_dump``: every builder key must survive."""
    cfg = base_config()
    cfg["attributes"]["Age"]["hierarchy"] = {"builder": "intervals", "width": 5, "fanout": 3, "label": "{lo}~{hi}"}
    cfg["attributes"]["Disease"]["hierarchy"] = {"builder": "nested", "tree": TREE}
    config = parse_config(cfg)
    again = Config.model_validate(config.model_dump(by_alias=True, exclude_unset=True))
    for name in ("Age", "Disease"):
        assert again.attributes[name].hierarchy.params() == config.attributes[name].hierarchy.params()
    assert again.attributes["Age"].hierarchy.params() == {"width": 5.0, "fanout": 3, "label": "{lo}~{hi}"}


def test_numpy_scalars_count_as_the_numbers_they_hold() -> None:
    """A config built in Python with numpy values: ``np.int64(5)`` is 5, ``np.True_`` is no number."""
    spec = parsed("Age", {"builder": "intervals", "width": np.int64(5), "fanout": np.int64(3)})
    assert spec.params() == {"width": 5.0, "fanout": 3}
    with pytest.raises(InputError, match=r"attributes\.Age\.hierarchy\.width"):
        parsed("Age", {"builder": "intervals", "width": np.True_})
