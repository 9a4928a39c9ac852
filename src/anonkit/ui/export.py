"""Step 6, Export: the release in any format anonkit writes, the HTML report, and the config.

The config is the run's plan written back (:meth:`~anonkit.plan.Plan.to_yaml`) with the release's
file name for the chosen format: saved beside the user's copy of the table (and the hierarchy files
of the bundle, when a hierarchy was edited), ``anonkit anonymize config.yaml`` writes the same bytes
the page gives — the reproducibility sdcApp's script gives, with nothing to re-type.

The release in the run's own format is the very file the run wrote. In another format it is written
the way the runner writes (:func:`release_file`): a plan of the same config with that output, its
targets, :func:`anonkit.io.write_table` with the config's output options.
"""

from __future__ import annotations

import copy
import io
import zipfile
from pathlib import Path
from typing import Any

from shiny import Inputs, Outputs, Session, reactive, render, ui

from anonkit.ui.widgets import Shared, explain, message, step_header
from anonkit.ui.workspace import DEFAULT_OUTPUT, RunRecord

__all__ = ["EXPORT_FORMATS", "config_for", "config_yaml", "panel", "release_file", "report_html", "server"]

#: the formats a release can be downloaded in, and the file suffix of each
EXPORT_FORMATS = {"csv": ".csv", "parquet": ".parquet", "excel": ".xlsx", "sqlite": ".sqlite", "duckdb": ".duckdb"}
_WORDS = {"csv": "CSV", "parquet": "Parquet", "excel": "Excel workbook", "sqlite": "SQLite database",
          "duckdb": "DuckDB database"}


def panel() -> Any:
    return ui.nav_panel(
        "6. Export",
        step_header("Export", "Download the anonymized table, the report for the privacy officer, and the "
                              "config that reproduces it exactly from the command line."),
        ui.input_select("x_run", "Run to export", choices={}),
        ui.input_select("x_format", "Format of the release", {k: _WORDS[k] for k in EXPORT_FORMATS}),
        ui.output_ui("x_status"),
        ui.div(
            ui.download_button("x_release", "Download the release", class_="btn-primary me-2"),
            ui.download_button("x_report", "Download the report (HTML)", class_="btn-secondary me-2"),
            ui.download_button("x_config", "Download the config (YAML)", class_="btn-secondary me-2"),
            ui.download_button("x_bundle", "Download config and hierarchies (zip)", class_="btn-secondary"),
            class_="my-3",
        ),
        explain("Save the config beside your table and run: anonkit anonymize config.yaml — it writes the same "
                "release, byte for byte.",
                "The config names the table by its file name and the release as release.csv (or the format "
                "chosen). Edited hierarchies are files named in the config: the zip holds them."),
        ui.h3("The config"),
        ui.output_code("x_yaml"),
        value="export",
    )


def output_name(fmt: str) -> str:
    return "release" + EXPORT_FORMATS[fmt]


def config_for(record: RunRecord, fmt: str) -> dict[str, Any]:
    """The run's config with the release written in ``fmt``."""
    config = copy.deepcopy(record.config)
    if fmt != "csv" or config.get("output", {}).get("path") != DEFAULT_OUTPUT:
        config["output"] = {"path": output_name(fmt)}
    return config


def _plan(shared: Shared, record: RunRecord, fmt: str) -> Any:
    from anonkit.config import parse_config
    from anonkit.plan import plan_from_config

    if fmt == "csv" and record.config.get("output", {}).get("path") == DEFAULT_OUTPUT:
        return record.plan
    folder = record.folder / f"export-{fmt}"
    folder.mkdir(mode=0o700, exist_ok=True)
    shared.ws.stage(folder)
    return plan_from_config(parse_config(config_for(record, fmt)), config_dir=folder)


def config_yaml(shared: Shared, record: RunRecord, fmt: str) -> str:
    """The YAML config of the run with its release in ``fmt`` (:meth:`~anonkit.plan.Plan.to_yaml`)."""
    head = ("# made by anonkit ui; save it beside the input and run: anonkit anonymize THIS_FILE\n")
    return head + _plan(shared, record, fmt).to_yaml()


def release_file(shared: Shared, record: RunRecord, fmt: str) -> Path:
    """The release of the run in ``fmt``: the run's own file, or written as the runner writes it."""
    from anonkit.io import write_table

    plan = _plan(shared, record, fmt)
    location = Path(plan.outputs[0][0])
    if plan is record.plan or location.exists():
        return location
    out = plan.config.output
    result = record.result
    frames = [result.frame] if not result.release.tables else list(result.release.tables.values())
    for (loc, sql_table), frame in zip(plan.outputs, frames, strict=False):
        write_table(frame, loc, format=out.format, separator=out.separator, encoding=out.encoding, table=sql_table,
                    neutralise=out.neutralise, if_exists="replace" if sql_table is None else out.if_exists,
                    sheet=out.sheet)
    return location


def report_html(shared: Shared, record: RunRecord, fmt: str) -> str:
    """The HTML report of the run (the CLI's ``--report``), with the exported config in it."""
    from anonkit.report import build_report

    result = record.result
    release = result.release
    published = result.frame if not release.tables else dict(release.tables)
    return build_report(result.summary, original=release.table.frame, release=published,
                        config_text=config_yaml(shared, record, fmt), audit=result.summary.get("audit"))


def bundle(shared: Shared, record: RunRecord, fmt: str) -> bytes:
    """A zip of the config and every hierarchy file it names."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("config.yaml", config_yaml(shared, record, fmt))
        for entry in record.config.get("attributes", {}).values():
            h = entry.get("hierarchy")
            if isinstance(h, str) and (record.folder / h).is_file():
                z.write(record.folder / h, h)
    return buf.getvalue()


def server(input: Inputs, output: Outputs, session: Session, shared: Shared) -> None:
    def record() -> RunRecord | None:
        shared.changed()
        chosen = input.x_run()
        r = shared.ws.run(int(chosen)) if chosen else None
        return r if r is not None and r.result is not None else None

    @reactive.effect
    def _runs() -> None:
        shared.changed()
        done = {str(r.number): r.label for r in shared.ws.runs if r.result is not None}
        shown = shared.shown()
        selected = str(shown) if shown is not None and str(shown) in done else (next(reversed(done)) if done else None)
        ui.update_select("x_run", choices=done, selected=selected)

    @render.ui
    def x_status() -> Any:
        r = record()
        if r is None:
            return message("No release yet: make a run first (step Run).", "info")
        ok = (r.summary.get("verdict") or {}).get("ok")
        if ok is False:
            return message("The audit of this run fails: see step Results for the change that passes before "
                           "you publish.", "warning")
        return message(f"Ready: {r.label}.", "success")

    @render.code
    def x_yaml() -> str:
        r = record()
        return "" if r is None else config_yaml(shared, r, input.x_format())

    @render.download_button(filename=lambda: output_name(input.x_format()))
    def x_release() -> Any:
        r = record()
        if r is not None:
            yield release_file(shared, r, input.x_format()).read_bytes()

    @render.download_button(filename="report.html")
    def x_report() -> Any:
        r = record()
        if r is not None:
            yield report_html(shared, r, input.x_format()).encode("utf-8")

    @render.download_button(filename="config.yaml")
    def x_config() -> Any:
        r = record()
        if r is not None:
            yield config_yaml(shared, r, input.x_format()).encode("utf-8")

    @render.download_button(filename="anonkit-config.zip")
    def x_bundle() -> Any:
        r = record()
        if r is not None:
            yield bundle(shared, r, input.x_format())
