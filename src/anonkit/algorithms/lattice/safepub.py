"""Algorithm ``safepub``: (ε, δ)-differentially private generalization (Bild, Kuhn & Prasser, PoPETs
2018; ARX's ``EDDifferentialPrivacy`` with a ``DataGeneralizationScheme`` or its
``DataDependentEDDPAlgorithm``).

1. **Sample**: every record is kept independently with probability β (:mod:`.._dp_draws`); the
   records left out are never published (suppressed up front, and counted as ``unsampled``).
2. **Generalize** the sample by one full-domain transformation:

   * *data-independent* — ``levels`` (a level per quasi-identifier) or ``degree`` (ARX's
     ``GeneralizationDegree``: ``round(factor · height)`` per quasi-identifier), chosen without the
     data, so the whole ε goes to the sampling step;
   * *data-dependent* — ``steps`` steps of ARX's search: from the lattice's top, each step adds the
     pivot's predecessors (one level lower in one attribute) to the candidates, removes the pivot and
     picks the next pivot by the exponential mechanism with ``search_budget / steps`` of ε on ARX's
     score of the Loss metric (the paper's §5.1: minus the records suppressed or unsampled plus every
     published record's mean domain share, divided by ``k − 1``, its sensitivity); the release is the
     pivot with the best score, as ARX tracks it. ``search_budget`` is spent from ε (ARX's
     ``setDPSearchBudget``: an amount of ε, not a share), the rest (``ε − search_budget``) gives β and k.
3. **Suppress** every class of the sample smaller than k (and failing any other model); no
   suppression limit applies (ARX ignores it under differential privacy), so the algorithm has no
   ``max_suppression``: a config that sets one is refused.

With ``seeded: true`` the draws come from NumPy seeded by the run's seed: reproducible and *not*
private (the summary's notes say so). Without it (the default) they come from OpenDP and the run's
seed is ignored: a private run is deliberately not reproducible (ARX draws from ``SecureRandom``).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from typing import Annotated, Literal

import numpy as np
from pydantic import Field

from anonkit.algorithms.common import check_models
from anonkit.algorithms.lattice._dp_draws import exponential_choice, require_opendp, sample_records
from anonkit.algorithms.spec import algorithm
from anonkit.algorithms.transform import evaluate_node, release_node
from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.models.differential_privacy import DEFAULT_SEARCH_BUDGET, DifferentialPrivacy
from anonkit.release import Release
from anonkit.table import Table

#: ARX's ``GeneralizationDegree`` factors: a quasi-identifier's level is ``round(factor · height)``
DEGREES: dict[str, float] = {"none": 0.0, "low": 0.2, "low-medium": 0.4, "medium": 0.5, "medium-high": 0.6,
                             "high": 0.8, "complete": 1.0}
#: the warning a seeded run carries
SEEDED_WARNING = "a seeded run is reproducible and NOT differentially private: publish only unseeded runs"
#: the search metric whose score ARX defines for the data-dependent search (the paper's §5.1)
SCORED_METRICS = ("loss",)
#: the options that name the transformation (exactly one is given)
TRANSFORMATIONS = ("levels", "degree", "steps")


def _dp_model(models: list[Criterion]) -> DifferentialPrivacy:
    found = [m for m in models if isinstance(m, DifferentialPrivacy)]
    if len(found) != 1:
        raise InputError("safepub needs exactly one differential-privacy model in privacy:", key="privacy")
    return found[0]


def check_options(options: Mapping[str, object], where: str = "") -> None:
    """The options that go together, checked when they are validated (before any work): exactly one
    transformation — ``levels`` or ``degree`` (data-independent) or ``steps`` (data-dependent) — and
    a ``search_budget`` above 0 with ``steps``, and only with them (it is ε spent by the search; without
    a search it would be ε withheld for nothing, so it is refused rather than ignored)."""
    given = [name for name in TRANSFORMATIONS if options.get(name) is not None]
    if len(given) != 1:
        got = f", got {' and '.join(given)}" if given else ""
        raise InputError(f"safepub needs exactly one of levels, degree (data-independent) or steps (data-dependent)"
                         f"{got}", key=f"{where}{given[-1] if given else 'levels'}")
    budget = float(options.get("search_budget", 0.0))  # type: ignore[arg-type]
    if given == ["steps"] and budget <= 0:
        raise InputError("a data-dependent safepub search (steps) needs a search_budget above 0 (an amount of "
                         "epsilon)", key=f"{where}search_budget")
    if given != ["steps"] and budget > 0:
        raise InputError("search_budget is spent only by the data-dependent search: give steps, or drop it",
                         key=f"{where}search_budget")


def _implies(table: Table, models: list[Criterion], options: Mapping[str, object]) -> list[Criterion]:
    """The models with the search budget in the differential-privacy model (its k comes from what
    is left of ε); checks, before any work and before the proofs that the models cannot be met, that
    OpenDP is installed, δ < 1/n, the engine is local and the ``levels`` fit the quasi-identifiers."""
    require_opendp()
    dp_model = _dp_model(models)
    dp_model.check_records(table.n_records)
    if table.weights is not None:
        raise InputError("safepub samples records one by one and runs on the local engine only", key="engine")
    if options.get("levels") is not None:
        fixed_levels(table, options["levels"], None)  # type: ignore[arg-type]
    budget = float(options.get("search_budget", 0.0))  # type: ignore[arg-type]
    replaced = dataclasses.replace(dp_model, search_budget=budget)
    return [replaced if m is dp_model else m for m in models]


def fixed_levels(table: Table, levels: dict[str, int] | list[int] | None, degree: str | None) -> list[int]:
    """The data-independent transformation: ``levels`` as given (checked) or ARX's ``degree``."""
    if degree is not None:
        return [min(h.height, max(0, int(np.floor(DEGREES[degree] * h.height + 0.5)))) for h in table.hierarchies]
    assert levels is not None
    if isinstance(levels, dict):
        unknown = [q for q in levels if q not in table.qi]
        if unknown:
            raise InputError(f"levels name an attribute that is not a quasi-identifier (they are "
                             f"{', '.join(table.qi)})", column=unknown[0], key="algorithm.levels")
        vec = [int(levels.get(q, 0)) for q in table.qi]
    else:
        vec = [int(x) for x in levels]
        if len(vec) != len(table.qi):
            raise InputError(f"levels must list {len(table.qi)} values, one per quasi-identifier "
                             f"({', '.join(table.qi)}), got {len(vec)}", key="algorithm.levels")
    for j, q in enumerate(table.qi):
        if not 0 <= vec[j] <= table.hierarchies[j].height:
            raise InputError(f"level must lie in [0, {table.hierarchies[j].height}]", column=q, value=vec[j],
                             key="algorithm.levels")
    return vec


def sampled(table: Table, keep: np.ndarray) -> Table:
    """``table`` with the records outside the sample suppressed up front (never published)."""
    out = object.__new__(Table)
    out.__dict__.update({k: v for k, v in table.__dict__.items() if k not in ("distinct", "_flat_maps")})
    out.presuppressed = table.presuppressed | ~keep
    return out


def loss_score(table: Table, levels: tuple[int, ...], ev_ok: np.ndarray, tuple_class: np.ndarray,
               k: int) -> float:
    """ARX's differentially private score of the Loss metric (higher is better; sensitivity 1):
    ``−(outliers + Σ_records mean_j share_j) / (k − 1)``, where outliers are the records not
    published (unsampled or in a suppressed class) and ``share_j`` is the share of quasi-identifier
    ``j``'s hierarchy leaves its published value covers."""
    d = table.distinct
    weight = np.where(np.isin(np.arange(d.size), d.inverse[table.presuppressed]), 0.0, d.counts)
    published = ev_ok[tuple_class] & (weight > 0)
    shares = np.zeros(d.size)
    for j, h in enumerate(table.hierarchies):
        node = h.maps[levels[j]]
        leaves = np.bincount(node, minlength=int(node.max()) + 1)
        shares += leaves[node[d.tuples[:, j]]] / h.n_leaves
    shares /= max(1, len(table.hierarchies))
    outliers = table.n_records - float(weight[published].sum())
    score = -(outliers + float((shares * weight)[published].sum()))
    return score / (k - 1) if k > 1 else score


def _search(table: Table, models: list[Criterion], k: int, steps: int, epsilon_step: float,
            rng: np.random.Generator | None) -> tuple[tuple[int, ...], float, int]:
    """ARX's data-dependent search: the best-scored pivot of ``steps`` exponential-mechanism steps,
    its score (ARX's ``getHighestScore``) and how many transformations were scored."""
    scores: dict[tuple[int, ...], float] = {}

    def score(node: tuple[int, ...]) -> float:
        if node not in scores:
            ev = evaluate_node(table, node, models, 1.0)
            scores[node] = loss_score(table, node, ev.class_ok, ev.tuple_class, k)
        return scores[node]

    pivot = tuple(h.height for h in table.hierarchies)
    best, best_score = pivot, score(pivot)
    candidates: dict[tuple[int, ...], float] = {pivot: best_score}
    for _ in range(steps):
        for j in range(len(pivot)):
            if pivot[j] > 0:
                down = (*pivot[:j], pivot[j] - 1, *pivot[j + 1:])
                candidates.setdefault(down, score(down))
        candidates.pop(pivot, None)
        if not candidates:
            break
        nodes = sorted(candidates)  # a fixed order: the draw alone decides
        pivot = nodes[exponential_choice(np.array([candidates[n] for n in nodes]), epsilon_step, rng)]
        if candidates[pivot] > best_score:
            best, best_score = pivot, candidates[pivot]
    return best, best_score, len(scores)


#: the model this module enforces names it (the model's module may not name an algorithm)
DifferentialPrivacy.enforced_by = ("safepub",)


@algorithm(
    "safepub",
    family="lattice",
    randomized=True,
    summary="(epsilon, delta)-differential privacy by SafePub: sample records with probability beta, generalize by a "
            "given or privately searched transformation, suppress classes smaller than k",
    on_failure="raise epsilon or delta, or choose higher levels",
    implies=_implies,
    check=check_options,
    progress="",
)
def safepub(
    table: Table,
    models: list[Criterion],
    *,
    levels: dict[str, int] | list[int] | None = None,
    degree: Literal["none", "low", "low-medium", "medium", "medium-high", "high", "complete"] | None = None,
    steps: Annotated[int, Field(ge=1, le=100_000)] | None = None,
    search_budget: Annotated[float, Field(ge=0, allow_inf_nan=False)] = DEFAULT_SEARCH_BUDGET,
    seeded: bool = False,
    seed: int | None = None,
    metric: object = None,
) -> Release:
    """SafePub: sample, generalize, suppress classes smaller than k.

    Parameters
    ----------
    levels:
        The data-independent transformation: quasi-identifier → level, or a level per quasi-identifier.
    degree:
        The data-independent transformation as ARX's generalization degree (round(factor · height) per attribute).
    steps:
        The data-dependent search's steps (exponential-mechanism choices); give search_budget with it.
    search_budget:
        The amount of epsilon the data-dependent search spends (ARX's DP search budget), below epsilon.
    seeded:
        Draw from the run's seed with NumPy: reproducible, for tests only, and NOT private (default: OpenDP's samplers).
    """
    start = time.perf_counter()
    check_models(table, models)
    dp_model = _dp_model(models)
    k, beta = dp_model.k, dp_model.beta
    name = getattr(metric, "name", "loss")
    if steps is not None and name not in SCORED_METRICS:
        raise InputError(f"safepub's data-dependent search scores transformations by "
                         f"{', '.join(SCORED_METRICS)} only, not {name}: drop metric or give metric: loss",
                         key="algorithm.metric")
    rng = np.random.default_rng(seed or 0) if seeded else None
    keep = sample_records(table.n, beta, rng)
    sample = sampled(table, keep)
    checked, best_score = 1, None
    if steps is None:
        node = tuple(fixed_levels(table, levels, degree))
    else:
        node, best_score, checked = _search(sample, models, k, steps, search_budget / steps, rng)
    ev = evaluate_node(sample, node, models, 1.0)
    release = release_node(sample, ev, algorithm="safepub", seconds=time.perf_counter() - start)
    unsampled = int((~keep & ~table.presuppressed).sum())
    release.notes.update({
        "epsilon": dp_model.epsilon, "delta": dp_model.delta, "beta": beta, "k": k,
        "search_budget": search_budget, "steps": steps or 0, "checked_transformations": checked,
        **({"search_score": best_score} if best_score is not None else {}),  # ARX's getHighestScore under DP
        "sampled": int(keep.sum()), "unsampled": unsampled, "suppressed_in_sample": int(ev.suppressed),
        "search": "data-dependent" if steps is not None else "data-independent",
        "guarantee": (f"({dp_model.epsilon:g}, {dp_model.delta:g})-differential privacy: whether any one person's "
                      f"record is in the input changes the probability of any release by at most a factor "
                      f"e^{dp_model.epsilon:g}, except with probability {dp_model.delta:g}"
                      if not seeded else "none: " + SEEDED_WARNING),
    })
    if seeded:
        release.notes["warning"] = SEEDED_WARNING
    return release
