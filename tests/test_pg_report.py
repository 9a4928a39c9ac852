"""``anonkit report`` after a run that read (and wrote) PostgreSQL: the summary records the URIs
without their password, so the report reads the input and the release through the config's own URIs
(and the password they hold); a URI without one takes ``PGPASSWORD`` or ``~/.pgpass``, as the run
did. No password appears in the report, its errors or the summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

import pytest
import yaml

from support import run_cli, toy_config, toy_dir

if TYPE_CHECKING:
    from pg_server import PgDatabase, PgServer

pytestmark = pytest.mark.postgres
pytest_plugins = ["pg_server"]

_PATIENTS = [
    ("47677", 29, 3, "gastric ulcer"), ("47602", 22, 4, "gastritis"), ("47678", 27, 5, "stomach cancer"),
    ("47905", 43, 6, "gastritis"), ("47909", 52, 11, "flu"), ("47906", 47, 8, "bronchitis"),
    ("47605", 30, 7, "bronchitis"), ("47673", 36, 9, "pneumonia"), ("47607", 32, 10, "stomach cancer"),
]


def _patients(db: PgDatabase) -> None:
    values = ", ".join(f"('{z}', {a}, {s}, '{d}')" for z, a, s, d in _PATIENTS)
    db.execute('CREATE TABLE patients ("ZIPCode" text, "Age" integer, "Salary" integer, "Disease" text)',
               f"INSERT INTO patients VALUES {values}")


def _secrets(server: PgServer) -> list[str]:
    return [server.password, quote(server.password, safe="")]


def _run(tmp_path: Path, uri: str, source: str, output: str) -> Path:
    """``anonkit anonymize --json`` of the toy config reading ``patients`` (a table or a query) at
    ``uri`` and writing ``release`` there or ``out.csv``; the summary's path."""
    cfg = toy_config()
    cfg["input"] = {"path": uri, **({"table": "patients"} if source == "table" else
                                    {"query": "SELECT * FROM patients ORDER BY 1"})}
    cfg["output"] = {"path": uri, "table": "release"} if output == "postgresql" else {"path": "out.csv"}
    toy_dir(tmp_path, cfg)
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump(cfg, sort_keys=False))
    code, out, err = run_cli("anonymize", str(config), "--json")
    assert code == 0, err
    (tmp_path / "run.json").write_text(out)
    return tmp_path / "run.json"


@pytest.mark.parametrize("output", ["postgresql", "csv"])
@pytest.mark.parametrize("source", ["table", "query"])
def test_report_reads_the_run_through_the_configs_uri(pg_db: PgDatabase, pg_server: PgServer, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch, source: str,
                                                      output: str) -> None:
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-pgpass"))
    _patients(pg_db)
    summary = _run(tmp_path, pg_db.uri(), source, output)
    code, out, err = run_cli("report", str(summary), "--out", str(tmp_path / "report.html"))
    assert code == 0, err
    html = (tmp_path / "report.html").read_text()
    for text in (html, out, err, summary.read_text()):
        for secret in _secrets(pg_server):
            assert secret not in text
    # the config is shown with its URIs masked, and the input and release were read
    assert f"postgresql://{pg_server.user}:***@" in html
    assert "9 released" in html


def test_a_uri_without_password_takes_pgpassword_for_the_report(pg_db: PgDatabase, pg_server: PgServer,
                                                                 tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-pgpass"))
    _patients(pg_db)
    bare = pg_db.uri().replace(":" + quote(pg_server.password, safe="") + "@", "@")
    assert "@" in bare and quote(pg_server.password, safe="") not in bare
    monkeypatch.setenv("PGPASSWORD", pg_server.password)
    summary = _run(tmp_path, bare, "table", "postgresql")
    assert json.loads(summary.read_text())["run"]["input"] == f"{bare}#patients"
    monkeypatch.delenv("PGPASSWORD")
    code, _, err = run_cli("report", str(summary), "--out", str(tmp_path / "report.html"))
    assert code == 2 and "no password supplied" in err and "PGPASSWORD" in err and "\n" not in err.strip()
    assert not (tmp_path / "report.html").exists()
    monkeypatch.setenv("PGPASSWORD", pg_server.password)
    code, _, err = run_cli("report", str(summary), "--out", str(tmp_path / "report.html"))
    assert code == 0, err
    html = (tmp_path / "report.html").read_text()
    assert not [s for s in _secrets(pg_server) if s in html]
