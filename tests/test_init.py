"""``anonkit init DATA [-o CONFIG]``: a commented config that ``anonkit anonymize`` runs as it is, on the
shipped examples' inputs and in every format anonkit reads; an existing file is never overwritten
without --force."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from support import run_cli

ROOT = Path(__file__).parent.parent
INPUTS = [ROOT / "examples" / "files" / "diagnoses.csv", ROOT / "examples" / "files" / "test2.csv",
          Path(__file__).parent / "data" / "people_identifiers.csv",
          ROOT / "src" / "anonkit" / "datasets" / "data" / "adult.csv"]


@pytest.mark.parametrize("source", INPUTS, ids=[p.name for p in INPUTS])
def test_init_then_anonymize_runs(source: Path, tmp_path: Path) -> None:
    data = tmp_path / source.name
    shutil.copy(source, data)
    config = tmp_path / "start.yaml"
    code, out, err = run_cli("init", str(data), "-o", str(config))
    assert code == 0, err
    text = config.read_text()
    assert "# identifier:" in text or "# quasi:" in text  # the reasons are comments
    assert yaml.safe_load(text)["input"]["path"] == source.name  # relative to the config
    code, out, err = run_cli("anonymize", str(config), "--no-fixes")
    assert code == 0, err
    assert "Verdict" in out
    assert (tmp_path / f"{data.stem}-anonymized.csv").exists()


def test_init_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    data = tmp_path / "t.csv"
    shutil.copy(INPUTS[1], data)
    config = tmp_path / "t.yaml"
    config.write_text("mine\n")
    code, _, err = run_cli("init", str(data))  # default: beside the data, with .yaml
    assert code == 2 and "exists" in err and "--force" in err
    assert config.read_text() == "mine\n"
    code, _, err = run_cli("init", str(data), "--force")
    assert code == 0, err
    assert "attributes:" in config.read_text()


def test_init_refusals(tmp_path: Path) -> None:
    code, _, err = run_cli("init", str(tmp_path / "missing.csv"))
    assert code == 2 and "no such file" in err
    data = tmp_path / "t.csv"
    shutil.copy(INPUTS[1], data)
    code, _, err = run_cli("init", str(data), "-o", str(tmp_path / "t.txt"))
    assert code == 2 and ".yaml" in err
    code, _, err = run_cli("init", str(data), "-o", str(tmp_path / "nowhere" / "t.yaml"))
    assert code == 2 and "directory" in err
    assert not list(tmp_path.glob("*.yaml"))


@pytest.mark.parametrize("suffix", [".parquet", ".xlsx", ".db"])
def test_init_reads_every_format(suffix: str, tmp_path: Path) -> None:
    frame = pd.read_csv(INPUTS[0], dtype=str).head(300)
    data = tmp_path / f"d{suffix}"
    if suffix == ".parquet":
        frame.to_parquet(data)
    elif suffix == ".xlsx":
        frame.to_excel(data, index=False)
    else:
        import sqlite3

        with sqlite3.connect(data) as con:
            frame.to_sql("diagnoses", con, index=False)
    code, _, err = run_cli("init", str(data), "-o", str(tmp_path / "c.yaml"))
    assert code == 0, err
    code, _, err = run_cli("anonymize", str(tmp_path / "c.yaml"), "--no-fixes")
    assert code == 0, err


def test_an_id_column_is_dropped_and_its_reason_names_new_id_and_pseudonym(tmp_path: Path) -> None:
    """An id column stays role identifier by default (fail closed: nothing of it published); its reason says
    what to give it instead — new-id for linked rows in this release, pseudonym with a key across releases —
    and the config's list of roles offers new-id. The control: a quasi-identifier's reason names neither."""
    n = 60
    frame = pd.DataFrame({"record_id": [f"R{i:04d}" for i in range(n)], "age": [20 + i % 7 for i in range(n)],
                          "sex": ["m", "f"] * (n // 2), "visits": list(range(n))})
    frame.to_csv(tmp_path / "t.csv", index=False)
    code, _, err = run_cli("init", str(tmp_path / "t.csv"), "-o", str(tmp_path / "start.yaml"))
    assert code == 0, err
    text = (tmp_path / "start.yaml").read_text()
    assert yaml.safe_load(text)["attributes"]["record_id"]["role"] == "identifier"
    reason, said = {}, []
    for line in text.splitlines():  # a column's reason: the comment lines just before it
        if line.startswith("  # "):
            said.append(line[4:])
        else:
            reason[line.split(":")[0].strip()] = " ".join(said)
            said = []
    assert "give it role new-id; across releases, role pseudonym with a key" in reason["record_id"]
    assert "new-id" not in reason["age"] and "pseudonym" not in reason["age"]
    assert "new-id" in next(line for line in text.splitlines() if "the roles:" in line)
