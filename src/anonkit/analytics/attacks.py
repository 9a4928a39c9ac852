"""Attack simulators (spec §2.8): homogeneity and background-knowledge attacks on a release.

::

    from anonkit.analytics import background_knowledge_attack, homogeneity_attack
    from anonkit.knowledge import kernel_priors

    priors = kernel_priors(release.table, "disease")
    report = background_knowledge_attack(release, "disease", priors)
    report.mean_jsd, report.max_jsd, report.breached_share
    homogeneity_attack(release, "disease")   # share of released records in single-valued classes

The adversary sees every released class: who is in it (their priors) and the multiset of its
sensitive values, but not who holds which. Their posterior for each record comes from the Ω-estimate
or the exact enumeration of §1.7. Suppressed records are never published and are not attacked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from anonkit.analytics.class_attacks import homogeneous_classes
from anonkit.errors import InputError
from anonkit.knowledge import EXACT_MAX, Priors, exact_posterior, jsd, omega_posterior_groups
from anonkit.release import Release

PosteriorMethod = Literal["omega", "exact"]


@dataclass
class AttackReport:
    """Outcome of :func:`background_knowledge_attack`.

    Attributes
    ----------
    mean_jsd, max_jsd:
        Mean and maximum ``JSD(prior, posterior)`` (base 2, in ``[0, 1]``) over the released records;
        0 when nothing is released.
    breached_share:
        Share of the released records whose true sensitive value gets posterior ``≥ threshold``.
    records:
        Input row index of every released record (the row order of ``posterior`` and ``jsd``).
    posterior:
        ``(n_released × S)`` posterior of every released record.
    jsd:
        ``(n_released,)`` JSD between each released record's prior and posterior.
    breached:
        ``(n_released,)`` whether the record is breached.
    approximated:
        Number of classes for which ``posterior="exact"`` fell back to the Ω-estimate (more than
        :data:`~anonkit.knowledge.EXACT_MAX` records).
    """

    mean_jsd: float
    max_jsd: float
    breached_share: float
    records: np.ndarray
    posterior: np.ndarray
    jsd: np.ndarray
    breached: np.ndarray
    threshold: float = 0.8
    method: str = "omega"
    approximated: int = 0

    @property
    def n_breached(self) -> int:
        return int(self.breached.sum())


def _sensitive_codes(release: Release, sensitive: str) -> tuple[np.ndarray, int]:
    table = release.table
    if sensitive not in table.sensitive_codes:
        raise InputError("not a sensitive attribute of the table", column=sensitive)
    codes = np.asarray(table.sensitive_codes[sensitive], dtype=np.int64)
    return codes, len(table.domains[sensitive].labels)


def _prior_matrix(priors: Priors | ArrayLike, n: int, s: int) -> np.ndarray:
    p = priors.per_record() if isinstance(priors, Priors) else priors
    p = np.asarray(p, dtype=np.float64)
    if p.shape != (n, s):
        raise ValueError(
            f"priors must be one row per input record over the {s} sensitive values: "
            f"expected shape ({n}, {s}), got {p.shape}"
        )
    return p


def background_knowledge_attack(
    release: Release,
    sensitive: str,
    priors: Priors | ArrayLike,
    *,
    posterior: PosteriorMethod = "omega",
    threshold: float = 0.8,
) -> AttackReport:
    """Simulate the background-knowledge adversary of §1.7/§2.8 against every released record.

    ``priors`` is a :class:`~anonkit.knowledge.Priors` whose records are aligned with
    ``release.table`` or an ``(n × S)`` array of per-record priors over the attribute's domain.
    ``posterior="exact"`` enumerates the assignments of classes of at most
    :data:`~anonkit.knowledge.EXACT_MAX` records and uses the Ω-estimate for larger ones (counted in
    :attr:`AttackReport.approximated`).
    """
    if posterior not in ("omega", "exact"):
        raise ValueError(f"unknown posterior {posterior!r}; allowed: 'omega', 'exact'")
    codes, s = _sensitive_codes(release, sensitive)
    n = len(codes)
    p_all = _prior_matrix(priors, n, s)
    rc = np.asarray(release.record_class, dtype=np.int64)
    records = np.flatnonzero(rc >= 0)
    p = p_all[records]
    cls = rc[records]
    sa = codes[records]
    post = omega_posterior_groups(p, cls, sa) if len(records) else np.zeros((0, s))
    approximated = 0
    if posterior == "exact" and len(records):
        order = np.argsort(cls, kind="stable")
        starts = np.flatnonzero(np.r_[True, cls[order][1:] != cls[order][:-1]])
        for rows in np.split(order, starts[1:]):
            if len(rows) > EXACT_MAX:
                approximated += 1
                continue
            post[rows] = exact_posterior(p[rows], sa[rows])
    div = np.asarray(jsd(p, post), dtype=np.float64).reshape(-1)
    breached = post[np.arange(len(records)), sa] >= threshold - 1e-12 if len(records) else np.zeros(0, dtype=bool)
    m = len(records)
    return AttackReport(
        mean_jsd=float(div.mean()) if m else 0.0,
        max_jsd=float(div.max()) if m else 0.0,
        breached_share=float(breached.mean()) if m else 0.0,
        records=records,
        posterior=post,
        jsd=div,
        breached=breached,
        threshold=threshold,
        method=posterior,
        approximated=approximated,
    )


def homogeneity_attack(release: Release, sensitive: str) -> float:
    """Share of the released records whose class holds a single sensitive value (§2.8).

    The adversary who knows a record's class learns its sensitive value for sure. 0 when nothing is
    released. This judges the release's own classes (``release.record_class``); to judge what is
    published, whoever made it, read it with :func:`anonkit.analytics.published.published_release` and
    use :func:`anonkit.analytics.class_attacks.attack_homogeneity`, which also reports a baseline.
    """
    codes, s = _sensitive_codes(release, sensitive)
    rc = np.asarray(release.record_class, dtype=np.int64)
    kept = rc >= 0
    if not kept.any():
        return 0.0
    cls, sa = rc[kept], codes[kept]
    k = int(cls.max()) + 1
    hist = np.bincount(cls * s + sa, minlength=k * s).reshape(k, s)
    return float(homogeneous_classes(hist)[cls].mean())


def background_knowledge_exclusion_attack(release: Release, sensitive: str, excluded: ArrayLike) -> float:
    """Share of the released records on which an exclusion-knowledge attack succeeds (§2.8).

    ``excluded`` is an ``(n × S)`` boolean array: ``excluded[i, s]`` means the adversary can rule out
    value ``s`` for record ``i`` (the columns follow ``release.table.domains[sensitive].labels``). The
    attack succeeds on a released record when at most one of its class's sensitive values survives
    the exclusions. 0 when nothing is released.
    """
    codes, s = _sensitive_codes(release, sensitive)
    n = len(codes)
    ex = np.asarray(excluded, dtype=bool)
    if ex.shape != (n, s):
        raise ValueError(f"excluded must have shape ({n}, {s}), got {ex.shape}")
    rc = np.asarray(release.record_class, dtype=np.int64)
    kept = rc >= 0
    if not kept.any():
        return 0.0
    cls, sa = rc[kept], codes[kept]
    present = np.zeros((int(cls.max()) + 1, s), dtype=bool)
    present[cls, sa] = True
    surviving = (present[cls] & ~ex[kept]).sum(axis=1)
    return float((surviving <= 1).mean())
