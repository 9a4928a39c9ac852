"""What ``anonkit algorithms``, ``anonkit explore`` and ``anonkit cloak`` print for people."""

from __future__ import annotations

import io
import math

from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable

from anonkit.cli import console
from anonkit.cli.helptext import wrap
from anonkit.cli.printers.units import OVERFLOW, num

#: the title of ``anonkit algorithms``
ALGORITHMS_TITLE = "anonkit algorithms (in a config: algorithm: {name: NAME, OPTION: VALUE})"
#: the title of ``anonkit models``
MODELS_TITLE = "anonkit privacy models (in a config: privacy: [{model: NAME, PARAMETER: VALUE}])"
#: how far a block's lines sit under its heading, and its list items under their label
BLOCK_INDENT = "  "


def print_algorithms(described: list[dict]) -> None:
    """One row per algorithm (family, what it does, its options with defaults, what it enforces,
    needs, publishes) when the table shows every word whole at the terminal's width, else one block
    per algorithm (:func:`print_listing`)."""
    columns = ("name", "family", "what it does", "options (default)", "enforces", "needs / publishes")
    rows = []
    for a in described:
        options = [f"{o['name']}: {o['type']}" + ("" if o["required"] else f" = {o['default']}") for o in a["options"]]
        rows.append((a["name"], a["family"], a["summary"], options, a["enforces_text"],
                     ", ".join([*a["needs"], a["publishes"]])))
    blocks = [(f"{name} ({family})", [("", summary), ("options (default)", options), ("enforces", enforces),
                                      ("needs / publishes", needs)])
              for name, family, summary, options, enforces, needs in rows]
    print_listing(ALGORITHMS_TITLE, columns, rows, blocks)


def print_models(described: list[dict]) -> None:
    """One row per privacy model (its config entry, what it guarantees, its parameters, required or
    with their default, the statistics it needs and its monotonicity) when the table shows every
    word whole at the terminal's width, else one block per model (:func:`print_listing`)."""
    columns = ("config", "what it guarantees", "parameters (default)", "needs", "monotonic")
    rows, blocks = [], []
    for m in described:
        def written(entry: dict) -> str:
            return ", ".join(f"{k}: {v}" for k, v in entry.items() if k != "or")

        entry = written(m["config"]) + ("" if "or" not in m["config"] else f" (or {written(m['config']['or'])})")
        params = [f"{p['key']}: {p['type']}" + ("" if p["required"] else f" = {p['default']}") for p in m["params"]]
        mono = m["monotonic"]
        monotonic = ("yes" if mono["generalization"] and mono["suppression"]
                     else "generalization only" if mono["generalization"] else "no")
        needs = ", ".join(m["needs"])
        rows.append((entry, m["summary"], params, needs, monotonic))
        blocks.append((entry, [("", m["summary"]), ("parameters (default)", params), ("needs", needs),
                               ("monotonic", monotonic)]))
    print_listing(MODELS_TITLE, columns, rows, blocks)


def print_listing(title: str, columns: tuple[str, ...], rows: list[tuple], blocks: list[tuple[str, list]]) -> None:
    """A listing as a table when, at the terminal's width, it shows every word whole; else as blocks.

    A table of five or six columns at 80 columns cut words (``max_suppr…``); the blocks wrap between
    words at any width. A row's cell is a text or a list of texts (one per line); a block is a heading
    and its items, each ``(label, text or list)``: an unlabelled text is a paragraph, a labelled text
    reads ``label: text``, a list is one line per entry under ``label:``, an empty item is left out."""
    table = RichTable(title=escape(title))
    for col in columns:
        table.add_column(col)
    cells = [[cell if isinstance(cell, str) else "\n".join(cell) for cell in row] for row in rows]
    for row in cells:
        table.add_row(*(escape(cell) for cell in row))
    width = console.out.width
    if whole_in(table, width, [title, *(cell for row in cells for cell in row)]):
        console.out.print(table)
        return
    lines = wrap(title, width)
    for heading, items in blocks:
        lines += ["", *wrap(heading, width, hang=BLOCK_INDENT)]
        for label, text in items:
            lines += block_item(label, text, width)
    console.out.print("\n".join(lines), markup=False, highlight=False, soft_wrap=True)


def block_item(label: str, text: str | list[str], width: int) -> list[str]:
    """One item of a block as lines at most ``width`` wide (see :func:`print_listing`)."""
    inner, deeper = BLOCK_INDENT, BLOCK_INDENT * 3
    if not text:
        return []
    if isinstance(text, list):
        return [*wrap(f"{label}:", width, inner, inner),
                *(line for entry in text for line in wrap(entry, width, BLOCK_INDENT * 2, deeper))]
    return wrap(f"{label}: {text}" if label else text, width, inner, BLOCK_INDENT * 2 if label else inner)


def whole_in(table: RichTable, width: int, texts: list[str]) -> bool:
    """Whether ``table`` drawn ``width`` columns wide shows every word whole: rich marks a word it
    cuts to fit a column with "…", so the drawing holds no more of them than the texts it shows."""
    probe = Console(file=io.StringIO(), width=width, color_system=None)
    probe.print(table)
    return probe.file.getvalue().count("…") <= sum(text.count("…") for text in texts)


def print_explore(result, keys: list[str], risk: str, loss: str, written: list[str]) -> None:  # type: ignore[no-untyped-def]
    """One row per run of the grid (its series when there are several, its parameters ``keys``, risk,
    loss, whether it meets the thresholds and is on the Pareto front), the notes, and the files written."""
    frame = result.frame
    several = "series" in frame.columns and frame["series"].nunique() > 1
    first = ("series", "algorithm") if several else ("algorithm",)
    t = RichTable(title=f"{len(frame)} runs: {loss} against {risk}"
                  + ("" if result.limit is None else f" (threshold {result.limit:g})"))
    for col in (*first, *keys, "satisfied", "risk", "loss", "meets", "pareto"):
        t.add_column(col, overflow=OVERFLOW)
    for row in frame.itertuples(index=False):
        r = dict(zip(frame.columns, row, strict=True))
        t.add_row(*(escape(_cell(r[c])) for c in (*first, *keys)), "yes" if r["satisfied"] else "no",
                  num(r["risk"]), num(r["loss"]), "yes" if r["meets"] else "no", "●" if r["pareto"] else "")
    console.out.print(t)
    for note in result.notes:
        console.err.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)
    print_written(written)


def _cell(value: object) -> str:
    """A varied value as the table prints it: empty where a series does not vary the key."""
    missing = value is None or type(value).__name__ == "NAType" or (isinstance(value, float) and math.isnan(value))
    return "" if missing else str(value)


def print_written(paths: list[str]) -> None:
    """Each file written as its own ``written: PATH`` line, never wrapped nor cut (a terminal folds a
    long line; the path stays whole to copy)."""
    for path in paths:
        console.out.print(f"written: {path}", highlight=False, markup=False, soft_wrap=True)


def print_cloak(summary: dict, to: Console) -> None:
    """The cloaking summary in three lines on ``to``: requests served, held and dropped; cloaked area; delay."""
    area_s, delay_s = summary["area"], summary["delay"]
    k_text = "—" if summary.get("k_achieved") is None else f"{summary['k_achieved']:,}"
    lines = [
        f"requests {summary['requests']:,}: served {summary['served']:,} (spatial {summary.get('spatial', 0):,}, "
        f"temporal {summary.get('temporal', 0):,}), held {summary['held']:,}, dropped {summary['dropped']:,}",
        f"cloaked area: median {num(area_s['median'])}, 95th percentile {num(area_s['p95'])}",
        f"delay: median {num(delay_s['median'])}, 95th percentile {num(delay_s['p95'])}; k achieved {k_text}",
    ]
    for line in lines:
        to.print(escape(line), highlight=False, soft_wrap=True)
