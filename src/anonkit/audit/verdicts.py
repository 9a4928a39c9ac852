"""The audit's verdicts: each privacy model, risk model and attack against its threshold.

A verdict is ``{"check", "value", "threshold", "holds", "kind"}`` (``kind``: ``model``, ``risk`` or
``attack``). Risks and attack risks hold when they are at most their threshold; an attack's verdict
uses its point estimate and reports the upper end of its 95 % interval beside it (``upper``), so a
reader sees when a small sample leaves the verdict uncertain (``uncertain``: the point estimate
holds but the upper bound does not).

The thresholds are the config's; the highest- and average-risk ones, when the config gives none,
follow from the models (:func:`effective_thresholds`: ``1/k`` of the k-anonymity model), so ``anonkit anonymize``
and ``anonkit audit`` judge a release against the same figures.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from anonkit.config import AuditThresholds
from anonkit.models import Criterion
from anonkit.risk.thresholds import highest_risk_for

__all__ = ["effective_thresholds", "run_verdict", "threshold_basis", "verdicts"]


def effective_thresholds(thresholds: AuditThresholds | None, models: Iterable[Criterion]) -> AuditThresholds:
    """The thresholds an audit judges against: those the config sets, and for ``highest_risk`` and
    ``average_risk`` when it sets none, ``1/k`` of the k-anonymity model
    (:func:`anonkit.risk.thresholds.highest_risk_for`: every class of at least ``k`` keeps both
    risks at most ``1/k``, so a release that meets its model is not failed by a default it was never
    asked to meet; set ``audit.thresholds.average_risk: 0.05`` for the public-release bar). Every
    field of the result counts as set (so auditing again with it changes nothing)."""
    given = thresholds if thresholds is not None else AuditThresholds()
    values = given.model_dump()
    implied = highest_risk_for(models)
    for name in ("highest_risk", "average_risk"):
        if name not in given.model_fields_set and implied is not None:
            values[name] = implied
    return AuditThresholds(**values)


def threshold_basis(thresholds: AuditThresholds | None, models: Iterable[Criterion]) -> str:
    """Where the highest-risk threshold comes from, in words (for the printed verdict)."""
    given = thresholds if thresholds is not None else AuditThresholds()
    if "highest_risk" in given.model_fields_set:
        return "audit.thresholds.highest_risk"
    implied = highest_risk_for(models)
    if implied is None:
        return "anonkit's default (no k-anonymity model)"
    return f"1/k of {round(1 / implied)}-anonymity"


def _check(check: str, value: float | None, threshold: float, kind: str, **extra: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    return {"check": check, "kind": kind, "value": float(value), "threshold": float(threshold),
            "holds": bool(value <= threshold), **extra}


def verdicts(*, models: list[dict[str, Any]], risk: dict[str, Any], attacks: list[dict[str, Any]],
             thresholds: AuditThresholds, population_given: bool) -> list[dict[str, Any]]:
    """Every verdict of an audit, models first, then risk models, then attacks.

    ``models`` are the verifier's results (``{"model", "holds", "achieved"}``), ``risk`` the audit's
    risk section and ``attacks`` the attacks' :meth:`~anonkit.analytics.outcome.AttackOutcome.to_dict`.
    Journalist and marketer risk are judged only when a population (size or table) was given:
    otherwise they equal the prosecutor's and would be judged twice.
    """
    out: list[dict[str, Any]] = []
    for m in models:
        out.append({"check": m["model"], "kind": "model", "value": m.get("achieved"), "threshold": None,
                    "holds": bool(m["holds"])})
    t = thresholds
    people = ("prosecutor", "journalist") if population_given else ("prosecutor",)
    for who in people:
        part = risk.get(who) or {}
        out.append(_check(f"{who} highest risk", part.get("highest"), t.highest_risk, "risk"))
        out.append(_check(f"{who} average risk", part.get("average"), t.average_risk, "risk"))
    if population_given:
        out.append(_check("marketer average risk", (risk.get("marketer") or {}).get("average"), t.average_risk,
                          "risk"))
    pu = risk.get("population_uniqueness") or {}
    chosen = pu.get("model")
    if chosen is not None:
        out.append(_check(f"population uniqueness ({chosen})", pu.get(chosen), t.population_uniqueness, "risk"))
    for a in attacks:
        upper = (a.get("risk_ci") or [None, None])[1]
        v = _check(f"{a['name']} attack risk", a.get("risk"), t.attack_risk, "attack", upper=upper)
        if v is not None:
            v["uncertain"] = bool(v["holds"] and upper is not None and upper > t.attack_risk)
        out.append(v)
    return [v for v in out if v is not None]


def run_verdict(report: dict[str, Any], advice: dict[str, Any] | None = None) -> dict[str, Any]:
    """A run's one verdict from its audit ``report``: ``ok``, how many checks, the failing ones, the
    thresholds and where the highest-risk one came from, and the ``advice`` (what to change) when
    a check fails."""
    failed = [v for v in report["verdicts"] if not v["holds"]]
    return {
        "ok": report["ok"],
        "checks": len(report["verdicts"]),
        #: what was judged, in the verdicts' order: "model", "risk", "attack"
        "kinds": list(dict.fromkeys(v["kind"] for v in report["verdicts"])),
        "failing": [{k: v.get(k) for k in ("check", "value", "threshold")} for v in failed],
        "thresholds": report["thresholds"],
        "highest_risk_from": report.get("highest_risk_from"),
        "advice": advice,
    }
