"""Issue 30, a call on new data: the summary's measures of a full-domain release whose every class sits at
the transformation's levels, made cheaper per call (nothing kept across calls), each held to the path it
replaces.

* ``metrics.arx.one_level`` is answered once per summary (every measure that counts leaves asks it per
  quasi-identifier), per release: two releases of one table in one summary get their own answers;
* Loss and NCP gather a one-level release's shares, leaf counts and widths at the one level instead of
  grouping the classes by level (``metrics.loss``, ``metrics.ncp``): the same doubles as the grouping;
  Loss reads no record for its suppression term when nothing is suppressed, and reads it when something is;
* DM*'s suppressed classes are not counted without a suppressed record (``metrics.classes``);
* record linkage without a suppressed record takes each tuple's records from ``Table.distinct`` and sums
  the terms unmasked (``metrics.risk``): the join's figure bit for bit;
* a few dozen class labels are numbered by a dict, not by pandas (``_values.factorize_labels``, which
  ``metrics.distortion`` and ``_verify_entries`` share):
  ``pd.factorize``'s ids, labels and dtypes.
"""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest

import anonkit._values as _values
import anonkit.metrics.arx as arx
import anonkit.metrics.classes as classes
import anonkit.metrics.distortion as distortion
import anonkit.metrics.ncp as ncp
import anonkit.metrics.risk as risk
from anonkit import Schema
from anonkit.metrics import compute_metrics
from anonkit.release import measuring
from anonkit.table import Table
from support import counted_calls, release_at, shuffled_records

loss = importlib.import_module("anonkit.metrics.loss")  # (the package's name ``loss`` is the function)

QIS = ["age", "education", "sex", "race"]  # age: numeric, with bounds; the others categorical
LEVELS = [([0, 0, 0, 0], 1), ([1, 1, 0, 1], 5), ([2, 2, 1, 0], 40), ([1, 2, 1, 1], 2), ([4, 3, 1, 1], 1),
          ([3, 0, 0, 1], 3)]


@pytest.fixture(scope="module")
def shuffled(adult) -> tuple[pd.DataFrame, dict]:
    """Adult's first 2,000 records in another order."""
    return shuffled_records(adult, 11, 2000)


def _table(shuffled: tuple[pd.DataFrame, dict], weighted: bool = False) -> Table:
    frame, hierarchies = shuffled
    schema = Schema.of(quasi=QIS, sensitive=["occupation"], hierarchies={q: hierarchies[q] for q in QIS})
    weights = np.random.default_rng(3).integers(1, 4, len(frame)) if weighted else None
    return Table(frame[[*QIS, "occupation"]], schema, weights=weights)


def _grouped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The path the one-level gathers replace: every release read as if its classes' levels differed."""
    monkeypatch.setattr(loss, "one_level", lambda table, release: None)
    monkeypatch.setattr(ncp, "one_level", lambda table, release: None)


# ------------------------------------------------------------------ one_level, once per summary and release
def test_one_level_is_answered_once_per_summary_and_release(shuffled, monkeypatch):
    table = _table(shuffled)
    a, b = release_at(table, [1, 1, 0, 1]), release_at(table, [2, 2, 1, 0])
    mixed = release_at(table, [1, 1, 0, 1])
    mixed.class_levels = mixed.class_levels.copy()
    mixed.class_levels[0, 1] = 0  # one class at another level: not one level
    calls = []
    original = arx._one_level
    monkeypatch.setattr(arx, "_one_level", lambda t, r: (calls.append(id(r)), original(t, r))[1])
    with measuring():
        for _ in range(3):
            assert arx.one_level(table, a).tolist() == [1, 1, 0, 1]
            assert arx.one_level(table, b).tolist() == [2, 2, 1, 0]
            assert arx.one_level(table, mixed) is None
        assert not arx.one_level(table, a).flags.writeable  # (shared by the measures: read-only)
    assert sorted(calls) == sorted([id(a), id(b), id(mixed)])  # once each
    calls.clear()
    arx.one_level(table, a), arx.one_level(table, a)  # outside a summary: afresh every time
    assert calls == [id(a), id(a)]


# ------------------------------------------------------------------ Loss and NCP at the one level
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(("levels", "k"), LEVELS)
def test_loss_and_ncp_at_one_level_equal_the_grouping(shuffled, levels, k, weighted, monkeypatch):
    table = _table(shuffled, weighted)
    release = release_at(table, levels, k=k)
    assert arx.one_level(table, release) is not None
    shares = []
    grouped_share = loss._class_share
    monkeypatch.setattr(loss, "_class_share", lambda *a: (shares.append(1), grouped_share(*a))[1])
    got = (loss.loss_per_attribute(table, release, gs=0.3), ncp.ncp_classes(table, release),
           ncp.gcp(table, release))
    assert shares == []  # (the gather ran, not the grouping)
    _grouped(monkeypatch)
    want = (loss.loss_per_attribute(table, release, gs=0.3), ncp.ncp_classes(table, release),
            ncp.gcp(table, release))
    assert len(shares) == 4 * (release.n_classes > 0)  # (and the grouping ran for the reference)
    assert got[0] == want[0]  # the same doubles, per attribute
    assert got[1].dtype == want[1].dtype and np.array_equal(got[1], want[1])
    assert got[2] == want[2]


def _loss_by_records(table: Table, release, gs: float) -> dict[str, float]:
    """ARX's Loss per attribute summed record by record (another order: equal to 1e-9), the reference for
    the suppression term."""
    g, s = arx.gs_factors(gs)
    w = np.ones(table.n) if table.weights is None else table.weights.astype(np.float64)
    rc = release.record_class
    out = {}
    for j, (name, h) in enumerate(zip(table.qi, table.hierarchies, strict=True)):
        level = int(release.transformation[name])
        share = h.domain_share(level)[h.maps[level][table.codes[:, j]]]
        x = float((w * np.where(rc >= 0, share * g, share + s * (1 - share))).sum())
        out[name] = loss.normalized_loss(x, float(table.n_records), h.n_leaves, g)
    return out


@pytest.mark.parametrize(("levels", "k"), [([1, 1, 0, 1], 5), ([2, 2, 1, 0], 40), ([0, 0, 0, 0], 1)])
def test_loss_reads_the_suppressed_records_only_when_there_are_some(shuffled, levels, k, monkeypatch):
    table = _table(shuffled, weighted=True)
    release = release_at(table, levels, k=k)
    counted = counted_calls(monkeypatch, loss, "tuple_counts")
    got = loss.loss_per_attribute(table, release, gs=0.3)
    assert bool(counted) == (release.n_suppressed > 0)
    want = _loss_by_records(table, release, 0.3)
    assert got == pytest.approx(want, rel=1e-9, abs=1e-9)


def test_a_flat_numeric_qi_at_one_level_equals_the_grouping(shuffled, monkeypatch):
    """A numeric QI without a hierarchy (the flat ``{values} → *`` one) and a categorical one, at each level."""
    frame, _ = shuffled
    schema = Schema.of(quasi=["age", "sex"], sensitive=["occupation"], types={"age": "numeric"})
    table = Table(frame[["age", "sex", "occupation"]], schema)
    releases = [release_at(table, levels) for levels in ([0, 0], [1, 0], [1, 1], [0, 1])]
    got = [(ncp.ncp_classes(table, r), loss.loss_per_attribute(table, r)) for r in releases]
    _grouped(monkeypatch)
    want = [(ncp.ncp_classes(table, r), loss.loss_per_attribute(table, r)) for r in releases]
    for (a, la), (b, lb) in zip(got, want, strict=True):
        assert np.array_equal(a, b) and la == lb
    assert set(got[1][0][:, 0].tolist()) == {1.0}  # (age at "*": its whole range, in every class)


# ------------------------------------------------------------------ DM*'s suppressed classes
@pytest.mark.parametrize(("levels", "k"), [([1, 1, 0, 1], 5), ([0, 0, 0, 0], 1), ([2, 2, 1, 0], 40)])
def test_suppressed_classes_counted_only_with_suppressed_records(shuffled, levels, k, monkeypatch):
    table = _table(shuffled, weighted=True)
    release = release_at(table, levels, k=k)
    counted = counted_calls(monkeypatch, classes, "tuple_counts")
    sizes = classes.suppressed_class_sizes(table, release)
    assert bool(counted) == (release.n_suppressed > 0)
    assert int(sizes.sum()) == release.n_suppressed and sizes.dtype == np.int64
    assert (sizes.size > 0) == (release.n_suppressed > 0)


# ------------------------------------------------------------------ record linkage without suppression
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(("levels", "k"), LEVELS)
def test_record_linkage_without_suppression_is_the_joins(shuffled, levels, k, weighted):
    table = _table(shuffled, weighted)
    release = release_at(table, levels, k=k)
    kept = arx.tuple_counts(table, ~release.suppressed)
    cand = risk.linkage_candidates(table, release)
    use = (kept > 0) & (cand > 0)
    want = 100.0 * float((kept[use] / cand[use]).sum()) / table.n_records
    got = risk.record_linkage(table, release)
    assert got == want  # the join's figure, bit for bit
    # (without a suppressed record the tuples' records are Table.distinct's counts, not counted again)
    own_kept, own_cand = risk._own_class_candidates(table, release)
    assert (own_kept is table.distinct.counts) == (release.n_suppressed == 0)
    assert not own_cand[own_kept == 0].any() and (own_cand[own_kept > 0] > 0).all()  # (no class: no candidate)


# ------------------------------------------------------------------ small labels numbered by a dict
@pytest.mark.parametrize("labels", [
    ["a", "b", "a", "c", "b"], [], ["x"], ["[1-5]", "*", "[1-5]", "*"], ["b", "a"] * 32,
    [f"v{i % 7}" for i in range(_values.SMALL_LABELS)],
    [f"v{i % 9}" for i in range(_values.SMALL_LABELS + 1)],  # (more: pandas)
    ["a", None, "a"], ["a", np.str_("a"), "b"],  # (not all str: pandas, which codes a missing one −1)
])
def test_factorize_labels_is_pandas(labels, monkeypatch):
    values = np.empty(len(labels), dtype=object)
    values[:] = labels
    want_ids, want_texts = pd.factorize(values)
    calls = []
    original = pd.factorize
    monkeypatch.setattr(pd, "factorize", lambda *a, **kw: (calls.append(1), original(*a, **kw))[1])
    ids, texts = distortion.factorize_labels(values)
    monkeypatch.undo()
    assert ids.dtype == want_ids.dtype and np.array_equal(ids, want_ids)
    assert texts.dtype == want_texts.dtype == object and texts.tolist() == want_texts.tolist()
    small = len(labels) <= _values.SMALL_LABELS and all(type(x) is str for x in labels)
    assert (calls == []) == small  # (the dict for a few texts, pandas otherwise)


# ------------------------------------------------------------------ the summary's measures as before
@pytest.mark.parametrize(("levels", "k"), LEVELS)
def test_the_measures_equal_the_grouped_paths(shuffled, levels, k, monkeypatch):
    table = _table(shuffled, weighted=True)
    release = release_at(table, levels, k=k)
    with measuring():
        got = compute_metrics(table, release)
    _grouped(monkeypatch)
    monkeypatch.setattr(distortion, "factorize_labels", lambda labels: pd.factorize(labels))
    with measuring():
        want = compute_metrics(table, release)
    assert got == want
