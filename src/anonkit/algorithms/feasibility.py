"""Why the privacy models cannot be met: proofs before the work, explanations after it.

A user whose models cannot be met must learn *why* and *what to change*, in one line. Two kinds of
reasons are computed here, both cheaply (a count over the table or one more class evaluation):

* :func:`impossible` — before any work: a configuration that no release can satisfy (an
  l-diversity model asking for more distinct sensitive values than the whole table holds), and the
  algorithm's own proofs (its declaration's ``precheck``: anatomy's groups smaller than ``k``…);
* :func:`explain` — after an algorithm returned a release that fails its models: whether the
  models fail even at the top of every hierarchy (full-domain) or with all records in one class
  (local recoding), and by how many records the suppression limit is missed, with the setting that
  would have to change (the declaration's ``explain`` and ``on_failure`` speak for the algorithm).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from anonkit.algorithms.common import suppression_limit
from anonkit.algorithms.local import record_stats
from anonkit.algorithms.spec import Algorithm
from anonkit.algorithms.transform import evaluate_node
from anonkit.models import Criterion, DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from anonkit.release import Release
from anonkit.table import Table

_DIVERSITY = (DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity)


def impossible(table: Table, models: list[Criterion], spec: Algorithm, options: Mapping[str, object]) -> str | None:
    """The reason no release of ``table`` can satisfy ``models``, or ``None`` when none is known.

    Every l-diversity variant needs at least ``⌈l⌉`` distinct sensitive values in every class
    (entropy-l: ``exp(H) ≤`` distinct values), so a table with fewer distinct values than that
    cannot be made l-diverse by any partition or suppression. Then the algorithm's own proof
    (its declaration's ``precheck``, e.g. anatomy's groups smaller than ``k``).
    """
    for m in models:
        if isinstance(m, _DIVERSITY):
            name = m.attribute
            present = _values_present(table, name)
            needed = math.ceil(m.l)
            if present < needed:
                return (
                    f"{m.describe()} needs {needed} distinct values of {name!r} in every class, but {name!r} has "
                    f"only {present} distinct value{'s' if present != 1 else ''} in the whole table: lower l to at "
                    f"most {present} or protect another attribute"
                )
    return spec.precheck(table, models, options) if spec.precheck is not None else None


def _values_present(table: Table, name: str) -> int:
    """How many distinct values of sensitive attribute ``name`` the records not suppressed up front hold, as
    ``np.unique`` of their codes counts them: the records counted per code (one pass, no sort) and the codes
    held counted; a negative code (none in an encoded table, whose codes number the domain) is left to
    ``np.unique``."""
    codes = table.sensitive_codes[name]
    if table.presuppressed.any():
        codes = codes[~table.presuppressed]
    try:
        return int(np.count_nonzero(np.bincount(codes)))
    except ValueError:  # (bincount takes no negative value)
        return int(np.unique(codes).size)


def explain(
    table: Table, models: list[Criterion], release: Release, spec: Algorithm, options: Mapping[str, object]
) -> str:
    """One line: why ``release`` fails ``models`` and what to change (see the module docstring)."""
    share = options.get("max_suppression", release.params.get("max_suppression"))
    limit = suppression_limit(float(share), table.n_records) if share is not None else None  # type: ignore[arg-type]
    if release.n_released == 0 and release.satisfied:
        return "every record would be suppressed: nothing could be released; relax the models"
    own = spec.explain(table, models, release, options) if spec.explain is not None else None
    if own is not None:
        return own
    n = table.n_records
    limit_text = "" if limit is None else f", the limit is {limit:,} ({_pct(limit, n)} of {n:,})"
    if release.transformation is not None:  # full-domain: the top node is the most general release
        top = [a.max_level if a.max_level is not None else h.height
               for a, h in zip((table.schema[q] for q in table.qi), table.hierarchies, strict=True)]
        ev = evaluate_node(table, top, models, float(share) if share is not None else 1.0)  # type: ignore[arg-type]
        if ev.suppressed > (limit if limit is not None else ev.limit):
            failing = _failing_at(table, models, top)
            where = ", ".join(f"{q}={lv}" for q, lv in zip(table.qi, top, strict=True))
            return (
                f"even at the top of every hierarchy ({where}) {ev.suppressed:,} records fail "
                f"{_names(failing)}{limit_text}: relax the models or raise algorithm.max_suppression to at least "
                f"{_ceil_share(ev.suppressed, table.n_records)}"
            )
    else:
        failing = _failing_whole(table, models)
        if failing:
            return (
                f"even all records in one class fail {_names(failing)}: relax the models (no grouping can meet them)"
            )
    needed = release.n_suppressed - int(table.presuppressed.sum())
    hint = spec.on_failure
    if hint == Algorithm.on_failure:
        hint = f"raise algorithm.max_suppression to at least {_ceil_share(needed, table.n_records)} or relax the models"
    return f"{needed:,} records would have to be suppressed{limit_text}: {hint}"


def _failing_at(table: Table, models: list[Criterion], levels: list[int]) -> list[Criterion]:
    """The models that suppress records at the full-domain node ``levels`` on their own."""
    return [m for m in models if evaluate_node(table, levels, [m], 1.0).suppressed > 0] or list(models)


def _failing_whole(table: Table, models: list[Criterion]) -> list[Criterion]:
    """The models that fail when all records (but those suppressed up front) form one class.

    Record-level models (background knowledge, spec §1.7) are judged from each record's prior, not
    from class statistics: they are left out here (their own explanation names them)."""
    one = np.where(table.presuppressed, -1, 0).astype(np.int64)
    judged = [m for m in models if m.qis is None and not m.spec.record_level]
    stats = record_stats(table, one, 1, judged)
    return [m for m in judged if not bool(m.passes(stats)[0])]


def _names(models: list[Criterion]) -> str:
    return " and ".join(m.describe() for m in models)


def _pct(count: int, n: int) -> str:
    return f"{100.0 * count / n:.3g} %" if n else "0 %"


def _ceil_share(count: int, n: int) -> str:
    """The smallest ``max_suppression`` (rounded up to 4 decimals) whose limit admits ``count``."""
    return f"{math.ceil(10_000 * count / n) / 10_000:g}" if n else "0"
