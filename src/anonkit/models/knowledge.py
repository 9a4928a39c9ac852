"""Background-knowledge privacy with Jensen–Shannon divergence (spec §1.7; paper A, UHRA).

The adversary holds a prior belief ``P(S | QI)`` about every individual (spec §3; kernel estimate by
default). A release is judged *per equivalence class*, from the priors of the records in it — so,
unlike the other models, this one needs to know which input records a class holds, not only its
sensitive histogram (declared ``needs=("records", …)``: its ``record_level`` is true). Two tests,
both with base-2 JSD:

* ``"pairwise"`` — UHRA's and k-primacy's guarantee (§4.1): every two records of a class have
  ``JSD(prior_a, prior_b) ≤ J``;
* ``"posterior"`` — BK-safety of §1.7, the guarantee BKA-JS checks when it closes a group: every
  record's ``JSD(prior, posterior) ≤ J``, the posterior being the Ω-estimate (default) or the exact
  enumeration (``posterior="exact"``, classes of at most 8 records; larger ones use Ω).

``test="auto"`` (the default) means: the guarantee of the algorithm that runs — ``posterior`` for
``bka-js``, ``pairwise`` otherwise (see :meth:`BackgroundKnowledge.resolved`).

Only the background-knowledge algorithms (``uhra``, ``bka-js``, ``k-primacy``) enforce this model;
:func:`anonkit.verifier.verify` checks it when given the input and the row link of the release.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from anonkit.errors import InputError
from anonkit.knowledge.priors import DEFAULT_BANDWIDTH
from anonkit.models.base import Criterion
from anonkit.models.ldiversity import SENSITIVE
from anonkit.models.spec import Param, privacy_model
from anonkit.stats import ClassStats

if TYPE_CHECKING:
    from anonkit.knowledge import Priors
    from anonkit.table import Table

BKTest = Literal["auto", "pairwise", "posterior"]
PRIOR_KINDS = ("kernel", "classifier", "matrix")
BK_TESTS = ("auto", "pairwise", "posterior")
POSTERIORS = ("omega", "exact")
#: Upper bound on ``pairs × S`` entries computed at once by :func:`max_pairwise_jsd`.
_BLOCK = 2_000_000


@privacy_model(
    "background-knowledge", label="background-knowledge",
    summary="every class keeps what an adversary with prior beliefs learns within a Jensen–Shannon divergence J",
    params=(
        SENSITIVE,
        Param("J", "number", ge=0, le=1, note=" (base-2 JSD)", doc="the bound on the base-2 Jensen–Shannon divergence"),
        Param("prior", "choice", default="kernel", choices=PRIOR_KINDS,
              doc="how the adversary's priors are estimated (config: prior: KIND or a mapping with kind)"),
        Param("bandwidth", "number", default=DEFAULT_BANDWIDTH, gt=0, in_config=False,
              doc="the kernel's bandwidth per normalized attribute (config: prior.bandwidth)"),
        Param("test", "choice", default="auto", choices=BK_TESTS,
              doc="pairwise, posterior, or auto: the enforcing algorithm's own guarantee"),
        Param("posterior", "choice", default="omega", choices=POSTERIORS,
              doc="the posterior of the posterior test: the Ω-estimate or exact enumeration"),
    ),
    needs=("histogram", "records"), monotonic_generalization=False, monotonic_suppression=False,
)
@dataclass(frozen=True)
class BackgroundKnowledge(Criterion):
    """Bound, at ``J``, what an adversary with prior beliefs learns from a class (§1.7).

    Parameters
    ----------
    sensitive:
        The sensitive attribute the priors are about.
    J:
        Threshold on the base-2 Jensen–Shannon divergence, in ``[0, 1]`` (spec register #2).
    prior:
        How the adversary's priors are estimated when the caller supplies none: ``"kernel"``
        (§3.2, product Epanechnikov kernel, ``bandwidth`` per normalized attribute; the default),
        ``"classifier"`` (a scikit-learn classifier, §3 (c)) or ``"matrix"`` (the caller must then
        pass the priors).
    test:
        ``"pairwise"``, ``"posterior"`` or ``"auto"`` (see the module docstring).
    posterior:
        Posterior estimate of the ``"posterior"`` test: ``"omega"`` or ``"exact"``.
    """

    sensitive: str
    J: float
    prior: str = "kernel"
    bandwidth: float = DEFAULT_BANDWIDTH
    test: BKTest = "auto"
    posterior: Literal["omega", "exact"] = "omega"

    @property
    def attribute(self) -> str:
        return self.sensitive

    def resolved(self, guarantee: str) -> BackgroundKnowledge:
        """This model with ``test="auto"`` replaced by the enforcing algorithm's ``guarantee``
        (``pairwise`` or ``posterior``, its declaration's ``bk_test``)."""
        if self.test != "auto":
            return self
        return replace(self, test=guarantee)

    @property
    def effective_test(self) -> str:
        return "pairwise" if self.test == "auto" else self.test

    # ------------------------------------------------------------------ priors
    def priors(self, table: Table, *, external: Table | None = None, classifier: Any = None) -> Priors:
        """The adversary's priors for every record of ``table`` (``prior`` kind of this model)."""
        from anonkit.knowledge import classifier_priors, kernel_priors

        if self.prior == "kernel":
            return kernel_priors(table, self.sensitive, bandwidth=self.bandwidth, external=external)
        if self.prior == "classifier":
            return classifier_priors(table, self.sensitive, model=classifier, external=external)
        raise InputError(
            "prior 'matrix' needs the priors to be supplied (API: priors=…; config: prior: {matrix: PATH})",
            key="prior",
        )

    # ------------------------------------------------------------------ judging
    def passes(self, stats: ClassStats) -> np.ndarray:
        raise InputError(
            "the background-knowledge model is judged from the records of each class; only the algorithms "
            "that declare they enforce it do (anonkit algorithms lists them)",
            key="model",
        )

    def achieved(self, stats: ClassStats) -> float:
        return self.passes(stats)  # type: ignore[return-value]

    def class_divergence(
        self, priors: np.ndarray, record_class: np.ndarray, n_classes: int, sa_codes: np.ndarray
    ) -> np.ndarray:
        """Per class, the divergence the test bounds: the largest pairwise prior JSD (``pairwise``)
        or the largest ``JSD(prior, posterior)`` of a member (``posterior``).

        ``priors`` is ``(n × S)`` (one row per record), ``record_class[i]`` the class of record ``i``
        (−1: not released) and ``sa_codes[i]`` its sensitive code.
        """
        from anonkit.knowledge import EXACT_MAX, exact_posterior, jsd, omega_posterior_groups

        p = np.asarray(priors, dtype=np.float64)
        rc = np.asarray(record_class, dtype=np.int64)
        out = np.zeros(n_classes)
        keep = np.flatnonzero(rc >= 0)
        if not keep.size:
            return out
        cls = rc[keep]
        if self.effective_test == "pairwise":
            return max_pairwise_jsd(p[keep], cls, n_classes)
        sa = np.asarray(sa_codes, dtype=np.int64)[keep]
        post = omega_posterior_groups(p[keep], cls, sa)
        if self.posterior == "exact":
            order = np.argsort(cls, kind="stable")
            starts = np.flatnonzero(np.r_[True, cls[order][1:] != cls[order][:-1]])
            for rows in np.split(order, starts[1:]):
                if len(rows) <= EXACT_MAX:
                    post[rows] = exact_posterior(p[keep][rows], sa[rows])
        div = np.asarray(jsd(p[keep], post), dtype=np.float64).reshape(-1)
        np.maximum.at(out, cls, div)
        return out

    def class_passes(
        self, priors: np.ndarray, record_class: np.ndarray, n_classes: int, sa_codes: np.ndarray
    ) -> np.ndarray:
        """One boolean per class: does it meet the bound ``J``?"""
        return self.class_divergence(priors, record_class, n_classes, sa_codes) <= self.J + 1e-12

    def describe(self) -> str:
        return f"background knowledge of {self.sensitive}: {self.effective_test} JSD ≤ {self.J:g} ({self.prior} prior)"


def max_pairwise_jsd(priors: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """``(n_groups,)`` largest base-2 JSD between two priors of the same group (0 for one distinct prior).

    Works on the distinct prior vectors of each group (rounded to 12 decimals), in blocks, so a class
    of many records with few distinct priors costs little.
    """
    from anonkit.knowledge import jsd

    p = np.asarray(priors, dtype=np.float64)
    g = np.asarray(group, dtype=np.int64)
    out = np.zeros(n_groups)
    if not len(g):
        return out
    key = np.round(p, 12) + 0.0
    _, vec = np.unique(key, axis=0, return_inverse=True)
    vec = vec.reshape(-1)
    pair = np.unique(np.stack([g, vec], axis=1), axis=0)  # distinct (group, vector), sorted by group
    starts = np.flatnonzero(np.r_[True, pair[1:, 0] != pair[:-1, 0]])
    ends = np.r_[starts[1:], len(pair)]
    first = np.empty(int(vec.max()) + 1, dtype=np.int64)
    first[vec[::-1]] = np.arange(len(vec) - 1, -1, -1)
    s = p.shape[1]
    for a, b in zip(starts, ends, strict=True):
        if b - a < 2:
            continue
        v = p[first[pair[a:b, 1]]]
        u = len(v)
        rows = max(1, _BLOCK // max(1, u * s))
        best = 0.0
        for i in range(0, u, rows):
            d = np.asarray(jsd(v[i : i + rows, None, :], v[None, :, :]))
            best = max(best, float(d.max()))
        out[pair[a, 0]] = best
    return out
