"""The default summary's measures on new data share their work within one call (issue 30, round 4):

* the class sizes are the persons per class without a person column (``metrics.classes.released_sizes``):
  the same array, counted once per summary, and the run's smallest class reads the measures' count
  (``runner.anonymize._measured``: one measuring scope);
* the summary's generalization reads the published texts and the text each leaf is published as that the
  modification rate computed (``metrics.distortion.published_figures``), and the released records from the
  release's count, not from the records' classes;
* the records and first appearance per leaf are tallied over the distinct tuples when they are numbered in
  order of their first record (``metrics.arx.leaf_tallies``): the records' counts and the leaves' order, on
  both tiers; the records are tallied otherwise.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import anonkit.metrics.arx as arx
import anonkit.metrics.distortion as distortion
import anonkit.runner.summary as summary
from anonkit import Schema, _kernels, anonymize
from anonkit.metrics import compute_metrics, released_sizes
from anonkit.metrics.entropy import _entropy_sums
from anonkit.models import KAnonymity
from anonkit.release import Release, measuring
from anonkit.table import Table
from support import release_at, shuffled_records

FEW = ["age", "education", "sex", "race"]  # a small key space: tuples numbered by their codes
MANY = ["age", "education", "marital-status", "occupation", "race", "sex", "native-country", "workclass"]


@pytest.fixture(scope="module")
def shuffled(adult) -> tuple[pd.DataFrame, dict]:
    """Adult's first 3,000 records in another order (leaves first seen in another order than the file's)."""
    return shuffled_records(adult, 7, 3000)


def _table(frame: pd.DataFrame, hierarchies: dict, qis: list[str], **kw: object) -> Table:
    sensitive = [c for c in ("salary-class",) if c not in qis]
    schema = Schema.of(quasi=qis, sensitive=sensitive, hierarchies={q: hierarchies[q] for q in qis})
    table = Table(frame[[*qis, *sensitive]], schema, **kw)
    assert table.distinct.size  # (counted, as every run counts it before measuring)
    return table


@pytest.fixture
def numba_tier():
    was = _kernels.use_numba()
    yield
    _kernels.use_numba(was)


def _order(first: np.ndarray) -> list[int]:
    """The leaves present, in order of first appearance (all that the measures read of the rank)."""
    present = np.flatnonzero(first >= 0)
    return present[np.argsort(first[present], kind="stable")].tolist()


# ------------------------------------------------------------------ one count of the classes
@pytest.mark.parametrize("weighted", [False, True])
def test_released_sizes_are_the_class_sizes(shuffled, weighted, monkeypatch):
    frame, hierarchies = shuffled
    weights = np.random.default_rng(3).integers(1, 5, len(frame)) if weighted else None
    table = _table(frame, hierarchies, FEW, weights=weights)
    release = release_at(table, [2, 1, 0, 0], k=3)
    assert release.n_suppressed > 0
    want = release.class_sizes()
    calls: list[int] = []
    monkeypatch.setattr(Release, "_class_sizes", lambda self: calls.append(1))  # the sizes are not counted again
    with measuring():
        got = released_sizes(release)
        again = released_sizes(release)
        people = release.class_people()
    assert got is not again  # (a copy each time: callers may change theirs)
    assert got.dtype == want.dtype and got.tolist() == want.tolist() == people.tolist()
    assert calls == []


def test_released_sizes_count_records_with_a_person_column():
    frame = pd.DataFrame({"a": ["x", "x", "x", "y", "y", "y"], "p": ["1", "1", "2", "3", "4", "5"]})
    table = Table(frame, Schema.of(quasi=["a"], person="p"))
    release = release_at(table, [0])
    assert released_sizes(release).tolist() == [3, 3]  # records, not persons
    assert release.class_people().tolist() == [2, 3]


def test_the_summary_counts_the_classes_once(shuffled, monkeypatch):
    """The summary's measures and its smallest class (``_measured``) read one count of the classes."""
    import anonkit.runner.anonymize as runner

    frame, hierarchies = shuffled
    schema = Schema.of(quasi=MANY, sensitive=["salary-class"], hierarchies={q: hierarchies[q] for q in MANY})
    counted: list[str] = []
    sizes, people = Release._class_sizes, Table.class_people
    monkeypatch.setattr(Release, "_class_sizes", lambda self: (counted.append("sizes"), sizes(self))[1])
    monkeypatch.setattr(Table, "class_people", lambda *a: (counted.append("people"), people(*a))[1])
    inside: list[list[str]] = []
    measured = runner._measured

    def counting(*args):  # type: ignore[no-untyped-def]
        before = len(counted)
        out = measured(*args)
        inside.append(counted[before:])
        assert args[3] is args[2]  # (Release.counted gave the release back: the figures are its own)
        return out

    monkeypatch.setattr(runner, "_measured", counting)
    result = anonymize(frame[[*MANY, "salary-class"]], schema, [KAnonymity(5)], algorithm="flash",
                       max_suppression=0.0)
    assert inside == [["people"]]
    assert result.summary["min_class_size"] == int(result.release.class_sizes().min()) >= 5
    before = len(counted)
    with measuring():  # the control: two reads in one scope count once
        result.release.class_people(), result.release.class_people()
    assert counted[before:] == ["people"]


# ------------------------------------------------------------------ the generalization's shared figures
def _old_generalization(table: Table, release: Release, examples: int = 3) -> dict[str, dict]:
    """The summary's generalization as it was: the records' classes, each leaf's text derived again."""
    out: dict[str, dict] = {}
    rc = release.record_class
    kept = rc >= 0
    if not kept.any():
        return out
    cls = rc[kept]
    w = None if table.weights is None else table.weights[kept]
    total = len(cls) if w is None else int(w.sum())
    for j, name in enumerate(table.qi):
        text_id, texts, changed = distortion.published_texts(table, release, j)
        shown = distortion.leaf_published_text(table, release, j, text_id)
        if shown is None:
            per_text = np.bincount(text_id[cls], weights=w, minlength=len(texts))
        else:
            a = distortion.released_leaves(table, release, j)
            held = a > 0
            per_text = np.bincount(shown[held], weights=a[held], minlength=len(texts))
        top = np.lexsort((np.asarray(texts, dtype=str), -per_text))[:examples]
        out[name] = {"level": None if release.transformation is None else release.transformation.get(name),
                     "height": table.hierarchies[j].height, "labels": int(np.count_nonzero(per_text)),
                     "examples": [str(texts[i]) for i in top if per_text[i] > 0], "changed": changed / total}
    return out


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(("levels", "k"), [([2, 1, 0, 0], 1), ([2, 1, 0, 0], 4), ([1, 2, 1, 1], 30), ([4, 3, 1, 1], 1)])
def test_generalization_is_what_it_was(shuffled, weighted, levels, k, monkeypatch):
    frame, hierarchies = shuffled
    weights = np.random.default_rng(4).integers(1, 5, len(frame)) if weighted else None
    table = _table(frame, hierarchies, FEW, weights=weights)
    release = release_at(table, levels, k=k)
    mixed = dataclasses.replace(release, transformation=None)  # (not at one level: the records' classes)
    for r in (release, mixed):
        with measuring():
            got = summary.generalization(table, r)
        with measuring():
            want = _old_generalization(table, r)
        assert got == want
    calls = []
    shown = distortion.leaf_published_text
    counting = lambda *a: (calls.append(1), shown(*a))[1]  # noqa: E731
    monkeypatch.setattr(distortion, "leaf_published_text", counting)
    with measuring():  # the modification rate and the generalization derive each leaf's text once
        compute_metrics(table, release, ["modification_rate"])
        summary.generalization(table, release)
    assert len(calls) == len(table.qi)


def test_the_shared_published_figures_are_read_only(shuffled):
    frame, hierarchies = shuffled
    table = _table(frame, hierarchies, FEW)
    release = release_at(table, [2, 1, 0, 0], k=2)
    with measuring():
        text_id, texts, _, shown = distortion.published_figures(table, release, 1)
        copy = distortion.published_texts(table, release, 1)[0]
    copy[:] = -5  # (published_texts gives copies)
    for a in (text_id, texts, shown):
        with pytest.raises(ValueError):
            a[:1] = a[:1]
    assert (text_id >= 0).all()


# ------------------------------------------------------------------ leaf tallies over the distinct tuples
@pytest.mark.parametrize("jit", [False, True])
def test_tuple_tallies_are_the_record_tallies(shuffled, jit, numba_tier, monkeypatch):
    frame, hierarchies = shuffled
    table = _table(frame, hierarchies, MANY)
    _kernels.use_numba(jit)
    assert arx.tuple_tallies_apply(table)  # (a large key space: tuples numbered by first record)
    ran = []
    tally = arx._tuple_tallies
    monkeypatch.setattr(arx, "_tuple_tallies", lambda t: (ran.append(1), tally(t))[1])
    got = arx.leaf_tallies(table)
    want = arx._leaf_tallies(table)
    assert ran == [1]
    for (a, f), (wa, wf) in zip(got, want, strict=True):
        assert a.dtype == wa.dtype and a.tolist() == wa.tolist()
        assert _order(f) == _order(wf) and ((f >= 0) == (wf >= 0)).all()
    assert any((f != wf).any() for (_, f), (_, wf) in zip(got, want, strict=True))  # (ranks, not records)
    release = release_at(table, [1, 1, 1, 1, 0, 0, 1, 1], k=2)
    with measuring():
        sums = _entropy_sums(table, release, arx.transformation_levels(table, release))
    monkeypatch.setattr(arx, "tuple_tallies_apply", lambda t: False)
    fresh = _table(frame, hierarchies, MANY)
    with measuring():
        assert sums == _entropy_sums(fresh, release_at(fresh, [1, 1, 1, 1, 0, 0, 1, 1], k=2),
                                     arx.transformation_levels(table, release))


def test_tuples_numbered_otherwise_are_tallied_by_record(shuffled):
    frame, hierarchies = shuffled
    table = _table(frame, hierarchies, FEW)  # a small key space: tuples numbered by their codes
    assert not arx.tuple_tallies_apply(table)
    wrong = arx._tuple_tallies(table)
    want = arx._leaf_tallies(table)
    assert any(_order(f) != _order(wf) for (_, f), (_, wf) in zip(wrong, want, strict=True))  # (the control)
    for (a, f), (wa, wf) in zip(arx.leaf_tallies(table), want, strict=True):
        assert a.tolist() == wa.tolist() and f.tolist() == wf.tolist()


def test_weighted_rows_are_tallied_by_record(shuffled):
    frame, hierarchies = shuffled
    table = _table(frame, hierarchies, MANY, weights=np.random.default_rng(2).integers(1, 4, len(frame)))
    assert not arx.tuple_tallies_apply(table)
    for (a, f), (wa, wf) in zip(arx.leaf_tallies(table), arx._leaf_tallies(table), strict=True):
        assert a.tolist() == wa.tolist() and f.tolist() == wf.tolist()
