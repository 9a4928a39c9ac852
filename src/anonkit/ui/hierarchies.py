"""Step 2, Hierarchies: how each quasi-identifier (and sensitive attribute) can be generalized, shown as
a table of levels — one row per value, one column per level, the last one the most general.

A hierarchy is built automatically when a column gets its role (step Data); here the user sees it,
changes the builder's settings (a YAML mapping such as ``{builder: intervals, width: 10}``), edits any
cell of the levels table, or imports and exports it in ARX's CSV format
(:mod:`anonkit.hierarchy.arx`). An edited or imported table is kept as ARX CSV text and written beside
the run's config as ``hierarchy_<column>.csv``; it is checked by :func:`anonkit.hierarchy.parse_hierarchy`
(a label that is another leaf's value, a value missing, … are refused with one line).
"""

from __future__ import annotations

import csv
import io
from typing import Any

import pandas as pd
import yaml
from pydantic import ValidationError
from shiny import Inputs, Outputs, Session, reactive, render, ui

from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy, parse_hierarchy
from anonkit.ui.widgets import Shared, explain, message, step_header
from anonkit.ui.workspace import TYPED_ROLES, Column

__all__ = ["build", "panel", "server", "to_arx"]

#: rows of the levels table shown (the whole hierarchy is exported)
SHOWN_ROWS = 200


def panel() -> Any:
    return ui.nav_panel(
        "2. Hierarchies",
        step_header("Hierarchies", "How each quasi-identifier can be made coarser, level by level. They were "
                                   "built from your data; check them and change what does not fit."),
        ui.layout_columns(
            ui.div(
                ui.input_select("h_column", "Column", choices=[]),
                ui.input_text_area("h_builder", "How it is built", rows=3,
                                   placeholder="{builder: intervals, width: 10}"),
                ui.input_action_button("h_apply", "Rebuild with these settings", class_="btn-secondary"),
                ui.input_action_button("h_auto", "Back to the automatic one", class_="btn-link"),
                explain("Numbers are cut into intervals, codes masked from the right, dates coarsened, "
                        "categories grouped.",
                        "Builders: intervals (width, levels, fanout), masking (levels, char), dates "
                        "(granularities), order (sizes), nested (tree), flat (everything to *). "
                        "Or edit the levels table directly, or import a hierarchy made with ARX."),
                ui.input_file("h_import", "Import an ARX hierarchy (CSV)", accept=[".csv", ".txt"]),
                ui.download_button("h_export", "Export as ARX CSV", class_="btn-secondary"),
            ),
            ui.div(ui.output_ui("h_status"),
                   ui.layout_columns(ui.input_select("h_edit_value", "Value", choices=[]),
                                     ui.input_numeric("h_edit_level", "Level", 1, min=1, step=1),
                                     ui.input_text("h_edit_label", "New label"),
                                     ui.input_action_button("h_edit_apply", "Change the label",
                                                            class_="btn-secondary mt-4"),
                                     col_widths=(3, 2, 4, 3)),
                   ui.output_table("h_levels")),
            col_widths=(4, 8),
        ),
        value="hierarchies",
    )


def build(shared: Shared, c: Column) -> Hierarchy | None:
    """The column's hierarchy as the next run will use it (the edited table, else the builder)."""
    from anonkit.hierarchy.builder_params import BUILDER_SPECS
    from anonkit.hierarchy.builder_params import build as build_spec

    if c.table is not None:
        return parse_hierarchy(c.table, name=c.name)
    frame = shared.ws.frame
    if c.builder is None or frame is None:
        return None
    spec = dict(c.builder)
    name = spec.get("builder")
    if name not in BUILDER_SPECS:
        raise InputError(f"unknown builder; use one of {', '.join(BUILDER_SPECS)}", column=c.name, value=name)
    return build_spec(BUILDER_SPECS[name].model_validate(spec), frame[c.name], name=c.name)


def to_arx(rows: list[list[str]]) -> str:
    """Rows of labels as ARX CSV text (``;``-separated, no header)."""
    buf = io.StringIO()
    csv.writer(buf, delimiter=";", lineterminator="\n").writerows(rows)
    return buf.getvalue()


def _levels(h: Hierarchy) -> pd.DataFrame:
    frame = h.to_frame()
    frame.columns = ["value", *(f"level {i}" for i in range(1, len(frame.columns)))]
    return frame


def server(input: Inputs, output: Outputs, session: Session, shared: Shared) -> None:
    status: reactive.Value[Any] = reactive.Value(None)

    def current() -> Column | None:
        name = input.h_column()
        return shared.ws.columns.get(name) if name else None

    @reactive.effect
    def _columns() -> None:
        shared.changed()
        names = [c.name for c in shared.ws.columns.values() if c.role in TYPED_ROLES]
        with reactive.isolate():
            keep = input.h_column() if input.h_column() in names else (names[0] if names else None)
        ui.update_select("h_column", choices=names, selected=keep)

    @reactive.effect
    def _show_builder() -> None:
        shared.changed()
        c = current()
        text = "" if c is None or c.builder is None else yaml.safe_dump(c.builder, default_flow_style=True).strip()
        if c is not None and c.table is not None:
            text = "# edited or imported table (shown on the right)"
        ui.update_text_area("h_builder", value=text)

    @reactive.effect
    @reactive.event(input.h_apply)
    def _apply() -> None:
        c = current()
        if c is None:
            return
        try:
            spec = yaml.safe_load(input.h_builder() or "")
            if not isinstance(spec, dict) or "builder" not in spec:
                raise InputError("give a mapping with 'builder', e.g. {builder: intervals, width: 10}", column=c.name)
            old = (c.builder, c.table)
            c.builder, c.table = spec, None
            try:
                build(shared, c)
            except (InputError, ValidationError, ValueError):
                c.builder, c.table = old
                raise
        except (InputError, ValidationError, ValueError, yaml.YAMLError) as exc:
            status.set(message(f"Not applied: {_one_line(exc)}", "danger"))
            return
        status.set(message(f"Rebuilt the hierarchy of {c.name}.", "success"))
        shared.bump()

    @reactive.effect
    @reactive.event(input.h_auto)
    def _auto() -> None:
        from anonkit.ui.data import suggest_hierarchy

        c = current()
        if c is not None:
            c.builder, c.table = None, None
            suggest_hierarchy(shared, c)
            status.set(message(f"The automatic hierarchy of {c.name} is back.", "success"))
            shared.bump()

    @reactive.effect
    @reactive.event(input.h_import)
    def _import() -> None:
        c, files = current(), input.h_import()
        if c is None or not files:
            return
        try:
            with open(files[0]["datapath"], encoding="utf-8-sig") as fh:
                text = fh.read()
            h = parse_hierarchy(text, name=c.name)
        except (InputError, OSError, UnicodeDecodeError) as exc:
            status.set(message(f"Not imported: {_one_line(exc)}", "danger"))
            return
        c.table, c.builder = to_arx(h.rows()), None
        status.set(message(f"Imported a hierarchy of {h.height} levels for {c.name}.", "success"))
        shared.bump()

    @render.ui
    def h_status() -> Any:
        return status()

    @render.table(index=False, classes="table table-sm")
    def h_levels() -> Any:
        shared.changed()
        c = current()
        if c is None:
            return pd.DataFrame({"": ["mark a column as quasi-identifier in step Data"]})
        try:
            h = build(shared, c)
        except (InputError, ValidationError, ValueError) as exc:
            return pd.DataFrame({"problem": [_one_line(exc)]})
        if h is None:
            return pd.DataFrame({"": [f"{c.name} has no hierarchy: every value is published as is or suppressed"]})
        return _levels(h).head(SHOWN_ROWS)

    @reactive.effect
    def _edit_choices() -> None:
        shared.changed()
        c = current()
        try:
            h = None if c is None else build(shared, c)
        except (InputError, ValidationError, ValueError):
            h = None
        ui.update_select("h_edit_value", choices=[] if h is None else [r[0] for r in h.rows()])

    @reactive.effect
    @reactive.event(input.h_edit_apply)
    def _edited() -> None:
        c = current()
        h = None if c is None else build(shared, c)
        if c is None or h is None:
            return
        rows = h.rows()
        value, level, label = input.h_edit_value(), input.h_edit_level(), (input.h_edit_label() or "").strip()
        index = next((i for i, r in enumerate(rows) if r[0] == value), None)
        if index is None or not isinstance(level, int | float) or not 1 <= int(level) < len(rows[index]) or not label:
            status.set(message(f"Choose a value, a level from 1 to {h.height - 1 or 1} and a label.", "warning"))
            return
        rows[index][int(level)] = label
        try:
            parse_hierarchy(to_arx(rows), name=c.name)
        except InputError as exc:
            status.set(message(f"Not changed: {_one_line(exc)}", "danger"))
            return
        c.table, c.builder = to_arx(rows), None
        status.set(message(f"Changed a label of {c.name}; the next run uses the edited hierarchy.", "success"))
        shared.bump()

    @render.download_button(filename=lambda: f"hierarchy_{input.h_column() or 'column'}.csv")
    def h_export() -> Any:
        c = current()
        h = None if c is None else build(shared, c)
        yield "" if h is None else to_arx(h.rows())


def _one_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
