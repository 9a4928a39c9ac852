"""The main job: load → encode → anonymize → verify → measure → write.

:func:`anonymize` is the Python entry point on a pandas frame; :func:`run_config` runs a validated
:class:`~anonkit.config.Config` the way ``anonkit anonymize`` does and returns the release and a
summary dict (what ``--json`` prints).

Background knowledge (spec §1.7, §3, §4.1–4.3): a :class:`~anonkit.models.BackgroundKnowledge`
model is enforced only by the algorithms whose declaration enforces it (UHRA and its baselines).
The adversary's priors are computed once (or taken from the caller), handed to the algorithm as
``priors=`` and to the verifier, which judges the model from the released classes, the link from
released rows to input records (:meth:`~anonkit.release.Release.published_rows`) and the priors.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from anonkit import interrupt
from anonkit import metrics as _m
from anonkit._api_checks import check_arguments, check_metric
from anonkit._memory import give_back
from anonkit._paths import input_location, output_targets, plan_run, read_files  # noqa: F401  (their home was here)
from anonkit._paths import location as _location
from anonkit._paths import resolve as _resolve
from anonkit._paths import suffix_format as _suffix_format
from anonkit._secrets import mask_tree
from anonkit._values import is_missing, strip_cells
from anonkit.algorithms import registry
from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION, check_models
from anonkit.algorithms.feasibility import explain, impossible
from anonkit.algorithms.spec import RUNTIME, Algorithm
from anonkit.config import BackgroundKnowledgeConfig, BuilderConfig, Config, InputConfig, MetricConfig, PriorConfig
from anonkit.datasets import DATASETS
from anonkit.engines import Engine, get_engine
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.hierarchy import Hierarchy, builders, read_hierarchy
from anonkit.io import read_table, write_table
from anonkit.io.batches import batch_rows_for, is_compact, read_compact
from anonkit.io.categories import read_categories
from anonkit.io.postgresql import _without_password
from anonkit.metrics import compute_metrics
from anonkit.metrics.distortion import published_texts
from anonkit.metrics.risk import prosecutor_risk
from anonkit.models import BackgroundKnowledge, Criterion
from anonkit.release import Release, check_seed
from anonkit.risk.thresholds import DEFAULT_HIGHEST_RISK, default_highest_risk
from anonkit.schema import Attribute, AttrType, Schema
from anonkit.table import MissingPolicy, PersonQIPolicy, Table
from anonkit.verifier import Verification, verify

if TYPE_CHECKING:
    from anonkit.knowledge import Priors


@dataclass
class Result:
    """What a run produced: the release, the published frame, the verdict and the summary."""

    release: Release
    frame: pd.DataFrame
    verification: Verification
    summary: dict = field(default_factory=dict)
    #: the privacy models as enforced and verified (background-knowledge tests resolved)
    models: list[Criterion] = field(default_factory=list)
    #: the schema the release was verified under (every type resolved)
    schema: Schema | None = None


#: What ``priors=`` accepts: :class:`~anonkit.knowledge.Priors`, an ``(n × S)`` (per record) or
#: ``(m × S)`` (per distinct QI tuple) array, a frame indexed by QI tuples (``matrix_priors``), or a
#: function of the encoded :class:`~anonkit.table.Table` returning one of those.
PriorsInput: TypeAlias = "Priors | ArrayLike | pd.DataFrame | Callable[[Table], Priors | ArrayLike | pd.DataFrame]"


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
    local = engine in (None, "local") or getattr(engine, "name", None) == "local"
    models = check_arguments(frame, schema, models, local=local)
    metric = check_metric(metric)
    seed = check_seed(seed)
    spec = registry.get(algorithm)
    options = spec.validate({k: v for k, v in params.items() if k not in RUNTIME})
    runner = get_engine(engine)
    refuse = getattr(runner, "refuse", None)  # an engine of one's own may run everything
    if refuse is not None:
        refuse(spec, options)
    if runner.name == "spark" and spec.family == "partition":  # Mondrian: its own distributed path
        return _spark_mondrian(runner, frame, schema, models, options, seed=seed, suppressed=suppressed,
                               missing=missing, strip=strip, start=start, spec_name=spec.name, metric=metric)
    table = runner.encode(frame, schema, missing=missing, strip=strip, person_qi=person_qi)
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
    models, bk = resolve_background_knowledge(models, spec)
    check_models(table, models)
    if spec.implies is not None:  # what the algorithm guarantees given its options (on what it publishes)
        models = spec.implies(table, models, options)
    if isinstance(metric, MetricConfig):
        search_metric = metric.search_metric()
    else:
        search_metric = metric if metric is not None else _m.SearchMetric()
    runtime: dict[str, object] = {}
    if "metric" in spec.runtime:
        runtime["metric"] = search_metric
    if spec.randomized:
        runtime["seed"] = seed
    warnings = table.warnings + _model_warnings(table, models)
    reason = impossible(table, models, spec, options)
    if reason is not None:
        summary = _failure_summary(table, None, spec.name, models, warnings, f"the models cannot be met: {reason}")
        raise UnsatisfiableError(summary["message"], summary=summary)
    bk_priors: Priors | None = None
    if bk:
        bk_priors = priors_for(table, bk[0], priors)
        runtime["priors"] = bk_priors
    elif priors is not None:
        if "priors" not in spec.runtime:
            takers = ", ".join(a.name for a in registry.algorithms().values() if "priors" in a.runtime)
            raise InputError(f"priors= applies to the algorithms that use background knowledge ({takers}) only, "
                             f"not {spec.name}", key="priors")
        runtime["priors"] = priors(table) if _is_factory(priors) else priors  # type: ignore[operator]
    interrupt.check()
    release = spec.run(table, models, **options, **runtime)
    interrupt.check()
    seconds = time.perf_counter() - start
    release.seconds = seconds
    if not release.satisfied or release.n_released == 0:
        why = explain(table, models, release, spec, options)
        # a search cut short by its budget has not shown the models cannot be met: say it stopped
        cut_short = (release.notes or {}).get("stopped") in ("time", "steps")
        head = "no release found" if cut_short else "the models cannot be met"
        summary = _failure_summary(table, release, spec.name, models, warnings, f"{head}: {why}")
        summary["seconds"] = round(seconds, 6)
        raise UnsatisfiableError(summary["message"], summary=summary, release=release)
    # the measures run on the distinct (class, tuple, sensitive values) rows with their counts: the same
    # values from arrays as long as the distinct rows, not the records (Release.counted); made before
    # the release is published, when the least is held
    give_back(table.n_records)  # what the search freed, before the publishing and verifying peaks
    measured = release.counted()
    if spec.verifier is not None:  # per-person tables (1:M data): verified as published
        published = release.tables[spec.tables[0]]
        verification = spec.verifier(table, release, models)
    else:
        give_back(table.n_records)
        published = runner.publish(release, suppressed=suppressed, seed=seed)
        give_back(table.n_records)
        reference = {s: table.frame[s] for s in table.sensitive}
        link: dict[str, object] = {}
        if bk:
            link = {
                "source": table.frame,  # row i = record i of the table (identifiers dropped, index reset)
                "rows": release.published_rows(suppressed=suppressed, seed=seed),  # type: ignore[arg-type]
                "priors": bk_priors,
            }
        # the verifier reads suppression as it was published: dropped (every row a class, an all-* one too)
        # or marked (the publisher's own mask; on Spark, ARX's reading of all-* rows)
        if suppressed == "drop":
            link["suppressed"] = "drop"
        elif isinstance(published, pd.DataFrame):
            link["suppressed"] = release.record_class[release.published_rows(suppressed="mark", seed=seed)] < 0
        verification = runner.verify(published, table.schema, models, reference=reference,
                                     reference_weights=table.weights, **link)
    if not verification.ok:
        raise AssertionError("the release failed independent verification:\n" + verification.summary())
    interrupt.check()
    metrics = compute_metrics(measured.table, measured, gs=search_metric.gs, aggregate=search_metric.aggregate)
    risk_threshold = default_highest_risk(models)  # the audit's threshold, so the two count alike
    metrics["records_at_risk"] = prosecutor_risk(measured.table, measured, threshold=risk_threshold).records_at_risk
    warnings = warnings + flat_numeric_warnings(table, spec) + _dropped_warnings(release)
    summary = {
        "algorithm": release.algorithm,
        "satisfied": True,
        "verified": verification.ok,
        "message": release.message,
        "records": table.n_records,
        "released": release.n_released,
        "suppressed": release.n_suppressed,
        "classes": release.n_classes,
        "min_class_size": int(release.class_people().min()) if release.n_classes else 0,
        "transformation": release.transformation,
        "generalization": _generalization(measured.table, measured),
        "score": release.search.score if release.search is not None else _plain(
            _m.score(measured.table, measured, search_metric)
        ),
        "metric": dataclasses.asdict(search_metric),
        "metrics": metrics,
        "risk_threshold": risk_threshold,
        "models": [m.describe() for m in models],
        "verification": [
            {"model": r.model, "holds": r.passed, "achieved": r.achieved} for r in verification.results
        ],
        "warnings": warnings,
        "seed": seed,
        "seconds": round(seconds, 6),
        "notes": _plain_notes(release.notes),
    }
    if table.person is not None:
        summary.update(_persons_summary(table, release, seed, seconds))
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
    return Result(release, published, verification, summary, models, table.schema)


def _spark_mondrian(runner: Engine, frame: object, schema: Schema, models: list[Criterion],
                    options: dict[str, object], *, seed: int, suppressed: str, missing: str, strip: bool,
                    start: float, spec_name: str, metric: object = None) -> Result:
    """Mondrian (strict) on Spark (:mod:`anonkit.engines.spark_mondrian`): the published rows stay
    on Spark, shuffled with ``seed`` and verified from Spark's counts of the published classes
    against the input's sensitive distribution (also counted on Spark). The classes live on Spark,
    so ``Result.release`` is ``None``; the summary's measures and generalization are those of
    :func:`~anonkit.engines.spark_mondrian.counted_release`, the release of the distinct
    quasi-identifier tuples with their records and classes (collected to the driver: as many rows as
    distinct QI tuples, the bound the lattice search's driver has too), equal to the local engine's."""
    from anonkit.engines.spark import is_spark_frame
    from anonkit.engines.spark_mondrian import counted_release, mondrian_on_spark

    engine: Any = runner
    df = frame if is_spark_frame(frame) else engine.session.createDataFrame(pd.DataFrame(frame))
    published, facts = mondrian_on_spark(
        df, schema, models, partition_rows=engine.partition_rows, mode=options.get("mode"),
        max_suppression=options.get("max_suppression", DEFAULT_MAX_SUPPRESSION),
        missing=missing, strip=strip, measures=True,
    )
    resolved = facts["schema"]
    base = {"algorithm": spec_name, "records": facts["records"], "released": facts["released"],
            "suppressed": facts["suppressed"], "classes": facts["classes"], "engine": "spark",
            "models": [m.describe() for m in models], "seed": seed}
    if not facts["satisfied"] or facts["released"] == 0:
        summary = {**base, "satisfied": False, "verified": False, "message": facts["message"],
                   "seconds": round(time.perf_counter() - start, 6)}
        raise UnsatisfiableError(facts["message"], summary=summary)
    published = engine.shuffle(published, seed)  # nothing is suppressed when the models hold: nothing to mark
    sens = sorted({m.attribute for m in models if m.attribute is not None})
    reference, reference_weights = None, None
    if sens:  # the input's sensitive distribution (t-closeness, β-likeness, δ-disclosure)
        counted = engine.collect(df.groupBy(*sens).count())
        reference_weights = counted.pop("count").to_numpy(dtype=np.int64)
        reference = counted
    verification = engine.verify(published, resolved, models, reference=reference,
                                 reference_weights=reference_weights)
    if not verification.ok:
        raise AssertionError("the release failed independent verification:\n" + verification.summary())
    interrupt.check()
    search_metric = metric.search_metric() if isinstance(metric, MetricConfig) else (
        metric if metric is not None else _m.SearchMetric())
    release = counted_release(facts["counted"], resolved, algorithm=spec_name, missing=missing, strip=strip)
    if (release.n_released, release.n_suppressed, release.n_classes) != (
            facts["released"], facts["suppressed"], facts["classes"]):
        raise AssertionError("the Spark classes' counted release disagrees with their facts")
    metrics = compute_metrics(release.table, release, gs=search_metric.gs, aggregate=search_metric.aggregate)
    metrics["records_at_risk"] = prosecutor_risk(release.table, release,
                                                 threshold=default_highest_risk(models)).records_at_risk
    summary = {
        **base,
        "satisfied": True,
        "verified": True,
        "message": facts["message"],
        "min_class_size": int(release.class_people().min()),
        "transformation": None,
        "generalization": _generalization(release.table, release),
        "score": _plain(_m.score(release.table, release, search_metric)),
        "metric": dataclasses.asdict(search_metric),
        "metrics": metrics,
        "risk_threshold": default_highest_risk(models),
        "verification": [{"model": r.model, "holds": r.passed, "achieved": r.achieved}
                         for r in verification.results],
        "warnings": [],  # the input's value warnings would count distinct values here, not records
        "seconds": round(time.perf_counter() - start, 6),
        "notes": {"partitions": facts["partitions"], "spark_levels": facts["top_levels"],
                  "spark_groups": facts["groups"], "largest_group": facts["largest_group"]},
    }
    return Result(None, published, verification, summary, models, resolved)  # type: ignore[arg-type]


def _persons_summary(table: Table, release: Release, seed: int, seconds: float) -> dict[str, object]:
    """What a release of data with several records per person reports (issue 12, spec §2.7): the
    persons (input, released, reconciled), and the 1:M measures — NCP per person, query accuracy of
    seeded COUNT queries, the record-intersection attack, record linkability — and the time."""
    from anonkit.metrics.one_to_many import one_to_many_measures

    assert table.person is not None
    released = np.unique(table.person[release.record_class >= 0]).size
    measures = one_to_many_measures(table, release, seed=seed)
    return {
        "persons": table.n_persons,
        "released_persons": int(released),
        "reconciled": table.reconciled,
        "one_to_many": {**measures, "seconds": round(seconds, 6)},
    }


def _plain_notes(notes: dict) -> dict:
    """The algorithm's notes a person or a JSON reader can use: numbers, text, flags and short lists
    of them (per-record arrays and tables stay in the :class:`Release`)."""
    def plain(v: object) -> bool:
        return isinstance(v, bool | int | float | str | np.integer | np.floating) or v is None

    out = {}
    for k, v in notes.items():
        if plain(v):
            out[k] = v
        elif isinstance(v, list | tuple) and len(v) <= 100 and all(
            plain(x) or (isinstance(x, list | tuple) and all(plain(y) for y in x)) for x in v
        ):
            out[k] = [list(x) if isinstance(x, list | tuple) else x for x in v]
    return out


#: the re-identification risk above which a record counts as "at risk" without a k-anonymity model
#: (prosecutor model, 1 in 5); with one it is 1/k (:func:`anonkit.risk.thresholds.default_highest_risk`)
RISK_THRESHOLD = DEFAULT_HIGHEST_RISK


def _failure_summary(
    table: Table, release: Release | None, algorithm: str, models: list[Criterion], warnings: list[str], message: str
) -> dict:
    """The summary of a run whose models cannot be met: the counts and the reason, no measures
    (there is no release to measure)."""
    return {
        "algorithm": release.algorithm if release is not None else algorithm,
        "satisfied": False,
        "verified": False,
        "message": message,
        "records": table.n_records,
        "released": 0,
        "suppressed": table.n_records,
        "would_suppress": None if release is None else release.n_suppressed,
        "models": [m.describe() for m in models],
        "warnings": warnings,
        "output": None,
    }


def _model_warnings(table: Table, models: list[Criterion]) -> list[str]:
    """What the user should know about how the models read the values: missing sensitive values
    that count as a value toward diversity, ordered distance over text ordered alphabetically."""
    out = []
    for name in table.sensitive:
        missing = int(is_missing(table.frame[name]).sum())
        about = [m for m in models if m.attribute == name]
        if missing and about:
            out.append(
                f"sensitive attribute {name!r}: {missing:,} missing value(s) count as one value of their own toward "
                f"{', '.join(m.describe() for m in about)}; fill them, or set input.missing: error to refuse them"
            )
        attr = table.schema[name]
        ordered = [m for m in about if getattr(m, "distance", None) == "ordered"]
        if ordered and attr.type not in (AttrType.NUMERIC, AttrType.DATE) and not attr.order:
            out.append(
                f"{ordered[0].describe()}: {name!r} is nominal, so the ordered distance orders its values "
                "alphabetically (ARX's rule for text); give it an 'order' or type numeric, or use distance equal"
            )
    return out


def flat_numeric_warnings(table: Table, spec: Algorithm) -> list[str]:
    """A full-domain algorithm (the lattice family) can publish a numeric or date quasi-identifier
    without a hierarchy only as itself or ``*`` (the flat ``{values} → *`` hierarchy :class:`Table`
    gives it): say so, naming the column and the builder that gives it levels in between."""
    if spec.family != "lattice":
        return []
    out = []
    for q in table.qi:
        attr = table.schema[q]
        if q in table.numeric and attr.hierarchy is None:
            builder = "dates" if attr.type == AttrType.DATE else "intervals"
            out.append(
                f"quasi-identifier {q!r} is {attr.type.value if attr.type else 'numeric'} without a hierarchy, so "
                f"{spec.name} can publish it only unchanged or as '*' (the flat {{values}} → * hierarchy): give it "
                f"hierarchy: {{builder: {builder}, …}} for levels in between"
            )
    return out


def _dropped_warnings(release: Release) -> list[str]:
    """Insensitive columns an algorithm left out because its ``insensitive: drop`` option said so."""
    dropped = release.notes.get("dropped_columns") or []
    if not dropped:
        return []
    return [f"{len(dropped)} insensitive column(s) not published (algorithm.insensitive: drop): {', '.join(dropped)}"]


def _generalization(table: Table, release: Release, examples: int = 3) -> dict[str, dict]:
    """Per quasi-identifier what the release publishes: its level (full-domain), the number of
    distinct published labels, the most frequent ones, and the share of released values changed.

    Computed from each class's label (a text id per class) and each leaf's, not from text per record."""
    out: dict[str, dict] = {}
    rc = release.record_class
    kept = rc >= 0
    if not kept.any():
        return out
    cls = rc[kept]
    w = None if table.weights is None else table.weights[kept]
    total = len(cls) if w is None else int(w.sum())
    for j, name in enumerate(table.qi):
        h = table.hierarchies[j]
        text_id, texts, changed = published_texts(table, release, j)
        per_text = np.bincount(text_id[cls], weights=w, minlength=len(texts))
        # the most frequent first, equal counts by label (not by class numbering, which engines differ in)
        top = np.lexsort((np.asarray(texts, dtype=str), -per_text))[:examples]
        level = None if release.transformation is None else release.transformation.get(name)
        out[name] = {
            "level": level,
            "height": h.height,
            "labels": int(np.count_nonzero(per_text)),
            "examples": [str(texts[i]) for i in top if per_text[i] > 0],
            "changed": changed / total,
        }
    return out


# ---------------------------------------------------------------------- background knowledge
def resolve_background_knowledge(
    models: list[Criterion], spec: Algorithm
) -> tuple[list[Criterion], list[BackgroundKnowledge]]:
    """``models`` with every background-knowledge model resolved for the algorithm ``spec`` (§1.7),
    and those models; an :class:`InputError` if the algorithm cannot enforce them."""
    if not any(getattr(m, "record_level", False) for m in models):
        return models, []
    out: list[Criterion] = []
    for m in models:
        if getattr(m, "record_level", False):
            if not spec.enforces_model(m):
                takers = ", ".join(a.name for a in registry.algorithms().values() if a.enforces_model(m))
                raise InputError(
                    f"the {m.name} model is enforced only by the algorithms {takers}, not {spec.name}; to measure "
                    "what a background-knowledge adversary learns from another release, run "
                    "anonkit.analytics.background_knowledge_attack on it",
                    key="algorithm.name",
                )
            if not isinstance(m, BackgroundKnowledge):
                raise InputError(f"{m.describe()}: unknown record-level model", key="privacy")
            m = m.resolved(spec.bk_test or "pairwise")
        out.append(m)
    bk = [m for m in out if isinstance(m, BackgroundKnowledge)]
    attributes = sorted({m.attribute for m in bk})
    if len(attributes) > 1:
        raise InputError(
            f"background-knowledge models about several sensitive attributes ({', '.join(attributes)}); "
            "the algorithms take the priors of one",
            key="privacy",
        )
    return out, bk


def _is_factory(priors: object) -> bool:
    from anonkit.knowledge import Priors

    return callable(priors) and not isinstance(priors, Priors | np.ndarray | pd.DataFrame)


def priors_for(table: Table, model: BackgroundKnowledge, priors: PriorsInput | None) -> Priors:
    """The priors of ``model`` over ``table``'s records: given (in any :data:`PriorsInput` form) or
    estimated by the model (its ``prior`` kind, spec §3)."""
    if _is_factory(priors):
        priors = priors(table)  # type: ignore[operator]
    if priors is None:
        return model.priors(table)
    from anonkit.knowledge.sources import as_priors

    return as_priors(table, model.attribute, priors)  # type: ignore[arg-type]


def _plain(value: float | tuple[float, ...]) -> float | list[float]:
    return list(value) if isinstance(value, tuple) else float(value)


def _build_hierarchy(name: str, spec: BuilderConfig, values: pd.Series, date_format: str | None = None) -> Hierarchy:
    """A hierarchy from a builder spec of the config, over the column's values (the dates builder
    reads them in the attribute's ``format`` unless the builder names its own)."""
    params = spec.params()
    if date_format is not None and spec.builder == "dates":
        params.setdefault("format", date_format)
    where = f"attributes.{name}.hierarchy"
    try:
        if spec.builder == "flat":
            return Hierarchy.flat(values, name=name, **params)
        if spec.builder == "nested":
            if "tree" not in params:
                raise InputError("the nested builder needs 'tree' (a mapping of parents to children)", key=where)
            return builders.nested(params.pop("tree"), name=name, **params)
        return getattr(builders, spec.builder)(values, name=name, **params)
    except TypeError as exc:
        raise InputError(f"bad parameter for the {spec.builder} builder: {exc}", key=where) from None


def config_schema(config: Config, base: Path, default_hierarchies: dict[str, Hierarchy], frame: pd.DataFrame) -> Schema:
    """The schema a config declares over ``frame``: every listed attribute, and with ``default_role``
    every unlisted column in that role (a dataset's default hierarchy for a quasi-identifier)."""
    schema = Schema(default_role=config.default_role)  # type: ignore[arg-type]
    for name, a in config.attributes.items():
        h = None
        if isinstance(a.hierarchy, BuilderConfig):
            if name not in frame.columns:
                raise InputError(f"unknown column; the input has: {', '.join(map(str, frame.columns))}", column=name)
            h = _build_hierarchy(name, a.hierarchy, frame[name], a.format)
        elif a.hierarchy is not None:
            h = read_hierarchy(_resolve(base, a.hierarchy), name=name)
        elif name in default_hierarchies and a.role not in ("identifier", "id", "insensitive", "other"):
            h = default_hierarchies[name]
        categories = a.categories if not isinstance(a.categories, str) else _read_categories(base, name, a.categories)
        schema.add(
            Attribute(
                name, a.role, a.type, h, order=a.order, min_level=a.min_level, max_level=a.max_level, weight=a.weight,
                categories=categories, category_order=None if a.category_order is None else tuple(a.category_order),
                format=a.format,
            )
        )
    if config.default_role is not None:
        for name in schema.unlisted(frame.columns):
            h = default_hierarchies.get(name) if config.default_role == "quasi" else None
            schema.add(Attribute(name, config.default_role, hierarchy=h))
    return schema


def _read_categories(base: Path, name: str, path: str) -> dict[str, str]:
    """A sensitive attribute's categories from its file (:func:`anonkit.io.categories.read_categories`)."""
    return read_categories(_location(base, path), key=f"attributes.{name}.categories")


def load_input(config: Config, base: Path, override: str | None = None) -> tuple[pd.DataFrame, dict[str, Hierarchy]]:
    """The input frame of a config (or of ``override``) and the dataset's default hierarchies.

    A CSV or Parquet file is read in batches into a compact frame (every column codes and a
    dictionary, :mod:`anonkit.io.batches`) when ``input.batch_rows`` asks for it or the file is
    large; identifier columns are then not read."""
    inp = config.input
    where = override if override is not None else None if inp.path is None else _location(base, inp.path)
    rows = None if where is None else batch_rows_for(where, None if override is not None else inp.format,
                                                     inp.batch_rows)
    if rows is not None and where is not None and inp.table is None and inp.query is None:
        skip = [n for n, a in config.attributes.items() if a.role in ("identifier", "id")]
        return read_compact(where, format=None if override is not None else inp.format, separator=inp.separator,
                            encoding=inp.encoding, na_values=inp.na_values, strip=inp.strip, batch_rows=rows,
                            skip=skip), {}
    if override is not None:
        sheet = _excel_options(inp) if _suffix_format(override) == "excel" else {}
        return read_table(override, separator=inp.separator, encoding=inp.encoding, na_values=inp.na_values,
                          **sheet), {}
    if inp.dataset is not None:
        path_fn, hier_fn = DATASETS[inp.dataset]
        frame = read_table(path_fn(), separator=";", na_values=inp.na_values)
        return frame, hier_fn()
    assert inp.path is not None
    frame = read_table(
        _location(base, inp.path),
        format=inp.format,
        separator=inp.separator,
        encoding=inp.encoding,
        table=inp.table,
        query=inp.query,
        na_values=inp.na_values,
        **(_excel_options(inp) if (inp.format or _suffix_format(inp.path)) == "excel" else {}),
    )
    return frame, {}


def _excel_options(inp: InputConfig) -> dict[str, object]:
    """``sheet`` and ``header_row`` for an Excel input (the other formats refuse them)."""
    return {"sheet": inp.sheet, "header_row": inp.header_row}


# ---------------------------------------------------------------------- priors from a config (§3)
def config_priors(config: Config, base: Path) -> tuple[Callable[[Table], Priors] | None, str | None]:
    """The priors a config's first ``background-knowledge`` model asks for, as a function of the
    encoded input (``anonymize(priors=...)``), and how the summary describes them.

    ``None`` when the model estimates them itself from the input (``prior: kernel`` or
    ``classifier`` without ``external``). Files are read now (relative to ``base``, like the input:
    same encoding and missing values, the input's separator unless the prior spec gives one), so a
    missing file fails before the anonymization starts.
    """
    found = [(i, m) for i, m in enumerate(config.privacy) if isinstance(m, BackgroundKnowledgeConfig)]
    if not found:
        return None, None
    i, spec = found[0]
    prior = spec.prior
    key = f"privacy.{i}.prior"
    if prior.kind != "matrix" and prior.external is None:
        return None, prior.kind
    path = prior.path if prior.kind == "matrix" else prior.external
    assert path is not None
    location = _location(base, path)
    data = _read_prior_file(config, prior, location, key)
    model = spec.build()
    assert isinstance(model, BackgroundKnowledge)

    from anonkit.knowledge.sources import external_table, matrix_file_priors

    def build(table: Table) -> Priors:
        try:
            if prior.kind == "matrix":
                return matrix_file_priors(table, model.attribute, data)
            return model.priors(table, external=external_table(table, model.attribute, data))
        except InputError as exc:
            raise InputError(str(exc), file=location, key=key) from None

    note = f"matrix from {path}" if prior.kind == "matrix" else f"{prior.kind} on external data {path}"
    return build, note


def _read_prior_file(config: Config, prior: PriorConfig, location: str, key: str) -> pd.DataFrame:
    inp = config.input
    separator = prior.separator or (";" if inp.dataset is not None else inp.separator)
    try:
        return read_table(location, separator=separator, encoding=inp.encoding, na_values=inp.na_values)
    except InputError as exc:
        raise InputError(str(exc), key=key) from None


def planned_outputs(
    config: Config,
    *,
    config_dir: str | Path = ".",
    input_path: str | None = None,
    output_path: str | None = None,
    config_file: str | Path | None = None,
    report: str | None = None,
) -> list[tuple[str, str | None]]:
    """Check, before any work, every place a run of ``config`` reads and writes; return the release's
    outputs as ``(location, SQL table)``.

    No write may land on a read (the input, the config, a hierarchy, categories, prior, population or
    control file: the same file after resolving links, ``..`` and hard links, or the same SQL table)
    nor on another write (the release's tables, the manifest of fake records, ``report``), and each
    must be writable in a known format; see :mod:`anonkit._paths`.

    Raises
    ------
    InputError
        One line naming the output, the place it would replace and what to change.
    """
    return plan_run(config, config_dir=config_dir, input_path=input_path, output_path=output_path,
                    config_file=config_file, report=report).outputs


def _post_analytics(config: Config, result: Result, original: pd.DataFrame, manifest_target: str | None
                    ) -> pd.DataFrame | None:
    """Post-analytics of the release (paper C §5) into the summary, and fake records when asked;
    returns the manifest of fakes to write (``None`` without fakes)."""
    from anonkit.analytics.post import inject_fakes, post_analytics

    post = config.post_analytics
    assert post is not None
    table = result.release.table
    unknown = [c for c in post.critical if c not in result.frame.columns]
    if unknown:
        raise InputError("a critical attribute is not published", column=unknown[0], key="post_analytics.critical")
    report = post_analytics(result.frame, post.critical, original=original[[c for c in result.frame.columns]],
                            rho=post.rho, key_columns=table.qi)
    result.summary["post_analytics"] = report.summary
    if not post.inject_fake or not report.vulnerable:
        return None
    injected = inject_fakes(result.frame, post.critical, rho=post.rho, seed=post.seed, key_columns=table.qi)
    reference = {s: table.frame[s] for s in table.sensitive}
    fakes: dict[str, object] = {"injected": injected.fakes, "unrepairable": injected.unrepairable, "manifest": None}
    if any(getattr(m, "record_level", False) for m in result.models):
        failing = "the record-level models (fake records have no input record to judge)"
    else:
        check = verify(injected.frame, table.schema, result.models, reference=reference)
        failing = "" if check.ok else ", ".join(r.model for r in check.results if not r.passed)
    if failing:
        result.summary["warnings"].append(f"fake records not injected: they would break {failing}")
        fakes["injected"] = 0
        result.summary["post_analytics"]["fakes"] = fakes
        return None
    after = post_analytics(injected.frame, post.critical, rho=post.rho, key_columns=table.qi)
    fakes.update(
        records_without=len(result.frame), records_with=len(injected.frame),
        vulnerable_classes_without=report.summary["vulnerable_classes"],
        vulnerable_classes_with=after.summary["vulnerable_classes"],
        max_share_without=report.max_share, max_share_with=after.max_share,
        leakage_with=after.leakage_after,
    )
    result.summary["post_analytics"]["fakes"] = fakes
    result.frame = injected.frame
    return injected.manifest if manifest_target is not None else None


def run_config(
    config: Config,
    *,
    config_dir: str | Path = ".",
    input_path: str | None = None,
    output_path: str | None = None,
    seed: int | None = None,
    progress: Callable[[str], None] | None = None,
    config_file: str | Path | None = None,
    audit: bool = False,
) -> Result:
    """Run a config end to end; writes the output only when the models hold.

    The config's ``audit:`` (or, with ``audit=True``, an audit with default settings) runs on the
    release before it is written (``summary["audit"]``).

    Everything that can be checked before the work is (the seed, every output target, that no
    output is the input), so a bad setting fails in a second, not after the anonymization.

    Raises
    ------
    InputError
        Bad input or config (one line naming the key, column, value or row).
    UnsatisfiableError
        The models cannot be met; nothing is written (``.summary`` is what ``--json`` prints).
    """
    if config.engine == "spark":
        from anonkit.spark_job import run_spark_config

        return run_spark_config(config, config_dir=config_dir, input_path=input_path, output_path=output_path,
                                seed=seed, progress=progress, config_file=config_file, audit=audit)
    say = progress or (lambda _msg: None)
    base = Path(config_dir)
    t0 = time.perf_counter()
    started = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    run_seed = check_seed(config.seed if seed is None else seed)
    plan = plan_run(config, config_dir=base, input_path=input_path, output_path=output_path, config_file=config_file)
    outputs, manifest_target = plan.outputs, plan.manifest
    say("reading input")
    frame, defaults = load_input(config, base, input_path)
    if config.input.strip and not is_compact(frame):  # a compact frame was stripped as it was read
        frame = frame.apply(strip_cells) if len(frame.columns) else frame
    interrupt.check()
    schema = config_schema(config, base, defaults, frame)
    say("anonymizing")
    algo = config.algorithm
    params = algo.options()
    priors, prior_note = config_priors(config, base)
    try:
        result = anonymize(
            frame,
            schema,
            config.models(),
            algorithm=algo.spec.name,
            seed=run_seed,
            suppressed=config.output.suppressed,
            missing=config.input.missing,
            strip=config.input.strip,
            person_qi=config.input.person_qi,
            metric=algo.metric,
            priors=priors,
            **params,
        )
    except UnsatisfiableError as exc:
        exc.summary["total_seconds"] = round(time.perf_counter() - t0, 6)
        exc.summary = mask_tree(exc.summary)  # type: ignore[assignment]
        raise
    if "background_knowledge" in result.summary and prior_note is not None:
        result.summary["background_knowledge"]["prior"] = prior_note
    manifest = None
    if config.post_analytics is not None:
        say("post-analytics")
        manifest = _post_analytics(config, result, frame, manifest_target)
    say("auditing")  # always: the quick checks give the run one verdict (audit: {…} or --report add to them)
    audit_result(config, base, result, frame=frame, schema=schema)
    out = config.output
    result.summary["output"] = None
    if outputs:
        say("writing output")
        tables = result.release.tables
        frames = [result.frame] if not tables else list(tables.values())
        for (location, sql_table), frame_out in zip(outputs, frames, strict=True):
            write_table(
                frame_out,
                location,
                format=out.format,
                separator=out.separator,
                encoding=out.encoding,
                table=sql_table,
                neutralise=out.neutralise,
                if_exists="replace" if sql_table is None else out.if_exists,
                sheet=out.sheet,
            )
        written = [loc if tab is None else f"{_without_password(loc)}#{tab}" for loc, tab in outputs]
        result.summary["output"] = written[0] if len(written) == 1 else written
        if manifest is not None and manifest_target is not None:
            write_table(manifest, manifest_target, format="csv", neutralise=out.neutralise)
            result.summary["post_analytics"]["fakes"]["manifest"] = manifest_target
        noise = result.release.manifest
        if noise is not None and len(noise) and manifest_target is not None:
            write_table(noise, manifest_target, format="csv", neutralise=out.neutralise)
            result.summary["manifest"] = manifest_target
    result.summary["run"] = run_facts(config, base, input_path, config_file, outputs, result, started)
    result.summary["total_seconds"] = round(time.perf_counter() - t0, 6)
    result.summary = mask_tree(result.summary)  # type: ignore[assignment]  # no password or token leaves
    return result


def audit_report(config: Config, base: Path, result: Result) -> dict:
    """The config's ``audit:`` (default settings without one) of the release in memory, with the
    adversary's priors and the private link when a background-knowledge model asks for them."""
    from anonkit.analytics.published import private_rows
    from anonkit.audit.inputs import AuditInputs, read_extra
    from anonkit.audit.run import audit
    from anonkit.config import AuditConfig

    spec = config.audit or AuditConfig()
    release = result.release
    table = release.table
    published = result.frame if not release.tables else dict(release.tables)
    inputs = AuditInputs(schema=table.schema, original=table.frame, release=published,
                         population_table=read_extra(spec.population_table, config, base, "audit.population_table"),
                         control=read_extra(spec.control, config, base, "audit.control"))
    priors = rows = None
    bk = [m for m in result.models if isinstance(m, BackgroundKnowledge)]
    if bk:
        factory, _ = config_priors(config, base)
        priors = priors_for(table, bk[0], factory)
        rows = private_rows(release, suppressed=config.output.suppressed, seed=result.summary.get("seed", 0))
    report = audit(inputs, models=result.models, thresholds=spec.thresholds, population=spec.population,
                   attacks=spec.attacks, seed=spec.seed, targets=spec.targets, priors=priors, rows=rows)
    return report


def audit_result(config: Config, base: Path, result: Result, *, frame: pd.DataFrame | None = None,
                 schema: Schema | None = None) -> None:
    """The config's ``audit:`` (default settings without one: the quick checks — the models, the risk
    models and every attack that needs no extra input) on the release in memory, into
    ``summary["audit"]``, and the run's one verdict into ``summary["verdict"]``: ``ok``, the failing
    checks, the thresholds, and when a check fails the advice (:func:`anonkit.audit.advice.advise`:
    the parameter to change and what it gives, computed by rerunning ``frame`` under ``schema``).
    With ``audit.required`` a failing verdict refuses the release before anything is written."""
    from anonkit.audit.advice import advise, rerun_for
    from anonkit.config import AuditConfig

    spec = config.audit or AuditConfig()
    release = result.release
    report = audit_report(config, base, result)
    result.summary["audit"] = report
    # the summary counts the records at risk against the audit's threshold: one figure, one threshold
    result.summary["risk_threshold"] = report["thresholds"]["highest_risk"]
    if isinstance(result.summary.get("metrics"), dict):
        result.summary["metrics"]["records_at_risk"] = report["risk"]["prosecutor"]["records_at_risk"]
    failed = [v for v in report["verdicts"] if not v["holds"]]
    advice = None
    if failed and frame is not None and schema is not None:
        advice = advise(config, report, schema, frame, rerun_for(frame, schema, base, result.summary.get("seed", 0)))
    result.summary["verdict"] = {
        "ok": report["ok"],
        "checks": len(report["verdicts"]),
        "failing": [{k: v.get(k) for k in ("check", "value", "threshold")} for v in failed],
        "thresholds": report["thresholds"],
        "highest_risk_from": report.get("highest_risk_from"),
        "advice": advice,
    }
    if spec.required and not report["ok"]:
        names = [v["check"] for v in failed]
        result.summary["satisfied"] = False
        hint = (f"set {advice['key']}: {advice['value']} ({advice['gives']})" if advice and advice["holds"]
                else "relax audit.thresholds or strengthen the models")
        raise UnsatisfiableError(f"the audit fails {len(names)} check(s): {', '.join(names)}; {hint}",
                                 summary=result.summary, release=release)


def sha256_of(location: str) -> str | None:
    """The SHA-256 of a file (hex), ``None`` for what is not a plain file (a SQL table, stdin)."""
    path = Path(location)
    if "://" in location or not path.is_file():
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def run_facts(config: Config, base: Path, input_path: str | None, config_file: str | Path | None,
              outputs: list[tuple[str, str | None]], result: Result, started: str) -> dict[str, object]:
    """What was done, for the audit trail and the report: the config, the input and every output
    with their SHA-256 (``None`` for SQL tables), row counts, versions and the start time (UTC)."""
    import platform

    from anonkit import __version__

    location, _fmt, table = input_location(config, base, input_path)
    tables = result.release.tables
    frames = [result.frame] if not tables else list(tables.values())
    out = []
    for (loc, sql_table), frame_out in zip(outputs, frames if outputs else [], strict=True):
        out.append({"path": loc if sql_table is None else f"{_without_password(loc)}#{sql_table}",
                    "sha256": None if sql_table is not None else sha256_of(loc), "rows": len(frame_out)})
    return {
        "config": None if config_file is None else str(Path(config_file).resolve()),
        "config_sha256": None if config_file is None else sha256_of(str(config_file)),
        "base": str(base.resolve()),
        "input": _without_password(location) if table is None else f"{_without_password(location)}#{table}",
        "input_sha256": None if table is not None else sha256_of(location),
        "outputs": out,
        "versions": {"anonkit": __version__, "python": platform.python_version(), "numpy": np.__version__,
                     "pandas": pd.__version__},
        "started": started,
    }


__all__ = ["InputError", "PriorsInput", "Result", "anonymize", "load_input", "planned_outputs", "run_config"]
