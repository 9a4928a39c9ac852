"""k-primacy baseline — **reconstructed** (Amiri, Yazdani, Shakery, Chinaei, *Knowledge-Based Systems*
2016; spec §4.3, register #9).

Only the paper's abstract was available: the privacy model is k-anonymity plus β-likeness, reached by
first clustering records whose background-knowledge distributions are similar and then forming
k-anonymous, β-like classes inside the clusters; records that fit no class stay unpublished. As the
spec recommends, this is UHRA's pipeline (:mod:`anonkit.algorithms.knowledge.uhra`) unchanged — BK
clustering at ``J``, nearest-point-next order, greedy groups, leftovers, refinement — with the
closing test "size ≥ k and **basic β-likeness** (default β = 1)" instead of t-closeness; leftovers
that fit no group are suppressed. β comes from a ``BetaLikeness`` model when one is given; any
t-closeness model given as well is also enforced. Releases say ``algorithm: "k-primacy
(reconstructed)"`` and ``extra['reconstructed'] = True``.
"""

from __future__ import annotations

from typing import Any, Literal

from anonkit.algorithms.knowledge.uhra import MAX_PASSES, uhra
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table

#: Default β of the basic β-likeness test (spec §6).
DEFAULT_BETA = 1.0
LABEL = "k-primacy (reconstructed)"


def k_primacy(
    table: Table,
    models: list[Criterion],
    *,
    priors: Any = None,
    max_suppression: float = 0.0,
    small_cluster: Literal["suppress", "merge"] = "suppress",
    max_passes: int = MAX_PASSES,
    beta: float = DEFAULT_BETA,
) -> Release:
    """k-primacy (reconstructed), see the module docstring."""
    rel = uhra(table, models, priors=priors, max_suppression=max_suppression, small_cluster=small_cluster,
               max_passes=max_passes, algorithm=LABEL, default_beta=beta)
    rel.extra["reconstructed"] = True
    return rel
