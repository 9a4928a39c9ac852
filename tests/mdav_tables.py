"""Random tables for the MDAV tests (tests/test_mdav_fast.py, tests/test_mdav_index.py): numeric QIs over few
levels (many duplicates and ties), optionally missing values, and categorical QIs with and without a hierarchy."""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonkit import Hierarchy, Schema, Table

ZIPS = ["1234", "1235", "1299", "1300"]


def random_table(seed: int, n: int, *, numeric: int, categorical: bool, levels: int, missing: bool) -> Table:
    """``numeric`` numeric QIs over ``levels`` values (few levels: many duplicates and ties), optionally
    with missing values, plus a categorical QI with a hierarchy and one without."""
    rng = np.random.default_rng(seed)
    columns: dict[str, list[str]] = {}
    types: dict[str, str] = {}
    for a in range(numeric):
        values = [str(v) for v in rng.integers(0, levels, n)]
        if missing:
            values = ["" if rng.random() < 0.15 else v for v in values]
        columns[f"x{a}"] = values
        types[f"x{a}"] = "numeric"
    hierarchies = {}
    if categorical or not numeric:
        columns["zip"] = list(rng.choice(ZIPS, n))
        columns["sex"] = list(rng.choice(["M", "F"], n))
        types |= {"zip": "categorical", "sex": "categorical"}
        hierarchies["zip"] = Hierarchy([[z, z[:3] + "*", "*"] for z in ZIPS], name="zip")
    frame = pd.DataFrame(columns)
    return Table(frame, Schema.of(quasi=list(columns), hierarchies=hierarchies, types=types))  # type: ignore[arg-type]
