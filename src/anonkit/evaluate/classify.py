"""Cross-validated classifiers on an original and its release (see :mod:`anonkit.evaluate`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from anonkit.errors import InputError

#: folds of the cross-validation
DEFAULT_FOLDS = 5
#: rows each table is cut to (a seeded stratified sample) unless ``max_rows`` says otherwise; None: all
DEFAULT_MAX_ROWS = 10_000
#: trees of the random forest
FOREST_TREES = 50
#: measures reported per model
MEASURES = ("accuracy", "f1", "roc_auc")


def _logistic(seed: int) -> Any:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(max_iter=300, random_state=seed)


def _naive_bayes(seed: int) -> Any:
    from sklearn.naive_bayes import BernoulliNB

    return BernoulliNB()


def _forest(seed: int) -> Any:
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=FOREST_TREES, min_samples_leaf=2, random_state=seed, n_jobs=1)


#: the classifiers by name, each made from the seed
MODELS: dict[str, Callable[[int], Any]] = {
    "logistic-regression": _logistic,
    "naive-bayes": _naive_bayes,
    "random-forest": _forest,
}


def one_hot(frame: pd.DataFrame, columns: Sequence[str]) -> sparse.csr_matrix:
    """Every value of every column a 0/1 feature (cells read as text; missing is a value too)."""
    n = len(frame)
    blocks, offset = [], 0
    rows = np.arange(n)
    for c in columns:
        codes, uniques = pd.factorize(frame[c].astype("string").fillna("\x00missing"), sort=True)
        blocks.append((rows, codes + offset))
        offset += len(uniques)
    if not blocks:
        return sparse.csr_matrix((n, 0))
    r = np.concatenate([b[0] for b in blocks])
    c = np.concatenate([b[1] for b in blocks])
    return sparse.csr_matrix((np.ones(len(r), dtype=np.float64), (r, c)), shape=(n, offset))


def _sample(y: np.ndarray, max_rows: int | None, seed: int) -> np.ndarray:
    """Rows kept: all, or a seeded random sample of ``max_rows`` (in input order)."""
    n = len(y)
    if max_rows is None or n <= max_rows:
        return np.arange(n)
    rng = np.random.default_rng(seed)
    keep = rng.permutation(n)[:max_rows]
    return np.sort(keep)


def _scores(y: np.ndarray, predicted: np.ndarray, proba: np.ndarray | None, classes: np.ndarray) -> dict[str, float]:
    from sklearn.metrics import accuracy_score, f1_score, roc_auc_score

    out = {"accuracy": float(accuracy_score(y, predicted)),
           "f1": float(f1_score(y, predicted, average="macro", labels=classes, zero_division=0))}
    if proba is None:
        out["roc_auc"] = 0.5
    elif len(classes) == 2:
        out["roc_auc"] = float(roc_auc_score(y == classes[1], proba[:, 1]))
    else:
        present = np.isin(classes, y)
        p = proba[:, present]
        p = p / np.clip(p.sum(axis=1, keepdims=True), 1e-12, None)
        out["roc_auc"] = float(roc_auc_score(y, p, multi_class="ovr", average="macro", labels=classes[present]))
    return out


def _table(frame: pd.DataFrame, features: Sequence[str], target: str, *, folds: int, seed: int,
           max_rows: int | None) -> dict[str, Any]:
    """Baseline and every model's out-of-fold scores on one table."""
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    y_all = frame[target].astype("string").fillna("\x00missing").to_numpy(dtype=object)
    rows = _sample(y_all, max_rows, seed)
    y = y_all[rows]
    x = one_hot(frame.iloc[rows], features)
    classes, counts = np.unique(y, return_counts=True)
    out: dict[str, Any] = {"rows": len(y), "classes": len(classes)}
    majority = classes[int(np.argmax(counts))]
    out["baseline"] = _scores(y, np.full(len(y), majority, dtype=object), None, classes)
    usable = min(folds, int(counts.min())) if len(classes) > 1 else 0
    if usable < 2:
        raise InputError(f"the target has {len(classes)} class(es) and its rarest has {int(counts.min())} row(s): "
                         "cross-validation needs two classes of at least 2 rows each; choose another target",
                         key="--target", column=target)
    cv = StratifiedKFold(n_splits=usable, shuffle=True, random_state=seed)
    for name, make in MODELS.items():
        proba = cross_val_predict(make(seed), x, y, cv=cv, method="predict_proba")
        predicted = classes[np.argmax(proba, axis=1)]
        out[name] = _scores(y, predicted, proba, classes)
    return out


def _kept(original: dict[str, Any], release: dict[str, Any], model: str) -> dict[str, float | None]:
    """Share of the original's lift over its baseline that the release keeps, per measure."""
    kept: dict[str, float | None] = {}
    for m in MEASURES:
        lift = original[model][m] - original["baseline"][m]
        kept[m] = None if lift <= 1e-12 else float((release[model][m] - release["baseline"][m]) / lift)
    return kept


def evaluate_frames(original: pd.DataFrame, release: pd.DataFrame, target: str, features: Sequence[str], *,
                    folds: int = DEFAULT_FOLDS, seed: int = 0, max_rows: int | None = DEFAULT_MAX_ROWS
                    ) -> dict[str, Any]:
    """Classification utility of ``release`` against ``original`` for ``target`` (module docstring).

    ``features``: the columns both tables share that the classifiers read (the target left out).
    Returns ``{target, features, folds, seed, max_rows, original: {rows, classes, baseline, <model>:
    {accuracy, f1, roc_auc}}, release: {…}, kept: {<model>: {accuracy, f1, roc_auc}}}``.
    """
    if folds < 2:
        raise InputError("must be at least 2", key="--folds", value=folds)
    if max_rows is not None and max_rows < 10:
        raise InputError("must be at least 10 rows", key="--sample", value=max_rows)
    for name, frame in (("original", original), ("release", release)):
        if target not in frame.columns:
            raise InputError(f"the {name} has no column {target!r}; choose one of: "
                             f"{', '.join(map(str, frame.columns))}", key="--target", column=target)
    feats = [c for c in features if c != target and c in original.columns and c in release.columns]
    if not feats:
        raise InputError("no published column is left to predict the target from", key="--target", column=target)
    result: dict[str, Any] = {"target": target, "features": feats, "folds": folds, "seed": seed,
                              "max_rows": max_rows}
    result["original"] = _table(original, feats, target, folds=folds, seed=seed, max_rows=max_rows)
    result["release"] = _table(release, feats, target, folds=folds, seed=seed, max_rows=max_rows)
    result["kept"] = {m: _kept(result["original"], result["release"], m) for m in MODELS}
    return result


def evaluate_config(config_path: str, target: str, *, release_path: str | None = None, folds: int = DEFAULT_FOLDS,
                    seed: int = 0, max_rows: int | None = DEFAULT_MAX_ROWS) -> dict[str, Any]:
    """:func:`evaluate_frames` of a config's input and its release (the config's output, or
    ``release_path``); features: the quasi-identifiers and insensitive columns the release publishes."""
    from pathlib import Path

    from anonkit.audit.inputs import load_audit_inputs
    from anonkit.config import load_config
    from anonkit.plan import plan_from_config

    path = Path(config_path)
    cfg = load_config(path)
    plan = plan_from_config(cfg, config_dir=path.parent, config_file=path, writes=False)
    where = release_path if release_path is not None else _output_location(cfg, path.parent)
    inputs = load_audit_inputs(plan, where)
    if isinstance(inputs.release, dict):
        raise InputError("this release is several linked tables; evaluate a one-table release", key="--release")
    schema = inputs.schema
    if target not in inputs.original.columns:
        raise InputError(f"the input has no column {target!r}; choose one of: "
                         f"{', '.join(map(str, inputs.original.columns))}", key="--target", column=target)
    from anonkit.schema import Role

    features = [*schema.quasi, *schema.names(Role.INSENSITIVE)]
    result = evaluate_frames(inputs.original, inputs.release, target, features, folds=folds, seed=seed,
                             max_rows=max_rows)
    result["release_location"] = inputs.release_location
    return result


def _output_location(cfg: Any, base: Any) -> str:
    """The config's output as ``load_audit_inputs`` reads a release (relative to the config)."""
    out = getattr(cfg, "output", None)
    location = getattr(out, "path", None) if out is not None else None
    if location is None:
        raise InputError("the config names no output; give the release with --release", key="--release")
    from pathlib import Path

    p = Path(str(location))
    return str(p if p.is_absolute() or "://" in str(location) else Path(base) / p)
