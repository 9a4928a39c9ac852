"""Utility of a release for classification (ARX's utility analysis, issue 27 item 5).

:func:`evaluate_frames` trains scikit-learn classifiers — logistic regression, naive Bayes, random
forest, each seeded — with stratified k-fold cross-validation to predict a target attribute, once on
the original and once on the release, with the same feature columns (the published quasi-identifiers
and insensitive columns; generalized values are categories, one-hot encoded). It reports accuracy,
macro F1 and ROC-AUC (one-vs-rest, macro, for more than two classes) against the majority-class
baseline of the same rows (ROC-AUC 0.5), and per measure how much of the original's lift over its
baseline the release keeps: ``(release − baseline_release) / (original − baseline_original)``
(``None`` when the original has no lift). :func:`evaluate_config` reads a config's input and
release (the config's output, or another file) and evaluates them.

Fast by design: the encoding is vectorized (codes per column → one sparse matrix), out-of-fold
predictions are computed once per model and scored once, and each table is cut to
:data:`DEFAULT_MAX_ROWS` rows (a seeded random sample) unless told otherwise (``--sample``).
"""

from anonkit.evaluate.classify import (
    DEFAULT_FOLDS,
    DEFAULT_MAX_ROWS,
    MODELS,
    evaluate_config,
    evaluate_frames,
)

__all__ = ["DEFAULT_FOLDS", "DEFAULT_MAX_ROWS", "MODELS", "evaluate_config", "evaluate_frames"]
