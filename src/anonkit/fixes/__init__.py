"""What to change when a run fails its audit (or its models cannot be met): the smallest changes
that pass, found by running them — never guessed.

Public API (the CLI and the browser application call these):

``propose_fixes(plan, *, result=None, max_tries=12, progress=None) -> list[Fix]``
    Derives candidate changes from *what failed* and runs each one. A failing risk check (highest
    or average re-identification risk, population uniqueness, singling-out, linkability) → a larger
    ``k`` (the first one computed from the threshold, ``1/k ≤ threshold``), and the same ``k`` with
    more suppression allowed; a failing attack on a sensitive attribute (homogeneity, similarity,
    skewness, inference) → its l-diversity added or raised, its t-closeness added or tightened;
    models that cannot be met → more suppression allowed, or Mondrian instead of a full-domain
    search. No change weakens a model. Each lever's candidates run from the mildest to the strongest
    and are bisected (its mildest first), levers in turn, so a small budget still tries each.
    Every candidate is the plan's config with the change, validated into a plan that writes nothing
    (:func:`anonkit.plan.plan_from_config` with ``writes=False``), anonymized, verified and audited
    in memory as ``anonkit anonymize`` would (:mod:`anonkit.fixes.trial`); the input is read once.
    ``result`` is the plan's run already made (its :class:`~anonkit.runner.result.Result`, or the
    summary an :class:`~anonkit.errors.UnsatisfiableError` carries); without it the plan runs first.
    At most ``max_tries`` runs in all (:data:`DEFAULT_MAX_TRIES`); ``progress(done, total, what)``
    is told before each; Ctrl-C stops it (``KeyboardInterrupt``). A passing run gets ``[]``.
    Returned sorted: passing fixes first, then the smallest change (fewest keys set, then fewest
    steps up its lever), then the least loss, then the order tried. The same plan and seed give
    the same list (every run is seeded; nothing depends on time).

``Fix`` (frozen dataclass)
    ``change`` (``{"privacy.0.k": 10}``: dotted config keys → new values; an index one past a list's
    end appends, so ``{"privacy.2": {model: t-closeness, …}}`` adds a model), ``words`` (``"k = 10:
    highest risk 10 %, loss 31.2 % (+4.1 pts)"``: the candidate run's measured figures, its loss
    against the current run's), ``passes``, ``highest_risk``, ``attack_risk``, ``loss`` (GCP, a
    share), ``loss_change``, ``figures`` (the current run's failing checks, as the candidate
    measured them), ``failing`` (checks the candidate still fails), ``lever``, ``step``; the
    properties ``setting`` (``"privacy.0.k: 10"``, the line to type) and ``size``.

``apply_fix(config: dict, fix) -> dict``
    A new config mapping with the fix's change applied (the input untouched); ``config`` is a
    config as read from YAML or :meth:`anonkit.plan.Plan.declaration`. ``yaml_sections(config,
    change)`` gives the changed top-level sections as YAML to paste.

This is the *advice* layer: above the runner, below the faces (the CLI prints the proposals under a
failing verdict; ``anonkit ui`` offers them and applies one on request). The audit's own one-line
advice (:mod:`anonkit.audit.advice`, inside every run) answers one lever; this package tries them all
and measures what each costs.
"""

from anonkit.fixes.change import yaml_sections
from anonkit.fixes.propose import DEFAULT_MAX_TRIES, Fix, Progress, apply_fix, propose_fixes

__all__ = ["DEFAULT_MAX_TRIES", "Fix", "Progress", "apply_fix", "propose_fixes", "yaml_sections"]
