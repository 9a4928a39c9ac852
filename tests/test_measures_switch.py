"""Issue 30 item 1, the measures switch: optional measures declared once beside the measures
(:data:`anonkit.metrics.OPTIONAL_MEASURES`, each with its reason), switched off by the config's
``measures: {skip: […]}`` or ``anonymize(…, skip_measures=[…])``; a skipped measure is absent from the
summary and named with its reason, never silently; with nothing skipped the summary is what it was.

The refusals of bad ``measures:`` values through the CLI are ``tests/cases_measures.py``'s catalogue.
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
from anonkit.cli import app
from anonkit.config import parse_config
from anonkit.errors import InputError
from anonkit.metrics import DEFAULT_MEASURES, METRICS, OPTIONAL_MEASURES, check_skipped, compute_metrics
from anonkit.models import DistinctLDiversity, KAnonymity
from anonkit.plan import plan_from_config, plan_from_yaml
from anonkit.risk.thresholds import default_highest_risk
from support import toy_config, toy_dir

SKIP = ["record_linkage"]


def frame_of(seed: int, n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(20, 60, size=n), "zip": rng.choice(["4761", "4762", "4790"], size=n),
                         "disease": rng.choice(["flu", "cold", "ulcer", "cancer"], size=n)})


SCHEMA = Schema.of(quasi=["age", "zip"], sensitive=["disease"], types={"age": "numeric"})
RUNS = {"mondrian": [KAnonymity(4)], "anatomy": [DistinctLDiversity("disease", 2)], "mdav": [KAnonymity(3)]}


# ------------------------------------------------------------------------------------------ the declaration
def test_every_measure_is_default_or_optional_and_each_optional_one_says_why() -> None:
    assert set(DEFAULT_MEASURES) | set(OPTIONAL_MEASURES) == set(METRICS)
    assert not set(DEFAULT_MEASURES) & set(OPTIONAL_MEASURES)
    assert "record_linkage" in OPTIONAL_MEASURES  # issue 30: record linkage over custom candidates
    for reason in OPTIONAL_MEASURES.values():
        assert reason.strip() and "\n" not in reason and len(reason) > 40


@pytest.mark.parametrize(("names", "words"), [
    (["nope"], "unknown measure 'nope'"), (["gcp"], "'gcp' is a default measure"),
    (SKIP * 2, "listed twice"), ("record_linkage", "expected a list"), ({"record_linkage": 1}, "expected a list"),
    (None, "expected a list"), ([3], "unknown measure 3"),
])
def test_check_skipped_refuses_in_one_line_naming_the_key(names: object, words: str) -> None:
    with pytest.raises(InputError) as err:
        check_skipped(names, "where")
    assert words in str(err.value) and err.value.key == "where" and "\n" not in str(err.value)


def test_check_skipped_takes_any_list_of_optional_measures() -> None:
    """The control: lists, tuples, sets and nothing at all."""
    for names in (SKIP, tuple(SKIP), set(SKIP), [], ()):
        assert check_skipped(names, "k") == tuple(names)


# ------------------------------------------------------------------------------------------ the config key
def test_the_config_key_is_validated_as_the_config_is_read() -> None:
    assert parse_config(toy_config()).measures.skip == ()  # the default: nothing skipped
    assert parse_config(toy_config(measures={"skip": SKIP})).measures.skip == ("record_linkage",)
    for bad, words in (({"skip": ["gcp"]}, "config key 'measures.skip': 'gcp' is a default measure"),
                       ({"skip": ["x"]}, "config key 'measures.skip': unknown measure 'x'"),
                       ({"omit": SKIP}, "measures.omit"), (SKIP, "config key 'measures'")):
        with pytest.raises(InputError, match=words.replace("(", r"\(")):
            parse_config(toy_config(measures=bad))


def test_the_plan_carries_the_skip_and_writes_it_back(tmp_path: Path) -> None:
    config = parse_config(toy_config(measures={"skip": SKIP}))
    plan = plan_from_config(config, config_dir=toy_dir(tmp_path, toy_config()))
    assert plan.skip_measures == ("record_linkage",)
    again = plan_from_yaml(plan.to_yaml(), config_dir=tmp_path)
    assert again == plan and again.skip_measures == plan.skip_measures
    assert plan_from_config(parse_config(toy_config()), config_dir=tmp_path).skip_measures == ()


# ------------------------------------------------------------------------------------------ the summary
@pytest.fixture(scope="module")
def runs() -> dict[str, tuple]:
    """Each algorithm run twice on one table: skipping nothing, skipping record linkage."""
    frame = frame_of(1)
    out = {}
    for name, models in RUNS.items():
        out[name] = (anonymize(frame, SCHEMA, models, algorithm=name, seed=2),
                     anonymize(frame, SCHEMA, models, algorithm=name, seed=2, skip_measures=SKIP))
    return out


@pytest.mark.parametrize("algorithm", list(RUNS))
def test_a_skipped_measure_is_absent_and_said(runs: dict[str, tuple], algorithm: str) -> None:
    full, skipped = runs[algorithm]
    assert "record_linkage" in full.summary["metrics"] and "skipped_measures" not in full.summary
    assert "record_linkage" not in skipped.summary["metrics"]
    assert skipped.summary["skipped_measures"] == {"record_linkage": OPTIONAL_MEASURES["record_linkage"]}
    # everything else is the same, bit for bit, and so is the release
    assert skipped.summary["metrics"] == {k: v for k, v in full.summary["metrics"].items() if k != "record_linkage"}
    assert skipped.frame.equals(full.frame)


@pytest.mark.parametrize("algorithm", list(RUNS))
def test_with_nothing_skipped_the_measures_are_every_measure_as_before(runs: dict[str, tuple], algorithm: str) -> None:
    """The summary skipping nothing holds every measure of :data:`METRICS` in order, each what
    ``compute_metrics`` over all of them gives on the measured release (the summary before the switch)."""
    full, _ = runs[algorithm]
    measured = full.release.counted()
    before = compute_metrics(measured.table, measured)
    from anonkit.metrics import prosecutor_risk

    threshold = default_highest_risk(RUNS[algorithm])
    before["records_at_risk"] = prosecutor_risk(measured.table, measured, threshold=threshold).records_at_risk
    assert list(full.summary["metrics"]) == list(METRICS)
    assert full.summary["metrics"] == before


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([(), tuple(SKIP)]))
def test_skipping_changes_nothing_but_the_skipped_measure(seed: int, skip: tuple[str, ...]) -> None:
    """On random tables: the summary without the switch and with it, skipping nothing or record
    linkage, differ only by record linkage and the note that says it was skipped."""
    frame = frame_of(seed, 30)
    plain = anonymize(frame, SCHEMA, [KAnonymity(3)], algorithm="mondrian").summary
    switched = anonymize(frame, SCHEMA, [KAnonymity(3)], algorithm="mondrian", skip_measures=list(skip)).summary
    for s in (plain, switched):
        s.pop("seconds", None)
    expected = dict(plain, metrics={k: v for k, v in plain["metrics"].items() if k not in skip})
    if skip:
        expected["skipped_measures"] = {"record_linkage": OPTIONAL_MEASURES["record_linkage"]}
    assert json.dumps(switched, sort_keys=True, default=str) == json.dumps(expected, sort_keys=True, default=str)


# ------------------------------------------------------------------------------------------ the API argument
@pytest.mark.parametrize(("names", "words"), [
    (["gcp"], "default measure"), (["nope"], "unknown measure"), ("record_linkage", "expected a list"),
])
def test_the_api_argument_is_checked_before_any_work(names: object, words: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import anonkit.runner.anonymize as runner

    def no_work(*args: object, **kwargs: object) -> None:
        raise AssertionError("the run started")

    monkeypatch.setattr(runner, "anonymize_checked", no_work)
    with pytest.raises(InputError, match=words) as err:
        anonymize(frame_of(0), SCHEMA, [KAnonymity(2)], algorithm="mondrian", skip_measures=names)
    assert err.value.key == "skip_measures"


# ------------------------------------------------------------------------------------------ the CLI
def test_the_printed_summary_says_not_computed_and_the_json_says_why(tmp_path: Path) -> None:
    config = toy_config(measures={"skip": SKIP})
    toy_dir(tmp_path, config)
    res = CliRunner().invoke(app, ["anonymize", str(tmp_path / "c.yaml"), "--no-fixes"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    line = next(line for line in res.stdout.splitlines() if "record linkage" in line)
    assert "not computed (measures.skip)" in line
    res = CliRunner().invoke(app, ["anonymize", str(tmp_path / "c.yaml"), "--no-fixes", "--json"])
    summary = json.loads(res.stdout)
    assert summary["skipped_measures"] == {"record_linkage": OPTIONAL_MEASURES["record_linkage"]}
    assert "record_linkage" not in summary["metrics"]
    # the control: without the key the printed summary gives the share re-linked
    toy_dir(tmp_path, toy_config())
    res = CliRunner().invoke(app, ["anonymize", str(tmp_path / "c.yaml"), "--no-fixes"], env={"COLUMNS": "200"})
    line = next(line for line in res.stdout.splitlines() if "record linkage" in line)
    assert "re-linked" in line and "not computed" not in line


def test_a_report_without_audit_says_the_skipped_measure_is_not_computed() -> None:
    from anonkit.report.html import build_report

    summary = {"metrics": {"prosecutor_highest": 0.25, "record_linkage": 12.5}, "verified": True}
    control = build_report(summary, original=None, release=None)
    assert "record linkage success" in control and "not computed" not in control
    assert "12.5 %" in control  # the measure is in percent (spec §2.5): shown as the share it is
    del summary["metrics"]["record_linkage"]
    summary["skipped_measures"] = {"record_linkage": OPTIONAL_MEASURES["record_linkage"]}
    html = build_report(summary, original=None, release=None)
    assert "record linkage success" in html and "not computed (measures.skip)" in html
