"""Pre-analytics: how much each attribute (and combination) leaks, before anonymizing (paper C,
Arca & Hewett 2021, §3.1; spec §2.6 and §4.4).

Longpre et al.'s entropy-based measure: an attacker who learns the value of an attribute set ``A``
partitions the ``n`` individuals into blocks ``E_j`` of equal values; the average information gained
is ``ΔS(A) = Σ_j (|E_j|/n)(S0 − log2|E_j|)`` with ``S0 = log2 n``, which is the entropy of ``A``'s
value distribution; the normalized leakage ``L(A) = ΔS(A)/S0`` lies in ``[0, 1]`` (0: everybody
shares one value; 1: every record is unique; ``L = 0`` when ``n = 1``). Paper C's worked example:
60 individuals, 27 F and 33 M → ``L(Sex) = 0.168`` (the paper rounds to 0.16).

:func:`leakage` measures every attribute and every combination of up to ``max_size`` attributes on
integer codes (each column factorized once; combinations counted with ``np.bincount`` on a
mixed-radix key where it fits, else by hashing the key), ranks them, flags those at or above
``tau`` (default 0.5) as vulnerable and suggests quasi-identifiers: the vulnerable attributes that
are not near-unique (a near-unique attribute, unique for at least ``identifier_share`` of the
records, is a likely *identifier*: drop it rather than generalize it), and the attributes of the
smallest vulnerable *combinations* of attributes none of which is vulnerable alone (an attacker
links on age and occupation together though neither singles anyone out).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from anonkit._values import factorize_text
from anonkit.errors import InputError

#: attributes (and combinations) whose normalized leakage reaches this are "vulnerable" (spec §4.4)
DEFAULT_TAU = 0.5
#: combinations of up to this many attributes are measured by default
DEFAULT_MAX_SIZE = 2
#: an attribute unique for at least this share of the records is a likely identifier
DEFAULT_IDENTIFIER_SHARE = 0.9
#: at most this many attribute combinations are measured in one run (each is a pass over the records;
#: 40 attributes up to size 40 would be 2⁴⁰ of them, a run that never ends)
MAX_COMBINATIONS = 100_000
#: above this many cells a mixed-radix key is counted by hashing instead of ``np.bincount``
_BINCOUNT_LIMIT = 1 << 24


def normalized_leakage(counts: np.ndarray) -> float:
    """``L = H(counts) / log2 n`` for the block sizes ``counts`` (zeros ignored); 0 when ``n ≤ 1``."""
    c = np.asarray(counts, dtype=np.float64)
    c = c[c > 0]
    n = float(c.sum())
    if n <= 1:
        return 0.0
    p = c / n
    return float(-(p * np.log2(p)).sum() / math.log2(n))


def block_facts(counts: np.ndarray) -> dict[str, float | int]:
    """Leakage, distinct values, share of records unique on the attribute set, smallest block."""
    c = np.asarray(counts)
    c = c[c > 0]
    n = int(c.sum())
    return {
        "leakage": normalized_leakage(c),
        "distinct": int(c.size),
        "unique_share": float((c == 1).sum() / n) if n else 0.0,
        "min_group": int(c.min()) if c.size else 0,
    }


def _codes(frame: pd.DataFrame, attributes: Sequence[str]) -> dict[str, tuple[np.ndarray, int]]:
    """Every attribute's cells as codes (missing is a value of its own) and its cardinality."""
    out = {}
    for name in attributes:
        codes, labels = factorize_text(frame[name])
        out[name] = (codes, len(labels))
    return out


def _combined(parts: list[tuple[np.ndarray, int]]) -> tuple[np.ndarray, int]:
    """The block of every record on the combination of ``parts`` (codes, cardinality) and the
    number of blocks' key space (compacted by hashing when it would not fit ``np.bincount``)."""
    key, size = parts[0]
    key = key.astype(np.int64, copy=False)
    for codes, card in parts[1:]:
        if size * card > _BINCOUNT_LIMIT:
            key, uniques = pd.factorize(key)
            size = len(uniques)
        key = key * card + codes
        size *= card
    if size > _BINCOUNT_LIMIT:
        key, uniques = pd.factorize(key)
        size = len(uniques)
    return key, size


def _counts(parts: list[tuple[np.ndarray, int]]) -> np.ndarray:
    key, size = _combined(parts)
    return np.bincount(key, minlength=size)


def _attributes(frame: pd.DataFrame, attributes: Iterable[str] | None) -> list[str]:
    """The attributes :func:`leakage` measures: every column by default; an unknown, repeated or
    missing attribute is an error."""
    names = [str(c) for c in frame.columns] if attributes is None else list(attributes)
    unknown = [a for a in names if a not in frame.columns]
    if unknown:
        raise InputError(f"unknown attribute; the data has: {', '.join(map(str, frame.columns))}", column=unknown[0])
    if len(set(names)) != len(names):
        raise InputError("an attribute is named twice", column=next(a for a in names if names.count(a) > 1))
    if not names:
        raise InputError("no attribute to analyze")
    return names


def _largest_combination(names: list[str], max_size: int, tau: float, sets: bool) -> int:
    """The size of the largest combination :func:`leakage` measures, after checking ``max_size``
    and ``tau`` and that the combinations stay within :data:`MAX_COMBINATIONS` (20 attributes at
    most with ``sets``)."""
    if isinstance(max_size, bool) or int(max_size) != max_size or max_size < 1:
        raise InputError(f"max_size must be a whole number ≥ 1, got {max_size!r}", key="max-size")
    if not 0 <= float(tau) <= 1:
        raise InputError(f"tau must lie in [0, 1], got {tau!r}", key="tau")
    if sets and len(names) > 20:
        raise InputError(f"--sets measures every subset: {len(names)} attributes make {2 ** len(names) - 1:,}; "
                         "name at most 20 attributes", key="sets")
    top = len(names) if sets else min(int(max_size), len(names))
    count = sum(math.comb(len(names), size) for size in range(2, top + 1))
    if count > MAX_COMBINATIONS:
        raise InputError(f"{len(names)} attributes in combinations of up to {top} make {count:,} combinations, more "
                         f"than {MAX_COMBINATIONS:,} (MAX_COMBINATIONS); lower --max-size or name fewer --attributes",
                         key="max-size")
    return top


def leakage(
    frame: pd.DataFrame,
    attributes: Iterable[str] | None = None,
    *,
    max_size: int = DEFAULT_MAX_SIZE,
    sets: bool = False,
    tau: float = DEFAULT_TAU,
    identifier_share: float = DEFAULT_IDENTIFIER_SHARE,
) -> dict:
    """Pre-analytics of ``frame``: what ``anonkit analyze DATA --json`` prints.

    Parameters
    ----------
    frame:
        The data (one row per record).
    attributes:
        The attributes to measure (default: every column).
    max_size:
        Combinations of 2 … ``max_size`` attributes are measured too (1: single attributes only).
    sets:
        Measure every subset of ``attributes`` (of any size) instead of stopping at ``max_size``.
    tau:
        Attributes and combinations with leakage ≥ ``tau`` are vulnerable.
    identifier_share:
        A vulnerable attribute unique for at least this share of the records is suggested as an
        identifier, not as a quasi-identifier.

    Returns
    -------
    dict
        ``records``; ``attributes`` (name → leakage, distinct, unique_share, min_group), in
        decreasing leakage; ``combinations`` (a list of the same facts with their ``attributes``),
        in decreasing leakage; ``vulnerable`` (attribute names, decreasing leakage);
        ``vulnerable_combinations``; ``likely_identifiers``; ``suggested_combinations``
        (:func:`suggested_combinations`: the smallest vulnerable combinations of attributes that are not
        vulnerable alone); ``suggested_quasi_identifiers`` (the vulnerable attributes that are not
        likely identifiers, then the attributes of the suggested combinations); ``tau``.
    """
    names = _attributes(frame, attributes)
    top = _largest_combination(names, max_size, tau, sets)
    n = len(frame)
    coded = _codes(frame, names)
    singles = {a: block_facts(np.bincount(coded[a][0], minlength=coded[a][1])) for a in names}
    combos = []
    for size in range(2, top + 1):
        for subset in itertools.combinations(names, size):
            facts = block_facts(_counts([coded[a] for a in subset]))
            combos.append({"attributes": list(subset), **facts})
    ranked = dict(sorted(singles.items(), key=lambda kv: (-kv[1]["leakage"], names.index(kv[0]))))
    combos.sort(key=lambda c: (-c["leakage"], len(c["attributes"])))
    vulnerable = [a for a, f in ranked.items() if f["leakage"] >= tau]
    identifiers = [a for a in vulnerable if ranked[a]["unique_share"] >= identifier_share]
    combinations = suggested_combinations(combos, vulnerable, identifiers, tau)
    singles_qi = [a for a in vulnerable if a not in identifiers]
    from_combinations = [a for c in combinations for a in c if a not in singles_qi]
    return {
        "records": n,
        "tau": float(tau),
        "attributes": ranked,
        "combinations": combos,
        "vulnerable": vulnerable,
        "vulnerable_combinations": [c["attributes"] for c in combos if c["leakage"] >= tau],
        "likely_identifiers": identifiers,
        "suggested_quasi_identifiers": list(dict.fromkeys(singles_qi + from_combinations)),
        "suggested_combinations": combinations,
    }


def suggested_combinations(combos: list[dict], vulnerable: list[str], identifiers: list[str],
                           tau: float) -> list[list[str]]:
    """The combinations an attacker could link on: vulnerable (leakage ≥ ``tau``) while none of their
    attributes is vulnerable alone and none is a likely identifier, and no smaller suggested
    combination lies inside them — the smallest sets of harmless-looking attributes that together
    single people out (on Adult no attribute reaches τ alone; age with occupation, age with education do).
    ``combos`` is ranked by decreasing leakage, and so is the result."""
    alone = set(vulnerable) | set(identifiers)
    found: list[list[str]] = []
    for c in sorted(combos, key=lambda c: (len(c["attributes"]), -c["leakage"])):
        attrs = c["attributes"]
        if c["leakage"] < tau or alone & set(attrs) or any(set(f) <= set(attrs) for f in found):
            continue
        found.append(attrs)
    rank = {tuple(c["attributes"]): i for i, c in enumerate(combos)}
    return sorted(found, key=lambda a: rank[tuple(a)])
