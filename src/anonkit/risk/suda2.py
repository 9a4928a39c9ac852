"""SUDA2: special uniques, SUDA and DIS-SUDA scores, attribute contributions (sdcMicro's ``suda2``).

A *minimal sample unique* (MSU) of a record is a set of its key values that no other record shares,
none of whose proper subsets is unique already (Elliot et al.; Manning, Haglin & Keane 2008). A
record with small MSUs — or many — is a special unique: an intruder needs little to single it out.

* **SUDA score** (sdcMicro's ``original_scores=TRUE``, after Elliot et al.): every MSU of size ``k``
  adds ``Π_{i=k}^{M} (ATT − i)`` where ``ATT`` is the number of key variables and ``M`` the largest MSU
  size considered, ``min(max_size, ATT − 1)`` (so by default ``(ATT − k)!``, sdcMicro's weights; an MSU
  of all ``ATT`` variables adds 1). ``scores="ihsn"`` gives the IHSN program's weights instead,
  ``(2^(ATT−k) − 1) · k! (ATT−k)! / ATT!`` (``original_scores=FALSE``).
* **DIS-SUDA** (sdcMicro's ``DisFraction`` weighting): with ``U`` the records unique on all key
  variables, ``P`` the records in pairs, ``f`` the sampling fraction,
  ``Dis = U·f / (U·f + P·(1−f))``, ``Q = 1 + (8 − ATT)/20``, ``A = Σ_records score^−Q``; a record with
  score ``s > 0`` gets ``1 / (1 + (U/Dis − U) / (s^Q · A))``, otherwise 0. sdcMicro computes ``Dis``,
  ``Q`` and ``U/Dis − U`` in single precision; so does this function, so that the scores agree.
* **contributions**: per record and variable, the share of its score from MSUs containing the
  variable (``contributionPercent``; an MSU of size k counts for each of its k variables, so a row sums
  to more than 1 when MSUs have several variables); per variable over the file, ``100·Σ contribution·score
  / Σ score`` (``attribute_contributions``); per value of a variable, the share of that variable's total
  (``attribute_level_contributions``). sdcMicro's C++ credits a variable too few MSUs when two of
  its items hold for the same records (its "correlated items"); this function counts by the
  definition (4 of 300 random small tables differ from sdcMicro there; the scores agree on all).

Missing key values (``-1`` codes) are sdcMicro's: a missing value is never part of an MSU and matches
no other value. With fewer than three key variables sdcMicro adds constant dummy columns, which adds
no MSU but makes ``ATT = 3`` in the weights and in ``Q``; so does this function. ``U`` cancels out of
``U/Dis − U = P·(1−f)/f`` except when it is 0; sdcMicro counts ``U`` only for records alone in a bucket
of its 16-bit hash table, so on tables of small codes where every record shares a bucket it counts none
and returns NaN for every DIS score; this function counts every unique record and gives the finite scores.
With no special unique at all, every score is 0 and every contribution 0 (sdcMicro: NaN contributions).

The search: depth-first over the subsets of key variables up to ``max_size`` (the ``2^ATT − 1``
subsets for the default), on the distinct keys; each subset's groups are its prefix's split by one
more variable (a hash factorization), and a key unique on a prefix leaves its descendants' groups.
Memory holds the uniqueness of the keys unique on all variables only. Adult's 8 quasi-identifiers
(30 162 records, 255 subsets): 0.27 s CPU, sdcMicro's C++ 0.22 s, same scores, DIS-SUDA within 2e-8.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.risk._keys import MISSING, dense, group_ids, key_codes

#: sdcMicro's default sampling fraction for DIS-SUDA (``DisFraction``).
DEFAULT_DIS_FRACTION = 0.01
#: the score weightings: Elliot et al.'s (sdcMicro's default) and the IHSN program's.
SCORE_WEIGHTINGS = ("elliot", "ihsn")
#: sdcMicro pads to this many key variables (constant dummy columns) below it.
MIN_ATTRIBUTES = 3
#: refused above this many (record × subset) uniqueness cells: lower ``max_size`` or use fewer keys.
MAX_CELLS = 400_000_000


@dataclass(frozen=True)
class Suda2Result:
    """SUDA2's figures, per record in input order and per variable."""

    variables: tuple[str, ...]
    msu_counts: np.ndarray  # (n, max_size): MSUs of size 1..max_size per record
    score: np.ndarray
    dis_score: np.ndarray
    contribution: np.ndarray  # (n, m): share of the record's score from MSUs with the variable
    attribute_contributions: dict[str, float]
    attribute_level_contributions: dict[str, dict[Any, float]]
    max_size: int
    dis_fraction: float

    def to_dict(self) -> dict[str, Any]:
        """The file-level figures as JSON-ready values."""
        return {
            "variables": list(self.variables),
            "max_size": self.max_size,
            "dis_fraction": self.dis_fraction,
            "records_with_msu": int(np.sum(self.score > 0)),
            "msus_by_size": {str(k + 1): int(c) for k, c in enumerate(self.msu_counts.sum(axis=0))},
            "attribute_contributions": dict(self.attribute_contributions),
        }


def score_weights(attributes: int, max_size: int, scores: str = "elliot") -> np.ndarray:
    """The weight of an MSU of size ``k = 1..max_size`` in the SUDA score (see the module's docstring)."""
    att = max(attributes, MIN_ATTRIBUTES)
    if scores == "ihsn":
        return np.array([(2.0 ** (att - k) - 1) * math.factorial(k) * math.factorial(att - k) / math.factorial(att)
                         for k in range(1, max_size + 1)])
    top = min(max_size, att - 1)
    return np.array([float(math.prod(att - i for i in range(k, top + 1))) for k in range(1, max_size + 1)])


def _check(m: int, max_size: int | None, dis_fraction: float, scores: str) -> int:
    if scores not in SCORE_WEIGHTINGS:
        raise InputError(f"unknown SUDA score weighting: use one of {', '.join(SCORE_WEIGHTINGS)}", value=scores)
    if isinstance(dis_fraction, bool) or not isinstance(dis_fraction, int | float) or not 0 < dis_fraction <= 1:
        raise InputError("the DIS sampling fraction must be a number in (0, 1] (sdcMicro's DisFraction)",
                         value=dis_fraction)
    if max_size is None:
        return m
    if isinstance(max_size, bool) or not isinstance(max_size, int) or not 1 <= max_size <= m:
        raise InputError(f"the maximum MSU size must be a whole number from 1 to the {m} key variables",
                         value=max_size)
    return max_size


def _subsets(m: int, max_size: int) -> list[tuple[int, ...]]:
    return [s for k in range(1, max_size + 1) for s in itertools.combinations(range(m), k)]


#: a key whose values span at most this many times its length (plus :data:`_TABLE_EXTRA`) is numbered through a
#: table over the span rather than by hashing: the prefix search splits many small groups, where
#: ``pd.factorize``'s fixed cost (about 25 µs a call) was most of SUDA2's time on 4,580 records
_TABLE_SPAN = 8
_TABLE_EXTRA = 4096


def _renumber(key: np.ndarray, span: int) -> np.ndarray:
    """Dense ids of ``key`` (values in ``[0, span)``): equal values one id, different values different ids. The
    search only compares ids, so their order does not matter: a table over a narrow span numbers the values in
    sorted order, a wide one is hashed (:func:`~anonkit.risk._keys.dense`, first appearance)."""
    if span > _TABLE_SPAN * key.size + _TABLE_EXTRA:
        return dense(key)
    seen = np.zeros(span, dtype=np.bool_)
    seen[key] = True
    return (np.cumsum(seen) - 1)[key]


def _split(ids: np.ndarray, groups: int, codes: np.ndarray) -> np.ndarray:
    """Dense ids of the pairs (``ids`` in ``[0, groups)``, ``codes`` ≥ −1): each group split by one more
    variable (:func:`~anonkit.risk._keys.combine`'s groups; the ids in another order where the span is
    narrow)."""
    width = int(codes.max()) + 2
    return _renumber(ids * width + (codes + 1), groups * width)


def _unique_by_prefix(keys: np.ndarray, mult: np.ndarray, searched: np.ndarray, max_size: int,
                      index: dict[tuple[int, ...], int], unique: np.ndarray) -> None:
    """Fill ``unique[r, subset]``: whether searched key ``r`` is the only record with its values there.

    Depth-first over prefixes on the distinct keys (``mult`` records each): a subset's groups are its
    prefix's groups split by one more variable. A key unique on a prefix is unique on every subset
    extending it and can match nobody there, so it leaves the groups of the prefix's descendants (the
    search's pruning); a key with a missing value on a subset is never unique on it.
    """
    m = keys.shape[1]
    present = keys[searched] != MISSING
    start = (np.zeros(len(keys), dtype=np.int64), np.arange(len(keys)), searched.copy(),
             np.zeros(searched.size, dtype=bool), np.ones(searched.size, dtype=bool))
    stack: list[tuple[tuple[int, ...], np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = [((), *start)]
    while stack:
        prefix, ids, active, where, done, complete = stack.pop()
        groups = int(ids.max()) + 1 if ids.size else 0
        for j in range((prefix[-1] + 1) if prefix else 0, m):
            s = (*prefix, j)
            sub = _split(ids, groups, keys[active, j]) if active.size else ids
            counts = np.bincount(sub, weights=mult[active]) if active.size else np.zeros(0)
            inside = where >= 0
            alone = done.copy()
            alone[inside] |= counts[sub[where[inside]]] == 1
            ok = complete & present[:, j]
            unique[:, index[s]] = ok & alone
            if len(s) < max_size:
                keep = counts[sub] > 1 if active.size else np.zeros(0, dtype=bool)
                rank = np.cumsum(keep) - 1
                moved = np.full(where.size, -1, dtype=np.int64)
                still = inside.copy()
                still[inside] = keep[where[inside]]
                moved[still] = rank[where[still]]
                stack.append((s, _renumber(sub[keep], counts.size) if keep.any() else np.zeros(0, dtype=np.int64),
                              active[keep], moved, alone, ok))


def minimal_sample_uniques(codes: np.ndarray, max_size: int,
                           groups: tuple[np.ndarray, np.ndarray] | None = None,
                           ) -> tuple[list[tuple[int, ...]], np.ndarray, np.ndarray]:
    """The MSUs up to ``max_size`` of the records unique on all variables.

    Returns the subsets searched (size order), the rows searched, and a boolean ``(rows, subsets)``
    array: whether the subset is an MSU of the row. A subset is unique for a record when no other
    record has its values there; it is minimal when no subset one variable smaller is unique (by
    monotonicity, no smaller subset at all is).
    """
    m = codes.shape[1]
    full_ids, first = group_ids(codes) if groups is None else groups
    mult = np.bincount(full_ids)
    rows = first[mult == 1]  # records unique on all variables, in input order
    rows.sort()
    subsets = _subsets(m, max_size)
    if rows.size * len(subsets) > MAX_CELLS:
        raise InputError(f"SUDA2 over {m} key variables and {rows.size} unique records is too large to search: "
                         "lower max_size or use fewer key variables", value=rows.size * len(subsets))
    index = {s: i for i, s in enumerate(subsets)}
    unique = np.zeros((rows.size, len(subsets)), dtype=bool, order="F")  # one column per subset
    msu = np.zeros_like(unique)
    if rows.size == 0:
        return subsets, rows, msu
    _unique_by_prefix(codes[first], mult.astype(np.float64), full_ids[rows], max_size, index, unique)
    for i, s in enumerate(subsets):
        if len(s) == 1:
            msu[:, i] = unique[:, i]
            continue
        smaller = np.zeros(rows.size, dtype=bool)
        for drop in range(len(s)):
            smaller |= unique[:, index[s[:drop] + s[drop + 1:]]]
        msu[:, i] = unique[:, i] & ~smaller
    return subsets, rows, msu


def _dis_scores(ids: np.ndarray, score: np.ndarray, att: int, dis_fraction: float) -> np.ndarray:
    out = np.zeros(score.size)
    positive = score > 0
    if not positive.any():
        return out  # no special unique: no record unique on all variables either (0/0 in sdcMicro: NaN)
    sizes = np.bincount(ids)
    uniques = int(np.sum(sizes == 1))
    pairs = 2 * int(np.sum(sizes == 2))
    f = np.float32(dis_fraction)
    u = np.float32(uniques)
    dis = np.float32(u * f / (u * f + np.float32(pairs) * (np.float32(1.0) - f)))
    q = float(np.float32(1.0) + (np.float32(8.0) - np.float32(att)) / np.float32(20.0))
    powered = score[positive] ** q
    adjust = float(np.sum(1.0 / powered))
    term = float(np.float32(u / dis) - u)
    out[positive] = 1.0 / (1.0 + term / (powered * adjust))
    return out


def _level_contributions(data: pd.DataFrame | None, codes: np.ndarray, names: Sequence[str],
                         weighted: np.ndarray) -> dict[str, dict[Any, float]]:
    out: dict[str, dict[Any, float]] = {}
    for j, name in enumerate(names):
        total = weighted[:, j].sum()
        values = data[name].to_numpy() if data is not None else codes[:, j]
        present = codes[:, j] != MISSING
        per: dict[Any, float] = {}
        sums = pd.Series(weighted[present, j]).groupby(pd.Series(values[present]), sort=True).sum()
        for level, s in sums.items():
            per[level.item() if hasattr(level, "item") else level] = 100.0 * float(s) / total if total else 0.0
        out[name] = per
    return out


def suda2(data: pd.DataFrame | np.ndarray, keys: Sequence[str] | None = None, *, max_size: int | None = None,
          dis_fraction: float = DEFAULT_DIS_FRACTION, scores: str = "elliot") -> Suda2Result:
    """SUDA2 on the key variables: MSUs up to ``max_size`` (default: all variables), SUDA and DIS-SUDA scores,
    contributions (sdcMicro's ``suda2(data, variables, DisFraction, original_scores)``).

    ``data`` is a DataFrame (``keys``: its key columns, all when ``None``) or an ``(n, m)`` array of
    key codes (``-1`` missing).
    """
    frame = data if isinstance(data, pd.DataFrame) else None
    codes = key_codes(data, keys)
    n, m = codes.shape
    size = _check(m, max_size, dis_fraction, scores)
    names = tuple(str(k) for k in (keys if keys is not None else (frame.columns if frame is not None else range(m))))
    weights = score_weights(m, size, scores)
    counts = np.zeros((n, size), dtype=np.int64)
    contribution = np.zeros((n, m))
    score = np.zeros(n)
    groups = group_ids(codes)
    if n:
        subsets, rows, msu = minimal_sample_uniques(codes, size, groups)
        sizes = np.array([len(s) for s in subsets])
        member = np.zeros((len(subsets), m))
        for i, s in enumerate(subsets):
            member[i, list(s)] = 1.0
        for k in range(1, size + 1):
            counts[rows, k - 1] = msu[:, sizes == k].sum(axis=1)
        score[rows] = counts[rows] @ weights
        raw = (msu * weights[sizes - 1]) @ member
        with np.errstate(divide="ignore", invalid="ignore"):
            contribution[rows] = np.where(score[rows, None] > 0, raw / score[rows, None], 0.0)
    dis = _dis_scores(groups[0], score, max(m, MIN_ATTRIBUTES), float(dis_fraction)) if n else np.zeros(0)
    weighted = contribution * score[:, None]
    total = score.sum()
    attributes = {name: (100.0 * float(weighted[:, j].sum()) / float(total) if total else 0.0)
                  for j, name in enumerate(names)}
    return Suda2Result(
        variables=names, msu_counts=counts, score=score, dis_score=dis, contribution=contribution,
        attribute_contributions=attributes,
        attribute_level_contributions=_level_contributions(frame, codes, names, weighted),
        max_size=size, dis_fraction=float(dis_fraction),
    )
