"""Issue 30's cheaper measures on a new table (a new frame of the same input: nothing kept by the
table), each held to the path it replaces.

* the summary's missing sensitive values are counted from the encoding
  (``runner.summary.missing_sensitive``): what ``is_missing`` counts on the cells, without reading them;
* every quasi-identifier's records and first record per leaf in one pass over the codes
  (``metrics.arx.leaf_tallies``): on the kernel tier and the numpy tier, what a ``bincount`` and
  ``first_rows`` per column give;
* record linkage reads a one-level full-domain release's candidates off each tuple's own class
  (``metrics.risk._own_class_candidates``): the join's figure bit for bit, and the join whenever two
  released classes publish the same nodes or the release is not at one level;
* ``gcp`` and ``gcp_released`` share their released records' NCP sum inside one summary
  (``metrics.ncp``): each what it is alone.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import anonkit.metrics.arx as arx
import anonkit.metrics.ncp as ncp
import anonkit.metrics.risk as risk
import anonkit.runner.summary as summary
from anonkit import Schema, _kernels
from anonkit._kernels import first_rows
from anonkit._values import is_missing
from anonkit.hierarchy import Hierarchy
from anonkit.metrics import compute_metrics
from anonkit.release import measuring
from anonkit.table import Table
from support import counted_calls, release_at, shuffled_records

QIS = ["age", "education", "sex", "race"]


@pytest.fixture(scope="module")
def shuffled(adult) -> tuple[pd.DataFrame, dict]:
    """Adult's first 3,000 records in another order (leaves first seen in another order than the file's)."""
    return shuffled_records(adult, 5, 3000)


def _table(frame: pd.DataFrame, hierarchies: dict, **kw: object) -> Table:
    schema = Schema.of(quasi=QIS, sensitive=["occupation"], hierarchies={q: hierarchies[q] for q in QIS})
    return Table(frame[[*QIS, "occupation"]], schema, **kw)


@pytest.fixture
def numba_tier():
    was = _kernels.use_numba()
    yield
    _kernels.use_numba(was)


# ------------------------------------------------------------------ missing sensitive values
def _missing_case(kind: str) -> Table:
    cells = ["b", None, "a", "", "  ", "c", np.nan, "a", "b", " c "]
    frame = pd.DataFrame({"q": list("xyxyxyxyxy"), "s": cells})
    if kind == "numeric":  # ordered by number: the missing text "" is the last label, not code 0
        frame["s"] = ["3", None, "1", "", "2", "10", np.nan, "1", "3", "2"]
        return Table(frame, Schema.of(quasi=["q"], sensitive=["s"], types={"s": "numeric"}))
    if kind == "order":  # "" declared last
        plain = Schema.of(quasi=["q"], sensitive=["s"])
        ordered = dataclasses.replace(plain["s"], order=["a", "b", "c", "  ", " c ", ""])
        return Table(frame, Schema({**plain.attributes, "s": ordered}, plain.default_role), strip=False)
    if kind == "weights":  # rows standing for several records (a Spark table's): their records are counted
        return Table(frame, Schema.of(quasi=["q"], sensitive=["s"]), weights=np.arange(1, 11))
    if kind == "categorical":
        frame["s"] = pd.Categorical(frame["s"])
    return Table(frame, Schema.of(quasi=["q"], sensitive=["s"]), strip=kind != "unstripped")


@pytest.mark.parametrize("kind", ["text", "unstripped", "numeric", "order", "weights", "categorical"])
def test_missing_sensitive_counts_what_the_cells_say(kind, monkeypatch):
    table = _missing_case(kind)
    missing = is_missing(table.frame["s"])
    want = int(missing.sum()) if table.weights is None else int(table.weights[missing].sum())
    assert want >= 3
    monkeypatch.setattr(summary, "is_missing", lambda values: pytest.fail("the cells were read"))
    assert summary.missing_sensitive(table, "s") == want


def test_missing_sensitive_without_missing_cells_and_without_codes():
    table = Table(pd.DataFrame({"q": ["x", "y"], "s": ["a", "b"]}), Schema.of(quasi=["q"], sensitive=["s"]))
    assert summary.missing_sensitive(table, "s") == 0
    table.sensitive_codes = {}  # (no encoding of the column: read from the cells)
    table.frame = pd.DataFrame({"q": ["x", "y"], "s": ["", None]})
    assert summary.missing_sensitive(table, "s") == 2
    table.weights = np.array([3, 4])  # (rows standing for records: the records counted)
    assert summary.missing_sensitive(table, "s") == 7


# ------------------------------------------------------------------ records and first record per leaf
def _column_tallies(table: Table) -> list[tuple[np.ndarray, np.ndarray]]:
    """The per-column reference: a bincount and the first rows of every QI's codes."""
    out = []
    for j, h in enumerate(table.hierarchies):
        codes = table.codes[:, j]
        out.append((np.bincount(codes, weights=table.weights, minlength=h.n_leaves).astype(np.float64),
                    first_rows(codes, h.n_leaves)))
    return out


def _same(got, want) -> None:
    assert len(got) == len(want)
    for (a, f), (wa, wf) in zip(got, want, strict=True):
        assert a.dtype == wa.dtype and f.dtype == wf.dtype
        assert np.array_equal(a, wa) and np.array_equal(f, wf)
        assert not a.flags.writeable and not f.flags.writeable


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("jit", [False, True])
def test_leaf_tallies_equal_the_per_column_counts(shuffled, weighted, jit, numba_tier, monkeypatch):
    frame, hierarchies = shuffled
    weights = np.random.default_rng(1).integers(1, 7, len(frame)) if weighted else None
    table = _table(frame, hierarchies, weights=weights)
    _kernels.use_numba(jit)
    ran = []
    kernel = arx._tally_kernel if jit else arx._tally_np
    compiled = _kernels.compiled
    monkeypatch.setattr(_kernels, "compiled", lambda fn: (ran.append(fn.__name__), compiled(fn))[1])
    _same(arx._leaf_tallies(table), _column_tallies(table))
    assert ran == ([kernel.__name__] if jit else [])  # the tier asked for ran


def test_leaf_tally_kernel_stops_at_a_code_outside_its_leaves(shuffled, numba_tier):
    frame, hierarchies = shuffled
    table = _table(frame, hierarchies)
    nls = np.array([h.n_leaves for h in table.hierarchies], dtype=np.int64)
    codes = table.codes.copy()
    codes[7, 2] = nls[2]  # (never in an encoded table)
    assert _kernels.compiled(arx._tally_kernel)(codes, np.zeros(0), nls)[2] is False  # (nothing written past)
    table.codes = codes  # the per-column code decides, as before: it refuses the code as it did
    for jit in (False, True):
        _kernels.use_numba(jit)
        with pytest.raises(IndexError):
            _column_tallies(table)
        with pytest.raises(IndexError):
            arx._leaf_tallies(table)


def test_measures_share_one_tally_per_table(shuffled):
    frame, hierarchies = shuffled
    table = _table(frame, hierarchies)
    with measuring():
        assert arx.leaf_tally(table, 1) is arx.leaf_tally(table, 1)
        assert [arx.leaf_tally(table, j)[0] is a for j, (a, _) in enumerate(arx.leaf_tallies(table))] == [True] * 4


# ------------------------------------------------------------------ record linkage by each tuple's own class
def _joined(table: Table, release) -> float:
    """:func:`record_linkage` by the join of the classes and the tuples (the path the shortcut replaces)."""
    kept = arx.tuple_counts(table, ~release.suppressed)
    cand = risk.linkage_candidates(table, release)
    use = (kept > 0) & (cand > 0)
    return 100.0 * float((kept[use] / cand[use]).sum()) / table.n_records


@pytest.fixture
def joins(monkeypatch):
    return counted_calls(monkeypatch, risk, "linkage_candidates")


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(("levels", "k"), [([0, 0, 0, 0], 1), ([1, 1, 0, 1], 5), ([2, 2, 1, 0], 40),
                                           ([1, 2, 1, 1], 2), ([4, 3, 1, 1], 1)])
def test_record_linkage_by_own_class_equals_the_join(shuffled, levels, k, weighted, joins):
    frame, hierarchies = shuffled
    weights = np.random.default_rng(2).integers(1, 4, len(frame)) if weighted else None
    table = _table(frame, hierarchies, weights=weights)
    release = release_at(table, levels, k=k)
    assert (k > 1) == bool(release.suppressed.any())  # (and the last: one class of every record)
    got = risk.record_linkage(table, release)
    assert joins == []  # (one level vector, every class its own nodes: no join)
    assert got == _joined(table, release)
    with measuring():  # (and in a summary, beside the other measures)
        assert compute_metrics(table, release, ["record_linkage"])["record_linkage"] == got


def test_record_linkage_joins_when_two_classes_publish_the_same_nodes(shuffled, joins):
    frame, hierarchies = shuffled
    table = _table(frame, hierarchies)
    release = release_at(table, [2, 2, 1, 1])
    # class 0's records split in two classes of the same nodes: each contains the other's tuples
    rc = release.record_class.copy()
    rows = np.flatnonzero(rc == 0)
    rc[rows[::2]] = release.n_classes
    split = dataclasses.replace(release, record_class=rc,
                                class_levels=np.vstack([release.class_levels, release.class_levels[:1]]),
                                class_nodes=np.vstack([release.class_nodes, release.class_nodes[:1]]))
    got = risk.record_linkage(table, split)
    assert joins == [1]
    assert got == _joined(table, split)
    # (the two classes' boxes are the one class's box: the figure it had; read off each tuple's own class,
    # half as large, it would be higher)
    assert got == risk.record_linkage(table, release)


def test_record_linkage_joins_a_release_of_several_level_vectors(shuffled, joins):
    frame, hierarchies = shuffled
    table = _table(frame, hierarchies)
    release = release_at(table, [1, 1, 1, 1])
    levels = release.class_levels.copy()
    nodes = release.class_nodes.copy()
    first = first_rows(release.record_class, release.n_classes)
    levels[0, 0] = 0  # class 0 shows its first record's age: no longer one level
    nodes[0, 0] = table.codes[first[0], 0]
    rc = release.record_class.copy()
    rc[(rc == 0) & (table.codes[:, 0] != nodes[0, 0])] = -1  # (its other ages suppressed: still truthful)
    mixed = dataclasses.replace(release, record_class=rc, class_levels=levels, class_nodes=nodes)
    got = risk.record_linkage(table, mixed)
    assert joins == [1]
    assert got == _joined(table, mixed)


# ------------------------------------------------------------------ gcp and gcp_released share a sum
def test_gcp_variants_share_the_released_sum(shuffled, monkeypatch):
    frame, hierarchies = shuffled
    table = _table(frame, hierarchies)
    release = release_at(table, [1, 1, 0, 1], k=5)
    alone = (ncp.gcp(table, release), ncp.gcp(table, release, include_suppressed=False))
    assert alone[0] != alone[1]
    calls = counted_calls(monkeypatch, ncp, "ncp_classes")
    with measuring():
        shared = (ncp.gcp(table, release), ncp.gcp(table, release, include_suppressed=False))
    assert shared == alone and calls == [1]


def test_a_flat_hierarchy_table_tallies_too(numba_tier):
    frame = pd.DataFrame({"a": list("xyzxyzzz"), "b": list("pqpqpqpp")})
    table = Table(frame, Schema.of(quasi=["a", "b"], hierarchies={"b": Hierarchy.flat(["q", "p"])}))
    for jit in (False, True):
        _kernels.use_numba(jit)
        _same(arx._leaf_tallies(table), _column_tallies(table))
