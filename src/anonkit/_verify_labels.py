"""How the bucket verifier reads a published label against an original value
(:func:`anonkit.verify_buckets.verify_buckets` with the private link).

A quasi table's label is *truthful* for a person when it covers the person's original value
(:func:`label_covers`): the value itself, a hierarchy ancestor's label, ``*`` for an attribute
without a hierarchy, an interval ``[lo-hi]`` (numbers, or dates), a set ``{a,b}``. Numbers and
dates are compared exactly (:func:`exact_number`), never through floats, so a bound beyond 2⁵³
or a sub-second time cannot cover a value it does not hold. Like the verifier, this reads the
published text alone and shares no code with the algorithms.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

import numpy as np
import pandas as pd

from anonkit._values import read_dates
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.schema import AttrType

__all__ = ["date_texts", "exact_number", "label_covers", "labels_cover"]


def exact_number(text: str, kind: str | None) -> int | Decimal | None:
    """``text`` as an exact number (a date as integer nanoseconds since 1970-01-01, UTC when it
    names a time zone, when ``kind`` is ``date``), else None. Exact: a published bound and the
    value it must cover are compared without rounding (integers beyond 2⁵³, sub-second times)."""
    if kind == AttrType.DATE.value:
        try:
            stamp = pd.Timestamp(str(text).strip())
        except (ValueError, TypeError, OverflowError):
            return None
        if pd.isna(stamp):
            return None
        if stamp.tz is not None:
            stamp = stamp.tz_convert("UTC").tz_localize(None)
        return int(stamp.value)
    try:
        x = Decimal(str(text).strip())
    except (InvalidOperation, ValueError):
        return None
    return x if x.is_finite() else None


#: where a date interval's upper bound starts: ``-`` before a four-digit year and ``-``
_DATE_BOUND = re.compile(r"-(?=\d{4}-)")


def label_covers(label: str, value: str, hierarchy: Hierarchy | None = None, kind: str | None = None) -> bool:
    """Whether the published ``label`` truthfully covers the original ``value``: the value itself (as
    text, or as the same number), the label of one of its ancestors in ``hierarchy`` (``*`` when there
    is none: the trivial hierarchy ``{values} → *``), an interval ``[lo-hi]`` holding it (numbers,
    or dates when ``kind`` is ``date``), or a set ``{a,b}`` listing it."""
    label, value = str(label), str(value)
    if label == value:
        return True
    if hierarchy is not None:
        leaf = hierarchy.index().get(value)
        if leaf is not None:
            for level in range(1, hierarchy.height + 1):
                if hierarchy.labels[level][hierarchy.maps[level, leaf]] == label:
                    return True
    elif label == "*":
        return True
    if len(label) >= 2 and label[0] == "{" and label[-1] == "}":
        return value in label[1:-1].split(",")
    x = exact_number(value, kind)
    if x is None:
        return False
    if len(label) >= 2 and label[0] == "[" and label[-1] == "]":
        inner = label[1:-1]
        dates = kind == AttrType.DATE.value
        cuts = [m.start() for m in _DATE_BOUND.finditer(inner)] if dates else range(1, len(inner) - 1)
        for pos in cuts:
            if inner[pos] != "-" or pos < 1:
                continue
            lo, hi = exact_number(inner[:pos], kind), exact_number(inner[pos + 1:], kind)
            if lo is not None and hi is not None and lo <= hi:
                return lo <= x <= hi
        return False
    y = exact_number(label, kind)
    return y is not None and y == x


def date_texts(texts: np.ndarray, column: str, format: str | None) -> np.ndarray:
    """The source's date cells as ISO text, read as the table read them (:func:`anonkit._values.read_dates`:
    the day/month order that fits the whole column, or ``format``), so ``05/02/2020`` read day first is
    compared as 2020-02-05; cells that are not dates (missing ones) stay as they are."""
    present = np.array([str(t).strip() != "" for t in texts], dtype=bool)
    out = np.asarray(texts, dtype=object).copy()
    try:
        stamps = read_dates(out[present], column, format=format)
    except InputError:
        return out
    out[present] = [stamp.isoformat() for stamp in stamps]
    return out


def labels_cover(labels: np.ndarray, values: np.ndarray, hierarchy: Hierarchy | None, kind: str | None) -> np.ndarray:
    """:func:`label_covers` of every (label, value) pair, each distinct pair judged once."""
    pairs = pd.MultiIndex.from_arrays([pd.Index(labels, dtype=object), pd.Index(values, dtype=object)])
    codes, uniq = pd.factorize(pairs)
    verdict = np.array([label_covers(a, b, hierarchy, kind) for a, b in uniq], dtype=bool)
    return verdict[codes] if len(codes) else np.zeros(0, dtype=bool)
