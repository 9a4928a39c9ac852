"""Figures worded for people: shares as rounded percentages, risks as "1 in N", counts with separators."""

from __future__ import annotations

#: how a table shows a word too long for its column: folded onto the next line, never cut with "…"
#: (an attribute name, a label or a path is read whole)
OVERFLOW = "fold"


def pct(x: float, digits: int = 3) -> str:
    """A share as a percentage rounded for people: 0.2469 → "24.7 %", 0 → "0 %"."""
    if x == 0:
        return "0 %"
    v = 100.0 * x
    text = f"{v:.{digits}g}" if abs(v) >= 0.001 else f"{v:.1e}"
    return f"{text} %"


def one_in(risk: float) -> str:
    """A probability as a percentage and "1 in N": 0.2 → "20 % (1 in 5)"."""
    if risk <= 0:
        return "0 %"
    return f"{pct(risk)} (1 in {1.0 / risk:,.0f})"


def num(x: object) -> str:
    """A number for people: whole numbers with thousands separators, others to 4 significant digits, NaN as —."""
    if isinstance(x, float):
        if x != x:
            return "—"
        return f"{x:,.0f}" if x.is_integer() and abs(x) < 1e15 else f"{x:.4g}"
    if isinstance(x, int):
        return f"{x:,}"
    return str(x)


def ci(pair: list[float] | None) -> str:
    """A 95 % interval as "[low %, high %]" (empty when there is none)."""
    return "" if pair is None else f"[{pct(pair[0])}, {pct(pair[1])}]"


def metric_name(metric: dict) -> str:
    """The search metric's name as the summary shows it (ARX Loss with its parameters)."""
    name = metric["name"]
    if name == "loss":
        return f"ARX Loss, gs {metric['gs']:g}, {metric['aggregate']}"
    return {"dm": "discernibility", "dm*": "discernibility (DM*)", "aecs": "average class size (AECS)",
            "entropy": "non-uniform entropy", "precision": "precision loss", "height": "generalization height"}.get(
        name, name)
