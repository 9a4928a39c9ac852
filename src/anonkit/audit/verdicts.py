"""The audit's verdicts: each privacy model, risk model and attack against its threshold.

A verdict is ``{"check", "value", "threshold", "holds", "kind"}`` (``kind``: ``model``, ``risk`` or
``attack``). Risks and attack risks hold when they are at most their threshold; an attack's verdict
uses its point estimate and reports the upper end of its 95 % interval beside it (``upper``), so a
reader sees when a small sample leaves the verdict uncertain (``uncertain``: the point estimate
holds but the upper bound does not).

The thresholds are the config's; those it does not give follow from the run's models when they state
one (:func:`effective_thresholds`: ``1/k`` of the k-anonymity or no-attack profitability model for
the highest and average risk, an ``average-risk`` model's threshold, a ``population-uniqueness`` model's,
an ``individual-risk`` model's for sdcMicro's individual risk), so ``anonkit
anonymize`` and ``anonkit audit`` judge a release against the same figures, and the verdict says
where each came from (:func:`thresholds_from`). A ``sample-uniqueness`` model has no matching audit
threshold (the audit reports sample uniqueness without judging it): it is judged as a model.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from anonkit.config import AuditThresholds
from anonkit.models import AverageRisk, Criterion, PopulationUniquenessRisk
from anonkit.risk.thresholds import class_size_floors

__all__ = ["MODEL_THRESHOLDS", "SURVEY_CHECK", "effective_thresholds", "run_verdict", "threshold_basis",
           "thresholds_from", "verdicts"]


#: the audit's thresholds a run's model can state, and the model class that states each (its ``threshold``)
MODEL_THRESHOLDS = {"average_risk": AverageRisk, "population_uniqueness": PopulationUniquenessRisk}
#: the name of the survey verdict: sdcMicro's highest individual risk on the published cells
SURVEY_CHECK = "individual risk (sdcMicro)"
#: the same by the model's name (the individual-risk criterion's threshold bounds sdcMicro's individual risk)
MODEL_THRESHOLD_NAMES = {"individual_risk": "individual-risk"}


def _implied(name: str, models: list[Criterion]) -> tuple[float, str] | None:
    """The threshold ``name`` the models state and where it comes from, ``None`` when none does: the
    strictest of ``1/k`` of the k-anonymity model (highest and average risk) and the threshold of a
    model judging that risk (average risk, population uniqueness) — a release meeting its models
    meets both, so the audit never fails it on a figure it was never asked to meet, nor judges it
    against a looser one than a model states."""
    found: list[tuple[float, str]] = []
    floors = class_size_floors(models)
    if floors and name in ("highest_risk", "average_risk"):
        k, said = max(floors, key=lambda f: f[0])
        found.append((1.0 / k, f"1/k of {said}"))
    kind, named = MODEL_THRESHOLDS.get(name), MODEL_THRESHOLD_NAMES.get(name)
    for m in models:
        if (kind is not None and isinstance(m, kind)) or (named is not None and m.name == named):
            found.append((float(m.threshold), f"the model {m.describe()}"))  # type: ignore[attr-defined]
    return min(found, key=lambda f: f[0]) if found else None


def effective_thresholds(thresholds: AuditThresholds | None, models: Iterable[Criterion]) -> AuditThresholds:
    """The thresholds an audit judges against: those the config sets, and for each it does not set
    that a run's models state (:func:`_implied`), the models' — ``1/k`` of the k-anonymity model for
    the highest and average risk (:func:`anonkit.risk.thresholds.highest_risk_for`: every class of at
    least ``k`` keeps both risks at most ``1/k``), an ``average-risk`` model's threshold for the
    average risk, a ``population-uniqueness`` model's for population uniqueness (the strictest when
    several apply); set ``audit.thresholds.average_risk: 0.05`` for the public-release bar. Every
    field of the result counts as set (so auditing again with it changes nothing)."""
    models = list(models)
    given = thresholds if thresholds is not None else AuditThresholds()
    values = given.model_dump()
    for name in ("highest_risk", "average_risk", "population_uniqueness", "individual_risk"):
        implied = _implied(name, models)
        if name not in given.model_fields_set and implied is not None:
            values[name] = implied[0]
    return AuditThresholds(**values)


def thresholds_from(thresholds: AuditThresholds | None, models: Iterable[Criterion]) -> dict[str, str]:
    """Where each threshold of :func:`effective_thresholds` comes from, in words (for the printed
    verdict and the report): ``audit.thresholds.NAME``, the model that states it, or anonkit's default."""
    models = list(models)
    given = thresholds if thresholds is not None else AuditThresholds()
    out = {}
    for name in AuditThresholds.model_fields:
        implied = _implied(name, models)
        if name in given.model_fields_set:
            out[name] = f"audit.thresholds.{name}"
        elif implied is not None:
            out[name] = implied[1]
        else:
            out[name] = "anonkit's default" + (" (no k-anonymity model)" if name == "highest_risk" else "")
    return out


def threshold_basis(thresholds: AuditThresholds | None, models: Iterable[Criterion]) -> str:
    """Where the highest-risk threshold comes from, in words (for the printed verdict)."""
    return thresholds_from(thresholds, models)["highest_risk"]


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
    otherwise they equal the prosecutor's and would be judged twice. sdcMicro's individual risk
    (``risk["survey"]``, present when the schema has a weight or household column) is judged by its
    highest record against ``individual_risk``.
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
    survey = risk.get("survey") or {}
    if survey:  # sdcMicro's individual risk (weights, households): every record at most the threshold
        out.append(_check(SURVEY_CHECK, (survey.get("individual_risk") or {}).get("max"),
                          t.individual_risk, "risk"))
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
        "thresholds_from": report.get("thresholds_from"),
        "advice": advice,
    }
