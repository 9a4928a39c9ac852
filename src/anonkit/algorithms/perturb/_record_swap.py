"""The procedure of targeted record swapping (:mod:`anonkit.algorithms.perturb.record_swap`): the
households' risk per geographic level, how many swaps each area gets, and the swaps with their donors,
after sdcMicro's ``recordSwap`` (``setRisk``, ``setLevels``, ``distributeDraws``, ``sampleDonor``).

Near-linear: each level's donors are indexed once (:class:`DonorIndex`: per similar values and area, the
households in the donors' order, a heap of each group's first unused one), so a swap finds its donor in
O(log areas) amortized instead of a scan of every household; each area's households come from one sort,
not a pass over all households per area; rows of codes are ranked as one mixed-radix number each
(:func:`row_ids`). The swaps are those of the scans, draw for draw (``tests/test_swap.py`` holds them equal)."""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from anonkit.metrics.perturbed import text_codes
from anonkit.risk.survey import survey_risk
from anonkit.table import Table


@dataclass(frozen=True)
class Households:
    """Per household (code ``0 … H−1`` of ``Table.household``, those with a released record):
    ``geo`` (codes of the geographic values, one column per level), ``similar`` (codes of the
    similar values, one column per variable), ``level`` (the highest level at risk, ``L`` if none),
    and ``risks`` (the household's risk per level: the weight of the draws and of the donors' order)."""

    ids: np.ndarray
    geo: np.ndarray
    similar: np.ndarray
    level: np.ndarray
    risks: np.ndarray


def _codes(frame: pd.DataFrame, names: Sequence[str]) -> np.ndarray:
    """Each column's values as codes, one column per name: the rank of the value's text among the column's
    sorted distinct texts, a missing value the text ``"\\0"`` (sorted first). The texts are made for the
    distinct values only (:func:`~anonkit.metrics.perturbed.text_codes`), not cell by cell."""
    if not names:
        return np.zeros((len(frame), 0), dtype=np.int64)
    out = []
    for c in names:
        codes, texts = text_codes(frame[c])
        labels = np.array([*texts, *(["\0"] if (codes < 0).any() else [])], dtype=object)
        _, rank = np.unique(labels, return_inverse=True)  # a text "\0" and a missing value are one code, as before
        out.append(rank.reshape(-1)[np.where(codes >= 0, codes, len(texts))])
    return np.column_stack(out).astype(np.int64)


def household_risk_levels(table: Table, kept: np.ndarray, hierarchy: Sequence[str], similar: Sequence[str],
                          risk_variables: Sequence[str], risk: str, threshold: float) -> Households:
    """Every household's geography, similar values, level at risk and risk per level (step 1 of the
    procedure): a record's risk at level ``h`` is ``1/fk`` (k-anonymity) or :func:`survey_risk`'s
    individual or household risk on the key ``risk_variables`` + geography down to ``h``; a household
    takes its members' largest and is at risk at the highest level where that exceeds ``threshold``."""
    hh = np.asarray(table.household)[kept]
    frame = table.frame.loc[kept].reset_index(drop=True)
    ids, first = np.unique(hh, return_index=True)
    at = np.searchsorted(ids, hh)
    n_levels = len(hierarchy)
    levels = np.full(ids.size, n_levels, dtype=np.int64)
    risks = np.zeros((ids.size, n_levels))
    weights = None if table.survey_weight is None else np.asarray(table.survey_weight)[kept]
    for h in range(n_levels - 1, -1, -1):
        keys = [*risk_variables, *hierarchy[:h + 1]]
        if risk == "k-anonymity":
            fk = frame.groupby(keys, dropna=False, sort=False)[keys[0]].transform("size").to_numpy(dtype=float)
            r = 1.0 / fk
        else:
            got = survey_risk(frame, keys, weights=weights, households=hh if risk == "household" else None)
            r = got.household_risk if risk == "household" else got.risk
        np.maximum.at(risks[:, h], at, np.asarray(r, dtype=float))
        levels[risks[:, h] > threshold] = h
    return Households(ids=ids, geo=_codes(frame, hierarchy)[first], similar=_codes(frame, similar)[first],
                      level=levels, risks=risks)


def row_ids(codes: np.ndarray) -> np.ndarray:
    """Each row's rank among the distinct rows of a matrix of codes ``≥ 0`` in lexicographic order (what
    ``np.unique(codes, axis=0, return_inverse=True)`` gives): the rows as one mixed-radix number each
    (lexicographic order is numeric order when every digit is below its radix), sorted in one pass;
    ``np.unique``'s rows of bytes when the numbers could exceed 63 bits."""
    n, width = codes.shape
    if not width:
        return np.zeros(n, dtype=np.int64)
    radix = [int(codes[:, j].max()) + 1 if n else 1 for j in range(width)]
    if not n or int(np.prod(np.asarray(radix, dtype=float))) >= 2 ** 62:
        return np.unique(codes, axis=0, return_inverse=True)[1].reshape(-1)
    key = np.zeros(n, dtype=np.int64)
    for j in range(width):
        key = key * radix[j] + codes[:, j]
    return np.unique(key, return_inverse=True)[1].reshape(-1)


def _draws(cells: np.ndarray, swaprate: float, rng: np.random.Generator) -> np.ndarray:
    """Swaps per lowest-level area (step 2): ``H · swaprate / 2`` rounded down or up at random, shared
    in proportion to the areas' households, the rounded-off remainder given to areas drawn at random."""
    n = cells.size
    total = n * swaprate / 2
    total = int(np.floor(total) if rng.integers(2) else np.ceil(total))
    sizes = np.bincount(cells).astype(float)
    share = sizes / max(n, 1) * total
    out = np.floor(share).astype(np.int64)
    extra = round(float((share - out).sum()))
    if extra:
        out[rng.permutation(sizes.size)[:extra]] += 1
    return out


class DonorIndex:
    """The donors of one level, indexed so that each swap finds its donor in O(log areas) amortized
    instead of a scan of every household: the donor of ``s`` is the first household in ``order`` not
    used, outside ``s``'s area and of ``s``'s similar values (the scan's rule, the same household).

    The households are grouped by (similar values, area), each group in ``order`` with a pointer to
    its first household not used (households only become used during a level, so the pointer only
    moves on); per similar values a heap holds every group's first household's place in ``order``.
    The donor is the heap's least entry outside ``s``'s area: an entry whose household became used
    is moved on to its group's next one (its key only grows, so the heap's least valid entry is the
    least of all), and ``s``'s own area's entry (at most one) is set aside while the next is read."""

    def __init__(self, profile: np.ndarray, area: np.ndarray, order: np.ndarray) -> None:
        n = order.size
        place = np.empty(n, dtype=np.int64)
        place[order] = np.arange(n)
        ranked = np.lexsort((place, area, profile))
        cut = np.flatnonzero((np.diff(profile[ranked]) != 0) | (np.diff(area[ranked]) != 0)) + 1
        starts = np.concatenate([[0], cut]) if n else np.zeros(0, dtype=np.int64)
        self._members: list[int] = ranked.tolist()
        self._place: list[int] = place.tolist()
        self._head: list[int] = starts.tolist()
        self._end: list[int] = [*cut.tolist(), n] if n else []
        self._area: list[int] = area[ranked[starts]].tolist()
        self._profile, self._areas = profile, area
        self._heaps: dict[int, list[tuple[int, int]]] = {}
        for g, q in enumerate(profile[ranked[starts]].tolist()):
            self._heaps.setdefault(q, []).append((self._place[self._members[self._head[g]]], g))
        for heap in self._heaps.values():
            heapq.heapify(heap)

    def donor(self, s: int, used: np.ndarray) -> int:
        """The first household in ``order`` not ``used``, outside ``s``'s area and of ``s``'s similar
        values (−1: none)."""
        heap = self._heaps.get(int(self._profile[s]), [])
        own = int(self._areas[s])
        held = None
        found = -1
        while heap:
            _, g = heap[0]
            h, end = self._head[g], self._end[g]
            while h < end and used[self._members[h]]:
                h += 1
            if h != self._head[g]:
                self._head[g] = h
                if h == end:
                    heapq.heappop(heap)
                else:
                    heapq.heapreplace(heap, (self._place[self._members[h]], g))
                continue
            if self._area[g] == own:
                held = heapq.heappop(heap)
                continue
            found = self._members[h]
            break
        if held is not None:
            heapq.heappush(heap, held)
        return found


def _to_swap(hs: Households, pool: np.ndarray, h: int, last: bool, count: int, rng: np.random.Generator) -> np.ndarray:
    """The households of one area to swap at level ``h``: those at risk there; at the lowest level, also
    households drawn with probability proportional to their risk until the area's share is reached."""
    must = pool[hs.level[pool] == h]
    if not last or count <= must.size:
        return must
    rest = pool[hs.level[pool] != h]
    if not rest.size:
        return must
    weight = hs.risks[rest, -1]
    p = weight / weight.sum() if weight.sum() > 0 else None
    drawn = rng.choice(rest, size=min(count - must.size, rest.size), replace=False, p=p)
    return np.concatenate([must, np.sort(drawn)])


def swap_households(hs: Households, swaprate: float, rng: np.random.Generator) -> tuple[list[tuple[int, int]], int]:
    """The swapped pairs (household codes) and the number of households that had to be swapped but found
    no donor (steps 2–3 of the procedure)."""
    n, n_levels = hs.geo.shape
    lowest = row_ids(hs.geo)
    draws = _draws(lowest, swaprate, rng)
    initiated = np.zeros(draws.size, dtype=np.int64)
    used = np.zeros(n, dtype=bool)
    failed = np.zeros(n, dtype=bool)
    pairs: list[tuple[int, int]] = []
    profile = row_ids(hs.similar)
    for h in range(n_levels):
        keys = hs.risks[:, h] / rng.exponential(1.0, n)
        order = np.lexsort((np.arange(n), -keys))
        area = row_ids(hs.geo[:, :h + 1])
        donors = DonorIndex(profile, area, order)
        by_area = np.argsort(area, kind="stable")  # each area's households in ascending code
        bounds = np.concatenate([[0], np.cumsum(np.bincount(area))]) if n else np.zeros(1, dtype=np.int64)
        last = h == n_levels - 1
        for a in range(bounds.size - 1):
            members = by_area[bounds[a]:bounds[a + 1]]
            pool = members[~used[members] & ~failed[members]]
            count = int(max(0, draws[a] - initiated[a])) if last else 0  # (the lowest level's areas: lowest's)
            for s in _to_swap(hs, pool, h, last, count, rng):
                d = donors.donor(int(s), used)
                if d < 0:
                    failed[s] = True
                    continue
                used[s] = used[d] = True
                initiated[lowest[s]] += 1
                pairs.append((int(hs.ids[s]), int(hs.ids[d])))
    return pairs, int(failed.sum())
