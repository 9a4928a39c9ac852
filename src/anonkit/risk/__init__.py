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

sdcMicro's measures on survey microdata, per record (key variables, optional sampling weights and
household ids; missing key values match anything):

* :func:`sample_frequencies`, :func:`individual_risk`, :func:`household_risk`, :func:`survey_risk` —
  fk/Fk, Benedetti–Franconi risk, global risk, expected re-identifications, household risk
  (sdcMicro ``freqCalc``, ``indivRisk``, ``measure_risk``);
* :func:`loglinear_risk` — log-linear model risk (``modRisk``);
* :func:`suda2` — minimal sample uniques, SUDA and DIS-SUDA scores, attribute contributions (``suda2``);
* :func:`record_risks` — all of them per record in one frame, in input order, and the file's totals
  (``anonkit risk``).

Results are frozen dataclasses; ``to_dict()`` gives JSON-ready dicts.
"""

from anonkit.risk._keys import key_codes
from anonkit.risk._newton import ARX_START_VALUES, SolverConfig
from anonkit.risk.distribution import (
    RISK_BINS,
    ClassSizeHistogram,
    RiskDistribution,
    class_size_histogram,
    risk_distribution,
)
from anonkit.risk.loglinear import LogLinearRisk, loglinear_risk
from anonkit.risk.population import (
    MODELS,
    REGIONS,
    PopulationUniqueness,
    population_size,
    population_uniqueness,
    sample_uniqueness,
)
from anonkit.risk.records import RecordRisks, record_risks
from anonkit.risk.reidentification import AttackerRisk, MarketerRisk, ReidentificationRisk, reidentification_risk
from anonkit.risk.suda2 import Suda2Result, suda2
from anonkit.risk.survey import (
    SampleFrequencies,
    SurveyRisk,
    household_risk,
    individual_risk,
    sample_frequencies,
    survey_risk,
)

__all__ = [
    "ARX_START_VALUES",
    "MODELS",
    "REGIONS",
    "RISK_BINS",
    "AttackerRisk",
    "ClassSizeHistogram",
    "LogLinearRisk",
    "MarketerRisk",
    "PopulationUniqueness",
    "RecordRisks",
    "ReidentificationRisk",
    "RiskDistribution",
    "SampleFrequencies",
    "SolverConfig",
    "Suda2Result",
    "SurveyRisk",
    "class_size_histogram",
    "household_risk",
    "individual_risk",
    "key_codes",
    "loglinear_risk",
    "population_size",
    "population_uniqueness",
    "record_risks",
    "reidentification_risk",
    "risk_distribution",
    "sample_frequencies",
    "sample_uniqueness",
    "suda2",
    "survey_risk",
]
