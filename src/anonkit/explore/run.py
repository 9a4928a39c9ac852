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
from anonkit.audit.inputs import NEAREST_FAMILIES, AuditInputs, read_extra, release_reading
from anonkit.audit.run import audit as run_audit
from anonkit.config import AuditConfig, AuditThresholds, Config, load_config
from anonkit.engines.local import LocalEngine
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.explore.front import meets, pareto_front
from anonkit.explore.grid import Number, Planned, check_vary, plan, precheck
from anonkit.explore.marginals import marginal_tvd
from anonkit.explore.measures import (
    ALL_RISKS,
    ATTACK_RISKS,
    ATTACKS,
    COMMON_LOSS,
    COMMON_LOSSES,
    COMMON_RISK,
    DEFAULT_LOSS,
    DEFAULT_RISK,
    RiskContext,
    RiskMeasure,
    check_common,
    check_loss,
    check_risk,
    risk_limit,
)
from anonkit.explore.series import Series, as_series, check_series, series_vary
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

    ``frame`` has ``series`` (the config a run belongs to: :mod:`anonkit.explore.series`),
    ``algorithm``, one column per varied key (empty where a series does not vary it), then
    :data:`COLUMNS`: ``label`` (the varied values, ``k=5 t=0.2``), ``satisfied`` (the models hold;
    a run that cannot meet them is a row with ``False`` and its reason in ``message``, one that
    stopped with an error after the checks before the first run too, its ``message`` starting
    ``error:``), ``verified`` (the independent verifier agrees), ``meets`` (satisfied and ``risk``
    within its threshold), ``pareto`` (on the Pareto front of ``(loss, risk)`` among the satisfied
    runs of every series), ``loss`` and ``risk`` (the chosen measures; missing for a run that is not
    satisfied), ``suppressed`` and ``classes`` (of the release, or of the unpublished one),
    ``seconds`` (the run, encoding excluded when it is reused).
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
    #: the map's series, in order: ``{"name", "config", "algorithm", "vary"}`` each (its own grid)
    series: list[dict[str, Any]] = field(default_factory=list)

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
        "series", "seed", "runs", "notes"}`` (and ``"timings"`` unless ``timings=False``, for byte-identical files)."""
        doc: dict[str, object] = {
            "kind": "explore",
            "config": self.config_file,
            "risk": self.risk,
            "loss": self.loss,
            "thresholds": dict(self.thresholds),
            "limit": self.limit,
            "vary": {k: list(v) for k, v in self.vary.items()},
            "algorithms": list(self.algorithms),
            "series": [dict(x) for x in self.series],
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
    also: Sequence[Series | Plan | str | Path] = (),
    name: str | None = None,
    config_dir: str | Path | None = None,
    risk: str | None = None,
    loss: str | None = None,
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
    default to the config's. ``also`` adds more configs, each a series of the same map
    (:mod:`anonkit.explore.series`: the same input and roles; ``vary`` keys apply to every series
    that has them, ``NAME:KEY`` to one); ``algorithms`` is then refused. ``name`` names the config's
    series (default: its file's stem). ``risk`` and ``loss`` are the
    measures judged (:mod:`anonkit.explore.measures` lists them; by default the class measures for
    one config whose release has classes, else the figures every release has: ``attack_risk`` and
    ``two_way_tvd``); ``thresholds`` override the config's
    ``audit.thresholds``. ``seed`` (default the config's) is every run's. ``progress`` is a
    ``(done, total, what)`` callback or a ``rich.progress.Progress`` (a task is added); Ctrl-C stops
    between runs (and inside them). ``reuse=False`` encodes the input again for every run (to
    measure what the reuse saves; the rows are the same).

    Every combination of every series is checked before the first run (unknown keys or algorithms,
    bad values, an algorithm that cannot run the config's models or is not installed): an
    :class:`InputError` naming it. A run whose models cannot be met is a row with ``satisfied`` false.
    """
    t0 = time.perf_counter()
    config, base, config_file, input_path, seed = _source(config, config_dir, config_file, input_path, seed)
    series = _all_series(config, base, config_file, input_path, also, algorithms, name)
    main = series[0]
    risk, loss = _measures(series, risk, loss)
    risk_measure = check_risk(risk)
    limits = resolve_thresholds(config, thresholds)
    audit = getattr(config, "audit", None)
    context = RiskContext(limits, None if audit is None else audit.population)
    _check_measures(config, risk_measure, loss, context)
    run_seed = check_seed(config.seed if seed is None else seed)
    grids = series_vary(vary, series) if also else {main.name: check_vary(vary, config, algorithms)}
    planned, notes = _planned(series, grids, algorithms, named=bool(also))
    notes += _seed_notes(series, run_seed)
    if risk.startswith(("journalist", "marketer")) and audit is not None and audit.population_table is not None:
        notes.append(f"{risk} counts the release as its own population: audit.population_table is not matched")
    keys = list(dict.fromkeys(k for g in grids.values() for k in g))
    tick = _ticker(progress, len(planned))
    tick(0, "reading and encoding the input")

    frames: dict[str, Any] = {}
    inputs = {s.name: _encoded(s, reuse, frames, [r for t, r in planned if t is s]) for s in series}
    control = read_extra(audit.control, config, base, "audit.control") if audit is not None else None
    for s, r in planned:
        _named(bool(also), s, lambda s=s, r=r: precheck(inputs[s.name].table, r))
    encode_seconds = time.perf_counter() - t0

    judge = _Judge(loss, risk_measure.name, context, audit, limits)
    rows = []
    for i, (s, r) in enumerate(planned):
        interrupt.check()
        tick(i, f"{s.name}: {r.what}" if also else r.what)
        rows.append({"series": s.name, **_run(r, inputs[s.name], s.config, run_seed, judge, control)})
    tick(len(planned), "done")
    notes += judge.notes
    errors = sum(str(row["message"]).startswith("error: ") for row in rows)
    if errors:
        notes.append(f"{errors} run{'s' if errors != 1 else ''} stopped with an error (see its message)")
    total = time.perf_counter() - t0
    out = _frame(rows, keys, loss, risk, limits)
    reads = [p for s in series for p in read_places(s.config, s.base, input_path=s.input_path,
                                                     config_file=s.config_file)]
    return ExploreResult(
        frame=out, risk=risk, loss=loss, thresholds=limits, vary={k: list(v) for k, v in vary.items()},
        algorithms=list(dict.fromkeys(r.algorithm.name for _, r in planned)), seed=run_seed,
        config_file=None if config_file is None else str(config_file), reads=reads,
        timings={"encode": round(encode_seconds, 6), "runs": round(total - encode_seconds, 6),
                 "total": round(total, 6), "reuse": reuse},
        notes=notes,
        series=[{"name": s.name, "config": None if s.config_file is None else str(s.config_file),
                 "algorithm": s.config.algorithm.spec.name, "vary": grids[s.name]} for s in series],
    )


def _all_series(config: Config, base: Path, config_file: str | Path | None, input_path: str | None,
                also: Sequence[Series | Plan | str | Path], algorithms: Sequence[str] | None,
                name: str | None) -> list[Series]:
    """The map's series: the config (``name``, else named after its file), then ``also``, checked
    (:func:`~anonkit.explore.series.check_series`); ``algorithms`` refused beside ``also``."""
    name = name or (Path(config_file).stem if config_file is not None else "config")
    main = Series(name, config, base, config_file, input_path)
    series = [main, *(as_series(a, input_path=input_path) for a in also)]
    if also:
        check_series(series)
        if algorithms:
            raise InputError("--algorithms compares algorithms on one config; with --also every config is a series: "
                             "give each its algorithm", key="--algorithms")
    return series


def _seed_notes(series: Sequence[Series], seed: int) -> list[str]:
    """A note for every further series whose config has another seed: the map's runs take one seed."""
    return [f"{s.name}: its seed {s.config.seed} is not used; every run of the map takes the seed {seed}"
            for s in series[1:] if "seed" in s.config.model_fields_set and s.config.seed != seed]


def _named(named: bool, s: Series, check: Callable[[], Any]) -> Any:
    """``check()``; with several series its one-line refusal names the series."""
    try:
        return check()
    except InputError as exc:
        if not named:
            raise
        raise InputError(f"series {s.name}: {exc.message}", key=exc.key, column=exc.column, value=exc.value) from None


def _planned(series: Sequence[Series], grids: Mapping[str, Mapping[str, Sequence[Number]]],
             algorithms: Sequence[str] | None, *, named: bool) -> tuple[list[tuple[Series, Planned]], list[str]]:
    """Every run of every series' grid (:func:`~anonkit.explore.grid.plan`), checked without the data,
    and the notes (prefixed by the series' name when there are several)."""
    planned: list[tuple[Series, Planned]] = []
    notes: list[str] = []
    for i, s in enumerate(series):
        runs, run_notes = _named(named, s, lambda s=s, i=i: plan(s.config, grids[s.name],
                                                                  algorithms if i == 0 else None))
        planned += [(s, r) for r in runs]
        notes += [f"{s.name}: {n}" if named else n for n in run_notes]
    return planned, notes


def _check_measures(config: Config, risk: RiskMeasure, loss: str, context: RiskContext) -> None:
    """The loss defined for the config's metric; a population for a risk that needs one."""
    check_loss(loss)
    if loss == "loss" and config.algorithm.metric.aggregate == "rank":
        raise InputError("with algorithm.metric.aggregate rank the loss is a vector; choose another --loss or "
                         "aggregate", key="loss", value=loss)
    if risk.needs_population and context.population is None:
        raise InputError(f"the risk {risk.name} needs the population the input was sampled from: give "
                         "audit.population in the config", key="audit.population")


def _measures(series: Sequence[Series], risk: str | None, loss: str | None) -> tuple[str, str]:
    """The risk and loss of the map: as given, else the class measures for one config whose release
    has classes and the figures every release has otherwise; a class measure is refused for several
    series or a release without classes."""
    nearest = [s for s in series if s.config.algorithm.spec.family in NEAREST_FAMILIES]
    why = ("a map of several series" if len(series) > 1 else
           f"a {nearest[0].config.algorithm.spec.family} release ({nearest[0].config.algorithm.spec.name})"
           if nearest else None)
    if why is None:
        return risk or DEFAULT_RISK, loss or DEFAULT_LOSS
    risk, loss = risk or COMMON_RISK, loss or COMMON_LOSS
    check_risk(risk)
    check_loss(loss)
    check_common(risk, loss, why)
    return risk, loss


@dataclass
class _Input:
    """A series' input as its runs read it: the frame, the schema over it, the encoded table, the
    priors and the engine that hands the table out."""

    frame: pd.DataFrame
    schema: Schema
    table: Table
    priors: Any
    engine: Any


def _encoded(s: Series, reuse: bool, frames: dict[str, Any], runs: Sequence[Planned]) -> _Input:
    """Read (or take from ``frames``: the same input read once for every series), strip, give its
    schema and encode ``s``'s input; the priors of a background-knowledge model of ``runs`` estimated
    once (they do not depend on J)."""
    config, base = s.config, s.base
    frame = frames.get("input")
    if frame is None:
        frame, defaults = load_input(config, base, s.input_path)
        if config.input.strip:
            frame = frame.apply(strip_cells) if len(frame.columns) else frame
        frames["input"], frames["defaults"] = frame, defaults
    defaults = frames["defaults"]
    interrupt.check()
    schema = config_schema(config, base, defaults, frame)  # type: ignore[arg-type]
    inp = config.input
    table = Table(frame, schema, missing=inp.missing, strip=inp.strip, person_qi=inp.person_qi)
    table.distinct  # noqa: B018  (the distinct tuples, computed once for every run)
    priors, _ = config_priors(config, base)
    if reuse:
        bk = next((m for r in runs for m in r.models if isinstance(m, BackgroundKnowledge)), None)
        if bk is not None:
            priors = priors_for(table, bk, priors)
    return _Input(frame, schema, table, priors, _Encoded(table, frame, schema) if reuse else LocalEngine())


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


class _Judge:
    """How a run is measured: the loss and risk chosen, from the summary and the class measures, or
    from the audit's attacks and the marginals (:mod:`anonkit.explore.measures`); notes it adds."""

    def __init__(self, loss: str, risk: str, context: RiskContext, audit: AuditConfig | None,
                 thresholds: Mapping[str, float]) -> None:
        self.loss, self.risk, self.context = loss, ALL_RISKS[risk], context
        self.audit = audit or AuditConfig()
        self.thresholds = AuditThresholds.model_validate(dict(thresholds))
        self.notes: list[str] = []
        #: the last run's risk of each attack (``singling_out``, ``linkability``, ``inference``)
        self.attacks: dict[str, float] = {}

    def loss_of(self, result: Any, reading: dict[str, Any]) -> float:
        if self.loss not in COMMON_LOSSES:
            return float(result.summary["metrics"][self.loss])
        release = result.release
        if len(release.tables) >= 2:
            self._note(f"{self.loss}: not measured on linked tables")
            return math.nan
        table = release.table
        figures = marginal_tvd(table.frame, result.frame, result.schema or table.schema,
                               cells=not reading["nearest"])
        return figures.two_way if self.loss == "two_way_tvd" else figures.one_way

    def risk_of(self, result: Any, reading: dict[str, Any], control: pd.DataFrame | None) -> float:
        release = result.release
        if not self.risk.attacks:
            return float(self.risk.compute(release.table, release, self.context))
        table = release.table
        published = result.frame if len(release.tables) < 2 else dict(release.tables)
        inputs = AuditInputs(schema=result.schema or table.schema, original=table.frame, release=published,
                             control=control, **reading)
        report = run_audit(inputs, models=result.models, thresholds=self.thresholds, attacks=list(ATTACKS),
                           seed=self.audit.seed, targets=self.audit.targets)
        each: dict[str, float] = {}
        for a in report["attacks"]:
            name = a["name"].split(" (")[0]  # inference (NAME): one per sensitive attribute, the largest counts
            if a["risk"] is not None:
                each[name] = max(each.get(name, -math.inf), float(a["risk"]))
        self.attacks = {m.name: each.get(m.attacks[0], math.nan) for m in ATTACK_RISKS.values() if len(m.attacks) == 1}
        risks = [each[a] for a in self.risk.attacks if a in each]
        if not risks:
            self._note(f"{self.risk.name}: no attack applied to a release ({'; '.join(report['notes'][:1])})")
            return math.nan
        return max(risks)

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


def _run(r: Planned, inp: _Input, config: Config, seed: int, judge: _Judge,
         control: pd.DataFrame | None) -> dict[str, object]:
    """One run as a row: :func:`anonkit.anonymize` with the planned models and options."""
    start = time.perf_counter()
    cfg_in = config.input
    row: dict[str, object] = {"algorithm": r.algorithm.name, **r.params, "label": r.label}
    try:
        result = anonymize(
            inp.frame, inp.schema, r.models, algorithm=r.algorithm.name, seed=seed,
            suppressed=config.output.suppressed, missing=cfg_in.missing, strip=cfg_in.strip,
            person_qi=cfg_in.person_qi, metric=config.algorithm.metric, priors=inp.priors, engine=inp.engine,
            **r.options,
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
        reading = release_reading(r.algorithm, r.options)
        row.update(satisfied=True, verified=bool(result.verification.ok), suppressed=release.n_suppressed,
                   classes=release.n_classes, message="")
        try:
            row.update(loss=judge.loss_of(result, reading), risk=judge.risk_of(result, reading, control))
        except InputError as exc:  # the release was made but cannot be measured: a row that says why
            row.update(loss=math.nan, risk=math.nan, message=f"error: measuring it: {exc}")
        if judge.risk.attacks:
            row.update(judge.attacks)
            judge.attacks = {}
    row["seconds"] = round(time.perf_counter() - start, 6)
    return row


def _frame(rows: list[dict[str, object]], keys: list[str], loss: str, risk: str,
           thresholds: Mapping[str, float]) -> pd.DataFrame:
    """The rows as a frame, with ``meets`` and ``pareto`` and the columns in order."""
    columns = ["series", "algorithm", *keys, *COLUMNS]
    if risk in ATTACK_RISKS:  # each attack's risk beside the largest: which attack drives the point
        at = columns.index("risk") + 1
        columns[at:at] = [m for m in ATTACK_RISKS if m != COMMON_RISK]
    df = pd.DataFrame(rows, columns=[c for c in columns if c not in ("meets", "pareto")])
    for c in keys:  # a key some series do not vary stays whole numbers where it is given
        given = [row[c] for row in rows if c in row]
        if given and all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in given):
            df[c] = df[c].astype("Int64")
    for c in ("satisfied", "verified"):
        df[c] = df[c].astype(bool)
    for c in ("loss", "risk", "seconds", *(m for m in ATTACK_RISKS if m in df.columns)):
        df[c] = df[c].astype(np.float64)
    for c in ("suppressed", "classes"):
        df[c] = df[c].astype("Int64")
    df["meets"] = meets(df["satisfied"], df["risk"], risk_limit(risk, thresholds))
    df["pareto"] = pareto_front(df["loss"], df["risk"], df["satisfied"])
    return df[columns]
