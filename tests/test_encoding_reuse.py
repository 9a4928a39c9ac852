"""The encoding of an unchanged input reused across ``anonymize()`` calls (``anonkit.runner._encoding_reuse``).

Every way a frame or schema can change between two calls is tried: each must be seen (the second call
encodes again) or be no change at all (reused), and the release after it must equal the one a process
without reuse makes. Reuse is shown by the module's counters, never by timing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit import Hierarchy, Schema, anonymize
from anonkit.models import KAnonymity
from anonkit.runner import _encoding_reuse as reuse

ZIPS = ["47677", "47602", "47678", "47905", "47909", "47906"]


def _frame(n: int = 48, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "age": np.array([str(int(a)) for a in rng.integers(20, 60, n)], dtype=object),  # object: as load_adult
        "zip": np.array([ZIPS[i] for i in rng.integers(0, len(ZIPS), n)], dtype=object),
        "sex": pd.Categorical([("f", "m")[i] for i in rng.integers(0, 2, n)]),
        "disease": np.array([("flu", "ulcer", "cancer", "gastritis")[i] for i in rng.integers(0, 4, n)], dtype=object),
        "income": rng.integers(1000, 9000, n).astype(np.int64),
        "note": pd.array([f"n{i % 7}" for i in range(n)], dtype="string[pyarrow]"),
    })
    return frame.astype({"age": object, "zip": object, "disease": object})  # pandas would make them Arrow text


def _schema() -> Schema:
    age = Hierarchy([[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 60)])
    zips = Hierarchy([[z, z[:4] + "*", z[:3] + "**", "*"] for z in ZIPS])
    return Schema.of(quasi=["age", "zip", "sex"], sensitive=["disease"], insensitive=["income", "note"],
                     hierarchies={"age": age, "zip": zips})


def _run(frame: pd.DataFrame, schema: Schema, **kw: object) -> tuple[str, dict]:
    options = {"max_suppression": 0.2, "seed": 3, **kw}
    r = anonymize(frame, schema, [KAnonymity(3)], algorithm="flash", **options)  # type: ignore[arg-type]
    summary = {k: v for k, v in r.summary.items() if k != "seconds"}
    return r.frame.to_csv(index=False), summary


def _fresh(frame: pd.DataFrame, schema: Schema, **kw: object) -> tuple[str, dict]:
    """The release a process without reuse makes (nothing kept, nothing read)."""
    saved = reuse.REUSE_ENCODINGS
    reuse.REUSE_ENCODINGS = False
    try:
        hits = reuse.COUNTS.hits
        out = _run(frame, schema, **kw)
        assert reuse.COUNTS.hits == hits
        return out
    finally:
        reuse.REUSE_ENCODINGS = saved


@pytest.fixture(autouse=True)
def _empty() -> None:
    reuse.clear()


def _writable(values: np.ndarray) -> np.ndarray:
    values.flags.writeable = True  # pandas hands out read-only views; a user can still write through one
    return values


def _set_cell(frame: pd.DataFrame, column: str, value: object) -> None:
    frame.loc[5, column] = value


# (what is changed, the edit: (frame, schema) → (frame, schema, options), whether the change alters the release)
EDITS = {
    "cell set through .loc": (lambda f, s: (_set_cell(f, "zip", "47905" if f.loc[5, "zip"] != "47905" else "47602")
                                            or f, s, {}), True),
    "cell set through .iat to an equal text, another object": (
        lambda f, s: (f.iat.__setitem__((7, 0), "".join(list(f.iat[7, 0]))) or f, s, {}), False),
    "insensitive cell set through .iloc": (lambda f, s: (f.iloc.__setitem__((3, 4), 1) or f, s, {}), True),
    "number written through .to_numpy()": (
        lambda f, s: (_writable(f["income"].to_numpy()).__setitem__(2, 7) or f, s, {}), True),
    "number written through .values": (lambda f, s: (_writable(f["income"].values).__setitem__(9, 5) or f, s, {}),
                                       True),
    "column replaced": (lambda f, s: (f.assign(disease=f["disease"].to_numpy()[::-1].copy()), s, {}), True),
    "column added": (lambda f, s: (f.assign(extra=1), Schema({**s.attributes}, "insensitive"), {}), True),
    "column dropped": (lambda f, s: (f.drop(columns="note"), Schema({k: a for k, a in s.attributes.items()
                                                                     if k != "note"}), {}), True),
    "column renamed": (lambda f, s: (f.rename(columns={"note": "memo"}),
                                     Schema({**{k: a for k, a in s.attributes.items() if k != "note"},
                                             "memo": s.attributes["note"]}, "insensitive"), {}), True),
    "columns reordered": (lambda f, s: (f[list(f.columns)[::-1]], s, {}), True),
    "rows reordered": (lambda f, s: (f.iloc[::-1].reset_index(drop=True), s, {}), True),
    "rows appended": (lambda f, s: (pd.concat([f, f.iloc[:3]], ignore_index=True), s, {}), True),
    "dtype changed": (lambda f, s: (f.assign(income=f["income"].astype(np.float64) + 0.5), s, {}), True),
    "categorical cell changed": (lambda f, s: (f.assign(sex=f["sex"].cat.rename_categories({"f": "m", "m": "f"})),
                                               s, {}), True),
    "categorical codes written in place": (
        lambda f, s: (_writable(np.asarray(f["sex"].array.codes)).__setitem__(0, 1 - f["sex"].array.codes[0])
                      or f, s, {}), True),
    "arrow text cell set": (lambda f, s: (f.iat.__setitem__((4, 5), "other") or f, s, {}), True),
    "arrow text cell set to its own text": (lambda f, s: (f.iat.__setitem__((4, 5), "".join(list(f.iat[4, 5])))
                                                          or f, s, {}), False),
    "hierarchy edited in place": (lambda f, s: (f, _regroup_ages(s), {}), True),
    "attribute edited in place": (lambda f, s: (f, _limit_zip(s), {}), True),
    "another seed": (lambda f, s: (f, s, {"seed": 4}), True),
    "another missing policy": (lambda f, s: (f.assign(age=f["age"].where(f.index != 0, "")), s,
                                             {"missing": "suppress"}), True),
    "strip off": (lambda f, s: (f, s, {"strip": False}), False),
    "unchanged (the control)": (lambda f, s: (f, s, {}), False),
    "a copy of the frame (the same cells)": (lambda f, s: (f.copy(), s, {}), False),
    "an equal schema built again": (lambda f, s: (f, _schema(), {}), False),
}
#: the edits after which the input is the one encoded before: reused
REUSED = {"unchanged (the control)", "arrow text cell set to its own text", "a copy of the frame (the same cells)",
          "an equal schema built again"}


def _regroup_ages(schema: Schema) -> Schema:
    h = schema["age"].hierarchy
    assert h is not None
    h.labels[2][0] = "any age"  # the top label, renamed in place
    return schema


def _limit_zip(schema: Schema) -> Schema:
    schema["zip"].max_level = 1
    return schema


@pytest.mark.parametrize("name", list(EDITS))
def test_an_edit_between_calls_is_seen_and_the_release_is_a_fresh_ones(name: str) -> None:
    frame, schema = _frame(), _schema()
    first = _run(frame, schema)
    assert reuse.COUNTS.kept >= 1
    edit, changes = EDITS[name]
    frame2, schema2, kw = edit(frame, schema)
    hits = reuse.COUNTS.hits
    got = _run(frame2, schema2, **kw)
    assert reuse.COUNTS.hits == hits + (name in REUSED), name
    assert got == _fresh(frame2, schema2, **kw)
    if changes:  # the edit changes the release, so a wrong reuse could not pass unseen
        assert got != first
    elif name in REUSED:
        assert got == first


def test_a_run_keeps_the_input_it_encoded_and_the_next_call_reuses_it() -> None:
    frame, schema = _frame(), _schema()
    a = anonymize(frame, schema, [KAnonymity(3)], max_suppression=0.2)
    b = anonymize(frame, schema, [KAnonymity(2)], max_suppression=0.2)  # another model, the same input
    assert reuse.COUNTS.hits >= 1 and b.release.table is a.release.table


def test_switched_off_nothing_is_kept_or_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reuse, "REUSE_ENCODINGS", False)
    frame, schema = _frame(), _schema()
    kept, hits = reuse.COUNTS.kept, reuse.COUNTS.hits
    _run(frame, schema)
    _run(frame, schema)
    assert (reuse.COUNTS.kept, reuse.COUNTS.hits) == (kept, hits)


def test_at_most_the_last_inputs_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reuse, "REUSED_INPUTS", 2)
    monkeypatch.setattr(reuse, "KEEP_AT_SECOND_CALL", False)  # (every miss kept at its first call)
    frames = [_frame(seed=i) for i in range(3)]
    schema = _schema()
    for f in frames:
        _run(f, schema)
    hits = reuse.COUNTS.hits
    _run(frames[2], schema)
    _run(frames[1], schema)
    assert reuse.COUNTS.hits == hits + 2
    _run(frames[0], schema)  # the oldest was let go
    assert reuse.COUNTS.hits == hits + 2


def test_a_large_input_is_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reuse, "REUSE_MAX_CELLS", 10)
    kept = reuse.COUNTS.kept
    _run(_frame(), _schema())
    assert reuse.COUNTS.kept == kept


class Box:
    """A cell that can change while it lives: a column of them cannot be proven unchanged."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


def test_a_column_of_objects_that_can_change_is_never_reused() -> None:
    """Kept without reading its cells' types (most kept inputs are never looked up), refused at the lookup
    by them: the next call encodes again and gives a fresh process's release."""
    frame, schema = _frame(), _schema()
    frame["note"] = [Box("a") for _ in range(len(frame))]
    hits = reuse.COUNTS.hits
    first = _run(frame, schema)
    for box in frame["note"]:
        box.text = "changed"  # the same objects, another text
    got = _run(frame, schema)
    assert got == _fresh(frame, schema) and got != first
    assert reuse.COUNTS.hits == hits


class Text(str):
    """A text whose own state (not the frame) can change what it says: ``infer_dtype`` calls it a string."""

    def __new__(cls, text: str) -> Text:
        out = super().__new__(cls, text)
        out.said = text
        return out

    def __str__(self) -> str:
        return self.said


def test_a_column_of_text_subclasses_is_never_reused() -> None:
    """Kept (its cells' types are not read then), refused at the first reuse by the cells' exact types: the
    next call encodes again and gives a fresh process's release, whatever the objects say by then."""
    frame, schema = _frame(), _schema()
    frame["zip"] = pd.Series([Text(z) for z in frame["zip"]], dtype=object)  # (pandas would make texts Arrow's)
    assert all(type(z) is Text for z in frame["zip"])
    _run(frame, schema)
    hits = reuse.COUNTS.hits
    for cell in frame["zip"]:
        cell.said = "47677"
    assert _run(frame, schema) == _fresh(frame, schema) and reuse.COUNTS.hits == hits
    plain = frame.assign(zip=pd.Series([str.__str__(z) for z in frame["zip"]], dtype=object))
    _run(plain, schema)  # (new data of a kept shape: kept at its second call, reuse.KEEP_AT_SECOND_CALL)
    _run(plain, schema)
    _run(plain, schema)  # the control: exact texts are reused
    assert reuse.COUNTS.hits == hits + 1


def test_a_masked_integer_column_is_not_kept_and_a_numpy_one_is() -> None:
    frame, schema = _frame(), _schema()
    unproven = reuse.COUNTS.unproven
    _run(frame.assign(income=frame["income"].astype("Int64")), schema)
    assert reuse.COUNTS.unproven == unproven + 1
    _run(frame, schema)  # the control: every column proven
    assert reuse.COUNTS.unproven == unproven + 1


def test_a_strided_object_column_is_proven_by_its_cells() -> None:
    """A column that is a strided view into a 2-D block of objects (one block for two text columns,
    column-major) is read cell by cell at its stride: the same cells reuse, one changed cell does not."""
    frame, schema = _frame(), _schema()
    block = np.asfortranarray(frame[["age", "zip"]].to_numpy())
    strided = frame.assign(age=block[:, 0], zip=block[:, 1])
    _run(strided, schema)
    hits = reuse.COUNTS.hits
    _run(strided, schema)
    assert reuse.COUNTS.hits == hits + 1
    strided.loc[1, "zip"] = "47909" if strided.loc[1, "zip"] != "47909" else "47677"
    got = _run(strided, schema)
    assert reuse.COUNTS.hits == hits + 1 and got == _fresh(strided, schema)


@settings(max_examples=12, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 47), st.sampled_from(["age", "zip", "disease", "income", "note"]),
                          st.integers(0, 5)), min_size=1, max_size=3))
def test_random_edits_give_a_fresh_processs_release(edits: list[tuple[int, str, int]]) -> None:
    reuse.clear()
    frame, schema = _frame(), _schema()
    _run(frame, schema)
    pools = {"age": [str(a) for a in range(20, 26)], "zip": ZIPS, "disease": ["flu", "ulcer", "cancer", "gastritis",
                                                                            "flu", "ulcer"],
             "income": list(range(6)), "note": [f"n{i}" for i in range(6)]}
    for row, column, pick in edits:
        frame.loc[row, column] = pools[column][pick]
    assert _run(frame, schema) == _fresh(frame, schema)


@pytest.mark.parametrize("change", ["added", "renamed", "label type"])
def test_a_column_added_or_renamed_under_a_default_role_is_seen(change: str) -> None:
    """With ``default_role`` the schema does not name every column, so the frame's own labels and columns
    must differ: a column added, a column renamed, a label of another type that prints the same."""
    frame = _frame().assign(**{"7": np.arange(48)})
    schema = Schema({k: a for k, a in _schema().attributes.items() if k != "income"}, "insensitive")
    first = _run(frame, schema)
    other = {"added": lambda: frame.assign(extra=np.arange(48) * 3),
             "renamed": lambda: frame.rename(columns={"income": "salary"}),
             "label type": lambda: frame.rename(columns={"7": 7})}[change]()
    hits = reuse.COUNTS.hits
    got = _run(other, schema)
    assert reuse.COUNTS.hits == hits and got == _fresh(other, schema)
    assert _run(frame, schema) == first and reuse.COUNTS.hits == hits + 1  # the control: the first frame again


def test_an_engine_object_given_by_the_caller_encodes_every_call() -> None:
    """A caller that hands ``anonymize()`` its own engine object (``anonkit explore``'s comparison without
    reuse) has chosen how to encode: nothing is kept or reused; the engine named by text reuses."""
    from anonkit.engines.local import LocalEngine

    frame, schema = _frame(), _schema()
    kept, hits = reuse.COUNTS.kept, reuse.COUNTS.hits
    for _ in range(2):
        anonymize(frame, schema, [KAnonymity(3)], max_suppression=0.2, engine=LocalEngine())
    assert (reuse.COUNTS.kept, reuse.COUNTS.hits) == (kept, hits)
    for _ in range(2):
        anonymize(frame, schema, [KAnonymity(3)], max_suppression=0.2, engine="local")
    assert (reuse.COUNTS.kept, reuse.COUNTS.hits) == (kept + 1, hits + 1)
