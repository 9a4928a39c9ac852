"""Shared fixtures: the test data of ``tests/data`` and the bundled Adult files."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import settings

# CI and a plain ``pytest`` run the same examples every time (the project's runs are deterministic);
# ``--hypothesis-profile=explore`` draws new ones to look for fresh failures. No deadline: a test's
# speed is no property of the code under test, and a loaded machine would fail it at random.
settings.register_profile("default", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile("default")

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
ADULT = TESTS.parent / "src" / "anonkit" / "datasets" / "data"


def read_csv(path: Path) -> pd.DataFrame:
    """Read an ARX-style CSV: ``;``-separated, every cell as text, nothing read as missing."""
    return pd.read_csv(path, sep=";", dtype=str, keep_default_na=False)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def adult_dir() -> Path:
    return ADULT


@pytest.fixture(scope="session")
def test2_frame() -> pd.DataFrame:
    """The 9 records of the t-closeness paper: ZIPCode, Age, Salary (thousands), Disease."""
    return read_csv(DATA / "test2.csv")


@pytest.fixture(scope="session")
def test2_hierarchies() -> dict:
    from anonkit.hierarchy import read_hierarchy

    return {
        name: read_hierarchy(DATA / f"test2_hierarchy_{name}.csv", name=name) for name in ("ZIPCode", "Age", "Disease")
    }


@pytest.fixture(scope="session")
def adult_frame() -> pd.DataFrame:
    return read_csv(ADULT / "adult.csv")


@pytest.fixture(scope="session")
def adult_bk_table():
    """Adult as paper A uses it: QIs age (numeric, with its hierarchy), sex, education; sensitive
    salary-class."""
    from anonkit import Schema, Table, load_adult

    frame, hierarchies = load_adult()
    qis = ["age", "sex", "education"]
    schema = Schema.of(
        quasi=qis,
        sensitive=["salary-class"],
        hierarchies={q: hierarchies[q] for q in qis},
        types={"age": "numeric"},
        default_role="insensitive",
    )
    return Table(frame, schema)
