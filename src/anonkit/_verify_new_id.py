"""The independent check of a release's new-id columns (role new-id, sdcMicro's ``createNewID``).

What :mod:`anonkit.pseudonyms` promises of a new-id column, recounted from the published table, the
input and the private link of each published row to its input record (never published):

* **a bijection** of the original's distinct values: every original value is published as exactly one
  id, and every published id stands for exactly one original value (a person's rows stay linked, two
  persons are never merged);
* **nothing of the original**: no published id is an original value of the column (the ids are drawn,
  never derived);
* **the documented shape**: every id is :data:`anonkit.pseudonyms.NEW_ID_CHARS` lower-case hexadecimal
  digits.

A table of persons (angelization's QT, one row per person) publishes a person's ids as the set
``{a;b}`` of its records' ids (:mod:`anonkit.algorithms._carried`). There the bijection is checked
from the person link (every published row's person, every input record's person): each person's
cell holds as many ids as its records have distinct values, and the ids can be matched one to one
with the values so that every person's set is the image of its values — an id and the value it
stands for must occur for the same persons, so, grouped by the persons they occur for, ids and
values must be equally many in every group (that is also sufficient; which id of a set stands for which
of the person's values is not published, so not checked). Without the person link (a
per-person table checked with the records' link only) the shape and the no-leak promises are checked
and the number of ids is at most the number of original values.

A failure is a bug, never a user error: the runner raises it as a failed verification.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from anonkit.pseudonyms import NEW_ID_CHARS

_TOKEN = re.compile(rf"[0-9a-f]{{{NEW_ID_CHARS}}}")


def _text(column: pd.Series) -> pd.Series:
    """Cells as stripped text (the reading :mod:`anonkit.pseudonyms` gives an id column)."""
    return column.astype(object).map(lambda v: "" if v is None or (isinstance(v, float) and np.isnan(v))
                                     else str(v).strip()).reset_index(drop=True)


def new_id_problems(original: pd.DataFrame, published: pd.DataFrame, rows: np.ndarray,
                    columns: Sequence[str]) -> list[str]:
    """What is wrong with the new-id ``columns`` of ``published`` (empty: nothing). ``rows`` is the
    input record of every published row (the private link). A column absent from ``published`` (a
    table that does not carry it) has nothing to check."""
    problems: list[str] = []
    rows = np.asarray(rows, dtype=np.int64)
    for name in columns:
        if name not in published.columns:
            continue
        if len(rows) != len(published):
            problems.append(f"{name}: {len(published)} published rows but {len(rows)} links to the input")
            continue
        pub = _text(published[name])
        orig = _text(original[name].iloc[rows])
        bad = pub[~pub.map(lambda t: bool(_TOKEN.fullmatch(t)))]
        if len(bad):
            problems.append(f"{name}: a published id is not {NEW_ID_CHARS} hexadecimal digits (row {bad.index[0] + 1})")
        pairs = pd.DataFrame({"o": orig, "p": pub})
        if (pairs.groupby("o")["p"].nunique() > 1).any():
            problems.append(f"{name}: an original value is published as two different ids")
        if (pairs.groupby("p")["o"].nunique() > 1).any():
            problems.append(f"{name}: one published id stands for two original values")
        leaked = set(pub) & set(_text(original[name]))
        if leaked:
            problems.append(f"{name}: a published id is an original value of the column")
    return problems


def _ids_of(cell: str) -> list[str]:
    """The ids of a published cell: one id, a person's set ``{a;b}``, or none (empty)."""
    if cell.startswith("{") and cell.endswith("}"):
        return cell[1:-1].split(";")
    return [cell] if cell else []


def person_new_id_problems(original: pd.DataFrame, published: pd.DataFrame, row_person: np.ndarray | None,
                           record_person: np.ndarray | None, columns: Sequence[str]) -> list[str]:
    """What is wrong with the new-id ``columns`` of a table of persons (empty: nothing). ``row_person``
    is every published row's person (−1: a made-up person, whose cell must be empty or ids of no value),
    ``record_person`` every input record's; without them only the shape, no-leak and count are checked."""
    problems: list[str] = []
    for name in columns:
        if name not in published.columns:
            continue
        cells = [_ids_of(t) for t in _text(published[name])]
        orig_text = _text(original[name])
        tokens = [t for ids in cells for t in ids]
        bad = [t for t in tokens if not _TOKEN.fullmatch(t)]
        if bad:
            problems.append(f"{name}: a published id is not {NEW_ID_CHARS} hexadecimal digits ({bad[0]!r})")
        if set(tokens) & set(orig_text):
            problems.append(f"{name}: a published id is an original value of the column")
        values = set(orig_text) - {""}
        if row_person is None or record_person is None:
            if len(set(tokens)) > len(values):
                problems.append(f"{name}: {len(set(tokens))} published ids for {len(values)} original values")
            continue
        who = np.asarray(row_person, dtype=np.int64)
        pid = pd.DataFrame({"p": np.repeat(who, [len(c) for c in cells]), "v": tokens}).query("p >= 0")
        pov = pd.DataFrame({"p": np.asarray(record_person), "v": orig_text}).query("v != ''")
        pov = pov[pov["p"].isin(set(who[who >= 0].tolist()))].drop_duplicates()
        pid = pid.drop_duplicates()
        if not pid.groupby("p").size().equals(pov.groupby("p").size().reindex(pid["p"].unique()).fillna(0)
                                              .astype(int).sort_index()) or set(pid["p"]) != set(pov["p"]):
            problems.append(f"{name}: a person's published ids are not as many as its distinct original values")
            continue
        sig_ids = pid.groupby("v")["p"].agg(lambda p: tuple(sorted(p))).value_counts().sort_index()
        sig_vals = pov.groupby("v")["p"].agg(lambda p: tuple(sorted(p))).value_counts().sort_index()
        if not sig_ids.equals(sig_vals):
            problems.append(f"{name}: the persons' published ids are not one id per original value")
    return problems


def check_new_ids(original: object, published: object, rows: np.ndarray, columns: Sequence[str], *,
                  persons: tuple[np.ndarray, np.ndarray] | None = None) -> None:
    """:func:`new_id_problems` of a one-table release, raised as ``AssertionError`` (a bug: the runner
    never returns such a release). A table of persons — ``persons`` given (every published row's
    person, every input record's), or a table with fewer rows than ``rows`` links records — is checked
    by :func:`person_new_id_problems`. A release that is not a table is left alone."""
    if not columns or not isinstance(published, pd.DataFrame) or not isinstance(original, pd.DataFrame):
        return
    if persons is not None or len(published) != len(rows):
        row_person, record_person = persons if persons is not None else (None, None)
        problems = person_new_id_problems(original, published, row_person, record_person, columns)
    else:
        problems = new_id_problems(original, published, rows, columns)
    if problems:
        raise AssertionError("the release failed independent verification of its new ids: " + "; ".join(problems))
