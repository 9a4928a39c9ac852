"""Twin tests of the small warm job's faster paths (issue 30 item 3, the S0 configurations): each new
path against the plain definition it replaces, on random inputs (few hypothesis examples).

* the lattice's levels written column by column (:func:`~anonkit.algorithms.lattice._space.mixed_radix_levels`)
  against ``np.meshgrid`` stacked;
* the search's priority order by stable sorts in strategy order
  (:func:`~anonkit.algorithms.lattice._search.priority_order`) against a lexsort with the strategy rank as
  its last key, and :attr:`Search.order` as the inverse of :attr:`Search.priority`;
* Loss's level bounds and a node's exact Loss summed for all QIs at once (rows of one array) against the
  per-QI sums of :meth:`NodeScorer._loss <anonkit.algorithms.lattice._score.NodeScorer._loss>`, bit for bit;
* :func:`~anonkit._values.factorize_text`'s all-text shortcut against the codes and texts of every
  cell's canonical text;
* a scratch node's class codes read through the concatenated lookup arrays, against a gather per attribute;
* a duplicate column named as before (the first name met twice);
* the whitespace of a column that is not encoded stripped after a cheaper look at its distinct values;
* the table's frame reindexed and cut only where needed, the caller's frame never written.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit._values import cell_text, factorize_text, strip_cells
from anonkit.algorithms.lattice._search import Search, priority_order, strategy_order, strategy_rank
from anonkit.algorithms.lattice._space import Lattice, mixed_radix_levels
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.metrics import SearchMetric
from anonkit.models import KAnonymity
from anonkit.schema import Attribute, Role, Schema
from anonkit.table import Table

FEW = settings(max_examples=20, deadline=None)


def _meshgrid_levels(mins: np.ndarray, maxs: np.ndarray) -> np.ndarray:
    grids = np.meshgrid(*[np.arange(lo, hi + 1) for lo, hi in zip(mins, maxs, strict=True)], indexing="ij")
    if not grids:
        return np.zeros((1, 0), dtype=np.int64)
    return np.stack([g.reshape(-1) for g in grids], axis=1).astype(np.int64)


@FEW
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=0, max_size=6))
def test_levels_column_by_column_are_the_meshgrid(bounds: list[tuple[int, int]]) -> None:
    mins = np.array([lo for lo, _ in bounds], dtype=np.int64)
    maxs = np.array([lo + extra for lo, extra in bounds], dtype=np.int64)
    got = mixed_radix_levels(mins, maxs)
    want = _meshgrid_levels(mins, maxs)
    assert got.dtype == np.int64 and got.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(got, want)
    if len(bounds):  # node id = row: the ids of the lattice's own numbering
        lat = Lattice([f"q{j}" for j in range(len(bounds))], list(mins), list(maxs))
        assert [lat.id(tuple(row)) for row in got.tolist()] == list(range(len(got)))


def _lexsort_priority(bounds: np.ndarray, rank: np.ndarray) -> np.ndarray:
    keys = [rank] + ([bounds[:, j] for j in range(bounds.shape[1] - 1, -1, -1)] if bounds.ndim == 2 else [bounds])
    return np.lexsort(keys)


@FEW
@given(st.integers(1, 60), st.integers(0, 3), st.integers(0, 2**31 - 1))
def test_priority_order_is_the_lexsort(n: int, width: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    # few distinct values, so most bounds tie and the strategy order decides them; −∞ as DM's bound
    values = np.array([-np.inf, 0.0, 0.25, 1.0, 3.5])
    bounds = values[rng.integers(0, len(values), size=(n, width) if width else n)]
    by_strategy = rng.permutation(n)
    rank = np.empty(n, dtype=np.int64)
    rank[by_strategy] = np.arange(n)
    np.testing.assert_array_equal(priority_order(bounds, by_strategy), _lexsort_priority(bounds, rank))


def _problem() -> tuple[Table, list[KAnonymity]]:
    rng = np.random.default_rng(3)
    ages = [str(a) for a in rng.integers(20, 60, 300)]
    zips = [f"13{z:02d}" for z in rng.integers(0, 40, 300)]
    frame = pd.DataFrame({"age": ages, "zip": zips, "sex": rng.choice(["m", "f"], 300)})
    age = Hierarchy([[a, f"{int(a) // 10 * 10}s", "*"] for a in sorted(set(ages))], name="age")
    zip_ = Hierarchy([[z, z[:3] + "*", z[:2] + "**", "*"] for z in sorted(set(zips))], name="zip")
    schema = Schema({"age": Attribute("age", Role.QUASI, hierarchy=age),
                     "zip": Attribute("zip", Role.QUASI, hierarchy=zip_), "sex": Attribute("sex", Role.QUASI)})
    table = Table(frame, schema)
    assert table.qi == ["age", "zip", "sex"]
    return table, [KAnonymity(k=3)]


def test_search_priority_and_order_are_inverse_and_the_lexsort() -> None:
    table, models = _problem()
    search = Search(table, models)
    rank = strategy_rank(search)
    np.testing.assert_array_equal(np.argsort(rank), strategy_order(search))
    want = _lexsort_priority(search.bounds, rank)
    np.testing.assert_array_equal(search.order, want)
    np.testing.assert_array_equal(np.argsort(search.priority), want)
    assert search.lattice.size == 4 * 3 * 2 and len(np.unique(search.bounds)) < search.lattice.size  # ties
    fresh = Search(table, models)  # the order asked first sets the priority too
    np.testing.assert_array_equal(fresh.order, want)
    np.testing.assert_array_equal(fresh.priority, search.priority)


_CELLS = st.one_of(
    st.text(alphabet=" ab1.", max_size=3), st.none(), st.just(float("nan")), st.integers(-2, 2),
    st.floats(allow_nan=False, allow_infinity=False, width=16), st.booleans(),
)


def _by_text(cells: list[object]) -> tuple[np.ndarray, np.ndarray]:
    texts = [cell_text(c) for c in cells]
    codes, labels = pd.factorize(np.array(texts, dtype=object))
    return codes.astype(np.int64), np.asarray(labels, dtype=object)


@FEW
@given(st.lists(_CELLS, min_size=0, max_size=30), st.booleans())
def test_factorize_text_is_the_codes_of_every_cells_text(cells: list[object], only_text: bool) -> None:
    if only_text:  # the shortcut's case: every cell a str, none missing
        cells = [c if isinstance(c, str) else cell_text(c) or "x" for c in cells]
    values = pd.Series(np.array(cells, dtype=object), dtype=object)
    for given_as in (values, values.to_numpy(), list(cells)):
        codes, labels = factorize_text(given_as)
        want_codes, want_labels = _by_text(cells)
        assert codes.dtype == np.int64
        np.testing.assert_array_equal(codes, want_codes)
        assert labels.tolist() == want_labels.tolist() and labels.dtype == object


def test_factorize_text_shortcut_leaves_missing_and_non_text_to_the_general_path() -> None:
    codes, labels = factorize_text(pd.Series(["a", None, "a", "b"], dtype=object))
    assert codes.tolist() == [0, 1, 0, 2] and labels.tolist() == ["a", "", "b"]
    codes, labels = factorize_text(pd.Series(["1", 1, 1.0, "x"], dtype=object))
    assert codes.tolist() == [0, 0, 0, 1] and labels.tolist() == ["1", "x"]
    codes, labels = factorize_text(pd.Series(["a", "b", "a"], dtype=object))  # control: the shortcut
    assert codes.tolist() == [0, 1, 0] and labels.tolist() == ["a", "b"]


def test_a_duplicate_column_is_named() -> None:
    frame = pd.DataFrame([[1, 2, 3, 4]], columns=["a", "b", "c", "b"])
    schema = Schema({"a": Attribute("a", Role.QUASI)}, default_role=Role.INSENSITIVE)
    with pytest.raises(InputError, match="duplicate column") as err:
        Table(frame, schema)
    assert err.value.column == "b"
    twice = pd.DataFrame([[1, 2, 3, 4]], columns=["a", "c", "c", "a"])
    with pytest.raises(InputError, match="duplicate column") as err:
        Table(twice, schema)
    assert err.value.column == "c"  # the first name met a second time
    control = Table(frame.set_axis(["a", "b", "c", "d"], axis=1), schema)
    assert control.n == 1


@pytest.mark.parametrize("max_suppression", [0.0, 0.3])
@pytest.mark.parametrize("aggregate", ["geometric", "sum"])
def test_loss_sums_of_all_qis_at_once_are_the_per_qi_sums(max_suppression: float, aggregate: str) -> None:
    table, _ = _problem()
    search = Search(table, [KAnonymity(k=8)], max_suppression=max_suppression,
                    metric=SearchMetric(name="loss", aggregate=aggregate))
    scorer, d = search.scorer, table.distinct
    for j, h in enumerate(table.hierarchies):  # the level bounds, as each level's own 1-D sum
        shares = [h.domain_share(level)[h.maps[level]][d.columns[j]] for level in range(h.height + 1)]
        want = [scorer._loss(j, s, d.counts, None, 0.0) for s in shares]
        assert scorer._loss_bound[j].tolist() == want
        assert all(np.array_equal(a, b) for a, b in zip(scorer._share[j], shares, strict=True))
    suppressed = 0
    for node in search.lattice.iter_nodes():
        ev = search.evaluate(node)
        kept = np.where(ev.class_ok, ev.class_sizes, 0.0)
        sup = ev.class_sizes - kept
        n_sup = float(sup.sum())
        suppressed += n_sup > 0
        codes = ev.class_codes
        got = scorer._class_losses(ev.levels, codes, kept, sup, n_sup)
        want = [scorer._loss(j, table.hierarchies[j].domain_share(lv)[codes[:, j]], kept, sup, n_sup)
                for j, lv in enumerate(ev.levels)]
        assert got == want, node
    assert suppressed or max_suppression == 0.0  # the suppressed records' term was exercised


def test_strip_cells_looks_at_distinct_values_first() -> None:
    clean = pd.Series(["a", "b", None, "a"], dtype=object)
    assert strip_cells(clean) is clean  # control: nothing to strip, the column itself
    padded = pd.Series([" a", "b", None, "a "], dtype=object)
    out = strip_cells(padded)
    assert out.tolist() == ["a", "b", None, "a"] and out.index.equals(padded.index)


@pytest.mark.parametrize("index", [None, [5, 3, 9, 1], "range-from-2"])
@pytest.mark.parametrize("with_identifier", [False, True])
def test_the_tables_frame_is_its_own_reindexed_without_dropped_columns(index: object, with_identifier: bool) -> None:
    frame = pd.DataFrame({"id": ["p1", "p2", "p3", "p4"], "zip": [" 1300", "1301", "1300", "1302"],
                          "note": ["x ", "y", "x", "z"]})
    if index == "range-from-2":
        frame.index = pd.RangeIndex(2, 6)
    elif index is not None:
        frame.index = index
    if not with_identifier:
        frame = frame.drop(columns="id")
    before = frame.copy()
    attrs = {"zip": Attribute("zip", Role.QUASI), "note": Attribute("note", Role.INSENSITIVE)}
    if with_identifier:
        attrs["id"] = Attribute("id", Role.IDENTIFIER)
    table = Table(frame, Schema(attrs))
    assert list(table.frame.columns) == ["zip", "note"]
    assert table.frame.index.equals(pd.RangeIndex(4))
    assert table.frame["zip"].tolist() == ["1300", "1301", "1300", "1302"]  # stripped in the table's frame
    assert table.frame["note"].tolist() == ["x", "y", "x", "z"]
    pd.testing.assert_frame_equal(frame, before)  # the caller's frame unchanged


def test_scratch_class_codes_read_through_the_concatenated_maps() -> None:
    table, models = _problem()
    search = Search(table, models)
    d = table.distinct
    for node in search.lattice.iter_nodes():
        got = search.cache._compute(node)
        tc, n = table.tuple_classes(node)
        first = np.full(n, -1, dtype=np.int64)
        rev = np.arange(len(tc) - 1, -1, -1)
        first[tc[rev]] = rev
        want = np.stack([table.hierarchies[j].maps[node[j]][d.columns[j][first]] for j in range(len(node))], axis=1)
        assert got.codes.dtype == np.int64 and got.codes.flags["C_CONTIGUOUS"]
        np.testing.assert_array_equal(got.codes, want)


def _toy_table() -> Table:
    rng = np.random.default_rng(5)
    n = 40
    frame = pd.DataFrame({"age": rng.integers(20, 40, n).astype(str).astype(object),
                          "zip": rng.choice(["1", "2", "3"], n).astype(object),
                          "pay": rng.integers(0, 100, n)})
    age = Hierarchy([[str(a), f"{a // 10 * 10}s", "*"] for a in range(20, 40)])
    return Table(frame, Schema.of(quasi=["age", "zip"], insensitive=["pay"], hierarchies={"age": age}))


def test_a_counted_tables_frame_is_taken_when_first_read() -> None:
    """:meth:`Table.counted_rows` no longer copies the frame (no measure reads it): it is taken on first
    read, the same rows as the eager copy; a counted table counted again reads its own."""
    t = _toy_table()
    rows = np.array([0, 3, 5, 7], dtype=np.int64)
    weights = np.array([10, 10, 10, 10], dtype=np.int64)
    counted = t.counted_rows(rows, weights)
    assert "frame" not in counted.__dict__  # nothing copied yet
    pd.testing.assert_frame_equal(counted.frame, t.frame.iloc[rows].reset_index(drop=True))
    again = counted.counted_rows(np.array([1, 2]), np.array([20, 20]))
    pd.testing.assert_frame_equal(again.frame, t.frame.iloc[rows[[1, 2]]].reset_index(drop=True))


def test_what_a_search_derives_from_the_table_is_built_once_and_read_only() -> None:
    """Flash's strategy order and the scorer's level tables are kept with the table's distinct tuples
    (:func:`anonkit.stats.table_memo`): a second search reads the same arrays, read-only, equal to what is
    built afresh; other hierarchy objects (or a table without its distinct tuples yet) build again."""
    from anonkit.algorithms.lattice._search import _strategy_order
    from anonkit.stats import table_memo

    t = _toy_table()
    a, b = Search(t, [KAnonymity(2)]), Search(t, [KAnonymity(3)])
    assert strategy_order(a) is strategy_order(b) and not strategy_order(a).flags.writeable
    np.testing.assert_array_equal(strategy_order(a), _strategy_order(a))
    assert a.scorer._loss_bound is b.scorer._loss_bound
    assert all(not x.flags.writeable for x in a.scorer._loss_bound)
    built = []
    assert table_memo(t, ("k",), lambda: built.append(1) or 1) == table_memo(t, ("k",), lambda: built.append(1) or 2)
    t.hierarchies = list(t.hierarchies)  # the same objects: still kept
    assert table_memo(t, ("k",), lambda: built.append(1) or 3) == 1 and built == [1]
    t.hierarchies = [Hierarchy(np.column_stack([h.leaves, np.full(h.n_leaves, "*")])) for h in t.hierarchies]
    assert table_memo(t, ("k",), lambda: built.append(1) or 4) == 4 and built == [1, 1]
    fresh = _toy_table()  # its distinct tuples not computed: nothing kept
    assert table_memo(fresh, ("k",), lambda: 5) == 5 and "distinct" not in fresh.__dict__
