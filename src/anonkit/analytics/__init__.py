"""Analytics on a table or a release: attribute leakage before anonymizing (pre-analytics, paper C),
what a release still lets an attacker infer and fake records that hide it (post-analytics), and
attack simulators (spec §2.8). Names are loaded on first use (a run that
imports one module of the package does not load the others, nor scipy).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonkit._lazy import lazy_names as _lazy_names

if TYPE_CHECKING:
    from anonkit.analytics.adversary import inference_attack, linkability_attack, singling_out_attack
    from anonkit.analytics.attacks import (
        AttackReport,
        background_knowledge_attack,
        background_knowledge_exclusion_attack,
        homogeneity_attack,
    )
    from anonkit.analytics.class_attacks import (
        attack_background_knowledge,
        attack_homogeneity,
        attack_similarity,
        attack_skewness,
    )
    from anonkit.analytics.cover import Cover, build_cover, population_counts, row_covers
    from anonkit.analytics.leakage import leakage, normalized_leakage
    from anonkit.analytics.matching import unsorted_matching_attack
    from anonkit.analytics.post import FakeInjection, PostAnalytics, fakes_needed, inject_fakes, post_analytics
    from anonkit.analytics.published import (
        PublishedRelease,
        private_rows,
        published_buckets,
        published_release,
        published_table,
    )

# ``leakage`` names a function and the submodule defining it: importing the submodule (as other
# modules do) would bind the package's ``leakage`` to the module, so the function is bound up front
# (the module needs numpy and pandas only)
from anonkit.analytics.leakage import leakage, normalized_leakage

#: public name → the module that defines it
_LAZY = {
    "AttackReport": "anonkit.analytics.attacks",
    "Cover": "anonkit.analytics.cover",
    "FakeInjection": "anonkit.analytics.post",
    "PostAnalytics": "anonkit.analytics.post",
    "PublishedRelease": "anonkit.analytics.published",
    "attack_background_knowledge": "anonkit.analytics.class_attacks",
    "attack_homogeneity": "anonkit.analytics.class_attacks",
    "attack_similarity": "anonkit.analytics.class_attacks",
    "attack_skewness": "anonkit.analytics.class_attacks",
    "background_knowledge_attack": "anonkit.analytics.attacks",
    "background_knowledge_exclusion_attack": "anonkit.analytics.attacks",
    "build_cover": "anonkit.analytics.cover",
    "fakes_needed": "anonkit.analytics.post",
    "homogeneity_attack": "anonkit.analytics.attacks",
    "inference_attack": "anonkit.analytics.adversary",
    "inject_fakes": "anonkit.analytics.post",
    "linkability_attack": "anonkit.analytics.adversary",
    "population_counts": "anonkit.analytics.cover",
    "post_analytics": "anonkit.analytics.post",
    "private_rows": "anonkit.analytics.published",
    "published_buckets": "anonkit.analytics.published",
    "published_release": "anonkit.analytics.published",
    "published_table": "anonkit.analytics.published",
    "row_covers": "anonkit.analytics.cover",
    "singling_out_attack": "anonkit.analytics.adversary",
    "unsorted_matching_attack": "anonkit.analytics.matching",
}

__all__ = [
    "AttackReport",
    "Cover",
    "FakeInjection",
    "PostAnalytics",
    "PublishedRelease",
    "attack_background_knowledge",
    "attack_homogeneity",
    "attack_similarity",
    "attack_skewness",
    "background_knowledge_attack",
    "background_knowledge_exclusion_attack",
    "build_cover",
    "fakes_needed",
    "homogeneity_attack",
    "inference_attack",
    "inject_fakes",
    "leakage",
    "linkability_attack",
    "normalized_leakage",
    "population_counts",
    "post_analytics",
    "private_rows",
    "published_buckets",
    "published_release",
    "published_table",
    "row_covers",
    "singling_out_attack",
    "unsorted_matching_attack",
]


__getattr__, __dir__ = _lazy_names('anonkit.analytics', _LAZY, globals())
