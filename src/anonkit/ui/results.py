"""Step 5, Results: the run's verdict (the very one the CLI prints and the report shows, from the run's
summary), privacy (risk distribution, attacks with their intervals), utility (loss per attribute,
generalization per attribute, an attribute's distribution before and after), and two runs side by side.

Every figure is drawn by the report's own functions (:mod:`anonkit.report.figures`), so the page and
the HTML report show the same pictures. The input's raw values appear only in the user's own browser
(this page is served to them alone, see :mod:`anonkit.ui.security`); the distribution figure draws the
input's shape only, as the report does by default.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from shiny import Inputs, Outputs, Session, reactive, render, ui

from anonkit.cli.printers.units import pct
from anonkit.ui import repair, rumap
from anonkit.ui.widgets import Shared, explain, message, step_header
from anonkit.ui.workspace import RunRecord

__all__ = ["compare_frame", "counts_words", "panel", "server", "verdict_words"]


def verdict_words(summary: dict[str, Any]) -> tuple[bool | None, str, list[str]]:
    """``(ok, headline, failing checks)`` of a run's verdict, worded as ``anonkit anonymize`` prints it."""
    v = summary.get("verdict")
    if not v:
        return None, "No verdict: the run gave no audit.", []
    if v["ok"]:
        return True, f"Verdict: every check holds ({v['checks']} checks).", []
    failing = [f"{f['check']} {pct(f['value'])} > {pct(f['threshold'])}" if f.get("threshold") is not None
               else f"{f['check']} fails" for f in v["failing"]]
    return False, f"Verdict: do not publish as is — {len(v['failing'])} of {v['checks']} checks fail.", failing


def _number(x: object) -> str:
    if isinstance(x, float):
        return f"{x:.4g}"
    return "—" if x is None else f"{x:,}" if isinstance(x, int) else str(x)


def counts_words(s: dict[str, Any]) -> str:
    """What a run released, in words: records, suppressed and classes; a synthetic table's rows (drawn from
    a model: none is a record, so it has no classes) and why its class figures are not shown."""
    if s.get("not_applicable"):
        rows = (s.get("notes") or {}).get("synthetic rows")
        return (f"{_number(rows)} synthetic rows drawn from a model of {_number(s.get('records'))} records; "
                "no row is a record, so no class figure is shown (judge it by the attacks and the marginals).")
    return (f"{_number(s.get('released'))} of {_number(s.get('records'))} records released, "
            f"{_number(s.get('suppressed'))} suppressed, {_number(s.get('classes'))} classes.")


def compare_frame(a: RunRecord, b: RunRecord) -> pd.DataFrame:
    """Two runs side by side: models, algorithm, verdict, counts, loss and risk."""
    def facts(r: RunRecord) -> dict[str, str]:
        s = r.summary
        _ok, headline, _ = verdict_words(s) if s else (None, r.error or "not run", [])
        metrics = s.get("metrics") or {}
        out = {"models": r.label.split(": ", 1)[-1], "verdict": headline, "released": _number(s.get("released")),
               "suppressed": _number(s.get("suppressed")), "classes": _number(s.get("classes"))}
        for key in ("loss", "granularity", "discernibility", "prosecutor_max", "prosecutor_average",
                    "records_at_risk"):
            if key in metrics:
                out[key] = _number(metrics[key])
        tvd = s.get("synthetic_utility") or {}  # a synthetic table: its marginals' distances, no class figure
        for key in ("one_way_mean", "two_way_mean"):
            if tvd.get(key) is not None:
                out[f"{key.replace('_mean', '')} TVD (mean)"] = _number(tvd[key])
        out["generalization"] = ", ".join(f"{k}={g.get('level')}" for k, g in (s.get("generalization") or {}).items())
        return out

    fa, fb = facts(a), facts(b)
    keys = list(dict.fromkeys([*fa, *fb]))
    return pd.DataFrame({"": keys, f"run {a.number}": [fa.get(k, "—") for k in keys],
                         f"run {b.number}": [fb.get(k, "—") for k in keys]})


def panel() -> Any:
    return ui.nav_panel(
        "5. Results",
        step_header("Results", "Is the release safe to publish, and how much did it change the data?"),
        ui.input_select("res_run", "Run shown", choices={}),
        ui.output_ui("res_verdict"),
        repair.panel_output(),
        ui.navset_underline(
            ui.nav_panel("Privacy",
                         explain("How likely a record is to be re-identified, and how well simulated attacks "
                                 "do on the release.",
                                 "Risk of a record: 1 / the size of its class. Attacks are run on the release "
                                 "and compared with a guesser that knows only the whole table; the bars show "
                                 "95 % intervals."),
                         ui.output_plot("res_risk", height="260px"), ui.output_plot("res_attacks", height="300px")),
            ui.nav_panel("Utility",
                         explain("How much each attribute was generalized and how its distribution changed."),
                         ui.output_plot("res_loss", height="280px"), ui.output_table("res_generalization"),
                         ui.input_select("res_attribute", "Attribute to compare before and after", choices=[]),
                         ui.output_plot("res_distribution", height="300px")),
            ui.nav_panel("Risk–utility map", rumap.ui_block()),
            ui.nav_panel("Compare two runs",
                         ui.layout_columns(ui.input_select("res_a", "First run", choices={}),
                                           ui.input_select("res_b", "Second run", choices={})),
                         ui.output_table("res_compare")),
            id="res_tabs",
        ),
        value="results",
    )


def server(input: Inputs, output: Outputs, session: Session, shared: Shared) -> None:
    from anonkit.report import figures

    def record() -> RunRecord | None:
        shared.changed()
        chosen = input.res_run()
        return shared.ws.run(int(chosen)) if chosen else None

    def finished() -> dict[str, str]:
        return {str(r.number): r.label + ("" if r.result is not None else " (no release)") for r in shared.ws.runs}

    @reactive.effect
    def _runs() -> None:
        shared.changed()
        choices = finished()
        shown = shared.shown()
        selected = str(shown) if shown is not None else (next(reversed(choices)) if choices else None)
        ui.update_select("res_run", choices=choices, selected=selected)
        numbers = list(choices)
        ui.update_select("res_a", choices=choices, selected=numbers[-2] if len(numbers) > 1 else selected)
        ui.update_select("res_b", choices=choices, selected=numbers[-1] if numbers else None)

    @reactive.effect
    def _attributes() -> None:
        r = record()
        names = [] if r is None or r.result is None else [str(c) for c in r.result.frame.columns]
        ui.update_select("res_attribute", choices=names)

    @render.ui
    def res_verdict() -> Any:
        r = record()
        if r is None:
            return message("No run yet: go to step Run.", "info")
        if r.result is None:
            return message(r.error or "This run gave no release.", "warning")
        ok, headline, failing = verdict_words(r.summary)
        s = r.summary
        counts = counts_words(s)
        items = ui.tags.ul(*(ui.tags.li(f) for f in failing)) if failing else ui.div()
        kind = "success" if ok else "danger" if ok is False else "secondary"
        return ui.div(ui.h3(headline, id="res_headline"), items, ui.p(counts), class_=f"alert alert-{kind}",
                      role="status")

    def _audit() -> dict[str, Any]:
        r = record()
        return {} if r is None or r.result is None else (r.summary.get("audit") or {})

    @render.plot(alt="Share of records by their re-identification risk")
    def res_risk() -> Any:
        audit = _audit()
        risk = audit.get("risk") or {}
        return figures.risk_distribution(risk.get("distribution") or [],
                                         threshold=(audit.get("thresholds") or {}).get("highest_risk"))

    @render.plot(alt="Attack success on the release with 95 % intervals, against the threshold")
    def res_attacks() -> Any:
        audit = _audit()
        return figures.attacks(audit.get("attacks") or [],
                               threshold=(audit.get("thresholds") or {}).get("attack_risk"))

    @render.plot(alt="Information loss per quasi-identifier")
    def res_loss() -> Any:
        r = record()
        s = {} if r is None else r.summary
        return figures.information_loss(s.get("generalization") or {}, s.get("metrics") or {})

    @render.table(index=False, classes="table table-sm")
    def res_generalization() -> Any:
        r = record()
        rows = [{"attribute": k, "level": _number(g.get("level")), "of levels": _number(g.get("height")),
                 "released labels": _number(g.get("labels")), "values changed": _number(g.get("changed")),
                 "examples": ", ".join(map(str, g.get("examples") or []))}
                for k, g in ((r.summary.get("generalization") or {}) if r is not None else {}).items()]
        return pd.DataFrame(rows or [{"attribute": "no run yet"}])

    @render.plot(alt="The attribute's distribution in the input (shape only) and in the release")
    def res_distribution() -> Any:
        r, name = record(), input.res_attribute()
        if r is None or r.result is None or not name or shared.ws.frame is None:
            return figures.distribution(None, None, name=name or "")
        before = shared.ws.frame[name] if name in shared.ws.frame.columns else None
        return figures.distribution(before, r.result.frame[name], name=name)

    @render.table(index=False, classes="table table-sm")
    def res_compare() -> Any:
        shared.changed()
        a, b = input.res_a(), input.res_b()
        ra = shared.ws.run(int(a)) if a else None
        rb = shared.ws.run(int(b)) if b else None
        if ra is None or rb is None:
            return pd.DataFrame({"": ["make two runs to compare them"]})
        return compare_frame(ra, rb)
