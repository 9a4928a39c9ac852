"""The main job: load → encode → anonymize → verify → measure → write.

:func:`anonymize` is the Python entry point on a pandas frame; :func:`run_config` runs a validated
:class:`~anonkit.config.Config` the way ``anonkit anonymize`` does and returns the release and a
summary dict (what ``--json`` prints).

Background knowledge (spec §1.7, §3, §4.1–4.3): a :class:`~anonkit.models.BackgroundKnowledge`
model is enforced only by the algorithms of :data:`~anonkit.algorithms.registry.BK_ALGORITHMS`.
The adversary's priors are computed once (or taken from the caller), handed to the algorithm as
``priors=`` and to the verifier, which judges the model from the released classes, the link from
released rows to input records (:meth:`~anonkit.release.Release.published_rows`) and the priors.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from anonkit import metrics as _m
from anonkit.algorithms import LATTICE_ALGORITHMS, get_algorithm
from anonkit.algorithms.registry import BK_ALGORITHMS
from anonkit.algorithms.transform import check_models
from anonkit.config import BackgroundKnowledgeConfig, BuilderConfig, Config, MetricConfig, PriorConfig
from anonkit.datasets import DATASETS
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy, builders, read_hierarchy
from anonkit.io import read_table, write_table
from anonkit.metrics import compute_metrics
from anonkit.models import BackgroundKnowledge, Criterion
from anonkit.release import Release
from anonkit.schema import Attribute, Schema
from anonkit.table import MissingPolicy, Table
from anonkit.verify import Verification, verify

if TYPE_CHECKING:
    from anonkit.knowledge import Priors


@dataclass
class Result:
    """What a run produced: the release, the published frame, the verdict and the summary."""

    release: Release
    frame: pd.DataFrame
    verification: Verification
    summary: dict = field(default_factory=dict)


#: What ``priors=`` accepts: :class:`~anonkit.knowledge.Priors`, an ``(n × S)`` (per record) or
#: ``(m × S)`` (per distinct QI tuple) array, a frame indexed by QI tuples (``matrix_priors``), or a
#: function of the encoded :class:`~anonkit.table.Table` returning one of those.
PriorsInput: TypeAlias = "Priors | ArrayLike | pd.DataFrame | Callable[[Table], Priors | ArrayLike | pd.DataFrame]"


def anonymize(
    frame: pd.DataFrame,
    schema: Schema,
    models: Iterable[Criterion],
    *,
    algorithm: str = "flash",
    seed: int = 0,
    suppressed: str = "drop",
    missing: MissingPolicy = "value",
    metric: MetricConfig | _m.SearchMetric | None = None,
    priors: PriorsInput | None = None,
    **params: object,
) -> Result:
    """Anonymize ``frame`` with ``algorithm`` so that every model in ``models`` holds.

    ``metric`` is the quality model a lattice search optimizes (default: ARX's Loss, gs 0.5,
    geometric mean) and the one reported as ``score``. Other keyword arguments go to the algorithm
    (``max_suppression``, ``levels`` for ``fixed``, ``heuristic_threshold`` for ``flash``, …).

    A :class:`~anonkit.models.BackgroundKnowledge` model (spec §1.7) needs one of the
    background-knowledge algorithms ``uhra``, ``bka-js`` or ``k-primacy`` (§4.1–4.3); its
    ``test="auto"`` becomes that algorithm's guarantee (:meth:`~BackgroundKnowledge.resolved`).
    ``priors`` are the adversary's beliefs over the records of ``frame`` (see :data:`PriorsInput`;
    an ``(n × S)`` array may give individuals with equal QIs different beliefs, §3.3); without it
    they are estimated once by the first background-knowledge model (``model.priors``, §3.2). The
    same priors go to the algorithm (``priors=``) and to the verifier. With several
    background-knowledge models all must be about the same sensitive attribute.

    The published frame is verified independently (:func:`anonkit.verify.verify`) against the input's
    sensitive distributions; a release that fails verification raises ``AssertionError`` — it would
    be a bug, never a user error.
    """
    start = time.perf_counter()
    models = list(models)
    table = Table(frame, schema, missing=missing)
    models, bk = _background_knowledge(models, algorithm)
    check_models(table, models)
    if isinstance(metric, MetricConfig):
        search_metric = metric.search_metric()
    else:
        search_metric = metric if metric is not None else _m.SearchMetric()
    algo = get_algorithm(algorithm)
    if algorithm in LATTICE_ALGORITHMS:
        params.setdefault("metric", search_metric)
    bk_priors: Priors | None = None
    if bk:
        bk_priors = _priors_for(table, bk[0], priors)
        params["priors"] = bk_priors
    elif priors is not None:
        if algorithm not in BK_ALGORITHMS:
            raise InputError(
                f"priors= applies to the background-knowledge algorithms ({', '.join(sorted(BK_ALGORITHMS))}) only, "
                f"not {algorithm}",
                key="priors",
            )
        params["priors"] = priors(table) if _is_factory(priors) else priors  # type: ignore[operator]
    release = algo(table, models, **params)
    seconds = time.perf_counter() - start
    release.seconds = seconds
    published = release.to_frame(suppressed=suppressed, seed=seed)  # type: ignore[arg-type]
    reference = {s: table.frame[s] for s in table.sensitive}
    link: dict[str, object] = {}
    if bk:
        link = {
            "source": table.frame,  # row i = record i of the table (identifiers dropped, index reset)
            "rows": release.published_rows(suppressed=suppressed, seed=seed),  # type: ignore[arg-type]
            "priors": bk_priors,
        }
    verification = verify(published, table.schema, models, reference=reference, **link)  # type: ignore[arg-type]
    if not verification.ok:
        raise AssertionError("the release failed independent verification:\n" + verification.summary())
    metrics = compute_metrics(table, release, gs=search_metric.gs, aggregate=search_metric.aggregate)
    summary = {
        "algorithm": release.algorithm,
        "satisfied": release.satisfied,
        "verified": verification.ok,
        "message": release.message,
        "records": table.n,
        "released": release.n_released,
        "suppressed": release.n_suppressed,
        "classes": release.n_classes,
        "min_class_size": int(release.class_sizes().min()) if release.n_classes else 0,
        "transformation": release.transformation,
        "score": release.extra.get("score") if "score" in release.extra else _plain(
            _m.score(table, release, search_metric)
        ),
        "metric": dataclasses.asdict(search_metric),
        "metrics": metrics,
        "models": [m.describe() for m in models],
        "seconds": round(seconds, 6),
    }
    if "lattice" in release.extra:
        summary["lattice"] = release.extra["lattice"]
    if "fallback" in release.extra:
        summary["fallback"] = release.extra["fallback"]
    if bk:
        m = bk[0]
        summary["background_knowledge"] = {
            "attribute": m.attribute,
            "J": m.J,
            "test": m.test,
            "prior": m.prior if priors is None else "given",
            "clusters": release.extra.get("bk_clusters"),  # an int (uhra, k-primacy) or absent
        }
    return Result(release, published, verification, summary)


# ---------------------------------------------------------------------- background knowledge
def _background_knowledge(
    models: list[Criterion], algorithm: str
) -> tuple[list[Criterion], list[BackgroundKnowledge]]:
    """``models`` with every background-knowledge model resolved for ``algorithm`` (§1.7), and
    those models; an :class:`InputError` if ``algorithm`` cannot enforce them."""
    if not any(getattr(m, "record_level", False) for m in models):
        return models, []
    if algorithm not in BK_ALGORITHMS:
        raise InputError(
            f"the background-knowledge model is enforced only by the algorithms uhra, bka-js and k-primacy, "
            f"not {algorithm}; to measure what a background-knowledge adversary learns from another release, "
            "run anonkit.analytics.background_knowledge_attack on it",
            key="algorithm.name",
        )
    out: list[Criterion] = []
    for m in models:
        if getattr(m, "record_level", False):
            if not isinstance(m, BackgroundKnowledge):
                raise InputError(f"{m.describe()}: unknown record-level model", key="privacy")
            m = m.resolved(algorithm)
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


def _priors_for(table: Table, model: BackgroundKnowledge, priors: PriorsInput | None) -> Priors:
    """The priors of ``model`` over ``table``'s records: given (in any :data:`PriorsInput` form) or
    estimated by the model (its ``prior`` kind, spec §3)."""
    if _is_factory(priors):
        priors = priors(table)  # type: ignore[operator]
    if priors is None:
        return model.priors(table)
    from anonkit.knowledge.sources import as_priors

    return as_priors(table, model.attribute, priors)  # type: ignore[arg-type]


def _output_targets(
    target: str, table: str | None, tables: dict[str, pd.DataFrame] | None
) -> list[tuple[str, str | None]]:
    """Where each published table goes: the target itself, or for several tables (Anatomy's
    quasi-identifier and sensitive tables) ``name-qit.csv``/``name-st.csv`` beside it, or the SQL
    tables ``table_qit``/``table_st``."""
    if not tables:
        return [(target, table)]
    out = []
    for key in tables:
        if table is not None:
            out.append((target, f"{table}_{key}"))
        elif "://" in target:
            out.append((target, key))
        else:
            p = Path(target)
            out.append((str(p.with_name(f"{p.stem}-{key}{p.suffix}")), None))
    return out


def _plain(value: float | tuple[float, ...]) -> float | list[float]:
    return list(value) if isinstance(value, tuple) else float(value)


def _resolve(base: Path, path: str) -> Path:
    p = Path(path).expanduser()
    return p if p.is_absolute() else base / p


def _location(base: Path, path: str) -> str:
    """A file path relative to the config, or a database URI as it is."""
    return path if "://" in path else str(_resolve(base, path))


def _build_hierarchy(name: str, spec: BuilderConfig, values: pd.Series) -> Hierarchy:
    """A hierarchy from a builder spec of the config, over the column's values."""
    params = spec.params()
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


def _schema(config: Config, base: Path, default_hierarchies: dict[str, Hierarchy], frame: pd.DataFrame) -> Schema:
    schema = Schema()
    for name, a in config.attributes.items():
        h = None
        if isinstance(a.hierarchy, BuilderConfig):
            if name not in frame.columns:
                raise InputError(f"unknown column; the input has: {', '.join(map(str, frame.columns))}", column=name)
            h = _build_hierarchy(name, a.hierarchy, frame[name])
        elif a.hierarchy is not None:
            h = read_hierarchy(_resolve(base, a.hierarchy), name=name)
        elif name in default_hierarchies and a.role not in ("identifier", "id", "insensitive", "other"):
            h = default_hierarchies[name]
        schema.add(
            Attribute(
                name, a.role, a.type, h, order=a.order, min_level=a.min_level, max_level=a.max_level, weight=a.weight
            )
        )
    return schema


def load_input(config: Config, base: Path, override: str | None = None) -> tuple[pd.DataFrame, dict[str, Hierarchy]]:
    """The input frame of a config (or of ``override``) and the dataset's default hierarchies."""
    inp = config.input
    if override is not None:
        return read_table(override, separator=inp.separator, encoding=inp.encoding, na_values=inp.na_values), {}
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
    )
    return frame, {}


# ---------------------------------------------------------------------- priors from a config (§3)
def _config_priors(config: Config, base: Path) -> tuple[Callable[[Table], Priors] | None, str | None]:
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


def run_config(
    config: Config,
    *,
    config_dir: str | Path = ".",
    input_path: str | None = None,
    output_path: str | None = None,
    seed: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> Result:
    """Run a config end to end; writes the output only when the models hold."""
    say = progress or (lambda _msg: None)
    base = Path(config_dir)
    t0 = time.perf_counter()
    say("reading input")
    frame, defaults = load_input(config, base, input_path)
    schema = _schema(config, base, defaults, frame)
    say("anonymizing")
    algo = config.algorithm
    params: dict[str, object] = {"max_suppression": algo.max_suppression}
    if algo.name == "datafly" and "max_suppression" not in algo.model_fields_set:
        params["max_suppression"] = None  # Sweeney's allowance: k records (spec §5.1)
    if algo.name == "fixed":
        params["levels"] = algo.levels
    if algo.name == "flash":
        params.update(heuristic_threshold=algo.heuristic_threshold, time_limit=algo.time_limit,
                      step_limit=algo.step_limit)
    if algo.name == "lightning":
        params.update(time_limit=algo.time_limit, step_limit=algo.step_limit)
    params.update(algo.options())
    priors, prior_note = _config_priors(config, base)
    result = anonymize(
        frame,
        schema,
        config.models(),
        algorithm=algo.name,
        seed=config.seed if seed is None else seed,
        suppressed=config.output.suppressed,
        missing=config.input.missing,
        metric=algo.metric,
        priors=priors,
        **params,
    )
    if "background_knowledge" in result.summary and prior_note is not None:
        result.summary["background_knowledge"]["prior"] = prior_note
    out = config.output
    target = output_path if output_path is not None else (None if out.path is None else _location(base, out.path))
    result.summary["output"] = None
    if target is not None and result.release.satisfied:
        say("writing output")
        tables = result.release.extra.get("tables")
        outputs = _output_targets(target, out.table, tables)
        for (location, sql_table), frame_out in zip(outputs, [result.frame] if not tables else tables.values(),
                                                    strict=True):
            write_table(
                frame_out,
                location,
                format=out.format,
                separator=out.separator,
                encoding=out.encoding,
                table=sql_table,
                neutralise=out.neutralise,
            )
        written = [loc if tab is None else f"{loc}#{tab}" for loc, tab in outputs]
        result.summary["output"] = written[0] if len(written) == 1 else written
    result.summary["total_seconds"] = round(time.perf_counter() - t0, 6)
    return result


__all__ = ["InputError", "PriorsInput", "Result", "anonymize", "load_input", "run_config"]
