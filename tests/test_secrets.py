"""Secrets never leave: every text that reaches an output has its passwords and tokens masked.

One function does it (:func:`anonkit._secrets.mask_secrets`); these tests hold it to its rules (URI
userinfo passwords, percent-encoded or not; ``password=``/``PGPASSWORD=``-style pairs of connection
strings; ``token=``, ``secret=``, ``api_key=`` of query strings), with controls that ordinary text is
left alone, then run the command line with secrets in every place a config can hold one and grep
every output — the error line, stdout and stderr, the ``--json`` summary, the HTML report and the
config text it copies, ``anonkit report``'s page — for every spelling of every secret. The
PostgreSQL round trip (a real server on 127.0.0.1, :mod:`pg_server`) is marked ``postgres``.
"""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit._secrets import MASK, mask_secrets, mask_tree, secret_spellings
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.io import shown as _shown
from anonkit.io.postgresql import _driver_text
from support import run_cli, toy_config, toy_dir

if TYPE_CHECKING:
    from pg_server import PgDatabase, PgServer

pytest_plugins = ["pg_server"]

SECRET = "Zq7-s3cr3t/p@ss w0rd%"  # characters a URI must escape, a space, a percent sign
TOKEN = "tok_9f8e7d6c5b4a"
KEY = "AKIAEXAMPLEKEY42"


def spellings(secret: str) -> list[str]:
    """Every way a secret can be written where it leaks: as is, percent-encoded, form-encoded."""
    return sorted({secret, quote(secret, safe=""), quote(secret, safe="").replace("%20", "+"), quote(secret)})


def leaks(text: str, *secrets: str) -> list[str]:
    return [s for secret in secrets for s in spellings(secret) if s in text]


# --------------------------------------------------------------------------- the rules, one by one
MASKED = [
    ("userinfo", f"postgresql://anonkit:{quote(SECRET, safe='')}@127.0.0.1:5432/db", [SECRET]),
    ("userinfo-raw", "postgresql://anonkit:pa/ss@w0rd!@db.example.org/x", ["pa/ss@w0rd!"]),
    ("userinfo-any-scheme", "https://me:hunter2x@example.org/data.csv", ["hunter2x"]),
    ("query-password", f"postgresql://u@h/db?sslmode=disable&password={quote(SECRET, safe='')}", [SECRET]),
    ("query-token", f"https://x.org/a.csv?token={TOKEN}&api_key={KEY}&page=2", [TOKEN, KEY]),
    ("query-secret", f"s3://bucket/a.parquet?client_secret={TOKEN}", [TOKEN]),
    ("query-access-token", f"https://x.org/a?access_token={TOKEN}#frag", [TOKEN]),
    ("conninfo", "host=db user=u password=Opensesame42 dbname=d", ["Opensesame42"]),
    ("conninfo-quoted", "host=db password='open sesame 42' dbname=d", ["open sesame 42"]),
    ("pgpassword", "PGPASSWORD=Opensesame42 psql -h db", ["Opensesame42"]),
    ("api-key-dash", f"curl 'https://x.org/?api-key={KEY}'", [KEY]),
    ("in-a-message", f"cannot connect (file postgresql://u:{TOKEN}@h/db, key 'input.path')", [TOKEN]),
    ("repeated-elsewhere", f"postgresql://u:{quote(SECRET, safe='')}@h/db # was {SECRET}", [SECRET]),
    ("yaml-comment", f"input: {{path: in.csv}}  # postgresql://admin:{TOKEN}@prod/db", [TOKEN]),
]


@pytest.mark.parametrize(("text", "secrets"), [pytest.param(t, s, id=i) for i, t, s in MASKED])
def test_every_rule_masks_its_secret(text: str, secrets: list[str]) -> None:
    masked = mask_secrets(text)
    assert not leaks(masked, *secrets), masked
    assert MASK in masked


KEPT = [
    "spark://host:7077",
    "http://host:8080/x?page=2",
    "give the password in the URI, PGPASSWORD or ~/.pgpass",
    "the file is password-protected",
    "postgresql://anonkit@127.0.0.1:5432/db#release",
    "k=3 t=0.2 levels: {Age: 1}",
    "/data/out.csv",
    "",
]


@pytest.mark.parametrize("text", KEPT)
def test_text_without_secrets_is_left_alone(text: str) -> None:
    """Controls: the rules do not mask ordinary text, URIs without a password, option lists."""
    assert mask_secrets(text) == text


PASSWORDS = st.text(alphabet=string.ascii_letters + string.digits + "!$%&()*+,;=:@/?#[]~-._ ", min_size=1,
                    max_size=24)


@settings(max_examples=200, deadline=None)
@given(PASSWORDS, st.sampled_from(["userinfo", "query", "conninfo", "token"]))
def test_a_random_password_never_survives(password: str, where: str) -> None:
    """Whatever a password holds, the URI or connection string that carries it (percent-encoded as a
    URI carries it, or quoted as libpq takes it) comes out with exactly that part masked — and a
    password of MIN_SECRET characters or more in none of its spellings anywhere."""
    encoded = quote(password, safe="")
    conninfo = password.replace("'", "")
    prefix, value, suffix = {
        "userinfo": ("postgresql://anonkit:", encoded, "@127.0.0.1:5432/db?sslmode=disable"),
        "query": ("postgresql://anonkit@127.0.0.1/db?sslmode=disable&password=", encoded, "&x=1"),
        "conninfo": ("host=127.0.0.1 password=", f"'{conninfo}'", " dbname=db"),
        "token": ("https://example.org/a.csv?token=", encoded, ""),
    }[where]
    masked = mask_secrets(prefix + value + suffix)
    if len(value.strip("'")) < 4 or (where == "conninfo" and len(conninfo) < 4):
        assert masked == prefix + MASK + suffix
    else:
        assert not leaks(masked, password), masked
        assert masked.startswith(prefix[:8]) and MASK in masked


def test_every_spelling_of_a_found_secret_is_masked() -> None:
    found = secret_spellings(f"postgresql://u:{quote(SECRET, safe='')}@h/db")
    assert SECRET in found and quote(SECRET, safe="") in found
    assert found == sorted(found, key=lambda s: (-len(s), s))


def test_the_one_function_is_used_by_every_layer() -> None:
    """The error type, the io messages, the driver's text and the JSON tree all mask the same way."""
    uri = f"postgresql://u:{quote(SECRET, safe='')}@h/db?token={TOKEN}"
    texts = [
        str(InputError("cannot connect", file=uri, key="input.path")),
        str(InputError(f"bad {uri}")),
        str(UnsatisfiableError(f"the models cannot be met reading {uri}")),
        _shown(uri),
        _driver_text(RuntimeError(f'IO: connection to "{uri}" failed: password {SECRET} rejected'), uri),
        json.dumps(mask_tree({"run": {"input": uri, "notes": [uri, 3, None]}, uri: 1})),
    ]
    for text in texts:
        assert not leaks(text, SECRET, TOKEN), text
    assert mask_tree({"a": [1, 2.5, True, None]}) == {"a": [1, 2.5, True, None]}  # control: nothing else changes


def test_a_short_password_is_masked_where_it_stands_only() -> None:
    """A password shorter than MIN_SECRET is masked in its URI, not in every word that contains it
    (that would mask ordinary text), unless the message is about that URI (``also``)."""
    assert mask_secrets("postgresql://u:ab@h/db has ab") == f"postgresql://u:{MASK}@h/db has ab"
    assert mask_secrets("driver: password ab rejected", also=["postgresql://u:ab@h/db"]) == (
        f"driver: password {MASK} rejected")


# --------------------------------------------------------------------------- the command line
def _config_with_secrets(tmp_path: Path, **changes: object) -> Path:
    """The toy config with secrets in places that need no server: a YAML comment naming a PostgreSQL
    URI with a password, and a token in a comment's query string."""
    cfg = toy_config(**changes)
    toy_dir(tmp_path, cfg)
    text = yaml.safe_dump(cfg, sort_keys=False)
    text = (f"# production copy: postgresql://admin:{quote(SECRET, safe='')}@db.internal/people\n"
            f"# mirror: https://files.internal/people.csv?token={TOKEN}&api_key={KEY}\n" + text)
    (tmp_path / "c.yaml").write_text(text)
    return tmp_path / "c.yaml"


def test_the_report_and_summary_never_show_a_secret_of_the_config(tmp_path: Path) -> None:
    """``anonymize --report --json`` copies the config text into the report: masked (the finding of
    issue 23 was a percent-encoded password in it); ``anonkit report`` of the run shows it masked too."""
    config = _config_with_secrets(tmp_path)
    code, out, err = run_cli("anonymize", str(config), "--json", "--report", str(tmp_path / "r.html"))
    assert code == 0, err
    html = (tmp_path / "r.html").read_text()
    assert "production copy" in html and MASK in html  # control: the config text is there
    (tmp_path / "run.json").write_text(out)
    code2, out2, err2 = run_cli("report", str(tmp_path / "run.json"), "--out", str(tmp_path / "r2.html"))
    assert code2 == 0, err2
    html2 = (tmp_path / "r2.html").read_text()
    assert "production copy" in html2
    for text in (html, out, err, html2, out2, err2):
        assert not leaks(text, SECRET, TOKEN, KEY)


@pytest.mark.parametrize("where", ["input.path", "output.path", "audit.control", "attributes.Age.hierarchy"])
def test_an_error_about_a_uri_never_shows_its_secret(tmp_path: Path, where: str) -> None:
    """A location with a password or token that cannot be read or written (a closed port, a web URL
    anonkit does not fetch) is refused in one line, its secrets masked — on stderr and in --json."""
    uri = {
        "input.path": f"postgresql://anonkit:{quote(SECRET, safe='')}@127.0.0.1:1/db?password={TOKEN}",
        "output.path": f"postgresql://anonkit:{quote(SECRET, safe='')}@127.0.0.1:1/db?api_key={KEY}",
        "audit.control": f"https://me:{quote(SECRET, safe='')}@files.internal/ctl.csv?token={TOKEN}",
        "attributes.Age.hierarchy": f"https://files.internal/age.csv?token={TOKEN}&secret={KEY}",
    }[where]
    cfg = toy_config()
    if where == "input.path":
        cfg["input"] = {"path": uri, "table": "people"}
    elif where == "output.path":
        cfg["output"] = {"path": uri, "table": "release"}
    elif where == "audit.control":
        cfg["audit"] = {"control": uri}
    else:
        cfg["attributes"]["Age"]["hierarchy"] = uri
    toy_dir(tmp_path, cfg)
    for args in ([], ["--json"]):
        code, out, err = run_cli("anonymize", str(tmp_path / "c.yaml"), *args)
        assert code == 2, (out, err)
        assert "error:" in err  # control: refused, with a message
        assert not leaks(out + err, SECRET, TOKEN, KEY), err


# --------------------------------------------------------------------------- a real PostgreSQL server
_PATIENTS = [
    ("47677", 29, 3, "gastric ulcer"), ("47602", 22, 4, "gastritis"), ("47678", 27, 5, "stomach cancer"),
    ("47905", 43, 6, "gastritis"), ("47909", 52, 11, "flu"), ("47906", 47, 8, "bronchitis"),
    ("47605", 30, 7, "bronchitis"), ("47673", 36, 9, "pneumonia"), ("47607", 32, 10, "stomach cancer"),
]


@pytest.mark.postgres
def test_secrets_in_every_place_never_reach_an_output(pg_db: PgDatabase, pg_server: PgServer, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The input read through a URI with its password percent-encoded in the userinfo, the release
    written through one with the password as a ``password=`` parameter, a token and an API key in a
    query string of the config's text: the summary, the report (and its config text), ``anonkit
    report``'s page, stdout, stderr, a refused run's error and an unsatisfiable run's ``--json`` hold
    none of them."""
    pytest.importorskip("adbc_driver_postgresql")
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-pgpass"))
    values = ", ".join(f"('{z}', {a}, {s}, '{d}')" for z, a, s, d in _PATIENTS)
    pg_db.execute('CREATE TABLE patients ("ZIPCode" text, "Age" integer, "Salary" integer, "Disease" text)',
                  f"INSERT INTO patients VALUES {values}")
    password = pg_server.password
    base = f"{pg_server.host}:{pg_server.port}/{pg_db.name}"
    source = f"{pg_db.uri()}?application_name=anonkit&options=-c%20statement_timeout%3D0"
    target = f"postgresql://{pg_server.user}@{base}?sslmode=disable&password={quote(password, safe='')}"
    cfg = toy_config(input={"path": source, "table": "patients"},
                     output={"path": target, "table": "release", "if_exists": "replace"})
    toy_dir(tmp_path, cfg)
    config = tmp_path / "c.yaml"
    config.write_text(f"# mirror: https://files.internal/p.csv?token={TOKEN}&api_key={KEY}\n" + config.read_text())
    outputs: list[str] = []
    code, out, err = run_cli("anonymize", str(config), "--json", "--report", str(tmp_path / "r.html"))
    assert code == 0, err
    assert pg_db.rows("SELECT COUNT(*) FROM release") == [(9,)]  # control: the run read and wrote through them
    (tmp_path / "run.json").write_text(out)
    outputs += [out, err, (tmp_path / "r.html").read_text()]
    code, out, err = run_cli("report", str(tmp_path / "run.json"), "--out", str(tmp_path / "r2.html"))
    assert code == 0, err
    outputs += [out, err, (tmp_path / "r2.html").read_text()]
    code, out, err = run_cli("anonymize", str(config))  # the human summary
    assert code == 0, err
    outputs += [out, err]
    # refused: an unknown table (the driver's error quotes the server's words)
    bad = toy_config(input={"path": source, "table": "nope"}, output={"path": target, "table": "release"})
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(bad))
    code, out, err = run_cli("anonymize", str(tmp_path / "bad.yaml"))
    assert code == 2 and "error:" in err
    outputs += [out, err]
    # unsatisfiable: the leaves, nothing to suppress; its --json summary
    hard = toy_config(input={"path": source, "table": "patients"},
                      output={"path": target, "table": "release", "if_exists": "replace"},
                      algorithm={"name": "fixed", "levels": {"ZIPCode": 0, "Age": 0}, "max_suppression": 0})
    (tmp_path / "hard.yaml").write_text(yaml.safe_dump(hard))
    code, out, err = run_cli("anonymize", str(tmp_path / "hard.yaml"), "--json")
    assert code == 1, err
    outputs += [out, err]
    for text in outputs:
        assert not leaks(text, password, TOKEN, KEY)
