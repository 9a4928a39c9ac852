"""The Adult census extract (30,162 records, 9 attributes) and ARX's hierarchies of it, bundled in
``anonkit/datasets/data`` (copied byte for byte from the ARX repository; see ``NOTICE.md`` there)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from anonkit.hierarchy import Hierarchy, read_hierarchy

__all__ = ["ADULT_ATTRIBUTES", "adult_hierarchies", "adult_path", "data_dir", "load_adult"]

ADULT_ATTRIBUTES = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
    "salary-class",
]


def data_dir() -> Path:
    """The folder holding the bundled data files."""
    return Path(__file__).resolve().parent / "data"


def adult_path() -> Path:
    return data_dir() / "adult.csv"


def adult_hierarchies() -> dict[str, Hierarchy]:
    """ARX's hierarchies of the nine Adult attributes, by attribute name."""
    return {
        a: read_hierarchy(data_dir() / f"adult_hierarchy_{a}.csv", name=a) for a in ADULT_ATTRIBUTES
    }


def load_adult() -> tuple[pd.DataFrame, dict[str, Hierarchy]]:
    """The Adult table (30,162 records, 9 attributes, every cell as text) and its hierarchies."""
    frame = pd.read_csv(adult_path(), sep=";", dtype=str, keep_default_na=False).astype(object)
    return frame, adult_hierarchies()
