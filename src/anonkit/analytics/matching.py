"""The unsorted matching attack (Sweeney, "k-anonymity: a model for protecting privacy", IJUFKS
10(5), 2002, §4 "unsorted matching attack"; spec §2.8).

Two releases of one table, generalized differently, are published with their rows in the same
order. The attacker joins them by row position and intersects each row's cells column by column:
where one release generalized age and the other zip code, the joined row shows both exactly. The
defence is to shuffle the rows of every release with its own seed
(:meth:`anonkit.release.Release.to_frame`); the simulator shows what a positional join recovers.

What the attacker knows: the two published tables (and each attribute's hierarchy). What counts as
success on row ``i``: for every quasi-identifier the intersection of the two cells' covers
(:mod:`anonkit.analytics.cover`, over the values that occur in the original table) holds exactly one
value and it is the value of the record behind row ``i`` of the first release. The baseline is the
same join after shuffling the second release's rows at random: the chance agreement a join without
the row order gives.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from anonkit.analytics.cover import ColumnCover, column_covers, shared_values
from anonkit.analytics.outcome import AttackOutcome
from anonkit.errors import InputError
from anonkit.release import check_seed
from anonkit.schema import Schema

__all__ = ["unsorted_matching_attack"]


def _records(rows: ArrayLike | None, n_rows: int, n_records: int, key: str) -> np.ndarray:
    if rows is None:
        if n_rows > n_records:
            raise InputError(f"the releases have {n_rows} rows but the original table {n_records} records: give "
                             f"{key} (the original record of every released row)", key=key)
        return np.arange(n_rows, dtype=np.int64)
    out = np.asarray(rows, dtype=np.int64).reshape(-1)
    if len(out) != n_rows:
        raise InputError(f"{key} must name one original record per released row ({n_rows}), got {len(out)}", key=key)
    if len(out) and (out.min() < 0 or out.max() >= n_records):
        bad = int(np.flatnonzero((out < 0) | (out >= n_records))[0])
        raise InputError(f"{key} names a record outside the original table", key=key, value=int(out[bad]), row=bad + 1)
    return out


def _join(first: list[ColumnCover], second: list[ColumnCover], order: np.ndarray,
          records: np.ndarray) -> dict[str, np.ndarray]:
    """Per row of the first release joined with row ``order[i]`` of the second: pinned (every
    column's intersection is exactly the record's value), finer (strictly finer than either
    release alone and still holding the record), empty (some intersection holds nothing), and
    pinned by the first or second release alone."""
    n = len(records)
    pinned, finer_a, finer_b, truth, empty = (np.ones(n, bool), np.zeros(n, bool), np.zeros(n, bool),
                                              np.ones(n, bool), np.zeros(n, bool))
    alone_a, alone_b = np.ones(n, bool), np.ones(n, bool)
    for a, b in zip(first, second, strict=True):
        la, lb = a.label_codes, b.label_codes[order]
        v = a.value_codes[records]
        both = shared_values(a, b, la, lb)
        in_a, in_b = a.covers(la, v), b.covers(lb, v)
        truth &= in_a & in_b
        pinned &= (both == 1) & in_a & in_b
        finer_a |= both < a.sizes[la]
        finer_b |= both < b.sizes[lb]
        empty |= both == 0
        alone_a &= (a.sizes[la] == 1) & in_a
        alone_b &= (b.sizes[lb] == 1) & in_b
    return {"pinned": pinned, "finer": finer_a & finer_b & truth, "empty": empty, "first": alone_a,
            "second": alone_b}


def unsorted_matching_attack(
    first: pd.DataFrame,
    second: pd.DataFrame,
    original: pd.DataFrame,
    schema: Schema,
    *,
    first_rows: ArrayLike | None = None,
    second_rows: ArrayLike | None = None,
    columns: Sequence[str] | None = None,
    seed: int = 0,
) -> AttackOutcome:
    """Join ``first`` and ``second`` row by row and count the rows whose intersected cells pin
    every quasi-identifier to the original record's exact value.

    ``first_rows[i]`` is the record of ``original`` behind row ``i`` of ``first`` (default:
    record ``i``: releases in input order, :meth:`~anonkit.release.Release.generalized`); for a
    shuffled release it is :meth:`~anonkit.release.Release.published_rows`, which only the
    publisher knows: it judges the attack, the attacker never sees it. ``second_rows`` (optional)
    only reports how many positions hold the same record in both releases. ``columns`` are the
    quasi-identifiers to intersect (default: the schema's quasi-identifiers both releases publish).

    Success rate: pinned rows over all rows. Baseline: the same join with the second release's
    rows in a random order (``seed``). ``details``: ``finer`` (rows whose joined cells are strictly
    finer than either release alone and still hold the record), ``empty`` (rows where some
    intersection is empty: visible misalignment), ``pinned_first`` / ``pinned_second`` (rows one
    release alone pins), ``same_record`` (positions holding the same record, when
    ``second_rows`` is given).

    Raises
    ------
    InputError
        Releases of different lengths, a column missing from a table, a released cell that cannot
        be read, bad ``first_rows``/``second_rows``.
    """
    seed = check_seed(seed)
    if len(first) != len(second):
        raise InputError(f"the two releases have different numbers of rows ({len(first)} and {len(second)}); a "
                         "positional join needs releases of the same records", key="second")
    if columns is None:
        columns = [q for q in schema.quasi if q in first.columns and q in second.columns]
    names = [str(c) for c in columns]
    if not names:
        raise InputError("no quasi-identifier published by both releases to join on", key="columns")
    for name in names:
        for label, frame in (("first release", first), ("second release", second), ("original table", original)):
            if name not in frame.columns:
                raise InputError(f"column missing from the {label}", column=name)
    n = len(first)
    records = _records(first_rows, n, len(original), "first_rows")
    covers_a = column_covers(first, original, schema, names)
    covers_b = column_covers(second, original, schema, names)
    joined = _join(covers_a, covers_b, np.arange(n), records)
    shuffled = _join(covers_a, covers_b, np.random.default_rng(seed).permutation(n), records)
    details: dict[str, object] = {
        "columns": names,
        "rows": n,
        "finer": int(joined["finer"].sum()),
        "empty": int(joined["empty"].sum()),
        "pinned_first": int(joined["first"].sum()),
        "pinned_second": int(joined["second"].sum()),
        "baseline_finer": int(shuffled["finer"].sum()),
    }
    if second_rows is not None:
        other = _records(second_rows, n, len(original), "second_rows")
        details["same_record"] = int((other == records).sum())
    return AttackOutcome(
        name="unsorted-matching",
        successes=int(joined["pinned"].sum()),
        targets=n,
        baseline_successes=int(shuffled["pinned"].sum()),
        baseline_targets=n,
        details=details,
        note="the attacker joins two releases by row position; success: the intersected cells pin every "
             "quasi-identifier to the record's exact value",
    )
