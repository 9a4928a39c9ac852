"""PRAM's matrix file (issue 28, item 4): ``NAME.pram.csv`` written beside a release, one row per
(column, stratum, from, to, probability), and what a data holder can recompute from it.

The file is read back as a user would (``pandas.read_csv``), each matrix rebuilt from it and checked:
rows are probability distributions; every stratum has its own matrix (``by:``); with ``invariant:
true`` the original margins of each stratum, ``π``, are kept, ``π P = π`` (the data holder has ``π``);
the matrix is the one the summary's notes publish; the file holds no record (no row count, no
original value outside the category names). Controls: ``invariant: false`` with a given
non-invariant matrix breaks ``π P = π`` on the same margins, so the check can fail; a release to a
file named like an input is refused before any work.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from anonkit.algorithms.perturb.pram import MATRIX_COLUMNS
from anonkit.cli import app

DATA = Path(__file__).resolve().parent / "data"
#: the toy's diseases (test2.csv)
DISEASES = ["bronchitis", "flu", "gastric ulcer", "gastritis", "pneumonia", "stomach cancer"]


def toy(tmp: Path, **algorithm: object) -> tuple[Path, dict]:
    """The toy table with a stratum column ``Region`` (two strata), PRAM on Disease by Region."""
    frame = pd.read_csv(DATA / "test2.csv", sep=";", dtype=str)
    frame = pd.concat([frame] * 4, ignore_index=True)
    frame["Region"] = np.where(np.arange(len(frame)) % 3 == 0, "north", "south")
    frame.to_csv(tmp / "in.csv", index=False)
    config = {"input": {"path": "in.csv"},
              "attributes": {"ZIPCode": {"role": "quasi"}, "Age": {"role": "quasi"}, "Salary": {"role": "insensitive"},
                             "Disease": {"role": "sensitive"}, "Region": {"role": "insensitive"}},
              "privacy": [{"model": "k-anonymity", "k": 2}],
              "algorithm": {"name": "pram", "columns": ["Disease"], "by": ["Region"], **algorithm},
              "output": {"path": "out.csv"}, "seed": 11}
    (tmp / "c.yaml").write_text(yaml.safe_dump(config))
    return tmp / "c.yaml", config


def run(config: Path) -> tuple[int, str]:
    got = CliRunner().invoke(app, ["anonymize", str(config), "--json"])
    return got.exit_code, got.output


def matrices(table: pd.DataFrame) -> dict[tuple[str, str], tuple[list[str], np.ndarray]]:
    """(column, stratum) → (categories, matrix) rebuilt from the file's rows."""
    out = {}
    for (column, stratum), rows in table.groupby(["column", "stratum"], sort=False):
        cats = sorted(set(rows["from"]))
        p = rows.pivot(index="from", columns="to", values="probability").loc[cats, cats].to_numpy()
        out[column, stratum] = (cats, p)
    return out


def margins(tmp: Path, stratum: str) -> np.ndarray:
    """The data holder's original distribution of Disease in ``stratum`` (``Region=…``)."""
    frame = pd.read_csv(tmp / "in.csv", dtype=str)
    counts = frame.loc[frame["Region"] == stratum.split("=")[1], "Disease"].value_counts()
    pi = counts.reindex(DISEASES, fill_value=0).to_numpy(dtype=float)
    return pi / pi.sum()


@pytest.fixture(scope="module")
def invariant_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame, dict]:
    tmp = tmp_path_factory.mktemp("pram_file")
    config, _ = toy(tmp)
    code, output = run(config)
    assert code == 0, output
    summary = json.loads(output[output.index("{"):])
    return tmp, pd.read_csv(tmp / "out.pram.csv", keep_default_na=False), summary


def test_the_file_is_tidy_and_every_stratum_has_its_matrix(invariant_run: tuple[Path, pd.DataFrame, dict]) -> None:
    tmp, table, summary = invariant_run
    assert tuple(table.columns) == MATRIX_COLUMNS
    got = matrices(table)
    assert set(got) == {("Disease", "Region=north"), ("Disease", "Region=south")}
    for cats, p in got.values():
        assert cats == DISEASES and p.shape == (6, 6)
        assert np.allclose(p.sum(axis=1), 1) and (p >= 0).all()
    assert got["Disease", "Region=north"][1].tolist() != got["Disease", "Region=south"][1].tolist()
    assert summary["side_files"] == [str(tmp / "out.pram.csv")]


def test_invariance_recomputed_per_stratum_from_the_original_margins(
        invariant_run: tuple[Path, pd.DataFrame, dict]) -> None:
    tmp, table, _ = invariant_run
    for (_, stratum), (_, p) in matrices(table).items():
        pi = margins(tmp, stratum)
        assert np.allclose(pi @ p, pi, atol=1e-12)
        assert not np.allclose(margins(tmp, "Region=south" if stratum.endswith("north") else "Region=north") @ p,
                               margins(tmp, "Region=south" if stratum.endswith("north") else "Region=north"),
                               atol=1e-6)  # another stratum's margins are not kept by this one's matrix


def test_the_file_is_the_summarys_matrix_to_the_last_digit(invariant_run: tuple[Path, pd.DataFrame, dict]) -> None:
    _, table, summary = invariant_run
    notes = summary["notes"]
    for (column, stratum), (cats, p) in matrices(table).items():
        rows = notes[f"pram {column} [{stratum}]"]
        assert [r[0] for r in rows] == cats
        assert np.array_equal(np.array([r[1:] for r in rows], dtype=float), p)


def test_the_file_holds_no_record(invariant_run: tuple[Path, pd.DataFrame, dict]) -> None:
    tmp, table, _ = invariant_run
    text = (tmp / "out.pram.csv").read_text()
    for value in pd.read_csv(tmp / "in.csv", dtype=str)[["ZIPCode", "Age", "Salary"]].stack().unique():
        assert f",{value}," not in text and f"={value}" not in text
    assert len(table) == 2 * 6 * 6  # strata × categories², whatever the number of records


def test_a_given_matrix_without_invariance_breaks_the_recomputation(tmp_path: Path) -> None:
    shift = {d: {d: 0.5, DISEASES[(i + 1) % 6]: 0.5} for i, d in enumerate(DISEASES)}
    config, _ = toy(tmp_path, invariant=False, matrix={"Disease": shift})
    code, output = run(config)
    assert code == 0, output
    got = matrices(pd.read_csv(tmp_path / "out.pram.csv", keep_default_na=False))
    for (_, stratum), (_, p) in got.items():
        assert np.allclose(p, np.array([[shift[a].get(b, 0.0) for b in DISEASES] for a in DISEASES]))
        pi = margins(tmp_path, stratum)
        assert not np.allclose(pi @ p, pi)


def test_a_matrix_file_over_an_input_is_refused_before_any_work(tmp_path: Path) -> None:
    config, cfg = toy(tmp_path)
    (tmp_path / "out.pram.csv").unlink(missing_ok=True)
    cfg["input"]["path"] = "out.pram.csv"
    (tmp_path / "in.csv").rename(tmp_path / "out.pram.csv")
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    before = (tmp_path / "out.pram.csv").read_bytes()
    code, output = run(config)
    assert code == 2 and "output.pram" in output and "\n" not in output.strip()
    assert (tmp_path / "out.pram.csv").read_bytes() == before and not (tmp_path / "out.csv").exists()


def test_the_cli_names_the_matrix_file_on_a_written_line(tmp_path: Path) -> None:
    """``written: …/out.pram.csv (PRAM's transition matrices)`` beside the release's own line."""
    config, _ = toy(tmp_path)
    got = CliRunner().invoke(app, ["anonymize", str(config)])
    assert got.exit_code == 0, got.output
    lines = [line for line in got.output.splitlines() if line.startswith("written: ")]
    matrix = f"written: {tmp_path / 'out.pram.csv'} (PRAM's transition matrices)"
    assert lines == [f"written: {tmp_path / 'out.csv'}", matrix]
