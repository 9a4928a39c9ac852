"""The report's evaluation section: the release's utility for classification (``anonkit report …
--evaluate COL``, :mod:`anonkit.evaluate`).

For every classifier (logistic regression, naive Bayes, random forest) and measure (accuracy, macro
F1, ROC-AUC) the table shows its cross-validated score trained on the original and on the release,
each table's majority-class baseline, and the share of the original's lift over its baseline the
release keeps; one figure draws the scores against the baselines. The section shows scores and the
names of columns only, never a value of the input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anonkit.report import figures
from anonkit.report._markup import MISSING, Page, esc, facts, note, number, share, table

__all__ = ["MEASURE_NAMES", "evaluation"]

#: how the section names each measure
MEASURE_NAMES = {"accuracy": "accuracy", "f1": "F1 (macro)", "roc_auc": "ROC-AUC"}


def _score(value: object) -> str:
    return MISSING if value is None else f"{float(value):.3f}"  # type: ignore[arg-type]


def evaluation(page: Page, result: Mapping[str, Any] | None) -> str:
    """Section 5 (only when the report was asked for an evaluation): the classifiers' scores on the
    original and the release, the baselines, the lift kept, and the figure."""
    if result is None:
        return ""
    original, release, kept = result["original"], result["release"], result.get("kept") or {}
    models = [m for m in kept if m in original and m in release]
    rows = []
    for model in models:
        for measure, name in MEASURE_NAMES.items():
            rows.append((esc(model), esc(name), _score(original[model][measure]),
                         _score(original["baseline"][measure]), _score(release[model][measure]),
                         _score(release["baseline"][measure]), share(kept[model].get(measure))))
    body = facts([
        ("target", page.text(result["target"]) + f" ({number(original.get('classes'))} classes)"),
        ("features", page.text(", ".join(result.get("features") or []))),
        ("rows", f"original {number(original.get('rows'))}, release {number(release.get('rows'))}"),
        ("cross-validation", f"{number(result.get('folds'))} folds, seed {number(result.get('seed'))}"),
    ])
    body += table(["classifier", "measure", "original", "baseline (original)", "release", "baseline (release)",
                   "lift kept"], rows)
    body += note("Lift kept: (release − its baseline) / (original − its baseline); — where the original does "
                 "no better than its baseline.")
    body += page.figure("fig-classification", figures.classification(result),
                        "Each classifier's cross-validated score trained on the original (grey) and on the release "
                        "(blue); dashed: the majority-class baselines.")
    return f'<section id="evaluation"><h2>5. Utility for classification</h2>{body}</section>'
