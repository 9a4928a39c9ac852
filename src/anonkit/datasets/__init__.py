"""Bundled example data: the Adult census extract and its ARX hierarchies.

The files in ``anonkit/datasets/data`` were copied byte for byte from the ARX repository
(Apache-2.0; data from UCI Adult, CC BY 4.0); see ``NOTICE.md`` there.
"""

from __future__ import annotations

from anonkit.datasets.adult import ADULT_ATTRIBUTES, adult_hierarchies, adult_path, data_dir, load_adult

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
