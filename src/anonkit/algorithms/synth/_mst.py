"""MST (McKenna, Miklau & Sheldon, "Winning the NIST Contest", JPC 2021), written from the paper.

The budget ρ is split in three equal parts:

1. **one-way**: every column's marginal measured with Gaussian noise (ρ/3 over ``d`` marginals);
2. **selection**: a maximum spanning tree of the two-way marginals, built edge by edge (Kruskal's
   order): each of the ``r − 1`` choices (``r``: the components, ``d`` at the start) takes, by the
   exponential mechanism at ``ε₀ = √(8·(ρ/3)/(r − 1))``, one pair of columns not yet connected, scored
   by how badly the independence model fitted to step 1 explains the pair: the L1 distance between
   the pair's true counts and ``n̂·p_a ⊗ p_b`` (``p``: the one-way measurements clipped at 0 and
   normalized; ``n̂``: their estimated total). One record changes the score by at most 1, its
   sensitivity;
3. **two-way**: every tree edge's marginal measured with Gaussian noise (ρ/3 over ``d − 1`` marginals).

Departures from the paper's code: no domain compression of rare values (the domain is declared, and
merging values by their noisy counts would change it); the independence model of step 2 is the
clipped one-way measurements rather than a mirror-descent fit to them. One column: the whole ρ goes
to its one-way marginal. The graphical model is then fitted to steps 1 and 3 (:mod:`._model`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from anonkit.algorithms.synth._accounting import exponential_rho, gaussian_rho, gaussian_sigma
from anonkit.algorithms.synth._draws import Draws
from anonkit.algorithms.synth._model import Measurement, marginal, noisy_total


def one_way(codes: np.ndarray, sizes: list[int], rho: float, draws: Draws) -> list[Measurement]:
    """Every column's marginal measured within ``rho`` (σ equal for all)."""
    sigma = gaussian_sigma(rho, len(sizes))
    return [Measurement((j,), draws.gaussian(marginal(codes, sizes, (j,)), sigma), sigma) for j in range(len(sizes))]


def independence_errors(codes: np.ndarray, sizes: list[int], ones: list[Measurement]) -> dict[tuple[int, int], float]:
    """Every pair's L1 distance between its true counts and the independence model's (the scores)."""
    total = max(1.0, noisy_total(ones))
    probs = []
    for m in ones:
        p = np.clip(m.noisy, 0.0, None)
        probs.append(p / p.sum() if p.sum() > 0 else np.full(p.size, 1.0 / p.size))
    out = {}
    for a, b in itertools.combinations(range(len(sizes)), 2):
        expected = total * np.outer(probs[a], probs[b]).ravel()
        out[(a, b)] = float(np.abs(marginal(codes, sizes, (a, b)) - expected).sum())
    return out


class _Components:
    """Union–find over the columns: which are connected by the tree so far."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        self.parent[self.find(a)] = self.find(b)


def select_tree(errors: dict[tuple[int, int], float], n: int, rho: float, draws: Draws) -> list[tuple[int, int]]:
    """The spanning tree's ``n − 1`` edges, each chosen by the exponential mechanism among the pairs not
    yet connected (step 2); ``rho`` is spent evenly over the choices."""
    if n < 2:
        return []
    epsilon = math.sqrt(8.0 * rho / (n - 1))
    parts = _Components(n)
    edges: list[tuple[int, int]] = []
    candidates = sorted(errors)  # a fixed order: the draw alone decides
    for _ in range(n - 1):
        candidates = [e for e in candidates if parts.find(e[0]) != parts.find(e[1])]
        chosen = candidates[draws.choice(np.array([errors[e] for e in candidates]), epsilon, 1.0)]
        edges.append(chosen)
        parts.union(*chosen)
    return edges


def mst(codes: np.ndarray, sizes: list[int], rho: float, draws: Draws) -> tuple[list[Measurement], dict[str, object]]:
    """MST's measurements (steps 1–3) and what the notes say of them (the tree, the budget spent)."""
    d = len(sizes)
    if d == 1:
        ones = one_way(codes, sizes, rho, draws)
        return ones, {"tree": [], "rho one-way": rho, "rho selection": 0.0, "rho two-way": 0.0,
                      "rho spent": gaussian_rho(ones[0].sigma, 1)}
    third = rho / 3.0
    ones = one_way(codes, sizes, third, draws)
    edges = select_tree(independence_errors(codes, sizes, ones), d, third, draws)
    sigma = gaussian_sigma(third, len(edges))
    twos = [Measurement(e, draws.gaussian(marginal(codes, sizes, e), sigma), sigma) for e in edges]
    spent = (gaussian_rho(ones[0].sigma, d) + (d - 1) * exponential_rho(math.sqrt(8.0 * third / (d - 1)))
             + gaussian_rho(sigma, len(edges)))
    return [*ones, *twos], {"tree": edges, "rho one-way": third, "rho selection": third, "rho two-way": third,
                            "rho spent": spent, "sigma one-way": ones[0].sigma, "sigma two-way": sigma}
