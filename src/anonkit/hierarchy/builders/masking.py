"""The masking builder: character redaction, e.g. of ZIP codes.

Mirrors ARX's ``HierarchyBuilderRedactionBased`` in ``org.deidentifier.arx.aggregates`` (ARX
compatibility notes §2.6), with its default alignment (values padded on the right). The conventions
shared by all builders are described in :mod:`anonkit.hierarchy.builders`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.hierarchy._core import Hierarchy
from anonkit.hierarchy.builders._shared import _check_choice, _check_int, _column, _first_bad, _grid


def masking(
    values: Iterable[object],
    *,
    levels: int | None = None,
    direction: str = "right",
    char: str = "*",
    pad: str | None = None,
    name: str | None = None,
) -> Hierarchy:
    """Character masking (redaction), mirroring ARX's ``HierarchyBuilderRedactionBased``.

    Level ``i`` replaces ``i`` characters by ``char``: the last ``i`` for ``direction="right"``
    (``47677`` → ``4767*`` → ``476**`` …), the first ``i`` for ``"left"``. As in ARX's default
    alignment (left to right), shorter values are padded on the right with ``pad`` to the length of
    the longest value before masking; the leaf keeps the unpadded value.

    Parameters
    ----------
    values:
        The column's values; the leaves are their distinct texts, sorted as text.
    levels:
        Height of the result, 1 ≤ ``levels`` ≤ the longest value's length. Default: that length, so
        the top is all ``char`` (a single node).
    direction:
        ``"right"`` (mask from the end) or ``"left"`` (mask from the start).
    char:
        The masking character.
    pad:
        Padding character. Without it, all values must have the same length.
    name:
        The attribute's name, for error messages.

    Raises
    ------
    InputError
        If ``pad`` is not given and a value's length differs from the first value's (naming the first
        such value in data order and its 1-based row), or for an invalid parameter.
    """
    _check_choice(direction, "direction", name, ("right", "left"))
    char = _check_char(char, "char", name)
    if pad is not None:
        pad = _check_char(pad, "pad", name)
    texts, rows, missing = _column(values, name)
    series = pd.Series(texts.tolist(), dtype="str")
    lengths = series.str.len().to_numpy(dtype=np.int64)
    width = int(lengths.max())
    if pad is None:
        _check_same_length(lengths, texts, rows, name)
    height = width if levels is None else _check_int(levels, "levels", name, minimum=1)
    if height > width:
        raise InputError(
            f"levels must be at most the length of the longest value ({width})",
            column=name,
            key="levels",
            value=levels,
        )
    perm = np.argsort(texts, kind="stable")
    series = series.iloc[perm].reset_index(drop=True)
    padded = series.str.pad(width, side="right", fillchar=pad) if pad is not None else series
    columns = []
    for i in range(1, height + 1):
        masked = padded.str.slice(0, width - i) + char * i if direction == "right" else char * i + padded.str.slice(i)
        columns.append(masked.to_numpy(dtype=object))
    grid = _grid(texts[perm], columns, missing, top_single=height == width)
    return Hierarchy(grid, name=name, source="(masking)")


def _check_char(value: object, key: str, name: str | None) -> str:
    """``value``; an error naming ``key`` unless it is a single character."""
    if not isinstance(value, str) or len(value) != 1:
        raise InputError(f"{key} must be a single character", column=name, key=key, value=value)
    return value


def _check_same_length(lengths: np.ndarray, texts: np.ndarray, rows: np.ndarray, name: str | None) -> None:
    """An error naming the first value (in data order) whose length differs from the first value's."""
    first_len = lengths[np.argmin(rows)]
    bad = lengths != first_len
    if bad.any():
        value, row = _first_bad(bad, texts, rows)
        raise InputError(
            f"values to mask must all have the same length ({len(value)} characters here, "
            f"{first_len} in the first value); give pad= to pad shorter values",
            column=name,
            value=value,
            row=row,
        )
