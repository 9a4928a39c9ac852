"""Every record's sdcMicro risk figures in one frame, and the file's totals: what ``anonkit risk`` prints.

One call gives, per input record and in input order (so a row of the result is the same row of the
input), sdcMicro 5.8's figures on the key variables:

* ``fk``, ``Fk``, ``risk`` — sample frequency, its population estimate from the sampling weights and
  the individual risk (Benedetti–Franconi, sdcMicro's default approximation; ``1 / fk`` without weights,
  the data then being the population): ``measure_risk(x, keyVars, w)`` (:func:`anonkit.risk.survey_risk`);
* ``household_risk`` with a household column: ``1 − Π (1 − r_i)`` over the household's members
  (``measure_risk(…, hid)``'s ``hier_risk``);
* ``suda`` and ``dis_suda`` when asked: SUDA2's score and DIS-SUDA score (``suda2(x, variables,
  missing, DisFraction)``, :func:`anonkit.risk.suda2`), with sdcMicro's default sampling fraction 0.01
  unless another is given — the same call a user would make in R, so the two tools can be compared
  record by record (``anonkit check --suda2`` derives the fraction from the weights instead).

The totals: ``expected_reidentifications`` (sum of ``risk``), ``global_risk`` (its mean), the number of
sample uniques, with households ``household_expected_reidentifications`` and ``household_global_risk``,
and optionally the log-linear model's ``gr1``/``gr2`` (``modRisk`` with its default method, the keys as
factors, :func:`anonkit.risk.loglinear_risk`). A missing key value (``None``, ``NaN``) matches any
value, as in sdcMicro. The columns named are checked before any figure is computed: an unknown or
repeated column, a weight or household column that is also a key, a weight that is not a number ≥ 1,
a missing household id — each one line naming the column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.pseudonyms import survey_weights
from anonkit.risk._keys import key_codes
from anonkit.risk.loglinear import loglinear_risk
from anonkit.risk.suda2 import DEFAULT_DIS_FRACTION, suda2
from anonkit.risk.survey import survey_risk

__all__ = ["RECORD_COLUMNS", "RecordRisks", "record_risks"]

#: the per-record columns, in the order they are written (those not asked for are left out)
RECORD_COLUMNS = ("fk", "Fk", "risk", "household_risk", "suda", "dis_suda")


@dataclass(frozen=True)
class RecordRisks:
    """The per-record figures (``records``: one row per input record, in input order) and the totals."""

    records: pd.DataFrame
    keys: tuple[str, ...]
    weight: str | None
    household: str | None
    totals: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The totals as JSON-ready values (the per-record frame is left out)."""
        return {"keys": list(self.keys), "weight": self.weight, "household": self.household, **self.totals}

    def riskiest(self, count: int) -> np.ndarray:
        """The positions of the ``count`` records of highest risk, highest first (ties: input order)."""
        risk = self.records["risk"].to_numpy()
        order = np.lexsort((np.arange(risk.size), -risk))
        return order[:count]


def _check_columns(data: pd.DataFrame, keys: list[str], weight: str | None, household: str | None) -> None:
    """Refuse, before any work, a column the data lack or one named in two roles."""
    if not keys:
        raise InputError("no key variable was given: name the columns an intruder may know, e.g. --qi age,sex",
                         key="--qi")
    for name, flag in [*((k, "--qi") for k in keys), (weight, "--weight"), (household, "--household")]:
        if name is not None and name not in data.columns:
            raise InputError(f"{flag} names a column the data do not have; its columns: "
                             f"{', '.join(map(str, data.columns))}", column=str(name), key=flag)
    if len(set(keys)) != len(keys):
        dup = next(k for k in keys if keys.count(k) > 1)
        raise InputError("--qi names a column twice: list each key variable once", column=dup, key="--qi")
    for name, flag in ((weight, "--weight"), (household, "--household")):
        if name is not None and name in keys:
            raise InputError(f"{flag} names a key variable: the {flag[2:]} column is not one of --qi", column=name,
                             key=flag)
    if weight is not None and weight == household:
        raise InputError("--weight and --household name the same column: a weight is a number per record, a "
                         "household an id its members share", column=weight, key="--household")


def _households(column: pd.Series, name: str) -> np.ndarray:
    """Household ids as codes (ids compared as text, blanks stripped); a record without one is refused: it
    cannot be given a household risk, and joining such records into one household would join strangers."""
    text = column.astype(object).map(lambda v: v.strip() if isinstance(v, str) else v)
    missing = text.isna().to_numpy() | (text.astype(str) == "").to_numpy()
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise InputError("a household id is missing: every record needs its household", column=name, row=row + 1,
                         key="--household")
    return pd.factorize(text.astype(str))[0].astype(np.int64)


def record_risks(data: pd.DataFrame, keys: Sequence[str], *, weight: str | None = None,
                 household: str | None = None, suda: bool = False, suda_max_size: int | None = None,
                 dis_fraction: float = DEFAULT_DIS_FRACTION, loglinear: bool = False) -> RecordRisks:
    """sdcMicro's per-record risk figures of ``data`` on the key columns ``keys`` (see the module docstring).

    ``weight`` and ``household`` name columns of ``data``; ``suda`` adds SUDA2 up to ``suda_max_size``
    key variables (all by default) with ``dis_fraction`` (sdcMicro's ``DisFraction``); ``loglinear`` adds
    the log-linear model's global risk (which needs every key value).
    """
    if not isinstance(data, pd.DataFrame):
        raise InputError("the data must be a pandas DataFrame", value=type(data).__name__)
    keys = [str(k) for k in keys]
    _check_columns(data, keys, weight, household)
    n = len(data)
    w = None if weight is None else survey_weights(data[weight], weight)  # the weight role's check
    hh = None if household is None else _households(data[household], household)
    codes = key_codes(data, keys)
    if suda and suda_max_size is not None and (isinstance(suda_max_size, bool) or not isinstance(suda_max_size, int)
                                               or not 1 <= suda_max_size <= len(keys)):
        raise InputError(f"the SUDA2 maximum size must be a whole number from 1 to the {len(keys)} key variables",
                         value=suda_max_size, key="--suda-max-size")
    if loglinear and (codes < 0).any():  # the model needs every cell: refused before any figure is computed
        row, col = (int(i) for i in np.argwhere(codes < 0)[0])
        raise InputError("--loglinear needs every key value (the log-linear model has no wildcard): a key value is "
                         "missing; leave out --loglinear or fill the value", column=keys[col], row=row + 1,
                         key="--loglinear")
    res = survey_risk(codes, weights=w, households=hh)
    fk = res.fk.astype(np.int64) if np.array_equal(res.fk, np.round(res.fk)) else res.fk  # whole counts (alpha = 1)
    records = {"fk": fk, "Fk": res.Fk, "risk": res.risk}
    if res.household_risk is not None:
        records["household_risk"] = res.household_risk
    totals: dict[str, Any] = {
        "records": n,
        "sample_uniques": int(np.sum(res.fk == 1)),
        "expected_reidentifications": res.expected_reidentifications,
        "global_risk": res.global_risk,
        "max_risk": float(res.risk.max()) if n else 0.0,
    }
    if res.household_risk is not None:
        totals["household_expected_reidentifications"] = res.household_expected_reidentifications
        totals["household_global_risk"] = res.household_global_risk
    if suda:
        s = suda2(codes, max_size=suda_max_size, dis_fraction=dis_fraction)
        records["suda"] = s.score
        records["dis_suda"] = s.dis_score
        totals["suda2"] = {"max_size": s.max_size, "dis_fraction": s.dis_fraction,
                           "records_with_msu": int(np.sum(s.score > 0)),
                           "attribute_contributions": dict(zip(keys, s.attribute_contributions.values(),
                                                               strict=True))}
    if loglinear:
        totals["loglinear"] = loglinear_risk(data, keys, weights=w).to_dict()
    frame = pd.DataFrame(records, index=pd.RangeIndex(n))
    return RecordRisks(frame, tuple(keys), weight, household, totals)
