"""The inputs every measure of the 1:M paper shares (:mod:`anonkit.metrics.one_to_many` states the
rules): the sensitive attribute a measure is about, the person of every record, and what every
class publishes about the sensitive attribute (:func:`published_histogram`)."""

from __future__ import annotations

import numpy as np

from anonkit.errors import InputError
from anonkit.release import Release
from anonkit.table import Table

__all__ = ["check_release", "person_codes", "published_histogram", "released_pairs", "sensitive_name"]


def sensitive_name(table: Table, sensitive: str | None) -> str:
    """The sensitive attribute a measure is about: ``sensitive``, or the table's only one."""
    if sensitive is None:
        if len(table.sensitive) != 1:
            raise InputError(
                f"the table has {len(table.sensitive)} sensitive attributes; name one", key="sensitive"
            )
        return table.sensitive[0]
    if sensitive not in table.domains:
        raise InputError("not a sensitive attribute of the table", key="sensitive", value=sensitive)
    return sensitive


def person_codes(table: Table, person: np.ndarray | None) -> tuple[np.ndarray, int]:
    """Dense person codes ``0 … P−1`` of every record and ``P``."""
    if person is None:
        if table.person is not None:
            return np.asarray(table.person, dtype=np.int64), int(table.n_persons)
        return np.arange(table.n, dtype=np.int64), table.n
    person = np.asarray(person)
    if person.ndim != 1 or len(person) != table.n:
        raise InputError(f"person must give one person per record ({table.n:,})", key="person",
                         value=person.shape)
    uniq, codes = np.unique(person, return_inverse=True)
    return codes.astype(np.int64), len(uniq)


def check_release(table: Table, release: Release) -> None:
    """A release of this table: one class (or −1) per record."""
    if len(release.record_class) != table.n:
        raise InputError(f"the release has {len(release.record_class):,} records, the table {table.n:,}",
                         key="release")


def published_histogram(table: Table, release: Release, sensitive: str | None = None) -> np.ndarray:
    """``(C × m)`` what every class publishes about ``sensitive``: ``release.sensitive_histogram``
    when set (as floats), else the counts of the class's records per value."""
    check_release(table, release)
    name = sensitive_name(table, sensitive)
    m = table.domains[name].size
    C = release.n_classes
    if release.sensitive_histogram is not None:
        hist = np.asarray(release.sensitive_histogram, dtype=np.float64)
        if hist.shape != (C, m):
            raise InputError(f"sensitive_histogram must be (classes × values) = ({C} × {m}), got {hist.shape}",
                             key="sensitive_histogram")
        return hist
    rc = release.record_class
    kept = rc >= 0
    codes = table.sensitive_codes[name]
    flat = rc[kept].astype(np.int64) * m + codes[kept]
    return np.bincount(flat, minlength=C * m).astype(np.float64).reshape(C, m)


def released_pairs(release: Release, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (person, class) pairs of the released records, sorted by person."""
    rc = release.record_class
    kept = rc >= 0
    C = max(release.n_classes, 1)
    key = np.unique(codes[kept] * np.int64(C) + rc[kept])
    return key // C, key % C
