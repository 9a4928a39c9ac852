"""Twin tests of the search's set-up and the model checks on a table of *new data* (issue 30, session 13 round 5):

* the leaves present per quasi-identifier (:func:`~anonkit.algorithms.lattice._search._leaves_present`, the
  strategy order's key) read from the summary's leaf tallies (:func:`~anonkit.metrics.arx.leaf_tallies`, kept
  with the table for the measures of the same call) where those count the distinct tuples, else marked column
  by column: both against the leaves sorted out of the distinct tuples, with leaves absent;
* the distinct sensitive values an l-diversity model needs (:func:`~anonkit.algorithms.feasibility.impossible`)
  counted per code instead of sorted, records suppressed up front left out, against ``np.unique``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonkit import Schema, Table
from anonkit.algorithms import feasibility
from anonkit.algorithms.lattice import _search
from anonkit.algorithms.registry import algorithms
from anonkit.hierarchy import Hierarchy
from anonkit.models import DistinctLDiversity, KAnonymity

AGES = [str(20 + a) for a in range(37)]
ZIPS = [f"z{i}" for i in range(29)]


def _frame(seed: int, n: int, *, in_key_order: bool = False) -> pd.DataFrame:
    """Records over a part of each hierarchy's leaves (ages and zips drawn from a subset: leaves absent, the
    first leaf among them for some seeds; one age held by one record). ``in_key_order``: the records sorted by
    their leaves, so that the distinct tuples, numbered by their key on this small key space, are numbered in
    order of first appearance too (as a large key space numbers them: Adult's), where the summary tallies the
    leaves by tuples."""
    rng = np.random.default_rng(seed)
    age = rng.choice(rng.choice(len(AGES), 20, replace=False), n)
    zip_ = rng.choice(rng.choice(len(ZIPS), 11, replace=False), n)
    sex = rng.choice(2, n)
    age[-1] = next(i for i in range(len(AGES)) if i not in set(age.tolist()))  # a leaf held by one record
    if in_key_order:
        order = np.lexsort((sex, zip_, age))
        age, zip_, sex = age[order], zip_[order], sex[order]
    return pd.DataFrame({
        "age": [AGES[i] for i in age],
        "zip": [ZIPS[i] for i in zip_],
        "sex": [("m", "f")[i] for i in sex],
        "disease": [str(x) for x in rng.choice(np.array(["flu", "hiv", "cold", "none"], dtype=object), n)],
    })


def _schema() -> Schema:
    hierarchies = {
        "age": Hierarchy([[a, f"b{(int(a) - 20) // 3}", f"h{(int(a) - 20) // 12}", "*"] for a in AGES], name="age"),
        "zip": Hierarchy([[z, f"p{i // 3}", f"h{i // 9}", "*"] for i, z in enumerate(ZIPS)], name="zip"),
        "sex": Hierarchy([["m", "*"], ["f", "*"], ["x", "*"]], name="sex"),
    }
    return Schema.of(quasi=["age", "zip", "sex"], sensitive=["disease"], hierarchies=hierarchies)


def _sorted_leaves(table: Table) -> list[np.ndarray]:
    """The leaves present, the plain way: sorted out of the distinct tuples' columns."""
    return [np.unique(table.distinct.tuples[:, j]).astype(np.int64) for j in range(len(table.qi))]


def _kept_tallies(table: Table) -> bool:
    return ("leaf_tallies",) in table.distinct.__dict__.get("_memo", {})


@pytest.mark.parametrize("seed", range(6))
def test_leaves_present_from_the_tallies_are_the_sorted_leaves(seed: int) -> None:
    """On a table the summary tallies by its distinct tuples, the leaves present are read from those tallies
    (kept with the table afterwards, for the measures) and are the leaves sorted out of the tuples, some leaves
    absent. Catches ``first > 0`` for ``first >= 0`` (the first tuple's leaf lost), leaves of one record taken
    for absent, and the tallies' path never taken (nothing kept)."""
    table = Table(_frame(seed, 400, in_key_order=True), _schema())
    table.distinct  # noqa: B018 (a search's scorer groups the tuples first)
    assert not _kept_tallies(table)
    got = _search._leaves_present(table)
    assert _kept_tallies(table)  # the tallies' path ran, and left them to the measures
    expected = _sorted_leaves(table)
    assert any(len(e) < h.n_leaves for e, h in zip(expected, table.hierarchies, strict=True))  # leaves absent
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == np.int64
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("rows", ["weighted", "shuffled"])
def test_leaves_present_marked_per_column_are_the_sorted_leaves(seed: int, rows: str) -> None:
    """Where the summary counts records, not tuples (rows standing for several records; tuples not numbered in
    order of first appearance), each column's leaves are marked in a mask: the same leaves, in the same dtype
    (the strategy key holds their bytes). Catches a column marked in another's mask, and the tallies read where
    they do not count the tuples (they are then kept)."""
    frame = _frame(seed, 300)
    weights = np.arange(1, len(frame) + 1, dtype=np.int64) % 3 + 1 if rows == "weighted" else None
    table = Table(frame, _schema(), weights=weights)
    table.distinct  # noqa: B018
    got = _search._leaves_present(table)
    assert not _kept_tallies(table)
    for g, e in zip(got, _sorted_leaves(table), strict=True):
        assert g.dtype == np.int64
        np.testing.assert_array_equal(g, e)


def test_the_strategy_order_of_a_new_table_is_its_fresh_order() -> None:
    """A search of a new table (leaves read from the tallies) orders the nodes as the strategy computed afresh
    from the leaves sorted out of its tuples."""
    table = Table(_frame(3, 500, in_key_order=True), _schema())
    search = _search.Search(table, [KAnonymity(3)])
    fresh = _search._order_by_strategy(search.lattice, table.hierarchies, _sorted_leaves(table))
    np.testing.assert_array_equal(_search.strategy_order(search), fresh)
    assert _kept_tallies(table)


@pytest.mark.parametrize("seed", range(5))
def test_values_present_count_the_released_codes_as_unique_does(seed: int) -> None:
    """The distinct sensitive values of the records not suppressed up front, counted per code, are
    ``np.unique``'s count, where a value is held only by records suppressed up front (a missing age under
    ``missing="suppress"``) and where codes skip values. Catches the suppressed records counted, and the
    length of the per-code counts taken for the number of values held."""
    frame = _frame(seed, 200)
    frame.loc[:9, "age"] = ""  # missing: suppressed up front
    frame.loc[10:, "disease"] = frame.loc[10:, "disease"].replace("hiv", "flu")
    frame.loc[:9, "disease"] = "hiv"  # held by those records alone: a code between the others, unheld
    table = Table(frame, _schema(), missing="suppress")
    assert table.presuppressed.sum() == 10
    codes = table.sensitive_codes["disease"]
    expected = int(np.unique(codes[~table.presuppressed]).size)
    assert expected < int(np.unique(codes).size)
    assert feasibility._values_present(table, "disease") == expected
    flash = algorithms()["flash"]
    assert feasibility.impossible(table, [KAnonymity(2), DistinctLDiversity("disease", expected)], flash, {}) is None
    reason = feasibility.impossible(table, [DistinctLDiversity("disease", expected + 1)], flash, {})
    assert reason is not None and f"only {expected} distinct values" in reason


def test_values_present_without_records_suppressed_up_front() -> None:
    """Every record counted when none is suppressed up front (the codes read as they are)."""
    table = Table(_frame(1, 150), _schema())
    assert not table.presuppressed.any()
    assert feasibility._values_present(table, "disease") == int(np.unique(table.sensitive_codes["disease"]).size)


@pytest.mark.parametrize("in_key_order", [False, True])
def test_distinct_keeps_its_tuples_first_records_and_the_order_is_read_from_them(in_key_order, monkeypatch):
    """``Table.distinct`` keeps each tuple's first record (read-only), and whether the tuples are numbered in order
    of first appearance is read from them, not from another pass over the records: the same answer as that pass,
    on tables numbered both ways (catches: a ``first`` of another grouping, a flag that ignores it, or a pass made
    although it is kept)."""
    from anonkit import stats
    from anonkit._kernels import first_rows

    table = Table(_frame(5, 400, in_key_order=in_key_order), _schema())
    d = table.distinct
    assert d.first is not None and not d.first.flags.writeable
    assert np.array_equal(d.first, first_rows(d.inverse, d.size))
    expected = bool((np.diff(first_rows(d.inverse, d.size)) > 0).all())
    monkeypatch.setattr(stats, "first_rows", lambda *a: pytest.fail("the first records were grouped again"))
    assert stats.tuples_in_first_appearance(table) is expected
    assert expected is in_key_order  # (both orders are met: the test reads a real answer each way)
