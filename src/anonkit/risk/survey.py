"""Risk with survey weights and households, as sdcMicro computes it (``freqCalc``, ``indivRisk``, ``measure_risk``).

A survey holds a sample of a population; each record carries a sampling weight, the number of
population units it stands for. For every record:

* ``fk`` — how many sample records share its key (the values of the key variables), and ``Fk`` —
  the population estimate, the sum of their weights (:func:`sample_frequencies`, sdcMicro's
  ``freqCalc``). Without weights ``Fk = fk`` (the data are the population).
* a missing key value matches any value (sdcMicro's semantics): a record with a missing value counts
  every record it could be, and is counted by them with the factor ``alpha`` (1 by default: fully;
  0: not at all). Two details are sdcMicro's and kept so that the figures agree: a record whose key
  values are all missing gets ``fk = n`` and ``Fk = Σ weights``; and with two or more key variables such
  a record is not counted into the keys without missing values (with one key variable it is).
* the individual risk ``r`` (:func:`individual_risk`, sdcMicro's ``indivRisk``): the Benedetti–Franconi
  estimate of the probability of a correct re-identification under a negative-binomial model of
  ``Fk`` given ``fk``, with ``pk = fk / Fk``::

      fk = 1:  pk / (1 - pk) · log(1 / pk)
      fk = 2:  pk / (1 - pk) - (pk / (1 - pk))² · log(1 / pk)
      fk > 2:  pk / (fk - (1 - pk))                     (the default "approx" method)
      Fk = fk: 1 / fk                                   (the whole population is in the sample)

  (method ``"exact"`` replaces the ``fk > 2`` line by Benedetti–Franconi's series). Without weights
  the risk is ``1 / fk``, as ``measure_risk`` computes it for a population.
* the global risk (mean of ``r``) and the expected number of re-identifications (sum of ``r``), and
  with households the household risk ``1 − Π (1 − r_i)`` over the members of a record's household
  (:func:`survey_risk`, sdcMicro's ``measure_risk``).

Where sdcMicro would say less than the truth, anonkit does not copy it: with ``alpha < 1`` a record
may get a fractional ``1 < fk < 2``, for which ``indivRisk`` returns risk 0; anonkit uses the
``fk = 1`` formula there (the larger risk). Everything returns plain numpy arrays in input order, in
frozen dataclasses; inputs are a DataFrame with key column names or an ``(n, m)`` array of codes
(``anonkit.risk._keys.key_codes``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.models.individual_risk import benedetti_franconi
from anonkit.risk._keys import MISSING, group_ids, household_ids, key_codes, weights_array

#: sdcMicro's default share with which a key with missing values counts toward the keys it matches.
DEFAULT_ALPHA = 1.0
#: the individual-risk methods of ``indivRisk``; "approx" is sdcMicro's default and ``measure_risk``'s.
RISK_METHODS = ("approx", "exact")
DEFAULT_RISK_METHOD = "approx"
#: above this ``fk`` the exact series loses every digit in double precision (sdcMicro returns NaN
#: from ``fk = 176``); anonkit refuses instead and names the approximation.
EXACT_MAX_FK = 170


@dataclass(frozen=True)
class SampleFrequencies:
    """Per record: ``fk`` (sample records sharing its key) and ``Fk`` (their weights' sum), in input order."""

    fk: np.ndarray
    Fk: np.ndarray
    alpha: float
    weighted: bool

    @property
    def n1(self) -> int:
        """Records with ``fk = 1`` (sample uniques; they violate 2-anonymity)."""
        return int(np.sum(self.fk == 1))

    @property
    def n2(self) -> int:
        """Records with ``fk = 2``."""
        return int(np.sum(self.fk == 2))


@dataclass(frozen=True)
class SurveyRisk:
    """``measure_risk``'s figures: per record ``fk``, ``Fk``, ``risk`` (and ``household_risk``), and the totals."""

    fk: np.ndarray
    Fk: np.ndarray
    risk: np.ndarray
    household_risk: np.ndarray | None
    expected_reidentifications: float
    global_risk: float
    household_expected_reidentifications: float | None
    household_global_risk: float | None

    def to_dict(self) -> dict[str, Any]:
        """The totals as JSON-ready numbers (the per-record arrays are left out)."""
        return {
            "records": int(self.fk.size),
            "expected_reidentifications": self.expected_reidentifications,
            "global_risk": self.global_risk,
            "household_expected_reidentifications": self.household_expected_reidentifications,
            "household_global_risk": self.household_global_risk,
            "sample_uniques": int(np.sum(self.fk == 1)),
        }


def _check_alpha(alpha: float) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0.0 <= float(alpha) <= 1.0:
        raise InputError("alpha must be a number between 0 and 1 (1 counts a missing value as matching fully)",
                         value=alpha)
    return float(alpha)


def _sum_by_projection(src: np.ndarray, src_val: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """For every row of ``dst``: the sum of ``src_val`` over the equal rows of ``src`` (columns already chosen)."""
    if src.shape[1] == 0:
        return np.full(dst.shape[0], src_val.sum())
    both = np.concatenate([src, dst])
    ids, _ = group_ids(both)
    sums = np.bincount(ids[: src.shape[0]], weights=src_val, minlength=int(ids.max()) + 1)
    return sums[ids[src.shape[0]:]]


def _wildcard_counts(keys: np.ndarray, counts: np.ndarray, alpha: float) -> np.ndarray:
    """``counts`` of the distinct keys plus what their wildcard matches add (sdcMicro's ``freqCalc`` rule)."""
    na = keys == MISSING
    has_na = na.any(axis=1)
    out = counts.astype(np.float64).copy()
    if not has_na.any():
        return out
    if keys.shape[1] == 1:  # sdcMicro's one-variable branch: the missing key adds alpha to every key
        out[~has_na] += alpha * counts[has_na].sum()
        out[has_na] = counts.sum()
        return out
    complete = np.flatnonzero(~has_na)
    patterns, pattern_of = np.unique(na[has_na], axis=0, return_inverse=True)
    na_rows = np.flatnonzero(has_na)
    members = [na_rows[pattern_of.ravel() == p] for p in range(len(patterns))]
    for p, pat in enumerate(patterns):
        rows = members[p]
        cols = np.flatnonzero(~pat)
        if cols.size == 0:
            continue  # all missing: fk = n below; not counted into complete keys (sdcMicro)
        if complete.size:
            out[rows] += _sum_by_projection(keys[np.ix_(complete, cols)], counts[complete], keys[np.ix_(rows, cols)])
            out[complete] += alpha * _sum_by_projection(keys[np.ix_(rows, cols)], counts[rows],
                                                        keys[np.ix_(complete, cols)])
        for q, other in enumerate(patterns):
            if q == p:
                continue
            shared = np.flatnonzero(~pat & ~other)
            out[rows] += alpha * _sum_by_projection(keys[np.ix_(members[q], shared)], counts[members[q]],
                                                    keys[np.ix_(rows, shared)])
    out[na.all(axis=1)] = counts.sum()
    return out


def sample_frequencies(data: pd.DataFrame | np.ndarray, keys: Sequence[str] | None = None, *,
                       weights: Sequence[float] | np.ndarray | pd.Series | str | None = None,
                       alpha: float = DEFAULT_ALPHA) -> SampleFrequencies:
    """``fk`` and ``Fk`` per record (sdcMicro's ``freqCalc(x, keyVars, w, alpha)``); missing values match anything.

    ``data`` is a DataFrame (``keys``: its key columns) or an ``(n, m)`` array of key codes (``-1``
    missing). ``weights`` (an array, or a column name of ``data``) are the sampling weights; without
    them ``Fk = fk``. Cost: one grouping of the records, then per pair of missing-value patterns
    one grouping of the distinct keys — never a comparison of every pair of records.
    """
    alpha = _check_alpha(alpha)
    codes = key_codes(data, keys)
    n = codes.shape[0]
    w = weights_array(weights, n, data if isinstance(data, pd.DataFrame) else None)
    if n == 0:
        empty = np.zeros(0)
        return SampleFrequencies(empty, empty.copy(), alpha, w is not None)
    gid, first = group_ids(codes)
    fk0 = np.bincount(gid).astype(np.float64)
    Fk0 = fk0 if w is None else np.bincount(gid, weights=w)
    distinct = codes[first]
    fk = _wildcard_counts(distinct, fk0, alpha)
    Fk = fk if w is None else _wildcard_counts(distinct, Fk0, alpha)
    return SampleFrequencies(fk[gid], Fk[gid], alpha, w is not None)


def _exact_series(fk: int, pk: float) -> float:
    """Benedetti–Franconi's exact risk for ``fk > 2`` (the series ``indivRisk(method="exact")`` sums)."""
    a = (pk ** (1 - fk) - 1) / (fk - 1)

    def b(i: int) -> float:
        return ((fk - 1 - i) ** 2 / ((i + 1) * (fk - 2 - i))
                * (pk ** (i + 2 - fk) - 1) / (pk ** (i + 1 - fk) - 1))

    total, prod = 0.0, 1.0
    for m in range(fk - 2):
        prod *= b(m)
        total += (-1) ** (m + 1) * prod
    return float((pk / (1 - pk)) ** fk * (a * (1 + total) + (-1) ** fk * np.log(pk)))


def individual_risk(freq: SampleFrequencies, *, method: str = DEFAULT_RISK_METHOD, qual: float = 1.0,
                    survey: bool | None = None) -> np.ndarray:
    """Benedetti–Franconi's individual risk per record (sdcMicro's ``indivRisk``), times the correction ``qual``.

    ``survey`` (default: whether the frequencies were weighted) chooses the survey estimate; a
    population (``survey=False``) has risk ``1 / fk``, as in sdcMicro.
    """
    if method not in RISK_METHODS:
        raise InputError(f"unknown individual-risk method: use one of {', '.join(RISK_METHODS)}", value=method)
    if isinstance(qual, bool) or not isinstance(qual, int | float) or not np.isfinite(qual) or qual <= 0:
        raise InputError("qual (the final correction factor) must be a positive number", value=qual)
    fk, Fk = freq.fk, freq.Fk
    if survey is None:
        survey = freq.weighted
    if not survey:
        return 1.0 / fk
    rk = benedetti_franconi(fk, Fk)  # the approximation, as the individual-risk model judges a class
    if method == "exact":
        with np.errstate(divide="ignore", invalid="ignore"):
            pk = fk / Fk
        big = np.flatnonzero((fk > 2) & (fk != Fk))
        for (f, p), rows in pd.Series(big).groupby([fk[big], pk[big]]):
            rk[rows.to_numpy()] = _exact_checked(f, p)
    return rk * float(qual)


def _exact_checked(fk: float, pk: float) -> float:
    if fk != int(fk):
        raise InputError("the exact individual risk needs whole frequencies: use method 'approx' with alpha < 1",
                         value=fk)
    if fk > EXACT_MAX_FK:
        raise InputError(f"the exact individual risk overflows for fk above {EXACT_MAX_FK}: use method 'approx'",
                         value=int(fk))
    value = _exact_series(int(fk), float(pk))
    if not np.isfinite(value):
        raise InputError("the exact individual risk is not a finite number here: use method 'approx'", value=int(fk))
    return value


def household_risk(risk: np.ndarray, households: np.ndarray) -> np.ndarray:
    """Per record, its household's risk ``1 − Π (1 − r_i)`` over the members (``measure_risk``'s hier_risk).

    The household is re-identified when any member is, members independently.
    """
    risk = np.asarray(risk, dtype=np.float64)
    hh = np.asarray(households)
    if hh.shape != risk.shape:
        raise InputError(f"there are {hh.size} household ids for {risk.size} records: give one per record")
    if risk.size == 0:
        return risk.copy()
    ids, _ = pd.factorize(hh)
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    starts = np.flatnonzero(np.r_[True, sorted_ids[1:] != sorted_ids[:-1]])
    safe = np.multiply.reduceat(1.0 - risk[order], starts)
    return (1.0 - safe)[ids]


def survey_risk(data: pd.DataFrame | np.ndarray, keys: Sequence[str] | None = None, *,
                weights: Sequence[float] | np.ndarray | pd.Series | str | None = None,
                households: Sequence[object] | np.ndarray | pd.Series | str | None = None,
                alpha: float = DEFAULT_ALPHA) -> SurveyRisk:
    """sdcMicro's ``measure_risk``: fk, Fk, individual risk, global risk, expected re-identifications, household risk.

    With ``weights`` the individual risk is the Benedetti–Franconi approximation; without, ``1 / fk``.
    With ``households`` (ids, or a column name) every record also gets its household's risk, and the
    totals the household figures (sum and mean over records, as sdcMicro's ``hier_risk_ER``/``hier_risk``).
    """
    frame = data if isinstance(data, pd.DataFrame) else None
    codes = key_codes(data, keys)
    n = codes.shape[0]
    w = weights_array(weights, n, frame)
    hh = household_ids(households, n, frame)
    freq = sample_frequencies(codes, weights=w, alpha=alpha)
    risk = individual_risk(freq)
    er = float(risk.sum())
    hrisk = None if hh is None else household_risk(risk, hh)
    return SurveyRisk(
        fk=freq.fk, Fk=freq.Fk, risk=risk, household_risk=hrisk,
        expected_reidentifications=er, global_risk=er / n if n else 0.0,
        household_expected_reidentifications=None if hrisk is None else float(hrisk.sum()),
        household_global_risk=None if hrisk is None else (float(hrisk.sum()) / n if n else 0.0),
    )
