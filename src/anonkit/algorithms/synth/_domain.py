"""The declared domain of every synthesized column, and the codes the model works on.

The rule (issue 29): the domain is declared in the config, never read from the data — reading the
categories or the range of a column from the data would itself leak (a rare category names the one
record that holds it) and would need budget. So every synthesized column declares one of

* ``{categories: [a, b, …]}`` — its values, compared as text (``3`` and ``"3"`` are the same value);
* ``{bounds: [lo, hi], bins: n, integer: true|false}`` — a numeric range cut into ``n`` equal bins
  (default :data:`DEFAULT_BINS`); a value ``x`` falls in bin ``b`` when ``edge_b ≤ x < edge_{b+1}``
  (the last bin holds ``hi`` too). ``integer: true`` declares a column of whole numbers (a value
  that is not one is refused); whether a column holds whole numbers is declared too, not read.

A data value outside its column's declared domain, or a missing value, is refused in one line naming
column and value (fail closed: clipping it silently would change what the budget protects). A
synthetic value is its category; for a binned column it is drawn **uniformly inside its bin** (for
an integer column, uniformly among the whole numbers inside the bin) — never the original value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anonkit.errors import InputError

#: the bins of a numeric column whose declaration gives bounds without bins
DEFAULT_BINS = 10
#: the most categories or bins of one column (a marginal over two such columns has 10⁶ cells)
MAX_VALUES = 1000
#: the keys a column's declaration may have
COLUMN_KEYS = ("categories", "bounds", "bins", "integer")


@dataclass(frozen=True)
class ColumnDomain:
    """One column's declared domain: ``categories``, or ``bounds`` cut into ``bins`` (``integer``:
    the column holds whole numbers, so synthetic values are whole numbers too)."""

    name: str
    categories: tuple[Any, ...] | None = None
    lo: float = 0.0
    hi: float = 0.0
    bins: int = 0
    integer: bool = False

    @property
    def size(self) -> int:
        """The number of codes (categories or bins)."""
        return len(self.categories) if self.categories is not None else self.bins

    @property
    def edges(self) -> np.ndarray:
        return np.linspace(self.lo, self.hi, self.bins + 1)

    def describe(self) -> str:
        if self.categories is not None:
            return f"{len(self.categories)} categories"
        return f"[{self.lo:g}, {self.hi:g}] in {self.bins} bins" + (" (whole numbers)" if self.integer else "")

    def encode(self, values: pd.Series) -> np.ndarray:
        """Every value's code; a missing value or one outside the domain is refused (naming it)."""
        key = f"algorithm.domain.{self.name}"
        missing = values.isna().to_numpy()
        if self.categories is None:  # an empty cell of a numeric column is missing, not a number
            missing = missing | values.astype(str).str.strip().eq("").to_numpy()
        if missing.any():
            raise InputError("dp-synthetic needs a value in every record (a missing value has no declared code): "
                             "fill or drop the missing values", column=self.name, row=int(np.flatnonzero(missing)[0]),
                             key=key)
        if self.categories is not None:
            texts = values.astype(str).to_numpy(dtype=object)
            codes = pd.Index([str(c) for c in self.categories], dtype=object).get_indexer(texts)
            bad = np.flatnonzero(codes < 0)
            if bad.size:
                raise InputError("the value is not one of the declared categories: add it to the column's "
                                 "categories (the domain is never read from the data)", column=self.name,
                                 value=texts[bad[0]], key=f"{key}.categories")
            return codes.astype(np.int64)
        numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64)
        bad = np.flatnonzero(np.isnan(numbers) | (numbers < self.lo) | (numbers > self.hi))
        if bad.size:
            what = ("is not a number" if np.isnan(numbers[bad[0]])
                    else f"lies outside the bounds [{self.lo:g}, {self.hi:g}]")
            raise InputError(f"the value {what}: widen the column's declared bounds (values are never clipped)",
                             column=self.name, value=values.iloc[bad[0]], key=f"{key}.bounds")
        if self.integer:
            bad = np.flatnonzero(numbers != np.floor(numbers))
            if bad.size:
                raise InputError("the value is not a whole number but the column is declared integer: true",
                                 column=self.name, value=values.iloc[bad[0]], key=f"{key}.integer")
        codes = np.searchsorted(self.edges, numbers, side="right") - 1
        return np.clip(codes, 0, self.bins - 1).astype(np.int64)

    def decode(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The synthetic values of ``codes``: the category, or a value drawn uniformly inside the bin."""
        codes = np.asarray(codes, dtype=np.int64)
        if self.categories is not None:
            return np.asarray(self.categories, dtype=object)[codes]
        edges = self.edges
        if not self.integer:
            return rng.uniform(edges[codes], edges[codes + 1])
        first = np.ceil(edges[:-1]).astype(np.int64)
        last = np.ceil(edges[1:]).astype(np.int64) - 1  # whole numbers below the next edge
        last[-1] = math.floor(self.hi)  # the last bin holds hi
        return rng.integers(first[codes], last[codes] + 1).astype(np.int64)


def _number(value: object, where: str, column: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InputError(f"a bound must be a finite number, got {value!r}", column=column, key=where)
    return float(value)


def parse_column(name: str, raw: object, where: str) -> ColumnDomain:
    """One column's declaration, checked (before any work)."""
    key = f"{where}{name}"
    if not isinstance(raw, Mapping):
        raise InputError("declare the column's domain as {categories: [...]} or {bounds: [lo, hi], bins: n}",
                         column=name, key=key)
    unknown = [k for k in raw if k not in COLUMN_KEYS]
    if unknown:
        raise InputError(f"{unknown[0]!r} is not a domain key (keys: {', '.join(COLUMN_KEYS)})", column=name,
                         key=f"{key}.{unknown[0]}")
    if ("categories" in raw) == ("bounds" in raw):
        raise InputError("declare exactly one of categories or bounds", column=name, key=key)
    if "categories" in raw:
        for k in ("bins", "integer"):
            if k in raw:
                raise InputError(f"{k} goes with bounds, not categories", column=name, key=f"{key}.{k}")
        cats = raw["categories"]
        if not isinstance(cats, list | tuple) or not cats:
            raise InputError("categories must be a non-empty list", column=name, key=f"{key}.categories")
        texts = [str(c) for c in cats]
        if len(set(texts)) != len(texts):
            twice = next(t for t in texts if texts.count(t) > 1)
            raise InputError(f"the category {twice!r} is listed twice", column=name, value=twice,
                             key=f"{key}.categories")
        if len(cats) > MAX_VALUES:
            raise InputError(f"at most {MAX_VALUES} categories per column", column=name, key=f"{key}.categories")
        return ColumnDomain(name, categories=tuple(cats))
    bounds = raw["bounds"]
    if not isinstance(bounds, list | tuple) or len(bounds) != 2:
        raise InputError("bounds must be [lo, hi]", column=name, key=f"{key}.bounds")
    lo, hi = (_number(b, f"{key}.bounds", name) for b in bounds)
    if not lo < hi:
        raise InputError(f"bounds must have lo < hi, got [{lo:g}, {hi:g}]", column=name, key=f"{key}.bounds")
    bins = raw.get("bins", DEFAULT_BINS)
    if isinstance(bins, bool) or not isinstance(bins, int) or not 1 <= bins <= MAX_VALUES:
        raise InputError(f"bins must be a whole number in [1, {MAX_VALUES}], got {bins!r}", column=name,
                         key=f"{key}.bins")
    integer = raw.get("integer", False)
    if not isinstance(integer, bool):
        raise InputError(f"integer must be true or false, got {integer!r}", column=name, key=f"{key}.integer")
    d = ColumnDomain(name, lo=lo, hi=hi, bins=bins, integer=integer)
    if integer:
        edges = d.edges
        empty = np.ceil(edges[:-1]) > np.append(np.ceil(edges[1:-1]) - 1, math.floor(hi))
        if empty.any():
            raise InputError(f"the column holds whole numbers but bin {int(np.flatnonzero(empty)[0]) + 1} of "
                             f"{bins} holds none: use fewer bins", column=name, key=f"{key}.bins")
    return d


def parse_domain(raw: Mapping[str, object], where: str = "") -> dict[str, ColumnDomain]:
    """Every column's declaration, checked (the options' check: before any work)."""
    return {str(name): parse_column(str(name), value, f"{where}domain.") for name, value in raw.items()}


def bind(domain: dict[str, ColumnDomain], columns: list[str]) -> list[ColumnDomain]:
    """The declarations of ``columns`` (the synthesized ones, in the input's order): a column without
    one, or a declaration for a column not synthesized, is refused."""
    for name in columns:
        if name not in domain:
            raise InputError("every synthesized column needs a declared domain (never read from the data): add "
                             f"algorithm.domain.{name}: {{categories: [...]}} or {{bounds: [lo, hi], bins: n}}",
                             column=name, key=f"algorithm.domain.{name}")
    extra = [name for name in domain if name not in columns]
    if extra:
        raise InputError(f"the domain names a column that is not synthesized (they are {', '.join(columns)})",
                         column=extra[0], key=f"algorithm.domain.{extra[0]}")
    return [domain[name] for name in columns]
