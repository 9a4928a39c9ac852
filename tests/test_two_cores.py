"""Mondrian on two threads (issue 16): the threaded loop gives exactly the single loop's result.

The threshold (``core.PARALLEL_ROWS``) is lowered so that small tables take the threaded path,
and the hand-over is forced at different depths and into different numbers of groups.
"""

from __future__ import annotations

import random
import threading
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit import Schema, Table, interrupt, load_adult
from anonkit.algorithms.partition import core as C
from anonkit.algorithms.partition import mondrian as M
from anonkit.algorithms.partition.encoding import Encoding
from anonkit.algorithms.partition.mondrian import mondrian
from anonkit.models import DistinctLDiversity, EntropyLDiversity, KAnonymity, TCloseness
from anonkit.release import Release
from mondrian_tables import adult_table, random_table


# ------------------------------------------------------------------------------------------ helpers
def run(table: Table, models: list, mode: str, *, threads: int, monkeypatch: pytest.MonkeyPatch,
        depth: int = 0, split_rows: int = 65_536) -> tuple[Release, np.ndarray, int]:
    """The release, and the raw classes and partitions of ``_partition``, on ``threads`` threads
    (from 0 rows up; handed over at the first depth from ``depth`` with several partitions; groups
    split further while they hold ``split_rows`` rows to cut)."""
    with monkeypatch.context() as m:
        m.setattr(M, "_cores", lambda: threads)
        m.setattr(C, "PARALLEL_ROWS", 0)
        m.setattr(C, "_HAND_OVER_DEPTH", depth)
        m.setattr(C, "_SPLIT_ROWS", split_rows)
        raw, parts = M._partition(table, models, mode, np.zeros(table.n, dtype=np.int64))
        rel = mondrian(table, models, mode=mode)
    return rel, raw, parts


def assert_same(a: Release, b: Release) -> None:
    assert np.array_equal(a.record_class, b.record_class)
    assert a.n_classes == b.n_classes and a.notes == b.notes and a.satisfied == b.satisfied
    assert np.array_equal(a.class_levels, b.class_levels) and np.array_equal(a.class_nodes, b.class_nodes)
    assert a.class_bounds.keys() == b.class_bounds.keys()
    for name in a.class_bounds:
        assert np.array_equal(a.class_bounds[name], b.class_bounds[name])
    for j in range(len(a.table.qi)):
        assert list(a.class_labels(j)) == list(b.class_labels(j))
    for seed in (0, 7):
        pd.testing.assert_frame_equal(a.to_frame(seed=seed), b.to_frame(seed=seed))
        marked = a.to_frame(suppressed="mark", seed=seed)
        pd.testing.assert_frame_equal(marked, b.to_frame(suppressed="mark", seed=seed))


@pytest.fixture(scope="module")
def adult() -> Table:
    return adult_table()[1]


ADULT_MODELS = {
    "k": [KAnonymity(5)],
    "l": [KAnonymity(5), DistinctLDiversity("occupation", 3)],
    "entropy-l": [KAnonymity(3), EntropyLDiversity("occupation", 3)],
    "t": [KAnonymity(5), TCloseness("occupation", 0.2)],
    "t-hierarchical": [KAnonymity(5), TCloseness("occupation", 0.15, "hierarchical")],
}


# ------------------------------------------------------------------------------------------ Adult
@pytest.mark.parametrize("mode", ["strict", "relaxed"])
@pytest.mark.parametrize("name", list(ADULT_MODELS))
def test_adult_two_threads_release_the_same(adult: Table, monkeypatch, name: str, mode: str) -> None:
    models = ADULT_MODELS[name]
    one, raw1, parts1 = run(adult, models, mode, threads=1, monkeypatch=monkeypatch)
    assert one.satisfied and one.n_classes > 1
    for depth, split_rows in [(0, 65_536), (0, 0), (3, 1000), (9, 0)]:
        two, raw2, parts2 = run(adult, models, mode, threads=2, monkeypatch=monkeypatch, depth=depth,
                                split_rows=split_rows)
        assert parts1 == parts2 and np.array_equal(raw1, raw2)  # even the raw partition ids
        assert_same(one, two)


def test_adult_with_presuppressed_records(adult: Table, monkeypatch) -> None:
    frame = adult.frame.copy()
    frame.loc[::7, "workclass"] = ""  # records with a missing QI are suppressed up front
    table = Table(frame, adult.schema, missing="suppress")
    assert table.presuppressed.sum() > 4000
    for mode in ("strict", "relaxed"):
        one, raw1, _ = run(table, ADULT_MODELS["l"], mode, threads=1, monkeypatch=monkeypatch)
        two, raw2, _ = run(table, ADULT_MODELS["l"], mode, threads=2, monkeypatch=monkeypatch, depth=1, split_rows=0)
        assert np.array_equal(raw1[~table.presuppressed], raw2[~table.presuppressed])
        assert_same(one, two)


def test_thread_timing_plays_no_part(adult: Table, monkeypatch) -> None:
    """Random delays in the threads (different orders of finishing) change nothing."""
    models = ADULT_MODELS["t"]
    ref, raw, _ = run(adult, models, "strict", threads=1, monkeypatch=monkeypatch)
    depth = C._Loop.depth
    rng = random.Random(3)

    def slow(self, *args):
        time.sleep(rng.random() * 0.003)
        return depth(self, *args)

    monkeypatch.setattr(C._Loop, "depth", slow)
    for _ in range(3):
        rel, raw2, _ = run(adult, models, "strict", threads=2, monkeypatch=monkeypatch, depth=2, split_rows=0)
        assert np.array_equal(raw, raw2)
        assert_same(ref, rel)


# ------------------------------------------------------------------------------------------ random tables
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 100_000),
    n=st.integers(1, 600),
    k=st.integers(1, 6),
    mode=st.sampled_from(["strict", "relaxed"]),
    model=st.sampled_from([None, "l", "t"]),
    split_rows=st.sampled_from([0, 20, 1000]),
    depth=st.integers(0, 6),
    missing=st.booleans(),
)
def test_random_tables_two_threads_release_the_same(monkeypatch, seed: int, n: int, k: int, mode: str,
                                                     model: str | None, split_rows: int, depth: int,
                                                     missing: bool) -> None:
    table = random_table(seed, n, missing=missing)
    models: list = [KAnonymity(k)]
    if model == "l":
        models.append(DistinctLDiversity("disease", 2))
    elif model == "t":
        models.append(TCloseness("disease", 0.4))
    one, raw1, parts1 = run(table, models, mode, threads=1, monkeypatch=monkeypatch)
    two, raw2, parts2 = run(table, models, mode, threads=2, monkeypatch=monkeypatch, depth=depth,
                            split_rows=split_rows)
    active = ~table.presuppressed
    assert parts1 == parts2 and np.array_equal(raw1[active], raw2[active])
    assert_same(one, two)


# ------------------------------------------------------------------------------------------ plumbing
def test_small_tables_stay_on_one_thread(adult: Table, monkeypatch) -> None:
    assert adult.n < M.PARALLEL_ROWS

    def never(*args, **kwargs):
        raise AssertionError("threads started below PARALLEL_ROWS")

    monkeypatch.setattr(C, "_parallel", never)
    monkeypatch.setattr(M, "_cores", lambda: 2)
    assert mondrian(adult, [KAnonymity(5)]).satisfied


def test_groups_of_about_equal_rows() -> None:
    starts, ends = np.array([0, 70]), np.array([70, 100])
    assert list(C._groups(starts, ends, 2, 1)) == [0, 1, 2]
    assert list(C._groups(starts, ends, 4, 1)) == [0, 1, 2]
    assert C._groups(starts, ends, 2, 1, min_rows=101) is None
    starts, ends = np.array([0, 30, 55, 80]), np.array([30, 55, 80, 100])
    assert list(C._groups(starts, ends, 2, 1)) == [0, 2, 4]
    assert list(C._groups(starts, ends, 4, 1)) == [0, 1, 2, 3, 4]
    # partitions too small to cut count for nothing; a single group is no hand-over
    assert C._groups(np.array([0, 98]), np.array([98, 100]), 2, 5) is None
    assert list(C._groups(np.array([0, 2, 50]), np.array([2, 50, 100]), 2, 5)) == [0, 2, 3]


def _threaded_cut(adult: Table, monkeypatch, accept) -> int:
    monkeypatch.setattr(C, "PARALLEL_ROWS", 0)
    monkeypatch.setattr(C, "_SPLIT_ROWS", 0)
    enc = Encoding(adult, None, [])
    perm = np.arange(adult.n, dtype=np.int64)
    return C.cut(enc, enc.X, perm, 5, accept, np.zeros(adult.n, dtype=np.int64), threads=2)


def _mondrian_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("mondrian")]


def test_an_error_in_a_thread_is_raised(adult: Table, monkeypatch) -> None:
    calls = []

    def accept(X, ps, pe, coff, nchild, csize, lab):
        calls.append(threading.current_thread().name)
        if len(calls) > 3:
            raise ValueError("a failing model")
        return np.ones(len(ps), dtype=bool)

    with pytest.raises(ValueError, match="a failing model"):
        _threaded_cut(adult, monkeypatch, accept)
    assert any(name.startswith("mondrian") for name in calls)


def test_an_interrupt_stops_every_thread(adult: Table, monkeypatch) -> None:
    """Ctrl-C (``interrupt.request``) while the threads work: ``cut`` raises and the threads stop, having
    judged only a few more partitions (a count of the work done after the request, not a time)."""
    calls: list[bool] = []  # per call: whether the interrupt had been requested before it

    def uninterrupted(X, ps, pe, coff, nchild, csize, lab):
        calls.append(False)
        return np.ones(len(ps), dtype=bool)

    _threaded_cut(adult, monkeypatch, uninterrupted)
    total, calls[:] = len(calls), []

    def accept(X, ps, pe, coff, nchild, csize, lab):
        calls.append(interrupt.requested())
        if threading.current_thread().name.startswith("mondrian") and not interrupt.requested():
            interrupt.request()
        return np.ones(len(ps), dtype=bool)

    try:
        with pytest.raises(KeyboardInterrupt):
            _threaded_cut(adult, monkeypatch, accept)
    finally:
        interrupt.reset()
    after = sum(calls)
    assert after < total // 4, (after, total)  # each thread stops at its next depth, not at the end
    for thread in _mondrian_threads():
        thread.join(600)  # a hang guard
    assert not _mondrian_threads()


# ------------------------------------------------------------------------------------------ encoding
def encode(frame: pd.DataFrame, schema: Schema, monkeypatch: pytest.MonkeyPatch, *, threads: int, **kw) -> Table:
    import anonkit.table as table_module

    calls = []
    pool = table_module._factorize_columns

    def spy(frame, names):
        calls.append(len(names))
        return pool(frame, names)

    with monkeypatch.context() as m:
        m.setattr(table_module, "PARALLEL_ENCODE_ROWS", 0 if threads == 2 else 10**12)
        m.setattr(table_module, "_factorize_columns", spy)
        table = Table(frame, schema, **kw)
    assert calls
    return table


def assert_same_table(a: Table, b: Table) -> None:
    assert np.array_equal(a.codes, b.codes) and np.array_equal(a.presuppressed, b.presuppressed)
    assert a.schema == b.schema and a.warnings == b.warnings
    assert [list(map(list, h.labels)) for h in a.hierarchies] == [list(map(list, h.labels)) for h in b.hierarchies]
    assert a.numeric.keys() == b.numeric.keys() and all(
        np.array_equal(a.numeric[k], b.numeric[k], equal_nan=True) for k in a.numeric
    )
    assert a.sensitive_codes.keys() == b.sensitive_codes.keys()
    for name in a.sensitive_codes:
        assert np.array_equal(a.sensitive_codes[name], b.sensitive_codes[name])
        assert list(a.domains[name].labels) == list(b.domains[name].labels)
        assert np.array_equal(a.domains[name].reference, b.domains[name].reference)
    pd.testing.assert_frame_equal(a.frame, b.frame)


def test_encoding_on_two_threads_gives_the_same_table(adult: Table, monkeypatch) -> None:
    frame, _ = load_adult()
    one = encode(frame, adult.schema, monkeypatch, threads=1)
    two = encode(frame, adult.schema, monkeypatch, threads=2)
    assert_same_table(one, two)
    assert_same_table(one, adult)


@pytest.mark.parametrize("strip", [True, False])
@pytest.mark.parametrize("missing", ["value", "suppress"])
def test_encoding_on_two_threads_with_untidy_cells(monkeypatch, strip: bool, missing: str) -> None:
    rng = np.random.default_rng(5)
    n = 3000
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 70, n).astype(object),
            "city": rng.choice([" Rome", "Rome", "Oslo ", "oslo", None, ""], n),
            "kind": pd.Categorical(rng.choice(["a", "b", "c"], n)),
            "flag": rng.choice([True, False], n),
            "id": np.arange(n),
            "disease": rng.choice(["flu", "cold", " flu"], n),
        }
    )
    frame.loc[::11, "age"] = np.nan
    schema = Schema.of(quasi=["age", "city", "kind", "flag"], sensitive=["disease"], identifier=["id"],
                       types={"age": "numeric"})
    one = encode(frame, schema, monkeypatch, threads=1, strip=strip, missing=missing)
    two = encode(frame, schema, monkeypatch, threads=2, strip=strip, missing=missing)
    assert_same_table(one, two)
