"""The one format registry (issue 24 item 4): :mod:`anonkit.io.registry`.

* every registered format round-trips a small frame through ``write_table`` and ``read_table``
  (real files; PostgreSQL on the session's real server, :mod:`pg_server`);
* a format name or suffix no record claims is refused naming every registered format;
* the formats the config accepts (``input.format``, ``output.format``, the per-format keys) are the
  registry's;
* nothing falls through: a registered format without a reader or writer is refused, never handed to
  another format's code (before, an unknown branch was read as PostgreSQL and written as Parquet);
* an option a format does not take is refused from its record, for every format.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import get_args

import pandas as pd
import pytest

from anonkit.errors import InputError
from anonkit.io import (
    FORMAT_NAMES,
    FORMATS,
    check_format,
    check_target,
    format_named,
    formats,
    read_table,
    registry,
    same_table,
    write_table,
)
from anonkit.io.registry import DATABASE_FILE, FILE, SERVER, Format, format_of, formats_taking

pytest_plugins = ["pg_server"]  # its fixtures: pg_server (the session's server), pg_db (a fresh database)

FRAME = pd.DataFrame({"zip": ["01234", "01235", "=1+1", "x y"], "n": [1, 2, 3, 40]})


def _params() -> list[object]:
    """Every registered format, the server ones marked ``postgres`` (they start the test server)."""
    return [pytest.param(name, marks=pytest.mark.postgres) if f.kind == SERVER else name
            for name, f in formats().items()]


def _location(fmt: Format, tmp_path: Path, request: pytest.FixtureRequest) -> tuple[str, str | None]:
    """Where a test writes ``fmt``: a file named by its first suffix, or a fresh database on the server."""
    if fmt.kind == SERVER:
        return request.getfixturevalue("pg_db").uri(), "t"
    return str(tmp_path / f"t{fmt.suffixes[0]}"), ("t" if fmt.kind == DATABASE_FILE else None)


def _as_text(frame: pd.DataFrame) -> list[list[str]]:
    return frame.astype(str).to_numpy().tolist()


# ---------------------------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("name", _params())
def test_every_format_round_trips_a_frame(name: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    fmt = formats()[name]
    loc, table = _location(fmt, tmp_path, request)
    assert check_target(loc, table=table, if_exists="fail") == (name, loc)
    write_table(FRAME, loc, table=table, neutralise=False)
    back = read_table(loc, table=table)
    assert list(back.columns) == ["zip", "n"]
    assert _as_text(back) == _as_text(FRAME)  # the leading zeros, the formula text, the numbers
    assert back["zip"].tolist() == FRAME["zip"].tolist()
    # the format given by name (and by an alias) reads the same
    for spelling in (name, *fmt.aliases):
        assert _as_text(read_table(loc, format=spelling.upper(), table=table)) == _as_text(FRAME)


@pytest.mark.parametrize("name", [n for n, f in formats().items() if f.kind != SERVER])
def test_every_suffix_names_its_format(name: str, tmp_path: Path) -> None:
    fmt = formats()[name]
    for suffix in fmt.suffixes:
        assert check_format(tmp_path / f"a{suffix}") == name
        assert check_format(tmp_path / f"A{suffix.upper()}") == name
        found, _ = format_of(tmp_path / f"a{suffix}")
        assert found is fmt


def test_the_registry_claims_each_name_suffix_and_alias_once() -> None:
    names = [n for f in formats().values() for n in (f.name, *f.aliases)]
    suffixes = [s for f in formats().values() for s in f.suffixes]
    assert len(names) == len(set(names)) and len(suffixes) == len(set(suffixes))
    assert FORMATS == FORMAT_NAMES == tuple(formats())
    for f in formats().values():
        assert f.kind in (FILE, DATABASE_FILE, SERVER)
        assert format_named(f.name) is f and all(format_named(a) is f for a in f.aliases)
        assert f.read is not None and f.write is not None  # every registered format reads and writes
        assert (f.kind == SERVER) == bool(f.uri_prefixes) == (f.same_table is not None)
        assert (f.kind == DATABASE_FILE) == (f.sole_table is not None)
    assert check_format("postgres://u@h/db") == check_format("POSTGRESQL://u@h/db") == "postgresql"


# ---------------------------------------------------------------------------------------------- unknown names


@pytest.mark.parametrize("call", [
    lambda p: read_table(p, format="xml"),
    lambda p: write_table(FRAME, p, format="xml"),
    lambda p: check_target(p, format="xml"),
    lambda p: check_format(p, "xml"),
    lambda p: read_table(p, format=3),  # not even text
])
def test_an_unknown_format_name_is_refused_naming_the_known_ones(call: Callable[[Path], object],
                                                                 tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    FRAME.to_csv(path, index=False)
    with pytest.raises(InputError, match="unknown format") as err:
        call(path)
    for name in FORMAT_NAMES:
        assert f"'{name}'" in str(err.value)
    assert not any(p.name != "t.csv" for p in tmp_path.iterdir())  # nothing written
    assert check_format(path, " CSV ") == "csv"  # control: a known name, spelled loosely


def test_an_unknown_suffix_is_refused_naming_the_known_formats(tmp_path: Path) -> None:
    path = tmp_path / "t.xml"
    path.write_text("zip\n1\n")
    for call in (lambda: read_table(path), lambda: write_table(FRAME, path), lambda: check_target(path)):
        with pytest.raises(InputError, match="cannot tell the format") as err:
            call()
        assert all(f"'{name}'" in str(err.value) for name in FORMAT_NAMES)
    with pytest.raises(InputError, match=r"save the workbook as \.xlsx"):
        read_table(tmp_path / "old.xls")
    assert _as_text(read_table(path, format="csv")) == [["1"]]  # control: the format given


# ---------------------------------------------------------------------------------------------- the config


def _literal_names(annotation: object) -> set[str]:
    return {a for a in get_args(get_args(annotation)[0]) if isinstance(a, str)} | {
        a for a in get_args(annotation) if isinstance(a, str)}


def test_the_config_accepts_exactly_the_registered_formats() -> None:
    from anonkit._config_input import INPUT_CLASSES, InputConfig
    from anonkit.config import OUTPUT_KEYS_FOR, OutputConfig

    assert _literal_names(InputConfig.model_fields["format"].annotation) == set(FORMAT_NAMES)
    assert _literal_names(OutputConfig.model_fields["format"].annotation) == set(FORMAT_NAMES)
    assert set(FORMAT_NAMES) <= set(INPUT_CLASSES)
    for key, names in OUTPUT_KEYS_FOR.items():
        assert set(names) == set(formats_taking(key)), key
    with pytest.raises(ValueError, match="'duckdb'"):  # the refusal lists the registry's names
        OutputConfig(format="xml")


def test_each_input_class_takes_the_keys_its_format_reads() -> None:
    from anonkit._config_input import INPUT_CLASSES

    for name, fmt in formats().items():
        fields = set(INPUT_CLASSES[name].model_fields)
        for option in ("separator", "encoding", "table", "query", "sheet", "header_row"):
            assert (option in fields) == (option in fmt.read_options), (name, option)


# ---------------------------------------------------------------------------------------------- no fall-through


def _without(name: str, **changes: object) -> tuple[Format, ...]:
    """The registry with the format ``name`` changed."""
    from dataclasses import replace

    return tuple(replace(f, **changes) if f.name == name else f for f in registry._REGISTRY)


def test_a_format_without_reader_or_writer_is_refused_not_handed_on(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    def fell_through(*_a: object, **_k: object) -> None:
        raise AssertionError("handed to another format's code")

    nope = Format("nope", "Nope", FILE, suffixes=(".nope",))
    guarded = tuple(f if f.kind != SERVER else Format(f.name, f.title, f.kind, aliases=f.aliases,
                                                       uri_prefixes=f.uri_prefixes, read=fell_through,
                                                       write=fell_through, same_table=f.same_table)
                    for f in registry._REGISTRY)
    monkeypatch.setattr(registry, "_REGISTRY", (*guarded, nope))
    path = tmp_path / "t.nope"
    path.write_text("zip\n1\n")
    with pytest.raises(InputError, match="cannot read Nope"):
        read_table(path)
    with pytest.raises(InputError, match="cannot write Nope"):
        write_table(FRAME, tmp_path / "u.nope")
    with pytest.raises(InputError, match="cannot write Nope"):
        check_target(tmp_path / "u.nope")
    assert not (tmp_path / "u.nope").exists()
    # the messages list only what can be read or written: not the format that cannot
    with pytest.raises(InputError) as err:
        read_table(path, format="nope")
    listed = str(err.value).split("use one of ")[1].split(" (")[0]
    assert "'nope'" not in listed and "'csv'" in listed
    # control: a format with a reader is read by its own code
    (tmp_path / "t.csv").write_text("zip\n1\n")
    assert _as_text(read_table(tmp_path / "t.csv")) == [["1"]]


def test_a_format_missing_its_reader_names_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_REGISTRY", _without("parquet", read=None))
    write_table(FRAME, tmp_path / "t.parquet")  # still written
    with pytest.raises(InputError, match="cannot read Parquet"):
        read_table(tmp_path / "t.parquet")
    monkeypatch.setattr(registry, "_REGISTRY", _without("parquet", write=None))
    with pytest.raises(InputError, match="cannot write Parquet"):
        write_table(FRAME, tmp_path / "u.parquet")
    assert not (tmp_path / "u.parquet").exists()


# ---------------------------------------------------------------------------------------------- options


_READ_OPTIONS = {"table": "t", "query": "SELECT 1", "sheet": "S", "header_row": 1}
_WRITE_OPTIONS = {"table": "t", "sheet": "S"}


@pytest.mark.parametrize("name", [n for n, f in formats().items() if f.kind != SERVER])
def test_an_option_a_format_does_not_take_is_refused(name: str, tmp_path: Path) -> None:
    fmt = formats()[name]
    table = "t" if fmt.kind == DATABASE_FILE else None
    path = tmp_path / f"t{fmt.suffixes[0]}"
    write_table(FRAME, path, table=table)
    for option, value in _READ_OPTIONS.items():
        if option in fmt.read_options:
            continue
        with pytest.raises(InputError, match="only apply to"):
            read_table(path, **{option: value})
    for option, value in _WRITE_OPTIONS.items():
        if option in fmt.write_options:
            continue
        args = {"table": table, option: value}
        with pytest.raises(InputError, match=f"`{option}` only applies to"):
            write_table(FRAME, path, **args)
        with pytest.raises(InputError, match=f"`{option}` only applies to"):
            check_target(path, **args)
    if "append" not in fmt.write_options:
        with pytest.raises(InputError, match="if_exists='append' only applies"):
            write_table(FRAME, path, if_exists="append")
    else:  # control: a database appends
        write_table(FRAME, path, table=table, if_exists="append")
        assert len(read_table(path, table=table)) == 2 * len(FRAME)


def test_a_sql_table_written_with_a_sheet_is_refused(tmp_path: Path) -> None:
    """Before the registry, ``sheet`` was refused for DuckDB but silently ignored for SQLite."""
    with pytest.raises(InputError, match="`sheet` only applies to Excel outputs, not sqlite"):
        write_table(FRAME, tmp_path / "t.db", table="t", sheet="S")
    assert not (tmp_path / "t.db").exists()
    write_table(FRAME, tmp_path / "t.xlsx", sheet="S", neutralise=False)  # control
    assert _as_text(read_table(tmp_path / "t.xlsx", sheet="S")) == _as_text(FRAME)


def test_a_database_file_without_a_table_is_its_only_table(tmp_path: Path) -> None:
    """``same_table``: for SQLite as for DuckDB, no table means the file's only table (what
    ``read_table`` reads), so an output onto it is the input."""
    for suffix in (".db", ".duckdb"):
        path = tmp_path / f"one{suffix}"
        write_table(FRAME, path, table="people")
        assert same_table(path, None, None, tmp_path / "." / path.name, None, "PEOPLE")
        assert not same_table(path, None, None, path, None, "release")
        write_table(FRAME, path, table="release")  # two tables: no table names none of them
        assert not same_table(path, None, None, path, None, "release")
