"""The risk–utility map of Results: the explored configurations around the shown run, with the Pareto
front, where clicking a point (or choosing it in the list, for the keyboard) opens that configuration
as a run of its own.

The exploration is :func:`anonkit.explore.explore` of the shown run's config over a grid the user
can change (``k=2,5,10,20``), run as the application's one job; the map is drawn by the report's own
:func:`anonkit.report.ru_map.ru_map` (through :meth:`~anonkit.explore.run.ExploreResult.figure`).
"""

from __future__ import annotations

import asyncio
import copy
import math
from typing import Any

import numpy as np
from shiny import Inputs, Outputs, Session, reactive, render, ui

from anonkit.errors import InputError
from anonkit.ui.jobs import Busy, Cancelled, JobState, run_job
from anonkit.ui.widgets import Shared, explain, message
from anonkit.ui.workspace import RunRecord

__all__ = ["config_of_point", "default_grid", "nearest", "server", "ui_block"]

#: the k values explored when the config has a k-anonymity model (ARX's usual range)
DEFAULT_K_GRID = (2, 3, 5, 10, 20, 50)


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
    """The run's config with an explored point's parameters (every model that has the key takes it)."""
    out = copy.deepcopy(config)
    for key, value in params.items():
        hit = False
        for m in out.get("privacy", []):
            if key in m:
                m[key], hit = value, True
        if not hit and key in out.get("algorithm", {}):
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
                "Risk: the highest re-identification risk of a record; loss: ARX's information loss. Filled "
                "points meet the audit's thresholds. Every point is a real run on your data."),
        ui.input_text("m_grid", "Settings to explore", value="k=2,3,5,10,20,50"),
        ui.input_action_button("m_go", "Explore", class_="btn-secondary"),
        ui.output_ui("m_status"),
        ui.output_plot("m_plot", height="420px", click=True),
        ui.input_select("m_point", "Or choose an explored setting", choices={}),
        ui.input_action_button("m_open", "Open this setting as a run", class_="btn-sm btn-secondary"),
    )


def server(input: Inputs, output: Outputs, session: Session, shared: Shared, state: JobState, launch: Any) -> None:
    explored: reactive.Value[tuple[RunRecord, Any] | None] = reactive.Value(None)
    status: reactive.Value[Any] = reactive.Value(None)

    def record() -> RunRecord | None:
        shared.changed()
        chosen = input.res_run()
        return shared.ws.run(int(chosen)) if chosen else None

    @reactive.effect
    def _grid() -> None:
        r = record()
        if r is not None:
            ui.update_text("m_grid", value=default_grid(r.config))

    @reactive.extended_task
    async def job(r: RunRecord, vary: dict[str, list[Any]]) -> tuple[RunRecord, Any]:
        def work() -> tuple[RunRecord, Any]:
            from anonkit.config import parse_config
            from anonkit.explore import explore

            try:
                cfg = parse_config(copy.deepcopy(r.config))
                return r, run_job(state, lambda st: explore(cfg, vary=vary, config_dir=r.folder,
                                                           progress=lambda d, t, w: st.step(d, t, w)))
            except (InputError, Busy, Cancelled) as exc:
                return r, str(exc)

        return await asyncio.to_thread(work)

    @reactive.effect
    @reactive.event(input.m_go)
    def _go() -> None:
        from anonkit.explore.grid import parse_vary

        r = record()
        if r is None or r.result is None:
            status.set(message("Make a run first.", "info"))
            return
        try:
            vary = parse_vary([p for p in input.m_grid().split(";") if p.strip()])
        except InputError as exc:
            status.set(message(str(exc), "danger"))
            return
        status.set(message("Exploring… each point is a run.", "info"))
        job.invoke(r, vary)

    @reactive.effect
    def _done() -> None:
        if job.status() != "success":
            return
        r, result = job.result()
        with reactive.isolate():
            if isinstance(result, str):
                status.set(message(result, "danger"))
                return
            explored.set((r, result))
            n = len(result.frame)
            status.set(message(f"{n} settings explored; {int(result.frame['pareto'].sum())} on the Pareto front.",
                               "success"))
            choices = {str(i): f"{row['algorithm']} {row['label']}" for i, row in result.frame.iterrows()
                       if row["satisfied"]}
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
        r, result = got
        row = result.frame.iloc[i]
        params = {k: (int(row[k]) if float(row[k]).is_integer() else float(row[k])) for k in result.vary}
        config = config_of_point(r.config, params)
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
