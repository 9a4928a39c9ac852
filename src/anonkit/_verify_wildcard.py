"""The independent verdict on a release with suppressed cells read as wildcards (sdcMicro's semantics).

A suppressed cell (published as the marker, ``*``) matches any value: a published row's ``fk`` is the
number of published rows that agree with it on every quasi-identifier both leave unsuppressed (itself
included). The exact-tuple verifier (:func:`anonkit.verifier.verify`) would read ``*`` as a value of
its own and count smaller classes; this one recounts, from the published table alone, what such a
release promises:

* ``fk ≥ k`` for every published row (each k-anonymity model), counted within the row's stratum
  when the release declares strata (the stratum columns, published unchanged, must agree);
* with key combinations (sdcMicro's ``combs``), ``fk ≥ k_s`` recounted on every subset of ``s``
  quasi-identifiers;
* with households kept together, every household-level key equal (or ``*``) in every published
  member of a household (the household of each published row through the private link);
* at least ``l`` distinct sensitive values among the rows compatible with each row (each distinct
  l-diversity model);
* through the publisher's private link (the input row of every published row), that every
  quasi-identifier cell is either the marker or the input's value generalized to the declared level,
  and every other published column holds the input's value: nothing was altered but suppressed.

The counting is pandas only (rows grouped by their pattern of suppressed cells, then joined pattern
by pattern on the columns both keep), so it shares nothing with the algorithm's kernels.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from anonkit.hierarchy import Hierarchy
from anonkit.verifier import ModelResult, Verification

#: the models this verifier judges (any other is refused by the algorithm before it runs)
WILDCARD_MODELS = frozenset({"k-anonymity", "distinct-l-diversity"})


def _text(column: pd.Series) -> pd.Series:
    """Cells as text (a missing cell as its own text), so that equal cells compare equal."""
    return column.astype(object).where(column.notna(), "\x00missing").astype(str)


def _key(columns: list[np.ndarray], sizes: list[int]) -> np.ndarray:
    """One int64 key per row for several code columns (mixed radix, refactorized before it overflows)."""
    key = np.zeros(len(columns[0]), dtype=np.int64)
    radix = 1
    for col, size in zip(columns, sizes, strict=True):
        if radix * size >= 2**62:
            key = pd.factorize(key)[0].astype(np.int64)
            radix = int(key.max()) + 1
        key = key * size + col
        radix *= size
    return key


def wildcard_counts(qi: pd.DataFrame, marker: str, sensitive: pd.Series | None = None
                    ) -> tuple[np.ndarray, np.ndarray | None]:
    """``fk`` of every row of ``qi`` (published quasi-identifier cells, ``marker`` matching anything)
    and, with ``sensitive``, the distinct sensitive values among each row's compatible rows.

    Rows are first reduced to distinct (cells, sensitive value) rows with counts; then for every pair
    of *suppression sets* (the columns a row has as ``marker``) the rows of the first set are matched
    to those of the second on the columns both keep, by one integer key per row."""
    n, d = qi.shape
    if n == 0:
        return np.zeros(0, dtype=np.int64), (None if sensitive is None else np.zeros(0, dtype=np.int64))
    star = (qi.astype(object) == marker).to_numpy()
    codes = np.empty((n, d), dtype=np.int64)
    sizes = []
    for j, c in enumerate(qi.columns):
        codes[:, j], uniques = pd.factorize(_text(qi[c]))
        sizes.append(len(uniques) + 1)
    codes[star] = -1
    s_codes = pd.factorize(_text(sensitive))[0] if sensitive is not None else np.zeros(n, dtype=np.int64)
    both = np.concatenate([codes + 1, s_codes[:, None]], axis=1)
    rows, row_of, counts = np.unique(both, axis=0, return_inverse=True, return_counts=True)
    row_of = row_of.reshape(-1)
    pattern, svals = rows[:, :d] - 1, rows[:, d]
    sets, set_of = np.unique(pattern < 0, axis=0, return_inverse=True)
    set_of = set_of.reshape(-1)
    members = [np.flatnonzero(set_of == i) for i in range(len(sets))]
    fk = np.zeros(len(rows), dtype=np.int64)
    seen: list[pd.DataFrame] = []
    for ia, a in enumerate(members):
        for ib, b in enumerate(members):
            keep = np.flatnonzero(~sets[ia] & ~sets[ib])
            if keep.size:
                ka = _key([pattern[a, j] for j in keep], [sizes[j] for j in keep])
                kb = _key([pattern[b, j] for j in keep], [sizes[j] for j in keep])
            else:
                ka, kb = np.zeros(len(a), dtype=np.int64), np.zeros(len(b), dtype=np.int64)
            order = np.argsort(kb, kind="stable")
            kb_sorted = kb[order]
            cum = np.concatenate([[0], np.cumsum(counts[b][order])])
            lo, hi = np.searchsorted(kb_sorted, ka, "left"), np.searchsorted(kb_sorted, ka, "right")
            fk[a] += cum[hi] - cum[lo]
            if sensitive is not None:
                left = pd.DataFrame({"_k": ka, "_id": a})
                right = pd.DataFrame({"_k": kb, "_s": svals[b]}).drop_duplicates()
                seen.append(left.merge(right, on="_k", how="inner")[["_id", "_s"]])
    out_l = None
    if sensitive is not None:
        pairs = pd.concat(seen).drop_duplicates()
        out_l = np.bincount(pairs["_id"].to_numpy(), minlength=len(rows))[row_of]
    return fk[row_of], out_l


def _with_stratum(qi: pd.DataFrame, published: pd.DataFrame, strata: Sequence[str]) -> pd.DataFrame:
    """``qi`` with one more column, the stratum of each row as a label that can never be the marker, so
    that rows of different strata never match."""
    if not strata:
        return qi
    cells = published[list(strata)].astype(object).where(published[list(strata)].notna(), "\x00missing")
    codes = pd.MultiIndex.from_frame(cells.astype(str)).factorize()[0]
    return qi.assign(**{"\x00stratum": [f"\x00stratum{c}" for c in codes]})


def _subset_results(qi: pd.DataFrame, published: pd.DataFrame, strata: Sequence[str],
                    combs: Sequence[tuple[int, int]], marker: str) -> list[ModelResult]:
    """``fk ≥ k_s`` on every subset of ``s`` quasi-identifiers, one result per size."""
    out = []
    for size, k in combs:
        failing, lowest, subsets = 0, None, 0
        for cols in itertools.combinations(list(qi.columns), size):
            fk, _ = wildcard_counts(_with_stratum(qi[list(cols)], published, strata), marker)
            failing += int((fk < k).sum())
            lowest = int(fk.min()) if lowest is None else min(lowest, int(fk.min()))
            subsets += 1
        out.append(ModelResult(f"{k}-anonymity on each of the {subsets} combinations of {size} quasi-identifiers "
                               "(suppressed cells match any value)", failing == 0, float(lowest or 0),
                               int(failing > 0), failing))
    return out


def _household_result(published: pd.DataFrame, households: np.ndarray, keys: Sequence[str]) -> ModelResult:
    """Rows of published members of a household whose household-level keys differ from another member's."""
    frame = pd.DataFrame({k: _text(published[k].reset_index(drop=True)) for k in keys})
    frame["\x00hh"] = np.asarray(households)
    distinct = frame.groupby("\x00hh")[list(keys)].transform("nunique")
    bad_rows = int((distinct > 1).any(axis=1).sum())
    return ModelResult(f"households together: {', '.join(keys)} equal (or all suppressed) within each household",
                       bad_rows == 0, float(bad_rows), int(bad_rows > 0), bad_rows)


def _cells_kept(published: pd.DataFrame, source: pd.DataFrame, codes: np.ndarray, rows: np.ndarray,
                qi: Sequence[str], hierarchies: Sequence[Hierarchy], levels: Mapping[str, int], marker: str) -> int:
    """Published cells that are neither the marker nor the input's (generalized) value."""
    bad = 0
    for j, name in enumerate(qi):
        h = hierarchies[j]
        level = int(levels.get(name, 0))
        expected = pd.Series(h.labels[level][h.maps[level][codes[rows, j]]], dtype=object)
        cell = published[name].reset_index(drop=True)
        ok = (cell.astype(object) == marker) | (_text(cell) == _text(expected))
        bad += int((~ok).sum())
    for name in published.columns:
        if name in qi:
            continue
        want = source[name].iloc[rows].reset_index(drop=True)
        bad += int((_text(published[name].reset_index(drop=True)) != _text(want)).sum())
    return bad


def verify_wildcard(published: pd.DataFrame, source: pd.DataFrame, codes: np.ndarray, rows: np.ndarray, *,
                    qi: Sequence[str], hierarchies: Sequence[Hierarchy], levels: Mapping[str, int],
                    models: Sequence[object], marker: str = "*", records: int | None = None,
                    strata: Sequence[str] = (), combs: Sequence[tuple[int, int]] = (),
                    households: np.ndarray | None = None, household_keys: Sequence[str] = ()) -> Verification:
    """The verdict (module docstring) on ``published``, whose row ``i`` is input record ``rows[i]``
    of ``source`` (leaf codes ``codes``), quasi-identifiers ``qi`` recoded to ``levels``; ``strata``
    the stratum columns, ``combs`` ``(size, k)`` pairs, ``households`` the household of every
    published row and ``household_keys`` the keys kept equal within each."""
    results: list[ModelResult] = []
    n = len(published)
    qi_frame = published[list(qi)]
    if set(published.columns) != set(source.columns) or len(rows) != n:
        results.append(ModelResult("release: the input's columns, one row per released record", False, 0.0, 1, n))
        return Verification(False, records or n, n, (records or n) - n, 0, results)
    bad = _cells_kept(published, source, codes, rows, qi, hierarchies, levels, marker)
    results.append(ModelResult("cells: each is the input's (recoded) value or the suppression marker", bad == 0,
                               float(bad), int(bad > 0), bad))
    keyed = _with_stratum(qi_frame, published, strata)
    fk, _ = wildcard_counts(keyed, marker)
    for m in models:
        name = getattr(m, "name", "")
        if name == "k-anonymity":
            k = int(m.k)  # type: ignore[attr-defined]
            fail = fk < k
            results.append(ModelResult(f"{m.describe()} (suppressed cells match any value)",  # type: ignore[attr-defined]
                                       not fail.any(), float(fk.min()) if n else 0.0, int(fail.any()),
                                       int(fail.sum())))
        elif name == "distinct-l-diversity":
            sens = m.sensitive  # type: ignore[attr-defined]
            _, dl = wildcard_counts(keyed, marker, published[sens])
            need = int(np.ceil(float(m.l)))  # type: ignore[attr-defined]
            fail = dl < need  # type: ignore[operator]
            results.append(ModelResult(f"{m.describe()} (suppressed cells match any value)",  # type: ignore[attr-defined]
                                       not fail.any(), float(dl.min()) if n else 0.0,  # type: ignore[union-attr]
                                       int(fail.any()), int(fail.sum())))
        else:
            results.append(ModelResult(f"{name or m!r}: not judged with wildcards",
                                       False, 0.0, 1, n))
    results.extend(_subset_results(qi_frame, published, strata, combs, marker))
    if household_keys:
        if households is None or len(households) != n:
            results.append(ModelResult("households together: no household of every published row", False, 0.0, 1, n))
        else:
            results.append(_household_result(published, households, household_keys))
    ok = all(r.passed for r in results) and n > 0
    total = records if records is not None else n
    classes = len(qi_frame.drop_duplicates()) if n else 0
    return Verification(ok, total, n, total - n, classes, results)
