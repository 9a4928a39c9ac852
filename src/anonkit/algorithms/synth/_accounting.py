"""The privacy budget of a DP synthesizer: zero-concentrated DP (ρ-zCDP, Bun & Steinke 2016) and its
conversion to (ε, δ)-differential privacy.

Every step of MST and AIM is a ρ-zCDP mechanism and zCDP composes by adding ρ. The run's budget is
given as (ε, δ); it is turned into ρ by the standard conversion (Bun & Steinke 2016, Prop. 1.3):
ρ-zCDP implies (ρ + 2·√(ρ·ln(1/δ)), δ)-DP for every δ > 0, so the largest ρ whose ε does not exceed
the given one is ``ρ = (√(ln(1/δ) + ε) − √(ln(1/δ)))²``. (Canonne, Kamath & Steinke 2020 give a
tighter conversion; this one is conservative: the promise holds, a little budget is left unused.)

What each mechanism spends (neighbouring tables differ by one record added or removed, so a marginal
of counts has L2 sensitivity 1 and an L1 score has sensitivity 1):

* a Gaussian measurement of ``m`` marginals, each with noise σ: ``ρ = m / (2σ²)``;
* one exponential-mechanism choice at ε₀ (probability ∝ exp(ε₀·score / (2Δ))): ``ρ = ε₀² / 8``
  (Cesar & Rogers 2021).
"""

from __future__ import annotations

import math

__all__ = ["epsilon_from_rho", "exponential_rho", "gaussian_rho", "gaussian_sigma", "rho_from_epsilon_delta"]


def rho_from_epsilon_delta(epsilon: float, delta: float) -> float:
    """The ρ of ρ-zCDP that implies (``epsilon``, ``delta``)-DP by Bun & Steinke's conversion."""
    log_inv = math.log(1.0 / delta)
    return (math.sqrt(log_inv + epsilon) - math.sqrt(log_inv)) ** 2


def epsilon_from_rho(rho: float, delta: float) -> float:
    """The ε that ρ-zCDP implies at ``delta`` (the conversion's forward direction)."""
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def gaussian_sigma(rho: float, marginals: int) -> float:
    """The noise σ that measures ``marginals`` marginals (L2 sensitivity 1 each) within ``rho``."""
    return math.sqrt(marginals / (2.0 * rho))


def gaussian_rho(sigma: float, marginals: int = 1) -> float:
    """What measuring ``marginals`` marginals with noise ``sigma`` spends."""
    return marginals / (2.0 * sigma * sigma)


def exponential_rho(epsilon: float) -> float:
    """What one exponential-mechanism choice at ``epsilon`` spends in zCDP (ε²/8)."""
    return epsilon * epsilon / 8.0
