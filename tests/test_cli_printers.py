"""The command line's printers print what ``cli.py`` printed before it became the ``cli/`` package.

``data/cli_printers.json`` holds summaries, verdicts and audits (real runs' and ones with every
optional section: 1:M figures, per-person table checks, a fallback, background knowledge,
post-analytics with fakes and alerts, a noise manifest, a vector score, warnings, advice) and the text
the old single-module printers gave for each (stdout and stderr, 160 columns), but for one change
(issue 26): the files a run wrote are listed under the table, one ``written: PATH`` line each, instead
of an ``output`` row that cut a long path and showed two tables as a Python list. Any change to a
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


def _narrow(monkeypatch: pytest.MonkeyPatch, width: int = 80) -> tuple[Console, Console]:
    out = Console(file=io.StringIO(), width=width, color_system=None)
    err = Console(file=io.StringIO(), width=width, color_system=None)
    monkeypatch.setattr(console, "out", out)
    monkeypatch.setattr(console, "err", err)
    return out, err


@pytest.mark.parametrize("width", [40, 80, 160])
def test_output_paths_are_printed_whole_at_any_width(width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file a run wrote on its own ``written:`` line, however long the path and narrow the
    terminal: the release's tables one per line (never a Python list), the manifests, the report."""
    out, _ = _narrow(monkeypatch, width)
    long = "/data/" + "/".join(["a-rather-long-folder-name"] * 6) + "/release.csv"
    summary = {**GOLDEN["inputs"]["summary"][1], "output": [long, long.replace("release", "release-st")],
               "report": long.replace(".csv", ".html")}
    print_summary(summary)
    lines = out.file.getvalue().splitlines()
    assert len(long) > 150
    for line in (f"written: {long}", f"written: {long.replace('release', 'release-st')}",
                 f"written: {long.replace('.csv', '.html')} (the HTML report)",
                 "written: m.csv (the private manifest of fake records: never publish it)"):
        assert line in lines, (line, lines)
    assert not any("['" in line for line in lines)
    assert "output: (not written)" not in lines


def test_a_release_not_written_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    out, _ = _narrow(monkeypatch)
    print_summary({**GOLDEN["inputs"]["summary"][0], "output": None})
    lines = out.file.getvalue().splitlines()
    assert "output: (not written)" in lines and not any(line.startswith("written: o2.csv") for line in lines)


def test_the_audit_names_its_report(monkeypatch: pytest.MonkeyPatch) -> None:
    out, _ = _narrow(monkeypatch)
    print_audit({**GOLDEN["inputs"]["audit"][0], "report": "audit.html"})
    assert "written: audit.html (the HTML report)" in out.file.getvalue().splitlines()


def test_no_table_cell_is_cut_at_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """A word too long for its column folds onto the next line; rich's "…" never replaces it."""
    out, _ = _narrow(monkeypatch)
    summary = {**GOLDEN["inputs"]["summary"][0], "algorithm": "flash", "fallback": "x" * 120}
    print_summary(summary)
    text = out.file.getvalue()
    assert "…" not in text.replace(", …", "")  # the examples' own "…" (more labels) is content
    assert "".join(line.strip("│ ") for line in text.splitlines() if "x" * 10 in line).count("x") == 120
