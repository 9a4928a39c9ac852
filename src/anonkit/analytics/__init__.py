"""Analytics on a table or a release: attribute leakage before anonymizing (pre-analytics, paper C),
what a release still lets an attacker infer and fake records that hide it (post-analytics), and
attack simulators (spec §2.8)."""

from anonkit.analytics.attacks import (
    AttackReport,
    background_knowledge_attack,
    background_knowledge_exclusion_attack,
    homogeneity_attack,
)
from anonkit.analytics.leakage import leakage, normalized_leakage
from anonkit.analytics.post import FakeInjection, PostAnalytics, fakes_needed, inject_fakes, post_analytics

__all__ = [
    "AttackReport",
    "FakeInjection",
    "PostAnalytics",
    "background_knowledge_attack",
    "background_knowledge_exclusion_attack",
    "fakes_needed",
    "homogeneity_attack",
    "inject_fakes",
    "leakage",
    "normalized_leakage",
    "post_analytics",
]
