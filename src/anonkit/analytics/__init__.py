"""Analytics on a table or a release: attribute leakage before anonymizing (pre-analytics, paper C),
what a release still lets an attacker infer and fake records that hide it (post-analytics), and
attack simulators (spec §2.8)."""

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
