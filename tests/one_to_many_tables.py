"""Random 1:M tables (several records per person, a ``person`` column), shared by the tests of the
algorithms and analyses that count persons: test_angelization and test_exact_values
(:func:`random_one_to_many`), test_published and test_class_attacks (:func:`one_to_many`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonkit import Hierarchy, Schema
from anonkit.datasets.one_to_many import CATEGORY_ORDER

ZIPS = ["1234", "1235", "1299", "1300"]
H_ZIP = Hierarchy([[z, z[:3] + "*", "*"] for z in ZIPS], name="zip")
#: ten diseases and their categories, two per category (θ-sensitivity; spec §1.5)
DISEASES = {
    "Cold": "Asymptomatic", "Allergy": "Asymptomatic", "Flu": "Low", "Migraine": "Low", "Asthma": "Mild",
    "Ulcer": "Mild", "Diabetes": "High", "Pneumonia": "High", "Cancer": "Severe", "HIV": "Severe",
}
#: five diseases, one per category
FIVE_DISEASES = {"Cold": "Asymptomatic", "Flu": "Low", "Gastritis": "Mild", "Pneumonia": "High", "Cancer": "Severe"}


def with_categories(schema: Schema, name: str, categories: dict[str, str], order: tuple[str, ...] = CATEGORY_ORDER
                    ) -> Schema:
    """``schema`` with the categories (and their order) of attribute ``name`` set."""
    schema.attributes[name].categories = dict(categories)
    schema.attributes[name].category_order = tuple(order)
    return schema


def random_one_to_many(seed: int, n_persons: int, n_qis: int = 3, *, diseases: list[str] | None = None
                       ) -> tuple[pd.DataFrame, Schema]:
    """Persons with 1–4 records each (distinct diagnoses), QIs age (numeric), zip (hierarchy) and,
    with ``n_qis = 3``, sex (no hierarchy); person labels ``pid-…`` that must never be published."""
    rng = np.random.default_rng(seed)
    pool = np.array(diseases or list(DISEASES), dtype=object)
    rows = []
    for p in range(n_persons):
        m = int(rng.integers(1, 5))
        age, z, sex = str(rng.integers(20, 60)), str(rng.choice(ZIPS)), str(rng.choice(["F", "M"]))
        for d in rng.choice(pool, min(m, len(pool)), replace=False):
            rows.append((f"pid-{p:03d}", age, z, sex, d))
    frame = pd.DataFrame(rows, columns=["person", "age", "zip", "sex", "disease"])
    qis = ["age", "zip", "sex"][:n_qis]
    if n_qis < 3:
        frame = frame.drop(columns=["sex"])
    schema = Schema.of(person="person", quasi=qis, sensitive=["disease"], types={"age": "numeric"},
                       hierarchies={"zip": H_ZIP})
    return frame, with_categories(schema, "disease", DISEASES)


def one_to_many(seed: int, persons: int) -> tuple[pd.DataFrame, Schema]:
    """Persons with 1–3 distinct diagnoses each (of FIVE_DISEASES); age numeric, zip with a hierarchy."""
    rng = np.random.default_rng(seed)
    zips = ["1234", "1235", "1299", "1300"]
    rows = []
    for p in range(persons):
        age, z = str(rng.integers(20, 60)), str(rng.choice(zips))
        for d in rng.choice(list(FIVE_DISEASES), int(rng.integers(1, 4)), replace=False):
            rows.append((f"pid-{p:03d}", age, z, d))
    frame = pd.DataFrame(rows, columns=["person", "age", "zip", "disease"])
    h_zip = Hierarchy([[z, z[:3] + "*", "*"] for z in zips], name="zip")
    schema = Schema.of(person="person", quasi=["age", "zip"], sensitive=["disease"], types={"age": "numeric"},
                       hierarchies={"zip": h_zip}, categories={"disease": FIVE_DISEASES})
    return frame, schema
