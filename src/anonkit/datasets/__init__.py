"""Bundled example data: the Adult census extract and its ARX hierarchies.

The files in ``anonkit/datasets/data`` were copied byte for byte from the ARX repository
(Apache-2.0; data from UCI Adult, CC BY 4.0); see ``NOTICE.md`` there.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pandas as pd

from anonkit.hierarchy import Hierarchy, read_hierarchy

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
    return Path(str(resources.files("anonkit.datasets").joinpath("data")))


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


DATASETS = {"adult": (adult_path, adult_hierarchies)}

from anonkit.datasets.bkseq import bkseq_hierarchies, make_bkseq  # noqa: E402
from anonkit.datasets.city import city_homes, make_city, simulate_city  # noqa: E402
from anonkit.datasets.one_to_many import CATEGORY_ORDER, ONE_TO_MANY_CATEGORIES, make_one_to_many  # noqa: E402
from anonkit.datasets.smart_health import make_smart_health, smart_health_hierarchies  # noqa: E402

__all__ = [
    "ADULT_ATTRIBUTES",
    "CATEGORY_ORDER",
    "DATASETS",
    "ONE_TO_MANY_CATEGORIES",
    "adult_hierarchies",
    "adult_path",
    "bkseq_hierarchies",
    "city_homes",
    "data_dir",
    "load_adult",
    "make_bkseq",
    "make_city",
    "make_one_to_many",
    "make_smart_health",
    "simulate_city",
    "smart_health_hierarchies",
]
