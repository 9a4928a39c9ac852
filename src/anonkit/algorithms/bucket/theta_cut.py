"""Sort, cut into buckets of ``k`` and repair θ-sensitivity: the core that (θ*, k)-utility
angelization (paper D, spec §4.5) and the θ-sensitive k-anonymity baseline (Khan et al. 2020, spec
§4.6) share. It works on *units* — persons for angelization, records for the baseline — each with a
table row (its quasi-identifiers), a category code (the ordinal category of its sensitive value,
spec §1.5) and an id (ties).

1. **Order** (:func:`unit_order`): ``"qi"`` sorts the units lexicographically on their QIs in the
   table's QI order — a numeric QI by value (missing last), any other by its leaf's position in the
   hierarchy's leaf order (:func:`~anonkit.algorithms.cluster.hilbert.leaf_order`) — ties by id;
   ``"hilbert"`` sorts them along the Hilbert curve of their QIs (spec §5.7, the quantization of
   :mod:`~anonkit.algorithms.cluster.hilbert`), ties by id.
2. **Cut** (:func:`cut`): ``⌊n / k⌋`` buckets of ``k`` consecutive units; the remainder (< k) joins
   the last bucket.
3. **Repair** (:func:`repair`), bucket by bucket in order. A bucket passes when the population
   variance of its category codes is at least θ (1e-12 tolerance, as
   :class:`~anonkit.models.theta.ThetaSensitivity`) and, with the distinct rule, it holds at least
   ``dneed = min(k, C)`` categories. A failing bucket is repaired by

   * ``swap`` (spec §4.5 step 4): the pair (member ``i`` of the bucket, member ``j`` of the *next*
     bucket) whose exchange makes both pass, with the smallest summed NCP of the two buckets —
     ``|b|·NCP(b) + |b'|·NCP(b')``, the two buckets' share of the table NCP (spec §2.1: a numeric
     QI costs ``(max − min)/range`` over the units, any other the leaf share of the lowest common
     ancestor of its leaves, 0 at a leaf) — ties: the larger of the two buckets' smaller variance,
     then the lower ids ``(id i, id j)``. Without such a pair: merge;
   * ``merge``: the bucket absorbs the next one (the last bucket joins the previous one) and is
     judged again;
   * ``noise`` (:func:`noise`, the 2020 paper's alternative): fake units are added to the bucket,
     one at a time, each of the category that raises the variance most (ties: the lowest code;
     only categories not yet present while the distinct rule is unmet; only categories that have a
     value), until it passes. Fakes never count toward ``k``.

   The swap search is the only quadratic step: first the ``C × C`` category pairs are tested (the
   variance after a swap depends only on the two codes), then the NCP of the feasible member pairs is
   evaluated in ``O(d·h)`` each from the buckets' smallest and second-smallest (largest,
   second-largest) values, so a long run of merges costs ``O(C²)`` per step. The loop runs in plain
   Python below :data:`PYTHON_BELOW` units and compiled with numba above (cached on disk); both loops
   are in :mod:`~anonkit.algorithms.bucket._theta_kernels`.

If θ cannot be met even with every unit in one bucket, the loop ends with one failing bucket
(``ok`` false): the total variance bounds every partition's, since the variance of a union is at
least the weighted mean of its parts'.

This module must not name the algorithms (their config names live in their own modules).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from anonkit.algorithms.bucket._theta_kernels import _noise_py, _repair_py, noise_kernel, repair_kernel
from anonkit.algorithms.common import check_references
from anonkit.errors import InputError
from anonkit.hierarchy.lca import depth_first_order
from anonkit.models import Criterion, KAnonymity, ThetaSensitivity
from anonkit.models.theta import DEFAULT_LAMBDA
from anonkit.table import Table

Order = Literal["qi", "hilbert"]
#: the unit order unless the user says otherwise (spec §4.5 step 3: lexicographic on the QIs)
DEFAULT_ORDER: Order = "qi"
#: the repair unless the user says otherwise (spec §4.5 step 4: swap, else merge)
DEFAULT_REPAIR: Literal["swap"] = "swap"
#: the repair modes of the kernel
REPAIR_CODES = {"swap": 0, "merge": 1}
#: below this many units the repair loop runs in plain Python (no compilation)
PYTHON_BELOW = 1_000
#: the variance tolerance of :class:`~anonkit.models.theta.ThetaSensitivity`
TOL = 1e-12
#: bucket column of the published tables (angelization) unless a column of the input has that name
BUCKET = "bucket"
COUNT = "count"


# ---------------------------------------------------------------------------------------- the plan
@dataclass(frozen=True)
class Plan:
    """What the models and options ask for: the sensitive attribute, the bucket size ``k``, λ, θ,
    the number of categories ``C``, the distinct rule's need, the θ model (given or implied) and the
    complete list of models the release guarantees."""

    sensitive: str
    k: int
    lam: float
    theta: float
    n_categories: int
    dneed: int
    model: ThetaSensitivity
    implied: list[Criterion]
    given: bool

    def passes(self, codes: np.ndarray) -> bool:
        """Whether a bucket of these category codes passes the θ test (size not judged)."""
        c = np.asarray(codes, dtype=np.float64)
        if not c.size:
            return False
        ok = float(c.var()) >= self.theta - TOL
        return ok and (self.dneed == 0 or np.unique(c).size >= self.dneed)


def resolve_plan(
    table: Table,
    models: Sequence[Criterion],
    *,
    lam: float | None,
    sensitive: str | None,
    algorithm: str,
    allow_other: bool,
) -> Plan:
    """The :class:`Plan` of ``models`` and the options (see the algorithms' docstrings).

    ``k`` is the largest k of the k-anonymity models (on any attribute set: buckets of ``k`` persons
    satisfy a coarser grouping too) and of the θ-sensitivity model. λ is the option, else the θ
    model's, else :data:`~anonkit.models.theta.DEFAULT_LAMBDA`; θ = λ·V_full(k_θ, C) with ``k_θ`` the
    θ model's k (the bucket ``k`` when the model is implied).

    Raises
    ------
    InputError
        More than one θ-sensitivity model; another model kind when ``allow_other`` is false; no
        ``k``; a sensitive attribute that is unknown, ambiguous or disagrees with the θ model; one
        without categories; a λ option that disagrees with the θ model.
    """
    models = list(models)
    thetas = [m for m in models if isinstance(m, ThetaSensitivity)]
    if len(thetas) > 1:
        raise InputError(f"{algorithm} takes at most one θ-sensitivity model, got {len(thetas)}", key="privacy")
    others = [m for m in models if not isinstance(m, KAnonymity | ThetaSensitivity)]
    if others and not allow_other:
        raise InputError(
            f"{algorithm} enforces k-anonymity and θ-sensitivity only; it cannot guarantee {others[0].describe()}",
            key="privacy",
        )
    check_references(table, models)
    theta_model = thetas[0] if thetas else None
    ks = [int(m.k) for m in models if isinstance(m, KAnonymity)]
    if theta_model is not None:
        ks.append(int(theta_model.k))
    if not ks:
        raise InputError(f"{algorithm} needs k: give a k-anonymity or θ-sensitivity model", key="privacy")
    k = max(ks)
    if sensitive is not None:
        if sensitive not in table.sensitive:
            raise InputError(f"{algorithm}: not a sensitive attribute of the schema", column=sensitive,
                             key="algorithm.sensitive")
        if theta_model is not None and theta_model.sensitive != sensitive:
            raise InputError(
                f"{algorithm}: algorithm.sensitive names {sensitive!r} but the θ-sensitivity model protects "
                f"{theta_model.sensitive!r}", column=sensitive, key="algorithm.sensitive",
            )
        attr = sensitive
    elif theta_model is not None:
        attr = theta_model.sensitive
    elif len(table.sensitive) == 1:
        attr = table.sensitive[0]
    elif not table.sensitive:
        raise InputError(f"{algorithm} needs a sensitive attribute; the schema declares none")
    else:
        raise InputError(f"{algorithm}: several sensitive attributes ({', '.join(table.sensitive)}); name one with "
                         "algorithm.sensitive", key="algorithm.sensitive")
    domain = table.domains[attr]
    if domain.category is None:
        raise InputError(f"{algorithm} needs the ordinal categories of the sensitive values (θ-sensitivity, "
                         "spec §1.5): map every value under categories", column=attr, key="categories")
    if lam is not None and theta_model is not None and float(lam) != float(theta_model.lam):
        raise InputError(
            f"{algorithm}: algorithm.lambda = {lam:g} disagrees with the θ-sensitivity model's λ = "
            f"{theta_model.lam:g}; give one of them", key="algorithm.lambda", value=lam,
        )
    lam_value = float(lam if lam is not None else theta_model.lam if theta_model is not None else DEFAULT_LAMBDA)
    model = theta_model if theta_model is not None else ThetaSensitivity(attr, k, lam_value)
    n_cat = len(domain.category_labels)
    dneed = min(int(model.k), n_cat) if model.distinct else 0
    implied = models if theta_model is not None else [*models, model]
    return Plan(attr, k, lam_value, model.theta(n_cat), n_cat, dneed, model, implied, theta_model is not None)


def column_name(base: str, taken: Sequence[str]) -> str:
    """``base``, prefixed with ``_`` until it is none of ``taken``."""
    name = base
    while name in taken:
        name = "_" + name
    return name


# ---------------------------------------------------------------------------------------- order
def unit_order(table: Table, rows: np.ndarray, ids: np.ndarray, how: Order) -> np.ndarray:
    """Positions of the units (table rows ``rows``, tie ids ``ids``) in the order ``how`` (see the
    module docstring)."""
    rows = np.asarray(rows, dtype=np.int64)
    ids = np.asarray(ids, dtype=np.int64)
    if not len(rows) or not table.qi:
        return np.argsort(ids, kind="stable")
    if how == "hilbert":
        from anonkit.algorithms.cluster.hilbert import records_in_hilbert_order

        return records_in_hilbert_order(table, rows, ids)
    from anonkit.algorithms.cluster.hilbert import leaf_order

    keys: list[np.ndarray] = [ids]
    for j in range(len(table.qi) - 1, -1, -1):
        name = table.qi[j]
        if name in table.numeric:
            v = np.asarray(table.numeric[name], dtype=np.float64)[rows]
            keys.append(np.where(np.isnan(v), np.inf, v))
        else:
            keys.append(leaf_order(table.hierarchies[j])[table.codes[rows, j]])
    return np.lexsort(keys).astype(np.int64)


def cut(n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Bounds ``[lo, hi)`` of ``⌊n/k⌋`` buckets of ``k`` consecutive positions, the remainder in the
    last (``n ≥ k ≥ 1``)."""
    b = max(n // k, 1)
    lo = np.arange(b, dtype=np.int64) * k
    hi = lo + k
    hi[-1] = n
    return lo, hi


# ---------------------------------------------------------------------------------------- NCP space
@dataclass
class NCPSpace:
    """The units' QIs for the swap objective: ``X`` (``n × p``) numeric QIs on the unit scale of
    their range over the units; ``R`` (``n × q``) every other QI's leaf as its rank in the
    hierarchy's depth-first order, ``anc[a, level, rank]`` its ancestor's node at every level,
    ``share[a, level, node]`` that node's leaf share (0 at level 0), ``heights[a]``. A numeric QI
    with a missing value among the units is taken as a hierarchy QI (its class is published at the
    LCA, :func:`~anonkit.algorithms.local.partition_release`)."""

    X: np.ndarray
    R: np.ndarray
    anc: np.ndarray
    share: np.ndarray
    heights: np.ndarray


def ncp_space(table: Table, rows: np.ndarray) -> NCPSpace:
    """The :class:`NCPSpace` of the units at table rows ``rows``."""
    rows = np.asarray(rows, dtype=np.int64)
    n = len(rows)
    num: list[np.ndarray] = []
    hier: list[int] = []
    for j, name in enumerate(table.qi):
        if name in table.numeric:
            v = np.asarray(table.numeric[name], dtype=np.float64)[rows]
            if not np.isnan(v).any():
                lo, hi = (float(v.min()), float(v.max())) if n else (0.0, 0.0)
                num.append((v - lo) / (hi - lo) if hi > lo else np.zeros(n))
                continue
        hier.append(j)
    X = np.ascontiguousarray(np.stack(num, axis=1)) if num else np.zeros((n, 0))
    hs = [table.hierarchies[j] for j in hier]
    hmax = max((h.height for h in hs), default=0)
    lmax = max((h.n_leaves for h in hs), default=1)
    nmax = max((h.size(level) for h in hs for level in range(h.height + 1)), default=1)
    R = np.zeros((n, len(hier)), dtype=np.int64)
    anc = np.zeros((len(hier), hmax + 1, lmax), dtype=np.int64)
    share = np.zeros((len(hier), hmax + 1, nmax), dtype=np.float64)
    for a, (j, h) in enumerate(zip(hier, hs, strict=True)):
        order = depth_first_order(h)
        rank = np.empty(h.n_leaves, dtype=np.int64)
        rank[order] = np.arange(h.n_leaves)
        R[:, a] = rank[table.codes[rows, j]]
        for level in range(h.height + 1):
            anc[a, level, : h.n_leaves] = h.maps[level][order]
            if level:
                share[a, level, : h.size(level)] = h.leaf_counts(level) / h.n_leaves
    heights = np.array([h.height for h in hs], dtype=np.int64)
    return NCPSpace(X, np.ascontiguousarray(R), anc, share, heights)


def bucket_ncp(space: NCPSpace, members: np.ndarray) -> float:
    """``Σ_A NCP_A`` of one bucket (units ``members``): the swap objective's per-bucket cost."""
    members = np.asarray(members, dtype=np.int64)
    if not members.size:
        return 0.0
    total = float((space.X[members].max(axis=0) - space.X[members].min(axis=0)).sum()) if space.X.shape[1] else 0.0
    for a in range(space.R.shape[1]):
        r = space.R[members, a]
        lo, hi = int(r.min()), int(r.max())
        if lo == hi:
            continue
        for level in range(1, int(space.heights[a]) + 1):
            if space.anc[a, level, lo] == space.anc[a, level, hi]:
                total += float(space.share[a, level, space.anc[a, level, lo]])
                break
        else:
            total += 1.0
    return total


# ---------------------------------------------------------------------------------------- repair
@dataclass
class Repaired:
    """The buckets after repair: ``perm`` (units in bucket order), ``lo``/``hi`` of every bucket,
    ``swaps``, ``merges``, ``ok`` (false: one bucket is left that fails)."""

    perm: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    swaps: int
    merges: int
    ok: bool

    def bucket_of(self, n_units: int) -> np.ndarray:
        """The bucket (``0 … B−1``) of every unit."""
        out = np.empty(n_units, dtype=np.int64)
        sizes = self.hi - self.lo
        out[self.perm] = np.repeat(np.arange(len(self.lo), dtype=np.int64), sizes)
        return out


def repair(
    perm: np.ndarray,
    k: int,
    codes: np.ndarray,
    ids: np.ndarray,
    plan: Plan,
    mode: str,
    space: NCPSpace,
    *,
    compiled: bool | None = None,
) -> Repaired:
    """Cut ``perm`` (units in sorted order) into buckets of ``k`` and repair the failing ones with
    ``mode`` (``swap`` or ``merge``; see the module docstring). ``compiled`` forces the numba kernel
    (True) or plain Python (False); default: compiled from :data:`PYTHON_BELOW` units on."""
    perm = np.array(perm, dtype=np.int64)
    lo, hi = cut(len(perm), k)
    use = compiled if compiled is not None else len(perm) >= PYTHON_BELOW
    run = repair_kernel() if use else _repair_py
    alive, swaps, merges, ok = run(
        perm, lo, hi, np.asarray(codes, dtype=np.int64), np.asarray(ids, dtype=np.int64), int(plan.n_categories),
        float(plan.theta), int(plan.dneed), int(REPAIR_CODES[mode]), space.X, space.R, space.anc, space.share,
        space.heights,
    )
    return Repaired(perm, lo[alive], hi[alive], int(swaps), int(merges), bool(ok))


# ---------------------------------------------------------------------------------------- noise
def noise(
    hist: np.ndarray, plan: Plan, available: np.ndarray, *, compiled: bool | None = None
) -> tuple[np.ndarray, bool]:
    """Fake units per bucket and category (``B × C`` counts) that make every bucket of the category
    histogram ``hist`` pass (see the module docstring), and whether that succeeded for every bucket
    (a bucket that still fails after ``64 + 4·n`` fakes, ``n`` its units, gets none and ``ok`` is false)."""
    hist = np.ascontiguousarray(hist, dtype=np.int64)
    use = compiled if compiled is not None else len(hist) * 4 >= PYTHON_BELOW
    run = noise_kernel() if use else _noise_py
    fakes, ok = run(hist, float(plan.theta), int(plan.dneed), np.asarray(available, dtype=np.bool_))
    return fakes, bool(ok)


def category_histogram(codes: np.ndarray, bucket: np.ndarray, n_buckets: int, n_cat: int) -> np.ndarray:
    """``B × C`` counts of the category codes ``codes`` of units in buckets ``bucket``."""
    flat = np.asarray(bucket, dtype=np.int64) * n_cat + np.asarray(codes, dtype=np.int64)
    return np.bincount(flat, minlength=n_buckets * n_cat).reshape(n_buckets, n_cat)


def total_verdict(codes: np.ndarray, plan: Plan, *, units: str = "units", group: str = "bucket",
                  noise_hint: bool = True) -> str | None:
    """Why θ cannot be met by any grouping of units with category codes ``codes`` (all of them in
    one ``group`` fail), or ``None``; ``units``/``group`` name them in the message, ``noise_hint``
    suggests the noise repair."""
    c = np.asarray(codes, dtype=np.float64)
    if not c.size:
        return None
    hint = ", or use repair: noise" if noise_hint else ""
    var = float(c.var())
    if var < plan.theta - TOL:
        return (f"θ = {plan.theta:.6g} cannot be reached: even all {c.size:,} {units} in one {group} have a category "
                f"variance of {var:.6g} (λ = {plan.lam:g}, k = {plan.model.k}, {plan.n_categories} categories); "
                f"lower lambda or k{hint}")
    distinct = int(np.unique(c).size)
    if distinct < plan.dneed:
        return (f"the distinct rule needs {plan.dneed} categories per {group} but the data hold only {distinct}; "
                f"drop distinct{hint}")
    return None


def noise_verdict(available: np.ndarray, plan: Plan) -> str | None:
    """Why fakes cannot lift a bucket to θ, or ``None``: fakes take the categories that have a value
    (``available``); a bucket's codes then lie in their range ``R``, so its variance stays at most
    ``R²/4`` (reached only by equal numbers at both ends), and the distinct rule needs ``dneed`` of
    them."""
    codes = np.flatnonzero(np.asarray(available, dtype=bool))
    spread = float(codes.max() - codes.min()) if codes.size else 0.0
    if plan.theta > spread**2 / 4 + TOL:
        return (f"θ = {plan.theta:.6g} cannot be reached even with fake records: the data's values fall in "
                f"{codes.size} categor{'y' if codes.size == 1 else 'ies'}, whose variance stays at most "
                f"{spread**2 / 4:.6g}; lower lambda or k")
    if codes.size < plan.dneed:
        return (f"the distinct rule needs {plan.dneed} categories per bucket but only {codes.size} have a value; "
                "drop distinct")
    return None
