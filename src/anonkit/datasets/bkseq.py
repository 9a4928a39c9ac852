"""A seeded BKseq-like generator: sequential releases of a synthetic medical table (spec §3.4).

Paper A (UHRA) evaluates on "BKseq" (Riboni, Pareschi, Bettini 2012): 24 releases of 4,000 records,
quasi-identifiers gender, age and weight, and a sensitive attribute with 19 disease-stage values.
BKseq is not public, so :func:`make_bkseq` generates a table of the same shape from a documented
model, and :func:`bkseq_hierarchies` gives hierarchies covering every value it can produce.

Columns (every cell is text, like the bundled Adult data)
----------------------------------------------------------
``release``     ``"1"`` … ``str(releases)``.
``patient_id``  ``"P"`` + a zero-padded serial number (``P00001`` …), assigned in order of entry;
                a patient keeps the id in every release he or she is present in.
``gender``      ``"female"`` or ``"male"``.
``age``         integer years, ``"18"`` … ``"90"``.
``weight``      integer kilograms, ``"40"`` … ``"150"``.
``disease``     one of the 19 values of :data:`DISEASES`: ``"healthy"`` or ``"<disease>-<stage>"``.

Diseases (6 diseases × 3 stages + ``healthy`` = 19 values) and their families
------------------------------------------------------------------------------
==================  ================  =====================================================
disease             family            background knowledge built into the onset rates
==================  ================  =====================================================
diabetes            metabolic         rises with age; 3× more frequent in heavy patients
hypertension        cardiovascular    rises with age; 2× in heavy patients
coronary-disease    cardiovascular    rises with age; men 4× women (1.6 vs 0.4)
breast-cancer       cancer            rare in men (1 % of the women's rate)
osteoporosis        musculoskeletal   rises sharply with age; women 4× men; 2× in light patients
alzheimer           neurological      never before 40; mainly 65+; women 1/0.6 × men
==================  ================  =====================================================

The values are ``healthy``, ``diabetes-1`` … ``diabetes-3``, … , ``alzheimer-3``; the disease
hierarchy is disease-stage → family (``healthy`` → ``healthy``) → ``*``.

Bands
-----
Age band ``a``: 0 = 18–39, 1 = 40–64, 2 = 65–90. Weight band ``w``: 0 = below 60 kg (light),
1 = 60–89 kg (normal), 2 = 90 kg and more (heavy). Gender ``g``: 0 = female, 1 = male.

Transition model (one fixed Markov chain per (gender, age band, weight band))
------------------------------------------------------------------------------
A patient has at most one condition at a time. Between two consecutive releases (one *step*, think
of a quarter of a year), the patient's state changes by the row of the chain selected by the
patient's gender, age band and weight band **in the earlier release**:

* from ``healthy``: onset of disease ``d`` at stage 1 with probability
  ``h_d = ONSET[d][a] · GENDER_ONSET[d][g] · WEIGHT_ONSET[d][w]`` (the tables below); stays
  healthy with probability ``1 − Σ_d h_d`` (Σ_d h_d < 0.16 for every row);
* from ``d-s`` with ``s < 3``: to ``d-(s+1)`` with probability
  ``p = min(0.9, PROGRESSION[d] · AGE_PROGRESSION[a] · WEIGHT_PROGRESSION[d][w])``;
* from ``d-1`` only: recovery to ``healthy`` with probability ``RECOVERY[d]``;
* otherwise the state is unchanged; ``d-3`` is absorbing (only turnover removes the patient).

Hence a stage never rises by more than one per step, never falls except ``d-1 → healthy``, and a
patient never switches directly from one disease to another. One uniform number ``u`` is drawn per
patient and step: onset of the first disease ``d`` (in table order) whose cumulative hazard exceeds
``u``; progression if ``u < p``, recovery if ``p ≤ u < p + RECOVERY[d]``.

Onset hazards per step, ``ONSET[d][a]`` (female, normal weight) and the multipliers::

    disease            age 18-39  40-64   65-90   female  male    light  normal  heavy
    diabetes           0.004      0.010   0.015   1.0     1.2     0.5    1.0     3.0
    hypertension       0.004      0.015   0.025   1.0     1.2     0.7    1.0     2.0
    coronary-disease   0.001      0.006   0.015   0.4     1.6     0.8    1.0     1.5
    breast-cancer      0.001      0.004   0.005   1.0     0.01    1.0    1.0     1.3
    osteoporosis       0.0005     0.004   0.015   1.0     0.25    2.0    1.0     0.5
    alzheimer          0.0        0.001   0.012   1.0     0.6     1.0    1.0     1.0

Progression per step ``PROGRESSION[d]`` with the age multiplier ``AGE_PROGRESSION`` = (0.7, 1.0,
1.4) and the weight multiplier ``WEIGHT_PROGRESSION[d][w]``; recovery ``RECOVERY[d]`` from stage 1::

    disease            progression  light  normal  heavy   recovery
    diabetes           0.06         0.8    1.0     1.5     0.05
    hypertension       0.05         0.8    1.0     1.5     0.10
    coronary-disease   0.07         1.0    1.0     1.5     0.05
    breast-cancer      0.08         1.0    1.0     1.0     0.10
    osteoporosis       0.04         1.3    1.0     0.8     0.02
    alzheimer          0.08         1.0    1.0     1.0     0.00

Quasi-identifiers
-----------------
A new patient is female or male with probability ½ each, has an age uniform on 18–84 and a weight
``round(N(μ, 13²))`` clipped to 40–150 with ``μ = 66 + 0.1·(age − 18)`` for women and
``μ = 80 + 0.1·(age − 18)`` for men. Each patient has a birthday step ``b ∈ {0, 1, 2, 3}`` (uniform):
the age grows by one year when moving to release ``t`` with ``t mod 4 = b`` (capped at 90). The
weight makes a random walk: −1, 0, +1 kg with probabilities ¼, ½, ¼ per step, clipped to 40–150.
The QIs are updated after the disease transition of the step.

Population and turnover
-----------------------
Release 1 holds ``records`` new patients. Moving to each next release, exactly
``round(persistence · records)`` patients of the current release, chosen uniformly without
replacement, stay; the others leave for good and are replaced by as many new patients (new ids),
so every release has ``records`` rows and consecutive releases share exactly that many patient ids.
A new patient's state is the result of :data:`BURN_IN` steps of the chain from ``healthy`` with
the entry QIs held fixed (the patient's history before entering the data).

Everything is drawn from one ``numpy.random.default_rng(seed)`` in a fixed order, so a seed
determines the frame exactly. Rows are sorted by release, then patient id.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.hierarchy.builders import intervals

__all__ = [
    "BURN_IN",
    "DISEASES",
    "DISEASE_FAMILIES",
    "GENDERS",
    "bkseq_hierarchies",
    "make_bkseq",
]

#: The six diseases, in table order, with their family.
DISEASE_FAMILIES: dict[str, str] = {
    "diabetes": "metabolic",
    "hypertension": "cardiovascular",
    "coronary-disease": "cardiovascular",
    "breast-cancer": "cancer",
    "osteoporosis": "musculoskeletal",
    "alzheimer": "neurological",
}
STAGES = 3
#: The 19 sensitive values: state code ``0`` = healthy, ``1 + 3·d + (s − 1)`` = disease ``d`` stage ``s``.
DISEASES: tuple[str, ...] = ("healthy", *(f"{d}-{s}" for d in DISEASE_FAMILIES for s in range(1, STAGES + 1)))
GENDERS: tuple[str, str] = ("female", "male")
AGE_MIN, AGE_MAX, AGE_ENTRY_MAX = 18, 90, 84
WEIGHT_MIN, WEIGHT_MAX = 40, 150
#: Steps of the chain run from ``healthy`` to give a new patient a history.
BURN_IN = 12

ONSET = np.array(
    [
        [0.004, 0.010, 0.015],
        [0.004, 0.015, 0.025],
        [0.001, 0.006, 0.015],
        [0.001, 0.004, 0.005],
        [0.0005, 0.004, 0.015],
        [0.0, 0.001, 0.012],
    ]
)
GENDER_ONSET = np.array([[1.0, 1.2], [1.0, 1.2], [0.4, 1.6], [1.0, 0.01], [1.0, 0.25], [1.0, 0.6]])
WEIGHT_ONSET = np.array(
    [[0.5, 1.0, 3.0], [0.7, 1.0, 2.0], [0.8, 1.0, 1.5], [1.0, 1.0, 1.3], [2.0, 1.0, 0.5], [1.0, 1.0, 1.0]]
)
PROGRESSION = np.array([0.06, 0.05, 0.07, 0.08, 0.04, 0.08])
AGE_PROGRESSION = np.array([0.7, 1.0, 1.4])
WEIGHT_PROGRESSION = np.array(
    [[0.8, 1.0, 1.5], [0.8, 1.0, 1.5], [1.0, 1.0, 1.5], [1.0, 1.0, 1.0], [1.3, 1.0, 0.8], [1.0, 1.0, 1.0]]
)
RECOVERY = np.array([0.05, 0.10, 0.05, 0.10, 0.02, 0.0])
MAX_PROGRESSION = 0.9


def age_band(age: np.ndarray) -> np.ndarray:
    """0 for 18–39, 1 for 40–64, 2 for 65 and older."""
    return np.digitize(age, [40, 65])


def weight_band(weight: np.ndarray) -> np.ndarray:
    """0 below 60 kg, 1 for 60–89 kg, 2 for 90 kg and more."""
    return np.digitize(weight, [60, 90])


def onset_hazards(gender: np.ndarray, age: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``(n, 6)`` per-step onset probability of every disease for healthy patients with these QIs."""
    a, w, g = age_band(age), weight_band(weight), np.asarray(gender)
    return ONSET[:, a].T * GENDER_ONSET[:, g].T * WEIGHT_ONSET[:, w].T


def progression_probability(disease: np.ndarray, age: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Per-step probability that disease ``disease`` (0..5) moves one stage up (stage < 3)."""
    a, w = age_band(age), weight_band(weight)
    return np.minimum(MAX_PROGRESSION, PROGRESSION[disease] * AGE_PROGRESSION[a] * WEIGHT_PROGRESSION[disease, w])


def _step(state: np.ndarray, gender: np.ndarray, age: np.ndarray, weight: np.ndarray, u: np.ndarray) -> np.ndarray:
    """One step of the chain for every patient, given one uniform number per patient."""
    new = state.copy()
    healthy = state == 0
    if healthy.any():
        cum = np.cumsum(onset_hazards(gender[healthy], age[healthy], weight[healthy]), axis=1)
        uh = u[healthy]
        falls = uh < cum[:, -1]
        first = np.argmax(uh[:, None] < cum, axis=1)
        new[healthy] = np.where(falls, 1 + STAGES * first, 0)
    sick = ~healthy
    if sick.any():
        code = state[sick] - 1
        d, s = code // STAGES, code % STAGES  # s is 0-based
        p = np.where(s < STAGES - 1, progression_probability(d, age[sick], weight[sick]), 0.0)
        r = np.where(s == 0, RECOVERY[d], 0.0)
        us = u[sick]
        new[sick] = np.where(us < p, state[sick] + 1, np.where(us < p + r, 0, state[sick]))
    return new


def _check(releases: object, records: object, persistence: object) -> float:
    for key, value in (("releases", releases), ("records", records)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise InputError(f"{key} must be an integer ≥ 1", key=key, value=value)
    try:
        p = float(persistence)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        p = math.nan
    if not 0.0 <= p <= 1.0:
        raise InputError("persistence must be a number in [0, 1]", key="persistence", value=persistence)
    return p


def make_bkseq(*, releases: int = 24, records: int = 4000, seed: int = 0, persistence: float = 0.9) -> pd.DataFrame:
    """A BKseq-like sequential medical table: ``releases`` releases of ``records`` patients each.

    See the module docstring for the columns, the 19 disease-stage values, the transition model and
    the turnover. ``persistence`` is the share of one release's patients present in the next one
    (exactly ``round(persistence · records)`` of them); the rest are replaced by new patients.
    The same arguments always give the same frame; every cell is a ``str``.

    Raises
    ------
    InputError
        If ``releases`` or ``records`` is not a positive integer or ``persistence`` is not in [0, 1].
    """
    p = _check(releases, records, persistence)
    rng = np.random.default_rng(seed)
    n = int(records)
    stay = round(p * n)

    next_id = 0

    def newcomers(m: int) -> dict[str, np.ndarray]:
        nonlocal next_id
        ids = np.arange(next_id, next_id + m)
        next_id += m
        gender = (rng.random(m) < 0.5).astype(np.int64)
        age = rng.integers(AGE_MIN, AGE_ENTRY_MAX + 1, size=m)
        mu = np.where(gender == 1, 80.0, 66.0) + 0.1 * (age - AGE_MIN)
        weight = np.clip(np.rint(rng.normal(mu, 13.0)), WEIGHT_MIN, WEIGHT_MAX).astype(np.int64)
        birthday = rng.integers(0, 4, size=m)
        state = np.zeros(m, dtype=np.int64)
        for _ in range(BURN_IN):
            state = _step(state, gender, age, weight, rng.random(m))
        return {"id": ids, "gender": gender, "age": age, "weight": weight, "birthday": birthday, "state": state}

    pop = newcomers(n)
    frames = []
    for t in range(1, int(releases) + 1):
        if t > 1:
            keep = np.sort(rng.choice(n, size=stay, replace=False))
            pop = {k: v[keep] for k, v in pop.items()}
            u = rng.random(stay)
            pop["state"] = _step(pop["state"], pop["gender"], pop["age"], pop["weight"], u)
            pop["age"] = np.minimum(AGE_MAX, pop["age"] + (pop["birthday"] == t % 4))
            drift = rng.choice(np.array([-1, 0, 1]), size=stay, p=[0.25, 0.5, 0.25])
            pop["weight"] = np.clip(pop["weight"] + drift, WEIGHT_MIN, WEIGHT_MAX)
            fresh = newcomers(n - stay)
            pop = {k: np.concatenate([pop[k], fresh[k]]) for k in pop}
        frames.append({"release": np.full(n, t), **pop})

    width = len(str(n * int(releases)))
    cols = {k: np.concatenate([f[k] for f in frames]) for k in ("release", "id", "gender", "age", "weight", "state")}
    order = np.lexsort((cols["id"], cols["release"]))
    cols = {k: v[order] for k, v in cols.items()}
    frame = pd.DataFrame(
        {
            "release": cols["release"].astype(str).astype(object),
            "patient_id": np.array([f"P{i + 1:0{width}d}" for i in cols["id"]], dtype=object),
            "gender": np.asarray(GENDERS, dtype=object)[cols["gender"]],
            "age": cols["age"].astype(str).astype(object),
            "weight": cols["weight"].astype(str).astype(object),
            "disease": np.asarray(DISEASES, dtype=object)[cols["state"]],
        }
    )
    return frame.astype(object)


def bkseq_hierarchies() -> dict[str, Hierarchy]:
    """Hierarchies of ``gender``, ``age``, ``weight`` and ``disease`` covering every generated value.

    * ``gender``: female/male → ``*``;
    * ``age`` (18–90): 5-year intervals aligned at 15 (``[15-20[``), then 10, 20, 40 years, ``*``;
    * ``weight`` (40–150): 10-kg intervals aligned at 40 (``[40-50[``), then 20, 40, 80 kg (clipped
      at 160), ``*``;
    * ``disease``: disease-stage → family (``healthy`` → ``healthy``) → ``*``.
    """
    disease_rows = [["healthy", "healthy", "*"]] + [
        [f"{d}-{s}", fam, "*"] for d, fam in DISEASE_FAMILIES.items() for s in range(1, STAGES + 1)
    ]
    return {
        "gender": Hierarchy.flat(list(GENDERS), name="gender"),
        "age": intervals(range(AGE_MIN, AGE_MAX + 1), width=5, start=15, name="age"),
        "weight": intervals(range(WEIGHT_MIN, WEIGHT_MAX + 1), width=10, start=40, top=160, name="weight"),
        "disease": Hierarchy(disease_rows, name="disease"),
    }
