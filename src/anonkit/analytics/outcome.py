"""What an attack simulation reports: one :class:`AttackOutcome` per attack, with 95 % intervals.

Every simulator in :mod:`anonkit.analytics` (homogeneity, similarity, skewness, background
knowledge, unsorted matching, singling-out, linkability, attribute inference) returns an
:class:`AttackOutcome`, so the audit, the report and ``--json`` treat them alike.

Success rates are shares of *targets* (records, or queries for singling-out). Intervals are Wilson
score intervals (Wilson 1927), which stay inside [0, 1] and behave at 0 and n successes. The risk
estimate of an attack with a control set follows anonymeter (Giomi et al., PoPETs 2023):
``risk = (attack − control) / (1 − control)``, the share of the attacker's success the release
explains beyond what records *not* in the release give away; its interval combines the two
Wilson intervals at their worst ends. Without a control set the same formula is applied to the
baseline guesser (the success the release's rows add to a guess that ignores them) — an anonkit
decision: a success rate alone would count as risk what anyone could guess from the published
marginals; without a baseline either the risk is the success rate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

__all__ = ["AttackOutcome", "excess_risk", "wilson"]

#: the confidence of every interval an attack reports
CONFIDENCE = 0.95


def wilson(successes: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Wilson score interval of a binomial share ``successes / n`` (``(0, 1)`` when ``n`` is 0)."""
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in [0, {n}], got {successes}")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return (lo, hi)


def excess_risk(attack: float, control: float) -> float:
    """anonymeter's risk: the attack's success beyond the control's, scaled to [0, 1] (0 when the
    control succeeds as often or more; 1 when the control never fails, by convention 0)."""
    if control >= 1.0:
        return 0.0
    return max(0.0, (attack - control) / (1.0 - control))


@dataclass(frozen=True)
class AttackOutcome:
    """One attack's result.

    Attributes
    ----------
    name:
        The attack (``homogeneity``, ``similarity``, ``skewness``, ``background-knowledge``,
        ``unsorted-matching``, ``singling-out``, ``linkability``, ``inference``).
    successes, targets:
        How many targets the attack on the release succeeded on, out of how many.
    baseline_successes, baseline_targets:
        The same for a guesser who does not use the release's rows (``None``: not applicable).
    control_successes, control_targets:
        The same attack against held-out control records that are not in the release
        (``None``: no control set was given).
    risk, risk_ci:
        The risk estimate the audit's verdict uses: ``excess_risk(success, control)`` when there
        is a control set, else ``excess_risk(success, baseline)`` when there is a baseline, else
        the success rate itself; and its interval.
    details:
        Attack-specific figures (JSON-ready: numbers, strings, lists, dicts).
    note:
        One line: what the attacker knows and what counts as success.
    """

    name: str
    successes: int
    targets: int
    baseline_successes: int | None = None
    baseline_targets: int | None = None
    control_successes: int | None = None
    control_targets: int | None = None
    details: dict[str, Any] = field(default_factory=dict)
    note: str = ""

    # ------------------------------------------------------------------ rates and intervals
    @property
    def success(self) -> float:
        return self.successes / self.targets if self.targets else 0.0

    @property
    def ci(self) -> tuple[float, float]:
        return wilson(self.successes, self.targets)

    @property
    def baseline(self) -> float | None:
        if self.baseline_successes is None or not self.baseline_targets:
            return None
        return self.baseline_successes / self.baseline_targets

    @property
    def baseline_ci(self) -> tuple[float, float] | None:
        if self.baseline_successes is None or self.baseline_targets is None:
            return None
        return wilson(self.baseline_successes, self.baseline_targets)

    @property
    def control(self) -> float | None:
        if self.control_successes is None or not self.control_targets:
            return None
        return self.control_successes / self.control_targets

    @property
    def control_ci(self) -> tuple[float, float] | None:
        if self.control_successes is None or self.control_targets is None:
            return None
        return wilson(self.control_successes, self.control_targets)

    @property
    def reference(self) -> str | None:
        """What the risk is measured against: ``"control"``, ``"baseline"`` or ``None`` (the success rate)."""
        if self.control is not None:
            return "control"
        return "baseline" if self.baseline is not None else None

    @property
    def risk(self) -> float:
        ref = self.reference
        if ref is None:
            return self.success
        return excess_risk(self.success, self.control if ref == "control" else self.baseline)  # type: ignore[arg-type]

    @property
    def risk_ci(self) -> tuple[float, float]:
        ref = self.reference
        if ref is None:
            return self.ci
        (a_lo, a_hi) = self.ci
        (c_lo, c_hi) = self.control_ci if ref == "control" else self.baseline_ci  # type: ignore[misc]
        return (excess_risk(a_lo, c_hi), excess_risk(a_hi, c_lo))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every rate with its interval (``None`` where not applicable)."""

        def pair(v: tuple[float, float] | None) -> list[float] | None:
            return None if v is None else [float(v[0]), float(v[1])]

        return {
            "name": self.name,
            "success": float(self.success),
            "ci": pair(self.ci),
            "successes": int(self.successes),
            "targets": int(self.targets),
            "baseline": None if self.baseline is None else float(self.baseline),
            "baseline_ci": pair(self.baseline_ci),
            "control": None if self.control is None else float(self.control),
            "control_ci": pair(self.control_ci),
            "risk": float(self.risk),
            "risk_against": self.reference,
            "risk_ci": pair(self.risk_ci),
            "details": self.details,
            "note": self.note,
        }
