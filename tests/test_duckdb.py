"""DuckDB database files as input and output: tables, views and queries read through Arrow, tables
written in one transaction (a failure leaves the file as it was), one-line errors."""

from __future__ import annotations

import datetime as dt
import sqlite3
import sys
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
import yaml

from anonkit import Schema, anonymize, load_adult
from anonkit.errors import InputError
from anonkit.io import check_target, read_table, same_table, write_table
from anonkit.io import duckdb as io_duckdb
from anonkit.models import KAnonymity
from support import run_cli, toy_config, toy_dir


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "zip": ["081675", "00501", None],
            "city": ["Zürich", "東京", "naïve 🙂"],
            "age": [34, 45, 61],
            "score": [0.1, np.nan, 2.5],
            "flag": [True, False, True],
            "when": pd.to_datetime(["2024-03-01 08:30:00", "2024-03-02", "2024-03-03"], format="ISO8601"),
        }
    )


def _db(path: Path, *statements: str) -> Path:
    with duckdb.connect(str(path)) as con:
        for sql in statements:
            con.execute(sql)
    return path


def _rows(path: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute(sql).fetchall()


def _one_line(err: pytest.ExceptionInfo[InputError]) -> str:
    text = str(err.value)
    assert "\n" not in text
    return text


# ------------------------------------------------------------------------------------------ round trips


def test_round_trip_keeps_types_text_unicode_and_missing(tmp_path: Path) -> None:
    path = tmp_path / "out.duckdb"
    frame = _frame()
    write_table(frame, path, table="people")
    back = read_table(path)  # the only table
    assert list(back.columns) == list(frame.columns)
    assert back["zip"].tolist() == ["081675", "00501", None] and back["zip"].dtype == object
    assert back["city"].tolist() == frame["city"].tolist()
    assert back["age"].dtype == np.int64 and back["age"].tolist() == [34, 45, 61]
    assert back["score"].dtype == np.float64 and np.isnan(back["score"][1])
    assert back["flag"].tolist() == [True, False, True]
    assert back["when"].tolist() == frame["when"].tolist()
    assert [type(v) for v in back["city"]] == [str, str, str]
    assert read_table(path, table="PEOPLE", na_values=["00501"])["zip"].tolist() == ["081675", None, None]
    assert _rows(path, "SELECT data_type FROM duckdb_columns() WHERE column_name = 'zip'") == [("VARCHAR",)]


def test_integers_with_missing_values_stay_integers(tmp_path: Path) -> None:
    """A nullable integer column is read as pandas' nullable integer of its width (not floats), is
    published as such and lands as an integer column again."""
    import duckdb

    path = tmp_path / "n.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE t (id INTEGER, visits INTEGER, sex VARCHAR)")
    con.execute("INSERT INTO t VALUES (1, 3, 'f'), (2, NULL, 'm'), (3, 4, 'f'), (4, 3, 'm')")
    con.close()
    back = read_table(path, table="t")
    assert back["id"].dtype == np.int32 and str(back["visits"].dtype) == "Int32"
    assert back["visits"].tolist()[:2] == [3, pd.NA] or pd.isna(back["visits"][1])
    result = anonymize(back, Schema.of(identifier=["id"], quasi=["sex"], insensitive=["visits"]), [KAnonymity(2)])
    assert str(result.frame["visits"].dtype) == "Int32"
    write_table(result.frame, path, table="release")
    assert _rows(path, "SELECT data_type FROM duckdb_columns() WHERE table_name = 'release' AND "
                       "column_name = 'visits'") == [("INTEGER",)]
    assert sorted(map(str, _rows(path, "SELECT visits FROM release"))) == ["(3,)", "(3,)", "(4,)", "(None,)"]


def test_text_release_round_trip_and_odd_names(tmp_path: Path) -> None:
    frame = pd.DataFrame({'we"ird col': ["=1+1", "x"], "n": ["1", "2"]}, dtype=object)
    write_table(frame, tmp_path / "x.ddb", table='odd "name"')
    assert read_table(tmp_path / "x.ddb", table='odd "name"').to_dict("list") == frame.to_dict("list")


def test_adult_round_trip_through_anonymize(tmp_path: Path) -> None:
    frame, h = load_adult()
    qi = [c for c in frame.columns if c != "salary-class"]
    schema = Schema.of(quasi=qi, sensitive=["salary-class"], hierarchies={q: h[q] for q in qi})
    result = anonymize(frame, schema, [KAnonymity(5)], algorithm="mondrian")
    path = tmp_path / "adult.duckdb"
    write_table(frame, path, table="adult")
    write_table(result.frame, path, table="release")
    assert read_table(path, table="adult").to_dict("list") == frame.astype(object).to_dict("list")
    back = read_table(path, table="release")
    assert back.to_dict("list") == result.frame.astype(object).to_dict("list")
    assert read_table(path, query="SELECT count(*) AS n FROM release")["n"].tolist() == [len(result.frame)]


def test_tables_views_schemas_enums_and_queries(tmp_path: Path) -> None:
    path = _db(
        tmp_path / "db.duckdb",
        "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
        "CREATE TABLE people (id INTEGER, m mood, d DATE, amount DECIMAL(10, 2), name VARCHAR)",
        "INSERT INTO people VALUES (1, 'ok', '2020-01-02', 1.50, 'Ann'), (2, NULL, NULL, NULL, NULL)",
        "CREATE VIEW adults AS SELECT id, name FROM people WHERE id = 1",
        "CREATE SCHEMA archive",
        "CREATE TABLE archive.old (x VARCHAR)",
        "INSERT INTO archive.old VALUES ('kept')",
    )
    people = read_table(path, table="people")
    assert people["m"].tolist() == ["ok", None] and people["m"].dtype == object  # an ENUM reads as its text
    assert people["d"].tolist()[0] == dt.date(2020, 1, 2)
    assert str(people["amount"][0]) == "1.50"
    assert read_table(path, table="adults").to_dict("list") == {"id": [1], "name": ["Ann"]}
    assert read_table(path, table="archive.old")["x"].tolist() == ["kept"]
    assert read_table(path, query="SELECT name FROM people WHERE id = 1")["name"].tolist() == ["Ann"]
    with pytest.raises(InputError) as err:
        read_table(path)
    assert "pass `table` or `query`; the database has tables: adults, archive.old, people" in _one_line(err)
    with pytest.raises(InputError) as err:
        read_table(path, table="nope")
    assert "unknown table; the database has tables: adults, archive.old, people" in _one_line(err)
    assert "value 'nope'" in str(err.value)


def test_query_errors_and_empty_results(tmp_path: Path) -> None:
    path = _db(tmp_path / "db.duckdb", "CREATE TABLE t (a INTEGER)", "INSERT INTO t VALUES (1)")
    with pytest.raises(InputError) as err:
        read_table(path, query="SELECT * FROM missing_table")
    text = _one_line(err)
    assert text.startswith("the SQL query failed") and "missing_table" in text and "'query'" in text
    with pytest.raises(InputError, match="the SQL query failed"):
        read_table(path, query="DELETE FROM t")  # the file is opened read-only
    assert _rows(path, "SELECT count(*) FROM t") == [(1,)]
    with pytest.raises(InputError, match="no data rows"):
        read_table(path, query="SELECT * FROM t WHERE a > 1")
    with pytest.raises(InputError, match="duplicate column name"):
        read_table(path, query="SELECT a, a FROM t")
    with pytest.raises(InputError, match="either `table` or `query`"):
        read_table(path, table="t", query="SELECT 1")


def test_bad_files_are_one_line_errors(tmp_path: Path) -> None:
    (tmp_path / "text.duckdb").write_text("id,name\n1,Ann\n" * 100)
    (tmp_path / "empty.duckdb").write_bytes(b"")
    with sqlite3.connect(tmp_path / "lite.duckdb") as con:
        con.execute("CREATE TABLE t (a)")
    cases = {"text.duckdb": "cannot open the DuckDB file", "empty.duckdb": "input is empty",
             "lite.duckdb": "this is a SQLite database, not DuckDB", "missing.duckdb": "file not found"}
    for name, words in cases.items():
        with pytest.raises(InputError) as err:
            read_table(tmp_path / name)
        assert words in _one_line(err) and name in str(err.value)
    with pytest.raises(InputError, match="cannot open the DuckDB file"):
        write_table(_frame(), tmp_path / "text.duckdb", table="t")
    assert (tmp_path / "text.duckdb").read_text().startswith("id,name")
    with pytest.raises(InputError, match="needs a table name"):
        write_table(_frame(), tmp_path / "new.duckdb")
    with pytest.raises(InputError, match="needs a table name"):
        check_target(tmp_path / "new.duckdb")
    assert check_target(tmp_path / "new.duckdb", table="t") == ("duckdb", str(tmp_path / "new.duckdb"))
    with pytest.raises(InputError) as err:
        write_table(pd.DataFrame({"a": [1, "x"]}), tmp_path / "mixed.duckdb", table="t")
    assert "cannot store the column in DuckDB" in _one_line(err) and "row 2" in str(err.value)
    assert not (tmp_path / "new.duckdb").exists() and not (tmp_path / "mixed.duckdb").exists()


def test_missing_extra_is_one_line_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "x.duckdb"
    write_table(_frame(), path, table="t")
    monkeypatch.setitem(sys.modules, "duckdb", None)
    for call in (lambda: read_table(path), lambda: write_table(_frame(), tmp_path / "y.duckdb", table="t"),
                 lambda: check_target(tmp_path / "y.duckdb", table="t")):
        with pytest.raises(InputError) as err:
            call()
        assert 'pip install "anonkit[duckdb]"' in _one_line(err)
    assert io_duckdb.sole_duckdb_table(path) is None


# ------------------------------------------------------------------------------------------ writing


def test_replace_append_fail(tmp_path: Path) -> None:
    path = tmp_path / "db.duckdb"
    write_table(pd.DataFrame({"a": [1], "b": ["x"]}), path, table="t")
    write_table(pd.DataFrame({"b": ["y"], "a": [2]}), path, table="T", if_exists="append")  # by name
    assert _rows(path, "SELECT a, b FROM t ORDER BY a") == [(1, "x"), (2, "y")]
    with pytest.raises(InputError) as err:
        write_table(pd.DataFrame({"a": [3]}), path, table="t", if_exists="fail")
    assert "already exists" in _one_line(err)
    write_table(pd.DataFrame({"c": ["new"]}), path, table="t")  # replace: the new columns
    assert _rows(path, "SELECT * FROM t") == [("new",)]
    write_table(pd.DataFrame({"c": ["other"]}), path, table="u", if_exists="fail")
    assert _rows(path, "SELECT count(*) FROM duckdb_tables()") == [(2,)]
    with pytest.raises(InputError, match="cannot write the DuckDB table"):
        write_table(pd.DataFrame({"zzz": [1]}), path, table="t", if_exists="append")


def test_outputs_are_checked_before_any_work(tmp_path: Path) -> None:
    path = tmp_path / "db.duckdb"
    write_table(pd.DataFrame({"a": [1]}), path, table="t")
    with pytest.raises(InputError) as err:
        check_target(path, table="T", if_exists="fail")
    assert "already exists" in _one_line(err) and "'if_exists'" in str(err.value)
    assert check_target(path, table="t", if_exists="replace")[0] == "duckdb"
    assert check_target(path, table="u", if_exists="fail")[0] == "duckdb"
    (tmp_path / "text.duckdb").write_text("a,b\n" * 100)
    with pytest.raises(InputError, match="cannot open the DuckDB file"):
        check_target(tmp_path / "text.duckdb", table="t")
    (tmp_path / "touched.duckdb").write_bytes(b"")  # an empty file is a new database
    check_target(tmp_path / "touched.duckdb", table="t", if_exists="fail")
    write_table(pd.DataFrame({"a": [1]}), tmp_path / "touched.duckdb", table="t", if_exists="fail")
    assert read_table(tmp_path / "touched.duckdb")["a"].tolist() == [1]


def test_a_failed_append_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = _db(tmp_path / "db.duckdb", "CREATE TABLE t (a INTEGER CHECK (a < 10), b VARCHAR)",
               "INSERT INTO t VALUES (1, 'x')")
    before = path.read_bytes()
    with pytest.raises(InputError) as err:
        write_table(pd.DataFrame({"a": [2, 3, 11, 4], "b": list("pqrs")}), path, table="t", if_exists="append")
    assert "CHECK constraint" in _one_line(err)
    assert path.read_bytes() == before
    assert _rows(path, "SELECT * FROM t") == [(1, "x")]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db.duckdb"]


def test_a_failure_after_the_table_is_written_rolls_it_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "db.duckdb"
    write_table(pd.DataFrame({"a": [1, 2]}), path, table="t")
    before = path.read_bytes()
    fill = io_duckdb._fill

    def fill_then_fail(con, quoted, source, append):
        fill(con, quoted, source, append)
        written = con.execute(f"SELECT count(*) FROM {quoted}").fetchone()[0]
        assert written == (5 if append else 3)  # written, not yet committed
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(io_duckdb, "_fill", fill_then_fail)
    for if_exists in ("replace", "append"):
        with pytest.raises(RuntimeError, match="disk on fire"):
            write_table(pd.DataFrame({"a": [7, 8, 9]}), path, table="t", if_exists=if_exists)
        assert path.read_bytes() == before
        assert _rows(path, "SELECT a FROM t ORDER BY a") == [(1,), (2,)]
    with pytest.raises(RuntimeError, match="disk on fire"):
        write_table(pd.DataFrame({"a": [7, 8, 9]}), tmp_path / "new.duckdb", table="t")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db.duckdb"]  # the new file is removed


# ------------------------------------------------------------------------------------------ the pipeline


def test_same_table_knows_duckdb_files_and_their_only_table(tmp_path: Path) -> None:
    one = tmp_path / "one.duckdb"
    write_table(_frame(), one, table="people")
    assert same_table(one, None, "people", tmp_path / "." / "one.duckdb", "duckdb", "PEOPLE")
    assert same_table(one, None, "people", one, None, None)  # no table: the only one, what is read
    assert not same_table(one, None, "release", one, None, None)
    assert not same_table(one, None, "people", tmp_path / "other.duckdb", None, "people")
    write_table(_frame(), one, table="second")
    assert not same_table(one, None, "people", one, None, None)  # two tables: a query or an error


def test_output_over_input_is_refused_and_another_table_is_written(tmp_path: Path) -> None:
    toy = toy_dir(tmp_path, toy_config())
    write_table(read_table(toy / "test2.csv", separator=";"), toy / "data.duckdb", table="patients")
    before = (toy / "data.duckdb").read_bytes()
    for output in ({"path": "data.duckdb", "table": "Patients"}, {"path": "./data.duckdb", "table": "patients"}):
        for source in ({"path": "data.duckdb"}, {"path": "data.duckdb", "table": "patients"}):
            # refused as the input whether or not replacing an existing table was allowed
            for if_exists, words in (("fail", "the output is the input"), ("replace", "the output is the input")):
                config = toy_config(input=source, output={**output, "if_exists": if_exists})
                (toy / "c.yaml").write_text(yaml.safe_dump(config))
                code, _, err = run_cli("anonymize", str(toy / "c.yaml"))
                assert code == 2 and words in err, err
    assert (toy / "data.duckdb").read_bytes() == before
    config = toy_config(input={"path": "data.duckdb"}, output={"path": "data.duckdb", "table": "released"})
    (toy / "c.yaml").write_text(yaml.safe_dump(config))
    code, _, err = run_cli("anonymize", str(toy / "c.yaml"))
    assert code == 0, err
    released = read_table(toy / "data.duckdb", table="released")
    (toy / "c.yaml").write_text(yaml.safe_dump(toy_config()))
    code, _, err = run_cli("anonymize", str(toy / "c.yaml"))
    assert code == 0, err
    from_csv = read_table(toy / "out.csv", separator=";")
    assert released.astype(str).to_dict("list") == from_csv.to_dict("list")
