"""The independent verifier: recompute every privacy model from a released table alone.

``verify`` starts from the published frame and the schema only. It re-derives the equivalence
classes by grouping the released quasi-identifier values as text (so it accepts full-domain
generalizations, intervals and sets alike), builds the class statistics itself and applies the
models' formulas. It shares no code with the algorithms except those formulas
(architecture guide: "the verifier is independent"). In the runner's block
(:func:`~anonkit._verify_rows.published_codes`) it reads a column's codes without encoding its cells only
where they are proven to be what the cells say: a text column made by its own
:func:`~anonkit._verify_rows.text_column` (by construction), an object column proven cell by cell to hold
the input's very ``str`` objects (:func:`~anonkit._verify_rows.taken_column`); anything else is read.

Rows whose quasi-identifiers are all ``*`` are suppressed records (ARX's marking) and form no class,
unless the publisher says how it marked them (``suppressed``): ``"drop"`` — suppressed records were
left out, so every row is released and an all-``*`` row is a class whose every value was generalized
to ``*``; or the mask of the rows it suppressed (each must be all ``*``). A publisher that drops
suppressed records and a verifier that reads all-``*`` rows as suppressed would judge different
classes (and pass a release of nothing but ``*``).
The reference distribution of t-closeness, β-likeness and δ-disclosure is that of the input table
(spec §1.3). When only the release is at hand it is taken from the release itself, suppressed
(marked) rows included; pass ``reference`` (the input frame, or the sensitive columns of it) to use
the true input distribution when suppressed rows were dropped.

Record-level models (``record_level = True``: the background-knowledge model of spec §1.7) are
judged from the records of each class, not from its statistics: the verifier needs the input
(``source``) and, for every released row, the input row it came from (``rows``, e.g.
:meth:`anonkit.release.Release.published_rows`). It still derives the classes itself from the
released text and only uses ``rows`` to look up each released record's prior and sensitive value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonkit._values import factorize_text, looks_numeric
from anonkit._verify_population import population_counts
from anonkit._verify_profitability import released_information_loss
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.models import (
    BetaLikeness,
    Criterion,
    DeltaDisclosure,
    DistinctLDiversity,
    EntropyLDiversity,
    FrequencyLDiversity,
    TCloseness,
    ThetaSensitivity,
)
from anonkit.models.individual_risk import WEIGHT_NEED, needs_weights, published_weight_sums
from anonkit.models.population import POPULATION_NEED, needs_population
from anonkit.models.profitability import INFORMATION_LOSS_NEED
from anonkit.models.risk_criteria import ESTIMATORS
from anonkit.models.theta import full_variance
from anonkit.risk import SolverConfig
from anonkit.risk.population import DANKAR_PITMAN_FRACTION, population_uniqueness
from anonkit.schema import Schema
from anonkit.stats import ClassStats, build_domain, class_stats, class_stats_for

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from anonkit.knowledge import Priors

from anonkit._verify_inputs import SUPPRESSED as SUPPRESSED
from anonkit._verify_inputs import DomainSpec as DomainSpec
from anonkit._verify_inputs import qi_columns, sensitive_spec, split_suppressed
from anonkit._verify_records import record_divergence, released_rows
from anonkit._verify_rows import (
    CodedColumn,
    count_rows,
    group_rows,
    read_codes,
    reference_codes,
    suppressed_rows,
    text_codes,
    verified_codes,
)
from anonkit._verify_rows import published_codes as published_codes
from anonkit._verify_rows import same_release_codes as same_release_codes


def register_estimators() -> None:
    """Hand the population-uniqueness estimator (:mod:`anonkit.risk.population`) down to the
    whole-release models (:mod:`anonkit.models.risk_criteria`), which sit below the judges."""
    ESTIMATORS.update(population=population_uniqueness, solver=SolverConfig, pitman_upto=DANKAR_PITMAN_FRACTION)


register_estimators()


@dataclass
class ModelResult:
    """How one model fares on a release."""

    model: str
    passed: bool
    achieved: float
    failing_classes: int
    failing_records: int


@dataclass
class Verification:
    """The verifier's verdict: ``ok`` if every model holds on every released class."""

    ok: bool
    records: int
    released: int
    suppressed: int
    classes: int
    results: list[ModelResult] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.ok

    def summary(self) -> str:
        lines = [
            f"{'OK' if self.ok else 'VIOLATED'}: {self.released} records released in {self.classes} classes, "
            f"{self.suppressed} suppressed"
        ]
        for r in self.results:
            status = "holds" if r.passed else f"fails in {r.failing_classes} classes ({r.failing_records} records)"
            lines.append(f"  {r.model}: {status}; achieved {r.achieved:g}")
        return "\n".join(lines)


#: above this many rows :func:`verify` counts identical (quasi-identifier, sensitive) rows first
COUNT_ROWS_ABOVE = 100_000


def released_stats(
    frame: pd.DataFrame,
    qis: Iterable[str],
    sensitive: Mapping[str, DomainSpec],
    *,
    reference: pd.DataFrame | Mapping[str, Iterable[object]] | None = None,
    weights: np.ndarray | None = None,
    reference_weights: np.ndarray | None = None,
    marked: bool = True,
) -> tuple[ClassStats, np.ndarray, np.ndarray]:
    """Classes of a released frame: stats, class of every released row, and the suppressed mask.

    ``sensitive[name]`` (a :class:`DomainSpec`) describes each sensitive attribute's domain.
    ``weights`` (``reference_weights``): how many records every row of ``frame`` (``reference``)
    stands for, when identical rows were counted rather than kept (a distributed engine).
    ``marked``: all-``*`` rows are suppressed records (ARX's marking); ``False``: every row is
    released (the publisher dropped its suppressed records).
    """
    qis = qi_columns(frame, qis)
    index = frame.index  # (a frame numbered 0…n−1 already is read as it is: what reset_index would give)
    if not (isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1 and index.name is None):
        frame = frame.reset_index(drop=True)
    supp = suppressed_rows(frame, qis) if marked else np.zeros(len(frame), dtype=bool)
    some = bool(supp.any())
    released = frame.loc[~supp].reset_index(drop=True) if some else frame  # (no copy when none is)
    cls, n_classes = group_rows(released, qis)
    if len(released) == 0:
        n_classes = 0
    kept_w = None if weights is None else np.asarray(weights, dtype=np.float64)[~supp]
    domains, pairs = {}, {}
    for name, dspec in sensitive.items():
        dspec = dspec if isinstance(dspec, DomainSpec) else DomainSpec(*dspec)  # a (numeric, order, hierarchy) tuple
        if name not in frame.columns:
            raise InputError("unknown sensitive column", column=name)
        ref, ref_w = None, weights
        if reference is not None:
            ref_w = reference_weights
            given = reference[name]  # a column as it is (a compact one stays codes), anything else as cells
            ref = ((given.codes, given.texts) if isinstance(given, CodedColumn) else reference_codes(given)
                   if isinstance(given, pd.Series) else text_codes(pd.Series(list(given), dtype=object)))
        # each column factorized once into its codes and canonical texts (no text per row built)
        domain, codes = build_domain(
            name,
            None,
            numeric=dspec.numeric,
            order=dspec.order,
            hierarchy=dspec.hierarchy,
            coded=read_codes(frame[name]),
            reference_coded=ref,
            categories=dspec.categories,
            category_order=dspec.category_order,
            reference_weights=ref_w,
        )
        domains[name] = domain
        # every row's code at its own row (``item`` None: all rows, the same histogram as their positions)
        pairs[name] = (np.arange(len(released)), codes[~supp], kept_w) if some else (None, codes, kept_w)
    stats = class_stats(cls, n_classes, kept_w, pairs, domains)
    return stats, cls, supp


def verify(
    frame: pd.DataFrame,
    schema: Schema,
    models: Iterable[Criterion],
    *,
    reference: pd.DataFrame | Mapping[str, Iterable[object]] | None = None,
    source: pd.DataFrame | None = None,
    rows: ArrayLike | None = None,
    priors: Priors | ArrayLike | None = None,
    weights: ArrayLike | None = None,
    reference_weights: ArrayLike | None = None,
    suppressed: str | ArrayLike = "mark",
    population: pd.DataFrame | None = None,
) -> Verification:
    """Check that the released ``frame`` satisfies every model in ``models``.

    Parameters
    ----------
    frame:
        The released table (quasi-identifiers generalized; suppressed rows dropped or all ``*``).
    schema:
        Which columns are quasi-identifiers and sensitive; sensitive hierarchies for hierarchical EMD.
    models:
        The privacy models to check.
    reference:
        Source of the reference sensitive distribution (the input table); default: the release. A column
        may be given as its codes (:class:`~anonkit._verify_rows.CodedColumn`, what the verifier reads of it).
    source:
        Record-level models only (background knowledge, spec §1.7): the input frame, with its
        original quasi-identifiers and sensitive values.
    rows:
        Record-level models only: the row of ``source`` (position, 0-based) every row of ``frame``
        was published from — :meth:`~anonkit.release.Release.published_rows`.
    priors:
        Record-level models only: the adversary's priors over the rows of ``source``, a
        :class:`~anonkit.knowledge.Priors` or an ``(n × S)`` array whose columns follow the sensitive
        domain of ``source`` (sorted values, or the declared order). Default: each model's own
        estimate (``model.priors``) from ``source``.
    weights, reference_weights:
        How many records each row of ``frame`` (of ``reference``) stands for, when a distributed
        engine counted identical rows instead of collecting them (``SELECT …, COUNT(*) GROUP BY``
        every published column the models read); default one each. Record-level models need the
        records themselves and refuse weights.
    suppressed:
        How the publisher marked its suppressed records: ``"mark"`` (default, ARX's marking: a row
        whose every quasi-identifier is ``*`` is a suppressed record), ``"drop"`` (they were left
        out: every row is released, an all-``*`` row is a class like any other), or a boolean mask
        of the rows it suppressed (private to the publisher, like ``rows``; each must be all ``*``).
    population:
        The population (the whole input of a research subset): k-map and δ-presence are judged on
        the population records of every released class, recounted from the hierarchies
        (:func:`anonkit._verify_population.population_counts`).

    Returns
    -------
    Verification
        ``ok`` and, per model, whether it holds, the achieved parameter and the failing classes.
        For the background-knowledge model ``achieved`` is the largest class divergence (the
        pairwise prior JSD or the prior–posterior JSD, per its test; ``test="auto"`` is judged as
        ``"pairwise"``).

    Raises
    ------
    InputError
        An identifier in the release; an unknown column; a record-level model without ``source``
        and ``rows``, or with a ``rows`` that does not link the release to ``source``.
    """
    with verified_codes():  # in a job's rerun: the codes and classes handed on to the release's audit
        return _verify(frame, schema, list(models), reference=reference, source=source, rows=rows, priors=priors,
                       weights=weights, reference_weights=reference_weights, suppressed=suppressed,
                       population=population)


def _verify(frame: pd.DataFrame, schema: Schema, models: list[Criterion], *,
            reference: pd.DataFrame | Mapping[str, Iterable[object]] | None, source: pd.DataFrame | None,
            rows: ArrayLike | None, priors: Priors | ArrayLike | None, weights: ArrayLike | None,
            reference_weights: ArrayLike | None, suppressed: str | ArrayLike,
            population: pd.DataFrame | None) -> Verification:
    """:func:`verify`'s work (see there)."""
    record_level = any(m.spec.record_level for m in models)
    w = _release_weights(frame, schema, weights, record_level)
    qis = schema.quasi
    sens = {m.attribute for m in models if m.attribute is not None}
    spec = sensitive_spec(schema, sorted(sens))
    rw = None if reference_weights is None else np.asarray(reference_weights, dtype=np.float64)
    frame, w, rows, reference, dropped, marked = split_suppressed(frame, qis, sens, w, rows, reference, suppressed)
    if w is None and not record_level and len(frame) > COUNT_ROWS_ABOVE and not needs_weights(models):
        frame, w, reference, rw = _count_identical(frame, qis, sens, reference, rw)
    stats, cls, supp = released_stats(frame, qis, spec, reference=reference, weights=w, reference_weights=rw,
                                      marked=marked)
    _add_population(stats, frame, cls, supp, schema, models, population)
    _add_information_loss(stats, frame, cls, supp, schema, models)
    _add_weight_sums(stats, frame, cls, supp, schema, models, w)
    results = []
    linked: np.ndarray | None = None
    for m in models:
        if m.spec.record_level:
            if linked is None:
                linked = released_rows(frame, supp, source, rows, m)
            assert source is not None
            results.append(_record_level_result(m, frame, schema, stats, cls, supp, source, linked, priors))
        else:
            results.append(_model_result(m, frame, stats, supp, w))
    return Verification(
        ok=all(r.passed for r in results),
        records=(len(frame) if w is None else int(w.sum())) + dropped,
        released=int((~supp).sum()) if w is None else int(w[~supp].sum()),
        suppressed=(int(supp.sum()) if w is None else int(w[supp].sum())) + dropped,
        classes=int(stats.n_classes),
        results=results,
    )


def _add_population(stats: ClassStats, frame: pd.DataFrame, cls: np.ndarray, supp: np.ndarray, schema: Schema,
                    models: list[Criterion], population: pd.DataFrame | None) -> None:
    """The population records of every released class, for the models that judge them (refused
    without a population: such a model cannot be judged from the release alone)."""
    if not needs_population(models):
        return
    if population is None:
        raise InputError("k-map and δ-presence are judged against the population: give population= (the input "
                         "of the research subset)", key="population")
    released = frame.reset_index(drop=True).loc[~supp].reset_index(drop=True)
    stats.extra[POPULATION_NEED] = population_counts(released, cls, stats.n_classes, qi_columns(released, schema.quasi),
                                                     schema, population)


def _add_weight_sums(stats: ClassStats, frame: pd.DataFrame, cls: np.ndarray, supp: np.ndarray, schema: Schema,
                     models: list[Criterion], w: np.ndarray | None) -> None:
    """Every released class's sum of the published sampling weights, for individual-risk
    (:func:`anonkit.models.individual_risk.published_weight_sums`; refused on counted rows)."""
    if not needs_weights(models):
        return
    if w is not None:
        raise InputError("individual-risk is verified on the published records' weights, not on counted rows",
                         key="weights")
    released = frame.reset_index(drop=True).loc[~supp].reset_index(drop=True)
    stats.extra[WEIGHT_NEED] = published_weight_sums(released, cls, stats.n_classes, schema.weight)


def _add_information_loss(stats: ClassStats, frame: pd.DataFrame, cls: np.ndarray, supp: np.ndarray, schema: Schema,
                          models: list[Criterion]) -> None:
    """Every released class's information loss, recounted from its published labels, for the
    profitability models with an attack (:mod:`anonkit._verify_profitability`)."""
    if not any(INFORMATION_LOSS_NEED in type(m).spec.needs for m in models):
        return
    released = frame.reset_index(drop=True).loc[~supp].reset_index(drop=True)
    stats.extra[INFORMATION_LOSS_NEED] = released_information_loss(
        released, cls, stats.n_classes, qi_columns(released, schema.quasi), schema)


def _release_weights(frame: pd.DataFrame, schema: Schema, weights: ArrayLike | None,
                     record_level: bool) -> np.ndarray | None:
    """:func:`verify`'s ``weights`` as floats, after the checks on the release: no identifier (nor
    the person column) is published, and ``weights`` are one count ≥ 1 per row, never with a
    record-level model (it needs the records themselves)."""
    identifiers = [c for c in schema.never_published if c in frame.columns]
    if identifiers:
        raise InputError("an identifier (or the person or household column) is present in the release",
                         column=identifiers[0])
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    if w is not None and (w.shape != (len(frame),) or (w < 1).any()):
        raise InputError("weights must be one count ≥ 1 per row of the release", key="weights")
    if w is not None and record_level:
        raise InputError("record-level models are verified on the records themselves, not on counted rows",
                         key="weights")
    return w


def _count_identical(
    frame: pd.DataFrame, qis: list[str], sens: set[str], reference: Any, rw: np.ndarray | None
) -> tuple[pd.DataFrame, np.ndarray, Any, np.ndarray | None]:
    """Identical rows counted once (above :data:`COUNT_ROWS_ABOVE` rows): the same classes and
    statistics from arrays as long as the distinct (published quasi-identifiers, sensitive values)
    rows; the reference's sensitive columns too when it is that large and not counted already."""
    frame, w = count_rows(frame, [*qi_columns(frame, qis), *[s for s in sorted(sens) if s in frame.columns]])
    if reference is not None and rw is None and sens and not any(isinstance(reference[s], CodedColumn) for s in sens):
        ref = pd.DataFrame({s: reference[s] for s in sorted(sens)})
        if len(ref) > COUNT_ROWS_ABOVE:
            reference, rw = count_rows(ref, list(ref.columns))
    return frame, w, reference, rw


def _model_result(m: Criterion, frame: pd.DataFrame, stats: ClassStats, supp: np.ndarray,
                  w: np.ndarray | None) -> ModelResult:
    """How a class-level model fares on the released classes (on the classes of its own
    quasi-identifiers when it names them, ``m.qis``)."""
    st = stats
    if m.qis is not None:
        sub = frame.reset_index(drop=True).loc[~supp].reset_index(drop=True)
        record_class, n_sub = group_rows(sub, qi_columns(sub, m.qis))
        st = class_stats_for((m,), record_class, n_sub, weights=None if w is None else w[~supp],
                             domains=stats.domains)
    ok = m.passes(st)
    failing = np.flatnonzero(~ok)
    return ModelResult(
        m.describe(),
        bool(ok.all()),
        m.achieved(st) if st.n_classes else float("nan"),
        int(failing.size),
        int(st.sizes[failing].sum()),
    )


# ---------------------------------------------------------------------- record-level models (§1.7)
def _record_level_result(
    model: Any,
    frame: pd.DataFrame,
    schema: Schema,
    stats: ClassStats,
    cls: np.ndarray,
    supp: np.ndarray,
    source: pd.DataFrame,
    linked: np.ndarray,
    priors: Priors | ArrayLike | None,
) -> ModelResult:
    """Judge a record-level model on the verifier's own classes (spec §1.7): class ``c`` holds the
    input records ``linked[cls == c]``; their priors and input sensitive values decide
    (:func:`anonkit._verify_records.record_divergence`)."""
    n_classes = stats.n_classes
    dspec = sensitive_spec(schema, [model.attribute])[model.attribute]
    div = record_divergence(model, frame, schema, cls, n_classes, supp, source, linked, priors, dspec)
    ok = div <= model.J + 1e-12  # the tolerance of BackgroundKnowledge.class_passes
    failing = np.flatnonzero(~ok)
    return ModelResult(
        model.describe(),
        bool(ok.all()),
        float(div.max()) if n_classes else float("nan"),
        int(failing.size),
        int(stats.sizes[failing].sum()),
    )


def check(
    frame: pd.DataFrame,
    qis: Iterable[str],
    sensitive: Iterable[str] = (),
    *,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    numeric: Iterable[str] = (),
    categorical: Iterable[str] = (),
    orders: Mapping[str, list[str]] | None = None,
    reference: pd.DataFrame | Mapping[str, Iterable[object]] | None = None,
    person: str | None = None,
    categories: Mapping[str, Mapping[str, str]] | None = None,
    category_orders: Mapping[str, Iterable[str]] | None = None,
) -> dict:
    """Achieved parameters of any table: what ``anonkit check`` reports.

    With ``person`` (a column naming the individual of every row, for data with several records
    per person) every class size counts distinct persons, not rows: ``k``, ``avg_class_size`` and
    ``uniques`` are then about people, and ``persons_in_several_classes`` counts the persons whose
    records lie in more than one class (the record-intersection attack's targets, spec §2.7).

    With ``categories[name]`` (value → category; ``category_orders[name]`` the categories from
    lowest to highest, default paper D's five) the attribute's θ-sensitivity is reported (spec
    §1.5): ``theta_variance``, the smallest variance of a class's category codes, and
    ``theta_lambda``, that variance over ``V_full(k)`` at the achieved ``k`` (the largest λ for which
    the table is θ-sensitive k-anonymous).

    A sensitive attribute's type is inferred as :class:`~anonkit.table.Table` does (all values
    numbers → numeric, ordered by number), unless listed in ``numeric`` or ``categorical``; an
    ``orders[name]`` list makes it ordinal. ``t_ordered`` needs an order: it is ``None`` for a
    nominal attribute (categorical without an order), with a line in ``notes``.

    Returns a dict with ``records``, ``suppressed``, ``classes``, ``k``, ``avg_class_size``,
    ``uniques``, ``notes`` and, under ``sensitive[name]``: ``type``, ``l_distinct``, ``l_entropy``
    (Shannon), ``l_entropy_grassberger``, ``l_frequency`` (no value in more than ``1/l`` of a class,
    spec §1.2), ``t_equal``, ``t_ordered``, ``t_hierarchical`` (with a
    hierarchy), ``beta_basic``, ``beta_enhanced``, ``delta_disclosure``.

    Raises
    ------
    InputError
        A name in ``numeric``, ``categorical``, ``orders`` or ``hierarchies`` that is not a
        sensitive attribute, or one given as both numeric and categorical.
    """
    hierarchies = dict(hierarchies or {})
    orders = dict(orders or {})
    numeric, categorical = list(numeric), list(categorical)
    sensitive = list(sensitive)
    categories = {s: dict(c) for s, c in (categories or {}).items()}
    category_orders = {s: tuple(o) for s, o in (category_orders or {}).items()}
    _check_flags(sensitive, {"numeric": numeric, "categorical": categorical, "order": orders,
                             "hierarchy": hierarchies, "categories": categories, "category-order": category_orders})
    kinds = _sensitive_kinds(frame, sensitive, orders, numeric, categorical)
    unordered = [s for s in category_orders if s not in categories]
    if unordered:
        raise InputError("--category-order needs --categories for the attribute", column=unordered[0])
    spec = {
        s: DomainSpec(kinds[s] == "numeric", orders.get(s), hierarchies.get(s), categories.get(s),
                      category_orders.get(s))
        for s in sensitive
    }
    if person is not None and person not in frame.columns:
        raise InputError("--person names an unknown column", column=person, key="person")
    if person is not None and (person in set(qis) or person in sensitive):
        raise InputError("the person column is neither a quasi-identifier nor sensitive", column=person, key="person")
    stats, cls, supp = released_stats(frame, list(qis), spec, reference=reference)
    sizes, spread = _person_sizes(frame, person, stats, cls, supp)
    out: dict = {
        "records": len(frame),
        "released": int((~supp).sum()),
        "suppressed": int(supp.sum()),
        "classes": int(stats.n_classes),
        "k": int(sizes.min()) if len(sizes) else 0,
        "avg_class_size": float(sizes.mean()) if len(sizes) else 0.0,
        "uniques": int((sizes == 1).sum()),
        **({"persons_in_several_classes": spread} if person is not None else {}),
        "sensitive": {},
        "notes": [],
    }
    for s in sensitive:
        r = _achieved(s, stats, sizes, s in hierarchies, s in categories)
        if kinds[s] == "categorical":
            r["t_ordered"] = None
            out["notes"].append(
                f"t_ordered of {s!r} is not reported: the attribute is nominal (no order); pass --numeric {s} if its "
                "values are numbers"
            )
        out["sensitive"][s] = {"type": kinds[s], **r}
    return out


def _check_flags(sensitive: list[str], flags: Mapping[str, Iterable[str]]) -> None:
    """:func:`check`'s per-attribute options name sensitive attributes only, and none is both
    numeric and categorical."""
    for flag, names in flags.items():
        unknown = [n for n in names if n not in sensitive]
        if unknown:
            raise InputError(f"--{flag} names an attribute that is not among the sensitive attributes "
                             f"({', '.join(sensitive) or 'none'})", column=unknown[0], key=flag)
    both = set(flags["numeric"]) & set(flags["categorical"])
    if both:
        raise InputError("an attribute cannot be both numeric and categorical", column=sorted(both)[0])


def _sensitive_kinds(frame: pd.DataFrame, sensitive: list[str], orders: Mapping[str, list[str]],
                     numeric: list[str], categorical: list[str]) -> dict[str, str]:
    """Every sensitive attribute's type: ``ordinal`` with an order, else as given, else inferred as
    :class:`~anonkit.table.Table` does (all values numbers → numeric)."""
    kinds: dict[str, str] = {}
    for s in sensitive:
        if s not in frame.columns:
            raise InputError("unknown sensitive column", column=s)
        if s in orders:
            kinds[s] = "ordinal"
        elif s in numeric:
            kinds[s] = "numeric"
        elif s in categorical:
            kinds[s] = "categorical"
        else:
            kinds[s] = "numeric" if looks_numeric(frame[s]) else "categorical"
    return kinds


def _person_sizes(frame: pd.DataFrame, person: str | None, stats: ClassStats, cls: np.ndarray,
                  supp: np.ndarray) -> tuple[np.ndarray, int]:
    """The class sizes :func:`check` reports (distinct persons per class with a ``person`` column,
    else records) and how many persons have records in several classes."""
    sizes = stats.sizes
    spread = 0
    if person is not None and stats.n_classes:
        who, _ = factorize_text(frame[person].reset_index(drop=True)[~supp])
        base = np.int64(who.max() + 1)
        pairs = np.unique(cls * base + who)
        sizes = np.bincount(pairs // base, minlength=stats.n_classes).astype(np.float64)
        spread = int((np.bincount(pairs % base, minlength=int(base)) > 1).sum())
    return sizes, spread


def _achieved(s: str, stats: ClassStats, sizes: np.ndarray, hierarchical: bool,
              categorized: bool) -> dict[str, object]:
    """The achieved parameters of sensitive attribute ``s`` (every one ``None`` without a class):
    the l-diversities, t-closeness, β-likeness, δ-disclosure and, with a hierarchy, hierarchical
    t-closeness; with categories, θ-sensitivity's variance and λ at the achieved ``k``."""
    r: dict[str, object] = {
        "l_distinct": DistinctLDiversity(s, 1).achieved(stats),
        "l_entropy": EntropyLDiversity(s, 1).achieved(stats),
        "l_entropy_grassberger": EntropyLDiversity(s, 1, "grassberger").achieved(stats),
        "l_frequency": FrequencyLDiversity(s, 1).achieved(stats),
        "t_equal": TCloseness(s, 1, "equal").achieved(stats),
        "t_ordered": TCloseness(s, 1, "ordered").achieved(stats),
        "beta_basic": BetaLikeness(s, 1).achieved(stats),
        "beta_enhanced": BetaLikeness(s, 1, enhanced=True).achieved(stats),
        "delta_disclosure": DeltaDisclosure(s, 1).achieved(stats),
    }
    if hierarchical:
        r["t_hierarchical"] = TCloseness(s, 1, "hierarchical").achieved(stats)
    if categorized:
        k_achieved = int(sizes.min()) if len(sizes) else 0
        theta = ThetaSensitivity(s, max(k_achieved, 1))
        variance = theta.achieved(stats)
        full = full_variance(k_achieved, len(stats.domains[s].category_labels))
        r["theta_variance"] = variance
        r["theta_lambda"] = variance / full if full > 0 else None
    if stats.n_classes == 0:
        r = {key: None for key in r}
    return r
