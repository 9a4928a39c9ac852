"""The default summary computes no measure through a per-record Python loop (issue 30, item 1).

Not a timing test: the summary's Python work is *counted*. :func:`python_lines` traces every Python
line executed (``sys.settrace``: any module, comprehensions included) while
:func:`anonkit.runner.summary.measured_summary` measures a release — every measure of the summary
(:data:`anonkit.metrics.METRICS`, the optional ones included), the records at risk, the score and the
generalization per quasi-identifier. The same release is measured on a table and on that table
repeated ten times (the same classes, ten times the records). Vectorized or compiled work costs the
same number of Python lines whatever the number of records; a loop over the records in Python costs
ten times as many. The releases are the three shapes the measures branch on: a full-domain node
with suppressed records (Flash), intervals of local recoding (Mondrian) and clusters (MDAV).

The control (:func:`test_a_per_record_measure_is_caught`) adds a measure that walks the records in
Python and checks that the count catches it.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import numpy as np
import pandas as pd
import pytest

from anonkit import Schema, Table
from anonkit.algorithms import get_algorithm
from anonkit.metrics import SearchMetric
from anonkit.models import DistinctLDiversity, KAnonymity
from anonkit.release import Release, measuring
from anonkit.runner import summary
from anonkit.runner.summary import measured_summary
from anonkit.verifier import Verification

#: records of the small table (Adult's first rows) and how many times the large one repeats it
ROWS, COPIES = 400, 10
QIS = ["age", "sex", "race", "education"]
#: the extra Python lines allowed on the large table, per extra record: a loop over the records costs at
#: least one line per record; this allows a few lines that depend on sizes (a branch on the number of rows)
ALLOWED_PER_RECORD = 0.1
ALGORITHMS = {"flash": {"max_suppression": 0.05}, "mondrian": {}, "mdav": {}}


def python_lines(call: Callable[[], Any]) -> int:
    """The Python lines executed by ``call()`` (every module, every frame it opens)."""
    count = 0

    def trace(frame: FrameType, event: str, arg: object) -> Callable | None:
        nonlocal count
        if event == "line":
            count += 1
        return trace

    sys.settrace(trace)
    try:
        call()
    finally:
        sys.settrace(None)
    return count


def repeated(release: Release, table: Table, copies: int) -> Release:
    """``release`` over ``table`` (its table's records repeated ``copies`` times, in order): every
    record keeps its class, so the classes, their labels and their levels are the same."""
    group = None if release.record_group is None else np.tile(release.record_group, copies)
    return dataclasses.replace(release, table=table, record_class=np.tile(release.record_class, copies),
                               record_group=group)


@pytest.fixture(scope="module")
def tables(adult: tuple[pd.DataFrame, dict]) -> tuple[Table, Table]:
    frame, hierarchies = adult
    small = frame[[*QIS, "occupation"]].head(ROWS).reset_index(drop=True)
    schema = Schema.of(quasi=QIS, sensitive=["occupation"], hierarchies={q: hierarchies[q] for q in QIS})
    large = pd.concat([small] * COPIES, ignore_index=True)
    return Table(small, schema), Table(large, schema)


MODELS = [KAnonymity(4), DistinctLDiversity("occupation", 2)]


def summary_lines(release: Release) -> int:
    """The Python lines of the summary of ``release``, measured a second time: the first fills what the
    table keeps once computed (a numeric column's exact values: work per distinct value, done once)."""
    verification = Verification(ok=True, records=release.table.n_records, released=release.n_released,
                                suppressed=release.n_suppressed, classes=release.n_classes)
    measured_summary(release, MODELS, SearchMetric(), verification)
    return python_lines(lambda: measured_summary(release, MODELS, SearchMetric(), verification))


def per_record(lines: tuple[int, int]) -> float:
    """The extra lines on the large table per extra record."""
    return (lines[1] - lines[0]) / ((COPIES - 1) * ROWS)


def releases(tables: tuple[Table, Table], algorithm: str) -> tuple[Release, Release]:
    small, large = tables
    release = get_algorithm(algorithm)(small, MODELS, **ALGORITHMS[algorithm])
    assert release.satisfied and release.n_classes > 1
    return release, repeated(release, large, COPIES)


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_the_summary_has_no_per_record_python_loop(tables: tuple[Table, Table], algorithm: str) -> None:
    """Ten times the records, the same classes: the summary executes about as many Python lines."""
    small, large = releases(tables, algorithm)
    assert large.table.n_records == COPIES * small.table.n_records
    if algorithm == "flash":
        assert small.n_suppressed > 0  # the suppressed records' branches run too
    # the same summary either way (every measure is a share or a per-class figure)
    verification = Verification(ok=True, records=0, released=0, suppressed=0, classes=0)
    a = measured_summary(small, MODELS, SearchMetric(), verification)
    b = measured_summary(large, MODELS, SearchMetric(), verification)
    assert a["generalization"] == b["generalization"]
    assert a["metrics"]["min_class_size"] * COPIES == b["metrics"]["min_class_size"]
    lines = summary_lines(small), summary_lines(large)
    assert lines[0] > 1000  # the whole summary was traced
    assert per_record(lines) <= ALLOWED_PER_RECORD, (algorithm, lines)


def test_a_per_record_measure_is_caught(tables: tuple[Table, Table], monkeypatch: pytest.MonkeyPatch) -> None:
    """The control: a measure that walks the records in Python makes the count grow with them."""
    small, large = releases(tables, "flash")
    assert per_record((summary_lines(small), summary_lines(large))) <= ALLOWED_PER_RECORD

    compute = summary.compute_metrics

    def with_a_walk(table: Table, release: Release, *args: Any, **kwargs: Any) -> dict[str, float]:
        out = compute(table, release, *args, **kwargs)
        out["walked"] = float(sum(1 for c in release.record_class if c >= 0)) / table.n_records
        return out

    monkeypatch.setattr(summary, "compute_metrics", with_a_walk)
    looped = summary_lines(small), summary_lines(large)
    assert per_record(looped) >= 1, looped  # one line per record at least: caught


def test_shared_figures_are_computed_once_per_summary(tables: tuple[Table, Table],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The figures several measures read — the persons per class, a quasi-identifier's published texts —
    are computed once per summary (:func:`anonkit.release.measuring`), not once per measure."""
    small, _ = releases(tables, "flash")
    calls: dict[str, int] = {"class_people": 0, "class_labels": 0}
    people, labels = Table.class_people, Release.class_labels

    def counted_people(self: Table, *args: Any, **kwargs: Any) -> np.ndarray:
        calls["class_people"] += 1
        return people(self, *args, **kwargs)

    def counted_labels(self: Release, j: int) -> np.ndarray:
        calls["class_labels"] += 1
        return labels(self, j)

    monkeypatch.setattr(Table, "class_people", counted_people)
    monkeypatch.setattr(Release, "class_labels", counted_labels)
    verification = Verification(ok=True, records=0, released=0, suppressed=0, classes=0)
    measured_summary(small, MODELS, SearchMetric(), verification)
    assert calls == {"class_people": 1, "class_labels": len(QIS)}
    # outside a summary nothing is kept: each call counts again
    small.class_people(), small.class_people()
    assert calls["class_people"] == 3


def test_kept_figures_are_not_shared_with_callers(tables: tuple[Table, Table]) -> None:
    """A figure kept for the summary is handed out as a copy (a caller changing it changes nothing kept),
    and outside :func:`~anonkit.release.measuring` a changed release is measured as it now is."""
    small, _ = releases(tables, "flash")
    sizes = small.class_sizes()
    with measuring():
        first = small.class_sizes()
        first[:] = 0
        assert np.array_equal(small.class_sizes(), sizes)
    changed = dataclasses.replace(small, record_class=np.where(small.record_class == 0, -1, small.record_class))
    assert changed.n_suppressed == small.n_suppressed + int(sizes[0])


def test_counted_release_only_where_it_pays(tables: tuple[Table, Table]) -> None:
    """The runner measures the counted release (:meth:`Release.counted`) where grouping the rows pays:
    a small table whose distinct tuples are most of its rows is measured as it is; its repeated copy
    (a tenth of the rows distinct) is grouped. The measures agree (to the last bits: the repeated
    table numbers its tuples in another order than the counted release, so sums run in another order)."""
    small, large = releases(tables, "flash")
    assert 2 * small.table.distinct.size > small.table.n and small.counted() is small
    grouped = large.counted()
    assert grouped is not large and grouped.table.n <= small.table.n  # (class, tuple, sensitive) rows
    verification = Verification(ok=True, records=0, released=0, suppressed=0, classes=0)
    a = measured_summary(grouped, MODELS, SearchMetric(), verification)
    b = measured_summary(large, MODELS, SearchMetric(), verification)
    assert a["generalization"] == b["generalization"] and a["metrics"] == pytest.approx(b["metrics"], rel=1e-12)
