"""The :class:`Hierarchy`: a value generalization hierarchy as integer lookup arrays.

A hierarchy is given as one row per original value (a *leaf*): column 0 is the value, column ``i``
its generalization at level ``i``, the last column the most general value (usually ``*``). This is
ARX's CSV format (see ``shared/specs/arx-compatibility.md`` §2.6) and the conventions of spec §0.2:
level 0 = original values, ``height`` = number of columns − 1.

Internally every level is encoded once: ``maps[L, leaf_code]`` is the code of the leaf's ancestor
at level ``L`` and ``labels[L][code]`` its label. A node is identified by ``(level, label)``: the
same text may name different nodes on different levels.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonkit._values import cell_text
from anonkit.errors import InputError


class Hierarchy:
    """A value generalization hierarchy (VGH) of one attribute.

    Parameters
    ----------
    rows:
        One sequence of labels per leaf, all of the same length ``height + 1``.
    name:
        The attribute's name (used in error messages).
    source:
        Where the hierarchy came from (a file path), for error messages.
    calendar:
        The labels are calendar units (the date builder): a day's label ``2020-02-05`` truthfully
        covers the leaf ``2020-02-05 10:30`` even when ``2020-02-05`` is a leaf too, so the check
        that no group bears another value's name (:func:`_check_truthful`) is skipped.
    bounds:
        Optional numeric interval of every node, ``bounds[L]`` an array of shape
        ``(len(labels[L]), 2)`` with the smallest and largest numeric leaf below the node. Set by
        the numeric builders and computed for hierarchies whose leaves are all numbers.

    Raises
    ------
    InputError
        If rows differ in length, a leaf occurs twice, the mapping is not functional (a node at
        level ``i`` with two different parents at level ``i + 1``: a grouping that does not nest), or
        a value is generalized to a label that is another original value (:func:`_check_truthful`).
    """

    def __init__(
        self,
        rows: Sequence[Sequence[object]] | np.ndarray,
        *,
        name: str | None = None,
        source: str | None = None,
        calendar: bool = False,
    ) -> None:
        self.name = name
        self.source = source
        self.calendar = calendar
        rows = [[cell_text(v) for v in r] for r in rows]
        if not rows:
            raise InputError("hierarchy is empty", column=name, file=source)
        width = len(rows[0])
        for i, r in enumerate(rows):
            if len(r) != width:
                raise InputError(
                    f"hierarchy rows must all have the same height; row has {len(r) - 1} levels, "
                    f"the first row has {width - 1}",
                    column=name,
                    value=r[0] if r else None,
                    row=i + 1,
                    file=source,
                )
        grid = np.array(rows, dtype=object)
        self.height: int = width - 1
        n = grid.shape[0]
        maps = np.empty((width, n), dtype=np.int32)
        labels: list[np.ndarray] = []
        for level in range(width):
            codes, uniques = pd.factorize(grid[:, level], sort=False)
            maps[level] = codes
            labels.append(np.asarray(uniques, dtype=object))
        # leaves must be unique
        if len(labels[0]) != n:
            dup = pd.Series(grid[:, 0]).duplicated()
            first = int(np.flatnonzero(dup.to_numpy())[0])
            raise InputError(
                "value occurs twice in the hierarchy",
                column=name,
                value=grid[first, 0],
                row=first + 1,
                file=source,
            )
        # functional: every node at level L has exactly one parent at level L+1
        for level in range(width - 1):
            child, parent = maps[level], maps[level + 1]
            first_parent = np.full(len(labels[level]), -1, dtype=np.int64)
            order = np.arange(n)[::-1]
            first_parent[child[order]] = parent[order]
            bad = np.flatnonzero(first_parent[child] != parent)
            if bad.size:
                i = int(bad[0])
                raise InputError(
                    f"hierarchy is not functional: {grid[i, level]!r} at level {level} maps to "
                    f"both {labels[level + 1][first_parent[child[i]]]!r} and {grid[i, level + 1]!r} "
                    f"at level {level + 1}",
                    column=name,
                    value=grid[i, 0],
                    row=i + 1,
                    file=source,
                )
        if not calendar:
            _check_truthful(grid, maps, labels, name, source)
        self.maps: np.ndarray = maps
        self.labels: list[np.ndarray] = labels
        self._index: dict[str, int] | None = None
        self._shares: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # level → (leaf counts, domain shares)
        self._cached_from: tuple[np.ndarray, np.ndarray] | None = None  # (maps, leaves) the caches were made from
        self.bounds: list[np.ndarray] | None = _numeric_bounds(grid[:, 0], maps)

    # ------------------------------------------------------------------ basic facts
    @property
    def leaves(self) -> np.ndarray:
        """The original values (level 0), in file order; a leaf's code is its position here."""
        return self.labels[0]

    @property
    def n_leaves(self) -> int:
        return len(self.labels[0])

    def size(self, level: int) -> int:
        """Number of distinct nodes at ``level``."""
        return len(self.labels[level])

    def refresh(self) -> None:
        """Drop what is computed once per hierarchy (the leaves' index, each level's leaf counts and domain
        shares) when :attr:`maps` or the leaves changed in place since it was made: both are plain arrays a
        program may write to. Every encoding of a table calls it, so a hierarchy edited between two runs
        gives what a new hierarchy with its content gives (the same scores, the same leaves for the values)."""
        kept = self._cached_from
        if (kept is not None and kept[0].dtype == self.maps.dtype and np.array_equal(kept[0], self.maps)
                and np.array_equal(kept[1], np.asarray(self.labels[0], dtype=object))):
            return
        self._index = None
        self._shares = {}
        self.__dict__.pop("_arrow_leaves", None)
        self._cached_from = (self.maps.copy(), np.array(self.labels[0], dtype=object, copy=True))

    def _level_shares(self, level: int) -> tuple[np.ndarray, np.ndarray]:
        """``(leaf counts, domain shares)`` of ``level``, computed once per level (a hierarchy does not
        change after it is built; the searches' scorers ask for them for every node), read-only."""
        level = int(level)
        found = self._shares.get(level)
        if found is None:
            counts = np.bincount(self.maps[level], minlength=self.size(level))
            shares = counts / self.n_leaves
            counts.flags.writeable = False
            shares.flags.writeable = False
            found = self._shares[level] = (counts, shares)
        return found

    def leaf_counts(self, level: int) -> np.ndarray:
        """Number of leaves below each node of ``level`` (ARX's materialized domain size); read-only."""
        return self._level_shares(level)[0]

    def domain_share(self, level: int) -> np.ndarray:
        """Share of the domain each node of ``level`` covers: #leaves below / #leaves; read-only.

        This is ARX's ``DomainShareMaterialized``; the domain size is the number of rows of the
        hierarchy (ARX compatibility §2.9 item 3), not the number of values in the data.
        """
        return self._level_shares(level)[1]

    def parents(self, level: int) -> np.ndarray:
        """``parents(L)[c]`` = code at level ``L + 1`` of the node with code ``c`` at level ``L``."""
        out = np.empty(self.size(level), dtype=np.int32)
        out[self.maps[level]] = self.maps[level + 1]
        return out

    def index(self) -> dict[str, int]:
        """Mapping leaf label → leaf code."""
        if self._index is None:
            self._index = {v: i for i, v in enumerate(self.labels[0])}
        return self._index

    def arrow_leaves(self) -> Any:
        """The leaves as one pyarrow ``string`` array (a leaf's code is its position), for looking a pyarrow text
        column up in them (:func:`anonkit.hierarchy.arrow_leaves.arrow_leaf_codes`); ``None`` when a leaf is not
        exactly a ``str`` or pyarrow cannot hold it. Made once per content of the leaves: :meth:`refresh`, which
        every encoding calls first, drops it with the other caches when the leaves changed in place."""
        if "_arrow_leaves" not in self.__dict__:
            import pyarrow as pa  # (asked for a pyarrow column only: pyarrow is loaded)

            leaves = self.labels[0].tolist()
            try:
                arrow = pa.array(leaves, type=pa.string()) if all(type(v) is str for v in leaves) else None
            except (pa.ArrowException, UnicodeError):
                arrow = None
            self.__dict__["_arrow_leaves"] = arrow
        return self.__dict__["_arrow_leaves"]

    def leaf_codes(self, texts: Sequence[str] | np.ndarray) -> np.ndarray:
        """The leaf code of every text in ``texts`` (−1 where it is no leaf), through :meth:`index`."""
        index = self.index()
        return np.fromiter((index.get(x, -1) for x in texts), dtype=np.int64, count=len(texts))

    # ------------------------------------------------------------------ encoding
    def encode(self, values: Iterable[object], *, column: str | None = None) -> np.ndarray:
        """Leaf codes of ``values`` (as text); every value must be a leaf.

        Raises
        ------
        InputError
            Naming the first value missing from the hierarchy and its (1-based) row.
        """
        cells = values if isinstance(values, np.ndarray | pd.Series) else list(values)
        codes, uniques = pd.factorize(np.asarray(cells, dtype=object), use_na_sentinel=False)
        texts = np.array([cell_text(u) for u in uniques], dtype=object)
        return self.encode_codes(codes, texts, column=column)

    def encode_codes(
        self, codes: np.ndarray, labels: np.ndarray, *, column: str | None = None, allow_missing: bool = False
    ) -> np.ndarray:
        """Leaf codes of rows given as value codes into ``labels`` (the distinct values' text).

        With ``allow_missing`` a missing cell (``""``) absent from the hierarchy gets leaf 0 (the
        caller suppresses such records up front). Otherwise a value absent from the hierarchy is an
        error naming the value and the first (1-based) row holding it.
        """
        return self.label_leaves(codes, labels, column=column, allow_missing=allow_missing)[codes].astype(np.int32)

    def label_leaves(
        self, codes: np.ndarray, labels: np.ndarray, *, column: str | None = None, allow_missing: bool = False
    ) -> np.ndarray:
        """The leaf of every label in ``labels``, checked as :meth:`encode_codes` does (``codes``, the
        rows' value codes, only name the first row of a missing value)."""
        leaf = self.leaf_codes(labels)
        if allow_missing:
            leaf[(leaf < 0) & (np.asarray(labels, dtype=object) == "")] = 0
        bad = np.flatnonzero(leaf < 0)
        if bad.size:
            rows = np.flatnonzero(np.isin(codes, bad))
            i = int(rows[0])
            raise InputError(
                f"value is missing from the hierarchy ({rows.size} row(s) affected)",
                column=column or self.name,
                value=labels[codes[i]],
                row=i + 1,
                file=self.source,
            )
        return leaf

    def generalize(self, codes: np.ndarray, level: int) -> np.ndarray:
        """Codes at ``level`` of the leaves ``codes`` (a lookup, no copy of the hierarchy)."""
        return self.maps[level][codes]

    def label(self, codes: np.ndarray, level: int) -> np.ndarray:
        """Labels at ``level`` of node codes at that level."""
        return self.labels[level][codes]

    def node_level_of(self, label: str) -> list[tuple[int, int]]:
        """Every ``(level, code)`` whose label is ``label`` (lowest level first)."""
        out = []
        for level, labs in enumerate(self.labels):
            hits = np.flatnonzero(labs == label)
            out.extend((level, int(c)) for c in hits)
        return out

    def restrict(self, values: Iterable[object]) -> Hierarchy:
        """The hierarchy cut down to the leaves in ``values`` (order kept, levels unchanged)."""
        keep = set(cell_text(v) for v in values)
        rows = [self.row(i) for i in range(self.n_leaves) if self.labels[0][i] in keep]
        return Hierarchy(rows, name=self.name, source=self.source, calendar=self.calendar)

    def row(self, leaf: int) -> list[str]:
        """The labels of leaf ``leaf`` on every level (one CSV row)."""
        return [str(self.labels[level][self.maps[level, leaf]]) for level in range(self.height + 1)]

    def rows(self) -> list[list[str]]:
        return [self.row(i) for i in range(self.n_leaves)]

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows(), columns=[f"level{i}" for i in range(self.height + 1)])

    @classmethod
    def flat(cls, values: Iterable[object], *, name: str | None = None, top: str = "*") -> Hierarchy:
        """The trivial two-level hierarchy ``{values} → *`` (spec §0.2)."""
        uniq = list(dict.fromkeys(cell_text(v) for v in values))
        return cls([[v, top] for v in uniq], name=name, source="(flat)")

    def __repr__(self) -> str:
        return f"Hierarchy({self.name!r}, leaves={self.n_leaves}, height={self.height})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hierarchy) and self.rows() == other.rows()

    __hash__ = None  # type: ignore[assignment]


def _check_truthful(
    grid: np.ndarray, maps: np.ndarray, labels: list[np.ndarray], name: str | None, source: str | None
) -> None:
    """Refuse a hierarchy that would publish a value as another original value.

    A label on a level ≥ 1 that reads as a leaf other than the row's own value (``M;F;*`` beside
    ``F;M;*``, or ``30;40;*`` beside the leaf ``40``) makes a release show a record as a value it
    does not have, while every count (k, l, …) still holds: the release lies. Labels are compared
    as a reader compares them: ignoring letter case and surrounding or repeated whitespace, and as
    numbers when both are plain numbers (``40.0`` reads as ``40``). A label equal to the row's own
    value is fine (ARX allows a level that does not generalize a value).
    """
    leaves = grid[:, 0]
    text_key, own_text = _keys([_reader_text(v) for v in leaves])
    num_key, own_num = _keys([_reader_number(v) for v in leaves])
    for level in range(1, maps.shape[0]):
        node_text = np.array([text_key.get(_reader_text(v), -1) for v in labels[level]], dtype=np.int64)
        node_num = np.array([num_key.get(_reader_number(v), -1) for v in labels[level]], dtype=np.int64)
        as_text, as_num = node_text[maps[level]], node_num[maps[level]]
        bad = ((as_text >= 0) & (as_text != own_text)) | ((as_num >= 0) & (as_num != own_num))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"hierarchy generalizes {leaves[i]!r} to {grid[i, level]!r} at level {level}, which is another "
                "original value: a release would show the record as a value it does not have; give the group "
                "a label that is no value of the column",
                column=name,
                value=leaves[i],
                row=i + 1,
                file=source,
            )


def _keys(keys: list[object]) -> tuple[dict[object, int], np.ndarray]:
    """An id per distinct key (None is no key) and every leaf's id (−1 for None)."""
    ids: dict[object, int] = {}
    own = np.array([-1 if k is None else ids.setdefault(k, len(ids)) for k in keys], dtype=np.int64)
    return ids, own


def _reader_text(label: object) -> str:
    """A label as a reader tells labels apart: letter case and runs of whitespace ignored."""
    return " ".join(str(label).split()).casefold()


def _reader_number(label: object) -> float | None:
    """A label's number when it is a plain number (``40``, ``40.0``, ``4e1``), else None."""
    text = str(label).strip()
    if not _PLAIN_NUMBER.fullmatch(text):
        return None
    x = float(text)
    return x if np.isfinite(x) else None


_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _numeric_bounds(leaves: np.ndarray, maps: np.ndarray) -> list[np.ndarray] | None:
    """Per level, ``[min, max]`` of the numeric leaves below each node; None if a leaf is no number."""
    nums = pd.to_numeric(pd.Series(leaves, dtype=object), errors="coerce").to_numpy(dtype=float)
    if np.isnan(nums).any():
        return None
    out = []
    for level in range(maps.shape[0]):
        codes = maps[level]
        k = int(codes.max()) + 1
        lo = np.full(k, np.inf)
        hi = np.full(k, -np.inf)
        np.minimum.at(lo, codes, nums)
        np.maximum.at(hi, codes, nums)
        out.append(np.stack([lo, hi], axis=1))
    return out
