"""Twin tests of Flash's node checks on a table of *new data* (issue 30, session 12 round 4):

* the one-pass grouping (:func:`~anonkit._kernels._grouping_py`) skipping the columns whose level has one code
  (the top of a hierarchy) in its keys, on both of its key spaces, against the numpy tier (which keys every
  column) and the kernel it replaced (:func:`~anonkit._kernels._node_ids_py`);
* the :class:`~anonkit.algorithms.transform.ModelPlan` a search builds once (the judging order, the monotone
  flags, the sizes and fused plans, the subset, whole-release and empty-class models), field by field against
  what :func:`~anonkit.algorithms.transform.evaluate_node` derived at every node, and a search's evaluations
  with it against evaluations without the roll-up cache or the search;
* Flash's starts read again once a path was walked (:func:`~anonkit.algorithms.lattice.flash._open_starts`):
  the same traversal as trying every node of the order in turn, with fewer starts given.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest

from anonkit import Schema, Table
from anonkit import _kernels as K
from anonkit.algorithms import _node_kernels as NK
from anonkit.algorithms.lattice import flash as flash_module
from anonkit.algorithms.lattice._search import Search
from anonkit.algorithms.transform import evaluate_node, judging_order
from anonkit.hierarchy import Hierarchy
from anonkit.models import DistinctLDiversity, KAnonymity, TCloseness

AGES = [str(20 + a) for a in range(37)]
ZIPS = [f"z{i}" for i in range(29)]


def _table(seed: int, n: int = 1500) -> Table:
    rng = np.random.default_rng(seed)
    hierarchies = {
        "age": Hierarchy([[a, f"b{(int(a) - 20) // 3}", f"h{(int(a) - 20) // 12}", "*"] for a in AGES], name="age"),
        "zip": Hierarchy([[z, f"p{i // 3}", f"h{i // 9}", "*"] for i, z in enumerate(ZIPS)], name="zip"),
        "sex": Hierarchy([["m", "*"], ["f", "*"], ["x", "*"]], name="sex"),
    }
    frame = pd.DataFrame({
        "age": [str(x) for x in rng.choice(np.array(AGES, dtype=object), n)],
        "zip": [str(x) for x in rng.choice(np.array(ZIPS, dtype=object), n)],
        "sex": [str(x) for x in rng.choice(np.array(["m", "f", "x"], dtype=object), n, p=[0.5, 0.45, 0.05])],
        "disease": [str(x) for x in rng.choice(np.array(["flu", "hiv", "cold", "none"], dtype=object), n)],
    })
    return Table(frame, Schema.of(quasi=["age", "zip", "sex"], sensitive=["disease"], hierarchies=hierarchies))


# ---------------------------------------------------------------------------------------- the kernel
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("space", ["lookup", "hashed"])
@pytest.mark.parametrize("kernel", ["compiled", "python"])
def test_grouping_skipping_one_code_columns_is_the_numpy_tier(seed: int, space: str, kernel: str) -> None:
    """With columns whose level has one code (``sizes[j] == 1``, every leaf mapped to 0, as at the top) between
    others of two codes and more, the one-pass grouping — compiled, and as plain Python — gives the numpy
    tier's ids, codes and sizes bit for bit, and ``node_ids``' ids, on a small key space (the columns keyed
    one at a time) and a large one (row by row, the hash table). Catches a column of two codes (or any but
    one) skipped in the keys on either path (ids merged), and a skipped column's codes not read."""
    rng = np.random.default_rng(seed)
    d, m, leaves = 6, 500 + 29 * seed, 60
    sizes = np.array([1, 2, 1, 3, 2, 1], dtype=np.int64) if space == "lookup" else \
        np.array([1, 2, 1, 250, 2, 240], dtype=np.int64)
    flat = np.concatenate([rng.integers(0, s, leaves) for s in sizes]).astype(np.int64)
    offsets = np.arange(d, dtype=np.int64) * leaves
    cols = np.ascontiguousarray(rng.integers(0, leaves, (d, m // 3)).astype(np.int32)[:, rng.integers(0, m // 3, m)])
    radix = int(np.prod(sizes))
    assert (radix <= 4 * m + 4096) == (space == "lookup")
    weights = rng.random(m) * 5.0
    want = K._grouping_np(cols, flat, offsets, sizes, radix, weights)
    run = K.compiled(K._grouping_py) if kernel == "compiled" else K._grouping_py
    with np.errstate(over="ignore"):  # the hash's multiply wraps around, as compiled (plain Python warns)
        got = run(cols, flat, offsets, sizes, radix, weights)
    assert got[1] == want[1] and 1 < want[1] < m
    for a, b in zip([got[0], *got[2:]], [want[0], *want[2:]], strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    ids, g = K.compiled(K._node_ids_py)(cols, flat, offsets, sizes, radix)
    assert g == got[1] and ids.tobytes() == got[0].tobytes()


# ---------------------------------------------------------------------------------------- the model plan
def _model_sets() -> list[list]:
    return [
        [KAnonymity(3)],
        [KAnonymity(2), KAnonymity(4)],
        [KAnonymity(3), DistinctLDiversity("disease", 2), TCloseness("disease", 0.3)],
        [DistinctLDiversity("disease", 3)],
        [KAnonymity(2), KAnonymity(5, attributes=["age", "zip"])],
    ]


@pytest.mark.parametrize("which", range(5))
@pytest.mark.parametrize("share", [0.0, 0.05])
def test_model_plan_is_what_each_node_derived(which: int, share: float) -> None:
    """Every field of the search's plan is what :func:`evaluate_node` computed at each node before (derived
    here independently from the models). Catches the monotone flags taken without the search's rule (a
    suppression limit makes l-diversity non-monotone), a sizes plan given to a set with another model, a
    subset model or a sensitive attribute missed, the fused models' kinds or bounds wrong."""
    models = _model_sets()[which]
    table = _table(3)
    search = Search(table, models, max_suppression=share)
    search.evaluate(search.lattice.top)
    plan = search._plan
    assert plan is not None
    order = judging_order(models, search.monotone)
    assert list(plan.order) == order
    assert plan.mono == [bool(search.monotone(m)) for m in order]
    all_k = all(type(m) is KAnonymity and m.attributes is None and search.monotone(m) for m in order)
    assert plan.ks == ([float(m.k) for m in order] if all_k and order else None)
    assert plan.subset == [m for m in models if m.qis is not None]
    assert plan.whole_release == any(m.whole_release for m in models)
    assert plan.judges_empty == any(getattr(m, "judges_empty_classes", False) for m in models)
    if plan.fused is None:
        assert all_k or any(type(m) not in (KAnonymity, DistinctLDiversity, TCloseness) or
                            getattr(m, "attributes", None) is not None for m in order)
    else:
        kinds, bounds, sensitive = plan.fused
        want = [(NK.K_SIZE, float(m.k)) if type(m) is KAnonymity else
                (NK.L_DISTINCT, float(np.ceil(m.l))) if type(m) is DistinctLDiversity else
                (NK.T_EQUAL, m.t + NK.T_SLACK) for m in order]
        assert list(zip(kinds.tolist(), bounds.tolist(), strict=True)) == want and sensitive == "disease"


@pytest.mark.parametrize("which", range(5))
@pytest.mark.parametrize("share", [0.0, 0.05])
def test_search_evaluations_with_the_plan_are_the_plain_ones(which: int, share: float) -> None:
    """At every node of the lattice, a search's evaluation (its plan, its roll-up cache) gives the verdict,
    the suppressed records (both counts) and the released classes of :func:`evaluate_node` called alone
    (no cache, its own plan). Catches a plan kept from another search or built with other monotone flags,
    and a field of the plan (the subset models, the sizes or fused plan) ignored or misread."""
    models = _model_sets()[which]
    table = _table(4)
    search = Search(table, models, max_suppression=share)
    for nid in range(search.lattice.size):
        node = search.lattice.node(nid)
        got = search.evaluate(node)
        want = evaluate_node(table, node, models, limit=search.limit, monotone=search.monotone)
        assert (got.anonymous, got.suppressed, got.monotone_suppressed) == \
            (want.anonymous, want.suppressed, want.monotone_suppressed)
        assert np.array_equal(got.class_ok[got.tuple_class], want.class_ok[want.tuple_class])


def test_fused_plan_given_the_models_checks_the_statistics() -> None:
    """:func:`fused_plan` given the models' part checks the node's statistics as it does alone: the same plan
    where the histogram is held, ``None`` where it is not. Catches the statistics' checks skipped when the
    models' part is given."""
    table = _table(5)
    models = [KAnonymity(3), DistinctLDiversity("disease", 2)]
    search = Search(table, models, max_suppression=0.0)
    stats = search.cache.classes((1, 1, 0)).stats
    ordered = judging_order(models)
    alone, given = NK.fused_plan(ordered, stats), NK.fused_plan(ordered, stats, NK.fused_models(ordered))
    assert alone is not None and given is not None
    assert all(np.array_equal(a, b) for a, b in zip(alone[:2], given[:2], strict=True)) and alone[2] == given[2]
    bare = stats.with_counts(stats.sizes, {})  # no histogram: the general path
    assert NK.fused_plan(ordered, bare) is None
    assert NK.fused_plan(ordered, bare, NK.fused_models(ordered)) is None


# ---------------------------------------------------------------------------------------- the starts
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("models", [[KAnonymity(4)], [KAnonymity(3), DistinctLDiversity("disease", 2)]])
def test_starts_read_again_give_the_one_by_one_traversal(seed: int, models: list) -> None:
    """Flash with its starts read again after each path gives the traversal (optimum, counts, statuses,
    score) of trying every node of the order in turn, and gives fewer starts than the old chunked scan
    (read once per chunk). Catches a start skipped after a re-read (the position past the last start given,
    or a node left out as closed that is not) and a re-read never made (as many starts as before)."""
    table = _table(10 + seed, n=900)
    chunked = flash_module._open_starts
    given: dict[str, int] = {}

    def run(starts) -> tuple:  # type: ignore[no-untyped-def]
        count = 0

        def counting(search: Search) -> Iterator[int]:
            nonlocal count
            for nid in starts(search):
                count += 1
                yield nid

        flash_module._open_starts = counting  # type: ignore[assignment]
        try:
            r = flash_module.flash(table, models, max_suppression=0.02)
        finally:
            flash_module._open_starts = chunked  # type: ignore[assignment]
        return (r.transformation, r.search.counts, r.search.score, r.search.status.tobytes(),
                r.search.traversal_status.tobytes()), count

    def read_once(search: Search) -> Iterator[int]:  # the chunked scan before this round, one chunk
        status, order = search.traversal_state.status, search.order
        open_ = status[order] == flash_module.UNKNOWN
        pruned = search.pruned_mask()
        if pruned is not None:
            open_ &= ~pruned[order]
        yield from order[open_].tolist()

    plain, given["plain"] = run(lambda search: search.order.tolist())
    once, given["once"] = run(read_once)
    again, given["again"] = run(chunked)
    assert once == plain and again == plain
    assert given["again"] < given["once"] <= given["plain"]
