"""Mondrian multidimensional partitioning (LeFevre, DeWitt, Ramakrishnan, ICDE 2006; spec §5.4).

The records are cut recursively. A partition ``P`` tries its quasi-identifiers in order of
*normalized width* (numeric: the range of ``P``'s values over the table's range; categorical: the
leaves below ``P``'s node — the lowest common ancestor of its values — over the hierarchy's leaves;
ties: the first QI) and takes the first *allowable* cut:

* numeric QI, strict mode: the frequency-set median ``v`` — the first value whose cumulative count
  reaches ``⌊|P|/2⌋`` — gives ``left = {x ≤ v}`` and ``right = {x > v}``;
* numeric QI, relaxed mode: the records are ordered by value (ties by record order) and split into
  halves of ``⌊|P|/2⌋`` and ``⌈|P|/2⌉`` records, so records equal to the median may go either way;
* categorical QI ("basic Mondrian"): the records are grouped by the child, one level below ``P``'s
  node, of the node their value falls under; empty children do not exist.

A cut is allowable when it yields at least two non-empty children, each with at least ``k`` records
(``k`` = the largest ``minimum_class_size`` of the models, the largest k of the k-anonymity models
among them) and each satisfying every model (``Criterion.passes`` on the children's statistics).
A partition without an allowable cut becomes a final group.

k-map and δ-presence (a research subset of a population, :mod:`anonkit.models.population`) are judged
on the population records inside the region each child *publishes* — the tight box of its records:
the interval ``[min, max]`` of every numeric QI, the lowest common ancestor of every categorical one —
as the verifier recounts it from the published cells (:mod:`anonkit.algorithms.partition.regions`).
A cut is allowed only when every child's box still covers ``k`` population records (and keeps δ within
dmax). Relaxed mode's partitions published alike are one class whose δ may exceed dmax: such a class
is suppressed after the release is built, as is a whole table that fails. δ-presence with ``dmin > 0``
is refused before any work (population records between the boxes would have δ = 0 and nothing to
suppress), as is a numeric QI with missing values (a class holding one publishes a hierarchy node).

The whole table must satisfy the models itself, otherwise nothing can be released and the result is a
single (suppressed) class. In relaxed mode, final groups that would be published alike (overlapping
halves can produce them) become one class (``partition_release`` merges them). Records suppressed up
front (``Table.presuppressed``) take no part. A missing value of a numeric QI counts as one more value above all others.

Implementation: the partitions of one depth are processed together, breadth first. Every partition
is a contiguous block of columns of a code matrix with one row per QI (numeric: value ranks;
categorical: leaf positions in depth-first order of the hierarchy, so every node's leaves are a
range and a group's lowest common ancestor is that of its smallest and largest position) and per
sensitive attribute the models need. A cut re-orders the block stably into its children, so every
kernel reads memory sequentially. The median comes from radix selection on the ranks (O(|P|), no
sort). The models judge all candidate children of a depth in one vectorized call. Work per depth is
O(n); there are O(log n) depths. Everything is deterministic.

Two cores: from ``PARALLEL_ROWS`` (200,000) active records up, the depths below the first with several
partitions run on two threads, each cutting its own groups of partitions (disjoint ranges of rows)
with the GIL-free kernels, and handing half of its partitions to the other thread when that one runs
out of work. Partitions are independent once cut and the final ones are numbered after both threads
finish, in the single loop's order, so the result is the same, record for record, as on one thread
(see :func:`cut`).
"""

from __future__ import annotations

import time
from typing import Literal

import numpy as np

from anonkit._kernels import usable_cores
from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression
from anonkit.algorithms.local import partition_release
from anonkit.algorithms.partition.core import (
    PARALLEL_ROWS,
    WHOLE_TABLE_FAILS,
    Accept,
    cut,
    min_class_size,
    model_accept,
    protected_attributes,
    table_passes,
)
from anonkit.algorithms.partition.encoding import Encoding
from anonkit.algorithms.partition.regions import (
    check_countable,
    enforce_on_release,
    explain_population,
    mondrian_population,
    population_models,
)
from anonkit.algorithms.spec import algorithm
from anonkit.models import Criterion
from anonkit.models.population import counts_published_regions
from anonkit.release import Release
from anonkit.table import Table

Mode = Literal["strict", "relaxed"]


# ---------------------------------------------------------------------------------------- algorithm
@algorithm("mondrian", family="partition", summary="top-down multidimensional partitioning (strict or relaxed) "
           "with every model as the split condition; numeric quasi-identifiers become intervals", label="Mondrian",
           engines=("local", "spark"), runners={"spark": "anonkit.engines.spark_partition:partition_on_spark"},
           explain=explain_population)
def mondrian(
    table: Table,
    models: list[Criterion],
    *,
    mode: Mode = "strict",
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
) -> Release:
    """Mondrian multidimensional k-anonymity, extended to every model (see the module docstring).

    Parameters
    ----------
    mode:
        ``strict`` partitions (no value on both sides of a cut) or ``relaxed`` ones (a cut value's
        records may be split to balance the halves).
    max_suppression:
        Share of the records the models may suppress.

    ``notes["partitions"]`` is the number of final partitions. In relaxed mode, partitions that would
    be published alike (the same intervals and nodes: overlapping halves can produce them) are one
    class of the release, so it may have fewer classes than partitions.
    """
    started = time.perf_counter()
    models = list(models)
    params = {"mode": mode}
    record_class = np.zeros(table.n, dtype=np.int64)
    record_class, partitions = _partition(table, models, mode, record_class)
    counted = population_models(models)  # judged on the published regions, after the release is built
    rest = [m for m in models if m not in counted]

    def build(rc: np.ndarray) -> Release:
        return partition_release(table, rc, rest, algorithm="mondrian", max_suppression=max_suppression,
                                 started=started, params=params)

    rel = enforce_on_release(table, record_class, build(record_class), counted, build)
    rel.notes["partitions"] = partitions
    if rel.n_classes == 0 and partitions == 1:
        rel.message = WHOLE_TABLE_FAILS
    return rel


counts_published_regions(mondrian.spec.name)  # k-map and δ-presence on the published boxes


def _partition(table: Table, models: list[Criterion], mode: str, record_class: np.ndarray) -> tuple[np.ndarray, int]:
    """Fill in the class of every record (pre-suppressed ones: any); return it with the number of
    final partitions. The whole table is one class when it fails the models."""
    kmin = min_class_size(models)
    hist_attrs = protected_attributes(models)
    pre = table.presuppressed.any()
    active = np.flatnonzero(~table.presuppressed) if pre else None
    n = table.n if active is None else len(active)
    if n == 0:
        return record_class, 0
    root_hist = {
        a: np.bincount(
            table.sensitive_codes[a] if active is None else table.sensitive_codes[a][active],
            minlength=table.domains[a].size,
        )[None, :].astype(float)
        for a in hist_attrs
    }
    enc, extra, root = None, None, None
    if population_models(models):  # the population inside every child's published region (regions.py)
        check_countable(table, active)
        enc = Encoding(table, active, hist_attrs)
        extra, root = mondrian_population(table, enc)
    if not table_passes(n, root_hist, table.domains, models, kmin, None if root is None else root(enc.X)):
        return record_class, 1  # one class, which the models fail: nothing is released

    enc = Encoding(table, active, hist_attrs) if enc is None else enc
    perm = np.arange(n, dtype=np.int64) if active is None else active.astype(np.int64)
    accept = model_accept(enc.d, hist_attrs, table.domains, models, extra)
    n_final = cut(enc, enc.X, perm, kmin, accept, record_class, relaxed=mode == "relaxed", threads=_cores())
    return record_class, n_final


def _cores() -> int:
    """Threads for Mondrian's loop: the cores this process may use, at most 2."""
    return min(2, usable_cores())


__all__ = ["PARALLEL_ROWS", "Accept", "Mode", "cut", "mondrian"]
