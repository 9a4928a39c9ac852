"""The run's one verdict line: the models and the audit's checks against its thresholds, and the advice."""

from __future__ import annotations

from rich.markup import escape

from anonkit.cli import console
from anonkit.cli.printers.units import pct

#: how the verdict line names each kind of check it judged
KIND_WORDS = {"model": "the models", "risk": "risk", "attack": "attacks"}


def print_verdict(s: dict, *, advice: bool = True) -> None:
    """The run's one verdict: the models and the audit's quick checks against the audit's thresholds
    (what ``anonkit audit`` decides on the same release), and when a check fails the computed advice
    (``advice=False``: the caller prints the fixes it found by trying changes instead)."""
    v = s.get("verdict")
    if not v:
        return
    basis = threshold_words(v)
    if v["ok"]:
        console.out.print(f"[bold green]Verdict: every check holds[/] ({v['checks']} checks: {judged(v)}; "
                          f"{escape(basis)})", highlight=False, soft_wrap=True)
        return
    failing = "; ".join(f"{f['check']} {pct(f['value'])} > {pct(f['threshold'])}" if f.get("threshold") is not None
                        else f"{f['check']} fails" for f in v["failing"])
    console.out.print(f"[bold red]Verdict: do not publish as is[/] — {len(v['failing'])} of {v['checks']} checks "
                      f"fail: {escape(failing)} ({escape(basis)})", highlight=False, soft_wrap=True)
    if advice:
        print_advice(v.get("advice"))


def threshold_words(v: dict) -> str:
    """The thresholds the verdict judged against, each with where it came from (``thresholds_from``:
    the config, the model that states it, anonkit's default); a verdict without it names the
    highest risk's basis only."""
    t, source = v["thresholds"], v.get("thresholds_from")
    if "risk" not in v.get("kinds", ["risk"]) and str(v.get("highest_risk_from")).startswith("class risks not"):
        return f"attacks {pct(t['attack_risk'])} ({(source or {}).get('attack_risk', 'audit.thresholds')}); " + \
            str(v["highest_risk_from"]).split(":")[0]  # a synthetic table: the attacks judge it, no class risk
    highest = f"highest risk {pct(t['highest_risk'])} ({v.get('highest_risk_from') or 'audit.thresholds'})"
    if not source:
        return f"{highest}, average risk {pct(t['average_risk'])}, attacks {pct(t['attack_risk'])}"
    words = [highest, f"average risk {pct(t['average_risk'])} ({source['average_risk']})"]
    if not source["population_uniqueness"].startswith("anonkit's default"):
        words.append(f"population uniqueness {pct(t['population_uniqueness'])} ({source['population_uniqueness']})")
    return ", ".join([*words, f"attacks {pct(t['attack_risk'])} ({source['attack_risk']})"])


def judged(v: dict) -> str:
    """What the verdict judged, in words: "the models, risk and attacks", or "…; no attack run"."""
    words = KIND_WORDS
    kinds = v.get("kinds", words)
    names = [words[k] for k in kinds if k in words]
    what = " and ".join(names) if len(names) < 3 else f"{names[0]}, {names[1]} and {names[2]}"
    if "attack" not in kinds:
        what += "; no attack run"
    return what


def print_advice(a: dict | None) -> None:
    """The computed advice under a failing verdict: the change that passes (rerun, not guessed), or
    what the audit would have to accept and what was tried."""
    if a and a.get("holds"):
        value = a["value"]
        shown = value if not isinstance(value, dict) else "{" + ", ".join(f"{k}: {x}" for k, x in value.items()) + "}"
        console.out.print(f"  to pass: {escape(a['change'])} — set {escape(a['key'])}: {escape(str(shown))}; rerun "
                          f"gives {escape(a['gives'])}", highlight=False, soft_wrap=True)
    elif a and a.get("key") is None:  # nothing an audit threshold could accept (a model fails): what to change
        console.out.print(f"  {escape(a['gives'])}", highlight=False, soft_wrap=True)
    elif a:
        console.out.print(f"  {escape(a['gives'])} (set {escape(a['key'])} to accept it); tried: "
                          f"{escape('; '.join(a['tried']) or 'nothing')}", highlight=False, soft_wrap=True)
