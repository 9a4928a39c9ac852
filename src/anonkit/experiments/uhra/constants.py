"""The experiment's settings: the methods, the data sets' columns and sizes, the thresholds, the
report's width and the progress callback's type."""

from __future__ import annotations

from collections.abc import Callable

#: line width of the printed report (a terminal's, so the CLI does not re-wrap it)
WIDTH = 78
def _paper_methods() -> tuple[str, ...]:
    """Paper A's three methods as the registry declares them: the algorithms that enforce the
    background-knowledge model, the proposed one (UHRA) first, then the reconstructed baselines."""
    from anonkit.algorithms.registry import algorithms

    bk = [a for a in algorithms().values() if not isinstance(a.enforces, str) and "background-knowledge" in a.enforces]
    return tuple(a.display for a in sorted(bk, key=lambda a: a.reconstructed))


#: the three methods of the paper, in its order: UHRA, BKA-JS, k-primacy (their display names)
METHODS = _paper_methods()
PROPOSED, BKA_JS, K_PRIMACY = METHODS
#: the attack table's extra baselines (no background-knowledge model), by display name
BASELINES = ("Mondrian", "Flash")
DATASETS = ("adult", "bkseq")
ADULT_QIS = ("age", "sex", "education")
ADULT_SENSITIVE = "salary-class"
BKSEQ_QIS = ("gender", "age", "weight")
BKSEQ_SENSITIVE = "disease"
BKSEQ_RELEASES = 24
BKSEQ_RECORDS = 4000
QUICK_ADULT_RECORDS = 2000
QUICK_BKSEQ_RECORDS = 600
#: Flash's suppression limit in the attack table
FLASH_SUPPRESSION = 0.05
#: the background-knowledge attack's breach threshold (posterior of the true value)
BREACH_THRESHOLD = 0.8
#: "flat" runtime (paper Figure 4): every runtime at J ≥ 0.3 within this share of their mean
FLAT_TOLERANCE = 0.25
DEFAULT_OUT = "uhra-experiment"

Progress = Callable[[int, int, str], None]
