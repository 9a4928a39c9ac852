"""The encoding of a new frame of the same content (a file read again: every cell a new object) reused by
value (``anonkit.runner._encoding_reuse``: :data:`REUSE_BY_VALUE`), and the cheap rejection of another input.

Every fast path is shown by counters and by the calls it makes, never by timing; every reuse gives the
release a process without reuse makes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest

from anonkit import Hierarchy, Schema, anonymize
from anonkit.models import KAnonymity
from anonkit.runner import _encoding_reuse as reuse

ZIPS = ["47677", "47602", "47678", "47905", "47909", "47906"]
N = 96  # rows: more than PLAUSIBLE_CELLS, so a cell beyond the compared head can differ


def _texts(values: list[str]) -> np.ndarray:
    """An object column whose every cell is a new object (``"".join``: a copy of the text)."""
    return np.array(["".join(list(v)) for v in values], dtype=object)


def _frame(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": _texts([str(int(a)) for a in rng.integers(20, 60, N)]),
        "zip": _texts([ZIPS[i] for i in rng.integers(0, len(ZIPS), N)]),
        "disease": _texts([("flu", "ulcer", "cancer", "gastritis")[i] for i in rng.integers(0, 4, N)]),
        "note": _texts([f"n{i % 7}x" for i in range(N)]),
    }).astype(object)  # (pandas would make texts Arrow's)


def _again(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` read again: the same texts, every cell a new object."""
    return pd.DataFrame({c: _texts(list(frame[c])) for c in frame.columns}).astype(object)


def _schema() -> Schema:
    age = Hierarchy([[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 60)])
    zips = Hierarchy([[z, z[:4] + "*", z[:3] + "**", "*"] for z in ZIPS])
    return Schema.of(quasi=["age", "zip"], sensitive=["disease"], insensitive=["note"],
                     hierarchies={"age": age, "zip": zips})


def _run(frame: pd.DataFrame, schema: Schema) -> tuple[str, dict]:
    r = anonymize(frame, schema, [KAnonymity(3)], algorithm="flash", max_suppression=0.2, seed=3)
    return r.frame.to_csv(index=False), {k: v for k, v in r.summary.items() if k != "seconds"}


def _fresh(frame: pd.DataFrame, schema: Schema) -> tuple[str, dict]:
    """The release a process without reuse makes."""
    saved = reuse.REUSE_ENCODINGS
    reuse.REUSE_ENCODINGS = False
    try:
        return _run(frame, schema)
    finally:
        reuse.REUSE_ENCODINGS = saved


@pytest.fixture(autouse=True)
def _empty() -> None:
    reuse.clear()


@pytest.fixture
def value_checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every column :func:`_same_texts` compares (the value path's work)."""
    seen: list[int] = []
    real = reuse._same_texts

    def counted(now: np.ndarray, kept: np.ndarray) -> bool:
        seen.append(len(now))
        return real(now, kept)

    monkeypatch.setattr(reuse, "_same_texts", counted)
    return seen


def _cells_are_new(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    return all(x is not y for c in a.columns for x, y in zip(a[c], b[c], strict=True))


def test_a_frame_read_again_is_reused_by_value(value_checks: list[int]) -> None:
    frame, schema = _frame(), _schema()
    first = _run(frame, schema)
    again = _again(frame)
    assert _cells_are_new(frame, again)
    hits = reuse.COUNTS.hits
    got = _run(again, schema)
    assert reuse.COUNTS.hits == hits + 1 and N in value_checks  # every cell compared by value
    assert got == first == _fresh(again, schema)


def test_a_frame_read_again_is_encoded_when_reuse_by_value_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    frame, schema = _frame(), _schema()
    _run(frame, schema)
    monkeypatch.setattr(reuse, "REUSE_BY_VALUE", False)
    hits = reuse.COUNTS.hits
    again = _again(frame)
    assert _run(again, schema) == _fresh(again, schema) and reuse.COUNTS.hits == hits


def test_another_text_beyond_the_head_is_a_miss() -> None:
    """A cell past the first :data:`PLAUSIBLE_CELLS` differs: the head passes, every cell is compared and
    the frame is encoded again."""
    frame, schema = _frame(), _schema()
    first = _run(frame, schema)
    again = _again(frame)
    row = N - 3
    assert row >= reuse.PLAUSIBLE_CELLS
    again.loc[row, "zip"] = "47905" if again.loc[row, "zip"] != "47905" else "47602"
    hits = reuse.COUNTS.hits
    got = _run(again, schema)
    assert reuse.COUNTS.hits == hits and got == _fresh(again, schema) and got != first


class Said(str):
    """A text whose own state says another text (``__str__``) and that ``==`` calls equal to anything."""

    def __new__(cls, text: str, said: str) -> Said:
        out = super().__new__(cls, text)
        out.said = said
        return out

    def __str__(self) -> str:
        return self.said

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__


def test_a_cell_of_a_text_subclass_now_is_a_miss(value_checks: list[int]) -> None:
    """The cells' exact type is checked before ``==``, which a subclass answers as it likes."""
    frame, schema = _frame(), _schema()
    _run(frame, schema)
    again = _again(frame)
    row = N - 5
    again["note"] = pd.Series([*again["note"][:row], Said("zzz", "zzz"), *again["note"][row + 1:]], dtype=object)
    hits = reuse.COUNTS.hits
    got = _run(again, schema)
    assert reuse.COUNTS.hits == hits and got == _fresh(again, schema)


def test_a_kept_column_of_a_text_subclass_is_never_reused_by_value() -> None:
    """The kept cells must be exact texts too: a kept subclass's table is not the encoding of texts."""
    frame, schema = _frame(), _schema()
    frame["zip"] = pd.Series([Said(z, "47677") for z in frame["zip"]], dtype=object)
    _run(frame, schema)
    plain = frame.assign(zip=pd.Series(_texts([str.__str__(z) for z in frame["zip"]]), dtype=object))
    assert list(plain.dtypes) == list(frame.dtypes)  # (the same shape: only the cells' proof can refuse it)
    hits = reuse.COUNTS.hits
    assert _run(plain, schema) == _fresh(plain, schema) and reuse.COUNTS.hits == hits


def test_a_column_edited_in_place_is_not_compared_by_value(value_checks: list[int]) -> None:
    """The kept column with one cell set to an equal text that is another object: found by address, encoded
    again without a pass over its cells by value."""
    frame, schema = _frame(), _schema()
    _run(frame, schema)
    frame.iat[N - 2, 1] = "".join(list(frame.iat[N - 2, 1]))
    hits = reuse.COUNTS.hits
    got = _run(frame, schema)
    assert reuse.COUNTS.hits == hits and got == _fresh(frame, schema)
    assert value_checks == []


def test_another_input_is_rejected_by_its_head_before_the_schema(value_checks: list[int]) -> None:
    """A frame of the same shape and other texts (its first cells differ): rejected by the first cells
    alone, before the schema's content is compared and before any whole column is read."""
    frame, schema = _frame(), _schema()
    _run(frame, schema)
    compared: list[int] = []
    kept = reuse._KEPT[0]
    real: Callable[[Schema], bool] = kept.schema
    kept.schema = lambda s: compared.append(1) or real(s)  # type: ignore[method-assign, func-returns-value]
    other = _frame(seed=1)
    hits = reuse.COUNTS.hits
    got = _run(other, schema)
    assert reuse.COUNTS.hits == hits and got == _fresh(other, schema)
    assert compared == [] and value_checks and max(value_checks) <= reuse.PLAUSIBLE_CELLS
