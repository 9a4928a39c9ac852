"""The anonymization of a frame, from encoding to a verified, measured release.

:func:`anonymize` is the Python entry point: it validates its arguments once (the frame and schema
types, the models, the metric, the seed, the algorithm's options by its declaration) and hands them
to :func:`anonymize_checked`, which the runner calls directly with a plan's already-validated
settings (scikit-learn's pattern: validate at the public boundary, never again below it).

The steps: encode the frame on the engine → check what the algorithm needs (a person column, the
models it enforces) → prove the models impossible early when they are → run the algorithm →
publish and verify independently (:func:`anonkit.verifier.verify`) → measure (one summary builder,
:mod:`anonkit.runner.summary`). An algorithm that runs its own way on an engine (Mondrian on Spark)
declares it (:attr:`anonkit.algorithms.spec.Algorithm.runners`) and takes over after the checks; its result
is summarized here like any other.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Iterable, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from anonkit import interrupt
from anonkit import metrics as _m
from anonkit._api_checks import check_frame
from anonkit._memory import give_back
from anonkit._verify_new_id import check_new_ids
from anonkit._verify_rows import input_codes_of, published_memo, taken_column, text_column
from anonkit.algorithms import registry
from anonkit.algorithms.common import check_models, check_references
from anonkit.algorithms.feasibility import explain, impossible
from anonkit.algorithms.spec import Algorithm
from anonkit.audit.inputs import WILDCARD_FAMILIES
from anonkit.config import MetricConfig
from anonkit.engines import Engine, get_engine
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.metrics.payout import prepare as prepare_payout
from anonkit.metrics.payout import with_costs
from anonkit.models import BackgroundKnowledge, Criterion
from anonkit.models.individual_risk import attach_survey_weights, needs_weights, require_weight_role
from anonkit.models.kmap import for_records
from anonkit.models.population import (
    attach_population,
    check_population,
    covering_schema,
    needs_population,
    subset_rows,
)
from anonkit.plan import Plan
from anonkit.plan.arguments import plan_from_arguments
from anonkit.release import ColumnMakers, Release, making_columns, measuring, take_rows
from anonkit.runner import _encoding_reuse as _reuse
from anonkit.runner.knowledge import is_factory, priors_for, resolve_background_knowledge
from anonkit.runner.result import PriorsInput, Result
from anonkit.runner.summary import (
    dropped_warnings,
    failure_summary,
    flat_numeric_warnings,
    measured_summary,
    model_warnings,
    persons_summary,
    plain_notes,
    recordless_summary,
    wildcard_privacy,
)
from anonkit.schema import Schema
from anonkit.table import MissingPolicy, PersonQIPolicy, Table
from anonkit.verifier import Verification, published_codes

__all__ = ["LEAN_MEASURES", "Encodings", "anonymize", "anonymize_checked", "search_metric_of"]


def anonymize(
    frame: pd.DataFrame,
    schema: Schema,
    models: Iterable[Criterion],
    *,
    algorithm: str | None = None,
    seed: int = 0,
    suppressed: str = "drop",
    missing: MissingPolicy = "value",
    strip: bool = True,
    person_qi: PersonQIPolicy = "error",
    metric: MetricConfig | _m.SearchMetric | None = None,
    priors: PriorsInput | None = None,
    engine: str | Engine | None = None,
    subset: Any = None,
    skip_measures: Iterable[str] = (),
    **params: object,
) -> Result:
    """Anonymize ``frame`` with ``algorithm`` so that every model in ``models`` holds.

    Every column of ``frame`` needs a role in ``schema`` (or ``schema.default_role``); cells are
    stripped of surrounding whitespace unless ``strip=False``; attributes without a declared type
    get the inferred one (numbers → numeric). ``seed`` (a whole number ≥ 0) orders the released
    rows and drives every random choice of the algorithm (KACA's pick, Anatomy's residue).

    ``algorithm`` is a registered name (``anonkit algorithms`` lists them; default: Flash). ``metric``
    is the quality model a lattice search optimizes (default: ARX's Loss, gs 0.5, geometric mean)
    and the one reported as ``score``. Other keyword arguments are the algorithm's options
    (``max_suppression``, ``levels``, ``mode``, …), validated by its declaration.

    A :class:`~anonkit.models.BackgroundKnowledge` model (spec §1.7) needs an algorithm that enforces
    it (§4.1–4.3: UHRA and its baselines); its ``test="auto"`` becomes that algorithm's guarantee
    (:meth:`~BackgroundKnowledge.resolved`).
    ``subset`` (one ``True``/``False`` per row of ``frame``) makes ``frame`` the population and the
    selected rows the records anonymized and released (ARX's research subset): k-map and δ-presence
    count their classes in the population (:mod:`anonkit.models.population`).
    ``skip_measures`` names optional measures the summary leaves out (:data:`anonkit.metrics.OPTIONAL_MEASURES`,
    e.g. ``["record_linkage"]``; the config's ``measures: {skip: […]}``): the summary lists them under
    ``skipped_measures`` with the reason; a default measure cannot be skipped.
    With a person column (several records per person, paper D) ``person_qi`` says what a person
    whose quasi-identifiers differ between rows is: an error (default) or their first row's values
    (the summary's ``reconciled`` counts them); only algorithms that count persons take such data.

    ``priors`` are the adversary's beliefs over the records of ``frame`` (see :data:`PriorsInput`;
    an ``(n × S)`` array may give individuals with equal QIs different beliefs, §3.3); without it
    they are estimated once by the first background-knowledge model (``model.priors``, §3.2). The
    same priors go to the algorithm (``priors=``) and to the verifier. With several
    background-knowledge models all must be about the same sensitive attribute.

    Returns only a release that satisfies its models: :attr:`Result.frame` always does. The
    published frame is verified independently (:func:`anonkit.verifier.verify`) against the input's
    sensitive distributions; a release that fails verification raises ``AssertionError`` — it would
    be a bug, never a user error.

    Raises
    ------
    InputError
        Bad input: a column without a role, a bad value, seed or parameter (one line naming it).
    UnsatisfiableError
        The models cannot be met (within ``max_suppression``): the message says why and what to
        change; ``.summary`` is the run's summary and ``.release`` the unpublished release (``None``
        when the models were proven impossible before any work).
    """
    start = time.perf_counter()
    check_frame(frame, local=engine in (None, "local") or getattr(engine, "name", None) == "local")
    plan = plan_from_arguments(schema, models, algorithm=algorithm, seed=seed, suppressed=suppressed, missing=missing,
                               strip=strip, person_qi=person_qi, metric=metric, engine=engine, options=params,
                               skip_measures=skip_measures)
    population = None
    if subset is not None:
        population, frame = frame, subset_rows(frame, subset)
    return anonymize_checked(frame, plan.schema, plan, priors=priors, start=start, population=population)


def search_metric_of(metric: MetricConfig | _m.SearchMetric | None,
                     models: Sequence[Criterion] = ()) -> _m.SearchMetric:
    """The search metric a config's ``metric:`` (or the Python argument) names; ARX's Loss without one.
    The publisher-payout metric gets the amounts of the run's profitability model (refused without)."""
    if isinstance(metric, MetricConfig):
        return with_costs(metric.search_metric(), models)
    return with_costs(metric if metric is not None else _m.SearchMetric(), models)


#: the one measure a verdict's rerun computes (:func:`anonymize_checked`'s ``lean``): the information loss
#: the fixes print and sort by (``loss 91.2 % (+61.7 pts)``); the advice reads the audit alone
LEAN_MEASURES = ("gcp",)


def anonymize_checked(frame: Any, schema: Schema, plan: Plan, *, priors: PriorsInput | None = None,
                      start: float | None = None, population: pd.DataFrame | None = None, lean: bool = False,
                      encodings: Encodings | None = None) -> Result:
    """Anonymize ``frame`` by ``plan`` (validated at its boundary: a config's or :func:`anonymize`'s
    arguments): nothing here validates a setting again; the data are checked as they are encoded.
    ``schema`` is the plan's own (Python) or the one its config built from the data. ``population``:
    the whole input when ``frame`` is its research subset (:mod:`anonkit.models.population`).

    ``lean``: a rerun judged by its verdict only (the advice's reruns, the fixes' trials): everything a
    release must pass is done as always (encoding, the algorithm, publishing, the independent verifier),
    but of the summary's measured part only :data:`LEAN_MEASURES` and the verification are computed (no
    generalization, score or other measure: nothing reads them from a rerun), and the summary says
    ``"lean": True``. ``encodings``: the job's :class:`Encodings`, so that the runs of one input share
    its encoded table."""
    start = time.perf_counter() if start is None else start
    spec, options, seed, metric = plan.algorithm, dict(plan.options), plan.seed, plan.metric
    given = schema
    schema = schema.with_run_seed(seed)  # role new-id: random ids drawn from the run's seed
    models: list[Criterion] = list(plan.models)
    missing, strip = cast(MissingPolicy, plan.missing), plan.strip
    runner = get_engine(plan.engine)
    refuse = getattr(runner, "refuse", None)  # an engine of one's own may run everything
    if refuse is not None:
        refuse(spec, options)
    spec.refuse_unenforced(models)
    search_metric = search_metric_of(metric, models)  # the publisher payout's amounts are the models' (refused without)
    counted = population is not None and needs_population(models)  # the population's counts are judged
    check_population(models, population=population is not None, family=spec.family, algorithm=spec.name,
                     engine=runner.name)
    if counted:
        schema = covering_schema(schema, population, strip=strip)  # type: ignore[arg-type]
    # individual-risk without a weight column, or with an algorithm that cannot sum weights: refused before any work
    require_weight_role(schema, models, family=spec.family, algorithm=spec.name)
    own = spec.runners.get(runner.name)
    if own is not None:  # the algorithm's own path on this engine (Mondrian on Spark), as it declares
        module, function = own.split(":")
        own_run = getattr(importlib.import_module(module), function)
        got = own_run(runner, frame, schema, models, options, algorithm=spec.name, seed=seed, missing=missing,
                      strip=strip)
        return _own_result(got, spec, runner.name, models, seed=seed, start=start, metric=metric,
                           skip=plan.skip_measures)
    table = _encoded(runner, frame, given, schema, plan, encodings, _shareable(runner, counted, models))
    attach_survey_weights(table, models)  # the weights summed per distinct tuple, for individual-risk
    if counted:
        attach_population(table, population, strip=strip)  # type: ignore[arg-type]
        prepare_payout(table, population, search_metric, strip=strip)  # ARX's order of the payout's sum
    _check_persons(table, spec, schema)
    models, bk = resolve_background_knowledge(models, spec)
    models = for_records(models, table.n_records)  # an estimated k-map's sampling fraction
    check_references(table, models)
    declared = {id(m) for m in models}
    if spec.implies is not None:  # what the algorithm guarantees given its options (on what it publishes)
        models = spec.implies(table, models, options)
    # on what the algorithm enforces (dp-synthetic enforces no SafePub k): the given models it keeps; a model it
    # implies judges what it publishes (kl-diversity's k on the transaction column), not the input's roles
    check_models(table, [m for m in models if id(m) in declared])
    warnings = table.warnings + model_warnings(table, models)
    reason = impossible(table, models, spec, options)
    if reason is not None:
        summary = failure_summary(table, None, spec.name, models, warnings, f"the models cannot be met: {reason}")
        raise UnsatisfiableError(summary["message"], summary=summary)
    runtime, bk_priors = _runtime(table, spec, search_metric, seed, bk, priors)
    interrupt.check()
    release = spec.run(table, models, **options, **runtime)
    interrupt.check()
    seconds = time.perf_counter() - start
    release.seconds = seconds
    if not release.satisfied or release.n_released == 0:
        _refuse_unmet(table, release, spec, models, options, warnings, seconds)
    # the measures run on the distinct (class, tuple, sensitive values) rows with their counts: the same
    # values from arrays as long as the distinct rows, not the records (Release.counted); made before
    # the release is published, when the least is held
    give_back(table.n_records)  # what the search freed, before the publishing and verifying peaks
    measured = release if lean else release.counted()  # a rerun's loss sums per class: see _lean_measures
    published, verification = _publish_and_verify(runner, table, release, spec, models, bk, bk_priors,
                                                  suppressed=plan.suppressed, seed=seed,
                                                  population=population if counted else None)
    persons = ((np.asarray(release.notes["qt_person"]), table.person)  # a table of persons: who each row is
               if "qt_person" in release.notes and table.person is not None else None)
    if table.schema.new_ids:  # (the published rows' input records: drawn only when there are new ids)
        check_new_ids(frame, published, release.published_rows(suppressed=plan.suppressed, seed=seed),  # type: ignore[arg-type]
                      table.schema.new_ids, persons=persons)
    interrupt.check()
    warnings = warnings + flat_numeric_warnings(table, spec) + dropped_warnings(release)
    measures, classes = _measured(spec, table, release, measured, published, models, search_metric, verification,
                                  plan, lean)
    summary = {
        "algorithm": release.algorithm,
        "satisfied": True,
        "verified": verification.ok,
        "message": release.message,
        "records": table.n_records,
        "released": release.n_released,
        "suppressed": release.n_suppressed,
        **classes,
        **{k: v for k, v in measures.items() if k != "verification"},
        "models": [m.describe() for m in models],
        "verification": measures["verification"],
        "warnings": warnings,
        "seed": seed,
        "seconds": round(seconds, 6),
        "notes": plain_notes(release.notes),
    }
    if spec.family in WILDCARD_FAMILIES and isinstance(published, pd.DataFrame):  # "*" matches any value
        wildcard_privacy(summary, published, [q for q in table.schema.quasi if q in published.columns],
                         WILDCARD_FAMILIES[spec.family], list(release.notes.get("strata") or []))
    _add_facts(summary, table, release, spec, bk, priors, seed, seconds)
    if lean:
        summary["lean"] = True
    return Result(release, published, verification, summary, models, table.schema)


class Encodings:
    """The encoded tables of one job's input, shared by its runs: the main run, the advice's reruns and
    the fixes' trials change the models (and algorithm settings), never the input or its schema, so each
    would encode the same frame under the same schema into the same :class:`~anonkit.table.Table`; the
    first run's is read by the others, with its distinct tuples and hierarchy maps computed once.

    Keyed by the frame and schema *objects* the runs share (held here, so an id names its object for as
    long as the job lasts) and the settings that shape an encoding (the seed, missing, strip, person_qi).
    A run that changes its table (an ``input.subset`` run's population counts, the survey weights of
    individual-risk) encodes its own: :func:`anonymize_checked` passes it no cache."""

    def __init__(self) -> None:
        self._tables: dict[tuple[Any, ...], tuple[Any, Schema, Table]] = {}

    def get(self, frame: Any, schema: Schema, settings: tuple[Any, ...]) -> Table | None:
        hit = self._tables.get((id(frame), id(schema), *settings))
        return hit[2] if hit is not None and hit[0] is frame and hit[1] is schema else None

    def put(self, frame: Any, schema: Schema, settings: tuple[Any, ...], table: Table) -> None:
        self._tables[(id(frame), id(schema), *settings)] = (frame, schema, table)

    def __len__(self) -> int:
        return len(self._tables)


def _shareable(runner: Engine, counted: bool, models: list[Criterion]) -> bool:
    """Whether this run's table may be shared (a job's :class:`Encodings`, or across calls of
    :func:`anonymize`: :mod:`anonkit.runner._encoding_reuse`): on the local engine, and not changed by the
    run (an ``input.subset`` run's population counts, individual-risk's survey weights)."""
    return runner.name == "local" and not counted and not needs_weights(models)


def _measured(spec: Algorithm, table: Table, release: Release, measured: Release, published: Any,
              models: list[Criterion], search_metric: _m.SearchMetric, verification: Verification, plan: Plan,
              lean: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """The summary's measured part and its class figures: the full summary's (:func:`measured_summary`), a
    verdict's rerun's (``lean``: :func:`_lean_measures`), or a synthetic table's (no row is a record, so no
    class figure: the summary says why)."""
    if not spec.class_figures:
        return recordless_summary(table, published, verification), {}
    # one scope for the measures and the class figures: the smallest class reads the persons per class
    # the measures counted (:func:`anonkit.metrics.released_sizes`) when ``measured`` is ``release``
    # (:meth:`Release.counted` gave it back): one count (:func:`~anonkit.release.measured_once`, keyed by
    # the release's identity), not a second pass over the records
    with measuring():
        measures = (_lean_measures(measured, search_metric, verification) if lean else
                    measured_summary(measured, models, search_metric, verification,
                                     score=release.search.score if release.search is not None else None,
                                     skip=plan.skip_measures))
        classes = {"classes": release.n_classes,
                   "min_class_size": int(release.class_people().min()) if release.n_classes else 0,
                   "transformation": release.transformation}
    return measures, classes


def _encoded(runner: Engine, frame: Any, given: Schema, schema: Schema, plan: Plan,
             encodings: Encodings | None, shareable: bool) -> Table:
    """``frame`` encoded under ``schema`` (``given`` with the run's seed) by the plan's settings; from
    the job's ``encodings`` when a run of the same job encoded it already, or, for a call of
    :func:`anonymize` (no job) on the local engine by name, from the encoding of an unchanged input kept
    across calls (:mod:`anonkit.runner._encoding_reuse`: proven unchanged, else encoded)."""
    settings = (plan.seed, plan.missing, plan.strip, plan.person_qi)
    shared = encodings if shareable else None
    # (an engine object given by the caller encodes as that caller chose: its own encode, every call)
    across = shareable and encodings is None and plan.engine == "local" and isinstance(frame, pd.DataFrame)
    table = shared.get(frame, given, settings) if shared is not None else (
        _reuse.reused_table(frame, given, settings) if across else None)
    if table is None:
        table = runner.encode(frame, schema, missing=cast(MissingPolicy, plan.missing), strip=plan.strip,
                              person_qi=cast(PersonQIPolicy, plan.person_qi))
        if shared is not None:
            shared.put(frame, given, settings, table)
        elif across:
            _reuse.keep_table(frame, given, settings, table)
    return table


def _lean_measures(measured: Release, search_metric: _m.SearchMetric, verification: Verification) -> dict[str, Any]:
    """A verdict's rerun's measured part (:func:`anonymize_checked`'s ``lean``): :data:`LEAN_MEASURES`,
    computed as the full summary computes them, and the verifier's results. ``measured`` is the release
    itself, not :meth:`Release.counted` (which costs more than the measure): GCP is a sum over classes
    (each class's size times its NCP), and the counted rows give the same classes, sizes and NCPs in the
    same order, so the same float (tests/test_fixed_cost_paths.py holds the two equal)."""
    metrics = _m.compute_metrics(measured.table, measured, list(LEAN_MEASURES), gs=search_metric.gs,
                                 aggregate=search_metric.aggregate)
    return {"metrics": metrics,
            "verification": [{"model": r.model, "holds": r.passed, "achieved": r.achieved}
                             for r in verification.results]}


def _check_persons(table: Table, spec: Algorithm, schema: Schema) -> None:
    """An algorithm that publishes one row per person needs a person column; one that counts records
    must not get one (several records of a person could be told apart)."""
    if "person" in spec.needs and table.person is None:
        raise InputError(
            f"{spec.name} publishes one row per person and needs a person column: give the column that names "
            "each record's person role: person", key="attributes",
        )
    if table.person is not None and not spec.persons:
        takers = ", ".join(a.name for a in registry.algorithms().values() if a.persons) or "none yet"
        raise InputError(
            f"{spec.name} counts records, not persons, so several records of one person could be told apart; "
            f"with a person column use an algorithm that counts persons ({takers})",
            column=schema.person,
        )


def _runtime(table: Table, spec: Algorithm, search_metric: _m.SearchMetric, seed: int,
             bk: list[BackgroundKnowledge], priors: PriorsInput | None) -> tuple[dict[str, object], Any]:
    """What the pipeline hands the algorithm besides its options (:data:`RUNTIME`): the metric, the
    seed, the adversary's priors; and the priors the verifier judges a background-knowledge model by."""
    runtime: dict[str, object] = {}
    if "metric" in spec.runtime:
        runtime["metric"] = search_metric
    if spec.randomized:
        runtime["seed"] = seed
    bk_priors = None
    if bk:
        bk_priors = priors_for(table, bk[0], priors)
        runtime["priors"] = bk_priors
    elif priors is not None:
        if "priors" not in spec.runtime:
            takers = ", ".join(a.name for a in registry.algorithms().values() if "priors" in a.runtime)
            raise InputError(f"priors= applies to the algorithms that use background knowledge ({takers}) only, "
                             f"not {spec.name}", key="priors")
        runtime["priors"] = priors(table) if is_factory(priors) else priors  # type: ignore[operator]
    return runtime, bk_priors


def _refuse_unmet(table: Table, release: Release, spec: Algorithm, models: list[Criterion],
                  options: dict[str, Any], warnings: list[str], seconds: float) -> None:
    """A release that does not meet its models (or releases nothing) is refused, saying why."""
    why = explain(table, models, release, spec, options)
    # a search cut short by its budget has not shown the models cannot be met: say it stopped
    cut_short = (release.notes or {}).get("stopped") in ("time", "steps")
    head = "no release found" if cut_short else "the models cannot be met"
    summary = failure_summary(table, release, spec.name, models, warnings, f"{head}: {why}")
    summary["seconds"] = round(seconds, 6)
    raise UnsatisfiableError(summary["message"], summary=summary, release=release)


def _publish_and_verify(runner: Engine, table: Table, release: Release, spec: Algorithm, models: list[Criterion],
                        bk: list[BackgroundKnowledge], bk_priors: Any, *, suppressed: str, seed: int,
                        population: pd.DataFrame | None = None) -> tuple[Any, Verification]:
    """The published frame and its independent verification (an ``AssertionError`` when it fails: a
    bug, never a user error)."""
    if spec.verifier is not None:  # per-person tables (1:M data): verified as published
        published = release.tables[spec.tables[0]]
        verification = spec.verifier(table, release, models)
    else:
        with published_codes(), making_columns(_MAKERS):  # the columns published keep their codes for the verifier
            published, verification = _publish_and_verify_frame(runner, table, release, bk, bk_priors, models,
                                                                suppressed=suppressed, seed=seed,
                                                                population=population)
    if not verification.ok:
        raise AssertionError("the release failed independent verification:\n" + verification.summary())
    return published, verification


#: how the runner's publishing makes its columns: by the verifier's own functions, which keep what they made for
#: the verification that follows (:func:`anonkit._verify_rows.published_codes`)
_MAKERS = ColumnMakers(text=lambda labels, index, table, name: text_column(labels, index, published_memo(table),
                                                                         name),
                       taken=lambda column, rows, table, name: taken_column(column, rows,
                                                                            lambda: input_codes_of(table, name),
                                                                            take_rows))


def _publish_and_verify_frame(runner: Engine, table: Table, release: Release, bk: list[BackgroundKnowledge],
                              bk_priors: Any, models: list[Criterion], *, suppressed: str, seed: int,
                              population: pd.DataFrame | None) -> tuple[Any, Verification]:
    """:func:`_publish_and_verify` of a release published as one frame by the engine."""
    give_back(table.n_records)
    published = runner.publish(release, suppressed=suppressed, seed=seed)
    give_back(table.n_records)
    reference = {s: input_codes_of(table, s) for s in table.sensitive}  # (read once per table)
    link: dict[str, object] = {}
    if bk:
        link = {
            "source": table.frame,  # row i = record i of the table (identifiers dropped, index reset)
            "rows": release.published_rows(suppressed=suppressed, seed=seed),  # type: ignore[arg-type]
            "priors": bk_priors,
        }
    # the verifier reads suppression as it was published: dropped (every row a class, an all-* one too)
    # or marked (the publisher's own mask; on Spark, ARX's reading of all-* rows)
    if population is not None:  # k-map and δ-presence recounted in the population
        link["population"] = population
    if suppressed == "drop":
        link["suppressed"] = "drop"
    elif isinstance(published, pd.DataFrame):
        link["suppressed"] = release.record_class[release.published_rows(suppressed="mark", seed=seed)] < 0
    verification = runner.verify(published, table.schema, models, reference=reference,
                                 reference_weights=table.weights, **link)
    return published, verification


def _add_facts(summary: dict[str, Any], table: Table, release: Release, spec: Algorithm,
               bk: list[BackgroundKnowledge], priors: PriorsInput | None, seed: int, seconds: float) -> None:
    """The summary's facts of some runs: persons (1:M data), a reconstructed baseline, the lattice
    search's counts, the background-knowledge model."""
    if table.person is not None:
        summary.update(persons_summary(table, release, seed, seconds))
    if spec.family == "perturb":  # utility of a perturbed release against its own original records (issue 28)
        from anonkit.metrics.perturbed import release_utility

        summary["perturbed_utility"] = release_utility(table, release)
    if spec.reconstructed:
        summary["reconstructed"] = True  # a baseline rebuilt from a paper's outline, for comparison
    if release.search is not None:
        summary["lattice"] = release.search.counts
        if release.search.fallback is not None:
            summary["fallback"] = release.search.fallback
    if bk:
        m = bk[0]
        summary["background_knowledge"] = {
            "attribute": m.attribute,
            "J": m.J,
            "test": m.test,
            "prior": m.prior if priors is None else "given",
            "clusters": release.bk.clusters,  # an int (clustering algorithms) or None
        }


def _own_result(got: Any, spec: Algorithm, engine: str, models: list[Criterion], *, seed: int, start: float,
                metric: MetricConfig | _m.SearchMetric | None, skip: tuple[str, ...] = ()) -> Result:
    """The result of an algorithm's own path on an engine (an ``OwnRelease``: its counts, and when
    the models hold the published rows, verification and release to measure), summarized by the one
    summary builder; refused when the models do not hold."""
    base = {"algorithm": spec.name, "records": got.records, "released": got.released,
            "suppressed": got.suppressed, "classes": got.classes, "engine": engine,
            "models": [m.describe() for m in models], "seed": seed}
    if not got.satisfied:
        summary = {**base, "satisfied": False, "verified": False, "message": got.message,
                   "seconds": round(time.perf_counter() - start, 6)}
        raise UnsatisfiableError(got.message, summary=summary)
    measures = measured_summary(got.measured, models, search_metric_of(metric, models), got.verification,
                                skip=skip)
    summary = {
        **base,
        "satisfied": True,
        "verified": True,
        "message": got.message,
        "min_class_size": int(got.measured.class_people().min()),
        "transformation": None,
        **measures,
        "warnings": [],  # the input's value warnings would count distinct values here, not records
        "seconds": round(time.perf_counter() - start, 6),
        "notes": got.notes,
    }
    return Result(None, got.published, got.verification, summary, models, got.schema)  # type: ignore[arg-type]
