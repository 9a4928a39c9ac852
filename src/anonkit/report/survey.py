"""The report's section "Survey risk (sdcMicro's measures)": present when the audit computed them
(the schema has a ``weight`` or ``household`` column; :mod:`anonkit.audit.survey`).

One table — individual risk (highest, mean = global risk, records above the threshold), expected
re-identifications, household risk, SUDA2's DIS-SUDA and the attributes' contributions — and one
figure, the distribution of individual risk over the records, red above the threshold. The
section shows figures and column names only, never a value of the input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anonkit.report import figures
from anonkit.report._markup import MISSING, Page, mark, note, number, share, table

__all__ = ["survey_section"]


def _rows(page: Page, s: Mapping[str, Any], threshold: float | None) -> list[tuple[str, str, str]]:
    """``(figure, value, verdict)`` rows of the section's table."""
    r = s.get("individual_risk") or {}
    holds = None if threshold is None or r.get("max") is None else r["max"] <= threshold
    rows = [
        ("individual risk: highest (Benedetti–Franconi)", share(r.get("max")), MISSING if holds is None
         else mark(holds)),
        ("individual risk: mean (global risk)", share(r.get("mean")), ""),
        (f"records above {share(s.get('threshold'))}", f"{number(r.get('above'))} ({share(r.get('above_share'))})",
         ""),
        ("expected re-identifications", number(s.get("expected_reidentifications")), ""),
        ("sample uniques (fk = 1)", number(s.get("sample_uniques")), ""),
    ]
    hh = s.get("household")
    if hh:
        rows += [("household risk: highest", share(hh.get("max")), ""),
                 ("household expected re-identifications", number(hh.get("expected_reidentifications")), "")]
    sd = s.get("suda2")
    if sd:
        top = ", ".join(f"{page.text(c['attribute'])} {float(c['percent']):.1f} %"
                        for c in sd.get("attribute_contributions") or [])
        rows += [(f"DIS-SUDA: highest (sampling fraction {share(sd.get('dis_fraction'))})",
                  share((sd.get("dis_suda") or {}).get("max")), ""),
                 ("records with a special unique (SUDA2)", number(sd.get("records_with_msu")), ""),
                 ("SUDA2 attribute contributions", top or MISSING, "")]
    return rows


def survey_section(page: Page, audit: Mapping[str, Any] | None) -> str:
    """The section, or ``""`` when the audit has no survey figures."""
    survey = ((audit or {}).get("risk") or {}).get("survey")
    if not survey:
        return ""
    threshold = ((audit or {}).get("thresholds") or {}).get("individual_risk", survey.get("threshold"))
    weights = (f"weights from the column {survey['weight_column']}" if survey.get("weight_column")
               else "no weight column: the release is taken as the population (risk 1/fk)")
    body = note(f"sdcMicro's measures on the published quasi-identifier cells ({', '.join(survey['keys'])}); "
                f"a suppressed cell matches any value; {weights}.")
    body += table(["figure", "value", "verdict"], _rows(page, survey, threshold))
    body += page.figure(
        "fig-individual-risk", figures.risk_distribution(survey.get("distribution") or [], threshold=threshold,
                                                         measure="individual risk (sdcMicro, Benedetti–Franconi)"),
        "Share of records by their individual risk (sdcMicro's estimate from the weights); red: ranges above the "
        "individual-risk threshold.")
    return f'<section id="survey-risk"><h3>Survey risk (sdcMicro\'s measures)</h3>{body}</section>'
