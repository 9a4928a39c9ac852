"""Population-uniqueness estimators: how many records of the population are unique in the
quasi-identifiers, estimated from the sample's class-size frequencies and the sampling fraction.

Each function takes ARX's class-size histogram of the sample (``sizes`` ascending with ``counts``
classes each, ``size_histogram``) and the population size ``N``, and returns the estimated number of
population uniques, or NaN when the model has no estimate (its solver did not converge, or the
estimate falls outside ``[0, N]``). They assume at least one sample unique; with none, every
estimate is 0 (:func:`anonkit.risk.population_uniqueness` handles that case, as ARX does).

* :func:`pitman` — Pitman's sampling formula fitted by maximum likelihood (Hoshino 2001,
  "Applying Pitman's sampling formula to microdata disclosure risk assessment", J. Official
  Statistics 17(4)); ARX ``ModelPitman``.
* :func:`zayatz` — Zayatz 1991 ("Estimation of the percent of unique population elements on a
  microdata file using the sample", Census SRD report RR-91/08); ARX ``ModelZayatz``.
* :func:`snb` — the shifted negative binomial model of Chen & Keller-McNulty 1998 ("Estimation of
  identification disclosure risk in microdata", J. Official Statistics 14(1)), with the number of
  non-empty population classes estimated by Shlosser's estimator as ARX computes it (Haas et al.
  1995); ARX ``ModelSNB``.

The solvers use ARX's Newton–Raphson settings (:class:`~anonkit.risk.SolverConfig`).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable

import numpy as np

from anonkit.risk._newton import DEFAULT_SOLVER, SolverConfig, solve
from anonkit.risk._polygamma import arx_digamma, arx_trigamma, trigamma

__all__ = ["pitman", "shlosser_classes", "snb", "zayatz"]


def _count(sizes: np.ndarray, counts: np.ndarray, size: int) -> float:
    return float(counts[sizes == size].sum())


# --------------------------------------------------------------------------------------------- Pitman
def pitman(sizes: np.ndarray, counts: np.ndarray, population: float,
           solver: SolverConfig = DEFAULT_SOLVER) -> float:
    """Pitman's estimate of the population uniques (Hoshino 2001; ARX ``ModelPitman``).

    The sample of ``n`` records in ``u`` classes is modelled by Pitman's sampling formula with
    parameters θ ≥ 0 and α; their maximum-likelihood estimates solve

    * Σ_{i=1}^{u-1} 1/(θ+iα) = Σ_{i=1}^{n-1} 1/(θ+i)
    * Σ_{i=1}^{u-1} i/(θ+iα) = Σ_classes Σ_{j=1}^{size-1} 1/(j-α)

    and the population uniques are ``Γ(θ+1)/Γ(θ+α) · N^α`` (none when outside ``[0, N]``).

    As ARX: Newton–Raphson starts from Hoshino's moment estimates (the number of size-2 classes
    taken as 1 when there are none) and ends a try when θ < 0. The first pass writes the sums with
    digamma and trigamma and evaluates them with ARX's approximations (:mod:`anonkit.risk._polygamma`),
    whose trigamma lacks its tail below 12: the Jacobian is off, and on samples whose fit wants
    α < 0 (fewer sample uniques than α ≥ 0 allows) the iterations often run away to a "root" with θ
    in the millions and |α| in the thousands, where both equations are flat; its estimate then lies
    outside ``[0, N]`` (no estimate, and Dankar's rule falls back to Zayatz) or is absurdly small.
    The root is checked against the equations summed term by term; when the first pass finds none,
    or its root fails the check, a second pass solves with the exact Jacobian (ARX sums the terms;
    exact polygamma functions give the same values in O(distinct sizes) a step).
    ``SolverConfig(arx_gamma=False)`` runs only the second pass.

    On such runaway paths the reflection formula ψ(x) = ψ(1-x) - π cot(πx) at large negative
    arguments amplifies last-bit differences between Java's ``StrictMath`` and the C library, so
    there the path — and whether ARX's first pass ends on a runaway root — can differ from ARX's.
    Elsewhere the estimate agrees with ARX to the solver's accuracy.
    """
    u = float(counts.sum())
    n = float((sizes * counts).sum())
    c1 = _count(sizes, counts, 1)
    c2 = _count(sizes, counts, 2) or 1.0  # ARX: "overestimate" when there are no pairs
    with np.errstate(all="ignore"):
        c = c1 * (c1 - 1.0) / c2
        theta0 = (n * u * c - c1 * (n - 1.0) * (2.0 * u + c)) / (2.0 * c1 * u + c1 * c - n * c)
        alpha0 = (theta0 * (c1 - n) + (n - 1.0) * c1) / (n * u)
    multi = sizes != 1
    ks = sizes[multi].astype(np.float64)
    ms = counts[multi].astype(np.float64)

    def arx_equations(t: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, ...]:
        # ARX's closed forms, with its polygamma approximations at its arguments (one call each)
        lanes = t.size
        ka = (ks[None, :] - a[:, None]).ravel()
        psi = arx_digamma(np.concatenate([(u - 1.0) + t / a + 1.0, t / a + 1.0, n + t, t + 1.0, 1.0 - a, ka]))
        tri = arx_trigamma(np.concatenate([(a + t + a * (u - 1.0)) / a, t / a + 1.0, t + 1.0, n + t, 1.0 - a,
                                                 ka]))
        p1, p0, pn, pt, pa = psi[:5 * lanes].reshape(5, lanes)
        q1, q0, qt, qn, qa = tri[:5 * lanes].reshape(5, lanes)
        pk = psi[5 * lanes:].reshape(lanes, -1)
        qk = tri[5 * lanes:].reshape(lanes, -1)
        aa = a * a
        s2 = (q0 - q1) / aa
        si2 = ((a * p1 + t * q1) - a * p0 - t * q0) / (aa * a)
        sii2 = ((((aa * (u - 1.0)) - t * t * q1) + t * t * q0) - 2.0 * a * t * p1 + 2.0 * a * t * p0) / (aa * aa)
        s1 = (p1 - p0) / a
        si = (-t * p1 + a * (u - 1.0) + t * p0) / aa
        g1 = (ms * (pk - pa[:, None])).sum(axis=1)
        g2 = (ms * (qa[:, None] - qk)).sum(axis=1)
        return s1 - (pn - pt), si - g1, (qt - qn) - s2, -si2, -si2, -sii2 - g2

    def exact_equations(t: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, ...]:
        from scipy.special import digamma  # on demand: a run without population models never loads scipy

        r = t / a
        s1 = (digamma(r + u) - digamma(r + 1.0)) / a  # Σ 1/(θ+iα)
        s2 = (trigamma(r + 1.0) - trigamma(r + u)) / (a * a)  # Σ 1/(θ+iα)²
        si = ((u - 1.0) - t * s1) / a  # Σ i/(θ+iα)
        si2 = (s1 - t * s2) / a  # Σ i/(θ+iα)²
        sii2 = ((u - 1.0) - 2.0 * t * s1 + t * t * s2) / (a * a)  # Σ i²/(θ+iα)²
        h1 = digamma(n + t) - digamma(t + 1.0)  # Σ_{i<n} 1/(θ+i)
        h2 = trigamma(t + 1.0) - trigamma(n + t)  # Σ_{i<n} 1/(θ+i)²
        ka = ks[None, :] - a[:, None]
        g1 = (ms * (digamma(ka) - digamma(1.0 - a)[:, None])).sum(axis=1)  # Σ m Σ_j 1/(j-α)
        g2 = (ms * (trigamma(1.0 - a)[:, None] - trigamma(ka))).sum(axis=1)  # Σ m Σ_j 1/(j-α)²
        return s1 - h1, si - g1, h2 - s2, -si2, -si2, -sii2 - g2

    def positive_theta(t: np.ndarray, a: np.ndarray) -> np.ndarray:
        return t >= 0

    root = solve(arx_equations, (theta0, alpha0), solver, constraint=positive_theta) if solver.arx_gamma else None
    if root is None or not _pitman_holds(root.x, root.y, u, n, ks, ms, solver.accuracy):
        root = solve(exact_equations, (theta0, alpha0), solver, constraint=positive_theta)
    if root is None:
        return math.nan
    return _pitman_uniques(root.x, root.y, float(population))


def _pitman_holds(t: float, a: float, u: float, n: float, ks: np.ndarray, ms: np.ndarray, accuracy: float) -> bool:
    """Whether (θ, α) solves Pitman's equations to ``accuracy`` with every sum taken term by term
    (ARX's check of its closed-form root)."""
    with np.errstate(all="ignore"):
        e1 = _term_sum(lambda i: 1.0 / (t + i * a), u) - _term_sum(lambda i: 1.0 / (t + i), n)
        top = int(ks.max()) if ks.size else 1
        inner = np.concatenate([[0.0], np.cumsum(1.0 / (np.arange(1.0, top) - a))])  # Σ_{j<k} 1/(j-α) at k-1
        e2 = _term_sum(lambda i: i / (t + i * a), u) - float((ms * inner[ks.astype(np.int64) - 1]).sum())
    return abs(e1) <= accuracy and abs(e2) <= accuracy


def _term_sum(term: Callable[[np.ndarray], np.ndarray], stop: float, chunk: int = 1 << 20) -> float:
    """Σ_{i=1}^{stop-1} term(i), a million terms at a time."""
    total = 0.0
    for lo in range(1, int(stop), chunk):
        total += float(term(np.arange(lo, min(lo + chunk, int(stop)), dtype=np.float64)).sum())
    return total


def _pitman_uniques(theta: float, alpha: float, population: float) -> float:
    """ARX's ``ModelPitman.getResult``: Γ(θ+1)/Γ(θ+α)·N^α through log-gamma and through gamma, each
    kept when it lies in ``[0, N]`` (log-gamma undefined at arguments ≤ 0), the larger of the two."""
    from scipy.special import gammaln

    if math.isnan(theta) or math.isnan(alpha) or alpha == 0:
        return math.nan
    found = []
    if theta + 1.0 > 0 and theta + alpha > 0:
        with contextlib.suppress(OverflowError):
            found.append(math.exp(float(gammaln(theta + 1.0) - gammaln(theta + alpha))) * population ** alpha)
    with contextlib.suppress(OverflowError, ValueError, ZeroDivisionError):
        found.append(math.gamma(theta + 1.0) / math.gamma(theta + alpha) * population ** alpha)
    valid = [v for v in found if 0.0 <= v <= population]
    return max(valid) if valid else math.nan


# --------------------------------------------------------------------------------------------- Zayatz
def zayatz(sizes: np.ndarray, counts: np.ndarray, population: float) -> float:
    """Zayatz's estimate of the population uniques (Zayatz 1991; ARX ``ModelZayatz``).

    A sample class of size ``s`` is taken to come from a population class of the same size
    distribution; drawing ``n`` of ``N`` records without replacement, a class of size ``s`` shows
    exactly one record with the hypergeometric probability ``P_s = s·C(N-s, n-1)/C(N, n)``. The
    share of sample uniques that are population uniques is ``c1·P_1 / Σ_s m_s·P_s`` and the
    estimate is ``c1`` times that share divided by the sampling fraction ``n/N``.

    Computed through ``P_s/P_1 = s·Π_{j=1}^{s-1} (N-n+1-j)/(N-j)`` in log space, which stays exact
    for populations of any size (ARX's ``HypergeometricDistribution`` takes ``int`` arguments and
    clips populations above 2³¹-1).
    """
    n = float((sizes * counts).sum())
    c1 = _count(sizes, counts, 1)
    top = int(sizes.max())
    j = np.arange(1, top, dtype=np.float64)
    left = population - n + 1.0 - j
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(left > 0, np.log1p(-(n - 1.0) / (population - j)), -np.inf)
    log_ratio = np.concatenate([[0.0], np.cumsum(step)])  # log Π_{j<s}, at index s-1
    ratio = sizes * np.exp(log_ratio[sizes - 1])  # P_s / P_1
    share = c1 / float((counts * ratio).sum())
    return c1 * share / (n / population)


# ------------------------------------------------------------------------------------------------ SNB
def shlosser_classes(sizes: np.ndarray, counts: np.ndarray, fraction: float) -> float:
    """The number of non-empty population classes as ARX's ``ModelSNB`` estimates it (Shlosser's
    estimator in the form of Haas et al. 1995):
    ``u + c1 · (Σ s·q²(1-q²)^{s-1} m_s / B) · (Σ (1-q)^s m_s / Σ s·q(1-q)^{s-1} m_s)²`` with ``q`` the
    sampling fraction.

    ARX's ``B`` is ``Σ_s [(1-q)^s (1+q)^s m_s - 1]`` (one 1 subtracted per distinct size); Haas et
    al.'s is ``Σ_s (1-q)^s ((1+q)^s - 1) m_s``. ARX's form is kept, so the SNB estimate and
    Dankar's choice agree with ARX.
    """
    s = sizes.astype(np.float64)
    m = counts.astype(np.float64)
    q = fraction
    c1 = _count(sizes, counts, 1)
    u = float(m.sum())
    with np.errstate(all="ignore"):
        w = (1.0 - q) ** s * m
        a = float((s * q * q * (1.0 - q * q) ** (s - 1.0) * m).sum())
        b = float((w * (1.0 + q) ** s - 1.0).sum())
        c = float(w.sum())
        d = float((s * q * (1.0 - q) ** (s - 1.0) * m).sum())
        return u + c1 * (a / b) * (c / d) * (c / d) if b != 0 and d != 0 else math.nan


def snb(sizes: np.ndarray, counts: np.ndarray, population: float, solver: SolverConfig = DEFAULT_SOLVER) -> float:
    """The shifted negative binomial estimate of the population uniques (Chen & Keller-McNulty 1998;
    ARX ``ModelSNB``).

    Population class sizes are 1 + a negative binomial with parameters α, β over ``K`` non-empty
    classes (:func:`shlosser_classes`); with sampling fraction ``f`` and ``d = (1-f)(1-β)``, α and
    β solve ``E[c1] = c1`` and ``E[c2] = c2`` for the numbers ``c1``, ``c2`` of sample classes of
    size 1 and 2:

    * ``K f (β/(1-d))^α (1 + α d/(1-d)) = c1``
    * ``K α β^α f² (1-β)/2 · (2 - (1-α) d) · (1-d)^(α+2) = c2`` (ARX's form; see below)

    and the estimate is ``K β^α``. Newton–Raphson starts at (1, 1) without constraints.

    ARX's second equation multiplies by ``(1-d)^(α+2)`` while its Jacobian is that of the model's
    ``E[c2]``, which divides by it (Chen & Keller-McNulty); the solver thus steps along the model's
    gradient but stops where ARX's equation holds. Both are kept as ARX has them, so that the
    estimate, and with it Dankar's choice between SNB and Zayatz, agrees with ARX.
    """
    n = float((sizes * counts).sum())
    f = n / float(population)
    k = shlosser_classes(sizes, counts, f)
    c1 = _count(sizes, counts, 1)
    c2 = _count(sizes, counts, 2)
    g = 1.0 - f

    def equations(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
        d = g * (1.0 - b)
        q = 1.0 - d
        r = b / q
        ra = r ** a
        h = 1.0 + a * d / q
        e1 = k * f * ra * h - c1
        shape = 2.0 - (1.0 - a) * d
        ba = b ** a
        e2 = k * a * ba * f * f * (1.0 - b) / 2.0 * q ** (a + 2.0) * shape - c2
        # Jacobian of the model's E[c1] and E[c2] (the latter divided by (1-d)^(α+2))
        d1a = k * f * ra * (np.log(r) * h + d / q)
        d1b = k * f * ra * (a * (1.0 / b - g / q) * h - a * g / (q * q))
        t = q ** (-(a + 2.0))
        d2a = ba * (1.0 - b) * t * (shape * (1.0 + a * np.log(b) - a * np.log(q)) + a * d)
        d2b = a * t * (a * b ** (a - 1.0) * (1.0 - b) * shape - ba * shape + ba * (1.0 - b) * (1.0 - a) * g
                       - ba * (1.0 - b) * shape * (a + 2.0) * g / q)
        half = k * f * f / 2.0
        return e1, e2, d1a, d1b, half * d2a, half * d2b

    root = solve(equations, (1.0, 1.0), solver)
    if root is None:
        return math.nan
    with np.errstate(all="ignore"):
        return float(k * np.float64(root.y) ** root.x)
