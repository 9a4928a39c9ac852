"""Issue 23 class 5: no column disappears silently. The algorithms that build their own tables
(Anatomy, angelization, (k,l)-diversity) publish the insensitive columns or leave them out when
asked (``insensitive: drop``, named in the summary); kl-diversity generalizes a numeric QI along its
declared hierarchy; a full-domain algorithm warns about a numeric QI that only has the flat one."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonkit.algorithms.bucket.anatomy import anatomy
from anonkit.algorithms.partition.kl_diversity import PERSONS, kl_diversity
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.models import DistinctLDiversity, KAnonymity, ThetaSensitivity
from anonkit.pipeline import anonymize
from anonkit.schema import Schema
from anonkit.table import Table

CATS = {"flu": "Low", "cold": "Low", "ulcer": "Mild", "gastritis": "Mild", "cancer": "Severe", "hiv": "Severe"}
DISEASES = list(CATS)


def _records(n: int = 60, seed: int = 0, per_person: bool = True) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(n):
        age = int(rng.integers(20, 60))
        zipc = str(int(rng.choice([1234, 1235, 1299, 1300])))
        plan = f"plan{p % 3}"  # a person-level insensitive column
        for v in range(int(rng.integers(1, 4)) if per_person else 1):
            rows.append((f"p{p}", str(age), zipc, DISEASES[int(rng.integers(len(DISEASES)))], plan, f"visit{v}"))
    return pd.DataFrame(rows, columns=["pid", "age", "zip", "disease", "plan", "visit"])


def _schema(person: bool = True, **kw: object) -> Schema:
    return Schema.of(person="pid" if person else None, identifier=[] if person else ["pid"], quasi=["age", "zip"],
                     sensitive=["disease"], insensitive=["plan", "visit"], types={"age": "numeric"},
                     categories={"disease": CATS}, **kw)


# ------------------------------------------------------------------------------------------ Anatomy
def test_anatomy_publishes_insensitive_columns_per_record() -> None:
    frame = _records(per_person=False)
    table = Table(frame, _schema(person=False))
    rel = anatomy(table, [DistinctLDiversity("disease", 3)], seed=1)
    qit = rel.tables["qit"]
    assert list(qit.columns) == ["age", "zip", "plan", "visit", "GroupID"]
    # every released record's (age, zip, plan, visit) appears exactly as in the input
    got = sorted(map(tuple, qit[["age", "zip", "plan", "visit"]].astype(str).to_numpy()))
    released = np.flatnonzero(rel.record_class >= 0)
    want = sorted(map(tuple, frame.iloc[released][["age", "zip", "plan", "visit"]].to_numpy()))
    assert got == want
    assert "disease" not in qit.columns  # the sensitive value stays in the ST


def test_anatomy_drop_leaves_them_out_and_says_so() -> None:
    frame = _records(per_person=False)
    result = anonymize(frame, _schema(person=False), [DistinctLDiversity("disease", 3)], algorithm="anatomy",
                       insensitive="drop")
    assert list(result.release.tables["qit"].columns) == ["age", "zip", "GroupID"]
    assert any("plan, visit" in w and "insensitive: drop" in w for w in result.summary["warnings"])
    kept = anonymize(frame, _schema(person=False), [DistinctLDiversity("disease", 3)], algorithm="anatomy")
    assert not any("insensitive: drop" in w for w in kept.summary["warnings"])  # control


def test_bucket_algorithms_refuse_a_second_sensitive_attribute() -> None:
    frame = _records(per_person=False).assign(income=lambda f: ["hi", "lo"] * (len(f) // 2) + ["hi"] * (len(f) % 2))
    schema = Schema.of(identifier=["pid"], quasi=["age", "zip"], sensitive=["disease", "income"],
                       insensitive=["plan", "visit"], types={"age": "numeric"})
    with pytest.raises(InputError, match="would not publish 'income'"):
        anatomy(Table(frame, schema), [], l=2, sensitive="disease")
    schema1 = _schema()
    schema1.attributes["visit"] = schema1["visit"].__class__("visit", schema1["disease"].role)  # a second sensitive
    schema1["visit"].categories = None
    one_m = _records()
    with pytest.raises(InputError, match="would not publish 'visit'"):
        kl_diversity(Table(one_m, schema1), [], k=2, l=2, sensitive="disease")


# ------------------------------------------------------------------------------------ angelization
@pytest.mark.parametrize("repair", ["swap", "noise"])
def test_angelization_publishes_insensitive_columns_per_person(repair: str) -> None:
    frame = _records()
    models = [KAnonymity(3), ThetaSensitivity("disease", 3, 0.5)]
    result = anonymize(frame, _schema(), models, algorithm="angelization", seed=2, repair=repair)
    qt = result.release.tables["qt"]
    assert list(qt.columns) == ["age", "zip", "plan", "visit", "bucket"]
    assert result.verification.ok  # the verifier checks every real row's values against the input
    assert any(r.model.startswith("link: QT column 'plan'") and r.passed for r in result.verification.results)
    assert set(qt["plan"]) <= {"plan0", "plan1", "plan2"}  # a fake shows a real member's plan
    # a person with several visits publishes the set of them
    assert any(str(v).startswith("{visit0;visit1") for v in qt["visit"])
    assert qt["plan"].notna().all() and qt["visit"].notna().all()


def test_angelization_drop() -> None:
    models = [KAnonymity(3), ThetaSensitivity("disease", 3, 0.5)]
    result = anonymize(_records(), _schema(), models, algorithm="angelization", insensitive="drop")
    assert list(result.release.tables["qt"].columns) == ["age", "zip", "bucket"]
    assert result.release.notes["dropped_columns"] == ["plan", "visit"]


# ------------------------------------------------------------------------------------ kl-diversity
def test_kl_diversity_publishes_insensitive_columns_per_person() -> None:
    frame = _records()
    table = Table(frame, _schema())
    rel = kl_diversity(table, [], k=3, l=2, seed=0)
    out = rel.tables[PERSONS]
    assert list(out.columns) == ["age", "zip", "plan", "visit", "disease"]
    assert len(out) == table.n_persons
    # per person: the plan (one value) and the set of its visits
    visits = frame.groupby("pid")["visit"].agg(lambda v: sorted(set(v)))
    expected = sorted(v[0] if len(v) == 1 else "{" + ";".join(v) + "}" for v in visits)
    assert sorted(out["visit"]) == expected
    assert sorted(out["plan"]) == sorted(frame.groupby("pid")["plan"].first())
    dropped = kl_diversity(table, [], k=3, l=2, seed=0, insensitive="drop")
    assert list(dropped.tables[PERSONS].columns) == ["age", "zip", "disease"]


def test_kl_diversity_pipeline_verifies_with_insensitive_columns() -> None:
    result = anonymize(_records(), _schema(), [KAnonymity(3), DistinctLDiversity("disease", 2)],
                       algorithm="kl-diversity")
    assert result.verification.ok and "plan" in result.frame.columns


def _age_hierarchy() -> Hierarchy:
    return Hierarchy([[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", f"{a // 20 * 20}-{a // 20 * 20 + 19}", "*"]
                      for a in range(20, 60)], name="age")


def test_kl_diversity_uses_a_declared_hierarchy() -> None:
    frame = _records(n=80)
    schema = _schema(hierarchies={"age": _age_hierarchy()})
    rel = kl_diversity(Table(frame, schema), [], k=3, l=2, seed=0)
    labels = set(rel.tables[PERSONS]["age"])
    nodes = {lab for row in _age_hierarchy().labels for lab in row}
    assert labels <= nodes, labels - nodes  # hierarchy nodes, never an interval [lo-hi]
    assert not any(str(x).startswith("[") for x in labels)
    # control: without a hierarchy the numeric QI becomes intervals
    plain = kl_diversity(Table(frame, _schema()), [], k=3, l=2, seed=0)
    assert any(str(x).startswith("[") for x in plain.tables[PERSONS]["age"])


def test_kl_diversity_hierarchy_release_is_verified() -> None:
    result = anonymize(_records(n=80), _schema(hierarchies={"age": _age_hierarchy()}),
                       [KAnonymity(3), DistinctLDiversity("disease", 2)], algorithm="kl-diversity")
    assert result.verification.ok
    assert not any(str(x).startswith("[") for x in result.frame["age"])


# ------------------------------------------------------------------------- the flat numeric warning
def _flat_frame() -> tuple[pd.DataFrame, Schema]:
    frame = _records(n=120, per_person=False).drop(columns=["pid", "visit"])
    return frame, Schema.of(quasi=["age", "zip"], sensitive=["disease"], insensitive=["plan"],
                            types={"age": "numeric", "zip": "categorical"})


def test_flash_warns_about_a_numeric_qi_without_hierarchy() -> None:
    frame, schema = _flat_frame()
    result = anonymize(frame, schema, [KAnonymity(2)], algorithm="flash")
    line = [w for w in result.summary["warnings"] if "'age'" in w]
    assert line and "builder: intervals" in line[0] and "'*'" in line[0]
    assert not any("'zip'" in w for w in result.summary["warnings"])  # categorical: no such warning


def test_no_flat_warning_with_a_hierarchy_or_local_recoding() -> None:
    frame, schema = _flat_frame()
    schema["age"].hierarchy = _age_hierarchy()
    assert not any("builder" in w for w in anonymize(frame, schema, [KAnonymity(2)]).summary["warnings"])
    frame, schema = _flat_frame()
    result = anonymize(frame, schema, [KAnonymity(2)], algorithm="mondrian")  # intervals: no warning
    assert not any("builder" in w for w in result.summary["warnings"])
