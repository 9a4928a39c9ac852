"""θ-sensitive k-anonymity, record level — a **reconstruction** of the baseline of paper D.

R. Khan, X. Tao, A. Anjum, T. Kanwal, S. U. R. Malik, A. Khan, W. U. Rehman, C. Maple, "θ-Sensitive
k-Anonymity: An Anonymization Model for IoT based Electronic Health Records", *Electronics* 9(5):716,
2020 (spec ``algorithms.md`` §1.5, §4.6); the baseline paper D (Fazal et al., PeerJ CS 9:e1255, 2023)
compares its (θ*, k)-utility angelization against. Only fragments of the 2020 paper were available:
the procedure below is the spec's reconstruction, marked as such in ``release.notes["reconstructed"]``.

The model (:class:`~anonkit.models.ThetaSensitivity`): every equivalence class has at least ``k``
records and the population variance of its records' sensitive *category* codes is at least
θ = λ·V_full(k).

Steps: the records are sorted (``order``: ``qi`` lexicographic on the QIs, ``hilbert`` along the
Hilbert curve; ties by record), cut into classes of ``k`` consecutive records (the remainder joins
the last class), and every class below θ is repaired — ``swap``: the exchange of one record with one
record of the *next* class that makes both pass with the smallest summed NCP, else a merge with the
next class (the last merges with the previous); ``merge``: merge directly
(:mod:`~anonkit.algorithms.bucket.theta_cut`, shared with angelization). Each class's QIs are then
generalized and judged by every model (:func:`~anonkit.algorithms.local.partition_release`: classes
publishing identical values are one class; classes failing another model, e.g. l-diversity, are
suppressed within ``max_suppression``).

Decisions
---------
* No ``noise`` repair: fake records would have to be published in the one table and marked in a
  private manifest; the baseline is compared on its swap/merge behaviour (spec §4.6 allows "noise/
  merge"; merge is the one kept).
* ``k`` is the largest k of the k-anonymity models and the θ model; λ the option ``lambda``, else
  the θ model's, else :data:`~anonkit.models.theta.DEFAULT_LAMBDA` (disagreement is an error); without
  a θ model one is implied (``implies``) with the class ``k`` and λ.
* It counts records, not persons: a table with a person column is refused. Run on 1:M data with
  the person column as an identifier, one person's records may land in several classes — the
  record-intersection weakness paper D exploits (spec §2.7, §4.6).
* θ unreachable even with all records in one class: an unsatisfied release that publishes nothing.

``notes``: ``reconstructed``, ``records``, ``classes_cut`` (classes after repair, before merging
identical ones), ``theta``, ``lambda``, ``k``, ``swaps``, ``merges``, ``order``, ``repair``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Annotated, Literal

import numpy as np
from pydantic import Field

from anonkit.algorithms.bucket import theta_cut as tc
from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression
from anonkit.algorithms.local import partition_release
from anonkit.algorithms.spec import algorithm
from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table

NAME = "theta-sensitive"
RECONSTRUCTED = ("reconstruction of Khan et al. 2020 (spec §4.6): sort by QI, cut into classes of k records, "
                 "swap with the next class or merge until the category variance reaches θ")


def _plan(table: Table, models: list[Criterion], options: Mapping[str, object]) -> tc.Plan:
    lam = options.get("lam", options.get("lambda"))
    return tc.resolve_plan(table, models, lam=lam, sensitive=options.get("sensitive"),  # type: ignore[arg-type]
                           algorithm=NAME, allow_other=True)


def _implies(table: Table, models: list[Criterion], options: Mapping[str, object]) -> list[Criterion]:
    """``models`` and, when none is given, θ-sensitive k-anonymity with the class ``k`` and λ."""
    return list(_plan(table, models, options).implied)


def _precheck(table: Table, models: list[Criterion], options: Mapping[str, object]) -> str | None:
    """Before the work: fewer records than ``k``; θ unreachable even with all records in one class."""
    plan = _plan(table, models, options)
    active = ~table.presuppressed
    cat = table.domains[plan.sensitive].category[table.sensitive_codes[plan.sensitive][active]]  # type: ignore[index]
    if len(cat) < plan.k:
        return f"{NAME} needs at least k = {plan.k} records, the table has {len(cat)}: lower k"
    return tc.total_verdict(cat, plan, units="records", group="class", noise_hint=False)


def _explain(table: Table, models: list[Criterion], release: Release, options: Mapping[str, object]) -> str | None:
    why = release.notes.get("unsatisfied")
    return str(why) if why else None


@algorithm(
    NAME,
    family="cluster",
    summary="θ-sensitive k-anonymity (record level, reconstructed): records sorted by QI, cut into classes of k "
    "whose sensitive categories vary by at least θ = λ·V_full(k), repaired by swaps with the next class or merges "
    "(the baseline of paper D)",
    label="θ-sensitive k-anonymity",
    reconstructed=True,
    persons=False,
    enforces=("k-anonymity", "theta-sensitivity"),
    implies=_implies,
    precheck=_precheck,
    explain=_explain,
)
def theta_sensitive(
    table: Table,
    models: list[Criterion],
    *,
    lam: Annotated[float | None, Field(alias="lambda", gt=0, le=1)] = None,
    order: tc.Order = tc.DEFAULT_ORDER,
    repair: Literal["swap", "merge"] = tc.DEFAULT_REPAIR,
    sensitive: str | None = None,
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
) -> Release:
    """θ-sensitive k-anonymity, record level (reconstructed); see the module docstring.

    Parameters
    ----------
    table, models:
        The encoded input (no person column) and the models; models other than k-anonymity and
        θ-sensitivity are judged afterwards (failing classes suppressed).
    lam:
        λ of θ = λ·V_full(k) (config key ``lambda``). Default: the θ-sensitivity model's, else 0.5.
    order:
        How records are sorted before the cut: qi (lexicographic on the QIs) or hilbert (Hilbert curve).
    repair:
        How a class below θ is repaired: swap (best swap with the next class, else merge) or merge.
    sensitive:
        The sensitive attribute (default: the θ model's, else the only one); it needs categories.
    max_suppression:
        Share of records the other models may suppress.

    Raises
    ------
    InputError
        A person column; fewer records than ``k``; no ``k``; a sensitive attribute without
        categories; ``lambda`` disagreeing with the θ model.
    """
    started = time.perf_counter()
    if table.person is not None:
        raise InputError(f"{NAME} counts records, not persons: give the person column role identifier to run the "
                         "record-level baseline", column=table.schema.person)
    plan = tc.resolve_plan(table, models, lam=lam, sensitive=sensitive, algorithm=NAME, allow_other=True)
    sa = plan.sensitive
    domain = table.domains[sa]
    assert domain.category is not None
    rows = np.flatnonzero(~table.presuppressed).astype(np.int64)
    k = plan.k
    if len(rows) < k:
        raise InputError(f"{NAME} needs at least k = {k} records, the table has {len(rows)}", key="k", value=k)
    codes = np.asarray(domain.category, dtype=np.int64)[np.asarray(table.sensitive_codes[sa], dtype=np.int64)[rows]]
    sorted_units = tc.unit_order(table, rows, rows, order)
    fixed = tc.repair(sorted_units, k, codes, rows, plan, repair, tc.ncp_space(table, rows))
    params = {"k": k, "lambda": plan.lam, "theta": plan.theta, "order": order, "repair": repair, "sensitive": sa,
              "max_suppression": max_suppression}
    notes: dict[str, object] = {
        "reconstructed": RECONSTRUCTED, "records": len(rows), "theta": plan.theta, "lambda": plan.lam, "k": k,
        "swaps": fixed.swaps, "merges": fixed.merges, "order": order, "repair": repair,
    }
    if not fixed.ok:
        why = (tc.total_verdict(codes, plan, units="records", group="class", noise_hint=False)
               or f"θ = {plan.theta:.6g} cannot be reached")
        d = len(table.qi)
        rel = Release(table, np.full(table.n, -1, dtype=np.int64), np.zeros((0, d), dtype=np.int64),
                      np.zeros((0, d), dtype=np.int64), NAME, satisfied=False,
                      message=f"the models cannot be met: {why}", params=params)
        rel.notes.update(notes, classes_cut=0, unsatisfied=why)
        rel.seconds = time.perf_counter() - started
        return rel
    record_class = np.full(table.n, -1, dtype=np.int64)
    record_class[rows] = fixed.bucket_of(len(rows))
    rel = partition_release(table, record_class, plan.implied, algorithm=NAME, max_suppression=max_suppression,
                            started=started, params=params)
    rel.record_group = record_class
    rel.notes.update(notes, classes_cut=len(fixed.lo))
    rel.seconds = time.perf_counter() - started
    return rel
