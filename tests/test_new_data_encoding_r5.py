"""The encoding reuse's lookup on new data (issue 30, round 5): another input of a kept input's labels, rows and
settings is rejected by its first cells (``_Kept.plausible``) before its dtypes are read (``_shape``: pandas
builds a Series of them); the dtypes are still compared before a hit, and an object column's first-cells test
refuses a column of another dtype without converting it.

Every path is shown by the calls it makes and by what a lookup returns, never by timing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonkit import Hierarchy, Schema, anonymize
from anonkit._values import shares_objects
from anonkit.models import KAnonymity
from anonkit.runner import _encoding_reuse as reuse
from anonkit.table import Table
from support import counted_calls

ZIPS = ["13053", "13068", "14850", "14853"]
SETTINGS = (None, "value", True, "error")


def _frame(seed: int, rows: int = 200) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": [str(a) for a in rng.integers(20, 40, rows)],
        "zip": [ZIPS[i] for i in rng.integers(0, len(ZIPS), rows)],
        "disease": [["flu", "ulcer", "cancer"][i] for i in rng.integers(0, 3, rows)],
    }).astype(object)


def _schema() -> Schema:
    return Schema.of(quasi=["age", "zip"], insensitive=["disease"],
                     hierarchies={"age": Hierarchy([[str(a), f"{a // 10 * 10}s", "*"] for a in range(20, 40)]),
                                  "zip": Hierarchy([[z, z[:3] + "**", "*"] for z in ZIPS])})


@pytest.fixture(autouse=True)
def _fresh_reuse(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reuse, "REUSE_ENCODINGS", True)
    monkeypatch.setattr(reuse, "KEEP_AT_SECOND_CALL", False)
    reuse.clear()


def test_new_data_is_rejected_before_its_dtypes_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """New data of the kept input's labels, rows and settings: no ``_shape`` (the dtypes) at the lookup, a
    miss; the kept input itself: its dtypes read once, a hit. (Catches a lookup that reads the dtypes first.)"""
    schema = _schema()
    kept = _frame(0)
    table = Table(kept, schema)
    reuse.keep_table(kept, schema, SETTINGS, table)
    shapes = counted_calls(monkeypatch, reuse, "_shape")
    assert reuse.reused_table(_frame(1), schema, SETTINGS) is None
    assert shapes == []
    assert reuse.reused_table(kept, schema, SETTINGS) is table
    assert len(shapes) == 1


@pytest.mark.parametrize("dtype", ["string[pyarrow]", "str"])
def test_the_same_texts_in_another_dtype_are_no_hit(dtype: str) -> None:
    """The kept input's texts in another dtype pass the first cells' test or not, but never hit: the dtypes
    are compared before the schema and the cells (a pyarrow column of ``str`` and one of ``string[pyarrow]``
    hold the same buffers; the release keeps the input's dtype). (Catches a lookup that skips the dtypes.)"""
    pytest.importorskip("pyarrow")
    schema = _schema()
    base = _frame(0).astype("str")
    reuse.keep_table(base, schema, SETTINGS, Table(base, schema))
    other = base.astype(dtype)
    if dtype == "str":  # (the very dtypes: a hit, which shows the test reaches the dtype comparison)
        assert reuse.reused_table(other, schema, SETTINGS) is not None
        return
    assert tuple(other.dtypes) != tuple(base.dtypes)
    assert reuse._Kept.plausible(reuse._KEPT[0], other)  # the first cells alone cannot tell
    assert reuse.reused_table(other, schema, SETTINGS) is None
    hits = reuse.COUNTS.hits
    out = anonymize(other, schema, [KAnonymity(3)], algorithm="flash", max_suppression=0.1)
    assert reuse.COUNTS.hits == hits
    assert all(out.frame[c].dtype == other[c].dtype for c in ("disease",))


def test_an_object_columns_first_cells_refuse_another_dtype(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_ObjectProof.plausible`` on a column of the same texts in a pyarrow or categorical dtype: ``False``, and
    the column not converted (no ``to_numpy``). (Catches a test that converts the column and compares its texts.)"""
    pytest.importorskip("pyarrow")
    column = _frame(0)["zip"]
    proof = reuse._column_proof(column)
    assert isinstance(proof, reuse._ObjectProof)
    assert proof.plausible(column)
    converted: list[int] = []
    real = pd.Series.to_numpy

    def counted(self: pd.Series, *args: object, **kwargs: object) -> np.ndarray:
        converted.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pd.Series, "to_numpy", counted)
    for other in (column.astype("str"), column.astype("category")):
        assert not proof.plausible(other)
    assert converted == []


# ------------------------------------------------------------------ a file read again by pandas' reader
def _csv(rows: int = 2000, *, changed: int | None = None) -> str:
    """A CSV of ``rows`` records over few texts per column (pandas' reader, ``dtype=object``, gives one object per
    distinct text of a column); ``changed``: that row's zip replaced by another zip the column holds elsewhere (the
    same distinct texts, another pairing of cells)."""
    frame = _frame(0, rows)
    if changed is not None:
        frame.loc[changed, "zip"] = next(z for z in ZIPS if z != frame.loc[changed, "zip"])
    return frame.to_csv(index=False)


def _read(text: str) -> pd.DataFrame:
    import io

    return pd.read_csv(io.StringIO(text), dtype=object, keep_default_na=False)


def _full_passes(monkeypatch: pytest.MonkeyPatch, rows: int) -> list[int]:
    """The lengths of the cell-by-cell comparisons (``_same_texts``) of whole columns of ``rows`` cells."""
    seen: list[int] = []
    real = reuse._same_texts

    def spy(now: np.ndarray, kept: np.ndarray) -> bool:
        if len(now) == rows:
            seen.append(len(now))
        return real(now, kept)

    monkeypatch.setattr(reuse, "_same_texts", spy)
    return seen


def test_a_file_read_again_by_pandas_reader_is_proven_by_its_objects(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file read again with pandas' reader (shared objects, other ones than the kept) is a hit, proven per distinct
    object and pair of objects, not cell by cell; a read of other objects per cell is proven cell by cell, and hits
    too. (Catches a shared-objects path that is never taken, or taken for cells that do not share objects.)"""
    schema, text = _schema(), _csv()
    kept = _read(text)
    assert shares_objects(reuse._addresses(kept["zip"].to_numpy()))
    table = Table(kept, schema)
    reuse.keep_table(kept, schema, SETTINGS, table)
    full = _full_passes(monkeypatch, len(kept))
    again = _read(text)
    assert again["zip"].to_numpy()[0] is not kept["zip"].to_numpy()[0]
    assert reuse.reused_table(again, schema, SETTINGS) is table
    assert full == []
    each_new = again.astype(str).astype(object)  # (a new object in every cell)
    assert not shares_objects(reuse._addresses(each_new["zip"].to_numpy()))
    assert reuse.reused_table(each_new, schema, SETTINGS) is table
    assert len(full) == 3  # (every column, cell by cell)


def test_a_file_read_again_with_one_cell_paired_otherwise_is_no_hit() -> None:
    """The same distinct texts, one cell's text another one the column holds: no hit (catches a proof that compares
    the distinct objects without their pairing with the kept cells)."""
    schema = _schema()
    kept = _read(_csv())
    reuse.keep_table(kept, schema, SETTINGS, Table(kept, schema))
    other = _read(_csv(changed=700))
    assert set(other["zip"]) == set(kept["zip"]) and not other["zip"].equals(kept["zip"])
    assert reuse.reused_table(other, schema, SETTINGS) is None
    assert reuse.reused_table(_read(_csv()), schema, SETTINGS) is not None


class _Text(str):
    """A text subclass with the characters of an exact text."""


def test_a_shared_object_of_a_text_subclass_is_no_hit() -> None:
    """A column sharing its objects where one distinct object is a ``str`` subclass of the same characters: no hit
    (catches a proof by objects that skips their exact type)."""
    schema = _schema()
    kept = _read(_csv())
    reuse.keep_table(kept, schema, SETTINGS, Table(kept, schema))
    other = _read(_csv())
    cells = other["zip"].to_numpy().copy()
    sub = _Text(cells[5])
    later = np.arange(len(cells)) >= 2 * reuse.PLAUSIBLE_CELLS  # (past the first cells' test: the proof decides)
    cells[later & (cells == cells[5])] = sub  # (one object for all those cells: still shared)
    other["zip"] = pd.Series(cells, dtype=object)
    assert shares_objects(reuse._addresses(other["zip"].to_numpy()))
    assert reuse.reused_table(other, schema, SETTINGS) is None
