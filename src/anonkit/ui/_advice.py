"""The application's window on the advice layer (:mod:`anonkit.start`, :mod:`anonkit.fixes`).

Each function calls the advice library when it is installed with the package (it is built beside the
application) and otherwise gives a plain, conservative answer that says so, so every step of the
application works either way: columns typed by their values with no role suggested, numeric
quasi-identifiers cut into ten-ish intervals, no risk mode and no proposed fix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = [
    "ColumnHint",
    "apply_fix",
    "auto_hierarchy",
    "fixes_available",
    "hints",
    "models_for_risk",
    "propose_fixes",
]

#: the roles a column can take here, as the config names them: the survey roles weight and household too
#: (a pseudonym is left out: its key must come from a file or an environment variable, not a browser form)
ROLES = ("quasi", "sensitive", "insensitive", "identifier", "person", "weight", "household")
#: the types a column can take (``None``: inferred from the values)
TYPES = ("categorical", "numeric", "date", "ordinal")


@dataclass
class ColumnHint:
    """What the application suggests for one column: its type, role and why."""

    name: str
    type: str
    role: str
    reason: str
    candidates: list[str] = field(default_factory=list)


def _library(name: str) -> Any | None:
    try:
        if name == "start":
            import anonkit.start as start

            return start
        import anonkit.fixes as fixes

        return fixes
    except ImportError:
        return None


def _numeric(values: pd.Series) -> bool:
    texts = values.dropna().astype(str).str.strip()
    texts = texts[texts != ""]
    return bool(len(texts)) and pd.to_numeric(texts, errors="coerce").notna().all()


def hints(frame: pd.DataFrame) -> list[ColumnHint]:
    """A type, role and reason per column (:func:`anonkit.start.suggest_roles` when installed)."""
    start = _library("start")
    if start is not None:
        out = []
        for a in start.suggest_roles(frame):
            others = (getattr(a, "candidates", ()) or ())[1:]
            out.append(ColumnHint(name=str(a.name), type=str(a.type), role=str(a.role), reason=str(a.reason),
                                  candidates=[str(getattr(c, "role", c)) for c in others]))
        return out
    return [ColumnHint(str(c), "numeric" if _numeric(frame[c]) else "categorical", "insensitive",
                       "no suggestion: choose a role") for c in frame.columns]


def auto_hierarchy(values: pd.Series, *, name: str, type: str) -> dict[str, Any] | None:
    """An inline builder spec for the column (:func:`anonkit.start.auto_hierarchy` when installed)."""
    start = _library("start")
    if start is not None:
        return dict(start.auto_hierarchy(values, name=name, type=type))
    if type != "numeric" or not _numeric(values):
        return None
    nums = pd.to_numeric(values.dropna().astype(str).str.strip(), errors="coerce")
    span = float(nums.max() - nums.min()) or 1.0
    width = 10 ** math.floor(math.log10(span / 10)) if span >= 10 else 1
    return {"builder": "intervals", "width": width}


def models_for_risk(*, highest: float | None = None, average: float | None = None) -> list[dict[str, Any]]:
    """The privacy models that bound the re-identification risk (:func:`anonkit.start.models_for_risk`)."""
    start = _library("start")
    if start is not None:
        return [dict(m) for m in start.models_for_risk(highest=highest, average=average)]
    # a class of k records gives each a risk of 1/k (the prosecutor's model); the average is at most the highest
    bounds = [b for b in (highest, average) if b is not None]
    if not bounds:
        return []
    return [{"model": "k-anonymity", "k": max(2, math.ceil(1 / min(bounds) - 1e-9))}]


def fixes_available() -> bool:
    """Whether the fix proposer is installed."""
    return _library("fixes") is not None


def propose_fixes(plan: Any, *, result: Any = None, progress: Any = None) -> list[Any]:
    """The smallest changes that make the audit pass (:func:`anonkit.fixes.propose_fixes`), or none."""
    fixes = _library("fixes")
    return [] if fixes is None else list(fixes.propose_fixes(plan, result=result, progress=progress))


def apply_fix(config: dict[str, Any], fix: Any) -> dict[str, Any]:
    """``config`` with ``fix`` applied (:func:`anonkit.fixes.apply_fix`)."""
    fixes = _library("fixes")
    if fixes is None:
        raise RuntimeError("anonkit.fixes is not installed")
    return dict(fixes.apply_fix(config, fix))


def apply_change(config: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """``config`` with the dotted keys of ``change`` set (:func:`anonkit.fixes.change.apply_change`)."""
    from anonkit.fixes.change import apply_change as apply_dotted

    return dict(apply_dotted(config, change))
