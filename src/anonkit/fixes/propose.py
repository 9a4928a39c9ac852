"""The proposals: candidate changes tried by running them, measured, and sorted (see the package
docstring for the rules)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from anonkit import interrupt
from anonkit.errors import InputError
from anonkit.fixes.change import apply_change, merge_changes, setting_text
from anonkit.fixes.levers import Candidate, Facts, Ladder, ladders_for
from anonkit.fixes.trial import Trial, Trials
from anonkit.plan import Plan
from anonkit.runner.result import Result

__all__ = ["DEFAULT_MAX_TRIES", "Fix", "Progress", "apply_fix", "propose_fixes"]

#: runs one call of :func:`propose_fixes` may cost at most (each a whole anonymization and audit)
DEFAULT_MAX_TRIES = 12
#: ``progress(done, total, what)``: told before each run
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Fix:
    """A change tried by running it: ``change`` (dotted config keys → new values, what
    :func:`apply_fix` sets), ``words`` (the change and the candidate run's measured figures against
    the current run's), whether the changed config ``passes`` (its models are met, verified, and
    every check of the audit holds), and the figures: the candidate's highest re-identification risk
    (prosecutor), its highest attack risk, its information loss (GCP, a share) and the change of it
    against the current run (``None`` when either run gave no release), the values of the checks the
    current run failed (``figures``), the checks still failing (``failing``), the lever it comes from
    and its ``step`` up that lever's ladder (0: the mildest)."""

    change: dict[str, Any]
    words: str
    passes: bool
    #: the change in words (``k = 10``): ``words`` is ``"{label}: {what the run measured}"``
    label: str = ""
    highest_risk: float | None = None
    attack_risk: float | None = None
    loss: float | None = None
    loss_change: float | None = None
    figures: dict[str, float] = field(default_factory=dict)
    failing: tuple[str, ...] = ()
    lever: str = ""
    step: int = 0

    @property
    def setting(self) -> str:
        """The change as a person types it: ``privacy.0.k: 10``."""
        return setting_text(self.change)

    @property
    def measured(self) -> str:
        """What the candidate run measured, in words (``words`` without the change's label)."""
        return self.words.removeprefix(f"{self.label}: ")

    @property
    def size(self) -> tuple[int, int]:
        """How big the change is: the keys it sets, then its step up its ladder."""
        return len(self.change), self.step


def apply_fix(config: Mapping[str, Any], fix: Fix | Mapping[str, Any]) -> dict[str, Any]:
    """A new config mapping with ``fix`` (a :class:`Fix` or its ``change``) applied; ``config`` (a
    config as read from YAML, or :meth:`anonkit.plan.Plan.declaration`) is left untouched.

    Raises
    ------
    InputError
        A key of the change that names no place in the config.
    """
    return apply_change(config, fix.change if isinstance(fix, Fix) else fix)


# ------------------------------------------------------------------------------------ figures
def _pct(x: float) -> str:
    return f"{100 * x:.3g} %"


def _short(check: str) -> str:
    """``prosecutor highest risk`` → ``highest risk``; ``inference attack risk`` → ``inference risk``."""
    return check.removeprefix("prosecutor ").replace(" attack risk", " risk")


def _loss(summary: Mapping[str, Any] | None) -> float | None:
    metrics = (summary or {}).get("metrics")
    value = metrics.get("gcp") if isinstance(metrics, dict) else None
    return None if value is None or not math.isfinite(float(value)) else float(value)


def _verdicts(summary: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    audit = (summary or {}).get("audit")
    return list(audit.get("verdicts", [])) if isinstance(audit, dict) else []


def _failing(summary: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """The current run's failing checks; ``[]`` when it passes; ``None`` when its models cannot be met."""
    verdict = summary.get("verdict")
    if isinstance(verdict, dict):
        return [] if verdict.get("ok") else [v for v in _verdicts(summary) if not v["holds"]]
    if summary.get("satisfied") is False:
        return None
    return []


def _unmet_fix(candidate: Candidate, trial: Trial, base: dict[str, Any]) -> Fix:
    reason = (trial.unmet or "no release").removeprefix("the models cannot be met: ")
    return Fix(words=f"{candidate.label}: the models cannot be met ({reason})", passes=False,
               failing=("the models cannot be met",), **base)


def _still_failing(checks: dict[str, dict[str, Any]], current: Mapping[str, Any]) -> list[str]:
    """The candidate's failing checks, and every risk or attack the current run judged that the
    candidate did not (not a pass: fail closed)."""
    still = [c for c, v in checks.items() if not v["holds"]]
    return still + [v["check"] for v in _verdicts(current) if v["kind"] != "model" and v["check"] not in checks]


def _why(checks: dict[str, dict[str, Any]], still: list[str]) -> str:
    parts = []
    for c in still[:3]:
        v = checks.get(c, {})
        if v.get("threshold") is not None and v.get("value") is not None:
            parts.append(f"{_short(c)} {_pct(v['value'])} > {_pct(v['threshold'])}")
        else:
            parts.append(f"{_short(c)} fails")
    return "; ".join(parts) or "not verified"


def _figures(summary: Mapping[str, Any], checks: dict[str, dict[str, Any]], failing: list[dict[str, Any]] | None
             ) -> dict[str, Any]:
    """A candidate run's figures: the checks the current run failed (else its first risk check) as it
    measured them, its highest prosecutor risk and its highest attack risk."""
    watched = [v["check"] for v in failing or []] or [c for c, v in checks.items() if v["kind"] == "risk"][:1]
    figures = {c: float(checks[c]["value"]) for c in watched if c in checks and checks[c].get("value") is not None}
    risk = (((summary.get("audit") or {}).get("risk") or {}).get("prosecutor") or {}).get("highest")
    attacks = [float(v["value"]) for v in checks.values() if v["kind"] == "attack" and v.get("value") is not None]
    return {"figures": figures, "highest_risk": None if risk is None else float(risk),
            "attack_risk": max(attacks) if attacks else None}


def _passing_words(label: str, figures: dict[str, float], loss: float | None, change: float | None) -> str:
    shown = ", ".join(f"{_short(c)} {_pct(v)}" for c, v in list(figures.items())[:3])
    lost = "" if loss is None else f"loss {_pct(loss)}" + ("" if change is None else f" ({100 * change:+.1f} pts)")
    return f"{label}: " + ", ".join(p for p in (shown, lost) if p)


def _measure(candidate: Candidate, trial: Trial, current: Mapping[str, Any], failing: list[dict[str, Any]] | None
             ) -> Fix:
    """The :class:`Fix` of one tried candidate, its words from its figures against ``current``'s."""
    base = {"change": candidate.change, "label": candidate.label, "lever": candidate.lever, "step": candidate.step}
    if trial.unmet is not None or trial.summary is None:
        return _unmet_fix(candidate, trial, base)
    summary = trial.summary
    checks = {v["check"]: v for v in _verdicts(summary)}
    still = _still_failing(checks, current)
    ok = bool((summary.get("verdict") or {}).get("ok")) and trial.verified and not still
    measured = _figures(summary, checks, failing)
    loss, before = _loss(summary), _loss(current)
    change = None if loss is None or before is None else loss - before
    words = (_passing_words(candidate.label, measured["figures"], loss, change) if ok else
             f"{candidate.label}: still fails {_why(checks, still)}")
    return Fix(words=words, passes=ok, loss=loss, loss_change=change, failing=tuple(still), **measured, **base)


# ------------------------------------------------------------------------------------- search
@dataclass
class _Climb:
    """One ladder's search: its mildest rung first, then bisection for the mildest that passes
    (on the assumption that a stronger change passes what a milder one passes)."""

    ladder: Ladder
    lo: int = 0
    hi: int = -1
    first: bool = True

    def __post_init__(self) -> None:
        self.hi = len(self.ladder.rungs) - 1

    @property
    def done(self) -> bool:
        return self.lo > self.hi

    def next(self) -> int:
        return self.lo if self.first else (self.lo + self.hi) // 2

    def record(self, index: int, fix: Fix, unmet: bool) -> None:
        self.first = False
        if fix.passes or (unmet and self.ladder.unmet_is_too_strong):
            self.hi = index - 1
        else:
            self.lo = index + 1


def _search(ladders: list[Ladder], attempt: Callable[[Candidate], tuple[Fix, bool] | None]) -> None:
    """Try the ladders' rungs, round-robin within a priority, a lower priority number first, until
    every ladder is done or ``attempt`` says the budget is spent (returns ``None``)."""
    climbs = [_Climb(ladder) for ladder in ladders]
    for priority in sorted({ladder.priority for ladder in ladders}):
        active = [c for c in climbs if c.ladder.priority == priority]
        while any(not c.done for c in active):
            for climb in active:
                if climb.done:
                    continue
                index = climb.next()
                got = attempt(climb.ladder.rungs[index])
                if got is None:
                    return
                climb.record(index, *got)


def _undominated(fixes: list[Fix]) -> list[Fix]:
    """Without a passing fix that sets what a smaller passing fix sets and more, for no less loss
    (more suppression allowed that the search did not use, say)."""
    def within(small: Fix, big: Fix) -> bool:
        return len(small.change) < len(big.change) and all(
            k in big.change and big.change[k] == v for k, v in small.change.items())

    def dominated(f: Fix) -> bool:
        return f.passes and any(g.passes and within(g, f) and (
            f.loss is None or (g.loss is not None and g.loss <= f.loss)) for g in fixes)

    return [f for f in fixes if not dominated(f)]


class _Proposals:
    """The search of one :func:`propose_fixes` call: the runs tried (each change once), the budget."""

    def __init__(self, trials: Trials, current: Mapping[str, Any], max_tries: int, say: Progress) -> None:
        self.trials, self.current, self.max_tries, self.say = trials, current, max_tries, say
        self.declared = trials.declaration()
        self.tried: dict[str, tuple[Fix, bool, list[dict[str, Any]] | None]] = {}
        #: the share of records a change whose models could not be met would have had to suppress
        self.needed: dict[str, float] = {}

    def attempt(self, candidate: Candidate, failing: list[dict[str, Any]] | None) -> tuple[Fix, bool] | None:
        """Run ``candidate`` (once: a change tried before gives its first outcome); ``None`` when the
        budget is spent."""
        key = setting_text(candidate.change)
        if key not in self.tried:
            if self.trials.runs >= self.max_tries:
                return None
            self.say(self.trials.runs, self.max_tries, f"trying {candidate.label}")
            interrupt.check()
            trial = self.trials.run(apply_change(self.declared, candidate.change))
            released = None if trial.summary is None or trial.unmet is not None else _verdicts(trial.summary)
            self.tried[key] = (_measure(candidate, trial, self.current, failing), trial.unmet is not None,
                               None if released is None else [v for v in released if not v["holds"]])
            would, of = (trial.summary or {}).get("would_suppress"), (trial.summary or {}).get("records")
            if trial.unmet is not None and isinstance(would, int) and isinstance(of, int) and of > 0:
                self.needed[key] = would / of
        fix, unmet, _still = self.tried[key]
        return fix, unmet

    def climb(self, raw: Mapping[str, Any], failing: list[dict[str, Any]] | None, facts: Facts,
              sensitive: list[str], base: Fix | None = None) -> None:
        """Try the ladders ``failing`` calls for over ``raw`` (on top of ``base``'s change, when given)."""
        ladders = ladders_for(raw, failing, sensitive, facts)
        if base is not None:  # on top of base: a rung that sets a key base sets again is no new change
            ladders = [Ladder(f"{base.lever}+{lad.lever}", [
                Candidate(merge_changes(base.change, c.change), f"{base.label}, {c.label}", f"{base.lever}+{c.lever}",
                          base.step + c.step) for c in lad.rungs if not set(c.change) & set(base.change)],
                lad.unmet_is_too_strong, lad.priority)
                for lad in ladders]
            ladders = [lad for lad in ladders if lad.rungs]
        _search(ladders, lambda c: self.attempt(c, failing))

    def closest(self) -> Fix | None:
        """The tried change that gave a release closest to passing (fewest checks failing, then the
        smallest, then the least loss), to build on when none passes."""
        released = [(f, still) for f, _unmet, still in self.tried.values() if still is not None and not f.passes]
        if not released or any(f.passes for f, _u, _s in self.tried.values()):
            return None
        return min(released, key=lambda p: (len(p[1]), p[0].size, math.inf if p[0].loss is None else p[0].loss))[0]

    def closest_unmet(self) -> tuple[Fix, float] | None:
        """When every change tried left the models unmet: the one that would have suppressed the
        fewest records, and that share, to build on with more suppression or another algorithm."""
        if any(not unmet or f.passes for f, unmet, _s in self.tried.values()) or not self.needed:
            return None
        key = min(self.needed, key=lambda k: (self.needed[k], self.tried[k][0].size))
        return self.tried[key][0], self.needed[key]

    def fixes(self) -> list[Fix]:
        """Every change tried, sorted: passing first, the smallest change, the least loss, the order tried."""
        fixes = _undominated([f for f, _u, _s in self.tried.values()])
        rank = {id(f): n for n, f in enumerate(fixes)}
        return sorted(fixes, key=lambda f: (not f.passes, f.size, math.inf if f.loss is None else f.loss, rank[id(f)]))


def propose_fixes(plan: Plan, *, result: Result | Mapping[str, Any] | None = None,
                  max_tries: int = DEFAULT_MAX_TRIES, progress: Progress | None = None) -> list[Fix]:
    """The changes that make ``plan``'s run pass, found by running them (see the package docstring).

    ``result``: the plan's run already made (a :class:`~anonkit.runner.result.Result`, or its summary
    — what an :class:`~anonkit.errors.UnsatisfiableError` carries); without it the plan is run first,
    in memory (one of the ``max_tries`` runs). Returns ``[]`` when the run passes. Every candidate is
    run in memory (nothing written), at most ``max_tries`` runs in all; ``progress(done, total, what)``
    is told before each; Ctrl-C (:func:`anonkit.interrupt.request`) stops the search with
    ``KeyboardInterrupt``. When no single lever passes and runs are left, the change that came
    closest is built on: the levers its own failing checks call for, on top of it (a second round);
    when every change tried left the models unmet, the one that came nearest is built on with more
    suppression allowed (from the share it would have needed) or another algorithm.

    Raises
    ------
    InputError
        ``max_tries`` below 1, a plan made in Python (no config to change), a Spark plan, or a failing
        run of an algorithm that enforces no model (a perturbative method: no lever applies; nothing is run).
    """
    if isinstance(max_tries, bool) or not isinstance(max_tries, int) or max_tries < 1:
        raise InputError(f"max_tries must be a whole number ≥ 1, got {max_tries!r}", key="max_tries")
    say = progress or (lambda _done, _total, _what: None)
    ran = result if isinstance(result, Result) else None
    trials = Trials(plan, known=None if ran is None else ran.reruns, inputs=None if ran is None else ran.inputs,
                    encodings=None if ran is None else ran.encodings)
    if result is None:
        say(0, max_tries, "running the config as it is")
        current = trials.run(trials.declaration())
        summary: Mapping[str, Any] = current.summary or {"satisfied": False}
    else:
        summary = result.summary if isinstance(result, Result) else result
    failing = _failing(summary)
    if failing == []:
        return []
    algorithm = plan.algorithm
    if algorithm is not None and not algorithm.enforces:  # the levers change models; this one enforces none
        raise InputError(algorithm.no_model_lever, key="algorithm.name")
    sensitive, records, distinct, distance = trials.facts()
    would, of = summary.get("would_suppress"), summary.get("records")
    needed = would / of if isinstance(would, int) and isinstance(of, int) and of > 0 else None
    facts = Facts(records, distinct, distance, needed)
    search = _Proposals(trials, summary, max_tries, say)
    search.climb(search.declared, failing, facts, sensitive)
    base = search.closest()
    if base is not None and trials.runs < max_tries:
        still = search.tried[setting_text(base.change)][2] or []
        search.climb(apply_change(search.declared, base.change), still, facts, sensitive, base)
    unmet = search.closest_unmet()
    if unmet is not None and trials.runs < max_tries:  # every change was too strong for the limits: loosen them
        near, share = unmet
        search.climb(apply_change(search.declared, near.change), None, replace(facts, needed_suppression=share),
                     sensitive, near)
    say(trials.runs, trials.runs, "done")
    return search.fixes()
