"""Nested columns (lists, structs, maps) in Arrow-backed inputs are refused naming the column.

A list cell is not a value a role can judge: it cannot be generalized, compared or counted, and pandas
cannot even hash it (the Parquet list column of issue 23 ended in a TypeError). Every reader that goes
through Arrow (Parquet, DuckDB, PostgreSQL) refuses such a column in one line, and a flat file of the same
table still runs.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from bad_input_kit import assert_refused, run, snapshot

CONFIG = {
    "input": {"path": "in.parquet"},
    "attributes": {"a": {"role": "quasi"}, "b": {"role": "insensitive"}, "c": {"role": "sensitive"}},
    "privacy": [{"model": "k-anonymity", "k": 1}],
    "output": {"path": "out.csv"},
}

NESTED = {
    "list": pa.array([[1, 2], [3], []], type=pa.list_(pa.int64())),
    "large-list": pa.array([["x"], ["y", "z"], []], type=pa.large_list(pa.string())),
    "struct": pa.array([{"x": 1}, {"x": 2}, {"x": 3}]),
    "map": pa.array([[("k", 1)], [("k", 2)], []], type=pa.map_(pa.string(), pa.int64())),
    "fixed-size-list": pa.array([[1, 2], [3, 4], [5, 6]], type=pa.list_(pa.int64(), 2)),
}


def _lay_out(tmp: Path, b: pa.Array) -> None:
    pq.write_table(pa.table({"a": [1, 2, 3], "b": b, "c": ["u", "v", "w"]}), tmp / "in.parquet")
    (tmp / "c.yaml").write_text(yaml.safe_dump(CONFIG))


@pytest.mark.parametrize("kind", sorted(NESTED))
def test_a_nested_parquet_column_is_refused_naming_it(kind: str, tmp_path: Path) -> None:
    _lay_out(tmp_path, NESTED[kind])
    before = snapshot(tmp_path)
    res = run(["anonymize", str(tmp_path / "c.yaml")])
    assert_refused(res, 2, ("nested", "column 'b'", "in.parquet"))
    assert snapshot(tmp_path) == before


def test_a_flat_parquet_column_runs(tmp_path: Path) -> None:
    """Control: the same table with a flat ``b`` is released."""
    _lay_out(tmp_path, pa.array(["p", "q", "r"]))
    res = run(["anonymize", str(tmp_path / "c.yaml")])
    assert res.exit_code == 0, res.stderr
    assert (tmp_path / "out.csv").exists()


def test_a_nested_duckdb_column_is_refused_naming_it(tmp_path: Path) -> None:
    import duckdb  # the dev extra installs it: a missing DuckDB fails, never skips
    with duckdb.connect(str(tmp_path / "in.duckdb")) as con:
        con.execute("CREATE TABLE people AS SELECT * FROM (VALUES (1, [1, 2], 'u'), (2, [3], 'v')) t(a, b, c)")
    cfg = dict(CONFIG, input={"path": "in.duckdb", "table": "people"})
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    before = snapshot(tmp_path)
    res = run(["anonymize", str(tmp_path / "c.yaml")])
    assert_refused(res, 2, ("nested", "column 'b'"))
    assert snapshot(tmp_path) == before
