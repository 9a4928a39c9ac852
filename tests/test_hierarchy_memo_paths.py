"""Twin tests of what a search keeps per hierarchy content rather than per table (issue 30 item 3: a new
frame on every call, :func:`~anonkit.stats.content_memo`): the lattice's level matrix (keyed by its bounds),
Flash's strategy order (the bounds, the hierarchies' codes and the leaves present) and the roll-up maps (the
hierarchies' codes). Each shared value is checked against a fresh computation for other hierarchies, other
bounds, other leaves present and a hierarchy changed in place, and a second table over the same hierarchies
is checked to take the first one's arrays.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest

from anonkit import Schema, Table
from anonkit import stats as stats_module
from anonkit.algorithms.lattice import _search
from anonkit.algorithms.lattice._search import Search, _strategy_order, strategy_order
from anonkit.algorithms.lattice._space import mixed_radix_levels
from anonkit.algorithms.rollup import RollupCache
from anonkit.hierarchy import Hierarchy
from anonkit.models import KAnonymity

AGES = [str(a) for a in range(20, 36)]
ZIPS = [f"z{i}" for i in range(16)]


@pytest.fixture(autouse=True)
def _empty_memo() -> Iterator[None]:
    stats_module._CONTENT_MEMO.clear()
    yield
    stats_module._CONTENT_MEMO.clear()


def _age(width: int) -> Hierarchy:
    """Ages 20..35 in bands of ``width`` (1, 2, 4 or 8), then halves, then ``*`` (the same height for every
    width)."""
    return Hierarchy([[a, f"b{(int(a) - 20) // width}", f"h{(int(a) - 20) // 8}", "*"] for a in AGES], name="age")


def _zip() -> Hierarchy:
    """Sixteen codes in pairs, then halves, then ``*``: as high as the ages, so nodes tie on Flash's first
    two keys and the shares per level (the hierarchies' codes, the leaves present) decide."""
    return Hierarchy([[z, f"p{i // 2}", f"h{i // 8}", "*"] for i, z in enumerate(ZIPS)], name="zip")


def _table(age: Hierarchy, zip_: Hierarchy, ages: list[str] | None = None) -> Table:
    ages = ages or AGES
    rows = [(ages[i % len(ages)], ZIPS[i % len(ZIPS)]) for i in range(48)]
    frame = pd.DataFrame(rows, columns=["age", "zip"])
    return Table(frame, Schema.of(quasi=["age", "zip"], hierarchies={"age": age, "zip": zip_}))


def _new_search(table: Table, **kw: object) -> Search:
    return Search(table, [KAnonymity(2)], max_suppression=0.0, **kw)  # type: ignore[arg-type]


def _fresh_strategy(search: Search) -> np.ndarray:
    """Flash's strategy order computed from scratch for ``search`` (no memo)."""
    return _strategy_order(search)


def _maps_up_fresh(table: Table) -> tuple:
    return RollupCache(table)._build_maps_up()


def test_a_second_table_over_the_same_hierarchies_takes_the_shared_arrays(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Two tables (two frames) over the same hierarchies: the strategy order, the level matrix and the
    roll-up maps are built once, the second table gets the very same arrays."""
    built = {"strategy": 0}
    real = _search._order_by_strategy

    def counting(*args: object) -> np.ndarray:
        built["strategy"] += 1
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(_search, "_order_by_strategy", counting)
    age, zip_ = _age(2), _zip()
    one, two = _new_search(_table(age, zip_)), _new_search(_table(age, zip_))
    assert strategy_order(one) is strategy_order(two)
    assert built["strategy"] == 1
    assert one.lattice.levels is two.lattice.levels
    assert RollupCache(one.table)._maps_up[0] is RollupCache(two.table)._maps_up[0]
    # equal content in other objects (a schema built again from the same rows) shares too
    three = _new_search(_table(_age(2), _zip()))
    assert strategy_order(three) is strategy_order(one)
    assert built["strategy"] == 1


@pytest.mark.parametrize("width", [2, 4, 8])
def test_other_hierarchies_get_their_own_strategy_order_and_maps(width: int) -> None:
    """Hierarchies of the same shape but other groupings (a band width of 1, then 2, 4 or 8 years), searched
    after one another: each table's strategy order and roll-up maps are the ones computed from scratch
    (a key without the hierarchies' codes would hand the first one's)."""
    orders = []
    for w in (1, width):  # the memo first holds another hierarchy's values
        table = _table(_age(w), _zip())
        search = _new_search(table)
        orders.append(strategy_order(search))
        assert np.array_equal(orders[-1], _fresh_strategy(search))
        flat, at, size = RollupCache(table)._maps_up
        f_flat, f_at, f_size = _maps_up_fresh(table)
        assert np.array_equal(flat, f_flat) and at == f_at and size == f_size
    assert not np.array_equal(orders[0], orders[1])  # the case tells the two apart


def test_the_strategy_order_depends_on_the_leaves_present() -> None:
    """A table holding only some ages: its strategy order is its own (the leaves present change the
    shares per level), not the one of the table holding every age over the same hierarchies."""
    age, zip_ = _age(4), _zip()
    full = _new_search(_table(age, zip_))
    some = _new_search(_table(age, zip_, ages=AGES[:5]))
    order_full = strategy_order(full)
    order_some = strategy_order(some)
    assert np.array_equal(order_some, _fresh_strategy(some))
    assert np.array_equal(order_full, _fresh_strategy(full))
    assert not np.array_equal(order_full, order_some)  # the case tells the two apart


def test_other_lattice_bounds_get_their_own_levels_and_order() -> None:
    """Searches with other min/max levels over the same hierarchies: each level matrix and strategy order
    is its lattice's own."""
    age, zip_ = _age(2), _zip()
    for mins, maxs in (({}, {}), ({"age": 1}, {}), ({}, {"age": 2}), ({"age": 1}, {"age": 2, "zip": 1})):
        search = _new_search(_table(age, zip_), min_levels=mins, max_levels=maxs)
        lat = search.lattice
        assert np.array_equal(lat.levels, mixed_radix_levels(lat.min, lat.max))
        assert np.array_equal(strategy_order(search), _fresh_strategy(search))


def test_a_hierarchy_changed_in_place_is_not_taken_for_the_old_one() -> None:
    """The hierarchy's codes changed in place after a search (the same object): a new table over it gets
    a strategy order and roll-up maps built from the new codes (the key holds the codes by value, not the
    object's identity)."""
    age, zip_ = _age(2), _zip()
    first = _new_search(_table(age, zip_))
    before = strategy_order(first).copy()
    RollupCache(first.table)._maps_up  # noqa: B018 (kept)
    age.maps[1] = age.maps[0]  # level 1 now keeps every age, as level 0 (bands of width 1)
    age.labels[1] = age.labels[0]
    age._shares.clear()
    second = _new_search(_table(age, zip_))
    assert np.array_equal(strategy_order(second), _fresh_strategy(second))
    assert not np.array_equal(strategy_order(second), before)
    flat, at, size = RollupCache(second.table)._maps_up
    f_flat, f_at, f_size = _maps_up_fresh(second.table)
    assert np.array_equal(flat, f_flat) and at == f_at and size == f_size


def test_the_memo_is_bounded(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """At most :data:`~anonkit.stats.CONTENT_MEMO_ENTRIES` entries, and the values within the byte bound
    (the most recent entry kept even when alone above it); the least recently used leaves first."""
    monkeypatch.setattr(stats_module, "CONTENT_MEMO_ENTRIES", 3)
    for i in range(6):
        stats_module.content_memo(("k", i), lambda i=i: np.full(10, i))
    assert [k[1] for k in stats_module._CONTENT_MEMO] == [3, 4, 5]
    stats_module.content_memo(("k", 3), lambda: np.zeros(1))  # a hit: now the most recent
    stats_module.content_memo(("k", 6), lambda: np.zeros(1))
    assert [k[1] for k in stats_module._CONTENT_MEMO] == [5, 3, 6]
    monkeypatch.setattr(stats_module, "CONTENT_MEMO_BYTES", 100)
    stats_module.content_memo(("big",), lambda: np.zeros(1000))
    assert list(stats_module._CONTENT_MEMO) == [("big",)]
