"""Attack simulators run against a release (spec §2.8)."""

from anonkit.analytics.attacks import (
    AttackReport,
    background_knowledge_attack,
    background_knowledge_exclusion_attack,
    homogeneity_attack,
)

__all__ = [
    "AttackReport",
    "background_knowledge_attack",
    "background_knowledge_exclusion_attack",
    "homogeneity_attack",
]
