"""The audit of a run's release in memory, and the run's one verdict (``summary["audit"]``,
``summary["verdict"]``): the plan's ``audit:`` settings (the quick checks without one), the
adversary's priors and the private link for a background-knowledge model, and, when a check fails,
the advice computed by rerunning the changed config (:mod:`anonkit.audit.advice`, fed
:func:`rerun_for`)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pandas as pd

from anonkit.analytics.cover import lasting_reading
from anonkit.analytics.published import private_rows
from anonkit.audit.advice import Rerun, advise
from anonkit.audit.inputs import AuditInputs, read_extra, release_reading, release_records
from anonkit.audit.run import audit
from anonkit.audit.verdicts import run_verdict
from anonkit.config import AuditConfig, Config
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.models import BackgroundKnowledge
from anonkit.plan import Plan
from anonkit.plan.load import config_priors
from anonkit.runner.anonymize import Encodings, anonymize_checked
from anonkit.runner.knowledge import priors_for
from anonkit.runner.result import Result
from anonkit.schema import Schema

__all__ = ["RERUN_PLACE_KEYS", "audit_report", "audit_result", "rerun_for", "rerun_key"]

#: the input keys that say where a run's input was read from (``--input`` replaces them): a rerun of the
#: same run reads the input the run read, so they make no two reruns differ (:func:`rerun_key`)
RERUN_PLACE_KEYS = ("path", "format", "table", "query", "dataset", "sheet", "header_row")


def rerun_key(config: Config, seed: int) -> str:
    """What makes two reruns of one input the same run: the changed config (validated, so ``l: 3`` and
    ``l: 3.0`` read alike) without ``audit.required`` (a trial switches it off; it changes no figure)
    and the seed. The advice's reruns and the fixes' trials of one run share the input and schema, so
    where the input was read from (:data:`RERUN_PLACE_KEYS`) and every output key but ``suppressed`` (the
    one that shapes the release in memory) are left out too: a trial's config has ``--input`` and
    ``--output`` folded in (:meth:`anonkit.plan.Plan.declaration`), the advice's does not, and with
    ``--output`` given the trials used to run again two configs the advice had run."""
    data = config.model_dump(mode="json")
    if isinstance(data.get("audit"), dict):
        data["audit"] = {**data["audit"], "required": False}
    if isinstance(data.get("input"), dict):
        data["input"] = {k: v for k, v in data["input"].items() if k not in RERUN_PLACE_KEYS}
    if isinstance(data.get("output"), dict):
        data["output"] = {"suppressed": data["output"].get("suppressed")}
    return json.dumps([data, seed], sort_keys=True, default=str)


def audit_report(plan: Plan, result: Result, config: Config | None = None, *,
                 population: pd.DataFrame | None = None) -> dict:
    """The config's ``audit:`` (default settings without one) of the release in memory, with the
    adversary's priors and the private link when a background-knowledge model asks for them.
    ``config``: a changed config of the plan's (the advice's reruns), else the plan's own;
    ``population``: the whole input of an ``input.subset`` run (k-map and δ-presence recounted in it)."""
    config = plan.config if config is None else config
    base = plan.base
    spec = config.audit or AuditConfig()
    release = result.release
    table = release.table
    # linked tables (Anatomy's QIT and ST) are audited as such; a release publishing one table through
    # its own verifier (local suppression, the perturbative methods, kl-diversity) is audited as a table
    published = result.frame if len(release.tables) < 2 else dict(release.tables)
    inputs = AuditInputs(schema=table.schema, original=table.frame, release=published,
                         population_table=read_extra(spec.population_table, config, base, "audit.population_table"),
                         control=read_extra(spec.control, config, base, "audit.control"), population=population,
                         **release_reading(plan.algorithm, plan.options), **release_records(plan.algorithm))
    priors = rows = None
    bk = [m for m in result.models if isinstance(m, BackgroundKnowledge)]
    if bk:
        factory, _ = config_priors(config, base)
        priors = priors_for(table, bk[0], factory)
        rows = private_rows(release, suppressed=config.output.suppressed, seed=result.summary.get("seed", 0))
    report = audit(inputs, models=result.models, thresholds=spec.thresholds, population=spec.population,
                   attacks=spec.attacks, seed=spec.seed, targets=spec.targets, priors=priors, rows=rows)
    return report


def audit_result(plan: Plan, result: Result, *, frame: pd.DataFrame | None = None,
                 schema: Schema | None = None, population: pd.DataFrame | None = None,
                 report: dict[str, Any] | None = None) -> None:
    """The config's ``audit:`` (default settings without one: the quick checks — the models, the risk
    models and every attack that needs no extra input) on the release in memory, into
    ``summary["audit"]``, and the run's one verdict into ``summary["verdict"]``: ``ok``, the failing
    checks, the thresholds, and when a check fails the advice (:func:`anonkit.audit.advice.advise`:
    the parameter to change and what it gives, computed by rerunning ``frame`` under ``schema``).
    With ``audit.required`` a failing verdict refuses the release before anything is written.
    ``population``: the whole input of an ``input.subset`` run (the audit and the reruns count in it).
    ``report``: the release's audit when it was made already (a rerun's, kept by :func:`rerun_for`)."""
    with lasting_reading():  # the audits of the run and of its advice's reruns read the input's columns once
        _audit_and_advise(plan, result, frame, schema, population, report)


def _audit_and_advise(plan: Plan, result: Result, frame: pd.DataFrame | None, schema: Schema | None,
                      population: pd.DataFrame | None, report: dict[str, Any] | None) -> None:
    """:func:`audit_result`'s work (see there)."""
    spec = plan.audit
    release = result.release
    if report is None:
        report = audit_report(plan, result, population=population)
    result.summary["audit"] = report
    # the summary counts the records at risk against the audit's threshold: one figure, one threshold
    # (a synthetic table's summary has no class figures: its audit no prosecutor risk)
    if "prosecutor" in report["risk"]:
        result.summary["risk_threshold"] = report["thresholds"]["highest_risk"]
    if isinstance(result.summary.get("metrics"), dict) and "prosecutor" in report["risk"]:
        result.summary["metrics"]["records_at_risk"] = report["risk"]["prosecutor"]["records_at_risk"]
    failed = [v for v in report["verdicts"] if not v["holds"]]
    advice = None
    if failed and frame is not None and schema is not None:
        rerun = rerun_for(plan, frame, schema, result.summary.get("seed", 0), population=population,
                          memo=result.reruns, encodings=result.encodings)
        algorithm = plan.algorithm  # one that enforces no model (perturbative): its models are judged only
        judged_only = algorithm.no_model_lever if algorithm is not None and not algorithm.enforces else None
        advice = advise(plan.config, report, schema, frame, rerun, judged_only=judged_only)
    result.summary["verdict"] = run_verdict(report, advice)
    if spec.required and not report["ok"]:
        names = [v["check"] for v in failed]
        result.summary["satisfied"] = False
        hint = (f"set {advice['key']}: {advice['value']} ({advice['gives']})" if advice and advice["holds"]
                else "relax audit.thresholds or strengthen the models")
        raise UnsatisfiableError(f"the audit fails {len(names)} check(s): {', '.join(names)}; {hint}",
                                 summary=result.summary, release=release)


def rerun_for(plan: Plan, frame: pd.DataFrame, schema: Schema, seed: int, *,
              population: pd.DataFrame | None = None,
              memo: dict[str, tuple[Result, dict[str, Any]]] | None = None,
              encodings: Encodings | None = None) -> Rerun:
    """The advice's rerun (:data:`anonkit.audit.advice.Rerun`) over the run's input ``frame`` (as
    read; the research records of an ``input.subset`` run, whose whole input is ``population``) and
    its ``schema`` (a change of the models leaves it as it is): the changed config's anonymization
    and the audit ``anonkit anonymize`` runs (:func:`audit_report`, priors included), nothing written.
    Each rerun that gives a release is kept in ``memo`` (by :func:`rerun_key`) with its audit, for
    the fixes' trials of the same run (:class:`anonkit.fixes.trial.Trials`).

    A rerun computes what its verdict and the fixes' lines read, and no more: the encoding (the run's
    own, from ``encodings``, when it shares the input's settings), the algorithm, publishing, the
    independent verifier, the loss (:data:`anonkit.runner.anonymize.LEAN_MEASURES`) and the audit; not
    the summary's other measures, generalization or score (``lean``: nothing prints them for a rerun)."""

    def run(config: Config) -> dict[str, Any] | str:
        models = config.models()
        priors = None
        if any(m.spec.record_level for m in models):
            priors, _ = config_priors(config, plan.base)
        changed = replace(plan, config=config, models=tuple(models), seed=seed, suppressed=config.output.suppressed,
                          missing=config.input.missing, strip=config.input.strip, person_qi=config.input.person_qi)
        try:  # the same algorithm and options (the advice changes models only)
            result = anonymize_checked(frame, schema, changed, priors=priors, population=population, lean=True,
                                       encodings=encodings)
        except UnsatisfiableError as exc:
            return str(exc)
        except InputError as exc:
            return f"refused: {exc}"
        report = audit_report(plan, result, config, population=population)
        if memo is not None:
            memo[rerun_key(config, seed)] = (result, report)
        return report

    return run
