"""What local suppression must reach besides ``k`` on all keys: strata, key combinations, households.

These are the shapes statistical offices use (sdcMicro's ``localSuppression``; issue 28 items 1, 3, 7):

* **strata** (sdcMicro's ``strataVars``): k-anonymity within each stratum — a record's ``fk`` counts
  only the records of its stratum. The stratum columns are published unchanged and never suppressed,
  so they must be published columns that are not keys (role insensitive or sensitive).
* **combinations** (sdcMicro's ``combs``): ``fk ≥ k_s`` on every subset of ``s`` keys, for each size
  ``s`` listed (``combs_k`` gives each size its ``k``, as sdcMicro's ``k`` vector does; default the
  model's ``k``). An attacker who knows only some keys matches on those alone, and ``fk`` on fewer keys
  is never smaller, so a size only adds protection where its ``k`` exceeds the model's. Unlike
  sdcMicro, a ``k`` list of another length than ``combs`` is refused rather than recycled.
* **households together**: with a ``household`` role, ``households: together`` suppresses a
  household-level key (``household_keys``: region, dwelling, household size…) in every member of a
  household as soon as it is suppressed in one, so a suppressed value cannot be read off a housemate.
  Those keys must be constant within each household in the input (else they are not household-level,
  and the release could not keep them consistent): refused otherwise.

Suppressing a cell never lowers any record's ``fk`` on any subset of keys (a ``*`` matches more), so
the requirements are reached one after another: each combination in sdcMicro's order (sizes as
listed, subsets in ``combn`` order), then every key, then households are made consistent.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.schema import Role
from anonkit.table import Table

#: the default: households are not kept together (every record is suppressed on its own)
DEFAULT_HOUSEHOLDS = "independent"
#: the roles a stratum column may have: published unchanged, never a key
STRATUM_ROLES = (Role.INSENSITIVE, Role.SENSITIVE)


@dataclass(frozen=True)
class Requirements:
    """What the release must reach, checked: the stratum of every table row, each key subset with its
    ``k``, and the household-level keys (quasi-identifier indexes)."""

    strata: tuple[str, ...]
    stratum: np.ndarray
    combs: tuple[tuple[int, int], ...]
    subsets: tuple[tuple[tuple[int, ...], int], ...]
    household_keys: tuple[int, ...]

    def groups(self, active: np.ndarray) -> list[np.ndarray]:
        """The ``active`` rows of each stratum (one group when there are no strata), in stratum order."""
        codes = self.stratum[active]
        return [active[codes == s] for s in np.unique(codes)] if active.size else []


def _strata(table: Table, strata: Sequence[str] | None) -> tuple[tuple[str, ...], np.ndarray]:
    if strata is None:
        return (), np.zeros(table.n, dtype=np.int64)
    if not strata:
        raise InputError("strata is empty: name the stratum columns or leave strata out", key="algorithm.strata")
    for name in strata:
        if name not in table.schema.attributes:
            raise InputError("strata name a column the table does not have", column=name, key="algorithm.strata")
        role = table.schema[name].role
        if role == Role.QUASI:
            raise InputError(f"{name!r} is a quasi-identifier and a stratum: a stratum is published unchanged and "
                             "never suppressed; remove it from strata or from the quasi-identifiers",
                             column=name, key="algorithm.strata")
        if role not in STRATUM_ROLES or name not in table.frame.columns:
            raise InputError(f"a stratum column is published unchanged, so it must be insensitive or sensitive, not "
                             f"{role}", column=name, key="algorithm.strata")
        if list(strata).count(name) > 1:
            raise InputError("strata name a column twice", column=name, key="algorithm.strata")
    cells = table.frame[list(strata)].astype(object).where(table.frame[list(strata)].notna(), "")
    codes = pd.MultiIndex.from_frame(cells.astype(str)).factorize()[0] if len(strata) > 1 else \
        pd.factorize(cells[strata[0]].astype(str))[0]
    return tuple(strata), np.asarray(codes, dtype=np.int64)


def _combs(table: Table, k: int, combs: Sequence[int] | None, combs_k: Sequence[int] | None
           ) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[tuple[int, ...], int], ...]]:
    d = len(table.qi)
    if combs is None:
        if combs_k is not None:
            raise InputError("combs_k gives the k of each size in combs: give combs too", key="algorithm.combs_k")
        return (), ()
    if not combs:
        raise InputError("combs is empty: list the numbers of keys to protect or leave combs out",
                         key="algorithm.combs")
    for s in combs:
        if not 1 <= s <= d:
            raise InputError(f"a size in combs must lie in [1, {d}] (the number of quasi-identifiers)",
                             value=s, key="algorithm.combs")
        if list(combs).count(s) > 1:
            raise InputError("combs lists a size twice", value=s, key="algorithm.combs")
    ks = list(combs_k) if combs_k is not None else [k] * len(combs)
    if len(ks) != len(combs):
        raise InputError(f"combs_k gives {len(ks)} values for {len(combs)} sizes in combs: give one k per size",
                         key="algorithm.combs_k")
    pairs = tuple((int(s), int(kk)) for s, kk in zip(combs, ks, strict=True))
    subsets = tuple((cols, kk) for s, kk in pairs for cols in itertools.combinations(range(d), s))
    return pairs, subsets


def _households(table: Table, households: str, keys: Sequence[str] | None) -> tuple[int, ...]:
    if households != "together":
        if keys is not None:
            raise InputError("household_keys are kept together only with households: together: add it or remove "
                             "household_keys", key="algorithm.household_keys")
        return ()
    if table.household is None:
        raise InputError("households: together needs a column with role household: declare it or remove households",
                         key="algorithm.households")
    if not keys:
        raise InputError("households: together needs household_keys: the quasi-identifiers every member of a "
                         "household shares (region, dwelling, household size)", key="algorithm.household_keys")
    for name in keys:
        if name not in table.qi:
            raise InputError("household_keys name an attribute that is not a quasi-identifier", column=name,
                             key="algorithm.household_keys")
        if list(keys).count(name) > 1:
            raise InputError("household_keys name an attribute twice", column=name, key="algorithm.household_keys")
    cols = tuple(table.qi.index(q) for q in keys)
    hh = table.household
    for j in cols:
        values = table.codes[:, j].astype(np.int64)
        first = np.full(table.n_households, -1, dtype=np.int64)
        first[hh[::-1]] = values[::-1]  # the first member's value of every household
        differ = np.flatnonzero(first[hh] != values)
        if differ.size:
            raise InputError(f"{table.qi[j]!r} differs within a household, so it is not a household-level key: remove "
                             "it from household_keys or correct the data", column=table.qi[j], row=int(differ[0]) + 1,
                             key="algorithm.household_keys")
    return cols


def requirements(table: Table, k: int, *, strata: Sequence[str] | None = None, combs: Sequence[int] | None = None,
                 combs_k: Sequence[int] | None = None, households: str = DEFAULT_HOUSEHOLDS,
                 household_keys: Sequence[str] | None = None) -> Requirements:
    """The options read and checked against ``table`` (module docstring); one-line refusals."""
    names, stratum = _strata(table, strata)
    pairs, subsets = _combs(table, k, combs, combs_k)
    cols = _households(table, households, household_keys)
    return Requirements(names, stratum, pairs, subsets, cols)


def too_small(table: Table, req: Requirements, k: int, l_min: int, sensitive: str | None) -> str | None:
    """Why some stratum cannot be protected even with every key suppressed (fewer records than the
    largest ``k``, fewer distinct sensitive values than ``l``), or ``None``."""
    need = max([k, *(kk for _s, kk in req.combs)])
    active = np.flatnonzero(~table.presuppressed)
    for rows in req.groups(active):
        where = ("stratum " + ", ".join(f"{c}={table.frame[c].iloc[rows[0]]}" for c in req.strata)
                 if req.strata else "the table")
        if rows.size < need:
            return (f"{where} has {rows.size} record{'s' if rows.size != 1 else ''} with every quasi-identifier, "
                    f"fewer than k = {need}: merge strata or lower k")
        if l_min and sensitive is not None:
            present = int(np.unique(table.sensitive_codes[sensitive][rows]).size)
            if present < l_min:
                return (f"{where} has {present} distinct value{'s' if present != 1 else ''} of {sensitive!r}, fewer "
                        f"than l = {l_min}: merge strata or lower l")
    return None


def keep_households_together(patterns: np.ndarray, household: np.ndarray, n_households: int,
                             cols: Sequence[int], rows: np.ndarray) -> int:
    """Suppress (``-1``) each household-level key of ``rows`` in every member of a household where one
    member has it suppressed; returns the cells this added. ``patterns`` is changed in place."""
    added = 0
    hh = household[rows]
    for j in cols:
        cells = patterns[rows, j]
        starred = np.zeros(n_households, dtype=bool)
        starred[hh[cells < 0]] = True
        spread = starred[hh] & (cells >= 0)
        added += int(spread.sum())
        cells[spread] = -1
        patterns[rows, j] = cells
    return added
