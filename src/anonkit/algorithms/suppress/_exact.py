"""The fewest suppressed cells reaching wildcard k-anonymity (and distinct l-diversity): an integer
program solved by HiGHS (:func:`scipy.optimize.milp`), for small tables.

Every record ``i`` chooses one set ``S`` of its cells to suppress (``w[i, S] = 1``, one of the
``2^d`` subsets of the ``d`` quasi-identifiers; cost ``|S|``). Records ``i`` and ``j`` are compatible
under choices ``S`` and ``T`` when every column on which they differ is in ``S ∪ T``. Then
``fk ≥ k`` is linear in the choices: ``Σ_{j ≠ i} Σ_{T compatible with S} w[j, T] ≥ (k − 1)·w[i, S]``
for every record and choice. Distinct l-diversity adds ``u[i, S, v] ≤ [s_i = v] + Σ_{j: s_j = v}
Σ_{T compatible} w[j, T]`` and ``Σ_v u[i, S, v] ≥ l·w[i, S]``. This formulation (a choice per record
rather than a compatibility variable per pair of records) has a tight relaxation; its size grows as
``n·2^d`` variables and ``n²·4^d`` coefficients, so it is refused above :data:`EXACT_MAX_RECORDS`
records or :data:`EXACT_MAX_ATTRIBUTES` quasi-identifiers.
"""

from __future__ import annotations

import numpy as np

#: the largest table (records) the exact variant takes
EXACT_MAX_RECORDS = 64
#: the most quasi-identifiers the exact variant takes (a record chooses among 2^d suppression sets)
EXACT_MAX_ATTRIBUTES = 4


def suppress_exact(codes: np.ndarray, sens: np.ndarray, k: int, l_min: int = 0) -> np.ndarray:
    """The boolean ``(n × d)`` mask of a minimum set of cells to suppress (see the module docstring);
    ``codes`` are the records' quasi-identifier codes (``-1``: a missing cell read as a wildcard),
    ``sens`` a sensitive code per record (``-1``: none). The caller checked size and feasibility."""
    n, d = codes.shape
    if n == 0 or d == 0:
        return np.zeros((n, d), dtype=bool)
    n_s = 1 << d
    subsets = np.arange(n_s, dtype=np.int64)
    size = np.array([bin(s).count("1") for s in subsets], dtype=np.float64)
    weights = 1 << np.arange(d, dtype=np.int64)
    a, b = codes[:, None, :], codes[None, :, :]
    differ = ((a != b) & (a >= 0) & (b >= 0)) @ weights  # (n × n) bit set of differing columns
    full = n_s - 1
    union = subsets[:, None] | subsets[None, :]  # (S × T)
    # compat[i, S, j, T]: j under T is compatible with i under S
    compat = (differ[:, None, :, None] & (full & ~union)[None, :, None, :]) == 0
    idx = np.arange(n)
    compat[idx, :, idx, :] = False  # a record does not count itself here
    w_of = lambda i, s: i * n_s + s  # noqa: E731
    n_w = n * n_s
    values = np.unique(sens[sens >= 0]) if l_min else np.array([], dtype=np.int64)
    n_u = n * n_s * len(values)
    blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    lo: list[np.ndarray] = []
    hi: list[np.ndarray] = []
    row = 0
    # choice: Σ_S w[i, S] = 1
    r = np.repeat(np.arange(n), n_s)
    blocks.append((r, np.arange(n_w), np.ones(n_w)))
    lo.append(np.ones(n))
    hi.append(np.ones(n))
    row += n
    # fk: Σ_{j,T} compat·w[j, T] − (k − 1)·w[i, S] ≥ 0, one row per (i, S)
    ii, ss, jj, tt = np.nonzero(compat)
    blocks.append((row + ii * n_s + ss, w_of(jj, tt), np.ones(len(ii))))
    blocks.append((row + np.arange(n_w), np.arange(n_w), np.full(n_w, -(k - 1.0))))
    lo.append(np.zeros(n_w))
    hi.append(np.full(n_w, np.inf))
    row += n_w
    for vi, v in enumerate(values):  # u[i, S, v] − Σ_{j: s_j = v} compat·w[j, T] ≤ [s_i = v]
        u = n_w + (np.arange(n_w)) * len(values) + vi
        blocks.append((row + np.arange(n_w), u, np.ones(n_w)))
        sel = sens[jj] == v
        blocks.append((row + ii[sel] * n_s + ss[sel], w_of(jj[sel], tt[sel]), -np.ones(int(sel.sum()))))
        lo.append(np.full(n_w, -np.inf))
        hi.append(np.repeat((sens == v).astype(np.float64), n_s))
        row += n_w
    if len(values):  # Σ_v u[i, S, v] − l·w[i, S] ≥ 0
        for vi in range(len(values)):
            blocks.append((row + np.arange(n_w), n_w + np.arange(n_w) * len(values) + vi, np.ones(n_w)))
        blocks.append((row + np.arange(n_w), np.arange(n_w), np.full(n_w, -float(l_min))))
        lo.append(np.zeros(n_w))
        hi.append(np.full(n_w, np.inf))
        row += n_w
    rows = np.concatenate([x[0] for x in blocks])
    cols = np.concatenate([x[1] for x in blocks])
    vals = np.concatenate([x[2] for x in blocks])
    from scipy.optimize import Bounds, LinearConstraint, milp  # lazy: scipy.optimize costs 0.2 CPU-s to import
    from scipy.sparse import coo_array

    matrix = coo_array((vals, (rows, cols)), shape=(row, n_w + n_u)).tocsr()
    cost = np.concatenate([np.tile(size, n), np.zeros(n_u)])
    res = milp(cost, constraints=LinearConstraint(matrix, np.concatenate(lo), np.concatenate(hi)),
               integrality=np.concatenate([np.ones(n_w), np.zeros(n_u)]), bounds=Bounds(0, 1))
    if res.x is None:  # infeasible: the caller proved feasibility first, so never here
        raise RuntimeError(f"the exact local suppression found no solution: {res.message}")
    chosen = np.round(res.x[:n_w]).reshape(n, n_s).argmax(axis=1)
    return ((chosen[:, None] >> np.arange(d)) & 1).astype(bool)
