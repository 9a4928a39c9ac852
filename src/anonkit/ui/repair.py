"""When the audit fails: the smallest change that passes, computed by trying it, applied on request.

Under a failing verdict the page lists the proposals: the run's own advice (the change the audit
reran and found passing, :mod:`anonkit.audit.advice`, which the CLI prints as ``to pass: …``) at once,
and on a click the fix search of :mod:`anonkit.fixes` (several levers, each tried, e.g. "l = 4:
inference risk 6 %, loss +3 %"). "Apply and run" changes the session's config by the proposal's dotted
keys (:func:`anonkit.ui._advice.apply_fix`) and runs it; the new run's verdict is the proof.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from shiny import Inputs, Outputs, Session, reactive, render, ui

from anonkit.errors import InputError
from anonkit.ui import _advice
from anonkit.ui.jobs import Busy, Cancelled, JobState, run_job
from anonkit.ui.widgets import Shared
from anonkit.ui.workspace import RunRecord

__all__ = ["Proposal", "from_advice", "panel_output", "server"]

#: how many proposals the page lists
SHOWN_FIXES = 5


@dataclass
class Proposal:
    """A change to the config that was tried: its dotted keys, in words, and whether it passes."""

    change: dict[str, Any]
    words: str
    passes: bool = True
    extra: dict[str, Any] = field(default_factory=dict)
    fix: Any = None  # the library's Fix, applied by its own function


def from_advice(summary: dict[str, Any]) -> list[Proposal]:
    """The run's own advice (a failing verdict's ``advice``) as a proposal, when it passes."""
    advice = (summary.get("verdict") or {}).get("advice") or {}
    if not advice.get("holds") or not advice.get("key", "").startswith(("privacy", "algorithm")):
        return []
    return [Proposal({advice["key"]: advice["value"]}, f"{advice['change']} — rerun gives {advice['gives']}")]


def _from_fix(fix: Any) -> Proposal:
    return Proposal(dict(fix.change), str(getattr(fix, "words", fix.change)), bool(getattr(fix, "passes", True)),
                    fix=fix)


def apply(config: dict[str, Any], p: Proposal) -> dict[str, Any]:
    """``config`` with the proposal applied."""
    if p.fix is not None:
        return _advice.apply_fix(config, p.fix)
    return _advice.apply_change(config, p.change)


def panel_output() -> Any:
    return ui.output_ui("res_fix")


def server(input: Inputs, output: Outputs, session: Session, shared: Shared, state: JobState, launch: Any) -> None:
    searched: reactive.Value[dict[int, list[Proposal]]] = reactive.Value({})
    note: reactive.Value[str | None] = reactive.Value(None)

    def record() -> RunRecord | None:
        shared.changed()
        chosen = input.res_run()
        r = shared.ws.run(int(chosen)) if chosen else None
        return r if r is not None and r.result is not None else None

    def proposals(r: RunRecord) -> list[Proposal]:
        found = searched().get(r.number)
        return (found if found is not None else from_advice(r.summary))[:SHOWN_FIXES]

    @reactive.extended_task
    async def search(r: RunRecord) -> tuple[int, list[Proposal] | str]:
        def work() -> tuple[int, list[Proposal] | str]:
            try:
                fixes = run_job(state, lambda st: _advice.propose_fixes(r.plan, result=r.result,
                                                                        progress=lambda d, t, w="": st.step(d, t, w)))
            except (InputError, Busy, Cancelled) as exc:
                return r.number, str(exc)
            return r.number, [_from_fix(f) for f in fixes]

        return await asyncio.to_thread(work)

    @reactive.effect
    @reactive.event(input.fix_search)
    def _search() -> None:
        r = record()
        if r is not None:
            note.set("Trying changes… (each is a whole run)")
            search.invoke(r)

    @reactive.effect
    def _searched() -> None:
        if search.status() != "success":
            return
        number, found = search.result()
        with reactive.isolate():
            if isinstance(found, str):
                note.set(found)
                return
            note.set(None if found else "No change that passes was found.")
            searched.set({**searched(), number: found})

    @render.ui
    def res_fix() -> Any:
        r = record()
        if r is None or (r.summary.get("verdict") or {}).get("ok") is not False:
            return ui.div()
        items = []
        for i, p in enumerate(proposals(r)):
            items.append(ui.tags.li(ui.span(p.words + ("" if p.passes else " (does not pass)"), class_="me-2"),
                                    ui.input_action_button(f"fix_apply_{r.number}_{i}", "Apply and run",
                                                           class_="btn-sm btn-success")))
        listed = ui.tags.ol(*items) if items else ui.p("No change computed yet.")
        more = (ui.input_action_button("fix_search", "Find more changes that pass", class_="btn-sm btn-secondary")
                if _advice.fixes_available() else ui.div())
        return ui.div(ui.h4("The smallest change that passes"), listed, more,
                      ui.p(note() or "", role="status"), class_="border rounded p-3 mb-3", id="fix_box")

    applied: set[str] = set()

    @reactive.effect
    def _apply() -> None:
        r = record()
        if r is None:
            return
        for i, p in enumerate(proposals(r)):
            button = f"fix_apply_{r.number}_{i}"
            try:
                clicks = input[button]()
            except Exception:  # not on the page yet
                continue
            if not clicks or button in applied:
                continue
            applied.add(button)
            with reactive.isolate():
                try:
                    config = apply(r.config, p)
                except InputError as exc:
                    note.set(f"Cannot apply it: {exc}")
                    continue
                shared.ws.adopt(config)
                launch(config)
