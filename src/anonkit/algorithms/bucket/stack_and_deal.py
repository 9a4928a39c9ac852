"""Stack and Deal (Thammanna Gowda, CS&IT 11(11), 2021; spec §4.8).

The records are *stacked* by the frequency of their sensitive value — most frequent value first,
values of equal frequency in the domain's value order (so equal values stay contiguous), records of
one value by record id — and *dealt* cyclically into ``e = ⌊r/k⌋`` equivalence classes: the record
at stack position ``i`` (0-based) goes to class ``i mod e``. The dealing is one stable integer sort
and a modulo; nothing loops over records.

Properties (by construction): class sizes are ``⌊r/e⌋`` or ``⌈r/e⌉`` — between ``k`` and ``2k − 1``,
not "exactly k" as the paper says (spec §8 row 19); for every sensitive value the per-class counts
differ by at most one, so every value with ``f_v ≥ e`` appears in every class.

The quasi-identifiers play no part in forming the classes (spec §8 row 20): each class is then
generalized on its own by :func:`~anonkit.algorithms.local.partition_release` (numeric QIs to the
class's ``[min, max]`` interval, categorical ones to the lowest common ancestor), which typically
costs a great deal of utility — the release reports its NCP (``notes["ncp"]``, the GCP of
:func:`anonkit.metrics.gcp`) beside the diversity figures. Classes failing a model are suppressed
whole, as for every local recoding.

Diversity figures in ``Release.notes`` (over the released classes):

* ``distinct_l`` — the fewest distinct sensitive values in a class;
* ``max_emd`` — the largest equal-distance EMD ``½ Σ_j |p_j − q_j|`` between a class's distribution
  ``p_j = g_j / |EC|`` and the table's ``q_j = f_j / r``. The paper writes the class distribution as
  ``g_j / r``, which is not a distribution (erratum, spec §8 row 18);
* ``max_beta`` — the largest relative gain ``(p_j − q_j)/q_j`` (basic β-likeness);
* ``ncp`` — :func:`anonkit.metrics.gcp` of the release (suppressed records charged in full).

Records suppressed up front (``missing="suppress"``) are not dealt: ``r`` counts the others.
"""

from __future__ import annotations

import time
from typing import Annotated

import numpy as np
from pydantic import Field

from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression, largest_k
from anonkit.algorithms.local import partition_release
from anonkit.algorithms.spec import algorithm
from anonkit.errors import InputError
from anonkit.metrics import gcp
from anonkit.models import Criterion
from anonkit.release import Release, nothing_released
from anonkit.table import Table

#: k when neither the argument nor a k-anonymity model gives one (spec §6)
DEFAULT_K = 5


# ---------------------------------------------------------------------------------------- the core
def stack_order(codes: np.ndarray, n_values: int | None = None) -> np.ndarray:
    """Record positions in stacking order: by value frequency descending, ties by value code
    (the domain's value order), then by position."""
    codes = np.asarray(codes, dtype=np.int64)
    m = int(codes.max()) + 1 if n_values is None and codes.size else int(n_values or 0)
    freq = np.bincount(codes, minlength=m)
    rank = np.empty(m, dtype=np.int64)
    rank[np.lexsort((np.arange(m), -freq))] = np.arange(m)
    return np.argsort(rank[codes], kind="stable")


def deal(codes: np.ndarray, k: int, n_values: int | None = None) -> tuple[np.ndarray, int]:
    """The class (``0..e−1``) of every record dealt by Stack and Deal, and ``e = ⌊r/k⌋``.

    With ``r < k`` there is no class: every record gets ``−1`` and ``e = 0``.
    """
    r = len(codes)
    e = r // int(k)
    out = np.full(r, -1, dtype=np.int64)
    if e == 0:
        return out, 0
    out[stack_order(codes, n_values)] = np.arange(r, dtype=np.int64) % e
    return out, e


def random_deal(r: int, k: int, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """Random classes of the Stack-and-Deal sizes: shuffle the records, then deal cyclically."""
    e = r // int(k)
    out = np.full(r, -1, dtype=np.int64)
    if e == 0:
        return out, 0
    out[rng.permutation(r)] = np.arange(r, dtype=np.int64) % e
    return out, e


def class_histogram(codes: np.ndarray, record_class: np.ndarray, n_classes: int, n_values: int) -> np.ndarray:
    """``(C × S)`` counts of every sensitive value in every class (records of class ``−1`` ignored)."""
    keep = record_class >= 0
    flat = record_class[keep].astype(np.int64) * n_values + np.asarray(codes, dtype=np.int64)[keep]
    return np.bincount(flat, minlength=n_classes * n_values).reshape(n_classes, n_values)


def diversity(hist: np.ndarray, reference: np.ndarray) -> dict[str, float]:
    """Distinct-l, maximum and mean equal-distance EMD and maximum basic β of classes.

    ``hist`` is the ``(C × S)`` class histogram, ``reference`` the table's distribution ``f_j / r``.
    The class distribution is ``p_j = g_j / |EC|`` (the erratum of spec §8 row 18). Without
    classes: distinct-l 0 and NaN distances.
    """
    if hist.shape[0] == 0:
        nan = float("nan")
        return {"distinct_l": 0, "max_emd": nan, "mean_emd": nan, "max_beta": nan}
    sizes = hist.sum(axis=1, keepdims=True)
    p = hist / np.where(sizes > 0, sizes, 1)
    emd = 0.5 * np.abs(p - reference).sum(axis=1)
    q = np.where(reference > 0, reference, 1.0)
    gain = np.where((p > reference) & (reference > 0), (p - reference) / q, 0.0)
    return {
        "distinct_l": int(np.count_nonzero(hist, axis=1).min()),
        "max_emd": float(emd.max()),
        "mean_emd": float(emd.mean()),
        "max_beta": float(gain.max()),
    }


# ---------------------------------------------------------------------------------------- parameters
def resolve_k(models: list[Criterion], k: int | None) -> int:
    """``k`` as given, else the largest k of the k-anonymity models, else :data:`DEFAULT_K`."""
    if k is None:
        k = largest_k(models) or DEFAULT_K
    return int(k)


def resolve_sensitive(table: Table, sensitive: str | None, algorithm: str) -> str:
    """The sensitive attribute as given (it must be one), else the table's first."""
    if sensitive is None:
        if not table.sensitive:
            raise InputError(f"{algorithm} needs a sensitive attribute; the schema declares none")
        return table.sensitive[0]
    if sensitive not in table.sensitive:
        raise InputError(f"{algorithm}: not a sensitive attribute of the schema", column=sensitive)
    return sensitive


# ---------------------------------------------------------------------------------------- releases
def release_of(
    table: Table,
    record_class: np.ndarray,
    models: list[Criterion],
    *,
    algorithm: str,
    max_suppression: float,
    started: float,
    params: dict,
    empty_message: str,
    merge_identical: bool = True,
    own_classes: bool = False,
) -> Release:
    """:func:`partition_release` of ``record_class``, or — when no record has a class — a release
    that suppresses everything (``partition_release`` cannot take an all-``−1`` partition).
    ``own_classes``: see :func:`partition_release`."""
    if (np.asarray(record_class)[~table.presuppressed] >= 0).any():
        return partition_release(
            table,
            record_class,
            models,
            algorithm=algorithm,
            max_suppression=max_suppression,
            started=started,
            params=params,
            merge_identical=merge_identical,
            own_classes=own_classes,
        )
    return nothing_released(table, algorithm, empty_message, params=params, seconds=time.perf_counter() - started)


# ---------------------------------------------------------------------------------------- algorithm
@algorithm("stack-and-deal", family="bucket", summary="equal-size, maximally diverse classes: records stacked by "
           "sensitive value and dealt round-robin (paper E)", enforces=("k-anonymity",))
def stack_and_deal(
    table: Table,
    models: list[Criterion],
    *,
    sensitive: str | None = None,
    k: Annotated[int, Field(ge=1)] | None = None,
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
) -> Release:
    """Stack and Deal; see the module docstring.

    Parameters
    ----------
    table, models:
        The encoded input and the privacy models every published class must satisfy (failing classes
        are suppressed).
    sensitive:
        The sensitive attribute to stack by (default: the table's first).
    k:
        Class size target; ``e = ⌊r/k⌋`` classes (default: the largest k of the k-anonymity models,
        else 5). With ``r < k`` nothing can be published: every record is suppressed and
        ``satisfied`` is False.
    max_suppression:
        Share of records the models may suppress.
    """
    started = time.perf_counter()
    k = resolve_k(models, k)
    sa = resolve_sensitive(table, sensitive, "stack-and-deal")
    codes = table.sensitive_codes[sa].astype(np.int64)
    m = table.domains[sa].size
    active = np.flatnonzero(~table.presuppressed)
    dealt, e = deal(codes[active], k, m)
    record_class = np.full(table.n, -1, dtype=np.int64)
    record_class[active] = dealt
    r = len(active)
    rel = release_of(
        table,
        record_class,
        models,
        algorithm="stack-and-deal",
        max_suppression=max_suppression,
        started=started,
        params={"k": k, "sensitive": sa, "max_suppression": max_suppression},
        empty_message=f"the models cannot be met: {r} records are fewer than k = {k}, no class can be formed",
    )
    f = np.bincount(codes[active], minlength=m).astype(np.float64)
    reference = f / r if r else f
    hist = class_histogram(codes, rel.record_class, rel.n_classes, m)
    rel.notes.update(diversity(hist, reference))
    rel.notes["classes_dealt"] = e
    rel.notes["ncp"] = float(gcp(table, rel))
    rel.seconds = time.perf_counter() - started
    return rel
