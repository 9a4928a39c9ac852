"""Rank swapping (Moore 1996; sdcMicro's ``rankSwap``): per named column, values swapped between
records whose ranks differ by at most ``p`` percent of the column's ranked values.

Per column (numeric, or ordinal with a declared ``order``), over the released records with a value:
the values are ranked ascending (ties in input order), then, rank by rank from the lowest, a value not
yet swapped is swapped with one drawn uniformly among the values not yet swapped whose rank lies at
most :func:`~anonkit._verify_swap.rank_window` ``(p, m)`` above its own (``⌊p·m/100⌋`` for ``m``
values); a value with no such partner stays. A missing value stays missing. Columns are swapped one
after another, independently, with numpy's generator seeded from the run's seed.

``p`` is a **percentage** in ``(0, 100]`` (default :data:`DEFAULT_P`). sdcMicro documents its ``P`` as
a percentage but uses it as a fraction (``P = 5`` there spans every rank); anonkit takes the
documented meaning. sdcMicro's alternative bounds ``R0`` and ``K0`` (which derive ``P`` from the
data) and its top and bottom coding (the highest and lowest ``TopPercent``/``BottomPercent`` replaced
by their mean before swapping, which would break the promise that every published value is one of
the column's own) are not offered.

What is true of the published values: every swapped column holds exactly the input column's values
(the same multiset, so every margin of one column is kept), each record's value is one whose rank is
within the window of its own, and no value is certainly the record's own; joint distributions and
correlations between columns are only approximately kept. The verifier
(:mod:`anonkit._verify_swap`) recounts both promises from the published table and the input.

The pairing runs as a Python loop over a list of the unpaired ranks where loading numba would not pay
(:func:`~anonkit.algorithms.perturb._swap_kernels.compiled_pays`: few ranks, a narrow window) and compiled with
numba otherwise (a Fenwick tree over the free ranks: O(m log m)); both draw the same partners from the same
generator, so a seed gives the same release either way.
"""

from __future__ import annotations

import bisect
import sys
import time
from dataclasses import replace
from typing import Annotated

import numpy as np
import pandas as pd
from pydantic import Field

from anonkit._verify_swap import permutation_results, rank_distance_results, rank_keys, rank_window
from anonkit.algorithms.perturb._bounded_draws import bounded_draws
from anonkit.algorithms.perturb._release import (
    PUBLISHED,
    PUBLISHED_TABLES,
    PerturbedRelease,
    check_columns,
    column_kind,
    default_columns,
    perturbed_release,
    verify_perturbed,
)
from anonkit.algorithms.perturb._swap_kernels import compiled_pays, pair_ranks_compiled
from anonkit.algorithms.spec import algorithm
from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.schema import AttrType
from anonkit.table import Table
from anonkit.verifier import Verification

NAME = "rank-swap"
#: the default rank window, a percentage of each column's ranked values (a common choice; sdcMicro has
#: no default ``P``: it falls back on ``R0 = 0.95``)
DEFAULT_P = 5.0
#: ranked values from which the compiled loop runs when numba is already loaded (measured faster from 100: 33 µs
#: against 51 µs; 4,580: 0.3 ms against 1.9 ms)
_LOADED_FROM = 100


def _orders(table: Table, columns: list[str]) -> dict[str, list[str] | None]:
    """The order each column is ranked by: ``None`` for numbers, the declared order of an ordinal column."""
    return {c: (list(table.schema[c].order or []) if table.schema[c].type == AttrType.ORDINAL else None)
            for c in columns}


def _check(table: Table, columns: list[str]) -> None:
    """Everything about the columns that can be known before any work: published, numeric or ordinal with
    an order (the schema refuses an ordinal value outside its order)."""
    if not columns:
        raise InputError("rank-swap needs at least one column to swap", key="algorithm.columns")
    check_columns(table, columns, key="algorithm.columns", method=NAME, kind="any")
    for name in columns:
        a = table.schema[name]
        if a.type == AttrType.ORDINAL:
            if not a.order:
                raise InputError("rank-swap ranks an ordinal column by its order: declare order: [lowest, …]",
                                 column=name, key="algorithm.columns")
            continue
        kind = column_kind(table, name)
        if kind != "numeric":
            raise InputError(f"rank-swap ranks values but the column is {kind} without an order: declare "
                             "type: ordinal with order: [lowest, …], or use pram for categories",
                             column=name, key="algorithm.columns")


#: the ranks the list loop adds to its list of unpaired ranks at a time (at least the window): the list holds the
#: unpaired ranks from the current one to a little past its window, so taking a partner out of it moves at most
#: about a window of entries, not every unpaired rank above (4,580 ranks: 2.2 → 1.6 ms; 49,000: 81 → 27 ms)
_LIST_STEP = 256


def pair_ranks_numpy(m: int, window: int, rng: np.random.Generator) -> np.ndarray:
    """The partner of each of ``m`` ranks (itself when it found none): every rank not yet paired, from the
    lowest, paired with a random unpaired rank at most ``window`` above it (O(m · window) at worst;
    :func:`~anonkit.algorithms.perturb._swap_kernels.pair_ranks` is the same pairing, draw for draw).

    The unpaired ranks are a sorted Python list, the current one at ``free[i]`` (the entries before it visited):
    the candidates of rank ``j`` are the list's next entries up to ``j + window`` (a bisection), the ``r``-th of
    them is taken out by index; ``r`` is ``rng.integers(count)`` as numpy draws it, computed in Python
    (:mod:`~anonkit.algorithms.perturb._bounded_draws`): no numpy call per rank. The list holds only the ranks
    up to a little past the current window (:data:`_LIST_STEP` more are added, and the visited ones dropped,
    when the window reaches past its end), so it always holds every unpaired rank of the window — the same
    count and the same ``r``-th rank as over all ranks — and a removal moves few entries."""
    partner = list(range(m))
    step = max(window, _LIST_STEP)
    free = list(range(min(m, step)))  # the unpaired ranks from the current one on, ascending
    added = len(free)  # ranks below it are in the list (or were: visited or paired)
    draw, close = bounded_draws(rng, m // 2 + 1)
    after = bisect.bisect_right
    i = 0
    while True:
        if i == len(free):  # every listed rank visited: the next ones
            if added >= m:
                break
            free = list(range(added, min(m, added + step)))
            added += len(free)
            i = 0
        j = free[i]
        i += 1
        limit = j + window
        if added <= limit and added < m:  # the window reaches past the list: drop the visited, add the next
            del free[:i]
            i = 0
            end = min(m, limit + step)
            free.extend(range(added, end))
            added = end
        hi = after(free, limit, i)  # free[i:hi]: the unpaired ranks in (j, j + window]
        if hi > i:
            k = free.pop(i + draw(hi - i))
            partner[j], partner[k] = k, j
    close()
    return np.array(partner, dtype=np.int64)


def swap_ranks(keys: np.ndarray, rows: np.ndarray, window: int, rng: np.random.Generator,
               *, compiled: bool | None = None) -> np.ndarray:
    """The record each of ``rows`` takes its value from: ``rows`` ranked by ``keys`` (stable), every
    rank not yet swapped paired with a random unswapped rank at most ``window`` above it. ``compiled``
    forces the numba loop (True) or the list loop (False); default: numba where it pays for loading it
    (:func:`~anonkit.algorithms.perturb._swap_kernels.compiled_pays`: ranks and window), or from
    :data:`_LOADED_FROM` ranks when the process has numba loaded already (no start-up to pay: 4,580 ranks 0.3 ms
    against the list loop's 1.6 ms). Both draw the
    same partners from the same generator state, so the release does not depend on the choice."""
    ranked = rows[np.argsort(keys[rows], kind="stable")]
    m = ranked.size
    loaded = m >= _LOADED_FROM and "numba" in sys.modules
    use = compiled if compiled is not None else loaded or compiled_pays(m, window)
    partner = pair_ranks_compiled(m, window, rng) if use else pair_ranks_numpy(m, window, rng)
    source = np.arange(keys.size)
    source[ranked] = ranked[partner]
    return source


def verify_rank_swap(table: Table, release: Release, models: list[Criterion] | None = None) -> Verification:
    """The common perturbative checks and the permutation (:func:`verify_perturbed` with the release's
    checks), then every value's rank distance under the schema's orders (:mod:`anonkit._verify_swap`)."""
    v = verify_perturbed(table, release, models)
    if not v.ok or not isinstance(release, PerturbedRelease):
        return v
    original = table.frame.iloc[release.rows].reset_index(drop=True)
    columns = list(release.params["columns"])
    extra = rank_distance_results(original, release.tables[PUBLISHED], columns, float(release.params["p"]),
                                  _orders(table, columns))
    return replace(v, ok=all(r.passed for r in extra), results=[*v.results, *extra])


def _permutation_checks(original, published, notes, params):  # type: ignore[no-untyped-def]
    return permutation_results(original, published, list(params["columns"]), NAME)


@algorithm(
    NAME,
    family="perturb",
    label="rank swapping",
    summary="values of each named numeric or ordinal column swapped between records whose ranks differ by at most "
    "p percent of the column's values (sdcMicro's rankSwap; every column's values kept as a multiset)",
    enforces=(),
    tables=PUBLISHED_TABLES,
    randomized=True,
    verifier=verify_rank_swap,
)
def rank_swap(
    table: Table,
    models: list[Criterion],
    *,
    columns: list[str] | None = None,
    p: Annotated[float, Field(gt=0, le=100)] = DEFAULT_P,
    seed: int = 0,
) -> Release:
    """Rank swapping; see the module docstring.

    Parameters
    ----------
    table, models:
        The encoded input and the privacy models (judged on the release by the audit, not enforced).
    columns:
        The numeric or ordinal columns to swap; default: every numeric quasi-identifier.
    p:
        The rank window as a percentage of each column's ranked values, in (0, 100] (default 5).
    seed:
        Draws the swap partners and the row order.
    """
    started = time.perf_counter()
    columns = default_columns(table, columns, method=NAME, kind="numeric")
    _check(table, columns)
    rng = np.random.default_rng(seed)
    frame = table.frame.copy(deep=False)  # copy-on-write: the columns set below replace, never write into, the input
    kept = ~table.presuppressed
    orders = _orders(table, columns)
    described = []
    for name in columns:
        keys = rank_keys(table.frame[name], orders[name])
        rows = np.flatnonzero(kept & ~np.isnan(keys))
        window = rank_window(p, rows.size)
        source = swap_ranks(keys, rows, window, rng)
        values = table.frame[name].to_numpy(copy=True)
        frame[name] = pd.Series(values[source], index=frame.index, name=name)
        moved = int(np.count_nonzero(source[rows] != rows))
        described.append(f"{name}: values swapped between records at most {window} ranks apart ({p:g}% of "
                         f"{rows.size} values; {moved} records took another's value), the column's values kept")
    params = {"columns": list(columns), "p": float(p), "seed": seed}
    return perturbed_release(table, frame, algorithm=NAME, seed=seed, params=params, described=described,
                             perturbed=columns, checks=_permutation_checks, seconds=time.perf_counter() - started)


__all__ = ["DEFAULT_P", "rank_swap", "swap_ranks", "verify_rank_swap"]
