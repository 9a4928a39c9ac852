"""The report's section "Distributions kept (synthetic-data measures)": for a release whose rows hold
values that are not the original ones (a ``perturb`` release today, a synthetic table to come), how far
its one- and two-way marginals are from the original's (:mod:`anonkit.metrics.synthetic`) and how well
classifiers trained on it predict the original's first sensitive attribute (train on the release,
test on held-out real rows, against train on real: :mod:`anonkit.evaluate.holdout`). Absent for other
releases and when the original is not at hand. Figures and column names only, never a value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from anonkit.errors import InputError
from anonkit.evaluate.holdout import train_synthetic_test_real
from anonkit.metrics.synthetic import marginal_distances
from anonkit.report._markup import Page, note, number, table

__all__ = ["SYNTHETIC_FAMILY", "synthetic_section"]

#: the family of the algorithms whose release is a synthetic table (the section is shown for them and
#: for every release with perturbed-utility figures)
SYNTHETIC_FAMILY = "synth"


def _synthetic(name: object) -> bool:
    """Whether the run's algorithm makes synthetic tables (its family, read from the registry)."""
    from anonkit.algorithms.registry import algorithms  # the registry walks every family: only when asked

    spec = algorithms().get(name) if isinstance(name, str) else None
    return spec is not None and spec.family == SYNTHETIC_FAMILY


def synthetic_section(page: Page, summary: Mapping[str, Any], original: pd.DataFrame | None,
                      frames: Mapping[str, pd.DataFrame], qi: list[str], others: list[tuple[str, str]],
                      seed: int = 0) -> str:
    """The section, or ``""`` (not a perturbed or synthetic release; no original; linked tables)."""
    if not summary.get("perturbed_utility") and not _synthetic(summary.get("algorithm")):
        return ""
    if original is None or len(frames) != 1:
        return ""
    release = next(iter(frames.values()))
    columns = [c for c in [*qi, *(n for n, _ in others)] if c in original.columns and c in release.columns]
    if not columns:
        return ""
    try:
        m = marginal_distances(original, release, columns)
    except InputError:
        return ""
    rows = [(page.text(c), number(v), "one-way total variation distance (0: the same distribution)")
            for c, v in m["one_way"].items()]
    if m["two_way_max"] is not None:
        rows.append(("all pairs: mean / largest", f"{number(m['two_way_mean'])} / {number(m['two_way_max'])}",
                     "two-way total variation distance"))
    body = note("How far the release's distributions are from the original's: numeric columns cut at the "
                "original's deciles; 0: the same distribution, 1: disjoint.")
    body += table(["columns", "distance", "meaning"], rows)
    target = next((n for n, role in others if role == "sensitive" and n in columns), None)
    if target is not None:
        try:
            t = train_synthetic_test_real(original, release, target, [c for c in columns if c != target], seed=seed)
        except InputError as exc:
            body += note(f"Train on the release, test on real: not computed — {page.text(str(exc))}")
        else:
            trows = [(page.text(name), number(t[name]["tstr"]), number(t[name]["trtr"]), number(t[name]["ratio"]))
                     for name in t if isinstance(t[name], dict)]
            body += note(f"Predicting {page.text(target)} on {t['test_rows']:,} held-out original rows "
                         f"(majority class: {number(t['baseline'])}).")
            body += table(["classifier", "trained on the release", "trained on the original", "ratio"], trows)
    return f'<section id="synthetic-utility"><h3>Distributions kept (synthetic-data measures)</h3>{body}</section>'
