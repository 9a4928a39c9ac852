"""BKA-JS baseline — **reconstructed** (Riboni, Pareschi, Bettini, "JS-Reduce", IEEE TDSC 2012, as
paper A uses it; spec §4.2, register #8).

Paper A compares UHRA against BKA-JS but only says it forms "groups satisfying JSD ≤ J and
t-closeness"; the grouping rule below is the spec's reconstruction, so releases say ``algorithm:
"bka-js (reconstructed)"`` and ``notes['reconstructed'] = True``.

1. **Hilbert order** (:mod:`anonkit.algorithms.cluster.hilbert`, spec §5.7): every QI is put in
   ``[0, 1]`` — numeric ``(v − min)/(max − min)``, a missing value at 0; categorical the rank of the
   leaf (among the leaves in use) in the hierarchy's depth-first leaf order — and quantized to
   ``2^p`` cells, ``p = bits`` (default 10) raised to ``⌈log2 distinct values⌉`` of the attribute
   with most values, but not beyond one 64-bit index. Records are sorted by (Hilbert index, record
   index).
2. **Scan**: records join the open group in that order; it closes as soon as it passes the *closing
   test* — size ≥ ``k`` (unless ``enforce_k=False``; spec register #8 adds ``k`` so the comparison
   with UHRA is on equal terms), every t-closeness / β-likeness bound — **and** every member is
   BK-safe: ``JSD(prior, posterior) ≤ J`` with the Ω-estimate posterior of spec §1.7 (or the exact
   enumeration for groups of at most 8 records when the model says ``posterior="exact"``, as the
   model itself judges).
3. **Leftovers** (the final open group): ``leftover="merge"`` (default) appends them to the last
   closed group if the merged group still passes the closing test and is BK-safe, else suppresses
   them; ``"suppress"`` suppresses them. If no group ever closes, every record is suppressed.
4. The groups are generalized (numeric ``[min, max]``, categorical lowest common ancestor) and
   judged by every model by :func:`~anonkit.algorithms.cluster._bk_engine.finish`; classes failing one
   (e.g. two groups publishing identical values merged into a class that is not BK-safe) are
   suppressed whole.

Parameters come from the models: ``KAnonymity(k)``, ``TCloseness(S, t)`` and ``BackgroundKnowledge(S,
J)`` (``test="auto"`` is the posterior test for this algorithm). Without a background-knowledge
model, ``J = 1`` and the BK check is void. The pairwise test (UHRA's guarantee) is refused: it only
grows as a group grows, so a scan could never close a group once two far priors met.

Cost: O(n log n) for the order, O(S) per record for the closing test; the BK check runs only when the
closing test passes. It works on the distinct prior vectors of the open group and tries first the
vector that failed last time (a *witness*) and the newest record's, so a group that keeps failing
costs O(S) per record rather than O(g·S); a full check, O(u·S) for ``u`` distinct priors in the
group, happens when the group closes or the witness changes.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field

from anonkit.algorithms.cluster._bk_engine import ClosingTest, QISpace, Setup, finish, setup
from anonkit.algorithms.cluster.hilbert import DEFAULT_BITS, hilbert_order
from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression
from anonkit.algorithms.spec import algorithm
from anonkit.errors import InputError
from anonkit.knowledge import EXACT_MAX, group_is_bk_safe
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table

LABEL = "bka-js (reconstructed)"
#: Tolerance of the ``≤ J`` test, as :meth:`BackgroundKnowledge.class_passes` and ``group_is_bk_safe``.
TOL = 1e-12
#: Records between two progress reports.
PROGRESS_EVERY = 1000

# BK check modes of the scan
_NONE, _OMEGA, _EXACT = 0, 1, 2


# ------------------------------------------------------------------ numba kernels (plain Python, compiled lazily)
def _jsd_py(p: np.ndarray, q: np.ndarray) -> float:
    """Base-2 JSD of two distributions, clipped to ``[0, 1]`` (as :func:`anonkit.knowledge.jsd`)."""
    a = 0.0
    b = 0.0
    for i in range(p.shape[0]):
        m = 0.5 * (p[i] + q[i])
        if p[i] > 0:
            a += p[i] * np.log2(p[i] / m)
        if q[i] > 0:
            b += q[i] * np.log2(q[i] / m)
    d = 0.5 * (a + b)
    return min(max(d, 0.0), 1.0)


def _omega_fails_py(
    p: np.ndarray, hist: np.ndarray, colsum: np.ndarray, size: float, J: float, post: np.ndarray
) -> bool:
    """Whether the record with prior ``p`` has ``JSD(p, Ω posterior) > J`` in the group of sensitive
    histogram ``hist`` and prior column sums ``colsum`` (spec §1.7; as ``omega_posterior``)."""
    s = p.shape[0]
    tot = 0.0
    for i in range(s):
        w = hist[i] * p[i] / colsum[i] if colsum[i] > 0 else 0.0
        post[i] = w
        tot += w
    if tot > 0:
        for i in range(s):
            post[i] = post[i] / tot
    else:
        for i in range(s):
            post[i] = hist[i] / size
    return _jsd(p, post) > J + TOL


def _omega_witness_py(
    uniq: np.ndarray,
    vlist: np.ndarray,
    nv: int,
    hist: np.ndarray,
    colsum: np.ndarray,
    size: float,
    J: float,
    witness: int,
    newest: int,
) -> int:
    """A distinct prior of the group (an id into ``uniq``) that is not BK-safe, −1 if every member is.

    Tries ``witness`` (last failure, −1 for none), then ``newest``, then the others of ``vlist[:nv]``.
    """
    post = np.empty(uniq.shape[1])
    if witness >= 0 and _omega_fails(uniq[witness], hist, colsum, size, J, post):
        return witness
    if newest != witness and _omega_fails(uniq[newest], hist, colsum, size, J, post):
        return newest
    for i in range(nv):
        v = vlist[i]
        if v != witness and v != newest and _omega_fails(uniq[v], hist, colsum, size, J, post):
            return v
    return -1


def _exact_safe_py(pri: np.ndarray, values: np.ndarray, J: float) -> bool:
    """Exact-posterior BK-safety of a small group (as ``exact_posterior``): every distinct assignment of
    the multiset ``values`` (sorted ascending) to the records, weighted by the product of priors,
    enumerated in lexicographic order (next permutation)."""
    g, s = pri.shape
    a = values.copy()
    post = np.zeros((g, s))
    flat = np.zeros((g, s))
    wsum = 0.0
    count = 0.0
    while True:
        w = 1.0
        for r in range(g):
            w *= pri[r, a[r]]
        for r in range(g):
            post[r, a[r]] += w
            flat[r, a[r]] += 1.0
        wsum += w
        count += 1.0
        # next permutation of the multiset
        i = g - 2
        while i >= 0 and a[i] >= a[i + 1]:
            i -= 1
        if i < 0:
            break
        j = g - 1
        while a[j] <= a[i]:
            j -= 1
        t = a[i]
        a[i] = a[j]
        a[j] = t
        lo = i + 1
        hi = g - 1
        while lo < hi:
            t = a[lo]
            a[lo] = a[hi]
            a[hi] = t
            lo += 1
            hi -= 1
    post = post / wsum if wsum > 0 else flat / count
    for r in range(g):  # noqa: SIM110 (numba: no generator in all())
        if _jsd(pri[r], post[r]) > J + TOL:
            return False
    return True


_jsd = _jsd_py
_omega_fails = _omega_fails_py
_COMPILED: dict[str, Any] = {}


def _compile() -> dict[str, Any]:
    """Compile the kernels with numba once (cached on disk); they depend only on this module."""
    global _jsd, _omega_fails
    if not _COMPILED:
        import numba as nb

        jit = nb.njit(cache=True, nogil=True)
        _jsd = jit(_jsd_py)
        _omega_fails = jit(_omega_fails_py)
        _COMPILED.update(witness=jit(_omega_witness_py), exact=jit(_exact_safe_py))
    return _COMPILED


# ------------------------------------------------------------------ the scan
def _bk_safe(s: Setup, members: np.ndarray, mode: int) -> bool:
    """Reference BK-safety of the records ``members`` (table rows), as the model judges a class."""
    if mode == _NONE:
        return True
    counts = np.bincount(s.sa[members], minlength=s.priors.shape[1])
    how = "exact" if mode == _EXACT and len(members) <= EXACT_MAX else "omega"
    return group_is_bk_safe(s.priors[members], counts, s.J, posterior=how)


def scan(
    order: np.ndarray,
    pri: np.ndarray,
    sa: np.ndarray,
    test: ClosingTest,
    *,
    J: float,
    mode: int,
    report: Any = None,
) -> tuple[np.ndarray, int, int, int, dict[str, int]]:
    """Greedy grouping along ``order`` (spec §4.2 step 2).

    ``pri`` (``m × S``) and ``sa`` (``m``) are the priors and sensitive codes of the records, ``order``
    a permutation of their positions, ``test`` the closing test.
    Returns the group of every position (−1: in the final open group), the number of groups, where
    the last closed group and the open group start in ``order``, and counters.
    """
    kernels = _compile()
    witness_of = kernels["witness"]
    exact_safe = kernels["exact"]
    m, n_values = pri.shape
    uniq, vid = np.unique(pri, axis=0, return_inverse=True)
    uniq = np.ascontiguousarray(uniq)
    vid = vid.reshape(-1).astype(np.int64)
    k = int(test.k)
    group = np.full(m, -1, dtype=np.int64)
    hist = np.zeros(n_values)
    colsum = np.zeros(n_values)
    vcount = np.zeros(len(uniq), dtype=np.int64)
    vlist = np.empty(max(m, 1), dtype=np.int64)
    nv = 0
    witness = -1
    start = 0
    last_start = -1
    n_groups = 0
    counters = {"closing_passed": 0, "bk_checks_failed": 0}
    for pos in range(m):
        r = order[pos]
        hist[sa[r]] += 1.0
        colsum += pri[r]
        v = vid[r]
        if vcount[v] == 0:
            vlist[nv] = v
            nv += 1
        vcount[v] += 1
        size = pos + 1 - start
        if report is not None and (pos + 1) % PROGRESS_EVERY == 0:
            report(pos + 1, m)
        if size < k or not test.passes(hist, size):
            continue
        counters["closing_passed"] += 1
        if mode == _EXACT and size <= EXACT_MAX:
            members = order[start : pos + 1]
            ok = exact_safe(np.ascontiguousarray(pri[members]), np.sort(sa[members]), J)
        elif mode != _NONE:
            witness = witness_of(uniq, vlist, nv, hist, colsum, float(size), J, witness, v)
            ok = witness < 0
        else:
            ok = True
        if not ok:
            counters["bk_checks_failed"] += 1
            continue
        group[order[start : pos + 1]] = n_groups
        n_groups += 1
        last_start = start
        start = pos + 1
        hist[:] = 0.0
        colsum[:] = 0.0
        vcount[vlist[:nv]] = 0
        nv = 0
        witness = -1
    if report is not None:
        report(m, m)
    return group, n_groups, last_start, start, counters


@algorithm(
    "bka-js",
    family="cluster",
    summary="reconstructed baseline of paper A: records in Hilbert-curve order, a group closed when it has "
    "k records, is t-close and keeps every member's JSD(prior, posterior) within J",
    enforces=("k-anonymity", "t-closeness", "background-knowledge"),
    needs=("priors",),
    progress="scanning records in Hilbert order",
    bk_test="posterior",
    reconstructed=True,
    label="BKA-JS",
)
def bka_js(
    table: Table,
    models: list[Criterion],
    *,
    priors: Any = None,
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
    bits: Annotated[int, Field(ge=1, le=64)] = DEFAULT_BITS,
    leftover: Literal["merge", "suppress"] = "merge",
    enforce_k: bool = True,
) -> Release:
    """BKA-JS (reconstructed), see the module docstring.

    ``priors``: :class:`~anonkit.knowledge.Priors` or an ``n × S`` array (default: the model's
    estimate, kernel, spec §3.2). ``extra`` holds ``groups`` (groups formed), ``group`` (per record,
    −1 suppressed, before the final judging), ``leftover_records``, ``leftover_suppressed``,
    ``hilbert_bits`` (bits per attribute used), ``reconstructed`` and the judging's counters
    (``bk_failed_records``, ``bk_divergence``).

    Parameters
    ----------
    max_suppression:
        Share of the records the models may suppress.
    bits:
        Bits per attribute of the Hilbert curve's grid (at least enough for the distinct values).
    leftover:
        Records after the last closed group join it (``merge``, then re-checked) or are suppressed.
    enforce_k:
        Close groups on k (true) or on t and the JSD bound alone (false).
    """
    from anonkit.algorithms.common import PROGRESS
    from anonkit.algorithms.spec import declared

    started = time.perf_counter()
    guarantee = str(bka_js.spec.bk_test)  # type: ignore[attr-defined]
    s = setup(table, models, algorithm="bka-js", guarantee=guarantee, priors=priors, max_suppression=max_suppression)
    if s.bk is not None and s.bk.effective_test != "posterior":
        pairwise = ", ".join(a.name for a in declared() if a.bk_test == "pairwise")
        raise InputError(
            f"bka-js closes groups on the posterior test (spec §4.2); the pairwise test is enforced by {pairwise}",
            key="test",
        )
    mode = _NONE if s.bk is None or s.J >= 1.0 else _EXACT if s.bk.posterior == "exact" else _OMEGA
    test = s.test if enforce_k else replace(s.test, k=1)
    space = QISpace(table, s.rows)
    order, p = hilbert_order(space, int(bits))
    pri = np.ascontiguousarray(s.priors[s.rows])
    sa = np.ascontiguousarray(s.sa[s.rows])
    group, n_groups, last_start, open_start, counters = scan(
        order, pri, sa, test, J=s.J, mode=mode, report=PROGRESS.get()
    )
    left = order[open_start:]
    merged = 0
    if len(left) and n_groups and leftover == "merge":
        tail = s.rows[order[last_start:]]
        counts = np.bincount(s.sa[tail], minlength=s.priors.shape[1]).astype(np.float64)
        if test.passes(counts, len(tail)) and _bk_safe(s, tail, mode):
            group[left] = n_groups - 1
            merged = len(left)
    record_class = np.full(table.n, -1, dtype=np.int64)
    record_class[s.rows] = group
    params = {
        "k": s.k,
        "J": s.J,
        "bits": int(bits),
        "hilbert_bits": p,
        "leftover": leftover,
        "enforce_k": bool(enforce_k),
        "max_suppression": max_suppression,
    }
    params.update({f"t_{i}": float(t) for i, t in enumerate(s.test.ts)})
    rel = finish(s, record_class, algorithm=LABEL, max_suppression=max_suppression, started=started, params=params)
    rel.record_group = record_class
    rel.notes.update(counters)
    rel.notes.update(
        {
            "reconstructed": True,
            "groups": int(n_groups),
            "leftover_records": len(left),
            "leftover_merged": int(merged),
            "leftover_suppressed": int(len(left) - merged),
            "hilbert_bits": int(p),
            "k": s.k,
            "J": s.J,
            "enforce_k": bool(enforce_k),
            "sensitive": s.sensitive,
        }
    )
    return rel
