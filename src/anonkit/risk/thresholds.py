"""The audit's default thresholds (``audit: {thresholds: …}`` in a config; ``anonkit audit``).

These are anonkit's defaults, each a share in [0, 1]; a data holder sets its own:

* ``highest_risk``: no record's re-identification risk above ``1/k`` of the config's k-anonymity
  model (:func:`highest_risk_for`: the models promise every class at least ``k`` records, or
  persons, so ``1/k`` is the risk they stand for — k = 4 gives 25 %); without a k-anonymity model
  0.2, 1 in 5 (5-anonymity). ``anonkit anonymize`` counts the "records at risk" above the same
  threshold the audit judges, so the two never disagree;
* ``average_risk``: ``1/k`` of the k-anonymity model like the highest (a release meeting its model
  meets it; :func:`anonkit.audit.verdicts.effective_thresholds`), without one 0.05 — an order of
  magnitude below the highest, as thresholds for public releases in the health de-identification
  literature (El Emam) tend to be; set 0.05 in ``audit.thresholds`` to hold a k-anonymous release
  to that bar;
* ``population_uniqueness`` 0.01: at most 1 % of the population unique in the released
  quasi-identifiers;
* ``attack_risk`` 0.1: an attack's risk estimate — its success beyond the control set's, else beyond
  a baseline guesser's, else its success rate — at most 10 %.
"""

from __future__ import annotations

from collections.abc import Iterable

from anonkit.models import Criterion, KAnonymity, NoAttackProfitability

DEFAULT_HIGHEST_RISK = 0.2
DEFAULT_AVERAGE_RISK = 0.05
DEFAULT_POPULATION_UNIQUENESS = 0.01
DEFAULT_ATTACK_RISK = 0.1

__all__ = ["DEFAULT_ATTACK_RISK", "DEFAULT_AVERAGE_RISK", "DEFAULT_HIGHEST_RISK", "DEFAULT_POPULATION_UNIQUENESS",
           "class_size_floors", "default_highest_risk", "highest_risk_for", "k_for_risk"]


def class_size_floors(models: Iterable[Criterion]) -> list[tuple[int, str]]:
    """``(k, the model in words)`` for every model whose guarantee is that each published class holds
    at least ``k`` records (or persons): k-anonymity over all quasi-identifiers (a model on a subset
    of them bounds coarser classes, not the published ones) and no-attack profitability (prosecutor),
    whose ``k`` is the class size at which an attack stops paying."""
    out = []
    for m in models:
        if isinstance(m, KAnonymity) and m.attributes is None:
            out.append((int(m.k), f"{int(m.k)}-anonymity"))
        elif isinstance(m, NoAttackProfitability):
            out.append((int(m.k), f"no-attack profitability (k = {int(m.k)})"))
    return out


def highest_risk_for(models: Iterable[Criterion]) -> float | None:
    """``1/k`` for the largest ``k`` of :func:`class_size_floors`; ``None`` without one."""
    ks = [k for k, _ in class_size_floors(models)]
    return 1.0 / max(ks) if ks else None


def default_highest_risk(models: Iterable[Criterion]) -> float:
    """The highest-risk threshold when the config gives none: :func:`highest_risk_for`, else
    :data:`DEFAULT_HIGHEST_RISK`."""
    implied = highest_risk_for(models)
    return DEFAULT_HIGHEST_RISK if implied is None else implied


def k_for_risk(threshold: float) -> int:
    """The smallest ``k`` whose highest risk ``1/k`` is at most ``threshold`` (``k ≥ 1/threshold``)."""
    k = max(1, int(1.0 / threshold))
    while 1.0 / k > threshold:  # 1/threshold not whole (or rounded down by floating point)
        k += 1
    while k > 1 and 1.0 / (k - 1) <= threshold:
        k -= 1
    return max(k, 1)
