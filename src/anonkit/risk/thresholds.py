"""The audit's default thresholds (``audit: {thresholds: …}`` in a config; ``anonkit audit``).

These are anonkit's defaults, each a share in [0, 1]; a data holder sets its own:

* ``highest_risk`` 0.2: no record's re-identification risk above 1 in 5 (5-anonymity) — the
  threshold anonkit's summary has always used for "records at risk";
* ``average_risk`` 0.05: the average risk, an order of magnitude below the highest, as thresholds
  for public releases in the health de-identification literature (El Emam) tend to be;
* ``population_uniqueness`` 0.01: at most 1 % of the population unique in the released
  quasi-identifiers;
* ``attack_risk`` 0.1: an attack's risk estimate — its success beyond the control set's, else beyond
  a baseline guesser's, else its success rate — at most 10 %.
"""

DEFAULT_HIGHEST_RISK = 0.2
DEFAULT_AVERAGE_RISK = 0.05
DEFAULT_POPULATION_UNIQUENESS = 0.01
DEFAULT_ATTACK_RISK = 0.1

__all__ = ["DEFAULT_ATTACK_RISK", "DEFAULT_AVERAGE_RISK", "DEFAULT_HIGHEST_RISK", "DEFAULT_POPULATION_UNIQUENESS"]
