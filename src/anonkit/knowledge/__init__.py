"""Background-knowledge adversary model (issue 5): priors, posteriors and Jensen–Shannon checks.

::

    from anonkit.knowledge import kernel_priors, omega_posterior, group_is_bk_safe, jsd

    priors = kernel_priors(table, "salary-class")          # P(SA | QI) per distinct QI tuple
    p = priors.per_record()                                # (n × S)
    group_is_bk_safe(p[members], counts_of_group, J=0.8)   # JSD(prior, posterior) ≤ J for all
"""

from anonkit.knowledge.clustering import BKClustering, bk_clusters
from anonkit.knowledge.divergence import jsd, kl
from anonkit.knowledge.posterior import (
    EXACT_MAX,
    exact_posterior,
    group_is_bk_safe,
    omega_posterior,
    omega_posterior_groups,
)
from anonkit.knowledge.priors import (
    Priors,
    classifier_priors,
    incremental_priors,
    kernel_priors,
    matrix_priors,
    transition_matrix,
)

__all__ = [
    "EXACT_MAX",
    "BKClustering",
    "Priors",
    "bk_clusters",
    "classifier_priors",
    "exact_posterior",
    "group_is_bk_safe",
    "incremental_priors",
    "jsd",
    "kernel_priors",
    "kl",
    "matrix_priors",
    "omega_posterior",
    "omega_posterior_groups",
    "transition_matrix",
]
