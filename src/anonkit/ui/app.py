"""The Shiny application: six steps as tabs (Data, Hierarchies, Privacy, Run, Results, Export), each a
module of this package, sharing one :class:`~anonkit.ui.workspace.Workspace` per browser session.

Each session gets a private folder inside the application's (mode 0700; the application's is removed
when it stops, :mod:`anonkit.ui.server`). Nothing here is served from outside the package: Shiny's
page uses only the JavaScript and CSS in its wheel, and the pages add no external link.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
from pathlib import Path
from typing import Any

from shiny import App, Inputs, Outputs, Session, reactive, ui

from anonkit.ui import data, export, hierarchies, privacy, repair, results, rumap
from anonkit.ui import run as run_step
from anonkit.ui.jobs import JobState
from anonkit.ui.widgets import Shared
from anonkit.ui.workspace import Workspace

__all__ = ["TITLE", "make_app"]

TITLE = "anonkit — anonymize a table"

_CSS = """
body { max-width: 1200px; margin: 0 auto; }
.lead { font-size: 1.05rem; }
.nav-link:focus-visible, .btn:focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
.form-text { color: #3d4349; }
"""


def page() -> Any:
    """The page: a heading, the steps as keyboard-reachable tabs, and a footer."""
    return ui.page_fluid(
        ui.tags.head(ui.tags.title(TITLE), ui.tags.meta(name="referrer", content="no-referrer"),
                     ui.tags.style(_CSS)),
        ui.tags.header(ui.h1("anonkit", class_="h3 mt-3"),
                       ui.p("Anonymize a table for publication, step by step. Everything runs on this computer.")),
        ui.tags.main(
            ui.navset_tab(data.panel(), hierarchies.panel(), privacy.panel(), run_step.panel(), results.panel(),
                          export.panel(), id="step", selected="data"),
        ),
        lang="en",
    )


def make_app(root: str | Path, data_path: str | None = None) -> App:
    """The application; every session's private folder is made inside ``root``."""
    root = Path(root)
    numbers = itertools.count(1)

    def server(input: Inputs, output: Outputs, session: Session) -> None:
        folder = Path(tempfile.mkdtemp(prefix=f"session-{next(numbers)}-", dir=root))  # mode 0700
        session.on_ended(lambda: shutil.rmtree(folder, ignore_errors=True))
        shared = Shared(ws=Workspace(folder), changed=reactive.Value(0), shown=reactive.Value(None),
                        roles=reactive.Value(()), data=data_path)
        state = JobState()

        def go_results() -> None:
            ui.update_navset("step", selected="results")

        data.server(input, output, session, shared)
        hierarchies.server(input, output, session, shared)
        privacy.server(input, output, session, shared)
        launch = run_step.server(input, output, session, shared, state, go_results)
        results.server(input, output, session, shared)
        repair.server(input, output, session, shared, state, launch)
        rumap.server(input, output, session, shared, state, launch)
        export.server(input, output, session, shared)

    return App(page(), server)
