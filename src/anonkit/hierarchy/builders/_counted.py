"""The distinct values of a column with how many records hold each: what the builders that look at
frequencies (:mod:`~anonkit.hierarchy.builders.ranges`, :mod:`~anonkit.hierarchy.builders.frequency`,
:mod:`~anonkit.hierarchy.builders.bins`) read. Leaves are canonical texts as for every builder
(:mod:`anonkit.hierarchy.builders`): ``1`` and ``"1"`` are one value, every missing kind is ``""``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from anonkit._values import cell_text
from anonkit.errors import InputError


def counted_texts(values: Iterable[object], name: str | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """The distinct non-missing texts of ``values`` (in order of first occurrence), how many records
    hold each, the 0-based row of each one's first occurrence, and the missing texts (``[""]`` when
    some value is missing). Values are factorized first, so ``cell_text`` runs once per distinct value."""
    if isinstance(values, pd.DataFrame):
        raise InputError("a hierarchy is built from one column, not a table", column=name)
    series = values.reset_index(drop=True) if isinstance(values, pd.Series) else pd.Series(list(values), dtype=object)
    if series.empty:
        raise InputError("no values to build a hierarchy from", column=name)
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    present = codes >= 0
    texts_u = np.array([cell_text(u) for u in uniques], dtype=object)
    n_codes = np.bincount(codes[present], minlength=len(uniques))
    first_row = np.full(len(uniques), len(series), dtype=np.int64)
    np.minimum.at(first_row, codes[present], np.flatnonzero(present))
    frame = pd.DataFrame({"text": texts_u, "n": n_codes, "row": first_row}).sort_values("row", kind="stable")
    missing = [""] if (~present).any() or (texts_u == "").any() else []
    frame = frame[frame["text"] != ""].groupby("text", sort=False).agg(n=("n", "sum"), row=("row", "min"))
    if frame.empty:
        raise InputError("every value is missing; nothing to build a hierarchy from", column=name)
    return (frame.index.to_numpy(dtype=object), frame["n"].to_numpy(dtype=np.int64),
            frame["row"].to_numpy(dtype=np.int64), missing)
