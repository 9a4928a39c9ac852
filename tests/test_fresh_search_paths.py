"""Twin tests of what Flash's search does on a *new* table of the same content (issue 30, session 11: a new
frame on every call; the per-table memos miss):

* the scorer's Loss level sums, one level at a time in one reused buffer, against the ``(levels × tuples)``
  product they replaced (the same bits), and the tuples' shares, built on first use, against a fresh gather;
* the lattice's bounds and priority order shared by value (:func:`~anonkit.stats.content_memo`): a second
  table of the same content takes the first one's arrays, a table with other counts or other leaves present
  gets its own (checked against a fresh computation), and the releases equal those of a search that shares
  nothing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonkit import Schema, Table
from anonkit import stats as stats_module
from anonkit.algorithms.lattice._score import NodeScorer, loss_level_sums
from anonkit.algorithms.lattice._search import Search, _ranks, _strategy_order, priority_order
from anonkit.algorithms.lattice.flash import flash
from anonkit.hierarchy import Hierarchy
from anonkit.metrics import SearchMetric
from anonkit.metrics.loss import normalized_loss
from anonkit.models import KAnonymity

N_AGES = 37  # not a power of two: the domain shares are inexact, so the order of a sum shows in its bits
AGES = [str(20 + a) for a in range(N_AGES)]
ZIPS = [f"z{i}" for i in range(29)]


def _age(width: int = 3) -> Hierarchy:
    return Hierarchy([[a, f"b{(int(a) - 20) // width}", f"h{(int(a) - 20) // 12}", "*"] for a in AGES], name="age")


def _zip() -> Hierarchy:
    return Hierarchy([[z, f"p{i // 3}", f"h{i // 9}", "*"] for i, z in enumerate(ZIPS)], name="zip")


def _sex() -> Hierarchy:
    return Hierarchy([["m", "*"], ["f", "*"], ["x", "*"]], name="sex")


def _frame(seed: int = 0, n: int = 3000, ages: list[str] | None = None) -> pd.DataFrame:
    """``n`` records drawn with ``seed`` (new string objects in every cell, as a file read again)."""
    rng = np.random.default_rng(seed)
    ages = ages or AGES
    return pd.DataFrame({
        "age": [str(x) for x in rng.choice(np.array(ages, dtype=object), n)],
        "zip": [str(x) for x in rng.choice(np.array(ZIPS, dtype=object), n)],
        "sex": [str(x) for x in rng.choice(np.array(["m", "f", "x"], dtype=object), n, p=[0.5, 0.45, 0.05])],
    })


def _table(frame: pd.DataFrame, age: Hierarchy | None = None) -> Table:
    hs = {"age": age or _age(), "zip": _zip(), "sex": _sex()}
    return Table(frame, Schema.of(quasi=["age", "zip", "sex"], hierarchies=hs))


def _search(table: Table, metric: SearchMetric | None = None) -> Search:
    return Search(table, [KAnonymity(3)], max_suppression=0.05, metric=metric)


# ---------------------------------------------------------------------------------------- level tables
@pytest.mark.parametrize("m", [1, 7, 8, 9, 127, 128, 129, 1000, 8191, 8192, 8193, 20000])
def test_a_row_of_a_2d_sum_is_its_1d_sum(m: int) -> None:
    """The premise of the buffer: numpy sums a contiguous row of a ``(levels × m)`` array as the same 1-D
    array (pairwise, the same bits), across the pairwise blocks and the 8192-element buffer size."""
    rng = np.random.default_rng(m)
    counts = rng.integers(1, 50, m).astype(np.float64)
    shares = rng.random((4, m)) / 37.0
    rows = (counts * shares).sum(axis=1)
    buf = np.empty(m)
    for level in range(4):
        np.multiply(counts, shares[level], out=buf)
        assert buf.sum().tobytes() == rows[level].tobytes()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_loss_level_sums_bit_for_bit(seed: int) -> None:
    """:func:`loss_level_sums` gives each level's sum with the bits of the ``(levels × tuples)`` product's row
    sum it replaced. Catches a sum in another order (reversed, per leaf by ``bincount``, ``math.fsum``): on
    these tables such sums differ in the last bits at some levels."""
    table = _table(_frame(seed=seed, n=20000))
    d = table.distinct
    buf = np.empty(d.size)
    for j, h in enumerate(table.hierarchies):
        lut = np.stack([h.domain_share(level)[h.maps[level]] for level in range(h.height + 1)])
        want = (d.counts * np.take(lut, d.columns[j], axis=1)).sum(axis=1)
        got = loss_level_sums(d.counts, d.columns[j], h, buf)
        assert [x.tobytes() for x in np.asarray(got)] == [x.tobytes() for x in want]


@pytest.mark.parametrize("gs", [0.5, 0.2, 1.0])
def test_loss_level_sums_are_the_2d_products_sums(gs: float) -> None:
    """:meth:`NodeScorer._level_tables` (one level at a time in one buffer) gives, bit for bit, what the
    ``(levels × tuples)`` product summed by rows gave. Catches a sum taken in another order (reversed,
    ``math.fsum``) or a level's shares gathered wrongly."""
    table = _table(_frame())
    scorer = NodeScorer(table, SearchMetric(gs=gs), 0.05)
    d = table.distinct
    assert d.size > 300
    for j, h in enumerate(table.hierarchies):
        lut = np.stack([h.domain_share(level)[h.maps[level]] for level in range(h.height + 1)])
        sums = (d.counts * np.take(lut, d.columns[j], axis=1)).sum(axis=1)
        want = np.array([normalized_loss(scorer.g * float(x), scorer.n, h.n_leaves, scorer.g) for x in sums])
        assert scorer._loss_bound[j].tobytes() == want.tobytes()
        assert not scorer._loss_bound[j].flags.writeable


def test_tuple_shares_built_on_first_use() -> None:
    """The tuples' shares per level (Loss scored from tuples) are built when first read, kept per table, and
    equal a fresh gather. Catches a level or attribute taken wrongly, or shares not kept."""
    table = _table(_frame())
    scorer = NodeScorer(table, SearchMetric(), 0.05)
    memo = table.distinct.__dict__.get("_memo", {})
    assert ("scorer-shares",) not in memo  # not built by the scorer's construction
    shares = scorer._share
    for j, h in enumerate(table.hierarchies):
        for level in range(h.height + 1):
            want = h.domain_share(level)[h.maps[level]][table.distinct.columns[j]]
            assert shares[j][level].tobytes() == want.tobytes()
            assert not shares[j][level].flags.writeable
    assert NodeScorer(table, SearchMetric(), 0.05)._share is shares


# ---------------------------------------------------------------------------------------- bounds, priority
def _fresh_priority(search: Search) -> np.ndarray:
    bounds = search.scorer.lower_bound_table(search.lattice.levels)
    return _ranks(priority_order(bounds, _strategy_order(search)))


def test_bounds_and_priority_shared_by_a_table_of_the_same_content() -> None:
    """A new table of the same content (a new frame) takes the first table's bounds and priority arrays."""
    first = _search(_table(_frame()))
    second = _search(_table(_frame()))
    assert second.table.distinct is not first.table.distinct
    assert second.bounds is first.bounds
    assert second.priority is first.priority
    assert np.array_equal(second.priority, _fresh_priority(second))


def test_bounds_of_other_counts_are_their_own() -> None:
    """Other records over the same hierarchies and leaves (other level tables): their own bounds and order.
    Catches a bounds key without the scorer's level tables (:meth:`NodeScorer.level_key`)."""
    first = _search(_table(_frame(seed=0)))
    other = _search(_table(_frame(seed=1)))
    fresh = other.scorer.lower_bound_table(other.lattice.levels)
    assert fresh.tobytes() != first.bounds.tobytes()  # the case tests something
    assert other.bounds.tobytes() == fresh.tobytes()
    assert np.array_equal(other.priority, _fresh_priority(other))


def test_priority_of_other_leaves_is_its_own() -> None:
    """With the height metric the bounds depend on the lattice alone, so two tables with other leaves present
    share the bounds' key but not Flash's strategy order: each gets its own priority. Catches a priority key
    without the strategy's key."""
    height = SearchMetric(name="height")
    first = _search(_table(_frame()), height)
    few = AGES[:5] + AGES[12:13] + AGES[30:]  # other leaves present: other shares per level
    other = _search(_table(_frame(ages=few)), height)
    assert other.bounds.tobytes() == first.bounds.tobytes()
    fresh = _fresh_priority(other)
    assert not np.array_equal(fresh, first.priority)  # the case tests something
    assert np.array_equal(other.priority, fresh)


def test_flash_on_a_new_frame_equals_a_search_sharing_nothing() -> None:
    """Flash on a new table of the same content (its bounds and priority order shared) releases what a search
    that shares nothing releases."""
    frame = _frame(n=4000)
    models = [KAnonymity(4)]
    first = flash(_table(frame), models, max_suppression=0.02)
    second_table = _table(_frame(n=4000))
    second = flash(second_table, models, max_suppression=0.02)
    assert any(key[0] == "lattice-priority" for key in stats_module._CONTENT_MEMO)
    stats_module._CONTENT_MEMO.clear()
    alone = flash(_table(_frame(n=4000)), models, max_suppression=0.02)
    for rel in (first, second):
        assert rel.transformation == alone.transformation
        assert rel.search is not None and alone.search is not None
        assert rel.search.score == alone.search.score and rel.search.counts == alone.search.counts
        assert rel.search.status.tobytes() == alone.search.status.tobytes()
        assert rel.n_suppressed == alone.n_suppressed
