"""AIM (McKenna, Mullins, Sheldon & Miklau, "AIM: An Adaptive and Iterative Mechanism for
Differentially Private Synthetic Data", VLDB 2022), written from the paper.

The workload is every two-way marginal of the synthesized columns (every one-way marginal when there
is one column); the candidates are the workload's marginals and their subsets, each weighted by how
much of the workload it covers (``w(c) = Σ_W |c ∩ W|``). With ``T`` rounds (default ``16·d``):

1. **initialize**: every one-way marginal measured with σ = √(T / (2·0.9·ρ));
2. **rounds**, while budget is left: a round spends ``ε₀²/8`` (selection, ε₀ = √(8·0.1·ρ/T) at the
   start) and ``1/(2σ²)`` (one measurement); the candidates are those whose model stays within
   ``max_model_size · ρ_used/ρ`` megabytes; the exponential mechanism (sensitivity ``max w``) picks
   the worst approximated, scored ``w(c)·(‖x_c − x̂_c‖₁ − √(2/π)·σ·|c|)`` (the expected L1 norm of
   the noise subtracted: a marginal is not chosen for noise alone); it is measured and the model
   refitted, warm-started. **Annealing**: when the refit moved the chosen marginal by less than the
   noise's expected L1 norm, σ is halved and ε₀ doubled (finer, costlier rounds). When the budget left
   would not pay for two more rounds, the last round spends exactly what is left (0.9 measurement,
   0.1 selection);
3. the final model is fitted to every measurement (:mod:`._model`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from anonkit.algorithms.synth._accounting import exponential_rho, gaussian_rho
from anonkit.algorithms.synth._draws import Draws
from anonkit.algorithms.synth._model import (
    Measurement,
    fit,
    marginal,
    model_marginal,
    model_size_mb,
    noisy_total,
)

#: the largest model AIM may grow, in megabytes (the paper's default)
DEFAULT_MAX_MODEL_SIZE = 80.0
#: rounds per synthesized column unless ``rounds`` is given (the paper's ``T = 16·d``)
ROUNDS_PER_COLUMN = 16
#: the mirror-descent iterations of each round's refit (the final fit runs ``iterations``)
ROUND_ITERATIONS = 100
#: the share of a round's budget spent on its measurement (the rest on its selection)
MEASURE_SHARE = 0.9


def candidates(d: int) -> dict[tuple[int, ...], float]:
    """The workload's marginals and their subsets, with their weights ``w(c) = Σ_W |c ∩ W|``."""
    workload = list(itertools.combinations(range(d), 2)) if d > 1 else [(0,)]
    closure = {sub for w in workload for r in range(1, len(w) + 1) for sub in itertools.combinations(w, r)}
    return {c: float(sum(len(set(c) & set(w)) for w in workload)) for c in sorted(closure)}


def aim(codes: np.ndarray, sizes: list[int], rho: float, draws: Draws, *, rounds: int | None,
        max_model_size: float, iterations: int) -> tuple[list[Measurement], dict[str, object]]:
    """AIM's measurements and what the notes say of them (the rounds, the marginals chosen, ρ spent)."""
    d = len(sizes)
    t = rounds or ROUNDS_PER_COLUMN * d
    sigma = math.sqrt(t / (2.0 * MEASURE_SHARE * rho))
    epsilon = math.sqrt(8.0 * (1.0 - MEASURE_SHARE) * rho / t)
    measurements = [Measurement((j,), draws.gaussian(marginal(codes, sizes, (j,)), sigma), sigma) for j in range(d)]
    used = gaussian_rho(sigma, d)
    weights = candidates(d)
    model = fit(sizes, measurements, iterations=min(iterations, ROUND_ITERATIONS), total=noisy_total(measurements))
    chosen: list[tuple[int, ...]] = []
    last = False
    while not last and rho - used > 1e-12 * rho:
        if rho - used < 2.0 * (gaussian_rho(sigma) + exponential_rho(epsilon)):
            left = rho - used
            sigma = math.sqrt(1.0 / (2.0 * MEASURE_SHARE * left))
            epsilon = math.sqrt(8.0 * (1.0 - MEASURE_SHARE) * left)
            last = True
        used += gaussian_rho(sigma) + exponential_rho(epsilon)
        limit = max_model_size * used / rho
        cliques = [m.clique for m in measurements]
        small = [c for c in weights if c in cliques or model_size_mb(sizes, [*cliques, c]) <= limit]
        scores = []
        for c in small:
            cells = int(np.prod([sizes[j] for j in c]))
            error = float(np.abs(marginal(codes, sizes, c) - model_marginal(model, c)).sum())
            scores.append(weights[c] * (error - math.sqrt(2.0 / math.pi) * sigma * cells))
        pick = small[draws.choice(np.array(scores), epsilon, max(weights[c] for c in small))]
        cells = int(np.prod([sizes[j] for j in pick]))
        measurements.append(Measurement(pick, draws.gaussian(marginal(codes, sizes, pick), sigma), sigma))
        chosen.append(pick)
        before = model_marginal(model, pick)
        model = fit(sizes, measurements, iterations=min(iterations, ROUND_ITERATIONS),
                    total=noisy_total(measurements), warm=model)
        if float(np.abs(model_marginal(model, pick) - before).sum()) <= math.sqrt(2.0 / math.pi) * sigma * cells:
            sigma /= 2.0
            epsilon *= 2.0
    return measurements, {"rounds": len(chosen), "chosen": chosen, "rho spent": used,
                          "rho one-way": gaussian_rho(measurements[0].sigma, d), "rounds planned": t}
