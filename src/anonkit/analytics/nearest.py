"""anonymeter's three attacks in their nearest-neighbour form, for releases whose rows hold exact-looking
values that are not the original ones: perturbed releases (PRAM, noise, swapping, shuffling,
microaggregation) and synthetic tables.

anonymeter (Giomi, Boenisch, Wehmeyer, Tasnádi, "A Unified Framework for Quantifying Privacy Risk in
Synthetic Data", PoPETs 2023) attacks a synthetic table the way an adversary would use it: it writes
singling-out queries from the released rows, links and infers through each target's *nearest*
released rows under the Gower distance (:mod:`anonkit.analytics._gower`). The cover matching of
:mod:`anonkit.analytics.adversary` is the wrong attack on such a release: a noised age of 41.3 covers
no original age, yet it points at the person aged 41. These forms are written from the paper and
anonymeter's documented behaviour, not from its code; each returns an
:class:`~anonkit.analytics.outcome.AttackOutcome` (attack, baseline and control rates with their
Wilson intervals; the risk ``(attack − reference) / (1 − reference)``), like the cover forms.

Every published column that the original holds is compared (quasi-identifiers, sensitive and
insensitive columns alike: a perturbed or synthetic release hides no column behind generalization);
a column is numeric when the schema types it so (or leaves it untyped) and every cell is a number.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from anonkit.analytics import _predicates as pr
from anonkit.analytics._gower import Encoded, column_kinds, encode, nearest
from anonkit.analytics.adversary import (
    DEFAULT_N_ATTACKS,
    DEFAULT_TOLERANCE,
    _aux,
    _control_at,
    _n_attacks,
    _published,
    _sample,
)
from anonkit.analytics.outcome import AttackOutcome
from anonkit.errors import InputError
from anonkit.release import check_seed
from anonkit.schema import Schema

__all__ = [
    "DEFAULT_NEIGHBOURS",
    "DEFAULT_N_COLS",
    "FORM",
    "nn_inference_attack",
    "nn_linkability_attack",
    "nn_singling_out_attack",
]

#: what the audit's JSON and text call this form
FORM = "nearest neighbour, Gower distance"
#: columns of a multivariate singling-out predicate (anonymeter's default)
DEFAULT_N_COLS = 3
#: nearest released rows each side of a linkability target looks at (anonymeter's default)
DEFAULT_NEIGHBOURS = 1
#: predicates tried per predicate wanted before the multivariate attacker gives up
ATTEMPTS_PER_QUERY = 10
#: predicates drawn and counted at once
BATCH = 1000


def _frames(release: pd.DataFrame, original: pd.DataFrame, control: pd.DataFrame | None, schema: Schema
            ) -> tuple[list[str], Encoded, list[np.ndarray]]:
    """The compared columns, the release, original and control encoded on one scale, and each one's
    missing-cell mask."""
    quasi, other = _published(release, schema, {"original": original, "control": control})
    columns = [*quasi, *other]
    frames = [release, original] + ([control] if control is not None else [])
    frames = [f[columns].reset_index(drop=True) for f in frames]  # type: ignore[index]
    enc = encode(frames, columns, column_kinds(schema, columns, frames))
    missing = [np.column_stack([f[c].isna().to_numpy() | (f[c].astype("string").str.strip() == "").fillna(True)
                                .to_numpy(dtype=bool) for c in columns]) for f in frames]
    return columns, enc, missing


# ---------------------------------------------------------------------------------------------------------------------
# singling-out
# ---------------------------------------------------------------------------------------------------------------------
def _univariate(table: np.ndarray, missing: np.ndarray, numeric: tuple[bool, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Every one-term predicate anonymeter's univariate attacker writes from the release: a value
    held by one row, ``≤ min`` and ``≥ max`` of a numeric column, ``is missing`` when one cell is."""
    p = table.shape[1]
    ops: list[tuple[int, int]] = []
    vals: list[float] = []
    for j in range(p):
        present = table[~missing[:, j], j]
        if missing[:, j].sum() == 1:
            ops.append((j, pr.IS_MISSING))
            vals.append(0.0)
        if len(present) == 0:
            continue
        if numeric[j]:
            ops += [(j, pr.LE), (j, pr.GE)]
            vals += [float(present.min()), float(present.max())]
        uniq, cnt = np.unique(present, return_counts=True)
        for v in uniq[cnt == 1]:
            ops.append((j, pr.EQ))
            vals.append(float(v))
    o = np.zeros((len(ops), p), dtype=np.int8)
    v = np.zeros((len(ops), p))
    for i, ((j, op), val) in enumerate(zip(ops, vals, strict=True)):
        o[i, j], v[i, j] = op, val
    return o, v


def _multivariate(table: np.ndarray, missing: np.ndarray, numeric: tuple[bool, ...], n_cols: int,
                  rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``size`` predicates written from released rows drawn at random: ``n_cols`` columns each, a
    number above the column's median as ``≥ value`` else ``≤ value``, a category as ``= value``, a
    missing cell as ``is missing`` (anonymeter's multivariate attacker)."""
    n, p = table.shape
    rows = rng.integers(n, size=size)
    use = np.argsort(rng.random((size, p)), axis=1)[:, :n_cols]
    medians = np.array([np.median(table[~missing[:, j], j]) if (~missing[:, j]).any() else 0.0 for j in range(p)])
    ops = np.zeros((size, p), dtype=np.int8)
    vals = np.zeros((size, p))
    for t in range(n_cols):
        j = use[:, t]
        v = table[rows, j]
        num = np.asarray(numeric)[j]
        op = np.where(num, np.where(v > medians[j], pr.GE, pr.LE), pr.EQ)
        ops[np.arange(size), j] = np.where(missing[rows, j], pr.IS_MISSING, op)
        vals[np.arange(size), j] = v
    return ops, vals


def _random_queries(table: np.ndarray, missing: np.ndarray, numeric: tuple[bool, ...], n_cols: int,
                    rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The baseline: ``size`` predicates on ``n_cols`` random columns, each a random operator (``=``
    or ``≠`` for a category; also ``<``, ``≤``, ``>``, ``≥`` for a number) and a random value of the
    column's distinct released values — written without looking at any row."""
    p = table.shape[1]
    use = np.argsort(rng.random((size, p)), axis=1)[:, :n_cols]
    ops = np.zeros((size, p), dtype=np.int8)
    vals = np.zeros((size, p))
    for j in range(p):
        pick = np.flatnonzero((use == j).any(axis=1))
        if len(pick) == 0:
            continue
        present = np.unique(table[~missing[:, j], j])
        has_missing = bool(missing[:, j].any())
        k = len(present) + int(has_missing)
        which = rng.integers(max(k, 1), size=len(pick))
        choices = (pr.EQ, pr.NE, pr.LT, pr.LE, pr.GT, pr.GE) if numeric[j] else (pr.EQ, pr.NE)
        op = np.asarray(choices)[rng.integers(len(choices), size=len(pick))]
        is_missing = which >= len(present)
        ops[pick, j] = np.where(is_missing, np.where(op == pr.EQ, pr.IS_MISSING, pr.NOT_MISSING), op)
        vals[pick, j] = np.where(is_missing, 0.0, present[np.minimum(which, max(len(present) - 1, 0))]
                                 if len(present) else 0.0)
    return ops, vals


def _singling_out_queries(table: np.ndarray, missing: np.ndarray, numeric: tuple[bool, ...], mode: str,
                          n_cols: int, n_attacks: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int]:
    """Distinct predicates that single out one released row (at most ``n_attacks``) and the number tried."""
    if mode == "univariate":
        ops, vals = _univariate(table, missing, numeric)
        order = rng.permutation(len(ops))
        ops, vals = ops[order], vals[order]
        keep = pr.counts(ops, vals, table, missing) == 1
        return ops[keep][:n_attacks], vals[keep][:n_attacks], len(order)
    found_o: list[np.ndarray] = []
    found_v: list[np.ndarray] = []
    seen: set[bytes] = set()
    tried = 0
    while sum(map(len, found_o)) < n_attacks and tried < ATTEMPTS_PER_QUERY * n_attacks:
        size = min(BATCH, ATTEMPTS_PER_QUERY * n_attacks - tried)
        ops, vals = _multivariate(table, missing, numeric, n_cols, rng, size)
        tried += size
        single = np.flatnonzero(pr.counts(ops, vals, table, missing) == 1)
        for i in single:
            key = ops[i].tobytes() + np.where(ops[i] == pr.UNUSED, 0.0, vals[i]).tobytes()
            if key not in seen and sum(map(len, found_o)) < n_attacks:
                seen.add(key)
                found_o.append(ops[i:i + 1])
                found_v.append(vals[i:i + 1])
    p = table.shape[1]
    if not found_o:
        return np.zeros((0, p), dtype=np.int8), np.zeros((0, p)), tried
    return np.concatenate(found_o), np.concatenate(found_v), tried


def nn_singling_out_attack(release: pd.DataFrame, original: pd.DataFrame, schema: Schema, *,
                           control: pd.DataFrame | None = None, n_attacks: int = DEFAULT_N_ATTACKS,
                           mode: str = "multivariate", n_cols: int | None = None, seed: int = 0) -> AttackOutcome:
    """Singling-out on a release of exact-looking values: can a predicate written from the release
    pick out exactly one original record?

    The attacker writes predicates from the released rows — ``univariate``: one term each, a value
    only one released row has, ``≤`` the smallest or ``≥`` the largest number of a column;
    ``multivariate`` (the default): ``n_cols`` columns of a random released row (default 3, at most
    the published columns), ``≥`` its number when above the column's median else ``≤``, ``=`` its
    category — and keeps the distinct ones that single out one released row, at most ``n_attacks``
    (the multivariate attacker tries at most :data:`ATTEMPTS_PER_QUERY` per predicate wanted).
    Success: the predicate is satisfied by exactly one ``original`` record.

    Baseline: as many predicates on random columns with random operators and random released values,
    written without looking at any row. Control: the attacker's predicates counted on ``control``,
    corrected to the size of ``original`` as the cover form does.

    Departures from anonymeter: the success rate is a share of the predicates issued, not of the
    ``n_attacks`` asked for (a release that yields few singling-out predicates does not dilute the
    rate of those it yields); identical original records are counted as the people they are (anonymeter
    drops duplicate rows); the attempts are bounded per predicate wanted, not at ten million.
    """
    seed = check_seed(seed)
    n_attacks = _n_attacks(n_attacks)
    if mode not in ("univariate", "multivariate"):
        raise InputError("mode must be 'univariate' or 'multivariate'", key="mode", value=mode)
    columns, enc, missing = _frames(release, original, control, schema)
    p = len(columns)
    if n_cols is not None and (isinstance(n_cols, bool) or not isinstance(n_cols, int) or not 1 <= n_cols <= p):
        raise InputError(f"n_cols must be a whole number from 1 to {p} (the published columns)", key="n_cols",
                         value=n_cols)
    width = 1 if mode == "univariate" else (min(DEFAULT_N_COLS, p) if n_cols is None else n_cols)
    rng = np.random.default_rng(seed)
    rel, ori = enc.tables[0], enc.tables[1]
    ops, vals, tried = _singling_out_queries(rel, missing[0], enc.numeric, mode, width, n_attacks, rng)
    n_q = len(ops)
    successes = int((pr.counts(ops, vals, ori, missing[1]) == 1).sum())
    b_ops, b_vals = _random_queries(rel, missing[0], enc.numeric, width, rng, max(n_q, 1))
    baseline = int((pr.counts(b_ops, b_vals, ori, missing[1]) == 1).sum()) if n_q else 0
    details: dict[str, object] = {"form": FORM, "mode": mode, "n_cols": width, "issued": n_q, "tried": int(tried),
                                  "released_rows": len(release), "original_records": len(original)}
    control_successes = None
    if control is not None:
        c_counts = pr.counts(ops, vals, enc.tables[2], missing[2])
        expected, factor = _control_at(c_counts, len(control), len(original))
        control_successes = int(min(n_q, round(expected)))
        details.update({"control_records": len(control), "control_raw": int((c_counts == 1).sum()),
                        "control_correction": float(factor)})
    return AttackOutcome(
        name="singling-out", successes=successes, targets=n_q, baseline_successes=baseline, baseline_targets=n_q,
        control_successes=control_successes, control_targets=None if control is None else n_q, details=details,
        note=f"({FORM}) the attacker writes predicates from released rows that single out one row; success: "
             "exactly one original record satisfies it")


# ---------------------------------------------------------------------------------------------------------------------
# linkability
# ---------------------------------------------------------------------------------------------------------------------
def nn_linkability_attack(release: pd.DataFrame, original: pd.DataFrame, schema: Schema, *,
                          aux: tuple[Sequence[str], Sequence[str]] | None = None, control: pd.DataFrame | None = None,
                          n_attacks: int = DEFAULT_N_ATTACKS, n_neighbors: int = DEFAULT_NEIGHBOURS,
                          seed: int = 0) -> AttackOutcome:
    """Linkability on a release of exact-looking values: can the attacker who holds two disjoint parts
    of a record (``aux`` = (A, B), default as in the cover form) tell they belong together?

    For each target (an ``original`` record, at most ``n_attacks`` sampled) each side finds its
    ``n_neighbors`` nearest released rows under the Gower distance over its own columns (ties at
    random). Success: the two sides share a released row. Baseline: each side picks ``n_neighbors``
    released rows at random. Control: the same attack on ``control`` records.
    """
    seed = check_seed(seed)
    n_attacks = _n_attacks(n_attacks)
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, int | np.integer) or n_neighbors < 1:
        raise InputError("n_neighbors must be a whole number ≥ 1", key="n_neighbors", value=n_neighbors)
    quasi, other = _published(release, schema, {"original": original, "control": control})
    side_a, side_b = _aux(aux, quasi, other)
    columns, enc, _ = _frames(release, original, control, schema)
    ja = [columns.index(c) for c in side_a]
    jb = [columns.index(c) for c in side_b]
    rel = enc.tables[0]
    m = len(rel)
    k = min(int(n_neighbors), m)
    rng = np.random.default_rng(seed)
    num = np.asarray(enc.numeric)

    def attack(table: np.ndarray) -> tuple[int, int]:
        targets = table[_sample(rng, len(table), n_attacks)]
        ia, _ = nearest(targets[:, ja], rel[:, ja], num[ja], k, rng)
        ib, _ = nearest(targets[:, jb], rel[:, jb], num[jb], k, rng)
        return int((ia[:, :, None] == ib[:, None, :]).any(axis=(1, 2)).sum()), len(targets)

    successes, n_t = attack(enc.tables[1])
    ra = np.array([rng.choice(m, size=k, replace=False) for _ in range(n_t)]).reshape(n_t, k)
    rb = np.array([rng.choice(m, size=k, replace=False) for _ in range(n_t)]).reshape(n_t, k)
    baseline = int((ra[:, :, None] == rb[:, None, :]).any(axis=(1, 2)).sum())
    control_successes = control_targets = None
    if control is not None:
        control_successes, control_targets = attack(enc.tables[2])
    return AttackOutcome(
        name="linkability", successes=successes, targets=n_t, baseline_successes=baseline, baseline_targets=n_t,
        control_successes=control_successes, control_targets=control_targets,
        details={"form": FORM, "aux": [side_a, side_b], "n_neighbors": k, "released_rows": m},
        note=f"({FORM}) the attacker holds two disjoint parts of a record and finds each part's nearest released "
             "rows; success: the two parts share a row")


# ---------------------------------------------------------------------------------------------------------------------
# attribute inference
# ---------------------------------------------------------------------------------------------------------------------
def nn_inference_attack(release: pd.DataFrame, original: pd.DataFrame, schema: Schema, secret: str | None = None, *,
                        aux: Sequence[str] | None = None, control: pd.DataFrame | None = None,
                        n_attacks: int = DEFAULT_N_ATTACKS, tolerance: float = DEFAULT_TOLERANCE,
                        seed: int = 0) -> AttackOutcome:
    """Attribute inference on a release of exact-looking values: the attacker who knows a target's
    ``aux`` values (default: every published column but the secret) guesses its ``secret`` (default:
    the schema's first published sensitive attribute) as the secret of the nearest released row under
    the Gower distance (ties at random). Success: the guess is the target's value — for a numeric
    secret within ``tolerance`` relative error (``|guess − x| ≤ tolerance·|x|``, the cover form's rule);
    two missing cells agree. Baseline: the secret of a released row drawn at random (anonymeter's
    naive attacker). Control: the same attack on ``control`` records.
    """
    seed = check_seed(seed)
    n_attacks = _n_attacks(n_attacks)
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float) or not tolerance >= 0:
        raise InputError("tolerance must be a number ≥ 0", key="tolerance", value=tolerance)
    quasi, other = _published(release, schema, {"original": original, "control": control})
    published = [*quasi, *other]
    if secret is None:
        secret = next((s for s in schema.sensitive if s in published), None)
        if secret is None:
            raise InputError("the release publishes no sensitive attribute: name the secret column", key="secret")
    secret = str(secret)
    if secret not in published:
        raise InputError("the secret must be a published column", column=secret, key="secret")
    columns = [c for c in published if c != secret] if aux is None else [str(c) for c in aux]
    if not columns:
        raise InputError("the attacker needs at least one published column besides the secret", key="aux")
    for c in columns:
        if c == secret or c not in published:
            raise InputError("aux must name published columns other than the secret", column=c, key="aux")
    names, enc, missing = _frames(release, original, control, schema)
    js, jx = names.index(secret), [names.index(c) for c in columns]
    numeric = enc.numeric[js]
    rel = enc.tables[0]
    rng = np.random.default_rng(seed)
    num = np.asarray(enc.numeric)

    def right(guess: np.ndarray, g_miss: np.ndarray, truth: np.ndarray, t_miss: np.ndarray) -> np.ndarray:
        hit = np.abs(guess - truth) <= tolerance * np.abs(truth) if numeric else guess == truth
        return np.where(g_miss | t_miss, g_miss & t_miss, hit)

    def attack(i: int) -> tuple[int, int, int]:
        rows = _sample(rng, len(enc.tables[i]), n_attacks)
        targets = enc.tables[i][rows]
        near, _ = nearest(targets[:, jx], rel[:, jx], num[jx], 1, rng)
        g = near[:, 0]
        truth, t_miss = targets[:, js], missing[i][rows, js]
        won = right(rel[g, js], missing[0][g, js], truth, t_miss)
        pick = rng.integers(len(rel), size=len(rows))
        base = right(rel[pick, js], missing[0][pick, js], truth, t_miss)
        return int(won.sum()), len(rows), int(base.sum())

    successes, n_t, baseline = attack(1)
    details: dict[str, object] = {"form": FORM, "secret": secret, "aux": columns, "numeric": bool(numeric)}
    if numeric:
        details["tolerance"] = float(tolerance)
    control_successes = control_targets = None
    if control is not None:
        control_successes, control_targets, _ = attack(2)
    return AttackOutcome(
        name="inference", successes=successes, targets=n_t, baseline_successes=baseline, baseline_targets=n_t,
        control_successes=control_successes, control_targets=control_targets, details=details,
        note=f"({FORM}) the attacker knows a record's other published values and guesses {secret} as the "
             "nearest released row's; success: the guess is right")
