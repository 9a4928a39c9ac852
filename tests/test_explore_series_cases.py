"""The control of the several-series catalogue (:data:`cases_explore_series.CASES`, run by
``tests/test_bad_input.py`` through ``anonkit explore``): the cases' layout with a good second series runs."""

from __future__ import annotations

from pathlib import Path

from bad_input_kit import Case, build, run
from cases_explore_series import CASES, other


def test_every_case_runs_explore() -> None:
    assert CASES and all(c.command == "explore" and c.args[:2] == ("--out", "{tmp}/map") for c in CASES)


def test_the_base_directory_with_a_second_series_runs(tmp_path: Path) -> None:
    """Control: the cases' layout with a good second series (flash for the base's fixed levels) writes the map."""
    case = Case("good", 0, (), files=(other(algorithm={"name": "flash"}),), command="explore",
                args=("--out", "{tmp}/map", "--also", "{tmp}/o.yaml", "--vary", "k=2,3"))
    res = run(build(case, tmp_path))
    assert res.exit_code == 0, res.stderr
    assert (tmp_path / "map" / "explore.csv").read_text().splitlines()[0].startswith("series,algorithm,k,")
