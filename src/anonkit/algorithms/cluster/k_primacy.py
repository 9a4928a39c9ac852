"""k-primacy baseline — **reconstructed** (Amiri, Yazdani, Shakery, Chinaei, *Knowledge-Based Systems*
2016; spec §4.3, register #9).

Only the paper's abstract was available: the privacy model is k-anonymity plus β-likeness, reached by
first clustering records whose background-knowledge distributions are similar and then forming
k-anonymous, β-like classes inside the clusters; records that fit no class stay unpublished. As the
spec recommends, this is UHRA's pipeline (:mod:`anonkit.algorithms.cluster.uhra`) unchanged — BK
clustering at ``J``, nearest-point-next order, greedy groups, leftovers, refinement — with the
closing test "size ≥ k and **basic β-likeness** (default β = 1)" instead of t-closeness; leftovers
that fit no group are suppressed. β comes from a ``BetaLikeness`` model when one is given; any
t-closeness model given as well is also enforced. Releases say ``algorithm: "k-primacy
(reconstructed)"`` and ``notes['reconstructed'] = True``.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from anonkit.algorithms.cluster.uhra import DEFAULT_SMALL_CLUSTER, MAX_PASSES, MaxPasses, SmallCluster, run_uhra
from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, MaxSuppression
from anonkit.algorithms.spec import algorithm
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.table import Table

#: Default β of the basic β-likeness test (spec §6).
DEFAULT_BETA = 1.0
LABEL = "k-primacy (reconstructed)"


@algorithm(
    "k-primacy",
    family="cluster",
    summary="reconstructed baseline of paper A: UHRA's pipeline closing groups on basic β-likeness "
    "(β from a beta-likeness model, default 1) instead of t-closeness",
    enforces=("k-anonymity", "beta-likeness", "t-closeness", "background-knowledge"),
    needs=("priors",),
    progress="grouping background-knowledge clusters",
    bk_test="pairwise",
    reconstructed=True,
)
def k_primacy(
    table: Table,
    models: list[Criterion],
    *,
    priors: Any = None,
    max_suppression: MaxSuppression = DEFAULT_MAX_SUPPRESSION,
    small_cluster: SmallCluster = DEFAULT_SMALL_CLUSTER,
    max_passes: MaxPasses = MAX_PASSES,
    beta: Annotated[float, Field(gt=0)] = DEFAULT_BETA,
) -> Release:
    """k-primacy (reconstructed), see the module docstring.

    Parameters
    ----------
    max_suppression:
        Share of the records the models may suppress.
    small_cluster:
        A background-knowledge cluster of fewer than k records is suppressed or merged.
    max_passes:
        The refinement's cap on passes.
    beta:
        β of the closing basic β-likeness test when no beta-likeness model gives one.
    """
    rel = run_uhra(table, models, priors=priors, max_suppression=max_suppression, small_cluster=small_cluster,
                   reference="table", max_passes=max_passes, algorithm=LABEL, default_beta=beta)
    rel.notes["reconstructed"] = True
    return rel
