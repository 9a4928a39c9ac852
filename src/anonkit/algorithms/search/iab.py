"""IAB — Intelligent Anonymity Balance (paper C: Arca & Hewett, "Analytics on Anonymity for Privacy
Retention in Smart Health Data", Future Internet 13(11) 274, 2021; spec §4.4)."""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np
from pydantic import Field

from anonkit.algorithms.common import (
    DEFAULT_MAX_SUPPRESSION,
    MaxSuppression,
    check_references,
    report_progress,
    suppression_limit,
)
from anonkit.algorithms.search._release import cut_release
from anonkit.algorithms.search._states import Child, Space
from anonkit.algorithms.spec import algorithm
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table

#: expanded states after which the search stops and returns the best table found (spec §6)
DEFAULT_MAX_STATES = 10_000
#: seconds after which the search stops and returns the best table found
DEFAULT_TIME_LIMIT = 60.0
#: report progress (and check for Ctrl-C) every this many expanded states
_PROGRESS_EVERY = 8


@dataclass(frozen=True)
class _Seen:
    """A generated table: its id (position in the trace), heuristics and cut."""

    id: int
    rows: int
    violating: int
    violating_records: int
    cut: tuple[np.ndarray, ...]

    @property
    def rank(self) -> tuple[int, int]:
        """How good the table is once its violating rows are suppressed: the rows left, then the
        fewest records suppressed."""
        return self.rows - self.violating, -self.violating_records


@algorithm(
    "iab",
    family="search",
    summary="Intelligent Anonymity Balance: best-first search over tables generalized on the violating "
            "rows' values and their siblings, keeping the most distinct rows (paper C)",
    enforces=("k-anonymity",),
    progress="best-first search (expanded states)",
)
def iab(
    table: Table,
    models: list[Criterion],
    *,
    max_states: Annotated[int, Field(ge=1)] = DEFAULT_MAX_STATES,
    time_limit: Annotated[float, Field(gt=0)] = DEFAULT_TIME_LIMIT,
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
) -> Release:
    """IAB (paper C, Algorithm 1; spec §4.4 with its correction): a best-first search for the
    generalized table with the most distinct rows that satisfies every anonymity requirement.

    * **Requirements** ``⟨shield, k⟩``: every :class:`~anonkit.models.KAnonymity` model (its
      ``attributes``, or all quasi-identifiers). A row violates one when the records sharing its
      projection on the shield number fewer than ``k``. Other models (l-diversity, t-closeness…)
      are not searched for: they are judged on the result's classes and failing classes are
      suppressed within ``max_suppression``.
    * **State**: the table as its distinct *full* rows (quasi-identifiers at their current nodes,
      sensitive and insensitive values as they are) with counts; ``h1`` = rows violating some
      requirement, ``h2`` = rows. States are deduplicated by a digest of their sorted rows and counts.
    * **Successors**, one per shield attribute ``A`` (in the order the models name them): the
      ``A``-values of the violating rows that are not the root have parents ``P``; every row of the
      table whose ``A``-value is a child of a node in ``P`` gets that parent; identical rows merge.
      A successor that changes nothing is skipped. Cells of one attribute may so sit at different
      levels in different rows; they are published as those nodes.
    * **Priority** (spec correction, authoritative): most rows first, then fewest violating rows,
      then generation order — what the paper's illustration does (T1(2,21) before T2(4,21); T3(0,18)
      is passed by and T5(0,21) returned). A table with ``h1 = 0`` becomes the incumbent when it has
      more rows than the current one and is never expanded (generalizing only merges rows); taking it
      when it is generated returns the same table as taking it when it is popped, and keeps it when
      the budget runs out. The search stops when no frontier table has more rows than the incumbent,
      which makes the result optimal over every table the successor rule reaches.
    * **Budget**: after ``max_states`` expansions or ``time_limit`` seconds the search returns the
      incumbent; without one it takes the table seen that keeps the most rows once its violating
      rows are suppressed (``h2 − h1``; fewer suppressed records breaking ties) among those whose
      violating records fit within ``max_suppression`` — any table seen if none fits — and
      suppresses its violating rows (whole classes, until every shield holds). Ranking by ``h2``
      alone would always pick the input table, whatever the search found.
    * **Decisions**: requirements with ``k = 1`` are dropped (never violated); quasi-identifiers in
      no shield keep their original values; records suppressed up front take no part.

    Notes (``release.notes``): ``stopped`` (``optimal``: the search finished; ``exhausted``: it
    finished without a satisfying table, e.g. fewer records than ``k``; ``budget``; ``time``),
    ``result`` (``optimal``, ``best found``: the best satisfying table when the budget ran out, or
    ``suppressed``: a table with its violating rows suppressed), ``states_expanded``,
    ``states_generated`` (distinct tables generated, the input table not included),
    ``duplicates`` (successors equal to a table generated before), ``path`` (the attributes
    generalized from the input to the result), ``rows`` and ``violating`` (the result's ``h2`` and
    ``h1`` before suppression) and ``trace``: one dict per generated table in generation order,
    ``{"state", "parent", "attribute", "violating", "rows", "expanded"}``.

    Parameters
    ----------
    max_states:
        Expanded states after which the search stops with the best table found.
    time_limit:
        Seconds after which the search stops with the best table found.
    max_suppression:
        Share of the records that may be suppressed (violating rows when the budget runs out, classes
        failing the models IAB does not search for).
    """
    started = time.perf_counter()
    check_references(table, models)
    space = Space(table, models)
    limit = suppression_limit(max_suppression, table.n)
    names = [a.name for a in space.attrs]
    trace: list[dict[str, Any]] = []
    seen: set[bytes] = set()
    frontier: list[tuple[int, int, int]] = []
    cuts: dict[int, tuple[np.ndarray, ...]] = {}
    incumbent: _Seen | None = None
    best_fit: _Seen | None = None
    best_any: _Seen | None = None

    def record(state: _Seen, parent: int | None, attribute: str | None) -> None:
        nonlocal incumbent, best_fit, best_any
        trace.append({"state": state.id, "parent": parent, "attribute": attribute,
                      "violating": state.violating, "rows": state.rows, "expanded": False})
        if state.violating == 0:
            if incumbent is None or state.rows > incumbent.rows:
                incumbent = state
            return
        if best_any is None or state.rank > best_any.rank:
            best_any = state
        if state.violating_records <= limit and (best_fit is None or state.rank > best_fit.rank):
            best_fit = state
        heapq.heappush(frontier, (-state.rows, state.violating, state.id))
        cuts[state.id] = state.cut

    root_cut = space.root_cut()
    root_rows, root_key = space.rows(root_cut)
    seen.add(root_key)
    bad = root_rows.violating
    record(_Seen(0, len(root_rows.counts), int(bad.sum()), int(root_rows.counts[bad].sum()), root_cut), None, None)
    expanded = duplicates = 0
    report_progress(0, max_states)
    while True:
        if not frontier:
            stopped = "optimal" if incumbent is not None else "exhausted"
            break
        if incumbent is not None and -frontier[0][0] <= incumbent.rows:
            stopped = "optimal"
            break
        if expanded >= max_states:
            stopped = "budget"
            break
        if time.perf_counter() - started > time_limit:
            stopped = "time"
            break
        _, _, sid = heapq.heappop(frontier)
        cut = cuts.pop(sid)
        rows, _ = space.rows(cut)
        for a in range(len(space.attrs)):
            child = space.successor(rows, cut, a, seen)
            if isinstance(child, Child):
                state = _Seen(len(trace), child.rows, child.violating, child.violating_records, child.cut)
                record(state, sid, names[a])
            elif child == "duplicate":
                duplicates += 1
        trace[sid]["expanded"] = True
        expanded += 1
        if expanded % _PROGRESS_EVERY == 0:
            report_progress(expanded, max_states)
    report_progress(expanded, max_states)
    if incumbent is not None:
        chosen, result = incumbent, ("optimal" if stopped == "optimal" else "best found")
    else:
        chosen, result = (best_fit or best_any), "suppressed"
    assert chosen is not None  # the input table is always seen
    path: list[str] = []
    at: int | None = chosen.id
    while at is not None and trace[at]["attribute"] is not None:
        path.append(trace[at]["attribute"])
        at = trace[at]["parent"]
    params = {"max_states": max_states, "time_limit": time_limit, "max_suppression": max_suppression}
    rel = cut_release(space, chosen.cut, models, algorithm="iab", max_suppression=max_suppression,
                      params=params, started=started)
    rel.notes.update({
        "stopped": stopped,
        "result": result,
        "states_expanded": expanded,
        "states_generated": len(trace) - 1,
        "duplicates": duplicates,
        "path": path[::-1],
        "rows": chosen.rows,
        "violating": chosen.violating,
        "requirements": [r.text for r in space.requirements],
        "trace": trace,
    })
    return rel
