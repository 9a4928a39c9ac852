"""The independent check of a DP synthetic table (algorithm ``dp-synthetic``, issue 29): what the
method promises, recounted from the published table and the declared domain, never from the
synthesizer's bookkeeping.

What a DP synthetic table promises, and what is checked here:

* **exactly the declared columns**, in the input's order: every column the input publishes (no
  identifier, person or id column: they are never synthesized) and no other;
* **every value inside its declared domain**: a declared category (compared as text), or a number
  within the declared bounds — a whole number where the column holds whole numbers; no missing cell;
* **the row count as stated**: ``rows`` when the config gives it, else the noisy total the release
  states it drew.

What it does **not** promise, so nothing here claims it: that no original record appears in it (a
synthetic row may equal a real record by chance, more often for common combinations); the
differential-privacy guarantee itself, which is a property of how the table was made (the noise and
choices drawn by OpenDP), not of the table — no recount from the published data can confirm it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from anonkit.verifier import ModelResult, Verification

__all__ = ["domain_violations", "verify_synthetic"]

#: the name of the one table a DP synthetic release publishes (its declaration's ``tables``)
SYNTHETIC = "synthetic"


def _result(name: str, failing: int) -> ModelResult:
    return ModelResult(name, failing == 0, float(failing), 0 if failing == 0 else 1, int(failing))


def domain_violations(column: pd.Series, declared: Mapping[str, Any], integer: bool) -> int:
    """The cells of ``column`` outside its ``declared`` domain (``{categories}`` or ``{bounds}``)."""
    if column.isna().any():
        return int(column.isna().sum())
    if "categories" in declared:
        allowed = {str(c) for c in declared["categories"]}
        return int((~column.astype(str).isin(allowed)).sum())
    lo, hi = (float(b) for b in declared["bounds"])
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.isnan(values) | (values < lo) | (values > hi)
    if integer:
        bad |= np.where(np.isnan(values), False, values != np.floor(values))
    return int(bad.sum())


def verify_synthetic(table: Any, release: Any, models: list[Any] | None = None) -> Verification:
    """The verdict on a synthetic table from what it publishes (the declaration's ``verifier=``): the
    table read back through its declared name, the domain and row count the release states (its
    ``params`` and ``notes``), the input's columns. The privacy ``models`` are not judged here (the
    audit judges them on the synthetic table)."""
    published = release.tables[SYNTHETIC]
    domain = release.params["domain"]
    expected = [c for c in table.frame.columns]
    same = list(published.columns) == expected and set(domain) == set(expected)
    results = [_result("exactly the declared columns", 0 if same else 1)]
    if same:
        outside = sum(domain_violations(published[c], domain[c], bool(domain[c].get("integer"))) for c in expected)
        results.append(_result("every value inside its declared domain", outside))
    stated = release.params.get("rows") or release.notes.get("synthetic rows")
    rows_ok = stated is not None and len(published) == int(stated)
    results.append(_result("the row count as stated", 0 if rows_ok else 1))
    ok = all(r.passed for r in results)
    n = int(table.n_records)
    suppressed = int(np.count_nonzero(table.presuppressed))
    return Verification(ok=ok, records=n, released=n - suppressed, suppressed=suppressed, classes=release.n_classes,
                        results=results)
