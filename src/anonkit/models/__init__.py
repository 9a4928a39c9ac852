"""Privacy models. Each judges equivalence classes from their statistics (spec §1).

Each model is declared once, beside its class (:func:`anonkit.models.spec.privacy_model`: names,
parameters with their ranges, the statistics it needs, monotonicity); the constructors, the config's
``privacy:`` entries and ``anonkit.models.registry.describe_all()`` all read that declaration.
"""

from anonkit.models.base import Criterion
from anonkit.models.differential_privacy import DifferentialPrivacy
from anonkit.models.individual_risk import IndividualRisk
from anonkit.models.kanonymity import KAnonymity
from anonkit.models.kmap import EstimatedKMap, KMap
from anonkit.models.knowledge import BackgroundKnowledge
from anonkit.models.ldiversity import (
    DistinctLDiversity,
    EntropyLDiversity,
    FrequencyLDiversity,
    RecursiveCLDiversity,
)
from anonkit.models.likeness import BetaLikeness, DeltaDisclosure
from anonkit.models.presence import DeltaPresence
from anonkit.models.profitability import (
    JournalistNoAttackProfitability,
    JournalistProfitability,
    NoAttackProfitability,
    Profitability,
)
from anonkit.models.risk_criteria import AverageRisk, PopulationUniquenessRisk, SampleUniquenessRisk
from anonkit.models.tcloseness import TCloseness
from anonkit.models.theta import ThetaSensitivity

__all__ = [
    "AverageRisk",
    "BackgroundKnowledge",
    "BetaLikeness",
    "Criterion",
    "DeltaDisclosure",
    "DeltaPresence",
    "DifferentialPrivacy",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "EstimatedKMap",
    "FrequencyLDiversity",
    "IndividualRisk",
    "JournalistNoAttackProfitability",
    "JournalistProfitability",
    "KAnonymity",
    "KMap",
    "NoAttackProfitability",
    "PopulationUniquenessRisk",
    "Profitability",
    "RecursiveCLDiversity",
    "SampleUniquenessRisk",
    "TCloseness",
    "ThetaSensitivity",
]
