"""Tests of anonkit.io: reading, writing and shuffling tables."""

from __future__ import annotations

import sqlite3
import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.errors import InputError
from anonkit.io import _files, read_table, shuffle_rows, sole_sqlite_table, write_table
from anonkit.io import csv as io_csv
from anonkit.io import parquet as io_parquet


def _write(path: Path, data: str | bytes, encoding: str = "utf-8") -> Path:
    path.write_bytes(data.encode(encoding) if isinstance(data, str) else data)
    return path


def _sample() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": ["34", "45", ""],
            "city": ["Paris, FR", 'say "hi"', "line\nbreak"],
            "zip": ["81667", "081675", "-"],
        },
        dtype=object,
    )


def _assert_plain_text(frame: pd.DataFrame) -> None:
    for name in frame.columns:
        assert frame[name].dtype == object, name
        assert all(type(v) is str for v in frame[name]), name


# ------------------------------------------------------------------------------------------ CSV read


def test_csv_semicolon_quotes_crlf_bom(tmp_path: Path) -> None:
    text = '\ufeffname;note;n\r\n"Doe; John";"a ""quoted"" word";1\r\nAnn;;-2\r\n'
    frame = read_table(_write(tmp_path / "in.csv", text), separator=";")
    assert list(frame.columns) == ["name", "note", "n"]
    assert frame.to_dict("list") == {
        "name": ["Doe; John", "Ann"],
        "note": ['a "quoted" word', ""],
        "n": ["1", "-2"],
    }
    _assert_plain_text(frame)
    assert isinstance(frame.index, pd.RangeIndex)


def test_csv_cells_are_plain_str_not_pandas_string_dtype(tmp_path: Path) -> None:
    frame = read_table(_write(tmp_path / "in.csv", "a,b\n1,x\n2,\n"))
    assert [str(d) for d in frame.dtypes] == ["object", "object"]
    assert frame.loc[1, "b"] == ""
    _assert_plain_text(frame)


def test_csv_na_values_become_none(tmp_path: Path) -> None:
    path = _write(tmp_path / "in.csv", "a,b\nNA,x\n,?\n")
    frame = read_table(path, na_values=["NA", "?"])
    assert frame["a"].tolist() == [None, ""]
    assert frame["b"].tolist() == ["x", None]
    assert frame["a"].dtype == object


def test_csv_round_trip_with_separator(tmp_path: Path) -> None:
    frame = _sample()
    path = tmp_path / "out.csv"
    write_table(frame, path, separator=";", neutralise=False)
    back = read_table(path, separator=";")
    pd.testing.assert_frame_equal(back, frame)


def test_tsv_suffix_defaults_to_tab(tmp_path: Path) -> None:
    path = tmp_path / "out.tsv"
    write_table(_sample(), path)
    assert path.read_text().splitlines()[0] == "age\tcity\tzip"
    pd.testing.assert_frame_equal(
        read_table(path), _sample().assign(zip=pd.Series(["81667", "081675", "'-"], dtype=object))
    )


def test_csv_other_encoding_and_blank_lines(tmp_path: Path) -> None:
    path = _write(tmp_path / "in.txt", "ville,n\n\nZürich,1\n\n", encoding="latin-1")
    frame = read_table(path, encoding="latin-1")
    assert frame.to_dict("list") == {"ville": ["Zürich"], "n": ["1"]}


def test_format_from_suffix_and_unknown_suffix(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot tell the format"):
        read_table(_write(tmp_path / "in.ods", "a\n1\n"))
    frame = read_table(_write(tmp_path / "in.dat", "a\n1\n"), format="csv")
    assert frame["a"].tolist() == ["1"]
    with pytest.raises(InputError, match="unknown format"):
        read_table(tmp_path / "in.dat", format="ods")


# ------------------------------------------------------------------------------------------ CSV errors


def test_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found") as err:
        read_table(tmp_path / "missing.csv")
    assert "missing.csv" in str(err.value)


def test_directory_is_not_a_file(tmp_path: Path) -> None:
    (tmp_path / "d.csv").mkdir()
    with pytest.raises(InputError, match="directory"):
        read_table(tmp_path / "d.csv")


@pytest.mark.parametrize("text", ["", "   \n\n", "\ufeff"])
def test_empty_file(tmp_path: Path, text: str) -> None:
    with pytest.raises(InputError, match="input is empty"):
        read_table(_write(tmp_path / "in.csv", text))


def test_header_without_rows_is_empty(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="input is empty"):
        read_table(_write(tmp_path / "in.csv", "a,b\n"))


def test_duplicate_column(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="duplicate column") as err:
        read_table(_write(tmp_path / "in.csv", "age,zip,age\n1,2,3\n"))
    assert err.value.column == "age"
    assert "column 'age'" in str(err.value)


def test_empty_column_name(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="column 2 of the header has no name"):
        read_table(_write(tmp_path / "in.csv", "a,,c\n1,2,3\n"))


@pytest.mark.parametrize(("sep", "text"), [(";", "a;b;c\n1;2;3\n"), ("\t", "a\tb\n1\t2\n"), ("|", "a|b\n1|2\n")])
def test_wrong_separator(tmp_path: Path, sep: str, text: str) -> None:
    with pytest.raises(InputError) as err:
        read_table(_write(tmp_path / "in.csv", text))
    message = str(err.value)
    assert "wrong separator? the header has one column" in message
    assert f"the file seems to use {sep!r}" in message
    assert "\n" not in message


def test_single_column_file_is_fine(tmp_path: Path) -> None:
    frame = read_table(_write(tmp_path / "in.csv", "name\nAnn\nBob\n"))
    assert frame["name"].tolist() == ["Ann", "Bob"]


def test_row_with_too_many_fields(tmp_path: Path) -> None:
    path = _write(tmp_path / "in.csv", "a,b\n1,2\n3,4\n5,6,extra\n")
    with pytest.raises(InputError, match="3 fields but the header has 2") as err:
        read_table(path)
    assert err.value.row == 3
    assert err.value.value == "extra"
    assert "row 3" in str(err.value)
    assert "line 4" in str(err.value)


def test_row_with_too_few_fields(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="1 fields but the header has 2") as err:
        read_table(_write(tmp_path / "in.csv", "a,b\n1,2\n3\n"))
    assert err.value.row == 2
    assert err.value.column == "b"


def test_unterminated_quote(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unterminated quoted field") as err:
        read_table(_write(tmp_path / "in.csv", 'a,b\n1,2\n3,"oops\n4,5\n'))
    assert err.value.row == 2


def test_undecodable_bytes(tmp_path: Path) -> None:
    path = _write(tmp_path / "in.csv", b"name,city\nAnn,Paris\nBob,Z\xfcrich\n")
    with pytest.raises(InputError) as err:
        read_table(path)
    message = str(err.value)
    assert "cannot decode the bytes as utf-8" in message
    assert "encoding" in message
    assert err.value.row == 2
    assert err.value.column == "city"
    assert err.value.value == b"\xfc"


def test_unknown_encoding(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown encoding"):
        read_table(_write(tmp_path / "in.csv", "a\n1\n"), encoding="no-such-codec")


def test_bad_separator_option(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="separator must be one character"):
        read_table(_write(tmp_path / "in.csv", "a\n1\n"), separator=";;")


# ------------------------------------------------------------------------------------------ CSV write


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ("=1+1", "'=1+1"),
        ("+x", "'+x"),
        ("-x", "'-x"),
        ("@x", "'@x"),
        ("\tx", "'\tx"),
        ("-5", "-5"),
        ("3.2e-4", "3.2e-4"),
        ("+1.5", "+1.5"),
        ("-1+1", "'-1+1"),
        ("plain", "plain"),
        ("", ""),
    ],
)
def test_neutralise(tmp_path: Path, cell: str, written: str) -> None:
    path = tmp_path / "out.csv"
    write_table(pd.DataFrame({"c": [cell, "z"]}, dtype=object), path)
    assert read_table(path)["c"].tolist() == [written, "z"]


def _neutralise_cell_by_cell(col: pd.Series) -> pd.Series:
    """The reference: every cell matched on its own (what ``_neutralise`` did before it matched
    each distinct value once)."""
    import re

    risky = [isinstance(v, str) and re.match(io_csv.FORMULA_START, v) is not None
             and re.fullmatch(io_csv.NUMBER, v) is None for v in col]
    if not any(risky):
        return col
    out = col.copy()
    out[risky] = "'" + col[risky]
    return out


@settings(max_examples=150, deadline=None)
@given(cells=st.lists(st.one_of(st.sampled_from(["=1", "+x", "-5", "-x", "@a", "\tb", "plain", "", "3e-2", "+1.5"]),
                                st.text(max_size=4), st.integers(-3, 3), st.floats(allow_nan=True),
                                st.none(), st.booleans()), max_size=30),
       dtype=st.sampled_from(["object", "string", "category"]))
def test_neutralise_per_distinct_value_is_per_cell(cells: list, dtype: str) -> None:
    """Matching the formula patterns once per distinct value marks exactly the cells a match per
    cell marks, for text, numbers, booleans and missing cells, in object, string and categorical
    columns."""
    col = pd.Series(cells, dtype=object)
    if dtype != "object":
        col = col.map(lambda v: v if v is None or isinstance(v, str) else str(v)).astype(dtype)
    want = _neutralise_cell_by_cell(col.astype(object) if dtype == "category" else col)
    got = io_csv._neutralise(col)
    pd.testing.assert_series_equal(got.astype(object), want.astype(object), check_dtype=False)


def test_neutralise_header_mixed_and_string_dtype(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "=name": pd.Series(["@a", "b", None], dtype="string"),
            "mixed": pd.Series([-3, "-x", 2.5], dtype=object),
            "num": [-1, 2, 3],
            "cat": pd.Categorical(["=c", "d", "=c"]),
        }
    )
    path = tmp_path / "out.csv"
    write_table(frame, path)
    assert path.read_text().splitlines() == ["'=name,mixed,num,cat", "'@a,-3,-1,'=c", "b,'-x,2,d", ",2.5,3,'=c"]
    assert frame["=name"].iloc[0] == "@a"  # the input frame is not changed


def test_neutralise_off(tmp_path: Path) -> None:
    path = tmp_path / "out.csv"
    write_table(pd.DataFrame({"=h": ["=1+1"]}), path, neutralise=False)
    assert path.read_text() == "=h\n=1+1\n"


def test_csv_write_is_deterministic(tmp_path: Path) -> None:
    frame = _sample().assign(x=[1.5, np.nan, -2.0])
    write_table(frame, tmp_path / "a.csv")
    write_table(frame, tmp_path / "b.csv")
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    assert b"\r" not in (tmp_path / "a.csv").read_bytes().replace(b'"line\nbreak"', b"")


def test_write_unencodable_value_names_cell(tmp_path: Path) -> None:
    frame = pd.DataFrame({"a": ["x", "y"], "b": ["ok", "snow ☃"]})
    with pytest.raises(InputError, match="cannot encode the value as latin-1") as err:
        write_table(frame, tmp_path / "out.csv", encoding="latin-1")
    assert (err.value.column, err.value.row, err.value.value) == ("b", 2, "snow ☃")
    assert not list(tmp_path.iterdir())


def test_write_duplicate_columns(tmp_path: Path) -> None:
    frame = pd.DataFrame([[1, 2]], columns=["a", "a"])
    with pytest.raises(InputError, match="duplicate column") as err:
        write_table(frame, tmp_path / "out.csv")
    assert err.value.column == "a"


def test_write_if_exists_fail(tmp_path: Path) -> None:
    path = _write(tmp_path / "out.csv", "old\n")
    with pytest.raises(InputError, match="already exists"):
        write_table(_sample(), path, if_exists="fail")
    assert path.read_text() == "old\n"


def test_write_into_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        write_table(_sample(), tmp_path / "nope" / "out.csv")


# ------------------------------------------------------------------------------------------ atomic writes


def test_atomic_write_leaves_no_temp_file(tmp_path: Path) -> None:
    write_table(_sample(), tmp_path / "out.csv")
    write_table(_sample(), tmp_path / "out.parquet")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "out.parquet"]


def test_atomic_write_keeps_old_file_when_replace_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path / "out.csv", "old,content\n1,2\n")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_files.os, "replace", broken_replace)
    with pytest.raises(InputError, match="cannot write the file: No space left on device"):
        write_table(_sample(), path)
    assert path.read_text() == "old,content\n1,2\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


def test_atomic_write_keeps_old_parquet_when_writer_fails_midway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "out.parquet"
    write_table(_sample(), path)
    before = path.read_bytes()

    def half_write(table: object, where: str) -> None:
        Path(where).write_bytes(b"PAR1 half a file")
        raise RuntimeError("crash while writing")

    monkeypatch.setattr(io_parquet.pq, "write_table", half_write)
    with pytest.raises(RuntimeError, match="crash while writing"):
        write_table(_sample().iloc[:1], path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["out.parquet"]


def test_atomic_write_keeps_permissions_of_replaced_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "out.csv", "a\n1\n")
    path.chmod(0o640)
    write_table(_sample(), path)
    assert (path.stat().st_mode & 0o777) == 0o640


# ------------------------------------------------------------------------------------------ Parquet


def _typed() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "name": pd.Series(["Ann", None, "=x"], dtype=object),
            "age": [34, 45, 66],
            "score": [1.5, np.nan, -2.0],
        }
    )


def test_parquet_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "out.parquet"
    write_table(_typed(), path)
    back = read_table(path)
    pd.testing.assert_frame_equal(back, _typed())
    assert back["name"].dtype == object
    assert back["name"].tolist() == ["Ann", None, "=x"]  # no neutralising outside CSV


def test_parquet_string_dtype_reads_as_object(tmp_path: Path) -> None:
    path = tmp_path / "in.pq"
    pd.DataFrame({"s": pd.Series(["a", None], dtype="string"), "n": [1, 2]}).to_parquet(path)
    back = read_table(path, na_values=["a"])
    assert back["s"].dtype == object
    assert back["s"].tolist() == [None, None]
    assert list(back.columns) == ["s", "n"]


def test_parquet_write_is_deterministic(tmp_path: Path) -> None:
    write_table(_typed(), tmp_path / "a.parquet")
    write_table(_typed(), tmp_path / "b.parquet")
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


def test_parquet_invalid_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a valid Parquet file") as err:
        read_table(_write(tmp_path / "in.parquet", "a,b\n1,2\n"))
    assert "\n" not in str(err.value)


def test_parquet_empty(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="input is empty"):
        read_table(_write(tmp_path / "zero.parquet", b""))
    path = tmp_path / "norows.parquet"
    write_table(_typed().iloc[:0], path)
    with pytest.raises(InputError, match="input is empty"):
        read_table(path)


def test_parquet_mixed_types_named(tmp_path: Path) -> None:
    frame = pd.DataFrame({"ok": [1, 2, 3], "bad": pd.Series(["a", "b", 3], dtype=object)})
    with pytest.raises(InputError, match="cannot store the column in Parquet") as err:
        write_table(frame, tmp_path / "out.parquet")
    assert (err.value.column, err.value.row, err.value.value) == ("bad", 3, 3)
    assert not list(tmp_path.iterdir())


def test_parquet_duplicate_columns(tmp_path: Path) -> None:
    import pyarrow as pa

    path = tmp_path / "dup.parquet"
    pq.write_table(pa.table([[1], [2]], names=["x", "x"]), path)
    with pytest.raises(InputError, match="duplicate column") as err:
        read_table(path)
    assert err.value.column == "x"


# ------------------------------------------------------------------------------------------ SQLite


def test_sqlite_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "out.db"
    write_table(_typed(), path, table="people")
    pd.testing.assert_frame_equal(read_table(path, table="people"), _typed())
    pd.testing.assert_frame_equal(read_table(path), _typed())  # the only table
    got = read_table(path, query="SELECT age FROM people WHERE age > 40")
    assert got["age"].tolist() == [45, 66]


def test_sqlite_text_round_trip_and_odd_table_name(tmp_path: Path) -> None:
    path = tmp_path / "out.sqlite"
    name = 'my "table"; DROP TABLE x'
    write_table(_sample(), path, table=name)
    back = read_table(path, table=name)
    pd.testing.assert_frame_equal(back, _sample())
    _assert_plain_text(back)


def test_sqlite_replace_append_fail(tmp_path: Path) -> None:
    path = tmp_path / "out.db"
    write_table(_typed(), path, table="t")
    write_table(_typed().iloc[:1], path, table="t")
    assert len(read_table(path, table="t")) == 1
    write_table(_typed().iloc[:2], path, table="t", if_exists="append")
    assert read_table(path, table="t")["age"].tolist() == [34, 34, 45]
    with pytest.raises(InputError, match="already exists"):
        write_table(_typed(), path, table="t", if_exists="fail")
    with sqlite3.connect(path) as con:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master")]
    con.close()
    assert names == ["t"]  # no temporary table left


def test_sqlite_replace_keeps_views_working(tmp_path: Path) -> None:
    path = tmp_path / "out.db"
    write_table(_typed(), path, table="t")
    with sqlite3.connect(path) as con:
        con.execute("CREATE VIEW adults AS SELECT name, age FROM t WHERE age > 40")
    con.close()
    write_table(_typed().assign(age=[50, 10, 70]), path, table="t")
    assert read_table(path, table="adults")["age"].tolist() == [50, 70]


def test_sqlite_failed_replace_keeps_old_table(tmp_path: Path) -> None:
    path = tmp_path / "out.db"
    write_table(_typed(), path, table="t")
    bad = pd.DataFrame({"a": [1], "A": [2]})  # SQLite column names ignore case
    with pytest.raises(InputError, match="cannot write the SQLite table") as err:
        write_table(bad, path, table="t")
    assert "duplicate column" in str(err.value)
    pd.testing.assert_frame_equal(read_table(path, table="t"), _typed())


def test_sqlite_failed_write_to_new_file_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        write_table(pd.DataFrame({"a": [1], "A": [2]}), tmp_path / "new.db", table="t")
    assert not list(tmp_path.iterdir())


def test_sqlite_unstorable_value(tmp_path: Path) -> None:
    frame = pd.DataFrame({"a": pd.Series(["x", ["a", "list"]], dtype=object)})
    with pytest.raises(InputError, match="SQLite cannot store this value") as err:
        write_table(frame, tmp_path / "out.db", table="t")
    assert (err.value.column, err.value.row) == ("a", 2)


def test_sqlite_table_required_for_writing(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="needs a table name"):
        write_table(_typed(), tmp_path / "out.db")


def test_sqlite_unknown_table(tmp_path: Path) -> None:
    path = tmp_path / "out.db"
    write_table(_typed(), path, table="people")
    with pytest.raises(InputError, match="unknown table") as err:
        read_table(path, table="persons")
    assert "persons" in str(err.value)
    assert "people" in str(err.value)


def test_sqlite_bad_query_and_choices(tmp_path: Path) -> None:
    path = tmp_path / "out.db"
    write_table(_typed(), path, table="a")
    write_table(_typed(), path, table="b")
    with pytest.raises(InputError, match="pass `table` or `query`"):
        read_table(path)
    with pytest.raises(InputError, match=r"the SQL query failed.*no such table"):
        read_table(path, query="SELECT * FROM c")
    with pytest.raises(InputError, match="not both"):
        read_table(path, table="a", query="SELECT 1")
    with pytest.raises(InputError, match="input is empty"):
        read_table(path, query="SELECT * FROM a WHERE 0")


def test_sole_sqlite_table_is_the_only_table_or_none(tmp_path: Path) -> None:
    path = tmp_path / "out.db"
    write_table(_typed(), path, table="people")
    assert sole_sqlite_table(path) == "people"
    write_table(_typed(), path, table="more")
    assert sole_sqlite_table(path) is None
    assert sole_sqlite_table(tmp_path / "missing.db") is None
    assert sole_sqlite_table(_write(tmp_path / "text.db", "not a database\n" * 40)) is None


def test_sqlite_invalid_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "in.db", "this is not a database, just some text\n" * 20)
    with pytest.raises(InputError, match="not a valid SQLite database"):
        read_table(path, table="t")
    with pytest.raises(InputError, match="not a valid SQLite database"):
        write_table(_typed(), path, table="t")
    assert path.read_text().startswith("this is not")


# ------------------------------------------------------------------------------------------ PostgreSQL


def test_postgresql_needs_optional_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "adbc_driver_postgresql", None)
    with pytest.raises(InputError, match=r"pip install anonkit\[postgres\]") as err:
        read_table("postgresql://user:s3cret@db.example/prod", table="people")
    assert "s3cret" not in str(err.value)


def _sqlite_stand_in(path: Path) -> object:
    """ADBC's SQLite driver standing in for PostgreSQL's (same DB-API and ingest), passing over the
    reader's PostgreSQL-only ``SET TRANSACTION READ ONLY`` (the real server is in test_postgresql_server)."""
    from adbc_driver_sqlite import dbapi as sqlite_dbapi

    conn = sqlite_dbapi.connect(str(path))
    make_cursor = conn.cursor

    def cursor() -> object:
        cur = make_cursor()
        execute = cur.execute
        cur.execute = lambda sql, *args: None if sql == "SET TRANSACTION READ ONLY" else execute(sql, *args)
        return cur

    conn.cursor = cursor  # type: ignore[method-assign]
    return conn


def test_postgresql_reads_through_the_driver(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "stand-in.db"
    write_table(_sample(), path, table="people")
    seen: list[str] = []

    def connect(uri: str) -> object:
        seen.append(uri)
        return _sqlite_stand_in(path)

    fake = types.ModuleType("adbc_driver_postgresql.dbapi")
    fake.connect = connect  # type: ignore[attr-defined]
    package = types.ModuleType("adbc_driver_postgresql")
    package.dbapi = fake  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "adbc_driver_postgresql", package)
    monkeypatch.setitem(sys.modules, "adbc_driver_postgresql.dbapi", fake)
    uri = "postgresql://user:s3cret@db.example/prod"
    back = read_table(uri, table="people")
    pd.testing.assert_frame_equal(back, _sample())
    assert seen == [uri]
    with pytest.raises(InputError, match="reading PostgreSQL failed") as err:
        read_table(uri, query="SELECT * FROM nowhere")
    assert "s3cret" not in str(err.value)
    assert "user:***@db.example" in str(err.value)


def test_postgresql_write_goes_through_adbc_ingest_in_one_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The write path against ADBC's SQLite driver standing in for PostgreSQL (same DB-API + ingest)."""
    path = tmp_path / "stand-in.db"

    fake = types.ModuleType("adbc_driver_postgresql.dbapi")
    fake.connect = lambda uri: _sqlite_stand_in(path)  # type: ignore[attr-defined]
    package = types.ModuleType("adbc_driver_postgresql")
    package.dbapi = fake  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "adbc_driver_postgresql", package)
    monkeypatch.setitem(sys.modules, "adbc_driver_postgresql.dbapi", fake)
    uri = "postgresql://user:s3cret@db.example/prod"
    write_table(_sample(), uri, table="people", if_exists="fail")  # replace reads pg_catalog: test_postgresql_server
    back = read_table(uri, table="people")
    pd.testing.assert_frame_equal(back, _sample())
    with pytest.raises(InputError, match="needs a table name"):
        write_table(_sample(), uri)
    with pytest.raises(InputError, match=r"the table already exists.*key 'if_exists'") as err:
        write_table(_sample(), uri, table="people", if_exists="fail")
    assert "s3cret" not in str(err.value)


def test_postgresql_undefined_table_is_an_unknown_table(monkeypatch: pytest.MonkeyPatch) -> None:
    class UndefinedTable(Exception):
        sqlstate = "42P01"

    def connect(uri: str) -> object:
        raise UndefinedTable(f"relation does not exist (connecting to {uri})")

    fake = types.ModuleType("adbc_driver_postgresql.dbapi")
    fake.connect = connect  # type: ignore[attr-defined]
    package = types.ModuleType("adbc_driver_postgresql")
    package.dbapi = fake  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "adbc_driver_postgresql", package)
    monkeypatch.setitem(sys.modules, "adbc_driver_postgresql.dbapi", fake)
    uri = "postgresql://user:s3cret@db.example/prod"
    with pytest.raises(InputError, match=r"^unknown table .*value 'people'"):
        read_table(uri, table="people")
    with pytest.raises(InputError, match="reading PostgreSQL failed: relation does not exist") as err:
        read_table(uri, query="SELECT * FROM people")  # a query's failure is not an unknown table
    assert "s3cret" not in str(err.value)
    with pytest.raises(InputError, match="writing PostgreSQL failed: relation does not exist") as err:
        write_table(_sample(), uri, table="people")
    assert "s3cret" not in str(err.value)


# ------------------------------------------------------------------------------------------ shuffle


def test_shuffle_is_seeded() -> None:
    frame = pd.DataFrame({"i": range(50), "s": [str(i) for i in range(50)]})
    a = shuffle_rows(frame, seed=7)
    b = shuffle_rows(frame, seed=7)
    c = shuffle_rows(frame, seed=8)
    pd.testing.assert_frame_equal(a, b)
    assert a["i"].tolist() != c["i"].tolist()
    assert a["i"].tolist() != list(range(50))
    assert sorted(a["i"]) == list(range(50))
    assert isinstance(a.index, pd.RangeIndex)
    expected = np.random.default_rng(7).permutation(50)
    assert a["i"].tolist() == expected.tolist()
    assert (a["s"] == a["i"].astype(str)).all()  # rows move whole


def test_shuffle_rejects_bad_seed() -> None:
    with pytest.raises(InputError, match="seed"):
        shuffle_rows(pd.DataFrame({"a": [1]}), seed=-1)
    with pytest.raises(InputError, match="seed"):
        shuffle_rows(pd.DataFrame({"a": [1]}), seed="1")  # type: ignore[arg-type]


def test_large_csv_fast_path_reads_the_same_cells_as_the_strict_reader(tmp_path, monkeypatch):
    """Files above ARROW_ABOVE_BYTES go through pyarrow; the cells must equal the strict reader's."""
    rows = ['id;name;note', *[f'{i};"a;{i}";{"x" if i % 3 else ""}' for i in range(60_000)]]
    path = tmp_path / "big.csv"
    path.write_text("\ufeff" + "\r\n".join(rows) + "\r\n", encoding="utf-8")
    assert path.stat().st_size > io_csv.ARROW_ABOVE_BYTES
    fast = read_table(path, separator=";", na_values=["x"])
    monkeypatch.setattr(io_csv, "ARROW_ABOVE_BYTES", 1 << 40)
    assert io_csv._read_csv_arrow(str(path), ";", "utf-8", '"') is None  # the patch takes effect
    strict = read_table(path, separator=";", na_values=["x"])
    assert list(fast.columns) == list(strict.columns) == ["id", "name", "note"]
    assert fast.astype(object).where(fast.notna(), None).values.tolist() == strict.values.tolist()
    assert fast.iloc[5, 1] == "a;5" and fast.iloc[3, 2] == ""


def test_large_csv_with_a_bad_row_still_names_it(tmp_path):
    rows = ["a;b", *[f"{i};{i}" for i in range(200_000)]]
    rows[150_001] = "1;2;3"
    path = tmp_path / "big.csv"
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(InputError, match="row 150001"):
        read_table(path, separator=";")
