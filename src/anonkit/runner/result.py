"""What a run gives back: :class:`Result` (the release, the published frame, the verification, the
summary) and :data:`PriorsInput`, what ``priors=`` accepts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

import pandas as pd
from numpy.typing import ArrayLike

from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.schema import Schema
from anonkit.table import Table
from anonkit.verifier import Verification

if TYPE_CHECKING:
    from anonkit.knowledge import Priors

__all__ = ["PriorsInput", "Result"]


@dataclass
class Result:
    """What a run produced: the release, the published frame, the verdict and the summary."""

    release: Release
    frame: pd.DataFrame
    verification: Verification
    summary: dict = field(default_factory=dict)
    #: the privacy models as enforced and verified (background-knowledge tests resolved)
    models: list[Criterion] = field(default_factory=list)
    #: the schema the release was verified under (every type resolved)
    schema: Schema | None = None
    #: the advice's reruns of changed configs (:func:`anonkit.runner.audit_step.rerun_for`), by
    #: :func:`~anonkit.runner.audit_step.rerun_key`: the fixes' trials reuse a run the advice made
    #: rather than running the same config again. In memory only; never part of the summary.
    reruns: dict[str, tuple[Result, dict[str, Any]]] = field(default_factory=dict, repr=False)
    #: the run's input as the runner read it — the frame (the research records of an ``input.subset``
    #: run), the schema built over it and the whole input of such a run (else ``None``) — so that the
    #: fixes' trials of the same run rerun it without reading and checking the input again. In memory only.
    inputs: tuple[pd.DataFrame, Schema, pd.DataFrame | None] | None = field(default=None, repr=False)
    #: the encoded tables of that input (:class:`anonkit.runner.anonymize.Encodings`), shared by the
    #: advice's reruns and the fixes' trials of the same run. In memory only.
    encodings: Any = field(default=None, repr=False)


#: What ``priors=`` accepts: :class:`~anonkit.knowledge.Priors`, an ``(n × S)`` (per record) or
#: ``(m × S)`` (per distinct QI tuple) array, a frame indexed by QI tuples (``matrix_priors``), or a
#: function of the encoded :class:`~anonkit.table.Table` returning one of those.
PriorsInput: TypeAlias = "Priors | ArrayLike | pd.DataFrame | Callable[[Table], Priors | ArrayLike | pd.DataFrame]"
