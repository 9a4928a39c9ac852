"""The risk–utility map of Results: the explored configurations around the shown run, with the Pareto
front, where clicking a point (or choosing it in the list, for the keyboard) opens that configuration
as a run of its own.

The exploration is :func:`anonkit.explore.explore` of the shown run's config over a grid the user
can change (``k=2,5,10,20``), run as the application's one job; the map is drawn by the report's own
:func:`anonkit.report.ru_map.ru_map` (through :meth:`~anonkit.explore.run.ExploreResult.figure`).
With "Also place SafePub" the map gets a second series (:mod:`anonkit.explore.series`): SafePub
(differential privacy, :func:`safepub_config`) on the same table, roles and hierarchies at the ε
values given; with "Also place DP synthesis (MST)" a third: ``dp-synthetic`` (:mod:`._synth_form`) at
its ε values over the domain the user declares per published column in the form beside it (never read
from the data). Every series is measured by the figures every release has (the attacks' largest risk,
the two-way marginal distance), as ``anonkit explore --also`` does.
"""

from __future__ import annotations

import asyncio
import copy
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from shiny import Inputs, Outputs, Session, reactive, render, ui
from shiny.types import SilentException

from anonkit.algorithms.lattice.safepub import safepub as _safepub
from anonkit.errors import InputError
from anonkit.ui._synth_form import (
    SYNTH,
    FormColumn,
    domain_from_form,
    dp_extra_missing,
    form_columns,
    prefill,
    synth_config,
    synth_delta,
)
from anonkit.ui.jobs import Busy, Cancelled, JobState, run_job
from anonkit.ui.widgets import Shared, explain, message
from anonkit.ui.workspace import RunRecord

__all__ = ["SYNTH", "config_of_point", "default_grid", "map_request", "nearest", "safepub_config", "server",
           "ui_block"]

#: the k values explored when the config has a k-anonymity model (ARX's usual range)
DEFAULT_K_GRID = (2, 3, 5, 10, 20, 50)
#: the SafePub series' name on the map, its ε values unless the user writes others, its δ and its
#: data-independent generalization degree
SAFEPUB: str = _safepub.spec.name  # type: ignore[attr-defined]
DEFAULT_EPSILONS = "0.5,1,2"
SAFEPUB_DELTA = 1e-6
SAFEPUB_DEGREE = "medium"


def safepub_config(config: dict[str, Any], epsilon: float = 1.0) -> dict[str, Any]:
    """The run's config as SafePub would run it: the same input, roles, hierarchies and audit, the
    privacy models replaced by ``{model: differential-privacy, epsilon, delta}`` and the algorithm by
    SafePub's data-independent search (:data:`SAFEPUB_DEGREE`), OpenDP's draws (not seeded)."""
    out = copy.deepcopy(config)
    out["privacy"] = [{"model": "differential-privacy", "epsilon": epsilon, "delta": SAFEPUB_DELTA}]
    out["algorithm"] = {"name": SAFEPUB, "degree": SAFEPUB_DEGREE}
    return out


def map_request(config: dict[str, Any], grid: str, *, safepub: bool = False, epsilons: str = DEFAULT_EPSILONS,
                synth: Mapping[str, Mapping[str, Any]] | None = None, synth_epsilons: str = DEFAULT_EPSILONS,
                types: Mapping[str, str] | None = None, n: int = 0,
                ) -> tuple[dict[str, list[Any]], dict[str, dict[str, Any]]]:
    """What the map's form asks: the ``--vary`` grid (``k=2,5; t=0.2``, each item ``KEY=V1,V2``) and,
    with ``safepub``, SafePub's config as a series varied over ``epsilons`` (``safepub:epsilon=…``);
    with ``synth`` (the domain form's values: column → ``categories``, ``lo``, ``hi``, ``bins``,
    ``integer``), DP synthesis (MST) as a series varied over ``synth_epsilons``, its δ SafePub's
    (below 1/``n``). Returns the grid and the extra series' configs by name; an InputError for a bad
    grid or ε list, or a column whose domain is missing or invalid (naming it)."""
    from anonkit.explore.grid import parse_vary
    from anonkit.explore.series import SCOPE, parse_series_vary

    items = [p.strip() for p in grid.split(";") if p.strip()]
    if not safepub and synth is None:
        return parse_vary(items), {}
    if safepub:
        items.append(f"{SAFEPUB}{SCOPE}epsilon={epsilons}")
    if synth is not None:
        items.append(f"{SYNTH}{SCOPE}epsilon={synth_epsilons}")
    vary = parse_series_vary(items)
    extra: dict[str, dict[str, Any]] = {}
    if safepub:
        extra[SAFEPUB] = safepub_config(config, float(vary[f"{SAFEPUB}{SCOPE}epsilon"][0]))
    if synth is not None:
        domain = domain_from_form(form_columns(config, types), synth)
        extra[SYNTH] = synth_config(config, domain, float(vary[f"{SYNTH}{SCOPE}epsilon"][0]),
                                    synth_delta(n, SAFEPUB_DELTA))
    return vary, extra


def default_grid(config: dict[str, Any]) -> str:
    """The grid explored unless the user writes another: k around the config's, else l, else t."""
    models = config.get("privacy", [])
    if any("k" in m for m in models):
        return "k=" + ",".join(map(str, DEFAULT_K_GRID))
    if any("l" in m for m in models):
        return "l=2,3,4,5"
    if any("t" in m for m in models):
        return "t=0.1,0.2,0.3,0.5"
    return "k=" + ",".join(map(str, DEFAULT_K_GRID))


def config_of_point(config: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """The run's config with an explored point's parameters: every model that has the key takes it, and
    so does the algorithm's option of that name (DP synthesis's ε is its model's and its option's, as
    ``explore`` varies them together)."""
    out = copy.deepcopy(config)
    for key, value in params.items():
        hit = False
        for m in out.get("privacy", []):
            if key in m:
                m[key], hit = value, True
        if key in out.get("algorithm", {}):
            out["algorithm"][key] = value
        elif not hit and key == "k":
            out.setdefault("privacy", []).append({"model": "k-anonymity", "k": value})
    return out


def nearest(frame: Any, risk: str, loss: str, x: float, y: float) -> int | None:
    """The row of the satisfied run nearest to the click (in the map's scaled coordinates)."""
    rx = frame[risk if risk in frame.columns else "risk"].to_numpy(dtype=float)
    ly = frame[loss if loss in frame.columns else "loss"].to_numpy(dtype=float)
    ok = np.isfinite(rx) & np.isfinite(ly) & frame["satisfied"].to_numpy(dtype=bool)
    if not ok.any():
        return None
    span_x = float(np.ptp(rx[ok])) or 1.0
    span_y = float(np.ptp(ly[ok])) or 1.0
    d = ((rx - x) / span_x) ** 2 + ((ly - y) / span_y) ** 2
    d[~ok] = math.inf
    return int(np.argmin(d))


def ui_block() -> Any:
    return ui.div(
        explain("Each point is the release of a nearby setting: lower is more useful, further left is safer. "
                "Points on the line (the Pareto front) are the best trade-offs. Click a point to open it.",
                "Risk: the highest re-identification risk of a record; loss: ARX's information loss. With SafePub "
                "on the map, both kinds are measured alike: risk is the largest success of the singling-out, "
                "linkability and inference attacks beyond a guess, loss the distance between the two-way "
                "marginals of your data and of the release. Filled points meet the audit's thresholds. Every "
                "point is a real run on your data."),
        ui.input_text("m_grid", "Settings to explore", value="k=2,3,5,10,20,50"),
        ui.input_checkbox("m_safepub", "Also place SafePub (differential privacy) on the map", value=False),
        ui.input_text("m_eps", "SafePub's ε values", value=DEFAULT_EPSILONS),
        _synth_checkbox(dp_extra_missing()),
        ui.input_text("m_synth_eps", "DP synthesis's ε values", value=DEFAULT_EPSILONS),
        ui.output_ui("m_synth_form"),
        ui.input_action_button("m_go", "Explore", class_="btn-secondary"),
        ui.output_ui("m_status"),
        ui.output_plot("m_plot", height="420px", click=True),
        ui.input_select("m_point", "Or choose an explored setting", choices={}),
        ui.input_action_button("m_open", "Open this setting as a run", class_="btn-sm btn-secondary"),
    )


def _synth_checkbox(missing: str | None) -> Any:
    """The DP synthesis checkbox; disabled, with the reason beside it, when the ``dp`` extra is missing."""
    box = ui.input_checkbox("m_synth", "Also place DP synthesis (MST) on the map", value=False)
    if missing is None:
        return box
    return ui.div(ui.tags.fieldset(box, disabled="disabled"), ui.p(missing, id="m_synth_missing", class_="form-text"))


#: the fields of one column in the domain form, by the form's input id suffix
_FIELDS = ("categories", "lo", "hi", "bins", "integer")
#: said beside the domain form: why it is not filled from the table
DOMAIN_WHY = ("Declare each published column's values: categories (comma-separated) or, for a number, its bounds, "
              "bins and whether it holds whole numbers. Only what you declared is filled in (a hierarchy you "
              "imported, a DP synthesis config you made); an empty field was not read from your table, because "
              "reading it would spend privacy budget the guarantee does not count.")


def _dom_id(i: int, name: str) -> str:
    return f"m_dom_{i}_{name}"


def domain_form(columns: list[FormColumn], start: Mapping[str, Mapping[str, Any]]) -> Any:
    """The domain form: one row per published column (categories, or lo, hi, bins and a whole-number tick)."""
    rows = []
    for i, c in enumerate(columns):
        v = start.get(c.name, {})
        if c.numeric:
            fields = [ui.input_text(_dom_id(i, "lo"), "lo", value=str(v.get("lo", "")), width="7em"),
                      ui.input_text(_dom_id(i, "hi"), "hi", value=str(v.get("hi", "")), width="7em"),
                      ui.input_text(_dom_id(i, "bins"), "bins", value=str(v.get("bins", "")), width="6em",
                                    placeholder="10"),
                      ui.input_checkbox(_dom_id(i, "integer"), "whole numbers", value=bool(v.get("integer")))]
        else:
            fields = [ui.input_text(_dom_id(i, "categories"), "categories", value=str(v.get("categories", "")),
                                    width="100%", placeholder="a, b, c")]
        rows.append(ui.tags.fieldset(ui.tags.legend(c.name, class_="fs-6"), ui.div(*fields, class_="d-flex gap-2"),
                                     class_="m-dom-column"))
    return ui.div(ui.p(DOMAIN_WHY, id="m_dom_why", class_="form-text"), *rows, id="m_dom_form")


def server(input: Inputs, output: Outputs, session: Session, shared: Shared, state: JobState, launch: Any) -> None:
    explored: reactive.Value[tuple[RunRecord, Any, dict[str, dict[str, Any]]] | None] = reactive.Value(None)
    status: reactive.Value[Any] = reactive.Value(None)
    imported: reactive.Value[dict[str, list[str]]] = reactive.Value({})  # column → leaves of the user's file

    def record() -> RunRecord | None:
        shared.changed()
        chosen = input.res_run()
        return shared.ws.run(int(chosen)) if chosen else None

    @reactive.effect
    def _grid() -> None:
        r = record()
        if r is not None:
            ui.update_text("m_grid", value=default_grid(r.config))

    def types() -> dict[str, str]:
        return {n: c.type for n, c in shared.ws.columns.items()}

    @reactive.effect
    @reactive.event(input.h_import)
    def _imported() -> None:
        """The leaves of a hierarchy file the user imported: the user's declaration of the column's values."""
        from anonkit.hierarchy import parse_hierarchy

        files, column = input.h_import(), input.h_column()
        if not files or not column:
            return
        try:
            with open(files[0]["datapath"], encoding="utf-8-sig") as fh:
                h = parse_hierarchy(fh.read(), name=column)
        except (InputError, OSError, UnicodeDecodeError):
            return  # the Hierarchies step says why it was not imported
        with reactive.isolate():
            imported.set({**imported(), column: [str(row[0]) for row in h.rows()]})

    @render.ui
    def m_synth_form() -> Any:
        if not input.m_synth():
            return None
        chosen, declared = input.res_run(), imported()  # a hierarchy imported later fills its column in
        with reactive.isolate():
            r = shared.ws.run(int(chosen)) if chosen else None
            if r is None:
                return message("Make a run first.", "info")
            return domain_form(form_columns(r.config, types()), prefill(r.config, declared))

    def synth_values(r: RunRecord) -> dict[str, dict[str, Any]]:
        values: dict[str, dict[str, Any]] = {}
        for i, c in enumerate(form_columns(r.config, types())):
            got: dict[str, Any] = {}
            for name in _FIELDS:
                try:
                    got[name] = input[_dom_id(i, name)]()
                except (KeyError, SilentException):  # a field the column's kind does not show
                    continue
            values[c.name] = got
        return values

    @reactive.extended_task
    async def job(r: RunRecord, vary: dict[str, list[Any]], extra: dict[str, dict[str, Any]]
                  ) -> tuple[RunRecord, Any, dict[str, dict[str, Any]]]:
        def work() -> tuple[RunRecord, Any, dict[str, dict[str, Any]]]:
            from anonkit.config import parse_config
            from anonkit.explore import explore
            from anonkit.explore.series import Series

            try:
                cfg = parse_config(copy.deepcopy(r.config))
                also = [Series(name, parse_config(copy.deepcopy(c)), r.folder) for name, c in extra.items()]
                return r, run_job(state, lambda st: explore(cfg, vary=vary, config_dir=r.folder, also=also,
                                                           name=f"run {r.number}" if also else None,
                                                           progress=lambda d, t, w: st.step(d, t, w))), extra
            except (InputError, Busy, Cancelled) as exc:
                return r, str(exc), extra

        return await asyncio.to_thread(work)

    @reactive.effect
    @reactive.event(input.m_go)
    def _go() -> None:
        r = record()
        if r is None or r.result is None:
            status.set(message("Make a run first.", "info"))
            return
        synth = bool(input.m_synth()) and dp_extra_missing() is None
        try:
            n = int(r.summary.get("records", 0) or 0) if isinstance(r.summary, Mapping) else 0
            vary, extra = map_request(r.config, input.m_grid(), safepub=bool(input.m_safepub()),
                                      epsilons=input.m_eps(), synth=synth_values(r) if synth else None,
                                      synth_epsilons=input.m_synth_eps(), types=types(), n=n)
        except InputError as exc:
            status.set(message(str(exc), "danger"))
            return
        status.set(message("Exploring… each point is a run.", "info"))
        job.invoke(r, vary, extra)

    @reactive.effect
    def _done() -> None:
        if job.status() != "success":
            return
        r, result, extra = job.result()
        with reactive.isolate():
            if isinstance(result, str):
                status.set(message(result, "danger"))
                return
            explored.set((r, result, extra))
            n, several = len(result.frame), len(result.series) > 1
            status.set(message(f"{n} settings explored{f' in {len(result.series)} series' if several else ''}; "
                               f"{int(result.frame['pareto'].sum())} on the Pareto front.", "success"))
            choices = {str(i): f"{row['series'] + ': ' if several else ''}{row['algorithm']} {row['label']}"
                       for i, row in result.frame.iterrows() if row["satisfied"]}
            ui.update_select("m_point", choices=choices)

    @render.ui
    def m_status() -> Any:
        return status()

    @render.plot(alt="Risk-utility map of the explored settings with the Pareto front")
    def m_plot() -> Any:
        got = explored()
        return None if got is None else got[1].figure()

    def open_row(i: int) -> None:
        got = explored()
        if got is None:
            return
        r, result, extra = got
        row = result.frame.iloc[i]
        grid = next((s["vary"] for s in result.series if s["name"] == row["series"]), result.vary)
        base = extra.get(str(row["series"]), r.config) if len(result.series) > 1 else r.config
        params = {k: (int(row[k]) if float(row[k]).is_integer() else float(row[k])) for k in grid}
        config = config_of_point(base, params)
        config["algorithm"] = {**config.get("algorithm", {}), "name": str(row["algorithm"])}
        shared.ws.adopt(config)
        launch(config)

    @reactive.effect
    @reactive.event(input.m_plot_click)
    def _clicked() -> None:
        click, got = input.m_plot_click(), explored()
        if not click or got is None:
            return
        i = nearest(got[1].frame, got[1].risk, got[1].loss, float(click["x"]), float(click["y"]))
        if i is not None:
            open_row(i)

    @reactive.effect
    @reactive.event(input.m_open)
    def _open() -> None:
        chosen = input.m_point()
        if chosen:
            open_row(int(chosen))
