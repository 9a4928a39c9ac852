"""The R-U map (Duncan et al.'s risk–utility confidentiality map) of an exploration's runs.

Information loss against re-identification risk, both lower-is-better: one marker per series (the
config a run belongs to, :mod:`anonkit.explore.series`; per algorithm when the runs are one config's),
named in the legend with its algorithm, filled when the run meets the thresholds
and hollow when it does not, the Pareto front over every series as a step line, the risk threshold
as a vertical line and the varied parameters beside the points (``k=5``, ``ε=1``: Greek letters for
the parameters named after them). Labels are
placed where they overlap neither another label nor a point; one that fits nowhere is left out
(and counted in the corner), so fifty points stay readable. The figure is built without pyplot
(an Agg canvas: no global state), and the same frame gives the same figure.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.transforms import Bbox

from anonkit.errors import InputError
from anonkit.explore.front import meets as _meets
from anonkit.explore.front import pareto_front
from anonkit.explore.measures import ALL_RISKS, risk_limit

__all__ = ["point_label", "ru_map"]

#: what the losses every release has are, on the y axis
_LOSS_TEXT = {"two_way_tvd": "two-way marginal TVD", "one_way_tvd": "one-way marginal TVD"}
#: parameters shown by their letter on the map's labels
_GREEK = {"epsilon": "ε", "delta": "δ", "lambda": "λ", "beta": "β", "theta": "θ", "alpha": "α"}

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")
#: where a label may go, in points from its point, with its alignment (right, above, left, below, …)
_SPOTS = (
    ((5, 3), "left", "bottom"), ((5, -3), "left", "top"), ((-5, 3), "right", "bottom"), ((-5, -3), "right", "top"),
    ((0, 7), "center", "bottom"), ((0, -7), "center", "top"), ((9, 0), "left", "center"), ((-9, 0), "right", "center"),
    ((12, 10), "left", "bottom"), ((-12, -10), "right", "top"),
)


def _column(frame: pd.DataFrame, name: str, fallback: str) -> np.ndarray:
    """The measure ``name``'s values: its own column, else ``fallback`` (``risk``/``loss``, as an
    exploration names them)."""
    for c in (name, fallback):
        if c in frame.columns:
            return pd.to_numeric(frame[c], errors="coerce").to_numpy(dtype=np.float64)
    raise InputError(f"the runs have no column {name!r} or {fallback!r}", column=name)


def point_label(label: str) -> str:
    """A run's label as the map prints it: ``epsilon=1 delta=1e-06`` → ``ε=1 δ=1e-06``; a scoped
    key keeps its parameter only."""
    parts = []
    for part in str(label).split():
        key, eq, value = part.partition("=")
        parts.append(f"{_GREEK.get(key, key)}{eq}{value}")
    return " ".join(parts)


def _groups(frame: pd.DataFrame) -> tuple[np.ndarray, list[str], dict[str, str]]:
    """Every run's group (its series when there are several, else its algorithm: one config's
    algorithms), the groups in order, and each one's legend entry (``kanon: flash`` names the
    algorithm when it is not the series' name)."""
    several = "series" in frame.columns and frame["series"].nunique() > 1
    col = "series" if several else "algorithm"
    group = frame[col].astype(str).to_numpy()
    names = list(dict.fromkeys(group))
    legend = {}
    for name in names:
        algos = list(dict.fromkeys(frame.loc[group == name, "algorithm"].astype(str)))
        legend[name] = name if col == "algorithm" or algos == [name] else f"{name}: {', '.join(algos)}"
    return group, names, legend


def ru_map(frame: pd.DataFrame, *, risk: str, loss: str, thresholds: Mapping[str, float] | None = None) -> Figure:
    """The R-U map of the runs in ``frame`` (one row per run, as :func:`anonkit.explore.explore`
    gives them or ``explore.csv`` holds them).

    ``frame`` needs ``algorithm`` (and ``series`` when it has several) and the values of ``risk``
    and ``loss`` (columns named after the measures, or ``risk`` and ``loss``); ``satisfied``,
    ``meets``, ``pareto`` and ``label`` are used when present (otherwise every run with both values
    counts as satisfied, ``meets`` comes from ``thresholds`` and the front is computed).
    ``thresholds`` are the audit's (``highest_risk``, …); the one the risk is held to is drawn. Runs
    that are not satisfied have no release to place and are counted in the corner.
    """
    if "algorithm" not in frame.columns:
        raise InputError("the runs have no 'algorithm' column", column="algorithm")
    x = _column(frame, risk, "risk")
    y = _column(frame, loss, "loss")
    finite = np.isfinite(x) & np.isfinite(y)
    sat = frame["satisfied"].to_numpy(dtype=bool) & finite if "satisfied" in frame.columns else finite
    limit = risk_limit(risk, thresholds) if thresholds else None
    met = frame["meets"].to_numpy(dtype=bool) if "meets" in frame.columns else _meets(sat, x, limit)
    front = frame["pareto"].to_numpy(dtype=bool) if "pareto" in frame.columns else pareto_front(y, x, sat)
    labels = (np.array([point_label(t) for t in frame["label"].fillna("").astype(str)], dtype=object)
              if "label" in frame.columns else np.full(len(x), ""))
    algo, algos, legend = _groups(frame)

    fig = Figure(figsize=(8.0, 5.6))
    FigureCanvasAgg(fig)
    fig.subplots_adjust(left=0.1, right=0.72, bottom=0.11, top=0.9)
    ax = fig.add_subplot()
    colors = [_color(i) for i in range(len(algos))]
    for i, name in enumerate(algos):
        for ok in (True, False):
            sel = sat & (algo == name) & (met == ok)
            if sel.any():
                ax.scatter(x[sel], y[sel], marker=_MARKERS[i % len(_MARKERS)], s=36, linewidths=1.3,
                           edgecolors=colors[i], facecolors=colors[i] if ok else "none", zorder=3)
    on = np.flatnonzero(front & sat)
    if on.size:
        order = on[np.lexsort((y[on], x[on]))]
        ax.step(x[order], y[order], where="post", color="0.35", linewidth=1.0, linestyle="-", zorder=2)
    _limits(ax, x[sat], y[sat], limit)
    measure = ALL_RISKS.get(risk)
    if limit is not None and measure is not None:
        ax.axvline(limit, color="tab:red", linestyle="--", linewidth=1.0, zorder=1)
    ax.set_xlabel(f"{risk} ({measure.text}; lower = less risk)" if measure else f"{risk} (lower = less risk)")
    ax.set_ylabel(f"{_LOSS_TEXT.get(loss, loss)} (lower = more utility)")
    ax.set_title(f"R-U map: {loss} against {risk}", fontsize=11)
    ax.grid(alpha=0.3)
    omitted = _place_labels(fig, ax, x, y, labels, sat, front, met)

    handles = [Line2D([], [], marker=_MARKERS[i % len(_MARKERS)], color=colors[i], linestyle="none",
                      label=legend[name], markersize=6) for i, name in enumerate(algos)]
    handles += [
        Line2D([], [], marker="o", color="0.3", linestyle="none", label="filled: meets thresholds"),
        Line2D([], [], marker="o", color="0.3", markerfacecolor="none", linestyle="none", label="hollow: does not"),
        Line2D([], [], color="0.35", linewidth=1.0, label="Pareto front"),
    ]
    if limit is not None and measure is not None:
        handles.append(Line2D([], [], color="tab:red", linestyle="--", linewidth=1.0,
                              label=f"{measure.threshold} {thresholds[measure.threshold]:g}"  # type: ignore[index]
                              + ("" if measure.bounded_by_threshold else " (none at risk)")))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False)
    notes = []
    unplaced = int((~sat).sum())
    if unplaced:
        notes.append(f"{unplaced} run{'s' if unplaced != 1 else ''} not satisfied\n(not shown)")
    if omitted:
        notes.append(f"{omitted} label{'s' if omitted != 1 else ''} left out\n(they would overlap)")
    if notes:
        fig.text(0.74, 0.11, "\n".join(notes), fontsize=7, color="0.3", va="bottom")
    return fig


def _color(i: int) -> tuple[float, float, float, float]:
    return colormaps["tab10"](i % 10)  # type: ignore[no-any-return]


def _limits(ax, x: np.ndarray, y: np.ndarray, limit: float | None) -> None:  # type: ignore[no-untyped-def]
    """Fixed axis limits with a margin (labels are placed in display space, so the limits come first)."""
    xs = np.r_[x, [] if limit is None else [limit]]
    for values, setter in ((xs, ax.set_xlim), (y, ax.set_ylim)):
        if values.size == 0:
            setter(0.0, 1.0)
            continue
        lo, hi = float(values.min()), float(values.max())
        pad = (hi - lo) * 0.08 if hi > lo else max(abs(hi) * 0.1, 0.05)
        setter(lo - pad, hi + pad)


def _place_labels(fig: Figure, ax, x: np.ndarray, y: np.ndarray, labels: np.ndarray,  # type: ignore[no-untyped-def]
                  sat: np.ndarray, front: np.ndarray, met: np.ndarray) -> int:
    """Label every placed point (points at one spot share one label) where it overlaps nothing:
    the front first, then runs that meet the thresholds, then the rest; the number left out."""
    shown = np.flatnonzero(sat & (labels != ""))
    if shown.size == 0:
        return 0
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    area = ax.get_window_extent(renderer)
    pts = ax.transData.transform(np.column_stack([x[shown], y[shown]]))
    radius = 3.5 * fig.dpi / 72.0  # a marker of s=36 is 6 points across
    taken = [Bbox.from_extents(px - radius, py - radius, px + radius, py + radius) for px, py in pts]
    spots: dict[tuple[float, float], list[int]] = {}
    for i, (px, py) in zip(shown, pts, strict=True):
        spots.setdefault((round(px, 1), round(py, 1)), []).append(int(i))
    ranked = sorted(spots.values(), key=lambda g: (not front[g].any(), not met[g].any(), x[g[0]], y[g[0]]))
    omitted = 0
    for group in ranked:
        text = ", ".join(dict.fromkeys(labels[group]))
        anchor = (x[group[0]], y[group[0]])
        for offset, ha, va in _SPOTS:
            t = ax.annotate(text, anchor, xytext=offset, textcoords="offset points", ha=ha, va=va, fontsize=6.5,
                            color="0.15", zorder=4)
            box = t.get_window_extent(renderer).expanded(1.05, 1.1)
            inside = area.x0 <= box.x0 and box.x1 <= area.x1 and area.y0 <= box.y0 and box.y1 <= area.y1
            if inside and not any(box.overlaps(b) for b in taken):
                taken.append(box)
                break
            t.remove()
        else:
            omitted += 1
    return omitted
