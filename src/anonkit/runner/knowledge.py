"""Background knowledge in a run (spec §1.7, §3, §4.1–4.3): a
:class:`~anonkit.models.BackgroundKnowledge` model is enforced only by the algorithms whose
declaration enforces it (UHRA and its baselines); the adversary's priors are computed once (or taken
from the caller) and handed to the algorithm and to the verifier."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from anonkit.algorithms import registry
from anonkit.algorithms.spec import Algorithm
from anonkit.errors import InputError
from anonkit.models import BackgroundKnowledge, Criterion
from anonkit.runner.result import PriorsInput
from anonkit.table import Table

if TYPE_CHECKING:
    from anonkit.knowledge import Priors

__all__ = ["is_factory", "priors_for", "resolve_background_knowledge"]


def resolve_background_knowledge(
    models: list[Criterion], spec: Algorithm
) -> tuple[list[Criterion], list[BackgroundKnowledge]]:
    """``models`` with every background-knowledge model resolved for the algorithm ``spec`` (§1.7),
    and those models; an :class:`InputError` if the algorithm cannot enforce them."""
    if not any(m.spec.record_level for m in models):
        return models, []
    out: list[Criterion] = []
    for m in models:
        if m.spec.record_level:
            if not spec.enforces_model(m):
                takers = ", ".join(a.name for a in registry.algorithms().values() if a.enforces_model(m))
                raise InputError(
                    f"the {m.name} model is enforced only by the algorithms {takers}, not {spec.name}; to measure "
                    "what a background-knowledge adversary learns from another release, run "
                    "anonkit.analytics.background_knowledge_attack on it",
                    key="algorithm.name",
                )
            if not isinstance(m, BackgroundKnowledge):
                raise InputError(f"{m.describe()}: unknown record-level model", key="privacy")
            m = m.resolved(spec.bk_test or "pairwise")
        out.append(m)
    bk = [m for m in out if isinstance(m, BackgroundKnowledge)]
    attributes = sorted({m.attribute for m in bk})
    if len(attributes) > 1:
        raise InputError(
            f"background-knowledge models about several sensitive attributes ({', '.join(attributes)}); "
            "the algorithms take the priors of one",
            key="privacy",
        )
    return out, bk


def is_factory(priors: object) -> bool:
    from anonkit.knowledge import Priors

    return callable(priors) and not isinstance(priors, Priors | np.ndarray | pd.DataFrame)


def priors_for(table: Table, model: BackgroundKnowledge, priors: PriorsInput | None) -> Priors:
    """The priors of ``model`` over ``table``'s records: given (in any :data:`PriorsInput` form) or
    estimated by the model (its ``prior`` kind, spec §3)."""
    if is_factory(priors):
        priors = priors(table)  # type: ignore[operator]
    if priors is None:
        return model.priors(table)
    from anonkit.knowledge.sources import as_priors

    return as_priors(table, model.attribute, priors)  # type: ignore[arg-type]
