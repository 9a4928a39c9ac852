"""The printed summary's lines for a perturbed release (``summary["perturbed_utility"]``,
:mod:`anonkit.metrics.perturbed`): IL1s, the eigenvalue measure, correlations, the regression
coefficients' interval overlap, and for categories the changed values and the distances of margins
and two-way tables. A release that is not perturbative has no such key and prints nothing."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table as RichTable

from anonkit.cli.printers.units import num, pct

#: most columns named on one line (the rest are in --json)
SHOWN = 4


def _dist(x: object) -> str:
    return "—" if x is None else num(float(x))  # type: ignore[arg-type]


def _listed(values: dict) -> str:
    items = list(values.items())
    text = ", ".join(f"{k} {pct(v)}" for k, v in items[:SHOWN])
    return text + (", …" if len(items) > SHOWN else "")


def add_perturbed_utility(t: RichTable, s: dict) -> None:
    """The perturbed release's utility rows, under Utility."""
    pu = s.get("perturbed_utility")
    if not pu:
        return
    n = pu.get("numeric")
    if n:
        t.add_row("  perturbed numbers: IL1s (sdcMicro)", escape(f"{_dist(n['il1s'])} in all, {_dist(n['il1s_mean'])}"
                  f" per value (σ·√2 units) over {', '.join(n['columns'])}"), "lower")
        t.add_row("  eigenvalue measure (sdcMicro)", _dist(n.get("eigen")), "lower")
        c = n.get("correlations")
        if c:
            t.add_row("  correlations changed by", f"largest {_dist(c['max_abs_difference'])}, "
                      f"mean {_dist(c['mean_abs_difference'])}", "lower")
        r = n.get("regressions")
        if r:
            t.add_row(f"  regression intervals' overlap ({pct(r['level'])})",
                      f"mean {_dist(r['mean_overlap'])}, lowest {_dist(r['min_overlap'])} (1 = the same)", "higher")
    cat = pu.get("categorical")
    if cat:
        t.add_row("  perturbed categories: values changed", escape(_listed(cat["changed"])), "lower")
        worst = max(cat["margin_tvd"].values(), default=0.0)
        pairs = "" if cat.get("max_pair_tvd") is None else (
            f"; two-way tables largest {_dist(cat['max_pair_tvd'])}, mean {_dist(cat['mean_pair_tvd'])}")
        t.add_row("  distribution distance (TVD)", f"margins largest {_dist(worst)}{pairs}", "lower")
