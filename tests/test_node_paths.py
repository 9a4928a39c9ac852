"""Twin tests of the fast node paths a lattice search takes (issue 30 item 3), each against the path it
shortcuts, on random small problems (``lattice_problems``, every model kind, suppression limits, missing
values suppressed up front, subset and whole-release models):

* a *settled* evaluation (``evaluate_node(…, settle=True)``: stop once the failed classes hold more records
  than the limit) gives the whole evaluation's verdicts — anonymous or not, and the monotone models'
  verdict a search infers from — and, when it ran to the end, the very same classes and counts;
* the sizes-only models judged on the survivors' sizes (no histograms copied) and a search's precomputed
  :func:`~anonkit.algorithms.transform.model_plan` (its judging order) give the evaluation of the plain path;
* Flash with settled checks returns what it returns with whole ones (optimum, classes, lattice counts);
* Flash's strategy rank counted from bincounts (:func:`~anonkit.algorithms.lattice._search.strategy_rank`)
  is the rank the sorting definition gives, and Flash's starts scanned a chunk at a time
  (``flash._open_starts``) give the traversal of the one-by-one scan, at every chunk size.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings

from anonkit.algorithms.lattice import flash as flash_module
from anonkit.algorithms.lattice._search import Search, strategy_rank
from anonkit.algorithms.lattice.flash import flash
from anonkit.algorithms.transform import evaluate_node, judging_order, model_plan
from anonkit.models import KAnonymity
from lattice_problems import SETTINGS, Problem, problems


def _nodes(problem: Problem) -> list[tuple[int, ...]]:
    return list(itertools.product(*[range(h.height + 1) for h in problem.table.hierarchies]))


def _search(problem: Problem) -> Search:
    return Search(problem.table, problem.models, max_suppression=problem.max_suppression, metric=problem.metric)


#: small problems: every node of their lattices is evaluated twice or more
SMALL = problems(max_qis=3, max_n=80, variants=True)


@settings(max_examples=12, **SETTINGS)
@given(SMALL)
def test_settled_evaluation_gives_the_whole_evaluations_verdicts(problem: Problem) -> None:
    t, models = problem.table, problem.models
    search = _search(problem)
    mono, cache, limit, metric = search.monotone, search.cache, search.limit, search.metric
    settled_somewhere = False
    for node in _nodes(problem):
        whole = evaluate_node(t, node, models, limit=limit, monotone=mono, cache=cache, metric=metric)
        fast = evaluate_node(t, node, models, limit=limit, monotone=mono, cache=cache, metric=metric, settle=True)
        assert whole.complete
        assert fast.anonymous == whole.anonymous
        assert (fast.monotone_suppressed <= fast.limit) == (whole.monotone_suppressed <= whole.limit)
        if fast.complete:
            assert fast.suppressed == whole.suppressed
            assert fast.monotone_suppressed == whole.monotone_suppressed
            np.testing.assert_array_equal(fast.class_ok[fast.tuple_class], whole.class_ok[whole.tuple_class])
        else:
            settled_somewhere = True
            assert not whole.anonymous
            assert whole.limit < fast.suppressed <= whole.suppressed
    if settled_somewhere:
        return  # the early stop was exercised on this problem


def test_settled_evaluation_stops_only_past_the_limit(test2_frame, test2_hierarchies) -> None:  # type: ignore[no-untyped-def]
    """The bad case and its control on the toy table: a node whose k-failures exceed the limit stops
    early (incomplete, not anonymous); with a limit that holds them it runs to the end."""
    from anonkit import Schema, Table

    qis = [c for c in test2_frame.columns if c in test2_hierarchies]
    rest = [c for c in test2_frame.columns if c not in qis]
    t = Table(test2_frame, Schema.of(quasi=qis, insensitive=rest, hierarchies=test2_hierarchies))
    bottom = (0,) * len(qis)
    models = [KAnonymity(t.n)]  # every class of the bottom node fails
    stopped = evaluate_node(t, bottom, models, limit=0, settle=True)
    assert not stopped.complete and not stopped.anonymous and stopped.suppressed == t.n
    held = evaluate_node(t, bottom, models, limit=t.n, settle=True)
    assert held.complete and held.anonymous and held.suppressed == t.n


@settings(max_examples=12, **SETTINGS)
@given(SMALL)
def test_precomputed_order_and_sizes_only_view_change_nothing(problem: Problem) -> None:
    t, models = problem.table, problem.models
    mono = _search(problem).monotone
    order = judging_order(models, mono)
    assert sorted(map(id, order)) == sorted(id(m) for m in models if m.qis is None and not m.whole_release)
    for node in _nodes(problem):
        plain = evaluate_node(t, node, models, problem.max_suppression, monotone=mono)
        ordered = evaluate_node(t, node, models, problem.max_suppression, monotone=mono, plan=model_plan(models, mono))
        np.testing.assert_array_equal(plain.class_ok, ordered.class_ok)
        assert (plain.suppressed, plain.monotone_suppressed, plain.anonymous) == (
            ordered.suppressed, ordered.monotone_suppressed, ordered.anonymous)


@settings(max_examples=10, **SETTINGS)
@given(SMALL)
def test_flash_with_settled_checks_is_flash_with_whole_ones(problem: Problem) -> None:
    """Flash's optimum, score, classes and lattice counts are the same when every check runs to the end."""
    from anonkit.algorithms.lattice import _search

    def run():  # type: ignore[no-untyped-def]
        return flash(problem.table, problem.models, max_suppression=problem.max_suppression, metric=problem.metric)

    fast = run()
    whole_node = _search.evaluate_node
    try:
        _search.evaluate_node = lambda *a, settle=False, **k: whole_node(*a, **k)  # type: ignore[assignment]
        whole = run()
    finally:
        _search.evaluate_node = whole_node  # type: ignore[assignment]
    assert fast.transformation == whole.transformation
    assert fast.search.counts == whole.search.counts and fast.search.score == whole.search.score
    np.testing.assert_array_equal(fast.record_class, whole.record_class)


def _reference_strategy_rank_by(search: Search, ids: np.ndarray | None = None) -> np.ndarray:
    """ARX's FLASHStrategy order by its definition: distinct values by sorting, ties by an explicit key
    (``ids``, ascending node ids unless given)."""
    lat, table = search.lattice, search.table
    levels = lat.levels
    heights = np.maximum(np.array(table.heights, dtype=float), 1.0)
    share = np.zeros(levels.shape, dtype=float)
    for j, h in enumerate(table.hierarchies):
        leaves = np.unique(table.distinct.columns[j])
        per_level = np.array([len(np.unique(h.maps[lv][leaves])) / len(leaves) for lv in range(h.height + 1)])
        share[:, j] = per_level[levels[:, j]]
    k1 = (levels.sum(axis=1) - lat.min.sum()) / max(lat.max_height, 1)
    k2 = (levels / heights).mean(axis=1) if lat.d else np.zeros(len(levels))
    k3 = 1.0 - share.mean(axis=1) if lat.d else np.zeros(len(levels))
    rank = np.empty(len(levels), dtype=np.int64)
    tie = np.arange(len(levels)) if ids is None else ids
    rank[np.lexsort((tie, k3, k2, k1))] = np.arange(len(levels))
    return rank


def _reference_strategy_rank(search: Search) -> np.ndarray:
    return _reference_strategy_rank_by(search)


@settings(max_examples=15, **SETTINGS)
@given(problems(max_qis=4, max_n=120, variants=True))
def test_strategy_rank_is_the_sorting_definitions_rank(problem: Problem) -> None:
    search = _search(problem)
    got = strategy_rank(search)
    np.testing.assert_array_equal(got, _reference_strategy_rank(search))
    assert sorted(got.tolist()) == list(range(len(search.lattice.levels)))  # a rank: every position once


def test_strategy_rank_breaks_ties_by_id() -> None:
    """The twin above can fail on ties: two quasi-identifiers alike in every respect make nodes that share
    all three keys ((1, 0) and (0, 1)), so breaking ties by descending id gives another rank; the computed
    one is the ascending-id one."""
    import pandas as pd

    from anonkit import Schema, Table
    from lattice_problems import make_hierarchy

    values = [str(v) for v in range(4)] * 3
    hierarchies = {q: make_hierarchy(q, 4, 1, 2, False) for q in ("a", "b")}
    t = Table(pd.DataFrame({"a": values, "b": values[::-1]}), Schema.of(quasi=["a", "b"], hierarchies=hierarchies))
    search = Search(t, [KAnonymity(2)], max_suppression=0.0)
    got = strategy_rank(search)
    np.testing.assert_array_equal(got, _reference_strategy_rank(search))
    flipped = _reference_strategy_rank_by(search, ids=np.arange(len(got))[::-1].copy())
    assert not np.array_equal(flipped, got)


def _flash_outcome(problem: Problem):  # type: ignore[no-untyped-def]
    r = flash(problem.table, problem.models, max_suppression=problem.max_suppression, metric=problem.metric)
    return r.transformation, r.search.counts, r.search.score, r.record_class


@settings(max_examples=12, **SETTINGS)
@given(problems(max_qis=4, max_n=120, variants=True))
def test_flash_starts_scanned_in_chunks_are_the_one_by_one_scan(problem: Problem) -> None:
    """Chunks of 1, 3 and the default size give the traversal (optimum, counts, score, classes) that
    trying every node of the order in turn gives."""
    chunked, chunk = flash_module._open_starts, flash_module.START_CHUNK
    try:
        flash_module._open_starts = lambda search: search.order.tolist()  # type: ignore[assignment]
        plain = _flash_outcome(problem)
        flash_module._open_starts = chunked  # type: ignore[assignment]
        for size in (1, 3, chunk):
            flash_module.START_CHUNK = size
            got = _flash_outcome(problem)
            assert got[:3] == plain[:3]
            np.testing.assert_array_equal(got[3], plain[3])
    finally:
        flash_module._open_starts, flash_module.START_CHUNK = chunked, chunk  # type: ignore[assignment]


def test_open_starts_skip_only_closed_nodes(test2_frame, test2_hierarchies) -> None:  # type: ignore[no-untyped-def]
    """The bad case and its control: a node classified before its chunk is read is not given as a start;
    every node still unknown is, in the strategy order."""
    from anonkit import Schema, Table
    from anonkit.algorithms.lattice._space import ANONYMOUS

    qis = [c for c in test2_frame.columns if c in test2_hierarchies]
    rest = [c for c in test2_frame.columns if c not in qis]
    t = Table(test2_frame, Schema.of(quasi=qis, insensitive=rest, hierarchies=test2_hierarchies))
    search = Search(t, [KAnonymity(2)], max_suppression=0.0)
    order = search.order.tolist()
    assert list(flash_module._open_starts(search)) == order  # nothing classified yet: every node
    search.traversal_state.status[order[1]] = ANONYMOUS
    assert list(flash_module._open_starts(search)) == order[:1] + order[2:]


@settings(max_examples=10, **SETTINGS)
@given(problems(max_qis=4, max_n=120))
def test_loss_scorer_shares_are_the_tuples_domain_shares(problem: Problem) -> None:
    """The Loss scorer's share of every distinct tuple at every level (looked up per leaf, then gathered
    once) is its value's domain share at that level, as the definition reads it."""
    from anonkit.algorithms.lattice._score import NodeScorer
    from anonkit.metrics import SearchMetric

    t = problem.table
    scorer = NodeScorer(t, SearchMetric("loss"), problem.max_suppression)
    for j, h in enumerate(t.hierarchies):
        col = t.distinct.columns[j]
        assert len(scorer._share[j]) == h.height + 1
        for level, share in enumerate(scorer._share[j]):
            np.testing.assert_array_equal(share, h.domain_share(level)[h.maps[level][col]])
