"""The plots: R-U maps (GCP against record linkage per sweep) and runtime against J and k."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from anonkit.experiments.uhra.constants import METHODS


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _log_if_spread(ax, values: np.ndarray, axis: str) -> None:
    from matplotlib.ticker import NullFormatter

    v = values[np.isfinite(values) & (values > 0)]
    if len(v) and v.max() / v.min() > 20:
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
        (ax.xaxis if axis == "x" else ax.yaxis).set_minor_formatter(NullFormatter())


MARKERS = dict(zip(METHODS, [("o", "C0"), ("s", "C3"), ("^", "C2")], strict=True))


def plot_ru(runs: pd.DataFrame, sweep: str, path: str | Path) -> None:
    """R-U map of one sweep: GCP (x) against RL (y), one panel per data set, one series per method,
    every point labelled with its parameter value."""
    plt = _pyplot()
    names = list(dict.fromkeys(runs["dataset"]))
    fig, axes = plt.subplots(1, max(1, len(names)), figsize=(6.0 * max(1, len(names)), 4.6), squeeze=False)
    for ax, name in zip(axes[0], names, strict=False):
        sub = runs[(runs["dataset"] == name) & (runs["sweep"] == sweep)]
        for method in METHODS:
            m = sub[sub["method"] == method].sort_values(sweep)
            marker, color = MARKERS[method]
            ax.plot(m["gcp"], m["record_linkage"], marker=marker, color=color, ls="-", lw=0.8, label=method, alpha=0.85)
            for r in m.itertuples(index=False):
                ax.annotate(
                    f"{getattr(r, sweep):g}",
                    (r.gcp, r.record_linkage),
                    textcoords="offset points",
                    xytext=(3, 3),
                    fontsize=7,
                    color=color,
                )
        _log_if_spread(ax, sub["gcp"].to_numpy(float), "x")
        _log_if_spread(ax, sub["record_linkage"].to_numpy(float), "y")
        fixed = {"k": "t = 0.5, J = 0.8", "J": "k = 5, t = 0.5", "t": "k = 5, J = 0.8 (k-primacy has no t)"}[sweep]
        ax.set_title(f"{name}: {sweep} sweep, {fixed}", fontsize=10)
        ax.set_xlabel("GCP (lower = more utility)")
        ax.set_ylabel("record linkage RL % (lower = less risk)")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    fig.suptitle(f"R-U map, {sweep} sweep (labels: {sweep})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_runtime(runs: pd.DataFrame, path: str | Path) -> None:
    """Seconds against J and against k, one row of panels per data set."""
    plt = _pyplot()
    names = list(dict.fromkeys(runs["dataset"]))
    fig, axes = plt.subplots(max(1, len(names)), 2, figsize=(11, 3.8 * max(1, len(names))), squeeze=False)
    for row, name in zip(axes, names, strict=False):
        for ax, sweep in zip(row, ("J", "k"), strict=True):
            sub = runs[(runs["dataset"] == name) & (runs["sweep"] == sweep)]
            for method in METHODS:
                m = sub[sub["method"] == method].sort_values(sweep)
                marker, color = MARKERS[method]
                ax.plot(m[sweep], m["seconds"], marker=marker, color=color, label=method)
            _log_if_spread(ax, sub["seconds"].to_numpy(float), "y")
            ax.set_xlabel(sweep)
            ax.set_ylabel("seconds")
            fixed = " (k = 5, t = 0.5)" if sweep == "J" else " (t = 0.5, J = 0.8)"
            ax.set_title(f"{name}: runtime vs {sweep}{fixed}", fontsize=10)
            ax.grid(alpha=0.3, which="both")
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
