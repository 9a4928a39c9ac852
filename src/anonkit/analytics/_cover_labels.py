"""How :mod:`anonkit.analytics.cover` reads one released label against a column's distinct original
values: ``*`` (every value), a hierarchy node, an interval (anonkit's ``[lo-hi]``, ARX's forms,
one-sided bounds; numbers or dates), a set ``{a,b}``, a mask ``130**`` or the exact value
(:class:`Resolver`; the rules are in the cover module's docstring). Numbers and dates are compared
on one numeric scale (days since 1970 for dates, read as the table reads them).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd

from anonkit._values import labels_look_numeric, read_dates
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.schema import AttrType, Schema

__all__ = ["WILDCARD", "Resolver", "label_kind"]

#: the label that covers every value, in every column
WILDCARD = "*"

_NUM = r"[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?)"
_DATE = r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?"


def _interval_patterns(bound: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    bracket = re.compile(rf"([\[(\]])\s*({bound})\s*(?:,|;|-|–|\.\.)\s*({bound})\s*([\])\[])")
    bare = re.compile(rf"({bound})\s*(?:-|–)\s*({bound})")
    side = re.compile(rf"(<=|>=|≤|≥|<|>)\s*({bound})")
    return bracket, bare, side


_NUMBER_FORMS = _interval_patterns(_NUM)
_DATE_FORMS = _interval_patterns(_DATE)
_NUMBER = re.compile(_NUM)
_EPOCH = pd.Timestamp("1970-01-01")
#: first characters of labels that must parse as an interval or a set
_STRUCTURED = frozenset("[(]<>{≤≥")


def label_kind(schema: Schema, name: str, values: np.ndarray) -> str:
    """How column ``name``'s labels are read: ``date`` or ``numeric`` as the schema declares it (an
    undeclared column whose distinct ``values`` all look like numbers is numeric), else
    ``categorical``."""
    attr = schema.attributes.get(name)
    t = attr.type if attr is not None else None
    if t == AttrType.DATE:
        return "date"
    if t == AttrType.NUMERIC or (t is None and labels_look_numeric(values)):
        return "numeric"
    return "categorical"


def _as_numbers(values: np.ndarray, kind: str, format: str | None = None) -> np.ndarray:
    """Numeric view of the distinct values (days since 1970 for dates); NaN where not a number. Dates
    are read as the table reads them (:func:`anonkit._values.read_dates`: the day/month order that fits
    every value, or ``format``); a column that is not all dates falls back to pandas' own reading."""
    if len(values) == 0:
        return np.zeros(0)
    texts = pd.Series(values, dtype=object)
    if kind == "date":
        present = (texts.astype(str).str.strip() != "").to_numpy()
        try:
            stamps = read_dates(texts[present].to_numpy(), None, format=format)
        except InputError:
            pass
        else:
            out = np.full(len(texts), np.nan)
            out[present] = ((stamps - _EPOCH).dt.total_seconds() / 86400.0).to_numpy(dtype=float)
            return out
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            stamps = pd.to_datetime(texts.where(texts != ""), errors="coerce", format="mixed")
        return ((stamps - _EPOCH).dt.total_seconds() / 86400.0).to_numpy(dtype=float)
    nums = pd.to_numeric(texts.where(texts.map(lambda s: bool(_NUMBER.fullmatch(str(s).strip())))), errors="coerce")
    return nums.to_numpy(dtype=float)


def _bound(text: str, kind: str) -> float:
    if kind == "date":
        return float((pd.Timestamp(text) - _EPOCH).total_seconds() / 86400.0)
    return float(text)


class Resolver:
    """Reads the labels of one column against its distinct original values: :meth:`resolve` gives
    the values a label covers (:func:`anonkit.analytics.cover.column_cover` builds the coverage
    matrix from it)."""

    def __init__(self, name: str, values: np.ndarray, hierarchy: Hierarchy | None, kind: str,
                 format: str | None = None) -> None:
        self.name = name
        self.values = values
        self.kind = kind
        self.hierarchy = hierarchy
        self.numbers = _as_numbers(values, kind, format)
        self.text_index = pd.Index(values, dtype=object)
        self.text_pos = {str(v): i for i, v in enumerate(values)}
        order = np.flatnonzero(~np.isnan(self.numbers))
        self.sorted_values = order[np.argsort(self.numbers[order], kind="stable")]
        self.sorted_numbers = self.numbers[self.sorted_values]
        self.forms = _DATE_FORMS if kind == "date" else _NUMBER_FORMS
        self.nodes: dict[str, list[np.ndarray]] = {}
        if hierarchy is not None:
            leaf = pd.Index(hierarchy.leaves, dtype=object).get_indexer(self.text_index)
            known = np.flatnonzero(leaf >= 0)
            for level in range(hierarchy.height + 1):
                anc = hierarchy.maps[level][leaf[known]]
                order = np.argsort(anc, kind="stable")
                starts = np.searchsorted(anc[order], np.arange(hierarchy.size(level) + 1))
                for code, label in enumerate(hierarchy.labels[level]):
                    members = known[order[starts[code]:starts[code + 1]]]
                    self.nodes.setdefault(str(label), []).append(members)

    def exact(self, text: str) -> np.ndarray | None:
        """Values named by ``text`` itself: a hierarchy node, the same text, the same number; None
        when ``text`` is neither a node nor a value nor (in a numeric column) a number."""
        found: list[np.ndarray] = list(self.nodes.get(text, []))
        pos = self.text_pos.get(text)
        if pos is not None:
            found.append(np.array([pos]))
        x = None
        if self.kind == "numeric" and _NUMBER.fullmatch(text):
            x = float(text)
        elif self.kind == "date" and re.fullmatch(_DATE, text):
            x = _bound(text, "date")
        if x is not None:
            lo = np.searchsorted(self.sorted_numbers, x, side="left")
            hi = np.searchsorted(self.sorted_numbers, x, side="right")
            found.append(self.sorted_values[lo:hi])
        if not found and text == "":
            found.append(np.zeros(0, dtype=np.int64))  # a missing cell absent from the table: covers nothing
        if not found:
            return None
        if len(found) == 1:
            return np.sort(np.asarray(found[0], dtype=np.int64))
        return np.unique(np.concatenate(found)).astype(np.int64)

    def interval(self, text: str) -> np.ndarray | None:
        bracket, bare, side = self.forms
        lo, hi, lo_closed, hi_closed = -np.inf, np.inf, True, True
        if m := bracket.fullmatch(text):
            lo, hi = _bound(m.group(2), self.kind), _bound(m.group(3), self.kind)
            lo_closed, hi_closed = m.group(1) == "[", m.group(4) == "]"
        elif m := bare.fullmatch(text):
            lo, hi = _bound(m.group(1), self.kind), _bound(m.group(2), self.kind)
        elif m := side.fullmatch(text):
            op, x = m.group(1), _bound(m.group(2), self.kind)
            if op in ("<", "<=", "≤"):
                hi, hi_closed = x, op != "<"
            else:
                lo, lo_closed = x, op != ">"
        else:
            return None
        if lo > hi:
            return None
        a = np.searchsorted(self.sorted_numbers, lo, side="left" if lo_closed else "right")
        b = np.searchsorted(self.sorted_numbers, hi, side="right" if hi_closed else "left")
        return np.sort(self.sorted_values[a:max(a, b)])

    def members(self, body: str) -> list[str]:
        if ";" in body and "," not in body:
            return [m.strip() for m in body.split(";")]
        by_comma = [m.strip() for m in body.split(",")]
        if ";" in body:
            by_semi = [m.strip() for m in body.split(";")]
            known = sum(self.exact(m) is not None for m in by_semi) / len(by_semi)
            if known > sum(self.exact(m) is not None for m in by_comma) / len(by_comma):
                return by_semi
        return by_comma

    def mask(self, text: str) -> np.ndarray:
        pattern = "".join("." if ch == WILDCARD else re.escape(ch) for ch in text)
        hits = pd.Series(self.values, dtype=object).astype(str).str.fullmatch(pattern, flags=re.DOTALL)
        return np.flatnonzero(hits.to_numpy(dtype=bool))

    def resolve(self, text: str, *, top: bool = True) -> np.ndarray | None:
        """The values a label covers (sorted codes), or None when it cannot be interpreted."""
        if text == WILDCARD:
            return np.arange(len(self.values), dtype=np.int64)
        found = self.exact(text)
        if found is not None:
            return found
        if top and len(text) >= 2 and text[0] == "{" and text[-1] == "}":
            parts = [self.resolve(m, top=False) for m in self.members(text[1:-1]) if m != ""]
            if any(p is None for p in parts):
                return None
            return np.unique(np.concatenate([*parts, np.zeros(0, dtype=np.int64)])).astype(np.int64)
        found = self.interval(text)
        if found is not None:
            return found.astype(np.int64)
        if WILDCARD in text:
            return self.mask(text)
        if self.kind == "categorical" and self.hierarchy is None and text[:1] not in _STRUCTURED:
            return np.zeros(0, dtype=np.int64)  # an exact value that does not occur here
        return None
