"""The seams the next shapes of data plug into: a person column, the engine, linked tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonkit import Attribute, InputError, Schema, Table, anonymize
from anonkit.algorithms.registry import algorithms
from anonkit.engines import get_engine
from anonkit.engines.local import LocalEngine
from anonkit.models import DistinctLDiversity, KAnonymity


def _visits() -> pd.DataFrame:
    """Several records per person: p1 has three visits, p2 two, p3 one."""
    return pd.DataFrame({
        "pid": ["p1", "p1", "p1", "p2", "p2", "p3"],
        "age": ["30", "30", "30", "41", "41", "52"],
        "diagnosis": ["flu", "ulcer", "flu", "cold", "flu", "cold"],
    })  # fmt: skip


def test_person_column_is_never_in_the_table_and_counts_people() -> None:
    table = Table(_visits(), Schema.of(quasi=["age"], sensitive=["diagnosis"], person="pid"))
    assert "pid" not in table.frame.columns
    assert table.n == 6 and table.n_persons == 3 and table.person.tolist() == [0, 0, 0, 1, 1, 2]
    rc = np.array([0, 0, 0, 0, 1, -1])
    assert table.class_people(rc, 2).tolist() == [2, 1]  # records 0-3: p1 and p2; record 4: p2
    plain = Table(_visits(), Schema.of(quasi=["age"], sensitive=["diagnosis"], identifier=["pid"]))
    assert plain.person is None and plain.class_people(rc, 2).tolist() == [4, 1]


def test_person_column_is_refused_by_algorithms_that_count_records() -> None:
    schema = Schema.of(quasi=["age"], sensitive=["diagnosis"], person="pid")
    takers = sorted(a.name for a in algorithms().values() if a.persons)
    assert takers == ["angelization", "kl-diversity"]
    with pytest.raises(InputError, match=r"counts records, not persons.*\(kl-diversity, angelization\)") as err:
        anonymize(_visits(), schema, [KAnonymity(2)])
    assert err.value.column == "pid"


def test_person_column_errors() -> None:
    frame = _visits().assign(other=list("abcdef"))
    with pytest.raises(InputError, match="only one column may have role person"):
        schema = Schema.of(quasi=["age"], sensitive=["diagnosis"], person="pid")
        schema.add(Attribute("other", "person"))
        Table(frame, schema)
    with pytest.raises(InputError, match="without a person") as err:
        Table(_visits().assign(pid=["p1", "", "p1", "p2", "p2", "p3"]),
              Schema.of(quasi=["age"], sensitive=["diagnosis"], person="pid"))
    assert err.value.row == 2


class _CountingEngine(LocalEngine):
    """The local engine, counting the calls the pipeline makes through the seam."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def encode(self, data, schema, **kw):  # type: ignore[no-untyped-def]
        self.calls.append("encode")
        return super().encode(data, schema, **kw)

    def publish(self, release, **kw):  # type: ignore[no-untyped-def]
        self.calls.append("publish")
        return super().publish(release, **kw)

    def verify(self, published, schema, models, **link):  # type: ignore[no-untyped-def]
        self.calls.append("verify")
        return super().verify(published, schema, models, **link)


def test_the_pipeline_goes_through_the_engine() -> None:
    engine = _CountingEngine()
    frame = pd.DataFrame({"q": list("aabbcc"), "s": list("xyxyxy")})
    result = anonymize(frame, Schema.of(quasi=["q"], sensitive=["s"]), [KAnonymity(2)], engine=engine)
    assert engine.calls == ["encode", "publish", "verify"] and result.verification.ok
    assert isinstance(get_engine(None), LocalEngine) and isinstance(get_engine("local"), LocalEngine)
    with pytest.raises(InputError, match="unknown engine 'dask'; available: local, spark"):
        anonymize(frame, Schema.of(quasi=["q"], sensitive=["s"]), [KAnonymity(2)], engine="dask")


def test_linked_tables_are_declared_and_published_by_name() -> None:
    linked = {a.name: a.tables for a in algorithms().values() if a.tables}
    assert linked == {"anatomy": ("qit", "st"), "angelization": ("qt", "st"), "kl-diversity": ("persons",),
                      "local-suppression": ("table",), "pram": ("perturbed",), "add-noise": ("perturbed",),
                      "rank-swap": ("perturbed",), "record-swap": ("perturbed",), "shuffle": ("perturbed",),
                      "microaggregation": ("perturbed",), "dp-synthetic": ("synthetic",)}
    frame = pd.DataFrame({"q": list("abcdefgh"), "s": list("xyzwxyzw")})
    result = anonymize(frame, Schema.of(quasi=["q"], sensitive=["s"]), [DistinctLDiversity("s", 2)],
                       algorithm="anatomy", l=2)
    assert set(result.release.tables) == {"qit", "st"}
