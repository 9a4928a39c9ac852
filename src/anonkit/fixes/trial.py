"""A candidate change run for real, in memory: the changed config validated into a plan that writes
nothing, anonymized and audited as ``anonkit anonymize`` would, with the input read once.

:class:`Trials` takes the input and schema the run read (``Result.inputs``), or reads the plan's input
and builds its schema once when it has no run (the levers change models and algorithm settings, never
the attributes, so both stay valid), then for each changed config:
:func:`anonkit.plan.plan_from_config` (``writes=False``: no output planned, none written) →
:func:`anonkit.runner.anonymize.anonymize_checked` (encode — the run's encoded table, shared, when
the input's settings are the run's —, algorithm, the independent verifier, and of the measures only the
loss a fix prints: ``lean``) → :func:`anonkit.runner.audit_step.audit_result` (the audit and the one verdict; its
thresholds follow the changed models, as they would in the changed config). ``audit.required`` is
switched off in the trial so a failing verdict is measured rather than refused. A config the run's
advice already reran (``Result.reruns``) is not run again: its release and audit are reused. A config with
``post_analytics`` (which may add fake records before the audit) is run whole by
:func:`anonkit.runner.run` instead, still writing nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from anonkit import interrupt
from anonkit._values import strip_cells
from anonkit.config import parse_config
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.io.batches import is_compact
from anonkit.plan import Plan, plan_from_config
from anonkit.plan.load import config_priors, config_schema, load_input, research_subset
from anonkit.runner import run
from anonkit.runner.anonymize import Encodings, anonymize_checked
from anonkit.runner.audit_step import audit_result, rerun_key
from anonkit.runner.result import Result
from anonkit.schema import AttrType, Schema

__all__ = ["Trial", "Trials"]


@dataclass(frozen=True)
class Trial:
    """What a run of a changed config gave: its summary (the verdict and audit in it, the loss as its one
    measure: a lean run's) or, when it gave no release, why (``unmet``: the models cannot be met, or the
    changed config was refused)."""

    summary: dict[str, Any] | None
    unmet: str | None = None
    verified: bool = False


def _without_required(data: dict[str, Any]) -> dict[str, Any]:
    audit = data.get("audit")
    if isinstance(audit, dict) and audit.get("required"):
        data = {**data, "audit": {**audit, "required": False}}
    return data


class Trials:
    """The runs of one plan's changed configs (see the module docstring)."""

    def __init__(self, plan: Plan, known: Mapping[str, tuple[Result, dict[str, Any]]] | None = None,
                 inputs: tuple[pd.DataFrame, Schema, pd.DataFrame | None] | None = None,
                 encodings: Encodings | None = None) -> None:
        config = plan.config
        if config is None:
            raise InputError("proposals are computed from a config: a plan made in Python has none", key="plan")
        if config.engine != "local":
            raise InputError("proposals are computed by rerunning the config on this machine; a Spark plan is not "
                             "rerun (try the change on a sample with engine: local)", key="engine")
        self.plan = plan
        self.runs = 0
        #: the runs already made of this input (the advice's reruns, by :func:`rerun_key`): reused, not rerun
        self.known = dict(known or {})
        #: the input's encoded tables (the run's own when it gave them): every trial of this input reads them
        self.encodings = encodings if encodings is not None else Encodings()
        if inputs is not None:  # the run's own input as its runner read it (Result.inputs): not read again
            self.frame, self.schema, self.population = inputs
            return
        frame, defaults = load_input(config, plan.base, plan.input_path)
        if config.input.strip and not is_compact(frame) and len(frame.columns):
            frame = frame.apply(strip_cells)
        self.schema = config_schema(config, plan.base, defaults, frame)
        # input.subset: the research records are rerun, counted in the whole input (the population)
        self.population, self.frame = research_subset(config, plan.base, frame)

    def facts(self) -> tuple[list[str], int, dict[str, int], dict[str, str]]:
        """The sensitive attributes, the records, each sensitive attribute's distinct values and the
        t-closeness distance its type calls for (ordered for numbers and dates, hierarchical with a
        hierarchy, else equal)."""
        sensitive = [s for s in self.schema.sensitive if s in self.frame.columns]
        distinct = {s: int(self.frame[s].nunique(dropna=False)) for s in sensitive}
        distance = {}
        for s in sensitive:
            attr = self.schema[s]
            ordered = attr.type in (AttrType.NUMERIC, AttrType.DATE, AttrType.ORDINAL)
            distance[s] = "ordered" if ordered else "hierarchical" if attr.hierarchy is not None else "equal"
        return sensitive, len(self.frame), distinct, distance

    def declaration(self) -> dict[str, Any]:
        """The plan's config as a mapping (the keys a change names)."""
        return self.plan.declaration()

    def run(self, data: Mapping[str, Any]) -> Trial:
        """Run the config ``data`` (a changed declaration) in memory; counts in :attr:`runs`."""
        interrupt.check()
        self.runs += 1
        plan = self.plan
        try:
            config = parse_config(_without_required(dict(data)))
            changed = plan_from_config(config, config_dir=plan.base, input_path=plan.input_path, seed=plan.seed,
                                       writes=False)
        except InputError as exc:
            return Trial(None, f"refused: {exc}")
        try:
            if config.post_analytics is not None:  # fakes may join the release before the audit: the whole run
                result = run(changed)
            elif (made := self.known.pop(rerun_key(config, changed.seed), None)) is not None:
                result, report = made  # the advice ran this very config: its release and audit
                audit_result(changed, result, population=self.population, report=report)
            else:
                priors, _note = config_priors(config, plan.base)
                result = anonymize_checked(self.frame, self.schema, changed, priors=priors,
                                           population=self.population, lean=True, encodings=self.encodings)
                audit_result(changed, result, population=self.population)
        except UnsatisfiableError as exc:
            return Trial(dict(exc.summary or {}), str(exc))
        except InputError as exc:
            return Trial(None, f"refused: {exc}")
        return Trial(result.summary, None, bool(result.verification.ok))
