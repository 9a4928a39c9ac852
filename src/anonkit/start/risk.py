"""From a re-identification risk a privacy officer states to the privacy models that guarantee it.

"No record above 5 % re-identification risk": a record in a class of ``k`` records that share its
quasi-identifiers is re-identified by a prosecutor with probability ``1/k`` at most (ARX's prosecutor
model), so k-anonymity with ``k = ⌈1/0.05⌉ = 20`` guarantees it
(:func:`anonkit.risk.thresholds.k_for_risk`). "On average at most 1 %": the average of the records'
risks is at most the highest, so ``k = 100`` guarantees that too (a bound, not an estimate: a release
usually does better, which the audit measures).
"""

from __future__ import annotations

import math

from anonkit.errors import InputError
from anonkit.risk.thresholds import k_for_risk


class ModelAdvice(dict):
    """A privacy-model entry of the config (``{model: k-anonymity, k: 20}``: a plain ``dict``, as the
    config's ``privacy:`` list takes it) with ``.explanation``, why it meets the stated target."""

    explanation: str

    def __init__(self, entry: dict, explanation: str) -> None:
        super().__init__(entry)
        self.explanation = explanation


def _pct(share: float) -> str:
    """A share as people write it: 0.05 → ``5 %``, 1/3 → ``33.33 %``."""
    return f"{share * 100:.4g} %"


def _share(value: float | None, key: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) \
            or not 0 < value <= 1:
        raise InputError(f"a re-identification risk is a share in (0, 1] (5 % is 0.05); got {value!r}", key=key,
                         value=value)
    return float(value)


def models_for_risk(*, highest: float | None = None, average: float | None = None) -> list[ModelAdvice]:
    """The privacy models (config entries with ``.explanation``) that guarantee no record's
    re-identification risk above ``highest`` and an average risk of at most ``average`` (shares:
    0.05 is 5 %). One k-anonymity model whose ``k`` meets both; none when neither is given."""
    top, mean = _share(highest, "highest"), _share(average, "average")
    if top is None and mean is None:
        return []
    k_top = k_for_risk(top) if top is not None else 1
    k_mean = k_for_risk(mean) if mean is not None else 1
    k = max(k_top, k_mean, 2)
    said = []
    if top is not None:
        said.append(f"no record above {_pct(top)}")
    if mean is not None:
        said.append(f"an average of at most {_pct(mean)}")
    why = (f"k-anonymity with k = {k}: every record shares its quasi-identifiers with at least {k - 1} others, so "
           f"an attacker who knows them picks the right record with probability 1/{k} = {_pct(1 / k)} at most — "
           f"{' and '.join(said)}")
    if mean is not None and k_mean >= k_top:
        why += " (the average of the records' risks is at most the highest, so the same k bounds it)"
    return [ModelAdvice({"model": "k-anonymity", "k": k}, why)]
