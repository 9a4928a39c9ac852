"""Algorithm ``local-suppression``: k-anonymity by suppressing single cells (sdcMicro's ``localSuppression``).

Rather than dropping whole records, individual quasi-identifier cells are published as ``*``, and a
``*`` matches any value (sdcMicro's semantics): a record's ``fk`` counts every record that agrees
with it on the quasi-identifiers both leave unsuppressed. The release promises ``fk ≥ k`` for every
record — and, with a distinct l-diversity model, at least ``l`` distinct sensitive values among the
records compatible with each — with every unsuppressed cell the input's value (or its recoded value).

* ``method: heuristic`` is sdcMicro's heuristic (:mod:`._heuristic`), on distinct patterns with
  counts; ``importance`` lists the quasi-identifiers from the most to the least important, and the
  last is suppressed first (sdcMicro's ``importance`` numbers 1…n in list order). Without it, as in
  sdcMicro, the attribute with the most distinct values is suppressed first.
* ``method: optimal`` finds the fewest suppressed cells by an integer program (:mod:`._exact`), for
  tables of at most :data:`EXACT_MAX_RECORDS` records and :data:`EXACT_MAX_ATTRIBUTES`
  quasi-identifiers (refused above).
* ``levels`` recodes first (the usual workflow "recode, then suppress what remains"): a full-domain
  transformation as ``fixed`` takes it (quasi-identifier → hierarchy level); cells are then
  suppressed in the recoded table and unsuppressed cells publish the recoded labels.
* ``max_cells`` bounds the suppressed cells: a release needing more is refused.

Enforced models: k-anonymity (on all quasi-identifiers) and distinct l-diversity of one sensitive
attribute; any other model is refused before any work, since its classes are not defined when cells
match any value. The release is published as one table (``tables: ("table",)``) and judged by its own
verifier (:func:`anonkit._verify_wildcard.verify_wildcard`), which recounts ``fk`` with wildcards from
the published table alone. Notes: ``suppressed_cells`` (``[attribute, cells]`` pairs),
``suppressed_cells_total``, ``min_fk`` (the smallest wildcard ``fk``), ``method``, ``importance``
(the suppression order used, first suppressed first), ``guarantee`` (in words).
"""

from __future__ import annotations

import time
from typing import Annotated, Literal

import numpy as np
import pandas as pd
from pydantic import Field

from anonkit._kernels import first_rows, group_columns
from anonkit._verify_wildcard import verify_wildcard
from anonkit.algorithms.spec import algorithm
from anonkit.algorithms.suppress._exact import EXACT_MAX_ATTRIBUTES, EXACT_MAX_RECORDS, suppress_exact
from anonkit.algorithms.suppress._heuristic import suppress_heuristic
from anonkit.algorithms.suppress._requirements import (
    DEFAULT_HOUSEHOLDS,
    Requirements,
    keep_households_together,
    requirements,
    too_small,
)
from anonkit.algorithms.suppress._restore import restore_cells
from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.release import SUPPRESSED, Release
from anonkit.table import Table
from anonkit.verifier import Verification

NAME = "local-suppression"
#: the published table's name (one table: the output itself)
TABLE = "table"
#: the default method: sdcMicro's heuristic
DEFAULT_METHOD = "heuristic"
Method = Literal["heuristic", "optimal"]
#: the default reading of a missing quasi-identifier cell: a value of its own (anonkit's ``missing:
#: value``); ``wildcard`` is sdcMicro's reading (it matches any value, and is published as ``*``)
DEFAULT_MISSING_CELLS = "value"
MissingCells = Literal["value", "wildcard"]
Households = Literal["independent", "together"]
_ENFORCED = ("k-anonymity", "distinct-l-diversity")


def _models(table: Table, models: list[Criterion]) -> tuple[int, int, str | None]:
    """``(k, l, sensitive)`` the models ask for; a model this algorithm cannot enforce is refused."""
    k, l_min, sensitive = 1, 0, None
    for m in models:
        if m.name == "k-anonymity" and getattr(m, "attributes", None) is None:
            k = max(k, int(m.k))  # type: ignore[attr-defined]
        elif m.name == "distinct-l-diversity" and (sensitive is None or sensitive == m.attribute):
            sensitive, l_min = m.attribute, max(l_min, int(np.ceil(m.l)))  # type: ignore[attr-defined]
        else:
            why = ("k-anonymity on some attributes" if m.name == "k-anonymity" else
                   "a second sensitive attribute" if m.name == "distinct-l-diversity" else f"{m.name} ({m.describe()})")
            raise InputError(f"{NAME} enforces k-anonymity on all quasi-identifiers and distinct l-diversity of one "
                             f"sensitive attribute, not {why}: remove that model or choose another algorithm",
                             key="privacy")
    if not table.qi:
        raise InputError(f"{NAME} suppresses quasi-identifier cells and the schema has none: give quasi-identifiers",
                         key="attributes")
    if table.weights is not None or table.person is not None:
        raise InputError(f"{NAME} counts records one by one: it takes no weighted rows or person column",
                         key="algorithm.name")
    return k, l_min, sensitive


def _levels(table: Table, levels: dict[str, int] | None) -> list[int]:
    """A hierarchy level per quasi-identifier (0 unless ``levels`` gives one), checked."""
    levels = levels or {}
    unknown = [q for q in levels if q not in table.qi]
    if unknown:
        raise InputError("levels name an attribute that is not a quasi-identifier", column=unknown[0],
                         key="algorithm.levels")
    vec = [int(levels.get(q, 0)) for q in table.qi]
    for j, q in enumerate(table.qi):
        height = table.hierarchies[j].height
        if not 0 <= vec[j] <= height:
            raise InputError(f"level must lie in [0, {height}]", column=q, value=vec[j], key="algorithm.levels")
    return vec


def _order(table: Table, codes: np.ndarray, importance: list[str] | None) -> np.ndarray:
    """The columns in suppression order (first suppressed first): ``importance`` read backwards, or
    sdcMicro's default — the most distinct values first (ties: the later column first, as sdcMicro's
    stable sort of the counts ascending read backwards)."""
    if importance is not None:
        unknown = [q for q in importance if q not in table.qi]
        if unknown:
            raise InputError("importance names an attribute that is not a quasi-identifier", column=unknown[0],
                             key="algorithm.importance")
        if sorted(importance) != sorted(table.qi):
            missing = [q for q in table.qi if q not in importance] or [q for q in importance if importance.count(q) > 1]
            raise InputError("importance must list every quasi-identifier once, most important first",
                             column=missing[0], key="algorithm.importance")
        return np.array([table.qi.index(q) for q in reversed(importance)], dtype=np.int64)
    sizes = np.array([np.unique(codes[:, j]).size for j in range(codes.shape[1])])
    ascending = np.argsort(sizes, kind="stable")
    return ascending[::-1].astype(np.int64)


def _check_marker(table: Table, codes: np.ndarray, vec: list[int]) -> None:
    """A published label equal to the marker would read as a suppressed cell: refused (a fully
    generalized attribute, whose one label matches everything anyway, excepted)."""
    for j, q in enumerate(table.qi):
        h = table.hierarchies[j]
        if vec[j] == h.height:
            continue
        used = h.labels[vec[j]][np.unique(codes[:, j])]
        if any(str(v) == SUPPRESSED for v in used):
            raise InputError(f"{q!r} has the value {SUPPRESSED!r}, which {NAME} publishes for a suppressed cell: "
                             "recode or rename that value", column=q, value=SUPPRESSED)


def _precheck(table: Table, models: list[Criterion], options: dict) -> str | None:
    """Before the work: fewer records than ``k`` besides those suppressed up front; the exact method
    on a table too large for it (refused in one line by the run)."""
    k, l_min, sensitive = _models(table, models)
    active = int((~table.presuppressed).sum())
    if active < k:
        return f"k = {k} needs at least {k} released records and only {active} have every quasi-identifier: lower k"
    req = _requirements(table, k, options)
    return too_small(table, req, k, l_min, sensitive) if req.strata or req.combs else None


def _requirements(table: Table, k: int, options: dict) -> Requirements:
    """Strata, key combinations and households as the options declare them, checked (refused in one
    line); the exact method takes strata but not combinations or households."""
    households = options.get("households", DEFAULT_HOUSEHOLDS)
    if options.get("method") == "optimal" and (options.get("combs") is not None or households == "together"):
        what = "key combinations (combs)" if options.get("combs") is not None else "households kept together"
        raise InputError(f"method optimal does not solve {what}: use method heuristic", key="algorithm.method")
    return requirements(table, k, strata=options.get("strata"), combs=options.get("combs"),
                        combs_k=options.get("combs_k"), households=households,
                        household_keys=options.get("household_keys"))


def _explain(table: Table, models: list[Criterion], release: Release, options: dict) -> str | None:
    why = release.notes.get("unsatisfied")
    return str(why) if why else None


def _verifier(table: Table, release: Release, models: list[Criterion]) -> Verification:
    """The independent verdict: :func:`anonkit._verify_wildcard.verify_wildcard` on the published
    table, with the private link (the input row of every published row) and the declared levels."""
    rows = release.notes["published_rows"]
    keys = release.notes.get("household_keys") or []
    return verify_wildcard(release.tables[TABLE], table.frame, table.codes, rows, qi=table.qi,
                           hierarchies=table.hierarchies, levels=release.transformation or {}, models=models,
                           marker=SUPPRESSED, records=table.n_records, strata=release.notes.get("strata") or (),
                           combs=[(int(s), int(kk)) for s, kk in release.notes.get("combs") or []],
                           households=(table.household[rows] if keys and table.household is not None else None),
                           household_keys=keys)


@algorithm(
    NAME,
    family="suppress",
    summary="k-anonymity (and distinct l-diversity) by suppressing single quasi-identifier cells, which then match "
    "any value (sdcMicro's localSuppression): its heuristic with an importance order, or the fewest cells exactly "
    "on small tables; optionally after a full-domain recoding",
    label="local suppression",
    enforces=_ENFORCED,
    tables=(TABLE,),
    randomized=True,
    precheck=_precheck,
    explain=_explain,
    verifier=_verifier,
    on_failure="raise algorithm.max_cells, recode first (algorithm.levels) or relax the models",
)
def local_suppression(
    table: Table,
    models: list[Criterion],
    *,
    importance: list[str] | None = None,
    method: Method = DEFAULT_METHOD,
    levels: dict[str, int] | None = None,
    max_cells: Annotated[int, Field(ge=0)] | None = None,
    missing_cells: MissingCells = DEFAULT_MISSING_CELLS,
    strata: list[str] | None = None,
    combs: list[Annotated[int, Field(ge=1)]] | None = None,
    combs_k: list[Annotated[int, Field(ge=1)]] | None = None,
    households: Households = DEFAULT_HOUSEHOLDS,
    household_keys: list[str] | None = None,
    seed: int = 0,
) -> Release:
    """Suppress single cells until every record's wildcard ``fk`` reaches ``k``; see the module docstring.

    Parameters
    ----------
    importance:
        Every quasi-identifier once, most important first: the last is suppressed first (sdcMicro's
        importance 1…n); default: the one with the most distinct values first.
    method:
        ``heuristic`` (sdcMicro's) or ``optimal`` (fewest cells, small tables only).
    levels:
        Quasi-identifier → hierarchy level to recode to before suppressing (omitted ones stay at level 0).
    max_cells:
        The most cells the release may suppress; a release needing more is refused.
    missing_cells:
        ``value``: a missing quasi-identifier cell is a value of its own; ``wildcard``: it matches any
        value (sdcMicro's reading) and is published as ``*``, not counted as suppressed.
    strata:
        Columns (insensitive or sensitive, published unchanged) within whose values k-anonymity is
        reached: a record's ``fk`` counts only its stratum (sdcMicro's ``strataVars``).
    combs:
        Numbers of keys: ``fk`` reaches ``k`` on every subset of that many quasi-identifiers too
        (sdcMicro's ``combs``).
    combs_k:
        The ``k`` of each size in ``combs``, in order (default: the model's ``k`` for every size).
    households:
        ``together``: a household-level key suppressed in one member of a household is suppressed in
        every member (needs a household role and ``household_keys``); ``independent``: records alone.
    household_keys:
        The quasi-identifiers shared by every member of a household (constant within each household).
    """
    start = time.perf_counter()
    k, l_min, sensitive = _models(table, models)
    vec = _levels(table, levels)
    req = _requirements(table, k, dict(strata=strata, combs=combs, combs_k=combs_k, households=households,
                                       household_keys=household_keys, method=method))
    active = np.flatnonzero(~table.presuppressed)
    if method == "optimal" and active.size > EXACT_MAX_RECORDS:
        raise InputError(f"method optimal solves tables of at most {EXACT_MAX_RECORDS} records and this one has "
                         f"{active.size}: use method heuristic", key="algorithm.method", value=int(active.size))
    if method == "optimal" and len(table.qi) > EXACT_MAX_ATTRIBUTES:
        raise InputError(f"method optimal solves tables of at most {EXACT_MAX_ATTRIBUTES} quasi-identifiers and this "
                         f"one has {len(table.qi)}: use method heuristic", key="algorithm.method", value=len(table.qi))
    codes = np.stack([table.hierarchies[j].maps[vec[j]][table.codes[:, j]] for j in range(len(table.qi))],
                     axis=1).astype(np.int64)
    _check_marker(table, codes[active], vec)
    missing = np.zeros(codes.shape, dtype=bool)
    if missing_cells == "wildcard":
        for j, h in enumerate(table.hierarchies):
            missing[:, j] = h.labels[0][table.codes[:, j]] == ""
    codes = np.where(missing, -1, codes)
    order = _order(table, codes[active], importance)
    sens = (table.sensitive_codes[sensitive].astype(np.int64) if sensitive is not None
            else np.full(table.n, -1, dtype=np.int64))
    patterns = np.full(codes.shape, -1, dtype=np.int64)
    for rows in req.groups(active):  # k-anonymity within each stratum (one group without strata)
        if method == "optimal":
            perm = rows[np.random.default_rng(seed).permutation(rows.size)]  # the seed picks among the optima
            mask = suppress_exact(codes[perm], sens[perm], k, l_min)
            patterns[perm] = np.where(mask, -1, codes[perm])
        else:
            patterns[rows] = _stratum(codes[rows], sens[rows], table, sensitive, order, k, l_min, seed, req)
    spread = (keep_households_together(patterns, table.household, table.n_households, req.household_keys, active)
              if req.household_keys and table.household is not None else 0)
    release = _release(table, patterns, vec, active, seed)
    cells = (patterns[active] < 0).sum(axis=0) - missing[active].sum(axis=0)
    total = int(cells.sum())
    release.notes.update(
        method=method,
        missing_cells=int(missing[active].sum()),
        importance=[table.qi[j] for j in order],
        suppressed_cells=[[q, int(c)] for q, c in zip(table.qi, cells, strict=True)],
        suppressed_cells_total=total,
        strata=list(req.strata),
        combs=[[s, kk] for s, kk in req.combs],
        household_keys=[table.qi[j] for j in req.household_keys],
        household_cells=spread,
        guarantee=(f"every released record agrees, on the quasi-identifiers both leave unsuppressed, with at least "
                   f"{k - 1} other released records" + (f" carrying at least {l_min} distinct values of {sensitive!r}"
                                                        if l_min else "")
                   + f"; a {SUPPRESSED!r} cell matches any value; every other cell is the input's "
                   + ("recoded " if any(vec) else "") + "value"),
    )
    if max_cells is not None and total > max_cells:
        release.satisfied = False
        release.notes["unsatisfied"] = (f"{total} cells must be suppressed, more than max_cells = {max_cells}: raise "
                                        "algorithm.max_cells, recode first (algorithm.levels) or relax the models")
    release.seconds = time.perf_counter() - start
    return release


def _stratum(codes: np.ndarray, sens: np.ndarray, table: Table, sensitive: str | None, order: np.ndarray,
             k: int, l_min: int, seed: int, req: Requirements) -> np.ndarray:
    """The heuristic on one stratum's records: each key combination in turn (its columns alone, in the
    suppression order restricted to them), then every key with ``k`` and ``l``; a later step never
    undoes an earlier one (a further ``*`` never lowers any ``fk``). Then the cells none of them needs
    are given back (:mod:`._restore`)."""
    patterns = codes.copy()
    none = np.full(codes.shape[0], -1, dtype=np.int64)
    for cols, k_s in req.subsets:
        local = np.array([cols.index(c) for c in order if c in cols], dtype=np.int64)
        sub = patterns[:, list(cols)]
        patterns[:, list(cols)] = _heuristic(sub, none, table, None, local, k_s, 0, seed)
    patterns = _heuristic(patterns, sens, table, sensitive, order, k, l_min, seed)
    if not l_min:  # give back the cells no requirement needs (l-diversity: as the heuristic left it)
        restore_cells(patterns, codes, [*req.subsets, (tuple(range(codes.shape[1])), k)], order,
                      np.arange(codes.shape[0]))
    return patterns


def _heuristic(codes: np.ndarray, sens: np.ndarray, table: Table, sensitive: str | None, order: np.ndarray,
               k: int, l_min: int, seed: int) -> np.ndarray:
    """The heuristic on the distinct (pattern, sensitive value) rows of ``codes``: every record's
    pattern. The seed orders ties and which records of a row are suppressed first."""
    n, d = codes.shape
    cols = [codes[:, j] + 1 for j in range(d)]  # -1: a missing cell read as a wildcard
    sizes = [int(codes[:, j].max()) + 2 if n else 1 for j in range(d)]
    n_sens = table.domains[sensitive].size if sensitive is not None else 0
    if sensitive is not None:
        cols.append(sens)
        sizes.append(n_sens)
    group, m = group_columns(cols, sizes)
    first = first_rows(group, m)
    rank = np.empty(m, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(m)  # rows in order of first appearance
    group = rank[group]
    firsts = np.sort(first)  # the rows' first records, in order of first appearance
    counts = np.bincount(group, minlength=m).astype(np.float64)
    out, _cells = suppress_heuristic(codes[firsts], counts, sens[firsts], n_sens, order, k, l_min, seed)
    shuffled = np.random.default_rng(seed).permutation(n)
    by_row = shuffled[np.argsort(group[shuffled], kind="stable")]  # records grouped by row, seeded order within
    patterns = np.empty_like(codes)
    patterns[by_row] = out
    return patterns


def _release(table: Table, patterns: np.ndarray, vec: list[int], active: np.ndarray, seed: int) -> Release:
    """The release: a class per distinct published pattern (a suppressed cell is its hierarchy's root,
    level = height), the published table with ``*`` in suppressed cells, and the private link."""
    d = patterns.shape[1]
    heights = np.array([h.height for h in table.hierarchies], dtype=np.int64)
    record_class = np.full(table.n, -1, dtype=np.int64)
    if active.size:
        act = patterns[active]
        sizes = [int(act[:, j].max()) + 2 for j in range(d)]
        group, m = group_columns([act[:, j] + 1 for j in range(d)], sizes)
        first = first_rows(group, m)
        record_class[active] = group
        rep = act[first]
    else:
        rep = np.zeros((0, d), dtype=np.int64)
    levels = np.where(rep < 0, heights, np.array(vec, dtype=np.int64))
    nodes = np.where(rep < 0, 0, rep)
    release = Release(table=table, record_class=record_class, class_levels=levels.astype(np.int64),
                      class_nodes=nodes.astype(np.int64), algorithm=NAME,
                      transformation={q: int(v) for q, v in zip(table.qi, vec, strict=True)})
    rows = release.published_rows(suppressed="drop", seed=seed)
    frame = release.to_frame(suppressed="drop", seed=seed)
    for j, q in enumerate(table.qi):
        star = patterns[rows, j] < 0
        if star.any():
            column = frame[q].astype(object).to_numpy(copy=True)
            column[star] = SUPPRESSED
            frame[q] = pd.Series(column, dtype=object)
    release.tables[TABLE] = frame
    release.notes["published_rows"] = rows
    return release
