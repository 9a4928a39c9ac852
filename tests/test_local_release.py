"""Releases of record partitions (local recoding): subset requirements on published values,
missing values, empty partitions."""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonkit import Hierarchy, Schema, Table
from anonkit.algorithms.local import partition_release
from anonkit.models import KAnonymity
from anonkit.verifier import verify


def _table() -> Table:
    edu = Hierarchy([["Bachelors", "Higher", "*"], ["Masters", "Higher", "*"], ["Doctorate", "Higher", "*"],
                     ["HS-grad", "Secondary", "*"], ["11th", "Secondary", "*"]], name="edu")
    sex = Hierarchy([["M", "*"], ["F", "*"]], name="sex")
    frame = pd.DataFrame({"edu": ["Bachelors", "Masters", "Doctorate", "HS-grad", "11th", "Bachelors"],
                          "sex": ["M", "M", "F", "F", "F", "M"], "s": list("abcabc")})
    return Table(frame, Schema.of(quasi=["edu", "sex"], sensitive=["s"], hierarchies={"edu": edu, "sex": sex}))


def test_subset_requirement_is_judged_on_published_values() -> None:
    table = _table()
    # classes {t1,t2,t6} -> (Higher, M) and {t3,t4,t5} -> (*, F): on edu alone the groups are
    # "Higher" (3) and "*" (3), so 2-anonymity on edu holds although every original edu value is rarer
    models = [KAnonymity(2), KAnonymity(2, attributes=("edu",))]
    rel = partition_release(table, np.array([0, 0, 1, 1, 1, 0]), models, algorithm="t")
    assert rel.n_suppressed == 0 and rel.satisfied
    assert verify(rel.to_frame(), table.schema, models).ok
    # 4-anonymity on edu fails for both groups: everything is suppressed, nothing violating published
    strict = [KAnonymity(2), KAnonymity(4, attributes=("edu",))]
    rel = partition_release(table, np.array([0, 0, 1, 1, 1, 0]), strict, algorithm="t")
    assert rel.n_suppressed == 6 and not rel.satisfied


def test_empty_partition_and_missing_numbers() -> None:
    frame = pd.DataFrame({"age": ["30", "", "41", "45"], "s": list("abab")})
    table = Table(frame, Schema.of(quasi=["age"], sensitive=["s"], types={"age": "numeric"}))
    rel = partition_release(table, np.array([-1, -1, -1, -1]), [KAnonymity(1)], algorithm="t")
    assert rel.n_classes == 0 and not rel.satisfied
    rel = partition_release(table, np.array([0, 0, 1, 1]), [KAnonymity(2)], algorithm="t")
    labels = sorted(set(rel.to_frame()["age"]))
    assert labels == ["*", "[41-45]"]  # a class holding a missing value goes to its hierarchy LCA
