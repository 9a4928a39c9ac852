"""The candidate changes worth trying, derived from what failed: one *ladder* per lever, its rungs
from the mildest change that could pass to the strongest.

* A **risk** check failed (highest or average re-identification risk, population uniqueness, the
  singling-out, linkability and matching attacks: what class sizes decide) → **k**: the k-anonymity
  model's ``k`` raised (one added when the config has none). The first rung is computed when the
  highest risk failed (``1/k ≤ threshold``, :func:`anonkit.risk.thresholds.k_for_risk`), else
  ``k + 1``; then ``k + 2, k + 4, …`` above the current ``k``. Beside it, at a lower priority, the
  same ``k`` with **more suppression allowed** (two keys: the search then may keep more detail by
  dropping a few more records).
* An **attack on a sensitive attribute** failed (homogeneity, similarity, skewness, inference,
  background knowledge) → **l**: the attribute's l-diversity raised (distinct l-diversity added when
  it has none), ``l + 1, l + 2, l + 4, …`` up to its number of distinct values; and **t**: its
  t-closeness tightened (added when it has none, with the distance its type calls for),
  :data:`T_STEPS` below the current ``t``.
* The **models cannot be met** → **suppression**: ``algorithm.max_suppression`` raised through
  :data:`SUPPRESSION_STEPS`; and **another algorithm**: the first registered one of
  :data:`OTHER_FAMILY` that judges every class model (Mondrian: local recoding, which meets what a
  full-domain search cannot) for a lattice or search algorithm.

A change never weakens a privacy model: no lever lowers ``k``, ``l`` or raises ``t``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from anonkit.algorithms import registry
from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION
from anonkit.algorithms.spec import CLASS_MODELS
from anonkit.risk.thresholds import k_for_risk

__all__ = ["LADDER_RUNGS", "SUPPRESSION_STEPS", "T_STEPS", "Candidate", "Facts", "Ladder", "ladders_for"]

#: rungs a ladder holds at most (each tried rung is a whole run; they are bisected)
LADDER_RUNGS = 6
#: the t of t-closeness tried, closest to none first, when the attribute has no t-closeness model (or
#: those below its ``t``)
T_STEPS = (0.5, 0.4, 0.3, 0.2, 0.15, 0.1)
#: the shares of suppressed records tried (those above the current ``max_suppression``)
SUPPRESSION_STEPS = (0.01, 0.02, 0.05, 0.1, 0.2)
#: the family whose algorithm is tried when a full-domain search (or best-first search) cannot meet the
#: models: local recoding (Mondrian's partitions), which keeps detail where the data allow
OTHER_FAMILY = "partition"

#: the checks the k lever answers (by the start of their name); the others are about a sensitive value
_K_CHECKS = ("prosecutor", "journalist", "marketer", "population uniqueness", "singling-out", "linkability",
             "unsorted-matching")
_SENSITIVE_CHECKS = ("homogeneity", "similarity", "skewness", "inference", "background-knowledge")


@dataclass(frozen=True)
class Candidate:
    """One change to try: dotted keys → values, its words (``k = 10``), its lever and its step up
    the ladder (0: the mildest)."""

    change: dict[str, Any]
    label: str
    lever: str
    step: int


@dataclass
class Ladder:
    """A lever's candidates, mildest first. ``unmet_is_too_strong``: a rung whose models cannot be met
    asks for a milder one (k, l, t); otherwise for a stronger one (suppression). Ladders of a
    higher ``priority`` number are tried once those before them are done."""

    lever: str
    rungs: list[Candidate]
    unmet_is_too_strong: bool = True
    priority: int = 0


@dataclass
class Facts:
    """What the ladders read about the data: the records, each sensitive attribute's number of
    distinct values and the t-closeness distance its type calls for."""

    records: int
    distinct: dict[str, int] = field(default_factory=dict)
    distance: dict[str, str] = field(default_factory=dict)
    #: the share of records the failed run would have had to suppress (its summary's ``would_suppress``)
    needed_suppression: float | None = None


def _entry(privacy: list[dict[str, Any]], pick: Any) -> int | None:
    return next((i for i, p in enumerate(privacy) if isinstance(p, dict) and pick(p)), None)


def _is_k(p: dict[str, Any]) -> bool:
    return p.get("model") == "k-anonymity" and not p.get("attributes")


def _algorithm(raw: Mapping[str, Any]) -> dict[str, Any]:
    algo = raw.get("algorithm")
    return dict(algo) if isinstance(algo, dict) else {}


def _param(raw: Mapping[str, Any], index: int | None, field_name: str, value: Any, new: dict[str, Any]
           ) -> dict[str, Any]:
    """The change setting ``privacy.index.field`` (or appending ``new``); an algorithm option of the
    same name (kl-diversity's ``k``, Anatomy's ``l``) follows it."""
    privacy = raw.get("privacy") or []
    change: dict[str, Any] = ({f"privacy.{len(privacy)}": new} if index is None else
                              {f"privacy.{index}.{field_name}": value})
    if _algorithm(raw).get(field_name) is not None:
        change[f"algorithm.{field_name}"] = value
    return change


def _doubling(first: int, current: int, top: int) -> list[int]:
    """``first``, then ``current + 2·(previous − current)`` …, at most ``top`` and :data:`LADDER_RUNGS`."""
    out = [first] if first <= top else []
    while out and len(out) < LADDER_RUNGS:
        nxt = current + 2 * (out[-1] - current)
        if nxt > top:
            break
        out.append(nxt)
    return out


def _k_values(raw: Mapping[str, Any], failing: list[dict[str, Any]], facts: Facts) -> tuple[int | None, list[int]]:
    privacy = list(raw.get("privacy") or [])
    i = _entry(privacy, _is_k)
    k = int(privacy[i]["k"]) if i is not None else 1
    highest = [v["threshold"] for v in failing if "highest risk" in v["check"] and v.get("threshold")]
    first = max(k_for_risk(min(highest)), k + 1) if highest else k + 1
    return i, _doubling(first, k, max(facts.records, 1))


def _k_ladders(raw: Mapping[str, Any], failing: list[dict[str, Any]], facts: Facts) -> list[Ladder]:
    i, values = _k_values(raw, failing, facts)
    rungs = []
    for step, v in enumerate(values):
        change = _param(raw, i, "k", v, {"model": "k-anonymity", "k": v})
        rungs.append(Candidate(change, f"k = {v}" if i is not None else f"add {v}-anonymity", "k", step))
    ladders = [Ladder("k", rungs)]
    more = _more_suppression(raw)
    if more is not None and rungs:
        both = [Candidate({**c.change, "algorithm.max_suppression": more},
                          f"{c.label}, max suppression {100 * more:g} %", "k+suppression", c.step) for c in rungs]
        ladders.append(Ladder("k+suppression", both, priority=1))
    return ladders


def _suppression(raw: Mapping[str, Any]) -> float | None:
    """The current ``max_suppression``, ``None`` when the algorithm has no such option."""
    spec = registry.get(_algorithm(raw).get("name"))
    if "max_suppression" not in spec.options.model_fields:
        return None
    return float(_algorithm(raw).get("max_suppression", DEFAULT_MAX_SUPPRESSION))


def _more_suppression(raw: Mapping[str, Any]) -> float | None:
    now = _suppression(raw)
    return None if now is None else next((s for s in SUPPRESSION_STEPS if s > now), None)


def _attacked(check: str, sensitive: list[str]) -> str | None:
    """The sensitive attribute an attack verdict is about (``inference (s) attack risk``; the only
    one when the name says none)."""
    for s in sensitive:
        if f"({s})" in check:
            return s
    return sensitive[0] if len(sensitive) == 1 else None


def _l_ladder(raw: Mapping[str, Any], attribute: str, facts: Facts) -> Ladder:
    privacy = list(raw.get("privacy") or [])
    i = _entry(privacy, lambda p: "l-diversity" in str(p.get("model")) and p.get("attribute") == attribute)
    current = float(privacy[i]["l"]) if i is not None else 1.0
    base = math.floor(current)
    values = _doubling(base + 1, base, facts.distinct.get(attribute, 0))
    rungs = []
    for step, v in enumerate(values):
        new = {"model": "l-diversity", "attribute": attribute, "l": v, "variant": "distinct"}
        label = f"l = {v} ({attribute})" if i is not None else f"add distinct {v}-diversity of {attribute}"
        rungs.append(Candidate(_param(raw, i, "l", v, new), label, f"l:{attribute}", step))
    return Ladder(f"l:{attribute}", rungs)


def _t_ladder(raw: Mapping[str, Any], attribute: str, facts: Facts) -> Ladder:
    privacy = list(raw.get("privacy") or [])
    i = _entry(privacy, lambda p: p.get("model") == "t-closeness" and p.get("attribute") == attribute)
    current = float(privacy[i]["t"]) if i is not None else None
    values = [t for t in T_STEPS if current is None or t < current]
    if current is not None and not values:
        values = [float(f"{current * 0.75 ** n:.3g}") for n in range(1, LADDER_RUNGS + 1)]
    distance = facts.distance.get(attribute, "equal")
    rungs = []
    for step, t in enumerate(values[:LADDER_RUNGS]):
        new = {"model": "t-closeness", "attribute": attribute, "t": t, "distance": distance}
        label = f"t = {t:g} ({attribute})" if i is not None else f"add t-closeness of {attribute}, t = {t:g}"
        rungs.append(Candidate(_param(raw, i, "t", t, new), label, f"t:{attribute}", step))
    return Ladder(f"t:{attribute}", rungs)


def _unmet_ladders(raw: Mapping[str, Any], facts: Facts) -> list[Ladder]:
    """The models cannot be met: more suppression allowed (from the share the failed run would have
    had to suppress, when it says; none above :data:`SUPPRESSION_STEPS`), or another algorithm."""
    out = []
    now = _suppression(raw)
    if now is not None:
        needed = facts.needed_suppression or 0.0
        steps = [s for s in SUPPRESSION_STEPS if s > now and s >= needed][:LADDER_RUNGS]
        rungs = [Candidate({"algorithm.max_suppression": s}, f"max suppression {100 * s:g} %", "suppression", n)
                 for n, s in enumerate(steps)]
        out.append(Ladder("suppression", rungs, unmet_is_too_strong=False))
    algo = _algorithm(raw)
    spec = registry.get(algo.get("name"))
    other = next((a for a in registry.family(OTHER_FAMILY).values()  # that family's modules only
                  if a.enforces == CLASS_MODELS and not a.needs and not a.persons), None)
    if other is not None and spec.family in ("lattice", "search") and not spec.needs and not spec.persons:
        new: dict[str, Any] = {"name": other.name}
        if now is not None and "max_suppression" in algo:
            new["max_suppression"] = algo["max_suppression"]
        if "metric" in algo:
            new["metric"] = algo["metric"]
        out.append(Ladder("algorithm", [Candidate({"algorithm": new}, f"algorithm {other.name}",
                                                  "algorithm", 0)], unmet_is_too_strong=False))
    return out


def ladders_for(raw: Mapping[str, Any], failing: list[dict[str, Any]] | None, sensitive: list[str],
                facts: Facts) -> list[Ladder]:
    """The ladders to try for a config ``raw`` (its declaration) whose audit failed the checks
    ``failing`` (``{"check", "kind", "value", "threshold"}``), or whose models cannot be met
    (``failing`` is ``None``). ``sensitive``: the published sensitive attributes."""
    if failing is None:
        out = _unmet_ladders(raw, facts)
    else:
        names = [v["check"] for v in failing if v.get("kind") != "model"]
        out = []
        if any(n.startswith(_K_CHECKS) for n in names):
            out += _k_ladders(raw, failing, facts)
        attacked = [_attacked(n, sensitive) for n in names if n.startswith(_SENSITIVE_CHECKS)]
        for a in dict.fromkeys(a for a in attacked if a is not None):
            out += [_l_ladder(raw, a, facts), _t_ladder(raw, a, facts)]
    return [ladder for ladder in out if ladder.rungs]
