"""Step 4, Run: the algorithm chosen for the data (and changeable), a live progress bar, cancel.

A run is the session's config made into a plan (:meth:`~anonkit.ui.workspace.Workspace.plan_run`:
refused at once, with the config's one-line error, when something is missing or wrong) and then
:func:`anonkit.runner.run` off the request loop (:mod:`anonkit.ui.jobs`, through Shiny's
``ExtendedTask``). The page polls the job's progress; closing the page cancels the job.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from shiny import Inputs, Outputs, Session, reactive, render, ui

from anonkit.errors import InputError, UnsatisfiableError
from anonkit.ui.jobs import Busy, Cancelled, JobState, run_job
from anonkit.ui.widgets import Shared, explain, message, step_header
from anonkit.ui.workspace import RunRecord, Workspace

__all__ = ["LARGE_LATTICE_QIS", "choose_algorithm", "execute", "label_of", "panel", "server", "start_run"]

#: above this many quasi-identifiers a full-domain search space is large: Mondrian partitions instead
LARGE_LATTICE_QIS = 10
#: how often the page reads the job's progress (seconds)
POLL_SECONDS = 0.25


def choose_algorithm(ws: Workspace) -> tuple[str, str]:
    """The algorithm for the data and the reason, in words."""
    from anonkit.algorithms.registry import algorithms, default_algorithm

    default = default_algorithm().name
    qis = [c for c in ws.columns.values() if c.role == "quasi"]
    partition = next((a.name for a in algorithms().values() if a.family == "partition" and not a.persons), None)
    persons = any(c.role == "person" for c in ws.columns.values())
    if len(qis) > LARGE_LATTICE_QIS and partition is not None and not persons:
        return partition, (f"{len(qis)} quasi-identifiers make the full-domain search space large: {partition} "
                           "partitions the records instead")
    return default, ("optimal full-domain generalization (ARX's default): every record of a column is "
                     "generalized to the same level, the least loss that meets the models is found")


def _algorithm_choices() -> dict[str, str]:
    from anonkit.algorithms.registry import algorithms

    return {name: f"{name}: {a.summary.split(':')[0][:70]}" for name, a in algorithms().items()}


def panel() -> Any:
    return ui.nav_panel(
        "4. Run",
        step_header("Run", "Anonymize the table with your choices. It may take from seconds to minutes; you can "
                           "cancel at any time, and nothing is written until it is finished and checked."),
        ui.layout_columns(
            ui.div(
                ui.input_select("r_algorithm", "Algorithm", choices=[]),
                ui.output_ui("r_algorithm_reason"),
                ui.input_numeric("r_suppression", "Records that may be left out (%)", 2, min=0, max=100, step=1),
                explain("A few unusual records can be left out instead of generalizing everyone more.",
                        "Suppressed records are not published; their share is limited by this value."),
                ui.input_numeric("r_seed", "Seed", 0, min=0, step=1),
                explain("The same seed gives the same release, byte for byte."),
            ),
            ui.div(
                ui.input_action_button("r_go", "Run", class_="btn-primary btn-lg"),
                ui.input_action_button("r_cancel", "Cancel", class_="btn-outline-danger"),
                ui.output_ui("r_progress"),
                ui.output_ui("r_status"),
            ),
            col_widths=(5, 7),
        ),
        value="run",
    )


def label_of(number: int, config: dict[str, Any]) -> str:
    """A run's name in lists: its number, models and algorithm."""
    parts = []
    for m in config.get("privacy", []):
        params = " ".join(f"{k}={v}" for k, v in m.items() if k not in ("model", "attribute", "variant", "distance"))
        parts.append(f"{m.get('model')} {params}".strip())
    algorithm = config.get("algorithm", {}).get("name", "the default algorithm")
    return f"run {number}: {', '.join(parts) or 'no model'}; {algorithm}"


def execute(state: JobState, record: RunRecord) -> RunRecord:
    """Run the record's plan as the application's one job (on this worker thread); every way it can end
    is recorded in the record, none escapes."""
    from anonkit.runner import run

    t0 = time.perf_counter()
    try:
        record.result = run_job(state, lambda st: run(record.plan, st.say))
    except UnsatisfiableError as exc:
        record.error, record.unsatisfied = f"The models cannot be met: {exc}. Nothing was written.", True
    except (InputError, Busy, Cancelled) as exc:
        record.error = str(exc)
    except Exception as exc:  # fail closed: the page says so in one line, the server keeps going
        record.error = f"the run stopped: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    record.seconds = time.perf_counter() - t0
    return record


def start_run(shared: Shared, config: dict[str, Any] | None = None) -> RunRecord:
    """Plan the next run (its errors raised now, before any work) and record it in the workspace."""
    ws = shared.ws
    plan, folder, config = ws.plan_run(config)
    number = len(ws.runs) + 1
    record = RunRecord(number, label_of(number, config), config, folder, plan=plan)
    ws.runs.append(record)
    return record


def server(input: Inputs, output: Outputs, session: Session, shared: Shared, state: JobState,
           go_results: Any) -> Any:
    status: reactive.Value[Any] = reactive.Value(None)

    @reactive.extended_task
    async def job(record: RunRecord) -> RunRecord:
        return await asyncio.to_thread(execute, state, record)

    session.on_ended(state.cancel)  # closing the tab stops the run

    @reactive.effect
    def _choices() -> None:
        shared.changed()
        name, _why = choose_algorithm(shared.ws)
        with reactive.isolate():
            if shared.ws.runs:  # after a run, keep what the user had
                name = input.r_algorithm() or name
        ui.update_select("r_algorithm", choices=_algorithm_choices(), selected=name)

    @render.ui
    def r_algorithm_reason() -> Any:
        shared.changed()
        name, why = choose_algorithm(shared.ws)
        chosen = input.r_algorithm()
        text = f"Suggested: {name} — {why}." + ("" if chosen in (None, name) else f" You chose {chosen}.")
        return ui.p(text, class_="form-text")

    @reactive.effect
    def _algorithm() -> None:
        name, suppression, seed = input.r_algorithm(), input.r_suppression(), input.r_seed()
        if not name:
            return
        algo: dict[str, Any] = {"name": name}
        if suppression is not None:
            algo["max_suppression"] = round(float(suppression) / 100, 6)
        shared.ws.algorithm = algo
        if isinstance(seed, int | float) and seed >= 0:
            shared.ws.seed = int(seed)

    def launch(config: dict[str, Any] | None = None) -> None:
        if state.running or job.status() == "running":
            status.set(message("A run is in progress: wait for it or cancel it.", "warning"))
            return
        try:
            record = start_run(shared, config)
        except InputError as exc:
            status.set(message(f"Cannot run yet: {exc}", "danger"))
            return
        status.set(message(f"Started {record.label}.", "info"))
        job.invoke(record)

    @reactive.effect
    @reactive.event(input.r_go)
    def _go() -> None:
        launch()

    @reactive.effect
    @reactive.event(input.r_cancel)
    async def _cancel() -> None:
        if state.running:
            await asyncio.to_thread(state.cancel)
            status.set(message("Cancelling…", "warning"))

    @reactive.effect
    def _finished() -> None:
        if job.status() != "success":
            return
        record = job.result()
        with reactive.isolate():
            if record.error is None:
                status.set(message(f"Finished {record.label} in {record.seconds:.1f} s.", "success"))
                shared.shown.set(record.number)
                go_results()
            else:
                status.set(message(record.error, "warning" if record.unsatisfied else "danger"))
            shared.bump()

    @render.ui
    def r_progress() -> Any:
        running, phase, done, total, elapsed = state.snapshot()
        if running or job.status() == "running":
            reactive.invalidate_later(POLL_SECONDS)
        if not running:
            return ui.div()
        bar = ui.tags.progress(value=str(done), max=str(total), aria_label="progress of the run") if total else \
            ui.tags.progress(aria_label="progress of the run")
        count = f" ({done:,} of {total:,})" if total else ""
        return ui.div(ui.p(f"{phase}{count} — {elapsed:.0f} s", id="r_phase", role="status"), bar, class_="my-3")

    @render.ui
    def r_status() -> Any:
        return status()

    return launch
