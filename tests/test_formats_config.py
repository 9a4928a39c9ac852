"""Excel and DuckDB through a whole config run: a named sheet in, a DuckDB table out, and back."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from anonkit.config import load_config
from anonkit.errors import InputError
from anonkit.io import read_table, write_table
from anonkit.pipeline import run_config


def _frame() -> pd.DataFrame:
    return pd.DataFrame({
        "zip": ["01234", "01234", "01235", "01235", "01299", "01299"] * 3,
        "age": [21, 22, 23, 24, 25, 26] * 3,
        "disease": ["flu", "cold", "flu", "hiv", "cold", "flu"] * 3,
    })


def _config(d: Path, **io: dict) -> Path:
    cfg = {
        "input": io.get("input"),
        "attributes": {"zip": {"role": "quasi", "hierarchy": {"builder": "masking"}},
                       "age": {"role": "quasi", "hierarchy": {"builder": "intervals", "width": 5, "fanout": 2}},
                       "disease": {"role": "sensitive"}},
        "privacy": [{"model": "k-anonymity", "k": 3}],
        "algorithm": {"name": "flash"},
        "output": io.get("output"),
    }
    path = d / "c.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def test_a_named_sheet_in_and_a_duckdb_table_out(tmp_path: Path) -> None:
    frame = _frame()
    write_table(frame.head(2), tmp_path / "in.xlsx", sheet="Other")
    # the workbook's second sheet holds the data: write both sheets with openpyxl
    import openpyxl

    wb = openpyxl.load_workbook(tmp_path / "in.xlsx")
    data = wb.create_sheet("Data")
    data.append(list(frame.columns))
    for row in frame.itertuples(index=False):
        data.append(list(row))
    wb.save(tmp_path / "in.xlsx")
    config = _config(tmp_path, input={"path": "in.xlsx", "sheet": "Data"},
                     output={"path": "out.duckdb", "table": "release"})
    result = run_config(load_config(config), config_dir=tmp_path, config_file=config)
    assert result.summary["released"] == len(frame)
    back = read_table(tmp_path / "out.duckdb", table="release")
    assert len(back) == len(frame) and set(back.columns) == {"zip", "age", "disease"}
    assert sorted(back["disease"]) == sorted(frame["disease"])
    # the leading zeros of zip survive Excel (read as text) and are generalized by masking
    assert all(str(z).startswith("012") for z in back["zip"])
    # a second run onto the existing table is refused before any work unless if_exists: replace
    with pytest.raises(InputError, match="already exists"):
        run_config(load_config(config), config_dir=tmp_path, config_file=config)
    cfg = yaml.safe_load(config.read_text())
    cfg["output"]["if_exists"] = "replace"
    config.write_text(yaml.safe_dump(cfg, sort_keys=False))
    run_config(load_config(config), config_dir=tmp_path, config_file=config)


def test_an_excel_release_holds_no_formula(tmp_path: Path) -> None:
    frame = _frame()
    frame.loc[0, "disease"] = "=1+1"
    frame.to_csv(tmp_path / "in.csv", index=False)
    config = _config(tmp_path, input={"path": "in.csv"}, output={"path": "out.xlsx", "sheet": "Release"})
    run_config(load_config(config), config_dir=tmp_path, config_file=config)
    import openpyxl

    wb = openpyxl.load_workbook(tmp_path / "out.xlsx")
    assert wb.sheetnames == ["Release"]
    cells = [c for row in wb["Release"].iter_rows() for c in row]
    assert not any(c.data_type == "f" for c in cells)
    assert "'=1+1" in {c.value for c in cells}
