"""Individual risk at most r: sdcMicro's Benedetti–Franconi risk as a criterion for the search (issue 28).

A survey's records carry sampling weights (role ``weight``): each stands for that many people of the
population. For a released class with ``fk`` sample records whose weights sum to ``Fk`` (the
population estimate of the class), the Benedetti–Franconi individual risk — the probability that a
match of one of its records to a person of the population is right, under a negative-binomial model
of the population count given the sample's (sdcMicro's ``indivRisk``, its default approximation) — is,
with ``pk = fk / Fk``::

    fk = 1:   pk / (1 − pk) · log(1 / pk)
    fk = 2:   pk / (1 − pk) − (pk / (1 − pk))² · log(1 / pk)
    fk > 2:   pk / (fk − (1 − pk))
    Fk = fk:  1 / fk                       (the whole population of the class is in the sample)

Every record of a class has its class's risk, so the measure is decidable per class: ``{model:
individual-risk, threshold: r}`` holds when every released class has risk ≤ ``r``. The class statistic
is the per-class sum of weights, :data:`WEIGHT_NEED`, a registered *additive* need (a lattice roll-up
adds it up like the class sizes), built from :attr:`Table.sources` (:func:`attach_survey_weights`: the
weights summed per distinct quasi-identifier tuple, from :attr:`Table.survey_weight`). The verifier
recounts it from the release's published weight column (:func:`published_weight_sums`).

This is :func:`anonkit.risk.survey.individual_risk` on classes (``alpha = 1``, no missing key value:
a released class is a key; a suppressed record is in no class); the tests hold the two equal. It lives
here, not in ``anonkit.risk``, because models sit below the risk measures (they may not import them).

Monotonicity: the risk of a merged class never exceeded the larger of its parts' in 500 000 random
merges, but that is not a proof, so the model is declared non-monotonic (no search prunes on it; every
node is judged). It is not monotonic under suppression either: a failing class merged into a passing
one can make the merged class fail, needing more suppression at the more general node.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.models.base import Criterion
from anonkit.models.spec import Param, privacy_model
from anonkit.stats import ClassInputs, ClassStats, register_class_need

__all__ = ["WEIGHT_NEED", "WEIGHT_SOURCE", "IndividualRisk", "attach_survey_weights", "benedetti_franconi",
           "needs_weights", "published_weight_sums", "require_weight_role"]

#: the class need of the individual-risk model: every class's sum of sampling weights (Fk)
WEIGHT_NEED = "survey-weight-sum"
#: what :attr:`Table.sources` holds for it: the sampling weights summed per distinct quasi-identifier tuple
WEIGHT_SOURCE = WEIGHT_NEED


def _class_weight_sums(inputs: ClassInputs) -> np.ndarray:
    """Fk of every class: the weight sums of its tuples (rows), added up."""
    sums = inputs.sources.get(WEIGHT_SOURCE)
    if sums is None:
        raise InputError("individual-risk needs the survey's sampling weights: give one column role: weight",
                         key="privacy")
    sums = np.asarray(sums, dtype=np.float64)
    if len(sums) != len(inputs.class_of):
        raise InputError("the sampling weights are summed per distinct tuple of the table; these classes are not "
                         "(this algorithm cannot judge individual-risk)", key="algorithm")
    return np.bincount(inputs.class_of, weights=sums, minlength=inputs.n_classes).astype(np.float64, copy=False)


register_class_need(WEIGHT_NEED, _class_weight_sums, additive=True)


def needs_weights(models: Iterable[object]) -> bool:
    """Whether any of ``models`` judges the sampling weights' sums."""
    return any(WEIGHT_NEED in type(m).spec.needs for m in models)  # type: ignore[attr-defined]


def benedetti_franconi(fk: np.ndarray, Fk: np.ndarray) -> np.ndarray:
    """Benedetti–Franconi's individual risk (sdcMicro's default approximation) of ``fk`` sample records
    standing for ``Fk`` population units (``Fk ≥ fk``; a class with ``fk = 0`` has risk 0)."""
    fk = np.asarray(fk, dtype=np.float64)
    Fk = np.asarray(Fk, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        pk = fk / Fk
        odds = pk / (1 - pk)
        log_inv = np.log(1 / pk)
        risk = np.where(fk > 2, pk / (fk - (1 - pk)),
                        np.where(fk == 2, odds - odds**2 * log_inv, odds * log_inv))
        risk = np.where(fk >= Fk, 1.0 / fk, risk)  # the whole population in the sample (all weights 1)
    return np.where(fk > 0, risk, 0.0)


@privacy_model(
    "individual-risk", label="individual risk", needs=("sizes", WEIGHT_NEED),
    summary="every released class's individual risk (sdcMicro's Benedetti–Franconi estimate from the sampling "
            "weights: fk records standing for Fk people) is at most threshold; needs a column role: weight",
    params=(Param("threshold", "number", gt=0, le=1,
                  doc="the highest individual risk of a record (sdcMicro's indivRisk)"),),
    monotonic_generalization=False,
    monotonic_suppression=False,
)
@dataclass(frozen=True)
class IndividualRisk(Criterion):
    threshold: float

    def risks(self, stats: ClassStats) -> np.ndarray:
        """Every class's Benedetti–Franconi risk from its size and weight sum."""
        return benedetti_franconi(stats.sizes, stats.need(WEIGHT_NEED))

    def passes(self, stats: ClassStats) -> np.ndarray:
        return self.risks(stats) <= self.threshold

    def achieved(self, stats: ClassStats) -> float:
        """The highest individual risk of a class (the threshold the classes achieve)."""
        return float(self.risks(stats).max()) if stats.n_classes else 0.0

    def describe(self) -> str:
        return f"individual risk ≤ {self.threshold:g}"


#: the algorithm families that cannot carry the weight sums: they build class statistics from counts already
#: summed (Mondrian's cut kernels) or from published groups (Anatomy's), not from the records or the tuples
UNWEIGHTED_FAMILIES = ("partition", "bucket")


def require_weight_role(schema: object, models: Iterable[Criterion], *, family: str | None = None,
                        algorithm: str | None = None) -> None:
    """Refuse, before any work, a model that judges the sampling weights when the schema has no weight column,
    or with an algorithm of a family that cannot carry the weight sums (:data:`UNWEIGHTED_FAMILIES`)."""
    if not needs_weights(models):
        return
    if getattr(schema, "weight", None) is None:
        raise InputError("individual-risk needs a sampling weight: give one column role: weight (the population "
                         "units each record stands for)", key="privacy")
    if family in UNWEIGHTED_FAMILIES:
        raise InputError(f"individual-risk sums the weights of every class, which {algorithm or family}'s classes do "
                         "not carry: choose a full-domain search (flash, …) or a cluster algorithm (mdav, kaca)",
                         key="algorithm.name")


def attach_survey_weights(table: object, models: Iterable[Criterion]) -> None:
    """Fill ``table.sources`` with the sampling weights summed per distinct tuple when a model needs them
    (refused in one line without a weight column: the risk would be a guess)."""
    if not needs_weights(models):
        return
    weights = getattr(table, "survey_weight", None)
    if weights is None:
        raise InputError("individual-risk needs a sampling weight: give one column role: weight (the population "
                         "units each record stands for)", key="privacy")
    distinct = table.distinct  # type: ignore[attr-defined]
    table.sources[WEIGHT_SOURCE] = np.bincount(  # type: ignore[attr-defined]
        distinct.inverse, weights=np.asarray(weights, dtype=np.float64), minlength=distinct.size)


def published_weight_sums(frame: pd.DataFrame, record_class: np.ndarray, n_classes: int,
                          weight: str | None) -> np.ndarray:
    """Every released class's sum of the *published* weights (the verifier's recount): ``frame`` the released
    rows, ``record_class`` their classes. A missing weight column or a weight that is not a number ≥ 1 is
    refused: the published release must carry what the model was judged on."""
    if weight is None or weight not in frame.columns:
        raise InputError("individual-risk is verified on the release's weight column, which is missing: publish "
                         "the column role: weight", column=weight, key="privacy")
    w = pd.to_numeric(frame[weight].astype("string").str.strip(), errors="coerce").to_numpy(dtype=np.float64,
                                                                                         na_value=np.nan)
    bad = ~np.isfinite(w) | (w < 1.0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError("a published sampling weight is not a number >= 1", column=weight,
                         value=frame[weight].iloc[row], row=row + 1)
    return np.bincount(np.asarray(record_class), weights=w, minlength=n_classes).astype(np.float64)
