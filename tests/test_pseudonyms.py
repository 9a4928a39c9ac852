"""Keyed pseudonyms (issue 28, "identifiers"; ARX issues #110 and #266): ``role: pseudonym`` publishes
HMAC-SHA256(key, value) as 26 base32 characters, the key read from a file or an environment
variable and never written anywhere; the same key gives the same pseudonyms in every run, another
key unrelated ones; without a key the run is refused, or renumbered ids are given when asked."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from anonkit import Schema
from anonkit.cli import app
from anonkit.errors import InputError
from anonkit.pseudonyms import MIN_KEY_BYTES, PSEUDONYM_CHARS, pseudonym, read_key, survey_columns
from anonkit.schema import Attribute
from survey_toy import KEY, NAMES, lay_out, read_out, survey_frame

cli = CliRunner()
#: HMAC-SHA256(bytes 0…31, "alice"), computed with OpenSSL (`openssl dgst -sha256 -mac HMAC -macopt hexkey:00…1f`)
ALICE_HMAC = "6eefad2bed97b6d93ee663d67a44b46016b3d79dcad54ada39b61a1d14874d1b"


def _run(tmp: Path, *args: str, env: dict[str, str] | None = None) -> tuple[str, str]:
    res = cli.invoke(app, ["anonymize", str(tmp / "c.yaml"), "--no-fixes", *args], env=env)
    assert res.exit_code == 0, res.stdout + res.stderr
    return res.stdout, res.stderr


def _by_salary(tmp: Path, column: str = "Name") -> dict[str, str]:
    out = read_out(tmp)
    return dict(zip(out["Salary"], out[column], strict=True))


# --------------------------------------------------------------------------------- known answers
def test_known_answer_against_openssl_and_pythons_hmac() -> None:
    key = bytes(range(32))
    expected = base64.b32encode(bytes.fromhex(ALICE_HMAC)).decode()[:PSEUDONYM_CHARS].lower()
    assert pseudonym(key, "alice") == expected == "n3x22k7ns63nspxgmplhurfuma"
    for value in ("bob", "Zoë", "", "12345"):
        mac = hmac.new(key, value.encode("utf-8"), hashlib.sha256).digest()
        assert pseudonym(key, value) == base64.b32encode(mac).decode()[:PSEUDONYM_CHARS].lower()
    assert pseudonym(key, "alice") != pseudonym(bytes(range(1, 33)), "alice")  # another key


# ---------------------------------------------------------------------------------------- the CLI
def test_the_release_carries_the_keyed_pseudonyms(tmp_path: Path) -> None:
    lay_out(tmp_path)
    _run(tmp_path)
    src = survey_frame()
    got = _by_salary(tmp_path)
    want = {s: pseudonym(KEY.encode(), n) for s, n in zip(src["Salary"], src["Name"], strict=True)}
    assert got == want
    assert not set(got.values()) & set(NAMES)


def test_the_key_is_written_nowhere(tmp_path: Path) -> None:
    lay_out(tmp_path)
    out, err = _run(tmp_path, "--json", "--report", str(tmp_path / "report.html"))
    summary = json.loads(out)
    assert any("keyed pseudonyms" in w for w in summary["warnings"])
    shown = out + err + "".join(_run(tmp_path, "--output", str(tmp_path / "again.csv")))  # the text summary too
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "key"]
    assert {p.name for p in written} >= {"out.csv", "again.csv", "report.html", "c.yaml"}
    for p in written:
        data = p.read_bytes()
        assert KEY.encode() not in data and KEY[:16].encode() not in data, p
    assert KEY not in shown and KEY[:16] not in shown
    assert (tmp_path / "key").read_text() == KEY  # control: the key is where the test put it


def test_the_same_key_gives_the_same_pseudonyms_in_every_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = []
    for i, (attrs, seed) in enumerate([(None, 0), (None, 5), ({"Name": {"role": "pseudonym", "key_env": "W1_KEY"}}, 0),
                                       ({"Name": {"role": "pseudonym", "key_env": "W1_KEY"}}, 0)]):
        d = tmp_path / str(i)
        d.mkdir()
        lay_out(d, attrs, seed=seed)
        key = KEY if i < 3 else "another-key-" + "x" * 40
        _run(d, env={"W1_KEY": key})
        runs.append(_by_salary(d))
    assert runs[0] == runs[1] == runs[2]  # another seed, the key from the environment: the same ids
    assert not set(runs[3].values()) & set(runs[0].values())  # another key: unrelated ids


def test_renumbered_pseudonyms_need_no_key(tmp_path: Path) -> None:
    lay_out(tmp_path, {"Name": {"role": "pseudonym", "publish": "renumbered", "seed": 4}})
    (tmp_path / "key").unlink()
    _run(tmp_path)
    assert sorted(int(v) for v in _by_salary(tmp_path).values()) == list(range(1, 10))


# ------------------------------------------------------------------------------------- the key
def test_read_key_refuses_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    good, short = tmp_path / "good", tmp_path / "short"
    good.write_bytes(b"s" * MIN_KEY_BYTES + b"\n")
    short.write_bytes(b"s" * (MIN_KEY_BYTES - 1) + b"\n")
    assert read_key("c", key_file=good, key_env=None) == b"s" * MIN_KEY_BYTES  # control; the line break removed
    cases = [({"key_file": short, "key_env": None}, "31 bytes"),
             ({"key_file": tmp_path / "none", "key_env": None}, "does not exist"),
             ({"key_file": tmp_path, "key_env": None}, "cannot be read"),
             ({"key_file": None, "key_env": None}, "exactly one"),
             ({"key_file": good, "key_env": "W1_KEY"}, "exactly one"),
             ({"key_file": None, "key_env": "W1_UNSET_FOR_SURE"}, "not set")]
    monkeypatch.setenv("W1_KEY", "e" * (MIN_KEY_BYTES - 2))
    cases.append(({"key_file": None, "key_env": "W1_KEY"}, "30 bytes"))
    for kwargs, words in cases:
        with pytest.raises(InputError, match=words) as e:
            read_key("c", **kwargs)  # type: ignore[arg-type]
        assert "\n" not in str(e.value) and "eeee" not in str(e.value) and "ssss" not in str(e.value)
    monkeypatch.setenv("W1_KEY", "e" * MIN_KEY_BYTES)
    assert read_key("c", key_file=None, key_env="W1_KEY") == b"e" * MIN_KEY_BYTES  # control


def test_the_key_stays_out_of_the_schema_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("W1_KEY", KEY)
    schema = Schema.of(quasi=["ZIPCode"], pseudonym=["Name"], key_env="W1_KEY")
    assert schema["Name"].key() == KEY.encode()
    assert KEY not in repr(schema) and KEY not in str(schema)
    with pytest.raises(InputError, match="not a pseudonym published as hmac"):
        Attribute("Name", "pseudonym", publish="renumbered").key()
    with pytest.raises(InputError, match="without a pseudonym column"):
        Schema.of(quasi=["ZIPCode"], key_env="W1_KEY")
    with pytest.raises(InputError, match="key_file applies to a pseudonym"):
        Attribute("HH", "household", key_file="k")


# ------------------------------------------------------------------------------------ properties
@pytest.fixture(scope="module", autouse=True)
def _key_file(tmp_path_factory: pytest.TempPathFactory) -> None:
    global KEY_FILE
    KEY_FILE = tmp_path_factory.mktemp("key") / "key"
    KEY_FILE.write_text(KEY)


KEY_FILE = Path("unset")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(st.characters(codec="utf-8"), min_size=1, max_size=8).filter(lambda t: t.strip()),
                min_size=1, max_size=25))
def test_the_pseudonym_column_is_a_function_of_the_input_injective_on_the_sample(values: list[str]) -> None:
    frame = pd.DataFrame({"Name": values, "Q": ["a"] * len(values)})
    schema = Schema.of(quasi=["Q"], pseudonym=["Name"], key_file=str(KEY_FILE)).in_column_order(frame.columns)
    out = survey_columns(frame, schema).frame["Name"].tolist()
    key = [v.strip() for v in values]
    for i in range(len(values)):
        for j in range(len(values)):
            assert (out[i] == out[j]) == (key[i] == key[j])
    assert all(len(p) == PSEUDONYM_CHARS for p in out)
    assert np.array_equal(out, [pseudonym(KEY.encode(), k) for k in key])


def test_the_plan_round_trips_and_holds_the_key_source_only(tmp_path: Path) -> None:
    from anonkit.config import load_config
    from anonkit.plan import plan_from_config, plan_from_yaml

    path = lay_out(tmp_path)
    plan = plan_from_config(load_config(path), config_dir=tmp_path)
    text = plan.to_yaml()
    assert "key_file: key" in text and KEY not in text
    assert plan_from_yaml(text, config_dir=tmp_path) == plan
