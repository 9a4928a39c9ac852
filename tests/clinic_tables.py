"""Random clinic tables for the clustering algorithms (age, zip, sex; six diseases, sensitive): one
with a hierarchy per quasi-identifier for KACA, one read as numbers for MDAV. test_kaca, test_mdav and
test_cluster_merging (both algorithms meeting l-diversity by merging) share them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonkit import Hierarchy, Schema, Table


def hierarchical_clinic(seed: int, n: int = 300, *, missing: str = "value") -> Table:
    """A random clinic table: age 20–79, 20 zip codes, sex; 6 diseases (sensitive)."""
    rng = np.random.default_rng(seed)
    ages = np.arange(20, 80)
    zips = [str(z) for z in range(47600, 47620)]
    frame = pd.DataFrame(
        {
            "age": rng.choice(ages, n).astype(str),
            "zip": rng.choice(zips, n),
            "sex": rng.choice(["M", "F"], n),
            "disease": rng.choice(["flu", "cold", "cancer", "ulcer", "gastritis", "hiv"], n),
        }
    )
    h_age = Hierarchy(
        [[str(a), f"{a // 5 * 5}-{a // 5 * 5 + 4}", f"{a // 10 * 10}-{a // 10 * 10 + 9}",
          f"{a // 20 * 20}-{a // 20 * 20 + 19}", "*"] for a in ages],
        name="age",
    )  # fmt: skip
    h_zip = Hierarchy([[z, z[:4] + "*", z[:3] + "**", "*"] for z in zips], name="zip")
    h_sex = Hierarchy([["M", "*"], ["F", "*"]], name="sex")
    schema = Schema.of(
        quasi=["age", "zip", "sex"], sensitive=["disease"], hierarchies={"age": h_age, "zip": h_zip, "sex": h_sex},
        types={"age": "numeric", "zip": "numeric", "sex": "categorical", "disease": "categorical"},
    )  # fmt: skip
    return Table(frame, schema, missing=missing)  # type: ignore[arg-type]


def numeric_clinic(seed: int, n: int = 300) -> Table:
    """A random clinic table: age 20–79 and 20 zip codes (numeric), sex (categorical, MDAV-generic);
    6 diseases (sensitive)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 80, n).astype(str),
            "zip": rng.choice([str(z) for z in range(47600, 47620)], n),
            "sex": rng.choice(["M", "F"], n),
            "disease": rng.choice(["flu", "cold", "cancer", "ulcer", "gastritis", "hiv"], n),
        }
    )
    types = {"age": "numeric", "zip": "numeric", "sex": "categorical", "disease": "categorical"}
    return Table(frame, Schema.of(quasi=["age", "zip", "sex"], sensitive=["disease"], types=types))  # type: ignore[arg-type]
