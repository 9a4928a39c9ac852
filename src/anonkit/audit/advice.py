"""What to change when a run's audit fails: the parameter, its new value and what it gives, computed
by rerunning the config with it (never guessed).

``anonkit anonymize`` audits every release (the quick checks: the models, the risk models, every
attack that needs no extra input) and prints one verdict. When a check fails, :func:`advise` finds
the smallest change of one *lever* of the config's models that makes every check hold:

* **k** (the k-anonymity model's ``k``; one is added when the config has none) for the risk models
  and the singling-out and linkability attacks. For the highest risk alone the answer is computed
  directly, ``1/k ≤ threshold ⇒ k ≥ 1/threshold`` (:func:`anonkit.risk.thresholds.k_for_risk`);
  otherwise the candidates are ``k + 1, k + 2, k + 4, …``;
* **l** of the l-diversity model of the attacked sensitive attribute (distinct l-diversity is added
  when it has none) for the homogeneity attack: ``l + 1, l + 2, …``;
* **t** of the t-closeness model of the attacked attribute (added when it has none, with the
  distance its type calls for: :data:`T_STEPS`; else its ``t`` tightened) for the inference,
  similarity and skewness attacks, which read the distribution of its values in a class;
* **the individual-risk model's threshold** (sdcMicro's individual risk, issue 28; added when the config has
  none) for the survey verdict ``individual risk (sdcMicro)``: the audit's threshold, then a tenth and a
  hundredth of it (the criterion bounds each class's risk, the audit each record's on the published cells,
  where a suppressed cell is a wildcard). Tried only when that model is registered.

The candidates of a lever (at most :data:`MAX_RERUNS`) run from the mildest change to the strongest
and are bisected: about log2 of them are rerun, on the assumption that a stronger change passes what a
milder one passes, and the advice returned is always one that was rerun and passed. Each rerun is
real: the same input, schema, algorithm and options, with the changed model, then the same audit
(its thresholds follow the changed models, as they would in the changed config). When none passes,
or the models can no longer be met, the advice says so and names the audit threshold that would
accept the release as it is (``audit.thresholds.…``: the measured value).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pandas as pd

from anonkit.audit.verdicts import SURVEY_CHECK
from anonkit.config import Config
from anonkit.models.registry import ORDER as registered_order
from anonkit.risk.thresholds import k_for_risk
from anonkit.schema import Schema

__all__ = ["ADVICE_MAX_RECORDS", "MAX_RERUNS", "Rerun", "advise"]

#: reruns one advice may cost (each is a whole anonymization and audit)
MAX_RERUNS = 6
#: above this many input records the advice reruns nothing (each rerun would cost a whole run): it gives
#: what follows without one (the k that bounds the highest risk, 1/k ≤ threshold) or says how to get it
ADVICE_MAX_RECORDS = 100_000
#: the checks the k lever answers (by the start of their name); the others are about a sensitive value
_K_CHECKS = ("prosecutor", "journalist", "marketer", "population uniqueness", "singling-out", "linkability")
_L_CHECKS = ("homogeneity", "similarity", "skewness", "inference")
_L_MODELS = ("distinct-l-diversity", "l-diversity", "entropy-l-diversity", "recursive-l-diversity",
             "frequency-l-diversity")

#: a rerun of a changed config: its audit, or the reason it gives no release (the runner makes one:
#: :func:`anonkit.runner.audit_step.rerun_for`)
Rerun = Callable[[Config], dict[str, Any] | str]


def _failing(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [v for v in report.get("verdicts", []) if not v["holds"]]


def _attacked(check: str, sensitive: list[str]) -> str | None:
    """The sensitive attribute an attack verdict is about (``inference (s) attack risk``)."""
    for s in sensitive:
        if f"({s})" in check:
            return s
    return sensitive[0] if sensitive else None


def registered_models() -> tuple[str, ...]:
    """The privacy models the config knows (the individual-risk lever needs its model registered)."""
    return registered_order


def _entry(config: Config, *models: str, attribute: str | None = None) -> int | None:
    for i, p in enumerate(config.privacy):
        d = p.model_dump()
        whole = d.get("model") != "k-anonymity" or d.get("attributes") is None
        if d.get("model") in models and (attribute is None or d.get("attribute") == attribute) and whole:
            return i
    return None


def _with(config: Config, index: int | None, field: str, value: object, new: dict[str, Any]) -> tuple[Config, str]:
    """The config with ``privacy[index].field = value`` (or ``new`` appended) and the key it changes."""
    raw = config.model_dump(by_alias=True, exclude_unset=True)
    privacy = [p.model_dump(by_alias=True, exclude_unset=True) for p in config.privacy]
    if index is None:
        privacy.append(new)
        key = f"privacy.{len(privacy) - 1}"
    else:
        privacy[index][field] = value
        key = f"privacy.{index}.{field}"
    algo = raw.get("algorithm") or {}
    if isinstance(algo, dict) and field in algo and algo.get(field) is not None:  # kl-diversity's k, anatomy's l
        algo[field] = value
        raw["algorithm"] = algo
    raw["privacy"] = privacy
    return Config.model_validate(raw), key


def _levers(config: Config, failing: list[dict[str, Any]], schema: Schema, frame: pd.DataFrame) -> list[dict]:
    """The candidate changes, in the order tried: ``{"key", "value", "config", "what"}``."""
    names = [v["check"] for v in failing]
    if any(n.startswith(_K_CHECKS) for n in names):
        return _k_lever(config, failing)
    if SURVEY_CHECK in names and "individual-risk" in registered_models():
        return _risk_lever(config, next(v for v in failing if v["check"] == SURVEY_CHECK))
    attacked = next((_attacked(n, list(schema.sensitive)) for n in names if n.startswith(_L_CHECKS)), None)
    if attacked is None or attacked not in frame.columns:
        return []
    out = []
    if any(n.startswith("homogeneity") for n in names):
        out += _l_lever(config, attacked, frame)[:MAX_RERUNS // 2]
    out += _t_lever(config, attacked, schema)
    return out[:MAX_RERUNS]


def _k_lever(config: Config, failing: list[dict[str, Any]]) -> list[dict]:
    i = _entry(config, "k-anonymity")
    k = int(config.privacy[i].model_dump()["k"]) if i is not None else 1
    highest = [v for v in failing if "highest risk" in v["check"]]
    first = k_for_risk(min(v["threshold"] for v in highest)) if highest else k + 1
    steps = [max(first, k + 1)]
    while len(steps) < MAX_RERUNS:
        steps.append(k + 2 * (steps[-1] - k))
    out = []
    for value in steps:
        cfg, key = _with(config, i, "k", value, {"model": "k-anonymity", "k": value})
        out.append({"key": key, "value": value, "config": cfg, "what": f"k-anonymity k: {k} → {value}"})
    return out


def _risk_lever(config: Config, failed: dict[str, Any]) -> list[dict]:
    """The individual-risk model at the audit's threshold, then stricter (a tenth, a hundredth)."""
    i = _entry(config, "individual-risk")
    current = float(config.privacy[i].model_dump()["threshold"]) if i is not None else None
    top = float(failed["threshold"]) if current is None else min(float(failed["threshold"]), current / 2)
    out = []
    for value in (top, top / 10, top / 100):
        value = float(f"{value:.6g}")
        new = {"model": "individual-risk", "threshold": value}
        cfg, key = _with(config, i, "threshold", value, new)
        what = (f"individual-risk threshold: {current:g} → {value:g}" if current is not None else
                f"add individual-risk, threshold {value:g}")
        out.append({"key": key, "value": value if i is not None else new, "config": cfg, "what": what})
    return out


def _l_lever(config: Config, attacked: str, frame: pd.DataFrame) -> list[dict]:
    """Distinct l-diversity of the attacked attribute, one value more at a time (homogeneity)."""
    i = _entry(config, *_L_MODELS, attribute=attacked)
    current = float(config.privacy[i].model_dump()["l"]) if i is not None else 1.0
    top = int(frame[attacked].nunique(dropna=False))
    out = []
    for value in range(math.floor(current) + 1, top + 1):
        cfg, key = _with(config, i, "l", value, {"model": "l-diversity", "attribute": attacked, "l": value,
                                                  "variant": "distinct"})
        out.append({"key": key, "value": value, "config": cfg,
                    "what": f"l-diversity of {attacked} l: {current:g} → {value}"})
    return out


#: the t of t-closeness tried, closest first, when the attacked attribute has no t-closeness model
T_STEPS = (0.5, 0.4, 0.3, 0.2, 0.15, 0.1)


def _t_lever(config: Config, attacked: str, schema: Schema) -> list[dict]:
    """t-closeness of the attacked attribute (inference, similarity, skewness: the distribution of its
    values in a class is what the attacker reads), added with the distance its type calls for, or
    its ``t`` tightened."""
    i = _entry(config, "t-closeness", attribute=attacked)
    current = float(config.privacy[i].model_dump()["t"]) if i is not None else None
    steps = [t for t in T_STEPS if current is None or t < current]
    if current is not None and not steps:
        steps = [round(current * 0.75**n, 6) for n in range(1, MAX_RERUNS + 1)]
    attr = schema.attributes.get(attacked)
    kind = attr.type.value if attr is not None and attr.type is not None else "categorical"
    distance = ("ordered" if kind in ("numeric", "date", "ordinal") else
                "hierarchical" if attr is not None and attr.hierarchy is not None else "equal")
    out = []
    for value in steps:
        new = {"model": "t-closeness", "attribute": attacked, "t": value, "distance": distance}
        cfg, key = _with(config, i, "t", value, new)
        what = (f"t-closeness of {attacked} t: {current:g} → {value:g}" if current is not None else
                f"add t-closeness of {attacked}, t {value:g} ({distance} distance)")
        out.append({"key": key, "value": value if i is not None else new, "config": cfg, "what": what})
    return out


def advise(config: Config, report: dict[str, Any], schema: Schema, frame: pd.DataFrame,
           rerun: Rerun, *, judged_only: str | None = None) -> dict[str, Any] | None:
    """The advice for a failed audit ``report`` (``None`` when every check holds): ``{"change",
    "key", "value", "holds", "gives", "tried"}``. ``rerun(config)`` anonymizes and audits a changed
    config and returns its audit dict, or the reason its models cannot be met. ``judged_only``: for an
    algorithm that enforces no model (a perturbative method, a synthesizer), why no model change helps and
    what to change instead (:attr:`~anonkit.algorithms.spec.Algorithm.no_model_lever`): the models are
    judged on its release, never enforced, so no model change is rerun."""
    failing = _failing(report)
    if not failing:
        return None
    if judged_only is not None:
        return _judged_only(judged_only, failing)
    if len(frame) > ADVICE_MAX_RECORDS:
        return _without_reruns(config, failing, len(frame))
    tried: list[str] = []
    candidates = _levers(config, failing, schema, frame)
    # the candidates go from the mildest change to the strongest: bisect for the mildest that passes
    # (about log2 of them rerun); whatever is returned as passing was rerun and passed
    lo, hi, best = 0, len(candidates) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        cand = candidates[mid]
        got = rerun(cand["config"])
        if isinstance(got, str):  # the models can no longer be met: a milder change
            tried.append(f"{cand['what']}: {got}")
            hi = mid - 1
            continue
        still = _failing(got)
        ran = {v["check"] for v in got.get("verdicts", [])}
        still += [{"check": v["check"], "value": None, "threshold": None} for v in report["verdicts"]
                  if v["kind"] != "model" and v["check"] not in ran]  # a risk or attack the rerun skipped
        if still:
            tried.append(f"{cand['what']}: {_summary(still)}")
            lo = mid + 1
        else:
            best, hi = (cand, got), mid - 1
    if best is not None:
        cand, got = best
        return {"change": cand["what"], "key": cand["key"], "value": cand["value"], "holds": True,
                "gives": _gives(got), "tried": tried}
    worst = failing[0]
    return {"change": None, "key": f"audit.thresholds.{_threshold_key(worst)}", "value": worst["value"],
            "holds": False, "gives": f"no model change tried passes ({len(tried)} reruns); the release passes only "
            f"if the audit accepts {worst['check']} = {worst['value']:.4g}", "tried": tried}


def _without_reruns(config: Config, failing: list[dict[str, Any]], n: int) -> dict[str, Any]:
    """The advice for a table above :data:`ADVICE_MAX_RECORDS`: when only the highest risk fails, the k
    that bounds it by construction (every class of a k-anonymous release has ≥ k records, so its risk
    is ≤ 1/k); otherwise what to do to have the change computed."""
    worst = failing[0]
    if all("highest risk" in v["check"] for v in failing):
        i = _entry(config, "k-anonymity")
        k = int(config.privacy[i].model_dump()["k"]) if i is not None else 1
        value = max(k_for_risk(min(v["threshold"] for v in failing)), k + 1)
        _cfg, key = _with(config, i, "k", value, {"model": "k-anonymity", "k": value})
        return {"change": f"k-anonymity k: {k} → {value}", "key": key, "value": value, "holds": True,
                "gives": f"highest risk ≤ 1/{value} by construction (not rerun: {n:,} records)", "tried": []}
    return {"change": None, "key": f"audit.thresholds.{_threshold_key(worst)}", "value": worst["value"],
            "holds": False, "gives": f"no change was rerun: {n:,} records is more than {ADVICE_MAX_RECORDS:,} "
            "(each candidate is a whole run); anonymize a sample of the input to have the change computed, or "
            f"the release passes only if the audit accepts {worst['check']} = {worst['value']:.4g}", "tried": []}


def _judged_only(lever: str, failing: list[dict[str, Any]]) -> dict[str, Any]:
    """The advice for an algorithm that enforces no model (a perturbative method, a synthesizer), rerunning
    nothing: a stronger model changes nothing there (``lever`` says why and what to change). A failing model
    is no threshold an audit could accept (no ``key``); when only risks and attacks fail, the threshold that
    would accept the release as it is."""
    why = f"no model change was rerun: {lever}"
    models = [v["check"] for v in failing if v["kind"] == "model"]
    if models:
        return {"change": None, "key": None, "value": None, "holds": False, "tried": [],
                "gives": f"{why}, or use an algorithm that enforces {', '.join(models)}"}
    worst = failing[0]
    return {"change": None, "key": f"audit.thresholds.{_threshold_key(worst)}", "value": worst["value"],
            "holds": False, "gives": f"{why}, or the release passes only if the audit accepts {worst['check']} = "
            f"{worst['value']:.4g}", "tried": []}


def _threshold_key(verdict: dict[str, Any]) -> str:
    check = verdict["check"]
    if verdict["kind"] == "attack":
        return "attack_risk"
    if check == SURVEY_CHECK:
        return "individual_risk"
    if "highest" in check:
        return "highest_risk"
    if "uniqueness" in check:
        return "population_uniqueness"
    return "average_risk"


def _summary(failing: list[dict[str, Any]]) -> str:
    return "; ".join(f"{v['check']} {100 * v['value']:.3g} % > {100 * v['threshold']:.3g} %"
                     if v.get("threshold") is not None and v.get("value") is not None
                     else f"{v['check']} fails" for v in failing)


def _gives(report: dict[str, Any]) -> str:
    checks = report.get("verdicts", [])
    risk = (report.get("risk") or {}).get("prosecutor") or {}
    worst = max((v for v in checks if v["kind"] == "attack"), key=lambda v: v["value"], default=None)
    parts = [f"every check holds ({len(checks)})"]
    if risk:
        parts.append(f"highest risk {100 * risk.get('highest', 0):.3g} %")
    if worst is not None:
        name = worst["check"].removesuffix(" attack risk")
        parts.append(f"highest attack risk {100 * worst['value']:.3g} % ({name})")
    released = report.get("risk", {}).get("records")
    if released is not None:
        parts.append(f"{released:,} released")
    return ", ".join(parts)
