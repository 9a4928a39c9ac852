"""The command line's printers print what ``cli.py`` printed before it became the ``cli/`` package.

``data/cli_printers.json`` holds summaries, verdicts and audits (real runs' and ones with every
optional section: 1:M figures, per-person table checks, a fallback, background knowledge,
post-analytics with fakes and alerts, a noise manifest, a vector score, warnings, advice) and the text
the old single-module printers gave for each (stdout and stderr, 160 columns). Any change to a
section's wording, order or rounding shows here.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from anonkit.cli import console
from anonkit.cli.printers.audit import print_audit
from anonkit.cli.printers.summary import print_summary
from anonkit.cli.printers.verdict import print_verdict

GOLDEN = json.loads((Path(__file__).parent / "data" / "cli_printers.json").read_text(encoding="utf-8"))
PRINTERS = {"summary": print_summary, "verdict": print_verdict, "audit": print_audit}
CASES = [(kind, i) for kind, items in GOLDEN["inputs"].items() for i in range(len(items))]


@pytest.mark.parametrize(("kind", "i"), CASES)
def test_printers_print_what_the_single_module_printed(kind: str, i: int, monkeypatch: pytest.MonkeyPatch) -> None:
    out = Console(file=io.StringIO(), width=160, color_system=None)
    err = Console(file=io.StringIO(), width=160, color_system=None)
    monkeypatch.setattr(console, "out", out)
    monkeypatch.setattr(console, "err", err)
    PRINTERS[kind](GOLDEN["inputs"][kind][i])
    assert [out.file.getvalue(), err.file.getvalue()] == GOLDEN["printed"][kind][i]


def test_every_section_of_the_summary_is_in_the_golden_text() -> None:
    """Control: the full summary's golden text shows each optional section, so the comparison covers them."""
    text = "".join(GOLDEN["printed"]["summary"][1])
    for words in ("published tables and their link", "record intersection", "NCP per person", "persons",
                  "Age →", "note", "background knowledge", "inference (post-analytics)", "noise records",
                  "alert: a [b] c", "warning: w1 [x]", "(not written)"):
        assert words in text, words
