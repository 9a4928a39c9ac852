"""Re-identification risk models on class sizes (ARX compatibility §2.5; ARX ``org.deidentifier.arx.risk``).

Every function takes per released equivalence class its size — records, or persons when a person
column makes classes count people (``Release.class_people()``) — so it serves any release:
full-domain or local recoding, bucketized tables (a QI group is a class), several records per
person. Optional population class sizes (the records of a population table matching each class) or a
population size turn on the journalist and population models.

* :func:`reidentification_risk` — prosecutor, journalist and marketer risk (El Emam; ARX
  ``RiskModelSampleSummary``, ``RiskModelSampleRisks``);
* :func:`sample_uniqueness`, :func:`population_uniqueness` — sample uniques; population uniques by
  Pitman, Zayatz, SNB and Dankar et al.'s rule (ARX ``RiskModelPopulationUniqueness``);
* :func:`risk_distribution`, :func:`class_size_histogram` — how risk spreads over the records (ARX
  ``RiskModelSampleRiskDistribution``, ``RiskModelHistogram``).

Results are frozen dataclasses; ``to_dict()`` gives JSON-ready dicts.
"""

from anonkit.risk._newton import ARX_START_VALUES, SolverConfig
from anonkit.risk.distribution import (
    RISK_BINS,
    ClassSizeHistogram,
    RiskDistribution,
    class_size_histogram,
    risk_distribution,
)
from anonkit.risk.population import (
    MODELS,
    REGIONS,
    PopulationUniqueness,
    population_size,
    population_uniqueness,
    sample_uniqueness,
)
from anonkit.risk.reidentification import AttackerRisk, MarketerRisk, ReidentificationRisk, reidentification_risk

__all__ = [
    "ARX_START_VALUES",
    "MODELS",
    "REGIONS",
    "RISK_BINS",
    "AttackerRisk",
    "ClassSizeHistogram",
    "MarketerRisk",
    "PopulationUniqueness",
    "ReidentificationRisk",
    "RiskDistribution",
    "SolverConfig",
    "class_size_histogram",
    "population_size",
    "population_uniqueness",
    "reidentification_risk",
    "risk_distribution",
    "sample_uniqueness",
]
