"""Step 1, Data: open a table (an upload, a file on this machine, or a database), see a preview, and
give every column its type and role, with the suggested role and its reason beside it.

An uploaded file is moved into the session's private directory under its own name (only the name's
last part is kept: nothing an upload names escapes that directory). A table is read with
:func:`anonkit.io.read_table` (every format anonkit reads); the suggestions come from the advice layer
(:func:`anonkit.ui._advice.hints`), and a quasi-identifier or sensitive column gets its hierarchy
built automatically (step Hierarchies shows and edits it).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pandas as pd
from shiny import Inputs, Outputs, Session, reactive, render, ui

from anonkit.errors import InputError
from anonkit.ui import _advice
from anonkit.ui.widgets import Shared, explain, message, step_header
from anonkit.ui.workspace import Column, Source

__all__ = ["PREVIEW_ROWS", "open_table", "panel", "server"]

#: rows the preview shows
PREVIEW_ROWS = 12
#: the suffixes the upload accepts (every format anonkit reads from a file)
ACCEPT = [".csv", ".txt", ".tsv", ".parquet", ".pq", ".xlsx", ".sqlite", ".sqlite3", ".db", ".duckdb"]

ROLE_WORDS = {
    "quasi": "quasi-identifier (generalized)",
    "sensitive": "sensitive (protected by the models)",
    "insensitive": "insensitive (published as is)",
    "identifier": "identifier (removed)",
    "person": "person column (removed; records grouped by person)",
    "weight": "sampling weight (published as is; survey risk)",
    "household": "household id (removed; household risk)",
}
TYPE_WORDS = {"categorical": "categories", "numeric": "numbers", "date": "dates", "ordinal": "ordered categories"}


def panel() -> Any:
    return ui.nav_panel(
        "1. Data",
        step_header("Data", "Open the table to anonymize. It stays on this computer: the application runs here "
                            "and reads nothing from the internet."),
        ui.layout_columns(
            ui.div(
                ui.input_file("data_file", "Upload a table", accept=ACCEPT, button_label="Choose file…"),
                explain("CSV, Parquet, Excel, SQLite or DuckDB.",
                        "The file is kept in a private folder of this application, removed when it stops."),
            ),
            ui.div(
                ui.input_text("data_path", "Or a file on this computer", placeholder="/path/to/table.csv"),
                ui.input_action_button("data_open_path", "Open file", class_="btn-secondary"),
                explain("The full path of a file this computer can read."),
            ),
            ui.div(
                ui.input_text("data_uri", "Or a database", placeholder="postgresql://user@host/db or file.sqlite"),
                ui.input_text("data_table", "Table in the database", placeholder="table name"),
                ui.input_action_button("data_open_db", "Open table", class_="btn-secondary"),
                explain("A PostgreSQL URI, or a SQLite or DuckDB file, and the table to read."),
            ),
            col_widths=(4, 4, 4),
        ),
        ui.output_ui("data_status"),
        ui.h3("Preview"),
        ui.output_table("data_preview"),
        ui.h3("Columns: type and role"),
        explain("Each column's role decides what happens to it. The suggestion and its reason are shown; "
                "change any of them.",
                "Quasi-identifiers are what someone could know about a person from elsewhere (age, postcode, "
                "sex): they are generalized until the privacy models hold. Sensitive attributes are what must "
                "not be learned (a diagnosis, an income): the models bound what a class reveals about them. "
                "Identifiers (names, e-mail addresses, record numbers) are removed. Insensitive columns are "
                "published unchanged."),
        ui.output_ui("data_columns"),
        value="data",
    )


def open_table(shared: Shared, source: Source) -> str:
    """Read ``source`` into the workspace and suggest every column's type, role and hierarchy;
    returns what the page says."""
    from anonkit.io import read_table

    opts = {k: v for k, v in source.options.items() if k in ("table", "sheet")}
    frame = read_table(source.location, **opts)
    if not len(frame.columns):
        raise InputError("the table has no columns", file=source.name)
    ws = shared.ws
    ws.source, ws.frame, ws.runs = source, frame, []
    ws.columns = {}
    for hint in _advice.hints(frame):
        c = Column(hint.name, hint.type, hint.role, hint.reason, hint.candidates)
        ws.columns[c.name] = c
        suggest_hierarchy(shared, c)
    shared.bump()
    return f"Opened {source.name}: {len(frame):,} rows, {len(frame.columns)} columns."


def suggest_hierarchy(shared: Shared, c: Column) -> None:
    """Build the column's hierarchy automatically when its role needs one and it has none."""
    frame = shared.ws.frame
    if c.role in ("quasi", "sensitive") and c.builder is None and c.table is None and frame is not None:
        try:
            c.builder = _advice.auto_hierarchy(frame[c.name], name=c.name, type=c.type)
        except (InputError, ValueError):
            c.builder = None


def _upload(shared: Shared, file: dict[str, Any]) -> Source:
    name = Path(str(file["name"])).name or "table.csv"
    target = shared.ws.root / "data"
    target.mkdir(mode=0o700, exist_ok=True)
    dest = target / name
    shutil.move(str(file["datapath"]), dest)
    return Source("upload", name, str(dest))


def _column_row(i: int, c: Column) -> Any:
    reason = c.reason + (f" Other candidates: {', '.join(c.candidates)}." if c.candidates else "")
    return ui.tags.tr(
        ui.tags.th(c.name, scope="row"),
        ui.tags.td(ui.input_select(f"type_{i}", ui.span(f"Type of {c.name}", class_="visually-hidden"),
                                   TYPE_WORDS, selected=c.type, width="11em")),
        ui.tags.td(ui.input_select(f"role_{i}", ui.span(f"Role of {c.name}", class_="visually-hidden"),
                                   ROLE_WORDS, selected=c.role, width="17em")),
        ui.tags.td(reason, class_="small"),
    )


def server(input: Inputs, output: Outputs, session: Session, shared: Shared) -> None:
    status: reactive.Value[Any] = reactive.Value(None)

    def attempt(make: Any) -> None:
        try:
            status.set(message(open_table(shared, make()), "success"))
        except InputError as exc:
            status.set(message(f"Cannot open it: {exc}", "danger"))

    if shared.data:
        data = shared.data
        attempt(lambda: Source("path", Path(data).name, str(Path(data).resolve())))

    @reactive.effect
    @reactive.event(input.data_file)
    def _uploaded() -> None:
        files = input.data_file()
        if files:
            attempt(lambda: _upload(shared, files[0]))

    @reactive.effect
    @reactive.event(input.data_open_path)
    def _by_path() -> None:
        text = input.data_path().strip()
        if not text:
            status.set(message("Give the path of a file first.", "warning"))
            return
        attempt(lambda: Source("path", Path(text).name, str(Path(text).expanduser().resolve())))

    @reactive.effect
    @reactive.event(input.data_open_db)
    def _by_uri() -> None:
        uri, table = input.data_uri().strip(), input.data_table().strip()
        if not uri or not table:
            status.set(message("Give the database and the table to read.", "warning"))
            return
        attempt(lambda: Source("database", f"{table} in the database", uri, {"table": table}))

    @render.ui
    def data_status() -> Any:
        return status()

    @render.table(index=False, classes="table table-sm table-striped")
    def data_preview() -> Any:
        shared.changed()
        frame = shared.ws.frame
        if frame is None:
            return pd.DataFrame({"": ["no table opened yet"]})
        return frame.head(PREVIEW_ROWS).astype(str)

    @render.ui
    def data_columns() -> Any:
        shared.changed()
        cols = list(shared.ws.columns.values())
        if not cols:
            return ui.p("Open a table to see its columns.")
        head = ui.tags.tr(*(ui.tags.th(h, scope="col") for h in ("column", "type", "role", "why this role")))
        return ui.tags.table(ui.tags.thead(head), ui.tags.tbody(*(_column_row(i, c) for i, c in enumerate(cols))),
                             class_="table table-sm align-middle")

    @reactive.effect
    def _edits() -> None:
        shared.changed()  # a new table: its columns' controls
        cols = list(shared.ws.columns.values())
        changed = False
        for i, c in enumerate(cols):
            role, kind = input[f"role_{i}"], input[f"type_{i}"]
            try:
                new_role, new_type = role(), kind()
            except Exception:  # the control is not on the page yet
                continue
            if new_role is None or new_type is None or (new_role, new_type) == (c.role, c.type):
                continue
            if new_type != c.type:
                c.builder, c.table = None, None
            c.role, c.type = new_role, new_type
            suggest_hierarchy(shared, c)
            changed = True
        if changed:  # the runs made stay; the next one uses the new choices
            shared.bump()
