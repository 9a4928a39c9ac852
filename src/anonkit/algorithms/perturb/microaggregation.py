"""Microaggregation as sdcMicro does it (``microaggregation()``): the named numeric columns of every
record are replaced by an aggregate (mean, median or one-step mean) of a group of at least ``k``
similar records, groups formed by one of sdcMicro's methods, within strata.

**Why the ``perturb`` family, not ``cluster`` beside MDAV.** sdcMicro aggregates the numeric variables
it is given, which are usually *not* the key variables (income, expenses, turnover beside the
categorical keys), and publishes every record with the other columns as they are. That is a
perturbative release — the values of the named columns are not the record's own, the rest is
untouched — not a class release over the quasi-identifiers (MDAV's ``cluster`` algorithm generalizes
every QI, categorical ones to their LCA). So the release is one table (the family's
:class:`~anonkit.algorithms.perturb._release.PerturbedRelease`), checked by this method's own verifier
(:mod:`anonkit.algorithms.perturb._micro_checks`), and the privacy models are judged by the audit on
the published values, never claimed.

Methods (:mod:`anonkit.algorithms.perturb._micro_methods`; ``method:``, default ``mdav`` as sdcMicro):

* ``mdav``: anonkit's MDAV on the z-scores of the columns (sdcMicro's ``Mdav``: the same distances);
* ``rmd``: groups around the record with the largest robust Mahalanobis distance (MCD) and its
  nearest remaining records;
* ``pca``: records sorted by the first principal component, cut into runs of ``k``;
* ``onedims``: every column ranked and cut on its own (individual ranking). **The combination of the
  columns is not k-anonymous**: a record's values come from different groups, so its published
  combination may be unique; every single column's published value is shared by ``k`` records;
* ``influence``: clusters (k-means), each sorted by the column its centre is highest in;
* ``clustpppca``: clusters, each sorted by its first projection-pursuit component.

``aggr``: ``mean`` (default), ``median`` or ``onestep`` (sdcMicro's ``measure``: the mean after
clipping each value to the group's median ± 3/1.486 MADs). sdcMicro's ``rmd`` and ``mdav`` always
publish the mean; anonkit applies ``aggr`` to every method. ``k`` is the group size (sdcMicro's
``aggr``, default 3): groups have ``k … 2k − 1`` records (a stratum's last group takes the
remainder). ``strata``: columns whose value combinations are aggregated apart; a group never crosses a
stratum; a stratum with fewer than ``k`` records is refused in one line before any work (sdcMicro
stops on a stratum under ``2k`` records; anonkit makes a stratum of ``k … 2k − 1`` records one group).
With one column every method is the univariate ranking (sdcMicro then calls ``mafast``, whatever the
method). A missing value in a named or strata column is refused (sdcMicro's methods return ``NA``
for a group holding one), unless ``missing: suppress`` leaves its record out first.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Annotated, Any, Literal

import numpy as np
import pandas as pd
from pydantic import Field

from anonkit.algorithms.perturb._micro_checks import micro_checks
from anonkit.algorithms.perturb._micro_methods import CLUSTERING, MDAV, METHODS, onedims
from anonkit.algorithms.perturb._release import (
    PUBLISHED_TABLES,
    check_columns,
    default_columns,
    perturbed_release,
    verify_perturbed,
)
from anonkit.algorithms.spec import algorithm
from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table
from anonkit.verifier import Verification

NAME = "microaggregation"
#: sdcMicro's default method
DEFAULT_METHOD = MDAV
#: sdcMicro's default group size (its ``aggr``)
DEFAULT_K = 3
#: sdcMicro's default aggregate (its ``measure``)
DEFAULT_AGGR = "mean"
#: sdcMicro's default number of clusters (its ``nc``) of ``influence`` and ``clustpppca``
DEFAULT_CLUSTERS = 8
#: sdcMicro's methods anonkit offers (its ``simple``, ``single``, ``mcdpca``, ``pppca``, ``clustpca`` and
#: ``clustmcdpca`` are not offered)
Method = Literal[tuple(METHODS)]  # type: ignore[valid-type]
Aggregate = Literal["mean", "median", "onestep"]
_ONESTEP = 3 / 1.486


def _values(table: Table, name: str) -> np.ndarray:
    return pd.to_numeric(table.frame[name], errors="coerce").to_numpy(dtype=float)


def _strata(table: Table, strata: list[str], kept: np.ndarray) -> np.ndarray:
    """The stratum of every kept record (−1 for the others), numbered by sorted value combinations."""
    out = np.full(table.n, -1, dtype=np.int64)
    if not strata:
        out[kept] = 0
        return out
    texts = table.frame.loc[kept, strata].astype(str)
    out[kept] = texts.groupby(strata, sort=True).ngroup().to_numpy()
    return out


def _check(table: Table, columns: list[str], method: str, k: int, strata: list[str],
           clusters: int | None) -> np.ndarray:
    """Everything about the options that can be known before any work; returns every record's stratum."""
    if not columns:
        raise InputError("microaggregation needs at least one column to aggregate", key="algorithm.columns")
    check_columns(table, columns, key="algorithm.columns", method=NAME, kind="numeric")
    sensitive = [c for c in columns if c in table.sensitive]
    if sensitive:
        raise InputError("microaggregation publishes group aggregates the input does not have, and a sensitive "
                         "attribute is judged on the input's values: declare the column insensitive or quasi",
                         column=sensitive[0], key="algorithm.columns")
    check_columns(table, strata, key="algorithm.strata", method=NAME, kind="any")
    both = [c for c in strata if c in columns]
    if both:
        raise InputError("a strata column is published unchanged, so it cannot also be aggregated",
                         column=both[0], key="algorithm.strata")
    if clusters is not None and method not in CLUSTERING:
        raise InputError(f"clusters applies to methods {' and '.join(CLUSTERING)}, not {method}: drop clusters",
                         key="algorithm.clusters")
    kept = ~table.presuppressed
    for name, key in [*((c, "algorithm.columns") for c in columns), *((c, "algorithm.strata") for c in strata)]:
        col = table.frame[name]
        missing = (col.isna() | (col.astype(str).str.strip() == "")).to_numpy() & kept
        if name in columns:
            missing |= np.isnan(_values(table, name)) & kept
        if missing.any():
            raise InputError("microaggregation needs a value in every record of the columns it aggregates or "
                             "stratifies by: fill the missing values or set missing: suppress", column=name,
                             row=int(np.flatnonzero(missing)[0]) + 1, key=key)
    stratum = _strata(table, strata, kept)
    sizes = np.bincount(stratum[kept], minlength=1)
    if sizes.min() < k:
        s = int(np.argmin(sizes))
        where = (" in the stratum " + ", ".join(f"{c}={table.frame[c].to_numpy()[kept][stratum[kept] == s][0]}"
                                                for c in strata)) if strata else ""
        raise InputError(f"microaggregation needs at least k = {k} records in every group, and there are "
                         f"{int(sizes[s])}{where}: lower k{', merge strata' if strata else ''} or add records",
                         key="algorithm.strata" if strata else "algorithm.k")
    return stratum


def group_aggregate(values: np.ndarray, group: np.ndarray, aggr: str) -> np.ndarray:
    """Every record's group aggregate (``group``: ``0 … g − 1`` per record), by sorting once."""
    n_groups = int(group.max()) + 1
    counts = np.bincount(group, minlength=n_groups)
    if aggr == "mean":
        return (np.bincount(group, weights=values, minlength=n_groups) / counts)[group]
    med = _group_median(values, group, counts)
    if aggr == "median":
        return med[group]
    spread = 1.4826 * _group_median(np.abs(values - med[group]), group, counts)
    clipped = np.clip(values, (med - _ONESTEP * spread)[group], (med + _ONESTEP * spread)[group])
    return (np.bincount(group, weights=clipped, minlength=len(counts)) / counts)[group]


def _group_median(values: np.ndarray, group: np.ndarray, counts: np.ndarray) -> np.ndarray:
    ordered = values[np.lexsort((values, group))]
    starts = np.cumsum(counts) - counts
    return (ordered[starts + (counts - 1) // 2] + ordered[starts + counts // 2]) / 2


def micro_groups(x: np.ndarray, stratum: np.ndarray, method: str, k: int, seed: int, clusters: int) -> np.ndarray:
    """The group of every kept record (``p × m``: one row per column, equal rows unless ``onedims``),
    numbered across strata."""
    p = x.shape[1]
    out = np.zeros((p, len(x)), dtype=np.int64)
    offset = 0
    for s in range(int(stratum.max()) + 1):
        rows = np.flatnonzero(stratum == s)
        xs = x[rows]
        if method == "onedims" or p == 1:
            g = onedims(xs, k, seed)
        else:
            fn = METHODS[method]
            g1 = fn(xs, k, seed, clusters) if method in CLUSTERING else fn(xs, k, seed)
            g = np.broadcast_to(g1, (p, len(rows)))
        out[:, rows] = g + offset
        offset = int(out[:, rows].max()) + 1
    return out


def verify_microaggregation(table: Table, release: Release, models: list[Criterion] | None = None) -> Verification:
    """The family's verdict (:func:`~anonkit.algorithms.perturb._release.verify_perturbed`) with the
    checks of :mod:`anonkit.algorithms.perturb._micro_checks`."""
    return verify_perturbed(table, release, models)


def _described(columns: list[str], method: str, k: int, aggr: str, strata: list[str]) -> list[str]:
    within = f" within each stratum of {', '.join(strata)}" if strata else ""
    words = {"mean": "mean", "median": "median", "onestep": "one-step mean (values clipped to median ± 3/1.486 MADs)"}
    out = [f"{name}: replaced by the {words[aggr]} of its group of at least {k} records (method {method}{within})"
           for name in columns]
    if method == "onedims" and len(columns) > 1:
        out.append("each column was grouped on its own (individual ranking): every published value of a column is "
                   f"shared by at least {k} records, but the combination of the aggregated columns is NOT k-anonymous")
    elif len(columns) > 1:
        out.append(f"the records of a group share the published values of every aggregated column: each published "
                   f"combination of them is shared by at least {k} records")
    return out


@algorithm(
    NAME,
    family="perturb",
    label="microaggregation (sdcMicro)",
    summary="the named numeric columns replaced by the mean (median, one-step mean) of groups of at least k "
    "similar records, by sdcMicro's methods (mdav, rmd, pca, onedims, influence, clustpppca), within strata",
    enforces=(),
    tables=PUBLISHED_TABLES,
    randomized=True,
    verifier=verify_microaggregation,
)
def microaggregation(
    table: Table,
    models: list[Criterion],
    *,
    columns: list[str] | None = None,
    method: Method = DEFAULT_METHOD,
    k: Annotated[int, Field(ge=2)] = DEFAULT_K,
    aggr: Aggregate = DEFAULT_AGGR,
    strata: list[str] | None = None,
    clusters: Annotated[int, Field(ge=2)] | None = None,
    seed: int = 0,
) -> Release:
    """Microaggregation; see the module docstring.

    Parameters
    ----------
    table, models:
        The encoded input and the privacy models (judged on the release by the audit, not enforced).
    columns:
        The numeric columns to aggregate; default: every numeric quasi-identifier.
    method:
        How groups are formed: mdav, rmd, pca, onedims, influence or clustpppca.
    k:
        The smallest group size (sdcMicro's ``aggr``).
    aggr:
        What a group publishes: mean, median or onestep (sdcMicro's ``measure``).
    strata:
        Columns whose value combinations are microaggregated apart.
    clusters:
        The number of clusters of influence and clustpppca (default 8).
    seed:
        Draws the clusters' starts, the MCD's subsets and the published row order.
    """
    started = time.perf_counter()
    columns = default_columns(table, columns, method=NAME, kind="numeric")
    strata = list(strata or [])
    stratum = _check(table, columns, method, k, strata, clusters)
    kept = stratum >= 0
    x = np.column_stack([_values(table, c)[kept] for c in columns])
    groups = micro_groups(x, stratum[kept], method, k, seed, clusters or DEFAULT_CLUSTERS)
    frame = table.frame.copy(deep=False)  # copy-on-write: the columns set below replace, never write into, the input
    full = {}
    for j, name in enumerate(columns):
        published = np.full(table.n, np.nan)
        published[kept] = group_aggregate(x[:, j], groups[j], aggr)
        frame[name] = pd.Series(published, index=frame.index)
        full[name] = np.full(table.n, -1, dtype=np.int64)
        full[name][kept] = groups[j]
    params = {"columns": list(columns), "method": method, "k": k, "aggr": aggr, "strata": strata,
              "clusters": clusters, "seed": seed}
    notes: dict[str, Any] = {"microaggregation groups": {c: int(groups[j].max()) + 1 for j, c in enumerate(columns)}}
    rel = perturbed_release(table, frame, algorithm=NAME, seed=seed, params=params,
                            described=_described(columns, method, k, aggr, strata), perturbed=columns,
                            checks=micro_checks, notes=notes, seconds=time.perf_counter() - started)
    rel.checks = partial(micro_checks, groups={c: g[rel.rows] for c, g in full.items()})
    return rel


__all__ = ["DEFAULT_AGGR", "DEFAULT_CLUSTERS", "DEFAULT_K", "DEFAULT_METHOD", "group_aggregate", "micro_groups",
           "microaggregation"]
