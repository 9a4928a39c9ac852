"""Running an exploration: the input read and encoded once, every run of the grid, its verdicts.

The input is read, stripped, given its schema (hierarchies built or read) and encoded into one
:class:`~anonkit.table.Table` — codes, distinct tuples and sensitive histograms — before the first
run; every run gets that table through an engine that hands it out instead of encoding again
(:class:`_Encoded`), and the adversary's priors of a background-knowledge model are estimated once.
Each run is otherwise exactly :func:`anonkit.anonymize`: the same checks, algorithm, independent
verification and summary measures.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pydantic import ValidationError

from anonkit import interrupt
from anonkit._values import strip_cells
from anonkit.config import AuditThresholds, Config, load_config
from anonkit.engines.local import LocalEngine
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.explore.front import meets, pareto_front
from anonkit.explore.grid import Number, Planned, check_vary, plan, precheck
from anonkit.explore.measures import (
    DEFAULT_LOSS,
    DEFAULT_RISK,
    RISKS,
    RiskContext,
    check_loss,
    check_risk,
    risk_limit,
)
from anonkit.io import Place
from anonkit.models import BackgroundKnowledge
from anonkit.plan import Plan
from anonkit.plan.load import config_priors, config_schema, load_input
from anonkit.plan.places import read_places
from anonkit.release import check_seed
from anonkit.runner.anonymize import anonymize
from anonkit.runner.knowledge import priors_for
from anonkit.schema import Schema
from anonkit.table import Table

__all__ = ["COLUMNS", "ExploreResult", "Progress", "explore", "resolve_thresholds"]

#: ``progress(done, total, what)`` (what the CLI's ``_with_steps`` passes), or a ``rich.progress.Progress``
Progress = Callable[[int, int, str], None] | Any

#: the columns of every run after the varied parameters, in order
COLUMNS = ("label", "satisfied", "verified", "meets", "pareto", "loss", "risk", "suppressed", "classes", "seconds",
           "message")


@dataclass
class ExploreResult:
    """An exploration's runs (one row each) and what they were judged by.

    ``frame`` has ``algorithm``, one column per varied key, then :data:`COLUMNS`: ``label`` (the
    varied values, ``k=5 t=0.2``), ``satisfied`` (the models hold; a run that cannot meet them is a
    row with ``False`` and its reason in ``message``, one that stopped with an error after the checks
    before the first run too, its ``message`` starting ``error:``), ``verified`` (the independent verifier
    agrees), ``meets`` (satisfied and ``risk`` within its threshold), ``pareto`` (on the Pareto front
    of ``(loss, risk)`` among the satisfied runs), ``loss`` and ``risk`` (the chosen measures;
    missing for a run that is not satisfied), ``suppressed`` and ``classes`` (of the release, or
    of the unpublished one), ``seconds`` (the run, encoding excluded when it is reused).
    """

    frame: pd.DataFrame
    risk: str
    loss: str
    thresholds: dict[str, float]
    vary: dict[str, list[Number]]
    algorithms: list[str]
    seed: int
    config_file: str | None = None
    #: every place the runs read (config, input, hierarchies, …, :func:`anonkit.plan.places.read_places`):
    #: the writer never writes over one
    reads: list[Place] = field(default_factory=list)
    #: ``encode`` (read, schema, encoding, priors: once), ``runs`` (all runs), ``total`` seconds; ``reuse``
    timings: dict[str, float | bool] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def limit(self) -> float | None:
        """The largest risk that meets the thresholds."""
        return risk_limit(self.risk, self.thresholds)

    def runs(self, *, timings: bool = True) -> list[dict[str, object]]:
        """The rows as plain dicts (missing values ``None``; ``seconds`` left out unless ``timings``)."""
        frame = self.frame if timings else self.frame.drop(columns=["seconds"])
        return [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]

    def to_json(self, *, timings: bool = True) -> dict[str, object]:
        """``{"kind": "explore", "config", "risk", "loss", "thresholds", "limit", "vary", "algorithms",
        "seed", "runs", "notes"}`` (and ``"timings"`` unless ``timings=False``, for byte-identical files)."""
        doc: dict[str, object] = {
            "kind": "explore",
            "config": self.config_file,
            "risk": self.risk,
            "loss": self.loss,
            "thresholds": dict(self.thresholds),
            "limit": self.limit,
            "vary": {k: list(v) for k, v in self.vary.items()},
            "algorithms": list(self.algorithms),
            "seed": self.seed,
            "runs": self.runs(timings=timings),
            "notes": list(self.notes),
        }
        if timings:
            doc["timings"] = dict(self.timings)
        return doc

    def figure(self):  # type: ignore[no-untyped-def]
        """The R-U map of the runs (:func:`anonkit.report.ru_map.ru_map`)."""
        from anonkit.report.ru_map import ru_map

        return ru_map(self.frame, risk=self.risk, loss=self.loss, thresholds=self.thresholds)


def _plain(v: object) -> object:
    if isinstance(v, np.generic):
        v = v.item()
    if v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return None
    return v


def resolve_thresholds(config: Config, given: Mapping[str, float] | AuditThresholds | None = None) -> dict[str, float]:
    """The thresholds runs are held to: ``given`` over the config's ``audit.thresholds`` over the
    defaults; an InputError naming ``thresholds.KEY`` for an unknown key or a bad value."""
    audit = getattr(config, "audit", None)
    base = audit.thresholds if audit is not None else AuditThresholds()
    if given is None:
        return base.model_dump()
    data = given.model_dump() if isinstance(given, AuditThresholds) else dict(given)
    try:
        return AuditThresholds.model_validate({**base.model_dump(), **data}).model_dump()
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        msg = "unknown threshold" if err["type"] == "extra_forbidden" else err["msg"]
        raise InputError(f"{msg}; thresholds: {', '.join(AuditThresholds.model_fields)}", key=f"thresholds.{where}",
                         value=err.get("input")) from None


class _Encoded:
    """The local engine, except that ``encode`` hands out the table encoded once for the input it
    was made from (another frame or schema is encoded as usual)."""

    name = "local"

    def __init__(self, table: Table, frame: pd.DataFrame, schema: Schema) -> None:
        self._table, self._frame, self._schema = table, frame, schema
        self._local = LocalEngine()

    def encode(self, data: pd.DataFrame, schema: Schema, *, missing: str = "value", strip: bool = True,
               person_qi: str = "error") -> Table:
        if data is self._frame and schema is self._schema:
            return self._table
        return self._local.encode(data, schema, missing=missing, strip=strip, person_qi=person_qi)  # type: ignore[arg-type]

    def publish(self, release: Any, *, suppressed: str = "drop", seed: int = 0) -> pd.DataFrame:
        return self._local.publish(release, suppressed=suppressed, seed=seed)

    def verify(self, published: pd.DataFrame, schema: Schema, models: list, **link: Any) -> Any:
        return self._local.verify(published, schema, models, **link)


def _ticker(progress: Progress | None, total: int) -> Callable[[int, str], None]:
    """``tick(done, what)`` moving ``progress``: a ``(done, total, what)`` callback or a rich Progress."""
    if progress is None:
        return lambda done, what: None
    if hasattr(progress, "add_task") and hasattr(progress, "update"):
        task = progress.add_task("exploring", total=total)
        return lambda done, what: progress.update(task, completed=done, description=what)
    return lambda done, what: progress(done, total, what)


def explore(
    config: Plan | Config | str | Path,
    *,
    vary: Mapping[str, Sequence[Number]],
    algorithms: Sequence[str] | None = None,
    config_dir: str | Path | None = None,
    risk: str = DEFAULT_RISK,
    loss: str = DEFAULT_LOSS,
    thresholds: Mapping[str, float] | AuditThresholds | None = None,
    seed: int | None = None,
    progress: Progress | None = None,
    config_file: str | Path | None = None,
    input_path: str | None = None,
    reuse: bool = True,
) -> ExploreResult:
    """Run the config once per combination of the ``vary`` values and ``algorithms`` and judge each run.

    ``config`` is a read-only :class:`~anonkit.plan.Plan` (``plan_from_config(…, writes=False)``: its
    folder, config file, ``--input`` and seed are the runs'), a :class:`~anonkit.config.Config` (paths
    relative to ``config_dir``, default the working directory) or a config file (then ``config_dir``
    defaults to its folder). ``vary`` maps
    keys to values (:func:`~anonkit.explore.grid.parse_vary` reads ``--vary``); ``algorithms``
    default to the config's. ``risk`` and ``loss`` are the measures judged
    (:mod:`anonkit.explore.measures` lists them); ``thresholds`` override the config's
    ``audit.thresholds``. ``seed`` (default the config's) is every run's. ``progress`` is a
    ``(done, total, what)`` callback or a ``rich.progress.Progress`` (a task is added); Ctrl-C stops
    between runs (and inside them). ``reuse=False`` encodes the input again for every run (to
    measure what the reuse saves; the rows are the same).

    Every combination is checked before the first run (unknown keys or algorithms, bad values, an
    algorithm that cannot run the config's models): an :class:`InputError` naming it. A run whose
    models cannot be met is a row with ``satisfied`` false.
    """
    t0 = time.perf_counter()
    config, base, config_file, input_path, seed = _source(config, config_dir, config_file, input_path, seed)
    risk_measure = check_risk(risk)
    check_loss(loss)
    metric = config.algorithm.metric
    if loss == "loss" and metric.aggregate == "rank":
        raise InputError("with algorithm.metric.aggregate rank the loss is a vector; choose another --loss or "
                         "aggregate", key="loss", value=loss)
    limits = resolve_thresholds(config, thresholds)
    audit = getattr(config, "audit", None)
    context = RiskContext(limits, None if audit is None else audit.population)
    if risk_measure.needs_population and context.population is None:
        raise InputError(f"the risk {risk} needs the population the input was sampled from: give audit.population "
                         "in the config", key="audit.population")
    run_seed = check_seed(config.seed if seed is None else seed)
    vary = check_vary(vary, config, algorithms)
    runs, notes = plan(config, vary, algorithms)
    if risk.startswith(("journalist", "marketer")) and audit is not None and audit.population_table is not None:
        notes.append(f"{risk} counts the release as its own population: audit.population_table is not matched")
    keys = list(vary)
    tick = _ticker(progress, len(runs))
    tick(0, "reading and encoding the input")

    frame, defaults = load_input(config, base, input_path)
    if config.input.strip:
        frame = frame.apply(strip_cells) if len(frame.columns) else frame
    interrupt.check()
    schema = config_schema(config, base, defaults, frame)
    inp = config.input
    table = Table(frame, schema, missing=inp.missing, strip=inp.strip, person_qi=inp.person_qi)
    table.distinct  # noqa: B018  (the distinct tuples, computed once for every run)
    for r in runs:
        precheck(table, r)
    priors, _ = config_priors(config, base)
    if reuse:
        bk = next((m for r in runs for m in r.models if isinstance(m, BackgroundKnowledge)), None)
        if bk is not None:
            priors = priors_for(table, bk, priors)  # estimated once (they do not depend on J)
    engine = _Encoded(table, frame, schema) if reuse else LocalEngine()
    encode_seconds = time.perf_counter() - t0

    rows = []
    for i, r in enumerate(runs):
        interrupt.check()
        tick(i, r.what)
        rows.append(_run(r, frame, schema, config, engine, priors, run_seed, loss, risk_measure.name, context))
    tick(len(runs), "done")
    errors = sum(str(row["message"]).startswith("error: ") for row in rows)
    if errors:
        notes.append(f"{errors} run{'s' if errors != 1 else ''} stopped with an error (see its message)")
    total = time.perf_counter() - t0
    out = _frame(rows, keys, loss, risk, limits)
    reads = read_places(config, base, input_path=input_path, config_file=config_file)
    return ExploreResult(
        frame=out, risk=risk, loss=loss, thresholds=limits, vary=vary,
        algorithms=list(dict.fromkeys(r.algorithm.name for r in runs)), seed=run_seed,
        config_file=None if config_file is None else str(config_file), reads=reads,
        timings={"encode": round(encode_seconds, 6), "runs": round(total - encode_seconds, 6),
                 "total": round(total, 6), "reuse": reuse},
        notes=notes,
    )


def _source(config: Plan | Config | str | Path, config_dir: str | Path | None, config_file: str | Path | None,
            input_path: str | None, seed: int | None) -> tuple[Config, Path, str | Path | None, str | None, int | None]:
    """The config explore runs, its folder, config file, input and seed: a read-only plan's own, or
    those given beside a config (a config file's folder by default)."""
    if isinstance(config, Plan):
        assert config.config is not None, "explore reads a config's plan"
        return (config.config, config.base, config.config_file, config.input_path,
                config.seed if seed is None else seed)
    if not isinstance(config, Config):
        config_file = config if config_file is None else config_file
        config_dir = Path(config).parent if config_dir is None else config_dir
        config = load_config(config)
    return config, Path("." if config_dir is None else config_dir), config_file, input_path, seed


def _run(r: Planned, frame: pd.DataFrame, schema: Schema, config: Config, engine: Any, priors: Any, seed: int,
         loss: str, risk: str, context: RiskContext) -> dict[str, object]:
    """One run as a row: :func:`anonkit.anonymize` with the planned models and options."""
    start = time.perf_counter()
    inp = config.input
    row: dict[str, object] = {"algorithm": r.algorithm.name, **r.params, "label": r.label}
    try:
        result = anonymize(
            frame, schema, r.models, algorithm=r.algorithm.name, seed=seed, suppressed=config.output.suppressed,
            missing=inp.missing, strip=inp.strip, person_qi=inp.person_qi, metric=config.algorithm.metric,
            priors=priors, engine=engine, **r.options,
        )
    except UnsatisfiableError as exc:
        release = exc.release
        row.update(satisfied=False, verified=False, loss=math.nan, risk=math.nan,
                   suppressed=exc.summary.get("would_suppress") if release is not None else None,
                   classes=getattr(release, "n_classes", None), message=str(exc))
    except InputError as exc:  # every grid-wide input error was raised before the first run (precheck)
        row.update(satisfied=False, verified=False, loss=math.nan, risk=math.nan, suppressed=None, classes=None,
                   message=f"error: {exc}")
    else:
        release = result.release
        row.update(
            satisfied=True, verified=bool(result.verification.ok), loss=float(result.summary["metrics"][loss]),
            risk=float(RISKS[risk].compute(release.table, release, context)),
            suppressed=release.n_suppressed, classes=release.n_classes, message="",
        )
    row["seconds"] = round(time.perf_counter() - start, 6)
    return row


def _frame(rows: list[dict[str, object]], keys: list[str], loss: str, risk: str,
           thresholds: Mapping[str, float]) -> pd.DataFrame:
    """The rows as a frame, with ``meets`` and ``pareto`` and the columns in order."""
    columns = ["algorithm", *keys, *COLUMNS]
    df = pd.DataFrame(rows, columns=[c for c in columns if c not in ("meets", "pareto")])
    for c in ("satisfied", "verified"):
        df[c] = df[c].astype(bool)
    for c in ("loss", "risk", "seconds"):
        df[c] = df[c].astype(np.float64)
    for c in ("suppressed", "classes"):
        df[c] = df[c].astype("Int64")
    df["meets"] = meets(df["satisfied"], df["risk"], risk_limit(risk, thresholds))
    df["pareto"] = pareto_front(df["loss"], df["risk"], df["satisfied"])
    return df[columns]
