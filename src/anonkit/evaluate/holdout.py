"""Train on the release, test on the real data (TSTR), against train on real, test on real (TRTR): the
classification utility of a synthetic or perturbed table (issue 29, item 3).

The original's rows are split once (seeded, stratified by the target): a held-out test part the
classifiers never see, and a training part. Each classifier of :data:`anonkit.evaluate.MODELS` is
trained on the training part of the original (TRTR) and on the release (TSTR) and scored on the same
held-out rows, beside the majority class of the training data. Features are the published columns
with numeric columns cut at the original's deciles (:func:`anonkit.metrics.synthetic.binned`: a noised
or synthetic number is then the same feature as the original it stands for), one-hot encoded as
:mod:`anonkit.evaluate.classify` does. A release whose rows are the original records (a perturbed
one) is trained on as a whole: the held-out rows are in it, perturbed, which flatters TSTR a little
on such releases — said in the result's ``note``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.evaluate.classify import MODELS, one_hot
from anonkit.metrics.synthetic import binned

__all__ = ["DEFAULT_TEST_SHARE", "train_synthetic_test_real"]

#: the share of the original held out as the test rows
DEFAULT_TEST_SHARE = 0.3


def train_synthetic_test_real(original: pd.DataFrame, released: pd.DataFrame, target: str, features: Sequence[str],
                              *, seed: int = 0, test_share: float = DEFAULT_TEST_SHARE) -> dict[str, Any]:
    """Accuracy on held-out original rows of classifiers trained on the release (``tstr``) and on the
    rest of the original (``trtr``), per model, with the majority-class ``baseline`` and the ratio
    ``tstr / trtr`` (module docstring)."""
    from sklearn.model_selection import train_test_split

    if not 0 < test_share < 1:
        raise InputError("test_share must lie strictly between 0 and 1", key="test_share", value=test_share)
    for name, frame in (("original", original), ("release", released)):
        if target not in frame.columns:
            raise InputError(f"the {name} has no column {target!r}", key="target", column=target)
    feats = [c for c in features if c != target and c in original.columns and c in released.columns]
    if not feats:
        raise InputError("no published column is left to predict the target from", key="target", column=target)
    o, r = binned(original, released, [*feats, target])
    y = o[target].to_numpy(dtype=object)
    classes, counts = np.unique(y, return_counts=True)
    if len(classes) < 2 or counts.min() < 2:
        raise InputError("the target needs two classes of at least 2 rows each", key="target", column=target)
    train, test = train_test_split(np.arange(len(o)), test_size=test_share, random_state=seed, stratify=y)
    x_all = one_hot(pd.concat([o[feats], r[feats]], ignore_index=True), feats)
    x_o, x_r = x_all[:len(o)], x_all[len(o):]
    y_r = r[target].to_numpy(dtype=object)
    out: dict[str, Any] = {"target": target, "features": feats, "test_rows": len(test), "seed": seed}
    values, freq = np.unique(y[train], return_counts=True)
    out["baseline"] = float(np.mean(y[test] == values[int(np.argmax(freq))]))
    for name, make in MODELS.items():
        scores = {}
        for label, (xt, yt) in (("trtr", (x_o[train], y[train])), ("tstr", (x_r, y_r))):
            if len(np.unique(yt)) < 2:
                scores[label] = float(np.mean(y[test] == yt[0]))
                continue
            model = make(seed).fit(xt, yt)
            scores[label] = float(np.mean(model.predict(x_o[test]) == y[test]))
        scores["ratio"] = scores["tstr"] / scores["trtr"] if scores["trtr"] > 0 else None
        out[name] = scores
    if len(released) == len(original):
        out["note"] = ("the release has as many rows as the original (a perturbed release): the held-out rows are in "
                       "it, perturbed, which flatters train-on-release a little")
    return out
