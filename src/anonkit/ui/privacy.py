"""Step 3, Privacy: which guarantees the release must give, in plain words.

Two ways in. **By risk**: the user states the highest (or average) re-identification risk they accept,
and the application sets the models that guarantee it (:func:`anonkit.ui._advice.models_for_risk`) and
shows them. **By model**: k-anonymity, l-diversity and t-closeness with their parameters, each with a
sentence on what it protects against. Either way the chosen models are listed as the config will say
them; the other models anonkit knows are described one click away (``anonkit models``).
"""

from __future__ import annotations

from typing import Any

import yaml
from shiny import Inputs, Outputs, Session, reactive, render, ui

from anonkit.ui import _advice
from anonkit.ui.widgets import Shared, explain, message, step_header

__all__ = ["DEFAULT_HIGHEST_RISK", "models_from", "panel", "server"]

#: the risk mode's starting value: no record above 5 % re-identification risk (k = 20)
DEFAULT_HIGHEST_RISK = 5.0
#: the models' starting parameters
DEFAULT_K, DEFAULT_L, DEFAULT_T = 5, 3, 0.2


def panel() -> Any:
    return ui.nav_panel(
        "3. Privacy",
        step_header("Privacy", "Say how well the people in the table must be protected. Choose a risk you accept, "
                               "or the privacy models themselves."),
        ui.input_radio_buttons("p_mode", "How to decide", {"risk": "By the risk I accept",
                                                           "models": "By privacy models"}, selected="risk",
                               inline=True),
        ui.panel_conditional(
            "input.p_mode === 'risk'",
            ui.input_select("p_risk_kind", "Risk to bound", {"highest": "highest re-identification risk of any record",
                                                             "average": "average re-identification risk"}),
            ui.input_numeric("p_risk", "At most (%)", DEFAULT_HIGHEST_RISK, min=0.01, max=100, step=0.5),
            explain("The chance that someone who knows a person's quasi-identifiers finds their record.",
                    "A record in a group of k records that look the same has a risk of 1/k: at most 5 % needs "
                    "groups of at least 20. The average risk is the share of records an attacker could find "
                    "by trying every record."),
        ),
        ui.panel_conditional(
            "input.p_mode === 'models'",
            ui.input_checkbox("p_k_on", "k-anonymity: every record looks like at least k − 1 others", True),
            ui.input_numeric("p_k", "k", DEFAULT_K, min=2, step=1),
            ui.input_checkbox("p_l_on", "l-diversity: every group has at least l different sensitive values", False),
            ui.input_numeric("p_l", "l", DEFAULT_L, min=2, step=1),
            ui.input_checkbox("p_t_on", "t-closeness: every group's sensitive values are distributed like the "
                              "whole table's", False),
            ui.input_numeric("p_t", "t (0 to 1, smaller is stricter)", DEFAULT_T, min=0.001, max=1, step=0.05),
            explain("l-diversity and t-closeness protect the sensitive attribute (chosen in step Data).",
                    "k-anonymity stops re-identification; l-diversity stops learning a sensitive value when a "
                    "group has only one; t-closeness stops learning much more about it than the whole table tells."),
        ),
        ui.h3("The models the release must meet"),
        ui.output_ui("p_models"),
        ui.tags.details(ui.tags.summary("Every privacy model anonkit knows"), ui.output_ui("p_catalogue")),
        value="privacy",
    )


def models_from(mode: str, *, risk_kind: str, risk: float | None, k_on: bool, k: Any, l_on: bool, l_value: Any,
                t_on: bool, t: Any, sensitive: list[str]) -> list[dict[str, Any]]:
    """The config's ``privacy:`` from the page's controls."""
    if mode == "risk":
        if risk is None or not 0 < float(risk) <= 100:
            return []
        share = float(risk) / 100
        return _advice.models_for_risk(**{risk_kind: share})
    models: list[dict[str, Any]] = []
    if k_on and k:
        models.append({"model": "k-anonymity", "k": int(k)})
    for attr in sensitive:
        if l_on and l_value:
            models.append({"model": "l-diversity", "attribute": attr, "l": int(l_value), "variant": "distinct"})
        if t_on and t:
            models.append({"model": "t-closeness", "attribute": attr, "t": float(t)})
    return models


def server(input: Inputs, output: Outputs, session: Session, shared: Shared) -> None:
    @reactive.effect
    def _models() -> None:
        sensitive = list(shared.roles())  # not every change: a fix applied keeps its models until a control moves
        models = models_from(input.p_mode(), risk_kind=input.p_risk_kind(), risk=input.p_risk(),
                             k_on=input.p_k_on(), k=input.p_k(), l_on=input.p_l_on(), l_value=input.p_l(),
                             t_on=input.p_t_on(), t=input.p_t(), sensitive=sensitive)
        if models != shared.ws.privacy:
            shared.ws.privacy = models
            shared.bump()

    @render.ui
    def p_models() -> Any:
        shared.changed()
        models = shared.ws.privacy
        if not models:
            return message("No model chosen yet: the release would not be protected.", "warning")
        listed = ui.tags.ul(*(ui.tags.li(ui.code(yaml.safe_dump(m, default_flow_style=True).strip()))
                              for m in models))
        why = ("set from the risk you accept" if input.p_mode() == "risk" else "as you chose them")
        return ui.div(ui.p(f"{len(models)} model{'s' if len(models) != 1 else ''}, {why}:"), listed)

    @render.ui
    def p_catalogue() -> Any:
        from anonkit.models.registry import describe_all

        return ui.tags.dl(*(item for d in describe_all()
                            for item in (ui.tags.dt(d["label"]), ui.tags.dd(d["summary"]))))
