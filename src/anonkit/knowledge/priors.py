"""The adversary's background knowledge: a prior ``P(sensitive | QI)`` per distinct QI tuple (§3).

Records with the same quasi-identifier tuple share one prior, so every estimator works on the
table's *distinct* tuples (``table.distinct``, ``m`` of them) and a :class:`Priors` maps records to
rows with ``inverse``. Four sources of knowledge:

* :func:`kernel_priors` — the §3.2 default: Nadaraya–Watson with the Epanechnikov kernel on the
  §0.3 normalized QI distance, from the table itself or from an external table.
* :func:`classifier_priors` — a scikit-learn classifier's ``predict_proba``.
* :func:`matrix_priors` — priors the user supplies (a data frame indexed by QI tuples or an array).
* :func:`incremental_priors` — the §3.3 reconstruction of the "incremental" method for sequential
  releases: the previous release's posterior, carried through a transition matrix.

All return :class:`Priors` whose columns follow ``table.domains[sensitive].labels``.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from anonkit._kernels import first_rows
from anonkit._values import cell_text
from anonkit.distance import leaf_delta, numeric_delta, unit_range
from anonkit.errors import InputError
from anonkit.knowledge._priors_blocks import blocked_numerators
from anonkit.table import Table

if TYPE_CHECKING:
    from scipy import sparse

#: Upper bound on the (target, source) pairs evaluated at once (≈ 16 MB per float64 array).
CHUNK_ELEMENTS = 2_000_000
#: Tolerance on "rows sum to 1" for user-supplied priors.
ROW_SUM_TOL = 1e-6

KernelMode = Literal["distance", "product"]


@dataclass
class Priors:
    """Prior beliefs ``P(sensitive | QI)``.

    ``per_tuple[t]`` is a distribution over ``labels`` (rows sum to 1); ``inverse[i]`` the row of
    record ``i``. For :func:`kernel_priors`, :func:`classifier_priors` and :func:`matrix_priors` the
    rows are the table's distinct QI tuples (``inverse = table.distinct.inverse``); for
    :func:`incremental_priors` they are the distinct prior vectors (individuals with the same QI
    tuple may then hold different beliefs).
    """

    per_tuple: np.ndarray
    inverse: np.ndarray
    labels: np.ndarray
    sensitive: str | None = None

    def per_record(self) -> np.ndarray:
        """The ``(n × S)`` prior of every record."""
        return self.per_tuple[self.inverse]

    @property
    def n(self) -> int:
        return len(self.inverse)

    @property
    def size(self) -> int:
        """Number of rows (distinct tuples)."""
        return self.per_tuple.shape[0]


# ---------------------------------------------------------------------- shared helpers
def _check_sensitive(table: Table, sensitive: str) -> None:
    if sensitive not in table.domains:
        raise InputError("not a sensitive attribute of the table", column=sensitive)


def _result(table: Table, sensitive: str, per_tuple: np.ndarray) -> Priors:
    return Priors(per_tuple, table.distinct.inverse, table.domains[sensitive].labels, sensitive)


@dataclass
class _Side:
    """Distinct QI tuples of one table in the *target* table's coordinates.

    ``cols[j]`` holds, per distinct tuple, the float value of numeric QI ``j`` or the leaf code (in
    the target's hierarchy) of categorical QI ``j``. ``hist`` is ``(m × S)`` record counts per tuple
    and sensitive value (target domain order); ``None`` for the target when only queried.
    """

    cols: list[np.ndarray]
    hist: np.ndarray


def _hist(tab: Table, sensitive: str, code_map: np.ndarray | None, s: int) -> np.ndarray:
    item, code, count = tab.distinct.pairs[sensitive]
    if code_map is not None:
        code = code_map[code]
        keep = code >= 0
        item, code, count = item[keep], code[keep], count[keep]
    hist = np.zeros((tab.distinct.size, s))
    np.add.at(hist, (item, code), count)
    return hist


def _side(table: Table, sensitive: str, source: Table | None = None) -> _Side:
    """Distinct tuples of ``source`` (default: ``table``) expressed in ``table``'s coordinates."""
    tab = table if source is None else source
    d = tab.distinct
    first = first_rows(d.inverse, d.size)
    s = table.domains[sensitive].size
    cols: list[np.ndarray] = []
    for name, h in zip(table.qi, table.hierarchies, strict=True):
        j = tab.qi.index(name)
        if name in table.numeric:
            if name not in tab.numeric:
                raise InputError("quasi-identifier is numeric in the table but not in the external data", column=name)
            cols.append(tab.numeric[name][first].astype(np.float64))
            continue
        codes = d.tuples[:, j].astype(np.int64)
        if source is not None:
            index = h.index()
            leaves = tab.hierarchies[j].leaves
            mapped = np.array([index.get(cell_text(v), -1) for v in leaves], dtype=np.int64)
            used = mapped[codes]
            if (used < 0).any():
                bad = leaves[codes[np.flatnonzero(used < 0)[0]]]
                raise InputError("external value missing from the table's hierarchy", column=name, value=bad)
            codes = used
        cols.append(codes)
    code_map = None
    if source is not None:
        index = {cell_text(v): i for i, v in enumerate(table.domains[sensitive].labels)}
        code_map = np.array([index.get(cell_text(v), -1) for v in tab.domains[sensitive].labels], dtype=np.int64)
    return _Side(cols, _hist(tab, sensitive, code_map, s))


def _check_external(table: Table, sensitive: str, external: Table) -> None:
    missing = [q for q in table.qi if q not in external.qi]
    if missing or len(external.qi) != len(table.qi):
        raise InputError(
            f"external data must have the same quasi-identifiers {table.qi}, has {external.qi}",
            column=missing[0] if missing else None,
        )
    if sensitive not in external.domains:
        raise InputError("external data lacks the sensitive attribute", column=sensitive)


def _source(table: Table, sensitive: str, external: Table | None) -> _Side:
    _check_sensitive(table, sensitive)
    if external is None:
        return _side(table, sensitive)
    _check_external(table, sensitive, external)
    return _side(table, sensitive, external)


def _global(hist: np.ndarray) -> np.ndarray:
    total = hist.sum()
    if total <= 0:
        raise InputError("the background-knowledge data holds no value of the table's sensitive domain")
    return hist.sum(axis=0) / total


# ---------------------------------------------------------------------- kernel estimation
class _Deltas:
    """Per-attribute §0.3 distances ``δ_a`` (:mod:`anonkit.distance`) between target and source
    tuples, block by block."""

    def __init__(self, table: Table, target: _Side, source: _Side) -> None:
        self.parts: list[tuple[str, Any]] = []
        for j, (name, h) in enumerate(zip(table.qi, table.hierarchies, strict=True)):
            t, s = target.cols[j], source.cols[j]
            if name in table.numeric:
                _, span = unit_range(np.concatenate([t, s]))
                self.parts.append(("num", (t, s, span)))
                continue
            ut, ti = np.unique(t, return_inverse=True)
            us, si = np.unique(s, return_inverse=True)
            blank = np.array([cell_text(v) == "" for v in h.leaves], dtype=bool)
            self.parts.append(("cat", (ti.reshape(-1), si.reshape(-1), leaf_delta(h, ut, us, missing=blank))))

    def __len__(self) -> int:
        return len(self.parts)

    def block(self, j: int, rows: slice) -> np.ndarray:
        """``δ_j`` between target tuples ``rows`` and every source tuple (``chunk × m_s``)."""
        kind, data = self.parts[j]
        if kind == "num":
            t, s, span = data
            return numeric_delta(t[rows, None], s[None, :], span)
        ti, si, mat = data
        return mat[ti[rows]][:, si]


#: the kernel bandwidth per normalized quasi-identifier (spec §3.2, §6)
DEFAULT_BANDWIDTH = 0.3


def _bandwidths(table: Table, bandwidth: float | Mapping[str, float]) -> np.ndarray:
    if isinstance(bandwidth, Mapping):
        unknown = [k for k in bandwidth if k not in table.qi]
        if unknown:
            raise InputError("bandwidth given for a non-quasi-identifier", column=unknown[0])
        out = np.array([float(bandwidth.get(q, DEFAULT_BANDWIDTH)) for q in table.qi])
    else:
        out = np.full(len(table.qi), float(bandwidth))
    if not np.all(out > 0):
        raise InputError("kernel bandwidth must be positive", value=bandwidth)
    return out


def kernel_priors(
    table: Table,
    sensitive: str,
    *,
    bandwidth: float | Mapping[str, float] = DEFAULT_BANDWIDTH,
    external: Table | None = None,
    kernel: KernelMode = "product",
) -> Priors:
    """Kernel (Nadaraya–Watson) estimate of ``P(sensitive | QI)`` per distinct QI tuple (§3.2).

    ``P(s | q) = Σ_j K(q, q_j) · 1[s_j = s] / Σ_j K(q, q_j)`` over the records ``j`` of the source
    data (``external`` if given, else ``table``) with the Epanechnikov kernel
    ``K(u) = ¾(1 − u²)`` for ``u < 1``, else 0. Per attribute, ``δ_a`` is the §0.3 normalized
    distance (numeric and date QIs: ``|Δ| / range`` over both tables, missing → 1; categorical QIs:
    ``height(LCA) / height(H)``, a missing value → 1).

    ``kernel="product"`` (default, spec §3.2 and §6: bandwidth 0.3 per normalized attribute): the
    product kernel ``Π_a K(δ_a / B_a)``. ``kernel="distance"``: ``u = sqrt(Σ_a (δ_a / B_a)²)``,
    i.e. ``K(d / B)`` of the §0.3 QI distance with weights 1 when the bandwidth is one number.
    ``bandwidth`` is one number or a mapping QI → bandwidth (unlisted QIs: 0.3). A tuple with no
    source record inside the kernel's support gets the source's global sensitive distribution.

    Work is on distinct tuples only, and only on the (target, source) pairs that can lie inside the
    kernel's support (:mod:`anonkit.knowledge._priors_blocks`: blocked by the categorical values'
    components of ``δ < B``, windowed on a numeric QI), at most :data:`CHUNK_ELEMENTS` pairs at a
    time. The sums run over the sources in ascending order, so the figures are bit for bit those of
    the full every-tuple-against-every-tuple comparison (dropped pairs weigh exactly 0).

    Sensitive values of ``external`` not in the table's domain are ignored.
    """
    if kernel not in ("distance", "product"):
        raise InputError(f"unknown kernel {kernel!r}; allowed: 'distance', 'product'")
    source = _source(table, sensitive, external)
    target = _side(table, sensitive) if external is not None else source
    glob = _global(source.hist)
    bands = _bandwidths(table, bandwidth)
    deltas = _Deltas(table, target, source)
    m = table.distinct.size
    num = blocked_numerators(deltas.parts, bands, kernel, source.hist, m, CHUNK_ELEMENTS)
    den = num.sum(axis=1)
    ok = den > 0
    out = np.empty((m, source.hist.shape[1]))
    out[:] = glob
    out[ok] = num[ok] / den[ok, None]
    return _result(table, sensitive, out)


# ---------------------------------------------------------------------- classifier
def _features(table: Table, sides: list[_Side]) -> list[sparse.csr_matrix]:
    """One-hot encoding of every QI (numeric QIs: one-hot of the value plus its min–max scaled value)."""
    from scipy import sparse  # on demand: a run without priors never loads scipy

    blocks: list[list[sparse.csr_matrix]] = [[] for _ in sides]
    for j, (name, h) in enumerate(zip(table.qi, table.hierarchies, strict=True)):
        if name in table.numeric:
            vals = np.concatenate([sd.cols[j] for sd in sides])
            filled = np.where(np.isnan(vals), np.nanmin(vals) - 1 if (~np.isnan(vals)).any() else 0.0, vals)
            uniq, codes = np.unique(filled, return_inverse=True)
            codes = codes.reshape(-1)
            lo, hi = float(filled.min()), float(filled.max())
            scaled = (filled - lo) / (hi - lo) if hi > lo else np.zeros_like(filled)
            width = len(uniq)
        else:
            codes = np.concatenate([sd.cols[j] for sd in sides]).astype(np.int64)
            scaled = None
            width = h.n_leaves
        at = 0
        for k, sd in enumerate(sides):
            size = len(sd.cols[j])
            part = codes[at : at + size]
            onehot = sparse.csr_matrix((np.ones(size), (np.arange(size), part)), shape=(size, width))
            blocks[k].append(onehot)
            if scaled is not None:
                blocks[k].append(sparse.csr_matrix(scaled[at : at + size, None]))
            at += size
    return [
        sparse.hstack(b, format="csr") if b else sparse.csr_matrix((len(sd.hist), 1))
        for b, sd in zip(blocks, sides, strict=True)
    ]


def classifier_priors(
    table: Table,
    sensitive: str,
    *,
    model: Any = None,
    external: Table | None = None,
    smoothing: float = 1e-6,
) -> Priors:
    """``P(sensitive | QI)`` from a scikit-learn classifier's ``predict_proba`` per distinct tuple.

    The classifier is fitted on ``external`` (or the table itself): one training row per distinct
    (QI tuple, sensitive value) pair with its record count as ``sample_weight`` (rows are repeated
    instead if ``model.fit`` takes no ``sample_weight``). Features: a one-hot column per leaf of
    every categorical QI; numeric/date QIs get a one-hot column per distinct value plus the min–max
    scaled value. Default model: ``LogisticRegression(max_iter=1000)`` (multinomial, L2, C = 1) —
    chosen over ``CategoricalNB`` because it handles numeric QIs and unseen feature values without
    per-category smoothing bookkeeping. ``model`` is fitted in place.

    Classes map to ``table.domains[sensitive].labels``; a label the classifier never saw gets 0,
    then every row becomes ``(p + ε) / (1 + S ε)`` with ``ε = smoothing`` so no value is impossible.
    """
    source = _source(table, sensitive, external)
    target = _side(table, sensitive) if external is not None else source
    s = source.hist.shape[1]
    _global(source.hist)
    t_idx, y = np.nonzero(source.hist)
    w = source.hist[t_idx, y]
    classes = np.unique(y)
    m = table.distinct.size
    if len(classes) == 1:
        proba = np.zeros((m, s))
        proba[:, classes[0]] = 1.0
    else:
        xs, xt = _features(table, [source, target])
        x = xs[t_idx]
        if model is None:
            from sklearn.linear_model import LogisticRegression

            model = LogisticRegression(max_iter=1000)
        if "sample_weight" in inspect.signature(model.fit).parameters:
            model.fit(x, y, sample_weight=w)
        else:
            reps = np.round(w).astype(np.int64)
            model.fit(x[np.repeat(np.arange(len(y)), reps)], np.repeat(y, reps))
        raw = np.asarray(model.predict_proba(xt), dtype=np.float64)
        proba = np.zeros((m, s))
        proba[:, np.asarray(model.classes_, dtype=np.int64)] = raw
    proba = np.clip(proba, 0.0, None)
    sums = proba.sum(axis=1, keepdims=True)
    proba = np.where(sums > 0, proba / np.where(sums > 0, sums, 1.0), 1.0 / s)
    proba = (proba + smoothing) / (1.0 + s * smoothing)
    return _result(table, sensitive, proba)


# ---------------------------------------------------------------------- user-supplied
def _validate_rows(p: np.ndarray, s: int, what: str) -> None:
    if p.ndim != 2 or p.shape[1] != s:
        raise InputError(f"{what} must have {s} columns (one per sensitive value), has shape {p.shape}")
    if not np.isfinite(p).all():
        raise InputError(f"{what} holds a non-finite value")
    if (p < 0).any():
        i = int(np.flatnonzero((p < 0).any(axis=1))[0])
        raise InputError(f"{what} holds a negative probability", row=i + 1)
    bad = np.abs(p.sum(axis=1) - 1.0) > ROW_SUM_TOL
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"{what}: row does not sum to 1", value=float(p[i].sum()), row=i + 1)


def matrix_priors(table: Table, sensitive: str, matrix: pd.DataFrame | ArrayLike) -> Priors:
    """Priors the user supplies.

    ``matrix`` is either

    * a DataFrame indexed by QI tuples (a MultiIndex over the QIs — by level names if they are the
      QI names, else positionally in ``table.qi`` order — or a plain index for one QI), with one
      column per sensitive label (labels not given get probability 0); every distinct QI tuple of
      the table must be in the index, matched as text against the hierarchy leaves; or
    * an array of shape ``(n × S)`` (one row per record; records sharing a QI tuple must share the
      row) or ``(m × S)`` (one row per distinct tuple, ``table.distinct`` order). If ``n == m`` the
      array is read per record.

    Raises
    ------
    InputError
        Wrong shape, unknown column, missing or duplicate tuple, negative or non-finite entry, a row
        not summing to 1 (tolerance :data:`ROW_SUM_TOL`).
    """
    _check_sensitive(table, sensitive)
    labels = table.domains[sensitive].labels
    s = len(labels)
    d = table.distinct
    if isinstance(matrix, pd.DataFrame):
        index = {cell_text(v): i for i, v in enumerate(labels)}
        cols = [index.get(cell_text(c), -1) for c in matrix.columns]
        if -1 in cols:
            raise InputError("prior matrix column is not a sensitive value", column=str(matrix.columns[cols.index(-1)]))
        if len(set(cols)) != len(cols):
            raise InputError("prior matrix has a duplicate column")
        values = np.zeros((len(matrix), s))
        values[:, cols] = matrix.to_numpy(dtype=np.float64)
        _validate_rows(values, s, "prior matrix")
        idx = matrix.index
        if isinstance(idx, pd.MultiIndex):
            if idx.nlevels != len(table.qi):
                raise InputError(f"prior matrix index must have {len(table.qi)} levels (the QIs), has {idx.nlevels}")
            if set(idx.names) == set(table.qi):
                idx = idx.reorder_levels(table.qi)
            keys = [tuple(cell_text(v) for v in k) for k in idx]
        else:
            if len(table.qi) != 1:
                raise InputError(f"prior matrix needs a MultiIndex over the QIs {table.qi}")
            keys = [(cell_text(v),) for v in idx]
        lookup: dict[tuple[str, ...], int] = {}
        for i, k in enumerate(keys):
            if k in lookup:
                raise InputError("prior matrix index holds a QI tuple twice", value=k)
            lookup[k] = i
        leaves = [h.leaves for h in table.hierarchies]
        rows = np.empty(d.size, dtype=np.int64)
        for t in range(d.size):
            key = tuple(cell_text(leaves[j][c]) for j, c in enumerate(d.tuples[t]))
            if key not in lookup:
                raise InputError("prior matrix lacks a QI tuple of the table", value=key)
            rows[t] = lookup[key]
        return _result(table, sensitive, values[rows])
    p = np.asarray(matrix, dtype=np.float64)
    if p.ndim != 2 or p.shape[0] not in (table.n, d.size):
        shapes = f"({table.n}, {s})"
        if table.n != d.size:
            shapes += f" (per record) or ({d.size}, {s}) (per QI tuple)"
        raise InputError(f"prior array must have shape {shapes}, has {p.shape}", key="priors")
    _validate_rows(p, s, "prior array")
    if p.shape[0] == table.n:
        per_tuple = p[first_rows(d.inverse, d.size)]
        differs = np.abs(per_tuple[d.inverse] - p).max(axis=1) > ROW_SUM_TOL
        if differs.any():
            i = int(np.flatnonzero(differs)[0])
            raise InputError("records with the same QI tuple have different priors", row=i + 1)
        p = per_tuple
    return _result(table, sensitive, p.copy())


# ---------------------------------------------------------------------- sequential releases
def transition_matrix(before: ArrayLike, after: ArrayLike, size: int, *, alpha: float = 1.0) -> np.ndarray:
    """Row-stochastic ``M[s → s']`` mined from paired sensitive codes with Laplace smoothing ``alpha``."""
    b = np.asarray(before, dtype=np.int64)
    a = np.asarray(after, dtype=np.int64)
    if b.shape != a.shape:
        raise InputError("before and after codes must pair up one to one")
    counts = np.full((size, size), float(alpha))
    np.add.at(counts, (b, a), 1.0)
    sums = counts.sum(axis=1, keepdims=True)
    return np.where(sums > 0, counts / np.where(sums > 0, sums, 1.0), np.eye(size))


def incremental_priors(
    previous: Priors | ArrayLike,
    table: Table,
    sensitive: str,
    *,
    weight: float = 0.5,
    transitions: ArrayLike | None = None,
    previous_values: ArrayLike | None = None,
    alpha: float = 1.0,
    kernel: Priors | None = None,
    bandwidth: float | Mapping[str, float] = DEFAULT_BANDWIDTH,
) -> Priors:
    """Priors of release ``t`` from the adversary's beliefs after release ``t − 1`` (§3.3, reconstructed).

    The "incremental method" of Riboni, Pareschi & Bettini (TDSC 2012) is not available; this is
    the spec's reconstruction:

    1. ``previous`` is the adversary's *posterior* after release ``t − 1`` for the same individuals,
       aligned with this table's records (row ``i`` = record ``i``): a :class:`Priors` (its
       :meth:`~Priors.per_record`) or an ``(n × S)`` array, e.g. from
       :func:`~anonkit.knowledge.omega_posterior_groups` on release ``t − 1``.
    2. The transition matrix ``M[s → s']``: ``transitions`` if given; else mined from
       ``previous_values`` (each record's sensitive code in release ``t − 1``, table domain order)
       and this table's codes with Laplace smoothing ``alpha`` (:func:`transition_matrix`); else
       the identity (values do not change between releases).
    3. ``carried = normalize(previous · M)``; the prior is
       ``weight · carried + (1 − weight) · kernel`` where ``kernel`` is the §3.2 prior of this table
       (computed with ``bandwidth`` unless given). ``weight`` is the spec's γ (spec default γ = 1;
       here 0.5 so the QI correlation of the current release still counts).

    For release 1 use :func:`kernel_priors`. The returned rows are the distinct prior vectors.
    """
    _check_sensitive(table, sensitive)
    s = table.domains[sensitive].size
    prev = previous.per_record() if isinstance(previous, Priors) else np.asarray(previous, dtype=np.float64)
    if prev.shape != (table.n, s):
        raise InputError(f"previous beliefs must have shape ({table.n}, {s}), have {prev.shape}")
    _validate_rows(prev, s, "previous beliefs")
    if not 0.0 <= weight <= 1.0:
        raise InputError("weight must lie in [0, 1]", value=weight)
    if transitions is not None:
        trans = np.asarray(transitions, dtype=np.float64)
        if trans.shape != (s, s):
            raise InputError(f"transition matrix must be {s}×{s}, is {trans.shape}")
        _validate_rows(trans, s, "transition matrix")
    elif previous_values is not None:
        trans = transition_matrix(previous_values, table.sensitive_codes[sensitive], s, alpha=alpha)
    else:
        trans = np.eye(s)
    carried = prev @ trans
    carried /= carried.sum(axis=1, keepdims=True)
    if weight < 1.0:
        base = kernel if kernel is not None else kernel_priors(table, sensitive, bandwidth=bandwidth)
        mixed = weight * carried + (1.0 - weight) * base.per_record()
    else:
        mixed = carried
    rows, inverse = np.unique(mixed, axis=0, return_inverse=True)
    return Priors(rows, inverse.reshape(-1), table.domains[sensitive].labels, sensitive)


__all__ = [
    "Priors",
    "classifier_priors",
    "incremental_priors",
    "kernel_priors",
    "matrix_priors",
    "transition_matrix",
]
