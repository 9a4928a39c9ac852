"""Targeted record swapping of households (sdcMicro's ``recordSwap``, the SDC method of the EU's 2021
census): households at risk swap their whole geography with a donor household of the same ``similar``
values elsewhere, within a hierarchy of geographic levels, at a swap rate.

The procedure (sdcMicro's, :mod:`anonkit.algorithms.perturb._record_swap`), over households (role
``household``; every geographic and similar column must take one value per household):

1. **Risk** per household and level ``h`` of ``hierarchy`` (highest level first): with ``risk:
   k-anonymity`` (sdcMicro's default rule) a record's risk is ``1/fk``, ``fk`` the records sharing its
   ``risk_variables`` and geography down to level ``h``, and a household is *at risk at level h* when
   ``fk < k`` for a member (risk above ``1/k``); with ``risk: individual`` or ``household`` the risk is
   :mod:`anonkit.risk.survey`'s (weighted when the table has a weight) on the same keys, at risk above
   ``risk_threshold``. A household's risk is its members' largest; its level is the highest level at
   which it is at risk.
2. **How many**: ``⌊H · swaprate / 2⌋`` or ``⌈…⌉`` (at random) swaps for ``H`` households, shared out
   over the lowest-level areas in proportion to their households (remainders at random).
3. **Level by level**, from the highest: in every area of that level, the households at risk there
   (not yet swapped) are swapped; at the lowest level, each area's remaining share is filled with
   households drawn with probability proportional to their risk. Each swapped household takes a
   **donor**: a household not yet swapped, **outside the area** (so the geography changes at that
   level), with the **same similar values**, the donors tried in a random order weighted by risk
   (sdcMicro's ``risk / Exp(1)`` keys). A household without a donor stays and is counted.
4. **The swap**: both households exchange every geographic value, for every member.

What is true of the published values: every non-geographic column is the input's; every household is
whole and its geography is either its own or that of a household of the same similar values that
took its own; the multiset of household geographies is kept at every level (the records per area
change when swapped households differ in size). The summary states how many households were swapped
and how many found no donor; the verifier (:mod:`anonkit._verify_swap`) recounts the published
geography of every household against the input.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Annotated, Literal

import numpy as np
import pandas as pd
from pydantic import Field

from anonkit._verify_swap import record_swap_results
from anonkit.algorithms.perturb._record_swap import household_risk_levels, swap_households
from anonkit.algorithms.perturb._release import (
    PUBLISHED,
    PUBLISHED_TABLES,
    PerturbedRelease,
    check_columns,
    perturbed_release,
    verify_perturbed,
)
from anonkit.algorithms.spec import algorithm
from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table
from anonkit.verifier import Verification

NAME = "record-swap"
#: sdcMicro's default share of households swapped
DEFAULT_SWAPRATE = 0.05
#: sdcMicro's default k of the k-anonymity risk rule
DEFAULT_K = 3
#: the notes' key of the number of households swapped, and of those at risk without a donor
SWAPPED_KEY = "record-swap swapped households"
NO_DONOR_KEY = "record-swap households without a donor"
Risk = Literal["k-anonymity", "individual", "household"]


def _value_codes(column: pd.Series) -> np.ndarray:
    """One code per distinct value (missing: −1), values compared as text as the release writes them: a
    number column's values directly (one text per number), any other column's through their text."""
    if pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_bool_dtype(column.dtype):
        return pd.factorize(column)[0]
    return pd.factorize(column.astype(str).where(column.notna(), None))[0]


def _one_per_household(table: Table, names: list[str], key: str) -> None:
    """Refuse a column whose values differ within a household (it could not move with the household):
    the released rows sorted by household once, a column refused when two neighbours of one household
    hold different values (O(n) a column after the sort)."""
    kept = ~table.presuppressed
    hh = np.asarray(table.household)[kept]
    order = np.argsort(hh, kind="stable")
    same = hh[order][1:] == hh[order][:-1]
    for name in names:
        codes = _value_codes(table.frame[name])[kept][order]
        if np.any(same & (codes[1:] != codes[:-1])):
            raise InputError("record-swap moves whole households, so this column must take one value per household",
                             column=name, key=key)


def _check(table: Table, hierarchy: list[str], similar: list[str], risk_variables: list[str], risk: str,
           threshold: float | None) -> None:
    """Everything about the options that can be known before any work."""
    if table.household is None:
        raise InputError("record-swap swaps households: declare the household column (role: household)",
                         key="algorithm.name")
    if not hierarchy:
        raise InputError("record-swap swaps geography: name the geographic columns in hierarchy, highest level first",
                         key="algorithm.hierarchy")
    check_columns(table, hierarchy, key="algorithm.hierarchy", method=NAME, kind="any")
    check_columns(table, similar, key="algorithm.similar", method=NAME, kind="any")
    check_columns(table, risk_variables, key="algorithm.risk_variables", method=NAME, kind="any")
    for names, key in ((similar, "algorithm.similar"), (risk_variables, "algorithm.risk_variables")):
        both = [c for c in names if c in hierarchy]
        if both:
            raise InputError("a geographic column is swapped, so it cannot also be a similar or risk variable",
                             column=both[0], key=key)
    _one_per_household(table, hierarchy, "algorithm.hierarchy")
    _one_per_household(table, similar, "algorithm.similar")
    if risk == "k-anonymity" and threshold is not None:
        raise InputError("risk: k-anonymity marks households at risk by k; risk_threshold applies to risk: "
                         "individual or household", key="algorithm.risk_threshold")
    if risk != "k-anonymity" and threshold is None:
        raise InputError(f"risk: {risk} needs risk_threshold, the risk above which a household must be swapped",
                         key="algorithm.risk_threshold")


def verify_record_swap(table: Table, release: Release, models: list[Criterion] | None = None) -> Verification:
    """The common perturbative checks (:func:`verify_perturbed`: every column but the geography the
    input's), then the households' checks (:func:`anonkit._verify_swap.record_swap_results`) with every
    published row's household from the input (the private link)."""
    v = verify_perturbed(table, release, models)
    if not v.ok or not isinstance(release, PerturbedRelease) or table.household is None:
        return v
    original = table.frame.iloc[release.rows].reset_index(drop=True)
    extra = record_swap_results(original, release.tables[PUBLISHED], table.household[release.rows],
                                list(release.params["hierarchy"]), list(release.params["similar"]),
                                int(release.notes.get(SWAPPED_KEY, -1)))
    return replace(v, ok=all(r.passed for r in extra), results=[*v.results, *extra])


def _no_checks(original, published, notes, params):  # type: ignore[no-untyped-def]
    return []


@algorithm(
    NAME,
    family="perturb",
    label="targeted record swapping",
    summary="households at risk swap their whole geography with donor households of the same similar values "
    "elsewhere, level by level of a geographic hierarchy, at a swap rate (sdcMicro's recordSwap)",
    enforces=(),
    tables=PUBLISHED_TABLES,
    randomized=True,
    verifier=verify_record_swap,
)
def record_swap(
    table: Table,
    models: list[Criterion],
    *,
    hierarchy: list[str] | None = None,
    similar: list[str] | None = None,
    swaprate: Annotated[float, Field(ge=0, le=1)] = DEFAULT_SWAPRATE,
    risk: Risk = "k-anonymity",
    k: Annotated[int, Field(ge=1)] = DEFAULT_K,
    risk_threshold: Annotated[float, Field(ge=0)] | None = None,
    risk_variables: list[str] | None = None,
    seed: int = 0,
) -> Release:
    """Targeted record swapping; see the module docstring.

    Parameters
    ----------
    table, models:
        The encoded input and the privacy models (judged on the release by the audit, not enforced).
    hierarchy:
        The geographic columns, highest level first (one value per household); they are swapped.
        Required (declared optional so that the option's checks come first; refused when missing).
    similar:
        Columns a donor household must share (one value per household); default: none.
    swaprate:
        The share of households to swap, in [0, 1] (default 0.05); households at risk are swapped beyond it.
    risk:
        k-anonymity (default), individual or household (anonkit.risk.survey's estimates).
    k:
        The k of the k-anonymity rule (default 3).
    risk_threshold:
        The risk above which a household must be swapped (risk individual or household).
    risk_variables:
        The key of the risk (with the geography); default: every quasi-identifier not in hierarchy or similar.
    seed:
        Draws the swaps, the donors and the row order.
    """
    started = time.perf_counter()
    similar = list(similar or [])
    hierarchy = list(hierarchy or [])
    if risk_variables is None:
        risk_variables = [q for q in table.qi if q not in hierarchy and q not in similar]
    risk_variables = list(risk_variables)
    _check(table, hierarchy, similar, risk_variables, risk, risk_threshold)
    rng = np.random.default_rng(seed)
    kept = ~table.presuppressed
    threshold = 1 / k if risk == "k-anonymity" else float(risk_threshold)  # type: ignore[arg-type]
    households = household_risk_levels(table, kept, hierarchy, similar, risk_variables, risk, threshold)
    pairs, failed = swap_households(households, swaprate, rng)
    frame = table.frame.copy()
    hh = np.asarray(table.household)
    source = np.arange(int(hh.max()) + 1 if hh.size else 0)
    for a, b in pairs:
        source[a], source[b] = b, a
    rows = np.flatnonzero(kept)
    first = np.full(source.size, -1, dtype=np.int64)
    first[hh[rows][::-1]] = rows[::-1]  # each household's first released row
    taken = first[source[hh[rows]]]
    for name in hierarchy:
        values = table.frame[name].to_numpy(copy=True)
        values[rows] = values[taken]
        frame[name] = pd.Series(values, index=frame.index, name=name)
    swapped = 2 * len(pairs)
    n_hh = int(np.unique(hh[kept]).size)
    described = [f"{', '.join(hierarchy)}: {swapped} of {n_hh} households ({swapped / max(n_hh, 1):.1%}) took the "
                 f"geography of a household {'of the same ' + ', '.join(similar) + ' ' if similar else ''}"
                 f"elsewhere, whole households together; {failed} households at risk found no donor"]
    notes = {SWAPPED_KEY: swapped, NO_DONOR_KEY: failed}
    params = {"hierarchy": hierarchy, "similar": similar, "swaprate": float(swaprate), "risk": risk, "k": k,
              "risk_threshold": risk_threshold, "risk_variables": risk_variables, "seed": seed}
    return perturbed_release(table, frame, algorithm=NAME, seed=seed, params=params, described=described,
                             perturbed=hierarchy, checks=_no_checks, notes=notes,
                             seconds=time.perf_counter() - started)


__all__ = ["DEFAULT_K", "DEFAULT_SWAPRATE", "record_swap", "verify_record_swap"]
