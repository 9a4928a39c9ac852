"""Tables for Mondrian's tests (test_mondrian, test_two_cores): small random tables with numeric and
hierarchical quasi-identifiers, and Adult with its 8 quasi-identifiers and occupation sensitive."""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonkit import Hierarchy, Schema, Table, load_adult

QI8 = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]


def random_table(seed: int, n: int, *, numeric_only: bool = False, missing: bool = False) -> Table:
    """A random table; ``missing``: a tenth of the ages blank, suppressed up front."""
    rng = np.random.default_rng(seed)
    colour = ["red", "pink", "blue", "navy", "green", "lime", "grey", "black"]  # black, grey never occur
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 20 + int(rng.integers(1, 30)), n).astype(str),
            "weight": rng.normal(70, 10, n).round(int(rng.integers(0, 2))).astype(str),
            "colour": rng.choice(colour[: int(rng.integers(1, 7))], n),
            "zip": rng.choice(["1234", "1235", "1299", "1300"], n),
            "disease": rng.choice(["flu", "cold", "cancer", "ulcer", "hiv"], n, p=[0.3, 0.3, 0.2, 0.1, 0.1]),
        }
    )
    if missing:
        frame.loc[rng.random(n) < 0.1, "age"] = ""
    h_colour = Hierarchy(
        [[c, {"red": "warm", "pink": "warm", "blue": "cold", "navy": "cold"}.get(c, "other"), "*"] for c in colour],
        name="colour",
    )
    h_zip = Hierarchy([[z, z[:3] + "*", z[:2] + "**", "*"] for z in ["1234", "1235", "1299", "1300"]], name="zip")
    qis = ["age", "weight"] if numeric_only else ["age", "colour", "weight", "zip"]
    schema = Schema.of(
        quasi=qis,
        sensitive=["disease"],
        hierarchies={"colour": h_colour, "zip": h_zip} if not numeric_only else {},
        types={"age": "numeric", "weight": "numeric"},
    )
    return Table(frame[[*qis, "disease"]], schema, missing="suppress" if missing else "value")


def adult_table() -> tuple[pd.DataFrame, Table]:
    """Adult with its 8 quasi-identifiers (age numeric) and occupation sensitive."""
    frame, hier = load_adult()
    schema = Schema.of(
        quasi=QI8,
        sensitive=["occupation"],
        types={"age": "numeric"},
        hierarchies={**{q: hier[q] for q in QI8}, "occupation": hier["occupation"]},
    )
    return frame, Table(frame, schema)
