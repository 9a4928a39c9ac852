"""The report's lines for a SafePub release (``summary["notes"]`` of the ``safepub`` algorithm): the
guarantee in words, the parameters (ε, the search budget, δ → β and k), the search and where the
records went, then what an audit of such a release can and cannot judge. A release of any other
algorithm has no such notes and the report shows nothing here (no empty heading)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anonkit.models.differential_privacy import AUDIT_NOTE, dp_lines, dp_notes
from anonkit.report._markup import Page, facts, note

__all__ = ["dp_section"]


def dp_section(page: Page, summary: Mapping[str, Any]) -> str:
    """The "Differential privacy" block of section 2, or ``""`` for another algorithm's release."""
    notes = dp_notes(dict(summary))
    if notes is None:
        return ""
    rows = [(what, page.text(value)) for what, value in dp_lines(notes)]
    body = "<h3>Differential privacy (SafePub)</h3>" + facts(rows)
    if "warning" in notes:
        body += note(f"Warning: {notes['warning']}.")
    return body + note(AUDIT_NOTE[0].upper() + AUDIT_NOTE[1:] + ".")
