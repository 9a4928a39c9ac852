"""The report's figures, one function each, every one returning a matplotlib :class:`~matplotlib.figure.Figure`.

They take the audit's and the summary's pieces as they are (``audit["risk"]["class_sizes"]``,
``audit["attacks"]``, ``summary["generalization"]``, …) or pandas columns, so a notebook can draw
any of them::

    from anonkit.report import figures
    figures.attacks(audit["attacks"], threshold=audit["thresholds"]["attack_risk"])

No pyplot: each figure is a plain ``Figure`` on its own Agg canvas, drawn inside
``matplotlib.rc_context(STYLE)``, so nothing leaks into (or from) the caller's global state.
:data:`STYLE` also fixes what makes an SVG reproducible (``svg.hashsalt``) and writes text as SVG
``<text>`` (``svg.fonttype: none``): smaller, selectable, and searchable by the report's tests.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ParamSpec

import numpy as np
import pandas as pd
from matplotlib import rc_context
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from anonkit.report.data import SIZE_BINS, Tally, tally
from anonkit.report.ru_map import ru_map

__all__ = [
    "STYLE",
    "attacks",
    "class_sizes",
    "classification",
    "distribution",
    "information_loss",
    "risk_distribution",
    "risk_models",
    "ru_map",
]

#: matplotlib settings every figure is drawn and saved with
STYLE: dict[str, Any] = {
    "svg.hashsalt": "anonkit-report",
    "svg.fonttype": "none",
    "font.size": 8.5,
    "axes.titlesize": 9.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.dpi": 100,
}
#: most bars a categorical distribution shows (the rest are one "other" bar)
TOP = 20
#: histogram bins of a numeric column with more distinct values than TOP
BINS = 20

OK, FAIL, BLUE, GREY, ORANGE = "#2e7d32", "#c62828", "#3567a8", "#8c8c8c", "#e08a00"

P = ParamSpec("P")


def _styled(fn: Callable[P, Figure]) -> Callable[P, Figure]:
    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> Figure:
        with rc_context(STYLE):
            return fn(*args, **kwargs)

    return wrapper


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _nothing(fig: Figure, message: str) -> Figure:
    ax = fig.subplots()
    ax.set_axis_off()
    ax.text(0.5, 0.5, message, ha="center", va="center", color=GREY)
    return fig


def _pct(x: float) -> str:
    """A share as a short percentage: 12.3 %, 0.05 %, 0 %."""
    if x == 0:
        return "0 %"
    return f"{100 * x:.3g} %"


# ---------------------------------------------------------------------- privacy
@_styled
def class_sizes(sizes: Sequence[Mapping[str, Any]], *, threshold: float | None = None) -> Figure:
    """How many classes, and how many records, have each class size (``audit["risk"]["class_sizes"]``).

    Sizes are binned (1, 2, …, 5, 6–10, 11–20, …, over 1000). With ``threshold`` (the highest
    acceptable re-identification risk, 1/size), bins holding classes whose risk exceeds it are red.
    """
    fig = _figure(7.2, 2.6)
    if not sizes:
        return _nothing(fig, "no released classes")
    classes = np.zeros(len(SIZE_BINS))
    records = np.zeros(len(SIZE_BINS))
    for row in sizes:
        s, c = int(row["size"]), int(row["classes"])
        i = next(j for j, (lo, hi) in enumerate(SIZE_BINS) if s >= lo and (hi is None or s <= hi))
        classes[i] += c
        records[i] += row.get("records", s * c)
    last = int(np.flatnonzero(classes).max()) + 1
    labels = [str(lo) if lo == hi else f"> {lo - 1}" if hi is None else f"{lo}–{hi}" for lo, hi in SIZE_BINS[:last]]
    colors = [FAIL if threshold and 1 / lo > threshold else BLUE for lo, _ in SIZE_BINS[:last]]
    x = np.arange(last)
    left, right = fig.subplots(1, 2)
    left.bar(x, classes[:last], color=colors)
    left.set_title("classes by size")
    left.set_ylabel("classes")
    right.bar(x, records[:last] / max(records.sum(), 1), color=colors)
    right.set_title("records by the size of their class")
    right.yaxis.set_major_formatter(PercentFormatter(1.0))
    for ax in (left, right):
        ax.set_xticks(x, labels, rotation=45, ha="right")
        ax.set_xlabel("class size")
    return fig


@_styled
def risk_distribution(distribution: Sequence[Mapping[str, Any]], *, threshold: float | None = None,
                      measure: str = "re-identification risk (prosecutor)") -> Figure:
    """The share of records in each range of re-identification risk (``audit["risk"]["distribution"]``;
    sdcMicro's individual risk with ``measure``, ``audit["risk"]["survey"]["distribution"]``); ranges
    reaching above ``threshold`` are red."""
    fig = _figure(7.2, 2.6)
    rows = [r for r in distribution if r.get("records")]
    if not rows:
        return _nothing(fig, "no risk distribution")
    ax = fig.subplots()
    labels = [f"≤ {_pct(r['to'])}" if not r["from"] else f"{_pct(r['from'])}–{_pct(r['to'])}" for r in rows]
    colors = [FAIL if threshold is not None and r["to"] > threshold else BLUE for r in rows]
    x = np.arange(len(rows))
    ax.bar(x, [r["records"] for r in rows], color=colors)
    ax.set_xticks(x, labels, rotation=45, ha="right")
    ax.set_xlabel(measure)
    ax.set_ylabel("records")
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_title("risk distribution")
    return fig


@_styled
def risk_models(risk: Mapping[str, Any], thresholds: Mapping[str, float] | None = None) -> Figure:
    """The prosecutor, journalist and marketer risk models (``audit["risk"]``): the highest risk of
    a record and the average, each against its threshold (``audit["thresholds"]``)."""
    thresholds = thresholds or {}
    fig = _figure(7.2, 2.2)
    panels = [
        ("highest risk of a record", "highest", ("prosecutor", "journalist"), thresholds.get("highest_risk")),
        ("average risk", "average", ("prosecutor", "journalist", "marketer"), thresholds.get("average_risk")),
    ]
    for ax, (title, key, models, limit) in zip(fig.subplots(1, 2), panels, strict=True):
        found = [(m, float(risk[m][key])) for m in models if isinstance(risk.get(m), Mapping) and
                 risk[m].get(key) is not None]
        y = np.arange(len(found))
        values = [v for _, v in found]
        ax.barh(y, values, height=0.6, color=[FAIL if limit is not None and v > limit else OK for v in values])
        ax.set_ylim(2.5, -0.5)
        ax.set_yticks(y, [m for m, _ in found])
        top = max([*values, limit or 0.0, 1e-3]) * 1.3
        ax.set_xlim(0, top)
        for yi, v in zip(y, values, strict=True):
            ax.text(v, yi, " " + _pct(v), va="center")
        if limit is not None:
            ax.axvline(limit, color="black", linestyle="--", linewidth=1)
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_title(title + ("" if limit is None else f" (threshold {_pct(limit)})"))
    return fig


@_styled
def classification(evaluation: Mapping[str, Any]) -> Figure:
    """Classification utility (``anonkit evaluate``'s result): for each measure, every classifier's
    score trained on the original (grey) and on the release (blue), with each table's majority-class
    baseline dashed; the release keeps the lift its bar rises above its dashed line."""
    fig = _figure(7.2, 2.4)
    original, release = evaluation.get("original") or {}, evaluation.get("release") or {}
    names = [m for m in original if isinstance(original.get(m), Mapping) and m != "baseline" and m in release]
    if not names:
        return _nothing(fig, "no classifier was evaluated")
    x = np.arange(len(names))
    for ax, measure in zip(fig.subplots(1, 3, sharey=True), ("accuracy", "f1", "roc_auc"), strict=True):
        before = [float(original[m][measure]) for m in names]
        after = [float(release[m][measure]) for m in names]
        ax.bar(x - 0.2, before, width=0.4, color=GREY, label="original")
        ax.bar(x + 0.2, after, width=0.4, color=BLUE, label="release")
        for base, color in ((original.get("baseline"), GREY), (release.get("baseline"), BLUE)):
            if isinstance(base, Mapping) and base.get(measure) is not None:
                ax.axhline(float(base[measure]), color=color, linestyle="--", linewidth=1)
        ax.set_xticks(x, [n.replace("-", " ") for n in names], rotation=30, ha="right")
        ax.set_ylim(0, 1)
        ax.set_title({"accuracy": "accuracy", "f1": "F1 (macro)", "roc_auc": "ROC-AUC"}[measure])
    fig.legend(*fig.axes[0].get_legend_handles_labels(), loc="outside right center", frameon=False)
    return fig


@_styled
def attacks(outcomes: Sequence[Mapping[str, Any]], *, threshold: float | None = None) -> Figure:
    """Attack simulations (``audit["attacks"]``, :meth:`AttackOutcome.to_dict`): the success rate on
    the release with its 95 % interval beside the baseline guesser's and the control set's, and the
    risk estimate with its interval against ``threshold``."""
    n = len(outcomes)
    fig = _figure(7.2, 1.0 + 0.32 * max(n, 1))
    if not n:
        return _nothing(fig, "no attack was simulated")
    y = np.arange(n)
    left, right = fig.subplots(1, 2, sharey=True)

    def point(ax: Axes, yi: float, value: float | None, ci: Sequence[float] | None, **style: Any) -> None:
        if value is None:
            return
        err = None if ci is None else [[max(value - ci[0], 0.0)], [max(ci[1] - value, 0.0)]]
        ax.errorbar([value], [yi], xerr=err, capsize=2, linestyle="none", **style)

    for yi, a in zip(y, outcomes, strict=True):
        point(left, yi - 0.2, a.get("baseline"), a.get("baseline_ci"), marker="D", color=GREY,
              label="baseline" if yi == 0 else None)
        point(left, yi, a.get("success"), a.get("ci"), marker="o", color=BLUE,
              label="on the release" if yi == 0 else None)
        point(left, yi + 0.2, a.get("control"), a.get("control_ci"), marker="^", color=ORANGE,
              label="control" if yi == 0 else None)
        risk = a.get("risk")
        bad = threshold is not None and risk is not None and risk > threshold
        point(right, yi, risk, a.get("risk_ci"), marker="o", color=FAIL if bad else OK)
    left.set_yticks(y, [str(a.get("name", "")) for a in outcomes])
    left.invert_yaxis()
    left.set_title("success rate (95 % interval)")
    left.legend(loc="lower right", fontsize=7, frameon=False)
    right.set_title("risk estimate (95 % interval)")
    if threshold is not None:
        right.axvline(threshold, color="black", linestyle="--", linewidth=1)
    for ax in (left, right):
        ax.set_xlim(-0.02, 1.02)
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    return fig


# ---------------------------------------------------------------------- utility
@_styled
def information_loss(generalization: Mapping[str, Mapping[str, Any]], metrics: Mapping[str, Any] | None = None
                     ) -> Figure:
    """Per quasi-identifier (``summary["generalization"]``): the share of its released values that
    differ from the input's, and its generalization level as a share of the hierarchy's height
    (full-domain releases); ``metrics`` (``summary["metrics"]``) puts the overall loss in the title."""
    names = list(generalization)
    fig = _figure(7.2, 1.0 + 0.3 * max(len(names), 1))
    if not names:
        return _nothing(fig, "no quasi-identifier")
    ax = fig.subplots()
    y = np.arange(len(names))
    changed = [float(generalization[q].get("changed") or 0.0) for q in names]
    levels = [_level_share(generalization[q]) for q in names]
    ax.barh(y - 0.2, changed, height=0.4, color=BLUE, label="values changed")
    if any(v is not None for v in levels):
        ax.barh(y + 0.2, [v or 0.0 for v in levels], height=0.4, color=ORANGE, label="level / height")
    ax.set_yticks(y, names)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.0)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.legend(loc="lower right", fontsize=7, frameon=False)
    overall = [f"{k} {_pct(float(metrics[k]))}" for k in ("loss", "gcp") if metrics and metrics.get(k) is not None]
    ax.set_title("information loss per quasi-identifier" + (f" (overall: {', '.join(overall)})" if overall else ""))
    return fig


def _level_share(g: Mapping[str, Any]) -> float | None:
    level, height = g.get("level"), g.get("height")
    if level is None or not height:
        return None
    return float(level) / float(height)


@_styled
def distribution(before: pd.Series | None, after: pd.Series | None, *, show_values: bool = False,
                 name: str | None = None) -> Figure:
    """One attribute before (the input's column) and after (the released column).

    The release's labels are shown. The input's values are shown only with ``show_values``;
    otherwise the input's panel shows the shape alone: the frequencies of its distinct values
    ranked from the most frequent, or for a numeric column with many values a histogram over its
    range with the axis unlabelled.
    """
    name = name or str(getattr(after, "name", None) or getattr(before, "name", None) or "")
    panels = [(tally(s), title, show) for s, title, show in
              ((before, "input", show_values), (after, "release", True)) if s is not None]
    rows = max([_rows(t, show) for t, _, show in panels] or [1])
    fig = _figure(7.2, max(1.7, 0.9 + 0.16 * rows))
    if not panels:
        return _nothing(fig, f"{name}: no data")
    for ax, (t, title, show) in zip(np.atleast_1d(fig.subplots(1, len(panels))), panels, strict=True):
        _draw(ax, t, show, rows)
        ax.set_title(f"{name}: {title}" + ("" if show else " (values hidden)"))
    return fig


def _rows(t: Tally, show: bool) -> int:
    """How many bars a column's panel draws (a histogram or ranked curve counts as 6)."""
    if (t.numbers is not None or not show) and t.distinct > TOP:
        return 6
    return min(t.distinct, TOP + 1) + (t.missing > 0)


def _draw(ax: Axes, t: Tally, show: bool, rows: int) -> None:
    """A column's distribution: a histogram when numeric with many values, the ranked frequencies
    when hidden with many values, else a bar per value (most frequent, or in order, from the top)."""
    missing = f" ({t.missing:,} missing)" if t.missing else ""
    if t.numbers is not None and t.distinct > TOP:
        numbers = t.numbers
        lo, hi = float(numbers.min()), float(numbers.max())
        if show:
            counts, edges = np.histogram(numbers, bins=BINS, range=(lo, hi))
        else:  # positions in the range only: no value of the column reaches the figure
            scaled = (numbers - lo) / (hi - lo) if hi > lo else np.zeros_like(numbers)
            counts, edges = np.histogram(scaled, bins=BINS, range=(0.0, 1.0))
            ax.set_xticks([0.0, 1.0], ["lowest", "highest"])
        ax.stairs(counts, edges, fill=True, color=BLUE)
        ax.set_ylabel("records")
        ax.set_xlabel(f"{t.distinct:,} distinct values{missing}")
        return
    if not show and t.distinct > TOP:  # the sorted frequencies as a curve, values hidden
        ax.stairs(np.asarray(t.counts), np.arange(t.distinct + 1), fill=True, color=BLUE)
        ax.set_ylabel("records")
        ax.set_xlabel(f"{t.distinct:,} distinct values, most frequent first{missing}")
        return
    order = list(range(t.distinct))
    if show and t.numbers is not None:
        order.sort(key=lambda i: float(t.labels[i]))
    elif show:
        order = _natural(t)
    counts = [t.counts[i] for i in order]
    labels = [_short(t.labels[i]) for i in order]
    if len(order) > TOP:
        rest = sum(counts[TOP:])
        counts, labels = [*counts[:TOP], rest], [*labels[:TOP], f"{len(order) - TOP:,} others"]
    if t.missing:
        counts, labels = [*counts, t.missing], [*labels, "(missing)"]
    y = np.arange(len(counts))
    ax.barh(y, counts, color=BLUE)
    ax.set_ylim(max(rows, len(counts)) - 0.5, -0.5)
    if show:
        ax.set_yticks(y, labels)
        ax.set_xlabel("records")
    else:
        ax.set_yticks([])
        ax.set_xlabel(f"records ({t.distinct:,} distinct values, most frequent first)")


def _natural(t: Tally) -> list[int]:
    """Labels in the order of their leading number when every label has one (intervals such as
    ``20-39`` or ``[25-33]``), else by frequency."""
    matches = [_LEADING_NUMBER.match(label) for label in t.labels]
    if not all(matches):
        return list(range(t.distinct))
    keys = [float(m.group(1)) for m in matches if m]
    return sorted(range(t.distinct), key=lambda i: (keys[i], t.labels[i]))


#: the number an interval label starts with: ``20-39``, ``[25-33]``, ``<=50K``, ``>50K``
_LEADING_NUMBER = re.compile(r"[\[(<>≤≥= ]*([+-]?\d+(?:\.\d+)?)")


def _short(label: str, width: int = 28) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"
