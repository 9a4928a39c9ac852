"""The bundled job's fixed cost (issue 30, item 1): the shortcuts of the command line's job, each checked
against the path it spares.

* one store of the input's readings (``lasting_reading``) for the whole ``anonkit anonymize`` job: the run's
  audits and its fixes' trials' audits run on two worker threads, and each input column is read once;
* :func:`anonkit._secrets.mask_secrets` returns a text with no ``@`` and no ``=`` as it is (no rule can
  find a secret in it), and masks every other text as the rules do.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import anonkit._secrets as secrets
import anonkit.analytics._cover_shared as cover_shared
from anonkit.cli import app
from support import inference_toy


# ------------------------------------------------------------- one reading of the input for the whole job
def _job_files(tmp: Path) -> Path:
    """A toy input whose 2-anonymity fails the inference attack (so the advice reruns and the fixes try)."""
    cfg = inference_toy(tmp, 400, 0)
    path = tmp / "c.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """The memory of every input column the job's audits read into the job's store. The toy is read by
    pyarrow, as a file over :data:`anonkit.io.csv.ARROW_ABOVE_BYTES` is (Arrow text columns, as the bundled
    Adult's: the columns a store recognises by their memory)."""
    import anonkit.io.csv

    monkeypatch.setattr(anonkit.io.csv, "ARROW_ABOVE_BYTES", 0)
    keys: list[tuple] = []
    real = cover_shared.kept_codes

    def counted(values):  # type: ignore[no-untyped-def]
        found = cover_shared._content_key(values)
        keys.append(found[0] if found is not None else ("object", id(values)))
        return real(values)

    monkeypatch.setattr(cover_shared, "kept_codes", counted)
    return keys


def _printed(tmp: Path, config: Path) -> str:
    (tmp / "out.csv").unlink(missing_ok=True)
    res = CliRunner().invoke(app, ["anonymize", str(config)])
    assert res.exit_code == 0, res.stdout + res.stderr
    return re.sub(r"│\s+time\s.*\n", "", res.stdout)


def test_the_jobs_run_and_fixes_read_each_input_column_once(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's audits (one worker thread) and the fixes' trials' audits (another) share one store: a
    column read by the run is not read again by a trial (with a store per thread, each column twice)."""
    config = _job_files(tmp_path)
    keys = _reads(monkeypatch)
    out = _printed(tmp_path, config)
    assert "tried by running" in out  # the fixes' trials ran and were audited
    assert keys and len(keys) == len(set(keys))  # each input column read once in the whole job


def test_the_jobs_one_store_prints_what_a_store_per_part_prints(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """With the job's block turned into a store per part (the run's, the trials'), the same lines."""
    from contextlib import nullcontext

    import anonkit.analytics.cover as cover

    config = _job_files(tmp_path)
    _reads(monkeypatch)
    shared = _printed(tmp_path, config)
    csv = (tmp_path / "out.csv").read_bytes()
    real = cover.lasting_reading
    calls = []

    def per_part():  # type: ignore[no-untyped-def]
        calls.append(1)
        return nullcontext() if len(calls) == 1 else real()  # the command line's (first) block: none

    monkeypatch.setattr(cover, "lasting_reading", per_part)
    apart = _printed(tmp_path, config)
    assert calls  # the command line did enter its block through the patched name
    assert apart == shared and (tmp_path / "out.csv").read_bytes() == csv


# ------------------------------------------------------------------------ masking: the text with no rule
TEXTS = st.lists(st.sampled_from([*"ab:/@=&# '\"%2F-,.x", "://", "password=", "token=", "api_key=", "u:p@h",
                                   "secret", "%40"]), max_size=16).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=TEXTS)
def test_a_text_is_masked_as_the_rules_mask_it(text: str) -> None:
    """The shortcut (no ``@``, no ``=``: the text as it is) against the rules taken in full (``also``
    given, one that names no secret, keeps :func:`mask_secrets` off the shortcut)."""
    assert secrets.mask_secrets(text) == secrets.mask_secrets(text, also=[""])


def test_a_text_without_at_or_equals_takes_no_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    class Refused:
        def finditer(self, text: str):  # type: ignore[no-untyped-def]
            raise AssertionError("a rule ran")

        sub = finditer

    assert secrets.mask_secrets("postgresql://host/db?sslmode") == "postgresql://host/db?sslmode"
    # a text with neither, but ``also`` names a secret it repeats: masked (the shortcut is for no ``also``)
    assert secrets.mask_secrets("login hunter2 refused", also=["postgresql://u:hunter2@h/db"]) == "login *** refused"
    monkeypatch.setattr(secrets, "_USERINFO", Refused())
    monkeypatch.setattr(secrets, "_PAIR", Refused())
    tree = {"run": {"input": "/data/in.csv", "notes": ["a note", ("x", 1)]}, "k": 5}
    assert secrets.mask_tree(tree) == tree  # every text as it is, no rule taken
    with pytest.raises(AssertionError, match="a rule ran"):  # (the control: a text with "=" takes the rules)
        secrets.mask_secrets("password=secret")
