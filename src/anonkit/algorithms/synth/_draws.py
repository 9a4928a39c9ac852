"""Every noisy draw of a DP synthesizer: Gaussian measurements of marginals and the exponential
mechanism's choices.

Unseeded (a private run) they come from OpenDP's samplers (the ``dp`` extra): a marginal's counts
are measured by ``make_gaussian`` on integer vectors (the discrete Gaussian with scale σ, ρ =
1/(2σ²) for L2 sensitivity 1), and a choice by ``make_noisy_max`` with Gumbel noise under the
zero-concentrated output measure, whose argmax picks index ``i`` with probability ∝
``exp(score_i / scale)``: the exponential mechanism with ``scale = 2Δ/ε``.

Seeded (reproducible tests only, never private: whoever knows the seed knows every draw) they come
from a NumPy ``Generator`` seeded by the run's seed: Gaussian noise rounded to whole numbers and the
Gumbel-max trick at the same scale.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

from anonkit.errors import InputError

#: the words a run without OpenDP is refused with
INSTALL_DP = "pip install anonkit[dp]"


def require_opendp() -> None:
    """Refuse, in one line and before any work, a private run without OpenDP."""
    if importlib.util.find_spec("opendp") is None:
        raise InputError(f"dp-synthetic draws its noise from OpenDP, which is not installed: {INSTALL_DP}",
                         key="algorithm.name")


def _opendp() -> Any:
    require_opendp()
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


class Draws:
    """The run's source of noise: OpenDP (``rng`` None) or a seeded NumPy generator (tests only)."""

    def __init__(self, rng: np.random.Generator | None) -> None:
        self.rng = rng

    @property
    def seeded(self) -> bool:
        return self.rng is not None

    def gaussian(self, counts: np.ndarray, sigma: float) -> np.ndarray:
        """``counts`` (whole numbers) plus discrete Gaussian noise of scale ``sigma``, as floats."""
        counts = np.asarray(counts, dtype=np.int64)
        if self.rng is not None:
            return counts + np.rint(self.rng.normal(0.0, sigma, size=counts.size))
        dp = _opendp()
        measure = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=int)), dp.l2_distance(T=int), scale=sigma)
        return np.asarray(measure([int(c) for c in counts]), dtype=np.float64)

    def choice(self, scores: np.ndarray, epsilon: float, sensitivity: float = 1.0) -> int:
        """The index the exponential mechanism picks: probability ∝ ``exp(epsilon·score / (2·sensitivity))``."""
        scores = np.asarray(scores, dtype=np.float64)
        scale = 2.0 * sensitivity / epsilon
        if self.rng is not None:
            return int(np.argmax(scores + self.rng.gumbel(0.0, scale, size=scores.size)))
        dp = _opendp()
        space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float)
        measure = dp.m.make_noisy_max(*space, dp.zero_concentrated_divergence(), scale=scale)
        return int(measure([float(s) for s in scores - scores.max()]))

    def sampler_seed(self) -> int:
        """A seed for sampling rows from the fitted model (post-processing, no privacy cost): the run's
        generator when seeded, fresh operating-system entropy otherwise."""
        if self.rng is not None:
            return int(self.rng.integers(0, 2**32 - 1))
        return int(np.random.SeedSequence().generate_state(1)[0])
