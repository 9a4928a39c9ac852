"""The data sets: :class:`Dataset`, Adult and a BKseq release with the adversary's priors (kernel or the
incremental reconstruction)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.experiments.uhra.constants import (
    ADULT_QIS,
    ADULT_SENSITIVE,
    BKSEQ_QIS,
    BKSEQ_RECORDS,
    BKSEQ_RELEASES,
    BKSEQ_SENSITIVE,
)
from anonkit.experiments.uhra.grid import FULL_GRID
from anonkit.table import Table


@dataclass
class Dataset:
    """One data set of the experiment with its adversary's priors (computed once)."""

    name: str
    table: Table
    sensitive: str
    priors: Any
    distance: str
    description: str
    prior_seconds: float = 0.0
    hierarchies: dict = field(default_factory=dict)


def _reference_text(table: Table, sensitive: str, top: int = 2) -> str:
    dom = table.domains[sensitive]
    ref = np.asarray(dom.reference, dtype=float)
    order = np.argsort(-ref, kind="stable")[:top]
    return ", ".join(f"P({dom.labels[i]}) = {ref[i]:.3f}" for i in order)


def adult_dataset(*, sample: int | None = None, seed: int = 0) -> Dataset:
    """Adult as paper A uses it (QIs age numeric, sex, education; sensitive salary-class) with its
    kernel priors; ``sample``: that many records drawn without replacement with ``seed``."""
    from anonkit import Schema, load_adult
    from anonkit.knowledge import kernel_priors

    frame, hierarchies = load_adult()
    if sample is not None and 0 < sample < len(frame):
        rows = np.sort(np.random.default_rng(seed).choice(len(frame), size=int(sample), replace=False))
        frame = frame.iloc[rows].reset_index(drop=True)
    schema = Schema.of(
        quasi=list(ADULT_QIS),
        sensitive=[ADULT_SENSITIVE],
        hierarchies={q: hierarchies[q] for q in ADULT_QIS},
        types={"age": "numeric"},
    )
    table = Table(frame[[*ADULT_QIS, ADULT_SENSITIVE]], schema)
    start = time.perf_counter()
    priors = kernel_priors(table, ADULT_SENSITIVE)
    took = time.perf_counter() - start
    what = "the bundled extract" if len(frame) >= 30000 else f"a seeded sample (seed {seed})"
    desc = (
        f"adult: {table.n:,} records ({what}); QIs age (numeric), sex, education; sensitive "
        f"{ADULT_SENSITIVE} ({_reference_text(table, ADULT_SENSITIVE)}), equal distance; kernel priors on "
        f"{table.distinct.size:,} distinct QI tuples ({took:.1f} s)"
    )
    return Dataset("adult", table, ADULT_SENSITIVE, priors, "equal", desc, took, {q: hierarchies[q] for q in ADULT_QIS})


def _bkseq_table(frame: pd.DataFrame, hierarchies: dict) -> Table:
    from anonkit import Schema

    schema = Schema.of(
        quasi=list(BKSEQ_QIS),
        sensitive=[BKSEQ_SENSITIVE],
        hierarchies={**{q: hierarchies[q] for q in BKSEQ_QIS}, BKSEQ_SENSITIVE: hierarchies[BKSEQ_SENSITIVE]},
        types={"age": "numeric", "weight": "numeric"},
    )
    return Table(frame[[*BKSEQ_QIS, BKSEQ_SENSITIVE]].reset_index(drop=True), schema)


def _codes_in(table: Table, values: pd.Series) -> np.ndarray:
    """Codes of sensitive ``values`` in ``table``'s domain (−1 for a value the domain lacks)."""
    labels = pd.Index([str(x) for x in table.domains[BKSEQ_SENSITIVE].labels])
    return labels.get_indexer(values.astype(str))


def _incremental_priors(frame: pd.DataFrame, release: int, table: Table, kernel: Any, hierarchies: dict) -> Any:
    """The §3.3 reconstruction for release ``release`` (see the package docstring)."""
    from anonkit.algorithms.cluster.uhra import uhra
    from anonkit.analytics import background_knowledge_attack
    from anonkit.knowledge import incremental_priors, kernel_priors, transition_matrix
    from anonkit.models import BackgroundKnowledge, KAnonymity, TCloseness

    if release < 2:
        raise InputError("incremental priors need a release before the one published", key="bkseq_priors")
    s = table.domains[BKSEQ_SENSITIVE].size
    current = frame[frame["release"] == str(release)].reset_index(drop=True)
    previous = frame[frame["release"] == str(release - 1)].reset_index(drop=True)
    prev_table = _bkseq_table(previous, hierarchies)
    prev_priors = kernel_priors(prev_table, BKSEQ_SENSITIVE)
    models = [
        KAnonymity(FULL_GRID.k),
        TCloseness(BKSEQ_SENSITIVE, FULL_GRID.t),
        BackgroundKnowledge(BKSEQ_SENSITIVE, FULL_GRID.J),
    ]
    published = uhra(prev_table, models, priors=prev_priors, max_suppression=1.0)
    post = prev_priors.per_record().copy()
    attack = background_knowledge_attack(published, BKSEQ_SENSITIVE, prev_priors)
    post[attack.records] = attack.posterior
    # the previous release's beliefs over this release's domain
    cols = _codes_in(table, pd.Series(prev_table.domains[BKSEQ_SENSITIVE].labels))
    beliefs = np.zeros((prev_table.n, s))
    for j, c in enumerate(cols):
        if c >= 0:
            beliefs[:, c] += post[:, j]
    where = pd.Index(previous["patient_id"]).get_indexer(current["patient_id"])
    start = kernel.per_record().copy()
    back = where >= 0
    carried = beliefs[where[back]]
    mass = carried.sum(axis=1)
    ok = mass > 0
    rows = np.flatnonzero(back)[ok]
    start[rows] = carried[ok] / mass[ok, None]
    # the transitions the adversary saw: releases t − 2 → t − 1 (identity before release 3)
    transitions = np.eye(s)
    if release >= 3:
        before = frame[frame["release"] == str(release - 2)].set_index("patient_id")["disease"]
        after = previous.set_index("patient_id")["disease"]
        both = before.index.intersection(after.index)
        b, a = _codes_in(table, before.loc[both]), _codes_in(table, after.loc[both])
        keep = (b >= 0) & (a >= 0)
        transitions = transition_matrix(b[keep], a[keep], s, alpha=1.0)
    return incremental_priors(start, table, BKSEQ_SENSITIVE, transitions=transitions, kernel=kernel)


def bkseq_dataset(
    *,
    records: int = BKSEQ_RECORDS,
    releases: int = BKSEQ_RELEASES,
    release: int | None = None,
    seed: int = 0,
    priors: str = "kernel",
    distance: str = "equal",
) -> Dataset:
    """One release (default the last) of the BKseq-like generator with its priors (see the package
    docstring): QIs gender, age and weight (numeric), sensitive disease (19 values)."""
    from anonkit.datasets import bkseq_hierarchies, make_bkseq
    from anonkit.knowledge import kernel_priors

    if priors not in ("kernel", "incremental"):
        raise InputError(f"bkseq priors must be 'kernel' or 'incremental', got {priors!r}", key="bkseq_priors")
    if distance not in ("equal", "hierarchical", "ordered"):
        raise InputError(f"unknown t-closeness distance {distance!r}", key="bkseq_distance")
    r = int(releases if release is None else release)
    if not 1 <= r <= releases:
        raise InputError(f"release must lie in 1…{releases}, got {r}", key="release")
    frame = make_bkseq(releases=releases, records=records, seed=seed)
    hierarchies = bkseq_hierarchies()
    table = _bkseq_table(frame[frame["release"] == str(r)], hierarchies)
    start = time.perf_counter()
    kernel = kernel_priors(table, BKSEQ_SENSITIVE)
    pri = kernel if priors == "kernel" else _incremental_priors(frame, r, table, kernel, hierarchies)
    took = time.perf_counter() - start
    how = (
        f"kernel priors on {table.distinct.size:,} distinct QI tuples"
        if priors == "kernel"
        else f"incremental priors (release {r - 1} published by UHRA, transitions {r - 2}→{r - 1})"
    )
    desc = (
        f"bkseq: release {r} of {releases} × {records:,} records (generator seed {seed}); QIs gender, "
        f"age, weight (numeric); sensitive disease ({table.domains[BKSEQ_SENSITIVE].size} values, "
        f"{_reference_text(table, BKSEQ_SENSITIVE, 1)}), {distance} distance; {how} ({took:.1f} s)"
    )
    return Dataset("bkseq", table, BKSEQ_SENSITIVE, pri, distance, desc, took, {q: hierarchies[q] for q in BKSEQ_QIS})
