"""A sensitive attribute's categories from a file (θ-sensitivity, paper D; spec §1.5, §4.5).

The file is a CSV table of two columns, the value and its category, whose first row is the header
(``diagnosis,category``); every value is listed once. The config's ``categories: FILE.csv`` and
``anonkit check --categories NAME=FILE`` read it.
"""

from __future__ import annotations

import os

import pandas as pd

from anonkit.errors import InputError
from anonkit.io.tables import read_table


def _text(cell: object) -> str:
    return "" if cell is None or (not isinstance(cell, str) and bool(pd.isna(cell))) else str(cell).strip()


def read_categories(path: str | os.PathLike[str], *, key: str | None = None, separator: str = ",") -> dict[str, str]:
    """``value → category`` from a two-column CSV file (header row first); an
    :class:`~anonkit.errors.InputError` naming the file (and row) for another shape, an empty cell
    or a value listed twice."""
    location = str(path)
    frame = read_table(location, format="csv", separator=separator)
    if frame.shape[1] != 2:
        raise InputError(f"a categories file has two columns (value, category), this one has {frame.shape[1]}",
                         file=location, key=key)
    out: dict[str, str] = {}
    for i, (value, category) in enumerate(zip(frame.iloc[:, 0], frame.iloc[:, 1], strict=True)):
        v, c = _text(value), _text(category)
        if not v or not c:
            raise InputError("an empty value or category", file=location, row=i + 2, key=key)
        if v in out:
            raise InputError("a value is listed twice", file=location, value=v, row=i + 2, key=key)
        out[v] = c
    return out
