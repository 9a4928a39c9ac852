"""Helpers shared by several test modules (pytest puts this folder on ``sys.path``)."""

from __future__ import annotations

from anonkit.models import (
    BetaLikeness,
    Criterion,
    DeltaDisclosure,
    DistinctLDiversity,
    EntropyLDiversity,
    RecursiveCLDiversity,
    TCloseness,
)
from anonkit.release import Release
from anonkit.table import Table
from anonkit.verify import verify

#: models a class of k or more records can still fail, on the sensitive attribute ``s``
MODEL_CHOICES = {
    "distinct-2": lambda: DistinctLDiversity("s", 2),
    "distinct-3": lambda: DistinctLDiversity("s", 3),
    "entropy-2": lambda: EntropyLDiversity("s", 2),
    "recursive-3-2": lambda: RecursiveCLDiversity("s", 3, 2),
    "t-0.1": lambda: TCloseness("s", 0.1),
    "t-0.25": lambda: TCloseness("s", 0.25),
    "beta-1": lambda: BetaLikeness("s", 1.0),
    "delta-1": lambda: DeltaDisclosure("s", 1.0),
}


def verified(table: Table, rel: Release, models: list[Criterion]) -> bool:
    """Whether the independent verifier accepts ``rel``'s published frame (reference: the input)."""
    sens = {s: table.frame[s] for s in table.sensitive}
    return verify(rel.to_frame(), table.schema, models, reference=sens).ok
