"""The report's section "Utility of the perturbed values": present when the run's summary has
``perturbed_utility`` (a release of the ``perturb`` family; :mod:`anonkit.metrics.perturbed`), absent
otherwise (no empty section).

One table — IL1s and the eigenvalue measure (sdcMicro's ``dUtility``), the correlations' changes, the
regression coefficients' interval overlap, and per changed category column the share of changed
values and the distances of its margin and two-way tables — and one figure: how much each changed
column moved, and, when regressions were compared, each coefficient's interval overlap. The section
shows figures and column names only, never a value of the input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from anonkit.report import figures
from anonkit.report._markup import Page, note, number, share, table

__all__ = ["perturbed_figure", "perturbed_section"]


def _numeric_rows(page: Page, n: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    rows = [("IL1s (sdcMicro dUtility, sum over values)", number(n.get("il1s")), "lower is better"),
            ("IL1s per value (Mateo-Sanz et al.)", number(n.get("il1s_mean")), "0: unchanged; in units of σ·√2"),
            ("eigenvalue measure (sdcMicro dUtility)", number(n.get("eigen")), "0: the same correlation structure")]
    for name, col in (n.get("per_column") or {}).items():
        rows.append((f"{page.text(name)}: mean absolute change", number(col.get("mean_abs_change")),
                     f"values changed: {share(col.get('changed'))}"))
    c = n.get("correlations")
    if c:
        rows.append(("correlations: largest / mean absolute change",
                     f"{number(c.get('max_abs_difference'))} / {number(c.get('mean_abs_difference'))}",
                     "pairs with a changed column"))
    r = n.get("regressions")
    if r:
        rows.append((f"regression coefficients: {share(r.get('level'))} interval overlap, mean / lowest",
                     f"{number(r.get('mean_overlap'))} / {number(r.get('min_overlap'))}",
                     "1: the same interval; below 0: apart (Karr et al. 2006)"))
    return rows


def _categorical_rows(page: Page, cat: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    rows = [(f"{page.text(name)}: values changed", share(v),
             f"margin distance (TVD) {number((cat.get('margin_tvd') or {}).get(name))}")
            for name, v in (cat.get("changed") or {}).items()]
    if cat.get("max_pair_tvd") is not None:
        rows.append(("two-way tables: largest / mean TVD",
                     f"{number(cat['max_pair_tvd'])} / {number(cat.get('mean_pair_tvd'))}",
                     "pairs with a changed column; 0: the same table"))
    return rows


@figures._styled
def perturbed_figure(pu: Mapping[str, Any]) -> Figure:
    """How far each changed column moved (numbers: IL1s per value; categories: the share of values
    changed) and, with regressions, each coefficient's interval overlap (1 = the same interval)."""
    bars: list[tuple[str, float, str]] = []
    n, cat = pu.get("numeric") or {}, pu.get("categorical") or {}
    records = max(int(pu.get("records") or 0), 1)
    for name, col in (n.get("per_column") or {}).items():
        bars.append((f"{name} (IL1s per value)", float(col.get("il1s") or 0.0) / records, figures.BLUE))
    for name, v in (cat.get("changed") or {}).items():
        bars.append((f"{name} (share changed)", float(v), figures.ORANGE))
    overlaps = [(f"{m['response']} ~ {c['term']}", c["overlap"]) for m in ((n.get("regressions") or {}).get("models")
                or []) for c in m.get("coefficients") or [] if c.get("overlap") is not None]
    fig = figures._figure(8.0, 0.9 + 0.3 * max(len(bars), len(overlaps), 2))
    axes = fig.subplots(1, 2 if overlaps else 1, squeeze=False)[0]
    ax = axes[0]
    y = np.arange(len(bars))
    ax.barh(y, [b[1] for b in bars], color=[b[2] for b in bars])
    ax.set_yticks(y, [figures._short(b[0]) for b in bars])
    ax.invert_yaxis()
    ax.set_xlabel("how far the published values moved (lower is better)")
    if overlaps:
        ax2 = axes[1]
        y2 = np.arange(len(overlaps))
        vals = [o[1] for o in overlaps]
        ax2.barh(y2, vals, color=[figures.OK if v >= 0.5 else figures.FAIL for v in vals])
        ax2.set_yticks(y2, [figures._short(o[0]) for o in overlaps])
        ax2.invert_yaxis()
        ax2.axvline(1.0, color=figures.GREY, lw=0.8)
        ax2.set_xlabel("confidence-interval overlap (1 = the same)")
    return fig


def perturbed_section(page: Page, summary: Mapping[str, Any]) -> str:
    """The section, or ``""`` when the summary has no perturbed-utility figures."""
    pu = summary.get("perturbed_utility")
    if not pu:
        return ""
    rows: list[tuple[str, str, str]] = []
    if pu.get("numeric"):
        rows += _numeric_rows(page, pu["numeric"])
    if pu.get("categorical"):
        rows += _categorical_rows(page, pu["categorical"])
    body = note(f"Each of the {pu.get('records', 0):,} published records compared with its own original record "
                "(the release's private link; rows are published shuffled). The class-based measures above say "
                "little about a perturbed release; these do.")
    body += table(["figure", "value", "meaning"], rows)
    body += page.figure("fig-perturbed-utility", perturbed_figure(pu),
                        "Per changed column: how far its published values moved; right, when regressions were "
                        "compared: each coefficient's confidence-interval overlap (green ≥ 0.5).")
    return f'<section id="perturbed-utility"><h3>Utility of the perturbed values</h3>{body}</section>'
