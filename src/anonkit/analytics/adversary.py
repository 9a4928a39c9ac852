"""anonymeter's three attacks adapted to generalized releases: singling-out, linkability and
attribute inference.

anonymeter (Giomi, Boenisch, Wehmeyer, Tasnádi, "A Unified Framework for Quantifying Privacy Risk
in Synthetic Data", PoPETs 2023) measures the three risks of the Article 29 Working Party's
opinion 05/2014 on synthetic data, whose rows hold exact values: its attacker writes queries that
single out a synthetic row, links through nearest synthetic neighbours, and infers from the
nearest neighbour's secret. A generalized release holds *cells* (intervals, hierarchy nodes, sets,
``*``) whose rows are the original records themselves, coarsened; so here an original value
*matches* a released cell when the cell covers it (:mod:`anonkit.analytics.cover`), and a
"nearest neighbour" is any released row consistent with what the attacker knows, ties broken at
random.

Every attack returns an :class:`~anonkit.analytics.outcome.AttackOutcome` with

* the attack on the release: at most ``n_attacks`` targets, sampled with ``seed``;
* a baseline attacker who does not use the release's rows;
* with a ``control`` table (records of the same population that are *not* in the release), the
  same attack on control records; the outcome's risk is then anonymeter's excess risk
  ``(attack − control) / (1 − control)``: what the release gives away about its own records
  beyond what it tells about anybody in the population.

Columns: every published column of ``release`` that the schema calls a quasi-identifier is read as
a generalized cell; every other published column (sensitive, insensitive) is an exact value.
``original`` is the table the release was made from (its records, suppressed ones included; the
columns the release publishes, original values), ``control`` a table with the same columns.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from anonkit._kernels import group_columns
from anonkit._values import labels_look_numeric
from anonkit._verify_rows import group_rows
from anonkit.analytics._attack_reading import (
    Triples,
    attack_columns,
    consistent_in,
    covered_records,
    domain_codes,
    use_patterns,
)
from anonkit.analytics._attack_reading import triples as _triples
from anonkit.analytics.cover import WILDCARD, build_cover, shared_factorize
from anonkit.analytics.outcome import AttackOutcome
from anonkit.errors import InputError
from anonkit.release import check_seed
from anonkit.schema import AttrType, Schema

__all__ = [
    "DEFAULT_N_ATTACKS",
    "DEFAULT_TOLERANCE",
    "inference_attack",
    "linkability_attack",
    "singling_out_attack",
]

#: how many targets an attack samples at most (anonymeter's examples use 2,000 and up)
DEFAULT_N_ATTACKS = 2000
#: a numeric secret is guessed right within this relative error (anonymeter's regression tolerance)
DEFAULT_TOLERANCE = 0.05


# ---------------------------------------------------------------------------------------------------------------------
# shared
# ---------------------------------------------------------------------------------------------------------------------
def _published(release: pd.DataFrame, schema: Schema,
               tables: dict[str, pd.DataFrame | None]) -> tuple[list[str], list[str]]:
    """The release's quasi-identifiers and its other columns; every table must hold them all."""
    columns = [str(c) for c in release.columns]
    if not columns or len(release) == 0:
        raise InputError("the release publishes nothing to attack", key="release")
    for label, frame in tables.items():
        if frame is None:
            continue
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise InputError(f"a published column is missing from the {label} table", column=missing[0])
        if len(frame) == 0:
            raise InputError(f"the {label} table has no records", key=label)
    quasi = set(schema.quasi)
    return [c for c in columns if c in quasi], [c for c in columns if c not in quasi]


def _n_attacks(n_attacks: int) -> int:
    if isinstance(n_attacks, bool) or not isinstance(n_attacks, int | np.integer) or n_attacks < 1:
        raise InputError("n_attacks must be a whole number ≥ 1", key="n_attacks", value=n_attacks)
    return int(n_attacks)


def _sample(rng: np.random.Generator, n: int, n_attacks: int) -> np.ndarray:
    return np.sort(rng.choice(n, size=min(n, n_attacks), replace=False))


def _texts(values: pd.Series) -> np.ndarray:
    codes, labels = shared_factorize(values)
    return np.array([str(x).strip() for x in labels], dtype=object)[codes]


def _texts_at(values: pd.Series, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The text (stripped) of the cells at ``rows``, and the column's distinct texts in the order they first
    appear: what ``_texts(values)[rows]`` and ``pd.unique(_texts(values))`` give, without making a text
    object per cell (2 CPU-s of an audit at 3 M rows)."""
    codes, labels = shared_factorize(values)
    texts = np.array([str(x).strip() for x in labels], dtype=object)
    n = len(codes)
    first = np.full(len(labels), n, dtype=np.int64)
    first[codes[::-1]] = np.arange(n - 1, -1, -1)  # each code's first row (the earliest write is the last)
    present = np.flatnonzero(first < n)
    return texts[codes[rows]], pd.unique(texts[present[np.argsort(first[present], kind="stable")]])


def _split(columns: Sequence[str], quasi: list[str]) -> tuple[list[str], list[str]]:
    return [c for c in columns if c in quasi], [c for c in columns if c not in quasi]


def _consistent(release: pd.DataFrame, targets: pd.DataFrame, schema: Schema, columns: Sequence[str],
                quasi: list[str], groups: np.ndarray, n_groups: int) -> Triples:
    """``targets × groups`` as triples (target, group, rows): how many released rows of each group
    (``groups``: a group id per released row) are consistent with each target's values in ``columns``;
    only the pairs with some row.

    The product (targets × classes) · (classes × groups) in numpy, with no sparse matrix (scipy's
    import alone costs ~0.1 CPU-s of an ``anonkit anonymize`` job that needs nothing else from it). The
    triples come in the order of scipy's sparse product (SMMP: per target, its groups from the last
    first reached to the first, walking the target's classes and each class's groups in ascending
    order), which the attacks' figures depended on when they were computed that way: the inference
    attack's random tie-breaks are drawn in this order."""
    qcols, exact = _split(columns, quasi)
    cov = build_cover(release[list(columns)], targets[list(columns)], schema, columns=qcols, exact=exact)
    rec, cls = cov.record_pairs()
    return _triples(rec, cls, cov.row_class, cov.n_classes, groups, n_groups)


def _pick_max(owner: np.ndarray, item: np.ndarray, weight: np.ndarray, n_owners: int,
              rng: np.random.Generator) -> np.ndarray:
    """For every owner the item of largest weight, ties broken at random (−1: no item)."""
    out = np.full(n_owners, -1, dtype=np.int64)
    if len(owner) == 0:
        return out
    noise = rng.random(len(owner))
    if (owner[1:] < owner[:-1]).any():
        order = np.lexsort((-noise, -weight, owner))
        first = np.r_[True, owner[order][1:] != owner[order][:-1]]
        out[owner[order][first]] = item[order][first]
        return out
    # owners in order (the attacks' triples): per owner its largest weight, then its largest noise among
    # those, then the first such item (what the sort above gives), without sorting
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    segment = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(owner)]))
    tie = weight == np.maximum.reduceat(weight, starts)[segment]
    noisy = np.where(tie, noise, -1.0)
    best = np.flatnonzero(noisy == np.maximum.reduceat(noisy, starts)[segment])
    best = best[np.r_[True, segment[best][1:] != segment[best][:-1]]]
    out[owner[best]] = item[best]
    return out


# ---------------------------------------------------------------------------------------------------------------------
# singling-out
# ---------------------------------------------------------------------------------------------------------------------
def _so_probability(n: np.ndarray | float, w: float) -> np.ndarray | float:
    """∫₀^w n·x·(1−x)^(n−1) dx: how many of a population of queries with weights spread evenly
    over [0, w] single out a record in ``n`` records (Cohen & Nissim 2020; anonymeter's model)."""
    n = np.asarray(n, dtype=np.float64)
    return (1.0 - (n * w + 1.0) * (1.0 - w) ** n) / (n + 1.0)


def _control_at(counts: np.ndarray, m: int, n: int) -> tuple[float, float]:
    """The expected number of predicates singling out one record among ``n`` control records,
    from their ``counts`` among the ``m`` controls: exact (hypergeometric) when ``n ≤ m``, else
    extrapolated with anonymeter's model fitted to the exact curve over sizes up to ``m``.
    Returns (expected count, correction factor over the raw count)."""
    from scipy.optimize import curve_fit  # loaded with a control set only (a lean import of anonkit)
    from scipy.stats import hypergeom

    raw = float((counts == 1).sum())
    if m == n or len(counts) == 0:
        return raw, 1.0
    if n < m:
        expected = float(hypergeom.pmf(1, m, counts, n).sum())
        return expected, (expected / raw if raw else 1.0)
    if raw == 0:
        return 0.0, 1.0
    sizes = np.unique(np.linspace(max(1, m // 10), m, 10).astype(np.int64))
    curve = np.array([hypergeom.pmf(1, m, counts, s).sum() for s in sizes])

    def model(s: np.ndarray, w: float, norm: float) -> np.ndarray:
        return norm * _so_probability(s, w)  # type: ignore[return-value]

    w0 = 1.0 / m
    try:
        (w, _norm), _ = curve_fit(model, sizes.astype(np.float64), curve, p0=(w0, raw / float(_so_probability(m, w0))),
                                 bounds=((1e-12, 0.0), (1.0, np.inf)), maxfev=20000)
    except (RuntimeError, ValueError):
        return raw, 1.0
    factor = float(_so_probability(n, w) / _so_probability(m, w))
    return raw * factor, factor


def singling_out_attack(
    release: pd.DataFrame,
    original: pd.DataFrame,
    schema: Schema,
    *,
    control: pd.DataFrame | None = None,
    n_attacks: int = DEFAULT_N_ATTACKS,
    n_cols: int | None = None,
    seed: int = 0,
) -> AttackOutcome:
    """Singling-out: can the attacker write a predicate that only one person of the data satisfies?

    What the attacker knows: the published table. For each target, a released row sampled at
    random (at most ``n_attacks``), they write the predicate "every column as the row shows it":
    a quasi-identifier *covered by* the row's cell (``age ∈ [30-39] ∧ zip ∈ 130**``), every other
    published column *equal* to the row's value (``disease = flu``), on all published columns or,
    with ``n_cols``, on ``n_cols`` of them drawn at random. The attacker issues the predicate only
    when no other released row shows the same cells in those columns (it singles out a row of the
    release). Success: exactly one record of ``original`` satisfies it.

    Generalized classes hold ≥ k identical quasi-identifier cells, so the predicate singles out
    only through what the class does not hide: a sensitive or insensitive value one record of
    the class has, or cells (of local recodings) that overlap no other class's.

    Baseline: as many predicates on the same columns with each cell drawn uniformly from that
    column's distinct published cells, without looking at rows; success as above. Control: the
    fraction of the issued predicates that single out exactly one ``control`` record, corrected to
    the size of ``original`` as anonymeter does (expected count at that size: hypergeometric when
    the control set is larger, anonymeter's fitted model of singling-out against size when it is
    smaller; ``details`` shows the raw count and the factor).

    Departures from anonymeter: predicates are conjunctions of released cells (covers), not of
    ``==``/``<=``/``>=`` on exact values; they are written from sampled rows, one per target,
    instead of being searched until ``n_attacks`` unique ones are found, so a row without a unique
    predicate counts as a failed attack; the release's rows are the original records, so a
    predicate issued from an honest generalization matches its own record.
    """
    seed = check_seed(seed)
    n_attacks = _n_attacks(n_attacks)
    quasi, other = _published(release, schema, {"original": original, "control": control})
    columns = [*quasi, *other]
    p = len(columns)
    if n_cols is not None and (isinstance(n_cols, bool) or not isinstance(n_cols, int) or not 1 <= n_cols <= p):
        raise InputError(f"n_cols must be a whole number from 1 to {p} (the published columns)", key="n_cols",
                         value=n_cols)
    rng = np.random.default_rng(seed)
    n_rows = len(release)
    rows = _sample(rng, n_rows, n_attacks)
    n_t = len(rows)
    use = _column_choice(rng, n_t, p, n_cols)
    issued = _unique_in_release(release, columns, rows, use, [q for q in schema.quasi if q in quasi])
    cols = attack_columns(release, original, schema, columns, quasi)
    if cols is not None:  # on distinct tuples: the records covered by each predicate's tuple of labels
        hits = covered_records(cols, [c.label_codes[rows] for c in cols], use)
        # baseline: random cells of the published domains
        use_b = _column_choice(rng, n_t, p, n_cols)
        draws = [domain_codes(c) for c in cols]
        baseline = int((covered_records(cols, [d[rng.integers(len(d), size=n_t)] for d in draws], use_b) == 1).sum())
        cells = {c: col.labels[col.label_codes[rows]] for c, col in zip(columns, cols, strict=True)}
    else:
        hits, baseline, cells = _so_covers(release, original, schema, quasi, other, rows, use, rng, n_cols)
    successes = int((issued & (hits == 1)).sum())
    details: dict[str, object] = {
        "columns": columns,
        "n_cols": p if n_cols is None else int(n_cols),
        "issued": int(issued.sum()),
        "released_rows": n_rows,
        "original_records": len(original),
    }
    control_successes = None
    if control is not None:
        predicates = pd.DataFrame({c: np.where(use[:, j], cells[c], WILDCARD) for j, c in enumerate(columns)})
        c_hits = _matches(predicates, control, schema, quasi, other)
        expected, factor = _control_at(c_hits[issued], len(control), len(original))
        control_successes = int(min(n_t, round(expected)))
        details.update({"control_records": len(control), "control_raw": int((issued & (c_hits == 1)).sum()),
                        "control_correction": float(factor)})
    return AttackOutcome(
        name="singling-out",
        successes=successes,
        targets=n_t,
        baseline_successes=baseline,
        baseline_targets=n_t,
        control_successes=control_successes,
        control_targets=None if control is None else n_t,
        details=details,
        note="the attacker writes a predicate from a released row's cells that no other row shows; success: "
             "exactly one original record satisfies it",
    )


def _so_covers(release: pd.DataFrame, original: pd.DataFrame, schema: Schema, quasi: list[str], other: list[str],
               rows: np.ndarray, use: np.ndarray, rng: np.random.Generator,
               n_cols: int | None) -> tuple[np.ndarray, int, dict[str, np.ndarray]]:
    """Singling-out's general path (a column read with several labels per value): the predicates and the
    random baseline each matched against the input through a coverage matrix of their own; the hits, the
    baseline's successes and the sampled rows' texts."""
    columns = [*quasi, *other]
    n_t, p = use.shape
    cells, domains = {}, {}
    for c in columns:  # the sampled rows' texts and each column's published cells, no text per released row
        cells[c], domains[c] = _texts_at(release[c], rows)
    predicates = pd.DataFrame({c: np.where(use[:, j], cells[c], WILDCARD) for j, c in enumerate(columns)})
    hits = _matches(predicates, original, schema, quasi, other)
    # baseline: random cells of the published domains
    use_b = _column_choice(rng, n_t, p, n_cols)
    random_cells = pd.DataFrame({
        c: np.where(use_b[:, j], np.asarray(domains[c], dtype=object)[rng.integers(len(domains[c]), size=n_t)],
                    WILDCARD)
        for j, c in enumerate(columns)
    })
    return hits, int((_matches(random_cells, original, schema, quasi, other) == 1).sum()), cells


def _column_choice(rng: np.random.Generator, n: int, p: int, n_cols: int | None) -> np.ndarray:
    if n_cols is None or n_cols >= p:
        return np.ones((n, p), dtype=bool)
    keys = rng.random((n, p))
    cut = np.sort(keys, axis=1)[:, n_cols - 1:n_cols]
    return keys <= cut


def _unique_in_release(release: pd.DataFrame, columns: list[str], rows: np.ndarray, use: np.ndarray,
                       quasi: list[str] | None = None) -> np.ndarray:
    """Whether no other released row shows target row ``rows[i]``'s cells in its chosen columns.

    ``quasi``: the release's quasi-identifiers (``columns`` starts with them, in the release's order).
    Where a predicate names every one of them, its rows alike are those of one class of the release (the
    verifier's grouping of the published cells, :func:`anonkit._verify_rows.group_rows`, made once per
    audit) alike in the other chosen columns: the same partition of the rows as grouping every chosen
    column's text, on two columns instead of all."""
    out = np.zeros(len(rows), dtype=bool)
    patterns, which = use_patterns(use)
    n_quasi = len(quasi or ())
    for k, pattern in enumerate(patterns):
        chosen = np.flatnonzero(pattern)
        if n_quasi and pattern[:n_quasi].all():
            classes, n_classes = group_rows(release, quasi)  # type: ignore[arg-type]
            rest = [shared_factorize(release[columns[j]]) for j in chosen[n_quasi:]]
            ids, n_ids = group_columns([classes, *(c for c, _ in rest)], [n_classes, *(len(t) for _, t in rest)])
        else:
            codes = [shared_factorize(release[columns[j]]) for j in chosen]
            ids, n_ids = group_columns([c for c, _ in codes], [len(t) for _, t in codes])
        counts = np.bincount(ids, minlength=n_ids)
        sel = np.flatnonzero(which == k)
        out[sel] = counts[ids[rows[sel]]] == 1
    return out


def _matches(predicates: pd.DataFrame, table: pd.DataFrame, schema: Schema, quasi: list[str],
             other: list[str]) -> np.ndarray:
    """How many records of ``table`` satisfy each predicate (a row of released cells)."""
    cov = build_cover(predicates, table, schema, columns=quasi, exact=other)
    return cov.class_records()[cov.row_class]


# ---------------------------------------------------------------------------------------------------------------------
# linkability
# ---------------------------------------------------------------------------------------------------------------------
def linkability_attack(
    release: pd.DataFrame,
    original: pd.DataFrame,
    schema: Schema,
    *,
    aux: tuple[Sequence[str], Sequence[str]] | None = None,
    control: pd.DataFrame | None = None,
    n_attacks: int = DEFAULT_N_ATTACKS,
    seed: int = 0,
) -> AttackOutcome:
    """Linkability: can the attacker tell that two partial records, held in two separate data
    sets, belong to the same person, by linking both to the release?

    What the attacker knows: the published table, and for each target (an ``original`` record,
    at most ``n_attacks`` sampled) its values in two disjoint sets of published columns, ``aux``
    ``(A, B)`` (default: the first half of the quasi-identifiers; the other half and every other
    published column). Each side looks for its nearest released row: a row whose cells cover the
    side's values, chosen uniformly at random among all such rows (the ties of a generalized
    release). Success: the two rows are in the same released class (a distinct tuple of
    quasi-identifier cells), so the release links the two partial records. The success of a
    target is drawn with that probability, ``Σ_c a_c·b_c / (A·B)`` over classes ``c`` (``a_c`` of
    the ``A`` rows consistent with side A in class ``c``, likewise ``b_c``); ``details`` has the
    exact expected rate.

    Baseline: each side picks a released row uniformly at random (random pairing). Control: the
    same attack with control records as targets.

    Departures from anonymeter: anonymeter finds each side's nearest synthetic neighbours by Gower
    distance on exact values and succeeds when the two sides share one; a generalized release has
    no distance between a value and the rows that cover it, so every consistent row is a nearest
    neighbour, ties are broken at random, and a shared class (not a shared row: the rows of a class
    are identical in their quasi-identifiers) links the two sides. A target whose side matches no
    row is not linked.
    """
    seed = check_seed(seed)
    n_attacks = _n_attacks(n_attacks)
    quasi, other = _published(release, schema, {"original": original, "control": control})
    side_a, side_b = _aux(aux, quasi, other)
    rng = np.random.default_rng(seed)
    n_rows = len(release)
    if quasi:
        q_codes = [shared_factorize(release[c]) for c in quasi]
        row_class, n_classes = group_columns([c for c, _ in q_codes], [len(t) for _, t in q_codes])
    else:
        row_class, n_classes = np.zeros(n_rows, dtype=np.int64), 1

    def attack(table: pd.DataFrame) -> tuple[int, int, float]:
        records = _sample(rng, len(table), n_attacks)
        sides = [consistent_in(release, table, records, schema, side, quasi, row_class, n_classes)
                 if table is original else None for side in (side_a, side_b)]
        if sides[0] is None or sides[1] is None:
            targets = table.iloc[records].reset_index(drop=True)
            sides = [_consistent(release, targets, schema, side, quasi, row_class, n_classes)
                     for side in (side_a, side_b)]
        prob = _link_probability(sides[0], sides[1], len(records), n_classes)  # type: ignore[arg-type]
        won = rng.random(len(records)) < prob
        return int(won.sum()), len(records), float(prob.mean())

    successes, n_t, expected = attack(original)
    pick_a, pick_b = rng.integers(n_rows, size=n_t), rng.integers(n_rows, size=n_t)
    baseline = int((row_class[pick_a] == row_class[pick_b]).sum())
    details: dict[str, object] = {"aux": [side_a, side_b], "classes": int(n_classes), "expected": expected}
    control_successes = control_targets = None
    if control is not None:
        control_successes, control_targets, c_expected = attack(control)
        details["control_expected"] = c_expected
    return AttackOutcome(
        name="linkability",
        successes=successes,
        targets=n_t,
        baseline_successes=baseline,
        baseline_targets=n_t,
        control_successes=control_successes,
        control_targets=control_targets,
        details=details,
        note="the attacker holds two disjoint parts of a record and links each to a released row consistent with "
             "it; success: both rows are in the same class",
    )


def _aux(aux: tuple[Sequence[str], Sequence[str]] | None, quasi: list[str],
         other: list[str]) -> tuple[list[str], list[str]]:
    published = [*quasi, *other]
    if aux is None:
        if len(published) < 2:
            raise InputError("linkability needs at least two published columns to split", key="aux")
        if len(quasi) >= 2:
            half = (len(quasi) + 1) // 2
            return quasi[:half], [*quasi[half:], *other]
        if quasi:
            return quasi, other
        half = (len(other) + 1) // 2
        return other[:half], other[half:]
    if len(aux) != 2:
        raise InputError("aux must be two lists of columns, one per side", key="aux")
    side_a, side_b = [str(c) for c in aux[0]], [str(c) for c in aux[1]]
    if not side_a or not side_b:
        raise InputError("each side of aux needs at least one column", key="aux")
    for c in [*side_a, *side_b]:
        if c not in published:
            raise InputError("aux names a column the release does not publish", column=c, key="aux")
    shared = [c for c in side_a if c in side_b]
    if shared:
        raise InputError("the two sides of aux must not share a column", column=shared[0], key="aux")
    return side_a, side_b


def _link_probability(side_a: Triples, side_b: Triples, n: int, n_classes: int) -> np.ndarray:
    """Per target, the chance that a row drawn among those consistent with side A and one drawn
    among those consistent with side B are in the same class (each side: :func:`_consistent`'s triples
    over the classes). The counts are whole numbers, so every sum is exact whatever its order."""
    ra, ga, va = side_a
    rb, gb, vb = side_b
    _, ia, ib = np.intersect1d(ra * n_classes + ga, rb * n_classes + gb, assume_unique=True, return_indices=True)
    joint = np.bincount(ra[ia], weights=va[ia] * vb[ib], minlength=n)
    denom = np.bincount(ra, weights=va, minlength=n) * np.bincount(rb, weights=vb, minlength=n)
    return np.divide(joint, denom, out=np.zeros(n), where=denom > 0)


# ---------------------------------------------------------------------------------------------------------------------
# attribute inference
# ---------------------------------------------------------------------------------------------------------------------
def inference_attack(
    release: pd.DataFrame,
    original: pd.DataFrame,
    schema: Schema,
    secret: str | None = None,
    *,
    aux: Sequence[str] | None = None,
    control: pd.DataFrame | None = None,
    n_attacks: int = DEFAULT_N_ATTACKS,
    tolerance: float = DEFAULT_TOLERANCE,
    seed: int = 0,
) -> AttackOutcome:
    """Attribute inference: can the attacker who knows a person's other attributes guess their
    secret one from the release?

    What the attacker knows: the published table, and for each target (an ``original`` record, at
    most ``n_attacks`` sampled) its values in ``aux`` (default: every published column but the
    secret: the quasi-identifiers and the non-secret published values). They collect the released
    rows consistent with those values (cells covering the quasi-identifiers, equal other values)
    and guess the ``secret`` (default: the schema's first published sensitive attribute) as the
    value most frequent among those rows, ties at random. Success: the guess is the target's
    value; for a numeric secret, within ``tolerance`` relative error (``|guess − x| ≤ tolerance·|x|``).
    A target no row is consistent with gets the baseline's guess.

    Baseline: the most frequent published value of the secret, for every target. Control: the same
    attack on control records.

    Departures from anonymeter: anonymeter guesses the secret of the nearest synthetic neighbour
    (Gower distance over exact values); here every released row consistent with the attacker's
    generalized knowledge is a nearest neighbour, and the guess is their most frequent secret
    value (what a homogeneous or skewed class gives away).
    """
    seed = check_seed(seed)
    n_attacks = _n_attacks(n_attacks)
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float) or not tolerance >= 0:
        raise InputError("tolerance must be a number ≥ 0", key="tolerance", value=tolerance)
    quasi, other = _published(release, schema, {"original": original, "control": control})
    if secret is None:
        secret = next((s for s in schema.sensitive if s in other), None)
        if secret is None:
            raise InputError("the release publishes no sensitive attribute: name the secret column", key="secret")
    secret = str(secret)
    if secret not in other:
        raise InputError("the secret must be a published column that is not a quasi-identifier", column=secret,
                         key="secret")
    columns = [c for c in [*quasi, *other] if c != secret] if aux is None else [str(c) for c in aux]
    for c in columns:
        if c == secret or c not in [*quasi, *other]:
            raise InputError("aux must name published columns other than the secret", column=c, key="aux")
    rng = np.random.default_rng(seed)
    s_codes, s_labels = shared_factorize(release[secret])
    s_labels = np.array([str(x).strip() for x in s_labels], dtype=object)
    attr = schema.attributes.get(secret)
    numeric = (attr is not None and attr.type == AttrType.NUMERIC) or (
        (attr is None or attr.type is None) and labels_look_numeric(s_labels))
    counts = np.bincount(s_codes, minlength=len(s_labels)).astype(np.float64)
    mode = int(_pick_max(np.zeros(len(counts), np.int64), np.arange(len(counts)), counts, 1, rng)[0])

    def right(guess: np.ndarray, truth: np.ndarray) -> np.ndarray:
        if not numeric:
            return guess == truth
        g = pd.to_numeric(pd.Series(guess, dtype=object), errors="coerce").to_numpy(dtype=float)
        x = pd.to_numeric(pd.Series(truth, dtype=object), errors="coerce").to_numpy(dtype=float)
        close = np.abs(g - x) <= tolerance * np.abs(x)
        return np.where(np.isnan(g) | np.isnan(x), guess == truth, close)

    def attack(table: pd.DataFrame) -> tuple[int, int, int, int]:
        records = _sample(rng, len(table), n_attacks)
        n_t = len(records)
        found = (consistent_in(release, table, records, schema, columns, quasi, s_codes, len(s_labels))
                 if columns and table is original else None)
        if found is not None:
            rec, code, rows = found
            t_codes, t_texts = shared_factorize(table[secret])
            truth = np.array([str(x).strip() for x in t_texts], dtype=object)[t_codes[records]]
        else:
            targets = table.iloc[records].reset_index(drop=True)
            truth = _texts(targets[secret])
            if columns:
                rec, code, rows = _consistent(release, targets, schema, columns, quasi, s_codes, len(s_labels))
            else:
                rec = np.repeat(np.arange(n_t), len(s_labels))
                code = np.tile(np.arange(len(s_labels)), n_t)
                rows = np.tile(counts, n_t)
        guess = _pick_max(rec, code, rows, n_t, rng)
        unmatched = guess < 0
        guess[unmatched] = mode
        won = right(s_labels[guess], truth)
        base = right(np.full(n_t, s_labels[mode], dtype=object), truth)
        return int(won.sum()), n_t, int(base.sum()), int(unmatched.sum())

    successes, n_t, baseline, unmatched = attack(original)
    details: dict[str, object] = {"secret": secret, "aux": columns, "numeric": bool(numeric),
                                  "unmatched": unmatched}
    if numeric:
        details["tolerance"] = float(tolerance)
    control_successes = control_targets = None
    if control is not None:
        control_successes, control_targets, _, c_unmatched = attack(control)
        details["control_unmatched"] = c_unmatched
    return AttackOutcome(
        name="inference",
        successes=successes,
        targets=n_t,
        baseline_successes=baseline,
        baseline_targets=n_t,
        control_successes=control_successes,
        control_targets=control_targets,
        details=details,
        note=f"the attacker knows a record's other published values and guesses {secret} as the most frequent "
             "value among the released rows consistent with them; success: the guess is right",
    )
