"""SafePub's random draws: the record sample and the exponential mechanism's choice.

Unseeded (a private run), both come from OpenDP's samplers (the ``dp`` extra): the sample from
``make_randomized_response_bitvec`` on a vector of equal bits (each output bit is the input bit
flipped with probability ``f/2``, independently: a Bernoulli(β) draw per record), the choice from
``make_noisy_max`` with Gumbel noise (zero-concentrated output measure), whose argmax picks index
``i`` with probability ∝ ``exp(score_i / scale)``: the exponential mechanism with ``scale = 2/ε``,
ARX's ``exp(ε · score / 2)`` (the scores are already divided by their sensitivity).

Seeded (reproducible tests only, never private: a seed makes every draw known to whoever knows
it), both come from a NumPy ``Generator``: ``random(n) < β`` and the Gumbel-max trick with the same
scale, the same distributions.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

from anonkit.errors import InputError

#: the words a run without OpenDP is refused with
INSTALL_DP = "pip install anonkit[dp]"


def require_opendp() -> None:
    """Refuse, in one line, a SafePub run without OpenDP installed (before any work)."""
    if importlib.util.find_spec("opendp") is None:
        raise InputError(f"differential privacy draws its randomness from OpenDP, which is not installed: "
                         f"{INSTALL_DP}", key="algorithm.name")


def _opendp() -> Any:
    require_opendp()
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


def sample_records(n: int, beta: float, rng: np.random.Generator | None) -> np.ndarray:
    """Which of ``n`` records are sampled: each independently with probability ``beta``."""
    if rng is not None:
        return rng.random(n) < beta
    if n == 0:
        return np.zeros(0, dtype=bool)
    dp = _opendp()
    ones = beta > 0.5  # f ∈ (0, 1]: flip zeros with f = 2β, or ones with f = 2(1 − β)
    flip = 2.0 * (1.0 - beta) if ones else 2.0 * beta
    measure = dp.m.make_randomized_response_bitvec(dp.bitvector_domain(max_weight=n), dp.discrete_distance(),
                                                   f=min(1.0, flip))
    given = np.packbits(np.full(n, ones, dtype=bool))
    bits = np.unpackbits(np.frombuffer(measure(given.tobytes()), dtype=np.uint8))[:n].astype(bool)
    return bits


def exponential_choice(scores: np.ndarray, epsilon: float, rng: np.random.Generator | None) -> int:
    """The index the exponential mechanism picks: probability ∝ ``exp(epsilon · score / 2)``."""
    scores = np.asarray(scores, dtype=np.float64)
    scale = 2.0 / epsilon
    if rng is not None:
        return int(np.argmax(scores + rng.gumbel(0.0, scale, size=scores.size)))
    dp = _opendp()
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float)
    measure = dp.m.make_noisy_max(*space, dp.zero_concentrated_divergence(), scale=scale)
    return int(measure([float(s) for s in scores - scores.max()]))
