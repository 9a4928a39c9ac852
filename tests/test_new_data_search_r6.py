"""Twin tests of the search's release on a table of *new data* (issue 30, session 14 round 6):

* a released class's number looked up once per class (:func:`~anonkit.algorithms.transform.published_ids`)
  instead of once per distinct tuple, against ``where(keep[tc], new_id[tc], −1)``;
* which released classes hold a record read over the distinct tuples when no record is suppressed up front
  (every distinct tuple holds a record), over the records otherwise: :func:`~anonkit.algorithms.transform.
  release_node` against the per-record computation it had, on nodes with failing classes and on a table whose
  records suppressed up front empty a released class (the renumbering path).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from anonkit import Schema, Table
from anonkit.algorithms import transform
from anonkit.algorithms.transform import evaluate_node, published_ids, release_node
from anonkit.hierarchy import Hierarchy
from anonkit.models import KAnonymity

AGES = [str(20 + a) for a in range(24)]
ZIPS = [f"z{i}" for i in range(18)]


def _schema() -> Schema:
    hierarchies = {
        "age": Hierarchy([[a, f"b{(int(a) - 20) // 3}", f"h{(int(a) - 20) // 12}", "*"] for a in AGES], name="age"),
        "zip": Hierarchy([[z, f"p{i // 3}", "*"] for i, z in enumerate(ZIPS)], name="zip"),
    }
    return Schema.of(quasi=["age", "zip"], sensitive=["disease"], hierarchies=hierarchies)


def _frame(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": [AGES[i] for i in rng.choice(len(AGES), n)],
        "zip": [ZIPS[i] for i in rng.choice(len(ZIPS), n)],
        "disease": [str(x) for x in rng.choice(np.array(["flu", "hiv", "cold"], dtype=object), n)],
    })


def _record_classes_per_record(table: Table, ev: transform.NodeEvaluation) -> tuple[np.ndarray, int]:
    """The published class of every record and the number of released classes, computed record by record as
    :func:`release_node` did before: per tuple ``where(keep[tc], new_id[tc], −1)``, the records suppressed up front
    set to −1, the released classes some record holds found over the records, the others renumbered away."""
    keep = ev.class_ok
    new_id = np.cumsum(keep) - 1
    tc = ev.tuple_class
    record_class = np.where(keep[tc], new_id[tc], -1).astype(np.int64)[table.distinct.inverse]
    record_class[table.presuppressed] = -1
    present = np.zeros(int(keep.sum()), dtype=bool)
    present[record_class[record_class >= 0]] = True
    remap = np.append(np.cumsum(present) - 1, -1)
    return remap[record_class], int(present.sum())


@pytest.mark.parametrize("seed", range(6))
def test_published_ids_are_the_per_tuple_lookup(seed: int) -> None:
    """One lookup per class read through the tuples' classes gives the per-tuple ``where`` (catches: an id
    counted from 1, a suppressed class given 0 or its running count, another dtype)."""
    rng = np.random.default_rng(seed)
    n_classes = int(rng.integers(1, 40))
    keep = rng.random(n_classes) < (0.0, 1.0, 0.5, 0.2, 0.8, 0.5)[seed]
    tc = rng.integers(0, n_classes, 200)
    new_id = np.cumsum(keep) - 1
    expected = np.where(keep[tc], new_id[tc], -1).astype(np.int64)
    got = published_ids(keep)[tc]
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("seed", range(3))
def test_release_node_reads_the_classes_reached_over_the_tuples(seed: int, monkeypatch) -> None:
    """Without records suppressed up front, the released classes are found over the distinct tuples (the path
    runs, on fewer entries than records) and the release is the per-record one, on every node of the lattice
    with k large enough to fail some classes (catches: tuples read although records were suppressed up front —
    see the next test —, the wrong class numbers, the records' classes not gathered through the tuples)."""
    table = Table(_frame(seed, 300), _schema())
    assert not table.presuppressed.any() and table.distinct.size < table.n
    seen: list[int] = []
    reached = transform._reached_classes
    monkeypatch.setattr(transform, "_reached_classes", lambda ids, n: seen.append(len(ids)) or reached(ids, n))
    failing = 0
    for levels in [(a, z) for a in range(4) for z in range(3)]:
        ev = evaluate_node(table, levels, [KAnonymity(4)], limit=table.n)
        failing += int((~ev.class_ok).any())
        rel = release_node(table, ev, algorithm="test")
        expected, n_classes = _record_classes_per_record(table, ev)
        np.testing.assert_array_equal(rel.record_class, expected)
        assert rel.n_classes == n_classes
        assert seen[-1] == table.distinct.size
    assert failing >= 3  # nodes with suppressed classes were released


def test_release_node_renumbers_a_class_emptied_by_records_suppressed_up_front(monkeypatch) -> None:
    """With records suppressed up front, a released class whose records all are is dropped and the others
    renumbered, found over the records (catches: reading the tuples then, where that class's tuple is present).
    The class of the one record suppressed up front fails k-anonymity (it counts no record), so the node's
    verdicts are set to release every class, as a model that passes empty classes would."""
    frame = _frame(7, 120)
    frame.loc[0, "zip"] = ""  # a missing value: the record suppressed up front
    frame.loc[0, "age"] = "43"  # alone on its age: its class at the bottom holds no other record
    frame.loc[1:, "age"] = frame.loc[1:, "age"].replace("43", "42")
    table = Table(frame, _schema(), missing="suppress")
    assert int(table.presuppressed.sum()) == 1
    seen: list[int] = []
    reached = transform._reached_classes
    monkeypatch.setattr(transform, "_reached_classes", lambda ids, n: seen.append(len(ids)) or reached(ids, n))
    ev = evaluate_node(table, (0, 0), [KAnonymity(1)], limit=table.n)
    assert (~ev.class_ok).sum() == 1  # that class fails (no record to count): released as the verdicts say
    ev = dataclasses.replace(ev, class_ok=np.ones_like(ev.class_ok))
    rel = release_node(table, ev, algorithm="test")
    expected, n_classes = _record_classes_per_record(table, ev)
    assert n_classes < int(ev.class_ok.sum())  # a released class held only the record suppressed up front
    np.testing.assert_array_equal(rel.record_class, expected)
    assert rel.n_classes == n_classes
    assert seen == [table.n]
