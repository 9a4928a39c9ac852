"""The measures of the 1:M paper (source D, spec §2.7): several records per person.

A release of 1:M data is judged per *person*, not per record: how much its quasi table QT
generalizes each person (:func:`ncp_per_person`), how well it answers COUNT queries
(:func:`query_accuracy` over :func:`random_count_queries`), whether a person's records, spread
over several classes, let an adversary intersect the classes' sensitive values
(:func:`record_intersection`), and how likely the adversary links a person to their
representative sensitive value (:func:`linkability`). :func:`one_to_many_measures` computes them
all as one JSON-ready dict. (Execution time, the fifth measure of §2.7, is the caller's wall clock.)

Every measure works from a :class:`~anonkit.table.Table` and a :class:`~anonkit.release.Release`
alone, so it serves every algorithm for 1:M data:

* **What a class publishes about the sensitive attribute**: ``release.sensitive_histogram[c, v]``
  when the release sets it (angelization's ST counts, the expected counts of (k,l)-diversity's
  generalized transactions), otherwise the number of the class's records with value ``v``
  (:func:`published_histogram`). A value is *published* for a class when its count is positive.
* **Persons**: ``person`` (any labels, one per record) or else ``table.person``; without either,
  every record is its own person.
* **Suppressed records** (``record_class == −1``) are in the data, so they count in the actual
  answers of the queries and in the number of records of a person, but they publish nothing: they
  add nothing to an estimate, to a person's classes (the intersection attack) or to the classes a
  person is linked through. For NCP a person's suppressed records form one pair charged 1 per
  quasi-identifier (spec §2.1's rule for suppressed records).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from anonkit.errors import InputError
from anonkit.metrics._count_queries import (
    DEFAULT_QUERIES,
    DEFAULT_QUERY_DIMENSION,
    DEFAULT_SELECTIVITY,
    CountQueries,
    QueryAccuracy,
    query_accuracy,
    random_count_queries,
)
from anonkit.metrics._persons import check_release, person_codes, published_histogram, released_pairs, sensitive_name
from anonkit.metrics.ncp import ncp_classes
from anonkit.release import Release
from anonkit.table import Table

__all__ = [
    "DEFAULT_INTERSECTION_L",
    "DEFAULT_QUERIES",
    "DEFAULT_QUERY_DIMENSION",
    "DEFAULT_SELECTIVITY",
    "CountQueries",
    "Linkability",
    "QueryAccuracy",
    "RecordIntersection",
    "linkability",
    "ncp_per_person",
    "one_to_many_measures",
    "published_histogram",
    "query_accuracy",
    "random_count_queries",
    "record_intersection",
]

#: a person is breached when the intersection of their classes' sensitive values has fewer values
DEFAULT_INTERSECTION_L = 2


# ---------------------------------------------------------------------------- NCP
def ncp_per_person(table: Table, release: Release, *, person: np.ndarray | None = None) -> float:
    """NCP of the quasi table QT, one row per individual (spec §2.7, §2.1), in ``[0, 1]``.

    The mean, over the distinct (person, class) pairs of the release, of the class's §2.1 NCP
    averaged over the quasi-identifiers (``Σ_A NCP_A / d``, so the value is on GCP's scale):
    angelization and (k,l)-diversity publish a person in one class, one pair per person; a
    record-level release that spreads a person over several classes publishes one QT row per
    class, so such a person counts once per class. A person's suppressed records, if any, form one
    more pair charged 1 (every attribute fully generalized, spec §2.1). The per-class NCP is
    :func:`~anonkit.metrics.ncp.ncp_classes`'. 0 without quasi-identifiers.
    """
    check_release(table, release)
    codes, _ = person_codes(table, person)
    d = len(table.qi)
    if d == 0:
        return 0.0
    per_class = ncp_classes(table, release).mean(axis=1) if release.n_classes else np.zeros(0)
    rc = release.record_class
    C1 = np.int64(release.n_classes + 1)
    pairs = np.unique(codes * C1 + (rc.astype(np.int64) + 1))  # class −1 (suppressed) → 0
    cls = pairs % C1 - 1
    values = np.ones(len(pairs))
    values[cls >= 0] = per_class[cls[cls >= 0]]
    return float(values.mean())


# ---------------------------------------------------------------------------- record intersection
@dataclass(frozen=True)
class RecordIntersection:
    """The intersection attack on persons spread over several classes (spec §2.7): of the
    ``persons_with_several_records``, ``spread`` have released records in ≥ 2 classes and
    ``breached`` of those leave fewer than ``l`` sensitive values in the intersection of their
    classes' published values; ``rate = breached / persons_with_several_records`` (0.0 when none)."""

    persons_with_several_records: int
    spread: int
    breached: int
    rate: float

    def as_dict(self) -> dict[str, int | float]:
        return {"persons_with_several_records": self.persons_with_several_records, "spread": self.spread,
                "breached": self.breached, "rate": self.rate}


def record_intersection(
    table: Table,
    release: Release,
    *,
    sensitive: str | None = None,
    person: np.ndarray | None = None,
    l: int = DEFAULT_INTERSECTION_L,  # noqa: E741 - the l of l-diversity
) -> RecordIntersection:
    """The record-intersection measure (spec §2.7; see :class:`RecordIntersection`).

    A person's records count all their input records (suppressed ones too); the classes they lie
    in are those of their released records (a suppressed record is in no class). The values a
    class publishes are those with a positive count in :func:`published_histogram`. With every
    person in one class the rate is 0.
    """
    check_release(table, release)
    if isinstance(l, bool) or not isinstance(l, int | np.integer) or l < 1:
        raise InputError("l must be a whole number ≥ 1", key="l", value=l)
    hist = published_histogram(table, release, sensitive)
    codes, n_persons = person_codes(table, person)
    several = int(np.count_nonzero(np.bincount(codes, minlength=n_persons) >= 2))
    pp, pc = released_pairs(release, codes)
    n_classes = np.bincount(pp, minlength=n_persons)
    spread = n_classes >= 2
    take = spread[pp]
    pp, pc = pp[take], pc[take]
    # the published values of every pair's class, expanded; count per (person, value)
    m = hist.shape[1]
    s_cls, s_val = np.nonzero(hist > 0)
    per_class = np.bincount(s_cls, minlength=release.n_classes)
    start = np.cumsum(per_class) - per_class
    length = per_class[pc]
    pos = np.repeat(start[pc], length) + (np.arange(int(length.sum())) - np.repeat(np.cumsum(length) - length, length))
    key = np.repeat(pp, length) * np.int64(m) + s_val[pos]
    uniq, count = np.unique(key, return_counts=True)
    owner = uniq // m
    common = np.bincount(owner[count == n_classes[owner]], minlength=n_persons)
    breached = int(np.count_nonzero(spread & (common < l)))
    return RecordIntersection(several, int(spread.sum()), breached, breached / several if several else 0.0)


# ---------------------------------------------------------------------------- linkability
@dataclass
class Linkability:
    """The probability that the adversary links every person to their representative sensitive
    value (``probability``, one per person), its ``mean`` and ``max``."""

    mean: float
    max: float
    probability: np.ndarray = field(repr=False)
    representative: np.ndarray = field(repr=False)

    def as_dict(self) -> dict[str, float]:
        return {"mean": self.mean, "max": self.max}


def linkability(
    table: Table,
    release: Release,
    *,
    sensitive: str | None = None,
    person: np.ndarray | None = None,
) -> Linkability:
    """Record linkability (spec §2.7; see :class:`Linkability`).

    A person's representative value is that of their record with the highest category
    (``domain.category``; ties: the earliest record), or without categories their earliest
    record's value. The probability through a class is the class's published count of that value
    over the class's total published count (:func:`published_histogram`; 0 for a class publishing
    nothing); a person in several classes takes the largest. A person none of whose records is
    released has probability 0 (the release tells nothing about them) and counts in the mean. A
    suppressed record still may be a person's representative: the adversary's target is the
    person's true value.
    """
    check_release(table, release)
    name = sensitive_name(table, sensitive)
    hist = published_histogram(table, release, name)
    codes, n_persons = person_codes(table, person)
    values = table.sensitive_codes[name].astype(np.int64)
    category = table.domains[name].category
    rank = category[values] if category is not None else np.zeros(table.n, dtype=np.int64)
    best = np.full(n_persons, np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(best, codes, rank)
    top = np.flatnonzero(rank == best[codes])
    first = np.full(n_persons, table.n, dtype=np.int64)
    np.minimum.at(first, codes[top], top)
    representative = values[first]
    prob = np.zeros(n_persons)
    if release.n_classes:
        totals = hist.sum(axis=1)
        pp, pc = released_pairs(release, codes)
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.where(totals[pc] > 0, hist[pc, representative[pp]] / np.where(totals[pc] > 0, totals[pc], 1.0),
                         0.0)
        np.maximum.at(prob, pp, p)
    return Linkability(float(prob.mean()) if n_persons else 0.0, float(prob.max()) if n_persons else 0.0, prob,
                       representative)


# ---------------------------------------------------------------------------- all of them
def one_to_many_measures(
    table: Table,
    release: Release,
    *,
    sensitive: str | None = None,
    person: np.ndarray | None = None,
    queries: int = DEFAULT_QUERIES,
    query_dimension: int | None = None,
    selectivity: float = DEFAULT_SELECTIVITY,
    seed: int = 0,
    l: int = DEFAULT_INTERSECTION_L,  # noqa: E741 - the l of l-diversity
) -> dict[str, object]:
    """The measures of paper D (spec §2.7) as a JSON-ready dict.

    ``ncp`` (:func:`ncp_per_person`), ``query_accuracy``, ``query_error`` and ``queries``
    (:func:`query_accuracy` over :func:`random_count_queries` with ``queries``,
    ``query_dimension`` — by default :data:`DEFAULT_QUERY_DIMENSION` capped at the number of
    quasi-identifiers — ``selectivity``, ``seed``; with no quasi-identifier there is nothing to
    query: ``None``, ``None`` and 0), ``record_intersection``
    (:func:`record_intersection` with ``l``: ``persons_with_several_records``, ``spread``,
    ``breached``, ``rate``) and ``linkability`` (:func:`linkability`: ``mean``, ``max``). See the
    module docstring for persons, published values and suppressed records.
    """
    name = sensitive_name(table, sensitive)
    accuracy: tuple[float | None, float | None, int] = (None, None, 0)
    if table.qi or query_dimension is not None:  # (a dimension given is held to 1 … d)
        qs = random_count_queries(table, sensitive=name, queries=queries, query_dimension=query_dimension,
                                  selectivity=selectivity, seed=seed)
        acc = query_accuracy(table, release, qs)
        accuracy = (acc.accuracy, acc.error, acc.queries)
    return {
        "ncp": ncp_per_person(table, release, person=person),
        "query_accuracy": accuracy[0],
        "query_error": accuracy[1],
        "queries": accuracy[2],
        "record_intersection": record_intersection(table, release, sensitive=name, person=person, l=l).as_dict(),
        "linkability": linkability(table, release, sensitive=name, person=person).as_dict(),
    }
