"""Running the grid: each method's models, one anonymization and its figures, the grid's rows and the
attack table's rows (numba kernels warmed up first)."""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import pandas as pd

from anonkit.algorithms.spec import Algorithm
from anonkit.experiments.uhra.constants import (
    BASELINES,
    BREACH_THRESHOLD,
    FLASH_SUPPRESSION,
    K_PRIMACY,
    METHODS,
    Progress,
)
from anonkit.experiments.uhra.data import Dataset
from anonkit.experiments.uhra.grid import FULL_GRID, Grid, _key
from anonkit.table import Table

RUN_COLUMNS = [
    "dataset",
    "sweep",
    "method",
    "k",
    "t",
    "J",
    "uses_t",
    "gcp",
    "record_linkage",
    "group_min",
    "group_avg",
    "class_min",
    "class_avg",
    "suppressed",
    "classes",
    "groups",
    "bk_clusters",
    "seconds",
    "bk_mean_jsd",
    "bk_max_jsd",
    "bk_breached_share",
    "homogeneity",
    "records",
    "reused",
]

ATTACK_COLUMNS = [
    "dataset",
    "k",
    "t",
    "J",
    "method",
    "gcp",
    "record_linkage",
    "suppressed",
    "classes",
    "class_min",
    "class_avg",
    "bk_mean_jsd",
    "bk_max_jsd",
    "bk_breached_share",
    "homogeneity",
    "seconds",
]


def models_for(method: str, ds: Dataset, k: int, t: float, J: float) -> list:
    """The privacy models each method gets (see the package docstring)."""
    from anonkit.models import BackgroundKnowledge, KAnonymity, TCloseness

    s = ds.sensitive
    if method == K_PRIMACY:
        return [KAnonymity(int(k)), BackgroundKnowledge(s, float(J))]
    if method in BASELINES:
        return [KAnonymity(int(k)), TCloseness(s, float(t), ds.distance)]
    return [KAnonymity(int(k)), TCloseness(s, float(t), ds.distance), BackgroundKnowledge(s, float(J))]


def _algorithm(method: str) -> Algorithm:
    """The registered algorithm a method label (its display name) stands for."""
    from anonkit.algorithms.registry import algorithms

    return next(a for a in algorithms().values() if a.display == method)


def anonymize(ds: Dataset, method: str, k: int, t: float, J: float) -> tuple[Any, float]:
    """Run ``method`` on ``ds`` with its models; the release and the wall-clock seconds."""
    spec = _algorithm(method)
    models = models_for(method, ds, k, t, J)
    start = time.perf_counter()
    if method in METHODS:
        rel = spec(ds.table, models, priors=ds.priors, max_suppression=1.0)
    elif spec.default:  # Flash, in the attack table
        rel = spec(ds.table, models, max_suppression=FLASH_SUPPRESSION)
    else:
        rel = spec(ds.table, models)
    return rel, time.perf_counter() - start


def _sizes(sizes: np.ndarray) -> tuple[float, float]:
    sizes = sizes[sizes > 0]
    return (float(sizes.min()), float(sizes.mean())) if len(sizes) else (math.nan, math.nan)


def measure(ds: Dataset, release: Any, seconds: float) -> dict[str, Any]:
    """The figures of one release (see the package docstring)."""
    from anonkit.analytics import background_knowledge_attack, homogeneity_attack
    from anonkit.metrics import compute_metrics

    m = compute_metrics(ds.table, release, ["gcp", "record_linkage"])
    released = np.asarray(release.record_class) >= 0
    class_min, class_avg = _sizes(release.class_sizes())
    group = release.record_group
    if group is None:  # no groups of its own: the classes are the groups
        group_min, group_avg, groups = class_min, class_avg, release.n_classes
    else:
        g = np.asarray(group, dtype=np.int64)
        keep = released & (g >= 0)
        _, counts = np.unique(g[keep], return_counts=True)
        group_min, group_avg = _sizes(counts)
        groups = len(counts)
    attack = background_knowledge_attack(release, ds.sensitive, ds.priors, threshold=BREACH_THRESHOLD)
    return {
        "gcp": float(m["gcp"]),
        "record_linkage": float(m["record_linkage"]),
        "group_min": group_min,
        "group_avg": group_avg,
        "class_min": class_min,
        "class_avg": class_avg,
        "suppressed": int(release.n_suppressed),
        "classes": int(release.n_classes),
        "groups": int(groups),
        "bk_clusters": np.nan if release.bk.clusters is None else release.bk.clusters,
        "seconds": float(seconds),
        "bk_mean_jsd": attack.mean_jsd,
        "bk_max_jsd": attack.max_jsd,
        "bk_breached_share": attack.breached_share,
        "homogeneity": homogeneity_attack(release, ds.sensitive),
        "records": int(ds.table.n),
    }


def _warm_up(ds: Dataset) -> None:
    """Compile (or load) the numba kernels on a small slice so no grid run's time includes it."""
    n = min(ds.table.n, 300)
    frame = ds.table.frame.iloc[:n] if hasattr(ds.table, "frame") else None
    if frame is None:
        return
    small = Dataset(ds.name, Table(frame, ds.table.schema), ds.sensitive, None, ds.distance, "")
    from anonkit.knowledge import kernel_priors

    small.priors = kernel_priors(small.table, ds.sensitive)
    for method in METHODS:
        anonymize(small, method, 5, 0.5, 0.8)


def run_grid(
    ds: Dataset,
    grid: Grid = FULL_GRID,
    *,
    cache: dict | None = None,
    progress: Progress | None = None,
    done: int = 0,
    total: int = 0,
) -> pd.DataFrame:
    """One row per (sweep, configuration, method); a configuration already in ``cache`` is reused."""
    cache = {} if cache is None else cache
    rows = []
    for sweep, k, t, J in grid.configurations():
        for method in METHODS:
            key = (ds.name, *_key(method, k, t, J))
            reused = key in cache
            if not reused:
                if progress:
                    progress(done, total, f"{ds.name}: {method} k={k} t={t:g} J={J:g}")
                rel, secs = anonymize(ds, method, k, t, J)
                cache[key] = measure(ds, rel, secs)
                done += 1
            rows.append(
                {
                    "dataset": ds.name,
                    "sweep": sweep,
                    "method": method,
                    "k": int(k),
                    "t": float(t),
                    "J": float(J),
                    "uses_t": method != K_PRIMACY,
                    **cache[key],
                    "reused": reused,
                }
            )
    return pd.DataFrame(rows, columns=RUN_COLUMNS)


def attack_rows(
    ds: Dataset,
    grid: Grid,
    cache: dict,
    *,
    progress: Progress | None = None,
    done: int = 0,
    total: int = 0,
) -> pd.DataFrame:
    """The "defence working" table: the three methods (from ``cache``) and Mondrian and Flash at
    k = grid.k, J = grid.J and every ``grid.attack_ts``, plus the adversary's priors alone."""
    rows = []
    p = ds.priors.per_record() if hasattr(ds.priors, "per_record") else np.asarray(ds.priors)
    codes = np.asarray(ds.table.sensitive_codes[ds.sensitive], dtype=np.int64)
    own = p[np.arange(len(codes)), codes]
    rows.append(
        {
            "dataset": ds.name,
            "k": np.nan,
            "t": np.nan,
            "J": np.nan,
            "method": "priors only",
            "gcp": 1.0,
            "record_linkage": 0.0,
            "suppressed": ds.table.n,
            "classes": 0,
            "class_min": np.nan,
            "class_avg": np.nan,
            "bk_mean_jsd": 0.0,
            "bk_max_jsd": 0.0,
            "bk_breached_share": float((own >= BREACH_THRESHOLD - 1e-12).mean()),
            "homogeneity": np.nan,
            "seconds": ds.prior_seconds,
        }
    )
    for t in grid.attack_ts:
        for method in (*METHODS, *BASELINES):
            key = (ds.name, *_key(method, grid.k, t, grid.J))
            if key not in cache:
                if progress:
                    progress(done, total, f"{ds.name}: {method} k={grid.k} t={t:g} (attack table)")
                rel, secs = anonymize(ds, method, grid.k, t, grid.J)
                cache[key] = measure(ds, rel, secs)
                done += 1
            m = cache[key]
            rows.append(
                {
                    "dataset": ds.name,
                    "k": grid.k,
                    "t": float(t),
                    "J": float(grid.J) if method in METHODS else np.nan,
                    "method": method,
                    **{c: m[c] for c in ATTACK_COLUMNS if c in m},
                }
            )
    return pd.DataFrame(rows, columns=ATTACK_COLUMNS)
