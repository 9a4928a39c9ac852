"""The encoding of new data, round 6 (issue 30): a pyarrow text quasi-identifier whose cells are all leaves of its
hierarchy is coded by one ``index_in`` against the leaves (``anonkit.hierarchy.arrow_leaves``) instead of
``dictionary_encode`` and a lookup of the distinct texts; a frame that waits for its second call to be kept is
decided by its outline, its dtypes not read (``runner._encoding_reuse._waits``).

Each fast path is compared with the general encoding (the lookup switched off) on inputs where a wrong shortcut
would show, and shown to have run by the calls it makes, never by timing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit import Hierarchy, Schema
from anonkit import table as table_module
from anonkit.hierarchy import arrow_leaves
from anonkit.runner import _encoding_reuse as reuse
from anonkit.table import Table
from support import counted_calls

EDUCATION = ["HS", "College", "Masters", "Doctorate"]


def _frame(seed: int, rows: int = 300, *, ages: list[str] | None = None) -> pd.DataFrame:
    """Pandas' text columns (pyarrow-backed ``str``): an age read as text, an education, a sensitive disease."""
    rng = np.random.default_rng(seed)
    ages = ages or [str(a) for a in range(20, 60, 3)]  # every third age: the hierarchy has leaves the data lacks
    return pd.DataFrame({
        "age": [ages[i] for i in rng.integers(0, len(ages), rows)],
        "education": [EDUCATION[i] for i in rng.integers(0, len(EDUCATION), rows)],
        "disease": [["flu", "ulcer", "cancer"][i] for i in rng.integers(0, 3, rows)],
    }).astype("str")


def _schema(extra_age_leaves: tuple[str, ...] = ("unknown",)) -> Schema:
    """Age's hierarchy holds every age 20…59 and ``extra_age_leaves`` (absent from the data: a text among them
    would make the column categorical if the absent leaves were read as the column's values)."""
    ages = [[str(a), f"{a // 10 * 10}s", "*"] for a in range(20, 60)] + [[x, "other", "*"] for x in extra_age_leaves]
    return Schema.of(quasi=["age", "education"], sensitive=["disease"],
                     hierarchies={"age": Hierarchy(ages, name="age"),
                                  "education": Hierarchy([[e, "any", "*"] for e in EDUCATION], name="education")})


def _digest(t: Table) -> tuple:
    """What an encoding gives the rest of a run."""
    return (t.codes.tobytes(), str(t.codes.dtype), t.presuppressed.tobytes(), tuple(t.warnings), repr(t.schema),
            {k: v.tobytes() for k, v in t.numeric.items()},
            {k: v.tobytes() for k, v in t.sensitive_codes.items()},
            [[list(level) for level in h.labels] for h in t.hierarchies],
            t.distinct.tuples.tobytes(), t.distinct.inverse.tobytes())


def _general(monkeypatch: pytest.MonkeyPatch, frame: pd.DataFrame, schema: Schema, **kw) -> tuple | tuple[str, str]:
    """The general encoding's answer (the leaf lookup switched off): a digest, or the error's text."""
    with monkeypatch.context() as m:
        m.setattr(table_module, "leaf_columns", lambda *a: {})
        return _answer(frame, schema, **kw)


def _answer(frame: pd.DataFrame, schema: Schema, **kw) -> tuple | tuple[str, str]:
    try:
        return _digest(Table(frame, schema, **kw))
    except Exception as exc:  # (the error is part of the answer)
        return ("error", str(exc))


def _looked_up(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The columns :func:`arrow_leaves.arrow_leaf_codes` coded (it returned codes for them)."""
    found: list[str] = []
    original = arrow_leaves.arrow_leaf_codes

    def spy(column, hierarchy, strip):  # type: ignore[no-untyped-def]
        out = original(column, hierarchy, strip)
        if out is not None:
            found.append(str(column.name))
        return out

    monkeypatch.setattr(arrow_leaves, "arrow_leaf_codes", spy)
    return found


def test_the_leaf_lookup_gives_the_general_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    # age: leaves absent from the data (renumbered codes, a text leaf that must not make it categorical);
    # education: every leaf present (the leaf codes are the codes)
    frame, schema = _frame(1), _schema()
    found = _looked_up(monkeypatch)
    fast = _answer(frame, schema)
    assert found == ["age", "education"]
    assert fast == _general(monkeypatch, frame, schema)
    assert "'age': Attribute(name='age', role=<Role.QUASI: 'quasi'>, type=<AttrType.NUMERIC" in fast[4]


@pytest.mark.parametrize("missing", ["value", "suppress", "error"])
def test_an_empty_leaf_and_its_missing_cells(monkeypatch: pytest.MonkeyPatch, missing: str) -> None:
    """``""`` as a leaf: the missing cells are found (counted, suppressed up front, refused) as the general
    encoding finds them; without an empty cell, no missing value is reported."""
    schema = _schema(("",))
    for frame in (_frame(2), _frame(2).assign(age=lambda f: f["age"].where(f.index % 7 != 3, ""))):
        found = _looked_up(monkeypatch)
        assert _answer(frame, schema, missing=missing) == _general(monkeypatch, frame, schema, missing=missing)
        assert found[:1] == ["age"]


@pytest.mark.parametrize("strip", [True, False])
def test_whitespace_around_a_leaf(monkeypatch: pytest.MonkeyPatch, strip: bool) -> None:
    """A leaf `` 23`` present in the data: stripped to ``23`` by the general encoding (so the lookup steps
    aside), kept as it is without ``strip`` (then the lookup codes it)."""
    schema = _schema((" 23",))
    frame = _frame(3).assign(age=lambda f: f["age"].where(f.index % 5 != 1, " 23"))
    found = _looked_up(monkeypatch)
    fast = _answer(frame, schema, strip=strip)
    assert fast == _general(monkeypatch, frame, schema, strip=strip)
    assert ("age" in found) is (not strip)


def test_what_the_lookup_leaves_to_the_general_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cell that is no leaf, a missing cell, object columns: the general encoding, with its error or codes."""
    schema = _schema()
    cases = {
        "no leaf": _frame(4).assign(education=lambda f: f["education"].where(f.index != 9, "PhD")),
        "missing cell": _frame(4).assign(education=lambda f: f["education"].where(f.index != 9, None)),
        "objects": _frame(4).astype(object),
    }
    for name, frame in cases.items():
        found = _looked_up(monkeypatch)
        assert _answer(frame, schema) == _general(monkeypatch, frame, schema), name
        assert "education" not in found, name


def test_a_hierarchy_edited_in_place_is_looked_up_anew(monkeypatch: pytest.MonkeyPatch) -> None:
    """The leaves' pyarrow array is made again when the hierarchy's refresh sees its leaves changed in place."""
    frame, schema = _frame(5), _schema()
    h = schema["education"].hierarchy
    assert h is not None
    _answer(frame, schema)
    h.labels[0][:] = h.labels[0][::-1]  # the leaves renamed in place (each leaf now another's text)
    found = _looked_up(monkeypatch)
    assert _answer(frame, schema) == _general(monkeypatch, frame, schema)
    assert "education" in found


def test_a_waiting_frame_is_decided_by_its_outline(monkeypatch: pytest.MonkeyPatch) -> None:
    """New data of a kept input's outline waits for its second call without its dtypes read; its second call
    keeps it (and reads them)."""
    monkeypatch.setattr(reuse, "KEEP_AT_SECOND_CALL", True)
    schema, settings = _schema(), (None, "value", True, "error")
    first = _frame(6)
    reuse.keep_table(first, schema, settings, Table(first, schema))
    shapes = counted_calls(monkeypatch, reuse, "_shape")
    other = _frame(7).astype({"disease": object})  # (another dtype too: it waits all the same)
    deferred, kept = reuse.COUNTS.deferred, reuse.COUNTS.kept
    reuse.keep_table(other, schema, settings, Table(other, schema))
    assert (reuse.COUNTS.deferred, reuse.COUNTS.kept, len(shapes)) == (deferred + 1, kept, 0)
    reuse.keep_table(other, schema, settings, Table(other, schema))  # its second call
    assert (reuse.COUNTS.deferred, reuse.COUNTS.kept, len(shapes)) == (deferred + 1, kept + 1, 1)
    assert reuse.reused_table(other, schema, settings) is not None


def test_a_frame_of_objects_is_not_looked_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """Object columns: no lookup tried, every hierarchy refreshed once (by the general encoding); pyarrow text
    columns: every hierarchy refreshed once (by the lookup)."""
    from anonkit.hierarchy import Hierarchy as H

    schema = _schema()
    for frame, lookups in ((_frame(8).astype(object), 0), (_frame(8), 2)):
        tried = counted_calls(monkeypatch, arrow_leaves, "arrow_leaf_codes")
        refreshed = counted_calls(monkeypatch, H, "refresh")
        Table(frame, schema)
        assert (len(tried), len(refreshed)) == (lookups, 2)
        monkeypatch.undo()


_CELLS = ["HS", "College", "Masters", "Doctorate", "", " HS", "HS ", "hs", "Phd", "日本", "College  "]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cells=st.lists(st.sampled_from(_CELLS), min_size=1, max_size=40),
       leaves=st.lists(st.sampled_from(_CELLS), min_size=1, max_size=8, unique=True),
       strip=st.booleans(), missing=st.sampled_from(["value", "suppress", "error"]),
       dtype=st.sampled_from(["str", "string[pyarrow]"]))
def test_random_text_columns_encode_as_the_general_path(monkeypatch: pytest.MonkeyPatch, cells: list[str],
                                                        leaves: list[str], strip: bool, missing: str,
                                                        dtype: str) -> None:
    """Whatever the cells and the leaves (texts that are no leaf, leaves the data lacks, empty cells, whitespace
    around a text with and without ``strip``, case variants, non-ASCII), the leaf lookup's table, warnings and
    errors are the general encoding's."""
    frame = pd.DataFrame({"education": cells, "disease": ["flu"] * len(cells)}).astype(dtype)
    schema = Schema.of(quasi=["education"], sensitive=["disease"],
                       hierarchies={"education": Hierarchy([[v, "any", "*"] for v in leaves], name="education")})
    kw = {"strip": strip, "missing": missing}
    assert _answer(frame.copy(), schema, **kw) == _general(monkeypatch, frame.copy(), schema, **kw)
