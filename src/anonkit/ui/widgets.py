"""Small pieces every step uses: a step's heading with its plain-language help, help beside a control
with the details one click away (an HTML ``<details>``), a message box, and the session's shared
state (the :class:`~anonkit.ui.workspace.Workspace` and a counter that tells the pages it changed)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shiny import reactive, ui

from anonkit.ui.workspace import Workspace

__all__ = ["Shared", "explain", "message", "step_header"]


@dataclass
class Shared:
    """What the steps of one session share: the workspace and ``changed`` (bumped after every edit)."""

    ws: Workspace
    changed: reactive.Value[int]
    #: the run shown in Results (its number), ``None`` before the first
    shown: reactive.Value[int | None]
    #: the sensitive columns (what the privacy step's models are about); set only when they change
    roles: reactive.Value[tuple[str, ...]]
    #: the value given when the application was started (``anonkit ui DATA``)
    data: str | None = None

    def bump(self) -> None:
        """Tell every page the workspace changed (and the privacy step which columns are sensitive)."""
        with reactive.isolate():
            self.changed.set(self.changed() + 1)
        self.roles.set(tuple(c.name for c in self.ws.columns.values() if c.role == "sensitive"))


def step_header(title: str, what: str) -> Any:
    """The step's title and one paragraph saying what it is for."""
    return ui.div(ui.h2(title), ui.p(what, class_="lead"))


def explain(short: str, details: str | None = None) -> Any:
    """Help beside a control: one plain sentence, the details behind a click."""
    if details is None:
        return ui.p(short, class_="form-text")
    return ui.div(ui.p(short, class_="form-text mb-1"),
                  ui.tags.details(ui.tags.summary("Details"), ui.p(details, class_="small")), class_="mb-2")


def message(text: str, kind: str = "info") -> Any:
    """A message box (``info``, ``success``, ``warning``, ``danger``), announced to screen readers."""
    return ui.div(text, class_=f"alert alert-{kind}", role="status" if kind in ("info", "success") else "alert")
