"""A one-table release whose suppressed cells are wildcards, read as an attacker reads it.

A release of the ``suppress`` family (``local-suppression``: sdcMicro's semantics) publishes a
suppressed quasi-identifier cell as a marker (``*``) that matches **any** value. Its rows then do
not fall into disjoint classes of identical cells: a row is *compatible* with every published row
that agrees with it on the quasi-identifiers both leave unsuppressed (itself included), and the
rows compatible with a row are what an attacker holding that row's published cells cannot tell
apart. The audit's figures on such a release are read on that set:

* a row's **compatible count** ``fk`` is the independent verifier's count
  (:func:`anonkit._verify_wildcard.wildcard_counts`), so the audit's k-anonymity is the
  verifier's, and a record's prosecutor risk is ``1 / fk``;
* the sensitive values an attacker sees for a row are those of its compatible rows: the
  **compatible histogram** is the sum of the exact histograms of the compatible patterns. Every
  class model that judges sizes and histograms (k-anonymity, every l-diversity, t-closeness) is
  judged on it, as are the homogeneity, similarity and skewness attacks.

:func:`wildcard_table` returns a :class:`~anonkit.analytics.published.PublishedRelease` whose
"classes" are the distinct published quasi-identifier *patterns* (rows of identical cells, marker
included; an all-marker row is a record like any other, compatible with every row):
``stats.sizes`` the rows of each pattern (the targets an attack weighs), ``stats.hist`` the
compatible histograms, ``compatible`` the compatible counts and ``released`` the release's own
sensitive counts (the baselines). The work is on distinct patterns: patterns are grouped by their
set of suppressed columns, every pair of groups is joined on the columns both keep (one integer key
per pattern), and the compatible pairs form a sparse pattern × pattern matrix — never a matrix over
records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from anonkit._verify_wildcard import wildcard_counts
from anonkit.analytics.published import PublishedRelease, Reference, domain_specs
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.schema import Schema
from anonkit.stats import ClassStats
from anonkit.verifier import released_stats

__all__ = ["compatible_pairs", "wildcard_stats", "wildcard_table"]


def _pattern_codes(patterns: pd.DataFrame, marker: str) -> np.ndarray:
    """``P × d`` codes of the patterns' cells (the marker ``−1``), equal text → equal code."""
    codes = np.empty(patterns.shape, dtype=np.int64)
    for j, c in enumerate(patterns.columns):
        col = patterns[c].astype(object)
        text = col.where(col.notna(), "\x00missing").astype(str)
        codes[:, j] = pd.factorize(text)[0]
        codes[(col == marker).to_numpy(), j] = -1
    return codes


def _row_key(cells: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """One integer per row of ``cells`` (codes ``0 … sizes[j] − 1``), equal exactly when the rows are:
    mixed radix, renumbered densely before it could overflow."""
    key = np.zeros(len(cells), dtype=np.int64)
    radix = 1
    for j, size in enumerate(sizes):
        if radix * int(size) >= 2**62:
            key = pd.factorize(key)[0].astype(np.int64)
            radix = int(key.max()) + 1 if len(key) else 1
        key = key * int(size) + cells[:, j]
        radix *= int(size)
    return key


def compatible_pairs(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair ``(a, b)`` of patterns (rows of ``codes``, ``−1`` a wildcard) that agree on
    every column both keep; each pattern is paired with itself. Patterns are grouped by their set of
    wildcard columns and each pair of groups joined on one key over the columns both keep."""
    p = codes.shape[0]
    if p == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    sizes = codes.max(axis=0) + 1
    sets, set_of = np.unique(codes < 0, axis=0, return_inverse=True)
    set_of = set_of.reshape(-1)
    members = [np.flatnonzero(set_of == i) for i in range(len(sets))]
    left: list[np.ndarray] = []
    right: list[np.ndarray] = []
    for ia, a in enumerate(members):
        for ib, b in enumerate(members):
            keep = np.flatnonzero(~sets[ia] & ~sets[ib])
            key = _row_key(np.concatenate([codes[a][:, keep], codes[b][:, keep]]), sizes[keep])
            ka, kb = key[: len(a)], key[len(a):]
            order = np.argsort(kb, kind="stable")
            lo = np.searchsorted(kb[order], ka, "left")
            count = np.searchsorted(kb[order], ka, "right") - lo
            offset = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
            left.append(np.repeat(a, count))
            right.append(b[order][np.repeat(lo, count) + offset])
    return np.concatenate(left).astype(np.int64), np.concatenate(right).astype(np.int64)


def wildcard_table(
    frame: pd.DataFrame,
    schema: Schema | None = None,
    *,
    marker: str = "*",
    quasi: Iterable[str] | None = None,
    sensitive: str | Iterable[str] | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    reference: Reference = None,
    strata: Iterable[str] = (),
) -> PublishedRelease:
    """The release ``frame`` read with ``marker`` cells matching any value (module docstring).

    Parameters are :func:`~anonkit.analytics.published.published_table`'s; a release without a
    sensitive attribute has patterns, sizes and compatible counts only. ``strata``: published columns
    (sdcMicro's ``strataVars``) within whose value a row's compatible rows are counted, as the
    verifier counts them — a stratum cell is a value, never a wildcard.

    Raises
    ------
    InputError
        As :func:`~anonkit.analytics.published.published_table` (a missing column, a published
        sensitive value absent from ``reference``, a non-numeric value of a numeric attribute).
    """
    qis, specs = domain_specs(frame, schema, quasi, sensitive, hierarchies, reference, needs_sensitive=False)
    frame = frame.reset_index(drop=True)
    strata = [str(c) for c in strata]
    missing = [c for c in strata if c not in frame.columns]
    if missing:
        raise InputError("the release lacks a stratum column of its algorithm's strata", column=missing[0])
    # the stratum as one more key that is never the marker: rows of two strata never match
    keys = frame[qis].assign(**{f"\x00stratum{i}": "\x00" + frame[c].astype(str) for i, c in enumerate(strata)})
    # every key cell as the verifier's text (a missing cell its own value), so both count the same patterns
    keys = keys.astype(object).where(keys.notna(), "\x00missing").astype(str)
    # the exact patterns (identical published cells, marker included; within a stratum), every row released
    exact, row_class, _ = released_stats(frame.assign(**{c: keys[c] for c in keys.columns}), list(keys.columns),
                                         specs, reference=reference, marked=False)
    n_patterns = exact.n_classes
    first = np.full(n_patterns, len(frame), dtype=np.int64)
    np.minimum.at(first, row_class, np.arange(len(frame)))
    a, b = compatible_pairs(_pattern_codes(keys.loc[first].reset_index(drop=True), marker))
    from scipy import sparse  # loaded by a wildcard release only (anonkit anonymize's usual job needs none)

    match = sparse.csr_matrix((np.ones(len(a)), (a, b)), shape=(n_patterns, n_patterns))
    fk, _ = wildcard_counts(keys, marker)  # the verifier's count, row by row
    compatible = np.zeros(n_patterns, dtype=np.int64)
    compatible[row_class] = fk
    if not np.array_equal(np.rint(match @ exact.sizes).astype(np.int64), compatible):
        raise InputError("the compatible rows of the release's patterns disagree with the verifier's count: "
                         "report this release to anonkit's maintainers")
    hist = {name: np.asarray(match @ h) for name, h in exact.hist.items()}
    stats = ClassStats(exact.sizes.copy(), hist, exact.domains)
    released = {name: h.sum(axis=0) for name, h in exact.hist.items()}
    return PublishedRelease("table", "record", np.asarray(row_class, dtype=np.int64), stats, specs,
                            compatible=compatible, released=released, marker=marker)


def wildcard_stats(published: PublishedRelease) -> ClassStats:
    """The class statistics the privacy models judge on a wildcard release: per pattern, its compatible
    count as the class size and its compatible histograms (the set an attacker cannot narrow down)."""
    if published.compatible is None:
        raise InputError("not a release read with wildcards (wildcard_table)")
    return ClassStats(published.compatible.astype(np.float64), dict(published.stats.hist),
                      dict(published.stats.domains))
