"""The printed summary's lines for a SafePub release (``summary["notes"]`` of the ``safepub``
algorithm): the guarantee in words, the parameters (ε, the search budget, δ → β and k) and where the
records went (sampled, not sampled, suppressed in the sample). A release of any other algorithm has
no such notes and prints nothing; a ``dp-synthetic`` release prints its own lines (the guarantee, ε, δ → ρ,
the rows, the measured marginals). A seeded run's guarantee is printed in red: it is not private."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table as RichTable


def add_differential_privacy(t: RichTable, s: dict) -> None:
    """The SafePub rows, under Privacy (nothing for another algorithm)."""
    # the model's module loads numpy: imported here, so that a command's --help loads none (issue 30)
    from anonkit.models.differential_privacy import dp_lines, dp_notes

    notes = dp_notes(s)
    if notes is None:
        _add_synthetic(t, s)
        return
    seeded = "warning" in notes
    for what, value in dp_lines(notes):
        shown = f"[bold red]{escape(value)}" if seeded and what == "guarantee" else escape(value)
        t.add_row(f"  differential privacy: {what}" if what == "guarantee" else f"    {what}", shown, "")


def _add_synthetic(t: RichTable, s: dict) -> None:
    """The ``dp-synthetic`` rows (nothing for another algorithm)."""
    if "rho" not in (s.get("notes") or {}):
        return  # not a synthesizer's summary: its module (the synth family) is not loaded for it
    from anonkit.algorithms.synth.dp_synthetic import synth_lines  # as above

    lines = synth_lines(s) or []
    seeded = "warning" in (s.get("notes") or {})
    for what, value in lines:
        shown = f"[bold red]{escape(value)}" if seeded and what == "guarantee" else escape(value)
        t.add_row(f"  differential privacy: {what}" if what == "guarantee" else f"    {what}", shown, "")


def dp_audit_notes(a: dict) -> list[str]:
    """The audit's note for a differential-privacy model: what the audit can and cannot judge."""
    from anonkit.models.differential_privacy import AUDIT_NOTE, DESCRIBE_MARK  # as above

    judged = [v for v in a.get("verdicts", []) if DESCRIBE_MARK in str(v.get("check", ""))]
    judged += [m for m in a.get("models", []) if DESCRIBE_MARK in str(m.get("model", ""))]
    return [AUDIT_NOTE] if judged else []
