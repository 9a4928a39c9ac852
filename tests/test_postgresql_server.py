"""PostgreSQL against a real server (issue 17): reading tables and queries, whole runs, the types a
release lands with, one-transaction writes, ``output.if_exists``, masked passwords, and the refusal to
write over the input.

The server is started once per session by :mod:`pg_server` (Debian's PostgreSQL; each test gets a
fresh database); without the server binaries these tests fail saying to install ``postgresql``.
"""

from __future__ import annotations

import json
import threading
import time
import warnings
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

import numpy as np
import pandas as pd
import pytest
import yaml

from anonkit.errors import InputError
from anonkit.io import check_target, read_table, same_table, write_table
from anonkit.pipeline import run_config
from support import run_cli, toy_config, toy_dir

if TYPE_CHECKING:
    from pg_server import PgDatabase, PgServer

pytestmark = pytest.mark.postgres
pytest_plugins = ["pg_server"]  # its fixtures: pg_server (the session's server), pg_db (a fresh database)

_PATIENTS = [
    ("47677", 29, 3, "gastric ulcer", 1), ("47602", 22, 4, "gastritis", 2), ("47678", 27, 5, "stomach cancer", 3),
    ("47905", 43, 6, "gastritis", 4), ("47909", 52, 11, "flu", 5), ("47906", 47, 8, "bronchitis", 6),
    ("47605", 30, 7, "bronchitis", 7), ("47673", 36, 9, "pneumonia", 8), ("47607", 32, 10, "stomach cancer", 9),
]


def _patients(db: PgDatabase, table: str = "patients") -> None:
    """The t-closeness paper's table (``test2.csv``) with an integer ``visits`` column, made with SQL."""
    values = ", ".join(f"('{z}', {a}, {s}, '{d}', {v})" for z, a, s, d, v in _PATIENTS)
    db.execute(f'CREATE TABLE {table} ("ZIPCode" text, "Age" integer, "Salary" integer, "Disease" text, '
               'visits integer)', f"INSERT INTO {table} VALUES {values}")


def _config(tmp_path: Path, db: PgDatabase, **output: object) -> dict:
    """The toy config reading ``patients`` from ``db`` and writing ``release`` there (``visits`` insensitive)."""
    cfg = toy_config()
    cfg["input"] = {"path": db.uri(), "table": "patients"}
    cfg["attributes"]["visits"] = {"role": "insensitive"}
    cfg["output"] = {"path": db.uri(), "table": "release", **output}
    toy_dir(tmp_path, cfg)
    return cfg


def _write_config(tmp_path: Path, cfg: dict) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def _secrets(server: PgServer) -> list[str]:
    """The password as written and as a URI carries it."""
    return [server.password, quote(server.password, safe="")]


def _no_secret(server: PgServer, *texts: object) -> None:
    for text in texts:
        for secret in _secrets(server):
            assert secret not in str(text), text


def _frame() -> pd.DataFrame:
    return pd.DataFrame({
        "id": np.arange(1, 7, dtype=np.int64),
        "small": np.array([1, 2, 3, 4, 5, 6], dtype=np.int32),
        "score": [0.5, 1.25, None, 3.0, -1.0, 2.5],
        "city": ["Paris", "Köln", None, "Ōsaka", "it's", 'say "hi"'],
        "flag": [True, False, True, True, False, False],
        "band": pd.Categorical(["a", "b", "a", "c", "b", "a"]),
    })


# ------------------------------------------------------------------------------------------ reading


def test_read_a_table_and_a_query(pg_db: PgDatabase) -> None:
    _patients(pg_db)
    frame = read_table(pg_db.uri(), table="patients")
    assert frame.shape == (9, 5)
    assert list(frame.columns) == ["ZIPCode", "Age", "Salary", "Disease", "visits"]
    assert frame["Age"].dtype.kind == "i" and frame["ZIPCode"].tolist()[0] == "47677"
    assert frame["Disease"].dtype == object and isinstance(frame["Disease"][0], str)
    pd.testing.assert_frame_equal(read_table(pg_db.uri(), table="public.patients"), frame)
    older = read_table(pg_db.uri(), query='SELECT "Age", "Disease" FROM patients WHERE "Age" >= 40 ORDER BY 1;')
    assert older["Age"].tolist() == [43, 47, 52] and list(older.columns) == ["Age", "Disease"]
    missing = read_table(pg_db.uri(), query="SELECT 'n/a' AS note, 1 AS n", na_values=["n/a"])
    assert missing["note"].tolist() == [None]


def test_read_keeps_server_types_plain(pg_db: PgDatabase) -> None:
    """numeric → integers or exact Decimals, uuid and json → text; a mixed-case table is its quoted name."""
    pg_db.execute('CREATE TABLE "Mixed" (whole numeric(5, 0), money numeric(10, 2), huge numeric, id uuid, '
                  'doc json, code varchar(5), fixed char(3))',
                  """INSERT INTO "Mixed" VALUES (39, 1.25, 123456789012345678901234567890,
                     'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": 1}', 'x', 'ab'),
                     (NULL, NULL, 7, NULL, NULL, NULL, NULL)""")
    frame = read_table(pg_db.uri(), table="Mixed")
    assert frame["whole"].tolist()[0] == 39 and frame["whole"].dtype.kind in "if"  # NULL makes it float
    assert frame["money"].tolist() == [Decimal("1.25"), None]  # exact Decimal cells, never a rounded float
    assert frame["huge"].tolist() == [Decimal("123456789012345678901234567890"), Decimal(7)]  # beyond 64 bits
    assert frame["id"].tolist() == ["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", None]
    assert json.loads(frame["doc"][0]) == {"a": 1}
    assert frame["fixed"].tolist() == ["ab ", None]
    with pytest.raises(InputError, match=r"^unknown table .*value 'mixed'"):
        read_table(pg_db.uri(), table="mixed")  # quoted: "Mixed" is not mixed


def test_read_refuses_types_without_a_plain_form(pg_db: PgDatabase) -> None:
    pg_db.execute("CREATE TABLE odd (a int, tags int[], span interval)", "INSERT INTO odd VALUES (1, '{1,2}', '1 day')",
                  "CREATE TABLE cash (m money)", "INSERT INTO cash VALUES (12.5)")
    with pytest.raises(InputError, match=r"cannot read the PostgreSQL type _int4.*\"tags\"::text.*column 'tags'"):
        read_table(pg_db.uri(), table="odd")
    with pytest.raises(InputError, match=r"type money: cast it to numeric.*column 'm'"):  # not 1250 cents
        read_table(pg_db.uri(), table="cash")
    assert read_table(pg_db.uri(), query="SELECT m::numeric AS m FROM cash")["m"].tolist() == [12.5]
    assert read_table(pg_db.uri(), query="SELECT a, tags::text AS tags FROM odd")["tags"].tolist() == ["{1,2}"]


def test_read_is_read_only(pg_db: PgDatabase) -> None:
    _patients(pg_db)
    with pytest.raises(InputError, match=r"read-only transaction.*key 'query'"):
        read_table(pg_db.uri(), query="DELETE FROM patients RETURNING *")
    assert pg_db.rows("SELECT count(*) FROM patients") == [(9,)]


def test_read_problems_are_one_line(pg_db: PgDatabase) -> None:
    _patients(pg_db)
    uri = pg_db.uri()
    for kwargs, words in (
        ({"table": "nowhere"}, r"^unknown table .*value 'nowhere'"),
        ({"table": "nope.patients"}, r"^unknown table .*value 'nope.patients'"),
        ({"table": "a.b.c"}, r"`name` or `schema.name`"),
        ({"query": "SELECT * FROM nowhere"}, r"reading PostgreSQL failed: .*nowhere.*key 'query'"),
        ({"query": "  "}, r"the query is empty"),
        ({"query": "SELECT 1 AS a WHERE false"}, r"no data rows"),
    ):
        with pytest.raises(InputError, match=words) as err:
            read_table(uri, **kwargs)
        assert "\n" not in str(err.value)


# ------------------------------------------------------------------------------------------ writing


def test_write_lands_with_the_right_types(pg_db: PgDatabase) -> None:
    frame = _frame()
    write_table(frame, pg_db.uri(), table="typed")
    assert pg_db.columns("typed") == [("id", "bigint"), ("small", "integer"), ("score", "double precision"),
                                      ("city", "text"), ("flag", "boolean"), ("band", "text")]
    assert pg_db.rows("SELECT count(*) FROM typed") == [(6,)]
    back = read_table(pg_db.uri(), table="typed")
    city = frame["city"].astype(object)
    expected = frame.assign(band=frame["band"].astype(str).astype(object), city=city.where(city.notna(), None))
    pd.testing.assert_frame_equal(back, expected, check_dtype=False)
    assert back["id"].dtype == np.int64 and back["small"].dtype == np.int32


def test_integers_with_missing_values_stay_integers(pg_db: PgDatabase) -> None:
    pg_db.execute("CREATE TABLE visits (id integer, n integer, big bigint)")
    pg_db.execute("INSERT INTO visits VALUES (1, 3, 10), (2, NULL, NULL), (3, 4, 12)")
    back = read_table(pg_db.uri(), table="visits")
    assert back["id"].dtype == np.int32 and str(back["n"].dtype) == "Int32" and str(back["big"].dtype) == "Int64"
    write_table(back, pg_db.uri(), table="visits_copy")
    assert pg_db.columns("visits_copy") == [("id", "integer"), ("n", "integer"), ("big", "bigint")]
    assert pg_db.rows("SELECT n, big FROM visits_copy ORDER BY id") == [(3, 10), (None, None), (4, 12)]


def test_write_schema_qualified_and_quoted_names(pg_db: PgDatabase) -> None:
    pg_db.execute("CREATE SCHEMA released")
    write_table(_frame(), pg_db.uri(), table="released.People", if_exists="fail")
    assert ("released", "People") in pg_db.tables()
    assert len(read_table(pg_db.uri(), table="released.People")) == 6
    write_table(_frame().head(2), pg_db.uri(), table="released.People", if_exists="replace")
    write_table(_frame().head(3).assign(more=1), pg_db.uri(), table="released.People", if_exists="replace")
    assert len(read_table(pg_db.uri(), table="released.People")) == 3 and ("public", "People") not in pg_db.tables()
    write_table(_frame(), pg_db.uri(), table='odd "name"; DROP TABLE x', if_exists="fail")
    assert ("public", 'odd "name"; DROP TABLE x') in pg_db.tables()


def test_values_postgresql_cannot_store_are_refused_before_connecting(pg_db: PgDatabase) -> None:
    before = pg_db.tables()
    cases = (
        (pd.DataFrame({"a": ["x", "b\x00c"]}), r"NUL character .*column 'a', value 'b\\x00c', row 2"),
        (pd.DataFrame({"a": np.array([1, 2**63 + 5], dtype=np.uint64)}), r"larger than a bigint.*column 'a'.*row 2"),
        (pd.DataFrame({"a": pd.Series([1, "x"], dtype=object)}), r"cannot store the column in PostgreSQL.*'a'"),
        (pd.DataFrame({"c" * 64: [1]}), r"at most 63 bytes.*column 'c{64}'"),
    )
    for frame, words in cases:
        with pytest.raises(InputError, match=words):
            write_table(frame, pg_db.uri(), table="t", if_exists="fail")
    with pytest.raises(InputError, match=r"at most 63 bytes.*key 'table'"):
        write_table(_frame(), pg_db.uri(), table="t" * 64)
    assert pg_db.tables() == before
    write_table(pd.DataFrame({"a": np.array([1, 2**63 - 1], dtype=np.uint64)}), pg_db.uri(), table="big")
    assert pg_db.rows("SELECT a FROM big ORDER BY a") == [(1,), (2**63 - 1,)]


_FAIL = {"rejected row": "RAISE EXCEPTION 'row % rejected by the test', NEW.id",
         "killed connection": "PERFORM pg_terminate_backend(pg_backend_pid())"}
_REJECT = ["""CREATE FUNCTION reject_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id = 1500 THEN {fail}; END IF;
  RETURN NEW;
END $$""", """CREATE FUNCTION arm_reject() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE obj record;
BEGIN
  FOR obj IN SELECT * FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE TABLE' LOOP
    EXECUTE format('CREATE TRIGGER reject BEFORE INSERT ON %s FOR EACH ROW EXECUTE FUNCTION reject_row()',
                   obj.object_identity);
  END LOOP;
END $$""", "CREATE EVENT TRIGGER arm_reject ON ddl_command_end WHEN TAG IN ('CREATE TABLE') "
                     "EXECUTE FUNCTION arm_reject()",
           "CREATE TRIGGER reject BEFORE INSERT ON target FOR EACH ROW EXECUTE FUNCTION reject_row()"]


@pytest.mark.parametrize("failure", ["rejected row", "killed connection"])
def test_a_failure_half_way_leaves_the_target_as_it_was(pg_db: PgDatabase, pg_server: PgServer, failure: str) -> None:
    """A trigger fails the copy at row 1500 (an error, or the server ends the connection) — on the
    target and, through an event trigger, on every table a write creates: replacing the rows of the
    target (same columns), replacing the target by a new table (other columns) and creating a new table
    all leave the database exactly as it was."""
    old = pd.DataFrame({"id": np.array([1, 2, 3], dtype=np.int64), "name": ["old", "rows", "kept"]})
    write_table(old, pg_db.uri(), table="target", if_exists="fail")
    pg_db.execute(_REJECT[0].replace("{fail}", _FAIL[failure]), *_REJECT[1:])
    before_rows = pg_db.rows("SELECT * FROM target ORDER BY id")
    before_tables = pg_db.tables()
    n = 3000
    new = pd.DataFrame({"id": np.arange(1, n + 1, dtype=np.int64), "name": [f"new {i}" for i in range(n)]})
    words = "row 1500 rejected by the test" if failure == "rejected row" else "terminat|server closed|connection"
    attempts = (("target", "replace", new), ("target", "replace", new.assign(extra=1.5)), ("fresh", "fail", new))
    for target, mode, frame in attempts:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(InputError, match=words) as err:
                write_table(frame, pg_db.uri(), table=target, if_exists=mode)
        assert "\n" not in str(err.value)
        _no_secret(pg_server, err.value, *(w.message for w in caught))
        assert pg_db.rows("SELECT * FROM target ORDER BY id") == before_rows, (target, list(frame.columns))
        assert pg_db.tables() == before_tables  # no new, temporary or partial table
        assert pg_db.columns("target") == [("id", "bigint"), ("name", "text")]
    pg_db.execute("DROP EVENT TRIGGER arm_reject", "DROP TRIGGER reject ON target")
    write_table(new, pg_db.uri(), table="target", if_exists="replace")
    assert pg_db.rows("SELECT count(*), max(id) FROM target") == [(n, n)]


def test_replace_keeps_the_table_when_the_columns_match(pg_db: PgDatabase) -> None:
    """Same columns: the rows are replaced in the table, which keeps its index, grants and the views on
    it; other columns: the table is dropped and made anew (a view on it makes that fail, changing nothing)."""
    write_table(pd.DataFrame({"id": [1, 2], "name": ["a", "b"]}), pg_db.uri(), table="target")
    pg_db.execute("CREATE INDEX target_id ON target (id)", "CREATE VIEW names AS SELECT name FROM target")
    write_table(pd.DataFrame({"id": [7, 8, 9], "name": ["x", "y", "z"]}), pg_db.uri(), table="target")
    assert pg_db.rows("SELECT name FROM names ORDER BY name") == [("x",), ("y",), ("z",)]
    assert pg_db.rows("SELECT count(*) FROM pg_indexes WHERE indexname = 'target_id'") == [(1,)]
    with pytest.raises(InputError, match=r"writing PostgreSQL failed: .*depend.*value 'target'"):
        write_table(pd.DataFrame({"id": ["7"], "name": ["x"]}), pg_db.uri(), table="target")
    assert pg_db.rows("SELECT name FROM names ORDER BY name") == [("x",), ("y",), ("z",)]
    pg_db.execute("DROP VIEW names")
    write_table(pd.DataFrame({"id": ["7"], "name": ["x"]}), pg_db.uri(), table="target")
    assert pg_db.columns("target") == [("id", "text"), ("name", "text")]


def test_replace_is_atomic_for_readers(pg_db: PgDatabase) -> None:
    """A reader polling the table while it is replaced many times sees the old rows or the new ones,
    never an empty, partial or missing table."""
    sizes = (2000, 3000)
    write_table(pd.DataFrame({"id": np.arange(sizes[0])}), pg_db.uri(), table="target", if_exists="fail")
    seen: list[object] = []
    done = threading.Event()

    def read() -> None:
        with pg_db.connect() as conn, conn.cursor() as cursor:
            while not done.is_set():
                try:
                    cursor.execute("SELECT count(*) FROM target")
                    seen.append(cursor.fetchone()[0])
                except Exception as exc:  # recorded and checked below
                    seen.append(repr(exc))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for i in range(12):
            frame = pd.DataFrame({"id": np.arange(sizes[(i + 1) % 2])})
            write_table(frame, pg_db.uri(), table="target", if_exists="replace")
            time.sleep(0.01)
    finally:
        done.set()
        reader.join()
    assert seen and set(seen) <= set(sizes), [s for s in seen if s not in sizes][:3]


# ------------------------------------------------------------------------------------------ whole runs


def test_anonymize_from_postgresql_to_postgresql(pg_db: PgDatabase, pg_server: PgServer, tmp_path: Path) -> None:
    _patients(pg_db)
    cfg = _config(tmp_path, pg_db)
    code, out, err = run_cli("anonymize", str(_write_config(tmp_path, cfg)), "--json")
    assert code == 0, err
    summary = json.loads(out)
    _no_secret(pg_server, out, err)
    assert summary["output"].endswith("/" + pg_db.name + "#release") and "@127.0.0.1" in summary["output"]
    assert summary["run"]["input"].endswith("#patients")
    assert pg_db.rows("SELECT count(*) FROM release") == [(9,)]
    types = dict(pg_db.columns("release"))
    assert types == {"ZIPCode": "text", "Age": "text", "Salary": "integer", "Disease": "text", "visits": "integer"}
    assert sorted(r[0] for r in pg_db.rows("SELECT visits FROM release")) == list(range(1, 10))
    assert pg_db.rows("SELECT count(*) FROM patients") == [(9,)]  # the input is untouched
    code, out, err = run_cli("anonymize", str(_write_config(tmp_path, cfg)))  # the human summary too
    _no_secret(pg_server, out, err)


def test_anonymize_a_query_through_run_config(pg_db: PgDatabase, tmp_path: Path) -> None:
    _patients(pg_db)
    cfg = _config(tmp_path, pg_db)
    cfg["input"] = {"path": pg_db.uri(), "query": "SELECT * FROM patients WHERE visits <= 9"}
    from anonkit.config import parse_config

    result = run_config(parse_config(cfg), config_dir=tmp_path)
    assert result.summary["satisfied"] and pg_db.rows("SELECT count(*) FROM release") == [(9,)]


def test_an_existing_table_is_refused_unless_replace(pg_db: PgDatabase, tmp_path: Path) -> None:
    _patients(pg_db)
    pg_db.execute("CREATE TABLE release (old text)", "INSERT INTO release VALUES ('kept')")
    from anonkit.config import parse_config

    phases: list[str] = []
    with pytest.raises(InputError) as err:
        run_config(parse_config(_config(tmp_path, pg_db)), config_dir=tmp_path, progress=phases.append)
    text = str(err.value)
    assert text.startswith("the table already exists") and "value 'release'" in text and "if_exists" in text
    assert "output.if_exists: replace" in text and "\n" not in text
    assert pg_db.rows("SELECT * FROM release") == [("kept",)]
    result = run_config(parse_config(_config(tmp_path, pg_db, if_exists="replace")), config_dir=tmp_path)
    assert result.summary["satisfied"]
    assert pg_db.rows("SELECT count(*) FROM release") == [(9,)]
    assert "old" not in dict(pg_db.columns("release"))
    # write_table itself: fail refuses naming the key, replace replaces
    with pytest.raises(InputError, match=r"already exists.*key 'if_exists', value 'release'"):
        write_table(_frame(), pg_db.uri(), table="release", if_exists="fail")
    with pytest.raises(InputError, match=r"already exists.*key 'if_exists', value 'release'"):
        check_target(pg_db.uri(), table="release", if_exists="fail")
    check_target(pg_db.uri(), table="release", if_exists="replace")
    code, _, err2 = run_cli("anonymize", str(_write_config(tmp_path, _config(tmp_path, pg_db))))
    assert code == 2 and "already exists" in err2


def test_the_password_never_shows(pg_db: PgDatabase, pg_server: PgServer, tmp_path: Path) -> None:
    _patients(pg_db)
    from pg_server import _free_port

    bad = {
        "wrong password": pg_db.uri(password="not-the-password"),
        "unknown database": pg_server.uri("no_such_db"),
        "server down": pg_db.uri(port=_free_port()),
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for label, uri in bad.items():
            for call in (lambda u=uri: read_table(u, table="patients"),
                         lambda u=uri: write_table(_frame(), u, table="out"),
                         lambda u=uri: check_target(u, table="out")):
                with pytest.raises(InputError) as err:
                    call()
                assert "\n" not in str(err.value), label
                _no_secret(pg_server, err.value)
        for call in (lambda: read_table(pg_db.uri(), table="nowhere"),
                     lambda: read_table(pg_db.uri(), query=f"SELECT '{pg_server.password}' FROM nowhere"),
                     lambda: write_table(_frame(), pg_db.uri(), table="patients", if_exists="fail")):
            with pytest.raises(InputError) as err:
                call()
            _no_secret(pg_server, err.value)
    _no_secret(pg_server, *(w.message for w in caught))
    # the command: the failure's one line, and --json of a failed and of an unsatisfiable run
    for label, uri in bad.items():
        cfg = _config(tmp_path, pg_db)
        cfg["input"]["path"] = uri
        code, out, err_text = run_cli("anonymize", str(_write_config(tmp_path, cfg)), "--json")
        assert code == 2 and err_text.count("\n") <= 1, (label, err_text)
        _no_secret(pg_server, out, err_text)
    cfg = _config(tmp_path, pg_db)
    cfg["privacy"] = [{"model": "k-anonymity", "k": 10}]  # more than the 9 records
    code, out, err_text = run_cli("anonymize", str(_write_config(tmp_path, cfg)), "--json")
    assert code == 2 and "10-anonymity" in err_text
    _no_secret(pg_server, out, err_text)


def test_a_wrong_login_is_refused_before_any_work(pg_db: PgDatabase, tmp_path: Path) -> None:
    _patients(pg_db)
    from anonkit.config import parse_config

    for output in ({"path": pg_db.uri(password="wrong")}, {"table": "nope.release"}):
        cfg = _config(tmp_path, pg_db)
        cfg["output"].update(output)
        phases: list[str] = []
        with pytest.raises(InputError, match=r"password authentication failed|unknown schema"):
            run_config(parse_config(cfg), config_dir=tmp_path, progress=phases.append)
        assert phases == []


# ------------------------------------------------------------------------------------------ output is input


def test_the_input_table_is_never_the_output(pg_db: PgDatabase, pg_server: PgServer, tmp_path: Path) -> None:
    _patients(pg_db)
    from anonkit.config import parse_config

    before = pg_db.rows("SELECT * FROM patients ORDER BY visits")
    spellings = [
        {"table": "patients"},
        {"table": "PATIENTS"},
        {"table": "public.patients"},
        {"table": "patients", "path": pg_db.uri(host="localhost")},
        {"table": "public.PATIENTS", "path": pg_db.uri(host="localhost"), "if_exists": "replace"},
    ]
    for output in spellings:
        cfg = _config(tmp_path, pg_db)
        cfg["output"].update(output)
        phases: list[str] = []
        with pytest.raises(InputError, match="the output is the input") as err:
            run_config(parse_config(cfg), config_dir=tmp_path, progress=phases.append)
        assert phases == [], output  # refused before any work
        assert "output.path" in str(err.value)
        _no_secret(pg_server, err.value)
    cfg = _config(tmp_path, pg_db)
    cfg["input"]["table"] = "public.patients"
    cfg["output"]["table"] = "patients"
    with pytest.raises(InputError, match="the output is the input"):
        run_config(parse_config(cfg), config_dir=tmp_path)
    assert pg_db.rows("SELECT * FROM patients ORDER BY visits") == before


def test_same_table_knows_spellings() -> None:
    """What same_table can tell from two URIs, and what it errs on."""
    base = "postgresql://alice:pw@127.0.0.1:5432/db"
    same = [
        (base, "patients", "postgresql://bob:other@localhost/db", "patients"),  # user, password, port 5432
        (base, "patients", "postgresql://alice@[::1]:5432/db", "PATIENTS"),
        (base, "patients", "postgresql:///db?host=/var/run/postgresql", "public.patients"),  # a Unix socket
        (base, "s.patients", "postgresql://alice@127.0.0.2/db", "patients"),  # unqualified: any schema
        ("postgresql://alice@h/", "t", "postgresql://alice@h/alice", "t"),  # the database defaults to the user
    ]
    different = [
        (base, "patients", "postgresql://alice@127.0.0.1:5433/db", "patients"),
        (base, "patients", "postgresql://alice@127.0.0.1/other", "patients"),
        (base, "patients", "postgresql://alice@db.example/db", "patients"),  # another host (or a name of this one)
        (base, "a.patients", base, "b.patients"),
        (base, "patients", base, "patients_release"),
        (base, None, base, "patients"),  # a query is no table
    ]
    for a, ta, b, tb in same:
        assert same_table(a, None, ta, b, None, tb), (a, ta, b, tb)
        assert same_table(b, None, tb, a, None, ta)
    for a, ta, b, tb in different:
        assert not same_table(a, None, ta, b, None, tb), (a, ta, b, tb)


# ------------------------------------------------------------------------------------------ Adult


def test_an_adult_release_round_trips(pg_db: PgDatabase) -> None:
    """A 30,162-row release (Adult, 5-anonymous, suppressed records marked) written and read back."""
    from anonkit import Schema, anonymize
    from anonkit.datasets import load_adult
    from anonkit.models import KAnonymity

    frame, hierarchies = load_adult()
    frame = frame.assign(row=np.arange(len(frame), dtype=np.int64))
    quasi = ["age", "sex", "race", "marital-status"]
    schema = Schema.of(quasi=quasi, hierarchies={q: hierarchies[q] for q in quasi},
                       insensitive=[c for c in frame.columns if c not in quasi])
    release = anonymize(frame, schema, [KAnonymity(5)], algorithm="flash", suppressed="mark").frame
    assert len(release) == 30162
    write_table(release, pg_db.uri(), table="adult_release", if_exists="fail")
    back = read_table(pg_db.uri(), table="adult_release")
    assert dict(pg_db.columns("adult_release"))["row"] == "bigint"
    pd.testing.assert_frame_equal(back.sort_values("row").reset_index(drop=True),
                                  release.sort_values("row").reset_index(drop=True), check_dtype=False)


def test_missing_server_binaries_fail_saying_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import pg_server

    monkeypatch.setattr(pg_server.glob, "glob", lambda pattern: [])
    monkeypatch.setattr(pg_server.shutil, "which", lambda name, path=None: None)
    with pytest.raises(pytest.fail.Exception, match="apt-get install postgresql"):
        pg_server.bin_dir()


def test_numeric_keeps_its_precision_both_ways(pg_db: PgDatabase) -> None:
    """``numeric`` is read as exact Decimal cells (never a rounded float) and written back as ``numeric``
    with every digit; a whole ``numeric`` that fits 64 bits stays an integer column (the control)."""
    pg_db.execute("CREATE TABLE prices (id int, price numeric(30, 12), free numeric, whole numeric(10, 0))",
                  """INSERT INTO prices VALUES
                     (1, 123456789012345678.123456789012, 0.1, 7),
                     (2, NULL, 'NaN', 8),
                     (3, -0.000000000001, 98765432109876543210987654321.5, NULL),
                     (4, 1, 'Infinity', 9)""")
    frame = read_table(pg_db.uri(), query="SELECT * FROM prices ORDER BY id")
    assert frame["price"].tolist()[0] == Decimal("123456789012345678.123456789012")  # 30 digits, exact
    assert frame["price"][1] is None and frame["price"][2] == Decimal("-1E-12")
    assert frame["free"][0] == Decimal("0.1") and frame["free"][1].is_nan()
    assert frame["free"][2] == Decimal("98765432109876543210987654321.5") and frame["free"][3] == Decimal("Infinity")
    assert frame["whole"].tolist()[:2] == [7, 8] and str(frame["whole"].dtype) in ("int64", "Int64")
    with pytest.raises(InputError, match=r"NaN or Infinity.*column 'free'.*row 2"):  # no exact Arrow form
        write_table(frame, pg_db.uri(), table="refused")
    finite = frame.drop(columns="free").assign(free=[Decimal("0.1"), None, Decimal("98765432109876543210987654321.5"),
                                                     Decimal("2.50")])
    write_table(finite, pg_db.uri(), table="prices_back")
    types = dict(pg_db.columns("prices_back"))
    assert types["price"] == "numeric" and types["free"] == "numeric" and types["whole"] != "numeric", types
    # the values, digit for digit (the driver may drop trailing zeros: 2.50 is stored as 2.5, the same number)
    assert [tuple(None if v is None else Decimal(v) for v in row)
            for row in pg_db.rows("SELECT price::text, free::text FROM prices_back ORDER BY id")] == [
        (Decimal("123456789012345678.123456789012"), Decimal("0.1")), (None, None),
        (Decimal("-0.000000000001"), Decimal("98765432109876543210987654321.5")), (Decimal(1), Decimal("2.5"))]
    again = read_table(pg_db.uri(), query="SELECT * FROM prices_back ORDER BY id")
    for name in ("price", "free"):
        assert [None if v is None else Decimal(v) for v in again[name]] == list(finite[name]), name
    write_table(finite, pg_db.uri(), table="prices_back", if_exists="replace")  # rows replaced, types kept
    assert pg_db.rows("SELECT count(*) FROM prices_back") == [(4,)]
