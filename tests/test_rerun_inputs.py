"""The fixes' trials of a run rerun the input the run read (``Result.inputs``: the frame, the schema,
the population of an ``input.subset`` run) instead of reading and checking it again (issue 30,
item 1: the bundled job's fixed cost); from a summary alone (no run in memory) they read it once."""

from __future__ import annotations

from pathlib import Path

import pytest

from anonkit.config import parse_config
from anonkit.fixes import propose_fixes
from anonkit.plan import plan_from_config
from anonkit.runner import run
from support import inference_toy


def _plan(tmp: Path):  # type: ignore[no-untyped-def]
    """A small job whose audit fails the inference attack (2-anonymity of a random toy)."""
    cfg = inference_toy(tmp, 120, 3)
    return plan_from_config(parse_config(cfg), config_dir=tmp)


def test_the_trials_rerun_the_input_the_run_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the run in memory the trials read nothing (the input is the run's own frame and schema) and
    give the same fixes as from the summary alone, which reads the input once (the control)."""
    import anonkit.fixes.trial as trial

    plan = _plan(tmp_path)
    result = run(plan)
    assert not result.summary["verdict"]["ok"] and result.inputs is not None
    frame, schema, population = result.inputs
    assert population is None and list(frame.columns) == ["age", "zip", "disease"] and schema.sensitive == ["disease"]
    reads: list[int] = []
    real = trial.load_input
    monkeypatch.setattr(trial, "load_input", lambda *a, **k: reads.append(1) or real(*a, **k))
    from_run = propose_fixes(plan, result=result, max_tries=4)
    assert reads == []
    from_summary = propose_fixes(plan, result=result.summary, max_tries=4)
    assert reads == [1]
    assert from_run == from_summary and from_run
